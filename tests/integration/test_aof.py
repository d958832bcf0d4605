"""The append-only file: appendonly at start and by CONFIG SET, every fsync policy,
restarts, kill -9 under a write load (always: nothing acknowledged lost; everysec: the
loss is counted and printed), a torn tail, BGREWRITEAOF, WAITAOF, INFO, MIGRATE, vector
sets. Redis interop, old formats and hotkv-check-aof: test_aof_interop.py.

Each test bounds its load by time (a second or two) and the servers by pid.
"""
import os
import signal
import threading
import time

import pytest
import redis

from conftest import ServerProcess, cmd, error_reply

pytestmark = pytest.mark.hotkv_only



def start(tmp_path, *extra):
    return ServerProcess(["--dir", str(tmp_path), "--threads", "2", *extra],
                         tmp_path=tmp_path).start()


def output_of(srv):
    srv.stop()
    return srv.proc.stdout.read().decode(errors="replace")


def kill9(srv):
    srv.proc.send_signal(signal.SIGKILL)
    srv.proc.wait()


def fill(r):
    """Every type, with and without TTLs, in two databases."""
    r.set("s", "v")
    r.set("n", 10)
    r.incrbyfloat("f", 1.25)
    r.set("ttl", "x", ex=1000)
    r.rpush("l", *[f"e{i}" for i in range(300)])
    r.hset("h", mapping={f"f{i}": i for i in range(200)})
    r.sadd("si", *range(100))
    r.sadd("ss", "a", "b", "c")
    r.zadd("z", {f"m{i}": i / 3 for i in range(150)})
    r.spop("ss")
    r.execute_command("SELECT", 3)
    r.set("db3", "yes")
    r.execute_command("SELECT", 0)


def snapshot(r):
    """Every key of databases 0 and 3: type, value, TTL rounded to 10 s."""
    out = {}
    for db in (0, 3):
        r.execute_command("SELECT", db)
        for k in sorted(r.keys("*")):
            t = r.type(k)
            if t == "string":
                v = r.get(k)
            elif t == "list":
                v = r.lrange(k, 0, -1)
            elif t == "hash":
                v = r.hgetall(k)
            elif t == "set":
                v = sorted(r.smembers(k))
            else:
                v = r.zrange(k, 0, -1, withscores=True)
            ttl = r.ttl(k)
            out[(db, k)] = (t, v, -1 if ttl < 0 else round(ttl, -1))
    r.execute_command("SELECT", 0)
    return out


def aof_dir(tmp_path):
    return os.path.join(str(tmp_path), "appendonlydir")


def manifest(tmp_path):
    with open(os.path.join(aof_dir(tmp_path), "appendonly.aof.manifest")) as f:
        return f.read()


def test_appendonly_at_start_restores_after_restart(tmp_path):
    srv = start(tmp_path, "--appendonly", "yes")
    r = srv.client()
    fill(r)
    before = snapshot(r)
    info = r.info("persistence")
    assert info["aof_enabled"] == 1 and info["aof_last_write_status"] == "ok"
    assert info["aof_current_size"] > info["aof_base_size"] > 0
    srv.stop()
    assert manifest(tmp_path) == ("file appendonly.aof.1.base.rdb seq 1 type b\n"
                                  "file appendonly.aof.1.incr.aof seq 1 type i\n")
    srv = start(tmp_path, "--appendonly", "yes")
    assert snapshot(srv.client()) == before
    srv.stop()


def test_config_set_appendonly_writes_a_base_first(tmp_path):
    # appendfsync always: every acknowledged write is in the file before kill -9.
    srv = start(tmp_path, "--appendfsync", "always")
    r = srv.client()
    fill(r)
    assert r.info("persistence")["aof_enabled"] == 0
    assert r.config_set("appendonly", "yes")
    assert r.info("persistence")["aof_enabled"] == 1
    r.set("after", "1")
    r.incr("n")
    before = snapshot(r)
    assert os.path.getsize(os.path.join(aof_dir(tmp_path), "appendonly.aof.1.base.rdb")) > 1000
    kill9(srv)
    srv = start(tmp_path, "--appendonly", "yes")
    assert snapshot(srv.client()) == before
    # Off again: appends stop, the files stay.
    r = srv.client()
    assert r.config_set("appendonly", "no")
    assert r.info("persistence")["aof_enabled"] == 0
    srv.stop()


@pytest.mark.parametrize("policy", ["always", "everysec", "no"])
def test_fsync_policies_restart(tmp_path, policy):
    srv = start(tmp_path, "--appendonly", "yes", "--appendfsync", policy)
    r = srv.client()
    for i in range(200):
        r.set(f"k{i}", i)
    assert r.config_get("appendfsync") == {"appendfsync": policy}
    srv.stop()  # a clean stop writes and fsyncs what is pending, whatever the policy
    srv = start(tmp_path, "--appendonly", "yes")
    assert srv.client().dbsize() == 200
    srv.stop()


def write_load(srv, seconds, clients=4):
    """Clients SET c<i>:<n> for n = 0, 1, ... and record the last acknowledged n."""
    acked = [-1] * clients
    stop = threading.Event()

    def run(i):
        r = srv.client(socket_timeout=5)
        n = 0
        try:
            while not stop.is_set():
                r.set(f"c{i}:{n}", n)
                acked[i] = n
                n += 1
        except (redis.ConnectionError, redis.TimeoutError):
            pass

    threads = [threading.Thread(target=run, args=(i,)) for i in range(clients)]
    for t in threads:
        t.start()
    time.sleep(seconds)
    kill9(srv)
    stop.set()
    for t in threads:
        t.join()
    return acked


def missing_after_restart(tmp_path, acked):
    srv = start(tmp_path, "--appendonly", "yes")
    r = srv.client()
    missing = 0
    for i, last in enumerate(acked):
        if last < 0:
            continue
        present = r.mget([f"c{i}:{n}" for n in range(last + 1)])
        missing += sum(1 for v in present if v is None)
    srv.stop()
    return missing


def test_kill9_always_loses_no_acknowledged_write(tmp_path):
    srv = start(tmp_path, "--appendonly", "yes", "--appendfsync", "always")
    acked = write_load(srv, 1.5)
    assert sum(a + 1 for a in acked) > 100
    assert missing_after_restart(tmp_path, acked) == 0


def test_kill9_everysec_counts_what_is_missing(tmp_path):
    srv = start(tmp_path, "--appendonly", "yes", "--appendfsync", "everysec")
    t0 = time.time()
    acked = write_load(srv, 1.5)
    total = sum(a + 1 for a in acked)
    missing = missing_after_restart(tmp_path, acked)
    rate = total / (time.time() - t0)
    print(f"everysec kill -9: {missing} of {total} acknowledged writes missing "
          f"(~{missing / max(rate, 1):.3f} s of writes)")
    assert missing <= 2 * rate  # at most about two seconds of writes


def test_truncated_tail_is_dropped_with_a_log_line(tmp_path):
    srv = start(tmp_path, "--appendonly", "yes")
    r = srv.client()
    r.set("a", "1")
    r.rpush("l", "x")
    srv.stop()
    incr = os.path.join(aof_dir(tmp_path), "appendonly.aof.1.incr.aof")
    good = os.path.getsize(incr)
    tail = b"*3\r\n$3\r\nSET\r\n$1\r\nb\r\n$5\r\nhel"  # a torn SET
    with open(incr, "ab") as f:
        f.write(tail)
    srv = start(tmp_path, "--appendonly", "yes")
    r = srv.client()
    assert r.get("a") == "1" and r.lrange("l", 0, -1) == ["x"] and r.get("b") is None
    r.set("c", "3")
    out = output_of(srv)
    assert "%d bytes of an incomplete command dropped at offset %d" % (len(tail), good) in out
    srv = start(tmp_path, "--appendonly", "yes")
    assert srv.client().get("c") == "3"
    srv.stop()


def test_truncated_tail_refused_without_aof_load_truncated(tmp_path):
    srv = start(tmp_path, "--appendonly", "yes")
    srv.client().set("a", "1")
    srv.stop()
    incr = os.path.join(aof_dir(tmp_path), "appendonly.aof.1.incr.aof")
    good = os.path.getsize(incr)
    with open(incr, "ab") as f:
        f.write(b"*2\r\n$3\r\nDEL")
    with pytest.raises(RuntimeError) as e:
        start(tmp_path, "--appendonly", "yes", "--aof-load-truncated", "no")
    assert "appendonly.aof.1.incr.aof at offset %d" % good in str(e.value)


def test_bad_command_in_aof_stops_the_load(tmp_path):
    srv = start(tmp_path, "--appendonly", "yes")
    srv.client().set("a", "1")
    srv.stop()
    incr = os.path.join(aof_dir(tmp_path), "appendonly.aof.1.incr.aof")
    with open(incr, "ab") as f:
        f.write(b"+garbage\r\n")
    with pytest.raises(RuntimeError) as e:
        start(tmp_path, "--appendonly", "yes")
    assert "Bad file format reading the append only file appendonly.aof.1.incr.aof" in str(e.value)


def test_bgrewriteaof_under_load_loses_nothing(tmp_path):
    srv = start(tmp_path, "--appendonly", "yes", "--appendfsync", "always")
    r = srv.client()
    fill(r)
    acked = [-1]
    stop = threading.Event()

    def run():
        c = srv.client()
        n = 0
        while not stop.is_set():
            c.set(f"c0:{n}", n)
            acked[0] = n
            n += 1

    t = threading.Thread(target=run)
    t.start()
    time.sleep(0.2)
    assert r.bgrewriteaof()
    deadline = time.time() + 10
    while r.info("persistence")["aof_rewrites"] < 1 and time.time() < deadline:
        time.sleep(0.05)
    time.sleep(0.2)
    stop.set()
    t.join()
    info = r.info("persistence")
    assert info["aof_rewrites"] == 1 and info["aof_last_bgrewrite_status"] == "ok"
    assert manifest(tmp_path) == ("file appendonly.aof.2.base.rdb seq 2 type b\n"
                                  "file appendonly.aof.2.incr.aof seq 2 type i\n")
    assert sorted(os.listdir(aof_dir(tmp_path))) == [
        "appendonly.aof.2.base.rdb", "appendonly.aof.2.incr.aof", "appendonly.aof.manifest"]
    before = snapshot(r)
    kill9(srv)
    srv = start(tmp_path, "--appendonly", "yes")
    assert snapshot(srv.client()) == before
    assert missing_after_restart_srv(srv, acked) == 0
    srv.stop()


def missing_after_restart_srv(srv, acked):
    r = srv.client()
    present = r.mget([f"c0:{n}" for n in range(acked[0] + 1)])
    return sum(1 for v in present if v is None)


def test_auto_rewrite_on_growth(tmp_path):
    srv = start(tmp_path, "--appendonly", "yes", "--auto-aof-rewrite-min-size", "10kb",
                "--auto-aof-rewrite-percentage", "100")
    r = srv.client()
    for i in range(500):
        r.set(f"k{i}", "x" * 50)
    deadline = time.time() + 10
    while r.info("persistence")["aof_rewrites"] < 1 and time.time() < deadline:
        time.sleep(0.05)
    assert r.info("persistence")["aof_rewrites"] >= 1
    srv.stop()
    srv = start(tmp_path, "--appendonly", "yes")
    assert srv.client().dbsize() == 500
    srv.stop()


def test_waitaof_counts_the_local_fsync(tmp_path):
    srv = start(tmp_path, "--appendonly", "yes")
    r = srv.client()
    r.set("a", "1")
    assert r.execute_command("WAITAOF", 1, 0, 0) == [1, 0]
    assert r.config_set("appendonly", "no")
    with pytest.raises(redis.ResponseError, match="appendonly is disabled"):
        r.execute_command("WAITAOF", 1, 0, 0)
    srv.stop()


def test_info_persistence_aof_fields(tmp_path):
    srv = start(tmp_path, "--appendonly", "yes")
    info = srv.client().info("persistence")  # keeps the server's order
    names = [k for k in info if k.startswith("aof_")]
    keys = list(info)
    # Where Redis 8.8 has them: after the rdb_* fields, module_fork_in_progress between.
    assert keys.index("aof_enabled") > keys.index("rdb_last_bgsave_status")
    assert keys.index("aof_last_write_status") < keys.index("module_fork_in_progress") < \
        keys.index("aof_current_size")
    assert names == ["aof_enabled", "aof_rewrite_in_progress", "aof_rewrite_scheduled",
                     "aof_last_rewrite_time_sec", "aof_current_rewrite_time_sec",
                     "aof_last_bgrewrite_status", "aof_rewrites",
                     "aof_rewrites_consecutive_failures", "aof_last_write_status",
                     "aof_current_size", "aof_base_size",
                     "aof_pending_rewrite", "aof_buffer_length", "aof_pending_bio_fsync",
                     "aof_delayed_fsync"]
    srv.stop()


def test_config_set_appendonly_inside_multi_does_not_hang(tmp_path):
    srv = start(tmp_path, "--appendfsync", "always")
    r = srv.client()
    r.set("a", "1")
    p = r.pipeline(transaction=True)
    p.set("b", "2")
    p.config_set("appendonly", "yes")
    p.set("c", "3")
    assert p.execute() == [True, True, True]
    deadline = time.time() + 10
    while r.info("persistence")["aof_enabled"] != 1 and time.time() < deadline:
        time.sleep(0.05)
    r.set("d", "4")
    kill9(srv)
    srv = start(tmp_path, "--appendonly", "yes")
    assert srv.client().mget("a", "b", "c", "d") == ["1", "2", "3", "4"]
    srv.stop()


# kill -9 during BGREWRITEAOF (and during BGSAVE) under a write load, with the child
# provably running: test_persistence_crash.py.


def test_aof_wins_over_dump_rdb_at_start_up(tmp_path):
    """As Redis: with appendonly yes the AOF is the dataset; dump.rdb is not read."""
    srv = start(tmp_path, "--appendfsync", "always")
    r = srv.client()
    r.set("a", "from-rdb")
    r.set("only_in_rdb", "x")
    assert r.save()
    r.set("a", "from-aof")
    r.delete("only_in_rdb")
    assert r.config_set("appendonly", "yes")
    r.set("b", "1")
    kill9(srv)
    assert os.path.exists(os.path.join(str(tmp_path), "dump.rdb"))
    srv = start(tmp_path, "--appendonly", "yes")
    r = srv.client()
    assert r.mget("a", "b", "only_in_rdb") == ["from-aof", "1", None]
    assert r.info("persistence")["aof_enabled"] == 1
    srv.stop()


def test_vector_sets_through_rewrite_with_inserts_running(tmp_path):
    srv = start(tmp_path, "--appendonly", "yes")
    r = srv.client()
    added = [0]
    stop = threading.Event()

    def run():
        c = srv.client()
        i = 0
        while not stop.is_set():
            c.execute_command("VADD", "vs", "VALUES", 3, i % 7 + 1, i % 5 + 1, i % 3 + 1, f"e{i}")
            added[0] = i + 1
            i += 1

    t = threading.Thread(target=run)
    t.start()
    time.sleep(0.2)
    assert r.bgrewriteaof()
    deadline = time.time() + 10
    while r.info("persistence")["aof_rewrites"] < 1 and time.time() < deadline:
        time.sleep(0.05)
    time.sleep(0.1)
    stop.set()
    t.join()
    assert r.info("persistence")["aof_last_bgrewrite_status"] == "ok"
    assert r.execute_command("VCARD", "vs") == added[0]
    emb = r.execute_command("VEMB", "vs", "e1")
    srv.stop()
    srv = start(tmp_path, "--appendonly", "yes")
    r = srv.client()
    assert r.execute_command("VCARD", "vs") == added[0]
    assert r.execute_command("VEMB", "vs", "e1") == emb
    srv.stop()


def test_migrate_is_recorded_as_the_deletes_it_did(tmp_path):
    dst_dir = tmp_path / "dst"
    dst_dir.mkdir()
    dst = start(dst_dir)
    srv = start(tmp_path, "--appendonly", "yes", "--appendfsync", "always")
    r = srv.client()
    r.set("moved", "1")
    r.set("copied", "2")
    r.set("stays", "3")
    assert r.migrate("127.0.0.1", dst.port, "moved", 0, 5000)
    assert r.migrate("127.0.0.1", dst.port, "copied", 0, 5000, copy=True)
    srv.stop()
    dst.stop()  # a replayed MIGRATE would find no server: the load must not need one
    with open(os.path.join(aof_dir(tmp_path), "appendonly.aof.1.incr.aof"), "rb") as f:
        data = f.read()
    assert b"MIGRATE" not in data.upper() and b"$3\r\nDEL\r\n$5\r\nmoved\r\n" in data
    srv = start(tmp_path, "--appendonly", "yes")
    assert srv.client().mget("moved", "copied", "stays") == [None, "2", "3"]
    srv.stop()


def pinfo(r, field, section="persistence"):
    return r.info(section)[field]


def wait_info(r, field, value, timeout=15.0):
    deadline = time.time() + timeout
    while time.time() < deadline:
        if pinfo(r, field) == value:
            return
        time.sleep(0.02)
    raise AssertionError(f"timed out waiting for {field}={value}")


OTHER_CHILD = ("Another child process is active (AOF?): can't BGSAVE right now. Use BGSAVE "
               "SCHEDULE in order to schedule a BGSAVE whenever possible.")


def test_one_child_at_a_time_as_redis(tmp_path):
    # rdb-key-save-delay slows both children (0.1 s per key: about 1 s each).
    srv = start(tmp_path, "--appendonly", "yes", "--rdb-key-save-delay", "100000")
    r = srv.client()
    for i in range(10):
        r.set(f"k{i}", i)
    forks = pinfo(r, "total_forks", "stats")
    assert cmd(r, "BGREWRITEAOF") == "Background append only file rewriting started"
    wait_info(r, "aof_rewrite_in_progress", 1)
    assert error_reply(r, "BGSAVE") == "ERR " + OTHER_CHILD
    assert cmd(r, "BGSAVE", "SCHEDULE") == "Background saving scheduled"
    assert pinfo(r, "rdb_bgsave_in_progress") == 0
    # The scheduled BGSAVE runs once the rewrite is done.
    wait_info(r, "rdb_bgsave_in_progress", 1)
    assert pinfo(r, "aof_rewrite_in_progress") == 0
    for _ in range(2):
        assert cmd(r, "BGREWRITEAOF") == \
            "Background append only file rewriting scheduled"
    info = r.info("persistence")
    assert (info["aof_rewrite_scheduled"], info["aof_rewrite_in_progress"]) == (1, 0)
    assert error_reply(r, "BGSAVE") == "ERR Background save already in progress"
    # The scheduled rewrite runs once the BGSAVE is done.
    wait_info(r, "aof_rewrite_in_progress", 1)
    info = r.info("persistence")
    assert (info["rdb_bgsave_in_progress"], info["aof_rewrite_scheduled"]) == (0, 0)
    wait_info(r, "aof_rewrite_in_progress", 0)
    info = r.info("persistence")
    assert (info["aof_rewrites"], info["rdb_saves"], info["rdb_last_bgsave_status"]) == (2, 1, "ok")
    assert pinfo(r, "total_forks", "stats") == forks + 3
    assert os.path.exists(os.path.join(str(tmp_path), "dump.rdb"))
    srv.stop()
    srv = start(tmp_path, "--appendonly", "yes")
    assert srv.client().mget([f"k{i}" for i in range(10)]) == [str(i) for i in range(10)]
    srv.stop()


def test_bgrewriteaof_with_appendonly_off_writes_a_one_off_base(tmp_path):
    srv = start(tmp_path)
    r = srv.client()
    fill(r)
    want = snapshot(r)
    assert cmd(r, "BGREWRITEAOF") == "Background append only file rewriting started"
    wait_info(r, "aof_rewrites", 1)
    # As Redis 8.8: a base and a manifest naming only it.
    assert manifest(tmp_path) == "file appendonly.aof.1.base.rdb seq 1 type b\n"
    assert pinfo(r, "aof_enabled") == 0
    r.set("later", "x")
    r.execute_command("BGREWRITEAOF")
    wait_info(r, "aof_rewrites", 2)
    assert manifest(tmp_path) == "file appendonly.aof.2.base.rdb seq 2 type b\n"
    assert sorted(os.listdir(aof_dir(tmp_path))) == ["appendonly.aof.2.base.rdb",
                                                      "appendonly.aof.manifest"]
    srv.stop()
    srv = start(tmp_path, "--appendonly", "yes")
    r = srv.client()
    assert r.get("later") == "x"
    r.delete("later")
    assert snapshot(r) == want
    srv.stop()


@pytest.mark.skipif(os.geteuid() != 0, reason="prlimit of the server needs root")
@pytest.mark.parametrize("policy", ["everysec", "no"])
def test_aof_write_error_refuses_writes_until_a_write_succeeds(tmp_path, policy):
    import resource
    srv = start(tmp_path, "--appendonly", "yes", "--appendfsync", policy)
    r = srv.client()
    r.set("a", 1)
    incr = os.path.join(aof_dir(tmp_path), "appendonly.aof.1.incr.aof")
    wait_until_size = time.time() + 5
    while os.path.getsize(incr) == 0 and time.time() < wait_until_size:
        time.sleep(0.01)
    pid = srv.proc.pid
    old = resource.prlimit(pid, resource.RLIMIT_FSIZE)
    # The incr file cannot grow: the next write fails with EFBIG.
    resource.prlimit(pid, resource.RLIMIT_FSIZE, (os.path.getsize(incr), old[1]))
    try:
        r.set("b", 2)  # accepted; writing it to the AOF fails
        wait_info(r, "aof_last_write_status", "err", timeout=5)
        misconf = "MISCONF Errors writing to the AOF file: File too large"
        for args in (("SET", "c", "3"), ("PING",), ("INCR", "a")):
            assert error_reply(r, *args) == misconf
        assert r.get("b") == "2"  # reads go on
    finally:
        resource.prlimit(pid, resource.RLIMIT_FSIZE, old)
    wait_info(r, "aof_last_write_status", "ok", timeout=5)
    assert r.set("c", 3)
    assert r.ping()
    srv.stop()
    srv = start(tmp_path, "--appendonly", "yes")
    assert srv.client().mget("a", "b", "c") == ["1", "2", "3"]
    srv.stop()


def vector_state(r, key):
    """Every element of `key` with its attributes (VRANDMEMBER with a count above VCARD)."""
    members = r.execute_command("VRANDMEMBER", key, 100000)
    return {m: r.execute_command("VGETATTR", key, m) for m in members}


def test_racing_vector_writes_replay_to_the_live_set(tmp_path):
    # VADD/VREM/VSETATTR run outside the shard lock; each is recorded under its element's
    # lock as it applies, so the AOF replays the same elements and attributes. Pipelines
    # on several connections (spread over the workers) write the same elements in the
    # same order at once: a VADD and a VREM of one element race, and the element's final
    # state depends on which applied last. Three rounds, one key each.
    srv = start(tmp_path, "--appendonly", "yes")
    n = 2000
    r = srv.client()
    errors = []

    def run(key, kind, start_line):
        p = srv.client().pipeline(transaction=False)
        for i in range(n):
            if kind == 0:
                p.execute_command("VADD", key, "VALUES", 2, i % 5 + 1, 3, f"e{i}")
            elif kind == 1:
                p.execute_command("VREM", key, f"e{i}")
            else:
                p.execute_command("VSETATTR", key, f"e{i}", f'{{"k":{kind}}}')
        start_line.wait()
        try:
            p.execute()
        except Exception as ex:  # noqa: BLE001 - reported below
            errors.append(ex)

    keys = [f"vs{k}" for k in range(3)]
    for key in keys:
        p = r.pipeline(transaction=False)
        for i in range(n + 1):
            p.execute_command("VADD", key, "VALUES", 2, 1, i % 7 + 1, f"e{i}")
        p.execute()
        start_line = threading.Barrier(4)
        threads = [threading.Thread(target=run, args=(key, k, start_line)) for k in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    assert not errors
    live = {key: vector_state(r, key) for key in keys}  # e<n> keeps every key alive
    srv.stop()
    srv = start(tmp_path, "--appendonly", "yes")
    assert {key: vector_state(srv.client(), key) for key in keys} == live
    srv.stop()
def test_incr_file_holds_each_command_in_canonical_resp(tmp_path):
    """A command that goes in as it ran is in the incr file exactly as Redis encodes it,
    whether the client sent RESP (copied as it came) or an inline line (encoded), with
    empty and binary arguments, pipelined with commands that are rewritten or skipped."""
    import socket
    srv = start(tmp_path, "--appendonly", "yes", "--appendfsync", "always")
    try:
        sent = (b"*3\r\n$3\r\nSET\r\n$1\r\na\r\n$0\r\n\r\n"
                b"set b \"x\\x00y\"\r\n"
                b"*3\r\n$4\r\nINCR\r\n$1\r\nn\r\n$1\r\nx\r\n"     # wrong arity: nothing
                b"*2\r\n$4\r\nINCR\r\n$1\r\nn\r\n"
                b"*3\r\n$6\r\nEXPIRE\r\n$1\r\na\r\n$3\r\n-10\r\n"   # past expiry: DEL
                b"*3\r\n$4\r\nsAdD\r\n$1\r\ns\r\n$5\r\nx\r\ny\n\r\n"
                b"*2\r\n$3\r\nGET\r\n$1\r\nb\r\n")
        with socket.create_connection(("127.0.0.1", srv.port), timeout=10) as s:
            s.sendall(sent)
            got = b""
            while got.count(b"\r\n") < 8:
                chunk = s.recv(65536)
                assert chunk, got
                got += chunk
        assert got.startswith(b"+OK\r\n+OK\r\n-ERR wrong number of arguments"), got
        assert got.endswith(b":1\r\n:1\r\n:1\r\n$3\r\nx\x00y\r\n"), got
        incr = os.path.join(aof_dir(tmp_path), "appendonly.aof.1.incr.aof")
        with open(incr, "rb") as f:
            data = f.read()
        assert data == (b"*2\r\n$6\r\nSELECT\r\n$1\r\n0\r\n"
                        b"*3\r\n$3\r\nSET\r\n$1\r\na\r\n$0\r\n\r\n"
                        b"*3\r\n$3\r\nset\r\n$1\r\nb\r\n$3\r\nx\x00y\r\n"
                        b"*2\r\n$4\r\nINCR\r\n$1\r\nn\r\n"
                        b"*2\r\n$3\r\nDEL\r\n$1\r\na\r\n"
                        b"*3\r\n$4\r\nsAdD\r\n$1\r\ns\r\n$5\r\nx\r\ny\n\r\n")
    finally:
        srv.stop()
