"""The evaluation-task contract: a task is one module plus its registration.

The toy task of ``toy_task.py`` is one short module. Registered, it runs through the Python
API and the `evaluate` command line (options made from its settings, help, input checks), the
shared runner (a launch of two ranks included) and `report`, like the tasks shipped with
perturbed-ud; every registered task meets the same contract.
"""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest
from click.testing import CliRunner
from conftest import UD_ROOT
from toy_task import ToyCount

import perturbed_ud
from perturbed_ud.api import run_evaluation
from perturbed_ud.cli import command_options, main
from perturbed_ud.errors import InputError
from perturbed_ud.evaluation.running.task import EvaluationTask, task_families
from perturbed_ud.registry import FAMILIES, TASKS
from perturbed_ud.releases import parse_version
from perturbed_ud.settings import documented_fields


@pytest.fixture(autouse=True)
def _registered():
    """The toy task is registered for each test here, and for no test elsewhere (conftest
    restores the registries after every test)."""
    TASKS.register("toy.count.v1")(ToyCount)


@pytest.fixture(scope="module")
def spud(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("data")
    return perturbed_ud.build("spud", out, ud_root=UD_ROOT, langs=["en"], seeds=[1], limit=4)


def cli(*args):
    return CliRunner().invoke(main, [str(a) for a in args])


def test_a_task_defined_here_runs_through_the_cli_and_the_api(spud, tiny_bert, tmp_path):
    listed = cli("evaluate", "--help")
    assert "toy-count" in listed.output and "minimal-pair" in listed.output
    own = cli("evaluate", "toy-count", "--help")
    assert "--longer-than INTEGER RANGE" in own.output and "[default: 3;" in own.output
    assert "--lowercase" in own.output and "how many words of each sentence" in own.output

    ran = cli("evaluate", "toy-count", "--dataset", spud, "--model", tiny_bert,
              "--out", tmp_path / "cli", "--longer-than", "5")  # fmt: skip
    assert ran.exit_code == 0, ran.output
    results = perturbed_ud.evaluate("toy-count", dataset=spud, model=tiny_bert,
                                    out=tmp_path / "api", longer_than=5)  # fmt: skip
    on_disk = json.loads((tmp_path / "cli" / "results.json").read_text())
    assert results["metrics"] == on_disk["metrics"] and results["metrics"]["long_words"] > 0
    assert results["settings"]["longer_than"] == 5 and results["counts"]["rows"] == 8

    page = cli("report", tmp_path / "cli", tmp_path / "api", "--out", tmp_path / "page.html")
    assert page.exit_code == 0, page.output
    html = (tmp_path / "page.html").read_text(encoding="utf-8")
    assert "toy-count · long_share" in html and "Wilson 95%" in html
    nonce = next(r for r in results["metrics"]["long_share"] if r["split"].endswith("nonce"))
    assert html.count(f"{nonce['long_share']:.3f}") >= 2  # both runs' values, side by side


def test_settings_are_checked_where_they_are_declared(spud, tiny_bert, tmp_path):
    common = {"dataset": spud, "model": tiny_bert, "out": tmp_path / "run"}
    with pytest.raises(InputError, match="--longer-than: -1 is not in the range x>=0"):
        perturbed_ud.evaluate("toy-count", longer_than=-1, **common)  # the CLI's words
    with pytest.raises(InputError, match="toy-count has no option longest; it has: .*longer"):
        perturbed_ud.evaluate("toy-count", longest=1, **common)
    refused = cli("evaluate", "toy-count", "--dataset", spud, "--model", tiny_bert,
                  "--out", tmp_path / "c", "--longer-than", "-1")  # fmt: skip
    assert refused.exit_code == 2 and "-1 is not in the range x>=0" in refused.output
    assert not (tmp_path / "run").exists() and not (tmp_path / "c").exists()


def test_a_task_reads_the_families_it_names_and_those_naming_it(tmp_path, tiny_bert):
    assert task_families("toy-count") == ["spud"]
    assert task_families("probe") == ["spud", "substitution"]
    clams = perturbed_ud.build("clams", tmp_path, langs=["en"])
    with pytest.raises(InputError, match="`evaluate toy-count` does not read it; use "
                                         "`evaluate minimal-pair`"):  # fmt: skip
        perturbed_ud.evaluate("toy-count", dataset=clams, model=tiny_bert, out=tmp_path / "r")


def test_the_toy_task_runs_under_a_launch_of_two_ranks(spud, tiny_bert, tmp_path, monkeypatch):
    """Each rank scores its share of the chunks; only rank 0 writes the outputs."""
    run, whole = tmp_path / "launched", tmp_path / "whole"
    for rank in ("1", "0"):  # rank 0 finds rank 1's chunks and writes the results
        for name, value in {"RANK": rank, "WORLD_SIZE": "2", "LOCAL_RANK": rank}.items():
            monkeypatch.setenv(name, value)
        run_evaluation("toy-count", dataset=spud, model=tiny_bert, out=run)
        assert (run / "results.json").exists() == (rank == "0")
    for name in ("RANK", "WORLD_SIZE", "LOCAL_RANK"):
        monkeypatch.delenv(name)
    alone = perturbed_ud.evaluate("toy-count", dataset=spud, model=tiny_bert, out=whole)
    launched = json.loads((run / "results.json").read_text())
    assert launched["metrics"] == alone["metrics"] and launched["counts"] == alone["counts"]


def test_every_registered_task_meets_the_contract():
    """Every task (the toy one too): documented settings with usable defaults, options made
    from them, columns it reads, and at least one family whose datasets it reads."""
    names = TASKS.short_names()
    assert {"masked-word", "minimal-pair", "score", "distance", "probe", "classify",
            "toy-count"} <= set(names)  # fmt: skip
    for name in names:
        task = TASKS.get(name)
        assert task.__doc__ and task.name == name, name
        settings = task.settings_class()
        assert dataclasses.is_dataclass(settings), name
        fields = documented_fields(task.settings_class)
        assert {f.name for f in fields} == {f.name for f in dataclasses.fields(settings)}, name
        options = command_options(task.settings_class)
        assert [o.name for o in options] == [f.name for f in fields], name
        assert task.columns(settings), name
        assert issubclass(task, EvaluationTask) and callable(task.score), name
        assert parse_version(task.version), name
        own = getattr(task.outputs, "__func__", task.outputs)  # a classmethod or a function
        assert own is not EvaluationTask.outputs.__func__, name
        assert task_families(name), name
        assert all(FAMILIES.find(f) for f in task_families(name)), name
