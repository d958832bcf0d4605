#!/usr/bin/env bash
# Server instructions per request (callgrind) for the CPU-per-op commands, one server,
# 1,000,000 preloaded keys, the same redis-benchmark load as bench/run.sh --only cpu
# (-c 50 -P 30 -d 256 -r 1000000). Instruction counts do not depend on what else runs on
# the machine, so this is the figure for A/B comparisons on a shared machine.
#
#   bench/callgrind_per_op.sh hotkv OUTDIR [COMMAND...]       # BIN=... for another build
#   bench/callgrind_per_op.sh redis OUTDIR GET SET             # REDIS=... (default redis-server)
#   EXTRA="--pipeline-prefetch yes" bench/callgrind_per_op.sh hotkv /tmp/cg GET
#
# The server runs under `valgrind --tool=callgrind --instr-atstart=no`; the preload runs
# uninstrumented, then for each command: `callgrind_control -i on`, one redis-benchmark
# run of N requests (N=200000, NMULTI=50000 for MGET/MSET), dump, `-i off`. Every thread
# of the server counts. OUTDIR gets one callgrind.out per command and summary.txt
# (Ir/request = total Ir of the dump ÷ requests; the connection set-up of the 50
# clients is included, < 0.1 %).
set -euo pipefail
cd "$(dirname "$0")/.."
which=${1:?hotkv or redis}
OUT=${2:?output folder}
shift 2
CMDS=("$@")
[ ${#CMDS[@]} -gt 0 ] || CMDS=(GET MGET SET SETNX APPEND INCR LPUSH RPUSH SADD HSET MSET PING)
N=${N:-200000}
NMULTI=${NMULTI:-50000}
KEYS=${KEYS:-1000000}
BIN=${BIN:-build/release/hotkv-server}
REDIS=${REDIS:-redis-server}
mkdir -p "$OUT"
PORT=$(/usr/bin/python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
if [ "$which" = hotkv ]; then
  # shellcheck disable=SC2086
  SRV=("$BIN" --port "$PORT" --threads 1 ${EXTRA:-})
else
  # shellcheck disable=SC2086
  SRV=("$REDIS" --port "$PORT" --save '' --appendonly no ${EXTRA:-})
fi
taskset -c 0 valgrind --tool=callgrind --instr-atstart=no --callgrind-out-file="$OUT/callgrind.out.%p" \
  "${SRV[@]}" >"$OUT/server.log" 2>&1 &
VPID=$!
trap 'kill $VPID 2>/dev/null; wait $VPID 2>/dev/null || true' EXIT
for _ in $(seq 300); do redis-cli -p "$PORT" ping >/dev/null 2>&1 && break; sleep 0.2; done
/usr/bin/python3 bench/harness/preload.py "$KEYS" 256 | redis-cli -p "$PORT" --pipe | tail -1
VALUE=$(printf 'x%.0s' $(seq 256))
{
  echo "# $(date -u +%FT%TZ) $which ${SRV[*]}"
  echo "# load average at start: $(cat /proc/loadavg)"
  echo "# redis-benchmark -p PORT -c 50 -P 30 -d 256 -r $KEYS -n N, $KEYS keys preloaded"
  printf '%-8s %10s %14s %12s\n' command requests Ir Ir/request
} >"$OUT/summary.txt"
for cmd in "${CMDS[@]}"; do
  n=$N
  case $cmd in
    GET|SET|INCR|LPUSH|RPUSH|SADD|HSET) what=(-t "${cmd,,}") ;;
    PING) what=(-t ping_mbulk) ;;
    MSET) what=(-t mset); n=$NMULTI ;;
    MGET) what=(MGET); for _ in $(seq 10); do what+=(key:__rand_int__); done; n=$NMULTI ;;
    SETNX) what=(SETNX nxkey:__rand_int__ "$VALUE") ;;
    APPEND) what=(APPEND appkey:__rand_int__ "$VALUE") ;;
    *) echo "unknown command $cmd" >&2; exit 2 ;;
  esac
  callgrind_control -z "$VPID" >/dev/null
  callgrind_control -i on "$VPID" >/dev/null
  taskset -c 1 redis-benchmark -p "$PORT" -c 50 -P 30 -d 256 -r "$KEYS" -n "$n" -q "${what[@]}" >/dev/null
  callgrind_control -d "$cmd" "$VPID" >/dev/null
  callgrind_control -i off "$VPID" >/dev/null
  f=$(ls -t "$OUT"/callgrind.out.* | head -1)
  mv "$f" "$OUT/callgrind.out.$cmd"
  ir=$(sed -n 's/^summary: *//p;s/^totals: *//p' "$OUT/callgrind.out.$cmd" | head -1 | awk '{print $1}')
  printf '%-8s %10d %14d %12.0f\n' "$cmd" "$n" "$ir" "$(echo "$ir / $n" | bc -l)" | tee -a "$OUT/summary.txt"
done
