"""When a reconstructed word counts as the gold word."""

from __future__ import annotations

import unicodedata


def normalize_word(word: str) -> str:
    """NFKC, case-folded (a no-op for uncased scripts), without punctuation or spaces.

    Spaces go too: detokenizers insert them inside words (WordPiece decodes ``n't`` as
    ``n ' t``), and a UD word has none of its own.
    """
    folded = unicodedata.normalize("NFKC", word).casefold()
    return "".join(
        c for c in folded if not unicodedata.category(c).startswith("P") and not c.isspace()
    )


def words_match(prediction: str, gold: str, scoring: str = "paper") -> bool:
    """``paper``: equal after `normalize_word`; ``lrec2026``: equal after ``str.lower``."""
    if scoring == "lrec2026":
        return prediction.strip().lower() == gold.strip().lower()
    wanted = normalize_word(gold)
    if not wanted:  # a gold made only of punctuation is compared as written
        return unicodedata.normalize("NFKC", prediction).strip().casefold() == (
            unicodedata.normalize("NFKC", gold).strip().casefold()
        )
    return normalize_word(prediction) == wanted
