"""Moving a live Redis Cluster onto HotKV with redis-cli --cluster (docs/cluster.md,
"Moving a Redis cluster onto HotKV"), and the other redis-cli --cluster tools.

Default run (a few seconds each): `--cluster fix` of an open slot, `--cluster rebalance`
onto an added empty node, `--cluster call`, `--cluster info`, PSYNC/SYNC refused clearly.

HOTKV_SLOW_TESTS=1 (`make cluster-test`) adds the whole live migration: a 3-node Redis
7.0 cluster under load from redis-py's RedisCluster becomes a 3-node HotKV cluster
(add-node x3, reshard every slot, del-node the Redis nodes); every acknowledged write is
present with its value, the client saw no error (redis-py follows MOVED/ASK itself),
`--cluster check` is clean, HotKV's and Redis's CLUSTER NODES agree while both exist.

Waits are bounded polls and the load loop is bounded; nothing asserts on timing.
"""
import os
import random
import threading

import pytest
import redis
from redis.cluster import PRIMARY, ClusterNode, RedisCluster

from cluster_util import HOTKV, REDIS70, ClusterNodes, is_redis, redis_cli, wait_until

pytestmark = pytest.mark.hotkv_only

if is_redis(HOTKV):
    pytest.skip("HotKV cluster migration tests", allow_module_level=True)

SLOW = bool(os.environ.get("HOTKV_SLOW_TESTS"))
HAVE_REDIS = os.access(REDIS70, os.X_OK)


def info_ok(node):
    v = node.client().execute_command("CLUSTER", "INFO")
    return b"cluster_state:ok" in (v if isinstance(v, bytes) else v.encode())


def agree(nodes):
    """Every node sees every node by the same id (none in handshake or failing), with the
    same address, slots, config epoch, primary and flags (less `myself`)."""
    views = [n.nodes() for n in nodes]
    ids = {n.myid() for n in nodes}
    for v in views:
        if set(v) != ids:
            return False
        for e in v.values():
            if {"handshake", "fail?", "fail", "noaddr"} & e["flags"]:
                return False
    for nid in ids:
        if len({(e["addr"].split(",")[0], tuple(e["slots"]), e["epoch"], e["master"],
                 frozenset(e["flags"] - {"myself"})) for e in (v[nid] for v in views)}) != 1:
            return False
    return True


def check_clean(addr):
    rc, out = redis_cli("--cluster", "check", addr, timeout=60)
    assert rc == 0, out
    assert "[OK] All nodes agree about slots configuration." in out, out
    assert "[OK] All 16384 slots covered." in out, out
    assert "[ERR]" not in out and "[WARNING]" not in out, out
    return out


def create(nodes, replicas=0):
    addrs = [f"127.0.0.1:{n.port}" for n in nodes]
    rc, out = redis_cli("--cluster", "create", *addrs, "--cluster-replicas", str(replicas),
                        "--cluster-yes", timeout=90)
    assert rc == 0 and "[OK] All 16384 slots covered" in out, out
    assert wait_until(lambda: agree(nodes), timeout=30), [n.nodes() for n in nodes]
    for n in nodes:
        assert wait_until(lambda n=n: info_ok(n), timeout=30), n.port
    return addrs


KINDS = ("string", "list", "hash", "set", "zset", "stream")


def write(rc, kind, key, i):
    """One single-key write command per key (so a client retry cannot change the value);
    returns the value a read gives back."""
    if kind == "string":
        rc.set(key, f"v{i}")
        return f"v{i}"
    if kind == "list":
        items = [f"e{i}-{j}" for j in range(i % 5 + 1)]
        rc.rpush(key, *items)
        return items
    if kind == "hash":
        fields = {f"f{j}": f"{i}-{j}" for j in range(i % 4 + 1)}
        rc.hset(key, mapping=fields)
        return fields
    if kind == "set":
        members = {f"m{i % 13}-{j}" for j in range(i % 6 + 1)}
        rc.sadd(key, *members)
        return members
    if kind == "zset":
        scores = {f"z{j}": float(j * 3 + i % 7) for j in range(i % 4 + 1)}
        rc.zadd(key, scores)
        return sorted(scores.items(), key=lambda x: (x[1], x[0]))
    rc.xadd(key, {"n": str(i)}, id=f"{i + 1}-0")
    return [(f"{i + 1}-0", {"n": str(i)})]


def read(rc, kind, key):
    if kind == "string":
        return rc.get(key)
    if kind == "list":
        return rc.lrange(key, 0, -1)
    if kind == "hash":
        return rc.hgetall(key)
    if kind == "set":
        return rc.smembers(key)
    if kind == "zset":
        return rc.zrange(key, 0, -1, withscores=True)
    return [(i, f) for i, f in rc.xrange(key)]


def _asking_ok(response, **options):
    return response in (b"OK", "OK")


class AskFollowingCluster(RedisCluster):
    """RedisCluster that follows every -ASK. Two bugs of redis-py 4.3.4 (Debian's) in its
    ASK handling fail a command that a resharding redirects, whatever the servers (they
    happen against an all-Redis cluster too); both are worked around here:

    - the ASK target is looked up in the node cache, which holds only the nodes CLUSTER
      SLOTS listed: a primary that owns no slot yet (a node just added, receiving its
      first slot) is not there, and the command fails with AttributeError ('NoneType'
      object has no attribute 'server_type'), redis-py issue #2432. Here the target is
      added to the cache, as redis-py does for the target of a -MOVED;
    - ASKING's reply is parsed with the redirected command's options, so ZRANGE ...
      WITHSCORES fails with TypeError ("bool_ok() got an unexpected keyword argument
      'withscores'"), redis-py issue #3011. Here ASKING's reply callback takes them."""

    def get_redis_connection(self, node):
        r = super().get_redis_connection(node)
        r.response_callbacks["ASKING"] = _asking_ok
        return r

    def get_node(self, host=None, port=None, node_name=None):
        node = super().get_node(host, port, node_name)
        if node is None and node_name and not host:
            h, p = node_name.rsplit(":", 1)
            node = ClusterNode(h, int(p), PRIMARY)
            self.nodes_manager.nodes_cache[node.name] = node
        return node


class Load(threading.Thread):
    """A writer/reader over RedisCluster: writes keys of every type (each key once),
    records every acknowledged write, reads back a random acknowledged key after every
    few writes. Bounded by `limit` operations; `stop()` ends it earlier."""

    def __init__(self, port, limit=400000, prefix="k"):
        super().__init__(daemon=True)
        # Bounded: a server that never answers fails the test instead of hanging it.
        self.rc = AskFollowingCluster(host="127.0.0.1", port=port, decode_responses=True,
                                      socket_timeout=60)
        self.limit = limit
        self.prefix = prefix
        self.acked = {}
        self.errors = []
        self.wrong = []
        self.reads = 0
        self._halt = threading.Event()
        self._rand = random.Random(16)

    def run(self):
        keys = []
        for i in range(self.limit):
            if self._halt.is_set():
                break
            kind = KINDS[i % len(KINDS)]
            key = f"{self.prefix}:{kind}:{i}"
            try:
                value = write(self.rc, kind, key, i)
                self.acked[key] = (kind, value)
                keys.append(key)
            except Exception as e:  # every error the client surfaces is a failure
                self.errors.append(f"write {key}: {e!r}")
            if i % 4 == 3 and keys:
                key = self._rand.choice(keys)
                kind, value = self.acked[key]
                try:
                    got = read(self.rc, kind, key)
                    self.reads += 1
                    if got != value:
                        self.wrong.append((key, got, value))
                except Exception as e:
                    self.errors.append(f"read {key}: {e!r}")
            if len(self.errors) > 50:
                break

    def stop(self):
        self._halt.set()
        self.join(timeout=120)
        assert not self.is_alive()


def verify_all(rc, acked):
    lost = []
    for key, (kind, value) in acked.items():
        got = read(rc, kind, key)
        if got != value:
            lost.append((key, got, value))
    return lost


def explain_lost(lost, nodes):
    """What the nodes know about the slots of lost keys, and what their logs say about
    slot ownership (for the failure message)."""
    if not lost:
        return ""
    out = []
    for key, got, want in lost[:10]:
        slot = int(nodes[0].client().execute_command("CLUSTER", "KEYSLOT", key))
        where = [f"{n.port}:{int(n.client().execute_command('CLUSTER', 'COUNTKEYSINSLOT', slot))}"
                 for n in nodes]
        out.append(f"{key} slot {slot} got={got!r} keys-in-slot per node {where}")
    for n in nodes:
        lines = [l for l in n.read_log().splitlines()
                 if "slot" in l.lower() or "epoch" in l.lower() or "Deleted" in l]
        out.append(f"log {n.port}: " + " | ".join(lines[-20:]))
    return "\n".join(out)


@pytest.mark.skipif(not SLOW, reason="whole live migration: HOTKV_SLOW_TESTS=1 (make cluster-test)")
@pytest.mark.skipif(not HAVE_REDIS, reason="needs /usr/bin/redis-server")
def test_live_migration_redis70_cluster_to_hotkv(tmp_path):
    binaries = [REDIS70] * 3 + [HOTKV] * 3
    # Redis primaries that lose every slot must not turn into replicas of a HotKV node
    # (HotKV cannot be a replication primary yet): docs/cluster.md.
    redis_extra = ["--cluster-allow-replica-migration", "no"]
    with ClusterNodes(tmp_path, 3, binaries=REDIS70, extra=redis_extra) as rnodes, \
            ClusterNodes(tmp_path, 3, binaries=HOTKV) as hnodes:
        del binaries
        raddrs = create(rnodes)
        haddrs = [f"127.0.0.1:{n.port}" for n in hnodes]
        load = Load(rnodes[0].port)
        load.start()
        try:
            assert wait_until(lambda: len(load.acked) >= 500, timeout=60), load.errors

            for i, a in enumerate(haddrs):
                rc, out = redis_cli("--cluster", "add-node", a, raddrs[0], timeout=90)
                assert rc == 0 and "[OK] New node added correctly." in out, out
                # add-node starts with a cluster check that fails ("Nodes don't agree
                # about configuration") while the node added before is still being
                # gossiped: the next one waits until every node knows it (as an
                # operator waits for `--cluster check`).
                joined = rnodes + hnodes[:i + 1]
                assert wait_until(lambda: agree(joined), timeout=60), \
                    [n.nodes() for n in joined]
            everyone = rnodes + hnodes
            assert wait_until(lambda: agree(everyone), timeout=60), [n.nodes() for n in everyone]
            for n in hnodes:  # the rejoin delay, as for a new Redis node
                assert wait_until(lambda n=n: info_ok(n), timeout=30), n.port
            check_clean(haddrs[0])

            for src, dst in zip(rnodes, hnodes):
                sid = src.myid()
                count = sum(int(r.split("-")[1]) - int(r.split("-")[0]) + 1 if "-" in r else 1
                            for r in src.nodes()[sid]["slots"])
                rc, out = redis_cli("--cluster", "reshard", haddrs[0], "--cluster-from", sid,
                                    "--cluster-to", dst.myid(), "--cluster-slots", str(count),
                                    "--cluster-yes", timeout=600)
                assert rc == 0, out[-3000:]
                assert "[ERR]" not in out, out[-3000:]
                assert wait_until(lambda: agree(everyone), timeout=60), \
                    [n.nodes() for n in everyone]
                # Redis's and HotKV's views agree while both exist.
                assert hnodes[0].nodes()[sid]["slots"] == [] == rnodes[0].nodes()[sid]["slots"]

            # Every Redis node is an empty primary now, still a primary.
            for n in rnodes:
                e = n.nodes()[n.myid()]
                assert e["slots"] == [] and "master" in e["flags"], e
            check_clean(raddrs[1])
            check_clean(haddrs[2])
            assert sum(n.client().dbsize() for n in rnodes) == 0

            for n in rnodes:
                rc, out = redis_cli("--cluster", "del-node", haddrs[0], n.myid(), timeout=90)
                assert rc == 0, out
            assert wait_until(lambda: agree(hnodes), timeout=60), [n.nodes() for n in hnodes]
            # A little more load against the HotKV-only cluster, then stop.
            n_before = len(load.acked)
            wait_until(lambda: len(load.acked) >= n_before + 200 or not load.is_alive(), timeout=30)
        finally:
            load.stop()
        for n in rnodes:
            n.stop()

        # Client errors, wrong reads and lost keys are all looked at before failing, so a
        # failure on one still says whether any acknowledged write was lost.
        rc2 = RedisCluster(host="127.0.0.1", port=hnodes[1].port, decode_responses=True,
                           socket_timeout=60)
        lost = verify_all(rc2, load.acked)
        assert (load.errors, load.wrong, lost) == ([], [], []), \
            (load.errors[:10], load.wrong[:10], len(lost), explain_lost(lost, hnodes))
        assert len(load.acked) > 1000 and load.reads > 200
        assert sum(n.client().dbsize() for n in hnodes) == len(load.acked)
        for a in haddrs:
            check_clean(a)
        rc, out = redis_cli("--cluster", "info", haddrs[0], timeout=60)
        assert rc == 0 and f"[OK] {len(load.acked)} keys in 3 masters." in out, out


def test_hotkv_refuses_psync_clearly(tmp_path):
    with ClusterNodes(tmp_path, 1, node_timeout=1000) as (n,):
        c = n.client()
        for cmd in (("PSYNC", "?", "-1"), ("SYNC",)):
            with pytest.raises(redis.ResponseError) as err:
                c.execute_command(*cmd)
            msg = str(err.value)
            assert "replication" in msg and "cluster-allow-replica-migration no" in msg, msg
        if not HAVE_REDIS:
            return
        # A Redis 7.0 node told to replicate a HotKV primary (what replica migration does)
        # gets that text and logs it; HotKV keeps serving.
        c.execute_command("CLUSTER", "ADDSLOTSRANGE", 0, 16383)
        with ClusterNodes(tmp_path, 1, binaries=REDIS70, node_timeout=1000) as (r,):
            r.client().execute_command("CLUSTER", "MEET", "127.0.0.1", n.port)
            assert wait_until(lambda: agree([n, r]), timeout=30), (n.nodes(), r.nodes())
            r.client().execute_command("CLUSTER", "REPLICATE", n.myid())
            assert wait_until(lambda: "cluster-allow-replica-migration no" in r.read_log(),
                              timeout=30), r.read_log()[-3000:]
            assert wait_until(lambda: info_ok(n), timeout=30)
            assert c.set("still", "here") and c.get("still") == b"here"


def test_cluster_fix_open_slot_call_and_info(tmp_path):
    with ClusterNodes(tmp_path, 3, node_timeout=2000) as nodes:
        addrs = create(nodes)
        rc = RedisCluster(host="127.0.0.1", port=nodes[0].port, decode_responses=True,
                          socket_timeout=30)
        want = {}
        for i in range(300):
            kind = KINDS[i % len(KINDS)]
            key = f"fix:{kind}:{i}"
            want[key] = (kind, write(rc, kind, key, i))
        # An open slot with keys: owner MIGRATING, target IMPORTING, nothing moved yet, as
        # a reshard interrupted half way leaves it.
        src, dst = nodes[0], nodes[1]
        slot = next(s for s in range(0, 5461)
                    if src.client().execute_command("CLUSTER", "COUNTKEYSINSLOT", s) > 0)
        in_slot = src.client().execute_command("CLUSTER", "COUNTKEYSINSLOT", slot)
        dst.client().execute_command("CLUSTER", "SETSLOT", slot, "IMPORTING", src.myid())
        src.client().execute_command("CLUSTER", "SETSLOT", slot, "MIGRATING", dst.myid())
        status, out = redis_cli("--cluster", "check", addrs[2], timeout=60)
        assert status != 0 and "open slot" in out.lower() or "[WARNING]" in out, out
        status, out = redis_cli("--cluster", "fix", addrs[2], "--cluster-yes", timeout=120)
        assert status == 0, out
        assert wait_until(lambda: agree(nodes), timeout=30), [n.nodes() for n in nodes]
        check_clean(addrs[0])
        assert dst.client().execute_command("CLUSTER", "COUNTKEYSINSLOT", slot) == in_slot
        assert src.client().execute_command("CLUSTER", "COUNTKEYSINSLOT", slot) == 0
        assert verify_all(RedisCluster(socket_timeout=30, host="127.0.0.1", port=nodes[2].port,
                                       decode_responses=True), want) == []

        # --cluster call runs a command on every node.
        status, out = redis_cli("--cluster", "call", addrs[0], "DBSIZE", timeout=60)
        assert status == 0, out
        sizes = [n.client().dbsize() for n in nodes]
        for n, size in zip(nodes, sizes):
            assert f"127.0.0.1:{n.port}: {size}" in out, out
        status, out = redis_cli("--cluster", "call", addrs[0], "CONFIG", "SET",
                                "cluster-allow-reads-when-down", "yes", timeout=60)
        assert status == 0 and out.count(": OK") == 3, out
        assert all(n.client().config_get("cluster-allow-reads-when-down")
                   ["cluster-allow-reads-when-down"] == "yes" for n in nodes)

        # --cluster info: keys and slots per primary, the total.
        status, out = redis_cli("--cluster", "info", addrs[1], timeout=60)
        assert status == 0, out
        assert f"[OK] {len(want)} keys in 3 masters." in out, out
        for n in nodes:
            assert f"127.0.0.1:{n.port} ({n.myid()[:8]}...) -> {n.client().dbsize()} keys" in out, out


def test_cluster_rebalance_onto_added_empty_node(tmp_path):
    with ClusterNodes(tmp_path, 4, node_timeout=2000) as nodes:
        addrs = create(nodes[:3])
        rc = RedisCluster(host="127.0.0.1", port=nodes[0].port, decode_responses=True,
                          socket_timeout=30)
        want = {}
        for i in range(300):
            kind = KINDS[i % len(KINDS)]
            key = f"rb:{kind}:{i}"
            want[key] = (kind, write(rc, kind, key, i))
        new = nodes[3]
        status, out = redis_cli("--cluster", "add-node", f"127.0.0.1:{new.port}", addrs[0],
                                timeout=90)
        assert status == 0 and "[OK] New node added correctly." in out, out
        assert wait_until(lambda: agree(nodes), timeout=30), [n.nodes() for n in nodes]
        # A new node turns cluster_state:ok a node timeout (the rejoin delay) after it has
        # learnt the slot owners, as Redis; until then it answers CLUSTERDOWN, RESTORE-ASKING
        # included.
        assert wait_until(lambda: info_ok(new), timeout=30)
        # Weights keep the test short: the new node's share is 0.2 / 3.2 of the slots.
        status, out = redis_cli("--cluster", "rebalance", addrs[0], "--cluster-use-empty-masters",
                                "--cluster-weight", f"{new.myid()}=0.2", timeout=300)
        assert status == 0, out[-3000:]
        assert wait_until(lambda: agree(nodes), timeout=30), [n.nodes() for n in nodes]
        check_clean(f"127.0.0.1:{new.port}")

        def count(n):
            return sum(int(r.split("-")[1]) - int(r.split("-")[0]) + 1 if "-" in r else 1
                       for r in n.nodes()[n.myid()]["slots"])
        counts = [count(n) for n in nodes]
        assert sum(counts) == 16384 and 1000 <= counts[3] <= 1050, counts
        assert all(5100 <= c <= 5130 for c in counts[:3]), counts
        assert verify_all(RedisCluster(socket_timeout=30, host="127.0.0.1", port=new.port,
                                       decode_responses=True), want) == []
        assert sum(n.client().dbsize() for n in nodes) == len(want)
        # Balanced already: a second rebalance moves nothing.
        status, out = redis_cli("--cluster", "rebalance", addrs[1], "--cluster-weight",
                                f"{new.myid()}=0.2", timeout=60)
        assert status == 0 and "No rebalancing needed!" in out, out
