#!/bin/bash
# Issue 19's prompt-cache targets with C++ clients on one connection, each server alone
# on core 0 (HotKV --threads 1), the client on core 1:
#   prefix  hotkv-prefixbench: PCACHE.LONGEST (and LONGESTBLOB) of a --blocks chain vs as
#           many pipelined EXISTS, round trip and server CPU per lookup; the EXISTS way on
#           Redis 8.8 too; "floor": the same request bytes received by a bare thread.
#   big     hotkv-bigvalue: 32 MiB PCACHE.GET / GET round trips (GB/s) and server CPU, HotKV
#           io_uring and epoll, Redis 8.8 GET, and the client's own loopback ceiling;
#           with the client's socket buffers raised (64 MiB asked) and left to autotuning.
#
#   bench/pcache_targets.sh OUTDIR [prefix|big|all] [rounds]
#   BIN=... (default build/release/hotkv-server)  BASE=<another hotkv-server: A/B rows>
#   REPS_PREFIX=300 REPS_BIG=20 BLOCKS=4000 KEYS=hex32|bin16 (prefixbench --keys: 32 hex
#   digits, or 16 raw bytes for LONGEST, LONGESTBLOB and the EXISTS way alike)
set -euo pipefail
cd "$(dirname "$0")/.."
source bench/server_lib.sh
OUT=$1
WHAT=${2:-all}
ROUNDS=${3:-2}
mkdir -p "$OUT"
BIN=${BIN:-build/release/hotkv-server}
BASE=${BASE:-}
PB=build/release/tools/prefixbench/hotkv-prefixbench
BV=build/release/tools/bigvalue/hotkv-bigvalue
REPS_PREFIX=${REPS_PREFIX:-300}
REPS_BIG=${REPS_BIG:-20}
BLOCKS=${BLOCKS:-4000}
KEYS=${KEYS:-hex32}

stop() { kill "$PID" 2>/dev/null || true; wait "$PID" 2>/dev/null || true; }
hdr() { echo "== $1 | $(date -u +%H:%M:%S) load $(cut -d' ' -f1-3 /proc/loadavg)"; }

prefix() {
  local f=$OUT/prefix.txt
  echo "# $PB --blocks $BLOCKS --reps $REPS_PREFIX --keys $KEYS (client: taskset -c 1), servers on core 0: $BIN --threads 1${BASE:+, base $BASE}, Redis 8.8 --save '' --appendonly no" >>"$f"
  for r in $(seq "$ROUNDS"); do
    for b in "$BIN" $BASE "$BIN epoll"; do
      local bin=${b% epoll} be=io_uring
      [ "$bin" != "$b" ] && be=epoll
      BIN=$bin start_server hotkv --bind 127.0.0.1 --save '' --io-backend $be
      hdr "hotkv $bin, $be (round $r)" >>"$f"
      taskset -c 1 "$PB" --port "$PORT" --pid "$PID" --blocks "$BLOCKS" --reps "$REPS_PREFIX" \
        --keys "$KEYS" --modes longest,blob,exists >>"$f"
      stop
    done
    start_server redis8 --bind 127.0.0.1
    hdr "redis 8.8 (round $r)" >>"$f"
    taskset -c 1 "$PB" --port "$PORT" --pid "$PID" --blocks "$BLOCKS" --reps "$REPS_PREFIX" --keys "$KEYS" --modes exists >>"$f"
    stop
    hdr "floor (round $r): bare receiving thread on core 0" >>"$f"
    taskset -c 0,1 "$PB" --blocks "$BLOCKS" --reps "$REPS_PREFIX" --keys "$KEYS" --modes floor >>"$f"
  done
}

big() {
  local f=$OUT/bigvalue.txt
  echo "# $BV --reps $REPS_BIG (client: taskset -c 1), servers on core 0: $BIN --threads 1, Redis 8.8 --save '' --appendonly no; sockbuf: the client's SO_RCVBUF/SO_SNDBUF request (0: autotuning)" >>"$f"
  for r in $(seq "$ROUNDS"); do
    for sb in 67108864 0; do
      start_server hotkv --bind 127.0.0.1 --save ''
      hdr "hotkv io_uring, sockbuf $sb (round $r)" >>"$f"
      taskset -c 1 "$BV" --port "$PORT" --pid "$PID" --reps "$REPS_BIG" --sockbuf "$sb" --modes pcache,string >>"$f"
      redis-cli -p "$PORT" info stats | grep -E "total_net_output_bytes|total_writes_processed" >>"$f"
      stop
      start_server hotkv --bind 127.0.0.1 --save '' --io-backend epoll
      hdr "hotkv epoll, sockbuf $sb (round $r)" >>"$f"
      taskset -c 1 "$BV" --port "$PORT" --pid "$PID" --reps "$REPS_BIG" --sockbuf "$sb" --modes pcache,string >>"$f"
      redis-cli -p "$PORT" info stats | grep -E "total_net_output_bytes|total_writes_processed" >>"$f"
      stop
      start_server redis8 --bind 127.0.0.1
      hdr "redis 8.8, sockbuf $sb (round $r)" >>"$f"
      taskset -c 1 "$BV" --port "$PORT" --pid "$PID" --reps "$REPS_BIG" --sockbuf "$sb" --modes string >>"$f"
      redis-cli -p "$PORT" info stats | grep -E "total_net_output_bytes|total_writes_processed" >>"$f"
      stop
      hdr "ceiling, sockbuf $sb (round $r): the client's own thread sends, core 0" >>"$f"
      taskset -c 0,1 "$BV" --reps "$REPS_BIG" --sockbuf "$sb" --modes ceiling >>"$f"
    done
  done
}

case $WHAT in
  prefix) prefix ;;
  big) big ;;
  all) prefix; big ;;
esac
