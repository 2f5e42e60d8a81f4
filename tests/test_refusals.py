"""A refused command leaves its output folder as it found it (absent when it was absent, the
same bytes when it held a run), a refusal to resume names the settings that differ, and a run
of fewer configs keeps the results of the others."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner
from conftest import UD_ROOT, tree_digest

import perturbed_ud
from perturbed_ud.cli import main


def cli(*args):
    return CliRunner().invoke(main, [str(a) for a in args])


def refused(result, message: str) -> None:
    """One ``error:`` line that says ``message``, exit status 1."""
    assert result.exit_code == 1, result.output
    assert result.stderr.startswith("error: ") and result.stderr.count("\n") == 1, result.stderr
    assert message in result.stderr, result.stderr


@pytest.fixture(scope="module")
def spud_en(tmp_path_factory):
    """A spud build of five English sentences under two seeds: two configs."""
    out = tmp_path_factory.mktemp("spud_en")
    return perturbed_ud.build(
        "spud", out, ud_root=str(UD_ROOT), langs=["en"], seeds=[1, 2], limit=5
    )


def probe(dataset, model, out, *more):
    return cli("evaluate", "probe", "--dataset", dataset, "--model", model, "--out", out,
               "--probe-seeds", "1", "--train-limit", "20", *more)  # fmt: skip


def score(dataset, model, out, *more):
    return cli("evaluate", "score", "--dataset", dataset, "--model", model, "--out", out, *more)


@pytest.mark.parametrize(
    ("more", "message"),
    [
        (["--ud-root", "{tmp}/nothere"], "is not a folder"),
        (["--ud-root", UD_ROOT, "--train-split", "dev", "--layers", "99"],
         "layers [99] do not exist"),
        (["--ud-root", UD_ROOT], "has no *-ud-train.conllu file: add --train-split dev"),
    ],
)  # fmt: skip
def test_a_refused_probe_run_leaves_no_folder(spud_en, tiny_bert, tmp_path, more, message):
    out = tmp_path / "runs" / "probe"  # its parent is created on the way, and taken back
    more = [str(m).format(tmp=tmp_path) for m in more]
    refused(probe(spud_en, tiny_bert, out, *more), message)
    assert not (tmp_path / "runs").exists()


@pytest.mark.parametrize("hub", ["dataset", "model"])
def test_an_offline_hub_id_leaves_no_folder(spud_en, tiny_gpt2, tmp_path, hub):
    names = {"dataset": spud_en, "model": tiny_gpt2} | {hub: "nobody/nothing"}
    refused(score(names["dataset"], names["model"], tmp_path / "run"), "nobody/nothing")
    assert not (tmp_path / "run").exists()


def test_a_build_of_no_language_leaves_no_folder(tmp_path):
    refused(cli("build", "clams", "--langs", "xx", "--out", tmp_path / "out"), "no grammars for xx")
    assert not (tmp_path / "out").exists()


@pytest.fixture(scope="module")
def finished(spud_en, tiny_gpt2, tmp_path_factory):
    """A finished score run of the first config, five rows of each split."""
    run = tmp_path_factory.mktemp("finished") / "run"
    result = score(spud_en, tiny_gpt2, run, "--config", "en_seed1", "--limit", "5")
    assert result.exit_code == 0, result.output
    return run


def copy_of(run: Path, tmp_path: Path) -> Path:
    return Path(shutil.copytree(run, tmp_path / "run"))


def test_a_refusal_in_a_finished_run_changes_none_of_its_bytes(
    finished, spud_en, tiny_gpt2, tiny_bert, tmp_path
):
    run = copy_of(finished, tmp_path)
    before = tree_digest(run)
    refused(score("nobody/nothing", tiny_gpt2, run), "nobody/nothing")
    refused(probe(spud_en, tiny_bert, run, "--ud-root", UD_ROOT, "--train-split", "dev",
                  "--layers", "99", "--overwrite"), "layers [99] do not exist")  # fmt: skip
    refused(score(spud_en, tiny_gpt2, run, "--config", "en_seed1", "--limit", "3"),
            "holds a run with other settings")  # fmt: skip
    assert tree_digest(run) == before


def test_a_refusal_to_resume_names_only_the_settings_that_differ(finished, spud_en, tiny_gpt2):
    result = score(spud_en, tiny_gpt2, finished, "--config", "en_seed1", "--limit", "3",
                   "--bos", "none")  # fmt: skip
    refused(result, "(--limit: 5 → 3; --bos: prepend → none): add --overwrite")


def test_a_run_of_other_configs_adds_to_the_results_of_the_earlier(
    finished, spud_en, tiny_gpt2, tmp_path
):
    run = copy_of(finished, tmp_path)
    result = score(spud_en, tiny_gpt2, run, "--config", "en_seed2", "--limit", "5")
    assert result.exit_code == 0, result.output
    assert f"keeping the results of en_seed1 from the earlier run in {run}" in result.stderr
    results = json.loads((run / "results.json").read_text())
    assert results["dataset"]["configs"] == ["en_seed2", "en_seed1"]
    scored = {row["config"] for row in results["metrics"]["nonce_ratio"]}
    assert scored == {"en_seed1", "en_seed2"}
