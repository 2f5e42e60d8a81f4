"""A run is bound to the code that scored it and to the chunks its plan gives: a resume after
a task's version changed is refused naming it, a resume under another batch size continues
with identical results, and a chunk that is not the one the plan gives (another split's rows,
a table of other columns) is scored again, not read."""

from __future__ import annotations

import json
import shutil

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
from click.testing import CliRunner

from perturbed_ud.cli import main
from perturbed_ud.evaluation.tasks.score import Score


def evaluate(dataset, model, run, *more):
    args = ["evaluate", "score", "--dataset", str(dataset), "--model", str(model),
            "--out", str(run), "--kind", "causal", *more]  # fmt: skip
    return CliRunner().invoke(main, args)


def scores(run) -> pd.DataFrame:
    table = pd.read_parquet(run / "scores.parquet")
    return table.sort_values(list(table.columns[:3])).reset_index(drop=True)


def test_a_resume_after_the_task_changed_is_refused_naming_its_version(
    spud_en5, tiny_gpt2, tmp_path, monkeypatch
):
    run = tmp_path / "run"
    assert evaluate(spud_en5, tiny_gpt2, run).exit_code == 0
    header = json.loads((run / "run.json").read_text())
    assert header["task_version"] == Score.version
    assert header["signature"].startswith(f"score@{Score.version}|toolkit:")
    monkeypatch.setattr(Score, "version", "9.0.0")
    again = evaluate(spud_en5, tiny_gpt2, run)
    assert again.exit_code == 1
    assert f"the task version: score@{header['task_version']} → score@9.0.0" in again.output


def test_a_resume_under_another_token_budget_continues_with_the_same_scores(
    spud_en5, tiny_gpt2, tmp_path
):
    clean = tmp_path / "clean"
    assert evaluate(spud_en5, tiny_gpt2, clean).exit_code == 0
    run = tmp_path / "run"
    assert evaluate(spud_en5, tiny_gpt2, run, "--max-tokens", "64").exit_code == 0
    chunk = sorted((run / "chunks").rglob("*.parquet"))[0]
    chunk.unlink()  # one chunk to score again, under another budget
    again = evaluate(spud_en5, tiny_gpt2, run, "--max-tokens", "4096")
    assert again.exit_code == 0, again.output
    assert "chunks done" in again.output
    pd.testing.assert_frame_equal(scores(run), scores(clean))
    assert json.loads((run / "run.json").read_text())["settings"]["max_tokens"] == 4096


def test_a_chunk_that_is_not_the_plans_is_scored_again(spud_en5, tiny_gpt2, tmp_path):
    clean = tmp_path / "clean"
    assert evaluate(spud_en5, tiny_gpt2, clean).exit_code == 0
    for name, replace in [
        ("foreign", lambda first, other: pa.table({"x": [1, 2]})),
        ("other_split", lambda first, other: pq.read_table(other).slice(0, 2)),
    ]:
        run = tmp_path / name
        shutil.copytree(clean, run)
        first, other = sorted((run / "chunks").rglob("*.parquet"))[:2]
        pq.write_table(replace(first, other), first)
        again = evaluate(spud_en5, tiny_gpt2, run)
        assert again.exit_code == 0, again.output
        assert "of its split: scoring it again" in again.output
        pd.testing.assert_frame_equal(scores(run), scores(clean))
