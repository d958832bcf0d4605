"""Hash and set commands: keyspace events, HGETDEL, live encoding limits, WATCH, cursors
and count bounds (what test_hashes.py / test_sets.py do not cover)."""
import time

import pytest

from conftest import cmd, error_reply


def collect_events(server, actions, pattern="__keyevent@0__:*"):
    """Runs `actions(client)` with notify-keyspace-events KEA and returns the
    (event, key) pairs published meanwhile, in order."""
    admin = server.client()
    old = admin.config_get("notify-keyspace-events")["notify-keyspace-events"]
    admin.config_set("notify-keyspace-events", "KEA")
    sub = server.client().pubsub()
    try:
        sub.psubscribe(pattern)
        assert sub.get_message(timeout=2)["type"] == "psubscribe"
        actions(admin)
        events = []
        deadline = time.time() + 2
        while time.time() < deadline:
            m = sub.get_message(timeout=0.2)
            if m is None:
                break
            if m["type"] == "pmessage":
                events.append((m["channel"].split(":", 1)[1], m["data"]))
        return events
    finally:
        sub.close()
        admin.config_set("notify-keyspace-events", old)
        admin.close()


def test_hash_events(server, r):
    def actions(c):
        c.hset("h", mapping={"a": "1", "b": "2"})
        c.hsetnx("h", "a", "x")          # no change, no event
        c.hsetnx("h", "c", "3")
        c.hincrby("h", "n", 1)
        c.hincrbyfloat("h", "f", 1.5)
        c.hdel("h", "zz")                # nothing deleted, no event
        c.hdel("h", "a", "b", "c", "n", "f")
    assert collect_events(server, actions) == [
        ("hset", "h"), ("hset", "h"), ("hincrby", "h"), ("hincrbyfloat", "h"),
        ("hdel", "h"), ("del", "h")]


def test_set_events(server, r):
    def actions(c):
        c.sadd("s", "a", "b")
        c.sadd("s", "a")                 # nothing added, no event
        c.srem("s", "a")
        c.smove("s", "t", "b")           # src emptied
        c.sadd("s", "x", "y")
        c.spop("s")
        c.spop("s", 5)
        c.sadd("a", 1, 2)
        c.sinterstore("d", "a", "a")
        c.sunionstore("d", "a")
        c.sdiffstore("d", "a", "a")      # empty result deletes d
        c.sdiffstore("d", "a", "a")      # d is already gone: no event
    assert collect_events(server, actions) == [
        ("sadd", "s"), ("srem", "s"), ("srem", "s"), ("del", "s"), ("sadd", "t"),
        ("sadd", "s"), ("spop", "s"), ("spop", "s"), ("del", "s"), ("sadd", "a"),
        ("sinterstore", "d"), ("sunionstore", "d"), ("del", "d")]


@pytest.mark.redis8
def test_hgetdel(r):
    r.hset("h", mapping={"a": "1", "b": "2", "c": "3"})
    assert cmd(r, "HGETDEL", "h", "FIELDS", 2, "a", "zz") == ["1", None]
    assert r.hgetall("h") == {"b": "2", "c": "3"}
    assert cmd(r, "HGETDEL", "h", "FIELDS", 3, "b", "b", "c") == ["2", None, "3"]
    assert r.exists("h") == 0
    assert cmd(r, "HGETDEL", "nope", "FIELDS", 2, "a", "b") == [None, None]
    r.hset("h", "a", "1")
    assert error_reply(r, "HGETDEL", "h", "FIELD", 1, "a") == \
        "ERR Mandatory argument FIELDS is missing or not at the right position"
    assert error_reply(r, "HGETDEL", "h", "FIELDS", 0, "a") == \
        "ERR Number of fields must be a positive integer"
    assert error_reply(r, "HGETDEL", "h", "FIELDS", "x", "a") == \
        "ERR Number of fields must be a positive integer"
    assert error_reply(r, "HGETDEL", "h", "FIELDS", 2, "a") == \
        "ERR The `numfields` parameter must match the number of arguments"
    r.set("str", "v")
    assert error_reply(r, "HGETDEL", "str", "FIELD", 1, "a").startswith("WRONGTYPE")


@pytest.mark.redis8  # set-max-listpack-entries is 7.2+
def test_encoding_limits_follow_config_set(r, restore_config):
    restore_config("hash-max-listpack-entries", "set-max-intset-entries",
                   "set-max-listpack-entries")
    r.config_set("hash-max-listpack-entries", 4)
    r.config_set("set-max-intset-entries", 4)
    r.config_set("set-max-listpack-entries", 4)
    r.hset("h", mapping={f"f{i}": "v" for i in range(4)})
    assert r.object("encoding", "h") == "listpack"
    r.hset("h", "f4", "v")
    assert r.object("encoding", "h") == "hashtable"
    r.sadd("i", 1, 2, 3, 4)
    assert r.object("encoding", "i") == "intset"
    r.sadd("i", 5)
    assert r.object("encoding", "i") == "hashtable"
    r.sadd("l", "a", "b", "c", "d")
    assert r.object("encoding", "l") == "listpack"
    r.sadd("l", "e")
    assert r.object("encoding", "l") == "hashtable"


def test_watch_sees_hash_and_set_writes(server, r):
    for key, write in [("h", lambda c: c.hset("h", "f", "v")),
                       ("s", lambda c: c.sadd("s", "m")),
                       ("d", lambda c: c.sunionstore("d", "s"))]:
        with r.pipeline() as p:
            p.watch(key)
            other = server.client()
            write(other)
            other.close()
            p.multi()
            p.get("x")
            with pytest.raises(Exception):
                p.execute()


def test_multi_key_commands_across_shards_in_transaction(r):
    r.sadd("src{a}", "m1", "m2")
    r.sadd("other{b}", "m2", "m3")
    with r.pipeline() as p:
        p.smove("src{a}", "dst{c}", "m1")
        p.sinterstore("inter{d}", "src{a}", "other{b}")
        p.sunion("src{a}", "other{b}", "dst{c}")
        assert p.execute() == [True, 1, {"m1", "m2", "m3"}]


@pytest.mark.redis8  # string2ull cursors (7.0 took "-1"), NOVALUES
def test_scan_cursor_parsing(r):
    r.sadd("s", "a", "b")
    r.hset("h", "f", "v")
    for cursor in ["0", "007", "+0"]:
        assert cmd(r, "SSCAN", "s", cursor)[0] == "0"
        assert cmd(r, "HSCAN", "h", cursor)[0] == "0"
    for cursor in ["-1", "", "abc", "1.5", "18446744073709551616"]:
        assert error_reply(r, "SSCAN", "s", cursor) == "ERR invalid cursor"
        assert error_reply(r, "HSCAN", "h", cursor) == "ERR invalid cursor"
    assert error_reply(r, "HSCAN", "h", 0, "NOSCORES") == "ERR syntax error"  # Redis 8.8
    assert error_reply(r, "SSCAN", "s", 0, "NOVALUES") == \
        "ERR NOVALUES option can only be used in HSCAN"
    assert error_reply(r, "SSCAN", "s", 0, "COUNT", "x") == \
        "ERR value is not an integer or out of range"
    assert cmd(r, "SSCAN", "nope", 0, "BOGUS") == ["0", []]  # options unread: no key


def test_random_count_bounds(r):
    r.sadd("s", "a")
    r.hset("h", "f", "v")
    out_of_range = ("ERR value is out of range, value must between -9223372036854775807 "
                    "and 9223372036854775807")
    assert error_reply(r, "SRANDMEMBER", "s", "-9223372036854775808") == out_of_range
    assert error_reply(r, "HRANDFIELD", "h", "-9223372036854775808") == out_of_range
    assert error_reply(r, "HRANDFIELD", "h", "4611686018427387904", "WITHVALUES") == \
        "ERR value is out of range"
    assert error_reply(r, "HRANDFIELD", "h", "-4611686018427387904", "WITHVALUES") == \
        "ERR value is out of range"
    assert cmd(r, "HRANDFIELD", "h", "4611686018427387903", "WITHVALUES") == ["f", "v"]
    assert cmd(r, "SRANDMEMBER", "s", "9223372036854775807") == ["a"]
    assert cmd(r, "SRANDMEMBER", "s", -3) == ["a", "a", "a"]


def test_incrbyfloat_large_values(r):
    # Redis formats long doubles into up to 5 KB ("%.17Lf"), so big finite values work.
    assert len(cmd(r, "HINCRBYFLOAT", "h", "f", "1e300")) == 301
    assert len(cmd(r, "INCRBYFLOAT", "k", "1e300")) == 301
    r.hset("h", "g", "1" + "0" * 600)
    assert len(cmd(r, "HINCRBYFLOAT", "h", "g", "1")) == 601
    assert error_reply(r, "HINCRBYFLOAT", "h", "f", "1e5000") == "ERR value is not a valid float"
