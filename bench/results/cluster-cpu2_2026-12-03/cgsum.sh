#!/bin/bash
# Instructions per request without the time-driven work: total Ir of a callgrind dump minus
# the inclusive Ir of the timer/cron functions (HotKV: Worker::Cron, the cluster bus
# thread ClusterBus::Run; Redis: serverCron, which runs clusterCron), divided by requests.
#   cgsum.sh DIR [REQUESTS]   (every callgrind.out.<COMMAND> in DIR)
dir=$1; n=${2:-200000}
printf '%-8s %12s %12s %10s %14s\n' command total_Ir timer_Ir Ir/req Ir/req_no_timer
for f in "$dir"/callgrind.out.[A-Z]*; do
  c=${f##*.}
  tot=$(sed -n 's/^summary: *//p;s/^totals: *//p' "$f" | head -1 | awk '{print $1}')
  cron=$(callgrind_annotate --inclusive=yes --threshold=100 "$f" 2>/dev/null |
    grep -E "hotkv::Worker::Cron\(|hotkv::cluster::ClusterBus::Run\(|[: ]serverCron( |\[)" |
    awk '{gsub(",","",$1); s+=$1} END {print s+0}')
  printf '%-8s %12d %12d %10.0f %14.0f\n' "$c" "$tot" "$cron" "$(echo "$tot/$n" | bc -l)" "$(echo "($tot-$cron)/$n" | bc -l)"
done
