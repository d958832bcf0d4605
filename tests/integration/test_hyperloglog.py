"""HyperLogLog: PFADD, PFCOUNT, PFMERGE, PFDEBUG, PFSELFTEST and hll-sparse-max-bytes.

Written from Redis's documentation and hyperloglog.c's description of the representation,
and checked by hand against Redis 8.8; the byte vectors below are what Redis answers. The
peer tests at the end run the same commands on Redis 7.0 and 8.8 (when present) and compare
the bytes GET returns and the estimates."""
import random

import pytest
import redis

from conftest import cmd, error_reply, restarted_with_aof
from helpers_dump import REDIS7, REDIS88, start_peer
from helpers_pubsub import keyevents  # noqa: F401 (fixture)

NOT_HLL = "WRONGTYPE Key is not a valid HyperLogLog string value."
CORRUPT = "INVALIDOBJ Corrupted HLL object detected"
WRONGTYPE = "WRONGTYPE Operation against a key holding the wrong kind of value"
HEADER_SPARSE = b"HYLL\x01\x00\x00\x00"
DENSE_SIZE = 16 + 12288
# PFADD hv a b c d e f g on Redis 8.8 (and 7.0): the sparse opcodes and the invalid cache.
ABCDEFG = (HEADER_SPARSE + b"\x00" * 7 + b"\x80"
           + b"Fm\x80V\x0c\x80D<\x848\x80P\xb1\x84I\x8c\x80Bm\x80BZ")


def test_pfadd_creates_an_empty_sparse_hll(rb):
    assert rb.execute_command("PFADD", "h") == 1
    # Header, invalid cache (a change was made), one XZERO opcode covering 16384 registers.
    assert rb.get("h") == HEADER_SPARSE + b"\x00" * 7 + b"\x80" + b"\x7f\xff"
    assert rb.execute_command("PFADD", "h") == 0
    assert rb.execute_command("PFCOUNT", "h") == 0
    assert rb.get("h") == HEADER_SPARSE + b"\x00" * 8 + b"\x7f\xff"
    assert cmd(rb, "OBJECT", "ENCODING", "h") == b"raw"


def test_bytes_and_count_match_redis(rb):
    assert rb.execute_command("PFADD", "hv", *"abcdefg") == 1
    assert rb.get("hv") == ABCDEFG
    assert rb.execute_command("PFADD", "hv", "a", "b") == 0
    assert rb.execute_command("PFCOUNT", "hv") == 7
    # The estimate is cached in the header (little-endian, cache bit clear).
    assert rb.get("hv") == ABCDEFG[:8] + b"\x07" + b"\x00" * 7 + ABCDEFG[16:]
    assert cmd(rb, "PFDEBUG", "DECODE", "hv").startswith(b"Z:")


def test_estimates_match_redis(r):
    r.pfadd("big", *[str(i) for i in range(20000)])
    r.pfadd("mid", *[str(i) for i in range(300)])
    assert r.pfcount("big") == 19891
    assert r.pfcount("mid") == 302
    assert cmd(r, "PFDEBUG", "ENCODING", "mid") == "sparse"
    assert r.strlen("mid") == 698
    assert cmd(r, "PFDEBUG", "ENCODING", "big") == "dense"
    assert r.strlen("big") == DENSE_SIZE
    assert r.pfcount("big", "mid", "nokey") == 19891
    assert r.pfcount("nokey") == 0
    assert r.pfcount("nokey", "nokey2") == 0


def test_multi_key_pfcount_changes_nothing(rb):
    rb.execute_command("PFADD", "a", "x", "y")
    rb.execute_command("PFADD", "b", "y", "z")
    before = (rb.get("a"), rb.get("b"))
    assert rb.execute_command("PFCOUNT", "a", "b") == 3
    assert (rb.get("a"), rb.get("b")) == before
    assert rb.execute_command("PFCOUNT", "a") == 2
    assert rb.get("a") != before[0]  # the single-key count cached its estimate


def test_pfmerge(r):
    r.pfadd("a", "1", "2", "3")
    r.pfadd("b", "3", "4")
    assert r.pfmerge("dst", "a", "b") is True
    assert r.pfcount("dst") == 4
    assert cmd(r, "PFDEBUG", "ENCODING", "dst") == "sparse"
    # The destination is one of the inputs.
    r.pfadd("c", "9")
    assert r.pfmerge("c", "a") is True
    assert r.pfcount("c") == 4
    # Only a destination: created empty.
    assert r.pfmerge("empty") is True
    assert r.pfcount("empty") == 0
    assert r.exists("empty") == 1
    # A dense input makes the destination dense.
    r.pfadd("d", *[str(i) for i in range(5000)])
    assert cmd(r, "PFDEBUG", "ENCODING", "d") == "dense"
    r.pfmerge("dst2", "a", "d")
    assert cmd(r, "PFDEBUG", "ENCODING", "dst2") == "dense"
    assert r.pfcount("dst2") == r.pfcount("d", "a")


def test_pfmerge_keeps_the_destination_ttl(r):
    r.pfadd("a", "1")
    r.pfadd("dst", "2")
    r.expire("dst", 100)
    r.pfmerge("dst", "a")
    assert 0 < r.ttl("dst") <= 100
    r.pfadd("dst", *[str(i) for i in range(5000)])  # grows to dense: still the same key
    assert r.strlen("dst") == DENSE_SIZE
    assert 0 < r.ttl("dst") <= 100


def test_errors(r):
    r.set("s", "not an hll")
    r.set("short", "HYLL")
    r.set("badenc", b"HYLL\x02" + b"\x00" * 11)
    r.set("shortdense", b"HYLL\x00" + b"\x00" * 11 + b"\x00" * 10)
    r.rpush("l", "x")
    for k in ("s", "short", "badenc", "shortdense"):
        assert error_reply(r, "PFADD", k, "x") == NOT_HLL
        assert error_reply(r, "PFCOUNT", k) == NOT_HLL
        assert error_reply(r, "PFCOUNT", "nokey", k) == NOT_HLL
        assert error_reply(r, "PFMERGE", "dst", k) == NOT_HLL
        assert error_reply(r, "PFMERGE", k) == NOT_HLL
        assert error_reply(r, "PFDEBUG", "ENCODING", k) == NOT_HLL
    assert error_reply(r, "PFADD", "l", "x") == WRONGTYPE
    assert error_reply(r, "PFCOUNT", "l") == WRONGTYPE
    assert error_reply(r, "PFMERGE", "l") == WRONGTYPE
    assert r.exists("dst") == 0
    assert error_reply(r, "PFADD") == "ERR wrong number of arguments for 'pfadd' command"
    assert error_reply(r, "PFCOUNT") == "ERR wrong number of arguments for 'pfcount' command"


def test_corrupted_sparse_values(rb):
    # Opcodes covering 16385 registers (one too many), cache invalid.
    bad = HEADER_SPARSE + b"\x00" * 7 + b"\x80" + b"\x7f\xff\x80"
    rb.set("bad", bad)
    assert error_reply(rb, "PFCOUNT", "bad") == CORRUPT
    assert error_reply(rb, "PFCOUNT", "bad", "nokey") == CORRUPT
    assert error_reply(rb, "PFMERGE", "dst", "bad") == CORRUPT
    assert error_reply(rb, "PFDEBUG", "TODENSE", "bad") == CORRUPT
    assert error_reply(rb, "PFDEBUG", "GETREG", "bad") == CORRUPT
    assert rb.exists("dst") == 0
    # Too few registers.
    rb.set("bad2", HEADER_SPARSE + b"\x00" * 7 + b"\x80" + b"\x7f\xfe")
    assert error_reply(rb, "PFCOUNT", "bad2") == CORRUPT
    # A valid cache is answered without looking at the registers, as Redis does.
    rb.set("cached", HEADER_SPARSE + b"\x05" + b"\x00" * 7 + b"\x7f\xfe")
    assert rb.execute_command("PFCOUNT", "cached") == 5


def test_dense_value_copied_with_set_counts_the_same(rb):
    rb.execute_command("PFADD", "src", *[str(i) for i in range(3000)])
    value = rb.get("src")
    rb.set("copy", value)
    assert rb.execute_command("PFCOUNT", "copy") == rb.execute_command("PFCOUNT", "src")
    rb.execute_command("RESTORE", "restored", 0, rb.dump("src"))
    assert rb.execute_command("PFCOUNT", "restored") == rb.execute_command("PFCOUNT", "src")


def test_pfdebug(r):
    r.pfadd("h", "a", "b", "c")
    assert cmd(r, "PFDEBUG", "ENCODING", "h") == "sparse"
    assert cmd(r, "PFDEBUG", "DECODE", "h") == "Z:8436 v:1,1 Z:4274 v:2,1 Z:3068 v:1,1 Z:603"
    assert cmd(r, "pfdebug", "todense", "h") == 1
    assert cmd(r, "PFDEBUG", "TODENSE", "h") == 0
    assert cmd(r, "PFDEBUG", "ENCODING", "h") == "dense"
    assert error_reply(r, "PFDEBUG", "DECODE", "h") == "ERR HLL encoding is not sparse"
    regs = cmd(r, "PFDEBUG", "GETREG", "h")
    assert len(regs) == 16384
    assert sorted(regs)[-3:] == [1, 1, 2] and sum(regs) == 4
    assert r.pfcount("h") == 3
    # GETREG converts a sparse value to dense.
    r.pfadd("h2", "x")
    cmd(r, "PFDEBUG", "GETREG", "h2")
    assert cmd(r, "PFDEBUG", "ENCODING", "h2") == "dense"
    assert error_reply(r, "PFDEBUG", "FOO", "h") == "ERR Unknown PFDEBUG subcommand 'FOO'"
    assert error_reply(r, "PFDEBUG", "GETREG", "nokey") == "ERR The specified key does not exist"
    assert error_reply(r, "PFDEBUG", "GETREG") == "ERR wrong number of arguments for 'pfdebug' command"


@pytest.mark.redis8
def test_pfdebug_simd(r):
    assert cmd(r, "PFDEBUG", "SIMD", "off") == "disabled"
    assert cmd(r, "PFDEBUG", "simd", "ON") == "enabled"
    assert error_reply(r, "PFDEBUG", "SIMD", "maybe") == "ERR Argument must be ON or OFF"


def test_pfselftest(r):
    assert cmd(r, "PFSELFTEST") == "OK"


def test_sparse_max_bytes(r, restore_config):
    restore_config("hll-sparse-max-bytes")
    assert r.config_get("hll-sparse-max-bytes") == {"hll-sparse-max-bytes": "3000"}
    r.config_set("hll-sparse-max-bytes", 100)
    r.pfadd("h", *[str(i) for i in range(30)])
    assert cmd(r, "PFDEBUG", "ENCODING", "h") == "dense"
    r.config_set("hll-sparse-max-bytes", "3kb")
    assert r.config_get("hll-sparse-max-bytes") == {"hll-sparse-max-bytes": "3072"}
    r.pfadd("h3", *[str(i) for i in range(30)])
    assert cmd(r, "PFDEBUG", "ENCODING", "h3") == "sparse"
    r.config_set("hll-sparse-max-bytes", 0)
    r.pfadd("h4", "a")
    assert cmd(r, "PFDEBUG", "ENCODING", "h4") == "dense"
    assert error_reply(r, "CONFIG", "SET", "hll-sparse-max-bytes", "-1").startswith(
        "ERR CONFIG SET failed (possibly related to argument 'hll-sparse-max-bytes')")


def test_cache_update_touches_watch_only_when_it_changes(r, server):
    r.pfadd("h", "a")
    other = server.client()
    try:
        for touched in (True, False):  # the first count fills the cache, the second reads it
            with r.pipeline() as p:
                p.watch("h")
                other.pfcount("h")
                p.multi()
                p.strlen("h")
                try:
                    p.execute()
                    ran = True
                except redis.WatchError:
                    ran = False
            assert ran is not touched
    finally:
        other.close()


def test_keyspace_events(keyevents):
    events = keyevents
    assert events("PFADD", "h", "a") == [("pfadd", "h")]
    assert events("PFADD", "h", "a") == []
    assert events("PFCOUNT", "h") == []
    assert events("PFMERGE", "d", "h") == [("pfadd", "d")]
    assert events("PFADD", "e") == [("pfadd", "e")]


# ---- Against the peers: same commands, same bytes -----------------------------------------

def _workload(seed):
    rnd = random.Random(seed)
    ops = []
    keys = ["p0", "p1", "p2"]
    for _ in range(300):
        k = rnd.choice(keys)
        x = rnd.random()
        if x < 0.6:
            n = rnd.choice([1, 2, 10, 100, 600])
            ops.append(["PFADD", k] + [str(rnd.randrange(10 ** rnd.choice([2, 5, 9]))) for _ in range(n)])
        elif x < 0.75:
            ops.append(["PFCOUNT", k])
        elif x < 0.85:
            ops.append(["PFCOUNT"] + rnd.sample(keys, 2))
        elif x < 0.95:
            ops.append(["PFMERGE"] + rnd.sample(keys, rnd.randint(1, 3)))
        else:
            ops.append(["CONFIG", "SET", "hll-sparse-max-bytes", rnd.choice(["50", "500", "3000"])])
    ops.append(["CONFIG", "SET", "hll-sparse-max-bytes", "3000"])
    return ops


# (Redis 7.0 as the server under test cannot RESTORE Redis 8.8's DUMP payloads.)
@pytest.mark.parametrize("binary", [REDIS7, pytest.param(REDIS88, marks=pytest.mark.redis8)],
                         ids=["redis7.0", "redis8.8"])
def test_same_bytes_as_redis(rb, binary, tmp_path_factory, restore_config):
    restore_config("hll-sparse-max-bytes")
    peer = start_peer(binary, tmp_path_factory)
    try:
        pc = peer.client()
        for op in _workload(7):
            assert rb.execute_command(*op) == pc.execute_command(*op), op
            for k in ("p0", "p1", "p2"):
                assert rb.get(k) == pc.get(k), (op, k)
        # A value made by Redis counts the same here, by GET/SET and by DUMP/RESTORE.
        for k in ("p0", "p1", "p2"):
            pc.setrange(k, 15, b"\x80")  # invalidate the cache so the estimate is computed
            rb.set("copy", pc.get(k))
            rb.execute_command("RESTORE", "restored", 0, pc.dump(k), "REPLACE")
            assert rb.execute_command("PFCOUNT", "copy") == pc.execute_command("PFCOUNT", k)
            assert rb.execute_command("PFCOUNT", "restored") == pc.execute_command("PFCOUNT", k)
            assert rb.get("copy") == pc.get(k)
    finally:
        peer.stop()


@pytest.mark.hotkv_only
def test_replayed_from_the_aof(tmp_path):
    def make(r):
        r.execute_command("PFADD", "a", *[str(i) for i in range(100)])
        r.execute_command("PFADD", "b", *[str(i) for i in range(50, 3000)])
        r.execute_command("PFCOUNT", "a")  # the cached estimate is replayed too
        r.execute_command("PFMERGE", "m", "a", "b")
        r.execute_command("PFADD", "c", "x")
        r.execute_command("PFDEBUG", "TODENSE", "c")

    before, after = restarted_with_aof(tmp_path, make, lambda r: [r.get(k) for k in "abmc"],
                                       decode_responses=False)
    assert after == before and before[3] is not None and len(before[3]) == DENSE_SIZE
