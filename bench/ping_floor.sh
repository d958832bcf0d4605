#!/usr/bin/env bash
# The kernel's floor for PING: server CPU per request of two servers that do nothing but
# answer (bench/floor/: epoll + read/write, and HotKV's io_uring pattern, single-shot or
# multishot recv), beside HotKV and Redis, in alternating rounds.
#
#   bench/ping_floor.sh            # 3 rounds
#   ROUNDS=5 N=3000000 bench/ping_floor.sh
#
# Each server runs alone on core 0 (HotKV with --threads 1), redis-benchmark on core 1
# (-c 50 -P 30 -t ping_mbulk, N requests, default 3,000,000), as the harness's PING.
# CPU = utime + stime of the server (all threads) from /proc/<pid>/stat ÷ N; context
# switches from /proc/<pid>/task/*/status. Needs cc and liburing-dev (make deps).
set -euo pipefail
cd "$(dirname "$0")/.."
N=${N:-3000000}
ROUNDS=${ROUNDS:-3}
BIN=${BIN:-build/release/hotkv-server}
OUT=build/ping_floor
mkdir -p "$OUT"
cc -O2 -Wall -Wextra -o "$OUT/ping_floor_epoll" bench/floor/ping_floor_epoll.c
cc -O2 -Wall -Wextra -o "$OUT/ping_floor_uring" bench/floor/ping_floor_uring.c -luring
[ -x "$BIN" ] || make build >/dev/null
# shellcheck source=bench/server_lib.sh
. bench/server_lib.sh

switches() {
  cat /proc/"$1"/task/*/status 2>/dev/null |
    awk '/^(non)?voluntary_ctxt_switches/ {s += $2} END {print s + 0}'
}

measure() {  # measure NAME COMMAND... ; prints "NAME user kernel total switches"
  local name=$1
  shift
  PORT=$(free_port)
  taskset -c 0 "$@" --port "$PORT" >/dev/null 2>&1 &
  local pid=$!
  for _ in $(seq 50); do redis-cli -p "$PORT" ping >/dev/null 2>&1 && break; sleep 0.1; done
  local u0 s0 u1 s1 c0 c1
  read -r u0 s0 < <(awk '{print $14, $15}' "/proc/$pid/stat")
  c0=$(switches "$pid")
  taskset -c 1 redis-benchmark -p "$PORT" -c 50 -P 30 -n "$N" -q -t ping_mbulk >/dev/null 2>&1
  read -r u1 s1 < <(awk '{print $14, $15}' "/proc/$pid/stat")
  c1=$(switches "$pid")
  kill "$pid"
  wait "$pid" 2>/dev/null || true
  echo "$name $(((u1 - u0) * 10000000 / N)) $(((s1 - s0) * 10000000 / N)) \
$(((u1 - u0 + s1 - s0) * 10000000 / N)) $((c1 - c0))"
}

SERVERS=(floor-epoll floor-uring floor-uring-multishot hotkv redis)
R8=$(redis8_binary 2>/dev/null) && SERVERS+=(redis8) || R8=
command_of() {
  case $1 in
    floor-epoll) echo "$OUT/ping_floor_epoll" ;;
    floor-uring) echo "$OUT/ping_floor_uring" ;;
    floor-uring-multishot) echo "$OUT/ping_floor_uring multishot" ;;
    hotkv) echo "$BIN --threads 1" ;;
    redis) echo "redis-server --save '' --appendonly no" ;;
    redis8) echo "$R8 --save '' --appendonly no" ;;
  esac
}

results=$(mktemp)
trap 'rm -f "$results"' EXIT
echo "server user kernel total(ns/request) context-switches"
for _ in $(seq "$ROUNDS"); do
  for s in "${SERVERS[@]}"; do
    eval "measure $s $(command_of "$s")" | tee -a "$results"
  done
done
echo
echo "median of $ROUNDS: server user kernel total, total / Redis 7.0's, total / Redis 8.8's"
median_total() { awk -v s="$1" '$1 == s {print $4}' "$results" | sort -n | awk '{a[NR] = $1} END {print a[int((NR + 1) / 2)] + 0}'; }
redis_total=$(median_total redis)
redis8_total=$(median_total redis8)
for s in "${SERVERS[@]}"; do
  awk -v s="$s" -v r="$redis_total" -v r8="$redis8_total" '$1 == s {u[++n] = $2; k[n] = $3; t[n] = $4}
    function med(a, n,   i, j, x) {
      for (i = 2; i <= n; i++) { x = a[i]; for (j = i - 1; j > 0 && a[j] > x; j--) a[j + 1] = a[j]; a[j + 1] = x }
      return a[int((n + 1) / 2)]
    }
    END { tt = med(t, n); printf "%-22s %5d %5d %5d  %.2f", s, med(u, n), med(k, n), tt, tt / r
          if (r8 > 0) printf "  %.2f", tt / r8
          printf "\n" }' "$results"
done
