#!/usr/bin/env bash
# Is memory given back after keys are deleted? Loads 1,000,000 keys x 256 B
# (hotkv-loadgen --load), deletes 90 % of them, and prints the server's RSS after the
# load, right after the deletes, and 30 s later.
#
#   bench/memory_return.sh hotkv|redis|redis8 range|spread [server options...]
#     range:  delete key:0 .. key:899999 (whole pages of memory become free)
#     spread: delete every key whose number is not a multiple of 10 (every page keeps
#             some live keys: fragmentation, which no allocator can give back)
set -euo pipefail
cd "$(dirname "$0")/.."
which=${1:?hotkv or redis}; pattern=${2:?range or spread}; shift 2
BIN=${BIN:-build/release/hotkv-server}
LOADGEN=${LOADGEN:-build/release/tools/loadgen/hotkv-loadgen}
[ -x "$BIN" ] && [ -x "$LOADGEN" ] || make build >/dev/null
# shellcheck source=bench/server_lib.sh
. bench/server_lib.sh
start_server "$which" "$@"
rss() { awk '/VmRSS/{print int($2 / 1024)}' "/proc/$PID/status"; }
taskset -c 1 "$LOADGEN" --port "$PORT" --load 1000000 >/dev/null
loaded=$(rss)
/usr/bin/python3 - "$PORT" "$pattern" <<'PY'
import sys
import redis
r = redis.Redis(port=int(sys.argv[1]))
spread = sys.argv[2] == "spread"
p = r.pipeline(transaction=False)
for i in range(1000000):
    if (i % 10 != 0) if spread else (i < 900000):
        p.delete(f"key:{i}")
    if i % 10000 == 9999:
        p.execute()
p.execute()
assert r.dbsize() == 100000, r.dbsize()
PY
deleted=$(rss)
sleep 30
echo "$which $pattern $*: RSS MB loaded $loaded, after deleting 90 % $deleted, 30 s later $(rss)"
