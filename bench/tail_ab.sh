#!/usr/bin/env bash
# Fixed-rate GET latency of several servers, alternating runs (issue 21's tail checks).
#
#   bench/tail_ab.sh REPS "RATES" "CONNS" "ARRIVALS" -- SPEC...   > runs.txt
#   python3 bench/tail_table.py < runs.txt                          # one line per run
#
# SPEC = name:kind:args, kind hotkv | before | r8 | r7, args with , for spaces, e.g.
#   bench/tail_ab.sh 2 "50000 100000" "50 500" bursty -- t1:hotkv:--threads,1 r8:r8: r7:r7:
# Starts every server on core 0 (preloaded, 1M keys × 256 B), then for each repetition,
# rate, connection count and arrival mode (bursty | uniform | poisson) runs
# hotkv-loadgen on core 1 against each server in turn (reversed on even repetitions).
# Env: BIN (HotKV binary), DUR (seconds, 5), RT=1 (SCHED_FIFO server and generator),
# NICE=1; `before` runs /tmp/tail/scratch/hotkv-trace (a scratch build). Output lines:
# name|rep|rate|conns|arrival|load|rt|srvticks|loadgen JSON.
set -u
cd "$(dirname "$0")/.."
mkdir -p /tmp/tail
reps=$1; rates=$2; connsl=$3; arrivals=$4; shift 5
LG=build/release/tools/loadgen/hotkv-loadgen
declare -A PORT PID
names=()
for spec in "$@"; do
  IFS=: read -r name kind args <<<"$spec"; args=${args//,/ }
  port=$(/usr/bin/python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
  case $kind in
    hotkv) taskset -c 0 ${BIN:-build/release/hotkv-server} --port $port $args >/tmp/tail/server-$name.log 2>&1 & ;;
    before) taskset -c 0 /tmp/tail/scratch/hotkv-trace --port $port $args >/tmp/tail/server-$name.log 2>&1 & ;;
    r8) taskset -c 0 /work/shared/peers/redis-8.8/redis-server --port $port --save '' --appendonly no $args >/dev/null 2>&1 & ;;
    r7) taskset -c 0 redis-server --port $port --save '' --appendonly no $args >/dev/null 2>&1 & ;;
  esac
  PID[$name]=$!; PORT[$name]=$port; names+=($name)
  for _ in $(seq 50); do redis-cli -p $port ping >/dev/null 2>&1 && break; sleep 0.1; done
  taskset -c 1 $LG --port $port --load 1m --value-size 256 --json >/dev/null
  [ "${RT:-0}" = 1 ] && chrt -f -a -p 20 ${PID[$name]} >/dev/null
  if [ "${NICE:-0}" = 1 ]; then for t in /proc/${PID[$name]}/task/*; do renice -n -20 -p $(basename $t) >/dev/null; done; fi
done
[ "${NICE:-0}" = 1 ] && rt="nice -n -20"
rt=${rt:-}; if [ "${RT:-0}" = 1 ] || [ "${RTLG:-0}" = 1 ]; then rt="chrt -f 20"; fi
for rep in $(seq $reps); do
 order=("${names[@]}"); [ $((rep % 2)) = 0 ] && order=($(printf '%s\n' "${names[@]}" | tac))
 for rate in $rates; do for conns in $connsl; do for arrival in $arrivals; do for name in "${order[@]}"; do
  spid=${PID[$name]}; la=$(cut -d' ' -f1-3 /proc/loadavg)
  c0=$(awk '{print $14+$15}' /proc/$spid/stat)
  out=$($rt taskset -c 1 $LG --port ${PORT[$name]} --rate $rate --connections $conns --threads 2 --arrival $arrival --duration ${DUR:-5} --warmup 1 --always-latency --json)
  c1=$(awk '{print $14+$15}' /proc/$spid/stat)
  echo "$name|rep$rep|$rate|$conns|$arrival|load $la|rt=${RT:-0}${NICE:+ nice=$NICE}|srvticks=$((c1-c0))|$out"
 done; done; done; done
done
for name in "${names[@]}"; do kill ${PID[$name]}; done; wait
