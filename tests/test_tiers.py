"""The suite's tiers and CI's no-skip rule (conftest.py, pyproject.toml), on a small suite of
their own run by a fresh pytest: tests of the slow kinds are left out of the fast tier, and
under PERTURBED_UD_NO_SKIPS=1 a skipped test, or a module skipped as a whole, fails the run,
unless the skip is for what the machine itself cannot do."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tomllib

import pytest
from conftest import REPO

KINDS = ("subprocess", "peer", "browser", "full_build")

SUITE = """\
import pytest

def test_plain():
    pass

@pytest.mark.skipif(True, reason="an input is missing")
def test_skipped():
    pass

@pytest.mark.skipif(True, reason="mounting a small file system needs root on Linux")
def test_the_machine_cannot():
    pass
""" + "".join(f"\n@pytest.mark.{kind}\ndef test_{kind}():\n    pass\n" for kind in KINDS)

SKIPPED_MODULE = """\
import pytest

pytest.importorskip("a_module_nobody_installed")

def test_never_collected():
    pass
"""


@pytest.fixture
def suite(tmp_path):
    """The repository's conftest.py and pytest settings beside a suite of tiny tests."""
    shutil.copyfile(REPO / "tests" / "conftest.py", tmp_path / "conftest.py")
    options = tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["pytest"]
    ini = options["ini_options"]
    markers = "".join(f"\n    {marker}" for marker in ini["markers"])
    (tmp_path / "pytest.ini").write_text(
        f"[pytest]\naddopts = {ini['addopts']}\nmarkers ={markers}\n", encoding="utf-8"
    )
    (tmp_path / "test_suite.py").write_text(SUITE, encoding="utf-8")
    return tmp_path


def pytest_run(folder, *args, no_skips: bool = False) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k != "PERTURBED_UD_NO_SKIPS"}
    if no_skips:
        env["PERTURBED_UD_NO_SKIPS"] = "1"
    # Plugins these tiny suites do not use stay out: loading them is most of a run's time.
    plugins = ["-p", "no:cacheprovider", "-p", "no:hypothesispytest", "-p", "no:anyio"]
    command = [sys.executable, "-m", "pytest", *plugins, *args]
    return subprocess.run(command, cwd=folder, env=env, capture_output=True, text=True)


@pytest.mark.subprocess
def test_the_fast_tier_leaves_out_every_slow_kind(suite):
    fast = pytest_run(suite, "--collect-only", "-m", "not slow")
    assert fast.returncode == 0, fast.stdout + fast.stderr
    collected = {line for line in fast.stdout.splitlines() if line.startswith("test_suite.py")}
    assert collected == {
        "test_suite.py::test_plain", "test_suite.py::test_skipped",
        "test_suite.py::test_the_machine_cannot",
    }  # fmt: skip
    slow = pytest_run(suite, "--collect-only", "-m", "slow")
    collected = {line for line in slow.stdout.splitlines() if line.startswith("test_suite.py")}
    assert collected == {f"test_suite.py::test_{kind}" for kind in KINDS}


@pytest.mark.subprocess
def test_a_skip_fails_the_run_only_under_the_no_skip_rule(suite):
    done = pytest_run(suite)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "5 passed, 2 skipped" in done.stdout
    done = pytest_run(suite, no_skips=True)
    assert done.returncode == 1
    assert "skipped under PERTURBED_UD_NO_SKIPS=1: an input is missing" in done.stdout
    # what the machine cannot do (mount, as here) is no missing input: it stays a skip
    assert "5 passed, 1 skipped, 1 error" in done.stdout

    (suite / "test_suite.py").write_text("def test_plain():\n    pass\n", encoding="utf-8")
    (suite / "test_skipped_module.py").write_text(SKIPPED_MODULE, encoding="utf-8")
    assert pytest_run(suite).returncode == 0
    done = pytest_run(suite, no_skips=True)
    assert done.returncode == 1 and "1 passed" in done.stdout
    assert "FAILED (skipped under PERTURBED_UD_NO_SKIPS=1) test_skipped_module.py" in done.stdout
    (suite / "test_suite.py").unlink()  # nothing else collected: still a failure
    assert pytest_run(suite, no_skips=True).returncode == 1


@pytest.mark.subprocess
def test_a_misspelt_marker_is_an_error(suite):
    (suite / "test_suite.py").write_text(
        "import pytest\n\n@pytest.mark.subproces\ndef test_typo():\n    pass\n", encoding="utf-8"
    )
    done = pytest_run(suite)
    assert done.returncode != 0 and "'subproces' not found in `markers`" in done.stdout
