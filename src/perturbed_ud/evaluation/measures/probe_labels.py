"""Gold labels of the probes, read off a UD tree: path lengths between words, depths, the
root and base relations.

Heads are the CoNLL-U HEAD column of the words (1-based, 0 for the root); multiword tokens
are not words and empty nodes are not in it, so every word has one head and the words form
one tree. A sentence whose heads do not make a tree is refused rather than given distance 0
between unconnected words (as the released probing code does after dropping word 1's edges).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from scipy.sparse import coo_array
from scipy.sparse.csgraph import shortest_path


def _edges(heads: Sequence[int]) -> tuple[np.ndarray, np.ndarray]:
    n = len(heads)
    heads_array = np.asarray(heads, dtype=np.int64)
    roots = np.flatnonzero(heads_array == 0)
    if n == 0 or len(roots) != 1 or heads_array.min() < 0 or heads_array.max() > n:
        raise ValueError(f"not a tree: heads {list(heads)}")
    child = np.flatnonzero(heads_array != 0)
    return child, heads_array[child] - 1


def tree_distances(heads: Sequence[int]) -> np.ndarray:
    """Path lengths between every two words (n × n, int): the structural probe's gold."""
    n = len(heads)
    child, parent = _edges(heads)
    graph = coo_array((np.ones(len(child)), (child, parent)), shape=(n, n)).tocsr()
    distances = shortest_path(graph, directed=False, unweighted=True)
    if np.isinf(distances).any():
        raise ValueError(f"not a tree (words without a path to the root): heads {list(heads)}")
    return distances.astype(np.int64)


def root_word(heads: Sequence[int]) -> int:
    """The 0-based index of the word whose head is 0."""
    _edges(heads)
    return list(heads).index(0)


def base_relation(deprel: str) -> str:
    """``nsubj:pass`` -> ``nsubj``: DepProbe labels the base relations."""
    return deprel.split(":", 1)[0]


# The 37 UD v2 relations, DepProbe's label set.
BASE_RELATIONS = (
    "acl", "advcl", "advmod", "amod", "appos", "aux", "case", "cc", "ccomp", "clf", "compound",
    "conj", "cop", "csubj", "dep", "det", "discourse", "dislocated", "expl", "fixed", "flat",
    "goeswith", "iobj", "list", "mark", "nmod", "nsubj", "nummod", "obj", "obl", "orphan",
    "parataxis", "punct", "reparandum", "root", "vocative", "xcomp",
)  # fmt: skip
UPOS_TAGS = (
    "ADJ", "ADP", "ADV", "AUX", "CCONJ", "DET", "INTJ", "NOUN", "NUM", "PART", "PRON", "PROPN",
    "PUNCT", "SCONJ", "SYM", "VERB", "X",
)  # fmt: skip
