"""Benchmark of a build's peak memory against input size: whole files of 20 MiB and 1 GiB.

Each input is a synthetic English treebank (real UD English test and dev files repeated, each
``sent_id`` made unique), built whole (seed 1, the default families) in a fresh process pinned
to one core through the ``perturbed-ud build perturbed-ud`` command line, as in
``bench_build.py``. The input is hashed, read, perturbed and written in a stream, so peak
memory should not follow the input's size.

    python scripts/bench_build_memory.py                     # 20 MiB and 1 GiB, ~10 minutes
    python scripts/bench_build_memory.py --sizes-mib 20,200 --json memory.json
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from pathlib import Path

from bench_build import machine_info, make_synthetic, run_build
from benchlib import benchmark_parser


def main() -> None:
    parser = benchmark_parser(__doc__)
    parser.add_argument("--sizes-mib", default="20,1024", help="Input sizes in MiB, comma list.")
    parser.add_argument("--json", type=Path, help="Write the results here.")
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes_mib.split(",")]
    core = min(os.sched_getaffinity(0))
    machine = machine_info(core)
    print(f"machine: {machine['cpu']}, cpu {core}, Python {machine['python']}", flush=True)
    work = Path(tempfile.mkdtemp(prefix="bench-memory-"))
    runs = []
    try:
        for mib in sizes:
            synthetic, _ = make_synthetic(args.ud_root.resolve(), work / f"in-{mib}", 1, mib << 20)
            cli_args = ["--files", str(synthetic), "--seeds", "1", "--workers", "1"]
            run = run_build(cli_args, work / f"out-{mib}", core, work)
            run["input_mib"] = synthetic.stat().st_size / 2**20
            synthetic.unlink()
            runs.append(run)
            print(
                f"| {run['input_mib']:,.1f} | {run['sentences']:,} | {run['rows']:,} | "
                f"{run['wall_s']:,.1f} | {run['peak_rss_mib']:,.0f} | "
                f"{run['build_peak_rss_mib']:,.0f} |",
                flush=True,
            )
    finally:
        shutil.rmtree(work, ignore_errors=True)
    if args.json:
        args.json.write_text(json.dumps({"machine": machine, "runs": runs}, indent=2) + "\n")


if __name__ == "__main__":
    main()
