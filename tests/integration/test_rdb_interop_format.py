"""RDB format interop with real Redis peers (the rdb/ library through hotkv-rdbtool).

HotKV -> Redis: an RDB file written by rdb::FileWriter loads in redis-server 7.0 (and
8.8 when present) with every key, value and TTL, and passes redis-check-rdb; DUMP
payloads from rdb::DumpPayload RESTORE into each peer.
Redis -> HotKV: the peer's own DUMP payloads and its SAVEd dump.rdb (its encodings:
listpack, quicklist, intset, hashtable, skiplist) decode to the same content.
Needs build/release/tools/rdbtool/hotkv-rdbtool (HOTKV_RDBTOOL) and a peer; skips
otherwise. Starts peers on free ports in temp dirs and stops them by pid.
"""
import json
import os
import shutil
import socket
import subprocess
import time

import pytest
import redis

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TOOL = os.environ.get("HOTKV_RDBTOOL", os.path.join(ROOT, "build/release/tools/rdbtool/hotkv-rdbtool"))
PEERS = {
    "redis-7.0": "/usr/bin/redis-server",
    "redis-8.8": os.path.join(ROOT, "..", "shared", "peers", "redis-8.8", "redis-server"),
}
CHECK_RDB = "/usr/bin/redis-check-rdb"

pytestmark = pytest.mark.skipif(not os.path.exists(TOOL), reason="hotkv-rdbtool not built")


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Peer:
    def __init__(self, binary, workdir, dbfilename="dump.rdb"):
        self.port = free_port()
        self.proc = subprocess.Popen(
            [binary, "--port", str(self.port), "--bind", "127.0.0.1", "--save", "",
             "--appendonly", "no", "--dir", str(workdir), "--dbfilename", dbfilename],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        self.client = redis.Redis(port=self.port)
        deadline = time.time() + 20
        while True:
            try:
                self.client.ping()
                break
            except redis.exceptions.BusyLoadingError:
                pass
            except redis.exceptions.ConnectionError:
                if self.proc.poll() is not None:
                    raise RuntimeError("peer exited with %s" % self.proc.returncode)
            if time.time() > deadline:
                raise RuntimeError("peer did not start")
            time.sleep(0.05)

    def stop(self):
        self.proc.terminate()
        self.proc.wait(timeout=20)


@pytest.fixture(params=sorted(PEERS))
def peer_binary(request):
    path = PEERS[request.param]
    if not os.path.exists(path):
        pytest.skip("%s not present" % request.param)
    return path


def run_tool(*args):
    out = subprocess.run([TOOL, *args], check=True, capture_output=True).stdout.decode()
    return [json.loads(line) for line in out.splitlines() if line]


def normalize(rows):
    """{(db, key bytes): (type, expire_ms, value)} with zset scores as floats."""
    out = {}
    for r in rows:
        value = r["value"]
        if r["type"] == "zset":
            value = [[m, float(s)] for m, s in value]
        out[(r["db"], r["key"])] = (r["type"], r["expire_ms"], value)
    return out


def hx(b):
    return b.hex()


def read_peer(client, dbs):
    """The peer's content in the tool's JSON shape."""
    out = {}
    for db in dbs:
        client.execute_command("SELECT", db)
        for key in client.scan_iter(count=1000):
            t = client.type(key).decode()
            pexp = client.execute_command("PEXPIRETIME", key)
            if t == "string":
                value = hx(client.get(key))
            elif t == "list":
                value = [hx(v) for v in client.lrange(key, 0, -1)]
            elif t == "set":
                value = sorted(hx(v) for v in client.smembers(key))
            elif t == "zset":
                value = [[hx(m), float(s)] for m, s in client.zrange(key, 0, -1, withscores=True)]
            elif t == "hash":
                value = sorted([hx(f), hx(v)] for f, v in client.hgetall(key).items())
            else:
                value = None
            out[(db, hx(key))] = (t, pexp, value)
    client.execute_command("SELECT", 0)
    return out


def test_hotkv_file_passes_redis_check_rdb(tmp_path):
    if not os.path.exists(CHECK_RDB):
        pytest.skip("redis-check-rdb not present")
    for flag in ([], ["--no-compress"]):
        path = tmp_path / "dump.rdb"
        run_tool("sample-file", str(path), *flag)
        res = subprocess.run([CHECK_RDB, str(path)], capture_output=True, text=True)
        assert res.returncode == 0, res.stdout + res.stderr
        assert "RDB looks OK" in res.stdout


def test_hotkv_file_loads_in_peer(tmp_path, peer_binary):
    expected = normalize(run_tool("sample-file", str(tmp_path / "dump.rdb")))
    peer = Peer(peer_binary, tmp_path)
    try:
        got = read_peer(peer.client, sorted({db for db, _ in expected}))
        assert peer.client.dbsize() == sum(1 for db, _ in expected if db == 0)
    finally:
        peer.stop()
    assert got == expected


def test_hotkv_dump_payloads_restore_in_peer(tmp_path, peer_binary):
    rows = run_tool("sample-dumps")
    peer = Peer(peer_binary, tmp_path)
    try:
        for r in rows:
            peer.client.restore(bytes.fromhex(r["key"]), 0, bytes.fromhex(r["payload"]))
        got = read_peer(peer.client, [0])
    finally:
        peer.stop()
    for r in rows:
        r["db"], r["expire_ms"] = 0, -1
    assert got == normalize(rows)


def test_peer_dumps_and_save_load_in_hotkv(tmp_path, peer_binary):
    """Redis writes its own encodings; HotKV reads every one of them back."""
    rows = run_tool("sample-dumps")
    peer = Peer(peer_binary, tmp_path)
    try:
        peer_payloads = {}
        for r in rows:
            key = bytes.fromhex(r["key"])
            peer.client.restore(key, 0, bytes.fromhex(r["payload"]))
            peer_payloads[r["key"]] = peer.client.dump(key)
        peer.client.execute_command("PEXPIREAT", b"str:ttl", 4102444800000)
        peer.client.save()
    finally:
        peer.stop()
    expected = normalize([dict(r, db=0, expire_ms=-1) for r in rows])
    for key, payload in peer_payloads.items():
        got = normalize(run_tool("restore", bytes.fromhex(key).decode(), payload.hex()))
        assert got == {(0, key): expected[(0, key)]}, key
    loaded = normalize(run_tool("load", str(tmp_path / "dump.rdb")))
    expected[(0, hx(b"str:ttl"))] = ("string", 4102444800000, expected[(0, hx(b"str:ttl"))][2])
    assert loaded == expected


# ---- Vector sets (Redis 8's "vectorset" module values; Redis 7.0 has no vector sets) ----

def redis8_binary():
    path = PEERS["redis-8.8"]
    if not os.path.exists(path):
        pytest.skip("redis-8.8 not present")
    return path


def parse_vsets(text):
    """K/E/D lines of hotkv-rdbtool -> ({key: (quant, dim, card)}, {(key, label): (attrs, vec)}, {key: payload})."""
    sets, elems, dumps = {}, {}, {}
    for line in text.splitlines():
        parts = line.split()
        if parts[0] == "K":
            sets[bytes.fromhex(parts[1])] = (parts[2], int(parts[3]), int(parts[4]))
        elif parts[0] == "E":
            attrs = None if parts[3] == "-" else bytes.fromhex(parts[3])
            elems[(bytes.fromhex(parts[1]), bytes.fromhex(parts[2]))] = (attrs, [float(x) for x in parts[4].split(",")])
        elif parts[0] == "D":
            dumps[bytes.fromhex(parts[1])] = bytes.fromhex(parts[2])
    return sets, elems, dumps


def check_peer_vsets(client, sets, elems):
    for key, (quant, dim, card) in sets.items():
        info = client.execute_command("VINFO", key)
        info = dict(zip(info[::2], info[1::2]))
        assert info[b"quant-type"].decode() == quant, key
        assert client.execute_command("VDIM", key) == dim
        assert client.execute_command("VCARD", key) == card
    for (key, label), (attrs, vec) in elems.items():
        got = [float(x) for x in client.execute_command("VEMB", key, label)]
        if sets[key][0] == "bin":
            assert [x > 0 for x in got] == [x > 0 for x in vec], (key, label)
        else:
            assert got == pytest.approx(vec, rel=1e-5, abs=1e-6), (key, label)
        assert client.execute_command("VGETATTR", key, label) == attrs
    # The graph Redis loaded answers searches: an element finds itself (or a twin with
    # the same quantised direction) at similarity 1.
    for key in sets:
        labels = [label for (k, label) in elems if k == key][:10]
        for label in labels:
            hits = client.execute_command("VSIM", key, "ELE", label, "COUNT", 5, "EF", 200, "WITHSCORES")
            scores = dict(zip(hits[::2], (float(x) for x in hits[1::2])))
            assert label in scores and scores[label] == pytest.approx(1.0, abs=2e-3), (key, label, hits)


def test_hotkv_vector_sets_load_and_restore_in_redis8(tmp_path):
    binary = redis8_binary()
    out = subprocess.run([TOOL, "sample-vset-file", str(tmp_path / "dump.rdb")], check=True,
                         capture_output=True, text=True).stdout
    sets, elems, dumps = parse_vsets(out)
    assert len(sets) == 5 and len(dumps) == 5
    peer = Peer(binary, tmp_path)
    try:
        assert peer.client.dbsize() == 5
        check_peer_vsets(peer.client, sets, elems)
        assert dict(zip(*[iter(peer.client.execute_command("VINFO", b"vs:reduce"))] * 2))[b"projection-input-dim"] == 12
        peer.client.flushall()
        for key, payload in dumps.items():
            peer.client.restore(key, 0, payload)
        check_peer_vsets(peer.client, sets, elems)
    finally:
        peer.stop()


def test_redis8_vector_sets_load_in_hotkv(tmp_path):
    """Redis 8.8's own vector sets (VADD of every quantisation) read back as VEMB shows them."""
    binary = redis8_binary()
    peer = Peer(binary, tmp_path)
    try:
        c = peer.client
        for i in range(60):
            v = [str((i * 7 + j * 3) % 11 - 5) for j in range(6)]
            c.execute_command("VADD", "q8", "VALUES", 6, *v, "e%d" % i, "SETATTR", '{"i":%d}' % i)
            c.execute_command("VADD", "f32", "VALUES", 6, *v, "e%d" % i, "NOQUANT")
            c.execute_command("VADD", "bin", "VALUES", 6, *v, "e%d" % i, "BIN")
        expected = {}
        for key in (b"q8", b"f32", b"bin"):
            for i in range(60):
                label = b"e%d" % i
                expected[(key, label)] = [float(x) for x in c.execute_command("VEMB", key, label)]
        payload = c.dump("q8")
        c.save()
    finally:
        peer.stop()
    out = subprocess.run([TOOL, "load", str(tmp_path / "dump.rdb")], check=True, capture_output=True, text=True).stdout
    sets, elems, _ = parse_vsets(out)
    assert sets == {b"q8": ("int8", 6, 60), b"f32": ("f32", 6, 60), b"bin": ("bin", 6, 60)}
    for (key, label), vec in expected.items():
        attrs, got = elems[(key, label)]
        if key == b"bin":
            assert [x > 0 for x in got] == [x > 0 for x in vec]
        else:
            assert got == pytest.approx(vec, rel=1e-5, abs=1e-6), (key, label)
        assert attrs == (('{"i":%s}' % label[1:].decode()).encode() if key == b"q8" else None)
    out = subprocess.run([TOOL, "restore", "q8", payload.hex()], check=True, capture_output=True, text=True).stdout
    assert parse_vsets(out)[0] == {b"q8": ("int8", 6, 60)}
