"""JSONPath through JSON.GET and the writers: every selector form, filters, legacy paths,
errors, and a random command stream checked against a Python model of the documents.
Examples follow Redis's JSONPath documentation (the store / bike inventory documents)."""
import json
import random

import pytest

from conftest import error_reply

STORE = {
    "store": {
        "book": [
            {"category": "reference", "author": "Nigel Rees", "title": "Sayings of the Century",
             "price": 8.95},
            {"category": "fiction", "author": "Evelyn Waugh", "title": "Sword of Honour",
             "price": 12.99},
            {"category": "fiction", "author": "Herman Melville", "title": "Moby Dick",
             "isbn": "0-553-21311-3", "price": 8.99},
            {"category": "fiction", "author": "J. R. R. Tolkien", "title": "The Lord of the Rings",
             "isbn": "0-395-19395-8", "price": 22.99},
        ],
        "bicycle": {"color": "red", "price": 19.95},
    },
    "expensive": 10,
}


@pytest.fixture
def store(r):
    r.execute_command("JSON.SET", "store", "$", json.dumps(STORE))
    return r


def get(r, path):
    return json.loads(r.execute_command("JSON.GET", "store", path))


@pytest.mark.parametrize("path,expected", [
    ("$.store.book[*].author",
     ["Nigel Rees", "Evelyn Waugh", "Herman Melville", "J. R. R. Tolkien"]),
    ("$..author", ["Nigel Rees", "Evelyn Waugh", "Herman Melville", "J. R. R. Tolkien"]),
    ("$.store.*", [STORE["store"]["book"], STORE["store"]["bicycle"]]),
    ("$.store..price", [8.95, 12.99, 8.99, 22.99, 19.95]),
    ("$..book[2].title", ["Moby Dick"]),
    ("$..book[-1].title", ["The Lord of the Rings"]),
    ("$..book[-1:].title", ["The Lord of the Rings"]),
    ("$..book[0,1].title", ["Sayings of the Century", "Sword of Honour"]),
    ("$..book[:2].price", [8.95, 12.99]),
    ("$..book[1:4:2].price", [12.99, 22.99]),
    ("$..book[?(@.isbn)].title", ["Moby Dick", "The Lord of the Rings"]),
    ("$..book[?(@.price<10)].price", [8.95, 8.99]),
    ("$..book[?(@.price < $.expensive)].price", [8.95, 8.99]),
    ("$..book[?(@.price > 10 && @.category == 'fiction')].price", [12.99, 22.99]),
    ("$..book[?(@.price > 20 || @.category == \"reference\")].price", [8.95, 22.99]),
    ("$..book[?(!(@.price > 10))].price", [8.95, 8.99]),
    ("$..book[?(@.author =~ '(?i)^herman')].title", ["Moby Dick"]),
    ("$..book[?(@.author =~ 'Tolk')].price", [22.99]),
    ("$..book[?(@.price >= 8.99 && @.price <= 12.99)].price", [12.99, 8.99]),
    ("$..book[?(@.price != 8.95)].price", [12.99, 8.99, 22.99]),
    ("$.store['bicycle']['color']", ["red"]),
    ('$.store["bicycle"].color', ["red"]),
    ("$.store.bicycle['color','price']", ["red", 19.95]),
    ("$.nothing", []),
    ("$..book[10]", []),
])
def test_jsonpath_forms(store, path, expected):
    assert get(store, path) == expected


def test_wildcard_descent_counts(store):
    # Every value under the root: 2 + 2 (store) + 4 books + 18 book members + 2 (bicycle).
    everything = get(store, "$..*")
    assert len(everything) == 28
    assert get(store, "$..[0].author") == ["Nigel Rees"]


@pytest.mark.parametrize("path,expected", [
    (".store.bicycle.color", "red"),
    ("store.bicycle.color", "red"),
    (".store.book[0].price", 8.95),
    ("store.book[-1].author", "J. R. R. Tolkien"),
    ("['expensive']", 10),
    ("..price", 8.95),  # a legacy path replies its first match
    (".", STORE),
])
def test_legacy_forms(store, path, expected):
    assert json.loads(store.execute_command("JSON.GET", "store", path)) == expected


def test_path_errors(store):
    for bad in ["$.", "$[", "$.a[1", "$[?(@.a <)]", "$a", "$['a"]:
        assert error_reply(store, "JSON.GET", "store", bad).startswith("Error occurred on position"), bad
    assert error_reply(store, "JSON.GET", "store", ".missing") == "ERR Path '$.missing' does not exist"
    assert error_reply(store, "JSON.GET", "store", "missing.x") == "ERR Path '$.missing.x' does not exist"


def test_writers_with_filters_and_descent(store):
    assert store.execute_command("JSON.NUMMULTBY", "store", "$..book[?(@.price > 20)].price", "2") == "[45.98]"
    assert store.execute_command("JSON.SET", "store", "$..book[?(@.isbn)].sale", "true") == "OK"
    assert get(store, "$..sale") == [True, True]
    assert store.execute_command("JSON.DEL", "store", "$..book[?(@.category == 'fiction')]") == 3
    assert get(store, "$..title") == ["Sayings of the Century"]
    assert store.execute_command("JSON.DEL", "store", "$..price") == 2
    assert get(store, "$..price") == []


# ---- A random command stream against a Python model ----

def model_paths(doc, prefix=()):
    """Every location of `doc` as a tuple of keys/indexes."""
    yield prefix
    if isinstance(doc, dict):
        for k, v in doc.items():
            yield from model_paths(v, prefix + (k,))
    elif isinstance(doc, list):
        for i, v in enumerate(doc):
            yield from model_paths(v, prefix + (i,))


def to_jsonpath(loc):
    out = "$"
    for p in loc:
        out += f"[{p}]" if isinstance(p, int) else f"['{p}']"
    return out


def at(doc, loc):
    for p in loc:
        doc = doc[p]
    return doc


def random_value(rng, depth=0):
    kind = rng.randrange(7 if depth < 2 else 5)
    if kind == 0:
        return rng.randrange(-100, 100)
    if kind == 1:
        return rng.choice(["a", "bc", "déf", "", "x" * 20])
    if kind == 2:
        return rng.choice([True, False])
    if kind == 3:
        return None
    if kind == 4:
        return rng.randrange(1000) / 8
    if kind == 5:
        return [random_value(rng, depth + 1) for _ in range(rng.randrange(4))]
    return {rng.choice("abcde"): random_value(rng, depth + 1) for _ in range(rng.randrange(4))}


def test_random_commands_match_a_model(r):
    rng = random.Random(1717)
    model = {"k": {"a": [1, 2, {"b": "x"}], "c": {"d": True}}}
    r.execute_command("JSON.SET", "k", "$", json.dumps(model["k"]))
    for step in range(400):
        doc = model["k"]
        loc = rng.choice(list(model_paths(doc)))
        path = to_jsonpath(loc)
        node = at(doc, loc)
        op = rng.randrange(9)
        ctx = (step, op, path)
        if op == 0:  # replace or add a member
            v = random_value(rng)
            if isinstance(node, dict) and rng.random() < 0.5:
                key = rng.choice("abcdef")
                assert r.execute_command("JSON.SET", "k", f"{path}['{key}']", json.dumps(v)) == "OK", ctx
                node[key] = v
            else:
                assert r.execute_command("JSON.SET", "k", path, json.dumps(v)) == "OK", ctx
                if loc:
                    at(doc, loc[:-1])[loc[-1]] = v
                else:
                    model["k"] = v
        elif op == 1 and loc:  # delete
            assert r.execute_command("JSON.DEL", "k", path) == 1, ctx
            del at(doc, loc[:-1])[loc[-1]]
        elif op == 2:
            reply = r.execute_command("JSON.NUMINCRBY", "k", path, "3")
            if isinstance(node, int) and not isinstance(node, bool):
                assert json.loads(reply) == [node + 3], ctx
                if loc:
                    at(doc, loc[:-1])[loc[-1]] = node + 3
                else:
                    model["k"] = node + 3
            elif not isinstance(node, float):
                assert reply == "[null]", ctx
            else:
                assert json.loads(reply) == [node + 3], ctx
                if loc:
                    at(doc, loc[:-1])[loc[-1]] = node + 3
                else:
                    model["k"] = node + 3
        elif op == 3:
            v = random_value(rng, 1)
            reply = r.execute_command("JSON.ARRAPPEND", "k", path, json.dumps(v))
            if isinstance(node, list):
                node.append(v)
                assert reply == [len(node)], ctx
            else:
                assert reply == [None], ctx
        elif op == 4:
            reply = r.execute_command("JSON.ARRPOP", "k", path, "0")
            if isinstance(node, list) and node:
                assert json.loads(reply[0]) == node.pop(0), ctx
            else:
                assert reply == [None], ctx
        elif op == 5:
            reply = r.execute_command("JSON.STRAPPEND", "k", path, '"z"')
            if isinstance(node, str):
                new = node + "z"
                if loc:
                    at(doc, loc[:-1])[loc[-1]] = new
                else:
                    model["k"] = new
                assert reply == [len(new.encode())], ctx
            else:
                assert reply == [None], ctx
        elif op == 6:
            reply = r.execute_command("JSON.TOGGLE", "k", path)
            if isinstance(node, bool):
                if loc:
                    at(doc, loc[:-1])[loc[-1]] = not node
                else:
                    model["k"] = not node
                assert reply == [int(not node)], ctx
            else:
                assert reply == [None], ctx
        elif op == 7:
            kinds = {dict: "object", list: "array", str: "string", bool: "boolean",
                     int: "integer", float: "number", type(None): "null"}
            assert r.execute_command("JSON.TYPE", "k", path) == [kinds[type(node)]], ctx
        elif op == 8:
            reply = r.execute_command("JSON.ARRTRIM", "k", path, "0", "1")
            if isinstance(node, list):
                del node[2:]
                assert reply == [len(node)], ctx
            else:
                assert reply == [None], ctx
        if r.exists("k") == 0:
            r.execute_command("JSON.SET", "k", "$", "{}")
            model["k"] = {}
        assert json.loads(r.execute_command("JSON.GET", "k")) == model["k"], ctx


# ---- Lockstep with Redis 8.8, when the peer has JSON ----

PEER = "/work/shared/peers/redis-8.8/redis-server"


def _peer_with_json(tmp_path):
    """A Redis 8.8 peer that answers JSON.SET, or None (the workspace's peer is built
    without the JSON module; a build with it makes this test run)."""
    import os
    import socket
    import subprocess
    import time
    import redis
    if not os.path.exists(PEER):
        return None, None
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    proc = subprocess.Popen([PEER, "--port", str(port), "--save", "", "--appendonly", "no",
                             "--dir", str(tmp_path)], stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    c = redis.Redis(port=port, decode_responses=True)
    for _ in range(100):
        try:
            c.ping()
            break
        except redis.ConnectionError:
            time.sleep(0.05)
    try:
        c.execute_command("JSON.SET", "probe", "$", "1")
    except redis.ResponseError:
        proc.terminate()
        proc.wait()
        return None, None
    return proc, c


def _reply(c, *args):
    import redis
    try:
        return c.execute_command(*args)
    except redis.ResponseError as e:
        return ("error", str(e))


def test_lockstep_with_redis_json(r, tmp_path):
    proc, peer = _peer_with_json(tmp_path)
    if proc is None:
        pytest.skip("the Redis 8.8 peer has no JSON module")
    try:
        rng = random.Random(88)
        paths = ["$", ".", "$.a", ".a", "a", "$..a", "$.a[0]", "$.a[-1]", "$.a[*]", "$.*", "$..*",
                 "$.b.c", ".b.c", "$..c", "$.a[0:2]", "$[?(@ > 1)]", "$.a[?(@ > 1)]",
                 "$.b[?(@.c == 'x')]", "$.zz", ".zz", "$['b']['c']"]
        cmds = [("JSON.SET", 1), ("JSON.GET", 0), ("JSON.DEL", 0), ("JSON.TYPE", 0),
                ("JSON.NUMINCRBY", 2), ("JSON.NUMMULTBY", 2), ("JSON.STRAPPEND", 3),
                ("JSON.STRLEN", 0), ("JSON.ARRAPPEND", 1), ("JSON.ARRPOP", 0), ("JSON.ARRLEN", 0),
                ("JSON.ARRINDEX", 1), ("JSON.ARRTRIM", 4), ("JSON.OBJKEYS", 0), ("JSON.OBJLEN", 0),
                ("JSON.TOGGLE", 0), ("JSON.CLEAR", 0), ("JSON.MERGE", 1), ("JSON.RESP", 0)]
        for c in (r, peer):
            c.flushall()
        for step in range(300):
            if step % 25 == 0:
                doc = json.dumps({"a": [1, 2.5, "s", True], "b": {"c": "x", "d": [3, {"a": 4}]}})
                for c in (r, peer):
                    c.execute_command("JSON.SET", "k", "$", doc)
            name, kind = rng.choice(cmds)
            args = [name, "k", rng.choice(paths)]
            if kind == 1:
                args.append(json.dumps(random_value(rng, 1)))
            elif kind == 2:
                args.append(rng.choice(["2", "-1", "0.5", "1e3"]))
            elif kind == 3:
                args.append('"t"')
            elif kind == 4:
                args += [str(rng.randrange(-3, 3)), str(rng.randrange(-3, 3))]
            assert _reply(r, *args) == _reply(peer, *args), (step, args)
            assert _reply(r, "JSON.GET", "k") == _reply(peer, "JSON.GET", "k"), (step, args)
    finally:
        proc.terminate()
        proc.wait()
