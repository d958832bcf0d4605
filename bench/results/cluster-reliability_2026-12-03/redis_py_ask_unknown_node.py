"""redis-py 4.3.4 ASK handling vs a 2-node cluster (Redis 7.0 or HotKV: argv[1]); slot of z1 MIGRATING a -> b.
Plain RedisCluster vs the test's AskFollowingCluster (tests/integration/test_cluster_migration.py).
Run from tests/integration. Output: redis_py_ask_bugs.txt."""
import sys, tempfile
sys.path.insert(0, ".")
from cluster_util import ClusterNodes, wait_until, REDIS70
from test_cluster_migration import AskFollowingCluster
from redis.cluster import RedisCluster
binary = sys.argv[1]
with tempfile.TemporaryDirectory() as d, ClusterNodes(d, 2, binaries=binary, node_timeout=2000) as (a, b):
    a.client().execute_command("CLUSTER", "ADDSLOTSRANGE", 0, 16383)
    a.client().execute_command("CLUSTER", "MEET", "127.0.0.1", b.port)
    assert wait_until(lambda: len(b.nodes()) == 2 and len(a.nodes()) == 2 and
                      b"cluster_state:ok" in b.client().execute_command("CLUSTER", "INFO"), timeout=30)
    slot = int(a.client().execute_command("CLUSTER", "KEYSLOT", "z1"))
    for cls in (RedisCluster, AskFollowingCluster):
        rc = cls(host="127.0.0.1", port=a.port, decode_responses=True)
        b.client().execute_command("CLUSTER", "SETSLOT", slot, "IMPORTING", a.myid())
        a.client().execute_command("CLUSTER", "SETSLOT", slot, "MIGRATING", b.myid())
        for what, f in (("zrange", lambda: rc.zrange("z1", 0, -1, withscores=True)),
                        ("set", lambda: rc.set("z1x", "v") if False else rc.zadd("z1", {"m": 1}))):
            try:
                print(cls.__name__, what, "->", f())
            except Exception as e:
                print(cls.__name__, what, "-> ERROR", repr(e)[:120])
        b.client().execute_command("CLUSTER", "SETSLOT", slot, "STABLE")
        a.client().execute_command("CLUSTER", "SETSLOT", slot, "STABLE")
