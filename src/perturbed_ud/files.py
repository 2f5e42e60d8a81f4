"""Reading and hashing input files that may be compressed."""

from __future__ import annotations

import gzip
import hashlib
import lzma
from pathlib import Path
from typing import BinaryIO

# A file as stored: plain, or compressed with one of these (suffix -> opener).
COMPRESSED = {".gz": gzip.open, ".xz": lzma.open}


def open_decompressed(path: str | Path) -> BinaryIO:
    """The bytes of a file, decompressed when it ends in ``.gz`` or ``.xz``."""
    path = Path(path)
    return COMPRESSED.get(path.suffix, open)(path, "rb")


def file_sha256(path: str | Path) -> str:
    """sha256 of a file's decompressed bytes: the same for a file and its compressed copy."""
    with open_decompressed(path) as f:
        return hashlib.file_digest(f, "sha256").hexdigest()
