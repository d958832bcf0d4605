#!/usr/bin/env bash
# Start-up load of the same dump.rdb (1,000,000 strings x 256 B + 100,000 each of 5-field
# hashes, 10-element lists, 10-member zsets, written by HotKV) by HotKV with 1 and 2
# workers (1 and 2 lanes), Redis 7.0 and Redis 8.8; each server's own "DB loaded from
# disk" log line. Servers unpinned (both CPUs).
set -u
cd "$(dirname "$0")"
R8=/work/shared/peers/redis-8.8/redis-server
for round in 1 2; do
  for s in hotkv1 hotkv2 redis7 redis8; do
    P=$(/usr/bin/python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
    case $s in
      hotkv1) /work/main/build/release/hotkv-server --port $P --dir . --save '' --threads 1 > $s.log 2>&1 & ;;
      hotkv2) /work/main/build/release/hotkv-server --port $P --dir . --save '' --threads 2 > $s.log 2>&1 & ;;
      redis7) redis-server --port $P --dir . --save '' --appendonly no > $s.log 2>&1 & ;;
      redis8) $R8 --port $P --dir . --save '' --appendonly no > $s.log 2>&1 & ;;
    esac
    pid=$!
    for i in $(seq 600); do grep -q "DB loaded from disk" $s.log && break; sleep 0.05; done
    echo "round $round $s: $(grep -o 'DB loaded from disk: [0-9.]* seconds' $s.log) load $(cut -d' ' -f1 /proc/loadavg)"
    kill $pid; wait $pid 2>/dev/null
  done
done
