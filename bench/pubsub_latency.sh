#!/usr/bin/env bash
# Pub/sub delivery latency, HotKV vs Redis 8.8 (when found: HOTKV_BENCH_REDIS8, else
# ../shared/peers/redis-8.8/) and Debian's redis-server 7.0, in one run (issue 4).
#
#   bench/pubsub_latency.sh [--quick] [--rates "20000 100000 200000"] [--channels 1]
#
# For each delivery rate and server: hotkv-loadgen --mode pubsub with 64 publishers,
# 100 subscribers, 128-byte payloads (the seed benchmark's setup), latency = receive
# time - intended publish time (one clock, one process), p50/p99/p99.9, achieved rate,
# sustained (>= 97 % of the asked delivery rate), lost and reordered messages. Servers
# run one at a time on core 0 (HotKV with its default threads, i.e. both cores are
# available to it, and with --threads 1), the generator on core 1. Writes its section
# to bench/results/pubsub-latency_<stamp>/summary.md (-quick appended for --quick runs,
# which git ignores).
set -euo pipefail
cd "$(dirname "$0")/.."
RATES="20000 100000 200000"
CHANNELS=1
DURATION=5
WARMUP=1
QUICK=
while [ $# -gt 0 ]; do
  case "$1" in
    --quick) DURATION=2; WARMUP=1; QUICK=-quick ;;
    --rates) RATES="$2"; shift ;;
    --channels) CHANNELS="$2"; shift ;;
    *) echo "unknown option $1" >&2; exit 2 ;;
  esac
  shift
done

# shellcheck source=bench/server_lib.sh
. bench/server_lib.sh   # redis8_binary (its start_server is replaced below)
R8=$(redis8_binary || true)
[ -n "$R8" ] || echo "bench: Redis 8.8 not found (HOTKV_BENCH_REDIS8): hotkv and redis 7.0 only" >&2
SERVERS="redis${R8:+ redis8} hotkv-1t hotkv"
BIN=build/release/hotkv-server
LG=build/release/tools/loadgen/hotkv-loadgen
[ -x "$BIN" ] && [ -x "$LG" ] || make build >/dev/null

free_port() { /usr/bin/python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }

start_server() {  # name -> sets PID PORT
  PORT=$(free_port)
  case "$1" in
    hotkv) taskset -c 0,1 "$BIN" --port "$PORT" > /dev/null 2>&1 & PID=$! ;;
    hotkv-1t) taskset -c 0 "$BIN" --port "$PORT" --threads 1 > /dev/null 2>&1 & PID=$! ;;
    redis) taskset -c 0 redis-server --port "$PORT" --save '' --appendonly no > /dev/null 2>&1 & PID=$! ;;
    redis8) taskset -c 0 "$R8" --port "$PORT" --save '' --appendonly no > /dev/null 2>&1 & PID=$! ;;
  esac
  for _ in $(seq 100); do redis-cli -p "$PORT" ping > /dev/null 2>&1 && return; sleep 0.05; done
  echo "server $1 did not start" >&2; exit 1
}

OUT=$(mktemp -d)
LOAD_BEFORE=$(cut -d' ' -f1-3 /proc/loadavg)
for rate in $RATES; do
  for srv in $SERVERS; do
    start_server "$srv"
    taskset -c 1 "$LG" --port "$PORT" --mode pubsub --rate "$rate" --publishers 64 \
      --subscribers 100 --channels "$CHANNELS" --payload 128 --duration "$DURATION" \
      --warmup "$WARMUP" --json > "$OUT/$srv-$rate.json" 2>/dev/null || true
    kill "$PID"; wait "$PID" 2>/dev/null || true
  done
done
LOAD_AFTER=$(cut -d' ' -f1-3 /proc/loadavg)

# The section goes to the run's own folder; bench/RESULTS.md holds the current figures,
# updated by hand.
RUN_DIR=bench/results/pubsub-latency_$(date +%Y-%m-%d_%H%M%S)$QUICK
mkdir -p "$RUN_DIR"
/usr/bin/python3 - "$OUT" "$RATES" "$CHANNELS" "$DURATION" "$LOAD_BEFORE" "$LOAD_AFTER" "$SERVERS" <<'PY' > "$RUN_DIR/summary.md"
import json, os, sys, datetime, platform, subprocess
out, rates, channels, duration, lb, la = sys.argv[1], sys.argv[2].split(), sys.argv[3], sys.argv[4], sys.argv[5], sys.argv[6]
servers = sys.argv[7].split()
cpu = subprocess.run("lscpu | sed -n 's/^Model name: *//p'", shell=True, capture_output=True, text=True).stdout.strip()
print(f"## Pub/sub delivery latency — {datetime.date.today()}\n")
print(f"Machine: {cpu}, {os.cpu_count()} cores, kernel {platform.release()}; load average before {lb}, after {la}.")
print(f"Command: `bench/pubsub_latency.sh --rates \"{' '.join(rates)}\" --channels {channels}` — "
      f"`hotkv-loadgen --mode pubsub --rate R --publishers 64 "
      f"--subscribers 100 --channels {channels} --payload 128 --duration {duration}` on core 1; "
      "servers on core 0 (redis = redis-server 7.0, redis8 = Redis 8.8, `hotkv-1t` = `hotkv --threads 1`) "
      "or cores 0-1 (`hotkv`, default threads).\n")
print("| deliveries/s asked | server | achieved | sustained | p50 µs | p99 µs | p99.9 µs | lost | reordered | generator behind |")
print("|---|---|---|---|---|---|---|---|---|---|")
for r in rates:
    for srv in servers:
        p = os.path.join(out, f"{srv}-{r}.json")
        try:
            d = json.load(open(p))
        except Exception:
            print(f"| {r} | {srv} | run failed | | | | | | |"); continue
        lat = d.get("latency_us") or {}
        def g(k):
            v = lat.get(k)
            return f"{v:.0f}" if isinstance(v, (int, float)) else "–"
        ach = d.get("achieved_delivery_rate", 0)
        print(f"| {r} | {srv} | {ach:.0f} | {'yes' if d.get('sustained') else 'no'} | {g('p50')} | {g('p99')} | {g('p99_9')} | {d.get('lost', '–')} | {d.get('reordered', '–')} | {'yes' if d.get('loadgen_behind') else 'no'} |")
print("\nAn unsustained step reports no latency (the generator could not deliver the asked rate "
      "through that server); figures from a busy machine are noisy, compare within one table.")
PY
rm -rf "$OUT"
cat "$RUN_DIR/summary.md"
echo "wrote $RUN_DIR/summary.md"
echo "bench/RESULTS.md is not touched: if this run is to become the current pub/sub figure," \
  "update that table there by hand (and name $RUN_DIR)"
