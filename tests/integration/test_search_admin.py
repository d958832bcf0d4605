"""FT.INFO, FT.ALTER, FT.ALIASADD/ALIASUPDATE/ALIASDEL, FT.TAGVALS, FT.CONFIG, FT.EXPLAIN,
FT.EXPLAINCLI and FT.PROFILE (issue 18), checked against Redis 8.8 + RediSearch 2.10:
    HOTKV_SERVER=…/shared/peers/redis-8.8/redis-server \\
    HOTKV_TEST_REDIS_MODULE=…/shared/peers/redisearch-2.10/redisearch.so pytest …
"""
import pytest
import redis

from conftest import IS_REDIS, REDIS_MODULE, wait_until

pytestmark = pytest.mark.skipif(IS_REDIS and not REDIS_MODULE,
                                reason="a redis-server without HOTKV_TEST_REDIS_MODULE has no FT.*")

# FT.INFO's fields in Redis 8's order (node-redis v4 and RedisVL read them by position).
INFO_FIELDS = [
    "index_name", "index_options", "index_definition", "attributes", "num_docs", "max_doc_id",
    "num_terms", "num_records", "inverted_sz_mb", "vector_index_sz_mb", "total_inverted_index_blocks",
    "offset_vectors_sz_mb", "doc_table_size_mb", "sortable_values_size_mb", "key_table_size_mb",
    "tag_overhead_sz_mb", "text_overhead_sz_mb", "total_index_memory_sz_mb", "geoshapes_sz_mb",
    "records_per_doc_avg", "bytes_per_record_avg", "offsets_per_term_avg", "offset_bits_per_record_avg",
    "hash_indexing_failures", "total_indexing_time", "indexing", "percent_indexed", "number_of_uses",
    "cleaning", "gc_stats", "cursor_stats", "dialect_stats", "Index Errors", "field statistics"]


def info(r, name):
    reply = r.execute_command("FT.INFO", name)
    return reply[::2], dict(zip(reply[::2], reply[1::2]))


def err(r, *args):
    with pytest.raises(redis.ResponseError) as e:
        r.execute_command(*args)
    return str(e.value)


@pytest.fixture
def idx(r):
    r.hset("d:1", mapping={"name": "alice", "age": 30, "city": "paris"})
    r.hset("d:2", mapping={"name": "bob", "age": 25, "city": "London"})
    r.hset("d:3", mapping={"name": "carol", "age": 35, "city": "paris,rome"})
    r.execute_command("FT.CREATE", "adm", "ON", "HASH", "PREFIX", 1, "d:", "SCHEMA",
                      "name", "TEXT", "SORTABLE", "age", "NUMERIC", "SORTABLE", "city", "TAG")
    wait_until(lambda: info(r, "adm")[1]["num_docs"] == 3 and info(r, "adm")[1]["indexing"] == 0)
    yield r
    for name in r.execute_command("FT._LIST"):
        r.execute_command("FT.DROPINDEX", name)


def test_info_fields_and_attributes(idx):
    keys, d = info(idx, "adm")
    assert keys == INFO_FIELDS
    assert d["index_name"] == "adm"
    assert d["index_options"] == []
    assert d["index_definition"] == ["key_type", "HASH", "prefixes", ["d:"], "default_score", "1"]
    assert d["attributes"] == [
        ["identifier", "name", "attribute", "name", "type", "TEXT", "WEIGHT", "1", "SORTABLE"],
        ["identifier", "age", "attribute", "age", "type", "NUMERIC", "SORTABLE", "UNF"],
        ["identifier", "city", "attribute", "city", "type", "TAG", "SEPARATOR", ","]]
    assert d["num_docs"] == 3 and d["max_doc_id"] >= 3
    assert d["hash_indexing_failures"] == 0 and d["indexing"] == 0
    assert d["percent_indexed"] == "1"  # doubles are bulk strings in RESP2
    assert isinstance(d["inverted_sz_mb"], str)
    gc = dict(zip(d["gc_stats"][::2], d["gc_stats"][1::2]))
    assert list(gc) == ["bytes_collected", "total_ms_run", "total_cycles", "average_cycle_time_ms",
                        "last_run_time_ms", "gc_numeric_trees_missed", "gc_blocks_denied"]
    assert d["cursor_stats"][::2] == ["global_idle", "global_total", "index_capacity", "index_total"]
    assert d["cursor_stats"][5] == 128
    assert d["dialect_stats"][::2] == ["dialect_1", "dialect_2", "dialect_3", "dialect_4"]
    assert d["Index Errors"] == ["indexing failures", 0, "last indexing error", "N/A",
                                 "last indexing error key", "N/A", "background indexing status", "OK"]
    assert d["field statistics"][0] == ["identifier", "name", "attribute", "name", "Index Errors",
                                        ["indexing failures", 0, "last indexing error", "N/A",
                                         "last indexing error key", "N/A"]]
    assert err(idx, "FT.INFO", "nosuch") == "Unknown index name"


def test_info_definition_options(r):
    r.execute_command("FT.CREATE", "opt", "ON", "HASH", "PREFIX", 2, "v:", "w:", "FILTER", "@n > 0",
                      "LANGUAGE", "french", "SCORE", "0.5", "NOOFFSETS", "STOPWORDS", 2, "a", "b", "SCHEMA",
                      "t", "TEXT", "WEIGHT", 2, "NOSTEM", "SORTABLE", "t2", "AS", "tt", "TEXT", "NOINDEX",
                      "tg", "TAG", "SEPARATOR", ";", "CASESENSITIVE", "SORTABLE", "n", "NUMERIC", "SORTABLE",
                      "g", "GEO", "v", "VECTOR", "HNSW", 6, "TYPE", "FLOAT32", "DIM", 2, "DISTANCE_METRIC",
                      "COSINE", "vf", "VECTOR", "FLAT", 6, "TYPE", "FLOAT64", "DIM", 3, "DISTANCE_METRIC", "L2",
                      "e", "TAG", "INDEXEMPTY", "INDEXMISSING")
    try:
        keys, d = info(r, "opt")
        assert keys == INFO_FIELDS[:31] + ["stopwords_list"] + INFO_FIELDS[31:]
        assert d["index_options"] == ["NOOFFSETS", "NOHL"]
        assert d["index_definition"] == ["key_type", "HASH", "prefixes", ["v:", "w:"], "filter", "@n > 0",
                                         "default_language", "french", "default_score", "0.5"]
        assert d["attributes"] == [
            ["identifier", "t", "attribute", "t", "type", "TEXT", "WEIGHT", "2", "SORTABLE", "NOSTEM"],
            ["identifier", "t2", "attribute", "tt", "type", "TEXT", "WEIGHT", "1", "NOINDEX"],
            ["identifier", "tg", "attribute", "tg", "type", "TAG", "SEPARATOR", ";", "CASESENSITIVE",
             "SORTABLE", "UNF"],
            ["identifier", "n", "attribute", "n", "type", "NUMERIC", "SORTABLE", "UNF"],
            ["identifier", "g", "attribute", "g", "type", "GEO"],
            ["identifier", "v", "attribute", "v", "type", "VECTOR", "algorithm", "HNSW", "data_type", "FLOAT32",
             "dim", 2, "distance_metric", "COSINE", "M", 16, "ef_construction", 200],
            ["identifier", "vf", "attribute", "vf", "type", "VECTOR", "algorithm", "FLAT", "data_type",
             "FLOAT64", "dim", 3, "distance_metric", "L2"],
            ["identifier", "e", "attribute", "e", "type", "TAG", "SEPARATOR", ",", "INDEXEMPTY",
             "INDEXMISSING"]]
        assert d["stopwords_list"] == ["a", "b"]
        assert d["records_per_doc_avg"] == "nan"
    finally:
        r.execute_command("FT.DROPINDEX", "opt")


def test_info_resp3(server, idx):
    c = server.raw()
    c.command("HELLO", "3")
    kind, pairs = c.command("FT.INFO", "adm")
    assert kind == "map"
    d = dict(pairs)
    assert [k for k, _ in pairs] == INFO_FIELDS
    assert d["num_docs"] == 3
    assert d["percent_indexed"] == ("double", "1")
    assert d["index_definition"] == ("map", [("key_type", "HASH"), ("prefixes", ["d:"]),
                                             ("default_score", ("double", "1"))])
    assert d["attributes"][0] == ("map", [("identifier", "name"), ("attribute", "name"), ("type", "TEXT"),
                                          ("WEIGHT", ("double", "1")), ("flags", ["SORTABLE"])])
    assert d["attributes"][2] == ("map", [("identifier", "city"), ("attribute", "city"), ("type", "TAG"),
                                          ("SEPARATOR", ","), ("flags", [])])
    c.close()


def test_alter_schema_add(idx):
    idx.hset("d:1", "extra", "hello world")
    assert idx.execute_command("FT.ALTER", "adm", "SCHEMA", "ADD", "extra", "TEXT", "n2", "NUMERIC") == "OK"
    _, d = info(idx, "adm")
    assert d["attributes"][3] == ["identifier", "extra", "attribute", "extra", "type", "TEXT", "WEIGHT", "1"]
    assert d["attributes"][4] == ["identifier", "n2", "attribute", "n2", "type", "NUMERIC"]
    assert wait_until(lambda: idx.execute_command("FT.SEARCH", "adm", "@extra:hello", "NOCONTENT") == [1, "d:1"])
    assert err(idx, "FT.ALTER", "adm", "SCHEMA", "ADD", "extra", "TEXT") == "Duplicate field in schema - extra"
    assert err(idx, "FT.ALTER", "nosuch", "SCHEMA", "ADD", "x", "TEXT") == "Unknown index name"
    assert err(idx, "FT.ALTER", "adm", "ADD", "x", "TEXT") == "ALTER must be followed by SCHEMA"


def test_aliases(idx):
    assert idx.execute_command("FT.ALIASADD", "al", "adm") == "OK"
    assert idx.execute_command("FT.SEARCH", "al", "@city:{paris}", "NOCONTENT", "SORTBY", "age") == [2, "d:1", "d:3"]
    assert info(idx, "al")[1]["index_name"] == "adm"
    assert err(idx, "FT.ALIASADD", "al", "adm") == "Alias already exists"
    assert err(idx, "FT.ALIASADD", "al2", "nosuch") == "Unknown index name (or name is an alias itself)"
    assert err(idx, "FT.ALIASUPDATE", "al3", "nosuch") == "Unknown index name (or name is an alias itself)"
    idx.execute_command("FT.CREATE", "adm2", "PREFIX", 1, "nothing:", "SCHEMA", "x", "TEXT")
    assert idx.execute_command("FT.ALIASUPDATE", "al", "adm2") == "OK"
    assert info(idx, "al")[1]["index_name"] == "adm2"
    assert idx.execute_command("FT.ALIASDEL", "al") == "OK"
    assert err(idx, "FT.ALIASDEL", "al") == "Alias does not exist"
    assert err(idx, "FT.INFO", "al") == "Unknown index name"


def test_tagvals(idx):
    assert sorted(idx.execute_command("FT.TAGVALS", "adm", "city")) == ["london", "paris", "rome"]
    assert err(idx, "FT.TAGVALS", "adm", "name") == "Not a tag field"
    assert err(idx, "FT.TAGVALS", "adm", "nope") == "No such field"
    assert err(idx, "FT.TAGVALS", "nope", "city") == "Unknown Index name"


def test_config(r):
    assert r.execute_command("FT.CONFIG", "GET", "DEFAULT_DIALECT") == [["DEFAULT_DIALECT", "1"]]
    try:
        assert r.execute_command("FT.CONFIG", "SET", "DEFAULT_DIALECT", 2) == "OK"
        assert r.execute_command("FT.CONFIG", "GET", "DEFAULT_DIALECT") == [["DEFAULT_DIALECT", "2"]]
    finally:
        r.execute_command("FT.CONFIG", "SET", "DEFAULT_DIALECT", 1)
    everything = dict(r.execute_command("FT.CONFIG", "GET", "*"))
    for name, value in [("MINPREFIX", "2"), ("MAXEXPANSIONS", "200"), ("TIMEOUT", "500"),
                        ("MAXSEARCHRESULTS", "1000000"), ("MAXAGGREGATERESULTS", "unlimited"),
                        ("DEFAULT_SCORER", "TFIDF"), ("CURSOR_MAX_IDLE", "300000"), ("EXTLOAD", None)]:
        assert everything[name] == value
    assert r.execute_command("FT.CONFIG", "GET", "nosuch") == []
    assert err(r, "FT.CONFIG", "SET", "nosuch", 1) == "Invalid option"
    assert err(r, "FT.CONFIG", "SET", "TIMEOUT", "x") == "Could not convert argument to expected type"
    assert err(r, "FT.CONFIG", "GET") == "wrong number of arguments for 'FT.CONFIG' command"
    assert r.execute_command("FT.CONFIG", "HELP", "TIMEOUT") == [
        ["TIMEOUT", "Description", "Query (search) timeout", "Value", "500"]]


def test_config_and_explain_resp3(server, idx):
    c = server.raw()
    c.command("HELLO", "3")
    assert c.command("FT.CONFIG", "GET", "TIMEOUT") == ("map", [("TIMEOUT", b"500")])
    assert c.command("FT.CONFIG", "HELP", "TIMEOUT") == (
        "map", [("TIMEOUT", ("map", [("Description", "Query (search) timeout"), ("Value", b"500")]))])
    assert c.command("FT.EXPLAINCLI", "adm", "@city:{paris}") == ["TAG:@city {", "  paris", "}", ""]
    assert c.command("FT.TAGVALS", "adm", "city") == ("set", [b"london", b"paris", b"rome"])
    c.close()


def test_explain(idx):
    text = idx.execute_command("FT.EXPLAIN", "adm", "@city:{paris} @age:[10 20]")
    assert text.startswith("INTERSECT {\n") and "TAG:@city {" in text and text.endswith("}\n")
    lines = idx.execute_command("FT.EXPLAINCLI", "adm", "@city:{paris} @age:[10 20]")
    assert lines == text.split("\n")
    assert err(idx, "FT.EXPLAIN", "nosuch", "x") == "No such index nosuch"


def test_explain_stem_expansion_and_nostem_fields(r):
    # A term expands to "+stem" (and the stem when it differs) in its stemmed fields only:
    # unrestricted terms everywhere, "@f:" terms only where f has no NOSTEM; stop words
    # leave the query; field lists print in schema order. FT.SEARCH follows the same rule.
    r.execute_command("FT.CREATE", "st", "ON", "HASH", "PREFIX", "1", "st:",
                      "SCHEMA", "title", "TEXT", "body", "TEXT", "NOSTEM", "n", "NUMERIC")
    r.hset("st:1", mapping={"title": "x", "body": "run"})
    r.hset("st:2", mapping={"title": "run", "body": "x"})

    def explain(q):
        return r.execute_command("FT.EXPLAIN", "st", q)

    assert explain("running") == "UNION {\n  running\n  +run(expanded)\n  run(expanded)\n}\n"
    assert explain("@title:car") == "@title:UNION {\n  @title:car\n  @title:+car(expanded)\n}\n"
    assert explain("@body:runs") == "@body:runs\n"
    assert explain("@body|title:runs") == (
        "@title|body:UNION {\n  @title|body:runs\n  @title:+run(expanded)\n  @title:run(expanded)\n}\n")
    assert r.execute_command("FT.EXPLAIN", "st", "running", "VERBATIM") == "running\n"
    assert explain("the") == "<empty>\n"

    def found(q):
        return sorted(r.execute_command("FT.SEARCH", "st", q, "NOCONTENT")[1:])

    assert found("runs") == ["st:1", "st:2"]
    assert found("@title|body:runs") == ["st:2"]
    assert found("@title|body:(runs walks)") == []
    assert found("@body:runs") == []
    assert found("@body:run") == ["st:1"]


def test_profile(idx):
    reply = idx.execute_command("FT.PROFILE", "adm", "SEARCH", "QUERY", "@city:{paris}", "NOCONTENT",
                                "SORTBY", "age")
    assert reply[0] == [2, "d:1", "d:3"]
    assert reply[1][0][0] == "Total profile time"
    float(reply[1][0][1])
    reply = idx.execute_command("FT.PROFILE", "adm", "AGGREGATE", "QUERY", "*", "GROUPBY", 1, "@city",
                                "SORTBY", 2, "@city", "ASC")
    assert reply[0] == [3, ["city", "London"], ["city", "paris"], ["city", "paris,rome"]]
    assert reply[1][0][0] == "Total profile time"
    assert err(idx, "FT.PROFILE", "adm", "FOO", "QUERY", "x") == "No `SEARCH` or `AGGREGATE` provided"
    assert err(idx, "FT.PROFILE", "nosuch", "SEARCH", "QUERY", "x") == "No such index nosuch"


def test_legacy_drop(r):
    r.hset("z:1", "a", "b")
    r.execute_command("FT.CREATE", "zz", "PREFIX", 1, "z:", "SCHEMA", "a", "TEXT")
    assert r.execute_command("FT.DROP", "zz", "KEEPDOCS") == "OK"
    assert r.exists("z:1") == 1
    r.execute_command("FT.CREATE", "zz", "PREFIX", 1, "z:", "SCHEMA", "a", "TEXT")
    wait_until(lambda: info(r, "zz")[1]["num_docs"] == 1)
    assert r.execute_command("FT.DROP", "zz") == "OK"  # without KEEPDOCS the documents go
    assert r.exists("z:1") == 0
    assert err(r, "FT.DROP", "nope") == "Unknown Index name"
