#!/usr/bin/env bash
# Server CPU per request of one redis-benchmark test against a HotKV binary with the
# harness's 1,000,000 preloaded keys (so GET/MGET hit), for comparing two builds:
#
#   bench/preloaded_cpu.sh build/release/hotkv-server get
#   N=3000000 bench/preloaded_cpu.sh /tmp/old/build/hotkv-server set
#   bench/preloaded_cpu.sh build/release/hotkv-server -- SETNX nxkey:__rand_int__ "$(printf 'x%.0s' {1..256})"
#   PERF=/tmp/get.data bench/preloaded_cpu.sh build/release/hotkv-server get   # also perf record
#
# Server (--threads 1) on core 0, redis-benchmark (-c 50 -P 30 -d 256 -r 1000000) on core
# 1; CPU = utime/stime from /proc/<pid>/stat (10 ms ticks) over the run ÷ N. After `--`
# the rest is the command line redis-benchmark sends instead of a -t test. With PERF set,
# `perf record -F 997 -e cpu-clock -g` samples the server for the first 3 s of the run.
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=${1:?hotkv-server binary}
TEST=${2:?redis-benchmark test, e.g. get, or -- and a command line}
shift 2
if [ "$TEST" = "--" ]; then
  WHAT=("$@")
  TEST=${1:?command after --}
else
  WHAT=(-t "$TEST")
fi
N=${N:-2000000}
# shellcheck source=bench/server_lib.sh
. bench/server_lib.sh
start_server hotkv
/usr/bin/python3 bench/harness/preload.py 1000000 256 | taskset -c 1 redis-cli -p "$PORT" --pipe >/dev/null
sleep 1
PERF_PID=
if [ -n "${PERF:-}" ]; then
  perf record -F 997 -e cpu-clock -g -p "$PID" -o "$PERF" -- sleep 3 >/dev/null 2>&1 &
  PERF_PID=$!
fi
read -r u0 s0 < <(awk '{print $14, $15}' "/proc/$PID/stat")
taskset -c 1 redis-benchmark -p "$PORT" -c 50 -P 30 -d 256 -r 1000000 -n "$N" -q "${WHAT[@]}" >/dev/null
read -r u1 s1 < <(awk '{print $14, $15}' "/proc/$PID/stat")
echo "$BIN $TEST: user $(( (u1 - u0) * 10000000 / N )) kernel $(( (s1 - s0) * 10000000 / N )) ns/request"
if [ -n "$PERF_PID" ]; then
  wait "$PERF_PID" || true
fi
