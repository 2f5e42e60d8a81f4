"""One loading path for every model a run reads: the weights' dtype, accelerate's device map
with CPU and disk offload, a PEFT adapter, remote code, an automatic token budget. Tiny
models from tests/data/models and adapters saved here; nothing is downloaded."""

from __future__ import annotations

import json
import shutil

import pandas as pd
import pytest
import torch
from click.testing import CliRunner
from test_minimal_pair import COMMON, SIMPLE

import perturbed_ud
from perturbed_ud.builders.engine import build
from perturbed_ud.cli import main
from perturbed_ud.lm.loading import Loading


@pytest.fixture(scope="module")
def pairs(tmp_path_factory):
    grammars = tmp_path_factory.mktemp("grammars")
    (grammars / "common.avg").write_text(COMMON)
    (grammars / "simple_agrmt.avg").write_text(SIMPLE)
    return build("clams", tmp_path_factory.mktemp("data"), grammar_dir=grammars, lang="en")


def run(pairs, model, out, **settings) -> tuple[pd.DataFrame, dict]:
    results = perturbed_ud.evaluate("minimal-pair", dataset=str(pairs), model=str(model),
                                    out=str(out), kind="causal", **settings)  # fmt: skip
    return pd.read_parquet(out / "pairs.parquet").set_index("pair_id"), results


def test_weights_load_in_the_dtype_asked_for(pairs, tiny_gpt2, tmp_path):
    _, fp32 = run(pairs, tiny_gpt2, tmp_path / "fp32")
    _, bf16 = run(pairs, tiny_gpt2, tmp_path / "bf16", dtype="bf16")
    assert fp32["model"]["dtype"] == fp32["ran"][0]["dtype"] == "float32"  # auto: its own
    assert bf16["model"]["dtype"] == bf16["ran"][0]["dtype"] == "bfloat16"
    assert bf16["signature"] != fp32["signature"]


def test_an_offloaded_model_scores_as_the_whole_one(pairs, tiny_gpt2, tmp_path):
    """accelerate keeps what fits in the CPU memory allowed and reads the rest from disk (a
    safetensors checkpoint in place; other weights through the offload folder)."""
    whole, _ = run(pairs, tiny_gpt2, tmp_path / "whole")
    offload = tmp_path / "offload"
    placed, results = run(pairs, tiny_gpt2, tmp_path / "placed", device_map="auto",
                          max_memory=["cpu=100KB"], offload_folder=str(offload))  # fmt: skip
    assert results["ran"][0]["device_map"] == ["disk"]  # nothing fits in 100 KB
    assert (placed["outcome"] == whole["outcome"]).all()
    for column in ("good_score", "bad_score"):
        assert (placed[column] - whole[column]).abs().max() < 1e-3


def test_an_adapter_changes_the_scores_and_its_files_the_run(pairs, tiny_gpt2, tmp_path):
    from peft import LoraConfig, get_peft_model
    from transformers import AutoModelForCausalLM

    base = AutoModelForCausalLM.from_pretrained(tiny_gpt2)
    lora = LoraConfig(r=4, target_modules=["c_attn"], fan_in_fan_out=True, init_lora_weights=False)
    adapter = tmp_path / "adapter"
    get_peft_model(base, lora).save_pretrained(adapter)
    plain, _ = run(pairs, tiny_gpt2, tmp_path / "plain")
    adapted, results = run(pairs, tiny_gpt2, tmp_path / "adapted", adapter=str(adapter))
    assert (adapted["good_score"] - plain["good_score"]).abs().max() > 1e-3
    assert results["model"]["adapter"] == str(adapter)
    manifest = json.loads((tmp_path / "adapted" / "run.json").read_text())
    assert manifest["model_identity"]["adapter_revision"].startswith("sha256:")
    weights = next(adapter.glob("*.safetensors"))
    weights.write_bytes(weights.read_bytes()[:-4] + b"\0\0\0\0")  # an edited adapter
    again = ["evaluate", "minimal-pair", "--dataset", str(pairs), "--model", str(tiny_gpt2),
             "--kind", "causal", "--adapter", str(adapter),
             "--out", str(tmp_path / "adapted")]  # fmt: skip
    result = CliRunner().invoke(main, again)
    assert result.exit_code == 1 and "holds a run with other settings" in result.output


def test_a_model_with_code_of_its_own_needs_the_flag(tiny_gpt2, tmp_path):
    custom = tmp_path / "custom"
    shutil.copytree(tiny_gpt2, custom)
    config = json.loads((custom / "config.json").read_text())
    config |= {"model_type": "tiny-custom",
               "auto_map": {"AutoConfig": "configuration_custom.CustomConfig",
                            "AutoModelForCausalLM": "modeling_custom.CustomModel"}}  # fmt: skip
    (custom / "config.json").write_text(json.dumps(config))
    (custom / "configuration_custom.py").write_text(
        "from transformers import GPT2Config\n\n\nclass CustomConfig(GPT2Config):\n"
        "    model_type = 'tiny-custom'\n"
    )
    args = ["evaluate", "score", "--dataset", str(tmp_path), "--model", str(custom),
            "--out", str(tmp_path / "run")]  # fmt: skip
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 1 and "--trust-remote-code" in result.output, result.output
    assert len(result.output.strip().splitlines()) == 1


def test_an_automatic_budget_is_recorded_and_changes_nothing(pairs, tiny_gpt2, tmp_path):
    fixed, _ = run(pairs, tiny_gpt2, tmp_path / "fixed", max_tokens=64)
    auto, results = run(pairs, tiny_gpt2, tmp_path / "auto", max_tokens="auto")
    assert results["ran"][0]["max_tokens"] == 16384  # on a CPU: the default
    pd.testing.assert_series_equal(fixed["outcome"], auto["outcome"])
    assert (fixed["good_score"] - auto["good_score"]).abs().max() < 1e-5


def test_loading_options_are_checked_before_anything_loads():
    with pytest.raises(Exception, match="--max-memory 'cpu:20GiB'"):
        Loading(device_map="auto", max_memory=("cpu:20GiB",))
    with pytest.raises(Exception, match="give --device-map"):
        Loading(max_memory=("cpu=20GiB",))
    assert Loading(device_map="auto", max_memory=("cuda:1=20GiB", "cpu=1.5GB")).memory() == {
        1: "20GiB", "cpu": "1.5GB"
    }  # fmt: skip
    assert torch.bfloat16 == Loading("bf16").options(None)["dtype"]
    # a worker or rank given one GPU places its replica there (and on the CPU, and disk)
    sharded = Loading(device_map="auto", max_memory=("cuda:0=1GiB", "cuda:1=2GiB", "cpu=3GiB"))
    assert sharded.options(None, "cuda:1")["max_memory"] == {1: "2GiB", "cpu": "3GiB"}
    assert sharded.options(None, "cuda")["max_memory"] == {0: "1GiB", 1: "2GiB", "cpu": "3GiB"}


@pytest.mark.subprocess
def test_the_loading_benchmark_runs_small(tmp_path):
    import subprocess
    import sys

    from conftest import REPO

    out = tmp_path / "loading.json"
    script = REPO / "scripts" / "bench_loading.py"
    subprocess.run([sys.executable, str(script), "--small", "--pairs", "6", "--json", str(out)],
                   check=True, capture_output=True)  # fmt: skip
    results = json.loads(out.read_text())
    assert results["same_outcomes"] and results["max_abs_delta"] < 1e-3
    assert set(results["runs"]) == {"whole", "offloaded"}
