"""Invariants of every perturbation, checked on generated sentences (hypothesis)."""

from __future__ import annotations

import random

from hypothesis import given
from hypothesis import strategies as st

from perturbed_ud.perturb.lemma import lemmatize
from perturbed_ud.perturb.lrec2026 import clamped_heads
from perturbed_ud.perturb.paper import PaperProtocol
from perturbed_ud.perturb.word_order import (
    apply_permutation,
    full_scramble,
    head_swap,
    part_scramble,
    part_size,
)
from perturbed_ud.ud.columns import CONTENT_UPOS
from perturbed_ud.ud.conllu_io import Sentence

UPOS = ["NOUN", "PROPN", "VERB", "ADJ", "ADV", "DET", "ADP", "PRON", "AUX", "PUNCT", "CCONJ"]


@st.composite
def trees(draw, max_words=25):
    """A random sentence: UPOS tags and a valid tree (heads drawn among earlier-built nodes)."""
    n = draw(st.integers(1, max_words))
    upos = draw(st.lists(st.sampled_from(UPOS), min_size=n, max_size=n))
    order = draw(st.permutations(range(n)))
    heads = [0] * n
    for k, word in enumerate(order[1:], start=1):
        heads[word] = order[draw(st.integers(0, k - 1))] + 1
    return upos, heads


def sentence(upos, heads, sent_id="s1"):
    n = len(upos)
    forms = [f"w{i}" for i in range(n)]
    return Sentence(
        sent_id=sent_id,
        text=" ".join(forms),
        forms=forms,
        lemmas=[f"l{i}" if i % 3 else "_" for i in range(n)],
        upos=list(upos),
        feats=["_"] * n,
        heads=list(heads),
        deprels=["dep"] * n,
        multiword_tokens=[],
        n_empty_nodes=0,
        source="generated",
        line=1,
        lines=[],
    )


def is_permutation(perm, n):
    return sorted(perm) == list(range(n))


@given(trees(), st.integers(0, 2**32))
def test_full_moves_only_non_punctuation(tree, seed):
    upos, _ = tree
    perm = full_scramble(upos, random.Random(seed))
    assert is_permutation(perm, len(upos))
    for i, tag in enumerate(upos):
        if tag == "PUNCT":
            assert perm[i] == i
        else:
            assert upos[perm[i]] != "PUNCT", "words move only into non-punctuation slots"


@given(trees(), st.integers(0, 2**32), st.sampled_from([0.25, 0.5, 1.0]))
def test_part_moves_a_fraction_of_content_words_among_their_slots(tree, seed, fraction):
    upos, _ = tree
    perm = part_scramble(upos, random.Random(seed), fraction)
    assert is_permutation(perm, len(upos))
    content = [i for i, tag in enumerate(upos) if tag in CONTENT_UPOS]
    for i, tag in enumerate(upos):
        if tag not in CONTENT_UPOS:
            assert perm[i] == i, "function words and punctuation keep their slot"
        else:
            assert perm[i] in content, "content words move only into content slots"
    moved = sum(perm[i] != i for i in content)
    assert moved <= (part_size(len(content), fraction) if content else 0)


def test_part_size_uses_half_to_even_rounding():
    assert [part_size(n, 0.5) for n in (1, 2, 3, 4, 5, 6, 7)] == [1, 1, 2, 2, 2, 3, 4]


@given(trees(), st.integers(0, 2**32))
def test_head_swap_exchanges_heads_with_their_dependents(tree, seed):
    upos, heads = tree
    rng = random.Random(seed)
    movable = [tag != "PUNCT" for tag in upos]
    swaps = []

    def choose(head, deps):
        assert all(heads[d] - 1 == head and movable[d] for d in deps)
        assert deps == sorted(deps)
        swaps.append((head, dep := rng.choice(deps)))
        return dep

    perm = head_swap([h - 1 for h in heads], movable, choose)
    assert is_permutation(perm, len(upos))
    for i, tag in enumerate(upos):
        if tag == "PUNCT":
            assert perm[i] == i
    # Replaying the swaps on a working order gives the same result.
    position = list(range(len(upos)))
    for head, dep in swaps:
        position[head], position[dep] = position[dep], position[head]
    assert position == perm
    assert [h for h, _ in swaps] == sorted(h for h, _ in swaps), "heads left to right"


@given(trees(), st.integers(1, 10))
def test_paper_plan_is_keyed_and_carries_the_target(tree, seed):
    upos, heads = tree
    s = sentence(upos, heads)
    protocol = PaperProtocol()
    plan = protocol.plan(s, "en", "en_test", seed, None)
    again = protocol.plan(s, "en", "en_test", seed, None)
    if isinstance(plan, str):
        assert plan in {"no_content_word", "only_punctuation"}
        assert not any(tag in CONTENT_UPOS for tag in upos)
        return
    assert plan.target == again.target and plan.perms == again.perms
    assert upos[plan.target] in CONTENT_UPOS
    for family, perm in plan.perms.items():
        assert is_permutation(perm, len(upos)), family
        moved = apply_permutation(perm, s.forms)
        assert moved[perm[plan.target]] == s.forms[plan.target]
        # a scramble that moved nothing has no row, nor has its +L counterpart
        unmoved = perm == list(range(len(upos)))
        for split in (family, f"{family}_lemma"):
            assert plan.dropped.get(split) == ("no_movement" if unmoved else None)


@given(trees(), st.integers(1, 10))
def test_paper_plan_does_not_depend_on_other_sentences(tree, seed):
    """Keyed draws: planning other sentences first changes nothing."""
    upos, heads = tree
    protocol = PaperProtocol()
    s = sentence(upos, heads, "keep")
    before = protocol.plan(s, "en", "en_test", seed, None)
    for k in range(3):
        protocol.plan(sentence(upos, heads, f"other{k}"), "en", "en_test", seed, None)
    after = protocol.plan(s, "en", "en_test", seed, None)
    assert getattr(before, "perms", before) == getattr(after, "perms", after)


@given(st.lists(st.text(min_size=1, max_size=5), min_size=1, max_size=10))
def test_lemma_substitution_falls_back_to_the_form(forms):
    lemmas = ["_" if i % 2 else f.upper() for i, f in enumerate(forms)]
    out = lemmatize(forms, lemmas)
    assert out == [f if i % 2 else f.upper() for i, f in enumerate(forms)]


def test_released_loader_keeps_only_left_pointing_arcs():
    # heads (1-based): word0 -> root, word1 -> word0, word2 -> word3 (right), word3 -> word1
    assert clamped_heads([0, 1, 4, 2]) == [-1, 0, -1, 1]
