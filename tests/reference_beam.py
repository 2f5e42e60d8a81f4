"""The one-sentence beam-search loop that the batched search is checked and benchmarked
against: one item and one beam per forward pass, with the model's full logits."""

from __future__ import annotations

import torch

from perturbed_ud.lm.beam import Beams, expand_beams
from perturbed_ud.lm.masking import MaskedItem
from perturbed_ud.lm.models import LanguageModel


def naive_beam_search(
    lm: LanguageModel, item: MaskedItem, beam: int, banned: list[int] | None = None
) -> Beams:
    """The same search one sentence and one beam at a time with the model's full logits:
    the straightforward loop the batched search is checked and benchmarked against."""
    beams: Beams = [((), 0.0)]
    for position in item.span:
        values, ids = [], []
        for pieces, _ in beams:
            row = list(item.ids)
            for k, piece in enumerate(pieces):
                row[item.span[k]] = piece
            with torch.inference_mode():
                logits = lm.model(input_ids=torch.tensor([row], device=lm.device)).logits
            scores = torch.log_softmax(logits[0, position].float(), dim=-1)
            if banned:
                scores[banned] = float("-inf")
            top = scores.topk(beam)
            values.append(top.values.tolist())
            ids.append(top.indices.tolist())
        beams = expand_beams(beams, (values, ids), beam)
    return beams
