#!/bin/bash
# usage: noncron.sh DIR  -> per command Ir/request minus Worker::Cron inclusive
d=$1
grep -v "^#" $d/summary.txt | tail -n +2 | while read cmd n ir per; do
  cron=$(callgrind_annotate --inclusive=yes $d/callgrind.out.$cmd 2>/dev/null | grep "Worker::Cron(long)" | head -1 | awk '{gsub(",","",$1); print $1}')
  printf '%-7s %8.0f %8.0f\n' $cmd $per $(echo "($ir - ${cron:-0}) / $n" | bc -l)
done
