"""The ``clams`` dataset: subject-verb agreement minimal pairs from attribute-varying grammars.

One config per language, one split per construction (the grammar's file name, already a valid
split name), one row per minimal pair in generation order: the order of the released CLAMS
evalsets, so the released grammars give back the released sentences. Grammars come from a
folder of ``.avg`` files: the project's own (``lexicons/clams/<lang>/``, Apache-2.0) by
default, or any ``--grammar-dir``, which holds either one language's grammars or one folder
per language (``<lang>/``, or ``<lang>_replication/`` as in the CLAMS repository), or the
paper's own grammars (``paper_grammars``), fetched from the CLAMS repository at a pinned
commit into the cache, every file checked against its pinned sha256.
``build.json`` and the card name a grammar folder by its base name and the grammar files by
name and sha256, never by a path of the machine that built them: both are published.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from collections import Counter
from dataclasses import dataclass, field
from functools import cached_property
from importlib.resources import files
from pathlib import Path

from datasets import Features, List, Value

from ..data.card import CardText, markdown_table
from ..data.minimal_pairs import PAIR_FEATURES, MinimalPairs
from ..data.writer import ParquetSplitWriter, rows_table
from ..download import cache_dir, cached, fetch_all
from ..errors import GrammarError, InputError
from ..files import file_sha256
from ..grammar.ambiguity import AMBIGUOUS, AgreementReadings
from ..grammar.evalset import COMMON, read_grammar_folder
from ..grammar.expand import MAX_SENTENCES, MinimalPair, minimal_sets
from ..grammar.morphology import (
    CONFIRMED,
    CONTRADICTED,
    UD_LANGUAGES,
    UNKNOWN,
    check_folder,
    finite_word,
    pymorphy_available,
    ud_files,
    varied_forms,
)
from ..grammar.parser import Grammar
from ..lexicons import load_toml
from ..registry import FAMILIES
from ..settings import setting
from ..ud.sources import sample_root
from .family import DatasetFamily, card_prose, check_settings, version_setting

NAME = "clams"
PRETTY_NAME = "CLAMS: cross-linguistic agreement minimal pairs"
TAGS = ["minimal-pairs", "subject-verb-agreement", "syntax", "clams", "grammaticality"]
CHUNK_PAIRS = 10_000  # pairs per Parquet row group; fixed, so output is deterministic

DEFAULT_GRAMMARS = Path(str(files("perturbed_ud.lexicons").joinpath("clams")))
EMBEDDED_NAME = "lexicons/clams"  # how build.json names the embedded grammars
EMBEDDED_LICENCE = "Apache-2.0"
REPLICATION = "_replication"  # the CLAMS repository's per-language folder suffix
LICENCE_FILES = ("LICENSE", "LICENSE.txt", "LICENSE.md", "LICENCE", "LICENCE.txt", "COPYING")

_LANG = re.compile(r"[a-z0-9][a-z0-9_-]*")
_SPLIT = re.compile(r"[a-z0-9_]+")

FEATURES = Features(
    {
        "pair_id": Value("string"),
        "lang": Value("string"),
        "construction": Value("string"),
        "item": Value("int32"),
        "template": Value("int32"),
        **PAIR_FEATURES,
        "preterminal": Value("string"),
        "good_attributes": List(Value("string")),
        "bad_attributes": List(Value("string")),
        "varied_attributes": List(Value("string")),
    }
)

# Minimal sets per construction and language in the CLAMS paper (Mueller et al. 2020, Table 6).
PAPER_MINIMAL_SETS = {
    "simple_agrmt": {"en": 140, "fr": 280, "de": 140, "he": 140, "ru": 280},
    "vp_coord": {"en": 840, "fr": 980, "de": 980, "he": 980, "ru": 980},
    "long_vp_coord": {"en": 400, "fr": 500, "de": 500, "he": 500, "ru": 500},
    "subj_rel": {"en": 11200, "fr": 11200, "de": 11200, "he": 11200, "ru": 10080},
    "obj_rel_within_anim": {"en": 11200, "fr": 11200, "de": 11200, "he": 11200, "ru": 11200},
    "obj_rel_across_anim": {"en": 11200, "fr": 11200, "de": 11200, "he": 11200, "ru": 11200},
    "prep_anim": {"en": 16800, "fr": 14000, "de": 12600, "he": 5600, "ru": 5880},
}

CLAMS_CITATION = """\
@inproceedings{mueller-etal-2020-cross,
  title = {Cross-Linguistic Syntactic Evaluation of Word Prediction Models},
  author = {Mueller, Aaron and Nicolai, Garrett and Petrou-Zeniou, Panayiota and
            Talmina, Natalia and Linzen, Tal},
  booktitle = {Proceedings of the 58th Annual Meeting of the Association for
               Computational Linguistics},
  pages = {5523--5539},
  year = {2020},
  address = {Online},
  publisher = {Association for Computational Linguistics},
  doi = {10.18653/v1/2020.acl-main.490}
}"""


@dataclass
class GrammarSource:
    """One language's grammar folder, where it came from and under which licence."""

    lang: str
    folder: Path
    shown: str  # the folder as build.json names it: from the grammar folder's base name
    name: str
    license: str
    origin: str  # "perturbed-ud", "CLAMS repository" or "folder"
    licence_file: str | None = None
    copyright: str | None = None
    grammars: dict[str, Grammar] = field(default_factory=dict)

    def files(self) -> list[Path]:
        """The grammar files read: ``common.avg`` first if present, then each construction's."""
        common = self.folder / COMMON
        own = [Path(g.path) for g in self.grammars.values()]
        return ([common] if common.is_file() else []) + own

    def describe(self) -> dict:
        entry = {
            "lang": self.lang,
            "name": self.name,
            "origin": self.origin,
            "license": self.license,
            "licence_file": self.licence_file,
            "copyright": self.copyright,
            "folder": self.shown,
            "files": [{"name": p.name, "sha256": file_sha256(p)} for p in self.files()],
            "citation": CLAMS_CITATION,
        }
        return {k: v for k, v in entry.items() if v is not None}


def _has_grammars(folder: Path) -> bool:
    return any(p.name != COMMON for p in folder.glob("*.avg"))


def _licence(folder: Path) -> tuple[str, str | None, str | None]:
    """(licence, file, copyright holders) from a licence file beside or above the grammars,
    the file named from the grammar folder (``LICENSE``, ``../LICENSE``)."""
    for place, up in ((folder, ""), (folder.parent, "../")):
        for name in LICENCE_FILES:
            path = place / name
            if not path.is_file():
                continue
            text = path.read_text(encoding="utf-8", errors="replace")
            if "Apache License" in text and "Version 2.0" in text:
                licence = "Apache-2.0"
            elif "MIT License" in text or "Permission is hereby granted, free of charge" in text:
                licence = "MIT"
            else:
                licence = f"unknown (see {path.name})"
            holders = re.findall(r"^\s*Copyright\s+(?:\([cC]\)\s*)?(\S.*?)\s*$", text, re.M)
            holders = [h for h in holders if not h.startswith("[")]
            return licence, up + name, holders[-1] if holders else None
    return "unknown", None, None


def grammar_dir_name(grammar_dir: str | Path | None) -> str:
    """How build.json names a --grammar-dir: its base name, a path of no machine."""
    return EMBEDDED_NAME if grammar_dir is None else Path(grammar_dir).resolve().name


def _source(lang: str, folder: Path, embedded: bool, shown: str) -> GrammarSource:
    if not _LANG.fullmatch(lang):
        raise GrammarError(folder, None, f"language {lang!r} is not a config name ([a-z0-9_-])")
    if embedded:
        name = f"perturbed-ud grammars ({lang})"
        return GrammarSource(lang, folder, shown, name, EMBEDDED_LICENCE, "perturbed-ud")
    licence, licence_file, holders = _licence(folder)
    if folder.name.endswith(REPLICATION):
        name, origin = f"CLAMS, Mueller et al. 2020 ({folder.name})", "CLAMS repository"
    else:
        name, origin = f"grammars {folder.name}", "folder"
    return GrammarSource(lang, folder, shown, name, licence, origin, licence_file, holders)


PAPER_GRAMMARS_HINT = (
    "Without network, build from a local copy of the CLAMS repository with --grammar-dir DIR "
    "(a clone of https://github.com/aaronmueller/clams: its <lang>_replication/ folders), or "
    "leave out --paper-grammars to build from this project's own grammars."
)


def paper_release() -> dict:
    """The pinned CLAMS release: repository, commit, base URL and each file's sha256."""
    return load_toml("clams_release.toml")


def paper_grammars(
    langs: tuple[str, ...] | None = None, *, offline: bool = False, base_url: str | None = None
) -> Path:
    """The folder of the paper's released grammars (``<lang>_replication/``) in the cache,
    fetched on first use for ``langs`` (default: all of them), every cached file checked
    against its pin each time it is read; ``offline`` reads the cache only.
    ``PERTURBED_UD_CLAMS_URL`` overrides the base URL (a mirror)."""
    release = paper_release()
    available = sorted(
        {name.split("_replication/")[0] for name in release["sha256"] if "/" in name}
    )
    wanted = list(langs or available)
    if unknown := [lang for lang in wanted if lang not in available]:
        raise InputError(
            f"the CLAMS paper released grammars for {', '.join(available)}, not for "
            f"{', '.join(unknown)}: its English sets come from Marvin & Linzen's templates, not "
            "a grammar. Leave out --paper-grammars for this project's own grammars."
        )
    names = ["LICENSE"] + [
        name for name in release["sha256"] if name.split("_replication/")[0] in wanted
    ]
    folder = cache_dir() / "clams" / f"clams-{release['commit'][:7]}"
    pins = release["sha256"]
    missing = cached(folder, names, offline=offline, hint=PAPER_GRAMMARS_HINT, sha256=pins)
    if missing:
        base_url = base_url or os.environ.get("PERTURBED_UD_CLAMS_URL", release["base_url"])
        url = f"{base_url.rstrip('/')}/{release['commit']}"
        fetch_all(url, missing, folder, hint=PAPER_GRAMMARS_HINT, sha256=pins)
    return folder


def find_languages(grammar_dir: str | Path | None = None, lang: str | None = None) -> dict:
    """{lang: GrammarSource} of a grammar folder, in language order.

    A folder with construction grammars of its own is one language, named by `lang`; otherwise
    each subfolder with grammars is a language, ``de_replication`` being ``de``.
    """
    embedded = grammar_dir is None
    root = Path(DEFAULT_GRAMMARS if embedded else grammar_dir)
    if not root.is_dir():
        if embedded:
            raise GrammarError(root, None, "no embedded grammars: pass --grammar-dir")
        raise GrammarError(root, None, "not a folder of .avg grammars")
    if _has_grammars(root):
        if not lang:
            raise InputError(f"{root} holds one language's grammars: name the language with --lang")
        return {lang: _source(lang, root, embedded, grammar_dir_name(grammar_dir))}
    if lang:
        raise InputError(
            f"--lang names the language of a folder of .avg files, but {root} holds "
            "per-language folders: choose among them with --langs"
        )
    found: dict[str, GrammarSource] = {}
    for folder in sorted(p for p in root.iterdir() if p.is_dir() and _has_grammars(p)):
        name = folder.name.removesuffix(REPLICATION) or folder.name
        if name in found:
            other = found[name].folder.name
            raise InputError(f"{root}: both {other}/ and {folder.name}/ hold {name!r} grammars")
        shown = f"{grammar_dir_name(grammar_dir)}/{folder.name}"
        found[name] = _source(name, folder, embedded, shown)
    if not found:
        raise GrammarError(
            root, None, "no grammars: neither *.avg files nor per-language folders of them"
        )
    return dict(sorted(found.items()))


def select_languages(found: dict, langs: list[str] | None) -> list[GrammarSource]:
    if not langs:
        return list(found.values())
    missing = [lang for lang in langs if lang not in found]
    if missing:
        raise InputError(
            f"no grammars for {', '.join(missing)} (found: {', '.join(found) or 'none'})"
        )
    return [found[lang] for lang in dict.fromkeys(langs)]


def _read(source: GrammarSource) -> None:
    grammars = read_grammar_folder(source.folder)
    for name, grammar in grammars.items():
        if not _SPLIT.fullmatch(name):
            raise GrammarError(
                grammar.path, None, f"construction {name!r} names a split: use [a-z0-9_] only"
            )
    source.grammars = grammars


def pair_row(lang: str, pair: MinimalPair, k: int) -> dict:
    """The k-th pair of a minimal set, by `FEATURES` column name."""
    return {
        "pair_id": f"{lang}/{pair.construction}/{pair.item}-{k}",
        "lang": lang,
        "construction": pair.construction,
        "item": pair.item,
        "template": pair.template,
        "sentence_good": pair.good,
        "sentence_bad": pair.bad,
        "good_form": pair.good_form,
        "bad_form": pair.bad_form,
        "good_positions": list(pair.good_positions),
        "bad_positions": list(pair.bad_positions),
        "preterminal": pair.preterminal,
        "good_attributes": list(pair.good_attributes),
        "bad_attributes": list(pair.bad_attributes),
        "varied_attributes": list(pair.varied_attributes),
    }


def agreement_readings(source: GrammarSource, ud_root: str | Path | None) -> AgreementReadings:
    """The readings the ambiguity check consults for a language: the test and dev files of
    its treebanks under ``ud_root`` (default: the packaged PUD sample), and pymorphy3 for
    Russian where it is installed."""
    lang = source.lang
    root = sample_root() if ud_root is None else ud_root
    files = ud_files(lang, root) if lang in UD_LANGUAGES else []
    words = [form[3] for g in source.grammars.values() for form in varied_forms(g)]
    return AgreementReadings(files, words, pymorphy=lang == "ru" and pymorphy_available())


def _generate(
    writer: ParquetSplitWriter,
    source: GrammarSource,
    max_sentences: int,
    readings: AgreementReadings | None = None,
) -> dict:
    """Write a language's splits, `CHUNK_PAIRS` rows at a time; return its manifest entry.

    Every grammar is checked (its size included) before the first row is written. With
    ``readings``, a pair whose bad form agrees with the subject on some reading is refused.
    """
    generated = {name: minimal_sets(g, max_sentences) for name, g in source.grammars.items()}
    splits, sets_per_split, drops, empty = {}, {}, Counter(), []
    refused, ambiguous_forms = Counter(), set()
    for name, sets in generated.items():
        rows: list[dict] = []
        n_sets = n_rows = 0
        for minimal_set in sets:
            n_sets += 1
            if not minimal_set.pairs:
                drops[f"{name}:no_ungrammatical_variant"] += 1
            for k, pair in enumerate(minimal_set.pairs):
                bad_word = finite_word(tuple(pair.bad_form.split(" ")), [pair.good_form.split(" ")])
                if readings and (found := readings.agreeing_source(bad_word, pair.good_attributes)):
                    refused[f"{name}:{AMBIGUOUS}:{found}"] += 1
                    ambiguous_forms.add(f"{pair.bad_form} ({found})")
                    continue
                rows.append(pair_row(source.lang, pair, k))
                if len(rows) == CHUNK_PAIRS:
                    writer.write(source.lang, name, rows_table(rows, FEATURES))
                    n_rows += len(rows)
                    rows = []
        writer.write(source.lang, name, rows_table(rows, FEATURES))  # the rest, if any
        n_rows += len(rows)
        sets_per_split[name] = n_sets
        if n_rows:
            splits[name] = n_rows
        else:
            empty.append(name)
    entry = {
        "splits": splits,
        "minimal_sets": sets_per_split,
        "drops": dict(sorted(drops.items())),
        "empty_splits": empty,
    }
    if readings:
        entry["ambiguity_check"] = {
            "sources": readings.describe(),
            "refused": dict(sorted(refused.items())),
            "forms": sorted(ambiguous_forms),
        }
    return entry


def form_check(source: GrammarSource, ud_root: str | Path) -> dict:
    """Counts of confirmed varied forms, and the forms contradicted or found in no source."""
    checks = check_folder(source.lang, source.folder, ud_root)
    listed = {
        status: sorted({f"{c.form} ({c.number})" for c in checks if c.status == status})
        for status in (CONTRADICTED, UNKNOWN)
    }
    return {"confirmed": sum(c.status == CONFIRMED for c in checks), **listed}


def _ambiguity_text(configs: dict) -> str:
    checked = {lang: c["ambiguity_check"] for lang, c in configs.items() if "ambiguity_check" in c}
    if not checked:
        return card_prose("clams", "no_ambiguity_check")
    lines = []
    for lang, check in checked.items():
        sources = ", ".join(f["name"] for f in check["sources"]["ud"]) or "no UD file"
        if "pymorphy3" in check["sources"]:
            sources += f", pymorphy3 {check['sources']['pymorphy3']}"
        refused = ", ".join(f"{k} {n}" for k, n in check["refused"].items()) or "none"
        forms = ", ".join(check["forms"]) or "none"
        lines.append(f"- {lang} ({sources}): refused {refused}; forms: {forms}")
    return card_prose("clams", "ambiguity_check", refused="\n".join(lines))


def _form_check_text(configs: dict) -> str:
    checked = {lang: c["form_check"] for lang, c in configs.items() if "form_check" in c}
    if not checked:
        return card_prose("clams", "no_form_check")
    lines = [
        f"- {lang}: {c['confirmed']} confirmed; contradicted: "
        f"{', '.join(c[CONTRADICTED]) or 'none'}; found in no source: "
        f"{', '.join(c[UNKNOWN]) or 'none'}"
        for lang, c in checked.items()
    ]
    return card_prose("clams", "form_check", checked="\n".join(lines))


@dataclass(frozen=True, kw_only=True)
class ClamsSettings:
    """Everything that shapes a clams build: which grammars, which languages."""

    langs: tuple[str, ...] | None = setting(
        "the languages built (default: every language the grammars cover)", default=None
    )
    grammar_dir: str | Path | None = setting(
        "a folder of .avg grammars, one language's or <lang>/ folders (default: the "
        "project's own, lexicons/clams)",
        default=None,
    )
    lang: str | None = setting("the language of a grammar_dir holding .avg files", default=None)
    max_sentences: int = setting(
        "the most sentences, grammatical and ungrammatical, a construction may expand to: a "
        "bigger grammar is refused before generating (it changes no data, so no signature)",
        default=MAX_SENTENCES,
        minimum=1,
    )
    ud_root: str | Path | None = setting(
        "UD treebanks to check every varied form's number against (card only)", default=None
    )
    paper_grammars: bool = setting(
        "the CLAMS paper's own grammars (de, fr, he, ru), fetched from the CLAMS repository "
        "at a pinned commit into the cache",
        default=False,
    )
    offline: bool = setting("with paper_grammars: read the cache only", default=False)
    ambiguity_check: bool = setting(
        "refuse a pair whose bad form has a reading that agrees with the subject (UD "
        "treebanks of ud_root or the packaged PUD sample; pymorphy3 for Russian)",
        signature="ambiguity",
        shown=lambda on: "checked" if on else "off",
        default=True,
    )
    version: str = version_setting("2.0.0")  # v2: pairs with an agreeing bad form refused

    def __post_init__(self):
        if self.langs is not None:
            check_settings(self, "langs")
        if self.paper_grammars and (self.grammar_dir is not None or self.lang is not None):
            raise InputError("--paper-grammars brings its own grammars: leave out --grammar-dir")
        if self.offline and not self.paper_grammars:
            raise InputError("--offline applies to --paper-grammars (read the cache only)")


@FAMILIES.register("agreement.clams.v1")
class Clams(MinimalPairs, DatasetFamily):
    """Agreement minimal pairs (CLAMS): a config per language, a split per construction.

    Grammars come from lexicons/clams/<lang>/ unless --grammar-dir names another folder.
    """

    name = NAME
    pretty_name = PRETTY_NAME
    description = card_prose(name, "description")
    features = FEATURES
    settings_class = ClamsSettings

    @cached_property
    def _grammar_dir(self) -> str | Path | None:
        """The folder read: the setting's, or the paper's grammars in the cache."""
        settings = self.settings
        if settings.paper_grammars:
            return paper_grammars(settings.langs, offline=settings.offline)
        return settings.grammar_dir

    @cached_property
    def _sources(self) -> list[GrammarSource]:
        settings = self.settings
        found = find_languages(self._grammar_dir, settings.lang)
        sources = select_languages(found, list(settings.langs or ()))
        for source in sources:
            _read(source)
        return sources

    def conditions(self) -> list[str]:
        """The constructions of every language's grammars."""
        return list(dict.fromkeys(c for source in self._sources for c in source.grammars))

    def jobs(self) -> list[GrammarSource]:
        """One job per language, its grammars read and checked."""
        return self._sources

    def write(self, source: GrammarSource, writer: ParquetSplitWriter) -> dict:
        settings = self.settings
        readings = (
            agreement_readings(source, settings.ud_root) if settings.ambiguity_check else None
        )
        config = _generate(writer, source, settings.max_sentences, readings)
        if self.settings.ud_root is not None and config["splits"]:
            config["form_check"] = form_check(source, self.settings.ud_root)
        return {"lang": source.lang, "source": source.describe(), "config": config}

    def manifest(self, results: list[dict]) -> dict:
        parameters = {
            "langs": ",".join(r["lang"] for r in results),
            "grammar_dir": grammar_dir_name(self._grammar_dir),
        }
        if self.settings.paper_grammars:
            release = paper_release()
            parameters["paper_grammars"] = f"{release['repository']}@{release['commit']}"
        return {
            "parameters": parameters,
            "sources": [r["source"] for r in results],
            "configs": {r["lang"]: r["config"] for r in results if r["config"]["splits"]},
        }

    def signature_extra(self, manifest: dict) -> list[str]:
        """The languages, a digest of every grammar file read and of the ambiguity check's
        sources."""
        digest = hashlib.sha256()
        for source in manifest["sources"]:
            for f in source["files"]:
                digest.update(f"{source['lang']}\t{f['name']}\t{f['sha256']}\n".encode())
        parts = [f"langs:{manifest['parameters']['langs']}", f"grammars:{digest.hexdigest()[:16]}"]
        checks = {lang: c["ambiguity_check"]["sources"] for lang, c in manifest["configs"].items()
                  if "ambiguity_check" in c}  # fmt: skip
        if checks:
            readings = hashlib.sha256(json.dumps(checks, sort_keys=True).encode())
            parts.append(f"readings:{readings.hexdigest()[:16]}")
        return parts

    @classmethod
    def card_text(cls, manifest: dict) -> CardText:
        """The sections of a clams card: grammar sources, pairs per construction and language."""
        source_rows = [
            [
                s["lang"],
                s["name"],
                s["license"] + (f" ({s['copyright']})" if s.get("copyright") else ""),
                ", ".join(f["name"] for f in s["files"]),
            ]
            for s in manifest["sources"]
        ]
        configs = manifest["configs"]
        langs = list(configs)
        constructions = list(
            dict.fromkeys(c for config in configs.values() for c in config["minimal_sets"])
        )
        stat_rows = [
            [f"`{c}`", *(configs[lang]["splits"].get(c, "–") for lang in langs)]
            for c in constructions
        ]
        stat_rows.append(["total", *(sum(configs[lang]["splits"].values()) for lang in langs)])
        drops = [
            f"{lang} {reason} {n}" for lang in langs for reason, n in configs[lang]["drops"].items()
        ]
        empty = [f"{lang} {s}" for lang in langs for s in configs[lang]["empty_splits"]]
        languages = ", ".join(langs)
        set_rows = [
            [
                f"`{c}`",
                *(
                    f"{configs[lang]['minimal_sets'].get(c, '–')} / "
                    f"{PAPER_MINIMAL_SETS.get(c, {}).get(lang, '–')}"
                    for lang in langs
                ),
            ]
            for c in constructions
        ]
        ours = [s["lang"] for s in manifest["sources"] if s["origin"] == "perturbed-ud"]
        release = paper_release()
        origin_note = ""
        if ours:
            origin_note = card_prose(
                cls.name,
                "own_grammars",
                ours=", ".join(ours),
                repository=release["repository"],
                commit=release["commit"][:7],
            )
        if fetched := manifest["parameters"].get("paper_grammars"):
            origin_note = card_prose(cls.name, "fetched_grammars", fetched=fetched)
        return CardText(
            loading_comment="one split per construction",
            parameters=card_prose(cls.name, "parameters", languages=languages),
            sources=card_prose(
                cls.name,
                "sources",
                grammars=markdown_table(["lang", "grammars", "licence", "files"], source_rows),
                origin_note=origin_note,
            ),
            statistics=card_prose(
                cls.name,
                "statistics",
                drops=", ".join(drops) or "none",
                empty=", ".join(empty) or "none",
                pairs=markdown_table(["construction", *langs], stat_rows),
                minimal_sets=markdown_table(["construction", *langs], set_rows),
                ambiguity=_ambiguity_text(configs),
                form_check=_form_check_text(configs),
            ),
            citation="",
            tags=list(TAGS),
            task_categories=["fill-mask", "text-generation"],
            method_citation=CLAMS_CITATION,
        )
