"""Slots taken away over the bus, and what happens to the keys and blocked clients left in
them (docs/cluster.md, "Slots taken away"):

- a node whose slot another node claims with a higher config epoch deletes the keys it
  still holds there (Redis's dirty slots, delKeysInSlot), keeps its other keys, and stays
  an empty primary when it was its last slot;
- clients blocked on keys (BLPOP, XREAD BLOCK, BZPOPMIN, BLMOVE) get -MOVED when the
  key's slot moved to another node, -CLUSTERDOWN Hash slot not served when the slot
  became unassigned, -CLUSTERDOWN The cluster is down when the cluster went down
  (Redis's clusterRedirectBlockedClientIfNeeded); clients blocked on keys still served
  stay blocked.

Each test runs on HotKV and, as the reference, on Debian's Redis 7.0 (that run with
HOTKV_SLOW_TESTS=1, `make cluster-test`). Waits are bounded polls; nothing asserts timing.
"""
import os
import socket

import pytest

from cluster_util import HOTKV, REDIS70, ClusterNodes, is_redis, slow, wait_until

pytestmark = pytest.mark.hotkv_only

_have_redis = os.access(REDIS70, os.X_OK)
BINARIES = [pytest.param(HOTKV, id="hotkv"),
            # The reference run (Redis 7.0) goes with the slow cluster cases (make cluster-test).
            pytest.param(REDIS70, id="redis70",
                         marks=[slow, pytest.mark.skipif(not _have_redis, reason="needs redis-server")])]
if is_redis(HOTKV):
    BINARIES = BINARIES[1:]


def _s(v):
    return v.decode() if isinstance(v, bytes) else v


def _encode(args):
    out = [b"*%d\r\n" % len(args)]
    for a in args:
        a = a if isinstance(a, bytes) else str(a).encode()
        out.append(b"$%d\r\n%s\r\n" % (len(a), a))
    return b"".join(out)


class Raw:
    """A plain connection that sends one command and reads its reply's first line (no
    client library in between, so -MOVED is seen as sent)."""

    def __init__(self, port, *args):
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=20)
        self.sock.sendall(_encode(args))
        self.buf = b""

    def pending(self):
        """True while no reply arrived (checked without waiting)."""
        self.sock.setblocking(False)
        try:
            data = self.sock.recv(65536)
            if data == b"":
                return False
            self.buf += data
            return False
        except BlockingIOError:
            return not self.buf
        finally:
            self.sock.setblocking(True)
            self.sock.settimeout(20)

    def line(self):
        while b"\r\n" not in self.buf:
            data = self.sock.recv(65536)
            assert data, "connection closed"
            self.buf += data
        return self.buf.split(b"\r\n", 1)[0].decode()

    def close(self):
        self.sock.close()


def blocked_count(node):
    return node.client().info("clients")["blocked_clients"]


def keyslot(node, key):
    return int(node.client().execute_command("CLUSTER", "KEYSLOT", key))


def count_in_slot(node, slot):
    return int(node.client().execute_command("CLUSTER", "COUNTKEYSINSLOT", slot))


def state_ok(node):
    return "cluster_state:ok" in _s(node.client().execute_command("CLUSTER", "INFO"))


def form_two(a, b):
    """a serves 8192-16383 (where "{t}" and "{u}" hash), b 0-8191; waits until both agree
    and are ok."""
    a.client().execute_command("CLUSTER", "ADDSLOTSRANGE", 8192, 16383)
    b.client().execute_command("CLUSTER", "ADDSLOTSRANGE", 0, 8191)
    a.client().execute_command("CLUSTER", "MEET", "127.0.0.1", b.port)

    def ready():
        ids = {a.myid(), b.myid()}
        for n in (a, b):
            v = n.nodes()
            if set(v) != ids or any("handshake" in e["flags"] for e in v.values()):
                return False
            if v[a.myid()]["epoch"] == v[b.myid()]["epoch"]:
                return False
        return state_ok(a) and state_ok(b)
    assert wait_until(ready, timeout=30), (a.nodes(), b.nodes())


@pytest.mark.parametrize("binary", BINARIES)
def test_slot_taken_by_higher_epoch_deletes_keys_and_redirects_blocked(tmp_path, binary):
    extra = ["--appendonly", "yes"] if not is_redis(binary) else []
    with ClusterNodes(tmp_path, 2, binaries=binary, node_timeout=2000, extra=extra) as (a, b):
        form_two(a, b)
        ca = a.client()
        st, su = keyslot(a, "{t}"), keyslot(a, "{u}")
        assert st >= 8192 and su >= 8192 and st != su
        # Keys of several types in the slot that will be taken, and in one that stays.
        for i in range(60):
            ca.set(f"{{t}}s{i}", "v")
            ca.set(f"{{u}}s{i}", "v")
        ca.hset("{t}h", mapping={"f": "1"})
        ca.rpush("{t}l", "a", "b")
        ca.zadd("{t}z", {"m": 1.5})
        ca.xadd("{t}x", {"f": "v"})
        ca.sadd("{u}set", "a")
        ca.execute_command("EXPIRE", "{t}s0", 1000)
        assert count_in_slot(a, st) == 64
        assert count_in_slot(a, su) == 61
        # Clients blocked on keys of the slot that moves, and on one that stays.
        blpop = Raw(a.port, "BLPOP", "{t}empty", 0)
        xread = Raw(a.port, "XREAD", "BLOCK", 0, "STREAMS", "{t}x", "$")
        blmove = Raw(a.port, "BLMOVE", "{t}empty2", "{t}dst", "LEFT", "RIGHT", 0)
        stays = Raw(a.port, "BZPOPMIN", "{u}zz", 0)
        assert wait_until(lambda: blocked_count(a) == 4, timeout=10), blocked_count(a)

        # b claims the slot with a config epoch higher than a's.
        cb = b.client()
        cb.execute_command("CLUSTER", "SETSLOT", st, "NODE", b.myid())
        assert _s(cb.execute_command("CLUSTER", "BUMPEPOCH")).split()[0] in ("BUMPED", "STILL")
        assert wait_until(lambda: a.nodes()[b.myid()]["slots"] != ["0-8191"], timeout=30), \
            a.nodes()

        # a gave the slot up, dropped its keys there and kept the others.
        assert wait_until(lambda: count_in_slot(a, st) == 0, timeout=10), count_in_slot(a, st)
        assert count_in_slot(a, su) == 61
        assert ca.dbsize() == 61
        assert ca.get("{u}s5") == b"v"
        # The blocked clients of that slot were redirected to b; the other stays blocked.
        moved = f"-MOVED {st} 127.0.0.1:{b.port}"
        for c in (blpop, xread, blmove):
            assert c.line() == moved
            c.close()
        assert wait_until(lambda: blocked_count(a) == 1, timeout=10), blocked_count(a)
        assert stays.pending()
        ca.zadd("{u}zz", {"m": 2})
        assert stays.line() == "*3"
        stays.close()
        # b serves the slot (empty: the keys were a's, and they are gone).
        assert count_in_slot(b, st) == 0

        if not is_redis(binary):
            # The deletions went to the AOF as DELs: after a restart they stay deleted.
            a.stop()
            a.start()
            assert count_in_slot(a, st) == 0
            assert count_in_slot(a, su) == 61
            assert a.client().get("{u}s7") == b"v"


@pytest.mark.parametrize("binary", BINARIES)
def test_last_slot_taken_leaves_an_empty_primary(tmp_path, binary):
    # Redis with cluster-allow-replica-migration yes would make a a replica of b here;
    # with it off (what docs/cluster.md tells mixed clusters to set) Redis keeps a an empty
    # primary, which is what HotKV always does (no replication yet).
    extra = ["--cluster-allow-replica-migration", "no"]
    with ClusterNodes(tmp_path, 2, binaries=binary, node_timeout=2000, extra=extra) as (a, b):
        st, su = keyslot(a, "{t}"), keyslot(a, "{u}")
        a.client().execute_command("CLUSTER", "ADDSLOTS", st, su)
        b.client().execute_command("CLUSTER", "ADDSLOTS",
                                   *[s for s in range(16384) if s not in (st, su)])
        a.client().execute_command("CLUSTER", "MEET", "127.0.0.1", b.port)
        assert wait_until(lambda: len(a.nodes()) == 2 and len(b.nodes()) == 2
                          and state_ok(a) and state_ok(b), timeout=30)
        for i in range(10):
            a.client().set(f"{{t}}{i}", "v")
            a.client().set(f"{{u}}{i}", "v")
        cb = b.client()
        for s in (st, su):
            cb.execute_command("CLUSTER", "SETSLOT", s, "NODE", b.myid())
        cb.execute_command("CLUSTER", "BUMPEPOCH")
        assert wait_until(lambda: a.nodes()[a.myid()]["slots"] == [], timeout=30), a.nodes()
        assert wait_until(lambda: a.client().dbsize() == 0, timeout=10), a.client().dbsize()
        me = a.nodes()[a.myid()]
        assert "master" in me["flags"] and me["master"] == "-", me
        assert "master" in b.nodes()[a.myid()]["flags"]
        if not is_redis(binary):
            assert "staying an empty primary" in a.read_log()


@pytest.mark.parametrize("binary", BINARIES)
def test_blocked_clients_on_unserved_slot_and_cluster_down(tmp_path, binary):
    extra = ["--cluster-require-full-coverage", "no"]
    with ClusterNodes(tmp_path, 1, binaries=binary, node_timeout=1000, extra=extra) as (a,):
        c = a.client()
        c.execute_command("CLUSTER", "ADDSLOTSRANGE", 0, 16383)
        assert wait_until(lambda: state_ok(a), timeout=30)
        gone = Raw(a.port, "BLPOP", "{t}l", 0)
        stays = Raw(a.port, "BRPOP", "{u}l", 0)
        wait = Raw(a.port, "WAIT", 1, 0)  # not blocked on a key: never redirected
        assert wait_until(lambda: blocked_count(a) == 3, timeout=10), blocked_count(a)
        c.execute_command("CLUSTER", "DELSLOTS", keyslot(a, "{t}"))
        assert gone.line() == "-CLUSTERDOWN Hash slot not served"
        gone.close()
        assert wait_until(lambda: blocked_count(a) == 2, timeout=10), blocked_count(a)
        assert stays.pending()
        # Full coverage required: the cluster goes down, every key-blocked client is told.
        # (Redis re-evaluates its state on slot changes, not on CONFIG SET: a second
        # DELSLOTS makes both recompute.)
        c.config_set("cluster-require-full-coverage", "yes")
        c.execute_command("CLUSTER", "DELSLOTS", keyslot(a, "{a}"))
        assert stays.line() == "-CLUSTERDOWN The cluster is down"
        stays.close()
        assert wait_until(lambda: blocked_count(a) == 1, timeout=10), blocked_count(a)
        assert wait.pending()
        wait.close()


from helpers_dump import REDIS88  # noqa: E402  (Redis 8.8 in ../shared/peers, or None)


@pytest.mark.skipif(is_redis(HOTKV) or not _have_redis, reason="HotKV with a Redis 7.0 node")
def test_forget_spreads_with_the_forgotten_node_extension(tmp_path):
    # Three HotKV nodes, a Redis 7.0 node and (when present) a Redis 8.8 node. After a
    # node resets itself, CLUSTER FORGET of its old id on one HotKV node reaches the other
    # HotKV nodes and Redis 8.8 through the forgotten-node ping extension; Redis 7.0 does
    # not know that extension, is not sent it and logs no unknown extension.
    binaries = [HOTKV, HOTKV, HOTKV, REDIS70]
    have88 = bool(REDIS88) and os.access(REDIS88, os.X_OK)
    if have88:
        binaries.append(REDIS88)
    with ClusterNodes(tmp_path, len(binaries), binaries=binaries, node_timeout=3000) as nodes:
        a, b, c, r7 = nodes[:4]
        a.client().execute_command("CLUSTER", "ADDSLOTSRANGE", 0, 16383)
        for n in nodes[1:]:
            a.client().execute_command("CLUSTER", "MEET", "127.0.0.1", n.port)
        ids = {n.myid() for n in nodes}
        assert wait_until(lambda: all(set(n.nodes()) == ids and not any(
            "handshake" in e["flags"] for e in n.nodes().values()) for n in nodes), timeout=30), \
            [n.nodes() for n in nodes]
        gone = c.myid()
        c.client().execute_command("CLUSTER", "RESET", "HARD")
        a.client().execute_command("CLUSTER", "FORGET", gone)
        assert gone not in a.nodes()
        forgetters = [b] + ([nodes[4]] if have88 else [])
        assert wait_until(lambda: all(gone not in n.nodes() for n in forgetters), timeout=20), \
            [n.nodes() for n in forgetters]
        # Redis 7.0 still knows it (it has no such extension); a and b do not re-learn it
        # from its gossip while the ban lasts.
        assert gone in r7.nodes()
        assert gone not in a.nodes() and gone not in b.nodes()
        assert "unknown extension" not in r7.read_log()
        if have88:
            assert "unknown extension" not in nodes[4].read_log()
