"""FT.CREATE / FT.SEARCH / FT.DROPINDEX / FT._LIST (search/): indexes over hashes and JSON
kept in step with every write, each query form, FT.SEARCH's options, RESP2 and RESP3 replies.
Replies and error texts were compared with Redis 8.8 + RediSearch 2.10."""
import struct

import pytest

from conftest import error_reply, restarted_with_aof, wait_until


def vec(*xs):
    return struct.pack("%df" % len(xs), *xs)


def ft(r, *args):
    return r.execute_command(*args)


def ids(reply):
    """The ids of an FT.SEARCH reply with fields (RESP2)."""
    return [reply[i] for i in range(1, len(reply), 2)]


def fields(reply, i):
    f = reply[2 * i + 2]
    return dict(zip(f[::2], f[1::2]))


@pytest.fixture
def idx(r):
    ft(r, "FT.CREATE", "idx", "ON", "HASH", "PREFIX", "1", "doc:", "SCHEMA",
       "title", "TEXT", "SORTABLE", "tag", "TAG", "price", "NUMERIC", "SORTABLE",
       "loc", "GEO", "v", "VECTOR", "FLAT", "6", "TYPE", "FLOAT32", "DIM", "2",
       "DISTANCE_METRIC", "L2")
    yield r
    for name in ft(r, "FT._LIST"):
        ft(r, "FT.DROPINDEX", name)


def test_create_list_drop_errors(r):
    assert ft(r, "FT.CREATE", "i1", "SCHEMA", "t", "TEXT") == "OK"
    assert error_reply(r, "FT.CREATE", "i1", "SCHEMA", "t", "TEXT") == "Index already exists"
    assert ft(r, "FT._LIST") == ["i1"]
    assert error_reply(r, "FT.SEARCH", "nope", "*") == "No such index nope"
    assert error_reply(r, "FT.DROPINDEX", "nope") == "Unknown Index name"
    assert error_reply(r, "FT.CREATE") == "ERR wrong number of arguments for 'FT.CREATE' command"
    assert error_reply(r, "FT.SEARCH", "i1") == "No query string provided"
    assert error_reply(r, "FT.SEARCH", "i1", "*", "LIMIT", "0") == "LIMIT requires two arguments"
    assert error_reply(r, "FT.SEARCH", "i1", "*", "LIMIT", "a", "b") == \
        "LIMIT needs two numeric arguments"
    assert error_reply(r, "FT.SEARCH", "i1", "*", "bogus") == \
        "Unknown argument `bogus` at position 1 for <main>"
    assert error_reply(r, "FT.SEARCH", "i1", "*", "DIALECT", "9") == \
        "DIALECT requires a non negative integer >=1 and <= 4"
    assert error_reply(r, "FT.SEARCH", "i1", "*", "PARAMS", "1", "a") == \
        "Parameters must be specified in PARAM VALUE pairs"
    assert error_reply(r, "FT.SEARCH", "i1", "*", "SCORER", "nope") == "No such scorer nope"
    assert error_reply(r, "FT.SEARCH", "i1", "*", "SORTBY", "nope") == \
        "Property `nope` not loaded nor in schema"
    assert ft(r, "FT.DROPINDEX", "i1", "") == "OK"  # anything but DD keeps the documents
    assert ft(r, "FT._LIST") == []
    r.hset("h", "t", "x")
    ft(r, "FT.CREATE", "i2", "SCHEMA", "t", "TEXT")
    assert ft(r, "FT.DROP", "i2") == "OK"  # deprecated: deletes the documents
    assert r.exists("h") == 0
    assert error_reply(r, "FT.DROP", "i2") == "Unknown Index name"


def test_existing_keys_indexed_and_writes_visible_at_once(r):
    r.hset("doc:1", mapping={"title": "hello world", "price": 10})
    r.hset("other:1", mapping={"title": "hello there"})
    r.set("doc:str", "not a hash")
    ft(r, "FT.CREATE", "idx", "PREFIX", "1", "doc:", "SCHEMA", "title", "TEXT", "price", "NUMERIC")
    assert ids(ft(r, "FT.SEARCH", "idx", "hello")) == ["doc:1"]
    r.hset("doc:2", mapping={"title": "hello again", "price": 20})
    assert ft(r, "FT.SEARCH", "idx", "hello", "NOCONTENT", "SORTBY", "price") == [2, "doc:1", "doc:2"]
    # HSET changes, HDEL of an indexed field, DEL, RENAME, EXPIRE, FLUSHALL.
    r.hset("doc:1", "title", "goodbye")
    assert ft(r, "FT.SEARCH", "idx", "hello", "NOCONTENT") == [1, "doc:2"]
    assert ft(r, "FT.SEARCH", "idx", "@price:[5 15]", "NOCONTENT") == [1, "doc:1"]
    r.hdel("doc:1", "price")
    assert ft(r, "FT.SEARCH", "idx", "@price:[5 15]", "NOCONTENT") == [0]
    r.rename("doc:2", "doc:3")
    assert ft(r, "FT.SEARCH", "idx", "hello", "NOCONTENT") == [1, "doc:3"]
    r.rename("doc:3", "other:3")  # out of the prefix
    assert ft(r, "FT.SEARCH", "idx", "hello", "NOCONTENT") == [0]
    r.delete("doc:1")
    assert ft(r, "FT.SEARCH", "idx", "*", "NOCONTENT") == [0]
    r.hset("doc:4", mapping={"title": "x"})
    r.expire("doc:4", 0)
    assert ft(r, "FT.SEARCH", "idx", "*", "NOCONTENT") == [0]
    r.hset("doc:5", mapping={"title": "x"})
    r.copy("doc:5", "doc:6")
    assert ft(r, "FT.SEARCH", "idx", "x", "NOCONTENT") == [2, "doc:5", "doc:6"]
    r.move("doc:5", 1)  # only database 0 is indexed
    assert ft(r, "FT.SEARCH", "idx", "x", "NOCONTENT") == [1, "doc:6"]
    r.flushall()  # drops every index, as RediSearch does (FLUSHDB too)
    assert error_reply(r, "FT.SEARCH", "idx", "*") == "No such index idx"
    ft(r, "FT.CREATE", "idx", "PREFIX", "1", "doc:", "SCHEMA", "title", "TEXT", "price", "NUMERIC")
    r.hset("doc:7", mapping={"title": "x"})
    r.hset("doc:8", mapping={"title": "x", "price": "not a number"})  # fails to index
    assert ft(r, "FT.SEARCH", "idx", "*", "NOCONTENT") == [1, "doc:7"]
    r.swapdb(0, 1)
    assert ft(r, "FT.SEARCH", "idx", "*", "NOCONTENT") == [0]
    r.swapdb(0, 1)
    assert ft(r, "FT.SEARCH", "idx", "*", "NOCONTENT") == [1, "doc:7"]
    ft(r, "FT.DROPINDEX", "idx")


def test_active_expiry_removes_documents(r):
    ft(r, "FT.CREATE", "idx", "SCHEMA", "t", "TAG")
    r.hset("k", "t", "a")
    r.pexpire("k", 1)
    assert wait_until(lambda: ft(r, "FT.SEARCH", "idx", "@t:{a}", "NOCONTENT") == [0])
    ft(r, "FT.DROPINDEX", "idx")


def test_query_forms(idx):
    r = idx
    r.hset("doc:1", mapping={"title": "hello world", "tag": "Red,Blue", "price": 10,
                             "loc": "2.35,48.85"})
    r.hset("doc:2", mapping={"title": "hello there", "tag": "green", "price": 20,
                             "loc": "-0.12,51.50"})
    r.hset("doc:3", mapping={"title": "goodbye moon", "tag": "red shoes", "price": 30})
    q = lambda s, *a: ft(r, "FT.SEARCH", "idx", s, "NOCONTENT", "SORTBY", "price", *a)[1:]
    assert q("hello") == ["doc:1", "doc:2"]
    assert q("hello world") == ["doc:1"]
    assert q("hello -world") == ["doc:2"]
    assert q("world|moon") == ["doc:1", "doc:3"]
    assert q("hel*") == ["doc:1", "doc:2"]
    assert q("@title:(world|moon)") == ["doc:1", "doc:3"]
    assert q("@title:(there|moon)") == ["doc:3"]  # "there" is a stop word
    assert q('"hello world"') == ["doc:1"]
    assert q("@tag:{red}") == ["doc:1"]
    assert q("@tag:{red|green}") == ["doc:1", "doc:2"]
    assert q("@tag:{red\\ shoes}") == ["doc:3"]
    assert q("@tag:{re*}") == ["doc:1", "doc:3"]
    assert q("@price:[10 20]") == ["doc:1", "doc:2"]
    assert q("@price:[(10 +inf]") == ["doc:2", "doc:3"]
    assert q("@price:[-inf (20]") == ["doc:1"]
    assert q("@loc:[2.35 48.85 10 km]") == ["doc:1"]
    assert q("@loc:[2.35 48.85 500 km]") == ["doc:1", "doc:2"]
    assert q("*") == ["doc:1", "doc:2", "doc:3"]
    assert q("-@tag:{red}") == ["doc:2", "doc:3"]
    assert q("@tag:{$t}", "PARAMS", "2", "t", "green", "DIALECT", "2") == ["doc:2"]
    assert q("@price:[$lo $hi]", "params", "4", "lo", "15", "hi", "35", "dialect", "2") == \
        ["doc:2", "doc:3"]
    # Unknown fields and fields of another type match nothing (RediSearch 2.10).
    assert q("@nope:{x}", "DIALECT", "2") == []
    assert q("@price:{x}", "DIALECT", "2") == []


def test_search_options(idx):
    r = idx
    r.hset("doc:1", mapping={"title": "hello world", "tag": "a", "price": 10})
    r.hset("doc:2", mapping={"title": "hello there", "tag": "b", "price": 20})
    res = ft(r, "FT.SEARCH", "idx", "hello", "RETURN", "3", "title", "AS", "t", "SORTBY",
             "price", "DESC")
    assert res == [2, "doc:2", ["t", "hello there"], "doc:1", ["t", "hello world"]]
    res = ft(r, "FT.SEARCH", "idx", "@tag:{a}", "WITHSCORES", "RETURN", "1", "price")
    assert res == [1, "doc:1", "1", ["price", "10"]]
    assert ft(r, "FT.SEARCH", "idx", "hello", "RETURN", "0") == [2, "doc:1", "doc:2"]
    assert ft(r, "FT.SEARCH", "idx", "hello", "LIMIT", "1", "1", "NOCONTENT", "SORTBY",
              "price") == [2, "doc:2"]
    assert ft(r, "FT.SEARCH", "idx", "hello", "LIMIT", "0", "0") == [2]
    assert ft(r, "FT.SEARCH", "idx", "hello", "INKEYS", "1", "doc:2", "NOCONTENT") == [1, "doc:2"]
    assert ft(r, "FT.SEARCH", "idx", "hello", "INFIELDS", "1", "tag", "NOCONTENT") == [0]
    # Whole document with SORTBY's field first (RediSearch's order).
    res = ft(r, "FT.SEARCH", "idx", "*", "sortby", "price", "asc", "limit", "0", "1")
    assert res == [2, "doc:1", ["price", "10", "title", "hello world", "tag", "a"]]
    assert ft(r, "FT.SEARCH", "idx", "*", "VERBATIM", "NOSTOPWORDS", "TIMEOUT", "100",
              "SCORER", "TFIDF", "NOCONTENT", "DIALECT", "3", "SORTBY", "price")[0] == 2


def test_knn_hybrid_and_range(idx):
    r = idx
    r.hset("doc:1", mapping={"v": vec(1, 2), "tag": "a", "price": 1})
    r.hset("doc:2", mapping={"v": vec(0, 0), "tag": "b", "price": 2})
    r.hset("doc:3", mapping={"v": vec(3, 3), "tag": "a", "price": 3})
    b = vec(0, 0)
    res = ft(r, "FT.SEARCH", "idx", "*=>[KNN 2 @v $b]", "PARAMS", "2", "b", b, "SORTBY",
             "__v_score", "RETURN", "1", "__v_score", "DIALECT", "2")
    assert res == [2, "doc:2", ["__v_score", "0"], "doc:1", ["__v_score", "5"]]
    res = ft(r, "FT.SEARCH", "idx", "(@tag:{a}) => [KNN 1 @v $b AS d]", "PARAMS", "2", "b", b,
             "RETURN", "2", "d", "price", "DIALECT", "2")
    assert res == [1, "doc:1", ["d", "5", "price", "1"]]
    res = ft(r, "FT.SEARCH", "idx", "@tag:{a}=>[KNN $K @v $b]", "PARAMS", "4", "b", b, "K", "5",
             "SORTBY", "__v_score", "DESC", "NOCONTENT", "DIALECT", "2")
    assert res == [2, "doc:3", "doc:1"]
    res = ft(r, "FT.SEARCH", "idx", "@v:[VECTOR_RANGE 6 $b]=>{$YIELD_DISTANCE_AS: dist}",
             "PARAMS", "2", "b", b, "SORTBY", "dist", "RETURN", "1", "dist", "DIALECT", "2")
    assert res == [2, "doc:2", ["dist", "0"], "doc:1", ["dist", "5"]]
    # Without RETURN the score comes first, then the document's fields.
    res = ft(r, "FT.SEARCH", "idx", "*=>[KNN 1 @v $b]", "PARAMS", "2", "b", b, "DIALECT", "2")
    assert res[1] == "doc:2" and res[2][:2] == ["__v_score", "0"] and "tag" in res[2]
    # A vector of the wrong size leaves the document out of the index.
    r.hset("doc:4", mapping={"v": b"xyz", "tag": "a"})
    assert ft(r, "FT.SEARCH", "idx", "@tag:{a}", "NOCONTENT", "SORTBY", "price") == \
        [2, "doc:1", "doc:3"]


def test_json_index(r):
    ft(r, "FT.CREATE", "jdx", "ON", "JSON", "PREFIX", "1", "j:", "SCHEMA",
       "$.name", "AS", "name", "TEXT", "$.tags[*]", "AS", "tags", "TAG",
       "$.n", "AS", "n", "NUMERIC", "$.v", "AS", "v", "VECTOR", "HNSW", "6", "TYPE",
       "FLOAT32", "DIM", "2", "DISTANCE_METRIC", "COSINE")
    r.execute_command("JSON.SET", "j:1", "$", '{"name":"alpha one","tags":["x","Y"],"n":5,"v":[1,0]}')
    r.execute_command("JSON.SET", "j:2", "$", '{"name":"beta","tags":["y"],"n":7,"v":[0,1]}')
    res = ft(r, "FT.SEARCH", "jdx", "@tags:{y}", "SORTBY", "n")
    assert res[0] == 2 and ids(res) == ["j:1", "j:2"]
    assert res[2][-2] == "$" and res[2][-1].startswith('{"name":"alpha one"')
    assert ft(r, "FT.SEARCH", "jdx", "alpha", "RETURN", "2", "n", "name") == \
        [1, "j:1", ["n", "5", "name", "alpha one"]]
    r.execute_command("JSON.SET", "j:1", "$.n", "50")
    assert ft(r, "FT.SEARCH", "jdx", "@n:[10 100]", "NOCONTENT") == [1, "j:1"]
    res = ft(r, "FT.SEARCH", "jdx", "*=>[KNN 1 @v $b AS s]", "PARAMS", "2", "b", vec(0, 1),
             "RETURN", "1", "s", "DIALECT", "2")
    assert res == [1, "j:2", ["s", "0"]]
    r.execute_command("JSON.DEL", "j:2")
    assert ft(r, "FT.SEARCH", "jdx", "*", "NOCONTENT") == [1, "j:1"]
    ft(r, "FT.DROPINDEX", "jdx")


def test_indexmissing_and_dropindex_dd(r):
    ft(r, "FT.CREATE", "idx", "SCHEMA", "t", "TAG", "INDEXMISSING", "u", "TAG")
    r.hset("a", "t", "x")
    r.hset("b", "u", "y")
    assert ft(r, "FT.SEARCH", "idx", "ismissing(@t)", "NOCONTENT", "DIALECT", "2") == [1, "b"]
    assert error_reply(r, "FT.SEARCH", "idx", "ismissing(@u)", "DIALECT", "2") == \
        "'ismissing' requires field to be defined with 'INDEXMISSING', field: 'u'"
    r.set("c", "string")
    assert ft(r, "FT.DROPINDEX", "idx", "DD") == "OK"
    assert sorted(r.keys()) == ["c"]


def test_resp3_reply(idx, server):
    r = idx
    r.hset("doc:1", mapping={"title": "hello world", "price": 10})
    c = server.raw()
    try:
        assert c.command("HELLO", "3")
        res = c.command("FT.SEARCH", "idx", "hello", "WITHSCORES", "RETURN", "1", "price")
        assert res == ("map", [
            ("attributes", []), ("format", "STRING"),
            ("results", [("map", [("id", b"doc:1"), ("score", ("double", "1")),
                                  ("extra_attributes", ("map", [(b"price", b"10")])),
                                  ("values", [])])]),
            ("total_results", 1), ("warning", [])])
        res = c.command("FT.SEARCH", "idx", "hello", "NOCONTENT")
        assert res[1][2] == ("results", [("map", [("id", b"doc:1"), ("values", [])])])
    finally:
        c.close()


def test_exec_and_aof_restart(tmp_path, r):
    r.hset("doc:1", "t", "a")
    p = r.pipeline(transaction=True)
    p.execute_command("FT.CREATE", "tx", "SCHEMA", "t", "TAG")
    p.hset("doc:2", "t", "a")
    p.execute_command("FT.SEARCH", "tx", "@t:{a}", "NOCONTENT", "SORTBY", "t")
    assert p.execute()[2][0] == 2
    ft(r, "FT.DROPINDEX", "tx")

    def make(c):
        c.hset("k1", "t", "a")
        c.execute_command("FT.CREATE", "i", "SCHEMA", "t", "TAG")
        c.hset("k2", "t", "a")

    def read(c):
        return sorted(c.execute_command("FT.SEARCH", "i", "@t:{a}", "NOCONTENT")[1:])

    before, after = restarted_with_aof(tmp_path, make, read)
    assert before == after == ["k1", "k2"]


def test_snapshot_and_aof_rewrite_keep_indexes(tmp_path):
    from conftest import ServerProcess

    def search(c):
        return sorted(c.execute_command("FT.SEARCH", "i", "@t:{a}", "NOCONTENT")[1:])

    args = ["--dir", str(tmp_path), "--threads", "2"]
    srv = ServerProcess(args, tmp_path=tmp_path).start()
    try:
        c = srv.client()
        c.hset("k1", "t", "a")
        c.execute_command("FT.CREATE", "i", "SCHEMA", "t", "TAG")
        c.hset("k2", "t", "a")
        c.save()
    finally:
        srv.stop()
    srv = ServerProcess(args, tmp_path=tmp_path).start()
    try:
        c = srv.client()
        assert c.execute_command("FT._LIST") == ["i"]
        assert search(c) == ["k1", "k2"]
    finally:
        srv.stop()

    preamble = []

    def make(c):
        c.config_set("aof-use-rdb-preamble", preamble[0])
        c.hset("k1", "t", "a")
        c.execute_command("FT.CREATE", "i", "SCHEMA", "t", "TAG")
        c.bgrewriteaof()
        assert wait_until(lambda: c.info("persistence")["aof_rewrite_in_progress"] == 0 and
                          c.info("persistence")["aof_rewrite_scheduled"] == 0)
        c.hset("k2", "t", "a")

    for mode in ("yes", "no"):  # an RDB base, a base of commands
        preamble[:] = [mode]
        d = tmp_path / ("aof-" + mode)
        d.mkdir()
        before, after = restarted_with_aof(d, make, search)
        assert before == after == ["k1", "k2"]


def test_create_filter_expression(r):
    r.hset("a", mapping={"t": "hello", "n": 1})
    r.hset("b", mapping={"t": "hello", "n": 5})
    ft(r, "FT.CREATE", "big", "FILTER", "@n > 2", "SCHEMA", "t", "TEXT")
    assert ft(r, "FT.SEARCH", "big", "hello", "NOCONTENT") == [1, "b"]
    r.hset("a", "n", 10)
    r.hset("b", "n", 0)
    assert ft(r, "FT.SEARCH", "big", "hello", "NOCONTENT") == [1, "a"]
    ft(r, "FT.DROPINDEX", "big")
