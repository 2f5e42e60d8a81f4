"""The ``paper`` protocol: the perturbations as the LREC 2026 paper describes them.

Content-word targets (NOUN PROPN VERB ADJ ADV, minus a closed-class stoplist), punctuation
fixed in Full, Part moving a fraction of the content words among their own slots, Head
swapping each non-punctuation head with one non-punctuation dependent. Every draw is keyed by
(seed, treebank, sent_id, purpose[, head index]).
"""

from __future__ import annotations

from ..errors import InputError
from ..lexicons import stoplist
from ..registry import PROTOCOLS
from ..rng import KeyedDraws
from ..ud.conllu_io import Sentence
from .plan import SentencePlan, has_visible_text
from .word_order import CONTENT_UPOS, full_scramble, head_swap, part_scramble


@PROTOCOLS.register("word_order.paper.v1")
class PaperProtocol:
    """The paper's text: keyed draws, content-word targets, punctuation in place."""

    name = "paper"
    stream_order = None  # every draw is keyed: treebanks build independently

    def __init__(self, part_fraction: float = 0.5):
        if not 0 < part_fraction <= 1:
            raise InputError(f"part fraction must be in (0, 1], got {part_fraction}")
        self.part_fraction = part_fraction

    def params(self) -> dict:
        return {"protocol": self.name, "part_fraction": self.part_fraction}

    def start(self, seed: int) -> None:
        """No state: every draw is keyed."""

    def candidates(self, s: Sentence, lang: str) -> list[int]:
        """Possible targets: content words outside the stoplist (the same for every seed)."""
        stop = stoplist(lang)
        return [
            i
            for i, (form, tag) in enumerate(zip(s.forms, s.upos, strict=True))
            if tag in CONTENT_UPOS and form.lower() not in stop and has_visible_text(form)
        ]

    def plan(self, s: Sentence, lang, treebank, seed, state, candidates=None):
        if candidates is None:
            candidates = self.candidates(s, lang)
        if not candidates:
            return "only_punctuation" if set(s.upos) == {"PUNCT"} else "no_content_word"
        draws = KeyedDraws(seed, treebank, s.sent_id)
        target = candidates[draws.index(len(candidates), "target")]
        movable = [tag != "PUNCT" for tag in s.upos]
        head = head_swap(
            [h - 1 for h in s.heads],
            movable,
            lambda h, deps: deps[draws.index(len(deps), "head", h)],
        )
        return SentencePlan(
            target=target,
            perms={
                "full": full_scramble(s.upos, draws.random("full")),
                "part": part_scramble(s.upos, draws.random("part"), self.part_fraction),
                "head": head,
            },
        )
