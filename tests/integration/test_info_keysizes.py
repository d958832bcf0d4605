"""INFO keysizes (Redis 8): per database, power-of-two histograms of key sizes per type.

Strings are binned by length, lists/sets/zsets/hashes by element count; bin labels are
0, 1, 2, 4, ..., 512, 1K, ..., 1M, ...; a type with no keys has no line, a database with
no keys none at all; streams and vector sets are not counted. The exact texts were
checked by hand against Redis 8.8. Besides fixed cases, every test compares INFO with a
model computed from the keys themselves (SCAN + TYPE + STRLEN/LLEN/SCARD/ZCARD/HLEN).
"""
import random
import time

import pytest

from conftest import cmd, wait_until

pytestmark = pytest.mark.redis8  # INFO keysizes is new in Redis 8

TYPES = {"string": ("strings_sizes", "STRLEN"), "list": ("lists_items", "LLEN"),
         "set": ("sets_items", "SCARD"), "zset": ("zsets_items", "ZCARD"),
         "hash": ("hashes_items", "HLEN")}
ORDER = ["strings_sizes", "lists_items", "sets_items", "zsets_items", "hashes_items"]


def label(size):
    if size == 0:
        return "0"
    exp = size.bit_length() - 1
    units = ["", "K", "M", "G", "T", "P", "E"]
    return f"{1 << (exp % 10)}{units[exp // 10]}"


def keysizes(client):
    """INFO keysizes -> {"db0_distrib_lists_items": "1=2,4=1", ...} in output order."""
    text = cmd(client, "INFO", "keysizes")
    lines = text.split("\r\n")
    assert lines[0] == "# Keysizes"
    out = {}
    for line in lines[1:]:
        if line:
            name, _, value = line.partition(":")
            out[name] = value
    return out


def model(client, dbs=16):
    """The histogram the keys themselves imply, in Redis's line order."""
    out = {}
    for db in range(dbs):
        c = client.__class__(connection_pool=client.connection_pool.__class__(
            **{**client.connection_pool.connection_kwargs, "db": db}))
        hist = {}
        for key in c.scan_iter(count=1000):
            t = c.type(key)
            if t not in TYPES:
                continue
            name, length_cmd = TYPES[t]
            size = c.execute_command(length_cmd, key)
            hist.setdefault(name, {})
            hist[name][size.bit_length()] = hist[name].get(size.bit_length(), 0) + 1
        c.close()
        for name in ORDER:
            if name in hist:
                bins = sorted(hist[name].items())
                out[f"db{db}_distrib_{name}"] = ",".join(
                    f"{label(0 if b == 0 else 1 << (b - 1))}={n}" for b, n in bins)
    return out


def check(client):
    got = keysizes(client)
    assert got == model(client)
    assert list(got) == list(model(client))  # Redis's order: db, then type
    return got


def test_exact_output_for_each_type(r):
    assert cmd(r, "INFO", "keysizes") == "# Keysizes\r\n"
    r.set("a", "b")
    r.set("e", "")
    r.set("n", "12345678901234567890")  # 20 bytes, "int" encoded: binned by its length
    r.rpush("l", 1, 2, 3)
    r.sadd("s", 1)
    r.zadd("z", {"a": 1})
    r.hset("h", "a", "b")
    r.setrange("big", 2000000, "x")
    r.execute_command("SELECT", 3)
    c3 = r.__class__(**{**r.connection_pool.connection_kwargs, "db": 3})
    c3.rpush("L", *range(1100))
    c3.close()
    assert cmd(r, "INFO", "keysizes") == (
        "# Keysizes\r\n"
        "db0_distrib_strings_sizes:0=1,1=1,16=1,1M=1\r\n"
        "db0_distrib_lists_items:2=1\r\n"
        "db0_distrib_sets_items:1=1\r\n"
        "db0_distrib_zsets_items:1=1\r\n"
        "db0_distrib_hashes_items:1=1\r\n"
        "db3_distrib_lists_items:1K=1\r\n")
    check(r)


def test_in_default_info_after_keyspace(r):
    r.set("k", "v")
    text = cmd(r, "INFO")
    assert "# Keysizes\r\ndb0_distrib_strings_sizes:1=1\r\n" in text
    assert text.index("# Keyspace") < text.index("# Keysizes")
    assert "# Keysizes" in cmd(r, "INFO", "everything")
    assert "# Keysizes" in cmd(r, "INFO", "all")
    # Sections come in Redis's order whatever the order asked for.
    text = cmd(r, "INFO", "KEYSIZES", "server")
    assert text.index("# Server") < text.index("# Keysizes")


def test_strings_grow_and_shrink(r):
    r.set("k", "123456789")
    assert keysizes(r) == {"db0_distrib_strings_sizes": "8=1"}
    r.incr("k")  # 10 bytes now
    assert keysizes(r) == {"db0_distrib_strings_sizes": "8=1"}
    r.set("k", "9999999")
    assert keysizes(r) == {"db0_distrib_strings_sizes": "4=1"}
    r.incr("k")  # 10000000: 8 bytes
    assert keysizes(r) == {"db0_distrib_strings_sizes": "8=1"}
    r.decrby("k", 9999999)  # "1"
    assert keysizes(r) == {"db0_distrib_strings_sizes": "1=1"}
    r.append("k", "x" * 200)
    assert keysizes(r) == {"db0_distrib_strings_sizes": "128=1"}
    r.setrange("k", 5000, "y")
    assert keysizes(r) == {"db0_distrib_strings_sizes": "4K=1"}
    r.set("k", "")
    assert keysizes(r) == {"db0_distrib_strings_sizes": "0=1"}
    r.incrbyfloat("f", "1.5")
    r.getset("k", "abcd")
    r.mset({"m1": "a", "m2": "bb"})
    r.set("k", "abcdefgh", get=True)
    check(r)
    r.getdel("k")
    r.delete("m1")
    assert keysizes(r) == {"db0_distrib_strings_sizes": "2=2"}  # "bb" and "1.5"
    r.unlink("m2", "f")
    assert keysizes(r) == {}


def test_collections_grow_shrink_and_delete(r):
    r.rpush("l", *range(5))
    r.sadd("s", *range(100))
    r.zadd("z", {f"m{i}": i for i in range(300)})
    r.hset("h", mapping={f"f{i}": i for i in range(2)})
    assert keysizes(r) == {"db0_distrib_lists_items": "4=1", "db0_distrib_sets_items": "64=1",
                           "db0_distrib_zsets_items": "256=1", "db0_distrib_hashes_items": "2=1"}
    r.lpop("l", 2)
    r.srem("s", *range(40))
    r.zremrangebyrank("z", 0, 199)
    r.hincrby("h", "new", 1)
    assert keysizes(r) == {"db0_distrib_lists_items": "2=1", "db0_distrib_sets_items": "32=1",
                           "db0_distrib_zsets_items": "64=1", "db0_distrib_hashes_items": "2=1"}
    r.ltrim("l", 0, 0)
    r.spop("s", 60)  # empties the set: the key goes
    r.zpopmin("z", 100)
    r.hdel("h", "f0", "f1", "new")
    assert keysizes(r) == {"db0_distrib_lists_items": "1=1"}
    r.linsert("l", "BEFORE", "3", "x")
    r.lrem("l", 0, "x")
    r.lset("l", 0, "y")
    check(r)
    r.delete("l")
    assert keysizes(r) == {}


def test_multi_key_writes(r):
    r.sadd("a", *range(10))
    r.sadd("b", *range(5, 20))
    r.sinterstore("i", "a", "b")
    r.sunionstore("u", "a", "b")
    r.zadd("z1", {"x": 1, "y": 2})
    r.zunionstore("zu", ["z1", "a"])
    r.smove("a", "b", 0)
    r.rpush("src", *range(8))
    r.lmove("src", "dst", "LEFT", "RIGHT")
    r.rpoplpush("src", "dst")
    r.zrangestore("zr", "zu", 0, 3)
    check(r)
    r.sinterstore("u", "a", "nosuch")  # empty result deletes the destination
    check(r)


def test_rename_copy_move_swapdb(r):
    r.rpush("l", *range(3))
    r.set("s", "x" * 10)
    r.rename("l", "l2")
    assert keysizes(r) == {"db0_distrib_strings_sizes": "8=1", "db0_distrib_lists_items": "2=1"}
    r.rename("s", "l2")  # the list is overwritten by a string
    assert keysizes(r) == {"db0_distrib_strings_sizes": "8=1"}
    r.sadd("set", *range(70))
    r.copy("set", "set2")
    r.copy("set", "set3", destination_db=2)
    assert keysizes(r) == {"db0_distrib_strings_sizes": "8=1", "db0_distrib_sets_items": "64=2",
                           "db2_distrib_sets_items": "64=1"}
    r.move("l2", 5)
    r.renamenx("set2", "set4")
    assert keysizes(r) == {"db0_distrib_sets_items": "64=2", "db2_distrib_sets_items": "64=1",
                           "db5_distrib_strings_sizes": "8=1"}
    r.swapdb(0, 5)
    assert keysizes(r) == {"db0_distrib_strings_sizes": "8=1", "db2_distrib_sets_items": "64=1",
                           "db5_distrib_sets_items": "64=2"}
    check(r)
    r.flushdb()  # db0 only
    assert keysizes(r) == {"db2_distrib_sets_items": "64=1", "db5_distrib_sets_items": "64=2"}
    r.flushall(asynchronous=True)
    assert keysizes(r) == {}


def test_flushall_sync_and_flushdb_async(r):
    r.set("a", "1")
    r.execute_command("FLUSHDB", "ASYNC")
    assert keysizes(r) == {}
    r.rpush("l", 1)
    r.execute_command("FLUSHALL", "SYNC")
    assert keysizes(r) == {}
    r.rpush("l", 1, 2)
    assert keysizes(r) == {"db0_distrib_lists_items": "2=1"}


def test_expired_keys_leave_the_histogram(r):
    r.set("lazy", "abc", px=30)
    r.rpush("active", *range(20))
    r.pexpire("active", 30)
    r.set("stay", "abcdefgh")
    assert keysizes(r) == {"db0_distrib_strings_sizes": "2=1,8=1", "db0_distrib_lists_items": "16=1"}
    time.sleep(0.05)
    assert r.get("lazy") is None  # expired on access
    # The list goes by the active cycle (or this lookup, whichever comes first).
    wait_until(lambda: keysizes(r) == {"db0_distrib_strings_sizes": "8=1"})
    assert keysizes(r) == {"db0_distrib_strings_sizes": "8=1"}
    r.expire("stay", -1)  # an expire in the past deletes the key
    assert keysizes(r) == {}


def test_evicted_keys_leave_the_histogram(start_server):
    srv = start_server(args=["--maxmemory-policy", "allkeys-random"])
    c = srv.client()
    c.config_set("maxmemory", int(c.info("memory")["used_memory"]) + 3_000_000)
    p = c.pipeline(transaction=False)
    for i in range(6000):
        p.set(f"k{i}", "x" * 1000)
        if i % 3 == 0:
            p.rpush(f"l{i}", *range(i % 40 + 1))
    p.execute()
    c.config_set("maxmemory", 0)  # no more evictions while the model is read
    assert int(c.info("stats")["evicted_keys"]) > 0
    got = check(c)
    assert got["db0_distrib_strings_sizes"].startswith("512=")
    c.close()


def test_vector_sets_and_empty_dbs_are_not_counted(r):
    cmd(r, "VADD", "v", "VALUES", "2", "1", "2", "e1")
    assert keysizes(r) == {}
    r.set("x", "y")
    assert keysizes(r) == {"db0_distrib_strings_sizes": "1=1"}


def test_transaction_and_blocked_client_served(r, server):
    p = r.pipeline(transaction=True)
    p.rpush("l", *range(10))
    p.lpop("l", 3)
    p.sadd("s", "a")
    p.execute()
    assert keysizes(r) == {"db0_distrib_lists_items": "4=1", "db0_distrib_sets_items": "1=1"}
    # A blocked BLMOVE served by a push: the pushed list and the destination change.
    blocked = server.client()
    blocked_conn = blocked.connection_pool.get_connection("BLMOVE")
    blocked_conn.send_command("BLMOVE", "q", "dst", "LEFT", "RIGHT", "5")
    wait_until(lambda: int(r.info("clients")["blocked_clients"]) == 1)
    r.rpush("q", "x", "y")
    assert blocked_conn.read_response() == "x"
    blocked.connection_pool.release(blocked_conn)
    blocked.close()
    assert keysizes(r) == {"db0_distrib_lists_items": "1=2,4=1", "db0_distrib_sets_items": "1=1"}
    check(r)


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_random_operations_match_the_model(r, seed):
    rnd = random.Random(seed)
    keys = [f"k{i}" for i in range(12)]
    for step in range(400):
        k = rnd.choice(keys)
        op = rnd.randrange(14)
        try:
            if op == 0:
                r.set(k, "x" * rnd.choice([0, 1, 3, 9, 70, 1500]))
            elif op == 1:
                r.append(k, "y" * rnd.randrange(1, 40))
            elif op == 2:
                r.rpush(k, *range(rnd.randrange(1, 30)))
            elif op == 3:
                r.lpop(k, rnd.randrange(1, 20))
            elif op == 4:
                r.sadd(k, *[rnd.randrange(200) for _ in range(rnd.randrange(1, 40))])
            elif op == 5:
                r.srem(k, *[rnd.randrange(200) for _ in range(rnd.randrange(1, 40))])
            elif op == 6:
                r.zadd(k, {str(rnd.randrange(300)): 1 for _ in range(rnd.randrange(1, 50))})
            elif op == 7:
                r.zremrangebyrank(k, 0, rnd.randrange(0, 20))
            elif op == 8:
                r.hset(k, mapping={str(rnd.randrange(100)): "v" for _ in range(rnd.randrange(1, 30))})
            elif op == 9:
                r.hdel(k, *[str(rnd.randrange(100)) for _ in range(10)])
            elif op == 10:
                r.delete(k)
            elif op == 11:
                r.rename(k, rnd.choice(keys))
            elif op == 12:
                r.move(k, rnd.randrange(3))
            else:
                r.copy(k, rnd.choice(keys), destination_db=rnd.randrange(3), replace=True)
        except Exception as e:  # WRONGTYPE, no such key, same key: fine
            assert "WRONGTYPE" in str(e) or "no such key" in str(e) or "same" in str(e), e
        if step % 50 == 0:
            check(r)
    check(r)
    r.swapdb(0, 1)
    check(r)
