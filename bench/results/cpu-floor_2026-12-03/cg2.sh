#!/bin/bash
cd /work/wt/cpu
v=$1
bin=/tmp/cpu/hotkv-$v
KEYS=100000 N=100000 NMULTI=20000 BIN=$bin bench/callgrind_per_op.sh hotkv /tmp/cpu/cg-$v ${CMDS:-GET SET SETNX MSET INCR MGET PING} > /tmp/cpu/cg-$v.log 2>&1
for f in /tmp/cpu/cg-$v/callgrind.out.*; do
  cmd=${f##*.}
  case $cmd in MSET|MGET) n=20000;; [0-9]*) continue;; *) n=100000;; esac
  callgrind_annotate --inclusive=yes --threshold=100 "$f" 2>/dev/null > /tmp/cpu/cg-$v/incl.$cmd
  tot=$(grep "PROGRAM TOTALS" /tmp/cpu/cg-$v/incl.$cmd | awk '{gsub(",","",$1); print $1}')
  cron=$(grep -E "Worker::Cron\(long\)" /tmp/cpu/cg-$v/incl.$cmd | head -1 | awk '{gsub(",","",$1); print $1+0}')
  echo "$v $cmd total $((tot / n)) minus-cron $(((tot - ${cron:-0}) / n))" >> /tmp/cpu/cg-summary.txt
done
