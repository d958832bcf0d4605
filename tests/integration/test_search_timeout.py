"""TIMEOUT on FT.SEARCH / FT.AGGREGATE and FT.CONFIG TIMEOUT / ON_TIMEOUT RETURN|FAIL
(search/query_exec.cc checks the deadline in its loops). Replies and error texts as
Redis 8.8 + RediSearch 2.10.

The timed-out cases use a query that costs tens of milliseconds on 10,000 documents (a
union of nine prefix expansions over every document) with TIMEOUT 1: it can only get
slower on a loaded machine, so the limit is always passed (no timing decides a pass)."""
import pytest

from conftest import error_reply

N = 10000
HEAVY = "|".join("w%d*" % d for d in range(1, 10))
LOAD = """
for i = 1, tonumber(ARGV[1]) do
  local w = {}
  for j = 1, 8 do w[j] = 'w' .. ((i * 7919 + j * 104729) % 3001) end
  redis.call('HSET', 'tmo:' .. i, 't', table.concat(w, ' '), 'n', i)
end
return 1
"""


def ft(r, *args):
    return r.execute_command(*args)


@pytest.fixture
def tmo(r):
    ft(r, "FT.CREATE", "tmo", "PREFIX", "1", "tmo:", "SCHEMA", "t", "TEXT",
       "n", "NUMERIC", "SORTABLE")
    r.eval(LOAD, 0, N)
    try:
        yield r
    finally:
        ft(r, "FT.CONFIG", "SET", "ON_TIMEOUT", "RETURN")
        ft(r, "FT.CONFIG", "SET", "TIMEOUT", "500")
        ft(r, "FT.DROPINDEX", "tmo", "DD")


def test_timeout_config_and_errors(r):
    try:
        assert ft(r, "FT.CONFIG", "GET", "ON_TIMEOUT") == [["ON_TIMEOUT", "return"]]
        assert ft(r, "FT.CONFIG", "SET", "ON_TIMEOUT", "FAIL") == "OK"
        assert ft(r, "FT.CONFIG", "GET", "ON_TIMEOUT") == [["ON_TIMEOUT", "fail"]]
        assert error_reply(r, "FT.CONFIG", "SET", "ON_TIMEOUT", "bad") == \
            "Invalid ON_TIMEOUT value"
        assert error_reply(r, "FT.CONFIG", "SET", "TIMEOUT", "-1") == \
            "Value is outside acceptable bounds"
        assert error_reply(r, "FT.CONFIG", "SET", "TIMEOUT", "x") == \
            "Could not convert argument to expected type"
        assert ft(r, "FT.CONFIG", "SET", "TIMEOUT", "1000") == "OK"
        assert ft(r, "FT.CONFIG", "GET", "TIMEOUT") == [["TIMEOUT", "1000"]]
    finally:
        ft(r, "FT.CONFIG", "SET", "ON_TIMEOUT", "RETURN")
        ft(r, "FT.CONFIG", "SET", "TIMEOUT", "500")
    ft(r, "FT.CREATE", "tmo0", "SCHEMA", "t", "TEXT")
    try:
        for cmd in ("FT.SEARCH", "FT.AGGREGATE"):
            for bad in ("-1", "x"):
                assert error_reply(r, cmd, "tmo0", "*", "TIMEOUT", bad) == \
                    "TIMEOUT requires a non negative integer"
    finally:
        ft(r, "FT.DROPINDEX", "tmo0")


def test_timeout_fail(tmo):
    # TIMEOUT 0: no limit.
    assert ft(tmo, "FT.SEARCH", "tmo", HEAVY, "NOCONTENT", "LIMIT", "0", "0",
              "TIMEOUT", "0") == [N]
    ft(tmo, "FT.CONFIG", "SET", "ON_TIMEOUT", "FAIL")
    assert error_reply(tmo, "FT.SEARCH", "tmo", HEAVY, "NOCONTENT", "TIMEOUT", "1") == \
        "Timeout limit was reached"
    assert error_reply(tmo, "FT.AGGREGATE", "tmo", HEAVY, "TIMEOUT", "1", "LOAD", "1", "@n",
                       "SORTBY", "2", "@n", "DESC", "LIMIT", "0", "2") == \
        "Timeout limit was reached"
    # FT.CONFIG TIMEOUT applies when the query gives none.
    ft(tmo, "FT.CONFIG", "SET", "TIMEOUT", "1")
    assert error_reply(tmo, "FT.SEARCH", "tmo", HEAVY, "NOCONTENT") == \
        "Timeout limit was reached"
    assert ft(tmo, "FT.SEARCH", "tmo", HEAVY, "NOCONTENT", "LIMIT", "0", "0",
              "TIMEOUT", "0") == [N]


def test_timeout_return_partial(server, tmo):
    # ON_TIMEOUT RETURN (the default): what was found before the limit.
    reply = ft(tmo, "FT.SEARCH", "tmo", HEAVY, "NOCONTENT", "LIMIT", "0", "2", "TIMEOUT", "1")
    assert 0 <= reply[0] < N and len(reply) <= 3
    reply = ft(tmo, "FT.AGGREGATE", "tmo", HEAVY, "TIMEOUT", "1", "LOAD", "1", "@n",
               "SORTBY", "2", "@n", "DESC", "LIMIT", "0", "2")
    assert 0 <= reply[0] < N
    # RESP3 says so in `warning`.
    c = server.raw()
    try:
        c.command("HELLO", "3")
        for q in (("FT.SEARCH", "tmo", HEAVY, "NOCONTENT", "TIMEOUT", "1"),
                  ("FT.AGGREGATE", "tmo", HEAVY, "TIMEOUT", "1", "LOAD", "1", "@n",
                   "SORTBY", "2", "@n", "DESC")):
            reply = dict(c.command(*q)[1])
            assert reply["warning"] == ["Timeout limit was reached"], q
            assert reply["total_results"] < N
        reply = dict(c.command("FT.SEARCH", "tmo", "w5", "NOCONTENT", "TIMEOUT", "0")[1])
        assert reply["warning"] == []
    finally:
        c.close()


def test_timeout_vector_range(r):
    # A VECTOR_RANGE walk over (most of) an HNSW graph (a radius holding every vector, a
    # huge $EPSILON) of 4,000 random vectors of 1,024 dimensions: milliseconds of
    # distances at least, so TIMEOUT 1 always passes during it.
    import struct
    import random
    dim, n = 1024, 4000
    ft(r, "FT.CREATE", "tvr", "PREFIX", "1", "tvr:", "SCHEMA", "v", "VECTOR", "HNSW", "10",
       "TYPE", "FLOAT32", "DIM", str(dim), "DISTANCE_METRIC", "L2", "M", "4",
       "EF_CONSTRUCTION", "10")
    try:
        rng = random.Random(4)
        base = [rng.random() for _ in range(dim)]
        p = r.pipeline(transaction=False)
        for i in range(n):
            v = [rng.random() for _ in range(dim)]
            p.hset("tvr:%d" % i, "v", struct.pack("%df" % dim, *v))
            if i % 500 == 499:
                p.execute()
        p.execute()
        q = ("FT.SEARCH", "tvr", "@v:[VECTOR_RANGE 1e9 $B]=>{$EPSILON: 1000}", "PARAMS", "2",
             "B", struct.pack("%df" % dim, *base), "NOCONTENT", "LIMIT", "0", "0", "DIALECT", "2")
        full = ft(r, *q, "TIMEOUT", "0")[0]
        assert full > n // 2
        # RediSearch 2.10 fails a timed-out range search whatever ON_TIMEOUT says.
        assert error_reply(r, *q, "TIMEOUT", "1") == "Timeout limit was reached"
        ft(r, "FT.CONFIG", "SET", "ON_TIMEOUT", "FAIL")
        assert error_reply(r, *q, "TIMEOUT", "1") == "Timeout limit was reached"
    finally:
        ft(r, "FT.CONFIG", "SET", "ON_TIMEOUT", "RETURN")
        ft(r, "FT.DROPINDEX", "tvr", "DD")
