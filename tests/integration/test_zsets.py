"""Sorted set commands: ZADD flags, ranges by rank/score/lex, pops, set algebra, score
formatting, scan, encodings and errors (RESP2 replies: scores are bulk strings)."""
import pytest

from helpers_types import (NOT_FLOAT, NOT_INT, OUT_OF_RANGE_POSITIVE, SYNTAX, WRONGTYPE,
                           arity, double, rc_fixture, resp3_connection)


@pytest.fixture
def rc(server, r):
    yield from rc_fixture(server)

XX_NX = "ERR XX and NX options at the same time are not compatible"
GT_LT_NX = "ERR GT, LT, and/or NX options at the same time are not compatible"
INCR_PAIRS = "ERR INCR option supports a single increment-element pair"
MINMAX_FLOAT = "ERR min or max is not a float"
MINMAX_LEX = "ERR min or max not valid string range item"
LIMIT_ONLY = ("ERR syntax error, LIMIT is only supported in combination with either "
              "BYSCORE or BYLEX")
BYLEX_WITHSCORES = "ERR syntax error, WITHSCORES not supported in combination with BYLEX"


def zall(rc, key):
    return rc("ZRANGE", key, 0, -1, "WITHSCORES")


@pytest.fixture
def z5(rc):
    rc("ZADD", "z", 1, "a", 2, "b", 3, "c", 4, "d", 5, "e")
    return rc


@pytest.fixture
def lex(rc):
    rc("ZADD", "l", 0, "a", 0, "b", 0, "c", 0, "d", 0, "e", 0, "f", 0, "g")
    return rc


# ---------------------------------------------------------------- zadd

def test_zadd_basic_and_order(rc):
    assert rc("ZADD", "z", 3, "c", 1, "a", 2, "b") == 3
    assert rc("ZADD", "z", 2, "b", 1, "x") == 1  # b unchanged, x new
    assert rc("ZRANGE", "z", 0, -1) == ["a", "x", "b", "c"]  # ties ordered by member
    assert rc("ZCARD", "z") == 4
    assert rc("TYPE", "z") == "zset"
    assert rc("ZADD", "z", 10, "a") == 0  # update is not counted
    assert zall(rc, "z") == ["x", "1", "b", "2", "c", "3", "a", "10"]


def test_zadd_same_member_twice(rc):
    assert rc("ZADD", "z", 1, "a", 5, "a") == 1
    assert rc("ZSCORE", "z", "a") == "5"


def test_zadd_nx_xx(rc):
    rc("ZADD", "z", 1, "a")
    assert rc("ZADD", "z", "NX", 5, "a", 2, "b") == 1
    assert zall(rc, "z") == ["a", "1", "b", "2"]
    assert rc("ZADD", "z", "XX", 5, "a", 3, "c") == 0
    assert zall(rc, "z") == ["b", "2", "a", "5"]
    assert rc("ZADD", "nope", "XX", 1, "a") == 0
    assert rc("EXISTS", "nope") == 0


def test_zadd_gt_lt(rc):
    rc("ZADD", "z", 5, "a", 5, "b")
    assert rc("ZADD", "z", "GT", 4, "a", 6, "b", 1, "new") == 1  # new members are added
    assert zall(rc, "z") == ["new", "1", "a", "5", "b", "6"]
    assert rc("ZADD", "z", "LT", 4, "a", 7, "b") == 0
    assert zall(rc, "z") == ["new", "1", "a", "4", "b", "6"]
    assert rc("ZADD", "z", "XX", "GT", 10, "a", 10, "zz") == 0
    assert rc("ZSCORE", "z", "a") == "10"
    assert rc("ZSCORE", "z", "zz") is None


def test_zadd_ch(rc):
    rc("ZADD", "z", 1, "a", 2, "b")
    assert rc("ZADD", "z", "CH", 1, "a", 3, "b", 4, "c") == 2  # b changed, c added
    assert rc("ZADD", "z", "CH", "GT", 0, "a", 5, "b") == 1
    assert rc("ZADD", "z", "LT", "CH", 0, "a", 5, "b") == 1
    assert rc("ZADD", "z", "CH", "XX", 0, "a", 9, "d") == 0
    assert zall(rc, "z") == ["a", "0", "c", "4", "b", "5"]


def test_zadd_incr(rc):
    assert rc("ZADD", "z", "INCR", "1.5", "a") == "1.5"  # creates
    assert rc("ZADD", "z", "INCR", 2, "a") == "3.5"
    assert rc("ZADD", "z", "INCR", "-5", "a") == "-1.5"
    assert rc("ZADD", "z", "XX", "INCR", 1, "a") == "-0.5"
    assert rc("ZADD", "z", "GT", "INCR", 1, "a") == "0.5"
    assert rc("ZADD", "z", "CH", "INCR", 1, "a") == "1.5"


def test_zadd_incr_aborted_returns_nil(rc):
    rc("ZADD", "z", 1, "a")
    assert rc("ZADD", "z", "NX", "INCR", 1, "a") is None
    assert rc("ZADD", "z", "XX", "INCR", 1, "nope") is None
    assert rc("ZADD", "z", "GT", "INCR", -1, "a") is None
    assert rc("ZADD", "z", "LT", "INCR", 1, "a") is None
    assert zall(rc, "z") == ["a", "1"]
    assert rc("ZADD", "missing", "XX", "INCR", 1, "a") is None
    assert rc("EXISTS", "missing") == 0


def test_zadd_option_errors(rc):
    rc("ZADD", "z", 1, "a")
    assert rc.err("ZADD", "z", "XX", "NX", 1, "a") == XX_NX
    assert rc.err("ZADD", "z", "NX", "XX", "GT", 1, "a") == XX_NX
    assert rc.err("ZADD", "z", "GT", "LT", 1, "a") == GT_LT_NX
    assert rc.err("ZADD", "z", "GT", "NX", 1, "a") == GT_LT_NX
    assert rc.err("ZADD", "z", "LT", "NX", 1, "a") == GT_LT_NX
    assert rc.err("ZADD", "z", "INCR", 1, "a", 2, "b") == INCR_PAIRS
    assert rc.err("ZADD", "z", 1, "a", 2) == SYNTAX
    assert rc.err("ZADD", "z", "NX") == arity("zadd")
    assert rc.err("ZADD", "z", "NX", "XX") == SYNTAX
    assert rc.err("ZADD", "z", 1) == arity("zadd")
    assert zall(rc, "z") == ["a", "1"]


@pytest.mark.parametrize("score", ["nan", "abc", "1.5x", "", " 1", "1 "])
def test_zadd_invalid_score(rc, score):
    assert rc.err("ZADD", "z", score, "a") == NOT_FLOAT
    assert rc.err("ZADD", "z", 1, "ok", score, "a") == NOT_FLOAT
    assert rc("EXISTS", "z") == 0  # nothing added when any score is bad
    assert rc.err("ZADD", "z", "INCR", score, "a") == NOT_FLOAT


@pytest.mark.parametrize("given,shown", [
    ("1.5", "1.5"), ("-2.25", "-2.25"), ("10", "10"), ("1e2", "100"), ("+5", "5"),
    (".5", "0.5"), ("0", "0"), ("inf", "inf"), ("+inf", "inf"), ("-inf", "-inf"),
    ("0.30000000000000004", "0.30000000000000004"), ("123456789", "123456789"),
    ("0.125", "0.125"), ("-9007199254740992", "-9007199254740992"),
])
def test_score_formatting(rc, given, shown):
    rc("ZADD", "z", given, "m")
    assert rc("ZSCORE", "z", "m") == shown
    assert rc("ZMSCORE", "z", "m") == [shown]
    assert rc("ZRANGE", "z", 0, -1, "WITHSCORES") == ["m", shown]
    assert rc("ZRANGEBYSCORE", "z", "-inf", "+inf", "WITHSCORES") == ["m", shown]
    assert rc("ZPOPMIN", "z") == ["m", shown]


def test_score_formatting_17_significant_digits_from_arithmetic(rc):
    rc("ZADD", "z", "0.1", "m")
    assert rc("ZINCRBY", "z", "0.2", "m") == "0.30000000000000004"  # 0.1 + 0.2 in doubles
    assert rc("ZSCORE", "z", "m") == "0.30000000000000004"
    assert rc("ZADD", "z", "INCR", "0.5", "n") == "0.5"


@pytest.mark.redis8
@pytest.mark.parametrize("given,shown", [
    ("0.1", "0.1"), ("1.1", "1.1"), ("3.141592653589793", "3.141592653589793"),
    ("-0.7", "-0.7"), ("100.01", "100.01"),
])
def test_score_formatting_shortest_roundtrip(rc, given, shown):
    # Redis >= 7.2 prints the shortest string that reads back as the same double
    # (7.0 used %.17g: "0.10000000000000001")
    rc("ZADD", "z", given, "m")
    assert rc("ZSCORE", "z", "m") == shown
    assert rc("ZRANGE", "z", 0, -1, "WITHSCORES") == ["m", shown]


# ---------------------------------------------------------------- incr / rem / card

def test_zincrby(rc):
    assert rc("ZINCRBY", "z", 2, "a") == "2"
    assert rc("ZINCRBY", "z", "-0.5", "a") == "1.5"
    assert rc("ZINCRBY", "z", "inf", "a") == "inf"
    assert rc.err("ZINCRBY", "z", "-inf", "a") == "ERR resulting score is not a number (NaN)"
    assert rc("ZSCORE", "z", "a") == "inf"
    assert rc.err("ZINCRBY", "z", "abc", "a") == NOT_FLOAT
    assert rc.err("ZINCRBY", "z", "nan", "a") == NOT_FLOAT


def test_zrem(z5):
    rc = z5
    assert rc("ZREM", "z", "a", "zz", "a") == 1
    assert rc("ZREM", "z", "b", "c", "d", "e") == 4
    assert rc("EXISTS", "z") == 0
    assert rc("ZREM", "z", "a") == 0
    assert rc.err("ZREM", "z") == arity("zrem")


def test_zcard_zscore_zmscore(z5):
    rc = z5
    assert rc("ZCARD", "z") == 5
    assert rc("ZCARD", "nope") == 0
    assert rc("ZSCORE", "z", "c") == "3"
    assert rc("ZSCORE", "z", "zz") is None
    assert rc("ZSCORE", "nope", "a") is None
    assert rc("ZMSCORE", "z", "a", "zz", "e") == ["1", None, "5"]
    assert rc("ZMSCORE", "nope", "a", "b") == [None, None]
    assert rc.err("ZMSCORE", "z") == arity("zmscore")


# ---------------------------------------------------------------- counts and ranks

@pytest.mark.parametrize("lo,hi,n", [
    ("-inf", "+inf", 5), (2, 4, 3), ("(2", 4, 2), (2, "(4", 2), ("(2", "(4", 1),
    ("(1", "(2", 0), (4, 2, 0), ("-inf", 1, 1), ("(5", "+inf", 0), (5, "inf", 1),
    ("1.5", "2.5", 1), ("-inf", "-inf", 0),
])
def test_zcount(z5, lo, hi, n):
    assert z5("ZCOUNT", "z", lo, hi) == n


def test_zcount_errors_and_missing(z5):
    rc = z5
    assert rc("ZCOUNT", "nope", "-inf", "+inf") == 0
    assert rc.err("ZCOUNT", "z", "x", 1) == MINMAX_FLOAT
    assert rc.err("ZCOUNT", "z", 1, "((2") == MINMAX_FLOAT
    assert rc.err("ZCOUNT", "z", "nan", 1) == MINMAX_FLOAT


@pytest.mark.parametrize("lo,hi,n", [
    ("-", "+", 7), ("[b", "[d", 3), ("(b", "[d", 2), ("[b", "(d", 2), ("(b", "(d", 1),
    ("-", "[a", 1), ("(g", "+", 0), ("[d", "[b", 0), ("+", "-", 0), ("[aa", "[c", 2),
])
def test_zlexcount(lex, lo, hi, n):
    assert lex("ZLEXCOUNT", "l", lo, hi) == n


def test_zlexcount_errors(lex):
    rc = lex
    assert rc("ZLEXCOUNT", "nope", "-", "+") == 0
    assert rc.err("ZLEXCOUNT", "l", "a", "[c") == MINMAX_LEX
    assert rc.err("ZLEXCOUNT", "l", "[a", "c") == MINMAX_LEX
    assert rc.err("ZLEXCOUNT", "l", "", "+") == MINMAX_LEX


def test_zrank_zrevrank(z5):
    rc = z5
    assert rc("ZRANK", "z", "a") == 0
    assert rc("ZRANK", "z", "e") == 4
    assert rc("ZREVRANK", "z", "a") == 4
    assert rc("ZREVRANK", "z", "e") == 0
    assert rc("ZRANK", "z", "zz") is None
    assert rc("ZREVRANK", "z", "zz") is None
    assert rc("ZRANK", "nope", "a") is None


@pytest.mark.redis8
def test_zrank_withscore(z5):
    rc = z5
    assert rc("ZRANK", "z", "c", "WITHSCORE") == [2, "3"]
    assert rc("ZREVRANK", "z", "c", "WITHSCORE") == [2, "3"]
    assert rc("ZRANK", "z", "a", "withscore") == [0, "1"]
    assert rc("ZRANK", "z", "zz", "WITHSCORE") is None
    assert rc("ZRANK", "nope", "zz", "WITHSCORE") is None
    assert rc.err("ZRANK", "z", "a", "WITHSCORES") == SYNTAX


# ---------------------------------------------------------------- zrange by rank

@pytest.mark.parametrize("start,stop,expected", [
    (0, -1, ["a", "b", "c", "d", "e"]), (1, 2, ["b", "c"]), (-2, -1, ["d", "e"]),
    (-100, 0, ["a"]), (3, 100, ["d", "e"]), (3, 1, []), (5, 10, []), (-1, -2, []),
])
def test_zrange_by_rank(z5, start, stop, expected):
    assert z5("ZRANGE", "z", start, stop) == expected
    assert z5("ZRANGE", "z", start, stop, "REV") == (
        z5("ZREVRANGE", "z", start, stop))


def test_zrange_withscores_and_rev(z5):
    rc = z5
    assert rc("ZRANGE", "z", 0, 1, "WITHSCORES") == ["a", "1", "b", "2"]
    assert rc("ZRANGE", "z", 0, 1, "REV", "WITHSCORES") == ["e", "5", "d", "4"]
    assert rc("ZREVRANGE", "z", 0, -1) == ["e", "d", "c", "b", "a"]
    assert rc("ZREVRANGE", "z", 1, 2, "WITHSCORES") == ["d", "4", "c", "3"]
    assert rc("ZRANGE", "nope", 0, -1) == []
    assert rc.err("ZRANGE", "z", "a", -1) == NOT_INT


# ---------------------------------------------------------------- by score

def test_zrange_byscore(z5):
    rc = z5
    assert rc("ZRANGE", "z", 2, 4, "BYSCORE") == ["b", "c", "d"]
    assert rc("ZRANGE", "z", "(2", "+inf", "BYSCORE") == ["c", "d", "e"]
    assert rc("ZRANGE", "z", "-inf", "(2", "BYSCORE", "WITHSCORES") == ["a", "1"]
    assert rc("ZRANGE", "z", 4, 2, "BYSCORE") == []
    # REV takes max first
    assert rc("ZRANGE", "z", 4, 2, "BYSCORE", "REV") == ["d", "c", "b"]
    assert rc("ZRANGE", "z", 2, 4, "BYSCORE", "REV") == []
    assert rc("ZRANGE", "z", "+inf", "-inf", "BYSCORE", "REV", "LIMIT", 1, 2) == ["d", "c"]
    assert rc("ZRANGE", "z", "-inf", "+inf", "BYSCORE", "LIMIT", 1, 2, "WITHSCORES") == [
        "b", "2", "c", "3"]


def test_zrangebyscore_and_rev(z5):
    rc = z5
    assert rc("ZRANGEBYSCORE", "z", 2, 4) == ["b", "c", "d"]
    assert rc("ZRANGEBYSCORE", "z", "(1", "(5", "WITHSCORES") == [
        "b", "2", "c", "3", "d", "4"]
    assert rc("ZRANGEBYSCORE", "z", "-inf", "+inf", "LIMIT", 2, 2) == ["c", "d"]
    assert rc("ZRANGEBYSCORE", "z", "-inf", "+inf", "LIMIT", 3, -1) == ["d", "e"]
    assert rc("ZRANGEBYSCORE", "z", "-inf", "+inf", "LIMIT", 10, 5) == []
    assert rc("ZRANGEBYSCORE", "z", "-inf", "+inf", "LIMIT", -1, 5) == []
    assert rc("ZRANGEBYSCORE", "z", "-inf", "+inf", "LIMIT", 0, 0) == []
    assert rc("ZREVRANGEBYSCORE", "z", 4, 2) == ["d", "c", "b"]
    assert rc("ZREVRANGEBYSCORE", "z", "+inf", "(3", "WITHSCORES") == ["e", "5", "d", "4"]
    assert rc("ZREVRANGEBYSCORE", "z", "+inf", "-inf", "LIMIT", 1, 1) == ["d"]
    assert rc("ZREVRANGEBYSCORE", "z", 2, 4) == []
    assert rc("ZRANGEBYSCORE", "nope", "-inf", "+inf") == []


def test_byscore_errors(z5):
    rc = z5
    assert rc.err("ZRANGEBYSCORE", "z", "x", 1) == MINMAX_FLOAT
    assert rc.err("ZRANGE", "z", 1, "y", "BYSCORE") == MINMAX_FLOAT
    assert rc.err("ZREVRANGEBYSCORE", "z", 1, "(x") == MINMAX_FLOAT
    assert rc.err("ZRANGEBYSCORE", "z", 1, 2, "LIMIT", 1) == SYNTAX
    assert rc.err("ZRANGEBYSCORE", "z", 1, 2, "LIMIT", "a", 1) == NOT_INT
    assert rc.err("ZRANGEBYSCORE", "z", 1, 2, "WITHSCORE") == SYNTAX


# ---------------------------------------------------------------- by lex

def test_zrange_bylex(lex):
    rc = lex
    assert rc("ZRANGE", "l", "[b", "[d", "BYLEX") == ["b", "c", "d"]
    assert rc("ZRANGE", "l", "(b", "(d", "BYLEX") == ["c"]
    assert rc("ZRANGE", "l", "-", "+", "BYLEX", "LIMIT", 2, 3) == ["c", "d", "e"]
    assert rc("ZRANGE", "l", "[d", "[b", "BYLEX", "REV") == ["d", "c", "b"]
    assert rc("ZRANGE", "l", "[b", "[d", "BYLEX", "REV") == []
    assert rc("ZRANGE", "l", "+", "-", "BYLEX", "REV", "LIMIT", 0, 2) == ["g", "f"]
    assert rc("ZRANGEBYLEX", "l", "-", "[c") == ["a", "b", "c"]
    assert rc("ZRANGEBYLEX", "l", "[aa", "(c") == ["b"]
    assert rc("ZRANGEBYLEX", "l", "-", "+", "LIMIT", 5, 10) == ["f", "g"]
    assert rc("ZRANGEBYLEX", "l", "+", "-") == []
    assert rc("ZREVRANGEBYLEX", "l", "+", "(e") == ["g", "f"]
    assert rc("ZREVRANGEBYLEX", "l", "[c", "-", "LIMIT", 1, 1) == ["b"]
    assert rc("ZRANGEBYLEX", "nope", "-", "+") == []


def test_bylex_errors(lex):
    rc = lex
    assert rc.err("ZRANGEBYLEX", "l", "a", "+") == MINMAX_LEX
    assert rc.err("ZREVRANGEBYLEX", "l", "+", "b") == MINMAX_LEX
    assert rc.err("ZRANGE", "l", "b", "[c", "BYLEX") == MINMAX_LEX
    assert rc.err("ZRANGE", "l", "-", "+", "BYLEX", "WITHSCORES") == BYLEX_WITHSCORES
    assert rc.err("ZRANGEBYLEX", "l", "-", "+", "WITHSCORES") == BYLEX_WITHSCORES
    assert rc.err("ZRANGEBYLEX", "l", "-", "+", "LIMIT", 0) == SYNTAX


def test_zrange_option_errors(z5):
    rc = z5
    assert rc.err("ZRANGE", "z", 0, -1, "LIMIT", 0, 1) == LIMIT_ONLY
    assert rc.err("ZRANGE", "z", 0, -1, "REV", "LIMIT", 0, 1) == LIMIT_ONLY
    assert rc.err("ZRANGE", "z", 0, 5, "BYSCORE", "BYLEX") == SYNTAX
    assert rc.err("ZRANGE", "z", 0, 5, "BYSCORE", "LIMIT", 0) == SYNTAX
    assert rc.err("ZRANGE", "z", 0, 5, "BOGUS") == SYNTAX
    assert rc.err("ZRANGE", "z", 0) == arity("zrange")


# ---------------------------------------------------------------- zrangestore

def test_zrangestore(z5):
    rc = z5
    assert rc("ZRANGESTORE", "dst", "z", 1, 2) == 2
    assert zall(rc, "dst") == ["b", "2", "c", "3"]
    assert rc("ZRANGESTORE", "dst", "z", "(3", "+inf", "BYSCORE") == 2
    assert zall(rc, "dst") == ["d", "4", "e", "5"]
    assert rc("ZRANGESTORE", "dst", "z", 0, 1, "REV") == 2
    assert zall(rc, "dst") == ["d", "4", "e", "5"]
    assert rc("ZRANGESTORE", "dst", "z", "+inf", "-inf", "BYSCORE", "REV", "LIMIT", 0, 1) == 1
    assert zall(rc, "dst") == ["e", "5"]
    rc("ZADD", "lx", 0, "a", 0, "b", 0, "c")
    assert rc("ZRANGESTORE", "dst", "lx", "[b", "+", "BYLEX") == 2
    assert zall(rc, "dst") == ["b", "0", "c", "0"]


def test_zrangestore_empty_result_deletes_and_overwrites(z5):
    rc = z5
    rc("SET", "dst", "string")
    assert rc("ZRANGESTORE", "dst", "z", 0, 0) == 1
    assert rc("TYPE", "dst") == "zset"
    assert rc("ZRANGESTORE", "dst", "z", 10, 20) == 0
    assert rc("EXISTS", "dst") == 0
    rc("ZADD", "dst", 1, "x")
    assert rc("ZRANGESTORE", "dst", "nope", 0, -1) == 0
    assert rc("EXISTS", "dst") == 0
    assert rc.err("ZRANGESTORE", "dst", "z", 0, -1, "WITHSCORES") == SYNTAX
    rc("SET", "str", "v")
    assert rc.err("ZRANGESTORE", "dst", "str", 0, -1) == WRONGTYPE


# ---------------------------------------------------------------- removal by range

def test_zremrangebyrank(z5):
    rc = z5
    assert rc("ZREMRANGEBYRANK", "z", 0, 1) == 2
    assert rc("ZRANGE", "z", 0, -1) == ["c", "d", "e"]
    assert rc("ZREMRANGEBYRANK", "z", -1, -1) == 1
    assert rc("ZREMRANGEBYRANK", "z", 5, 10) == 0
    assert rc("ZREMRANGEBYRANK", "z", 1, 0) == 0
    assert rc("ZREMRANGEBYRANK", "z", 0, -1) == 2
    assert rc("EXISTS", "z") == 0
    assert rc("ZREMRANGEBYRANK", "z", 0, -1) == 0


def test_zremrangebyscore(z5):
    rc = z5
    assert rc("ZREMRANGEBYSCORE", "z", "(1", 3) == 2
    assert rc("ZRANGE", "z", 0, -1) == ["a", "d", "e"]
    assert rc("ZREMRANGEBYSCORE", "z", 10, 20) == 0
    assert rc("ZREMRANGEBYSCORE", "z", "-inf", "(5") == 2
    assert rc("ZREMRANGEBYSCORE", "z", "-inf", "+inf") == 1
    assert rc("EXISTS", "z") == 0
    assert rc.err("ZREMRANGEBYSCORE", "z", "a", 1) == MINMAX_FLOAT


def test_zremrangebylex(lex):
    rc = lex
    assert rc("ZREMRANGEBYLEX", "l", "[b", "(d") == 2
    assert rc("ZRANGE", "l", 0, -1) == ["a", "d", "e", "f", "g"]
    assert rc("ZREMRANGEBYLEX", "l", "(f", "+") == 1
    assert rc("ZREMRANGEBYLEX", "l", "-", "+") == 4
    assert rc("EXISTS", "l") == 0
    assert rc.err("ZREMRANGEBYLEX", "l", "b", "+") == MINMAX_LEX


# ---------------------------------------------------------------- pops

def test_zpopmin_zpopmax(z5):
    rc = z5
    assert rc("ZPOPMIN", "z") == ["a", "1"]
    assert rc("ZPOPMAX", "z") == ["e", "5"]
    assert rc("ZPOPMIN", "z", 2) == ["b", "2", "c", "3"]
    assert rc("ZPOPMAX", "z", 10) == ["d", "4"]
    assert rc("EXISTS", "z") == 0
    assert rc("ZPOPMIN", "z") == []
    assert rc("ZPOPMAX", "z", 3) == []


def test_zpop_count_zero_and_errors(z5):
    rc = z5
    assert rc("ZPOPMIN", "z", 0) == []
    assert rc("ZCARD", "z") == 5
    assert rc.err("ZPOPMIN", "z", -1) == OUT_OF_RANGE_POSITIVE
    assert rc.err("ZPOPMAX", "z", "x") == OUT_OF_RANGE_POSITIVE
    assert rc.err("ZPOPMIN", "z", 1, 2) == SYNTAX
    assert rc("ZCARD", "z") == 5


def test_redis_py_zpop(r):
    r.zadd("z", {"a": 1, "b": 2.5})
    assert r.zpopmax("z") == [("b", 2.5)]
    assert r.zpopmin("z", 5) == [("a", 1.0)]


def test_zmpop(rc):
    rc("ZADD", "z2", 1, "a", 2, "b", 3, "c")
    assert rc("ZMPOP", 2, "z1", "z2", "MIN") == ["z2", [["a", "1"]]]
    assert rc("ZMPOP", 2, "z1", "z2", "MAX", "COUNT", 10) == ["z2", [["c", "3"], ["b", "2"]]]
    assert rc("EXISTS", "z2") == 0
    assert rc("ZMPOP", 2, "z1", "z2", "MIN") is None
    rc("ZADD", "z3", "1.5", "x", "-inf", "y")
    assert rc("ZMPOP", 1, "z3", "min", "count", 1) == ["z3", [["y", "-inf"]]]


def test_zmpop_errors(rc):
    rc("ZADD", "z", 1, "a")
    assert rc.err("ZMPOP", 0, "z", "MIN") == "ERR numkeys should be greater than 0"
    assert rc.err("ZMPOP", -1, "z", "MIN") == "ERR numkeys should be greater than 0"
    assert rc.err("ZMPOP", 1, "z", "MIN", "COUNT", 0) == "ERR count should be greater than 0"
    assert rc.err("ZMPOP", 1, "z", "LEFT") == SYNTAX
    assert rc.err("ZMPOP", 2, "z", "MIN") == SYNTAX
    assert rc.err("ZMPOP", 1, "z", "MIN", "COUNT") == SYNTAX
    assert rc.err("ZMPOP", 1, "z") == arity("zmpop")
    rc("SET", "str", "v")
    assert rc.err("ZMPOP", 2, "str", "z", "MIN") == WRONGTYPE
    assert zall(rc, "z") == ["a", "1"]


# ---------------------------------------------------------------- zrandmember

def test_zrandmember(z5):
    rc = z5
    names = {"a", "b", "c", "d", "e"}
    for _ in range(5):
        assert rc("ZRANDMEMBER", "z") in names
    assert rc("ZRANDMEMBER", "nope") is None
    got = rc("ZRANDMEMBER", "z", 3)
    assert len(set(got)) == 3 and set(got) <= names
    assert sorted(rc("ZRANDMEMBER", "z", 9)) == sorted(names)
    got = rc("ZRANDMEMBER", "z", -12)
    assert len(got) == 12 and set(got) <= names
    scores = {"a": "1", "b": "2", "c": "3", "d": "4", "e": "5"}
    flat = rc("ZRANDMEMBER", "z", -7, "WITHSCORES")
    assert len(flat) == 14
    assert all(scores[m] == s for m, s in zip(flat[0::2], flat[1::2]))
    flat = rc("ZRANDMEMBER", "z", 5, "WITHSCORES")
    assert dict(zip(flat[0::2], flat[1::2])) == scores
    assert rc("ZRANDMEMBER", "z", 0) == []
    assert rc("ZRANDMEMBER", "nope", 3) == []
    assert rc("ZRANDMEMBER", "nope", -3, "WITHSCORES") == []
    assert rc.err("ZRANDMEMBER", "z", "x") == NOT_INT
    assert rc.err("ZRANDMEMBER", "z", 1, "WITHSCORE") == SYNTAX


# ---------------------------------------------------------------- set algebra

@pytest.fixture
def zab(rc):
    rc("ZADD", "a", 1, "x", 2, "y", 3, "z")
    rc("ZADD", "b", 10, "y", 20, "z", 30, "w")
    return rc


def test_zunion_zinter_zdiff(zab):
    rc = zab
    assert rc("ZUNION", 2, "a", "b") == ["x", "y", "z", "w"]
    assert rc("ZUNION", 2, "a", "b", "WITHSCORES") == [
        "x", "1", "y", "12", "z", "23", "w", "30"]
    assert rc("ZINTER", 2, "a", "b", "WITHSCORES") == ["y", "12", "z", "23"]
    assert rc("ZDIFF", 2, "a", "b", "WITHSCORES") == ["x", "1"]
    assert rc("ZDIFF", 2, "b", "a") == ["w"]
    assert rc("ZDIFF", 1, "a") == ["x", "y", "z"]
    assert rc("ZINTER", 2, "a", "nope") == []
    assert rc("ZUNION", 2, "nope", "nope2") == []
    assert rc("ZDIFF", 2, "nope", "a") == []


def test_weights_and_aggregate(zab):
    rc = zab
    assert rc("ZUNION", 2, "a", "b", "WEIGHTS", 2, "0.5", "WITHSCORES") == [
        "x", "2", "y", "9", "w", "15", "z", "16"]
    assert rc("ZUNION", 2, "a", "b", "AGGREGATE", "MIN", "WITHSCORES") == [
        "x", "1", "y", "2", "z", "3", "w", "30"]
    assert rc("ZUNION", 2, "a", "b", "AGGREGATE", "max", "WITHSCORES") == [
        "x", "1", "y", "10", "z", "20", "w", "30"]
    assert rc("ZINTER", 2, "a", "b", "WEIGHTS", 1, -1, "AGGREGATE", "SUM",
              "WITHSCORES") == ["z", "-17", "y", "-8"]
    assert rc("ZINTER", 2, "a", "b", "AGGREGATE", "MAX", "WEIGHTS", 100, 1,
              "WITHSCORES") == ["y", "200", "z", "300"]


def test_inf_and_nan_in_aggregation(rc):
    rc("ZADD", "p", "inf", "x", 1, "y")
    rc("ZADD", "n", "-inf", "x", 2, "y")
    # inf + -inf is NaN, which Redis turns into 0; so is inf * weight 0
    assert rc("ZUNION", 2, "p", "n", "WITHSCORES") == ["x", "0", "y", "3"]
    assert rc("ZUNION", 1, "p", "WEIGHTS", 0, "WITHSCORES") == ["x", "0", "y", "0"]
    assert rc("ZINTER", 2, "p", "n", "AGGREGATE", "MAX", "WITHSCORES") == [
        "y", "2", "x", "inf"]
    assert rc("ZINTER", 2, "p", "n", "AGGREGATE", "MIN", "WITHSCORES") == [
        "x", "-inf", "y", "1"]


def test_sets_as_inputs_score_1(rc):
    rc("SADD", "s", "x", "y", "q")
    rc("ZADD", "z", 5, "x", 6, "y")
    assert rc("ZUNION", 2, "s", "z", "WITHSCORES") == ["q", "1", "x", "6", "y", "7"]
    assert rc("ZINTER", 2, "s", "z", "WEIGHTS", 3, 1, "WITHSCORES") == [
        "x", "8", "y", "9"]
    assert rc("ZDIFF", 2, "s", "z", "WITHSCORES") == ["q", "1"]
    assert rc("ZUNIONSTORE", "dst", 1, "s", "WEIGHTS", "2.5") == 3
    assert zall(rc, "dst") == ["q", "2.5", "x", "2.5", "y", "2.5"]
    rc("SADD", "ints", 1, 2)  # an intset input
    assert rc("ZINTERSTORE", "dst2", 2, "ints", "ints") == 2
    assert zall(rc, "dst2") == ["1", "2", "2", "2"]
    assert rc("ZINTERCARD", 2, "s", "z") == 2


def test_store_variants(zab):
    rc = zab
    assert rc("ZUNIONSTORE", "d", 2, "a", "b") == 4
    assert zall(rc, "d") == ["x", "1", "y", "12", "z", "23", "w", "30"]
    assert rc("ZINTERSTORE", "d", 2, "a", "b", "WEIGHTS", 2, 1) == 2
    assert zall(rc, "d") == ["y", "14", "z", "26"]
    assert rc("ZINTERSTORE", "d", 2, "a", "b", "AGGREGATE", "MIN") == 2
    assert zall(rc, "d") == ["y", "2", "z", "3"]
    assert rc("ZDIFFSTORE", "d", 2, "b", "a") == 1
    assert zall(rc, "d") == ["w", "30"]
    assert rc("ZUNIONSTORE", "a", 2, "a", "b", "AGGREGATE", "MAX") == 4  # dst is a source
    assert zall(rc, "a") == ["x", "1", "y", "10", "z", "20", "w", "30"]


@pytest.mark.parametrize("cmd,args", [
    ("ZINTERSTORE", (2, "a", "nope")), ("ZUNIONSTORE", (1, "nope")),
    ("ZDIFFSTORE", (2, "a", "a")), ("ZDIFFSTORE", (1, "nope")),
])
def test_store_empty_result_deletes_destination(zab, cmd, args):
    rc = zab
    rc("ZADD", "d", 1, "old")
    assert rc(cmd, "d", *args) == 0
    assert rc("EXISTS", "d") == 0


def test_store_overwrites_other_types(zab):
    rc = zab
    rc("SET", "d", "string")
    assert rc("ZUNIONSTORE", "d", 1, "a") == 3
    assert rc("TYPE", "d") == "zset"
    rc("RPUSH", "d2", "x")
    assert rc("ZDIFFSTORE", "d2", 1, "b") == 3
    assert rc("TYPE", "d2") == "zset"


def test_algebra_errors(zab):
    rc = zab
    assert rc.err("ZUNIONSTORE", "d", 0, "a") == (
        "ERR at least 1 input key is needed for 'zunionstore' command")
    assert rc.err("ZINTER", 0, "a") == "ERR at least 1 input key is needed for 'zinter' command"
    assert rc.err("ZUNION", 3, "a", "b") == SYNTAX
    assert rc.err("ZUNION", 2, "a", "b", "WEIGHTS", 1) == SYNTAX
    assert rc.err("ZUNION", 2, "a", "b", "WEIGHTS", 1, 2, 3) == SYNTAX
    assert rc.err("ZUNION", 2, "a", "b", "WEIGHTS", 1, "x") == "ERR weight value is not a float"
    assert rc.err("ZUNION", 2, "a", "b", "AGGREGATE", "AVG") == SYNTAX
    assert rc.err("ZDIFF", 2, "a", "b", "WEIGHTS", 1, 1) == SYNTAX
    assert rc.err("ZDIFF", 2, "a", "b", "AGGREGATE", "SUM") == SYNTAX
    assert rc.err("ZUNIONSTORE", "d", 2, "a", "b", "WITHSCORES") == SYNTAX
    assert rc.err("ZUNION", "x", "a") == NOT_INT
    rc("SET", "str", "v")
    rc("RPUSH", "list", "v")
    for bad in ("str", "list"):
        assert rc.err("ZUNION", 2, "a", bad) == WRONGTYPE
        assert rc.err("ZINTERSTORE", "d", 2, bad, "a") == WRONGTYPE
        assert rc.err("ZDIFF", 2, "a", bad) == WRONGTYPE
    assert rc("EXISTS", "d") == 0


def test_zintercard(zab):
    rc = zab
    assert rc("ZINTERCARD", 2, "a", "b") == 2
    assert rc("ZINTERCARD", 2, "a", "b", "LIMIT", 1) == 1
    assert rc("ZINTERCARD", 2, "a", "b", "LIMIT", 0) == 2
    assert rc("ZINTERCARD", 1, "a") == 3
    assert rc("ZINTERCARD", 2, "a", "nope") == 0
    assert rc.err("ZINTERCARD", 0, "a") == (
        "ERR at least 1 input key is needed for 'zintercard' command")
    assert rc.err("ZINTERCARD", 2, "a", "b", "LIMIT", -1) == "ERR LIMIT can't be negative"
    assert rc.err("ZINTERCARD", 3, "a", "b") == SYNTAX
    rc("SET", "str", "v")
    assert rc.err("ZINTERCARD", 2, "a", "str") == WRONGTYPE


def test_redis_py_zset_algebra(r):
    r.zadd("a", {"x": 1, "y": 2})
    r.zadd("b", {"y": 3})
    assert r.zunion(["a", "b"], withscores=True) == [("x", 1.0), ("y", 5.0)]
    assert r.zinterstore("d", {"a": 2, "b": 1}, aggregate="MAX") == 1
    assert r.zrange("d", 0, -1, withscores=True) == [("y", 4.0)]


# ---------------------------------------------------------------- zscan

def full_zscan(rc, key, *opts):
    cursor, seen = "0", {}
    for _ in range(10000):
        cursor, flat = rc("ZSCAN", key, cursor, *opts)
        seen.update(zip(flat[0::2], flat[1::2]))
        if cursor == "0":
            return seen
    raise AssertionError("ZSCAN did not terminate")


@pytest.mark.parametrize("n", [20, 1000])
def test_zscan(rc, n):
    rc("ZADD", "z", *[x for i in range(n) for x in (i, f"m{i}")])
    got = full_zscan(rc, "z", "COUNT", 30)
    assert got == {f"m{i}": str(i) for i in range(n)}
    got = full_zscan(rc, "z", "MATCH", "m1*")
    assert set(got) == {f"m{i}" for i in range(n) if str(i).startswith("1")}


def test_zscan_small_single_call_and_errors(rc):
    rc("ZADD", "z", "1.5", "a", 2, "b")
    assert rc("ZSCAN", "z", 0) == ["0", ["a", "1.5", "b", "2"]]
    assert rc("ZSCAN", "nope", 0) == ["0", []]
    assert rc.err("ZSCAN", "z", "x") == "ERR invalid cursor"
    assert rc.err("ZSCAN", "z", 0, "COUNT", 0) == SYNTAX


# ---------------------------------------------------------------- encodings

def test_encoding_listpack_to_skiplist_at_129_members(rc):
    rc("ZADD", "z", *[x for i in range(128) for x in (i, f"m{i}")])
    assert rc("OBJECT", "ENCODING", "z") == "listpack"
    rc("ZADD", "z", 5, "m0")
    assert rc("OBJECT", "ENCODING", "z") == "listpack"
    rc("ZADD", "z", 128, "m128")
    assert rc("OBJECT", "ENCODING", "z") == "skiplist"
    assert rc("ZCARD", "z") == 129
    assert rc("ZRANGE", "z", 0, 2) == ["m1", "m2", "m3"]
    assert rc("ZRANK", "z", "m0") == 4


def test_encoding_skiplist_for_long_member(rc):
    rc("ZADD", "z", 1, "x" * 64)
    assert rc("OBJECT", "ENCODING", "z") == "listpack"
    rc("ZADD", "z", 2, "y" * 65)
    assert rc("OBJECT", "ENCODING", "z") == "skiplist"
    assert rc("ZRANGE", "z", 0, -1) == ["x" * 64, "y" * 65]
    rc("ZINCRBY", "z2", 1, "w" * 100)
    assert rc("OBJECT", "ENCODING", "z2") == "skiplist"
    # XX that adds no long member keeps the listpack (Redis 7.0 and 8.8 alike).
    rc("ZADD", "z3", 1, "a")
    assert rc("ZADD", "z3", "XX", "CH", 2, "a", 3, "y" * 70) == 1
    assert rc("OBJECT", "ENCODING", "z3") == "listpack"
    assert rc("GEOADD", "z3", "XX", 1, 1, "y" * 70) == 0
    assert rc("OBJECT", "ENCODING", "z3") == "listpack"


def test_store_results_encoding(rc):
    rc("ZADD", "big", *[x for i in range(200) for x in (i, f"m{i}")])
    assert rc("ZRANGESTORE", "small", "big", 0, 9) == 10
    assert rc("OBJECT", "ENCODING", "small") == "listpack"
    assert rc("ZUNIONSTORE", "copy", 1, "big") == 200
    assert rc("OBJECT", "ENCODING", "copy") == "skiplist"
    assert rc("ZRANGE", "copy", 0, -1, "WITHSCORES") == rc("ZRANGE", "big", 0, -1,
                                                           "WITHSCORES")


def test_skiplist_operations(rc):
    n = 1000
    rc("ZADD", "z", *[x for i in range(n) for x in (i * 2, f"m{i:04d}")])
    assert rc("OBJECT", "ENCODING", "z") == "skiplist"
    assert rc("ZRANK", "z", "m0500") == 500
    assert rc("ZREVRANK", "z", "m0500") == 499
    assert rc("ZCOUNT", "z", 100, "(200") == 50
    assert rc("ZRANGEBYSCORE", "z", 1, 5) == ["m0001", "m0002"]
    assert rc("ZRANGE", "z", -2, -1, "WITHSCORES") == ["m0998", "1996", "m0999", "1998"]
    assert rc("ZREMRANGEBYRANK", "z", 0, 99) == 100
    assert rc("ZCARD", "z") == 900
    assert rc("ZPOPMIN", "z") == ["m0100", "200"]
    assert rc("ZINCRBY", "z", -1000, "m0999") == "998"
    # 398 members score below 998; m0499 also scores 998 and sorts before m0999
    assert rc("ZRANK", "z", "m0999") == 399


# ---------------------------------------------------------------- RESP3

def test_resp3_reply_types(server, r):
    r.zadd("z", {"a": 1.5, "b": 4, "i": float("inf"), "j": float("-inf")})
    conn = resp3_connection(server)
    try:
        assert conn.command("ZSCORE", "z", "a") == double("1.5")
        assert conn.command("ZSCORE", "z", "i") == double("inf")
        assert conn.command("ZSCORE", "z", "q") is None
        assert conn.command("ZMSCORE", "z", "j", "q") == [double("-inf"), None]
        assert conn.command("ZINCRBY", "z", 1, "b") == double("5")
        assert conn.command("ZADD", "z", "INCR", 1, "b") == double("6")
        assert conn.command("ZADD", "z", "NX", "INCR", 1, "b") is None
        pairs = [[b"j", double("-inf")], [b"a", double("1.5")], [b"b", double("6")],
                 [b"i", double("inf")]]
        assert conn.command("ZRANGE", "z", 0, -1, "WITHSCORES") == pairs
        assert conn.command("ZRANGE", "z", 0, -1) == [b"j", b"a", b"b", b"i"]
        assert conn.command("ZRANGEBYSCORE", "z", 1, 10, "WITHSCORES") == pairs[1:3]
        assert conn.command("ZREVRANGE", "z", 0, 0, "WITHSCORES") == [pairs[3]]
        assert conn.command("ZUNION", 1, "z", "WITHSCORES") == pairs
        assert conn.command("ZRANDMEMBER", "z", -2, "WITHSCORES")[0] in pairs
        assert conn.command("ZSCAN", "z", 0)[1][:2] == [b"j", b"-inf"]  # plain strings
        assert conn.command("ZPOPMIN", "z") == [b"j", double("-inf")]  # one flat pair
        assert conn.command("ZPOPMIN", "z", 1) == [[b"a", double("1.5")]]  # pairs
        assert conn.command("ZPOPMAX", "nope") == []
        assert conn.command("ZMPOP", 1, "z", "MAX") == [b"z", [[b"i", double("inf")]]]
        assert conn.command("ZMPOP", 1, "nope", "MAX") is None
    finally:
        conn.close()


# ---------------------------------------------------------------- wrong type

ZSET_COMMANDS = [
    ("ZADD", "k", 1, "a"), ("ZINCRBY", "k", 1, "a"), ("ZREM", "k", "a"), ("ZCARD", "k"),
    ("ZCOUNT", "k", 0, 1), ("ZLEXCOUNT", "k", "-", "+"), ("ZSCORE", "k", "a"),
    ("ZMSCORE", "k", "a"), ("ZRANK", "k", "a"), ("ZREVRANK", "k", "a"),
    ("ZRANGE", "k", 0, -1), ("ZRANGE", "k", 0, 1, "BYSCORE"), ("ZRANGESTORE", "d", "k", 0, 1),
    ("ZRANGEBYSCORE", "k", 0, 1), ("ZREVRANGEBYSCORE", "k", 1, 0),
    ("ZRANGEBYLEX", "k", "-", "+"), ("ZREVRANGEBYLEX", "k", "+", "-"),
    ("ZREVRANGE", "k", 0, 1), ("ZREMRANGEBYRANK", "k", 0, 1),
    ("ZREMRANGEBYSCORE", "k", 0, 1), ("ZREMRANGEBYLEX", "k", "-", "+"), ("ZPOPMIN", "k"),
    ("ZPOPMAX", "k", 2), ("ZMPOP", 1, "k", "MIN"), ("ZRANDMEMBER", "k"),
    ("ZRANDMEMBER", "k", 2), ("ZUNION", 1, "k"), ("ZINTER", 1, "k"), ("ZDIFF", 1, "k"),
    ("ZUNIONSTORE", "d", 1, "k"), ("ZINTERSTORE", "d", 1, "k"), ("ZDIFFSTORE", "d", 1, "k"),
    ("ZINTERCARD", 1, "k"), ("ZSCAN", "k", 0), ("BZPOPMIN", "k", "0.01"),
    ("BZPOPMAX", "k", "0.01"), ("BZMPOP", "0.01", 1, "k", "MAX"),
]


@pytest.mark.parametrize("holder", [("SET", "k", "v"), ("RPUSH", "k", "a"),
                                    ("HSET", "k", "f", "v")],
                         ids=["string", "list", "hash"])
@pytest.mark.parametrize("command", ZSET_COMMANDS, ids=lambda c: c[0] + str(len(c)))
def test_wrongtype(rc, holder, command):
    rc(*holder)
    assert rc.err(*command) == WRONGTYPE
    assert rc("EXISTS", "d") == 0
