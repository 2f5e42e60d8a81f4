"""Dataset cards: the README.md whose YAML makes a folder loadable by `load_dataset`.

The YAML lists every config with its ``data_files`` (only non-empty splits: one empty split
breaks its whole config) and ``version`` (the one version that reaches ``info.version``), plus
a ``perturbed_ud`` block whose build signature changes with the content, so a rebuilt folder
never reuses a stale `datasets` cache.
"""

from __future__ import annotations

from datasets.utils.metadata import MetadataConfigs
from huggingface_hub import DatasetCard, DatasetCardData

from .licences import hub_licence
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


def yaml_metadata(manifest: dict) -> DatasetCardData:
    licences = sorted({hub_licence(t["license"]) for t in manifest["treebanks"]})
    data = DatasetCardData(
        license=licences[0] if len(licences) == 1 else licences,
        pretty_name=manifest["pretty_name"],
        language=sorted({t["lang"] for t in manifest["treebanks"]}),
        tags=["universal-dependencies", "word-order", "morphology", "perturbation"],
    )
    data["perturbed_ud"] = {
        "dataset": manifest["dataset"],
        "version": manifest["version"],
        "signature": manifest["signature"],
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
    return data


def _table(header: list[str], rows: list[list]) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(str(c) for c in row) + " |" for row in rows]
    return "\n".join(lines)


def _rate(pair: list[int]) -> str:
    changed, total = pair
    return f"{changed / total:.3f}" if total else "–"


def render(manifest: dict, description: str) -> str:
    """The whole card: YAML, what the dataset is, how to load it, statistics, credits."""
    first = next(iter(manifest["configs"]), "CONFIG")
    treebank_rows = [
        [t["name"], t["lang"], t["release"], t["license"], ", ".join(f["name"] for f in t["files"])]
        for t in manifest["treebanks"]
    ]
    stat_rows = []
    for name, config in manifest["configs"].items():
        drops = config["sentence_drops"] | config["row_drops"]
        stat_rows.append(
            [
                name,
                " / ".join(f"{s} {n}" for s, n in config["splits"].items()),
                config["sentences"],
                ", ".join(f"{r} {n}" for r, n in drops.items()) or "none",
                _rate(config["lemma_token_change"]),
                _rate(config["position_change"]),
            ]
        )
    citations = "\n\n".join(
        f"**{t['name']}**\n\n```\n{t['citation']}\n```"
        for t in manifest["treebanks"]
        if t["citation"]
    )
    params = ", ".join(f"{k}={v}" for k, v in manifest["parameters"].items())
    body = f"""
# {manifest["pretty_name"]}

Version {manifest["version"]}, built by perturbed-ud {manifest["toolkit_version"]}.
Signature: `{manifest["signature"]}`.

{description}
## Loading

```python
from datasets import load_dataset, get_dataset_config_names

get_dataset_config_names("path/to/{manifest["dataset"]}")
ds = load_dataset("path/to/{manifest["dataset"]}", "{first}")  # one split per condition
```

Build parameters: {params}. Sentence selection: {manifest["selection"]}.

## Sources

{_table(["treebank", "lang", "UD release", "licence", "files"], treebank_rows)}

Each treebank keeps its own licence; the sha256 of every input file is in `build.json`.

## Statistics

N per split, sentences read, drops by reason, and perturbation magnitude over non-punctuation
words: +L token-change rate (FORM ≠ LEMMA) and the position-change rate of the config's
scramble (share of words whose absolute position differs from the original).

{_table(["config", "N per split", "sentences", "drops", "+L tok. chg", "pos. chg"], stat_rows)}

## Citation

Universal Dependencies:

```
{UD_CITATION}
```

{citations}
"""
    return f"---\n{yaml_metadata(manifest).to_yaml()}\n---\n{body}"


def write_card(folder, manifest: dict, description: str) -> None:
    DatasetCard(render(manifest, description)).save(folder / "README.md")
