#!/bin/bash
# Engine A/B: old vs new build rate (vectors per CPU-s, single thread) and recall, same seed.
cd /work/wt/vecload
N=${N:-20000}
echo "date: $(date -u +%FT%TZ) loadavg: $(cat /proc/loadavg)"
for rep in 1 2; do
for v in old new; do
  echo "== $v rep $rep"
  ${VEB_DIR:-/tmp/vecload}/veb_$v --dataset=fashion --metric=cosine --n=$N --queries=1000 --skip-hnswlib \
    --reps=1 --recall-only --ef=40,80,150,300,500 --fashion-dir=/usr/share/datasets/fashion-mnist 2>&1 | grep -v "^ground\|progress"
done
done
echo "end loadavg: $(cat /proc/loadavg)"
