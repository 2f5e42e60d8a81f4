"""What every benchmark script reports about the machine it ran on."""

from __future__ import annotations

import argparse
import os
import platform
import time
from importlib.metadata import version
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[1]


def benchmark_parser(doc: str) -> argparse.ArgumentParser:
    """A parser described by the script docstring's first paragraph, with ``--ud-root``."""
    parser = argparse.ArgumentParser(description=doc.split("\n\n")[0])
    parser.add_argument(
        "--ud-root",
        type=Path,
        default=REPO_ROOT.parent / "shared" / "ud",
        help="folder of UD_* treebanks (default: ../shared/ud beside the repository)",
    )
    return parser


def cpu_model() -> str:
    """The CPU's model name from /proc/cpuinfo, or what the platform says."""
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def torch_machine(threads: int, device: str = "cpu") -> dict:
    """CPU, GPU, threads and library versions of a scoring benchmark."""
    import torch
    import transformers

    gpu = torch.cuda.get_device_name(0) if device.startswith("cuda") else None
    return {
        "device": device,
        "gpu": gpu,
        "cpu": cpu_model(),
        "logical_cpus": os.cpu_count(),
        "torch_threads": torch.get_num_threads(),
        "requested_threads": threads,
        "python": platform.python_version(),
        "torch": torch.__version__,
        "transformers": transformers.__version__,
        "minicons": version("minicons"),
    }


REPEATS = 3  # measured runs after one warm-up; tables report the median


def measure(fn):
    """(result of the warm-up run, timings of the measured runs in seconds)."""
    result = fn()
    times = []
    for _ in range(REPEATS):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return result, times


def proc_status(key: str) -> int | None:
    """A ``/proc/self/status`` field in KiB (VmRSS, VmHWM), or None off Linux."""
    try:
        with open("/proc/self/status", encoding="ascii") as f:
            for line in f:
                if line.startswith(key + ":"):
                    return int(line.split()[1])
    except OSError:
        return None
    return None


def minicons_peer(cls, model: str, device: str = "cpu"):
    """A minicons scorer; minicons 0.3.39 calls batch_encode_plus, which transformers 5
    removed, so it is routed to the tokenizer's __call__."""
    scorer = cls(str(model), device)
    type(scorer.tokenizer).batch_encode_plus = lambda self, *a, **k: self(*a, **k)
    return scorer
