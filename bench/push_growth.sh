#!/usr/bin/env bash
# Server CPU per push while one server keeps growing: after the harness's 1,000,000-key
# preload, five runs of 1M pushes of 256-byte elements on the same server (new lists
# l1, l2, l3, then l4 twice: LPUSH, then RPUSH onto the same list, as the harness's LPUSH
# and RPUSH tests do), printing user and kernel ns per push and the RSS after each run.
#
#   bench/push_growth.sh hotkv|redis|redis8
#   BIN=/tmp/other/hotkv-server bench/push_growth.sh hotkv
#
# Server (--threads 1) on core 0, redis-benchmark (-c 50 -P 30) on core 1; CPU from
# /proc/<pid>/stat (10 ms ticks). Shows how the price of fresh memory changes as the
# process grows, for either server (bench/notes/2026-11-30-seventh-stop-sweep-repeated-
# rpush-memory.md, "RPUSH after LPUSH").
set -euo pipefail
cd "$(dirname "$0")/.."
WHICH=${1:?hotkv or redis}
N=${N:-1000000}
# shellcheck source=bench/server_lib.sh
. bench/server_lib.sh
start_server "$WHICH"
VALUE=$(printf 'x%.0s' {1..256})
/usr/bin/python3 bench/harness/preload.py 1000000 256 | taskset -c 1 redis-cli -p "$PORT" --pipe >/dev/null
sleep 1
for step in "LPUSH l1" "RPUSH l2" "RPUSH l3" "LPUSH l4" "RPUSH l4"; do
  read -r u0 s0 < <(awk '{print $14, $15}' "/proc/$PID/stat")
  # shellcheck disable=SC2086 # $step is a command and its key
  taskset -c 1 redis-benchmark -p "$PORT" -c 50 -P 30 -n "$N" -q $step "$VALUE" >/dev/null
  read -r u1 s1 < <(awk '{print $14, $15}' "/proc/$PID/stat")
  rss=$(awk '/VmRSS/{print $2}' "/proc/$PID/status")
  echo "$WHICH $step: user $(( (u1 - u0) * 10000000 / N )) kernel $(( (s1 - s0) * 10000000 / N )) ns/push, RSS $(( rss / 1024 )) MiB"
done
