"""The per-item result schema of the released LREC 2026 code, and a dataset's conditions.

One row per (item, condition). The released files name conditions in long form
(``FullyScrambled+Lemma``); our dataset splits use short names (``full_lemma``). A build's
``build.json`` says which is which (its ``conditions`` table), so evaluation follows the
dataset instead of a fixed list. Items carry no sentence id in the released files; ours add
``sent_id`` and ``seed`` so that conditions can be aligned sentence by sentence.
"""

from __future__ import annotations

import io
import json
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from ...data.conditions import SCRAMBLES, conditions_table
from ...errors import InputError
from ...files import READ_ERRORS, open_decompressed
from ...manifest import read_manifest


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


ITEM_COLUMNS = (
    "model_name",
    "lang",
    "condition",
    "words",
    "target_index",
    "target_token",
    "word_level_match",
    "gold_word",
    "gold_num_pieces",
    "reconstructed_prediction",
    "top_k_predictions",
)


def check_items(items: pd.DataFrame, conditions: Conditions = DEFAULT_CONDITIONS) -> pd.DataFrame:
    """Refuse a table that lacks an item column or names a condition outside ``conditions``."""
    missing = [c for c in ITEM_COLUMNS if c not in items.columns]
    if missing:
        raise InputError(f"item table lacks columns {missing}")
    unknown = sorted(set(items["condition"]) - set(conditions.labels))
    if unknown:
        names = sorted(conditions.labels)
        raise InputError(f"unknown conditions {unknown}; items name conditions as {names}")
    match = items["word_level_match"]
    if not pd.api.types.is_bool_dtype(match):  # JSON true/false, or 0/1: a string is truthy
        kept = match.map(lambda v: isinstance(v, (int, np.integer, np.bool_)) and v in (0, 1))
        bad = match[~kept]
        if len(bad):
            raise InputError(f"word_level_match must be true or false, not {bad.iloc[0]!r}")
    return items


def read_items(path: str | Path, conditions: Conditions = DEFAULT_CONDITIONS) -> pd.DataFrame:
    """Per-item results from ``.jsonl``, ``.jsonl.gz`` or ``.parquet``, rows in file order.

    JSON lines are parsed with :mod:`json` rather than ``pandas.read_json`` so that strings
    such as a gold word ``"1"`` or ``"NaN"`` stay strings.
    """
    path = Path(path)
    name = path.name
    if not name.endswith((".parquet", ".jsonl", ".jsonl.gz", ".jsonl.xz")):
        raise InputError(f"{path}: expected a .jsonl, .jsonl.gz, .jsonl.xz or .parquet file")
    try:
        if name.endswith(".parquet"):
            items = pd.read_parquet(path)
        else:
            with io.TextIOWrapper(open_decompressed(path), encoding="utf-8") as f:
                items = pd.DataFrame.from_records([json.loads(line) for line in f if line.strip()])
    except (*READ_ERRORS, ValueError, RecursionError) as err:  # unreadable, not JSON or Parquet
        raise InputError(f"{path}: cannot read: {err}") from err
    try:
        return check_items(items, conditions)
    except InputError as err:  # e.g. a file cut to nothing: say which
        raise InputError(f"{path}: {err}") from None
