"""Agreement minimal pairs from any UD treebank (after MultiBLiMP): a config per language, a
split per phenomenon (subject–verb or subject–participle agreement in number, person or
gender). The pair finding is `..grammar.agreement_pairs`; this module reads the treebanks, writes
the rows and describes them, counts beside MultiBLiMP 1.0's.
"""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

from datasets import Features, Value

from ..data.card import CardText, build_parameters, treebank_sources, ud_citations
from ..data.markdown import markdown_table
from ..data.minimal_pairs import PAIR_FEATURES, MinimalPairs
from ..data.writer import ParquetSplitWriter, rows_table
from ..errors import InputError
from ..files import file_sha256
from ..grammar.agreement_pairs import (
    ATTESTED,
    BELOW_GATE,
    CONSTRUCTION_GATE,
    DUPLICATE,
    LEMMA_ATTESTED,
    MIN_ATTESTED,
    MIN_SITES,
    NOT_AGREEMENT,
    PHENOMENA,
    TARGET_UNANNOTATED,
    AgreementForms,
    AgreementPair,
    SelfAgreement,
    lexicon_readings,
    sentence_pairs,
)
from ..grammar.ambiguity import AgreementReadings
from ..grammar.morphology import pymorphy_available
from ..registry import FAMILIES
from ..resources.inflection import RussianParadigms
from ..resources.unimorph import LICENCE as UNIMORPH_LICENCE
from ..resources.unimorph import TABLES, unimorph_lexicon
from ..resources.word_forms import lexicon_files
from ..settings import option_name, setting
from ..ud.selection import Selection, select
from ..ud.sources import ALL_SPLITS, Treebank
from .family import card_prose, check_settings, version_setting
from .ud_family import (
    TreebankSources,
    UDFamily,
    check_treebanks,
    selection_setting,
    split_setting,
    treebanks_setting,
    ud_manifest,
)

NAME = "ud_agreement"
PRETTY_NAME = "perturbed-ud: agreement minimal pairs from UD treebanks"
CHUNK_PAIRS = 10_000  # rows per Parquet row group; fixed, so output is deterministic
SPLITS = list(PHENOMENA.values())
TAGS = ("minimal-pairs", "agreement", "universal-dependencies", "multilingual")
MULTIBLIMP_CITATION = """\
@article{jumelet2025multiblimp,
  title = {{MultiBLiMP} 1.0: A Massively Multilingual Benchmark of Linguistic Minimal Pairs},
  author = {Jumelet, Jaap and Weissweiler, Leonie and Nivre, Joakim and Bisazza, Arianna},
  journal = {arXiv preprint arXiv:2504.02768},
  year = {2025}
}"""
# MultiBLiMP 1.0's pairs per language, for the card: the table of its lm-evaluation-harness
# task README (lm_eval/tasks/multiblimp/README.md, copied there from its dataset card), by
# ISO 639-1 code; sr is its Serbo-Croatian (hbs), which has no Serbian entry of its own.
MULTIBLIMP_PAIRS = {"ar": 1215, "be": 2570, "bg": 2458, "ca": 2284, "cs": 4256, "da": 50,
                    "de": 2298, "el": 1096, "en": 770, "es": 2541, "et": 2575, "eu": 273,
                    "fa": 2553, "fi": 2570, "fr": 2548, "ga": 28, "he": 2330, "hi": 1447,
                    "hu": 845, "hy": 1415, "is": 2801, "it": 2999, "ka": 204, "lt": 1180,
                    "lv": 3032, "mr": 460, "nl": 2331, "pl": 3272, "pt": 3048, "ro": 2056,
                    "ru": 3832, "sk": 4145, "sl": 4483, "sr": 3286, "sv": 201, "ta": 382,
                    "tr": 1742, "uk": 2744, "ur": 550}  # fmt: skip

FEATURES = Features(
    {
        "pair_id": Value("string"),
        "lang": Value("string"),
        "treebank": Value("string"),
        "sent_id": Value("string"),
        "construction": Value("string"),  # the phenomenon, as the minimal-pair task groups it
        **PAIR_FEATURES,
        "word_id": Value("int32"),
        "subject_id": Value("int32"),
        "subject_form": Value("string"),
        "verb_first": Value("bool"),
        "feature": Value("string"),
        "good_value": Value("string"),
        "bad_value": Value("string"),
        "good_feats": Value("string"),
        "bad_feats": Value("string"),
        "form_source": Value("string"),
    }
)


def pair_row(lang: str, code: str, sent_id: str, forms: list[str], pair: AgreementPair) -> dict:
    """A pair by `FEATURES` column name."""
    return {
        "pair_id": f"{lang}/{code}:{sent_id}:{pair.target + 1}:{pair.feature}:{pair.bad_value}",
        "lang": lang,
        "treebank": code,
        "sent_id": sent_id,
        "construction": pair.phenomenon,
        "sentence_good": pair.sentence_good,
        "sentence_bad": pair.sentence_bad,
        "good_form": pair.good_form,
        "bad_form": pair.bad_form,
        "good_positions": [pair.position],
        "bad_positions": [pair.position],
        "word_id": pair.target + 1,
        "subject_id": pair.subject + 1,
        "subject_form": forms[pair.subject],
        "verb_first": pair.target < pair.subject,
        "feature": pair.feature,
        "good_value": pair.good_value,
        "bad_value": pair.bad_value,
        "good_feats": pair.good_feats,
        "bad_feats": pair.bad_feats,
        "form_source": pair.form_source,
    }


@dataclass(frozen=True, kw_only=True)
class UDAgreementSettings:
    """Everything that shapes a ud_agreement build: treebanks, sentences, form sources, and
    how much of its own disagreement a treebank may show before a swap is refused."""

    treebanks: tuple[Treebank, ...] = treebanks_setting()
    split: str = split_setting(ALL_SPLITS)
    selection: Selection = selection_setting()
    attested_share: float = setting(
        "refuse a swap to a value the language's treebanks show in the same construction "
        "(phenomenon, pronoun or noun subject and its value, verb first or not) at least "
        f"this often, and at least {MIN_ATTESTED} times: agreement is optional there",
        signature="attested",
        default=0.1,
    )
    self_agreement: float | None = setting(
        "MultiBLiMP's gate: keep a phenomenon of a language only where its treebanks' words "
        "agree with their subjects at least this often (MultiBLiMP: 0.9) [default: off]",
        signature="self_agreement",
        shown=lambda gate: "off" if gate is None else str(gate),
        default=None,
    )
    unimorph: bool = setting(
        "also take forms from the language's UniMorph table, fetched at a pinned commit into "
        f"the cache ({', '.join(sorted(TABLES))}); after the treebank's own forms",
        signature="unimorph",
        shown=lambda on: "pinned" if on else "off",
        default=False,
    )
    version: str = version_setting("4.0.0")  # v3: subjects of either number; split reference;
    # v4: a class's number syncretism read from its plural endings; levelled plural verbs

    def __post_init__(self):
        check_settings(self, "treebanks")
        check_treebanks(self, whole=True)
        for name in ("attested_share", "self_agreement"):
            if (share := getattr(self, name)) is not None and not 0 < share <= 1:
                raise InputError(f"{option_name(name)} is a share in (0, 1], got {share}")


@dataclass(frozen=True, kw_only=True)
class AgreementSources(TreebankSources):
    """The sources' options, each language reading every treebank of it under --ud-root."""

    every_treebank: ClassVar[bool] = True


@FAMILIES.register("agreement.ud.v1")
class UDAgreement(MinimalPairs, UDFamily):
    """Agreement minimal pairs from UD treebanks: a config per language, a split per
    phenomenon."""

    name = NAME
    pretty_name = PRETTY_NAME
    description = card_prose(name, "description")
    features = FEATURES
    settings_class = UDAgreementSettings
    sources_class = AgreementSources

    def conditions(self) -> list[str]:
        return SPLITS

    def jobs(self) -> list[tuple[str, tuple[Treebank, ...]]]:
        """A job per language: its treebanks together, so that a sentence in two of them
        is read once and the treebanks' agreement is measured over all of them."""
        by_lang: dict[str, list[Treebank]] = {}
        for treebank in self.settings.treebanks:
            by_lang.setdefault(treebank.lang, []).append(treebank)
        return [(lang, tuple(treebanks)) for lang, treebanks in by_lang.items()]

    def write(self, job: tuple[str, tuple[Treebank, ...]], writer: ParquetSplitWriter) -> dict:
        """Every pair of one language's selected sentences, phenomenon by phenomenon; a
        sentence seen before (in another split or treebank) is read once."""
        lang, treebanks = job
        files = list(dict.fromkeys(
            f for treebank in treebanks for f in lexicon_files(treebank, [], siblings=True)
        ))  # fmt: skip
        offline = bool(getattr(self.sources, "offline", False))
        unimorph = unimorph_lexicon(lang, offline=offline) if self.settings.unimorph else None
        pymorphy = lang == "ru" and pymorphy_available()
        extra = [*([unimorph] if unimorph else []), *([RussianParadigms()] if pymorphy else [])]
        forms = AgreementForms.from_ud(files, extra)
        readings = AgreementReadings(
            files,
            pymorphy=pymorphy,
            extra={"unimorph": lexicon_readings(unimorph)} if unimorph else None,
        )
        candidates, dropped, observed = [], Counter(), SelfAgreement()
        seen: set[str] = set()
        sentences = 0
        for treebank in treebanks:
            for s in select(treebank, self.settings.selection):
                text = " ".join(s.forms)
                if text in seen:
                    dropped[DUPLICATE] += 1
                    continue
                seen.add(text)
                sentences += 1
                found = sentence_pairs(s, lang, forms, readings, dropped, observed)
                candidates += [(treebank.code, s.sent_id, s.forms, pair) for pair in found]
        rows: dict[str, list[dict]] = {split: [] for split in SPLITS}
        sources = Counter()
        for code, sent_id, words, pair in candidates:
            if why := self._refused(pair, observed):
                dropped[f"{pair.phenomenon}:{why}"] += 1
                continue
            rows[pair.phenomenon].append(pair_row(lang, code, sent_id, words, pair))
            sources[pair.form_source] += 1
        for split, found in rows.items():
            for start in range(0, len(found), CHUNK_PAIRS):
                writer.write(lang, split, rows_table(found[start : start + CHUNK_PAIRS], FEATURES))
        return {
            "lang": lang,
            "config": {
                "sentences": sentences,
                "treebanks": [t.code for t in treebanks],
                "splits": {split: len(rows[split]) for split in SPLITS if rows[split]},
                "form_sources": dict(sorted(sources.items())),
                "dropped": dict(sorted(dropped.items())),
                "self_agreement": {
                    split: round(observed.rate(split), 4)
                    for split in SPLITS
                    if any(c.phenomenon == split for c, _ in observed.observed)
                },
            },
            "read": {
                "lexicon": [{"name": f.name, "sha256": _sha(treebanks, f)} for f in files],
                "extra": [_describe(lexicon) for lexicon in extra],
            },
        }

    def _refused(self, pair: AgreementPair, observed: SelfAgreement) -> str | None:
        """Why the language's own treebanks say a pair is no error: its phenomenon falls
        below the self-agreement gate, or its swapped value is common in its construction."""
        gate = self.settings.self_agreement
        if gate is not None and observed.rate(pair.phenomenon) < gate:
            return BELOW_GATE
        sites, rate = observed.construction_rate(pair.construction)
        if sites >= MIN_SITES and rate < CONSTRUCTION_GATE:
            return NOT_AGREEMENT
        seen, share = observed.share(pair.construction, pair.bad_value)
        if seen >= MIN_ATTESTED and share >= self.settings.attested_share:
            return ATTESTED
        if observed.seen_with(pair.construction, pair.subject_lemma, pair.bad_value):
            return LEMMA_ATTESTED
        return None

    def manifest(self, results: list[dict]) -> dict:
        settings = self.settings
        gate = settings.self_agreement
        return {
            "parameters": {
                "unimorph": "pinned" if settings.unimorph else "off",
                "attested_share": settings.attested_share,
                "self_agreement": "off" if gate is None else gate,
            },
            **ud_manifest(settings),
            "resources": {r["lang"]: r["read"] for r in results},
            "configs": {r["lang"]: r["config"] for r in results if r["config"]["splits"]},
            "without_pairs": {
                r["lang"]: why_no_pairs(r["config"]) for r in results if not r["config"]["splits"]
            },
        }

    def signature_extra(self, manifest: dict) -> list[str]:
        """A digest of the form lexicons read (sibling splits, UniMorph, pymorphy3)."""
        digest = hashlib.sha256(json.dumps(manifest["resources"], sort_keys=True).encode())
        return [f"forms:{digest.hexdigest()[:16]}"]

    def why_empty(self, results: list) -> str:
        dropped = Counter()
        for r in results:
            dropped.update(r["config"]["dropped"])
        reasons = ", ".join(f"{k} {n}" for k, n in dropped.most_common(5)) or "no subject found"
        return (
            "no agreement pair in the sentences read (does the treebank annotate Number, "
            f"Person or Gender on verbs?); commonest reasons: {reasons}"
        )

    @classmethod
    def card_text(cls, manifest: dict) -> CardText:
        """Treebanks and form sources, pairs per phenomenon and language beside MultiBLiMP
        1.0's, and every dropped candidate by reason."""
        configs = manifest["configs"]
        langs = list(configs)
        used = [s for s in SPLITS if any(s in c["splits"] for c in configs.values())]
        rows = [
            [lang, *(configs[lang]["splits"].get(s, "–") for s in used),
             sum(configs[lang]["splits"].values()), MULTIBLIMP_PAIRS.get(lang, "–")]
            for lang in langs
        ]  # fmt: skip
        without = manifest.get("without_pairs", {})
        empty = (
            "\n\nLanguages read that gave no pair, and why:\n\n"
            + markdown_table(
                ["lang", "why no pair", "MultiBLiMP 1.0"],
                [[k, v, MULTIBLIMP_PAIRS.get(k, "–")] for k, v in without.items()],
            )
            if without
            else ""
        )
        resource_rows = [
            [
                lang,
                ", ".join(f["name"] for f in read["lexicon"]),
                "; ".join(e["name"] for e in read["extra"]) or "none",
                _counts(configs.get(lang, {}).get("form_sources", {})),
            ]
            for lang, read in manifest["resources"].items()
        ]
        drop_rows = [[lang, _counts(config["dropped"])] for lang, config in configs.items()]
        thin_rows = [
            [lang, f"`{phenomenon}`", configs[lang]["splits"].get(phenomenon, 0),
             _commonest(configs[lang]["dropped"], phenomenon) or "no candidate site"]
            for phenomenon in SPLITS
            if any(phenomenon in c["splits"] or _commonest(c["dropped"], phenomenon, 1)
                   for c in configs.values())  # a phenomenon some treebank had sites for
            for lang in langs
            if configs[lang]["splits"].get(phenomenon, 0) < THIN
        ]  # fmt: skip
        thin = (
            "\n\n"
            + card_prose(
                cls.name,
                "thin",
                threshold=THIN,
                reasons=markdown_table(
                    ["lang", "phenomenon", "pairs", "commonest reasons"], thin_rows
                ),
            )
            if thin_rows
            else ""
        )
        resource_table = markdown_table(
            ["lang", "treebank files", "other sources", "forms used"], resource_rows
        )
        unimorph = (
            "\n\n" + card_prose(cls.name, "unimorph", licence=UNIMORPH_LICENCE)
            if manifest["parameters"]["unimorph"] == "pinned"
            else ""
        )
        return CardText(
            loading_comment="one split per phenomenon",
            parameters=build_parameters(manifest),
            sources=card_prose(
                cls.name,
                "sources",
                treebanks=treebank_sources(manifest),
                form_sources=resource_table,
                unimorph=unimorph,
            ),
            statistics=card_prose(
                cls.name,
                "statistics",
                pairs=markdown_table(
                    ["lang", *(f"`{s}`" for s in used), "total", "MultiBLiMP 1.0"], rows
                ),
                empty=empty,
                dropped=markdown_table(["lang", "dropped"], drop_rows),
                thin=thin,
            ),
            citation=ud_citations(manifest),
            tags=list(TAGS),
            task_categories=["fill-mask", "text-generation"],
            method_citation=MULTIBLIMP_CITATION,
        )


def _sha(treebanks: tuple[Treebank, ...], path: Path) -> str:
    """A lexicon file's sha256: recorded for the treebanks' own files, hashed for others."""
    recorded = {name: sha for t in treebanks for name, sha in t.sha256.items()}
    return recorded.get(path.name) or file_sha256(path)


# Fewer sentences than this in a language, and too few is named as why it gave no pair;
# at least this share of its candidates without a feature to agree in, and no agreement is.
FEW_SENTENCES, LACKING = 500, 0.8


def why_no_pairs(config: dict) -> str:
    """Why a language gave no pair, in words a reader of the card acts on."""
    dropped, sentences = config["dropped"], config["sentences"]
    lacking = sum(n for k, n in dropped.items() if k.endswith(f":{TARGET_UNANNOTATED}"))
    sites = sum(n for k, n in dropped.items() if ":" in k)
    if not sites:
        return ("its subjects and verbs carry no Number, Person or Gender, so no site agrees"
                f" ({sentences} sentences read)")  # fmt: skip
    if lacking >= LACKING * sites:
        return (f"where its verbs have a subject, they carry no agreement feature it has "
                f"({lacking} of {sites} candidates): no subject-verb agreement, or the treebank "
                "leaves it out")  # fmt: skip
    few = f"too few sentences ({sentences} read); " if sentences < FEW_SENTENCES else ""
    return f"{few}commonest reasons: {_counts(dict(Counter(dropped).most_common(3)))}"


def _counts(counts: dict) -> str:
    return ", ".join(f"{k} {n}" for k, n in counts.items()) or "none"


# Fewer pairs than this in a language, and the card says why a phenomenon is thin.
THIN = 20


def _commonest(dropped: dict, phenomenon: str, shown: int = 3) -> str:
    """The commonest reasons a phenomenon's candidates gave no pair, with their counts."""
    mine = {k.split(":", 1)[1]: n for k, n in dropped.items() if k.startswith(f"{phenomenon}:")}
    ranked = sorted(mine.items(), key=lambda item: (-item[1], item[0]))[:shown]
    return ", ".join(f"{k} {n}" for k, n in ranked)


def _describe(lexicon: Any) -> dict:
    """A form source for build.json: pymorphy3 by version, a UniMorph table by its pin."""
    if isinstance(lexicon, RussianParadigms):
        return lexicon.describe()
    return {"name": lexicon.name, "files": lexicon.files}
