"""The prompt (prefix) cache (docs/ai.md): PCACHE.CREATE/CONFIG/PUT/PUTTOKENS/LONGEST/GET/
MGET/DEL/INFO — chains of 1, 100 and 10,000 blocks, LONGEST with gaps, descendants deleted
with their block, TTL expiry on the AI clock (AI.DEBUG) capped by the parent's, the byte
budget and its eviction order (least recently used leaf first, so a prefix goes deepest
block first), the PUTTOKENS hash chain recomputed here with libxxhash, the namespace as a
key (TYPE, RENAME, COPY, EXPIRE, DUMP/RESTORE), persistence (DEBUG RELOAD, RDB restart,
AOF replay and rewrite), bad input changing nothing, large values."""
import ctypes
import os
import socket
import struct
import subprocess
import time

import pytest
import redis

from conftest import ServerProcess
from helpers_pubsub import keyevents  # noqa: F401
from helpers_types import WRONGTYPE, raw_client

pytestmark = pytest.mark.hotkv_only

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
REDIS88 = next((p for p in (os.path.join(ROOT, *up, "shared", "peers", "redis-8.8", "redis-server")
                             for up in (("..",), ("..", ".."))) if os.path.exists(p)), "")


@pytest.fixture
def rc(server, r):
    c = raw_client(server, decode_responses=False)
    c("AI.DEBUG", "CLOCK-RESET")
    yield c
    c("AI.DEBUG", "CLOCK-RESET")
    c.close()


def info(c, ns=b"ns"):
    reply = c("PCACHE.INFO", ns)
    return {reply[i].decode(): reply[i + 1] for i in range(0, len(reply), 2)}


def put_chain(c, keys, value=lambda i: b"v%d" % i, ns=b"ns", parent=None, *opts):
    """PUTs keys as one chain (each the parent of the next), pipelined."""
    p = c.client.pipeline(transaction=False)
    for i, k in enumerate(keys):
        args = ["PCACHE.PUT", ns, k, value(i)]
        prev = keys[i - 1] if i > 0 else parent
        if prev is not None:
            args += ["PARENT", prev]
        p.execute_command(*args, *opts)
    assert all(x == b"OK" for x in p.execute())


def chain(prefix, n):
    return [b"%s%05d" % (prefix, i) for i in range(n)]   # fixed width: 6 bytes


# -------------------------------------------------------------------- XXH3-128 reference

class _Hash128(ctypes.Structure):
    _fields_ = [("low64", ctypes.c_uint64), ("high64", ctypes.c_uint64)]


_xxh = ctypes.CDLL("libxxhash.so.0")
_xxh.XXH3_128bits.restype = _Hash128
_xxh.XXH3_128bits.argtypes = [ctypes.c_char_p, ctypes.c_size_t]


def block_keys(tokens, n, parent=b""):
    """The documented hash chain: key(i) = hex(XXH3-128(key(i-1) || tokens of block i as
    little-endian u32)), 32 lower-case hex digits (high 64 bits first); key(0) = PARENT."""
    keys, prev = [], parent
    for i in range(0, len(tokens), n):
        data = prev + struct.pack("<%dI" % n, *tokens[i:i + n])
        h = _xxh.XXH3_128bits(data, len(data))
        prev = b"%016x%016x" % (h.high64, h.low64)
        keys.append(prev)
    return keys


# ---------------------------------------------------------------------- namespace as a key

def test_namespace_is_a_key_of_its_own_type(rc):
    assert rc("PCACHE.CREATE", "ns") == b"OK"
    assert rc("TYPE", "ns") == b"pcache"
    assert rc("OBJECT", "ENCODING", "ns") == b"raw"
    assert rc("MEMORY", "USAGE", "ns") > 0
    rc("SET", "s", "x")
    assert rc("SCAN", 0, "TYPE", "pcache")[1] == [b"ns"]
    assert info(rc) == {"blocks": 0, "bytes": 0, "budget": 0, "ttl": 0, "hits": 0,
                        "misses": 0, "evictions": 0, "expirations": 0,
                        "memory": info(rc)["memory"]}
    assert rc.err("PCACHE.CREATE", "ns") == "ERR key already exists"
    assert rc.err("PCACHE.CREATE", "s") == "ERR key already exists"
    assert rc("PCACHE.CREATE", "ns2", "BUDGET", 1000, "TTL", 60) == b"OK"
    assert info(rc, "ns2")["budget"] == 1000 and info(rc, "ns2")["ttl"] == 60
    # Writes and INFO need the namespace; reads answer a missing one as empty.
    assert rc.err("PCACHE.PUT", "nope", "k", "v") == "ERR no such namespace"
    assert rc.err("PCACHE.PUTTOKENS", "nope", "TOKENS", b"\0" * 4, "BLOCK", 1, "v") == \
        "ERR no such namespace"
    assert rc.err("PCACHE.INFO", "nope") == "ERR no such namespace"
    assert rc.err("PCACHE.CONFIG", "nope", "BUDGET", 1) == "ERR no such namespace"
    assert rc("PCACHE.LONGEST", "nope", "k") == 0
    assert rc("PCACHE.GET", "nope", "k") is None
    assert rc("PCACHE.MGET", "nope", "k", "j") == [None, None]
    assert rc("PCACHE.DEL", "nope", "k") == 0
    assert rc("EXISTS", "nope") == 0
    for cmd in (("PCACHE.PUT", "s", "k", "v"), ("PCACHE.LONGEST", "s", "k"),
                ("PCACHE.GET", "s", "k"), ("PCACHE.INFO", "s"), ("PCACHE.DEL", "s", "k"),
                ("PCACHE.MGET", "s", "k"), ("PCACHE.LONGESTBLOB", "s", 1, "k"),
                ("PCACHE.CONFIG", "s", "TTL", 1),
                ("PCACHE.PUTTOKENS", "s", "TOKENS", b"\0" * 4, "BLOCK", 1, "v")):
        assert rc.err(*cmd) == WRONGTYPE


def test_rename_copy_expire_del(rc):
    rc("PCACHE.CREATE", "ns")
    put_chain(rc, [b"a", b"b"])
    assert rc("RENAME", "ns", "ns2") == b"OK"
    assert rc("PCACHE.LONGEST", "ns2", "a", "b") == 2
    assert rc("COPY", "ns2", "ns3") == 1
    rc("PCACHE.DEL", "ns3", "b")
    assert rc("PCACHE.LONGEST", "ns2", "a", "b") == 2
    assert rc("PCACHE.LONGEST", "ns3", "a", "b") == 1
    assert rc("PEXPIRE", "ns2", 30) == 1
    for _ in range(200):
        if rc("EXISTS", "ns2") == 0:
            break
        time.sleep(0.01)
    assert rc("EXISTS", "ns2") == 0
    assert rc("DEL", "ns3") == 1 and rc("DBSIZE") == 0


def test_keyspace_notifications(keyevents):
    assert keyevents("PCACHE.CREATE", "ns") == [("pcache.create", "ns")]
    assert keyevents("PCACHE.PUT", "ns", "a", "A") == [("pcache.put", "ns")]
    assert keyevents("PCACHE.PUTTOKENS", "ns", "TOKENS", b"\1\0\0\0", "BLOCK", 1, "v") == \
        [("pcache.put", "ns")]
    assert keyevents("PCACHE.LONGEST", "ns", "a") == []
    assert keyevents("PCACHE.GET", "ns", "a") == []
    assert keyevents("PCACHE.CONFIG", "ns", "BUDGET", 100) == [("pcache.config", "ns")]
    assert keyevents("PCACHE.DEL", "ns", "a") == [("pcache.del", "ns")]
    assert keyevents("PCACHE.DEL", "ns", "a") == []
    assert keyevents("DEL", "ns") == [("del", "ns")]


# ---------------------------------------------------------------------------- chains

@pytest.mark.parametrize("n", [1, 100, 10000])
def test_chains(rc, n):
    rc("PCACHE.CREATE", "ns")
    keys = chain(b"k", n)
    put_chain(rc, keys)
    assert rc("PCACHE.LONGEST", "ns", *keys) == n
    assert rc("PCACHE.LONGEST", "ns", *keys, b"absent") == n
    assert rc("PCACHE.LONGEST", "ns", *keys[:n // 2 + 1]) == n // 2 + 1
    assert rc("PCACHE.LONGESTBLOB", "ns", 6, b"".join(keys)) == n
    assert rc("PCACHE.LONGESTBLOB", "ns", 6, b"".join(keys) + b"absent") == n
    assert rc("PCACHE.GET", "ns", keys[-1]) == b"v%d" % (n - 1)
    assert rc("PCACHE.MGET", "ns", keys[0], b"absent", keys[-1]) == [b"v0", None,
                                                                      b"v%d" % (n - 1)]
    i = info(rc)
    assert i["blocks"] == n
    assert i["bytes"] == sum(len(k) + len(b"v%d" % j) for j, k in enumerate(keys))
    assert i["hits"] == 4 * n + (n // 2 + 1) + 1 + 2
    assert i["misses"] == 3   # the two LONGEST's "absent", MGET's
    # Deleting the root deletes the whole chain.
    assert rc("PCACHE.DEL", "ns", keys[0]) == n
    assert rc("PCACHE.LONGEST", "ns", *keys) == 0
    assert info(rc)["blocks"] == 0 and info(rc)["bytes"] == 0


def test_longest_with_gaps(rc):
    rc("PCACHE.CREATE", "ns")
    keys = chain(b"k", 10)
    put_chain(rc, keys)
    # Presence, in order, from the first key: the first gap ends the count.
    assert rc("PCACHE.LONGEST", "ns", b"x", *keys) == 0
    assert rc("PCACHE.LONGEST", "ns", keys[0], keys[1], b"x", keys[3]) == 2
    assert rc("PCACHE.LONGESTBLOB", "ns", 6, keys[0] + keys[1] + b"xxxxxx" + keys[3]) == 2
    # Not a chain in that order: presence is what counts.
    assert rc("PCACHE.LONGEST", "ns", keys[3], keys[0], keys[9], keys[2]) == 4
    assert rc("PCACHE.DEL", "ns", keys[5]) == 5          # 5..9 go with it
    assert rc("PCACHE.LONGEST", "ns", *keys) == 5
    assert rc("PCACHE.MGET", "ns", *keys[4:7]) == [b"v4", None, None]
    put_chain(rc, [keys[5]], parent=keys[4])
    assert rc("PCACHE.LONGEST", "ns", *keys) == 6
    assert rc("PCACHE.DEL", "ns", keys[7], b"x") == 0


def test_longest_compares_every_byte_of_keys_of_every_width(rc):
    # LONGEST compares a chain's next key with the previous block's children inline for
    # 16-32 bytes (two overlapping halves) and with memcmp otherwise: a key that differs
    # from the stored one in any single byte is absent, whatever its width.
    for width in (1, 8, 15, 16, 17, 24, 31, 32, 33, 64):
        ns = b"ns%d" % width
        rc("PCACHE.CREATE", ns)
        keys = [bytes(65 + j % 26 for j in range(width - 1)) + bytes([48 + i]) for i in range(3)]
        put_chain(rc, keys, ns=ns)
        assert rc("PCACHE.LONGEST", ns, *keys) == 3
        for pos in range(width):
            other = bytearray(keys[1])
            other[pos] ^= 0x20
            assert rc("PCACHE.LONGEST", ns, keys[0], bytes(other), keys[2]) == 1, (width, pos)
        assert rc("PCACHE.LONGEST", ns, keys[0], keys[1][:-1], keys[2]) == 1
        assert rc("PCACHE.LONGEST", ns, keys[0], keys[1] + b"x", keys[2]) == 1


def test_del_removes_descendants_of_a_tree(rc):
    rc("PCACHE.CREATE", "ns")
    # root -> a -> a1, a2 ; root -> b -> b1 -> b2
    put_chain(rc, [b"root", b"a", b"a1"])
    put_chain(rc, [b"a2"], parent=b"a")
    put_chain(rc, [b"b", b"b1", b"b2"], parent=b"root")
    assert info(rc)["blocks"] == 7
    assert rc("PCACHE.DEL", "ns", b"a") == 3
    assert rc("PCACHE.MGET", "ns", b"a", b"a1", b"a2", b"b2") == [None, None, None, b"v2"]
    assert rc("PCACHE.DEL", "ns", b"b1", b"b2", b"root") == 4   # b1+b2, then root+b
    assert info(rc)["blocks"] == 0


def test_put_replaces_value_keeps_children_parent_fixed(rc):
    rc("PCACHE.CREATE", "ns")
    put_chain(rc, [b"a", b"b", b"c"])
    assert rc("PCACHE.PUT", "ns", b"b", b"new") == b"OK"         # keeps its parent a
    assert rc("PCACHE.PUT", "ns", b"b", b"newer", "PARENT", b"a") == b"OK"
    assert rc("PCACHE.LONGEST", "ns", b"a", b"b", b"c") == 3
    assert rc("PCACHE.GET", "ns", b"b") == b"newer"
    assert rc.err("PCACHE.PUT", "ns", b"b", b"x", "PARENT", b"c") == \
        "ERR block already exists under another parent"
    assert rc.err("PCACHE.PUT", "ns", b"a", b"x", "PARENT", b"c") == \
        "ERR block already exists under another parent"
    assert rc("PCACHE.GET", "ns", b"b") == b"newer"
    assert info(rc)["bytes"] == 3 + len(b"v0newerv2")


# ---------------------------------------------------------------------------------- TTL

def test_ttl_expiry_capped_by_parent(rc):
    rc("PCACHE.CREATE", "ns", "TTL", 100)                     # default block TTL 100 s
    rc("PCACHE.PUT", "ns", "a", "A", "TTL", 10)
    rc("PCACHE.PUT", "ns", "b", "B", "PARENT", "a", "TTL", 1000)  # capped to a's 10 s
    rc("PCACHE.PUT", "ns", "c", "C", "PARENT", "b")
    rc("PCACHE.PUT", "ns", "free", "F", "TTL", 0)             # never expires
    rc("PCACHE.PUT", "ns", "dflt", "D")                       # 100 s
    rc("AI.DEBUG", "CLOCK-ADVANCE", 9000)
    assert rc("PCACHE.LONGEST", "ns", "a", "b", "c") == 3
    rc("AI.DEBUG", "CLOCK-ADVANCE", 1000)
    # Expired blocks are absent everywhere.
    assert rc("PCACHE.LONGEST", "ns", "a", "b", "c") == 0
    assert rc("PCACHE.MGET", "ns", "a", "b", "c", "free") == [None, None, None, b"F"]
    assert info(rc)["blocks"] == 5 and info(rc)["expirations"] == 0
    assert rc.err("PCACHE.PUT", "ns", "d", "x", "PARENT", "c") == "ERR parent block not found"
    i = info(rc)
    assert i["blocks"] == 2 and i["expirations"] == 3        # writes remove expired blocks
    rc("PCACHE.PUT", "ns", "e", "E")
    assert info(rc)["blocks"] == 3
    rc("AI.DEBUG", "CLOCK-ADVANCE", 90000)   # dflt's 100 s are over, e's are not
    assert rc("PCACHE.MGET", "ns", "dflt", "free", "e") == [None, b"F", b"E"]
    # An expired block can be put again, as new.
    rc("PCACHE.PUT", "ns", "dflt", "D2", "TTL", 5)
    assert rc("PCACHE.GET", "ns", "dflt") == b"D2"
    assert rc("PCACHE.DEL", "ns", "dflt") == 1


def test_real_short_ttl(rc):
    rc("PCACHE.CREATE", "ns")
    rc("PCACHE.PUT", "ns", "a", "A", "TTL", 1)
    assert rc("PCACHE.GET", "ns", "a") == b"A"
    deadline = time.time() + 3
    while rc("PCACHE.GET", "ns", "a") is not None and time.time() < deadline:
        time.sleep(0.05)
    assert rc("PCACHE.GET", "ns", "a") is None


# ------------------------------------------------------------------------------- budget

def test_budget_evicts_least_recently_used_leaves_deepest_first(rc):
    # Blocks of exactly 100 bytes (2-byte key + 98-byte value), budget 1000: ten blocks.
    rc("PCACHE.CREATE", "ns", "BUDGET", 1000)
    val = lambda i: b"x" * 98  # noqa: E731
    a, b, c = [b"a%d" % i for i in range(3)], [b"b%d" % i for i in range(3)], \
        [b"c%d" % i for i in range(3)]
    put_chain(rc, a, val)
    put_chain(rc, b, val)
    put_chain(rc, c, val)
    assert rc("PCACHE.LONGEST", "ns", *a) == 3        # a is now the most recent prefix
    put_chain(rc, [b"d0"], val)                         # 1000 bytes: nothing evicted
    assert info(rc)["evictions"] == 0
    # d1 needs 100 bytes: the least recently used leaf is b2 (b was put before c); with
    # b2 gone b1 is the oldest leaf, then b0: the prefix goes deepest block first.
    put_chain(rc, [b"d1"], val, parent=b"d0")
    put_chain(rc, [b"d2"], val, parent=b"d1")
    put_chain(rc, [b"d3"], val, parent=b"d2")
    assert rc("PCACHE.MGET", "ns", *b) == [None, None, None]   # misses use nothing
    assert info(rc)["evictions"] == 3
    # Using c after a makes a the older prefix: the next two blocks evict a2, then a1.
    assert rc("PCACHE.LONGEST", "ns", *a) == 3
    assert rc("PCACHE.LONGEST", "ns", *c) == 3
    put_chain(rc, [b"d4", b"d5"], val, parent=b"d3")
    assert rc("PCACHE.MGET", "ns", *a) == [b"x" * 98, None, None]
    i = info(rc)
    assert i["bytes"] == 1000 and i["blocks"] == 10 and i["evictions"] == 5
    # The chain a write links to is never evicted by it: d0..d5 + a 500-byte block does
    # not fit beside its 600 ancestors, the write fails and changes nothing.
    before = rc("DEBUG", "DIGEST-VALUE", "ns")
    assert rc.err("PCACHE.PUT", "ns", b"d6", b"y" * 498, "PARENT", b"d5").startswith(
        "ERR the blocks and their ancestors need 1100 bytes, beyond the namespace budget")
    assert rc.err("PCACHE.PUT", "ns", b"zz", b"y" * 999) == \
        "ERR the blocks and their ancestors need 1001 bytes, beyond the namespace budget of 1000"
    assert rc("DEBUG", "DIGEST-VALUE", "ns") == before
    # A lower budget evicts at once, oldest leaf first: c2, c1, c0, then d5 (a0 was read
    # by the MGET above, after d5 was put).
    assert rc("PCACHE.CONFIG", "ns", "BUDGET", 600) == b"OK"
    i = info(rc)
    assert i["budget"] == 600 and i["bytes"] == 600 and i["evictions"] == 9
    assert rc("PCACHE.LONGEST", "ns", *[b"d%d" % i for i in range(6)]) == 5
    assert rc("PCACHE.MGET", "ns", b"a0", *c) == [b"x" * 98, None, None, None]
    assert rc("PCACHE.CONFIG", "ns", "BUDGET", 0, "TTL", 7) == b"OK"
    assert info(rc)["budget"] == 0 and info(rc)["ttl"] == 7


def test_budget_with_a_tree(rc):
    # root (100) with children x and y (100 each), x has x1; budget 400.
    rc("PCACHE.CREATE", "ns", "BUDGET", 400)
    v = lambda i: b"." * 98  # noqa: E731
    put_chain(rc, [b"rt", b"x0", b"x1"], v)
    put_chain(rc, [b"y0"], v, parent=b"rt")
    rc("PCACHE.GET", "ns", b"x1")                # x1 recent, y0 the oldest leaf
    put_chain(rc, [b"z0"], v, parent=b"rt")      # evicts y0 only
    assert rc("PCACHE.MGET", "ns", b"rt", b"x0", b"x1", b"y0", b"z0") == \
        [b"." * 98] * 3 + [None, b"." * 98]


# ----------------------------------------------------------------------------- PUTTOKENS

def test_puttokens_hash_chain(rc):
    rc("PCACHE.CREATE", "ns")
    tokens = list(range(1000, 1012)) + [0xFFFFFFFF, 0, 7, 7]
    blob = struct.pack("<%dI" % len(tokens), *tokens)
    keys = rc("PCACHE.PUTTOKENS", "ns", "TOKENS", blob, "BLOCK", 4, "v0", "v1", "v2", "v3")
    assert keys == block_keys(tokens, 4)
    assert all(len(k) == 32 for k in keys)
    assert rc("PCACHE.LONGEST", "ns", *keys) == 4
    assert rc("PCACHE.LONGESTBLOB", "ns", 32, b"".join(keys)) == 4
    assert rc("PCACHE.MGET", "ns", *keys) == [b"v0", b"v1", b"v2", b"v3"]
    # Continuing a chain: PARENT is the previous block's key.
    more = [5, 6, 7, 8]
    k2 = rc("PCACHE.PUTTOKENS", "ns", "PARENT", keys[-1], "TTL", 60, "TOKENS",
            struct.pack("<4I", *more), "BLOCK", 4, "v4")
    assert k2 == block_keys(tokens + more, 4)[-1:]
    assert rc("PCACHE.LONGEST", "ns", *block_keys(tokens + more, 4)) == 5
    # The same prefix with another continuation shares the first blocks.
    other = tokens[:8] + [1, 2, 3, 4]
    k3 = rc("PCACHE.PUTTOKENS", "ns", "TOKENS", struct.pack("<12I", *other), "BLOCK", 4,
            "v0", "v1", "w2")
    assert k3[:2] == keys[:2] and k3[2] != keys[2]
    assert info(rc)["blocks"] == 6
    # DEL of the second block takes both continuations.
    assert rc("PCACHE.DEL", "ns", keys[1]) == 5
    # Errors change nothing.
    before = rc("DEBUG", "DIGEST-VALUE", "ns")
    for args, err in [
        (("TOKENS", blob[:-1], "BLOCK", 4, "a", "b", "c", "d"), "ERR TOKENS must hold"),
        (("TOKENS", blob, "BLOCK", 4, "a", "b", "c"), "ERR TOKENS must hold"),
        (("TOKENS", blob, "BLOCK", 0, "a"), "ERR BLOCK must be between 1 and"),
        (("PARENT", "nope", "TOKENS", blob, "BLOCK", 16, "a"), "ERR parent block not found"),
        (("TTL", -1, "TOKENS", blob, "BLOCK", 16, "a"), "ERR TTL must be between"),
        (("TOKENS", blob, "BLOCKS", 16, "a"), "ERR syntax error"),
        (("FOO", 1, "TOKENS", blob, "BLOCK", 16, "a"), "ERR syntax error"),
    ]:
        assert rc.err("PCACHE.PUTTOKENS", "ns", *args).startswith(err), args
    assert rc("DEBUG", "DIGEST-VALUE", "ns") == before


# ---------------------------------------------------------------------------- bad input

def test_bad_input_changes_nothing(rc):
    rc("PCACHE.CREATE", "ns", "BUDGET", 1000)
    put_chain(rc, [b"a", b"b"])
    before = (rc("DEBUG", "DIGEST-VALUE", "ns"), info(rc)["blocks"], info(rc)["budget"])
    for args, err in [
        (("PCACHE.PUT", "ns", "c", "v", "PARENT", "missing"), "ERR parent block not found"),
        (("PCACHE.PUT", "ns", "c", "v", "PARENT", "c"), "ERR parent block not found"),
        (("PCACHE.PUT", "ns", "a", "v", "PARENT", "a"), "ERR a block cannot be its own parent"),
        (("PCACHE.PUT", "ns", "c", "v", "TTL", -1), "ERR TTL must be between 0 and 315360000"),
        (("PCACHE.PUT", "ns", "c", "v", "TTL", 315360001), "ERR TTL must be between"),
        (("PCACHE.PUT", "ns", "c", "v", "TTL", "x"), "ERR TTL must be between"),
        (("PCACHE.PUT", "ns", "c", "v", "TTL", 1, "PXAT", 5), "ERR TTL and PXAT"),
        (("PCACHE.PUT", "ns", "c", "v", "TTL"), "ERR syntax error"),
        (("PCACHE.PUT", "ns", "c", "v", "NX", 1), "ERR syntax error"),
        (("PCACHE.PUT", "ns", "", "v"), "ERR block key must be 1 to 1024 bytes"),
        (("PCACHE.PUT", "ns", "k" * 1025, "v"), "ERR block key must be 1 to 1024 bytes"),
        (("PCACHE.PUT", "ns", "c", "v" * 1000), "ERR the blocks and their ancestors need"),
        (("PCACHE.PUT", "ns"), "ERR wrong number of arguments for 'pcache.put' command"),
        (("PCACHE.CREATE", "ns2", "BUDGET", -1), "ERR BUDGET must be between"),
        (("PCACHE.CREATE", "ns2", "TTL"), "ERR syntax error"),
        (("PCACHE.CONFIG", "ns", "BUDGET", "x"), "ERR BUDGET must be between"),
        (("PCACHE.CONFIG", "ns", "BUDGET", 10, "TTL", -5), "ERR TTL must be between"),
        (("PCACHE.LONGEST", "ns"), "ERR wrong number of arguments"),
        (("PCACHE.GET", "ns", "a", "b"), "ERR wrong number of arguments"),
        (("PCACHE.LONGESTBLOB", "ns", 0, "ab"), "ERR width must be between 1 and 1024"),
        (("PCACHE.LONGESTBLOB", "ns", 2, "abc"), "ERR blob length must be a positive multiple"),
        (("PCACHE.LONGESTBLOB", "ns", 2, ""), "ERR blob length must be a positive multiple"),
    ]:
        assert rc.err(*args).startswith(err), args
    assert rc("EXISTS", "ns2") == 0
    assert (rc("DEBUG", "DIGEST-VALUE", "ns"), info(rc)["blocks"], info(rc)["budget"]) == before


def test_large_values(rc):
    rc("PCACHE.CREATE", "ns")
    big = os.urandom(1 << 16) * 512          # 32 MiB
    assert rc("PCACHE.PUT", "ns", "big", big) == b"OK"
    assert rc("PCACHE.GET", "ns", "big") == big
    assert info(rc)["bytes"] == len(big) + 3
    assert rc("PCACHE.PUT", "ns", "empty", b"", "PARENT", "big") == b"OK"
    assert rc("PCACHE.MGET", "ns", "empty", "big")[0] == b""


def test_inside_multi_exec(rc):
    rc("PCACHE.CREATE", "ns")
    p = rc.client.pipeline(transaction=True)
    p.execute_command("PCACHE.PUT", "ns", "a", "A")
    p.execute_command("PCACHE.PUT", "ns", "b", "B", "PARENT", "a")
    p.execute_command("PCACHE.LONGEST", "ns", "a", "b")
    p.execute_command("PCACHE.MGET", "ns", "a", "b")
    p.execute_command("PCACHE.DEL", "ns", "a")
    assert p.execute() == [b"OK", b"OK", 2, [b"A", b"B"], 2]


# -------------------------------------------------------------------------- persistence

def fill(c):
    c("PCACHE.CREATE", "ns", "BUDGET", 10000, "TTL", 3600)
    tokens = list(range(64))
    keys = c("PCACHE.PUTTOKENS", "ns", "TOKENS", struct.pack("<64I", *tokens), "BLOCK", 16,
             b"\x00\xffa", b"b" * 100, b"c", b"d")
    c("PCACHE.PUT", "ns", "side", "S", "PARENT", keys[1], "TTL", 0)
    c("PCACHE.PUT", "ns", "root2", "R", "TTL", 0)
    c("PCACHE.DEL", "ns", keys[3])
    c("PCACHE.CREATE", "other")
    c("PCACHE.PUT", "other", "x", os.urandom(1000))
    return keys


def state(c, keys):
    i = info(c)
    return {"info": {k: i[k] for k in ("blocks", "bytes", "budget", "ttl")},
            "longest": c("PCACHE.LONGEST", "ns", *keys),
            "values": c("PCACHE.MGET", "ns", *keys, "side", "root2"),
            "other": c("PCACHE.GET", "other", "x"),
            "type": c("TYPE", "ns"),
            "budget_other": info(c, "other")["budget"]}


def test_dump_restore(rc, tmp_path):
    keys = fill(rc)
    payload = rc.client.dump("ns")
    assert payload[0] == 7   # RDB_TYPE_MODULE_2
    assert rc("RESTORE", "ns2", 0, payload) == b"OK"
    assert rc("DEBUG", "DIGEST-VALUE", "ns") == rc("DEBUG", "DIGEST-VALUE", "ns2")
    assert rc("PCACHE.LONGEST", "ns2", *keys) == 3
    # DEL in the copy leaves the original alone; its descendants go in the copy.
    assert rc("PCACHE.DEL", "ns2", keys[0]) == 4
    assert rc("PCACHE.LONGEST", "ns", *keys) == 3
    bad = bytearray(payload)
    bad[len(bad) // 2] ^= 0xFF
    assert rc.err("RESTORE", "ns3", 0, bytes(bad)).startswith("ERR")


@pytest.mark.skipif(not os.path.exists(REDIS88), reason="no Redis 8.8 peer")
def test_redis_refuses_the_payload_cleanly(rc, tmp_path):
    fill(rc)
    payload = rc.client.dump("ns")
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
            peer.restore("ns", 0, payload)
        assert peer.exists("ns") == 0
        assert peer.ping()
    finally:
        proc.terminate()
        proc.wait(10)


def restart(srv, tmp_path, *args):
    srv.stop()
    return ServerProcess(["--dir", str(tmp_path), *args], tmp_path=tmp_path).start()


def bclient(srv):
    return raw_client(srv, decode_responses=False)


def test_debug_reload_and_rdb_restart(tmp_path):
    srv = ServerProcess(["--dir", str(tmp_path)], tmp_path=tmp_path).start()
    c = bclient(srv)
    keys = fill(c)
    want = state(c, keys)
    assert want["longest"] == 3 and want["info"]["blocks"] == 5
    assert c("DEBUG", "RELOAD") == b"OK"
    assert state(c, keys) == want
    assert c("SAVE") == b"OK"
    c.close()
    srv = restart(srv, tmp_path)
    c = bclient(srv)
    assert state(c, keys) == want
    # The tree survived: deleting the first block takes its descendants.
    assert c("PCACHE.DEL", "ns", keys[0]) == 4
    c.close()
    srv.stop()


@pytest.mark.parametrize("preamble", ["no", "yes"])
def test_aof_replay_and_rewrite(tmp_path, preamble):
    args = ["--appendonly", "yes", "--aof-use-rdb-preamble", preamble]
    srv = ServerProcess(["--dir", str(tmp_path), *args], tmp_path=tmp_path).start()
    c = bclient(srv)
    keys = fill(c)
    # Evictions are logged as PCACHE.DEL before the PUT that made them.
    c("PCACHE.CONFIG", "ns", "BUDGET", 300)
    c("PCACHE.PUT", "ns", "late", b"L" * 100)
    want = state(c, keys)
    assert info(c)["evictions"] > 0
    c.close()
    srv = restart(srv, tmp_path, *args)
    c = bclient(srv)
    assert state(c, keys) == want
    assert c("BGREWRITEAOF").startswith(b"Background append only file rewriting")
    for _ in range(500):
        p = srv.client().info("persistence")
        if p["aof_rewrite_in_progress"] == 0 and p["aof_rewrites"] >= 1:
            break
        time.sleep(0.01)
    c.close()
    srv = restart(srv, tmp_path, *args)
    c = bclient(srv)
    assert state(c, keys) == want
    c.close()
    srv.stop()


# -------------------------------------------------------------------------- concurrency

def test_concurrent_chains_readers_and_a_snapshot(tmp_path):
    """Writers each building chains, readers running LONGEST/MGET, one deleting, a BGSAVE
    meanwhile, on a small budget (evictions while others read); afterwards the counters
    add up and the snapshot loads."""
    from vector_helpers import run_threads
    srv = ServerProcess(["--dir", str(tmp_path), "--threads", "4", "--appendonly", "yes"],
                        tmp_path=tmp_path).start()
    try:
        c = bclient(srv)
        c("PCACHE.CREATE", "ns", "BUDGET", 60000)

        def writer(w):
            def run():
                cw = bclient(srv)
                for j in range(20):
                    keys = [b"w%d-%02d-%02d" % (w, j, i) for i in range(20)]
                    # Pipelined, not atomic: another client's write may evict a block of
                    # this chain before its child arrives (readers make older blocks
                    # recent), and that child is then refused.
                    p = cw.client.pipeline(transaction=False)
                    for i, k in enumerate(keys):
                        parent = ["PARENT", keys[i - 1]] if i else []
                        p.execute_command("PCACHE.PUT", "ns", k, b"x" * 200, *parent)
                    for r in p.execute(raise_on_error=False):
                        assert r == b"OK" or "parent block not found" in str(r), r
                    n = cw("PCACHE.LONGEST", "ns", *keys)
                    assert 0 <= n <= 20
                cw.close()
            return run

        def reader():
            cr = bclient(srv)
            for j in range(200):
                keys = [b"w%d-%02d-%02d" % (j % 4, j % 20, i) for i in range(20)]
                n = cr("PCACHE.LONGEST", "ns", *keys)
                vals = cr("PCACHE.MGET", "ns", *keys)
                assert 0 <= n <= 20 and all(v is None or v == b"x" * 200 for v in vals)
            cr.close()

        def deleter():
            cd = bclient(srv)
            for j in range(100):
                cd("PCACHE.DEL", "ns", b"w1-%02d-05" % (j % 20))
            cd.close()

        def saver():
            cs = bclient(srv)
            assert cs("BGSAVE") == b"Background saving started"
            cs.close()

        run_threads([writer(w) for w in range(4)] + [reader, reader, deleter, saver])
        for _ in range(1000):
            if srv.client().info("persistence")["rdb_bgsave_in_progress"] == 0:
                break
            time.sleep(0.01)
        i = info(c)
        assert i["bytes"] <= 60000 and i["evictions"] > 0
        assert i["blocks"] * 208 == i["bytes"]   # every block: 8-byte key + 200-byte value
        want = (i["blocks"], i["bytes"], c("DEBUG", "DIGEST-VALUE", "ns"))
        assert c("DEBUG", "RELOAD") == b"OK"
        i = info(c)
        assert (i["blocks"], i["bytes"], c("DEBUG", "DIGEST-VALUE", "ns")) == want
        c.close()
        # The AOF replays to the same blocks (recency aside).
        srv = restart(srv, tmp_path, "--threads", "4", "--appendonly", "yes")
        c = bclient(srv)
        i = info(c)
        assert (i["blocks"], i["bytes"]) == want[:2]
        c.close()
    finally:
        srv.stop()


# ------------------------------------------------- large replies sent from the stored bytes

def _raw_socket(server, rcvbuf=None):
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    if rcvbuf:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, rcvbuf)
    s.connect(("127.0.0.1", server.port))
    s.settimeout(30)
    return s


def _encode(*args):
    out = [b"*%d\r\n" % len(args)]
    for a in args:
        a = a if isinstance(a, bytes) else str(a).encode()
        out += [b"$%d\r\n" % len(a), a, b"\r\n"]
    return b"".join(out)


def _read_exact(s, buf, n):
    while len(buf) < n:
        chunk = s.recv(1 << 20)
        assert chunk, "connection closed"
        buf += chunk
    out = bytes(buf[:n])
    del buf[:n]
    return out


def _read_line(s, buf):
    while b"\r\n" not in buf:
        chunk = s.recv(1 << 20)
        assert chunk, "connection closed"
        buf += chunk
    i = buf.index(b"\r\n")
    return _read_exact(s, buf, i + 2)[:-2]


def _read_reply(s, buf):
    line = _read_line(s, buf)
    if line[:1] == b"$":
        n = int(line[1:])
        return None if n < 0 else _read_exact(s, buf, n + 2)[:-2]
    if line[:1] == b"*":
        return [_read_reply(s, buf) for _ in range(int(line[1:]))]
    return line


@pytest.mark.parametrize("backend", ["auto", "epoll"])
def test_large_reply_exact_while_deleted_and_overwritten(server, rc, backend, tmp_path):
    """Replies of large values queued on a connection that does not read (so they wait
    in the server) stay byte-exact while another connection overwrites the block, deletes
    it and drops the namespace; small values and CLIENT REPLY SKIP/OFF around them too.
    Sent from the stored bytes (docs/ai.md, Large values) by both I/O backends."""
    if backend == "epoll":
        server = ServerProcess(["--dir", str(tmp_path), "--io-backend", "epoll"],
                               tmp_path=tmp_path).start()
        rc = bclient(server)
    try:
        _check_large_replies(server, rc)
    finally:
        if backend == "epoll":
            rc.close()
            server.stop()


def _check_large_replies(server, rc):
    v1 = os.urandom(1 << 16) * 48 + os.urandom(12345)  # ~3 MiB, not a round size
    v2 = os.urandom(len(v1))
    small = b"s" * 100
    rc("PCACHE.CREATE", "ns")
    assert rc("PCACHE.PUT", "ns", "big", v1) == b"OK"
    assert rc("PCACHE.PUT", "ns", "small", small, "PARENT", "big") == b"OK"
    reader = _raw_socket(server, rcvbuf=16384)
    try:
        reader.sendall(
            _encode("PCACHE.GET", "ns", "big")
            + _encode("PCACHE.MGET", "ns", "small", "big", "nope", "big")
            + _encode("CLIENT", "REPLY", "SKIP") + _encode("PCACHE.GET", "ns", "big")
            + _encode("MULTI") + _encode("PCACHE.GET", "ns", "big") + _encode("PING")
            + _encode("PCACHE.MGET", "ns", "big", "small") + _encode("EXEC")
            + _encode("PCACHE.GET", "ns", "big") + _encode("PING"))
        time.sleep(0.2)  # let the server run them (correctness does not depend on it)
        # Meanwhile: replaced, deleted, namespace dropped and recreated.
        assert rc("PCACHE.PUT", "ns", "big", v2) == b"OK"
        assert rc("PCACHE.DEL", "ns", "big") == 2
        assert rc("DEL", "ns") == 1
        rc("PCACHE.CREATE", "ns")
        assert rc("PCACHE.PUT", "ns", "big", v2) == b"OK"
        buf = bytearray()
        assert _read_reply(reader, buf) == v1
        assert _read_reply(reader, buf) == [small, v1, None, v1]
        # REPLY SKIP silenced the next GET (its reply dropped before it was sent).
        assert _read_reply(reader, buf) == b"+OK"
        assert _read_reply(reader, buf) == b"+QUEUED"
        assert _read_reply(reader, buf) == b"+QUEUED"
        assert _read_reply(reader, buf) == b"+QUEUED"
        assert _read_reply(reader, buf) == [v1, b"+PONG", [v1, small]]
        assert _read_reply(reader, buf) == v1
        assert _read_reply(reader, buf) == b"+PONG"
        assert buf == b""
        # The new value is what a fresh GET sees; CLIENT REPLY OFF sends nothing.
        reader.sendall(_encode("PCACHE.GET", "ns", "big") + _encode("CLIENT", "REPLY", "OFF")
                       + _encode("PCACHE.GET", "ns", "big") + _encode("CLIENT", "REPLY", "ON")
                       + _encode("PING"))
        assert _read_reply(reader, buf) == v2
        assert _read_reply(reader, buf) == b"+OK"
        assert _read_reply(reader, buf) == b"+PONG"
    finally:
        reader.close()
