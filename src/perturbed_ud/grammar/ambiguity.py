"""The ambiguity check of agreement minimal pairs: is the "bad" sentence grammatical after all?

A minimal pair is wrong when its ungrammatical form has another reading that agrees with the
subject: English *read* after a singular subject is a correct past tense (*the judge that
the officers know read*). The check looks up the finite word of the bad form (the first word
that differs from the good form: *sont* of *sont jeunes*) in the readings real data gives it:

- **UD**: every VERB or AUX word of the treebanks read with VerbForm=Fin and Mood=Ind (or no
  Mood): its Number, Person and Tense;
- **pymorphy3** (Russian): the dictionary's finite indicative analyses.

A reading agrees with the subject (the good form's number and person) when its person is
absent or the subject's, and its number is the subject's, or absent in a tense other than
the grammar's: English *read* (Tense=Past, no Number in PUD; Number=Sing in EWT) agrees with
any subject, while *are* (Tense=Pres, no Number in PUD) is a present tense that treebank
merely leaves unannotated. The grammar's tense is the commonest Tense among the readings of
all its varied words. One agreeing reading in any source refuses the pair, counted under
``ambiguous:<source>``.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from functools import cache
from importlib.metadata import version
from pathlib import Path

from ..files import file_sha256
from ..perturb.inflection import russian_analyzer
from ..ud.conllu_io import parse_feats, read_conllu
from .morphology import NUMBERS, PERSONS, VERBAL_UPOS, normalise

AMBIGUOUS = "ambiguous"


Reading = tuple[str, frozenset[str], str]  # (Number or "", persons, Tense or "")


@cache
def ud_readings(files: tuple[Path, ...]) -> dict[str, frozenset[Reading]]:
    """normalised FORM -> its finite indicative readings."""
    readings: dict[str, set] = {}
    for sentence in (s for path in files for s in read_conllu(path)):
        for form, upos, feats in zip(sentence.forms, sentence.upos, sentence.feats, strict=True):
            if upos not in VERBAL_UPOS:
                continue
            feats = parse_feats(feats)
            if feats.get("VerbForm") != "Fin" or feats.get("Mood", "Ind") != "Ind":
                continue
            persons = frozenset(feats.get("Person", "").split(",")) - {""}
            reading = (feats.get("Number", ""), persons, feats.get("Tense", ""))
            readings.setdefault(normalise(form), set()).add(reading)
    return {form: frozenset(r) for form, r in readings.items()}


def _subject(attributes: Iterable[str]) -> tuple[str | None, str | None]:
    """(UD Number, person) of a subject with the good form's attributes."""
    attributes = list(attributes)
    numbers = [NUMBERS[a] for a in attributes if a in NUMBERS]
    persons = [a for a in attributes if a in PERSONS]
    return (numbers[0] if len(numbers) == 1 else None, persons[0] if len(persons) == 1 else None)


def _agrees(reading: Reading, subject: tuple[str | None, str | None], tense: str) -> bool:
    number, persons, reading_tense = reading
    want_number, want_person = subject
    if persons and want_person is not None and want_person not in persons:
        return False
    if number:
        return want_number is None or want_number in number.split(",")
    return bool(tense) and reading_tense != tense


class AgreementReadings:
    """Where a bad form has a reading that agrees with the subject: UD files and, for
    Russian, pymorphy3."""

    def __init__(self, files: Iterable[Path], varied_words: Iterable[str], *, pymorphy=False):
        self.files = tuple(files)
        self.pymorphy = pymorphy
        self._memo: dict[tuple[str, tuple[str, ...]], str | None] = {}
        tenses = Counter(
            reading[2]
            for word in set(varied_words)
            for reading in self._ud().get(normalise(word), ())
            if reading[2]
        )
        self.tense = tenses.most_common(1)[0][0] if tenses else ""

    def _ud(self) -> dict[str, frozenset[Reading]]:
        return ud_readings(self.files) if self.files else {}

    def describe(self) -> dict:
        """What the check read, for build.json: UD files by name and sha256, pymorphy3."""
        described: dict = {"ud": [{"name": f.name, "sha256": file_sha256(f)} for f in self.files]}
        if self.pymorphy:
            described["pymorphy3"] = version("pymorphy3")
        return described

    def agreeing_source(self, word: str, good_attributes: tuple[str, ...]) -> str | None:
        """The first source with a reading of ``word`` that agrees with a subject of the good
        form's attributes, or None."""
        key = (word, good_attributes)
        if key not in self._memo:
            self._memo[key] = self._lookup(word, _subject(good_attributes))
        return self._memo[key]

    def _lookup(self, word: str, subject: tuple[str | None, str | None]) -> str | None:
        if any(_agrees(r, subject, self.tense) for r in self._ud().get(normalise(word), ())):
            return "ud"
        if self.pymorphy and _pymorphy_agrees(word, subject):
            return "pymorphy3"
        return None


def _pymorphy_agrees(word: str, subject: tuple[str | None, str | None]) -> bool:
    morph = russian_analyzer()
    if not morph.word_is_known(word.lower()):
        return False  # the analyser's guesses for unknown words are no evidence
    for parse in morph.parse(word.lower()):
        tag = parse.tag
        if tag.POS != "VERB" or "indc" not in tag:
            continue
        number = {"sing": "Sing", "plur": "Plur"}.get(tag.number, "")
        person = frozenset([tag.person[0]] if tag.person else [])
        if number and _agrees((number, person, ""), subject, ""):
            return True
    return False
