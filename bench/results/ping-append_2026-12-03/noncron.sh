#!/bin/bash
# noncron.sh FILE N : Ir/request total and without Worker::Cron (inclusive)
f=$1; n=$2
callgrind_annotate --inclusive=yes --threshold=100 "$f" 2>/dev/null > /tmp/ping/nc.$$
tot=$(grep "PROGRAM TOTALS" /tmp/ping/nc.$$ | awk '{gsub(",","",$1); print $1}')
cron=$(grep -E "Worker::Cron\(long\)" /tmp/ping/nc.$$ | head -1 | awk '{gsub(",","",$1); print $1+0}')
echo "$(basename $(dirname $f)) $(basename $f) total $((tot / n)) minus-cron $(((tot - ${cron:-0}) / n))"
rm -f /tmp/ping/nc.$$
