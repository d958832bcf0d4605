"""Cluster failure detection in network namespaces (docs/cluster.md, "Failure detection").

Each server runs in its own namespace (`ip netns exec`), joined by a veth pair to a bridge
made by the test; a node is cut off by setting its link down, healed by setting it up,
slowed with `tc tbf` (no netem on this kernel). Everything is removed on exit
(netns_util.NetLab). Needs root; skipped when `ip netns add` is not permitted.

cluster-node-timeout is 1000 ms. Failure must be seen within 2 x node-timeout; the tests
poll CLUSTER NODES with generous bounds and never assert on timing beyond them (the time
seen is printed). The mixed HotKV / Redis 7.0 cases run with HOTKV_SLOW_TESTS=1
(`make cluster-test`).
"""
import os
import time

import pytest
import redis

from cluster_util import HOTKV, REDIS70, is_redis, wait_until
from netns_util import NetLab, PORT, unavailable_reason

pytestmark = pytest.mark.hotkv_only

if is_redis(HOTKV):
    pytest.skip("HotKV cluster failure tests", allow_module_level=True)

_why = unavailable_reason()
if _why:
    pytest.skip(_why, allow_module_level=True)

TIMEOUT_MS = 1000
BOUND = 15  # seconds: the generous bound on every wait
SLOW = os.environ.get("HOTKV_SLOW_TESTS") == "1"
slow = pytest.mark.skipif(not SLOW, reason="slow: set HOTKV_SLOW_TESTS=1 (make cluster-test)")


def _s(v):
    return v.decode() if isinstance(v, bytes) else v


def parse_nodes(raw):
    out = {}
    for line in _s(raw).strip().splitlines():
        f = line.split()
        if len(f) < 8:
            continue
        out[f[0]] = {"addr": f[1], "flags": set(f[2].split(",")), "master": f[3],
                     "epoch": int(f[6]), "link": f[7], "slots": f[8:]}
    return out


class Cluster:
    """N primaries, one per namespace, slots split evenly, formed by MEET."""

    def __init__(self, lab, workdir, binaries):
        self.lab = lab
        self.workdir = workdir
        self.binaries = binaries
        self.n = len(binaries)
        self.ids = []
        self.ranges = []

    def start(self):
        for i, b in enumerate(self.binaries):
            self.lab.start_server(i, b, ["--cluster-enabled", "yes",
                                         "--cluster-config-file", "nodes.conf",
                                         "--cluster-node-timeout", str(TIMEOUT_MS),
                                         "--cluster-announce-ip", self.lab.ip(i)], self.workdir)
        per = 16384 // self.n
        for i in range(self.n):
            lo, hi = i * per, (16383 if i == self.n - 1 else (i + 1) * per - 1)
            self.ranges.append((lo, hi))
            self.c(i).execute_command("CLUSTER", "ADDSLOTSRANGE", lo, hi)
            self.ids.append(_s(self.c(i).execute_command("CLUSTER", "MYID")))
        for i in range(1, self.n):
            self.c(0).execute_command("CLUSTER", "MEET", self.lab.ip(i), PORT)
        assert wait_until(self.healthy, timeout=60), self.views()
        return self

    def c(self, i):
        return self.lab.client(i)

    def nodes(self, i):
        return parse_nodes(self.c(i).execute_command("CLUSTER", "NODES"))

    def nodes_inside(self, i):
        """CLUSTER NODES asked from inside node i's namespace (works while it is cut off)."""
        return parse_nodes(self.lab.cli(i, "CLUSTER", "NODES"))

    def state(self, i):
        info = _s(self.c(i).execute_command("CLUSTER", "INFO"))
        return info.split("cluster_state:")[1].split()[0]

    def views(self):
        out = []
        for i in range(self.n):
            try:
                out.append(_s(self.c(i).execute_command("CLUSTER", "NODES")))
            except redis.exceptions.RedisError as e:
                out.append(repr(e))
        return out

    def agree(self):
        """Every node knows every node by the same id, none failing, same slots/epochs."""
        views = [self.nodes(i) for i in range(self.n)]
        for v in views:
            if set(v) != set(self.ids):
                return False
            for e in v.values():
                if e["flags"] & {"handshake", "fail?", "fail", "noaddr"} or e["link"] != "connected":
                    return False
        for nid in self.ids:
            if len({(tuple(v[nid]["slots"]), v[nid]["epoch"], v[nid]["addr"]) for v in views}) != 1:
                return False
        return True

    def healthy(self):
        return self.agree() and all(self.state(i) == "ok" for i in range(self.n))

    def key_of(self, i, tag="k"):
        """A key whose slot node i serves."""
        lo, hi = self.ranges[i]
        for j in range(100000):
            k = f"{tag}{j}"
            if lo <= self.c(i).execute_command("CLUSTER", "KEYSLOT", k) <= hi:
                return k
        raise AssertionError("no key found")

    def config_all(self, name, value, nodes=None):
        for i in (range(self.n) if nodes is None else nodes):
            self.c(i).config_set(name, value)


def flags_of(view, nid):
    return view.get(nid, {}).get("flags", set())


def wait_failed(cl, survivors, nid):
    """Polls until every survivor flags nid FAIL; returns the seconds it took (or None).
    Also records whether any survivor was seen with PFAIL (fail?) first."""
    t0 = time.time()
    seen_pfail = [False]

    def failed():
        views = [cl.nodes(i) for i in survivors]
        if any("fail?" in flags_of(v, nid) for v in views):
            seen_pfail[0] = True
        return all("fail" in flags_of(v, nid) for v in views)
    ok = wait_until(failed, timeout=BOUND, interval=0.02)
    return (time.time() - t0 if ok else None), seen_pfail[0]


def expect_error(fn, text):
    with pytest.raises(redis.exceptions.RedisError) as err:
        fn()
    assert text in str(err.value), str(err.value)
    return str(err.value)


def pending_link_events(cl, i, nid):
    """CLUSTER LINKS of node i: the events of its outbound link to nid, None without one."""
    for link in cl.c(i).execute_command("CLUSTER", "LINKS"):
        d = dict(zip(link[::2], link[1::2]))
        if d[b"direction"] == b"to" and d[b"node"] == nid.encode():
            return _s(d[b"events"])
    return None


def check_down_replies(cl, i, own, other, lost_key, own_value):
    """Node i is in cluster_state:fail; cluster-allow-reads-when-down is switched on here
    and back off. The same replies as Redis 7.0's (the mixed test runs this on Redis)."""
    c = cl.c(i)
    cl.config_all("cluster-allow-reads-when-down", "no", nodes=(i,))
    for fn in (lambda: c.get(own), lambda: c.get(other), lambda: c.get(lost_key),
               lambda: c.set(own, "x")):
        expect_error(fn, "CLUSTERDOWN The cluster is down")
    assert c.ping() and c.dbsize() >= 0  # keyless commands are served
    cl.config_all("cluster-allow-reads-when-down", "yes", nodes=(i,))
    assert c.get(own) == own_value
    expect_error(lambda: c.get(other), "MOVED")  # reads follow the normal path
    for fn in (lambda: c.set(own, "x"), lambda: c.set(other, "x")):
        expect_error(fn, "CLUSTERDOWN The cluster is down and only accepts read commands")
    cl.config_all("cluster-allow-reads-when-down", "no", nodes=(i,))


@pytest.fixture
def lab3(tmp_path):
    with NetLab(3) as lab:
        yield lab, tmp_path


def test_cut_off_primary_fail_clusterdown_and_heal(lab3):
    lab, tmp = lab3
    cl = Cluster(lab, tmp, [HOTKV] * 3).start()
    keys = [cl.key_of(i) for i in range(3)]
    for i, k in enumerate(keys):
        assert cl.c(i).set(k, f"v{i}")
    cl.config_all("cluster-require-full-coverage", "yes")
    cl.config_all("cluster-allow-reads-when-down", "no")
    lost = 2
    lost_id = cl.ids[lost]
    lab.cut(lost)

    # The two survivors flag it FAIL (PFAIL first, then the majority's FAIL).
    took, pfail = wait_failed(cl, [0, 1], lost_id)
    assert took is not None, cl.views()[:2]
    print(f"cut-off node FAIL on both survivors after {took:.2f} s "
          f"(node timeout {TIMEOUT_MS} ms, PFAIL seen first: {pfail})")
    # FAIL came from the other survivor's report (its gossip flags the node PFAIL/FAIL).
    for i in (0, 1):
        assert wait_until(lambda: cl.c(i).execute_command(
            "CLUSTER", "COUNT-FAILURE-REPORTS", lost_id) >= 1, timeout=BOUND)
    # Its link column reads "connected" while the survivors' reconnects are pending, as
    # Redis 7.0 and 8 print it (a link object exists), between rebuilds "disconnected".
    assert wait_until(lambda: cl.nodes(0)[lost_id]["link"] == "connected", timeout=BOUND,
                      interval=0.02), cl.views()[0]
    # CLUSTER LINKS: the pending link has no read or write handler yet (events ""), as Redis.
    assert wait_until(lambda: pending_link_events(cl, 0, lost_id) == "", timeout=BOUND,
                      interval=0.02), cl.c(0).execute_command("CLUSTER", "LINKS")
    # The cut-off node cannot reach a majority: it flags the others PFAIL (fail?) and,
    # alone, never FAIL; its own state is fail.
    inside = wait_until(lambda: (lambda v: v if all("fail?" in flags_of(v, cl.ids[i]) for i in (0, 1))
                                 else None)(cl.nodes_inside(lost)), timeout=BOUND)
    assert inside, lab.cli(lost, "CLUSTER", "NODES")
    assert not any("fail" in flags_of(inside, cl.ids[i]) for i in (0, 1)), inside
    assert wait_until(lambda: "cluster_state:fail" in lab.cli(lost, "CLUSTER", "INFO"), timeout=BOUND)
    assert "CLUSTERDOWN The cluster is down" in lab.cli(lost, "GET", keys[lost])

    # cluster-require-full-coverage yes: the survivors are down for every slot;
    # cluster-allow-reads-when-down yes serves reads and refuses writes.
    for i in (0, 1):
        assert wait_until(lambda: cl.state(i) == "fail", timeout=BOUND)
        check_down_replies(cl, i, keys[i], keys[1 - i], keys[lost], f"v{i}".encode())
    # ... on the minority side too (asked from inside its namespace).
    lab.cli(lost, "CONFIG", "SET", "cluster-allow-reads-when-down", "yes")
    assert lab.cli(lost, "GET", keys[lost]).strip() == "v2"
    assert "only accepts read commands" in lab.cli(lost, "SET", keys[lost], "x")

    # cluster-require-full-coverage no: the survivors (a majority) are ok again and serve
    # their own slots; the lost node's slots still redirect to it (as Redis does).
    cl.config_all("cluster-require-full-coverage", "no", nodes=(0, 1))
    for i in (0, 1):
        assert wait_until(lambda: cl.state(i) == "ok", timeout=BOUND), cl.views()[i]
        assert cl.c(i).get(keys[i]) == f"v{i}".encode()
        assert cl.c(i).set(keys[i], f"w{i}")
        expect_error(lambda: cl.c(i).get(keys[lost]), f"MOVED")
    # The minority node stays down whatever its coverage setting.
    lab.cli(lost, "CONFIG", "SET", "cluster-require-full-coverage", "no")
    assert "cluster_state:fail" in lab.cli(lost, "CLUSTER", "INFO")

    # Heal: FAIL and PFAIL cleared, state ok everywhere, every view the same.
    lab.heal(lost)
    assert wait_until(cl.healthy, timeout=BOUND * 2), cl.views()
    assert cl.c(0).get(keys[0]) == b"w0" and cl.c(1).get(keys[1]) == b"w1"
    assert cl.c(lost).get(keys[lost]) == b"v2"
    assert cl.c(lost).set(keys[lost], "w2")


def test_paused_primary_fail_and_return(lab3):
    # A stopped (SIGSTOP) process keeps its TCP connections open but answers nothing.
    lab, tmp = lab3
    cl = Cluster(lab, tmp, [HOTKV] * 3).start()
    cl.config_all("cluster-require-full-coverage", "yes")
    k0 = cl.key_of(0)
    lost_id = cl.ids[1]
    lab.pause(1)
    try:
        took, _ = wait_failed(cl, [0, 2], lost_id)
        assert took is not None, [cl.views()[i] for i in (0, 2)]
        print(f"paused node FAIL on both survivors after {took:.2f} s")
        assert wait_until(lambda: cl.state(0) == "fail", timeout=BOUND)
        expect_error(lambda: cl.c(0).get(k0), "CLUSTERDOWN")
    finally:
        lab.resume(1)
    assert wait_until(cl.healthy, timeout=BOUND * 2), cl.views()
    assert cl.c(0).set(k0, "after")


def test_slow_link_no_false_fail(lab3):
    lab, tmp = lab3
    cl = Cluster(lab, tmp, [HOTKV] * 3).start()
    # 256 kbit/s both ways: a 2 KB bus packet takes ~70 ms to cross, still well inside
    # the node timeout; the bus must not flag the node (nor the others) failing.
    lab.slow(2)
    deadline = time.time() + 4 * TIMEOUT_MS / 1000
    polls = 0
    while time.time() < deadline:
        for i in range(3):
            v = cl.nodes(i)
            bad = {nid: e["flags"] for nid, e in v.items() if e["flags"] & {"fail?", "fail"}}
            assert not bad, (i, bad, cl.views())
        polls += 1
        time.sleep(0.1)
    assert polls > 5
    # The shaping was in effect: bus traffic went through both token buckets.
    stats = lab.qdisc_stats(2)
    assert stats.count("tbf") == 2, stats
    assert healthy_after(cl)
    lab.unslow(2)


def healthy_after(cl):
    return wait_until(cl.healthy, timeout=BOUND)


@slow
@pytest.mark.skipif(not os.access(REDIS70, os.X_OK), reason="needs /usr/bin/redis-server")
@pytest.mark.parametrize("lost", [0, 2], ids=["redis-cut-off", "hotkv-cut-off"])
def test_mixed_cluster_cut_off_and_heal(lab3, lost):
    # Two Redis 7.0 primaries and one HotKV primary: HotKV's and Redis's failure reports
    # must meet in each other's gossip for the 2-of-3 majority.
    lab, tmp = lab3
    cl = Cluster(lab, tmp, [REDIS70, REDIS70, HOTKV]).start()
    survivors = [i for i in range(3) if i != lost]
    cl.config_all("cluster-require-full-coverage", "yes")
    keys = [cl.key_of(i) for i in range(3)]
    for i in range(3):
        assert cl.c(i).set(keys[i], f"v{i}")
    lab.cut(lost)
    took, _ = wait_failed(cl, survivors, cl.ids[lost])
    assert took is not None, cl.views()
    print(f"mixed: node {lost} FAIL on both survivors after {took:.2f} s")
    for i in survivors:
        assert wait_until(lambda: cl.c(i).execute_command(
            "CLUSTER", "COUNT-FAILURE-REPORTS", cl.ids[lost]) >= 1, timeout=BOUND)
    for i in survivors:  # the link column and LINKS, as Redis prints them (see the HotKV-only test)
        assert wait_until(lambda: cl.nodes(i)[cl.ids[lost]]["link"] == "connected",
                          timeout=BOUND, interval=0.02), cl.views()[i]
        assert wait_until(lambda: pending_link_events(cl, i, cl.ids[lost]) == "", timeout=BOUND,
                          interval=0.02), cl.c(i).execute_command("CLUSTER", "LINKS")
    for i in survivors:
        assert wait_until(lambda: cl.state(i) == "fail", timeout=BOUND)
        other = [j for j in survivors if j != i][0]
        check_down_replies(cl, i, keys[i], keys[other], keys[lost], f"v{i}".encode())
    cl.config_all("cluster-require-full-coverage", "no", nodes=survivors)
    for i in survivors:
        assert wait_until(lambda: cl.state(i) == "ok", timeout=BOUND), cl.views()
        assert cl.c(i).set(keys[i], "x")
        expect_error(lambda: cl.c(i).get(keys[lost]), "MOVED")
    lab.heal(lost)
    assert wait_until(cl.healthy, timeout=BOUND * 2), cl.views()


@slow
@pytest.mark.parametrize("kind", ["hotkv", "mixed"])
def test_five_primaries_split_two_three_and_heal(tmp_path, kind):
    # A 2 | 3 partition: the majority side flags the two FAIL (3 of 5 primaries agree);
    # the minority side can only suspect (PFAIL) and is down, whatever its settings.
    # Mixed: Redis 7.0 and HotKV on both sides of the split.
    if kind == "mixed" and not os.access(REDIS70, os.X_OK):
        pytest.skip("needs /usr/bin/redis-server")
    binaries = [HOTKV] * 5 if kind == "hotkv" else [REDIS70, HOTKV, REDIS70, HOTKV, REDIS70]
    with NetLab(5) as lab:
        cl = Cluster(lab, tmp_path, binaries).start()
        cl.config_all("cluster-require-full-coverage", "no")
        keys = [cl.key_of(i) for i in range(5)]
        minority, majority = [3, 4], [0, 1, 2]
        lab.partition(minority)
        for nid in (cl.ids[3], cl.ids[4]):
            took, _ = wait_failed(cl, majority, nid)
            assert took is not None, cl.views()
        for i in majority:
            assert wait_until(lambda: cl.state(i) == "ok", timeout=BOUND), cl.views()
            assert cl.c(i).set(keys[i], "x")
        for m in minority:
            def suspects(m=m):
                v = cl.nodes_inside(m)
                return all("fail?" in flags_of(v, cl.ids[i]) for i in majority) and v
            v = wait_until(suspects, timeout=BOUND)
            assert v, lab.cli(m, "CLUSTER", "NODES")
            # The two minority nodes still see each other.
            other = cl.ids[7 - m]
            assert not flags_of(v, other) & {"fail?", "fail"}, v
            assert wait_until(lambda: "cluster_state:fail" in lab.cli(m, "CLUSTER", "INFO"),
                              timeout=BOUND)
            assert "CLUSTERDOWN" in lab.cli(m, "GET", keys[m])
        # No majority node was ever FAIL on the minority side.
        for m in minority:
            v = cl.nodes_inside(m)
            assert not any("fail" in flags_of(v, cl.ids[i]) for i in majority), v
        lab.unpartition(minority)
        assert wait_until(cl.healthy, timeout=BOUND * 2), cl.views()
        for i in range(5):
            assert cl.c(i).set(keys[i], "y")


@slow
@pytest.mark.parametrize("kind", ["hotkv", "redis70"])
def test_slots_taken_over_while_cut_off(lab3, kind):
    # While node 2 is cut off (and restarted, still cut off), node 0 takes 100 of its slots
    # (SETSLOT NODE + BUMPEPOCH). When the link comes back, node 2 claims them with an
    # older config epoch, is told (UPDATE) and gives them up; every view converges.
    # kind=redis70 runs the same on Redis 7.0 nodes: the reference behaviour.
    if kind == "redis70" and not os.access(REDIS70, os.X_OK):
        pytest.skip("needs /usr/bin/redis-server")
    binary = HOTKV if kind == "hotkv" else REDIS70
    lab, tmp = lab3
    cl = Cluster(lab, tmp, [binary] * 3).start()
    lo, hi = cl.ranges[2]
    lab.cut(2)
    took, _ = wait_failed(cl, [0, 1], cl.ids[2])
    assert took is not None, cl.views()
    for s in range(lo, lo + 100):
        cl.c(0).execute_command("CLUSTER", "SETSLOT", s, "NODE", cl.ids[0])
    assert _s(cl.c(0).execute_command("CLUSTER", "BUMPEPOCH")).startswith("BUMPED")
    want0 = cl.nodes(0)[cl.ids[0]]["slots"]
    assert want0 == [f"0-{cl.ranges[0][1]}", f"{lo}-{lo + 99}"], want0
    assert wait_until(lambda: cl.nodes(1)[cl.ids[0]]["slots"] == want0, timeout=BOUND), cl.views()
    # Restarted while cut off: it comes back from its nodes.conf, still owning the slots.
    lab.stop_server(2)
    lab.start_server(2, binary, ["--cluster-enabled", "yes", "--cluster-config-file", "nodes.conf",
                                 "--cluster-node-timeout", str(TIMEOUT_MS),
                                 "--cluster-announce-ip", lab.ip(2)], tmp)
    assert cl.nodes_inside(2)[cl.ids[2]]["slots"] == [f"{lo}-{hi}"]
    lab.heal(2)
    assert wait_until(cl.healthy, timeout=BOUND * 2), cl.views()
    assert cl.nodes(2)[cl.ids[2]]["slots"] == [f"{lo + 100}-{hi}"], cl.views()
    assert cl.nodes(2)[cl.ids[0]]["slots"] == want0, cl.views()
