"""Errors the user can fix end a command as one ``error:`` line and exit status 1; any other
exception is a bug and keeps its traceback."""

from __future__ import annotations

import pickle

import pytest
from click.testing import CliRunner

import perturbed_ud.builders.engine as engine
from perturbed_ud import errors
from perturbed_ud.cli import main
from perturbed_ud.errors import CoNLLUError, GrammarError, PerturbedUDError


def cli(*args):
    return CliRunner().invoke(main, [str(a) for a in args])


def build(out, *args):
    return cli("build", "perturbed-ud", "--langs", "en", "--seeds", "1", "--scrambles", "part",
               "--out", out, *args)  # fmt: skip


def test_an_internal_bug_keeps_its_traceback(tmp_path, monkeypatch):
    def bug(*args, **kwargs):
        raise ValueError("bug")

    monkeypatch.setattr(engine, "build", bug)
    result = build(tmp_path, "--limit", "5")
    assert type(result.exception) is ValueError and str(result.exception) == "bug"
    assert "error:" not in result.output
    args = ["build", "perturbed-ud", "--langs", "en", "--out", str(tmp_path)]
    with pytest.raises(ValueError, match="^bug$"):
        CliRunner().invoke(main, args, catch_exceptions=False)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--limit", "0"], "limit and sample sizes must be positive"),
        (["--split", "dev"], "the PUD treebanks have only a test split, not 'dev'"),
        (["--split", "nope"], "unknown split 'nope'; choose one of train, dev, test"),
        (["--part-fraction", "2"], "part fraction must be in (0, 1], got 2.0"),
    ],
)
def test_a_user_error_is_one_line(tmp_path, args, message):
    result = build(tmp_path, *args)
    assert result.exit_code == 1 and type(result.exception) is SystemExit
    assert result.stderr.startswith(f"error: {message}") and result.stderr.count("\n") == 1


def test_inputs_the_libraries_cannot_load_are_user_errors(tmp_path):
    assert build(tmp_path, "--limit", "5").exit_code == 0
    data, empty = tmp_path / "perturbed-ud", tmp_path / "empty"
    empty.mkdir()
    for args, message in [
        (["--dataset", empty, "--model", empty], f"error: cannot load dataset {empty}: "),
        (["--dataset", data, "--model", empty], f"error: cannot load {empty}: "),
    ]:
        result = cli("evaluate", "masked-word", *args, "--out", tmp_path / "run")
        assert result.exit_code == 1 and result.stderr.startswith(message), result.output
    items = tmp_path / "items.jsonl"
    items.write_text("{not json\n", encoding="utf-8")
    result = cli("summarize", items, "--out", tmp_path / "summary")
    assert result.exit_code == 1 and result.stderr.startswith(f"error: {items}: cannot read: ")


def test_project_errors_are_not_builtin_errors():
    found = [
        value
        for value in vars(errors).values()
        if isinstance(value, type)
        and issubclass(value, Exception)
        and not issubclass(value, Warning)  # warnings stop nothing
    ]
    assert len(found) > 5
    for error in found:
        assert issubclass(error, PerturbedUDError), error
        assert not issubclass(error, (ValueError, OSError, RuntimeError)), error


def test_located_errors_cross_from_worker_processes_intact():
    for error in (CoNLLUError("a.conllu", 3, "bad HEAD"), GrammarError("g.avg", None, "bad")):
        copy = pickle.loads(pickle.dumps(error))
        assert type(copy) is type(error) and str(copy) == str(error)
        assert (copy.path, copy.line, copy.message) == (error.path, error.line, error.message)
