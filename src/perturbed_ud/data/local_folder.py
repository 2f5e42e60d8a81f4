"""A local Hugging Face dataset folder read by the content of its files.

`datasets` keys its cache of a local folder on the files' paths and modification times, and a
card's ``data_files`` may name files anywhere. What a build or an evaluation reads from a
folder is therefore resolved here to files inside it, which the caller hashes, and loaded
through a cache named by that hash (`content_cache`): a file rewritten under its old mtime,
or a folder swapped for another, can never be served from the cache of other bytes.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

from ..errors import InputError
from ..files import file_sha256
from .writer import digests_content


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


def load_source(name: str, config: str | None, split: str, files: dict | None = None):
    """A split of a Hugging Face dataset: a local folder by the content of the files it is
    read from (``files``, its `source_files` when a build has hashed them already), a Hub id
    by name."""
    files = files or source_files(name, config, split)
    return _load_source(name, config, split, digests_content(files) if files else None)


@cache
def _load_source(name: str, config: str | None, split: str, content: str | None):
    """A split, once per process and content; a local folder's through a cache named by its
    content, since `datasets` would serve a file rewritten under its old mtime from the cache
    of its old rows. An `InputError` if it cannot be read."""
    import datasets

    which = f"{named(name, config)}, split {split}"
    cache_dir = content and str(content_cache(content))
    try:
        return datasets.load_dataset(name, config, split=split, cache_dir=cache_dir)
    except (OSError, ValueError) as err:
        raise InputError(f"cannot load {which}: {err}") from err


def named(name: str, config: str | None) -> str:
    """A Hugging Face dataset as errors name it: its name, and its configuration if any."""
    return name + (f" ({config})" if config else "")


def source_files(name: str, config: str | None, split: str) -> dict[str, str] | None:
    """The sha256 of each file a local folder's split is read from, by path in the folder;
    None for a Hub id. They enter the manifest and the signature, as a treebank's do."""
    folder = Path(name).expanduser()
    if not folder.is_dir():
        return None
    try:
        files = data_files(folder, config)
    except (OSError, ValueError) as err:
        raise InputError(f"cannot load {named(name, config)}: {err}") from err
    if split not in files:
        raise InputError(f"{name} has no split {split!r} (it has {', '.join(map(str, files))})")
    return {path: file_sha256(folder / path) for path in sorted(files[split])}
