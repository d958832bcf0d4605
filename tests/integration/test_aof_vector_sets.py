"""Vector sets in an AOF base written as commands (aof-use-rdb-preamble no).

Redis 8.8 has no command form for them (its rewrite child crashes on a vector set with
aof-use-rdb-preamble no), so HotKV writes one VADD per element (an FP32 vector that
VADD stores as the element is stored: for Q8 the same codes and range; quantisation, M,
SETATTR) and a REDUCE set as a RESTORE of its DUMP payload. After a restart, after a
DEBUG RELOAD (the RDB loader, which rebuilds Q8 elements the same way), and in Redis 8.8
loading the same directory (compared with the sets Redis 8.8 builds from the original
commands), VCARD, VDIM, the quantisation, M, VEMB (within float rounding), VGETATTR and
VSIM (TRUTH and the graph search: labels and scores) are the same.
"""
import os
import random
import struct

import pytest

from helpers_dir_servers import start_in, stop_dir_servers  # noqa: F401 (autouse fixture)
from conftest import cmd, wait_until
from helpers_dump import REDIS88, Peer

pytestmark = pytest.mark.hotkv_only

SETS = ("v:q8", "v:f32", "v:bin", "v:reduce")


start = start_in


def fp32(v):
    return struct.pack("<%df" % len(v), *v)


def fill(c):
    rnd = random.Random(4)
    for i in range(120):
        v = [rnd.uniform(-1, 1) for _ in range(16)]
        attrs = ["SETATTR", '{"i":%d,"tag":"t%d"}' % (i, i % 3)] if i % 4 == 0 else []
        cmd(c, "VADD", "v:q8", "FP32", fp32(v), f"e{i}", *attrs)
        cmd(c, "VADD", "v:f32", "FP32", fp32(v), f"e{i}", "NOQUANT", "M", "8", *attrs)
        cmd(c, "VADD", "v:bin", "VALUES", "16", *[f"{x:.6f}" for x in v], f"e{i}", "BIN")
        w = [rnd.uniform(-2, 2) for _ in range(32)]
        cmd(c, "VADD", "v:reduce", "REDUCE", "8", "FP32", fp32(w), f"e{i}", *attrs)
    c.pexpire("v:f32", 3_600_000)


def view(c):
    out = {}
    for key in SETS:
        card = cmd(c, "VCARD", key)
        info = dict(zip(*[iter(cmd(c, "VINFO", key))] * 2))
        emb = {f"e{i}": [float(x) for x in cmd(c, "VEMB", key, f"e{i}")] for i in range(card)}
        attrs = {f"e{i}": cmd(c, "VGETATTR", key, f"e{i}") for i in range(0, card, 4)}
        queries = {}
        for q in ("e0", "e7", "e55"):
            for truth in ([], ["TRUTH"]):
                r = cmd(c, "VSIM", key, "ELE", q, "COUNT", "10", "EF", "500", "WITHSCORES", *truth)
                queries[(q, bool(truth))] = [(r[i].decode(), float(r[i + 1]))
                                             for i in range(0, len(r), 2)]
        out[key] = {"card": card, "dim": cmd(c, "VDIM", key),
                    "quant": info.get(b"quant-type"), "m": info.get(b"hnsw-m"),
                    "emb": emb, "attrs": attrs, "vsim": queries,
                    "ttl": c.pttl(key) > 0}
    return out


def ranked(results):
    """VSIM results as groups of equal scores (BIN vectors tie often; the order within a
    tie is the graph's), the last group left out (COUNT may cut it anywhere)."""
    groups = {}
    for label, score in results:
        groups.setdefault(round(score, 4), set()).add(label)
    scores = sorted(groups, reverse=True)
    return [(s, sorted(groups[s])) for s in scores[:-1]]


def assert_same(got, expected, where):
    for key in SETS:
        g, e = got[key], expected[key]
        for field in ("card", "dim", "quant", "m", "attrs", "ttl"):
            assert g[field] == e[field], (where, key, field, g[field], e[field])
        for label, vec in e["emb"].items():
            assert g["emb"][label] == pytest.approx(vec, rel=1e-4, abs=1e-5), (where, key, label)
        for q, res in e["vsim"].items():
            assert ranked(g["vsim"][q]) == ranked(res), (where, key, q)
            assert [x[1] for x in g["vsim"][q]] == pytest.approx([x[1] for x in res],
                                                                 abs=1e-4), (where, key, q)


def test_vector_sets_in_a_command_base(tmp_path, tmp_path_factory):
    srv = start(tmp_path, "--appendonly", "yes", "--aof-use-rdb-preamble", "no")
    c = srv.client(decode_responses=False)
    fill(c)
    assert c.bgrewriteaof()
    assert wait_until(lambda: c.info("persistence")["aof_rewrites"] >= 1, timeout=20)
    assert c.info("persistence")["aof_last_bgrewrite_status"] == "ok"
    cmd(c, "VADD", "v:q8", "VALUES", "16", *["0.5"] * 16, "late")  # into the new incr file
    cmd(c, "VREM", "v:q8", "late")
    expected = view(c)
    srv.stop()
    adir = tmp_path / "appendonlydir"
    base = (adir / "appendonly.aof.2.base.aof").read_bytes()
    assert base.startswith(b"*2\r\n$6\r\nSELECT\r\n")
    assert base.count(b"$4\r\nVADD\r\n") == 3 * 120 and base.count(b"$7\r\nRESTORE\r\n") == 1
    assert b"$7\r\nSETATTR\r\n" in base and b"$7\r\nNOQUANT\r\n" in base
    srv = start(tmp_path, "--appendonly", "yes")
    c = srv.client(decode_responses=False)
    assert_same(view(c), expected, "HotKV")
    # Through an RDB image too: its loader gives Q8 elements the same codes and range.
    assert c.execute_command("DEBUG", "RELOAD")
    assert_same(view(c), expected, "DEBUG RELOAD")
    srv.stop()
    # Redis 8.8 replays the same directory (VADD and RESTORE of its own encoding) into
    # the sets it builds from the original commands (its Q8 VSIM scores are its own).
    if REDIS88 is not None and os.path.exists(REDIS88):
        native = Peer(REDIS88, tmp_path_factory.mktemp("peer"))
        try:
            nc = native.client()
            fill(nc)
            expected88 = view(nc)
        finally:
            native.stop()
        peer = Peer(REDIS88, tmp_path, ["--appendonly", "yes"])
        try:
            assert_same(view(peer.client()), expected88, "Redis 8.8")
        finally:
            peer.stop()


def test_other_vector_sets_are_refused_clearly(tmp_path):
    srv = start(tmp_path, "--appendonly", "yes", "--aof-use-rdb-preamble", "no")
    c = srv.client()
    cmd(c, "VSIM.CREATEINDEX", "idx", "DIM", "2", "METRIC", "L2")
    c.set("s", "1")
    assert c.bgrewriteaof()
    assert wait_until(lambda: c.info("persistence")["aof_last_bgrewrite_status"] == "err",
                      timeout=20)
    c.delete("idx")
    assert c.bgrewriteaof()
    assert wait_until(lambda: c.info("persistence")["aof_last_bgrewrite_status"] == "ok",
                      timeout=20)
    srv.stop()
