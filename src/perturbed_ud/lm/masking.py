"""From a UD word sequence to model input with every piece of the target word masked.

``paper`` scoring tokenizes the word list as pre-split words with the model's normal special
tokens and finds the target's pieces through the tokenizer's word ids. ``lrec2026`` scoring
reproduces the released code: each word encoded on its own, pieces concatenated, no special
tokens, and the gold is the decoded gold pieces.
"""

from __future__ import annotations

from dataclasses import dataclass

from .windows import masked_window, special_ends


@dataclass(slots=True)
class MaskedItem:
    ids: list[int]  # model input, target pieces replaced by the mask id
    span: list[int]  # positions of the target's pieces, left to right
    gold_pieces: list[int]
    windowed: bool = False  # the sentence was longer than the model reads: cut around the span


def _word_pieces_paper(tokenizer, words: list[str], target: int):
    encoding = tokenizer(words, is_split_into_words=True, add_special_tokens=True)
    word_ids = encoding.word_ids()
    span = [k for k, w in enumerate(word_ids) if w == target]
    return list(encoding["input_ids"]), span, special_ends(word_ids)


def _word_pieces_lrec2026(tokenizer, words: list[str], target: int):
    ids: list[int] = []
    span: list[int] = []
    for index, word in enumerate(words):
        pieces = tokenizer.encode(word, add_special_tokens=False)
        if index == target:
            span = list(range(len(ids), len(ids) + len(pieces)))
        ids.extend(pieces)
    return ids, span, (0, 0)  # no special tokens


def target_pieces(tokenizer, words: list[str], target: int, scoring: str):
    """(input ids, positions of the target's pieces, the special tokens that open and close
    the input) under a scoring mode."""
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
    long_inputs: str = "exclude",
) -> MaskedItem | str:
    """The masked input of one item, or the reason it cannot be scored. A sentence longer
    than ``max_length`` is cut to the context around the target (``long_inputs="window"``),
    or not scored (``"exclude"``)."""
    ids, span, ends = target_pieces(tokenizer, words, target, scoring)
    problem = span_problem(span, max_span_pieces)
    if problem:
        return problem
    if len(ids) > max_length and long_inputs == "exclude":
        return "sentence_too_long"
    gold = [ids[k] for k in span]
    masked = list(ids)
    for k in span:
        masked[k] = tokenizer.mask_token_id
    window = masked_window(masked, span, max_length, ends)
    if window is None:
        return "span_wider_than_context"
    cut, shift = window
    return MaskedItem(cut, [k - shift for k in span], gold, len(cut) < len(masked))
