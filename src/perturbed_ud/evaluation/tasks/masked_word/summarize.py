"""One call from per-item results to every table and figure of the paper's results section.

``summarize`` writes, into one folder:

- ``summary_balanced.csv`` / ``summary_unbalanced.csv`` (the released layout) and ``.md`` twins;
- ``accuracy_ci.csv``: intervals of the balanced accuracies: Wilson with the true N for one
  seed, a cluster bootstrap over sentences where seeds are pooled;
- ``sensitivity_ci.csv``, ``interaction_ci.csv``, ``head_vs_part.csv``: effects with paired
  bootstrap intervals over the balanced sentences, one per scramble of the dataset's
  conditions (``I_head`` only where Head+Lemma was run; ``head_vs_part.csv`` where Part and
  Head exist);
- with several seeds, ``accuracy_across_seeds.csv`` and ``effects_across_seeds.csv``: the
  mean over seeds with a t interval.

Every table names its interval in an ``interval`` column and clips bounds to the possible
range.
- ``accuracy.png``, ``sensitivity.png``, ``interaction.png``, ``head_vs_part.png``; a figure
  with nothing to show (a run without Part or Head) is left out.
"""

from __future__ import annotations

from functools import partial
from pathlib import Path

import pandas as pd

from ....data.conditions import DEFAULT_CONDITIONS, Conditions
from ....errors import InputError
from ....files import output_folder
from ...reporting.statistics import BOOTSTRAP_SEED
from ...reporting.tables import write_table
from .figures import plot_accuracy, plot_effects
from .items import check_items, read_items
from .statistics import (
    BOOTSTRAP_RESAMPLES,
    accuracy_ci,
    effect_names,
    effects_table,
    paired_bootstrap,
    seed_mean_ci,
)
from .summary import (
    balance_items,
    resolve_balance,
    scored_items,
    summarize_items,
)

_SETTINGS = ["sentences", "interval"]


def _with_intervals(names) -> list[str]:
    return [c for name in names for c in (name, f"{name}_lo", f"{name}_hi")]


def _across_seeds(
    items: pd.DataFrame, balance: str, conditions: Conditions
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Per-seed balanced accuracies and effects, averaged over seeds with 95 % intervals."""
    summaries = [
        summarize_items(group, balance, run_seed=int(seed), conditions=conditions)[0]
        for seed, group in items.groupby("seed", sort=True)
    ]
    per_seed = pd.concat(summaries, ignore_index=True)
    effects = pd.concat(
        [
            effects_table(s, conditions=conditions).assign(run_seed=s["run_seed"].iloc[0])
            for s in summaries
        ],
        ignore_index=True,
    )
    return (
        seed_mean_ci(per_seed, ["word_at_1", "word_at_5"]),
        seed_mean_ci(effects, effect_names(conditions), keys=("model_name", "lang")),
    )


def summarize(
    items: str | Path | pd.DataFrame,
    out_dir: str | Path,
    *,
    balance: str = "auto",
    bootstrap: int = BOOTSTRAP_RESAMPLES,
    seed: int = BOOTSTRAP_SEED,
    run_seed: int | None = None,
    conditions: Conditions = DEFAULT_CONDITIONS,
) -> dict[str, Path]:
    """Write every summary, interval table and figure for ``items``; return them by file name.

    ``bootstrap`` resamples drawn from ``numpy.random.default_rng(seed)``. ``run_seed`` labels
    a single run whose items carry no ``seed`` column (the released files: ``run_seed=123``
    reproduces ``summary_*_seed123.csv`` byte for byte). ``conditions``, the table of the
    items' dataset, decides which effects exist; the items may name any subset of it.
    """
    if bootstrap < 1:  # checked before anything is written
        raise InputError(f"--bootstrap: the intervals need at least 1 resample, not {bootstrap}")
    read = read_items if isinstance(items, str | Path) else check_items
    items = read(items, conditions)
    out = output_folder(out_dir)
    written: list[Path] = []
    names = effect_names(conditions)
    sensitivities = [name for name in names if name.startswith("S_")]

    balanced, unbalanced = summarize_items(items, balance, run_seed=run_seed, conditions=conditions)
    written += write_table(balanced, out / "summary_balanced.csv", markdown=True)
    written += write_table(unbalanced, out / "summary_unbalanced.csv", markdown=True)

    scored = scored_items(items, conditions)
    mode = resolve_balance(scored, balance)
    balanced_items = balance_items(scored, mode)
    accuracy = accuracy_ci(balanced, balanced_items, resamples=bootstrap, seed=seed)
    written += write_table(accuracy, out / "accuracy_ci.csv")

    effects = paired_bootstrap(
        balanced_items,
        paired_by="sentence" if mode == "aligned" else "position",
        conditions=conditions,
        resamples=bootstrap,
        seed=seed,
    )
    keys = ["model_name", "lang", "N"]
    written += write_table(
        effects[keys + _with_intervals(sensitivities) + _SETTINGS], out / "sensitivity_ci.csv"
    )
    interactions = [n for n in names if n.startswith("I_") and effects[n].notna().any()]
    written += write_table(
        effects[keys + _with_intervals(interactions) + _SETTINGS], out / "interaction_ci.csv"
    )
    figures = [
        (plot_accuracy, accuracy, ["word_at_1"], "accuracy.png"),
        (partial(plot_effects, figure="sensitivity"), effects, sensitivities, "sensitivity.png"),
        (partial(plot_effects, figure="interaction"), effects, interactions, "interaction.png"),
    ]
    if "part_minus_head" in names:
        top1 = balanced.pivot(index=["model_name", "lang"], columns="condition", values="word_at_1")
        part_head = top1.reindex(columns=[conditions.find(o).released for o in ("part", "head")])
        part_head = part_head.set_axis(["A_part", "A_head"], axis=1).reset_index()
        head_vs_part = part_head.merge(
            effects[keys + _with_intervals(["part_minus_head"]) + _SETTINGS],
            on=["model_name", "lang"],
        )
        written += write_table(head_vs_part, out / "head_vs_part.csv")
        head_vs_part_figure = partial(plot_effects, figure="head_vs_part")
        figures.append((head_vs_part_figure, effects, ["part_minus_head"], "head_vs_part.png"))

    if "seed" in scored.columns and scored["seed"].nunique() > 1:
        accuracy_seeds, effects_seeds = _across_seeds(scored, mode, conditions)
        written += write_table(accuracy_seeds, out / "accuracy_across_seeds.csv")
        written += write_table(effects_seeds, out / "effects_across_seeds.csv")

    for plot, table, columns, name in figures:
        if columns and table[columns].notna().any().any():
            plot(table, out / name, conditions=conditions)
            written.append(out / name)
    return {path.name: path for path in written}
