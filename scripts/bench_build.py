"""Benchmark of the perturbed-ud build: throughput on one core and memory against input size.

Every build runs in a fresh Python process pinned to one core, through the same command line
as ``perturbed-ud build``. The parent measures the whole process (wall time including Python
start-up and imports; peak RSS from ``os.wait4``); the child times the engine's ``build``
alone and reports the peak RSS of the build phase.

A row is one sentence x condition x seed, conditions being orig, orig_lemma and each
family's form and +L order (8 per kept sentence and seed with the three default families).
Rows are counted from ``build.json`` once per (language, seed): the orig splits that every
family config holds a copy of count once. "Stored rows" counts every config file.

    python scripts/bench_build.py                      # everything, a few minutes
    python scripts/bench_build.py --json bench.json    # and keep the numbers
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from benchlib import REPO_ROOT, benchmark_parser, cpu_model, proc_status

TARGET_ROWS_PER_S = 20_000
FLAT_TOLERANCE = 0.15  # peak RSS at the largest size within 15% of the smallest
ACCEPTANCE_ARGS = [
    "--langs",
    "en,de,es,ru,zh,tr",
    "--treebank",
    "ru=UD_Russian-GSD",
    "--seeds",
    "1,2,3",
    "--workers",
    "1",
]
SCALING_SIZES = (1_000, 2_000, 5_000, 10_000, 20_000, 40_000)
SYNTHETIC_NAME = "en_bench-ud-test.conllu"
SENT_ID = re.compile(r"^# sent_id\s*=\s*(.*?)\s*$")


# --- child: one build in this process ------------------------------------------------------


def _reset_peak_rss() -> bool:
    """Reset the process's RSS high-water mark (Linux >= 4.0)."""
    try:
        with open("/proc/self/clear_refs", "w", encoding="ascii") as f:
            f.write("5")
        return True
    except OSError:
        return False


def child_main(argv: list[str]) -> None:
    parser = argparse.ArgumentParser(prog="bench_build.py --child")
    parser.add_argument("--result", required=True)
    parser.add_argument("--profile")
    parser.add_argument("cli", nargs=argparse.REMAINDER)
    args = parser.parse_args(argv)
    cli_args = args.cli[1:] if args.cli[:1] == ["--"] else args.cli

    import perturbed_ud.builders.engine as build_module
    from perturbed_ud import cli

    original = build_module.build
    result: dict = {}

    def timed(*a, **kw):
        result["peak_rss_before_build_kib"] = proc_status("VmHWM")
        result["peak_reset"] = _reset_peak_rss()
        result["rss_at_build_start_kib"] = proc_status("VmRSS")
        profiler = None
        if args.profile:
            import cProfile

            profiler = cProfile.Profile()
            profiler.enable()
        start = time.perf_counter()
        try:
            return original(*a, **kw)
        finally:
            result["build_s"] = time.perf_counter() - start
            if profiler is not None:
                profiler.disable()
                profiler.dump_stats(args.profile)
            result["build_peak_rss_kib"] = proc_status("VmHWM") if result["peak_reset"] else None

    build_module.build = timed
    cli.main(args=cli_args, prog_name="perturbed-ud", standalone_mode=False)
    result["cpus"] = sorted(os.sched_getaffinity(0))
    Path(args.result).write_text(json.dumps(result), encoding="utf-8")


# --- parent ---------------------------------------------------------------------------------


def run_build(cli_args: list[str], out: Path, core: int, work: Path, profile: Path | None = None):
    """One ``perturbed-ud build perturbed-ud`` in a fresh process pinned to ``core``."""
    result_file = work / f"result-{out.name}.json"
    log_file = work / f"log-{out.name}.txt"
    cmd = [sys.executable, str(Path(__file__).resolve()), "--child", "--result", str(result_file)]
    if profile is not None:
        cmd += ["--profile", str(profile)]
    cmd += ["--", "build", "perturbed-ud", *cli_args, "--out", str(out), "--overwrite"]
    with open(log_file, "wb") as log:
        start = time.perf_counter()
        proc = subprocess.Popen(
            cmd,
            stdout=log,
            stderr=subprocess.STDOUT,
            cwd=REPO_ROOT,
            preexec_fn=lambda: os.sched_setaffinity(0, {core}),
        )
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - start
        proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode != 0:
        sys.exit(f"build failed ({proc.returncode}): {' '.join(cmd)}\n{log_file.read_text()}")
    child = json.loads(result_file.read_text(encoding="utf-8"))
    folder = out / "perturbed-ud"
    manifest = json.loads((folder / "build.json").read_text(encoding="utf-8"))
    counts = count_rows(manifest)
    counts["parquet_rows"], counts["output_bytes"] = _parquet_rows(folder)
    if counts["parquet_rows"] != counts["stored_rows"]:
        sys.exit(f"build.json says {counts['stored_rows']} rows, Parquet holds {counts}")
    shutil.rmtree(out)
    process_peak = max(usage.ru_maxrss, child.get("peak_rss_before_build_kib") or 0)
    return {
        "wall_s": wall,
        "build_s": child["build_s"],
        "peak_rss_mib": process_peak / 1024,
        "build_peak_rss_mib": _mib(child.get("build_peak_rss_kib")),
        "rss_at_build_start_mib": _mib(child.get("rss_at_build_start_kib")),
        "cpus": child["cpus"],
        **counts,
    }


def _mib(kib: int | None) -> float | None:
    return None if kib is None else kib / 1024


def _parquet_rows(folder: Path) -> tuple[int, int]:
    import pyarrow.parquet as pq

    rows = size = 0
    for path in folder.rglob("*.parquet"):
        rows += pq.read_metadata(path).num_rows
        size += path.stat().st_size
    return rows, size


def count_rows(manifest: dict) -> dict:
    """Distinct rows per (lang, seed) and rows as stored, from a build.json manifest."""
    per_pair: dict[tuple[str, str], dict[str, int]] = {}
    sentences: dict[str, int] = {}
    kept: dict[tuple[str, str], int] = {}
    stored = 0
    for name, entry in manifest["configs"].items():
        lang, _family, seed = name.rsplit("_", 2)
        splits = per_pair.setdefault((lang, seed), {})
        for split, n in entry["splits"].items():
            stored += n
            if splits.setdefault(split, n) != n:
                sys.exit(f"{name}/{split} has {n} rows, another config of {lang} {seed} not")
        sentences[lang] = entry["sentences"]
        kept[(lang, seed)] = entry["sentences"] - sum(entry["sentence_drops"].values())
    return {
        "sentences": sum(sentences.values()),
        "kept_sentence_seeds": sum(kept.values()),
        "rows": sum(sum(s.values()) for s in per_pair.values()),
        "stored_rows": stored,
        "langs": sorted(sentences),
    }


def make_synthetic(
    ud_root: Path, folder: Path, n: int, min_bytes: int = 0
) -> tuple[Path, list[str]]:
    """A file of at least ``n`` English sentences and ``min_bytes`` bytes: real UD files
    repeated, sent_ids unique."""
    sources = sorted(ud_root.glob("UD_English-*/*-ud-test.conllu")) + sorted(
        ud_root.glob("UD_English-*/*-ud-dev.conllu")
    )
    if not sources:
        sys.exit(f"no English UD test/dev files under {ud_root}")
    texts = [p.read_text(encoding="utf-8").splitlines() for p in sources]
    folder.mkdir(parents=True, exist_ok=True)
    target = folder / SYNTHETIC_NAME
    count = copy = size = 0
    with open(target, "w", encoding="utf-8") as f:
        while count < n or size < min_bytes:
            for lines in texts:
                for line in lines:
                    match = SENT_ID.match(line)
                    if match:
                        line = f"# sent_id = {match.group(1)}~copy{copy}"
                        count += 1
                    size += f.write(line + "\n")
                size += f.write("\n")
                copy += 1
    return target, [p.name for p in sources]


def profile_summary(path: Path, top: int = 8) -> list[dict]:
    import pstats

    stats = pstats.Stats(str(path))
    total = stats.total_tt
    rows = []
    for (file, line, func), (_cc, ncalls, tottime, cumtime, _callers) in sorted(
        stats.stats.items(), key=lambda item: item[1][2], reverse=True
    )[:top]:
        rows.append(
            {
                "function": f"{_short_path(file)}:{line}({func})",
                "ncalls": ncalls,
                "tottime_s": tottime,
                "tottime_share": tottime / total if total else 0.0,
                "cumtime_s": cumtime,
            }
        )
    return rows


def _short_path(file: str) -> str:
    for marker in ("site-packages/", "/src/", "/lib/python"):
        if marker in file:
            tail = file.split(marker, 1)[1]
            return tail if marker != "/lib/python" else "stdlib/" + tail.split("/", 1)[-1]
    return file if file.startswith("~") or file.startswith("<") else Path(file).name


def machine_info(core: int) -> dict:
    import pyarrow

    return {
        "cpu": cpu_model(),
        "logical_cpus": os.cpu_count(),
        "cores_used": 1,
        "pinned_core": core,
        "python": platform.python_version(),
        "pyarrow": pyarrow.__version__,
        "platform": platform.platform(),
    }


# --- report ---------------------------------------------------------------------------------


def _fmt(value, spec: str = ",.0f") -> str:
    return "n/a" if value is None else format(value, spec)


def acceptance_table(runs: list[dict], summary: dict) -> str:
    lines = [
        "| run | wall s (process) | build s (in-process) | rows | rows/s (process) "
        "| rows/s (in-process) | peak RSS MiB |",
        "|---|---:|---:|---:|---:|---:|---:|",
    ]
    for i, r in enumerate(runs, 1):
        lines.append(
            f"| {i} | {r['wall_s']:.2f} | {r['build_s']:.2f} | {r['rows']:,} "
            f"| {r['rows'] / r['wall_s']:,.0f} | {r['rows'] / r['build_s']:,.0f} "
            f"| {r['peak_rss_mib']:.0f} |"
        )
    lines.append(
        f"| **median** | **{summary['wall_s']:.2f}** | **{summary['build_s']:.2f}** "
        f"| **{summary['rows']:,}** | **{summary['rows_per_s_process']:,.0f}** "
        f"| **{summary['rows_per_s_build']:,.0f}** | **{summary['peak_rss_mib']:.0f}** |"
    )
    return "\n".join(lines)


def scaling_table(runs: list[dict]) -> str:
    lines = [
        "| sentences | rows | wall s (process) | build s (in-process) | rows/s (in-process) "
        "| peak RSS MiB (process) | peak RSS MiB (build phase) | RSS MiB at build start |",
        "|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r in runs:
        lines.append(
            f"| {r['sentences']:,} | {r['rows']:,} | {r['wall_s']:.2f} | {r['build_s']:.2f} "
            f"| {r['rows'] / r['build_s']:,.0f} | {r['peak_rss_mib']:.0f} "
            f"| {_fmt(r['build_peak_rss_mib'])} | {_fmt(r['rss_at_build_start_mib'])} |"
        )
    return "\n".join(lines)


def profile_table(rows: list[dict]) -> str:
    lines = ["| function | calls | tottime s | share | cumtime s |", "|---|---:|---:|---:|---:|"]
    for r in rows:
        lines.append(
            f"| `{r['function']}` | {r['ncalls']:,} | {r['tottime_s']:.2f} "
            f"| {r['tottime_share']:.0%} | {r['cumtime_s']:.2f} |"
        )
    return "\n".join(lines)


def flatness(runs: list[dict]) -> dict:
    def verdict(key: str) -> dict | None:
        values = [r[key] for r in runs]
        if any(v is None for v in values):
            return None
        low, high = min(values), max(values)
        growth = values[-1] / values[0] - 1
        return {"min_mib": low, "max_mib": high, "growth": growth, "flat": growth <= FLAT_TOLERANCE}

    return {"process": verdict("peak_rss_mib"), "build_phase": verdict("build_peak_rss_mib")}


# --- main -----------------------------------------------------------------------------------


def main() -> None:
    if sys.argv[1:2] == ["--child"]:
        child_main(sys.argv[2:])
        return
    parser = benchmark_parser(__doc__)
    parser.add_argument("--out", type=Path, help="Work folder (default: a temporary one).")
    parser.add_argument("--json", type=Path, help="Write the results here.")
    parser.add_argument("--repeats", type=int, default=3, help="Acceptance builds (median).")
    parser.add_argument(
        "--sizes",
        default=",".join(map(str, SCALING_SIZES)),
        help="Scaling sizes in sentences, comma-separated ('' skips scaling).",
    )
    parser.add_argument(
        "--profile",
        choices=("auto", "always", "never"),
        default="auto",
        help="cProfile one in-process acceptance build (auto: when a rate misses the target).",
    )
    args = parser.parse_args()
    ud_root = args.ud_root.resolve()
    if not ud_root.is_dir():
        sys.exit(f"UD root {ud_root} not found (pass --ud-root)")
    sizes = [int(s) for s in args.sizes.split(",") if s.strip()]
    core = min(os.sched_getaffinity(0))

    temporary = args.out is None
    work = Path(tempfile.mkdtemp(prefix="bench-build-")) if temporary else args.out
    work.mkdir(parents=True, exist_ok=True)
    try:
        results = run_all(args, ud_root, sizes, core, work)
    finally:
        if temporary:
            shutil.rmtree(work, ignore_errors=True)
    if args.json:
        args.json.write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")
        print(f"wrote {args.json}")


def run_all(args, ud_root: Path, sizes: list[int], core: int, work: Path) -> dict:
    machine = machine_info(core)
    print(
        f"machine: {machine['cpu']}, 1 core (cpu {core}) of {machine['logical_cpus']}, "
        f"Python {machine['python']}, pyarrow {machine['pyarrow']}",
        flush=True,
    )
    acceptance_args = ["--ud-root", str(ud_root), *ACCEPTANCE_ARGS]
    runs = []
    for i in range(args.repeats):
        r = run_build(acceptance_args, work / f"acceptance-{i}", core, work)
        runs.append(r)
        print(
            f"acceptance {i + 1}/{args.repeats}: {r['rows']:,} rows, wall {r['wall_s']:.2f}s, "
            f"build {r['build_s']:.2f}s, peak {r['peak_rss_mib']:.0f} MiB",
            flush=True,
        )
    wall = statistics.median(r["wall_s"] for r in runs)
    build = statistics.median(r["build_s"] for r in runs)
    first = runs[0]
    summary = {
        "langs": first["langs"],
        "sentences": first["sentences"],
        "kept_sentence_seeds": first["kept_sentence_seeds"],
        "rows": first["rows"],
        "stored_rows": first["stored_rows"],
        "output_bytes": first["output_bytes"],
        "wall_s": wall,
        "build_s": build,
        "rows_per_s_process": first["rows"] / wall,
        "rows_per_s_build": first["rows"] / build,
        "peak_rss_mib": statistics.median(r["peak_rss_mib"] for r in runs),
    }

    profile = None
    if args.profile == "always" or (
        args.profile == "auto"
        and min(summary["rows_per_s_build"], summary["rows_per_s_process"]) < TARGET_ROWS_PER_S
    ):
        prof_path = work / "acceptance.prof"
        r = run_build(acceptance_args, work / "profiled", core, work, profile=prof_path)
        profile = {"build_s_under_cprofile": r["build_s"], "top": profile_summary(prof_path)}
        print(f"profiled build: {r['build_s']:.2f}s under cProfile", flush=True)

    scaling = []
    synthetic_sources = []
    if sizes:
        synthetic, synthetic_sources = make_synthetic(ud_root, work / "synthetic", max(sizes))
        for n in sizes:
            cli_args = ["--files", str(synthetic), "--limit", str(n), "--seeds", "1,2,3"]
            r = run_build([*cli_args, "--workers", "1"], work / f"scaling-{n}", core, work)
            r["limit"] = n
            scaling.append(r)
            print(
                f"scaling {n:,}: {r['rows']:,} rows, wall {r['wall_s']:.2f}s, build "
                f"{r['build_s']:.2f}s, peak {r['peak_rss_mib']:.0f} MiB (build phase "
                f"{_fmt(r['build_peak_rss_mib'])} MiB)",
                flush=True,
            )

    control = None
    if sizes:
        small, _ = make_synthetic(ud_root, work / "synthetic-small", 1)
        n = min(sizes)
        cli_args = ["--files", str(small), "--limit", str(n), "--seeds", "1,2,3", "--workers", "1"]
        control = run_build(cli_args, work / "control", core, work)
        control["limit"] = n
        control["input_bytes"] = small.stat().st_size
        control["big_input_bytes"] = synthetic.stat().st_size
        print(
            f"control {n:,} from a {control['input_bytes'] / 2**20:.1f} MiB file: peak "
            f"{control['peak_rss_mib']:.0f} MiB (build phase "
            f"{_fmt(control['build_peak_rss_mib'])} MiB)",
            flush=True,
        )

    results = {
        "machine": machine,
        "targets": {"rows_per_s_per_core": TARGET_ROWS_PER_S, "flat_tolerance": FLAT_TOLERANCE},
        "acceptance": {"command_args": ACCEPTANCE_ARGS, "runs": runs, "median": summary},
        "profile": profile,
        "scaling": {
            "synthetic_from": synthetic_sources,
            "runs": scaling,
            "flatness": flatness(scaling) if scaling else None,
            "small_file_control": control,
        },
    }
    print_report(results)
    return results


def print_report(results: dict) -> None:
    acc = results["acceptance"]["median"]
    print()
    print("### Acceptance build (1 core)")
    print()
    print(
        f"{acc['sentences']:,} sentences ({', '.join(acc['langs'])}), "
        f"{acc['kept_sentence_seeds']:,} kept sentence x seed pairs, {acc['rows']:,} rows "
        f"(sentence x condition x seed), {acc['stored_rows']:,} rows stored across all config "
        f"files, {acc['output_bytes'] / 2**20:.1f} MiB of Parquet."
    )
    print()
    print(acceptance_table(results["acceptance"]["runs"], acc))
    if results["profile"]:
        print()
        print(
            f"### Profile (one in-process build, "
            f"{results['profile']['build_s_under_cprofile']:.1f}s under cProfile)"
        )
        print()
        print(profile_table(results["profile"]["top"]))
    scaling = results["scaling"]
    if scaling["runs"]:
        print()
        print("### Scaling (one language, seeds 1,2,3, 1 core)")
        print()
        print(scaling_table(scaling["runs"]))
        flat = scaling["flatness"]
        for key, label in (("process", "process"), ("build_phase", "build phase")):
            if flat[key]:
                f = flat[key]
                print(
                    f"\npeak RSS ({label}): {f['min_mib']:.0f}-{f['max_mib']:.0f} MiB, "
                    f"{f['growth']:+.0%} from smallest to largest -> "
                    f"{'flat' if f['flat'] else 'NOT flat'}"
                )
        control = scaling["small_file_control"]
        if control:
            print(
                f"\ninput-size control: {control['limit']:,} sentences read from a "
                f"{control['input_bytes'] / 2**20:.1f} MiB file instead of the "
                f"{control['big_input_bytes'] / 2**20:.1f} MiB one: peak RSS "
                f"{control['peak_rss_mib']:.0f} MiB (build phase "
                f"{_fmt(control['build_peak_rss_mib'])} MiB)"
            )
    print()
    ok_rate = acc["rows_per_s_process"] >= TARGET_ROWS_PER_S
    ok_build = acc["rows_per_s_build"] >= TARGET_ROWS_PER_S
    print(
        f"verdict: {acc['rows_per_s_process']:,.0f} rows/s end to end "
        f"({'meets' if ok_rate else 'below'} {TARGET_ROWS_PER_S:,}), "
        f"{acc['rows_per_s_build']:,.0f} rows/s in-process "
        f"({'meets' if ok_build else 'below'} {TARGET_ROWS_PER_S:,})"
    )


if __name__ == "__main__":
    main()
