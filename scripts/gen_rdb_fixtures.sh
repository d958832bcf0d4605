#!/usr/bin/env bash
# Generates the RDB fixtures of the rdb/ unit tests (tests/unit/rdb/fixtures/) from real
# Redis peers: Debian's redis-server 7.0 and, when present, Redis 8.8
# (../shared/peers/redis-8.8/redis-server). Each peer is started on a free port in a
# temp dir (persistence off), filled with every type and size class, then SAVEd; DUMP
# payloads of some keys are captured too. Written per peer <tag> (redis70, redis88):
#   <tag>.rdb               the SAVEd file
#   <tag>.expected          one JSON line per key (hex keys/values, sets and hashes
#                           sorted, zset scores "%.17g", expire_ms absolute or -1)
#   <tag>.dumps             "<key hex> <payload hex>" per line (DUMP payloads)
#   redis88_cluster.rdb/.expected  Redis 8.8 in cluster mode (SLOT_INFO opcodes)
#   redis88_vset.rdb/.expected/.dumps  vector sets of every quantisation, REDUCE, M,
#                           attributes (Redis 8.8 only); .expected: "K key quant dim card"
#                           and "E key label attributes VEMB" lines, all hex but VEMB
#   redis88_hfe.rdb         a hash with field expiry (Redis 8.8 only, HASH_LISTPACK_EX)
# Run once by hand when the fixtures need to change; the unit tests need no peer.
#   scripts/gen_rdb_fixtures.sh [out_dir]
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
OUT=${1:-$ROOT/tests/unit/rdb/fixtures}
mkdir -p "$OUT"
rm -f "$OUT"/*.rdb "$OUT"/*.expected "$OUT"/*.dumps

gen() {
  local tag=$1 bin=$2 extra=${3:-} tmp port pid
  tmp=$(mktemp -d)
  port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
  "$bin" --port "$port" --bind 127.0.0.1 --save "" --appendonly no --dir "$tmp" \
    --enable-debug-command yes $extra >"$tmp/log" 2>&1 &
  pid=$!
  trap 'kill $pid 2>/dev/null || true' RETURN
  /usr/bin/python3 - "$port" "$tag" "$OUT" "$tmp" <<'PY'
import os, sys, time
import redis
port, tag, out, tmp = int(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4]
r = redis.Redis(port=port)
for _ in range(200):
    try:
        r.ping(); break
    except redis.exceptions.ConnectionError:
        time.sleep(0.05)
FAR_MS = 4102444800000  # 2100-01-01
if tag.endswith("_cluster"):
    # Cluster mode: Redis 7.4+ writes SLOT_INFO opcodes (slot sizes) before the keys.
    r.execute_command("CLUSTER", "ADDSLOTSRANGE", 0, 16383)
    for _ in range(200):
        if b"cluster_state:ok" in r.execute_command("CLUSTER", "INFO"): break
        time.sleep(0.05)
    for i in range(50):
        r.set("ckey:%d" % i, "v%d" % i)
    r.pexpireat("ckey:7", FAR_MS)
    r.rpush("clist", "a", "b")
    r.save()
    os.replace(os.path.join(tmp, "dump.rdb"), os.path.join(out, tag + ".rdb"))
    keys = sorted(r.keys("*"))
    with open(os.path.join(out, tag + ".expected"), "w") as f:
        for key in keys:
            t = r.type(key).decode()
            v = ('"%s"' % r.get(key).hex()) if t == "string" else \
                "[" + ",".join('"%s"' % x.hex() for x in r.lrange(key, 0, -1)) + "]"
            f.write('{"db":0,"key":"%s","type":"%s","expire_ms":%d,"value":%s}\n'
                    % (key.hex(), t, r.execute_command("PEXPIRETIME", key), v))
    sys.exit(0)
# A function library: FUNCTION2 opcode in the file (skipped by HotKV).
r.execute_command("FUNCTION", "LOAD", "#!lua name=fixturelib\nredis.register_function('f1', function() return 1 end)")
# db 0: every type and size class
r.set("str:plain", "hello world")
r.set("str:int", "12345")
r.set("str:neg", "-7")
r.set("str:int32", "2147483647")
r.set("str:int64", "9223372036854775807")
r.set("str:float", "3.14")
r.set("str:bin", bytes(range(256)))
r.set("str:long", "abcdefgh" * 600)          # LZF
r.set("str:empty", "")
r.set("str:ttl", "expiring"); r.pexpireat("str:ttl", FAR_MS)
r.set("str:ttl2", "x"); r.pexpireat("str:ttl2", FAR_MS + 12345)
r.rpush("list:small", "a", "1", "-5", "bb", "x" * 60)
r.rpush("list:large", *["element:%d" % i for i in range(3000)])
r.rpush("list:ints", *[str(i * 1000003) for i in range(300)])
r.execute_command("DEBUG", "QUICKLIST-PACKED-THRESHOLD", "1000")
r.rpush("list:plain", "a", "p" * 5000, "b", "q" * 3000)   # PLAIN quicklist nodes
r.sadd("set:intset", *range(-50, 50))
r.sadd("set:intset64", 1, -2, 9223372036854775807, -9223372036854775808)
r.sadd("set:ints-large", *range(0, 3000, 3))                   # hashtable of integers
r.sadd("set:small", "a", "b", "1", "hello")                      # listpack (7.2+) / hashtable
r.sadd("set:large", *["member:%d" % i for i in range(1000)])
r.zadd("zset:small", {"a": 1, "b": 2.5, "c": float("inf"), "d": float("-inf"), "e": -0.125, "f": 1e100})
r.zadd("zset:large", {"m:%d" % i: i / 7 for i in range(500)})
r.zadd("zset:longmember", {"y" * 100: 1, "z": 2})             # skiplist: long member
r.hset("hash:small", mapping={"name": "redis", "n": "1", "neg": "-300"})
r.hset("hash:large", mapping={"field:%d" % i: "value:%d" % i for i in range(600)})
r.hset("hash:longvalue", mapping={"f": "v" * 200})
# other databases
r1 = redis.Redis(port=port, db=1); r1.set("db1:key", "one"); r1.rpush("db1:list", "x", "y")
r9 = redis.Redis(port=port, db=9); r9.set("db9:key", "nine"); r9.pexpireat("db9:key", FAR_MS)
# IDLE (LRU policy, 7.0) or FREQ (LFU policy, 8.8) opcodes before every key
r.config_set("maxmemory-policy", "allkeys-lru" if tag == "redis70" else "allkeys-lfu")
r.save()
os.replace(os.path.join(tmp, "dump.rdb"), os.path.join(out, tag + ".rdb"))

def hx(b): return b.hex()
lines = []
for db in (0, 1, 9):
    c = redis.Redis(port=port, db=db)
    for key in sorted(c.keys("*")):
        t = c.type(key).decode()
        exp = c.execute_command("PEXPIRETIME", key)
        if t == "string": v = '"%s"' % hx(c.get(key))
        elif t == "list": v = "[" + ",".join('"%s"' % hx(x) for x in c.lrange(key, 0, -1)) + "]"
        elif t == "set": v = "[" + ",".join(sorted('"%s"' % hx(x) for x in c.smembers(key))) + "]"
        elif t == "zset":
            v = "[" + ",".join('["%s","%s"]' % (hx(m), "%.17g" % s) for m, s in c.zrange(key, 0, -1, withscores=True)) + "]"
        elif t == "hash":
            v = "[" + ",".join(sorted('["%s","%s"]' % (hx(f), hx(x)) for f, x in c.hgetall(key).items())) + "]"
        lines.append('{"db":%d,"key":"%s","type":"%s","expire_ms":%d,"value":%s}' % (db, hx(key), t, exp, v))
with open(os.path.join(out, tag + ".expected"), "w") as f:
    f.write("\n".join(lines) + "\n")
with open(os.path.join(out, tag + ".dumps"), "w") as f:
    for key in sorted(r.keys("*")):
        f.write("%s %s\n" % (hx(key), hx(r.dump(key))))
if tag == "redis88":
    r.flushall()
    import random
    rnd = random.Random(7)
    def vec(n): return [str(round(rnd.gauss(0, 2), 4)) for _ in range(n)]
    for i in range(100):
        extra = ["SETATTR", '{"i":%d}' % i] if i % 3 == 0 else []
        r.execute_command("VADD", "vs:q8", "VALUES", 8, *vec(8), "e%d" % i, *extra)
    for i in range(40):
        r.execute_command("VADD", "vs:noquant", "VALUES", 4, *vec(4), "n%d" % i, "NOQUANT")
    for i in range(40):
        r.execute_command("VADD", "vs:bin", "VALUES", 70, *vec(70), "b%d" % i, "BIN")
    for i in range(20):
        r.execute_command("VADD", "vs:reduce", "REDUCE", 4, "VALUES", 10, *vec(10), "r%d" % i)
    for i in range(30):
        r.execute_command("VADD", "vs:m8", "VALUES", 3, *vec(3), "m%d" % i, "M", 8)
    r.save()
    os.replace(os.path.join(tmp, "dump.rdb"), os.path.join(out, "redis88_vset.rdb"))
    # K <key hex> <quant> <dim> <card>, then E <key hex> <label hex> <attributes hex or -> <VEMB>
    with open(os.path.join(out, "redis88_vset.expected"), "w") as f:
        for key in sorted(r.keys("*")):
            info = r.execute_command("VINFO", key)
            info = dict(zip(info[::2], info[1::2]))
            f.write("K %s %s %d %d\n" % (key.hex(), info[b"quant-type"].decode(), r.execute_command("VDIM", key),
                                         r.execute_command("VCARD", key)))
            for label in sorted(r.execute_command("VRANDMEMBER", key, 100000)):
                emb = r.execute_command("VEMB", key, label)
                attr = r.execute_command("VGETATTR", key, label)
                f.write("E %s %s %s %s\n" % (key.hex(), label.hex(), attr.hex() if attr else "-",
                                               ",".join(repr(float(x)) for x in emb)))
    with open(os.path.join(out, "redis88_vset.dumps"), "w") as f:
        for key in sorted(r.keys("*")):
            f.write("%s %s\n" % (key.hex(), r.dump(key).hex()))
    r.flushall()
    r.hset("hfe", mapping={"f": "v", "g": "w"}); r.execute_command("HEXPIRE", "hfe", 100000, "FIELDS", 1, "f")
    r.save()
    os.replace(os.path.join(tmp, "dump.rdb"), os.path.join(out, "redis88_hfe.rdb"))
PY
  kill "$pid"
  wait "$pid" 2>/dev/null || true
  rm -rf "$tmp"
}

gen redis70 /usr/bin/redis-server
R88="$ROOT/../shared/peers/redis-8.8/redis-server"
if [ -x "$R88" ]; then
  gen redis88 "$R88"
  gen redis88_cluster "$R88" "--cluster-enabled yes --cluster-config-file nodes.conf"
fi
du -sh "$OUT"
