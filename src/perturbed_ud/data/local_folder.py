"""A local Hugging Face dataset folder read by the content of its files.

`datasets` keys its cache of a local folder on the files' paths and modification times, and a
card's ``data_files`` may name files anywhere. What a build or an evaluation reads from a
folder is therefore resolved here to files inside it, which the caller hashes, and loaded
through a cache named by that hash (`content_cache`): a file rewritten under its old mtime,
or a folder swapped for another, can never be served from the cache of other bytes.
"""

from __future__ import annotations

from pathlib import Path

from ..errors import InputError


def content_cache(content: str) -> Path:
    """Where what was loaded from files of this content (their hash) is kept."""
    from datasets import config as hf_config

    return Path(hf_config.HF_DATASETS_CACHE) / "perturbed-ud-content" / content


def data_files(folder: Path, config: str | None) -> dict[str, list[str]]:
    """Each split's files in ``config`` of ``folder``, as paths relative to it: the card's
    ``data_files``, or the layout `datasets` infers without one. A file outside the folder is
    refused, never read."""
    from datasets import load_dataset_builder

    builder = load_dataset_builder(str(folder), config)
    root, splits = folder.resolve(), {}
    for split, paths in (builder.config.data_files or {}).items():
        splits[split] = []
        for path in paths:
            resolved = Path(path).resolve()
            if not resolved.is_relative_to(root):
                raise InputError(
                    f"{folder}: split {split!r} names {path}, which is not inside the folder; "
                    "only the folder's own files are read (check data_files in its README.md)"
                )
            splits[split].append(resolved.relative_to(root).as_posix())
    return splits
