"""JSON documents (ReJSON-RL keys, the JSON.* commands of Redis 8): replies, errors,
legacy vs JSONPath forms, RESP3, and the engine (TYPE, COPY, RENAME, EXPIRE,
notifications). Cases follow the examples of Redis's JSON command documentation."""
import json

import pytest

from conftest import error_reply


def jget(r, key, *paths):
    raw = r.execute_command("JSON.GET", key, *paths)
    return None if raw is None else json.loads(raw)


def test_set_get_root_and_type(r):
    assert r.execute_command("JSON.SET", "doc", "$", '{"a":2,"b":[1,2.0,"x",null,true]}') == "OK"
    assert r.execute_command("JSON.GET", "doc") == '{"a":2,"b":[1,2.0,"x",null,true]}'
    assert r.execute_command("JSON.GET", "doc", "$") == '[{"a":2,"b":[1,2.0,"x",null,true]}]'
    assert r.type("doc") == "ReJSON-RL"
    assert r.object("encoding", "doc") == "raw"
    assert r.memory_usage("doc") > 0
    assert r.execute_command("JSON.GET", "missing") is None


def test_set_creates_and_updates(r):
    # Docs: add a new value, update multiple matches, unmet conditions.
    r.execute_command("JSON.SET", "doc", "$", '{"a":2}')
    assert r.execute_command("JSON.SET", "doc", "$.b", "8") == "OK"
    assert r.execute_command("JSON.GET", "doc", "$") == '[{"a":2,"b":8}]'
    r.execute_command("JSON.SET", "doc", "$", '{"f1": {"a":1}, "f2":{"a":2}}')
    assert r.execute_command("JSON.SET", "doc", "$..a", "3") == "OK"
    assert r.execute_command("JSON.GET", "doc") == '{"f1":{"a":3},"f2":{"a":3}}'
    r.execute_command("JSON.SET", "doc", "$", "1")
    assert r.execute_command("JSON.SET", "doc", "$.x.y", "2") is None
    assert r.execute_command("JSON.SET", "nonexistentkey", "$", "5", "XX") is None
    assert r.execute_command("JSON.GET", "nonexistentkey") is None
    assert error_reply(r, "JSON.SET", "nonexistentkey", "$.x", "5") == \
        "ERR new objects must be created at the root"
    r.execute_command("JSON.SET", "doc", "$", '{"a":1}')
    assert r.execute_command("JSON.SET", "doc", "$.a", "2", "NX") is None
    assert r.execute_command("JSON.SET", "doc", "$.b", "2", "NX") == "OK"
    assert r.execute_command("JSON.SET", "doc", "$.c", "2", "XX") is None
    assert r.execute_command("JSON.SET", "doc", ".a", '"legacy"') == "OK"
    assert r.execute_command("JSON.GET", "doc") == '{"a":"legacy","b":2}'
    assert r.execute_command("JSON.SET", "doc", "$", "[]", "NX") is None
    assert error_reply(r, "JSON.SET", "doc", "$", "1", "NX", "XX") == "ERR syntax error"


def test_bad_json_and_paths(r):
    r.execute_command("JSON.SET", "doc", "$", '{"a":1}')
    assert error_reply(r, "JSON.SET", "doc", "$", "{bad") == "key must be a string at line 1 column 2"
    assert error_reply(r, "JSON.SET", "doc", "$", "") == "EOF while parsing a value at line 1 column 0"
    assert error_reply(r, "JSON.SET", "doc", "$.a", "[1,2") == "EOF while parsing a list at line 1 column 4"
    assert error_reply(r, "JSON.SET", "doc", "$", "1 2") == "trailing characters at line 1 column 3"
    assert error_reply(r, "JSON.GET", "doc", "$[").startswith("Error occurred on position")
    assert r.execute_command("JSON.GET", "doc") == '{"a":1}'
    deep = "[" * 128 + "]" * 128
    assert error_reply(r, "JSON.SET", "doc", "$", deep) == "ERR recursion limit exceeded"
    ok = "[" * 127 + "]" * 127
    assert r.execute_command("JSON.SET", "doc", "$", ok) == "OK"
    r.set("str", "x")
    assert error_reply(r, "JSON.SET", "str", "$", "1").startswith("WRONGTYPE")
    assert error_reply(r, "JSON.GET", "str").startswith("WRONGTYPE")
    assert error_reply(r, "JSON.SET", "doc", "$", b'"\xff"') == "Couldn't parse as UTF-8 string"


def test_numbers_print_as_redis(r):
    r.execute_command("JSON.SET", "n", "$", "[1, 1.0, 3.5e10, 1e300, 1.5E-7, 0.1, -0.0, 1e16]")
    assert r.execute_command("JSON.GET", "n") == "[1,1.0,35000000000.0,1e300,1.5e-7,0.1,-0.0,1e16]"


def test_get_formats_and_multiple_paths(r):
    r.execute_command("JSON.SET", "doc", "$", '{"a":2, "b": 3, "nested": {"a": 4, "b": null}}')
    assert r.execute_command("JSON.GET", "doc", "$..b") == "[3,null]"
    assert jget(r, "doc", "..a", "$..b") == {"..a": [2, 4], "$..b": [3, None]}
    assert jget(r, "doc", ".a", ".b") == {".a": 2, ".b": 3}
    assert error_reply(r, "JSON.GET", "doc", ".a", ".zz") == "ERR Path '$.zz' does not exist"
    assert error_reply(r, "JSON.GET", "doc", ".zz") == "ERR Path '$.zz' does not exist"
    assert r.execute_command("JSON.GET", "doc", "$.zz") == "[]"
    r.execute_command("JSON.SET", "f", "$", '{"a":[1,{}],"b":"x"}')
    assert r.execute_command("JSON.GET", "f", "INDENT", "\t", "NEWLINE", "\n", "SPACE", " ", ".") == \
        '{\n\t"a": [\n\t\t1,\n\t\t{}\n\t],\n\t"b": "x"\n}'
    assert r.execute_command("JSON.GET", "f", "INDENT", "  ", "NEWLINE", "\n", "$.b") == '[\n  "x"\n]'
    assert r.execute_command("JSON.GET", "f", "NOESCAPE", "$.b") == '["x"]'


def test_mget_mset(r):
    r.execute_command("JSON.SET", "doc1", "$", '{"a":1, "b": 2, "nested": {"a": 3}, "c": null}')
    r.execute_command("JSON.SET", "doc2", "$", '{"a":4, "b": 5, "nested": {"a": 6}, "c": null}')
    assert r.execute_command("JSON.MGET", "doc1", "doc2", "nokey", "$..a") == ["[1,3]", "[4,6]", None]
    assert r.execute_command("JSON.MGET", "doc1", "doc2", ".b") == ["2", "5"]
    assert r.execute_command("JSON.MGET", "doc1", ".zz") == [None]
    assert r.execute_command("JSON.MSET", "doc1", "$", '{"a":1}', "doc2", "$", '{"f":{"a":2}}',
                             "doc3", "$", '{"f1":{"a":0},"f2":{"a":0}}') == "OK"
    assert r.execute_command("JSON.MSET", "doc3", "$..a", "9", "doc1", "$.b", "[]") == "OK"
    assert r.execute_command("JSON.GET", "doc3") == '{"f1":{"a":9},"f2":{"a":9}}'
    assert r.execute_command("JSON.GET", "doc1") == '{"a":1,"b":[]}'
    assert error_reply(r, "JSON.MSET", "doc1", "$") == "ERR wrong number of arguments for 'json.mset' command"
    assert error_reply(r, "JSON.MSET", "doc1", "$", "1", "nokey", "$.a", "1") == \
        "ERR new objects must be created at the root"
    assert error_reply(r, "JSON.MSET", "doc1", "$", "1", "doc2", "$", "x").startswith("expected value")
    assert r.execute_command("JSON.GET", "doc1") == '{"a":1,"b":[]}'


def test_del_forget(r):
    r.execute_command("JSON.SET", "doc", "$", '{"a": 1, "nested": {"a": 2, "b": 3}}')
    assert r.execute_command("JSON.DEL", "doc", "$..a") == 2
    assert r.execute_command("JSON.GET", "doc", "$") == '[{"nested":{"b":3}}]'
    assert r.execute_command("JSON.FORGET", "doc", ".nested.b") == 1
    assert r.execute_command("JSON.DEL", "doc", ".zz") == 0
    assert r.execute_command("JSON.DEL", "doc") == 1
    assert r.exists("doc") == 0
    assert r.execute_command("JSON.DEL", "doc") == 0
    r.execute_command("JSON.SET", "arr", "$", "[0,1,2,3,4]")
    assert r.execute_command("JSON.DEL", "arr", "$[1,3]") == 2
    assert r.execute_command("JSON.GET", "arr") == "[0,2,4]"


def test_type(r):
    r.execute_command("JSON.SET", "doc", "$", '{"a":2, "nested": {"a": true}, "foo": "bar", "f": 1.5}')
    assert r.execute_command("JSON.TYPE", "doc", "$..foo") == ["string"]
    assert r.execute_command("JSON.TYPE", "doc", "$..a") == ["integer", "boolean"]
    assert r.execute_command("JSON.TYPE", "doc", "$..dummy") == []
    assert r.execute_command("JSON.TYPE", "doc") == "object"
    assert r.execute_command("JSON.TYPE", "doc", ".f") == "number"
    assert r.execute_command("JSON.TYPE", "doc", ".zz") is None
    assert r.execute_command("JSON.TYPE", "nokey") is None
    assert r.execute_command("JSON.TYPE", "nokey", "$") is None


def test_numincrby_nummultby(r):
    r.execute_command("JSON.SET", "doc", ".", '{"a":"b","b":[{"a":2}, {"a":5}, {"a":"c"}]}')
    assert r.execute_command("JSON.NUMINCRBY", "doc", "$.a", "2") == "[null]"
    assert r.execute_command("JSON.NUMINCRBY", "doc", "$..a", "2") == "[null,4,7,null]"
    assert r.execute_command("JSON.NUMMULTBY", "doc", "$..a", "2") == "[null,8,14,null]"
    assert r.execute_command("JSON.NUMINCRBY", "doc", "$.b[0].a", "0.5") == "[8.5]"
    assert r.execute_command("JSON.NUMINCRBY", "doc", ".b[1].a", "1") == "15"
    assert r.execute_command("JSON.NUMMULTBY", "doc", ".b[1].a", "1.5") == "22.5"
    # Legacy writers act on the matches of the right type, else one error text.
    assert error_reply(r, "JSON.NUMINCRBY", "doc", ".a", "1") == \
        "ERR Path does not exist or does not contains a number"
    assert error_reply(r, "JSON.NUMINCRBY", "doc", ".zz", "1") == \
        "ERR Path does not exist or does not contains a number"
    assert r.execute_command("JSON.NUMINCRBY", "doc", "..a", "1") == "23.5"
    assert error_reply(r, "JSON.NUMINCRBY", "nokey", "$", "1") == \
        "ERR could not perform this operation on a key that doesn't exist"
    assert error_reply(r, "JSON.NUMINCRBY", "doc", "$.a", "x").startswith("expected value")
    r.execute_command("JSON.SET", "big", "$", "9223372036854775807")
    assert r.execute_command("JSON.NUMINCRBY", "big", "$", "1") == "[9.223372036854776e18]"
    r.execute_command("JSON.SET", "big", "$", "1e308")
    assert error_reply(r, "JSON.NUMMULTBY", "big", "$", "10") == "ERR result is an infinite number"
    assert r.execute_command("JSON.GET", "big") == "1e308"


def test_strings(r):
    r.execute_command("JSON.SET", "doc", "$", '{"a":"foo", "nested": {"a": "hello"}, "nested2": {"a": 31}}')
    assert r.execute_command("JSON.STRAPPEND", "doc", "$..a", '"baz"') == [6, 8, None]
    assert r.execute_command("JSON.GET", "doc") == \
        '{"a":"foobaz","nested":{"a":"hellobaz"},"nested2":{"a":31}}'
    assert r.execute_command("JSON.STRLEN", "doc", "$..a") == [6, 8, None]
    assert r.execute_command("JSON.STRAPPEND", "doc", ".a", '"!"') == 7
    assert r.execute_command("JSON.STRLEN", "doc", ".a") == 7
    assert error_reply(r, "JSON.STRLEN", "doc", ".nested2.a") == "ERR Path does not exist or not a string"
    assert error_reply(r, "JSON.STRLEN", "doc", ".zz") == "ERR Path does not exist"
    assert error_reply(r, "JSON.TOGGLE", "doc", ".a") == "ERR Path does not exist or not a bool"
    assert r.execute_command("JSON.STRLEN", "nokey") is None
    assert error_reply(r, "JSON.STRLEN", "nokey", "$") == \
        "ERR could not perform this operation on a key that doesn't exist"
    r.execute_command("JSON.SET", "s", "$", '"ab"')
    assert r.execute_command("JSON.STRAPPEND", "s", '"cd"') == 4
    assert r.execute_command("JSON.GET", "s") == '"abcd"'
    assert error_reply(r, "JSON.STRAPPEND", "s", "1").startswith("WRONGTYPE")


def test_toggle_clear(r):
    r.execute_command("JSON.SET", "doc", "$", '{"bool": true}')
    assert r.execute_command("JSON.TOGGLE", "doc", "$.bool") == [0]
    assert r.execute_command("JSON.GET", "doc", "$") == '[{"bool":false}]'
    assert r.execute_command("JSON.TOGGLE", "doc", "$.bool") == [1]
    assert r.execute_command("JSON.TOGGLE", "doc", ".bool") == "false"
    assert r.execute_command("JSON.TOGGLE", "doc", "$") == [None]
    r.execute_command("JSON.SET", "doc", "$",
                      '{"obj":{"a":1, "b":2}, "arr":[1,2,3], "str": "foo", "bool": true, "int": 42, "float": 3.14}')
    assert r.execute_command("JSON.CLEAR", "doc", "$.*") == 4
    assert r.execute_command("JSON.GET", "doc", "$") == \
        '[{"obj":{},"arr":[],"str":"foo","bool":true,"int":0,"float":0}]'
    assert r.execute_command("JSON.CLEAR", "doc", "$.*") == 0  # nothing left to change
    assert r.execute_command("JSON.CLEAR", "doc") == 1
    assert r.execute_command("JSON.GET", "doc") == "{}"
    assert r.execute_command("JSON.CLEAR", "doc") == 0
    assert error_reply(r, "JSON.CLEAR", "nokey").startswith("ERR could not perform")


def test_objects(r):
    r.execute_command("JSON.SET", "doc", "$", '{"a":[3], "nested": {"a": {"b":2, "c": 1}}}')
    assert r.execute_command("JSON.OBJKEYS", "doc", "$..a") == [None, ["b", "c"]]
    assert r.execute_command("JSON.OBJLEN", "doc", "$..a") == [None, 2]
    assert r.execute_command("JSON.OBJKEYS", "doc") == ["a", "nested"]
    assert r.execute_command("JSON.OBJLEN", "doc", ".nested") == 1
    assert r.execute_command("JSON.OBJLEN", "nokey") is None
    assert r.execute_command("JSON.OBJLEN", "doc", ".a") is None
    assert r.execute_command("JSON.OBJLEN", "doc", ".zz") is None
    assert error_reply(r, "JSON.OBJLEN", "nokey", "$") == "ERR Path does not exist or not an object"
    assert error_reply(r, "JSON.OBJKEYS", "doc", ".a") == "ERR Path does not exist or not an object"
    assert r.execute_command("JSON.OBJKEYS", "doc", ".zz") is None


def test_arrays(r):
    r.execute_command("JSON.SET", "item", "$", '{"colors":["black","silver"],"max_level":[80, 100, 120]}')
    assert r.execute_command("JSON.ARRAPPEND", "item", "$.colors", '"blue"') == [3]
    assert r.execute_command("JSON.GET", "item", "$.colors") == '[["black","silver","blue"]]'
    assert r.execute_command("JSON.ARRAPPEND", "item", ".colors", '"red"', '"white"') == 5
    assert r.execute_command("JSON.ARRINSERT", "item", "$.max_level", "0", "60", "70") == [5]
    assert r.execute_command("JSON.GET", "item", "$.max_level") == "[[60,70,80,100,120]]"
    assert r.execute_command("JSON.ARRINSERT", "item", "$.max_level", "-1", "110") == [6]
    assert r.execute_command("JSON.GET", "item", "$.max_level") == "[[60,70,80,100,110,120]]"
    assert error_reply(r, "JSON.ARRINSERT", "item", "$.max_level", "7", "1") == "ERR index out of bounds"
    assert r.execute_command("JSON.ARRINDEX", "item", "$.max_level", "100") == [3]
    assert r.execute_command("JSON.ARRINDEX", "item", "$.max_level", "100.0") == [3]
    assert r.execute_command("JSON.ARRINDEX", "item", "$.max_level", "100", "4") == [-1]
    assert r.execute_command("JSON.ARRINDEX", "item", "$.max_level", "120", "0", "-1") == [-1]
    assert r.execute_command("JSON.ARRINDEX", "item", ".colors", '"silver"') == 1
    assert r.execute_command("JSON.ARRLEN", "item", "$.*") == [5, 6]
    assert r.execute_command("JSON.ARRLEN", "item", ".colors") == 5
    assert r.execute_command("JSON.ARRPOP", "item", "$.max_level", "0") == ["60"]
    assert r.execute_command("JSON.ARRPOP", "item", ".colors") == '"white"'
    assert r.execute_command("JSON.ARRPOP", "item", "$.colors", "99") == ['"red"']
    assert r.execute_command("JSON.ARRTRIM", "item", "$.max_level", "1", "2") == [2]
    assert r.execute_command("JSON.GET", "item", "$.max_level") == "[[80,100]]"
    assert r.execute_command("JSON.ARRTRIM", "item", ".max_level", "5", "9") == 0
    assert r.execute_command("JSON.ARRPOP", "item", "$.max_level") == [None]
    assert error_reply(r, "JSON.ARRAPPEND", "item", ".zz", "1") == "ERR Path does not exist or not an array"
    assert error_reply(r, "JSON.ARRAPPEND", "item", ".", "1") == "ERR Path does not exist or not an array"
    assert error_reply(r, "JSON.ARRLEN", "item", ".") == "ERR Path does not exist or not an array"
    assert error_reply(r, "JSON.ARRAPPEND", "item", "$.colors") == \
        "ERR wrong number of arguments for 'json.arrappend' command"
    assert r.execute_command("JSON.ARRAPPEND", "item", "$", "1") == [None]
    assert error_reply(r, "JSON.ARRAPPEND", "nokey", "$", "1").startswith("ERR could not perform")
    assert error_reply(r, "JSON.ARRAPPEND", "item", "$.colors", "[1").startswith("EOF while parsing")


def test_merge(r):
    r.execute_command("JSON.SET", "doc", "$", '{"a":2}')
    assert r.execute_command("JSON.MERGE", "doc", "$.a", "3") == "OK"
    assert r.execute_command("JSON.GET", "doc", "$") == '[{"a":3}]'
    assert r.execute_command("JSON.MERGE", "doc", "$.b", '{"c":1}') == "OK"
    assert r.execute_command("JSON.GET", "doc") == '{"a":3,"b":{"c":1}}'
    assert r.execute_command("JSON.MERGE", "doc", "$", '{"a":null,"b":{"d":[1]}}') == "OK"
    assert r.execute_command("JSON.GET", "doc") == '{"b":{"c":1,"d":[1]}}'
    assert r.execute_command("JSON.MERGE", "doc", "$.b.c", "null") == "OK"
    assert r.execute_command("JSON.GET", "doc") == '{"b":{"d":[1]}}'
    assert r.execute_command("JSON.MERGE", "new", "$", '{"x":{"y":null,"z":1}}') == "OK"
    assert r.execute_command("JSON.GET", "new") == '{"x":{"z":1}}'
    assert error_reply(r, "JSON.MERGE", "nokey", "$.a", "1") == "ERR new objects must be created at the root"
    # Depth: a merge or set that would nest 128 levels is refused before any change.
    r.execute_command("JSON.SET", "d", "$", '{"x":' + "[" * 100 + "]" * 100 + "}")
    deep = "[" * 30 + "]" * 30
    assert error_reply(r, "JSON.MERGE", "d", "$.x" + "[0]" * 99, deep) == "ERR recursion limit exceeded"
    assert error_reply(r, "JSON.SET", "d", "$.x" + "[0]" * 99, deep) == "ERR recursion limit exceeded"
    assert r.execute_command("JSON.GET", "d") == '{"x":' + "[" * 100 + "]" * 100 + "}"


def test_resp_and_debug(r):
    r.execute_command("JSON.SET", "doc", "$", '{"a":[1,2.5,"x",null,true],"o":{"k":false}}')
    assert r.execute_command("JSON.RESP", "doc") == \
        ["{", "a", ["[", 1, "2.5", "x", None, "true"], "o", ["{", "k", "false"]]
    assert r.execute_command("JSON.RESP", "doc", "$.a[0]") == [1]
    assert r.execute_command("JSON.RESP", "nokey") is None
    assert r.execute_command("JSON.DEBUG", "MEMORY", "doc") > 0
    assert len(r.execute_command("JSON.DEBUG", "MEMORY", "doc", "$..*")) == 8
    assert r.execute_command("JSON.DEBUG", "MEMORY", "nokey") == 0
    assert r.execute_command("JSON.DEBUG", "MEMORY", "nokey", "$") == []
    assert error_reply(r, "JSON.DEBUG", "MEMORY", "doc", ".zz") == "ERR Path '$.zz' does not exist"
    assert len(r.execute_command("JSON.DEBUG", "HELP")) == 2


def test_resp3_replies(server):
    c = server.raw()
    try:
        c.command("HELLO", "3")
        c.command("FLUSHALL")
        assert c.command("JSON.SET", "doc", "$", '{"a":1,"b":[1.5],"t":true}') == "OK"
        assert c.command("JSON.GET", "doc", "$.a") == b"[1]"
        assert c.command("JSON.NUMINCRBY", "doc", "$..a", "2") == [3]
        assert c.command("JSON.NUMINCRBY", "doc", "$.b[0]", "1") == [("double", "2.5")]
        assert c.command("JSON.TYPE", "doc", "$.a") == [["integer"]]
        # RESP3 wraps JSON.TYPE's every reply in one more array (RedisJSON's json_type;
        # node-redis's transformReply takes reply[0]).
        assert c.command("JSON.TYPE", "doc") == ["object"]
        assert c.command("JSON.TYPE", "doc", ".zz") == [None]
        assert c.command("JSON.TYPE", "nokey", "$.a") == [None]
        assert c.command("JSON.RESP", "doc", "$.b") == [["[", ("double", "2.5")]]
        assert c.command("JSON.TOGGLE", "doc", "$.t") == [0]
        assert c.command("JSON.NUMINCRBY", "doc", ".a", "1") == [4]
        assert c.command("JSON.GET", "nokey") is None
    finally:
        c.close()


def test_engine_integration(r):
    r.execute_command("JSON.SET", "doc", "$", '{"a":[1,2]}')
    assert r.copy("doc", "doc2")
    r.execute_command("JSON.ARRAPPEND", "doc2", "$.a", "3")
    assert r.execute_command("JSON.GET", "doc") == '{"a":[1,2]}'
    assert r.execute_command("JSON.GET", "doc2") == '{"a":[1,2,3]}'
    r.rename("doc2", "doc3")
    assert r.execute_command("JSON.GET", "doc3", "$.a[2]") == "[3]"
    assert r.expire("doc3", 100)
    assert 0 < r.ttl("doc3") <= 100
    r.execute_command("JSON.SET", "doc3", "$.a", "[]")
    assert 0 < r.ttl("doc3") <= 100
    assert r.delete("doc", "doc3") == 2
    assert r.scan(0, _type="ReJSON-RL") == (0, [])
    r.execute_command("JSON.SET", "k", "$", "1")
    assert r.scan(0, _type="ReJSON-RL")[1] == ["k"]
    assert r.move("k", 2)
    r.execute_command("SELECT", 2)
    assert r.execute_command("JSON.GET", "k") == "1"
    r.execute_command("SELECT", 0)
    big = "[" + ",".join('{"i":%d}' % i for i in range(1000)) + "]"
    r.execute_command("JSON.SET", "big", "$", big)
    assert r.execute_command("JSON.ARRLEN", "big") == 1000
    assert r.unlink("big") == 1
    assert r.exists("big") == 0


@pytest.mark.hotkv_only
def test_small_documents_are_packed(r):
    """Documents up to 4 KB packed are kept in HotKV's packed form (docs/json.md): they
    cost less than their text, a read leaves them packed, a write re-packs them, and
    every command sees the same document either way."""
    doc = {"id": "user:1", "name": "Ada Lovelace", "age": 36, "active": True, "score": 19.99,
           "tags": ["math", "engines", "poetry"], "ratios": [0.25, -0.1234, 1e300, 3.0],
           "address": {"city": "London", "zip": None},
           "orders": [{"id": i, "sku": "SKU-%06d" % i, "price": i + 0.5} for i in range(4)]}
    text = json.dumps(doc, separators=(",", ":"))
    r.execute_command("JSON.SET", "p", "$", text)
    used = r.execute_command("JSON.DEBUG", "MEMORY", "p")
    assert used < len(text)
    assert jget(r, "p") == doc
    # Reads walk into the document and leave it packed (same bytes afterwards).
    assert jget(r, "p", "$.orders[*].sku") == ["SKU-%06d" % i for i in range(4)]
    assert r.execute_command("JSON.OBJKEYS", "p", "$.address") == [["city", "zip"]]
    assert json.loads(r.execute_command("JSON.GET", "p", "INDENT", " ", "NEWLINE", "\n", "$")) == [doc]
    assert r.execute_command("JSON.DEBUG", "MEMORY", "p") == used
    # Writes edit and re-pack; the model follows.
    r.execute_command("JSON.NUMINCRBY", "p", "$.age", 1)
    doc["age"] += 1
    r.execute_command("JSON.ARRAPPEND", "p", "$.tags", '"chess"')
    doc["tags"].append("chess")
    r.execute_command("JSON.SET", "p", "$.orders[1].price", "7.25")
    doc["orders"][1]["price"] = 7.25
    r.execute_command("JSON.DEL", "p", "$.address.zip")
    del doc["address"]["zip"]
    r.execute_command("JSON.MERGE", "p", "$", '{"extra":{"k":[1,2]}}')
    doc["extra"] = {"k": [1, 2]}
    assert jget(r, "p") == doc
    assert r.execute_command("JSON.DEBUG", "MEMORY", "p") < len(json.dumps(doc, separators=(",", ":")))
    assert r.execute_command("JSON.ARRLEN", "p", "$.tags") == [4]
    assert r.execute_command("JSON.TYPE", "p", "$.score") == ["number"]
    # MGET over packed and unpacked documents; a copy stays packed and independent.
    assert r.copy("p", "q")
    r.execute_command("JSON.SET", "q", "$.age", "1")
    assert json.loads(r.execute_command("JSON.MGET", "p", "q", "$.age")[0]) == [doc["age"]]
    assert r.execute_command("JSON.MGET", "p", "q", "$.age")[1] == "[1]"
    # A document that grows past the packed limit is still served the same way.
    big = ["x" * 100 for _ in range(60)]
    r.execute_command("JSON.SET", "p", "$.big", json.dumps(big))
    doc["big"] = big
    assert jget(r, "p") == doc
    assert r.execute_command("JSON.DEBUG", "MEMORY", "p") > 6000
    r.execute_command("JSON.DEL", "p", "$.big")
    del doc["big"]
    assert jget(r, "p") == doc


def test_watch_and_notifications(server, r):
    r.execute_command("JSON.SET", "doc", "$", '{"a":1}')
    r.config_set("notify-keyspace-events", "KEA")
    try:
        p = r.pubsub()
        p.psubscribe("__keyevent@0__:*")
        assert p.get_message(timeout=2)["type"] == "psubscribe"
        r.execute_command("JSON.SET", "doc", "$.a", "2")
        r.execute_command("JSON.NUMINCRBY", "doc", "$.a", "1")
        r.execute_command("JSON.DEL", "doc", "$.a")
        events = []
        for _ in range(3):
            m = p.get_message(timeout=2)
            events.append(m["channel"].split(":", 1)[1])
        assert events == ["json.set", "json.numincrby", "json.del"]
        p.close()
    finally:
        r.config_set("notify-keyspace-events", "")
    pipe = r.pipeline()
    pipe.watch("doc")
    r.execute_command("JSON.SET", "doc", "$.b", "1")
    pipe.multi()
    pipe.execute_command("JSON.GET", "doc")
    with pytest.raises(Exception):
        pipe.execute()


def test_arity_and_command_info(r):
    assert error_reply(r, "JSON.GET") == "ERR wrong number of arguments for 'json.get' command"
    info = r.execute_command("COMMAND", "INFO", "json.mget")
    assert info


# ---- Persistence: DUMP/RESTORE, RDB, AOF ----

# "ReJSON-RL" in Redis's module-id charset, shifted by 10 bits, encoding version 3.
_CHARSET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
_JSON_MODULE_ID = 0
for _c in "ReJSON-RL":
    _JSON_MODULE_ID = (_JSON_MODULE_ID << 6) | _CHARSET.index(_c)
_JSON_MODULE_ID = (_JSON_MODULE_ID << 10) | 3


def test_dump_restore_uses_redis_module_encoding(rb):
    doc = b'{"a":[1,2.5,"x"],"b":{"c":null}}'
    rb.execute_command("JSON.SET", "doc", "$", doc)
    payload = rb.dump("doc")
    # RDB_TYPE_MODULE_2, the 64-bit module id (0x81 + 8 bytes big-endian), a module
    # STRING opcode (5), the compact JSON text, the module EOF opcode (0).
    assert payload[0] == 7
    assert payload[1] == 0x81 and int.from_bytes(payload[2:10], "big") == _JSON_MODULE_ID
    assert payload[10] == 5 and payload[11] == len(doc) and payload[12:12 + len(doc)] == doc
    assert payload[12 + len(doc)] == 0
    rb.restore("copy", 0, payload)
    assert rb.type("copy") == b"ReJSON-RL"
    assert rb.execute_command("JSON.GET", "copy") == doc


def _restart_and_read(tmp_path, extra, write):
    from conftest import ServerProcess
    srv = ServerProcess(["--dir", str(tmp_path), *extra], tmp_path=tmp_path).start()
    r = srv.client()
    write(r)
    before = {k: r.execute_command("JSON.GET", k) for k in ("j1", "j2")}
    ttl = r.ttl("j2")
    srv.stop()
    srv = ServerProcess(["--dir", str(tmp_path), *extra], tmp_path=tmp_path).start()
    r = srv.client()
    after = {k: r.execute_command("JSON.GET", k) for k in ("j1", "j2")}
    assert r.type("j1") == "ReJSON-RL"
    assert 0 < r.ttl("j2") <= ttl
    srv.stop()
    return before, after


def _write_docs(r):
    r.execute_command("JSON.SET", "j1", "$", '{"a":[1,2],"s":"x"}')
    r.execute_command("JSON.ARRAPPEND", "j1", "$.a", "3.5")
    r.execute_command("JSON.NUMINCRBY", "j1", "$.a[0]", "41")
    r.execute_command("JSON.SET", "j2", "$", '"text"')
    r.expire("j2", 1000)


def test_rdb_save_and_load(tmp_path):
    def write(r):
        _write_docs(r)
        assert r.save()
    before, after = _restart_and_read(tmp_path, ["--save", ""], write)
    assert after == before == {"j1": '{"a":[42,2,3.5],"s":"x"}', "j2": '"text"'}


@pytest.mark.parametrize("preamble", ["yes", "no"])
def test_aof_replays_and_rewrites_json(tmp_path, preamble):
    def write(r):
        _write_docs(r)
        r.execute_command("BGREWRITEAOF")
        import time
        for _ in range(100):
            if r.info("persistence")["aof_rewrite_in_progress"] == 0:
                break
            time.sleep(0.05)
        r.execute_command("JSON.STRAPPEND", "j1", "$.s", '"y"')
    before, after = _restart_and_read(
        tmp_path, ["--appendonly", "yes", "--aof-use-rdb-preamble", preamble], write)
    assert after == before == {"j1": '{"a":[42,2,3.5],"s":"xy"}', "j2": '"text"'}


def test_redis_py_json_client(r):
    """redis-py's own JSON client (r.json()) parses every reply as it does Redis's."""
    j = r.json()
    assert j.set("u", "$", {"name": "Ada", "langs": ["en"], "n": 1, "ok": True, "o": {"a": 1}})
    assert j.get("u", "$.name") == ["Ada"] and j.get("u", ".name") == "Ada"
    assert j.get("u", "$.langs", "$.n") == {"$.langs": [["en"]], "$.n": [1]}
    assert j.arrappend("u", "$.langs", "fr", "de") == [3]
    assert j.arrindex("u", "$.langs", "fr") == [1]
    assert j.arrinsert("u", "$.langs", 0, "x") == [4]
    assert j.arrtrim("u", "$.langs", 0, 1) == [2]
    assert j.numincrby("u", "$.n", 2) == [3]
    assert j.toggle("u", "$.ok") == [0]
    assert j.type("u") == "object" and j.type("u", "$.n") == ["integer"]
    assert j.objkeys("u") == ["name", "langs", "n", "ok", "o"]
    assert j.objlen("u", "$.o") == [1] and j.strlen("u", "$.name") == [3]
    assert j.strappend("u", "!", "$.name") == [4]
    assert j.clear("u", "$.o") == 1
    assert j.mget(["u", "nokey"], "$.name") == [["Ada!"], None]
    assert j.resp("u", "$.langs") == [["[", "x", "en"]]
    assert j.delete("u", "$.o") == 1
    assert j.get("u") == {"name": "Ada!", "langs": ["x", "en"], "n": 3, "ok": False}
    assert j.set("u", "$.n", 5, nx=True) is None
