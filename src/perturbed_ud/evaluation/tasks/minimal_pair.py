"""Minimal pairs: does the model prefer the grammatical sentence?

Masked LMs compare the two forms of the varied word(s) in the same context: every piece of
the varied span is masked, then the pieces are scored left to right, each with the later
pieces of the span still masked (so a multi-piece form is not penalised against a
single-piece one for seeing its own continuation). Causal LMs compare summed sentence
log-probabilities under an explicit BOS policy. Exact ties are reported apart, never counted
as correct. Optional variants capitalise the first word and add a final period (CLAMS
appendix B).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from ...data.minimal_pairs import PAIR_COLUMNS as COLUMNS
from ...files import atomic_path
from ...lm.encodings import masked_pieces
from ...lm.models import device_for, load_lm
from ...registry import TASKS
from ...settings import setting
from ..measures.sentence_scores import KindSettings, causal_log_likelihoods
from ..reporting.figures import count_label, grouped_bars
from ..reporting.statistics import WILSON, wilson_interval
from ..reporting.summary import write_table
from ..running.runner import Task, evaluation, finish, records, run_task
from ..running.task import EvaluationTask


@dataclass(frozen=True, kw_only=True)
class MinimalPairSettings(KindSettings):
    capitalize: bool = setting("Capitalise the first word.", default=False)
    final_period: bool = setting("End every sentence with a period.", default=False)


def variant(sentence: str, settings: MinimalPairSettings) -> list[str]:
    """The sentence's words, capitalised and with a final period if asked."""
    words = sentence.split(" ")
    if settings.capitalize:
        words[0] = words[0][:1].upper() + words[0][1:]
    if settings.final_period and words[-1] != ".":
        words.append(".")
    return words


def span_rows(tokenizer, words: list[str], positions: list[int]):
    """Rows scoring the pieces of the words at ``positions`` left to right, the whole span
    masked ahead of each piece; and the span's piece count."""
    ids, word_ids = masked_pieces(tokenizer, words)
    span = [k for k, w in enumerate(word_ids) if w is not None and w in set(positions)]
    rows = []
    for i, k in enumerate(span):
        row = list(ids)
        for later in span[i:]:
            row[later] = tokenizer.mask_token_id
        rows.append((row, k, ids[k]))
    return rows, len(span)


def _masked_scores(batcher, sentences, spans) -> tuple[list[float], list[int]]:
    tokenizer = batcher.lm.tokenizer
    rows, positions, golds, owners, sizes = [], [], [], [], []
    for s, (words, positions_of_form) in enumerate(zip(sentences, spans, strict=True)):
        pieces, size = span_rows(tokenizer, words, positions_of_form)
        sizes.append(size)
        for row, position, gold in pieces:
            rows.append(row)
            positions.append(position)
            golds.append(gold)
            owners.append(s)
    totals = [0.0] * len(sentences)
    for s, value in zip(owners, batcher.gold_log_probs(rows, positions, golds), strict=True):
        totals[s] += value
    return totals, sizes


def score_pairs(batch, rank=None, *, model: str, revision, device: str, settings: dict):
    """`datasets.map` function over minimal-pair rows (clams dataset)."""
    options = MinimalPairSettings(**settings)
    lm = load_lm(options.kind, model, device_for(device, rank), options.dtype, revision)
    batcher = options.batcher(lm)
    good = [variant(s, options) for s in batch["sentence_good"]]
    bad = [variant(s, options) for s in batch["sentence_bad"]]
    if options.kind == "causal":
        scores = causal_log_likelihoods(batcher, good + bad, options.bos)
        totals = [sum(s.log_probs) for s in scores]
        good_scores, bad_scores = totals[: len(good)], totals[len(good) :]
        good_pieces = [len(s.log_probs) for s in scores[: len(good)]]
        bad_pieces = [len(s.log_probs) for s in scores[len(good) :]]
    else:
        spans = list(batch["good_positions"]) + list(batch["bad_positions"])
        totals, sizes = _masked_scores(batcher, good + bad, spans)
        good_scores, bad_scores = totals[: len(good)], totals[len(good) :]
        good_pieces, bad_pieces = sizes[: len(good)], sizes[len(good) :]
    outcome = [
        "tie" if g == b else ("correct" if g > b else "incorrect")
        for g, b in zip(good_scores, bad_scores, strict=True)
    ]
    return {
        "good_score": good_scores,
        "bad_score": bad_scores,
        "good_pieces": good_pieces,
        "bad_pieces": bad_pieces,
        "outcome": outcome,
    }


def pair_accuracy(scored: pd.DataFrame, model_name: str) -> pd.DataFrame:
    """Accuracy per language and construction with Wilson intervals (true N), ties apart,
    the single-token subset, and the share of distinct varied forms that are one piece."""
    scored = scored.assign(lang=scored["pair_id"].str.split("/").str[0])
    rows = []
    for (lang, construction), group in scored.groupby(["lang", "construction"], sort=True):
        n = len(group)
        correct = int((group["outcome"] == "correct").sum())
        single = group[(group["good_pieces"] == 1) & (group["bad_pieces"] == 1)]
        forms = pd.concat(
            [
                group[["good_form", "good_pieces"]].set_axis(["form", "pieces"], axis=1),
                group[["bad_form", "bad_pieces"]].set_axis(["form", "pieces"], axis=1),
            ]
        ).drop_duplicates("form")
        lo, hi = wilson_interval(correct / n, n)
        rows.append(
            {
                "model_name": model_name,
                "lang": lang,
                "construction": construction,
                "accuracy": correct / n,
                "accuracy_lo": float(lo),
                "accuracy_hi": float(hi),
                "interval": WILSON,
                "N": n,
                "correct": correct,
                "incorrect": int((group["outcome"] == "incorrect").sum()),
                "ties": int((group["outcome"] == "tie").sum()),
                "single_token_accuracy": (
                    float((single["outcome"] == "correct").mean()) if len(single) else float("nan")
                ),
                "single_token_N": len(single),
                "single_piece_forms": float((forms["pieces"] == 1).mean()),
            }
        )
    return pd.DataFrame(rows)


@evaluation("minimal-pair", MinimalPairSettings)
def evaluate_minimal_pairs(
    dataset: str,
    model: str,
    out: str | Path,
    *,
    settings: MinimalPairSettings | None = None,
    **options,
) -> Path:
    """Does the model prefer each pair's grammatical sentence? Write the scored pairs,
    accuracy per language and construction, and a figure; return the run folder.

    ``options`` as for `evaluate_masked_word`; ``settings.kind`` None: the model's own kind."""

    task = Task("minimal-pair", score_pairs, settings or MinimalPairSettings(), columns=COLUMNS)
    run, scored, header = run_task(task, dataset, model, out, **options)
    if scored is None:  # another rank of a multi-process launch writes the outputs
        return run
    with atomic_path(run / "pairs.parquet") as tmp:
        scored.to_parquet(tmp, index=False)
    table = pair_accuracy(scored, model)
    write_table(table, run / "accuracy.csv", markdown=True)
    wide = table.pivot(index=["model_name", "lang"], columns="construction")
    flat = pd.DataFrame(
        {
            (name if stat == "accuracy" else f"{name}_{stat.split('_')[-1]}"): wide[(stat, name)]
            for stat in ("accuracy", "accuracy_lo", "accuracy_hi")
            for name in table["construction"].unique()
        }
    ).reset_index()
    counts = table.groupby(["model_name", "lang"])["N"].agg(count_label).rename("N")
    flat = flat.merge(counts.reset_index(), on=["model_name", "lang"])
    constructions = {name: name for name in sorted(table["construction"].unique())}
    grouped_bars(
        flat.assign(interval=table["interval"].iloc[0]), constructions, run / "accuracy.png",
        title="Minimal-pair accuracy: pairs whose grammatical sentence scores higher",
        ylabel="accuracy", chance=0.5, lowest=0.0,
    )  # fmt: skip
    outcomes = scored["outcome"].value_counts().to_dict()
    finish(run, header, {"accuracy": records(table)}, pairs=len(scored), outcomes=outcomes)
    return run


@TASKS.register("minimal_pair.v1")
class MinimalPair(EvaluationTask):
    """Does the model prefer the grammatical sentence of each pair (clams datasets)?"""

    name = "minimal-pair"
    settings_class = MinimalPairSettings
    evaluate = staticmethod(evaluate_minimal_pairs)
    read_columns = COLUMNS
