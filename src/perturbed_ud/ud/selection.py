"""Which sentences of a treebank a build reads: all, the first N, or a seeded sample."""

from __future__ import annotations

import heapq
import itertools
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from ..errors import InputError
from ..rng import stable_key
from .conllu_io import Sentence, read_conllu
from .sent_ids import SentIds
from .sources import Treebank


@dataclass(frozen=True)
class Selection:
    limit: int | None = None  # the first N sentences (before any filtering), file order
    sample: int | None = None  # N sentences drawn by a keyed hash, kept in file order
    sample_seed: int = 0

    def __post_init__(self):
        if self.limit is not None and self.sample is not None:
            raise InputError("choose either a limit or a sample, not both")
        for value in (self.limit, self.sample):
            if value is not None and value <= 0:
                raise InputError("limit and sample sizes must be positive")

    def describe(self) -> dict:
        if self.limit is not None:
            return {"mode": "first", "n": self.limit}
        if self.sample is not None:
            return {"mode": "sample", "n": self.sample, "sample_seed": self.sample_seed}
        return {"mode": "all"}


def all_sentences(treebank: Treebank) -> Iterator[Sentence]:
    """Every sentence of every file of the treebank; a sent_id repeated anywhere is an error."""
    sent_ids = SentIds()
    for path in treebank.files:
        yield from read_conllu(path, sent_ids)


def select(treebank: Treebank, selection: Selection) -> Iterator[Sentence]:
    """The selected sentences in file order, streamed."""
    sentences = all_sentences(treebank)
    if selection.limit is not None:
        yield from itertools.islice(sentences, selection.limit)
    elif selection.sample is not None:
        ids = (s.sent_id for s in sentences)
        keep = sampled(ids, selection.sample, selection.sample_seed, treebank.code)
        yield from (s for s in all_sentences(treebank) if s.sent_id in keep)
    else:
        yield from sentences


def sampled(ids: Iterable[str], n: int, sample_seed: int, source: str) -> set[str]:
    """The ``n`` ids of ``source`` with the smallest keyed hashes: a sample in which an item's
    place does not depend on the order or number of the others."""
    ranked = ((stable_key(sample_seed, source, i, "sample"), i) for i in ids)
    return {i for _, i in heapq.nsmallest(n, ranked)}
