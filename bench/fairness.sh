#!/usr/bin/env bash
# Fairness under overload: 50 connections asking a one-worker server for more GETs per
# second than it can serve. Prints, 5 s in, how long ago the server last sent on each
# connection (`ss -ti` lastsnd, ms: a large value = a connection left unserved), the
# achieved rate, and then whether the server drops the backlog of the clients once they
# have gone (connections left in CLOSE-WAIT with unread data, sampled every 0.5 s).
#
#   bench/fairness.sh [--rate 800000] [--io-backend io_uring|epoll] [--bin PATH]
set -euo pipefail
cd "$(dirname "$0")/.."
RATE=800000
BACKEND=io_uring
BIN=build/release/hotkv-server
while [ $# -gt 0 ]; do
  case "$1" in
    --rate) RATE="$2"; shift ;;
    --io-backend) BACKEND="$2"; shift ;;
    --bin) BIN="$2"; shift ;;
    *) echo "unknown option $1" >&2; exit 2 ;;
  esac
  shift
done
LG=build/release/tools/loadgen/hotkv-loadgen
[ -x "$BIN" ] && [ -x "$LG" ] || make build >/dev/null
PORT=$(/usr/bin/python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
taskset -c 0 "$BIN" --port "$PORT" --threads 1 --io-backend "$BACKEND" >/dev/null 2>&1 & PID=$!
trap 'kill $PID 2>/dev/null; wait $PID 2>/dev/null || true' EXIT
for _ in $(seq 50); do redis-cli -p "$PORT" ping >/dev/null 2>&1 && break; sleep 0.1; done
taskset -c 1 "$LG" --host 127.0.0.1 --port "$PORT" --load 1000000 --value-size 256 --json >/dev/null
OUT=$(mktemp)
taskset -c 1 "$LG" --host 127.0.0.1 --port "$PORT" --command get --rate "$RATE" --connections 50 \
  --duration 5 --warmup 1 --keyspace 1000000 --json > "$OUT" &
LPID=$!
sleep 5
echo "ms since the server last sent, per connection, 5 s into the run:"
ss -tni state established "( sport = :$PORT )" | grep -oE "lastsnd:[0-9]+" | cut -d: -f2 | sort -n | tr '\n' ' '
echo
wait $LPID
/usr/bin/python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print('asked', d['asked_rate'], 'achieved', round(d['achieved_rate']), 'unanswered', d['unanswered'])" "$OUT"
rm -f "$OUT"
echo "after the clients left (CLOSE-WAIT connections, unread bytes), every 0.5 s:"
for _ in 1 2 3 4; do
  ss -tn state close-wait "( sport = :$PORT )" | awk 'NR>1{n++; q+=$2} END{printf "  %d connections, %d bytes\n", n, q}'
  sleep 0.5
done
