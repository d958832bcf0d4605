"""MIGRATE between this server and Debian's Redis 7.0 in both directions: single key and
KEYS form, COPY, REPLACE, destination db, AUTH / AUTH2 to a requirepass target, NOKEY, the
target's errors passed back, IOERR for a closed port, a silent target and a target that
hangs up, the cached connection going stale, argument errors, and MULTI/EXEC. The same
assertions hold with HOTKV_SERVER=/usr/bin/redis-server."""
import socket
import threading

import pytest

from conftest import cmd, error_reply, free_port, parse_client_line, wait_until
from helpers_dump import REDIS7, assert_same_keys, populate, snapshot, start_peer


@pytest.fixture(scope="module")
def redis7(tmp_path_factory):
    peer = start_peer(REDIS7, tmp_path_factory)
    yield peer
    peer.stop()


@pytest.fixture(scope="module")
def redis7_auth(tmp_path_factory):
    peer = start_peer(REDIS7, tmp_path_factory, args=["--requirepass", "s3cret"])
    yield peer
    peer.stop()


@pytest.fixture
def target(redis7):
    c = redis7.client()
    c.flushall()
    yield c
    c.close()


def migrate(src, port, key, *opts, db=0, timeout=5000):
    return cmd(src, "MIGRATE", "127.0.0.1", port, key, db, timeout, *opts)


def test_single_key(rb, redis7, target):
    rb.rpush(b"l", b"a", b"b")
    rb.pexpire(b"l", 100_000)
    assert migrate(rb, redis7.port, "l") == b"OK"
    assert rb.exists(b"l") == 0
    assert target.lrange(b"l", 0, -1) == [b"a", b"b"]
    assert 90_000 < target.pttl(b"l") <= 100_000


def test_every_type_and_size_with_keys(rb, redis7, target, server):
    keys = populate(rb)
    copy = server.client(decode_responses=False)
    copy.select(1)
    copy.flushdb()
    for k in keys:  # a reference copy of every key, to compare with after the move
        assert rb.copy(k, k, destination_db=1)
    assert migrate(rb, redis7.port, "", "KEYS", *keys) == b"OK"
    assert rb.exists(*keys) == 0
    assert_same_keys(copy, target, keys)
    copy.flushdb()
    copy.close()


def test_redis7_migrates_to_this_server(rb, server, target):
    keys = populate(target, prefix="r:")
    expected = {k: snapshot(target, k) for k in keys}
    assert cmd(target, "MIGRATE", "127.0.0.1", server.port, "", 0, 5000, "COPY", "KEYS", *keys) == b"OK"
    assert_same_keys(target, rb, keys)
    assert cmd(target, "MIGRATE", "127.0.0.1", server.port, "", 0, 5000, "REPLACE", "KEYS", *keys) == b"OK"
    assert target.exists(*keys) == 0
    assert {k: snapshot(rb, k) for k in keys} == expected


def test_missing_keys_are_skipped_and_nokey_when_none(rb, redis7, target):
    rb.set(b"a", b"1")
    assert migrate(rb, redis7.port, "", "KEYS", "nokey1", "a", "nokey2") == b"OK"
    assert target.get(b"a") == b"1"
    assert migrate(rb, redis7.port, "nokey") == b"NOKEY"
    assert migrate(rb, redis7.port, "", "KEYS", "nokey1", "nokey2") == b"NOKEY"
    assert migrate(rb, redis7.port, "", "KEYS") == b"NOKEY"
    # NOKEY is decided before connecting
    assert migrate(rb, free_port(), "nokey") == b"NOKEY"


def test_copy_keeps_the_source(rb, redis7, target):
    rb.set(b"k", b"v")
    assert migrate(rb, redis7.port, "k", "COPY") == b"OK"
    assert rb.get(b"k") == b"v" and target.get(b"k") == b"v"


def test_busykey_is_passed_back_and_replace_overwrites(rb, redis7, target):
    rb.set(b"k", b"new")
    target.set(b"k", b"old")
    assert error_reply(rb, "MIGRATE", "127.0.0.1", redis7.port, "k", 0, 5000) == \
        "ERR Target instance replied with error: BUSYKEY Target key name already exists."
    assert rb.get(b"k") == b"new" and target.get(b"k") == b"old"
    assert migrate(rb, redis7.port, "k", "REPLACE") == b"OK"
    assert rb.exists(b"k") == 0 and target.get(b"k") == b"new"


def test_keys_the_target_accepted_are_deleted_despite_an_error(rb, redis7, target):
    rb.mset({b"a": b"1", b"b": b"2", b"c": b"3"})
    target.set(b"b", b"taken")
    assert error_reply(rb, "MIGRATE", "127.0.0.1", redis7.port, "", 0, 5000, "KEYS", "a", "b", "c") == \
        "ERR Target instance replied with error: BUSYKEY Target key name already exists."
    assert rb.exists(b"a", b"c") == 0 and rb.get(b"b") == b"2"
    assert target.mget(b"a", b"b", b"c") == [b"1", b"taken", b"3"]


def test_destination_db(rb, redis7, target):
    rb.set(b"k", b"v")
    assert migrate(rb, redis7.port, "k", db=5) == b"OK"
    assert target.exists(b"k") == 0
    t5 = redis7.client(db=5)
    assert t5.get(b"k") == b"v"
    t5.flushdb()
    rb.set(b"k", b"w")
    assert error_reply(rb, "MIGRATE", "127.0.0.1", redis7.port, "k", 99, 5000) == \
        "ERR Target instance replied with error: ERR DB index is out of range"
    assert rb.get(b"k") == b"w"
    # The target ran the RESTORE in the db its connection had selected; the next MIGRATE
    # selects again.
    target.flushall()
    assert migrate(rb, redis7.port, "k") == b"OK"
    assert target.get(b"k") == b"w"


def test_auth(rb, redis7_auth):
    t = redis7_auth.client()
    t.flushall()
    rb.set(b"k", b"v")
    port = redis7_auth.port
    assert error_reply(rb, "MIGRATE", "127.0.0.1", port, "k", 0, 5000) == \
        "ERR Target instance replied with error: NOAUTH Authentication required."
    assert error_reply(rb, "MIGRATE", "127.0.0.1", port, "k", 0, 5000, "AUTH", "wrong") == \
        "ERR Target instance replied with error: WRONGPASS invalid username-password pair or " \
        "user is disabled."
    assert rb.get(b"k") == b"v"
    assert migrate(rb, port, "k", "AUTH", "s3cret") == b"OK"
    assert t.get(b"k") == b"v" and rb.exists(b"k") == 0
    rb.set(b"k2", b"v2")
    assert migrate(rb, port, "k2", "AUTH2", "default", "s3cret") == b"OK"
    assert t.get(b"k2") == b"v2"


def test_auth_is_redacted_in_the_slowlog(rb, redis7_auth, restore_config):
    redis7_auth.client().flushall()
    restore_config("slowlog-log-slower-than")
    rb.config_set("slowlog-log-slower-than", 0)
    rb.slowlog_reset()
    rb.set(b"k", b"v")
    assert migrate(rb, redis7_auth.port, "k", "AUTH2", "default", "s3cret") == b"OK"
    entries = [e for e in rb.slowlog_get(10) if e["command"].startswith(b"MIGRATE")]
    assert entries and b"s3cret" not in entries[0]["command"]
    assert b"(redacted)" in entries[0]["command"]


def test_closed_port(rb):
    rb.set(b"k", b"v")
    # As Redis: the connect is not checked, so a refused connection fails the write.
    assert error_reply(rb, "MIGRATE", "127.0.0.1", free_port(), "k", 0, 1000) == \
        "IOERR error or timeout writing to target instance"
    assert rb.get(b"k") == b"v"


def test_unknown_host(rb):
    rb.set(b"k", b"v")
    assert error_reply(rb, "MIGRATE", "nonexistent.invalid", 6379, "k", 0, 1000) == \
        "IOERR error or timeout connecting to the client"
    assert rb.get(b"k") == b"v"


class FakeTarget:
    """A TCP server that accepts and then either never answers or closes at once."""

    def __init__(self, hang_up):
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(8)
        self.port = self.sock.getsockname()[1]
        self.hang_up = hang_up
        self.accepted = 0
        self.conns = []
        self.thread = threading.Thread(target=self.run, daemon=True)
        self.thread.start()

    def run(self):
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            self.accepted += 1
            if self.hang_up:
                conn.close()
            else:
                self.conns.append(conn)

    def close(self):
        self.sock.close()
        for c in self.conns:
            c.close()


def test_a_silent_target_times_out_reading(rb):
    t = FakeTarget(hang_up=False)
    try:
        rb.set(b"k", b"v")
        assert error_reply(rb, "MIGRATE", "127.0.0.1", t.port, "k", 0, 200) == \
            "IOERR error or timeout reading to target instance"
        assert rb.get(b"k") == b"v"
        wait_until(lambda: t.accepted >= 1)
        assert t.accepted == 1  # a timeout is not retried
    finally:
        t.close()


def test_a_target_that_hangs_up_is_retried_once(rb):
    t = FakeTarget(hang_up=True)
    try:
        rb.set(b"k", b"v")
        assert error_reply(rb, "MIGRATE", "127.0.0.1", t.port, "k", 0, 2000) in (
            "IOERR error or timeout reading to target instance",
            "IOERR error or timeout writing to target instance")
        assert rb.get(b"k") == b"v"
        assert t.accepted == 2
    finally:
        t.close()


def test_a_stale_cached_connection_is_replaced(server, redis7, target):
    # One connection, so both MIGRATEs run on the same worker and share its cached socket.
    src = server.client(decode_responses=False, single_connection_client=True)
    try:
        src.set(b"a", b"1")
        assert migrate(src, redis7.port, "a") == b"OK"
        target.client_kill_filter(_type="normal", skipme=True)
        src.set(b"b", b"2")
        assert migrate(src, redis7.port, "b") == b"OK"
        assert target.mget(b"a", b"b") == [b"1", b"2"]
    finally:
        src.close()


def test_inside_multi(rb, redis7, target):
    rb.set(b"k", b"v")
    p = rb.pipeline(transaction=True)
    p.execute_command("MIGRATE", "127.0.0.1", redis7.port, "k", 0, 5000)
    p.exists(b"k")
    assert p.execute() == [b"OK", 0]
    assert target.get(b"k") == b"v"


def test_argument_errors(rb):
    rb.set(b"k", b"v")
    port = free_port()
    cases = [
        (("k", 0, 100, "FOO"), "ERR syntax error"),
        (("k", 0, 100, "AUTH"), "ERR syntax error"),
        (("k", 0, 100, "AUTH2", "user"), "ERR syntax error"),
        (("k", "x", "y", "FOO"), "ERR syntax error"),
        (("k", 0, 100, "KEYS", "a"),
         "ERR When using MIGRATE KEYS option, the key argument must be set to the empty string"),
        (("k", "x", "y"), "ERR value is not an integer or out of range"),
        (("k", 0, "y"), "ERR value is not an integer or out of range"),
        (("k", "x", 100), "ERR value is not an integer or out of range"),
        (("k", 0), "ERR wrong number of arguments for 'migrate' command"),
    ]
    for args, want in cases:
        assert error_reply(rb, "MIGRATE", "127.0.0.1", port, *args) == want, args
    assert rb.get(b"k") == b"v"


def test_command_getkeys(r):
    def keys(*args):
        return cmd(r, "COMMAND", "GETKEYS", "MIGRATE", *args)
    assert keys("h", 1, "k", 0, 100) == ["k"]
    assert keys("h", 1, "", 0, 100, "COPY", "AUTH", "KEYS", "KEYS", "a", "b") == ["a", "b"]
    assert keys("h", 1, "", 0, 100, "AUTH2", "u", "KEYS", "KEYS", "a") == ["a"]
    flags = cmd(r, "COMMAND", "GETKEYSANDFLAGS", "MIGRATE", "h", 1, "", 0, 100, "KEYS", "a")
    assert flags == [["a", ["RW", "access", "delete"]]]


def test_info_counts_cached_connections(rb, redis7, target):
    rb.set(b"k", b"v")
    assert migrate(rb, redis7.port, "k") == b"OK"
    assert rb.info("stats")["migrate_cached_sockets"] >= 1


class GatedTarget:
    """A fake target that reads MIGRATE's request, then waits for `release` before answering
    +OK to each of its `replies` commands (SELECT and the RESTOREs)."""

    def __init__(self, replies):
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(1)
        self.port = self.sock.getsockname()[1]
        self.received = threading.Event()
        self.release = threading.Event()
        self.replies = replies
        self.thread = threading.Thread(target=self.run, daemon=True)
        self.thread.start()

    def run(self):
        conn, _ = self.sock.accept()
        data = b""
        while data.count(b"RESTORE") < self.replies - 1:
            data += conn.recv(65536)
        self.received.set()
        self.release.wait(10)
        conn.sendall(b"+OK\r\n" * self.replies)
        self.conn = conn

    def close(self):
        self.sock.close()


def other_worker_client(srv, raw):
    """A client whose connection a different worker serves than the raw connection's."""
    mine = parse_client_line(raw.command("CLIENT", "INFO").decode())["io-thread"]
    for _ in range(64):
        c = srv.client(single_connection_client=True)
        if parse_client_line(c.execute_command("CLIENT", "INFO"))["io-thread"] != mine:
            return c
        c.close()
    pytest.skip("no connection landed on another worker")


@pytest.mark.hotkv_only
@pytest.mark.parametrize("change", [False, True])
def test_no_shard_lock_is_held_while_talking_to_the_target(start_server, change):
    srv = start_server(hotkv_args=["--threads", "4"])
    a = srv.raw(timeout=10)
    a.command("SET", "k", "v")
    b = other_worker_client(srv, a)
    t = GatedTarget(replies=2)
    try:
        a.send_command("MIGRATE", "127.0.0.1", t.port, "k", 0, 5000)
        assert t.received.wait(10)
        # MIGRATE is waiting for the target: its key's shard is free meanwhile.
        assert b.get("k") == "v"
        if change:
            assert b.append("k", "+")
        t.release.set()
        assert a.read_reply() == "OK"
        # A key written while MIGRATE talked to the target is kept; otherwise deleted.
        assert b.get("k") == ("v+" if change else None)
    finally:
        t.release.set()
        t.close()
        b.close()
        a.close()


def test_redis7_migrates_to_this_server_with_auth(start_server, target):
    srv = start_server(args=["--requirepass", "pw"])
    here = srv.client(decode_responses=False)
    target.set(b"k", b"v")
    assert error_reply(target, "MIGRATE", "127.0.0.1", srv.port, "k", 0, 5000) == \
        "ERR Target instance replied with error: NOAUTH Authentication required."
    assert cmd(target, "MIGRATE", "127.0.0.1", srv.port, "k", 3, 5000, "AUTH", "pw") == b"OK"
    here.select(3)
    assert here.get(b"k") == b"v" and target.exists(b"k") == 0
    here.close()
