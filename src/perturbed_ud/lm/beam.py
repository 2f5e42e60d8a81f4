"""Beam search over the masked pieces of a word, left to right, batched across items.

At each step every live (item, beam) pair becomes one row: the input with the beam's pieces
filled in and the later pieces still masked. Rows of all items are scored together by a
`Batcher`.
"""

from __future__ import annotations

from .batching import Batcher
from .masking import MaskedItem

Beams = list[tuple[tuple[int, ...], float]]


def expand_beams(beams: Beams, row_scores, beam: int) -> Beams:
    """Each beam extended by its ``beam`` best pieces; the best ``beam`` kept, ties in
    insertion order (a stable sort), as in the released code."""
    values, ids = row_scores
    candidates = [
        (pieces + (piece,), score + value)
        for (pieces, score), piece_ids, piece_values in zip(beams, ids, values, strict=True)
        for piece, value in zip(piece_ids, piece_values, strict=True)
    ]
    return sorted(candidates, key=lambda c: -c[1])[:beam]


def beam_search(
    batcher: Batcher, items: list[MaskedItem], beam: int, banned: list[int] | None = None
) -> list[Beams]:
    """Final beams per item, best first: (pieces, summed log-probability).

    ``banned`` piece ids (special tokens) are never proposed.
    """
    beams: list[Beams] = [[((), 0.0)] for _ in items]
    for step in range(max((len(item.span) for item in items), default=0)):
        rows, positions, owners = [], [], []
        for i, item in enumerate(items):
            if step >= len(item.span):
                continue
            for b, (pieces, _) in enumerate(beams[i]):
                row = list(item.ids)
                for k, piece in enumerate(pieces):
                    row[item.span[k]] = piece
                rows.append(row)
                positions.append(item.span[step])
                owners.append((i, b))
        per_item: dict[int, tuple[list, list]] = {}
        tops = batcher.top_log_probs(rows, positions, beam, banned)
        for (i, _), (values, ids) in zip(owners, tops, strict=True):
            per_item.setdefault(i, ([], []))
            per_item[i][0].append(values)
            per_item[i][1].append(ids)
        for i, row_scores in per_item.items():
            beams[i] = expand_beams(beams[i], row_scores, beam)
    return beams
