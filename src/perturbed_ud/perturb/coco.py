"""coCO (La Malfa et al. 2022, Def. 6): a word replaced by what a masked language model
predicts in its place, given the rest of the original sentence.

Every piece of the word is masked and the pieces are rebuilt left to right by beam search,
as in masked-word prediction (`perturbed_ud.lm.beam`). The candidate is the best
beam that is a whole word other than the original: letters (and digits, hyphens,
apostrophes) without a space, cut by the tokenizer into exactly those pieces, so that a
continuation piece (``##ing``, or a SentencePiece without its word-start mark) never stands
alone. Nothing makes the word fit the UD annotation: the paper's coCO gives up that
guarantee for fit to the context, and the lemma of a new word is unknown (``_``).

Needs the evaluation extra (torch, transformers); imported only when coCO is asked for.
"""

from __future__ import annotations

import unicodedata

from ..lm.batching import Batcher
from ..lm.beam import beam_search
from ..lm.masking import mask_target
from ..lm.matching import normalize_word
from ..lm.models import LanguageModel, describe_model
from ..ud.columns import SentenceColumns
from .substitution import Candidate, open_positions

LINK = "masked_lm"  # the `links` entry of a coCO replacement
NO_WHOLE_WORD = "no_whole_word_predicted"
MAX_SPAN_PIECES = 6  # as masked-word prediction: longer words are not rebuilt


def masked_lm_identity(name: str, revision: str | None) -> dict:
    """The model's name, revision and tokenizer, refused unless it can be read as a masked LM
    (`checked_model`); no weights are read, so a wrong ``--model`` fails before the build
    starts."""
    return describe_model(name, revision, None, kind="masked", choosable=False)


def is_whole_word(tokenizer, word: str, pieces: tuple[int, ...]) -> bool:
    """A word of its own: word characters only, a letter among them, and the tokenizer's
    own segmentation of it as a separate word is ``pieces``."""
    if not any(c.isalpha() for c in word):
        return False
    if not all(c.isalnum() or c in "-'’" or unicodedata.category(c)[0] == "M" for c in word):
        return False
    encoded = tokenizer([word], is_split_into_words=True, add_special_tokens=False)
    return list(encoded["input_ids"]) == list(pieces)


class MaskedLMCandidates:
    """The masked LM's best whole word at each open position of a chunk of sentences, all
    predicted in shared batches by `predict` before `candidates` is asked."""

    def __init__(self, lm: LanguageModel, beam: int, max_tokens: int):
        self.lm, self.beam = lm, beam
        self.batcher = Batcher(lm, max_tokens)
        self.predicted: dict[tuple[tuple[str, ...], int], Candidate | str] = {}

    def predict(self, sentences: list[SentenceColumns]) -> None:
        tokenizer = self.lm.tokenizer
        self.predicted, items, keys = {}, [], []
        for cols in sentences:
            for i in open_positions(cols)[0]:
                key = (tuple(cols.forms), i)
                item = mask_target(
                    tokenizer,
                    cols.forms,
                    i,
                    scoring="paper",
                    max_span_pieces=MAX_SPAN_PIECES,
                    max_length=self.lm.max_length,
                )
                if isinstance(item, str):  # span_too_long, sentence_too_long, …
                    self.predicted[key] = item
                else:
                    items.append(item)
                    keys.append(key)
        found = beam_search(self.batcher, items, self.beam, list(tokenizer.all_special_ids))
        for key, beams in zip(keys, found, strict=True):
            self.predicted[key] = self._best_word(key[0][key[1]], beams)

    def _best_word(self, original: str, beams) -> Candidate | str:
        tokenizer = self.lm.tokenizer
        for pieces, _ in beams:
            word = tokenizer.decode(list(pieces), skip_special_tokens=True).strip()
            if normalize_word(word) != normalize_word(original) and is_whole_word(
                tokenizer, word, pieces
            ):
                return Candidate("_", word, LINK)
        return NO_WHOLE_WORD

    def candidates(self, cols: SentenceColumns, i: int) -> tuple[list[Candidate], str | None]:
        found = self.predicted[tuple(cols.forms), i]
        return ([found], None) if isinstance(found, Candidate) else ([], found)
