"""Redis 8 behaviour of the landed families that Redis 7.0 does not have (found by
scripts/diff_command_docs.py against Redis 8.8, each checked by hand against Redis 8.8):
ZUNION/ZINTER[STORE] AGGREGATE COUNT, and the COMMAND DOCS shapes Redis 8.8 gives
(AGGREGATE's COUNT, HGETDEL's FIELDS block, no ZSCAN NOSCORES)."""
import pytest

from conftest import cmd, error_reply

pytestmark = pytest.mark.redis8

SYNTAX = "ERR syntax error"


@pytest.fixture
def zab(r):
    r.zadd("a", {"x": 1, "y": 2, "z": 3})
    r.zadd("b", {"y": 10, "z": 20, "w": 30})
    r.sadd("s", "z", "w", "q")
    return r


# ---------------------------------------------------------------- AGGREGATE COUNT

def test_aggregate_count_counts_the_inputs_holding_each_member(zab):
    r = zab
    assert cmd(r, "ZUNION", 2, "a", "b", "AGGREGATE", "COUNT", "WITHSCORES") == [
        "w", "1", "x", "1", "y", "2", "z", "2"]
    assert cmd(r, "ZINTER", 2, "a", "b", "AGGREGATE", "count", "WITHSCORES") == [
        "y", "2", "z", "2"]
    # A plain set is an input like any other.
    assert cmd(r, "ZUNION", 3, "a", "b", "s", "AGGREGATE", "COUNT", "WITHSCORES") == [
        "q", "1", "x", "1", "w", "2", "y", "2", "z", "3"]
    assert cmd(r, "ZINTER", 2, "a", "s", "AGGREGATE", "COUNT", "WITHSCORES") == ["z", "2"]
    assert cmd(r, "ZUNION", 2, "a", "b", "AGGREGATE", "COUNT") == ["w", "x", "y", "z"]


def test_aggregate_count_sums_the_weights(zab):
    r = zab
    assert cmd(r, "ZUNION", 2, "a", "b", "WEIGHTS", 2, 3, "AGGREGATE", "COUNT",
               "WITHSCORES") == ["x", "2", "w", "3", "y", "5", "z", "5"]
    assert cmd(r, "ZINTER", 2, "a", "b", "AGGREGATE", "COUNT", "WEIGHTS", 2, 3,
               "WITHSCORES") == ["y", "5", "z", "5"]
    assert cmd(r, "ZUNION", 2, "a", "b", "WEIGHTS", -1, "0.5", "AGGREGATE", "COUNT",
               "WITHSCORES") == ["x", "-1", "y", "-0.5", "z", "-0.5", "w", "0.5"]
    assert cmd(r, "ZUNION", 2, "a", "b", "WEIGHTS", 0, 0, "AGGREGATE", "COUNT",
               "WITHSCORES") == ["w", "0", "x", "0", "y", "0", "z", "0"]
    # inf + -inf is 0, as for SUM; the scores themselves never matter.
    assert cmd(r, "ZUNION", 2, "a", "b", "WEIGHTS", "inf", "-inf", "AGGREGATE", "COUNT",
               "WITHSCORES") == ["w", "-inf", "y", "0", "z", "0", "x", "inf"]
    assert cmd(r, "ZUNION", 2, "a", "b", "WEIGHTS", "1e308", "1e308", "AGGREGATE", "COUNT",
               "WITHSCORES") == ["w", "1e+308", "x", "1e+308", "y", "inf", "z", "inf"]
    r.zadd("infs", {"x": float("inf"), "y": float("-inf")})
    assert cmd(r, "ZUNION", 2, "a", "infs", "AGGREGATE", "COUNT", "WITHSCORES") == [
        "z", "1", "x", "2", "y", "2"]


def test_aggregate_count_store_forms(zab):
    r = zab
    assert cmd(r, "ZUNIONSTORE", "d", 2, "a", "b", "AGGREGATE", "COUNT") == 4
    assert cmd(r, "ZRANGE", "d", 0, -1, "WITHSCORES") == [
        "w", "1", "x", "1", "y", "2", "z", "2"]
    assert cmd(r, "ZINTERSTORE", "d", 2, "a", "b", "AGGREGATE", "COUNT", "WEIGHTS", 5, 7) == 2
    assert cmd(r, "ZRANGE", "d", 0, -1, "WITHSCORES") == ["y", "12", "z", "12"]
    # The last AGGREGATE wins.
    assert cmd(r, "ZUNION", 2, "a", "b", "AGGREGATE", "COUNT", "AGGREGATE", "SUM",
               "WITHSCORES") == ["x", "1", "y", "12", "z", "23", "w", "30"]
    assert cmd(r, "ZUNION", 2, "a", "b", "AGGREGATE", "SUM", "AGGREGATE", "COUNT",
               "WITHSCORES") == ["w", "1", "x", "1", "y", "2", "z", "2"]


def test_aggregate_count_errors(zab):
    r = zab
    assert error_reply(r, "ZUNION", 2, "a", "b", "AGGREGATE", "CNT") == SYNTAX
    assert error_reply(r, "ZUNION", 2, "a", "b", "AGGREGATE") == SYNTAX
    assert error_reply(r, "ZDIFF", 2, "a", "b", "AGGREGATE", "COUNT") == SYNTAX
    assert error_reply(r, "ZINTERCARD", 2, "a", "b", "AGGREGATE", "COUNT") == SYNTAX
    assert error_reply(r, "ZUNION", 2, "a", "b", "WEIGHTS", "nan", 1, "AGGREGATE",
                       "COUNT") == "ERR weight value is not a float"
    r.set("str", "v")
    assert error_reply(r, "ZUNION", 2, "a", "str", "AGGREGATE", "COUNT") == (
        "WRONGTYPE Operation against a key holding the wrong kind of value")


# ---------------------------------------------------------------- COMMAND DOCS

def docs_args(r, name):
    pool = r.connection_pool
    conn = pool.get_connection("COMMAND")
    try:
        conn.send_command("COMMAND", "DOCS", name)
        doc = conn.read_response()[1]
    finally:
        pool.release(conn)
    doc = dict(zip(doc[0::2], doc[1::2]))

    def tree(args):
        out = []
        for a in args:
            d = dict(zip(a[0::2], a[1::2]))
            out.append((d["name"], d["type"], d.get("token"), sorted(d.get("flags", [])),
                        tree(d["arguments"]) if "arguments" in d else None))
        return out

    return tree(doc["arguments"])


def test_docs_hgetdel_fields_block(r):
    assert docs_args(r, "hgetdel") == [
        ("key", "key", None, [], None),
        ("fields", "block", "FIELDS", [], [("numfields", "integer", None, [], None),
                                           ("field", "string", None, ["multiple"], None)]),
    ]


def test_docs_aggregate_has_count(r):
    for name in ("zunion", "zinter", "zunionstore", "zinterstore"):
        aggregate = [a for a in docs_args(r, name) if a[0] == "aggregate"][0]
        assert aggregate[:4] == ("aggregate", "oneof", "AGGREGATE", ["optional"])
        assert [c[2] for c in aggregate[4]] == ["SUM", "MIN", "MAX", "COUNT"], name


def test_docs_zscan_has_no_noscores(r):
    assert [a[2] for a in docs_args(r, "zscan")] == [None, None, "MATCH", "COUNT"]
