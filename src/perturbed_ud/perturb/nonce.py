"""Nonce sentences (SPUD): content words replaced by other lemmas of the same syntactic context.

Each content word (NOUN PROPN VERB ADJ ADV) is replaced by a different lemma that occurs in
the pool treebanks in the same context, inflected to the word's own FEATS. The context of a
word is its UPOS, its DEPREL with subtype, and the DEPRELs of all its dependents as a
multiset (Arps et al. 2024, §3.1). French adjectives also record whether they precede or
follow their head (App. A.2: *grande maison*, *voiture rouge*), so a prenominal adjective is
replaced only by adjectives seen before their head. UPOS, FEATS, HEAD, DEPREL and DEPS never
change, so the tree is the original tree.

The pool holds content words only, and no word whose tag belies it: a lemma that the pool
tags more often with a closed-class UPOS than with a content one is a function word (Russian
GSD's abbreviation *в.* for *век* is a NOUN, yet inflects to the preposition *в*; AUX *быть*
as VERB), and a lemma the pool writes or tags as a numeral (digits, UD's NumType, an
adjective in Roman numerals) is not a word to put in another word's place (Russian GSD tags
years ADJ). Both are counted by reason in `Pool.left_out`. They stay replaceable themselves,
by real content lemmas.

Every draw is keyed by (seed, treebank, sent_id, "nonce", word index): the candidate lemmas,
sorted, are visited in a keyed random order and the first that inflects wins. A content word
left unchanged is counted by reason: ``no_context_match`` (no other lemma in its context),
``no_inflected_form`` (no candidate has a form with its FEATS), ``in_multiword_token``,
``fixed_expression`` (a ``fixed`` dependent: *за счёт*, *à cause de* work as one function
word), or ``clitic`` (French *ne*, an adverb in UD that is a preverbal clitic). Neither of
the last two is ever a replacement either.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field

from ..rng import KeyedDraws
from ..ud.columns import SentenceColumns
from .inflection import Inflector
from .lemma import lemma_or_form
from .surface_rules import (
    APOSTROPHES,
    adjust,
    can_respell,
    drop_form_misc,
    form_condition,
    lemma_key,
    like_case,
    render_text,
    set_space_after,
    set_text,
    written_form,
)
from .word_order import CONTENT_UPOS

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

NO_CONTEXT_MATCH = "no_context_match"
NO_INFLECTED_FORM = "no_inflected_form"
IN_MULTIWORD_TOKEN = "in_multiword_token"
FIXED_EXPRESSION = "fixed_expression"
CLITIC = "clitic"
REASONS = (NO_CONTEXT_MATCH, NO_INFLECTED_FORM, IN_MULTIWORD_TOKEN, FIXED_EXPRESSION, CLITIC)
# Why a pool word supplies no candidate lemma.
FUNCTION_WORD = "function_word"
NUMERAL = "numeral"


def dependents(heads: list[int]) -> list[list[int]]:
    """The dependents of each word (0-based), in linear order."""
    out: list[list[int]] = [[] for _ in heads]
    for j, head in enumerate(heads):
        if head:
            out[head - 1].append(j)
    return out


def context_key(
    lang: str, cols: SentenceColumns, i: int, deps: list[list[int]] | None = None
) -> tuple:
    """(UPOS, DEPREL, dependents' DEPRELs sorted[, side of the head]) of word ``i``."""
    children = (deps or dependents(cols.heads))[i]
    key = (cols.upos[i], cols.deprels[i], tuple(sorted(cols.deprels[j] for j in children)))
    if (lang, cols.upos[i]) in HEAD_SIDE and cols.heads[i]:
        key += ("before_head" if i < cols.heads[i] - 1 else "after_head",)
    return key


def lemma_of(cols: SentenceColumns, i: int) -> str:
    return lemma_or_form(cols.forms[i], cols.lemmas[i])


def numeral(cols: SentenceColumns, i: int) -> bool:
    """Written with digits (2013, 1970-х, 18e), an ordinal or multiplicative in UD's NumType
    (first, erst, once), or an adjective in Roman numerals (XIX век, XXe siècle)."""
    return (
        any(c.isdigit() for c in cols.forms[i] + cols.lemmas[i])
        or "NumType=" in cols.feats[i]
        or (cols.upos[i] == "ADJ" and ROMAN_NUMERAL.fullmatch(cols.forms[i]) is not None)
    )


@dataclass
class Pool:
    """Context -> the distinct candidate lemmas seen in it, sorted; and how many content
    words of the pool supplied no candidate, by reason (`FUNCTION_WORD`, `NUMERAL`)."""

    contexts: dict[tuple, tuple[str, ...]]
    left_out: dict[str, int] = field(default_factory=dict)

    def __len__(self) -> int:
        return len(self.contexts)


def build_pool(lang: str, sentences: Iterable[SentenceColumns]) -> Pool:
    """The candidate lemmas of the content words of ``sentences``, by context: no fixed
    expression, clitic, function word, or lemma written or tagged as a numeral anywhere in
    the pool (GSD has XXe with and without NumType). ``left_out`` counts pool words."""
    key_of = lemma_key(lang)
    clitics = CLITICS.get(lang, frozenset())
    seen: dict[tuple, set[str]] = {}
    words: Counter = Counter()  # lemma -> content words that could be candidates
    tags: dict[str, Counter] = {}  # lemma -> {True: closed-class words, False: content words}
    numerals: set[str] = set()
    for cols in sentences:
        deps = dependents(cols.heads)
        for i, upos in enumerate(cols.upos):
            lemma = key_of(lemma_of(cols, i))
            closed = upos in CLOSED_CLASS_UPOS
            if closed or upos in CONTENT_UPOS:
                tags.setdefault(lemma, Counter())[closed] += 1
            if upos not in CONTENT_UPOS or lemma.lower() in clitics or _fixed(cols, i):
                continue
            if numeral(cols, i):
                numerals.add(lemma)
            words[lemma] += 1
            seen.setdefault(context_key(lang, cols, i, deps), set()).add(lemma)
    function_words = {lemma for lemma in words if tags[lemma][True] > tags[lemma][False]}
    function_words -= numerals
    contexts = {}
    for key, lemmas in seen.items():
        if candidates := lemmas - function_words - numerals:
            contexts[key] = tuple(sorted(candidates))
    left_out = {
        FUNCTION_WORD: sum(words[lemma] for lemma in function_words),
        NUMERAL: sum(words[lemma] for lemma in numerals),
    }
    return Pool(contexts, left_out)


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
    clitics = CLITICS.get(lang, frozenset())
    deps = dependents(cols.heads)
    in_token = {i: (a, b) for a, b, _ in cols.mwt_spans() for i in range(a, b + 1)}
    for i, upos in enumerate(cols.upos):
        if upos not in CONTENT_UPOS:
            continue
        if _fixed(cols, i):
            result.reasons.append((upos, FIXED_EXPRESSION))
            continue
        if i in in_token and not can_respell(lang, cols, *in_token[i], i):
            result.reasons.append((upos, IN_MULTIWORD_TOKEN))
            continue
        own = key_of(lemma_of(cols, i)).casefold()
        if own in clitics:
            result.reasons.append((upos, CLITIC))
            continue
        candidates = tuple(
            lemma for lemma in pool.contexts.get(context_key(lang, cols, i, deps), ())
            if lemma.casefold() != own
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
                new.forms[i] = like_case(cols.forms[i], form)
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
