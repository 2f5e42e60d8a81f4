"""Nonce sentences (SPUD): content words replaced by other lemmas of the same syntactic context.

Each content word (NOUN PROPN VERB ADJ ADV) is replaced by a different lemma that occurs in
the pool treebanks in the same context, inflected to the word's own FEATS. The context of a
word is its UPOS, its DEPREL with subtype, and the DEPRELs of all its dependents as a
multiset (Arps et al. 2024, §3.1). French adjectives also record whether they precede or
follow their head (App. A.2: *grande maison*, *voiture rouge*), so a prenominal adjective is
replaced only by adjectives seen before their head. UPOS, FEATS, HEAD, DEPREL and DEPS never
change, so the tree is the original tree.

Two rule sets (`RULES`). ``v2`` is the paper's: every word of a content UPOS is replaceable.
``v3`` (the default) replaces open-class words only, because a native reader rejects what v2
does to the rest:

- closed-class words that treebanks tag ADV, ADJ, VERB or NOUN (*too*, *only*, *several*,
  *pouvoir*, *самый*, *plupart*; `lexicons/closed_class.toml`) are kept and never candidates;
- numerals in any spelling (digits, NumType, Roman numerals of any UPOS, English ordinals
  spelled out) are kept;
- words of multiword expressions are kept: both ends of a `fixed` relation, a `flat` one
  other than a name, or a `compound:prt` (and other verbal compound subtypes) one, the first
  part of a hyphenated German compound and its conjunct (*Handels- und Aufenthaltsorte*),
  and the idioms of `lexicons/idioms.toml` that the treebanks do not annotate (*unter
  anderem*, *par exemple*, *в том числе*);
- the context includes what a head selects in its dependents: for clausal ones (csubj,
  ccomp, xcomp, advcl, acl) their UPOS, VerbForm and `mark`/`case` lemmas (*finir de*
  + infinitive is not *devoir* + infinitive); for obj and iobj their Case and `case`
  lemmas (*руководить* + Ins is not *делать* + Acc); the perfect auxiliary where verbs
  choose it (*être né*); *more*/*most* of an English adjective; German pronominal adverbs
  (*darauf*, *dazu*) by lemma; a verb's own VerbForm and Voice; whether a singular noun
  goes without a determiner, and after which preposition, in languages with articles (*rise
  in unemployment*); a name's preposition and article (*en France*, *au Canada*); the
  agreement of an Arabic plural noun (human or not) with its adjectives, demonstratives,
  relative pronoun and verb;
- a replacement verb, adjective or noun was seen in the pool with every case and
  preposition of the replaced word's obliques (*penser à*, *stolz auf*, *Einfluss auf*);
- adverbs of a pronoun, determiner or numeral (*almost anybody*), capitalised common words
  inside a sentence (names and titles) and the noun of a date (*в 1903 году*) are kept.

The pool holds content words only, and no word whose tag belies it: a lemma that the pool
tags more often with a closed-class UPOS than with a content one is a function word (Russian
GSD's abbreviation *в.* for *век* is a NOUN, yet inflects to the preposition *в*; AUX *быть*
as VERB), and a lemma the pool writes or tags as a numeral (digits, UD's NumType, an
adjective in Roman numerals) is not a word to put in another word's place (Russian GSD tags
years ADJ). Both are counted by reason in `Pool.left_out`.

Every draw is keyed by (seed, treebank, sent_id, "nonce", word index): the candidate lemmas,
sorted, are visited in a keyed random order and the first that inflects wins. A content word
left unchanged is counted by reason: ``no_context_match`` (no other lemma in its context),
``no_inflected_form`` (no candidate has a form with its FEATS), ``in_multiword_token``,
``fixed_expression`` (a ``fixed`` dependent: *за счёт*, *à cause de* work as one function
word), ``clitic`` (French *ne*, an adverb in UD that is a preverbal clitic), and under v3
``closed_class``, ``numeral`` and ``multiword_expression``. None of the kept words is ever
a replacement either.
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from functools import cache

from ..lexicons import closed_class, idioms
from ..resources.citation import lemma_key, written_form
from ..resources.inflection import Inflector
from ..rng import KeyedDraws
from ..ud.columns import CONTENT_UPOS, SentenceColumns, lemma_or_form, space_after
from ..ud.conllu_io import parse_feats
from .surface_rules import (
    APOSTROPHES,
    adjust,
    all_caps,
    can_respell,
    drop_form_misc,
    form_condition,
    render_text,
    sentence_start,
    set_space_after,
    set_text,
    target_case,
)

# (language, UPOS) whose context records the side of the head the word stands on.
HEAD_SIDE = {("fr", "ADJ")}
# Lemmas with a content UPOS that behave as clitics.
CLITICS = {"fr": frozenset({"ne"})}
# UD's closed classes: a lemma tagged mostly with these is a function word.
CLOSED_CLASS_UPOS = frozenset({"ADP", "AUX", "CCONJ", "DET", "NUM", "PART", "PRON", "SCONJ"})
# XIX, and French ordinals XIXe, Ier, IIe
ROMAN_NUMERAL = re.compile(
    r"(?=[MDCLXVI])M{0,3}(C[MD]|D?C{0,3})(X[CL]|L?X{0,3})(I[XV]|V?I{0,3})(e|er|re|ère|ème)?"
)
# Ordinals spelled out, which treebanks tag ADJ without NumType (EWT: *sixtieth*).
SPELLED_ORDINALS = {
    "en": re.compile(
        r"((twen|thir|for|fif|six|seven|eigh|nine)ty-?)?(first|second|third|fourth|fifth|sixth|"
        r"seventh|eighth|ninth)|(ten|eleven|twelf|(thir|four|fif|six|seven|eigh|nine)teen|"
        r"hundred|thousand|million|billion)th|(twen|thir|for|fif|six|seven|eigh|nine)tieth"
    )
}
# A year or decade written with digits: 1927, 1990-х, 1990s, 1990er.
YEAR = re.compile(r"\d{4}(-?\w{1,3})?")
# Relations whose two ends form one expression (v3): fixed, flat (foreign phrases, dates,
# titles), and the compound subtypes that make a lexical unit of a verb (phrasal verbs, light
# verbs, serial verbs, reduplication). Names stay open (*Angela Merkel* -> *Donald Clinton*
# is still a name), and so do plain noun compounds, which are productive.
MULTIWORD_SUBTYPES = frozenset({"compound:prt", "compound:lvc", "compound:svc", "compound:redup"})
# Languages whose compounds join stems with linking elements (*Tage-*, *Tages-*), which no
# inflected form gives (*Tagen-Designern*).
STEM_COMPOUNDS = frozenset({"de", "nl", "sv", "da", "nb", "nn", "is"})
CLAUSAL = frozenset({"csubj", "ccomp", "xcomp", "advcl", "acl"})
# Nominal dependents whose case and preposition a head governs (*руководить* + Ins).
OBJECTS = frozenset({"obj", "iobj"})
# Obliques of verbs and adjectives, nominal modifiers of nouns (*penser à*, *stolz auf*,
# *abus de*, *يصل إلى*): few treebanks tell arguments from adjuncts, so rather than in the
# context, a candidate must have been seen in the pool with every preposition and case of
# the replaced word's obliques (`Pool.obliques`).
OBLIQUES = frozenset({"obl", "obl:arg", "obl:agent", "nmod"})
OBLIQUE_HEADS = frozenset({"VERB", "ADJ", "NOUN"})
MARKERS = frozenset({"mark", "case"})
# Reflexive pronouns by lemma: treebanks do not all mark Reflex=Yes (PUD: *s'* of *s'autosaisir*).
REFLEXIVE_PRONOUNS = frozenset({"se", "sich", "себя", "si"})
TRANSITIVE = ("object",)  # in an oblique frame: the word was seen with an object
REFLEXIVE = ("reflexive",)  # ... with a reflexive one
# Degrees a slot selects: a replacement comparative or superlative must have been seen as
# one (pymorphy and the analytic forms would otherwise grade *ungradable* words: *правее*).
GRADED = frozenset({"Cmp", "Sup", "Abs"})
# Languages whose verbs choose their perfect auxiliary (*il est né*, not *il a né*).
PERFECT_AUXILIARIES = {
    "fr": frozenset({"avoir", "être"}),
    "de": frozenset({"haben", "sein"}),
    "it": frozenset({"avere", "essere"}),
    "nl": frozenset({"hebben", "zijn"}),
}
# Languages with articles, where a singular noun without a determiner is a mass noun or a
# name-like use (*rise in unemployment*, *mehr Geld*): a count noun does not fit there.
ARTICLE_LANGUAGES = frozenset({"en", "de", "fr", "es", "it", "pt", "nl", "ca"})
DETERMINERS = frozenset({"det", "det:poss", "det:predet", "nmod:poss", "det:art"})
# Languages that capitalise every noun.
CAPITALISED_NOUNS = frozenset({"de", "lb"})
# Languages whose plural nouns agree as human or non-human, a class FEATS do not mark.
HUMANNESS_BY_AGREEMENT = frozenset({"ar"})
# Adverbs whose head takes only lemmas seen with them: English adjectives compared with
# more/most, and the duration before *ago* (*years ago*, not *times ago*).
SELECTED_ADVERBS = {"en": frozenset({"more", "most", "less", "least", "ago"})}
# Languages whose bare (article-less) objects are light-verb idioms (*faire sensation*,
# *prendre froid*): the verb is replaced only by one seen with a bare object.
BARE_OBJECT_IDIOMS = frozenset({"fr"})
# German pronominal adverbs: a verb selects its preposition through them (*bestehen darin*).
PRONOMINAL_ADVERB = {
    "de": re.compile(
        r"(da|hier|wo)r?(an|auf|aus|bei|durch|für|gegen|hinter|in|mit|nach|neben|über|um|"
        r"unter|von|vor|zu|zwischen)"
    )
}

NO_CONTEXT_MATCH = "no_context_match"
NO_INFLECTED_FORM = "no_inflected_form"
IN_MULTIWORD_TOKEN = "in_multiword_token"
FIXED_EXPRESSION = "fixed_expression"
CLITIC = "clitic"
CLOSED_CLASS = "closed_class"
NUMERAL = "numeral"
MULTIWORD_EXPRESSION = "multiword_expression"
REASONS = (
    NO_CONTEXT_MATCH, NO_INFLECTED_FORM, IN_MULTIWORD_TOKEN, FIXED_EXPRESSION, CLITIC,
    CLOSED_CLASS, NUMERAL, MULTIWORD_EXPRESSION,
)  # fmt: skip
# Why a pool word supplies no candidate lemma (besides the reasons a word is kept).
FUNCTION_WORD = "function_word"


@dataclass(frozen=True)
class NonceRules:
    """Which content words a rule set keeps, and how much of the context it matches."""

    name: str
    open_class_only: bool  # closed-class lexicon words kept
    keep_numerals: bool  # numerals kept, not just kept out of the pool
    keep_multiword_expressions: bool  # flat, compound:prt …, idioms kept
    valency: bool  # the context includes what a head selects in its dependents


RULES = {
    "v2": NonceRules("v2", False, False, False, False),
    "v3": NonceRules("v3", True, True, True, True),
}
DEFAULT_RULES = RULES["v3"]


def dependents(heads: list[int]) -> list[list[int]]:
    """The dependents of each word (0-based), in linear order."""
    out: list[list[int]] = [[] for _ in heads]
    for j, head in enumerate(heads):
        if head:
            out[head - 1].append(j)
    return out


def context_key(
    lang: str,
    cols: SentenceColumns,
    i: int,
    deps: list[list[int]] | None = None,
    rules: NonceRules = DEFAULT_RULES,
) -> tuple:
    """(UPOS, DEPREL, dependents' DEPRELs sorted[, what it selects][, side of the head]) of
    word ``i``."""
    deps = deps or dependents(cols.heads)
    children = deps[i]
    key = (cols.upos[i], cols.deprels[i], tuple(sorted(cols.deprels[j] for j in children)))
    if rules.valency:
        selected = (_selected(lang, cols, i, j, deps) for j in children)
        key += (tuple(sorted(filter(None, selected))) + _own_form(lang, cols, i, deps),)
    if (lang, cols.upos[i]) in HEAD_SIDE and cols.heads[i]:
        before = i < cols.heads[i] - 1
        if before and rules.valency:  # *différents côtés*, not *un différent côté*
            key += (parse_feats(cols.feats[i]).get("Number", ""),)
        key += ("before_head" if before else "after_head",)
    return key


def _selected(
    lang: str, cols: SentenceColumns, i: int, j: int, deps: list[list[int]]
) -> tuple | None:
    """What word ``i`` selects in its dependent ``j``, or None where it selects nothing."""
    relation, lemma = cols.deprels[j].split(":")[0], cols.lemmas[j].lower()
    markers = _markers(cols, deps[j])
    if relation in CLAUSAL:
        verb_form = parse_feats(cols.feats[j]).get("VerbForm", "")
        return (cols.deprels[j], cols.upos[j], verb_form, markers)
    if relation in OBJECTS:
        if lang in BARE_OBJECT_IDIOMS and cols.upos[j] == "NOUN" and _bare(cols, deps[j]):
            return (cols.deprels[j], "bare", markers)
        return _governed(cols, j, markers)
    if cols.deprels[j] in ("aux", "aux:tense") and lemma in PERFECT_AUXILIARIES.get(lang, ()):
        return ("aux", lemma)
    if relation == "advmod" and lemma in SELECTED_ADVERBS.get(lang, ()):
        return ("advmod", lemma)
    pronominal = PRONOMINAL_ADVERB.get(lang)
    if relation == "advmod" and pronominal and pronominal.fullmatch(lemma):
        return ("advmod", lemma)
    return None


def _governed(cols: SentenceColumns, j: int, markers: tuple) -> tuple | None:
    """The case and prepositions of a nominal dependent (a pronoun's case aside: English and
    French mark it on pronouns only)."""
    case = parse_feats(cols.feats[j]).get("Case", "") if cols.upos[j] != "PRON" else ""
    if _reflexive(cols, j):  # *s'autosaisir* is not *faciliter*
        case = "reflexive"
    return (cols.deprels[j], case, markers) if case or markers else None


def _reflexive(cols: SentenceColumns, j: int) -> bool:
    return "Reflex=Yes" in cols.feats[j] or (
        cols.upos[j] == "PRON" and cols.lemmas[j].lower() in REFLEXIVE_PRONOUNS
    )


def oblique_frame(cols: SentenceColumns, i: int, deps: list[list[int]]) -> frozenset:
    """The case and prepositions of the obliques of a verb, adjective or noun (*stolz auf*,
    *Einfluss auf*; empty for other words), and TRANSITIVE where it has an object."""
    if cols.upos[i] not in OBLIQUE_HEADS:
        return frozenset()
    frame = set()
    for j in deps[i]:
        governed = cols.deprels[j] in OBLIQUES and _governed(cols, j, _markers(cols, deps[j]))
        if governed:
            frame.add(governed[1:])
        if cols.deprels[j].split(":")[0] == "obj":
            frame.add(TRANSITIVE)
            if _reflexive(cols, j):
                frame.add(REFLEXIVE)
    return frozenset(frame)


def object_gap(cols: SentenceColumns, i: int, deps: list[list[int]]) -> bool:
    """Whether verb ``i`` heads a relative clause whose gap is its object: a subject, no
    object, clausal complement or relative word (*the book I read*: a replacement must take
    an object, *the book I slept* is not English)."""
    children = deps[i]
    relations = {cols.deprels[j].split(":")[0] for j in children}
    return (
        cols.upos[i] == "VERB"
        and cols.deprels[i] == "acl:relcl"
        and "nsubj" in relations
        and not relations & {"obj", "ccomp", "xcomp", "expl"}
        and not any("PronType=Rel" in cols.feats[j] for j in children)
    )


def _own_form(lang: str, cols: SentenceColumns, i: int, deps: list[list[int]]) -> tuple:
    """The word's own features that its slot selects: a verb's VerbForm and Voice (a
    participle's valency is not the finite verb's); a bare singular noun's number and
    preposition, in a language with articles; a name's preposition and article; the
    agreement of an Arabic plural noun; a graded word's degree; whether an adverb grades an
    adjective or adverb (*well short*, *far better*: not *fast short*)."""
    feats, children = parse_feats(cols.feats[i]), deps[i]
    if cols.upos[i] == "VERB":
        return (("form", feats.get("VerbForm", ""), feats.get("Voice", "")),)
    if cols.upos[i] in ("ADJ", "ADV") and feats.get("Degree") in GRADED:
        return (("degree", feats["Degree"]),)  # a comparative seen in use: gradable
    if cols.upos[i] == "ADV" and cols.heads[i]:
        return (("grades", cols.upos[cols.heads[i] - 1] in ("ADJ", "ADV")),)
    if cols.upos[i] == "NOUN" and lang in ARTICLE_LANGUAGES and _bare(cols, children):
        return (("bare", feats.get("Number", ""), _markers(cols, children)),)
    own = ()
    if cols.upos[i] == "PROPN":  # *en France*, *à Paris*, *au Canada*; *в России*, *на Украине*
        article = any(cols.deprels[j] == "det" for j in children)
        own += (("case", _markers(cols, children), article, all_caps(cols.forms[i])),)
    if lang in HUMANNESS_BY_AGREEMENT and cols.upos[i] in ("NOUN", "PROPN"):
        own += (("agrees_with", _agreement(cols, i, deps)),)
    return own


def _bare(cols: SentenceColumns, children: list[int]) -> bool:
    """Whether a noun with these dependents has no determiner."""
    return not any(cols.deprels[j] in DETERMINERS for j in children)


def _markers(cols: SentenceColumns, words: list[int]) -> tuple[str, ...]:
    """The `case` and `mark` lemmas among ``words``, sorted."""
    return tuple(
        sorted(cols.lemmas[k].lower() for k in words if cols.deprels[k].split(":")[0] in MARKERS)
    )


def _agreement(cols: SentenceColumns, i: int, deps: list[list[int]]) -> tuple:
    """Gender and Number of the words that agree with a plural noun (its adjectives and
    demonstratives, the relative pronoun of its relative clause, the verb it is subject
    of): in Arabic they tell a human plural (masculine plural) from a non-human one
    (feminine singular), which FEATS do not mark (*الكتب التي*, not *الكتب الذين*)."""
    if parse_feats(cols.feats[i]).get("Number", "") != "Plur":
        return ()
    agreeing = []
    for j in deps[i]:
        relation = cols.deprels[j]
        if relation == "amod" or (relation == "det" and "Gender=" in cols.feats[j]):
            agreeing.append(j)
        elif relation.split(":")[0] == "acl":
            agreeing += [k for k in deps[j] if _relative_pronoun(cols, k)]
    if cols.deprels[i].startswith("nsubj") and cols.heads[i]:
        agreeing.append(cols.heads[i] - 1)
    return tuple(
        sorted({(feats.get("Gender", ""), feats.get("Number", ""))
                for feats in (parse_feats(cols.feats[j]) for j in agreeing)})
    )  # fmt: skip


def _relative_pronoun(cols: SentenceColumns, k: int) -> bool:
    """UD's PronType=Rel, or the XPOS ``REL`` of the Arabic treebanks, which leave it out."""
    return cols.upos[k] == "PRON" and ("PronType=Rel" in cols.feats[k] or cols.xpos[k] == "REL")


def lemma_of(cols: SentenceColumns, i: int) -> str:
    return lemma_or_form(cols.forms[i], cols.lemmas[i])


def numeral(lang: str, cols: SentenceColumns, i: int, *, any_upos: bool = False) -> bool:
    """Written with digits (2013, 1970-х, 18e), an ordinal or multiplicative in UD's NumType
    (first, erst, once) or spelled out (*sixtieth*), or in Roman numerals (XIX век, XXe
    siècle): as an adjective, or with ``any_upos`` as any word (*Louis XIV*, *Vatican II*)."""
    return (
        any(c.isdigit() for c in cols.forms[i] + cols.lemmas[i])
        or "NumType=" in cols.feats[i]
        or _spelled_ordinal(lang, cols.lemmas[i])
        or (
            (any_upos or cols.upos[i] == "ADJ")
            and ROMAN_NUMERAL.fullmatch(cols.forms[i]) is not None
        )
    )


def _spelled_ordinal(lang: str, lemma: str) -> bool:
    spelled = SPELLED_ORDINALS.get(lang)
    return spelled is not None and spelled.fullmatch(lemma.lower()) is not None


def _expression_relation(cols: SentenceColumns, j: int) -> bool:
    relation = cols.deprels[j]
    if relation.split(":")[0] == "flat":
        name = cols.upos[j] == "PROPN" and cols.upos[cols.heads[j] - 1] == "PROPN"
        return relation != "flat:name" and not name
    return relation.split(":")[0] == "fixed" or relation in MULTIWORD_SUBTYPES


def _hyphen_stem(cols: SentenceColumns, j: int) -> bool:
    """The first part of a compound written with a hyphen (*Miniatur-Oscars*): a stem with
    its linking element, tagged with the whole word's FEATS."""
    return (
        cols.deprels[j] == "compound" and cols.forms[j + 1] == "-" and not space_after(cols.misc[j])
    )


def _conjuncts(cols: SentenceColumns, j: int) -> set[int]:
    """The words coordinated with word ``j`` by one conj relation, either way."""
    out = {k for k, head in enumerate(cols.heads) if head == j + 1 and _conj(cols, k)}
    if _conj(cols, j) and cols.heads[j]:
        out.add(cols.heads[j] - 1)
    return out


def _conj(cols: SentenceColumns, k: int) -> bool:
    return cols.deprels[k].split(":")[0] == "conj"


@cache
def _idioms(lang: str) -> tuple[tuple[str, ...], ...]:
    key_of = lemma_key(lang)
    return tuple(tuple(key_of(idiom).lower().split()) for idiom in idioms(lang))


def multiword_expression_words(lang: str, cols: SentenceColumns) -> set[int]:
    """Words in an expression that works as a unit: both ends of a fixed relation, a flat
    one other than a name, or a `MULTIWORD_SUBTYPES` one, the first part of a hyphenated
    compound where compounds join stems (`STEM_COMPOUNDS`), and every word of an idiom of
    the language's list matched on lower-cased forms or lemmas."""
    words = set()
    for j in range(len(cols)):
        if _expression_relation(cols, j):
            words.add(j)
            if cols.heads[j]:
                words.add(cols.heads[j] - 1)
    if lang in STEM_COMPOUNDS:
        for j in range(len(cols) - 1):
            if _hyphen_stem(cols, j):  # and its conjunct: *Handels- und Aufenthaltsorte*
                words.add(j)
                words.update(_conjuncts(cols, j))
    key_of = lemma_key(lang)
    forms = [key_of(f).lower() for f in cols.forms]
    lemmas = [key_of(lemma).lower() for lemma in cols.lemmas]
    for idiom in _idioms(lang):
        for start in range(len(cols) - len(idiom) + 1):
            if all(w in (forms[start + k], lemmas[start + k]) for k, w in enumerate(idiom)):
                words.update(range(start, start + len(idiom)))
    return words


def kept_words(lang: str, cols: SentenceColumns, rules: NonceRules) -> dict[int, str]:
    """Content words the rules never replace nor take as candidates -> why (multiword tokens
    aside, which depend on the replacement)."""
    key_of = lemma_key(lang)
    clitics = CLITICS.get(lang, frozenset())
    closed = closed_class(lang) if rules.open_class_only else {}
    expressions = (
        multiword_expression_words(lang, cols) if rules.keep_multiword_expressions else set()
    )
    names_and_dates = _names_and_dates(lang, cols) if rules.keep_multiword_expressions else set()
    kept = {}
    for i, upos in enumerate(cols.upos):
        if upos not in CONTENT_UPOS:
            continue
        lemma = key_of(lemma_of(cols, i)).casefold()
        if _fixed(cols, i):
            kept[i] = FIXED_EXPRESSION
        elif lemma in clitics:
            kept[i] = CLITIC
        elif rules.keep_numerals and numeral(lang, cols, i, any_upos=True):
            kept[i] = NUMERAL
        elif lemma in closed.get(upos, ()) or (rules.open_class_only and _of_quantifier(cols, i)):
            kept[i] = CLOSED_CLASS
        elif i in expressions or i in names_and_dates:
            kept[i] = MULTIWORD_EXPRESSION
    return kept


def _of_quantifier(cols: SentenceColumns, i: int) -> bool:
    """An adverb modifying a pronoun, determiner or numeral: an approximator or degree word
    (*almost anybody*, *virtually all*, *well over 200*), a closed class whatever its form."""
    head = cols.heads[i] - 1
    return cols.upos[i] == "ADV" and head >= 0 and cols.upos[head] in ("PRON", "DET", "NUM")


def _names_and_dates(lang: str, cols: SentenceColumns) -> set[int]:
    """Common words capitalised inside a sentence (*the Royal Society*, *New chapels* of a
    title; not a German noun), and the nouns of dates (*1927 года*, *в 1990-х годах*): parts
    of a name or date."""
    first = sentence_start(cols)
    capitalised = {
        i
        for i, (form, upos) in enumerate(zip(cols.forms, cols.upos, strict=True))
        if i > first
        and form[:1].isupper()
        and upos != "PROPN"
        and not (upos == "NOUN" and lang in CAPITALISED_NOUNS)
    }
    dated = {head - 1 for head, form in zip(cols.heads, cols.forms, strict=True)
             if head and YEAR.fullmatch(form)}  # fmt: skip
    return capitalised | dated


@dataclass
class Pool:
    """Context -> the distinct candidate lemmas seen in it, sorted; and how many content
    words of the pool supplied no candidate, by reason."""

    contexts: dict[tuple, tuple[str, ...]]
    left_out: dict[str, int] = field(default_factory=dict)
    rules: NonceRules = DEFAULT_RULES
    frames: dict[str, set[frozenset]] = field(default_factory=dict)  # lemma -> its frames

    def fits_frame(self, lemma: str, frame: frozenset) -> bool:
        """Whether ``lemma`` was seen, in one sentence, with all of ``frame``: *sich treffen
        mit* and *treffen auf* do not make *sich treffen auf*."""
        return not frame or any(frame <= seen for seen in self.frames.get(lemma, ()))

    def __len__(self) -> int:
        return len(self.contexts)


def build_pool(
    lang: str, sentences: Iterable[SentenceColumns], rules: NonceRules = DEFAULT_RULES
) -> Pool:
    """The candidate lemmas of the content words of ``sentences``, by context: no word the
    rules keep, no function word, no lemma written or tagged as a numeral anywhere in the
    pool (GSD has XXe with and without NumType). ``left_out`` counts pool words."""
    key_of = lemma_key(lang)
    seen: dict[tuple, set[str]] = {}
    words: Counter = Counter()  # lemma -> content words that could be candidates
    tags: dict[str, Counter] = {}  # lemma -> {True: closed-class words, False: content words}
    numerals: set[str] = set()
    kept_out: Counter = Counter()
    frames: dict[str, set[frozenset]] = {}
    for cols in sentences:
        deps = dependents(cols.heads)
        kept = kept_words(lang, cols, rules)
        for i, upos in enumerate(cols.upos):
            lemma = key_of(lemma_of(cols, i))
            closed = upos in CLOSED_CLASS_UPOS
            if closed or upos in CONTENT_UPOS:
                tags.setdefault(lemma, Counter())[closed] += 1
            if upos not in CONTENT_UPOS:
                continue
            if numeral(lang, cols, i):
                numerals.add(lemma)
            if i in kept:
                kept_out[kept[i]] += 1
                continue
            words[lemma] += 1
            seen.setdefault(context_key(lang, cols, i, deps, rules), set()).add(lemma)
            if rules.valency and upos in OBLIQUE_HEADS:
                frames.setdefault(lemma, set()).add(oblique_frame(cols, i, deps))
    function_words = {lemma for lemma in words if tags[lemma][True] > tags[lemma][False]}
    function_words |= {lemma for lemma in words if _letter(lemma)}
    function_words -= numerals
    contexts = {}
    for key, lemmas in seen.items():
        if candidates := lemmas - function_words - numerals:
            contexts[key] = tuple(sorted(candidates))
    left_out = {
        FUNCTION_WORD: sum(words[lemma] for lemma in function_words),
        NUMERAL: sum(words[lemma] for lemma in numerals) + kept_out[NUMERAL],
    }
    if rules.open_class_only:
        left_out[CLOSED_CLASS] = kept_out[CLOSED_CLASS]
    if rules.keep_multiword_expressions:
        left_out[MULTIWORD_EXPRESSION] = kept_out[MULTIWORD_EXPRESSION]
    return Pool(contexts, left_out, rules, frames)


def _letter(lemma: str) -> bool:
    """A single letter of an alphabet (*э*, *x*): a letter name or an interjection, never a
    noun a native reader takes for a replacement. A Chinese character is a word."""
    return (
        len(lemma) == 1
        and lemma.isalpha()
        and unicodedata.east_asian_width(lemma) not in ("W", "F")
    )


def _fixed(cols: SentenceColumns, i: int) -> bool:
    return cols.deprels[i].split(":")[0] == "fixed"


def keyed_order(items: tuple[str, ...], rng) -> Iterator[str]:
    """The items in a random order drawn lazily (Fisher–Yates), so a first hit costs O(1)."""
    items = list(items)
    for k in range(len(items)):
        j = rng.randrange(k, len(items))
        items[k], items[j] = items[j], items[k]
        yield items[k]


@dataclass
class NonceSentence:
    """A nonce sentence with what happened to each content word."""

    cols: SentenceColumns
    replaced: list[bool]
    reasons: list[tuple[str, str]] = field(default_factory=list)  # (UPOS, reason)
    sources: Counter = field(default_factory=Counter)  # inflection source -> words
    adjustments: Counter = field(default_factory=Counter)  # surface rule -> times applied


def nonce_sentence(
    lang: str,
    cols: SentenceColumns,
    pool: Pool,
    inflector: Inflector,
    draws: KeyedDraws,
) -> NonceSentence:
    """Replace the content words of one sentence; ``draws`` is keyed by (seed, treebank,
    sent_id)."""
    new = cols.copy()
    result = NonceSentence(new, [False] * len(cols))
    key_of = lemma_key(lang)
    deps = dependents(cols.heads)
    kept = kept_words(lang, cols, pool.rules)
    in_token = {i: (a, b) for a, b, _ in cols.mwt_spans() for i in range(a, b + 1)}
    for i, upos in enumerate(cols.upos):
        if upos not in CONTENT_UPOS:
            continue
        if kept.get(i) == FIXED_EXPRESSION:
            result.reasons.append((upos, FIXED_EXPRESSION))
            continue
        if i in in_token and not can_respell(lang, cols, *in_token[i], i):
            result.reasons.append((upos, IN_MULTIWORD_TOKEN))
            continue
        if i in kept:
            result.reasons.append((upos, kept[i]))
            continue
        lemma_here = key_of(lemma_of(cols, i))
        own = lemma_here.casefold()
        frame = oblique_frame(cols, i, deps) if pool.rules.valency else frozenset()
        if (
            pool.rules.valency
            and object_gap(cols, i, deps)
            and pool.fits_frame(lemma_here, frozenset({TRANSITIVE}))
        ):  # only a verb that takes objects has an object gap (*the day I arrived* has none)
            frame |= {TRANSITIVE}
        candidates = tuple(
            lemma for lemma in pool.contexts.get(context_key(lang, cols, i, deps, pool.rules), ())
            if lemma.casefold() != own and pool.fits_frame(lemma, frame)
        )  # fmt: skip
        if not candidates:
            result.reasons.append((upos, NO_CONTEXT_MATCH))
            continue
        accept = form_condition(lang, cols, i)
        for lemma in keyed_order(candidates, draws.random("nonce", i)):
            found = inflector.inflect(upos, lemma, cols.feats[i], accept)
            if found:
                form, source = found
                form = written_form(lang, form)
                new.forms[i] = target_case(cols, i, form)
                new.lemmas[i] = lemma
                new.misc[i] = drop_form_misc(cols.misc[i])
                if cols.forms[i].endswith(APOSTROPHES) and not form.endswith(APOSTROPHES):
                    new.misc[i] = set_space_after(new.misc[i], True)
                result.replaced[i] = True
                result.sources[source] += 1
                break
        else:
            result.reasons.append((upos, NO_INFLECTED_FORM))
    if any(result.replaced):
        result.adjustments = adjust(lang, new, result.replaced)
        set_text(new, render_text(cols, new))
    return result
