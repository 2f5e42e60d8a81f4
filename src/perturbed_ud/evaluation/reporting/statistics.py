"""Intervals every task's numbers use: Wilson intervals of proportions, percentile
bootstrap intervals (stratified, or over the worst copy of each sentence), named in each
table's ``interval`` column. The masked-word task's effects and their paired bootstraps are
`tasks.masked_word.statistics`."""

from __future__ import annotations

import warnings
from collections.abc import Sequence

import numpy as np
import pandas as pd

Z95 = 1.959963984540054  # the 97.5 % standard normal quantile used by the released code
#: Seed of every bootstrap unless one is given: the released paired bootstrap's, 1337.
BOOTSTRAP_SEED = 1337
BOOTSTRAP_RESAMPLES = 2000


def wilson_interval(p, n, z: float = Z95) -> tuple[np.ndarray, np.ndarray]:
    """Wilson score interval of a proportion ``p`` over ``n`` items, clipped to [0, 1].

    ``n`` must be the true item count (the released tables inflated it by counting the same
    summary several times). ``n = 0`` gives NaN.
    """
    p = np.asarray(p, dtype=float)
    n = np.asarray(n, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        z2n = z * z / n
        centre = (p + z2n / 2) / (1 + z2n)
        half = z * np.sqrt(p * (1 - p) / n + z2n / (4 * n)) / (1 + z2n)
    # at p = 0 or 1 the bound is the estimate itself; rounding would leave it a hair off
    lo = np.where(p <= 0, 0.0, np.clip(centre - half, 0, 1))
    hi = np.where(p >= 1, 1.0, np.clip(centre + half, 0, 1))
    return np.where(n > 0, lo, np.nan), np.where(n > 0, hi, np.nan)


WILSON = "Wilson 95 %"


def bootstrap_name(resamples: int, seed: int) -> str:
    """How an interval table names its bootstrap: method, resamples and seed."""
    return f"bootstrap 95 % over sentences (B = {resamples}, seed {seed})"


def no_spread(lo: float, hi: float) -> bool:
    """Whether a bootstrap interval is one point (every draw alike)."""
    return not np.isnan(lo) and lo == hi


def stratified_mean_interval(
    hits: Sequence[np.ndarray], resamples: int = BOOTSTRAP_RESAMPLES, seed: int = BOOTSTRAP_SEED
) -> tuple[float, float, float, str]:
    """The mean of several groups' accuracies (each group weighs the same), with a 95 %
    bootstrap interval resampling items within each group. Where every draw is alike (each
    group all right or all wrong), the mean of the groups' Wilson bounds, the range of the
    mean over those intervals. Returns (mean, low, high, the interval's name)."""
    rng = np.random.default_rng(seed)
    draws = np.zeros(resamples)
    for group in hits:
        draws += resampled_counts(rng, len(group), resamples) @ group / len(group)
    draws /= len(hits)
    point = float(np.mean([group.mean() for group in hits]))
    lo, hi = percentile_interval(draws)
    name = f"stratified {bootstrap_name(resamples, seed).replace('sentences', 'pairs')}"
    if no_spread(lo, hi):  # every group all right or all wrong
        bounds = [wilson_interval(group.mean(), len(group)) for group in hits]
        lo, hi = (float(np.mean([b[end] for b in bounds])) for end in (0, 1))
        name = f"mean of each group's {WILSON}, where the bootstrap has no spread"
    return point, lo, hi, name


def resampled_counts(rng: np.random.Generator, n: int, resamples: int) -> np.ndarray:
    """The bootstrap of every interval here: how often each of ``n`` sentences is drawn in
    each of ``resamples`` draws with replacement, (resamples, n). A statistic of a draw is
    then a weighted one (``counts @ values``), so no resampled copy of the data is made."""
    return rng.multinomial(n, np.full(n, 1 / n), size=resamples)


def worst_copy(values: pd.Series, sentence: list, *, highest: bool = False) -> pd.Series:
    """Per sentence (``sentence``: the keys naming it, as `Series.groupby` takes them), the
    label of the row holding its worst copy: the lowest value, or the highest (``highest``,
    a distance). La Malfa et al. (2022) score a perturbation by its worst case over a
    sentence's copies, not their mean (Alg. 1 for distances, Alg. 2 for probes), so every
    task that compares copies with their original takes the worst one here. A copy whose
    value is undefined (NaN) is the worst only when every copy's is; of equal values, the
    first copy's. Sentences come in sorted order."""
    ranked = (-values if highest else values).fillna(np.inf)
    return ranked.groupby(sentence, sort=True).idxmin()


def percentile_interval(draws: np.ndarray, bounds: tuple[float, float] = (0.0, 1.0)):
    """The 2.5 and 97.5 percentiles of the draws where the statistic is defined, clipped to
    the statistic's range."""
    if np.isnan(draws).all():
        return np.nan, np.nan
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        lo, hi = np.clip(np.nanpercentile(draws, [2.5, 97.5]), *bounds)
    return float(lo), float(hi)
