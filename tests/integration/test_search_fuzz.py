"""Fuzzed query strings never crash the server (issue 18: "zero crashes on fuzzed query
strings: random bytes, unbalanced brackets, huge numbers, 10,000-deep nesting").

A seeded generator feeds 4,000 query strings of those four kinds (and fragments of the
query language mixed at random, some with random trailing FT.SEARCH arguments) to
FT.SEARCH against an index with every field type, in every dialect, and a share of them
to FT.AGGREGATE, FT.EXPLAIN and FT.PROFILE. Each must get a reply or an error reply; the
connection must stay up and the server must still answer a normal query afterwards. The
parser's own fuzz (20,000 strings, no server) is tests/unit/search/query_parser_test.cc.
Passes unchanged on Redis 8.8 + RediSearch 2.10 (HOTKV_TEST_REDIS_MODULE)."""
import random
import struct

import pytest
import redis

DIM = 4


def vec(*xs):
    return struct.pack("%df" % len(xs), *xs)


PARAMS = ["PARAMS", "8", "vec", vec(0.1, 0.2, 0.3, 0.4), "K", "3", "r", "0.5", "t", "alpha"]

FRAGMENTS = [
    "(", ")", "{", "}", "[", "]", "|", "-", "~", "*", "=>", ":", ";", ",", ".", "\"", "'",
    "%", "%%", "\\", "$", "@", "hello", "wor*", "*ld", "*ll*", "%helo%", "w'h?l*'", " ",
    "@title:", "@body:", "@tag:{", "@price:[", "@loc:[", "@v:[", "@nope:", "$vec", "$K",
    "$r", "$t", "$missing", "KNN", "VECTOR_RANGE", "AS", "EF_RUNTIME", "EPSILON",
    "$YIELD_DISTANCE_AS", "$weight", "$slop", "$inorder", "ismissing(", "-inf", "+inf",
    "inf", "(5", "1e308", "1e999", "-1e999", "99999999999999999999999999", "0x10", "NaN",
    "18446744073709551616", "-9223372036854775809", "km", "mi", "\x00", "\xff", "\xc3\xa9",
    "=>{", "=>[KNN", "*=>[KNN 3 @v $vec]", "@v:[VECTOR_RANGE $r $vec]",
]

OPENERS = ["(", "-", "~", "@title:(", "-(", "@title:", "@tag:{", "[", "{", "\"", "=>[",
           "((", "@title:-", "~(", "|("]

TRAILING = [
    ["LIMIT", "0", "99999999999999999999"], ["LIMIT", "-1", "5"], ["LIMIT", "0"],
    ["SORTBY", "price"], ["SORTBY", "nope", "DESC"], ["RETURN", "3", "title"],
    ["RETURN", "99999999999", "x"], ["DIALECT", "0"], ["DIALECT", "99999999999999999999"],
    ["TIMEOUT", "-1"], ["TIMEOUT", "1e30"], ["INKEYS", "2", "d:1"], ["INFIELDS", "1", "title"],
    ["WITHSCORES"], ["NOCONTENT"], ["VERBATIM"], ["SCORER", "BM25"], ["SLOP", "x"],
    ["HIGHLIGHT", "FIELDS", "1", "title"], ["SUMMARIZE", "LEN", "-3"], ["PARAMS", "1", "a"],
    ["PARAMS", "3", "a", "b", "c"], ["FILTER", "price", "1e999", "(x"],
    ["GEOFILTER", "loc", "1e999", "0", "5", "km"], ["LANGUAGE", "klingon"],
]


def random_bytes(rng):
    return bytes(rng.randrange(256) for _ in range(rng.randrange(80)))


def fragment_soup(rng):
    return "".join(rng.choice(FRAGMENTS) for _ in range(rng.randrange(1, 20)))


def unbalanced(rng):
    brackets = "()[]{}\"'"
    out = []
    for _ in range(rng.randrange(1, 60)):
        out.append(rng.choice(brackets) if rng.random() < 0.6 else rng.choice(
            ["a", "b*", "@title:", "@tag:", "@price:", " ", "|", "-", "=>", "$vec", "KNN 2"]))
    return "".join(out)


def huge_numbers(rng):
    n = rng.choice(["1e308", "1e999", "-1e999", "99999999999999999999999999999",
                    "18446744073709551616", "4294967296", "-0", "1e-999", "inf", "-inf",
                    "9" * 400, "0." + "0" * 300 + "1", "2147483648", "(1e999"])
    m = rng.choice(["1", "-1", "+inf", "(0", n])
    forms = [
        f"@price:[{n} {m}]", f"@price:[{m} {n}]", f"@loc:[{n} {m} {n} km]",
        f"@loc:[0 0 {n} {rng.choice(['m', 'km', 'mi', 'ft', 'xx'])}]",
        f"*=>[KNN {n} @v $vec]", f"*=>[KNN 3 @v $vec EF_RUNTIME {n}]",
        f"*=>[KNN 3 @v $vec EPSILON {n}]", f"@v:[VECTOR_RANGE {n} $vec]",
        f"@v:[VECTOR_RANGE 1 $vec]=>{{$EPSILON: {n}}}", f"hello=>{{$weight: {n}}}",
        f"hello=>{{$slop: {n}}}", f"%%%{n}%%%", f"@title:{n}", f"@tag:{{{n}}}",
        f"(@price:[{n} +inf])=>[KNN {n} @v $vec]",
    ]
    return rng.choice(forms)


def deep(rng):
    opener = rng.choice(OPENERS)
    depth = rng.choice([10000, 10000, 5000, 1001, 999])
    close = {"(": ")", "@title:(": ")", "-(": ")", "@tag:{": "}", "[": "]", "{": "}",
             "\"": "\"", "=>[": "]", "((": "))", "~(": ")", "|(": ")"}.get(opener, "")
    body = rng.choice(["x", "*", "@price:[1 2]", "$vec", ""])
    closers = close * (depth if rng.random() < 0.7 else rng.randrange(depth))
    return opener * depth + body + closers


GENERATORS = [random_bytes, fragment_soup, unbalanced, huge_numbers, deep]


@pytest.fixture
def idx(server):
    c = server.client(decode_responses=False, socket_timeout=60)
    c.flushall()
    c.execute_command("FT.CREATE", "fz", "ON", "HASH", "PREFIX", "1", "d:", "SCHEMA",
                      "title", "TEXT", "SORTABLE", "body", "TEXT", "tag", "TAG",
                      "price", "NUMERIC", "SORTABLE", "loc", "GEO",
                      "v", "VECTOR", "HNSW", "6", "TYPE", "FLOAT32", "DIM", str(DIM),
                      "DISTANCE_METRIC", "COSINE",
                      "w", "VECTOR", "FLAT", "6", "TYPE", "FLOAT32", "DIM", str(DIM),
                      "DISTANCE_METRIC", "L2")
    rng = random.Random(7)
    words = ["hello", "world", "alpha", "beta", "gamma", "helo", "wor", "run", "running"]
    p = c.pipeline(transaction=False)
    for i in range(200):
        v = vec(*(rng.uniform(-1, 1) for _ in range(DIM)))
        p.hset(f"d:{i}", mapping={
            "title": " ".join(rng.choice(words) for _ in range(3)),
            "body": " ".join(rng.choice(words) for _ in range(8)),
            "tag": ",".join(rng.sample(words, 2)), "price": rng.randrange(1000),
            "loc": f"{rng.uniform(-10, 10):.5f},{rng.uniform(-10, 10):.5f}", "v": v, "w": v})
    p.execute()
    yield c
    c.execute_command("FT.DROPINDEX", "fz")
    c.close()


def test_fuzzed_queries_get_a_reply_and_the_server_stays_up(idx, server):
    c = idx
    rng = random.Random(20261203)
    sent = errors = 0
    batch = c.pipeline(transaction=False)
    queued = 0
    for n in range(4000):
        q = GENERATORS[n % len(GENERATORS)](rng)
        dialect = str(1 + n % 4)
        args = ["FT.SEARCH", "fz", q] + PARAMS + ["DIALECT", dialect]
        if rng.random() < 0.15:
            args += rng.choice(TRAILING)
        batch.execute_command(*args)
        if n % 7 == 0:
            batch.execute_command("FT.EXPLAIN", "fz", q, "DIALECT", dialect)
        if n % 11 == 0:
            batch.execute_command("FT.AGGREGATE", "fz", q, *PARAMS, "DIALECT", dialect,
                                  "LIMIT", "0", "5")
        if n % 53 == 0:
            batch.execute_command("FT.PROFILE", "fz", "SEARCH", "QUERY", q, *PARAMS,
                                  "DIALECT", dialect)
        queued += 1
        if queued == 50:
            # A connection error here (a crash, a dropped connection) fails the test.
            for res in batch.execute(raise_on_error=False):
                sent += 1
                errors += isinstance(res, redis.ResponseError)
                assert isinstance(res, (list, bytes, int, redis.ResponseError)), res
            batch = c.pipeline(transaction=False)
            queued = 0
    for res in batch.execute(raise_on_error=False):
        sent += 1
        errors += isinstance(res, redis.ResponseError)
    assert sent > 4000
    assert 0 < errors < sent  # both kinds happened
    # Still up, still right.
    assert server.alive()
    assert c.ping()
    res = c.execute_command("FT.SEARCH", "fz", "*=>[KNN 3 @v $vec]", *PARAMS, "NOCONTENT",
                            "DIALECT", "2")
    assert res[0] == 3
    assert c.execute_command("FT.SEARCH", "fz", "@price:[-inf +inf]", "LIMIT", "0", "0")[0] == 200
