"""The sent_ids read so far, for the duplicate check, in 16 bytes each.

A treebank of a million sentences would hold a million strings in a set; here each sent_id
is a 64-bit hash and where it was seen, in sorted NumPy arrays (the latest few thousand in a
dict, merged in now and then), so a build's memory stays nearly flat in its input's size.
Two different sent_ids share a hash with probability about n²/2⁶⁵ (3·10⁻⁸ for a million):
the error would name both lines, so a user sees it, nothing passes silently.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

import numpy as np

from ..errors import CoNLLUError

RECENT = 1 << 14  # entries kept in a dict before they are merged into the sorted arrays
LINE_BITS = 40  # a place is (file number << LINE_BITS) | line


class SentIds:
    """Every sent_id seen across the files of one treebank, each with its file and line."""

    def __init__(self) -> None:
        self.paths: list[Path] = []
        self.recent: dict[int, int] = {}
        self.hashes = np.empty(0, dtype=np.uint64)
        self.places = np.empty(0, dtype=np.uint64)

    def add(self, sent_id: str, path: Path, line: int) -> None:
        """Record ``sent_id`` at ``path:line``; a `CoNLLUError` if it was seen before."""
        key = int.from_bytes(hashlib.blake2b(sent_id.encode(), digest_size=8).digest(), "little")
        first = self.recent.get(key)
        if first is None and len(self.hashes):
            i = int(np.searchsorted(self.hashes, np.uint64(key)))
            if i < len(self.hashes) and int(self.hashes[i]) == key:
                first = int(self.places[i])
        if first is not None:
            file, first_line = self.paths[first >> LINE_BITS], first & ((1 << LINE_BITS) - 1)
            where = f"line {first_line}" if file == path else f"{file}:{first_line}"
            raise CoNLLUError(path, line, f"duplicate sent_id {sent_id!r} (first at {where})")
        if not self.paths or self.paths[-1] != path:
            self.paths.append(path)
        self.recent[key] = ((len(self.paths) - 1) << LINE_BITS) | line
        if len(self.recent) == RECENT:
            self._merge()

    def _merge(self) -> None:
        hashes = np.concatenate([self.hashes, np.fromiter(self.recent, np.uint64)])
        places = np.concatenate([self.places, np.fromiter(self.recent.values(), np.uint64)])
        order = np.argsort(hashes, kind="stable")
        self.hashes, self.places = hashes[order], places[order]
        self.recent.clear()
