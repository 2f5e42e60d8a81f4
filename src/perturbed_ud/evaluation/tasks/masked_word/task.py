"""Masked word prediction: mask every piece of the target word, rebuild it by beam search.

Runs through ``datasets.map(batched=True, with_rank=True)``: the model is loaded lazily in
each worker (one process per GPU), identified by name and revision in ``fn_kwargs`` so the
fingerprint stays cheap. Each item gets a status: ``scored``, or the reason it could not be
(``span_too_long`` …), so every drop is counted.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

import pandas as pd

from ....data.conditions import Conditions, dataset_conditions
from ....errors import InputError
from ....files import atomic_path
from ....lm.batching import BatchSettings
from ....lm.beam import beam_search
from ....lm.masking import mask_target
from ....lm.matching import normalize_word, words_match
from ....lm.models import device_for, load_masked_lm
from ....lm.windows import long_inputs_setting
from ....registry import TASKS
from ....settings import setting
from ...running.runner import records
from ...running.task import EvaluationTask, Outputs, Scored

SCORINGS = ("paper", "lrec2026")
COLUMNS = ("item_id", "treebank", "lang", "sent_id", "seed", "condition", "words",
           "target_index", "target", "target_form")  # fmt: skip


@dataclass(frozen=True, kw_only=True)
class MaskedWordSettings(BatchSettings):
    scoring: str = setting("paper, or lrec2026: the released code's word matching and top-k.",
                           default="paper", choices=SCORINGS)  # fmt: skip
    beam: int = setting("Beams kept while the target's pieces are rebuilt.", default=8,
                        minimum=1)  # fmt: skip
    top_k: int = setting("Predictions kept per item (word@k).", default=5, minimum=1)
    max_span_pieces: int = setting("Targets of more pieces are dropped (counted).", default=6,
                                   minimum=1)  # fmt: skip
    long_inputs: str = long_inputs_setting()

    def __post_init__(self):
        super().__post_init__()
        if self.beam < self.top_k:
            raise InputError(f"beam ({self.beam}) must be at least top_k ({self.top_k})")


OUTPUT_COLUMNS = {
    "status": "",
    "gold_word": "",
    "gold_num_pieces": 0,
    "reconstructed_prediction": "",
    "prediction_logprob": float("nan"),
    "top_k_predictions": [],
    "top_k_logprobs": [],
    "word_level_match": False,
    "word_at_5": False,
    "windowed": False,
}


def _top_words(tokenizer, beams, settings: MaskedWordSettings) -> list[tuple[str, float]]:
    """The k best distinct words; ``lrec2026`` dedups the first k beams by exact string."""
    decoded = [
        (tokenizer.decode(list(pieces), skip_special_tokens=True).strip(), score)
        for pieces, score in beams
    ]
    if settings.scoring == "lrec2026":
        seen = {}
        for word, score in decoded[: settings.top_k]:
            seen.setdefault(word, score)
        return list(seen.items())
    seen = {}
    for word, score in decoded:
        seen.setdefault(normalize_word(word) or word, (word, score))
        if len(seen) == settings.top_k:
            break
    return list(seen.values())


def score_batch(batch, rank=None, *, model: str, revision, device: str, settings: dict):
    """`datasets.map` function: predictions for a batch of rows of one split."""
    options = MaskedWordSettings(**settings)
    lm = load_masked_lm(model, device_for(device, rank), options.loading(), revision)
    tokenizer = lm.tokenizer
    items, where = [], []
    out = {name: [] for name in OUTPUT_COLUMNS}
    n = len(batch["words"])
    statuses = []
    for words, target in zip(batch["words"], batch["target_index"], strict=True):
        item = mask_target(
            tokenizer,
            words,
            target,
            scoring=options.scoring,
            max_span_pieces=options.max_span_pieces,
            max_length=lm.max_length,
            long_inputs=options.long_inputs,
        )
        if isinstance(item, str):
            statuses.append(item)
        else:
            statuses.append("scored")
            where.append(len(statuses) - 1)
            items.append(item)
    banned = None if options.scoring == "lrec2026" else list(tokenizer.all_special_ids)
    batcher = options.batcher(lm)
    beams = beam_search(batcher, items, options.beam, banned)
    results = {}
    for row, item, item_beams in zip(where, items, beams, strict=True):
        words = _top_words(tokenizer, item_beams, options)
        if options.scoring == "lrec2026":
            gold = tokenizer.decode(item.gold_pieces, skip_special_tokens=True).strip()
        else:
            gold = batch["target"][row]
        prediction, score = words[0]
        results[row] = {
            "status": "scored",
            "gold_word": gold,
            "gold_num_pieces": len(item.span),
            "reconstructed_prediction": prediction,
            "prediction_logprob": score,
            "top_k_predictions": [w for w, _ in words],
            "top_k_logprobs": [s for _, s in words],
            "word_level_match": words_match(prediction, gold, options.scoring),
            "word_at_5": any(words_match(w, gold, options.scoring) for w, _ in words[:5]),
            "windowed": item.windowed,
        }
    for row in range(n):
        values = results.get(row, OUTPUT_COLUMNS | {"status": statuses[row]})
        for name in OUTPUT_COLUMNS:
            out[name].append(values[name])
    return out


def _released_items(scored: pd.DataFrame, model_name: str, conditions: Conditions) -> pd.DataFrame:
    return pd.DataFrame(
        {
            "model_name": model_name,
            "lang": scored["treebank"],
            "condition": scored["condition"].map(conditions.released_name),
            "words": scored["words"],
            "target_index": scored["target_index"],
            "target_token": scored["target_form"],
            "word_level_match": scored["word_level_match"],
            "gold_word": scored["gold_word"],
            "gold_num_pieces": scored["gold_num_pieces"],
            "reconstructed_prediction": scored["reconstructed_prediction"],
            "top_k_predictions": scored["top_k_predictions"],
            "word_at_5": scored["word_at_5"],
            "sent_id": scored["sent_id"],
            "seed": scored["seed"],
            "item_id": scored["item_id"],
            "prediction_logprob": scored["prediction_logprob"],
            "top_k_logprobs": scored["top_k_logprobs"],
        }
    )


@TASKS.register("masked_word.v1")
class MaskedWord(EvaluationTask):
    """Mask each item's target word and rebuild it by beam search over its pieces."""

    name = "masked-word"
    version = "1.0.0"
    settings_class = MaskedWordSettings
    score = staticmethod(score_batch)
    kinds = ("masked",)
    read_columns = COLUMNS
    key_columns = ("condition",)

    @staticmethod
    def split_key(config: str, split: str, row: dict) -> str:
        """The orig splits every family config of a (language, seed) shares are scored once."""
        return f"{row['lang']}_seed{row['seed']}/{split}"

    @classmethod
    def plan(cls, dataset: str, model: str, settings, run: dict) -> dict:
        """The dataset's conditions, read before scoring so that a bad build.json fails fast."""
        return {"conditions": dataset_conditions(dataset)}

    @classmethod
    def outputs(cls, scored: Scored) -> Outputs:
        """The items in the released schema (Parquet and JSONL), their summaries and
        intervals; the items left out, counted by reason."""
        from .summarize import summarize as write_summaries

        rows, run = scored.rows, scored.folder
        drops = Counter(
            f"{lang}/{split}:{status}"
            for lang, split, status in zip(
                rows["treebank"], rows["condition"], rows["status"], strict=True
            )
            if status != "scored"
        )
        conditions = scored.plan["conditions"]
        items = _released_items(rows[rows["status"] == "scored"], scored.model, conditions)
        with atomic_path(run / "items.parquet") as tmp:
            items.to_parquet(tmp, index=False)
        with atomic_path(run / "items.jsonl") as tmp:
            items.to_json(tmp, orient="records", lines=True, force_ascii=False)
        written = write_summaries(items, run, conditions=conditions)
        metrics = {
            name.removesuffix(".csv"): records(pd.read_csv(path))
            for name, path in written.items()
            if name.endswith(".csv")
        }
        accuracy = pd.DataFrame(metrics.get("accuracy_ci", []))
        headline = accuracy.drop(columns=[c for c in accuracy if c.startswith("word_at_5")])
        counts = {"rows": len(rows), "scored": len(items), "drops": dict(sorted(drops.items()))}
        return Outputs(metrics, headline if len(headline) else None, counts)
