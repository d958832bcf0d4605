"""Random lockstep of hash-field-expiry commands: HotKV vs Redis 8.8 (diff_vs_redis.py runs
against Redis 7.0, which lacks them). Absolute times only, so replies are deterministic;
with a fifth argument ("lazy") the active cycle is off on both and some fields get a 1 ms
TTL, to compare lazy expiry, and hash-max-listpack-entries is 6 so that small hashes with
expired fields convert to "hashtable" by count too. SORT/SORT_RO read hash fields through
BY/GET "h*->field" patterns (a list "l" of 1 2 3 names h1 h2 h3). Both servers need
enable-debug-command yes.

Usage: hash_field_expiry_lockstep.py hotkv_port redis88_port count seed [lazy]"""
import random
import sys

import redis

hp, rp, count, seed = map(int, sys.argv[1:5])
LAZY = len(sys.argv) > 5
H = redis.Redis(port=hp)
R = redis.Redis(port=rp)
for c in (H, R):
    c.flushall()
    c.response_callbacks.clear()
rng = random.Random(seed)
import time
for c in (H, R):
    c.execute_command("DEBUG", "SET-ACTIVE-EXPIRE", "0" if LAZY else "1")
    c.execute_command("CONFIG", "SET", "hash-max-listpack-entries", "6" if LAZY else "128")
    c.execute_command("RPUSH", "l", "1", "2", "3")
KEYS = ["h1", "h2", "h3", "s"]
FIELDS = [f"f{i}" for i in range(8)]
FAR = 4_000_000_000


def fields(k=None):
    n = k or rng.randint(1, 4)
    return [rng.choice(FIELDS) for _ in range(n)]


def t_abs(ms):
    # past (deletes) sometimes, else a few distinct far times (ties happen)
    if rng.random() < 0.1:
        return rng.choice([0, 1])
    base = FAR * (1000 if ms else 1)
    return base + rng.randint(0, 5) * (1000 if ms else 1)


def gen():
    key = rng.choice(KEYS)
    op = rng.randint(0, 18)
    if key == "s" and rng.random() < 0.7:
        return ["SET", "s", "x"]
    fs = fields()
    if op == 0:
        return ["HSET", key] + [x for f in fs for x in (f, str(rng.randint(0, 9)))]
    if op == 1:
        return ["HDEL", key] + fs
    if op == 3 and LAZY and rng.random() < 0.5:
        return ["HPEXPIRE", key, "1", "FIELDS", str(len(fs))] + fs
    if op in (2, 3):
        cmd = rng.choice(["HEXPIREAT", "HPEXPIREAT"])
        cond = rng.choice([[], [], ["NX"], ["XX"], ["GT"], ["LT"]])
        return [cmd, key, str(t_abs(cmd == "HPEXPIREAT"))] + cond + ["FIELDS", str(len(fs))] + fs
    if op == 4:
        return [rng.choice(["HEXPIRETIME", "HPEXPIRETIME"]), key, "FIELDS", str(len(fs))] + fs
    if op == 5:
        return ["HPERSIST", key, "FIELDS", str(len(fs))] + fs
    if op == 6:
        opt = rng.choice([[], ["PERSIST"], ["EXAT", str(t_abs(False))], ["PXAT", str(t_abs(True))]])
        return ["HGETEX", key] + opt + ["FIELDS", str(len(fs))] + fs
    if op == 7:
        cond = rng.choice([[], ["FNX"], ["FXX"]])
        opt = rng.choice([[], ["KEEPTTL"], ["EXAT", str(t_abs(False))], ["PXAT", str(t_abs(True))]])
        return (["HSETEX", key] + cond + opt + ["FIELDS", str(len(fs))] +
                [x for f in fs for x in (f, str(rng.randint(0, 9)))])
    if op == 8:
        return ["HGETDEL", key, "FIELDS", str(len(fs))] + fs
    if op == 9:
        return ["HGETALL", key]
    if op == 10:
        return ["HLEN", key]
    if op == 11:
        return ["HMGET", key] + fs
    if op == 12:
        return ["HINCRBY", key, fs[0], "1"]
    if op == 13:
        return ["OBJECT", "ENCODING", key]
    if op == 14:
        return ["HSETNX", key, fs[0], "n"]
    if op == 15:
        return ["EXISTS", key]
    if op == 16:
        return ["HSET", key, "big" + fs[0], "x" * rng.choice([10, 100])]
    if op == 17:
        cmd = [rng.choice(["SORT", "SORT_RO"]), "l"]
        if rng.random() < 0.8:
            cmd += ["BY", rng.choice(["h*->", "nosort->"]) + rng.choice(FIELDS)]
        for _ in range(rng.randint(0, 2)):
            cmd += ["GET", rng.choice(["#", "h*->" + rng.choice(FIELDS)])]
        cmd += rng.choice([[], ["ALPHA"], ["DESC"], ["ALPHA", "DESC"]])
        if cmd[0] == "SORT" and rng.random() < 0.2:
            cmd += ["STORE", "dst"]
        return cmd
    return ["HKEYS", key]


def run(c, cmd):
    try:
        return c.execute_command(*cmd)
    except redis.ResponseError as e:
        return ("err", str(e))


diffs = 0
for i in range(count):
    cmd = gen()
    a, b = run(H, cmd), run(R, cmd)
    if cmd[0] == "HPEXPIRE":
        time.sleep(0.003)
    if cmd[0] in ("HGETALL", "HKEYS") and isinstance(a, list) and isinstance(b, list):
        enc = run(R, ["OBJECT", "ENCODING", cmd[1]])
        if enc == b"hashtable":
            if cmd[0] == "HGETALL":
                a, b = sorted(zip(a[0::2], a[1::2])), sorted(zip(b[0::2], b[1::2]))
            else:
                a, b = sorted(a), sorted(b)
    if a != b:
        diffs += 1
        print(i, cmd, "hotkv:", a, "redis:", b)
        if diffs > 20:
            break
print("commands", i + 1, "differences", diffs)
