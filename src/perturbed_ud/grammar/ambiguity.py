"""The ambiguity check of agreement minimal pairs: is the "bad" sentence grammatical after all?

A minimal pair is wrong when its ungrammatical form has another reading that agrees with the
subject: English *read* after a singular subject is a correct past tense (*the judge that
the officers know read*). Both agreement families ask the same question of the same data:
CLAMS of the finite word of a grammar's bad form (the first word that differs from the good
form: *sont* of *sont jeunes*), ud_agreement of the swapped verb. The readings a form has:

- **UD**: every VERB or AUX word of the treebank files read, with its VerbForm, Mood, Tense
  and agreement features (Number, Person, Gender);
- **UniMorph** (ud_agreement with ``--unimorph``): the table's verb forms, mapped to UD;
- **pymorphy3** (Russian): the dictionary's finite indicative analyses.

Only readings in the target's verb form count (a finite verb's bad form is not rescued by an
infinitive), and CLAMS counts only indicative ones. A reading agrees with the subject when it
contradicts none of the subject's agreement values and either carries the varied feature (then
it is the subject's value) or lacks it in another tense or mood than the target's: English
*read* (Tense=Past, no Number in PUD; Number=Sing in EWT) agrees with any subject, while
*are* (Tense=Pres, no Number in PUD) is a present tense that treebank merely leaves
unannotated. One agreeing reading in any source refuses the pair, counted under
``ambiguous:<source>``.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import cache
from importlib.metadata import version
from pathlib import Path

from ..files import file_sha256
from ..resources.inflection import russian_analyzer
from ..ud.conllu_io import parse_feats, read_conllu
from .morphology import NUMBERS, PERSONS, VERBAL_UPOS, normalise

AMBIGUOUS = "ambiguous"
AGREEMENT = ("Number", "Person", "Gender")  # the features a verb may agree in

Subject = Mapping[str, frozenset[str]]  # agreement feature -> the subject's values


def values(feats: Mapping[str, str], name: str) -> frozenset[str]:
    """A feature's values (``Number=Sing,Plur`` has two), none when absent."""
    return frozenset(feats.get(name, "").split(",")) - {""}


@dataclass(frozen=True)
class Reading:
    """One analysis of a verb form: its paradigm cell and what it agrees in."""

    verb_form: str
    mood: str
    tense: str
    agreement: tuple[frozenset[str], ...]  # values of each `AGREEMENT` feature

    @classmethod
    def of(cls, feats: Mapping[str, str]) -> Reading:
        return cls(
            feats.get("VerbForm", ""),
            feats.get("Mood", ""),
            feats.get("Tense", ""),
            tuple(values(feats, name) for name in AGREEMENT),
        )

    def value(self, name: str) -> frozenset[str]:
        return self.agreement[AGREEMENT.index(name)]


def agrees(reading: Reading, subject: Subject, feature: str, target: Reading) -> bool:
    """Whether ``reading`` of a bad form fits ``subject``, the bad form standing where the
    ``target`` cell agreed with it in ``feature``."""
    for name, wanted in subject.items():
        found = reading.value(name)
        if found and wanted and not found & wanted:
            return False
    if reading.value(feature):
        return True
    other_tense = bool(target.tense) and reading.tense != target.tense
    other_mood = bool(target.mood and reading.mood) and reading.mood != target.mood
    return other_tense or other_mood


@cache
def ud_readings(files: tuple[Path, ...]) -> dict[str, frozenset[Reading]]:
    """normalised FORM -> the readings of its VERB and AUX words in ``files``."""
    readings: dict[str, set] = {}
    for sentence in (s for path in files for s in read_conllu(path)):
        for form, upos, feats in zip(sentence.forms, sentence.upos, sentence.feats, strict=True):
            if upos in VERBAL_UPOS:
                readings.setdefault(normalise(form), set()).add(Reading.of(parse_feats(feats)))
    return {form: frozenset(r) for form, r in readings.items()}


def pymorphy_readings(word: str) -> frozenset[Reading]:
    """The finite indicative analyses pymorphy3 gives a word it knows (its guesses for
    unknown words are no evidence)."""
    morph = russian_analyzer()
    if not morph.word_is_known(word.lower()):
        return frozenset()
    found = set()
    for parse in morph.parse(word.lower()):
        tag = parse.tag
        if tag.POS != "VERB" or "indc" not in tag:
            continue
        feats = {"VerbForm": "Fin", "Mood": "Ind", "Tense": {"past": "Past"}.get(tag.tense, "")}
        feats["Number"] = {"sing": "Sing", "plur": "Plur"}.get(tag.number, "")
        feats["Person"] = tag.person[0] if tag.person else ""
        feats["Gender"] = {"masc": "Masc", "femn": "Fem", "neut": "Neut"}.get(tag.gender, "")
        found.add(Reading.of(feats))
    return frozenset(found)


def _indicative(reading: Reading) -> bool:
    """A reading without a mood is taken as indicative."""
    return reading.mood in ("", "Ind")


class AgreementReadings:
    """Where a bad form has a reading that agrees with the subject: UD files, other
    readings a family adds by name (UniMorph), and pymorphy3 for Russian."""

    def __init__(
        self,
        files: Iterable[Path],
        varied_words: Iterable[str] = (),
        *,
        pymorphy: bool = False,
        extra: Mapping[str, Mapping[str, frozenset[Reading]]] | None = None,
    ):
        self.files = tuple(files)
        self.pymorphy = pymorphy
        self.extra = dict(extra or {})
        self._memo: dict = {}
        tenses = Counter(
            reading.tense
            for word in set(varied_words)
            for reading in self._ud().get(normalise(word), ())
            if reading.tense and reading.verb_form == "Fin" and _indicative(reading)
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
        """CLAMS: the first source with a finite indicative reading of ``word`` that agrees
        in number with a subject of the good form's attributes (``3``, ``s``), or None."""
        attributes = list(good_attributes)
        numbers = [NUMBERS[a] for a in attributes if a in NUMBERS]
        persons = [a for a in attributes if a in PERSONS]
        subject = {
            "Number": frozenset(numbers if len(numbers) == 1 else ()),
            "Person": frozenset(persons if len(persons) == 1 else ()),
        }
        target = Reading("Fin", "", self.tense, ((),) * len(AGREEMENT))
        return self.source_of(word, subject, "Number", target, indicative_only=True)

    def source_of(
        self, word: str, subject: Subject, feature: str, target: Reading, indicative_only=False
    ) -> str | None:
        """The first source with a reading of ``word`` in the ``target``'s verb form (and
        indicative, if asked) that agrees with ``subject`` (see `agrees`), or None."""
        key = (word, tuple(sorted(subject.items())), feature, target, indicative_only)
        if key not in self._memo:
            self._memo[key] = self._lookup(*key)
        return self._memo[key]

    def _lookup(
        self, word: str, subject: tuple, feature: str, target: Reading, indicative_only: bool
    ) -> str | None:
        subject = dict(subject)
        form = normalise(word)
        sources = [("ud", self._ud().get(form, ()))]
        sources += [(name, readings.get(form, ())) for name, readings in self.extra.items()]
        if self.pymorphy:
            sources.append(("pymorphy3", pymorphy_readings(word)))
        for name, readings in sources:
            for reading in readings:
                if reading.verb_form != target.verb_form:
                    continue
                if indicative_only and not _indicative(reading):
                    continue
                if agrees(reading, subject, feature, target):
                    return name
        return None
