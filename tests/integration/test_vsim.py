"""HotKV's vector dialect (docs/vector.md): VSIM.CREATEINDEX VSIM.SET VSIM.SEARCH VSIM.GET
VSIM.DEL VSIM.INFO VSIM.CARD — options, replies (RESP2 and RESP3), errors leaving the index
unchanged, distances per metric, FILTER, sharing keys with the Redis 8 dialect (VADD/VSIM),
notifications, recall, and searches running while another client inserts."""
import json
import random
import threading

import pytest

from helpers_pubsub import KeyspaceWatcher, conns, ps_server, set_events  # noqa: F401
from helpers_types import SYNTAX, WRONGTYPE, arity, rc_fixture, resp3_connection
from vector_helpers import (as_f32, brute_force, cosine_distance, dot, fp32, l2_squared, pairs,
                            random_vectors, run_threads, values)

pytestmark = pytest.mark.hotkv_only

NO_INDEX = "ERR no such index"


@pytest.fixture
def rc(server, r):
    yield from rc_fixture(server)


def info(rc, key):
    return dict(pairs(rc("VSIM.INFO", key)))


def state(rc, key):
    return (info(rc, key), rc("VSIM.GET", key, "a"), rc("VSIM.GET", key, "b"))


# ----------------------------------------------------------------------------- CREATEINDEX

def test_createindex_defaults(rc):
    assert rc("VSIM.CREATEINDEX", "idx", "DIM", "4") == "OK"
    assert rc("TYPE", "idx") == "vectorset"
    assert rc("EXISTS", "idx") == 1 and rc("VSIM.CARD", "idx") == 0
    i = info(rc, "idx")
    assert list(i) == ["dim", "metric", "type", "m", "ef_construction", "size", "max_level",
                       "attributes", "projection_input_dim", "persistent", "memory_bytes"]
    assert (i["dim"], i["metric"], i["type"], i["m"], i["ef_construction"]) == \
        (4, "cosine", "float32", 16, 200)
    assert (i["size"], i["max_level"], i["attributes"], i["persistent"]) == (0, -1, 0, 1)
    assert i["memory_bytes"] > 0


def test_createindex_options(rc):
    assert rc("VSIM.CREATEINDEX", "idx", "DIM", "3", "METRIC", "l2", "M", "8",
              "EF_CONSTRUCTION", "64", "TYPE", "q8") == "OK"
    i = info(rc, "idx")
    assert (i["metric"], i["m"], i["ef_construction"], i["type"]) == ("l2", 8, 64, "q8")
    assert rc("VSIM.CREATEINDEX", "ip", "METRIC", "IP", "DIM", "2") == "OK"
    assert info(rc, "ip")["metric"] == "ip"


@pytest.mark.parametrize("args,error", [
    ([], "ERR DIM is required"),
    (["METRIC", "L2"], "ERR DIM is required"),
    (["DIM", "0"], "ERR invalid DIM"),
    (["DIM", "65537"], "ERR invalid DIM"),
    (["DIM", "x"], "ERR invalid DIM"),
    (["DIM", "4", "METRIC", "HAMMING"], "ERR invalid METRIC"),
    (["DIM", "4", "M", "1"], "ERR invalid M"),
    (["DIM", "4", "M", "256"], "ERR invalid M"),
    (["DIM", "4", "EF_CONSTRUCTION", "0"], "ERR invalid EF_CONSTRUCTION"),
    (["DIM", "4", "TYPE", "BIN"], "ERR invalid TYPE"),
    (["DIM", "4", "FOO", "1"], SYNTAX),
    (["DIM", "4", "M"], SYNTAX),
])
def test_createindex_errors(rc, args, error):
    if not args:
        assert rc.err("VSIM.CREATEINDEX", "idx") == arity("vsim.createindex")
        assert rc.err("VSIM.CREATEINDEX", "idx", "DIM") == arity("vsim.createindex")
        return
    assert rc.err("VSIM.CREATEINDEX", "idx", *args) == error
    assert rc("EXISTS", "idx") == 0


def test_createindex_existing_key(rc):
    rc("VSIM.CREATEINDEX", "idx", "DIM", "2")
    rc("VSIM.SET", "idx", "a", *values([1, 2]))
    assert rc.err("VSIM.CREATEINDEX", "idx", "DIM", "3") == "ERR key already exists"
    assert info(rc, "idx")["dim"] == 2 and rc("VSIM.CARD", "idx") == 1
    rc("SET", "s", "x")
    assert rc.err("VSIM.CREATEINDEX", "s", "DIM", "3") == "ERR key already exists"
    assert rc("GET", "s") == "x"


# ----------------------------------------------------------------------------- SET / GET

def test_set_get(rc):
    rc("VSIM.CREATEINDEX", "idx", "DIM", "3", "METRIC", "L2")
    v = [0.1, -2.5, 3.75]
    assert rc("VSIM.SET", "idx", "a", *values(v)) == 1
    assert rc("VSIM.SET", "idx", "b", "FP32", fp32([1, 2, 3]), "ATTRS", '{"n": 1}') == 1
    assert rc("VSIM.CARD", "idx") == 2
    got = rc("VSIM.GET", "idx", "a")
    assert got[0::2] == ["vector", "attributes"] and got[3] is None
    assert [float(x) for x in got[1]] == [as_f32(x) for x in v]  # float32, L2: exact
    assert rc("VSIM.GET", "idx", "b")[3] == '{"n": 1}'
    # Update: the vector is replaced; attributes kept unless ATTRS is given.
    assert rc("VSIM.SET", "idx", "b", *values([3, 2, 1])) == 0
    got = rc("VSIM.GET", "idx", "b")
    assert [float(x) for x in got[1]] == [3, 2, 1] and got[3] == '{"n": 1}'
    assert rc("VSIM.SET", "idx", "b", *values([3, 2, 1]), "ATTRS", "") == 0
    assert rc("VSIM.GET", "idx", "b")[3] is None
    assert rc("VSIM.CARD", "idx") == 2
    assert rc("VSIM.GET", "idx", "zz") is None and rc("VSIM.GET", "nokey", "a") is None


def test_set_errors_leave_the_index_unchanged(rc):
    rc("VSIM.CREATEINDEX", "idx", "DIM", "2")
    rc("VSIM.SET", "idx", "a", *values([1, 2]), "ATTRS", '{"k": 1}')
    before = state(rc, "idx")
    assert rc.err("VSIM.SET", "idx", "b", *values([1, 2, 3])) == \
        "ERR Vector dimension mismatch - got 3 but set has 2"
    assert rc.err("VSIM.SET", "idx", "a", "FP32", fp32([1])) == \
        "ERR Vector dimension mismatch - got 1 but set has 2"
    for bad in (["VALUES", "2", "1", "nan"], ["VALUES", "2", "1", "inf"], ["VALUES", "2", "1"],
                ["FP32", b"12345"], ["VALUES", "2", "x", "1"], ["JSON", "2"]):
        assert rc.err("VSIM.SET", "idx", "b", *bad, "ATTRS", "{}") == \
            "ERR invalid vector specification"
    assert rc.err("VSIM.SET", "idx", "a", *values([5, 5]), "ATTRS", "[1]") == \
        "ERR ATTRS must be a JSON object (or empty to remove)"
    assert rc.err("VSIM.SET", "idx", "a", *values([5, 5]), "ATTRS", '{"k": ') == \
        "ERR ATTRS must be a JSON object (or empty to remove)"
    assert rc.err("VSIM.SET", "idx", "a", *values([5, 5]), "ATTRS") == SYNTAX
    assert rc.err("VSIM.SET", "idx", "a", *values([5, 5]), "EXTRA") == SYNTAX
    assert state(rc, "idx") == before
    assert rc.err("VSIM.SET", "nokey", "a", *values([1, 2])) == NO_INDEX
    assert rc("EXISTS", "nokey") == 0
    rc("SET", "s", "x")
    assert rc.err("VSIM.SET", "s", "a", *values([1, 2])) == WRONGTYPE
    assert rc.err("VSIM.SET", "idx", "a", "VALUES") == arity("vsim.set")


# ----------------------------------------------------------------------------- SEARCH

def search_scores(rc, *args):
    return [(n, float(d)) for n, d in pairs(rc("VSIM.SEARCH", *args, "WITHSCORES"))]


@pytest.mark.parametrize("metric,distance", [
    ("COSINE", cosine_distance),
    ("L2", l2_squared),
    ("IP", lambda a, b: 1.0 - dot(a, b)),
])
def test_search_distances_per_metric(rc, metric, distance):
    vectors = random_vectors(60, 5, seed=20)
    rc("VSIM.CREATEINDEX", "idx", "DIM", "5", "METRIC", metric)
    for i, v in enumerate(vectors):
        rc("VSIM.SET", "idx", str(i), "FP32", fp32(v))
    q = random_vectors(1, 5, seed=21)[0]
    got = search_scores(rc, "idx", "FP32", fp32(q), "K", "8", "EF", "200")
    expected = brute_force(vectors, q, 8, distance)
    assert [n for n, _ in got] == expected
    for n, d in got:
        assert d == pytest.approx(distance(vectors[int(n)], q), abs=1e-4)
    # The element's own vector is nearest, at distance 0 (cosine, L2).
    if metric != "IP":
        (first, d0), *_ = search_scores(rc, "idx", "FP32", fp32(vectors[7]), "K", "3")
        assert first == "7" and d0 == pytest.approx(0.0, abs=1e-6)


def test_search_options_and_shapes(rc):
    rc("VSIM.CREATEINDEX", "idx", "DIM", "2", "METRIC", "L2")
    for i in range(30):
        rc("VSIM.SET", "idx", f"p{i}", *values([i, 0]), "ATTRS", json.dumps({"i": i}))
    q = values([0, 0])
    assert rc("VSIM.SEARCH", "idx", *q) == [f"p{i}" for i in range(10)]  # K defaults to 10
    assert rc("VSIM.SEARCH", "idx", *q, "K", "3") == ["p0", "p1", "p2"]
    assert rc("VSIM.SEARCH", "idx", *q, "K", "2", "WITHSCORES") == ["p0", "0", "p1", "1"]
    assert rc("VSIM.SEARCH", "idx", *q, "K", "2", "WITHATTRS") == \
        ["p0", '{"i": 0}', "p1", '{"i": 1}']
    assert rc("VSIM.SEARCH", "idx", *q, "K", "1", "WITHSCORES", "WITHATTRS") == \
        ["p0", "0", '{"i": 0}']
    assert rc("VSIM.SEARCH", "idx", *q, "K", "3", "FILTER", ".i % 2 == 1 and .i > 4") == \
        ["p5", "p7", "p9"]
    assert rc("VSIM.SEARCH", "idx", *q, "K", "100", "EF", "500") == [f"p{i}" for i in range(30)]


def test_search_errors(rc):
    rc("VSIM.CREATEINDEX", "idx", "DIM", "2")
    rc("VSIM.SET", "idx", "a", *values([1, 2]))
    q = values([1, 2])
    assert rc.err("VSIM.SEARCH", "nokey", *q) == NO_INDEX
    rc("SET", "s", "x")
    assert rc.err("VSIM.SEARCH", "s", *q) == WRONGTYPE
    assert rc.err("VSIM.SEARCH", "idx", *values([1, 2, 3])) == \
        "ERR Vector dimension mismatch - got 3 but set has 2"
    assert rc.err("VSIM.SEARCH", "idx", "VALUES", "2", "1") == "ERR invalid vector specification"
    assert rc.err("VSIM.SEARCH", "idx", "ELE", "a") == "ERR invalid vector specification"
    for opts, error in [(["K", "0"], "ERR invalid K"), (["K", "x"], "ERR invalid K"),
                        (["EF", "0"], "ERR invalid EF"), (["EF", "1000001"], "ERR invalid EF"),
                        (["K"], SYNTAX), (["COUNT", "3"], SYNTAX), (["WITHATTRIBS"], SYNTAX),
                        (["FILTER", ".x >"], "ERR syntax error in FILTER expression near: .x >")]:
        assert rc.err("VSIM.SEARCH", "idx", *q, *opts) == error
    assert rc("VSIM.CARD", "idx") == 1


def test_resp3_shapes(server, r):
    c = resp3_connection(server)
    try:
        assert c.command("VSIM.CREATEINDEX", "idx", "DIM", "2", "METRIC", "L2") == "OK"
        assert c.command("VSIM.SET", "idx", "a", *values([0, 0]), "ATTRS", '{"x": 1}') == 1
        assert c.command("VSIM.SET", "idx", "b", *values([3, 4])) == 1
        q = values([0, 0])
        assert c.command("VSIM.SEARCH", "idx", *q) == [b"a", b"b"]
        assert c.command("VSIM.SEARCH", "idx", *q, "WITHSCORES") == \
            ("map", [(b"a", ("double", "0")), (b"b", ("double", "25"))])
        assert c.command("VSIM.SEARCH", "idx", *q, "WITHATTRS") == \
            ("map", [(b"a", b'{"x": 1}'), (b"b", None)])
        assert c.command("VSIM.SEARCH", "idx", *q, "WITHSCORES", "WITHATTRS") == \
            ("map", [(b"a", [("double", "0"), b'{"x": 1}']), (b"b", [("double", "25"), None])])
        assert c.command("VSIM.GET", "idx", "b") == \
            ("map", [(b"vector", [("double", "3"), ("double", "4")]), (b"attributes", None)])
        assert c.command("VSIM.GET", "idx", "zz") is None
        kind, fields = c.command("VSIM.INFO", "idx")
        assert kind == "map" and dict(fields)[b"size"] == 2 and dict(fields)[b"metric"] == b"l2"
    finally:
        c.close()


# ----------------------------------------------------------------------------- DEL / CARD

def test_del_and_card(rc):
    assert rc("VSIM.DEL", "nokey", "a") == 0
    assert rc("VSIM.CARD", "nokey") == 0
    assert rc.err("VSIM.INFO", "nokey") == NO_INDEX
    rc("VSIM.CREATEINDEX", "idx", "DIM", "2")
    rc("VSIM.SET", "idx", "a", *values([1, 2]), "ATTRS", '{"x": 1}')
    rc("VSIM.SET", "idx", "b", *values([2, 1]))
    assert info(rc, "idx")["attributes"] == 1
    assert rc("VSIM.DEL", "idx", "a", "zz", "a") == 1
    assert info(rc, "idx")["attributes"] == 0
    assert rc("VSIM.CARD", "idx") == 1
    assert rc("VSIM.DEL", "idx", "b") == 1
    # An index made by VSIM.CREATEINDEX stays when emptied.
    assert rc("EXISTS", "idx") == 1 and rc("VSIM.CARD", "idx") == 0
    assert rc("VSIM.SEARCH", "idx", *values([1, 2])) == []
    rc("SET", "s", "x")
    for c in (["VSIM.DEL", "s", "a"], ["VSIM.CARD", "s"], ["VSIM.INFO", "s"], ["VSIM.GET", "s", "a"]):
        assert rc.err(*c) == WRONGTYPE


# ----------------------------------------------------------------------------- both dialects

def test_index_created_here_is_a_vector_set(rc):
    rc("VSIM.CREATEINDEX", "idx", "DIM", "2")
    rc("VSIM.SET", "idx", "a", *values([1, 0]))
    # float32 storage: VADD must say NOQUANT (its default is Q8), and the default M 16.
    assert rc.err("VADD", "idx", *values([0, 1]), "b") == \
        "ERR asked quantization mismatch with existing vector set"
    assert rc("VADD", "idx", *values([0, 1]), "b", "NOQUANT") == 1
    assert rc("VCARD", "idx") == 2 and rc("VDIM", "idx") == 2
    assert dict(pairs(rc("VINFO", "idx")))["quant-type"] == "f32"
    reply = rc("VSIM", "idx", *values([1, 0]), "WITHSCORES")
    assert reply[0::2] == ["a", "b"]
    assert [float(s) for s in reply[1::2]] == pytest.approx([1.0, 0.5], abs=1e-6)
    assert rc("VREM", "idx", "a") == 1 and rc("VREM", "idx", "b") == 1
    assert rc("EXISTS", "idx") == 1  # persistent, whichever dialect empties it


def test_vadd_set_is_searchable_here(rc):
    rc("VADD", "vs", *values([1, 0]), "a", "SETATTR", '{"t": 1}')
    rc("VADD", "vs", *values([0, 1]), "b")
    i = info(rc, "vs")
    assert (i["type"], i["metric"], i["persistent"], i["attributes"]) == ("q8", "cosine", 0, 1)
    got = search_scores(rc, "vs", *values([1, 0]))
    assert [n for n, _ in got] == ["a", "b"]
    assert [d for _, d in got] == pytest.approx([0.0, 1.0], abs=0.02)  # cosine distance
    assert rc("VSIM.SET", "vs", "c", *values([1, 1])) == 1
    assert rc("VISMEMBER", "vs", "c") == 1
    assert rc("VSIM.DEL", "vs", "a", "b", "c") == 3
    assert rc("EXISTS", "vs") == 0  # a VADD set is deleted when emptied, as in Redis


def test_key_commands(rc):
    rc("VSIM.CREATEINDEX", "idx", "DIM", "2", "METRIC", "L2")
    rc("VSIM.SET", "idx", "a", *values([1, 2]))
    assert rc("COPY", "idx", "cp") == 1
    rc("VSIM.SET", "cp", "b", *values([3, 4]))
    assert (rc("VSIM.CARD", "idx"), rc("VSIM.CARD", "cp")) == (1, 2)
    assert info(rc, "cp")["metric"] == "l2" and info(rc, "cp")["persistent"] == 1
    assert rc("RENAME", "cp", "cp2") == "OK" and rc("VSIM.CARD", "cp2") == 2
    assert rc("SCAN", "0", "TYPE", "vectorset")[1] != []
    assert rc("EXPIRE", "idx", "100") == 1 and 0 < rc("TTL", "idx") <= 100
    assert rc("DEL", "idx", "cp2") == 2


def test_transaction(rc):
    rc("MULTI")
    rc("VSIM.CREATEINDEX", "idx", "DIM", "1")
    rc("VSIM.SET", "idx", "a", *values([1]))
    rc("VSIM.SEARCH", "idx", *values([1]), "WITHSCORES")
    rc("VSIM.DEL", "idx", "a")
    assert rc("EXEC") == ["OK", 1, ["a", "0"], 1]


def test_notifications(conns):
    nc = conns.client()
    nc.execute_command("FLUSHALL")
    set_events(nc, "KEA")
    try:
        w = KeyspaceWatcher(conns)
        nc.execute_command("VSIM.CREATEINDEX", "idx", "DIM", "2")
        nc.execute_command("VSIM.SET", "idx", "a", *values([1, 2]))
        nc.execute_command("VSIM.SEARCH", "idx", *values([1, 2]))
        nc.execute_command("VSIM.DEL", "idx", "zz")
        nc.execute_command("VSIM.DEL", "idx", "a")
        assert w.events(nc) == [(0, "idx", "vsim.createindex"), (0, "idx", "vsim.set"),
                                (0, "idx", "vsim.del")]
    finally:
        set_events(nc, "")


# ----------------------------------------------------------------------------- recall, threads

def test_recall_l2(rc):
    vectors = random_vectors(2000, 16, seed=22)
    rc("VSIM.CREATEINDEX", "idx", "DIM", "16", "METRIC", "L2")
    pipe = rc.client.pipeline(transaction=False)
    for i, v in enumerate(vectors):
        pipe.execute_command("VSIM.SET", "idx", str(i), "FP32", fp32(v))
    pipe.execute()
    hits = 0
    queries = random_vectors(20, 16, seed=23)
    for q in queries:
        truth = set(brute_force(vectors, q, 10, l2_squared))
        hits += len(truth & set(rc("VSIM.SEARCH", "idx", "FP32", fp32(q), "K", "10", "EF", "200")))
    assert hits / (10 * len(queries)) >= 0.9


def test_searches_while_inserting(server, rc):
    dim = 10
    rc("VSIM.CREATEINDEX", "idx", "DIM", str(dim), "METRIC", "L2")
    vectors = random_vectors(1000, dim, seed=24)
    done = threading.Event()

    def insert():
        c = server.client()
        try:
            for start in range(0, len(vectors), 100):
                pipe = c.pipeline(transaction=False)
                for i in range(start, start + 100):
                    pipe.execute_command("VSIM.SET", "idx", str(i), "FP32", fp32(vectors[i]),
                                         "ATTRS", json.dumps({"odd": i % 2}))
                assert pipe.execute() == [1] * 100
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
                    got = c.execute_command("VSIM.SEARCH", "idx", "FP32", fp32(q), "K", "5",
                                            "FILTER", ".odd == 1", "WITHSCORES")
                    names = got[0::2]
                    assert all(int(n) % 2 == 1 for n in names)
                    dists = [float(d) for d in got[1::2]]
                    assert dists == sorted(dists)
            finally:
                c.close()
        return body

    run_threads([insert] + [search(s) for s in range(3)])
    assert rc("VSIM.CARD", "idx") == 1000
    pipe = rc.client.pipeline(transaction=False)
    for v in vectors:
        pipe.execute_command("VSIM.SEARCH", "idx", "FP32", fp32(v), "K", "1", "EF", "100")
    missing = [i for i, got in enumerate(pipe.execute()) if got != [str(i)]]
    assert missing == []  # every inserted element is found through the graph
