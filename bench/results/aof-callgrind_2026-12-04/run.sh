#!/usr/bin/env bash
# Server instructions per SET with the AOF (everysec) on and off, base vs this branch,
# one and two worker threads (bench/callgrind_per_op.sh: 100k preloaded keys, 200k SETs,
# redis-benchmark -c 50 -P 30 -d 256). BASE and NEW: hotkv-server binaries.
#   BASE=/tmp/aofbase/hotkv-server NEW=build/release/hotkv-server \
#     bench/results/aof-callgrind_2026-12-04/run.sh
set -euo pipefail
cd "$(dirname "$0")/../../.."
OUT=bench/results/aof-callgrind_2026-12-04
for threads in 1 2; do
  for which in base new; do
    bin=$BASE; [ "$which" = new ] && bin=$NEW
    for aof in on off; do
      [ "$aof" = off ] && [ "$which" = base ] && continue  # the AOF path alone changed
      d=$(mktemp -d /tmp/aofcg.XXXXXX)
      extra="--threads $threads --dir $d"
      [ "$aof" = on ] && extra="$extra --appendonly yes --appendfsync everysec"
      KEYS=100000 N=200000 BIN=$bin EXTRA="$extra" \
        bench/callgrind_per_op.sh hotkv "/tmp/aofcg-$which-t$threads-$aof" SET >/dev/null
      cp "/tmp/aofcg-$which-t$threads-$aof/summary.txt" "$OUT/summary-$which-t$threads-aof$aof.txt"
      tail -1 "$OUT/summary-$which-t$threads-aof$aof.txt" | sed "s/^/$which t$threads aof=$aof: /"
      rm -rf "$d"
    done
  done
done
