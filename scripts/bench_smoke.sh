#!/usr/bin/env bash
# Every benchmark script in its small mode, so that none can stop running unseen; the figures
# of BENCHMARKS.md come from their full runs. The GPU comparison runs on the CPU here.
set -euo pipefail
cd "$(dirname "$0")"
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
run() { echo "bench smoke: $*" >&2; "$@" > "$out/last.log" 2>&1 || { cat "$out/last.log"; exit 1; }; }
run python bench_build.py --repeats 1 --sizes '' --profile never --out "$out/build"
run python bench_build_memory.py --sizes-mib 1
run python bench_last_layer.py --rows 8 --repeats 1
run python bench_loading.py --small
run python bench_masked_word.py --n-items 20
run python bench_score.py --n-sentences 10 --vocab-sentences 5 --memory-batches 2 --short-sentences 0
run python bench_ud_agreement.py
run python gpu_comparison.py --smoke --device cpu --out "$out/gpu"
