"""SORT and SORT_RO on lists, sets and sorted sets: BY (patterns, hash fields, nosort),
LIMIT, GET (#, patterns, hash fields), ASC/DESC, ALPHA, STORE.

Written from Redis's documentation and checked by hand against Redis 8.8 (every
expectation is what it answers; the tests also pass against Redis 7.0 except where marked
redis8). The last test compares random SORT commands with a Redis 8.8 peer."""
import random
import time

import pytest
import redis

from conftest import IS_REDIS, cmd, error_reply, restarted_with_aof, wait_until
from helpers_dump import REDIS88, start_peer
from helpers_pubsub import keyevents  # noqa: F401 (fixture)

SYNTAX = "ERR syntax error"
NOT_INT = "ERR value is not an integer or out of range"
NOT_DOUBLE = "ERR One or more scores can't be converted into double"
WRONGTYPE = "WRONGTYPE Operation against a key holding the wrong kind of value"


def test_numeric_sort_of_lists_sets_and_zsets(r):
    r.rpush("l", 3, 1, 2, 10, -5, "2.5", "1e2")
    assert r.sort("l") == ["-5", "1", "2", "2.5", "3", "10", "1e2"]
    assert r.sort("l", desc=True) == ["1e2", "10", "3", "2.5", "2", "1", "-5"]
    assert cmd(r, "SORT", "l", "ASC") == ["-5", "1", "2", "2.5", "3", "10", "1e2"]
    r.sadd("s", 5, 3, 9, -1)
    assert r.sort("s") == ["-1", "3", "5", "9"]
    r.zadd("z", {"30": 1, "10": 2, "20": 3})
    assert r.sort("z") == ["10", "20", "30"]
    # Equal values are ordered by their bytes.
    r.rpush("eq", "1.0", "1", "01")
    assert r.sort("eq") == ["01", "1", "1.0"]


def test_alpha(r):
    r.rpush("l", "b", "a", "C", "aa", "10", "9")
    assert r.sort("l", alpha=True) == ["10", "9", "C", "a", "aa", "b"]
    assert r.sort("l", alpha=True, desc=True) == ["b", "aa", "a", "C", "9", "10"]
    assert error_reply(r, "SORT", "l") == NOT_DOUBLE


def test_values_that_are_not_numbers(r):
    for bad in ("abc", "nan", "1e400", "1 "):
        r.delete("l")
        r.rpush("l", "1", bad)
        assert error_reply(r, "SORT", "l") == NOT_DOUBLE, bad
    r.delete("l")
    r.rpush("l", "inf", "-inf", "0x10", "1")
    assert r.sort("l") == ["-inf", "1", "0x10", "inf"]


@pytest.mark.redis8
def test_values_redis8_refuses(r):
    # Redis 8 parses sort values as it parses every double (string2d); Redis 7.0's bare
    # strtod took "" as 0 and skipped leading spaces.
    for bad in ("", " 1", "1e-400", "1\x00"):
        r.delete("l")
        r.rpush("l", "1", bad)
        assert error_reply(r, "SORT", "l") == NOT_DOUBLE, bad


def test_limit(r):
    r.rpush("l", *range(10))
    assert r.sort("l", start=2, num=3) == ["2", "3", "4"]
    assert r.sort("l", start=8, num=5) == ["8", "9"]
    assert r.sort("l", start=-5, num=2) == ["0", "1"]
    assert r.sort("l", start=3, num=-1) == ["3", "4", "5", "6", "7", "8", "9"]
    assert r.sort("l", start=10, num=1) == []
    assert r.sort("l", start=0, num=0) == []
    assert r.sort("l", start=2, num=2, desc=True) == ["7", "6"]
    assert cmd(r, "SORT", "l", "LIMIT", "9223372036854775807", "9223372036854775807") == []
    assert error_reply(r, "SORT", "l", "LIMIT", "x", "1") == NOT_INT
    assert error_reply(r, "SORT", "l", "LIMIT", "1", "1.5") == NOT_INT
    assert error_reply(r, "SORT", "l", "LIMIT", "1") == SYNTAX


def test_by_pattern(r):
    r.rpush("l", "a", "b", "c", "d")
    r.mset({"w_a": 3, "w_b": 1, "w_c": 2})  # w_d missing: sorts as 0
    assert r.sort("l", by="w_*") == ["d", "b", "c", "a"]
    assert r.sort("l", by="w_*", desc=True) == ["a", "c", "b", "d"]
    assert r.sort("l", by="w_*", start=1, num=2) == ["b", "c"]
    r.hset("h_a", "f", 1)
    r.hset("h_b", "f", 3)
    r.hset("h_c", "g", 0)
    assert r.sort("l", by="h_*->f") == ["c", "d", "a", "b"]
    # The key type must fit: a string for a plain pattern, a hash for ->field.
    r.set("x_a", 5)
    r.rpush("x_b", 1)
    assert r.sort("l", by="x_*") == ["b", "c", "d", "a"]
    assert r.sort("l", by="w_*->f") == ["a", "b", "c", "d"]
    r.set("w_b", "nope")
    assert error_reply(r, "SORT", "l", "BY", "w_*") == NOT_DOUBLE
    assert r.sort("l", by="w_*", alpha=True) == ["d", "c", "a", "b"]


def test_by_pattern_alpha_missing_values_first(r):
    r.rpush("l", "a", "b", "c")
    r.mset({"w_a": "zz", "w_c": "aa"})
    assert r.sort("l", by="w_*", alpha=True) == ["b", "c", "a"]
    assert r.sort("l", by="w_*", alpha=True, desc=True) == ["a", "c", "b"]


def test_by_nosort_keeps_the_source_order(r):
    r.rpush("l", "c", "a", "b", "d")
    assert r.sort("l", by="nosort") == ["c", "a", "b", "d"]
    assert r.sort("l", by="nosort", desc=True) == ["d", "b", "a", "c"]
    assert r.sort("l", by="nosort", start=1, num=2) == ["a", "b"]
    assert r.sort("l", by="nosort", start=1, num=2, desc=True) == ["b", "a"]
    r.zadd("z", {"x": 3, "y": 1, "w": 2})
    assert r.sort("z", by="nosort") == ["y", "w", "x"]
    assert r.sort("z", by="nosort", desc=True) == ["x", "w", "y"]
    assert r.sort("z", by="nosort", start=1, num=5, desc=True) == ["w", "y"]
    assert r.sort("z", by="nosort", start=5, num=5) == []
    # A set has no order: with STORE it is sorted ALPHA so the stored list is defined.
    r.sadd("s", "b", "10", "a", "9")
    assert sorted(r.sort("s", by="nosort")) == ["10", "9", "a", "b"]
    assert r.sort("s", by="nosort", store="dst") == 4
    assert r.lrange("dst", 0, -1) == ["10", "9", "a", "b"]


def test_get(r):
    r.rpush("l", "1", "2", "3")
    r.mset({"o_1": "one", "o_2": "two"})
    r.hset("h_1", "name", "uno")
    r.hset("h_3", "name", "tres")
    assert r.sort("l", get="o_*") == ["one", "two", None]
    assert r.sort("l", get=["#", "o_*", "h_*->name"]) == [
        "1", "one", "uno", "2", "two", None, "3", None, "tres"]
    assert r.sort("l", get="#", desc=True, start=0, num=1) == ["3"]
    # A pattern without '*' names no key.
    r.set("fixed", "v")
    assert r.sort("l", get="fixed") == [None, None, None]
    # "->" with nothing after it is part of the key name.
    r.set("o_1->", "arrow")
    assert r.sort("l", get="o_*->") == ["arrow", None, None]
    # Only the first '*' is replaced.
    r.set("m_1_*", "star")
    assert r.sort("l", get="m_*_*") == ["star", None, None]
    assert error_reply(r, "SORT", "l", "GET") == SYNTAX


@pytest.mark.redis8
def test_hash_fields_past_their_ttl_read_as_missing(r):
    # Redis 8.8 also deletes such a field as it reads it; HotKV's SORT only reads
    # (the active expiry cycle or the next hash command removes it).
    r.rpush("l", "1", "2")
    r.hset("h_1", mapping={"f": "a", "g": "x"})
    r.hset("h_2", "f", "b")
    r.execute_command("DEBUG", "SET-ACTIVE-EXPIRE", "0")
    try:
        assert r.execute_command("HPEXPIRE", "h_1", "1", "FIELDS", "1", "f") == [1]
        time.sleep(0.02)  # past the 1 ms TTL; HLEN still counts the field (not deleted)
        assert r.hlen("h_1") == 2
        assert r.sort("l", by="nosort", get=["#", "h_*->f"]) == ["1", None, "2", "b"]
        assert r.sort("l", by="h_*->f", get="#", alpha=True) == ["1", "2"]
    finally:
        r.execute_command("DEBUG", "SET-ACTIVE-EXPIRE", "1")


def test_resp3_nulls(server):
    c = server.raw()
    try:
        c.command("HELLO", "3")
        c.command("DEL", "l3")
        c.command("RPUSH", "l3", "1")
        assert c.command("SORT", "l3", "GET", "nokey_*", "GET", "#") == [None, b"1"]
    finally:
        c.close()


def test_store(r):
    r.rpush("l", 3, 1, 2)
    r.set("dst", "old")
    r.expire("dst", 100)
    assert r.sort("l", store="dst") == 3
    assert r.type("dst") == "list"
    assert r.lrange("dst", 0, -1) == ["1", "2", "3"]
    assert r.ttl("dst") == -1
    assert r.sort("l", get=["#", "nokey_*"], store="dst") == 6
    assert r.lrange("dst", 0, -1) == ["1", "", "2", "", "3", ""]
    # An empty result deletes the destination.
    assert r.sort("l", start=5, num=1, store="dst") == 0
    assert r.exists("dst") == 0
    assert r.sort("nokey", store="dst") == 0
    # The source may be the destination; the last STORE wins.
    assert cmd(r, "SORT", "l", "STORE", "x", "DESC", "STORE", "l") == 3
    assert r.lrange("l", 0, -1) == ["3", "2", "1"]
    assert r.exists("x") == 0
    assert error_reply(r, "SORT", "l", "STORE") == SYNTAX


def test_sort_ro(r):
    r.rpush("l", 2, 1)
    assert cmd(r, "SORT_RO", "l") == ["1", "2"]
    assert cmd(r, "SORT_RO", "l", "BY", "nosort", "GET", "#", "DESC") == ["1", "2"]
    assert error_reply(r, "SORT_RO", "l", "STORE", "d") == SYNTAX
    assert cmd(r, "COMMAND", "INFO", "sort_ro")[0][2] == ["readonly", "movablekeys"]


def test_errors_and_missing_keys(r):
    r.set("str", "x")
    r.hset("hash", "f", "v")
    assert error_reply(r, "SORT", "str") == WRONGTYPE
    assert error_reply(r, "SORT", "hash") == WRONGTYPE
    assert error_reply(r, "SORT", "str", "FOO") == SYNTAX  # options are parsed first
    assert error_reply(r, "SORT", "str", "LIMIT", "x", "1") == NOT_INT
    assert r.sort("nokey") == []
    assert r.sort("nokey", by="w_*", get="#") == []
    assert error_reply(r, "SORT") == "ERR wrong number of arguments for 'sort' command"


def test_zset_becomes_skiplist(r):
    r.zadd("z", {"a": 1})
    assert cmd(r, "OBJECT", "ENCODING", "z") == "listpack"
    r.sort("z", alpha=True)
    assert cmd(r, "OBJECT", "ENCODING", "z") == "skiplist"


def test_patterns_across_shards_and_in_transactions(r):
    # Many keys: the weights live in other shards than the list.
    n = 200
    r.rpush("big", *range(n))
    r.mset({f"w_{i}": n - i for i in range(n)})
    r.mset({f"g_{i}": f"v{i}" for i in range(n)})
    expect = [str(i) for i in reversed(range(n))]
    assert r.sort("big", by="w_*") == expect
    assert r.sort("big", by="w_*", get="g_*", start=0, num=2) == [f"v{n - 1}", f"v{n - 2}"]
    with r.pipeline() as p:
        p.set("w_0", -1)
        p.sort("big", by="w_*", start=0, num=1)
        p.sort("big", by="w_*", get="g_*", store="{big}dst")
        assert p.execute() == [True, ["0"], n]
    assert r.lrange("{big}dst", 0, 1) == ["v0", f"v{n - 1}"]


def test_watch_on_the_destination(r, server):
    r.rpush("l", 1)
    other = server.client()
    try:
        with r.pipeline() as p:
            p.watch("dst")
            other.sort("l", store="dst")
            p.multi()
            p.get("x")
            with pytest.raises(redis.WatchError):
                p.execute()
    finally:
        other.close()


def test_command_getkeys(r):
    assert cmd(r, "COMMAND", "GETKEYS", "SORT", "l", "BY", "w_*", "STORE", "d", "GET", "x") == ["l", "d"]
    assert cmd(r, "COMMAND", "GETKEYS", "SORT", "l", "LIMIT", "0", "1", "GET", "store") == ["l"]
    assert cmd(r, "COMMAND", "GETKEYS", "SORT_RO", "l", "GET", "#") == ["l"]
    assert cmd(r, "COMMAND", "GETKEYSANDFLAGS", "SORT", "l", "STORE", "d") == [
        ["l", ["RO", "access"]], ["d", ["OW", "update"]]]


def test_keyspace_events(keyevents):
    events = keyevents
    assert events("RPUSH", "l", 1) == [("rpush", "l")]
    assert events("SORT", "l") == []
    assert events("SORT", "l", "STORE", "d") == [("sortstore", "d")]
    assert events("SORT", "l", "LIMIT", "0", "0", "STORE", "d") == [("del", "d")]
    assert events("SORT", "l", "LIMIT", "0", "0", "STORE", "d") == []


@pytest.mark.redis8
def test_store_over_another_value_events(keyevents):
    events = keyevents
    events("CONFIG", "SET", "notify-keyspace-events", "KEAoc")
    events("RPUSH", "l", 2, 1)
    assert events("SET", "d", "x") == [("set", "d")]
    assert events("SORT", "l", "STORE", "d") == [
        ("overwritten", "d"), ("type_changed", "d"), ("sortstore", "d")]
    assert events("SORT", "l", "STORE", "d") == [("overwritten", "d"), ("sortstore", "d")]


def test_store_wakes_a_blocked_pop(r, server):
    import threading
    r.rpush("src", 3, 1, 2)
    got = {}

    def waiter():
        c = server.client()
        got["v"] = c.blpop("dst", 10)
        c.close()

    t = threading.Thread(target=waiter)
    t.start()
    assert wait_until(lambda: r.info("clients")["blocked_clients"] == 1)
    assert r.sort("src", store="dst") == 3
    t.join()
    assert got["v"] == ("dst", "1")
    assert r.lrange("dst", 0, -1) == ["2", "3"]


# ---- Against Redis 8.8: random SORT commands, same replies -------------------------------

def _sort_workload(seed):
    rnd = random.Random(seed)
    vals = ["a", "b", "B", "1", "2", "10", "-1", "3.5", "inf", "x" * 10]
    setup = [["RPUSH", "L"] + [rnd.choice(vals) for _ in range(12)],
             ["SADD", "S"] + vals, ["ZADD", "Z"] + sum([[str(rnd.randint(0, 3)), v] for v in vals], [])]
    for v in vals:
        if rnd.random() < 0.8:
            setup.append(["SET", "w_" + v, rnd.choice(vals)])
        if rnd.random() < 0.8:
            setup.append(["HSET", "h_" + v, "f", str(rnd.randint(-5, 5))])
    ops = []
    for _ in range(300):
        src = rnd.choice(["L", "S", "Z"])
        by = rnd.choice([None, "w_*", "h_*->f", "nosort"])
        alpha = rnd.random() < 0.5
        if by == "nosort" and src == "S":
            by = None
        if alpha and by not in (None, "nosort"):
            alpha = src == "L"
        a = ["SORT", src]
        if by:
            a += ["BY", by]
        if rnd.random() < 0.5 and not (alpha and by not in (None, "nosort")):
            a += ["LIMIT", str(rnd.randint(-1, 12)), str(rnd.randint(-1, 12))]
        for _ in range(rnd.randint(0, 2)):
            a += ["GET", rnd.choice(["#", "w_*", "h_*->f"])]
        if rnd.random() < 0.5:
            a.append(rnd.choice(["ASC", "DESC"]))
        if alpha:
            a.append("ALPHA")
        if rnd.random() < 0.3:
            a += ["STORE", "D"]
        ops.append(a)
    return setup, ops


@pytest.mark.redis8
def test_same_replies_as_redis88(r, tmp_path_factory):
    peer = start_peer(REDIS88, tmp_path_factory)
    try:
        pc = peer.client(decode_responses=True)
        setup, ops = _sort_workload(3)
        for op in setup:
            r.execute_command(*op)
            pc.execute_command(*op)
        for op in ops:
            try:
                mine = r.execute_command(*op)
            except redis.ResponseError as e:
                mine = ("error", str(e))
            try:
                theirs = pc.execute_command(*op)
            except redis.ResponseError as e:
                theirs = ("error", str(e))
            assert mine == theirs, op
            assert r.lrange("D", 0, -1) == pc.lrange("D", 0, -1), op
    finally:
        peer.stop()


@pytest.mark.hotkv_only
def test_store_replayed_from_the_aof(tmp_path):
    def make(r):
        r.rpush("l", *range(20))
        r.mset({f"w_{i}": (i * 7) % 20 for i in range(20)})
        r.sadd("s", "b", "a", "c")
        assert r.sort("l", by="w_*", get=["#", "w_*"], store="d1") == 40
        assert r.sort("s", by="nosort", store="d2") == 3

    before, after = restarted_with_aof(
        tmp_path, make, lambda r: (r.lrange("d1", 0, -1), r.lrange("d2", 0, -1)))
    assert after == before and before[1] == ["a", "b", "c"]


def test_concurrent_sorts_and_writes_neither_deadlock_nor_tear(start_server):
    """SORT ... BY/GET across shards (retried with more locks), SORT inside EXEC (every
    shard locked) and writers of the same keys, from several connections at once. Every
    reply must be whole: the weights are rewritten together (one MSET), so each SORT sees
    one consistent set of them, in one order or the reverse."""
    import threading
    srv = start_server(args=[] if IS_REDIS else ["--threads", "4"])
    n = 40
    setup = srv.client()
    setup.rpush("src", *range(n))
    setup.mset({f"w_{i}": i for i in range(n)})
    up = [str(i) for i in range(n)]
    errors = []

    def writer():
        c = srv.client()
        for k in range(150):
            sign = 1 if k % 2 else -1
            c.mset({f"w_{i}": sign * i for i in range(n)})
        c.close()

    def sorter(use_exec):
        c = srv.client()
        for _ in range(150):
            if use_exec:
                with c.pipeline() as p:
                    p.sort("src", by="w_*")
                    p.sort("src", by="w_*", get="#", store="{src}out")
                    got, stored = p.execute()
            else:
                got = c.sort("src", by="w_*")
                stored = c.sort("src", by="w_*", get=["#", "w_*"], store="out2")
            if got not in (up, up[::-1]) or stored not in (n, 2 * n):
                errors.append((got, stored))
        c.close()

    threads = [threading.Thread(target=writer), threading.Thread(target=writer)]
    threads += [threading.Thread(target=sorter, args=(e,)) for e in (False, False, True, True)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(120)
        assert not t.is_alive(), "a client hung"
    assert errors == []
    assert setup.ping()
