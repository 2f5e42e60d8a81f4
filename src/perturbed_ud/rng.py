"""Keyed randomness: every random choice is a function of what it is about.

A choice keyed by (seed, treebank, sent_id, purpose[, index]) does not depend on
PYTHONHASHSEED, on the number of worker processes, or on which other sentences or languages
are in the build, so a sentence's perturbation never changes when the build around it does.
"""

from __future__ import annotations

import hashlib
import random


def _encode(parts: tuple) -> bytes:
    return "\x1f".join(map(str, parts)).encode("utf-8")


def stable_key(*parts: object) -> int:
    """A 64-bit integer from the parts' string forms (blake2b, not Python's salted hash)."""
    return int.from_bytes(hashlib.blake2b(_encode(parts), digest_size=8).digest(), "big")


class KeyedDraws:
    """Keyed draws that share a prefix, e.g. (seed, treebank, sent_id): the prefix is hashed
    once. ``KeyedDraws(*a).key(*b)`` equals ``stable_key(*a, *b)``."""

    def __init__(self, *prefix: object):
        self._hasher = hashlib.blake2b(_encode(prefix) + b"\x1f", digest_size=8)

    def key(self, *parts: object) -> int:
        hasher = self._hasher.copy()
        hasher.update(_encode(parts))
        return int.from_bytes(hasher.digest(), "big")

    def random(self, *parts: object) -> random.Random:
        return random.Random(self.key(*parts))

    def index(self, n: int, *parts: object) -> int:
        if n <= 0:
            raise ValueError("a keyed draw needs n > 0")
        return self.key(*parts) % n
