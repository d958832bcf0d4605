"""Generic key commands applied to lists, hashes, sets and sorted sets: TYPE, DEL, EXISTS,
EXPIRE, RENAME, COPY, SCAN TYPE, OBJECT ENCODING, and removal of emptied collections."""
import threading

import pytest

from helpers_types import WRONGTYPE, rc_fixture, wait_for


@pytest.fixture
def rc(server, r):
    yield from rc_fixture(server)


def make(rc, kind, key, big=False):
    """Creates a collection of `kind`; big=True uses the non-compact encoding."""
    n = 300 if big else 3
    if kind == "list":
        rc("RPUSH", key, *[f"e{i}" for i in range(n)])
        if big:
            rc("RPUSH", key, "x" * 10000)
    elif kind == "hash":
        rc("HSET", key, *[x for i in range(n) for x in (f"f{i}", f"v{i}")])
        if big:
            rc("HSET", key, "long", "x" * 100)
    elif kind == "set":
        rc("SADD", key, *[f"m{i}" for i in range(n)])
    elif kind == "zset":
        rc("ZADD", key, *[x for i in range(n) for x in (i, f"m{i}")])


def snapshot(rc, kind, key):
    if kind == "list":
        return rc("LRANGE", key, 0, -1)
    if kind == "hash":
        flat = rc("HGETALL", key)
        return dict(zip(flat[0::2], flat[1::2]))
    if kind == "set":
        return sorted(rc("SMEMBERS", key))
    return rc("ZRANGE", key, 0, -1, "WITHSCORES")


def mutate(rc, kind, key):
    if kind == "list":
        rc("LSET", key, 0, "changed")
        rc("RPUSH", key, "more")
    elif kind == "hash":
        rc("HSET", key, "f0", "changed", "newfield", "x")
    elif kind == "set":
        rc("SREM", key, "m0")
        rc("SADD", key, "newmember")
    else:
        rc("ZINCRBY", key, 100, "m0")
        rc("ZADD", key, 5, "newmember")


KINDS = ["list", "hash", "set", "zset"]


@pytest.mark.parametrize("kind", KINDS)
def test_type_del_exists(rc, kind):
    make(rc, kind, "k")
    assert rc("TYPE", "k") == kind
    assert rc("EXISTS", "k", "k", "nope") == 2
    assert rc("DEL", "k", "nope") == 1
    assert rc("EXISTS", "k") == 0
    assert rc("TYPE", "k") == "none"


@pytest.mark.parametrize("kind", KINDS)
def test_expire_and_ttl_survive_modification(rc, kind):
    make(rc, kind, "k")
    assert rc("EXPIRE", "k", 100) == 1
    mutate(rc, kind, "k")
    assert 0 < rc("TTL", "k") <= 100
    assert rc("PERSIST", "k") == 1
    assert rc("TTL", "k") == -1


@pytest.mark.parametrize("kind", KINDS)
def test_collection_expires(rc, kind):
    make(rc, kind, "k")
    assert rc("PEXPIRE", "k", 30) == 1
    wait_for(lambda: rc("EXISTS", "k") == 0, timeout=5, what="key expiry")
    assert rc("TYPE", "k") == "none"


def test_expired_collection_is_a_new_empty_one(rc):
    rc("RPUSH", "l", "old1", "old2")
    rc("PEXPIRE", "l", 20)
    wait_for(lambda: rc("EXISTS", "l") == 0, what="key expiry")
    assert rc("RPUSH", "l", "new") == 1
    assert rc("TTL", "l") == -1
    rc("HSET", "h", "a", "1")
    rc("PEXPIRE", "h", 20)
    wait_for(lambda: rc("EXISTS", "h") == 0, what="key expiry")
    assert rc("HINCRBY", "h", "a", 1) == 1


@pytest.mark.parametrize("kind", KINDS)
def test_rename(rc, kind):
    make(rc, kind, "src")
    before = snapshot(rc, kind, "src")
    rc("EXPIRE", "src", 1000)
    assert rc("RENAME", "src", "dst") == "OK"
    assert rc("EXISTS", "src") == 0
    assert rc("TYPE", "dst") == kind
    assert snapshot(rc, kind, "dst") == before
    assert 0 < rc("TTL", "dst") <= 1000  # the TTL moves with the value


def test_rename_overwrites_other_type_and_errors(rc):
    rc("RPUSH", "l", "a")
    rc("ZADD", "z", 1, "m")
    assert rc("RENAME", "l", "z") == "OK"
    assert rc("TYPE", "z") == "list"
    assert rc("LRANGE", "z", 0, -1) == ["a"]
    assert rc.err("RENAME", "nope", "x") == "ERR no such key"
    rc("SADD", "s", "m")
    assert rc("RENAMENX", "s", "z") == 0
    assert rc("TYPE", "s") == "set"


@pytest.mark.parametrize("big", [False, True], ids=["compact", "large"])
@pytest.mark.parametrize("kind", KINDS)
def test_copy_is_deep(rc, kind, big):
    make(rc, kind, "src", big=big)
    before = snapshot(rc, kind, "src")
    assert rc("COPY", "src", "dst") == 1
    assert rc("TYPE", "dst") == kind
    assert snapshot(rc, kind, "dst") == before
    assert rc("OBJECT", "ENCODING", "dst") == rc("OBJECT", "ENCODING", "src")
    mutate(rc, kind, "dst")
    assert snapshot(rc, kind, "src") == before  # the original is untouched
    assert snapshot(rc, kind, "dst") != before
    mutate(rc, kind, "src")
    rc("DEL", "src")
    assert rc("EXISTS", "dst") == 1


def test_copy_existing_destination_replace_and_db(rc):
    rc("RPUSH", "src", "a", "b")
    rc("SADD", "dst", "x")
    assert rc("COPY", "src", "dst") == 0
    assert rc("TYPE", "dst") == "set"
    assert rc("COPY", "src", "dst", "REPLACE") == 1
    assert rc("LRANGE", "dst", 0, -1) == ["a", "b"]
    assert rc("COPY", "src", "src2", "DB", 1) == 1
    assert rc("EXISTS", "src2") == 0
    rc("SELECT", 1)
    try:
        assert rc("LRANGE", "src2", 0, -1) == ["a", "b"]
        rc("RPUSH", "src2", "c")
    finally:
        rc("SELECT", 0)
    assert rc("LRANGE", "src", 0, -1) == ["a", "b"]
    assert rc("COPY", "nope", "x") == 0
    assert rc.err("COPY", "src", "src") == "ERR source and destination objects are the same"


def test_copy_keeps_ttl(rc):
    rc("HSET", "src", "a", "1")
    rc("EXPIRE", "src", 500)
    assert rc("COPY", "src", "dst") == 1
    assert 0 < rc("TTL", "dst") <= 500


def test_scan_type(rc):
    for i in range(20):
        make(rc, "list", f"list:{i}")
        make(rc, "hash", f"hash:{i}")
        make(rc, "set", f"set:{i}")
        make(rc, "zset", f"zset:{i}")
        rc("SET", f"string:{i}", "v")

    def scan_all(*opts):
        cursor, keys = "0", []
        while True:
            cursor, batch = rc("SCAN", cursor, *opts)
            keys += batch
            if cursor == "0":
                return set(keys)

    for kind in KINDS + ["string"]:
        assert scan_all("TYPE", kind, "COUNT", 10) == {f"{kind}:{i}" for i in range(20)}
    assert scan_all("TYPE", "zset", "MATCH", "zset:1*") == {
        "zset:1"} | {f"zset:{i}" for i in range(10, 20)}
    assert scan_all("MATCH", "hash:1?") == {f"hash:{i}" for i in range(10, 20)}


def test_redis_py_scan_iter_type(r):
    r.rpush("l1", "a")
    r.hset("h1", "a", "b")
    assert set(r.scan_iter(_type="LIST")) == {"l1"}
    assert set(r.scan_iter(_type="hash")) == {"h1"}


@pytest.mark.parametrize("setup,encoding", [
    (("HSET", "k", "f", "v"), "listpack"),
    (("SADD", "k", 1, 2), "intset"),
    (("ZADD", "k", 1, "m"), "listpack"),
])
def test_object_encoding_compact(rc, setup, encoding):
    rc(*setup)
    assert rc("OBJECT", "ENCODING", "k") == encoding


# Every way of removing the last element must delete the key.
EMPTYING = [
    ("list", ("LPOP", "k")), ("list", ("RPOP", "k")), ("list", ("LPOP", "k", 5)),
    ("list", ("LREM", "k", 0, "only")), ("list", ("LTRIM", "k", 1, 0)),
    ("list", ("LMOVE", "k", "other", "LEFT", "RIGHT")), ("list", ("RPOPLPUSH", "k", "other")),
    ("list", ("LMPOP", 1, "k", "LEFT")), ("list", ("BLPOP", "k", 1)),
    ("list", ("BLMOVE", "k", "other", "RIGHT", "LEFT", 1)),
    ("hash", ("HDEL", "k", "only")),
    ("set", ("SREM", "k", "only")), ("set", ("SPOP", "k")), ("set", ("SPOP", "k", 3)),
    ("set", ("SMOVE", "k", "other", "only")),
    ("zset", ("ZREM", "k", "only")), ("zset", ("ZPOPMIN", "k")), ("zset", ("ZPOPMAX", "k", 2)),
    ("zset", ("ZREMRANGEBYRANK", "k", 0, -1)), ("zset", ("ZREMRANGEBYSCORE", "k", "-inf", "+inf")),
    ("zset", ("ZREMRANGEBYLEX", "k", "-", "+")), ("zset", ("ZMPOP", 1, "k", "MIN")),
    ("zset", ("BZPOPMIN", "k", 1)), ("zset", ("BZMPOP", 1, 1, "k", "MAX")),
]


@pytest.mark.parametrize("kind,command", EMPTYING, ids=lambda v: v if isinstance(v, str)
                         else " ".join(map(str, v[:1] + v[2:])))
def test_emptied_collection_disappears(rc, kind, command):
    {"list": lambda: rc("RPUSH", "k", "only"),
     "hash": lambda: rc("HSET", "k", "only", "v"),
     "set": lambda: rc("SADD", "k", "only"),
     "zset": lambda: rc("ZADD", "k", 0, "only")}[kind]()
    rc(*command)
    assert rc("EXISTS", "k") == 0
    assert rc("TYPE", "k") == "none"
    assert rc("SCAN", 0, "MATCH", "k", "COUNT", 1000) == ["0", []]


def test_wrongtype_leaves_value_intact(rc):
    rc("ZADD", "z", 1, "a")
    assert rc.err("LPUSH", "z", "x") == WRONGTYPE
    assert rc.err("SADD", "z", "x") == WRONGTYPE
    assert rc.err("HSET", "z", "f", "v") == WRONGTYPE
    assert rc.err("GET", "z") == WRONGTYPE
    assert rc("ZRANGE", "z", 0, -1, "WITHSCORES") == ["a", "1"]
    assert rc("SET", "z", "now-a-string") == "OK"  # SET replaces any type
    assert rc("TYPE", "z") == "string"


def test_concurrent_updates_to_one_key_are_not_lost(server, r):
    """Many connections (spread over HotKV's worker threads) updating the same
    collections at once: every single update must be applied exactly once."""
    threads_n, per_thread = 8, 250
    errors = []

    def worker(t):
        c = server.client()
        try:
            pipe = c.pipeline(transaction=False)
            for i in range(per_thread):
                pipe.rpush("list", f"{t}:{i}")
                pipe.hincrby("hash", "n", 1)
                pipe.hset("hash", f"{t}:{i}", i)
                pipe.sadd("set", f"{t}:{i}")
                pipe.zincrby("zset", 1, "shared")
                pipe.zadd("zset", {f"{t}:{i}": i})
                if i % 50 == 49:
                    pipe.execute()
            pipe.execute()
        except Exception as exc:
            errors.append(repr(exc))
        finally:
            c.close()

    threads = [threading.Thread(target=worker, args=(t,)) for t in range(threads_n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert not errors, errors[:3]
    total = threads_n * per_thread
    assert r.llen("list") == total
    items = r.lrange("list", 0, -1)
    assert len(set(items)) == total
    for t in range(threads_n):  # each connection's pushes keep their order
        mine = [int(x.split(":")[1]) for x in items if x.startswith(f"{t}:")]
        assert mine == list(range(per_thread))
    assert r.hget("hash", "n") == str(total)
    assert r.hlen("hash") == total + 1
    assert r.scard("set") == total
    assert r.zscore("zset", "shared") == float(total)
    assert r.zcard("zset") == total + 1
