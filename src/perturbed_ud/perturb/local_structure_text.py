"""One text under one local-structure setting: its units, the perturbed string and the
paper's three measures (chrF, IDC, compression rate).

Characters are Unicode code points, spaces included. Subwords are the tokenizer's ids
without special tokens; the perturbed ids are what a model reads, and their decoded string
(``tokenizer.decode``) is what chrF compares with the decoded unperturbed ids, so that the
tokenizer's own normalisation (lower-casing, unknown pieces, spacing) is not counted as
perturbation. IDC is always computed on characters: each subword stands for the characters
from its start to the next subword's start (the space before a word goes with it).
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from itertools import pairwise

from sacrebleu.metrics import CHRF

from .local_structure import Setting, character_permutation, idc

CHRF_WORD_ORDER = 0  # chrF, not chrF++: the paper measures character n-grams only
CHRF_BETA = 2  # "chrF-2": recall weighted twice as much as precision


def chrf_metric(char_order: int) -> CHRF:
    """sacrebleu's chrF with the paper's settings and ``char_order``."""
    return CHRF(char_order=char_order, word_order=CHRF_WORD_ORDER, beta=CHRF_BETA)


def chrf_signature(char_order: int) -> str:
    """sacrebleu's signature of the metric (``nrefs:1|case:mixed|eff:yes|nc:6|…``); sacrebleu
    gives one only once the metric has scored something, so it scores one pair first."""
    metric = chrf_metric(char_order)
    metric.sentence_score("a", ["a"])
    return str(metric.get_signature())


@dataclass(frozen=True)
class TextUnits:
    """A text with what every setting and seed needs of it, computed once."""

    text: str
    ids: list[int] | None = None  # subwords, without special tokens
    lengths: list[int] | None = None  # characters each subword stands for
    decoded: str | None = None  # tokenizer.decode(ids): subword settings' chrF reference
    tokens: int | None = None  # len(tokenizer(text)["input_ids"]), special tokens included


def text_units(text: str, tokenizer=None) -> TextUnits:
    """``text`` and, with a (fast) tokenizer, its subwords and the characters of each."""
    if tokenizer is None:
        return TextUnits(text)
    encoded = tokenizer(text, add_special_tokens=False, return_offsets_mapping=True)
    ids = list(encoded["input_ids"])
    bounds = [0]  # where each subword's characters start: never before the previous one's
    for start, _ in encoded["offset_mapping"][1:]:
        bounds.append(max(start, bounds[-1]))
    return TextUnits(
        text,
        ids=ids,
        lengths=[b - a for a, b in pairwise([*bounds, len(text)])] if ids else [],
        decoded=tokenizer.decode(ids),
        tokens=len(tokenizer(text)["input_ids"]),
    )


@dataclass(frozen=True)
class PerturbedText:
    text: str
    permutation: list[int]  # of characters, or of subwords in subword settings
    token_ids: list[int] | None  # subword settings only
    reference: str  # what chrF compares ``text`` with
    chrf: float
    idc: float
    compression: float | None  # characters / tokens; None without a tokenizer


def perturb_text(
    units: TextUnits, setting: Setting, rng: random.Random, metric: CHRF, tokenizer=None
) -> PerturbedText:
    """``units`` perturbed under ``setting``, drawing from ``rng``, and measured.

    Compression is characters per token of what the model reads, special tokens included:
    the perturbed string tokenized again for character settings; the perturbed ids, as many
    as the original's, for subword settings (which therefore leave it unchanged).
    """
    if setting.unit == "subword":
        perm = setting.permutation(units.ids, rng)
        token_ids = [units.ids[i] for i in perm]
        text = tokenizer.decode(token_ids)
        reference, chars = units.decoded, character_permutation(perm, units.lengths)
        compression = _rate(len(units.text), units.tokens)
    else:
        perm = setting.permutation(units.text, rng)
        text, token_ids = "".join(units.text[i] for i in perm), None
        reference, chars = units.text, perm
        compression = None
        if tokenizer is not None:
            compression = _rate(len(text), len(tokenizer(text)["input_ids"]))
    chrf = metric.sentence_score(text, [reference]).score
    return PerturbedText(text, perm, token_ids, reference, chrf, idc(chars), compression)


def _rate(chars: int, tokens: int) -> float | None:
    """Characters per token; None for an empty text that a tokenizer without special tokens
    turns into no token."""
    return chars / tokens if tokens else None
