"""Minimal pairs: does the model prefer the grammatical sentence?

Masked LMs compare the two forms of the varied word(s) in the same context: every piece of
the varied span is masked, then the pieces are scored left to right, each with the later
pieces of the span still masked (so a multi-piece form is not penalised against a
single-piece one for seeing its own continuation). Causal LMs compare summed sentence
log-probabilities under an explicit BOS policy. Exact ties are reported apart, never counted
as correct. Optional variants capitalise the first word and add a final period (CLAMS
appendix B).

Any minimal-pair dataset is read through ``pair_columns`` (the columns of the two sentences,
of the phenomenon and of the language): BLiMP's ``sentence_good``/``sentence_bad`` with
``UID``, MultiBLiMP's ``sen``/``wrong_sen`` with ``phenomenon`` and ``lang``. Such data names no
varied words, so a masked LM compares the two sentences' pseudo-log-likelihoods (PPPL-l2r).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from ...data.minimal_pairs import PAIR_COLUMNS as COLUMNS
from ...errors import InputError
from ...files import atomic_path
from ...lm.encodings import masked_pieces
from ...lm.models import device_for, load_lm
from ...lm.windows import masked_window, special_ends
from ...registry import TASKS
from ...settings import setting
from ..measures.sentence_scores import (
    KindSettings,
    causal_log_likelihoods,
    pseudo_log_likelihoods,
)
from ..reporting.figures import count_label, grouped_bars
from ..reporting.statistics import WILSON, stratified_mean_interval, wilson_interval
from ..reporting.tables import write_table
from ..running.runner import records
from ..running.task import EvaluationTask, Outputs, Scored

# The parts of a pair a dataset of other column names maps with ``pair_columns``, and the
# columns of the datasets built here (the language: the first part of each pair id).
PAIR_ROLES = {"good": "sentence_good", "bad": "sentence_bad", "phenomenon": "construction",
              "language": None}  # fmt: skip
UNDETERMINED = "und"  # ISO 639-2: the language of pairs whose dataset names none
UNNAMED = "(none)"  # the phenomenon of a pair whose row names none


@dataclass(frozen=True, kw_only=True)
class MinimalPairSettings(KindSettings):
    capitalize: bool = setting("Capitalise the first word.", default=False)
    final_period: bool = setting("End every sentence with a period.", default=False)
    pair_columns: tuple[str, ...] = setting(
        "Data of other column names, as ROLE=COLUMN for the roles good, bad, phenomenon and "
        "language (BLiMP: phenomenon=UID; MultiBLiMP: good=sen,bad=wrong_sen,"
        "phenomenon=phenomenon,language=lang). Masked LMs then compare whole sentences.",
        default=(),
    )

    def __post_init__(self):
        super().__post_init__()
        _ = self.columns  # refuses a malformed mapping here, not in a worker

    @property
    def columns(self) -> dict[str, str | None]:
        """The column of each role: the given ones over the defaults."""
        given = {}
        for item in self.pair_columns:
            role, _, column = item.partition("=")
            if role not in PAIR_ROLES or not column:
                raise InputError(
                    f"--pair-columns {item!r}: give ROLE=COLUMN, ROLE one of "
                    f"{', '.join(PAIR_ROLES)}"
                )
            given[role] = column
        return PAIR_ROLES | given

    @property
    def mapped(self) -> bool:
        """Whether the data is of other column names (no varied words, no pair ids)."""
        return bool(self.pair_columns)

    def read_columns(self) -> tuple[str, ...]:
        if not self.mapped:
            return COLUMNS
        return tuple(c for c in self.columns.values() if c is not None)


def variant(sentence: str, settings: MinimalPairSettings) -> list[str]:
    """The sentence's words, capitalised and with a final period if asked."""
    words = sentence.split(" ")
    if settings.capitalize:
        words[0] = words[0][:1].upper() + words[0][1:]
    if settings.final_period and words[-1] != ".":
        words.append(".")
    return words


def span_rows(tokenizer, words: list[str], positions: list[int], limit: int, long_inputs: str):
    """Rows scoring the pieces of the words at ``positions`` left to right, the whole span
    masked ahead of each piece, each row cut to the model's ``limit`` around the span; the
    span's piece count; why the span cannot be scored, or None; and whether it was cut."""
    ids, word_ids = masked_pieces(tokenizer, words)
    span = [k for k, w in enumerate(word_ids) if w is not None and w in set(positions)]
    windowed = len(ids) > limit
    if windowed and long_inputs == "exclude":
        return [], len(span), LONGER_THAN_CONTEXT, False
    ends = special_ends(word_ids)
    rows = []
    for i, k in enumerate(span):
        row = list(ids)
        for later in span[i:]:
            row[later] = tokenizer.mask_token_id
        window = masked_window(row, span, limit, ends)
        if window is None:
            return [], len(span), "span_wider_than_context", False
        cut, shift = window
        rows.append((cut, k - shift, ids[k]))
    return rows, len(span), None, windowed


def _masked_scores(batcher, sentences, spans, long_inputs):
    lm = batcher.lm
    rows, positions, golds, owners, sizes, problems, windowed = [], [], [], [], [], [], []
    for s, (words, positions_of_form) in enumerate(zip(sentences, spans, strict=True)):
        pieces, size, problem, cut = span_rows(
            lm.tokenizer, words, positions_of_form, lm.max_length, long_inputs
        )
        sizes.append(size)
        problems.append(problem)
        windowed.append(cut)
        for row, position, gold in pieces:
            rows.append(row)
            positions.append(position)
            golds.append(gold)
            owners.append(s)
    totals = [0.0] * len(sentences)
    for s, value in zip(owners, batcher.gold_log_probs(rows, positions, golds), strict=True):
        totals[s] += value
    return totals, sizes, problems, windowed


# Why a pair was not scored (``unscored``); such pairs are never in N.
LONGER_THAN_CONTEXT = "longer_than_context"


def score_pairs(batch, rank=None, *, model: str, revision, device: str, settings: dict):
    """`datasets.map` function over minimal-pair rows (clams and ud_agreement datasets)."""
    options = MinimalPairSettings(**settings)
    lm = load_lm(options.kind, model, device_for(device, rank), options.loading(), revision)
    batcher = options.batcher(lm)
    columns = options.columns
    good = [variant(s, options) for s in batch[columns["good"]]]
    bad = [variant(s, options) for s in batch[columns["bad"]]]
    if options.kind == "causal" or options.mapped:
        if options.kind == "causal":
            scores = causal_log_likelihoods(batcher, good + bad, options.bos, options.long_inputs)
        else:  # no varied words named: whole sentences
            scores = pseudo_log_likelihoods(batcher, good + bad, long_inputs=options.long_inputs)
        totals = [sum(s.log_probs) for s in scores]
        sizes = [len(s.log_probs) for s in scores]
        problems = [LONGER_THAN_CONTEXT if s.too_long else None for s in scores]
        windowed = [s.windowed for s in scores]
    else:
        spans = list(batch["good_positions"]) + list(batch["bad_positions"])
        totals, sizes, problems, windowed = _masked_scores(
            batcher, good + bad, spans, options.long_inputs
        )
    n = len(good)
    unscored = [g or b or "" for g, b in zip(problems[:n], problems[n:], strict=True)]
    outcome = [
        "unscored" if why else ("tie" if g == b else ("correct" if g > b else "incorrect"))
        for g, b, why in zip(totals[:n], totals[n:], unscored, strict=True)
    ]
    nan = float("nan")
    return {
        "good_score": [nan if why else t for t, why in zip(totals[:n], unscored, strict=True)],
        "bad_score": [nan if why else t for t, why in zip(totals[n:], unscored, strict=True)],
        "good_pieces": sizes[:n],
        "bad_pieces": sizes[n:],
        "outcome": outcome,
        "unscored": unscored,
        "windowed": [g or b for g, b in zip(windowed[:n], windowed[n:], strict=True)],
    }


def pair_accuracy(scored: pd.DataFrame, model_name: str) -> pd.DataFrame:
    """Accuracy per language and construction (the ``lang`` and ``construction`` columns of
    `grouped` pairs) with Wilson intervals (N: the pairs scored), ties apart, pairs left
    unscored counted beside N; for the datasets built here, which name the varied words, the
    single-token subset and the share of distinct varied forms that are one piece."""
    varied = "good_form" in scored
    rows = []
    for (lang, construction), everything in scored.groupby(["lang", "construction"], sort=True):
        group = everything[everything["outcome"] != "unscored"]
        n = len(group)
        correct = int((group["outcome"] == "correct").sum())
        single = group[(group["good_pieces"] == 1) & (group["bad_pieces"] == 1)] if varied else []
        forms = (
            pd.concat(
                [
                    group[["good_form", "good_pieces"]].set_axis(["form", "pieces"], axis=1),
                    group[["bad_form", "bad_pieces"]].set_axis(["form", "pieces"], axis=1),
                ]
            ).drop_duplicates("form")
            if varied
            else []
        )
        accuracy = correct / n if n else float("nan")
        lo, hi = wilson_interval(accuracy, n)
        rows.append(
            {
                "model_name": model_name,
                "lang": lang,
                "construction": construction,
                "accuracy": accuracy,
                "accuracy_lo": float(lo),
                "accuracy_hi": float(hi),
                "interval": WILSON,
                "N": n,
                "correct": correct,
                "incorrect": int((group["outcome"] == "incorrect").sum()),
                "ties": int((group["outcome"] == "tie").sum()),
                "unscored": len(everything) - n,
                "windowed": int(group["windowed"].sum()),
                "single_token_accuracy": (
                    float((single["outcome"] == "correct").mean()) if len(single) else float("nan")
                ),
                "single_token_N": len(single),
                "single_piece_forms": (
                    float((forms["pieces"] == 1).mean()) if len(forms) else float("nan")
                ),
            }
        )
    return pd.DataFrame(rows)


def grouped(scored: pd.DataFrame, settings: MinimalPairSettings) -> pd.DataFrame:
    """The pairs with the ``lang`` and ``construction`` they are reported by: the columns
    ``pair_columns`` names, or, in the datasets built here, the first part of every pair id
    (``en/…``) and the construction; ``und`` where the data names no language."""
    columns = settings.columns
    if not settings.mapped:
        language = scored["pair_id"].str.split("/").str[0]
    elif columns["language"] is not None:
        language = scored[columns["language"]].fillna(UNDETERMINED).astype(str)
    else:
        language = UNDETERMINED
    phenomenon = scored[columns["phenomenon"]].fillna(UNNAMED).astype(str)
    return scored.assign(lang=language, construction=phenomenon)


def language_accuracy(scored: pd.DataFrame, model_name: str) -> pd.DataFrame:
    """Per language, as MultiBLiMP reports it: the mean of its constructions' accuracies
    (each construction weighs the same; stratified bootstrap over pairs) and the accuracy of
    all its pairs together (Wilson), over the pairs scored (`grouped` pairs)."""
    rows = []
    for lang, everything in scored.groupby("lang", sort=True):
        group = everything[everything["outcome"] != "unscored"]
        hits = [
            (pairs["outcome"] == "correct").to_numpy(dtype=float)
            for _, pairs in group.groupby("construction", sort=True)
        ]
        nothing = (float("nan"),) * 3 + ("",)
        macro, macro_lo, macro_hi, macro_interval = (
            stratified_mean_interval(hits) if hits else nothing
        )
        n, correct = len(group), int((group["outcome"] == "correct").sum())
        accuracy = correct / n if n else float("nan")
        lo, hi = wilson_interval(accuracy, n)
        rows.append(
            {
                "model_name": model_name,
                "lang": lang,
                "constructions": len(hits),
                "macro_accuracy": macro,
                "macro_accuracy_lo": macro_lo,
                "macro_accuracy_hi": macro_hi,
                "macro_accuracy_interval": macro_interval,
                "accuracy": accuracy,
                "accuracy_lo": float(lo),
                "accuracy_hi": float(hi),
                "interval": WILSON,
                "N": n,
                "unscored": len(everything) - n,
            }
        )
    return pd.DataFrame(rows)


def accuracy_figure(table: pd.DataFrame, path: Path) -> None:
    """Accuracy per language and construction, a bar per construction with its interval."""
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
        flat.assign(interval=table["interval"].iloc[0]), constructions, path,
        title="Minimal-pair accuracy: pairs whose grammatical sentence scores higher",
        ylabel="accuracy", chance=0.5, lowest=0.0,
        missing="no pair of this construction scored in the language: none in the dataset (its "
        "card says why) or every one unscored (accuracy.csv counts them)",
    )  # fmt: skip


@TASKS.register("minimal_pair.v1")
class MinimalPair(EvaluationTask):
    """Does the model prefer the grammatical sentence of each pair (minimal-pair datasets)?"""

    name = "minimal-pair"
    version = "1.1.0"
    settings_class = MinimalPairSettings
    score = staticmethod(score_pairs)
    read_columns = COLUMNS
    key_columns = ("construction",)

    @classmethod
    def columns(cls, settings: MinimalPairSettings) -> tuple[str, ...]:
        return settings.read_columns()

    @classmethod
    def outputs(cls, scored: Scored) -> Outputs:
        """The scored pairs, accuracy per language and construction, and a figure."""
        run, model = scored.folder, scored.model
        pairs = grouped(scored.rows, scored.settings)
        with atomic_path(run / "pairs.parquet") as tmp:
            pairs.to_parquet(tmp, index=False)
        table = pair_accuracy(pairs, model)
        write_table(table, run / "accuracy.csv", markdown=True)
        languages = language_accuracy(pairs, model)
        write_table(languages, run / "accuracy_by_language.csv", markdown=True)
        accuracy_figure(table, run / "accuracy.png")
        unscored = pairs.loc[pairs["outcome"] == "unscored", "unscored"].value_counts()
        metrics = {"accuracy": records(table), "accuracy_by_language": records(languages)}
        headline = languages[["lang", "macro_accuracy", "macro_accuracy_lo",
                              "macro_accuracy_hi", "accuracy", "N", "unscored"]]  # fmt: skip
        counts = {
            "pairs": len(pairs),
            "outcomes": pairs["outcome"].value_counts().to_dict(),
            "unscored": unscored.to_dict(),
            "windowed": int(pairs["windowed"].sum()),
        }
        return Outputs(metrics, headline, counts)
