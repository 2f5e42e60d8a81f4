"""The substitutions of La Malfa et al.'s released code (``generate_perturbations.py``), to
regenerate the paper's own perturbations: protocol ``lamalfa2022``.

Where it departs from the paper's text (the ``paper`` protocol):

- a copy replaces m words, m drawn uniformly from 1..τ (τ is a maximum), at m distinct
  positions drawn over all words, punctuation included;
- the new word is the head name (``frump`` of ``frump.n.01``) of the first synset of the
  word *form* whose head name differs from the form lower-cased (synset names are
  lower-case, so ``Hill`` is not "replaced" by ``hill``), among synsets of one part of
  speech, chosen among the form's first 10 synsets by a rule (`RULES`): ``mode``, the most
  common, a tie going to the one seen first (``Counter.most_common()[0]``: the released
  script's default ``--wordnet-mode True``), or ``least-common``, a tie going to the one seen
  last (``most_common()[-1]``: ``--wordnet-mode False``, the rule of every logged run);
- no UPOS check, no inflection, multiword names kept with their underscores;
- a word without such a synset stays as it is, so a copy may equal its original.

UPOS, FEATS and the rest of the annotation are kept as they were, and may no longer fit a
replaced word.
"""

from __future__ import annotations

from collections import Counter

from ..resources.wordnet import WORDNET_POS
from ..rng import KeyedDraws
from ..ud.columns import SentenceColumns
from .substitution import Substituted
from .surface_rules import render_text, set_text

RULES = ("mode", "least-common")


def released_synonym(reader, word: str, rule: str) -> tuple[str, str]:
    """(new word, synset name), or (word, "") where the released rule finds none."""
    synsets = reader.synsets(word)
    if not synsets:
        return word, ""
    ranked = Counter(s.pos() for s in synsets[:10]).most_common()
    pos = ranked[0 if rule == "mode" else -1][0]
    for synset in synsets:
        head = synset.name().split(".")[0]
        if synset.pos() == pos and head != word.lower():
            return head, synset.name()
    return word, ""


def fits_upos(synset: str, upos: str) -> bool:
    """Whether a replacement's synset has a part of speech the replaced word's UPOS allows,
    AUX counting as a verb: the check the released rule does not make."""
    pos = synset.rsplit(".", 2)[1]
    return pos in WORDNET_POS.get("VERB" if upos == "AUX" else upos, ())


def released_copy(
    cols: SentenceColumns, reader, rule: str, tau: int, copy: int, draws: KeyedDraws
) -> Substituted:
    """Copy ``copy`` under the released rule; ``draws`` keyed by (seed, treebank, sent_id)."""
    rng = draws.random("positions", tau, copy)
    m = rng.randint(1, tau)
    positions = sorted(rng.sample(range(len(cols)), min(m, len(cols))))
    new = cols.copy()
    links = []
    for i in positions:
        word, link = released_synonym(reader, cols.forms[i], rule)
        new.forms[i] = new.lemmas[i] = word
        links.append(link)
    set_text(new, render_text(cols, new))
    return Substituted(
        new, positions, [cols.forms[i] for i in positions], [new.forms[i] for i in positions], links
    )
