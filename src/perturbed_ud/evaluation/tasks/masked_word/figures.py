"""The masked-word task's figures, the paper's Figures 1–4: accuracy by condition,
sensitivities, interactions, Head vs Part."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

import pandas as pd

from ....data.conditions import DEFAULT_CONDITIONS, Conditions
from ...reporting.figures import count_label, grouped_bars

if TYPE_CHECKING:
    from matplotlib.figure import Figure

# One colour per word order in every figure: the dark shade of a tab20 pair for the order,
# its light shade for the order with lemmas (+L); lemmas alone (S_L) in purple.
ORDER_COLOURS = {
    "orig": ("#7f7f7f", "#c7c7c7"),
    "full": ("#1f77b4", "#aec7e8"),
    "part": ("#ff7f0e", "#ffbb78"),
    "head": ("#2ca02c", "#98df8a"),
}
LEMMA_COLOUR = "#9467bd"


def _undefined_without_orig(otherwise: str) -> Callable[[pd.Series, str], str]:
    """Why an effect has no value for a language: S and I are undefined at A_Orig = 0 (the
    effects table's ``A_orig``); else ``otherwise``."""

    def why(row: pd.Series, column: str) -> str:
        if "A_orig" in row and row["A_orig"] == 0:
            return "A_Orig = 0, so S and I are undefined"
        return otherwise

    return why


def condition_colour(order: str, lemma: bool = False) -> str | None:
    """The colour of a condition; None (matplotlib's cycle) for an order without one."""
    shades = ORDER_COLOURS.get(order)
    return shades[lemma] if shades else None


def sensitivity_labels(conditions: Conditions) -> dict[str, str]:
    """``S_<order>`` → its scramble's label (``S_full`` → ``Full``), then ``S_L`` → ``+L``."""
    return {f"S_{o}": conditions.find(o).label for o in conditions.scrambles} | {"S_L": "+L"}


def interaction_labels(conditions: Conditions) -> dict[str, str]:
    """``I_<order>`` → its scramble's label × L (``I_full`` → ``Full × L``)."""
    return {f"I_{o}": f"{conditions.find(o).label} × L" for o in conditions.scrambles}


def plot_accuracy(
    accuracy: pd.DataFrame,
    path: str | Path,
    metric: str = "word_at_1",
    conditions: Conditions = DEFAULT_CONDITIONS,
) -> Figure:
    """Figure 1: accuracy per condition and language with the table's 95 % intervals."""
    present = set(accuracy["condition"])
    columns = [metric, f"{metric}_lo", f"{metric}_hi"]
    wide = accuracy.pivot(index=["model_name", "lang"], columns="condition", values=columns)
    wide.columns = [c if m == metric else f"{c}{m.removeprefix(metric)}" for m, c in wide.columns]
    wide = wide.reset_index()
    keys = ["model_name", "lang"]
    counts = accuracy.groupby(keys)["N"].agg(count_label).rename("N").reset_index()
    wide = wide.merge(counts, on=keys).assign(interval=accuracy["interval"].iloc[0])
    label = "top-1" if metric == "word_at_1" else "top-5"
    return grouped_bars(
        wide,
        {c: text for c, text in conditions.labels.items() if c in present},
        path,
        title=f"Word-level {label} accuracy of the masked target word",
        ylabel="accuracy",
        colours={c.released: condition_colour(c.order, c.lemma) for c in conditions.all},
        missing="no items of this condition for the language",
        lowest=0.0,
    )


def plot_effects(
    effects: pd.DataFrame,
    path: str | Path,
    conditions: Conditions = DEFAULT_CONDITIONS,
    *,
    figure: str,
) -> Figure:
    """Figures 2–4 by ``figure``: ``sensitivity`` (relative drops S), ``interaction`` (I in
    accuracy space, one per scramble) or ``head_vs_part`` (Δ = A_Part − A_Head, > 0: Head
    harms more), each with bootstrap 95 % intervals."""
    scrambles = conditions.scrambles
    if figure == "sensitivity":
        series = sensitivity_labels(conditions)
        colours = {f"S_{o}": condition_colour(o) for o in scrambles} | {"S_L": LEMMA_COLOUR}
        title, ylabel = "Sensitivity S = (A_Orig − A_X) / A_Orig", "S"
        missing = _undefined_without_orig("condition not scored for the language")
        floor = -1.0
    elif figure == "interaction":
        series = interaction_labels(conditions)
        colours = {f"I_{o}": condition_colour(o) for o in scrambles}
        title, ylabel = "Interaction I = A_X+L − (A_X + A_Orig+L − A_Orig)", "I"
        missing = _undefined_without_orig("X or X+L not scored for the language")
        floor = None
    elif figure == "head_vs_part":
        part, head = (conditions.find(order).label for order in ("part", "head"))
        series = {"part_minus_head": f"{part} − {head}"}
        colours = {"part_minus_head": condition_colour("head")}
        title, ylabel = (
            f"{head} vs {part}: Δ accuracy = {part} − {head} (> 0: {head} harms more)",
            "Δ accuracy",
        )
        missing = f"{part} or {head} not scored for the language"
        floor = None
    else:
        raise ValueError(f"no effect figure {figure!r}")
    return grouped_bars(effects, series, path, title=title, ylabel=ylabel, colours=colours,
                        missing=missing, floor=floor)  # fmt: skip
