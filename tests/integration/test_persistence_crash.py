"""kill -9 while a background child is provably running, under a bounded write load,
with appendonly yes and appendfsync always (issue 15: nothing acknowledged is lost).

- during BGREWRITEAOF: the rewrite is slowed by rdb-key-save-delay (its child sleeps per
  key written), INFO says aof_rewrite_in_progress:1 before and after the writes it
  overlaps, and the manifest found at restart still names the old base (the rewrite never
  finished);
- during BGSAVE: the same with rdb_bgsave_in_progress:1; the AOF, not dump.rdb, is loaded.

Writers record each write once its reply arrived (SET of a new key, INCR of a counter,
RPUSH to a list); after the restart every recorded write is there, and of the writes in
flight at the kill at most one per writer shows. Loads are bounded by a count.
"""
import os
import signal
import threading

import pytest
import redis

from helpers_dir_servers import start_in, stop_dir_servers  # noqa: F401 (autouse fixture)
from conftest import wait_until

pytestmark = pytest.mark.hotkv_only

WRITERS = 3
MAX_WRITES = 20000  # per writer: the bound of the load
PRELOAD = 400       # keys the slowed child writes (25 ms each: 10 s, cut short by the kill)


def start(tmp_path, *extra):
    return start_in(tmp_path, "--appendonly", "yes", *extra)


class Load:
    """WRITERS threads, each on its own connection, writing until stopped or bounded."""

    def __init__(self, srv):
        self.acked = [0] * WRITERS
        self.stop = threading.Event()
        self.threads = [threading.Thread(target=self.run, args=(srv.client(), t))
                        for t in range(WRITERS)]
        for t in self.threads:
            t.start()

    def run(self, c, t):
        try:
            for i in range(MAX_WRITES):
                if self.stop.is_set():
                    return
                if i % 3 == 0:
                    c.set(f"w{t}:{i}", i)
                elif i % 3 == 1:
                    c.incr(f"counter{t}")
                else:
                    c.rpush(f"list{t}", i)
                self.acked[t] = i + 1  # its reply arrived
        except (redis.ConnectionError, redis.TimeoutError):
            pass

    def total(self):
        return sum(self.acked)

    def join(self):
        self.stop.set()
        for t in self.threads:
            t.join(30)


def check_nothing_acked_lost(c, acked):
    for t, n in enumerate(acked):
        # every acknowledged write, and of the one in flight at most itself
        sets = [i for i in range(0, n, 3)]
        if sets:
            got = c.mget([f"w{t}:{i}" for i in sets])
            missing = [i for i, v in zip(sets, got) if v != str(i)]
            assert not missing, f"writer {t}: acknowledged SETs lost: {missing[:10]}"
        incrs = len(range(1, n, 3))
        assert incrs <= int(c.get(f"counter{t}") or 0) <= incrs + 1, t
        pushed = [str(i) for i in range(2, n, 3)]
        got = c.lrange(f"list{t}", 0, -1)
        assert got[:len(pushed)] == pushed and len(got) <= len(pushed) + 1, t
        assert c.get(f"w{t}:{n}") in (None, str(n))  # the write in flight, if a SET
        assert c.exists(f"w{t}:{n + 3}") == 0


def manifest_bases(tmp_path):
    text = open(os.path.join(str(tmp_path), "appendonlydir", "appendonly.aof.manifest")).read()
    return [line.split()[1] for line in text.splitlines() if "type b" in line]


def kill9(srv):
    srv.proc.send_signal(signal.SIGKILL)
    srv.proc.wait()


def preload(c):
    p = c.pipeline(transaction=False)
    for i in range(PRELOAD):
        p.set(f"pre:{i}", i)
    p.execute()


def test_kill9_during_bgrewriteaof_loses_nothing_acknowledged(tmp_path):
    srv = start(tmp_path, "--appendfsync", "always", "--rdb-key-save-delay", "25000")
    c = srv.client()
    preload(c)
    bases = manifest_bases(tmp_path)
    load = Load(srv)
    try:
        assert wait_until(lambda: load.total() >= 100)
        assert c.bgrewriteaof()
        assert wait_until(lambda: c.info("persistence")["aof_rewrite_in_progress"] == 1)
        start_total = load.total()
        assert wait_until(lambda: load.total() >= start_total + 300, timeout=20)
        assert c.info("persistence")["aof_rewrite_in_progress"] == 1
        kill9(srv)
    finally:
        load.join()
    assert load.total() >= start_total + 300
    # The rewrite never finished: the manifest still names the old base.
    assert manifest_bases(tmp_path) == bases
    srv = start(tmp_path)
    c = srv.client()
    assert c.get("pre:399") == "399"
    check_nothing_acked_lost(c, load.acked)
    srv.stop()


def test_kill9_during_bgsave_with_aof_always_loses_nothing_acknowledged(tmp_path):
    srv = start(tmp_path, "--appendfsync", "always", "--rdb-key-save-delay", "25000")
    c = srv.client()
    preload(c)
    load = Load(srv)
    try:
        assert wait_until(lambda: load.total() >= 100)
        assert c.bgsave()
        assert wait_until(lambda: c.info("persistence")["rdb_bgsave_in_progress"] == 1)
        start_total = load.total()
        assert wait_until(lambda: load.total() >= start_total + 300, timeout=20)
        assert c.info("persistence")["rdb_bgsave_in_progress"] == 1
        kill9(srv)
    finally:
        load.join()
    assert not os.path.exists(tmp_path / "dump.rdb")  # the BGSAVE never finished
    srv = start(tmp_path)
    c = srv.client()
    assert c.get("pre:0") == "0"
    check_nothing_acked_lost(c, load.acked)
    srv.stop()
