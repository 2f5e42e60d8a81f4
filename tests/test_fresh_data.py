"""Evaluate scores the data a folder holds now: not the cache of an earlier build of the same
folder, nor of another folder of the same name, nor chunks of a run begun on other files.

`datasets` keys the cache of a local folder on its base name, configs and card sizes; a one
letter respelling ("Mary" -> "Mray") changes none of them, so these cases are what an evaluation
that trusted the cache (or the card) got wrong."""

from __future__ import annotations

import json
import shutil

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from click.testing import CliRunner
from conftest import UD_ROOT

from perturbed_ud.cli import main
from perturbed_ud.data.writer import content_hash

TREEBANK = "UD_English-EWT"


@pytest.fixture(autouse=True)
def own_datasets_cache(monkeypatch, tmp_path):
    """A `datasets` cache of the test's own: what it holds came from this test alone."""
    import datasets

    monkeypatch.setattr(datasets.config, "HF_DATASETS_CACHE", tmp_path / "hf-datasets")


def ud_root(folder, spelling: str):
    """The English sample with every "Mary" spelt ``spelling`` (same length, same sizes)."""
    shutil.copytree(UD_ROOT / TREEBANK, folder / TREEBANK)
    conllu = folder / TREEBANK / "en_ewt-ud-test.conllu"
    conllu.write_text(conllu.read_text(encoding="utf-8").replace("Mary", spelling), "utf-8")
    return folder


def invoke(*args):
    return CliRunner().invoke(main, [str(a) for a in args])


def build(root, out):
    result = invoke("build", "perturbed-ud", "--ud-root", root, "--langs", "en", "--seeds", "1",
                    "--limit", "3", "--scrambles", "head", "--out", out, "--overwrite")  # fmt: skip
    assert result.exit_code == 0, result.output
    return out / "perturbed-ud"


def evaluate(folder, model, run):
    return invoke("evaluate", "masked-word", "--dataset", folder, "--model", model, "--out", run)


def scored_words(run) -> set[str]:
    return {w for words in pd.read_parquet(run / "items.parquet")["words"] for w in words}


def sizes(folder) -> list[int]:
    return [p.stat().st_size for p in sorted(folder.rglob("*.parquet"))]


@pytest.mark.parametrize("second", ["the same folder", "another folder of the same name"])
def test_evaluate_scores_the_words_the_folder_holds_now(tmp_path, tiny_bert, second):
    first = build(ud_root(tmp_path / "ud-old", "Mary"), tmp_path / "data")
    assert evaluate(first, tiny_bert, tmp_path / "run-old").exit_code == 0
    assert "Mary" in scored_words(tmp_path / "run-old")
    old_sizes = sizes(first)

    out = tmp_path / ("data" if second == "the same folder" else "other")
    folder = build(ud_root(tmp_path / "ud-new", "Mray"), out)
    assert sizes(folder) == old_sizes  # nothing `datasets` keys on tells the two apart
    result = evaluate(folder, tiny_bert, tmp_path / "run-new")
    assert result.exit_code == 0, result.output
    words = scored_words(tmp_path / "run-new")
    assert "Mray" in words and "Mary" not in words
    manifest = json.loads((tmp_path / "run-new" / "run.json").read_text())
    assert manifest["dataset_content_sha256"] == content_hash(folder)


def test_a_run_does_not_resume_on_parquet_files_edited_behind_the_card(tmp_path, tiny_bert):
    folder = build(ud_root(tmp_path / "ud", "Mary"), tmp_path / "data")
    run = tmp_path / "run"
    assert evaluate(folder, tiny_bert, run).exit_code == 0
    for path in folder.rglob("*.parquet"):  # respelt in the data, the card left as it was
        table = pq.read_table(path)
        field = table.schema.field("words")
        words = [[w.replace("Mary", "Mray") for w in ws] for ws in table["words"].to_pylist()]
        edited = table.set_column(table.schema.get_field_index("words"), field, pa.array(words))
        pq.write_table(edited, path)
    again = evaluate(folder, tiny_bert, run)
    assert again.exit_code == 1, again.output
    assert f"error: {folder}: the Parquet files are not those build.json records" in again.output
    assert "Traceback" not in again.output
    assert "Mary" in scored_words(run)  # the earlier results are left alone
