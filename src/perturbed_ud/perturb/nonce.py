"""Nonce sentences (SPUD): content words replaced by other lemmas of the same syntactic context.

Each content word (NOUN PROPN VERB ADJ ADV) is replaced by a different lemma that occurs in
the pool treebanks in the same context, inflected to the word's own FEATS. The context of a
word is its UPOS, its DEPREL with subtype, and the DEPRELs of all its dependents as a
multiset (Arps et al. 2024). French keeps its dependents in order with the word's own
position marked (``SELF``), and French adjectives and adverbs also record whether they
precede or follow their head: a prenominal adjective is replaced only by adjectives seen
before their head. UPOS, FEATS, HEAD, DEPREL and DEPS never change, so the tree is the
original tree.

Every draw is keyed by (seed, treebank, sent_id, "nonce", word index): the candidate lemmas,
sorted, are visited in a keyed random order and the first that inflects wins. A content word
left unchanged is counted by reason: ``no_context_match`` (no other lemma in its context),
``no_inflected_form`` (no candidate has a form with its FEATS), ``in_multiword_token``,
``fixed_expression`` (a ``fixed`` dependent: *за счёт*, *à cause de* work as one function
word), or ``clitic`` (French *ne*, an adverb in UD that is a preverbal clitic). Neither of
the last two is ever a replacement either.
"""

from __future__ import annotations

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
)
from .word_order import CONTENT_UPOS

SELF = "SELF"
# Languages whose context keeps dependents in linear order around the word itself.
ORDERED_CONTEXT = {"fr"}
# (language, UPOS) whose context records the side of the head the word stands on.
HEAD_SIDE = {("fr", "ADJ"), ("fr", "ADV")}
# Lemmas with a content UPOS that behave as clitics.
CLITICS = {"fr": frozenset({"ne"})}

NO_CONTEXT_MATCH = "no_context_match"
NO_INFLECTED_FORM = "no_inflected_form"
IN_MULTIWORD_TOKEN = "in_multiword_token"
FIXED_EXPRESSION = "fixed_expression"
CLITIC = "clitic"
REASONS = (NO_CONTEXT_MATCH, NO_INFLECTED_FORM, IN_MULTIWORD_TOKEN, FIXED_EXPRESSION, CLITIC)


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
    """(UPOS, DEPREL, dependents' DEPRELs[, side of the head]) of word ``i``."""
    children = (deps or dependents(cols.heads))[i]
    if lang in ORDERED_CONTEXT:
        labels = [cols.deprels[j] for j in children if j < i] + [SELF]
        labels += [cols.deprels[j] for j in children if j > i]
    else:
        labels = sorted(cols.deprels[j] for j in children)
    key = (cols.upos[i], cols.deprels[i], tuple(labels))
    if (lang, cols.upos[i]) in HEAD_SIDE and cols.heads[i]:
        key += ("before_head" if i < cols.heads[i] - 1 else "after_head",)
    return key


def lemma_of(cols: SentenceColumns, i: int) -> str:
    return lemma_or_form(cols.forms[i], cols.lemmas[i])


def build_pool(lang: str, sentences: Iterable[SentenceColumns]) -> dict[tuple, tuple[str, ...]]:
    """Context -> the distinct lemmas of content words seen in it, sorted."""
    key_of = lemma_key(lang)
    clitics = CLITICS.get(lang, frozenset())
    pool: dict[tuple, set[str]] = {}
    for cols in sentences:
        deps = dependents(cols.heads)
        for i, upos in enumerate(cols.upos):
            lemma = key_of(lemma_of(cols, i))
            if upos in CONTENT_UPOS and lemma.lower() not in clitics and not _fixed(cols, i):
                pool.setdefault(context_key(lang, cols, i, deps), set()).add(lemma)
    return {key: tuple(sorted(lemmas)) for key, lemmas in pool.items()}


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
    pool: dict[tuple, tuple[str, ...]],
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
            lemma for lemma in pool.get(context_key(lang, cols, i, deps), ())
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
