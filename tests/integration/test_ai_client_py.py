"""The Python client helpers (clients/python/hotkv_ai.py) against a real server: every
method of SemanticCache, PromptCache and AgentMemory once, error cases, a str and a bytes
redis-py client, numpy and list vectors, and RESP3 replies (a minimal RESP3 client that
answers as redis-py 5's protocol=3 does: maps as dicts, doubles as floats)."""
import math
import os
import struct
import sys

import pytest
import redis

from conftest import RespError
from helpers_types import resp3_connection

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "clients", "python"))
import hotkv_ai  # noqa: E402
from hotkv_ai import AgentMemory, PromptCache, SemanticCache  # noqa: E402

try:
    import numpy as np
except ImportError:  # pragma: no cover
    np = None

pytestmark = pytest.mark.hotkv_only

DAY_MS = 86400 * 1000


def at(deg):
    """A unit vector in the plane at `deg` degrees (a list of floats)."""
    r = math.radians(deg)
    return [math.cos(r), math.sin(r)]


def sim(deg):
    return (1 + math.cos(math.radians(deg))) / 2


@pytest.fixture
def clock(r):
    r.execute_command("AI.DEBUG", "CLOCK-RESET")
    yield lambda ms: r.execute_command("AI.DEBUG", "CLOCK-ADVANCE", int(ms))
    r.execute_command("AI.DEBUG", "CLOCK-RESET")


class Resp3Client:
    """Just enough of a redis-py 5 `protocol=3` client for the helpers."""

    def __init__(self, server):
        self.conn = resp3_connection(server)

    def execute_command(self, *args, **options):
        args = [repr(a) if isinstance(a, float) else a for a in args]
        return self._conv(self.conn.command(*args))

    def _conv(self, v):
        if isinstance(v, RespError):
            raise redis.ResponseError(str(v))
        if isinstance(v, tuple):
            kind = v[0]
            if kind == "map":
                return {self._conv(k): self._conv(x) for k, x in v[1]}
            if kind == "double":
                return float(v[1])
            return [self._conv(x) for x in v[1]]
        if isinstance(v, list):
            return [self._conv(x) for x in v]
        if isinstance(v, str):  # simple strings come back as str from the raw parser
            return v.encode()
        return v

    def delete(self, *keys):
        return self.execute_command("DEL", *keys)

    def exists(self, *keys):
        return self.execute_command("EXISTS", *keys)

    def close(self):
        self.conn.sock.close()


# ---------------------------------------------------------------------- semantic cache

def test_semantic_cache(r, rb, clock):
    c = SemanticCache(r, "qa")
    assert not c.exists()
    assert c.create(dim=2, threshold=0.99, ttl=100, max_entries=10, metric="COSINE",
                    type="FLOAT32", m=16, ef=100) is True
    assert c.create(dim=2, exist_ok=True) is False
    with pytest.raises(redis.ResponseError, match="already exists"):
        c.create(dim=2)
    r.set("plain", "x")
    with pytest.raises(redis.ResponseError, match="WRONGTYPE"):
        SemanticCache(r, "plain").create(dim=2, exist_ok=True)
    with pytest.raises(redis.ResponseError, match="WRONGTYPE"):
        AgentMemory(r, "qa").create(exist_ok=True)
    assert c.exists()

    id1 = c.set(at(0), "Paris.", prompt="What is the capital of France?",
                attrs={"user": "alice", "n": 1})
    id2 = c.set(at(90), "Berlin.", attrs='{"user":"bob"}', ttl=0)
    assert isinstance(id1, int) and id2 > id1

    # Exact strategy: the normalised prompt matches although the vector is far away.
    hit = c.get(at(180), prompt="what is the capital of  FRANCE?")
    assert hit == hotkv_ai.CacheHit(response="Paris.", id=id1, strategy="exact", score=1.0,
                                    prompt="What is the capital of France?",
                                    attrs={"user": "alice", "n": 1})
    # Semantic strategy, a numpy vector, the same answer from a bytes client.
    vec = np.array(at(3), dtype=np.float64) if np is not None else at(3)
    for client in (r, rb):
        hit = SemanticCache(client, "qa").get(vec)
        assert (hit.response, hit.id, hit.strategy) == ("Paris.", id1, "semantic")
        assert hit.score == pytest.approx(sim(3), abs=1e-5)
        assert hit.attrs == {"user": "alice", "n": 1}
    assert c.get(at(20)) is None                                 # below 0.99
    assert c.get(at(20), threshold=0.9).id == id1                # a lower threshold
    assert c.get(at(85), filter={"user": "alice"}) is None       # dict filter
    assert c.get(at(85), filter='.user == "bob"').response == "Berlin."
    b = c.get(at(90))
    assert b.prompt is None and b.attrs == {"user": "bob"}

    info = c.info()
    assert (info.entries, info.dim, info.metric, info.threshold, info.ttl,
            info.maxentries) == (2, 2, "COSINE", 0.99, 100, 10)
    assert (info.hits, info.hits_exact, info.misses) == (6, 1, 2)
    assert info.hit_ratio == pytest.approx(0.75)
    assert info.raw["ef"] == "100" or info.raw["ef"] == 100

    # TTL: entry 1 expires after 100 s on the AI clock, entry 2 (TTL 0) never.
    clock(101_000)
    assert c.get(at(0)) is None
    assert c.get(at(90)).id == id2
    assert c.info().expirations == 1

    assert c.delete(id2) is True and c.delete(id2) is False
    c.set(at(0), "x")
    c.set(at(45), "y")
    assert c.flush() == 2 and c.info().entries == 0

    # Errors change nothing.
    with pytest.raises(redis.ResponseError, match="dimension mismatch"):
        c.set([1.0, 0.0, 0.0], "z")
    with pytest.raises(redis.ResponseError, match="invalid vector"):
        c.get([float("nan"), 1.0])
    with pytest.raises(redis.ResponseError, match="THRESHOLD"):
        c.get(at(0), threshold=1.5)
    with pytest.raises(redis.ResponseError, match="ATTRS must be a JSON object"):
        c.set(at(0), "z", attrs="[1]")
    assert c.info().entries == 0
    with pytest.raises(redis.ResponseError, match="no such cache"):
        SemanticCache(r, "missing").get(at(0))
    assert c.drop() is True and not c.exists()


# ------------------------------------------------------------------------ prompt cache

def test_prompt_cache(rb, r):
    p = PromptCache(rb, "kv")
    assert p.create(budget=0, ttl=0) is True
    assert p.create(exist_ok=True) is False
    v = {k: bytes([i]) * 100 + b"\xff\x00" for i, k in enumerate(["s", "s/q", "s/q/a"])}
    p.put("s", v["s"])
    p.put("s/q", v["s/q"], parent="s")
    p.put("s/q/a", v["s/q/a"], parent="s/q", ttl=3600)
    assert p.longest(["s", "s/q", "s/q/a", "s/q/a/x"]) == 3      # PCACHE.LONGEST
    assert p.longest(["s", "x"]) == 1 and p.longest([]) == 0
    assert p.get("s/q") == v["s/q"] and p.get("nope") is None
    assert p.mget(["s", "nope", "s/q/a"]) == [v["s"], None, v["s/q/a"]]
    assert p.mget([]) == []
    assert p.load_prefix(["s", "s/q", "zz"]) == [v["s"], v["s/q"]]
    # A str client gets the same bytes (the helper reads replies undecoded).
    assert PromptCache(r, "kv").get("s") == v["s"]

    # PUTTOKENS: the server's keys are the documented hash chain; LONGESTBLOB path.
    tokens = list(range(1000, 1010))                      # 2 full blocks of 4, 2 dropped
    keys = p.put_tokens(tokens, 4, [b"b0", b"b1", b"extra"])
    assert keys == hotkv_ai.block_keys(tokens, 4) and len(keys) == 2
    assert p.longest(keys + ["0" * 32]) == 2                     # equal widths: BLOB
    more = p.put_tokens(np.arange(5, 9, dtype=np.uint32) if np is not None else [5, 6, 7, 8],
                        4, [b"b2"], parent=keys[-1], ttl=60)
    assert more == hotkv_ai.block_keys([5, 6, 7, 8], 4, parent=keys[-1])
    assert p.load_prefix(keys + more) == [b"b0", b"b1", b"b2"]

    info = p.info()
    assert (info.blocks, info.budget, info.ttl) == (6, 0, 0)
    assert info.bytes > 300 and info.hits > 0 and info.misses > 0

    assert p.delete("s/q") == 2                                   # descendants too
    assert p.delete() == 0 and p.delete("s/q") == 0
    assert p.longest(["s", "s/q"]) == 1

    # A lower budget evicts least recently used leaves at once.
    before = p.info().bytes
    p.set_budget(before - 1)
    after = p.info()
    assert after.budget == before - 1 and after.bytes < before and after.evictions >= 1
    p.configure(ttl=10)
    assert p.info().ttl == 10

    with pytest.raises(redis.ResponseError, match="parent block not found"):
        p.put("orphan", b"x", parent="absent")
    with pytest.raises(redis.ResponseError, match="no such namespace"):
        PromptCache(rb, "missing").put("a", b"x")
    with pytest.raises(redis.ResponseError, match="BLOCK"):
        p.put_tokens([1, 2], 0, [b"x"])
    assert PromptCache(rb, "missing").longest(["a"]) == 0         # a read: empty
    assert p.drop() is True


# ------------------------------------------------------------------------ agent memory

def test_agent_memory(r, rb, clock):
    m = AgentMemory(r, "agent")
    assert m.create(dim=2, weights=(0.8, 0.2), freshness=(0.6, 604800),
                    novelty=(0.4, 2592000), touch_interval=0, session_ttl=0,
                    metric="COSINE", m=16, ef=100) is True
    assert m.create(exist_ok=True) is False

    a = m.add(at(0), "Alice prefers window seats", user="alice",
              topics=["travel", "prefs"], attrs={"importance": 5})
    assert isinstance(a, str)
    assert m.add(at(0), "Alice prefers window seats", user="alice") == a   # exact dup
    assert m.add(at(1), "Alice likes window seats", user="alice", dedup=0.99) == a
    clock(60 * DAY_MS)
    b = m.add(at(12), "Alice is allergic to peanuts", user="alice", type="semantic",
              entities=["peanuts"], session="s1")
    c = m.add(at(2), "Bob likes aisle seats", user="bob", type="episodic", id="bob-1")
    assert c == "bob-1"

    got = m.get(a)
    assert (got.text, got.user, got.type, got.topics, got.attrs) == (
        "Alice likes window seats", "alice", "semantic", ["travel", "prefs"],
        {"importance": 5})
    assert got.similarity is None and got.created_at > 0
    assert m.get("nope") is None

    # Recency: b (60 days newer) outranks a although a is more similar; without recency
    # a comes first.
    found = m.search(at(4), user="alice")
    assert [x.id for x in found] == [b, a]
    assert found[1].similarity == pytest.approx(sim(3), abs=1e-5)
    assert found[0].score > found[1].score
    assert [x.id for x in m.search(at(4), user="alice", recency=(0, 1, 1))] == [a, b]
    assert [x.id for x in m.search(at(4), k=1, recency=(0, 1, 1))] == [c]
    assert [x.id for x in m.search(at(4), topics=["prefs"])] == [a]
    assert [x.id for x in m.search(at(4), entities="peanuts", session="s1")] == [b]
    assert [x.id for x in m.search(at(4), filter=".importance >= 5")] == [a]
    assert [x.id for x in m.search(at(4), type="episodic", ef=50)] == [c]
    assert m.search(at(90), threshold=0.9) == []
    assert m.get(a).access_count >= 1                               # searches touch

    assert m.update(a, text="Alice prefers aisle seats", vector=at(5), topics=["travel"],
                    attrs={"importance": 1}) is True
    assert m.update("nope", text="x") is False
    assert m.get(a).text == "Alice prefers aisle seats"

    assert m.count() == 3 and m.count(user="alice") == 2
    assert m.count(filter={"user": "bob"}) == 1
    listed = list(m.list(count=1))
    assert [x.id for x in listed] == [a, b, c]
    assert [x.id for x in AgentMemory(rb, "agent").list(user="alice")] == [a, b]

    # Working memory.
    assert m.session_append("chat", "user", "Book me a flight", ttl=3600).count == 1
    res = m.session_promote("chat", "assistant", "Window seat?", at(40), user="alice")
    assert res.count == 2 and res.memory_id is not None
    assert m.get(res.memory_id).type == "message"
    res2 = m.session_append("chat", "user", "yes", promote=at(41))
    assert res2.count == 3 and res2.memory_id
    msgs = m.session_get("chat")
    assert [(x.role, x.content) for x in msgs] == [
        ("user", "Book me a flight"), ("assistant", "Window seat?"), ("user", "yes")]
    assert msgs[0].at > 0
    assert [x.content for x in m.session_get("chat", last=1)] == ["yes"]
    assert m.session_clear("chat") is True and m.session_clear("chat") is False
    assert m.session_get("chat") == []

    info = m.info()
    assert (info.memories, info.dim, info.metric, info.touch_interval) == (5, 2, "COSINE", 0)
    assert info.similarity_weight == pytest.approx(0.8) and info.novelty_halflife == 2592000

    assert m.delete(res.memory_id, res2.memory_id, "nope") == 2 and m.delete() == 0
    clock(31 * DAY_MS)
    assert m.forget(older=90 * 86400, user="alice") == 1            # a (91 days old)
    assert m.forget(filter='.user == "bob"') == 1
    assert [x.id for x in m.list()] == [b]

    with pytest.raises(redis.ResponseError, match="TYPE must be"):
        m.add(at(0), "x", type="bogus")
    with pytest.raises(redis.ResponseError, match="dimension mismatch"):
        m.search([1.0, 0.0, 0.0])
    with pytest.raises(redis.ResponseError, match="needs OLDER"):
        m.forget()
    with pytest.raises(redis.ResponseError, match="no such memory namespace"):
        AgentMemory(r, "missing").get("1")
    assert m.count() == 1
    assert m.drop() is True


# ------------------------------------------------------------------------------- RESP3

def test_resp3_replies(server, r, clock):
    c3 = Resp3Client(server)
    try:
        c = SemanticCache(c3, "qa")
        c.create(dim=2)
        id1 = c.set(at(0), "Paris.", prompt="capital?", attrs={"u": 1})
        hit = c.get(at(2))
        assert (hit.response, hit.id, hit.strategy, hit.attrs) == ("Paris.", id1,
                                                                 "semantic", {"u": 1})
        assert hit.score == pytest.approx(sim(2), abs=1e-5)
        info = c.info()
        assert (info.entries, info.hits, info.threshold) == (1, 1, 0.9)

        p = PromptCache(c3, "kv")
        p.create(budget=1 << 20)
        p.put("a", b"\x00\xff")
        assert p.mget(["a", "b"]) == [b"\x00\xff", None] and p.longest(["a", "b"]) == 1
        assert p.info().blocks == 1 and p.info().budget == 1 << 20

        m = AgentMemory(c3, "agent")
        a = m.add(at(0), "fact", user="u", topics="t1,t2", attrs={"k": "v"})
        [found] = m.search(at(1))
        assert (found.id, found.text, found.topics, found.attrs) == (a, "fact",
                                                                     ["t1", "t2"], {"k": "v"})
        assert isinstance(found.similarity, float) and found.session is None
        assert m.get(a).user == "u" and [x.id for x in m.list()] == [a]
        assert m.session_append("s", "user", "hi", promote=at(3)).count == 1
        [msg] = m.session_get("s")
        assert (msg.role, msg.content) == ("user", "hi") and msg.at > 0
        assert m.info().memories == 2 and m.info().recency_weight == pytest.approx(0.2)
        m.configure(weights=(0.5, 0.5), novelty=(0.1, 60), touch_interval=3, ef=32)
        info = m.info()
        assert (info.recency_weight, info.novelty_halflife, info.touch_interval, info.ef) == (
            pytest.approx(0.5), 60, 3, 32)
        with pytest.raises(redis.ResponseError, match="DIM cannot be changed"):
            m._cmd("MEM.CONFIG", m.name, "DIM", 4)
        with pytest.raises(redis.ResponseError, match="no such memory namespace"):
            AgentMemory(c3, "missing").get("1")
    finally:
        c3.close()


def test_fp32_packing():
    assert hotkv_ai.fp32([1.0, -2.5]) == struct.pack("<2f", 1.0, -2.5)
    assert hotkv_ai.fp32((0.5,)) == struct.pack("<f", 0.5)
    assert hotkv_ai.fp32(b"\x00\x00\x80\x3f") == b"\x00\x00\x80\x3f"
    if np is not None:
        assert hotkv_ai.fp32(np.array([[1, 2]], dtype=np.int64)) == struct.pack("<2f", 1, 2)
