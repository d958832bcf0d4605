"""MONITOR: Redis's line format, what it hides, RESET, flag O, and commands from every
worker in execution order. Checked against Redis 8.8 (the expected lines are what its
MONITOR printed for the same commands)."""
import re

import pytest

from conftest import RespError

LINE = re.compile(r'^\d+\.\d{6} \[(\d+) ([^\]]+)\] (.*)$')


def start_monitor(server):
    m = server.raw()
    m.send_command("MONITOR")
    assert m.read_reply() == "OK"
    return m


def lines_until(m, marker, limit=500):
    """Monitor lines (db, origin, args text) up to the one whose args are `marker`."""
    out = []
    for _ in range(limit):
        line = m.read_reply()
        match = LINE.match(line)
        assert match, line
        db, origin, args = match.groups()
        out.append((int(db), origin, args))
        if args == marker:
            return out
    raise AssertionError(f"no {marker} within {limit} lines: {out[-5:]}")


def test_monitor_lines_as_redis_prints_them(server):
    m = start_monitor(server)
    c = server.raw()
    addr_id = c.sock.getsockname()
    addr = f"{addr_id[0]}:{addr_id[1]}"
    cmds = [
        ("set", b'k\x01\n"\\ \xc3\xa9', "v"),
        ("auth", "secret"),
        ("hello", "2", "auth", "default", "pw"),
        ("multi",), ("incr", "n"), ("get", "k"), ("exec",),
        ("config", "get", "maxmemory"),  # admin: hidden
        ("client", "list"),  # admin: hidden
        ("nosuchcommand",),  # rejected: hidden
        ("get",),  # wrong arity: hidden
        ("select", "2"), ("ping",),
        ("multi",), ("discard",),
        ("echo", "end"),
    ]
    for cmd in cmds:
        c.send_command(*cmd)
        c.read_reply()
    got = lines_until(m, '"echo" "end"')
    assert all(origin == addr for _, origin, _ in got)
    assert [(db, args) for db, _, args in got] == [
        (0, r'"set" "k\x01\n\"\\ \xc3\xa9" "v"'),
        (0, '"auth" "(redacted)"'),
        (0, '"hello" "2" "auth" "(redacted)" "(redacted)"'),
        (0, '"multi"'), (0, '"incr" "n"'), (0, '"get" "k"'), (0, '"exec"'),
        (2, '"select" "2"'), (2, '"ping"'),
        (2, '"multi"'), (2, '"discard"'),
        (2, '"echo" "end"'),
    ]


def test_monitor_client_is_flagged_and_cannot_touch_the_keyspace(server):
    m = server.raw()
    m.send_command("CLIENT", "ID")
    my_id = m.read_reply()
    m.send_command("MONITOR")
    assert m.read_reply() == "OK"
    r = server.client()
    mine = [l for l in r.execute_command("CLIENT", "LIST").splitlines()
            if l.startswith(f"id={my_id} ")]
    assert len(mine) == 1 and " flags=O " in mine[0]
    m.send_command("GET", "x")
    # The error may follow lines fed meanwhile (CLIENT LIST is hidden; nothing else runs).
    reply = m.read_reply()
    assert isinstance(reply, RespError) and reply == "ERR Replica can't interact with the keyspace"
    m.send_command("PING")
    assert m.read_reply() == "PONG"


def test_reset_ends_monitoring(server):
    m = start_monitor(server)
    m.send_command("RESET")
    assert m.read_reply() == "RESET"
    r = server.client()
    r.execute_command("ECHO", "after-reset")
    m.send_command("ECHO", "own")
    # The next thing on the connection is the reply to its own ECHO, no monitor line.
    assert m.read_reply() == b"own"
    assert not any("cmd=reset" in l and "flags=O" in l
                   for l in r.execute_command("CLIENT", "LIST").splitlines())


def test_monitor_in_resp3_and_in_multi(server):
    m = server.raw()
    m.send_command("HELLO", "3")
    m.read_reply()
    m.send_command("MONITOR")
    assert m.read_reply() == "OK"
    t = server.raw()
    t.send_command("MULTI")
    assert t.read_reply() == "OK"
    t.send_command("MONITOR")
    assert t.read_reply() == "QUEUED"
    t.send_command("EXEC")
    assert t.read_reply() == [RespError("ERR MONITOR isn't allowed for DENY BLOCKING client")]


@pytest.mark.hotkv_only
def test_commands_of_every_worker_reach_the_monitor_in_key_order(start_server):
    srv = start_server(hotkv_args=["--threads", "2"])
    m = start_monitor(srv)
    clients = [srv.raw() for _ in range(8)]  # spread over both workers by the kernel
    n = 40
    for i in range(n):
        for j, c in enumerate(clients):
            c.send_command("append", "log", f"{j}.{i},")
    for c in clients:
        for _ in range(n):
            c.read_reply()
    r = srv.client()
    r.execute_command("echo", "done")
    got = lines_until(m, '"echo" "done"', limit=10 * n * len(clients))
    fed = [args for _, _, args in got if args.startswith('"append" "log"')]
    assert len(fed) == n * len(clients)
    # The value is the order the APPENDs ran in; the monitor printed them in that order.
    ran = r.get("log").split(",")[:-1]
    assert [a.split('"')[5][:-1] for a in fed] == ran
