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

from .schema import PAPER_LABELS

SENSITIVITY_LABELS = {"S_full": "Full", "S_part": "Part", "S_head": "Head", "S_L": "+L"}
INTERACTION_LABELS = {"I_full": "Full × L", "I_part": "Part × L", "I_head": "Head × L"}


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
    fig.savefig(path, dpi=150)
    return Path(path)


def plot_accuracy(accuracy: pd.DataFrame, path: str | Path, metric: str = "word_at_1") -> Path:
    """Figure 1: accuracy per condition and language with Wilson 95 % intervals."""
    conditions = [c for c in PAPER_LABELS if c in set(accuracy["condition"])]
    columns = [metric, f"{metric}_lo", f"{metric}_hi"]
    wide = accuracy.pivot(index=["model_name", "lang"], columns="condition", values=columns)
    wide.columns = [c if m == metric else f"{c}{m.removeprefix(metric)}" for m, c in wide.columns]
    label = "top-1" if metric == "word_at_1" else "top-5"
    return grouped_bars(
        wide.reset_index(),
        {c: PAPER_LABELS[c] for c in conditions},
        path,
        title=f"Word-level {label} accuracy (Wilson 95 % CI)",
        ylabel="accuracy",
    )


def plot_sensitivity(effects: pd.DataFrame, path: str | Path) -> Path:
    """Figure 2: relative-drop sensitivities S with bootstrap 95 % intervals."""
    return grouped_bars(
        effects,
        SENSITIVITY_LABELS,
        path,
        title="Sensitivity S = (A_Orig − A_X) / A_Orig (95 % CI)",
        ylabel="S",
    )


def plot_interaction(effects: pd.DataFrame, path: str | Path) -> Path:
    """Figure 3: interactions I in accuracy space (I_full, I_part, I_head where present)."""
    return grouped_bars(
        effects,
        INTERACTION_LABELS,
        path,
        title="Interaction I = A_X+L − (A_X + A_Orig+L − A_Orig) (95 % CI)",
        ylabel="I",
    )


def plot_head_vs_part(effects: pd.DataFrame, path: str | Path) -> Path:
    """Figure 4: Δ = A_Part − A_Head per language (> 0: Head harms more)."""
    return grouped_bars(
        effects,
        {"part_minus_head": "Part − Head"},
        path,
        title="Head vs Part: Δ accuracy = Part − Head (95 % CI)",
        ylabel="Δ accuracy",
    )
