"""Generating minimal sets from an attribute-varying grammar.

What is varied follows the paper (Mueller et al. 2020, §3). A template slot ``X[C]`` is varied
when a vary item ``X[A]`` has A ⊆ C; its alternates are the other preterminals ``X[B]`` with
B ⊇ A for some such item (OR is a union), each once, in definition order. The slot's own
preterminal is never its own alternate. Alternates are aligned with the slot by position: the
i-th form of ``V[3,s]`` is paired with the i-th form of ``V[3,p]``, so their counts must match.

The order is that of the released CLAMS evalsets, so the released grammars give them back byte
for byte: a preterminal slot varies more slowly than the slots before it, except that varied
slots vary fastest of all; each grammatical sentence is followed by its ungrammatical ones.
A template with several varied slots yields, per grammatical sentence, one ungrammatical
sentence per slot and alternate, each differing from it in that one slot only.

A template yields the product of its slots' form counts, so a few more forms per slot can
multiply a grammar beyond any disk: the sentences of every template are counted before the
first is generated, and a construction over `MAX_SENTENCES` is refused at the template that
takes it over. Sets are then generated one at a time, so memory does not grow with them.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from functools import lru_cache
from itertools import product
from math import prod

from ..errors import GrammarError
from .parser import Definition, Grammar, Preterminal, Template

# Sentences, grammatical and ungrammatical, that one construction may expand to: 35 times the
# largest CLAMS construction (about 28,000), and an evalset of some 50 MB.
MAX_SENTENCES = 1_000_000


@dataclass(frozen=True)
class MinimalPair:
    """A grammatical sentence and one ungrammatical variant that differs in one varied slot.

    Positions index the words of ``good.split(" ")`` and ``bad.split(" ")``, from 0.
    """

    construction: str
    item: int  # the minimal set (grammatical sentence) it belongs to, from 0 per construction
    template: int  # the template it came from, numbered from 1 in file order
    good: str
    bad: str
    preterminal: str  # the varied preterminal's name, e.g. "VP"
    good_attributes: tuple[str, ...]  # e.g. ("3", "p")
    bad_attributes: tuple[str, ...]  # e.g. ("3", "s")
    good_form: str
    bad_form: str
    good_positions: tuple[int, ...]
    bad_positions: tuple[int, ...]

    @property
    def varied_attributes(self) -> tuple[str, ...]:
        """The attributes that tell the two forms apart, the grammatical form's first."""
        return _varied_attributes(self.good_attributes, self.bad_attributes)


@lru_cache(maxsize=1024)
def _varied_attributes(good: tuple[str, ...], bad: tuple[str, ...]) -> tuple[str, ...]:
    # A grammar has a few attribute pairs but hundreds of thousands of pairs: computed once each.
    good_set, bad_set = set(good), set(bad)
    return tuple(a for a in good if a not in bad_set) + tuple(a for a in bad if a not in good_set)


@dataclass(frozen=True)
class MinimalSet:
    """A grammatical sentence with all its ungrammatical variants (the paper's minimal set).

    A varied slot with no alternate leaves a set without pairs, still one released line.
    """

    construction: str
    item: int
    template: int
    good: str
    pairs: tuple[MinimalPair, ...]

    def lines(self) -> list[tuple[bool, str]]:
        """The released evalset lines: (True, good), then (False, bad) for each pair."""
        return [(True, self.good)] + [(False, pair.bad) for pair in self.pairs]


@dataclass(frozen=True)
class _Slot:
    definition: Definition
    alternates: tuple[Definition, ...] | None  # None: the slot is not varied


def minimal_sets(grammar: Grammar, max_sentences: int = MAX_SENTENCES) -> Iterator[MinimalSet]:
    """Every minimal set of the grammar, templates in file order, each generated when the
    iterator reaches it.

    Every error of the grammar, its size over `max_sentences` included, is raised by the call
    itself, before the first set is generated.
    """
    alternates: dict[Preterminal, tuple[Definition, ...] | None] = {}
    planned: list[tuple[Template, list[_Slot]]] = []
    total = 0
    for template in grammar.templates:
        slots = []
        for item in template.items:
            if isinstance(item, Preterminal):
                if item not in alternates:
                    alternates[item] = _alternates(grammar, item)
                slots.append(_Slot(grammar.definitions[item], alternates[item]))
        varied = [slot.alternates for slot in slots if slot.alternates is not None]
        if not varied:
            vary = "; ".join(str(v.preterminal) for v in grammar.vary)
            raise GrammarError(
                template.path,
                template.line,
                f"the template varies nothing: none of its preterminals matches `vary: {vary}`",
            )
        variants = sum(map(len, varied))
        count = _combinations(slots) * (1 + variants)
        total += count
        if total > max_sentences:
            forms = " × ".join(str(len(slot.definition.options)) for slot in slots)
            raise GrammarError(
                template.path,
                template.line,
                f"the template expands to {count:,} sentences ({forms} combinations of its "
                f"slots' forms, each with {variants} ungrammatical variant(s)), which takes "
                f"{grammar.name} to {total:,}: over the limit of {max_sentences:,} sentences "
                "per construction",
            )
        planned.append((template, slots))
    return _generate(grammar, planned)


def _combinations(slots: list[_Slot]) -> int:
    """The grammatical sentences of a template: one per combination of its slots' forms."""
    return prod(len(slot.definition.options) for slot in slots)


def _generate(
    grammar: Grammar, planned: list[tuple[Template, list[_Slot]]]
) -> Iterator[MinimalSet]:
    first_item = 0
    for template, slots in planned:
        yield from _expand(grammar, template, slots, first_item)
        first_item += _combinations(slots)


def _alternates(grammar: Grammar, slot: Preterminal) -> tuple[Definition, ...] | None:
    """The forms `slot` is varied against, or None when no vary item applies to it."""
    required = [
        v.preterminal.attributes
        for v in grammar.vary
        if v.preterminal.name == slot.name and v.preterminal.attributes <= slot.attributes
    ]
    if not required:
        return None
    own = grammar.definitions[slot]
    chosen = tuple(
        definition
        for preterminal, definition in grammar.definitions.items()
        if preterminal.name == slot.name
        and preterminal != slot
        and any(preterminal.attributes >= attributes for attributes in required)
    )
    for definition in chosen:
        if len(definition.options) != len(own.options):
            raise GrammarError(
                definition.path,
                definition.line,
                f"{definition.preterminal} has {len(definition.options)} forms but "
                f"{slot} ({own.where}) has {len(own.options)}: varied forms are paired by "
                "position, so both need the same number",
            )
    return chosen


def _expand(
    grammar: Grammar, template: Template, slots: list[_Slot], first_item: int
) -> Iterator[MinimalSet]:
    varied = [k for k, slot in enumerate(slots) if slot.alternates is not None]
    # Nesting of the loops, outermost first: each plain slot goes outside everything before
    # it, each varied slot inside.
    order: list[int] = []
    for k, slot in enumerate(slots):
        if slot.alternates is None:
            order.insert(0, k)
        else:
            order.append(k)
    ranges = [range(len(slots[k].definition.options)) for k in order]
    # What does not change from one sentence to the next is taken out of the loop: a form's
    # text, and per varied slot the (preterminal, attributes, forms) of each alternate.
    texts = [[" ".join(option) for option in slot.definition.options] for slot in slots]
    alternates = {
        k: [
            (
                slots[k].definition.preterminal.name,
                slots[k].definition.preterminal.written,
                alternate.preterminal.written,
                alternate.options,
                [" ".join(option) for option in alternate.options],
            )
            for alternate in slots[k].alternates
        ]
        for k in varied
    }
    forms = [slot.definition.options for slot in slots]
    construction, number = grammar.name, template.number
    for offset, choice in enumerate(product(*ranges)):
        option = [0] * len(slots)
        for k, j in zip(order, choice, strict=True):
            option[k] = j
        words: list[str] = []
        starts: list[int] = []
        for item in template.items:
            if isinstance(item, Preterminal):
                k = len(starts)
                starts.append(len(words))
                words.extend(forms[k][option[k]])
            else:
                words.append(item)
        good = " ".join(words)
        item_number = first_item + offset
        pairs = []
        for k in varied:
            j, start = option[k], starts[k]
            good_form = forms[k][j]
            end = start + len(good_form)
            before, after = words[:start], words[end:]
            for name, good_attributes, bad_attributes, options, bad_texts in alternates[k]:
                bad_form = options[j]
                pairs.append(
                    MinimalPair(
                        construction=construction,
                        item=item_number,
                        template=number,
                        good=good,
                        bad=" ".join(before + list(bad_form) + after),
                        preterminal=name,
                        good_attributes=good_attributes,
                        bad_attributes=bad_attributes,
                        good_form=texts[k][j],
                        bad_form=bad_texts[j],
                        good_positions=tuple(range(start, end)),
                        bad_positions=tuple(range(start, start + len(bad_form))),
                    )
                )
        yield MinimalSet(construction, item_number, number, good, tuple(pairs))
