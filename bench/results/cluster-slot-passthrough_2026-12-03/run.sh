#!/bin/bash
# usage: run.sh BINARY TAG PORT  -- callgrind of a cluster-mode HotKV (1 worker, all slots)
# under redis-benchmark -t set,get -n 20000 -P 16 -c 1; counts only inside hotkv::Dispatch.
set -e
BIN=$1; TAG=$2; P=$3
D=/tmp/clleft_cg/$TAG; rm -rf $D; mkdir -p $D; cd $D
valgrind --tool=callgrind --callgrind-out-file=$D/cg.out --collect-atstart=yes \
  $BIN --port $P --threads 1 --cluster-enabled yes \
  --cluster-config-file nodes.conf --dir $D --cluster-node-timeout 1000 > $D/log 2>&1 &
VP=$!
for i in $(seq 1 100); do redis-cli -p $P ping >/dev/null 2>&1 && break; sleep 0.3; done
redis-cli -p $P cluster addslotsrange 0 16383 >/dev/null
for i in $(seq 1 100); do redis-cli -p $P cluster info | grep -q cluster_state:ok && break; sleep 0.3; done
redis-benchmark -p $P -t set,get -n 20000 -P 16 -c 1 -r 100000 -q 2>&1 | tr "\r" "\n" | grep -v rps=
kill $VP; wait $VP || true
callgrind_annotate $D/cg.out 2>/dev/null | grep -m1 "PROGRAM TOTALS"
callgrind_annotate --inclusive=yes $D/cg.out 2>/dev/null | grep -i "crc16\|KeySlot\|Route\|LocateKey\|HashKey\|DispatchInner\|RunCommand" | head -12
