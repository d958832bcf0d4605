#!/usr/bin/env bash
# Server instructions per SET with the AOF (everysec) on and off, base (main 76810ef) vs
# h/aof, one and two worker threads, through bench/callgrind_per_op.sh (100k preloaded
# keys, 200k SETs, redis-benchmark -c 50 -P 30 -d 256). With two threads the epoll
# backend: under valgrind the io_uring backend with two workers hung in the preload.
#   BASE=/tmp/aofbase/hotkv-server NEW=build/release/hotkv-server \
#     bench/results/aof-callgrind-2_2026-12-03/run.sh
set -euo pipefail
cd "$(dirname "$0")/../../.."
run() {  # name binary extra
  d=$(mktemp -d /tmp/aofcg.XXXXXX)
  KEYS=100000 N=200000 BIN=$2 EXTRA="$3 --dir $d" bench/callgrind_per_op.sh hotkv "/tmp/$1" SET >/dev/null
  cp "/tmp/$1/summary.txt" "bench/results/aof-callgrind-2_2026-12-03/summary-$1.txt"
}
AOF="--appendonly yes --appendfsync everysec"
run aofcg-base-t1-on "$BASE" "--threads 1 $AOF"
run aofcg-new-t1-on "$NEW" "--threads 1 $AOF"
run aofcg-new-t1-off "$NEW" "--threads 1"
run aofcg2-base-t2-on "$BASE" "--threads 2 --io-backend epoll $AOF"
run aofcg2-new-t2-on "$NEW" "--threads 2 --io-backend epoll $AOF"
run aofcg2-new-t2-off "$NEW" "--threads 2 --io-backend epoll"
run aofcg2-final-t1-on "$NEW" "--threads 1 $AOF"
# Per SET without the active expiry cycle (it runs by time, so its share varies with
# the machine's load): (total - inclusive Worker::Cron) / 200000, from
#   callgrind_annotate --inclusive=yes /tmp/<name>/callgrind.out.SET
