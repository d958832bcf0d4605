"""The data side of `redis-cli --cluster` (Debian's 7.0), checked against Debian's Redis 7.0:
MIGRATE from a cluster-enabled node sends RESTORE-ASKING (so a node that is importing the
slot, not yet its owner, takes the keys), DEBUG DIGEST-VALUE gives equal 40-hex digests
for equal values on both servers (redis-cli compares source and target on BUSYKEY), and
the FUNCTION DUMP / LIST / RESTORE sequence of `--cluster add-node` between servers
without functions."""
import re
import time

import pytest
import redis

from conftest import free_port, wait_until
from helpers_dump import REDIS7, REDIS88, populate, start_peer, transfer


def key_in_slot(c, slot, prefix="k"):
    """A key name hashing to `slot` (CLUSTER KEYSLOT of a cluster-mode Redis)."""
    for i in range(200000):
        k = f"{prefix}{i}"
        if c.execute_command("CLUSTER", "KEYSLOT", k) == slot:
            return k
    raise AssertionError("no key found")


@pytest.fixture(scope="module")
def importing_pair(tmp_path_factory):
    """Two Redis 7.0 cluster nodes: A owns slot 5, B owns slot 6 and is IMPORTING slot 5
    from A. A plain RESTORE of a slot-5 key on B is redirected (-MOVED); RESTORE-ASKING
    is taken."""
    # Each with its own free bus port (port + 10000 may be taken).
    args = ["--cluster-enabled", "yes", "--cluster-require-full-coverage", "no"]
    a_bus = free_port()
    a = start_peer(REDIS7, tmp_path_factory, args=args + ["--cluster-port", str(a_bus)])
    b = start_peer(REDIS7, tmp_path_factory, args=args + ["--cluster-port", str(free_port())])
    try:
        ca, cb = a.client(), b.client()
        ca.execute_command("CLUSTER", "ADDSLOTS", 5)
        cb.execute_command("CLUSTER", "ADDSLOTS", 6)
        cb.execute_command("CLUSTER", "MEET", "127.0.0.1", a.port, a_bus)
        a_id = ca.execute_command("CLUSTER", "MYID").decode()

        def b_knows_a():
            nodes = cb.execute_command("CLUSTER", "NODES").decode()
            return any(line.startswith(a_id) and " 5\n" in line + "\n" and "handshake" not in line
                       for line in nodes.splitlines())
        assert wait_until(b_knows_a, timeout=10)
        cb.execute_command("CLUSTER", "SETSLOT", 5, "IMPORTING", a_id)
        assert wait_until(lambda: b"cluster_state:ok" in cb.execute_command("CLUSTER", "INFO"),
                          timeout=10)
        yield a, b
    finally:
        a.stop()
        b.stop()


def own_slot_if_cluster(c, slot):
    # The migrating node must own the key's slot (or MIGRATE's key is redirected) and be
    # cluster_state:ok (it is started with cluster-require-full-coverage no; a primary
    # stays down for the rejoin delay after it served no slot, as Redis does).
    c.execute_command("CLUSTER", "ADDSLOTS", slot)
    assert wait_until(lambda: b"cluster_state:ok" in c.execute_command("CLUSTER", "INFO"),
                      timeout=10)


def test_migrate_from_a_cluster_node_sends_restore_asking(start_server, importing_pair):
    a, b = importing_pair
    cb = b.client()
    key = key_in_slot(cb, 5)
    srv = start_server(args=["--cluster-enabled", "yes", "--cluster-require-full-coverage", "no",
                             "--cluster-node-timeout", "500",
                             "--cluster-port", str(free_port())])
    c = srv.client(decode_responses=False)
    own_slot_if_cluster(c, 5)
    c.set(key, "v1")
    assert c.execute_command("MIGRATE", "127.0.0.1", b.port, key, 0, 5000) == b"OK"
    assert c.exists(key) == 0
    # B took it as RESTORE-ASKING: it holds the key while A still owns the slot.
    assert cb.execute_command("CLUSTER", "COUNTKEYSINSLOT", 5) == 1
    assert cb.execute_command("CLUSTER", "GETKEYSINSLOT", 5, 10) == [key.encode()]
    cb.execute_command("ASKING")
    assert cb.get(key) == b"v1"
    # KEYS form, several keys, REPLACE over the existing one.
    k2 = key_in_slot(cb, 5, prefix="x")
    c.set(key, "v2")
    c.set(k2, "w")
    assert c.execute_command("MIGRATE", "127.0.0.1", b.port, "", 0, 5000, "REPLACE",
                             "KEYS", key, k2) == b"OK"
    assert cb.execute_command("CLUSTER", "COUNTKEYSINSLOT", 5) == 2
    cb.execute_command("ASKING")
    assert cb.get(key) == b"v2"
    cb.execute_command("ASKING")
    cb.delete(key, k2)


def test_migrate_from_a_plain_server_sends_restore(start_server, importing_pair):
    # Redis sends RESTORE-ASKING only when cluster-enabled: a standalone source's RESTORE
    # is redirected by the importing node, and the key stays.
    a, b = importing_pair
    key = key_in_slot(b.client(), 5)
    srv = start_server()
    c = srv.client(decode_responses=False)
    c.set(key, "v")
    with pytest.raises(redis.ResponseError) as e:
        c.execute_command("MIGRATE", "127.0.0.1", b.port, key, 0, 5000)
    assert str(e.value) == f"Target instance replied with error: MOVED 5 127.0.0.1:{a.port}"
    assert c.get(key) == b"v"


HEX40 = re.compile(rb"^[0-9a-f]{40}$")


@pytest.fixture(scope="module")
def redis7(tmp_path_factory):
    peer = start_peer(REDIS7, tmp_path_factory, args=["--enable-debug-command", "yes"])
    yield peer
    peer.stop()


def test_digest_value_matches_redis7_for_equal_values(rb, redis7):
    # The same values on both servers (moved by DUMP/RESTORE, every type and encoding
    # size class): DEBUG DIGEST-VALUE agrees key by key, as redis-cli --cluster's BUSYKEY
    # check needs between a HotKV and a Redis node.
    r7 = redis7.client()
    r7.flushall()
    rb.flushall()
    keys = populate(rb, prefix="dg:")
    transfer(rb, r7, keys)
    mine = rb.execute_command("DEBUG", "DIGEST-VALUE", *keys)
    theirs = r7.execute_command("DEBUG", "DIGEST-VALUE", *keys)
    assert len(mine) == len(keys)
    assert all(HEX40.match(d) for d in mine)
    # Redis 7.0 prints a sorted set's scores with %.17g into the digest, Redis 8 (and
    # HotKV) with the shortest round-trip form: they differ for scores such as 0.1, so
    # between HotKV and Redis 7.0 only sorted sets whose scores print alike agree.
    differ_in_7 = {b"dg:z:small", b"dg:z:large"}
    assert [k for k, m, t in zip(keys, mine, theirs) if m != t and k not in differ_in_7] == []
    # A different value gives a different digest; a missing key forty zeros, on both.
    rb.set(b"dg:s:int", b"12346")
    assert rb.execute_command("DEBUG", "DIGEST-VALUE", b"dg:s:int") != \
        r7.execute_command("DEBUG", "DIGEST-VALUE", b"dg:s:int")
    assert rb.execute_command("DEBUG", "DIGEST-VALUE", "nosuch") == [b"0" * 40] == \
        r7.execute_command("DEBUG", "DIGEST-VALUE", "nosuch")
    rb.flushall()
    r7.flushall()


def test_digest_value_of_sorted_sets_matches_redis8(rb, tmp_path_factory):
    r8 = start_peer(REDIS88, tmp_path_factory, args=["--enable-debug-command", "yes"])
    try:
        c8 = r8.client()
        keys = populate(rb, prefix="dg8:")
        transfer(rb, c8, keys)
        assert rb.execute_command("DEBUG", "DIGEST-VALUE", *keys) == \
            c8.execute_command("DEBUG", "DIGEST-VALUE", *keys)
    finally:
        r8.stop()
        rb.flushall()


# Scores whose digest text is fpconv_dtoa's alone (Redis >= 7.2), not the reply's
# integer form: 1e16 is "1e+16" in the digest but 10000000000000000 in ZSCORE.
DIGEST_SCORES = ["1e16", "1e8", "1.5e10", "1234567890123456789", "-1e15", "1e7", "123456789",
                 "1e17", "1e22", "0.5", "-0", "inf", "-inf", "0.1", "1e-7", "5e-324"]


def test_digest_value_of_integral_scores_matches_redis8(rb, tmp_path_factory):
    r8 = start_peer(REDIS88, tmp_path_factory, args=["--enable-debug-command", "yes"])
    try:
        c8 = r8.client()
        keys = []
        for c in (rb, c8):
            c.config_set("zset-max-listpack-entries", 0)
            c.zadd("dgi:big", {f"m{i}": float(s) for i, s in enumerate(DIGEST_SCORES)})
            c.config_set("zset-max-listpack-entries", 128)
            for i, sc in enumerate(DIGEST_SCORES):
                c.zadd(f"dgi:{i}", {"m": float(sc)})
        keys = ["dgi:big"] + [f"dgi:{i}" for i in range(len(DIGEST_SCORES))]
        mine = rb.execute_command("DEBUG", "DIGEST-VALUE", *keys)
        theirs = c8.execute_command("DEBUG", "DIGEST-VALUE", *keys)
        assert [(k, m, t) for k, m, t in zip(keys, mine, theirs) if m != t] == []
    finally:
        r8.stop()
        rb.flushall()


def test_function_dump_list_restore_without_functions(rb, redis7):
    # `redis-cli --cluster add-node`: FUNCTION DUMP on a cluster node, FUNCTION LIST on the
    # new one (must be empty), FUNCTION RESTORE of the dump there — in both directions.
    r7 = redis7.client()
    rb.execute_command("FUNCTION", "FLUSH")
    r7.execute_command("FUNCTION", "FLUSH")
    assert rb.execute_command("FUNCTION", "LIST") == r7.execute_command("FUNCTION", "LIST") == []
    mine = rb.execute_command("FUNCTION", "DUMP")
    theirs = r7.execute_command("FUNCTION", "DUMP")
    assert mine == theirs
    assert rb.execute_command("FUNCTION", "RESTORE", theirs) == b"OK"
    assert r7.execute_command("FUNCTION", "RESTORE", mine) == b"OK"
    assert rb.execute_command("FUNCTION", "LIST") == []
    # With a library: HotKV's dump loads on Redis 7.0 (and a node with functions is
    # refused by add-node, which only needs FUNCTION LIST to be non-empty there).
    code = "#!lua name=cllib\nredis.register_function('clf', function() return 1 end)"
    rb.execute_command("FUNCTION", "LOAD", code)
    assert len(rb.execute_command("FUNCTION", "LIST")) == 1
    assert r7.execute_command("FUNCTION", "RESTORE", rb.execute_command("FUNCTION", "DUMP")) == b"OK"
    assert r7.execute_command("FCALL", "clf", 0) == 1
    rb.execute_command("FUNCTION", "FLUSH")
    r7.execute_command("FUNCTION", "FLUSH")
