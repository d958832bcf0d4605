#!/usr/bin/env bash
# Server instructions per PCACHE.LONGEST of a 4,000-block chain, per LONGESTBLOB of the
# same keys, and per 4,000 pipelined EXISTS (callgrind: the figure for A/B comparisons on
# a shared machine, user space only).
#
#   bench/pcache_callgrind.sh OUTDIR [ROUNDS]      # BIN=... for another build, KEYS=bin16
#                                                  # for 16-byte binary keys (both ways)
#
# The server (--threads 1) runs under `valgrind --tool=callgrind --instr-atstart=no`;
# bench/pcache_callgrind_load.py sets up the chain and the string keys uninstrumented,
# then for each mode: `callgrind_control -i on`, ROUNDS (50) requests, dump, `-i off`.
# OUTDIR gets one callgrind.out per mode and summary.txt (Ir per request, top functions:
# bench/pcache_callgrind_sum.py).
set -euo pipefail
cd "$(dirname "$0")/.."
OUT=${1:?output folder}
ROUNDS=${2:-50}
BIN=${BIN:-build/release/hotkv-server}
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
PORT=$(/usr/bin/python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
taskset -c 0 valgrind --tool=callgrind --instr-atstart=no --callgrind-out-file="$OUT/callgrind.out.%p" \
  "$BIN" --port "$PORT" --threads 1 --save '' >"$OUT/server.log" 2>&1 &
VPID=$!
trap 'kill $VPID 2>/dev/null; wait $VPID 2>/dev/null || true' EXIT
for _ in $(seq 300); do redis-cli -p "$PORT" ping >/dev/null 2>&1 && break; sleep 0.2; done
LOAD=(/usr/bin/python3 bench/pcache_callgrind_load.py "$PORT" "$OUT/keys")
"${LOAD[@]}" setup
{
  echo "# $(date -u +%FT%TZ) $BIN --threads 1 under callgrind; $ROUNDS requests per mode; KEYS=${KEYS:-hex32}"
  echo "# load average at start: $(cat /proc/loadavg)"
} >"$OUT/summary.txt"
for mode in longest blob exists; do
  callgrind_control -i on "$VPID" >/dev/null
  "${LOAD[@]}" "$mode" "$ROUNDS"
  callgrind_control -d "$mode" "$VPID" >/dev/null
  callgrind_control -i off "$VPID" >/dev/null
  f=$(ls -t "$OUT"/callgrind.out.* | head -1)
  mv "$f" "$OUT/callgrind.out.$mode"
  {
    echo "== $mode"
    /usr/bin/python3 bench/pcache_callgrind_sum.py "$OUT/callgrind.out.$mode" "$ROUNDS"
  } >>"$OUT/summary.txt"
done
cat "$OUT/summary.txt"
