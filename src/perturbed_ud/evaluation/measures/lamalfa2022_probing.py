"""The ``lamalfa2022`` protocol of ``evaluate probe``: gold labels and metrics as La Malfa et
al.'s released probing code computes them, to set our numbers beside the paper's Tables 1-2.

Several of those definitions are broken. They are reproduced, not mended, and every summary
row names what is wrong with its metric (`DEFINITIONS`); the default protocol uses Hewitt &
Manning's definitions on whole, correct trees. Reproduced:

- sentences cut to the words among their first 20 lines, where a multiword token's line
  (``3-4 du``) and an empty node's count too; layers ``hidden_states[-5]`` and ``[-9]`` (the
  paper's "#5" and "#9");
- gold distances over the 20 × 20 grid of word ids 1..20, with the released off-by-one: a
  kept word's edge is kept only where its head is word 2..20, so every edge headed by word 1
  is lost, as is every edge headed beyond word 20 (a head among words 2..20 but past the
  cut stays in the grid, a node without a word); words left unreachable are at distance 0,
  like the diagonal and the padding;
- the root is the word with the smallest HEAD; the depth is the longest path from it in
  that grid;
- metrics on the 20 × 20 grid (20 slots for tags), padding included.

Not reproduced: the root's slot where a multiword token or empty node comes before the
root (the released reader gives its position in lines, where the slots hold words), and
the depth read from that slot; the inputs (the released code gives BERT whole words through
``convert_tokens_to_ids``, without special tokens, so many become [UNK]; here the tokenizer
cuts words as usual), the probes (a 3-layer network over the flattened sentence; here the
per-word probes), its tag set (the 20 % most frequent XPOS tags; here UPOS) and its 90/10
split of one treebank.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

import numpy as np
import pandas as pd
from scipy.sparse import coo_array
from scipy.sparse.csgraph import shortest_path

from .probe_labels import UPOS_TAGS
from .probe_metrics import MetricSet
from .probe_models import Gold

MAX_WORDS = 20  # the released maxlen: lines read per sentence, slots of the grid
GRID = MAX_WORDS * MAX_WORDS
LAYERS = (-5, -9)
PROBES = ("distance", "depth", "pos", "root")

METRICS = MetricSet(
    ratios={
        "sdr": ("sdr_equal", "cells"),
        "cell_uuas": ("cell_uuas_found", "cell_uuas_gold"),
        "root_acc": ("root_correct", "one"),
        "depth_acc": ("depth_correct", "one"),
        "pos_acc": ("pos_correct_padded", "slots"),
    }
)
DAMAGED = (
    "against the released gold trees (edges headed by word 1 or past word 20 lost, unreachable "
    "pairs at 0)"
)
DEFINITIONS = {
    "sdr": "cells of the 20 × 20 grid whose rounded predicted distance equals the gold, "
    f"padding cells included (0 in both), {DAMAGED}",
    "cell_uuas": "gold cells equal to 1 (both directions) predicted as 1: no spanning tree, "
    f"punctuation included, {DAMAGED}",
    "spearman_pooled": "one Spearman over every cell of every sentence, padding included; "
    f"perturbed: pooled over all copies, no worst copy; {DAMAGED}; no interval",
    "root_acc": "the root is the word with the smallest HEAD among the first 20",
    "depth_acc": "exact match of the tree's depth, the longest path from the root "
    "in the released gold tree",
    "pos_acc": "padding slots count as correct (20 per sentence); UPOS, where the released "
    "code keeps the 20 % most frequent XPOS tags",
}


def words_kept(words: int, multiword_tokens: Sequence[dict], empty_nodes: Sequence[dict]) -> int:
    """How many words of a sentence the released reader keeps: those among its first 20
    lines, a multiword token's line coming before its first word, an empty node ``N.k``
    after word N."""
    extra_lines = Counter(int(t["id"].split("-")[0]) - 1 for t in multiword_tokens)
    extra_lines.update(int(node["id"].split(".")[0]) for node in empty_nodes)
    line = 0
    for word in range(words):
        line += extra_lines[word] + 1
        if line > MAX_WORDS:
            return word
    return words


def released_grid(heads: Sequence[int]) -> np.ndarray:
    """The released ``data.py``'s 20 × 20 gold distances between word ids 1..20, from the
    heads of the kept words."""
    parents = np.asarray(heads[:MAX_WORDS], dtype=np.int64) - 1
    child = np.flatnonzero((parents > 0) & (parents < MAX_WORDS))
    graph = coo_array(
        (np.ones(len(child)), (child, parents[child])), shape=(MAX_WORDS, MAX_WORDS)
    ).tocsr()
    distances = shortest_path(graph, directed=False, unweighted=True)
    distances[np.isinf(distances)] = 0
    return distances.astype(np.int64)


def damaged_distances(heads: Sequence[int]) -> np.ndarray:
    """Path lengths between the kept words as the released ``data.py`` computes them."""
    n = min(len(heads), MAX_WORDS)
    return released_grid(heads)[:n, :n]


def gold(heads: Sequence[int], upos: Sequence[str], deprels: Sequence[str]) -> Gold:
    root = int(np.argmin(heads[:MAX_WORDS]))
    return Gold.from_distances(damaged_distances(heads), root, upos, deprels)


def _grid(matrix: np.ndarray) -> np.ndarray:
    out = np.zeros((MAX_WORDS, MAX_WORDS))
    out[: len(matrix), : len(matrix)] = matrix
    return out


def sentence_metrics(probe: str, output, gold: Gold, upos, gold_heads, deprels) -> dict:
    """One sentence's metric columns, as the released ``p1/t1/r1/d1_metrics.py``; the
    distance probe also keeps its grid cells for the pooled Spearman."""
    if probe == "distance":
        predicted, truth = _grid(output), released_grid(gold_heads)
        rounded, ones = np.rint(predicted), truth == 1
        return {
            "sdr_equal": int((rounded == truth).sum()),
            "cells": GRID,
            "cell_uuas_found": int((ones & (rounded == 1)).sum()),
            "cell_uuas_gold": int(ones.sum()),
            "cells_predicted": predicted.ravel().tolist(),
            "cells_gold": truth.ravel().tolist(),
        }
    if probe == "depth":
        depth = released_grid(gold_heads)[gold.root].max()
        return {"depth_correct": int(np.rint(output.max()) == depth)}
    if probe == "pos":
        tags = [UPOS_TAGS[k] for k in output.argmax(axis=1)]
        right = sum(a == b for a, b in zip(tags, upos, strict=True))
        return {"pos_correct_padded": right + MAX_WORDS - len(tags), "slots": MAX_WORDS}
    return {"root_correct": int(int(output.argmax()) == gold.root)}


def pooled_spearman_rows(scored: pd.DataFrame) -> list[dict]:
    """Per config and layer, the released pooled Spearman: one correlation over all cells of
    the original sentences, one over all cells of all copies; the mean over probe seeds."""
    if "cells_predicted" not in scored:
        return []
    rows = []
    scored = scored[scored["cells_predicted"].notna()]
    for (config, layer), group in scored.groupby(["config", "layer"], sort=True):
        if (group["split"] == "orig").all():  # no copy to compare with
            continue
        values = {"original": [], "perturbed": []}
        for _, part in group.groupby("probe_seed"):
            is_original = part["split"] == "orig"
            for side, cells in (("original", part[is_original]), ("perturbed", part[~is_original])):
                predicted = np.concatenate(cells["cells_predicted"].map(np.asarray).tolist())
                truth = np.concatenate(cells["cells_gold"].map(np.asarray).tolist())
                values[side].append(float(spearman(predicted, truth)))
        values["drop"] = [
            a - b for a, b in zip(values["original"], values["perturbed"], strict=True)
        ]
        row = {"config": config, "lang": group["lang"].iloc[0], "layer": int(layer),
               "metric": "spearman_pooled"}  # fmt: skip
        for side, found in values.items():
            found = np.asarray(found)
            row |= {side: float(found.mean()), f"{side}_lo": np.nan, f"{side}_hi": np.nan,
                    f"{side}_seed_sd": float(found.std(ddof=1)) if len(found) > 1
                    else float("nan")}  # fmt: skip
        rows.append(row | {"probe_seeds": len(values["drop"])})
    return rows


def spearman(predicted, truth) -> float:
    """Spearman's rho; scipy.stats is imported here, so `probe --help` starts without it."""
    from scipy.stats import spearmanr

    return spearmanr(predicted, truth).statistic
