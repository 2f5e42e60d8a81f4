"""A launch of several processes (torchrun, accelerate: RANK, WORLD_SIZE, LOCAL_RANK) splits a
run's chunks between ranks, and rank 0 merges them. Variables no launcher sets (a rank outside
the world, a world without a launch, left over from another shell) are refused before
anything is written, and rank 0 waits for the other ranks' chunks for a bounded time only."""

from __future__ import annotations

import json
import time

import pytest
from click.testing import CliRunner

from perturbed_ud.cli import main
from perturbed_ud.errors import InputError
from perturbed_ud.evaluation.running.runner import launcher_rank

LAUNCH_VARIABLES = ("RANK", "WORLD_SIZE", "LOCAL_RANK")


@pytest.fixture(scope="module")
def spud(spud_en5):
    return spud_en5


@pytest.fixture
def launch(monkeypatch):
    """Sets the launch variables given (and unsets the others) for the test."""
    for name in LAUNCH_VARIABLES:
        monkeypatch.delenv(name, raising=False)

    def set_variables(**variables):
        for name in LAUNCH_VARIABLES:
            monkeypatch.delenv(name, raising=False)
        for name, value in variables.items():
            monkeypatch.setenv(name, value)

    return set_variables


def score(spud, model, out, *extra):
    args = ["evaluate", "score", "--dataset", spud, "--model", model, "--out", out, *extra]
    return CliRunner().invoke(main, [str(a) for a in args], catch_exceptions=False)


def one_error(result) -> str:
    assert result.exit_code == 1, result.output
    errors = [line for line in result.output.splitlines() if line.startswith("error:")]
    assert len(errors) == 1 and "Traceback" not in result.output, result.output
    return errors[0]


@pytest.mark.parametrize(
    ("variables", "message"),
    [({"RANK": "1", "WORLD_SIZE": "1"}, "RANK=1 is not below WORLD_SIZE=1"),
     ({"RANK": "1"}, "RANK=1 is not below WORLD_SIZE=1"),
     ({"RANK": "-1", "WORLD_SIZE": "2", "LOCAL_RANK": "0"}, "RANK='-1' is not"),
     ({"RANK": "one", "WORLD_SIZE": "2", "LOCAL_RANK": "0"}, "RANK='one' is not"),
     ({"RANK": "0", "WORLD_SIZE": "0"}, "WORLD_SIZE=0 is not"),
     ({"RANK": "0", "WORLD_SIZE": "2.0", "LOCAL_RANK": "0"}, "WORLD_SIZE='2.0' is not"),
     ({"RANK": "0", "WORLD_SIZE": "2", "LOCAL_RANK": "x"}, "LOCAL_RANK='x' is not"),
     ({"RANK": "0", "WORLD_SIZE": "2"}, "WORLD_SIZE=2 without LOCAL_RANK")],
)  # fmt: skip
def test_launch_variables_no_launcher_sets_are_refused(launch, variables, message):
    launch(**variables)
    with pytest.raises(InputError, match=message):
        launcher_rank()


def test_no_launch_is_one_process_and_a_launch_is_read(launch):
    assert launcher_rank() == (0, 1)
    launch(RANK="1", WORLD_SIZE="2", LOCAL_RANK="1")
    assert launcher_rank() == (1, 2)


def test_a_rank_outside_the_world_writes_nothing(launch, spud, tiny_gpt2, tmp_path):
    # it scored one of the two chunks, said "wrote" and exited 0 without results.json
    launch(RANK="1", WORLD_SIZE="1")
    error = one_error(score(spud, tiny_gpt2, tmp_path / "run"))
    assert "RANK=1 is not below WORLD_SIZE=1" in error and "unset RANK" in error
    assert not (tmp_path / "run").exists()


def test_rank_0_waits_for_the_other_ranks_for_a_bounded_time_then_resumes(
    launch, spud, tiny_gpt2, tmp_path
):
    # rank 0 waited for rank 1's chunk forever
    run = tmp_path / "run"
    launch(RANK="0", WORLD_SIZE="2", LOCAL_RANK="0")
    started = time.monotonic()
    error = one_error(score(spud, tiny_gpt2, run, "--rank-timeout", "2"))
    assert time.monotonic() - started < 60
    assert "waited 2 s for 1 chunk of the other ranks" in error
    assert "chunks/en_seed1/nonce/00000.parquet" in error
    assert "launch all ranks again to resume" in error
    assert not (run / "results.json").exists()
    launch(RANK="1", WORLD_SIZE="2", LOCAL_RANK="1")  # the missing rank, then rank 0 again
    assert score(spud, tiny_gpt2, run).exit_code == 0
    launch(RANK="0", WORLD_SIZE="2", LOCAL_RANK="0")
    result = score(spud, tiny_gpt2, run, "--rank-timeout", "2")
    assert result.exit_code == 0, result.output
    assert json.loads((run / "results.json").read_text())["counts"]
