"""Sorted-set command details beyond test_zsets.py: key extraction for the numkeys
commands, ZSCAN options and score text, argument limits, keyspace notifications, and
blocking pops woken by the STORE commands and transactions. Checked against
redis-server 7.0 except where marked redis8."""
import threading
import time

import pytest

from conftest import cmd, error_reply

SYNTAX = "ERR syntax error"
LLONG_MAX = 2**63 - 1


# ---------------------------------------------------------------- key extraction

@pytest.mark.parametrize("args,keys", [
    (("ZUNIONSTORE", "d", 2, "a", "b", "WEIGHTS", 1, 2), ["d", "a", "b"]),
    (("ZINTER", 3, "a", "b", "c", "AGGREGATE", "MAX"), ["a", "b", "c"]),
    (("ZDIFFSTORE", "d", 1, "a"), ["d", "a"]),
    (("ZINTERCARD", 2, "a", "b", "LIMIT", 5), ["a", "b"]),
    (("ZMPOP", 2, "a", "b", "MIN"), ["a", "b"]),
    (("BZMPOP", 0, 2, "a", "b", "MIN"), ["a", "b"]),
    (("BZPOPMIN", "a", "b", 0), ["a", "b"]),
    (("ZRANGESTORE", "d", "s", 0, 1), ["d", "s"]),
])
def test_command_getkeys(r, args, keys):
    assert cmd(r, "COMMAND", "GETKEYS", *args) == keys


def test_huge_numkeys_is_a_syntax_error(r):
    r.zadd("z", {"a": 1})
    start = time.monotonic()
    assert error_reply(r, "ZMPOP", LLONG_MAX, "z", "MIN") == SYNTAX
    assert error_reply(r, "ZUNION", LLONG_MAX, "z") == SYNTAX
    assert error_reply(r, "BZMPOP", 0, LLONG_MAX - 1, "z", "MIN") == SYNTAX
    assert time.monotonic() - start < 2
    assert r.zcard("z") == 1


# ---------------------------------------------------------------- ZSCAN

def full_scan(r, key, *opts):
    cursor, items = "0", []
    for _ in range(10000):
        cursor, batch = cmd(r, "ZSCAN", key, cursor, *opts)
        items += batch
        if cursor == "0":
            return items
    raise AssertionError("ZSCAN did not terminate")


def test_zscan_has_no_noscores_option(r):
    # Valkey 8 has ZSCAN ... NOSCORES; Redis 8.8 does not (checked by hand): syntax error.
    r.zadd("small", {"a": 0.5, "b": 2})
    assert error_reply(r, "ZSCAN", "small", 0, "NOSCORES") == SYNTAX
    assert error_reply(r, "ZSCAN", "small", 0, "MATCH", "a*", "NOSCORES") == SYNTAX
    assert cmd(r, "ZSCAN", "nope", 0, "NOSCORES") == ["0", []]  # no key: options unread
    r.zadd("big", {f"m{i}": i for i in range(300)})
    got = full_scan(r, "big", "COUNT", 7)
    assert sorted(got[0::2]) == sorted(f"m{i}" for i in range(300))


def test_zscan_options_and_errors(r):
    r.zadd("z", {"a": 1, "b": 2})
    assert cmd(r, "ZSCAN", "nope", 0, "COUNT", 0) == ["0", []]  # no key: no option check
    assert error_reply(r, "ZSCAN", "z", 0, "COUNT", 0) == SYNTAX
    assert error_reply(r, "ZSCAN", "z", 0, "COUNT") == SYNTAX
    assert error_reply(r, "ZSCAN", "z", 0, "BOGUS") == SYNTAX
    assert error_reply(r, "ZSCAN", "z", "x") == "ERR invalid cursor"
    assert cmd(r, "ZSCAN", "z", 0, "MATCH", "b") == ["0", ["b", "2"]]


@pytest.mark.redis8
def test_zscan_redis8_errors(r):
    r.zadd("z", {"a": 1})
    assert error_reply(r, "ZSCAN", "z", 0, "NOVALUES") == (
        "ERR NOVALUES option can only be used in HSCAN")
    assert error_reply(r, "ZSCAN", "z", -1) == "ERR invalid cursor"  # 7.0 took it as 2**64-1


def test_zscan_score_text_per_encoding(r):
    # A skiplist-encoded zset replies "%.17Lg" of the score, as Redis does.
    r.zadd("big", {f"m{i}": i for i in range(200)})
    r.zadd("big", {"tenth": 0.1, "huge": 1e20, "inf": float("inf")})
    got = full_scan(r, "big", "MATCH", "[thi]*", "COUNT", 50)
    assert dict(zip(got[0::2], got[1::2])) == {
        "tenth": "0.10000000000000001", "huge": "1e+20", "inf": "inf"}


@pytest.mark.redis8
def test_zscan_listpack_score_text_is_shortest(r):
    r.zadd("z", {"tenth": 0.1, "huge": 1e20})
    assert cmd(r, "ZSCAN", "z", 0) == ["0", ["tenth", "0.1", "huge", "1e+20"]]


# ---------------------------------------------------------------- argument limits

def test_zrandmember_count_limits(r):
    r.zadd("z", {"a": 1})
    assert error_reply(r, "ZRANDMEMBER", "z", -LLONG_MAX - 1).startswith(
        "ERR value is out of range")
    assert error_reply(r, "ZRANDMEMBER", "z", -LLONG_MAX // 2 - 1, "WITHSCORES") == (
        "ERR value is out of range")
    assert cmd(r, "ZRANDMEMBER", "z", -3, "WITHSCORES") == ["a", "1"] * 3
    assert cmd(r, "ZRANDMEMBER", "z", LLONG_MAX) == ["a"]


@pytest.mark.redis8
def test_zrank_withscore_arity(r):
    r.zadd("z", {"a": 1})
    assert error_reply(r, "ZRANK", "z", "a", "WITHSCORE", "x") == (
        "ERR wrong number of arguments for 'zrank' command")
    assert error_reply(r, "ZREVRANK", "z", "a", "bogus") == SYNTAX


def test_option_order_errors(r):
    r.set("s", "v")
    # The range is parsed before the key's type is checked...
    assert error_reply(r, "ZCOUNT", "s", "x", 1) == "ERR min or max is not a float"
    assert error_reply(r, "ZRANGE", "s", 0, 1, "BOGUS") == SYNTAX
    # ...and ZUNION & co. check every input key before their options.
    r.zadd("z", {"a": 1})
    assert error_reply(r, "ZUNION", 2, "z", "s", "WEIGHTS", 1) == (
        "WRONGTYPE Operation against a key holding the wrong kind of value")
    # ZPOP's count is checked before the key's type.
    assert error_reply(r, "ZPOPMIN", "s", -1) == "ERR value is out of range, must be positive"
    assert error_reply(r, "ZMPOP", 1, "z", "MIN", "COUNT", 1, "COUNT", 1) == SYNTAX
    assert error_reply(r, "ZINCRBY", "z", "nx", "a") == SYNTAX  # shares ZADD's parser


def test_store_to_wrong_type_destination_with_empty_result_deletes_it(r):
    r.set("d", "v")
    assert cmd(r, "ZUNIONSTORE", "d", 1, "nope") == 0
    assert r.exists("d") == 0
    r.set("d", "v")
    r.expire("d", 100)
    r.zadd("z", {"a": 1})
    assert cmd(r, "ZRANGESTORE", "d", "z", 0, -1) == 1
    assert r.ttl("d") == -1  # the new value does not inherit the old TTL


# ---------------------------------------------------------------- notifications

NOTIFY_SCRIPT = [
    ("ZADD", "z", 1, "a", 2, "b"), ("ZADD", "z", 1, "a"), ("ZADD", "z", "XX", "CH", 5, "a"),
    ("ZADD", "z", "INCR", 1, "a"), ("ZINCRBY", "z", 2, "c"), ("ZADD", "z", "GT", "INCR", -1, "a"),
    ("ZREM", "z", "nope"), ("ZREM", "z", "a"), ("ZREMRANGEBYRANK", "z", 0, 0),
    ("ZREMRANGEBYSCORE", "z", "-inf", "+inf"), ("ZADD", "l", 0, "a"),
    ("ZREMRANGEBYLEX", "l", "-", "+"), ("ZADD", "p", 1, "x", 2, "y"), ("ZPOPMIN", "p"),
    ("ZPOPMAX", "p", 5), ("ZADD", "p", 1, "x"), ("ZMPOP", 2, "nope", "p", "MAX"),
    ("ZADD", "p", 1, "x"), ("BZPOPMIN", "p", 0), ("ZADD", "s", 1, "a"),
    ("ZUNIONSTORE", "d", 1, "s"), ("ZINTERSTORE", "d", 2, "s", "s"),
    ("ZDIFFSTORE", "d", 2, "s", "s"), ("ZDIFFSTORE", "d", 2, "s", "s"),
    ("ZRANGESTORE", "d", "s", 0, -1), ("ZRANGESTORE", "d", "s", 5, 6),
]

NOTIFY_EXPECTED = [
    ("zadd", "z"), ("zadd", "z"), ("zincr", "z"), ("zincr", "z"), ("zrem", "z"),
    ("zremrangebyrank", "z"), ("zremrangebyscore", "z"), ("del", "z"), ("zadd", "l"),
    ("zremrangebylex", "l"), ("del", "l"), ("zadd", "p"), ("zpopmin", "p"), ("zpopmax", "p"),
    ("del", "p"), ("zadd", "p"), ("zpopmax", "p"), ("del", "p"), ("zadd", "p"),
    ("zpopmin", "p"), ("del", "p"), ("zadd", "s"), ("zunionstore", "d"), ("zinterstore", "d"),
    ("del", "d"), ("zrangestore", "d"), ("del", "d"),
]


def test_keyspace_events(server, r):
    sub = server.client().pubsub()
    try:
        r.config_set("notify-keyspace-events", "Eg$z")
        sub.psubscribe("__keyevent@0__:*")
        sub.get_message(timeout=2)  # the psubscribe confirmation
        for command in NOTIFY_SCRIPT:
            cmd(r, *command)
        r.set("end", "1")
        events = []
        while True:
            msg = sub.get_message(timeout=2)
            assert msg is not None, events
            if msg["type"] != "pmessage":
                continue
            event = msg["channel"].split(":", 1)[1]
            if event == "set":
                break
            events.append((event, msg["data"]))
        assert events == NOTIFY_EXPECTED
    finally:
        r.config_set("notify-keyspace-events", "")
        sub.close()


# ---------------------------------------------------------------- blocking

def blocked(r):
    return int(r.info("clients")["blocked_clients"])


def wait_blocked(r, n):
    deadline = time.monotonic() + 5
    while blocked(r) != n:
        assert time.monotonic() < deadline, f"expected {n} blocked clients"
        time.sleep(0.005)


def test_bzmpop_woken_by_zrangestore(server, r):
    c = server.raw(timeout=10)
    try:
        c.send_command("BZMPOP", 0, 1, "dst", "MAX", "COUNT", 5)
        wait_blocked(r, 1)
        r.zadd("src", {"a": 1, "b": 2, "c": 3})
        assert cmd(r, "ZRANGESTORE", "dst", "src", 0, 1) == 2
        assert c.read_reply() == [b"dst", [[b"b", b"2"], [b"a", b"1"]]]
        assert r.exists("dst") == 0
    finally:
        c.close()


def test_transaction_that_empties_the_key_does_not_wake(server, r):
    c = server.raw(timeout=10)
    try:
        c.send_command("BZPOPMAX", "k", 0)
        wait_blocked(r, 1)
        pipe = r.pipeline(transaction=True)
        pipe.zadd("k", {"a": 1}).zpopmin("k")
        assert pipe.execute() == [1, [("a", 1.0)]]
        time.sleep(0.1)
        assert blocked(r) == 1
        r.zadd("k", {"b": 2, "c": 3})
        assert c.read_reply() == [b"k", b"c", b"3"]
        assert r.zrange("k", 0, -1) == ["b"]
    finally:
        c.close()


def test_waiters_on_two_keys_served_once(server, r):
    c = server.raw(timeout=10)
    try:
        c.send_command("BZPOPMIN", "k1", "k2", 0)
        wait_blocked(r, 1)
        pipe = r.pipeline(transaction=True)
        pipe.zadd("k2", {"x": 1}).zadd("k1", {"y": 2})
        pipe.execute()
        assert c.read_reply() in ([b"k1", b"y", b"2"], [b"k2", b"x", b"1"])
        wait_blocked(r, 0)
        assert r.zcard("k1") + r.zcard("k2") == 1
    finally:
        c.close()


def test_concurrent_pops_and_adds_lose_nothing(server, r):
    n, per = 4, 200
    popped, errors = [], []

    def adder(t):
        c = server.client()
        try:
            for i in range(per):
                c.zadd("q", {f"{t}:{i}": i})
        except Exception as exc:  # pragma: no cover - reported below
            errors.append(repr(exc))
        finally:
            c.close()

    def popper():
        c = server.client()
        try:
            while len(popped) < n * per:
                got = c.bzpopmin("q", timeout=0.2)
                if got is not None:
                    popped.append(got[1])
        except Exception as exc:  # pragma: no cover
            errors.append(repr(exc))
        finally:
            c.close()

    threads = [threading.Thread(target=adder, args=(t,)) for t in range(n)]
    threads += [threading.Thread(target=popper) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    assert not errors
    assert sorted(popped) == sorted(f"{t}:{i}" for t in range(n) for i in range(per))
    assert r.exists("q") == 0
