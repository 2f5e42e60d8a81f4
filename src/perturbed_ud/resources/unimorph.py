"""UniMorph inflection tables, fetched from each language's UniMorph repository at a pinned
commit into the download cache.

The treebank a build reads knows only the forms it attests; UniMorph tables list whole
paradigms (mostly from Wiktionary), so a verb seen once in one cell can still be put in
another. Each table is pinned by the commit and git blob id of its file at that commit, checked
when it is fetched; the cache is checked against the sha256 recorded then on every later read.
The tables are under CC BY-SA 3.0 (each repository's README); a dataset whose forms came from
one says so on its card.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from ..download import cache_dir, cached, fetch_all
from ..errors import SourceError
from .citation import citation_form, lemma_key
from .inflection import Lexicon, read_lexicon

BASE_URL = "https://raw.githubusercontent.com/unimorph"
LICENCE = "CC BY-SA 3.0"
HINT = (
    "Without network, leave out --unimorph (forms then come from the treebanks read), or "
    "fetch the table once on a machine with network: it is cached under the perturbed-ud cache "
    "folder (PERTURBED_UD_CACHE) in unimorph/<repository>/<commit>/."
)


@dataclass(frozen=True)
class Table:
    """A UniMorph repository at a commit, and the git blob id of each table file read."""

    repository: str  # e.g. eng
    commit: str
    files: dict[str, str]  # file name -> git blob sha1


# ISO 639-1 -> the language's UniMorph table(s). Derivation and segmentation files, and the
# non-commercial Czech MorfFlex table (ces.xz), are not read.
TABLES = {
    "ar": Table("ara", "e9b7521ab75e3a7da6f996a428031164993e6f19",
                {"ara": "635cf7c6d400ae08af02eeac3175371072cb3ada"}),
    "cs": Table("ces", "f0d4a4dfaec45b1f4a0ba0a1db1298f3d64af503",
                {"ces": "35cd593ca12b871b05e6f616e18af99990b4bbb1"}),
    "de": Table("deu", "d226d2112d3490d8f04ece10d4538123d4297a39",
                {"deu": "6150b616a031acd3ac504d11be80a1a88d4c46c6"}),
    "en": Table("eng", "66e0e9e8e2dcd196da081a25a48e5c1fe3d8b49b",
                {"eng": "8eae5ed242e87e50f6bd182133277f50fe93cef3"}),
    "es": Table("spa", "b9655efb0e5ce0f99809badaa7f4e93017ab8430",
                {"spa": "715b9b2e8120a824ef5653a9d7fbf872fc02924d"}),
    "fi": Table("fin", "fe0a2707244ed2ce2fe5d92a4a57c92271b32e1f",
                {"fin.1": "b72b7129f7e72814533d0f4fa54078693cf0dc2c",
                 "fin.2": "816771e0e44feee5e064c6dd2e59402f22fd98fe"}),
    "fr": Table("fra", "f672f8cceb2d5f5a1e2241b5622c8845f8274635",
                {"fra": "c27cfe5963551f0558ee4e17d2f863a4886e72e9"}),
    "he": Table("heb", "b2bff12338caa1922e6aeea128c617730f93d334",
                {"heb": "9a38c5adc8a5ecf2c28435afb9395b30c554f436"}),
    "hi": Table("hin", "ae6231f736fa5a08205c768ca23ff6c19e80d25e",
                {"hin": "07d0ab5f2be06ccfaf39c906359ac603289313d5"}),
    "it": Table("ita", "fa2cc6ce173643e748bd8f4162709365bdc98805",
                {"ita": "d4a62123c6aa98be9b633afa4fc6bc2e16834b50"}),
    "pl": Table("pol", "021f30fde6529be8433ec2f0e41b062f1c694c4c",
                {"pol": "e1d07d3f57fff636467b3a8e1d9e7884a4b156d5"}),
    "pt": Table("por", "fc2778e08e2da476d9d2f27f15f218b1cbb25ad5",
                {"por": "890acf7511f66b1d34032590e7016a547a7baa48"}),
    "ru": Table("rus", "50dcabfd0a04bd4d187ffb0d5cdd54af94863dec",
                {"rus": "84860e20a2bdcca277286ed937baadeb5b40e69e"}),
    "tr": Table("tur", "6c179ace7d2f3d7f3484020e5304c1544d07bb6b",
                {"tur": "2060308c19d34ea8103710eead976d1fe9cf5716"}),
}  # fmt: skip


def table_files(lang: str, *, offline: bool = False) -> list[Path]:
    """The language's pinned table files, fetched into the cache unless already there and
    unchanged, checked against their pins on every read (``PERTURBED_UD_UNIMORPH_URL``
    overrides where they are fetched from; ``offline``: the cache only)."""
    table = TABLES.get(lang)
    if table is None:
        raise SourceError(
            f"no pinned UniMorph table for {lang!r} (pinned: {', '.join(sorted(TABLES))}); "
            "leave out --unimorph"
        )
    folder = cache_dir() / "unimorph" / table.repository / table.commit
    names = sorted(table.files)
    if missing := cached(folder, names, offline=offline, hint=HINT, git_blob=table.files):
        base = os.environ.get("PERTURBED_UD_UNIMORPH_URL", BASE_URL).rstrip("/")
        url = f"{base}/{table.repository}/{table.commit}"
        fetch_all(url, missing, folder, hint=HINT, git_blob=table.files)
    return [folder / name for name in names]


def unimorph_lexicon(lang: str, *, offline: bool = False) -> Lexicon:
    """The language's UniMorph forms as one lexicon (UniMorph features mapped to UD)."""
    key = lemma_key(lang)

    def cite(cols, i):
        return citation_form(lang, cols, i)

    lexicon = Lexicon(f"unimorph:{TABLES[lang].repository}", exact=False)
    for path in table_files(lang, offline=offline):
        part = read_lexicon(path, "unimorph", key, cite)
        lexicon.files += [f | {"commit": TABLES[lang].commit} for f in part.files]
        for entry, by_feats in part.entries.items():
            for feats, counts in by_feats.items():
                for form, n in counts.items():
                    lexicon.add(*entry, feats, form, n)
    return lexicon
