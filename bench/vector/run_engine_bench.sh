#!/usr/bin/env bash
# Runs the vector engine benchmark (HotKV vs hnswlib) on the reference data sets and
# prints the Markdown reports; bench/vector/RESULTS-engine.md collects them.
#   bench/vector/run_engine_bench.sh [build-dir]     (default build/release)
# Bounded on the 2-core machine: about 15-25 minutes per data set (ground truth is
# computed once and cached under bench/vector/data/).
set -euo pipefail
cd "$(dirname "$0")/../.."
BUILD=${1:-build/release}
BIN=$BUILD/bench/vector/vector_engine_bench
# `make build` configures without the benchmark targets; switch them on and build.
if [ ! -f "$BUILD/build.ninja" ]; then
  cmake -S . -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release -DHOTKV_BUILD_BENCH=ON
elif ! grep -q '^HOTKV_BUILD_BENCH:BOOL=ON' "$BUILD/CMakeCache.txt"; then
  cmake -S . -B "$BUILD" -DHOTKV_BUILD_BENCH=ON >/dev/null
fi
ninja -C "$BUILD" -j "${JOBS:-2}" vector_engine_bench
EFS=10,20,40,80,150,300,500
$BIN --dataset=fashion --ef=$EFS --reps=3 --build-reps=3
$BIN --dataset=synthetic --n=100000 --dim=128 --queries=10000 --clusters=1000 --ef=$EFS \
  --reps=3 --build-reps=3
$BIN --dataset=synthetic --n=50000 --dim=1536 --queries=1000 --clusters=500 --ef=$EFS \
  --reps=3 --build-reps=1
$BIN --dataset=synthetic --n=50000 --dim=1536 --queries=1000 --clusters=500 --noise=6 \
  --ef=$EFS --reps=3 --build-reps=3
# Larger sets the generator supports (not run by default on the 2-core machine):
#   --dataset=synthetic --n=100000 --dim=1536 ...   --dataset=synthetic --n=1000000 --dim=128 ...
