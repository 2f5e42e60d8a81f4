"""Syntax-preserving substitutions (La Malfa et al. 2022, §3): exactly τ words of a sentence
replaced by other words of the same UPOS and FEATS, so that the tree stays the tree.

A word is eligible when it is a content word (NOUN PROPN VERB ADJ ADV), outside a `fixed`
expression and a multiword token, and has at least one candidate: a different lemma, from

- ``copos_wordnet``: a synset of the word's lemma whose part of speech matches its UPOS
  (single-word lemma names only), inflected to the word's FEATS from the UD lexicon;
- ``copos_treebank``: the forms seen in the UD files with the word's UPOS and FEATS.
- ``coco``: the masked language model's best whole word at the position
  (:mod:`perturbed_ud.perturb.coco`).

A copy draws τ eligible words and one candidate for each, keyed by (seed, treebank,
sent_id, τ, copy[, word index]); a sentence with fewer than τ eligible words gives no copy
for that τ. Every replaced word gets a form that differs from the original, so no copy
equals its original. Neighbours adjust as in SPUD (English a/an, French elision, …).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field

from ..resources.citation import citation_form, written_form
from ..resources.inflection import Inflector
from ..resources.wordnet import omw_lang, synonyms
from ..rng import KeyedDraws
from ..ud.columns import CONTENT_UPOS, SentenceColumns, lemma_or_form
from .surface_rules import adjust, drop_form_misc, like_case, render_text, set_text

METHODS = ("copos_wordnet", "copos_treebank", "coco")
NO_CANDIDATE = "no_candidate"
NO_INFLECTED_FORM = "no_inflected_form"
IN_MULTIWORD_TOKEN = "in_multiword_token"
FIXED_EXPRESSION = "fixed_expression"
TOO_FEW_ELIGIBLE = "too_few_eligible"  # a sentence dropped for a τ


@dataclass(frozen=True)
class Candidate:
    lemma: str
    form: str
    link: str  # the synset the two lemmas share, or "treebank"


class WordNetCandidates:
    """Synonyms from WordNet (English) or the Open Multilingual Wordnet, inflected."""

    def __init__(self, lang: str, reader, inflector: Inflector):
        self.reader, self.code, self.inflector = reader, omw_lang(lang, reader), inflector

    def candidates(self, cols: SentenceColumns, i: int) -> tuple[list[Candidate], str | None]:
        upos, feats = cols.upos[i], cols.feats[i]
        found = synonyms(self.reader, self.code, lemma_or_form(cols.forms[i], cols.lemmas[i]), upos)
        if not found:
            return [], NO_CANDIDATE
        out = []
        for lemma, synset in found:
            inflected = self.inflector.inflect(upos, lemma, feats)
            if inflected and inflected[0].casefold() != cols.forms[i].casefold():
                out.append(Candidate(lemma, inflected[0], synset))
        return out, None if out else NO_INFLECTED_FORM


class TreebankCandidates:
    """Every (lemma, form) the UD files show with a UPOS and FEATS, most frequent first;
    forms as a lexicon entry (a capital only sentence-initial is undone)."""

    def __init__(self, lang: str, sentences: Iterable[SentenceColumns]):
        counts: dict[tuple[str, str], Counter] = {}
        for cols in sentences:
            for i, upos in enumerate(cols.upos):
                if upos in CONTENT_UPOS and "Typo=Yes" not in cols.feats[i]:
                    lemma = lemma_or_form(cols.forms[i], cols.lemmas[i])
                    form = citation_form(lang, cols, i)
                    counts.setdefault((upos, cols.feats[i]), Counter())[lemma, form] += 1
        self.forms = {
            key: [Candidate(lemma, form, "treebank") for (lemma, form), _ in
                  sorted(c.items(), key=lambda kv: (-kv[1], kv[0]))]
            for key, c in counts.items()
        }  # fmt: skip

    def candidates(self, cols: SentenceColumns, i: int) -> tuple[list[Candidate], str | None]:
        lemma = lemma_or_form(cols.forms[i], cols.lemmas[i]).casefold()
        out = [
            c for c in self.forms.get((cols.upos[i], cols.feats[i]), ())
            if c.lemma.casefold() != lemma and c.form.casefold() != cols.forms[i].casefold()
        ]  # fmt: skip
        return out, None if out else NO_CANDIDATE


@dataclass
class Eligible:
    """A sentence's eligible words with their candidates, and why the others are not."""

    candidates: dict[int, list[Candidate]]
    reasons: list[tuple[str, str]] = field(default_factory=list)  # (UPOS, reason)


def open_positions(cols: SentenceColumns) -> tuple[list[int], list[tuple[str, str]]]:
    """The content words that may be replaced, and (UPOS, reason) for those that may not."""
    in_token = {i for a, b, _ in cols.mwt_spans() for i in range(a, b + 1)}
    positions, reasons = [], []
    for i, upos in enumerate(cols.upos):
        if upos not in CONTENT_UPOS:
            continue
        if cols.deprels[i].split(":")[0] == "fixed":
            reasons.append((upos, FIXED_EXPRESSION))
        elif i in in_token:
            reasons.append((upos, IN_MULTIWORD_TOKEN))
        else:
            positions.append(i)
    return positions, reasons


def eligible_words(cols: SentenceColumns, source) -> Eligible:
    positions, reasons = open_positions(cols)
    result = Eligible({}, reasons)
    for i in positions:
        found, reason = source.candidates(cols, i)
        if found:
            result.candidates[i] = found
        else:
            result.reasons.append((cols.upos[i], reason))
    return result


@dataclass
class Substituted:
    """One perturbed copy and what was replaced."""

    cols: SentenceColumns
    positions: list[int]
    originals: list[str]
    replacements: list[str]
    links: list[str]


def substitute(
    lang: str,
    cols: SentenceColumns,
    eligible: Eligible,
    tau: int,
    copy: int,
    draws: KeyedDraws,
) -> Substituted | None:
    """Copy ``copy`` with τ words replaced, or None when fewer than τ are eligible;
    ``draws`` is keyed by (seed, treebank, sent_id)."""
    words = sorted(eligible.candidates)
    if len(words) < tau:
        return None
    positions = sorted(draws.random("positions", tau, copy).sample(words, tau))
    new = cols.copy()
    replaced = [False] * len(cols)
    links = []
    for i in positions:
        options = eligible.candidates[i]
        chosen = options[draws.index(len(options), "candidate", tau, copy, i)]
        new.forms[i] = like_case(cols.forms[i], written_form(lang, chosen.form))
        new.lemmas[i] = chosen.lemma
        new.misc[i] = drop_form_misc(cols.misc[i])
        replaced[i] = True
        links.append(chosen.link)
    adjust(lang, new, replaced)
    set_text(new, render_text(cols, new))
    return Substituted(
        new, positions, [cols.forms[i] for i in positions], [new.forms[i] for i in positions], links
    )
