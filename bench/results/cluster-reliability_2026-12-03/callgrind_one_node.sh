#!/bin/bash
# usage: cg.sh BIN MODE(cluster|plain) CMD N OUTDIR [PRELOAD_CMDS]
# callgrind Ir of one HotKV node (--threads 1) for N requests of CMD, keys in one slot
# ({tag}) as redis-benchmark --cluster makes them; cluster mode: all slots on this node.
set -e
BIN=$1; MODE=$2; CMD=$3; N=$4; OUT=$5
mkdir -p $OUT; rm -f $OUT/cg.out.*
P=$(/usr/bin/python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
D=$(mktemp -d /tmp/cl2/cgdir.XXXX)
EXTRA=""
[ "$MODE" = cluster ] && EXTRA="--cluster-enabled yes --cluster-config-file $D/nodes.conf --cluster-node-timeout 5000"
valgrind --tool=callgrind --instr-atstart=no --callgrind-out-file=$OUT/cg.out.%p \
  $BIN --port $P --threads 1 --save "" --appendonly no --dir $D $EXTRA > $OUT/server.log 2>&1 &
VP=$!
trap 'kill $VP 2>/dev/null; wait $VP 2>/dev/null || true' EXIT
for i in $(seq 300); do redis-cli -p $P ping >/dev/null 2>&1 && break; sleep 0.2; done
if [ "$MODE" = cluster ]; then
  redis-cli -p $P cluster addslotsrange 0 16383 >/dev/null
  for i in $(seq 100); do redis-cli -p $P cluster info | grep -q cluster_state:ok && break; sleep 0.3; done
fi
V=$(printf 'x%.0s' $(seq 256))
case $CMD in
  APPEND) what=(APPEND "appkey:{tag}:__rand_int__" "$V");;
  SET) what=(SET "key:{tag}:__rand_int__" "$V");;
  MSET) what=(MSET); for j in $(seq 10); do what+=("key:{tag}:__rand_int__" "$V"); done;;
esac
# warm: the same command once over a separate key range (tables allocated)
callgrind_control -i on $VP >/dev/null
redis-benchmark -p $P -c 50 -P 100 -n $N -r 1000000 -q "${what[@]}" > $OUT/bench.txt 2>&1 || true
callgrind_control -d $VP >/dev/null
callgrind_control -i off $VP >/dev/null
redis-cli -p $P dbsize > $OUT/dbsize.txt
kill $VP; wait $VP 2>/dev/null || true
trap - EXIT
f=$(ls $OUT/cg.out.* | grep -v '\.1$' | head -1)
tot=$(callgrind_annotate $(ls $OUT/cg.out.*.1 2>/dev/null || echo $f) 2>/dev/null | grep -m1 "PROGRAM TOTALS" | awk '{gsub(",","",$1); print $1}')
echo "$MODE $CMD N=$N Ir=$tot Ir/req=$((tot / N)) keys=$(cat $OUT/dbsize.txt)"
rm -rf $D
