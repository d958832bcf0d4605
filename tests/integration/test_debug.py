"""DEBUG subcommands (OBJECT, DIGEST, DIGEST-VALUE, RELOAD, LISTPACK, ...) and MEMORY
STATS / DOCTOR / MALLOC-STATS / PURGE / HELP, compared with Redis 8.8's replies."""
import re

import pytest

ZERO = "0" * 40


def fill(r):
    """A small dataset of every basic type; Redis 8.8's DEBUG DIGEST of it is known."""
    r.set("s", "hello")
    r.set("i", "12345")
    r.rpush("l", "a", "b", "c")
    r.sadd("st", "x", "y", "z")
    r.hset("h", mapping={"f1": "v1", "f2": "v2"})
    r.zadd("z", {"m1": 1.5, "m2": 2, "m3": -0.25})
    r.set("t", "v", ex=1000)


def test_digest_is_redis_s(r):
    assert r.execute_command("DEBUG", "DIGEST") == ZERO
    fill(r)
    # Values printed by Redis 8.8 for the same dataset.
    assert r.execute_command("DEBUG", "DIGEST") == "095c807e73bd3084d4142896fb18d958f9f27175"
    assert r.execute_command("DEBUG", "DIGEST-VALUE", "s", "l", "st", "h", "z", "t", "nosuch") == [
        "36b23a1456b2dce2c3ed252c456761301dba8060", "8bf72d812571eea9b927f3c11beb0c4165a6ff89",
        "0fd9977d57e46b1b9b87439f5ac5b338416ccc24", "047cc60ea73a34cde6d08a2721a4a26d19ee6570",
        "7d71e6bbe530fb2d891e9c5d287175a41aae9a52", "311b17018163335616e089f6b951c82c477335ac",
        ZERO]
    assert r.execute_command("DEBUG", "DIGEST-VALUE") == []
    r.select(3)
    r.set("s", "hello")
    assert r.execute_command("DEBUG", "DIGEST") == "1e1fc4d179a8b3fe857b3ebc74d57076be85f5cb"
    r.select(0)


def test_digest_ignores_order_and_encoding(r):
    r.sadd("a", *[str(i) for i in range(200)])  # hashtable after growing
    r.hset("b", mapping={f"f{i}": i for i in range(5)})
    d1 = r.execute_command("DEBUG", "DIGEST")
    r.flushall()
    r.hset("b", mapping={f"f{i}": i for i in reversed(range(5))})
    r.sadd("a", *[str(i) for i in reversed(range(200))])
    assert r.execute_command("DEBUG", "DIGEST") == d1
    r.hset("b", "f0", "changed")
    assert r.execute_command("DEBUG", "DIGEST") != d1


def test_digest_survives_save_and_restart(start_server):
    srv = start_server()
    r = srv.client()
    fill(r)
    r.xadd("stream", {"f": "v"}, id="1-1")
    before = r.execute_command("DEBUG", "DIGEST")
    assert r.execute_command("DEBUG", "RELOAD") == "OK"
    assert r.execute_command("DEBUG", "DIGEST") == before
    r.save()
    srv.stop()
    again = start_server()  # same directory: loads dump.rdb
    assert again.client().execute_command("DEBUG", "DIGEST") == before


def test_debug_object_lines(r):
    r.set("foo", "bar")
    r.set("n", "5")
    r.rpush("l", "a", "b", "c")
    line = r.execute_command("DEBUG", "OBJECT", "foo")
    assert re.fullmatch(r"Value at:0x[0-9a-f]+ refcount:1 encoding:embstr serializedlength:4 "
                        r"lru:\d+ lru_seconds_idle:\d+", line), line
    assert " refcount:1 encoding:int serializedlength:2 " in r.execute_command("DEBUG", "OBJECT", "n")
    assert re.fullmatch(r"Value at:0x[0-9a-f]+ refcount:1 encoding:listpack serializedlength:\d+ "
                        r"lru:\d+ lru_seconds_idle:\d+",
                        r.execute_command("DEBUG", "OBJECT", "l"))
    r.rpush("big", *["x" * 100] * 300)
    big = r.execute_command("DEBUG", "OBJECT", "big")
    assert re.fullmatch(r".* encoding:quicklist serializedlength:\d+ lru:\d+ lru_seconds_idle:\d+ "
                        r"ql_nodes:\d+ ql_avg_node:\d+\.\d\d ql_listpack_max:-2 ql_compressed:0 "
                        r"ql_uncompressed_size:\d+", big), big


@pytest.mark.parametrize("args,error", [
    (("DEBUG", "OBJECT", "nosuch"), "no such key"),
    (("DEBUG", "LISTPACK", "nosuch"), "no such key"),
    (("DEBUG", "LISTPACK", "s"), "Not a listpack encoded object."),
    (("DEBUG", "QUICKLIST-PACKED-THRESHOLD", "abc"),
     "argument must be a memory value bigger than 1 and smaller than 4gb"),
    (("DEBUG", "NOSUCH"),
     "unknown subcommand or wrong number of arguments for 'NOSUCH'. Try DEBUG HELP."),
    (("DEBUG", "OBJECT"),
     "unknown subcommand or wrong number of arguments for 'OBJECT'. Try DEBUG HELP."),
])
def test_debug_errors(r, args, error):
    r.set("s", "string")
    with pytest.raises(Exception) as e:
        r.execute_command(*args)
    assert str(e.value) == error


def test_debug_simple_subcommands(r):
    assert r.execute_command("DEBUG", "STRINGMATCH-TEST") == "Apparently Redis did not crash: test passed"
    assert r.execute_command("DEBUG", "CHANGE-REPL-ID") == "OK"
    assert r.execute_command("DEBUG", "QUICKLIST-PACKED-THRESHOLD", "100") == "OK"
    assert r.execute_command("DEBUG", "QUICKLIST-PACKED-THRESHOLD", "0") == "OK"
    r.rpush("lp", "a")
    assert r.execute_command("DEBUG", "LISTPACK", "lp") == "Listpack structure printed on stdout"
    help_lines = r.execute_command("DEBUG", "HELP")
    assert help_lines[0] == "DEBUG <subcommand> [<arg> [value] [opt] ...]. Subcommands are:"
    assert "DIGEST-VALUE <key> [<key> ...]" in help_lines


def test_debug_refused_when_disabled(start_server):
    srv = start_server(args=["--enable-debug-command", "no"])
    with pytest.raises(Exception) as e:
        srv.client().execute_command("DEBUG", "DIGEST")
    assert str(e.value).startswith("DEBUG command not allowed.")


MEMORY_STATS_KEYS = [
    "peak.allocated", "total.allocated", "startup.allocated", "replication.backlog",
    "replica.fullsync.buffer", "clients.slaves", "clients.normal", "clients.normal.shared",
    "clients.normal.unshared", "cluster.links", "aof.buffer", "lua.caches", "functions.caches",
    "script.VMs", "db.0", "overhead.db.hashtable.lut", "overhead.db.hashtable.rehashing",
    "overhead.total", "db.dict.rehashing.count", "keys.count", "keys.bytes-per-key",
    "dataset.bytes", "dataset.percentage", "peak.percentage", "allocator.allocated",
    "allocator.active", "allocator.resident", "allocator.muzzy", "allocator-fragmentation.ratio",
    "allocator-fragmentation.bytes", "allocator-rss.ratio", "allocator-rss.bytes",
    "rss-overhead.ratio", "rss-overhead.bytes", "fragmentation", "fragmentation.bytes"]


def test_memory_stats_fields_in_redis_order(r):
    r.set("k", "v")
    r.set("e", "v", ex=100)
    stats = r.execute_command("MEMORY", "STATS")
    keys = stats[0::2]
    assert keys == MEMORY_STATS_KEYS
    d = dict(zip(keys, stats[1::2]))
    assert d["keys.count"] == 2
    assert d["db.0"][0::2] == ["overhead.hashtable.main", "overhead.hashtable.expires"]
    assert d["total.allocated"] > 0 and d["peak.allocated"] >= d["total.allocated"]


def test_memory_doctor_malloc_stats_purge_help(r):
    assert r.execute_command("MEMORY", "DOCTOR").startswith("Hi Sam,")
    assert len(r.execute_command("MEMORY", "MALLOC-STATS")) > 0
    assert r.execute_command("MEMORY", "PURGE") == "OK"
    assert r.execute_command("MEMORY", "HELP") == [
        "MEMORY <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
        "DOCTOR", "    Return memory problems reports.",
        "MALLOC-STATS", "    Return internal statistics report from the memory allocator.",
        "PURGE", "    Attempt to purge dirty pages for reclamation by the allocator.",
        "STATS", "    Return information about the memory usage of the server.",
        "USAGE <key> [SAMPLES <count>]",
        "    Return memory in bytes used by <key> and its value. Nested values are",
        "    sampled up to <count> times (default: 5, 0 means sample all).",
        "HELP", "    Print this help."]
