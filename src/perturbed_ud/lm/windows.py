"""Inputs longer than a model's context, cut into windows the model can read.

Causal LMs: strided windows, as lm-evaluation-harness's rolling log-likelihood and the
transformers perplexity guide score long texts. The first window is the first ``limit``
tokens and scores every token in it; each later window ends ``stride`` tokens further on and
scores only those new tokens, so every token is scored once, conditioned on at least
``limit − stride`` and at most ``limit − 1`` tokens before it. Where the sequence fits, the one
window is the sequence, and the scores are the plain ones. (A causal LM reads a window but
its last token, so its windows are one token longer than its positions.)

Masked LMs: a row of ``limit`` tokens around the masked position(s), the special tokens at both
ends kept, so the masked span sits as near the middle of its context as the sentence allows.

``exclude`` leaves such inputs out instead, and the task counts them by reason.
"""

from __future__ import annotations

from ..settings import setting

LONG_INPUTS = ("window", "exclude")


def long_inputs_setting():
    """The setting every task that scores sentences offers for inputs longer than the
    model's context."""
    return setting(
        "Inputs longer than the model's context: scored in windows (causal: strided, each "
        "token seeing at least half the context; masked: the context around the masked "
        "word), or left out of N and counted (exclude).",
        default="window",
        choices=LONG_INPUTS,
    )


def stride_of(limit: int) -> int:
    """New tokens per later window: half the context, as the perplexity guide's example."""
    return max(1, limit // 2)


def causal_windows(ids: list[int], limit: int) -> list[tuple[list[int], int]]:
    """``(window, scored)`` pairs covering ``ids``: the last ``scored`` next-token
    predictions of each window are the new tokens it scores."""
    if len(ids) <= limit:
        return [(ids, max(0, len(ids) - 1))]
    windows, end, stride = [(ids[:limit], limit - 1)], limit, stride_of(limit)
    while end < len(ids):
        following = min(end + stride, len(ids))
        windows.append((ids[following - limit : following], following - end))
        end = following
    return windows


def special_ends(word_ids: list[int | None]) -> tuple[int, int]:
    """How many added special tokens (CLS, BOS, SEP, EOS: no word of their own) open and
    close an input, from the word of each piece (an unknown word's [UNK] has its word)."""
    lead = 0
    while lead < len(word_ids) and word_ids[lead] is None:
        lead += 1
    trail = 0
    while trail < len(word_ids) - lead and word_ids[len(word_ids) - 1 - trail] is None:
        trail += 1
    return lead, trail


def masked_window(
    row: list[int], positions: list[int], limit: int, ends: tuple[int, int]
) -> tuple[list[int], int] | None:
    """``row`` cut to ``limit`` tokens around ``positions`` (the special ``ends`` kept), and
    how far every position moved left; the row itself where it fits; None where the
    positions alone span more than a window holds."""
    if len(row) <= limit:
        return row, 0
    lead, trail = ends
    room = limit - lead - trail
    first, last = min(positions), max(positions)
    if room < 1 or last - first + 1 > room:
        return None
    spare = room - (last - first + 1)  # context tokens beside the span: half on each side
    start = min(max(lead, first - (spare + 1) // 2), len(row) - trail - room)
    cut = row[:lead] + row[start : start + room] + row[len(row) - trail :]
    return cut, start - lead
