"""A row's words as text, spaced as a reader of that language expects.

A perturbed sentence has no text in the treebank, so it is rendered from its words. Where two
words stay neighbours in their original order, the original spacing between them is kept
(MISC ``SpaceAfter=No``); the original order therefore renders as the treebank's text. A new
join gets one space, except:

- where punctuation meets the side on which it had no space (a full stop stays attached to the
  word before it, an opening bracket to the word after it), so that moving the words around
  punctuation does not also change how the punctuation is spaced;
- next to a character of a script written without spaces between words (Han, kana, Bopomofo,
  Thai, Lao, Tibetan, Myanmar, Khmer, and the CJK and full-width punctuation), so Chinese and
  Japanese stay unspaced whatever the language code says.

The words of a multiword token are shown as separate words (German *zum* as *zu dem*), as in
``words``, so the join between them counts as a new one.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Sequence

from ..ud.conllu_io import Sentence

# Unicode blocks of scripts written without spaces between words: (first, last) code points.
_UNSPACED_BLOCKS = (
    (0x0E00, 0x0EFF),  # Thai, Lao
    (0x0F00, 0x0FFF),  # Tibetan
    (0x1000, 0x109F),  # Myanmar
    (0x1780, 0x17FF),  # Khmer
    (0x19E0, 0x19FF),  # Khmer symbols
    (0x2E80, 0x2FDF),  # CJK radicals, Kangxi radicals
    (0x3000, 0x312F),  # CJK symbols and punctuation, Hiragana, Katakana, Bopomofo
    (0x3190, 0x31FF),  # Kanbun, Bopomofo extended, CJK strokes, Katakana extensions
    (0x3300, 0x4DBF),  # CJK compatibility, CJK extension A
    (0x4E00, 0x9FFF),  # CJK unified ideographs
    (0xA9E0, 0xA9FF),  # Myanmar extended B
    (0xAA60, 0xAA7F),  # Myanmar extended A
    (0xF900, 0xFAFF),  # CJK compatibility ideographs
    (0xFE30, 0xFE4F),  # CJK compatibility forms
    (0xFF00, 0xFFEF),  # half-width and full-width forms
    (0x1B000, 0x1B16F),  # kana supplement and extensions
    (0x20000, 0x323AF),  # CJK extensions B to H, compatibility supplement
)
_STARTS = [first for first, _ in _UNSPACED_BLOCKS]


def unspaced(char: str) -> bool:
    """Whether ``char`` belongs to a script written without spaces between words."""
    code = ord(char)
    k = bisect_right(_STARTS, code) - 1
    return k >= 0 and code <= _UNSPACED_BLOCKS[k][1]


def space_after(s: Sentence) -> list[bool | None]:
    """Per word, whether the original text has a space after it; None for a word inside a
    multiword token (not the last), which the text does not show on its own."""
    spaces: list[bool | None] = [True] * len(s.forms)
    covered = 0  # the last word of the latest multiword token, 1-based
    for line in s.lines:
        if line.startswith("#"):
            continue
        wid, *_, misc = line.split("\t")
        first, dash, last = wid.partition("-")
        spaced = "SpaceAfter=No" not in misc.split("|")
        if dash:
            covered = int(last)
            spaces[int(first) - 1 : covered - 1] = [None] * (covered - int(first))
            spaces[covered - 1] = spaced
        elif first.isdigit() and int(first) > covered:  # a word outside any token; not 5.1
            spaces[int(first) - 1] = spaced
    return spaces


def render(
    words: Sequence[str],
    order: Sequence[int],
    spaces: Sequence[bool | None],
    upos: Sequence[str],
) -> str:
    """``words`` as text; ``order[k]`` is the original index of ``words[k]``, ``spaces`` and
    ``upos`` are by original index (`space_after`, the UPOS column)."""
    parts = list(words[:1])
    for k in range(1, len(words)):
        a, b = order[k - 1], order[k]
        if b == a + 1 and spaces[a] is not None:
            spaced = spaces[a]
        elif (upos[a] == "PUNCT" and spaces[a] is False) or (
            upos[b] == "PUNCT" and b > 0 and spaces[b - 1] is False
        ):
            spaced = False
        else:
            spaced = not (unspaced(words[k - 1][-1]) or unspaced(words[k][0]))
        if spaced:
            parts.append(" ")
        parts.append(words[k])
    return "".join(parts)
