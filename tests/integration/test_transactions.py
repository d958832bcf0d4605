"""MULTI / EXEC / DISCARD / WATCH / UNWATCH, checked on the wire (raw RESP) and through
redis-py pipelines, plus a concurrency check of transaction isolation."""
import threading

import pytest
import redis

from helpers_types import WRONGTYPE, error_text, wait_for  # noqa: F401

EXECABORT = "EXECABORT Transaction discarded because of previous errors."


def is_err(reply, text):
    """A raw-connection error reply with exactly this text."""
    return type(reply).__name__ == "RespError" and reply == text


@pytest.fixture
def conn(server, r):
    """A raw RESP connection to the flushed shared server."""
    c = server.raw()
    yield c
    c.close()


@pytest.fixture
def other(server, r):
    """A second (redis-py) client, playing the other party."""
    c = server.client()
    yield c
    c.close()


def queue(conn, *commands):
    for cmd in commands:
        assert conn.command(*cmd) == "QUEUED"


# ---------------------------------------------------------------- basics

def test_multi_exec_returns_all_replies(conn, other):
    assert conn.command("MULTI") == "OK"
    queue(conn, ("SET", "a", "1"), ("INCR", "a"), ("RPUSH", "l", "x", "y"),
          ("GET", "nope"), ("LRANGE", "l", 0, -1), ("HSET", "h", "f", "v"),
          ("ZADD", "z", "1.5", "m"), ("ZSCORE", "z", "m"))
    assert other.get("a") is None  # nothing runs before EXEC
    assert conn.command("EXEC") == ["OK", 2, 2, None, [b"x", b"y"], 1, 1, b"1.5"]
    assert other.get("a") == "2"


def test_empty_transaction(conn):
    assert conn.command("MULTI") == "OK"
    assert conn.command("EXEC") == []
    assert is_err(conn.command("EXEC"), "ERR EXEC without MULTI")


def test_discard(conn, other):
    assert conn.command("MULTI") == "OK"
    queue(conn, ("SET", "a", "1"), ("LPUSH", "l", "x"))
    assert conn.command("DISCARD") == "OK"
    assert other.exists("a", "l") == 0
    assert is_err(conn.command("EXEC"), "ERR EXEC without MULTI")
    assert conn.command("GET", "a") is None  # back to normal mode


def test_exec_and_discard_without_multi(conn):
    assert is_err(conn.command("EXEC"), "ERR EXEC without MULTI")
    assert is_err(conn.command("DISCARD"), "ERR DISCARD without MULTI")


def test_nested_multi_is_an_error_but_keeps_the_transaction(conn, other):
    assert conn.command("MULTI") == "OK"
    queue(conn, ("SET", "a", "1"))
    assert is_err(conn.command("MULTI"), "ERR MULTI calls can not be nested")
    queue(conn, ("INCR", "a"))
    assert conn.command("EXEC") == ["OK", 2]
    assert other.get("a") == "2"


# ---------------------------------------------------------------- errors

def test_unknown_command_aborts_exec(conn, other):
    assert conn.command("MULTI") == "OK"
    queue(conn, ("SET", "a", "1"))
    assert is_err(conn.command("NOSUCHCMD", "x", "y"),
                  "ERR unknown command 'NOSUCHCMD', with args beginning with: 'x' 'y' ")
    queue(conn, ("SET", "b", "1"))  # later commands are still accepted...
    assert is_err(conn.command("EXEC"), EXECABORT)  # ...but nothing runs
    assert other.exists("a", "b") == 0
    assert is_err(conn.command("EXEC"), "ERR EXEC without MULTI")


def test_wrong_arity_aborts_exec(conn, other):
    assert conn.command("MULTI") == "OK"
    queue(conn, ("RPUSH", "l", "x"))
    assert is_err(conn.command("GET"), "ERR wrong number of arguments for 'get' command")
    assert is_err(conn.command("LPUSH", "l"), "ERR wrong number of arguments for 'lpush' command")
    assert is_err(conn.command("EXEC"), EXECABORT)
    assert other.exists("l") == 0


def test_discard_after_queue_error(conn, other):
    assert conn.command("MULTI") == "OK"
    assert is_err(conn.command("HSET", "h", "f"), "ERR wrong number of arguments for 'hset' command")
    assert conn.command("DISCARD") == "OK"
    assert conn.command("MULTI") == "OK"  # a fresh transaction is clean
    queue(conn, ("SET", "a", "1"))
    assert conn.command("EXEC") == ["OK"]


def test_runtime_errors_do_not_abort_the_rest(conn, other):
    other.set("str", "v")
    other.rpush("list", "a")
    assert conn.command("MULTI") == "OK"
    queue(conn, ("INCR", "n"), ("LPUSH", "str", "x"), ("INCR", "n"),
          ("ZADD", "z", "XX", "NX", 1, "m"), ("HINCRBY", "list", "f", 1),
          ("LPOP", "list", -1), ("RPUSH", "list", "b"))
    res = conn.command("EXEC")
    assert len(res) == 7
    assert res[0] == 1 and res[2] == 2
    assert is_err(res[1], WRONGTYPE)
    assert is_err(res[3], "ERR XX and NX options at the same time are not compatible")
    assert is_err(res[4], WRONGTYPE)
    assert is_err(res[5], "ERR value is out of range, must be positive")
    assert res[6] == 2
    assert other.lrange("list", 0, -1) == ["a", "b"]
    assert other.get("str") == "v"


def test_commands_see_earlier_commands_of_the_same_transaction(conn):
    assert conn.command("MULTI") == "OK"
    queue(conn, ("RPUSH", "l", "a", "b", "c"), ("LMOVE", "l", "l2", "LEFT", "RIGHT"),
          ("LRANGE", "l2", 0, -1), ("DEL", "l"), ("EXISTS", "l"),
          ("SADD", "s", "x"), ("SINTERCARD", 1, "s"))
    assert conn.command("EXEC") == [3, b"a", [b"a"], 1, 0, 1, 1]


# ---------------------------------------------------------------- watch

def watch_then_exec(conn, keys, action):
    """WATCH keys, run `action()` (another party's change), then MULTI/SET/EXEC."""
    assert conn.command("WATCH", *keys) == "OK"
    action()
    assert conn.command("MULTI") == "OK"
    queue(conn, ("SET", "result", "done"))
    return conn.command("EXEC")


@pytest.mark.parametrize("change", [
    lambda o: o.set("k", "other"),
    lambda o: o.set("k", "v"),  # same value: still a write
    lambda o: o.delete("k"),
    lambda o: o.expire("k", 100),
    lambda o: o.append("k", "x"),
    lambda o: o.rename("k", "k2"),
    lambda o: o.rename("src", "k"),
    lambda o: o.flushdb(),
    lambda o: o.flushall(),
], ids=["set", "set-same-value", "del", "expire", "append", "rename-from", "rename-to",
        "flushdb", "flushall"])
def test_watched_key_modified_by_other_client(conn, other, change):
    other.set("k", "v")
    other.set("src", "s")
    assert watch_then_exec(conn, ["k"], lambda: change(other)) is None
    assert other.get("result") is None


@pytest.mark.parametrize("kind,change", [
    ("list", lambda o: o.rpush("k", "x")),
    ("list", lambda o: o.lpop("k")),
    ("hash", lambda o: o.hset("k", "f2", "v")),
    ("hash", lambda o: o.hincrby("k", "n", 1)),
    ("set", lambda o: o.sadd("k", "new")),
    ("set", lambda o: o.srem("k", "m")),
    ("zset", lambda o: o.zadd("k", {"new": 1})),
    ("zset", lambda o: o.zincrby("k", 1, "m")),
    ("zset", lambda o: o.zunionstore("k", ["other"])),
], ids=["rpush", "lpop", "hset", "hincrby", "sadd", "srem", "zadd", "zincrby", "zunionstore"])
def test_watched_collection_modified(conn, other, kind, change):
    {"list": lambda: other.rpush("k", "a"), "hash": lambda: other.hset("k", "f", "v"),
     "set": lambda: other.sadd("k", "m"), "zset": lambda: other.zadd("k", {"m": 1})}[kind]()
    other.zadd("other", {"x": 1})
    assert watch_then_exec(conn, ["k"], lambda: change(other)) is None
    assert other.exists("result") == 0


def test_watch_missing_key_then_created(conn, other):
    assert watch_then_exec(conn, ["k"], lambda: other.rpush("k", "x")) is None


def test_watch_one_of_several_keys_modified(conn, other):
    assert watch_then_exec(conn, ["a", "b", "c"], lambda: other.set("b", "1")) is None


def test_own_modification_before_multi_also_counts(conn, other):
    assert conn.command("WATCH", "k") == "OK"
    assert conn.command("SET", "k", "mine") == "OK"
    assert conn.command("MULTI") == "OK"
    queue(conn, ("SET", "result", "done"))
    assert conn.command("EXEC") is None


def test_unrelated_changes_and_reads_do_not_abort(conn, other):
    other.set("k", "v")

    def action():
        other.get("k")
        other.exists("k")
        other.set("unrelated", "1")
        other.lpush("k2", "x")

    assert watch_then_exec(conn, ["k"], action) == ["OK"]
    assert other.get("result") == "done"


def test_same_key_name_in_other_db_does_not_count(conn, server, r):
    r.set("k", "v")
    db1 = server.client(db=1)
    try:
        assert watch_then_exec(conn, ["k"], lambda: db1.set("k", "db1")) == ["OK"]
        assert r.get("result") == "done"
    finally:
        db1.close()


def test_watch_in_other_db_is_separate(server, r):
    conn = server.raw()
    try:
        assert conn.command("SELECT", 1) == "OK"
        assert conn.command("WATCH", "k") == "OK"
        r.set("k", "db0")  # db 0: not the watched key
        assert conn.command("MULTI") == "OK"
        queue(conn, ("SET", "x", "1"))
        assert conn.command("EXEC") == ["OK"]
        db1 = server.client(db=1)
        try:
            assert conn.command("WATCH", "k") == "OK"
            db1.set("k", "db1")
            assert conn.command("MULTI") == "OK"
            queue(conn, ("SET", "x", "2"))
            assert conn.command("EXEC") is None
            assert db1.get("x") == "1"
        finally:
            db1.close()
    finally:
        conn.close()


def test_watched_key_expiring_aborts(conn, other):
    other.set("k", "v", px=50)
    other.rpush("l", "a")
    other.pexpire("l", 50)
    assert conn.command("WATCH", "k", "l") == "OK"
    wait_for(lambda: other.exists("k", "l") == 0, what="watched keys to expire")
    assert conn.command("MULTI") == "OK"
    queue(conn, ("SET", "result", "done"))
    assert conn.command("EXEC") is None


def test_watched_key_with_ttl_not_yet_expired_does_not_abort(conn, other):
    other.set("k", "v", ex=100)
    assert watch_then_exec(conn, ["k"], lambda: None) == ["OK"]


def test_unwatch(conn, other):
    assert conn.command("WATCH", "k") == "OK"
    other.set("k", "changed")
    assert conn.command("UNWATCH") == "OK"
    assert conn.command("MULTI") == "OK"
    queue(conn, ("SET", "result", "done"))
    assert conn.command("EXEC") == ["OK"]


def test_exec_and_discard_end_the_watch(conn, other):
    assert conn.command("WATCH", "k") == "OK"
    assert conn.command("MULTI") == "OK"
    assert conn.command("EXEC") == []
    other.set("k", "changed")  # no longer watched
    assert conn.command("MULTI") == "OK"
    queue(conn, ("SET", "r1", "1"))
    assert conn.command("EXEC") == ["OK"]
    assert conn.command("WATCH", "k") == "OK"
    assert conn.command("MULTI") == "OK"
    assert conn.command("DISCARD") == "OK"
    other.set("k", "again")
    assert conn.command("MULTI") == "OK"
    queue(conn, ("SET", "r2", "1"))
    assert conn.command("EXEC") == ["OK"]


def test_failed_exec_ends_the_watch(conn, other):
    assert watch_then_exec(conn, ["k"], lambda: other.set("k", "1")) is None
    other.set("k", "2")
    assert conn.command("MULTI") == "OK"
    queue(conn, ("SET", "result", "done"))
    assert conn.command("EXEC") == ["OK"]


def test_unwatch_queued_inside_multi(conn, other):
    # EXEC holds the watched keys' shard locks while it runs the queue; a queued UNWATCH
    # once waited for them forever (the connection hung). As in Redis, EXEC drops the
    # watches before running the queue, so UNWATCH finds nothing left to do.
    other.set("k", "before")
    assert conn.command("WATCH", "k", "other-key") == "OK"
    assert conn.command("MULTI") == "OK"
    queue(conn, ("UNWATCH",), ("SET", "k", "mine"), ("GET", "k"))
    assert conn.command("EXEC") == ["OK", "OK", b"mine"]
    other.set("k", "later")  # not watched any more: the next transaction runs
    assert conn.command("MULTI") == "OK"
    queue(conn, ("GET", "k"))
    assert conn.command("EXEC") == [b"later"]


def test_keyspace_wide_reads_inside_exec_with_watched_keys(conn, other):
    # INFO, DBSIZE, SCAN, RANDOMKEY visit every shard, some of which EXEC already holds.
    other.set("k", "v")
    assert conn.command("WATCH", "k") == "OK"
    assert conn.command("MULTI") == "OK"
    queue(conn, ("INFO", "keyspace"), ("DBSIZE",), ("SCAN", "0", "COUNT", "1000"),
          ("RANDOMKEY",))
    info, dbsize, scan, randomkey = conn.command("EXEC")
    assert b"db0:keys=1," in info
    assert dbsize == 1
    assert scan == [b"0", [b"k"]]
    assert randomkey == b"k"


def test_watch_inside_multi(conn, other):
    assert conn.command("MULTI") == "OK"
    queue(conn, ("SET", "a", "1"))
    assert is_err(conn.command("WATCH", "k"), "ERR WATCH inside MULTI is not allowed")
    assert conn.command("EXEC") == ["OK"]
    assert other.get("a") == "1"


def test_watch_arity(conn):
    assert is_err(conn.command("WATCH"), "ERR wrong number of arguments for 'watch' command")


# ---------------------------------------------------------------- redis-py

def test_pipeline_transaction(r):
    pipe = r.pipeline(transaction=True)
    pipe.set("a", 1).incr("a").rpush("l", "x", "y").lrange("l", 0, -1).zadd("z", {"m": 2})
    assert pipe.execute() == [True, 2, 2, ["x", "y"], 1]


def test_pipeline_transaction_runtime_error(r):
    r.set("s", "v")
    pipe = r.pipeline(transaction=True)
    pipe.incr("n").lpush("s", "x").incr("n")
    res = pipe.execute(raise_on_error=False)
    assert res[0] == 1 and res[2] == 2
    assert isinstance(res[1], redis.ResponseError)
    assert error_text(res[1]) == WRONGTYPE


def test_pipeline_watch_error(r, other):
    r.set("k", "1")
    with r.pipeline() as pipe:
        pipe.watch("k")
        assert pipe.get("k") == "1"  # immediate mode after WATCH
        other.set("k", "2")
        pipe.multi()
        pipe.set("k", "3")
        with pytest.raises(redis.WatchError):
            pipe.execute()
    assert r.get("k") == "2"


def test_transaction_helper_retries_on_conflict(r, other):
    r.set("counter", 10)
    calls = []

    def body(pipe):
        value = int(pipe.get("counter"))
        if not calls:
            other.incr("counter")  # conflicting write on the first attempt only
        calls.append(value)
        pipe.multi()
        pipe.set("counter", value * 2)

    r.transaction(body, "counter")
    assert calls == [10, 11]
    assert r.get("counter") == "22"


# ---------------------------------------------------------------- isolation under load

def test_concurrent_transactions_are_isolated(server, r):
    writers, iterations = 20, 1000
    stop = threading.Event()
    errors, reads = [], [0]
    lock = threading.Lock()

    def writer():
        c = server.client()
        try:
            pipe = c.pipeline(transaction=True)
            for _ in range(iterations):
                pipe.incr("a").incr("b")
                pipe.execute()
        except Exception as exc:  # reported below
            errors.append(repr(exc))
        finally:
            c.close()

    def reader():
        c = server.client()
        try:
            pipe = c.pipeline(transaction=True)
            while not stop.is_set():
                a, b = pipe.get("a").get("b").execute()
                if a != b:
                    errors.append(f"MULTI GET a GET b saw a={a} b={b}")
                    return
                with lock:
                    reads[0] += 1
        except Exception as exc:
            errors.append(repr(exc))
        finally:
            c.close()

    readers = [threading.Thread(target=reader) for _ in range(4)]
    threads = [threading.Thread(target=writer) for _ in range(writers)]
    for t in readers + threads:
        t.start()
    for t in threads:
        t.join(120)
    stop.set()
    for t in readers:
        t.join(30)
    assert not errors, errors[:5]
    assert reads[0] > 0
    assert r.mget("a", "b") == [str(writers * iterations)] * 2


def test_concurrent_optimistic_increments_lose_nothing(server, r):
    """WATCH/GET/MULTI/SET/EXEC read-modify-write loops from several threads: every
    increment must land exactly once (a lost update means WATCH missed a write)."""
    threads_n, per_thread = 8, 150
    errors = []
    r.set("counter", 0)

    def worker():
        c = server.client()
        try:
            def body(pipe):
                value = int(pipe.get("counter"))
                pipe.multi()
                pipe.set("counter", value + 1)
            for _ in range(per_thread):
                c.transaction(body, "counter")
        except Exception as exc:
            errors.append(repr(exc))
        finally:
            c.close()

    threads = [threading.Thread(target=worker) for _ in range(threads_n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(120)
    assert not errors, errors[:5]
    assert r.get("counter") == str(threads_n * per_thread)
