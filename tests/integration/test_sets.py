"""Set commands: replies, algebra and STORE variants, random members, scan, encodings."""
import pytest

from helpers_types import (NOT_INT, OUT_OF_RANGE_POSITIVE, SYNTAX, WRONGTYPE, arity,
                           rc_fixture, resp3_connection)


@pytest.fixture
def rc(server, r):
    yield from rc_fixture(server)


def members(rc, key):
    return sorted(rc("SMEMBERS", key))


# ---------------------------------------------------------------- add / rem / query

def test_sadd_returns_new_members(rc):
    assert rc("SADD", "s", "a", "b", "c") == 3
    assert rc("SADD", "s", "a", "d", "d") == 1
    assert members(rc, "s") == ["a", "b", "c", "d"]
    assert rc("SCARD", "s") == 4
    assert rc("TYPE", "s") == "set"
    assert rc.err("SADD", "s") == arity("sadd")


def test_srem(rc):
    rc("SADD", "s", "a", "b", "c")
    assert rc("SREM", "s", "a", "zz", "a") == 1
    assert rc("SREM", "s", "b", "c") == 2
    assert rc("EXISTS", "s") == 0  # an emptied set disappears
    assert rc("SREM", "s", "a") == 0
    assert rc.err("SREM", "s") == arity("srem")


def test_sismember_smismember_scard(rc):
    rc("SADD", "s", "a", "1", "")
    assert rc("SISMEMBER", "s", "a") == 1
    assert rc("SISMEMBER", "s", "") == 1
    assert rc("SISMEMBER", "s", "b") == 0
    assert rc("SISMEMBER", "nope", "a") == 0
    assert rc("SMISMEMBER", "s", "a", "b", "1", "a") == [1, 0, 1, 1]
    assert rc("SMISMEMBER", "nope", "a", "b") == [0, 0]
    assert rc.err("SMISMEMBER", "s") == arity("smismember")
    assert rc("SCARD", "s") == 3
    assert rc("SCARD", "nope") == 0
    assert rc("SMEMBERS", "nope") == []


def test_integer_like_members_are_distinct_strings(rc):
    assert rc("SADD", "s", "1", "01", "+1", "1.0", " 1", "-0", "0") == 7
    assert members(rc, "s") == sorted(["1", "01", "+1", "1.0", " 1", "-0", "0"])
    assert rc("SISMEMBER", "s", "01") == 1
    assert rc("SREM", "s", "1") == 1
    assert rc("SISMEMBER", "s", "01") == 1


def test_binary_members(rb):
    assert rb.sadd("s", b"\x00\xff", b"a\r\nb", b"") == 3
    assert rb.smembers("s") == {b"\x00\xff", b"a\r\nb", b""}
    assert rb.sismember("s", b"\x00\xff")


# ---------------------------------------------------------------- spop / srandmember

def test_spop_single(rc):
    rc("SADD", "s", "a", "b", "c")
    popped = {rc("SPOP", "s") for _ in range(3)}
    assert popped == {"a", "b", "c"}
    assert rc("EXISTS", "s") == 0
    assert rc("SPOP", "s") is None


def test_spop_count(rc):
    rc("SADD", "s", *[f"m{i}" for i in range(20)])
    got = rc("SPOP", "s", 5)
    assert len(got) == 5 and len(set(got)) == 5
    assert rc("SCARD", "s") == 15
    assert not set(got) & set(rc("SMEMBERS", "s"))
    rest = rc("SPOP", "s", 100)
    assert sorted(got + rest) == sorted(f"m{i}" for i in range(20))
    assert rc("EXISTS", "s") == 0


def test_spop_count_intset_and_large(rc):
    rc("SADD", "i", *range(1000))
    got = rc("SPOP", "i", 990)  # most of the set
    assert len(set(got)) == 990
    left = rc("SMEMBERS", "i")
    assert len(left) == 10
    assert sorted(map(int, got + left)) == list(range(1000))


def test_spop_count_zero_missing_and_errors(rc):
    rc("SADD", "s", "a")
    assert rc("SPOP", "s", 0) == []
    assert rc("SCARD", "s") == 1
    assert rc("SPOP", "nope", 3) == []
    assert rc.err("SPOP", "s", -1) == OUT_OF_RANGE_POSITIVE
    assert rc.err("SPOP", "s", "x") == OUT_OF_RANGE_POSITIVE
    assert rc.err("SPOP", "s", 1, 2) == SYNTAX
    assert rc("SCARD", "s") == 1


def test_srandmember(rc):
    rc("SADD", "s", "a", "b", "c", "d", "e")
    all5 = {"a", "b", "c", "d", "e"}
    for _ in range(5):
        assert rc("SRANDMEMBER", "s") in all5
    assert rc("SRANDMEMBER", "nope") is None
    for count in (1, 3, 5):
        got = rc("SRANDMEMBER", "s", count)
        assert len(got) == count and len(set(got)) == count and set(got) <= all5
    assert sorted(rc("SRANDMEMBER", "s", 50)) == sorted(all5)
    got = rc("SRANDMEMBER", "s", -30)
    assert len(got) == 30 and set(got) <= all5
    assert rc("SRANDMEMBER", "s", 0) == []
    assert rc("SRANDMEMBER", "nope", 5) == []
    assert rc("SRANDMEMBER", "nope", -5) == []
    assert rc("SCARD", "s") == 5  # nothing removed
    assert rc.err("SRANDMEMBER", "s", "x") == NOT_INT
    assert rc.err("SRANDMEMBER", "s", 1, 2) == SYNTAX


def test_srandmember_large_sets(rc):
    rc("SADD", "big", *[f"m{i}" for i in range(1000)])
    for count in (10, 500, 999):
        got = rc("SRANDMEMBER", "big", count)
        assert len(set(got)) == count
    rc("SADD", "ints", *range(300))
    got = rc("SRANDMEMBER", "ints", -400)
    assert len(got) == 400 and all(0 <= int(x) < 300 for x in got)


# ---------------------------------------------------------------- smove

def test_smove(rc):
    rc("SADD", "src", "a", "b")
    rc("SADD", "dst", "b", "x")
    assert rc("SMOVE", "src", "dst", "a") == 1
    assert members(rc, "src") == ["b"] and members(rc, "dst") == ["a", "b", "x"]
    assert rc("SMOVE", "src", "dst", "b") == 1  # already in dst: still moved out of src
    assert rc("EXISTS", "src") == 0
    assert members(rc, "dst") == ["a", "b", "x"]
    assert rc("SMOVE", "dst", "new", "x") == 1
    assert members(rc, "new") == ["x"]
    assert rc("SMOVE", "dst", "new", "zz") == 0
    assert rc("SMOVE", "nope", "new", "x") == 0


def test_smove_same_key_and_wrongtype(rc):
    rc("SADD", "s", "a")
    assert rc("SMOVE", "s", "s", "a") == 1
    assert rc("SMOVE", "s", "s", "zz") == 0
    assert members(rc, "s") == ["a"]
    rc("SET", "str", "v")
    assert rc.err("SMOVE", "s", "str", "a") == WRONGTYPE
    assert rc.err("SMOVE", "str", "s", "a") == WRONGTYPE
    assert members(rc, "s") == ["a"]


# ---------------------------------------------------------------- algebra

@pytest.fixture
def abc(rc):
    rc("SADD", "a", "1", "2", "3", "x")
    rc("SADD", "b", "2", "3", "4", "x", "y")
    rc("SADD", "c", "3", "x", "z")
    return rc


def test_sinter(abc):
    rc = abc
    assert sorted(rc("SINTER", "a", "b", "c")) == ["3", "x"]
    assert sorted(rc("SINTER", "a", "b")) == ["2", "3", "x"]
    assert sorted(rc("SINTER", "a")) == ["1", "2", "3", "x"]
    assert rc("SINTER", "a", "nope") == []
    assert rc("SINTER", "nope", "a") == []


def test_sunion(abc):
    rc = abc
    assert sorted(rc("SUNION", "a", "b", "c")) == ["1", "2", "3", "4", "x", "y", "z"]
    assert sorted(rc("SUNION", "a", "nope")) == ["1", "2", "3", "x"]
    assert rc("SUNION", "nope", "nope2") == []


def test_sdiff(abc):
    rc = abc
    assert sorted(rc("SDIFF", "a", "b")) == ["1"]
    assert sorted(rc("SDIFF", "b", "a", "c")) == ["4", "y"]
    assert sorted(rc("SDIFF", "a", "nope")) == ["1", "2", "3", "x"]
    assert rc("SDIFF", "nope", "a") == []
    assert rc("SDIFF", "a", "a") == []


def test_algebra_wrongtype_anywhere(abc):
    rc = abc
    rc("SET", "str", "v")
    for cmd in ("SINTER", "SUNION", "SDIFF"):
        assert rc.err(cmd, "a", "str") == WRONGTYPE
        assert rc.err(cmd, "str", "a") == WRONGTYPE
        assert rc.err(cmd, "nope", "str") == WRONGTYPE
    for cmd in ("SINTERSTORE", "SUNIONSTORE", "SDIFFSTORE"):
        assert rc.err(cmd, "dst", "a", "str") == WRONGTYPE
        assert rc("EXISTS", "dst") == 0


def test_sintercard(abc):
    rc = abc
    assert rc("SINTERCARD", 3, "a", "b", "c") == 2
    assert rc("SINTERCARD", 2, "a", "b") == 3
    assert rc("SINTERCARD", 2, "a", "b", "LIMIT", 2) == 2
    assert rc("SINTERCARD", 2, "a", "b", "LIMIT", 0) == 3  # 0 = no limit
    assert rc("SINTERCARD", 2, "a", "b", "limit", 10) == 3
    assert rc("SINTERCARD", 2, "a", "nope") == 0
    assert rc("SINTERCARD", 1, "a") == 4


def test_sintercard_errors(abc):
    rc = abc
    assert rc.err("SINTERCARD", 0, "a") == "ERR numkeys should be greater than 0"
    assert rc.err("SINTERCARD", -1, "a") == "ERR numkeys should be greater than 0"
    assert rc.err("SINTERCARD", "x", "a") == "ERR numkeys should be greater than 0"
    assert rc.err("SINTERCARD", 3, "a", "b") == (
        "ERR Number of keys can't be greater than number of args")
    assert rc.err("SINTERCARD", 2, "a", "b", "LIMIT", -1) == "ERR LIMIT can't be negative"
    assert rc.err("SINTERCARD", 2, "a", "b", "LIMIT") == SYNTAX
    assert rc.err("SINTERCARD", 1, "a", "b") == SYNTAX
    assert rc.err("SINTERCARD", 1) == arity("sintercard")
    rc("SET", "str", "v")
    assert rc.err("SINTERCARD", 2, "a", "str") == WRONGTYPE


def test_store_variants(abc):
    rc = abc
    assert rc("SINTERSTORE", "d1", "a", "b") == 3
    assert members(rc, "d1") == ["2", "3", "x"]
    assert rc("SUNIONSTORE", "d2", "a", "c") == 5
    assert members(rc, "d2") == ["1", "2", "3", "x", "z"]
    assert rc("SDIFFSTORE", "d3", "b", "a") == 2
    assert members(rc, "d3") == ["4", "y"]


def test_store_overwrites_destination_of_any_type(abc):
    rc = abc
    rc("SET", "dst", "string")
    assert rc("SUNIONSTORE", "dst", "a") == 4
    assert rc("TYPE", "dst") == "set"
    rc("RPUSH", "dst2", "l")
    assert rc("SINTERSTORE", "dst2", "a", "b") == 3
    assert rc("TYPE", "dst2") == "set"
    rc("SADD", "dst3", "old1", "old2")
    assert rc("SDIFFSTORE", "dst3", "a", "b") == 1
    assert members(rc, "dst3") == ["1"]


def test_store_with_ttl_destination_drops_ttl(abc):
    rc = abc
    rc("SADD", "dst", "old")
    rc("EXPIRE", "dst", 100)
    assert rc("SUNIONSTORE", "dst", "c") == 3
    assert rc("TTL", "dst") == -1


@pytest.mark.parametrize("cmd,args", [
    ("SINTERSTORE", ("a", "nope")),
    ("SINTERSTORE", ("a", "c", "nope")),
    ("SDIFFSTORE", ("a", "a")),
    ("SDIFFSTORE", ("nope", "a")),
    ("SUNIONSTORE", ("nope", "nope2")),
])
def test_store_empty_result_deletes_destination(abc, cmd, args):
    rc = abc
    rc("SADD", "dst", "old")
    assert rc(cmd, "dst", *args) == 0
    assert rc("EXISTS", "dst") == 0


def test_store_destination_is_also_a_source(abc):
    rc = abc
    assert rc("SINTERSTORE", "a", "a", "b") == 3
    assert members(rc, "a") == ["2", "3", "x"]
    assert rc("SUNIONSTORE", "c", "c", "b") == 6
    assert members(rc, "c") == ["2", "3", "4", "x", "y", "z"]
    assert rc("SDIFFSTORE", "b", "b", "a") == 2
    assert members(rc, "b") == ["4", "y"]


def test_redis_py_set_algebra(r):
    r.sadd("a", 1, 2, 3)
    r.sadd("b", 2, 3, 4)
    assert r.sinter("a", "b") == {"2", "3"}
    assert r.sunion("a", "b") == {"1", "2", "3", "4"}
    assert r.sdiff("a", "b") == {"1"}
    assert r.sintercard(2, ["a", "b"], limit=1) == 1
    assert r.smismember("a", [1, 4]) == [1, 0]


# ---------------------------------------------------------------- sscan

def full_sscan(rc, key, *opts):
    cursor, seen = "0", []
    for _ in range(10000):
        cursor, batch = rc("SSCAN", key, cursor, *opts)
        seen += batch
        if cursor == "0":
            return seen
    raise AssertionError("SSCAN did not terminate")


@pytest.mark.parametrize("members_", [
    [str(i) for i in range(50)],            # intset
    [f"m{i}" for i in range(50)],           # small strings
    [f"member:{i}" for i in range(2000)],   # hashtable
    [str(i) for i in range(2000)],          # big integer set
], ids=["intset", "small", "hashtable", "bigint"])
def test_sscan_returns_every_member(rc, members_):
    rc("SADD", "s", *members_)
    got = full_sscan(rc, "s", "COUNT", 20)
    assert set(got) == set(members_)  # every member, possibly repeated


def test_sscan_match_and_small_set_single_call(rc):
    rc("SADD", "s", *[f"{'k' if i % 2 else 'j'}{i}" for i in range(1000)])
    got = full_sscan(rc, "s", "MATCH", "j*", "COUNT", 100)
    assert set(got) == {f"j{i}" for i in range(0, 1000, 2)}
    rc("SADD", "small", "1", "2", "3")
    cursor, batch = rc("SSCAN", "small", 0)
    assert cursor == "0" and sorted(batch) == ["1", "2", "3"]
    assert rc("SSCAN", "nope", 0) == ["0", []]
    assert rc.err("SSCAN", "s", "x") == "ERR invalid cursor"
    assert rc.err("SSCAN", "s", 0, "COUNT", 0) == SYNTAX


# ---------------------------------------------------------------- encodings

def test_intset_encoding_thresholds(rc):
    rc("SADD", "s", 1, 2, -3, "9223372036854775807", "-9223372036854775808")
    assert rc("OBJECT", "ENCODING", "s") == "intset"
    rc("SADD", "i", *range(512))
    assert rc("OBJECT", "ENCODING", "i") == "intset"
    rc("SADD", "i", 512)
    assert rc("OBJECT", "ENCODING", "i") == "hashtable"
    assert rc("SCARD", "i") == 513
    assert rc("SISMEMBER", "i", 0) == 1


def test_non_canonical_integers_are_not_intset(rc):
    rc("SADD", "s", "01")
    assert rc("OBJECT", "ENCODING", "s") != "intset"
    rc("SADD", "t", "9223372036854775808")
    assert rc("OBJECT", "ENCODING", "t") != "intset"


def test_big_intset_plus_string_becomes_hashtable(rc):
    rc("SADD", "s", *range(200))
    assert rc("OBJECT", "ENCODING", "s") == "intset"
    rc("SADD", "s", "abc")  # 201 members: too many for a listpack as well
    assert rc("OBJECT", "ENCODING", "s") == "hashtable"
    assert rc("SCARD", "s") == 201


def test_string_sets_past_listpack_limits_are_hashtable(rc):
    rc("SADD", "s", *[f"m{i}" for i in range(129)])
    assert rc("OBJECT", "ENCODING", "s") == "hashtable"
    rc("SADD", "t", "a", "x" * 65)
    assert rc("OBJECT", "ENCODING", "t") == "hashtable"


@pytest.mark.redis8
def test_small_string_set_is_listpack(rc):
    # Redis >= 7.2 (7.0 reports hashtable)
    rc("SADD", "s", *[f"m{i}" for i in range(128)])
    assert rc("OBJECT", "ENCODING", "s") == "listpack"
    rc("SADD", "s", "m128")
    assert rc("OBJECT", "ENCODING", "s") == "hashtable"
    rc("SADD", "t", "a", "x" * 64)
    assert rc("OBJECT", "ENCODING", "t") == "listpack"
    rc("SADD", "t", "y" * 65)
    assert rc("OBJECT", "ENCODING", "t") == "hashtable"
    rc("SADD", "i", 1, 2, 3)
    assert rc("OBJECT", "ENCODING", "i") == "intset"
    rc("SADD", "i", "abc")
    assert rc("OBJECT", "ENCODING", "i") == "listpack"
    assert sorted(rc("SMEMBERS", "i")) == ["1", "2", "3", "abc"]


# ---------------------------------------------------------------- RESP3

def test_resp3_reply_types(server, r):
    r.sadd("s", "x", "y", "z")
    r.sadd("t", "y")
    conn = resp3_connection(server)
    try:
        for cmd in (("SMEMBERS", "s"), ("SUNION", "s", "nope"), ("SDIFF", "s", "nope"),
                    ("SINTER", "s", "s")):
            kind, items = conn.command(*cmd)
            assert kind == "set" and sorted(items) == [b"x", b"y", b"z"], cmd
        assert conn.command("SINTER", "s", "t") == ("set", [b"y"])
        assert conn.command("SMEMBERS", "nope") == ("set", [])
        assert conn.command("SINTER", "s", "nope") == ("set", [])
        kind, popped = conn.command("SPOP", "t", 5)
        assert (kind, popped) == ("set", [b"y"])
        assert conn.command("SPOP", "nope", 2) == ("set", [])
        got = conn.command("SRANDMEMBER", "s", 2)  # an array, not a set
        assert isinstance(got, list) and len(set(got)) == 2
        assert conn.command("SMISMEMBER", "s", "x", "q") == [1, 0]
        assert conn.command("SPOP", "nope") is None
    finally:
        conn.close()


# ---------------------------------------------------------------- wrong type

SET_COMMANDS = [
    ("SADD", "k", "a"), ("SREM", "k", "a"), ("SMEMBERS", "k"), ("SISMEMBER", "k", "a"),
    ("SMISMEMBER", "k", "a"), ("SCARD", "k"), ("SPOP", "k"), ("SPOP", "k", 2),
    ("SRANDMEMBER", "k"), ("SRANDMEMBER", "k", -2), ("SMOVE", "k", "other", "a"),
    ("SINTER", "k"), ("SINTERCARD", 1, "k"), ("SUNION", "k"), ("SDIFF", "k"),
    ("SINTERSTORE", "other", "k"), ("SUNIONSTORE", "other", "k"),
    ("SDIFFSTORE", "other", "k"), ("SSCAN", "k", 0),
]


@pytest.mark.parametrize("holder", [("SET", "k", "v"), ("RPUSH", "k", "a"),
                                    ("HSET", "k", "f", "v"), ("ZADD", "k", 1, "a")],
                         ids=["string", "list", "hash", "zset"])
@pytest.mark.parametrize("command", SET_COMMANDS, ids=lambda c: c[0] + str(len(c)))
def test_wrongtype(rc, holder, command):
    rc(*holder)
    assert rc.err(*command) == WRONGTYPE
    assert rc("EXISTS", "other") == 0
