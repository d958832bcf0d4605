#!/usr/bin/env bash
# Writes under a maxmemory limit: HotKV (--threads 1), Redis 8.8 (when found, see
# server_lib.sh: HOTKV_BENCH_REDIS8 or ../shared/peers) and Debian's redis-server, each
# pinned to core 0 with redis-benchmark on core 1, SET of 256-byte values over a key
# space ten times larger than what fits, so nearly every write evicts a key.
#
#   bench/eviction.sh [policy] [maxmemory]        # default: allkeys-lru 100mb
#   N=3000000 bench/eviction.sh allkeys-random 50mb
#
# allkeys-* policies only: the writes carry no TTL, so volatile-* ones answer OOM.
#
# Prints per server: requests/s, server CPU ns per request (utime+stime from
# /proc/<pid>/stat, 10 ms ticks), evicted_keys, keys left, used_memory ÷ maxmemory.
set -euo pipefail
cd "$(dirname "$0")/.."
POLICY=${1:-allkeys-lru}
LIMIT=${2:-100mb}
N=${N:-3000000}
BIN=${BIN:-build/release/hotkv-server}
[ -x "$BIN" ] || make build >/dev/null
free_port() { /usr/bin/python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
# shellcheck source=bench/server_lib.sh
. bench/server_lib.sh  # redis8_binary
R8=$(redis8_binary || true)
SERVERS="hotkv${R8:+ redis8} redis"
[ -n "$R8" ] || echo "bench: Redis 8.8 not found (HOTKV_BENCH_REDIS8): hotkv and redis 7.0 only" >&2
for which in $SERVERS; do
  PORT=$(free_port)
  if [ "$which" = hotkv ]; then
    taskset -c 0 "$BIN" --port "$PORT" --threads 1 >/dev/null 2>&1 & PID=$!
  elif [ "$which" = redis8 ]; then
    taskset -c 0 "$R8" --port "$PORT" --save '' --appendonly no >/dev/null 2>&1 & PID=$!
  else
    taskset -c 0 redis-server --port "$PORT" --save '' --appendonly no >/dev/null 2>&1 & PID=$!
  fi
  for _ in $(seq 50); do redis-cli -p "$PORT" ping >/dev/null 2>&1 && break; sleep 0.1; done
  redis-cli -p "$PORT" config set maxmemory "$LIMIT" >/dev/null
  redis-cli -p "$PORT" config set maxmemory-policy "$POLICY" >/dev/null
  read -r u0 s0 < <(awk '{print $14, $15}' "/proc/$PID/stat")
  rps=$(taskset -c 1 redis-benchmark -p "$PORT" -c 50 -P 30 -d 256 -r 10000000 -n "$N" -t set --csv |
        tail -1 | cut -d, -f2 | tr -d '"')
  read -r u1 s1 < <(awk '{print $14, $15}' "/proc/$PID/stat")
  used=$(redis-cli -p "$PORT" info memory | sed -n 's/^used_memory:\([0-9]*\).*/\1/p')
  max=$(redis-cli -p "$PORT" config get maxmemory | tail -1)
  evicted=$(redis-cli -p "$PORT" info stats | sed -n 's/^evicted_keys:\([0-9]*\).*/\1/p')
  keys=$(redis-cli -p "$PORT" dbsize)
  echo "$which $POLICY $LIMIT: $rps requests/s, $(( (u1 - u0 + s1 - s0) * 10000000 / N )) ns/request," \
       "evicted $evicted, keys $keys, used_memory/maxmemory $(awk "BEGIN{printf \"%.3f\", $used/$max}")"
  kill "$PID"; wait "$PID" 2>/dev/null || true
done
