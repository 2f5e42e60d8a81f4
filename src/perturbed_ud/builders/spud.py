"""The ``spud`` dataset: nonce UD treebanks (SPUD, Arps et al., NAACL 2024).

Config ``{lang}_seed{seed}``; splits ``orig`` (the treebank as read) and ``nonce`` (content
words replaced by other lemmas of the same syntactic context, inflected to the same FEATS),
aligned row by row on ``sent_id``. Rows carry every CoNLL-U column, so either split exports
back to a treebank (`perturbed-ud export-conllu`). The replacement pool is the words of the
pool splits (default test, as in the paper; dev too on request); inflection comes from a
lexicon of every UD file read, user lexicons, and pymorphy3 for Russian.
"""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from datasets import Features, List, Value

from ..data.card import CardText, build_parameters, rate, treebank_sources, ud_citations
from ..data.markdown import markdown_table
from ..data.writer import ParquetSplitWriter, table
from ..errors import InputError, SourceError
from ..files import file_sha256
from ..lexicons import closed_class, closed_class_source, idiom_source, idioms
from ..perturb.nonce import DEFAULT_RULES, REASONS, RULES, NonceRules, build_pool, nonce_sentence
from ..registry import FAMILIES, RULE_SETS
from ..resources.inflection import FORMATS
from ..resources.word_forms import inflector_for, lexicon_files
from ..rng import KeyedDraws
from ..settings import setting
from ..ud import columns
from ..ud.columns import SentenceColumns
from ..ud.conllu_io import read_conllu, split_files
from ..ud.selection import Selection, select
from ..ud.sources import SPLITS as UD_SPLITS
from ..ud.sources import Treebank, download
from .family import card_prose, check_settings, version_setting
from .ud_family import TreebankSources, UDFamily, UDSettings, langs_setting, ud_manifest

NAME = "spud"
PRETTY_NAME = "SPUD: nonce Universal Dependencies treebanks"
TAGS = ["universal-dependencies", "nonce", "syntax", "perturbation", "spud"]
POOL_SPLITS = ("test",)  # the paper pools the test sets only (App. A.1)
SPLITS = ("orig", "nonce")
CONTENT_ORDER = ("NOUN", "PROPN", "VERB", "ADJ", "ADV")
# The paper's Table 7: replaced share per UPOS in its test sets (ar PADT, de HDT, en EWT,
# fr GSD, ru SynTagRus; UD 2.10), then over all words; columns in TABLE_7_ORDER.
TABLE_7_ORDER = ("NOUN", "PROPN", "ADJ", "ADV", "VERB")
PAPER_TABLE_7 = {
    "ar": (0.93, 0.77, 0.93, 0.74, 0.66, 0.47),
    "de": (0.96, 0.93, 0.68, 0.92, 0.61, 0.41),
    "en": (0.85, 0.84, 0.86, 0.83, 0.59, 0.38),
    "fr": (0.83, 0.69, 0.88, 0.92, 0.50, 0.36),
    "ru": (0.84, 0.70, 0.80, 0.89, 0.46, 0.39),
}
CHUNK_SENTENCES = 1000  # sentences per Parquet row group; fixed, so output is deterministic

FEATURES = Features(
    {
        "sent_id": Value("string"),
        "treebank": Value("string"),
        "lang": Value("string"),
        **{name: feature for name, feature in columns.FEATURES.items() if name != "sent_id"},
        "replaced": List(Value("bool")),
    }
)


@dataclass
class SpudInputs:
    """Everything one language's build reads besides the sentences themselves."""

    treebank: Treebank
    pool_files: list[Path]
    lexicon_files: list[Path]  # UD files read into the inflection lexicon
    user_lexicons: list[tuple[str | None, Path]] = field(default_factory=list)
    pymorphy: bool = True


def pool_files(
    treebank: Treebank, pool_splits: list[str], *, fetch: bool = False, offline: bool = False
) -> list[Path]:
    """The treebank's files of the pool splits that exist (downloaded first with ``fetch``);
    explicitly given files outside the UD naming pool themselves."""
    folder = treebank.files[0].parent
    if not all("-ud-" in f.name for f in treebank.files):
        return list(treebank.files)
    files = []
    for split in pool_splits:
        found = split_files(folder, split, treebank.code)
        if not found and fetch:
            try:
                found = download(treebank.lang, treebank.name, split, offline=offline).files
            except SourceError as err:
                if offline or "404" in str(err):
                    continue  # not cached, or the treebank has no such split (PUD: test only)
                raise
        files += found
    if not files:
        raise SourceError(f"{treebank.name} has no {'/'.join(pool_splits)} file to pool from")
    return files


def parse_lexicon_options(values: list[str]) -> dict[str, list[tuple[str | None, Path]]]:
    """``LANG=[FORMAT:]PATH`` options to language -> [(format or None, path)]."""
    out: dict[str, list[tuple[str | None, Path]]] = {}
    for value in values:
        lang, sep, rest = value.partition("=")
        if not sep or not lang or not rest:
            raise InputError(f"--lexicon expects LANG=[FORMAT:]PATH, got {value!r}")
        fmt, colon, path = rest.partition(":")
        if not colon or fmt not in FORMATS:
            fmt, path = None, rest
        out.setdefault(lang, []).append((fmt, Path(path)))
    return out


def spud_inputs(
    treebanks: list[Treebank],
    pool_splits: list[str],
    lexicons: dict[str, list[tuple[str | None, Path]]] | None = None,
    *,
    fetch: bool = False,
    offline: bool = False,
    pymorphy: bool = True,
) -> list[SpudInputs]:
    """What each treebank's build reads. ``fetch``: the treebanks were downloaded, so pool
    splits are downloaded too and only the files read feed the lexicon; otherwise every split
    beside the treebank's file does."""
    lexicons = lexicons or {}
    if not pool_splits or set(pool_splits) - set(UD_SPLITS):
        raise InputError(f"pool splits must be among {', '.join(UD_SPLITS)}, not {pool_splits}")
    unknown = sorted(set(lexicons) - {t.lang for t in treebanks})
    if unknown:
        raise InputError(f"--lexicon for {', '.join(unknown)}, which is not being built")
    inputs = []
    for treebank in treebanks:
        pools = pool_files(treebank, pool_splits, fetch=fetch, offline=offline)
        files = lexicon_files(treebank, pools, siblings=not fetch)
        inputs.append(SpudInputs(treebank, pools, files, lexicons.get(treebank.lang, []), pymorphy))
    return inputs


def config_name(lang: str, seed: int) -> str:
    return f"{lang}_seed{seed}"


@dataclass
class SeedStats:
    """Counts for one (language, seed)."""

    sentences: int = 0
    sentences_changed: int = 0
    words: Counter = field(default_factory=Counter)  # UPOS -> words
    replaced: Counter = field(default_factory=Counter)  # UPOS -> replaced words
    not_replaced: Counter = field(default_factory=Counter)  # "UPOS:reason" -> words
    sources: Counter = field(default_factory=Counter)
    surface_rules: Counter = field(default_factory=Counter)
    types: set = field(default_factory=set)
    tokens: int = 0

    def to_dict(self, orig_types: int) -> dict:
        reasons = Counter()
        by_upos: dict[str, dict[str, int]] = {}
        for key, n in sorted(self.not_replaced.items()):
            upos, reason = key.split(":")
            reasons[reason] += n
            by_upos.setdefault(upos, {})[reason] = n
        return {
            "splits": {"orig": self.sentences, "nonce": self.sentences},
            "sentences": self.sentences,
            "sentences_changed": self.sentences_changed,
            "replacement_ratio": {
                **{upos: [self.replaced[upos], self.words[upos]] for upos in CONTENT_ORDER},
                "all_words": [sum(self.replaced.values()), sum(self.words.values())],
            },
            "not_replaced": {r: reasons[r] for r in REASONS if reasons[r]},
            "not_replaced_by_upos": by_upos,
            "inflection_sources": dict(sorted(self.sources.items())),
            "surface_rules": dict(sorted(self.surface_rules.items())),
            "type_token_ratio": {
                "orig": [orig_types, self.tokens],
                "nonce": [len(self.types), self.tokens],
            },
        }


def _types(cols: SentenceColumns) -> list[str]:
    return [f.lower() for f, u in zip(cols.forms, cols.upos, strict=True) if u != "PUNCT"]


def _rows(cols_list: list[SentenceColumns], code: str, lang: str, replaced: list) -> dict:
    rows = {name: [] for name in FEATURES}
    for cols, mask in zip(cols_list, replaced, strict=True):
        for name, value in cols.row().items():
            rows[name].append(value)
        rows["treebank"].append(code)
        rows["lang"].append(lang)
        rows["replaced"].append(mask)
    return rows


def build_language(
    inputs: SpudInputs,
    seeds: tuple[int, ...],
    selection: Selection,
    writer: ParquetSplitWriter,
    nonce_rules: NonceRules = DEFAULT_RULES,
) -> tuple[dict, dict]:
    """Write ``orig`` and every seed's ``nonce`` split of one treebank; return the per-seed
    statistics and what was read."""
    treebank = inputs.treebank
    lang, code = treebank.lang, treebank.code
    pool_sentences = (
        SentenceColumns.from_sentence(s) for f in inputs.pool_files for s in read_conllu(f)
    )
    pool = build_pool(lang, pool_sentences, nonce_rules)
    inflector = inflector_for(
        lang, inputs.lexicon_files, inputs.user_lexicons, pymorphy=inputs.pymorphy
    )
    stats = {seed: SeedStats() for seed in seeds}
    orig_types: set[str] = set()
    configs = [config_name(lang, seed) for seed in seeds]
    sentences = select(treebank, selection)
    while chunk := [s for _, s in zip(range(CHUNK_SENTENCES), sentences, strict=False)]:
        originals = [SentenceColumns.from_sentence(s) for s in chunk]
        unchanged = [[False] * len(cols) for cols in originals]
        writer.share(configs, "orig", table(_rows(originals, code, lang, unchanged), FEATURES))
        for cols in originals:
            orig_types.update(_types(cols))
        for seed, config in zip(seeds, configs, strict=True):
            seed_stats = stats[seed]
            nonce, masks = [], []
            for cols in originals:
                draws = KeyedDraws(seed, code, cols.sent_id)
                result = nonce_sentence(lang, cols, pool, inflector, draws)
                nonce.append(result.cols)
                masks.append(result.replaced)
                _record(seed_stats, cols, result)
            writer.write(config, "nonce", table(_rows(nonce, code, lang, masks), FEATURES))
    rules = RULE_SETS.find(lang)
    read = {
        "pool_files": [_file(f) for f in inputs.pool_files],
        "pool_contexts": len(pool),
        "pool_left_out": pool.left_out,
        "inflection": inflector.describe(),
        "surface_rules": rules.registered_name if rules else None,
    }
    if nonce_rules.open_class_only or nonce_rules.keep_multiword_expressions:
        lists = {"closed_class": closed_class(lang), "idioms": idioms(lang)}
        shown = json.dumps({k: sorted(v) for k, v in lists["closed_class"].items()}, sort_keys=True)
        read["rule_lists"] = {
            "closed_class": hashlib.sha256(shown.encode()).hexdigest()[:16],
            "idioms": hashlib.sha256("\n".join(lists["idioms"]).encode()).hexdigest()[:16],
        }
    return {seed: s.to_dict(len(orig_types)) for seed, s in stats.items()}, read


def _record(stats: SeedStats, cols: SentenceColumns, result) -> None:
    stats.sentences += 1
    stats.sentences_changed += any(result.replaced)
    stats.words.update(cols.upos)
    stats.replaced.update(u for u, r in zip(cols.upos, result.replaced, strict=True) if r)
    stats.not_replaced.update(f"{upos}:{reason}" for upos, reason in result.reasons)
    stats.sources.update(result.sources)
    stats.surface_rules.update(result.adjustments)
    words = _types(result.cols)
    stats.types.update(words)
    stats.tokens += len(words)


def _file(path: Path) -> dict:
    return {"name": path.name, "sha256": file_sha256(path)}


def _rate(pair: list[int]) -> str:
    return rate(pair, digits=2)


def _paper_ratios(manifest: dict) -> str:
    """The paper's Table 7 rows for the languages built, to read beside ours."""
    langs = sorted({t["lang"] for t in manifest["treebanks"]} & set(PAPER_TABLE_7))
    if not langs:
        return ""
    rows = []
    for lang in langs:
        paper = dict(zip((*TABLE_7_ORDER, "all"), PAPER_TABLE_7[lang], strict=True))
        rows.append([lang, *(f"{paper[u]:.2f}" for u in (*CONTENT_ORDER, "all"))])
    v3 = manifest["parameters"].get("rules") == "v3"
    why = " " + card_prose("spud", "ratios_under_v3") if v3 else ""
    table = markdown_table(["lang", *CONTENT_ORDER, "all words"], rows)
    return "\n" + card_prose("spud", "paper_ratios", why=why, ratios=table) + "\n"


def _rules_sources(manifest: dict) -> str:
    """Under rules v3, the closed-class and idiom lists read, with where each came from."""
    if manifest["parameters"].get("rules") != "v3":
        return ""
    langs = sorted({t["lang"] for t in manifest["treebanks"]})
    rows = [
        [lang, closed_class_source(lang) or "none", idiom_source(lang) or "none"] for lang in langs
    ]
    table = markdown_table(["lang", "closed-class list", "idiom list"], rows)
    return "\n" + card_prose("spud", "rule_sources", lists=table) + "\n"


def _describe_source(source: dict) -> str:
    if source["name"] == "pymorphy3":
        return f"pymorphy3 {source['pymorphy3']} (OpenCorpora dictionary, CC BY-SA 3.0)"
    files = ", ".join(f["name"] for f in source.get("files", []))
    return f"{source['name']} ({source['entries']} entries: {files})"


SPUD_CITATION = """\
@inproceedings{arps-etal-2024-multilingual,
  title = {Multilingual Nonce Dependency Treebanks: Understanding how Language Models
           Represent and Process Syntactic Structure},
  author = {Arps, David and Kallmeyer, Laura and Samih, Younes and Sajjad, Hassan},
  booktitle = {Proceedings of the 2024 Conference of the North American Chapter of the
               Association for Computational Linguistics: Human Language Technologies
               (Volume 1: Long Papers)},
  pages = {7822--7844},
  year = {2024},
  address = {Mexico City, Mexico},
  publisher = {Association for Computational Linguistics},
  doi = {10.18653/v1/2024.naacl-long.433}
}"""


@dataclass(frozen=True, kw_only=True)
class SpudSettings(UDSettings):
    """Everything that shapes a spud build."""

    version: str = version_setting("3.2.0")  # 3.2: Arabic agreement, ordinals, noun genders
    rules: str = setting(
        "which words are replaced: v3, open-class words only, numerals and multiword "
        "expressions kept, valency in the context; v2, every content word, as in the paper "
        "(see perturb/nonce.py)",
        signature="rules",
        choices=tuple(RULES),
        default=DEFAULT_RULES.name,
    )
    pool_splits: tuple[str, ...] = setting(
        "the splits whose words supply replacement lemmas (those the treebank has); the "
        "paper's test split by default; test,dev widens the pool",
        signature="pool_splits",
        default=POOL_SPLITS,
    )
    lexicons: dict = setting(
        "LANG=[FORMAT:]PATH: an inflection lexicon tried after the UD files read, a UD "
        "treebank (.conllu or a folder), UDLexicons (.conllul) or UniMorph (other files); "
        "in Python also language -> [(format or None, path)]",
        option="--lexicon",
        parse=parse_lexicon_options,
        default_factory=dict,
    )
    pymorphy: bool = setting("Russian: inflect with pymorphy3 as well", default=True)
    fetched: bool = setting(
        "the treebanks were downloaded: pool splits are downloaded too, and only the files "
        "read feed the inflection lexicon (otherwise every split beside the file does)",
        default=False,
    )
    offline: bool = setting("with fetched: pool splits only from the cache", default=False)

    def __post_init__(self):
        super().__post_init__()
        check_settings(self, "pool_splits")
        if self.rules not in RULES:
            raise InputError(f"unknown rules {self.rules!r}; choose one of {', '.join(RULES)}")


@dataclass(frozen=True, kw_only=True)
class SpudSources(TreebankSources):
    default_langs = ("en", "fr", "de", "ru", "ar")
    langs: tuple[str, ...] | None = langs_setting(default_langs)


@FAMILIES.register("nonce.spud.v3")
class Spud(UDFamily):
    """Nonce treebanks (SPUD): content words replaced by lemmas of the same syntactic context.

    A config per language and seed with splits orig and nonce, aligned by row.
    """

    name = NAME
    pretty_name = PRETTY_NAME
    description = card_prose(name, "description")
    features = FEATURES
    settings_class = SpudSettings
    sources_class = SpudSources
    resolved = (*UDFamily.resolved, "fetched", "offline")
    tasks = ("score", "probe")
    lm_eval_tasks = ("rolling",)

    @classmethod
    def lm_eval_text(cls, manifest: dict) -> tuple[str, ...]:
        return ("text",)

    @classmethod
    def resolve(cls, sources: SpudSources, values: dict) -> dict:
        """Downloaded treebanks bring their pool splits from the download too, and only from
        the cache offline."""
        fetch = {"fetched": sources.download, "offline": sources.offline}
        return super().resolve(sources, values) | fetch

    def conditions(self) -> list[str]:
        return list(SPLITS)

    def jobs(self) -> list[SpudInputs]:
        """One job per treebank, with the files its pool and lexicon read."""
        s = self.settings
        return spud_inputs(
            list(s.treebanks), list(s.pool_splits), s.lexicons,
            fetch=s.fetched, offline=s.offline, pymorphy=s.pymorphy,
        )  # fmt: skip

    def write(self, inputs: SpudInputs, writer: ParquetSplitWriter) -> dict:
        s = self.settings
        stats, read = build_language(inputs, s.seeds, s.selection, writer, RULES[s.rules])
        return {"lang": inputs.treebank.lang, "stats": stats, "read": read}

    def manifest(self, results: list[dict]) -> dict:
        settings = self.settings
        stats = {r["lang"]: r["stats"] for r in results}
        return {
            "parameters": {
                "seeds": ",".join(map(str, settings.seeds)),
                "pool_splits": ",".join(settings.pool_splits),
                "rules": settings.rules,
                "content_upos": ",".join(CONTENT_ORDER),
            },
            **ud_manifest(settings),
            "resources": {r["lang"]: r["read"] for r in results},
            "configs": {
                config_name(lang, seed): stats[lang][seed]
                for lang in sorted(stats)
                for seed in settings.seeds
                if stats[lang][seed]["sentences"]
            },
        }

    def signature_extra(self, manifest: dict) -> list[str]:
        """The content UPOS replaced, and a digest of the pool and inflection resources."""
        digest = hashlib.sha256()
        for lang in sorted(manifest["resources"]):
            digest.update(json.dumps(manifest["resources"][lang], sort_keys=True).encode())
        return [
            f"content_upos:{manifest['parameters']['content_upos']}",
            f"resources:{digest.hexdigest()[:16]}",
        ]

    @classmethod
    def card_text(cls, manifest: dict) -> CardText:
        """The sections of a spud card: treebanks and resources, replacement statistics."""
        resource_rows = []
        for t in manifest["treebanks"]:
            read = manifest["resources"][t["lang"]]
            pools = ", ".join(f["name"] for f in read["pool_files"])
            inflection = "; ".join(_describe_source(s) for s in read["inflection"])
            left_out = ", ".join(f"{r} {n}" for r, n in read["pool_left_out"].items())
            resource_rows.append([t["lang"], pools, read["pool_contexts"], left_out, inflection])
        stat_rows, reason_rows = [], []
        for name, config in manifest["configs"].items():
            ratio = config["replacement_ratio"]
            ttr = config["type_token_ratio"]
            stat_rows.append(
                [
                    name,
                    config["sentences"],
                    *(_rate(ratio[upos]) for upos in CONTENT_ORDER),
                    _rate(ratio["all_words"]),
                    f"{_rate(ttr['orig'])} → {_rate(ttr['nonce'])}",
                ]
            )
            reasons = ", ".join(f"{r} {n}" for r, n in config["not_replaced"].items()) or "none"
            rules = ", ".join(f"{r} {n}" for r, n in config["surface_rules"].items()) or "none"
            reason_rows.append([name, reasons, rules])
        header = ["config", "sentences", *CONTENT_ORDER, "all words", "TTR orig → nonce"]
        resource_header = ["lang", "pool", "contexts", "pool words left out", "inflection sources"]
        return CardText(
            loading_comment="splits orig and nonce, aligned by row",
            parameters=build_parameters(manifest),
            sources=card_prose(
                cls.name,
                "sources",
                treebanks=treebank_sources(manifest),
                inflection_sources=markdown_table(resource_header, resource_rows),
                rule_sources=_rules_sources(manifest),
            ),
            statistics=card_prose(
                cls.name,
                "statistics",
                ratios=markdown_table(header, stat_rows),
                paper_ratios=_paper_ratios(manifest),
                left_unchanged=markdown_table(
                    ["config", "not replaced", "surface rules"], reason_rows
                ),
            ),
            citation=ud_citations(manifest),
            tags=list(TAGS),
            task_categories=["fill-mask", "text-generation"],
            method_citation=SPUD_CITATION,
        )
