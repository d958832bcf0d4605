"""Streams between HotKV and real Redis peers (issue 15 / 22): DUMP payloads and dump.rdb
files both ways with Debian's Redis 7.0 and Redis 8.8 (skipped when absent).

The streams cover consumer groups (pending entries of several consumers, delivery counts
from XCLAIM, a consumer with nothing pending, a group never read), deleted entries (first,
middle, all), XSETID's entries-added / max-deleted-id, binary and large values, entries
with their own fields, and a stream of several nodes. Compared: XRANGE, XINFO STREAM FULL,
XINFO GROUPS, XINFO CONSUMERS and XPENDING (fields that depend on the reading time, such
as idle, and on the node layout, radix-tree-*, left out; fields only one side has left
out too: Redis 7.0 has no active-time).
"""
import os
import shutil
import subprocess

import pytest

from conftest import cmd
from helpers_dump import REDIS7, REDIS88, Peer

CHECK_RDB = "/usr/bin/redis-check-rdb"
PEERS = {"redis-7.0": REDIS7, "redis-8.8": REDIS88}
KEYS = [b"st:small", b"st:big", b"st:empty", b"st:trimmed", b"st:fresh"]
# Relative to the reading time, or the node layout (HotKV's radix-tree-nodes is blocks+1).
VOLATILE = {b"idle", b"inactive", b"radix-tree-keys", b"radix-tree-nodes"}


@pytest.fixture(params=sorted(PEERS))
def peer_binary(request):
    path = PEERS[request.param]
    if path is None or not os.path.exists(path):
        pytest.skip(f"{request.param} not present")
    return path


def make_streams(c):
    """Builds the streams of KEYS on `c` (bytes client): the same commands on any server."""
    x = lambda *a: cmd(c, *a)  # noqa: E731
    # Small: two groups, one read by two consumers, one never read, one idle consumer.
    for i in range(1, 8):
        x("XADD", "st:small", f"{i}-{i % 3}", "f", str(i), "bin", b"\x00\xff" * i)
    x("XGROUP", "CREATE", "st:small", "g1", "0")
    x("XGROUP", "CREATE", "st:small", "g2", "$")
    x("XREADGROUP", "GROUP", "g1", "alice", "COUNT", "3", "STREAMS", "st:small", ">")
    x("XREADGROUP", "GROUP", "g1", "bob", "COUNT", "2", "STREAMS", "st:small", ">")
    x("XACK", "st:small", "g1", "2-2")
    x("XGROUP", "CREATECONSUMER", "st:small", "g1", "carol")
    x("XCLAIM", "st:small", "g1", "bob", "0", "1-1", "RETRYCOUNT", "7", "TIME", "1700000000000")
    x("XDEL", "st:small", "3-0")
    # Big: several nodes, entries with their own fields, values past 64 / 4096 bytes,
    # integers and deletions in the middle.
    p = c.pipeline(transaction=False)
    for i in range(1, 1201):
        if i % 97 == 0:
            fields = {b"other": b"y" * 5000, b"n": str(i)}
        elif i % 13 == 0:
            fields = {b"a": str(-i * 1000003), b"b": b"z" * 100, b"c": b""}
        else:
            fields = {b"a": str(i), b"b": b"v%d" % i}
        p.xadd("st:big", fields, id=f"{1000 + i // 7}-{i}")
    p.execute()
    for i in range(50, 1200, 37):
        x("XDEL", "st:big", f"{1000 + i // 7}-{i}")
    x("XGROUP", "CREATE", "st:big", "readers", "0", "ENTRIESREAD", "0")
    x("XREADGROUP", "GROUP", "readers", "r1", "COUNT", "300", "STREAMS", "st:big", ">")
    x("XREADGROUP", "GROUP", "readers", "r2", "COUNT", "250", "STREAMS", "st:big", ">")
    x("XACK", "st:big", "readers", *[f"{1000 + i // 7}-{i}" for i in range(1, 300, 5)])
    x("XGROUP", "CREATE", "st:big", "late", "1100-0")
    # Empty: every entry deleted, a group with nothing pending.
    x("XADD", "st:empty", "5-1", "k", "v")
    x("XADD", "st:empty", "5-2", "k", "v")
    x("XGROUP", "CREATE", "st:empty", "g", "$")
    x("XDEL", "st:empty", "5-1", "5-2")
    # Trimmed: first entries gone (recorded first id, max deleted id), XSETID counters.
    for i in range(1, 21):
        x("XADD", "st:trimmed", f"{i}-0", "f", str(i))
    x("XTRIM", "st:trimmed", "MAXLEN", "12")
    x("XSETID", "st:trimmed", "40-0", "ENTRIESADDED", "55", "MAXDELETEDID", "30-0")
    x("XGROUP", "CREATE", "st:trimmed", "g", "0")
    x("XREADGROUP", "GROUP", "g", "c", "STREAMS", "st:trimmed", ">")
    # Fresh: MKSTREAM, no entries ever.
    x("XGROUP", "CREATE", "st:fresh", "g", "$", "MKSTREAM")


def kv(flat):
    return dict(zip(flat[0::2], flat[1::2]))


def strip(d):
    return {k: v for k, v in d.items() if k not in VOLATILE}


def snapshot(c):
    """{key: comparable views} of KEYS on `c`."""
    out = {}
    for key in KEYS:
        full = strip(kv(cmd(c, "XINFO", "STREAM", key, "FULL", "COUNT", "0")))
        groups = []
        for g in full.pop(b"groups"):
            g = strip(kv(g))
            g[b"consumers"] = [strip(kv(cn)) for cn in g[b"consumers"]]
            groups.append(g)
        full[b"groups"] = groups
        view = {
            "xrange": cmd(c, "XRANGE", key, "-", "+"),
            "full": full,
            "groups": [strip(kv(g)) for g in cmd(c, "XINFO", "GROUPS", key)],
            "consumers": {},
            "pending": {},
        }
        for g in view["groups"]:
            name = g[b"name"]
            view["consumers"][name] = [strip(kv(cn)) for cn in
                                       cmd(c, "XINFO", "CONSUMERS", key, name)]
            view["pending"][name] = (
                cmd(c, "XPENDING", key, name),
                # the extended form without its idle column
                [[e[0], e[1], e[3]] for e in
                 cmd(c, "XPENDING", key, name, "-", "+", "100000")])
        out[key] = view
    return out


def common(a, b):
    """`a` and `b` with the map fields only one of them has removed, recursively."""
    if isinstance(a, dict) and isinstance(b, dict):
        ks = a.keys() & b.keys()
        pairs = [common(a[k], b[k]) for k in ks]
        return ({k: p[0] for k, p in zip(ks, pairs)}, {k: p[1] for k, p in zip(ks, pairs)})
    if isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        pairs = [common(x, y) for x, y in zip(a, b)]
        return [p[0] for p in pairs], [p[1] for p in pairs]
    return a, b


def differences(a, b, path=""):
    """The paths where `a` and `b` differ, for a readable failure."""
    if isinstance(a, dict) and isinstance(b, dict):
        return [d for k in a.keys() | b.keys()
                for d in differences(a.get(k), b.get(k), f"{path}/{k!r}")]
    if isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        return [d for i, (x, y) in enumerate(zip(a, b)) for d in differences(x, y, f"{path}[{i}]")]
    return [] if a == b else [f"{path}: {a!r} != {b!r}"[:300]]


def as_type19(view):
    """`view` as it reads after a trip through RDB type 19 (STREAM_LISTPACKS_2, what
    HotKV and Redis 7.0 write): it has no consumer active-time, and a loader sets it to
    the seen-time (Redis 7.2+ does so too)."""
    if isinstance(view, dict):
        out = {k: as_type19(v) for k, v in view.items()}
        if b"active-time" in out and b"seen-time" in out:
            out[b"active-time"] = out[b"seen-time"]
        return out
    if isinstance(view, list):
        return [as_type19(v) for v in view]
    if isinstance(view, tuple):
        return tuple(as_type19(v) for v in view)
    return view


def assert_same(got, expected, type19=False):
    if type19:
        expected = as_type19(expected)
    got, expected = common(got, expected)
    diff = differences(got, expected)
    assert not diff, "\n".join(diff[:20])


def dump_all(c):
    return {key: cmd(c, "DUMP", key) for key in KEYS}


def restore_all(c, payloads):
    for key, payload in payloads.items():
        assert cmd(c, "RESTORE", key, "0", payload, "REPLACE") == b"OK"


def test_stream_dump_payloads_both_ways(start_server, tmp_path_factory, peer_binary):
    s = start_server()
    h = s.client(decode_responses=False)
    make_streams(h)
    expected = snapshot(h)
    peer = Peer(peer_binary, tmp_path_factory.mktemp("peer"))
    try:
        p = peer.client()
        # HotKV -> peer -> HotKV
        restore_all(p, dump_all(h))
        assert_same(snapshot(p), expected, type19=True)
        back = dump_all(p)
        h.flushall()
        restore_all(h, back)
        assert_same(snapshot(h), expected, type19=True)
        # built on the peer -> HotKV
        p.flushall()
        make_streams(p)
        native = snapshot(p)
        h.flushall()
        restore_all(h, dump_all(p))
        assert_same(snapshot(h), native)
    finally:
        peer.stop()


def test_hotkv_rdb_with_streams_loads_in_peer(start_server, tmp_path, tmp_path_factory,
                                              peer_binary):
    s = start_server()
    h = s.client(decode_responses=False)
    make_streams(h)
    expected = snapshot(h)
    assert h.save() is True
    s.stop()
    work = tmp_path_factory.mktemp("peer")
    shutil.copy(tmp_path / "dump.rdb", work / "dump.rdb")
    if peer_binary == REDIS7 and os.path.exists(CHECK_RDB):
        out = subprocess.run([CHECK_RDB, str(work / "dump.rdb")], capture_output=True, text=True)
        assert out.returncode == 0 and "RDB looks OK" in out.stdout, out.stdout + out.stderr
    peer = Peer(peer_binary, work)
    try:
        p = peer.client()
        assert p.dbsize() == len(KEYS)
        assert_same(snapshot(p), expected, type19=True)
    finally:
        peer.stop()


def test_peer_rdb_with_streams_loads_in_hotkv(start_server, tmp_path, tmp_path_factory,
                                              peer_binary):
    work = tmp_path_factory.mktemp("peer")
    peer = Peer(peer_binary, work)
    try:
        p = peer.client()
        make_streams(p)
        expected = snapshot(p)
        assert p.save() is True
    finally:
        peer.stop()
    shutil.copy(work / "dump.rdb", tmp_path / "dump.rdb")
    h = start_server().client(decode_responses=False)
    assert h.dbsize() == len(KEYS)
    assert_same(snapshot(h), expected)
