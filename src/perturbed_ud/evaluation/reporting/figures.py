"""The figures of every task as PNG files: minimal-pair accuracy, nonce/orig ratios,
distances, probes; the masked-word task's (the paper's Figures 1–4) are
`tasks.masked_word.figures`, drawn with the same bars and colours.

Bar figures have one panel per model, languages along the x axis with their N, one bar per
condition or effect, and error bars from the ``_lo``/``_hi`` columns of the task's tables.
Figures are drawn on the Agg canvas directly, so plotting neither needs a display nor
changes pyplot's state.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from ...files import atomic_path
from ...options import published_name

if TYPE_CHECKING:
    from matplotlib.figure import Figure


def save(fig: Figure, path: str | Path) -> Figure:
    """Write the figure as a PNG, whole or not at all; return it (for a look at its parts)."""
    with atomic_path(path) as tmp:
        fig.savefig(tmp, dpi=150, format="png")
    return fig


def new_figure(figsize, **options):
    """A matplotlib figure drawn by the Agg canvas (no display, no pyplot state); matplotlib
    is imported here, so that commands that draw nothing start without it."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    fig = Figure(figsize=figsize, **options)
    FigureCanvasAgg(fig)
    return fig


def count_label(counts: pd.Series) -> str:
    """``N = 400``, or ``N = 365–400`` where the bars of one language rest on unequal N."""
    low, high = int(counts.min()), int(counts.max())
    return f"N = {low:,}" if low == high else f"N = {low:,}–{high:,}"


def _tick(lang: str, rows: pd.DataFrame) -> str:
    """A language and, beneath it, its N."""
    n = rows.at[lang, "N"] if "N" in rows else None
    if n is None or pd.isna(n):
        return lang
    return f"{lang}\n{n}" if isinstance(n, str) else f"{lang}\nN = {int(n):,}"


def grouped_bars(
    table: pd.DataFrame,
    series: dict[str, str],
    path: str | Path,
    *,
    title: str,
    ylabel: str,
    colours: dict[str, str | None] | None = None,
    chance: float | None = None,
    missing: str | Callable[[pd.Series, str], str] | None = None,
    floor: float | None = None,
    lowest: float | None = None,
) -> Figure:
    """Bars of ``table[column]`` for each series column, with ``column_lo``/``_hi`` errors.

    One panel per model, languages along x with their ``N`` (a column of counts or labels)
    under each; the ``interval`` column names the error bars under the title. ``chance``
    draws a dashed line there; a bar without a value is marked n/a and ``missing`` says why
    beneath the figure (a text, or a function of the language's row and the column, whose
    reasons are listed with the languages they hold for). Intervals reaching below ``floor``
    are cut at the axis, so that one wide interval (S over a near-zero A_Orig) does not
    flatten every bar. ``lowest`` is the
    least value the metric can take (0 for accuracies): the axis does not run below it, even
    where every bar is 0. The legend sits below the panels, clear of titles and bars.
    """
    series = {c: label for c, label in series.items() if c in table and table[c].notna().any()}
    if not series:
        raise ValueError(f"{path}: no values to plot")
    colours = colours or {}
    models = sorted(table["model_name"].unique())
    langs = sorted(table["lang"].unique())
    group_width = max(1.2, 0.28 * len(series))  # inches per language
    size = (max(6.0, group_width * len(langs) + 1.5), 2.9 * len(models) + 1.3)
    fig = new_figure(figsize=size, layout="constrained")
    axes = fig.subplots(len(models), 1, squeeze=False, sharey=True)[:, 0]
    width = 0.8 / len(series)
    x = np.arange(len(langs))
    absent: dict[str, set[str]] = {}  # why a bar is n/a: the languages
    for ax, model in zip(axes, models, strict=True):
        rows = table[table["model_name"] == model].set_index("lang").reindex(langs)
        for i, (column, label) in enumerate(series.items()):
            value = rows[column].to_numpy(dtype=float)
            below = np.nan_to_num(value - rows[f"{column}_lo"].to_numpy(dtype=float))
            above = np.nan_to_num(rows[f"{column}_hi"].to_numpy(dtype=float) - value)
            errors = np.clip(np.vstack([below, above]), 0, None)
            offset = (i - (len(series) - 1) / 2) * width
            ax.bar(x + offset, value, width, yerr=errors, capsize=2, label=label,
                   color=colours.get(column))  # fmt: skip
            for k in np.flatnonzero(np.isnan(value)):
                why = missing(rows.iloc[k], column) if callable(missing) else missing
                absent.setdefault(why, set()).add(langs[k])
                ax.text(x[k] + offset, 0, "n/a", rotation=90, ha="center", va="bottom",
                        fontsize="x-small", color="dimgrey")  # fmt: skip
        ax.axhline(0, color="black", linewidth=0.6)
        ax.set_xlim(-0.5, len(langs) - 0.5)  # every group in view, with bars or not
        if chance is not None:
            ax.axhline(chance, color="black", linewidth=0.8, linestyle="--", label="chance")
        ax.set_xticks(x, [_tick(lang, rows) for lang in langs])
        ax.set_ylabel(ylabel)
        ax.set_title(model, fontsize="medium")
    if "interval" in table and table["interval"].notna().any():
        title = f"{title}\nerror bars: {table['interval'].dropna().iloc[0]}"
    fig.suptitle(title)
    handles, labels = axes[0].get_legend_handles_labels()
    if len(handles) > 1:
        per_entry = 0.6 + 0.075 * max(map(len, labels))  # inches: handle and label
        columns = max(1, min(len(handles), int(size[0] // per_entry)))
        fig.legend(handles, labels, loc="outside lower center", ncols=columns,
                   fontsize="small", frameon=False)  # fmt: skip
    notes = [
        f"n/a: {why}" if len(absent) == 1 else f"n/a ({', '.join(sorted(where))}): {why}"
        for why, where in absent.items()
        if why
    ]
    bottom, top = axes[0].get_ylim()
    if floor is not None and bottom < floor:
        axes[0].set_ylim(floor, top)
        notes.append(f"intervals below {floor:g} are cut at the axis")
    elif lowest is not None and bottom < lowest:
        axes[0].set_ylim(lowest, top)
    if notes:
        axes[-1].set_xlabel("; ".join(notes), fontsize="x-small", color="dimgrey")
    return save(fig, path)


def plot_nonce_ratios(paired: pd.DataFrame, summary: pd.DataFrame, path: str | Path) -> Figure:
    """Box plots of the per-sentence nonce/orig ratio, one per config, each over its N and
    Wilcoxon p; on a log axis whose ticks read as plain numbers (0.8, 1, 1.3)."""
    summary = summary.set_index("config")
    configs = list(summary.index)
    from matplotlib.ticker import FixedLocator, FuncFormatter, NullFormatter

    fig = new_figure(figsize=(max(6.0, 1.3 * len(configs) + 1.5), 4.4), layout="constrained")
    ax = fig.subplots()
    ax.boxplot([paired.loc[paired["config"] == c, "ratio"] for c in configs], showfliers=False)
    ticks = [
        f"{c}\nN = {summary.at[c, 'N']:,}\np = {summary.at[c, 'wilcoxon_p']:.2g}" for c in configs
    ]
    ax.set_xticks(range(1, len(configs) + 1), ticks, fontsize="small")
    ax.axhline(1.0, color="grey", linewidth=0.8, linestyle="--")
    ax.set_yscale("log")
    ax.yaxis.set_major_locator(FixedLocator(_log_ticks(*ax.get_ylim())))
    ax.yaxis.set_major_formatter(FuncFormatter(lambda value, _: f"{value:g}"))
    ax.yaxis.set_minor_formatter(NullFormatter())
    measure = summary["measure"].iloc[0]
    ax.set_ylabel(f"{measure} nonce / {measure} orig (log scale)")
    fig.suptitle(f"Nonce against original sentences, per sentence\n{summary['model_name'].iloc[0]}")
    ax.set_xlabel(f"p: Wilcoxon signed-rank test on the paired log {measure}",
                  fontsize="x-small", color="dimgrey")  # fmt: skip
    return save(fig, path)


def _log_ticks(low: float, high: float) -> list[float]:
    """Round-number ticks for a log axis: evenly spaced where it spans less than 5×
    (0.96, 0.98, 1, 1.02), else 1-2-3-5 steps (0.2, 0.3, 0.5, 1, 2)."""
    from matplotlib.ticker import LogLocator, MaxNLocator

    if high / low < 5:
        ticks = MaxNLocator(6).tick_values(low, high)
    else:
        ticks = LogLocator(subs=(1.0, 2.0, 3.0, 5.0)).tick_values(low, high)
        if sum(low <= t <= high for t in ticks) > 8:  # many decades: powers of ten only
            ticks = LogLocator().tick_values(low, high)
    return [float(t) for t in ticks if low <= t <= high]


def plot_distances(summary: pd.DataFrame, path: str | Path) -> Figure:
    """Distance by layer: a column of panels per language and method, ℓ2 above and cosine
    similarity below, one line per τ (mean over sentences of the worst copy) with its
    interquartile band, the N of sentences in the legend."""
    from matplotlib.ticker import MaxNLocator

    summary = summary.fillna({"lang": "", "method": ""})
    groups = sorted(summary.groupby(["lang", "method"]).groups)
    fig = new_figure(figsize=(max(7.0, 4.2 * len(groups)), 6.4), layout="constrained")
    axes = fig.subplots(2, len(groups), squeeze=False, sharex=True)
    for column, (lang, method) in enumerate(groups):
        chosen = summary[(summary["lang"] == lang) & (summary["method"] == method)]
        for tau, rows in chosen.groupby("tau", sort=True):
            rows = rows.groupby("layer").mean(numeric_only=True).reset_index()  # seeds pooled
            label = f"τ = {tau} (N = {int(rows['sentences'].max()):,})"
            for ax, measure in zip(axes[:, column], ("l2", "cosine"), strict=True):
                line = ax.plot(rows["layer"], rows[f"{measure}_mean"], marker="o", label=label)
                ax.fill_between(rows["layer"], rows[f"{measure}_q1"], rows[f"{measure}_q3"],
                                color=line[0].get_color(), alpha=0.15)  # fmt: skip
        axes[0, column].set_title(f"{lang} {method}".strip(), fontsize="medium")
        axes[0, column].set_ylabel("ℓ2 distance")
        axes[1, column].set_ylabel("cosine similarity")
        axes[1, column].set_xlabel("layer (0: embeddings)")
        axes[1, column].xaxis.set_major_locator(MaxNLocator(integer=True))
        axes[0, column].legend(fontsize="small", frameon=False)
    fig.suptitle(
        "Distance to the worst perturbed copy, by layer\n"
        f"{summary['model_name'].iloc[0]}; lines: mean over sentences, bands: quartiles"
    )
    return save(fig, path)


# The paper's perturbation types (Figures 2–5): characters in cool, subwords in warm colours.
PERTURBATION_STYLES = {
    "unperturbed": ("#000000", "*"),
    "char full": ("#1f77b4", "o"),
    "char phrase": ("#17becf", "o"),
    "char neighbour": ("#9467bd", "o"),
    "subword full": ("#d62728", "^"),
    "subword phrase": ("#ff7f0e", "^"),
    "subword neighbour": ("#8c564b", "^"),
}
MEASURE_AXES = {
    "chrf": "mean chrF of the perturbed texts (0–100)",
    "idc": "mean IDC of the perturbed texts (0: order kept)",
    "compression": "mean compression (characters per token)",
}


def plot_performance_vs_measure(
    table: pd.DataFrame,
    performance: str,
    measure: str,
    measure_name: str,
    model_name: str,
    path: str | Path,
) -> Figure:
    """One point per config × setting: ``performance`` against the setting's mean
    ``measure``, coloured by perturbation type (the paper's Figures 2–5); error bars from
    ``<performance>_lo`` / ``_hi`` where the table has them."""
    fig = new_figure(figsize=(7.5, 5), layout="constrained")
    ax = fig.add_subplot()
    for kind, (colour, marker) in PERTURBATION_STYLES.items():
        rows = table[(table["type"] == kind) & table[measure].notna()]
        if not len(rows):
            continue
        y = rows[performance].to_numpy(dtype=float)
        errors = None
        if f"{performance}_lo" in rows and f"{performance}_hi" in rows:
            errors = np.vstack(
                [y - rows[f"{performance}_lo"].to_numpy(float),
                 rows[f"{performance}_hi"].to_numpy(float) - y]
            )  # fmt: skip
        ax.errorbar(
            rows[measure], y, yerr=errors, fmt=marker, color=colour, label=kind,
            markersize=9 if kind == "unperturbed" else 6, elinewidth=0.8, alpha=0.85, capsize=2,
        )  # fmt: skip
    ax.set_xlabel(MEASURE_AXES.get(measure, measure_name))
    ax.set_ylabel(performance)
    if measure == "chrf":
        ax.invert_xaxis()  # left to right: more local structure destroyed
    ax.grid(alpha=0.3)
    # beside the axes: inside, it would hide points and error bars wherever it sat
    fig.legend(title="perturbation", fontsize="small", loc="outside right upper", frameon=False)
    langs = ", ".join(sorted(map(str, table["lang"].dropna().unique()))) if "lang" in table else ""
    counts = count_label(table["N"]) if "N" in table else ""
    ax.set_title(
        f"{published_name(model_name)}: {performance} against {measure_name}\n"
        f"{langs}{', ' if langs else ''}{counts} per setting, {len(table)} settings",
        fontsize="medium",
    )
    return save(fig, path)


def plot_probe_summary(summary: pd.DataFrame, path: str | Path, *, model: str,
                       dataset: str) -> Figure:  # fmt: skip
    """Each probe metric on the original and the perturbed sentences (worst copy), one panel
    per config and layer, with the bootstrap intervals; the title names the model whose
    layers were probed and the dataset."""
    table = summary.assign(
        model_name=summary["config"] + ", layer " + summary["layer"].astype(str),
        lang=summary["metric"],
        N=summary["sentences"],
    )
    series = {"original": "original", "perturbed": "perturbed (worst copy)"}
    names = f"{published_name(model)} on {published_name(dataset)}"
    title = f"{names}: probes, original against perturbed"
    return grouped_bars(table, series, path, title=title, ylabel="metric")
