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
