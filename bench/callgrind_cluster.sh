#!/usr/bin/env bash
# Server instructions per request (callgrind) of ONE cluster node on bench/cluster.py's
# 12 reference commands, keys as `redis-benchmark --cluster` makes them (one {tag}, so
# one slot), for A/B comparisons of cluster mode's own cost on a shared machine:
#
#   bench/callgrind_cluster.sh hotkv-cluster OUTDIR [COMMAND...]  # --cluster-enabled yes, all slots
#   bench/callgrind_cluster.sh hotkv-plain   OUTDIR [COMMAND...]  # the same load, cluster mode off
#   bench/callgrind_cluster.sh redis-cluster OUTDIR [COMMAND...]  # redis-server (7.0) in cluster mode
#   BIN=/tmp/base/hotkv-server bench/callgrind_cluster.sh hotkv-cluster OUTDIR   # another build
#
# The server (HotKV with --threads 1) runs under `valgrind --tool=callgrind
# --instr-atstart=no`; in cluster mode it gets all 16384 slots (CLUSTER ADDSLOTSRANGE)
# and must say cluster_state:ok. Then, on the empty server, the commands in
# bench/cluster.py's order, each: `callgrind_control -z` and `-i on`, one redis-benchmark
# run (-c 50 -P 100 -d 256 -r 1000000, N requests: N=200000, NMULTI=50000 for MGET/MSET),
# dump, `-i off`. Every thread of the server counts. OUTDIR gets one callgrind.out per
# command and summary.txt (Ir/request = the dump's total Ir / requests; the 50 clients'
# connection set-up is included).
#
# The keys and arguments are redis-benchmark's own for -t set/get/incr/lpush/rpush/sadd/
# hset with its cluster tag, and bench/cluster.py's for MGET/MSET/SETNX/APPEND:
# key:{tag}:__rand_int__, counter:{tag}:__rand_int__, mylist:{tag}, myset:{tag},
# myhash:{tag}, nxkey:{tag}:..., appkey:{tag}:...; values of 256 bytes.
set -euo pipefail
cd "$(dirname "$0")/.."
mode=${1:?hotkv-cluster, hotkv-plain or redis-cluster}
OUT=${2:?output folder}
shift 2
CMDS=("$@")
[ ${#CMDS[@]} -gt 0 ] || CMDS=(PING SET GET MGET SETNX APPEND INCR LPUSH RPUSH SADD HSET MSET)
N=${N:-200000}
NMULTI=${NMULTI:-50000}
BIN=${BIN:-build/release/hotkv-server}
REDIS=${REDIS:-redis-server}
mkdir -p "$OUT"
rm -f "$OUT"/callgrind.out.*
PORT=$(/usr/bin/python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
DIR=$(mktemp -d /tmp/cg-cluster.XXXXXX)
CL=(--cluster-enabled yes --cluster-config-file "$DIR/nodes.conf" --cluster-node-timeout 5000
    --cluster-port $((PORT + 10000 > 65535 ? PORT - 10000 : PORT + 10000)))
case $mode in
  hotkv-cluster) SRV=("$BIN" --port "$PORT" --threads 1 --save '' --appendonly no --dir "$DIR" "${CL[@]}") ;;
  hotkv-plain) SRV=("$BIN" --port "$PORT" --threads 1 --save '' --appendonly no --dir "$DIR") ;;
  redis-cluster) SRV=("$REDIS" --port "$PORT" --save '' --appendonly no --dir "$DIR" "${CL[@]}") ;;
  *) echo "unknown mode $mode" >&2; exit 2 ;;
esac
taskset -c 0 valgrind --tool=callgrind --instr-atstart=no --callgrind-out-file="$OUT/callgrind.out.%p" \
  "${SRV[@]}" >"$OUT/server.log" 2>&1 &
VPID=$!
trap 'kill $VPID 2>/dev/null; wait $VPID 2>/dev/null || true; rm -rf "$DIR"' EXIT
for _ in $(seq 300); do redis-cli -p "$PORT" ping >/dev/null 2>&1 && break; sleep 0.2; done
if [ "$mode" != hotkv-plain ]; then
  redis-cli -p "$PORT" cluster addslotsrange 0 16383 >/dev/null
  for _ in $(seq 150); do
    redis-cli -p "$PORT" cluster info | grep -q cluster_state:ok && break
    sleep 0.2
  done
  redis-cli -p "$PORT" cluster info | grep -q cluster_state:ok || { echo "cluster_state never ok" >&2; exit 1; }
fi
V=$(printf 'x%.0s' $(seq 256))
{
  echo "# $(date -u +%FT%TZ) $mode ${SRV[*]}"
  echo "# git: $(git rev-parse --short HEAD 2>/dev/null || echo -) binary: $(sha1sum "${SRV[0]}" 2>/dev/null | cut -c1-12 || echo -)"
  echo "# load average at start: $(cat /proc/loadavg)"
  echo "# redis-benchmark -p PORT -c 50 -P 100 -d 256 -r 1000000 -n N, empty server, commands in this order"
  printf '%-8s %10s %14s %12s\n' command requests Ir Ir/request
} >"$OUT/summary.txt"
for cmd in "${CMDS[@]}"; do
  n=$N
  case $cmd in
    PING) what=(-t ping_mbulk) ;;
    SET) what=(SET "key:{tag}:__rand_int__" "$V") ;;
    GET) what=(GET "key:{tag}:__rand_int__") ;;
    INCR) what=(INCR "counter:{tag}:__rand_int__") ;;
    LPUSH) what=(LPUSH "mylist:{tag}" "$V") ;;
    RPUSH) what=(RPUSH "mylist:{tag}" "$V") ;;
    SADD) what=(SADD "myset:{tag}" "element:__rand_int__") ;;
    HSET) what=(HSET "myhash:{tag}" "element:__rand_int__" "$V") ;;
    SETNX) what=(SETNX "nxkey:{tag}:__rand_int__" "$V") ;;
    APPEND) what=(APPEND "appkey:{tag}:__rand_int__" "$V") ;;
    MGET) what=(MGET); for _ in $(seq 10); do what+=("key:{tag}:__rand_int__"); done; n=$NMULTI ;;
    MSET) what=(MSET); for _ in $(seq 10); do what+=("key:{tag}:__rand_int__" "$V"); done; n=$NMULTI ;;
    *) echo "unknown command $cmd" >&2; exit 2 ;;
  esac
  callgrind_control -z "$VPID" >/dev/null
  callgrind_control -i on "$VPID" >/dev/null
  taskset -c 1 redis-benchmark -p "$PORT" -c 50 -P 100 -d 256 -r 1000000 -n "$n" -q "${what[@]}" \
    >"$OUT/bench-$cmd.txt" 2>&1
  callgrind_control -d "$cmd" "$VPID" >/dev/null
  callgrind_control -i off "$VPID" >/dev/null
  f=$(ls -t "$OUT"/callgrind.out.* | grep -v '\.[A-Z]*$' | head -1)
  mv "$f" "$OUT/callgrind.out.$cmd"
  ir=$(sed -n 's/^summary: *//p;s/^totals: *//p' "$OUT/callgrind.out.$cmd" | head -1 | awk '{print $1}')
  printf '%-8s %10d %14d %12.0f\n' "$cmd" "$n" "$ir" "$(echo "$ir / $n" | bc -l)" | tee -a "$OUT/summary.txt"
done
echo "# dbsize at end: $(redis-cli -p "$PORT" dbsize)" >>"$OUT/summary.txt"
