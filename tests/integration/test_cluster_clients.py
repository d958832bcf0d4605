"""Cluster clients against 3 HotKV nodes made by `redis-cli --cluster create`: redis-py's
RedisCluster pipelines across slots and nodes, sharded pub/sub (SSUBSCRIBE / SPUBLISH
sent to the slot owner RedisCluster names: Debian's redis-py 4.3.4 has no sharded PubSub), and
`redis-benchmark --cluster` as a smoke test (its exit status and error lines, no timing).
ioredis's Cluster is in tests/node/cluster.test.mjs.

Waits are bounded polls; nothing asserts on timing.
"""
import shutil
import subprocess

import pytest
import redis
from redis.cluster import RedisCluster

from cluster_util import HOTKV, ClusterNodes, is_redis, redis_cli, wait_until

pytestmark = pytest.mark.hotkv_only

if is_redis(HOTKV):
    pytest.skip("HotKV cluster client tests", allow_module_level=True)

BENCH = shutil.which("redis-benchmark") or "/usr/bin/redis-benchmark"


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    with ClusterNodes(tmp_path_factory.mktemp("clients"), 3, node_timeout=2000) as nodes:
        addrs = [f"127.0.0.1:{n.port}" for n in nodes]
        status, out = redis_cli("--cluster", "create", *addrs, "--cluster-replicas", "0",
                                "--cluster-yes", timeout=90)
        assert status == 0 and "[OK] All 16384 slots covered" in out, out
        for n in nodes:
            assert wait_until(lambda n=n: b"cluster_state:ok" in
                              n.client().execute_command("CLUSTER", "INFO"), timeout=30)
            assert wait_until(lambda n=n: len(n.nodes()) == 3, timeout=30)
        yield nodes


def test_redis_py_pipeline_across_slots(cluster):
    rc = RedisCluster(host="127.0.0.1", port=cluster[0].port, decode_responses=True,
                      socket_timeout=30)
    keys = [f"pipe:{i}" for i in range(200)]
    slots = {rc.keyslot(k) for k in keys}
    assert len(slots) > 150
    pipe = rc.pipeline()
    for i, k in enumerate(keys):
        pipe.set(k, i)
        pipe.incrby(f"{k}:n", i)
        pipe.rpush(f"{{{k}}}:l", "a", "b")
    res = pipe.execute()
    assert res == [x for i in range(200) for x in (True, i, 2)]
    pipe = rc.pipeline()
    for k in keys:
        pipe.get(k)
        pipe.lrange(f"{{{k}}}:l", 0, -1)
    res = pipe.execute()
    assert res == [x for i in range(200) for x in (str(i), ["a", "b"])]
    # The keys landed on every node, each on its slot's owner.
    sizes = [n.client().dbsize() for n in cluster]
    assert all(s > 0 for s in sizes) and sum(sizes) >= 600, sizes
    # A pipelined command that fails on the server comes back in its place.
    pipe = rc.pipeline()
    pipe.set("pipe:x", "1")
    pipe.lpush("pipe:x", "a")
    pipe.get("pipe:x")
    res = pipe.execute(raise_on_error=False)
    assert res[0] is True and isinstance(res[1], redis.ResponseError) and res[2] == "1"
    assert "WRONGTYPE" in str(res[1])


def test_redis_py_sharded_pubsub(cluster):
    rc = RedisCluster(socket_timeout=30, host="127.0.0.1", port=cluster[0].port)
    channels = [b"news{a}", b"news{b}", b"news{zz}", b"other{a}"]
    subs = []
    for ch in channels:
        owner = rc.get_node_from_key(ch)
        conn = redis.Connection(host=owner.host, port=owner.port, socket_timeout=5)
        conn.send_command("SSUBSCRIBE", ch)
        assert conn.read_response() == [b"ssubscribe", ch, 1]
        subs.append((ch, conn, owner))
    try:
        for ch, _, _ in subs:
            # redis-py 4.3.4 has no sharded pub/sub (its key parser knows PUBLISH only):
            # SPUBLISH goes to the slot owner RedisCluster names for the channel.
            assert rc.execute_command("SPUBLISH", ch, b"hello " + ch,
                                      target_nodes=rc.get_node_from_key(ch)) == 1
        for ch, conn, _ in subs:
            assert conn.read_response() == [b"smessage", ch, b"hello " + ch]
        # On another node: MOVED (redis-py's plain client raises it).
        ch, _, owner = subs[0]
        other = next(n for n in cluster if n.port != owner.port)
        with pytest.raises(redis.ResponseError) as err:
            other.client().execute_command("SPUBLISH", ch, "x")
        assert str(err.value).startswith(f"MOVED {rc.keyslot(ch)} ")
        # SSUBSCRIBE of channels in two slots: CROSSSLOT.
        with pytest.raises(redis.exceptions.ClusterCrossSlotError):
            owner.redis_connection.execute_command("SSUBSCRIBE", "news{a}", "news{b}")
        # A channel nobody listens to: 0 receivers.
        assert rc.execute_command("SPUBLISH", "nobody{q}", "x",
                                  target_nodes=rc.get_node_from_key("nobody{q}")) == 0
    finally:
        for _, conn, _ in subs:
            conn.disconnect()


@pytest.mark.skipif(not shutil.which(BENCH), reason="needs redis-benchmark")
def test_redis_benchmark_cluster_smoke(cluster):
    p = subprocess.run([BENCH, "--cluster", "-h", "127.0.0.1", "-p", str(cluster[1].port),
                        "-t", "set,get", "-n", "20000", "-c", "8", "-q"],
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=120,
                       stdin=subprocess.DEVNULL)
    out = p.stdout.decode(errors="replace")
    assert p.returncode == 0, out
    assert "Cluster has 3 master nodes" in out, out
    assert "SET:" in out and "GET:" in out, out
    for word in ("error", "Error", "ERR", "MOVED", "ASK", "CLUSTERDOWN"):
        assert word not in out, out
    # Its keys went to every node (key tags per node).
    assert all(n.client().dbsize() > 0 for n in cluster)
