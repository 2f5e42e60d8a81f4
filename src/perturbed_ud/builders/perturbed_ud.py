"""The ``perturbed-ud`` dataset: word order × morphology (LREC 2026 experiment).

Config ``{lang}_{scramble}_seed{seed}``, scramble ∈ full, part, head; splits ``orig``,
``<scramble>``, ``orig_lemma``, ``<scramble>_lemma``; one row per (sentence, condition). The
target is chosen once on the original order and travels with the permutation.

Version 2 (``word_order.v2``, datasets 2.0.0) renamed ``text`` to ``original_text`` and added
``perturbed_text`` (the row's words as text), since a ``text`` column holding the unperturbed
sentence in every split invited evaluating the wrong thing; rows record ``words_moved``; and
the card's magnitudes are the paper's (Table 2: a mean over sentences).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from itertools import groupby

from datasets import Features, List, Value

from ..data.card import CardText, build_parameters, treebank_sources, ud_citations
from ..data.conditions import SCRAMBLES, conditions_table
from ..data.markdown import markdown_table
from ..data.writer import ParquetSplitWriter, rows_table
from ..errors import InputError
from ..perturb.lemma import lemmatize
from ..perturb.plan import SentencePlan
from ..perturb.spacing import render, space_after
from ..perturb.word_order import identity, inverse
from ..registry import FAMILIES, PROTOCOLS
from ..settings import setting
from ..ud.columns import FEATURES as WORD_COLUMNS
from ..ud.conllu_io import Sentence
from ..ud.selection import select
from ..ud.sources import Treebank
from .family import card_prose, check_settings, version_setting
from .ud_family import TreebankSources, UDFamily, UDSettings, langs_setting, ud_manifest

CHUNK_SENTENCES = 1000  # sentences per Parquet row group; fixed, so output is deterministic
VERSION = "2.0.0"  # the default dataset version: the major version of the schema
# Table 2 of the paper: +L token change, then the position change of Full, Part and Head, each
# a mean over sentences of the share of non-punctuation words affected; the released code on
# the first 400 dev sentences of each treebank.
TABLE_2 = {"de": (0.344, 0.910, 0.173, 0.339), "en": (0.191, 0.906, 0.160, 0.455),
           "es": (0.350, 0.945, 0.195, 0.452), "ru": (0.555, 0.935, 0.268, 0.570),
           "zh": (0.007, 0.950, 0.272, 0.478)}  # fmt: skip

FEATURES = Features(
    {
        "item_id": Value("string"),
        "treebank": Value("string"),
        "lang": Value("string"),
        "sent_id": Value("string"),
        "seed": Value("int32"),
        "condition": Value("string"),
        "original_text": Value("string"),
        "perturbed_text": Value("string"),
        "words": List(Value("string")),
        "target_index": Value("int32"),
        "target": Value("string"),
        "target_form": Value("string"),
        "target_lemma": Value("string"),
        "target_upos": Value("string"),
        "permutation": List(Value("int32")),
        "words_moved": Value("int32"),
        # the word annotations, typed as in the CoNLL-U columns of other datasets
        **{name: WORD_COLUMNS[name] for name in ("upos", "lemmas", "feats", "heads", "deprels")},
    }
)

# The paper whose method this family implements.
LREC2026_CITATION = """\
@inproceedings{feldman-etal-2026-typologically,
  title = {A Typologically Grounded Evaluation Framework for Word Order and Morphology
           Sensitivity in Multilingual Masked {LM}s},
  author = {Feldman, Anna and Barak, Libby and Peng, Jing},
  booktitle = {Proceedings of the Language Resources and Evaluation Conference (LREC 2026)},
  year = {2026},
  eprint = {2603.00432},
  archivePrefix = {arXiv},
  url = {https://arxiv.org/abs/2603.00432}
}"""


def config_name(lang: str, scramble: str, seed: int) -> str:
    return f"{lang}_{scramble}_seed{seed}"


def splits_of(scramble: str) -> list[str]:
    return ["orig", scramble, "orig_lemma", f"{scramble}_lemma"]


def _permute_annotations(s: Sentence, perm: list[int], order: list[int]) -> dict:
    """The permutation and the word annotations in the new word order; heads are renumbered
    to the new positions."""
    heads = [perm[h - 1] + 1 if h else 0 for h in s.heads]
    return {
        "permutation": perm,
        "upos": [s.upos[i] for i in order],
        "lemmas": [s.lemmas[i] for i in order],
        "feats": [s.feats[i] for i in order],
        "heads": [heads[i] for i in order],
        "deprels": [s.deprels[i] for i in order],
    }


def sentence_rows(
    s: Sentence,
    plan: SentencePlan,
    lang: str,
    treebank: str,
    seed: int,
    scrambles: Iterable[str],
    facts: SentenceFacts,
) -> Iterable[tuple[str, dict]]:
    """(split, row) for every condition of one sentence, each row by `FEATURES` column name."""
    t, lemma_words = plan.target, facts.lemma_words
    item = {"item_id": f"{treebank}/{s.sent_id}/seed{seed}", "treebank": treebank,
            "lang": lang, "sent_id": s.sent_id, "seed": seed}  # fmt: skip
    target = {"target_form": s.forms[t], "target_lemma": lemma_words[t], "target_upos": s.upos[t]}
    unchanged = identity(len(s.forms))
    orig = {"permutation": unchanged, "upos": s.upos, "lemmas": s.lemmas, "feats": s.feats,
            "heads": s.heads, "deprels": s.deprels}  # fmt: skip
    orders = [("orig", unchanged, unchanged, orig)]
    for scramble in scrambles:
        perm = plan.perms[scramble]
        order = inverse(perm)
        orders.append((scramble, perm, order, _permute_annotations(s, perm, order)))
    for name, perm, order, columns in orders:
        position = perm[t]
        moved = sum(p != i for i, p in enumerate(perm))
        for split, source in ((name, s.forms), (f"{name}_lemma", lemma_words)):
            if split not in plan.dropped:
                words = [source[i] for i in order]
                text = render(words, order, facts.spaces, s.upos)
                head = {"condition": split, "original_text": s.text, "perturbed_text": text,
                        "words": words, "target_index": position, "target": words[position],
                        "words_moved": moved}  # fmt: skip
                yield split, item | head | target | columns


@dataclass
class Mean:
    """A running mean of per-sentence shares: the paper's magnitudes average over sentences,
    so a long sentence weighs no more than a short one."""

    total: float = 0.0
    sentences: int = 0

    def add(self, share: float) -> None:
        self.total += share
        self.sentences += 1

    def to_dict(self) -> dict:
        mean = self.total / self.sentences if self.sentences else None
        return {"mean": mean, "sentences": self.sentences}


@dataclass
class SeedStats:
    """Counts for one (language, seed); every config of that pair reports from it."""

    sentences: int = 0
    kept: int = 0
    sentence_drops: Counter = field(default_factory=Counter)
    row_drops: Counter = field(default_factory=Counter)  # "split:reason"
    rows: Counter = field(default_factory=Counter)  # split -> rows
    lemma_change: Mean = field(default_factory=Mean)
    position_change: dict[str, Mean] = field(default_factory=dict)  # scramble -> mean

    def to_dict(self) -> dict:
        return {
            "sentences": self.sentences,
            "kept": self.kept,
            "sentence_drops": dict(sorted(self.sentence_drops.items())),
            "row_drops": dict(sorted(self.row_drops.items())),
            "rows": dict(self.rows),
            "lemma_token_change": self.lemma_change.to_dict(),
            "position_change": {f: m.to_dict() for f, m in sorted(self.position_change.items())},
        }


@dataclass
class SentenceFacts:
    """What every seed of a sentence shares: its +L words, its spacing, and what the magnitude
    statistics count (non-punctuation words, as in the paper's Table 2)."""

    lemma_words: list[str]
    spaces: list[bool | None]  # space after each word in the original text
    counted: list[int]  # non-punctuation word indices
    lemma_share: float | None  # of those, the share whose lemma differs from the form

    @classmethod
    def of(cls, s: Sentence) -> SentenceFacts:
        lemma_words = lemmatize(s.forms, s.lemmas)
        counted = [i for i, tag in enumerate(s.upos) if tag != "PUNCT"]
        # case-folded, as the paper compares: "The" and its lemma "the" are not a change
        changed = sum(lemma_words[i].casefold() != s.forms[i].casefold() for i in counted)
        share = changed / len(counted) if counted else None
        return cls(lemma_words, space_after(s), counted, share)


def _record(stats: SeedStats, facts: SentenceFacts, plan: SentencePlan, scrambles) -> None:
    """Count one planned sentence: its row drops, and its magnitudes over the rows kept (a
    sentence without non-punctuation words has no share to count)."""
    stats.kept += 1
    for reason_split, reason in plan.dropped.items():
        stats.row_drops[f"{reason_split}:{reason}"] += 1
    if facts.lemma_share is None:
        return
    stats.lemma_change.add(facts.lemma_share)
    for scramble in scrambles:
        if scramble not in plan.dropped:
            perm = plan.perms[scramble]
            moved = sum(perm[i] != i for i in facts.counted)
            stats.position_change.setdefault(scramble, Mean()).add(moved / len(facts.counted))


@dataclass(frozen=True, kw_only=True)
class WordOrderSettings(UDSettings):
    """Everything that shapes a perturbed-ud build."""

    protocol: str = setting(
        "the perturbation rules: paper (the paper's text) or lrec2026 (its released code)",
        signature="protocol",
        default="paper",
    )
    part_fraction: float = setting(
        "the share of content words Part moves", signature="part_fraction", default=0.5
    )
    scrambles: tuple[str, ...] = setting(
        "the scrambles built, among full, part and head (one config each)",
        signature="families",  # the key of earlier builds: their signatures stay comparable
        default=SCRAMBLES,
    )
    version: str = version_setting(VERSION)

    def __post_init__(self):
        super().__post_init__()
        check_settings(self, "scrambles")
        unknown = [f for f in self.scrambles if f not in SCRAMBLES]
        if unknown or not self.scrambles:
            raise InputError(f"scrambles must be among {', '.join(SCRAMBLES)}, not {unknown}")
        object.__setattr__(self, "scrambles", tuple(f for f in SCRAMBLES if f in self.scrambles))
        protocol = PROTOCOLS.get(self.protocol)
        protocol(self.part_fraction)  # refuses a fraction the protocol does not allow
        object.__setattr__(self, "protocol", protocol.name)


@dataclass(frozen=True, kw_only=True)
class WordOrderSources(TreebankSources):
    default_langs = ("en", "de", "es", "ru", "zh")
    langs: tuple[str, ...] | None = langs_setting(default_langs)


@dataclass
class Job:
    """A unit of work for one process: treebanks read in order, each for all ``seeds``."""

    treebanks: list[Treebank]
    seeds: list[int]


@FAMILIES.register("word_order.v2")
class WordOrder(UDFamily):
    """Word order × morphology: Orig / Full / Part / Head, each ± lemmas, per seed."""

    name = "perturbed-ud"
    pretty_name = "Perturbed UD: word order × morphology"
    description = card_prose(name, "description")
    features = FEATURES
    settings_class = WordOrderSettings
    sources_class = WordOrderSources
    renamed = {"families": "scrambles"}
    tasks = ("masked-word",)
    lm_eval_tasks = ("order_pair", "rolling")

    @classmethod
    def lm_eval_text(cls, manifest: dict) -> tuple[str, ...]:
        return ("perturbed_text",)

    def __init__(self, settings: WordOrderSettings):
        super().__init__(settings)
        self.protocol = PROTOCOLS.get(settings.protocol)(settings.part_fraction)

    def conditions(self) -> list[str]:
        return list(conditions_table(self.settings.scrambles))

    def jobs(self) -> list[Job]:
        """One job per treebank, or, for a protocol whose random stream runs over the
        treebanks in order, one job per seed with every treebank in that order."""
        treebanks, seeds = list(self.settings.treebanks), list(self.settings.seeds)
        order = self.protocol.stream_order
        if order is None:
            return [Job([t], seeds) for t in treebanks]
        unknown = [t.lang for t in treebanks if t.lang not in order]
        if unknown:
            raise InputError(f"the {self.protocol.name} protocol covers {order}, not {unknown}")
        ordered = sorted(treebanks, key=lambda t: order.index(t.lang))
        return [Job(ordered, [seed]) for seed in seeds]

    def write(self, job: Job, writer: ParquetSplitWriter) -> dict:
        """Write every config of the job's treebanks and seeds; return their statistics.

        Memory holds one chunk of sentences at a time. The protocol's state (the single
        random stream of lrec2026) carries over from one treebank to the next within a seed.
        """
        states = {seed: self.protocol.start(seed) for seed in job.seeds}
        stats: dict[str, dict[int, SeedStats]] = {}
        for treebank in job.treebanks:
            per_seed = stats.setdefault(treebank.lang, {})
            for seed in job.seeds:
                per_seed.setdefault(seed, SeedStats())
            sentences = select(treebank, self.settings.selection)
            while chunk := [s for _, s in zip(range(CHUNK_SENTENCES), sentences, strict=False)]:
                self._write_chunk(writer, job, treebank, chunk, states, per_seed)
        return {
            lang: {seed: s.to_dict() for seed, s in per_seed.items()}
            for lang, per_seed in stats.items()
        }

    def _write_chunk(self, writer, job, treebank, chunk, states, per_seed) -> None:
        """Plan and write one chunk of sentences for every seed; what does not depend on the
        seed is computed once per sentence."""
        rows: dict[tuple[int, str], list[dict]] = {}
        lang, code = treebank.lang, treebank.code
        scrambles = self.settings.scrambles
        for s in chunk:
            facts = SentenceFacts.of(s)
            candidates = self.protocol.candidates(s, lang)
            for seed in job.seeds:
                stats = per_seed[seed]
                stats.sentences += 1
                plan = self.protocol.plan(s, lang, code, seed, states[seed], candidates)
                if isinstance(plan, str):
                    stats.sentence_drops[plan] += 1
                    continue
                _record(stats, facts, plan, scrambles)
                for split, row in sentence_rows(s, plan, lang, code, seed, scrambles, facts):
                    rows.setdefault((seed, split), []).append(row)
        for (seed, split), split_rows in rows.items():
            arrow = rows_table(split_rows, FEATURES)
            per_seed[seed].rows[split] += arrow.num_rows
            order = split.removesuffix("_lemma")
            holders = scrambles if order == "orig" else [order]
            writer.share([config_name(lang, f, seed) for f in holders], split, arrow)

    def why_empty(self, results: list[dict]) -> str:
        """Every sentence dropped: per treebank, its files and the drops by reason."""
        lines = ["no sentence produced a row; every one was dropped:"]
        per_lang = {lang: per_seed for result in results for lang, per_seed in result.items()}
        for treebank in self.settings.treebanks:
            per_seed = per_lang.get(treebank.lang, {})
            drops = sum((Counter(s["sentence_drops"]) for s in per_seed.values()), Counter())
            read = max((s["sentences"] for s in per_seed.values()), default=0)
            reasons = ", ".join(f"{reason} {n}" for reason, n in sorted(drops.items()))
            files = ", ".join(str(path) for path in treebank.files)
            lines.append(
                f"  {files}: {read} sentences read; drops over {len(per_seed)} seed(s): "
                f"{reasons or 'none'}"
            )
        return "\n".join(lines)

    def manifest(self, results: list[dict]) -> dict:
        stats: dict = {}
        for result in results:
            for lang, per_seed in result.items():
                stats.setdefault(lang, {}).update(per_seed)
        settings = self.settings
        return {
            "parameters": self.protocol.params()
            | {
                "seeds": ",".join(map(str, settings.seeds)),
                "scrambles": ",".join(settings.scrambles),
            },
            **ud_manifest(settings),
            "conditions": conditions_table(settings.scrambles),
            "configs": _config_entries(stats, settings.scrambles),
        }

    @classmethod
    def card_text(cls, manifest: dict) -> CardText:
        """The protocol's rules, treebanks, magnitudes per language beside Table 2, per-config
        counts with drop rates, UD citations."""
        protocol = PROTOCOLS.get(manifest["parameters"]["protocol"])
        rules = protocol.rules(manifest["parameters"]["part_fraction"])
        rule_rows = [["target", rules["target"]], ["`orig`", "the sentence as annotated"]]
        rule_rows += [[f"`{s}`", rules[s]] for s in SCRAMBLES]
        rule_rows += [["`*_lemma`", rules["lemma"]], ["randomness", rules["randomness"]],
                      ["dropped", rules["dropped"]]]  # fmt: skip
        configs = manifest["configs"].values()
        stat_rows = [
            [
                name,
                " / ".join(f"{s} {n}" for s, n in config["splits"].items()),
                config["sentences"],
                _drops(config),
                _share(config["lemma_token_change"]["mean"]),
                _share(config["position_change"]["mean"]),
            ]
            for name, config in manifest["configs"].items()
        ]
        stat_header = ["config", "N per split", "sentences", "drops", "+L tok. chg", "pos. chg"]
        published = "Table 2: +L / Full / Part / Head"
        magnitude_header = ["lang", "+L", "Full", "Part", "Head", published]
        magnitudes = markdown_table(magnitude_header, _magnitude_rows(configs))
        return CardText(
            loading_comment="one split per condition",
            tags=["universal-dependencies", "word-order", "morphology", "perturbation"],
            task_categories=["fill-mask"],
            method_citation=LREC2026_CITATION,
            parameters=card_prose(
                cls.name,
                "parameters",
                build_parameters=build_parameters(manifest),
                protocol=protocol.name,
                rules=markdown_table(["", "rule"], rule_rows),
            ),
            sources=treebank_sources(manifest),
            statistics=card_prose(
                cls.name,
                "statistics",
                magnitudes=magnitudes,
                magnitude_note=protocol.magnitude_note,
                configs=markdown_table(stat_header, stat_rows),
            ),
            citation=ud_citations(manifest),
        )

    def warnings(self) -> list[str]:
        """The released run drew one random stream over its languages in order; leaving an
        earlier one out shifts every later language's draws."""
        order = self.protocol.stream_order
        if order is None:
            return []
        langs = [t.lang for t in self.settings.treebanks]
        last = max((order.index(lang) for lang in langs if lang in order), default=-1)
        missing = [lang for lang in order[:last] if lang not in langs]
        if not missing:
            return []
        return [
            f"without {', '.join(missing)} the {self.protocol.name} stream differs from the "
            "released run for the languages after them"
        ]


def _config_entries(stats: dict, scrambles: tuple[str, ...]) -> dict:
    configs = {}
    for lang in sorted(stats):
        for seed in sorted(stats[lang]):
            s = stats[lang][seed]
            for scramble in scrambles:
                splits = [sp for sp in splits_of(scramble) if s["rows"].get(sp)]
                if not splits:
                    continue
                configs[config_name(lang, scramble, seed)] = {
                    "lang": lang,
                    "seed": seed,
                    "scramble": scramble,
                    "splits": {sp: s["rows"][sp] for sp in splits},
                    "sentences": s["sentences"],
                    "sentence_drops": s["sentence_drops"],
                    "row_drops": {
                        k: v
                        for k, v in s["row_drops"].items()
                        if k.split(":")[0] in splits_of(scramble)
                    },
                    "empty_splits": [sp for sp in splits_of(scramble) if sp not in splits],
                    "lemma_token_change": s["lemma_token_change"],
                    "position_change": s["position_change"].get(
                        scramble, {"mean": None, "sentences": 0}
                    ),
                }
    return configs


def _share(value: float | None) -> str:
    return "–" if value is None else f"{value:.3f}"


def _drops(config: dict) -> str:
    """Drops by reason, each with its rate: a sentence drop among the sentences read, a row
    drop among the sentences kept."""
    read = config["sentences"]
    kept = read - sum(config["sentence_drops"].values())
    shown = [(reason, n, read) for reason, n in config["sentence_drops"].items()]
    shown += [(reason, n, kept) for reason, n in config["row_drops"].items()]
    return ", ".join(f"{r} {n} ({100 * n / base:.1f} %)" for r, n, base in shown) or "none"


def _pooled(means: Iterable[dict]) -> str:
    """Per-sentence means of several seeds as one mean over all their sentences."""
    means = [m for m in means if m["sentences"]]
    sentences = sum(m["sentences"] for m in means)
    return _share(sum(m["mean"] * m["sentences"] for m in means) / sentences if means else None)


def _magnitude_rows(configs: Iterable[dict]) -> list[list[str]]:
    """Per language: +L and each scramble's position change over all seeds, then Table 2."""
    rows = []
    by_lang = sorted(configs, key=lambda c: (c["lang"], c["seed"]))
    for lang, group in groupby(by_lang, key=lambda c: c["lang"]):
        group = list(group)
        lemma = {c["seed"]: c["lemma_token_change"] for c in group}  # the same in each scramble
        moved = [
            _pooled(c["position_change"] for c in group if c["scramble"] == s) for s in SCRAMBLES
        ]
        published = " / ".join(f"{v:.3f}" for v in TABLE_2[lang]) if lang in TABLE_2 else "–"
        rows.append([lang, _pooled(lemma.values()), *moved, published])
    return rows
