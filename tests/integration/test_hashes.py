"""Hash commands: replies, errors, numeric edge cases, random fields, scan, encodings."""
import pytest

from helpers_types import (NOT_INT, SYNTAX, WRONGTYPE, arity, raw_client, rc_fixture,
                           resp3_connection)


@pytest.fixture
def rc(server, r):
    yield from rc_fixture(server)


def as_dict(flat):
    assert len(flat) % 2 == 0
    d = dict(zip(flat[0::2], flat[1::2]))
    assert len(d) == len(flat) // 2, "duplicate field in reply"
    return d


# ---------------------------------------------------------------- set / get

def test_hset_returns_number_of_new_fields(rc):
    assert rc("HSET", "h", "a", "1", "b", "2") == 2
    assert rc("HSET", "h", "a", "10", "c", "3") == 1  # a is updated, c is new
    assert rc("HSET", "h", "a", "11") == 0
    assert as_dict(rc("HGETALL", "h")) == {"a": "11", "b": "2", "c": "3"}
    assert rc("TYPE", "h") == "hash"


def test_hset_same_field_twice_in_one_call(rc):
    assert rc("HSET", "h", "f", "1", "f", "2") == 1
    assert rc("HGET", "h", "f") == "2"
    assert rc("HLEN", "h") == 1


def test_hset_arity(rc):
    assert rc.err("HSET", "h", "f") == arity("hset")
    assert rc.err("HSET", "h", "f", "v", "g") == arity("hset")
    assert rc.err("HSET", "h") == arity("hset")
    assert rc("EXISTS", "h") == 0


def test_hsetnx(rc):
    assert rc("HSETNX", "h", "f", "1") == 1
    assert rc("HSETNX", "h", "f", "2") == 0
    assert rc("HGET", "h", "f") == "1"
    assert rc.err("HSETNX", "h", "f") == arity("hsetnx")


def test_hget_hmget(rc):
    rc("HSET", "h", "a", "1", "b", "")
    assert rc("HGET", "h", "a") == "1"
    assert rc("HGET", "h", "b") == ""
    assert rc("HGET", "h", "zz") is None
    assert rc("HGET", "nope", "a") is None
    assert rc("HMGET", "h", "a", "zz", "b", "a") == ["1", None, "", "1"]
    assert rc("HMGET", "nope", "a", "b") == [None, None]
    assert rc.err("HMGET", "h") == arity("hmget")


def test_hmset(rc):
    assert rc("HMSET", "h", "a", "1", "b", "2") == "OK"
    assert rc("HMSET", "h", "a", "3") == "OK"
    assert as_dict(rc("HGETALL", "h")) == {"a": "3", "b": "2"}
    assert rc.err("HMSET", "h", "a") == arity("hmset")
    assert rc.err("HMSET", "h", "a", "1", "b") == arity("hmset")


def test_binary_fields_and_values(rb):
    assert rb.hset("h", mapping={b"\x00f\xff": b"\r\n\x00", b"": b"empty-field"}) == 2
    assert rb.hget("h", b"\x00f\xff") == b"\r\n\x00"
    assert rb.hget("h", b"") == b"empty-field"
    assert rb.hgetall("h") == {b"\x00f\xff": b"\r\n\x00", b"": b"empty-field"}


def test_values_are_kept_byte_exact(rc):
    vals = {"a": "01", "b": "-0", "c": "1.0", "d": "9223372036854775808", "e": " 7"}
    rc("HSET", "h", *[x for kv in vals.items() for x in kv])
    assert as_dict(rc("HGETALL", "h")) == vals
    assert rc("HSTRLEN", "h", "a") == 2


# ---------------------------------------------------------------- delete / exists / len

def test_hdel(rc):
    rc("HSET", "h", "a", "1", "b", "2", "c", "3")
    assert rc("HDEL", "h", "a", "zz", "a") == 1
    assert rc("HDEL", "h", "b", "c") == 2
    assert rc("EXISTS", "h") == 0  # an emptied hash disappears
    assert rc("HDEL", "h", "a") == 0
    assert rc.err("HDEL", "h") == arity("hdel")


def test_hexists_hlen(rc):
    rc("HSET", "h", "a", "1", "b", "2")
    assert rc("HEXISTS", "h", "a") == 1
    assert rc("HEXISTS", "h", "zz") == 0
    assert rc("HEXISTS", "nope", "a") == 0
    assert rc("HLEN", "h") == 2
    assert rc("HLEN", "nope") == 0


def test_hkeys_hvals_hgetall(rc):
    assert rc("HKEYS", "nope") == []
    assert rc("HVALS", "nope") == []
    assert rc("HGETALL", "nope") == []
    pairs = {f"f{i}": f"v{i}" for i in range(10)}
    rc("HSET", "h", *[x for kv in pairs.items() for x in kv])
    keys, vals, flat = rc("HKEYS", "h"), rc("HVALS", "h"), rc("HGETALL", "h")
    assert sorted(keys) == sorted(pairs)
    assert sorted(vals) == sorted(pairs.values())
    assert as_dict(flat) == pairs
    # the three commands walk the hash in the same order
    assert flat[0::2] == keys and flat[1::2] == vals


def test_hstrlen(rc):
    rc("HSET", "h", "a", "hello", "n", "12345", "e", "")
    assert rc("HSTRLEN", "h", "a") == 5
    assert rc("HSTRLEN", "h", "n") == 5
    assert rc("HSTRLEN", "h", "e") == 0
    assert rc("HSTRLEN", "h", "zz") == 0
    assert rc("HSTRLEN", "nope", "a") == 0


# ---------------------------------------------------------------- numbers

def test_hincrby(rc):
    assert rc("HINCRBY", "h", "n", 5) == 5  # missing key and field start at 0
    assert rc("HINCRBY", "h", "n", -12) == -7
    assert rc("HINCRBY", "h", "n", 0) == -7
    assert rc("HGET", "h", "n") == "-7"
    rc("HSET", "h", "m", "100")
    assert rc("HINCRBY", "h", "m", 1) == 101


def test_hincrby_overflow(rc):
    rc("HSET", "h", "max", "9223372036854775807", "min", "-9223372036854775808")
    assert rc.err("HINCRBY", "h", "max", 1) == "ERR increment or decrement would overflow"
    assert rc.err("HINCRBY", "h", "min", -1) == "ERR increment or decrement would overflow"
    assert rc("HGET", "h", "max") == "9223372036854775807"
    assert rc("HINCRBY", "h", "max", -1) == 9223372036854775806
    assert rc("HINCRBY", "h", "min", 9223372036854775807) == -1


@pytest.mark.parametrize("value", ["abc", "1.5", " 1", "1 ", "", "9223372036854775808",
                                   "0x10", "1e3"])
def test_hincrby_non_integer_field(rc, value):
    rc("HSET", "h", "f", value)
    assert rc.err("HINCRBY", "h", "f", 1) == "ERR hash value is not an integer"
    assert rc("HGET", "h", "f") == value


@pytest.mark.parametrize("incr", ["x", "1.5", "", "9223372036854775808"])
def test_hincrby_bad_increment(rc, incr):
    assert rc.err("HINCRBY", "h", "f", incr) == NOT_INT
    assert rc("EXISTS", "h") == 0


@pytest.mark.parametrize("start,incr,result", [
    ("10.50", "0.1", "10.6"),
    ("5.0e3", "2.0e2", "5200"),
    ("10", "-5", "5"),
    ("0.1", "0.2", "0.3"),
    ("1", "-1", "0"),
    ("3", "1.5", "4.5"),
    ("-0.5", "0.25", "-0.25"),
])
def test_hincrbyfloat(rc, start, incr, result):
    rc("HSET", "h", "f", start)
    assert rc("HINCRBYFLOAT", "h", "f", incr) == result
    assert rc("HGET", "h", "f") == result


def test_hincrbyfloat_new_field_and_int_field(rc):
    assert rc("HINCRBYFLOAT", "h", "f", "1.25") == "1.25"
    rc("HSET", "h", "i", 7)
    assert rc("HINCRBYFLOAT", "h", "i", "0.5") == "7.5"


def test_hincrbyfloat_errors(rc):
    rc("HSET", "h", "s", "abc", "f", "1")
    assert rc.err("HINCRBYFLOAT", "h", "s", "1") == "ERR hash value is not a float"
    assert rc.err("HINCRBYFLOAT", "h", "f", "abc") == "ERR value is not a valid float"
    assert rc.err("HINCRBYFLOAT", "h", "f", "nan") == "ERR value is not a valid float"
    assert rc.err("HINCRBYFLOAT", "h", "f", "inf") == "ERR value is NaN or Infinity"
    assert rc.err("HINCRBYFLOAT", "h", "f", "-inf") == "ERR value is NaN or Infinity"
    assert rc("HGET", "h", "f") == "1"


def test_redis_py_hincrbyfloat(r):
    assert r.hincrbyfloat("h", "f", 2.5) == 2.5
    assert r.hincrby("h", "i", 3) == 3


# ---------------------------------------------------------------- hrandfield

@pytest.fixture
def five(rc):
    rc("HSET", "h", "a", "1", "b", "2", "c", "3", "d", "4", "e", "5")
    return {"a": "1", "b": "2", "c": "3", "d": "4", "e": "5"}


def test_hrandfield_single(rc, five):
    for _ in range(10):
        assert rc("HRANDFIELD", "h") in five
    assert rc("HRANDFIELD", "nope") is None


def test_hrandfield_positive_count_distinct(rc, five):
    for count in (1, 3, 5):
        got = rc("HRANDFIELD", "h", count)
        assert len(got) == count and len(set(got)) == count and set(got) <= set(five)
    got = rc("HRANDFIELD", "h", 100)  # more than the hash: every field once
    assert sorted(got) == sorted(five)


def test_hrandfield_negative_count_may_repeat(rc, five):
    got = rc("HRANDFIELD", "h", -20)
    assert len(got) == 20 and set(got) <= set(five)
    got = rc("HRANDFIELD", "h", -1)
    assert len(got) == 1 and got[0] in five


def test_hrandfield_withvalues(rc, five):
    flat = rc("HRANDFIELD", "h", 3, "WITHVALUES")
    assert len(flat) == 6
    d = as_dict(flat)
    assert all(five[f] == v for f, v in d.items())
    flat = rc("HRANDFIELD", "h", -8, "withvalues")
    assert len(flat) == 16
    assert all(five[f] == v for f, v in zip(flat[0::2], flat[1::2]))
    assert as_dict(rc("HRANDFIELD", "h", 10, "WITHVALUES")) == five


def test_hrandfield_zero_and_missing(rc, five):
    assert rc("HRANDFIELD", "h", 0) == []
    assert rc("HRANDFIELD", "h", 0, "WITHVALUES") == []
    assert rc("HRANDFIELD", "nope", 3) == []
    assert rc("HRANDFIELD", "nope", -3, "WITHVALUES") == []


def test_hrandfield_errors(rc, five):
    assert rc.err("HRANDFIELD", "h", "x") == NOT_INT
    assert rc.err("HRANDFIELD", "h", 1, "WITHSCORES") == SYNTAX
    assert rc.err("HRANDFIELD", "h", 1, "WITHVALUES", "x") == SYNTAX


def test_hrandfield_large_hash(rc):
    rc("HSET", "h", *[x for i in range(300) for x in (f"f{i}", str(i))])
    got = rc("HRANDFIELD", "h", 250)
    assert len(got) == 250 and len(set(got)) == 250
    flat = rc("HRANDFIELD", "h", -50, "WITHVALUES")
    assert all(f == "f" + v for f, v in zip(flat[0::2], flat[1::2]))


# ---------------------------------------------------------------- hscan

def full_hscan(rc, key, *opts):
    cursor, seen = "0", {}
    for _ in range(10000):
        cursor, flat = rc("HSCAN", key, cursor, *opts)
        seen.update(zip(flat[0::2], flat[1::2]))
        if cursor == "0":
            return seen
    raise AssertionError("HSCAN did not terminate")


@pytest.mark.parametrize("n", [10, 1000])
def test_hscan_full_iteration(rc, n):
    pairs = {f"field:{i}": str(i) for i in range(n)}
    rc("HSET", "h", *[x for kv in pairs.items() for x in kv])
    assert full_hscan(rc, "h") == pairs
    assert full_hscan(rc, "h", "COUNT", 7) == pairs


def test_hscan_match(rc):
    rc("HSET", "h", *[x for i in range(300) for x in (f"{'a' if i % 3 else 'b'}{i}", "v")])
    got = full_hscan(rc, "h", "MATCH", "b*", "COUNT", 50)
    assert set(got) == {f"b{i}" for i in range(0, 300, 3)}


def test_hscan_missing_key_and_errors(rc):
    assert rc("HSCAN", "nope", 0) == ["0", []]
    rc("HSET", "h", "a", "1")
    assert rc("HSCAN", "h", 0) == ["0", ["a", "1"]]
    assert rc.err("HSCAN", "h", "abc") == "ERR invalid cursor"
    assert rc.err("HSCAN", "h", 0, "COUNT", 0) == SYNTAX
    assert rc.err("HSCAN", "h", 0, "BOGUS", 1) == SYNTAX


@pytest.mark.redis8
def test_hscan_novalues(rc):
    rc("HSET", "h", *[x for i in range(200) for x in (f"f{i}", f"v{i}")])
    cursor, names = "0", []
    while True:
        cursor, flat = rc("HSCAN", "h", cursor, "NOVALUES")
        names += flat
        if cursor == "0":
            break
    assert set(names) == {f"f{i}" for i in range(200)}
    rc("HSET", "small", "a", "1")
    assert rc("HSCAN", "small", 0, "NOVALUES") == ["0", ["a"]]


def test_redis_py_hscan_iter(r):
    r.hset("h", mapping={f"k{i}": i for i in range(50)})
    assert dict(r.hscan_iter("h", match="k1*")) == {f"k{i}": str(i) for i in
                                                    [1] + list(range(10, 20))}


# ---------------------------------------------------------------- encodings

# redis.conf ships hash-max-listpack-entries 128 (the compiled-in default of redis-server
# is 512), so the 128/129 boundary is checked on a server started with the redis.conf values.
REDIS_CONF_HASH_LIMITS = ["--hash-max-listpack-entries", "128", "--hash-max-listpack-value", "64"]


def test_encoding_listpack_to_hashtable_at_129_fields(start_server):
    c = raw_client(start_server(args=REDIS_CONF_HASH_LIMITS))
    try:
        c("HSET", "h", *[x for i in range(128) for x in (f"f{i}", "v")])
        assert c("OBJECT", "ENCODING", "h") == "listpack"
        c("HSET", "h", "f0", "updated")
        assert c("OBJECT", "ENCODING", "h") == "listpack"
        c("HSET", "h", "f128", "v")
        assert c("OBJECT", "ENCODING", "h") == "hashtable"
        assert c("HLEN", "h") == 129
        assert c("HGET", "h", "f0") == "updated"
        # HSETNX and HINCRBY adding the 129th field convert too
        c("HSET", "h2", *[x for i in range(128) for x in (f"f{i}", "1")])
        c("HINCRBY", "h2", "new", 1)
        assert c("OBJECT", "ENCODING", "h2") == "hashtable"
        c("HSET", "h3", *[x for i in range(128) for x in (f"f{i}", "1")])
        c("HSETNX", "h3", "new", "1")
        assert c("OBJECT", "ENCODING", "h3") == "hashtable"
        # a hash created big in one HSET
        c("HSET", "h4", *[x for i in range(129) for x in (f"f{i}", "1")])
        assert c("OBJECT", "ENCODING", "h4") == "hashtable"
    finally:
        c.close()


def test_small_hash_is_listpack_and_big_one_hashtable(rc):
    # true whatever the default entry limit (128 in redis.conf, 512 compiled in)
    rc("HSET", "h", *[x for i in range(100) for x in (f"f{i}", "v")])
    assert rc("OBJECT", "ENCODING", "h") == "listpack"
    rc("HSET", "big", *[x for i in range(600) for x in (f"f{i}", "v")])
    assert rc("OBJECT", "ENCODING", "big") == "hashtable"
    assert rc("OBJECT", "ENCODING", "nope") is None


def test_encoding_hashtable_for_long_value(rc):
    rc("HSET", "h", "a", "x" * 64)
    assert rc("OBJECT", "ENCODING", "h") == "listpack"
    rc("HSET", "h", "b", "x" * 65)
    assert rc("OBJECT", "ENCODING", "h") == "hashtable"
    assert rc("HGET", "h", "b") == "x" * 65
    assert rc("HGET", "h", "a") == "x" * 64


def test_encoding_hashtable_for_long_field_name(rc):
    rc("HSET", "h", "f" * 65, "v")
    assert rc("OBJECT", "ENCODING", "h") == "hashtable"


def test_encoding_hashtable_via_hsetnx_long_value(rc):
    rc("HSETNX", "h", "a", "y" * 100)
    assert rc("OBJECT", "ENCODING", "h") == "hashtable"


def test_hashtable_commands(rc):
    pairs = {f"f{i}": str(i) for i in range(600)}
    rc("HSET", "h", *[x for kv in pairs.items() for x in kv])
    assert rc("OBJECT", "ENCODING", "h") == "hashtable"
    assert as_dict(rc("HGETALL", "h")) == pairs
    assert rc("HDEL", "h", *[f"f{i}" for i in range(0, 600, 2)]) == 300
    assert rc("HLEN", "h") == 300
    assert rc("HEXISTS", "h", "f2") == 0 and rc("HEXISTS", "h", "f3") == 1
    assert rc("HINCRBY", "h", "f3", 10) == 13


# ---------------------------------------------------------------- RESP3

def test_resp3_reply_types(server, r):
    r.hset("h", mapping={"a": "1", "b": "2"})
    conn = resp3_connection(server)
    try:
        kind, pairs = conn.command("HGETALL", "h")
        assert kind == "map" and sorted(pairs) == [(b"a", b"1"), (b"b", b"2")]
        assert conn.command("HGETALL", "nope") == ("map", [])
        got = conn.command("HRANDFIELD", "h", 2, "WITHVALUES")  # an array of pairs
        assert sorted(got) == [[b"a", b"1"], [b"b", b"2"]]
        got = conn.command("HRANDFIELD", "h", -3, "WITHVALUES")
        assert len(got) == 3 and all(p in ([b"a", b"1"], [b"b", b"2"]) for p in got)
        assert sorted(conn.command("HRANDFIELD", "h", 5)) == [b"a", b"b"]
        assert conn.command("HINCRBYFLOAT", "h", "a", "0.5") == b"1.5"  # a bulk string
        assert conn.command("HGET", "h", "zz") is None
        assert conn.command("HMGET", "h", "b", "zz") == [b"2", None]
    finally:
        conn.close()


# ---------------------------------------------------------------- wrong type

HASH_COMMANDS = [
    ("HSET", "k", "f", "v"), ("HSETNX", "k", "f", "v"), ("HGET", "k", "f"),
    ("HMGET", "k", "f"), ("HMSET", "k", "f", "v"), ("HGETALL", "k"), ("HDEL", "k", "f"),
    ("HEXISTS", "k", "f"), ("HLEN", "k"), ("HKEYS", "k"), ("HVALS", "k"),
    ("HSTRLEN", "k", "f"), ("HINCRBY", "k", "f", 1), ("HINCRBYFLOAT", "k", "f", "1.5"),
    ("HRANDFIELD", "k"), ("HRANDFIELD", "k", 2), ("HRANDFIELD", "k", -2, "WITHVALUES"),
    ("HSCAN", "k", 0),
]


@pytest.mark.parametrize("holder", [("SET", "k", "v"), ("RPUSH", "k", "a"),
                                    ("SADD", "k", "a"), ("ZADD", "k", 1, "a")],
                         ids=["string", "list", "set", "zset"])
@pytest.mark.parametrize("command", HASH_COMMANDS, ids=lambda c: c[0] + str(len(c)))
def test_wrongtype(rc, holder, command):
    rc(*holder)
    assert rc.err(*command) == WRONGTYPE
