"""VECTOR_RANGE on FLAT and HNSW fields against exact answers on random data (issue 18):
FLAT is exact; HNSW's range search (greedy descent, then a layer-0 walk bounded by the
radius widened by EPSILON, RediSearch's) finds >= 95 % of the documents with the default
EPSILON and never a document outside the radius; $EPSILON and $YIELD_DISTANCE_AS reply
shapes. Runs unchanged on Redis 8.8 + RediSearch 2.10 (HOTKV_TEST_REDIS_MODULE)."""
import math
import random
import struct

import pytest

DIM = 16
N = 3000


def blob(v):
    return struct.pack("%df" % len(v), *v)


def l2(a, b):
    # Both sides in float32, as the servers store them.
    return sum((x - y) * (x - y) for x, y in zip(a, b))


@pytest.fixture
def data(r):
    rng = random.Random(18)
    centers = [[rng.gauss(0, 3) for _ in range(DIM)] for _ in range(20)]
    vecs = []
    for i in range(N):
        c = centers[rng.randrange(len(centers))]
        v = struct.unpack("%df" % DIM, blob([x + rng.gauss(0, 1) for x in c]))
        vecs.append(v)
    r.execute_command("FT.CREATE", "rv", "ON", "HASH", "PREFIX", "1", "rv:", "SCHEMA",
                      "vf", "VECTOR", "FLAT", "6", "TYPE", "FLOAT32", "DIM", str(DIM),
                      "DISTANCE_METRIC", "L2",
                      "vh", "VECTOR", "HNSW", "6", "TYPE", "FLOAT32", "DIM", str(DIM),
                      "DISTANCE_METRIC", "L2", "tag", "TAG")
    p = r.pipeline(transaction=False)
    for i, v in enumerate(vecs):
        b = blob(v)
        p.hset(f"rv:{i}", mapping={"vf": b, "vh": b, "tag": "even" if i % 2 == 0 else "odd"})
        if i % 500 == 499:
            p.execute()
    p.execute()
    queries = [vecs[rng.randrange(N)] for _ in range(12)]
    queries = [struct.unpack("%df" % DIM, blob([x + rng.gauss(0, 0.3) for x in q]))
               for q in queries]
    yield r, vecs, queries
    r.execute_command("FT.DROPINDEX", "rv")


def range_query(r, field, radius, q, extra="", filt=""):
    attrs = "$YIELD_DISTANCE_AS: dist" + extra
    query = f"{filt}@{field}:[VECTOR_RANGE $r $b]=>{{{attrs}}}"
    if filt:
        query = f"({query})"
    res = r.execute_command("FT.SEARCH", "rv", query, "PARAMS", "4", "r", repr(radius),
                            "b", blob(q), "SORTBY", "dist", "RETURN", "1", "dist",
                            "LIMIT", "0", "10000", "DIALECT", "2")
    hits = [(res[i], float(res[i + 1][1])) for i in range(1, len(res), 2)]
    for i in range(1, len(res), 2):
        assert res[i + 1][0] == "dist"
    assert res[0] == len(hits)
    return hits


def test_flat_exact_and_hnsw_recall(data):
    r, vecs, queries = data
    found = wanted = 0
    for want in (1, 25, 400):
        for q in queries:
            dists = sorted((l2(v, q), i) for i, v in enumerate(vecs))
            radius = (dists[want - 1][0] + dists[want][0]) / 2
            truth = {f"rv:{i}" for d, i in dists[:want]}
            flat = range_query(r, "vf", radius, q)
            assert {k for k, _ in flat} == truth
            assert [d for _, d in flat] == sorted(d for _, d in flat)
            hnsw = range_query(r, "vh", radius, q)
            keys = {k for k, _ in hnsw}
            assert keys <= truth  # nothing outside the radius
            assert all(d <= radius * (1 + 1e-6) for _, d in hnsw)
            # Same distances as FLAT for the documents both found.
            fd = dict(flat)
            for k, d in hnsw:
                assert math.isclose(d, fd[k], rel_tol=1e-5, abs_tol=1e-5)
            found += len(keys)
            wanted += want
    assert found / wanted >= 0.95, found / wanted


def test_epsilon_and_filter(data):
    r, vecs, queries = data
    q = queries[0]
    dists = sorted((l2(v, q), i) for i, v in enumerate(vecs))
    radius = (dists[99][0] + dists[100][0]) / 2
    default = range_query(r, "vh", radius, q)
    wide = range_query(r, "vh", radius, q, extra="; $EPSILON: 0.5")
    assert len(wide) >= len(default) >= 90
    # A tag filter intersects: only even documents, the same distances.
    even = range_query(r, "vh", radius, q, filt="@tag:{even} ")
    assert even and all(int(k.split(":")[1]) % 2 == 0 for k, _ in even)
    assert {k for k, _ in even} <= {k for k, _ in wide}
    # A radius below every distance: nothing; a huge one: every document.
    assert range_query(r, "vh", dists[0][0] / 2, q) == [] or dists[0][0] == 0
    res = r.execute_command("FT.SEARCH", "rv", "@vh:[VECTOR_RANGE 1e9 $b]", "PARAMS", "2",
                            "b", blob(q), "NOCONTENT", "LIMIT", "0", "0", "DIALECT", "2")
    assert res[0] >= N * 0.95
    # A bad EPSILON is a syntax error, as RediSearch's.
    with pytest.raises(Exception):
        range_query(r, "vh", radius, q, extra="; $EPSILON: -1")
