#!/bin/bash
# usage: cgsum.sh file ops -> total, cron-inclusive, (total-cron)/ops
f=$1; ops=$2
tot=$(grep -E "^(totals|summary):" $f | head -1 | awk '{print $2}')
cron=$(callgrind_annotate --inclusive=yes --threshold=100 $f 2>/dev/null | grep -E "Worker::Cron\(" | head -1 | awk '{gsub(",","",$1); print $1}')
cron=${cron:-0}
echo "$(basename $f) total=$tot cron=$cron per_op_nocron=$(( (tot-cron)/ops ))"
