"""+L: every word replaced by its UD lemma."""

from __future__ import annotations

from collections.abc import Sequence

from ..ud.columns import lemma_or_form


def lemmatize(forms: Sequence[str], lemmas: Sequence[str]) -> list[str]:
    return [lemma_or_form(f, lemma) for f, lemma in zip(forms, lemmas, strict=True)]
