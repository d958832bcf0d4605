"""INCREX (Redis 8.8): increment with bounds, saturation and expiry in one command.

Written from Redis 8.8's COMMAND DOCS and checked by hand against the Redis 8.8 binary
(every expectation below is what it answers)."""
import time

import pytest

from conftest import cmd, error_reply
from helpers_pubsub import keyevents  # noqa: F401 (fixture)

pytestmark = pytest.mark.redis8  # Redis 7.0 has no INCREX

SYNTAX = "ERR syntax error"
NOT_INT = "ERR value is not an integer or out of range"
NOT_FLOAT = "ERR value is not a valid float"
WRONGTYPE = "WRONGTYPE Operation against a key holding the wrong kind of value"
INVALID_EXPIRE = "ERR invalid expire time in 'increx' command"
INT_MAX = 2**63 - 1
INT_MIN = -2**63


def test_default_increment_by_one(r):
    assert cmd(r, "INCREX", "k") == [1, 1]
    assert cmd(r, "INCREX", "k") == [2, 1]
    assert r.get("k") == "2"
    assert r.ttl("k") == -1
    assert cmd(r, "OBJECT", "ENCODING", "k") == "int"
    assert cmd(r, "INCREX", "k", "BYINT", -5) == [-3, -5]
    assert cmd(r, "INCREX", "k", "byint", 0) == [-3, 0]


def test_byfloat_uses_the_human_long_double_format(r):
    assert cmd(r, "INCREX", "k", "BYFLOAT", "1.5") == ["1.5", "1.5"]
    assert cmd(r, "INCREX", "k", "BYFLOAT", "1") == ["2.5", "1"]
    r.set("k", "0.2")
    assert cmd(r, "INCREX", "k", "BYFLOAT", "0.1") == ["0.3", "0.1"]
    assert r.get("k") == "0.3"
    r.set("k", "10")
    assert cmd(r, "INCREX", "k", "BYFLOAT", "-0.1") == ["9.9", "-0.1"]
    assert cmd(r, "INCREX", "k", "BYFLOAT", "1.5e1") == ["24.9", "15"]
    assert cmd(r, "INCREX", "k", "BYFLOAT", "-0") == ["24.9", "0"]
    r.set("k", "1")
    assert cmd(r, "INCREX", "k", "BYFLOAT", "0x10") == ["17", "16"]  # strtold accepts hex
    assert cmd(r, "INCREX", "k", "BYFLOAT", ".5") == ["17.5", "0.5"]
    # Long double: 1e308 + 1e308 is finite, and 25 + 1e-20 rounds back to 25.
    r.set("k", "25")
    assert cmd(r, "INCREX", "k", "BYFLOAT", "1e-20") == ["25", "0"]
    r.set("k", "1e308")
    value, applied = cmd(r, "INCREX", "k", "BYFLOAT", "1e308")
    assert value.startswith("19999999999999999999") and len(value) == 309
    assert applied.startswith("9999999999999999999") and len(applied) == 308
    # An integer-looking float value stays usable by BYINT afterwards.
    r.set("k", "2.5")
    assert cmd(r, "INCREX", "k", "BYFLOAT", "1.5") == ["4", "1.5"]
    assert cmd(r, "INCREX", "k") == [5, 1]


def test_resp3_replies(server):
    c = server.raw()
    try:
        c.command("HELLO", "3")
        c.command("DEL", "k")
        assert c.command("INCREX", "k") == [1, 1]
        assert c.command("INCREX", "k", "BYFLOAT", "1.5") == [("double", "2.5"), ("double", "1.5")]
        assert c.command("INCREX", "k", "BYFLOAT", "1.5") == [("double", "4"), ("double", "1.5")]
        assert c.command("INCREX", "k", "BYFLOAT", "1", "UBOUND", "2") == [
            ("double", "4"), ("double", "0")]
    finally:
        c.close()


def test_out_of_bounds_is_refused_unchanged(r):
    r.set("k", 5)
    assert cmd(r, "INCREX", "k", "UBOUND", 7, "BYINT", 1) == [6, 1]
    assert cmd(r, "INCREX", "k", "UBOUND", 7, "BYINT", 1) == [7, 1]
    assert cmd(r, "INCREX", "k", "UBOUND", 7, "BYINT", 1) == [7, 0]
    assert cmd(r, "INCREX", "k", "LBOUND", 6, "BYINT", -2) == [7, 0]
    assert cmd(r, "INCREX", "k", "LBOUND", 7, "UBOUND", 7, "BYINT", 0) == [7, 0]
    assert r.get("k") == "7"
    # A missing key counts as 0 and is not created when refused.
    assert cmd(r, "INCREX", "nokey", "LBOUND", 5) == [0, 0]
    assert cmd(r, "INCREX", "nokey", "LBOUND", 5, "EX", 100) == [0, 0]
    assert r.exists("nokey") == 0
    # Refused: the expiry options are not applied either.
    r.set("t", 3, ex=100)
    assert cmd(r, "INCREX", "t", "UBOUND", 3, "PERSIST") == [3, 0]
    assert cmd(r, "INCREX", "t", "UBOUND", 3, "EX", 500) == [3, 0]
    assert 0 < r.ttl("t") <= 100
    # Floats: the current value in the human format, and "0".
    r.set("f", "1e3")
    assert cmd(r, "INCREX", "f", "BYFLOAT", 1, "UBOUND", 5) == ["1000", "0"]
    assert r.get("f") == "1e3"
    r.set("f", "0.1")
    assert cmd(r, "INCREX", "f", "BYFLOAT", "0.2", "LBOUND", "0.30000000000000001") == [
        "0.1", "0"]
    assert cmd(r, "INCREX", "f", "BYFLOAT", "0.2", "UBOUND", "0.3") == ["0.3", "0.2"]


def test_overflow_is_refused_without_an_error(r):
    r.set("k", INT_MAX - 1)
    assert cmd(r, "INCREX", "k") == [INT_MAX, 1]
    assert cmd(r, "INCREX", "k") == [INT_MAX, 0]
    r.set("k", INT_MIN)
    assert cmd(r, "INCREX", "k", "BYINT", -1) == [INT_MIN, 0]
    assert cmd(r, "INCREX", "k", "BYINT", INT_MIN) == [INT_MIN, 0]
    r.set("f", "1.18e4932")
    value, applied = cmd(r, "INCREX", "f", "BYFLOAT", "1e4932")
    assert value.startswith("118") and len(value) == 4933 and applied == "0"
    value, applied = cmd(r, "INCREX", "f", "BYFLOAT", "1e4932", "UBOUND", "inf")
    assert value.startswith("118") and applied == "0"


def test_saturate_clamps_to_the_bound_crossed(r):
    r.set("k", 5)
    assert cmd(r, "INCREX", "k", "UBOUND", 7, "BYINT", 10, "SATURATE") == [7, 2]
    r.set("k", 100)
    # Even when the value is already beyond the bound, whatever the increment's sign.
    assert cmd(r, "INCREX", "k", "UBOUND", 7, "BYINT", 1, "SATURATE") == [7, -93]
    r.set("k", 100)
    assert cmd(r, "INCREX", "k", "SATURATE", "LBOUND", 200, "BYINT", 1) == [200, 100]
    assert cmd(r, "INCREX", "nokey", "LBOUND", 5, "SATURATE") == [5, 5]
    # The type's limits when no bound is given; an overflow is past the bound it heads to.
    r.set("k", INT_MAX)
    assert cmd(r, "INCREX", "k", "SATURATE") == [INT_MAX, 0]
    assert cmd(r, "INCREX", "k", "BYINT", 1, "UBOUND", 5, "SATURATE") == [5, 5 - INT_MAX]
    r.set("k", -5)
    assert cmd(r, "INCREX", "k", "BYINT", INT_MAX, "SATURATE") == [INT_MAX - 5, INT_MAX]
    r.set("k", INT_MIN)
    assert cmd(r, "INCREX", "k", "BYINT", -1, "LBOUND", -5, "SATURATE") == [-5, INT_MAX - 4]
    r.set("f", 3)
    assert cmd(r, "INCREX", "f", "SATURATE", "BYFLOAT", 1, "LBOUND", "1.5", "UBOUND",
               "2.5") == ["2.5", "-0.5"]
    r.set("f", "1.18e4932")
    value, applied = cmd(r, "INCREX", "f", "BYFLOAT", "1e4932", "SATURATE")
    assert value.startswith("1189731495357231765") and len(value) == 4933  # LDBL_MAX
    assert applied.startswith("97314953572317650") and len(applied) == 4930


def test_saturate_errors_when_the_applied_increment_does_not_fit(r):
    r.set("k", INT_MIN)
    assert error_reply(r, "INCREX", "k", "LBOUND", 100, "BYINT", 1, "SATURATE") == (
        "ERR applied increment would overflow")
    r.set("k", INT_MAX)
    assert error_reply(r, "INCREX", "k", "LBOUND", -5, "UBOUND", -5, "SATURATE") == (
        "ERR applied increment would overflow")
    assert r.get("k") == str(INT_MAX)
    r.set("f", "-1.18e4932")
    assert error_reply(r, "INCREX", "f", "BYFLOAT", 1, "LBOUND", "1.18e4932", "SATURATE") == (
        "ERR applied increment would be Infinity")
    r.set("f", "1.18e4932")
    assert error_reply(r, "INCREX", "f", "BYFLOAT", "1e4932", "UBOUND", "inf",
                       "SATURATE") == "ERR applied increment would be Infinity"


@pytest.mark.parametrize("args,error", [
    (("BYINT", "x"), "ERR Increment is not an integer or out of range"),
    (("BYINT", "1.5"), "ERR Increment is not an integer or out of range"),
    (("BYINT", "+5"), "ERR Increment is not an integer or out of range"),
    (("BYINT", 2**63), "ERR Increment is not an integer or out of range"),
    (("BYFLOAT", "x"), "ERR Increment is not a valid float"),
    (("BYFLOAT", "nan"), "ERR Increment is not a valid float"),
    (("BYFLOAT", " 5"), "ERR Increment is not a valid float"),
    (("BYFLOAT", "1e4933"), "ERR Increment is not a valid float"),
    (("BYFLOAT", "inf"), "ERR BYFLOAT increment cannot be Infinity"),
    (("BYFLOAT", "-inf"), "ERR BYFLOAT increment cannot be Infinity"),
    (("LBOUND", "x"), "ERR LBOUND is not an integer or out of range"),
    (("UBOUND", "1.5"), "ERR UBOUND is not an integer or out of range"),
    (("LBOUND", "1.5"), "ERR LBOUND is not an integer or out of range"),
    (("BYFLOAT", 1, "LBOUND", "x"), "ERR LBOUND is not a valid float"),
    (("BYFLOAT", 1, "UBOUND", "nan"), "ERR UBOUND is not a valid float"),
    (("LBOUND", 10, "UBOUND", 1), "ERR LBOUND can't be greater than UBOUND"),
    (("BYFLOAT", 1, "LBOUND", "inf"), "ERR LBOUND can't be greater than UBOUND"),
    (("BYFLOAT", 1, "UBOUND", "-inf"), "ERR LBOUND can't be greater than UBOUND"),
    (("ENX",), "ERR ENX flag requires an expiration"),
    (("EX", 0), INVALID_EXPIRE), (("EX", -1), INVALID_EXPIRE), (("PX", 0), INVALID_EXPIRE),
    (("EXAT", 0), INVALID_EXPIRE), (("PXAT", -1), INVALID_EXPIRE),
    (("EX", 9223372036854775), INVALID_EXPIRE), (("PX", INT_MAX), INVALID_EXPIRE),
    (("EXAT", 9223372036854776), INVALID_EXPIRE),
    (("EX", "x"), NOT_INT), (("EX", "1.5"), NOT_INT),
    (("BOGUS",), SYNTAX), (("BYINT",), SYNTAX), (("EX",), SYNTAX), (("LBOUND",), SYNTAX),
    (("BYINT", 1, "BYINT", 2), SYNTAX), (("BYINT", 1, "BYFLOAT", 2), SYNTAX),
    (("SATURATE", "SATURATE"), SYNTAX), (("LBOUND", 1, "LBOUND", 2), SYNTAX),
    (("EX", 10, "PX", 10), SYNTAX), (("EX", 5, "EXAT", "x"), SYNTAX),
    (("EX", 10, "PERSIST"), SYNTAX), (("PERSIST", "EX", 10), SYNTAX),
    (("PERSIST", "ENX"), SYNTAX), (("ENX", "PERSIST"), SYNTAX), (("ENX", "ENX", "EX", 1), SYNTAX),
    (("KEEPTTL",), SYNTAX),
])
def test_argument_errors(r, args, error):
    r.set("k", 5)
    assert error_reply(r, "INCREX", "k", *args) == error
    assert r.get("k") == "5"


@pytest.mark.parametrize("args,error", [
    # The increment is parsed at its token, before a later syntax error.
    (("BYINT", "x", "BOGUS"), "ERR Increment is not an integer or out of range"),
    (("BOGUS", "BYINT", "x"), SYNTAX),
    (("BYINT", 1, "BYINT", "x"), SYNTAX),
    # Then the bounds (LBOUND first), their order, the expiry, ENX.
    (("LBOUND", "y", "BYINT", "x"), "ERR Increment is not an integer or out of range"),
    (("UBOUND", "y", "LBOUND", "z"), "ERR LBOUND is not an integer or out of range"),
    (("EX", 0, "LBOUND", "y"), "ERR LBOUND is not an integer or out of range"),
    (("EX", 0, "LBOUND", 5, "UBOUND", 1), "ERR LBOUND can't be greater than UBOUND"),
    (("ENX", "LBOUND", 5, "UBOUND", 1), "ERR LBOUND can't be greater than UBOUND"),
    (("EX", "x", "BYINT", "y"), "ERR Increment is not an integer or out of range"),
    (("EX", 0, "BOGUS"), SYNTAX),
    (("ENX", "EX", 0), INVALID_EXPIRE),
])
def test_error_order(r, args, error):
    r.set("k", 5)
    assert error_reply(r, "INCREX", "k", *args) == error


def test_argument_errors_come_before_the_key(r):
    r.hset("h", "f", "v")
    assert error_reply(r, "INCREX", "h", "BOGUS") == SYNTAX
    assert error_reply(r, "INCREX", "h", "BYINT", "x") == (
        "ERR Increment is not an integer or out of range")
    assert error_reply(r, "INCREX", "h", "EX", 0) == INVALID_EXPIRE
    assert error_reply(r, "INCREX", "h", "LBOUND", 5, "UBOUND", 1) == (
        "ERR LBOUND can't be greater than UBOUND")
    assert error_reply(r, "INCREX", "h") == WRONGTYPE
    assert error_reply(r, "INCREX", "h", "BYFLOAT", 1) == WRONGTYPE


def test_values_that_are_not_numbers(r):
    r.set("k", "abc")
    assert error_reply(r, "INCREX", "k") == NOT_INT
    assert error_reply(r, "INCREX", "k", "BYFLOAT", 1) == NOT_FLOAT
    for text in ("5.0", "007", " 5", "1e3"):
        r.set("k", text)
        assert error_reply(r, "INCREX", "k") == NOT_INT, text
    r.set("k", "1e5000")
    assert error_reply(r, "INCREX", "k", "BYFLOAT", 1) == NOT_FLOAT
    for text in ("inf", "-inf"):
        r.set("k", text)
        assert error_reply(r, "INCREX", "k", "BYFLOAT", 1) == "ERR value cannot be Infinity"
        assert error_reply(r, "INCREX", "k", "BYFLOAT", 1, "SATURATE", "UBOUND", "inf") == (
            "ERR value cannot be Infinity")


def test_expiry_options(r):
    r.set("k", 5, ex=100)
    assert cmd(r, "INCREX", "k") == [6, 1]
    assert 0 < r.ttl("k") <= 100  # no expiry option keeps the TTL
    assert cmd(r, "INCREX", "k", "EX", 20, "ENX") == [7, 1]
    assert 20 < r.ttl("k") <= 100  # ENX: it had a TTL, which stays
    assert cmd(r, "INCREX", "k", "PERSIST") == [8, 1]
    assert r.ttl("k") == -1
    assert cmd(r, "INCREX", "k", "EX", 20, "ENX") == [9, 1]
    assert 0 < r.ttl("k") <= 20
    assert cmd(r, "INCREX", "k", "PX", 5000) == [10, 1]
    assert 0 < r.pttl("k") <= 5000
    at = int(time.time()) + 1000
    assert cmd(r, "INCREX", "k", "EXAT", at) == [11, 1]
    assert cmd(r, "EXPIRETIME", "k") == at
    assert cmd(r, "INCREX", "k", "BYFLOAT", "0.5", "PXAT", at * 1000 + 5) == ["11.5", "0.5"]
    assert cmd(r, "PEXPIRETIME", "k") == at * 1000 + 5
    assert cmd(r, "INCREX", "k", "PXAT", INT_MAX, "BYFLOAT", 1) == ["12.5", "1"]
    assert cmd(r, "INCREX", "new", "EX", 50) == [1, 1]
    assert 0 < r.ttl("new") <= 50


def test_expiry_in_the_past_deletes_the_key(r):
    r.set("k", 10)
    assert cmd(r, "INCREX", "k", "EXAT", 1) == [11, 1]
    assert r.exists("k") == 0
    assert cmd(r, "INCREX", "k", "BYFLOAT", "1.5", "PXAT", 1) == ["1.5", "1.5"]
    assert r.exists("k") == 0
    # ENX on a key that has a TTL leaves it alone, past time or not.
    r.set("k", 5, ex=100)
    assert cmd(r, "INCREX", "k", "EXAT", 1, "ENX") == [6, 1]
    assert r.get("k") == "6" and r.ttl("k") > 0
    r.set("k", 5)
    assert cmd(r, "INCREX", "k", "EXAT", 1, "ENX") == [6, 1]
    assert r.exists("k") == 0


def test_keyspace_events(keyevents):
    events = keyevents
    assert events("INCREX", "k") == [("incrby", "k")]
    assert events("INCREX", "k", "BYFLOAT", "1.5") == [("incrbyfloat", "k")]
    assert events("SET", "k", 1) == [("set", "k")]
    assert events("INCREX", "k", "EX", 100) == [("incrby", "k"), ("expire", "k")]
    assert events("INCREX", "k", "EX", 100, "ENX") == [("incrby", "k")]
    assert events("INCREX", "k", "PERSIST") == [("incrby", "k"), ("persist", "k")]
    assert events("INCREX", "k", "PERSIST") == [("incrby", "k")]
    assert events("INCREX", "k", "BYFLOAT", 1, "PX", 5000) == [("incrbyfloat", "k"),
                                                                ("expire", "k")]
    # A saturated or zero increment is still a write; a refused one is nothing.
    assert events("INCREX", "k", "UBOUND", 2, "SATURATE") == [("incrby", "k")]
    assert events("INCREX", "k", "BYINT", 0) == [("incrby", "k")]
    assert events("INCREX", "k", "UBOUND", 1) == []
    # A past expiry: only "del", and nothing at all for a key that did not exist.
    assert events("INCREX", "k", "EXAT", 1) == [("del", "k")]
    assert events("INCREX", "q", "PXAT", 1) == []


def test_watch(r, server):
    r.set("k", 5)
    other = server.client()
    try:
        for command, touched in ((("INCREX", "k", "UBOUND", 1), False),
                                 (("INCREX", "k", "UBOUND", 5, "SATURATE"), True),
                                 (("INCREX", "k", "BYINT", 0), True)):
            with r.pipeline() as p:
                p.watch("k")
                other.execute_command(*command)
                p.multi()
                p.get("k")
                try:
                    p.execute()
                    ran = True
                except Exception:
                    ran = False
            assert ran != touched, command
    finally:
        other.close()


def test_command_docs(r):
    pool = r.connection_pool
    conn = pool.get_connection("COMMAND")
    try:
        conn.send_command("COMMAND", "INFO", "increx")
        info = conn.read_response()[0]
    finally:
        pool.release(conn)
    assert info[:6] == ["increx", -2, ["write", "denyoom", "fast"], 1, 1, 1]
    assert sorted(info[6]) == ["@fast", "@string", "@write"]
