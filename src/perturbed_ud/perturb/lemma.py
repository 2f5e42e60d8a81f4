"""+L: every word replaced by its UD lemma."""

from __future__ import annotations

from collections.abc import Sequence


def lemma_or_form(form: str, lemma: str) -> str:
    """The UD lemma, or the form itself where the treebank has none (``_``)."""
    return form if lemma == "_" else lemma


def lemmatize(forms: Sequence[str], lemmas: Sequence[str]) -> list[str]:
    return [lemma_or_form(f, lemma) for f, lemma in zip(forms, lemmas, strict=True)]
