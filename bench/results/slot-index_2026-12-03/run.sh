#!/bin/bash
# Slot-index cost: SET of new keys and DEL, memory per key; base (main) vs this branch
# with cluster-enabled no (counts only) and yes (counts + per-slot index).
# usage: run.sh BASE_BINARY NEW_BINARY ROUNDS
set -u
BASE=$1; NEW=$2; ROUNDS=${3:-3}
PORT=$((20000 + RANDOM % 20000))
cpu() { awk '{print $14+$15}' /proc/$1/stat; }
one() {  # name binary cluster
  local name=$1 bin=$2 cl=$3 dir; dir=$(mktemp -d)
  "$bin" --port $PORT --save "" --appendonly no --dir "$dir" --cluster-enabled $cl >/dev/null 2>&1 &
  local pid=$!
  for i in $(seq 50); do redis-cli -p $PORT ping >/dev/null 2>&1 && break; sleep 0.1; done
  local m0; m0=$(redis-cli -p $PORT info memory | awk -F: '/^used_memory:/{print $2+0}')
  local c0 t0 c1 t1 c2 t2
  c0=$(cpu $pid); t0=$(date +%s.%N)
  redis-benchmark -p $PORT -c 50 -P 50 -n 2000000 -r 1000000000 -q SET k:__rand_int__ v >/dev/null
  c1=$(cpu $pid); t1=$(date +%s.%N)
  local keys m1; keys=$(redis-cli -p $PORT dbsize); m1=$(redis-cli -p $PORT info memory | awk -F: '/^used_memory:/{print $2+0}')
  # DEL of the same key space shape: 2M random keys of the 1e9 range hit ~0; so delete by
  # SCAN-free means: a second SET/DEL pass over a 1M range, populated first.
  redis-benchmark -p $PORT -c 50 -P 50 -n 3000000 -r 1000000 -q SET d:__rand_int__ v >/dev/null
  local before; before=$(redis-cli -p $PORT dbsize)
  c1b=$(cpu $pid); t1b=$(date +%s.%N)
  redis-benchmark -p $PORT -c 50 -P 50 -n 2000000 -r 1000000 -q DEL d:__rand_int__ >/dev/null
  c2=$(cpu $pid); t2=$(date +%s.%N)
  local after; after=$(redis-cli -p $PORT dbsize)
  kill $pid; wait $pid 2>/dev/null; rm -rf "$dir"
  awk -v n="$name" -v k=$keys -v m0=$m0 -v m1=$m1 -v c0=$c0 -v c1=$c1 -v t0=$t0 -v t1=$t1 \
      -v c1b=$c1b -v c2=$c2 -v t1b=$t1b -v t2=$t2 -v del=$((before-after)) 'BEGIN{
    printf "%-14s keys=%d bytes/key=%.1f SET ops/s=%.0f SET cpu_us/op=%.3f | DEL deleted=%d ops/s=%.0f cpu_us/op=%.3f\n",
      n, k, (m1-m0)/k, 2000000/(t1-t0), (c1-c0)*10000/2000000, del, 2000000/(t2-t1b), (c2-c1b)*10000/2000000 }'
}
for r in $(seq $ROUNDS); do
  one base "$BASE" no
  one counts "$NEW" no
  one index "$NEW" yes
done
