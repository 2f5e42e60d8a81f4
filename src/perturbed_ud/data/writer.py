"""A dataset folder written the way the Hub lays it out, atomically and in a stream.

Files go to ``<config>/<split>-00000-of-00001.parquet`` inside a temporary sibling folder;
row groups are appended as they are produced (memory stays flat in the number of
sentences), and only a finished build is renamed into place. Output is byte-deterministic:
the same rows in the same row groups give the same bytes.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import tempfile
from contextlib import contextmanager
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
from datasets import Features


def split_path(config: str, split: str) -> str:
    return f"{config}/{split}-00000-of-00001.parquet"


class ParquetSplitWriter:
    """Appends row groups to one Parquet file per (config, split), opened on first use."""

    def __init__(self, root: Path, features: Features):
        self.root = root
        self.schema = features.arrow_schema  # carries the HF features as schema metadata
        self._writers: dict[tuple[str, str], pq.ParquetWriter] = {}
        self._copies: dict[tuple[str, str], list[str]] = {}
        self.rows: dict[tuple[str, str], int] = {}

    def share(self, configs: list[str], split: str, table: pa.Table) -> None:
        """Write a split that several configs hold identically: once, copied on close."""
        self.write(configs[0], split, table)
        if table.num_rows:
            self._copies[(configs[0], split)] = configs[1:]

    def write(self, config: str, split: str, table: pa.Table) -> None:
        if table.num_rows == 0:
            return
        key = (config, split)
        if key not in self._writers:
            path = self.root / split_path(config, split)
            path.parent.mkdir(parents=True, exist_ok=True)
            self._writers[key] = pq.ParquetWriter(path, self.schema, compression="zstd")
            self.rows[key] = 0
        self._writers[key].write_table(table)
        self.rows[key] += table.num_rows

    def close(self) -> None:
        for writer in self._writers.values():
            writer.close()
        self._writers.clear()
        for (config, split), others in self._copies.items():
            for other in others:
                target = self.root / split_path(other, split)
                target.parent.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(self.root / split_path(config, split), target)
        self._copies.clear()


def table(columns: dict[str, list], features: Features) -> pa.Table:
    return pa.Table.from_pydict(columns, schema=features.arrow_schema)


def content_hash(root: Path) -> str:
    """sha256 over every Parquet file's relative path and bytes, in sorted order."""
    digest = hashlib.sha256()
    for path in sorted(root.rglob("*.parquet")):
        digest.update(path.relative_to(root).as_posix().encode())
        digest.update(hashlib.sha256(path.read_bytes()).digest())
    return digest.hexdigest()


@contextmanager
def atomic_folder(final: Path, *, overwrite: bool = False):
    """Yield a temporary folder beside ``final``; rename it into place only on success."""
    final = Path(final)
    if final.exists() and not overwrite:
        raise FileExistsError(f"{final} exists; pass --overwrite to replace it")
    final.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{final.name}.partial-", dir=final.parent))
    try:
        yield tmp
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    if final.exists():
        old = final.with_name(f".{final.name}.old-{os.getpid()}")
        os.replace(final, old)
        os.replace(tmp, final)
        shutil.rmtree(old)
    else:
        os.replace(tmp, final)
