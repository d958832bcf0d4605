"""The Redis Cluster bus end to end: HotKV nodes form a cluster with redis-cli --cluster,
and a HotKV node and a real Redis 7.0 node MEET and agree on each other (docs/cluster.md).

Waits are bounded polls; nothing asserts on timing.
"""
import os

import pytest

from cluster_util import (HOTKV, REDIS70, ClusterNodes, is_redis, redis_cli, wait_until)

pytestmark = pytest.mark.hotkv_only

if is_redis(HOTKV):
    pytest.skip("HotKV cluster bus tests", allow_module_level=True)


def agree(nodes):
    """Every node sees every node, by the same id, none in handshake, same slots."""
    views = [n.nodes() for n in nodes]
    ids = {n.myid() for n in nodes}
    for v in views:
        if set(v) != ids:
            return False
        for e in v.values():
            if "handshake" in e["flags"] or "fail?" in e["flags"] or "fail" in e["flags"]:
                return False
    for nid in ids:
        slots = {tuple(v[nid]["slots"]) for v in views}
        if len(slots) != 1:
            return False
    return True


def test_redis_cli_cluster_create_and_check(tmp_path):
    with ClusterNodes(tmp_path, 3) as nodes:
        addrs = [f"127.0.0.1:{n.port}" for n in nodes]
        rc, out = redis_cli("--cluster", "create", *addrs, "--cluster-yes", timeout=90)
        assert rc == 0, out
        assert "[OK] All 16384 slots covered" in out, out
        # Every node ends up with the same view.
        assert wait_until(lambda: agree(nodes), timeout=30), [n.nodes() for n in nodes]
        rc, out = redis_cli("--cluster", "check", addrs[1], timeout=60)
        assert rc == 0, out
        assert "[OK] All nodes agree about slots configuration." in out, out
        assert "[OK] All 16384 slots covered." in out, out
        assert "[ERR]" not in out and "[WARNING]" not in out, out
        # A primary stays cluster_state:fail for the rejoin delay (min(node timeout, 5 s))
        # after it served no slot, as Redis does: wait for ok.
        def info():
            i = nodes[0].client().execute_command("CLUSTER", "INFO")
            return i.decode() if isinstance(i, bytes) else i
        assert wait_until(lambda: "cluster_state:ok" in info(), timeout=30), info()
        info = info()
        assert "cluster_known_nodes:3" in info, info
        assert "cluster_stats_messages_ping_sent:" in info, info
        # CLUSTER LINKS lists links to and from the two other nodes.
        links = nodes[0].client().execute_command("CLUSTER", "LINKS")
        assert len(links) >= 2, links
        # Cluster-wide pub/sub: a message published on one node reaches the others.
        p = nodes[2].client().pubsub()
        p.subscribe("news")
        assert p.get_message(timeout=5)["type"] == "subscribe"
        nodes[0].client().publish("news", "hello")
        msg = wait_until(lambda: p.get_message(timeout=0.2), timeout=10)
        assert msg and msg["data"] == b"hello", msg
        p.close()
        # nodes.conf holds the learned cluster.
        with open(os.path.join(nodes[1].dir, "nodes.conf")) as f:
            conf = f.read()
        for n in nodes:
            assert n.myid() in conf


@pytest.mark.skipif(not os.access(REDIS70, os.X_OK), reason="needs /usr/bin/redis-server")
def test_hotkv_meets_redis70_and_both_agree(tmp_path):
    with ClusterNodes(tmp_path, 2, binaries=[HOTKV, REDIS70]) as (hk, rd):
        hk.client().execute_command("CLUSTER", "ADDSLOTSRANGE", 0, 8191)
        rd.client().execute_command("CLUSTER", "ADDSLOTSRANGE", 8192, 16383)
        assert hk.client().execute_command("CLUSTER", "MEET", "127.0.0.1", rd.port) in (b"OK", True, "OK")
        assert wait_until(lambda: agree([hk, rd]), timeout=30), (hk.nodes(), rd.nodes())
        hv, rv = hk.nodes(), rd.nodes()
        for nid in hv:
            assert hv[nid]["addr"] == rv[nid]["addr"]
            assert hv[nid]["slots"] == rv[nid]["slots"]
            assert hv[nid]["flags"] - {"myself"} == rv[nid]["flags"] - {"myself"}
            assert hv[nid]["link"] == rv[nid]["link"] == "connected"
        assert hv[hk.myid()]["slots"] == ["0-8191"]
        assert rv[rd.myid()]["slots"] == ["8192-16383"]
        # Epochs resolve (both started at config epoch 0): they end up different.
        assert wait_until(lambda: hk.nodes()[hk.myid()]["epoch"] != rd.nodes()[rd.myid()]["epoch"]
                          and agree([hk, rd]), timeout=30)
        # Both report the full cluster OK and agree under redis-cli's check.
        assert wait_until(lambda: b"cluster_state:ok" in rd.client().execute_command("CLUSTER", "INFO"),
                          timeout=30)
        rc, out = redis_cli("--cluster", "check", f"127.0.0.1:{rd.port}", timeout=60)
        assert rc == 0 and "[OK] All nodes agree about slots configuration." in out, out
        # Pub/sub crosses the implementations both ways.
        p = rd.client().pubsub()
        p.subscribe("x")
        assert p.get_message(timeout=5)["type"] == "subscribe"
        hk.client().publish("x", "from-hotkv")
        msg = wait_until(lambda: p.get_message(timeout=0.2), timeout=10)
        assert msg and msg["data"] == b"from-hotkv", msg
        p.close()
