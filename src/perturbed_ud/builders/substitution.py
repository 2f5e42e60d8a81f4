"""The ``substitution`` dataset: syntax-preserving substitutions (La Malfa et al. 2022).

Config ``{lang}_{method}_tau{τ}_seed{seed}``; splits ``orig`` and ``perturbed_1`` …
``perturbed_k``, aligned row by row on ``sent_id``: each perturbed split is one copy of
every kept sentence with exactly τ words replaced by words of the same UPOS and FEATS (see
:mod:`perturbed_ud.perturb.substitution`). A sentence with fewer than τ eligible words is
left out of that τ's configs and counted.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from datasets import Features, List, Value

from ..data.card import CardText, build_parameters, treebank_sources, ud_citations
from ..data.markdown import markdown_table
from ..data.writer import ParquetSplitWriter, table
from ..errors import InputError
from ..files import file_sha256
from ..options import published_name
from ..perturb.lamalfa2022 import RULES, fits_upos, released_copy, released_synonym
from ..perturb.substitution import (
    METHODS,
    TOO_FEW_ELIGIBLE,
    TreebankCandidates,
    WordNetCandidates,
    eligible_words,
    substitute,
)
from ..registry import FAMILIES
from ..resources.word_forms import inflector_for, lexicon_files
from ..resources.wordnet import WORDNET_SOURCES, open_wordnet, wordnet_folder
from ..rng import KeyedDraws
from ..settings import setting
from ..ud import columns
from ..ud.columns import SentenceColumns
from ..ud.conllu_io import read_conllu
from ..ud.selection import select
from ..ud.sources import Treebank
from .family import card_prose, check_settings, version_setting
from .ud_family import UDFamily, UDSettings, ud_manifest

NAME = "substitution"
PROTOCOLS = ("paper", "lamalfa2022")
CHUNK_SENTENCES = 1000  # sentences per Parquet row group; fixed, so output is deterministic
FEATURES = Features(
    {
        "sent_id": Value("string"),
        "treebank": Value("string"),
        "lang": Value("string"),
        "copy": Value("int32"),
        **{name: feature for name, feature in columns.FEATURES.items() if name != "sent_id"},
        "original_forms": List(Value("string")),
        "replaced_positions": List(Value("int32")),
        "original_words": List(Value("string")),
        "new_words": List(Value("string")),
        "links": List(Value("string")),
    }
)

LA_MALFA_CITATION = """\
@article{lamalfa2022emergent,
  title = {Emergent Linguistic Structures in Neural Networks are Fragile},
  author = {La Malfa, Emanuele and Wicker, Matthew and Kwiatkowska, Marta},
  journal = {arXiv preprint arXiv:2210.17406},
  year = {2022}
}"""


@dataclass(frozen=True, kw_only=True)
class SubstitutionSettings(UDSettings):
    """Everything that shapes a substitution build."""

    methods: tuple[str, ...] = setting(
        "how replacements are found: copos_wordnet, copos_treebank, coco",
        signature="methods",
        default=("copos_wordnet",),
    )
    taus: tuple[int, ...] = setting(
        "words replaced per copy (τ): each gives its own configs",
        signature="tau",
        option="--tau",
        default=(1, 5, 10),
    )
    copies: int = setting("perturbed copies per sentence (k)", signature="k", default=10, minimum=1)
    protocol: str = setting(
        "paper (the paper's text: exactly τ content words, same UPOS and FEATS) or lamalfa2022 "
        "(the released code's rule, see perturb/lamalfa2022.py)",
        signature="protocol",
        choices=PROTOCOLS,
        default="paper",
    )
    wordnet_rule: str | None = setting(
        "lamalfa2022: which part of speech's synsets give the new word, among the form's "
        "first 10 synsets: mode (the most common, the released script's default) or "
        "least-common (that of the released logs); default mode. Enters the signature",
        choices=RULES,
        default=None,
    )
    wordnet: str | None = setting(
        "the nltk data folder holding WordNet and OMW (default: $PERTURBED_UD_WORDNET, then "
        "nltk's data folders; resolved when the settings are made); its files' digests enter "
        "the signature",
        default=None,
    )
    pymorphy: bool = setting("Russian: inflect with pymorphy3 as well", default=True)
    model: str | None = setting(
        "coco: the masked language model (a Hub id or a folder); its revision enters the signature",
        default=None,
    )
    revision: str | None = setting("coco: the model's Hub revision", default=None)
    beam: int = setting("coco: beams kept while a word's pieces are rebuilt", default=8, minimum=1)
    device: str | None = setting("coco: where the model runs (default: cuda when present)",
                                 default=None)  # fmt: skip
    max_tokens: int = setting(
        "coco: rows × padded length per forward pass", default=16384, minimum=1
    )
    # v2: lamalfa2022 compares the form lower-cased and chooses its part of speech by a rule
    version: str = version_setting("2.0.0")

    def __post_init__(self):
        super().__post_init__()
        check_settings(self, "methods", "taus")
        if unknown := [m for m in self.methods if m not in METHODS] or not self.methods:
            raise InputError(f"methods must be among {', '.join(METHODS)}, not {unknown}")
        if any(t < 1 for t in self.taus) or not self.taus:
            raise InputError(f"τ must be positive, got {list(self.taus)}")
        if self.copies < 1:
            raise InputError(f"copies must be at least 1, got {self.copies}")
        if self.protocol not in PROTOCOLS:
            raise InputError(
                f"protocol must be one of {', '.join(PROTOCOLS)}, not {self.protocol!r}"
            )
        if self.protocol == "lamalfa2022":
            if self.methods != ("copos_wordnet",):
                raise InputError("the lamalfa2022 protocol has one method: copos_wordnet")
            object.__setattr__(self, "wordnet_rule", self.wordnet_rule or RULES[0])
            if self.wordnet_rule not in RULES:
                raise InputError(
                    f"wordnet rule must be one of {', '.join(RULES)}, not {self.wordnet_rule!r}"
                )
        elif self.wordnet_rule is not None:
            raise InputError("--wordnet-rule is a rule of the lamalfa2022 protocol only")
        if "copos_wordnet" in self.methods:  # found (or refused) before anything is written
            object.__setattr__(self, "wordnet", str(wordnet_folder(self.wordnet)))
        if "coco" in self.methods:
            if self.model is None:
                raise InputError("the coco method needs a masked language model: --model")
            if self.beam < 1:
                raise InputError(f"beam must be at least 1, got {self.beam}")
            model_identity(self)
        elif self.model is not None:
            raise InputError("--model is used by the coco method only: add it to --methods")


@dataclass
class Job:
    """One treebank and the files its lexicon (and treebank candidates) read."""

    treebank: Treebank
    lexicon_files: list[Path]


@dataclass
class ConfigStats:
    sentences: int = 0
    kept: int = 0
    not_eligible: Counter = field(default_factory=Counter)  # reason -> content words
    eligible: int = 0
    identical_copies: int = 0  # lamalfa2022: copies equal to their original
    unchanged_draws: int = 0  # lamalfa2022: drawn words the rule left as they were
    unchanged_sentences: int = 0  # lamalfa2022: sentences whose every copy is the original
    words: int = 0  # lamalfa2022: words of the kept sentences
    words_changed: int = 0  # lamalfa2022: words the rule changes when drawn
    changes_fitting_upos: int = 0  # lamalfa2022: of those, to a synset fitting their UPOS

    def to_dict(self, lang, method, tau, seed, copies) -> dict:
        return {
            "lang": lang,
            "method": method,
            "tau": tau,
            "seed": seed,
            "splits": {"orig": self.kept} | {f"perturbed_{c}": self.kept for c in copies},
            "sentences": self.sentences,
            "sentence_drops": {TOO_FEW_ELIGIBLE: self.sentences - self.kept},
            "eligible_words": self.eligible,
            "not_eligible": dict(sorted(self.not_eligible.items())),
            "identical_copies": self.identical_copies,
            "unchanged_draws": self.unchanged_draws,
            "unchanged_sentences": self.unchanged_sentences,
            "words": self.words,
            "words_changed": self.words_changed,
            "changes_fitting_upos": self.changes_fitting_upos,
        }


def config_name(lang: str, method: str, tau: int, seed: int) -> str:
    return f"{lang}_{method}_tau{tau}_seed{seed}"


def _rows(originals, code, lang, copy, results=None) -> dict:
    rows = {name: [] for name in FEATURES}
    for k, cols in enumerate(originals):
        done = results[k] if results else None
        for name, value in (done.cols if done else cols).row().items():
            rows[name].append(value)
        rows["treebank"].append(code)
        rows["lang"].append(lang)
        rows["copy"].append(copy)
        rows["original_forms"].append(cols.forms)
        rows["replaced_positions"].append(done.positions if done else [])
        rows["original_words"].append(done.originals if done else [])
        rows["new_words"].append(done.replacements if done else [])
        rows["links"].append(done.links if done else [])
    return rows


@FAMILIES.register("substitution.copos.v2")
class Substitution(UDFamily):
    """Syntax-preserving substitutions (La Malfa et al. 2022): τ words per copy replaced by
    words of the same UPOS and FEATS, k copies per sentence.

    A config per language, method, τ and seed with splits orig and perturbed_1..k.
    """

    name = NAME
    pretty_name = "Syntax-preserving substitutions of Universal Dependencies sentences"
    description = card_prose(name, "description")
    features = FEATURES
    settings_class = SubstitutionSettings
    tasks = ("distance", "probe")
    lm_eval_tasks = ("rolling",)

    @classmethod
    def lm_eval_text(cls, manifest: dict) -> tuple[str, ...]:
        return ("text",)

    def conditions(self) -> list[str]:
        return ["orig", *(f"perturbed_{c}" for c in range(1, self.settings.copies + 1))]

    def jobs(self) -> list[Job]:
        treebanks = self.settings.treebanks
        return [Job(t, lexicon_files(t, list(t.files), siblings=True)) for t in treebanks]

    def write(self, job: Job, writer: ParquetSplitWriter) -> dict:
        s = self.settings
        lang, code = job.treebank.lang, job.treebank.code
        inflector = inflector_for(lang, job.lexicon_files, pymorphy=s.pymorphy)
        sources = {}
        for method in s.methods if s.protocol == "paper" else ():
            if method == "copos_wordnet":
                sources[method] = WordNetCandidates(lang, open_wordnet(Path(s.wordnet)), inflector)
            elif method == "coco":
                sources[method] = _masked_lm_candidates(s)
            else:
                files = job.lexicon_files
                sources[method] = TreebankCandidates(
                    lang,
                    (SentenceColumns.from_sentence(x) for f in files for x in read_conllu(f)),
                )
        stats = {(m, t, seed): ConfigStats() for m in s.methods for t in s.taus for seed in s.seeds}
        copies = range(1, s.copies + 1)
        sentences = select(job.treebank, s.selection)
        while chunk := [x for _, x in zip(range(CHUNK_SENTENCES), sentences, strict=False)]:
            originals = [SentenceColumns.from_sentence(x) for x in chunk]
            if s.protocol == "lamalfa2022":
                _write_released(s, originals, code, lang, copies, writer, stats)
                continue
            for method, source in sources.items():
                if method == "coco":
                    source.predict(originals)
                eligible = [eligible_words(cols, source) for cols in originals]
                for tau in s.taus:
                    kept = [k for k, e in enumerate(eligible) if len(e.candidates) >= tau]
                    configs = [config_name(lang, method, tau, seed) for seed in s.seeds]
                    for seed in s.seeds:
                        _count(stats[method, tau, seed], eligible, len(kept))
                    if not kept:
                        continue
                    chosen = [originals[k] for k in kept]
                    writer.share(configs, "orig", table(_rows(chosen, code, lang, 0), FEATURES))
                    for seed, config in zip(s.seeds, configs, strict=True):
                        for copy in copies:
                            done = [
                                substitute(lang, originals[k], eligible[k], tau, copy,
                                           KeyedDraws(seed, code, originals[k].sent_id))
                                for k in kept
                            ]  # fmt: skip
                            rows = _rows(chosen, code, lang, copy, done)
                            writer.write(config, f"perturbed_{copy}", table(rows, FEATURES))
        return {
            "lang": lang,
            "configs": {
                config_name(lang, m, t, seed): st.to_dict(lang, m, t, seed, copies)
                for (m, t, seed), st in stats.items()
                if st.kept
            },
            "drops": {
                config_name(lang, m, t, seed): st.sentences
                for (m, t, seed), st in stats.items()
                if not st.kept
            },
            "inflection": inflector.describe(),
        }

    def manifest(self, results: list[dict]) -> dict:
        s = self.settings
        return {
            "parameters": {
                "protocol": s.protocol,
                **({"wordnet_rule": s.wordnet_rule} if s.wordnet_rule else {}),
                "methods": ",".join(s.methods),
                "tau": ",".join(map(str, s.taus)),
                "copies": s.copies,
                "seeds": ",".join(map(str, s.seeds)),
            },
            **ud_manifest(s),
            "resources": {
                "wordnet": _wordnet_files(s),
                "masked_lm": model_identity(s) | {"beam": s.beam, "device": _device(s)}
                if s.model
                else None,
                "inflection": {r["lang"]: r["inflection"] for r in results},
            },
            "configs": {name: c for r in results for name, c in sorted(r["configs"].items())},
            "configs_without_rows": {name: n for r in results for name, n in r["drops"].items()},
        }

    def signature_extra(self, manifest: dict) -> list[str]:
        files = manifest["resources"]["wordnet"]
        parts = [f"wordnet:{','.join(f['sha256'][:12] for f in files) or 'none'}"]
        if rule := manifest["parameters"].get("wordnet_rule"):
            parts.append(f"wordnet_rule:{rule}")
        if lm := manifest["resources"]["masked_lm"]:
            parts.append(f"masked_lm:{lm['model']}@{lm['revision']},beam:{lm['beam']}")
        return parts

    def inputs(self) -> list[Path]:
        """The treebanks' files, the WordNet folder, and a coco --model given as a folder."""
        named = (self.settings.wordnet, self.settings.model)
        return super().inputs() + [Path(name) for name in named if name]

    def why_empty(self, results: list) -> str:
        return (
            "no sentence has enough eligible words for any τ "
            f"({', '.join(map(str, self.settings.taus))}): try a smaller --tau or more sentences"
        )

    @classmethod
    def card_text(cls, manifest: dict) -> CardText:
        rows = [
            [name, c["sentences"], c["splits"]["orig"], c["sentence_drops"][TOO_FEW_ELIGIBLE],
             c["eligible_words"],
             ", ".join(f"{r} {n}" for r, n in c["not_eligible"].items()) or "none"]
            for name, c in manifest["configs"].items()
        ]  # fmt: skip
        header = ["config", "sentences", "kept", "too_few_eligible", "eligible words",
                  "content words not eligible"]  # fmt: skip
        wordnet = ", ".join(f"{f['name']} ({f['sha256'][:12]})" for f in
                            manifest["resources"]["wordnet"]) or "not used"  # fmt: skip
        if manifest["resources"]["wordnet"]:
            langs = sorted({c["lang"] for c in manifest["configs"].values()
                            if c["method"] == "copos_wordnet"})  # fmt: skip
            wordnet += "; synonyms from " + "; ".join(
                f"{lang}: {WORDNET_SOURCES[lang]}" for lang in langs
            )
        if manifest["parameters"].get("protocol") == "lamalfa2022":
            header += ["words", "changed by the rule", "changes fitting the UPOS",
                       "unchanged draws", "identical copies",
                       "sentences never changed"]  # fmt: skip
            for row, c in zip(rows, manifest["configs"].values(), strict=True):
                row += [c["words"], _share(c["words_changed"], c["words"]),
                        _share(c["changes_fitting_upos"], c["words_changed"]),
                        c["unchanged_draws"], c["identical_copies"],
                        c["unchanged_sentences"]]  # fmt: skip
        return CardText(
            loading_comment="splits orig and perturbed_1..k, aligned by row",
            parameters=build_parameters(manifest),
            sources=card_prose(
                cls.name,
                "sources",
                treebanks=treebank_sources(manifest),
                wordnet=wordnet,
                model=_model_line(manifest),
            ),
            statistics=card_prose(
                cls.name,
                "statistics",
                counts=markdown_table(header, rows),
                protocol_note=_protocol_note(manifest),
            ),
            citation=ud_citations(manifest),
            tags=["universal-dependencies", "syntax", "perturbation", "substitution"],
            task_categories=["fill-mask", "text-generation"],
            method_citation=LA_MALFA_CITATION,
        )


def model_identity(settings: SubstitutionSettings) -> dict:
    """The coco model's name, revision and tokenizer (checked to be a masked LM)."""
    try:
        from ..perturb.coco import masked_lm_identity
    except ImportError as err:
        raise InputError(
            f"the coco method runs a language model: pip install 'perturbed-ud[eval]' ({err})"
        ) from err
    return masked_lm_identity(settings.model, settings.revision) | {
        "model": published_name(settings.model)
    }


def _device(settings: SubstitutionSettings) -> str:
    import torch

    return settings.device or ("cuda" if torch.cuda.is_available() else "cpu")


def _masked_lm_candidates(settings: SubstitutionSettings):
    from ..lm.models import load_masked_lm, quiet_libraries
    from ..perturb.coco import MaskedLMCandidates

    with quiet_libraries():
        lm = load_masked_lm(settings.model, _device(settings), None, settings.revision)
    return MaskedLMCandidates(lm, settings.beam, settings.max_tokens)


def _write_released(
    s: SubstitutionSettings,
    originals: list,
    code: str,
    lang: str,
    copies: range,
    writer,
    stats: dict,
) -> None:
    """One chunk's lamalfa2022 configs: every sentence kept (τ is a maximum), copies equal to
    their original kept; counted are the words the rule changes, how many of those changes fit
    the word's UPOS, unchanged draws, identical copies and sentences no copy changes."""
    reader = open_wordnet(Path(s.wordnet))
    synsets = [
        (released_synonym(reader, form, s.wordnet_rule)[1], upos)
        for cols in originals
        for form, upos in zip(cols.forms, cols.upos, strict=True)
    ]
    changed = [(synset, upos) for synset, upos in synsets if synset]
    fitting = sum(fits_upos(synset, upos) for synset, upos in changed)
    for tau in s.taus:
        configs = [config_name(lang, "copos_wordnet", tau, seed) for seed in s.seeds]
        writer.share(configs, "orig", table(_rows(originals, code, lang, 0), FEATURES))
        for seed, config in zip(s.seeds, configs, strict=True):
            st = stats["copos_wordnet", tau, seed]
            st.sentences += len(originals)
            st.kept += len(originals)
            st.words += len(synsets)
            st.words_changed += len(changed)
            st.changes_fitting_upos += fitting
            touched = [False] * len(originals)
            for copy in copies:
                done = [
                    released_copy(cols, reader, s.wordnet_rule, tau, copy,
                                  KeyedDraws(seed, code, cols.sent_id))
                    for cols in originals
                ]  # fmt: skip
                rows = _rows(originals, code, lang, copy, done)
                writer.write(config, f"perturbed_{copy}", table(rows, FEATURES))
                for k, (cols, d) in enumerate(zip(originals, done, strict=True)):
                    identical = d.cols.forms == cols.forms
                    st.identical_copies += identical
                    touched[k] |= not identical
                    st.unchanged_draws += sum(
                        a == b for a, b in zip(d.originals, d.replacements, strict=True)
                    )
            st.unchanged_sentences += touched.count(False)


def _count(stats: ConfigStats, eligible: list, kept: int) -> None:
    stats.sentences += len(eligible)
    stats.kept += kept
    for e in eligible:
        stats.eligible += len(e.candidates)
        stats.not_eligible.update(reason for _, reason in e.reasons)


def _wordnet_files(settings: SubstitutionSettings) -> list[dict]:
    if "copos_wordnet" not in settings.methods:
        return []
    folder = Path(settings.wordnet) / "corpora"
    return [
        {"name": name, "sha256": file_sha256(folder / name)}
        for name in ("wordnet.zip", "omw-1.4.zip")
        if (folder / name).is_file()
    ]


def _model_line(manifest: dict) -> str:
    lm = manifest["resources"].get("masked_lm")
    if not lm:
        return ""
    shown = ("model", "revision", "model_type", "vocab_size", "beam", "device")
    return "\n" + card_prose("substitution", "masked_lm", **{k: lm[k] for k in shown})


def _share(part: int, whole: int) -> str:
    return f"{part} ({part / whole:.1%})" if whole else "0"


# What each lamalfa2022 rule reads, as the card words it.
RULE_TEXT = {
    "mode": "most common among the form's first 10 synsets (a tie: the one seen first; the "
    "released script's default, `--wordnet-rule mode`)",
    "least-common": "least common among the form's first 10 synsets (a tie: the one seen "
    "last; the rule of the released logs, `--wordnet-rule least-common`)",
}


def _protocol_note(manifest: dict) -> str:
    """Under lamalfa2022, how its rows differ from what the description above promises."""
    parameters = manifest["parameters"]
    if parameters.get("protocol") != "lamalfa2022":
        return ""
    rule = RULE_TEXT[parameters["wordnet_rule"]]
    return "\n" + card_prose("substitution", "lamalfa2022", rule=rule) + "\n"
