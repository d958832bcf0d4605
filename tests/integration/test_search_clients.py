"""FT.* through Debian's redis-py 4.3.4 `r.ft()` API (issue 18): create_index with an
IndexDefinition (which always sends `SCORE 1.0`), search with Query objects (redis-py
sends its lower-case `params` after `DIALECT`), aggregate with AggregateRequest and
reducers, cursors, info, alter_schema_add, dropindex, aliases, tagvals, explain.

Checked against Redis 8.8 + RediSearch 2.10 first:
    HOTKV_SERVER=…/shared/peers/redis-8.8/redis-server \\
    HOTKV_TEST_REDIS_MODULE=…/shared/peers/redisearch-2.10/redisearch.so pytest …
"""
import struct

import pytest
import redis
from redis.commands.search import reducers
from redis.commands.search.aggregation import AggregateRequest, Asc, Desc
from redis.commands.search.field import GeoField, NumericField, TagField, TextField, VectorField
from redis.commands.search.indexDefinition import IndexDefinition, IndexType
from redis.commands.search.query import GeoFilter, NumericFilter, Query

from conftest import IS_REDIS, REDIS_MODULE, error_reply, wait_until

pytestmark = pytest.mark.skipif(IS_REDIS and not REDIS_MODULE,
                                reason="a redis-server without HOTKV_TEST_REDIS_MODULE has no FT.*")


@pytest.fixture(autouse=True)
def _drop_indexes(server):
    """Drops the indexes a test leaves, so that one failing test does not fail the next
    with "Index already exists" (FLUSHALL dropping them is tested on its own)."""
    yield
    c = server.client()
    try:
        for name in c.execute_command("FT._LIST"):
            c.execute_command("FT.DROPINDEX", name)
    finally:
        c.close()

PRODUCTS = {
    "doc:1": {"title": "red apple from the orchard", "body": "crisp and sweet apples", "tags": "fruit,red",
              "price": 3, "loc": "-0.1276,51.5072", "vec": [1, 0, 0, 0]},
    "doc:2": {"title": "green apple", "body": "sour apple for pies", "tags": "fruit,green",
              "price": 2, "loc": "2.3522,48.8566", "vec": [0.9, 0.1, 0, 0]},
    "doc:3": {"title": "red sports car", "body": "a very fast car", "tags": "vehicle,red",
              "price": 30000, "loc": "13.4050,52.5200", "vec": [0, 0, 1, 0]},
    "doc:4": {"title": "blue bicycle", "body": "a cheap bike for the city", "tags": "vehicle,blue",
              "price": 400, "loc": "-3.7038,40.4168", "vec": [0, 0, 0.8, 0.6]},
    "doc:5": {"title": "yellow banana", "body": "ripe bananas from the tropics", "tags": "fruit,yellow",
              "price": 1, "loc": "12.4964,41.9028", "vec": [0.6, 0.8, 0, 0]},
}


def f32(v):
    return struct.pack(f"<{len(v)}f", *v)


def schema(vector=True):
    fields = [
        TextField("title", weight=2.0, sortable=True),
        TextField("body"),
        TagField("tags"),
        NumericField("price", sortable=True),
        GeoField("loc"),
    ]
    if vector:
        fields.append(VectorField("vec", "HNSW", {"TYPE": "FLOAT32", "DIM": 4, "DISTANCE_METRIC": "COSINE"}))
    return fields


def add(r, key, doc):
    mapping = {k: v for k, v in doc.items() if k != "vec"}
    mapping["vec"] = f32(doc["vec"])
    r.hset(key, mapping=mapping)


def wait_indexed(r, index="idx"):
    """RediSearch indexes the keys that exist at FT.CREATE in the background (FT.INFO
    `indexing`); HotKV before FT.CREATE returns. Bounded."""
    assert wait_until(lambda: str(r.ft(index).info()["indexing"]) == "0"), f"{index} still indexing"


@pytest.fixture
def products(r):
    """Index `idx` over doc:* with three documents written before FT.CREATE and two after."""
    keys = sorted(PRODUCTS)
    for k in keys[:3]:
        add(r, k, PRODUCTS[k])
    r.hset("other:1", mapping={"title": "red apple outside the prefix", "tags": "fruit"})
    assert r.ft("idx").create_index(
        schema(), definition=IndexDefinition(prefix=["doc:"], index_type=IndexType.HASH)) == "OK"
    for k in keys[3:]:
        add(r, k, PRODUCTS[k])
    wait_indexed(r)
    return r


def ids(res):
    return [d.id for d in res.docs]


def test_create_index_with_definition_and_info(products):
    r = products
    info = r.ft("idx").info()
    assert info["index_name"] == "idx"
    assert int(info["num_docs"]) == 5
    assert float(info["percent_indexed"]) == 1
    definition = dict(zip(info["index_definition"][::2], info["index_definition"][1::2]))
    assert definition["key_type"] == "HASH"
    assert definition["prefixes"] == ["doc:"]
    assert float(definition["default_score"]) == 1
    # Flags (SORTABLE, NOSTEM, …) stand alone in the attribute list, after the pairs.
    assert "SORTABLE" in info["attributes"][0]
    assert "SORTABLE" not in info["attributes"][1]
    attrs = [dict(zip(a[::2], a[1::2])) for a in info["attributes"]]
    assert [(a["identifier"], a["attribute"], a["type"]) for a in attrs] == [
        ("title", "title", "TEXT"), ("body", "body", "TEXT"), ("tags", "tags", "TAG"),
        ("price", "price", "NUMERIC"), ("loc", "loc", "GEO"), ("vec", "vec", "VECTOR")]
    assert float(attrs[0]["WEIGHT"]) == 2
    assert attrs[2]["SEPARATOR"] == ","
    # FT.INFO's first keys in Redis's order: clients read them by position.
    keys = list(info)
    assert keys[:5] == ["index_name", "index_options", "index_definition", "attributes", "num_docs"]
    with pytest.raises(redis.ResponseError, match="Index already exists"):
        r.ft("idx").create_index(schema(), definition=IndexDefinition(prefix=["doc:"]))
    assert r.execute_command("FT._LIST") == ["idx"]


def test_search_query_objects(products):
    ft = products.ft("idx")
    # Plain text, stemmed: "apples" matches "apple"; other:1 is outside the prefix.
    res = ft.search(Query("apples").return_fields("title", "price"))
    assert res.total == 2
    assert sorted(ids(res)) == ["doc:1", "doc:2"]
    doc = next(d for d in res.docs if d.id == "doc:1")
    assert doc.title == "red apple from the orchard"
    assert doc.price == "3"
    # VERBATIM: no stemming.
    assert ft.search(Query("apples").verbatim().no_content()).total == 1  # only doc:1's body says "apples"
    # Field-scoped text, tag, numeric, negation, OR, prefix, fuzzy.
    assert ids(ft.search(Query("@title:apple @tags:{green}").no_content())) == ["doc:2"]
    assert sorted(ids(ft.search(Query("@tags:{red}").no_content()))) == ["doc:1", "doc:3"]
    assert sorted(ids(ft.search(Query("@tags:{blue | yellow}").no_content()))) == ["doc:4", "doc:5"]
    assert ids(ft.search(Query("@tags:{fruit} -@title:apple").no_content())) == ["doc:5"]
    assert sorted(ids(ft.search(Query("bicycle | banana").no_content()))) == ["doc:4", "doc:5"]
    assert sorted(ids(ft.search(Query("ban*").no_content()))) == ["doc:5"]
    assert sorted(ids(ft.search(Query("%bicycla%").no_content()))) == ["doc:4"]
    assert ids(ft.search(Query('"sports car"').no_content())) == ["doc:3"]
    assert ft.search(Query('"car sports"').no_content()).total == 0
    # Numeric filters through add_filter, and in the query.
    q = Query("*").add_filter(NumericFilter("price", 2, 400, maxExclusive=True)).sort_by("price").no_content()
    assert ids(ft.search(q)) == ["doc:2", "doc:1"]
    assert ids(ft.search(Query("@price:[(3 +inf]").sort_by("price", asc=False).no_content())) == ["doc:3", "doc:4"]
    # Geo filter: within 400 km of Paris.
    q = Query("*").add_filter(GeoFilter("loc", 2.35, 48.85, 400, "km")).no_content()
    assert sorted(ids(ft.search(q))) == ["doc:1", "doc:2"]
    # Sorting, paging, RETURN with AS.
    q = Query("@tags:{fruit|vehicle}").sort_by("price").paging(1, 2).return_field("title", as_field="name")
    res = ft.search(q)
    assert res.total == 5
    assert [(d.id, d.name) for d in res.docs] == [("doc:2", "green apple"), ("doc:1", "red apple from the orchard")]
    # WITHSCORES: scores as numbers, the better match first. TFIDF (RediSearch 2.10's
    # default; Redis 8's query engine defaults to BM25STD, so the scorer is named here)
    # puts doc:1 first (title weight 2, "apples" stems to "apple" in the body), BM25STD
    # doc:2 (shorter fields).
    res = ft.search(Query("apple").with_scores().scorer("TFIDF").return_fields("title"))
    assert [d.id for d in res.docs] == ["doc:1", "doc:2"]
    assert res.docs[0].score > res.docs[1].score > 0
    res = ft.search(Query("apple").with_scores().scorer("BM25STD").no_content())
    assert [d.id for d in res.docs] == ["doc:2", "doc:1"]
    assert res.docs[0].score > res.docs[1].score > 0
    # LIMIT 0 0: count only.
    res = ft.search(Query("@tags:{fruit}").paging(0, 0))
    assert res.total == 3 and res.docs == []
    # INFIELDS via limit_fields, INKEYS via limit_ids.
    assert sorted(ids(ft.search(Query("apple").limit_fields("body").no_content()))) == ["doc:1", "doc:2"]
    assert ids(ft.search(Query("apple").verbatim().limit_fields("body").no_content())) == ["doc:2"]
    assert ids(ft.search(Query("orchard").limit_fields("body").no_content())) == []
    assert ids(ft.search(Query("apple").limit_ids("doc:1", "doc:5").no_content())) == ["doc:1"]


def test_search_params_and_dialects(products):
    ft = products.ft("idx")
    # redis-py 4.3.4 sends `… DIALECT 2 params 4 t red lo 2`: params after DIALECT, lower case.
    q = Query("@tags:{$t} @price:[$lo +inf]").sort_by("price").no_content().dialect(2)
    assert ids(ft.search(q, query_params={"t": "red", "lo": 2})) == ["doc:1", "doc:3"]
    # KNN with the vector as a parameter, the distance as a field, SORTBY it.
    q = (Query("*=>[KNN 3 @vec $v AS dist]").sort_by("dist").return_fields("title", "dist").dialect(2))
    res = ft.search(q, query_params={"v": f32([1, 0, 0, 0])})
    assert ids(res) == ["doc:1", "doc:2", "doc:5"]
    assert abs(float(res.docs[0].dist)) < 1e-6
    assert abs(float(res.docs[2].dist) - 0.4) < 1e-5
    # Hybrid: a pre-filter, and $K.
    q = Query("(@tags:{vehicle})=>[KNN $K @vec $v AS dist]").sort_by("dist").return_fields("dist").dialect(2)
    res = ft.search(q, query_params={"v": f32([0, 0, 0, 1]), "K": 5})
    assert ids(res) == ["doc:4", "doc:3"]
    # The default score name is __<field>_score.
    q = Query("*=>[KNN 1 @vec $v]").return_fields("__vec_score").dialect(2)
    res = ft.search(q, query_params={"v": f32([0, 1, 0, 0])})
    assert ids(res) == ["doc:5"]
    assert abs(float(res.docs[0].__vec_score) - 0.2) < 1e-5
    # VECTOR_RANGE with a yielded distance.
    q = (Query("@vec:[VECTOR_RANGE 0.05 $v]=>{$YIELD_DISTANCE_AS: d}").sort_by("d")
         .return_fields("d").dialect(2))
    res = ft.search(q, query_params={"v": f32([1, 0, 0, 0])})
    assert ids(res) == ["doc:1", "doc:2"]
    # A string query sent as-is (DIALECT 1 by default in redis-py 4.3.4).
    assert ft.search(Query("@title:bicycle").return_fields("title")).total == 1


def test_aggregate_request(products):
    ft = products.ft("idx")
    # Each product's first tag: split is not needed, the category is the part before ','.
    req = (AggregateRequest("*").load("@tags", "@price")
           .apply(category="substr(@tags, 0, 5)")
           .group_by("@category", reducers.count().alias("n"), reducers.sum("@price").alias("total"),
                     reducers.min("@price").alias("lo"), reducers.max("@price").alias("hi"),
                     reducers.avg("@price").alias("mean"), reducers.count_distinct("@tags").alias("kinds"),
                     reducers.tolist("@price").alias("prices"))
           .sort_by(Asc("@category")))
    res = ft.aggregate(req)
    rows = [dict(zip(row[::2], row[1::2])) for row in res.rows]
    assert [r["category"] for r in rows] == ["fruit", "vehic"]
    fruit, vehicle = rows
    assert (fruit["n"], fruit["total"], fruit["lo"], fruit["hi"], fruit["mean"], fruit["kinds"]) == \
        ("3", "6", "1", "3", "2", "3")
    assert sorted(fruit["prices"], key=float) == ["1", "2", "3"]
    assert (vehicle["n"], vehicle["total"]) == ("2", "30400")

    # APPLY arithmetic and functions, FILTER, SORTBY DESC with MAX, LIMIT.
    req = (AggregateRequest("@tags:{fruit|vehicle}").load("@price", "@title")
           .apply(double="@price * 2", lg="floor(log(@price))", up="upper(@title)")
           .filter("@double >= 4")
           .sort_by(Desc("@double"), max=3))
    rows = [dict(zip(row[::2], row[1::2])) for row in ft.aggregate(req).rows]
    assert [r["double"] for r in rows] == ["60000", "800", "6"]
    assert rows[0]["up"] == "RED SPORTS CAR"
    assert rows[1]["lg"] == str(int(__import__("math").floor(__import__("math").log(400))))
    req = AggregateRequest("*").load("@price").sort_by(Asc("@price")).limit(1, 2)
    assert [row[1] for row in ft.aggregate(req).rows] == ["2", "3"]

    # GROUPBY 0 with FIRST_VALUE … BY; then the same with PARAMS and DIALECT 2, which
    # redis-py 4.3.4's AggregateRequest cannot send (no dialect()), so raw.
    req = (AggregateRequest("@price:[2 +inf]").load("@title", "@price")
           .group_by([], reducers.first_value("@title", Desc("@price")).alias("priciest"),
                     reducers.count().alias("n")))
    res = ft.aggregate(req)
    assert [dict(zip(row[::2], row[1::2])) for row in res.rows] == [{"priciest": "red sports car", "n": "4"}]
    raw = products.execute_command(
        "FT.AGGREGATE", "idx", "@price:[$lo +inf]", "LOAD", "2", "@title", "@price",
        "GROUPBY", "0", "REDUCE", "FIRST_VALUE", "4", "@title", "BY", "@price", "ASC", "AS", "cheapest",
        "REDUCE", "COUNT", "0", "AS", "n", "PARAMS", "2", "lo", "2", "DIALECT", "2")
    assert raw[0] == 1
    assert dict(zip(raw[1][::2], raw[1][1::2])) == {"cheapest": "green apple", "n": "4"}


def test_aggregate_cursor(products):
    ft = products.ft("idx")
    req = AggregateRequest("*").load("@price").cursor(count=2)
    res = ft.aggregate(req)
    seen = [row[1] for row in res.rows]
    assert len(seen) == 2
    assert res.cursor is not None and res.cursor.cid != 0
    pages = 0
    while res.cursor is not None and res.cursor.cid != 0 and pages < 10:
        res = ft.aggregate(res.cursor)
        seen += [row[1] for row in res.rows]
        pages += 1
    assert sorted(seen, key=float) == ["1", "2", "3", "400", "30000"]
    # A cursor deleted before its end is gone.
    res = ft.aggregate(AggregateRequest("*").load("@price").cursor(count=1))
    assert products.execute_command("FT.CURSOR", "DEL", "idx", res.cursor.cid) == "OK"
    with pytest.raises(redis.ResponseError, match="[Cc]ursor not found"):
        products.execute_command("FT.CURSOR", "READ", "idx", res.cursor.cid)


def test_writes_are_searchable_at_once(products):
    r = products
    ft = r.ft("idx")
    r.hset("doc:6", mapping={"title": "orange", "tags": "fruit,orange", "price": 5})
    assert ids(ft.search(Query("@tags:{orange}").no_content())) == ["doc:6"]
    r.hset("doc:6", "tags", "fruit,citrus")
    assert ft.search(Query("@tags:{orange}").no_content()).total == 0
    assert ids(ft.search(Query("@tags:{citrus}").no_content())) == ["doc:6"]
    r.hdel("doc:6", "tags")
    assert ft.search(Query("@tags:{citrus}").no_content()).total == 0
    assert ids(ft.search(Query("orange").no_content())) == ["doc:6"]
    r.rename("doc:6", "gone:6")
    assert ft.search(Query("orange").no_content()).total == 0
    r.rename("gone:6", "doc:7")
    assert ids(ft.search(Query("orange").no_content())) == ["doc:7"]
    r.delete("doc:7")
    assert ft.search(Query("orange").no_content()).total == 0
    r.hset("doc:8", mapping={"title": "lime", "price": 1})
    r.pexpire("doc:8", 1)
    assert wait_until(lambda: ft.search(Query("lime").no_content()).total == 0), "expired key still found"
    assert int(ft.info()["num_docs"]) == 5


def test_alter_schema_add(products):
    r = products
    ft = r.ft("idx")
    r.hset("doc:1", "year", 2020)
    assert ft.alter_schema_add([NumericField("year")]) == "OK"
    wait_indexed(r)
    r.hset("doc:2", "year", 2022)
    assert sorted(ids(ft.search(Query("@year:[2000 2100]").no_content()))) == ["doc:1", "doc:2"]
    attrs = [dict(zip(a[::2], a[1::2]))["identifier"] for a in ft.info()["attributes"]]
    assert attrs[-1] == "year"


def test_tagvals_aliases_dropindex(products):
    r = products
    assert sorted(r.ft("idx").tagvals("tags")) == ["blue", "fruit", "green", "red", "vehicle", "yellow"]
    assert r.ft("idx").aliasadd("shop") == "OK"
    assert ids(r.ft("shop").search(Query("@tags:{blue}").no_content())) == ["doc:4"]
    with pytest.raises(redis.ResponseError, match="Alias already exists"):
        r.ft("idx").aliasadd("shop")
    r.ft("idx2").create_index([TextField("title"), TagField("tags")], definition=IndexDefinition(prefix=["other:"]))
    wait_indexed(r, "idx2")
    assert r.ft("idx2").aliasupdate("shop") == "OK"
    assert ids(r.ft("shop").search(Query("apple").no_content())) == ["other:1"]
    assert r.ft("idx2").aliasdel("shop") == "OK"
    with pytest.raises(redis.ResponseError, match="(?i)no such index"):
        r.ft("shop").search("apple")
    # Without DD the hashes stay; with DD they go.
    assert r.ft("idx2").dropindex(delete_documents=False) == "OK"
    assert r.exists("other:1") == 1
    assert r.ft("idx").dropindex(delete_documents=True) == "OK"
    assert r.keys("doc:*") == []
    assert r.execute_command("FT._LIST") == []


def test_error_texts(r):
    with pytest.raises(redis.ResponseError, match="^Unknown index name$"):
        r.ft("nope").info()
    with pytest.raises(redis.ResponseError, match="^Unknown Index name$"):
        r.ft("nope").dropindex()
    with pytest.raises(redis.ResponseError, match="(?i)no such index"):
        r.ft("nope").search("*")
    with pytest.raises(redis.ResponseError, match="(?i)no such index"):
        r.ft("nope").aggregate(AggregateRequest("*"))
    r.ft("idx").create_index([TextField("t"), NumericField("n")])
    with pytest.raises(redis.ResponseError, match="Syntax error"):
        r.ft("idx").search("@t:(unbalanced")
    assert error_reply(r, "FT.SEARCH", "idx", "@t:(unbalanced") == "Syntax error at offset 4 near unbalanced"
    assert error_reply(r, "FT.SEARCH", "idx", "@n:[1 2") == "Syntax error at offset 6 near 2"


def test_flushall_drops_indexes(r):
    r.ft("idx").create_index([TextField("t")])
    assert r.execute_command("FT._LIST") == ["idx"]
    r.flushall()
    assert r.execute_command("FT._LIST") == []


def test_index_every_key_without_prefix_and_filter(r):
    # No PREFIX: every hash; FILTER expression on the document.
    r.hset("a", mapping={"t": "hello", "n": 1})
    r.hset("b:1", mapping={"t": "hello", "n": 5})
    r.set("plain", "hello")
    r.ft("all").create_index([TextField("t"), NumericField("n")])
    r.ft("big").create_index([TextField("t"), NumericField("n")], definition=IndexDefinition(filter="@n > 2"))
    wait_indexed(r, "all")
    wait_indexed(r, "big")
    assert sorted(ids(r.ft("all").search(Query("hello").no_content()))) == ["a", "b:1"]
    assert ids(r.ft("big").search(Query("hello").no_content())) == ["b:1"]
    r.hset("a", "n", 10)
    assert sorted(ids(r.ft("big").search(Query("hello").no_content()))) == ["a", "b:1"]


def test_explain(products):
    # FT.EXPLAIN's plan text, as RediSearch 2.10 prints it.
    plan = products.ft("idx").explain(Query("@tags:{red} @price:[1 10]").dialect(2))
    assert plan == "INTERSECT {\n  TAG:@tags {\n    red\n  }\n  NUMERIC {1.000000 <= @price <= 10.000000}\n}\n"


@pytest.mark.hotkv_only  # the reference here has no JSON module
def test_json_index_through_redis_py(r):
    # create_index over JSON documents with `$.path AS name` fields, as redis-py sends it.
    fields = [TextField("$.name", as_name="name"), TagField("$.tags[*]", as_name="tags"),
              NumericField("$.age", as_name="age", sortable=True),
              VectorField("$.vec", "FLAT", {"TYPE": "FLOAT32", "DIM": 2, "DISTANCE_METRIC": "L2"}, as_name="vec")]
    assert r.ft("people").create_index(
        fields, definition=IndexDefinition(prefix=["person:"], index_type=IndexType.JSON)) == "OK"
    r.json().set("person:1", "$", {"name": "Ada Lovelace", "tags": ["math", "engines"], "age": 36, "vec": [0, 0]})
    r.json().set("person:2", "$", {"name": "Alan Turing", "tags": ["math", "codes"], "age": 41, "vec": [1, 1]})
    r.json().set("person:3", "$", {"name": "Grace Hopper", "tags": ["compilers"], "age": 85, "vec": [5, 5]})
    wait_indexed(r, "people")
    # No RETURN: the whole document as `$`, which redis-py hands back as `json`.
    res = r.ft("people").search(Query("@tags:{engines}"))
    assert ids(res) == ["person:1"]
    assert __import__("json").loads(res.docs[0].json) == {
        "name": "Ada Lovelace", "tags": ["math", "engines"], "age": 36, "vec": [0, 0]}
    res = r.ft("people").search(Query("@tags:{math}").sort_by("age", asc=False).return_fields("name", "age"))
    assert [(d.id, d.name, d.age) for d in res.docs] == [("person:2", "Alan Turing", "41"), ("person:1", "Ada Lovelace", "36")]
    q = Query("*=>[KNN 2 @vec $v AS d]").sort_by("d").return_fields("name", "d").dialect(2)
    res = r.ft("people").search(q, query_params={"v": struct.pack("<2f", 4, 4)})
    assert [d.id for d in res.docs] == ["person:3", "person:2"]
    assert float(res.docs[0].d) == pytest.approx(2.0)
    # JSON.SET on a path re-indexes the document at once; JSON.DEL removes it.
    r.json().set("person:3", "$.tags", ["compilers", "math"])
    assert sorted(ids(r.ft("people").search(Query("@tags:{math}").no_content()))) == ["person:1", "person:2", "person:3"]
    r.json().delete("person:1")
    assert sorted(ids(r.ft("people").search(Query("@tags:{math}").no_content()))) == ["person:2", "person:3"]
    info = r.ft("people").info()
    definition = dict(zip(info["index_definition"][::2], info["index_definition"][1::2]))
    assert definition["key_type"] == "JSON"
    attrs = [dict(zip(a[::2], a[1::2])) for a in info["attributes"]]
    assert [(a["identifier"], a["attribute"]) for a in attrs] == [
        ("$.name", "name"), ("$.tags[*]", "tags"), ("$.age", "age"), ("$.vec", "vec")]


def _resp3_map(reply):
    """A RawConnection RESP3 map -> list of (key, value) with nested maps as dicts."""
    assert isinstance(reply, tuple) and reply[0] == "map", reply
    return reply[1]


def test_resp3_reply_shapes(server, r):
    # The RESP3 FT.SEARCH / FT.AGGREGATE maps node-redis 6 and other RESP3 clients read:
    # keys in Redis's order, each result a map of id / score / extra_attributes / values.
    c = server.raw()
    try:
        c.command("HELLO", "3")
        assert c.command("FT.CREATE", "i", "ON", "HASH", "PREFIX", "1", "d:", "SCHEMA",
                         "t", "TEXT", "n", "NUMERIC", "SORTABLE", "g", "TAG") == "OK"
        c.command("HSET", "d:1", "t", "hello world", "n", "1", "g", "a")
        c.command("HSET", "d:2", "t", "hello there", "n", "2", "g", "b")

        top = _resp3_map(c.command("FT.SEARCH", "i", "hello", "SORTBY", "n", "DESC"))
        assert [k for k, _ in top] == ["attributes", "format", "results", "total_results", "warning"]
        top = dict(top)
        assert (top["attributes"], top["format"], top["total_results"], top["warning"]) == ([], "STRING", 2, [])
        results = [_resp3_map(x) for x in top["results"]]
        assert [[k for k, _ in res] for res in results] == [["id", "extra_attributes", "values"]] * 2
        assert [dict(res)["id"] for res in results] == [b"d:2", b"d:1"]
        assert dict(_resp3_map(dict(results[0])["extra_attributes"])) == {b"n": b"2", b"t": b"hello there", b"g": b"b"}
        assert dict(results[0])["values"] == []

        top = dict(_resp3_map(c.command("FT.SEARCH", "i", "hello", "WITHSCORES", "SCORER", "TFIDF",
                                        "RETURN", "1", "g", "SORTBY", "n")))
        results = [_resp3_map(x) for x in top["results"]]
        assert [[k for k, _ in res] for res in results] == [["id", "score", "extra_attributes", "values"]] * 2
        assert dict(results[0])["score"] == ("double", "1")
        assert dict(_resp3_map(dict(results[0])["extra_attributes"])) == {b"g": b"a"}

        top = dict(_resp3_map(c.command("FT.SEARCH", "i", "hello", "NOCONTENT", "SORTBY", "n")))
        assert [[k for k, _ in _resp3_map(x)] for x in top["results"]] == [["id", "values"]] * 2

        top = _resp3_map(c.command("FT.AGGREGATE", "i", "*", "GROUPBY", "1", "@g", "REDUCE", "COUNT", "0",
                                   "AS", "c", "SORTBY", "2", "@g", "ASC"))
        assert [k for k, _ in top] == ["attributes", "format", "results", "total_results", "warning"]
        rows = [dict(_resp3_map(x)) for x in dict(top)["results"]]
        assert [dict(_resp3_map(row["extra_attributes"])) for row in rows] == [
            {b"g": b"a", b"c": b"1"}, {b"g": b"b", b"c": b"1"}]
        assert all(row["values"] == [] for row in rows)
        assert dict(top)["total_results"] == 2
    finally:
        c.close()
