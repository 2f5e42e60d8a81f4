"""The worker processes of ``evaluate --num-proc`` end when the run's process is killed:
orphans would live on, each holding a copy of the model (on a GPU, its memory)."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from click.testing import CliRunner
from conftest import UD_ROOT
from processes import alive

from perturbed_ud.cli import main

pytestmark = pytest.mark.skipif(
    not Path("/proc/self/task").is_dir(), reason="reads /proc to find the workers"
)


def children(pid: int) -> list[int]:
    """The processes ``pid`` started (Linux lists them per thread)."""
    found = []
    for task in Path(f"/proc/{pid}/task").glob("*"):
        with contextlib.suppress(OSError):  # the thread or process has ended
            found += [int(child) for child in (task / "children").read_text().split()]
    return found


def descendants(pid: int) -> list[int]:
    found, todo = [], children(pid)
    while todo:
        child = todo.pop()
        found.append(child)
        todo += children(child)
    return found


@pytest.fixture(scope="module")
def spud(tmp_path_factory):
    """The whole English sample: two splits of 323 rows, each a map over the workers."""
    out = tmp_path_factory.mktemp("data")
    args = ["build", "spud", "--ud-root", UD_ROOT, "--langs", "en", "--seeds", "1", "--out", out]
    result = CliRunner().invoke(main, [str(a) for a in args], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return out / "spud"


@pytest.mark.subprocess
def test_workers_end_when_the_run_is_killed(spud, tiny_gpt2, tmp_path):
    # the two map workers and the manager were reparented to init and lived on
    args = [sys.executable, "-m", "perturbed_ud.cli", "evaluate", "score", "--dataset", spud,
            "--model", tiny_gpt2, "--num-proc", "2", "--out", tmp_path / "run"]  # fmt: skip
    run = subprocess.Popen([str(a) for a in args], stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL)  # fmt: skip
    workers = []
    try:
        deadline = time.monotonic() + 120
        while len(workers) < 2 and run.poll() is None:
            # a map over a few hundred rows can end within a second: kill as soon as its
            # workers are seen, not after a pause that may outlast them
            assert time.monotonic() < deadline, "no workers started"
            time.sleep(0.05)
            workers = [pid for pid in descendants(run.pid) if alive(pid)]
        assert run.poll() is None, "the run ended before it was killed"
        run.send_signal(signal.SIGKILL)
        run.wait()
        deadline = time.monotonic() + 10
        while [pid for pid in workers if alive(pid)] and time.monotonic() < deadline:
            time.sleep(0.2)
        assert not [pid for pid in workers if alive(pid)], "workers outlived the run"
    finally:
        run.kill()
        run.wait()
        for pid in workers:
            if alive(pid):
                os.kill(pid, signal.SIGKILL)


def test_workers_on_a_gpu_are_spawned_by_the_library_datasets_starts_them_with():
    """A forked worker cannot use CUDA once its parent has; datasets.map starts its workers
    with `multiprocess`, so that is the library whose start method must change."""
    import datasets.arrow_dataset
    import multiprocess

    from perturbed_ud.evaluation.running.runner import worker_start_method

    assert datasets.arrow_dataset.mp is multiprocess
    before = multiprocess.get_start_method(allow_none=True)
    with worker_start_method("cuda:0", 2):
        assert multiprocess.get_start_method() == "spawn"
    assert multiprocess.get_start_method(allow_none=True) == before
    for device, num_proc in [("cpu", 2), ("cuda", 1), ("cuda", None)]:
        with worker_start_method(device, num_proc):  # forking is safe: no change
            assert multiprocess.get_start_method(allow_none=True) == before
