"""A built split back as a CoNLL-U treebank: any dataset whose rows hold every CoNLL-U column
(`ud.columns.FEATURES`), read straight from its Parquet files in row order."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pyarrow.parquet as pq

from ..errors import InputError
from ..ud.columns import FEATURES, write_rows_conllu
from .writer import split_files


def split_rows(folder: str | Path, config: str, split: str) -> Iterator[dict]:
    """The rows of one split, in order; checked before anything is read."""
    folder = Path(folder)
    files = split_files(folder, config, split)
    if not files:
        configs = sorted(p.name for p in folder.iterdir() if p.is_dir() and p.name[0] != ".")
        raise InputError(
            f"{folder} has no split {split!r} in config {config!r} (configs: {', '.join(configs)})"
        )
    parquets = [pq.ParquetFile(path) for path in files]
    for path, parquet in zip(files, parquets, strict=True):
        missing = [name for name in FEATURES if name not in parquet.schema_arrow.names]
        if missing:
            raise InputError(f"{path} lacks the CoNLL-U columns {', '.join(missing)}")
    return (
        row
        for parquet in parquets
        for batch in parquet.iter_batches(columns=list(FEATURES))
        for row in batch.to_pylist()
    )


def export_conllu(folder: str | Path, config: str, split: str, out: str | Path) -> int:
    """Write one split of a dataset folder as CoNLL-U; returns the number of sentences."""
    return write_rows_conllu(split_rows(folder, config, split), out)
