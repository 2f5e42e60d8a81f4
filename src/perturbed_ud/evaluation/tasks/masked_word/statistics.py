"""Confidence intervals, sensitivities and interactions, with the paper's definitions.

All effects are computed from top-1 accuracies ``A`` of one (model, language):

- sensitivity ``S_X = (A_Orig − A_X) / A_Orig`` for each scramble X of the dataset's
  conditions (``S_full``, ``S_part``, ``S_head`` by default), and
  ``S_L = (A_Orig − A_Orig+L) / A_Orig`` for lemma substitution alone;
- interaction ``I_X = A_X+L − (A_X + A_Orig+L − A_Orig)`` in accuracy space (> 0: the joint
  harm is smaller than the sum of the two harms; < 0: larger);
- ``part_minus_head = A_Part − A_Head``, the paper's Figure 4 (> 0: Head harms more), where
  the conditions have both Part and Head.

S and I are NaN where ``A_Orig ≤ 0`` (the released code skips those rows), and every effect
whose conditions are missing is NaN (there is no released Head+Lemma, hence no ``I_head``).

Unlike the released code, intervals use the true number of sentences, and each number gets
one interval, named in an ``interval`` column:

- accuracies of one seed: Wilson intervals (every row is its own sentence);
- accuracies pooled over seeds: a *cluster* bootstrap over sentences, since the rows of one
  sentence under several seeds are not independent items;
- effects: a *paired* bootstrap over sentences (one resample of sentences drives every
  condition, so the correlation between conditions of the same sentence is kept, and all
  seeds of a sentence go together);
- means over seeds: a t interval with ``runs − 1`` degrees of freedom.

Every bound is clipped to the range its number can take. At an accuracy of 0 or 1 (hence S = 1)
a bootstrap has no spread: every resample scores the same, and its interval would be one
point. There each accuracy gets its Wilson interval on the N sentences instead, and an effect
the range it takes over those intervals; the ``interval`` column names the numbers so
bounded. (Away from 0 and 1, no spread is real: conditions that agree sentence by sentence.)
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from ....data.conditions import DEFAULT_CONDITIONS, Conditions
from ....errors import InputError
from ...reporting.statistics import (
    BOOTSTRAP_RESAMPLES,
    BOOTSTRAP_SEED,
    WILSON,
    bootstrap_name,
    no_spread,
    percentile_interval,
    resampled_counts,
    wilson_interval,
)
from .summary import item_key, item_scores


def value_range(name: str) -> tuple[float, float]:
    """The values a reported number can take: accuracies [0, 1]; S = 1 − A_X / A_Orig at most
    1; I, a sum of four accuracies with signs, [−2, 2]; a difference of accuracies [−1, 1]."""
    if name.startswith("S_"):
        return -np.inf, 1.0
    if name.startswith("I_"):
        return -2.0, 2.0
    if name == "part_minus_head":
        return -1.0, 1.0
    return 0.0, 1.0


#: How an interval is named where the bootstrap has no spread (`no_spread`).
WILSON_FALLBACK = "Wilson 95 % on the N sentences, where the bootstrap has no spread"


T_OVER_SEEDS = "t 95 % over seeds (df = runs - 1)"


def pooled_seeds(items: pd.DataFrame) -> bool:
    """Whether one sentence gives several rows of a condition (several seeds pooled)."""
    return "sent_id" in items.columns and "seed" in items.columns and items["seed"].nunique() > 1


def accuracy_ci(
    summary: pd.DataFrame,
    items: pd.DataFrame | None = None,
    *,
    resamples: int = BOOTSTRAP_RESAMPLES,
    seed: int = BOOTSTRAP_SEED,
) -> pd.DataFrame:
    """95 % intervals of ``word_at_1`` and ``word_at_5`` for every summary row.

    Wilson intervals with the true N, unless ``items`` (the balanced, scored items behind
    ``summary``) pool several seeds: then a cluster bootstrap over sentences, which keeps the
    rows of one sentence together.
    """
    table = summary[["model_name", "lang", "condition"]].copy()
    metrics = ("word_at_1", "word_at_5")
    if items is not None and pooled_seeds(items):
        bounds = _cluster_accuracy_bounds(items, metrics, resamples, seed)
        bounds = bounds.reindex(pd.MultiIndex.from_frame(table))
        method = bootstrap_name(resamples, seed)
    else:
        bounds, method = None, WILSON
    for metric in metrics:
        if bounds is None:
            lo, hi = wilson_interval(summary[metric], summary["N"])
        else:
            lo, hi = bounds[f"{metric}_lo"].to_numpy(), bounds[f"{metric}_hi"].to_numpy()
        table[metric] = summary[metric]
        table[f"{metric}_lo"] = lo
        table[f"{metric}_hi"] = hi
    table["N"] = summary["N"]
    table["sentences"] = summary["N"] if bounds is None else bounds["sentences"].to_numpy()
    if bounds is None:
        table["interval"] = method
    else:  # a row the bootstrap had no items for has no list of its own
        flat = [f if isinstance(f, list) else [] for f in bounds["no_spread"]]
        table["interval"] = [with_fallback(method, names) for names in flat]
    return table


def _cluster_accuracy_bounds(
    items: pd.DataFrame, metrics: Sequence[str], resamples: int, seed: int
) -> pd.DataFrame:
    """Percentile bounds of each condition's accuracy, resampling sentences with all their
    rows; one ``default_rng(seed)`` over the (model, language) groups in sorted order."""
    scores = item_scores(items)
    scores["sent_id"] = items["sent_id"].to_numpy()
    rng = np.random.default_rng(seed)
    rows = []
    for (model, lang), group in scores.groupby(["model_name", "lang"], sort=True):
        sentences = group["sent_id"].unique()
        counts = resampled_counts(rng, len(sentences), resamples)
        for condition, rows_of in group.groupby("condition", sort=True):
            by_sentence = rows_of.groupby("sent_id")
            size = by_sentence.size().reindex(sentences, fill_value=0).to_numpy(dtype=float)
            row = {"model_name": model, "lang": lang, "condition": condition}
            flat = []
            for metric in metrics:
                hits = by_sentence[metric].sum().reindex(sentences, fill_value=0)
                with np.errstate(divide="ignore", invalid="ignore"):
                    draws = counts @ hits.to_numpy(dtype=float) / (counts @ size)
                lo, hi = percentile_interval(draws)
                point = hits.sum() / size.sum()
                if point in (0.0, 1.0) and no_spread(lo, hi):
                    lo, hi = (float(b) for b in wilson_interval(point, len(sentences)))
                    flat.append(metric)
                row |= {f"{metric}_lo": lo, f"{metric}_hi": hi}
            rows.append(row | {"sentences": len(sentences), "no_spread": flat})
    return pd.DataFrame(rows).set_index(["model_name", "lang", "condition"])


def effects(
    accuracy: Mapping[str, np.ndarray | float], conditions: Conditions = DEFAULT_CONDITIONS
) -> dict[str, np.ndarray]:
    """Every effect of ``conditions`` from accuracies keyed by released condition name
    (scalars or arrays of resamples), in the report's column order."""
    missing = np.full(np.shape(next(iter(accuracy.values()), np.nan)), np.nan)

    def acc(order: str, lemma: bool = False) -> np.ndarray:
        condition = conditions.find(order, lemma)
        value = missing if condition is None else accuracy.get(condition.released, missing)
        return np.asarray(value, dtype=float)

    orig = acc("orig")
    defined = orig > 0

    def sensitivity(order: str, lemma: bool = False) -> np.ndarray:
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.where(defined, (orig - acc(order, lemma)) / orig, np.nan)

    def interaction(order: str) -> np.ndarray:
        additive = acc(order) + acc("orig", lemma=True) - orig
        return np.where(defined, acc(order, lemma=True) - additive, np.nan)

    scrambles = conditions.scrambles
    values = {f"S_{order}": sensitivity(order) for order in scrambles}
    values["S_L"] = sensitivity("orig", lemma=True)
    values |= {f"I_{order}": interaction(order) for order in scrambles}
    if {"part", "head"} <= set(scrambles):
        values["part_minus_head"] = acc("part") - acc("head")
    return values


def effect_names(conditions: Conditions = DEFAULT_CONDITIONS) -> list[str]:
    """The names `effects` gives for ``conditions``, in its order."""
    return list(effects({}, conditions))


def effects_table(
    summary: pd.DataFrame,
    metric: str = "word_at_1",
    conditions: Conditions = DEFAULT_CONDITIONS,
) -> pd.DataFrame:
    """Point estimates of every effect per (model, language) from a summary table."""
    wide = summary.pivot(index=["model_name", "lang"], columns="condition", values=metric)
    values = effects({c: wide[c].to_numpy() for c in wide.columns}, conditions)
    return pd.DataFrame(values, index=wide.index).reset_index()


def correctness_matrix(items: pd.DataFrame, paired_by: str) -> pd.DataFrame:
    """Top-1 correctness of one (model, language): one row per item, one column per condition.

    ``paired_by="sentence"`` pairs rows through ``sent_id`` (and ``seed``). ``"position"``
    pairs the i-th row of every condition: the only pairing possible for the released files,
    which carry no sentence id, applied to their head(n)-balanced set. Positions stay on one
    sentence only until some condition loses a row that another keeps (span cap, Turkish
    no-move filter); past that point conditions are resampled as if independent, as in an
    unpaired bootstrap. In the released mBERT seed-123 file the positions of de, es and zh all
    stay on one sentence, those of en 93 %, ru 72 %, tr none.
    """
    if paired_by == "sentence":
        items = items.set_index(item_key(items))
    elif paired_by == "position":
        items = items.set_index(items.groupby("condition").cumcount())
    else:
        raise ValueError(f"paired_by must be 'sentence' or 'position', not {paired_by!r}")
    matrix = items.set_index("condition", append=True)["word_level_match"].unstack("condition")
    if matrix.isna().any().any():
        raise ValueError("items are not balanced: some item lacks a condition")
    return matrix.astype(bool)


def paired_bootstrap(
    items: pd.DataFrame,
    *,
    paired_by: str,
    conditions: Conditions = DEFAULT_CONDITIONS,
    resamples: int = BOOTSTRAP_RESAMPLES,
    seed: int = BOOTSTRAP_SEED,
) -> pd.DataFrame:
    """Effects with 2.5/97.5 percentile intervals from resampling balanced sentences.

    Each of the ``resamples`` draws picks the sentences with replacement (as multinomial
    counts), each with all its rows (one per seed), and recomputes every condition's accuracy
    on that same multiset. ``paired_by="position"`` has no sentence ids: each position is its
    own sentence. Draws where an effect is undefined (``A_Orig = 0``) are ignored, as
    ``numpy.nanpercentile`` does. One ``numpy.random.default_rng(seed)`` serves the (model,
    language) groups in sorted order, so a table is reproducible from its seed.
    """
    if resamples < 1:
        raise InputError(f"resamples must be at least 1, not {resamples}")
    rng = np.random.default_rng(seed)
    rows = []
    for (model, lang), group in items.groupby(["model_name", "lang"], sort=True):
        matrix = correctness_matrix(group, paired_by).astype(float)
        if paired_by == "sentence":
            clusters = matrix.groupby(level="sent_id", sort=False)
            hits, size = clusters.sum().to_numpy(), clusters.size().to_numpy(dtype=float)
        else:
            hits, size = matrix.to_numpy(), np.ones(len(matrix))
        n = len(hits)
        counts = resampled_counts(rng, n, resamples)  # one row of counts for all conditions
        resampled = (counts @ hits) / (counts @ size)[:, None]  # (resamples, conditions)
        point = effects(dict(zip(matrix.columns, matrix.mean(axis=0), strict=True)), conditions)
        boot = effects(dict(zip(matrix.columns, resampled.T, strict=True)), conditions)
        accuracies = matrix.mean(axis=0)
        orig = conditions.find("orig")
        a_orig = accuracies.get(orig.released, np.nan) if orig is not None else np.nan
        row = {"model_name": model, "lang": lang, "N": len(matrix), "A_orig": float(a_orig)}
        fallback = wilson_effect_bounds(accuracies.to_dict(), n, conditions)
        at_edge = effects_at_the_edge(accuracies.to_dict(), conditions)
        flat = []
        for name in point:
            lo, hi = percentile_interval(boot[name], value_range(name))
            if at_edge.get(name) and no_spread(lo, hi):
                lo, hi = fallback[name]
                flat.append(name)
            row |= {name: float(point[name]), f"{name}_lo": lo, f"{name}_hi": hi}
        interval = with_fallback(bootstrap_name(resamples, seed), flat)
        rows.append(row | {"sentences": n, "interval": interval})
    return pd.DataFrame(rows)


def with_fallback(method: str, names: Sequence[str]) -> str:
    """An interval's name, and which numbers have Wilson bounds instead (`no_spread`)."""
    return f"{method}; {', '.join(names)}: {WILSON_FALLBACK}" if len(names) else method


def effects_at_the_edge(
    accuracy: Mapping[str, float], conditions: Conditions = DEFAULT_CONDITIONS
) -> dict[str, bool]:
    """Whether each effect is computed from an accuracy of 0 or 1, where a bootstrap has no
    spread: an effect depends on the accuracies whose change changes it."""
    base = effects(accuracy, conditions)
    edge = {name: False for name in base}
    for condition, value in accuracy.items():
        if value not in (0.0, 1.0):
            continue
        moved = effects(accuracy | {condition: 0.5}, conditions)
        for name in base:
            edge[name] |= not np.array_equal(base[name], moved[name], equal_nan=True)
    return edge


def wilson_effect_bounds(
    accuracy: Mapping[str, float], n: int, conditions: Conditions = DEFAULT_CONDITIONS
) -> dict[str, tuple[float, float]]:
    """Each effect's range over the Wilson intervals of its accuracies on ``n`` sentences:
    every effect is monotone in each accuracy, so its extremes lie at the corners of those
    intervals (clipped to the effect's range)."""
    names = list(accuracy)
    intervals = [tuple(float(b) for b in wilson_interval(accuracy[c], n)) for c in names]
    corners = np.array(list(itertools.product(*intervals))).reshape(-1, len(names))
    values = effects({c: corners[:, i] for i, c in enumerate(names)}, conditions)
    out = {}
    for name, value in values.items():
        if np.isnan(value).all():
            out[name] = (np.nan, np.nan)
            continue
        low, high = value_range(name)
        out[name] = (max(low, float(np.nanmin(value))), min(high, float(np.nanmax(value))))
    return out


def seed_mean_ci(
    table: pd.DataFrame,
    values: Sequence[str],
    keys: Sequence[str] = ("model_name", "lang", "condition"),
    seed_column: str = "run_seed",
) -> pd.DataFrame:
    """Mean over seeds of each value with a 95 % t interval, clipped to the value's range.

    The interval is ``mean ± t(0.975, runs − 1) · std / √runs`` (pandas ``std``, ddof = 1):
    with three seeds t is 4.30, where the released tables used 1.96 and were too narrow. One
    seed gives NaN intervals.
    """
    grouped = table.groupby(list(keys), sort=True)
    runs = grouped[seed_column].nunique()
    out = pd.DataFrame(index=runs.index)
    out["runs"] = runs
    from scipy import stats as scipy_stats  # here: commands that compute no interval start faster

    t = scipy_stats.t.ppf(0.975, runs - 1)
    for value in values:
        mean, std = grouped[value].mean(), grouped[value].std(ddof=1)
        half = t * std / np.sqrt(runs)
        low, high = value_range(value)
        out[f"{value}_mean"] = mean
        out[f"{value}_std"] = std
        out[f"{value}_lo"] = (mean - half).clip(lower=low)
        out[f"{value}_hi"] = (mean + half).clip(upper=high)
    out["interval"] = T_OVER_SEEDS
    return out.reset_index()
