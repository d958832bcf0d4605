#!/usr/bin/env bash
# Memory of 1,000,000 small hashes (5 fields each), HotKV vs Redis 8.8 (when found:
# HOTKV_BENCH_REDIS8, else ../shared/peers/redis-8.8/) and Debian's redis-server 7.0, and
# of 1,000,000 string keys x 256-byte values. Loads the same data into each server (one
# at a time) with `redis-cli --pipe`, then reads VmRSS and INFO used_memory.
#
#   bench/hash_memory.sh [--keys N]        writes bench/results/hash-memory_<stamp>/summary.md
set -euo pipefail
cd "$(dirname "$0")/.."
N=1000000
while [ $# -gt 0 ]; do
  case "$1" in
    --keys) N="$2"; shift ;;
    *) echo "unknown option $1" >&2; exit 2 ;;
  esac
  shift
done
BIN=build/release/hotkv-server
[ -x "$BIN" ] || make build > /dev/null
# shellcheck source=bench/server_lib.sh
. bench/server_lib.sh   # redis8_binary
R8=$(redis8_binary || true)
[ -n "$R8" ] || echo "bench: Redis 8.8 not found (HOTKV_BENCH_REDIS8): hotkv and redis 7.0 only" >&2
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

# The data: HSET user:<i> name <8 chars> age <2 digits> city <6 chars> score <5 digits> flag <1>
/usr/bin/python3 - "$N" "$TMP/hashes.resp" "$TMP/strings.resp" <<'PY'
import sys, random
n = int(sys.argv[1]); rnd = random.Random(7)
def cmd(*a):
    out = [b"*%d\r\n" % len(a)]
    for x in a:
        x = x.encode() if isinstance(x, str) else x
        out.append(b"$%d\r\n%s\r\n" % (len(x), x))
    return b"".join(out)
with open(sys.argv[2], "wb") as f:
    for i in range(n):
        f.write(cmd("HSET", f"user:{i}", "name", f"n{i:07d}", "age", str(18 + i % 60),
                    "city", rnd.choice(["london", "berlin", "madrid", "prague", "vienna"]),
                    "score", str(rnd.randrange(10000, 99999)), "flag", str(i % 2)))
with open(sys.argv[3], "wb") as f:
    v = b"x" * 256
    for i in range(n):
        f.write(cmd("SET", f"key:{i:012d}", v))
PY

free_port() { /usr/bin/python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
measure() {  # server data-file -> "rss_bytes used_memory_bytes"
  local port pid
  port=$(free_port)
  case "$1" in
    hotkv) "$BIN" --port "$port" > /dev/null 2>&1 & pid=$! ;;
    redis) redis-server --port "$port" --save '' --appendonly no > /dev/null 2>&1 & pid=$! ;;
    redis8) "$R8" --port "$port" --save '' --appendonly no > /dev/null 2>&1 & pid=$! ;;
  esac
  for _ in $(seq 100); do redis-cli -p "$port" ping > /dev/null 2>&1 && break; sleep 0.05; done
  local base
  base=$(awk '/VmRSS/ {print $2*1024}' /proc/$pid/status)
  redis-cli -p "$port" --pipe < "$2" > /dev/null
  sleep 1
  local rss used keys enc
  rss=$(awk '/VmRSS/ {print $2*1024}' /proc/$pid/status)
  used=$(redis-cli -p "$port" info memory | sed -n 's/^used_memory:\([0-9]*\).*/\1/p')
  keys=$(redis-cli -p "$port" dbsize)
  enc=$(redis-cli -p "$port" object encoding "$3")
  kill "$pid"; wait "$pid" 2>/dev/null || true
  echo "$base $rss $used $keys $enc"
}
read -r hb hr hu hk he < <(measure hotkv "$TMP/hashes.resp" user:1)
read -r rb rr ru rk re < <(measure redis "$TMP/hashes.resp" user:1)
read -r sb sr su sk se < <(measure hotkv "$TMP/strings.resp" key:000000000001)
read -r tb tr tu tk te < <(measure redis "$TMP/strings.resp" key:000000000001)
# Redis 8.8's rows, or zeros (left out of the table) when it is absent.
r8h="0 0 0 0 -"; r8s="0 0 0 0 -"
if [ -n "$R8" ]; then
  r8h=$(measure redis8 "$TMP/hashes.resp" user:1)
  r8s=$(measure redis8 "$TMP/strings.resp" key:000000000001)
fi
read -r ab ar au ak ae <<< "$r8h"
read -r cb cr cu ck ce <<< "$r8s"

# The section goes to the run's own folder; bench/RESULTS.md holds the current figures,
# updated by hand.
RUN_DIR=bench/results/hash-memory_$(date +%Y-%m-%d_%H%M%S)
mkdir -p "$RUN_DIR"
/usr/bin/python3 - <<PY > "$RUN_DIR/summary.md"
import datetime, os, platform, subprocess
cpu = subprocess.run("lscpu | sed -n 's/^Model name: *//p'", shell=True, capture_output=True, text=True).stdout.strip()
n = $N
rows = [("$N hashes x 5 fields", "hotkv", $hb, $hr, $hu, $hk, "$he"), ("", "redis 8.8", $ab, $ar, $au, $ak, "$ae"),
        ("", "redis 7.0", $rb, $rr, $ru, $rk, "$re"),
        ("$N strings x 256 B", "hotkv", $sb, $sr, $su, $sk, "$se"), ("", "redis 8.8", $cb, $cr, $cu, $ck, "$ce"),
        ("", "redis 7.0", $tb, $tr, $tu, $tk, "$te")]
rows = [r for r in rows if r[3]]  # Redis 8.8 absent: zeros
print(f"## Memory: small hashes and 256-byte strings — {datetime.date.today()}\n")
print(f"Machine: {cpu}, {os.cpu_count()} cores, kernel {platform.release()}. Command: \`bench/hash_memory.sh --keys {n}\` "
      "(same data piped with \`redis-cli --pipe\` into each server; RSS from /proc/<pid>/status after loading, "
      "minus the empty server's RSS for the per-key figure). Hash fields: name (8 B), age (2 digits), city (6 B), "
      "score (5 digits), flag (1 digit); keys \`user:<i>\`. Strings: keys \`key:<12 digits>\`, 256-byte values.\n")
print("| data | server | keys | encoding | RSS MiB | RSS bytes/key | used_memory MiB |")
print("|---|---|---|---|---|---|---|")
for d, s, base, rss, used, keys, enc in rows:
    print(f"| {d} | {s} | {keys} | {enc} | {rss/2**20:.1f} | {(rss-base)/max(keys,1):.1f} | {used/2**20:.1f} |")
if $ar:
    print(f"\nRatio HotKV/Redis 8.8 RSS: hashes {$hr/max($ar, 1):.2f}, strings {$sr/max($cr, 1):.2f}.")
print(f"Ratio HotKV/Redis 7.0 RSS: hashes {$hr/$rr:.2f}, strings {$sr/$tr:.2f}.")
PY
cat "$RUN_DIR/summary.md"
echo "wrote $RUN_DIR/summary.md"
echo "bench/RESULTS.md is not touched: if this run is to become the current memory figure," \
  "update that table there by hand (and name $RUN_DIR)"
