"""The GPU comparison script, run in smoke mode on the CPU: every workload runs against its
peer and reports equal results, and both reports are written."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
from conftest import REPO, UD_ROOT

WORKLOADS = ("pppl", "pppl_l2r", "causal", "minimal_pair", "masked_word", "memory")


@pytest.mark.subprocess
@pytest.mark.peer
def test_smoke_run_checks_every_workload(tmp_path):
    env = dict(os.environ, PYTHONPATH=str(REPO / "tests"))  # the package: as installed
    cmd = [
        sys.executable, str(REPO / "scripts" / "gpu_comparison.py"), "--smoke", "--device", "cpu",
        "--ud-root", str(UD_ROOT), "--out", str(tmp_path),
    ]  # fmt: skip
    done = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=300, cwd=tmp_path)
    assert done.returncode == 0, done.stderr[-3000:]
    report = json.loads((tmp_path / "gpu_comparison.json").read_text(encoding="utf-8"))
    assert (tmp_path / "gpu_comparison.md").is_file()
    assert set(WORKLOADS) <= set(report["workloads"])
    assert report["all_equal"] and report["smoke"]
    assert "--smoke" in report["command"]
    work = report["workloads"]
    for name in ("pppl", "pppl_l2r", "causal"):
        assert work[name]["equal_results"], name
        assert work[name]["max_abs_delta"] <= report["atol"]
        assert all(c["sentences_same_pieces"] == work[name]["sentences"]
                   for c in work[name]["minicons"].values())  # fmt: skip
        assert work[name]["ours"]["fp32"]["padded_tokens"] > 0
        assert work[name]["ours"]["fp32"]["mfu"] > 0
    assert work["masked_word"]["equal_results"]
    assert work["masked_word"]["best_word_same"] == work["masked_word"]["items"]
    pairs = work["minimal_pair"]
    if pairs["peer"].startswith("not run"):
        assert pairs["equal_results"] is None
    else:
        assert pairs["equal_results"] and pairs["max_abs_delta"] <= report["atol"]
    assert work["memory"]["ours_largest_max_tokens"] is not None
    assert work["memory"]["minicons_largest_sentences_per_call"] is not None
