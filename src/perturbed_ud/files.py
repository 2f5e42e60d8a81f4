"""Reading and hashing input files that may be compressed; creating outputs."""

from __future__ import annotations

import fcntl
import gzip
import hashlib
import io
import json
import lzma
import os
import re
import socket
import stat
import zlib
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import BinaryIO, TextIO

from .errors import InputError, OutputError, PerturbedUDError

# A file as stored: plain, or compressed with one of these (suffix -> opener).
COMPRESSED = {".gz": gzip.open, ".xz": lzma.open}
# What reading a damaged or unreadable file raises, plain or compressed.
READ_ERRORS = (OSError, EOFError, lzma.LZMAError, zlib.error)


# Names that become file or folder names (languages, treebank codes, configs, splits): no path
# separators, nothing hidden, no "..".
SAFE_NAME = re.compile(r"^[A-Za-z0-9_-][A-Za-z0-9_.-]*$")


def check_name(name: object, what: str) -> str:
    """``name`` if it is safe as one path component, else an `InputError` naming ``what``."""
    if not isinstance(name, str) or not SAFE_NAME.match(name):
        raise InputError(f"{what} {name!r} cannot name a file: use letters, digits, _ . -")
    return name


def read_json_object(path: str | Path, error: type[PerturbedUDError] = InputError) -> dict:
    """The JSON object a file holds (a manifest, a run's record, results): a file that
    cannot be read, is not UTF-8 JSON, nests too deeply for the parser or holds anything but
    an object is one ``error`` naming it, never a traceback."""
    path = Path(path)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except OSError as err:
        raise error(f"cannot read {path}: {err.strerror or err}") from None
    except RecursionError:
        raise error(f"{path}: not a JSON file we can read (nested too deeply)") from None
    except ValueError as err:  # JSONDecodeError (with its line) or UnicodeDecodeError
        where = f"{path}:{err.lineno}" if hasattr(err, "lineno") else f"{path}"
        raise error(f"{where}: not a JSON file ({err})") from None
    if not isinstance(data, dict):
        raise error(f"{path}: expected a JSON object, found {type(data).__name__}")
    return data


# How far a compressed file may expand: this many times its own size, or this floor, whichever
# is larger. CoNLL-U shrinks about 5-fold with gzip and 15-fold with xz, so only a file made
# to expand (a decompression bomb) reaches the cap, and is refused before it costs minutes
# of reading; the floor keeps small, very repetitive files (tests, benchmarks) readable.
EXPANSION_RATIO = 100
EXPANSION_FLOOR = 1 << 30  # 1 GiB


class _Capped(io.RawIOBase):
    """A decompressed stream that stops with an `InputError` past ``limit`` bytes."""

    def __init__(self, stream: BinaryIO, path: Path, limit: int):
        self.stream, self.path, self.limit, self.given = stream, path, limit, 0

    def readable(self) -> bool:
        return True

    def readinto(self, buffer) -> int:
        n = self.stream.readinto(buffer)
        self.given += n
        if self.given > self.limit:
            raise InputError(
                f"{self.path} expands to more than {self.limit:,} bytes (text expands 5 to 15 "
                "times): refused as a decompression bomb; decompress it yourself if it is "
                "genuine"
            )
        return n

    def close(self) -> None:
        self.stream.close()
        super().close()


def open_decompressed(path: str | Path, limit: int | None = None) -> BinaryIO:
    """The bytes of a file, decompressed when it ends in ``.gz`` or ``.xz``, up to ``limit``
    decompressed bytes (default: `EXPANSION_RATIO` times the file's size, at least
    `EXPANSION_FLOOR`); reading past it is an `InputError`."""
    path = Path(path)
    opener = COMPRESSED.get(path.suffix)
    if opener is None:
        return open(path, "rb")
    if limit is None:
        limit = max(EXPANSION_FLOOR, EXPANSION_RATIO * path.stat().st_size)
    return io.BufferedReader(_Capped(opener(path, "rb"), path, limit))


def file_sha256(path: str | Path) -> str:
    """sha256 of a file's decompressed bytes: the same for a file and its compressed copy."""
    try:
        with open_decompressed(path) as f:
            return hashlib.file_digest(f, "sha256").hexdigest()
    except READ_ERRORS as err:
        raise InputError(f"cannot read {path}: {err}") from err


# What a non-regular file is, for the message refusing to write over one.
FILE_KINDS = {
    stat.S_IFLNK: "a symlink",
    stat.S_IFDIR: "a folder",
    stat.S_IFCHR: "a character device",
    stat.S_IFBLK: "a block device",
    stat.S_IFIFO: "a FIFO",
    stat.S_IFSOCK: "a socket",
}
# A temporary file of `atomic_path`: ``.NAME.HOST-PID.partial``, so that the next writer can
# tell a dead process's leftover from one still being written (on this host or another);
# ``.NAME.PID.partial``, without the host, is one of this host's.
PARTIAL = re.compile(r"^\..+\.(?:(?P<host>[^.]*)-)?(?P<pid>[0-9]+)\.partial$")


def guard_output(
    out: str | Path, inputs: Iterable[str | Path | None] = (), *, replaced_whole: bool = False
) -> Path:
    """``out``, refused with an `OutputError` naming both when it is, or lies inside, a file or
    folder the command reads: writing there would change the input (a run's chunks change a
    dataset's content hash; an export overwrites its README). With ``replaced_whole`` (a
    folder that ``--overwrite`` replaces), an input inside ``out`` is refused too. Inputs that
    are not on this machine (Hub ids) cannot be touched and are skipped; symlinks are
    followed, so a link to an input counts as the input."""
    out = Path(out)
    where = _real(out)
    for given in inputs:
        if given is None or not os.path.lexists(given):
            continue
        read = _real(given)
        if where == read:
            raise OutputError(f"--out {out} is the input {given}: choose another --out")
        if where.is_relative_to(read):
            raise OutputError(
                f"--out {out} is inside the input {given}: writing there would change what "
                "is read; choose an --out outside it"
            )
        if replaced_whole and read.is_relative_to(where):
            raise OutputError(
                f"the input {given} is inside --out {out}, which is replaced whole: choose "
                "another --out"
            )
    return out


def _real(path: str | Path) -> Path:
    return Path(os.path.realpath(Path(path).expanduser()))


def check_regular(path: Path) -> None:
    """Refuse to write over anything but a regular file: renaming onto a device, FIFO,
    socket or symlink would replace it (as root, ``--out /dev/full`` replaced the device)."""
    try:
        mode = os.lstat(path).st_mode
    except FileNotFoundError:
        return
    if not stat.S_ISREG(mode):
        raise OutputError(
            f"{path} is {FILE_KINDS.get(stat.S_IFMT(mode), 'not a regular file')}; only a "
            "regular file is replaced: choose another --out"
        )


def refuse_links(folder: Path) -> None:
    """Refuse a folder of the command's own that holds a symlink: a write through it
    (``chunks -> /elsewhere``, ``run.json -> /etc/x``) would land outside ``--out``."""
    for parent, folders, names in os.walk(folder):
        for name in folders + names:
            if (path := Path(parent, name)).is_symlink():
                raise OutputError(
                    f"{folder} holds the symlink {path}, which its writes would follow out of "
                    "it: remove the link or choose another --out"
                )


def remove_dead_partials(folder: Path) -> None:
    """Remove the temporary files that killed writers on this host left in ``folder``; those
    of live processes, or of another host, may still be written and are kept."""
    host = _host()
    for path in folder.glob(".*.partial"):
        match = PARTIAL.match(path.name)
        if match and match["host"] in (host, None) and not _alive(int(match["pid"])):
            path.unlink(missing_ok=True)


def _host() -> str:
    return socket.gethostname().replace(".", "_")


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except (ProcessLookupError, OverflowError):  # no such process; no such id
        return False
    except PermissionError:  # another user's process
        return True
    return True


@contextmanager
def atomic_path(path: str | Path) -> Iterator[Path]:
    """A temporary path beside ``path`` for the block to write; flushed to disk and renamed
    onto ``path`` only when the block succeeds, so a kill or a full disk never leaves a
    partial file under the final name. Only a regular file is replaced (`check_regular`);
    the temporary file is created new, never through a link, and killed writers' leftovers
    beside it are removed. An `OutputError` names why it cannot be written."""
    path = Path(path)
    tmp = path.with_name(f".{path.name}.{_host()}-{os.getpid()}.partial")
    check_regular(path)
    try:
        remove_dead_partials(path.parent)
        tmp.unlink(missing_ok=True)
        os.close(os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o666))
        yield tmp
        with open(tmp, "rb") as written:
            os.fsync(written.fileno())
        check_regular(path)
        os.replace(tmp, path)
    except OSError as err:
        raise OutputError(f"cannot write {path}: {err.strerror or err}") from err
    finally:
        tmp.unlink(missing_ok=True)


@contextmanager
def open_output(path: str | Path) -> Iterator[TextIO]:
    """``path`` written as UTF-8 text with ``\\n`` line ends, atomically (`atomic_path`)."""
    with atomic_path(path) as tmp, open(tmp, "w", encoding="utf-8", newline="\n") as out:
        yield out


def write_text(path: str | Path, text: str) -> None:
    with open_output(path) as out:
        out.write(text)


def output_folder(path: str | Path) -> Path:
    """``path``, created with its parents; an `OutputError` names why it cannot be written."""
    path = Path(path)
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError as err:
        raise OutputError(f"cannot create {path}: {err.strerror or err}") from err
    if not os.access(path, os.W_OK | os.X_OK):
        raise OutputError(f"cannot write into {path}: permission denied")
    return path


@contextmanager
def left_as_found(folder: str | Path) -> Iterator[Path]:
    """``folder`` for the block; a block that fails (a refusal, Ctrl-C) takes back the empty
    folders it created on the way to ``folder``, so a refused command leaves no trace. What
    holds a file stays: finished work is kept for the next run."""
    folder = Path(folder)
    created = [p for p in [folder, *folder.parents] if not os.path.lexists(p)]
    try:
        yield folder
    except BaseException:
        for path in created:
            try:
                path.rmdir()
            except FileNotFoundError:
                continue
            except OSError:  # holds something: so do its parents
                break
        raise


@contextmanager
def exclusive(lock: Path, what: str) -> Iterator[None]:
    """Hold the lock file ``lock`` for the block, so that two processes never write ``what``
    at once; the second gets an `OutputError`. The kernel releases the lock when its process
    ends, however it ends, so a kill never leaves a stale lock; the file itself is removed
    when the block ends (a killed holder's file is reused, and removed, by the next). A lock
    that is a symlink or any other non-regular file is refused, never opened."""
    while True:
        try:
            check_regular(lock)
            fd = os.open(lock, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW, 0o666)
        except OSError as err:
            raise OutputError(f"cannot write {lock.parent}: {err.strerror or err}") from err
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            raise OutputError(
                f"{what} is being written by another process; wait for it to finish"
            ) from None
        if _same_file(fd, lock):
            break
        os.close(fd)  # the holder removed it between our open and our lock: take a new one
    try:
        yield
    finally:
        lock.unlink(missing_ok=True)
        os.close(fd)


def _same_file(fd: int, path: Path) -> bool:
    try:
        return os.path.samestat(os.fstat(fd), os.stat(path))
    except FileNotFoundError:
        return False
