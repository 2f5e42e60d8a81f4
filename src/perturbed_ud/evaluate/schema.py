"""The per-item result schema of the released LREC 2026 code, and our names for its conditions.

One row per (item, condition). The released files name conditions in long form
(``FullyScrambled+Lemma``); our dataset splits use short names (``full_lemma``). Items carry
no sentence id in the released files; ours add ``sent_id`` and ``seed`` so that conditions
can be aligned sentence by sentence.
"""

from __future__ import annotations

import io
import json
from pathlib import Path

import pandas as pd

from ..errors import InputError
from ..files import READ_ERRORS, open_decompressed

#: Dataset split name → released condition name. ``head_lemma`` has no released counterpart.
CONDITIONS: dict[str, str] = {
    "orig": "Original",
    "orig_lemma": "Original+Lemma",
    "full": "FullyScrambled",
    "full_lemma": "FullyScrambled+Lemma",
    "head": "HeadScrambled",
    "head_lemma": "HeadScrambled+Lemma",
    "part": "PartiallyScrambled",
    "part_lemma": "PartiallyScrambled+Lemma",
}
SPLITS: dict[str, str] = {long: split for split, long in CONDITIONS.items()}

#: Column labels of the paper's tables and figures, in the paper's column order.
PAPER_LABELS: dict[str, str] = {
    "Original": "Orig",
    "FullyScrambled": "Full",
    "PartiallyScrambled": "Part",
    "HeadScrambled": "Head",
    "Original+Lemma": "Orig+L",
    "FullyScrambled+Lemma": "Full+L",
    "PartiallyScrambled+Lemma": "Part+L",
    "HeadScrambled+Lemma": "Head+L",
}

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


def condition_name(split: str) -> str:
    """The released name of a dataset split (``full_lemma`` → ``FullyScrambled+Lemma``)."""
    try:
        return CONDITIONS[split]
    except KeyError:
        raise InputError(f"unknown split {split!r}; expected one of {sorted(CONDITIONS)}") from None


def check_items(items: pd.DataFrame) -> pd.DataFrame:
    """Refuse a table that lacks an item column or names a condition outside the schema."""
    missing = [c for c in ITEM_COLUMNS if c not in items.columns]
    if missing:
        raise InputError(f"item table lacks columns {missing}")
    unknown = sorted(set(items["condition"]) - set(SPLITS))
    if unknown:
        raise InputError(f"unknown conditions {unknown}; items name conditions as {sorted(SPLITS)}")
    return items


def read_items(path: str | Path) -> pd.DataFrame:
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
    except (*READ_ERRORS, ValueError) as err:  # unreadable, damaged, not JSON or Parquet
        raise InputError(f"{path}: cannot read: {err}") from err
    return check_items(items)
