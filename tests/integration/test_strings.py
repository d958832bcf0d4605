"""String commands: GET/SET and their options, counters, ranges, LCS, binary safety."""
import time

import pytest

from conftest import cmd, error_reply

SYNTAX = "ERR syntax error"
NOT_INT = "ERR value is not an integer or out of range"
NOT_FLOAT = "ERR value is not a valid float"
WRONGTYPE = "WRONGTYPE Operation against a key holding the wrong kind of value"
OVERFLOW = "ERR increment or decrement would overflow"
LLONG_MAX = 2**63 - 1
LLONG_MIN = -2**63


def make_list(r, key="lst"):
    r.lpush(key, "x")
    return key


# --- GET / SET -------------------------------------------------------------------------

def test_set_and_get(r):
    assert cmd(r, "SET", "k", "v") == "OK"
    assert r.get("k") == "v"
    assert cmd(r, "SET", "k", "w") == "OK"
    assert r.get("k") == "w"
    assert r.get("missing") is None


def test_empty_key_and_empty_value(r):
    assert r.set("", "empty-key") is True
    assert r.get("") == "empty-key"
    assert r.set("e", "") is True
    assert r.get("e") == ""
    assert r.strlen("e") == 0
    assert r.exists("e") == 1


def test_command_names_are_case_insensitive(r):
    assert cmd(r, "sEt", "k", "v") == "OK"
    assert cmd(r, "get", "k") == "v"
    assert cmd(r, "GeT", "k") == "v"
    assert cmd(r, "SET", "k", "v", "nx") is None
    assert cmd(r, "SET", "k", "v2", "xX") == "OK"
    assert r.get("k") == "v2"


def test_set_overwrites_other_types(r):
    make_list(r, "k")
    assert r.set("k", "str") is True
    assert r.type("k") == "string"
    assert r.get("k") == "str"


def test_set_nx(r):
    assert cmd(r, "SET", "k", "1", "NX") == "OK"
    assert cmd(r, "SET", "k", "2", "NX") is None
    assert r.get("k") == "1"


def test_set_xx(r):
    assert cmd(r, "SET", "k", "1", "XX") is None
    assert r.exists("k") == 0
    r.set("k", "1")
    assert cmd(r, "SET", "k", "2", "XX") == "OK"
    assert r.get("k") == "2"


def test_set_get_option(r):
    assert cmd(r, "SET", "k", "1", "GET") is None
    assert r.get("k") == "1"
    assert cmd(r, "SET", "k", "2", "GET") == "1"
    assert r.get("k") == "2"


def test_set_get_on_wrong_type_fails_and_keeps_value(r):
    make_list(r, "k")
    assert error_reply(r, "SET", "k", "v", "GET") == WRONGTYPE
    assert r.type("k") == "list"
    assert r.lrange("k", 0, -1) == ["x"]


def test_set_nx_get(r):
    # Allowed since 7.0: returns the old value, and sets only when the key was missing.
    assert cmd(r, "SET", "k", "1", "NX", "GET") is None
    assert r.get("k") == "1"
    assert cmd(r, "SET", "k", "2", "NX", "GET") == "1"
    assert r.get("k") == "1"


def test_set_xx_get(r):
    assert cmd(r, "SET", "k", "1", "XX", "GET") is None
    assert r.exists("k") == 0
    r.set("k", "1")
    assert cmd(r, "SET", "k", "2", "XX", "GET") == "1"
    assert r.get("k") == "2"


def test_set_ex_and_px(r):
    assert cmd(r, "SET", "k", "v", "EX", 100) == "OK"
    assert 99 <= r.ttl("k") <= 100
    assert cmd(r, "SET", "k", "v", "PX", 100000) == "OK"
    assert 99000 <= r.pttl("k") <= 100000


def test_set_exat_and_pxat(r):
    now = int(time.time())
    assert cmd(r, "SET", "k", "v", "EXAT", now + 100) == "OK"
    assert cmd(r, "EXPIRETIME", "k") == now + 100
    assert cmd(r, "SET", "k", "v", "PXAT", now * 1000 + 100123) == "OK"
    assert cmd(r, "PEXPIRETIME", "k") == now * 1000 + 100123


def test_set_exat_in_the_past_deletes_the_key(r):
    r.set("k", "old")
    assert cmd(r, "SET", "k", "v", "EXAT", 1) == "OK"
    assert r.get("k") is None
    assert r.exists("k") == 0
    # As Redis 8: another type is deleted too; NX/XX still decide first; GET answers
    # the old value; a missing key stays missing.
    r.rpush("l", "x")
    assert cmd(r, "SET", "l", "v", "PXAT", 1) == "OK"
    assert r.exists("l") == 0
    r.set("c", "old")
    assert cmd(r, "SET", "c", "v", "NX", "EXAT", 1) is None
    assert cmd(r, "GET", "c") == "old"
    assert cmd(r, "SET", "c", "v", "XX", "EXAT", 1, "GET") == "old"
    assert r.exists("c") == 0
    assert cmd(r, "SET", "n", "v", "XX", "EXAT", 1) is None
    assert cmd(r, "SET", "n", "v", "EXAT", 1, "GET") is None
    assert r.exists("n") == 0


def test_set_clears_ttl_unless_keepttl(r):
    r.set("k", "v", ex=100)
    r.set("k", "w")
    assert r.ttl("k") == -1
    r.set("k", "v", ex=100)
    assert cmd(r, "SET", "k", "w", "KEEPTTL") == "OK"
    assert r.get("k") == "w"
    assert 99 <= r.ttl("k") <= 100


def test_set_keepttl_on_key_without_ttl(r):
    r.set("k", "v")
    assert cmd(r, "SET", "k", "w", "KEEPTTL") == "OK"
    assert r.ttl("k") == -1


@pytest.mark.parametrize("opts", [
    ["NX", "XX"],
    ["XX", "NX"],
    ["EX", "10", "PX", "100"],
    ["EX", "10", "EXAT", "2000000000"],
    ["PX", "10", "PXAT", "2000000000000"],
    ["EXAT", "2000000000", "PXAT", "2000000000000"],
    ["EX", "10", "KEEPTTL"],
    ["KEEPTTL", "PX", "10"],
    ["EX"],
    ["PX"],
    ["FOO"],
    ["PERSIST"],
    ["NX", "XX", "GET"],
])
def test_set_invalid_option_combinations(r, opts):
    assert error_reply(r, "SET", "k", "v", *opts) == SYNTAX
    assert r.exists("k") == 0


@pytest.mark.parametrize("opts", [
    ["EX", "0"], ["EX", "-1"], ["PX", "0"], ["PX", "-100"],
    ["EXAT", "0"], ["EXAT", "-5"], ["PXAT", "0"], ["PXAT", "-5"],
    # seconds that overflow when converted to milliseconds
    ["EX", "9223372036854775"],
    ["EX", str(LLONG_MAX)],
    # milliseconds that overflow when added to the current time
    ["PX", str(LLONG_MAX)],
])
def test_set_invalid_expire_time(r, opts):
    assert error_reply(r, "SET", "k", "v", *opts) == "ERR invalid expire time in 'set' command"
    assert r.exists("k") == 0


@pytest.mark.parametrize("value", ["abc", "1.5", "", "10a", "9223372036854775808"])
def test_set_expire_not_an_integer(r, value):
    assert error_reply(r, "SET", "k", "v", "EX", value) == NOT_INT
    assert error_reply(r, "SET", "k", "v", "PX", value) == NOT_INT
    assert r.exists("k") == 0


def test_set_and_get_arity(r):
    assert error_reply(r, "SET", "k") == "ERR wrong number of arguments for 'set' command"
    assert error_reply(r, "GET") == "ERR wrong number of arguments for 'get' command"
    assert error_reply(r, "GET", "a", "b") == "ERR wrong number of arguments for 'get' command"


def test_get_wrong_type(r):
    make_list(r)
    assert error_reply(r, "GET", "lst") == WRONGTYPE


# --- SETNX / SETEX / PSETEX ------------------------------------------------------------

def test_setnx(r):
    assert cmd(r, "SETNX", "k", "1") == 1
    assert cmd(r, "SETNX", "k", "2") == 0
    assert r.get("k") == "1"


def test_setnx_does_not_touch_other_types(r):
    make_list(r, "k")
    assert cmd(r, "SETNX", "k", "1") == 0
    assert r.type("k") == "list"


def test_setex_and_psetex(r):
    assert cmd(r, "SETEX", "k", 100, "v") == "OK"
    assert r.get("k") == "v"
    assert 99 <= r.ttl("k") <= 100
    assert cmd(r, "PSETEX", "p", 100000, "v") == "OK"
    assert r.get("p") == "v"
    assert 99000 <= r.pttl("p") <= 100000


@pytest.mark.parametrize("cmd", ["SETEX", "PSETEX"])
@pytest.mark.parametrize("ttl", ["0", "-1"])
def test_setex_invalid_expire(r, cmd, ttl):
    assert error_reply(r, cmd, "k", ttl, "v") == \
        f"ERR invalid expire time in '{cmd.lower()}' command"
    assert r.exists("k") == 0


def test_setex_not_integer(r):
    assert error_reply(r, "SETEX", "k", "abc", "v") == NOT_INT
    assert error_reply(r, "PSETEX", "k", "1.5", "v") == NOT_INT


# --- MGET / MSET / MSETNX --------------------------------------------------------------

def test_mget(r):
    r.set("a", "1")
    r.set("c", "3")
    make_list(r, "l")
    # missing keys and keys of another type both come back as nil
    assert r.mget("a", "b", "c", "l", "a") == ["1", None, "3", None, "1"]


def test_mget_many_keys(r):
    # More keys than one prefetch window (16), with every kind of miss among them, in
    # many shards; a key listed twice answers twice.
    keys = [f"mg:{i}" for i in range(40)]
    for i, k in enumerate(keys):
        if i % 5 == 1:
            continue  # missing
        if i % 5 == 2:
            r.rpush(k, "x")  # another type
        elif i % 5 == 3:
            r.set(k, f"v{i}", px=1)  # expires before the MGET
        else:
            r.set(k, f"v{i}" * (i + 1))
    time.sleep(0.02)
    expected = [None if i % 5 in (1, 2, 3) else f"v{i}" * (i + 1) for i in range(40)]
    hits0 = r.info("stats")["keyspace_hits"]
    misses0 = r.info("stats")["keyspace_misses"]
    assert r.mget(keys + keys[:3]) == expected + expected[:3]
    stats = r.info("stats")
    present = sum(1 for i in list(range(40)) + [0, 1, 2] if i % 5 in (0, 2, 4))
    assert stats["keyspace_hits"] - hits0 == present
    assert stats["keyspace_misses"] - misses0 == 43 - present
    assert r.exists(*[k for i, k in enumerate(keys) if i % 5 == 3]) == 0  # expired, deleted


def test_mset(r):
    assert cmd(r, "MSET", "a", "1", "b", "2") == "OK"
    assert r.mget("a", "b") == ["1", "2"]


def test_mset_same_key_last_wins(r):
    assert cmd(r, "MSET", "a", "1", "a", "2") == "OK"
    assert r.get("a") == "2"


def test_mset_clears_ttl_and_overwrites_other_types(r):
    r.set("a", "x", ex=100)
    make_list(r, "l")
    cmd(r, "MSET", "a", "1", "l", "2")
    assert r.ttl("a") == -1
    assert r.get("l") == "2"


@pytest.mark.parametrize("cmd", ["MSET", "MSETNX"])
def test_mset_wrong_number_of_args(r, cmd):
    assert error_reply(r, cmd, "a", "1", "b") == \
        f"ERR wrong number of arguments for '{cmd.lower()}' command"
    assert error_reply(r, cmd, "a") == f"ERR wrong number of arguments for '{cmd.lower()}' command"
    assert r.exists("a") == 0


def test_msetnx_all_or_nothing(r):
    assert cmd(r, "MSETNX", "a", "1", "b", "2") == 1
    assert cmd(r, "MSETNX", "b", "x", "c", "3") == 0
    assert r.mget("a", "b", "c") == ["1", "2", None]


def test_msetnx_existing_key_of_other_type(r):
    make_list(r, "l")
    assert cmd(r, "MSETNX", "a", "1", "l", "2") == 0
    assert r.exists("a") == 0


def test_msetnx_duplicate_new_key(r):
    assert cmd(r, "MSETNX", "x", "1", "x", "2") == 1
    assert r.get("x") == "2"


# --- GETSET / GETDEL / GETEX -----------------------------------------------------------

def test_getset(r):
    assert cmd(r, "GETSET", "k", "1") is None
    assert r.get("k") == "1"
    r.expire("k", 100)
    assert cmd(r, "GETSET", "k", "2") == "1"
    assert r.get("k") == "2"
    assert r.ttl("k") == -1


def test_getset_wrong_type(r):
    make_list(r, "k")
    assert error_reply(r, "GETSET", "k", "v") == WRONGTYPE
    assert r.type("k") == "list"


def test_getdel(r):
    r.set("k", "v")
    assert cmd(r, "GETDEL", "k") == "v"
    assert r.exists("k") == 0
    assert cmd(r, "GETDEL", "k") is None


def test_getdel_wrong_type(r):
    make_list(r, "k")
    assert error_reply(r, "GETDEL", "k") == WRONGTYPE
    assert r.exists("k") == 1


def test_getex_without_options_keeps_ttl(r):
    r.set("k", "v", ex=100)
    assert cmd(r, "GETEX", "k") == "v"
    assert 99 <= r.ttl("k") <= 100
    r.set("n", "v")
    assert cmd(r, "GETEX", "n") == "v"
    assert r.ttl("n") == -1


def test_getex_sets_ttl(r):
    r.set("k", "v")
    assert cmd(r, "GETEX", "k", "EX", 100) == "v"
    assert 99 <= r.ttl("k") <= 100
    assert cmd(r, "GETEX", "k", "PX", 200000) == "v"
    assert 199000 <= r.pttl("k") <= 200000
    now = int(time.time())
    assert cmd(r, "GETEX", "k", "EXAT", now + 300) == "v"
    assert cmd(r, "EXPIRETIME", "k") == now + 300
    assert cmd(r, "GETEX", "k", "PXAT", now * 1000 + 400500) == "v"
    assert cmd(r, "PEXPIRETIME", "k") == now * 1000 + 400500


def test_getex_persist(r):
    r.set("k", "v", ex=100)
    assert cmd(r, "GETEX", "k", "PERSIST") == "v"
    assert r.ttl("k") == -1


def test_getex_missing_key(r):
    assert cmd(r, "GETEX", "missing", "EX", 10) is None
    assert r.exists("missing") == 0


def test_getex_exat_in_the_past_deletes(r):
    r.set("k", "v")
    assert cmd(r, "GETEX", "k", "EXAT", 1) == "v"
    assert r.exists("k") == 0


@pytest.mark.parametrize("opts", [
    ["EX", "10", "PX", "10"], ["PERSIST", "EX", "10"], ["EX", "10", "PERSIST"],
    ["FOO"], ["EX"], ["KEEPTTL"], ["NX"],
])
def test_getex_invalid_options(r, opts):
    r.set("k", "v")
    assert error_reply(r, "GETEX", "k", *opts) == SYNTAX


@pytest.mark.parametrize("opts", [["EX", "0"], ["PX", "-1"], ["EXAT", "0"], ["PXAT", "-1"],
                                  ["EX", str(LLONG_MAX)]])
def test_getex_invalid_expire(r, opts):
    r.set("k", "v")
    assert error_reply(r, "GETEX", "k", *opts) == "ERR invalid expire time in 'getex' command"
    assert r.ttl("k") == -1


def test_getex_wrong_type(r):
    make_list(r, "k")
    assert error_reply(r, "GETEX", "k", "EX", "10") == WRONGTYPE
    assert r.ttl("k") == -1


@pytest.mark.parametrize("opts", [["EX", "0"], ["PX", "-1"], ["EX", "x"],
                                  ["EX", "9223372036854775"], ["PXAT", "0"]])
def test_getex_checks_the_key_before_the_expire(r, opts):
    # Redis looks the key up first: a missing key is nil, another type WRONGTYPE,
    # whatever the expire's value.
    assert cmd(r, "GETEX", "missing", *opts) is None
    make_list(r, "k")
    assert error_reply(r, "GETEX", "k", *opts) == WRONGTYPE


# --- APPEND / STRLEN -------------------------------------------------------------------

def test_append(r):
    assert r.append("k", "Hello") == 5
    assert r.append("k", " World") == 11
    assert r.get("k") == "Hello World"
    assert r.append("k", "") == 11


def test_append_to_integer_value(r):
    r.set("n", 12)
    assert r.append("n", "34") == 4
    assert r.get("n") == "1234"
    assert r.incr("n") == 1235


def test_append_keeps_ttl(r):
    r.set("k", "a", ex=100)
    r.append("k", "b")
    assert 99 <= r.ttl("k") <= 100


def test_append_wrong_type(r):
    make_list(r, "k")
    assert error_reply(r, "APPEND", "k", "x") == WRONGTYPE


def test_strlen(r):
    assert r.strlen("missing") == 0
    r.set("k", "hello")
    assert r.strlen("k") == 5
    r.set("n", -12345)
    assert r.strlen("n") == 6
    r.set("u", "é")
    assert r.strlen("u") == 2  # bytes, not characters


def test_strlen_wrong_type(r):
    make_list(r, "k")
    assert error_reply(r, "STRLEN", "k") == WRONGTYPE


# --- INCR / DECR family ----------------------------------------------------------------

def test_incr_decr(r):
    assert cmd(r, "INCR", "n") == 1
    assert cmd(r, "INCR", "n") == 2
    assert cmd(r, "DECR", "n") == 1
    assert cmd(r, "DECR", "m") == -1
    assert cmd(r, "INCRBY", "n", 10) == 11
    assert cmd(r, "INCRBY", "n", -20) == -9
    assert cmd(r, "DECRBY", "n", 5) == -14
    assert cmd(r, "DECRBY", "n", -14) == 0
    assert r.get("n") == "0"


def test_incr_on_string_holding_integer(r):
    r.set("n", "41")
    assert r.incr("n") == 42
    r.set("n", "-100")
    assert r.incrby("n", 1) == -99


def test_incr_keeps_ttl(r):
    r.set("n", "10", ex=100)
    assert r.incr("n") == 11
    assert 99 <= r.ttl("n") <= 100


@pytest.mark.parametrize("value", ["abc", "1.5", "", " 1", "1 ", "+1", "0x10", "1e3",
                                   "12345678901234567890", "9223372036854775808",
                                   "-9223372036854775809"])
def test_incr_on_non_integer_value(r, value):
    r.set("n", value)
    assert error_reply(r, "INCR", "n") == NOT_INT
    assert error_reply(r, "DECRBY", "n", "1") == NOT_INT
    assert r.get("n") == value


@pytest.mark.parametrize("incr", ["abc", "1.5", "", "9223372036854775808"])
def test_incrby_non_integer_increment(r, incr):
    r.set("n", "1")
    assert error_reply(r, "INCRBY", "n", incr) == NOT_INT
    assert error_reply(r, "DECRBY", "n", incr) == NOT_INT
    assert r.get("n") == "1"


def test_incr_overflow(r):
    r.set("n", LLONG_MAX)
    assert error_reply(r, "INCR", "n") == OVERFLOW
    assert error_reply(r, "INCRBY", "n", "1") == OVERFLOW
    assert error_reply(r, "DECRBY", "n", "-1") == OVERFLOW
    assert r.get("n") == str(LLONG_MAX)
    r.set("n", LLONG_MIN)
    assert error_reply(r, "DECR", "n") == OVERFLOW
    assert error_reply(r, "INCRBY", "n", "-1") == OVERFLOW
    assert r.get("n") == str(LLONG_MIN)
    assert r.incrby("n", LLONG_MAX) == -1


def test_incrby_to_the_limits(r):
    r.set("n", "0")
    assert r.incrby("n", LLONG_MAX) == LLONG_MAX
    assert r.decrby("n", LLONG_MAX) == 0
    assert r.incrby("n", LLONG_MIN) == LLONG_MIN


def test_decrby_llong_min(r):
    # -LLONG_MIN cannot be represented, so DECRBY refuses it even on a missing key
    assert error_reply(r, "DECRBY", "n", str(LLONG_MIN)) == "ERR decrement would overflow"
    assert r.exists("n") == 0


def test_incr_wrong_type(r):
    make_list(r, "k")
    for args in (["INCR", "k"], ["DECR", "k"], ["INCRBY", "k", "1"], ["DECRBY", "k", "1"],
                 ["INCRBYFLOAT", "k", "1"]):
        assert error_reply(r, *args) == WRONGTYPE


def test_incr_arity(r):
    assert error_reply(r, "INCR") == "ERR wrong number of arguments for 'incr' command"
    assert error_reply(r, "INCRBY", "n") == "ERR wrong number of arguments for 'incrby' command"


# --- INCRBYFLOAT -----------------------------------------------------------------------

def test_incrbyfloat_doc_examples(r):
    r.set("k", "10.50")
    assert cmd(r, "INCRBYFLOAT", "k", "0.1") == "10.6"
    assert cmd(r, "INCRBYFLOAT", "k", "-5") == "5.6"
    r.set("k", "5.0e3")
    assert cmd(r, "INCRBYFLOAT", "k", "2.0e2") == "5200"
    assert r.get("k") == "5200"


@pytest.mark.parametrize("start,incr,result", [
    (None, "1.5", "1.5"),
    (None, "10", "10"),
    ("1", "1.5", "2.5"),
    ("1.5", "-1.5", "0"),
    ("10", "1.0", "11"),
    (None, "1e-5", "0.00001"),
    (None, "1e20", "100000000000000000000"),
    ("5.0e3", "0", "5000"),
    ("3.0000000000000000001", "0", "3"),
    ("0.1", "0.2", "0.3"),
    ("-3.5", "1", "-2.5"),
])
def test_incrbyfloat_values_and_formatting(r, start, incr, result):
    if start is not None:
        r.set("k", start)
    assert cmd(r, "INCRBYFLOAT", "k", incr) == result
    assert r.get("k") == result


@pytest.mark.parametrize("incr", ["abc", "", " 1", "1 ", "1.5.5", "nan", "1,5"])
def test_incrbyfloat_invalid_increment(r, incr):
    r.set("k", "1")
    assert error_reply(r, "INCRBYFLOAT", "k", incr) == NOT_FLOAT
    assert r.get("k") == "1"


@pytest.mark.parametrize("value", ["abc", "nan", "1.5x", ""])
def test_incrbyfloat_invalid_value(r, value):
    r.set("k", value)
    assert error_reply(r, "INCRBYFLOAT", "k", "1") == NOT_FLOAT


def test_incrbyfloat_checks_the_key_before_the_increment(r):
    make_list(r, "k")
    assert error_reply(r, "INCRBYFLOAT", "k", "x") == WRONGTYPE
    assert error_reply(r, "INCRBYFLOAT", "k", "nan") == WRONGTYPE


@pytest.mark.parametrize("start,incr", [(None, "inf"), (None, "-inf"), ("inf", "1"),
                                        ("1", "+inf")])
def test_incrbyfloat_infinity(r, start, incr):
    if start is not None:
        r.set("k", start)
    assert error_reply(r, "INCRBYFLOAT", "k", incr) == \
        "ERR increment would produce NaN or Infinity"
    assert r.get("k") == start


def test_incrbyfloat_keeps_ttl(r):
    r.set("k", "1", ex=100)
    assert cmd(r, "INCRBYFLOAT", "k", "0.5") == "1.5"
    assert 99 <= r.ttl("k") <= 100


def test_incr_after_incrbyfloat_with_integer_result(r):
    r.set("k", "1.5")
    assert cmd(r, "INCRBYFLOAT", "k", "0.5") == "2"
    assert r.incr("k") == 3


def test_incr_on_float_value_fails(r):
    cmd(r, "INCRBYFLOAT", "k", "1.25")
    assert error_reply(r, "INCR", "k") == NOT_INT


# --- GETRANGE / SETRANGE ---------------------------------------------------------------

@pytest.mark.parametrize("start,end,result", [
    (0, 3, "This"),
    (-3, -1, "ing"),
    (0, -1, "This is a string"),
    (10, 100, "string"),
    (5, 3, ""),
    (-1, -5, ""),
    (100, 200, ""),
    (-100, 3, "This"),
    (-100, -100, "T"),   # both clamp to 0 (documented clamping; Redis 8.0's change was reverted)
    (0, -100, "T"),
    (0, 0, "T"),
    (15, 15, "g"),
    (16, 16, ""),
])
def test_getrange(r, start, end, result):
    r.set("k", "This is a string")
    assert r.getrange("k", start, end) == result


def test_getrange_missing_key_and_empty_value(r):
    assert r.getrange("missing", 0, -1) == ""
    r.set("e", "")
    assert r.getrange("e", 0, -1) == ""
    assert r.getrange("e", -1, -1) == ""


def test_getrange_integer_value(r):
    r.set("n", 123456)
    assert r.getrange("n", 1, 2) == "23"
    assert r.getrange("n", -2, -1) == "56"


def test_getrange_errors(r):
    r.set("k", "abc")
    assert error_reply(r, "GETRANGE", "k", "a", "1") == NOT_INT
    assert error_reply(r, "GETRANGE", "k", "0", "1.5") == NOT_INT
    make_list(r, "l")
    assert error_reply(r, "GETRANGE", "l", "0", "1") == WRONGTYPE
    assert error_reply(r, "GETRANGE", "k", "0") == \
        "ERR wrong number of arguments for 'getrange' command"


def test_setrange(r):
    r.set("k", "Hello World")
    assert r.setrange("k", 6, "Redis") == 11
    assert r.get("k") == "Hello Redis"
    assert r.setrange("k", 11, "!!") == 13
    assert r.get("k") == "Hello Redis!!"


def test_setrange_pads_with_zero_bytes(rb):
    assert rb.setrange("k", 5, "ab") == 7
    assert rb.get("k") == b"\x00\x00\x00\x00\x00ab"
    rb.set("s", "xy")
    assert rb.setrange("s", 4, "z") == 5
    assert rb.get("s") == b"xy\x00\x00z"


def test_setrange_on_integer_value(r):
    r.set("n", 1234)
    assert r.setrange("n", 1, "9") == 4
    assert r.get("n") == "1934"
    assert r.incr("n") == 1935


def test_setrange_empty_value(r):
    assert r.setrange("missing", 0, "") == 0
    assert r.setrange("missing", 100, "") == 0
    assert r.exists("missing") == 0
    r.set("k", "abc")
    assert r.setrange("k", 10, "") == 3
    assert r.get("k") == "abc"


def test_setrange_keeps_ttl(r):
    r.set("k", "abc", ex=100)
    r.setrange("k", 1, "X")
    assert r.get("k") == "aXc"
    assert 99 <= r.ttl("k") <= 100


def test_setrange_errors(r):
    assert error_reply(r, "SETRANGE", "k", "-1", "a") == "ERR offset is out of range"
    assert error_reply(r, "SETRANGE", "k", "-1", "") == "ERR offset is out of range"
    assert error_reply(r, "SETRANGE", "k", "abc", "a") == NOT_INT
    # offset + length beyond proto-max-bulk-len (512MB by default)
    assert error_reply(r, "SETRANGE", "k", str(512 * 1024 * 1024), "a") == \
        "ERR string exceeds maximum allowed size (proto-max-bulk-len)"
    # offsets where offset + length overflows 64 bits (this once crashed the server)
    for offset in (LLONG_MAX, LLONG_MAX - 1, 2**62):
        assert error_reply(r, "SETRANGE", "k", str(offset), "abc") == \
            "ERR string exceeds maximum allowed size (proto-max-bulk-len)"
    assert r.exists("k") == 0
    assert r.ping()
    make_list(r, "l")
    assert error_reply(r, "SETRANGE", "l", "0", "a") == WRONGTYPE


def test_string_size_limit_follows_proto_max_bulk_len(start_server):
    srv = start_server(args=["--proto-max-bulk-len", "1mb"])
    c = srv.client()
    limit = 1024 * 1024
    big = "ERR string exceeds maximum allowed size (proto-max-bulk-len)"
    assert error_reply(c, "SETRANGE", "k", str(limit), "a") == big
    assert c.exists("k") == 0
    assert c.setrange("k", limit - 1, "a") == limit
    assert error_reply(c, "APPEND", "k", "b") == big
    assert error_reply(c, "SETRANGE", "k", str(limit - 1), "ab") == big
    assert c.strlen("k") == limit
    c.close()


# --- LCS -------------------------------------------------------------------------------

def test_lcs(r):
    r.mset({"key1": "ohmytext", "key2": "mynewtext"})
    assert cmd(r, "LCS", "key1", "key2") == "mytext"
    assert cmd(r, "LCS", "key1", "key2", "LEN") == 6


def test_lcs_idx(r):
    r.mset({"key1": "ohmytext", "key2": "mynewtext"})
    assert cmd(r, "LCS", "key1", "key2", "IDX") == \
        ["matches", [[[4, 7], [5, 8]], [[2, 3], [0, 1]]], "len", 6]
    assert cmd(r, "LCS", "key1", "key2", "IDX", "MINMATCHLEN", 4,
                             "WITHMATCHLEN") == ["matches", [[[4, 7], [5, 8], 4]], "len", 6]
    assert cmd(r, "LCS", "key1", "key2", "IDX", "WITHMATCHLEN") == \
        ["matches", [[[4, 7], [5, 8], 4], [[2, 3], [0, 1], 2]], "len", 6]


def test_lcs_missing_keys_are_empty_strings(r):
    r.set("a", "hello")
    assert cmd(r, "LCS", "a", "missing") == ""
    assert cmd(r, "LCS", "missing", "a", "LEN") == 0
    assert cmd(r, "LCS", "a", "missing", "IDX") == ["matches", [], "len", 0]


def test_lcs_identical_strings(r):
    r.mset({"a": "abcdef", "b": "abcdef"})
    assert cmd(r, "LCS", "a", "b") == "abcdef"
    assert cmd(r, "LCS", "a", "b", "IDX", "WITHMATCHLEN") == \
        ["matches", [[[0, 5], [0, 5], 6]], "len", 6]


def test_lcs_errors(r):
    r.mset({"a": "abc", "b": "bcd"})
    assert error_reply(r, "LCS", "a", "b", "LEN", "IDX") == \
        "ERR If you want both the length and indexes, please just use IDX."
    assert error_reply(r, "LCS", "a", "b", "FOO") == SYNTAX
    assert error_reply(r, "LCS", "a", "b", "IDX", "MINMATCHLEN", "x") == NOT_INT
    assert error_reply(r, "LCS", "a", "b", "IDX", "MINMATCHLEN") == SYNTAX
    make_list(r, "l")
    assert error_reply(r, "LCS", "a", "l") == "ERR The specified keys must contain string values"


# --- WRONGTYPE across the family -------------------------------------------------------

@pytest.mark.parametrize("args", [
    ["GET", "l"], ["GETSET", "l", "v"], ["GETDEL", "l"], ["GETEX", "l"], ["APPEND", "l", "v"],
    ["STRLEN", "l"], ["INCR", "l"], ["DECR", "l"], ["INCRBY", "l", "1"],
    ["DECRBY", "l", "1"], ["INCRBYFLOAT", "l", "1"], ["GETRANGE", "l", "0", "1"],
    ["SETRANGE", "l", "0", "v"], ["SET", "l", "v", "GET"],
])
def test_wrongtype_leaves_key_unchanged(r, args):
    make_list(r, "l")
    assert error_reply(r, *args) == WRONGTYPE
    assert r.type("l") == "list"
    assert r.lrange("l", 0, -1) == ["x"]


# --- binary safety ---------------------------------------------------------------------

BINARY = b"a\x00b\r\nc\xff\xfe\n$3\r\n*1\r\n-ERR\r\n"


def test_binary_values(rb):
    assert rb.set("k", BINARY) is True
    assert rb.get("k") == BINARY
    assert rb.strlen("k") == len(BINARY)
    assert rb.getrange("k", 1, 4) == b"\x00b\r\n"
    assert rb.append("k", b"\x00\r\n") == len(BINARY) + 3
    assert rb.get("k") == BINARY + b"\x00\r\n"


def test_binary_keys(rb):
    keys = [b"k\x00", b"k\r\nx", b"k\x00x", b"\xff\x00"]
    for i, k in enumerate(keys):
        rb.set(k, i)
    assert rb.mget(keys) == [b"0", b"1", b"2", b"3"]
    assert rb.get(b"k") is None
    assert sorted(rb.keys("*")) == sorted(keys)
    assert rb.getdel(b"k\x00") == b"0"
    assert rb.exists(b"k\x00") == 0


def test_binary_mset_and_lcs(rb):
    rb.mset({b"a\x00": b"x\x00y\r\nz", b"b\x00": b"\x00\r\n"})
    assert rb.mget([b"a\x00", b"b\x00"]) == [b"x\x00y\r\nz", b"\x00\r\n"]
    assert cmd(rb, "LCS", b"a\x00", b"b\x00") == b"\x00\r\n"


def test_large_value_roundtrip(rb):
    value = bytes(range(256)) * 4096  # 1 MiB
    assert rb.set("big", value) is True
    assert rb.get("big") == value
    assert rb.strlen("big") == len(value)
    assert rb.getrange("big", -256, -1) == bytes(range(256))
