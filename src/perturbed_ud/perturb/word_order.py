"""Word-order perturbations: Full, Part and Head, as permutations of word positions."""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence

from ..ud.columns import CONTENT_UPOS


def identity(n: int) -> list[int]:
    return list(range(n))


def inverse(perm: Sequence[int]) -> list[int]:
    """``order[k]`` = the original word now at position ``k``."""
    order = [0] * len(perm)
    for i, position in enumerate(perm):
        order[position] = i
    return order


def apply_permutation(perm: Sequence[int], seq: Sequence) -> list:
    """The sequence in its new order: ``out[perm[i]] = seq[i]``."""
    return [seq[i] for i in inverse(perm)]


def full_scramble(upos: Sequence[str], rng: random.Random) -> list[int]:
    """Permute every word except punctuation, which keeps its slot (paper protocol)."""
    movable = [i for i, tag in enumerate(upos) if tag != "PUNCT"]
    slots = movable[:]
    rng.shuffle(slots)
    perm = identity(len(upos))
    for word, slot in zip(movable, slots, strict=True):
        perm[word] = slot
    return perm


def part_size(n_content: int, fraction: float) -> int:
    """How many content words Part moves: ``max(1, round(fraction·n))``, Python's round
    (half to even), the rule behind every published number."""
    return max(1, round(fraction * n_content))


def part_scramble(upos: Sequence[str], rng: random.Random, fraction: float = 0.5) -> list[int]:
    """Permute a random ``fraction`` of the content words among their own slots.

    Function words and punctuation never move. Draws ``rng.sample`` then ``rng.shuffle``,
    the order of the released code, so the lrec2026 protocol reuses this function.
    """
    content = [i for i, tag in enumerate(upos) if tag in CONTENT_UPOS]
    perm = identity(len(upos))
    if not content:
        return perm
    chosen = rng.sample(content, part_size(len(content), fraction))
    slots = chosen[:]
    rng.shuffle(slots)
    for word, slot in zip(chosen, slots, strict=True):
        perm[word] = slot
    return perm


def head_swap(
    heads: Sequence[int],
    movable: Sequence[bool],
    choose: Callable[[int, list[int]], int],
) -> list[int]:
    """Each head, left to right, swaps surface position with one of its dependents.

    ``heads[i]`` is the 0-based head of word ``i`` (-1 for none). Heads and dependents must
    be ``movable``. ``choose(head, dependents)`` picks the dependent. Swaps apply in
    sequence to a working order, so chains of heads can move words more than once; the
    tree itself is not updated.
    """
    n = len(heads)
    dependents: list[list[int]] = [[] for _ in range(n)]
    for word, head in enumerate(heads):
        if head >= 0 and movable[word]:
            dependents[head].append(word)
    position = identity(n)
    for head in range(n):
        if movable[head] and dependents[head]:
            dep = choose(head, dependents[head])
            position[head], position[dep] = position[dep], position[head]
    return position
