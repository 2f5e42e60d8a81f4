"""A dataset built by another version of its family, as a user meets it on the command line:
every command that reads the family from ``build.json`` refuses it in one error line naming
the version found, the one this toolkit builds and the toolkit that built it, unless that
version is still registered; commands that read only what ``build.json`` itself spells out
(push, summarize --dataset) read any version."""

from __future__ import annotations

import json
import shutil

import pandas as pd
import pytest
from click.testing import CliRunner

import perturbed_ud
from perturbed_ud.builders.perturbed_ud import WordOrder
from perturbed_ud.cli import main
from perturbed_ud.registry import FAMILIES

OLD_TOOLKIT = "0.0.1"
OLDER = {
    "perturbed-ud": {"family": "word_order.v1", "version": "1.0.0"},
    "spud": {"family": "nonce.spud.v2", "version": "2.1.0"},
}


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    out = tmp_path_factory.mktemp("data")
    perturbed_ud.build("perturbed-ud", out, langs=["en"], seeds=[1], limit=5, scrambles=["head"])
    perturbed_ud.build("spud", out, langs=["en"], seeds=[1], limit=5)
    return out


def invoke(*args):
    return CliRunner().invoke(main, [str(a) for a in args])


def edited(built, name, tmp_path, **fields):
    """A copy of the built dataset ``name`` whose build.json is hand-edited: ``fields``
    replaced, those given as None removed."""
    folder = shutil.copytree(built / name, tmp_path / name)
    path = folder / "build.json"
    manifest = json.loads(path.read_text()) | fields
    path.write_text(json.dumps({k: v for k, v in manifest.items() if v is not None}, indent=2))
    return folder


def older(built, name, tmp_path, **fields):
    """A copy of a built dataset that says an older family version and toolkit built it."""
    fields = OLDER[name] | {"toolkit_version": OLD_TOOLKIT} | fields
    return edited(built, name, tmp_path, **fields)


def refusal(folder, dataset: str, family: str | None = None) -> str:
    found = OLDER[dataset]
    current = FAMILIES.get(dataset)
    return (
        f"error: {folder} was built by {dataset} {found['version']} "
        f"({family or found['family']}, perturbed-ud {OLD_TOOLKIT}); this perturbed-ud builds "
        f"{dataset} {current.settings_class.version} ({current.registered_name}): rebuild it, "
        f"or install perturbed-ud=={OLD_TOOLKIT} to read it\n"
    )


READERS = {
    "balance": ("perturbed-ud", "balance --dataset {data} --tokenizer {model} --out {out}"),
    "lm-eval-tasks": ("perturbed-ud", "lm-eval-tasks {data} --out {out}"),
    "evaluate masked-word": (
        "perturbed-ud",
        "evaluate masked-word --dataset {data} --model {model} --out {out}",
    ),
    "evaluate score": ("spud", "evaluate score --dataset {data} --model {model} --out {out}"),
    "review": ("spud", "review {data} --out {out}"),
}


def run_reader(reader: str, folder, tmp_path, model):
    _, command = READERS[reader]
    args = command.format(data=folder, model=model, out=tmp_path / "out").split()
    return invoke(*args)


@pytest.mark.parametrize("reader", list(READERS))
def test_every_reader_refuses_an_older_family_version_in_one_line(
    built, tmp_path, tiny_bert, reader
):
    dataset, _ = READERS[reader]
    folder = older(built, dataset, tmp_path)
    result = run_reader(reader, folder, tmp_path, tiny_bert)
    assert result.exit_code == 1, result.output
    assert result.output == refusal(folder, dataset)
    assert not (tmp_path / "out").exists()


def test_a_manifest_naming_no_family_version_is_refused_alike(built, tmp_path):
    folder = older(built, "perturbed-ud", tmp_path, family=None)  # as before it was recorded
    result = invoke("lm-eval-tasks", folder, "--out", tmp_path / "out")
    assert result.output == refusal(folder, "perturbed-ud", family="unnamed")


def test_a_family_kept_registered_in_its_older_version_reads_its_datasets(
    built, tmp_path, tiny_bert
):
    @FAMILIES.register("word_order.v1", short="perturbed-ud-v1")
    class WordOrderV1(WordOrder):
        """The older version, still registered beside the current one."""

    folder = older(built, "perturbed-ud", tmp_path)
    result = invoke("lm-eval-tasks", folder, "--out", tmp_path / "tasks")
    assert result.exit_code == 0, result.output
    result = invoke("balance", "--dataset", folder, "--tokenizer", tiny_bert,
                    "--out", tmp_path / "balanced")  # fmt: skip
    assert result.exit_code == 0, result.output
    assert json.loads((tmp_path / "balanced/build.json").read_text())["family"] == "word_order.v1"


def test_a_release_labelled_with_another_version_is_read_by_the_current_family(
    built, tmp_path, tiny_bert
):
    """``--version`` labels a release freely: the versioned family name decides."""
    folder = edited(built, "perturbed-ud", tmp_path, version="1.0.0")
    result = invoke("lm-eval-tasks", folder, "--out", tmp_path / "tasks")
    assert result.exit_code == 0, result.output
    result = invoke("balance", "--dataset", folder, "--tokenizer", tiny_bert,
                    "--out", tmp_path / "balanced")  # fmt: skip
    assert result.exit_code == 0, result.output


def test_a_family_not_installed_here_is_named(built, tmp_path, tiny_bert):
    folder = edited(built, "perturbed-ud", tmp_path, dataset="toy", family="toy.reversal.v1")
    result = invoke("balance", "--dataset", folder, "--tokenizer", tiny_bert,
                    "--out", tmp_path / "balanced")  # fmt: skip
    assert result.output == (
        f"error: {folder} is a toy dataset (toy.reversal.v1), of a family not installed here: "
        "install it to take subsets of its datasets\n"
    )
    result = invoke("lm-eval-tasks", folder, "--out", tmp_path / "tasks")
    assert result.output.startswith(f"error: {folder} is a toy dataset; lm-eval tasks are")


def test_push_reads_any_version(built, tmp_path):
    """push reads only what build.json spells out (version, inputs, content)."""
    folder = older(built, "spud", tmp_path)
    result = invoke("push", folder, "--repo-id", "someone/spud", "--version", "2.1.0", "--dry-run")
    assert result.exit_code == 0, result.output
    assert "tag: v2.1.0" in result.output


def test_summarize_reads_the_conditions_of_any_version(built, tmp_path):
    """summarize --dataset reads the conditions table build.json spells out."""
    folder = older(built, "perturbed-ud", tmp_path)
    table = json.loads((folder / "build.json").read_text())["conditions"]
    item = {
        "model_name": "m", "lang": "en_ewt", "words": ["a", "b"], "target_index": 0,
        "target_token": "a", "gold_word": "a", "gold_num_pieces": 1,
        "reconstructed_prediction": "a", "top_k_predictions": ["a"],
    }  # fmt: skip
    items = pd.DataFrame(
        [item | {"condition": c["released"], "word_level_match": i % 2 == 0}
         for i in range(20) for c in table.values()]
    )  # fmt: skip
    items.to_json(tmp_path / "items_seed1.jsonl", orient="records", lines=True)
    result = invoke("summarize", tmp_path / "items_seed1.jsonl", "--dataset", folder,
                    "--bootstrap", "10", "--out", tmp_path / "summary")  # fmt: skip
    assert result.exit_code == 0, result.output
    summary = pd.read_csv(tmp_path / "summary" / "summary_unbalanced.csv")
    assert set(summary["condition"]) == {c["released"] for c in table.values()}
