"""The data an evaluation reads: a local folder by the content of its Parquet files, a Hub id at
its revision.

`datasets` caches a local folder under its base name, config and card sizes, not its files, so
a folder rebuilt or edited in place, or another folder of the same name, would be read through
the cache of earlier data. A local folder is therefore hashed the way its build hashed it
(`content_hash`), refused if its card records other content, and loaded into a cache of its
own named by that hash: the Arrow files there come from these bytes alone, and are read
memory-mapped, so memory stays flat however large the data.
"""

from __future__ import annotations

from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from ...data.writer import content_hash
from ...errors import InputError
from .task import tasks_reading_columns


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
    for path in sorted(folder.rglob("*.parquet")):  # named here, not in a generation error
        try:
            rows = pq.read_metadata(path).num_rows
        except (OSError, pa.ArrowException) as err:
            raise InputError(f"{path}: not a readable Parquet file: {err}") from None
        if not rows:  # `datasets` cannot load a file without rows
            raise InputError(f"{path}: holds no rows; leave an empty split out of the dataset")
    content = content_hash(folder)
    recorded = _recorded_content(folder / "README.md")
    if recorded not in (None, content):
        raise InputError(
            f"{folder}: the Parquet files are not those its README.md records (content "
            f"{content}, recorded {recorded}); rebuild the dataset instead of editing it"
        )
    return content


def load_config(dataset: str, config: str, revision: str | None, content: str | None):
    """One config as memory-mapped splits; a local folder (``content`` its hash, from
    `dataset_content`) through a cache that only data of that content can fill."""
    from datasets import config as hf_config
    from datasets import load_dataset
    from datasets.exceptions import DatasetsError

    cache = content and str(Path(hf_config.HF_DATASETS_CACHE) / "perturbed-ud-content" / content)
    try:
        return load_dataset(dataset, config, revision=revision, cache_dir=cache)
    except (OSError, ValueError, DatasetsError) as err:  # missing, unreachable, no such config
        cause = f" ({err.__cause__})" if err.__cause__ else ""
        raise InputError(f"cannot load config {config!r} of {dataset}: {err}{cause}") from err


def config_names(dataset: str, revision: str | None) -> list[str]:
    from datasets import get_dataset_config_names

    try:
        return get_dataset_config_names(dataset, revision=revision)
    except (OSError, ValueError) as err:
        raise InputError(f"cannot load dataset {dataset}: {err}") from err


def require_columns(names: list[str], needed, command: str, where: str) -> None:
    """Refuse data that lacks a column ``command`` reads, naming the commands it suits."""
    missing = [name for name in needed if name not in names]
    if missing:
        suits = [f"`evaluate {t}`" for t in tasks_reading_columns(names)]
        suits = [s for s in suits if s != f"`{command}`"]
        hint = f"; it is data for {' or '.join(suits)}" if suits else ""
        raise InputError(f"{where} lacks the columns {missing} that `{command}` reads{hint}")
