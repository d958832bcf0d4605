#!/usr/bin/env bash
# Fixed-rate SETs of new keys (open loop, hotkv-loadgen): latency while the data set
# grows, with the server's CPU and RSS afterwards. Used to judge memory settings that
# change what a page fault costs a request (prefault-memory, hugepages).
#
#   bench/write_latency.sh hotkv|redis|redis8 RATE SECONDS [server options...]
#   bench/write_latency.sh hotkv 100000 10 --prefault-memory no
#
# The server runs on core 0 (HotKV with --threads 1), the generator on core 1, 50
# connections, 256-byte values, keys drawn from 10^9 so nearly every SET creates a key.
set -euo pipefail
cd "$(dirname "$0")/.."
which=${1:?hotkv or redis}; rate=${2:?rate}; secs=${3:?seconds}; shift 3
BIN=${BIN:-build/release/hotkv-server}
LOADGEN=${LOADGEN:-build/release/tools/loadgen/hotkv-loadgen}
[ -x "$BIN" ] && [ -x "$LOADGEN" ] || make build >/dev/null
# shellcheck source=bench/server_lib.sh
. bench/server_lib.sh
start_server "$which" "$@"
read -r u0 s0 < <(awk '{print $14, $15}' "/proc/$PID/stat")
taskset -c 1 "$LOADGEN" --port "$PORT" --rate "$rate" --duration "$secs" --warmup 1 \
  --command set --keyspace 1000000000 --connections 50 | grep -E "achieved|latency us"
read -r u1 s1 < <(awk '{print $14, $15}' "/proc/$PID/stat")
echo "$which $*: server cpu user $(( (u1 - u0) * 10 )) ms, kernel $(( (s1 - s0) * 10 )) ms;" \
  "rss $(awk '/VmRSS/{print $2}' "/proc/$PID/status") kB; keys $(redis-cli -p "$PORT" dbsize)"
