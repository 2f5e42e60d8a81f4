"""Pinned downloads into the user cache: all of a set of files or none, each checked against
its published sha256 where one is pinned.

UD treebanks (``ud/sources.py``) and the CLAMS paper's grammars (``builders/clams.py``) come
this way. Files go to a temporary sibling folder first and move into the cache only when all
have arrived and match, so a failed or damaged download leaves nothing behind.

A file in the cache is checked again every time it is read (`cached`): against its pin, or,
where none is published (UD treebanks), against the sha256 recorded beside the folder when it
was downloaded. Anything in the cache may have been changed since; a build must not claim a
release or a pin for bytes it never checked.
"""

from __future__ import annotations

import hashlib
import http.client
import json
import os
import shutil
import tempfile
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Mapping
from pathlib import Path

from .errors import InputError, PerturbedUDError, SourceError
from .files import left_as_found, read_json_object, write_text

TIMEOUT = 30  # seconds any one connection or read may wait


def cache_dir() -> Path:
    """The user cache for downloads (PERTURBED_UD_CACHE overrides it)."""
    if "PERTURBED_UD_CACHE" in os.environ:
        return Path(os.environ["PERTURBED_UD_CACHE"])
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / "perturbed-ud"


def _sha256(path: Path) -> str:
    """sha256 of a file's bytes as stored."""
    with open(path, "rb") as f:
        return hashlib.file_digest(f, "sha256").hexdigest()


def record_path(folder: Path) -> Path:
    """Where the sha256 of each file downloaded into ``folder`` is recorded: beside it, so
    that the folder holds the downloaded files only."""
    return folder.with_name(f"{folder.name}.sha256.json")


def _recorded(folder: Path) -> dict[str, str]:
    """The recorded sha256 of each downloaded file; none if the record is missing or
    unreadable (its files are then fetched again)."""
    try:
        return read_json_object(record_path(folder))
    except PerturbedUDError:
        return {}


def cached(
    folder: Path,
    filenames: list[str],
    *,
    offline: bool,
    hint: str,
    sha256: Mapping[str, str] | None = None,
    git_blob: Mapping[str, str] | None = None,
) -> list[str]:
    """The names still to fetch into ``folder``; each cached file is checked against its pin
    (``sha256``, or ``git_blob``, its git blob id) or the sha256 recorded when it was
    downloaded. A file without either is
    fetched again (refused ``offline``); one whose bytes differ is refused: the cache was
    changed, and only clearing it makes it trustworthy again."""
    recorded = _recorded(folder)
    missing = []
    for name in filenames:
        path = folder / name
        expected = (sha256 or {}).get(name) or recorded.get(name)
        if not path.is_file() or expected is None:
            missing.append(name)
            continue
        if name in (git_blob or {}):
            found, expected = git_blob_sha1(path), git_blob[name]
        else:
            found = _sha256(path)
        if found != expected:
            raise InputError(
                f"{path} in the download cache is not the file downloaded (sha256 {found}, "
                f"expected {expected}); remove {folder} and {record_path(folder).name} beside "
                "it to download it again"
            )
    if missing and offline:
        path = folder / missing[0]
        why = "has no sha256 recorded at download" if path.is_file() else "is not in the cache"
        raise SourceError(f"{path} {why} and --offline was given\n{hint}")
    return missing


def _record(folder: Path, digests: dict[str, str]) -> None:
    """Add the sha256 of files just moved into ``folder`` to its record."""
    write_text(record_path(folder), json.dumps(_recorded(folder) | digests, indent=1) + "\n")


class NotOnServer(SourceError):
    """The server answered that a file is not there (HTTP 404): absent, not unreachable."""


# The largest file of each kind fetched: UD's largest treebank split files are about 100 MB
# (files over that are split in parts), UniMorph's largest table about 150 MB; a README,
# licence or grammar is text of a few hundred KB.
MAX_BYTES = {".conllu": 512 << 20, ".txt": 16 << 20, ".md": 16 << 20, "": 512 << 20}
# A download slower than this on average, after its first `GRACE` seconds, is given up.
MIN_RATE, GRACE = 16 << 10, 60
CHUNK = 1 << 16


def max_bytes(name: str) -> int:
    """The size cap of a file by its kind (its suffix; a UniMorph table has none)."""
    return MAX_BYTES.get(Path(name).suffix, MAX_BYTES[""])


class _SameHost(urllib.request.HTTPRedirectHandler):
    """Follows a redirect on the host asked, refuses one to another host: a pinned source
    does not move elsewhere, and a file from another host is not the one asked for."""

    def redirect_request(self, req, fp, code, msg, headers, newurl):
        asked, told = urllib.parse.urlsplit(req.full_url), urllib.parse.urlsplit(newurl)
        if (asked.scheme, asked.netloc) != (told.scheme, told.netloc):
            raise SourceError(f"{req.full_url} redirects to another host ({told.netloc})")
        return super().redirect_request(req, fp, code, msg, headers, newurl)


_OPENER = urllib.request.build_opener(_SameHost)


def _fetch(url: str, target: Path, hint: str) -> None:
    """``url`` streamed into ``target``: at most `max_bytes` of it, at `MIN_RATE` or faster,
    never an HTML page; every failure one line with the ``hint``."""
    try:
        _stream(url, target, max_bytes(url))
    except urllib.error.HTTPError as err:  # a redirect loop's message spans three lines
        error = NotOnServer if err.code == 404 else SourceError
        raise error(f"could not download {url}: {_one_line(err)}\n{hint}") from None
    except SourceError as err:
        raise SourceError(f"could not download {url}: {err}\n{hint}") from None
    except (http.client.HTTPException, ConnectionError) as err:
        raise SourceError(
            f"could not download {url}: the connection failed ({_one_line(err)})\n{hint}"
        ) from None
    except (urllib.error.URLError, OSError) as err:
        raise SourceError(f"could not download {url}: {_one_line(err)}\n{hint}") from None


def _one_line(err: Exception) -> str:
    return " ".join(str(err).split()) or type(err).__name__


def _stream(url: str, target: Path, limit: int) -> None:
    with _OPENER.open(url, timeout=TIMEOUT) as response:
        if "html" in response.headers.get("Content-Type", ""):
            raise SourceError("the server sent an HTML page, not the file")
        length = response.headers.get("Content-Length")
        expected = int(length) if length and length.isdigit() else None
        if expected is not None and expected > limit:
            raise SourceError(f"it is {expected:,} bytes, over the {limit:,} such a file may be")
        received, start = 0, time.monotonic()
        with open(target, "wb") as f:
            while chunk := response.read1(CHUNK):
                received += len(chunk)
                if received > limit:
                    raise SourceError(f"it is over the {limit:,} bytes such a file may be")
                f.write(chunk)
                elapsed = time.monotonic() - start
                if elapsed > GRACE and received / elapsed < MIN_RATE:
                    raise SourceError(f"it came too slowly ({received:,} bytes in {elapsed:.0f} s)")
        if expected is not None and received < expected:
            raise SourceError(f"the connection closed after {received:,} of {expected:,} bytes")


def git_blob_sha1(path: Path) -> str:
    """The id git gives a file's content (``git hash-object``): a pin where a repository's
    commit is known but no sha256 is published."""
    digest = hashlib.sha1(f"blob {path.stat().st_size}\0".encode(), usedforsecurity=False)
    with open(path, "rb") as f:
        while block := f.read(1 << 20):
            digest.update(block)
    return digest.hexdigest()


def fetch_all(
    url: str,
    filenames: list[str],
    folder: Path,
    *,
    hint: str,
    sha256: Mapping[str, str] | None = None,
    git_blob: Mapping[str, str] | None = None,
) -> None:
    """Download ``url/<name>`` for every name (a relative path) into ``folder``, or nothing.

    ``sha256`` (or ``git_blob``, its git blob id) pins a file's content: a file that differs
    is refused and nothing is kept.
    ``hint`` says what to do instead, in every error. The sha256 of every file kept is
    recorded, for `cached` to check the file against when it is read again.
    """
    with left_as_found(folder):  # a failed download leaves no folder it made
        folder.parent.mkdir(parents=True, exist_ok=True)
        partial = Path(tempfile.mkdtemp(prefix=f".{folder.name}.", dir=folder.parent))
        digests = {}
        try:
            for name in filenames:
                target = partial / name
                target.parent.mkdir(parents=True, exist_ok=True)
                _fetch(f"{url}/{name}", target, hint)
                got = digests[name] = _sha256(target)
                expected = (sha256 or {}).get(name)
                if name in (git_blob or {}):
                    got, expected = git_blob_sha1(target), git_blob[name]
                if expected is not None and got != expected:
                    raise SourceError(
                        f"{url}/{name} is not the pinned file (content {got[:12]}…, pinned "
                        f"{expected[:12]}…)\n{hint}"
                    )
            for name in filenames:
                (folder / name).parent.mkdir(parents=True, exist_ok=True)
                os.replace(partial / name, folder / name)
            _record(folder, digests)
        finally:
            shutil.rmtree(partial, ignore_errors=True)
