"""The FT.* command strings AI libraries send, replayed with redis-py's execute_command
and their replies checked (issue 18). Each test names the library and the code path the
strings come from; the strings are as those libraries build them (field names, argument
order, escaping, lower/upper-case keywords), with a deterministic fake embedding.

- RedisVL SemanticCache: FT.CREATE from its schema, store (HSET + EXPIRE), check
  (VECTOR_RANGE + tag filter, YIELD_DISTANCE_AS, SORTBY the distance), EXPIRE refresh on hit.
- RedisVL SemanticRouter: FT.AGGREGATE over VECTOR_RANGE, GROUPBY @route_name REDUCE
  MIN/AVG, SORTBY … MAX, FILTER with per-route thresholds.
- RedisVL MessageHistory / SemanticMessageHistory: recent by timestamp (SORTBY DESC,
  role filters), count (LIMIT 0 0), relevant by VECTOR_RANGE within a session.
- agent-memory-server: tag filters (TAG SEPARATOR |, negation, numeric ranges) on KNN and
  the server-side recency FT.AGGREGATE (LOAD, APPLY max/pow, SORTBY boosted score DESC).
- mem0's Redis vector store: KNN with escaped TAG filters, list by created_at DESC.
- qdrant's vector-db-benchmark Redis engine: KNN with $K / EF_RUNTIME $EF, DIALECT 4,
  TIMEOUT, parameterised filters, checked against exact nearest neighbours.

Checked against Redis 8.8 + RediSearch 2.10 (see test_search_clients.py's docstring).
"""
import hashlib
import math
import random
import struct

import pytest
import redis

from conftest import REDIS_MODULE, IS_REDIS, wait_until

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

VOCAB = ["paris", "france", "capital", "weather", "rain", "hello", "hi", "morning", "bye",
         "goodbye", "later", "pizza", "coffee", "travel", "food", "python"]
DIM = len(VOCAB)


def embed(text):
    """One dimension per vocabulary word (a trailing 's' dropped), unit length; words
    outside the vocabulary add nothing."""
    v = [0.0] * DIM
    for raw in "".join(c if c.isalpha() else " " for c in text.lower()).split():
        word = raw[:-1] if raw.endswith("s") and raw[:-1] in VOCAB else raw
        if word in VOCAB:
            v[VOCAB.index(word)] += 1.0
    norm = math.sqrt(sum(x * x for x in v)) or 1.0
    return [x / norm for x in v]


def blob(v):
    return struct.pack(f"<{len(v)}f", *v)


def cosine_distance(a, b):
    return 1.0 - sum(x * y for x, y in zip(a, b))


def search_rows(reply):
    """FT.SEARCH RESP2 reply -> (total, [(id, {field: value})])."""
    total, rest = reply[0], reply[1:]
    rows = []
    for i in range(0, len(rest), 2):
        fields = rest[i + 1]
        rows.append((rest[i], dict(zip(fields[::2], fields[1::2]))))
    return total, rows


def agg_rows(reply):
    return [dict(zip(row[::2], row[1::2])) for row in reply[1:]]


def wait_indexed(r, index):
    def done():
        info = r.execute_command("FT.INFO", index)
        return str(dict(zip(info[::2], info[1::2]))["indexing"]) == "0"
    assert wait_until(done), f"{index} still indexing"


# ---------------------------------------------------------------------------------------
# RedisVL SemanticCache (redisvl/extensions/cache/llm/semantic.py + schema.py,
# redisvl/query/query.py VectorRangeQuery)
# ---------------------------------------------------------------------------------------

CACHE_RETURN = ["entry_id", "prompt", "response", "inserted_at", "updated_at", "metadata", "user_id"]


def cache_check(r, prompt, flt=None, threshold=0.1, num_results=1):
    base = "@prompt_vector:[VECTOR_RANGE $distance_threshold $vector]=>{$YIELD_DISTANCE_AS: vector_distance}"
    query = base if flt is None else f"({base} {flt})"
    ret = CACHE_RETURN + ["vector_distance"]
    return search_rows(r.execute_command(
        "FT.SEARCH", "llmcache", query, "RETURN", len(ret), *ret,
        "SORTBY", "vector_distance", "ASC", "DIALECT", 2, "LIMIT", 0, num_results,
        "PARAMS", 4, "vector", blob(embed(prompt)), "distance_threshold", threshold))


def cache_store(r, prompt, response, user, ttl, ts):
    entry_id = hashlib.sha256(f"{prompt}{user}".encode()).hexdigest()
    key = f"llmcache:{entry_id}"
    pipe = r.pipeline(transaction=False)
    pipe.hset(key, mapping={"entry_id": entry_id, "prompt": prompt, "response": response,
                            "prompt_vector": blob(embed(prompt)), "inserted_at": ts,
                            "updated_at": ts, "metadata": '{"source": "test"}', "user_id": user})
    pipe.expire(key, ttl)
    pipe.execute()
    return key


def test_redisvl_semantic_cache(r):
    assert r.execute_command(
        "FT.CREATE", "llmcache", "ON", "HASH", "PREFIX", 1, "llmcache", "SCORE", 1.0, "SCHEMA",
        "prompt", "TEXT", "WEIGHT", 1.0, "response", "TEXT", "WEIGHT", 1.0,
        "inserted_at", "NUMERIC", "updated_at", "NUMERIC",
        "prompt_vector", "VECTOR", "FLAT", 6, "TYPE", "FLOAT32", "DIM", DIM, "DISTANCE_METRIC", "COSINE",
        "user_id", "TAG", "SEPARATOR", ",") == "OK"
    k_alice = cache_store(r, "What is the capital of France?", "Paris", "alice", 300, 1712345678.101)
    k_bob = cache_store(r, "What is the capital of France?", "Paris (for bob)", "bob", 300, 1712345678.202)
    cache_store(r, "Will it rain? weather", "Maybe", "alice", 300, 1712345678.303)

    # A hit: a paraphrase within the threshold, filtered to alice.
    total, rows = cache_check(r, "capital of france", flt="@user_id:{alice}")
    assert total == 1
    (key, hit), = rows
    assert key == k_alice
    assert hit["response"] == "Paris"
    assert hit["user_id"] == "alice"
    assert float(hit["inserted_at"]) == pytest.approx(1712345678.101)
    assert abs(float(hit["vector_distance"])) < 1e-5
    assert set(hit) == set(CACHE_RETURN) | {"vector_distance"}
    # EXPIRE refresh on hit keeps it indexed.
    r.expire(key, 10)
    assert r.expire(key, 300)
    assert r.ttl(key) > 10
    assert cache_check(r, "capital of france", flt="@user_id:{alice}")[0] == 1

    # No filter: both users' entries are within range; LIMIT 0 1 returns one, total 2.
    total, rows = cache_check(r, "capital of france")
    assert total == 2 and len(rows) == 1
    total, rows = cache_check(r, "capital of france", num_results=10)
    assert sorted(k for k, _ in rows) == sorted([k_alice, k_bob])
    # A miss: nothing within the threshold.
    assert cache_check(r, "hello python")[0] == 0
    # A wider threshold reaches the partial match ("capital" vs capital+france: 1 - 1/sqrt(2)).
    total, rows = cache_check(r, "capital", flt="@user_id:{alice}", threshold=0.5, num_results=5)
    assert total == 1
    assert float(rows[0][1]["vector_distance"]) == pytest.approx(1 - 1 / math.sqrt(2), abs=1e-5)

    # An expired entry leaves the cache.
    r.pexpire(k_bob, 1)
    assert wait_until(lambda: r.exists(k_bob) == 0)
    total, rows = cache_check(r, "capital of france", num_results=10)
    assert (total, [k for k, _ in rows]) == (1, [k_alice])
    # SemanticCache.delete(): FT.DROPINDEX … DD.
    assert r.execute_command("FT.DROPINDEX", "llmcache", "DD") == "OK"
    assert r.keys("llmcache*") == []


# ---------------------------------------------------------------------------------------
# RedisVL SemanticRouter (redisvl/extensions/router/semantic.py _build_aggregate_request)
# ---------------------------------------------------------------------------------------

ROUTES = {
    "greeting": (["hello", "hi there", "good morning"], 0.3),
    "farewell": (["bye", "goodbye", "see you later"], 0.3),
    "weather": (["will it rain", "weather today"], 0.5),
}


def route(r, text, method="MIN", max_k=1):
    flt = " || ".join(f"(@route_name == '{name}' && @distance < {th})" for name, (_, th) in ROUTES.items())
    max_threshold = max(th for _, th in ROUTES.values())
    reply = r.execute_command(
        "FT.AGGREGATE", "router",
        "@vector:[VECTOR_RANGE $distance_threshold $vector]=>{$YIELD_DISTANCE_AS: vector_distance}",
        "GROUPBY", 1, "@route_name", "REDUCE", method, 1, "vector_distance", "AS", "distance",
        "SORTBY", 1, "@distance", "MAX", max_k,
        "FILTER", flt, "DIALECT", 2,
        "PARAMS", 4, "vector", blob(embed(text)), "distance_threshold", max_threshold)
    return agg_rows(reply)


def expected_routes(text, method="MIN", max_k=1):
    """What the router's aggregation computes, in Python: references within the largest
    threshold, MIN/AVG per route, the route's own threshold, nearest first, max_k."""
    q = embed(text)
    max_threshold = max(th for _, th in ROUTES.values())
    out = []
    for name, (refs, th) in ROUTES.items():
        ds = [d for d in (cosine_distance(q, embed(ref)) for ref in refs) if d <= max_threshold]
        if not ds:
            continue
        d = min(ds) if method == "MIN" else sum(ds) / len(ds)
        if d < th:
            out.append((round(d, 5), name))
    return sorted(out)[:max_k]


def test_redisvl_semantic_router(r):
    assert r.execute_command(
        "FT.CREATE", "router", "ON", "HASH", "PREFIX", 1, "router", "SCORE", 1.0, "SCHEMA",
        "reference_id", "TAG", "SEPARATOR", ",", "route_name", "TAG", "SEPARATOR", ",",
        "reference", "TEXT", "WEIGHT", 1.0,
        "vector", "VECTOR", "FLAT", 6, "TYPE", "FLOAT32", "DIM", DIM, "DISTANCE_METRIC", "COSINE") == "OK"
    for name, (refs, _) in ROUTES.items():
        for ref in refs:
            ref_id = hashlib.sha256(ref.encode()).hexdigest()
            r.hset(f"router:{name}:{ref_id}", mapping={
                "reference_id": ref_id, "route_name": name, "reference": ref, "vector": blob(embed(ref))})

    rows = route(r, "goodbye")
    assert [row["route_name"] for row in rows] == ["farewell"]
    assert abs(float(rows[0]["distance"])) < 1e-5
    rows = route(r, "hello, good morning!")
    assert [row["route_name"] for row in rows] == ["greeting"]
    assert float(rows[0]["distance"]) == pytest.approx(1 - 1 / math.sqrt(2), abs=1e-5)
    cases = [("hello bye", "MIN", 3), ("hello bye later", "AVG", 3), ("weather rain", "MIN", 3),
             ("weather rain", "AVG", 1), ("rain hi goodbye", "MIN", 2), ("rain hi goodbye", "AVG", 3),
             ("python", "MIN", 1)]
    for text, method, max_k in cases:
        rows = route(r, text, method, max_k)
        got = sorted((round(float(row["distance"]), 5), row["route_name"]) for row in rows)
        want = expected_routes(text, method, max_k)
        assert [n for _, n in got] == [n for _, n in want], (text, method, max_k, got, want)
        assert [d for d, _ in got] == pytest.approx([d for d, _ in want], abs=1e-4)
    assert route(r, "python") == []


# ---------------------------------------------------------------------------------------
# RedisVL MessageHistory / SemanticMessageHistory
# (redisvl/extensions/message_history/{schema,semantic_history}.py)
# ---------------------------------------------------------------------------------------

SESSION = "01HV8Z6Q2K3M4N5P6R7S8T9V0W"
OTHER = "01HV8Z6Q2K3M4N5P6R7S8T9V0X"
RECENT_FIELDS = ["entry_id", "session_tag", "role", "content", "timestamp", "tool_call_id", "metadata"]


def add_message(r, session, role, content, ts, tool_call_id=None):
    entry_id = f"{session}:{ts}"
    mapping = {"entry_id": entry_id, "role": role, "content": content, "session_tag": session,
               "timestamp": ts, "vector_field": blob(embed(content))}
    if tool_call_id:
        mapping["tool_call_id"] = tool_call_id
    r.hset(f"chat:{entry_id}", mapping=mapping)
    return f"chat:{entry_id}"


def test_redisvl_message_history(r):
    assert r.execute_command(
        "FT.CREATE", "chat", "ON", "HASH", "PREFIX", 1, "chat", "SCORE", 1.0, "SCHEMA",
        "role", "TAG", "SEPARATOR", ",", "content", "TEXT", "WEIGHT", 1.0,
        "tool_call_id", "TAG", "SEPARATOR", ",", "timestamp", "NUMERIC",
        "session_tag", "TAG", "SEPARATOR", ",", "metadata", "TEXT", "WEIGHT", 1.0,
        "vector_field", "VECTOR", "FLAT", 6, "TYPE", "FLOAT32", "DIM", DIM, "DISTANCE_METRIC", "COSINE") == "OK"
    msgs = [("user", "hello there"), ("llm", "hi! how can I help"), ("user", "what is the capital of France"),
            ("llm", "Paris is the capital"), ("user", "and the weather in Paris"), ("tool", "rain expected")]
    keys = []
    for i, (role, content) in enumerate(msgs):
        keys.append(add_message(r, SESSION, role, content, 1712345678.101 + i,
                                tool_call_id="call_1" if role == "tool" else None))
    add_message(r, OTHER, "user", "Paris weather please", 1712345999.5)

    # get_recent(top_k=3): newest first from Redis, reversed by the client.
    reply = r.execute_command(
        "FT.SEARCH", "chat", f"@session_tag:{{{SESSION}}}", "RETURN", len(RECENT_FIELDS), *RECENT_FIELDS,
        "SORTBY", "timestamp", "DESC", "DIALECT", 2, "LIMIT", 0, 3)
    total, rows = search_rows(reply)
    assert total == 6
    assert [f["content"] for _, f in rows] == ["rain expected", "and the weather in Paris", "Paris is the capital"]
    assert rows[0][1]["tool_call_id"] == "call_1"
    assert rows[0][1]["entry_id"] == f"{SESSION}:{1712345678.101 + 5}"
    # With a role filter, and with two roles.
    reply = r.execute_command(
        "FT.SEARCH", "chat", f"(@session_tag:{{{SESSION}}} @role:{{user}})", "RETURN", len(RECENT_FIELDS),
        *RECENT_FIELDS, "SORTBY", "timestamp", "DESC", "DIALECT", 2, "LIMIT", 0, 5)
    assert [f["content"] for _, f in search_rows(reply)[1]] == [
        "and the weather in Paris", "what is the capital of France", "hello there"]
    reply = r.execute_command(
        "FT.SEARCH", "chat", f"(@session_tag:{{{SESSION}}} (@role:{{llm}} | @role:{{tool}}))",
        "RETURN", 1, "content", "SORTBY", "timestamp", "DESC", "DIALECT", 2, "LIMIT", 0, 5)
    assert [f["content"] for _, f in search_rows(reply)[1]] == [
        "rain expected", "Paris is the capital", "hi! how can I help"]
    # messages: the whole session, oldest first.
    reply = r.execute_command(
        "FT.SEARCH", "chat", f"@session_tag:{{{SESSION}}}", "RETURN", 2, "role", "content",
        "SORTBY", "timestamp", "ASC", "DIALECT", 2, "LIMIT", 0, 10)
    assert [f["content"] for _, f in search_rows(reply)[1]] == [c for _, c in msgs]
    # count(): CountQuery.
    assert r.execute_command("FT.SEARCH", "chat", f"@session_tag:{{{SESSION}}}", "NOCONTENT",
                             "DIALECT", 2, "LIMIT", 0, 0) == [6]

    # get_relevant: VECTOR_RANGE inside the session only.
    ret = ["session_tag", "role", "content", "timestamp", "tool_call_id", "metadata", "vector_distance"]
    query = ("(@vector_field:[VECTOR_RANGE $distance_threshold $vector]=>{$YIELD_DISTANCE_AS: vector_distance} "
             f"@session_tag:{{{SESSION}}})")
    reply = r.execute_command(
        "FT.SEARCH", "chat", query, "RETURN", len(ret), *ret, "SORTBY", "vector_distance", "ASC",
        "DIALECT", 2, "LIMIT", 0, 5, "PARAMS", 4, "vector", blob(embed("weather in paris")),
        "distance_threshold", 0.35)
    total, rows = search_rows(reply)
    assert [f["content"] for _, f in rows] == ["and the weather in Paris"]
    assert float(rows[0][1]["vector_distance"]) == pytest.approx(0, abs=1e-5)
    # … and with a role filter, a wider threshold.
    query = ("(@vector_field:[VECTOR_RANGE $distance_threshold $vector]=>{$YIELD_DISTANCE_AS: vector_distance} "
             f"(@session_tag:{{{SESSION}}} @role:{{llm}}))")
    reply = r.execute_command(
        "FT.SEARCH", "chat", query, "RETURN", len(ret), *ret, "SORTBY", "vector_distance", "ASC",
        "DIALECT", 2, "LIMIT", 0, 5, "PARAMS", 4, "vector", blob(embed("capital of paris")),
        "distance_threshold", 0.5)
    assert [f["content"] for _, f in search_rows(reply)[1]] == ["Paris is the capital"]

    # drop(): DEL of the newest message.
    r.delete(keys[-1])
    assert r.execute_command("FT.SEARCH", "chat", f"@session_tag:{{{SESSION}}}", "NOCONTENT",
                             "DIALECT", 2, "LIMIT", 0, 0) == [5]


# ---------------------------------------------------------------------------------------
# agent-memory-server (agent_memory_server/vectorstore_adapter.py, utils/redis_query.py
# RecencyAggregationQuery; index laid out by langchain-redis, TAG separator '|')
# ---------------------------------------------------------------------------------------

NOW = 1735689600  # 2025-01-01T00:00:00Z
DAY = 86400
MEMORY_FIELDS = ["id_", "session_id", "user_id", "namespace", "created_at", "last_accessed", "updated_at",
                 "pinned", "access_count", "topics", "entities", "memory_hash", "discrete_memory_extracted",
                 "memory_type", "persisted_at", "extracted_from", "event_date", "text", "__vector_score"]


def boosted(dist, last_accessed, created_at):
    days_access = max(0, (NOW - last_accessed) / 86400.0)
    days_created = max(0, (NOW - created_at) / 86400.0)
    recency = 0.6 * 2 ** (-days_access / 7.0) + 0.4 * 2 ** (-days_created / 30.0)
    return 0.8 * (1 - dist / 2) + 0.2 * recency


def add_memory(r, mid, text, user, namespace, topics, memory_type, created, accessed):
    mhash = hashlib.sha256(text.encode()).hexdigest()
    r.hset(f"memory_idx:{mid}", mapping={
        "text": text, "vector": blob(embed(text)), "id_": mid, "id": mid, "session_id": "s-1",
        "user_id": user, "namespace": namespace, "topics": "|".join(topics), "entities": "",
        "memory_type": memory_type, "memory_hash": mhash, "discrete_memory_extracted": "t",
        "created_at": created, "last_accessed": accessed, "updated_at": created, "pinned": 0,
        "access_count": 1, "persisted_at": created})
    return mhash


def recency_aggregate(r, text, flt, limit=10, exact=True):
    # The exact strings use max(), pow() and a unary minus, which RediSearch 2.10 (the
    # reference here) lacks ("Unknown function name 'max'", a syntax error at '-@'): there
    # the same pipeline runs with the clamp left out (NOW is after every timestamp, so it
    # changes nothing), `2^(0-@x/7.0)` for `pow(2, -@x/7.0)`. HotKV must take the exact strings.
    clamp = (lambda e: f"max(0, {e})") if exact else (lambda e: e)
    power = (lambda x: f"pow(2, -{x})") if exact else (lambda x: f"2^(0-{x})")
    applies = [
        (clamp(f"({NOW} - @last_accessed)/86400.0"), "days_since_access"),
        (clamp(f"({NOW} - @created_at)/86400.0"), "days_since_created"),
        (power("@days_since_access/7.0"), "freshness"),
        (power("@days_since_created/30.0"), "novelty"),
        ("0.6*@freshness+0.4*@novelty", "recency"),
        ("1-(@__vector_score/2)", "sim"),
        ("0.8*@sim+0.2*@recency", "boosted_score"),
    ]
    args = ["FT.AGGREGATE", "memory_records", f"{flt}=>[KNN {limit} @vector $vector AS __vector_score]",
            "LOAD", len(MEMORY_FIELDS), *[f"@{f}" for f in MEMORY_FIELDS]]
    for expr, name in applies:
        args += ["APPLY", expr, "AS", name]
    args += ["SORTBY", 2, "@boosted_score", "DESC", "LIMIT", 0, limit, "DIALECT", 2,
             "PARAMS", 2, "vector", blob(embed(text))]
    try:
        return agg_rows(r.execute_command(*args))
    except redis.ResponseError as e:
        if exact and IS_REDIS and "Unknown function name 'max'" in str(e):
            return recency_aggregate(r, text, flt, limit, exact=False)
        raise


def test_agent_memory_server(r):
    tags = ["id_", "id", "session_id", "user_id", "namespace", "topics", "entities", "memory_type",
            "memory_hash", "discrete_memory_extracted"]
    nums = ["created_at", "last_accessed", "updated_at", "pinned", "access_count", "persisted_at", "event_date"]
    schema = ["text", "TEXT", "WEIGHT", 1.0,
              "vector", "VECTOR", "HNSW", 6, "TYPE", "FLOAT32", "DIM", DIM, "DISTANCE_METRIC", "COSINE"]
    for t in tags:
        schema += [t, "TAG", "SEPARATOR", "|"]
    for n in nums:
        schema += [n, "NUMERIC"]
    assert r.execute_command("FT.CREATE", "memory_records", "ON", "HASH", "PREFIX", 1, "memory_idx:",
                             "SCHEMA", *schema) == "OK"
    m1 = "01JGQ7N4ZB9K0000000000000A"
    m2 = "01JGQ7N4ZB9K0000000000000B"
    m3 = "01JGQ7N4ZB9K0000000000000C"
    m4 = "01JGQ7N4ZB9K0000000000000D"
    h1 = add_memory(r, m1, "User loves pizza and travel food", "alice", "demo", ["food", "travel"], "semantic",
                    NOW - 60 * DAY, NOW - 60 * DAY)
    add_memory(r, m2, "User drinks coffee every morning", "alice", "demo", ["food"], "episodic",
               NOW - 2 * DAY, NOW - 1 * DAY)
    add_memory(r, m3, "User prefers pizza", "alice", "demo", ["food"], "semantic", NOW - 1 * DAY, NOW)
    add_memory(r, m4, "Bob likes pizza", "bob", "demo", ["food"], "semantic", NOW, NOW)

    # Tag filters on a KNN (VectorQuery with a FilterExpression).
    def knn(flt, text="pizza", k=10):
        return search_rows(r.execute_command(
            "FT.SEARCH", "memory_records", f"{flt}=>[KNN {k} @vector $vector AS vector_distance]",
            "RETURN", 3, "id_", "text", "vector_distance", "SORTBY", "vector_distance", "ASC",
            "DIALECT", 2, "LIMIT", 0, k, "PARAMS", 2, "vector", blob(embed(text))))[1]

    rows = knn("(@user_id:{alice} @namespace:{demo})")
    assert [f["id_"] for _, f in rows] == [m3, m1, m2]
    rows = knn("((@user_id:{alice} @namespace:{demo}) @topics:{travel|coffee})")
    assert [f["id_"] for _, f in rows] == [m1]
    rows = knn("((@user_id:{alice} (-@memory_type:{episodic})) @created_at:[(%d +inf])" % (NOW - 30 * DAY))
    assert [f["id_"] for _, f in rows] == [m3]
    rows = knn("(@namespace:{demo} @last_accessed:[%d %d])" % (NOW - DAY, NOW))
    assert sorted(f["id_"] for _, f in rows) == sorted([m2, m3, m4])
    # Dedup lookups by hash and by id (FilterQuery, NOCONTENT).
    assert r.execute_command("FT.SEARCH", "memory_records", f"@memory_hash:{{{h1}}}", "NOCONTENT",
                             "DIALECT", 2, "LIMIT", 0, 1) == [1, f"memory_idx:{m1}"]
    assert r.execute_command("FT.SEARCH", "memory_records", f"(@id_:{{{m2}}} @user_id:{{alice}})",
                             "NOCONTENT", "DIALECT", 2, "LIMIT", 0, 1) == [1, f"memory_idx:{m2}"]

    # Server-side recency re-ranking.
    rows = recency_aggregate(r, "pizza", "(@user_id:{alice} @namespace:{demo})")
    assert [row["id_"] for row in rows] == [m3, m1, m2]
    for row, mid, text, created, accessed in (
            (rows[0], m3, "User prefers pizza", NOW - DAY, NOW),
            (rows[1], m1, "User loves pizza and travel food", NOW - 60 * DAY, NOW - 60 * DAY)):
        dist = cosine_distance(embed("pizza"), embed(text))
        assert float(row["__vector_score"]) == pytest.approx(dist, abs=1e-5)
        assert float(row["days_since_access"]) == pytest.approx((NOW - accessed) / 86400.0)
        assert float(row["boosted_score"]) == pytest.approx(boosted(dist, accessed, created), abs=1e-5)
        assert row["text"] == text
        assert row["topics"] in ("food", "food|travel")
    # Touching a memory (last_accessed, access_count) changes the ranking at once.
    r.hset(f"memory_idx:{m2}", mapping={"last_accessed": NOW, "access_count": 2, "text": "User drinks coffee with pizza",
                                        "vector": blob(embed("User drinks coffee with pizza"))})
    rows = recency_aggregate(r, "pizza", "(@user_id:{alice} @namespace:{demo})")
    expected = sorted(
        [(boosted(cosine_distance(embed("pizza"), embed(t)), a, c), mid) for mid, t, c, a in (
            (m1, "User loves pizza and travel food", NOW - 60 * DAY, NOW - 60 * DAY),
            (m2, "User drinks coffee with pizza", NOW - 2 * DAY, NOW),
            (m3, "User prefers pizza", NOW - DAY, NOW))], reverse=True)
    assert [row["id_"] for row in rows] == [mid for _, mid in expected]


# ---------------------------------------------------------------------------------------
# mem0 (mem0/vector_stores/redis.py: RedisVL SearchIndex with DEFAULT_FIELDS)
# ---------------------------------------------------------------------------------------

def mem0_insert(r, mid, text, user, agent, created, updated=None):
    mapping = {"memory_id": mid, "hash": hashlib.md5(text.encode()).hexdigest(), "memory": text,
               "created_at": created, "embedding": blob(embed(text)), "user_id": user,
               "metadata": '{"category": "prefs"}'}
    if agent:
        mapping["agent_id"] = agent
    if updated:
        mapping["updated_at"] = updated
    r.hset(f"mem0:mem0:{mid}", mapping=mapping)


def test_mem0(r, rb):
    assert r.execute_command(
        "FT.CREATE", "mem0", "ON", "HASH", "PREFIX", 1, "mem0:mem0", "SCORE", 1.0, "SCHEMA",
        "memory_id", "TAG", "SEPARATOR", ",", "hash", "TAG", "SEPARATOR", ",",
        "agent_id", "TAG", "SEPARATOR", ",", "run_id", "TAG", "SEPARATOR", ",",
        "user_id", "TAG", "SEPARATOR", ",", "memory", "TEXT", "WEIGHT", 1.0,
        "metadata", "TEXT", "WEIGHT", 1.0, "created_at", "NUMERIC", "updated_at", "NUMERIC",
        "embedding", "VECTOR", "FLAT", 6, "TYPE", "FLOAT32", "DIM", DIM, "DISTANCE_METRIC", "COSINE") == "OK"
    ids = ["2f1c8a6e-0b7d-4c55-9a51-3d1f0e9c1a01", "2f1c8a6e-0b7d-4c55-9a51-3d1f0e9c1a02",
           "2f1c8a6e-0b7d-4c55-9a51-3d1f0e9c1a03", "2f1c8a6e-0b7d-4c55-9a51-3d1f0e9c1a04"]
    mem0_insert(r, ids[0], "Likes pizza", "alice-42", "travel-bot", 1735689600)
    mem0_insert(r, ids[1], "Drinks coffee", "alice-42", "travel-bot", 1735689700)
    mem0_insert(r, ids[2], "Plans travel to Paris", "alice-42", None, 1735689800)
    mem0_insert(r, ids[3], "Likes pizza too", "bob@example.com", "travel-bot", 1735689900)
    ret = ["memory_id", "hash", "agent_id", "run_id", "user_id", "memory", "metadata", "created_at", "vector_distance"]

    def search(flt, text, limit=5):
        return search_rows(r.execute_command(
            "FT.SEARCH", "mem0", f"{flt}=>[KNN {limit} @embedding $vector AS vector_distance]",
            "RETURN", len(ret), *ret, "SORTBY", "vector_distance", "ASC", "DIALECT", 2, "LIMIT", 0, limit,
            "PARAMS", 2, "vector", blob(embed(text))))[1]

    # Filters as RedisVL escapes them: '-' and '@' and '.' inside TAG values.
    rows = search("(@user_id:{alice\\-42} @agent_id:{travel\\-bot})", "pizza")
    assert [f["memory_id"] for _, f in rows] == [ids[0], ids[1]]
    assert rows[0][1]["memory"] == "Likes pizza"
    assert rows[0][1]["metadata"] == '{"category": "prefs"}'
    assert float(rows[0][1]["vector_distance"]) == pytest.approx(0, abs=1e-5)
    assert "run_id" not in rows[0][1]
    rows = search("@user_id:{bob\\@example\\.com}", "pizza")
    assert [f["memory_id"] for _, f in rows] == [ids[3]]
    rows = search("@user_id:{alice\\-42}", "travel paris", limit=1)
    assert [f["memory_id"] for _, f in rows] == [ids[2]]

    # list(): newest first, redis-py Query without a DIALECT.
    # (every field comes back, the embedding too: read with a bytes client)
    reply = rb.execute_command("FT.SEARCH", "mem0", "@user_id:{alice\\-42}", "SORTBY", "created_at", "DESC",
                               "LIMIT", 0, 100)
    total, rows = search_rows(reply)
    assert total == 3
    assert [f[b"memory_id"].decode() for _, f in rows] == [ids[2], ids[1], ids[0]]
    assert rows[0][1][b"embedding"] == blob(embed("Plans travel to Paris"))
    assert rows[0][1][b"created_at"] == b"1735689800"

    # update(): the same key rewritten; delete(): DEL.
    mem0_insert(r, ids[1], "Drinks coffee and eats pizza", "alice-42", "travel-bot", 1735689700, updated=1735690000)
    rows = search("(@user_id:{alice\\-42} @agent_id:{travel\\-bot})", "coffee pizza", limit=1)
    assert [f["memory"] for _, f in rows] == ["Drinks coffee and eats pizza"]
    r.delete(f"mem0:mem0:{ids[0]}")
    rows = search("(@user_id:{alice\\-42} @agent_id:{travel\\-bot})", "pizza")
    assert [f["memory_id"] for _, f in rows] == [ids[1]]
    info = r.execute_command("FT.INFO", "mem0")
    assert int(dict(zip(info[::2], info[1::2]))["num_docs"]) == 3


# ---------------------------------------------------------------------------------------
# qdrant vector-db-benchmark, Redis engine (engine/clients/redis/{configure,upload,search,parser}.py)
# ---------------------------------------------------------------------------------------

def point(i):
    return (i % 15) * 10 - 70, (i // 15) * 5 - 50


def haversine_m(lon1, lat1, lon2, lat2):
    """Distance on Redis's sphere (GEODIST's Earth radius)."""
    p1, p2 = math.radians(lat1), math.radians(lat2)
    dp, dl = p2 - p1, math.radians(lon2 - lon1)
    a = math.sin(dp / 2) ** 2 + math.cos(p1) * math.cos(p2) * math.sin(dl / 2) ** 2
    return 2 * 6372797.560856 * math.asin(math.sqrt(a))


def test_vector_db_benchmark(r):
    rng = random.Random(18)
    n, dim = 300, 8
    vectors = [[rng.uniform(-1, 1) for _ in range(dim)] for _ in range(n)]
    labels = ["red;blue", "green", "blue", "red"]
    # clean(): the error text it matches.
    with pytest.raises(Exception, match="Unknown Index name"):
        r.execute_command("FT.DROPINDEX", "idx", "DD")
    # recreate(): redis-py create_index without a definition (every key), SORTABLE payloads.
    assert r.execute_command(
        "FT.CREATE", "idx", "SCHEMA",
        "vector", "VECTOR", "HNSW", 10, "TYPE", "FLOAT32", "DIM", dim, "DISTANCE_METRIC", "L2",
        "M", 16, "EF_CONSTRUCTION", 128,
        "a", "NUMERIC", "SORTABLE", "g", "GEO", "SORTABLE",
        "labels", "TAG", "SEPARATOR", ";", "SORTABLE") == "OK"
    pipe = r.pipeline(transaction=False)
    for i, v in enumerate(vectors):
        pipe.hset(str(i), mapping={"vector": blob(v), "a": i % 10, "labels": labels[i % 4],
                                   "g": "%d,%d" % point(i)})
    pipe.execute()

    def l2(a, b):
        return sum((x - y) ** 2 for x, y in zip(a, b))

    def exact(q, k, pred=lambda i: True):
        return sorted((i for i in range(n) if pred(i)), key=lambda i: l2(vectors[i], q))[:k]

    def bench_search(cond, q, top, params=None):
        reply = r.execute_command(
            "FT.SEARCH", "idx", f"{cond}=>[KNN $K @vector $vec_param EF_RUNTIME $EF AS vector_score]",
            "RETURN", 1, "vector_score", "SORTBY", "vector_score", "ASC", "DIALECT", 4, "TIMEOUT", 90000,
            "LIMIT", 0, top,
            "PARAMS", 6 + 2 * len(params or {}), "vec_param", blob(q), "K", top, "EF", 128,
            *[x for kv in (params or {}).items() for x in kv])
        return [(int(i), float(f["vector_score"])) for i, f in search_rows(reply)[1]]

    for qi in range(5):
        q = [rng.uniform(-1, 1) for _ in range(dim)]
        got = bench_search("*", q, 10)
        assert [i for i, _ in got] == exact(q, 10), f"query {qi}: KNN differs from exact"
        for i, score in got:
            assert score == pytest.approx(l2(vectors[i], q), rel=1e-4, abs=1e-5)
    q = [0.5] * dim
    # build_exact_match_filter on a NUMERIC: @a:[$a_0 $a_0].
    got = bench_search("(@a:[$a_0 $a_0])", q, 5, {"a_0": 3})
    assert [i for i, _ in got] == exact(q, 5, lambda i: i % 10 == 3)
    # build_range_filter: exclusive lower bound and inclusive upper bound as parameters.
    got = bench_search("(@a:[($a_1_gt +inf] @a:[-inf $a_1_lte])", q, 5, {"a_1_gt": 2, "a_1_lte": 4})
    assert [i for i, _ in got] == exact(q, 5, lambda i: i % 10 in (3, 4))
    # TAG with ';' separator, and OR of subfilters.
    got = bench_search("(@labels:{red} | @labels:{green})", q, 5)
    assert [i for i, _ in got] == exact(q, 5, lambda i: i % 4 in (0, 1, 3))
    # build_geo_filter: parameterised lon/lat/radius in metres.
    got = bench_search("(@g:[$g_2_lon $g_2_lat $g_2_radius m])", q, 5,
                       {"g_2_lon": 0, "g_2_lat": 0, "g_2_radius": 1200000})
    expected = exact(q, 5, lambda i: haversine_m(0, 0, *point(i)) <= 1200000)
    assert len(expected) == 5, "the geo filter must match some points"
    assert [i for i, _ in got] == expected
    # An empty filter result.
    assert bench_search("(@a:[$a_3 $a_3])", q, 5, {"a_3": 99}) == []
    assert r.execute_command("FT.DROPINDEX", "idx", "DD") == "OK"
    assert r.dbsize() == 0
