"""DUMP and RESTORE (and RESTORE-ASKING): payloads move between HotKV and Redis 7.0 / 8.8 in
both directions for every type and size class, and every RESTORE option and error behaves
as in Redis 8.8 (the same assertions pass with HOTKV_SERVER=/usr/bin/redis-server, except
those marked redis8). Interop with the peers: DUMP on one, RESTORE on the other, then the
value and the TTL compared key by key."""
import time

import pytest
import redis

from conftest import cmd, error_reply
from helpers_dump import (REDIS7, REDIS88, assert_same_keys, populate, snapshot,
                          start_peer, transfer, with_footer)
from helpers_pubsub import KeyspaceWatcher, conns, ps_server, set_events  # noqa: F401


@pytest.fixture(scope="module")
def redis7(tmp_path_factory):
    peer = start_peer(REDIS7, tmp_path_factory)
    yield peer
    peer.stop()


@pytest.fixture(scope="module")
def redis88(tmp_path_factory):
    peer = start_peer(REDIS88, tmp_path_factory)
    yield peer
    peer.stop()


def peer_client(peer):
    c = peer.client()
    c.flushall()
    return c


# --- interop ---------------------------------------------------------------------------------

def test_round_trip_on_the_server(rb):
    keys = populate(rb)
    transfer(rb, rb, keys, renamed=lambda k: b"copy:" + k)
    assert_same_keys(rb, rb, keys, renamed=lambda k: b"copy:" + k)


def test_redis7_payloads_restore_here(rb, redis7):
    src = peer_client(redis7)
    keys = populate(src)
    transfer(src, rb, keys)
    assert_same_keys(src, rb, keys)


def test_payloads_from_here_restore_in_redis7(rb, redis7):
    dst = peer_client(redis7)
    keys = populate(rb)
    transfer(rb, dst, keys)
    assert_same_keys(rb, dst, keys)


@pytest.mark.redis8
def test_redis88_payloads_restore_here(rb, redis88):
    src = peer_client(redis88)
    keys = populate(src)
    transfer(src, rb, keys)
    assert_same_keys(src, rb, keys)


def test_payloads_from_here_restore_in_redis88(rb, redis88):
    dst = peer_client(redis88)
    keys = populate(rb)
    transfer(rb, dst, keys)
    assert_same_keys(rb, dst, keys)


def vector_set_view(c, key):
    """element -> (VEMB vector as floats, attributes)."""
    return {e: ([float(x) for x in c.execute_command("VEMB", key, e)],
                c.execute_command("VGETATTR", key, e))
            for e in c.execute_command("VRANDMEMBER", key, 1000)}


@pytest.mark.hotkv_only
@pytest.mark.parametrize("direction", ["from_redis88", "to_redis88"])
def test_vector_sets_move_with_redis88(rb, redis88, direction):
    peer = peer_client(redis88)
    src, dst = (peer, rb) if direction == "from_redis88" else (rb, peer)
    for i in range(50):
        src.execute_command("VADD", "vs", "VALUES", 3, i % 7, (i * 3) % 11 - 5, 1 + i % 4,
                            f"e{i}", "SETATTR", f'{{"i":{i}}}')
    payload = src.dump(b"vs")
    assert dst.restore(b"vs", 0, payload)
    assert dst.execute_command("VCARD", "vs") == 50
    got, want = vector_set_view(dst, "vs"), vector_set_view(src, "vs")
    assert got.keys() == want.keys()
    for e, (vec, attrs) in want.items():
        assert got[e][1] == attrs, e
        # the same 8-bit codes; float32 dequantization may differ in the last bits
        assert got[e][0] == pytest.approx(vec, rel=1e-5, abs=1e-5), e


def test_small_encodings_stay_compact_after_restore(rb, redis7):
    # A payload decoded here builds its value with this server's encoding limits.
    src = peer_client(redis7)
    keys = populate(src)
    transfer(src, rb, keys)
    enc = {k: rb.object("encoding", k) for k in (b"h:small", b"set:int", b"z:small", b"l:small")}
    assert enc[b"h:small"] == b"listpack"
    assert enc[b"set:int"] == b"intset"
    assert enc[b"z:small"] == b"listpack"
    assert enc[b"l:small"] in (b"listpack", b"quicklist")


def test_restore_follows_the_encoding_config(rb, restore_config):
    restore_config("zset-max-listpack-entries", "hash-max-listpack-entries")
    rb.zadd(b"z", {b"a": 1, b"b": 2, b"c": 3})
    rb.hset(b"h", mapping={b"a": b"1", b"b": b"2", b"c": b"3"})
    pz, ph = rb.dump(b"z"), rb.dump(b"h")
    rb.config_set("zset-max-listpack-entries", 2)
    rb.config_set("hash-max-listpack-entries", 2)
    assert rb.restore(b"z2", 0, pz) and rb.restore(b"h2", 0, ph)
    assert rb.object("encoding", b"z2") == b"skiplist"
    assert rb.object("encoding", b"h2") == b"hashtable"
    assert rb.zrange(b"z2", 0, -1, withscores=True) == [(b"a", 1), (b"b", 2), (b"c", 3)]


@pytest.mark.hotkv_only
def test_payloads_are_rdb_version_10(rb):
    # Redis 7.0's RDB version, so that 7.0 and every later version accept them.
    rb.set(b"k", b"v")
    payload = rb.dump(b"k")
    assert payload[-10:-8] == b"\x0a\x00"
    assert payload[:3] == b"\x00\x01v"


def test_dump_of_a_missing_key_is_nil(rb):
    assert rb.dump(b"nokey") is None


def test_rdbcompression_applies_to_dump(rb, restore_config):
    restore_config("rdbcompression")
    rb.set(b"k", b"a" * 1000)
    compressed = rb.dump(b"k")
    rb.config_set("rdbcompression", "no")
    plain = rb.dump(b"k")
    assert len(compressed) < 100 < 1000 < len(plain)
    for payload in (compressed, plain):
        rb.delete(b"r")
        assert rb.restore(b"r", 0, payload)
        assert rb.get(b"r") == b"a" * 1000


# --- RESTORE options -------------------------------------------------------------------------

def dump_of(c, value=b"hello"):
    c.set(b"tmp:src", value)
    p = c.dump(b"tmp:src")
    c.delete(b"tmp:src")
    return p


def test_ttl_zero_means_no_ttl_and_positive_is_relative(rb):
    p = dump_of(rb)
    assert rb.restore(b"a", 0, p)
    assert rb.pttl(b"a") == -1
    assert rb.restore(b"b", 100_000, p)
    assert 90_000 < rb.pttl(b"b") <= 100_000


def test_absttl(rb):
    p = dump_of(rb)
    at = int(time.time() * 1000) + 100_000
    assert rb.restore(b"a", at, p, absttl=True)
    assert rb.pexpiretime(b"a") == at


def test_absttl_in_the_past_creates_nothing(rb):
    p = dump_of(rb)
    assert cmd(rb, "RESTORE", "a", 1, p, "ABSTTL") == b"OK"
    assert rb.exists(b"a") == 0


def test_absttl_in_the_past_with_replace_deletes_the_old_key(rb):
    p = dump_of(rb)
    rb.rpush(b"a", b"x")
    assert cmd(rb, "RESTORE", "a", 1, p, "ABSTTL", "REPLACE") == b"OK"
    assert rb.exists(b"a") == 0


def test_a_ttl_that_overflows_creates_nothing(rb):
    # As Redis: ttl + now wraps around into the past.
    p = dump_of(rb)
    assert cmd(rb, "RESTORE", "a", 9223372036854775807, p) == b"OK"
    assert rb.exists(b"a") == 0
    assert cmd(rb, "RESTORE", "b", 9223372036854775807, p, "ABSTTL") == b"OK"
    assert rb.pexpiretime(b"b") == 9223372036854775807


def test_replace_changes_type_and_drops_the_old_ttl(rb):
    p = dump_of(rb, b"new")
    rb.rpush(b"k", b"x")
    rb.pexpire(b"k", 100_000)
    assert rb.restore(b"k", 0, p, replace=True)
    assert rb.type(b"k") == b"string" and rb.get(b"k") == b"new"
    assert rb.pttl(b"k") == -1


def test_idletime(rb):
    p = dump_of(rb)
    assert rb.restore(b"k", 0, p, idletime=1000)
    assert 1000 <= rb.object("idletime", b"k") <= 1010
    # case-insensitive options, any order
    assert cmd(rb, "RESTORE", "k", 0, p, "replace", "idletime", 3000, "absttl") == b"OK"
    assert 3000 <= rb.object("idletime", b"k") <= 3010


def test_freq_under_an_lfu_policy(rb, restore_config):
    restore_config("maxmemory-policy")
    rb.config_set("maxmemory-policy", "allkeys-lfu")
    p = dump_of(rb)
    assert rb.restore(b"k", 0, p, frequency=100)
    assert rb.object("freq", b"k") == 100
    # IDLETIME is ignored under LFU (the key keeps the initial counter), FREQ under LRU.
    assert rb.restore(b"k2", 0, p, idletime=50)
    assert rb.object("freq", b"k2") == 5
    rb.config_set("maxmemory-policy", "allkeys-lru")
    assert rb.restore(b"k3", 0, p, frequency=100)
    assert rb.object("idletime", b"k3") <= 5


def test_restore_asking_behaves_as_restore(rb):
    p = dump_of(rb)
    assert cmd(rb, "RESTORE-ASKING", "k", 0, p) == b"OK"
    assert rb.get(b"k") == b"hello"
    assert error_reply(rb, "RESTORE-ASKING", "k", 0, p) == "BUSYKEY Target key name already exists."


def test_restore_wakes_a_blocked_client(server, rb):
    rb.rpush(b"src", b"x", b"y")
    p = rb.dump(b"src")
    waiter = server.client(decode_responses=False)
    try:
        conn = waiter.connection_pool.get_connection("BLPOP")
        conn.send_command("BLPOP", "dst", 10)
        # the waiter is blocked once CLIENT LIST shows it in BLPOP
        deadline = time.time() + 5
        while b"cmd=blpop" not in rb.execute_command("CLIENT", "LIST"):
            assert time.time() < deadline
            time.sleep(0.01)
        assert rb.restore(b"dst", 0, p)
        assert conn.read_response() == [b"dst", b"x"]
        assert rb.lrange(b"dst", 0, -1) == [b"y"]
    finally:
        waiter.close()


def test_watch_is_invalidated_by_restore(server, rb):
    p = dump_of(rb)
    w = server.client(decode_responses=False)
    try:
        pipe = w.pipeline()
        pipe.watch(b"k")
        assert rb.restore(b"k", 0, p)
        pipe.multi()
        pipe.set(b"k", b"mine")
        with pytest.raises(redis.WatchError):
            pipe.execute()
    finally:
        w.close()
    assert rb.get(b"k") == b"hello"


@pytest.mark.redis8
def test_info_keysizes_follow_restore(rb):
    rb.rpush(b"src", *[b"x"] * 10)
    p = rb.dump(b"src")
    rb.delete(b"src")
    assert rb.restore(b"k", 0, p)
    assert rb.info("keysizes")["db0_distrib_lists_items"] == "8=1"
    assert rb.restore(b"k", 0, dump_of(rb, b"abc"), replace=True)
    info = rb.info("keysizes")
    assert "db0_distrib_lists_items" not in info
    assert info["db0_distrib_strings_sizes"] == "2=1"


# --- errors, in Redis's order ----------------------------------------------------------------

def test_error_texts_and_their_order(rb):
    p = dump_of(rb)
    rb.set(b"exists", b"v")
    busy = "BUSYKEY Target key name already exists."
    cases = [
        (("RESTORE", "k", 0, p, "FOO"), "ERR syntax error"),
        (("RESTORE", "exists", "x", b"bad", "FOO"), "ERR syntax error"),
        (("RESTORE", "k", 0, p, "IDLETIME"), "ERR syntax error"),
        (("RESTORE", "k", 0, p, "FREQ"), "ERR syntax error"),
        (("RESTORE", "k", 0, p, "IDLETIME", 1, "FREQ", 1), "ERR syntax error"),
        (("RESTORE", "k", 0, p, "FREQ", 1, "IDLETIME", 1), "ERR syntax error"),
        (("RESTORE", "k", 0, p, "IDLETIME", "x"), "ERR value is not an integer or out of range"),
        (("RESTORE", "k", 0, p, "IDLETIME", -1), "ERR Invalid IDLETIME value, must be >= 0"),
        (("RESTORE", "k", 0, p, "FREQ", 256), "ERR Invalid FREQ value, must be >= 0 and <= 255"),
        (("RESTORE", "k", 0, p, "FREQ", -1), "ERR Invalid FREQ value, must be >= 0 and <= 255"),
        (("RESTORE", "exists", "x", b"bad"), busy),
        (("RESTORE", "exists", 0, p), busy),
        (("RESTORE", "k", "x", p), "ERR value is not an integer or out of range"),
        (("RESTORE", "k", -1, b"bad"), "ERR Invalid TTL value, must be >= 0"),
        (("RESTORE", "k", 0, b"bad"), "ERR DUMP payload version or checksum are wrong"),
        (("RESTORE", "k", 0, b""), "ERR DUMP payload version or checksum are wrong"),
        (("RESTORE", "k", 0, p[:-1] + bytes([p[-1] ^ 1])),
         "ERR DUMP payload version or checksum are wrong"),
        (("RESTORE", "k", 0, with_footer(p[:-10], version=99)),
         "ERR DUMP payload version or checksum are wrong"),
        (("RESTORE", "k", 0, with_footer(b"\x00\x3fabc")), "ERR Bad data format"),
        (("RESTORE", "k", 0, with_footer(b"\x63\x01a")), "ERR Bad data format"),
        (("RESTORE", "k", 0), "ERR wrong number of arguments for 'restore' command"),
    ]
    for args, want in cases:
        assert error_reply(rb, *args) == want, args
    assert rb.exists(b"k") == 0
    assert rb.get(b"exists") == b"v"


def test_bad_payload_with_replace_keeps_the_old_key(rb):
    rb.set(b"k", b"old")
    assert error_reply(rb, "RESTORE", "k", 0, with_footer(b"\x00\x3fabc"), "REPLACE") == \
        "ERR Bad data format"
    assert rb.get(b"k") == b"old"


@pytest.mark.redis8
def test_a_payload_without_checksum_is_not_checked(rb):
    # Redis 8: a CRC64 of 0 means the payload carries none.
    assert rb.restore(b"k", 0, with_footer(b"\x00\x03abc", checksum=False))
    assert rb.get(b"k") == b"abc"
    assert error_reply(rb, "RESTORE", "k2", 0, with_footer(b"\x00\x3fabc", checksum=False)) == \
        "ERR Bad data format"


# --- keyspace events -------------------------------------------------------------------------

@pytest.fixture
def watched(conns):
    c = conns.client(decode_responses=False)
    c.flushall()
    set_events(c, "KEA")
    yield c, KeyspaceWatcher(conns)
    set_events(c, "")


def test_restore_event(watched):
    c, w = watched
    c.set(b"src", b"v")
    p = c.dump(b"src")
    w.events(c)
    assert c.restore(b"k", 0, p)
    assert w.events(c) == [(0, "k", "restore")]


@pytest.mark.redis8
def test_replace_events(watched):
    c, w = watched
    set_events(c, "KEAoc")
    c.set(b"src", b"v")
    p = c.dump(b"src")
    c.set(b"s", b"x")
    c.rpush(b"l", b"x")
    w.events(c)
    assert c.restore(b"s", 0, p, replace=True)
    assert w.events(c) == [(0, "s", "restore"), (0, "s", "overwritten")]
    assert c.restore(b"l", 0, p, replace=True)
    assert w.events(c) == [(0, "l", "restore"), (0, "l", "overwritten"), (0, "l", "type_changed")]


def test_expired_absttl_events(watched):
    c, w = watched
    c.set(b"src", b"v")
    p = c.dump(b"src")
    w.events(c)
    assert c.restore(b"k", 1, p, absttl=True)
    assert w.events(c) == []
    c.set(b"k", b"x")
    w.events(c)
    assert c.restore(b"k", 1, p, absttl=True, replace=True)
    assert w.events(c) == [(0, "k", "del")]


def test_a_restored_ttl_expires(rb):
    p = dump_of(rb)
    assert rb.restore(b"k", 50, p)
    deadline = time.time() + 5
    while rb.exists(b"k"):
        assert time.time() < deadline
        time.sleep(0.02)
    assert snapshot(rb, b"k") == (b"none", None)


@pytest.mark.hotkv_only
def test_a_vector_set_the_format_cannot_hold_is_refused(rb):
    # Redis 8's vector-set encoding has no L2 metric: an error, never an empty payload.
    assert rb.execute_command("VSIM.CREATEINDEX", "l2", "DIM", 3, "METRIC", "L2")
    assert error_reply(rb, "DUMP", "l2") == "ERR DUMP is not supported for this vectorset value"
    assert error_reply(rb, "MIGRATE", "127.0.0.1", 1, "l2", 0, 100) == \
        "ERR DUMP is not supported for this vectorset value"
    assert rb.exists(b"l2") == 1


@pytest.mark.hotkv_only
def test_a_vector_set_round_trips(rb):
    for i in range(20):
        rb.execute_command("VADD", "vs", "VALUES", 2, i, 20 - i, f"e{i}", "SETATTR", f'{{"i":{i}}}')
    assert rb.restore(b"vs2", 0, rb.dump(b"vs"))
    got, want = vector_set_view(rb, "vs2"), vector_set_view(rb, "vs")
    assert got.keys() == want.keys() and len(got) == 20
    for e, (vec, attrs) in want.items():
        assert got[e][1] == attrs
        assert got[e][0] == pytest.approx(vec, rel=1e-5, abs=1e-5)
