#!/usr/bin/env bash
# HotKV vs Redis 8.8 vector sets (VADD/VSIM, NOQUANT, M 16, build EF 200, cosine) in one
# run, on the same data and ground truth: load rate, recall@10 and q/s per EF with 1, 2
# and 16 clients (issue 21). Redis 8.8 is optional (REDIS8=path; columns skipped when
# absent).
#
#   bench/vector/compare_redis8.sh OUTDIR [SET]     SET: fashion (default) | syn1536
#   env: N (vectors), QUERIES (1000), NOISE (6) and CLUSTERS (200) of syn1536, EFS (40,80,150,300,500), CLIENTS (1,2,16),
#        CONNS (loader connections, 4), TOOL (vector_server_bench binary), SERVER (hotkv-server),
#        REDIS8, HOTKV_ARGS, SKIP_QUERY=1 (load only)
# The load line also gives each server's CPU seconds per 1000 vectors (utime+stime of the
# server process during the load): on a shared machine a steadier figure than vectors/s.
set -euo pipefail
cd "$(dirname "$0")/../.."
OUT=${1:?outdir}; SET=${2:-fashion}
mkdir -p "$OUT"
TOOL=${TOOL:-build/release/bench/vector/vector_server_bench}
SERVER=${SERVER:-build/release/hotkv-server}
REDIS8=${REDIS8:-/work/shared/peers/redis-8.8/redis-server}
EFS=${EFS:-40,80,150,300,500}; CLIENTS=${CLIENTS:-1,2,16}; QUERIES=${QUERIES:-1000}
if [ "$SET" = fashion ]; then
  DATA="--dataset=fashion --metric=cosine --n=${N:-60000} --queries=$QUERIES"
else
  DATA="--dataset=synthetic --n=${N:-20000} --dim=1536 --clusters=${CLUSTERS:-200} --noise=${NOISE:-6} --queries=$QUERIES"
fi
free_port() { python3 -c 'import socket;s=socket.socket();s.bind(("127.0.0.1",0));print(s.getsockname()[1])'; }
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; }
trap cleanup EXIT
{ echo "date: $(date -u +%FT%TZ)"; echo "loadavg: $(cat /proc/loadavg)"; echo "cpu: $(lscpu | sed -n 's/^Model name: *//p'), $(nproc) cpus";
  echo "git: $(git rev-parse --short HEAD)$(git status --porcelain -- src | grep -q . && echo ' (dirty)')";
  echo "data: $DATA"; echo "efs: $EFS clients: $CLIENTS"; } > "$OUT/run-$SET.txt"
run_one() {  # name argv...
  local name=$1; shift
  local port; port=$(free_port)
  "$@" --port "$port" > "$OUT/$name-$SET.server.log" 2>&1 &
  local pid=$!; pids+=("$pid")
  for _ in $(seq 50); do redis-cli -p "$port" ping >/dev/null 2>&1 && break; sleep 0.1; done
  echo "== $name port $port: $*" >> "$OUT/run-$SET.txt"
  $TOOL load --port="$port" --key=v --dialect=vadd $DATA --conns=${CONNS:-4} --pipeline=16 \
    --server-pid="$pid" > "$OUT/$name-$SET.load.json" 2> "$OUT/$name-$SET.load.err"
  [ "${SKIP_QUERY:-0}" = 1 ] || $TOOL query --port="$port" --key=v --dialect=vadd $DATA --ef="$EFS" --clients="$CLIENTS" \
    --min-seconds=${MIN_SECONDS:-1} --server-pid="$pid" \
    > "$OUT/$name-$SET.query.json" 2> "$OUT/$name-$SET.query.err"
  echo "-- $name loadavg after: $(cat /proc/loadavg)" >> "$OUT/run-$SET.txt"
  kill "$pid"; wait "$pid" 2>/dev/null || true
}
run_one hotkv "$SERVER" --bind 127.0.0.1 ${HOTKV_ARGS:-}
if [ -x "$REDIS8" ]; then
  run_one redis8 "$REDIS8" --bind 127.0.0.1 --save '' --appendonly no
fi
python3 - "$OUT" "$SET" <<'PY'
import json, sys, pathlib
out, s = pathlib.Path(sys.argv[1]), sys.argv[2]
rows = {}
for name in ("hotkv", "redis8"):
    p = out / f"{name}-{s}.query.json"
    lp = out / f"{name}-{s}.load.json"
    if not lp.exists(): continue
    ld = json.loads(lp.read_text().splitlines()[-1])
    cpu = ld.get('server_cpu_s', -1)
    per_k = f"{1000 * cpu / ld['n']:.2f} server CPU-s per 1000 vectors" if cpu and cpu > 0 and ld.get('n') else "server CPU n/a"
    print(f"{name}: load {ld.get('n')} vectors in {ld.get('seconds', 0):.1f} s = {ld.get('vectors_per_s', ld.get('rate', 0))} vectors/s; {per_k}")
    for line in (p.read_text().splitlines() if p.exists() else []):
        d = json.loads(line)
        rows.setdefault((d["ef"], d["clients"]), {})[name] = d
print(f"{'ef':>4} {'cl':>3} | {'hotkv rec':>9} {'q/s':>8} {'p50us':>7} | {'redis8 rec':>10} {'q/s':>8} {'p50us':>7}")
for (ef, cl), v in sorted(rows.items()):
    h, r = v.get("hotkv", {}), v.get("redis8", {})
    f = lambda d, k, fmt: format(d[k], fmt) if k in d else "-"
    print(f"{ef:>4} {cl:>3} | {f(h,'recall','9.4f')} {f(h,'qps','8.0f')} {f(h,'p50_us','7.0f')} | {f(r,'recall','10.4f')} {f(r,'qps','8.0f')} {f(r,'p50_us','7.0f')}")
PY
