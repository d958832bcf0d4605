"""Lazy freeing as Redis 8 (lazyfree.c): UNLINK, DEL with lazyfree-lazy-user-del, FLUSHALL /
FLUSHDB [ASYNC|SYNC], and INFO memory's lazyfree_pending_objects / lazyfreed_objects.

What Redis 8.8 does, checked by hand: a value goes to the background thread only when
its free effort is above 64 (quicklist nodes; hashtable set/hash and skiplist zset
elements; 1 for strings, listpacks, intsets and vector sets); a flush counts the keys of
the flushed databases; FLUSHALL / FLUSHDB SYNC (and the plain forms) are freed by the
background thread too, the client getting its +OK when that is done, except inside
MULTI/EXEC where they are freed synchronously and not counted; CONFIG RESETSTAT resets
lazyfreed_objects.
"""
import time

import pytest

from conftest import cmd, error_reply, wait_until

pytestmark = pytest.mark.redis8  # Redis 7.0 counts differently (no blocking-async flush)


def lazy(client):
    m = client.info("memory")
    return int(m["lazyfree_pending_objects"]), int(m["lazyfreed_objects"])


def freed_after(client, before, expected_delta):
    """Waits until the background thread has freed `expected_delta` more objects."""
    wait_until(lambda: lazy(client) == (0, before + expected_delta))
    return lazy(client)


@pytest.fixture
def c(server, restore_config):
    restore_config("list-max-listpack-size", "zset-max-listpack-entries",
                   "hash-max-listpack-entries", "set-max-listpack-entries",
                   "lazyfree-lazy-user-del", "lazyfree-lazy-user-flush")
    client = server.client()
    client.flushall()
    yield client
    client.close()


def test_fields_present_in_info_memory(c):
    m = c.info("memory")
    assert int(m["lazyfree_pending_objects"]) >= 0
    assert int(m["lazyfreed_objects"]) >= 0
    text = cmd(c, "INFO", "memory")
    assert text.index("lazyfree_pending_objects:") < text.index("lazyfreed_objects:")


def test_unlink_small_values_is_synchronous(c):
    _, before = lazy(c)
    c.set("str", "x" * 100000)              # one allocation, whatever its size
    c.sadd("lp", *range(100))               # listpack / intset
    c.config_set("set-max-listpack-entries", 0)
    c.sadd("ht64", *[f"m{i}" for i in range(64)])   # hashtable, effort 64: not above it
    assert c.object("encoding", "ht64") == "hashtable"
    cmd(c, "VADD", "v", "VALUES", "2", "1", "2", "e1")
    assert c.unlink("str", "lp", "ht64", "v") == 4
    time.sleep(0.05)
    assert lazy(c) == (0, before)


def test_unlink_values_above_the_threshold(c):
    _, before = lazy(c)
    c.config_set("set-max-listpack-entries", 0)
    c.sadd("s", *[f"m{i}" for i in range(65)])
    c.config_set("zset-max-listpack-entries", 0)
    c.zadd("z", {f"m{i}": i for i in range(65)})
    assert c.object("encoding", "z") == "skiplist"
    c.config_set("hash-max-listpack-entries", 0)
    c.hset("h", mapping={f"f{i}": "v" for i in range(65)})
    assert c.object("encoding", "h") == "hashtable"
    c.zadd("z64", {f"m{i}": i for i in range(64)})
    c.hset("h64", mapping={f"f{i}": "v" for i in range(64)})
    assert c.unlink("s", "z", "h", "z64", "h64") == 5
    assert freed_after(c, before, 3) == (0, before + 3)
    assert c.exists("s", "z", "h") == 0


def test_list_effort_is_its_node_count(c):
    _, before = lazy(c)
    c.config_set("list-max-listpack-size", 1)  # one element per node
    c.rpush("l64", *range(64))
    c.rpush("l65", *range(65))
    assert c.object("encoding", "l65") == "quicklist"
    c.unlink("l64")
    time.sleep(0.05)
    assert lazy(c) == (0, before)
    c.unlink("l65")
    assert freed_after(c, before, 1) == (0, before + 1)
    # With 8 KB nodes, 300000 small integers take well over 64 nodes, 30000 fewer.
    c.config_set("list-max-listpack-size", -2)
    for n in (30000, 300000):
        for start in range(0, n, 10000):
            c.rpush("big", *range(start, start + 10000))
    c.rpush("small", *range(30000))
    c.unlink("small")
    time.sleep(0.05)
    assert lazy(c) == (0, before + 1)
    c.unlink("big")
    assert freed_after(c, before, 2) == (0, before + 2)


def test_del_follows_lazyfree_lazy_user_del(c):
    _, before = lazy(c)
    c.config_set("set-max-listpack-entries", 0)
    c.sadd("s", *[f"m{i}" for i in range(200)])
    assert c.delete("s") == 1
    time.sleep(0.05)
    assert lazy(c) == (0, before)
    c.config_set("lazyfree-lazy-user-del", "yes")
    c.sadd("s", *[f"m{i}" for i in range(200)])
    c.set("small", "v")
    assert c.delete("s", "small") == 2
    assert freed_after(c, before, 1) == (0, before + 1)


def test_flush_counts_the_flushed_keys(c):
    _, before = lazy(c)
    c.mset({f"k{i}": i for i in range(10)})
    c2 = c.__class__(**{**c.connection_pool.connection_kwargs, "db": 2})
    c2.mset({f"k{i}": i for i in range(5)})
    assert cmd(c, "FLUSHDB", "ASYNC") == "OK"          # db0 only: 10 keys
    assert freed_after(c, before, 10) == (0, before + 10)
    assert c2.dbsize() == 5
    assert cmd(c, "FLUSHALL", "SYNC") == "OK"          # freed in the background as well
    assert lazy(c) == (0, before + 15)                 # and done when the reply comes
    c.mset({"a": 1, "b": 2})
    assert cmd(c, "FLUSHALL") == "OK"                  # lazyfree-lazy-user-flush no: SYNC
    assert lazy(c) == (0, before + 17)
    c.set("a", 1)
    assert cmd(c, "FLUSHDB") == "OK"
    assert lazy(c) == (0, before + 18)
    assert cmd(c, "FLUSHALL", "ASYNC") == "OK"         # nothing to free: nothing counted
    assert freed_after(c, before, 18) == (0, before + 18)
    c2.close()


def test_flush_inside_multi_is_synchronous(c):
    _, before = lazy(c)
    c.mset({"a": 1, "b": 2})
    p = c.pipeline(transaction=True)
    p.flushall()
    p.set("c", 3)
    p.flushdb()
    assert p.execute() == [True, True, True]
    time.sleep(0.05)
    assert lazy(c) == (0, before)
    assert c.dbsize() == 0
    # ASYNC (or lazyfree-lazy-user-flush yes) still goes to the background thread.
    c.config_set("lazyfree-lazy-user-flush", "yes")
    c.mset({"a": 1, "b": 2})
    p = c.pipeline(transaction=True)
    p.flushall()
    p.execute()
    assert freed_after(c, before, 2) == (0, before + 2)


def test_lazyfree_lazy_user_flush_makes_plain_flush_async(c):
    _, before = lazy(c)
    c.config_set("lazyfree-lazy-user-flush", "yes")
    c.mset({f"k{i}": i for i in range(7)})
    assert cmd(c, "FLUSHALL") == "OK"
    assert freed_after(c, before, 7) == (0, before + 7)
    c.mset({"a": 1})
    assert cmd(c, "FLUSHALL", "SYNC") == "OK"
    assert lazy(c) == (0, before + 8)


def test_pending_objects_track_the_queue(c):
    n = 300000
    for start in range(0, n, 20000):
        c.mset({f"key:{i}": "v" for i in range(start, start + 20000)})
    _, before = lazy(c)
    assert cmd(c, "FLUSHALL", "ASYNC") == "OK"
    # Every sample sees each flushed key either pending or freed, never both or neither.
    deadline = time.time() + 30
    while time.time() < deadline:
        pending, freed = lazy(c)
        assert pending + freed == before + n
        if pending == 0:
            break
    assert lazy(c) == (0, before + n)
    assert c.dbsize() == 0


def test_resetstat_resets_lazyfreed_objects(c):
    c.set("a", 1)
    c.flushall()
    assert lazy(c)[1] > 0
    assert cmd(c, "CONFIG", "RESETSTAT") == "OK"
    assert lazy(c) == (0, 0)


def test_flush_syntax_errors(c):
    assert error_reply(c, "FLUSHALL", "NOW") == "ERR syntax error"
    assert error_reply(c, "FLUSHDB", "ASYNC", "SYNC") == "ERR syntax error"
    assert cmd(c, "FLUSHALL", "async") == "OK"
