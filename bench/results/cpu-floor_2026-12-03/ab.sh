#!/bin/bash
# ab.sh OUTDIR ROUNDS BIN... : alternated native CPU split runs of each binary (and redis8 if R8=1)
cd /work/wt/cpu
out=$1; rounds=$2; shift 2
mkdir -p "$out"
for r in $(seq "$rounds"); do
  for b in "$@"; do
    name=$(basename "$b")
    N=${N:-1000000} NMULTI=${NMULTI:-200000} BIN=$b bench/cpu_split_preloaded.sh hotkv ${CMDS:-GET SET SETNX MSET PING} >> "$out/$name.txt" 2>&1
  done
  if [ -n "$R8" ]; then
    N=${N:-1000000} NMULTI=${NMULTI:-200000} REDIS=/work/shared/peers/redis-8.8/redis-server bench/cpu_split_preloaded.sh redis ${CMDS:-GET SET SETNX MSET PING} >> "$out/redis8.txt" 2>&1
  fi
done
