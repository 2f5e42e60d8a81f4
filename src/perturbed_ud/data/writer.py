"""A dataset folder written the way the Hub lays it out, atomically and in a stream.

Files go to ``<config>/<split>-00000-of-00001.parquet`` (more shards for very large splits)
inside a temporary sibling folder; row groups are appended as they are produced (memory
stays flat in the number of sentences), and only a finished build is renamed into place.
Output is byte-deterministic: the same rows in the same row groups give the same bytes.
"""

from __future__ import annotations

import ctypes
import errno
import glob
import hashlib
import os
import shutil
from contextlib import contextmanager
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
from datasets import Features

from ..errors import InputError, OutputError, OutputExistsError
from ..files import check_name, exclusive, file_sha256, output_folder
from ..manifest import check_manifest_text, read_manifest

# Row groups per Parquet file. The writer keeps each row group's metadata in memory (about
# 25 KB) until the file is closed, so a split larger than this continues in a new shard and
# memory stays flat however many sentences are built.
ROW_GROUPS_PER_SHARD = 16


def split_pattern(config: str, split: str) -> str:
    """The ``data_files`` pattern of a split: all its shards."""
    return f"{config}/{split}-*.parquet"


def split_files(root: Path, config: str, split: str) -> list[Path]:
    return sorted(root.glob(split_pattern(config, split)))


class _Shards:
    """The shard files of one (config, split), named ``-of-N`` once N is known."""

    def __init__(self, folder: Path, split: str, schema: pa.Schema):
        self.folder, self.split, self.schema = folder, split, schema
        self.paths: list[Path] = []
        self.writer: pq.ParquetWriter | None = None
        self.row_groups = 0

    def write(self, table: pa.Table) -> None:
        if self.writer is None or self.row_groups == ROW_GROUPS_PER_SHARD:
            self.close_shard()
            self.paths.append(self.folder / f".{self.split}-{len(self.paths):05d}.partial")
            self.writer = pq.ParquetWriter(
                self.paths[-1], self.schema, compression="zstd", write_statistics=False
            )
            self.row_groups = 0
        self.writer.write_table(table)
        self.row_groups += 1

    def close_shard(self) -> None:
        if self.writer is not None:
            self.writer.close()
            self.writer = None

    def finish(self) -> list[Path]:
        self.close_shard()
        n = len(self.paths)
        final = [self.folder / f"{self.split}-{i:05d}-of-{n:05d}.parquet" for i in range(n)]
        for partial, path in zip(self.paths, final, strict=True):
            partial.replace(path)
        return final


class ParquetSplitWriter:
    """Appends row groups to the Parquet shards of each (config, split), opened on first use."""

    def __init__(self, root: Path, features: Features):
        self.root = root
        self.schema = features.arrow_schema  # carries the HF features as schema metadata
        self._shards: dict[tuple[str, str], _Shards] = {}
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
        if key not in self._shards:
            check_name(config, "config")
            check_name(split, "split")
            folder = self.root / config
            folder.mkdir(parents=True, exist_ok=True)
            self._shards[key] = _Shards(folder, split, self.schema)
            self.rows[key] = 0
        self._shards[key].write(table)
        self.rows[key] += table.num_rows

    def close(self) -> None:
        files = {key: shards.finish() for key, shards in self._shards.items()}
        self._shards.clear()
        for (config, split), others in self._copies.items():
            for other in others:
                (self.root / other).mkdir(parents=True, exist_ok=True)
                for path in files[(config, split)]:
                    shutil.copyfile(path, self.root / other / path.name)
        self._copies.clear()


def table(columns: dict[str, list], features: Features) -> pa.Table:
    return pa.Table.from_pydict(columns, schema=features.arrow_schema)


def rows_table(rows: list[dict], features: Features) -> pa.Table:
    """Rows built by column name as a table; a row with a missing or unknown column is a bug
    (Arrow alone would fill the gap with nulls and drop the extra)."""
    names = set(features)
    for row in rows:
        if row.keys() != names:
            raise ValueError(
                f"row columns differ from the features: missing {sorted(names - row.keys())}, "
                f"unknown {sorted(row.keys() - names)}"
            )
    return pa.Table.from_pylist(rows, schema=features.arrow_schema)


def content_hash(root: Path) -> str:
    """sha256 over every Parquet file's relative path and bytes, in sorted order."""
    return digests_content(parquet_digests(root))


def check_recorded_content(
    folder: Path, content: str, recorded: str, record: str = "build.json", error=InputError
) -> None:
    """Refuse a dataset whose Parquet files (of content hash ``content``) are not those its
    ``record`` says it was built with: results, tags and tasks name the recorded content."""
    if content != recorded:
        raise error(
            f"{folder}: the Parquet files are not those {record} records (content "
            f"{content}, recorded {recorded}); rebuild the dataset instead of editing it"
        )


def parquet_digests(root: Path) -> dict[str, str]:
    """The sha256 of every Parquet file below ``root``, by relative path, in sorted order."""
    return {
        path.relative_to(root).as_posix(): file_sha256(path)
        for path in sorted(root.rglob("*.parquet"))
    }


def digests_content(digests: dict[str, str]) -> str:
    """The content hash of files given as `parquet_digests` gives them."""
    digest = hashlib.sha256()
    for name, sha256 in digests.items():
        digest.update(name.encode())
        digest.update(bytes.fromhex(sha256))
    return digest.hexdigest()


# What writing into a folder raises when the disk, the file system or permissions refuse:
# an `OutputError` for the user, not a traceback.
OUTPUT_ERRNOS = {
    errno.ENOSPC,
    errno.EDQUOT,
    errno.EFBIG,
    errno.EROFS,
    errno.EACCES,
    errno.EPERM,
    errno.ENOTDIR,
    errno.EIO,
}


def read_build_manifest(folder: Path, keys: tuple, error: type[Exception]) -> dict:
    """``build.json`` of a folder that `perturbed-ud build` wrote, holding ``keys`` (a tuple
    among them: any one of its keys, named by the first); anything else raises ``error``
    saying what is wrong."""
    if not folder.is_dir():
        raise error(f"{folder} is not a folder; build it first with `perturbed-ud build`")
    missing = [name for name in ("README.md", "build.json") if not (folder / name).is_file()]
    if missing:
        raise error(
            f"{folder} has no {' or '.join(missing)}: it is not a folder written by "
            "`perturbed-ud build`"
        )
    path = folder / "build.json"
    manifest = read_manifest(path, error)
    choices = [(key,) if isinstance(key, str) else key for key in keys]
    absent = [names[0] for names in choices if not any(name in manifest for name in names)]
    if absent:
        raise error(f"{path} is not a build manifest: it lacks {', '.join(absent)}")
    check_manifest_text(manifest, path, error)
    return manifest


@contextmanager
def atomic_folder(final: Path, *, overwrite: bool = False, marker: str = "build.json"):
    """Yield a temporary folder beside ``final``; it takes ``final``'s place only on success.

    A lock beside ``final`` keeps a second writer out, and whatever a killed writer left
    (its temporary folder, or an old copy set aside mid-swap) is cleaned up or restored.
    ``--overwrite`` replaces only a folder of the kind written here (one with ``marker``, a
    dataset's ``build.json`` by default), never a file, a symlink or a folder of something
    else.
    """
    final = Path(final)
    output_folder(final.parent)
    with exclusive(final.with_name(f".{final.name}.lock"), str(final)):
        _clean_leftovers(final)
        _check_target(final, overwrite, marker)
        tmp = final.with_name(f".{final.name}.partial-{os.getpid()}")
        try:
            tmp.mkdir()  # mode 0777 less the umask, as any folder the user makes
            yield tmp
            _move_into_place(tmp, final)
        except OSError as err:
            if err.errno not in OUTPUT_ERRNOS:
                raise
            raise OutputError(f"cannot write {final}: {os.strerror(err.errno)}") from err
        finally:
            shutil.rmtree(tmp, ignore_errors=True)


def _leftovers(final: Path, kind: str) -> list[Path]:
    return sorted(final.parent.glob(f".{glob.escape(final.name)}.{kind}-*"))


def _clean_leftovers(final: Path) -> None:
    """Remove killed writers' temporary folders; restore an old copy a kill hid mid-swap."""
    for partial in _leftovers(final, "partial"):
        shutil.rmtree(partial, ignore_errors=True)
    for old in _leftovers(final, "old"):
        if final.exists():
            shutil.rmtree(old, ignore_errors=True)
        else:
            os.replace(old, final)


def _check_target(final: Path, overwrite: bool, marker: str) -> None:
    if final.is_symlink() or (final.exists() and not final.is_dir()):
        kind = "a symlink" if final.is_symlink() else "a file"
        raise OutputError(f"{final} is {kind}, not a folder; move it or choose another --out")
    if not final.exists():
        return
    if not overwrite:
        raise OutputExistsError(f"{final} exists; pass --overwrite to replace it")
    if any(final.iterdir()) and not (final / marker).is_file():
        raise OutputError(
            f"{final} is not a folder this command writes (it has no {marker}); --overwrite "
            "replaces only such folders: move it or choose another --out"
        )


def _move_into_place(tmp: Path, final: Path) -> None:
    """Rename ``tmp`` to ``final``. An existing ``final`` is swapped in one atomic exchange
    where the system has one (Linux), so no kill can leave the name empty; elsewhere it is
    set aside first and `_clean_leftovers` restores it if a kill comes between the renames."""
    if not final.exists():
        os.replace(tmp, final)
    elif _exchange(tmp, final):
        shutil.rmtree(tmp)  # now the old copy
    else:
        old = final.with_name(f".{final.name}.old-{os.getpid()}")
        os.replace(final, old)
        os.replace(tmp, final)
        shutil.rmtree(old)


def _exchange(a: Path, b: Path) -> bool:
    """Swap two paths atomically with renameat2(RENAME_EXCHANGE); False where unsupported."""
    renameat2 = getattr(ctypes.CDLL(None, use_errno=True), "renameat2", None)
    if renameat2 is None:
        return False
    at_fdcwd, rename_exchange = -100, 2
    if renameat2(at_fdcwd, os.fsencode(a), at_fdcwd, os.fsencode(b), rename_exchange) == 0:
        return True
    code = ctypes.get_errno()
    if code in (errno.ENOSYS, errno.EINVAL, errno.ENOTSUP):
        return False
    raise OSError(code, os.strerror(code), str(b))
