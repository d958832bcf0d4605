#!/usr/bin/env bash
# Server CPU per request of one redis-benchmark test against a HotKV binary with the
# harness's 1,000,000 preloaded keys (so GET/MGET hit), for comparing two builds:
#
#   bench/preloaded_cpu.sh build/release/hotkv-server get
#   N=3000000 bench/preloaded_cpu.sh /tmp/old/build/hotkv-server set
#
# Server (--threads 1) on core 0, redis-benchmark (-c 50 -P 30 -d 256 -r 1000000) on core
# 1; CPU = utime/stime from /proc/<pid>/stat (10 ms ticks) over the run ÷ N.
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=${1:?hotkv-server binary}
TEST=${2:?redis-benchmark test, e.g. get}
N=${N:-2000000}
PORT=$(/usr/bin/python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
taskset -c 0 "$BIN" --port "$PORT" --threads 1 >/dev/null 2>&1 & PID=$!
trap 'kill $PID 2>/dev/null; wait $PID 2>/dev/null || true' EXIT
for _ in $(seq 50); do redis-cli -p "$PORT" ping >/dev/null 2>&1 && break; sleep 0.1; done
/usr/bin/python3 bench/harness/preload.py 1000000 256 | taskset -c 1 redis-cli -p "$PORT" --pipe >/dev/null
sleep 1
read -r u0 s0 < <(awk '{print $14, $15}' "/proc/$PID/stat")
taskset -c 1 redis-benchmark -p "$PORT" -c 50 -P 30 -d 256 -r 1000000 -n "$N" -q -t "$TEST" >/dev/null
read -r u1 s1 < <(awk '{print $14, $15}' "/proc/$PID/stat")
echo "$BIN $TEST: user $(( (u1 - u0) * 10000000 / N )) kernel $(( (s1 - s0) * 10000000 / N )) ns/request"
