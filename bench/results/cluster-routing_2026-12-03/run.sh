#!/bin/bash
# CPU per op of hotkv-server for SET/GET at pipeline 100, cluster-enabled no vs yes (one node serving every slot).
BIN=$1; PORT=$2; MODE=$3
rm -rf d$PORT; mkdir d$PORT
ARGS="--port $PORT --bind 127.0.0.1 --dir /tmp/clstate_bench/d$PORT --threads 1"
[ "$MODE" = yes ] && ARGS="$ARGS --cluster-enabled yes --cluster-port $((PORT+1)) --cluster-node-timeout 500"
$BIN $ARGS >/dev/null 2>&1 & PID=$!
sleep 0.5
[ "$MODE" = yes ] && { redis-cli -p $PORT cluster addslotsrange 0 16383 >/dev/null; until redis-cli -p $PORT cluster info | grep -q state:ok; do sleep 0.1; done; }
for t in set get; do
  a=$(awk '{print $14+$15}' /proc/$PID/stat)
  redis-benchmark -p $PORT -P 100 -n 2000000 -r 100000 -d 16 -t $t -q | tr '\r' '\n' | grep -v "^$" | tail -1
  b=$(awk '{print $14+$15}' /proc/$PID/stat)
  echo "cluster=$MODE $t cpu_ticks=$((b-a)) ns_per_op=$(( (b-a)*10000000/2000000 ))"
done
kill $PID; wait $PID 2>/dev/null
