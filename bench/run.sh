#!/usr/bin/env bash
# HotKV vs redis-server benchmark (make bench). See bench/README.md.
#
#   bench/run.sh                      # full run (~30-35 min on 2 CPUs; cpu alone ~13), report in bench/results/<stamp>/summary.md
#   bench/run.sh --quick              # smoke run (~1-2 min), results in bench/results/<stamp>-quick/
#   bench/run.sh --only cpu,memory    # some parts: cpu, sweep, memory, prefetch
#   bench/run.sh --reps 5 | --record | --no-record | --server-core 0 --client-core 1
#   bench/run.sh --only cpu --cpu-server shared   # all 12 commands on one server per repetition
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD_DIR=${BUILD_DIR:-build/release}

for tool in redis-server redis-benchmark redis-cli taskset python3 cmake ninja; do
  command -v "$tool" >/dev/null || { echo "bench: $tool is missing (make deps / apt-get install)" >&2; exit 2; }
done
command -v gnuplot >/dev/null || echo "bench: gnuplot is missing; no charts will be drawn" >&2
if [ "$(nproc)" -lt 2 ]; then
  echo "bench: needs 2 CPUs (server and generator on separate cores); found $(nproc)" >&2
  exit 2
fi

# Release build of the server and the load generator (a no-op when up to date).
if [ ! -f "$BUILD_DIR/build.ninja" ]; then
  cmake -S . -B "$BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE=Release
fi
build_type=$(sed -n 's/^CMAKE_BUILD_TYPE:STRING=//p' "$BUILD_DIR/CMakeCache.txt")
sanitize=$(sed -n 's/^HOTKV_SANITIZE:BOOL=//p' "$BUILD_DIR/CMakeCache.txt")
if [ "$build_type" != "Release" ] || [ "$sanitize" = "ON" ]; then
  echo "bench: $BUILD_DIR is a '$build_type' build (sanitize=$sanitize); benchmarks need Release" >&2
  exit 2
fi
ninja -C "$BUILD_DIR" -j "${JOBS:-2}" hotkv-server hotkv-loadgen

exec python3 bench/harness/main.py --build-dir "$BUILD_DIR" "$@"
