#!/usr/bin/env bash
# Server CPU per request split into user and kernel time, for one redis-benchmark
# workload, HotKV (--threads 1) or Debian's redis-server. Used to see whether a command's
# cost is in the server's own code or in the kernel (socket I/O, page faults).
#
#   bench/cpu_split.sh hotkv|redis|redis8 [redis-benchmark options...]
#   N=3000000 bench/cpu_split.sh hotkv -t lpush -r 1000000
#   BIN=/path/to/hotkv-server EXTRA="--io-backend epoll" bench/cpu_split.sh hotkv -t get
#
# The server runs on core 0, redis-benchmark (-c 50 -P 30 -d 256, N requests, default
# 3,000,000) on core 1. CPU = utime/stime of the server process from /proc/<pid>/stat
# (10 ms ticks) across the run ÷ N. No preload: GET/MGET miss.
set -euo pipefail
cd "$(dirname "$0")/.."
which=${1:?hotkv or redis}; shift
N=${N:-3000000}
BIN=${BIN:-build/release/hotkv-server}
# shellcheck source=bench/server_lib.sh
. bench/server_lib.sh
if [ "$which" = hotkv ]; then
  [ -x "$BIN" ] || make build >/dev/null
  # shellcheck disable=SC2086
  start_server hotkv ${EXTRA:-}
else
  start_server "$which"  # redis (7.0) or redis8
fi
read -r u0 s0 < <(awk '{print $14, $15}' "/proc/$PID/stat")
taskset -c 1 redis-benchmark -p "$PORT" -c 50 -P 30 -d 256 -n "$N" -q "$@" | tr '\r' '\n' | tail -1
read -r u1 s1 < <(awk '{print $14, $15}' "/proc/$PID/stat")
echo "$which: user $(( (u1 - u0) * 10000000 / N )) ns/request, kernel $(( (s1 - s0) * 10000000 / N )) ns/request"
