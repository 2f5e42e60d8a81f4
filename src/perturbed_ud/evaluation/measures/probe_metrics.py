"""Probe metrics, per sentence first, so that sentences can be resampled and worst copies
chosen; then aggregated as their authors define them.

Hewitt & Manning (2019): UUAS compares the minimum spanning tree of the predicted
distances with the gold tree, punctuation (UPOS PUNCT) left out of both; DSpr is the
Spearman correlation of each word's predicted and gold distance rows, averaged per sentence,
then per sentence length, then over lengths 5-50; NSpr does the same with depths; the depth
probe's root is the word of least depth that is not punctuation. DepProbe (Müller-Eberstein
et al. 2022): the root is the word most probably labelled root, edges are added greedily
from it (always the closest pair of a word in the tree and one outside), every other word
takes its most probable relation other than root; UAS, LAS and RelAcc over all words,
punctuation included.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy.sparse.csgraph import minimum_spanning_tree

from .probe_labels import BASE_RELATIONS, base_relation

SHORTEST, LONGEST = 5, 50  # the sentence lengths DSpr and NSpr average over


@dataclass(frozen=True)
class MetricSet:
    """How per-sentence columns become metrics. ``ratios``: metric -> (numerator column,
    denominator column), a ratio of sums over sentences (micro); ``length_averaged``: metrics
    whose column is averaged per sentence length, then over lengths SHORTEST..LONGEST."""

    ratios: dict[str, tuple[str, str]]
    length_averaged: tuple[str, ...] = ()

    @property
    def names(self) -> tuple[str, ...]:
        return (*self.ratios, *self.length_averaged)

    def column(self, metric: str) -> str:
        """The per-sentence column a metric needs (its numerator for a ratio)."""
        return self.ratios[metric][0] if metric in self.ratios else metric


HEWITT_MANNING = MetricSet(
    ratios={
        "uuas": ("uuas_correct", "uuas_edges"),
        "root_acc": ("root_correct", "one"),
        "depth_root_acc": ("depth_root_correct", "one"),
        "pos_acc": ("pos_correct", "words"),
        "uas": ("uas_correct", "words"),
        "las": ("las_correct", "words"),
        "rel_acc": ("rel_correct", "words"),
    },
    length_averaged=("dspr", "nspr"),
)


def _spanning_edges(distances: np.ndarray) -> set[frozenset]:
    """The edges of a minimum spanning tree (words as 0-based indices into ``distances``).
    Every weight is raised by one: all spanning trees have the same number of edges, so the
    tree is unchanged, and scipy reads a weight of zero as no edge."""
    if len(distances) < 2:
        return set()
    tree = minimum_spanning_tree(np.asarray(distances, dtype=np.float64) + 1.0).tocoo()
    return {frozenset((int(i), int(j))) for i, j in zip(tree.row, tree.col, strict=True)}


def uuas_counts(predicted: np.ndarray, gold: np.ndarray, upos: Sequence[str]) -> tuple[int, int]:
    """(gold edges found, gold edges) between the words that are not punctuation."""
    keep = [i for i, tag in enumerate(upos) if tag != "PUNCT"]
    found = _spanning_edges(predicted[np.ix_(keep, keep)])
    wanted = _spanning_edges(gold[np.ix_(keep, keep)])
    return len(found & wanted), len(wanted)


def _row_spearman(predicted: np.ndarray, gold: np.ndarray) -> np.ndarray:
    """Spearman's rho of each row pair (average ranks for ties); NaN for a constant row."""
    from scipy.stats import rankdata  # here: `probe --help` starts without scipy.stats

    a = rankdata(predicted, axis=-1)
    b = rankdata(gold, axis=-1)
    a -= a.mean(axis=-1, keepdims=True)
    b -= b.mean(axis=-1, keepdims=True)
    with np.errstate(invalid="ignore", divide="ignore"):
        return (a * b).sum(-1) / np.sqrt((a * a).sum(-1) * (b * b).sum(-1))


def distance_spearman(predicted: np.ndarray, gold: np.ndarray) -> float:
    """The mean over words of the Spearman correlation of their distance rows."""
    rows = _row_spearman(predicted, gold)
    return float(np.nanmean(rows)) if np.isfinite(rows).any() else float("nan")


def depth_spearman(predicted: np.ndarray, gold: np.ndarray) -> float:
    return float(_row_spearman(predicted, gold))


def depth_root(predicted: np.ndarray, upos: Sequence[str]) -> int:
    """The word of least predicted depth among those that are not punctuation."""
    candidates = [i for i, tag in enumerate(upos) if tag != "PUNCT"] or list(range(len(upos)))
    return min(candidates, key=lambda i: predicted[i])


def greedy_tree(distances: np.ndarray, root: int) -> list[int]:
    """DepProbe's decoding: from the root, always attach the free word closest to a word
    already in the tree. Heads as in CoNLL-U (1-based, 0 for the root)."""
    n = len(distances)
    heads = [0] * n
    in_tree = np.zeros(n, dtype=bool)
    in_tree[root] = True
    best = np.asarray(distances[root], dtype=np.float64).copy()
    nearest = np.full(n, root)
    for _ in range(n - 1):
        free = np.where(in_tree, np.inf, best)
        word = int(np.argmin(free))
        heads[word] = int(nearest[word]) + 1
        in_tree[word] = True
        closer = distances[word] < best
        best = np.where(closer, distances[word], best)
        nearest = np.where(closer, word, nearest)
    return heads


ROOT = BASE_RELATIONS.index("root")


def decode_dependencies(distances: np.ndarray, relation_scores: np.ndarray):
    """(heads, relations) from DepProbe's distances and relation log-probabilities
    (words × BASE_RELATIONS)."""
    root = int(np.argmax(relation_scores[:, ROOT]))
    heads = greedy_tree(distances, root)
    without_root = relation_scores.copy()
    without_root[:, ROOT] = -np.inf
    relations = [BASE_RELATIONS[k] for k in without_root.argmax(axis=1)]
    relations[root] = "root"
    return heads, relations


def attachment_counts(heads, relations, gold_heads, gold_deprels) -> dict[str, int]:
    gold_relations = [base_relation(d) for d in gold_deprels]
    heads_right = [a == b for a, b in zip(heads, gold_heads, strict=True)]
    labels_right = [a == b for a, b in zip(relations, gold_relations, strict=True)]
    return {
        "uas_correct": sum(heads_right),
        "las_correct": sum(h and r for h, r in zip(heads_right, labels_right, strict=True)),
        "rel_correct": sum(labels_right),
    }


def _length_weights(lengths: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """One-hot of each sentence's length among the lengths SHORTEST..LONGEST present."""
    kept = np.unique(lengths[(lengths >= SHORTEST) & (lengths <= LONGEST)])
    return kept, (lengths[:, None] == kept[None, :]).astype(np.float64)


def aggregate(
    sentences: pd.DataFrame,
    counts: np.ndarray | None = None,
    metrics: MetricSet = HEWITT_MANNING,
) -> dict[str, np.ndarray]:
    """Every metric present in the per-sentence table; ``counts`` (resamples × sentences),
    how often each sentence is drawn, gives one value per resample instead of one."""
    weights = np.ones((1, len(sentences))) if counts is None else np.asarray(counts, float)
    out = {}
    for metric, (numerator, denominator) in metrics.ratios.items():
        if numerator in sentences:
            top = weights @ sentences[numerator].to_numpy(np.float64)
            bottom = weights @ sentences[denominator].to_numpy(np.float64)
            with np.errstate(invalid="ignore", divide="ignore"):
                out[metric] = top / bottom
    _, one_hot = _length_weights(sentences["words"].to_numpy())
    for metric in metrics.length_averaged:
        if metric in sentences:
            values = sentences[metric].to_numpy(np.float64)
            defined = np.isfinite(values)[:, None] * one_hot
            per_length_n = weights @ defined
            per_length_sum = weights @ (np.nan_to_num(values)[:, None] * defined)
            with np.errstate(invalid="ignore", divide="ignore"):
                means = per_length_sum / per_length_n
                present = per_length_n > 0
                out[metric] = np.where(present, means, 0).sum(1) / present.sum(1)
    return {k: v if counts is not None else v[0] for k, v in out.items()}


def sentence_values(
    sentences: pd.DataFrame, metric: str, metrics: MetricSet = HEWITT_MANNING
) -> np.ndarray:
    """A metric on each sentence alone (a ratio per sentence), to find the worst copy."""
    if metric in metrics.ratios:
        numerator, denominator = metrics.ratios[metric]
        with np.errstate(invalid="ignore", divide="ignore"):
            return sentences[numerator].to_numpy(float) / sentences[denominator].to_numpy(float)
    return sentences[metric].to_numpy(float)
