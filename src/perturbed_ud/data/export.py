"""A built split back as a CoNLL-U treebank: any dataset whose rows hold every CoNLL-U column
(`ud.columns.FEATURES`), read straight from its Parquet files in row order."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from pathlib import Path

import pyarrow.parquet as pq

from ..errors import InputError
from ..files import guard_output
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


def _placed_rows(rows: Iterable[dict], where: str) -> Iterator[dict]:
    """The rows, each checked to have a place for every multiword token and empty node.

    CoNLL-U puts a range right before its first word and ``N.k`` right after word N, so one past
    the last word (``9.1`` in 8 words, which readers before the strict one let into datasets)
    would be left out of the file, or a range written that no reader accepts. Either is an
    error naming the sentence instead.
    """
    for row in rows:
        n = len(row["forms"])
        lost = [t["id"] for t in row["multiword_tokens"] if int(t["id"].partition("-")[2]) > n]
        lost += [e["id"] for e in row["empty_nodes"] if int(e["id"].partition(".")[0]) > n]
        if lost:
            raise InputError(
                f"{where}: sentence {row['sent_id']!r} has {', '.join(lost)} past its last word "
                f"({n} words): it cannot be written as CoNLL-U"
            )
        yield row


def export_conllu(folder: str | Path, config: str, split: str, out: str | Path) -> int:
    """Write one split of a dataset folder as CoNLL-U; returns the number of sentences."""
    guard_output(out, [folder])
    rows = _placed_rows(split_rows(folder, config, split), f"{folder} {config}/{split}")
    return write_rows_conllu(rows, out)
