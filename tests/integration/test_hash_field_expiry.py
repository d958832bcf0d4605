"""Hash field expiry (Redis 7.4 / 8.0): HEXPIRE HPEXPIRE HEXPIREAT HPEXPIREAT, HTTL HPTTL
HEXPIRETIME HPEXPIRETIME, HPERSIST, HGETEX, HSETEX, and how the other hash commands treat
fields whose time has come (lazy expiry), the active cycle, notifications, encodings,
COPY/RENAME/MOVE, DUMP/RESTORE, the write stream (AOF) and RDB files.

Replies and error texts were checked by hand against Redis 8.8. Tests of lazy expiry turn
the active cycle off with DEBUG SET-ACTIVE-EXPIRE 0 (as Redis's own tests do); no test
depends on timing to pass: short TTLs are awaited with wait_until or set in the past.
"""
import os
import time

import pytest

from conftest import ServerProcess, wait_until
from helpers_pubsub import Connections, KeyspaceWatcher, conns, ps_server  # noqa: F401
from helpers_types import NOT_INT, WRONGTYPE, arity, rc_fixture

pytestmark = pytest.mark.redis8

FAR = 4_000_000_000  # seconds: year 2096
MAX_MS = (1 << 46) - 1


@pytest.fixture
def rc(server, r):
    yield from rc_fixture(server)


@pytest.fixture
def no_active(rc):
    rc("DEBUG", "SET-ACTIVE-EXPIRE", "0")
    yield rc
    rc("DEBUG", "SET-ACTIVE-EXPIRE", "1")


def now_ms():
    return int(time.time() * 1000)


def expire_soon(rc, key, *fields):
    """Gives fields a 1 ms TTL and waits until it has passed."""
    assert rc("HPEXPIRE", key, 1, "FIELDS", len(fields), *fields) == [1] * len(fields)
    time.sleep(0.01)


# ------------------------------------------------------------------ HEXPIRE family

def test_hexpire_reply_codes(rc):
    rc("HSET", "h", "a", 1, "b", 2, "c", 3)
    assert rc("HEXPIRE", "h", 100, "FIELDS", 2, "a", "zz") == [1, -2]
    assert rc("HEXPIRE", "nokey", 100, "FIELDS", 2, "a", "b") == [-2, -2]
    assert rc("HEXPIRE", "h", 0, "FIELDS", 1, "c") == [2]
    assert rc("HEXISTS", "h", "c") == 0
    assert rc("HEXPIRE", "h", 100, "FIELDS", 2, "a", "a") == [1, 1]


def test_hexpire_conditions(rc):
    rc("HSET", "h", "a", 1, "b", 2)
    # No TTL yet: NX and LT pass, XX and GT fail.
    assert rc("HEXPIRE", "h", 100, "XX", "FIELDS", 1, "a") == [0]
    assert rc("HEXPIRE", "h", 100, "GT", "FIELDS", 1, "a") == [0]
    assert rc("HEXPIRE", "h", 100, "NX", "FIELDS", 1, "a") == [1]
    assert rc("HEXPIRE", "h", 100, "LT", "FIELDS", 1, "b") == [1]
    assert rc("HEXPIRE", "h", 100, "NX", "FIELDS", 1, "a") == [0]
    assert rc("HEXPIRE", "h", 200, "XX", "FIELDS", 2, "a", "b") == [1, 1]
    assert rc("HEXPIRE", "h", 50, "GT", "FIELDS", 2, "a", "b") == [0, 0]
    assert rc("HEXPIRE", "h", 300, "GT", "FIELDS", 1, "a") == [1]
    assert rc("HEXPIRE", "h", 300, "LT", "FIELDS", 1, "a") == [0]
    assert rc("HEXPIRE", "h", 50, "LT", "FIELDS", 2, "a", "b") == [1, 1]
    # The same flag twice is fine; the condition may follow FIELDS.
    assert rc("HEXPIRE", "h", 60, "XX", "XX", "FIELDS", 1, "a") == [1]
    assert rc("HEXPIRE", "h", 70, "FIELDS", 1, "a", "GT") == [1]
    # A time in the past deletes only when the condition holds.
    assert rc("HEXPIRE", "h", 0, "GT", "FIELDS", 1, "a") == [0]
    assert rc("HEXPIRE", "h", 0, "LT", "FIELDS", 1, "a") == [2]


def test_hexpire_units_and_ttl_replies(rc):
    rc("HSET", "h", "a", 1, "b", 2, "c", 3, "d", 4)
    assert rc("HEXPIRE", "h", 100, "FIELDS", 1, "a") == [1]
    assert rc("HPEXPIRE", "h", 100_000, "FIELDS", 1, "b") == [1]
    assert rc("HEXPIREAT", "h", FAR, "FIELDS", 1, "c") == [1]
    assert rc("HPEXPIREAT", "h", FAR * 1000 + 123, "FIELDS", 1, "d") == [1]
    assert 99 <= rc("HTTL", "h", "FIELDS", 1, "a")[0] <= 100
    assert 99_000 < rc("HPTTL", "h", "FIELDS", 1, "b")[0] <= 100_000
    assert rc("HEXPIRETIME", "h", "FIELDS", 2, "c", "d") == [FAR, FAR]
    assert rc("HPEXPIRETIME", "h", "FIELDS", 2, "c", "d") == [FAR * 1000, FAR * 1000 + 123]
    at = rc("HPEXPIRETIME", "h", "FIELDS", 1, "a")[0]
    assert abs(at - (now_ms() + 100_000)) < 5000
    rc("HSET", "h", "e", 5)
    for cmd in ("HTTL", "HPTTL", "HEXPIRETIME", "HPEXPIRETIME"):
        assert rc(cmd, "h", "FIELDS", 2, "e", "zz") == [-1, -2]
        assert rc(cmd, "nokey", "FIELDS", 2, "e", "zz") == [-2, -2]


def test_hexpire_time_limits(rc):
    rc("HSET", "h", "a", 1)
    assert rc("HPEXPIREAT", "h", MAX_MS, "FIELDS", 1, "a") == [1]
    assert rc("HPEXPIRETIME", "h", "FIELDS", 1, "a") == [MAX_MS]
    for cmd, value in (("HPEXPIREAT", MAX_MS + 1), ("HEXPIREAT", MAX_MS // 1000 + 1),
                       ("HEXPIRE", 9999999999999999), ("HPEXPIRE", MAX_MS),
                       ("HEXPIRE", 9223372036854775807)):
        assert rc.err(cmd, "h", value, "FIELDS", 1, "a") == \
            f"ERR invalid expire time in '{cmd.lower()}' command"
    assert rc.err("HEXPIRE", "h", -1, "FIELDS", 1, "a") == "ERR invalid expire time, must be >= 0"
    assert rc.err("HEXPIRE", "h", "abc", "FIELDS", 1, "a") == NOT_INT
    # Time errors come before argument errors.
    assert rc.err("HEXPIRE", "h", -1, "FIELDS", 0, "a") == "ERR invalid expire time, must be >= 0"


def test_hexpire_argument_errors(rc):
    rc("HSET", "h", "a", 1)
    rc("SET", "s", "x")
    assert rc.err("HEXPIRE", "h", 10, "FIELDS", 0) == arity("hexpire")
    assert rc.err("HEXPIRE", "h", 10, "FIELDS", 2, "a") == "ERR wrong number of arguments"
    assert rc.err("HEXPIRE", "h", 10, "FIELDS", 1, "a", "b") == "ERR unknown argument: b"
    assert rc.err("HEXPIRE", "h", 10, "FIELDS", 0, "a") == \
        "ERR Parameter `numFields` should be greater than 0"
    assert rc.err("HEXPIRE", "h", 10, "FIELDS", "x", "a") == \
        "ERR Parameter `numFields` should be greater than 0"
    assert rc.err("HEXPIRE", "h", 10, "FIELDS", -1, "a") == \
        "ERR Parameter `numFields` should be greater than 0"
    assert rc.err("HEXPIRE", "h", 10, "NX", "XX", "FIELDS", 1, "a") == \
        "ERR Multiple condition flags specified"
    assert rc.err("HEXPIRE", "h", 10, "FIELDS", 1, "a", "GT", "LT") == \
        "ERR Multiple condition flags specified"
    assert rc.err("HEXPIRE", "h", 10, "FOO", 1, "a") == "ERR unknown argument: FOO"
    assert rc.err("HEXPIRE", "h", 10, "FIELDS", 1, "a", "FIELDS", 1, "a") == \
        "ERR FIELDS keyword specified multiple times"
    assert rc.err("HEXPIRE", "h", 10, "NX", "NX", "NX") == "ERR missing FIELDS argument"
    assert rc.err("HEXPIRE", "h", 10, "NX", "NX", "FIELDS") == \
        "ERR FIELDS requires at least numfields and one field argument"
    assert rc.err("HEXPIRE", "h", 10, "NX", "FIELDS", 1) == \
        "ERR FIELDS requires at least numfields and one field argument"
    # WRONGTYPE comes first; a missing key still checks the arguments.
    assert rc.err("HEXPIRE", "s", "abc", "FIELDS", 1, "a") == WRONGTYPE
    assert rc.err("HEXPIRE", "nokey", "abc", "FIELDS", 1, "a") == NOT_INT
    assert rc.err("HEXPIRE", "nokey", 10, "FIELDS", 2, "a") == "ERR wrong number of arguments"


def test_httl_and_hpersist_argument_errors(rc):
    rc("HSET", "h", "a", 1)
    rc("SET", "s", "x")
    for cmd in ("HTTL", "HPTTL", "HEXPIRETIME", "HPEXPIRETIME", "HPERSIST"):
        assert rc.err(cmd, "h", "FIELDS", 0, "a") == "ERR Number of fields must be a positive integer"
        assert rc.err(cmd, "h", "FIELDS", "x", "a") == "ERR Number of fields must be a positive integer"
        assert rc.err(cmd, "h", "FIELDS", 2, "a") == \
            "ERR The `numfields` parameter must match the number of arguments"
        assert rc.err(cmd, "h", "FIELDS", 1, "a", "b") == \
            "ERR The `numfields` parameter must match the number of arguments"
        assert rc.err(cmd, "h", "NX", "FIELDS", 1, "a") == \
            "ERR Mandatory argument FIELDS is missing or not at the right position"
        assert rc.err(cmd, "s", "FIELDS", 0, "a") == WRONGTYPE
        assert rc.err(cmd, "h", "FIELDS") == arity(cmd.lower())


def test_hpersist(rc):
    rc("HSET", "h", "a", 1, "b", 2)
    rc("HEXPIRE", "h", 100, "FIELDS", 1, "a")
    assert rc("HPERSIST", "h", "FIELDS", 3, "a", "b", "zz") == [1, -1, -2]
    assert rc("HTTL", "h", "FIELDS", 1, "a") == [-1]
    assert rc("HPERSIST", "h", "FIELDS", 2, "a", "a") == [-1, -1]
    assert rc("HPERSIST", "nokey", "FIELDS", 1, "a") == [-2]


# ------------------------------------------------------------------ HGETEX / HSETEX

def test_hgetex(rc):
    rc("HSET", "h", "a", 1, "b", 2)
    assert rc("HGETEX", "h", "FIELDS", 2, "a", "zz") == ["1", None]
    assert rc("HTTL", "h", "FIELDS", 1, "a") == [-1]
    assert rc("HGETEX", "h", "EX", 100, "FIELDS", 2, "a", "zz") == ["1", None]
    assert 99 <= rc("HTTL", "h", "FIELDS", 1, "a")[0] <= 100
    assert rc("HGETEX", "h", "PX", 200_000, "FIELDS", 1, "a") == ["1"]
    assert 199 <= rc("HTTL", "h", "FIELDS", 1, "a")[0] <= 200
    assert rc("HGETEX", "h", "EXAT", FAR, "FIELDS", 1, "a") == ["1"]
    assert rc("HEXPIRETIME", "h", "FIELDS", 1, "a") == [FAR]
    assert rc("HGETEX", "h", "PXAT", FAR * 1000 + 7, "FIELDS", 1, "a") == ["1"]
    assert rc("HPEXPIRETIME", "h", "FIELDS", 1, "a") == [FAR * 1000 + 7]
    assert rc("HGETEX", "h", "PERSIST", "FIELDS", 1, "a") == ["1"]
    assert rc("HTTL", "h", "FIELDS", 1, "a") == [-1]
    # Options may follow FIELDS; a time in the past deletes, the key goes with the last.
    assert rc("HGETEX", "h", "FIELDS", 1, "a", "EX", 0) == ["1"]
    assert rc("HGETALL", "h") == ["b", "2"]
    assert rc("HGETEX", "h", "PXAT", 1, "FIELDS", 1, "b") == ["2"]
    assert rc("EXISTS", "h") == 0
    assert rc("HGETEX", "nokey", "EX", 10, "FIELDS", 1, "a") == [None]


def test_hgetex_errors(rc):
    rc("HSET", "h", "a", 1)
    rc("SET", "s", "x")
    one = "ERR Only one of EX, PX, EXAT, PXAT or PERSIST arguments can be specified"
    assert rc.err("HGETEX", "h", "FIELDS", 0, "a") == "ERR invalid number of fields"
    assert rc.err("HGETEX", "h", "FIELDS", 2, "a") == "ERR wrong number of arguments"
    assert rc.err("HGETEX", "h", "FIELDS", 1, "a", "b") == "ERR unknown argument: b"
    assert rc.err("HGETEX", "h", "EX", -1, "FIELDS", 1, "a") == "ERR invalid expire time, must be >= 0"
    assert rc.err("HGETEX", "h", "EX", "x", "FIELDS", 1, "a") == NOT_INT
    assert rc.err("HGETEX", "h", "EX", 10, "PX", 10, "FIELDS", 1, "a") == one
    assert rc.err("HGETEX", "h", "PERSIST", "PERSIST", "FIELDS", 1, "a") == one
    assert rc.err("HGETEX", "h", "EX", 10, "PERSIST", "FIELDS", 1, "a") == one
    assert rc.err("HGETEX", "h", "PX", 10, "FIELDS", 1, "a", "PX") == one
    assert rc.err("HGETEX", "h", "FOO", "FIELDS", 1, "a") == "ERR unknown argument: FOO"
    assert rc.err("HGETEX", "h", "EXAT", 9999999999999999, "FIELDS", 1, "a") == \
        "ERR invalid expire time in 'hgetex' command"
    assert rc.err("HGETEX", "h", "FIELDS", 1, "a", "FIELDS", 1, "a") == \
        "ERR FIELDS keyword specified multiple times"
    assert rc.err("HGETEX", "h", "a") == arity("hgetex")
    assert rc.err("HGETEX", "s", "FIELDS", 1, "a") == WRONGTYPE


def test_hsetex(rc):
    assert rc("HSETEX", "h", "FIELDS", 2, "a", 1, "b", 2) == 1
    assert rc("HGETALL", "h") == ["a", "1", "b", "2"]
    assert rc("HSETEX", "h", "EX", 100, "FIELDS", 1, "a", 10) == 1
    assert 99 <= rc("HTTL", "h", "FIELDS", 1, "a")[0] <= 100
    # KEEPTTL keeps the TTL, a plain HSETEX clears it.
    assert rc("HSETEX", "h", "KEEPTTL", "FIELDS", 1, "a", 11) == 1
    assert rc("HTTL", "h", "FIELDS", 1, "a")[0] > 0
    assert rc("HSETEX", "h", "FIELDS", 1, "a", 12) == 1
    assert rc("HTTL", "h", "FIELDS", 1, "a") == [-1]
    # FNX: only when none exists; FXX: only when all exist.
    assert rc("HSETEX", "h", "FNX", "FIELDS", 2, "a", 1, "c", 3) == 0
    assert rc("HSETEX", "h", "FNX", "PX", 100_000, "FIELDS", 1, "c", 3) == 1
    assert 99_000 < rc("HPTTL", "h", "FIELDS", 1, "c")[0] <= 100_000
    assert rc("HSETEX", "h", "FXX", "FIELDS", 2, "a", 1, "zz", 3) == 0
    assert rc("HEXISTS", "h", "zz") == 0
    assert rc("HSETEX", "h", "FXX", "EXAT", FAR, "FIELDS", 2, "a", 5, "b", 6) == 1
    assert rc("HEXPIRETIME", "h", "FIELDS", 2, "a", "b") == [FAR, FAR]
    assert rc("HSETEX", "h", "PXAT", FAR * 1000 + 1, "FIELDS", 1, "b", 7) == 1
    assert rc("HPEXPIRETIME", "h", "FIELDS", 1, "b") == [FAR * 1000 + 1]
    assert rc("HSETEX", "nokey", "FXX", "FIELDS", 1, "a", 1) == 0
    assert rc("EXISTS", "nokey") == 0
    # The last of duplicate fields wins; options may follow FIELDS.
    assert rc("HSETEX", "d", "FIELDS", 2, "a", 1, "a", 2, "EX", 100) == 1
    assert rc("HGET", "d", "a") == "2"
    # A time in the past sets and deletes at once.
    assert rc("HSETEX", "d", "EX", 0, "FIELDS", 1, "a", 1) == 1
    assert rc("EXISTS", "d") == 0
    assert rc("HSETEX", "h", "PXAT", 1, "FIELDS", 1, "new", 5) == 1
    assert rc("HEXISTS", "h", "new") == 0


def test_hsetex_errors(rc):
    rc("SET", "s", "x")
    one = "ERR Only one of EX, PX, EXAT, PXAT or KEEPTTL arguments can be specified"
    assert rc.err("HSETEX", "h", "FIELDS", 1, "a") == arity("hsetex")
    assert rc.err("HSETEX", "h", "FIELDS", 2, "a", 1) == "ERR wrong number of arguments"
    assert rc.err("HSETEX", "h", "FIELDS", 1, "a", 1, "b") == "ERR unknown argument: b"
    for n in (0, -1, "x", "9999999999999999999999"):
        assert rc.err("HSETEX", "h", "FIELDS", n, "a", 1) == "ERR invalid number of fields"
    assert rc.err("HSETEX", "h", "EX", 10, "PX", 10, "FIELDS", 1, "a", 1) == one
    assert rc.err("HSETEX", "h", "KEEPTTL", "EX", 5, "FIELDS", 1, "a", 1) == one
    assert rc.err("HSETEX", "h", "FIELDS", 1, "a", 1, "KEEPTTL", "KEEPTTL") == one
    assert rc.err("HSETEX", "h", "FNX", "FXX", "FIELDS", 1, "a", 1) == \
        "ERR Only one of FXX or FNX arguments can be specified"
    assert rc.err("HSETEX", "h", "FNX", "FNX", "FIELDS", 1, "a", 1) == \
        "ERR Only one of FXX or FNX arguments can be specified"
    assert rc.err("HSETEX", "h", "EX", -1, "FIELDS", 1, "a", 1) == \
        "ERR invalid expire time, must be >= 0"
    assert rc.err("HSETEX", "h", "EX", -1, "FIELDS", 0, "a", 1) == \
        "ERR invalid expire time, must be >= 0"
    assert rc.err("HSETEX", "h", "EX", "abc", "FIELDS", 1, "a", 1) == NOT_INT
    assert rc.err("HSETEX", "h", "EX", "FIELDS", 1, "a", 1) == NOT_INT
    assert rc.err("HSETEX", "h", "PX", "99999999999999999999", "FIELDS", 1, "a", 1) == NOT_INT
    assert rc.err("HSETEX", "h", "EX", 9999999999999999, "FIELDS", 1, "a", 1) == \
        "ERR invalid expire time in 'hsetex' command"
    assert rc.err("HSETEX", "h", "FOO", "FIELDS", 1, "a", 1) == "ERR unknown argument: FOO"
    assert rc.err("HSETEX", "h", "FIELDS", 1, "a", 1, "FIELDS") == \
        "ERR FIELDS keyword specified multiple times"
    assert rc.err("HSETEX", "s", "FIELDS", 1, "a", 1) == WRONGTYPE
    assert rc("EXISTS", "h") == 0


# ------------------------------------------------------------------ other hash commands

def test_hset_clears_ttl_hincrby_keeps_it(rc):
    rc("HSET", "h", "a", 1, "b", 2, "c", 3)
    rc("HEXPIRE", "h", 100, "FIELDS", 3, "a", "b", "c")
    assert rc("HSET", "h", "a", 5) == 0
    assert rc("HTTL", "h", "FIELDS", 1, "a") == [-1]
    assert rc("HINCRBY", "h", "b", 1) == 3
    assert rc("HTTL", "h", "FIELDS", 1, "b")[0] > 0
    assert rc("HINCRBYFLOAT", "h", "c", "0.5") == "3.5"
    assert rc("HTTL", "h", "FIELDS", 1, "c")[0] > 0
    assert rc("HSETNX", "h", "b", 9) == 0
    assert rc("HTTL", "h", "FIELDS", 1, "b")[0] > 0


def test_lazy_expiry_of_read_fields(no_active):
    rc = no_active
    rc("HSET", "h", "a", 1, "b", 2, "c", 3, "d", 4)
    expire_soon(rc, "h", "a", "b")
    assert rc("HLEN", "h") == 4  # expired fields are counted until deleted (as Redis)
    assert rc("HGETALL", "h") == ["c", "3", "d", "4"]
    assert sorted(rc("HKEYS", "h")) == ["c", "d"]
    assert sorted(rc("HVALS", "h")) == ["3", "4"]
    assert rc("HSCAN", "h", 0) == ["0", ["c", "3", "d", "4"]]
    assert set(rc("HRANDFIELD", "h", -20)) == {"c", "d"}
    assert rc("HLEN", "h") == 4
    assert rc("HTTL", "h", "FIELDS", 1, "a") == [-2]
    assert rc("HPERSIST", "h", "FIELDS", 1, "a") == [-2]
    assert rc("HEXISTS", "h", "a") == 0
    assert rc("HLEN", "h") == 3
    assert rc("HGET", "h", "b") is None
    assert rc("HLEN", "h") == 2
    expire_soon(rc, "h", "c")
    assert rc("HSTRLEN", "h", "c") == 0
    assert rc("HMGET", "h", "c", "d") == [None, "4"]
    expire_soon(rc, "h", "d")
    assert rc("HGET", "h", "d") is None
    assert rc("EXISTS", "h") == 0


def test_lazy_expiry_of_written_fields(no_active):
    rc = no_active
    rc("HSET", "h", "a", 1, "b", 2, "c", 3, "d", 4, "e", 5, "f", "6")
    expire_soon(rc, "h", "a", "b", "c", "d", "e", "f")
    assert rc("HSET", "h", "a", 9) == 0   # present until deleted: overwritten, TTL gone
    assert rc("HTTL", "h", "FIELDS", 1, "a") == [-1]
    assert rc("HSETNX", "h", "b", 9) == 1  # treated as absent
    assert rc("HINCRBY", "h", "c", 5) == 5
    assert rc("HTTL", "h", "FIELDS", 1, "c") == [-1]
    assert rc("HGETDEL", "h", "FIELDS", 1, "d") == [None]
    assert rc("HSETEX", "h", "FNX", "FIELDS", 1, "e", 1) == 1
    assert rc("HSETEX", "h", "FXX", "FIELDS", 1, "f", 1) == 0
    assert rc("HGETALL", "h") == ["a", "9", "b", "9", "c", "5", "e", "1"]


def test_hsetex_condition_expires_fields_up_to_the_failure(no_active):
    rc = no_active
    rc("HSET", "h", "a", 1, "b", 2, "c", 3)
    expire_soon(rc, "h", "a", "c")
    # FNX: "a" (expired) is deleted and counts as absent, "b" fails: "c" is not touched.
    assert rc("HSETEX", "h", "FNX", "FIELDS", 3, "a", 1, "b", 1, "c", 1) == 0
    assert rc("HLEN", "h") == 2
    # FXX: "c" (expired) is deleted, counts as absent and fails.
    assert rc("HSETEX", "h", "FXX", "FIELDS", 2, "c", 1, "b", 1) == 0
    assert rc("HLEN", "h") == 1
    # KEEPTTL keeps even a TTL that has passed: the field stays expired.
    rc("HSET", "h", "d", 4)
    expire_soon(rc, "h", "d")
    assert rc("HSETEX", "h", "KEEPTTL", "FIELDS", 1, "d", 5) == 1
    assert rc("HGET", "h", "d") is None


def test_hdel_counts_expired_fields(no_active):
    rc = no_active
    rc("HSET", "h", "a", 1, "b", 2)
    expire_soon(rc, "h", "a")
    assert rc("HDEL", "h", "a") == 1
    assert rc("HGETALL", "h") == ["b", "2"]


def test_hrandfield_all_expired(no_active):
    rc = no_active
    rc("HSET", "h", "a", 1)
    expire_soon(rc, "h", "a")
    assert rc("HRANDFIELD", "h") is None
    assert rc("HRANDFIELD", "h", 5) == []
    assert rc("HGETALL", "h") == []
    assert rc("EXISTS", "h") == 1


def subkeys_expired(rc):
    info = dict(line.split(":", 1) for line in rc("INFO", "stats").split("\r\n") if ":" in line)
    return int(info["expired_subkeys"]), int(info["expired_subkeys_active"])


def test_active_expiry_reclaims_fields(rc):
    before = subkeys_expired(rc)
    rc("HSET", "h", "a", 1, "b", 2, "keep", 3)
    rc("HPEXPIRE", "h", 10, "FIELDS", 2, "a", "b")
    assert wait_until(lambda: rc("HLEN", "h") == 1)
    rc("HSET", "gone", "a", 1)
    rc("HPEXPIRE", "gone", 10, "FIELDS", 1, "a")
    assert wait_until(lambda: rc("EXISTS", "gone") == 0)
    after = subkeys_expired(rc)
    assert after[0] - before[0] == 3 and after[1] - before[1] == 3


def test_active_expiry_many_fields_many_keys(rc):
    for k in range(20):
        rc("HSET", f"h{k}", *[x for i in range(300) for x in (f"f{i}", i)])
        rc("HPEXPIRE", f"h{k}", 10, "FIELDS", 250, *[f"f{i}" for i in range(250)])
    assert wait_until(lambda: all(rc("HLEN", f"h{k}") == 50 for k in range(20)), timeout=15)


def test_encodings(rc):
    rc("HSET", "h", "a", 1)
    assert rc("OBJECT", "ENCODING", "h") == "listpack"
    assert rc("HEXPIRE", "h", 100, "FIELDS", 1, "zz") == [-2]
    rc("HEXPIRE", "h", 100, "FIELDS", 1, "a")
    assert rc("OBJECT", "ENCODING", "h") == "listpackex"
    rc("HPERSIST", "h", "FIELDS", 1, "a")
    assert rc("OBJECT", "ENCODING", "h") == "listpackex"  # stays, as in Redis
    rc("HSET", "h", "long", "x" * 100)
    assert rc("OBJECT", "ENCODING", "h") == "hashtable"
    rc("HEXPIRE", "h", 100, "FIELDS", 1, "a")
    assert rc("OBJECT", "ENCODING", "h") == "hashtable"


def test_listpackex_conversion_without_a_ttl(rc):
    # Found by the lockstep against Redis 8.8: the HEXPIRE family and HGETEX with an option
    # make a small hash "listpackex" even when no TTL is set; HPERSIST, plain HGETEX and
    # HSETEX without a time do not.
    for cmd, enc in ((("HEXPIRE", "t", 100, "FIELDS", 1, "zz"), "listpackex"),
                     (("HEXPIRE", "t", 0, "XX", "FIELDS", 1, "a"), "listpackex"),
                     (("HGETEX", "t", "EX", 100, "FIELDS", 1, "zz"), "listpackex"),
                     (("HGETEX", "t", "PERSIST", "FIELDS", 1, "a"), "listpackex"),
                     (("HPERSIST", "t", "FIELDS", 1, "a"), "listpack"),
                     (("HGETEX", "t", "FIELDS", 1, "a"), "listpack"),
                     (("HSETEX", "t", "KEEPTTL", "FIELDS", 1, "b", 1), "listpack"),
                     (("HSETEX", "t", "PXAT", 0, "FIELDS", 1, "b", 1), "listpackex")):
        rc("DEL", "t")
        rc("HSET", "t", "a", 1)
        rc(*cmd)
        assert rc("OBJECT", "ENCODING", "t") == enc, cmd



def test_conversion_keeps_expired_fields(no_active):
    # Redis 8.8 (checked by hand): a listpackex hash converting to "hashtable" keeps the
    # fields whose time has passed (HLEN counts them, reads skip them, HTTL says -2) and
    # sends no event for them; lazy or active expiry reclaims them later.
    rc = no_active
    old = rc("CONFIG", "GET", "hash-max-listpack-entries")[1]
    rc("CONFIG", "SET", "hash-max-listpack-entries", 4)
    try:
        rc("HSET", "h", "a", 1, "b", 2, "c", 3, "d", 4)
        expire_soon(rc, "h", "a", "b")
        assert rc("HSET", "h", "e", 5) == 1  # the fifth field: converts
        assert rc("OBJECT", "ENCODING", "h") == "hashtable"
        assert rc("HLEN", "h") == 5
        assert sorted(rc("HKEYS", "h")) == ["c", "d", "e"]
        assert rc("HTTL", "h", "FIELDS", 2, "a", "b") == [-2, -2]
        assert rc("HSET", "h", "a", 9) == 0  # still present to HSET
        assert rc("HGET", "h", "b") is None  # lazy expiry deletes it
        assert rc("HLEN", "h") == 4
        # A long value converts too; all fields expired but the new one.
        rc("HSET", "k", "a", 1, "b", 2)
        expire_soon(rc, "k", "a", "b")
        assert rc("HSETEX", "k", "FIELDS", 1, "x", "v" * 100) == 1
        assert rc("OBJECT", "ENCODING", "k") == "hashtable"
        assert rc("HLEN", "k") == 3
        assert rc("HGETALL", "k") == ["x", "v" * 100]
        rc("DEBUG", "SET-ACTIVE-EXPIRE", "1")
        assert wait_until(lambda: rc("HLEN", "k") == 1)
    finally:
        rc("CONFIG", "SET", "hash-max-listpack-entries", old)

def test_hgetex_past_time_repeated_field(rc):
    rc("HSET", "h", "a", 1, "b", 2)
    assert rc("HGETEX", "h", "EXAT", 1, "FIELDS", 3, "a", "b", "a") == ["1", "2", None]
    assert rc("EXISTS", "h") == 0


def test_listpackex_order(rc):
    rc("HSET", "h", "a", 1, "b", 2, "c", 3)
    rc("HEXPIRE", "h", 100, "FIELDS", 1, "a")
    assert rc("HKEYS", "h") == ["a", "b", "c"]
    rc("HEXPIRE", "h", 50, "FIELDS", 1, "c")
    assert rc("HKEYS", "h") == ["c", "a", "b"]
    rc("HPERSIST", "h", "FIELDS", 3, "a", "b", "c")
    assert rc("HKEYS", "h") == ["b", "a", "c"]
    rc("HEXPIRE", "h", 100, "FIELDS", 1, "c")
    rc("HSET", "h", "c", 5)  # loses its TTL: moves to the end
    assert rc("HKEYS", "h") == ["b", "a", "c"]


def test_copy_rename_move_keep_ttls(rc):
    rc("HSET", "h", "a", 1, "b", 2)
    rc("HEXPIREAT", "h", FAR, "FIELDS", 1, "a")
    rc("COPY", "h", "h2")
    rc("HPERSIST", "h", "FIELDS", 1, "a")
    assert rc("HEXPIRETIME", "h2", "FIELDS", 2, "a", "b") == [FAR, -1]
    rc("RENAME", "h2", "h3")
    assert rc("HEXPIRETIME", "h3", "FIELDS", 2, "a", "b") == [FAR, -1]
    rc("MOVE", "h3", 5)
    rc("SELECT", 5)
    assert rc("HEXPIRETIME", "h3", "FIELDS", 2, "a", "b") == [FAR, -1]
    assert rc("OBJECT", "ENCODING", "h3") == "listpackex"
    # The active cycle finds a renamed / moved hash under its new name.
    rc("HPEXPIRE", "h3", 10, "FIELDS", 1, "a")
    rc("RENAME", "h3", "h4")
    assert wait_until(lambda: rc("HLEN", "h4") == 1)
    rc("FLUSHDB")
    rc("SELECT", 0)


def test_dump_restore(rb):
    rc = rb.execute_command
    for enc_field in ("x", "x" * 100):
        rc("DEL", "h", "h2")
        rc("HSET", "h", "a", 1, "b", 2, "c", enc_field)
        rc("HEXPIREAT", "h", FAR, "FIELDS", 1, "a")
        rc("HPEXPIREAT", "h", FAR * 1000 + 5, "FIELDS", 1, "c")
        payload = rc("DUMP", "h")
        assert payload[-10:-8] == b"\x0c\x00"  # RDB version 12
        assert payload[0] == 24               # RDB_TYPE_HASH_METADATA
        rc("RESTORE", "h2", 0, payload)
        assert rc("HPEXPIRETIME", "h2", "FIELDS", 3, "a", "b", "c") == \
            [FAR * 1000, -1, FAR * 1000 + 5]
        assert sorted(rc("HGETALL", "h2")) == sorted(rc("HGETALL", "h"))
    rc("HSET", "plain", "a", 1)
    assert rc("DUMP", "plain")[-10:-8] == b"\x0a\x00"  # no field TTL: still version 10


def test_wrongtype_and_keyspace_ops(rc):
    rc("HSET", "h", "a", 1)
    rc("HEXPIRE", "h", 100, "FIELDS", 1, "a")
    assert rc("TYPE", "h") == "hash"
    assert rc("MEMORY", "USAGE", "h") > 0
    rc("EXPIRE", "h", 1000)
    assert rc("TTL", "h") > 0 and rc("HTTL", "h", "FIELDS", 1, "a")[0] > 0


def test_multi_exec(rc):
    rc("HSET", "h", "a", 1)
    rc("MULTI")
    rc("HEXPIRE", "h", 100, "FIELDS", 1, "a")
    rc("HTTL", "h", "FIELDS", 1, "a")
    rc("HPERSIST", "h", "FIELDS", 1, "a")
    assert rc("EXEC") == [[1], [100], [1]]


def test_watch_invalidated_by_hexpire(server, rc):
    other = server.client()
    rc("HSET", "h", "a", 1)
    rc("WATCH", "h")
    other.execute_command("HEXPIRE", "h", 100, "FIELDS", 1, "a")
    rc("MULTI")
    rc("HGET", "h", "a")
    assert rc("EXEC") is None
    other.close()


def test_resp3_replies(server, r):
    conn = server.raw()
    conn.command("HELLO", "3")
    conn.command("HSET", "h", "a", "1")
    assert conn.command("HEXPIRE", "h", "100", "FIELDS", "2", "a", "b") == [1, -2]
    assert conn.command("HGETEX", "h", "FIELDS", "2", "a", "b") == [b"1", None]
    conn.close()


# ------------------------------------------------------------------ notifications

@pytest.fixture
def nc(conns):
    c = conns.client()
    c.execute_command("FLUSHALL")
    c.execute_command("CONFIG", "SET", "notify-keyspace-events", "KEA")
    yield c
    c.execute_command("DEBUG", "SET-ACTIVE-EXPIRE", "1")
    c.execute_command("CONFIG", "SET", "notify-keyspace-events", "")


def events_of(conns, nc, commands):
    w = KeyspaceWatcher(conns)
    for c in commands:
        nc.execute_command(*c)
    return [e for db, key, e in w.events(nc)]


def test_events(conns, nc):
    nc.execute_command("HSET", "h", "a", 1, "b", 2, "c", 3, "d", 4)
    assert events_of(conns, nc, [("HEXPIRE", "h", 100, "FIELDS", 2, "a", "zz")]) == ["hexpire"]
    assert events_of(conns, nc, [("HEXPIRE", "h", 0, "FIELDS", 1, "d")]) == ["hdel"]
    assert events_of(conns, nc, [("HEXPIRE", "h", 100, "XX", "FIELDS", 1, "b")]) == []
    assert events_of(conns, nc, [("HPERSIST", "h", "FIELDS", 2, "a", "b")]) == ["hpersist"]
    assert events_of(conns, nc, [("HPERSIST", "h", "FIELDS", 1, "a")]) == []
    assert events_of(conns, nc, [("HGETEX", "h", "EX", 100, "FIELDS", 1, "a")]) == ["hexpire"]
    assert events_of(conns, nc, [("HGETEX", "h", "PERSIST", "FIELDS", 1, "a")]) == ["hpersist"]
    assert events_of(conns, nc, [("HGETEX", "h", "FIELDS", 1, "a")]) == []
    assert events_of(conns, nc, [("HGETEX", "h", "PX", 0, "FIELDS", 1, "a")]) == ["hdel"]
    assert events_of(conns, nc, [("HSETEX", "h", "EX", 100, "FIELDS", 1, "x", 1)]) == \
        ["hset", "hexpire"]
    assert events_of(conns, nc, [("HSETEX", "h", "KEEPTTL", "FIELDS", 1, "x", 1)]) == ["hset"]
    assert events_of(conns, nc, [("HSETEX", "h", "FXX", "FIELDS", 1, "zz", 1)]) == []
    assert events_of(conns, nc, [("HSETEX", "h", "PXAT", 1, "FIELDS", 1, "x", 5)]) == \
        ["hset", "hdel"]
    assert events_of(conns, nc, [("HGETDEL", "h", "FIELDS", 1, "b")]) == ["hdel"]
    assert events_of(conns, nc, [("HEXPIRE", "h", 0, "FIELDS", 1, "c")]) == ["hdel", "del"]
    nc.execute_command("HSET", "k", "a", 1, "b", 2)
    assert events_of(conns, nc, [("HGETEX", "k", "PX", 0, "FIELDS", 2, "a", "b")]) == \
        ["hdel", "del"]
    nc.execute_command("HSET", "k", "a", 1)
    assert events_of(conns, nc, [("HSETEX", "k", "PXAT", 1, "FIELDS", 1, "a", 1)]) == \
        ["hset", "hdel", "del"]


def test_expired_events(conns, nc):
    nc.execute_command("DEBUG", "SET-ACTIVE-EXPIRE", "0")
    nc.execute_command("HSET", "h", "a", 1, "b", 2)
    nc.execute_command("HPEXPIRE", "h", 1, "FIELDS", 2, "a", "b")
    time.sleep(0.01)
    assert events_of(conns, nc, [("HGET", "h", "a")]) == ["hexpired"]
    assert events_of(conns, nc, [("HGET", "h", "b")]) == ["del"]  # the last: only "del"
    nc.execute_command("DEBUG", "SET-ACTIVE-EXPIRE", "1")
    w = KeyspaceWatcher(conns)
    nc.execute_command("HSET", "k", "a", 1, "b", 2)
    nc.execute_command("HPEXPIRE", "k", 1, "FIELDS", 2, "a", "b")
    wait_until(lambda: nc.execute_command("EXISTS", "k") == 0)
    got = [e for db, key, e in w.events(nc)]
    assert got == ["hset", "hexpire", "hexpired", "del"]



def test_sort_patterns_expire_hash_fields(conns, nc):
    # Redis 8.8: SORT's and SORT_RO's BY/GET "key->field" lookups delete a field whose time
    # has passed as they read it ("hexpired"; "del" with the last field) and see it missing.
    nc.execute_command("DEBUG", "SET-ACTIVE-EXPIRE", "0")
    nc.execute_command("RPUSH", "l", 1, 2)
    nc.execute_command("HSET", "w_1", "a", 5, "n", "x")
    nc.execute_command("HSET", "w_2", "a", 3, "n", "y")
    nc.execute_command("HPEXPIRE", "w_1", 1, "FIELDS", 1, "a")
    nc.execute_command("HPEXPIRE", "w_2", 1, "FIELDS", 1, "n")
    time.sleep(0.01)
    w = KeyspaceWatcher(conns)
    # w_1->a is missing (score 0): 1 sorts before 2 (score 3).
    assert nc.execute_command("SORT", "l", "BY", "w_*->a", "GET", "w_*->n", "GET", "#") == \
        ["x", "1", None, "2"]
    assert w.events(nc) == [(0, "w_1", "hexpired"), (0, "w_2", "hexpired")]
    assert nc.execute_command("HLEN", "w_1") == 1
    assert nc.execute_command("HKEYS", "w_2") == ["a"]
    # SORT_RO too; the second lookup of the same field finds it gone (one event).
    nc.execute_command("HSET", "y_1", "a", 1, "", 2)
    nc.execute_command("HPEXPIRE", "y_1", 1, "FIELDS", 1, "a")
    time.sleep(0.01)
    w = KeyspaceWatcher(conns)
    assert nc.execute_command("SORT_RO", "l", "BY", "y_*->a", "GET", "y_*->a") == [None, None]
    assert w.events(nc) == [(0, "y_1", "hexpired")]
    assert nc.execute_command("HLEN", "y_1") == 1
    # The last field: the key goes ("del" only); STORE stores the missing value as "".
    nc.execute_command("HSET", "x_1", "a", 1)
    nc.execute_command("HPEXPIRE", "x_1", 1, "FIELDS", 1, "a")
    time.sleep(0.01)
    w = KeyspaceWatcher(conns)
    assert nc.execute_command("SORT", "l", "BY", "nosort", "GET", "x_*->a", "STORE", "d") == 2
    assert w.events(nc) == [(0, "x_1", "del"), (0, "d", "sortstore")]
    assert nc.execute_command("EXISTS", "x_1") == 0
    assert nc.execute_command("LRANGE", "d", 0, -1) == ["", ""]

# ------------------------------------------------------------------ persistence

def aof_commands(path):
    """The commands of an AOF file, as lists of str."""
    data = open(path, "rb").read()
    out, i = [], 0
    while i < len(data):
        assert data[i:i + 1] == b"*", data[i:i + 40]
        j = data.index(b"\r\n", i)
        n = int(data[i + 1:j])
        i = j + 2
        cmd = []
        for _ in range(n):
            j = data.index(b"\r\n", i)
            ln = int(data[i + 1:j])
            cmd.append(data[j + 2:j + 2 + ln].decode())
            i = j + 4 + ln
        out.append(cmd)
    return out


def incr_aof(tmp_path):
    d = os.path.join(str(tmp_path), "appendonlydir")
    return os.path.join(d, [f for f in os.listdir(d) if f.endswith(".incr.aof")][0])


@pytest.mark.hotkv_only
def test_write_stream(tmp_path):
    srv = ServerProcess(["--dir", str(tmp_path), "--appendonly", "yes",
                         "--appendfsync", "always"], tmp_path=tmp_path).start()
    try:
        c = srv.client()
        c.execute_command("HSET", "h", "a", 1, "b", 2, "c", 3, "d", 4)
        c.execute_command("HEXPIRE", "h", 100, "NX", "FIELDS", 2, "a", "zz")
        c.execute_command("HEXPIRE", "h", 100, "FIELDS", 1, "zz")
        c.execute_command("HEXPIRE", "h", 0, "FIELDS", 1, "d")
        c.execute_command("HGETEX", "h", "EX", 100, "FIELDS", 2, "b", "q")
        c.execute_command("HGETEX", "h", "PERSIST", "FIELDS", 1, "b")
        c.execute_command("HGETEX", "h", "FIELDS", 1, "b")
        c.execute_command("HSETEX", "h", "EX", 100, "FIELDS", 1, "x", 1)
        c.execute_command("HSETEX", "h", "PXAT", 1, "FIELDS", 1, "y", 1)
        c.execute_command("HGETDEL", "h", "FIELDS", 2, "x", "nope")
        c.execute_command("DEBUG", "SET-ACTIVE-EXPIRE", "0")
        c.execute_command("HPEXPIRE", "h", 1, "FIELDS", 1, "c")
        time.sleep(0.01)
        c.execute_command("HGET", "h", "c")
        c.execute_command("DEBUG", "SET-ACTIVE-EXPIRE", "1")
        c.execute_command("HSET", "k", "f", 1)
        c.execute_command("HPEXPIRE", "k", 1, "FIELDS", 1, "f")
        assert wait_until(lambda: c.execute_command("EXISTS", "k") == 0)
        before = {f: c.execute_command("HPEXPIRETIME", "h", "FIELDS", 1, f)[0]
                  for f in ("a", "b")}
        time.sleep(0.2)
        cmds = [x for x in aof_commands(incr_aof(tmp_path)) if x[0] != "SELECT"]
        names = [x[0].upper() for x in cmds]
        assert names == ["HSET", "HPEXPIREAT", "HDEL", "HPEXPIREAT", "HPERSIST", "HSETEX",
                         "HDEL", "HDEL", "HPEXPIREAT", "HDEL", "HSET", "HPEXPIREAT", "HDEL"]
        assert cmds[1][3:] == ["NX", "FIELDS", "1", "a"]
        assert cmds[2] == ["HDEL", "h", "d"]
        assert cmds[3][3:] == ["FIELDS", "2", "b", "q"]
        assert cmds[4] == ["HPERSIST", "h", "FIELDS", "1", "b"]
        assert cmds[5][2] == "PXAT" and cmds[5][4:] == ["FIELDS", "1", "x", "1"]
        assert cmds[6] == ["HDEL", "h", "y"]
        assert cmds[7] == ["HDEL", "h", "x"]
        assert cmds[9] == ["HDEL", "h", "c"]
        assert cmds[12] == ["HDEL", "k", "f"]
        # Replaying the file gives the same hash and TTLs.
        srv.stop()
        srv = ServerProcess(["--dir", str(tmp_path), "--appendonly", "yes"],
                            tmp_path=tmp_path).start()
        c = srv.client()
        assert c.hgetall("h") == {"a": "1", "b": "2"}
        assert {f: c.execute_command("HPEXPIRETIME", "h", "FIELDS", 1, f)[0]
                for f in ("a", "b")} == before
        # The rewrite keeps the TTLs (HMSET + HPEXPIREAT, or the RDB base).
        c.execute_command("BGREWRITEAOF")
        time.sleep(0.5)
        srv.stop()
        srv = ServerProcess(["--dir", str(tmp_path), "--appendonly", "yes"],
                            tmp_path=tmp_path).start()
        c = srv.client()
        assert {f: c.execute_command("HPEXPIRETIME", "h", "FIELDS", 1, f)[0]
                for f in ("a", "b")} == before
    finally:
        srv.stop()


@pytest.mark.hotkv_only
@pytest.mark.parametrize("preamble", ["yes", "no"])
def test_aof_rewrite(tmp_path, preamble):
    srv = ServerProcess(["--dir", str(tmp_path), "--appendonly", "yes",
                         "--aof-use-rdb-preamble", preamble], tmp_path=tmp_path).start()
    try:
        c = srv.client()
        c.execute_command("HSET", "h", "a", 1, "b", 2)
        c.execute_command("HEXPIREAT", "h", FAR, "FIELDS", 1, "a")
        c.execute_command("BGREWRITEAOF")
        assert wait_until(lambda: c.info("persistence")["aof_rewrite_in_progress"] == 0)
        time.sleep(0.2)
        srv.stop()
        srv = ServerProcess(["--dir", str(tmp_path), "--appendonly", "yes"],
                            tmp_path=tmp_path).start()
        c = srv.client()
        assert c.execute_command("HEXPIRETIME", "h", "FIELDS", 2, "a", "b") == [FAR, -1]
    finally:
        srv.stop()


@pytest.mark.hotkv_only
def test_rdb_save_and_load(tmp_path):
    srv = ServerProcess(["--dir", str(tmp_path)], tmp_path=tmp_path).start()
    try:
        c = srv.client()
        c.execute_command("HSET", "small", "a", 1, "b", 2)
        c.execute_command("HEXPIREAT", "small", FAR, "FIELDS", 1, "a")
        c.execute_command("HSET", "big", *[x for i in range(300) for x in (f"f{i}", i)])
        c.execute_command("HPEXPIREAT", "big", FAR * 1000 + 9, "FIELDS", 2, "f1", "f299")
        c.execute_command("SAVE")
        with open(os.path.join(str(tmp_path), "dump.rdb"), "rb") as f:
            assert f.read(9) == b"REDIS0012"
        srv.stop()
        srv = ServerProcess(["--dir", str(tmp_path)], tmp_path=tmp_path).start()
        c = srv.client()
        assert c.execute_command("HEXPIRETIME", "small", "FIELDS", 2, "a", "b") == [FAR, -1]
        assert c.object("encoding", "small") == "listpackex"
        assert c.execute_command("HPEXPIRETIME", "big", "FIELDS", 3, "f1", "f299", "f2") == \
            [FAR * 1000 + 9, FAR * 1000 + 9, -1]
        assert c.hlen("big") == 300
    finally:
        srv.stop()


REDIS88 = "/work/shared/peers/redis-8.8/redis-server"


@pytest.mark.hotkv_only
@pytest.mark.skipif(not os.path.exists(REDIS88), reason="no Redis 8.8 peer")
def test_rdb_interop_with_redis88(tmp_path):
    """HotKV's file loads in Redis 8.8 with the same field TTLs, and Redis 8.8's (listpackex
    and hashtable) loads in HotKV."""
    a, b = tmp_path / "hotkv", tmp_path / "redis"
    a.mkdir()
    b.mkdir()

    def fill(c):
        c.execute_command("HSET", "small", "a", 1, "b", 2, "c", 3)
        c.execute_command("HEXPIREAT", "small", FAR, "FIELDS", 1, "a")
        c.execute_command("HPEXPIREAT", "small", FAR * 1000 + 3, "FIELDS", 1, "c")
        c.execute_command("HSET", "big", *[x for i in range(300) for x in (f"f{i}", i)])
        c.execute_command("HPEXPIREAT", "big", FAR * 1000 + 9, "FIELDS", 2, "f1", "f299")

    def check(c):
        assert c.execute_command("HPEXPIRETIME", "small", "FIELDS", 3, "a", "b", "c") == \
            [FAR * 1000, -1, FAR * 1000 + 3]
        assert c.hgetall("small") == {"a": "1", "b": "2", "c": "3"}
        assert c.execute_command("HPEXPIRETIME", "big", "FIELDS", 3, "f1", "f299", "f2") == \
            [FAR * 1000 + 9, FAR * 1000 + 9, -1]
        assert c.hlen("big") == 300

    hk = ServerProcess(["--dir", str(a)], tmp_path=a).start()
    try:
        c = hk.client()
        fill(c)
        c.execute_command("SAVE")
    finally:
        hk.stop()
    import subprocess
    import redis
    from conftest import free_port
    port = free_port()
    rp = subprocess.Popen([REDIS88, "--port", str(port), "--dir", str(a), "--save", "",
                           "--appendonly", "no"], stdout=open(str(tmp_path / "redis.log"), "w"), stderr=subprocess.STDOUT)
    try:
        rcl = redis.Redis(port=port, decode_responses=True)
        assert wait_until(lambda: _ping(rcl))
        check(rcl)
        rcl.execute_command("DEL", "small", "big")
        fill(rcl)
        rcl.execute_command("SAVE")
        assert rcl.object("encoding", "small") == "listpackex"
        import shutil
        shutil.copy(a / "dump.rdb", b / "dump.rdb")
        payload = rcl.dump("small")
    finally:
        rp.terminate()
        rp.wait()
    hk = ServerProcess(["--dir", str(b)], tmp_path=b).start()
    try:
        c = hk.client()
        check(c)
        c.execute_command("RESTORE", "copy", 0, payload)
        assert c.execute_command("HPEXPIRETIME", "copy", "FIELDS", 2, "a", "c") == \
            [FAR * 1000, FAR * 1000 + 3]
    finally:
        hk.stop()


def _ping(c):
    try:
        return c.ping()
    except Exception:
        return False
