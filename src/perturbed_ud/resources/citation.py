"""How a word of a sentence is entered in a lexicon of forms, and how lemmas are pooled:
shared by the lexicons (`inflection`, `unimorph`, `word_forms`) and the surface rules that
write a new form back into a sentence."""

from __future__ import annotations

import re
from collections.abc import Callable

from ..ud.columns import SentenceColumns, space_after

ARABIC_DIACRITICS = re.compile(
    "[\u0610-\u061a\u064b-\u065f\u0670\u06d6-\u06dc\u06df-\u06e4\u06e7\u06e8\u06ea-\u06ed]"
)
# Ends a lexicon entry spelled for a following clitic (UDLexicons' convention): Arabic
# أصدقائ|ه is أصدقاء alone, so the host spelling is used only before a clitic.
BOUND = "-"


def strip_arabic_diacritics(text: str) -> str:
    return ARABIC_DIACRITICS.sub("", text)


def lemma_key(lang: str) -> Callable[[str], str]:
    """How lemmas are compared and pooled: Arabic without diacritics, others as written."""
    return strip_arabic_diacritics if lang == "ar" else _same


def _same(text: str) -> str:
    return text


def citation_form(lang: str, cols: SentenceColumns, i: int) -> str:
    """A word's form as a lexicon entry: sentence-initial or shouted capitals undone where
    the lemma is lower case; Arabic without diacritics, with the article's alif that the
    clitic li- swallows (ل + لسلطة -> السلطة), the taa marbuta that a suffixed pronoun
    opens (حيات + نا -> حياة), and marked `BOUND` before a suffixed pronoun, whose other
    spelling changes (hamza seat, long vowels) no rule undoes."""
    form, lemma = cols.forms[i], cols.lemmas[i]
    if lemma[:1].islower() and form[:1].isupper():
        form = form.lower() if len(form) > 1 and form.isupper() else form[:1].lower() + form[1:]
    if lang == "ar":
        form = strip_arabic_diacritics(form)
        if after_li(cols, i) and form.startswith("ل") and "Definite=Def" in cols.feats[i]:
            form = "ا" + form
        if before_suffix(cols, i):
            singular = "Number=Sing" in cols.feats[i]  # not the plural -aat
            if singular and form.endswith("ت") and strip_arabic_diacritics(lemma).endswith("ة"):
                form = form[:-1] + "ة"
            form += BOUND
    return form


def written_form(lang: str, entry: str) -> str:
    """A lexicon entry as written in the sentence: without the `BOUND` mark."""
    return entry.removesuffix(BOUND) if lang == "ar" else entry


def after_li(cols: SentenceColumns, i: int) -> bool:
    return (
        i > 0
        and strip_arabic_diacritics(cols.forms[i - 1]) == "ل"
        and not space_after(cols.misc[i - 1])
    )


def before_suffix(cols: SentenceColumns, i: int) -> bool:
    """Followed by a pronoun written together with it (Arabic: حيات|نا): with no space
    between them, or in one multiword token."""
    if i + 1 >= len(cols) or cols.upos[i + 1] != "PRON":
        return False
    return not space_after(cols.misc[i]) or any(a <= i < b for a, b, _ in cols.mwt_spans())
