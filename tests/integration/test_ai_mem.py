"""Agent memory (docs/ai.md, MEM.*): the namespace as a key of its own type, exact and
semantic dedup, recency ranking on the AI clock (AI.DEBUG CLOCK-ADVANCE), the access
update interval, USER/SESSION/TYPE/TOPICS/ENTITIES/FILTER filters, THRESHOLD, LIST cursor
paging, FORGET OLDER/INACTIVE, working memory (session TTLs, LAST n, PROMOTE),
persistence (DEBUG RELOAD, DUMP/RESTORE, AOF replay and rewrite), bad input changing
nothing, RESP3 replies."""
import math
import time

import pytest

from conftest import ServerProcess
from helpers_pubsub import keyevents  # noqa: F401
from helpers_types import WRONGTYPE, raw_client, resp3_connection
from vector_helpers import fp32, pairs, random_vectors, run_threads

pytestmark = pytest.mark.hotkv_only

DAY = 86400 * 1000


@pytest.fixture
def rc(server, r):
    c = raw_client(server)
    c("AI.DEBUG", "CLOCK-RESET")
    yield c
    c("AI.DEBUG", "CLOCK-RESET")
    c.close()


def at(deg):
    """A unit vector in the plane at `deg` degrees; two of them d degrees apart have
    similarity (1 + cos d) / 2 on the vector sets' 0..1 scale."""
    r = math.radians(deg)
    return fp32([math.cos(r), math.sin(r)])


def sim(deg):
    return (1 + math.cos(math.radians(deg))) / 2


def add(rc, text, deg, *opts, ns="m"):
    return rc("MEM.ADD", ns, "FP32", at(deg), text, *opts)


def search(rc, deg, *opts, ns="m"):
    return [dict(pairs(m)) for m in rc("MEM.SEARCH", ns, "FP32", at(deg), *opts)]


def texts(found):
    return [m["text"] for m in found]


def get(rc, id_, ns="m"):
    reply = rc("MEM.GET", ns, id_)
    return None if reply is None else dict(pairs(reply))


def advance(rc, ms):
    rc("AI.DEBUG", "CLOCK-ADVANCE", int(ms))


# ---------------------------------------------------------------------------- the key

def test_namespace_is_a_key_created_by_the_first_add(rc):
    assert add(rc, "likes tea", 0, "USER", "alice") == "1"
    assert rc("TYPE", "m") == "memory"
    info = dict(pairs(rc("MEM.INFO", "m")))
    assert info["dim"] == 2 and info["memories"] == 1 and info["metric"] == "COSINE"
    assert info["similarity_weight"] == "0.8" and info["recency_weight"] == "0.2"
    assert info["freshness_halflife"] == 7 * 86400 and info["novelty_halflife"] == 30 * 86400
    assert rc("MEM.CREATE", "e", "DIM", 3, "WEIGHTS", 0.5, 0.5, "FRESHNESS", 1, 3600,
              "NOVELTY", 0, 60, "TOUCH-INTERVAL", 0, "SESSION-TTL", 30) == "OK"
    info = dict(pairs(rc("MEM.INFO", "e")))
    assert (info["dim"], info["session_ttl"], info["touch_interval"]) == (3, 30, 0)
    assert rc.err("MEM.CREATE", "e") == "ERR key already exists"
    assert rc("MEM.CREATE", "lazy") == "OK"  # DIM fixed by the first vector
    assert rc("MEM.ADD", "lazy", "VALUES", 3, 1, 0, 0, "x") == "1"
    assert dict(pairs(rc("MEM.INFO", "lazy")))["dim"] == 3
    assert sorted(rc("SCAN", 0, "TYPE", "memory", "COUNT", 100)[1]) == ["e", "lazy", "m"]
    assert rc("RENAME", "m", "m2") == "OK"
    assert get(rc, "1", ns="m2")["text"] == "likes tea"
    assert rc("COPY", "m2", "m3") == 1
    assert rc("MEM.DEL", "m3", "1") == 1
    assert rc("MEM.COUNT", "m2") == 1 and rc("MEM.COUNT", "m3") == 0
    assert rc("EXPIRE", "m2", 100) == 1 and 0 < rc("TTL", "m2") <= 100
    assert rc("DEL", "m2", "m3") == 2
    assert rc.err("MEM.SEARCH", "m2", "FP32", at(0)) == "ERR no such memory namespace"


def test_get_update_del(rc):
    id_ = add(rc, "works at ACME", 0, "USER", "bob", "TYPE", "episodic", "TOPICS", "job, work",
              "ENTITIES", "ACME", "ATTRS", '{"lang":"en"}')
    m = get(rc, id_)
    assert m["text"] == "works at ACME" and m["user"] == "bob" and m["session"] is None
    assert m["type"] == "episodic" and m["topics"] == ["job", "work"] and m["entities"] == ["ACME"]
    assert m["attrs"] == '{"lang":"en"}' and m["access_count"] == 0
    assert m["created_at"] == m["updated_at"] == m["last_accessed"]
    assert abs(m["created_at"] - rc("AI.DEBUG", "CLOCK")) < 10000
    advance(rc, 5000)
    assert rc("MEM.UPDATE", "m", id_, "TEXT", "works at Initech", "TOPICS", "job",
              "FP32", at(90)) == 1
    m2 = get(rc, id_)
    assert m2["text"] == "works at Initech" and m2["topics"] == ["job"]
    assert m2["updated_at"] >= m["updated_at"] + 5000 and m2["created_at"] == m["created_at"]
    assert m2["attrs"] == '{"lang":"en"}' and m2["user"] == "bob"
    assert texts(search(rc, 90, "K", 1, "RECENCY", 0, 1, 1)) == ["works at Initech"]
    assert search(rc, 90, "K", 1)[0]["similarity"] == "1"
    assert rc("MEM.UPDATE", "m", "nope", "TEXT", "x") == 0
    assert rc("MEM.DEL", "m", id_, "nope") == 1
    assert get(rc, id_) is None and rc("MEM.COUNT", "m") == 0
    assert search(rc, 90) == []


def test_keyspace_notifications(keyevents):
    assert keyevents("MEM.ADD", "m", "FP32", at(0), "a") == [("mem.create", "m"), ("mem.add", "m")]
    assert keyevents("MEM.SEARCH", "m", "FP32", at(0)) == []
    assert keyevents("MEM.UPDATE", "m", "1", "TEXT", "b") == [("mem.update", "m")]
    assert keyevents("MEM.SESSION.APPEND", "m", "s", "user", "hi") == [("mem.session.append", "m")]
    assert keyevents("MEM.SESSION.CLEAR", "m", "s") == [("mem.session.clear", "m")]
    assert keyevents("MEM.FORGET", "m", "TYPE", "semantic") == [("mem.forget", "m")]
    assert keyevents("MEM.DEL", "m", "1") == []
    assert keyevents("DEL", "m") == [("del", "m")]


# ---------------------------------------------------------------------------- dedup

def test_exact_duplicate_updates_the_existing_memory(rc):
    a = add(rc, "prefers dark mode", 0, "USER", "u1", "SESSION", "s", "TOPICS", "ui")
    advance(rc, 1000)
    assert add(rc, "prefers dark mode", 10, "USER", "u1", "SESSION", "s", "TOPICS", "prefs",
               "ATTRS", '{"v":2}') == a
    m = get(rc, a)
    assert m["topics"] == ["ui", "prefs"] and m["attrs"] == '{"v":2}'
    assert m["updated_at"] >= m["created_at"] + 1000
    # Another user, session or type is another memory.
    b = add(rc, "prefers dark mode", 0, "USER", "u2", "SESSION", "s")
    c = add(rc, "prefers dark mode", 0, "USER", "u1", "SESSION", "t")
    d = add(rc, "prefers dark mode", 0, "USER", "u1", "SESSION", "s", "TYPE", "episodic")
    assert len({a, b, c, d}) == 4 and rc("MEM.COUNT", "m") == 4
    # An explicit ID creates or replaces that memory, no dedup.
    assert add(rc, "prefers dark mode", 0, "USER", "u1", "SESSION", "s", "ID", "mine") == "mine"
    assert add(rc, "changed", 0, "ID", "mine") == "mine"
    assert get(rc, "mine")["text"] == "changed" and rc("MEM.COUNT", "m") == 5


def test_semantic_duplicate_at_or_above_dedup(rc):
    a = add(rc, "lives in Paris", 0, "USER", "u")
    # 10 degrees apart: similarity 0.992.
    assert add(rc, "resides in Paris", 10, "USER", "u", "DEDUP", sim(10) - 0.001) == a
    assert get(rc, a)["text"] == "resides in Paris"
    # Below the DEDUP similarity: a new memory.
    b = add(rc, "lives near Paris", 45, "USER", "u", "DEDUP", sim(30))  # 35 degrees from a
    assert b != a
    # Same vector, other user: not a duplicate.
    c = add(rc, "lives in Paris", 0, "USER", "v", "DEDUP", 0.5)
    assert c not in (a, b)
    # Other type: not a duplicate.
    d = add(rc, "lives in Paris!", 0, "USER", "u", "TYPE", "episodic", "DEDUP", 0.5)
    assert d not in (a, b, c)
    assert rc("MEM.COUNT", "m") == 4
    assert rc("MEM.COUNT", "m", "USER", "u") == 3


# ---------------------------------------------------------------------------- ranking

def recency(age_access_ms, age_ms):
    return 0.6 * 2 ** (-age_access_ms / (7 * DAY)) + 0.4 * 2 ** (-age_ms / (30 * DAY))


def test_recency_ranking_on_the_ai_clock(rc):
    old = add(rc, "old but closer", 10)
    advance(rc, 60 * DAY)
    new = add(rc, "new but farther", 30)
    found = search(rc, 0, "K", 2)
    assert texts(found) == ["new but farther", "old but closer"]
    want_old = 0.8 * sim(10) + 0.2 * recency(60 * DAY, 60 * DAY)
    want_new = 0.8 * sim(30) + 0.2 * recency(0, 0)
    assert float(found[1]["score"]) == pytest.approx(want_old, abs=1e-5)
    assert float(found[0]["score"]) == pytest.approx(want_new, abs=1e-5)
    assert float(found[1]["similarity"]) == pytest.approx(sim(10), abs=1e-5)
    # RECENCY 0: similarity only.
    assert texts(search(rc, 0, "RECENCY", 0, 1, 1)) == ["old but closer", "new but farther"]
    # RECENCY w fresh novelty: similarity weight 1 - w, the given half-lives. "old" was
    # accessed by the first search (its freshness is back to 1, its novelty 2^-60).
    found = search(rc, 0, "RECENCY", "0.5", 86400, 86400)
    assert texts(found) == ["new but farther", "old but closer"]
    assert float(found[0]["score"]) == pytest.approx(0.5 * sim(30) + 0.5, abs=1e-5)
    assert float(found[1]["score"]) == pytest.approx(0.5 * sim(10) + 0.5 * 0.6, abs=1e-5)
    # The searches above returned both: the last access of "old" moved to now (once).
    assert abs(get(rc, old)["last_accessed"] - rc("AI.DEBUG", "CLOCK")) < 10000
    assert get(rc, old)["access_count"] == 1
    assert get(rc, new)["access_count"] == 0  # added now: within the touch interval
    advance(rc, 61 * 1000)
    search(rc, 0)
    search(rc, 0)
    assert get(rc, old)["access_count"] == 2 and get(rc, new)["access_count"] == 1
    found = search(rc, 0, "K", 2)
    assert float(found[1]["score"]) == pytest.approx(
        0.8 * sim(10) + 0.2 * recency(0, 60 * DAY), abs=1e-4)


def test_weights_of_the_namespace(rc):
    rc("MEM.CREATE", "w", "WEIGHTS", 0, 1, "FRESHNESS", 0, 3600, "NOVELTY", 1, 3600)
    add(rc, "older", 0, ns="w")
    advance(rc, 3600 * 1000)
    add(rc, "newer", 80, ns="w")
    found = search(rc, 0, ns="w")
    assert texts(found) == ["newer", "older"]
    assert float(found[1]["score"]) == pytest.approx(0.5, abs=1e-4)
    assert float(found[0]["score"]) == pytest.approx(1.0, abs=1e-4)


def test_config_changes_ranking_and_keeps_fixed_options(rc):
    rc("MEM.CREATE", "w", "DIM", 2, "WEIGHTS", 1, 0)
    add(rc, "older", 0, ns="w")
    advance(rc, 3600 * 1000)
    add(rc, "newer", 10, ns="w")
    assert texts(search(rc, 0, ns="w")) == ["older", "newer"]
    assert rc("MEM.CONFIG", "w", "WEIGHTS", 0, 1, "FRESHNESS", 0, 3600,
              "NOVELTY", 1, 3600, "TOUCH-INTERVAL", 5, "SESSION-TTL", 60, "EF", 50) == "OK"
    assert texts(search(rc, 0, ns="w")) == ["newer", "older"]
    info = dict(pairs(rc("MEM.INFO", "w")))
    assert (info["dim"], info["touch_interval"], info["session_ttl"], info["ef"]) == (2, 5, 60, 50)
    assert float(info["similarity_weight"]) == 0 and float(info["novelty_weight"]) == 1
    # A session started after the change takes the new default TTL.
    rc("MEM.SESSION.APPEND", "w", "s", "user", "hi")
    advance(rc, 61 * 1000)
    assert rc("MEM.SESSION.GET", "w", "s") == []
    # Options fixed at creation, bad values and a missing namespace change nothing.
    for bad, err in [(("DIM", 3), "DIM cannot be changed"), (("METRIC", "L2"), "METRIC cannot be changed"),
                     (("M", 8), "M cannot be changed"), (("WEIGHTS", -1, 1), "weights must be"),
                     (("EF", 0), "EF must be"), (("TOUCH-INTERVAL",), "wrong number of arguments"), (("EF", 5, "SESSION-TTL"), "syntax error"),
                     (("BOGUS", 1), "syntax error")]:
        with pytest.raises(Exception, match=err):
            rc("MEM.CONFIG", "w", *bad)
    assert dict(pairs(rc("MEM.INFO", "w")))["ef"] == 50
    with pytest.raises(Exception, match="no such memory namespace"):
        rc("MEM.CONFIG", "nope", "EF", 10)
    rc("SET", "str", "x")
    with pytest.raises(Exception, match="WRONGTYPE"):
        rc("MEM.CONFIG", "str", "EF", 10)


def test_threshold_and_k(rc):
    for d in (0, 20, 40, 60, 80):
        add(rc, f"at {d}", d)
    assert texts(search(rc, 0, "THRESHOLD", sim(40) - 1e-4, "RECENCY", 0, 1, 1)) == \
        ["at 0", "at 20", "at 40"]
    assert texts(search(rc, 0, "THRESHOLD", 1)) == ["at 0"]
    assert len(search(rc, 0, "K", 2)) == 2
    assert len(search(rc, 0)) == 5
    assert search(rc, 180, "THRESHOLD", 0.99) == []


# ---------------------------------------------------------------------------- filters

def fill_filters(rc):
    add(rc, "a1", 0, "USER", "alice", "SESSION", "s1", "TYPE", "episodic", "TOPICS", "food,travel",
        "ATTRS", '{"score":5,"lang":"en"}')
    add(rc, "a2", 5, "USER", "alice", "SESSION", "s2", "TOPICS", "work", "ENTITIES", "ACME")
    add(rc, "b1", 10, "USER", "bob", "SESSION", "s1", "TYPE", "message", "TOPICS", "travel",
        "ATTRS", '{"score":1,"lang":"fr"}')
    add(rc, "n1", 15)


@pytest.mark.parametrize("opts,want", [
    (["USER", "alice"], ["a1", "a2"]),
    (["SESSION", "s1"], ["a1", "b1"]),
    (["TYPE", "semantic"], ["a2", "n1"]),
    (["TYPE", "MESSAGE"], ["b1"]),
    (["TOPICS", "travel"], ["a1", "b1"]),
    (["TOPICS", "work,food"], ["a1", "a2"]),
    (["ENTITIES", "ACME"], ["a2"]),
    (["FILTER", ".score > 2"], ["a1"]),
    (["FILTER", '.lang == "fr" or .user == "alice"'], ["a1", "b1"]),  # a2: no .lang
    (["FILTER", '.user == "alice" or .type == "message"'], ["a1", "a2", "b1"]),
    (["USER", "alice", "TOPICS", "travel"], ["a1"]),
    (["USER", "bob", "FILTER", ".score > 2"], []),
    (["USER", 'x" or 1 or "'], []),  # quoted: no injection into the expression
])
def test_filters(rc, opts, want):
    fill_filters(rc)
    assert sorted(texts(search(rc, 0, *opts))) == want
    assert rc("MEM.COUNT", "m", *opts) == len(want)
    assert sorted(m[3] for m in rc("MEM.LIST", "m", *opts, "COUNT", 100)[1]) == want


def test_list_cursor_paging(rc):
    ids = [add(rc, f"memory {i}", i) for i in range(25)]
    seen, cursor, pages = [], "0", 0
    while True:
        cursor, page = rc("MEM.LIST", "m", "CURSOR", cursor, "COUNT", 10)
        seen += [dict(pairs(m))["id"] for m in page]
        pages += 1
        assert pages <= 10
        if cursor == "0":
            break
    assert seen == ids and pages == 3
    # Deleting during a scan does not disturb it.
    cursor, page = rc("MEM.LIST", "m", "COUNT", 5)
    rc("MEM.DEL", "m", ids[5], ids[6])
    cursor, page = rc("MEM.LIST", "m", "CURSOR", cursor, "COUNT", 5)
    assert [dict(pairs(m))["id"] for m in page] == ids[7:12]


def test_forget_older_inactive_and_filter(rc):
    add(rc, "old a", 0, "USER", "a")
    add(rc, "old b", 10, "USER", "b")
    advance(rc, 10 * DAY)
    add(rc, "new a", 20, "USER", "a")
    assert rc.err("MEM.FORGET", "m") == "ERR MEM.FORGET needs OLDER, INACTIVE or a filter"
    assert rc("MEM.FORGET", "m", "OLDER", 5 * 86400, "USER", "a") == 1
    assert sorted(texts(search(rc, 0))) == ["new a", "old b"]
    # "old b" was just accessed by that search: not inactive.
    advance(rc, 1000)
    assert rc("MEM.FORGET", "m", "INACTIVE", 86400) == 0
    advance(rc, 2 * DAY)
    assert rc("MEM.FORGET", "m", "INACTIVE", 86400, "FILTER", '.user == "b"') == 1
    assert texts(search(rc, 0)) == ["new a"]
    assert rc("MEM.FORGET", "m", "OLDER", 0) == 1
    assert rc("MEM.COUNT", "m") == 0


# ---------------------------------------------------------------------------- sessions

def msgs(rc, session, *opts, ns="m"):
    return [(m[1], m[3]) for m in rc("MEM.SESSION.GET", ns, session, *opts)]


def test_session_working_memory_and_ttl(rc):
    assert rc("MEM.SESSION.APPEND", "m", "s1", "user", "hello", "TTL", 600) == 1
    assert rc("MEM.SESSION.APPEND", "m", "s1", "assistant", "hi there") == 2
    assert rc("MEM.SESSION.APPEND", "m", "s1", "user", "how are you?") == 3
    assert msgs(rc, "s1") == [("user", "hello"), ("assistant", "hi there"),
                              ("user", "how are you?")]
    assert msgs(rc, "s1", "LAST", 2) == [("assistant", "hi there"), ("user", "how are you?")]
    assert msgs(rc, "s1", "LAST", 10) == msgs(rc, "s1")
    assert abs(rc("MEM.SESSION.GET", "m", "s1")[0][5] - rc("AI.DEBUG", "CLOCK")) < 10000
    assert msgs(rc, "none") == []
    # The TTL slides with every append (and is kept when not given).
    advance(rc, 500 * 1000)
    rc("MEM.SESSION.APPEND", "m", "s1", "user", "still here")
    advance(rc, 500 * 1000)
    assert len(msgs(rc, "s1")) == 4
    advance(rc, 110 * 1000)
    assert msgs(rc, "s1") == []
    assert dict(pairs(rc("MEM.INFO", "m")))["sessions"] == 0
    # An expired session starts afresh.
    assert rc("MEM.SESSION.APPEND", "m", "s1", "user", "new start") == 1
    assert rc("MEM.SESSION.CLEAR", "m", "s1") == 1
    assert rc("MEM.SESSION.CLEAR", "m", "s1") == 0
    assert msgs(rc, "s1") == []
    # The namespace's default session TTL.
    rc("MEM.CREATE", "t", "SESSION-TTL", 5)
    rc("MEM.SESSION.APPEND", "t", "s", "user", "x")
    rc("MEM.SESSION.APPEND", "t", "s2", "user", "y", "TTL", 0)
    advance(rc, 6000)
    assert msgs(rc, "s", ns="t") == [] and msgs(rc, "s2", ns="t") == [("user", "y")]
    assert rc.err("MEM.SESSION.GET", "nope", "s") == "ERR no such memory namespace"


def test_promote_a_message_to_long_term_memory(rc):
    n, id_ = rc("MEM.SESSION.APPEND", "m", "s1", "user", "my cat is called Tom", "USER", "ann",
                "PROMOTE", "FP32", at(0))
    assert n == 1
    m = get(rc, id_)
    assert (m["text"], m["type"], m["session"], m["user"]) == \
        ("my cat is called Tom", "message", "s1", "ann")
    assert m["attrs"] == '{"role":"user"}'
    assert texts(search(rc, 0, "TYPE", "message", "FILTER", '.role == "user"')) == \
        ["my cat is called Tom"]
    assert rc.err("MEM.SESSION.APPEND", "m", "s1", "user", "x", "PROMOTE", "FP32",
                  fp32([1, 0, 0])) == "ERR vector dimension mismatch - got 3 but namespace has 2"
    assert len(msgs(rc, "s1")) == 1


# ---------------------------------------------------------------------------- errors

def test_bad_input_changes_nothing(rc):
    add(rc, "x", 0, "USER", "u")
    before = rc("MEM.LIST", "m", "COUNT", 100)
    nan = fp32([float("nan"), 0.0])
    for args, error in [
        (["MEM.ADD", "m", "FP32", fp32([1, 0, 0]), "t"],
         "ERR vector dimension mismatch - got 3 but namespace has 2"),
        (["MEM.ADD", "m", "FP32", nan, "t"], "ERR invalid vector specification"),
        (["MEM.ADD", "m", "FP32", b"abc", "t"], "ERR invalid vector specification"),
        (["MEM.ADD", "m", "FP32", at(0), "t", "ATTRS", "{bad"], "ERR ATTRS must be a JSON object"),
        (["MEM.ADD", "m", "FP32", at(0), "t", "ATTRS", "[1]"], "ERR ATTRS must be a JSON object"),
        (["MEM.ADD", "m", "FP32", at(0), "t", "ATTRS", '{"user":"x"}'],
         "ERR ATTRS must not use the reserved field 'user'"),
        (["MEM.ADD", "m", "FP32", at(0), "t", "TYPE", "fact"],
         "ERR TYPE must be episodic, semantic or message"),
        (["MEM.ADD", "m", "FP32", at(0), "t", "DEDUP", "1.5"],
         "ERR DEDUP must be a number between 0 and 1"),
        (["MEM.ADD", "m", "FP32", at(0), "t", "BOGUS", "1"], "ERR syntax error"),
        (["MEM.ADD", "m", "FP32", at(0)], "ERR wrong number of arguments for 'mem.add' command"),
        (["MEM.ADD", "m", "FP32", at(0), "t", "USER"], "ERR syntax error"),
        (["MEM.SEARCH", "m", "FP32", at(0), "THRESHOLD", "2"],
         "ERR THRESHOLD must be a number between 0 and 1"),
        (["MEM.SEARCH", "m", "FP32", at(0), "THRESHOLD", "nan"],
         "ERR THRESHOLD must be a number between 0 and 1"),
        (["MEM.SEARCH", "m", "FP32", fp32([1, 0, 0])],
         "ERR vector dimension mismatch - got 3 but namespace has 2"),
        (["MEM.SEARCH", "m", "FP32", at(0), "K", "0"], "ERR K must be between 1 and 4096"),
        (["MEM.SEARCH", "m", "FP32", at(0), "RECENCY", "0.5", "0", "1"],
         "ERR half-life must be a positive number of seconds"),
        (["MEM.SEARCH", "nope", "FP32", at(0)], "ERR no such memory namespace"),
        (["MEM.UPDATE", "m", "1", "ATTRS", "nope"], "ERR ATTRS must be a JSON object"),
        (["MEM.UPDATE", "m", "1", "FP32", fp32([1, 0, 0])],
         "ERR vector dimension mismatch - got 3 but namespace has 2"),
        (["MEM.LIST", "nope"], "ERR no such memory namespace"),
        (["MEM.COUNT", "m", "TOPICS", ","], "ERR TOPICS needs at least one name"),
        (["MEM.CREATE", "z", "DIM", "0"], "ERR DIM must be between 1 and 65536"),
        (["MEM.CREATE", "z", "WEIGHTS", "-1", "1"], "ERR weights must be non-negative numbers"),
    ]:
        assert rc.err(*args) == error, args
    assert rc.err("MEM.SEARCH", "m", "FP32", at(0), "FILTER", ".a ==").startswith(
        "ERR syntax error in FILTER expression")
    assert rc("EXISTS", "z") == 0
    assert rc("MEM.LIST", "m", "COUNT", 100) == before
    rc("SET", "str", "v")
    assert rc.err("MEM.ADD", "str", "FP32", at(0), "t") == WRONGTYPE
    assert rc.err("MEM.SEARCH", "str", "FP32", at(0)) == WRONGTYPE
    assert rc("GET", "str") == "v"
    # A failed first ADD creates no namespace.
    assert rc.err("MEM.ADD", "fresh", "FP32", nan, "t") == "ERR invalid vector specification"
    assert rc("EXISTS", "fresh") == 0


def test_resp3_replies(server, r):
    rc = raw_client(server)
    add(rc, "x", 0, "ATTRS", '{"k":1}')
    conn = resp3_connection(server)
    conn.send_command("MEM.SEARCH", "m", "FP32", at(0))
    reply = conn.read_reply()
    assert isinstance(reply, list) and len(reply) == 1
    assert isinstance(reply[0], tuple) and reply[0][0] == "map", reply
    found = {k.decode() if isinstance(k, bytes) else k: v for k, v in reply[0][1]}
    assert found["similarity"][0] == "double" and found["score"][0] == "double"
    assert found["session"] is None
    conn.send_command("MEM.GET", "m", "nope")
    assert conn.read_reply() is None
    rc.close()


# ---------------------------------------------------------------------------- persistence

def fill_for_persistence(c):
    c("MEM.CREATE", "m", "DIM", 2, "WEIGHTS", "0.7", "0.3", "SESSION-TTL", 3600)
    add(c, "one", 0, "USER", "a", "TOPICS", "t1,t2", "ENTITIES", "E", "ATTRS", '{"n":1}')
    advance(c, DAY)
    add(c, "two", 30, "SESSION", "s", "TYPE", "episodic", "ID", "custom")
    search(c, 0)  # touches both
    c("MEM.SESSION.APPEND", "m", "s", "user", "hello")
    c("MEM.SESSION.APPEND", "m", "s", "assistant", "hi", "PROMOTE", "FP32", at(60))
    c("MEM.SESSION.APPEND", "m", "gone", "user", "bye", "TTL", 30)
    add(c, "three", 90)
    c("MEM.DEL", "m", "3")
    c("MEM.CONFIG", "m", "WEIGHTS", "0.6", "0.4", "TOUCH-INTERVAL", 5, "EF", 64)


def persisted_state(c):
    return {
        "list": c("MEM.LIST", "m", "COUNT", 100),
        "info": [x for x in c("MEM.INFO", "m")][:-2],  # without "memory"
        "s": c("MEM.SESSION.GET", "m", "s"),
        "type": c("TYPE", "m"),
        "filtered": sorted(texts(search(c, 0, "TOPICS", "t2", "FILTER", ".n == 1"))),
    }


def test_dump_restore_and_debug_reload(rc):
    fill_for_persistence(rc)
    want = persisted_state(rc)
    payload = rc.client.dump("m")
    assert payload[0] == 7  # RDB_TYPE_MODULE_2
    assert rc("RESTORE", "m2", 0, payload) == "OK"
    assert rc("DEBUG", "DIGEST-VALUE", "m") == rc("DEBUG", "DIGEST-VALUE", "m2")
    assert rc("MEM.LIST", "m2", "COUNT", 100) == want["list"]
    assert rc("DEBUG", "RELOAD") == "OK"
    assert persisted_state(rc) == want
    advance(rc, 31000)
    assert rc("MEM.SESSION.GET", "m", "gone") == []
    # Ids keep growing after a reload (3 was deleted).
    assert add(rc, "four", 120) == "4"


def restart(srv, tmp_path, *args):
    srv.stop()
    return ServerProcess(["--dir", str(tmp_path), *args], tmp_path=tmp_path).start()


def test_aof_replay_and_rewrite(tmp_path):
    args = ["--appendonly", "yes", "--aof-use-rdb-preamble", "no"]
    srv = ServerProcess(["--dir", str(tmp_path), *args], tmp_path=tmp_path).start()
    c = raw_client(srv)
    c("AI.DEBUG", "CLOCK-RESET")
    fill_for_persistence(c)
    want = persisted_state(c)
    c.close()
    # The AI clock offset is process state: a new server starts at the real clock, so the
    # session TTLs recorded (absolute PXAT) are still in the future.
    srv = restart(srv, tmp_path, *args)
    c = raw_client(srv)
    assert persisted_state(c) == want
    assert c("BGREWRITEAOF").startswith("Background append only file rewriting")
    for _ in range(500):
        p = srv.client().info("persistence")
        if p["aof_rewrite_in_progress"] == 0 and p["aof_rewrites"] >= 1:
            break
        time.sleep(0.01)
    c.close()
    srv = restart(srv, tmp_path, *args)
    c = raw_client(srv)
    assert persisted_state(c) == want
    c.close()
    srv.stop()


# ---------------------------------------------------------------------------- concurrency

def test_concurrent_adds_searches_and_a_snapshot(tmp_path):
    """Writers, searchers and session appends on one namespace from several connections
    (the server's workers) with a BGSAVE meanwhile; afterwards every memory is found by
    its vector and the snapshot reloads."""
    srv = ServerProcess(["--dir", str(tmp_path), "--threads", "4"], tmp_path=tmp_path).start()
    try:
        c = raw_client(srv)
        c("MEM.CREATE", "m", "DIM", 8)
        vecs = random_vectors(300, 8, seed=11)
        ids = {}

        def writer(w):
            def run():
                cw = raw_client(srv)
                for i in range(w, 300, 3):
                    ids[i] = cw("MEM.ADD", "m", "FP32", fp32(vecs[i]), f"t{i}", "USER", f"u{i % 5}")
                    cw("MEM.SESSION.APPEND", "m", f"s{w}", "user", f"t{i}")
                cw.close()
            return run

        def searcher():
            cr = raw_client(srv)
            for i in range(150):
                for m in cr("MEM.SEARCH", "m", "FP32", fp32(vecs[(i * 7) % 300]), "K", 3,
                            "USER", f"u{i % 5}"):
                    assert dict(pairs(m))["user"] == f"u{i % 5}"
            cr.close()

        def saver():
            cs = raw_client(srv)
            assert cs("BGSAVE") == "Background saving started"
            cs.close()

        run_threads([writer(w) for w in range(3)] + [searcher, searcher, saver])
        for _ in range(1000):
            if srv.client().info("persistence")["rdb_bgsave_in_progress"] == 0:
                break
            time.sleep(0.01)
        assert c("MEM.COUNT", "m") == 300 and len(set(ids.values())) == 300
        assert c("DEBUG", "RELOAD") == "OK"
        assert c("MEM.COUNT", "m") == 300
        for i in range(0, 300, 7):
            top = dict(pairs(c("MEM.SEARCH", "m", "FP32", fp32(vecs[i]), "K", 1, "RECENCY", 0, 1, 1)[0]))
            assert top["text"] == f"t{i}"
        assert sum(len(c("MEM.SESSION.GET", "m", f"s{w}")) for w in range(3)) == 300
        c.close()
    finally:
        srv.stop()


def test_inside_multi_exec(rc):
    p = rc.client.pipeline(transaction=True)
    p.execute_command("MEM.ADD", "m", "FP32", at(0), "a")
    p.execute_command("MEM.COUNT", "m")
    p.execute_command("MEM.DEL", "m", "1")
    p.execute_command("MEM.SEARCH", "m", "FP32", at(0))
    assert p.execute() == ["1", 1, 1, []]
