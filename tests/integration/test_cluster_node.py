"""One node in cluster mode (cluster-enabled yes): CLUSTER subcommands and their errors,
nodes.conf across restarts, and routing (MOVED / ASK / CROSSSLOT / TRYAGAIN /
CLUSTERDOWN, ASKING, MULTI/EXEC, scripts) — the same assertions hold for Debian's
redis-server 7.0 (HOTKV_SERVER=/usr/bin/redis-server).

A second node is needed for redirections: CLUSTER MEET to a port where nothing listens
leaves a node in handshake (for cluster-node-timeout), and Redis lets SETSLOT give slots
to it, so MOVED/ASK name its address. The node timeout is 500 ms while the node reaches
cluster_state:ok (the rejoin delay after a state with no slots is min(timeout, 5 s)), then
raised so the handshake node outlives the test.
"""
import os
import time

import pytest
import redis

from conftest import IS_REDIS, FullErrorParser, ServerProcess, free_port


def full_errors(client):
    client.connection_pool.connection_kwargs["parser_class"] = FullErrorParser
    client.connection_pool.reset()
    return client


def start_node(tmp_path, conf_name=None, extra=(), started=None):
    proc = ServerProcess(args=[], tmp_path=tmp_path)
    conf_name = conf_name or f"nodes-{proc.port}.conf"
    proc.args = ["--cluster-enabled", "yes", "--cluster-config-file", conf_name,
                 "--cluster-port", str(free_port()), "--cluster-node-timeout", "500",
                 *extra]
    proc.start()
    if started is not None:
        started.append(proc)
    return proc, conf_name


def wait_state(r, want, timeout=10.0):
    deadline = time.time() + timeout
    state = None
    while time.time() < deadline:
        state = r.execute_command("CLUSTER", "INFO").split("\r\n")[0]
        if state == "cluster_state:" + want:
            return
        time.sleep(0.05)
    raise AssertionError(f"cluster state is {state}, wanted {want}")


@pytest.fixture
def nodes(tmp_path):
    started = []

    def factory(**kw):
        proc, _ = start_node(tmp_path, started=started, **kw)
        return proc

    yield factory
    for p in started:
        p.stop()


@pytest.fixture
def node(nodes):
    return nodes()


@pytest.fixture
def r(node):
    return full_errors(node.client())


@pytest.fixture
def ready(node):
    """A node serving every slot (cluster_state:ok) with a long node timeout."""
    r = full_errors(node.client())
    assert r.execute_command("CLUSTER", "ADDSLOTSRANGE", 0, 16383) == "OK"
    wait_state(r, "ok")
    r.config_set("cluster-node-timeout", 60000)
    return r


def fake_node(r):
    """A node in handshake at a port where nothing listens; returns (id, port)."""
    port = free_port()
    assert r.execute_command("CLUSTER", "MEET", "127.0.0.1", port, free_port()) == "OK"
    for line in r.execute_command("CLUSTER", "NODES").splitlines():
        if f"127.0.0.1:{port}@" in line:
            return line.split()[0], port
    raise AssertionError("MEET left no handshake node")


def err(r, *args):
    with pytest.raises(redis.ResponseError) as e:
        r.execute_command(*args)
    return str(e.value)


def slot_of(r, key):
    return r.execute_command("CLUSTER", "KEYSLOT", key)


# ---------------------------------------------------------------- commands


def test_fresh_node_info_nodes_slots(r):
    info = r.execute_command("CLUSTER", "INFO")
    lines = dict(l.split(":", 1) for l in info.split("\r\n") if l)
    assert lines["cluster_state"] == "fail"
    assert lines["cluster_slots_assigned"] == "0"
    assert lines["cluster_known_nodes"] == "1"
    assert lines["cluster_current_epoch"] == "0"
    assert "total_cluster_links_buffer_limit_exceeded" in lines
    myid = r.execute_command("CLUSTER", "MYID")
    assert len(myid) == 40 and all(c in "0123456789abcdef" for c in myid)
    nodes = r.execute_command("CLUSTER", "NODES")
    fields = nodes.split()
    assert fields[0] == myid
    assert fields[2:] == ["myself,master", "-", "0", "0", "0", "connected"]
    assert fields[1].endswith(f":{r.connection_pool.connection_kwargs['port']}@" + fields[1].split("@")[1])
    assert r.execute_command("CLUSTER", "SLOTS") == []
    assert r.execute_command("CLUSTER", "LINKS") == []
    assert r.info("cluster") == {"cluster_enabled": 1}
    assert r.config_get("cluster-enabled") == {"cluster-enabled": "yes"}
    assert r.config_get("cluster-node-timeout") == {"cluster-node-timeout": "500"}
    assert r.config_get("cluster-require-full-coverage") == {"cluster-require-full-coverage": "yes"}


def test_keyslot_and_slot_key_counts(ready):
    r = ready
    assert r.execute_command("CLUSTER", "KEYSLOT", "foo") == 12182
    assert r.execute_command("CLUSTER", "KEYSLOT", "{foo}bar") == 12182
    assert r.execute_command("CLUSTER", "KEYSLOT", "") == 0
    r.set("foo", 1)
    r.set("{foo}a", 2)
    r.set("bar", 3)
    assert r.execute_command("CLUSTER", "COUNTKEYSINSLOT", 12182) == 2
    assert sorted(r.execute_command("CLUSTER", "GETKEYSINSLOT", 12182, 10)) == ["foo", "{foo}a"]
    assert len(r.execute_command("CLUSTER", "GETKEYSINSLOT", 12182, 1)) == 1
    assert r.execute_command("CLUSTER", "GETKEYSINSLOT", 12182, 0) == []
    assert err(r, "CLUSTER", "COUNTKEYSINSLOT", "x") == "ERR value is not an integer or out of range"
    assert err(r, "CLUSTER", "COUNTKEYSINSLOT", 16384) == "ERR Invalid slot"
    assert err(r, "CLUSTER", "GETKEYSINSLOT", 1, -1) == "ERR Invalid slot or number of keys"
    assert err(r, "CLUSTER", "GETKEYSINSLOT", 16384, 1) == "ERR Invalid slot or number of keys"


def test_getkeysinslot_follows_changes_after_first_call(ready):
    # HotKV builds a slot's key index on its first GETKEYSINSLOT and keeps it through the
    # writes after it (new keys, deletes, re-allocated values, TTLs, RENAME, a one-slot
    # MSET routed with the slots handed on); an emptied slot drops it. At every step the
    # slot's listing is exactly its keys.
    r = ready
    slot = r.execute_command("CLUSTER", "KEYSLOT", "{ix}")

    def check():
        got = r.execute_command("CLUSTER", "GETKEYSINSLOT", slot, 1000)
        assert len(got) == len(set(got))
        assert sorted(got) == sorted(r.keys("{ix}*"))
        assert r.execute_command("CLUSTER", "COUNTKEYSINSLOT", slot) == len(got)
        return got

    r.mset({f"{{ix}}{i}": i for i in range(40)})
    r.set("other", 1)  # another slot
    assert len(check()) == 40
    r.mset({f"{{ix}}n{i}": "v" for i in range(20)})
    assert r.mget([f"{{ix}}n{i}" for i in range(3)]) == ["v", "v", "v"]
    assert r.delete(*[f"{{ix}}{i}" for i in range(0, 40, 3)]) == 14
    for i in range(1, 40, 3):
        r.append(f"{{ix}}{i}", "x" * 3000)
    for i in range(2, 40, 6):
        assert r.expire(f"{{ix}}{i}", 1000) is True
    r.rename("{ix}5", "{ix}renamed")
    r.lpush("{ix}list", "a")
    assert len(check()) == 40 - 14 + 20 + 1
    assert r.delete(*r.keys("{ix}*")) == 47
    assert check() == []
    r.set("{ix}again", 1)
    assert check() == ["{ix}again"]
    assert r.get("other") == "1"


def test_addslots_delslots_errors(r):
    assert r.execute_command("CLUSTER", "ADDSLOTS", 1, 2, 3) == "OK"
    assert err(r, "CLUSTER", "ADDSLOTS", "x") == "ERR Invalid or out of range slot"
    assert err(r, "CLUSTER", "ADDSLOTS", 16384) == "ERR Invalid or out of range slot"
    assert err(r, "CLUSTER", "ADDSLOTS", 2) == "ERR Slot 2 is already busy"
    assert err(r, "CLUSTER", "ADDSLOTS", 9, 9) == "ERR Slot 9 specified multiple times"
    assert err(r, "CLUSTER", "ADDSLOTSRANGE", 5, 2) == \
        "ERR start slot number 5 is greater than end slot number 2"
    assert err(r, "CLUSTER", "ADDSLOTSRANGE", 1, 2, 3) == \
        "ERR wrong number of arguments for 'cluster|addslotsrange' command"
    assert err(r, "CLUSTER", "DELSLOTS", 7) == "ERR Slot 7 is already unassigned"
    assert err(r, "CLUSTER", "DELSLOTSRANGE", 3, 5) == "ERR Slot 4 is already unassigned"
    # All or nothing: slot 10 was not taken by the failed ADDSLOTS 10 2.
    assert err(r, "CLUSTER", "ADDSLOTS", 10, 2) == "ERR Slot 2 is already busy"
    assert r.execute_command("CLUSTER", "ADDSLOTSRANGE", 10, 20, 100, 100) == "OK"
    assert r.execute_command("CLUSTER", "DELSLOTSRANGE", 15, 20) == "OK"
    assert r.execute_command("CLUSTER", "DELSLOTS", 2) == "OK"
    myid = r.execute_command("CLUSTER", "MYID")
    line = r.execute_command("CLUSTER", "NODES").strip()
    assert line.split()[8:] == ["1", "3", "10-14", "100"]
    slots = r.execute_command("CLUSTER", "SLOTS")
    assert [(s[0], s[1], s[2][2]) for s in slots] == [
        (1, 1, myid), (3, 3, myid), (10, 14, myid), (100, 100, myid)]
    info = r.execute_command("CLUSTER", "INFO")
    assert "cluster_slots_assigned:8\r\n" in info
    assert r.execute_command("CLUSTER", "FLUSHSLOTS") == "OK"
    assert r.execute_command("CLUSTER", "SLOTS") == []


def test_shards(r):
    r.execute_command("CLUSTER", "ADDSLOTSRANGE", 0, 99, 200, 299)
    shards = r.execute_command("CLUSTER", "SHARDS")
    assert len(shards) == 1
    shard = dict(zip(shards[0][::2], shards[0][1::2]))
    assert shard["slots"] == [0, 99, 200, 299]
    (n,) = shard["nodes"]
    n = dict(zip(n[::2], n[1::2]))
    assert n["id"] == r.execute_command("CLUSTER", "MYID")
    assert n["role"] == "master" and n["health"] == "online"
    assert n["port"] == r.connection_pool.connection_kwargs["port"]


def test_epochs_forget_reports_replicas(r):
    myid = r.execute_command("CLUSTER", "MYID")
    assert err(r, "CLUSTER", "SET-CONFIG-EPOCH", "x") == "ERR value is not an integer or out of range"
    assert err(r, "CLUSTER", "SET-CONFIG-EPOCH", -1) == "ERR Invalid config epoch specified: -1"
    assert r.execute_command("CLUSTER", "SET-CONFIG-EPOCH", 5) == "OK"
    assert err(r, "CLUSTER", "SET-CONFIG-EPOCH", 6) == "ERR Node config epoch is already non-zero"
    assert r.execute_command("CLUSTER", "BUMPEPOCH") == "STILL 5"
    info = r.execute_command("CLUSTER", "INFO")
    assert "cluster_current_epoch:5\r\n" in info and "cluster_my_epoch:5\r\n" in info
    assert err(r, "CLUSTER", "FORGET", "abc") == "ERR Unknown node abc"
    assert err(r, "CLUSTER", "FORGET", myid) == "ERR I tried hard but I can't forget myself..."
    assert err(r, "CLUSTER", "COUNT-FAILURE-REPORTS", "abc") == "ERR Unknown node abc"
    assert r.execute_command("CLUSTER", "COUNT-FAILURE-REPORTS", myid) == 0
    assert err(r, "CLUSTER", "REPLICAS", "abc") == "ERR Unknown node abc"
    assert r.execute_command("CLUSTER", "REPLICAS", myid) == []
    assert r.execute_command("CLUSTER", "SLAVES", myid) == []
    assert err(r, "CLUSTER", "REPLICATE", "abc") == "ERR Unknown node abc"
    assert err(r, "CLUSTER", "REPLICATE", myid) == "ERR Can't replicate myself"
    assert err(r, "CLUSTER", "FAILOVER") == "ERR You should send CLUSTER FAILOVER to a replica"
    # Another node known: SET-CONFIG-EPOCH is refused, FORGET works.
    other, _ = fake_node(r)
    assert err(r, "CLUSTER", "SET-CONFIG-EPOCH", 9).startswith(
        "ERR The user can assign a config epoch only when the node does not know any other node")
    assert r.execute_command("CLUSTER", "FORGET", other) == "OK"
    assert other not in r.execute_command("CLUSTER", "NODES")


def test_bumpepoch_fresh(r):
    assert r.execute_command("CLUSTER", "BUMPEPOCH") == "BUMPED 1"
    assert r.execute_command("CLUSTER", "BUMPEPOCH") == "STILL 1"


def test_meet_and_misc_errors(r):
    assert err(r, "CLUSTER", "MEET", "1.2.3.4", "x") == "ERR Invalid TCP base port specified: x"
    assert err(r, "CLUSTER", "MEET", "badhost", 7000) == "ERR Invalid node address specified: badhost:7000"
    assert err(r, "CLUSTER", "MEET", "1.2.3.4", 70000) == "ERR Invalid node address specified: 1.2.3.4:70000"
    assert err(r, "CLUSTER", "MEET", "1.2.3.4", 7000, "x") == "ERR Invalid TCP bus port specified: x"
    assert err(r, "CLUSTER", "MEET", "1.2.3.4", 7000, 7001, 8000) == \
        "ERR unknown subcommand or wrong number of arguments for 'MEET'. Try CLUSTER HELP."
    assert err(r, "CLUSTER", "FOO") == "ERR unknown subcommand 'FOO'. Try CLUSTER HELP."
    assert err(r, "CLUSTER", "INFO", "x") == "ERR wrong number of arguments for 'cluster|info' command"
    assert err(r, "CLUSTER", "RESET", "foo") == "ERR syntax error"
    assert err(r, "CLUSTER", "SETSLOT", 1, "foo") == \
        "ERR Invalid CLUSTER SETSLOT action or number of arguments. Try CLUSTER HELP"
    assert err(r, "CLUSTER", "SETSLOT", "x", "stable") == "ERR Invalid or out of range slot"
    assert err(r, "CLUSTER", "SETSLOT", 1, "migrating", "abc") == "ERR I'm not the owner of hash slot 1"
    assert err(r, "CLUSTER", "SETSLOT", 1, "node", "abc") == "ERR Unknown node abc"
    r.execute_command("CLUSTER", "ADDSLOTS", 1)
    assert err(r, "CLUSTER", "SETSLOT", 1, "migrating", "abc") == "ERR I don't know about node abc"
    myid = r.execute_command("CLUSTER", "MYID")
    assert err(r, "CLUSTER", "SETSLOT", 1, "importing", myid) == "ERR I'm already the owner of hash slot 1"
    help_lines = r.execute_command("CLUSTER", "HELP")
    assert help_lines[0].startswith("CLUSTER <subcommand>")
    assert "SETSLOT <slot> (IMPORTING <node-id>|MIGRATING <node-id>|STABLE|NODE <node-id>)" in help_lines
    assert r.execute_command("CLUSTER", "SAVECONFIG") == "OK"
    raw = node_raw(r)
    for cmd in ("READONLY", "READWRITE", "ASKING"):
        raw.send_command(cmd)
        assert raw.read_reply() == "OK"


def test_select_move_swapdb_refused(r):
    assert r.execute_command("SELECT", 0) is True
    assert err(r, "SELECT", 1) == "ERR SELECT is not allowed in cluster mode"
    assert err(r, "SELECT", "x") == "ERR value is not an integer or out of range"
    assert err(r, "SWAPDB", 0, 1) == "ERR SWAPDB is not allowed in cluster mode"


def test_reset_soft_and_hard(node):
    r = full_errors(node.client())
    myid = r.execute_command("CLUSTER", "MYID")
    r.execute_command("CLUSTER", "ADDSLOTSRANGE", 0, 16383)
    r.execute_command("CLUSTER", "SET-CONFIG-EPOCH", 3)
    wait_state(r, "ok")
    r.set("k", 1)
    assert err(r, "CLUSTER", "RESET") == \
        "ERR CLUSTER RESET can't be called with master nodes containing keys"
    r.delete("k")
    assert r.execute_command("CLUSTER", "RESET", "SOFT") == "OK"
    assert r.execute_command("CLUSTER", "MYID") == myid
    assert r.execute_command("CLUSTER", "SLOTS") == []
    assert "cluster_my_epoch:3\r\n" in r.execute_command("CLUSTER", "INFO")
    assert r.execute_command("CLUSTER", "RESET", "HARD") == "OK"
    assert r.execute_command("CLUSTER", "MYID") != myid
    info = r.execute_command("CLUSTER", "INFO")
    assert "cluster_current_epoch:0\r\n" in info and "cluster_my_epoch:0\r\n" in info


# ---------------------------------------------------------------- routing


def test_served_and_crossslot(ready):
    r = ready
    assert r.set("foo", "bar") is True
    assert r.get("foo") == "bar"
    assert r.mset({"{t}a": 1, "{t}b": 2}) is True
    assert err(r, "MSET", "a", 1, "b", 2) == "CROSSSLOT Keys in request don't hash to the same slot"
    assert err(r, "SUNIONSTORE", "d", "s1", "s2") == \
        "CROSSSLOT Keys in request don't hash to the same slot"
    # Keyless commands are served whatever the slots.
    assert r.ping() is True
    assert r.dbsize() == 3
    # EVAL: its declared keys are routed.
    assert r.eval("return redis.call('get', KEYS[1])", 1, "foo") == "bar"
    assert err(r, "EVAL", "return 1", 2, "a", "b") == \
        "CROSSSLOT Keys in request don't hash to the same slot"
    # Keys a script touches: one slot with a shebang (unless allow-cross-slot-keys), any
    # in EVAL's compatibility mode (no shebang).
    two_slots = "redis.call('set','b','1'); return redis.call('set','k1','2')"
    assert r.eval(two_slots, 0) == "OK"
    assert err(r, "EVAL", "#!lua\n" + two_slots, 0).startswith(
        "ERR Script attempted to access keys that do not hash to the same slot")
    assert r.eval("#!lua flags=allow-cross-slot-keys\n" + two_slots, 0) == "OK"
    assert err(r, "EVAL", "#!lua flags=no-cluster\nreturn 1", 0) == \
        "ERR Can not run script on cluster, 'no-cluster' flag is set."


def test_moved(ready):
    r = ready
    other, port = fake_node(r)
    slot = slot_of(r, "foo")
    assert r.execute_command("CLUSTER", "SETSLOT", slot, "NODE", other) == "OK"
    assert err(r, "GET", "foo") == f"MOVED {slot} 127.0.0.1:{port}"
    assert err(r, "SET", "foo", 1) == f"MOVED {slot} 127.0.0.1:{port}"
    assert r.execute_command("CLUSTER", "COUNTKEYSINSLOT", slot) == 0
    assert err(r, "EVAL", "return redis.call('get','foo')", 0).startswith(
        "ERR Script attempted to access a non local key in a cluster node")
    # The slot listed under the other node; CLUSTER SLOTS names its address.
    slots = r.execute_command("CLUSTER", "SLOTS")
    assert [slot, slot, ["127.0.0.1", port, other, []]] == [s for s in slots if s[0] == slot][0]
    # A slot holding keys cannot be given away.
    r.set("bar", 1)
    bslot = slot_of(r, "bar")
    assert err(r, "CLUSTER", "SETSLOT", bslot, "NODE", other) == (
        f"ERR Can't assign hashslot {bslot} to a different node while I still hold keys "
        "for this hash slot.")
    # MULTI: the redirected command flags the transaction, EXEC aborts it.
    raw = node_raw(r)
    raw.send_command("MULTI")
    assert raw.read_reply() == "OK"
    raw.send_command("GET", "foo")
    assert str(raw.read_reply()) == f"MOVED {slot} 127.0.0.1:{port}"
    raw.send_command("GET", "bar")
    assert raw.read_reply() == "QUEUED"
    raw.send_command("EXEC")
    assert str(raw.read_reply()).startswith("EXECABORT")


def node_raw(r):
    from conftest import RawConnection
    import socket
    kw = r.connection_pool.connection_kwargs
    return RawConnection(socket.create_connection((kw["host"], kw["port"]), timeout=5))


def test_ask_tryagain_migrating(ready):
    r = ready
    other, port = fake_node(r)
    slot = slot_of(r, "{m}k1")
    r.set("{m}k1", "v1")
    r.set("{m}k2", "v2")
    assert r.execute_command("CLUSTER", "SETSLOT", slot, "MIGRATING", other) == "OK"
    assert f"[{slot}->-{other}]" in r.execute_command("CLUSTER", "NODES")
    # Present keys are served; a missing one is asked for elsewhere.
    assert r.get("{m}k1") == "v1"
    assert err(r, "GET", "{m}missing") == f"ASK {slot} 127.0.0.1:{port}"
    assert err(r, "SET", "{m}missing", 1) == f"ASK {slot} 127.0.0.1:{port}"
    # Several keys, some missing: TRYAGAIN; all present: served.
    assert r.mget("{m}k1", "{m}k2") == ["v1", "v2"]
    assert err(r, "MGET", "{m}k1", "{m}missing") == \
        "TRYAGAIN Multiple keys request during rehashing of slot"
    # The same key twice is one key.
    assert err(r, "MGET", "{m}missing", "{m}missing") == f"ASK {slot} 127.0.0.1:{port}"
    assert r.execute_command("CLUSTER", "SETSLOT", slot, "STABLE") == "OK"
    assert r.get("{m}missing") is None
    assert f"[{slot}->-" not in r.execute_command("CLUSTER", "NODES")


def test_asking_importing(ready):
    r = ready
    other, port = fake_node(r)
    slot = slot_of(r, "{i}k")
    assert r.execute_command("CLUSTER", "SETSLOT", slot, "NODE", other) == "OK"
    assert r.execute_command("CLUSTER", "SETSLOT", slot, "IMPORTING", other) == "OK"
    assert f"[{slot}-<-{other}]" in r.execute_command("CLUSTER", "NODES")
    assert err(r, "SET", "{i}k", 1) == f"MOVED {slot} 127.0.0.1:{port}"
    raw = node_raw(r)
    # ASKING covers exactly the next command.
    for cmd, want in ((("ASKING",), "OK"), (("SET", "{i}k", "1"), "OK"),
                      (("GET", "{i}k"), f"MOVED {slot} 127.0.0.1:{port}"),
                      (("ASKING",), "OK"), (("GET", "{i}k"), b"1")):
        raw.send_command(*cmd)
        got = raw.read_reply()
        assert (str(got) if not isinstance(got, bytes) else got) == want, cmd
    # Multi-key with one missing, importing + ASKING: TRYAGAIN.
    raw.send_command("ASKING")
    raw.read_reply()
    raw.send_command("MGET", "{i}k", "{i}nope")
    assert str(raw.read_reply()) == "TRYAGAIN Multiple keys request during rehashing of slot"
    # ASKING before MULTI covers the whole transaction.
    for cmd in (("ASKING",), ("MULTI",), ("SET", "{i}k", "2"), ("GET", "{i}k")):
        raw.send_command(*cmd)
        assert raw.read_reply() in ("OK", "QUEUED")
    raw.send_command("EXEC")
    assert raw.read_reply() == ["OK", b"2"]
    raw.send_command("GET", "{i}k")
    assert str(raw.read_reply()) == f"MOVED {slot} 127.0.0.1:{port}"
    # Taking the slot closes the import and bumps the config epoch. (redis-server 7.0
    # crashes here: it broadcasts a PONG to the node in handshake, which has no link.)
    if IS_REDIS:
        return
    before = r.execute_command("CLUSTER", "INFO")
    myid = r.execute_command("CLUSTER", "MYID")
    assert r.execute_command("CLUSTER", "SETSLOT", slot, "NODE", myid) == "OK"
    assert r.get("{i}k") == "2"
    assert f"[{slot}-<-" not in r.execute_command("CLUSTER", "NODES")
    assert "cluster_my_epoch:1\r\n" in r.execute_command("CLUSTER", "INFO")


def test_exec_spanning_slots(ready):
    r = ready
    raw = node_raw(r)
    for cmd in (("MULTI",), ("SET", "a", "1"), ("SET", "b", "2")):
        raw.send_command(*cmd)
        assert raw.read_reply() in ("OK", "QUEUED")
    raw.send_command("EXEC")
    assert str(raw.read_reply()) == "CROSSSLOT Keys in request don't hash to the same slot"
    # The transaction is gone.
    raw.send_command("EXEC")
    assert str(raw.read_reply()) == "ERR EXEC without MULTI"
    assert r.get("a") is None
    for cmd in (("MULTI",), ("SET", "{x}a", "1"), ("PING",), ("GET", "{x}a")):
        raw.send_command(*cmd)
        raw.read_reply()
    raw.send_command("EXEC")
    assert raw.read_reply() == ["OK", "PONG", b"1"]


def test_clusterdown(nodes):
    r = full_errors(nodes().client())
    assert err(r, "GET", "foo") == "CLUSTERDOWN Hash slot not served"
    assert r.ping() is True
    r.execute_command("CLUSTER", "ADDSLOTSRANGE", 0, 16383)
    wait_state(r, "ok")
    r.set("foo", 1)
    slot = slot_of(r, "x")  # 16287
    r.execute_command("CLUSTER", "DELSLOTS", slot)
    wait_state(r, "fail")
    assert err(r, "GET", "foo") == "CLUSTERDOWN The cluster is down"
    assert err(r, "GET", "x") == "CLUSTERDOWN Hash slot not served"
    r.config_set("cluster-allow-reads-when-down", "yes")
    assert r.get("foo") == "1"
    assert err(r, "SET", "foo", 2) == \
        "CLUSTERDOWN The cluster is down and only accepts read commands"
    r.config_set("cluster-allow-reads-when-down", "no")
    r.config_set("cluster-require-full-coverage", "no")
    wait_state(r, "ok")
    assert r.set("foo", 2) is True
    assert err(r, "GET", "x") == "CLUSTERDOWN Hash slot not served"


# ---------------------------------------------------------------- nodes.conf


def test_nodes_conf_survives_restart(tmp_path):
    started = []
    try:
        proc, conf = start_node(tmp_path, conf_name="n.conf", started=started)
        r = full_errors(proc.client())
        r.execute_command("CLUSTER", "ADDSLOTSRANGE", 0, 99)
        r.execute_command("CLUSTER", "SET-CONFIG-EPOCH", 7)
        r.execute_command("CLUSTER", "SETSLOT", 5, "MIGRATING",
                          r.execute_command("CLUSTER", "MYID"))
        myid = r.execute_command("CLUSTER", "MYID")
        nodes_before = r.execute_command("CLUSTER", "NODES")
        r.close()
        proc.stop()
        text = open(os.path.join(tmp_path, conf)).read()
        assert text.startswith(myid + " ")
        assert "vars currentEpoch 7 lastVoteEpoch 0" in text
        assert " 0-99" in text
        proc2, _ = start_node(tmp_path, conf_name="n.conf", started=started)
        r2 = full_errors(proc2.client())
        assert r2.execute_command("CLUSTER", "MYID") == myid
        after = r2.execute_command("CLUSTER", "NODES")
        assert after.split()[8:] == nodes_before.split()[8:]
        assert "cluster_my_epoch:7\r\n" in r2.execute_command("CLUSTER", "INFO")
    finally:
        for p in started:
            p.stop()


@pytest.mark.parametrize("content", [
    "this is not a nodes.conf\n",
    "0123456789012345678901234567890123456789 127.0.0.1:7000@17000 myself,master - 0 0 0 connected 0-99999\n",
    "0123456789012345678901234567890123456789 127.0.0.1:7000@17000 myself,bogus - 0 0 0 connected\n",
])
def test_corrupt_nodes_conf_refuses_to_start(tmp_path, content):
    with open(os.path.join(tmp_path, "bad.conf"), "w") as f:
        f.write(content)
    proc = ServerProcess(args=["--cluster-enabled", "yes", "--cluster-config-file", "bad.conf",
                               "--cluster-port", str(free_port())], tmp_path=tmp_path)
    if IS_REDIS and "bogus" in content:
        pytest.skip("redis-server 7.0 panics (crashes) on an unknown flag")
    if IS_REDIS and "99999" in content:
        pytest.skip("redis-server 7.0 does not range-check slots in nodes.conf")
    with pytest.raises(RuntimeError) as e:
        proc.start(timeout=10)
    assert "server exited" in str(e.value)
    assert "corrupted cluster config file" in str(e.value)


def test_aof_replays_in_cluster_mode(tmp_path):
    """The AOF is replayed at start even though the node is not yet cluster_state:ok
    (the loader is obeyed, never redirected)."""
    started = []
    try:
        proc, _ = start_node(tmp_path, conf_name="aof-nodes.conf", started=started,
                             extra=("--appendonly", "yes"))
        r = full_errors(proc.client())
        r.execute_command("CLUSTER", "ADDSLOTSRANGE", 0, 16383)
        wait_state(r, "ok")
        r.set("k1", "v1")
        r.rpush("{k1}list", "a", "b")
        r.close()
        proc.stop()
        proc2, _ = start_node(tmp_path, conf_name="aof-nodes.conf", started=started,
                              extra=("--appendonly", "yes"))
        r2 = full_errors(proc2.client())
        wait_state(r2, "ok")
        assert r2.get("k1") == "v1"
        assert r2.lrange("{k1}list", 0, -1) == ["a", "b"]
    finally:
        for p in started:
            p.stop()
