"""The ``score`` task: how surprising are perturbed sentences compared with their originals?

Every sentence of every split gets token, word and sentence log-probabilities (PPL for causal
LMs, PPPL or PPPL-l2r for masked LMs). In spud datasets, splits of one config are aligned by
``sent_id``, so each nonce sentence is compared with its own original: the nonce/orig ratio
per sentence, its quartiles, a Wilcoxon signed-rank test on the paired log-perplexities, and
box plots. In local_structure datasets (texts, split on whitespace into words), each setting
gets its perplexity, set against the chrF, IDC and compression of its texts.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pandas as pd

from ...errors import InputError
from ...files import atomic_path
from ...lm.batching import BatchSettings
from ...lm.encodings import WORD_GROUPINGS
from ...lm.models import device_for, load_lm
from ...lm.windows import long_inputs_setting
from ...registry import TASKS
from ...settings import setting
from ..measures.sentence_scores import (
    PLL_METRICS,
    bos_setting,
    causal_log_likelihoods,
    kind_setting,
    pseudo_log_likelihoods,
)
from ..measures.structure_measures import (
    CORRELATION_KEYS,
    SETTING_KEYS,
    setting_rows,
    write_comparison,
)
from ..reporting.figures import plot_nonce_ratios
from ..reporting.tables import write_table
from ..running.runner import records
from ..running.task import EvaluationTask, Outputs, Scored, with_config_and_split


@dataclass(frozen=True, kw_only=True)
class ScoreSettings(BatchSettings):
    kind: str | None = kind_setting()  # before metric: run signatures list fields in order
    metric: str = setting("Masked LMs: PPPL-l2r (within_word_l2r) or PPPL (original).",
                          default="within_word_l2r", choices=PLL_METRICS)  # fmt: skip
    bos: str = bos_setting()
    word_grouping: str = setting(
        "Masked LMs, PPPL-l2r: the pieces masked together are those of a UD word, or of a "
        "tokenizer word as minicons groups them.", default="ud", choices=WORD_GROUPINGS,
    )  # fmt: skip
    words_column: str = setting("The column of each row's words.", default="forms")
    long_inputs: str = long_inputs_setting()

    @property
    def measure(self) -> str:
        if self.kind == "causal":
            return "PPL"
        return "PPPL-l2r" if self.metric == "within_word_l2r" else "PPPL"


def score_sentences(batch, rank=None, *, model: str, revision, device: str, settings: dict):
    """`datasets.map` function: token, word and sentence scores of a batch of sentences."""
    options = ScoreSettings(**settings)
    lm = load_lm(options.kind, model, device_for(device, rank), options.loading(), revision)
    batcher = options.batcher(lm)
    column = options.words_column
    sentences = [sentence_words(words, column) for words in batch[column]]
    if options.kind == "causal":
        scores = causal_log_likelihoods(batcher, sentences, options.bos, options.long_inputs)
    else:
        scores = pseudo_log_likelihoods(
            batcher, sentences, options.metric, options.word_grouping, options.long_inputs
        )
    out = {"token_log_probs": [], "token_words": [], "word_log_probs": []}
    out |= {"log_prob": [], "n_tokens": [], "perplexity": [], "too_long": [], "windowed": []}
    for words, s in zip(sentences, scores, strict=True):
        total = sum(s.log_probs) if not s.too_long else float("nan")
        n = len(s.log_probs)
        out["token_log_probs"].append(s.log_probs)
        out["token_words"].append(s.words)
        out["word_log_probs"].append(s.word_totals(len(words)))
        out["log_prob"].append(total)
        out["n_tokens"].append(n)
        out["perplexity"].append(math.exp(-total / n) if n else float("nan"))
        out["too_long"].append(s.too_long)
        out["windowed"].append(s.windowed)
    return out


def sentence_words(words, column: str) -> list[str]:
    """A row's words: its text split on whitespace, or its list of words. Anything else (a
    label id, a score) is no sentence, and is refused naming the column."""
    if isinstance(words, str):
        return words.split()
    if isinstance(words, list) and all(isinstance(word, str) for word in words):
        return list(words)
    raise InputError(
        f"the words column {column!r} holds {type(words).__name__} values, not texts or lists "
        "of words: name the column of the sentences with --words-column"
    )


def nonce_ratios(scored: pd.DataFrame) -> pd.DataFrame:
    """One row per sentence present in both ``orig`` and ``nonce`` of a config."""
    scored = with_config_and_split(scored)
    keys = ["config", "sent_id"]
    orig = scored[scored["split"] == "orig"].set_index(keys)["perplexity"]
    nonce = scored[scored["split"] == "nonce"].set_index(keys)["perplexity"]
    paired = pd.DataFrame({"orig": orig, "nonce": nonce}).dropna().reset_index()
    return paired.assign(ratio=paired["nonce"] / paired["orig"])


def setting_perplexities(scored: pd.DataFrame, model_name: str, words_column: str):
    """Per local_structure setting: the perplexity of its texts taken together (tokens that
    could be scored), the median text's, beside the setting's chrF, IDC and compression."""

    def perplexity(group: pd.DataFrame) -> dict:
        kept = group[~group["too_long"]]
        tokens = kept["n_tokens"].sum()
        total = -kept["log_prob"].sum() / tokens if tokens else float("nan")
        return {
            "model_name": model_name,
            "N": len(kept),  # the texts scored; those left out are counted beside
            "too_long": int(group["too_long"].sum()),
            "perplexity": float(np.exp(total)),
            "median_text_perplexity": float(kept["perplexity"].median()),
        }

    return setting_rows(scored, [words_column], perplexity)


def ratio_summary(paired: pd.DataFrame, model_name: str, measure: str) -> pd.DataFrame:
    """Quartiles of the nonce/orig ratio and a paired Wilcoxon signed-rank test per config."""
    from scipy.stats import wilcoxon  # here: `score --help` starts without scipy.stats

    rows = []
    for config, group in paired.groupby("config", sort=True):
        differences = np.log(group["nonce"]) - np.log(group["orig"])
        test = wilcoxon(differences) if np.any(differences != 0) else None
        q1, median, q3 = np.quantile(group["ratio"], [0.25, 0.5, 0.75])
        rows.append(
            {
                "model_name": model_name,
                "config": config,
                "measure": measure,
                "N": len(group),
                "orig_median": float(group["orig"].median()),
                "nonce_median": float(group["nonce"].median()),
                "ratio_q1": q1,
                "ratio_median": median,
                "ratio_q3": q3,
                "wilcoxon_statistic": float(test.statistic) if test else float("nan"),
                "wilcoxon_p": float(test.pvalue) if test else float("nan"),
            }
        )
    return pd.DataFrame(rows)


@TASKS.register("score.v1")
class Score(EvaluationTask):
    """Sentence scores (PPL, PPPL, PPPL-l2r) and nonce/orig ratios (spud datasets)."""

    name = "score"
    version = "1.0.0"
    settings_class = ScoreSettings
    score = staticmethod(score_sentences)
    key_columns = (*SETTING_KEYS, *CORRELATION_KEYS)  # nonce ratios: config and measure

    @classmethod
    def columns(cls, settings: ScoreSettings) -> tuple[str, ...]:
        return (settings.words_column,)

    @classmethod
    def outputs(cls, scored: Scored) -> Outputs:
        """The scores, the nonce/orig comparison and its figure (spud), or each setting's
        perplexity beside its chrF, IDC and compression (local_structure)."""
        rows, run, model, settings = scored.rows, scored.folder, scored.model, scored.settings
        with atomic_path(run / "scores.parquet") as tmp:
            rows.to_parquet(tmp, index=False)
        paired = nonce_ratios(rows) if "sent_id" in rows else pd.DataFrame()
        counts = {
            "sentences": len(rows),
            # left out (--long-inputs exclude): longer than the model reads
            "too_long": int(rows["too_long"].sum()),
            "windowed": int(rows["windowed"].sum()),  # scored in windows of the model's context
            "paired": len(paired),
        }
        metrics, headline = {}, None
        if len(paired):
            with atomic_path(run / "nonce_ratios.parquet") as tmp:
                paired.to_parquet(tmp, index=False)
            summary = ratio_summary(paired, model, settings.measure)
            write_table(summary, run / "nonce_ratio_summary.csv", markdown=True)
            plot_nonce_ratios(paired, summary, run / "nonce_ratio.png")
            metrics["nonce_ratio"] = records(summary)
            headline = summary
        if "setting" in rows:  # a local_structure dataset
            table = setting_perplexities(rows, model, settings.words_column)
            write_table(table, run / "score_by_setting.csv", markdown=True)
            correlations = write_comparison(table, "perplexity", model, run)
            metrics |= {"settings": records(table), "correlations": records(correlations)}
            headline = table
        return Outputs(metrics, headline, counts)
