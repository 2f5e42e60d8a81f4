"""What every benchmark script reports about the machine it ran on."""

from __future__ import annotations

import os
import platform
from importlib.metadata import version


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


def torch_machine(threads: int) -> dict:
    """CPU, threads and library versions of a scoring benchmark."""
    import torch
    import transformers

    return {
        "cpu": cpu_model(),
        "logical_cpus": os.cpu_count(),
        "torch_threads": torch.get_num_threads(),
        "requested_threads": threads,
        "python": platform.python_version(),
        "torch": torch.__version__,
        "transformers": transformers.__version__,
        "minicons": version("minicons"),
    }
