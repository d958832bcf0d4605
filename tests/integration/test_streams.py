"""Stream commands on entries: XADD XLEN XRANGE XREVRANGE XDEL XTRIM XSETID XREAD (non
blocking) and XINFO STREAM, written from Redis's documentation and checked against Redis
8.8 (HOTKV_SERVER=.../redis-server runs them there)."""
import pytest

from helpers_streams import INVALID_ID, fill, as_map, ids
from helpers_types import NOT_INT, SYNTAX, WRONGTYPE, arity, rc_fixture, resp3_connection

TOP_ITEM = "ERR The ID specified in XADD is equal or smaller than the target stream top item"


@pytest.fixture
def rc(server, r):
    yield from rc_fixture(server)


# ---------------------------------------------------------------- XADD

def test_xadd_explicit_ids_and_reply(rc):
    assert rc("XADD", "s", "1-1", "a", "1", "b", "2") == "1-1"
    assert rc("XADD", "s", "1-2", "a", "3") == "1-2"
    assert rc("XADD", "s", "2", "a", "4") == "2-0"  # missing seq is 0
    assert rc("XLEN", "s") == 3
    assert rc("TYPE", "s") == "stream"
    assert rc("OBJECT", "ENCODING", "s") == "stream"
    assert rc("XRANGE", "s", "-", "+") == [
        ["1-1", ["a", "1", "b", "2"]], ["1-2", ["a", "3"]], ["2-0", ["a", "4"]]]


def test_xadd_auto_id_is_increasing(rc):
    a = rc("XADD", "s", "*", "f", "v")
    b = rc("XADD", "s", "*", "f", "v")
    ams, aseq = map(int, a.split("-"))
    bms, bseq = map(int, b.split("-"))
    assert (bms, bseq) > (ams, aseq)


def test_xadd_auto_seq(rc):
    assert rc("XADD", "s", "5-*", "f", "v") == "5-0"
    assert rc("XADD", "s", "5-*", "f", "v") == "5-1"
    assert rc("XADD", "s", "7-*", "f", "v") == "7-0"
    assert rc.err("XADD", "s", "6-*", "f", "v") == TOP_ITEM
    assert rc("XADD", "t", "0-*", "f", "v") == "0-1"


def test_xadd_auto_after_future_id(rc):
    rc("XADD", "s", "99999999999999-5", "f", "v")
    assert rc("XADD", "s", "*", "f", "v") == "99999999999999-6"


def test_xadd_errors(rc):
    assert rc.err("XADD", "s", "0-0", "f", "v") == "ERR The ID specified in XADD must be greater than 0-0"
    assert rc("EXISTS", "s") == 0
    rc("XADD", "s", "5-5", "f", "v")
    assert rc.err("XADD", "s", "5-5", "f", "v") == TOP_ITEM
    assert rc.err("XADD", "s", "5-4", "f", "v") == TOP_ITEM
    assert rc.err("XADD", "s", "abc", "f", "v") == INVALID_ID
    assert rc.err("XADD", "s", "1-x", "f", "v") == INVALID_ID
    assert rc.err("XADD", "s", "-", "f", "v") == INVALID_ID
    assert rc.err("XADD", "s", "+", "f", "v") == INVALID_ID
    assert rc.err("XADD", "s", "-1", "f", "v") == INVALID_ID
    assert rc.err("XADD", "s", "*", "f") == arity("xadd")
    assert rc.err("XADD", "s", "*", "f", "v", "g") == arity("xadd")
    assert rc.err("XADD", "s", "*") == arity("xadd")
    rc("SET", "str", "x")
    assert rc.err("XADD", "str", "*", "f", "v") == WRONGTYPE


def test_xadd_max_id(rc):
    top = "18446744073709551615-18446744073709551615"
    assert rc("XADD", "s", top, "f", "v") == top
    assert rc.err("XADD", "s", "*", "f", "v") == \
        "ERR The stream has exhausted the last possible ID, unable to add more items"
    assert rc("XADD", "t", "18446744073709551615-*", "f", "v") == "18446744073709551615-0"


def test_xadd_nomkstream(rc):
    assert rc("XADD", "s", "NOMKSTREAM", "*", "f", "v") is None
    assert rc("EXISTS", "s") == 0
    rc("XADD", "s", "1-1", "f", "v")
    assert rc("XADD", "s", "NOMKSTREAM", "2-1", "f", "v") == "2-1"


def test_xadd_maxlen(rc):
    fill(rc, "s", 10)
    assert rc("XADD", "s", "MAXLEN", "5", "11-0", "f", "11") == "11-0"
    assert rc("XLEN", "s") == 5
    assert ids(rc("XRANGE", "s", "-", "+")) == ["7-0", "8-0", "9-0", "10-0", "11-0"]
    rc("XADD", "s", "MAXLEN", "=", "2", "12-0", "f", "12")
    assert ids(rc("XRANGE", "s", "-", "+")) == ["11-0", "12-0"]
    rc("XADD", "s", "MAXLEN", "0", "13-0", "f", "13")
    assert rc("XLEN", "s") == 0
    assert rc("EXISTS", "s") == 1


def test_xadd_minid(rc):
    fill(rc, "s", 10)
    rc("XADD", "s", "MINID", "5", "11-0", "f", "11")
    assert ids(rc("XRANGE", "s", "-", "+"))[0] == "5-0"
    assert rc("XLEN", "s") == 7


def test_xadd_approx_trim_removes_whole_nodes_only(rc):
    fill(rc, "s", 250)  # nodes of 100 entries
    rc("XADD", "s", "MAXLEN", "~", "120", "251-0", "f", "x")
    assert rc("XLEN", "s") == 151  # one node of 100 removed, the next would go below
    rc("XADD", "s", "MAXLEN", "~", "10", "LIMIT", "50", "252-0", "f", "x")
    assert rc("XLEN", "s") == 152  # a node holds more than the LIMIT allows


def test_xadd_trim_option_errors(rc):
    assert rc.err("XADD", "s", "MAXLEN", "-1", "*", "f", "v") == "ERR The MAXLEN argument must be >= 0."
    assert rc.err("XADD", "s", "MAXLEN", "x", "*", "f", "v") == NOT_INT
    assert rc.err("XADD", "s", "MAXLEN", "1", "MINID", "1", "*", "f", "v") == \
        "ERR syntax error, MAXLEN and MINID options at the same time are not compatible"
    assert rc.err("XADD", "s", "MAXLEN", "1", "LIMIT", "10", "*", "f", "v") == \
        "ERR syntax error, LIMIT cannot be used without the special ~ option"
    assert rc.err("XADD", "s", "LIMIT", "10", "*", "f", "v") == \
        "ERR syntax error, LIMIT cannot be used without specifying a trimming strategy"
    assert rc.err("XADD", "s", "MAXLEN", "~", "1", "LIMIT", "-1", "*", "f", "v") == \
        "ERR The LIMIT argument must be >= 0."
    assert rc.err("XADD", "s", "MINID", "x", "*", "f", "v") == INVALID_ID
    assert rc("EXISTS", "s") == 0


# ---------------------------------------------------------------- XLEN / XRANGE

def test_xlen_missing_and_wrongtype(rc):
    assert rc("XLEN", "nokey") == 0
    rc("SET", "str", "x")
    assert rc.err("XLEN", "str") == WRONGTYPE


def test_xrange_bounds(rc):
    fill(rc, "s", 5)
    assert ids(rc("XRANGE", "s", "2", "4")) == ["2-0", "3-0", "4-0"]
    assert ids(rc("XRANGE", "s", "(2-0", "(4-0")) == ["3-0"]
    assert ids(rc("XRANGE", "s", "(2", "+")) == ["3-0", "4-0", "5-0"]
    assert ids(rc("XRANGE", "s", "-", "+", "COUNT", "2")) == ["1-0", "2-0"]
    assert ids(rc("XREVRANGE", "s", "+", "-", "COUNT", "2")) == ["5-0", "4-0"]
    assert ids(rc("XREVRANGE", "s", "(5-0", "(1")) == ["4-0", "3-0", "2-0"]
    # A bare "(5" end means 5-18446744073709551615: 5-0 is below it.
    assert ids(rc("XREVRANGE", "s", "(5", "(1")) == ["5-0", "4-0", "3-0", "2-0"]
    assert rc("XRANGE", "s", "4", "2") == []
    assert rc("XRANGE", "s", "-", "+", "COUNT", "0") is None
    assert rc("XRANGE", "s", "-", "+", "COUNT", "-3") is None  # negative is 0 -> nil
    assert rc("XRANGE", "nokey", "-", "+") == []


def test_xrange_exclusive_edges(rc):
    fill(rc, "s", 2)
    assert rc.err("XRANGE", "s", "(18446744073709551615-18446744073709551615", "+") == \
        "ERR invalid start ID for the interval"
    assert rc.err("XRANGE", "s", "-", "(0-0") == "ERR invalid end ID for the interval"
    assert rc.err("XRANGE", "s", "(-", "+") == INVALID_ID
    assert rc.err("XRANGE", "s", "-", "(+") == INVALID_ID


def test_xrange_errors(rc):
    fill(rc, "s", 2)
    assert rc.err("XRANGE", "s", "x", "+") == INVALID_ID
    assert rc.err("XRANGE", "s", "-", "+", "COUNT") == SYNTAX
    assert rc.err("XRANGE", "s", "-", "+", "COUNT", "x") == NOT_INT
    assert rc.err("XRANGE", "s", "-", "+", "LIMIT", "1") == SYNTAX
    rc("SET", "str", "x")
    assert rc.err("XRANGE", "str", "-", "+") == WRONGTYPE
    assert rc.err("XRANGE", "s") == arity("xrange")


def test_xrange_many_nodes_and_fields(rc):
    for i in range(1, 451):
        if i % 3 == 0:
            rc("XADD", "s", f"{i}-0", "other", str(i), "x", "y")
        else:
            rc("XADD", "s", f"{i}-0", "f", str(i))
    got = rc("XRANGE", "s", "100", "305")
    assert ids(got) == [f"{i}-0" for i in range(100, 306)]
    assert got[2] == ["102-0", ["other", "102", "x", "y"]]
    assert got[1] == ["101-0", ["f", "101"]]
    rev = rc("XREVRANGE", "s", "305", "100")
    assert rev == got[::-1]


def test_xrange_binary_values(rb):
    rb.execute_command("XADD", "s", "1-0", b"\x00f", b"\xff\x00" * 100)
    assert rb.execute_command("XRANGE", "s", "-", "+") == [(b"1-0", {b"\x00f": b"\xff\x00" * 100})]


# ---------------------------------------------------------------- XDEL / XTRIM

def test_xdel(rc):
    fill(rc, "s", 5)
    assert rc("XDEL", "s", "2-0", "4-0", "9-0") == 2
    assert rc("XDEL", "s", "2-0") == 0
    assert ids(rc("XRANGE", "s", "-", "+")) == ["1-0", "3-0", "5-0"]
    assert rc("XLEN", "s") == 3
    info = rc("XINFO", "STREAM", "s")
    d = dict(zip(info[0::2], info[1::2]))
    assert d["max-deleted-entry-id"] == "4-0"
    assert d["entries-added"] == 5
    assert rc("XDEL", "nokey", "1-0") == 0
    assert rc.err("XDEL", "s", "1-0", "bad") == INVALID_ID
    assert rc("XLEN", "s") == 3  # nothing deleted when an id is invalid
    assert rc("XDEL", "s", "1-0", "3-0", "5-0") == 3
    assert rc("EXISTS", "s") == 1  # an empty stream stays
    assert rc("XRANGE", "s", "-", "+") == []


def test_xtrim(rc):
    fill(rc, "s", 10)
    assert rc("XTRIM", "s", "MAXLEN", "7") == 3
    assert rc("XTRIM", "s", "MAXLEN", "=", "7") == 0
    assert rc("XTRIM", "s", "MINID", "6") == 2
    assert ids(rc("XRANGE", "s", "-", "+")) == ["6-0", "7-0", "8-0", "9-0", "10-0"]
    assert rc("XTRIM", "nokey", "MAXLEN", "1") == 0
    assert rc.err("XTRIM", "s", "LIMIT", "1") == \
        "ERR syntax error, LIMIT cannot be used without specifying a trimming strategy"
    assert rc.err("XTRIM", "s", "FOO", "1") == SYNTAX
    assert rc.err("XTRIM", "s", "MAXLEN", "1", "foo") == SYNTAX
    assert rc.err("XTRIM", "s", "NOMKSTREAM", "MAXLEN", "1") == SYNTAX
    assert rc.err("XTRIM", "s", "MAXLEN", "1", "LIMIT", "5") == \
        "ERR syntax error, LIMIT cannot be used without the special ~ option"
    rc("SET", "str", "x")
    assert rc.err("XTRIM", "str", "MAXLEN", "1") == WRONGTYPE


def test_xtrim_approx_with_limit(rc):
    fill(rc, "s", 1000)
    assert rc("XTRIM", "s", "MAXLEN", "~", "0", "LIMIT", "300") == 300
    # Nodes 301..400, 401..500 and 501..600 end below 650; 601..700 does not.
    assert rc("XTRIM", "s", "MINID", "~", "650") == 300
    assert rc("XLEN", "s") == 400
    assert rc("XTRIM", "s", "MAXLEN", "~", "0", "LIMIT", "0") == 400


def test_xtrim_after_deletes_counts_live_entries(rc):
    fill(rc, "s", 10)
    rc("XDEL", "s", "1-0", "2-0")
    assert rc("XTRIM", "s", "MAXLEN", "5") == 3
    assert ids(rc("XRANGE", "s", "-", "+")) == ["6-0", "7-0", "8-0", "9-0", "10-0"]


# ---------------------------------------------------------------- XSETID

def test_xsetid(rc):
    fill(rc, "s", 3)
    assert rc("XSETID", "s", "10-0") == "OK"
    assert rc.err("XADD", "s", "5-0", "f", "v") == TOP_ITEM
    assert rc("XADD", "s", "*", "f", "v") != "10-0"
    assert rc.err("XSETID", "s", "2-0") == \
        "ERR The ID specified in XSETID is smaller than the target stream top item"
    assert rc.err("XSETID", "nokey", "1-0") == "ERR no such key"
    rc("SET", "str", "x")
    assert rc.err("XSETID", "str", "1-0") == WRONGTYPE


def test_xsetid_entriesadded_maxdeletedid(rc):
    fill(rc, "s", 3)
    assert rc("XSETID", "s", "50-0", "ENTRIESADDED", "100", "MAXDELETEDID", "40-0") == "OK"
    info = rc("XINFO", "STREAM", "s")
    d = dict(zip(info[0::2], info[1::2]))
    assert d["last-generated-id"] == "50-0"
    assert d["entries-added"] == 100
    assert d["max-deleted-entry-id"] == "40-0"
    assert rc.err("XSETID", "s", "50-0", "ENTRIESADDED", "1") == \
        "ERR The entries_added specified in XSETID is smaller than the target stream length"
    assert rc.err("XSETID", "s", "50-0", "ENTRIESADDED", "-1") == "ERR entries_added must be positive"
    assert rc.err("XSETID", "s", "50-0", "MAXDELETEDID", "60-0") == \
        "ERR The ID specified in XSETID is smaller than the provided max_deleted_entry_id"
    assert rc.err("XSETID", "s", "30-0") in (
        "ERR The ID specified in XSETID is smaller than current max_deleted_entry_id",
        "ERR The ID specified in XSETID is smaller than the target stream top item")
    assert rc.err("XSETID", "s", "50-0", "FOO", "1") == SYNTAX
    assert rc.err("XSETID", "s", "+") == INVALID_ID


def test_xsetid_on_empty_stream(rc):
    rc("XADD", "s", "5-0", "f", "v")
    rc("XDEL", "s", "5-0")
    assert rc("XSETID", "s", "6-0") == "OK"
    assert rc.err("XSETID", "s", "4-0") == \
        "ERR The ID specified in XSETID is smaller than current max_deleted_entry_id"


# ---------------------------------------------------------------- XREAD (no BLOCK)

def test_xread_basic(rc):
    fill(rc, "a", 3)
    fill(rc, "b", 2)
    assert rc("XREAD", "STREAMS", "a", "b", "1-0", "0") == [
        ["a", [["2-0", ["f", "2"]], ["3-0", ["f", "3"]]]],
        ["b", [["1-0", ["f", "1"]], ["2-0", ["f", "2"]]]]]
    assert rc("XREAD", "COUNT", "1", "STREAMS", "a", "b", "0", "0") == [
        ["a", [["1-0", ["f", "1"]]]], ["b", [["1-0", ["f", "1"]]]]]
    assert rc("XREAD", "STREAMS", "a", "3-0") is None
    assert rc("XREAD", "STREAMS", "a", "$") is None
    assert rc("XREAD", "STREAMS", "nokey", "0") is None
    assert rc("XREAD", "STREAMS", "a", "nokey", "2", "0") == [["a", [["3-0", ["f", "3"]]]]]


def test_xread_plus_returns_last_entry(rc):
    fill(rc, "a", 3)
    assert rc("XREAD", "STREAMS", "a", "+") == [["a", [["3-0", ["f", "3"]]]]]
    rc("XDEL", "a", "3-0")
    assert rc("XREAD", "STREAMS", "a", "+") == [["a", [["2-0", ["f", "2"]]]]]
    assert rc("XREAD", "STREAMS", "nokey", "+") is None


def test_xread_errors(rc):
    fill(rc, "a", 1)
    assert rc.err("XREAD", "STREAMS", "a") == arity("xread")
    assert rc.err("XREAD", "STREAMS", "a", "b", "0") == \
        "ERR Unbalanced 'xread' list of streams: for each stream key an ID, '+', or '$' must be specified."
    assert rc.err("XREAD", "COUNT", "1", "a", "0") == SYNTAX
    assert rc.err("XREAD", "COUNT", "x", "STREAMS", "a", "0") == NOT_INT
    assert rc.err("XREAD", "BLOCK", "x", "STREAMS", "a", "0") == \
        "ERR timeout is not an integer or out of range"
    assert rc.err("XREAD", "BLOCK", "-1", "STREAMS", "a", "0") == "ERR timeout is negative"
    assert rc.err("XREAD", "GROUP", "g", "c", "STREAMS", "a", "0") == \
        "ERR The GROUP option is only supported by XREADGROUP. You called XREAD instead."
    assert rc.err("XREAD", "NOACK", "STREAMS", "a", "0") == \
        "ERR The NOACK option is only supported by XREADGROUP. You called XREAD instead."
    assert rc.err("XREAD", "STREAMS", "a", ">") == \
        "ERR The > ID can be specified only when calling XREADGROUP using the GROUP <group> <consumer> option."
    assert rc.err("XREAD", "STREAMS", "a", "x") == INVALID_ID
    rc("SET", "str", "x")
    assert rc.err("XREAD", "STREAMS", "str", "0") == WRONGTYPE


def test_xread_resp3_is_a_map(server, r):
    r.execute_command("XADD", "a", "1-0", "f", "v")
    conn = resp3_connection(server)
    reply = conn.command("XREAD", "STREAMS", "a", "0")
    assert reply[0] == "map"
    conn.close()


# ---------------------------------------------------------------- XINFO STREAM

def test_xinfo_stream(rc):
    fill(rc, "s", 3)
    info = rc("XINFO", "STREAM", "s")
    # Redis 8.6+ adds idmp-* fields before "groups".
    assert info[0::2][:7] == ["length", "radix-tree-keys", "radix-tree-nodes", "last-generated-id",
                              "max-deleted-entry-id", "entries-added", "recorded-first-entry-id"]
    assert info[0::2][-3:] == ["groups", "first-entry", "last-entry"]
    d = dict(zip(info[0::2], info[1::2]))
    assert d["length"] == 3
    assert d["radix-tree-keys"] == 1
    assert d["last-generated-id"] == "3-0"
    assert d["first-entry"] == ["1-0", ["f", "1"]]
    assert d["last-entry"] == ["3-0", ["f", "3"]]
    assert d["recorded-first-entry-id"] == "1-0"
    assert rc.err("XINFO", "STREAM", "nokey") == "ERR no such key"
    assert rc.err("XINFO", "STREAM", "s", "FULL", "COUNT") == \
        "ERR unknown subcommand or wrong number of arguments for 'STREAM'. Try XINFO HELP."


def test_xinfo_stream_empty(rc):
    rc("XADD", "s", "1-0", "f", "v")
    rc("XDEL", "s", "1-0")
    d = dict(zip(*[iter(rc("XINFO", "STREAM", "s"))] * 2))
    assert d["length"] == 0
    assert d["first-entry"] is None and d["last-entry"] is None
    assert d["recorded-first-entry-id"] == "0-0"


def test_xinfo_stream_full(rc):
    fill(rc, "s", 15)
    info = rc("XINFO", "STREAM", "s", "FULL")
    d = dict(zip(info[0::2], info[1::2]))
    assert len(d["entries"]) == 10
    assert d["groups"] == []
    info = rc("XINFO", "STREAM", "s", "FULL", "COUNT", "0")
    d = dict(zip(info[0::2], info[1::2]))
    assert len(d["entries"]) == 15


def test_xinfo_help(rc):
    lines = rc("XINFO", "HELP")
    assert lines[0].startswith("XINFO <subcommand>")
    assert rc.err("XINFO", "FOO", "s") == "ERR unknown subcommand 'FOO'. Try XINFO HELP."


# ---------------------------------------------------------------- keyspace integration

def test_copy_rename_del_memory(rc):
    fill(rc, "s", 200)
    rc("XGROUP", "CREATE", "s", "g", "0")
    rc("XREADGROUP", "GROUP", "g", "c", "COUNT", "5", "STREAMS", "s", ">")
    assert rc("COPY", "s", "s2") == 1
    assert rc("XRANGE", "s2", "-", "+") == rc("XRANGE", "s", "-", "+")
    assert rc("XPENDING", "s2", "g") == rc("XPENDING", "s", "g")
    rc("XACK", "s", "g", "1-0")
    assert rc("XPENDING", "s2", "g")[0] == 5  # a deep copy
    assert rc("RENAME", "s2", "s3") == "OK"
    assert rc("XLEN", "s3") == 200
    assert rc("MEMORY", "USAGE", "s") > 1000
    assert rc("SCAN", "0", "TYPE", "stream", "COUNT", "100")[1] == ["s", "s3"] or \
        sorted(rc("SCAN", "0", "TYPE", "stream", "COUNT", "100")[1]) == ["s", "s3"]
    assert rc("DEL", "s", "s3") == 2


def test_multi_exec(rc):
    rc("MULTI")
    rc("XADD", "s", "1-0", "f", "v")
    rc("XLEN", "s")
    assert rc("EXEC") == ["1-0", 1]


def test_watch_is_invalidated_by_xadd(server, r):
    r.execute_command("XADD", "s", "1-0", "f", "v")
    with r.pipeline() as p:
        p.watch("s")
        other = server.client()
        other.execute_command("XADD", "s", "2-0", "f", "v")
        other.close()
        p.multi()
        p.execute_command("XLEN", "s")
        with pytest.raises(Exception):
            p.execute()


# ---------------------------------------------------------------- keyspace events

def test_keyspace_events(server, r, restore_config):
    restore_config("notify-keyspace-events")
    r.config_set("notify-keyspace-events", "Et")
    p = r.pubsub()
    p.psubscribe("__keyevent@0__:*")
    p.get_message(timeout=1)
    rc = r.execute_command
    rc("XADD", "s", "1-0", "f", "v")
    rc("XADD", "s", "MAXLEN", "0", "2-0", "f", "v")
    rc("XADD", "s", "3-0", "f", "v")
    rc("XDEL", "s", "3-0")
    rc("XTRIM", "s", "MAXLEN", "0")  # nothing to trim: no event
    rc("XSETID", "s", "10-0")
    rc("XGROUP", "CREATE", "s", "g", "0")
    rc("XGROUP", "SETID", "s", "g", "0")
    rc("XGROUP", "CREATECONSUMER", "s", "g", "c")
    rc("XGROUP", "DELCONSUMER", "s", "g", "c")
    rc("XREADGROUP", "GROUP", "g", "new", "STREAMS", "s", ">")
    rc("XGROUP", "DESTROY", "s", "g")
    events = []
    while True:
        m = p.get_message(timeout=0.5)
        if m is None:
            break
        if m["type"] == "pmessage":
            events.append(m["channel"].split(":", 1)[1])
    p.close()
    assert events == ["xadd", "xadd", "xtrim", "xadd", "xdel", "xsetid", "xgroup-create",
                      "xgroup-setid", "xgroup-createconsumer", "xgroup-delconsumer",
                      "xgroup-createconsumer", "xgroup-destroy"]
