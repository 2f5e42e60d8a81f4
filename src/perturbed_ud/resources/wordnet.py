"""WordNet 3.0 and the Open Multilingual Wordnet, read by nltk from data on disk.

Nothing is downloaded at build time. The data is an nltk data folder holding
``corpora/wordnet.zip`` and, for languages other than English, ``corpora/omw-1.4.zip``:
what ``python -m nltk.downloader -d DIR wordnet omw-1.4`` writes once on a machine with a
network, and what can be copied to one without. The folder is ``--wordnet``, else
``$PERTURBED_UD_WORDNET``, else the first of nltk's own data folders that holds WordNet.
"""

from __future__ import annotations

import os
import warnings
from functools import cache
from pathlib import Path

from ..errors import InputError

ENV = "PERTURBED_UD_WORDNET"
# ISO 639-1 -> the OMW 1.4 language code nltk knows it by (English: WordNet itself).
OMW_LANGS = {"en": "eng", "fr": "fra", "es": "spa", "zh": "cmn", "ar": "arb"}
# Where each language's synonyms come from and under which licence (the OMW 1.4 tab files
# name theirs); a dataset of substitutions carries words drawn from them.
WORDNET_SOURCES = {
    "en": "Princeton WordNet 3.0 (WordNet 3.0 licence)",
    "fr": "WOLF, via OMW 1.4 (CeCILL-C)",
    "es": "Multilingual Central Repository 3.0, via OMW 1.4 (CC BY 3.0)",
    "zh": "Chinese Open Wordnet, via OMW 1.4 (WordNet licence)",
    "ar": "Arabic WordNet 2, via OMW 1.4 (CC BY-SA 3.0)",
}
# UPOS -> WordNet parts of speech (ADJ: head and satellite adjectives).
WORDNET_POS = {"NOUN": ("n",), "PROPN": ("n",), "VERB": ("v",), "ADJ": ("a", "s"), "ADV": ("r",)}
INSTALL = (
    "install it once with `python -m nltk.downloader -d DIR wordnet omw-1.4` (or copy an nltk "
    "data folder holding corpora/wordnet.zip and corpora/omw-1.4.zip) and pass --wordnet DIR"
)


def wordnet_folder(given: str | Path | None = None) -> Path:
    """The nltk data folder to read WordNet from (see the module's docstring)."""
    import nltk

    if given or os.environ.get(ENV):
        folder = Path(given or os.environ[ENV]).expanduser()
        if not (folder / "corpora" / "wordnet.zip").is_file():
            raise InputError(f"no WordNet in {folder} (no corpora/wordnet.zip): {INSTALL}")
        return folder
    for path in nltk.data.path:
        if (Path(path) / "corpora" / "wordnet.zip").is_file():
            return Path(path)
    raise InputError(f"WordNet data not found in nltk's data folders: {INSTALL}")


@cache
def open_wordnet(folder: Path):
    """nltk's WordNet reader over the folder's WordNet and OMW (when present)."""
    import nltk
    from nltk.corpus.reader import CorpusReader
    from nltk.corpus.reader.wordnet import WordNetCorpusReader

    if str(folder) not in nltk.data.path:  # nltk reads only below its data folders
        nltk.data.path.insert(0, str(folder))
    omw = None
    if (folder / "corpora" / "omw-1.4.zip").is_file():
        omw = CorpusReader(
            nltk.data.find("corpora/omw-1.4.zip/omw-1.4/"), r".*/wn-data-.*\.tab", encoding="utf8"
        )
    with warnings.catch_warnings():  # OMW's Chinese file has known bad lines
        warnings.simplefilter("ignore")
        reader = WordNetCorpusReader(nltk.data.find("corpora/wordnet.zip/wordnet/"), omw)
        if omw is not None:
            reader.add_omw()  # lists OMW's languages; each loads on first use
    return reader


def omw_lang(lang: str, reader) -> str:
    """The reader's code for a language, or an error naming the languages it has."""
    code = OMW_LANGS.get(lang)
    if code is None or code not in reader.langs():
        have = sorted(k for k, v in OMW_LANGS.items() if v in reader.langs())
        raise InputError(
            f"no wordnet for {lang!r} in this WordNet data (it has: {', '.join(have)})"
        )
    return code


def synonyms(reader, code: str, lemma: str, upos: str) -> list[tuple[str, str]]:
    """(lemma name, synset name) for every other single-word lemma of every synset of
    ``lemma`` whose part of speech matches ``upos``, in WordNet's sense order. A synset
    counts only if it holds the lemma itself (case aside): WordNet's lookup also reduces
    words to a base form (*media* to *medium*, the name *Peters* to *Peter*)."""
    own = lemma.casefold()
    out, seen = [], {own}
    for pos in WORDNET_POS.get(upos, ()):
        for synset in reader.synsets(lemma, pos=pos, lang=code):
            names = synset.lemma_names(code)
            if own not in {name.casefold() for name in names}:
                continue
            for name in names:
                if "_" in name or " " in name or name.casefold() in seen:
                    continue
                seen.add(name.casefold())
                out.append((name, synset.name()))
    return out
