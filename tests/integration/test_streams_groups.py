"""Stream consumer groups: XGROUP, XREADGROUP (no BLOCK), XACK, XPENDING, XCLAIM,
XAUTOCLAIM, XINFO GROUPS/CONSUMERS, lag and entries-read. Written from Redis's
documentation and checked against Redis 8.8."""
import time

import pytest

from helpers_streams import INVALID_ID, fill, as_map, ids
from helpers_types import NOT_INT, SYNTAX, WRONGTYPE, arity, rc_fixture



@pytest.fixture
def rc(server, r):
    yield from rc_fixture(server)


def groups(rc, key):
    return {g["name"]: g for g in (as_map(x) for x in rc("XINFO", "GROUPS", key))}


# ---------------------------------------------------------------- XGROUP

def test_xgroup_create_and_errors(rc):
    fill(rc, "s", 3)
    assert rc("XGROUP", "CREATE", "s", "g", "0") == "OK"
    assert rc.err("XGROUP", "CREATE", "s", "g", "0") == "BUSYGROUP Consumer Group name already exists"
    assert rc("XGROUP", "CREATE", "s", "g2", "$") == "OK"
    assert groups(rc, "s")["g2"]["last-delivered-id"] == "3-0"
    assert rc.err("XGROUP", "CREATE", "nokey", "g", "0") == (
        "ERR The XGROUP subcommand requires the key to exist. Note that for CREATE you may want "
        "to use the MKSTREAM option to create an empty stream automatically.")
    assert rc("XGROUP", "CREATE", "new", "g", "$", "MKSTREAM") == "OK"
    assert rc("XLEN", "new") == 0
    assert rc.err("XGROUP", "CREATE", "s", "g3", "0", "ENTRIESREAD", "-5") == \
        "ERR value for ENTRIESREAD must be positive or -1"
    assert rc.err("XGROUP", "CREATE", "s", "g3", "0", "FOO") == \
        "ERR unknown subcommand or wrong number of arguments for 'CREATE'. Try XGROUP HELP."
    assert rc.err("XGROUP", "CREATE", "s", "g3", "x") == INVALID_ID
    assert rc.err("XGROUP", "CREATE", "s") == arity("xgroup|create")
    assert rc.err("XGROUP", "FOO", "s", "g") == "ERR unknown subcommand 'FOO'. Try XGROUP HELP."
    rc("SET", "str", "x")
    assert rc.err("XGROUP", "CREATE", "str", "g", "0") == WRONGTYPE


def test_xgroup_create_entriesread_and_lag(rc):
    fill(rc, "s", 5)
    rc("XGROUP", "CREATE", "s", "g", "0", "ENTRIESREAD", "2")
    g = groups(rc, "s")["g"]
    assert g["entries-read"] == 2
    # The group's id (0-0) is before the first entry and nothing was deleted: Redis 7.4+
    # answers the stream's length, whatever ENTRIESREAD said.
    assert g["lag"] == 5
    rc("XGROUP", "SETID", "s", "g", "2-0", "ENTRIESREAD", "2")
    assert groups(rc, "s")["g"]["lag"] == 3
    rc("XGROUP", "CREATE", "s", "h", "0")
    h = groups(rc, "s")["h"]
    assert h["entries-read"] is None
    assert h["lag"] == 5


def test_xgroup_setid(rc):
    fill(rc, "s", 5)
    rc("XGROUP", "CREATE", "s", "g", "0")
    assert rc("XGROUP", "SETID", "s", "g", "3-0") == "OK"
    assert groups(rc, "s")["g"]["last-delivered-id"] == "3-0"
    assert rc("XGROUP", "SETID", "s", "g", "$", "ENTRIESREAD", "5") == "OK"
    g = groups(rc, "s")["g"]
    assert g["last-delivered-id"] == "5-0" and g["entries-read"] == 5 and g["lag"] == 0
    assert rc.err("XGROUP", "SETID", "s", "nog", "0") == "NOGROUP No such consumer group 'nog' for key name 's'"
    assert rc.err("XGROUP", "SETID", "nokey", "g", "0").startswith("ERR The XGROUP subcommand requires")
    assert rc.err("XGROUP", "SETID", "s", "g", "0", "MKSTREAM") == \
        "ERR unknown subcommand or wrong number of arguments for 'SETID'. Try XGROUP HELP."


def test_xgroup_consumers_and_destroy(rc):
    fill(rc, "s", 3)
    rc("XGROUP", "CREATE", "s", "g", "0")
    assert rc("XGROUP", "CREATECONSUMER", "s", "g", "alice") == 1
    assert rc("XGROUP", "CREATECONSUMER", "s", "g", "alice") == 0
    rc("XREADGROUP", "GROUP", "g", "bob", "STREAMS", "s", ">")
    names = [as_map(c)["name"] for c in rc("XINFO", "CONSUMERS", "s", "g")]
    assert names == ["alice", "bob"]
    assert rc("XGROUP", "DELCONSUMER", "s", "g", "bob") == 3
    assert rc("XGROUP", "DELCONSUMER", "s", "g", "bob") == 0
    assert rc("XPENDING", "s", "g")[0] == 0
    assert rc.err("XGROUP", "CREATECONSUMER", "s", "nog", "x") == \
        "NOGROUP No such consumer group 'nog' for key name 's'"
    assert rc("XGROUP", "DESTROY", "s", "g") == 1
    assert rc("XGROUP", "DESTROY", "s", "g") == 0
    assert rc("XINFO", "GROUPS", "s") == []


def test_xgroup_help(rc):
    lines = rc("XGROUP", "HELP")
    assert lines[0] == "XGROUP <subcommand> [<arg> [value] [opt] ...]. Subcommands are:"
    assert lines[-1] == "    Print this help."


# ---------------------------------------------------------------- XREADGROUP

def test_xreadgroup_new_messages_and_history(rc):
    fill(rc, "s", 4)
    rc("XGROUP", "CREATE", "s", "g", "0")
    got = rc("XREADGROUP", "GROUP", "g", "c1", "COUNT", "2", "STREAMS", "s", ">")
    assert got == [["s", [["1-0", ["f", "1"]], ["2-0", ["f", "2"]]]]]
    got = rc("XREADGROUP", "GROUP", "g", "c2", "STREAMS", "s", ">")
    assert ids(got[0][1]) == ["3-0", "4-0"]
    assert rc("XREADGROUP", "GROUP", "g", "c2", "STREAMS", "s", ">") is None
    # History: the consumer's own pending entries.
    assert ids(rc("XREADGROUP", "GROUP", "g", "c1", "STREAMS", "s", "0")[0][1]) == ["1-0", "2-0"]
    assert ids(rc("XREADGROUP", "GROUP", "g", "c1", "STREAMS", "s", "1-0")[0][1]) == ["2-0"]
    assert rc("XREADGROUP", "GROUP", "g", "c3", "STREAMS", "s", "0") == [["s", []]]
    g = groups(rc, "s")["g"]
    assert g["pending"] == 4 and g["entries-read"] == 4 and g["lag"] == 0
    assert g["last-delivered-id"] == "4-0"


def test_xreadgroup_history_of_deleted_entry(rc):
    fill(rc, "s", 2)
    rc("XGROUP", "CREATE", "s", "g", "0")
    rc("XREADGROUP", "GROUP", "g", "c", "STREAMS", "s", ">")
    rc("XDEL", "s", "1-0")
    assert rc("XREADGROUP", "GROUP", "g", "c", "STREAMS", "s", "0") == \
        [["s", [["1-0", None], ["2-0", ["f", "2"]]]]]


def test_xreadgroup_history_counts_deliveries(rc):
    fill(rc, "s", 1)
    rc("XGROUP", "CREATE", "s", "g", "0")
    rc("XREADGROUP", "GROUP", "g", "c", "STREAMS", "s", ">")
    rc("XREADGROUP", "GROUP", "g", "c", "STREAMS", "s", "0")
    assert rc("XPENDING", "s", "g", "-", "+", "10")[0][3] == 2


def test_xreadgroup_noack(rc):
    fill(rc, "s", 3)
    rc("XGROUP", "CREATE", "s", "g", "0")
    got = rc("XREADGROUP", "GROUP", "g", "c", "NOACK", "STREAMS", "s", ">")
    assert len(got[0][1]) == 3
    assert rc("XPENDING", "s", "g")[0] == 0
    assert groups(rc, "s")["g"]["last-delivered-id"] == "3-0"


def test_xreadgroup_errors(rc):
    fill(rc, "s", 1)
    rc("XGROUP", "CREATE", "s", "g", "0")
    assert rc.err("XREADGROUP", "GROUP", "nog", "c", "STREAMS", "s", ">") == \
        "NOGROUP No such key 's' or consumer group 'nog' in XREADGROUP with GROUP option"
    assert rc.err("XREADGROUP", "GROUP", "g", "c", "STREAMS", "nokey", ">") == \
        "NOGROUP No such key 'nokey' or consumer group 'g' in XREADGROUP with GROUP option"
    assert rc.err("XREADGROUP", "GROUP", "g", "c", "STREAMS", "s", "$").startswith(
        "ERR The $ ID is meaningless in the context of XREADGROUP")
    assert rc.err("XREADGROUP", "GROUP", "g", "c", "STREAMS", "s", "+").startswith(
        "ERR The + ID is meaningless in the context of XREADGROUP")
    assert rc.err("XREADGROUP", "GROUP", "g", "c", "STREAMS", "s", "t", ">") == \
        "ERR Unbalanced 'xreadgroup' list of streams: for each stream key an ID or '>' must be specified."
    assert rc.err("XREADGROUP", "COUNT", "1", "NOACK", "STREAMS", "s", ">") == \
        "ERR Missing GROUP option for XREADGROUP"
    assert rc.err("XREADGROUP", "GROUP", "g", "c", "STREAMS", "s", "x") == INVALID_ID
    rc("SET", "str", "x")
    assert rc.err("XREADGROUP", "GROUP", "g", "c", "STREAMS", "str", ">") == WRONGTYPE


def test_lag_and_entries_read_tracking(rc):
    fill(rc, "s", 5)
    rc("XGROUP", "CREATE", "s", "g", "0")
    rc("XREADGROUP", "GROUP", "g", "c", "COUNT", "2", "STREAMS", "s", ">")
    g = groups(rc, "s")["g"]
    assert (g["entries-read"], g["lag"]) == (2, 3)
    rc("XDEL", "s", "4-0")  # a tombstone ahead of the group: lag cannot be known
    g = groups(rc, "s")["g"]
    assert g["lag"] is None
    rc("XREADGROUP", "GROUP", "g", "c", "STREAMS", "s", ">")
    g = groups(rc, "s")["g"]
    assert (g["entries-read"], g["lag"]) == (5, 0)
    fill(rc, "s", 2, start=6)
    assert groups(rc, "s")["g"]["lag"] == 2


def test_lag_when_group_is_before_first_entry(rc):
    fill(rc, "s", 5)
    rc("XGROUP", "CREATE", "s", "g", "0")
    rc("XTRIM", "s", "MAXLEN", "3")
    g = groups(rc, "s")["g"]
    assert g["lag"] == 3


# ---------------------------------------------------------------- XACK / XPENDING

def test_xack(rc):
    fill(rc, "s", 3)
    rc("XGROUP", "CREATE", "s", "g", "0")
    rc("XREADGROUP", "GROUP", "g", "c", "STREAMS", "s", ">")
    assert rc("XACK", "s", "g", "1-0", "2-0", "9-0") == 2
    assert rc("XACK", "s", "g", "1-0") == 0
    assert rc("XACK", "s", "nog", "3-0") == 0
    assert rc("XACK", "nokey", "g", "bad") == 0
    assert rc.err("XACK", "s", "g", "3-0", "bad") == INVALID_ID
    assert rc("XPENDING", "s", "g")[0] == 1  # nothing acked when an id is invalid
    rc("SET", "str", "x")
    assert rc.err("XACK", "str", "g", "1-0") == WRONGTYPE


def test_xpending_summary(rc):
    fill(rc, "s", 4)
    rc("XGROUP", "CREATE", "s", "g", "0")
    assert rc("XPENDING", "s", "g") == [0, None, None, None]
    rc("XREADGROUP", "GROUP", "g", "bob", "COUNT", "1", "STREAMS", "s", ">")
    rc("XREADGROUP", "GROUP", "g", "alice", "STREAMS", "s", ">")
    assert rc("XPENDING", "s", "g") == [4, "1-0", "4-0", [["alice", "3"], ["bob", "1"]]]


def test_xpending_extended(rc):
    fill(rc, "s", 4)
    rc("XGROUP", "CREATE", "s", "g", "0")
    rc("XREADGROUP", "GROUP", "g", "bob", "COUNT", "1", "STREAMS", "s", ">")
    rc("XREADGROUP", "GROUP", "g", "alice", "STREAMS", "s", ">")
    got = rc("XPENDING", "s", "g", "-", "+", "10")
    assert [(e[0], e[1], e[3]) for e in got] == [
        ("1-0", "bob", 1), ("2-0", "alice", 1), ("3-0", "alice", 1), ("4-0", "alice", 1)]
    assert all(e[2] >= 0 for e in got)
    assert ids(rc("XPENDING", "s", "g", "(1-0", "(4-0", "10")) == ["2-0", "3-0"]
    assert ids(rc("XPENDING", "s", "g", "-", "+", "2")) == ["1-0", "2-0"]
    assert ids(rc("XPENDING", "s", "g", "-", "+", "10", "bob")) == ["1-0"]
    assert rc("XPENDING", "s", "g", "-", "+", "10", "nobody") == []
    assert rc("XPENDING", "s", "g", "-", "+", "-1") == []
    assert ids(rc("XPENDING", "s", "g", "IDLE", "0", "-", "+", "10")) == ["1-0", "2-0", "3-0", "4-0"]
    assert rc("XPENDING", "s", "g", "IDLE", "100000", "-", "+", "10") == []


def test_xpending_errors(rc):
    fill(rc, "s", 1)
    rc("XGROUP", "CREATE", "s", "g", "0")
    assert rc.err("XPENDING", "s", "g", "x") == SYNTAX
    assert rc.err("XPENDING", "s", "g", "IDLE", "5", "-", "+") == SYNTAX
    assert rc.err("XPENDING", "s", "g", "-", "+", "abc") == NOT_INT
    assert rc.err("XPENDING", "s", "g", "IDLE", "abc", "-", "+", "5") == NOT_INT
    assert rc.err("XPENDING", "s", "g", "x", "+", "5") == INVALID_ID
    assert rc.err("XPENDING", "nokey", "g") == "NOGROUP No such key 'nokey' or consumer group 'g'"
    assert rc.err("XPENDING", "s", "nog") == "NOGROUP No such key 's' or consumer group 'nog'"


# ---------------------------------------------------------------- XCLAIM / XAUTOCLAIM

def setup_pending(rc, n=3):
    fill(rc, "s", n)
    rc("XGROUP", "CREATE", "s", "g", "0")
    rc("XREADGROUP", "GROUP", "g", "alice", "STREAMS", "s", ">")


def test_xclaim_basic(rc):
    setup_pending(rc)
    got = rc("XCLAIM", "s", "g", "bob", "0", "1-0", "2-0")
    assert got == [["1-0", ["f", "1"]], ["2-0", ["f", "2"]]]
    pending = rc("XPENDING", "s", "g", "-", "+", "10")
    assert [(e[0], e[1], e[3]) for e in pending] == [
        ("1-0", "bob", 2), ("2-0", "bob", 2), ("3-0", "alice", 1)]


def test_xclaim_min_idle_and_options(rc):
    setup_pending(rc)
    assert rc("XCLAIM", "s", "g", "bob", "100000", "1-0") == []
    assert rc("XCLAIM", "s", "g", "bob", "0", "1-0", "JUSTID") == ["1-0"]
    assert rc("XPENDING", "s", "g", "-", "+", "1")[0][3] == 1  # JUSTID does not count
    rc("XCLAIM", "s", "g", "bob", "0", "1-0", "RETRYCOUNT", "7", "IDLE", "50000", "JUSTID")
    e = rc("XPENDING", "s", "g", "-", "+", "1")[0]
    assert e[3] == 7 and e[2] >= 50000
    now = int(time.time() * 1000)
    rc("XCLAIM", "s", "g", "bob", "0", "2-0", "TIME", str(now - 80000), "JUSTID")
    e = rc("XPENDING", "s", "g", "2-0", "2-0", "1")[0]
    assert e[2] >= 79000
    # A TIME in the future is clamped to now.
    rc("XCLAIM", "s", "g", "bob", "0", "2-0", "TIME", str(now + 10 ** 9), "JUSTID")
    assert rc("XPENDING", "s", "g", "2-0", "2-0", "1")[0][2] < 5000


def test_xclaim_force_and_lastid(rc):
    fill(rc, "s", 3)
    rc("XGROUP", "CREATE", "s", "g", "$")
    assert rc("XCLAIM", "s", "g", "bob", "0", "2-0") == []
    assert rc("XCLAIM", "s", "g", "bob", "0", "2-0", "FORCE", "JUSTID") == ["2-0"]
    assert rc("XPENDING", "s", "g")[0] == 1
    assert rc("XCLAIM", "s", "g", "bob", "0", "9-0", "FORCE") == []  # not in the stream
    rc("XGROUP", "SETID", "s", "g", "1-0")
    rc("XCLAIM", "s", "g", "bob", "0", "2-0", "LASTID", "2-0", "JUSTID")
    assert groups(rc, "s")["g"]["last-delivered-id"] == "2-0"


def test_xclaim_deleted_entry_leaves_pel(rc):
    setup_pending(rc)
    rc("XDEL", "s", "2-0")
    assert rc("XCLAIM", "s", "g", "bob", "0", "1-0", "2-0", "JUSTID") == ["1-0"]
    assert ids(rc("XPENDING", "s", "g", "-", "+", "10")) == ["1-0", "3-0"]


def test_xclaim_errors(rc):
    setup_pending(rc)
    assert rc.err("XCLAIM", "s", "g", "c", "abc", "1-0") == "ERR Invalid min-idle-time argument for XCLAIM"
    assert rc.err("XCLAIM", "s", "g", "c", "0", "1-0", "IDLE", "x") == "ERR Invalid IDLE option argument for XCLAIM"
    assert rc.err("XCLAIM", "s", "g", "c", "0", "1-0", "TIME", "x") == "ERR Invalid TIME option argument for XCLAIM"
    assert rc.err("XCLAIM", "s", "g", "c", "0", "1-0", "RETRYCOUNT", "x") == \
        "ERR Invalid RETRYCOUNT option argument for XCLAIM"
    assert rc.err("XCLAIM", "s", "g", "c", "0", "1-0", "bogus") == "ERR Unrecognized XCLAIM option 'bogus'"
    assert rc.err("XCLAIM", "s", "g", "c", "0", "1-0", "LASTID", "x") == INVALID_ID
    assert rc.err("XCLAIM", "nokey", "g", "c", "0", "1-0") == "NOGROUP No such key 'nokey' or consumer group 'g'"
    assert rc.err("XCLAIM", "s", "g", "c", "0") == arity("xclaim")


def test_xautoclaim(rc):
    setup_pending(rc, 5)
    got = rc("XAUTOCLAIM", "s", "g", "bob", "0", "0", "COUNT", "2")
    assert got == ["3-0", [["1-0", ["f", "1"]], ["2-0", ["f", "2"]]], []]
    got = rc("XAUTOCLAIM", "s", "g", "bob", "0", "3-0", "JUSTID")
    assert got == ["0-0", ["3-0", "4-0", "5-0"], []]
    rc("XDEL", "s", "4-0")
    got = rc("XAUTOCLAIM", "s", "g", "carol", "0", "-", "COUNT", "10")
    assert got[0] == "0-0"
    assert ids(got[1]) == ["1-0", "2-0", "3-0", "5-0"]
    assert got[2] == ["4-0"]
    assert rc("XPENDING", "s", "g")[0] == 4
    assert rc("XAUTOCLAIM", "s", "g", "dave", "100000", "0") == ["0-0", [], []]


def test_xautoclaim_errors(rc):
    setup_pending(rc)
    assert rc.err("XAUTOCLAIM", "s", "g", "c", "0", "0", "COUNT", "0") == "ERR COUNT must be > 0"
    assert rc.err("XAUTOCLAIM", "s", "g", "c", "x", "0") == "ERR Invalid min-idle-time argument for XAUTOCLAIM"
    assert rc.err("XAUTOCLAIM", "s", "g", "c", "0", "0", "bogus") == SYNTAX
    assert rc.err("XAUTOCLAIM", "s", "g", "c", "0", "(18446744073709551615-18446744073709551615") == \
        "ERR invalid start ID for the interval"
    assert rc.err("XAUTOCLAIM", "s", "nog", "c", "0", "0") == "NOGROUP No such key 's' or consumer group 'nog'"


# ---------------------------------------------------------------- XINFO

def test_xinfo_consumers(rc):
    setup_pending(rc)
    rc("XGROUP", "CREATECONSUMER", "s", "g", "idle")
    cons = [as_map(c) for c in rc("XINFO", "CONSUMERS", "s", "g")]
    assert [c["name"] for c in cons] == ["alice", "idle"]
    assert cons[0]["pending"] == 3 and cons[0]["inactive"] >= 0
    assert cons[1]["pending"] == 0 and cons[1]["inactive"] == -1
    assert rc.err("XINFO", "CONSUMERS", "s", "nog") == "NOGROUP No such consumer group 'nog' for key name 's'"
    assert rc.err("XINFO", "CONSUMERS", "nokey", "g") == "ERR no such key"


def test_xinfo_stream_full_groups(rc):
    setup_pending(rc)
    info = as_map(rc("XINFO", "STREAM", "s", "FULL"))
    g = as_map(info["groups"][0])
    assert g["name"] == "g" and g["pel-count"] == 3 and g["entries-read"] == 3
    assert [p[0] for p in g["pending"]] == ["1-0", "2-0", "3-0"]
    c = as_map(g["consumers"][0])
    assert c["name"] == "alice" and c["pel-count"] == 3
    assert [p[0] for p in c["pending"]] == ["1-0", "2-0", "3-0"]
    info = as_map(rc("XINFO", "STREAM", "s", "FULL", "COUNT", "1"))
    g = as_map(info["groups"][0])
    assert len(g["pending"]) == 1 and len(info["entries"]) == 1


# ---------------------------------------------------------------- write stream (AOF replay)

@pytest.mark.hotkv_only
def test_aof_replays_generated_ids_trims_and_group_state(tmp_path):
    """XADD * / MAXLEN ~ and the group commands are recorded as Redis propagates them
    (concrete ids, exact trims, XCLAIM ... and XGROUP SETID for XREADGROUP), so a restart
    from the AOF rebuilds the same stream and groups."""
    from conftest import ServerProcess
    srv = ServerProcess(["--appendonly", "yes"], tmp_path=tmp_path).start()
    c = srv.client(decode_responses=True)
    c.response_callbacks.clear()
    for i in range(250):
        c.execute_command("XADD", "s", "*", "f", str(i))
    c.execute_command("XADD", "s", "MAXLEN", "~", "120", "*", "f", "last")
    c.execute_command("XGROUP", "CREATE", "s", "g", "0")
    c.execute_command("XREADGROUP", "GROUP", "g", "alice", "COUNT", "10", "STREAMS", "s", ">")
    c.execute_command("XREADGROUP", "GROUP", "g", "bob", "NOACK", "COUNT", "5", "STREAMS", "s", ">")
    first = c.execute_command("XRANGE", "s", "-", "+", "COUNT", "3")
    c.execute_command("XACK", "s", "g", first[0][0])
    c.execute_command("XCLAIM", "s", "g", "carol", "0", first[1][0])
    c.execute_command("XAUTOCLAIM", "s", "g", "dave", "0", "0", "COUNT", "2")
    c.execute_command("XDEL", "s", first[2][0])
    c.execute_command("XTRIM", "s", "MINID", "~", "0")
    c.execute_command("XSETID", "s", "99999999999999-0")

    def state():
        return (c.execute_command("XRANGE", "s", "-", "+"),
                c.execute_command("XINFO", "GROUPS", "s"),
                c.execute_command("XPENDING", "s", "g", "-", "+", "100"),
                [x[:4] for x in c.execute_command("XINFO", "CONSUMERS", "s", "g")])

    before = state()
    c.close()
    srv.stop()
    srv = ServerProcess(["--appendonly", "yes"], tmp_path=tmp_path).start()
    c = srv.client(decode_responses=True)
    c.response_callbacks.clear()
    after = state()
    srv.stop()
    # Idle times differ after a restart; compare ids, owners and counts.
    strip = lambda s: (s[0], s[1], [(e[0], e[1], e[3]) for e in s[2]], s[3])
    assert strip(after) == strip(before)


def test_group_commands_do_not_invalidate_watch(server, r):
    """Redis changes consumer-group state without signalling WATCH (only XADD, XDEL,
    XTRIM and XGROUP CREATE ... MKSTREAM creating the key do)."""
    r.execute_command("XADD", "s", "1-0", "f", "v")
    r.execute_command("XGROUP", "CREATE", "s", "g", "0")
    other = server.client()
    other.response_callbacks.clear()
    with r.pipeline() as p:
        p.watch("s")
        other.execute_command("XREADGROUP", "GROUP", "g", "c", "STREAMS", "s", ">")
        other.execute_command("XACK", "s", "g", "1-0")
        other.execute_command("XGROUP", "SETID", "s", "g", "0")
        other.execute_command("XCLAIM", "s", "g", "c", "0", "1-0", "FORCE")
        other.execute_command("XSETID", "s", "5-0")
        p.multi()
        p.execute_command("XLEN", "s")
        assert p.execute() == [1]
    with r.pipeline() as p:
        p.watch("s")
        other.execute_command("XDEL", "s", "1-0")
        p.multi()
        p.execute_command("XLEN", "s")
        with pytest.raises(Exception):
            p.execute()
    other.close()


# ---------------------------------------------------------------- Redis 8.2: XDELEX / XACKDEL

def two_groups(rc):
    fill(rc, "s", 4)
    rc("XGROUP", "CREATE", "s", "g1", "0")
    rc("XGROUP", "CREATE", "s", "g2", "0")
    rc("XREADGROUP", "GROUP", "g1", "c", "STREAMS", "s", ">")
    rc("XREADGROUP", "GROUP", "g2", "c", "COUNT", "2", "STREAMS", "s", ">")


def test_xdelex_policies(rc):
    two_groups(rc)
    # 1 is pending in both groups, 3 not yet delivered to g2: ACKED keeps both.
    assert rc("XDELEX", "s", "ACKED", "IDS", "2", "1-0", "3-0") == [2, 2]
    assert rc("XDELEX", "s", "KEEPREF", "IDS", "2", "2-0", "9-0") == [1, -1]
    assert rc("XPENDING", "s", "g2")[0] == 2  # the reference to 2-0 stays
    assert rc("XDELEX", "s", "DELREF", "IDS", "1", "1-0") == [1]
    assert ids(rc("XPENDING", "s", "g2", "-", "+", "10")) == ["2-0"]
    assert ids(rc("XPENDING", "s", "g1", "-", "+", "10")) == ["2-0", "3-0", "4-0"]
    assert rc("XLEN", "s") == 2
    info = as_map(rc("XINFO", "STREAM", "s"))
    assert info["max-deleted-entry-id"] == "2-0"
    assert rc("XDELEX", "nokey", "IDS", "2", "1-0", "2-0") == [-1, -1]


def test_xackdel_policies(rc):
    two_groups(rc)
    assert rc("XACKDEL", "s", "g1", "ACKED", "IDS", "2", "1-0", "2-0") == [2, 2]
    assert ids(rc("XPENDING", "s", "g1", "-", "+", "10")) == ["3-0", "4-0"]
    assert rc("XLEN", "s") == 4
    assert rc("XACKDEL", "s", "g1", "IDS", "2", "1-0", "3-0") == [-1, 1]  # 1-0 is no longer pending in g1
    assert rc("XLEN", "s") == 3
    assert rc("XACKDEL", "s", "g2", "DELREF", "IDS", "1", "2-0") == [1]
    assert rc("XACKDEL", "s", "nog", "IDS", "1", "1-0") == [-1]
    assert rc("XACKDEL", "nokey", "g", "IDS", "1", "1-0") == [-1]


def test_xdelex_errors(rc):
    fill(rc, "s", 2)
    assert rc.err("XDELEX", "s", "IDS", "2", "1-0") == "ERR The `numids` parameter must match the number of arguments"
    assert rc.err("XDELEX", "s", "IDS", "1", "1-0", "2-0") == SYNTAX
    assert rc.err("XDELEX", "s", "IDS", "x", "1-0") == "ERR Number of IDs must be a positive integer"
    assert rc.err("XDELEX", "s", "IDS", "-1", "1-0") == "ERR Number of IDs must be a positive integer"
    assert rc.err("XDELEX", "s", "FOO", "IDS", "1", "1-0") == SYNTAX
    assert rc.err("XDELEX", "s", "KEEPREF", "DELREF", "IDS", "1", "1-0") == SYNTAX
    assert rc.err("XDELEX", "s", "IDS", "1", "bad") == INVALID_ID
    assert rc.err("XDELEX", "s", "IDS", "0") == arity("xdelex")
    rc("SET", "str", "x")
    assert rc.err("XDELEX", "str", "IDS", "1", "1-0") == WRONGTYPE


# ---------------------------------------------------------------- RDB / DUMP

def build_stream_with_groups(rc):
    for i in range(1, 260):
        if i % 5 == 0:
            rc("XADD", "s", f"{i}-{i % 3}", "other", str(i), "x", "y" * (i % 70))
        else:
            rc("XADD", "s", f"{i}-{i % 3}", "f", str(i), "g", str(-i * 1000))
    rc("XDEL", "s", "10-1", "11-2")
    rc("XADD", "s", "300-0", "big", "z" * 5000)
    rc("XGROUP", "CREATE", "s", "g1", "0")
    rc("XGROUP", "CREATE", "s", "g2", "$", "ENTRIESREAD", "3")
    rc("XREADGROUP", "GROUP", "g1", "alice", "COUNT", "5", "STREAMS", "s", ">")
    rc("XREADGROUP", "GROUP", "g1", "bob", "COUNT", "3", "STREAMS", "s", ">")
    rc("XGROUP", "CREATECONSUMER", "s", "g2", "carol")


def stream_state(rc, key):
    info = as_map(rc("XINFO", "STREAM", key))
    meta = [info[k] for k in ("length", "last-generated-id", "max-deleted-entry-id",
                              "entries-added", "recorded-first-entry-id")]
    groups = []
    for g in rc("XINFO", "GROUPS", key):
        g = as_map(g)
        groups.append([g["name"], g["consumers"], g["pending"], g["last-delivered-id"],
                       g["entries-read"]])
        groups.append([(e[0], e[1], e[3]) for e in rc("XPENDING", key, g["name"], "-", "+", "100")])
        groups.append([as_map(c)["name"] for c in rc("XINFO", "CONSUMERS", key, g["name"])])
    return rc("XRANGE", key, "-", "+"), meta, groups


def test_dump_restore_roundtrip(server, r, rb):
    rc = r.execute_command
    r.response_callbacks.clear()
    build_stream_with_groups(rc)
    payload = rb.execute_command("DUMP", "s")
    rb.execute_command("RESTORE", "s2", "0", payload)
    assert stream_state(rc, "s2") == stream_state(rc, "s")


@pytest.mark.hotkv_only
def test_debug_reload_keeps_streams(server, r):
    rc = r.execute_command
    r.response_callbacks.clear()
    build_stream_with_groups(rc)
    before = stream_state(rc, "s")
    assert rc("DEBUG", "RELOAD") in ("OK", b"OK")
    assert stream_state(rc, "s") == before


@pytest.mark.hotkv_only
@pytest.mark.parametrize("preamble", ["yes", "no"])
def test_aof_rewrite_keeps_streams(tmp_path, preamble):
    """BGREWRITEAOF writes streams into the base (RDB encoding, or XADD/XSETID/XGROUP/
    XCLAIM commands without the preamble); a restart from it rebuilds them."""
    from conftest import ServerProcess, wait_until
    args = ["--appendonly", "yes", "--aof-use-rdb-preamble", preamble]
    srv = ServerProcess(args, tmp_path=tmp_path).start()
    c = srv.client(decode_responses=True)
    c.response_callbacks.clear()
    rc = c.execute_command
    build_stream_with_groups(rc)
    rc("XGROUP", "CREATE", "empty", "g", "$", "MKSTREAM")
    before = stream_state(rc, "s"), stream_state(rc, "empty")
    rc("BGREWRITEAOF")
    wait_until(lambda: c.execute_command("INFO", "persistence").find("aof_rewrite_in_progress:0") >= 0
               and "aof_last_bgrewrite_status:ok" in c.execute_command("INFO", "persistence"))
    c.close()
    srv.stop()
    srv = ServerProcess(args, tmp_path=tmp_path).start()
    c = srv.client(decode_responses=True)
    c.response_callbacks.clear()
    after = stream_state(c.execute_command, "s"), stream_state(c.execute_command, "empty")
    srv.stop()
    assert after == before
