"""UD words as model input: the pieces of each word, with or without the model's special
tokens, and the UD word of each piece, so every score and vector is credited to a UD word."""

from __future__ import annotations

from bisect import bisect_left
from itertools import accumulate

from ..errors import InputError

WORD_GROUPINGS = ("ud", "tokenizer")


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


def encode(lm, sentences: list[list[str]], kind: str, bos: str):
    """Ids and each piece's UD word, as the score task encodes sentences."""
    if kind == "causal":
        return causal_encodings(lm.tokenizer, sentences, bos)
    return [(ids, words) for ids, words, _ in masked_encodings(lm.tokenizer, sentences, "ud")]
