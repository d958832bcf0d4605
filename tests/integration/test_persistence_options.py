"""Persistence options end to end (issue 15): `rdbchecksum no` (a zero checksum that HotKV,
Redis 7.0 and redis-check-rdb accept), `rdbcompression yes/no` for dump.rdb files (both
load in Redis 7.0; the compressed one is smaller), non-default `appenddirname` /
`appendfilename` (the files where Redis 7.0 puts them; a restart, and Redis 7.0, load
them) and `no-appendfsync-on-rewrite` (accepted, CONFIG GET/SET, and with appendfsync
always writes are still answered while a rewrite runs, as Redis answers them without an
fsync). Servers are stopped by pid; peers run in their own temp dirs.
"""
import os
import shutil
import signal
import subprocess

import pytest
import redis

from helpers_dir_servers import start_in, stop_dir_servers  # noqa: F401 (autouse fixture)
from conftest import wait_until
from helpers_dump import REDIS7, Peer

pytestmark = pytest.mark.hotkv_only

CHECK_RDB = "/usr/bin/redis-check-rdb"


start = start_in


def fill(c):
    c.set("int", 12345)
    c.set("text", "abcdefgh" * 500)  # compresses well
    c.rpush("list", *[f"element-{i % 10}" * 4 for i in range(500)])
    c.hset("hash", mapping={f"field{i}": "value" * 10 for i in range(300)})
    c.sadd("set", *range(200))
    c.zadd("zset", {f"m{i}": i / 7 for i in range(200)})
    c.set("ttl", "x", px=900_000)


def content(c):
    out = {}
    for k in sorted(c.keys("*")):
        t = c.type(k)
        v = {"string": lambda: c.get(k), "list": lambda: c.lrange(k, 0, -1),
             "hash": lambda: sorted(c.hgetall(k).items()), "set": lambda: sorted(c.smembers(k)),
             "zset": lambda: c.zrange(k, 0, -1, withscores=True)}[t]()
        out[k] = (t, v, c.pttl(k) > 0)
    return out


def peer_loads(tmp_path_factory, files, expected, args=()):
    """Redis 7.0 started on a copy of `files` (name -> path) holds `expected`."""
    if not os.path.exists(REDIS7):
        pytest.skip("redis-server 7.0 not present")
    work = tmp_path_factory.mktemp("peer")
    for name, path in files.items():
        if os.path.isdir(path):
            shutil.copytree(path, work / name)
        else:
            shutil.copy(path, work / name)
    peer = Peer(REDIS7, work, args)
    try:
        assert content(peer.client(decode_responses=True)) == expected
    finally:
        peer.stop()


def check_rdb(path):
    if not os.path.exists(CHECK_RDB):
        return ""
    out = subprocess.run([CHECK_RDB, str(path)], capture_output=True, text=True)
    assert out.returncode == 0 and "RDB looks OK" in out.stdout, out.stdout + out.stderr
    return out.stdout


def test_rdbchecksum_no_writes_a_zero_checksum_that_loads(tmp_path, tmp_path_factory):
    srv = start(tmp_path, "--rdbchecksum", "no")
    c = srv.client()
    assert c.config_get("rdbchecksum") == {"rdbchecksum": "no"}
    fill(c)
    expected = content(c)
    assert c.save()
    data = (tmp_path / "dump.rdb").read_bytes()
    assert data[-9:] == b"\xff" + b"\x00" * 8  # EOF opcode, then a zero CRC64
    assert "checksum disabled" in check_rdb(tmp_path / "dump.rdb") or not os.path.exists(CHECK_RDB)
    srv.stop()
    # Loads in HotKV (with checksums on or off) and in Redis 7.0.
    for flag in ("yes", "no"):
        srv = start(tmp_path, "--rdbchecksum", flag)
        assert content(srv.client()) == expected
        srv.stop(signal.SIGKILL)
    peer_loads(tmp_path_factory, {"dump.rdb": tmp_path / "dump.rdb"}, expected)
    # With checksums on the same data ends in a non-zero CRC64.
    srv = start(tmp_path)
    assert srv.client().save()
    assert (tmp_path / "dump.rdb").read_bytes()[-8:] != b"\x00" * 8
    srv.stop()


def test_rdbcompression_files_load_in_redis70_and_compress(tmp_path, tmp_path_factory):
    sizes = {}
    expected = None
    for flag in ("yes", "no"):
        d = tmp_path / flag
        d.mkdir()
        srv = start(d, "--rdbcompression", flag)
        c = srv.client()
        fill(c)
        expected = content(c)
        assert c.save()
        srv.stop()
        sizes[flag] = (d / "dump.rdb").stat().st_size
        check_rdb(d / "dump.rdb")
        srv = start(d)
        assert content(srv.client()) == expected
        srv.stop()
        peer_loads(tmp_path_factory, {"dump.rdb": d / "dump.rdb"}, expected)
    assert sizes["yes"] < sizes["no"] - 4000, sizes
    # CONFIG SET takes effect for the next file.
    d = tmp_path / "set"
    d.mkdir()
    srv = start(d, "--rdbcompression", "yes")
    c = srv.client()
    fill(c)
    assert c.config_set("rdbcompression", "no") and c.save()
    # (aux fields such as used-mem may differ by a few bytes)
    assert abs((d / "dump.rdb").stat().st_size - sizes["no"]) < 64, sizes
    srv.stop()


def aof_names(d):
    return sorted(os.listdir(d))


def test_appenddirname_and_appendfilename(tmp_path, tmp_path_factory):
    opts = ("--appendonly", "yes", "--appenddirname", "my-aof", "--appendfilename", "data.aof")
    srv = start(tmp_path, *opts)
    c = srv.client()
    assert c.config_get("appenddirname") == {"appenddirname": "my-aof"}
    assert c.config_get("appendfilename") == {"appendfilename": "data.aof"}
    fill(c)
    expected = content(c)
    srv.stop()
    assert not os.path.exists(tmp_path / "appendonlydir")
    names = aof_names(tmp_path / "my-aof")
    assert names == ["data.aof.1.base.rdb", "data.aof.1.incr.aof", "data.aof.manifest"], names
    # As Redis 7.0 names them.
    if os.path.exists(REDIS7):
        work = tmp_path_factory.mktemp("peer")
        peer = Peer(REDIS7, work, list(opts))
        try:
            peer.client().set("x", "1")
        finally:
            peer.stop()
        assert aof_names(work / "my-aof") == names
    # A restart loads them (and only from there: the default directory is absent).
    srv = start(tmp_path, *opts)
    assert content(srv.client()) == expected
    srv.stop()
    # Redis 7.0 loads HotKV's directory under the same options.
    peer_loads(tmp_path_factory, {"my-aof": tmp_path / "my-aof"}, expected, opts)
    # Both are fixed at start-up, as in Redis.
    srv = start(tmp_path, *opts)
    for name in ("appenddirname", "appendfilename"):
        with pytest.raises(redis.ResponseError, match="immutable|protected"):
            srv.client().config_set(name, "other")
    srv.stop()


def test_no_appendfsync_on_rewrite(tmp_path):
    srv = start(tmp_path, "--appendonly", "yes", "--appendfsync", "always",
                "--no-appendfsync-on-rewrite", "yes", "--rdb-key-save-delay", "2000")
    c = srv.client()
    assert c.config_get("no-appendfsync-on-rewrite") == {"no-appendfsync-on-rewrite": "yes"}
    assert c.config_set("no-appendfsync-on-rewrite", "no")
    assert c.config_get("no-appendfsync-on-rewrite") == {"no-appendfsync-on-rewrite": "no"}
    assert c.config_set("no-appendfsync-on-rewrite", "yes")
    c.mset({f"k{i}": i for i in range(500)})  # ~1 s of rewrite at 2 ms per key
    assert c.bgrewriteaof()
    assert wait_until(lambda: c.info("persistence")["aof_rewrite_in_progress"] == 1)
    # While the child runs, writes are answered (written, not fsynced: Redis answers
    # them too), not held until the rewrite ends.
    w = srv.client(socket_timeout=1.5)
    for i in range(20):
        assert w.set(f"during{i}", i)
    assert c.info("persistence")["aof_rewrite_in_progress"] == 1
    assert wait_until(lambda: c.info("persistence")["aof_rewrite_in_progress"] == 0, timeout=30)
    c.set("after", "1")
    srv.stop()
    srv = start(tmp_path, "--appendonly", "yes")
    c = srv.client()
    assert c.dbsize() == 521 and c.get("during19") == "19" and c.get("after") == "1"
    srv.stop()
