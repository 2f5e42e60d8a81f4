"""Dataset cards: the README.md whose YAML makes a folder loadable by `load_dataset`.

The YAML lists every config with its ``data_files`` (only non-empty splits: one empty split
breaks its whole config) and ``version`` (the one version that reaches ``info.version``), a
``dataset_info`` read back from the Parquet files (features, rows and Arrow bytes per split,
Parquet bytes per config), the Hub's search metadata (task categories, size category,
multilinguality, source datasets), and a ``perturbed_ud`` block with the build signature and
content hash. `datasets` keys its cache for a local folder on the configs and
``dataset_info`` only, not on the files: the sizes are what keep a folder rebuilt with other
content from being read through the stale cache of the earlier build, and `load_dataset`
checks the row counts against the files.

The frame (YAML, title, version, loading, section order) is shared by every dataset; what each
dataset says in its sections is a `CardText`. A manifest lists what it was built from under
``treebanks`` or, for other inputs, ``sources`` (each with ``lang`` and ``license``).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

import pyarrow.parquet as pq
from datasets import DatasetInfo, Features
from datasets.info import DatasetInfosDict
from datasets.splits import SplitDict, SplitInfo
from datasets.utils.metadata import MetadataConfigs
from huggingface_hub import DatasetCard, DatasetCardData

from ..licences import hub_licence
from .markdown import code_block, inline_code, markdown_table
from .writer import split_files, split_pattern

UD_CITATION = """\
@article{de-marneffe-etal-2021-universal,
  title = {Universal {D}ependencies},
  author = {de Marneffe, Marie-Catherine and Manning, Christopher D. and
            Nivre, Joakim and Zeman, Daniel},
  journal = {Computational Linguistics},
  volume = {47},
  number = {2},
  pages = {255--308},
  year = {2021}
}"""

# The Hub's size categories (``datasets/utils/resources/size_categories.json``), from
# n<1K upwards, each ten times the one before; beyond the last, "n>1T".
SIZE_CATEGORIES = [
    "n<1K", "1K<n<10K", "10K<n<100K", "100K<n<1M", "1M<n<10M",
    "10M<n<100M", "100M<n<1B", "1B<n<10B", "10B<n<100B", "100B<n<1T",
]  # fmt: skip
# The Hub dataset the treebank families extend.
UD_HUB_DATASET = "universal-dependencies/universal_dependencies"


def inputs(manifest: dict) -> list[dict]:
    """What the dataset was built from: its treebanks, or else its other sources."""
    return manifest["treebanks"] if "treebanks" in manifest else manifest["sources"]


@dataclass(frozen=True)
class CardText:
    """A dataset's own words in the card: YAML tags and Hub task categories (``fill-mask``,
    ``text-generation``: what a model does with the rows), the comment on its loading example,
    the paragraph after it, the bodies of the Sources, Statistics and Citation sections, and
    the BibTeX of the paper whose method the dataset implements (first under Citation)."""

    loading_comment: str
    parameters: str
    sources: str
    statistics: str
    citation: str
    tags: list[str] = field(default_factory=list)
    task_categories: list[str] = field(default_factory=list)
    method_citation: str = ""


def size_category(rows: int) -> str:
    """The Hub's size category of a dataset of this many rows."""
    for power, category in enumerate(SIZE_CATEGORIES, start=3):
        if rows < 10**power:
            return category
    return "n>1T"


def source_datasets(manifest: dict) -> list[str]:
    """Treebank datasets extend UD; datasets generated from other sources (grammars) are
    original."""
    return [f"extended|{UD_HUB_DATASET}"] if "treebanks" in manifest else ["original"]


def folder_infos(folder: Path, manifest: dict) -> dict[str, DatasetInfo]:
    """What `datasets` records of each config, read back from its Parquet files: features,
    rows and Arrow bytes per split (row group by row group: memory stays flat), Parquet
    bytes."""
    infos = {}
    for name, config in manifest["configs"].items():
        splits, features, parquet_bytes = SplitDict(), None, 0
        for split in config["splits"]:
            rows = arrow_bytes = 0
            for path in split_files(folder, name, split):
                parquet = pq.ParquetFile(path)
                features = features or Features.from_arrow_schema(parquet.schema_arrow)
                rows += parquet.metadata.num_rows
                arrow_bytes += sum(
                    parquet.read_row_group(i).nbytes for i in range(parquet.num_row_groups)
                )
                parquet_bytes += path.stat().st_size
            splits.add(SplitInfo(name=split, num_bytes=arrow_bytes, num_examples=rows))
        infos[name] = DatasetInfo(
            features=features,
            splits=splits,
            download_size=parquet_bytes,
            dataset_size=sum(s.num_bytes for s in splits.values()),
        )
    return infos


def yaml_metadata(manifest: dict, text: CardText, infos: dict[str, DatasetInfo]) -> DatasetCardData:
    """The card's YAML: what the Hub shows and searches, and what `load_dataset` reads."""
    licences = sorted({hub_licence(t["license"]) for t in inputs(manifest)})
    languages = sorted({t["lang"] for t in inputs(manifest)})
    data = DatasetCardData(
        license=licences[0] if len(licences) == 1 else licences,
        pretty_name=manifest["pretty_name"],
        language=languages,
        multilinguality="multilingual" if len(languages) > 1 else "monolingual",
        source_datasets=source_datasets(manifest),
        task_categories=list(text.task_categories) or None,
        tags=list(text.tags),
    )
    data["perturbed_ud"] = {
        "dataset": manifest["dataset"],
        "family": manifest["family"],
        "version": manifest["version"],
        "signature": manifest["signature"],
        "config_id": manifest["config_id"],
        "content_sha256": manifest["content_sha256"],
    }
    configs = {}
    for name, config in manifest["configs"].items():
        configs[name] = {
            "data_files": [
                {"split": split, "path": split_pattern(name, split)} for split in config["splits"]
            ],
            "version": manifest["version"],
        }
    MetadataConfigs(configs).to_dataset_card_data(data)
    DatasetInfosDict(infos).to_dataset_card_data(data)
    rows = sum(info.splits.total_num_examples for info in infos.values())
    data["size_categories"] = [size_category(rows)]
    return data


def rate(pair: list[int], digits: int = 3) -> str:
    """``[part, whole]`` as a proportion, or a dash when the whole is empty."""
    part, whole = pair
    return f"{part / whole:.{digits}f}" if whole else "–"


def treebank_table(manifest: dict) -> str:
    """The treebanks a dataset was built from: release, licence and files."""
    rows = [
        [t["name"], t["lang"], release(t), t["license"], ", ".join(f["name"] for f in t["files"])]
        for t in manifest["treebanks"]
    ]
    return markdown_table(["treebank", "lang", "UD release", "licence", "files"], rows)


def treebank_citations(manifest: dict) -> str:
    """Each treebank's citation once, under the names of every treebank that asks for it (the
    PUD treebanks share one), then which treebanks' READMEs name nothing to cite."""
    names: dict[str, list[str]] = {}
    for t in manifest["treebanks"]:
        if t["citation"]:
            names.setdefault(t["citation"], []).append(t["name"])
    blocks = [
        f"**{', '.join(group)}**\n\n{code_block(citation)}" for citation, group in names.items()
    ]
    stand_ins = {
        "fallback": "they are cited as released in Universal Dependencies, by their contributors",
        "sample": "they are cited as recorded with the PUD sample of perturbed-ud",
    }
    for source, how in stand_ins.items():
        group = [t["name"] for t in manifest["treebanks"] if t.get("citation_source") == source]
        if group:
            blocks.append(f"The READMEs of {', '.join(group)} name no publication to cite; {how}.")
    return "\n\n".join(blocks)


def treebank_sources(manifest: dict) -> str:
    """The Sources section of a dataset read from treebanks: each with its release, licence
    and files."""
    return f"""\
{treebank_table(manifest)}

Each treebank keeps its own licence; the sha256 of every input file is in `build.json`."""


def ud_citations(manifest: dict) -> str:
    """UD's citation, then each treebank's."""
    return f"""\
Universal Dependencies:

{code_block(UD_CITATION)}

{treebank_citations(manifest)}"""


def in_words(value) -> str:
    """A parameter value as a reader writes it, not as Python prints it: a list joined by
    commas, a mapping as ``key value`` pairs."""
    if isinstance(value, dict):
        return ", ".join(f"{key} {in_words(v)}" for key, v in value.items())
    if isinstance(value, (list, tuple)):
        return ",".join(map(in_words, value))
    return str(value)


def selected_sentences(selection: dict, split: str | None = None) -> str:
    """Which sentences of each treebank were read, in words."""
    where = f"each treebank's {split} split" if split else "each treebank"
    if selection["mode"] == "first":
        return f"the first {selection['n']} sentences of {where}"
    if selection["mode"] == "sample":
        return (
            f"a sample of {selection['n']} sentences of {where} "
            f"(sample seed {selection['sample_seed']})"
        )
    return f"all sentences of {where}"


def build_parameters(manifest: dict) -> str:
    """The build's parameters and sentence selection, as a sentence."""
    params = "; ".join(f"{k}={in_words(v)}" for k, v in manifest["parameters"].items())
    chosen = selected_sentences(manifest["selection"], manifest.get("split"))
    return f"Build parameters: {params}. Sentences: {chosen}."


def release(treebank: dict) -> str:
    """A treebank's UD release as a reader should take it: a changelog's is a lower bound."""
    if treebank.get("release_source") == "changelog":
        return f"{treebank['release']} or later (README changelog)"
    return treebank["release"]


def citation_section(text: CardText) -> str:
    """The method's paper first (what users of the dataset cite for how it was made), then
    the dataset's own citations (its sources)."""
    method = text.method_citation and (
        f"Please cite the paper whose method this dataset implements:\n\n"
        f"{code_block(text.method_citation)}"
    )
    return "\n\n".join(part for part in (method, text.citation) if part)


def render(
    manifest: dict,
    description: str,
    text: CardText,
    infos: dict[str, DatasetInfo],
) -> str:
    """The whole card: YAML, what the dataset is, how to load it, statistics, credits."""
    first = next(iter(manifest["configs"]), "CONFIG")
    body = f"""
# {manifest["pretty_name"]}

Version {manifest["version"]}, built by perturbed-ud {manifest["toolkit_version"]}.
Signature: {inline_code(manifest["signature"])} (config id {inline_code(manifest["config_id"])}).

{description.rstrip()}

## Loading

```python
from datasets import load_dataset, get_dataset_config_names

get_dataset_config_names("path/to/{manifest["dataset"]}")
ds = load_dataset("path/to/{manifest["dataset"]}", "{first}")  # {text.loading_comment}
```

{text.parameters}

## Sources

{text.sources}

## Statistics

{text.statistics}

## Citation

{citation_section(text)}
"""
    return f"---\n{yaml_metadata(manifest, text, infos).to_yaml()}\n---\n{body}"


def write_card(folder, manifest: dict, description: str, text: CardText) -> None:
    """README.md and build.json (the manifest) of a built folder, its configs' Parquet files
    already in place."""
    infos = folder_infos(folder, manifest)
    DatasetCard(render(manifest, description, text, infos)).save(folder / "README.md")
    (folder / "build.json").write_text(
        json.dumps(manifest, indent=2, ensure_ascii=False) + "\n", encoding="utf-8"
    )
