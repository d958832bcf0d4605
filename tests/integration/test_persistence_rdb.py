"""Snapshots: SAVE, BGSAVE [SCHEDULE], LASTSAVE, INFO persistence, save rules, FLUSHALL's
change counter, SHUTDOWN SAVE/NOSAVE, SIGTERM, DEBUG RELOAD, loading at start-up (every
type, TTLs, all 16 databases), stop-writes-on-bgsave-error (-MISCONF), corrupt and
truncated files, kill -9 during BGSAVE, and dump.rdb files moving between HotKV and
Redis 7.0 (and Redis 8.8 when ../shared/peers/redis-8.8/redis-server exists).

Every server works in the test's own tmp_path (conftest passes --dir). Every test runs
with bgsave-mode fork and walk (HotKV's own option: fork a child, or walk the shards
with threads, saving a shard before anything changes it).
"""
import os
import signal
import socket
import subprocess
import threading
import time

import pytest
import redis

from conftest import IS_REDIS, ServerProcess, cmd, error_reply

pytestmark = pytest.mark.skipif(IS_REDIS, reason="HotKV's snapshot runtime")

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
REDIS70 = "/usr/bin/redis-server"
REDIS88 = os.path.join(ROOT, "..", "shared", "peers", "redis-8.8", "redis-server")
CHECK_RDB = "/usr/bin/redis-check-rdb"


@pytest.fixture(params=["fork", "walk"])
def start_server(start_server, request):
    """conftest's factory, with --bgsave-mode set for every server the test starts."""

    def factory(args=(), hotkv_args=(), config_text=None):
        return start_server(args=args, config_text=config_text,
                            hotkv_args=list(hotkv_args) + ["--bgsave-mode", request.param])

    return factory


def info(c, field):
    return c.info("persistence")[field]


def wait_for(pred, timeout=10.0, what="condition"):
    deadline = time.time() + timeout
    while time.time() < deadline:
        if pred():
            return
        time.sleep(0.05)
    raise AssertionError(f"timed out waiting for {what}")


def wait_bgsave(c):
    wait_for(lambda: info(c, "rdb_bgsave_in_progress") == 0, what="BGSAVE to finish")


def populate(c):
    """Every type and encoding size class, binary values, TTLs, in all 16 databases."""
    future_ms = int(time.time() * 1000) + 3_600_000
    for db in range(16):
        p = c.pipeline(transaction=False)
        p.execute_command("SELECT", db)
        p.set(f"str:{db}", f"value-{db}")
        p.set(f"int:{db}", 12345 + db)
        p.set(f"neg:{db}", -9_000_000_000_000 - db)
        p.set(f"bin:{db}", bytes(range(256)) * 3)
        p.set(f"long:{db}", "x" * 5000)  # LZF-compressible
        if db % 4 == 0:
            p.rpush(f"list:{db}", *[f"e{i}" for i in range(10)])
            p.rpush(f"biglist:{db}", *[f"element-{i}" * 3 for i in range(1000)])
            p.hset(f"hash:{db}", mapping={f"f{i}": f"v{i}" for i in range(10)})
            p.hset(f"bighash:{db}", mapping={f"field-{i}": "v" * (i % 100) for i in range(1000)})
            p.sadd(f"intset:{db}", *range(-50, 50))
            p.sadd(f"set:{db}", *[f"m{i}" for i in range(20)])
            p.sadd(f"bigset:{db}", *[f"member-{i}" for i in range(1000)])
            p.zadd(f"zset:{db}", {f"z{i}": i * 1.5 for i in range(10)})
            p.zadd(f"bigzset:{db}", {f"member-{i}": (i * 7919) % 1000 - 500.25 for i in range(1000)})
            p.set(f"ttl:{db}", "soon", px=3_600_000)
            p.hset(f"ttlhash:{db}", "a", "b")
            p.execute_command("PEXPIREAT", f"ttlhash:{db}", future_ms)
        p.execute()
    c.execute_command("SELECT", 0)


def dataset(c):
    """{(db, key): (type, value, pexpiretime)} of every database."""
    out = {}
    for db in range(16):
        c.execute_command("SELECT", db)
        for key in c.scan_iter(count=1000):
            t = c.type(key).decode()
            if t == "string":
                v = c.get(key)
            elif t == "list":
                v = tuple(c.lrange(key, 0, -1))
            elif t == "hash":
                v = tuple(sorted(c.hgetall(key).items()))
            elif t == "set":
                v = tuple(sorted(c.smembers(key)))
            elif t == "zset":
                v = tuple(c.zrange(key, 0, -1, withscores=True))
            else:
                v = None
            out[(db, key)] = (t, v, c.execute_command("PEXPIRETIME", key))
    c.execute_command("SELECT", 0)
    return out


class Peer:
    """A Redis peer on a free port in `workdir`, stopped by pid."""

    def __init__(self, binary, workdir):
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            self.port = s.getsockname()[1]
        self.proc = subprocess.Popen(
            [binary, "--port", str(self.port), "--bind", "127.0.0.1", "--save", "",
             "--appendonly", "no", "--dir", str(workdir), "--dbfilename", "dump.rdb"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        self.client = redis.Redis(port=self.port)
        deadline = time.time() + 20
        while True:
            try:
                self.client.ping()
                return
            except redis.exceptions.BusyLoadingError:
                pass
            except redis.exceptions.ConnectionError:
                if self.proc.poll() is not None:
                    raise RuntimeError(f"peer exited with {self.proc.returncode}")
            if time.time() > deadline:
                raise RuntimeError("peer did not start")
            time.sleep(0.05)

    def stop(self):
        self.proc.terminate()
        self.proc.wait(timeout=20)


# --- SAVE, BGSAVE, LASTSAVE, INFO ---------------------------------------------------------

def test_save_lastsave_and_info_fields(start_server, tmp_path):
    s = start_server()
    c = s.client()
    before = c.lastsave()
    fields = c.info("persistence")
    for name in ("loading", "async_loading", "rdb_changes_since_last_save", "rdb_bgsave_in_progress",
                 "rdb_last_save_time", "rdb_last_bgsave_status", "rdb_last_bgsave_time_sec",
                 "rdb_current_bgsave_time_sec", "rdb_saves", "rdb_saves_consecutive_failures",
                 "rdb_last_load_keys_expired", "rdb_last_load_keys_loaded", "aof_enabled"):
        assert name in fields, name
    assert fields["rdb_saves"] == 0 and fields["rdb_last_bgsave_time_sec"] == -1
    c.set("a", 1)
    c.set("b", 2)
    c.delete("a")
    assert info(c, "rdb_changes_since_last_save") == 3
    time.sleep(1.1)
    assert c.save() is True
    assert (tmp_path / "dump.rdb").exists()
    assert c.lastsave().timestamp() > before.timestamp()
    f = c.info("persistence")
    assert f["rdb_changes_since_last_save"] == 0 and f["rdb_saves"] == 1
    assert f["rdb_last_bgsave_status"] == "ok"
    assert error_reply(c, "SAVE", "x") == "ERR wrong number of arguments for 'save' command"
    subprocess.run([CHECK_RDB, str(tmp_path / "dump.rdb")], check=True, capture_output=True)


def test_bgsave_replies_and_file(start_server, tmp_path):
    s = start_server()
    c = s.client()
    c.mset({f"k{i}": i for i in range(1000)})
    assert cmd(c, "BGSAVE") == "Background saving started"
    wait_bgsave(c)
    f = c.info("persistence")
    assert f["rdb_last_bgsave_status"] == "ok" and f["rdb_saves"] == 1
    assert f["rdb_changes_since_last_save"] == 0 and f["rdb_last_bgsave_time_sec"] >= 0
    out = subprocess.run([CHECK_RDB, str(tmp_path / "dump.rdb")], check=True,
                         capture_output=True).stdout.decode()
    assert "1000 keys read" in out
    assert error_reply(c, "BGSAVE", "NOW") == "ERR syntax error"
    assert cmd(c, "BGSAVE", "SCHEDULE") == "Background saving started"
    wait_bgsave(c)
    # Inside MULTI/EXEC the fork barrier cannot take the transaction's locks: scheduled.
    raw = s.raw()
    assert raw.command("MULTI") == "OK"
    assert raw.command("BGSAVE") == "QUEUED"
    assert raw.command("EXEC") == ["Background saving scheduled"]
    wait_for(lambda: info(c, "rdb_saves") == 3, what="the scheduled BGSAVE")
    assert not list(tmp_path.glob("temp-*.rdb"))


def test_bgsave_in_progress_refuses_save_and_bgsave_and_flushall_kills_it(start_server, tmp_path):
    # rdb-key-save-delay (Redis's testing aid): the child sleeps 2 ms per key, ~2 s in all.
    s = start_server(args=["--rdb-key-save-delay", "2000"])
    c = s.client()
    c.mset({f"k{i}": i for i in range(1000)})
    assert cmd(c, "BGSAVE") == "Background saving started"
    assert info(c, "rdb_bgsave_in_progress") == 1
    assert info(c, "rdb_current_bgsave_time_sec") >= 0
    assert error_reply(c, "BGSAVE") == "ERR Background save already in progress"
    assert error_reply(c, "BGSAVE", "SCHEDULE") == "ERR Background save already in progress"
    assert error_reply(c, "SAVE") == "ERR Background save already in progress"
    assert c.set("during", 1) is True  # writes go on while the child saves
    # FLUSHALL kills the child (Redis's killRDBChild): not a failure, nothing saved.
    c.flushall()
    wait_for(lambda: info(c, "rdb_bgsave_in_progress") == 0, timeout=1, what="the child killed")
    f = c.info("persistence")
    assert f["rdb_last_bgsave_status"] == "ok" and f["rdb_saves"] == 0
    assert f["rdb_changes_since_last_save"] >= 1000
    assert not (tmp_path / "dump.rdb").exists()
    assert not list(tmp_path.glob("temp-*.rdb"))


def test_loading_answers_loading_until_done(start_server, tmp_path):
    s = start_server()
    s.client().mset({f"k{i}": i for i in range(300)})
    s.client().save()
    s.stop()
    # key-load-delay (Redis's testing aid): 5 ms per key, ~1.5 s of loading.
    proc = ServerProcess(args=["--key-load-delay", "5000"], tmp_path=tmp_path)
    proc.start(accept_loading=True)
    try:
        c = proc.client()
        assert error_reply(c, "GET", "k1") == "LOADING Redis is loading the dataset in memory"
        assert error_reply(c, "SET", "x", "1") == "LOADING Redis is loading the dataset in memory"
        f = c.info("persistence")  # INFO is flagged `loading`
        assert f["loading"] == 1
        for name in ("loading_start_time", "loading_total_bytes", "loading_loaded_bytes",
                     "loading_loaded_perc", "loading_eta_seconds"):
            assert name in f, name
        assert 0 <= float(f["loading_loaded_perc"]) < 100
        wait_for(lambda: info(c, "loading") == 0, timeout=20, what="the load")
        assert c.dbsize() == 300 and c.get("k7") == "7"
        f = c.info("persistence")
        assert "loading_total_bytes" not in f and f["rdb_last_load_keys_loaded"] == 300
    finally:
        proc.stop()


# --- save rules, FLUSHALL -----------------------------------------------------------------

def test_config_file_save_lines_fire_a_bgsave(start_server, tmp_path):
    s = start_server(config_text="save 3600 100\nsave 1 2\n")
    c = s.client()
    assert c.config_get("save") == {"save": "3600 100 1 2"}
    c.set("a", 1)
    time.sleep(1.3)
    assert info(c, "rdb_saves") == 0  # one change: below both rules
    c.set("b", 2)
    wait_for(lambda: info(c, "rdb_saves") >= 1, timeout=5, what="the save rule")
    assert info(c, "rdb_changes_since_last_save") == 0
    assert (tmp_path / "dump.rdb").exists()
    # save "" clears the rules; CONFIG SET replaces them.
    assert c.config_set("save", "") is True
    assert c.config_get("save") == {"save": ""}


def test_flushall_changes_counter(start_server, tmp_path):
    s = start_server()
    c = s.client()
    c.set("a", 1)
    c.set("b", 2)
    c.flushall()
    # Redis: every removed key counts as a change.
    assert info(c, "rdb_changes_since_last_save") == 4
    assert not (tmp_path / "dump.rdb").exists()
    # With save rules set, FLUSHALL saves the empty dataset at once (counter reset).
    c.config_set("save", "3600 1000")
    c.set("a", 1)
    c.flushall()
    assert info(c, "rdb_changes_since_last_save") == 0
    assert (tmp_path / "dump.rdb").exists()
    out = subprocess.run([CHECK_RDB, str(tmp_path / "dump.rdb")], check=True,
                         capture_output=True).stdout.decode()
    assert "0 keys read" in out


# --- restart, SHUTDOWN, SIGTERM, DEBUG RELOAD ------------------------------------------------

def test_restart_restores_every_type_ttl_and_db(start_server, tmp_path):
    s = start_server()
    c = s.client(decode_responses=False)
    populate(c)
    c.set("gone", "x", px=50)
    time.sleep(0.1)
    expected = dataset(c)
    assert len(expected) > 100
    assert c.save() is True
    s.stop()
    s2 = start_server()
    c2 = s2.client(decode_responses=False)
    assert dataset(c2) == expected
    f = c2.info("persistence")
    assert f["rdb_last_load_keys_loaded"] == len(expected) and f["loading"] == 0
    assert f["rdb_changes_since_last_save"] == 0
    # A different number of workers (another shard-to-thread layout) loads the same.
    s2.stop()
    s3 = start_server(hotkv_args=["--threads", "1"])
    assert dataset(s3.client(decode_responses=False)) == expected


def test_shutdown_nosave_and_save(start_server, tmp_path):
    s = start_server(args=["--save", "3600 1"])
    c = s.client()
    c.set("k", "v1")
    with pytest.raises(redis.exceptions.ConnectionError):
        c.execute_command("SHUTDOWN", "NOSAVE")
    s.proc.wait(10)
    assert not (tmp_path / "dump.rdb").exists()
    s = start_server()
    c = s.client()
    assert c.dbsize() == 0
    assert error_reply(c, "SHUTDOWN", "SAVE", "NOSAVE") == "ERR syntax error"
    assert error_reply(c, "SHUTDOWN", "ABORT") == "ERR No shutdown in progress."
    c.set("k", "v2")
    with pytest.raises(redis.exceptions.ConnectionError):
        c.execute_command("SHUTDOWN", "SAVE")
    assert s.proc.wait(10) == 0
    s = start_server()
    assert s.client().get("k") == "v2"


def test_sigterm_saves_only_with_rules(start_server, tmp_path):
    s = start_server()
    s.client().set("k", "v")
    assert s.stop() == 0
    assert not (tmp_path / "dump.rdb").exists()
    s = start_server(args=["--save", "3600 1000"])
    s.client().set("k", "v")
    assert s.stop(signal.SIGTERM) == 0
    s = start_server()
    assert s.client().get("k") == "v"


def test_shutdown_on_sigterm_and_sigint_flags(start_server, tmp_path):
    s = start_server(args=["--shutdown-on-sigterm", "save"])  # no save rules
    s.client().set("k", "v")
    assert s.stop(signal.SIGTERM) == 0
    s = start_server(args=["--save", "3600 1", "--shutdown-on-sigint", "nosave"])
    assert s.client().get("k") == "v"
    s.client().set("k", "changed")
    assert s.stop(signal.SIGINT) == 0
    s = start_server()
    assert s.client().get("k") == "v"


def test_debug_reload(start_server):
    s = start_server()
    c = s.client(decode_responses=False)
    populate(c)
    expected = dataset(c)
    assert c.execute_command("DEBUG", "RELOAD") == b"OK"
    assert dataset(c) == expected
    assert c.info("persistence")["rdb_changes_since_last_save"] == 0


# --- stop-writes-on-bgsave-error ------------------------------------------------------------

def test_failed_bgsave_stops_writes(start_server, tmp_path):
    sub = tmp_path / "gone"
    sub.mkdir()
    s = start_server(args=["--dir", str(sub), "--save", "3600 1000"])
    c = s.client()
    c.set("a", 1)
    sub.rmdir()  # the temp file cannot be created any more
    assert cmd(c, "BGSAVE") == "Background saving started"
    wait_bgsave(c)
    f = c.info("persistence")
    assert f["rdb_last_bgsave_status"] == "err" and f["rdb_saves_consecutive_failures"] == 1
    misconf = ("MISCONF Redis is configured to save RDB snapshots, but it's currently unable to "
               "persist to disk. Commands that may modify the data set are disabled, because this "
               "instance is configured to report errors during writes if RDB snapshotting fails "
               "(stop-writes-on-bgsave-error option). Please check the Redis logs for details "
               "about the RDB error.")
    assert error_reply(c, "SET", "a", "2") == misconf
    assert error_reply(c, "PING") == misconf
    assert c.get("a") == "1"  # reads still work
    assert error_reply(c, "SAVE") == "ERR"
    assert error_reply(c, "SHUTDOWN") == "ERR Errors trying to SHUTDOWN. Check logs."
    # SIGTERM with save rules: the save fails, so the server keeps running (as Redis).
    s.proc.send_signal(signal.SIGTERM)
    time.sleep(0.5)
    assert s.alive() and c.get("a") == "1"
    c.config_set("stop-writes-on-bgsave-error", "no")
    assert c.set("a", 2) is True
    c.config_set("stop-writes-on-bgsave-error", "yes")
    c.config_set("save", "")  # Redis: only with save rules set
    assert c.set("a", 3) is True
    c.config_set("save", "3600 1000")
    with pytest.raises(redis.exceptions.ConnectionError):
        c.execute_command("SHUTDOWN", "FORCE")  # the save fails, FORCE exits anyway
    assert s.proc.wait(10) == 0


# --- bad files ------------------------------------------------------------------------------

def start_fails(tmp_path, dbfilename):
    proc = ServerProcess(args=["--dbfilename", dbfilename], tmp_path=tmp_path)
    with pytest.raises(RuntimeError) as e:
        proc.start()
    return str(e.value)


def test_truncated_and_corrupt_files_stop_the_server(start_server, tmp_path):
    s = start_server()
    c = s.client()
    c.mset({f"key:{i}": "v" * 50 for i in range(200)})
    c.save()
    s.stop()
    good = (tmp_path / "dump.rdb").read_bytes()
    (tmp_path / "trunc.rdb").write_bytes(good[: len(good) // 2])
    out = start_fails(tmp_path, "trunc.rdb")
    assert "exited with 1" in out and "trunc.rdb" in out and "offset" in out
    flipped = bytearray(good)
    flipped[len(good) // 2] ^= 0x5A
    (tmp_path / "flip.rdb").write_bytes(bytes(flipped))
    out = start_fails(tmp_path, "flip.rdb")
    assert "exited with 1" in out and "flip.rdb" in out
    (tmp_path / "junk.rdb").write_bytes(b"NOT AN RDB FILE AT ALL")
    out = start_fails(tmp_path, "junk.rdb")
    assert "exited with 1" in out and "junk.rdb" in out


# --- a consistent image under concurrent writes ----------------------------------------------

def test_bgsave_under_concurrent_transactions_is_one_point_in_time(start_server, tmp_path):
    # A counter and a list in other shards, both changed in each MULTI/EXEC: any file that
    # is one point in time holds a list as long as the counter says.
    s = start_server(args=["--rdb-key-save-delay", "200"])
    c = s.client()
    c.mset({f"pad:{i}": "x" * 20 for i in range(5000)})  # a walk of some length
    stop = threading.Event()
    done = [0]
    errors = []

    def writer():
        w = s.client()
        try:
            for i in range(200000):  # bounded
                if stop.is_set():
                    break
                p = w.pipeline(transaction=True)
                p.incr("counter")
                p.rpush("items", i)
                p.set(f"pad:{i % 5000}", str(i))
                p.execute()
                done[0] += 1
        except Exception as e:  # noqa: BLE001 - reported below
            errors.append(e)

    t = threading.Thread(target=writer)
    t.start()
    try:
        wait_for(lambda: done[0] > 50, what="the writer running")
        assert cmd(c, "BGSAVE") == "Background saving started"
        wait_bgsave(c)
        after = done[0]
        wait_for(lambda: done[0] > after + 10, what="transactions after the save")
    finally:
        stop.set()
        t.join(30)
    assert not errors, errors
    assert info(c, "rdb_last_bgsave_status") == "ok"
    live = int(c.get("counter"))
    s.stop(signal.SIGKILL)
    c2 = start_server().client()
    saved = int(c2.get("counter") or 0)
    assert 0 < saved < live
    assert c2.llen("items") == saved
    assert c2.lindex("items", -1) == str(saved - 1)
    assert c2.dbsize() == 5002


# --- kill -9 during BGSAVE ---------------------------------------------------------------------

def test_kill9_during_bgsave_keeps_old_file(start_server, tmp_path):
    s = start_server(args=["--rdb-key-save-delay", "1000"])
    c = s.client()
    c.mset({f"old:{i}": i for i in range(100)})
    c.config_set("rdb-key-save-delay", "0")
    c.save()
    old = (tmp_path / "dump.rdb").read_bytes()
    c.config_set("rdb-key-save-delay", "1000")
    c.mset({f"new:{i}": i for i in range(2000)})  # the child needs ~2 s for these
    stop = threading.Event()
    acked = [0]

    def writer():
        w = s.client()
        try:
            while not stop.is_set():
                w.set(f"w{acked[0]}", "x")
                acked[0] += 1
        except redis.exceptions.ConnectionError:
            pass

    t = threading.Thread(target=writer)
    t.start()
    try:
        time.sleep(0.1)
        assert cmd(c, "BGSAVE") == "Background saving started"
        time.sleep(0.2)
        assert info(c, "rdb_bgsave_in_progress") == 1
        s.proc.kill()
        s.proc.wait(10)
    finally:
        stop.set()
        t.join(10)
    assert acked[0] > 0
    # The child dies with its parent: dump.rdb is still the old file, byte for byte.
    time.sleep(0.3)
    assert (tmp_path / "dump.rdb").read_bytes() == old
    s2 = start_server()
    c2 = s2.client()
    assert c2.dbsize() == 100 and c2.get("old:42") == "42"


# --- interop with Redis ------------------------------------------------------------------------

def test_hotkv_file_loads_in_redis70(start_server, tmp_path):
    s = start_server()
    c = s.client(decode_responses=False)
    populate(c)
    expected = dataset(c)
    assert c.save() is True
    subprocess.run([CHECK_RDB, str(tmp_path / "dump.rdb")], check=True, capture_output=True)
    s.stop(signal.SIGKILL)
    peer = Peer(REDIS70, tmp_path)
    try:
        assert dataset(peer.client) == expected
    finally:
        peer.stop()


@pytest.mark.parametrize("binary", [REDIS70, REDIS88], ids=["redis-7.0", "redis-8.8"])
def test_redis_file_loads_in_hotkv(start_server, tmp_path, binary):
    if not os.path.exists(binary):
        pytest.skip(f"{binary} not present")
    peer = Peer(binary, tmp_path)
    try:
        populate(peer.client)
        expected = dataset(peer.client)
        assert peer.client.save() is True
    finally:
        peer.stop()
    s = start_server()
    assert dataset(s.client(decode_responses=False)) == expected


def test_lru_idle_and_lfu_freq_survive_a_restart(start_server):
    s = start_server(args=["--maxmemory-policy", "allkeys-lru"])
    c = s.client()
    c.set("old", 1)
    time.sleep(2.2)
    c.set("new", 1)
    c.save()
    s.stop()
    c = start_server(args=["--maxmemory-policy", "allkeys-lru"]).client()
    assert c.object("idletime", "old") >= 2
    assert c.object("idletime", "new") <= 1
    s = start_server(args=["--maxmemory-policy", "allkeys-lfu"])
    c = s.client()
    c.set("hot", 1)
    for _ in range(200):
        c.get("hot")
    freq = c.object("freq", "hot")
    assert freq > 5
    c.save()
    s.stop()
    c = start_server(args=["--maxmemory-policy", "allkeys-lfu"]).client()
    assert c.object("freq", "hot") == freq


def test_vector_sets_survive_bgsave_and_restart(start_server, tmp_path):
    s = start_server()
    c = s.client()
    for i in range(50):
        c.execute_command("VADD", "vs", "VALUES", 3, i, i * 2 % 7, 1, f"e{i}")
    c.execute_command("VSETATTR", "vs", "e3", '{"n":3}')
    emb = c.execute_command("VEMB", "vs", "e7")
    near = c.execute_command("VSIM", "vs", "ELE", "e10", "COUNT", 5)
    # BGSAVEs while another client keeps adding vectors (their HNSW inserts run outside
    # the shard lock: the fork barrier waits for them).
    stop = threading.Event()
    added = [0]

    def writer():
        w = s.client()
        while not stop.is_set():
            w.execute_command("VADD", "busy", "VALUES", 3, added[0], 1, 2, f"b{added[0]}")
            added[0] += 1

    t = threading.Thread(target=writer)
    t.start()
    try:
        for _ in range(3):
            assert cmd(c, "BGSAVE") == "Background saving started"
            wait_bgsave(c)
            assert info(c, "rdb_last_bgsave_status") == "ok"
    finally:
        stop.set()
        t.join(10)
    assert c.save() is True
    s.stop(signal.SIGKILL)
    c = start_server().client()
    assert c.execute_command("VCARD", "vs") == 50
    assert c.execute_command("VCARD", "busy") == added[0]
    # Vectors are stored quantized (Q8 by default), as Redis stores them: close, not exact.
    got = [float(x) for x in c.execute_command("VEMB", "vs", "e7")]
    assert got == pytest.approx([float(x) for x in emb], rel=0.02, abs=0.05)
    assert c.execute_command("VGETATTR", "vs", "e3") == '{"n":3}'
    assert c.execute_command("VSIM", "vs", "ELE", "e10", "COUNT", 5)[0] == near[0] == "e10"


def test_fork_stats(start_server):
    # INFO stats latest_fork_usec / total_forks: every fork, BGSAVE's and the AOF's.
    s = start_server()
    r = s.client()
    stats = r.info("stats")
    keys = list(stats)
    assert keys.index("pubsubshard_channels") + 1 == keys.index("latest_fork_usec")
    assert keys.index("latest_fork_usec") + 1 == keys.index("total_forks")
    assert keys.index("total_forks") + 1 == keys.index("migrate_cached_sockets")
    assert (stats["latest_fork_usec"], stats["total_forks"]) == (0, 0)
    # bgsave-mode walk (this test runs in both modes) saves without a fork.
    bgsave_forks = 1 if r.config_get("bgsave-mode")["bgsave-mode"] == "fork" else 0
    r.set("a", 1)
    r.execute_command("BGSAVE")
    wait_bgsave(r)
    assert r.info("stats")["total_forks"] == bgsave_forks
    r.execute_command("BGREWRITEAOF")  # appendonly no: a one-off base, forked too
    wait_for(lambda: info(r, "aof_rewrites") == 1, what="the rewrite")
    stats = r.info("stats")
    assert stats["total_forks"] == bgsave_forks + 1 and stats["latest_fork_usec"] > 0
    r.config_resetstat()
    stats = r.info("stats")
    assert (stats["latest_fork_usec"], stats["total_forks"]) == (0, 0)
    s.stop()


def test_save_rule_waits_for_the_aof_rewrite(start_server):
    # One child at a time: a save rule that is due waits for the rewrite's child.
    s = start_server(args=["--appendonly", "yes", "--rdb-key-save-delay", "100000"])
    r = s.client()
    for i in range(10):
        r.set(f"k{i}", i)
    r.execute_command("BGREWRITEAOF")
    wait_for(lambda: info(r, "aof_rewrite_in_progress") == 1, what="the rewrite")
    r.config_set("save", "1 0")  # due within a second
    for _ in range(10):
        fields = r.info("persistence")
        if fields["aof_rewrite_in_progress"] == 0:
            break
        assert fields["rdb_bgsave_in_progress"] == 0
        time.sleep(0.05)
    wait_for(lambda: info(r, "rdb_bgsave_in_progress") == 1, what="the BGSAVE")
    r.config_set("save", "")
    wait_bgsave(r)
    s.stop()
