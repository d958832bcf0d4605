"""Writes to indexed hashes (issue 18): an update re-indexes the document (text, tag,
numeric follow the write; its vector moves only when its bytes changed), and FT.INFO's
counters follow RediSearch 2.10: every (re-)indexing takes a new doc id (max_doc_id),
num_docs counts live documents, and the records and terms of replaced or deleted
documents stay counted until the GC (which waits for 100 deletions). Runs unchanged on
Redis 8.8 + RediSearch 2.10 (HOTKV_TEST_REDIS_MODULE)."""
import struct

import pytest


def blob(*v):
    return struct.pack("%df" % len(v), *v)


def info(r, name):
    raw = r.execute_command("FT.INFO", name)
    return dict(zip(raw[::2], raw[1::2]))


def counters(r, name):
    d = info(r, name)
    return {k: int(d[k]) for k in ("num_docs", "max_doc_id", "num_terms", "num_records",
                                    "hash_indexing_failures")}


@pytest.fixture
def idx(r):
    r.execute_command("FT.CREATE", "upd", "ON", "HASH", "PREFIX", "1", "u:", "SCHEMA",
                      "t", "TEXT", "g", "TAG", "n", "NUMERIC", "SORTABLE",
                      "v", "VECTOR", "HNSW", "6", "TYPE", "FLOAT32", "DIM", "2",
                      "DISTANCE_METRIC", "L2")
    yield r
    r.execute_command("FT.DROPINDEX", "upd")


def knn(r, vec, extra="*"):
    res = r.execute_command("FT.SEARCH", "upd", f"{extra}=>[KNN 3 @v $B AS s]", "PARAMS", "2",
                            "B", vec, "SORTBY", "s", "RETURN", "3", "s", "g", "n",
                            "DIALECT", "2")
    return [(res[i], dict(zip(res[i + 1][::2], res[i + 1][1::2]))) for i in range(1, len(res), 2)]


def test_updates_reindex_fields_and_keep_vectors(idx):
    r = idx
    r.hset("u:1", mapping={"t": "red apple", "g": "fruit", "n": 1, "v": blob(0, 0)})
    r.hset("u:2", mapping={"t": "green pear", "g": "fruit", "n": 2, "v": blob(3, 0)})
    # Non-vector fields change: the index follows; the vector stays where it was.
    r.hset("u:1", mapping={"t": "yellow banana", "g": "snack", "n": 5})
    assert r.execute_command("FT.SEARCH", "upd", "apple", "NOCONTENT") == [0]
    assert r.execute_command("FT.SEARCH", "upd", "banana", "NOCONTENT") == [1, "u:1"]
    assert r.execute_command("FT.SEARCH", "upd", "@g:{fruit}", "NOCONTENT") == [1, "u:2"]
    assert r.execute_command("FT.SEARCH", "upd", "@n:[5 5]", "NOCONTENT") == [1, "u:1"]
    hits = knn(r, blob(0, 0))
    assert [k for k, _ in hits] == ["u:1", "u:2"]
    assert hits[0][1] == {"s": "0", "g": "snack", "n": "5"}
    assert knn(r, blob(0, 0), "(@g:{snack})") == [hits[0]]
    # A field outside the schema: still indexed, still found.
    r.hset("u:1", "other", "x")
    assert [k for k, _ in knn(r, blob(0, 0))] == ["u:1", "u:2"]
    # The vector changes: it moves.
    r.hset("u:1", "v", blob(10, 0))
    hits = knn(r, blob(0, 0))
    assert [k for k, _ in hits] == ["u:2", "u:1"]
    assert hits[1][1]["s"] == "100"
    # The vector goes away (HDEL): the document stays, without a vector.
    r.hdel("u:1", "v")
    assert [k for k, _ in knn(r, blob(0, 0))] == ["u:2"]
    assert r.execute_command("FT.SEARCH", "upd", "banana", "NOCONTENT") == [1, "u:1"]
    # A vector of the wrong size: the document leaves the index.
    r.hset("u:2", "v", b"abc")
    assert knn(r, blob(0, 0)) == []
    assert r.execute_command("FT.SEARCH", "upd", "pear", "NOCONTENT") == [0]


def test_info_counts_updates_as_redisearch(idx):
    r = idx
    r.hset("u:1", mapping={"t": "hello world", "g": "a,b", "n": 1})
    r.hset("u:2", mapping={"t": "foo bar", "g": "b", "n": 2})
    # 4 terms + 3 tag values + 2 numbers.
    assert counters(r, "upd") == {"num_docs": 2, "max_doc_id": 2, "num_terms": 4, "num_records": 9,
                                  "hash_indexing_failures": 0}
    r.hset("u:1", "t", "hello cat")      # re-indexed: new id; the old records stay
    r.hset("u:1", "other", "x")          # a field outside the schema: re-indexed too
    assert counters(r, "upd") == {"num_docs": 2, "max_doc_id": 4, "num_terms": 5,
                                  "num_records": 9 + 5 + 5, "hash_indexing_failures": 0}
    r.hset("u:2", "n", "not a number")   # fails: the document leaves, no new id
    r.delete("u:1")
    assert counters(r, "upd") == {"num_docs": 0, "max_doc_id": 4, "num_terms": 5,
                                  "num_records": 19, "hash_indexing_failures": 1}
    r.hset("u:3", mapping={"t": "running"})  # "running" and its stem "+run"
    c = counters(r, "upd")
    assert (c["num_docs"], c["max_doc_id"], c["num_terms"], c["num_records"]) == (1, 5, 7, 21)
    d = info(r, "upd")
    assert float(d["records_per_doc_avg"]) == 21


@pytest.mark.parametrize("algo", ["HNSW", "FLAT"])
def test_vector_blob_that_reads_as_an_integer(r, algo):
    # A 4-byte FLOAT32 blob made of digits ("1234") is stored by the hash as the integer
    # 1234 and read back as its text: the index must store those bytes, not a dangling view.
    r.execute_command("FT.CREATE", "intv", "ON", "HASH", "PREFIX", "1", "iv:", "SCHEMA",
                      "v", "VECTOR", algo, "6", "TYPE", "FLOAT32", "DIM", "1",
                      "DISTANCE_METRIC", "L2")
    try:
        for key, v in (("iv:1", "1234"), ("iv:2", "-123"), ("iv:3", "5678"), ("iv:4", "9999")):
            r.hset(key, "v", v)
        q = ["FT.SEARCH", "intv", "*=>[KNN 4 @v $B AS s]", "PARAMS", "2", "B", "1234",
             "SORTBY", "s", "RETURN", "1", "s", "DIALECT", "2"]

        def ranked():
            res = r.execute_command(*q)
            return [(res[i], float(res[i + 1][1])) for i in range(1, len(res), 2)]

        want = sorted(((k, (struct.unpack("<f", v.encode())[0] - struct.unpack("<f", b"1234")[0]) ** 2)
                       for k, v in (("iv:1", "1234"), ("iv:2", "-123"), ("iv:3", "5678"),
                                    ("iv:4", "9999"))), key=lambda x: x[1])
        got = ranked()
        assert [k for k, _ in got] == [k for k, _ in want]
        assert got[0] == ("iv:1", 0.0)
        for (_, a), (_, b) in zip(got, want):
            assert a == pytest.approx(b, rel=1e-5)
        r.hset("iv:1", "v", "9999")  # an update to another integer-looking blob moves it
        got = ranked()
        assert got[0][0] != "iv:1"
        assert dict(got)["iv:1"] == dict(got)["iv:4"]
    finally:
        r.execute_command("FT.DROPINDEX", "intv")
