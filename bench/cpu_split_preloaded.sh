#!/usr/bin/env bash
# Server CPU per request split into user and kernel time, and system calls per request,
# for HotKV or any redis-server (Redis 8.8: REDIS=/path/to/redis-server), on the CPU-per-op
# load of bench/run.sh --only cpu: 1,000,000 preloaded keys, redis-benchmark -c 50 -P 30
# -d 256 -r 1000000, server on core 0 (HotKV --threads 1), generator on core 1. One server
# runs the listed commands in turn (reads first).
#
#   bench/cpu_split_preloaded.sh hotkv|redis [COMMAND...]     # default: GET SET MGET ...
#   REDIS=../shared/peers/redis-8.8/redis-server bench/cpu_split_preloaded.sh redis GET
#   EXTRA="--pipeline-prefetch yes" BIN=build/release/hotkv-server bench/cpu_split_preloaded.sh hotkv GET
#   STRACE=1 ...   # also one run per command under `strace -c -f` (N/10 requests): syscalls per request
#   PIPELINE=1 ...  # redis-benchmark -P (default 30)
#
# CPU = utime/stime of the server from /proc/<pid>/stat (10 ms ticks) ÷ N (N=2000000,
# NMULTI=500000 for MGET/MSET). Indicative only on a shared machine: say so, and give the
# load average (printed first).
set -euo pipefail
cd "$(dirname "$0")/.."
which=${1:?hotkv or redis}
shift
CMDS=("$@")
[ ${#CMDS[@]} -gt 0 ] || CMDS=(GET MGET SET SETNX APPEND INCR LPUSH RPUSH SADD HSET MSET PING)
N=${N:-2000000}
NMULTI=${NMULTI:-500000}
KEYS=${KEYS:-1000000}
PIPELINE=${PIPELINE:-30}
BIN=${BIN:-build/release/hotkv-server}
REDIS=${REDIS:-redis-server}
PORT=$(/usr/bin/python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
if [ "$which" = hotkv ]; then
  # shellcheck disable=SC2086
  taskset -c 0 "$BIN" --port "$PORT" --threads 1 ${EXTRA:-} >/dev/null 2>&1 &
else
  # shellcheck disable=SC2086
  taskset -c 0 "$REDIS" --port "$PORT" --save '' --appendonly no ${EXTRA:-} >/dev/null 2>&1 &
fi
PID=$!
trap 'kill $PID 2>/dev/null; wait $PID 2>/dev/null || true' EXIT
for _ in $(seq 100); do redis-cli -p "$PORT" ping >/dev/null 2>&1 && break; sleep 0.1; done
echo "# $(date -u +%FT%TZ) $which ${BIN} ${REDIS} ${EXTRA:-}; -P $PIPELINE; load average $(cat /proc/loadavg)"
/usr/bin/python3 bench/harness/preload.py "$KEYS" 256 | taskset -c 1 redis-cli -p "$PORT" --pipe | tail -1
sleep 1
VALUE=$(printf 'x%.0s' $(seq 256))
printf '%-7s %9s %8s %8s %8s %10s\n' command requests user_ns kernel_ns total_ns syscalls/req
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
  read -r u0 s0 < <(awk '{print $14, $15}' "/proc/$PID/stat")
  taskset -c 1 redis-benchmark -p "$PORT" -c 50 -P "$PIPELINE" -d 256 -r "$KEYS" -n "$n" -q "${what[@]}" >/dev/null
  read -r u1 s1 < <(awk '{print $14, $15}' "/proc/$PID/stat")
  sc=-
  if [ -n "${STRACE:-}" ]; then
    m=$((n / 10))
    strace -c -f -p "$PID" -o "/tmp/strace-$$-$cmd.txt" &
    SPID=$!
    sleep 1
    taskset -c 1 redis-benchmark -p "$PORT" -c 50 -P "$PIPELINE" -d 256 -r "$KEYS" -n "$m" -q "${what[@]}" >/dev/null
    kill -INT $SPID; wait $SPID 2>/dev/null || true
    calls=$(awk '$NF=="total"{print $4}' "/tmp/strace-$$-$cmd.txt")
    sc=$(echo "scale=3; ${calls:-0} / $m" | bc)
    grep -E '^ *[0-9]' "/tmp/strace-$$-$cmd.txt" | sort -k4 -n -r | head -4 | awk -v c="$cmd" '{print "#   " c " " $NF " " $4}'
    rm -f "/tmp/strace-$$-$cmd.txt"
  fi
  u=$(( (u1 - u0) * 10000000 / n )); k=$(( (s1 - s0) * 10000000 / n ))
  printf '%-7s %9d %8d %8d %8d %10s\n' "$cmd" "$n" "$u" "$k" $((u + k)) "$sc"
done
