"""Masked word prediction: mask every piece of the target word, rebuild it by beam search.

Runs through ``datasets.map(batched=True, with_rank=True)``: the model is loaded lazily in
each worker (one process per GPU), identified by name and revision in ``fn_kwargs`` so the
fingerprint stays cheap. Each item gets a status: ``scored``, or the reason it could not be
(``span_too_long`` …), so every drop is counted.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..errors import InputError
from ..lm.batching import BatchSettings
from ..lm.beam import beam_search
from ..lm.masking import mask_target
from ..lm.matching import normalize_word, words_match
from ..lm.models import device_for, load_masked_lm

SCORINGS = ("paper", "lrec2026")


@dataclass(frozen=True, kw_only=True)
class MaskedWordSettings(BatchSettings):
    scoring: str = "paper"
    beam: int = 8
    top_k: int = 5
    max_span_pieces: int = 6

    def __post_init__(self):
        super().__post_init__()
        if self.scoring not in SCORINGS:
            raise ValueError(f"scoring must be one of {SCORINGS}, not {self.scoring!r}")
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
    lm = load_masked_lm(model, device_for(device, rank), options.dtype, revision)
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
        }
    for row in range(n):
        values = results.get(row, OUTPUT_COLUMNS | {"status": statuses[row]})
        for name in OUTPUT_COLUMNS:
            out[name].append(values[name])
    return out
