"""Keyspace commands: DEL/EXISTS/TYPE, expiration commands, KEYS/SCAN, RENAME/COPY/MOVE,
OBJECT, databases (SELECT/SWAPDB/FLUSH*)."""
import time

import pytest

from conftest import cmd, error_reply

SYNTAX = "ERR syntax error"
NOT_INT = "ERR value is not an integer or out of range"
DB_RANGE = "ERR DB index is out of range"
SAME_OBJECT = "ERR source and destination objects are the same"
LLONG_MAX = 2**63 - 1


# --- DEL / UNLINK / EXISTS / TYPE / TOUCH ----------------------------------------------

@pytest.mark.parametrize("command", ["DEL", "UNLINK"])
def test_del_and_unlink(r, command):
    r.mset({"a": 1, "b": 2, "c": 3})
    r.lpush("l", "x")
    assert cmd(r, command, "a", "missing", "l") == 2
    assert r.exists("a", "l") == 0
    assert cmd(r, command, "b", "b", "b") == 1
    assert cmd(r, command, "missing") == 0
    assert r.keys("*") == ["c"]


@pytest.mark.parametrize("command", ["DEL", "UNLINK", "EXISTS", "TOUCH"])
def test_multikey_commands_arity(r, command):
    assert error_reply(r, command) == \
        f"ERR wrong number of arguments for '{command.lower()}' command"


def test_exists_counts_duplicates(r):
    r.set("a", 1)
    r.lpush("l", "x")
    assert cmd(r, "EXISTS", "a") == 1
    assert cmd(r, "EXISTS", "missing") == 0
    assert cmd(r, "EXISTS", "a", "a", "missing", "l", "a") == 4


def test_type(r):
    r.set("s", "v")
    r.set("n", 12)
    r.lpush("l", "x")
    assert cmd(r, "TYPE", "s") == "string"
    assert cmd(r, "TYPE", "n") == "string"
    assert cmd(r, "TYPE", "l") == "list"
    assert cmd(r, "TYPE", "missing") == "none"


def test_touch_counts_existing_keys(r):
    r.set("a", 1)
    r.lpush("l", "x")
    assert cmd(r, "TOUCH", "a", "l", "missing") == 2
    assert cmd(r, "TOUCH", "a", "a") == 2
    assert cmd(r, "TOUCH", "missing") == 0


# --- EXPIRE family ---------------------------------------------------------------------

def test_expire_and_ttl(r):
    r.set("k", "v")
    assert cmd(r, "TTL", "k") == -1
    assert cmd(r, "PTTL", "k") == -1
    assert cmd(r, "EXPIRE", "k", 100) == 1
    assert 99 <= cmd(r, "TTL", "k") <= 100
    assert 99000 <= cmd(r, "PTTL", "k") <= 100000
    assert cmd(r, "PEXPIRE", "k", 50000) == 1
    assert 49 <= cmd(r, "TTL", "k") <= 50
    assert 49000 <= cmd(r, "PTTL", "k") <= 50000


def test_ttl_rounds_to_the_nearest_second(r):
    r.set("a", "v", px=1700)
    r.set("b", "v", px=1200)
    assert cmd(r, "TTL", "a") == 2
    assert cmd(r, "TTL", "b") == 1
    assert 1000 < cmd(r, "PTTL", "a") <= 1700


def test_ttl_of_missing_key(r):
    assert cmd(r, "TTL", "missing") == -2
    assert cmd(r, "PTTL", "missing") == -2
    assert cmd(r, "EXPIRETIME", "missing") == -2
    assert cmd(r, "PEXPIRETIME", "missing") == -2


def test_expire_missing_key(r):
    for command in ("EXPIRE", "PEXPIRE", "EXPIREAT", "PEXPIREAT"):
        assert cmd(r, command, "missing", 100) == 0
    assert r.exists("missing") == 0


def test_expireat_and_expiretime(r):
    r.set("k", "v")
    assert cmd(r, "EXPIRETIME", "k") == -1
    assert cmd(r, "PEXPIRETIME", "k") == -1
    ts = int(time.time()) + 1000
    assert cmd(r, "EXPIREAT", "k", ts) == 1
    assert cmd(r, "EXPIRETIME", "k") == ts
    assert cmd(r, "PEXPIRETIME", "k") == ts * 1000
    assert cmd(r, "PEXPIREAT", "k", ts * 1000 + 123) == 1
    assert cmd(r, "PEXPIRETIME", "k") == ts * 1000 + 123
    assert cmd(r, "EXPIRETIME", "k") == ts
    assert 998 <= cmd(r, "TTL", "k") <= 1000
    # EXPIRETIME rounds to the nearest second, as Redis does.
    assert cmd(r, "PEXPIREAT", "k", ts * 1000 + 499) == 1
    assert cmd(r, "EXPIRETIME", "k") == ts
    assert cmd(r, "PEXPIREAT", "k", ts * 1000 + 500) == 1
    assert cmd(r, "EXPIRETIME", "k") == ts + 1
    assert cmd(r, "PEXPIREAT", "k", 2**63 - 1) == 1
    assert cmd(r, "EXPIRETIME", "k") == 9223372036854776


def test_expire_works_on_any_type(r):
    r.lpush("l", "x")
    assert cmd(r, "EXPIRE", "l", 100) == 1
    assert 99 <= cmd(r, "TTL", "l") <= 100


@pytest.mark.parametrize("args", [
    ["EXPIRE", "k", "0"], ["EXPIRE", "k", "-1"], ["PEXPIRE", "k", "0"],
    ["PEXPIRE", "k", "-1000"], ["EXPIREAT", "k", "1"], ["EXPIREAT", "k", "-1"],
    ["PEXPIREAT", "k", "1000"], ["EXPIRE", "k", "-9223372036854775"],
])
def test_expire_in_the_past_deletes(r, args):
    r.set("k", "v")
    assert cmd(r, *args) == 1
    assert r.exists("k") == 0
    assert r.dbsize() == 0


@pytest.mark.parametrize("command,value", [
    ("EXPIRE", str(LLONG_MAX)),
    ("EXPIRE", "9223372036854775"),          # overflows when converted to milliseconds
    ("EXPIRE", "-9223372036854775808"),
    ("PEXPIRE", str(LLONG_MAX)),             # overflows when the current time is added
    ("EXPIREAT", str(LLONG_MAX)),
    ("EXPIREAT", "-9223372036854775808"),
])
def test_expire_invalid_time(r, command, value):
    r.set("k", "v")
    assert error_reply(r, command, "k", value) == \
        f"ERR invalid expire time in '{command.lower()}' command"
    assert cmd(r, "TTL", "k") == -1


@pytest.mark.parametrize("command", ["EXPIRE", "PEXPIRE", "EXPIREAT", "PEXPIREAT"])
def test_expire_not_an_integer(r, command):
    r.set("k", "v")
    for value in ("abc", "1.5", "", "9223372036854775808"):
        assert error_reply(r, command, "k", value) == NOT_INT


def test_expire_nx_xx(r):
    r.set("k", "v")
    assert cmd(r, "EXPIRE", "k", 100, "XX") == 0
    assert cmd(r, "TTL", "k") == -1
    assert cmd(r, "EXPIRE", "k", 100, "NX") == 1
    assert cmd(r, "EXPIRE", "k", 200, "NX") == 0
    assert 99 <= cmd(r, "TTL", "k") <= 100
    assert cmd(r, "EXPIRE", "k", 200, "XX") == 1
    assert 199 <= cmd(r, "TTL", "k") <= 200


def test_expire_gt_lt(r):
    r.set("k", "v")
    # no TTL counts as an infinite TTL: GT never applies, LT always does
    assert cmd(r, "EXPIRE", "k", 100, "GT") == 0
    assert cmd(r, "TTL", "k") == -1
    assert cmd(r, "EXPIRE", "k", 100, "LT") == 1
    assert 99 <= cmd(r, "TTL", "k") <= 100
    assert cmd(r, "EXPIRE", "k", 50, "GT") == 0
    assert cmd(r, "EXPIRE", "k", 200, "GT") == 1
    assert 199 <= cmd(r, "TTL", "k") <= 200
    assert cmd(r, "EXPIRE", "k", 300, "LT") == 0
    assert cmd(r, "EXPIRE", "k", 150, "LT") == 1
    assert 149 <= cmd(r, "TTL", "k") <= 150


def test_expire_xx_gt_and_xx_lt_combinations(r):
    r.set("k", "v")
    assert cmd(r, "EXPIRE", "k", 100, "XX", "LT") == 0
    assert cmd(r, "TTL", "k") == -1
    r.expire("k", 100)
    assert cmd(r, "EXPIRE", "k", 200, "XX", "GT") == 1
    assert cmd(r, "EXPIRE", "k", 100, "XX", "GT") == 0
    assert 199 <= cmd(r, "TTL", "k") <= 200


def test_pexpire_and_expireat_options(r):
    r.set("k", "v")
    now_ms = int(time.time() * 1000)
    assert cmd(r, "PEXPIREAT", "k", now_ms + 100000, "NX") == 1
    assert cmd(r, "PEXPIREAT", "k", now_ms + 50000, "GT") == 0
    assert cmd(r, "PEXPIREAT", "k", now_ms + 50000, "LT") == 1
    assert cmd(r, "PEXPIRETIME", "k") == now_ms + 50000
    assert cmd(r, "PEXPIRE", "k", 200000, "GT") == 1
    assert cmd(r, "EXPIREAT", "k", int(time.time()) + 10, "XX") == 1
    assert cmd(r, "EXPIREAT", "k", int(time.time()) + 1000, "NX") == 0


@pytest.mark.parametrize("opts,message", [
    (["NX", "XX"], "ERR NX and XX, GT or LT options at the same time are not compatible"),
    (["NX", "GT"], "ERR NX and XX, GT or LT options at the same time are not compatible"),
    (["NX", "LT"], "ERR NX and XX, GT or LT options at the same time are not compatible"),
    (["GT", "LT"], "ERR GT and LT options at the same time are not compatible"),
    (["FOO"], "ERR Unsupported option FOO"),
])
@pytest.mark.parametrize("command", ["EXPIRE", "PEXPIRE", "EXPIREAT", "PEXPIREAT"])
def test_expire_incompatible_options(r, command, opts, message):
    r.set("k", "v")
    assert error_reply(r, command, "k", "100000000000000", *opts) == message
    assert cmd(r, "TTL", "k") == -1


def test_persist(r):
    r.set("k", "v", ex=100)
    assert cmd(r, "PERSIST", "k") == 1
    assert cmd(r, "TTL", "k") == -1
    assert cmd(r, "PERSIST", "k") == 0
    assert cmd(r, "PERSIST", "missing") == 0
    assert r.get("k") == "v"


# --- KEYS ------------------------------------------------------------------------------

GLOB_KEYS = ["hello", "hallo", "hxllo", "hllo", "heeeello", "hbllo", "h*llo", "h?llo",
             "h[a]llo", "h\\llo", "other"]


@pytest.mark.parametrize("pattern,expected", [
    ("*", GLOB_KEYS),
    ("h?llo", ["hello", "hallo", "hxllo", "hbllo", "h*llo", "h?llo", "h\\llo"]),
    ("h*llo", ["hello", "hallo", "hxllo", "hllo", "heeeello", "hbllo", "h*llo", "h?llo",
               "h[a]llo", "h\\llo"]),
    ("h[ae]llo", ["hello", "hallo"]),
    ("h[^e]llo", ["hallo", "hxllo", "hbllo", "h*llo", "h?llo", "h\\llo"]),
    ("h[a-b]llo", ["hallo", "hbllo"]),
    ("h[b-a]llo", ["hallo", "hbllo"]),   # reversed ranges are accepted
    ("h\\*llo", ["h*llo"]),
    ("h\\?llo", ["h?llo"]),
    ("h\\[a\\]llo", ["h[a]llo"]),
    ("h\\\\llo", ["h\\llo"]),
    ("other", ["other"]),
    ("*o", GLOB_KEYS[:-1]),
    ("H*", []),                          # case sensitive
    ("nomatch*", []),
])
def test_keys_glob_patterns(r, pattern, expected):
    r.mset({k: "1" for k in GLOB_KEYS})
    assert sorted(cmd(r, "KEYS", pattern)) == sorted(expected)


def test_keys_on_empty_db(r):
    assert cmd(r, "KEYS", "*") == []


def test_keys_only_sees_current_db(r, server):
    r.set("db0key", 1)
    c1 = server.client(db=1)
    c1.set("db1key", 1)
    assert cmd(r, "KEYS", "*") == ["db0key"]
    assert cmd(c1, "KEYS", "*") == ["db1key"]
    c1.close()


# --- SCAN ------------------------------------------------------------------------------

def full_scan(client, *opts):
    seen = []
    cursor = "0"
    calls = 0
    while True:
        reply = cmd(client, "SCAN", cursor, *opts)
        assert isinstance(reply, list) and len(reply) == 2
        cursor, keys = reply
        assert isinstance(cursor, str) and cursor.isdigit()
        seen.extend(keys)
        calls += 1
        assert calls < 100000, "SCAN never returned cursor 0"
        if cursor == "0":
            return seen


def test_scan_full_iteration(r):
    keys = {f"key:{i}" for i in range(1000)}
    r.mset({k: "v" for k in keys})
    seen = full_scan(r, "COUNT", 7)
    assert set(seen) == keys


def test_scan_empty_db(r):
    assert cmd(r, "SCAN", "0") == ["0", []]


def test_scan_match(r):
    r.mset({f"user:{i}": 1 for i in range(300)})
    r.mset({f"item:{i}": 1 for i in range(300)})
    seen = full_scan(r, "MATCH", "user:1?", "COUNT", 50)
    assert sorted(set(seen)) == sorted(f"user:1{i}" for i in range(10))


def test_scan_type(r):
    r.mset({f"s{i}": 1 for i in range(100)})
    for i in range(20):
        r.lpush(f"l{i}", "x")
    assert set(full_scan(r, "TYPE", "list", "COUNT", 30)) == {f"l{i}" for i in range(20)}
    assert set(full_scan(r, "TYPE", "string")) == {f"s{i}" for i in range(100)}
    assert set(full_scan(r, "TYPE", "list", "MATCH", "l1*")) == \
        {"l1"} | {f"l1{i}" for i in range(10)}


@pytest.mark.parametrize("count", [2**62, 2**63 - 1, 2**31])
def test_scan_with_a_huge_count_returns_everything(r, count):
    # COUNT times the per-call step budget once overflowed: SCAN returned nothing.
    r.mset({f"k{i}": 1 for i in range(50)})
    cursor, keys = cmd(r, "SCAN", 0, "COUNT", count)
    assert cursor == "0"
    assert sorted(keys) == sorted(f"k{i}" for i in range(50))


@pytest.mark.parametrize("args,message", [
    (["abc"], "ERR invalid cursor"),
    (["1.5"], "ERR invalid cursor"),
    (["18446744073709551616"], "ERR invalid cursor"),
    (["0", "COUNT", "0"], SYNTAX),
    (["0", "COUNT", "-1"], SYNTAX),
    (["0", "COUNT", "abc"], NOT_INT),
    (["0", "MATCH"], SYNTAX),
    (["0", "FOO", "bar"], SYNTAX),
])
def test_scan_errors(r, args, message):
    assert error_reply(r, "SCAN", *args) == message


# --- RENAME / RENAMENX -----------------------------------------------------------------

def test_rename(r):
    r.set("a", "1")
    assert cmd(r, "RENAME", "a", "b") == "OK"
    assert r.get("b") == "1"
    assert r.exists("a") == 0


def test_rename_overwrites_destination_of_any_type(r):
    r.set("a", "1")
    r.lpush("l", "x")
    r.expire("l", 100)
    assert cmd(r, "RENAME", "a", "l") == "OK"
    assert r.type("l") == "string"
    assert r.get("l") == "1"
    assert r.ttl("l") == -1


def test_rename_keeps_ttl(r):
    r.set("a", "1", ex=100)
    cmd(r, "RENAME", "a", "b")
    assert 99 <= r.ttl("b") <= 100


def test_rename_list(r):
    r.rpush("l", "a", "b")
    assert cmd(r, "RENAME", "l", "m") == "OK"
    assert r.lrange("m", 0, -1) == ["a", "b"]


def test_rename_same_name(r):
    r.set("a", "1", ex=100)
    assert cmd(r, "RENAME", "a", "a") == "OK"
    assert r.get("a") == "1"
    assert 99 <= r.ttl("a") <= 100


def test_rename_missing_key(r):
    assert error_reply(r, "RENAME", "missing", "x") == "ERR no such key"
    assert error_reply(r, "RENAME", "missing", "missing") == "ERR no such key"
    assert error_reply(r, "RENAMENX", "missing", "x") == "ERR no such key"
    assert r.exists("x") == 0


def test_renamenx(r):
    r.mset({"a": "1", "b": "2"})
    assert cmd(r, "RENAMENX", "a", "b") == 0
    assert r.mget("a", "b") == ["1", "2"]
    assert cmd(r, "RENAMENX", "a", "c") == 1
    assert r.mget("a", "c") == [None, "1"]
    assert cmd(r, "RENAMENX", "c", "c") == 0
    assert r.get("c") == "1"


# --- RANDOMKEY / DBSIZE / FLUSHDB / FLUSHALL -------------------------------------------

def test_randomkey(r):
    assert cmd(r, "RANDOMKEY") is None
    r.set("only", 1)
    assert cmd(r, "RANDOMKEY") == "only"
    keys = {f"k{i}" for i in range(20)}
    r.mset({k: 1 for k in keys})
    for _ in range(20):
        assert cmd(r, "RANDOMKEY") in keys | {"only"}


def test_dbsize(r):
    assert cmd(r, "DBSIZE") == 0
    r.mset({"a": 1, "b": 2})
    r.lpush("l", "x")
    assert cmd(r, "DBSIZE") == 3
    r.delete("a")
    assert cmd(r, "DBSIZE") == 2


@pytest.mark.parametrize("opts", [[], ["SYNC"], ["ASYNC"]])
def test_flushdb_only_current_db(r, server, opts):
    c1 = server.client(db=1)
    r.mset({"a": 1, "b": 2})
    c1.set("x", 1)
    assert cmd(r, "FLUSHDB", *opts) == "OK"
    assert r.dbsize() == 0
    assert c1.dbsize() == 1
    c1.close()


@pytest.mark.parametrize("opts", [[], ["SYNC"], ["ASYNC"]])
def test_flushall_all_dbs(r, server, opts):
    c1 = server.client(db=1)
    c15 = server.client(db=15)
    r.set("a", 1)
    c1.set("x", 1)
    c15.set("y", 1)
    assert cmd(r, "FLUSHALL", *opts) == "OK"
    assert r.dbsize() == 0
    assert c1.dbsize() == 0
    assert c15.dbsize() == 0
    c1.close()
    c15.close()


@pytest.mark.parametrize("command", ["FLUSHDB", "FLUSHALL"])
def test_flush_invalid_option(r, command):
    r.set("a", 1)
    assert error_reply(r, command, "FOO") == SYNTAX
    assert error_reply(r, command, "SYNC", "ASYNC") == SYNTAX
    assert r.exists("a") == 1


# --- COPY ------------------------------------------------------------------------------

def test_copy(r):
    r.set("a", "1", ex=100)
    assert cmd(r, "COPY", "a", "b") == 1
    assert r.mget("a", "b") == ["1", "1"]
    assert 99 <= r.ttl("b") <= 100
    r.set("a", "2")
    assert r.get("b") == "1"


def test_copy_existing_destination(r):
    r.mset({"a": "1", "b": "2"})
    assert cmd(r, "COPY", "a", "b") == 0
    assert r.get("b") == "2"
    assert cmd(r, "COPY", "a", "b", "REPLACE") == 1
    assert r.get("b") == "1"


def test_copy_missing_source(r):
    assert cmd(r, "COPY", "missing", "b") == 0
    assert r.exists("b") == 0


def test_copy_list_is_independent(r):
    r.rpush("l", "a", "b")
    assert cmd(r, "COPY", "l", "m") == 1
    r.rpush("m", "c")
    assert r.lrange("l", 0, -1) == ["a", "b"]
    assert r.lrange("m", 0, -1) == ["a", "b", "c"]


def test_copy_to_other_db(r, server):
    c1 = server.client(db=1)
    r.set("a", "1")
    c1.set("a", "other")
    assert cmd(r, "COPY", "a", "a", "DB", 1) == 0
    assert cmd(r, "COPY", "a", "a", "DB", 1, "REPLACE") == 1
    assert c1.get("a") == "1"
    assert cmd(r, "COPY", "a", "b", "DB", 1) == 1
    assert c1.get("b") == "1"
    assert r.exists("b") == 0
    c1.close()


def test_copy_errors(r):
    r.set("a", "1")
    assert error_reply(r, "COPY", "a", "a") == SAME_OBJECT
    assert error_reply(r, "COPY", "a", "a", "DB", "0") == SAME_OBJECT
    assert error_reply(r, "COPY", "a", "b", "DB", "16") == DB_RANGE
    assert error_reply(r, "COPY", "a", "b", "DB", "-1") == DB_RANGE
    assert error_reply(r, "COPY", "a", "b", "DB", "abc") == NOT_INT
    assert error_reply(r, "COPY", "a", "b", "FOO") == SYNTAX
    assert r.exists("b") == 0


# --- OBJECT ----------------------------------------------------------------------------

@pytest.mark.parametrize("value,encoding", [
    ("123", "int"), ("-123", "int"), ("0", "int"),
    ("9223372036854775807", "int"), ("-9223372036854775808", "int"),
    ("9223372036854775808", "embstr"),   # does not fit in a long
    ("0123", "embstr"), (" 1", "embstr"), ("+1", "embstr"), ("-0", "embstr"),
    ("1.5", "embstr"), ("abc", "embstr"), ("", "embstr"),
    ("x" * 100, "raw"),
])
def test_object_encoding_of_strings(r, value, encoding):
    r.set("k", value)
    assert cmd(r, "OBJECT", "ENCODING", "k") == encoding


def test_object_encoding_after_modifications(r):
    r.set("k", "abc")
    r.append("k", "d")
    assert cmd(r, "OBJECT", "ENCODING", "k") == "raw"
    r.set("n", "5")
    r.append("n", "1")
    assert cmd(r, "OBJECT", "ENCODING", "n") == "raw"
    assert r.incr("n") == 52
    assert cmd(r, "OBJECT", "ENCODING", "n") == "int"
    r.set("s", "abc")
    r.setrange("s", 0, "x")
    assert cmd(r, "OBJECT", "ENCODING", "s") == "raw"
    assert cmd(r, "OBJECT", "ENCODING", "missing") is None


def test_object_refcount_and_idletime(r):
    r.set("k", "some value")
    assert cmd(r, "OBJECT", "REFCOUNT", "k") == 1
    assert 0 <= cmd(r, "OBJECT", "IDLETIME", "k") <= 2   # seconds, just set
    assert cmd(r, "OBJECT", "REFCOUNT", "missing") is None
    assert cmd(r, "OBJECT", "IDLETIME", "missing") is None
    assert cmd(r, "OBJECT", "FREQ", "missing") is None


def test_object_freq_requires_lfu_policy(r, restore_config):
    r.set("k", "v")
    assert error_reply(r, "OBJECT", "FREQ", "k") == (
        "ERR An LFU maxmemory policy is not selected, access frequency not tracked. "
        "Please note that when switching between policies at runtime LRU and LFU data "
        "will take some time to adjust.")
    restore_config("maxmemory-policy")
    r.config_set("maxmemory-policy", "allkeys-lfu")
    r.set("k", "v")
    freq = cmd(r, "OBJECT", "FREQ", "k")
    assert isinstance(freq, int) and 0 <= freq <= 255
    assert error_reply(r, "OBJECT", "IDLETIME", "k") == (
        "ERR An LFU maxmemory policy is selected, idle time not tracked. "
        "Please note that when switching between policies at runtime LRU and LFU data "
        "will take some time to adjust.")


def test_object_help_and_errors(r):
    lines = cmd(r, "OBJECT", "HELP")
    assert isinstance(lines, list) and len(lines) > 4
    assert lines[0].startswith("OBJECT <subcommand>")
    text = "\n".join(lines)
    for sub in ("ENCODING", "FREQ", "IDLETIME", "REFCOUNT", "HELP"):
        assert sub in text
    assert error_reply(r, "OBJECT", "FOO", "k") == \
        "ERR unknown subcommand 'FOO'. Try OBJECT HELP."
    assert error_reply(r, "OBJECT", "ENCODING") == \
        "ERR wrong number of arguments for 'object|encoding' command"


# --- SELECT / SWAPDB / MOVE ------------------------------------------------------------

def test_select_isolates_databases(server, r):
    c = server.raw()
    assert c.command("SET", "k", "db0") == "OK"
    assert c.command("SELECT", "1") == "OK"
    assert c.command("GET", "k") is None
    assert c.command("SET", "k", "db1") == "OK"
    assert c.command("SELECT", "15") == "OK"
    assert c.command("DBSIZE") == 0
    assert c.command("SELECT", "0") == "OK"
    assert c.command("GET", "k") == b"db0"
    c.close()
    assert r.get("k") == "db0"


INT_RANGE = "ERR value is out of range, value must between -2147483648 and 2147483647"


@pytest.mark.parametrize("index,message", [("16", DB_RANGE), ("-1", DB_RANGE),
                                           ("abc", NOT_INT), ("1.5", NOT_INT),
                                           ("2147483647", DB_RANGE), ("2147483648", INT_RANGE),
                                           ("-2147483649", INT_RANGE)])
def test_select_invalid(server, index, message):
    c = server.raw()
    assert c.command("SELECT", index) == message
    assert c.command("SET", "selectcheck", "x") == "OK"
    c.close()
    c0 = server.client()
    assert c0.get("selectcheck") == "x"   # still in db 0
    c0.delete("selectcheck")
    c0.close()


def test_swapdb(r, server):
    c1 = server.client(db=1)
    r.set("a", "0")
    c1.set("b", "1")
    assert cmd(r, "SWAPDB", 0, 1) == "OK"
    assert r.keys("*") == ["b"]
    assert c1.keys("*") == ["a"]
    assert cmd(r, "SWAPDB", 1, 0) == "OK"
    assert r.get("a") == "0"
    assert cmd(r, "SWAPDB", 0, 0) == "OK"
    assert r.get("a") == "0"
    c1.close()


@pytest.mark.parametrize("args,message", [
    (["0", "16"], DB_RANGE), (["16", "0"], DB_RANGE), (["-1", "0"], DB_RANGE),
    (["abc", "0"], "ERR invalid first DB index"),
    (["0", "abc"], "ERR invalid second DB index"),
])
def test_swapdb_errors(r, args, message):
    assert error_reply(r, "SWAPDB", *args) == message


def test_move(r, server):
    c1 = server.client(db=1)
    r.set("a", "1", ex=100)
    assert cmd(r, "MOVE", "a", 1) == 1
    assert r.exists("a") == 0
    assert c1.get("a") == "1"
    assert 99 <= c1.ttl("a") <= 100
    r.set("a", "2")
    assert cmd(r, "MOVE", "a", 1) == 0       # destination exists
    assert r.get("a") == "2"
    assert c1.get("a") == "1"
    assert cmd(r, "MOVE", "missing", 1) == 0
    c1.close()


def test_move_errors(r):
    r.set("a", "1")
    assert error_reply(r, "MOVE", "a", "0") == SAME_OBJECT
    assert error_reply(r, "MOVE", "a", "16") == DB_RANGE
    assert error_reply(r, "MOVE", "a", "-1") == DB_RANGE
    assert error_reply(r, "MOVE", "a", "abc") == NOT_INT
    assert r.get("a") == "1"
