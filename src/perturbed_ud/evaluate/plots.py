"""Figures 1–4 of the paper as PNG files: accuracy, sensitivity, interaction, Head vs Part.

One panel per model, languages along the x axis, one bar per condition or effect, error
bars from the ``_lo``/``_hi`` columns of the tables in :mod:`.stats`. Figures are drawn on
the Agg canvas directly, so plotting neither needs a display nor changes pyplot's state.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from ..files import atomic_path
from .schema import DEFAULT_CONDITIONS, Conditions


def sensitivity_labels(conditions: Conditions) -> dict[str, str]:
    """``S_<order>`` → its scramble's label (``S_full`` → ``Full``), then ``S_L`` → ``+L``."""
    return {f"S_{o}": conditions.find(o).label for o in conditions.scrambles} | {"S_L": "+L"}


def interaction_labels(conditions: Conditions) -> dict[str, str]:
    """``I_<order>`` → its scramble's label × L (``I_full`` → ``Full × L``)."""
    return {f"I_{o}": f"{conditions.find(o).label} × L" for o in conditions.scrambles}


def grouped_bars(
    table: pd.DataFrame,
    series: dict[str, str],
    path: str | Path,
    *,
    title: str,
    ylabel: str,
) -> Path:
    """Bars of ``table[column]`` for each series column, with ``column_lo``/``_hi`` errors."""
    series = {c: label for c, label in series.items() if c in table and table[c].notna().any()}
    if not series:
        raise ValueError(f"{path}: no values to plot")
    models = sorted(table["model_name"].unique())
    langs = sorted(table["lang"].unique())
    group_width = max(1.2, 0.28 * len(series))  # inches per language
    size = (max(6.0, group_width * len(langs) + 1.5), 2.8 * len(models) + 0.6)
    fig = Figure(figsize=size, layout="constrained")
    FigureCanvasAgg(fig)
    axes = fig.subplots(len(models), 1, squeeze=False, sharey=True)[:, 0]
    width = 0.8 / len(series)
    x = np.arange(len(langs))
    for ax, model in zip(axes, models, strict=True):
        rows = table[table["model_name"] == model].set_index("lang").reindex(langs)
        for i, (column, label) in enumerate(series.items()):
            value = rows[column].to_numpy(dtype=float)
            below = np.nan_to_num(value - rows[f"{column}_lo"].to_numpy(dtype=float))
            above = np.nan_to_num(rows[f"{column}_hi"].to_numpy(dtype=float) - value)
            errors = np.clip(np.vstack([below, above]), 0, None)
            offset = (i - (len(series) - 1) / 2) * width
            ax.bar(x + offset, value, width, yerr=errors, capsize=2, label=label)
        ax.axhline(0, color="black", linewidth=0.6)
        ax.set_xticks(x, langs)
        ax.set_ylabel(ylabel)
        ax.set_title(model, fontsize="medium")
    fig.legend(*axes[0].get_legend_handles_labels(), loc="outside right upper", fontsize="small")
    fig.suptitle(title)
    with atomic_path(path) as tmp:
        fig.savefig(tmp, dpi=150, format="png")
    return Path(path)


def plot_accuracy(
    accuracy: pd.DataFrame,
    path: str | Path,
    metric: str = "word_at_1",
    conditions: Conditions = DEFAULT_CONDITIONS,
) -> Path:
    """Figure 1: accuracy per condition and language with the table's 95 % intervals."""
    present = set(accuracy["condition"])
    columns = [metric, f"{metric}_lo", f"{metric}_hi"]
    wide = accuracy.pivot(index=["model_name", "lang"], columns="condition", values=columns)
    wide.columns = [c if m == metric else f"{c}{m.removeprefix(metric)}" for m, c in wide.columns]
    label = "top-1" if metric == "word_at_1" else "top-5"
    return grouped_bars(
        wide.reset_index(),
        {c: text for c, text in conditions.labels.items() if c in present},
        path,
        title=f"Word-level {label} accuracy ({accuracy['interval'].iloc[0]} CI)",
        ylabel="accuracy",
    )


def plot_effects(
    effects: pd.DataFrame,
    path: str | Path,
    conditions: Conditions = DEFAULT_CONDITIONS,
    *,
    figure: str,
) -> Path:
    """Figures 2–4 by ``figure``: ``sensitivity`` (relative drops S), ``interaction`` (I in
    accuracy space, one per scramble) or ``head_vs_part`` (Δ = A_Part − A_Head, > 0: Head
    harms more), each with bootstrap 95 % intervals."""
    if figure == "sensitivity":
        series = sensitivity_labels(conditions)
        title, ylabel = "Sensitivity S = (A_Orig − A_X) / A_Orig", "S"
    elif figure == "interaction":
        series = interaction_labels(conditions)
        title, ylabel = "Interaction I = A_X+L − (A_X + A_Orig+L − A_Orig)", "I"
    elif figure == "head_vs_part":
        part, head = (conditions.find(order).label for order in ("part", "head"))
        series = {"part_minus_head": f"{part} − {head}"}
        title, ylabel = f"{head} vs {part}: Δ accuracy = {part} − {head}", "Δ accuracy"
    else:
        raise ValueError(f"no effect figure {figure!r}")
    return grouped_bars(effects, series, path, title=f"{title} (95 % CI)", ylabel=ylabel)
