"""Bitmap commands on string values: SETBIT, GETBIT, BITCOUNT, BITPOS, BITOP (with Redis
8.2's DIFF/DIFF1/ANDOR/ONE), BITFIELD and BITFIELD_RO — replies, errors, how they share
bytes with GET/SETRANGE/APPEND, OBJECT ENCODING, and their keyspace events. Written from
Redis's documentation and checked by hand against Redis 8.8 (tests of behaviour that
changed after Redis 7.0 are marked redis8)."""
import pytest

from conftest import cmd, error_reply
from helpers_pubsub import KeyspaceWatcher, conns, ps_server, set_events  # noqa: F401

SYNTAX = "ERR syntax error"
NOT_INT = "ERR value is not an integer or out of range"
WRONGTYPE = "WRONGTYPE Operation against a key holding the wrong kind of value"
BAD_OFFSET = "ERR bit offset is not an integer or out of range"
BAD_TYPE = ("ERR Invalid bitfield type. Use something like i16 u8. Note that u64 is not "
            "supported but i64 is.")


# --- SETBIT / GETBIT -------------------------------------------------------------------

def test_setbit_getbit_share_bytes_with_get(rb):
    assert rb.setbit("k", 7, 1) == 0
    assert rb.get("k") == b"\x01"
    assert rb.setbit("k", 7, 1) == 1
    assert rb.setbit("k", 0, 1) == 0
    assert rb.get("k") == b"\x81"
    assert rb.setbit("k", 0, 0) == 1
    assert rb.get("k") == b"\x01"
    assert rb.getbit("k", 7) == 1
    assert rb.getbit("k", 6) == 0
    assert rb.getbit("k", 1000) == 0          # past the end
    assert rb.getbit("missing", 0) == 0
    assert rb.exists("missing") == 0


def test_setbit_pads_with_zeros_even_when_clearing(rb):
    assert rb.setbit("k", 100, 0) == 0
    assert rb.get("k") == b"\x00" * 13
    rb.set("s", "a")                           # 0x61
    assert rb.setbit("s", 23, 1) == 0
    assert rb.get("s") == b"a\x00\x01"
    assert rb.strlen("s") == 3


def test_setbit_interoperates_with_append_and_setrange(rb):
    rb.set("k", "ab")
    rb.setbit("k", 30, 1)
    assert rb.get("k") == b"ab\x00\x02"
    rb.append("k", "Z")
    assert rb.get("k") == b"ab\x00\x02Z"
    rb.setrange("k", 1, "\xff")
    assert rb.getbit("k", 8) == 1
    assert rb.getbit("k", 15) == 1
    # Growing many times (amortised growth keeps the bytes).
    for i in range(0, 8 * 5000, 8 * 37):
        rb.setbit("big", i, 1)
    assert rb.bitcount("big") == len(range(0, 8 * 5000, 8 * 37))
    assert rb.strlen("big") == (max(range(0, 8 * 5000, 8 * 37)) >> 3) + 1


def test_setbit_errors(r):
    r.lpush("l", "a")
    for offset in ("-1", "abc", "1.5", "4294967296", "99999999999999999999"):
        assert error_reply(r, "SETBIT", "k", offset, 1) == BAD_OFFSET
        assert error_reply(r, "GETBIT", "k", offset) == BAD_OFFSET
    for value in ("2", "-1", "abc", "01", ""):
        assert error_reply(r, "SETBIT", "k", 1, value) == "ERR bit is not an integer or out of range"
    # Arguments are checked before the key's type.
    assert error_reply(r, "SETBIT", "l", "x", 1) == BAD_OFFSET
    assert error_reply(r, "SETBIT", "l", 1, 5) == "ERR bit is not an integer or out of range"
    assert error_reply(r, "SETBIT", "l", 1, 1) == WRONGTYPE
    assert error_reply(r, "GETBIT", "l", 1) == WRONGTYPE
    assert r.exists("k") == 0


def test_setbit_offset_limit_is_proto_max_bulk_len(r, restore_config):
    assert cmd(r, "GETBIT", "k", 4294967295) == 0      # the last bit of 512 MB is an offset
    assert error_reply(r, "GETBIT", "k", 4294967296) == BAD_OFFSET
    restore_config("proto-max-bulk-len")
    r.config_set("proto-max-bulk-len", "1mb")
    assert error_reply(r, "SETBIT", "k", 8 * 1024 * 1024, 1) == BAD_OFFSET
    assert cmd(r, "SETBIT", "k", 8 * 1024 * 1024 - 1, 1) == 0
    assert r.strlen("k") == 1024 * 1024


def test_bit_writes_make_the_encoding_raw(r):
    r.set("k", "a")
    assert r.object("encoding", "k") == "embstr"
    assert r.setbit("k", 0, 0) == 0            # no change, still "raw" as in Redis
    assert r.object("encoding", "k") == "raw"
    r.set("n", "1234")
    assert r.object("encoding", "n") == "int"
    assert cmd(r, "BITFIELD", "n", "GET", "u8", 0) == [49]
    assert r.object("encoding", "n") == "int"  # reads change nothing
    assert cmd(r, "BITFIELD", "n", "INCRBY", "u8", 0, 0) == [49]
    assert r.object("encoding", "n") == "raw"
    r.set("a", "1")
    r.bitop("and", "d", "a")
    assert r.object("encoding", "d") == "raw"


# --- BITCOUNT --------------------------------------------------------------------------

def test_bitcount_whole_and_byte_ranges(rb):
    rb.set("k", b"\xff\xf0\x00\x01")
    assert rb.bitcount("k") == 13
    assert rb.bitcount("k", 0, 0) == 8
    assert rb.bitcount("k", 1, 1) == 4
    assert rb.bitcount("k", -1, -1) == 1
    assert rb.bitcount("k", -2, -1) == 1
    assert rb.bitcount("k", 0, -1) == 13
    assert rb.bitcount("k", -100, 100) == 13
    assert rb.bitcount("k", 2, 1) == 0
    assert rb.bitcount("k", -1, -3) == 0
    assert rb.bitcount("missing") == 0
    assert rb.bitcount("missing", 0, 10) == 0
    rb.set("e", "")
    assert rb.bitcount("e", 0, -1) == 0


def test_bitcount_bit_ranges(rb):
    rb.set("k", b"\xff\xf0\x00\x01")
    assert cmd(rb, "BITCOUNT", "k", 0, 3, "BIT") == 4
    assert cmd(rb, "BITCOUNT", "k", 4, 11, "bit") == 8
    assert cmd(rb, "BITCOUNT", "k", 5, 5, "BIT") == 1
    assert cmd(rb, "BITCOUNT", "k", -1, -1, "BIT") == 1
    assert cmd(rb, "BITCOUNT", "k", -8, -2, "BIT") == 0
    assert cmd(rb, "BITCOUNT", "k", 1, -1, "BIT") == 12
    assert cmd(rb, "BITCOUNT", "k", 0, 1, "BYTE") == 12
    assert cmd(rb, "BITCOUNT", "k", -2 ** 63, 2 ** 63 - 1, "BIT") == 13


def test_bitcount_large_value_counts_by_words(rb):
    data = bytes((i * 37 + 11) & 0xFF for i in range(100003))
    rb.set("k", data)
    want = sum(bin(b).count("1") for b in data)
    assert rb.bitcount("k") == want
    assert rb.bitcount("k", 7, 90000) == sum(bin(b).count("1") for b in data[7:90001])
    assert cmd(rb, "BITCOUNT", "k", 13, 700001, "BIT") == sum(
        (data[i >> 3] >> (7 - (i & 7))) & 1 for i in range(13, 700002))


def test_bitcount_errors(r):
    r.set("s", "abc")
    r.lpush("l", "a")
    assert error_reply(r, "BITCOUNT", "s", 0) == SYNTAX
    assert error_reply(r, "BITCOUNT", "s", 0, 1, 2) == SYNTAX
    assert error_reply(r, "BITCOUNT", "s", 0, 1, "BIT", "x") == SYNTAX
    assert error_reply(r, "BITCOUNT", "s", "a", 1) == NOT_INT
    assert error_reply(r, "BITCOUNT", "s", 0, "1.5") == NOT_INT
    assert error_reply(r, "BITCOUNT", "l") == WRONGTYPE
    assert error_reply(r, "BITCOUNT", "l", 0, 1) == WRONGTYPE


@pytest.mark.redis8
def test_bitcount_checks_arguments_before_the_key(r):
    r.lpush("l", "a")
    assert error_reply(r, "BITCOUNT", "missing", "a", 1) == NOT_INT
    assert error_reply(r, "BITCOUNT", "missing", 0, 1, "foo") == SYNTAX
    assert error_reply(r, "BITCOUNT", "l", 0, 1, "foo") == SYNTAX
    assert error_reply(r, "BITCOUNT", "l", "a", 1) == NOT_INT
    assert error_reply(r, "BITCOUNT", "l", 0) == SYNTAX


# --- BITPOS ----------------------------------------------------------------------------

def test_bitpos_basics(rb):
    rb.set("k", b"\xff\xf0\x00")
    assert rb.bitpos("k", 0) == 12
    assert rb.bitpos("k", 1) == 0
    assert rb.bitpos("k", 1, 2) == -1
    assert rb.bitpos("k", 0, 2) == 16
    assert rb.bitpos("k", 0, 0, 1) == 12
    assert rb.bitpos("k", 1, -1) == -1
    assert rb.bitpos("k", 1, 1, 1) == 8
    # Missing key: a 0 is found at once, a 1 never; an empty string finds neither.
    assert rb.bitpos("missing", 0) == 0
    assert rb.bitpos("missing", 1) == -1
    rb.set("e", "")
    assert rb.bitpos("e", 0) == -1
    assert rb.bitpos("e", 1) == -1


def test_bitpos_clear_bit_past_the_end_only_without_explicit_end(rb):
    rb.set("k", b"\xff\xff")
    assert rb.bitpos("k", 0) == 16             # the string reads as zero-padded
    assert rb.bitpos("k", 0, 0) == 16
    assert rb.bitpos("k", 0, 1) == 16
    assert rb.bitpos("k", 0, 0, -1) == -1      # an explicit end: the range has no 0
    assert rb.bitpos("k", 0, 1, 1) == -1
    assert cmd(rb, "BITPOS", "k", 0, 3, 15, "BIT") == -1
    assert rb.bitpos("k", 0, 20) == -1         # start past the end: empty range
    assert rb.bitpos("k", 1, 20) == -1


def test_bitpos_bit_ranges(rb):
    rb.set("k", b"\xff\xf0\x00")
    assert cmd(rb, "BITPOS", "k", 0, 8, 15, "BIT") == 12
    assert cmd(rb, "BITPOS", "k", 0, 8, 11, "BIT") == -1
    assert cmd(rb, "BITPOS", "k", 1, 9, -1, "BIT") == 9
    assert cmd(rb, "BITPOS", "k", 1, 12, -1, "bit") == -1
    assert cmd(rb, "BITPOS", "k", 0, 0, -1, "BIT") == 12
    assert cmd(rb, "BITPOS", "k", 0, 0, 1, "BYTE") == 12
    assert cmd(rb, "BITPOS", "k", 1, -2 ** 63, 2 ** 63 - 1, "BIT") == 0
    rb.setbit("k", 100, 1)
    assert rb.bitpos("k", 1, 3) == 100
    assert cmd(rb, "BITPOS", "k", 1, 13, -1, "BIT") == 100


def test_bitpos_long_runs(rb):
    rb.set("z", b"\x00" * 5000 + b"\x08")
    assert rb.bitpos("z", 1) == 5000 * 8 + 4
    rb.set("o", b"\xff" * 5000 + b"\xfe")
    assert rb.bitpos("o", 0) == 5000 * 8 + 7
    assert cmd(rb, "BITPOS", "o", 0, 3, 40006, "BIT") == -1


def test_bitpos_errors(r):
    r.set("s", "abc")
    r.lpush("l", "a")
    assert error_reply(r, "BITPOS", "s", 2) == "ERR The bit argument must be 1 or 0."
    assert error_reply(r, "BITPOS", "l", 2) == "ERR The bit argument must be 1 or 0."
    assert error_reply(r, "BITPOS", "s", "x") == NOT_INT
    assert error_reply(r, "BITPOS", "s", 1, "a") == NOT_INT
    assert error_reply(r, "BITPOS", "s", 1, 0, "b") == NOT_INT
    assert error_reply(r, "BITPOS", "s", 1, 0, 1, "foo") == SYNTAX
    assert error_reply(r, "BITPOS", "s", 1, 0, 1, "BIT", "x") == SYNTAX
    # start, then the unit, then end
    assert error_reply(r, "BITPOS", "s", 1, 0, "b", "foo") == SYNTAX
    assert error_reply(r, "BITPOS", "s", 1, "a", 0, "foo") == NOT_INT
    assert error_reply(r, "BITPOS", "l", 1) == WRONGTYPE


@pytest.mark.redis8
def test_bitpos_checks_arguments_before_the_key(r):
    r.lpush("l", "a")
    assert error_reply(r, "BITPOS", "missing", 1, "a") == NOT_INT
    assert error_reply(r, "BITPOS", "missing", 1, 0, 1, "foo") == SYNTAX
    assert error_reply(r, "BITPOS", "l", 1, "a") == NOT_INT


# --- BITOP -----------------------------------------------------------------------------

@pytest.fixture
def abc(rb):
    rb.set("a", b"\xff\x0f")
    rb.set("b", b"\x0f")
    rb.set("c", b"\xf0\xf0\xf0")
    return rb


def test_bitop_and_or_xor_not(abc):
    r = abc
    assert r.bitop("AND", "d", "a", "b", "c") == 3
    assert r.get("d") == b"\x00\x00\x00"
    assert r.bitop("and", "d", "a", "b") == 2
    assert r.get("d") == b"\x0f\x00"
    assert r.bitop("OR", "d", "a", "b", "c") == 3
    assert r.get("d") == b"\xff\xff\xf0"
    assert r.bitop("XOR", "d", "a", "b", "c") == 3
    assert r.get("d") == b"\x00\xff\xf0"
    assert r.bitop("NOT", "d", "c") == 3
    assert r.get("d") == b"\x0f\x0f\x0f"
    assert r.bitop("AND", "d", "a", "missing") == 2
    assert r.get("d") == b"\x00\x00"
    assert r.bitop("OR", "a", "a", "c") == 3       # the destination may be a source
    assert r.get("a") == b"\xff\xff\xf0"


@pytest.mark.redis8
def test_bitop_diff_diff1_andor_one(abc):
    r = abc
    assert cmd(r, "BITOP", "DIFF", "d", "a", "b", "c") == 3      # a AND NOT (b OR c)
    assert r.get("d") == b"\x00\x0f\x00"
    assert cmd(r, "BITOP", "diff1", "d", "a", "b", "c") == 3     # NOT a AND (b OR c)
    assert r.get("d") == b"\x00\xf0\xf0"
    assert cmd(r, "BITOP", "ANDOR", "d", "a", "b", "c") == 3     # a AND (b OR c)
    assert r.get("d") == b"\xff\x00\x00"
    assert cmd(r, "BITOP", "ONE", "d", "a", "b", "c") == 3       # set in exactly one
    assert r.get("d") == b"\x00\xff\xf0"
    assert cmd(r, "BITOP", "ONE", "d", "a") == 2
    assert r.get("d") == b"\xff\x0f"
    assert cmd(r, "BITOP", "DIFF", "d", "missing", "b") == 1
    assert r.get("d") == b"\x00"
    assert cmd(r, "BITOP", "DIFF1", "d", "a", "missing") == 2
    assert r.get("d") == b"\x00\x00"
    assert cmd(r, "BITOP", "ONE", "d", "missing") == 0
    assert r.exists("d") == 0


@pytest.mark.redis8
def test_bitop_new_operations_errors(r):
    r.set("a", "x")
    r.lpush("l", "a")
    for op in ("DIFF", "DIFF1", "ANDOR"):
        assert error_reply(r, "BITOP", op.lower(), "d", "a") == (
            f"ERR BITOP {op} must be called with at least two source keys.")
    assert error_reply(r, "BITOP", "DIFF", "d", "a", "l") == WRONGTYPE


def test_bitop_empty_result_deletes_destination_and_ttl_is_dropped(r):
    r.set("d", "old", ex=100)
    assert r.bitop("AND", "d", "missing1", "missing2") == 0
    assert r.exists("d") == 0
    assert r.bitop("NOT", "d", "missing") == 0
    r.set("d", "old", ex=100)
    r.set("a", "x")
    assert r.bitop("OR", "d", "a") == 1
    assert r.ttl("d") == -1
    r.lpush("lst", "v")
    assert r.bitop("OR", "lst", "a") == 1          # any destination type is replaced
    assert r.type("lst") == "string"


def test_bitop_errors(r):
    r.set("a", "x")
    r.lpush("l", "a")
    assert error_reply(r, "BITOP", "NAND", "d", "a") == SYNTAX
    assert error_reply(r, "BITOP", "NOT", "d", "a", "a") == (
        "ERR BITOP NOT must be called with a single source key.")
    assert error_reply(r, "BITOP", "AND", "d") == "ERR wrong number of arguments for 'bitop' command"
    assert error_reply(r, "BITOP", "AND", "d", "a", "l") == WRONGTYPE
    assert r.exists("d") == 0


# --- BITFIELD --------------------------------------------------------------------------

def test_bitfield_get_set_incrby(rb):
    assert cmd(rb, "BITFIELD", "k") == []
    assert cmd(rb, "BITFIELD", "k", "GET", "i8", 0) == [0]
    assert rb.exists("k") == 0                     # GETs create nothing
    assert cmd(rb, "BITFIELD", "k", "SET", "i8", 0, 100) == [0]
    assert cmd(rb, "BITFIELD", "k", "SET", "i8", 0, 200) == [100]
    assert cmd(rb, "BITFIELD", "k", "GET", "i8", 0, "GET", "u8", 0) == [-56, 200]
    assert cmd(rb, "BITFIELD", "k", "INCRBY", "i8", 0, 100) == [44]
    assert cmd(rb, "bitfield", "k", "set", "u4", 4, 15, "get", "u8", 0) == [12, 47]
    assert rb.get("k") == b"\x2f"
    assert cmd(rb, "BITFIELD", "k", "GET", "u1", 0, "GET", "u2", 1, "GET", "i3", 3,
               "INCRBY", "u4", 100, 5) == [0, 1, 3, 5]
    assert rb.strlen("k") == 13


def test_bitfield_hash_offsets_and_wide_fields(rb):
    assert cmd(rb, "BITFIELD", "k", "SET", "u8", "#1", 255, "GET", "u8", 8, "GET", "i8", "#1") == [
        0, 255, -1]
    assert rb.get("k") == b"\x00\xff"
    # A field across 9 bytes, reading past the end as zeros.
    assert cmd(rb, "BITFIELD", "k", "SET", "i64", 3, -2, "GET", "i64", 3) == [255 << 51, -2]
    assert rb.get("k") == b"\x1f" + b"\xff" * 7 + b"\xc0"
    assert cmd(rb, "BITFIELD", "w", "SET", "i64", 0, 2 ** 63 - 1) == [0]
    assert cmd(rb, "BITFIELD", "w", "INCRBY", "i64", 0, 1) == [-2 ** 63]
    assert cmd(rb, "BITFIELD", "w", "OVERFLOW", "SAT", "INCRBY", "i64", 0, -1) == [-2 ** 63]
    assert cmd(rb, "BITFIELD", "w", "OVERFLOW", "FAIL", "INCRBY", "i64", 0, -1) == [None]
    assert cmd(rb, "BITFIELD", "w", "SET", "i64", 0, 2 ** 63 - 1,
               "OVERFLOW", "SAT", "INCRBY", "i64", 0, 1) == [-2 ** 63, 2 ** 63 - 1]
    assert cmd(rb, "BITFIELD", "u", "SET", "u63", 0, 2 ** 63 - 1, "GET", "u63", 0) == [0, 2 ** 63 - 1]
    assert cmd(rb, "BITFIELD", "k", "GET", "i8", 4294967288, "GET", "i8", "#536870911") == [0, 0]


def test_bitfield_overflow_modes(rb):
    assert cmd(rb, "BITFIELD", "k", "SET", "i8", 0, 100, "INCRBY", "i8", 0, 100) == [0, -56]
    assert cmd(rb, "BITFIELD", "k", "OVERFLOW", "SAT", "INCRBY", "i8", 0, -100) == [-128]
    assert cmd(rb, "BITFIELD", "k", "OVERFLOW", "FAIL", "INCRBY", "i8", 0, -1) == [None]
    assert cmd(rb, "BITFIELD", "k", "GET", "i8", 0) == [-128]
    assert cmd(rb, "BITFIELD", "k", "OVERFLOW", "WRAP", "INCRBY", "i8", 0, -1) == [127]
    # OVERFLOW applies to the operations after it, until the next OVERFLOW.
    assert cmd(rb, "BITFIELD", "k", "INCRBY", "u8", 8, 300, "OVERFLOW", "SAT", "INCRBY", "u8", 8,
               300, "OVERFLOW", "FAIL", "INCRBY", "u8", 8, 1, "INCRBY", "u8", 8, -1) == [
        44, 255, None, 254]
    # SET checks the value against the type: an unsigned SET of -1 overflows high.
    assert cmd(rb, "BITFIELD", "s", "SET", "u8", 0, -1) == [0]
    assert cmd(rb, "BITFIELD", "s", "GET", "u8", 0) == [255]
    assert cmd(rb, "BITFIELD", "s", "SET", "u8", 0, 256) == [255]
    assert cmd(rb, "BITFIELD", "s", "OVERFLOW", "FAIL", "SET", "u8", 0, 256) == [None]
    assert cmd(rb, "BITFIELD", "s", "OVERFLOW", "SAT", "SET", "u8", 0, -5, "GET", "u8", 0) == [0, 255]
    assert cmd(rb, "BITFIELD", "s", "OVERFLOW", "SAT", "SET", "i8", 0, -200, "GET", "i8", 0) == [
        -1, -128]
    assert cmd(rb, "BITFIELD", "s", "SET", "i8", 0, -129, "GET", "i8", 0) == [-128, 127]


def test_bitfield_failed_writes_still_create_the_padded_key(rb):
    assert cmd(rb, "BITFIELD", "n", "OVERFLOW", "FAIL", "INCRBY", "u8", 0, 300) == [None]
    assert rb.get("n") == b"\x00"
    assert cmd(rb, "BITFIELD", "n2", "OVERFLOW", "FAIL", "INCRBY", "u8", 0, 300,
               "INCRBY", "u8", 8, 1) == [None, 1]
    assert rb.get("n2") == b"\x00\x01"


def test_bitfield_errors(r):
    r.lpush("l", "a")
    for t in ("u64", "i65", "i0", "u0", "x8", "I8", "U8", "i", "i08", "i-1", "u"):
        assert error_reply(r, "BITFIELD", "k", "GET", t, 0) == BAD_TYPE
    for offset in ("-1", "#-1", "abc", "#", "#536870912", "4294967296", "1.5"):
        assert error_reply(r, "BITFIELD", "k", "GET", "i8", offset) == BAD_OFFSET
    assert error_reply(r, "BITFIELD", "k", "GET", "i8") == SYNTAX
    assert error_reply(r, "BITFIELD", "k", "SET", "i8", 0) == SYNTAX
    assert error_reply(r, "BITFIELD", "k", "INCRBY", "u8", 0) == SYNTAX
    assert error_reply(r, "BITFIELD", "k", "FOO") == SYNTAX
    assert error_reply(r, "BITFIELD", "k", "GET", "i8", 0, "FOO") == SYNTAX
    assert error_reply(r, "BITFIELD", "k", "SET", "u8", 0, 1, 2) == SYNTAX
    assert error_reply(r, "BITFIELD", "k", "OVERFLOW") == SYNTAX
    assert error_reply(r, "BITFIELD", "k", "OVERFLOW", "FOO") == "ERR Invalid OVERFLOW type specified"
    assert error_reply(r, "BITFIELD", "k", "SET", "i8", 0, "abc") == NOT_INT
    assert error_reply(r, "BITFIELD", "k", "INCRBY", "i8", 0, "1.5") == NOT_INT
    assert error_reply(r, "BITFIELD", "k", "SET", "i8", 0, "99999999999999999999") == NOT_INT
    assert error_reply(r, "BITFIELD", "l", "GET", "u8", 0) == WRONGTYPE
    assert error_reply(r, "BITFIELD", "l", "SET", "u8", 0, 1) == WRONGTYPE
    # Every operation is parsed before anything runs (and before the type check).
    assert error_reply(r, "BITFIELD", "l", "SET", "u8", 0, 1, "GET", "i65", 0) == BAD_TYPE
    assert error_reply(r, "BITFIELD", "k", "SET", "u8", 0, 1, "GET", "i65", 0) == BAD_TYPE
    assert r.exists("k") == 0
    assert cmd(r, "BITFIELD", "k", "OVERFLOW", "SAT") == []


def test_bitfield_ro(r, rb):
    rb.set("k", b"\x80")
    assert cmd(r, "BITFIELD_RO", "k", "GET", "i8", 0) == [-128]
    assert cmd(r, "BITFIELD_RO", "k", "GET", "u1", 0, "GET", "u4", 4) == [1, 0]
    assert cmd(r, "BITFIELD_RO", "missing", "GET", "u8", 0) == [0]
    assert cmd(r, "BITFIELD_RO", "k", "OVERFLOW", "SAT", "GET", "i8", 0) == [-128]
    assert cmd(r, "BITFIELD_RO", "k") == []
    ro = "ERR BITFIELD_RO only supports the GET subcommand"
    assert error_reply(r, "BITFIELD_RO", "k", "SET", "i8", 0, 1) == ro
    assert error_reply(r, "BITFIELD_RO", "k", "INCRBY", "i8", 0, 1) == ro
    assert error_reply(r, "BITFIELD_RO", "k", "SET", "i65", 0, 1) == BAD_TYPE
    r.lpush("l", "a")
    assert error_reply(r, "BITFIELD_RO", "l", "GET", "u8", 0) == WRONGTYPE


def test_bitfield_resp3_nil(server):
    c = server.raw()
    c.command("HELLO", "3")
    assert c.command("BITFIELD", "r3", "OVERFLOW", "FAIL", "INCRBY", "u2", 0, 9, "GET", "u2", 0) == [
        None, 0]
    c.command("DEL", "r3")
    c.close()


# --- keyspace events, WATCH, MULTI -------------------------------------------------------

def test_bit_commands_keyspace_events(conns):
    c = conns.client()
    c.execute_command("FLUSHALL")
    set_events(c, "KEA")
    try:
        w = KeyspaceWatcher(conns)
        for command in [("SETBIT", "a", 3, 1), ("SETBIT", "a", 3, 1), ("SETBIT", "a", 100, 0),
                        ("GETBIT", "a", 3), ("BITFIELD", "a", "SET", "u8", 0, 1),
                        ("BITFIELD", "a", "OVERFLOW", "FAIL", "INCRBY", "u8", 0, 1000),
                        ("BITFIELD", "a", "GET", "u8", 0), ("BITOP", "OR", "d", "a"),
                        ("BITOP", "AND", "d", "missing"), ("BITOP", "NOT", "d", "missing")]:
            c.execute_command(*command)
        assert [e[1:] for e in w.events(c)] == [
            ("a", "setbit"), ("a", "setbit"), ("a", "setbit"), ("d", "set"), ("d", "del")]
    finally:
        set_events(c, "")


def test_watch_sees_bit_changes_and_multi_queues_them(r):
    r.set("k", "a")
    p = r.pipeline()
    p.watch("k")
    r.setbit("k", 1, 0)                  # 'a' = 0x61: bit 1 is 1
    p.multi()
    p.get("k")
    with pytest.raises(Exception):
        p.execute()
    p = r.pipeline(transaction=True)
    p.setbit("m", 7, 1).bitcount("m").execute_command("BITFIELD", "m", "INCRBY", "u8", 0, 1)
    assert p.execute() == [0, 1, [2]]
