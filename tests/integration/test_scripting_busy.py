"""A busy script and the other clients of its own worker (`--threads 1`, so every
connection shares the script's thread): -BUSY for what Redis refuses, SCRIPT KILL,
FUNCTION KILL and SHUTDOWN NOSAVE served while the script runs, UNKILLABLE after a write,
pipelined input and MULTI state around the refusals. Run against Redis 8.8 too
(HOTKV_SERVER=/work/shared/peers/redis-8.8/redis-server): the texts are Redis's.
No timing in pass/fail: the waits are bounded polls."""

import time

import pytest

from conftest import IS_REDIS, RespError, resp_command, wait_until

BUSY_EVAL = "BUSY Redis is busy running a script. You can only call SCRIPT KILL or SHUTDOWN NOSAVE."
BUSY_FUNCTION = ("BUSY Redis is busy running a script. You can only call FUNCTION KILL or "
                 "SHUTDOWN NOSAVE.")
KILLED = "ERR Script killed by user with SCRIPT KILL..."
LOOP = "while true do end"


@pytest.fixture(params=["io_uring", "epoll"])
def backend(request):
    """Both I/O backends (the nested poll differs); a redis-server ignores it."""
    return request.param


def start(start_server, threads=1, backend="auto"):
    srv = start_server(hotkv_args=["--threads", str(threads), "--io-backend", backend])
    c = srv.raw()
    assert c.command("CONFIG", "SET", "busy-reply-threshold", "50") == "OK"
    return srv, c


def wait_busy(conn, expect, *probe):
    """Sends `probe` (GET k) until the reply is the -BUSY `expect` (before the script
    passes busy-reply-threshold the command waits for it, or runs before it)."""
    probe = probe or ("GET", "k")
    return wait_until(lambda: conn.command(*probe) == expect, timeout=30)


def test_busy_reply_script_kill_and_pipeline(start_server, backend):
    srv, other = start(start_server, backend=backend)
    assert other.command("SET", "k", "v") == "OK"
    in_multi = srv.raw()
    assert in_multi.command("MULTI") == "OK"
    runner = srv.raw(timeout=60)
    # The script's own connection pipelines a command behind it, and sends more while
    # the script is busy: both run after it, in order.
    runner.send(resp_command("EVAL", LOOP, "0") + resp_command("PING"))
    assert wait_busy(other, BUSY_EVAL)
    runner.send(resp_command("ECHO", "after"))
    # Pipelined commands: each gets its reply in order; an unknown command is still
    # "unknown" (Redis checks that before BUSY).
    other.send(resp_command("GET", "k") + resp_command("PING") + resp_command("NOSUCH", "a"))
    assert other.read_reply() == BUSY_EVAL
    assert other.read_reply() == BUSY_EVAL
    assert other.read_reply() == "ERR unknown command 'NOSUCH', with args beginning with: 'a' "
    # A connection opened while the script is busy is served the same way.
    late = srv.raw()
    assert late.command("GET", "k") == BUSY_EVAL
    # Inside MULTI: the refused command flags the transaction; EXEC, refused too,
    # discards it.
    assert in_multi.command("SET", "k", "x") == BUSY_EVAL
    assert in_multi.command("EXEC") == "EXECABORT Transaction discarded because of: " + BUSY_EVAL
    # FUNCTION KILL names the other KILL.
    assert other.command("FUNCTION", "KILL") == BUSY_EVAL
    assert other.command("SCRIPT", "KILL") == "OK"
    reply = runner.read_reply()
    assert isinstance(reply, RespError) and reply.startswith(KILLED), reply
    assert runner.read_reply() == "PONG"
    assert runner.read_reply() == b"after"
    # Served normally afterwards.
    assert other.command("GET", "k") == b"v"
    assert late.command("PING") == "PONG"
    assert runner.command("PING") == "PONG"
    assert in_multi.command("EXEC") == "ERR EXEC without MULTI"
    assert other.command("SCRIPT", "KILL") == "NOTBUSY No scripts in execution right now."


def test_commands_that_arrive_with_the_script_are_served_while_it_runs(start_server, backend):
    """A command that reaches the worker in the same wake-up as the script (io_uring: the
    same batch of completions) is served while the script runs, not after it: here the
    worker sleeps (DEBUG SLEEP) while the EVAL and the other client's GET arrive. (Were
    they to arrive apart on a slow machine, the test still holds: it cannot fail from
    slowness, only from a GET held back behind the script.)"""
    srv, other = start(start_server, backend=backend)
    assert other.command("SET", "k", "v") == "OK"
    sleeper, runner, prober = srv.raw(timeout=60), srv.raw(timeout=60), srv.raw(timeout=30)
    sleeper.send(resp_command("DEBUG", "SLEEP", "0.5"))
    time.sleep(0.1)  # let the sleep start first (ordering only, never a pass condition)
    runner.send(resp_command("EVAL", LOOP, "0"))
    prober.send(resp_command("GET", "k"))
    assert sleeper.read_reply() == "OK"
    assert prober.read_reply() == BUSY_EVAL  # held until the script ended: a timeout
    assert prober.command("SCRIPT", "KILL") == "OK"
    assert runner.read_reply().startswith(KILLED)
    assert other.command("GET", "k") == b"v"


def test_subscribed_and_blocked_clients_during_a_busy_script(start_server, backend):
    srv, other = start(start_server, backend=backend)
    sub = srv.raw()
    assert sub.command("SUBSCRIBE", "ch") == [b"subscribe", b"ch", 1]
    blocked = srv.raw(timeout=60)
    blocked.send_command("BLPOP", "list", "0")
    assert wait_until(lambda: other.command("CLIENT", "LIST").count(b"cmd=blpop") == 1, timeout=30)
    runner = srv.raw(timeout=60)
    runner.send_command("EVAL", LOOP, "0")
    assert wait_busy(other, BUSY_EVAL)
    # RESP2 subscribed mode is checked before BUSY; PING is allowed there, not while busy.
    assert sub.command("GET", "k") == ("ERR Can't execute 'get': only (P|S)SUBSCRIBE / "
                                       "(P|S)UNSUBSCRIBE / PING / QUIT / RESET are allowed in "
                                       "this context")
    assert sub.command("PING") == BUSY_EVAL
    assert other.command("PUBLISH", "ch", "m") == BUSY_EVAL
    assert other.command("SCRIPT", "KILL") == "OK"
    assert runner.read_reply().startswith(KILLED)
    # Both keep their state: the subscriber gets messages, the blocked client is served.
    assert other.command("PUBLISH", "ch", "m2") == 1
    assert sub.read_reply() == [b"message", b"ch", b"m2"]
    assert other.command("LPUSH", "list", "x") == 1
    assert blocked.read_reply() == [b"list", b"x"]


def test_function_kill_on_the_same_worker(start_server, backend):
    srv, other = start(start_server, backend=backend)
    lib = "#!lua name=busylib\nredis.register_function('spin', function() while true do end end)"
    assert other.command("FUNCTION", "LOAD", lib) == b"busylib"
    runner = srv.raw(timeout=60)
    runner.send_command("FCALL", "spin", "0")
    assert wait_busy(other, BUSY_FUNCTION)
    assert other.command("SCRIPT", "KILL") == BUSY_FUNCTION
    stats = other.command("FUNCTION", "STATS")
    assert stats[0] == b"running_script"
    running = dict(zip(stats[1][::2], stats[1][1::2]))
    assert running[b"name"] == b"spin" and running[b"command"] == [b"FCALL", b"spin", b"0"]
    assert other.command("FUNCTION", "KILL") == "OK"
    reply = runner.read_reply()
    assert isinstance(reply, RespError) and reply.startswith(KILLED), reply
    assert other.command("PING") == "PONG"
    assert other.command("FUNCTION", "KILL") == "NOTBUSY No scripts in execution right now."


def test_unkillable_after_a_write_then_shutdown_nosave(start_server, backend):
    srv, other = start(start_server, backend=backend)
    runner = srv.raw(timeout=60)
    runner.send_command("EVAL", "redis.call('set', KEYS[1], 'w') " + LOOP, "1", "uk")
    assert wait_busy(other, BUSY_EVAL)
    assert other.command("SCRIPT", "KILL") == (
        "UNKILLABLE Sorry the script already executed write commands against the dataset. "
        "You can either wait the script termination or kill the server in a hard way using "
        "the SHUTDOWN NOSAVE command.")
    assert other.command("SHUTDOWN") == BUSY_EVAL
    # SHUTDOWN NOSAVE stops the server whatever the script did; nobody gets a reply.
    other.send_command("SHUTDOWN", "NOSAVE")
    assert other.closed_by_server(timeout=30)
    assert runner.closed_by_server(timeout=30)
    assert srv.proc.wait(30) == 0


@pytest.mark.hotkv_only
def test_keyspace_walks_on_another_worker_get_busy(start_server):
    srv, c = start(start_server, threads=2)
    runner = srv.raw(timeout=60)
    worker = runner.command("CLIENT", "INFO").split(b"io-thread=")[1].split(b" ")[0]
    for _ in range(200):
        other = srv.raw()
        if other.command("CLIENT", "INFO").split(b"io-thread=")[1].split(b" ")[0] != worker:
            break
        other.close()
    else:
        pytest.skip("no connection landed on another worker")
    runner.send_command("EVAL", LOOP, "1", "bk")
    assert wait_busy(other, BUSY_EVAL, "GET", "bk")
    assert other.command("KEYS", "*") == BUSY_EVAL
    assert other.command("SCAN", "0") == BUSY_EVAL
    assert other.command("DBSIZE") == BUSY_EVAL
    assert other.command("SCRIPT", "KILL") == "OK"
    assert runner.read_reply().startswith(KILLED)
    assert other.command("KEYS", "*") == []
    assert other.command("DBSIZE") == 0
    # SHUTDOWN from another worker: refused without NOSAVE, and NOSAVE stops the busy
    # script's worker too.
    runner.send_command("EVAL", "redis.call('set', KEYS[1], 'w') " + LOOP, "1", "bk")
    assert wait_busy(other, BUSY_EVAL, "GET", "bk")
    assert other.command("SHUTDOWN") == BUSY_EVAL
    other.send_command("SHUTDOWN", "NOSAVE")
    assert other.closed_by_server(timeout=30)
    assert runner.closed_by_server(timeout=30)
    assert srv.proc.wait(30) == 0


def watch_count(conn):
    info = conn.command("CLIENT", "INFO")
    return int(info.split(b" watch=")[1].split(b" ")[0])


def test_watch_unwatch_discard_reset_while_busy(start_server, backend):
    """Redis runs WATCH, UNWATCH, DISCARD and RESET during a busy script, also on the keys
    the script holds (HotKV uses the paused script's shards without locking them); a
    refused EXEC drops the transaction and its watches. CLIENT INFO is refused while
    busy: the watch counts are read after the script."""
    srv, other = start(start_server, backend=backend)
    assert other.command("SET", "k", "v") == "OK"
    c = [srv.raw() for _ in range(6)]
    assert c[0].command("WATCH", "k") == "OK"
    runner = srv.raw(timeout=60)
    # The script holds k (declared) and reads it, so it stays killable.
    runner.send_command("EVAL", "redis.call('get', KEYS[1]) " + LOOP, "1", "k")
    assert wait_busy(other, BUSY_EVAL)
    assert c[0].command("WATCH", "k", "k2") == "OK"
    assert c[0].command("UNWATCH") == "OK"
    assert c[1].command("WATCH", "k") == "OK"
    assert c[1].command("MULTI") == "OK"
    assert c[1].command("WATCH", "k") == "ERR WATCH inside MULTI is not allowed"
    assert c[1].command("DISCARD") == "OK"
    assert c[1].command("DISCARD") == "ERR DISCARD without MULTI"
    assert c[2].command("WATCH", "k", "k3") == "OK"
    assert c[2].command("RESET") == "RESET"
    # A refused EXEC discards the transaction and its watches.
    assert c[3].command("WATCH", "k") == "OK"
    assert c[3].command("MULTI") == "OK"
    assert c[3].command("GET", "k") == BUSY_EVAL
    assert c[3].command("EXEC") == "EXECABORT Transaction discarded because of: " + BUSY_EVAL
    # Watches taken while the script is busy are live once it ends.
    assert c[4].command("WATCH", "k", "k2") == "OK"
    assert c[5].command("WATCH", "k") == "OK"
    assert other.command("SCRIPT", "KILL") == "OK"
    assert runner.read_reply().startswith(KILLED)
    assert [watch_count(x) for x in c] == [0, 0, 0, 0, 2, 1]
    assert c[5].command("MULTI") == "OK"
    assert c[5].command("GET", "k") == "QUEUED"
    assert c[5].command("EXEC") == [b"v"]
    assert other.command("SET", "k", "changed") == "OK"
    assert c[4].command("MULTI") == "OK"
    assert c[4].command("GET", "k") == "QUEUED"
    assert c[4].command("EXEC") is None
    assert [watch_count(x) for x in c] == [0] * 6


def test_watch_on_another_workers_busy_shard(start_server):
    """Redis runs WATCH during a busy script, also on the script's keys. A connection on
    another worker cannot lock the busy shard: the busy run registers the watch itself
    (dispatcher.h WatchDuringBusy). The watch is live: a write the script makes after it
    fails the EXEC."""
    srv, c = start(start_server, threads=2)
    runner = srv.raw(timeout=60)
    if IS_REDIS:
        other = srv.raw()  # one thread: any connection
    else:
        worker = runner.command("CLIENT", "INFO").split(b"io-thread=")[1].split(b" ")[0]
        for _ in range(200):
            other = srv.raw()
            if other.command("CLIENT", "INFO").split(b"io-thread=")[1].split(b" ")[0] != worker:
                break
            other.close()
        else:
            pytest.skip("no connection landed on another worker")
    watcher = srv.raw()
    runner.send_command("EVAL", "redis.call('get', KEYS[1]) " + LOOP, "1", "bk")
    assert wait_busy(other, BUSY_EVAL, "GET", "bk")
    assert other.command("WATCH", "bk") == "OK"
    assert other.command("WATCH", "bk", "elsewhere") == "OK"
    assert watcher.command("WATCH", "bk") == "OK"
    assert c.command("SCRIPT", "KILL") == "OK"
    assert runner.read_reply().startswith(KILLED)
    assert other.command("MULTI") == "OK"
    assert other.command("GET", "bk") == "QUEUED"
    assert other.command("EXEC") == [None]
    # The script writes the watched key after the WATCH: it spins 3-4 s of wall time
    # first, room for wait_busy and the WATCH on a loaded machine (with 1-2 s the WATCH
    # came after the write once at load 18).
    wait_then_write = ("local t0 = tonumber(redis.call('time')[1]) "
                       "while tonumber(redis.call('time')[1]) < t0 + 4 do end "
                       "return redis.call('set', KEYS[1], 'w')")
    runner.send_command("EVAL", wait_then_write, "1", "bk")
    assert wait_busy(other, BUSY_EVAL, "GET", "bk")
    assert other.command("WATCH", "bk") == "OK"
    assert watcher.command("MULTI") == "OK"  # watching bk since the first script
    assert runner.read_reply() == "OK"
    assert other.command("MULTI") == "OK"
    assert other.command("GET", "bk") == "QUEUED"
    assert other.command("EXEC") is None
    assert watcher.command("EXEC") is None


def worker_of(conn):
    return conn.command("CLIENT", "INFO").split(b"io-thread=")[1].split(b" ")[0]


def connect_on(srv, ref, same):
    """A new connection on `ref`'s worker (same) or on another one; any connection on a
    redis-server (one thread). Skips when the server never placed one there."""
    if IS_REDIS:
        return srv.raw()
    want = worker_of(ref)
    for _ in range(200):
        conn = srv.raw()
        if (worker_of(conn) == want) == same:
            return conn
        conn.close()
    pytest.skip("no connection landed on the wanted worker")


def assert_watches_gone(srv, conns, key):
    """After the scripts: no watch left, and none left behind in the shard either (a
    write to `key` does not fail a later transaction watching another key)."""
    assert [watch_count(x) for x in conns] == [0] * len(conns)
    writer = srv.raw()
    for x in conns:
        assert x.command("WATCH", "unrelated") == "OK"
    assert writer.command("SET", key, "changed") == "OK"
    for x in conns:
        assert x.command("MULTI") == "OK"
        assert x.command("GET", "unrelated") == "QUEUED"
        assert x.command("EXEC") == [None]


def test_unwatch_discard_reset_of_a_watch_on_a_busy_shard(start_server):
    """Redis runs UNWATCH, DISCARD and RESET during a busy script, also for a client
    watching the script's key. With HotKV the client is on another worker than the busy
    script: the watch is removed by the busy run itself (the shard is locked), and the
    command does not wait for the script to end (the socket timeout would fail it)."""
    srv, c = start(start_server, threads=2)
    runner = srv.raw(timeout=60)
    w = [connect_on(srv, runner, same=False) for _ in range(4)]
    assert w[0].command("WATCH", "bk") == "OK"
    assert w[1].command("WATCH", "bk") == "OK"
    assert w[1].command("MULTI") == "OK"
    assert w[2].command("WATCH", "bk", "elsewhere") == "OK"
    assert w[3].command("WATCH", "bk") == "OK"
    runner.send_command("EVAL", "redis.call('get', KEYS[1]) " + LOOP, "1", "bk")
    assert wait_busy(c, BUSY_EVAL, "GET", "bk")
    assert w[0].command("UNWATCH") == "OK"
    assert w[1].command("DISCARD") == "OK"
    assert w[2].command("RESET") == "RESET"
    # WATCH then UNWATCH again while the script runs.
    assert w[3].command("WATCH", "bk", "other") == "OK"
    assert w[3].command("UNWATCH") == "OK"
    assert c.command("SCRIPT", "KILL") == "OK"
    assert runner.read_reply().startswith(KILLED)
    assert_watches_gone(srv, w, "bk")


@pytest.mark.hotkv_only
def test_unwatch_on_a_busy_worker_of_a_watch_on_another_busy_worker(start_server):
    """Two busy scripts on two workers. Clients of the first one's worker (served by it
    between two Lua instructions, as Redis's processEventsWhileBlocked) watch the second
    script's key: UNWATCH, DISCARD, RESET and a refused EXEC drop those watches through
    the second run instead of answering -BUSY."""
    srv, probe = start(start_server, threads=2)
    runner_a = srv.raw(timeout=60)
    runner_b = connect_on(srv, runner_a, same=False)
    runner_b.sock.settimeout(60)
    w = [connect_on(srv, runner_a, same=True) for _ in range(4)]
    for x in w:
        assert x.command("WATCH", "kb") == "OK"
    assert w[1].command("MULTI") == "OK"
    assert w[3].command("MULTI") == "OK"
    runner_b.send_command("EVAL", "redis.call('get', KEYS[1]) " + LOOP, "1", "kb")
    assert wait_busy(probe, BUSY_EVAL, "GET", "kb")
    runner_a.send_command("EVAL", "redis.call('get', KEYS[1]) " + LOOP, "1", "ka")
    assert wait_busy(w[0], BUSY_EVAL, "GET", "ka")  # w[0]'s worker is serving while busy
    assert w[0].command("UNWATCH") == "OK"
    assert w[1].command("DISCARD") == "OK"
    assert w[2].command("RESET") == "RESET"
    assert w[3].command("EXEC") == "EXECABORT Transaction discarded because of: " + BUSY_EVAL
    # And WATCH, through the other run, then UNWATCH again.
    assert w[0].command("WATCH", "kb", "ka") == "OK"
    assert w[0].command("UNWATCH") == "OK"
    assert probe.command("SCRIPT", "KILL") == "OK"
    assert runner_a.read_reply().startswith(KILLED)
    assert runner_b.read_reply().startswith(KILLED)
    assert_watches_gone(srv, w, "kb")


# The commands Redis 8.8 flags allow_busy (COMMAND INFO), container subcommands as
# "container|sub". HotKV flags the same ones among those it has (no REPLCONF yet).
REDIS_ALLOW_BUSY = {"auth", "discard", "function|kill", "function|stats", "hello", "multi",
                    "quit", "replconf", "reset", "script|kill", "shutdown", "unwatch", "watch"}


def _allow_busy_and_names(conn):
    def s(x):
        return x.decode() if isinstance(x, bytes) else str(x)
    busy, names = set(), set()
    for cmd in conn.command("COMMAND"):
        names.add(s(cmd[0]))
        if "allow_busy" in [s(f) for f in cmd[2]]:
            busy.add(s(cmd[0]))
        for sub in (cmd[9] if len(cmd) > 9 else None) or []:
            names.add(s(sub[0]))
            if "allow_busy" in [s(f) for f in sub[2]]:
                busy.add(s(sub[0]))
    return busy, names


@pytest.mark.redis8
def test_allow_busy_flags_match_redis(start_server):
    srv = start_server()
    busy, names = _allow_busy_and_names(srv.raw())
    assert busy == {c for c in REDIS_ALLOW_BUSY if c in names}
