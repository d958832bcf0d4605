#!/bin/bash
# Alternating A/B of two HotKV binaries under the AOF SET load (measure.py, /proc CPU split):
#   ab.sh <rounds> <requests> <aof> <base-bin> <new-bin> <tag>
here=$(dirname "$0")
for i in $(seq 1 $1); do
  for v in base new; do
    bin=$4; [ $v = new ] && bin=$5
    if [ $((i % 2)) = 0 ]; then v2=$([ $v = base ] && echo new || echo base); bin=$4; [ $v2 = new ] && bin=$5; v=$v2; fi
    python3 $here/measure.py --label ab-$6-$v-$3-$i --server $bin --aof $3 --requests $2 | grep -E "total|benchmark" | sed "s/^/$v $i: /"
  done
done
