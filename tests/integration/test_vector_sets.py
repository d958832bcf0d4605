"""Redis 8 vector sets: VADD VSIM VREM VCARD VDIM VEMB VINFO VLINKS VSETATTR VGETATTR
VRANDMEMBER VISMEMBER — replies (RESP2 and RESP3), error texts, the index left unchanged by
errors, the key type (TYPE, DEL, RENAME, COPY, SCAN TYPE, EXPIRE, MEMORY USAGE), keyspace
notifications, recall against brute force, FILTER correctness, and searches running while
other clients insert or delete the key.

Debian's Redis 7.0 has no vector sets, so every test is HotKV-only."""
import math
import random
import threading
import time

import pytest

from helpers_pubsub import KeyspaceWatcher, conns, ps_server, set_events  # noqa: F401
from helpers_types import WRONGTYPE, arity, raw_client, rc_fixture, resp3_connection
from vector_helpers import (as_f32, brute_force, cosine_distance, cosine_similarity, fp32,
                            norm, pairs, random_vectors, run_threads, values)

pytestmark = pytest.mark.hotkv_only

INVALID_VECTOR = "ERR invalid vector specification"


@pytest.fixture
def rc(server, r):
    yield from rc_fixture(server)


@pytest.fixture
def rcb(server, r):
    """Like rc, but bulk replies stay bytes (VEMB RAW)."""
    c = raw_client(server, decode_responses=False)
    yield c
    c.close()


def vadd(rc, key, vec, element, *options):
    return rc("VADD", key, *values(vec), element, *options)


def fill(rc, key, vectors, *options):
    pipe = rc.client.pipeline(transaction=False)
    for i, v in enumerate(vectors):
        pipe.execute_command("VADD", key, "FP32", fp32(v), str(i), *options)
    assert all(x == 1 for x in pipe.execute())


def state(rc, key):
    """What an error must leave untouched."""
    if not rc("EXISTS", key):
        return None
    return (rc("VCARD", key), rc("VDIM", key), rc("VINFO", key)[:10],
            sorted(rc("VRANDMEMBER", key, 1000)))


# ----------------------------------------------------------------------------- VADD

def test_vadd_creates_a_vectorset(rc):
    assert vadd(rc, "vs", [1, 0, 0], "a") == 1
    assert rc("TYPE", "vs") == "vectorset"
    assert rc("VCARD", "vs") == 1
    assert rc("VDIM", "vs") == 3
    assert vadd(rc, "vs", [0, 1, 0], "b") == 1
    assert rc("VCARD", "vs") == 2
    # An existing element: its vector is replaced, the reply is 0.
    assert vadd(rc, "vs", [0, 0, 1], "a") == 0
    assert rc("VCARD", "vs") == 2
    assert [float(x) for x in rc("VEMB", "vs", "a")] == pytest.approx([0, 0, 1], abs=0.01)


def test_vadd_fp32_and_values_are_the_same_vector(rc):
    v = [0.25, -1.5, 3.0, 0.125]
    assert rc("VADD", "vs", "FP32", fp32(v), "blob", "NOQUANT") == 1
    assert vadd(rc, "vs", v, "vals", "NOQUANT") == 1
    assert rc("VEMB", "vs", "blob") == rc("VEMB", "vs", "vals")
    assert [float(x) for x in rc("VEMB", "vs", "blob")] == pytest.approx(v, rel=1e-6)


def test_vadd_defaults_q8_m16_cosine(rc):
    vadd(rc, "vs", [1, 2, 3], "a")
    info = dict(pairs(rc("VINFO", "vs")))
    assert info["quant-type"] == "int8"
    assert info["hnsw-m"] == 16
    assert info["vector-dim"] == 3
    assert info["projection-input-dim"] == 0
    assert info["size"] == 1
    assert info["attributes-count"] == 0


@pytest.mark.parametrize("flag,name", [("NOQUANT", "f32"), ("Q8", "int8"), ("BIN", "bin")])
def test_vadd_quantization(rc, flag, name):
    assert vadd(rc, "vs", [1, -2, 3, -4], "a", flag) == 1
    assert dict(pairs(rc("VINFO", "vs")))["quant-type"] == name
    assert vadd(rc, "vs", [1, 2, 3, 4], "b", flag) == 1
    other = [f for f in ("NOQUANT", "Q8", "BIN") if f != flag][0]
    assert rc.err("VADD", "vs", *values([1, 1, 1, 1]), "c", other) == \
        "ERR asked quantization mismatch with existing vector set"


def test_vadd_options(rc):
    assert vadd(rc, "vs", [1, 0], "a", "M", "32", "EF", "400", "CAS", "SETATTR", '{"x": 1}') == 1
    assert dict(pairs(rc("VINFO", "vs")))["hnsw-m"] == 32
    assert rc("VGETATTR", "vs", "a") == '{"x": 1}'
    # The M of an existing set must be repeated (16 when not given), as Redis.
    assert rc.err("VADD", "vs", *values([0, 1]), "b") == \
        "ERR asked M value mismatch with existing vector set"
    assert vadd(rc, "vs", [0, 1], "b", "m", "32", "cas") == 1
    assert rc("VCARD", "vs") == 2


def test_vadd_update_and_attributes(rc):
    vadd(rc, "vs", [1, 0], "a", "SETATTR", '{"y": 1}')
    vadd(rc, "vs", [0, 1], "a")  # no SETATTR: kept
    assert rc("VGETATTR", "vs", "a") == '{"y": 1}'
    vadd(rc, "vs", [1, 1], "a", "SETATTR", '{"y": 2}')
    assert rc("VGETATTR", "vs", "a") == '{"y": 2}'
    assert dict(pairs(rc("VINFO", "vs")))["attributes-count"] == 1
    vadd(rc, "vs", [1, 1], "a", "SETATTR", "")  # empty: removed
    assert rc("VGETATTR", "vs", "a") is None
    assert dict(pairs(rc("VINFO", "vs")))["attributes-count"] == 0


@pytest.mark.parametrize("args", [
    ["VALUES", "3", "1", "2", "x"],           # not a number
    ["VALUES", "3", "1", "nan", "2"],         # NaN
    ["VALUES", "3", "1", "inf", "2"],         # not finite
    ["VALUES", "3", "1", "1e39", "2"],        # beyond float32
    ["VALUES", "0", "1"],                     # dimension 0
    ["VALUES", "-1", "1"],
    ["VALUES", "x", "1"],
    ["VALUES", "65537", "1"],
    ["FP32", b"\x00\x00\x80"],                # not a multiple of 4
    ["FP32", b""],
    ["FP32", fp32([1.0, float("nan")])],
    ["FP32", fp32([float("inf"), 1.0])],
    ["FLOATS", "1"],                          # unknown format
    ["REDUCE", "0", "VALUES", "2", "1", "2"],
    ["REDUCE", "x", "VALUES", "2", "1", "2"],
    ["REDUCE", "3", "VALUES", "2", "1", "2"],  # REDUCE above the input dimension
])
def test_vadd_invalid_vector(rc, args):
    vadd(rc, "vs", [1, 2, 3], "keep")
    before = state(rc, "vs")
    assert rc.err("VADD", "vs", *args, "e") == INVALID_VECTOR
    assert state(rc, "vs") == before
    assert rc.err("VADD", "new", *args, "e") == INVALID_VECTOR
    assert rc("EXISTS", "new") == 0


def test_vadd_values_count_larger_than_arguments(rc):
    assert rc.err("VADD", "vs", "VALUES", "5", "1", "2", "e") == INVALID_VECTOR
    assert rc.err("VADD", "vs", "VALUES", "3", "1", "2", "3") == arity("vadd")
    assert rc.err("VADD", "vs", "VALUES", "1") == arity("vadd")
    assert rc("EXISTS", "vs") == 0


@pytest.mark.parametrize("options,error", [
    (["EF", "0"], "ERR invalid EF"),
    (["EF", "1000001"], "ERR invalid EF"),
    (["EF", "x"], "ERR invalid EF"),
    (["M", "3"], "ERR invalid M"),
    (["M", "x"], "ERR invalid M"),
    (["M", "256"], "ERR invalid M"),   # HotKV's engine: M up to 255 (Redis: 4096)
    (["NOPE"], "ERR invalid option after element"),
    (["EF"], "ERR invalid option after element"),
    (["SETATTR"], "ERR invalid option after element"),
])
def test_vadd_invalid_options(rc, options, error):
    vadd(rc, "vs", [1, 2], "keep")
    before = state(rc, "vs")
    assert rc.err("VADD", "vs", *values([2, 1]), "e", *options) == error
    assert state(rc, "vs") == before
    assert rc("VISMEMBER", "vs", "e") == 0


def test_vadd_dimension_mismatch(rc):
    vadd(rc, "vs", [1, 2, 3], "a")
    before = state(rc, "vs")
    assert rc.err("VADD", "vs", *values([1, 2]), "b") == \
        "ERR Vector dimension mismatch - got 2 but set has 3"
    assert rc.err("VADD", "vs", "FP32", fp32([1, 2, 3, 4]), "a") == \
        "ERR Vector dimension mismatch - got 4 but set has 3"
    assert state(rc, "vs") == before
    assert [float(x) for x in rc("VEMB", "vs", "a")] == pytest.approx([1, 2, 3], rel=0.02)


def test_vadd_wrong_type(rc):
    rc("SET", "s", "x")
    assert rc.err("VADD", "s", *values([1]), "a") == WRONGTYPE
    assert rc("GET", "s") == "x"


def project(vec, out_dim):
    """Redis's REDUCE matrix: +-1/sqrt(n) by the parity of popcount(i & j)."""
    n = len(vec)
    return [sum((-1 if bin(i & j).count("1") % 2 else 1) * vec[j] for j in range(n)) / math.sqrt(n)
            for i in range(out_dim)]


def test_reduce_projects_like_redis(rc):
    v = [0.5, -1.0, 2.0, 0.25, 1.5, -0.75, 0.0, 1.0]
    assert rc("VADD", "vs", "REDUCE", "4", *values(v), "a", "NOQUANT") == 1
    assert rc("VDIM", "vs") == 4
    info = dict(pairs(rc("VINFO", "vs")))
    assert (info["vector-dim"], info["projection-input-dim"]) == (4, 8)
    assert [float(x) for x in rc("VEMB", "vs", "a")] == pytest.approx(project(v, 4), rel=1e-5)
    # Later VADDs repeat REDUCE with the same dimension, as in Redis.
    assert rc.err("VADD", "vs", *values(v), "b", "NOQUANT") == \
        "ERR Vector dimension mismatch - got 8 but set has 4"
    assert rc.err("VADD", "vs", "REDUCE", "2", *values(v), "b", "NOQUANT") == \
        "ERR Vector dimension mismatch - got 8 but set has 4"
    assert rc.err("VADD", "vs", "REDUCE", "4", *values(v[:6]), "b", "NOQUANT") == \
        "ERR Input dimension mismatch for projection - got 6 but projection expects 8"
    w = [1, 0, 0, 0, 0, 0, 0, 1]
    assert rc("VADD", "vs", "REDUCE", "4", *values(w), "b", "NOQUANT") == 1
    # VSIM takes full-size vectors (projected) or reduced ones (as is).
    assert rc("VSIM", "vs", *values(v), "COUNT", "1") == ["a"]
    assert rc("VSIM", "vs", *values(project(w, 4)), "COUNT", "1") == ["b"]
    assert rc.err("VSIM", "vs", *values(v[:6])) == \
        "ERR Input dimension mismatch for projection - got 6 but projection expects 8"
    vadd(rc, "plain", [1, 2], "a")
    assert rc.err("VADD", "plain", "REDUCE", "1", *values([1, 2]), "b") == \
        "ERR cannot add projection to existing set without projection"


# ----------------------------------------------------------------------------- VSIM

def test_vsim_exact_vector_first_with_score_one(rc):
    vectors = random_vectors(200, 8, seed=1)
    fill(rc, "vs", vectors, "NOQUANT")
    for i in (0, 57, 199):
        reply = rc("VSIM", "vs", "FP32", fp32(vectors[i]), "WITHSCORES", "COUNT", "3")
        (first, score), *rest = pairs(reply)
        assert first == str(i)
        assert float(score) == pytest.approx(1.0, abs=1e-6)
        assert all(float(s) <= float(score) for _, s in rest)


def test_vsim_scores_are_cosine_similarities(rc):
    for name, v in [("same", [1, 0]), ("orth", [0, 1]), ("opp", [-1, 0]), ("diag", [1, 1])]:
        vadd(rc, "vs", v, name, "NOQUANT")
    got = dict(pairs(rc("VSIM", "vs", *values([2, 0]), "WITHSCORES")))
    assert [k for k in got] == ["same", "diag", "orth", "opp"]
    expected = {"same": 1.0, "diag": (1 + math.sqrt(0.5)) / 2, "orth": 0.5, "opp": 0.0}
    for k, sim in expected.items():
        assert float(got[k]) == pytest.approx(sim, abs=1e-6)


def test_vsim_count_default_and_ele(rc):
    vectors = random_vectors(30, 4, seed=2)
    fill(rc, "vs", vectors)
    assert len(rc("VSIM", "vs", *values(vectors[3]))) == 10
    assert len(rc("VSIM", "vs", *values(vectors[3]), "COUNT", "25")) == 25
    assert len(rc("VSIM", "vs", *values(vectors[3]), "COUNT", "1000000000")) == 30
    assert rc("VSIM", "vs", "ELE", "7", "COUNT", "1") == ["7"]
    reply = rc("VSIM", "vs", "ele", "7", "WITHSCORES", "COUNT", "5", "EF", "500", "NOTHREAD")
    assert reply[0] == "7" and len(reply) == 10


def test_vsim_missing_key_and_errors(rc):
    assert rc("VSIM", "missing", *values([1, 2])) == []
    assert rc("VSIM", "missing", "VALUES", "x") == []  # the key is checked first, as Redis
    rc("SET", "s", "x")
    assert rc.err("VSIM", "s", *values([1, 2])) == WRONGTYPE
    vadd(rc, "vs", [1, 2], "a")
    assert rc.err("VSIM", "vs", "ELE", "zz") == "ERR element not found in set"
    assert rc.err("VSIM", "vs", "VALUES", "2", "1", "x") == INVALID_VECTOR
    assert rc.err("VSIM", "vs", "VALUES", "3", "1", "2") == INVALID_VECTOR
    assert rc.err("VSIM", "vs", "FP32", b"abc") == INVALID_VECTOR
    assert rc.err("VSIM", "vs", "BLOB", "x") == INVALID_VECTOR
    assert rc.err("VSIM", "vs", *values([1, 2, 3])) == \
        "ERR Vector dimension mismatch - got 3 but set has 2"
    q = values([1, 2])
    assert rc.err("VSIM", "vs", *q, "COUNT", "0") == "ERR invalid COUNT"
    assert rc.err("VSIM", "vs", *q, "COUNT", "x") == "ERR invalid COUNT"
    assert rc.err("VSIM", "vs", *q, "EF", "0") == "ERR invalid EF"
    assert rc.err("VSIM", "vs", *q, "EF", "1000001") == "ERR invalid EF"
    assert rc.err("VSIM", "vs", *q, "EPSILON", "0") == "ERR invalid EPSILON"
    assert rc.err("VSIM", "vs", *q, "EPSILON", "x") == "ERR invalid EPSILON"
    assert rc.err("VSIM", "vs", *q, "FILTER-EF", "0") == "ERR invalid FILTER-EF"
    assert rc.err("VSIM", "vs", *q, "WITHSCORE") == "ERR syntax error in VSIM command"
    assert rc.err("VSIM", "vs", *q, "COUNT") == "ERR syntax error in VSIM command"
    assert rc.err("VSIM", "vs", *q, "FILTER", ".a == (1") == \
        "ERR syntax error in FILTER expression near: .a == (1"
    assert rc.err("VSIM", "vs", *q, "FILTER", ".a == 1 )") == \
        "ERR syntax error in FILTER expression near: )"
    assert rc("VCARD", "vs") == 1


def test_vsim_epsilon(rc):
    for name, v in [("same", [1, 0]), ("close", [1, 0.2]), ("orth", [0, 1]), ("opp", [-1, 0])]:
        vadd(rc, "vs", v, name, "NOQUANT")
    # similarity >= 1 - epsilon
    assert rc("VSIM", "vs", *values([1, 0]), "EPSILON", "0.1") == ["same", "close"]
    assert rc("VSIM", "vs", *values([1, 0]), "EPSILON", "0.5") == ["same", "close", "orth"]
    assert len(rc("VSIM", "vs", *values([1, 0]), "EPSILON", "1")) == 4


def test_vsim_truth_is_brute_force(rc):
    vectors = random_vectors(300, 6, seed=3)
    fill(rc, "vs", vectors, "NOQUANT")
    q = random_vectors(1, 6, seed=4)[0]
    assert rc("VSIM", "vs", *values(q), "TRUTH", "COUNT", "15") == \
        brute_force(vectors, q, 15, cosine_distance)


def test_vsim_withattribs_resp2(rc):
    vadd(rc, "vs", [1, 0], "a", "SETATTR", '{"n": 1}')
    vadd(rc, "vs", [0, 1], "b")
    assert rc("VSIM", "vs", *values([1, 0]), "WITHATTRIBS") == ["a", '{"n": 1}', "b", None]
    reply = rc("VSIM", "vs", *values([1, 0]), "WITHSCORES", "WITHATTRIBS")
    assert reply[0::3] == ["a", "b"] and reply[2::3] == ['{"n": 1}', None]
    assert [float(x) for x in reply[1::3]] == pytest.approx([1.0, 0.5], abs=0.01)


def test_resp3_shapes(server, r):
    c = resp3_connection(server)
    try:
        c.command("VADD", "vs", *values([1, 0]), "a", "SETATTR", '{"n": 1}', "NOQUANT")
        c.command("VADD", "vs", *values([0, 1]), "b", "NOQUANT")
        q = values([1, 0])
        assert c.command("VSIM", "vs", *q) == [b"a", b"b"]
        assert c.command("VSIM", "vs", *q, "WITHSCORES") == \
            ("map", [(b"a", ("double", "1")), (b"b", ("double", "0.5"))])
        assert c.command("VSIM", "vs", *q, "WITHATTRIBS") == \
            ("map", [(b"a", b'{"n": 1}'), (b"b", None)])
        assert c.command("VSIM", "vs", *q, "WITHSCORES", "WITHATTRIBS") == \
            ("map", [(b"a", [("double", "1"), b'{"n": 1}']), (b"b", [("double", "0.5"), None])])
        assert c.command("VADD", "vs", *values([1, 1]), "c", "NOQUANT") is True
        assert c.command("VADD", "vs", *values([1, 1]), "c", "NOQUANT") is False
        assert c.command("VREM", "vs", "c") is True
        assert c.command("VREM", "vs", "c") is False
        assert c.command("VREM", "nokey", "c") is False
        assert c.command("VISMEMBER", "vs", "a") is True
        assert c.command("VSETATTR", "vs", "zz", "{}") is False
        kind, info = c.command("VINFO", "vs")
        assert kind == "map" and dict(info)["quant-type"] == "f32" and dict(info)["size"] == 2
        assert c.command("VINFO", "nokey") is None
        assert c.command("VEMB", "vs", "b") == [("double", "0"), ("double", "1")]
        links = c.command("VLINKS", "vs", "a", "WITHSCORES")
        assert links[-1] == ("map", [(b"b", ("double", "0.5"))])  # layer 0 comes last
        assert c.command("VRANDMEMBER", "nokey") is None
    finally:
        c.close()


def test_vsim_filter_correctness(rc):
    rng = random.Random(5)
    vectors = random_vectors(600, 8, seed=6)
    attrs = {}
    pipe = rc.client.pipeline(transaction=False)
    for i, v in enumerate(vectors):
        args = ["VADD", "vs", "FP32", fp32(v), str(i)]
        if i % 7:  # every 7th element has no attributes
            attrs[str(i)] = (rng.randint(1950, 2020), rng.choice(["action", "drama", "comedy"]))
            args += ["SETATTR", '{"year": %d, "genre": "%s"}' % attrs[str(i)]]
        pipe.execute_command(*args)
    pipe.execute()
    assert dict(pairs(rc("VINFO", "vs")))["attributes-count"] == len(attrs)

    def ok(name):
        return name in attrs and attrs[name][0] >= 1990 and attrs[name][1] == "action"
    expr = '.year >= 1990 and .genre == "action"'
    for q in random_vectors(5, 8, seed=7):
        got = rc("VSIM", "vs", *values(q), "FILTER", expr, "COUNT", "20")
        assert len(got) == 20 and all(ok(n) for n in got)
        exact = rc("VSIM", "vs", *values(q), "FILTER", expr, "COUNT", "20", "TRUTH")
        assert all(ok(n) for n in exact) and len(exact) == 20
        # Filtered results are the nearest matching elements, nearest first.
        everything = rc("VSIM", "vs", *values(q), "COUNT", "600", "TRUTH")
        assert exact == [n for n in everything if ok(n)][:20]
        few = rc("VSIM", "vs", *values(q), "FILTER", expr, "COUNT", "5", "FILTER-EF", "10")
        assert all(ok(n) for n in few)
    assert rc("VSIM", "vs", *values(vectors[0]), "FILTER", ".year > 3000") == []
    # Elements without attributes never match, even a filter true for everything else.
    assert all(n in attrs for n in rc("VSIM", "vs", *values(vectors[0]), "FILTER", "1",
                                      "COUNT", "600"))


# ----------------------------------------------------------------------------- the rest

def test_vrem(rc):
    vadd(rc, "vs", [1, 0], "a", "SETATTR", '{"x": 1}')
    vadd(rc, "vs", [0, 1], "b")
    assert rc("VREM", "vs", "zz") == 0
    assert rc("VREM", "nokey", "a") == 0
    assert rc("VREM", "vs", "a") == 1
    assert dict(pairs(rc("VINFO", "vs")))["attributes-count"] == 0
    assert rc("VREM", "vs", "a") == 0
    assert rc("VCARD", "vs") == 1
    assert rc("VREM", "vs", "b") == 1
    assert rc("EXISTS", "vs") == 0  # an emptied set is deleted
    rc("SET", "s", "x")
    assert rc.err("VREM", "s", "a") == WRONGTYPE
    assert rc.err("VREM", "vs") == arity("vrem")


def test_vcard_vdim_vismember(rc):
    assert rc("VCARD", "nokey") == 0
    assert rc.err("VDIM", "nokey") == "ERR key does not exist"
    assert rc("VISMEMBER", "nokey", "a") == 0
    vadd(rc, "vs", [1, 2, 3, 4, 5], "a")
    assert (rc("VCARD", "vs"), rc("VDIM", "vs")) == (1, 5)
    assert (rc("VISMEMBER", "vs", "a"), rc("VISMEMBER", "vs", "b")) == (1, 0)
    rc("SET", "s", "x")
    for c in (["VCARD", "s"], ["VDIM", "s"], ["VISMEMBER", "s", "a"]):
        assert rc.err(*c) == WRONGTYPE


def test_vemb(rc, rcb):
    v = [3.0, -4.0]
    vadd(rc, "f", v, "a", "NOQUANT")
    vadd(rc, "q", v, "a")
    vadd(rc, "b", v, "a", "BIN")
    assert [float(x) for x in rc("VEMB", "f", "a")] == pytest.approx(v, rel=1e-6)
    assert [float(x) for x in rc("VEMB", "q", "a")] == pytest.approx(v, rel=0.02)
    assert rc("VEMB", "f", "zz") is None and rc("VEMB", "nokey", "a") is None
    assert rc.err("VEMB", "f", "a", "RAWW") == "ERR invalid option"

    kind, blob, l2 = rcb("VEMB", "f", "a", "RAW")
    assert kind == b"f32" and float(l2) == pytest.approx(5.0)
    assert blob == fp32([as_f32(0.6), as_f32(-0.8)])   # stored normalised
    kind, codes, l2, qrange = rcb("VEMB", "q", "a", "raw")
    assert kind == b"int8" and len(codes) == 2 and float(l2) == pytest.approx(5.0)
    assert float(qrange) == pytest.approx(0.8)            # max |x| of the unit vector
    assert codes == bytes([95, 0x81])                    # 0.6/0.8*127 = 95, -127
    kind, bits, l2 = rcb("VEMB", "b", "a", "RAW")
    assert kind == b"bin" and bits == b"\x01" and float(l2) == pytest.approx(5.0)
    vadd(rc, "b70", [1 if i % 3 == 0 else -1 for i in range(70)], "a", "BIN")
    kind, bits, _ = rcb("VEMB", "b70", "a", "RAW")
    assert len(bits) == 9  # (70 + 7) / 8
    assert [(bits[i // 8] >> (i % 8)) & 1 for i in range(70)] == [int(i % 3 == 0) for i in range(70)]


def test_vinfo(rc):
    assert rc("VINFO", "nokey") is None
    vadd(rc, "vs", [1, 2], "a", "SETATTR", "{}")
    info = pairs(rc("VINFO", "vs"))
    assert [k for k, _ in info] == ["quant-type", "hnsw-m", "vector-dim", "projection-input-dim",
                                    "size", "max-level", "attributes-count", "vset-uid",
                                    "hnsw-max-node-uid"]
    d = dict(info)
    assert (d["quant-type"], d["vector-dim"], d["size"], d["attributes-count"]) == ("int8", 2, 1, 1)
    vadd(rc, "other", [1, 2], "a")
    assert dict(pairs(rc("VINFO", "other")))["vset-uid"] != d["vset-uid"]


def test_vlinks(rc):
    vectors = random_vectors(50, 4, seed=8)
    fill(rc, "vs", vectors, "NOQUANT")
    levels = rc("VLINKS", "vs", "0")
    assert len(levels) >= 1
    layer0 = levels[-1]
    assert 1 <= len(layer0) <= 32 and "0" not in layer0
    scored = rc("VLINKS", "vs", "0", "WITHSCORES")
    assert len(scored) == len(levels)
    for names, flat in zip(levels, scored):
        assert [n for n, _ in pairs(flat)] == names
        for n, s in pairs(flat):
            assert float(s) == pytest.approx(
                (1 + cosine_similarity(vectors[0], vectors[int(n)])) / 2, abs=1e-5)
    assert rc("VLINKS", "vs", "zz") is None and rc("VLINKS", "nokey", "a") is None
    assert rc.err("VLINKS", "vs", "0", "SCORES") == arity("vlinks")


def test_vsetattr_vgetattr(rc):
    assert rc("VSETATTR", "nokey", "a", "{}") == 0
    assert rc("VGETATTR", "nokey", "a") is None
    vadd(rc, "vs", [1, 2], "a")
    assert rc("VGETATTR", "vs", "a") is None
    assert rc("VSETATTR", "vs", "zz", "{}") == 0
    assert rc("VSETATTR", "vs", "a", '{"color": "red"}') == 1
    assert rc("VGETATTR", "vs", "a") == '{"color": "red"}'
    assert rc("VSIM", "vs", *values([1, 2]), "FILTER", '.color == "red"') == ["a"]
    assert dict(pairs(rc("VINFO", "vs")))["attributes-count"] == 1
    # Stored as given (Redis does not validate); such an element matches no filter.
    assert rc("VSETATTR", "vs", "a", "not json") == 1
    assert rc("VGETATTR", "vs", "a") == "not json"
    assert rc("VSIM", "vs", *values([1, 2]), "FILTER", '.color == "red"') == []
    assert rc("VSETATTR", "vs", "a", "") == 1
    assert rc("VGETATTR", "vs", "a") is None
    assert dict(pairs(rc("VINFO", "vs")))["attributes-count"] == 0


def test_vsetattr_repeated_keys_and_filter(rc):
    """Attributes are stored as given and FILTER reads them as Redis 8.8 does (checked
    against its server): the first of repeated keys wins, nothing after the field is
    read, keys compare as written."""
    cases = [
        ("e1", '{"a":1,"a":2}', True),
        ("e2", '{"a":2,"b":"x","b":"y"}', False),
        ("e3", '{"a":{"z":1},"a":1}', False),
        ("e4", '{"a":null,"a":1}', False),
        ("e5", '{"a":1, "b":}', True),
        ("e6", '{"b":, "a":1}', False),
        ("e7", '{"a":1} trailing', True),
        ("e8", '{"x":{"a":2},"a":1}', True),
        ("e9", '{"\\u0061":1}', False),
    ]
    for i, (name, attrs, _) in enumerate(cases):
        vadd(rc, "vs", [1, i + 1], name)
        assert rc("VSETATTR", "vs", name, attrs) == 1
        assert rc("VGETATTR", "vs", name) == attrs
    query = ("VSIM", "vs", *values([1, 0]), "COUNT", "20", "FILTER")
    assert sorted(rc(*query, ".a == 1")) == sorted(n for n, _, m in cases if m)
    assert rc(*query, ".a == 2") == ["e2"]  # e1's second "a" is never read
    assert rc(*query, '.b == "x"') == ["e2"]
    assert rc(*query, '.b == "y"') == []
    # VADD SETATTR stores and filters the same way.
    vadd(rc, "vs", [0, 1], "f", "SETATTR", '{"year":1984,"year":2000}')
    assert rc("VGETATTR", "vs", "f") == '{"year":1984,"year":2000}'
    assert rc(*query, ".year == 1984") == ["f"]
    assert rc(*query, ".year == 2000") == []


def test_vrandmember(rc):
    assert rc("VRANDMEMBER", "nokey") is None
    assert rc("VRANDMEMBER", "nokey", "3") == []
    for i in range(5):
        vadd(rc, "vs", [1, i], f"e{i}")
    names = {f"e{i}" for i in range(5)}
    assert rc("VRANDMEMBER", "vs") in names
    three = rc("VRANDMEMBER", "vs", "3")
    assert len(three) == 3 == len(set(three)) and set(three) <= names
    assert sorted(rc("VRANDMEMBER", "vs", "50")) == sorted(names)
    many = rc("VRANDMEMBER", "vs", "-40")
    assert len(many) == 40 and set(many) <= names
    assert rc("VRANDMEMBER", "vs", "0") == []
    assert rc.err("VRANDMEMBER", "vs", "x") == "ERR COUNT value is not an integer"
    assert rc.err("VRANDMEMBER", "vs", "1", "2") == arity("vrandmember")
    rc("SET", "s", "x")
    assert rc.err("VRANDMEMBER", "s") == WRONGTYPE
    assert rc("VRANDMEMBER", "s", "0") == []  # as Redis: count 0 answers before the lookup


# ----------------------------------------------------------------------------- key type

def test_key_type_integration(rc):
    vadd(rc, "vs", [1, 0], "a", "SETATTR", '{"k": 1}')
    vadd(rc, "vs", [0, 1], "b")
    rc("SET", "str", "x")
    assert rc("TYPE", "vs") == "vectorset"
    assert rc("OBJECT", "ENCODING", "vs") == "raw"
    assert rc("EXISTS", "vs") == 1
    assert rc("SCAN", "0", "TYPE", "vectorset", "COUNT", "1000") == ["0", ["vs"]]
    mem = rc("MEMORY", "USAGE", "vs")
    assert mem > 0
    fill(rc, "vs", random_vectors(200, 2, seed=9))
    assert rc("MEMORY", "USAGE", "vs") > mem

    assert rc("RENAME", "vs", "vs2") == "OK"
    assert rc("TYPE", "vs2") == "vectorset" and rc("EXISTS", "vs") == 0
    assert rc("VGETATTR", "vs2", "a") == '{"k": 1}'

    assert rc("COPY", "vs2", "cp") == 1
    assert rc("VCARD", "cp") == rc("VCARD", "vs2") == 202
    assert dict(pairs(rc("VINFO", "cp")))["attributes-count"] == 1
    rc("VREM", "cp", "a")
    vadd(rc, "cp", [5, 5], "new")
    rc("VSETATTR", "cp", "b", '{"c": 1}')
    assert rc("VISMEMBER", "vs2", "a") == 1 and rc("VISMEMBER", "vs2", "new") == 0
    assert rc("VGETATTR", "vs2", "b") is None and rc("VGETATTR", "cp", "b") == '{"c": 1}'
    assert rc("VSIM", "cp", *values([1, 0]), "COUNT", "1", "FILTER", ".k == 1") == []
    assert rc("VSIM", "vs2", *values([1, 0]), "COUNT", "1", "FILTER", ".k == 1") == ["a"]

    assert rc("DEL", "vs2") == 1 and rc("EXISTS", "vs2") == 0
    assert rc("UNLINK", "cp") == 1 and rc("EXISTS", "cp") == 0

    vadd(rc, "ttl", [1, 0], "a")
    assert rc("PEXPIRE", "ttl", "100") == 1
    assert 0 < rc("PTTL", "ttl") <= 100
    time.sleep(0.25)
    assert rc("EXISTS", "ttl") == 0 and rc("VCARD", "ttl") == 0


def test_wrongtype_from_other_commands(rc):
    vadd(rc, "vs", [1, 0], "a")
    assert rc.err("GET", "vs") == WRONGTYPE
    assert rc.err("HSET", "vs", "f", "v") == WRONGTYPE
    assert rc.err("LPUSH", "vs", "x") == WRONGTYPE


def test_transaction(rc):
    rc("MULTI")
    rc("VADD", "vs", *values([1, 0]), "a")
    rc("VADD", "vs", *values([0, 1]), "b")
    rc("VSIM", "vs", *values([1, 0]), "COUNT", "1")
    rc("VREM", "vs", "a")
    rc("VREM", "vs", "b")
    rc("EXISTS", "vs")
    assert rc("EXEC") == [1, 1, ["a"], 1, 1, 0]


def test_watch_sees_vadd(server, rc):
    other = server.client()
    rc("WATCH", "vs")
    other.execute_command("VADD", "vs", *values([1, 0]), "a")
    rc("MULTI")
    rc("SET", "x", "1")
    assert rc("EXEC") is None
    other.close()


def test_command_table(rc):
    info = rc("COMMAND", "INFO", "vadd", "vsim", "vcard", "vrem")
    by_name = {i[0]: i for i in info}
    assert by_name["vadd"][1:3] == [-5, ["write", "denyoom"]]
    assert by_name["vsim"][1:3] == [-4, ["readonly"]]
    assert by_name["vcard"][1:3] == [2, ["readonly", "fast"]]
    assert by_name["vrem"][1:3] == [3, ["write"]]
    assert all(i[3:6] == [1, 1, 1] for i in info)
    assert rc("COMMAND", "GETKEYS", "VSIM", "k", "VALUES", "1", "0") == ["k"]
    assert rc("COMMAND", "GETKEYS", "VADD", "k", "VALUES", "1", "0", "e") == ["k"]


# ----------------------------------------------------------------------------- notifications

def test_notifications(conns):
    nc = conns.client()
    nc.execute_command("FLUSHALL")
    set_events(nc, "KEA")
    try:
        w = KeyspaceWatcher(conns)
        nc.execute_command("VADD", "vs", *values([1, 0]), "a")
        nc.execute_command("VADD", "vs", *values([0, 1]), "b")
        nc.execute_command("VSETATTR", "vs", "a", '{"x": 1}')
        nc.execute_command("VSIM", "vs", *values([1, 0]))       # reads send nothing
        nc.execute_command("VREM", "vs", "zz")                   # nor no-ops
        nc.execute_command("VSETATTR", "vs", "zz", "{}")
        nc.execute_command("VREM", "vs", "a")
        nc.execute_command("VREM", "vs", "b")
        assert w.events(nc) == [(0, "vs", "vadd"), (0, "vs", "vadd"), (0, "vs", "vsetattr"),
                                (0, "vs", "vrem"), (0, "vs", "vrem"), (0, "vs", "del")]
        set_events(nc, "KEg")   # the module class 'd' is off: only generic events
        nc.execute_command("VADD", "vs", *values([1, 0]), "a")
        nc.execute_command("VREM", "vs", "a")
        assert w.events(nc) == [(0, "vs", "del")]
    finally:
        set_events(nc, "")


# ----------------------------------------------------------------------------- recall

def recall(rc, key, vectors, queries, k, *options):
    hits = total = 0
    for q in queries:
        truth = set(brute_force(vectors, q, k, cosine_distance))
        got = rc("VSIM", key, "FP32", fp32(q), "COUNT", str(k), *options)
        hits += len(truth & set(got))
        total += k
    return hits / total


def test_recall_against_brute_force(rc):
    vectors = random_vectors(3000, 16, seed=10)
    fill(rc, "f32", vectors, "NOQUANT")
    fill(rc, "q8", vectors)
    queries = random_vectors(25, 16, seed=11)
    assert recall(rc, "f32", vectors, queries, 10, "EF", "200") >= 0.9
    assert recall(rc, "q8", vectors, queries, 10, "EF", "200") >= 0.8
    assert recall(rc, "f32", vectors, queries, 10, "TRUTH") == 1.0


# ----------------------------------------------------------------------------- concurrency

def test_searches_while_another_client_inserts(server, rc):
    dim = 12
    base = random_vectors(500, dim, seed=12)
    fill(rc, "vs", base, "NOQUANT")
    added = random_vectors(1200, dim, seed=13)
    done = threading.Event()
    searches = [0]

    def insert():
        c = server.client()
        try:
            pipe = c.pipeline(transaction=False)
            for i, v in enumerate(added):
                pipe.execute_command("VADD", "vs", "FP32", fp32(v), f"n{i}", "NOQUANT")
                if i % 50 == 49:
                    assert all(x == 1 for x in pipe.execute())
            assert all(x == 1 for x in pipe.execute())
        finally:
            done.set()
            c.close()

    def search(seed):
        def body():
            c = server.client()
            rng = random.Random(seed)
            try:
                while not done.is_set():
                    q = [rng.uniform(-1, 1) for _ in range(dim)]
                    got = c.execute_command("VSIM", "vs", "FP32", fp32(q), "COUNT", "5",
                                            "WITHSCORES")
                    assert len(got) == 10
                    scores = [float(s) for s in got[1::2]]
                    assert all(0.0 <= s <= 1.0 for s in scores)
                    assert scores == sorted(scores, reverse=True)
                    searches[0] += 1
            finally:
                c.close()
        return body

    run_threads([insert] + [search(s) for s in range(3)])
    assert searches[0] > 0
    assert rc("VCARD", "vs") == 1700
    # Every inserted element is reachable through the graph search.
    pipe = rc.client.pipeline(transaction=False)
    for v in added:
        pipe.execute_command("VSIM", "vs", "FP32", fp32(v), "COUNT", "3", "EF", "200")
    missing = [i for i, got in enumerate(pipe.execute()) if f"n{i}" not in got]
    assert missing == []


def test_delete_key_while_searches_run(server, rc):
    dim = 8
    vectors = random_vectors(400, dim, seed=14)
    fill(rc, "vs", vectors)
    stop = threading.Event()

    def search(seed):
        def body():
            c = server.client()
            rng = random.Random(seed)
            try:
                while not stop.is_set():
                    q = [rng.uniform(-1, 1) for _ in range(dim)]
                    got = c.execute_command("VSIM", "vs", "FP32", fp32(q), "COUNT", "20",
                                            "EF", "300")
                    assert isinstance(got, list) and len(got) <= 20
            finally:
                c.close()
        return body

    def churn():
        c = server.client()
        try:
            for round_ in range(25):
                c.execute_command("DEL" if round_ % 2 else "UNLINK", "vs")
                pipe = c.pipeline(transaction=False)
                for i, v in enumerate(vectors[:150]):
                    pipe.execute_command("VADD", "vs", "FP32", fp32(v), str(i))
                pipe.execute()
                c.execute_command("FLUSHALL" if round_ % 5 == 4 else "PING")
        finally:
            stop.set()
            c.close()

    run_threads([churn] + [search(s) for s in range(3)])
    assert server.alive()
    assert rc("PING") in ("PONG", True)


def test_vrem_emptying_the_set_while_vadd_runs_loses_no_element(server, rc):
    """Clients add and remove their own elements, so the set empties (and is deleted) again
    and again while other VADDs are running: an acknowledged VADD is never lost with it."""
    def client(prefix):
        def body():
            c = server.client()
            try:
                for i in range(120):
                    name = f"{prefix}{i}"
                    assert c.execute_command("VADD", "vs", *values([1, i % 7 + 1]), name) == 1
                    assert c.execute_command("VISMEMBER", "vs", name) == 1
                    assert c.execute_command("VREM", "vs", name) == 1
                assert c.execute_command("VADD", "vs", *values([1, 1]), f"{prefix}-last") == 1
            finally:
                c.close()
        return body

    run_threads([client(p) for p in "abcd"])
    assert sorted(rc("VRANDMEMBER", "vs", "10")) == ["a-last", "b-last", "c-last", "d-last"]
    for p in "abcd":
        rc("VREM", "vs", f"{p}-last")
    assert rc("EXISTS", "vs") == 0
