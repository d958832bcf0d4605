"""maxmemory: used memory that falls when keys are freed, eviction by each
maxmemory-policy, Redis's OOM error under noeviction (and for volatile-* policies with no
key to take), transactions over the limit, "evicted" keyspace notifications, WATCH, and
INFO evicted_keys.

Every test uses the module's server (2 workers), flushed, with maxmemory set a few
megabytes above what the empty server uses, and puts maxmemory back to 0 at the end."""
import time

import pytest
import redis

from conftest import error_reply, wait_until

OOM = "OOM command not allowed when used memory > 'maxmemory'."
VALUE = "v" * 1000
MB = 1024 * 1024


@pytest.fixture(scope="module")
def srv(tmp_path_factory):
    from conftest import ServerProcess
    proc = ServerProcess(hotkv_args=["--threads", "2"],
                         tmp_path=tmp_path_factory.mktemp("eviction")).start()
    yield proc
    proc.stop()


@pytest.fixture
def r(srv):
    c = srv.client()
    c.config_set("maxmemory", 0)
    c.config_set("maxmemory-policy", "noeviction")
    c.config_set("notify-keyspace-events", "")
    c.flushall()
    c.config_resetstat()
    yield c
    c.config_set("maxmemory", 0)
    c.config_set("maxmemory-policy", "noeviction")
    c.config_set("notify-keyspace-events", "")
    c.flushall()
    c.close()


def used(c):
    return int(c.info("memory")["used_memory"])


def evicted(c):
    return int(c.info("stats")["evicted_keys"])


def fill(c, prefix, n, ex=None, start=0, batch=100):
    """Writes n keys of 1000 bytes, pipelines of `batch`; returns the replies. (Pipelines
    stay small: a 1 MB query or reply buffer is used memory too, and would make the
    server evict more than the keys' bytes call for.)"""
    replies = []
    for first in range(start, start + n, batch):
        p = c.pipeline(transaction=False)
        for i in range(first, min(start + n, first + batch)):
            if ex is None:
                p.set(f"{prefix}{i}", VALUE)
            else:
                p.set(f"{prefix}{i}", VALUE, ex=ex(i) if callable(ex) else ex)
        replies += p.execute(raise_on_error=False)
    return replies


def read_keys(c, keys, times=1, batch=100):
    """GETs each key `times` times, in pipelines of `batch` commands."""
    keys = [k for _ in range(times) for k in keys]
    for first in range(0, len(keys), batch):
        p = c.pipeline(transaction=False)
        for k in keys[first:first + batch]:
            p.get(k)
        p.execute()


def lost(c, prefix, first, last):
    """How many of the keys prefix<first> .. prefix<last - 1> are gone."""
    return (last - first) - c.exists(*[f"{prefix}{i}" for i in range(first, last)])


def fill_measured(c, prefix, n, ex=None):
    """fill(), returning the bytes of used memory one key added."""
    base = used(c)
    fill(c, prefix, n, ex=ex)
    return (used(c) - base) / float(n)


def limit_above_now(c, extra):
    limit = used(c) + extra
    c.config_set("maxmemory", limit)
    return limit


# --- config ----------------------------------------------------------------------------------

def test_eviction_options_round_trip(r):
    assert r.config_get("maxmemory-samples") == {"maxmemory-samples": "5"}
    assert r.config_get("maxmemory-eviction-tenacity") == {"maxmemory-eviction-tenacity": "10"}
    r.config_set("maxmemory-samples", 10)
    r.config_set("maxmemory-eviction-tenacity", 50)
    assert r.config_get("maxmemory-samples") == {"maxmemory-samples": "10"}
    assert r.config_get("maxmemory-eviction-tenacity") == {"maxmemory-eviction-tenacity": "50"}
    assert error_reply(r, "CONFIG", "SET", "maxmemory-samples", "0").startswith(
        "ERR CONFIG SET failed (possibly related to argument 'maxmemory-samples')")
    assert error_reply(r, "CONFIG", "SET", "maxmemory-eviction-tenacity", "101").startswith(
        "ERR CONFIG SET failed (possibly related to argument 'maxmemory-eviction-tenacity')")
    r.config_set("maxmemory-samples", 5)
    r.config_set("maxmemory-eviction-tenacity", 10)


def test_used_memory_falls_when_keys_are_deleted(r):
    base = used(r)
    fill(r, "k", 3000)
    grown = used(r)
    assert grown - base >= 3000 * 1000
    r.flushall()
    assert used(r) - base < (grown - base) / 4


# --- noeviction and OOM ----------------------------------------------------------------------

def test_noeviction_denies_writes_but_serves_reads_and_deletes(r):
    fill(r, "k", 100)
    r.config_set("maxmemory", 1)
    assert error_reply(r, "SET", "new", "x") == OOM
    assert error_reply(r, "INCR", "counter") == OOM
    assert error_reply(r, "LPUSH", "list", "a") == OOM
    assert error_reply(r, "APPEND", "k1", "more") == OOM
    assert r.get("k1") == VALUE          # reads are served
    assert r.delete("k2") == 1           # DEL frees memory: allowed
    assert r.expire("k3", 100) is True   # not denyoom either
    assert r.dbsize() == 99
    assert evicted(r) == 0
    r.config_set("maxmemory", 0)
    assert r.set("new", "x") is True


def test_queued_commands_are_rejected_over_the_limit(r):
    r.set("k", "v")
    r.config_set("maxmemory", 1)
    c = r.client()  # one connection for the transaction
    conn = c.connection_pool.get_connection("MULTI")
    try:
        conn.send_command("MULTI")
        assert conn.read_response() == "OK"
        conn.send_command("GET", "k")   # not denyoom, but queueing costs memory
        with pytest.raises(redis.ResponseError, match="OOM command not allowed"):
            conn.read_response()
        conn.send_command("EXEC")
        with pytest.raises(redis.ResponseError,
                           match="Transaction discarded because of previous errors"):
            conn.read_response()
    finally:
        c.connection_pool.release(conn)
        c.close()


def test_exec_with_a_queued_write_aborts_when_over_the_limit(r):
    c = r.client()
    conn = c.connection_pool.get_connection("MULTI")
    try:
        conn.send_command("MULTI")
        assert conn.read_response() == "OK"
        conn.send_command("SET", "a", "1")
        assert conn.read_response() == "QUEUED"
        r.config_set("maxmemory", 1)
        conn.send_command("EXEC")
        with pytest.raises(redis.ResponseError) as e:
            conn.read_response()
        assert str(e.value) == f"Transaction discarded because of: {OOM}"
        # The transaction is over.
        conn.send_command("EXEC")
        with pytest.raises(redis.ResponseError, match="EXEC without MULTI"):
            conn.read_response()
    finally:
        c.connection_pool.release(conn)
        c.close()
    r.config_set("maxmemory", 0)
    assert r.exists("a") == 0


def test_exec_of_reads_only_runs_over_the_limit(r):
    r.set("k", "v")
    c = r.client()
    conn = c.connection_pool.get_connection("MULTI")
    try:
        conn.send_command("MULTI")
        conn.read_response()
        conn.send_command("GET", "k")
        assert conn.read_response() == "QUEUED"
        r.config_set("maxmemory", 1)
        conn.send_command("EXEC")
        assert conn.read_response() == ["v"]
    finally:
        c.connection_pool.release(conn)
        c.close()


@pytest.mark.parametrize("policy", ["volatile-lru", "volatile-lfu", "volatile-random",
                                    "volatile-ttl"])
def test_volatile_policy_with_no_ttl_keys_is_oom(r, policy):
    fill(r, "k", 200)
    r.config_set("maxmemory-policy", policy)
    r.config_set("maxmemory", 1)
    assert error_reply(r, "SET", "new", "x") == OOM
    assert r.dbsize() == 200
    assert evicted(r) == 0


# --- eviction by policy ----------------------------------------------------------------------

@pytest.mark.parametrize("policy", ["allkeys-lru", "allkeys-lfu", "allkeys-random",
                                    "volatile-lru", "volatile-lfu", "volatile-random",
                                    "volatile-ttl"])
def test_policy_keeps_used_memory_near_the_limit(r, policy):
    r.config_set("maxmemory-policy", policy)
    limit = limit_above_now(r, 3 * MB)
    volatile = policy.startswith("volatile")
    replies = []
    for batch in range(10):
        replies += fill(r, "k", 1000, ex=100000 if volatile else None, start=batch * 1000)
    assert all(x is True for x in replies), [x for x in replies if x is not True][:3]
    # Writes never fail; keys went instead. One pipeline of writes may land before the
    # next eviction, hence a little slack over the limit.
    assert used(r) <= limit + 256 * 1024
    assert evicted(r) > 5000
    assert 1000 < r.dbsize() < 5000


def test_volatile_policies_spare_keys_without_ttl(r):
    fill(r, "keep", 500)
    r.config_set("maxmemory-policy", "volatile-lru")
    limit_above_now(r, 2 * MB)
    replies = []
    for batch in range(5):
        replies += fill(r, "t", 1000, ex=100000, start=batch * 1000)
    assert all(x is True for x in replies)
    assert evicted(r) > 2000
    assert r.exists(*[f"keep{i}" for i in range(500)]) == 500


def test_allkeys_lru_evicts_idle_keys_before_recently_read_ones(r):
    per_key = fill_measured(r, "a", 2000)
    r.config_set("maxmemory-policy", "allkeys-lru")
    limit_above_now(r, int(500 * per_key))
    # The LRU clock ticks once a second: let the keys age, then read half of them.
    time.sleep(2.1)
    read_keys(r, [f"a{i}" for i in range(1000)])
    fill(r, "b", 1000)  # about 500 keys' worth over the limit
    assert evicted(r) > 300
    read_lost, idle_lost = lost(r, "a", 0, 1000), lost(r, "a", 1000, 2000)
    assert idle_lost > 300
    assert read_lost * 10 < idle_lost, (read_lost, idle_lost)


def test_allkeys_lfu_evicts_rarely_used_keys_first(r):
    r.config_set("maxmemory-policy", "allkeys-lfu")
    per_key = fill_measured(r, "a", 2000)
    # Read the first half many times: their LFU counters grow past the new keys' 5.
    read_keys(r, [f"a{i}" for i in range(1000)], times=30)
    limit_above_now(r, int(500 * per_key))
    fill(r, "b", 1000)
    assert evicted(r) > 300
    hot_lost = lost(r, "a", 0, 1000)
    cold_lost = lost(r, "a", 1000, 2000) + lost(r, "b", 0, 1000)
    assert hot_lost * 10 < cold_lost, (hot_lost, cold_lost)


def test_volatile_ttl_evicts_the_nearest_expiry_first(r):
    r.config_set("maxmemory-policy", "volatile-ttl")
    # TTLs 10000 s for the first half, 1000000 s for the second.
    per_key = fill_measured(r, "t", 2000, ex=lambda i: 10000 if i < 1000 else 1000000)
    limit_above_now(r, int(500 * per_key))
    fill(r, "n", 1000, ex=1000000)
    assert evicted(r) > 300
    soon_lost = lost(r, "t", 0, 1000)
    late_lost = lost(r, "t", 1000, 2000) + lost(r, "n", 0, 1000)
    assert late_lost * 10 < soon_lost, (soon_lost, late_lost)


def test_lowering_maxmemory_evicts_without_traffic(r):
    r.config_set("maxmemory-policy", "allkeys-random")
    fill(r, "k", 10000)
    base = used(r) - 10000 * 1000
    limit = base + 2 * MB
    r.config_set("maxmemory", limit)
    time.sleep(1.0)  # no commands meanwhile: the workers' timers evict
    assert used(r) <= limit + 256 * 1024
    assert r.dbsize() < 3000


# --- what an eviction does besides freeing ---------------------------------------------------

def test_evicted_keyspace_notifications(srv, r):
    r.config_set("notify-keyspace-events", "KEe")
    sub = srv.client().pubsub()
    sub.psubscribe("__keyevent@*__:evicted", "__keyspace@0__:*")
    assert sub.get_message(timeout=2)["type"] == "psubscribe"
    assert sub.get_message(timeout=2)["type"] == "psubscribe"
    r.config_set("maxmemory-policy", "allkeys-random")
    limit_above_now(r, 1 * MB)
    fill(r, "k", 3000)
    n = evicted(r)
    assert n > 500
    events, keyspace = [], []
    deadline = time.time() + 10
    while (len(events) < n or len(keyspace) < n) and time.time() < deadline:
        m = sub.get_message(timeout=1)
        if m is None or m["type"] != "pmessage":
            continue
        if m["channel"] == "__keyevent@0__:evicted":
            events.append(m["data"])
        elif m["channel"].startswith("__keyspace@0__:") and m["data"] == "evicted":
            keyspace.append(m["channel"][len("__keyspace@0__:"):])
    sub.close()
    assert len(events) == n and len(set(events)) == n
    assert sorted(keyspace) == sorted(events)
    r.config_set("maxmemory", 0)
    assert r.exists(*events) == 0


def test_eviction_invalidates_watch(srv, r):
    r.set("watched", "1")
    fill(r, "k", 100)
    c = srv.client()
    pipe = c.pipeline(transaction=True)
    pipe.watch("watched")
    r.config_set("maxmemory-policy", "allkeys-random")
    r.config_set("maxmemory", 1)
    r.get("k1")  # every key goes; nothing left, so the command itself runs anyway
    assert r.dbsize() == 0
    r.config_set("maxmemory", 0)
    pipe.multi()
    pipe.set("watched", "2")
    with pytest.raises(redis.WatchError):
        pipe.execute()
    c.close()
    assert r.exists("watched") == 0


def test_resetstat_clears_evicted_keys(r):
    r.config_set("maxmemory-policy", "allkeys-random")
    fill(r, "k", 50)
    r.config_set("maxmemory", 1)
    r.get("x")
    assert wait_until(lambda: evicted(r) == 50)
    r.config_set("maxmemory", 0)
    r.config_resetstat()
    assert evicted(r) == 0
