"""The per-item result schema of the released LREC 2026 code: one row per (item,
condition). The released files name conditions in long form
(``FullyScrambled+Lemma``); our dataset splits use short names (``full_lemma``). A build's
``build.json`` says which is which (its ``conditions`` table), so evaluation follows the
dataset instead of a fixed list. Items carry no sentence id in the released files; ours add
``sent_id`` and ``seed`` so that conditions can be aligned sentence by sentence.
"""

from __future__ import annotations

import io
import json
from pathlib import Path

import numpy as np
import pandas as pd

from ....data.conditions import DEFAULT_CONDITIONS, Conditions
from ....errors import InputError
from ....files import READ_ERRORS, open_decompressed

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
