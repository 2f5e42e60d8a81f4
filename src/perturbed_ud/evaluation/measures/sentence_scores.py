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
embeddings is scored in windows (`lm.windows`: strided for causal LMs, the context around
each masked piece for masked LMs), or, with ``long_inputs="exclude"``, not scored and marked
``too_long``: nothing is truncated silently.
"""

from __future__ import annotations

from dataclasses import dataclass

from ...lm.batching import Batcher, BatchSettings
from ...lm.encodings import causal_encodings, masked_encodings
from ...lm.models import MODEL_KINDS
from ...lm.windows import causal_windows, long_inputs_setting, masked_window, special_ends
from ...settings import setting

PLL_METRICS = ("original", "within_word_l2r")
BOS_POLICIES = ("prepend", "none")


def kind_setting():
    return setting("masked or causal (default: what the model's config says).", default=None,
                   choices=MODEL_KINDS)  # fmt: skip


def bos_setting():
    return setting("Causal LMs: prepend BOS, or leave the first token unscored.",
                   default="prepend", choices=BOS_POLICIES)  # fmt: skip


@dataclass(frozen=True, kw_only=True)
class KindSettings(BatchSettings):
    """Settings of a task that scores masked or causal LMs: the kind (None: the model's
    own) and, for causal LMs, whether BOS is prepended."""

    kind: str | None = kind_setting()
    bos: str = bos_setting()
    long_inputs: str = long_inputs_setting()


@dataclass(slots=True)
class TokenScores:
    pieces: list[int]  # piece ids of the scored tokens
    words: list[int]  # UD word index of each scored token
    log_probs: list[float]
    too_long: bool = False  # longer than the model's positions and excluded: lists empty
    windowed: bool = False  # longer than the model's positions and scored in windows

    def word_totals(self, n_words: int) -> list[float]:
        totals = [float("nan") if self.too_long else 0.0] * n_words
        for word, value in zip(self.words, self.log_probs, strict=True):
            totals[word] += value
        return totals


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
    long_inputs: str = "window",
) -> list[TokenScores]:
    """Per-token pseudo-log-likelihoods of each sentence under a masked LM."""
    if metric not in PLL_METRICS:
        raise ValueError(f"metric must be one of {PLL_METRICS}, not {metric!r}")
    tokenizer = batcher.lm.tokenizer
    mask_id, limit = tokenizer.mask_token_id, batcher.lm.max_length
    encoded = masked_encodings(tokenizer, sentences, grouping)
    rows, positions, golds, owners, counts, excluded = [], [], [], [], [], []
    for ids, word_ids, groups in encoded:
        before = len(rows)
        cuts = []
        if len(ids) <= limit or long_inputs == "window":
            ends = special_ends(word_ids)
            for row, position, gold in masked_rows(ids, groups, mask_id, metric):
                cuts.append((masked_window(row, [position], limit, ends), position, gold))
        # a window holds at least one piece beside the special ends, unless the model's
        # context is no longer than those ends: then the sentence is left out, not cut
        usable = all(window is not None for window, _, _ in cuts)
        for window, position, gold in cuts if usable else ():
            cut, shift = window
            rows.append(cut)
            positions.append(position - shift)
            owners.append(position)
            golds.append(gold)
        excluded.append(len(ids) > limit and (long_inputs == "exclude" or not usable))
        counts.append(len(rows) - before)
    values = batcher.gold_log_probs(rows, positions, golds)
    out, first = [], 0
    for (ids, word_ids, _), count, left_out in zip(encoded, counts, excluded, strict=True):
        mine = slice(first, first + count)  # a sentence's rows are consecutive
        scored = [word_ids[position] for position in owners[mine]]
        if left_out:
            out.append(TokenScores([], [], [], too_long=True))
        else:
            out.append(TokenScores(golds[mine], scored, values[mine], windowed=len(ids) > limit))
        first += count
    return out


def causal_log_likelihoods(
    batcher: Batcher, sentences: list[list[str]], bos: str = "prepend", long_inputs: str = "window"
) -> list[TokenScores]:
    """Per-token log-probabilities of each sentence under a causal LM."""
    if bos not in BOS_POLICIES:
        raise ValueError(f"bos must be one of {BOS_POLICIES}, not {bos!r}")
    limit = batcher.lm.max_length + 1  # the last token of a window is predicted, not read
    encoded = causal_encodings(batcher.lm.tokenizer, sentences, bos)
    windows = [
        [] if len(ids) > limit and long_inputs == "exclude" else causal_windows(ids, limit)
        for ids, _ in encoded
    ]
    rows = [window for mine in windows for window, _ in mine]
    values = iter(batcher.next_token_log_probs(rows))
    out = []
    for (ids, word_ids), mine in zip(encoded, windows, strict=True):
        if not mine:
            out.append(TokenScores([], [], [], too_long=True))
            continue
        # each window's last `new` predictions are the tokens it adds; prediction i belongs
        # to token i + 1, and a prepended BOS itself is never scored
        scores = []
        for _, new in mine:
            predicted = next(values)
            scores.extend(predicted[len(predicted) - new :])
        out.append(TokenScores(ids[1:], word_ids[1:], scores, windowed=len(mine) > 1))
    return out
