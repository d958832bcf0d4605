#!/usr/bin/env bash
# runs.sh REPS "RATES" "CONNS" "ARRIVALS" -- name:port:pid ... ; servers already up and preloaded.
# RT=1: every server (all threads) and the loadgen at SCHED_FIFO 20. LGT = loadgen threads (2).
cd /work/wt/tail
reps=$1; rates=$2; connsl=$3; arrivals=$4; shift 5
LG=build/release/tools/loadgen/hotkv-loadgen
names=(); declare -A PORT PID
for s in "$@"; do IFS=: read -r n p i <<<"$s"; names+=($n); PORT[$n]=$p; PID[$n]=$i; [ "${RT:-0}" = 1 ] && chrt -f -a -p 20 $i >/dev/null; done
rt=""; [ "${RT:-0}" = 1 ] && rt="chrt -f 20"
for rep in $(seq $reps); do
 order=("${names[@]}"); [ $((rep % 2)) = 0 ] && order=($(printf '%s\n' "${names[@]}" | tac))
 for rate in $rates; do for conns in $connsl; do for arrival in $arrivals; do for n in "${order[@]}"; do
  la=$(cut -d' ' -f1-3 /proc/loadavg); c0=$(awk '{print $14+$15}' /proc/${PID[$n]}/stat)
  cmd="taskset -c 1 $LG --port ${PORT[$n]} --rate $rate --connections $conns --threads ${LGT:-2} --arrival $arrival --duration ${DUR:-5} --warmup 1 --always-latency --json"
  out=$($rt $cmd)
  c1=$(awk '{print $14+$15}' /proc/${PID[$n]}/stat)
  echo "$n|rep$rep|$rate|$conns|$arrival|load $la|rt=${RT:-0} lgt=${LGT:-2}|srvticks=$((c1-c0))|$out"
 done; done; done; done
done
