"""The ``local_structure`` dataset: character and subword order perturbations over a ρ grid
(Clouâtre et al. 2022, "Local Structure Matters Most in Most Languages").

Config ``{lang}_seed{seed}`` for a UD treebank, ``{name}_seed{seed}`` for a Hugging Face
dataset; one split per setting (see :mod:`perturbed_ud.perturb.local_structure`), aligned
row by row on ``item_id``. Each text column is perturbed on its own and measured with chrF,
IDC and, given a tokenizer, the compression rate; the dataset's other columns are kept, so
that a classifier can be scored on the perturbed rows.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass
from functools import cache
from itertools import islice
from pathlib import Path

from datasets import Features, List, Value

from ..data.card import CardText, build_parameters, in_words, treebank_sources, ud_citations
from ..data.local_folder import load_source, source_files
from ..data.markdown import markdown_table
from ..data.writer import ParquetSplitWriter, digests_content, rows_table
from ..errors import InputError
from ..files import check_name
from ..options import comma_words, published_name
from ..perturb.local_structure import (
    PAPER_RHOS,
    RHO_METHODS,
    UNITS,
    Setting,
    grid_key,
    settings_for,
)
from ..perturb.local_structure_text import (
    CHRF_BETA,
    CHRF_WORD_ORDER,
    PerturbedText,
    chrf_metric,
    chrf_signature,
    perturb_text,
    text_units,
)
from ..perturb.surface_rules import render_text
from ..registry import FAMILIES
from ..rng import KeyedDraws
from ..settings import option_name, setting
from ..ud.columns import SentenceColumns
from ..ud.selection import Selection, sampled, select
from ..ud.sources import Treebank
from .family import card_prose, check_settings, version_setting
from .ud_family import TreebankSources, UDFamily, UDSettings, check_seeds, ud_manifest

NAME = "local_structure"
CHUNK_ITEMS = 1000  # items per Parquet row group; fixed, so output is deterministic
DETOKENISATION = "tokenizer.decode(token_ids)"
# Columns of every row; a text column `c` adds the columns of `text_features(c)`.
ROW_FEATURES = {
    "item_id": Value("string"),
    "source": Value("string"),
    "lang": Value("string"),
    "seed": Value("int32"),
    "setting": Value("string"),
    "unit": Value("string"),
    "method": Value("string"),
    "rho": Value("float64"),
}
MEASURES = ("chrf", "idc", "compression")  # per text column, averaged in the manifest
MEASURE_NAMES = {"chrf": "chrF", "idc": "IDC", "compression": "compression"}
# sacrebleu's default chrF is chrF2 with character 6-grams; only the order is a setting.
DEFAULT_CHRF_CHAR_ORDER = 6


def text_features(column: str) -> dict:
    """The columns a perturbed text column adds: the perturbed text under the column's own
    name (a model reading ``premise`` reads it unchanged), then what it came from and its
    measures."""
    return {
        column: Value("string"),
        f"{column}_original": Value("string"),
        f"{column}_permutation": List(Value("int32")),
        f"{column}_token_ids": List(Value("int32")),
        f"{column}_reference": Value("string"),
        f"{column}_chrf": Value("float64"),
        f"{column}_idc": Value("float64"),
        f"{column}_compression": Value("float64"),
    }


def row_features(text_columns, kept: dict | None = None) -> Features:
    """The features of a build's rows; ``kept`` are the source's other columns."""
    features = dict(ROW_FEATURES)
    for column in text_columns:
        features |= text_features(column)
    clash = sorted(set(features) & set(kept or {}))
    if clash:
        raise InputError(
            f"the dataset's columns {', '.join(clash)} clash with columns this build writes: "
            "rename them first, or perturb them (--text-columns)"
        )
    return Features(features | (kept or {}))


FEATURES = row_features(["text"])

CLOUATRE_CITATION = """\
@inproceedings{clouatre-etal-2022-local,
  title = {Local Structure Matters Most in Most Languages},
  author = {Clou{\\^a}tre, Louis and Parthasarathi, Prasanna and Zouaq, Amal and
            Chandar, Sarath},
  booktitle = {Proceedings of the 2nd Conference of the Asia-Pacific Chapter of the
               Association for Computational Linguistics and the 12th International Joint
               Conference on Natural Language Processing (Volume 2: Short Papers)},
  pages = {285--294},
  year = {2022},
  publisher = {Association for Computational Linguistics}
}"""


def _shown_rhos(rhos: dict) -> str:
    shown = ";".join(f"{key}={','.join(map(str, v)) or 'none'}" for key, v in rhos.items())
    return shown or "paper"


def parse_rhos(values: list[str]) -> dict[str, tuple[float, ...]]:
    """``GRID=ρ,ρ,…`` options (``GRID=`` drops a grid) to grid -> ρ values."""
    rhos = {}
    for value in values:
        key, sep, numbers = value.partition("=")
        if not sep or key.strip() in rhos:
            raise InputError(f"--rhos expects GRID=ρ,ρ,… once per grid, got {value!r}")
        try:
            rhos[key.strip()] = tuple(float(v) for v in comma_words(numbers))
        except ValueError:
            raise InputError(f"--rhos {value!r}: ρ values must be numbers") from None
    return rhos


@dataclass(frozen=True, kw_only=True)
class LocalStructureSettings(UDSettings):
    """Everything that shapes a local_structure build: treebanks or a Hugging Face dataset,
    units, tokenizer, ρ grids, chrF order."""

    hf_dataset: str | None = setting(
        "a Hugging Face dataset (Hub id or folder, read by datasets.load_dataset) read instead "
        "of treebanks (--hf-split names its split, --langs its one language); it enters the "
        "signature with its configuration and a digest of the texts read",
        default=None,
    )
    hf_config: str | None = setting("the dataset's configuration", default=None)
    lang: str | None = setting("with hf_dataset: the language of its texts", default=None)
    text_columns: tuple[str, ...] = setting(
        "the text columns, each perturbed on its own (a treebank's sentences: text)",
        signature="columns",
        default=("text",),
    )
    units: tuple[str, ...] = setting(
        "the units perturbed, char and/or subword (default: both with a tokenizer, else char)",
        signature="units",
        default=(),
    )
    tokenizer: str | None = setting(
        "the tokenizer of subword settings and compression rates (Hub id or folder); its name "
        "and a digest of its definition enter the signature",
        default=None,
    )
    rhos: dict = setting(
        "grid -> ρ values, replacing the paper's grid for it (an empty tuple drops it); "
        "neighbour_flip_swap grids are built only from here. As an option GRID=ρ,ρ,… (GRID= "
        f"drops it), GRID among {', '.join(grid_key(u, m) for u in UNITS for m in RHO_METHODS)}",
        signature="rhos",
        parse=parse_rhos,
        shown=_shown_rhos,
        default_factory=dict,
    )
    chrf_char_order: int = setting(
        "chrF's character n-gram order (word order 0, β 2)",
        signature="chrf_nc",
        default=DEFAULT_CHRF_CHAR_ORDER,
        minimum=1,
    )
    version: str = version_setting()

    def __post_init__(self):
        if self.hf_dataset is None:
            super().__post_init__()
            if tuple(self.text_columns) != ("text",):
                raise InputError("--text-columns is for --hf-dataset: a treebank has one text")
        else:
            check_settings(self, "treebanks", "seeds")
            check_seeds(self.seeds)
            if self.treebanks:
                raise InputError("read either treebanks or --hf-dataset, not both")
            if not self.lang:
                raise InputError("a Hugging Face dataset needs the language of its texts")
        check_settings(self, "text_columns", "units")
        if not self.text_columns or len(set(self.text_columns)) < len(self.text_columns):
            raise InputError(f"text columns must be given once each: {self.text_columns}")
        if not self.units:
            units = UNITS if self.tokenizer else ("char",)
            object.__setattr__(self, "units", units)
        if unknown := sorted(set(self.units) - set(UNITS)):
            raise InputError(f"units must be among {', '.join(UNITS)}, not {unknown}")
        if "subword" in self.units and self.tokenizer is None:
            raise InputError("subword settings need a tokenizer: --tokenizer NAME (a Hub id or "
                             "a folder), or --units char")  # fmt: skip
        if self.chrf_char_order < 1:
            raise InputError(f"chrF's character order must be positive: {self.chrf_char_order}")
        object.__setattr__(self, "rhos", {k: tuple(v) for k, v in self.rhos.items()})
        _check_rhos(self.rhos, self.units)
        if self.tokenizer is not None:
            tokenizer_identity(self.tokenizer)  # found and usable before anything is written


def _check_rhos(rhos: dict, units) -> None:
    known = [grid_key(unit, method) for unit in UNITS for method in RHO_METHODS]
    for key, values in rhos.items():
        if key not in known:
            raise InputError(f"unknown ρ grid {key!r}; choose among {', '.join(known)}")
        if key.split("_", 1)[0] not in units:
            raise InputError(f"ρ grid {key} is for a unit not built (units: {','.join(units)})")
        if any(not 0 <= rho <= 1 for rho in values) or len(set(values)) < len(values):
            raise InputError(f"{key}: ρ values must lie in [0, 1], each once: {list(values)}")


@cache
def load_tokenizer(name: str):
    """The tokenizer, once per process, checked as every command checks one
    (`checked_tokenizer`); a fast one, whose offsets give each subword's characters."""
    from ..lm.models import checked_tokenizer

    tokenizer = checked_tokenizer(name, None)
    if not tokenizer.is_fast:
        raise InputError(f"{name}: subword settings need a fast tokenizer (character offsets)")
    return tokenizer


def tokenizer_identity(name: str) -> dict:
    """What makes two builds' subwords the same: the tokenizer's name, class, vocabulary size
    and a digest of its whole definition (normaliser, pre-tokeniser, model, decoder)."""
    tokenizer = load_tokenizer(name)
    definition = tokenizer.backend_tokenizer.to_str().encode()
    return {
        "name": published_name(name),
        "class": type(tokenizer).__name__,
        "vocab_size": len(tokenizer),
        "sha256": hashlib.sha256(definition).hexdigest()[:16],
    }


def source_name(settings: LocalStructureSettings) -> str:
    """A Hugging Face source's name in configs and draw keys: the dataset's last path part
    and its configuration, so that a folder moved elsewhere draws the same."""
    parts = [settings.hf_dataset.rstrip("/").rsplit("/", 1)[-1], settings.hf_config or ""]
    return re.sub(r"\W+", "_", "_".join(p for p in parts if p)).strip("_")


def kept_features(settings: LocalStructureSettings, files: dict | None) -> dict:
    """The Hugging Face source's columns that are kept as they are; its text columns checked."""
    ds = load_source(settings.hf_dataset, settings.hf_config, settings.split, files)
    for column in settings.text_columns:
        feature = ds.features.get(column)
        if not (isinstance(feature, Value) and feature.dtype in ("string", "large_string")):
            have = ", ".join(ds.features)
            raise InputError(f"{settings.hf_dataset} has no text column {column!r} (it has {have})")
    return {k: v for k, v in ds.features.items() if k not in settings.text_columns}


@dataclass(frozen=True, kw_only=True)
class LocalStructureSources(TreebankSources):
    """Treebanks, or with --hf-dataset a Hugging Face dataset's split, whose one language
    --langs names."""

    hf_split: str = setting("with --hf-dataset: the dataset's split", default="test")


# The options that name treebanks, refused with a Hugging Face dataset.
TREEBANK_OPTIONS = ("files", "ud_root", "download", "treebank", "offline", "ud_release")


@dataclass
class Job:
    """One source: a treebank, or the Hugging Face dataset."""

    source: str  # the treebank's code or the dataset's name: part of every draw's key
    config: str  # the configs' prefix: the language, or the dataset's name
    lang: str
    treebank: Treebank | None = None


@dataclass
class Item:
    item_id: str
    texts: dict[str, str]
    kept: dict


def config_name(prefix: str, seed: int) -> str:
    return f"{prefix}_seed{seed}"


@FAMILIES.register("local_structure.v1")
class LocalStructure(UDFamily):
    """Local structure perturbations (Clouâtre et al. 2022): characters or subwords shuffled,
    phrase-shuffled or neighbour-flipped over a ρ grid, each row measured by chrF and IDC.

    A config per source and seed, a split per setting, aligned by row.
    """

    name = NAME
    pretty_name = "Local structure perturbations of characters and subwords"
    description = card_prose(name, "description")
    features = FEATURES
    settings_class = LocalStructureSettings
    sources_class = LocalStructureSources
    resolved = (*UDFamily.resolved, "lang")
    tasks = ("score", "classify")
    lm_eval_tasks = ("rolling",)

    @classmethod
    def manifest_problem(cls, manifest: dict) -> str | None:
        """The text columns name the rows' columns and the lm-eval tasks' targets."""
        columns = manifest.get("parameters", {}).get("text_columns")
        if not isinstance(columns, str) or not all(columns.split(",")):
            return f"parameters.text_columns must name the text columns, not {columns!r}"
        return None

    @classmethod
    def lm_eval_text(cls, manifest: dict) -> tuple[str, ...]:
        return tuple(manifest["parameters"]["text_columns"].split(","))  # the build's own

    @classmethod
    def resolve(cls, sources: LocalStructureSources, values: dict) -> dict:
        if values.get("hf_dataset") is None:
            return super().resolve(sources, values)
        if given := [name for name in TREEBANK_OPTIONS if getattr(sources, name)]:
            raise InputError(f"{option_name(given[0])} reads treebanks: leave it out with "
                             "--hf-dataset")  # fmt: skip
        if len(langs := sources.languages()) != 1:
            raise InputError("with --hf-dataset, --langs names the one language of its texts")
        check_name(langs[0], "language")
        return {"treebanks": (), "lang": langs[0], "split": sources.hf_split,
                "selection": sources.selection()}  # fmt: skip

    def __init__(self, settings: LocalStructureSettings):
        super().__init__(settings)
        if settings.hf_dataset is not None:
            # hashed once: the items, the manifest and the signature all name this content
            self.source_files = source_files(
                settings.hf_dataset, settings.hf_config, settings.split
            )
            self.features = row_features(
                settings.text_columns, kept_features(settings, self.source_files)
            )

    def perturbations(self) -> list[Setting]:
        return settings_for(self.settings.units, PAPER_RHOS | self.settings.rhos)

    def conditions(self) -> list[str]:
        return [p.name for p in self.perturbations()]

    def jobs(self) -> list[Job]:
        """One job per treebank, or one for the Hugging Face dataset."""
        s = self.settings
        if s.hf_dataset is not None:
            return [Job(source_name(s), source_name(s), s.lang)]
        return [Job(t.code, t.lang, t.lang, t) for t in s.treebanks]

    def items(self, job: Job):
        """The job's texts in order: a treebank's selected sentences (a sentence without
        ``# text`` rendered from its tokens and SpaceAfter), or the dataset's selected rows."""
        s = self.settings
        if job.treebank is not None:
            for sentence in select(job.treebank, s.selection):
                text = sentence.text
                if not text:
                    cols = SentenceColumns.from_sentence(sentence)
                    text = render_text(cols, cols)
                yield Item(sentence.sent_id, {"text": text}, {})
            return
        ds = load_source(s.hf_dataset, s.hf_config, s.split, self.source_files)
        indices = _selected_rows(len(ds), s.selection, job.source)
        for start in range(0, len(indices), CHUNK_ITEMS):
            chunk = indices[start : start + CHUNK_ITEMS]
            rows = ds[chunk]
            for k, index in enumerate(chunk):
                texts = {c: rows[c][k] for c in s.text_columns}
                if missing := [c for c, t in texts.items() if not isinstance(t, str)]:
                    raise InputError(f"{s.hf_dataset}: row {index} has no text in {missing[0]}")
                kept = {c: rows[c][k] for c in rows if c not in texts}
                yield Item(str(index), texts, kept)

    def write(self, job: Job, writer: ParquetSplitWriter) -> dict:
        s = self.settings
        tokenizer = load_tokenizer(s.tokenizer) if s.tokenizer else None
        metric = chrf_metric(s.chrf_char_order)
        perturbations = self.perturbations()
        sums: dict[tuple, list[float]] = {}  # (seed, split, column, measure) -> [sum, n]
        digest, items = hashlib.sha256(), 0
        found = self.items(job)
        while chunk := list(islice(found, CHUNK_ITEMS)):
            units = [{c: text_units(item.texts[c], tokenizer) for c in s.text_columns}
                     for item in chunk]  # fmt: skip
            for item in chunk:
                digest.update(json.dumps([item.item_id, item.texts]).encode())
            items += len(chunk)
            for seed in s.seeds:
                draws = [KeyedDraws(seed, job.source, item.item_id) for item in chunk]
                for p in perturbations:
                    rows = []
                    for item, item_units, keyed in zip(chunk, units, draws, strict=True):
                        row = {"item_id": item.item_id, "source": job.source, "lang": job.lang,
                               "seed": seed, "setting": p.name, "unit": p.unit,
                               "method": p.method, "rho": p.rho, **item.kept}  # fmt: skip
                        for column in s.text_columns:
                            rng = keyed.random(column, p.name)
                            done = perturb_text(item_units[column], p, rng, metric, tokenizer)
                            row |= text_row(column, item.texts[column], done)
                        rows.append(row)
                    _tally(sums, (seed, p.name), rows, s.text_columns)
                    writer.write(config_name(job.config, seed), p.name,
                                 rows_table(rows, self.features))  # fmt: skip
        return {
            "source": job.source,
            "lang": job.lang,
            "texts": {"items": items, "sha256": digest.hexdigest()},
            "configs": {
                config_name(job.config, seed): {
                    "source": job.source,
                    "lang": job.lang,
                    "seed": seed,
                    "splits": {p.name: items for p in perturbations},
                    "means": _means(sums, seed, perturbations, s.text_columns),
                }
                for seed in s.seeds
                if items
            },
        }

    def manifest(self, results: list[dict]) -> dict:
        s = self.settings
        if s.hf_dataset is None:
            read = ud_manifest(s)
        else:
            ds = load_source(s.hf_dataset, s.hf_config, s.split, self.source_files)
            files = self.source_files
            read = {
                "selection": s.selection.describe(),
                "sources": [{
                    "name": published_name(s.hf_dataset), "config": s.hf_config or "default",
                    "split": s.split,
                    "lang": s.lang, "license": ds.info.license or "unknown", "rows": len(ds),
                    **({"files": files} if files else {}),
                }],
            }  # fmt: skip
        return {
            "parameters": {
                "seeds": ",".join(map(str, s.seeds)),
                "units": ",".join(s.units),
                "text_columns": ",".join(s.text_columns),
                "rho_grids": "the paper's" if not s.rhos else _shown_rhos(s.rhos),
                "chrf": f"char_order {s.chrf_char_order}, word_order {CHRF_WORD_ORDER}, "
                f"beta {CHRF_BETA}",
            },
            **read,
            "resources": {
                "tokenizer": tokenizer_identity(s.tokenizer) if s.tokenizer else None,
                "detokenisation": DETOKENISATION if "subword" in s.units else None,
                "chrf_signature": chrf_signature(s.chrf_char_order),
            },
            "perturbations": [
                {"split": p.name, "unit": p.unit, "method": p.method, "rho": p.rho}
                for p in self.perturbations()
            ],
            "texts": {r["source"]: r["texts"] for r in results},
            "configs": {name: c for r in results for name, c in r["configs"].items()},
        }

    def signature_extra(self, manifest: dict) -> list[str]:
        """The Hugging Face source, the tokenizer, sacrebleu's chrF signature, and a digest of
        every text read."""
        tok = manifest["resources"]["tokenizer"]
        texts = ",".join(t["sha256"][:12] for t in manifest["texts"].values())
        chrf = manifest["resources"]["chrf_signature"].replace("|", ",")
        tokenizer = f"{tok['name']}@{tok['sha256']}" if tok else "none"
        parts = [f"tokenizer:{tokenizer}", f"chrf:{chrf}", f"texts:{texts}"]
        s = self.settings
        if s.hf_dataset is not None:
            (source,) = manifest["sources"]
            files = source.get("files")
            content = f"@{digests_content(files)[:12]}" if files else ""
            name = f"{source['name']}:{source['config']}:{s.lang}{content}"
            parts.insert(0, f"hf:{name}")
        return parts

    def inputs(self) -> list[Path]:
        """The treebanks' files, and a --hf-dataset or --tokenizer given as a folder."""
        named = (self.settings.hf_dataset, self.settings.tokenizer)
        return super().inputs() + [Path(name) for name in named if name]

    def why_empty(self, results: list) -> str:
        return "no text was read: check the treebank files, the dataset split and --limit"

    @classmethod
    def card_text(cls, manifest: dict) -> CardText:
        resources = manifest["resources"]
        tok = resources["tokenizer"]
        tokenizer = (
            card_prose(
                cls.name,
                "tokenizer",
                name=tok["name"],
                kind=tok["class"],
                vocabulary=tok["vocab_size"],
                sha256=tok["sha256"],
                detokenisation=resources["detokenisation"],
            )
            if tok
            else card_prose(cls.name, "no_tokenizer")
        )
        chrf = card_prose(
            cls.name,
            "chrf",
            settings=manifest["parameters"]["chrf"],
            signature=resources["chrf_signature"],
        )
        treebanks = "treebanks" in manifest
        return CardText(
            loading_comment="one split per setting, aligned by row",
            parameters=_parameters(manifest, treebanks),
            sources=f"{treebank_sources(manifest) if treebanks else _dataset_source(manifest)}"
            f"\n\n{tokenizer}\n\n{chrf}",
            statistics=_statistics(manifest),
            citation=ud_citations(manifest) if treebanks else _dataset_citation(manifest),
            tags=["perturbation", "word-order", "local-structure", "chrf"]
            + (["universal-dependencies"] if treebanks else []),
            task_categories=["text-classification", "fill-mask"],
            method_citation=CLOUATRE_CITATION,
        )


def text_row(column: str, original: str, done: PerturbedText) -> dict:
    """The columns of one perturbed text column (see `text_features`)."""
    return {
        column: done.text,
        f"{column}_original": original,
        f"{column}_permutation": done.permutation,
        f"{column}_token_ids": done.token_ids,
        f"{column}_reference": done.reference,
        f"{column}_chrf": done.chrf,
        f"{column}_idc": done.idc,
        f"{column}_compression": done.compression,
    }


def _tally(sums: dict, key: tuple, rows: list[dict], columns) -> None:
    """Add the rows' measures to ``sums[(*key, column, measure)]`` = [sum, rows measured]."""
    for column in columns:
        for measure in MEASURES:
            values = [v for row in rows if (v := row[f"{column}_{measure}"]) is not None]
            total = sums.setdefault((*key, column, measure), [0.0, 0])
            total[0] += sum(values)
            total[1] += len(values)


def _means(sums: dict, seed: int, perturbations, columns) -> dict:
    """Mean chrF, IDC and compression of each split and column (rounded for the manifest)."""
    means = {}
    for p in perturbations:
        for column in columns:
            entry = {}
            for measure in MEASURES:
                total, n = sums.get((seed, p.name, column, measure), (0, 0))
                entry[measure] = round(total / n, 6) if n else None
            means.setdefault(p.name, {})[column] = entry
    return means


def _selected_rows(n: int, selection: Selection, source: str) -> list[int]:
    """Row indices of a dataset split chosen by ``selection``, in order: all, the first N,
    or N drawn by keyed hashes of the indices (as treebank sentences are by their sent_id)."""
    if selection.limit is not None:
        return list(range(min(n, selection.limit)))
    if selection.sample is not None:
        keep = sampled(map(str, range(n)), selection.sample, selection.sample_seed, source)
        return [i for i in range(n) if str(i) in keep]
    return list(range(n))


def _parameters(manifest: dict, treebanks: bool) -> str:
    if treebanks:
        return build_parameters(manifest)
    (source,) = manifest["sources"]
    params = "; ".join(f"{k}={in_words(v)}" for k, v in manifest["parameters"].items())
    chosen = manifest["selection"]
    rows = card_prose("local_structure", "all_rows")
    if chosen["mode"] == "first":
        rows = card_prose("local_structure", "first_rows", n=chosen["n"])
    elif chosen["mode"] == "sample":
        rows = card_prose(
            "local_structure", "sampled_rows", n=chosen["n"], seed=chosen["sample_seed"]
        )
    return card_prose(
        "local_structure", "dataset_parameters", parameters=params, rows=rows, split=source["split"]
    )


def _dataset_source(manifest: dict) -> str:
    rows = [[s["name"] + (" (a local folder)" if "files" in s else ""), s["config"], s["split"],
             s["lang"], s["license"], s["rows"]] for s in manifest["sources"]]  # fmt: skip
    table = markdown_table(["dataset", "config", "split", "lang", "licence", "rows"], rows)
    return card_prose("local_structure", "dataset_sources", datasets=table)


def _dataset_citation(manifest: dict) -> str:
    names = ", ".join(f"`{s['name']}`" for s in manifest["sources"])
    return card_prose("local_structure", "dataset_citation", names=names)


def _statistics(manifest: dict) -> str:
    """Mean chrF and IDC (and compression, with a tokenizer) of every setting, per source
    and text column, averaged over the seeds."""
    configs = manifest["configs"].values()
    columns = manifest["parameters"]["text_columns"].split(",")
    measures = MEASURES if manifest["resources"]["tokenizer"] else MEASURES[:2]
    blocks = []
    for source in manifest["texts"]:
        mine = [c for c in configs if c["source"] == source]
        if not mine:
            continue
        header, rows = ["setting"], []
        for column in columns:
            prefix = f"{column} " if len(columns) > 1 else ""
            header += [f"{prefix}{MEASURE_NAMES[m]}" for m in measures]
        for p in manifest["perturbations"]:
            row = [f"`{p['split']}`"]
            for column in columns:
                for measure in measures:
                    values = [c["means"][p["split"]][column][measure] for c in mine]
                    known = [v for v in values if v is not None]
                    row.append(f"{sum(known) / len(known):.3f}" if known else "–")
            rows.append(row)
        items = manifest["texts"][source]["items"]
        seeds = ", ".join(str(c["seed"]) for c in mine)
        blocks.append(f"**{source}**: {items} texts, seeds {seeds}.\n\n"
                      f"{markdown_table(header, rows)}")  # fmt: skip
    return card_prose("local_structure", "statistics", measures="\n\n".join(blocks))
