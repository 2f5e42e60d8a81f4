"""The word-order conditions of a perturbed-ud dataset: what each split is. The family writes
this table into build.json; evaluation reads it from there (`running.schema`), so both name
the conditions alike."""

from __future__ import annotations

from collections.abc import Iterable

SCRAMBLES = ("full", "part", "head")
# Each scramble's name in the released per-item files and in the paper's figures.
RELEASED = {"orig": ("Original", "Orig"), "full": ("FullyScrambled", "Full"),
            "part": ("PartiallyScrambled", "Part"), "head": ("HeadScrambled", "Head")}  # fmt: skip


def conditions_table(scrambles: Iterable[str]) -> dict[str, dict]:
    """Split → what its condition is: the word order it applies, whether words are lemmas,
    its released item name and its figure label."""
    table = {}
    for lemma in (False, True):
        for order in ("orig", *scrambles):
            released, label = RELEASED[order]
            table[f"{order}_lemma" if lemma else order] = {
                "order": order,
                "lemma": lemma,
                "released": f"{released}+Lemma" if lemma else released,
                "label": f"{label}+L" if lemma else label,
            }
    return table
