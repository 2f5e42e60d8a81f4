"""Dataset cards: the README.md whose YAML makes a folder loadable by `load_dataset`.

The YAML lists every config with its ``data_files`` (only non-empty splits: one empty split
breaks its whole config) and ``version`` (the one version that reaches ``info.version``), a
``dataset_info`` with each config's Parquet bytes (``download_size``), and a ``perturbed_ud``
block with the build signature and content hash. `datasets` keys its cache for a local
folder on the configs and ``dataset_info`` only, not on the files: the byte sizes are what
keep a folder rebuilt with other content from being read through the stale cache of the
earlier build. (Split sizes would need Arrow byte counts as well, or `datasets` ignores
them with a warning.)

The frame (YAML, title, version, loading, section order) is shared by every dataset; what each
dataset says in its sections is a `CardText`. A manifest lists what it was built from under
``treebanks`` or, for other inputs, ``sources`` (each with ``lang`` and ``license``).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field

from datasets.utils.metadata import MetadataConfigs
from huggingface_hub import DatasetCard, DatasetCardData

from .licences import hub_licence
from .markdown import markdown_table
from .writer import split_pattern

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


def inputs(manifest: dict) -> list[dict]:
    """What the dataset was built from: its treebanks, or else its other sources."""
    return manifest["treebanks"] if "treebanks" in manifest else manifest["sources"]


@dataclass(frozen=True)
class CardText:
    """A dataset's own words in the card: YAML tags, the comment on its loading example, the
    paragraph after it, and the bodies of the Sources, Statistics and Citation sections."""

    loading_comment: str
    parameters: str
    sources: str
    statistics: str
    citation: str
    tags: list[str] = field(default_factory=list)


def yaml_metadata(
    manifest: dict, tags: list[str], parquet_bytes: dict[str, int] | None = None
) -> DatasetCardData:
    licences = sorted({hub_licence(t["license"]) for t in inputs(manifest)})
    data = DatasetCardData(
        license=licences[0] if len(licences) == 1 else licences,
        pretty_name=manifest["pretty_name"],
        language=sorted({t["lang"] for t in inputs(manifest)}),
        tags=list(tags),
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
    if parquet_bytes:
        data["dataset_info"] = [
            {"config_name": name, "download_size": parquet_bytes[name]}
            for name in manifest["configs"]
        ]
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
    PUD treebanks share one)."""
    names: dict[str, list[str]] = {}
    for t in manifest["treebanks"]:
        if t["citation"]:
            names.setdefault(t["citation"], []).append(t["name"])
    return "\n\n".join(
        f"**{', '.join(group)}**\n\n```\n{citation}\n```" for citation, group in names.items()
    )


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

```
{UD_CITATION}
```

{treebank_citations(manifest)}"""


def build_parameters(manifest: dict) -> str:
    """The build's parameters and sentence selection, as a sentence."""
    params = ", ".join(f"{k}={v}" for k, v in manifest["parameters"].items())
    selection = manifest["selection"]
    chosen = {
        "all": "every sentence",
        "first": f"the first {selection.get('n')} sentences of each treebank",
        "sample": f"{selection.get('n')} sentences of each treebank, drawn with sample seed "
        f"{selection.get('sample_seed')}",
    }[selection["mode"]]
    return f"Build parameters: {params}. Sentences: {chosen}."


def release(treebank: dict) -> str:
    """A treebank's UD release as a reader should take it: a changelog's is a lower bound."""
    if treebank.get("release_source") == "changelog":
        return f"{treebank['release']} or later (README changelog)"
    return treebank["release"]


def render(
    manifest: dict,
    description: str,
    text: CardText,
    parquet_bytes: dict[str, int] | None = None,
) -> str:
    """The whole card: YAML, what the dataset is, how to load it, statistics, credits."""
    first = next(iter(manifest["configs"]), "CONFIG")
    body = f"""
# {manifest["pretty_name"]}

Version {manifest["version"]}, built by perturbed-ud {manifest["toolkit_version"]}.
Signature: `{manifest["signature"]}` (config id `{manifest["config_id"]}`).

{description}
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

{text.citation}
"""
    return f"---\n{yaml_metadata(manifest, text.tags, parquet_bytes).to_yaml()}\n---\n{body}"


def write_card(folder, manifest: dict, description: str, text: CardText) -> None:
    """README.md and build.json (the manifest) of a built folder, its configs' Parquet files
    already in place."""
    sizes = {
        name: sum(path.stat().st_size for path in (folder / name).glob("*.parquet"))
        for name in manifest["configs"]
    }
    DatasetCard(render(manifest, description, text, sizes)).save(folder / "README.md")
    (folder / "build.json").write_text(
        json.dumps(manifest, indent=2, ensure_ascii=False) + "\n", encoding="utf-8"
    )
