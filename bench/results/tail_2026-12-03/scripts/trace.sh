#!/usr/bin/env bash
# trace.sh "server args" rate conns : trace server, preload, bursty + uniform runs, dumps LT histograms
cd /work/wt/tail
sargs=$1; rate=$2; conns=$3
port=$(/usr/bin/python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
HOTKV_LOOPTRACE=1 taskset -c 0 /tmp/tail/scratch/hotkv-trace --port $port $sargs 2>/tmp/tail/trace.err >/dev/null & tp=$!
sleep 0.5
taskset -c 1 build/release/tools/loadgen/hotkv-loadgen --port $port --load 1m --value-size 256 >/dev/null
for arr in bursty uniform; do
  kill -USR2 $tp; sleep 0.2
  echo "== $arr $rate $conns load $(cut -d' ' -f1 /proc/loadavg)"
  taskset -c 1 build/release/tools/loadgen/hotkv-loadgen --port $port --rate $rate --connections $conns --threads 2 --arrival $arr --duration 5 --warmup 1 --always-latency | grep -E "achieved|latency us|send lag"
  sleep 0.2; kill -USR2 $tp; sleep 0.3
done
kill $tp; wait $tp
grep LT /tmp/tail/trace.err
