"""The append-only file with Redis's own files: Redis 7.0 and 8.8 load HotKV's AOF
directory and HotKV theirs, the command base (aof-use-rdb-preamble no), #TS annotations,
Redis < 7's single file and RDB-preamble AOFs, and hotkv-check-aof.

Helpers (servers, data, snapshots) are test_aof.py's.
"""
import os
import subprocess
import time

import pytest
import redis

from conftest import ROOT, free_port
from test_aof import aof_dir, fill, manifest, snapshot, start

pytestmark = pytest.mark.hotkv_only

REDIS70 = "/usr/bin/redis-server"
REDIS88 = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))),
                       "..", "shared", "peers", "redis-8.8", "redis-server")


class Redis70:
    def __init__(self, tmp_path, binary=REDIS70):
        self.port = free_port()
        self.proc = subprocess.Popen(
            [binary, "--port", str(self.port), "--bind", "127.0.0.1", "--dir", str(tmp_path),
             "--appendonly", "yes", "--save", ""],
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        self.r = redis.Redis(port=self.port, decode_responses=True)
        deadline = time.time() + 10
        while time.time() < deadline:
            try:
                if self.r.ping():
                    break
            except redis.ConnectionError:
                time.sleep(0.05)
        while self.r.info("persistence").get("loading") == 1:
            time.sleep(0.05)

    def stop(self):
        self.proc.terminate()
        self.proc.wait(10)


@pytest.mark.skipif(not os.path.exists(REDIS70), reason="redis-server 7.0 not installed")
def test_redis70_loads_hotkv_aof_and_hotkv_loads_redis70_aof(tmp_path):
    srv = start(tmp_path, "--appendonly", "yes")
    r = srv.client()
    fill(r)
    assert r.bgrewriteaof()  # an RDB base with data in it, then more commands
    time.sleep(0.5)
    r.hset("h", "after", "rewrite")
    r.expire("s", 500)
    before = snapshot(r)
    srv.stop()
    peer = Redis70(tmp_path)
    assert snapshot(peer.r) == before
    peer.r.set("from_redis", "1")
    peer.r.lpush("l", "head")
    peer.r.execute_command("BGREWRITEAOF")
    time.sleep(0.5)
    peer.r.zincrby("z", 5, "m1")
    after = snapshot(peer.r)
    peer.stop()
    srv = start(tmp_path, "--appendonly", "yes")
    assert snapshot(srv.client()) == after
    srv.stop()


@pytest.mark.skipif(not os.path.exists(REDIS88), reason="redis-server 8.8 not present")
def test_redis88_aof_both_ways(tmp_path):
    """Redis 8.8 writes startoffset/endoffset in its manifest; both load each other's."""
    peer = Redis70(tmp_path, REDIS88)
    fill(peer.r)
    peer.r.execute_command("BGREWRITEAOF")
    time.sleep(0.5)
    peer.r.incr("n")
    peer.r.hset("h", "late", "1")
    before = snapshot(peer.r)
    peer.stop()
    srv = start(tmp_path, "--appendonly", "yes")
    r = srv.client()
    assert snapshot(r) == before
    r.set("from_hotkv", "1")
    r.zadd("z", {"new": 99})
    after = snapshot(r)
    srv.stop()
    peer = Redis70(tmp_path, REDIS88)
    assert snapshot(peer.r) == after
    peer.stop()


CHECK_AOF = os.environ.get("HOTKV_CHECK_AOF",
                           os.path.join(ROOT, "build/release/tools/checkaof/hotkv-check-aof"))


@pytest.mark.skipif(not os.path.exists(CHECK_AOF), reason="hotkv-check-aof not built")
def test_hotkv_check_aof_verifies_and_fixes(tmp_path):
    srv = start(tmp_path, "--appendonly", "yes")
    fill(srv.client())
    srv.stop()
    man = os.path.join(aof_dir(tmp_path), "appendonly.aof.manifest")
    run = lambda *a: subprocess.run([CHECK_AOF, *a], capture_output=True, text=True)
    ok = run(man)
    assert ok.returncode == 0 and "AOF is valid" in ok.stdout, ok.stdout
    assert "RDB base is valid" in ok.stdout
    incr = os.path.join(aof_dir(tmp_path), "appendonly.aof.1.incr.aof")
    good = os.path.getsize(incr)
    tail = b"*3\r\n$3\r\nSET\r\n$1\r"
    with open(incr, "ab") as f:
        f.write(tail)
    torn = run(man)
    assert torn.returncode == 1
    assert ("%d bytes of an incomplete command at offset %d" % (len(tail), good)
            in torn.stdout), torn.stdout
    fixed = run("--fix", man)
    assert fixed.returncode == 0 and os.path.getsize(incr) == good, fixed.stdout
    with open(incr, "ab") as f:
        f.write(b"$5\r\nhello\r\n")
    bad = run(incr)
    assert bad.returncode == 1 and "bad format at offset %d" % good in bad.stdout, bad.stdout


def test_base_as_commands_without_rdb_preamble(tmp_path):
    srv = start(tmp_path, "--appendonly", "yes", "--aof-use-rdb-preamble", "no")
    r = srv.client()
    fill(r)
    r.zadd("zinf", {"a": float("inf"), "b": -1.5, "c": 0.1})
    assert r.bgrewriteaof()
    deadline = time.time() + 10
    while r.info("persistence")["aof_rewrites"] < 1 and time.time() < deadline:
        time.sleep(0.05)
    r.set("late", "1")
    before = snapshot(r)
    srv.stop()
    assert manifest(tmp_path) == ("file appendonly.aof.2.base.aof seq 2 type b\n"
                                  "file appendonly.aof.2.incr.aof seq 2 type i\n")
    with open(os.path.join(aof_dir(tmp_path), "appendonly.aof.2.base.aof"), "rb") as f:
        head = f.read(64)
    assert head.startswith(b"*2\r\n$6\r\nSELECT\r\n")
    srv = start(tmp_path, "--appendonly", "yes")
    assert snapshot(srv.client()) == before
    srv.stop()
    if os.path.exists(REDIS70):
        peer = Redis70(tmp_path)
        assert snapshot(peer.r) == before
        peer.stop()


def test_timestamp_annotations_written_and_loaded(tmp_path):
    srv = start(tmp_path, "--appendonly", "yes", "--aof-timestamp-enabled", "yes")
    r = srv.client()
    r.set("a", "1")
    time.sleep(1.1)
    r.set("b", "2")
    assert r.config_set("aof-timestamp-enabled", "no")
    time.sleep(1.1)
    r.set("c", "3")
    srv.stop()
    with open(os.path.join(aof_dir(tmp_path), "appendonly.aof.1.incr.aof"), "rb") as f:
        data = f.read()
    stamps = [line for line in data.split(b"\r\n") if line.startswith(b"#TS:")]
    assert len(stamps) == 2 and int(stamps[1][4:]) > int(stamps[0][4:]), data
    assert data.startswith(b"#TS:")
    srv = start(tmp_path, "--appendonly", "yes")
    assert srv.client().mget("a", "b", "c") == ["1", "2", "3"]
    srv.stop()
    if os.path.exists(REDIS70):
        peer = Redis70(tmp_path)
        assert peer.r.mget("a", "b", "c") == ["1", "2", "3"]
        peer.stop()


def test_single_file_aof_of_old_redis_is_upgraded(tmp_path):
    """A Redis < 7 appendonly.aof in dir becomes the base of the multi-part layout, as
    Redis 7 does it."""
    with open(os.path.join(str(tmp_path), "appendonly.aof"), "wb") as f:
        f.write(b"*2\r\n$6\r\nSELECT\r\n$1\r\n0\r\n*3\r\n$3\r\nSET\r\n$3\r\nold\r\n$1\r\n1\r\n"
                b"*3\r\n$5\r\nRPUSH\r\n$1\r\nl\r\n$1\r\nx\r\n")
    srv = start(tmp_path, "--appendonly", "yes")
    r = srv.client()
    assert r.get("old") == "1" and r.lrange("l", 0, -1) == ["x"]
    r.set("new", "2")
    srv.stop()
    assert not os.path.exists(os.path.join(str(tmp_path), "appendonly.aof"))
    assert manifest(tmp_path) == ("file appendonly.aof seq 1 type b\n"
                                  "file appendonly.aof.1.incr.aof seq 1 type i\n")
    srv = start(tmp_path, "--appendonly", "yes")
    assert srv.client().mget("old", "new") == ["1", "2"]
    srv.stop()
    if os.path.exists(REDIS70):
        peer = Redis70(tmp_path)
        assert peer.r.mget("old", "new") == ["1", "2"]
        peer.stop()


def test_rdb_preamble_aof_of_old_redis(tmp_path):
    """Redis 5/6's appendonly.aof with aof-use-rdb-preamble: an RDB, then commands."""
    srv = start(tmp_path, "--appendonly", "yes")
    r = srv.client()
    fill(r)
    r.bgrewriteaof()
    deadline = time.time() + 10
    while r.info("persistence")["aof_rewrites"] < 1 and time.time() < deadline:
        time.sleep(0.05)
    srv.stop()
    with open(os.path.join(aof_dir(tmp_path), "appendonly.aof.2.base.rdb"), "rb") as f:
        rdb = f.read()
    old = tmp_path / "old"
    old.mkdir()
    with open(old / "appendonly.aof", "wb") as f:
        f.write(rdb + b"*2\r\n$6\r\nSELECT\r\n$1\r\n0\r\n*3\r\n$3\r\nSET\r\n$5\r\nafter\r\n$1\r\n1\r\n")
    srv = start(old, "--appendonly", "yes")
    r = srv.client()
    assert r.get("after") == "1" and r.llen("l") == 300 and r.zcard("z") == 150
    srv.stop()
    if os.path.exists(CHECK_AOF):
        out = subprocess.run([CHECK_AOF, str(old / "appendonlydir" / "appendonly.aof.manifest")],
                             capture_output=True, text=True)
        assert out.returncode == 0 and "RDB preamble is valid" in out.stdout, out.stdout
