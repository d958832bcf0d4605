#!/usr/bin/env bash
# usage: lat.sh SERVER_BIN OUTDIR [server args]
set -u
cd /work/wt/vecrecall
BIN=$1; OUT=$2; shift 2
mkdir -p $OUT
port=$(python3 -c 'import socket;s=socket.socket();s.bind(("127.0.0.1",0));print(s.getsockname()[1])')
$BIN --port $port --bind 127.0.0.1 "$@" > $OUT/server.log 2>&1 &
pid=$!
for _ in $(seq 50); do redis-cli -p $port ping >/dev/null 2>&1 && break; sleep 0.1; done
DATA="--dataset=fashion --metric=cosine --n=${N:-20000} --queries=1000"
T=build/release/bench/vector/vector_server_bench
$T load --port=$port --key=v --dialect=vadd $DATA > $OUT/load.json 2>/dev/null
echo "loadavg $(cat /proc/loadavg)" > $OUT/lat.txt
for rep in 1 2; do
for c in 1 2; do
  redis-cli -p $port config resetstat >/dev/null
  $T query --port=$port --key=v --dialect=vadd $DATA --ef=40 --clients=$c --min-seconds=2 --server-pid=$pid 2>&1 >/dev/null | grep -E "^0 " >> $OUT/lat.txt
  redis-cli -p $port info commandstats | grep -E "vsim|vcard" >> $OUT/lat.txt
done
done
redis-cli -p $port --latency-history -i 1 2>/dev/null & lp=$!; sleep 2.5; kill $lp
kill $pid
cat $OUT/lat.txt
