"""Pinned downloads into the user cache: all of a set of files or none, each checked against
its published sha256 where one is pinned.

UD treebanks (``ud/sources.py``) and the CLAMS paper's grammars (``builders/clams.py``) come
this way. Files go to a temporary sibling folder first and move into the cache only when all
have arrived and match, so a failed or damaged download leaves nothing behind.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import tempfile
import urllib.error
import urllib.request
from collections.abc import Mapping
from pathlib import Path

from .errors import SourceError

TIMEOUT = 30  # seconds any one connection or read may wait


def cache_dir() -> Path:
    """The user cache for downloads (PERTURBED_UD_CACHE overrides it)."""
    if "PERTURBED_UD_CACHE" in os.environ:
        return Path(os.environ["PERTURBED_UD_CACHE"])
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / "perturbed-ud"


def _fetch(url: str, target: Path, hint: str) -> None:
    try:
        with urllib.request.urlopen(url, timeout=TIMEOUT) as response:
            target.write_bytes(response.read())
    except (urllib.error.URLError, OSError) as err:
        raise SourceError(f"could not download {url}: {err}\n{hint}") from None


def fetch_all(
    url: str,
    filenames: list[str],
    folder: Path,
    *,
    hint: str,
    sha256: Mapping[str, str] | None = None,
) -> None:
    """Download ``url/<name>`` for every name (a relative path) into ``folder``, or nothing.

    ``sha256`` pins a file's content: a file that differs is refused and nothing is kept.
    ``hint`` says what to do instead, in every error.
    """
    created = [p for p in (folder, *folder.parents) if not p.exists()]
    folder.parent.mkdir(parents=True, exist_ok=True)
    partial = Path(tempfile.mkdtemp(prefix=f".{folder.name}.", dir=folder.parent))
    try:
        for name in filenames:
            target = partial / name
            target.parent.mkdir(parents=True, exist_ok=True)
            _fetch(f"{url}/{name}", target, hint)
            expected = (sha256 or {}).get(name)
            if expected is not None:
                got = hashlib.sha256(target.read_bytes()).hexdigest()
                if got != expected:
                    raise SourceError(
                        f"{url}/{name} is not the pinned file (sha256 {got[:12]}…, pinned "
                        f"{expected[:12]}…)\n{hint}"
                    )
        for name in filenames:
            (folder / name).parent.mkdir(parents=True, exist_ok=True)
            os.replace(partial / name, folder / name)
    finally:
        shutil.rmtree(partial, ignore_errors=True)
        for path in created:  # the folders this call made, deepest first, if still empty
            if path.is_dir() and not any(path.iterdir()):
                path.rmdir()
