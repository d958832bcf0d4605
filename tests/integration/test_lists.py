"""List commands: replies, index edge cases, errors, encodings (Redis semantics)."""
import pytest

from helpers_types import (NOT_INT, OUT_OF_RANGE_POSITIVE, SYNTAX, WRONGTYPE, arity,
                           expect_error, rc_fixture)


@pytest.fixture
def rc(server, r):
    yield from rc_fixture(server)


def items(rc, key):
    return rc("LRANGE", key, 0, -1)


# ---------------------------------------------------------------- push / len / range

def test_lpush_rpush_return_length_and_order(rc):
    assert rc("LPUSH", "l", "a", "b", "c") == 3
    assert items(rc, "l") == ["c", "b", "a"]
    assert rc("RPUSH", "l", "x", "y") == 5
    assert items(rc, "l") == ["c", "b", "a", "x", "y"]
    assert rc("LLEN", "l") == 5
    assert rc("TYPE", "l") == "list"


def test_push_needs_an_element(rc):
    assert rc.err("LPUSH", "l") == arity("lpush")
    assert rc.err("RPUSH", "l") == arity("rpush")
    assert rc("EXISTS", "l") == 0


def test_elements_are_kept_byte_exact(rc, rb):
    # integer-looking strings must not be normalised by a compact encoding
    odd = ["01", "-0", "1.0", " 1", "9223372036854775807", "9223372036854775808",
           "-9223372036854775808", "-9223372036854775809", "0x10", "", "1e3"]
    assert rc("RPUSH", "l", *odd) == len(odd)
    assert items(rc, "l") == odd
    assert rb.rpush("bin", b"\x00\xff\r\n", b"a\x00b") == 2
    assert rb.lrange("bin", 0, -1) == [b"\x00\xff\r\n", b"a\x00b"]
    assert rb.lpop("bin") == b"\x00\xff\r\n"


def test_pushx_only_on_existing_list(rc):
    assert rc("LPUSHX", "l", "a") == 0
    assert rc("RPUSHX", "l", "a", "b") == 0
    assert rc("EXISTS", "l") == 0
    rc("RPUSH", "l", "m")
    assert rc("LPUSHX", "l", "a", "b") == 3
    assert rc("RPUSHX", "l", "y", "z") == 5
    assert items(rc, "l") == ["b", "a", "m", "y", "z"]


def test_llen_missing_key_is_zero(rc):
    assert rc("LLEN", "nope") == 0


@pytest.mark.parametrize("start,stop,expected", [
    (0, -1, ["a", "b", "c", "d", "e"]),
    (0, 0, ["a"]),
    (1, 3, ["b", "c", "d"]),
    (-2, -1, ["d", "e"]),
    (-100, 1, ["a", "b"]),
    (-100, -100, []),
    (2, 100, ["c", "d", "e"]),
    (3, 1, []),
    (5, 10, []),
    (-1, -2, []),
    (4, 4, ["e"]),
    (-5, -5, ["a"]),
    (0, -6, []),
])
def test_lrange_indexes(rc, start, stop, expected):
    rc("RPUSH", "l", "a", "b", "c", "d", "e")
    assert rc("LRANGE", "l", start, stop) == expected


def test_lrange_missing_key_and_bad_index(rc):
    assert rc("LRANGE", "nope", 0, -1) == []
    rc("RPUSH", "l", "a")
    assert rc.err("LRANGE", "l", "x", 1) == NOT_INT
    assert rc.err("LRANGE", "l", 0, "1.5") == NOT_INT


# ---------------------------------------------------------------- pop

def test_lpop_rpop_single(rc):
    rc("RPUSH", "l", "a", "b", "c")
    assert rc("LPOP", "l") == "a"
    assert rc("RPOP", "l") == "c"
    assert rc("LPOP", "l") == "b"
    assert rc("LPOP", "l") is None
    assert rc("RPOP", "l") is None
    assert rc("EXISTS", "l") == 0


def test_pop_with_count(rc):
    rc("RPUSH", "l", "a", "b", "c", "d", "e")
    assert rc("LPOP", "l", 2) == ["a", "b"]
    assert rc("RPOP", "l", 2) == ["e", "d"]
    assert rc("RPOP", "l", 10) == ["c"]
    assert rc("EXISTS", "l") == 0


def test_pop_count_larger_than_list_takes_all_and_deletes(rc):
    rc("RPUSH", "l", "a", "b")
    assert rc("LPOP", "l", 100) == ["a", "b"]
    assert rc("EXISTS", "l") == 0


def test_pop_count_zero(rc):
    rc("RPUSH", "l", "a", "b")
    assert rc("LPOP", "l", 0) == []
    assert rc("RPOP", "l", 0) == []
    assert items(rc, "l") == ["a", "b"]


def test_pop_count_on_missing_key_is_nil(rc):
    assert rc("LPOP", "nope", 1) is None
    assert rc("RPOP", "nope", 5) is None
    assert rc("LPOP", "nope", 0) is None
    assert rc("LPOP", "nope") is None


def test_pop_count_errors(rc):
    rc("RPUSH", "l", "a")
    assert rc.err("LPOP", "l", -1) == OUT_OF_RANGE_POSITIVE
    assert rc.err("RPOP", "l", -5) == OUT_OF_RANGE_POSITIVE
    assert rc.err("LPOP", "nope", -1) == OUT_OF_RANGE_POSITIVE
    assert rc.err("LPOP", "l", "abc") == OUT_OF_RANGE_POSITIVE
    assert rc.err("LPOP", "l", 1, 2) == arity("lpop")
    assert items(rc, "l") == ["a"]


def test_redis_py_pop_count(r):
    r.rpush("l", "a", "b", "c")
    assert r.lpop("l", 2) == ["a", "b"]
    with expect_error(OUT_OF_RANGE_POSITIVE):
        r.rpop("l", -1)
    with expect_error(WRONGTYPE):
        r.hset("l", "f", "v")
    assert r.rpop("l") == "c"
    assert r.lpop("l", 2) is None


# ---------------------------------------------------------------- index / set

def test_lindex(rc):
    rc("RPUSH", "l", "a", "b", "c")
    assert rc("LINDEX", "l", 0) == "a"
    assert rc("LINDEX", "l", 2) == "c"
    assert rc("LINDEX", "l", -1) == "c"
    assert rc("LINDEX", "l", -3) == "a"
    assert rc("LINDEX", "l", 3) is None
    assert rc("LINDEX", "l", -4) is None
    assert rc("LINDEX", "nope", 0) is None
    assert rc.err("LINDEX", "l", "one") == NOT_INT
    # The key is looked up before the index is parsed, as in Redis.
    assert rc("LINDEX", "nope", "one") is None
    assert rc("LINDEX", "nope", "99999999999999999999") is None
    rc("SET", "s", "v")
    assert rc.err("LINDEX", "s", "one") == WRONGTYPE


def test_lset(rc):
    rc("RPUSH", "l", "a", "b", "c")
    assert rc("LSET", "l", 0, "A") == "OK"
    assert rc("LSET", "l", -1, "C") == "OK"
    assert rc("LSET", "l", 1, "x" * 100) == "OK"
    assert items(rc, "l") == ["A", "x" * 100, "C"]
    assert rc.err("LSET", "l", 3, "z") == "ERR index out of range"
    assert rc.err("LSET", "l", -4, "z") == "ERR index out of range"
    # The extremes stay out of range (Redis 7.0; Redis 8.8's listpack seek wraps them and
    # sets an element: found by tests/differential, not followed).
    assert rc.err("LSET", "l", 2**63 - 1, "z") == "ERR index out of range"
    assert rc.err("LSET", "l", -(2**63), "z") == "ERR index out of range"
    assert items(rc, "l") == ["A", "x" * 100, "C"]
    assert rc.err("LSET", "nope", 0, "z") == "ERR no such key"
    assert rc.err("LSET", "l", "x", "z") == NOT_INT
    assert rc("EXISTS", "nope") == 0
    # The key comes first: no such key / WRONGTYPE whatever the index.
    assert rc.err("LSET", "nope", "x", "z") == "ERR no such key"
    rc("SET", "s", "v")
    assert rc.err("LSET", "s", "x", "z") == WRONGTYPE


# ---------------------------------------------------------------- rem / trim / insert

def test_lrem_from_head_tail_and_all(rc):
    rc("RPUSH", "l", "a", "x", "b", "x", "c", "x", "d")
    assert rc("LREM", "l", 2, "x") == 2
    assert items(rc, "l") == ["a", "b", "c", "x", "d"]
    rc("DEL", "l")
    rc("RPUSH", "l", "a", "x", "b", "x", "c", "x", "d")
    assert rc("LREM", "l", -2, "x") == 2
    assert items(rc, "l") == ["a", "x", "b", "c", "d"]
    rc("RPUSH", "l", "x", "x")
    assert rc("LREM", "l", 0, "x") == 3
    assert items(rc, "l") == ["a", "b", "c", "d"]
    assert rc("LREM", "l", 0, "zz") == 0
    assert rc("LREM", "l", 100, "a") == 1
    # As Redis 8: the count is in [-LONG_MAX, LONG_MAX], checked before the key.
    assert rc("LREM", "l", -(2**63 - 1), "zz") == 0
    for key in ("l", "nope"):
        assert rc.err("LREM", key, -(2**63), "zz") == (
            "ERR value is out of range, value must between -9223372036854775807 and "
            "9223372036854775807")


def test_lrem_removing_everything_deletes_key(rc):
    rc("RPUSH", "l", "x", "x")
    assert rc("LREM", "l", 0, "x") == 2
    assert rc("EXISTS", "l") == 0
    assert rc("LREM", "nope", 0, "x") == 0
    assert rc.err("LREM", "l", "two", "x") == NOT_INT


@pytest.mark.parametrize("start,stop,expected", [
    (1, 2, ["b", "c"]),
    (0, -1, ["a", "b", "c", "d", "e"]),
    (-2, -1, ["d", "e"]),
    (-100, 0, ["a"]),
    (3, 100, ["d", "e"]),
])
def test_ltrim(rc, start, stop, expected):
    rc("RPUSH", "l", "a", "b", "c", "d", "e")
    assert rc("LTRIM", "l", start, stop) == "OK"
    assert items(rc, "l") == expected


@pytest.mark.parametrize("start,stop", [(3, 1), (5, 10), (-1, -2), (0, -6)])
def test_ltrim_to_empty_deletes_key(rc, start, stop):
    rc("RPUSH", "l", "a", "b", "c", "d", "e")
    assert rc("LTRIM", "l", start, stop) == "OK"
    assert rc("EXISTS", "l") == 0


def test_ltrim_missing_key_and_bad_index(rc):
    assert rc("LTRIM", "nope", 0, 1) == "OK"
    assert rc("EXISTS", "nope") == 0
    rc("RPUSH", "l", "a")
    assert rc.err("LTRIM", "l", "a", 1) == NOT_INT


def test_linsert(rc):
    rc("RPUSH", "l", "a", "c", "c")
    assert rc("LINSERT", "l", "BEFORE", "c", "b") == 4
    assert rc("LINSERT", "l", "after", "c", "x") == 5  # first match, case-insensitive keyword
    assert items(rc, "l") == ["a", "b", "c", "x", "c"]
    assert rc("LINSERT", "l", "AFTER", "c", "z") == 6
    assert rc("LINSERT", "l", "BEFORE", "a", "start") == 7
    assert rc("LINSERT", "l", "AFTER", "c", "y") == 8
    assert items(rc, "l") == ["start", "a", "b", "c", "y", "z", "x", "c"]


def test_linsert_missing_pivot_and_missing_key(rc):
    rc("RPUSH", "l", "a")
    assert rc("LINSERT", "l", "BEFORE", "zz", "b") == -1
    assert items(rc, "l") == ["a"]
    assert rc("LINSERT", "nope", "BEFORE", "a", "b") == 0
    assert rc("EXISTS", "nope") == 0
    assert rc.err("LINSERT", "l", "MIDDLE", "a", "b") == SYNTAX


# ---------------------------------------------------------------- lpos

@pytest.fixture
def lpos_list(rc):
    rc("RPUSH", "l", "a", "b", "c", "d", "1", "2", "3", "4", "3", "3", "3")
    return rc


def test_lpos_basic(lpos_list):
    rc = lpos_list
    assert rc("LPOS", "l", "3") == 6
    assert rc("LPOS", "l", "a") == 0
    assert rc("LPOS", "l", "zz") is None
    assert rc("LPOS", "nope", "a") is None


def test_lpos_rank(lpos_list):
    rc = lpos_list
    assert rc("LPOS", "l", "3", "RANK", 1) == 6
    assert rc("LPOS", "l", "3", "RANK", 2) == 8
    assert rc("LPOS", "l", "3", "RANK", 4) == 10
    assert rc("LPOS", "l", "3", "RANK", 5) is None
    assert rc("LPOS", "l", "3", "RANK", -1) == 10
    assert rc("LPOS", "l", "3", "RANK", -2) == 9
    assert rc("LPOS", "l", "3", "RANK", -4) == 6
    assert rc("LPOS", "l", "3", "RANK", -5) is None


def test_lpos_count(lpos_list):
    rc = lpos_list
    assert rc("LPOS", "l", "3", "COUNT", 0) == [6, 8, 9, 10]
    assert rc("LPOS", "l", "3", "COUNT", 2) == [6, 8]
    assert rc("LPOS", "l", "3", "COUNT", 1) == [6]
    assert rc("LPOS", "l", "3", "COUNT", 0, "RANK", 2) == [8, 9, 10]
    assert rc("LPOS", "l", "3", "COUNT", 2, "RANK", -1) == [10, 9]
    assert rc("LPOS", "l", "zz", "COUNT", 0) == []
    assert rc("LPOS", "nope", "a", "COUNT", 0) == []


def test_lpos_maxlen(lpos_list):
    rc = lpos_list
    assert rc("LPOS", "l", "3", "COUNT", 0, "MAXLEN", 7) == [6]
    assert rc("LPOS", "l", "3", "MAXLEN", 6) is None
    assert rc("LPOS", "l", "3", "MAXLEN", 0) == 6  # 0 = no limit
    assert rc("LPOS", "l", "3", "RANK", -1, "MAXLEN", 1) == 10
    assert rc("LPOS", "l", "3", "COUNT", 0, "RANK", -1, "MAXLEN", 3) == [10, 9, 8]
    assert rc("LPOS", "l", "a", "RANK", -1, "MAXLEN", 5) is None


def test_lpos_errors(lpos_list):
    rc = lpos_list
    assert rc.err("LPOS", "l", "3", "RANK", 0) == (
        "ERR RANK can't be zero: use 1 to start from the first match, 2 from the second"
        " ... or use negative to start from the end of the list")
    assert rc.err("LPOS", "l", "3", "COUNT", -1) == "ERR COUNT can't be negative"
    assert rc.err("LPOS", "l", "3", "MAXLEN", -1) == "ERR MAXLEN can't be negative"
    assert rc.err("LPOS", "l", "3", "RANK", "x") == NOT_INT
    assert rc.err("LPOS", "l", "3", "BOGUS", 1) == SYNTAX
    assert rc.err("LPOS", "l", "3", "RANK") == SYNTAX
    # As Redis: COUNT and MAXLEN answer their own message for a value that is not an
    # integer; an unknown option is a syntax error before its value is looked at.
    assert rc.err("LPOS", "l", "3", "COUNT", "x") == "ERR COUNT can't be negative"
    assert rc.err("LPOS", "l", "3", "MAXLEN", "1.5") == "ERR MAXLEN can't be negative"
    assert rc.err("LPOS", "l", "3", "BOGUS", "x") == SYNTAX


@pytest.mark.redis8
def test_lpos_rank_min_long_rejected(lpos_list):
    # Redis >= 7.2 rejects LONG_MIN (7.0 negated it and overflowed)
    assert lpos_list.err("LPOS", "l", "3", "RANK", "-9223372036854775808") == (
        "ERR value is out of range, value must between -9223372036854775807 and "
        "9223372036854775807")


def test_redis_py_lpos(r):
    r.rpush("l", "a", "b", "a", "c", "a")
    assert r.lpos("l", "a") == 0
    assert r.lpos("l", "a", rank=-1) == 4
    assert r.lpos("l", "a", count=0) == [0, 2, 4]
    assert r.lpos("l", "a", count=2, maxlen=3) == [0, 2]


# ---------------------------------------------------------------- lmove / rpoplpush

@pytest.mark.parametrize("wherefrom,whereto,moved,src,dst", [
    ("LEFT", "LEFT", "a", ["b", "c"], ["a", "x", "y"]),
    ("LEFT", "RIGHT", "a", ["b", "c"], ["x", "y", "a"]),
    ("RIGHT", "LEFT", "c", ["a", "b"], ["c", "x", "y"]),
    ("RIGHT", "RIGHT", "c", ["a", "b"], ["x", "y", "c"]),
])
def test_lmove_directions(rc, wherefrom, whereto, moved, src, dst):
    rc("RPUSH", "src", "a", "b", "c")
    rc("RPUSH", "dst", "x", "y")
    assert rc("LMOVE", "src", "dst", wherefrom, whereto) == moved
    assert items(rc, "src") == src
    assert items(rc, "dst") == dst


def test_lmove_creates_destination_and_deletes_empty_source(rc):
    rc("RPUSH", "src", "only")
    assert rc("LMOVE", "src", "dst", "left", "right") == "only"
    assert rc("EXISTS", "src") == 0
    assert items(rc, "dst") == ["only"]


@pytest.mark.parametrize("wherefrom,whereto,moved,after", [
    ("LEFT", "RIGHT", "a", ["b", "c", "a"]),
    ("RIGHT", "LEFT", "c", ["c", "a", "b"]),
    ("LEFT", "LEFT", "a", ["a", "b", "c"]),
    ("RIGHT", "RIGHT", "c", ["a", "b", "c"]),
])
def test_lmove_same_key_rotation(rc, wherefrom, whereto, moved, after):
    rc("RPUSH", "l", "a", "b", "c")
    assert rc("LMOVE", "l", "l", wherefrom, whereto) == moved
    assert items(rc, "l") == after


def test_lmove_single_element_same_key(rc):
    rc("RPUSH", "l", "a")
    assert rc("LMOVE", "l", "l", "LEFT", "RIGHT") == "a"
    assert items(rc, "l") == ["a"]


def test_lmove_missing_source_and_errors(rc):
    assert rc("LMOVE", "nope", "dst", "LEFT", "RIGHT") is None
    assert rc("EXISTS", "dst") == 0
    rc("RPUSH", "src", "a")
    rc("SET", "str", "v")
    assert rc.err("LMOVE", "src", "str", "LEFT", "RIGHT") == WRONGTYPE
    assert items(rc, "src") == ["a"]  # nothing popped when the destination is wrong
    assert rc.err("LMOVE", "str", "src", "LEFT", "RIGHT") == WRONGTYPE
    assert rc.err("LMOVE", "src", "dst", "UP", "RIGHT") == SYNTAX
    assert rc.err("LMOVE", "src", "dst", "LEFT", "DOWN") == SYNTAX
    assert items(rc, "src") == ["a"]


def test_rpoplpush(rc):
    rc("RPUSH", "src", "a", "b", "c")
    assert rc("RPOPLPUSH", "src", "dst") == "c"
    assert rc("RPOPLPUSH", "src", "dst") == "b"
    assert items(rc, "dst") == ["b", "c"]
    assert rc("RPOPLPUSH", "src", "src") == "a"  # rotation on a 1-element list
    assert rc("RPOPLPUSH", "dst", "dst") == "c"
    assert items(rc, "dst") == ["c", "b"]
    assert rc("RPOPLPUSH", "nope", "dst") is None
    rc("SET", "str", "v")
    assert rc.err("RPOPLPUSH", "src", "str") == WRONGTYPE
    assert items(rc, "src") == ["a"]


# ---------------------------------------------------------------- lmpop

def test_lmpop_first_non_empty_key(rc):
    rc("RPUSH", "l2", "a", "b", "c")
    rc("RPUSH", "l3", "z")
    assert rc("LMPOP", 3, "l1", "l2", "l3", "LEFT") == ["l2", ["a"]]
    assert rc("LMPOP", 3, "l1", "l2", "l3", "RIGHT", "COUNT", 5) == ["l2", ["c", "b"]]
    assert rc("EXISTS", "l2") == 0
    assert rc("LMPOP", 2, "l1", "l3", "left", "count", 1) == ["l3", ["z"]]
    assert rc("LMPOP", 2, "l1", "l3", "LEFT") is None


def test_lmpop_count(rc):
    rc("RPUSH", "l", "a", "b", "c", "d")
    assert rc("LMPOP", 1, "l", "LEFT", "COUNT", 2) == ["l", ["a", "b"]]
    assert rc("LMPOP", 1, "l", "RIGHT", "COUNT", 1) == ["l", ["d"]]
    assert items(rc, "l") == ["c"]


def test_lmpop_errors(rc):
    rc("RPUSH", "l", "a")
    assert rc.err("LMPOP", 0, "l", "LEFT") == "ERR numkeys should be greater than 0"
    assert rc.err("LMPOP", -1, "l", "LEFT") == "ERR numkeys should be greater than 0"
    assert rc.err("LMPOP", "x", "l", "LEFT") == "ERR numkeys should be greater than 0"
    assert rc.err("LMPOP", 1, "l", "LEFT", "COUNT", 0) == "ERR count should be greater than 0"
    assert rc.err("LMPOP", 1, "l", "LEFT", "COUNT", -2) == "ERR count should be greater than 0"
    assert rc.err("LMPOP", 1, "l", "MIDDLE") == SYNTAX
    assert rc.err("LMPOP", 2, "l", "LEFT") == SYNTAX  # numkeys larger than the keys given
    assert rc.err("LMPOP", 1, "l", "LEFT", "COUNT") == SYNTAX
    assert rc.err("LMPOP", 1, "l", "LEFT", "COUNT", 1, "COUNT", 1) == SYNTAX
    assert rc.err("LMPOP", 1, "l") == arity("lmpop")
    rc("SET", "str", "v")
    assert rc.err("LMPOP", 2, "str", "l", "LEFT") == WRONGTYPE
    assert items(rc, "l") == ["a"]


def test_redis_py_lmpop(r):
    r.rpush("b", "1", "2", "3")
    assert r.lmpop(2, "a", "b", direction="RIGHT", count=2) == ["b", ["3", "2"]]


# ---------------------------------------------------------------- wrong type

LIST_COMMANDS_ON_KEY = [
    ("LPUSH", "{k}", "a"), ("RPUSH", "{k}", "a"), ("LPUSHX", "{k}", "a"),
    ("RPUSHX", "{k}", "a"), ("LPOP", "{k}"), ("RPOP", "{k}"), ("LPOP", "{k}", 2),
    ("RPOP", "{k}", 0), ("LLEN", "{k}"), ("LRANGE", "{k}", 0, -1), ("LINDEX", "{k}", 0),
    ("LSET", "{k}", 0, "a"), ("LREM", "{k}", 0, "a"), ("LTRIM", "{k}", 0, 1),
    ("LINSERT", "{k}", "BEFORE", "a", "b"), ("LPOS", "{k}", "a"),
    ("LPOS", "{k}", "a", "COUNT", 0), ("LMOVE", "{k}", "other", "LEFT", "LEFT"),
    ("RPOPLPUSH", "{k}", "other"), ("LMPOP", 1, "{k}", "LEFT"),
    ("BLPOP", "{k}", 0.01), ("BRPOP", "{k}", 0.01), ("BLMPOP", 0.01, 1, "{k}", "LEFT"),
    ("BLMOVE", "{k}", "other", "LEFT", "LEFT", 0.01), ("BRPOPLPUSH", "{k}", "other", 0.01),
]


@pytest.mark.parametrize("holder", ["string", "hash", "set", "zset"])
@pytest.mark.parametrize("command", LIST_COMMANDS_ON_KEY, ids=lambda c: " ".join(map(str, c[:2])))
def test_wrongtype(rc, holder, command):
    setup = {"string": ("SET", "k", "v"), "hash": ("HSET", "k", "f", "v"),
             "set": ("SADD", "k", "m"), "zset": ("ZADD", "k", 1, "m")}[holder]
    rc(*setup)
    args = [a.format(k="k") if isinstance(a, str) else a for a in command]
    assert rc.err(*args) == WRONGTYPE
    assert rc("TYPE", "k") == {"string": "string", "hash": "hash", "set": "set",
                               "zset": "zset"}[holder]
    assert rc("EXISTS", "other") == 0


# ---------------------------------------------------------------- encodings

def test_large_list_is_quicklist(rc):
    big = "v" * 100
    rc("RPUSH", "l", *([big] * 100))  # ~10 KB > the default 8 KB listpack limit
    assert rc("OBJECT", "ENCODING", "l") == "quicklist"
    assert rc("LLEN", "l") == 100
    assert rc("OBJECT", "ENCODING", "nope") is None


def test_long_element_makes_quicklist(rc):
    rc("RPUSH", "l", "x" * 10000)
    assert rc("OBJECT", "ENCODING", "l") == "quicklist"
    assert rc("LINDEX", "l", 0) == "x" * 10000


@pytest.mark.redis8
def test_small_list_is_listpack(rc):
    # Redis >= 7.2: a small list is a single listpack; 7.0 always reports quicklist
    rc("RPUSH", "l", "a", "b", "1")
    assert rc("OBJECT", "ENCODING", "l") == "listpack"
    rc("RPUSH", "l", *(["v" * 100] * 100))
    assert rc("OBJECT", "ENCODING", "l") == "quicklist"


@pytest.mark.redis8
def test_listpack_to_quicklist_past_configured_size(start_server):
    srv = start_server(args=["--list-max-listpack-size", "4"])
    c = srv.client()
    try:
        c.rpush("l", "a", "b", "c", "d")
        assert c.object("encoding", "l") == "listpack"
        c.rpush("l", "e")
        assert c.object("encoding", "l") == "quicklist"
        assert c.lrange("l", 0, -1) == ["a", "b", "c", "d", "e"]
    finally:
        c.close()


def test_list_max_listpack_size_config(start_server):
    srv = start_server(args=["--list-max-listpack-size", "4"])
    c = srv.client()
    try:
        assert c.config_get("list-max-listpack-size") == {"list-max-listpack-size": "4"}
        c.rpush("l", *[str(i) for i in range(10)])
        assert c.object("encoding", "l") == "quicklist"
        assert c.lrange("l", 0, -1) == [str(i) for i in range(10)]
        assert c.lrange("l", 3, 5) == ["3", "4", "5"]
        assert c.lindex("l", 8) == "8"
        c.linsert("l", "BEFORE", "5", "x")
        assert c.lrange("l", 4, 6) == ["4", "x", "5"]
        assert c.lrem("l", 0, "x") == 1
        assert c.ltrim("l", 2, 7)
        assert c.lrange("l", 0, -1) == ["2", "3", "4", "5", "6", "7"]
    finally:
        c.close()


def test_many_elements_both_ends(rc):
    n = 2000
    rc("RPUSH", "l", *range(n))
    rc("LPUSH", "l", *range(-1, -n - 1, -1))
    assert rc("LLEN", "l") == 2 * n
    assert rc("LINDEX", "l", 0) == str(-n)
    assert rc("LINDEX", "l", -1) == str(n - 1)
    assert rc("LINDEX", "l", n) == "0"
    assert rc("LRANGE", "l", n - 2, n + 1) == ["-2", "-1", "0", "1"]
    assert rc("LPOS", "l", "1500") == n + 1500
    assert rc("LSET", "l", n, "zero") == "OK"
    assert rc("LINDEX", "l", n) == "zero"
