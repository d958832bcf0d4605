"""Redis 8.4's string and key additions: SET IFEQ/IFNE/IFDEQ/IFDNE, DIGEST, DELEX and
MSETEX — replies, option parsing and errors as Redis 8.8 gives them (each checked by hand
against Redis 8.8), and their keyspace events."""
import pytest

from conftest import cmd, error_reply
from helpers_pubsub import KeyspaceWatcher, conns, ps_server, set_events  # noqa: F401

pytestmark = pytest.mark.redis8

SYNTAX = "ERR syntax error"
NOT_INT = "ERR value is not an integer or out of range"
WRONGTYPE = "WRONGTYPE Operation against a key holding the wrong kind of value"
DIGEST_LEN = "ERR must be exactly 16 hexadecimal characters"

# XXH3-64 of the values, as Redis 8.8's DIGEST prints them.
D_HELLO = "9555e8555c62dcfd"
D_S1600 = "000c86f38b43b46a"   # leading zeros are kept


# --- DIGEST ----------------------------------------------------------------------------

def test_digest(r):
    r.set("k", "hello")
    assert cmd(r, "DIGEST", "k") == D_HELLO
    r.set("n", 12345)                          # an "int" encoded value hashes its text
    assert cmd(r, "DIGEST", "n") == "f34099ede96b5581"
    r.set("e", "")
    assert cmd(r, "DIGEST", "e") == "2d06800538d394c2"
    r.set("z", "s1600")
    assert cmd(r, "DIGEST", "z") == D_S1600
    assert cmd(r, "DIGEST", "missing") is None
    r.lpush("l", "a")
    assert error_reply(r, "DIGEST", "l") == WRONGTYPE
    assert error_reply(r, "DIGEST", "k", "x") == "ERR wrong number of arguments for 'digest' command"


def test_digest_of_long_and_binary_values(rb):
    # Lengths on both sides of XXH3's 16/128/240-byte boundaries, as Redis 8.8 hashes them.
    expected = {1: "c44bdff4074eecdb", 17: "9ef341a99de37328", 129: "ec7642b431ba3e5a",
                241: "02e8cd95421c6d02", 5000: "b418500fc42320ee"}
    for n, digest in expected.items():
        rb.set(f"v{n}", bytes(i % 251 for i in range(n)))
        assert cmd(rb, "DIGEST", f"v{n}") == digest.encode()


# --- SET IFEQ / IFNE / IFDEQ / IFDNE ------------------------------------------------------

def test_set_ifeq_ifne(r):
    r.set("k", "hello")
    assert cmd(r, "SET", "k", "world", "IFEQ", "hello") == "OK"
    assert cmd(r, "SET", "k", "x", "IFEQ", "hello") is None
    assert r.get("k") == "world"
    assert cmd(r, "SET", "k", "x", "ifne", "world") is None
    assert cmd(r, "SET", "k", "x", "IFNE", "hello") == "OK"
    assert r.get("k") == "x"
    # A missing key: IFEQ never matches, IFNE always does.
    assert cmd(r, "SET", "m", "v", "IFEQ", "v") is None
    assert r.exists("m") == 0
    assert cmd(r, "SET", "m", "v", "IFNE", "v") == "OK"
    assert r.get("m") == "v"


def test_set_ifdeq_ifdne(r):
    r.set("k", "hello")
    assert cmd(r, "SET", "k", "v", "IFDEQ", "0000000000000000") is None
    assert cmd(r, "SET", "k", "v", "IFDEQ", D_HELLO.upper()) == "OK"   # any case
    r.set("k", "hello")
    assert cmd(r, "SET", "k", "v", "IFDNE", D_HELLO) is None
    assert cmd(r, "SET", "k", "v", "IFDNE", "zzzzzzzzzzzzzzzz") == "OK"  # only the length is checked
    assert r.get("k") == "v"
    r.set("z", "s1600")
    assert cmd(r, "SET", "z", "w", "IFDEQ", D_S1600) == "OK"
    for bad in ("", "123", "0x12", D_HELLO + "0", "0" + D_HELLO, "-1"):
        assert error_reply(r, "SET", "z", "v", "IFDEQ", bad) == DIGEST_LEN
        assert error_reply(r, "SET", "z", "v", "IFDNE", bad) == DIGEST_LEN
    # On a missing key the digest is not looked at.
    assert cmd(r, "SET", "m", "v", "IFDEQ", "zz") is None
    assert cmd(r, "SET", "m", "v", "IFDNE", "zz") == "OK"


def test_set_conditions_with_other_options(r):
    r.set("k", "a")
    assert cmd(r, "SET", "k", "b", "IFEQ", "a", "GET") == "a"
    assert cmd(r, "SET", "k", "c", "IFEQ", "x", "GET") == "b"      # failed: old value all the same
    assert r.get("k") == "b"
    assert cmd(r, "SET", "missing", "v", "GET", "IFEQ", "x") is None
    assert cmd(r, "SET", "k", "c", "IFEQ", "b", "EX", 100) == "OK"
    assert r.ttl("k") == 100
    assert cmd(r, "SET", "k", "d", "IFEQ", "c", "KEEPTTL") == "OK"
    assert r.ttl("k") == 100
    assert cmd(r, "SET", "k", "e", "IFEQ", "d") == "OK"
    assert r.ttl("k") == -1
    assert cmd(r, "SET", "k", "f", "IFEQ", "x", "EX", 100) is None
    assert r.ttl("k") == -1
    # The expiry is checked first.
    assert error_reply(r, "SET", "k", "v", "IFEQ", "x", "PX", 0) == (
        "ERR invalid expire time in 'set' command")
    assert error_reply(r, "SET", "k", "v", "IFEQ", "x", "EX", "abc") == NOT_INT
    # A condition after NX/XX is a syntax error; NX/XX after a condition are taken.
    assert error_reply(r, "SET", "k", "v", "NX", "IFEQ", "e") == SYNTAX
    assert error_reply(r, "SET", "k", "v", "XX", "IFEQ", "e") == SYNTAX
    assert cmd(r, "SET", "k", "v", "IFEQ", "e", "NX") is None        # NX: the key exists
    assert cmd(r, "SET", "k", "v", "IFEQ", "e", "XX") == "OK"
    assert cmd(r, "SET", "missing", "v", "IFNE", "x", "XX") is None
    # Two kinds of condition are a syntax error; the same one may repeat (last counts).
    assert error_reply(r, "SET", "k", "v", "IFEQ", "a", "IFNE", "b") == SYNTAX
    assert error_reply(r, "SET", "k", "v", "IFDEQ", "a", "IFDNE", "b") == SYNTAX
    assert error_reply(r, "SET", "k", "v", "IFEQ", "a", "IFDEQ", "b") == SYNTAX
    assert cmd(r, "SET", "k", "w", "IFEQ", "v", "IFEQ", "zz") is None
    assert cmd(r, "SET", "k", "w", "IFEQ", "zz", "IFEQ", "v") == "OK"
    assert error_reply(r, "SET", "k", "v", "IFEQ") == SYNTAX


def test_set_conditions_wrongtype(r):
    r.lpush("l", "a")
    for cond, arg in (("IFEQ", "a"), ("IFNE", "a"), ("IFDEQ", "zz"), ("IFDNE", "zz")):
        assert error_reply(r, "SET", "l", "v", cond, arg) == WRONGTYPE
    assert error_reply(r, "SET", "l", "v", "GET", "IFEQ", "x") == WRONGTYPE
    assert r.type("l") == "list"
    assert cmd(r, "SET", "l", "v", "IFEQ", "a", "NX") is None        # NX wins first


def test_set_repeated_expiry_options_as_redis(r):
    assert cmd(r, "SET", "k", "v", "EX", 10, "EX", 20) == "OK"
    assert r.ttl("k") == 20
    assert cmd(r, "SET", "k", "v", "PX", 10000, "PX", 30000) == "OK"
    assert 20 < r.ttl("k") <= 30
    assert cmd(r, "SET", "k", "v", "KEEPTTL", "KEEPTTL") == "OK"
    assert cmd(r, "SET", "k", "v", "NX", "NX") is None
    assert error_reply(r, "SET", "k", "v", "EX", 10, "PX", 10) == SYNTAX
    assert error_reply(r, "SET", "k", "v", "KEEPTTL", "EX", 10) == SYNTAX
    # GETEX alike.
    assert cmd(r, "GETEX", "k", "EX", 10, "EX", 40) == "v"
    assert r.ttl("k") == 40
    assert cmd(r, "GETEX", "k", "PERSIST", "PERSIST") == "v"
    assert r.ttl("k") == -1
    for args in (("EX", 10, "PERSIST"), ("PERSIST", "EX", 10), ("PX", 10, "EXAT", 5),
                 ("KEEPTTL",), ("EX",)):
        assert error_reply(r, "GETEX", "k", *args) == SYNTAX


# --- DELEX -----------------------------------------------------------------------------

def test_delex_without_condition_is_del(r):
    r.set("k", "v")
    assert cmd(r, "DELEX", "k") == 1
    assert cmd(r, "DELEX", "k") == 0
    r.lpush("l", "a")
    assert cmd(r, "DELEX", "l") == 1
    assert r.exists("l") == 0


def test_delex_conditions(r):
    r.set("k", "hello")
    assert cmd(r, "DELEX", "k", "IFEQ", "x") == 0
    assert cmd(r, "DELEX", "k", "ifeq", "hello") == 1
    r.set("k", "hello")
    assert cmd(r, "DELEX", "k", "IFNE", "hello") == 0
    assert cmd(r, "DELEX", "k", "IFNE", "x") == 1
    r.set("k", "hello")
    assert cmd(r, "DELEX", "k", "IFDEQ", "0000000000000000") == 0
    assert cmd(r, "DELEX", "k", "IFDEQ", D_HELLO.upper()) == 1
    r.set("k", "hello")
    assert cmd(r, "DELEX", "k", "IFDNE", D_HELLO) == 0
    assert cmd(r, "DELEX", "k", "IFDNE", "zzzzzzzzzzzzzzzz") == 1
    assert r.exists("k") == 0


def test_delex_errors_and_their_order(r):
    # A missing key answers 0 before anything is checked.
    assert cmd(r, "DELEX", "missing", "IFEQ", "x") == 0
    assert cmd(r, "DELEX", "missing", "FOO", "x") == 0
    assert cmd(r, "DELEX", "missing", "IFDEQ", "zz") == 0
    r.lpush("l", "a")
    not_string = "ERR Key should be of string type if conditions are specified"
    assert error_reply(r, "DELEX", "l", "IFEQ", "a") == not_string
    assert error_reply(r, "DELEX", "l", "FOO", "a") == not_string
    r.set("k", "hello")
    assert error_reply(r, "DELEX", "k", "FOO", "a") == (
        "ERR Invalid condition. Use IFEQ, IFNE, IFDEQ, or IFDNE")
    assert error_reply(r, "DELEX", "k", "IFDEQ", "zz") == DIGEST_LEN
    arity = "ERR wrong number of arguments for 'delex' command"
    for args in (("k", "IFEQ"), ("k", "IFEQ", "a", "b"), ("k", "a"), ("k", "IFEQ", "a", "IFEQ", "b")):
        assert error_reply(r, "DELEX", *args) == arity
    assert error_reply(r, "DELEX") == arity
    assert r.get("k") == "hello"


# --- MSETEX ----------------------------------------------------------------------------

def test_msetex_sets_and_expires(r):
    assert cmd(r, "MSETEX", 2, "a", "1", "b", "2") == 1
    assert r.mget("a", "b") == ["1", "2"]
    assert r.ttl("a") == -1
    assert cmd(r, "MSETEX", 2, "a", "1", "b", "2", "EX", 100) == 1
    assert r.ttl("a") == 100 and r.ttl("b") == 100
    assert cmd(r, "MSETEX", 1, "a", "7", "KEEPTTL") == 1
    assert r.get("a") == "7" and r.ttl("a") == 100
    assert cmd(r, "MSETEX", 1, "a", "8") == 1
    assert r.ttl("a") == -1
    assert cmd(r, "MSETEX", 1, "p", "x", "PX", 50000) == 1
    assert 49 <= r.ttl("p") <= 50
    assert cmd(r, "MSETEX", 1, "p", "x", "EXAT", 4000000000) == 1
    assert r.expiretime("p") == 4000000000
    assert cmd(r, "MSETEX", 1, "p", "x", "PXAT", 4000000000123) == 1
    assert r.pexpiretime("p") == 4000000000123
    assert cmd(r, "MSETEX", 1, "gone", "x", "EXAT", 1) == 1        # in the past: expired
    assert r.exists("gone") == 0
    r.lpush("l", "a")
    assert cmd(r, "MSETEX", 1, "l", "1") == 1                      # replaces any type
    assert r.type("l") == "string"
    assert cmd(r, "MSETEX", 2, "d", "1", "d", "2") == 1
    assert r.get("d") == "2"


def test_msetex_nx_xx_are_all_or_nothing(r):
    r.set("c", "3")
    assert cmd(r, "MSETEX", 2, "c", "x", "new", "y", "NX") == 0
    assert r.get("c") == "3" and r.exists("new") == 0
    assert cmd(r, "MSETEX", 1, "new", "y", "NX", "EX", 10) == 1
    assert r.ttl("new") == 10
    assert cmd(r, "MSETEX", 2, "c", "x", "none", "y", "XX") == 0
    assert r.get("c") == "3"
    assert cmd(r, "MSETEX", 2, "c", "x", "new", "z", "XX", "PX", 5000) == 1
    assert r.mget("c", "new") == ["x", "z"]
    # Options may come in any order and repeat, as SET's.
    assert cmd(r, "MSETEX", 1, "c", "y", "EX", 10, "XX", "EX", 20, "XX") == 1
    assert r.ttl("c") == 20


def test_msetex_errors(r):
    for n in ("0", "-1", "x", "1.5", "2147483648", "1000000000000"):
        assert error_reply(r, "MSETEX", n, "a", "1") == "ERR invalid numkeys value"
    pairs = "ERR wrong number of key-value pairs"
    assert error_reply(r, "MSETEX", 2, "a", "1") == pairs
    assert error_reply(r, "MSETEX", 3, "a", "1", "b", "2") == pairs
    assert error_reply(r, "MSETEX", 2147483647, "a", "1") == pairs
    assert error_reply(r, "MSETEX", 1, "a", "1", "b", "2") == SYNTAX
    assert error_reply(r, "MSETEX", 1, "a", "1", "NX", "XX") == SYNTAX
    assert error_reply(r, "MSETEX", 1, "a", "1", "EX", 10, "PX", 10) == SYNTAX
    assert error_reply(r, "MSETEX", 1, "a", "1", "KEEPTTL", "EX", 10) == SYNTAX
    assert error_reply(r, "MSETEX", 1, "a", "1", "EX") == SYNTAX
    assert error_reply(r, "MSETEX", 1, "a", "1", "GET") == SYNTAX
    assert error_reply(r, "MSETEX", 1, "a", "1", "IFEQ", "1") == SYNTAX
    assert error_reply(r, "MSETEX", 1, "a", "1", "EX", 0) == "ERR invalid expire time in 'msetex' command"
    assert error_reply(r, "MSETEX", 1, "a", "1", "EX", -5) == "ERR invalid expire time in 'msetex' command"
    assert error_reply(r, "MSETEX", 1, "a", "1", "EX", "abc") == NOT_INT
    assert error_reply(r, "MSETEX", 1, "a") == "ERR wrong number of arguments for 'msetex' command"
    assert r.exists("a") == 0


def test_msetex_command_getkeys(r):
    assert cmd(r, "COMMAND", "GETKEYS", "MSETEX", 2, "a", "1", "b", "2", "EX", 5) == ["a", "b"]
    assert cmd(r, "COMMAND", "GETKEYS", "MSETEX", 1, "a", "1") == ["a"]


# --- events ----------------------------------------------------------------------------

def test_events(conns):
    c = conns.client()
    c.execute_command("FLUSHALL")
    set_events(c, "KEA")
    try:
        w = KeyspaceWatcher(conns)
        for command in [("SET", "k", "v"), ("DELEX", "k", "IFEQ", "x"), ("DELEX", "k", "IFEQ", "v"),
                        ("SET", "k", "v"), ("DELEX", "k"),
                        ("MSETEX", 2, "m1", "a", "m2", "b", "EX", 100),
                        ("MSETEX", 1, "m1", "a", "KEEPTTL"),
                        ("SET", "k", "v", "IFEQ", "x"), ("SET", "k", "w", "IFNE", "x"),
                        ("DIGEST", "k")]:
            c.execute_command(*command)
        assert [e[1:] for e in w.events(c)] == [
            ("k", "set"), ("k", "del"), ("k", "set"), ("k", "del"),
            ("m1", "expire"), ("m1", "set"), ("m2", "expire"), ("m2", "set"),
            ("m1", "set"), ("k", "set")]
    finally:
        set_events(c, "")


# --- the AOF replays them ------------------------------------------------------------------

@pytest.mark.hotkv_only
def test_aof_replays_bit_and_conditional_writes(tmp_path):
    import os
    from conftest import ServerProcess

    def start():
        return ServerProcess(["--dir", str(tmp_path), "--appendonly", "yes", "--appendfsync",
                              "always"], tmp_path=tmp_path).start()

    srv = start()
    r = srv.client(decode_responses=False)
    r.setbit("b", 100, 1)
    cmd(r, "BITFIELD", "b", "INCRBY", "u8", 0, 7, "OVERFLOW", "FAIL", "INCRBY", "u8", 0, 300)
    r.set("s1", "\x0f\xf0")
    cmd(r, "BITOP", "NOT", "n", "s1")
    cmd(r, "MSETEX", 2, "m1", "a", "m2", "b", "EX", 1000)
    cmd(r, "SET", "c", "v1")
    cmd(r, "SET", "c", "v2", "IFEQ", "v1")
    cmd(r, "SET", "c", "v3", "IFEQ", "nope")
    cmd(r, "SET", "d", "x")
    cmd(r, "DELEX", "d", "IFNE", "y")
    before = {k: (r.get(k), r.ttl(k)) for k in (b"b", b"n", b"m1", b"m2", b"c", b"d")}
    srv.stop()
    with open(os.path.join(str(tmp_path), "appendonlydir", "appendonly.aof.1.incr.aof"), "rb") as f:
        data = f.read()
    assert b"$4\r\nPXAT\r\n" in data and b"$2\r\nEX\r\n" not in data   # relative TTL rewritten
    srv = start()
    r = srv.client(decode_responses=False)
    after = {k: (r.get(k), r.ttl(k)) for k in (b"b", b"n", b"m1", b"m2", b"c", b"d")}
    srv.stop()
    assert after == before
    assert after[b"c"][0] == b"v2" and after[b"d"][0] is None
    assert 990 < after[b"m1"][1] <= 1000
