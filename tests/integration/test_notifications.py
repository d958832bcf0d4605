"""Keyspace notifications (notify-keyspace-events): configuration, __keyspace@<db>__ and
__keyevent@<db>__ channels, class filtering, the event each command emits and their order,
expired events from active expiry, keymiss, new, and the database number after SELECT.

A KeyspaceWatcher subscribes to `__key*__:*` and reads up to a marker that the commanding
connection publishes after its commands, so "no other event" is checked without sleeping.
With flags "KE..." every notification must arrive as a keyspace message followed at once by
the matching keyevent message (see helpers_pubsub.pair_events)."""
import time

import pytest

from conftest import cmd, error_reply, resp_command, wait_until
from helpers_pubsub import (Connections, KeyspaceWatcher, conns, ps_server,  # noqa: F401
                            set_events)

CONFIG_ERROR_PREFIX = ("ERR CONFIG SET failed (possibly related to argument "
                       "'notify-keyspace-events') - Invalid event class character.")


@pytest.fixture
def nc(conns):
    """A single-connection client on the module's server, databases flushed."""
    c = conns.client()
    c.execute_command("FLUSHALL")
    return c


def run(client, commands):
    for command in commands:
        client.execute_command(*command)


def get_flags(client):
    return client.execute_command("CONFIG", "GET", "notify-keyspace-events")[1]


# --- configuration ---------------------------------------------------------------------------

def test_disabled_by_default(start_server):
    srv = start_server(hotkv_args=["--threads", "4"])
    conns = Connections(srv)
    try:
        c = conns.client()
        assert get_flags(c) == ""
        w = KeyspaceWatcher(conns)
        run(c, [("SET", "k", "v"), ("DEL", "k"), ("GET", "k"), ("LPUSH", "l", "a")])
        assert w.frames(c) == []
    finally:
        conns.close_all()


@pytest.mark.parametrize("given,shown", [
    ("KEA", "AKE"), ("AKE", "AKE"), ("A", "A"), ("KEA$", "AKE"),
    ("Ex$g", "g$xE"), ("EKzhsl", "lshzKE"), ("mEK", "KEm"), ("AKEm", "AKEm"),
    # every class of "A" spelled out is shown as A; Redis 8.8 added its array class "a"
    # to A, so without it the letters stay as they are
    pytest.param("g$lshzxetdaK", "AK", marks=pytest.mark.redis8),
    pytest.param("g$lshzxetdK", "g$lshzxetdK", marks=pytest.mark.redis8),
    ("Kx", "xK"), ("Ke", "eK"), ("Kt", "tK"), ("Kd", "dK"), ("nKE", "nKE"), ("$$K$", "$K"),
    ("K", "K"), ("$", "$"), ("", ""),
])
def test_config_set_get_round_trip(nc, given, shown):
    set_events(nc, given)
    assert get_flags(nc) == shown


def test_config_get_shows_n_only_outside_A(nc, conns):
    """'n' is not part of 'A'; Redis spells the classes out only when they are not all of
    'A', so with 'A' set an added 'n' is not shown, yet new events are still sent."""
    set_events(nc, "AKEn")
    assert get_flags(nc) == "AKE"
    w = KeyspaceWatcher(conns)
    nc.execute_command("SET", "k", "v")
    assert w.events(nc) == [(0, "k", "new"), (0, "k", "set")]


@pytest.mark.parametrize("value", ["KEy", "K E", "KE!", "ke"])
def test_config_set_rejects_unknown_classes(nc, value):
    set_events(nc, "KEg")
    # the message goes on to list the valid letters, a list that grows with Redis versions
    assert error_reply(nc, "CONFIG", "SET", "notify-keyspace-events", value).startswith(
        CONFIG_ERROR_PREFIX)
    assert get_flags(nc) == "gKE"


def test_setting_empty_disables_notifications(nc, conns):
    set_events(nc, "KEA")
    w = KeyspaceWatcher(conns)
    nc.execute_command("SET", "k", "v")
    assert w.events(nc) == [(0, "k", "set")]
    set_events(nc, "")
    run(nc, [("SET", "k", "v2"), ("DEL", "k"), ("LPUSH", "l", "x")])
    assert w.frames(nc) == []


# --- channels: keyspace, keyevent, both ----------------------------------------------------------

def test_keyspace_only(nc, conns):
    set_events(nc, "K$")
    w = KeyspaceWatcher(conns)
    nc.execute_command("SET", "mykey", "v")
    assert w.frames(nc) == [("__keyspace@0__:mykey", "set")]


def test_keyevent_only(nc, conns):
    set_events(nc, "E$")
    w = KeyspaceWatcher(conns)
    nc.execute_command("SET", "mykey", "v")
    assert w.frames(nc) == [("__keyevent@0__:set", "mykey")]


def test_keyspace_then_keyevent(nc, conns):
    set_events(nc, "KE$g")
    w = KeyspaceWatcher(conns)
    run(nc, [("SET", "a", "1"), ("DEL", "a")])
    assert w.frames(nc) == [("__keyspace@0__:a", "set"), ("__keyevent@0__:set", "a"),
                            ("__keyspace@0__:a", "del"), ("__keyevent@0__:del", "a")]


def test_subscribing_to_one_keys_channel(nc, conns):
    set_events(nc, "KA")
    sub = conns.sub()
    sub.subscribe("__keyspace@0__:watched")
    run(nc, [("SET", "other", "1"), ("SET", "watched", "1"), ("INCR", "watched"), ("DEL", "other"),
             ("DEL", "watched")])
    assert [sub.message() for _ in range(3)] == [
        [b"message", b"__keyspace@0__:watched", b"set"],
        [b"message", b"__keyspace@0__:watched", b"incrby"],
        [b"message", b"__keyspace@0__:watched", b"del"]]


def test_subscribing_to_one_event(nc, conns):
    set_events(nc, "EA")
    sub = conns.sub()
    sub.subscribe("__keyevent@0__:del")
    run(nc, [("SET", "a", "1"), ("SET", "b", "1"), ("DEL", "a", "b", "missing")])
    assert [sub.message() for _ in range(2)] == [[b"message", b"__keyevent@0__:del", b"a"],
                                                 [b"message", b"__keyevent@0__:del", b"b"]]


def test_special_characters_in_key_names(nc, conns):
    set_events(nc, "KE$")
    w = KeyspaceWatcher(conns)
    key = "a b\r\n:c__:\u00e9"
    nc.execute_command("SET", key, "v")
    assert w.frames(nc) == [("__keyspace@0__:" + key, "set"), ("__keyevent@0__:set", key)]


# --- class filtering ---------------------------------------------------------------------------

# Core scenario: strings, lists, generic commands, expiry, a read miss and new keys.
MAIN_COMMANDS = [
    ("SET", "str", "v"), ("APPEND", "str", "w"), ("EXPIRE", "str", "100"), ("DEL", "str"),
    ("LPUSH", "lst", "a", "b"), ("RPOP", "lst"), ("GET", "nosuch"),
    ("SET", "tmp", "v", "PX", "100"),
]
MAIN_EVENTS = {   # class -> the events MAIN_COMMANDS emit for it, in order
    "g": [("str", "expire"), ("str", "del"), ("tmp", "expire")],
    "$": [("str", "set"), ("str", "append"), ("tmp", "set")],
    "l": [("lst", "lpush"), ("lst", "rpop")],
    "m": [("nosuch", "keymiss")],
    "n": [("str", "new"), ("lst", "new"), ("tmp", "new")],
    "s": [], "h": [], "z": [], "x": [], "e": [], "t": [], "d": [],
}
ALL_IN_ORDER = [   # what "A" sends for MAIN_COMMANDS (g$lshzxetd, not m or n)
    ("str", "set"), ("str", "append"), ("str", "expire"), ("str", "del"), ("lst", "lpush"),
    ("lst", "rpop"), ("tmp", "set"), ("tmp", "expire")]


@pytest.mark.parametrize("cls", list("g$lshzxetdmnA"))
def test_class_filter(nc, conns, cls):
    set_events(nc, "K" + cls)
    w = KeyspaceWatcher(conns)
    run(nc, MAIN_COMMANDS)
    expected = ALL_IN_ORDER if cls == "A" else MAIN_EVENTS[cls]
    expired = (0, "tmp", "expired")
    got = w.keyspace(nc)
    # "tmp" may already have expired on a slow machine; that event is checked below
    assert [e for e in got if e != expired] == [(0, k, e) for k, e in expected]
    # let "tmp" expire through active expiry (DBSIZE reads no key): only x (and A) hear of it
    assert wait_until(lambda: nc.dbsize() == 1, timeout=10), nc.dbsize()
    if cls in "xA":
        if expired not in got:
            got += w.keyspace(nc, wait_for=("__keyspace@0__:tmp", "expired"))
        assert got.count(expired) == 1
        assert w.keyspace(nc) == []
    else:
        assert expired not in got
        assert w.keyspace(nc) == []


# The other data types, with a string and a list command among them.
TYPED_COMMANDS = [
    ("SADD", "st", "a", "b"), ("SET", "str", "v"), ("HSET", "hs", "f", "v", "g", "w"),
    ("RPUSH", "lst", "a"), ("ZADD", "zs", "1", "a", "2", "b"), ("SREM", "st", "a"),
    ("HDEL", "hs", "f"), ("ZREM", "zs", "a"),
]
TYPED_EVENTS = {
    "s": [("st", "sadd"), ("st", "srem")],
    "h": [("hs", "hset"), ("hs", "hdel")],
    "z": [("zs", "zadd"), ("zs", "zrem")],
    "$": [("str", "set")],
    "l": [("lst", "rpush")],
    "g": [], "x": [], "e": [], "t": [], "d": [], "m": [],
    "A": [("st", "sadd"), ("str", "set"), ("hs", "hset"), ("lst", "rpush"), ("zs", "zadd"),
          ("st", "srem"), ("hs", "hdel"), ("zs", "zrem")],
}


@pytest.mark.parametrize("cls", list("shz$lgxetdmA"))
def test_class_filter_sets_hashes_zsets(nc, conns, cls):
    set_events(nc, "K" + cls)
    w = KeyspaceWatcher(conns)
    run(nc, TYPED_COMMANDS)
    assert w.keyspace(nc) == [(0, k, e) for k, e in TYPED_EVENTS[cls]]


# --- event names per command -------------------------------------------------------------------

# (id, setup commands, command, expected [(key, event)] in order). Flags "KEA".
EVENT_CASES = [
    # strings
    ("set", [], ("SET", "k", "v"), [("k", "set")]),
    ("set-ex", [], ("SET", "k", "v", "EX", "100"), [("k", "set"), ("k", "expire")]),
    # Redis 8: a past EXAT/PXAT creates nothing, and deletes a key that was there.
    ("set-exat-past", [], ("SET", "k", "v", "EXAT", "1"), []),
    ("set-pxat-past-existing", [("RPUSH", "k", "a")], ("SET", "k", "v", "PXAT", "1"),
     [("k", "del")]),
    ("set-px-existing", [("SET", "k", "a")], ("SET", "k", "v", "PX", "100000"),
     [("k", "set"), ("k", "expire")]),
    ("setex", [], ("SETEX", "k", "100", "v"), [("k", "set"), ("k", "expire")]),
    ("psetex", [], ("PSETEX", "k", "100000", "v"), [("k", "set"), ("k", "expire")]),
    ("setnx", [], ("SETNX", "k", "v"), [("k", "set")]),
    ("getset", [("SET", "k", "a")], ("GETSET", "k", "b"), [("k", "set")]),
    ("mset", [], ("MSET", "a", "1", "b", "2"), [("a", "set"), ("b", "set")]),
    ("msetnx", [], ("MSETNX", "a", "1", "b", "2"), [("a", "set"), ("b", "set")]),
    ("setrange", [("SET", "k", "hello")], ("SETRANGE", "k", "1", "EY"), [("k", "setrange")]),
    ("append", [("SET", "k", "a")], ("APPEND", "k", "b"), [("k", "append")]),
    ("append-new", [], ("APPEND", "k", "b"), [("k", "append")]),
    ("incr", [], ("INCR", "n"), [("n", "incrby")]),
    ("decr", [("SET", "n", "5")], ("DECR", "n"), [("n", "incrby")]),
    ("incrby", [("SET", "n", "5")], ("INCRBY", "n", "10"), [("n", "incrby")]),
    ("decrby", [("SET", "n", "5")], ("DECRBY", "n", "10"), [("n", "incrby")]),
    ("incrbyfloat", [("SET", "n", "5")], ("INCRBYFLOAT", "n", "1.5"), [("n", "incrbyfloat")]),
    ("getex-ex", [("SET", "k", "v")], ("GETEX", "k", "EX", "100"), [("k", "expire")]),
    ("getex-persist", [("SET", "k", "v", "EX", "100")], ("GETEX", "k", "PERSIST"),
     [("k", "persist")]),
    ("getdel", [("SET", "k", "v")], ("GETDEL", "k"), [("k", "del")]),
    # generic
    ("del", [("SET", "a", "1"), ("SET", "b", "2")], ("DEL", "a", "missing", "b"),
     [("a", "del"), ("b", "del")]),
    ("unlink", [("SET", "a", "1")], ("UNLINK", "a"), [("a", "del")]),
    ("expire", [("SET", "k", "v")], ("EXPIRE", "k", "100"), [("k", "expire")]),
    ("pexpire", [("SET", "k", "v")], ("PEXPIRE", "k", "100000"), [("k", "expire")]),
    ("expireat", [("SET", "k", "v")], ("EXPIREAT", "k", "4000000000"), [("k", "expire")]),
    ("expire-negative", [("SET", "k", "v")], ("EXPIRE", "k", "-1"), [("k", "del")]),
    ("pexpireat-past", [("SET", "k", "v")], ("PEXPIREAT", "k", "1"), [("k", "del")]),
    ("persist", [("SET", "k", "v", "EX", "100")], ("PERSIST", "k"), [("k", "persist")]),
    ("rename", [("SET", "src", "v")], ("RENAME", "src", "dst"),
     [("src", "rename_from"), ("dst", "rename_to")]),
    ("rename-over", [("SET", "src", "v"), ("LPUSH", "dst", "x")], ("RENAME", "src", "dst"),
     [("src", "rename_from"), ("dst", "rename_to")]),
    ("renamenx", [("SET", "src", "v")], ("RENAMENX", "src", "dst"),
     [("src", "rename_from"), ("dst", "rename_to")]),
    ("copy", [("SET", "src", "v")], ("COPY", "src", "dst"), [("dst", "copy_to")]),
    ("copy-replace", [("SET", "src", "v"), ("SET", "dst", "w")], ("COPY", "src", "dst", "REPLACE"),
     [("dst", "copy_to")]),
    # lists
    ("lpush", [], ("LPUSH", "l", "a", "b", "c"), [("l", "lpush")]),
    ("rpush", [], ("RPUSH", "l", "a", "b"), [("l", "rpush")]),
    ("lpushx", [("RPUSH", "l", "a")], ("LPUSHX", "l", "b", "c"), [("l", "lpush")]),
    ("rpushx", [("RPUSH", "l", "a")], ("RPUSHX", "l", "b"), [("l", "rpush")]),
    ("lpop", [("RPUSH", "l", "a", "b")], ("LPOP", "l"), [("l", "lpop")]),
    ("rpop", [("RPUSH", "l", "a", "b")], ("RPOP", "l"), [("l", "rpop")]),
    ("lpop-last", [("RPUSH", "l", "a")], ("LPOP", "l"), [("l", "lpop"), ("l", "del")]),
    ("rpop-count-all", [("RPUSH", "l", "a", "b")], ("RPOP", "l", "5"),
     [("l", "rpop"), ("l", "del")]),
    ("lmpop", [("RPUSH", "l", "a", "b")], ("LMPOP", "1", "l", "RIGHT"), [("l", "rpop")]),
    ("linsert", [("RPUSH", "l", "a", "b")], ("LINSERT", "l", "BEFORE", "b", "x"),
     [("l", "linsert")]),
    ("lset", [("RPUSH", "l", "a", "b")], ("LSET", "l", "0", "x"), [("l", "lset")]),
    ("lrem", [("RPUSH", "l", "a", "b", "a")], ("LREM", "l", "0", "a"), [("l", "lrem")]),
    ("lrem-last", [("RPUSH", "l", "a", "a")], ("LREM", "l", "0", "a"), [("l", "lrem"), ("l", "del")]),
    ("ltrim", [("RPUSH", "l", "a", "b", "c")], ("LTRIM", "l", "0", "1"), [("l", "ltrim")]),
    ("ltrim-all", [("RPUSH", "l", "a", "b")], ("LTRIM", "l", "5", "10"),
     [("l", "ltrim"), ("l", "del")]),
    # hashes
    ("hset", [], ("HSET", "h", "a", "1", "b", "2"), [("h", "hset")]),
    ("hset-update", [("HSET", "h", "a", "1")], ("HSET", "h", "a", "2"), [("h", "hset")]),
    ("hsetnx", [("HSET", "h", "a", "1")], ("HSETNX", "h", "b", "2"), [("h", "hset")]),
    ("hmset", [], ("HMSET", "h", "a", "1", "b", "2"), [("h", "hset")]),
    ("hincrby", [], ("HINCRBY", "h", "n", "5"), [("h", "hincrby")]),
    ("hincrbyfloat", [("HSET", "h", "n", "1")], ("HINCRBYFLOAT", "h", "n", "0.5"),
     [("h", "hincrbyfloat")]),
    ("hdel", [("HSET", "h", "a", "1", "b", "2", "c", "3")], ("HDEL", "h", "a", "b", "zz"),
     [("h", "hdel")]),
    ("hdel-last", [("HSET", "h", "a", "1")], ("HDEL", "h", "a"), [("h", "hdel"), ("h", "del")]),
    # sets
    ("sadd", [], ("SADD", "s", "a", "b", "c"), [("s", "sadd")]),
    ("srem", [("SADD", "s", "a", "b")], ("SREM", "s", "a", "zz"), [("s", "srem")]),
    ("srem-last", [("SADD", "s", "a")], ("SREM", "s", "a"), [("s", "srem"), ("s", "del")]),
    ("spop", [("SADD", "s", "a", "b")], ("SPOP", "s"), [("s", "spop")]),
    ("spop-count", [("SADD", "s", "a", "b", "c")], ("SPOP", "s", "2"), [("s", "spop")]),
    ("spop-count-all", [("SADD", "s", "a", "b")], ("SPOP", "s", "10"),
     [("s", "spop"), ("s", "del")]),
    ("smove", [("SADD", "s", "a", "b"), ("SADD", "d", "c")], ("SMOVE", "s", "d", "a"),
     [("s", "srem"), ("d", "sadd")]),
    ("sinterstore", [("SADD", "s1", "a", "b"), ("SADD", "s2", "b", "c")],
     ("SINTERSTORE", "d", "s1", "s2"), [("d", "sinterstore")]),
    ("sunionstore", [("SADD", "s1", "a", "b"), ("SADD", "s2", "b", "c")],
     ("SUNIONSTORE", "d", "s1", "s2"), [("d", "sunionstore")]),
    ("sdiffstore", [("SADD", "s1", "a", "b"), ("SADD", "s2", "b", "c")],
     ("SDIFFSTORE", "d", "s1", "s2"), [("d", "sdiffstore")]),
    ("sinterstore-empty-over-existing", [("SADD", "s1", "a"), ("SADD", "s2", "b"),
                                         ("SET", "d", "x")],
     ("SINTERSTORE", "d", "s1", "s2"), [("d", "del")]),
    # sorted sets
    ("zadd", [], ("ZADD", "z", "1", "a", "2", "b"), [("z", "zadd")]),
    ("zadd-update", [("ZADD", "z", "1", "a")], ("ZADD", "z", "5", "a"), [("z", "zadd")]),
    ("zadd-incr", [("ZADD", "z", "1", "a")], ("ZADD", "z", "INCR", "5", "a"), [("z", "zincr")]),
    ("zincrby", [], ("ZINCRBY", "z", "2", "a"), [("z", "zincr")]),
    ("zrem", [("ZADD", "z", "1", "a", "2", "b")], ("ZREM", "z", "a", "zz"), [("z", "zrem")]),
    ("zrem-last", [("ZADD", "z", "1", "a")], ("ZREM", "z", "a"), [("z", "zrem"), ("z", "del")]),
    ("zremrangebyscore", [("ZADD", "z", "1", "a", "2", "b", "3", "c")],
     ("ZREMRANGEBYSCORE", "z", "1", "2"), [("z", "zremrangebyscore")]),
    ("zremrangebyscore-all", [("ZADD", "z", "1", "a")], ("ZREMRANGEBYSCORE", "z", "-inf", "+inf"),
     [("z", "zremrangebyscore"), ("z", "del")]),
    ("zremrangebyrank", [("ZADD", "z", "1", "a", "2", "b")], ("ZREMRANGEBYRANK", "z", "0", "0"),
     [("z", "zremrangebyrank")]),
    ("zremrangebylex", [("ZADD", "z", "0", "a", "0", "b", "0", "c")],
     ("ZREMRANGEBYLEX", "z", "[a", "[b"), [("z", "zremrangebylex")]),
    ("zpopmin", [("ZADD", "z", "1", "a", "2", "b")], ("ZPOPMIN", "z"), [("z", "zpopmin")]),
    ("zpopmax", [("ZADD", "z", "1", "a", "2", "b")], ("ZPOPMAX", "z"), [("z", "zpopmax")]),
    ("zpopmin-all", [("ZADD", "z", "1", "a", "2", "b")], ("ZPOPMIN", "z", "5"),
     [("z", "zpopmin"), ("z", "del")]),
    ("zunionstore", [("ZADD", "z1", "1", "a"), ("ZADD", "z2", "2", "b")],
     ("ZUNIONSTORE", "d", "2", "z1", "z2"), [("d", "zunionstore")]),
    ("zinterstore", [("ZADD", "z1", "1", "a"), ("ZADD", "z2", "2", "a")],
     ("ZINTERSTORE", "d", "2", "z1", "z2"), [("d", "zinterstore")]),
    ("zdiffstore", [("ZADD", "z1", "1", "a", "2", "b"), ("ZADD", "z2", "2", "a")],
     ("ZDIFFSTORE", "d", "2", "z1", "z2"), [("d", "zdiffstore")]),
    ("zinterstore-empty-over-existing", [("ZADD", "z1", "1", "a"), ("ZADD", "z2", "1", "b"),
                                         ("SET", "d", "x")],
     ("ZINTERSTORE", "d", "2", "z1", "z2"), [("d", "del")]),
]


@pytest.mark.parametrize("setup,command,expected", [c[1:] for c in EVENT_CASES],
                         ids=[c[0] for c in EVENT_CASES])
def test_command_events(nc, conns, setup, command, expected):
    run(nc, setup)
    set_events(nc, "KEA")
    w = KeyspaceWatcher(conns)
    nc.execute_command(*command)
    assert w.events(nc) == [(0, k, e) for k, e in expected]


# Commands that change nothing send nothing ("only if the target key is really modified").
NOOP_CASES = [
    ("set-nx-existing", [("SET", "k", "v")], ("SET", "k", "w", "NX")),
    ("set-xx-missing", [], ("SET", "k", "w", "XX")),
    ("setnx-existing", [("SET", "k", "v")], ("SETNX", "k", "w")),
    ("del-missing", [], ("DEL", "missing")),
    ("persist-without-ttl", [("SET", "k", "v")], ("PERSIST", "k")),
    ("expire-missing", [], ("EXPIRE", "missing", "100")),
    ("expire-nx-with-ttl", [("SET", "k", "v", "EX", "100")], ("EXPIRE", "k", "200", "NX")),
    ("lpushx-missing", [], ("LPUSHX", "l", "a")),
    ("lpop-missing", [], ("LPOP", "l")),
    ("lrem-no-match", [("RPUSH", "l", "a")], ("LREM", "l", "0", "zz")),
    ("hsetnx-existing", [("HSET", "h", "a", "1")], ("HSETNX", "h", "a", "2")),
    ("hdel-missing-field", [("HSET", "h", "a", "1")], ("HDEL", "h", "zz")),
    ("sadd-existing", [("SADD", "s", "a")], ("SADD", "s", "a")),
    ("srem-missing-member", [("SADD", "s", "a")], ("SREM", "s", "zz")),
    ("smove-missing-member", [("SADD", "s", "a")], ("SMOVE", "s", "d", "zz")),
    ("zadd-same-score", [("ZADD", "z", "1", "a")], ("ZADD", "z", "1", "a")),
    ("zadd-nx-existing", [("ZADD", "z", "1", "a")], ("ZADD", "z", "NX", "5", "a")),
    ("zrem-missing-member", [("ZADD", "z", "1", "a")], ("ZREM", "z", "zz")),
    ("zremrangebyscore-none", [("ZADD", "z", "1", "a")], ("ZREMRANGEBYSCORE", "z", "5", "6")),
    ("reads", [("SET", "k", "v"), ("RPUSH", "l", "a")], ("MGET", "k", "l")),
    ("lrange", [("RPUSH", "l", "a")], ("LRANGE", "l", "0", "-1")),
]


@pytest.mark.parametrize("setup,command", [c[1:] for c in NOOP_CASES],
                         ids=[c[0] for c in NOOP_CASES])
def test_no_event_when_nothing_changes(nc, conns, setup, command):
    run(nc, setup)
    set_events(nc, "KEA")
    w = KeyspaceWatcher(conns)
    nc.execute_command(*command)
    assert w.frames(nc) == []


# --- moves between keys and databases ----------------------------------------------------------

def assert_move_events(events, removed, added, deleted=False):
    """The source's and the destination's event (LMOVE: pop/push, SMOVE: srem/sadd) both
    arrive, plus the source's del when the move emptied it, after the source's event. The
    order of the pair is not checked: the docs promise the pop before the push, while Redis
    (7.0 and current sources) sends the push first."""
    expected = [removed, added] + ([(removed[0], removed[1], "del")] if deleted else [])
    assert sorted(events) == sorted(expected), events
    if deleted:
        assert events.index(expected[2]) > events.index(removed), events


@pytest.mark.parametrize("wherefrom,whereto", [("LEFT", "RIGHT"), ("RIGHT", "LEFT"),
                                               ("LEFT", "LEFT"), ("RIGHT", "RIGHT")])
def test_lmove_events(nc, conns, wherefrom, whereto):
    nc.execute_command("RPUSH", "src", "a", "b")
    set_events(nc, "KEA")
    w = KeyspaceWatcher(conns)
    pop, push = (0, "src", wherefrom[0].lower() + "pop"), (0, "dst", whereto[0].lower() + "push")
    nc.execute_command("LMOVE", "src", "dst", wherefrom, whereto)
    assert_move_events(w.events(nc), pop, push)
    # moving the last element also deletes the source
    nc.execute_command("LMOVE", "src", "dst", wherefrom, whereto)
    assert_move_events(w.events(nc), pop, push, deleted=True)


def test_rpoplpush_events(nc, conns):
    nc.execute_command("RPUSH", "src", "a")
    set_events(nc, "KEA")
    w = KeyspaceWatcher(conns)
    nc.execute_command("RPOPLPUSH", "src", "dst")
    assert_move_events(w.events(nc), (0, "src", "rpop"), (0, "dst", "lpush"), deleted=True)


def test_lmove_onto_itself(nc, conns):
    nc.execute_command("RPUSH", "l", "a", "b")
    set_events(nc, "KEA")
    w = KeyspaceWatcher(conns)
    nc.execute_command("LMOVE", "l", "l", "LEFT", "RIGHT")
    assert_move_events(w.events(nc), (0, "l", "lpop"), (0, "l", "rpush"))


def test_smove_emptying_the_source(nc, conns):
    nc.execute_command("SADD", "src", "a")
    set_events(nc, "KEA")
    w = KeyspaceWatcher(conns)
    nc.execute_command("SMOVE", "src", "dst", "a")
    assert_move_events(w.events(nc), (0, "src", "srem"), (0, "dst", "sadd"), deleted=True)


def test_move_between_databases(nc, conns):
    nc.execute_command("SET", "k", "v")
    set_events(nc, "KEA")
    w = KeyspaceWatcher(conns)
    assert nc.execute_command("MOVE", "k", "3") == 1
    assert w.frames(nc) == [("__keyspace@0__:k", "move_from"), ("__keyevent@0__:move_from", "k"),
                            ("__keyspace@3__:k", "move_to"), ("__keyevent@3__:move_to", "k")]


def test_database_number_after_select(nc, conns):
    set_events(nc, "KEA")
    w = KeyspaceWatcher(conns)
    nc.execute_command("SELECT", "5")
    run(nc, [("SET", "k", "v"), ("LPUSH", "l", "a"), ("DEL", "k")])
    assert w.frames(nc) == [("__keyspace@5__:k", "set"), ("__keyevent@5__:set", "k"),
                            ("__keyspace@5__:l", "lpush"), ("__keyevent@5__:lpush", "l"),
                            ("__keyspace@5__:k", "del"), ("__keyevent@5__:del", "k")]
    nc.execute_command("SELECT", "0")
    nc.execute_command("SET", "k", "v")
    assert w.events(nc) == [(0, "k", "set")]


def test_pattern_per_database(nc, conns):
    set_events(nc, "KA")
    sub = conns.sub()
    sub.psubscribe("__keyspace@2__:*")
    run(nc, [("SET", "k0", "v"), ("SELECT", "2"), ("SET", "k2", "v"), ("SELECT", "0"),
             ("DEL", "k0"), ("SELECT", "2"), ("DEL", "k2")])
    assert [sub.message() for _ in range(2)] == [
        [b"pmessage", b"__keyspace@2__:*", b"__keyspace@2__:k2", b"set"],
        [b"pmessage", b"__keyspace@2__:*", b"__keyspace@2__:k2", b"del"]]


# --- expired, keymiss, new -------------------------------------------------------------------

def test_expired_event_from_active_expiry(nc, conns):
    """A key nobody reads expires in the background and the expired event is sent; no read of
    the key is involved (the watcher only waits for the message)."""
    set_events(nc, "KEx")
    w = KeyspaceWatcher(conns)
    nc.execute_command("SET", "k", "v", "PX", "50")
    nc.execute_command("SET", "keep", "v")
    got = w.events(nc, wait_for=("__keyevent@0__:expired", "k"))
    assert got == [(0, "k", "expired")]
    assert nc.dbsize() == 1


def test_expired_events_for_many_keys(nc, conns):
    set_events(nc, "Ex")
    w = KeyspaceWatcher(conns)
    nc.execute_command("SELECT", "4")
    keys = [f"exp:{i}" for i in range(30)]
    for k in keys:
        nc.execute_command("SET", k, "v", "PX", "30")
    got = []
    for _ in keys:
        got += w.keyevent(nc, wait_for=lambda ch, payload: ch == "__keyevent@4__:expired")
        if len(got) == len(keys):
            break
    assert sorted(got) == sorted((4, k, "expired") for k in keys)
    assert nc.dbsize() == 0


def test_expired_event_on_lazy_expiry(nc, conns):
    set_events(nc, "KEx")
    w = KeyspaceWatcher(conns)
    nc.execute_command("SET", "k", "v", "PX", "20")
    time.sleep(0.05)            # let the TTL pass (not an assertion)
    assert nc.execute_command("GET", "k") is None
    # exactly one expired event, whichever of lazy or active expiry removed the key
    assert w.events(nc, wait_for=("__keyevent@0__:expired", "k")) == [(0, "k", "expired")]


def test_set_with_a_past_exat_deletes_the_key(nc, conns):
    # As Redis 8 (7.0 sent "set", "expire", then "expired"): no key is created, and one
    # that was there is deleted with a "del" event.
    set_events(nc, "KEA")
    w = KeyspaceWatcher(conns)
    assert nc.execute_command("SET", "k", "v", "EXAT", "1") in ("OK", b"OK", True)
    assert nc.execute_command("EXISTS", "k") == 0
    nc.execute_command("SET", "k", "old")
    assert cmd(nc, "SET", "k", "v", "EXAT", "1", "GET") in ("old", b"old")
    assert w.events(nc, wait_for=("__keyevent@0__:del", "k")) == [(0, "k", "set"), (0, "k", "del")]
    assert nc.execute_command("EXISTS", "k") == 0


def test_keymiss_on_read_miss(nc, conns):
    set_events(nc, "KEm")
    w = KeyspaceWatcher(conns)
    nc.execute_command("SET", "here", "v")
    nc.execute_command("RPUSH", "l", "a")
    run(nc, [("GET", "here"), ("GET", "missing"), ("LINDEX", "l", "10"), ("LLEN", "nolist"),
             ("STRLEN", "here"), ("LRANGE", "nolist2", "0", "-1")])
    assert w.events(nc) == [(0, "missing", "keymiss"), (0, "nolist", "keymiss"),
                            (0, "nolist2", "keymiss")]


def test_keymiss_needs_m_not_A(nc, conns):
    set_events(nc, "KEA")
    w = KeyspaceWatcher(conns)
    nc.execute_command("GET", "missing")
    assert w.frames(nc) == []


def test_new_event(nc, conns):
    set_events(nc, "KEn$l")
    w = KeyspaceWatcher(conns)
    run(nc, [("SET", "k", "v"), ("SET", "k", "w"), ("RPUSH", "l", "a"), ("RPUSH", "l", "b")])
    assert w.events(nc) == [(0, "k", "new"), (0, "k", "set"), (0, "k", "set"),
                            (0, "l", "new"), (0, "l", "rpush"), (0, "l", "rpush")]


def test_new_event_alone(nc, conns):
    set_events(nc, "En")
    w = KeyspaceWatcher(conns)
    run(nc, [("SET", "k", "v"), ("DEL", "k"), ("SET", "k", "v"), ("RPUSH", "l", "v")])
    assert w.keyevent(nc) == [(0, "k", "new"), (0, "k", "new"), (0, "l", "new")]


def test_events_from_a_transaction(nc, conns):
    set_events(nc, "KEA")
    w = KeyspaceWatcher(conns)
    c = conns.raw()
    c.send(b"".join(resp_command(*args) for args in [
        ("MULTI",), ("SET", "a", "1"), ("INCR", "a"), ("RPUSH", "l", "x"), ("DEL", "a"), ("EXEC",)]))
    assert [c.read_reply() for _ in range(6)] == ["OK"] + ["QUEUED"] * 4 + [["OK", 2, 1, 1]]
    assert w.events(c) == [(0, "a", "set"), (0, "a", "incrby"), (0, "l", "rpush"),
                            (0, "a", "del")]


def test_events_reach_every_watcher(nc, conns):
    set_events(nc, "KEA")
    watchers = [KeyspaceWatcher(conns) for _ in range(5)]
    run(nc, [("SET", "k", "v"), ("RPUSH", "l", "v")])
    for w in watchers:
        assert w.events(nc) == [(0, "k", "set"), (0, "l", "rpush")]


@pytest.mark.redis8
def test_overwritten_and_type_changed_events(nc, conns):
    """Redis 8.2 added the classes o (overwritten) and c (type_changed), not part of 'A'."""
    set_events(nc, "KEoc")
    assert get_flags(nc) == "ocKE"
    w = KeyspaceWatcher(conns)
    run(nc, [("SET", "k", "v"), ("SET", "k", "w"), ("RPUSH", "l", "a"), ("SET", "l", "x"),
             ("SET", "src", "v"), ("RENAME", "src", "k")])
    assert w.events(nc) == [(0, "k", "overwritten"),
                            (0, "l", "overwritten"), (0, "l", "type_changed"),
                            (0, "k", "overwritten")]
    set_events(nc, "KEA")
    nc.execute_command("SET", "k", "again")
    assert w.events(nc) == [(0, "k", "set")]
