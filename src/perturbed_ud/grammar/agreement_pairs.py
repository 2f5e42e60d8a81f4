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
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import NamedTuple

from ..perturb.spacing import space_after
from ..perturb.surface_rules import like_case
from ..resources.inflection import Lexicon
from ..ud.columns import SentenceColumns, lemma_or_form
from ..ud.conllu_io import Sentence, parse_feats, read_conllu
from .ambiguity import AGREEMENT, AgreementReadings, Reading, values
from .morphology import normalise

MAX_WORDS = 64  # longer sentences are left out (MultiBLiMP's limit)
SUBJECT_UPOS = frozenset({"NOUN", "PRON"})
HEAD_UPOS = frozenset({"VERB", "AUX"})
FUNCTION_UPOS = frozenset({"PRON", "DET", "PART", "ADV", "ADJ"})
NOMINAL_UPOS = frozenset({"NOUN", "ADJ", "DET"})  # whose plural endings `plural_endings` reads
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
PREDICATE, HONORIFIC = "predicate_agreement", "honorific_plural"
PARENTHETICAL, ATTESTED = "parenthetical", "attested_in_treebank"
BELOW_GATE = "below_self_agreement_gate"
LEVELLED = "plural_levelled_to_singular"
# The dependents that agree with their noun, and so may mark its number (*der Lehrer*); a
# genitive modifier has its own (*vítězství týmu*, the team's victory or victories).
AGREEING_DEPENDENTS = frozenset({"det", "amod", "nummod", "acl"})
SPLIT_REFERENCE = "coordinated_adjectives"  # one noun, several referents: a plural reading
MIN_ATTESTED = 2  # a value seen once in a construction may be an annotation error
# A noun's form is read in the other number too where at least this share of its class's
# lemmas seen in that number end so in its case.
SAME_SHARE = 0.5
NOT_AGREEMENT = "construction_does_not_agree"
# A construction (`Site.construction` but the subject's value) whose word has its subject's
# value on fewer than this share of at least `MIN_SITES` sites does not agree.
CONSTRUCTION_GATE, MIN_SITES = 0.75, 5
DUPLICATE = "duplicate_sentence"
# the verb may agree with a nominal beside its subject: its modifier or the verb's object
COMPLEMENT, LEMMA_ATTESTED = "other_nominal_agreement", "attested_with_subject"
CORE_CASES = frozenset({"Acc", "Erg", "Abs"})
CLITIC_MARKS = frozenset("'’")  # a form opening with one is written onto the word before
# A subject not in the nominative controls the verb's features of its own layer: Basque
# marks ergative and absolutive agreement (``Number[erg]``, ``Person[abs]``), Georgian its
# subject's whatever its case (``Number[subj]``).
LAYERS = {"Erg": "erg", "Abs": "abs"}
# Clauses that comment on another (*it is, you know, fine*; *I think*): formulas, whose
# agreement a speaker may reduce (*y'know*) and whose swap can be read as a new address.
PARENTHETICAL_DEPRELS = frozenset({"parataxis", "discourse"})
# Predicates a copular clause's verb may agree with instead of its subject (*the problem
# are the students*; Italian *il problema sono gli studenti*; *it am I*).
PREDICATE_UPOS = frozenset({"NOUN", "PROPN", "PRON", "NUM", "DET"})


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
# a plural or dual subject are singular (*ذهب الطلاب*), and may be masculine before a feminine
# subject that is not a woman or stands apart from the verb (*طلع الشمس*) and of either
# gender before a broken or non-human plural (*قالت الرجال*), which UD does not tell from a
# sound masculine plural (whose verb is masculine: those swaps are refused too); Armenian and
# Persian inanimate plural subjects take a singular verb, and UD marks no animacy there.
OPTIONAL_AGREEMENT = {
    "tr": (
        Optional("Number", "Plur", "Sing", "Plur"),
        Optional("Number", "Sing", "Plur", "Sing", person="3"),
    ),
    "ar": (
        Optional("Number", "Plur", "Sing", "Plur", verb_first=True),
        Optional("Number", "Dual", "Sing", "Dual", verb_first=True),
        Optional("Gender", "Fem", "Masc", "Sing", verb_first=True),
        Optional("Gender", "Fem", "Masc", "Dual", verb_first=True),
        Optional("Gender", "Fem", "Masc", "Plur", verb_first=True),
        Optional("Gender", "Masc", "Fem", "Plur", verb_first=True),
    ),
    "hy": (Optional("Number", "Plur", "Sing", "Plur"),),
    "fa": (Optional("Number", "Plur", "Sing", "Plur"),),
}
# In any language, a plural subject may take a first or second person plural verb that
# includes the speaker or hearer ("unagreement": Spanish *los españoles somos*, Slovenian
# *avtorji ste predstavili*, you authors presented), where the verb alone can carry its
# subject; a language without it loses few pairs by the refusal.
UNAGREEMENT = (Optional("Person", "3", "1", "Plur"), Optional("Person", "3", "2", "Plur"))
# Languages whose singular subjects take a plural verb for respect (Hindi/Urdu *pitājī āe*,
# Persian, Marathi, Tamil, Bengali, Nepali, Telugu): a swap to the plural there may be an
# honorific. A treebank that marks politeness on its verbs (``Polite=Form`` on VERB or AUX)
# puts its language in the class too.
HONORIFIC_PLURAL = frozenset(["hi", "ur", "fa", "mr", "ta", "bn", "ne", "te", "kn", "ml", "gu"])
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


class Construction(NamedTuple):
    """The sites over which a language's treebanks are measured: those of a phenomenon with
    a pronoun or a noun subject of one value, the verb before or after it, and for a
    participle the lemmas of its auxiliaries (Spanish *ha comido* never agrees, *fue
    construida* does)."""

    phenomenon: str
    pronoun: bool
    value: str  # the subject's value(s), comma-joined
    verb_first: bool
    auxiliaries: str


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
    construction: Construction | None = None  # what its treebank's rates are measured over
    subject_lemma: str = ""


def noun_class(feats: dict, lemma: str) -> tuple[str, str, str]:
    """A noun's inflection class as far as a treebank shows it: its gender, its case and its
    lemma's last letter (a declension's ending)."""
    return feats.get("Gender", ""), feats.get("Case", ""), lemma.lower()[-1:]


def ending(lemma: str, form: str) -> tuple[str, str]:
    """How a form ends where its lemma's end is replaced: *vítězství* -> ("", ""), *Lehrer* ->
    ("", ""), *lidé* from *člověk* -> ("člověk", "lidé")."""
    lemma, form = lemma.lower(), normalise(form)
    n = len(os.path.commonprefix([lemma, form]))
    return lemma[n:], form[n:]


def plural_endings(endings: dict[tuple, dict[str, dict]]) -> dict[tuple, dict[tuple, float]]:
    """(UPOS, noun class) -> each plural ending seen on `MIN_ATTESTED` lemmas at least -> the
    share of the class's lemmas seen in the plural with it. An ending is compared, not one
    lemma's two forms, so that a class is known from lemmas seen in one number only
    (*stromořadí* and *dobrodružství*, avenues and adventures, tell of *vítězství*,
    victories); two lemmas at least, as one may have no singular (Czech *peníze*, money). A
    neuter's nominative and accusative are one form in every number, so their plurals count
    for each other."""
    shares = {}
    for kind, by_number in endings.items():
        plural = dict(by_number.get("Plur", {}))
        upos, gender, case, letter = kind
        if gender == "Neut" and (sister := {"Nom": "Acc", "Acc": "Nom"}.get(case)):
            other = endings.get((upos, gender, sister, letter), {})
            for lemma, found in other.get("Plur", {}).items():
                plural[lemma] = plural.get(lemma, set()) | found
        if plural:
            counts = Counter(e for found in plural.values() for e in found)
            shares[kind] = {e: n / len(plural) for e, n in counts.items() if n >= MIN_ATTESTED}
    return shares


def verb_class(upos: str, lemma: str, feats: str) -> tuple[str, str, str]:
    """A verb's inflection class in a cell but its number: its UPOS, its lemma's last two
    letters (a conjugation's infinitive ending: Czech *-ět*, *-it*) and its other features
    but polarity (a negative conjugates as its positive: *nevidí*, *vidí*)."""
    rest = "|".join(f for f in feats.split("|") if f.split("=")[0] not in ("Number", "Polarity"))
    return upos, lemma.lower()[-2:], rest


def levelled_classes(lexicon: Lexicon) -> set[tuple]:
    """The verb classes whose plural is their singular's form for at least `SAME_SHARE` of
    the lemmas seen in both numbers (`MIN_ATTESTED` at least): Czech *vidí*, *sedí* (sees,
    see; sits, sit)."""
    seen: dict[tuple, bool] = {}  # (class, lemma) -> one form in both numbers
    for (upos, lemma), by_feats in lexicon.entries.items():
        for feats, plural in by_feats.items():
            if "Number=Plur" not in feats.split("|"):
                continue
            if singular := by_feats.get(feats.replace("Number=Plur", "Number=Sing")):
                key = (verb_class(upos, lemma, feats), lemma)
                seen[key] = seen.get(key, False) or bool(set(plural) & set(singular))
    both, same = Counter(), Counter()
    for (kind, _), levelled in seen.items():
        both[kind] += 1
        same[kind] += levelled
    return {k for k, n in same.items() if n >= MIN_ATTESTED and n >= both[k] * SAME_SHARE}


class AgreementForms:
    """Verb forms by (UPOS, lemma, FEATS) from the treebank's files, then UniMorph or
    pymorphy3; and the values each agreement feature takes per UPOS in the lexicons (a swap
    only goes to those)."""

    def __init__(
        self,
        lexicons: list,
        nominals: dict[str, dict[str, set]] | None = None,
        *,
        polite_verbs: bool = False,
        function_words: set[str] = frozenset(),
        endings: dict[tuple, dict[tuple, float]] | None = None,
        numbers: dict[tuple[str, str], set[str]] | None = None,
        levelled: set[tuple] = frozenset(),
    ):
        self.lexicons = lexicons
        self.nominals = nominals or {}  # a NOUN/PRON form -> feature -> values it is read with
        # (UPOS, noun class) -> plural ending -> share of the class's lemmas (`plural_endings`)
        self.endings = endings or {}
        # the verb classes (`verb_class`) whose plural is their singular's form
        self.levelled = levelled
        self.numbers = numbers or {}  # (a word's form, its case) -> the numbers it is read with
        self.polite_verbs = polite_verbs  # the treebank marks politeness on verbs
        # forms the treebank also has as a pronoun, determiner, particle, adverb or adjective
        self.function_words = function_words
        # (UPOS, feature as FEATS names it, layered ones too) -> the values it takes
        self.inventory: dict[tuple[str, str], set[str]] = {}
        for lexicon in lexicons:
            for (upos, _), by_feats in getattr(lexicon, "entries", {}).items():
                for feats in by_feats:
                    for key, value in parse_feats(feats).items():
                        if base_feature(key) in AGREEMENT:
                            self.inventory.setdefault((upos, key), set()).update(value.split(","))

    @classmethod
    def from_ud(cls, files: Iterable[Path], extra: list = ()) -> AgreementForms:
        """VERB and AUX words of ``files`` (typos and corrected words left out), then ``extra``;
        beside them, what the files show of nominals: the values a subject's form is read with,
        the numbers each form is read with in its case, and the noun classes one form in both
        numbers."""
        lexicon, nominals, polite, words = Lexicon("ud"), {}, False, set()
        endings: dict[tuple, dict[str, dict]] = {}  # (UPOS, class) -> number -> lemma -> endings
        numbers: dict[tuple[str, str], set[str]] = {}
        for path in files:
            for s in read_conllu(path):
                for i, upos in enumerate(s.upos):
                    if "Typo=Yes" in s.feats[i]:
                        continue
                    if upos in FUNCTION_UPOS:
                        words.add(normalise(s.forms[i]))
                    feats = parse_feats(s.feats[i])
                    if "Number" in feats:
                        key = (normalise(s.forms[i]), feats.get("Case", ""))
                        numbers.setdefault(key, set()).update(values(feats, "Number"))
                    if upos in NOMINAL_UPOS and feats.get("Number") in ("Sing", "Plur"):
                        lemma = lemma_or_form(s.forms[i], s.lemmas[i])
                        cell = endings.setdefault((upos, *noun_class(feats, lemma)), {})
                        cell.setdefault(feats["Number"], {}).setdefault(lemma.lower(), set()).add(
                            ending(lemma, s.forms[i])
                        )
                    if upos in HEAD_UPOS:
                        lemma = lemma_or_form(s.forms[i], s.lemmas[i])
                        lexicon.add(upos, lemma, s.feats[i], _entry(s.forms[i], lemma))
                        polite = polite or {"Polite=Form", "Person=3"} <= set(s.feats[i].split("|"))
                    elif upos in SUBJECT_UPOS and (
                        # a form in another core case is often the nominative too
                        # (Ukrainian *повідомлення*, message or messages; Basque
                        # *maratoilariak*, the runner (ergative) or the runners)
                        _nominative(feats) or CORE_CASES & set(feats.get("Case", "").split(","))
                    ):
                        found = nominals.setdefault(normalise(s.forms[i]), {})
                        for name in AGREEMENT:
                            found.setdefault(name, set()).update(values(feats, name))

        return cls([lexicon, *extra], nominals, polite_verbs=polite, function_words=words,
                   endings=plural_endings(endings), numbers=numbers,
                   levelled=levelled_classes(lexicon))  # fmt: skip

    def subject_reads(self, form: str, feature: str, value: str) -> bool:
        """Whether the subject's form is also read, in a core case (nominative, accusative,
        ergative, absolutive: they coincide in many paradigms), with ``value``."""
        return value in self.nominals.get(normalise(form), {}).get(feature, ())

    def marks_number(self, form: str, feats: dict, value: str) -> bool:
        """Whether a word of this form and features is never read with ``value`` in its case:
        then it marks its phrase's number (German *der Lehrer*, one teacher)."""
        return "Number" in feats and value not in self.numbers.get(
            (normalise(form), feats.get("Case", "")), ()
        )

    def plural_too(self, upos: str, feats: dict, lemma: str, form: str) -> bool:
        """Whether a singular noun's (adjective's, determiner's) form ends as at least
        `SAME_SHARE` of its class's lemmas seen in the plural do in its case: then it is read
        in both numbers (Czech neuters in *-í*: *vítězství*, victory or victories; the soft
        adjective *příští*, next; Ukrainian neuters in *-ння*), while a form that marks its
        number keeps it (Icelandic *mótið*, the tournament, not *mótin*). A plural's lemma is
        not always its singular (English *people*, German *Kosten*), so a plural noun is read
        singular only where its own form is (`subject_reads`)."""
        shares = self.endings.get((upos, *noun_class(feats, lemma)), {})
        return shares.get(ending(lemma, form), 0.0) >= SAME_SHARE

    def levels_plural(self, upos: str, lemma: str, feats: str) -> bool:
        """Whether a plural verb's class mostly has its singular's form in the plural
        (`levelled_classes`): speech levels the rest too, and its singular form reads as a
        plural (colloquial Czech *lidé neví*, people don't know, after *lidé vidí*, people
        see), while a singular subject's plural verb stays wrong (*on vědí*)."""
        return verb_class(upos, lemma, feats) in self.levelled

    def other_values(self, upos: str, feature: str, value: str) -> list[str]:
        return sorted(self.inventory.get((upos, feature), set()) - {value})

    def form(self, upos: str, lemma: str, feats: str) -> tuple[str, str] | None:
        """The commonest form of the cell that stands as a word of its own (not a clitic
        written onto the word before: English *'re*), and the lexicon it came from, or
        None."""
        for lexicon in self.lexicons:
            forms = [f for f in lexicon.forms(upos, lemma, feats) if f[:1] not in CLITIC_MARKS]
            if forms:
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


def base_feature(key: str) -> str:
    """A feature's name without its layer: ``Number[erg]`` -> ``Number``."""
    return key.split("[", 1)[0]


def agreement_key(feats: dict[str, str], name: str, case: str | None) -> str | None:
    """The key under which a word's FEATS carry agreement in ``name`` with a subject in
    ``case``: the plain feature with a nominative (or caseless) subject, else the layer that
    names the subject (``Number[subj]``, or ``Number[erg]`` for an ergative one)."""
    if "Nom" in (case or "Nom").split(",") and name in feats:
        return name
    for layer in ("subj", LAYERS.get(case or "")):
        if layer and f"{name}[{layer}]" in feats:
            return f"{name}[{layer}]"
    return None


def _nominative(feats: dict[str, str]) -> bool:
    """Caseless, or nominative among its readings (Romanian *Case=Acc,Nom*)."""
    return "Nom" in feats.get("Case", "Nom").split(",")


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
    auxiliaries = [
        k for k in _children(cols, head) if cols.deprels[k].split(":")[0] in ("aux", "cop")
    ]
    finite = auxiliaries[0] if auxiliaries else head
    if cols.upos[finite] in HEAD_UPOS and _finite(parse_feats(cols.feats[finite])):
        yield "sv", finite
    feats = parse_feats(cols.feats[head])
    if cols.upos[head] == "VERB" and feats.get("VerbForm") == "Part":
        yield "sp", head


def _children(cols: SentenceColumns, head: int) -> list[int]:
    return [k for k, h in enumerate(cols.heads) if h == head + 1]


def _finite(feats: dict[str, str]) -> bool:
    """VerbForm=Fin; a verb without VerbForm (Turkish, Arabic, Hebrew, Irish, Persian,
    Georgian copulas) is finite when it carries a finite category (mood, tense or person)
    and no case: a case-marked verb is a nominalised one (Turkish *bilmem*, my knowing)."""
    if "VerbForm" in feats:
        return feats["VerbForm"] == "Fin"
    finite = any(base_feature(key) in ("Mood", "Tense", "Person") for key in feats)
    return finite and "Case" not in feats


def _subject_value(cols: SentenceColumns, subject: int, feature: str) -> frozenset[str]:
    found = values(parse_feats(cols.feats[subject]), feature)
    if not found and feature == "Person" and cols.upos[subject] == "NOUN":
        return frozenset({"3"})
    return found


def sentence_pairs(
    s: Sentence,
    lang: str,
    forms: AgreementForms,
    readings: AgreementReadings,
    dropped: Counter,
    observed: SelfAgreement | None = None,
) -> list[AgreementPair]:
    """Every pair of one sentence; what gave none is counted in ``dropped``, and every site's
    agreement in ``observed``."""
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
        siblings = [cols.deprels[k] for k in _children(cols, head)]
        if cols.upos[head] not in HEAD_UPOS and "cop" not in siblings:
            continue
        dependents = [cols.deprels[k] for k in _children(cols, subject)]
        if "conj" in dependents:
            dropped[COORDINATED] += 1
            continue
        if any(d in ("nummod:gov", "det:numgov") for d in dependents):
            dropped[QUANTIFIED] += 1
            continue
        if any(d.startswith("expl") or d in ("nsubj:outer", "csubj:outer") for d in siblings):
            dropped[EXPLETIVE] += 1
            continue
        if cols.deprels[head].split(":")[0] in PARENTHETICAL_DEPRELS:
            dropped[PARENTHETICAL] += 1
            continue
        for kind, target in _swap_targets(cols, head):
            site = Site(lang, cols, subject, head, target, kind, parts, part_of)
            if not site.nominative and not site.keys:
                dropped[NOT_NOMINATIVE] += 1
                continue
            pairs += _target_pairs(site, forms, readings, dropped, observed)
    return pairs


@dataclass(frozen=True)
class Site:
    """A subject and the word that agrees with it, in their sentence."""

    lang: str
    cols: SentenceColumns
    subject: int
    head: int  # the clause's head: the verb, or a copular clause's predicate
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
    def nominative(self) -> bool:
        return _nominative(self.subject_feats)

    @cached_property
    def keys(self) -> dict[str, str]:
        """Agreement feature -> the key the agreeing word's FEATS carry it under for this
        subject (`agreement_key`); a subject not in the nominative controls only a layer
        named for it."""
        case = self.subject_feats.get("Case")
        found = {name: agreement_key(self.feats, name, case) for name in AGREEMENT}
        if self.nominative:
            return {name: key for name, key in found.items() if key}
        return {name: key for name, key in found.items() if key and key != name}

    @cached_property
    def subject_lemma(self) -> str:
        """The subject's lemma; a pronoun's form (UD lemmatises *she* and *they* to *he* in
        some languages)."""
        cols, i = self.cols, self.subject
        if cols.upos[i] == "PRON":
            return cols.forms[i].lower()
        return lemma_or_form(cols.forms[i], cols.lemmas[i]).lower()

    @cached_property
    def lemma(self) -> str:
        """The agreeing word's lemma, its form where the treebank gives none."""
        return lemma_or_form(self.cols.forms[self.target], self.cols.lemmas[self.target])

    def construction(self, feature: str) -> Construction:
        """What the treebank's rate of each value is measured over (`Construction`)."""
        cols = self.cols
        auxiliaries = "+".join(sorted(
            lemma_or_form(cols.forms[k], cols.lemmas[k]).lower()
            for k in _children(cols, self.head) if cols.deprels[k].startswith("aux")
        )) if self.kind == "sp" else ""  # fmt: skip
        return Construction(
            phenomenon=PHENOMENA[self.kind, feature],
            pronoun=cols.upos[self.subject] == "PRON",
            value=",".join(sorted(_subject_value(cols, self.subject, feature))),
            verb_first=self.target < self.subject,
            auxiliaries=auxiliaries,
        )

    def optional(self, feature: str, good: str, bad: str) -> bool:
        """Whether the language also allows the swapped value here: an `OPTIONAL_AGREEMENT`
        or `UNAGREEMENT` rule, a collective noun's plural, a title whose gender is its
        bearer's (*ח"כ גולדמן*, *Dr. Smith*), a person noun's feminine verb."""
        cols, subject = self.cols, self.subject
        number, person = self.subject_feats.get("Number"), self.feats.get("Person")
        for rule in (*OPTIONAL_AGREEMENT.get(self.lang, ()), *UNAGREEMENT):
            if (
                rule[:4] == (feature, good, bad, number)
                and (not rule.verb_first or self.target < subject)
                and rule.person in (None, person)
            ):
                return True
        if feature == "Number" and self.subject_lemma in COLLECTIVE_NOUNS.get(self.lang, ()):
            return True
        noun = cols.upos[subject] == "NOUN"
        named = any(cols.upos[k] == "PROPN" for k in _children(cols, subject))
        if feature == "Gender" and noun and named:
            return True
        # a masculine noun for a person, a title or profession, takes a feminine verb when
        # its bearer is a woman (Ukrainian *прем'єр зазначила*, Russian *врач пришла*)
        animate = self.subject_feats.get("Animacy") == "Anim"
        return (feature, good, bad) == ("Gender", "Masc", "Fem") and noun and animate

    def complement_agrees(self, feature: str, bad: str) -> bool:
        """Whether a nominal modifier of the subject carries the swapped value: a collective or
        quantity noun's verb may agree with its complement (Portuguese *um conjunto de
        medidas estão*, *a number of people are*); the refusal also takes the attraction
        errors of *the key to the cabinets are*, which cannot be told apart without a list."""
        cols = self.cols
        return any(
            cols.deprels[k].split(":")[0] == "nmod"
            and bad in values(parse_feats(cols.feats[k]), feature)
            for k in _children(cols, self.subject)
        )

    def object_agrees(self, feature: str, bad: str) -> bool:
        """Whether the verb's object carries the swapped value (or, for a plural, is counted
        by a numeral): in a language of free word order the object may be read as the
        subject (Belarusian *насельніцтва складаюць 31742 чалавек*, 31,742 people make up
        the population)."""
        cols = self.cols
        for k in _children(cols, self.head):
            feats = parse_feats(cols.feats[k])
            case = feats.get("Case", "Nom").split(",")
            if cols.deprels[k].split(":")[0] != "obj" or not {"Nom", "Acc"} & set(case):
                continue  # a case only an object has (Basque absolutive) is no subject
            counted = any(cols.deprels[j].startswith("nummod") for j in _children(cols, k))
            if bad in values(feats, feature) or ((feature, bad) == ("Number", "Plur") and counted):
                return True
        return False

    def counted(self) -> bool:
        """Whether a numeral counts the subject: many languages let the verb of a counted
        plural be singular (Armenian *չորս շարք մեքենաներ էր անցնում*, four rows of cars
        were passing; Hungarian and Turkish count with a singular noun)."""
        return any(
            self.cols.deprels[k].startswith("nummod") for k in _children(self.cols, self.subject)
        )

    def honorific(self, forms: AgreementForms, feature: str, bad: str) -> bool:
        """A swap to the plural of a singular second or third person, in a language whose
        plural verb may honour its subject (`HONORIFIC_PLURAL`, or a treebank that marks
        politeness on its verbs)."""
        if (feature, bad) != ("Number", "Plur") or self.subject_feats.get("Number") != "Sing":
            return False
        if "1" in _subject_value(self.cols, self.subject, "Person"):
            return False
        return self.lang in HONORIFIC_PLURAL or forms.polite_verbs

    def predicate_agrees(self, feature: str, bad: str) -> bool:
        """Whether a copular clause's predicate carries the swapped value, so that the verb
        may agree with it instead (*the cause are the floods*, *it am I*): the clause head
        whose copula is the agreeing word, or a nominal complement (``xcomp``) of the head."""
        cols = self.cols
        predicates = [k for k in _children(cols, self.head) if cols.deprels[k] == "xcomp"]
        if any(cols.deprels[k] == "cop" for k in _children(cols, self.head)):
            predicates.append(self.head)
        return any(
            cols.upos[k] in PREDICATE_UPOS and bad in values(parse_feats(cols.feats[k]), feature)
            for k in predicates
        )

    def other_reading(self, person: str) -> bool:
        """Whether the swap to `person` lets the subject be read as something else: addressed
        (a second-person imperative; a noun set off by a comma, or in a clause that
        addresses someone, read as a vocative with a dropped pronoun subject, *Children, you
        come*; where vocatives go without a comma, a second-person verb, *Çocuklar
        ödevinizi yapmadınız*, children, you did not do your homework, or a first-person
        verb after a noun, *gazeteciler geliyorum*, journalists, I am coming), or the
        predicate of a verb like Turkish *ol-* with a dropped pronoun subject (*ne
        oldum*)."""
        if person == "2" and self.feats.get("Mood") == "Imp":
            return True
        cols, subject = self.cols, self.subject
        # a noun of a third person's (*annesi*, his mother) is not addressed
        addressable = (
            person in ("1", "2")
            and cols.upos[subject] != "PRON"
            and self.subject_feats.get("Person[psor]") != "3"
        )
        if addressable and (
            self.lang in VOCATIVE_WITHOUT_COMMA or self.set_off() or self.addresses()
        ):
            return True
        # a copula's noun subject may be reread as its predicate, with a dropped pronoun
        # subject of the swapped person (Czech *dnes jsi den výjimečný*, today you are an
        # exceptional day)
        copula = self.cols.deprels[self.target] == "cop" and cols.upos[subject] != "PRON"
        return copula or self.lemma.lower() in PREDICATE_VERBS.get(self.lang, ())

    def set_off(self) -> bool:
        """Whether the subject is set off by a comma next to it, as a vocative is."""
        cols = self.cols
        span = [
            self.subject,
            *(k for k in _children(cols, self.subject) if cols.upos[k] != "PUNCT"),
        ]
        before, after = min(span) - 1, max(span) + 1
        return any(0 <= k < len(cols.forms) and cols.forms[k] == "," for k in (before, after))

    def addresses(self) -> bool:
        """Whether the clause has a vocative: the addressee may be the swapped verb's subject."""
        return "vocative" in (self.cols.deprels[k] for k in _children(self.cols, self.head))


@dataclass
class SelfAgreement:
    """How often a language's treebanks show each value on the agreeing word, construction
    by construction (`Site.construction`): where they show the swapped value often enough,
    agreement is optional there and the swap no error (in the spirit of MultiBLiMP's
    self-agreement filter, which also gives a phenomenon's overall rate for its gate)."""

    observed: Counter = field(default_factory=Counter)

    by_lemma: Counter = field(default_factory=Counter)

    def see(self, construction: Construction, value: str, lemma: str = "") -> None:
        self.observed[construction, value] += 1
        self.by_lemma[construction.phenomenon, lemma, construction.value, value] += 1

    def seen_with(self, construction: Construction, lemma: str, value: str) -> bool:
        """Whether a word agreeing with this subject lemma, in the subject's value, has the
        value somewhere in the treebanks: a masculine title may take a feminine verb when its
        bearer is a woman (Ukrainian *прем'єр зазначила*), a collective noun a plural one."""
        return self.by_lemma[construction.phenomenon, lemma, construction.value, value] > 0

    def share(self, construction: Construction, value: str) -> tuple[int, float]:
        """How often the construction shows ``value``, and its share of the construction."""
        seen = self.observed[construction, value]
        total = sum(n for (c, _), n in self.observed.items() if c == construction)
        return seen, seen / total if total else 0.0

    def rate(self, phenomenon: str) -> float:
        """The share of a phenomenon's sites whose word has the subject's value."""
        return self._agreeing(lambda c: c.phenomenon == phenomenon)

    def construction_rate(self, construction: Construction) -> tuple[int, float]:
        """How many sites a construction has whatever the subject's value, and the share of
        them whose word has the subject's value: where the word's value does not follow the
        subject's (a participle after *haber*), the construction is no agreement."""

        def same(c: Construction) -> bool:
            return c._replace(value="") == construction._replace(value="")

        return sum(n for (c, _), n in self.observed.items() if same(c)), self._agreeing(same)

    def _agreeing(self, chosen) -> float:
        sites = [(c, v, n) for (c, v), n in self.observed.items() if chosen(c)]
        total = sum(n for _, _, n in sites)
        return sum(n for c, v, n in sites if v in c.value.split(",")) / total if total else 1.0


def _target_pairs(site: Site, forms, readings, dropped, observed) -> list[AgreementPair]:
    cols, subject, target, parts, part_of = (site.cols, site.subject, site.target, site.parts,
                                              site.part_of)  # fmt: skip
    feats, keys = site.feats, site.keys
    carried = [name for name, key in keys.items() if len(values(feats, key)) == 1]
    subject_values = {name: _subject_value(cols, subject, name) for name in AGREEMENT}
    subject_values = {name: v for name, v in subject_values.items() if v}
    for name in subject_values:
        if name not in keys:
            dropped[f"{PHENOMENA[site.kind, name]}:{TARGET_UNANNOTATED}"] += 1
    if observed is not None:
        for name in carried:
            if len(subject_values.get(name, ())) == 1:
                observed.see(site.construction(name), feats[keys[name]], site.subject_lemma)
    if not carried:
        return []
    k = part_of[target]
    if k < 0 or " " in cols.forms[target] or (k and not parts[k - 1].endswith(" ")):
        dropped[MULTIWORD] += 1
        return []
    upos, form = cols.upos[target], cols.forms[target]
    cell = Reading.of(feats)
    # a word that disagrees with its subject in one feature (attraction, *the murder of
    # civilians are*, or an annotation error) gives no pair in any, unless the language
    # allows it (Arabic *ذهب الطلاب*)
    disagreeing = any(
        feats[keys[name]] not in subject_values[name]
        and not site.optional(name, *subject_values[name], feats[keys[name]])
        for name in carried
        if len(subject_values.get(name, ())) == 1
    )
    pairs = []
    for feature in carried:
        phenomenon, key = PHENOMENA[site.kind, feature], keys[feature]
        if feature not in subject_values:
            dropped[f"{phenomenon}:{UNANNOTATED}"] += 1
            continue
        if disagreeing or feats[key] not in subject_values[feature]:
            dropped[f"{phenomenon}:{DISAGREE}"] += 1
            continue
        for value in forms.other_values(upos, key, feats[key]):
            bad_feats = "|".join(f"{k}={value if k == key else v}" for k, v in sorted(
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
                    feature=key,
                    good_value=feats[key],
                    bad_value=value,
                    good_feats=cols.feats[target],
                    bad_feats=bad_feats,
                    good_form=form,
                    bad_form=bad_form,
                    form_source=source,
                    sentence_good=good_text,
                    sentence_bad=bad_text,
                    position="".join(parts[:k]).count(" "),
                    construction=site.construction(feature),
                    subject_lemma=site.subject_lemma,
                )
            )
    return pairs


def _either_number(site: Site, forms: AgreementForms, bad: str) -> bool:
    """Whether the subject is a singular noun whose form its class also has in the plural
    (`AgreementForms.plural_too`) and no word of its phrase marks its number: *příští
    vítězství* (next victory or victories) may take a plural verb, *der Lehrer* may not."""
    cols, subject = site.cols, site.subject
    if bad != "Plur" or cols.upos[subject] != "NOUN":
        return False
    if not forms.plural_too("NOUN", site.subject_feats, site.subject_lemma, cols.forms[subject]):
        return False

    def marks_singular(k: int) -> bool:
        feats, lemma = parse_feats(cols.feats[k]), lemma_or_form(cols.forms[k], cols.lemmas[k])
        return forms.marks_number(cols.forms[k], feats, bad) and not forms.plural_too(
            cols.upos[k], feats, lemma, cols.forms[k]
        )

    return not any(
        cols.deprels[k].split(":")[0] in AGREEING_DEPENDENTS and marks_singular(k)
        for k in _children(cols, subject)
    )


def _coordinated_adjectives(cols: SentenceColumns, subject: int) -> bool:
    """Whether the subject's adjectives are coordinated: *the Amersfoort and Barneveld
    initiative* may name two initiatives and take a plural verb, though a plural noun's verb
    stays plural (*the war between Microsoft and Google*, a coordinated nominal modifier, names
    one war). Treebanks attach such an
    adjective as ``amod`` or ``nmod`` (Dutch Alpino)."""
    return any(
        cols.upos[k] == "ADJ" and cols.deprels[k].split(":")[0] in ("amod", "nmod")
        and any(cols.deprels[j].split(":")[0] == "conj" and cols.upos[j] == "ADJ"
                for j in _children(cols, k))
        for k in _children(cols, subject)
    )  # fmt: skip


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
    if site.optional(feature, site.feats[site.keys[feature]], bad):
        return OPTIONAL
    if feature == "Number" and site.counted():
        return QUANTIFIED
    if site.complement_agrees(feature, bad) or (
        feature == "Number" and site.object_agrees(feature, bad)
    ):
        return COMPLEMENT
    if site.honorific(forms, feature, bad):
        return HONORIFIC
    if site.predicate_agrees(feature, bad):
        return PREDICATE
    if feature == "Person" and site.other_reading(bad):
        return OTHER_READING
    if (feature, bad) == ("Number", "Sing") and forms.levels_plural(
        site.cols.upos[site.target], site.lemma, site.cols.feats[site.target]
    ):
        return LEVELLED
    if forms.subject_reads(site.cols.forms[site.subject], feature, bad):
        return AMBIGUOUS_SUBJECT
    if feature == "Number" and _either_number(site, forms, bad):
        return AMBIGUOUS_SUBJECT
    if feature == "Number" and bad == "Plur" and _coordinated_adjectives(site.cols, site.subject):
        return SPLIT_REFERENCE
    if site.cols.deprels[site.target].startswith("aux") and normalise(bad_form) in (
        forms.function_words
    ):
        # the swapped auxiliary read as that word, its participle as a clause of its own
        # (Bulgarian *си висял*, Serbian *on sam ukazao*, he himself pointed out)
        return OTHER_READING
    return None
