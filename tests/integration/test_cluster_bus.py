"""The Redis Cluster bus end to end: HotKV nodes form a cluster with redis-cli --cluster,
and a HotKV node and a real Redis 7.0 node MEET and agree on each other (docs/cluster.md).

Waits are bounded polls; nothing asserts on timing.
"""
import os

import pytest

from cluster_util import (HOTKV, REDIS70, ClusterNodes, is_redis, redis_cli, slow, wait_until)

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
        # Same slots, config epoch and primary for every node in every view.
        if len({(tuple(v[nid]["slots"]), v[nid]["epoch"], v[nid]["master"]) for v in views}) != 1:
            return False
    return True


@pytest.mark.parametrize("count", [3, pytest.param(6, marks=slow)])
def test_redis_cli_cluster_create_and_check(tmp_path, count):
    # A short node timeout also shortens the wait for cluster_state:ok after the slots are
    # covered (Redis's rejoin delay is the node timeout, 0.5 to 5 s).
    with ClusterNodes(tmp_path, count, node_timeout=2000) as nodes:
        addrs = [f"127.0.0.1:{n.port}" for n in nodes]
        rc, out = redis_cli("--cluster", "create", *addrs, "--cluster-replicas", "0",
                            "--cluster-yes", timeout=90)
        assert rc == 0, out
        assert "[OK] All 16384 slots covered" in out, out
        # Every node ends up with the same view.
        assert wait_until(lambda: agree(nodes), timeout=30), [n.nodes() for n in nodes]
        rc, out = redis_cli("--cluster", "check", addrs[1], timeout=60)
        assert rc == 0, out
        assert "[OK] All nodes agree about slots configuration." in out, out
        assert "[OK] All 16384 slots covered." in out, out
        assert "[ERR]" not in out and "[WARNING]" not in out, out
        def info():
            v = nodes[0].client().execute_command("CLUSTER", "INFO")
            return v.decode() if isinstance(v, bytes) else v
        # The state turns ok a moment after the slots are covered (Redis's rejoin delay).
        assert wait_until(lambda: "cluster_state:ok" in info(), timeout=30), info()
        info = info()
        assert f"cluster_known_nodes:{count}" in info, info
        assert f"cluster_size:{count}" in info, info
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


@pytest.mark.skipif(not os.access(REDIS70, os.X_OK), reason="needs /usr/bin/redis-server")
def test_hotkv_joins_redis70_cluster_with_add_node(tmp_path):
    binaries = [REDIS70, REDIS70, REDIS70, HOTKV]
    with ClusterNodes(tmp_path, 4, binaries=binaries) as nodes:
        addrs = [f"127.0.0.1:{n.port}" for n in nodes]
        rc, out = redis_cli("--cluster", "create", *addrs[:3], "--cluster-yes", timeout=90)
        assert rc == 0 and "[OK] All 16384 slots covered" in out, out
        rc, out = redis_cli("--cluster", "add-node", addrs[3], addrs[0], timeout=90)
        assert rc == 0 and "[OK] New node added correctly." in out, out
        assert wait_until(lambda: agree(nodes), timeout=30), [n.nodes() for n in nodes]
        # Slots move from a Redis primary to the HotKV node (SETSLOT on both sides; the
        # new owner's bumped epoch spreads over the bus).
        hk = nodes[3]
        rc, out = redis_cli("--cluster", "reshard", addrs[0], "--cluster-from", nodes[0].myid(),
                            "--cluster-to", hk.myid(), "--cluster-slots", "64", "--cluster-yes",
                            timeout=120)
        assert rc == 0, out
        assert wait_until(lambda: agree(nodes) and hk.nodes()[hk.myid()]["slots"], timeout=30), \
            [n.nodes() for n in nodes]
        for entry in (addrs[0], addrs[3]):
            rc, out = redis_cli("--cluster", "check", entry, timeout=60)
            assert rc == 0, out
            assert "[OK] All nodes agree about slots configuration." in out, out
            assert "[OK] All 16384 slots covered." in out, out
            assert "[ERR]" not in out and "[WARNING]" not in out, out
        # Every node shows the HotKV node with the same slots, address and flags.
        views = [n.nodes()[hk.myid()] for n in nodes]
        assert {tuple(v["slots"]) for v in views} == {tuple(views[3]["slots"])}
        assert {v["addr"] for v in views} == {views[3]["addr"]}
        assert all(v["flags"] - {"myself"} == {"master"} for v in views)


@pytest.mark.skipif(not os.access(REDIS70, os.X_OK), reason="needs /usr/bin/redis-server")
def test_stopped_node_is_marked_fail_in_mixed_cluster(tmp_path):
    # Two Redis 7.0 primaries and one HotKV primary; one Redis node dies. The FAIL needs
    # a majority of primaries (2 of 3): the survivors' PFAIL reports travel in each
    # other's gossip, so this checks HotKV -> Redis and Redis -> HotKV failure reports.
    binaries = [REDIS70, REDIS70, HOTKV]
    with ClusterNodes(tmp_path, 3, binaries=binaries, node_timeout=1000) as nodes:
        addrs = [f"127.0.0.1:{n.port}" for n in nodes]
        rc, out = redis_cli("--cluster", "create", *addrs, "--cluster-yes", timeout=90)
        assert rc == 0 and "[OK] All 16384 slots covered" in out, out
        assert wait_until(lambda: agree(nodes), timeout=30)
        dead = nodes[0]
        dead_id = dead.myid()
        dead.stop()
        survivors = nodes[1:]

        def failed_everywhere():
            return all("fail" in n.nodes()[dead_id]["flags"] for n in survivors)
        assert wait_until(failed_everywhere, timeout=30), [n.nodes() for n in survivors]
        # Full coverage is lost: the HotKV node answers CLUSTERDOWN as Redis does.
        hk = nodes[2].client()
        assert wait_until(lambda: b"cluster_state:fail" in hk.execute_command("CLUSTER", "INFO"),
                          timeout=30)
        with pytest.raises(Exception) as err:
            hk.get("somekey")
        assert "CLUSTERDOWN" in str(err.value)
        # The node comes back (same nodes.conf): FAIL is cleared everywhere, the state is ok.
        dead.start()
        assert dead.myid() == dead_id

        def recovered():
            return all(not ({"fail", "fail?"} & n.nodes()[dead_id]["flags"]) for n in survivors) \
                and b"cluster_state:ok" in hk.execute_command("CLUSTER", "INFO")
        assert wait_until(recovered, timeout=30), [n.nodes() for n in survivors]
        assert wait_until(lambda: agree(nodes), timeout=30), [n.nodes() for n in nodes]


@slow
@pytest.mark.skipif(not os.access(REDIS70, os.X_OK), reason="needs /usr/bin/redis-server")
def test_redis_replica_fails_over_with_hotkv_votes(tmp_path):
    # Primaries: one Redis 7.0 (with a Redis replica) and two HotKV. When the Redis
    # primary dies, its replica needs the votes of a majority of primaries: the two HotKV
    # nodes (FAILOVER_AUTH_REQUEST -> FAILOVER_AUTH_ACK).
    binaries = [REDIS70, HOTKV, HOTKV, REDIS70]
    with ClusterNodes(tmp_path, 4, binaries=binaries, node_timeout=1000) as nodes:
        addrs = [f"127.0.0.1:{n.port}" for n in nodes]
        rc, out = redis_cli("--cluster", "create", *addrs[:3], "--cluster-yes", timeout=90)
        assert rc == 0 and "[OK] All 16384 slots covered" in out, out
        primary, replica = nodes[0], nodes[3]
        pid = primary.myid()
        rc, out = redis_cli("--cluster", "add-node", addrs[3], addrs[0], "--cluster-slave",
                            "--cluster-master-id", pid, timeout=90)
        assert rc == 0, out
        rid = replica.myid()
        assert wait_until(lambda: all(n.nodes().get(rid, {}).get("master") == pid
                                      for n in nodes[:3]), timeout=30)
        assert wait_until(lambda: agree(nodes), timeout=30), [n.nodes() for n in nodes]
        assert wait_until(lambda: replica.client().info("replication").get("master_link_status")
                          == "up", timeout=30)
        slots = primary.nodes()[pid]["slots"]
        primary.stop()

        def promoted():
            return all("master" in n.nodes()[rid]["flags"] and n.nodes()[rid]["slots"] == slots
                       for n in nodes[1:])
        assert wait_until(promoted, timeout=30), [n.nodes() for n in nodes[1:]]
        assert wait_until(lambda: b"cluster_state:ok" in nodes[1].client().execute_command(
            "CLUSTER", "INFO"), timeout=30)
