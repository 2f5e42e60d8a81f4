"""Inflecting a new lemma to an original word's FEATS: lexicons and paradigm generators.

A nonce word must carry the original word's UPOS and FEATS, so the form is looked up, never
guessed. Sources are tried in order, the first that knows a form wins:

1. `Lexicon.from_ud`: (UPOS, lemma, FEATS) -> forms seen in UD treebanks. FEATS must be
   equal as strings, so the lexicon and the treebank share one annotation scheme.
2. User-supplied lexicons (`read_lexicon`): UDLexicons ``.conllul`` files (UD FEATS from
   another source) and UniMorph files (mapped to UD features). Their annotation differs from
   the treebank's, so a form matches when it agrees on every feature the lexicon annotates
   for that UPOS.
3. `RussianParadigms`: pymorphy3's OpenCorpora paradigms, any Russian lemma it knows.

Each source returns every form it knows, most frequent first (ties by spelling), so the
caller can add a language's own condition (German adjective endings) and stay deterministic.
"""

from __future__ import annotations

import csv
import io
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from functools import cache
from pathlib import Path

from ..errors import InputError
from ..files import COMPRESSED, READ_ERRORS, file_sha256, open_decompressed
from ..lexicons import feature_map
from ..ud.columns import CONTENT_UPOS, SentenceColumns, lemma_or_form
from ..ud.conllu_io import conllu_files, parse_feats, read_conllu

FORMATS = ("ud", "udlexicons", "unimorph")
STRAY_GENDER = 0.5  # a noun gender under this share of the lemma's usual one is a tagging error


class Lexicon:
    """(UPOS, lemma) -> FEATS -> form counts.

    ``exact``: FEATS strings must be equal (a lexicon built from UD). Otherwise a form matches
    when it agrees with the target on every feature this lexicon annotates for the UPOS.
    """

    def __init__(self, name: str, *, exact: bool = True):
        self.name = name
        self.exact = exact
        self.entries: dict[tuple[str, str], dict[str, Counter]] = {}
        self.inventory: dict[str, set[str]] = {}
        self.files: list[dict] = []

    def add(self, upos: str, lemma: str, feats: str, form: str, n: int = 1) -> None:
        feats = _normal_feats(feats)
        self.entries.setdefault((upos, lemma), {}).setdefault(feats, Counter())[form] += n
        self.inventory.setdefault(upos, set()).update(parse_feats(feats))

    def __len__(self) -> int:
        return sum(len(by_feats) for by_feats in self.entries.values())

    def forms(self, upos: str, lemma: str, feats: str) -> list[str]:
        by_feats = self.entries.get((upos, lemma))
        if not by_feats:
            return []
        if self.exact:
            counts = by_feats.get(_normal_feats(feats))
        else:
            known = self.inventory.get(upos, set())
            target = {k: v for k, v in parse_feats(feats).items() if k in known}
            counts = Counter()
            for entry_feats, entry_counts in by_feats.items():
                if parse_feats(entry_feats) == target:
                    counts.update(entry_counts)
        if not counts:
            return []
        return [form for form, _ in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))]

    @classmethod
    def from_ud(
        cls,
        paths: Iterable[str | Path],
        lemma_key: Callable[[str], str],
        citation_form: Callable,
        name: str = "ud",
    ) -> Lexicon:
        """Content words of UD treebanks; typos (Typo=Yes, CorrectForm) are left out.

        ``citation_form(columns, i)`` gives the form as a lexicon entry (casing undone at
        sentence starts, clitic spelling undone), ``lemma_key`` the lemma as pooled."""
        lexicon = cls(name, exact=True)
        for path in paths:
            lexicon.files.append({"name": Path(path).name, "sha256": file_sha256(path)})
            for s in read_conllu(path):
                cols = SentenceColumns.from_sentence(s)
                for i, upos in enumerate(cols.upos):
                    if upos not in CONTENT_UPOS or "Typo=Yes" in cols.feats[i]:
                        continue
                    if "CorrectForm=" in cols.misc[i]:
                        continue
                    lemma = lemma_or_form(cols.forms[i], cols.lemmas[i])
                    lexicon.add(upos, lemma_key(lemma), cols.feats[i], citation_form(cols, i))
        lexicon.drop_stray_genders()
        return lexicon

    def drop_stray_genders(self) -> None:
        """A noun's gender is its own: forms of a lemma tagged with a gender seen less than
        `STRAY_GENDER` times as often as its most frequent one (in that number) are taken as
        tagging errors (German GSD: one masculine *Jahre* beside 37 neuter, *der Bank* beside
        four feminine) that would break agreement (*in einem Jahre, der*). A noun of two
        genders loses only forms, never gains a wrong one. Compared per number: Arabic broken
        plurals have their own gender."""
        for (upos, _), by_feats in self.entries.items():
            if upos != "NOUN":
                continue
            slot = {feats: parse_feats(feats) for feats in by_feats}
            slot = {feats: (p.get("Number", ""), p.get("Gender", "")) for feats, p in slot.items()}
            genders: dict[str, Counter] = {}
            for feats, (number, gender) in slot.items():
                genders.setdefault(number, Counter())[gender] += by_feats[feats].total()
            for feats, (number, gender) in slot.items():
                if genders[number][gender] < STRAY_GENDER * max(genders[number].values()):
                    del by_feats[feats]


def _normal_feats(feats: str) -> str:
    """FEATS with features in canonical (case-insensitive alphabetical) order."""
    parsed = parse_feats(feats)
    if not parsed:
        return "_"
    return "|".join(f"{k}={parsed[k]}" for k in sorted(parsed, key=str.lower))


# UniMorph part-of-speech values -> UPOS; feature values: lexicons/feature_maps.toml.
UNIMORPH_POS = {"N": "NOUN", "PROPN": "PROPN", "V": "VERB", "V.PTCP": "VERB", "V.CVB": "VERB",
                "V.MSDR": "VERB", "ADJ": "ADJ", "ADV": "ADV"}  # fmt: skip
_FINITE = {"Tense", "Person", "Mood"}


def unimorph_to_ud(tags: str) -> tuple[str | None, str]:
    """``V;PRS;3;SG`` -> (VERB, Number=Sing|Person=3|Tense=Pres|VerbForm=Fin)."""
    parts = tags.split(";")
    upos = next((UNIMORPH_POS[p] for p in parts if p in UNIMORPH_POS), None)
    scheme = feature_map("unimorph")
    feats = dict(scheme[p] for p in parts if p in scheme)
    if "V.PTCP" in parts:
        feats["VerbForm"] = "Part"
    elif "V.CVB" in parts:
        feats["VerbForm"] = "Conv"
    elif "V.MSDR" in parts:
        feats["VerbForm"] = "Vnoun"
    elif upos == "VERB" and "VerbForm" not in feats and _FINITE & set(feats):
        feats["VerbForm"] = "Fin"
    return upos, "|".join(f"{k}={v}" for k, v in sorted(feats.items())) or "_"


def read_lexicon(
    path: str | Path,
    fmt: str | None,
    lemma_key: Callable[[str], str],
    citation_form: Callable,
) -> Lexicon:
    """A user-supplied lexicon: a UD treebank (a ``.conllu`` file or a folder of them),
    UDLexicons (``.conllul``: start, end, form, lemma, UPOS, XPOS, FEATS, …; single-word rows
    only) or UniMorph (lemma TAB form TAB features)."""
    path = Path(path)
    fmt = fmt or _guess_format(path)
    if fmt not in FORMATS:
        raise InputError(f"unknown lexicon format {fmt!r}; choose one of {', '.join(FORMATS)}")
    if not path.exists():
        raise InputError(f"lexicon {path} does not exist")
    if fmt == "ud":
        files = conllu_files(path) if path.is_dir() else [path]
        if not files:
            raise InputError(f"{path} holds no .conllu file")
        return Lexicon.from_ud(files, lemma_key, citation_form, name=f"ud:{path.name}")
    lexicon = Lexicon(f"{fmt}:{path.name}", exact=False)
    lexicon.files.append({"name": path.name, "sha256": file_sha256(path)})
    for number, row in _tsv_rows(path):
        if not row or row[0].startswith("#"):
            continue
        if fmt == "udlexicons":
            if len(row) < 7:
                raise InputError(f"{path}:{number}: expected at least 7 columns")
            if row[0] != "0" or row[1] != "1" or row[4] not in CONTENT_UPOS:
                continue
            lexicon.add(row[4], lemma_key(row[3]), row[6], row[2])
        else:
            if len(row) < 3:
                raise InputError(f"{path}:{number}: expected lemma, form and features")
            upos, feats = unimorph_to_ud(row[2])
            if upos in CONTENT_UPOS:
                lexicon.add(upos, lemma_key(row[0]), feats, row[1])
    return lexicon


def _tsv_rows(path: Path) -> Iterator[tuple[int, list[str]]]:
    """(line number, cells) of a tab-separated UTF-8 file; a user's file that is neither is an
    `InputError` naming it."""
    with io.TextIOWrapper(open_decompressed(path), encoding="utf-8", newline="") as f:
        try:
            yield from enumerate(csv.reader(f, delimiter="\t", quoting=csv.QUOTE_NONE), 1)
        except (UnicodeDecodeError, csv.Error, *READ_ERRORS) as err:
            raise InputError(f"{path}: cannot read: {err}") from err


def _guess_format(path: Path) -> str:
    name = path.name.removesuffix(path.suffix) if path.suffix in COMPRESSED else path.name
    if path.is_dir() or name.endswith(".conllu"):
        return "ud"
    if name.endswith(".conllul"):
        return "udlexicons"
    return "unimorph"


# pymorphy3 (OpenCorpora) parts of speech -> UPOS and UD features; grammemes:
# lexicons/feature_maps.toml.
_OC_POS = {
    "NOUN": ("NOUN", {}), "ADJF": ("ADJ", {}), "ADJS": ("ADJ", {"Variant": "Short"}),
    "COMP": ("ADJ", {"Degree": "Cmp"}), "VERB": ("VERB", {"VerbForm": "Fin"}),
    "INFN": ("VERB", {"VerbForm": "Inf"}), "PRTF": ("VERB", {"VerbForm": "Part"}),
    "PRTS": ("VERB", {"VerbForm": "Part", "Variant": "Short"}),
    "GRND": ("VERB", {"VerbForm": "Conv"}), "ADVB": ("ADV", {}),
}  # fmt: skip
# Features compared between a pymorphy3 form and the UD target.
_RU_FEATURES = ("Animacy", "Aspect", "Case", "Degree", "Gender", "Mood", "Number", "Person",
                "Tense", "Variant", "VerbForm", "Voice")  # fmt: skip
# Forms OpenCorpora marks as literary, archaic, informal, slang, erroneous or distorted.
_RU_MARKED = frozenset({"Litr", "Arch", "Infr", "Slng", "Erro", "Dist"})
# Features UD omits where pymorphy3 has them, and the reverse: not a mismatch when absent.
_RU_OPTIONAL = {"Animacy", "Degree", "Voice"}


def _pymorphy_feats(tag, word: str) -> tuple[str, dict[str, str]]:
    upos, feats = _OC_POS.get(tag.POS, (None, {}))
    feats = dict(feats)
    scheme = feature_map("opencorpora")
    for grammeme in sorted(tag.grammemes):  # a frozenset: its order follows PYTHONHASHSEED
        if grammeme in scheme:
            key, value = scheme[grammeme]
            feats[key] = value
    # An Inmx noun's accusative variant that equals its nominative carries both animacy
    # grammemes, whichever is the lexeme's: роботы "NOUN,anim,… accs,inan", куклы
    # "NOUN,inan,… anim,plur,accs". Both are the inanimate accusative.
    if {"anim", "inan"} <= tag.grammemes:
        feats["Animacy"] = "Inan"
    if upos == "ADJ" or (upos == "ADV" and "Degree" not in feats):
        feats.setdefault("Degree", "Sup" if "Supr" in tag.grammemes else "Pos")
    if upos == "VERB":
        if "pssv" in tag.grammemes:
            feats["Voice"] = "Pass"
        else:
            feats["Voice"] = "Mid" if word.endswith(("ся", "сь")) else "Act"
    return upos, feats


def _agrees(target: dict[str, str], candidate: dict[str, str]) -> bool:
    for key in _RU_FEATURES:
        want, have = target.get(key), candidate.get(key)
        if want == have:
            continue
        if want is None or have is None:
            if key in _RU_OPTIONAL:
                continue
            # short forms have no case; UD gives them Case=Nom
            if want and have is None and key == "Case" and candidate.get("Variant") == "Short":
                continue
        return False
    return True


@cache
def russian_analyzer():
    """pymorphy3's Russian analyser, loaded once per process."""
    import pymorphy3

    return pymorphy3.MorphAnalyzer(lang="ru")


class RussianParadigms:
    """Forms of any lemma in pymorphy3's dictionary, matched on UD features."""

    name = "pymorphy3"

    def __init__(self):
        try:
            self.morph = russian_analyzer()
        except ImportError:
            raise InputError(
                "Russian inflection needs pymorphy3: pip install pymorphy3 pymorphy3-dicts-ru "
                "(or build with --no-pymorphy)"
            ) from None
        self.files: list[dict] = []
        self._lexemes: dict[tuple[str, str], list[tuple[str, dict]]] = {}

    def describe(self) -> dict:
        from importlib.metadata import version

        return {
            "name": self.name,
            "pymorphy3": version("pymorphy3"),
            "pymorphy3-dicts-ru": version("pymorphy3-dicts-ru"),
        }

    def _lexeme(self, upos: str, lemma: str) -> list[tuple[str, dict]]:
        key = (upos, lemma)
        if key not in self._lexemes:
            want = "NOUN" if upos == "PROPN" else upos
            normal = lemma.lower().replace("ё", "е")
            forms = []
            seen = set()
            for parse in self.morph.parse(lemma):
                if parse.normal_form.replace("ё", "е") != normal or not parse.is_known:
                    continue
                # Each paradigm once. Its first form does not name it: Inmx nouns have an
                # animate and an inanimate paradigm that differ only in the accusative.
                lexeme = parse.lexeme
                paradigm = tuple((str(form.tag), form.word) for form in lexeme)
                if paradigm in seen:
                    continue
                seen.add(paradigm)
                for form in lexeme:
                    if any(g.startswith("V-") for g in form.tag.grammemes):
                        continue  # spelling variants (-ою, -ею): the main form comes first
                    if form.tag.grammemes & _RU_MARKED:
                        continue  # грома (Litr) beside громы: a native reader rejects it
                    form_upos, feats = _pymorphy_feats(form.tag, form.word)
                    if form_upos == want or (want == "ADV" and form.tag.POS == "COMP"):
                        forms.append((_cased(form.word, lemma), feats))
            self._lexemes[key] = forms
        return self._lexemes[key]

    def forms(self, upos: str, lemma: str, feats: str) -> list[str]:
        target = parse_feats(feats)
        found = []
        for word, candidate in self._lexeme(upos, lemma):
            if _agrees(target, candidate) and word not in found:
                found.append(word)
        return found


def _cased(word: str, lemma: str) -> str:
    """pymorphy3 answers in lower case; a capitalised lemma (a name) gives capitalised forms."""
    if lemma[:1].isupper():
        return word[:1].upper() + word[1:]
    return word


class Inflector:
    """Sources tried in order; the first form a source knows and ``accept(lemma, form)``
    allows wins."""

    def __init__(self, sources: list):
        self.sources = sources

    def inflect(
        self,
        upos: str,
        lemma: str,
        feats: str,
        accept: Callable[[str, str], bool] = lambda lemma, form: True,
    ) -> tuple[str, str] | None:
        """(form, source name) or None."""
        for source in self.sources:
            for form in source.forms(upos, lemma, feats):
                if accept(lemma, form):
                    return form, source.name
        return None

    def describe(self) -> list[dict]:
        out = []
        for source in self.sources:
            if hasattr(source, "describe"):
                out.append(source.describe())
            else:
                out.append({"name": source.name, "entries": len(source), "files": source.files})
        return out
