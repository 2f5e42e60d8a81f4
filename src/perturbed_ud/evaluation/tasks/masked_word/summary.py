"""Per-condition summaries in the released layout, balanced and unbalanced.

Scores follow the released code exactly: ``word_at_1`` is the mean of ``word_level_match``;
``word_at_5`` asks whether the gold, lowercased, equals one of the first five predictions,
stripped and lowercased; ``pred_punct_rate`` and ``pred_stop_rate`` count top-1 predictions in
the released punctuation set (exact match) and stoplist (after ``str.lower``) of the language
code before ``_``. A language without released lists gets NaN rates.

Balancing makes conditions comparable within a (model, language):

- ``head``, the released rule: every condition is cut to its first ``n`` rows in file order,
  ``n`` the smallest condition count. Conditions may then cover different sentences.
- ``aligned``: only the items (``sent_id``, ``seed``) present in every condition are kept, so
  every condition covers the same sentences. ``auto`` picks it when items carry ``sent_id``.
"""

from __future__ import annotations

import math

import pandas as pd

from ....data.conditions import DEFAULT_CONDITIONS, Conditions
from ....errors import InputError
from ....lexicons import load_toml
from .items import check_items

SUMMARY_COLUMNS = [
    "model_name",
    "lang",
    "condition",
    "word_at_1",
    "word_at_5",
    "pred_punct_rate",
    "pred_stop_rate",
    "N",
]
GROUP = ["model_name", "lang", "condition"]
BALANCES = ("auto", "aligned", "head")


def item_key(items: pd.DataFrame) -> list[str]:
    """The columns that name one item across conditions: ``sent_id``, and ``seed`` if present."""
    return ["sent_id", "seed"] if "seed" in items.columns else ["sent_id"]


def resolve_balance(items: pd.DataFrame, balance: str) -> str:
    """``aligned`` or ``head``; ``auto`` aligns whenever items carry sentence ids."""
    if balance not in BALANCES:
        raise ValueError(f"balance must be one of {BALANCES}, not {balance!r}")
    if balance == "auto":
        return "aligned" if "sent_id" in items.columns else "head"
    if balance == "aligned" and "sent_id" not in items.columns:
        raise InputError("balance='aligned' needs a sent_id column; use balance='head'")
    return balance


def scored_items(items: pd.DataFrame, conditions: Conditions = DEFAULT_CONDITIONS) -> pd.DataFrame:
    """The rows that have a prediction: all of them, or those whose ``status`` is ``scored``.

    The released files hold surviving rows only; our items also record why a row could not
    be scored (``span_too_long`` …), and such rows are not part of any accuracy.
    """
    check_items(items, conditions)
    if "status" in items.columns:
        items = items[(items["status"] == "scored").to_numpy()]
    return items


def balance_items(items: pd.DataFrame, balance: str = "auto") -> pd.DataFrame:
    """The balanced subset of ``items``, rows kept in file order."""
    mode = resolve_balance(items, balance)
    model_lang = [items["model_name"], items["lang"]]
    if mode == "head":
        counts = items.groupby(GROUP, sort=False)["condition"].transform("size")
        smallest = counts.groupby(model_lang, sort=False).transform("min")
        position = items.groupby(GROUP, sort=False).cumcount()
        return items[(position < smallest).to_numpy()]
    key = item_key(items)
    if items[key].isna().any().any():
        raise InputError(f"balance='aligned' needs {key} on every row")
    if items.duplicated(GROUP + key).any():
        raise InputError(f"an item {key} appears twice in one condition; write each row once")
    wanted = items.groupby(model_lang, sort=False)["condition"].transform("nunique")
    present = items.groupby(["model_name", "lang", *key], sort=False)["condition"]
    return items[(present.transform("nunique") == wanted).to_numpy()]


def _word_at_5(items: pd.DataFrame):
    """Our runs store ``word_at_5`` under their own matching rule; released files get the
    released rule."""
    if "word_at_5" in items.columns:
        return items["word_at_5"].astype(bool).to_numpy()
    return [
        any(gold.lower() == t.strip().lower() for t in top_k[:5])
        for gold, top_k in zip(items["gold_word"], items["top_k_predictions"], strict=True)
    ]


def item_scores(items: pd.DataFrame) -> pd.DataFrame:
    filters = load_toml("lrec2026_target_filters.toml")
    codes = items["lang"].str.split("_").str[0]
    nan = math.nan
    lists = [filters.get(code) for code in codes]
    return pd.DataFrame(
        {
            **{column: items[column].to_numpy() for column in GROUP},
            "word_at_1": items["word_level_match"].astype(bool).to_numpy(),
            "word_at_5": _word_at_5(items),
            "pred_punct_rate": [
                nan if lex is None else float(p in lex["punct"])
                for p, lex in zip(items["reconstructed_prediction"], lists, strict=True)
            ],
            "pred_stop_rate": [
                nan if lex is None else float(p.lower() in lex["stop"])
                for p, lex in zip(items["reconstructed_prediction"], lists, strict=True)
            ],
        }
    )


def _aggregate(items: pd.DataFrame, run: dict) -> pd.DataFrame:
    table = (
        item_scores(items)
        .groupby(GROUP, sort=True)
        .agg(
            word_at_1=("word_at_1", "mean"),
            word_at_5=("word_at_5", "mean"),
            pred_punct_rate=("pred_punct_rate", "mean"),
            pred_stop_rate=("pred_stop_rate", "mean"),
            N=("word_at_1", "size"),
        )
    )
    return table.reset_index()[SUMMARY_COLUMNS].assign(**run)


def run_columns(items: pd.DataFrame, run_seed: int | None) -> dict:
    """``run_seed`` and ``run_model``, as in the released per-seed files, for a single run.

    A run is one model and one seed: the seed given, or the single value of a ``seed``
    column. Pooled tables (several models or seeds) get no run columns.
    """
    if run_seed is None and "seed" in items.columns and items["seed"].nunique() == 1:
        run_seed = int(items["seed"].iloc[0])
    models = items["model_name"].unique()
    if run_seed is None or len(models) != 1:
        return {}
    return {"run_seed": run_seed, "run_model": models[0]}


def summarize_items(
    items: pd.DataFrame,
    balance: str = "auto",
    *,
    run_seed: int | None = None,
    conditions: Conditions = DEFAULT_CONDITIONS,
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(balanced, unbalanced) summaries, one row per (model, language, condition), sorted."""
    items = scored_items(items, conditions)
    if items.empty:
        raise InputError("no scored items to summarize")
    run = run_columns(items, run_seed)
    return _aggregate(balance_items(items, balance), run), _aggregate(items, run)
