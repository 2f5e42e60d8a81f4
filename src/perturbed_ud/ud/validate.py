"""The cell checks of the UD validator (levels 1 and 2) that the reader applies to every line.

A malformed cell is an error at its own line, never data: the rules are those of
UniversalDependencies/tools (``validate.py``): no control characters, NFC text, no empty
cells, no whitespace where a column cannot hold it, the 17 UPOS tags, the universal relations,
FEATS and DEPS syntax and order, ``_`` in the columns a multiword token or an empty node leaves
unset. How lines follow each other (IDs, ranges, the tree) is `conllu_io`'s part.
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache
from pathlib import Path

from ..errors import CoNLLUError

COLUMN_NAMES = ("ID", "FORM", "LEMMA", "UPOS", "XPOS", "FEATS", "HEAD", "DEPREL", "DEPS", "MISC")
ID, FORM, LEMMA, UPOS, XPOS, FEATS, HEAD, DEPREL, DEPS, MISC = range(10)
# Columns that can never hold whitespace; FORM, LEMMA and MISC may, singly and inside the cell.
_NO_SPACE = frozenset((ID, UPOS, XPOS, FEATS, HEAD, DEPREL, DEPS))
_UNSET_RANGE = ["_"] * (DEPS - LEMMA + 1)  # a multiword token's LEMMA … DEPS

UPOS_TAGS = frozenset(
    {
        "ADJ",
        "ADP",
        "ADV",
        "AUX",
        "CCONJ",
        "DET",
        "INTJ",
        "NOUN",
        "NUM",
        "PART",
        "PRON",
        "PROPN",
        "PUNCT",
        "SCONJ",
        "SYM",
        "VERB",
        "X",
    }
)
UNIVERSAL_RELATIONS = frozenset(
    {
        "acl",
        "advcl",
        "advmod",
        "amod",
        "appos",
        "aux",
        "case",
        "cc",
        "ccomp",
        "clf",
        "compound",
        "conj",
        "cop",
        "csubj",
        "dep",
        "det",
        "discourse",
        "dislocated",
        "expl",
        "fixed",
        "flat",
        "goeswith",
        "iobj",
        "list",
        "mark",
        "nmod",
        "nsubj",
        "nummod",
        "obj",
        "obl",
        "orphan",
        "parataxis",
        "punct",
        "reparandum",
        "root",
        "vocative",
        "xcomp",
    }
)

# Control characters but TAB (and LF, which ends the line); C1 controls such as U+0085 are
# text (see `conllu_io`).
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")
# A control character or whitespace other than TAB (every character str.isspace() accepts).
_SUSPECT = re.compile(
    "[\x00-\x08\x0a-\x20\x7f\x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]"
)
_SPACE = re.compile(r"\s")
_DOUBLE_SPACE = re.compile(r"\s\s")
_LOWER = re.compile(r"[a-z]+")
_DEPREL = re.compile(r"([a-z]+)(?::[a-z]+)?")
_FEATURE = re.compile(
    r"([A-Z][A-Za-z0-9]*(?:\[[a-z0-9]+\])?)=([A-Z0-9][A-Za-z0-9]*(?:,[A-Z0-9][A-Za-z0-9]*)*)"
)
_EHEAD = re.compile(r"(0|[1-9][0-9]*)(?:\.([1-9][0-9]*))?")
# What the optional case part of an enhanced relation (``obl:в:acc``) may be written in.
_CASE_CATEGORIES = frozenset(("Ll", "Lm", "Lo", "Mn", "Mc", "Me"))


def suspect(lines: list[str]) -> bool:
    """Whether a line of this sentence might fail `check_comment` or `check_cells`, found in a
    few passes over the whole sentence: almost no sentence has one, and then its lines need no
    check of their own (line by line, these checks cost more than the rest of the reader)."""
    k = 0
    while k < len(lines) and lines[k].startswith("#"):
        k += 1
    comments = "\n".join(lines[:k])
    tokens = "\t".join(lines[k:])  # an empty cell shows as two TABs in a row, or one at an end
    return bool(
        _CONTROL.search(comments)
        or _SUSPECT.search(tokens)
        or "\t\t" in tokens
        or tokens[:1] == "\t"
        or tokens[-1:] == "\t"
        or not unicodedata.is_normalized("NFC", tokens)
        or not unicodedata.is_normalized("NFC", comments)
    )


def check_comment(path: Path, number: int, line: str) -> None:
    """A comment line: NFC text without control characters, like every line."""
    if match := _CONTROL.search(line):
        raise CoNLLUError(path, number, f"control character U+{ord(match.group()):04X}")
    _check_nfc(path, number, line)


def check_cells(path: Path, number: int, line: str, cols: list[str]) -> None:
    """The ten cells of a token line: none empty, no control characters, whitespace only inside
    FORM, LEMMA and MISC (and never in a multiword token's FORM or LEMMA), single and inner."""
    _check_nfc(path, number, line)
    if not _SUSPECT.search(line) and "" not in cols:  # the other lines of a suspect sentence
        return
    is_range = "-" in cols[ID]
    for i, cell in enumerate(cols):
        name = COLUMN_NAMES[i]
        if match := _CONTROL.search(cell):
            raise CoNLLUError(
                path, number, f"control character U+{ord(match.group()):04X} in {name}"
            )
        if not cell:
            raise CoNLLUError(path, number, f"{name} is empty (an unset column is '_')")
        if (i in _NO_SPACE or (is_range and i in (FORM, LEMMA))) and _SPACE.search(cell):
            raise CoNLLUError(path, number, f"{name} {_quoted(cell)} contains whitespace")
        if cell[0].isspace() or cell[-1].isspace():
            raise CoNLLUError(
                path, number, f"{name} {_quoted(cell)} starts or ends with whitespace"
            )
        if _DOUBLE_SPACE.search(cell):
            raise CoNLLUError(path, number, f"{name} {_quoted(cell)} has consecutive whitespace")


def _check_nfc(path: Path, number: int, line: str) -> None:
    if not unicodedata.is_normalized("NFC", line):
        raise CoNLLUError(path, number, "text is not in Unicode normalization form NFC")


def check_words(path: Path, words: list[list[str]], word_lines: list[int]) -> None:
    """UPOS, FEATS and DEPREL of a sentence's words (HEAD is the tree's part). Each distinct
    value is checked once; only a sentence with a bad one is gone through word by word."""
    if (
        {cols[UPOS] for cols in words} <= UPOS_TAGS
        and not any(map(feats_error, {cols[FEATS] for cols in words}))
        and not any(map(deprel_error, {cols[DEPREL] for cols in words}))
    ):
        return
    for number, cols in zip(word_lines, words, strict=True):
        check_word(path, number, cols)


def check_word(path: Path, number: int, cols: list[str]) -> None:
    """UPOS, FEATS and DEPREL of a syntactic word (HEAD is the tree's part)."""
    if cols[UPOS] not in UPOS_TAGS:
        raise CoNLLUError(path, number, f"UPOS {_quoted(cols[UPOS])} is not a UD tag")
    if message := feats_error(cols[FEATS]) or deprel_error(cols[DEPREL]):
        raise CoNLLUError(path, number, message)


def check_range(path: Path, number: int, cols: list[str]) -> None:
    """A multiword token annotates nothing but its FORM and MISC (FEATS may say Typo=Yes)."""
    if cols[LEMMA : DEPS + 1] == _UNSET_RANGE:
        return
    for i in range(LEMMA, DEPS + 1):
        if cols[i] != "_" and not (i == FEATS and cols[i] == "Typo=Yes"):
            raise CoNLLUError(
                path, number, f"multiword token with {COLUMN_NAMES[i]} {_quoted(cols[i])}"
            )


def check_empty_node(path: Path, number: int, cols: list[str]) -> None:
    """An empty node has no basic head or relation; its UPOS (if any) and FEATS are checked."""
    for i in (HEAD, DEPREL):
        if cols[i] != "_":
            message = f"empty node with {COLUMN_NAMES[i]} {_quoted(cols[i])} (it must be '_')"
            raise CoNLLUError(path, number, message)
    if cols[UPOS] != "_" and cols[UPOS] not in UPOS_TAGS:
        raise CoNLLUError(path, number, f"UPOS {_quoted(cols[UPOS])} is not a UD tag")
    if message := feats_error(cols[FEATS]):
        raise CoNLLUError(path, number, message)


@lru_cache(maxsize=16384)
def feats_error(feats: str) -> str | None:
    """Why a FEATS cell is malformed, or None. ``Name=Value[,Value]`` items joined by ``|``,
    sorted as the UD validator sorts them (whole items, case-insensitively), no name twice,
    values sorted and distinct. Cached: a treebank has few distinct FEATS cells."""
    if feats == "_":
        return None
    items = feats.split("|")
    names = set()
    for item in items:
        match = _FEATURE.fullmatch(item)
        if not match:
            return (
                f"FEATS item {_quoted(item)} is not Name=Value "
                "([A-Z][A-Za-z0-9]*=[A-Z0-9][A-Za-z0-9]*)"
            )
        name, values = match.group(1), match.group(2).split(",")
        if name in names:
            return f"FEATS {_quoted(feats)} gives {name} twice"
        names.add(name)
        if len(set(values)) != len(values) or _unsorted(values):
            return f"FEATS item {_quoted(item)}: values must be distinct and sorted"
    if _unsorted(items):
        return f"FEATS {_quoted(feats)} is not sorted by feature name"
    return None


def _quoted(value: str, limit: int = 80) -> str:
    """``value`` quoted for an error line, cut to ``limit`` characters: a cell can be a
    line of 64 MiB, and the message is one line a user reads."""
    if len(value) <= limit:
        return repr(value)
    return f"{value[:limit]!r}… ({len(value):,} characters)"


def _unsorted(items: list[str]) -> bool:
    lowered = [item.lower() for item in items]
    return lowered != sorted(lowered)


@lru_cache(maxsize=4096)
def deprel_error(deprel: str) -> str | None:
    """Why a DEPREL is malformed, or None: a universal relation with at most one subtype."""
    match = _DEPREL.fullmatch(deprel)
    if not match:
        return f"DEPREL {_quoted(deprel)} is not relation[:subtype] in lowercase ASCII letters"
    if match.group(1) not in UNIVERSAL_RELATIONS:
        return f"DEPREL {_quoted(deprel)}: {_quoted(match.group(1))} is not a universal relation"
    return None


@lru_cache(maxsize=4096)
def _enhanced_relation_error(deprel: str) -> str | None:
    """A universal relation (or ``ref``) and up to three subtypes, as in ``obl:в:acc`` or
    ``nmod:poss``: lowercase ASCII letters, except one case-marker part in any lowercase or
    caseless script (words joined by ``_``), the third part when there are four."""
    universal, *rest = deprel.split(":")
    if universal not in UNIVERSAL_RELATIONS and universal != "ref":
        return f"{_quoted(universal)} is not a universal relation"
    free = [i for i, part in enumerate(rest) if not _LOWER.fullmatch(part)]
    if len(rest) > 3 or len(free) > 1 or (len(rest) == 3 and free not in ([], [1])):
        return "it is not relation[:subtype][:marker][:case] with a-z in all but the marker"
    if free and not all(
        word and all(unicodedata.category(c) in _CASE_CATEGORIES for c in word)
        for word in rest[free[0]].split("_")
    ):
        return f"subtype {_quoted(rest[free[0]])} is not lowercase letters joined by '_'"
    return None


def check_deps(path: Path, number: int, wid: str, deps: str, ids: set[str]) -> None:
    """A DEPS cell other than ``_``: ``head:relation`` items joined by ``|``, sorted by head
    (then relation), no item twice, each head 0 or an ID of this sentence (word or empty node)
    other than the node's own."""
    message, heads = _parse_deps(deps)
    if message:
        raise CoNLLUError(path, number, message)
    for head in heads:
        if head not in ids:
            raise CoNLLUError(path, number, f"DEPS head {head} is not 0 or an ID in this sentence")
    if wid in heads:
        raise CoNLLUError(path, number, f"DEPS {_quoted(deps)} makes node {wid} its own head")


@lru_cache(maxsize=16384)
def _parse_deps(deps: str) -> tuple[str | None, tuple[str, ...]]:
    """(why DEPS is malformed or None, its heads): what does not depend on the sentence."""
    keys = []
    for item in deps.split("|"):
        head, sep, relation = item.partition(":")
        match = _EHEAD.fullmatch(head)
        if not sep or not relation or not match:
            return f"DEPS item {_quoted(item)} is not head:relation", ()
        if message := _enhanced_relation_error(relation):
            return f"DEPS relation {_quoted(relation)}: {message}", ()
        keys.append((int(match.group(1)), int(match.group(2) or 0), relation, head))
    if keys != sorted(keys):
        return f"DEPS {_quoted(deps)} is not sorted by head, then relation", ()
    if len({key[:3] for key in keys}) != len(keys):
        return f"DEPS {_quoted(deps)} gives a relation twice", ()
    return None, tuple(key[3] for key in keys)
