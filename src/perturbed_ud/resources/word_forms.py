"""Where a build's word forms come from: the UD files beside the treebank read (every split,
so a form attested in dev inflects a lemma from test), lexicons the user gives, and
pymorphy3's paradigms for Russian."""

from __future__ import annotations

from pathlib import Path

from ..ud.conllu_io import split_files
from ..ud.sources import Treebank
from .citation import citation_form, lemma_key
from .inflection import Inflector, Lexicon, RussianParadigms, read_lexicon


def lexicon_files(treebank: Treebank, pools: list[Path], *, siblings: bool) -> list[Path]:
    """UD files for the inflection lexicon: those read, and with ``siblings`` every other
    split of the treebank in its folder."""
    files = list(dict.fromkeys([*treebank.files, *pools]))
    if siblings:
        folder = treebank.files[0].parent
        files += [f for f in split_files(folder, "*", treebank.code) if f not in files]
    return files


def inflector_for(
    lang: str,
    files: list[Path],
    user_lexicons: list[tuple[str | None, Path]] = (),
    *,
    pymorphy: bool = True,
) -> Inflector:
    """The inflection sources of one language, in the order they are tried: the UD form
    lexicon of ``files``, the user's lexicons, then (Russian) pymorphy3."""
    key = lemma_key(lang)

    def cite(cols, i):
        return citation_form(lang, cols, i)

    sources = [Lexicon.from_ud(files, key, cite, name="ud")]
    sources += [read_lexicon(path, fmt, key, cite) for fmt, path in user_lexicons]
    if lang == "ru" and pymorphy:
        sources.append(RussianParadigms())
    return Inflector(sources)
