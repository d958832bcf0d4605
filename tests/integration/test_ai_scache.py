"""The semantic cache (docs/ai.md): SCACHE.CREATE/SET/GET/DEL/TOUCH/FLUSH/INFO —
thresholds, the exact strategy before the semantic one, TTL refresh and expiry on the AI
clock (AI.DEBUG), LRU eviction order, FILTER, the cache as a key (TYPE, DEL, EXPIRE,
RENAME, COPY, SCAN TYPE), persistence (RDB restart, DEBUG RELOAD, AOF replay, AOF
rewrite without the RDB preamble), DUMP/RESTORE between servers (and Redis 8.8 refusing
the payload), bad input changing nothing, RESP3 replies."""
import math
import os
import struct
import subprocess
import time

import pytest
import redis

from conftest import ServerProcess
from helpers_pubsub import keyevents  # noqa: F401
from helpers_types import WRONGTYPE, raw_client, rc_fixture, resp3_connection
from vector_helpers import fp32, pairs, random_vectors, run_threads

pytestmark = pytest.mark.hotkv_only

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
REDIS88 = os.path.join(ROOT, "..", "shared", "peers", "redis-8.8", "redis-server")


@pytest.fixture
def rc(server, r):
    c = raw_client(server)
    c("AI.DEBUG", "CLOCK-RESET")
    yield c
    c("AI.DEBUG", "CLOCK-RESET")
    c.close()


def at(deg):
    """A unit vector in the plane at `deg` degrees: two of them d degrees apart have
    cosine similarity (1 + cos d) / 2 on Redis's 0..1 scale."""
    r = math.radians(deg)
    return fp32([math.cos(r), math.sin(r)])


def sim(deg):
    return (1 + math.cos(math.radians(deg))) / 2


def basis(i, dim=4):
    v = [0.0] * dim
    v[i] = 1.0
    return fp32(v)


def info(rc, key):
    return dict(pairs(rc("SCACHE.INFO", key)))


def get(rc, key, vec, *opts):
    return rc("SCACHE.GET", key, "FP32", vec, *opts)


def get_map(rc, key, vec, *opts):
    reply = rc("SCACHE.GET", key, "FP32", vec, *opts)
    return None if reply is None else dict(pairs(reply))


def create2(rc, key="c", *opts):
    assert rc("SCACHE.CREATE", key, "DIM", 2, *opts) == "OK"


# ---------------------------------------------------------------------------- CREATE/INFO

def test_create_is_a_key_of_its_own_type(rc):
    create2(rc)
    assert rc("TYPE", "c") == "scache"
    assert rc("EXISTS", "c") == 1
    assert rc("OBJECT", "ENCODING", "c") == "raw"
    assert rc("MEMORY", "USAGE", "c") > 0
    rc("SET", "s", "x")
    assert rc("SCAN", 0, "TYPE", "scache")[1] == ["c"]
    i = info(rc, "c")
    assert list(i) == ["entries", "dim", "metric", "type", "threshold", "ttl", "maxentries", "m",
                       "ef", "hits", "hits_exact", "hits_semantic", "misses", "hit_ratio",
                       "evictions", "expirations", "memory"]
    assert (i["entries"], i["dim"], i["metric"], i["type"], i["ttl"], i["maxentries"]) == \
        (0, 2, "COSINE", "FLOAT32", 0, 0)
    assert float(i["threshold"]) == 0.9
    assert rc.err("SCACHE.CREATE", "c", "DIM", 2) == "ERR key already exists"


def test_create_options(rc):
    assert rc("SCACHE.CREATE", "c", "DIM", 8, "METRIC", "l2", "TYPE", "q8", "THRESHOLD", "0.75",
              "TTL", 60, "MAXENTRIES", 100, "M", 8, "EF", 50) == "OK"
    i = info(rc, "c")
    assert (i["metric"], i["type"], i["ttl"], i["maxentries"], i["m"], i["ef"]) == \
        ("L2", "Q8", 60, 100, 8, 50)
    assert float(i["threshold"]) == 0.75


@pytest.mark.parametrize("args,error", [
    ([], "ERR wrong number of arguments for 'scache.create' command"),
    (["METRIC", "L2"], "ERR DIM is required"),
    (["DIM", 0], "ERR DIM must be between 1 and 65536"),
    (["DIM", 2, "METRIC", "HAMMING"], "ERR METRIC must be COSINE, L2 or IP"),
    (["DIM", 2, "TYPE", "BIN"], "ERR TYPE must be FLOAT32 or Q8"),
    (["DIM", 2, "THRESHOLD", "1.5"], "ERR THRESHOLD must be a number between 0 and 1"),
    (["DIM", 2, "THRESHOLD", "-0.1"], "ERR THRESHOLD must be a number between 0 and 1"),
    (["DIM", 2, "THRESHOLD", "nan"], "ERR THRESHOLD must be a number between 0 and 1"),
    (["DIM", 2, "TTL", "-1"], "ERR invalid TTL"),
    (["DIM", 2, "M", "1"], "ERR M must be between 2 and 255"),
    (["DIM", 2, "BOGUS", "1"], "ERR syntax error"),
    (["DIM", 2, "M"], "ERR syntax error"),
])
def test_create_errors_create_nothing(rc, args, error):
    assert rc.err("SCACHE.CREATE", "c", *args) == error
    assert rc("EXISTS", "c") == 0


# ------------------------------------------------------------------------ SET / GET basics

def test_threshold_decides_semantic_hits(rc):
    create2(rc)
    assert rc("SCACHE.SET", "c", "FP32", at(0), "Paris") == 1
    assert rc("SCACHE.SET", "c", "FP32", at(90), "Berlin") == 2
    assert get(rc, "c", at(10)) == "Paris"          # similarity 0.992 >= 0.9
    assert get(rc, "c", at(80)) == "Berlin"
    assert get(rc, "c", at(45)) is None              # 0.854 to both
    assert get(rc, "c", at(40), "THRESHOLD", "0.85") == "Paris"
    assert get(rc, "c", at(10), "THRESHOLD", "0.995") is None
    m = get_map(rc, "c", at(30), "THRESHOLD", "0", "WITHSCORE")
    assert (m["response"], m["id"], m["strategy"]) == ("Paris", 1, "semantic")
    assert abs(float(m["score"]) - sim(30)) < 1e-5
    i = info(rc, "c")
    assert (i["hits"], i["hits_semantic"], i["hits_exact"], i["misses"]) == (4, 4, 0, 2)
    assert abs(float(i["hit_ratio"]) - 4 / 6) < 1e-9


def test_values_form_equals_fp32(rc):
    create2(rc)
    rc("SCACHE.SET", "c", "VALUES", 2, "1", "0", "east")
    assert get(rc, "c", at(0)) == "east"
    assert rc("SCACHE.GET", "c", "VALUES", 2, "0.99", "0.01") == "east"


def test_exact_prompt_first_then_semantic(rc):
    create2(rc)
    rc("SCACHE.SET", "c", "FP32", at(0), "near answer", "PROMPT", "unrelated")
    rc("SCACHE.SET", "c", "FP32", at(180), "exact answer", "PROMPT", "What is  HotKV?",
       "ATTRS", '{"model":"m1"}')
    # The query vector is next to "near answer"; the normalised prompt matches the other.
    m = get_map(rc, "c", at(0), "PROMPT", "  what IS hotkv?", "WITHSCORE", "WITHPROMPT",
                "WITHATTRS")
    assert (m["response"], m["strategy"], float(m["score"])) == ("exact answer", "exact", 1.0)
    assert m["prompt"] == "What is  HotKV?" and m["attrs"] == '{"model":"m1"}'
    # Another prompt: the semantic strategy.
    m = get_map(rc, "c", at(0), "PROMPT", "something else", "WITHPROMPT")
    assert (m["response"], m["strategy"], m["prompt"]) == ("near answer", "semantic", "unrelated")
    i = info(rc, "c")
    assert (i["hits_exact"], i["hits_semantic"], i["misses"]) == (1, 1, 0)


def test_same_prompt_and_attrs_replaces_the_entry(rc):
    create2(rc)
    a = rc("SCACHE.SET", "c", "FP32", at(0), "v1", "PROMPT", "q")
    b = rc("SCACHE.SET", "c", "FP32", at(0), "v2", "PROMPT", "Q ")
    assert b > a and info(rc, "c")["entries"] == 1
    assert get(rc, "c", at(90), "PROMPT", "q") == "v2"


def test_filter_serves_many_users_from_one_cache(rc):
    create2(rc)
    rc("SCACHE.SET", "c", "FP32", at(0), "alice's", "PROMPT", "hi", "ATTRS", '{"user":"alice"}')
    rc("SCACHE.SET", "c", "FP32", at(2), "bob's", "PROMPT", "hi", "ATTRS", '{"user":"bob"}')
    rc("SCACHE.SET", "c", "FP32", at(1), "nobody's")
    assert get(rc, "c", at(0), "PROMPT", "hi", "FILTER", '.user == "bob"') == "bob's"
    assert get(rc, "c", at(0), "FILTER", '.user == "bob"') == "bob's"
    assert get(rc, "c", at(0), "FILTER", '.user == "alice"') == "alice's"
    assert get(rc, "c", at(0), "PROMPT", "hi", "FILTER", '.user == "carol"') is None
    assert get(rc, "c", at(1)) == "nobody's"
    assert rc.err("SCACHE.GET", "c", "FP32", at(0), "FILTER", ".user ==") \
        .startswith("ERR syntax error in FILTER expression")


def test_high_dim_threshold_edges_with_filter(rc):
    """256 dims (a lookup's first walk measures the entries' 8-bit sketches, then the few
    nearest exactly): a THRESHOLD equal to an entry's score hits it, one just above does
    not, with and without FILTER; the score is the exact float32 one."""
    import random
    rng = random.Random(1931)
    dim = 256

    def unit(v):
        n = math.sqrt(sum(x * x for x in v))
        return [x / n for x in v]

    def noisy(v, s):
        return unit([x + s * rng.gauss(0, 1) for x in v])

    base = unit([rng.gauss(0, 1) for _ in range(dim)])
    query = fp32(noisy(base, 0.02))
    assert rc("SCACHE.CREATE", "c", "DIM", dim) == "OK"
    rc("SCACHE.SET", "c", "FP32", fp32(noisy(base, 0.01)), "alice's", "ATTRS", '{"user":"alice"}')
    rc("SCACHE.SET", "c", "FP32", fp32(noisy(base, 0.03)), "bob's", "ATTRS", '{"user":"bob"}')
    for v in random_vectors(150, dim, 7):
        rc("SCACHE.SET", "c", "FP32", fp32(v), "other", "ATTRS", '{"user":"zed"}')
    bob = ("FILTER", '.user == "bob"')
    a = get_map(rc, "c", query, "THRESHOLD", "0.0001", "WITHSCORE")
    b = get_map(rc, "c", query, "THRESHOLD", "0.0001", "WITHSCORE", *bob)
    assert (a["response"], b["response"]) == ("alice's", "bob's")
    sa, sb = float(a["score"]), float(b["score"])
    assert sa > sb > 0.8
    assert get(rc, "c", query, "THRESHOLD", repr(sa)) == "alice's"
    assert get(rc, "c", query, "THRESHOLD", repr(sa + 1e-5)) is None
    mid = repr((sa + sb) / 2)
    assert get(rc, "c", query, "THRESHOLD", mid) == "alice's"
    assert get(rc, "c", query, "THRESHOLD", mid, *bob) is None
    assert get(rc, "c", query, "THRESHOLD", repr(sb), *bob) == "bob's"
    assert get(rc, "c", query, "THRESHOLD", repr(sb + 1e-5), *bob) is None


# ------------------------------------------------------------------------------ TTL / LRU

def test_hit_refreshes_ttl_and_expired_entries_leave(rc):
    create2(rc, "c", "TTL", 10)
    rc("SCACHE.SET", "c", "FP32", at(0), "r", "PROMPT", "p")
    rc("SCACHE.SET", "c", "FP32", at(90), "forever", "TTL", 0)
    rc("AI.DEBUG", "CLOCK-ADVANCE", 9000)
    assert get(rc, "c", at(0)) == "r"                 # expiry now 19 s
    rc("AI.DEBUG", "CLOCK-ADVANCE", 9000)
    assert get(rc, "c", at(5), "PROMPT", "p") == "r"   # 18 s: alive, expiry now 28 s
    rc("AI.DEBUG", "CLOCK-ADVANCE", 10001)
    assert get(rc, "c", at(0), "PROMPT", "p") is None
    assert get(rc, "c", at(0), "THRESHOLD", "0") == "forever"   # the expired one left the index
    i = info(rc, "c")
    assert (i["entries"], i["expirations"]) == (1, 1)
    rc("AI.DEBUG", "CLOCK-ADVANCE", 10 ** 9)
    assert get(rc, "c", at(90)) == "forever"


def test_per_entry_ttl_and_sweep_on_set(rc):
    create2(rc)
    rc("SCACHE.SET", "c", "FP32", at(0), "short", "TTL", 1)
    rc("SCACHE.SET", "c", "FP32", at(3), "long", "TTL", 100)
    rc("AI.DEBUG", "CLOCK-ADVANCE", 1000)
    assert get(rc, "c", at(0)) == "long"     # the nearest is expired: never returned
    assert info(rc, "c")["entries"] == 1


def test_eviction_removes_the_least_recently_hit(rc):
    assert rc("SCACHE.CREATE", "c", "DIM", 4, "MAXENTRIES", 3) == "OK"
    ids = [rc("SCACHE.SET", "c", "FP32", basis(i), f"e{i}") for i in range(3)]
    assert get(rc, "c", basis(0)) == "e0"       # e1 is now the least recently used
    rc("SCACHE.SET", "c", "FP32", basis(3), "e3")
    assert get(rc, "c", basis(1)) is None
    assert [get(rc, "c", basis(i)) for i in (0, 2, 3)] == ["e0", "e2", "e3"]
    i = info(rc, "c")
    assert (i["entries"], i["evictions"]) == (3, 1)
    assert rc("SCACHE.DEL", "c", ids[1]) == 0
    # Order now (oldest first): e0 e2 e3; one more set evicts e0.
    rc("SCACHE.SET", "c", "FP32", basis(1), "e1 again")
    assert get(rc, "c", basis(0)) is None


# ------------------------------------------------------------------------- DEL / FLUSH

def test_del_and_flush(rc):
    create2(rc)
    a = rc("SCACHE.SET", "c", "FP32", at(0), "a")
    rc("SCACHE.SET", "c", "FP32", at(90), "b")
    get(rc, "c", at(0))
    assert rc("SCACHE.DEL", "c", a) == 1
    assert rc("SCACHE.DEL", "c", a) == 0
    assert rc("SCACHE.DEL", "c", 999) == 0
    assert get(rc, "c", at(0)) is None
    assert rc("SCACHE.FLUSH", "c") == 1
    assert rc("SCACHE.FLUSH", "c") == 0
    i = info(rc, "c")
    assert (i["entries"], i["hits"], i["misses"]) == (0, 1, 1)   # counters stay
    assert get(rc, "c", at(90)) is None
    assert rc("SCACHE.SET", "c", "FP32", at(90), "b2") == 3      # ids never reused
    assert get(rc, "c", at(90)) == "b2"
    assert rc.err("SCACHE.DEL", "c", "x") == "ERR invalid entry id"


# ------------------------------------------------------------------------- bad input

def test_bad_input_changes_nothing(rc):
    create2(rc)
    rc("SCACHE.SET", "c", "FP32", at(0), "a")
    before = info(rc, "c")
    mismatch = "ERR vector dimension mismatch - got 3 but cache has 2"
    assert rc.err("SCACHE.SET", "c", "FP32", fp32([1, 2, 3]), "x") == mismatch
    assert rc.err("SCACHE.GET", "c", "FP32", fp32([1, 2, 3])) == mismatch
    nan = struct.pack("<2f", float("nan"), 1.0)
    assert rc.err("SCACHE.SET", "c", "FP32", nan, "x") == "ERR invalid vector specification"
    assert rc.err("SCACHE.GET", "c", "FP32", nan) == "ERR invalid vector specification"
    assert rc.err("SCACHE.SET", "c", "FP32", b"abc", "x") == "ERR invalid vector specification"
    assert rc.err("SCACHE.SET", "c", "FP32", at(0)) == \
        "ERR wrong number of arguments for 'scache.set' command"
    assert rc.err("SCACHE.SET", "c", "VALUES", 2, 1, 0) == "ERR syntax error"
    assert rc.err("SCACHE.SET", "c", "FP32", at(0), "x", "ATTRS", "[1]") == \
        "ERR ATTRS must be a JSON object"
    assert rc.err("SCACHE.SET", "c", "FP32", at(0), "x", "TTL", "-5") == "ERR invalid TTL"
    assert rc.err("SCACHE.SET", "c", "FP32", at(0), "x", "PROMPT") == "ERR syntax error"
    assert rc.err("SCACHE.GET", "c", "FP32", at(0), "THRESHOLD", "2") == \
        "ERR THRESHOLD must be a number between 0 and 1"
    assert rc.err("SCACHE.GET", "c", "FP32", at(0), "NOPE") == "ERR syntax error"
    big = "x" * ((16 << 20) + 1)
    assert rc.err("SCACHE.SET", "c", "FP32", at(0), big).startswith("ERR entry too large")
    assert rc.err("SCACHE.SET", "nope", "FP32", at(0), "x") == "ERR no such cache"
    assert rc.err("SCACHE.GET", "nope", "FP32", at(0)) == "ERR no such cache"
    assert rc.err("SCACHE.INFO", "nope") == "ERR no such cache"
    assert rc.err("SCACHE.DEL", "nope", 1) == "ERR no such cache"
    assert rc.err("SCACHE.FLUSH", "nope") == "ERR no such cache"
    assert rc("EXISTS", "nope") == 0
    rc("SET", "s", "v")
    assert rc.err("SCACHE.GET", "s", "FP32", at(0)) == WRONGTYPE
    assert rc.err("SCACHE.SET", "s", "FP32", at(0), "x") == WRONGTYPE
    assert rc.err("GET", "c") == WRONGTYPE
    after = info(rc, "c")
    for k in ("entries", "hits", "misses", "evictions", "expirations"):
        assert after[k] == before[k], k


# ------------------------------------------------------------------------ key semantics

def test_del_expire_rename_copy(rc):
    create2(rc)
    rc("SCACHE.SET", "c", "FP32", at(0), "a")
    assert rc("RENAME", "c", "c2") == "OK"
    assert get(rc, "c2", at(0)) == "a"
    assert rc("COPY", "c2", "c3") == 1
    rc("SCACHE.SET", "c3", "FP32", at(90), "only in the copy")
    assert get(rc, "c2", at(90)) is None
    assert get(rc, "c3", at(90)) == "only in the copy"
    assert get(rc, "c3", at(0)) == "a"
    assert rc("PEXPIRE", "c2", 50) == 1
    assert rc("TYPE", "c2") == "scache"
    for _ in range(200):
        if rc("EXISTS", "c2") == 0:
            break
        time.sleep(0.01)
    assert rc("EXISTS", "c2") == 0
    assert rc("COPY", "c3", "c4") == 1
    assert rc("UNLINK", "c3", "c4") == 2 and rc("EXISTS", "c3") == 0
    assert rc("DBSIZE") == 0


def test_keyspace_notifications(keyevents):
    assert keyevents("SCACHE.CREATE", "c", "DIM", 2) == [("scache.create", "c")]
    assert keyevents("SCACHE.SET", "c", "FP32", at(0), "a") == [("scache.set", "c")]
    assert keyevents("SCACHE.GET", "c", "FP32", at(0)) == []
    assert keyevents("SCACHE.DEL", "c", 1) == [("scache.del", "c")]
    assert keyevents("SCACHE.DEL", "c", 1) == []
    assert keyevents("SCACHE.FLUSH", "c") == [("scache.flush", "c")]
    assert keyevents("DEL", "c") == [("del", "c")]


def test_resp3_replies(server, r):
    rc = raw_client(server)
    create2(rc)
    rc("SCACHE.SET", "c", "FP32", at(0), "a", "ATTRS", '{"k":1}')
    conn = resp3_connection(server)
    conn.send_command("SCACHE.GET", "c", "FP32", at(0), "WITHSCORE", "WITHATTRS")
    reply = conn.read_reply()
    assert isinstance(reply, tuple) and reply[0] == "map", reply
    conn.send_command("SCACHE.INFO", "c")
    reply = conn.read_reply()
    assert isinstance(reply, tuple) and reply[0] == "map", reply
    conn.send_command("SCACHE.GET", "c", "FP32", at(90))
    assert conn.read_reply() is None
    rc.close()


# ---------------------------------------------------------------------------- DUMP/RESTORE

def fill_for_persistence(c):
    c("SCACHE.CREATE", "c", "DIM", 4, "TTL", 3600, "MAXENTRIES", 3, "THRESHOLD", "0.95")
    c("SCACHE.SET", "c", "FP32", basis(0), "zero", "PROMPT", "Zero?", "ATTRS", '{"u":"a"}')
    c("SCACHE.SET", "c", "FP32", basis(1), "one", "TTL", 0)
    c("SCACHE.SET", "c", "FP32", basis(2), "two")
    assert c("SCACHE.GET", "c", "FP32", basis(0)) == "zero"   # LRU now: 1 2 0
    c("SCACHE.SET", "c", "FP32", basis(3), "three")              # evicts "one"
    assert c("SCACHE.DEL", "c", 3) == 1                          # "two"
    c("SCACHE.CREATE", "other", "DIM", 2, "METRIC", "IP", "TYPE", "Q8")
    c("SCACHE.SET", "other", "FP32", at(0), "x")


def persisted_state(c):
    """What must survive: entries, options, LRU order, exact prompts, filters."""
    i = info(c, "c")
    state = {k: i[k] for k in ("entries", "dim", "ttl", "maxentries", "threshold")}
    state["gets"] = [c("SCACHE.GET", "c", "FP32", basis(n)) for n in range(4)]
    state["exact"] = c("SCACHE.GET", "c", "FP32", basis(3), "PROMPT", "zero?", "FILTER",
                       '.u == "a"')
    state["other"] = c("SCACHE.GET", "other", "FP32", at(5))
    state["type"] = c("TYPE", "c")
    # LRU order: one more set evicts the least recent, which must be "three" here
    # (the gets above hit 0 then 3 ... so order is 0, 3 -> "zero" is older).
    return state


def test_dump_restore_same_and_other_server(rc, tmp_path):
    fill_for_persistence(rc)
    payload = rc.client.dump("c")
    assert payload[0] == 7   # RDB_TYPE_MODULE_2
    assert rc("RESTORE", "c2", 0, payload) == "OK"
    assert rc("DEBUG", "DIGEST-VALUE", "c") == rc("DEBUG", "DIGEST-VALUE", "c2")
    assert rc("TYPE", "c2") == "scache"
    assert get(rc, "c2", basis(3)) == "three"
    assert info(rc, "c2")["entries"] == 2
    other = ServerProcess(tmp_path=tmp_path).start()
    try:
        o = raw_client(other)
        assert o("RESTORE", "c", 0, payload) == "OK"
        assert o("SCACHE.GET", "c", "FP32", basis(0), "PROMPT", "zero?") == "zero"
        assert o("SCACHE.GET", "c", "FP32", basis(2)) is None
        o.close()
    finally:
        other.stop()
    assert rc.err("RESTORE", "c2", 0, payload) == "BUSYKEY Target key name already exists."
    bad = bytearray(payload)
    bad[20] ^= 0xFF
    assert rc.err("RESTORE", "c3", 0, bytes(bad)).startswith("ERR")


@pytest.mark.skipif(not os.path.exists(REDIS88), reason="no Redis 8.8 peer")
def test_redis_refuses_the_payload_cleanly(rc, tmp_path):
    fill_for_persistence(rc)
    payload = rc.client.dump("c")
    port = ServerProcess().port
    proc = subprocess.Popen([REDIS88, "--port", str(port), "--save", "", "--dir", str(tmp_path)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        peer = redis.Redis(port=port)
        for _ in range(500):
            try:
                peer.ping()
                break
            except redis.ConnectionError:
                time.sleep(0.01)
        with pytest.raises(redis.ResponseError, match="Bad data format"):
            peer.restore("c", 0, payload)
        assert peer.exists("c") == 0
        assert peer.ping()
    finally:
        proc.terminate()
        proc.wait(10)


# ---------------------------------------------------------------------------- persistence

def restart(srv, tmp_path, *args):
    srv.stop()
    return ServerProcess(["--dir", str(tmp_path), *args], tmp_path=tmp_path).start()


def test_rdb_restart_and_debug_reload(tmp_path):
    srv = ServerProcess(["--dir", str(tmp_path)], tmp_path=tmp_path).start()
    c = raw_client(srv)
    fill_for_persistence(c)
    want = persisted_state(c)
    counters = {k: info(c, "c")[k] for k in ("hits", "misses", "evictions")}
    assert c("DEBUG", "RELOAD") == "OK"
    assert persisted_state(c) == want
    assert c("SAVE") == "OK"
    c.close()
    srv = restart(srv, tmp_path)
    c = raw_client(srv)
    assert persisted_state(c) == want
    i = info(c, "c")
    assert i["evictions"] == counters["evictions"]
    assert i["hits"] >= counters["hits"]
    c.close()
    srv.stop()


@pytest.mark.parametrize("preamble", ["yes", "no"])
def test_aof_replay_and_rewrite(tmp_path, preamble):
    args = ["--appendonly", "yes", "--aof-use-rdb-preamble", preamble]
    srv = ServerProcess(["--dir", str(tmp_path), *args], tmp_path=tmp_path).start()
    c = raw_client(srv)
    fill_for_persistence(c)
    want = persisted_state(c)
    c.close()
    # Replayed from the incremental AOF (SET with ID/PXAT, TOUCH for hits, DEL).
    srv = restart(srv, tmp_path, *args)
    c = raw_client(srv)
    assert persisted_state(c) == want
    # The LRU order survived: the oldest is now "three" (persisted_state hit "zero" last),
    # not "zero" (the older id), so the second set evicts "three".
    c("SCACHE.SET", "c", "FP32", basis(1), "one again")
    c("SCACHE.SET", "c", "FP32", basis(2), "two again")
    after_set = [c("SCACHE.GET", "c", "FP32", basis(n)) for n in range(4)]
    assert after_set == ["zero", "one again", "two again", None]
    assert c("BGREWRITEAOF").startswith("Background append only file rewriting")
    for _ in range(500):
        if srv.client().info("persistence")["aof_rewrite_in_progress"] == 0 and \
                srv.client().info("persistence")["aof_rewrites"] >= 1:
            break
        time.sleep(0.01)
    want2 = persisted_state(c)
    c.close()
    srv = restart(srv, tmp_path, *args)
    c = raw_client(srv)
    assert persisted_state(c) == want2
    assert info(c, "c")["entries"] == 3
    c.close()
    srv.stop()


# ---------------------------------------------------------------------------- concurrency

@pytest.mark.parametrize("mode", ["fork", "walk"])
def test_concurrent_sets_gets_and_a_snapshot(tmp_path, mode):
    """Writers and readers on one cache from several connections (the server's workers),
    a BGSAVE (forked or fork-less) meanwhile; afterwards every entry is found by its exact
    prompt and by its vector, and the snapshot loads."""
    srv = ServerProcess(["--dir", str(tmp_path), "--threads", "4", "--bgsave-mode", mode],
                        tmp_path=tmp_path).start()
    try:
        c = raw_client(srv)
        c("SCACHE.CREATE", "c", "DIM", 8, "THRESHOLD", "0.999")
        vecs = random_vectors(400, 8, seed=7)
        ids = {}

        def writer(w):
            def run():
                cw = raw_client(srv)
                for i in range(w, 400, 4):
                    ids[i] = cw("SCACHE.SET", "c", "FP32", fp32(vecs[i]), f"r{i}", "PROMPT", f"p{i}")
                    assert cw("SCACHE.GET", "c", "FP32", fp32(vecs[i]), "PROMPT", f"P{i} ") == f"r{i}"
                cw.close()
            return run

        def reader():
            cr = raw_client(srv)
            for i in range(300):
                reply = cr("SCACHE.GET", "c", "FP32", fp32(vecs[(i * 7) % 400]))
                assert reply is None or reply.startswith("r")
            cr.close()

        def saver():
            cs = raw_client(srv)
            assert cs("BGSAVE") == "Background saving started"
            cs.close()

        run_threads([writer(w) for w in range(4)] + [reader, reader, saver])
        for _ in range(1000):
            if srv.client().info("persistence")["rdb_bgsave_in_progress"] == 0:
                break
            time.sleep(0.01)
        assert info(c, "c")["entries"] == 400
        assert len(set(ids.values())) == 400
        for i in range(0, 400, 37):
            assert c("SCACHE.GET", "c", "FP32", fp32(vecs[i])) == f"r{i}"
        assert c("DEBUG", "RELOAD") == "OK"
        assert info(c, "c")["entries"] == 400
        assert all(c("SCACHE.GET", "c", "FP32", fp32(vecs[i]), "PROMPT", f"p{i}") == f"r{i}"
                   for i in range(400))
        c.close()
    finally:
        srv.stop()


def test_inside_multi_exec(rc):
    create2(rc)
    p = rc.client.pipeline(transaction=True)
    p.execute_command("SCACHE.SET", "c", "FP32", at(0), "a")
    p.execute_command("SCACHE.GET", "c", "FP32", at(1))
    p.execute_command("SCACHE.DEL", "c", 1)
    p.execute_command("SCACHE.GET", "c", "FP32", at(1))
    assert p.execute() == [1, "a", 1, None]


@pytest.mark.skipif(not os.path.exists(REDIS88), reason="no Redis 8.8 peer")
def test_redis_refuses_an_rdb_file_holding_a_cache(tmp_path):
    srv = ServerProcess(["--dir", str(tmp_path)], tmp_path=tmp_path).start()
    c = raw_client(srv)
    fill_for_persistence(c)
    assert c("SAVE") == "OK"
    c.close()
    srv.stop()
    port = ServerProcess().port
    proc = subprocess.Popen([REDIS88, "--port", str(port), "--dir", str(tmp_path),
                             "--dbfilename", "dump.rdb"],
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    try:
        out, _ = proc.communicate(timeout=30)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
        raise
    # Redis stops at the key it cannot load (and did not start serving), and its RDB
    # checker, which skips module values by their opcodes, finds the file well formed.
    assert b"no matching module type 'hkvscache'" in out, out[-2000:]
    assert b"RDB looks OK" in out, out[-2000:]
    assert b"Ready to accept connections" not in out
