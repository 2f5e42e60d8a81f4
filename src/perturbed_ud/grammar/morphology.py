"""Checking the varied verb forms of a grammar folder against real morphological data.

Every form of a preterminal named in a ``vary`` statement carries a number attribute, ``s`` or
``p``. `check_folder` looks each one up:

- **UD**: the language's UD test and dev files (``UD_<Language>-*/*-ud-{test,dev}.conllu``
  under `ud_root`). Only words whose UPOS is VERB or AUX and whose Mood, if any, is Ind count,
  and, when the form's attributes name a person (``3``), only words whose Person feature is
  absent or includes it (English *like* is ``Number=Sing|Person=1`` in *I like*, and
  subjunctive *leave* ``Number=Sing|Person=3``: no evidence about *they like*, *they leave*).
  FORM is matched case-insensitively, with *ё* read as *е*.
- **pymorphy3** (Russian only): the dictionary's finite-verb analyses of a known word, with the
  same person restriction.

A source *confirms* the form when some such word has the attribute's number (``Number=Sing``
for ``s``, ``Number=Plur`` for ``p``), *contradicts* it when such words have only the other
number, and is silent otherwise. A form is contradicted when any source contradicts it,
confirmed when some source confirms it, and unknown when no source knows it.

A multi-word form (*est vieux*, *sprechen viele Sprachen*) is checked on its finite word: the
first word that differs from the forms it is varied against (*est* against *sont*).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

from ..errors import InputError
from ..resources.inflection import russian_analyzer
from ..ud.conllu_io import parse_feats, read_conllu, split_files
from .evalset import read_grammar_folder
from .parser import Grammar

CONFIRMED, CONTRADICTED, UNKNOWN = "confirmed", "contradicted", "unknown"
NUMBERS = {"s": "Sing", "p": "Plur"}
PERSONS = ("1", "2", "3")
VERBAL_UPOS = frozenset({"VERB", "AUX"})
UD_LANGUAGES = {
    "ar": "Arabic",
    "de": "German",
    "en": "English",
    "es": "Spanish",
    "fr": "French",
    "he": "Hebrew",
    "ru": "Russian",
    "tr": "Turkish",
    "zh": "Chinese",
}


@dataclass(frozen=True)
class FormCheck:
    """The verdict on one varied form with one number attribute."""

    preterminal: str  # e.g. "V_2"
    attributes: tuple[str, ...]  # as written, e.g. ("3", "s")
    form: str  # the whole form, e.g. "est vieux"
    word: str  # the word that was looked up, e.g. "est"
    status: str  # confirmed, contradicted or unknown
    sources: dict[str, str] = field(default_factory=dict)  # source -> its verdict
    constructions: tuple[str, ...] = ()  # the grammars that vary it

    @property
    def number(self) -> str | None:
        found = [a for a in self.attributes if a in NUMBERS]
        return found[0] if len(found) == 1 else None


def normalise(word: str) -> str:
    """The lookup key of a word: lower case, ё read as е."""
    return word.lower().replace("ё", "е")


def varied_forms(grammar: Grammar) -> list[tuple[str, tuple[str, ...], str, str]]:
    """(preterminal, attributes, form, finite word) for every form of a varied preterminal."""
    names = list(dict.fromkeys(item.preterminal.name for item in grammar.vary))
    found = []
    for name in names:
        definitions = [d for p, d in grammar.definitions.items() if p.name == name]
        for definition in definitions:
            others = [
                d
                for d in definitions
                if d is not definition and len(d.options) == len(definition.options)
            ]
            for k, option in enumerate(definition.options):
                word = finite_word(option, [d.options[k] for d in others])
                found.append(
                    (name, definition.preterminal.written, " ".join(option), word),
                )
    return found


def finite_word(option: tuple[str, ...], alternates: list[tuple[str, ...]]) -> str:
    """The first word of ``option`` that differs from an alternate's word there (*sont*
    of *sont jeunes* against *est jeune*), else its first word."""
    for j, word in enumerate(option):
        if any(j >= len(other) or other[j] != word for other in alternates):
            return word
    return option[0]


def ud_files(lang: str, ud_root: str | Path) -> list[Path]:
    """The test and dev CoNLL-U files of every UD treebank of `lang` under `ud_root`."""
    if lang not in UD_LANGUAGES:
        raise InputError(f"no UD language name known for {lang!r}")
    root = Path(ud_root)
    files = []
    for folder in sorted(root.glob(f"UD_{UD_LANGUAGES[lang]}-*")):
        for split in ("test", "dev"):
            files.extend(split_files(folder, split))
    return files


@cache
def _ud_index(files: tuple[Path, ...]) -> dict[str, Counter]:
    """normalised FORM -> Counter of (number, persons) over verbal words with a Number."""
    index: dict[str, Counter] = {}
    sentences = (s for path in files for s in read_conllu(path))
    for s in sentences:
        for form, upos, feats in zip(s.forms, s.upos, s.feats, strict=True):
            if upos not in VERBAL_UPOS:
                continue
            feats = parse_feats(feats)
            number = feats.get("Number")
            if number is None or feats.get("Mood", "Ind") != "Ind":
                continue
            persons = frozenset(feats.get("Person", "").split(",")) - {""}
            index.setdefault(normalise(form), Counter())[(number, persons)] += 1
    return index


def _person(attributes: tuple[str, ...]) -> str | None:
    found = [a for a in attributes if a in PERSONS]
    return found[0] if len(found) == 1 else None


def ud_verdict(word: str, number: str, person: str | None, files: tuple[Path, ...]) -> str:
    """What the UD files say about `word` having `number` (``s`` or ``p``)."""
    seen = set()
    for value, persons in _ud_index(files).get(normalise(word), Counter()):
        if person is not None and persons and person not in persons:
            continue
        seen.update(value.split(","))
    return _verdict(seen, NUMBERS[number])


def pymorphy_verdict(word: str, number: str, person: str | None) -> str:
    """What pymorphy3's Russian dictionary says about the finite verb `word`."""
    morph = russian_analyzer()
    if not morph.word_is_known(word.lower()):
        return UNKNOWN
    seen = set()
    for parse in morph.parse(word.lower()):
        tag = parse.tag
        if tag.POS != "VERB" or tag.number is None:
            continue
        if person is not None and tag.person is not None and tag.person != f"{person}per":
            continue
        seen.add({"sing": "Sing", "plur": "Plur"}[tag.number])
    return _verdict(seen, NUMBERS[number])


def _verdict(seen: set[str], expected: str) -> str:
    if expected in seen:
        return CONFIRMED
    if seen & set(NUMBERS.values()):
        return CONTRADICTED
    return UNKNOWN


def pymorphy_available() -> bool:
    """Whether pymorphy3 and its Russian dictionary can be imported."""
    try:
        russian_analyzer()
    except (ImportError, ValueError):  # ValueError: pymorphy3 without its Russian dictionary
        return False
    return True


def check_folder(
    lang: str, folder: str | Path, ud_root: str | Path, *, pymorphy: bool | None = None
) -> list[FormCheck]:
    """Every varied form of the grammars in `folder`, once per (preterminal, attributes, form),
    with its verdict.

    Russian forms are also looked up in pymorphy3: always with ``pymorphy=True`` (an
    ImportError if it is missing), never with ``False``, when it is installed with ``None``.
    """
    use_pymorphy = lang == "ru" and (pymorphy_available() if pymorphy is None else pymorphy)
    files = tuple(ud_files(lang, ud_root))
    if not files:
        raise InputError(f"no UD test/dev files for {lang!r} under {ud_root}")
    seen: dict[tuple[str, tuple[str, ...], str], tuple[str, list[str]]] = {}
    for name, grammar in read_grammar_folder(folder).items():
        for preterminal, attributes, form, word in varied_forms(grammar):
            key = (preterminal, attributes, form)
            if key not in seen:
                seen[key] = (word, [])
            if name not in seen[key][1]:
                seen[key][1].append(name)
    checks = []
    for (preterminal, attributes, form), (word, constructions) in seen.items():
        number = [a for a in attributes if a in NUMBERS]
        sources: dict[str, str] = {}
        if len(number) == 1:
            person = _person(attributes)
            sources["ud"] = ud_verdict(word, number[0], person, files)
            if use_pymorphy:
                sources["pymorphy3"] = pymorphy_verdict(word, number[0], person)
        verdicts = set(sources.values())
        status = (
            CONTRADICTED
            if CONTRADICTED in verdicts
            else CONFIRMED
            if CONFIRMED in verdicts
            else UNKNOWN
        )
        checks.append(
            FormCheck(preterminal, attributes, form, word, status, sources, tuple(constructions))
        )
    return checks
