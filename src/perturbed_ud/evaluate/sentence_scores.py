"""Token log-probabilities of whole sentences, mapped back to UD words.

Masked LMs, pseudo-log-likelihood: every piece is masked in turn (``original``), or masked
together with the later pieces of its own word (``within_word_l2r``, Kauf & Ivanova 2023),
so a word's pieces are scored left to right without seeing their own continuation. A word is
a UD word (the tokenizer's word ids over the pre-split words), not a tokenizer word.

Causal LMs: log p(token | preceding tokens). The first token has no context unless a BOS
token is prepended: ``bos="prepend"`` adds it and scores every token; ``bos="none"`` leaves
the first token unscored. Either way the policy is explicit and recorded.

All (sentence, masked position) rows of a batch of sentences go through one `Batcher`, so
rows of different sentences share forward passes.
"""

from __future__ import annotations

from dataclasses import dataclass

from .batching import Batcher

PLL_METRICS = ("original", "within_word_l2r")
BOS_POLICIES = ("prepend", "none")


@dataclass(slots=True)
class TokenScores:
    pieces: list[int]  # piece ids of the scored tokens
    words: list[int]  # UD word index of each scored token
    log_probs: list[float]

    def word_totals(self, n_words: int) -> list[float]:
        totals = [0.0] * n_words
        for word, value in zip(self.words, self.log_probs, strict=True):
            totals[word] += value
        return totals


def masked_pieces(tokenizer, words: list[str]) -> tuple[list[int], list[int | None]]:
    """Input ids (with special tokens) and the UD word of each piece (None for specials)."""
    encoding = tokenizer(words, is_split_into_words=True, add_special_tokens=True)
    return list(encoding["input_ids"]), encoding.word_ids()


def masked_rows(
    ids: list[int], word_ids: list[int | None], mask_id: int, metric: str, scored: set[int] | None
):
    """(row, position, gold) for each piece to score; ``scored`` limits the words."""
    for t, word in enumerate(word_ids):
        if word is None or (scored is not None and word not in scored):
            continue
        row = list(ids)
        row[t] = mask_id
        if metric == "within_word_l2r":
            for k in range(t + 1, len(ids)):
                if word_ids[k] == word:
                    row[k] = mask_id
        yield row, t, ids[t]


def pseudo_log_likelihoods(
    batcher: Batcher, sentences: list[list[str]], metric: str = "within_word_l2r"
) -> list[TokenScores]:
    """Per-token pseudo-log-likelihoods of each sentence under a masked LM."""
    if metric not in PLL_METRICS:
        raise ValueError(f"metric must be one of {PLL_METRICS}, not {metric!r}")
    tokenizer = batcher.lm.tokenizer
    rows, positions, golds, owners = [], [], [], []
    encoded = []
    for s, words in enumerate(sentences):
        ids, word_ids = masked_pieces(tokenizer, words)
        encoded.append(word_ids)
        for row, position, gold in masked_rows(
            ids, word_ids, tokenizer.mask_token_id, metric, None
        ):
            rows.append(row)
            positions.append(position)
            golds.append(gold)
            owners.append(s)
    values = batcher.gold_log_probs(rows, positions, golds)
    out = [TokenScores([], [], []) for _ in sentences]
    for s, position, gold, value in zip(owners, positions, golds, values, strict=True):
        out[s].pieces.append(gold)
        out[s].words.append(encoded[s][position])
        out[s].log_probs.append(value)
    return out


def causal_pieces(tokenizer, words: list[str], bos: str) -> tuple[list[int], list[int | None]]:
    """Ids of the space-joined sentence, optionally after BOS, and each token's UD word
    (by character offsets, so byte-level BPE's leading spaces do not matter)."""
    text = " ".join(words)
    starts, position = [], 0
    for word in words:
        starts.append(position)
        position += len(word) + 1
    encoding = tokenizer(text, add_special_tokens=False, return_offsets_mapping=True)
    ids = list(encoding["input_ids"])
    word_ids = []
    for _, end in encoding["offset_mapping"]:
        word_ids.append(max(w for w, start in enumerate(starts) if start < end) if end else None)
    if bos == "prepend":
        if tokenizer.bos_token_id is None:
            raise ValueError("bos='prepend' needs a tokenizer with a BOS token")
        return [tokenizer.bos_token_id, *ids], [None, *word_ids]
    return ids, word_ids


def causal_log_likelihoods(
    batcher: Batcher, sentences: list[list[str]], bos: str = "prepend"
) -> list[TokenScores]:
    """Per-token log-probabilities of each sentence under a causal LM."""
    if bos not in BOS_POLICIES:
        raise ValueError(f"bos must be one of {BOS_POLICIES}, not {bos!r}")
    encoded = [causal_pieces(batcher.lm.tokenizer, words, bos) for words in sentences]
    values = batcher.next_token_log_probs([ids for ids, _ in encoded])
    out = []
    for (ids, word_ids), scores in zip(encoded, values, strict=True):
        # scores[i] belongs to token i + 1; a prepended BOS itself is never scored
        out.append(TokenScores(ids[1:], word_ids[1:], scores))
    return out
