"""Token log-probabilities of whole sentences, mapped back to UD words.

Masked LMs, pseudo-log-likelihood: every piece is masked in turn (``original``), or masked
together with the later pieces of its own word (``within_word_l2r``, Kauf & Ivanova 2023),
so a word's pieces are scored left to right without seeing their own continuation. Which
pieces form a word is a choice (``grouping``): UD words (the default: the tokenizer's word ids
over the pre-split words), or the tokenizer's own words over the space-joined sentence, as
minicons groups them (BERT's pre-tokenizer splits *peut-être* into three words and 中国 into
two). Either way each token's score is credited to the UD word it falls in.

Causal LMs: log p(token | preceding tokens). The first token has no context unless a BOS
token is prepended: ``bos="prepend"`` adds it and scores every token; ``bos="none"`` leaves
the first token unscored. Either way the policy is explicit and recorded.

All (sentence, masked position) rows of a batch of sentences go through one `Batcher`, so
rows of different sentences share forward passes. A sentence longer than the model's position
embeddings is not scored and is marked ``too_long``: nothing is truncated silently.
"""

from __future__ import annotations

from bisect import bisect_left
from dataclasses import dataclass
from itertools import accumulate

from ..errors import InputError
from .batching import Batcher, BatchSettings
from .models import MODEL_KINDS

PLL_METRICS = ("original", "within_word_l2r")
BOS_POLICIES = ("prepend", "none")


@dataclass(frozen=True, kw_only=True)
class KindSettings(BatchSettings):
    """Settings of a task that scores masked or causal LMs: the kind (None: the model's
    own) and, for causal LMs, whether BOS is prepended."""

    kind: str | None = None
    bos: str = "prepend"

    def __post_init__(self):
        super().__post_init__()
        if self.kind not in (*MODEL_KINDS, None):
            raise ValueError(f"kind must be one of {MODEL_KINDS}, not {self.kind!r}")
        if self.bos not in BOS_POLICIES:
            raise ValueError(f"bos must be one of {BOS_POLICIES}, not {self.bos!r}")


WORD_GROUPINGS = ("ud", "tokenizer")


@dataclass(slots=True)
class TokenScores:
    pieces: list[int]  # piece ids of the scored tokens
    words: list[int]  # UD word index of each scored token
    log_probs: list[float]
    too_long: bool = False  # longer than the model's positions: not scored, lists empty

    def word_totals(self, n_words: int) -> list[float]:
        totals = [float("nan") if self.too_long else 0.0] * n_words
        for word, value in zip(self.words, self.log_probs, strict=True):
            totals[word] += value
        return totals


def ud_words_by_offsets(words: list[str], offsets) -> list[int | None]:
    """The UD word of each token of ``" ".join(words)`` from its character offsets (None for
    special tokens): a token belongs to the last word that starts before the token ends, so
    byte-level BPE's and SentencePiece's leading spaces do not matter."""
    starts = list(accumulate((len(word) + 1 for word in words[:-1]), initial=0))
    return [bisect_left(starts, end) - 1 if end else None for _, end in offsets]


def masked_encodings(tokenizer, sentences: list[list[str]], grouping: str = "ud"):
    """Per sentence: input ids (with special tokens), the UD word of each piece, and the word
    each piece is grouped with for masking (None for specials). One tokenizer call."""
    if grouping not in WORD_GROUPINGS:
        raise ValueError(f"grouping must be one of {WORD_GROUPINGS}, not {grouping!r}")
    if not sentences:
        return []
    if grouping == "ud":
        encoding = tokenizer(sentences, is_split_into_words=True, add_special_tokens=True)
        return [
            (ids, encoding.word_ids(s), encoding.word_ids(s))
            for s, ids in enumerate(encoding["input_ids"])
        ]
    texts = [" ".join(words) for words in sentences]
    encoding = tokenizer(texts, add_special_tokens=True, return_offsets_mapping=True)
    return [
        (ids, ud_words_by_offsets(words, offsets), encoding.word_ids(s))
        for s, (words, ids, offsets) in enumerate(
            zip(sentences, encoding["input_ids"], encoding["offset_mapping"], strict=True)
        )
    ]


def masked_pieces(tokenizer, words: list[str]) -> tuple[list[int], list[int | None]]:
    """Input ids (with special tokens) and the UD word of each piece (None for specials)."""
    ids, word_ids, _ = masked_encodings(tokenizer, [words])[0]
    return ids, word_ids


def masked_rows(ids: list[int], groups: list[int | None], mask_id: int, metric: str):
    """(row, position, gold) for each piece of a word (``groups``: each piece's word)."""
    for t, word in enumerate(groups):
        if word is None:
            continue
        row = list(ids)
        row[t] = mask_id
        if metric == "within_word_l2r":
            k = t + 1  # a word's pieces are contiguous
            while k < len(ids) and groups[k] == word:
                row[k] = mask_id
                k += 1
        yield row, t, ids[t]


def pseudo_log_likelihoods(
    batcher: Batcher,
    sentences: list[list[str]],
    metric: str = "within_word_l2r",
    grouping: str = "ud",
) -> list[TokenScores]:
    """Per-token pseudo-log-likelihoods of each sentence under a masked LM."""
    if metric not in PLL_METRICS:
        raise ValueError(f"metric must be one of {PLL_METRICS}, not {metric!r}")
    mask_id, limit = batcher.lm.tokenizer.mask_token_id, batcher.lm.max_length
    encoded = masked_encodings(batcher.lm.tokenizer, sentences, grouping)
    rows, positions, golds, counts = [], [], [], []
    for ids, _, groups in encoded:
        before = len(rows)
        if len(ids) <= limit:
            for row, position, gold in masked_rows(ids, groups, mask_id, metric):
                rows.append(row)
                positions.append(position)
                golds.append(gold)
        counts.append(len(rows) - before)
    values = batcher.gold_log_probs(rows, positions, golds)
    out, first = [], 0
    for (ids, word_ids, _), count in zip(encoded, counts, strict=True):
        mine = slice(first, first + count)  # a sentence's rows are consecutive
        scored = [word_ids[position] for position in positions[mine]]
        out.append(TokenScores(golds[mine], scored, values[mine], len(ids) > limit))
        first += count
    return out


def causal_encodings(tokenizer, sentences: list[list[str]], bos: str):
    """Per sentence: ids of the space-joined words, optionally after BOS, and each token's
    UD word (by character offsets, so byte-level BPE's leading spaces do not matter)."""
    if bos == "prepend" and tokenizer.bos_token_id is None:
        raise InputError("bos='prepend' needs a tokenizer with a BOS token")
    if not sentences:
        return []
    texts = [" ".join(words) for words in sentences]
    encoding = tokenizer(texts, add_special_tokens=False, return_offsets_mapping=True)
    prefix = [tokenizer.bos_token_id] if bos == "prepend" else []
    return [
        (prefix + list(ids), [None] * len(prefix) + ud_words_by_offsets(words, offsets))
        for words, ids, offsets in zip(
            sentences, encoding["input_ids"], encoding["offset_mapping"], strict=True
        )
    ]


def causal_log_likelihoods(
    batcher: Batcher, sentences: list[list[str]], bos: str = "prepend"
) -> list[TokenScores]:
    """Per-token log-probabilities of each sentence under a causal LM."""
    if bos not in BOS_POLICIES:
        raise ValueError(f"bos must be one of {BOS_POLICIES}, not {bos!r}")
    limit = batcher.lm.max_length
    encoded = causal_encodings(batcher.lm.tokenizer, sentences, bos)
    fits = [s for s, (ids, _) in enumerate(encoded) if len(ids) <= limit]
    values = iter(batcher.next_token_log_probs([encoded[s][0] for s in fits]))
    out = [TokenScores([], [], [], too_long=True) for _ in encoded]
    for s in fits:
        ids, word_ids = encoded[s]
        # scores[i] belongs to token i + 1; a prepended BOS itself is never scored
        out[s] = TokenScores(ids[1:], word_ids[1:], next(values))
    return out
