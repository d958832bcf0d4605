#!/bin/bash
# Resharding speed: 3 cluster nodes of BINARY, `redis-cli --cluster create`, N keys of
# 64-byte strings written with redis-benchmark --cluster, then every slot of the first
# node moved to the third with `redis-cli --cluster reshard` (default pipeline 10 keys
# per MIGRATE). keys/s = keys the first node held / wall seconds of the reshard.
# usage: run.sh BINARY [KEYS]
set -eu
BIN=$1; N=${2:-200000}
W=$(mktemp -d)
pids=()
ports=()
for i in 0 1 2; do
  while :; do p=$((20000 + RANDOM % 20000)); ! ss -ltn | grep -q ":$p \|:$((p+10000)) " && break; done
  ports+=($p); mkdir -p $W/$p
  extra=(); case "$(basename $BIN)" in redis-server*) extra=(--save "" --appendonly no);; esac
  (cd $W/$p && exec "$BIN" --port $p --bind 127.0.0.1 --cluster-enabled yes --cluster-config-file nodes.conf --dir $W/$p "${extra[@]}" > $W/$p/log 2>&1) &
  pids+=($!)
done
cleanup() { for pid in "${pids[@]}"; do kill $pid 2>/dev/null || true; done; wait 2>/dev/null; rm -rf $W; }
trap cleanup EXIT
for p in "${ports[@]}"; do for i in $(seq 100); do redis-cli -p $p ping >/dev/null 2>&1 && break; sleep 0.1; done; done
redis-cli --cluster create 127.0.0.1:${ports[0]} 127.0.0.1:${ports[1]} 127.0.0.1:${ports[2]} --cluster-yes > $W/create.log 2>&1
for p in "${ports[@]}"; do for i in $(seq 300); do redis-cli -p $p cluster info | grep -q cluster_state:ok && break; sleep 0.1; done; done
redis-benchmark --cluster -h 127.0.0.1 -p ${ports[0]} -t set -n $((N * 3 / 2)) -r $((N * 1000)) -d 64 -P 16 -q > $W/bench.log 2>&1 || { echo "redis-benchmark failed:"; tail -5 $W/bench.log; }
A=$(redis-cli -p ${ports[0]} cluster myid); C=$(redis-cli -p ${ports[2]} cluster myid)
keys=$(redis-cli -p ${ports[0]} dbsize)
slots=$(redis-cli -p ${ports[0]} cluster nodes | awk '/myself/{n=0; for(i=9;i<=NF;i++){split($i,r,"-"); n+=(r[2]==""?1:r[2]-r[1]+1)}; print n}')
t0=$(date +%s.%N)
redis-cli --cluster reshard 127.0.0.1:${ports[0]} --cluster-from $A --cluster-to $C --cluster-slots $slots --cluster-yes > $W/reshard.log 2>&1
t1=$(date +%s.%N)
left=$(redis-cli -p ${ports[0]} dbsize)
redis-cli --cluster check 127.0.0.1:${ports[1]} > $W/check.log 2>&1 && check=clean || check=FAILED
awk -v b="$(basename $BIN)" -v k=$keys -v s=$slots -v l=$left -v t0=$t0 -v t1=$t1 -v c=$check 'BEGIN{
  printf "%s: moved %d keys in %d slots in %.2f s = %.0f keys/s (left on source: %d, check %s)\n", b, k, s, t1-t0, k/(t1-t0), l, c }'
