"""WAIT and WAITAOF on a server with no replica and no AOF (HotKV always; Redis 8.8 as a
master without replicas and appendonly off, which is what these tests were checked against
by hand): nothing is ever acknowledged, so the counts are 0, right away when there is
nothing to wait for, else after the timeout."""
import time

import pytest

from conftest import cmd, error_reply, wait_until

NOT_INT = "ERR value is not an integer or out of range"
TIMEOUT_NOT_INT = "ERR timeout is not an integer or out of range"
UNBLOCKED = "UNBLOCKED client unblocked via CLIENT UNBLOCK"


def blocked_clients(r):
    return r.info("clients")["blocked_clients"]


def timed(conn, *args):
    t0 = time.monotonic()
    reply = conn.command(*args)
    return reply, time.monotonic() - t0


def test_wait_without_replicas_to_wait_for_answers_at_once(r):
    assert cmd(r, "WAIT", 0, 0) == 0
    assert cmd(r, "WAIT", -1, 0) == 0
    assert cmd(r, "WAIT", 0, 100000) == 0


def test_wait_for_replicas_times_out_with_zero(server):
    c = server.raw(timeout=5)
    try:
        reply, took = timed(c, "WAIT", 1, 200)
        assert reply == 0 and 0.19 <= took < 3
    finally:
        c.close()


@pytest.mark.parametrize("args,error", [
    (("x", 0), NOT_INT), (("1.5", 0), NOT_INT), ((2**64, 0), NOT_INT),
    ((0, "x"), TIMEOUT_NOT_INT), ((0, "1.5"), TIMEOUT_NOT_INT),
    ((0, -1), "ERR timeout is negative"),
])
def test_wait_errors(r, args, error):
    assert error_reply(r, "WAIT", *args) == error


@pytest.mark.redis8  # Redis 7.0 blocks (for ever) instead
def test_wait_timeout_past_the_clock_range(server):
    c = server.raw(timeout=5)
    try:
        assert c.command("WAIT", 1, 2**63 - 1) == "ERR timeout is out of range"
        assert c.command("WAIT", 1, 2**63 - 1000) == "ERR timeout is out of range"
    finally:
        c.close()


def test_wait_forever_until_client_unblock(server, r):
    c = server.raw(timeout=5)
    try:
        cid = c.command("CLIENT", "ID")
        base = blocked_clients(r)
        c.send_command("WAIT", 3, 0)
        assert wait_until(lambda: blocked_clients(r) == base + 1)
        line = [ln for ln in r.client_list() if int(ln["id"]) == cid][0]
        assert "b" in line["flags"] and line["cmd"] == "wait"
        assert r.client_unblock(cid) == 1  # TIMEOUT: the count
        assert c.read_reply() == 0
        c.send_command("WAIT", 3, 0)
        assert wait_until(lambda: blocked_clients(r) == base + 1)
        assert r.client_unblock(cid, error=True) == 1
        assert c.read_reply() == UNBLOCKED
        assert c.command("PING") == "PONG"
        assert blocked_clients(r) == base
    finally:
        c.close()


def test_wait_inside_multi_does_not_block(server):
    c = server.raw(timeout=5)
    try:
        assert c.command("MULTI") == "OK"
        assert c.command("WAIT", 1, 0) == "QUEUED"
        reply, took = timed(c, "EXEC")
        assert reply == [0] and took < 3
    finally:
        c.close()


@pytest.mark.redis8  # WAITAOF is Redis 7.2
def test_waitaof(server, r):
    assert cmd(r, "WAITAOF", 0, 0, 0) == [0, 0]
    assert cmd(r, "WAITAOF", 0, 0, 100000) == [0, 0]
    assert error_reply(r, "WAITAOF", 1, 0, 0) == (
        "ERR WAITAOF cannot be used when numlocal is set but appendonly is disabled.")
    c = server.raw(timeout=5)
    try:
        reply, took = timed(c, "WAITAOF", 0, 1, 200)
        assert reply == [0, 0] and 0.19 <= took < 3
        cid = c.command("CLIENT", "ID")
        c.send_command("WAITAOF", 0, 2, 0)
        assert wait_until(lambda: r.client_unblock(cid) == 1)
        assert c.read_reply() == [0, 0]
        c.command("HELLO", "3")
        assert c.command("WAITAOF", 0, 1, 50) == [0, 0]
        assert c.command("MULTI") == "OK"
        assert c.command("WAITAOF", 0, 1, 0) == "QUEUED"
        assert c.command("EXEC") == [[0, 0]]
    finally:
        c.close()


@pytest.mark.redis8
@pytest.mark.parametrize("args,error", [
    (("x", 0, 0), NOT_INT),
    ((-1, 0, 0), "ERR value is out of range, value must between 0 and 1"),
    ((2, 0, 0), "ERR value is out of range, value must between 0 and 1"),
    ((0, "x", 0), "ERR value is out of range, must be positive"),
    ((0, -1, 0), "ERR value is out of range, must be positive"),
    ((0, 0, "x"), TIMEOUT_NOT_INT), ((0, 0, -1), "ERR timeout is negative"),
    ((1, 0, "x"), TIMEOUT_NOT_INT),  # the arguments are checked before appendonly
])
def test_waitaof_errors(r, args, error):
    assert error_reply(r, "WAITAOF", *args) == error
