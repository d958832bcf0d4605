#!/usr/bin/env bash
# p30b.sh REPS name:port:pid name:port:pid : server CPU ns per GET at redis-benchmark -P 30 -c 50
# (-r 1000000, keys key:<12 digits>: misses on these servers, loaded with key:<n>), alternating, SCHED_FIFO 20.
reps=$1; shift
for rep in $(seq $reps); do
  set -- $( [ $((rep % 2)) = 0 ] && printf '%s\n' "$@" | tac || printf '%s\n' "$@" )
  for s in "$@"; do IFS=: read -r n p i <<<"$s"
    c0=$(awk '{print $14+$15}' /proc/$i/stat)
    chrt -f 20 taskset -c 1 redis-benchmark -p $p -t get -P 30 -c 50 -d 256 -r 1000000 -n 1000000 -q > /tmp/tail/p30.out 2>&1
    c1=$(awk '{print $14+$15}' /proc/$i/stat)
    echo "$n rep$rep load $(cut -d' ' -f1 /proc/loadavg) ns/GET $(( (c1-c0)*10000000/1000000 )) rps $(tr '\r' '\n' < /tmp/tail/p30.out | grep -o 'GET: [0-9.]*' | tail -1)"
  done
done
