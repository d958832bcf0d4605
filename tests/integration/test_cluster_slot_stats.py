"""CLUSTER SLOT-STATS (Redis 8.0): key-count per slot of the slots this node serves, by
SLOTSRANGE or ORDERBY, with Redis 8.8's replies and errors (docs/cluster.md). Every case
runs on HotKV and on Redis 8.8 (../shared/peers) as the reference (that one with
HOTKV_SLOW_TESTS=1, `make cluster-test`).
"""
import os
import socket

import pytest
import redis

from cluster_util import HOTKV, ClusterNodes, is_redis, slow, wait_until
from helpers_dump import REDIS88

pytestmark = pytest.mark.hotkv_only

BINARIES = [pytest.param(HOTKV, id="hotkv"),
            # The reference run goes with the slow cluster cases (make cluster-test).
            pytest.param(REDIS88, id="redis88",
                         marks=[slow, pytest.mark.skipif(not REDIS88 or not os.access(REDIS88, os.X_OK),
                                                         reason="needs Redis 8.8")])]
if is_redis(HOTKV):
    BINARIES = BINARIES[1:]


def slot_stats(c, *args):
    return c.execute_command("CLUSTER", "SLOT-STATS", *args)


@pytest.mark.parametrize("binary", BINARIES)
def test_slot_stats_key_count(tmp_path, binary):
    with ClusterNodes(tmp_path, 1, binaries=binary, node_timeout=1000) as (n,):
        c = n.client()
        c.execute_command("CLUSTER", "ADDSLOTSRANGE", 0, 16383)
        c.execute_command("CLUSTER", "DELSLOTSRANGE", 100, 200)
        c.config_set("cluster-require-full-coverage", "no")
        assert wait_until(lambda: b"cluster_state:ok" in c.execute_command("CLUSTER", "INFO"),
                          timeout=30)
        sa, sb, sc = (int(c.execute_command("CLUSTER", "KEYSLOT", k)) for k in ("a", "b", "c"))
        for i in range(3):
            c.set(f"{{a}}{i}", "v")
        c.set("b", "v")
        c.set("c", "v")
        assert slot_stats(c, "SLOTSRANGE", sa, sa) == [[sa, [b"key-count", 3]]]
        # Unserved slots are left out.
        assert slot_stats(c, "slotsrange", 99, 201) == [[99, [b"key-count", 0]],
                                                       [201, [b"key-count", 0]]]
        # DESC by default, equal counts in slot order.
        top = slot_stats(c, "ORDERBY", "key-count", "LIMIT", 3)
        assert top == [[sa, [b"key-count", 3]]] + sorted(
            [[sb, [b"key-count", 1]], [sc, [b"key-count", 1]]])
        assert slot_stats(c, "ORDERBY", "KEY-COUNT", "LIMIT", 2, "ASC") == \
            [[0, [b"key-count", 0]], [1, [b"key-count", 0]]]
        assert slot_stats(c, "orderby", "key-count", "limit", 1, "desc") == [[sa, [b"key-count", 3]]]
        assert len(slot_stats(c, "ORDERBY", "key-count")) == 16384 - 101  # no LIMIT: all
        assert len(slot_stats(c, "ORDERBY", "key-count", "LIMIT", 16384)) == 16384 - 101
        # RESP3: the statistics are a map.
        with socket.create_connection(("127.0.0.1", n.port), timeout=10) as sock:
            sock.sendall(f"HELLO 3\r\nCLUSTER SLOT-STATS SLOTSRANGE {sa} {sa}\r\n".encode())
            want = f"*1\r\n*2\r\n:{sa}\r\n%1\r\n$9\r\nkey-count\r\n:3\r\n".encode()
            got = b""
            for _ in range(100):  # until the second reply is complete (bounded)
                if got.endswith(want):
                    break
                data = sock.recv(65536)
                assert data
                got += data
            assert got.endswith(want), got
        errors = [
            (["SLOTSRANGE"], "wrong number of arguments for 'cluster|slot-stats' command"),
            (["SLOTSRANGE", 1], "unknown subcommand or wrong number of arguments for 'SLOT-STATS'. Try CLUSTER HELP."),
            (["SLOTSRANGE", 1, 2, 3], "unknown subcommand or wrong number of arguments for 'SLOT-STATS'. Try CLUSTER HELP."),
            (["FOO", "a", "b"], "unknown subcommand or wrong number of arguments for 'SLOT-STATS'. Try CLUSTER HELP."),
            (["SLOTSRANGE", "a", "b"], "Invalid or out of range slot"),
            (["SLOTSRANGE", -1, 5], "Invalid or out of range slot"),
            (["SLOTSRANGE", 5, 16384], "Invalid or out of range slot"),
            (["SLOTSRANGE", 5, 2], "Start slot number 5 is greater than end slot number 2"),
            (["ORDERBY", "key-count", "LIMIT"], "syntax error"),
            (["ORDERBY", "key-count", "FOO"], "syntax error"),
            (["ORDERBY", "key-count", "LIMIT", "x"], "Limit has to lie in between 1 and 16384 (maximum number of slots)."),
            (["ORDERBY", "key-count", "LIMIT", 0], "Limit has to lie in between 1 and 16384 (maximum number of slots)."),
            (["ORDERBY", "key-count", "LIMIT", 16385], "Limit has to lie in between 1 and 16384 (maximum number of slots)."),
            (["ORDERBY", "key-count", "ASC", "DESC"], "Multiple filters of the same type are disallowed."),
            (["ORDERBY", "key-count", "LIMIT", 2, "LIMIT", 3], "Multiple filters of the same type are disallowed."),
            (["ORDERBY", "memory-bytes"], "Unrecognized sort metric for ORDERBY."),
            # Off by default (cluster-slot-stats-enabled no): not a metric then.
            (["ORDERBY", "cpu-usec"], "Unrecognized sort metric for ORDERBY."),
            (["ORDERBY", "network-bytes-in"], "Unrecognized sort metric for ORDERBY."),
        ]
        for args, text in errors:
            with pytest.raises(redis.ResponseError) as e:
                slot_stats(c, *args)
            assert str(e.value) == text, (args, str(e.value))


@pytest.mark.parametrize("binary", BINARIES)
def test_slot_stats_cpu_and_network(tmp_path, binary):
    with ClusterNodes(tmp_path, 1, binaries=binary, node_timeout=1000) as (n,):
        c = n.client()
        c.execute_command("CLUSTER", "ADDSLOTSRANGE", 0, 16383)
        assert wait_until(lambda: b"cluster_state:ok" in c.execute_command("CLUSTER", "INFO"),
                          timeout=30)
        s = int(c.execute_command("CLUSTER", "KEYSLOT", "{zz}"))
        c.set("{zz}x", "1")  # not counted: stats off
        c.config_set("cluster-slot-stats-enabled", "cpu net")
        c.set("{zz}a", "2")                          # 31 bytes in, "+OK\r\n" 5 out
        c.get("{zz}a")                               # 24 in, "$1\r\n2\r\n" 7 out
        c.execute_command("MGET", "{zz}a", "{zz}b")  # 36 in, 16 out
        c.ping()                                     # keyless: no slot
        (slot, stats), = slot_stats(c, "SLOTSRANGE", s, s)
        stats = dict(zip(stats[::2], stats[1::2]))
        assert slot == s
        assert set(stats) == {b"key-count", b"cpu-usec", b"network-bytes-in", b"network-bytes-out"}
        assert stats[b"key-count"] == 2
        assert stats[b"network-bytes-in"] == 91
        assert stats[b"network-bytes-out"] == 28
        assert stats[b"cpu-usec"] >= 0
        assert slot_stats(c, "ORDERBY", "network-bytes-in", "LIMIT", 1)[0][0] == s
        assert slot_stats(c, "ORDERBY", "network-bytes-out", "LIMIT", 1)[0][0] == s
        assert len(slot_stats(c, "ORDERBY", "cpu-usec", "LIMIT", 5)) == 5
        # net only: cpu-usec leaves the reply and the metrics.
        c.config_set("cluster-slot-stats-enabled", "net")
        (_, stats), = slot_stats(c, "SLOTSRANGE", s, s)
        assert stats == [b"key-count", 2, b"network-bytes-in", 91, b"network-bytes-out", 28]
        with pytest.raises(redis.ResponseError, match="Unrecognized sort metric"):
            slot_stats(c, "ORDERBY", "cpu-usec")
        c.config_set("cluster-slot-stats-enabled", "no")
        assert slot_stats(c, "SLOTSRANGE", s, s) == [[s, [b"key-count", 2]]]
