"""Language resources the builders read; each file's header says where it came from."""

import tomllib
from functools import cache
from importlib.resources import files


@cache
def load_toml(name: str) -> dict:
    """A TOML lexicon shipped with the package, read once per process."""
    return tomllib.loads(files(__package__).joinpath(name).read_text(encoding="utf-8"))


def stoplist(lang: str) -> frozenset[str]:
    """The paper protocol's closed-class safety filter for ``lang`` (empty if none)."""
    return frozenset(load_toml("stoplists.toml").get(lang, {}).get("stop", ()))


@cache
def feature_map(scheme: str) -> dict[str, tuple[str, str]]:
    """A morphological scheme's values (``unimorph``, ``opencorpora``) -> (UD feature, value)."""
    return {value: tuple(ud) for value, ud in load_toml("feature_maps.toml")[scheme].items()}


def _data_lines(name: str) -> list[str]:
    """The non-comment, non-blank lines of a text lexicon shipped with the package."""
    text = files(__package__).joinpath(name).read_text(encoding="utf-8")
    return [line for line in text.splitlines() if line.strip() and not line.startswith("#")]


@cache
def english_article_exceptions() -> dict[str, str]:
    """Words whose first sound contradicts their first letter -> their indefinite article
    (``university`` -> ``a``, ``hour`` -> ``an``); built by scripts/build_english_articles.py."""
    return dict(line.split("\t") for line in _data_lines("en_articles.tsv"))


@cache
def french_no_elision() -> frozenset[str]:
    """French words (lower case) before which there is no elision: h aspiré, onze, oui."""
    return frozenset(line.strip().lower() for line in _data_lines("fr_h_aspire.txt"))


def _language_table(name: str, lang: str) -> dict:
    """A TOML lexicon's table for ``lang`` (empty for a language it lacks)."""
    return load_toml(name).get(lang, {})


@cache
def closed_class(lang: str) -> dict[str, frozenset[str]]:
    """UPOS -> closed-class lemmas (case-folded) that treebanks tag with that content UPOS:
    *too*, *several*, *pouvoir*; empty for a language without a table."""
    table = _language_table("closed_class.toml", lang)
    return {
        upos: frozenset(lemma.casefold() for lemma in lemmas)
        for upos, lemmas in table.items()
        if upos != "source"
    }


def idioms(lang: str) -> tuple[str, ...]:
    """Multiword expressions of ``lang`` that treebanks do not always mark as such, as
    space-separated lower-case words (*unter anderem*, *в том числе*)."""
    return tuple(_language_table("idioms.toml", lang).get("idioms", ()))


def closed_class_source(lang: str) -> str | None:
    """Where the closed-class list of ``lang`` came from (its ``source`` line)."""
    return _language_table("closed_class.toml", lang).get("source")


def idiom_source(lang: str) -> str | None:
    """Where the idiom list of ``lang`` came from (its ``source`` line)."""
    return _language_table("idioms.toml", lang).get("source")
