"""The data an evaluation reads: a local folder by the content of its Parquet files, a Hub id at
its revision.

`datasets` caches a local folder under its base name, config and card sizes, not its files, and
its card's ``data_files`` may name files anywhere, so a folder rebuilt, edited or swapped after
it was hashed, or a card pointing elsewhere, would be read under the hash of other data. A
local folder is therefore hashed the way its build hashed it (`content_hash`), refused if its
card records other content, and each split is read from exactly the hashed files: the card
only says which of them a split holds, a file outside the folder is refused, and every file's
bytes are checked against their hash as they are converted. The Arrow files this gives go to a
cache named by the content (`content_cache`), are read memory-mapped, so memory stays flat
however large the data, and serve every later run of the same content.
"""

from __future__ import annotations

import hashlib
from itertools import chain
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from ...data.layout import check_card_layout, layout_digests
from ...data.local_folder import content_cache, data_files
from ...data.writer import check_recorded_content, digests_content, parquet_digests
from ...errors import InputError
from ...files import atomic_path
from ...manifest import read_manifest

# content hash -> {relative path: sha256} of its Parquet files, as last hashed in this process
_DIGESTS: dict[str, dict[str, str]] = {}


def _recorded_content(card: Path) -> str | None:
    """The content hash a card's ``perturbed_ud`` block records, if any."""
    if not card.is_file():
        return None
    import yaml
    from huggingface_hub import DatasetCard

    try:
        data = DatasetCard.load(card).data.to_dict()
    except (OSError, ValueError, yaml.YAMLError) as err:
        message = " ".join(str(err).split())  # YAML errors span lines
        raise InputError(f"{card}: cannot read its YAML header: {message}") from None
    block = data.get("perturbed_ud")
    return block.get("content_sha256") if isinstance(block, dict) else None


def dataset_content(dataset: str) -> str | None:
    """The content hash of a local dataset folder's Parquet files, which must be the one its
    card records (if it records one); None for a Hub id, whose revision identifies it."""
    folder = Path(dataset)
    if not folder.is_dir():
        return None
    digests, manifest = _folder_digests(folder)
    for name in digests:  # the files read, named here, not in a generation error
        path = folder / name
        try:
            rows = pq.read_metadata(path).num_rows
        except (OSError, pa.ArrowException) as err:
            raise InputError(f"{path}: not a readable Parquet file: {err}") from None
        if not rows:  # `datasets` cannot load a file without rows
            raise InputError(f"{path}: holds no rows; leave an empty split out of the dataset")
    content = digests_content(digests)
    _DIGESTS[content] = digests
    if manifest:
        check_card_layout(folder, manifest)
        check_recorded_content(folder, content, manifest["content_sha256"])
    recorded = _recorded_content(folder / "README.md")
    if recorded is not None:
        check_recorded_content(folder, content, recorded, record="README.md")
    return content


def load_config(dataset: str, config: str, revision: str | None, content: str | None):
    """One config as memory-mapped splits; a local folder (``content`` its hash, from
    `dataset_content`) read from exactly the files of that hash (`local_splits`)."""
    from datasets import load_dataset
    from datasets.exceptions import DatasetsError

    try:
        if content is not None:
            return local_splits(Path(dataset), config, content)
        return load_dataset(dataset, config, revision=revision)
    except (OSError, ValueError, DatasetsError) as err:  # missing, unreachable, no such config
        cause = f" ({err.__cause__})" if err.__cause__ else ""
        raise InputError(f"cannot load config {config!r} of {dataset}: {err}{cause}") from err


def local_splits(folder: Path, config: str, content: str):
    """The splits of one config of a local folder whose Parquet files hash to ``content``."""
    from datasets import DatasetDict

    digests = _DIGESTS.get(content) or _digests_now(folder, content)
    return DatasetDict(
        {
            split: _arrow_split(folder, names, digests, content, split)
            for split, names in config_files(folder, config, digests).items()
        }
    )


def _folder_digests(folder: Path) -> tuple[dict[str, str], dict | None]:
    """The digests of the Parquet files a folder is read by, and its build.json if it has
    one: a build is read by its layout alone (`..data.layout`), any other folder by every
    Parquet file in it."""
    built = folder / "build.json"
    manifest = read_manifest(built) if built.is_file() else None
    return (layout_digests(folder, manifest) if manifest else parquet_digests(folder)), manifest


def _digests_now(folder: Path, content: str) -> dict[str, str]:
    """The folder's Parquet digests, which must still give ``content``."""
    digests, _ = _folder_digests(folder)
    if digests_content(digests) != content:
        raise InputError(f"{folder} changed since it was hashed; run again once it is written")
    return digests


def config_files(folder: Path, config: str, digests: dict) -> dict[str, list[str]]:
    """Each split's files (`data_files`), each of which must be one of the hashed Parquet
    files: any other file is refused, never read."""
    splits = data_files(folder, config)
    for split, names in splits.items():
        for name in names:
            if name not in digests:
                raise InputError(
                    f"config {config!r} of {folder}: split {split!r} names {name}, which is not "
                    "a Parquet file of the dataset; only its hashed files are read"
                )
    return splits


def _arrow_split(folder: Path, names: list[str], digests: dict, content: str, split: str):
    """One split as a memory-mapped Arrow file of the cache, named by the digests of its
    files (a split that several configs share is converted once)."""
    from datasets import Dataset

    key = hashlib.sha256(" ".join(digests[name] for name in names).encode()).hexdigest()
    path = content_cache(content) / f"{key[:32]}.arrow"
    if not path.is_file():
        path.parent.mkdir(parents=True, exist_ok=True)
        tables = (_checked_table(folder / name, digests[name]) for name in names)
        first = next(tables)
        with (
            atomic_path(path) as tmp,
            pa.OSFile(str(tmp), "wb") as sink,
            pa.ipc.new_stream(sink, first.schema) as writer,
        ):
            for table in chain([first], tables):  # one file's rows in memory at a time
                writer.write_table(table.cast(first.schema))
    return Dataset.from_file(str(path), split=split)


def _checked_table(path: Path, sha256: str) -> pa.Table:
    """A Parquet file's rows, parsed from the very bytes checked against its hash: a file
    replaced after the dataset was hashed is refused, not read under that hash."""
    try:
        data = path.read_bytes()
    except OSError as err:
        raise InputError(f"cannot read {path}: {err.strerror or err}") from None
    if hashlib.sha256(data).hexdigest() != sha256:
        raise InputError(
            f"{path} changed since the dataset was hashed; run again once the dataset is no "
            "longer being written"
        )
    return pq.read_table(pa.BufferReader(data))


def config_names(dataset: str, revision: str | None) -> list[str]:
    from datasets import get_dataset_config_names

    try:
        return get_dataset_config_names(dataset, revision=revision)
    except (OSError, ValueError) as err:
        raise InputError(f"cannot load dataset {dataset}: {err}") from err
