"""What a protocol decides for one sentence: its target word and one permutation per family."""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass, field


@dataclass(slots=True)
class SentencePlan:
    target: int  # index of the target word in the original order
    perms: dict[str, list[int]]  # family (full, part, head) -> permutation
    dropped: dict[str, str] = field(default_factory=dict)  # split -> reason it has no row


def has_visible_text(word: str) -> bool:
    """False for words a WordPiece tokenizer turns into zero pieces: only whitespace, control
    or format characters, U+0000 or U+FFFD (what BERT's text clean-up deletes)."""
    if word.isprintable() and word.strip(" \ufffd"):
        return True  # the common case: no control, format or separator characters
    for char in word:
        if char in "\t\n\r" or char.isspace() or char in "\x00\ufffd":
            continue
        if not unicodedata.category(char).startswith("C"):
            return True
    return False
