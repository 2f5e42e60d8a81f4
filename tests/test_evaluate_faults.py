"""Damaged or unsuitable data ends evaluate, balance and summarize with one ``error:`` line
naming the file or saying which command suits the data, never a traceback."""

from __future__ import annotations

import gzip
import json
import shutil

import pandas as pd
import pyarrow.parquet as pq
import pytest
from click.testing import CliRunner
from conftest import UD_ROOT

from perturbed_ud.cli import main
from perturbed_ud.data.writer import content_hash

NONCE = "en_seed1/nonce-00000-of-00001.parquet"


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """One small build of each dataset: spud, perturbed-ud and clams."""
    out = tmp_path_factory.mktemp("data")
    ud = ["--ud-root", UD_ROOT, "--langs", "en", "--seeds", "1", "--limit", "5"]
    for args in (
        ["spud", *ud],
        ["perturbed-ud", *ud, "--scrambles", "head"],
        ["clams", "--langs", "en"],
    ):
        result = invoke("build", *args, "--out", out)
        assert result.exit_code == 0, result.output
    return out


def invoke(*args):
    return CliRunner().invoke(main, [str(a) for a in args])


def copy(built, name, tmp_path):
    return shutil.copytree(built / name, tmp_path / name)


def score(folder, model, tmp_path, command="score"):
    return invoke("evaluate", command, "--dataset", folder, "--model", model, "--out",
                  tmp_path / "run")  # fmt: skip


def assert_refused(result, message: str) -> None:
    assert result.exit_code == 1 and isinstance(result.exception, SystemExit), result.output
    assert f"error: {message}" in result.output


def test_a_truncated_parquet_file_is_named(built, tmp_path, tiny_bert):
    folder = copy(built, "spud", tmp_path)
    data = (folder / NONCE).read_bytes()
    (folder / NONCE).write_bytes(data[: len(data) // 2])
    assert_refused(
        score(folder, tiny_bert, tmp_path), f"{folder / NONCE}: not a readable Parquet file"
    )


def test_an_empty_split_is_named(built, tmp_path, tiny_bert):
    folder = copy(built, "spud", tmp_path)
    pq.write_table(pq.read_table(folder / NONCE).slice(0, 0), folder / NONCE)
    card = folder / "README.md"  # a card that agrees with its files: only the split is wrong
    recorded = json.loads((folder / "build.json").read_text())["content_sha256"]
    card.write_text(card.read_text().replace(recorded, content_hash(folder)))
    assert_refused(score(folder, tiny_bert, tmp_path), f"{folder / NONCE}: holds no rows")


def test_a_card_with_broken_yaml_is_named(built, tmp_path, tiny_bert):
    folder = copy(built, "spud", tmp_path)
    card = folder / "README.md"
    card.write_text(card.read_text().replace("configs:\n", "configs: [\n", 1))
    assert_refused(score(folder, tiny_bert, tmp_path), f"{card}: cannot read its YAML header")


@pytest.mark.parametrize(
    "command, dataset, tasks, suits",
    [
        ("masked-word", "spud", "score` or `evaluate probe", "probe` or `evaluate score"),
        ("minimal-pair", "perturbed-ud", "masked-word", "masked-word"),
        ("score", "clams", "minimal-pair", "minimal-pair"),
    ],
)
def test_a_dataset_for_another_command_is_named_as_such(
    built, tmp_path, tiny_bert, command, dataset, tasks, suits
):
    """From build.json, before any data or model loads; without one (a dataset built
    elsewhere), from the columns of its first split. Either way nothing is written."""
    result = score(built / dataset, tiny_bert, tmp_path, command)
    family = json.loads((built / dataset / "build.json").read_text())["family"]
    assert_refused(result, f"{built / dataset} is a {dataset} dataset ({family})")
    assert f"`evaluate {command}` does not read it; use `evaluate {tasks}`" in result.output
    assert not (tmp_path / "run").exists()

    folder = copy(built, dataset, tmp_path)
    (folder / "build.json").unlink()
    result = score(folder, tiny_bert, tmp_path, command)
    assert_refused(result, "split ")
    assert f"that `evaluate {command}` reads; it is data for `evaluate {suits}`" in result.output
    assert not (tmp_path / "run" / "chunks").exists()


@pytest.mark.parametrize(
    "dataset, suits",
    [("spud", "probe` or `evaluate score"), ("clams", "minimal-pair")],
)
def test_balance_refuses_data_it_cannot_balance(built, tmp_path, tiny_bert, dataset, suits):
    """Balancing keeps the items a tokenizer can mask in every condition: nonce sentences and
    minimal pairs (scored whole, by any tokenizer) have nothing to balance."""
    result = invoke("balance", "--dataset", built / dataset, "--tokenizer", tiny_bert,
                    "--out", tmp_path / "balanced")  # fmt: skip
    assert_refused(result, "split ")
    assert f" of {built / dataset} lacks the columns" in result.output
    assert f"it is data for `evaluate {suits}`" in result.output
    assert not (tmp_path / "balanced").exists()


@pytest.mark.parametrize("keep", [0.5, 0.0])
def test_summarize_names_a_truncated_item_file(tmp_path, keep):
    item = {
        "model_name": "m", "lang": "en_ewt", "condition": "Original", "words": ["a", "b"],
        "target_index": 0, "target_token": "a", "word_level_match": True, "gold_word": "a",
        "gold_num_pieces": 1, "reconstructed_prediction": "a", "top_k_predictions": ["a"],
    }  # fmt: skip
    data = gzip.compress(pd.DataFrame([item] * 500).to_json(orient="records", lines=True).encode())
    items = tmp_path / "items_seed1.jsonl.gz"
    items.write_bytes(data[: int(len(data) * keep)])
    result = invoke("summarize", items, "--out", tmp_path / "summary")
    assert_refused(result, f"{items}: ")


def test_a_second_run_on_one_folder_is_refused_while_the_first_holds_it(built, tmp_path, tiny_bert):
    from perturbed_ud.files import exclusive

    run = tmp_path / "run"
    run.mkdir()
    with exclusive(run / ".rank0.lock", "a first run"):
        result = score(built / "spud", tiny_bert, tmp_path)
    assert_refused(result, f"the run folder {run} is being written by another process")
    assert sorted(p.name for p in run.iterdir()) == [], "the refused run wrote nothing"
    result = score(built / "spud", tiny_bert, tmp_path)
    assert result.exit_code == 0, result.output
    assert not list(run.glob(".*.lock")), "the lock goes with its run"
