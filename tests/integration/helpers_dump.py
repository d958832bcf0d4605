"""Shared by the DUMP/RESTORE/MIGRATE tests: peer Redis servers (Debian's 7.0 and the
workspace's 8.8 when present), a data set covering every type and encoding size class, a
comparable snapshot of a key, and Redis's CRC64 (to forge payloads)."""
import os
import random
import subprocess
import time

import pytest
import redis

from conftest import ROOT, free_port

REDIS7 = "/usr/bin/redis-server"
REDIS88 = next((p for p in (os.path.join(ROOT, "..", "shared", "peers", "redis-8.8", "redis-server"),
                            os.path.join(ROOT, "..", "..", "shared", "peers", "redis-8.8",
                                         "redis-server"))
                if os.path.exists(p)), None)


class Peer:
    """A reference redis-server on a free port, persistence off."""

    def __init__(self, binary, tmp_path, args=()):
        self.port = free_port()
        self.password = None
        args = list(args)
        if "--requirepass" in args:
            self.password = args[args.index("--requirepass") + 1]
        cmd = [binary, "--port", str(self.port), "--bind", "127.0.0.1", "--save", "",
               "--appendonly", "no", "--dir", str(tmp_path)] + args
        self.proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.time() + 15
        while True:
            try:
                self.client().ping()
                return
            except redis.ConnectionError:
                if self.proc.poll() is not None or time.time() > deadline:
                    raise RuntimeError(f"{binary} did not start")
                time.sleep(0.05)

    def client(self, **kwargs):
        return redis.Redis(host="127.0.0.1", port=self.port, password=self.password, **kwargs)

    def stop(self):
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


def start_peer(binary, tmp_path_factory, args=()):
    if binary is None or not os.path.exists(binary):
        pytest.skip(f"peer {binary} not present")
    return Peer(binary, tmp_path_factory.mktemp("peer"), args)


# --- the data set ---------------------------------------------------------------------------

TTL_MS = 500_000


def populate(c, prefix=""):
    """Creates one key per type and size class on `c` (a bytes client) and returns their
    names. Sizes straddle the default encoding limits (128 entries / 64 bytes for hashes
    and sorted sets, 512 integers for intsets, 8 KB list nodes)."""
    rnd = random.Random(15)
    p = c.pipeline(transaction=False)
    keys = []

    def k(name):
        keys.append((prefix + name).encode())
        return keys[-1]

    # strings
    for name, value in [
            ("s:int", b"12345"), ("s:neg", b"-9223372036854775808"),
            ("s:max", b"9223372036854775807"), ("s:past64", b"18446744073709551616"),
            ("s:lead0", b"012"), ("s:float", b"3.14"), ("s:empty", b""),
            ("s:bin", bytes(range(256)) + b"\x00\xff\x00"), ("s:21", b"x" * 21),
            ("s:long", b"abc" * 5000), ("s:rand", rnd.randbytes(3000)),
            ("s:huge", (b"0123456789abcdef" * 8192) + rnd.randbytes(100))]:
        p.set(k(name), value)
    p.set(k("s:ttl"), b"expiring", px=TTL_MS)
    # lists
    p.rpush(k("l:one"), b"only")
    p.rpush(k("l:small"), b"a", b"1", b"-2", b"\x00bin\xff", b"", b"9223372036854775807",
            b"-9223372036854775808", b"12345678901234567890", b"1.5")
    p.rpush(k("l:ints"), *[str(i).encode() for i in range(-300, 300, 7)])
    p.rpush(k("l:large"), *[rnd.randbytes(rnd.randint(0, 80)) for _ in range(3000)])
    p.rpush(k("l:bigelem"), b"x" * 10000, b"y", rnd.randbytes(9000))
    p.rpush(k("l:ttl"), b"a", b"b")
    p.pexpire(keys[-1], TTL_MS)
    # hashes
    p.hset(k("h:one"), b"f", b"v")
    p.hset(k("h:small"), mapping={b"f1": b"v1", b"n": b"123", b"\x00": b"\xff", b"": b"empty"})
    p.hset(k("h:large"), mapping={f"field:{i}".encode(): rnd.randbytes(rnd.randint(0, 30))
                                  for i in range(1000)})
    p.hset(k("h:longval"), mapping={b"a": b"x" * 100, b"b": b"2"})
    p.hset(k("h:ints"), mapping={str(i).encode(): str(i * i).encode() for i in range(-5, 20)})
    p.hset(k("h:ttl"), b"f", b"v")
    p.pexpire(keys[-1], TTL_MS)
    # sets
    p.sadd(k("set:one"), b"7")
    p.sadd(k("set:int"), 1, 2, 3, -5, 9223372036854775807, -9223372036854775808)
    p.sadd(k("set:int16"), *range(100))
    p.sadd(k("set:intlarge"), *range(0, 3000, 3))
    p.sadd(k("set:str"), b"a", b"b", b"c")
    p.sadd(k("set:strlarge"), *[f"member:{i}".encode() for i in range(1000)])
    p.sadd(k("set:mixed"), b"1", b"a", b"-3", b"18446744073709551616")
    p.sadd(k("set:bin"), b"\x00", b"\xff\xfe", b"", b"x" * 100)
    p.sadd(k("set:ttl"), b"1", b"2")
    p.pexpire(keys[-1], TTL_MS)
    # sorted sets
    p.zadd(k("z:one"), {b"m": 1})
    p.zadd(k("z:small"), {b"a": 1, b"b": float("-inf"), b"c": float("inf"), b"d": 1e-300,
                          b"e": -2.5, b"f": 0, b"g": 1.7976931348623157e308, b"h": 0.1})
    p.zadd(k("z:large"), {f"m{i}".encode(): rnd.choice([rnd.randint(-1000, 1000), rnd.random(),
                                                         rnd.uniform(-1e300, 1e300)])
                          for i in range(500)})
    p.zadd(k("z:longmember"), {b"x" * 100: 1.5, b"y": 2})
    p.zadd(k("z:bin"), {b"\x00\xff": 3, b"": 4})
    p.zadd(k("z:ttl"), {b"a": 1})
    p.pexpire(keys[-1], TTL_MS)
    p.execute()
    return keys


def snapshot(c, key):
    """(type, value) of a key in a form that compares across servers."""
    t = c.type(key)
    if t == b"string":
        v = c.get(key)
    elif t == b"list":
        v = c.lrange(key, 0, -1)
    elif t == b"hash":
        v = sorted(c.hgetall(key).items())
    elif t == b"set":
        v = sorted(c.smembers(key))
    elif t == b"zset":
        v = c.zrange(key, 0, -1, withscores=True)
    else:
        v = None
    return t, v


def assert_same_keys(src, dst, keys, renamed=lambda k: k):
    """Every key of `keys` on `src` has the same type, value and TTL (within 10 s) as
    renamed(key) on `dst`."""
    for key in keys:
        assert snapshot(dst, renamed(key)) == snapshot(src, key), key
        a, b = src.pttl(key), dst.pttl(renamed(key))
        if a < 0:
            assert b == a, key
        else:
            assert 0 < b and abs(a - b) < 10_000, (key, a, b)


def transfer(src, dst, keys, renamed=lambda k: k):
    """DUMP each key on `src` and RESTORE it on `dst` with its remaining TTL."""
    for key in keys:
        payload = src.dump(key)
        assert payload is not None, key
        ttl = src.pttl(key)
        assert dst.restore(renamed(key), max(ttl, 0), payload) in (True, b"OK"), key


# --- CRC64 (Redis's crc64: Jones polynomial, reflected, no final xor) -----------------------

def _crc64_table():
    poly = 0x95AC9329AC4BC9B5
    table = []
    for i in range(256):
        crc = i
        for _ in range(8):
            crc = (crc >> 1) ^ poly if crc & 1 else crc >> 1
        table.append(crc)
    return table


_CRC_TABLE = _crc64_table()


def crc64(data, crc=0):
    for b in data:
        crc = _CRC_TABLE[(crc ^ b) & 0xFF] ^ (crc >> 8)
    return crc


def with_footer(body, version=10, checksum=True):
    """body (type byte + object) -> a DUMP payload with the version and CRC64 appended."""
    data = bytes(body) + version.to_bytes(2, "little")
    crc = crc64(data) if checksum else 0
    return data + crc.to_bytes(8, "little")


assert crc64(b"123456789") == 0xE9C6D914C4B8D9CA
