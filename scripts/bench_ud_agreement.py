"""Benchmark of a ud_agreement build of every language under a UD root (``--langs all``:
every treebank, every split): time, sentences read per second, pairs and peak memory, in a
fresh process pinned to one core, and with two worker processes on two cores.

    python scripts/bench_ud_agreement.py                  # ../shared/ud, about a minute
    python scripts/bench_ud_agreement.py --json agreement.json
"""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from benchlib import benchmark_parser, cpu_model


def run(ud_root: Path, cores: list[int]) -> dict:
    """One build in a fresh process on ``cores``, with a worker per core."""
    out = Path(tempfile.mkdtemp(prefix="bench-agreement-")) / "out"
    command = [sys.executable, "-m", "perturbed_ud.cli", "build", "ud_agreement", "--ud-root",
               str(ud_root), "--langs", "all", "--workers", str(len(cores)),
               "--out", str(out)]  # fmt: skip
    start = time.perf_counter()
    pin = ["taskset", "-c", ",".join(map(str, cores))]
    subprocess.run([*pin, *command], check=True, capture_output=True)
    wall = time.perf_counter() - start
    # the largest of the process and its workers
    peak_mib = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    manifest = json.loads((out / "ud_agreement" / "build.json").read_text())
    configs = manifest["configs"]
    sentences = sum(c["sentences"] for c in configs.values())
    return {"cores": len(cores), "wall_s": round(wall, 2), "sentences": sentences,
            "sentences_per_s": round(sentences / wall), "languages": len(configs),
            "without_pairs": sorted(manifest["without_pairs"]),
            "pairs": sum(sum(c["splits"].values()) for c in configs.values()),
            "pairs_by_language": {k: sum(c["splits"].values()) for k, c in configs.items()},
            "peak_rss_mib": round(peak_mib)}  # fmt: skip


def main() -> None:
    parser = benchmark_parser(__doc__)
    parser.add_argument("--json", type=Path, help="Write the results here.")
    args = parser.parse_args()
    cores = sorted(os.sched_getaffinity(0))
    result = {"cpu": cpu_model(), "runs": [run(args.ud_root, cores[:1])]}
    if len(cores) > 1:
        result["runs"].append(run(args.ud_root, cores[:2]))
    print(json.dumps(result, indent=1))
    if args.json:
        args.json.write_text(json.dumps(result, indent=1) + "\n")


if __name__ == "__main__":
    main()
