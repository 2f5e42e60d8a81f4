"""From a UD word sequence to model input with every piece of the target word masked.

``paper`` scoring tokenizes the word list as pre-split words with the model's normal special
tokens and finds the target's pieces through the tokenizer's word ids. ``lrec2026`` scoring
reproduces the released code: each word encoded on its own, pieces concatenated, no special
tokens, and the gold is the decoded gold pieces.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(slots=True)
class MaskedItem:
    ids: list[int]  # model input, target pieces replaced by the mask id
    span: list[int]  # positions of the target's pieces, left to right
    gold_pieces: list[int]


def _word_pieces_paper(tokenizer, words: list[str], target: int) -> tuple[list[int], list[int]]:
    encoding = tokenizer(words, is_split_into_words=True, add_special_tokens=True)
    word_ids = encoding.word_ids()
    span = [k for k, w in enumerate(word_ids) if w == target]
    return list(encoding["input_ids"]), span


def _word_pieces_lrec2026(tokenizer, words: list[str], target: int) -> tuple[list[int], list[int]]:
    ids: list[int] = []
    span: list[int] = []
    for index, word in enumerate(words):
        pieces = tokenizer.encode(word, add_special_tokens=False)
        if index == target:
            span = list(range(len(ids), len(ids) + len(pieces)))
        ids.extend(pieces)
    return ids, span


def target_pieces(tokenizer, words: list[str], target: int, scoring: str):
    """(input ids, positions of the target's pieces) under a scoring mode."""
    encode = _word_pieces_lrec2026 if scoring == "lrec2026" else _word_pieces_paper
    return encode(tokenizer, words, target)


def span_problem(span: list[int], max_span_pieces: int) -> str | None:
    """Why a target span cannot be reconstructed, or None."""
    if not span:
        return "target_has_no_pieces"
    if len(span) > max_span_pieces:
        return "span_too_long"
    return None


def mask_target(
    tokenizer,
    words: list[str],
    target: int,
    *,
    scoring: str,
    max_span_pieces: int,
    max_length: int,
) -> MaskedItem | str:
    """The masked input of one item, or the reason it cannot be scored."""
    ids, span = target_pieces(tokenizer, words, target, scoring)
    problem = span_problem(span, max_span_pieces)
    if problem:
        return problem
    if len(ids) > max_length:
        return "sentence_too_long"
    gold = [ids[k] for k in span]
    masked = list(ids)
    for k in span:
        masked[k] = tokenizer.mask_token_id
    return MaskedItem(masked, span, gold)
