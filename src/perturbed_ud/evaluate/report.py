"""One call from per-item results to every table and figure of the paper's results section.

``summarize`` writes, into one folder:

- ``summary_balanced.csv`` / ``summary_unbalanced.csv`` (the released layout) and ``.md`` twins;
- ``accuracy_ci.csv``: Wilson 95 % intervals of the balanced accuracies, with the true N;
- ``sensitivity_ci.csv``, ``interaction_ci.csv``, ``head_vs_part.csv``: effects with paired
  bootstrap intervals over the balanced items (``I_head`` only where Head+Lemma was run);
- with several seeds, ``accuracy_across_seeds.csv`` and ``effects_across_seeds.csv``;
- ``accuracy.png``, ``sensitivity.png``, ``interaction.png``, ``head_vs_part.png``; a figure
  with nothing to show (a run without Part or Head) is left out.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from ..files import output_folder
from .plots import plot_accuracy, plot_head_vs_part, plot_interaction, plot_sensitivity
from .schema import check_items, read_items
from .stats import (
    BOOTSTRAP_RESAMPLES,
    BOOTSTRAP_SEED,
    EFFECTS,
    INTERACTIONS,
    SENSITIVITIES,
    accuracy_ci,
    effects_table,
    paired_bootstrap,
    seed_mean_ci,
)
from .summary import (
    balance_items,
    resolve_balance,
    scored_items,
    summarize_items,
    write_table,
)

_SETTINGS = ["resamples", "rng_seed"]


def _with_intervals(names) -> list[str]:
    return [c for name in names for c in (name, f"{name}_lo", f"{name}_hi")]


def _across_seeds(items: pd.DataFrame, balance: str) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Per-seed balanced accuracies and effects, averaged over seeds with 95 % intervals."""
    summaries = [
        summarize_items(group, balance, run_seed=int(seed))[0]
        for seed, group in items.groupby("seed", sort=True)
    ]
    per_seed = pd.concat(summaries, ignore_index=True)
    effects = pd.concat(
        [effects_table(s).assign(run_seed=s["run_seed"].iloc[0]) for s in summaries],
        ignore_index=True,
    )
    return (
        seed_mean_ci(per_seed, ["word_at_1", "word_at_5"]),
        seed_mean_ci(effects, EFFECTS, keys=("model_name", "lang")),
    )


def summarize(
    items: str | Path | pd.DataFrame,
    out_dir: str | Path,
    *,
    balance: str = "auto",
    bootstrap: int = BOOTSTRAP_RESAMPLES,
    seed: int = BOOTSTRAP_SEED,
    run_seed: int | None = None,
) -> dict[str, Path]:
    """Write every summary, interval table and figure for ``items``; return them by file name.

    ``bootstrap`` resamples drawn from ``numpy.random.default_rng(seed)``. ``run_seed`` labels
    a single run whose items carry no ``seed`` column (the released files: ``run_seed=123``
    reproduces ``summary_*_seed123.csv`` byte for byte).
    """
    items = read_items(items) if isinstance(items, str | Path) else check_items(items)
    out = output_folder(out_dir)
    written: list[Path] = []

    balanced, unbalanced = summarize_items(items, balance, run_seed=run_seed)
    written += write_table(balanced, out / "summary_balanced.csv", markdown=True)
    written += write_table(unbalanced, out / "summary_unbalanced.csv", markdown=True)

    accuracy = accuracy_ci(balanced)
    written += write_table(accuracy, out / "accuracy_ci.csv")

    scored = scored_items(items)
    mode = resolve_balance(scored, balance)
    effects = paired_bootstrap(
        balance_items(scored, mode),
        paired_by="sentence" if mode == "aligned" else "position",
        resamples=bootstrap,
        seed=seed,
    )
    keys = ["model_name", "lang", "N"]
    written += write_table(
        effects[keys + _with_intervals(SENSITIVITIES) + _SETTINGS], out / "sensitivity_ci.csv"
    )
    interactions = [name for name in INTERACTIONS if effects[name].notna().any()]
    written += write_table(
        effects[keys + _with_intervals(interactions) + _SETTINGS], out / "interaction_ci.csv"
    )
    top1 = balanced.pivot(index=["model_name", "lang"], columns="condition", values="word_at_1")
    part_head = top1.reindex(columns=["PartiallyScrambled", "HeadScrambled"])
    part_head = part_head.set_axis(["A_part", "A_head"], axis=1).reset_index()
    head_vs_part = part_head.merge(
        effects[keys + _with_intervals(["part_minus_head"]) + _SETTINGS], on=["model_name", "lang"]
    )
    written += write_table(head_vs_part, out / "head_vs_part.csv")

    if "seed" in scored.columns and scored["seed"].nunique() > 1:
        accuracy_seeds, effects_seeds = _across_seeds(scored, mode)
        written += write_table(accuracy_seeds, out / "accuracy_across_seeds.csv")
        written += write_table(effects_seeds, out / "effects_across_seeds.csv")

    figures = [
        (plot_accuracy, accuracy, ["word_at_1"], "accuracy.png"),
        (plot_sensitivity, effects, SENSITIVITIES, "sensitivity.png"),
        (plot_interaction, effects, INTERACTIONS, "interaction.png"),
        (plot_head_vs_part, effects, ["part_minus_head"], "head_vs_part.png"),
    ]
    for plot, table, columns, name in figures:
        if table[list(columns)].notna().any().any():
            written.append(plot(table, out / name))
    return {path.name: path for path in written}
