"""Benchmark of a ud_agreement build of every shared treebank with verb agreement: time,
sentences read per second and peak memory, in a fresh process pinned to one core.

    python scripts/bench_ud_agreement.py                  # ../shared/ud, about 10 seconds
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

LANGS = "en,de,fr,es,ru,tr,he,ar"
# The sample's defaults are not all there: one treebank each of the others.
TREEBANKS = ["ru=UD_Russian-GSD", "tr=UD_Turkish-BOUN", "ar=UD_Arabic-PUD"]


def main() -> None:
    parser = benchmark_parser(__doc__)
    parser.add_argument("--json", type=Path, help="Write the results here.")
    args = parser.parse_args()
    core = min(os.sched_getaffinity(0))
    out = Path(tempfile.mkdtemp(prefix="bench-agreement-")) / "out"
    command = [sys.executable, "-m", "perturbed_ud.cli", "build", "ud_agreement", "--ud-root",
               str(args.ud_root), "--langs", LANGS, *(f"--treebank={t}" for t in TREEBANKS),
               "--out", str(out)]  # fmt: skip
    start = time.perf_counter()
    subprocess.run(["taskset", "-c", str(core), *command], check=True, capture_output=True)
    wall = time.perf_counter() - start
    peak_mib = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    manifest = json.loads((out / "ud_agreement" / "build.json").read_text())
    sentences = sum(c["sentences"] for c in manifest["configs"].values())
    pairs = sum(sum(c["splits"].values()) for c in manifest["configs"].values())
    result = {"cpu": cpu_model(), "core": core, "wall_s": round(wall, 2),
              "sentences": sentences, "sentences_per_s": round(sentences / wall),
              "pairs": pairs, "peak_rss_mib": round(peak_mib)}  # fmt: skip
    print(json.dumps(result, indent=1))
    if args.json:
        args.json.write_text(json.dumps(result, indent=1) + "\n")


if __name__ == "__main__":
    main()
