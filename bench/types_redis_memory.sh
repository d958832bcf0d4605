#!/usr/bin/env bash
# Loads Redis with the data sets of types_bench's Memory_* benchmarks and prints what each
# costs there: used_memory growth per key (or per element for the big values), the value's
# OBJECT ENCODING and MEMORY USAGE of one key. Starts its own server on a free port and
# stops it afterwards: Debian 12's redis-server (Redis 7.0, jemalloc), then Redis 8.8 when
# it is found (HOTKV_BENCH_REDIS8, else ../shared/peers/redis-8.8/).
#
#   bench/types_redis_memory.sh            # 1,000,000 small hashes, 200,000 of the rest
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=bench/server_lib.sh
. bench/server_lib.sh   # redis8_binary
R8=$(redis8_binary || true)
[ -n "$R8" ] || echo "bench: Redis 8.8 not found (HOTKV_BENCH_REDIS8): redis 7.0 only" >&2
work=$(mktemp -d)
port=27391
trap 'redis-cli -p "$port" shutdown nosave >/dev/null 2>&1 || true; rm -rf "$work"' EXIT
start_redis() {  # binary
  port=27391
  while ss -ltn | grep -q ":$port "; do port=$((port + 1)); done
  "$1" --port "$port" --save '' --appendonly no --daemonize yes \
    --pidfile "$work/redis.pid" --logfile "$work/redis.log" --dir "$work"
  for _ in $(seq 50); do redis-cli -p "$port" ping >/dev/null 2>&1 && break; sleep 0.1; done
}

cat > "$work/gen.py" <<'PY'
import random, sys
random.seed(42)
CHARS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
def text(n): return ''.join(random.choice(CHARS) for _ in range(n))
def cmd(*args):
    parts = [f"*{len(args)}\r\n"]
    for a in map(str, args):
        parts.append(f"${len(a.encode())}\r\n{a}\r\n")
    return ''.join(parts)
kind, n = sys.argv[1], int(sys.argv[2])
out = sys.stdout.write
for i in range(n if kind != "biglist" else n // 100):
    if kind == "hash5":
        out(cmd("HSET", f"k:{i}", *[x for f in range(1, 6) for x in (f"field{f}", text(8))]))
    elif kind == "hash5num":
        out(cmd("HSET", f"k:{i}", *[x for f in range(1, 6)
                                    for x in (f"field{f}", 10000000 + random.randrange(90000000))]))
    elif kind == "set5int":
        out(cmd("SADD", f"k:{i}", *[random.randrange(30000) for _ in range(5)]))
    elif kind == "set5word":
        out(cmd("SADD", f"k:{i}", *[text(8) for _ in range(5)]))
    elif kind == "list5":
        out(cmd("RPUSH", f"k:{i}", *[text(8) for _ in range(5)]))
    elif kind == "stringkeys":
        out(cmd("SET", f"k:{i}", "x"))
    elif kind == "bighash":
        out(cmd("HSET", "k:1", f"f{i}", text(8)))
    elif kind == "bigset":
        out(cmd("SADD", "k:1", f"member:{i}"))
    elif kind == "biglist":
        out(cmd("RPUSH", "k:1", *[text(8) for _ in range(100)]))
PY

measure() {  # kind count
  local r="redis-cli -p $port"
  $r flushall >/dev/null
  local before after
  before=$($r info memory | awk -F: '/^used_memory:/ {print $2}' | tr -d '\r')
  python3 "$work/gen.py" "$1" "$2" | $r --pipe >/dev/null
  after=$($r info memory | awk -F: '/^used_memory:/ {print $2}' | tr -d '\r')
  printf '%-10s n=%-8s encoding=%-10s used_memory/n=%-6s memory_usage(k:1)=%s\n' "$1" "$2" \
    "$($r object encoding k:1)" "$(( (after - before) / $2 ))" "$($r memory usage k:1 samples 0)"
}
for bin in "$(command -v redis-server)" ${R8:+"$R8"}; do
  start_redis "$bin"
  "$bin" --version
  measure stringkeys 1000000   # the per-key cost of the keyspace alone, for reference
  measure hash5 1000000
  measure hash5num 200000
  measure set5int 200000
  measure set5word 200000
  measure list5 200000
  measure bighash 1000000
  measure bigset 1000000
  measure biglist 1000000
  redis-cli -p "$port" shutdown nosave >/dev/null 2>&1 || true
done
