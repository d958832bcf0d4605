"""Redis 8.2's consumer-group reference policies on trimming: XADD/XTRIM ... KEEPREF |
DELREF | ACKED. Expectations are what Redis 8.8 answers (checked by hand); the last test
compares random trims with a Redis 8.8 peer when one is present."""
import random

import pytest

from conftest import error_reply
from helpers_dump import REDIS88, start_peer

pytestmark = pytest.mark.redis8

SYNTAX = "ERR syntax error"


def make_stream(c):
    """Six entries; group g was delivered 1-0..3-0 and acknowledged 1-0 and 3-0, so 2-0 is
    pending and 4-0..6-0 were never delivered: only 1-0 and 3-0 are needed by no group."""
    c.delete("s")
    for i in range(1, 7):
        c.xadd("s", {"f": "v"}, id=f"{i}-0")
    c.xgroup_create("s", "g", "0")
    c.xreadgroup("g", "c", {"s": ">"}, count=3)
    c.xack("s", "g", "1-0", "3-0")


def ids(c):
    return [i for i, _ in c.xrange("s")]


def test_acked_skips_entries_a_group_still_needs(r):
    make_stream(r)
    assert r.execute_command("XTRIM", "s", "MAXLEN", "0", "ACKED") == 2
    assert ids(r) == ["2-0", "4-0", "5-0", "6-0"]
    make_stream(r)
    # MAXLEN 4: still goes past the pending 2-0 to reach the length.
    assert r.execute_command("XTRIM", "s", "MAXLEN", "4", "ACKED") == 2
    assert ids(r) == ["2-0", "4-0", "5-0", "6-0"]
    make_stream(r)
    assert r.execute_command("XTRIM", "s", "MINID", "3-0", "ACKED") == 1
    assert ids(r) == ["2-0", "3-0", "4-0", "5-0", "6-0"]
    make_stream(r)
    # A group created at the end needs nothing older: the first group decides.
    r.xgroup_create("s", "g2", "$")
    assert r.execute_command("XTRIM", "s", "MAXLEN", "0", "ACKED") == 2


def test_acked_with_approximate_trimming(r):
    make_stream(r)
    assert r.execute_command("XTRIM", "s", "MAXLEN", "~", "0", "ACKED") == 2
    assert r.xlen("s") == 4
    make_stream(r)
    # LIMIT smaller than the block: nothing is trimmed, as without ACKED.
    assert r.execute_command("XTRIM", "s", "MAXLEN", "~", "0", "LIMIT", "1", "ACKED") == 0
    assert r.xlen("s") == 6


def test_delref_and_keepref(r):
    make_stream(r)
    assert r.execute_command("XTRIM", "s", "MAXLEN", "0", "DELREF") == 6
    assert r.xpending("s", "g")["pending"] == 0
    make_stream(r)
    assert r.execute_command("XTRIM", "s", "MAXLEN", "2", "KEEPREF") == 4
    assert r.xpending("s", "g")["pending"] == 1
    make_stream(r)
    assert r.execute_command("XTRIM", "s", "MAXLEN", "2") == 4  # KEEPREF is the default
    assert r.xpending("s", "g")["pending"] == 1


def test_without_groups_every_policy_trims_alike(r):
    r.delete("s")
    for i in range(1, 4):
        r.xadd("s", {"f": "v"}, id=f"{i}-0")
    assert r.execute_command("XTRIM", "s", "MAXLEN", "0", "ACKED") == 3


def test_xadd_takes_the_policy_anywhere_before_the_id(r):
    make_stream(r)
    assert r.execute_command("XADD", "s", "ACKED", "MAXLEN", "2", "7-0", "f", "v") == "7-0"
    assert ids(r) == ["2-0", "4-0", "5-0", "6-0", "7-0"]
    assert r.execute_command("XADD", "s", "DELREF", "8-0", "f", "v") == "8-0"  # no trim
    assert r.execute_command("XADD", "nokey", "DELREF", "NOMKSTREAM", "*", "f", "v") is None


def test_errors(r):
    make_stream(r)
    assert error_reply(r, "XTRIM", "s", "MAXLEN", "0", "ACKED", "DELREF") == SYNTAX
    assert error_reply(r, "XTRIM", "s", "MAXLEN", "0", "KEEPREF", "KEEPREF") == SYNTAX
    assert error_reply(r, "XADD", "s", "ACKED", "KEEPREF", "*", "f", "v") == SYNTAX
    assert error_reply(r, "XTRIM", "s", "ACKED").startswith("ERR wrong number of arguments")
    assert r.xlen("s") == 6


def test_same_results_as_redis88(r, tmp_path_factory):
    peer = start_peer(REDIS88, tmp_path_factory, ["--stream-node-max-entries", "4"])
    try:
        p = peer.client(decode_responses=True)
        r.config_set("stream-node-max-entries", "4")
        rnd = random.Random(8)
        for _ in range(60):
            n = rnd.randint(1, 20)
            delivered = rnd.randint(0, n)
            acked = [f"{i}-0" for i in range(1, delivered + 1) if rnd.random() < 0.5]
            policy = rnd.choice(["KEEPREF", "DELREF", "ACKED", "ACKED", None])
            if rnd.random() < 0.5:
                trim = ["MAXLEN", rnd.choice(["=", "~"]), str(rnd.randint(0, n))]
            else:
                trim = ["MINID", rnd.choice(["=", "~"]), f"{rnd.randint(0, n + 1)}-0"]
            if trim[1] == "~" and rnd.random() < 0.3:
                trim += ["LIMIT", str(rnd.randint(0, 10))]
            cmd = ["XTRIM", "s"] + trim + ([policy] if policy else [])
            results = []
            for c in (r, p):
                c.delete("s")
                for i in range(1, n + 1):
                    c.xadd("s", {"f": "v"}, id=f"{i}-0")
                c.xgroup_create("s", "g", "0")
                if delivered:
                    c.xreadgroup("g", "c", {"s": ">"}, count=delivered)
                if acked:
                    c.xack("s", "g", *acked)
                reply = c.execute_command(*cmd)
                results.append((reply, ids(c), c.xpending("s", "g")["pending"]))
            assert results[0] == results[1], (cmd, n, delivered, acked)
    finally:
        r.config_set("stream-node-max-entries", "100")
        peer.stop()


def test_aof_replays_trims_with_policies(tmp_path):
    """ACKED trims are recorded by their effect (XDELEX ... then XSETID restoring the
    stream's metadata), DELREF/KEEPREF as exact trims: a restart rebuilds the same
    entries, PEL and XINFO fields even though the rebuilt blocks differ."""
    from conftest import ServerProcess
    srv = ServerProcess(["--appendonly", "yes", "--stream-node-max-entries", "4"],
                        tmp_path=tmp_path).start()
    c = srv.client(decode_responses=True)
    c.response_callbacks.clear()
    for i in range(1, 31):
        c.execute_command("XADD", "s", f"{i}-0", "f", str(i))
    c.execute_command("XDEL", "s", "5-0")
    c.execute_command("XGROUP", "CREATE", "s", "g", "0")
    c.execute_command("XREADGROUP", "GROUP", "g", "a", "COUNT", "20", "STREAMS", "s", ">")
    c.execute_command("XACK", "s", "g", *[f"{i}-0" for i in range(1, 20, 3)])
    assert c.execute_command("XTRIM", "s", "MAXLEN", "~", "10", "ACKED") > 0
    c.execute_command("XADD", "s", "ACKED", "MAXLEN", "5", "31-0", "f", "x")
    c.execute_command("XADD", "s", "DELREF", "MINID", "~", "4-0", "*", "f", "y")
    c.execute_command("XTRIM", "s", "MAXLEN", "=", "12", "KEEPREF")

    def state():
        info = c.execute_command("XINFO", "STREAM", "s")
        fields = dict(zip(info[::2], info[1::2]))
        return (c.execute_command("XRANGE", "s", "-", "+"),
                [fields[k] for k in ("length", "last-generated-id", "max-deleted-entry-id",
                                     "entries-added", "recorded-first-entry-id")],
                [e[:2] + e[3:] for e in c.execute_command("XPENDING", "s", "g", "-", "+", "100")],
                c.execute_command("XINFO", "GROUPS", "s"))

    before = state()
    c.close()
    srv.stop()
    srv = ServerProcess(["--appendonly", "yes"], tmp_path=tmp_path).start()
    c = srv.client(decode_responses=True)
    c.response_callbacks.clear()
    after = state()
    srv.stop()
    assert after == before
