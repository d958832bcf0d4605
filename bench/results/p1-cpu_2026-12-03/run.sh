#!/usr/bin/env bash
# Server CPU per request at pipeline 1, 50 clients (issue 21 target: <= 0.7x Redis 8.8 on GET and SET).
# Server on core 0, redis-benchmark on core 1; SET fills 100k keys, then GET reads them.
set -u
N=${N:-400000}
for spec in "hotkv:build/release/hotkv-server --threads 1" "redis8:/work/shared/peers/redis-8.8/redis-server --save '' --appendonly no" "redis7:redis-server --save '' --appendonly no"; do
  name=${spec%%:*}; cmd=${spec#*:}
  port=$(python3 -c 'import socket;s=socket.socket();s.bind(("127.0.0.1",0));print(s.getsockname()[1])')
  eval "taskset -c 0 $cmd --port $port >/dev/null 2>&1 &"; pid=$!
  for _ in $(seq 50); do redis-cli -p $port ping >/dev/null 2>&1 && break; sleep 0.1; done
  for t in set get; do
    c0=$(awk '{print $14+$15}' /proc/$pid/stat)
    out=$(taskset -c 1 redis-benchmark -p $port -c 50 -P 1 -d 256 -r 100000 -n $N -t $t --csv | tail -1)
    c1=$(awk '{print $14+$15}' /proc/$pid/stat)
    echo "$name $t cpu_ns_per_op=$(( (c1-c0)*10000000/N )) $out load=$(cut -d' ' -f1 /proc/loadavg)"
  done
  kill $pid; wait $pid 2>/dev/null
done
