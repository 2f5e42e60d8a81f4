"""Agreement minimal pairs from UD sentences: the treebank's sentence, and the same sentence
with the agreeing verb's Number, Person or Gender swapped to a form that disagrees with the
subject (after MultiBLiMP, Jumelet et al. 2025).

A **pair site** is a subject (deprel ``nsubj``, a NOUN or PRON) and the word that agrees with
it. The subject's head is a VERB or AUX; the agreeing word is:

- **subject–verb** (``sv``): the head's first auxiliary or copula (``aux``, ``aux:*``,
  ``cop``) if it has one, else the head, when that word is finite (VerbForm=Fin);
- **subject–participle** (``sp``): the head itself when it is a participle
  (VERB, VerbForm=Part) carrying the feature (Hebrew present tense, Turkish, passives).

Per feature the word carries (one value), the subject must carry the same value (a noun
without Person is third person); a treebank where they disagree is not trusted and the site
is dropped. Each other value of the feature the language has for that part of speech gives a
candidate: the word's FEATS with that value, looked up as lemma + FEATS in the form lexicon
(`AgreementForms`: the treebank's own words first, then UniMorph where fetched). A candidate
is refused, and counted by reason, when no form is known, when the form is the original's
(syncretism: German *sie* verbs), or when the form has a reading that agrees with the subject
(`..grammar.ambiguity`: English *read*, subjunctive *were*).

Left out, as MultiBLiMP does: sentences over `MAX_WORDS` words and those with disfluencies or
corrected words (``reparandum``, Typo, CorrectForm, Style, Foreign), coordinated subjects
(*the cat and the dog sleep*), clauses with an expletive or outer subject (*il y a*, double
subjects), and words inside a multiword token (*dámelo*, Hebrew prefixed verbs), whose
spelling would change with the swap, or attached to the word before (*he's*).

Added here, where a swap would not make the sentence wrong: subjects not in the nominative
(an ergative or genitive subject does not control the verb), quantified subjects (Russian
*пять студентов пришло/пришли*: both fine), a subject form that itself has a reading with the
swapped value (German *sie geht* / *sie gehen*), the `OPTIONAL_AGREEMENT` of a language,
English collective nouns (*the team are*), and gender swaps on a title before a name, whose
gender is its bearer's; swaps that let the subject be read otherwise (`other_reading`): a
second-person imperative, or in Turkish a second-person verb or a first-person verb after a
noun, whose subject may be a vocative (*Herkes otur*, everyone, sit), and a Turkish person
swap on *ol-* 'be, become', whose subject may be its predicate (*ne oldum*, what have I
become); and, where the treebank leaves a suffix unannotated, forms that part within the
lemma or at its end (`AGREEMENT_AFTER_STEM`).
"""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import NamedTuple

from ..perturb.inflection import Lexicon
from ..perturb.lemma import lemma_or_form
from ..perturb.spacing import space_after
from ..perturb.surface_rules import like_case
from ..ud.columns import SentenceColumns
from ..ud.conllu_io import Sentence, parse_feats, read_conllu
from .ambiguity import AGREEMENT, AgreementReadings, Reading, values
from .morphology import normalise

MAX_WORDS = 64  # longer sentences are left out (MultiBLiMP's limit)
SUBJECT_UPOS = frozenset({"NOUN", "PRON"})
HEAD_UPOS = frozenset({"VERB", "AUX"})
# Phenomena, in card order: (kind, feature) -> split name.
PHENOMENA = {
    (kind, feature): f"{kind}_{feature.lower()}" for kind in ("sv", "sp") for feature in AGREEMENT
}
# Reasons a sentence, site or candidate gives no pair.
TOO_LONG, UNRELIABLE = "sentence_over_max_words", "disfluency_or_correction"
COORDINATED, EXPLETIVE, MULTIWORD = (
    "coordinated_subject",
    "expletive_or_outer_subject",
    "in_multiword_token",
)
UNANNOTATED, DISAGREE = "subject_lacks_feature", "treebank_disagreement"
# The subject has the feature, the word that would agree with it has none: the language does
# not agree in it there (English verbs in gender), or the treebank leaves it out (PUD's *are*).
TARGET_UNANNOTATED = "target_lacks_feature"
NO_FORM, SYNCRETIC, AMBIGUOUS = "no_form", "same_form", "ambiguous"
NOT_NOMINATIVE, QUANTIFIED = "subject_not_nominative", "quantified_subject"
AMBIGUOUS_SUBJECT, OPTIONAL = "ambiguous_subject", "optional_agreement"
OTHER_READING, NOT_MINIMAL = "other_reading", "changes_more_than_agreement"


class Optional(NamedTuple):
    """Where a language lets a subject take either value, the swap to it is no error."""

    feature: str
    good: str  # the verb's value
    bad: str  # the swapped value
    subject_number: str
    verb_first: bool = False  # only for a verb before its subject
    person: str | None = None  # only for a verb of this person


# Turkish third-person plural subjects often take a singular verb (*çocuklar geldi*), and a
# third-person plural verb may be an honorific or have a dropped subject; Arabic verbs before
# a plural subject are singular (*ذهب الطلاب*), and may be masculine before a feminine subject
# that is not a woman or stands apart from the verb (*طلع الشمس*) and of either gender before
# a broken or non-human plural (*قالت الرجال*), which UD does not tell from a sound masculine
# plural (whose verb is masculine: those swaps are refused too); Spanish,
# Catalan and Greek plural subjects take a first or second person plural verb that includes
# the speaker or hearer (*los españoles somos*).
_UNAGREEMENT = (Optional("Person", "3", "1", "Plur"), Optional("Person", "3", "2", "Plur"))
OPTIONAL_AGREEMENT = {
    "tr": (
        Optional("Number", "Plur", "Sing", "Plur"),
        Optional("Number", "Sing", "Plur", "Sing", person="3"),
    ),
    "ar": (
        Optional("Number", "Plur", "Sing", "Plur", verb_first=True),
        Optional("Gender", "Fem", "Masc", "Sing", verb_first=True),
        Optional("Gender", "Fem", "Masc", "Dual", verb_first=True),
        Optional("Gender", "Fem", "Masc", "Plur", verb_first=True),
        Optional("Gender", "Masc", "Fem", "Plur", verb_first=True),
    ),
    "es": _UNAGREEMENT,
    "ca": _UNAGREEMENT,
    "el": _UNAGREEMENT,
}
# Languages that often write a vocative without a comma, so that a first- or second-person
# verb may have a dropped pronoun subject and the nominal subject be addressed.
VOCATIVE_WITHOUT_COMMA = frozenset(["tr"])
# Person swaps on these verbs let a nominal subject be read as their predicate, with a dropped
# pronoun subject (Turkish *sorun oldu*, a problem arose -> *sorun oldum*, I became a
# problem).
PREDICATE_VERBS = {"tr": frozenset(["ol"])}
# Languages whose agreement endings follow the stem and its derivational and negative
# suffixes, so that a swapped form shares more than the lemma with the original (or is the
# lemma, *değil* / *değilim*); forms that part within the lemma or at its end differ in a
# suffix the treebank leaves unannotated (Turkish BOUN mostly leaves negative ability
# unmarked: *öğrenmediler* and *öğrenemediniz* differ only in Person in its FEATS) or in
# vowel harmony (*musunuz* / *miyiz*).
AGREEMENT_AFTER_STEM = frozenset(["tr"])
# English singular collective nouns take a plural verb in British use (*the team are*).
COLLECTIVE_NOUNS = {
    "en": frozenset(
        [
            "administration",
            "agency",
            "army",
            "association",
            "audience",
            "band",
            "bank",
            "board",
            "cabinet",
            "class",
            "club",
            "committee",
            "community",
            "company",
            "congress",
            "corporation",
            "council",
            "couple",
            "crew",
            "crowd",
            "department",
            "family",
            "firm",
            "government",
            "group",
            "industry",
            "jury",
            "majority",
            "management",
            "media",
            "minority",
            "ministry",
            "navy",
            "opposition",
            "organisation",
            "organization",
            "parliament",
            "party",
            "police",
            "population",
            "press",
            "public",
            "school",
            "staff",
            "team",
            "union",
            "university",
        ]
    )
}


@dataclass(frozen=True)
class AgreementPair:
    """One swapped agreement feature of one sentence."""

    phenomenon: str  # split name, e.g. sv_number
    subject: int  # 0-based word index
    target: int
    feature: str
    good_value: str
    bad_value: str
    good_feats: str
    bad_feats: str
    good_form: str
    bad_form: str
    form_source: str  # the lexicon the bad form came from: ud or unimorph
    sentence_good: str
    sentence_bad: str
    position: int  # the changed word among the sentence's space-separated words


class AgreementForms:
    """Verb forms by (UPOS, lemma, FEATS) from the treebank's files, then UniMorph or
    pymorphy3; and the values each agreement feature takes per UPOS in the lexicons (a swap
    only goes to those)."""

    def __init__(self, lexicons: list, nominals: dict[str, dict[str, set]] | None = None):
        self.lexicons = lexicons
        self.nominals = nominals or {}  # a NOUN/PRON form -> feature -> values it is read with
        self.inventory: dict[tuple[str, str], set[str]] = {}
        for lexicon in lexicons:
            for (upos, _), by_feats in getattr(lexicon, "entries", {}).items():
                for feats in by_feats:
                    parsed = parse_feats(feats)
                    for name in AGREEMENT:
                        self.inventory.setdefault((upos, name), set()).update(values(parsed, name))

    @classmethod
    def from_ud(cls, files: Iterable[Path], extra: list = ()) -> AgreementForms:
        """VERB and AUX words of ``files`` (typos and corrected words left out), then ``extra``."""
        lexicon, nominals = Lexicon("ud"), {}
        for path in files:
            for s in read_conllu(path):
                for i, upos in enumerate(s.upos):
                    if "Typo=Yes" in s.feats[i]:
                        continue
                    if upos in HEAD_UPOS:
                        lemma = lemma_or_form(s.forms[i], s.lemmas[i])
                        lexicon.add(upos, lemma, s.feats[i], _entry(s.forms[i], lemma))
                    elif upos in SUBJECT_UPOS:
                        feats = parse_feats(s.feats[i])
                        if _nominative(feats):
                            found = nominals.setdefault(normalise(s.forms[i]), {})
                            for name in AGREEMENT:
                                found.setdefault(name, set()).update(values(feats, name))
        return cls([lexicon, *extra], nominals)

    def subject_reads(self, form: str, feature: str, value: str) -> bool:
        """Whether the subject's form is also read, as a nominative, with ``value``."""
        return value in self.nominals.get(normalise(form), {}).get(feature, ())

    def other_values(self, upos: str, feature: str, value: str) -> list[str]:
        return sorted(self.inventory.get((upos, feature), set()) - {value})

    def form(self, upos: str, lemma: str, feats: str) -> tuple[str, str] | None:
        """The commonest form of the cell and the lexicon it came from, or None."""
        for lexicon in self.lexicons:
            if forms := lexicon.forms(upos, lemma, feats):
                return forms[0], lexicon.name.split(":")[0]
        return None


def lexicon_readings(lexicon: Lexicon) -> dict[str, frozenset[Reading]]:
    """normalised form -> its verb readings in a lexicon (UniMorph's, for the ambiguity check)."""
    readings: dict[str, set] = {}
    for (upos, _), by_feats in lexicon.entries.items():
        if upos in HEAD_UPOS:
            for feats, counts in by_feats.items():
                for form in counts:
                    readings.setdefault(normalise(form), set()).add(Reading.of(parse_feats(feats)))
    return {form: frozenset(found) for form, found in readings.items()}


def _nominative(feats: dict[str, str]) -> bool:
    return feats.get("Case", "Nom") == "Nom"


def _entry(form: str, lemma: str) -> str:
    """A form as a lexicon entry: a capital that is not the lemma's (sentence start) undone."""
    if lemma[:1].islower() and form[:1].isupper() and not form.isupper():
        return form[:1].lower() + form[1:]
    return form


def _unreliable(cols: SentenceColumns) -> bool:
    return "reparandum" in cols.deprels or any(
        mark in cell
        for cells in (cols.feats, cols.misc)
        for cell in cells
        for mark in ("Typo=Yes", "CorrectForm=", "Style=", "Foreign=Yes")
    )


def _surface(s: Sentence) -> tuple[list[str], list[int]]:
    """The sentence's tokens as written (a multiword token as one) with the spaces after them,
    as text parts; and per word the part it is (-1 inside a multiword token)."""
    spaces = space_after(s)
    starts = {m.start: m for m in s.multiword_tokens}
    parts, part_of, i = [], [-1] * len(s.forms), 0
    while i < len(s.forms):
        token = starts.get(i)
        end = token.end if token else i
        if not token:
            part_of[i] = len(parts)
        parts.append((token.form if token else s.forms[i]) + (" " if spaces[end] else ""))
        i = end + 1
    parts[-1] = parts[-1].rstrip(" ")
    return parts, part_of


def _swap_targets(cols: SentenceColumns, head: int) -> Iterator[tuple[str, int]]:
    """(kind, word index) of the words that agree with the head's subject."""
    children = [k for k, h in enumerate(cols.heads) if h == head + 1]
    auxiliaries = [k for k in children if cols.deprels[k].split(":")[0] in ("aux", "cop")]
    finite = auxiliaries[0] if auxiliaries else head
    if _finite(parse_feats(cols.feats[finite])):
        yield "sv", finite
    feats = parse_feats(cols.feats[head])
    if cols.upos[head] == "VERB" and feats.get("VerbForm") == "Part":
        yield "sp", head


def _finite(feats: dict[str, str]) -> bool:
    """VerbForm=Fin; treebanks that leave finite verbs without VerbForm (Turkish, Arabic,
    Hebrew) give them a Person."""
    return feats.get("VerbForm", "Fin" if "Person" in feats else "") == "Fin"


def _subject_value(cols: SentenceColumns, subject: int, feature: str) -> frozenset[str]:
    found = values(parse_feats(cols.feats[subject]), feature)
    if not found and feature == "Person" and cols.upos[subject] == "NOUN":
        return frozenset({"3"})
    return found


def sentence_pairs(
    s: Sentence, lang: str, forms: AgreementForms, readings: AgreementReadings, dropped: Counter
) -> list[AgreementPair]:
    """Every pair of one sentence; what gave none is counted in ``dropped``."""
    if len(s.forms) > MAX_WORDS:
        dropped[TOO_LONG] += 1
        return []
    cols = SentenceColumns.from_sentence(s)
    if _unreliable(cols):
        dropped[UNRELIABLE] += 1
        return []
    parts, part_of = _surface(s)
    pairs = []
    for subject, (deprel, upos) in enumerate(zip(cols.deprels, cols.upos, strict=True)):
        head = cols.heads[subject] - 1
        if deprel != "nsubj" or upos not in SUBJECT_UPOS or head < 0:
            continue
        if cols.upos[head] not in HEAD_UPOS:
            continue
        dependents = [cols.deprels[k] for k, h in enumerate(cols.heads) if h == subject + 1]
        if "conj" in dependents:
            dropped[COORDINATED] += 1
            continue
        if not _nominative(parse_feats(cols.feats[subject])):
            dropped[NOT_NOMINATIVE] += 1
            continue
        if any(d in ("nummod:gov", "det:numgov") for d in dependents):
            dropped[QUANTIFIED] += 1
            continue
        siblings = [cols.deprels[k] for k, h in enumerate(cols.heads) if h == head + 1]
        if any(d.startswith("expl") or d in ("nsubj:outer", "csubj:outer") for d in siblings):
            dropped[EXPLETIVE] += 1
            continue
        for kind, target in _swap_targets(cols, head):
            site = Site(lang, cols, subject, target, kind, parts, part_of)
            pairs += _target_pairs(site, forms, readings, dropped)
    return pairs


@dataclass(frozen=True)
class Site:
    """A subject and the word that agrees with it, in their sentence."""

    lang: str
    cols: SentenceColumns
    subject: int
    target: int
    kind: str  # sv or sp
    parts: list[str]  # the sentence's text, token by token (`_surface`)
    part_of: list[int]

    @cached_property
    def feats(self) -> dict[str, str]:
        """The agreeing word's FEATS."""
        return parse_feats(self.cols.feats[self.target])

    @cached_property
    def subject_feats(self) -> dict[str, str]:
        return parse_feats(self.cols.feats[self.subject])

    @cached_property
    def lemma(self) -> str:
        """The agreeing word's lemma, its form where the treebank gives none."""
        return lemma_or_form(self.cols.forms[self.target], self.cols.lemmas[self.target])

    def optional(self, feature: str, good: str, bad: str) -> bool:
        """Whether the language also allows the swapped value here: an `OPTIONAL_AGREEMENT`
        rule, a collective noun's plural, a title whose gender is its bearer's (*ח"כ
        גולדמן*, *Dr. Smith*)."""
        cols, subject = self.cols, self.subject
        number, person = self.subject_feats.get("Number"), self.feats.get("Person")
        for rule in OPTIONAL_AGREEMENT.get(self.lang, ()):
            if (
                rule[:4] == (feature, good, bad, number)
                and (not rule.verb_first or self.target < subject)
                and rule.person in (None, person)
            ):
                return True
        lemma = lemma_or_form(cols.forms[subject], cols.lemmas[subject]).lower()
        if feature == "Number" and lemma in COLLECTIVE_NOUNS.get(self.lang, ()):
            return True
        named = any(h == subject + 1 and cols.upos[k] == "PROPN" for k, h in enumerate(cols.heads))
        return feature == "Gender" and cols.upos[subject] == "NOUN" and named

    def other_reading(self, person: str) -> bool:
        """Whether the swap to `person` lets the subject be read as something else: addressed
        (a second-person imperative; where vocatives go without a comma, a second-person
        verb, *Çocuklar ödevinizi yapmadınız*, children, you did not do your homework, or a
        first-person verb after a noun, *gazeteciler geliyorum*, journalists, I am coming),
        or the predicate of a verb like Turkish *ol-* with a dropped pronoun subject (*ne
        oldum*)."""
        if person == "2" and self.feats.get("Mood") == "Imp":
            return True
        if self.lang in VOCATIVE_WITHOUT_COMMA and person in ("1", "2"):
            # a pronoun, or a noun of a third person's (*annesi*, his mother), is not addressed
            possessor = self.subject_feats.get("Person[psor]")
            if self.cols.upos[self.subject] != "PRON" and possessor != "3":
                return True
        return self.lemma.lower() in PREDICATE_VERBS.get(self.lang, ())


def _target_pairs(site: Site, forms, readings, dropped) -> list[AgreementPair]:
    cols, subject, target, parts, part_of = (site.cols, site.subject, site.target, site.parts,
                                              site.part_of)  # fmt: skip
    feats = site.feats
    carried = [name for name in AGREEMENT if len(values(feats, name)) == 1]
    subject_values = {name: _subject_value(cols, subject, name) for name in AGREEMENT}
    subject_values = {name: v for name, v in subject_values.items() if v}
    for name in subject_values:
        if not values(feats, name):
            dropped[f"{PHENOMENA[site.kind, name]}:{TARGET_UNANNOTATED}"] += 1
    if not carried:
        return []
    k = part_of[target]
    if k < 0 or " " in cols.forms[target] or (k and not parts[k - 1].endswith(" ")):
        dropped[MULTIWORD] += 1
        return []
    upos, form = cols.upos[target], cols.forms[target]
    cell = Reading.of(feats)
    pairs = []
    for feature in carried:
        phenomenon = PHENOMENA[site.kind, feature]
        if feature not in subject_values:
            dropped[f"{phenomenon}:{UNANNOTATED}"] += 1
            continue
        if feats[feature] not in subject_values[feature]:
            dropped[f"{phenomenon}:{DISAGREE}"] += 1
            continue
        for value in forms.other_values(upos, feature, feats[feature]):
            bad_feats = "|".join(f"{k}={value if k == feature else v}" for k, v in sorted(
                feats.items(), key=lambda kv: kv[0].lower()))  # fmt: skip
            found = forms.form(upos, site.lemma, bad_feats)
            if found is None:
                dropped[f"{phenomenon}:{NO_FORM}"] += 1
                continue
            bad_form, source = like_case(form, found[0]), found[1]
            why = _refusal(site, feature, value, bad_form, forms)
            if why:
                dropped[f"{phenomenon}:{why}"] += 1
                continue
            if why := readings.source_of(bad_form, subject_values, feature, cell):
                dropped[f"{phenomenon}:{AMBIGUOUS}:{why}"] += 1
                continue
            bad_parts = [*parts[:k], parts[k].replace(form, bad_form, 1), *parts[k + 1 :]]
            good_text, bad_text = "".join(parts), "".join(bad_parts)
            pairs.append(
                AgreementPair(
                    phenomenon=phenomenon,
                    subject=subject,
                    target=target,
                    feature=feature,
                    good_value=feats[feature],
                    bad_value=value,
                    good_feats=cols.feats[target],
                    bad_feats=bad_feats,
                    good_form=form,
                    bad_form=bad_form,
                    form_source=source,
                    sentence_good=good_text,
                    sentence_bad=bad_text,
                    position="".join(parts[:k]).count(" "),
                )
            )
    return pairs


def _refusal(site: Site, feature, bad, bad_form, forms) -> str | None:
    """Why a found form makes no wrong sentence here, or None."""
    form = site.cols.forms[site.target]
    if bad_form.lower() == form.lower() or " " in bad_form:
        return SYNCRETIC
    if site.lang in AGREEMENT_AFTER_STEM:
        # case as written: `like_case` gave both the same first letter (lower() would make
        # Turkish İ two characters)
        lemma, shared = site.lemma, len(os.path.commonprefix([form, bad_form]))
        is_lemma = lemma.lower() in (form.lower(), bad_form.lower())
        if shared < len(lemma) or (shared == len(lemma) and not is_lemma):
            return NOT_MINIMAL
    if site.optional(feature, site.feats[feature], bad):
        return OPTIONAL
    if feature == "Person" and site.other_reading(bad):
        return OTHER_READING
    if forms.subject_reads(site.cols.forms[site.subject], feature, bad):
        return AMBIGUOUS_SUBJECT
    return None
