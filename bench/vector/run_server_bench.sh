#!/usr/bin/env bash
# Vector search through hotkv-server (issue 6). See bench/vector/README.md.
#
#   bench/vector/run_server_bench.sh                 # full run (~25-40 min on 2 busy CPUs),
#                                                    # report in bench/results/vector-server_<stamp>/summary.md
#   bench/vector/run_server_bench.sh --quick         # smoke run (~1-2 min), results in
#                                                    # bench/results/vector-server_<stamp>-quick/
#   bench/vector/run_server_bench.sh --sets fashion --configs default --reps 1 --no-engine
#   bench/vector/run_server_bench.sh --resume bench/results/vector-server_<stamp>
#                                                    # finish an interrupted run
#   bench/vector/run_server_bench.sh --render bench/results/vector-server_<stamp>
set -euo pipefail
cd "$(dirname "$0")/../.."
BUILD_DIR=${BUILD_DIR:-build/release}

for tool in redis-cli python3 cmake ninja taskset; do
  command -v "$tool" >/dev/null || { echo "vector bench: $tool is missing (make deps / apt-get install)" >&2; exit 2; }
done
[ -f /usr/share/datasets/fashion-mnist/train-images-idx3-ubyte.gz ] ||
  echo "vector bench: Fashion-MNIST missing (apt-get install dataset-fashion-mnist); use --sets syn128,syn1536" >&2

# `make build` configures without the benchmark targets; switch them on (a no-op when on).
if [ ! -f "$BUILD_DIR/build.ninja" ]; then
  cmake -S . -B "$BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE=Release -DHOTKV_BUILD_BENCH=ON
elif ! grep -q '^HOTKV_BUILD_BENCH:BOOL=ON' "$BUILD_DIR/CMakeCache.txt"; then
  cmake -S . -B "$BUILD_DIR" -DHOTKV_BUILD_BENCH=ON >/dev/null
fi
build_type=$(sed -n 's/^CMAKE_BUILD_TYPE:STRING=//p' "$BUILD_DIR/CMakeCache.txt")
sanitize=$(sed -n 's/^HOTKV_SANITIZE:BOOL=//p' "$BUILD_DIR/CMakeCache.txt")
if [ "$build_type" != "Release" ] || [ "$sanitize" = "ON" ]; then
  echo "vector bench: $BUILD_DIR is a '$build_type' build (sanitize=$sanitize); benchmarks need Release" >&2
  exit 2
fi
targets="hotkv-server vector_server_bench"
# The engine benchmark (recall cross-check) exists only when hnswlib's headers were found.
if ninja -C "$BUILD_DIR" -t targets all 2>/dev/null | grep -q '^bench/vector/vector_engine_bench:'; then
  targets="$targets vector_engine_bench"
fi
ninja -C "$BUILD_DIR" -j "${JOBS:-2}" $targets

PY=python3; [ -x /usr/bin/python3 ] && PY=/usr/bin/python3   # Debian's
exec "$PY" bench/vector/server_bench.py --build-dir "$BUILD_DIR" "$@"
