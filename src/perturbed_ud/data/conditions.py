"""The word-order conditions of a perturbed-ud dataset: what each split is. The family writes
this table into build.json; evaluation reads it from there (`dataset_conditions`), so both
name the conditions alike."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

from ..errors import InputError
from ..manifest import read_manifest

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


@dataclass(frozen=True)
class Condition:
    """One split: the word order it applies, whether its words are lemmas, its name in the
    released item files and its figure label."""

    split: str
    order: str
    lemma: bool
    released: str
    label: str


@dataclass(frozen=True)
class Conditions:
    """A dataset's conditions in the paper's column order: Orig, the scrambles, then the same
    with lemmas (+L)."""

    all: tuple[Condition, ...]

    @classmethod
    def from_table(cls, table: Mapping[str, Mapping]) -> Conditions:
        """From a ``conditions`` table (split → order, lemma, released, label) of build.json."""
        try:
            conditions = [Condition(split, **entry) for split, entry in table.items()]
        except (AttributeError, TypeError) as err:  # not a table, or a field missing or unknown
            raise InputError(f"malformed conditions table: {err}") from None
        if len({c.released for c in conditions}) < len(conditions):
            raise InputError("conditions table gives two splits one released name")
        return cls(tuple(sorted(conditions, key=lambda c: (c.lemma, c.order != "orig"))))

    @property
    def labels(self) -> dict[str, str]:
        """Released name → figure label, in the paper's column order."""
        return {c.released: c.label for c in self.all}

    @property
    def scrambles(self) -> tuple[str, ...]:
        """The word orders other than the original, in table order."""
        return tuple(c.order for c in self.all if c.order != "orig" and not c.lemma)

    def find(self, order: str, lemma: bool = False) -> Condition | None:
        """The condition of a word order, with or without lemmas; None if the table lacks it."""
        return next((c for c in self.all if (c.order, c.lemma) == (order, lemma)), None)

    def released_name(self, split: str) -> str:
        """The released name of a dataset split (``full_lemma`` → ``FullyScrambled+Lemma``)."""
        for c in self.all:
            if c.split == split:
                return c.released
        raise InputError(f"unknown split {split!r}; expected one of {[c.split for c in self.all]}")


#: The word-order table of a full build; used where no build.json says otherwise (a Hub
#: dataset, released item files).
DEFAULT_CONDITIONS = Conditions.from_table(conditions_table(SCRAMBLES))


def dataset_conditions(dataset: str | Path) -> Conditions:
    """The conditions a dataset folder's build.json declares, else the default table."""
    path = Path(dataset) / "build.json"
    if not path.is_file():
        return DEFAULT_CONDITIONS
    table = read_manifest(path).get("conditions")
    return DEFAULT_CONDITIONS if table is None else Conditions.from_table(table)
