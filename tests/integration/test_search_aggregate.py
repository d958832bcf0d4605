"""FT.AGGREGATE and FT.CURSOR (issue 18): LOAD, GROUPBY/REDUCE, APPLY/FILTER expressions,
SORTBY/MAX/LIMIT, PARAMS/DIALECT, WITHCURSOR, RESP2 and RESP3 replies, error texts.

Every expected reply was taken from Redis 8.8 + RediSearch 2.10; run them there with
    HOTKV_SERVER=…/shared/peers/redis-8.8/redis-server \\
    HOTKV_TEST_REDIS_MODULE=…/shared/peers/redisearch-2.10/redisearch.so pytest …
Rows whose order RediSearch leaves open (no SORTBY) are compared sorted.
"""
import pytest
import redis

from conftest import IS_REDIS, REDIS_MODULE, wait_until

pytestmark = pytest.mark.skipif(IS_REDIS and not REDIS_MODULE,
                                reason="a redis-server without HOTKV_TEST_REDIS_MODULE has no FT.*")

DOCS = {
    "d:1": {"name": "alice", "age": "30", "city": "paris", "score": "1.5", "tags": "a,b"},
    "d:2": {"name": "bob", "age": "25", "city": "london", "score": "2.25", "tags": "b"},
    "d:3": {"name": "carol", "age": "35", "city": "paris", "score": "3", "tags": "c"},
    "d:4": {"name": "dave", "age": "40", "city": "berlin"},
    "d:5": {"name": "Eve Q", "age": "1.50", "city": "rome", "score": "07", "extra": "zz"},
}


@pytest.fixture
def idx(r):
    for k, v in DOCS.items():
        r.hset(k, mapping=v)
    r.execute_command("FT.CREATE", "agg", "ON", "HASH", "PREFIX", 1, "d:", "SCHEMA",
                      "name", "TEXT", "SORTABLE", "age", "NUMERIC", "SORTABLE", "city", "TAG",
                      "score", "NUMERIC", "tags", "TAG")
    wait_until(lambda: int(dict(zip(*[iter(r.execute_command("FT.INFO", "agg"))] * 2))["num_docs"]) == 5)
    yield r
    r.execute_command("FT.DROPINDEX", "agg")


def agg(r, *args):
    return r.execute_command("FT.AGGREGATE", "agg", *args)


def err(r, *args):
    with pytest.raises(redis.ResponseError) as e:
        r.execute_command(*args)
    return str(e.value)


def test_groupby_count_sorted(idx):
    assert agg(idx, "*", "GROUPBY", 1, "@city", "REDUCE", "COUNT", 0, "SORTBY", 2, "@city", "ASC") == [
        4, ["city", "berlin", "__generated_aliascount", "1"], ["city", "london", "__generated_aliascount", "1"],
        ["city", "paris", "__generated_aliascount", "2"], ["city", "rome", "__generated_aliascount", "1"]]


def test_reducers(idx):
    reply = agg(idx, "*", "GROUPBY", 1, "@city",
                "REDUCE", "SUM", 1, "@age", "REDUCE", "MIN", 1, "@age", "REDUCE", "MAX", 1, "@age",
                "REDUCE", "AVG", 1, "@age", "REDUCE", "COUNT_DISTINCT", 1, "@name",
                "REDUCE", "COUNT_DISTINCTISH", 1, "@name", "REDUCE", "TOLIST", 1, "@name",
                "REDUCE", "STDDEV", 1, "@age", "REDUCE", "QUANTILE", 2, "@age", "0.5",
                "REDUCE", "RANDOM_SAMPLE", 2, "@name", 1,
                "SORTBY", 2, "@city", "ASC", "LIMIT", 2, 1)
    assert reply[0] == 4
    row = reply[1]
    got = dict(zip(row[::2], row[1::2]))
    assert got["city"] == "paris"
    assert got["__generated_aliassumage"] == "65"
    assert got["__generated_aliasminage"] == "30"
    assert got["__generated_aliasmaxage"] == "35"
    assert got["__generated_aliasavgage"] == "32.5"
    assert got["__generated_aliascount_distinctname"] == "2"
    assert got["__generated_aliascount_distinctishname"] == "2"
    assert sorted(got["__generated_aliastolistname"]) == ["alice", "carol"]
    assert got["__generated_aliasstddevage"] == "3.53553390593"
    assert got["__generated_aliasquantileage,0.5"] == "30"
    assert got["__generated_aliasrandom_samplename,1"][0] in ("alice", "carol")
    # Names are the given ones with AS; FIRST_VALUE BY picks the extreme row; AVG counts
    # every row (dave has no score); the sort value of a TEXT SORTABLE field is lower-case.
    assert agg(idx, "*", "GROUPBY", 0, "REDUCE", "FIRST_VALUE", 4, "@name", "BY", "@age", "DESC", "AS", "oldest",
               "REDUCE", "AVG", 1, "@score", "AS", "s", "REDUCE", "COUNT", 0, "AS", "n") == [
        1, ["oldest", "dave", "s", "2.75", "n", "5"]]
    assert agg(idx, "@city:{rome}", "GROUPBY", 1, "@city", "REDUCE", "TOLIST", 1, "@name") == [
        1, ["city", "rome", "__generated_aliastolistname", ["eve q"]]]
    # A missing group key is nil.
    reply = agg(idx, "*", "GROUPBY", 1, "@score", "REDUCE", "COUNT", 0, "AS", "n", "SORTBY", 2, "@score", "DESC")
    assert reply == [5, ["score", "7", "n", "1"], ["score", "3", "n", "1"], ["score", "2.25", "n", "1"],
                     ["score", "1.5", "n", "1"], ["score", None, "n", "1"]]


def test_load_and_apply(idx):
    # NUMERIC fields load as numbers, the rest as the hash holds them; LOAD * gives the hash.
    assert agg(idx, "@city:{rome}", "LOAD", 3, "@age", "@score", "@extra") == [
        1, ["age", "1.5", "score", "7", "extra", "zz"]]
    assert agg(idx, "@city:{rome}", "LOAD", "*") == [
        1, ["name", "Eve Q", "age", "1.50", "city", "rome", "score", "07", "extra", "zz"]]
    assert agg(idx, "@city:{rome}", "LOAD", 3, "@name", "AS", "nm") == [1, ["nm", "Eve Q"]]
    assert agg(idx, "@city:{rome}", "LOAD", 1, "@__key", "APPLY", "@__key", "AS", "k") == [
        1, ["__key", "d:5", "k", "d:5"]]
    # A SORTABLE field needs no LOAD, and shows in the row.
    assert agg(idx, "@city:{rome}", "APPLY", "@age*2", "AS", "x") == [1, ["age", "1.5", "x", "3"]]
    assert agg(idx, "@city:{rome}", "APPLY", "1.0", "AS", "a", "APPLY", '"x"', "AS", "b",
               "APPLY", "0.1+0.2", "AS", "c", "APPLY", "1e15", "AS", "d", "APPLY", "1e20", "AS", "e",
               "APPLY", "1/3", "AS", "f", "APPLY", "1/0", "AS", "g", "APPLY", "-5 % 3", "AS", "h") == [
        1, ["a", "1", "b", "x", "c", "0.3", "d", "1000000000000000", "e", "1e+20", "f", "0.333333333333",
            "g", "nan", "h", "-2"]]
    assert agg(idx, "@city:{rome}", "APPLY", "1 + 2 * 3 ^ 2", "AS", "a", "APPLY", "!0 + 1", "AS", "b",
               "APPLY", "1 || 0 && 0", "AS", "c", "APPLY", '"10" == 10', "AS", "d") == [
        1, ["a", "37", "b", "0", "c", "0", "d", "1"]]
    assert agg(idx, "@city:{rome}", "LOAD", 1, "@name", "APPLY", "upper(@name)", "AS", "u",
               "APPLY", "substr(@name, 0, 3)", "AS", "s", "APPLY", 'format("%s-%s", @name, @age)', "AS", "f",
               "APPLY", "strlen(@name)", "AS", "l", "APPLY", 'contains(@name, "e")', "AS", "c",
               "APPLY", 'startswith(@name, "Ev")', "AS", "w", "APPLY", 'split("a, b,c")', "AS", "p",
               "APPLY", "upper(123)", "AS", "n") == [
        1, ["name", "Eve Q", "u", "EVE Q", "s", "Eve", "age", "1.5", "f", "Eve Q-1.5", "l", "5", "c", "1", "w", "1",
            "p", ["a", "b", "c"], "n", None]]
    assert agg(idx, "@city:{rome}", "APPLY", "timefmt(0)", "AS", "t", "APPLY", "year(100000000)", "AS", "y",
               "APPLY", 'parsetime("2020-01-02", "%Y-%m-%d")', "AS", "p", "APPLY", "day(100000)", "AS", "d",
               "APPLY", 'geodistance("1,2","3,4")', "AS", "g", "APPLY", "sqrt(2)", "AS", "q") == [
        1, ["t", "1970-01-01T00:00:00Z", "y", "1973", "p", "1577923200", "d", "86400", "g", "314371.93",
            "q", "1.41421356237"]]


def test_filter_sort_limit(idx):
    assert agg(idx, "*", "LOAD", 1, "@age", "FILTER", "@age > 26", "SORTBY", 2, "@age", "ASC") == [
        5, ["age", "30"], ["age", "35"], ["age", "40"]]
    assert agg(idx, "*", "SORTBY", 2, "@age", "DESC", "MAX", 2) == [5, ["age", "40"], ["age", "35"]]
    assert agg(idx, "*", "SORTBY", 1, "@age", "LIMIT", 1, 2) == [5, ["age", "25"], ["age", "30"]]
    # Missing values sort last either way.
    assert agg(idx, "*", "LOAD", 1, "@score", "SORTBY", 2, "@score", "ASC") == [
        5, ["score", "1.5"], ["score", "2.25"], ["score", "3"], ["score", "7"], []]
    assert agg(idx, "*", "LOAD", 2, "@score", "@name", "APPLY", "exists(@score)", "AS", "e",
               "SORTBY", 4, "@e", "ASC", "@name", "DESC") == [
        5, ["name", "dave", "e", "0"], ["score", "3", "name", "carol", "e", "1"],
        ["score", "2.25", "name", "bob", "e", "1"], ["score", "1.5", "name", "alice", "e", "1"],
        ["score", "7", "name", "Eve Q", "e", "1"]]
    # No SORTBY: every match comes out (order open), LIMIT 0 0 none.
    reply = agg(idx, "*", "LOAD", 1, "@name")
    assert sorted(row[1] for row in reply[1:]) == ["Eve Q", "alice", "bob", "carol", "dave"]
    assert agg(idx, "*", "LIMIT", 0, 0) == [5]
    assert agg(idx, "*", "LOAD", 1, "@age", "FILTER", "@age > 100") == [5]
    reply = agg(idx, "@city:{paris}", "LOAD", 1, "@name", "APPLY", "upper(@name)", "AS", "u")
    assert sorted(reply[1:]) == [["name", "alice", "u", "ALICE"], ["name", "carol", "u", "CAROL"]]


def test_params_and_dialect(idx):
    assert agg(idx, "@age:[$lo $hi]", "LOAD", 1, "@name", "SORTBY", 2, "@name", "ASC",
               "PARAMS", 4, "lo", 26, "hi", 36, "DIALECT", 2) == [2, ["name", "alice"], ["name", "carol"]]
    # redis-py sends lower-case keywords.
    assert agg(idx, "@city:{$c}", "groupby", 1, "@city", "reduce", "count", 0, "as", "n",
               "params", 2, "c", "paris", "dialect", 2) == [1, ["city", "paris", "n", "2"]]


def test_errors(idx):
    e = lambda *a: err(idx, "FT.AGGREGATE", "agg", *a)  # noqa: E731
    assert e("*", "FOO") == "Unknown argument `FOO` at position 1 for <main>"
    assert e("*", "APPLY", "@nosuch + 1", "AS", "x") == "Property `nosuch` not loaded nor in pipeline"
    assert e("*", "APPLY", "@score * 2", "AS", "x") == "Property `score` not loaded nor in pipeline"
    assert e("*", "LOAD", 1, "@name", "APPLY", "@name + 1", "AS", "x") == "Could not convert value to a number"
    assert e("@city:{berlin}", "LOAD", 1, "@score", "APPLY", "@score * 2", "AS", "x") == (
        "Could not find the value for a parameter name, consider using EXISTS if applicable for score")
    # (After rows came out, such an error ends the reply there instead: which rows come
    # first depends on document order, so tests/unit/search/aggregate_plan_test.cc checks it.)
    assert e("*", "APPLY", "foo(1)", "AS", "a") == "Unknown function name 'foo'"
    assert e("*", "APPLY", "upper(1,2)", "AS", "a") == "Invalid arguments for function 'upper'"
    assert e("*", "APPLY", "1+", "AS", "a").startswith("Syntax error at offset")
    assert e("*", "APPLY", "1", "AS") == "AS needs argument"
    assert e("*", "APPLY") == "Bad arguments for APPLY/FILTER: Expected an argument, but none provided"
    assert e("*", "GROUPBY", 1, "city") == "Bad arguments for GROUPBY: Unknown property `city`. Did you mean `@city`?"
    assert e("*", "GROUPBY", 1, "@nosuch") == "No such property `nosuch`"
    assert e("*", "GROUPBY", 1, "@city", "REDUCE", "FOO", 0) == "No such reducer: FOO"
    assert e("*", "GROUPBY", 1, "@city", "REDUCE", "SUM", 0) == "Missing arguments for SUM"
    assert e("*", "GROUPBY", 1, "@city", "REDUCE", "COUNT", 1, "@age") == "Count accepts 0 values only"
    assert e("*", "GROUPBY", 1, "@city", "REDUCE", "QUANTILE", 2, "@age", 2) == "Percentage must be between 0.0 and 1.0"
    assert e("*", "GROUPBY", 1, "@city", "APPLY", "@age", "AS", "x") == "Property `age` not loaded nor in pipeline"
    assert e("*", "GROUPBY", 1, "@city", "SORTBY", 2, "@age", "ASC") == "Property `age` not loaded nor in schema"
    assert e("*", "SORTBY", 2, "@age", "FOO") == "MISSING ASC or DESC after sort field (FOO)"
    assert e("*", "SORTBY", 2, "@nosuch", "ASC") == "Property `nosuch` not loaded nor in schema"
    assert e("*", "LIMIT", 0) == "LIMIT requires two arguments"
    assert e("*", "LIMIT", -1, 2) == "LIMIT needs two numeric arguments"
    assert e("*", "LOAD", "x") == "Bad arguments for LOAD: Expected number of fields or `*`"
    assert e("*", "WITHCURSOR", "COUNT", 0) == "Bad arguments for COUNT: Value is outside acceptable bounds"
    assert e("*", "DIALECT", 5) == "DIALECT requires a non negative integer >=1 and <= 4"
    assert e("*", "PARAMS", 1, "a") == "Parameters must be specified in PARAM VALUE pairs"
    assert err(idx, "FT.AGGREGATE", "nosuch", "*") == "No such index nosuch"
    assert err(idx, "FT.AGGREGATE", "agg") == "No query string provided"


def test_cursor(idx):
    reply, cid = agg(idx, "*", "LOAD", 1, "@name", "SORTBY", 2, "@name", "ASC", "WITHCURSOR", "COUNT", 2)
    assert reply == [5, ["name", "Eve Q"], ["name", "alice"]]
    assert cid != 0
    pages = []
    for _ in range(10):
        reply, cid = idx.execute_command("FT.CURSOR", "READ", "agg", cid)
        pages.append(reply)
        if cid == 0:
            break
    assert pages == [[0, ["name", "bob"], ["name", "carol"]], [0, ["name", "dave"]]]
    assert cid == 0
    # Without COUNT one read takes everything; COUNT on READ overrides; DEL ends it.
    reply, cid = agg(idx, "*", "LOAD", 1, "@name", "WITHCURSOR")
    assert cid == 0 and len(reply) == 6
    reply, cid = agg(idx, "*", "LOAD", 1, "@name", "WITHCURSOR", "COUNT", 2, "MAXIDLE", 100000)
    assert len(reply) == 3 and cid != 0
    reply, cid2 = idx.execute_command("FT.CURSOR", "READ", "agg", cid, "COUNT", 1)
    assert len(reply) == 2 and cid2 == cid
    assert idx.execute_command("FT.CURSOR", "DEL", "agg", cid) == "OK"
    assert err(idx, "FT.CURSOR", "DEL", "agg", cid) == "Cursor does not exist"
    assert err(idx, "FT.CURSOR", "READ", "agg", cid) == "Cursor not found"
    assert err(idx, "FT.CURSOR", "READ", "agg", "abc") == "Bad cursor ID"
    assert err(idx, "FT.CURSOR", "FOO", "agg", 1) == "Unknown subcommand"
    assert err(idx, "FT.CURSOR", "READ", "agg") == "wrong number of arguments for 'FT.CURSOR' command"
    # The id alone finds a cursor (RediSearch standalone does not check the index name).
    reply, cid = agg(idx, "*", "LOAD", 1, "@name", "WITHCURSOR", "COUNT", 1)
    reply, cid2 = idx.execute_command("FT.CURSOR", "READ", "other", cid)
    assert len(reply) == 2 and cid2 == cid
    assert idx.execute_command("FT.CURSOR", "DEL", "agg", cid) == "OK"
    # Exactly COUNT rows left: the cursor stays open until a read finds none.
    reply, cid = agg(idx, "*", "GROUPBY", 1, "@city", "SORTBY", 2, "@city", "ASC", "WITHCURSOR", "COUNT", 2)
    assert reply == [4, ["city", "berlin"], ["city", "london"]]
    reply, cid = idx.execute_command("FT.CURSOR", "READ", "agg", cid)
    assert reply == [0, ["city", "paris"], ["city", "rome"]] and cid != 0
    reply, cid = idx.execute_command("FT.CURSOR", "READ", "agg", cid)
    assert reply == [0] and cid == 0


def test_resp3_replies(server, idx):
    c = server.raw()
    assert isinstance(c.command("HELLO", "3"), tuple)
    reply = c.command("FT.AGGREGATE", "agg", "*", "GROUPBY", 1, "@city", "REDUCE", "COUNT", 0, "AS", "n",
                      "REDUCE", "TOLIST", 1, "@city", "AS", "l", "SORTBY", 2, "@city", "ASC", "LIMIT", 0, 2)
    row = lambda city: ("map", [("extra_attributes", ("map", [(b"city", city), (b"n", b"1"), (b"l", [city])])),  # noqa: E731
                                ("values", [])])
    assert reply == ("map", [("attributes", []), ("format", "STRING"),
                             ("results", [row(b"berlin"), row(b"london")]),
                             ("total_results", 4), ("warning", [])])
    # RESP3's total is counted at the end of the read (RESP2's when the first row came out).
    reply = c.command("FT.AGGREGATE", "agg", "*", "LOAD", 1, "@age", "FILTER", "@age > 36")
    assert reply == ("map", [("attributes", []), ("format", "STRING"),
                             ("results", [("map", [("extra_attributes", ("map", [(b"age", b"40")])),
                                                   ("values", [])])]),
                             ("total_results", 5), ("warning", [])])
    reply = c.command("FT.AGGREGATE", "agg", "*", "LOAD", 1, "@name", "SORTBY", 2, "@name", "ASC",
                      "WITHCURSOR", "COUNT", 4)
    assert isinstance(reply, list) and len(reply) == 2 and reply[1] != 0
    assert dict(reply[0][1])["total_results"] == 5
    assert len(dict(reply[0][1])["results"]) == 4
    reply = c.command("FT.CURSOR", "READ", "agg", reply[1])
    assert reply[1] == 0
    assert dict(reply[0][1])["results"] == [
        ("map", [("extra_attributes", ("map", [(b"name", b"dave")])), ("values", [])])]
    c.close()
