"""Benchmark of model loading: the peak memory of one causal LM read in fp32 and in its own
bf16 (``--dtype fp32`` against ``--dtype auto``), and a minimal-pair run with the model
offloaded by accelerate (``--device-map auto --max-memory cpu=… --offload-folder …``) against
the same run with the model whole: time, peak memory, and the largest score difference. A
load's peak memory is taken after one sentence is scored, when every weight has been read.

The model is GPT-2-shaped (24 layers, 1024 wide: about 300M parameters), built from a config
with random weights and saved in bf16, with the tokenizer of tests/data/models/trained-gpt2;
nothing is downloaded. Each load and each run is a fresh process; peak memory is its maximum
resident set (getrusage).

    python scripts/bench_loading.py               # ~300M parameters, a few minutes
    python scripts/bench_loading.py --small       # a tiny model, seconds (the tests run it)
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pandas as pd

ROOT = Path(__file__).resolve().parent.parent
TOKENIZER = ROOT / "tests" / "data" / "models" / "trained-gpt2"
# A load, then one sentence scored, so that every weight is read (a checkpoint that is mapped
# into memory is paged in as its weights are first used).
LOAD = """
import sys
from perturbed_ud.evaluation.measures.sentence_scores import causal_log_likelihoods
from perturbed_ud.lm.batching import Batcher
from perturbed_ud.lm.loading import Loading
from perturbed_ud.lm.models import load_causal_lm
lm = load_causal_lm(sys.argv[1], "cpu", Loading(sys.argv[2]))
causal_log_likelihoods(Batcher(lm), [["the", "cats", "sleep"]])
status = dict(line.split(":", 1) for line in open("/proc/self/status"))
print(int(status["VmHWM"].split()[0]))  # this process's own peak, in kB
"""


def make_model(folder: Path, layers: int, width: int) -> int:
    """A GPT-2-shaped causal LM of random weights saved in bf16; its parameter count."""
    import torch
    from transformers import AutoTokenizer, GPT2Config, GPT2LMHeadModel

    tokenizer = AutoTokenizer.from_pretrained(TOKENIZER)
    config = GPT2Config(n_layer=layers, n_embd=width, n_head=max(1, width // 64),
                        vocab_size=len(tokenizer), n_positions=256,
                        bos_token_id=tokenizer.bos_token_id,
                        eos_token_id=tokenizer.eos_token_id)  # fmt: skip
    torch.manual_seed(0)
    model = GPT2LMHeadModel(config).to(torch.bfloat16)
    model.save_pretrained(folder)
    tokenizer.save_pretrained(folder)
    return sum(p.numel() for p in model.parameters())


def peak_load_mib(model: Path, dtype: str) -> float:
    out = subprocess.run([sys.executable, "-c", LOAD, str(model), dtype], check=True,
                         capture_output=True, text=True).stdout  # fmt: skip
    return int(out.split()[-1]) / 1024


# Runs a command and prints its wall seconds and peak resident MiB: a process of its own per
# command, as RUSAGE_CHILDREN keeps the largest child a process ever had.
MEASURE = """
import resource, subprocess, sys, time
start = time.perf_counter()
subprocess.run(sys.argv[1:], check=True, capture_output=True)
print(time.perf_counter() - start, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
"""


def measured(command: list[str]) -> tuple[float, float]:
    """Wall seconds and peak resident MiB of ``command``."""
    out = subprocess.run([sys.executable, "-c", MEASURE, *command], check=True,
                         capture_output=True, text=True).stdout.split()  # fmt: skip
    return float(out[0]), int(out[1]) / 1024


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--small", action="store_true", help="A tiny model: seconds.")
    parser.add_argument("--pairs", type=int, default=40, help="Minimal pairs per run.")
    parser.add_argument("--json", type=Path, help="Write the results here.")
    parser.add_argument("--make-model", nargs=3, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.make_model:
        folder, layers, width = args.make_model
        print(make_model(Path(folder), int(layers), int(width)))
        return
    layers, width = (2, 64) if args.small else (24, 1024)
    work = Path(tempfile.mkdtemp(prefix="bench-loading-"))
    try:
        model = work / "model"
        # made in a process of its own: a child's peak memory counts from its parent's size
        made = subprocess.run([sys.executable, __file__, "--make-model", str(model),
                               str(layers), str(width)], check=True, capture_output=True,
                              text=True)  # fmt: skip
        parameters = int(made.stdout.split()[-1])
        size_mib = sum(f.stat().st_size for f in model.glob("*.safetensors")) / 2**20
        loads = {dtype: peak_load_mib(model, dtype) for dtype in ("fp32", "auto")}
        command = [sys.executable, "-m", "perturbed_ud"]
        subprocess.run([*command, "build", "clams", "--langs", "en", "--out", str(work / "data")],
                       check=True, capture_output=True)  # fmt: skip
        run = [*command, "evaluate", "minimal-pair", "--dataset", str(work / "data" / "clams"),
               "--config", "en", "--splits", "simple_agrmt", "--limit", str(args.pairs),
               "--model", str(model), "--device", "cpu"]  # fmt: skip
        offload = ["--device-map", "auto", "--max-memory", f"cpu={size_mib / 2:.0f}MiB",
                   "--offload-folder", str(work / "offload")]  # fmt: skip
        runs = {
            "whole": measured([*run, "--out", str(work / "whole")]),
            "offloaded": measured([*run, *offload, "--out", str(work / "offloaded")]),
        }
        whole = pd.read_parquet(work / "whole" / "pairs.parquet").set_index("pair_id")
        placed = pd.read_parquet(work / "offloaded" / "pairs.parquet").set_index("pair_id")
        delta = max((whole[c] - placed[c]).abs().max() for c in ("good_score", "bad_score"))
        same = bool((whole["outcome"] == placed["outcome"]).all())
    finally:
        shutil.rmtree(work, ignore_errors=True)
    results = {
        "parameters": parameters, "checkpoint_mib": size_mib,
        "peak_load_mib": loads, "runs": {k: {"wall_s": w, "peak_mib": m}
                                          for k, (w, m) in runs.items()},
        "pairs": args.pairs, "same_outcomes": same, "max_abs_delta": float(delta),
    }  # fmt: skip
    print(f"{parameters:,} parameters, checkpoint {size_mib:,.1f} MiB (bf16)")
    print(f"peak RSS of a load: fp32 {loads['fp32']:,.0f} MiB, auto (bf16) {loads['auto']:,.0f}")
    for name, (wall, peak) in runs.items():
        print(f"{name}: {wall:,.1f} s, peak {peak:,.0f} MiB")
    print(f"same outcomes: {same}; max |Δ score| {delta:.2e}")
    if args.json:
        args.json.write_text(json.dumps(results, indent=2) + "\n")


if __name__ == "__main__":
    main()
