"""CLIENT PAUSE / UNPAUSE: held commands stay unanswered while others are served, and run
(in the order they were held) when the pause ends. Semantics checked against Redis 8.8
(tests/unit/pause.tcl's cases)."""
import select
import time

import pytest

from conftest import RespError


def wait_for(cond, what, tries=500):
    for _ in range(tries):
        if cond():
            return
        time.sleep(0.01)
    raise AssertionError(f"timed out waiting for {what}")


def blocked(r):
    return int(r.info("clients")["blocked_clients"])


def has_reply(raw):
    """Whether a reply is waiting on the raw connection (without blocking)."""
    if raw.buf:
        return True
    readable, _, _ = select.select([raw.sock], [], [], 0)
    return bool(readable)


@pytest.fixture
def srv(start_server):
    return start_server()


def test_write_pause_holds_writes_and_serves_reads(srv):
    r = srv.client()
    r.set("foo", "old")
    assert r.execute_command("CLIENT", "PAUSE", 100000, "WRITE") == "OK"
    w = srv.raw()
    w.send_command("SET", "foo", "new")
    wait_for(lambda: blocked(r) == 1, "the SET to be held")
    reader = srv.raw()
    reader.send_command("GET", "foo")
    assert reader.read_reply() == b"old"
    reader.send_command("PING")
    assert reader.read_reply() == "PONG"
    assert not has_reply(w)
    assert " flags=b " in [l for l in r.execute_command("CLIENT", "LIST").splitlines()
                           if "cmd=set" in l][0]
    assert r.execute_command("CLIENT", "UNPAUSE") == "OK"
    assert w.read_reply() == "OK"
    assert r.get("foo") == "new"
    assert blocked(r) == 0


@pytest.mark.parametrize("cmd", [("PUBLISH", "ch", "msg"), ("PFCOUNT", "hll"),
                                 ("INCR", "n"), ("BLPOP", "nolist", "0")])
def test_write_pause_holds_may_replicate_commands(srv, cmd):
    r = srv.client()
    r.execute_command("CLIENT", "PAUSE", 100000, "WRITE")
    c = srv.raw()
    c.send_command(*cmd)
    wait_for(lambda: blocked(r) == 1, "the command to be held")
    assert not has_reply(c)
    r.execute_command("CLIENT", "UNPAUSE")
    if cmd[0] == "BLPOP":
        wait_for(lambda: "cmd=blpop" in r.execute_command("CLIENT", "LIST"), "BLPOP to block")
        r.rpush("nolist", "x")
        assert c.read_reply() == [b"nolist", b"x"]
    else:
        assert not isinstance(c.read_reply(), RespError)


def test_write_pause_and_transactions(srv):
    r = srv.client()
    r.set("FOO", "BAR")
    writer = srv.raw()
    writer.send_command("MULTI")
    assert writer.read_reply() == "OK"
    writer.send_command("SET", "FOO", "NEW")
    assert writer.read_reply() == "QUEUED"
    r.execute_command("CLIENT", "PAUSE", 100000, "WRITE")
    # A read-only transaction runs.
    reader = srv.raw()
    for cmd, reply in [(("MULTI",), "OK"), (("PING",), "QUEUED"), (("GET", "FOO"), "QUEUED"),
                       (("EXEC",), ["PONG", b"BAR"])]:
        reader.send_command(*cmd)
        assert reader.read_reply() == reply
    # A syntax error is answered at once.
    reader.send_command("SET", "FOO")
    assert reader.read_reply() == "ERR wrong number of arguments for 'set' command"
    # EXEC of a queued write is held.
    writer.send_command("EXEC")
    wait_for(lambda: blocked(r) == 1, "EXEC to be held")
    assert not has_reply(writer)
    r.execute_command("CLIENT", "UNPAUSE")
    assert writer.read_reply() == ["OK"]
    assert r.get("FOO") == "NEW"


def test_pause_all_holds_everything_but_a_monitor(srv):
    r = srv.client()
    mon = srv.raw()
    mon.send_command("MONITOR")
    assert mon.read_reply() == "OK"
    r.execute_command("CLIENT", "PAUSE", 100000, "ALL")
    c = srv.raw()
    c.send_command("PING")
    c2 = srv.raw()
    c2.send_command("CLIENT", "UNPAUSE")  # held like anything else
    wait_for(lambda: mon_client_list(mon).count(" flags=b ") == 2, "both to be held")
    assert not has_reply(c) and not has_reply(c2)
    # A monitor is never paused: it ends the pause.
    mon.send_command("CLIENT", "UNPAUSE")
    assert read_status(mon) == "OK"
    assert c.read_reply() == "PONG"
    assert c2.read_reply() == "OK"


def test_held_clients_resume_in_order(start_server):
    srv = start_server(hotkv_args=["--threads", "1"])
    r = srv.client()
    r.execute_command("CLIENT", "PAUSE", 100000, "WRITE")
    conns = []
    for i in range(5):
        c = srv.raw()
        c.send_command("APPEND", "log", str(i))
        wait_for(lambda: blocked(r) == i + 1, f"client {i} to be held")
        conns.append(c)
    r.execute_command("CLIENT", "UNPAUSE")
    for i, c in enumerate(conns):
        assert c.read_reply() == i + 1
    assert r.get("log") == "01234"


def test_pause_ends_at_its_timeout(srv):
    r = srv.client()
    r.execute_command("CLIENT", "PAUSE", 50, "WRITE")
    c = srv.raw()
    c.send_command("SET", "k", "v")
    # Answered once the deadline passed (no UNPAUSE); bounded by the read timeout.
    assert c.read_reply() == "OK"


def test_a_later_pause_replaces_the_mode_and_keeps_the_later_end(srv):
    mon = srv.raw()
    mon.send_command("MONITOR")
    assert mon.read_reply() == "OK"
    r = srv.client()
    r.execute_command("CLIENT", "PAUSE", 100000, "WRITE")
    r.execute_command("CLIENT", "PAUSE", 10, "ALL")  # ALL now, still until the first end
    c = srv.raw()
    c.send_command("PING")
    wait_for(lambda: "cmd=ping" in mon_client_list(mon), "PING to be held")
    assert not has_reply(c)
    mon.send_command("CLIENT", "UNPAUSE")
    assert read_status(mon) == "OK"
    assert c.read_reply() == "PONG"


def mon_client_list(mon):
    mon.send_command("CLIENT", "LIST")
    reply = mon.read_reply()
    while not isinstance(reply, bytes):  # skip monitor lines (none expected)
        reply = mon.read_reply()
    return reply.decode()


def read_status(mon):
    reply = mon.read_reply()
    while isinstance(reply, str) and reply != "OK" and reply[:1].isdigit():
        reply = mon.read_reply()
    return reply


def test_pause_arguments(srv):
    r = srv.client()
    for args, err in [
        (("CLIENT", "PAUSE"), "wrong number of arguments for 'client|pause' command"),
        (("CLIENT", "PAUSE", "abc"), "timeout is not an integer or out of range"),
        (("CLIENT", "PAUSE", "-1"), "timeout is negative"),
        (("CLIENT", "PAUSE", "10", "foo"), "CLIENT PAUSE mode must be WRITE or ALL"),
        (("CLIENT", "PAUSE", "10", "write", "x"),
         "unknown subcommand or wrong number of arguments for 'PAUSE'. Try CLIENT HELP."),
    ]:
        with pytest.raises(Exception) as e:
            r.execute_command(*args)
        assert str(e.value) == err
    assert r.execute_command("CLIENT", "UNPAUSE") == "OK"


def test_keys_do_not_expire_while_writes_are_paused(srv):
    r = srv.client()
    before = int(r.info("stats")["expired_keys"])
    r.execute_command("MULTI")
    r.set("foo{t}", "bar", px=10)
    r.set("bar{t}", "foo", px=10)
    r.execute_command("CLIENT", "PAUSE", 100000, "WRITE")
    r.execute_command("EXEC")
    # Logically expired (reads miss them), but neither the active cycle nor a read
    # deletes them while writes are paused.
    wait_for(lambda: r.get("foo{t}") is None and r.get("bar{t}") is None, "the keys to expire")
    time.sleep(0.3)  # several active-expiry ticks (hz 10)
    assert r.dbsize() == 2 and int(r.info("stats")["expired_keys"]) == before
    r.execute_command("CLIENT", "UNPAUSE")
    r.get("foo{t}")
    r.get("bar{t}")
    wait_for(lambda: int(r.info("stats")["expired_keys"]) == before + 2, "the keys to go")
    assert r.dbsize() == 0
