"""Redis 8.4-8.6 stream additions: XREADGROUP ... CLAIM min-idle-time, XADD IDMP /
IDMPAUTO (idempotent producers), XCFGSET, XIDMPRECORD and XINFO STREAM's idmp fields.
Expectations are what Redis 8.8 answers (checked against the peer; the streams8 family of
tests/differential/diff_vs_redis.py compares random streams of these). Delivery times are
set with XCLAIM ... TIME so that idle times and claim order do not depend on the clock."""
import pytest

from conftest import cmd, error_reply, restarted_with_aof

pytestmark = pytest.mark.redis8

LONG_AGO = 1000000000000  # ms: 2001


def info(c, key="s"):
    v = cmd(c, "XINFO", "STREAM", key)
    return dict(zip(v[::2], v[1::2]))


def pending(c):
    return [(e[0], e[1], e[3]) for e in cmd(c, "XPENDING", "s", "g", "-", "+", "100")]


@pytest.fixture
def claimable(r):
    """s: 1-0..5-0; group g delivered 1-0..3-0 to c1, then XCLAIM set their delivery times
    (3-0 oldest, then 1-0, then 2-0) and counts; 4-0 and 5-0 never delivered."""
    r.delete("s")
    for i in range(1, 6):
        r.xadd("s", {"f": str(i)}, id=f"{i}-0")
    r.xgroup_create("s", "g", "0")
    r.xreadgroup("g", "c1", {"s": ">"}, count=3)
    for id_, t, n in (("3-0", LONG_AGO, 4), ("1-0", LONG_AGO + 1, 2), ("2-0", LONG_AGO + 2, 1)):
        cmd(r, "XCLAIM", "s", "g", "c1", "0", id_, "TIME", str(t), "RETRYCOUNT", str(n), "JUSTID")
    return r


def claim_entries(reply):
    """[(id, fields, idle is big, delivery count)] of a one-stream XREADGROUP reply."""
    return [(e[0], e[1], e[2] > 10**9, e[3]) for e in reply[0][1]]


def test_claim_delivers_idle_pending_oldest_first_then_new(claimable):
    r = claimable
    reply = cmd(r, "XREADGROUP", "GROUP", "g", "c2", "CLAIM", "0", "STREAMS", "s", ">")
    assert claim_entries(reply) == [
        ("3-0", ["f", "3"], True, 4), ("1-0", ["f", "1"], True, 2), ("2-0", ["f", "2"], True, 1),
        ("4-0", ["f", "4"], False, 0), ("5-0", ["f", "5"], False, 0)]
    assert reply[0][1][3][2] == 0  # new entries: idle 0, delivery count 0
    # Claimed: owned by c2, count + 1; new ones pending for c2 with count 1.
    assert pending(r) == [("1-0", "c2", 3), ("2-0", "c2", 2), ("3-0", "c2", 5),
                          ("4-0", "c2", 1), ("5-0", "c2", 1)]
    g = r.xinfo_groups("s")[0]
    assert (g["last-delivered-id"], g["entries-read"], g["lag"]) == ("5-0", 5, 0)


def test_claim_takes_equal_delivery_times_in_the_order_they_were_set(r):
    """Redis 8.8's time index keeps pending entries of equal delivery time in the order
    their times were set, not by id: XCLAIM ... TIME T for 3-0, 1-0, 2-0 claims them in
    that order, and entries claimed together by one XREADGROUP (one time) come back in
    the order that command claimed them (checked against Redis 8.8)."""
    r.delete("s")
    for i in range(1, 6):
        r.xadd("s", {"f": str(i)}, id=f"{i}-0")
    r.xgroup_create("s", "g", "0")
    r.xreadgroup("g", "c1", {"s": ">"}, count=3)
    for id_ in ("3-0", "1-0", "2-0"):
        cmd(r, "XCLAIM", "s", "g", "c1", "0", id_, "TIME", str(LONG_AGO), "JUSTID")
    reply = cmd(r, "XREADGROUP", "GROUP", "g", "c2", "CLAIM", "0", "STREAMS", "s", ">")
    assert [e[0] for e in reply[0][1]] == ["3-0", "1-0", "2-0", "4-0", "5-0"]
    # All five now share one delivery time, stamped in that order.
    reply = cmd(r, "XREADGROUP", "GROUP", "g", "c3", "COUNT", "2", "CLAIM", "0", "STREAMS", "s", ">")
    assert [e[0] for e in reply[0][1]] == ["3-0", "1-0"]


def test_claim_count_covers_claimed_and_new(claimable):
    r = claimable
    idle = "1000000"  # 1000 s: the entries claimed just now are not idle enough
    reply = cmd(r, "XREADGROUP", "GROUP", "g", "c2", "COUNT", "2", "CLAIM", idle, "STREAMS", "s", ">")
    assert [e[0] for e in reply[0][1]] == ["3-0", "1-0"]
    reply = cmd(r, "XREADGROUP", "GROUP", "g", "c2", "COUNT", "2", "CLAIM", idle, "STREAMS", "s", ">")
    # 2-0 is the only one left idle enough; one slot left for a new entry.
    assert [e[0] for e in reply[0][1]] == ["2-0", "4-0"]
    assert r.xinfo_groups("s")[0]["last-delivered-id"] == "4-0"


def test_claim_min_idle_filters_and_without_candidates_reads_new_only(claimable):
    r = claimable
    big = str(10**15)  # idle of nothing pending reaches this
    reply = cmd(r, "XREADGROUP", "GROUP", "g", "c2", "CLAIM", big, "STREAMS", "s", ">")
    assert [(e[0], e[2], e[3]) for e in reply[0][1]] == [("4-0", 0, 0), ("5-0", 0, 0)]
    # Nothing idle enough and nothing new: nil, as without CLAIM.
    assert cmd(r, "XREADGROUP", "GROUP", "g", "c2", "CLAIM", big, "STREAMS", "s", ">") is None


def test_claim_skips_deleted_entries_and_keeps_them_pending(claimable):
    r = claimable
    r.xdel("s", "3-0")
    reply = cmd(r, "XREADGROUP", "GROUP", "g", "c2", "COUNT", "1", "CLAIM", "0", "STREAMS", "s", ">")
    assert [e[0] for e in reply[0][1]] == ["1-0"]
    assert ("3-0", "c1", 4) in pending(r)


def test_claim_with_noack_still_claims_and_counts(claimable):
    r = claimable
    reply = cmd(r, "XREADGROUP", "GROUP", "g", "c2", "CLAIM", "0", "NOACK", "STREAMS", "s", ">")
    assert [e[0] for e in reply[0][1]] == ["3-0", "1-0", "2-0", "4-0", "5-0"]
    # The claimed entries move to c2 with their counts raised; NOACK's new ones stay out.
    assert pending(r) == [("1-0", "c2", 3), ("2-0", "c2", 2), ("3-0", "c2", 5)]


def test_claim_is_ignored_when_reading_history(claimable):
    r = claimable
    reply = cmd(r, "XREADGROUP", "GROUP", "g", "c1", "CLAIM", "0", "STREAMS", "s", "0")
    assert reply[0][1] == [["1-0", ["f", "1"]], ["2-0", ["f", "2"]], ["3-0", ["f", "3"]]]


def test_claim_with_several_streams(claimable):
    r = claimable
    r.delete("t")
    r.xadd("t", {"a": "b"}, id="1-0")
    r.xgroup_create("t", "g", "0")
    reply = cmd(r, "XREADGROUP", "GROUP", "g", "c2", "COUNT", "1", "CLAIM", "0",
                "STREAMS", "s", "t", ">", ">")
    assert [(k, [e[0] for e in es]) for k, es in reply] == [("s", ["3-0"]), ("t", ["1-0"])]
    assert reply[1][1][0][2:] == [0, 0]


def test_claim_errors(claimable):
    r = claimable
    base = ("XREADGROUP", "GROUP", "g", "c2")
    assert error_reply(r, *base, "CLAIM", "-1", "STREAMS", "s", ">") == \
        "ERR min-idle-time must be a positive integer"
    for bad in ("abc", "1.5", "99999999999999999999"):
        assert error_reply(r, *base, "CLAIM", bad, "STREAMS", "s", ">") == \
            "ERR min-idle-time is not an integer or out of range"
    assert error_reply(r, *base, "CLAIM", "STREAMS", "s", ">") == \
        "ERR min-idle-time is not an integer or out of range"
    assert error_reply(r, "XREAD", "CLAIM", "0", "STREAMS", "s", "0") == \
        "ERR The CLAIM option is only supported by XREADGROUP. You called XREAD instead."
    assert error_reply(r, "XREADGROUP", "GROUP", "nog", "c", "CLAIM", "0", "STREAMS", "s", ">") == \
        "NOGROUP No such key 's' or consumer group 'nog' in XREADGROUP with GROUP option"


def test_claim_replays_from_aof(tmp_path):
    def make(c):
        for i in range(1, 4):
            c.xadd("s", {"f": str(i)}, id=f"{i}-0")
        c.xgroup_create("s", "g", "0")
        c.xreadgroup("g", "c1", {"s": ">"}, count=2)
        cmd(c, "XREADGROUP", "GROUP", "g", "c2", "CLAIM", "0", "STREAMS", "s", ">")

    def read(c):
        return [(e[0], e[1], e[3]) for e in cmd(c, "XPENDING", "s", "g", "-", "+", "10")]

    before, after = restarted_with_aof(tmp_path, make, read)
    assert before == after == [("1-0", "c2", 2), ("2-0", "c2", 2), ("3-0", "c2", 1)]


# --- XADD IDMP / IDMPAUTO ----------------------------------------------------------------

def test_idmp_answers_the_first_id_for_a_repeated_pair(r):
    r.delete("s")
    a = cmd(r, "XADD", "s", "IDMP", "p1", "i1", "*", "f", "1")
    assert cmd(r, "XADD", "s", "IDMP", "p1", "i1", "*", "f", "other") == a
    b = cmd(r, "XADD", "s", "IDMP", "p1", "i2", "*", "f", "1")
    c = cmd(r, "XADD", "s", "IDMP", "p2", "i1", "*", "f", "1")
    assert len({a, b, c}) == 3
    assert r.xlen("s") == 3
    i = info(r)
    assert (i["idmp-duration"], i["idmp-maxsize"], i["pids-tracked"], i["iids-tracked"],
            i["iids-added"], i["iids-duplicates"]) == (100, 100, 2, 3, 3, 1)


def test_idmp_remembers_ids_of_deleted_and_trimmed_entries(r):
    r.delete("s")
    a = cmd(r, "XADD", "s", "IDMP", "p", "i", "*", "f", "1")
    r.xdel("s", a)
    assert cmd(r, "XADD", "s", "IDMP", "p", "i", "*", "f", "1") == a
    r.xtrim("s", 0)
    assert cmd(r, "XADD", "s", "IDMP", "p", "i", "*", "f", "1") == a
    assert r.xlen("s") == 0


def test_idmpauto_keys_on_the_fields_in_any_order(r):
    r.delete("s")
    a = cmd(r, "XADD", "s", "IDMPAUTO", "p", "*", "f", "1", "g", "2")
    assert cmd(r, "XADD", "s", "IDMPAUTO", "p", "*", "g", "2", "f", "1") == a
    assert cmd(r, "XADD", "s", "IDMPAUTO", "p", "*", "f", "1", "g", "3") != a
    assert cmd(r, "XADD", "s", "IDMPAUTO", "q", "*", "f", "1", "g", "2") != a
    assert cmd(r, "XADD", "s", "idmpauto", "p", "*", "F", "1", "g", "2") != a
    assert info(r)["iids-duplicates"] == 1


def test_idmp_maxsize_is_per_producer_oldest_first(r):
    r.delete("s")
    first = cmd(r, "XADD", "s", "IDMP", "p1", "a", "*", "f", "1")
    assert cmd(r, "XCFGSET", "s", "IDMP-MAXSIZE", "2") == "OK"
    # A changed setting forgets what was recorded.
    assert cmd(r, "XADD", "s", "IDMP", "p1", "a", "*", "f", "1") != first
    for iid in ("b", "c"):
        cmd(r, "XADD", "s", "IDMP", "p1", iid, "*", "f", "1")
    cmd(r, "XADD", "s", "IDMP", "p2", "a", "*", "f", "1")
    assert (info(r)["pids-tracked"], info(r)["iids-tracked"]) == (2, 3)
    c = cmd(r, "XADD", "s", "IDMP", "p1", "c", "*", "f", "1")
    assert cmd(r, "XADD", "s", "IDMP", "p1", "c", "*", "f", "1") == c  # still recorded
    n = r.xlen("s")
    cmd(r, "XADD", "s", "IDMP", "p1", "a", "*", "f", "1")  # "a" was dropped
    assert r.xlen("s") == n + 1


def test_idmp_with_nomkstream_and_trimming(r):
    r.delete("s")
    assert cmd(r, "XADD", "s", "NOMKSTREAM", "IDMP", "p", "i", "*", "f", "1") is None
    assert not r.exists("s")
    a = cmd(r, "XADD", "s", "MAXLEN", "1", "IDMP", "p", "i", "*", "f", "1")
    cmd(r, "XADD", "s", "IDMP", "p", "j", "MAXLEN", "1", "*", "f", "2")
    assert cmd(r, "XADD", "s", "IDMP", "p", "i", "MAXLEN", "1", "*", "f", "1") == a
    assert r.xlen("s") == 1


def test_idmp_errors(r):
    r.delete("s")
    r.xadd("s", {"f": "1"}, id="1-0")
    assert error_reply(r, "XADD", "s", "IDMP", "p", "i", "5-0", "f", "1") == \
        "ERR syntax error, IDMP/IDMPAUTO can be used only with auto-generated IDs"
    assert error_reply(r, "XADD", "s", "IDMPAUTO", "p", "5-*", "f", "1") == \
        "ERR syntax error, IDMP/IDMPAUTO can be used only with auto-generated IDs"
    assert error_reply(r, "XADD", "s", "IDMP", "", "i", "*", "f", "1") == \
        "ERR syntax error, IDMP requires a non-empty producer ID"
    assert error_reply(r, "XADD", "s", "IDMP", "p", "", "*", "f", "1") == \
        "ERR syntax error, IDMP requires a non-empty idempotent ID"
    assert error_reply(r, "XADD", "s", "IDMPAUTO", "", "*", "f", "1") == \
        "ERR syntax error, IDMPAUTO requires a non-empty producer ID"
    for args in (("IDMPAUTO", "p", "IDMP", "p", "i"), ("IDMP", "p", "i", "IDMPAUTO", "p"),
                 ("IDMP", "p", "i", "IDMP", "p", "j")):
        assert error_reply(r, "XADD", "s", *args, "*", "f", "1") == \
            "ERR syntax error, IDMP/IDMPAUTO specified multiple times"
    # IDMP's iid taken as "*": the next word is the id.
    assert error_reply(r, "XADD", "s", "IDMP", "p", "*", "f", "1") == \
        "ERR Invalid stream ID specified as stream command argument"
    r.set("str", "x")
    assert error_reply(r, "XADD", "str", "IDMP", "p", "i", "*", "f", "1").startswith("WRONGTYPE")


def test_idmp_replays_from_aof(tmp_path):
    def make(c):
        cmd(c, "XADD", "s", "IDMP", "p", "i", "*", "f", "1")
        cmd(c, "XADD", "s", "IDMP", "p", "i", "*", "f", "1")
        cmd(c, "XADD", "s", "IDMPAUTO", "q", "*", "f", "1")
        cmd(c, "XCFGSET", "s", "IDMP-MAXSIZE", "5")
        cmd(c, "XADD", "s", "IDMPAUTO", "q", "*", "f", "1")
        cmd(c, "XADD", "s", "IDMPAUTO", "q", "*", "f", "1")

    def read(c):
        i = info(c)
        ids = [e[0] for e in c.xrange("s")]
        dup = cmd(c, "XADD", "s", "IDMPAUTO", "q", "*", "f", "1")  # a duplicate: no entry
        return (ids, dup, i["idmp-maxsize"], i["iids-tracked"], i["iids-added"],
                i["iids-duplicates"])

    before, after = restarted_with_aof(tmp_path, make, read)
    assert len(before[0]) == 3 and before[2:] == (5, 1, 3, 2)
    # The replay answered the duplicates as they ran (the first read's one too).
    assert after[:2] == before[:2] and after[2:] == (5, 1, 3, 3)


# --- XCFGSET / XIDMPRECORD / XINFO ------------------------------------------------------

def test_xcfgset_sets_and_validates(r):
    r.delete("s")
    r.xadd("s", {"f": "1"}, id="1-0")
    assert cmd(r, "XCFGSET", "s", "IDMP-DURATION", "60", "IDMP-MAXSIZE", "7") == "OK"
    assert (info(r)["idmp-duration"], info(r)["idmp-maxsize"]) == (60, 7)
    a = cmd(r, "XADD", "s", "IDMP", "p", "i", "*", "f", "1")
    assert cmd(r, "XCFGSET", "s", "idmp-maxsize", "7") == "OK"  # unchanged: records kept
    assert cmd(r, "XADD", "s", "IDMP", "p", "i", "*", "f", "1") == a
    errors = {
        (): "ERR At least one parameter must be specified",
        ("IDMP-DURATION", "0"): "ERR IDMP-DURATION must be between 1 and 86400 seconds",
        ("IDMP-DURATION", "86401"): "ERR IDMP-DURATION must be between 1 and 86400 seconds",
        ("IDMP-MAXSIZE", "0"): "ERR IDMP-MAXSIZE must be between 1 and 10000 entries",
        ("IDMP-MAXSIZE", "10001"): "ERR IDMP-MAXSIZE must be between 1 and 10000 entries",
        ("IDMP-MAXSIZE", "x"): "ERR value is not an integer or out of range",
        ("IDMP-MAXSIZE", "5", "IDMP-MAXSIZE", "6"): "ERR IDMP-MAXSIZE specified multiple times",
        ("IDMP-DURATION", "5", "IDMP-DURATION", "6"): "ERR IDMP-DURATION specified multiple times",
        ("FOO", "1"): "ERR syntax error",
        ("IDMP-MAXSIZE",): "ERR syntax error",
        ("IDMP-MAXSIZE", "0", "IDMP-DURATION"): "ERR IDMP-MAXSIZE must be between 1 and 10000 entries",
    }
    for args, text in errors.items():
        assert error_reply(r, "XCFGSET", "s", *args) == text, args
    # The key is looked up first.
    assert error_reply(r, "XCFGSET", "nokey", "FOO") == "ERR no such key"
    r.set("str", "x")
    assert error_reply(r, "XCFGSET", "str").startswith("WRONGTYPE")


def test_new_streams_take_the_server_settings(r, restore_config):
    restore_config("stream-idmp-duration", "stream-idmp-maxsize")
    r.delete("s", "t")
    r.config_set("stream-idmp-maxsize", "7")
    r.config_set("stream-idmp-duration", "50")
    r.xadd("s", {"f": "1"})
    r.xgroup_create("t", "g", "$", mkstream=True)
    r.config_set("stream-idmp-maxsize", "100")
    r.config_set("stream-idmp-duration", "100")
    for k in ("s", "t"):
        assert (info(r, k)["idmp-duration"], info(r, k)["idmp-maxsize"]) == (50, 7)
    assert error_reply(r, "CONFIG", "SET", "stream-idmp-maxsize", "0").startswith("ERR")


def test_xidmprecord(r):
    r.delete("s")
    a = cmd(r, "XADD", "s", "*", "f", "1")
    assert cmd(r, "XIDMPRECORD", "s", "p", "i", a) == "OK"
    assert cmd(r, "XIDMPRECORD", "s", "p", "i", a) == "OK"
    assert cmd(r, "XADD", "s", "IDMP", "p", "i", "*", "f", "2") == a
    assert (info(r)["iids-added"], info(r)["iids-duplicates"]) == (1, 1)
    b = cmd(r, "XADD", "s", "*", "f", "1")
    assert error_reply(r, "XIDMPRECORD", "s", "p", "i", b) == \
        "ERR IID already exists for this producer with a different stream ID"
    assert error_reply(r, "XIDMPRECORD", "s", "p", "j", "1-1") == "ERR No such message in stream"
    # Checked in Redis's order: the id, the pid, the iid, then the key.
    assert error_reply(r, "XIDMPRECORD", "nokey", "", "", "x") == \
        "ERR Invalid stream ID specified as stream command argument"
    assert error_reply(r, "XIDMPRECORD", "nokey", "", "", "1-1") == "ERR producer ID must be non-empty"
    assert error_reply(r, "XIDMPRECORD", "nokey", "p", "", "1-1") == "ERR idempotent ID must be non-empty"
    assert error_reply(r, "XIDMPRECORD", "nokey", "p", "i", "1-1") == "ERR no such key"
    r.set("str", "x")
    assert error_reply(r, "XIDMPRECORD", "str", "p", "i", "1-1").startswith("WRONGTYPE")


def test_xinfo_stream_full_has_idmp_fields(r):
    r.delete("s")
    cmd(r, "XADD", "s", "IDMP", "p", "i", "*", "f", "1")
    v = cmd(r, "XINFO", "STREAM", "s", "FULL")
    keys = v[::2]
    assert keys == ["length", "radix-tree-keys", "radix-tree-nodes", "last-generated-id",
                    "max-deleted-entry-id", "entries-added", "recorded-first-entry-id",
                    "idmp-duration", "idmp-maxsize", "pids-tracked", "iids-tracked",
                    "iids-added", "iids-duplicates", "entries", "groups"]
    short = cmd(r, "XINFO", "STREAM", "s")[::2]
    assert short[7:13] == keys[7:13] and short[13:] == ["groups", "first-entry", "last-entry"]


def test_copy_keeps_idmp_state(r):
    r.delete("s", "t")
    a = cmd(r, "XADD", "s", "IDMP", "p", "i", "*", "f", "1")
    cmd(r, "XCFGSET", "s", "IDMP-MAXSIZE", "9")
    a = cmd(r, "XADD", "s", "IDMP", "p", "i", "*", "f", "1")
    assert r.copy("s", "t")
    assert cmd(r, "XADD", "t", "IDMP", "p", "i", "*", "f", "1") == a
    assert info(r, "t")["idmp-maxsize"] == 9


# --- XNACK (Redis 8.8) --------------------------------------------------------------------

@pytest.fixture
def delivered(r):
    """s: 1-0..7-0; group g delivered 1-0..4-0 to c1 (delivery count 1)."""
    r.delete("s")
    for i in range(1, 8):
        r.xadd("s", {"f": str(i)}, id=f"{i}-0")
    r.xgroup_create("s", "g", "0")
    r.xreadgroup("g", "c1", {"s": ">"}, count=4)
    return r


def nack(r, *args):
    return cmd(r, "XNACK", "s", "g", *args)


def test_xnack_modes_release_entries(delivered):
    r = delivered
    assert nack(r, "SILENT", "IDS", "1", "1-0") == 1
    assert nack(r, "silent", "IDS", "1", "1-0") == 1  # again: count stays at 0
    assert nack(r, "FAIL", "IDS", "1", "2-0") == 1
    assert nack(r, "FATAL", "IDS", "1", "3-0") == 1
    rows = cmd(r, "XPENDING", "s", "g", "-", "+", "10")
    # Released: no consumer, idle -1; SILENT takes the delivery back, FATAL marks it dead.
    assert rows[:3] == [["1-0", "", -1, 0], ["2-0", "", -1, 1], ["3-0", "", -1, 2**63 - 1]]
    assert rows[3][:2] == ["4-0", "c1"]
    assert cmd(r, "XPENDING", "s", "g") == [4, "1-0", "4-0", [["c1", "1"]]]
    assert cmd(r, "XPENDING", "s", "g", "-", "+", "10", "c1")[0][0] == "4-0"
    # IDLE filters: released entries always pass.
    assert [x[0] for x in cmd(r, "XPENDING", "s", "g", "IDLE", "100000000", "-", "+", "10")] == \
        ["1-0", "2-0", "3-0"]
    assert r.xinfo_consumers("s", "g")[0]["pending"] == 1


def test_xnack_retrycount_force_and_counting(delivered):
    r = delivered
    assert nack(r, "FAIL", "IDS", "2", "9-0", "5-0") == 0  # neither pending
    assert nack(r, "FAIL", "IDS", "1", "5-0", "FORCE") == 1  # exists: released, count 0
    assert nack(r, "FATAL", "IDS", "1", "9-0", "FORCE") == 0  # no such entry
    assert nack(r, "SILENT", "RETRYCOUNT", "7", "IDS", "1", "1-0") == 1  # options in any order
    assert nack(r, "FAIL", "IDS", "2", "2-0", "2-0") == 2  # repeats count
    assert nack(r, "FAIL", "IDS", "1", "3-0", "IDS", "1", "4-0") == 1  # the last IDS counts
    rows = {x[0]: x[1:] for x in cmd(r, "XPENDING", "s", "g", "-", "+", "10")}
    assert rows == {"1-0": ["", -1, 7], "2-0": ["", -1, 1], "3-0": ["c1", rows["3-0"][1], 1],
                    "4-0": ["", -1, 1], "5-0": ["", -1, 0]}
    # A deleted entry that is pending can still be released.
    r.xdel("s", "3-0")
    assert nack(r, "FAIL", "IDS", "1", "3-0") == 1


def test_claim_takes_released_entries_first_in_nack_order(delivered):
    r = delivered
    cmd(r, "XCLAIM", "s", "g", "c1", "0", "4-0", "TIME", str(LONG_AGO), "JUSTID")
    nack(r, "FAIL", "IDS", "1", "2-0")
    nack(r, "FAIL", "IDS", "1", "1-0")
    nack(r, "FATAL", "IDS", "1", "3-0")
    assert cmd(r, "XREADGROUP", "GROUP", "g", "c2", "COUNT", "10", "STREAMS", "s", ">")[0][1][0][0] == "5-0"
    reply = cmd(r, "XREADGROUP", "GROUP", "g", "c3", "COUNT", "4", "CLAIM", "1000000",
                "STREAMS", "s", ">")
    # Released ones (idle = the time since 1970) in nack order, then the idlest.
    assert [(e[0], e[3]) for e in reply[0][1]] == [("2-0", 1), ("1-0", 1), ("3-0", 2**63 - 1),
                                                   ("4-0", 1)]
    assert reply[0][1][0][2] > LONG_AGO
    rows = {x[0]: (x[1], x[3]) for x in cmd(r, "XPENDING", "s", "g", "-", "+", "10")}
    assert rows["3-0"] == ("c3", 2**63 - 1)  # saturated, not wrapped
    assert rows["2-0"] == ("c3", 2)
    # Plain ">" reads never redeliver released entries.
    nack(r, "FAIL", "IDS", "1", "2-0")
    assert cmd(r, "XREADGROUP", "GROUP", "g", "c2", "STREAMS", "s", ">") is None


def test_xnack_with_xclaim_xautoclaim_and_xinfo(delivered):
    r = delivered
    nack(r, "FAIL", "IDS", "2", "1-0", "2-0")
    full = cmd(r, "XINFO", "STREAM", "s", "FULL")
    g = dict(zip(full[-1][0][::2], full[-1][0][1::2]))
    assert (g["pel-count"], g["nacked-count"]) == (4, 2)
    assert g["pending"][0] == ["1-0", "", 0, 1]
    assert list(g)[:7] == ["name", "last-delivered-id", "entries-read", "lag", "pel-count",
                           "nacked-count", "pending"]
    assert cmd(r, "XCLAIM", "s", "g", "c9", "0", "1-0", "JUSTID") == ["1-0"]
    assert cmd(r, "XAUTOCLAIM", "s", "g", "c9", "1000000", "0", "JUSTID") == ["0-0", ["2-0"], []]
    assert nack(r, "FAIL", "IDS", "1", "1-0") == 1
    assert r.xack("s", "g", "1-0") == 1


def test_xnack_errors(delivered):
    r = delivered
    base = ("XNACK", "s", "g")
    assert error_reply(r, *base, "BOGUS", "IDS", "1", "1-0") == "ERR mode must be SILENT, FAIL, or FATAL"
    assert error_reply(r, *base, "FAIL", "IDS", "2", "1-0") == "ERR number of IDs doesn't match numids"
    for n in ("0", "-1", "x"):
        assert error_reply(r, *base, "FAIL", "IDS", n, "1-0") == "ERR numids must be a positive integer"
    assert error_reply(r, *base, "FAIL", "IDS", "1", "bad") == \
        "ERR Invalid stream ID specified as stream command argument"
    assert error_reply(r, *base, "FAIL", "IDS", "1", "1-0", "RETRYCOUNT", "-1") == \
        "ERR Invalid RETRYCOUNT value, must be >= 0"
    assert error_reply(r, *base, "FAIL", "IDS", "1", "1-0", "RETRYCOUNT", "x") == \
        "ERR value is not an integer or out of range"
    assert error_reply(r, *base, "FAIL", "IDS", "1", "1-0", "RETRYCOUNT") == \
        "ERR Unrecognized XNACK option 'RETRYCOUNT'"
    assert error_reply(r, *base, "FAIL", "IDS", "1", "1-0", "2-0") == "ERR Unrecognized XNACK option '2-0'"
    assert error_reply(r, *base, "FAIL", "FORCE", "FORCE", "FORCE") == "ERR syntax error, expected IDS keyword"
    assert error_reply(r, *base, "FAIL", "IDS", "0").startswith("ERR wrong number of arguments")
    # The key and group come first.
    assert error_reply(r, "XNACK", "s", "nog", "BOGUS", "IDS", "1", "1-0") == \
        "NOGROUP No such key 's' or consumer group 'nog'"
    assert error_reply(r, "XNACK", "nokey", "g", "FAIL", "IDS", "x", "1-0") == \
        "NOGROUP No such key 'nokey' or consumer group 'g'"
    r.set("str", "x")
    assert error_reply(r, "XNACK", "str", "g", "FAIL", "IDS", "1", "1-0").startswith("WRONGTYPE")


# --- Persistence of the new state ---------------------------------------------------------

# DUMP of Redis 8.8 (RDB type 27): s 1-0..3-0, group g (c read all; 3-0 XCLAIMed with TIME
# 1000, 2-0 released with FAIL, then 1-0 with FATAL), XCFGSET IDMP-MAXSIZE 5, and an
# XIDMPRECORD pA iA 3-0 (expired at once: its entry time is 3 ms).
REDIS88_DUMP = bytes.fromhex(
    "1b011000000000000000010000000000000000c32a3311330000001400030100010101816602000102200a"
    "05000181760204200a0001e0010a401740150101ff030300010000000301016703000303000000000000"
    "000100000000000000000000000000000000817fffffffffffffff00000000000000020000000000000000"
    "00000000000000000100000000000000030000000000000000e8030000000000000101016327737537a2"
    "01000027737537a2010000010000000000000003000000000000000002000000000000000200000000000000"
    "0000000000000000010000000000000000406405010270410001000e006de4d9d22517186b")


def test_restore_redis88_stream_dump(r):
    r.delete("s")
    assert r.restore("s", 0, REDIS88_DUMP)
    rows = cmd(r, "XPENDING", "s", "g", "-", "+", "10")
    assert rows[0] == ["1-0", "", -1, 2**63 - 1] and rows[1] == ["2-0", "", -1, 1]
    assert rows[2][:2] == ["3-0", "c"]
    i = info(r)
    assert (i["idmp-maxsize"], i["idmp-duration"], i["iids-tracked"], i["iids-added"]) == (5, 100, 0, 1)
    reply = cmd(r, "XREADGROUP", "GROUP", "g", "c2", "CLAIM", "0", "STREAMS", "s", ">")
    assert [e[0] for e in reply[0][1]] == ["2-0", "1-0", "3-0"]  # nack order kept


@pytest.mark.hotkv_only  # Redis 8.8 writes type 27 for every stream
def test_dump_type_is_27_only_with_new_state(r):
    r.delete("s")
    r.xadd("s", {"f": "v"}, id="1-0")
    r.xgroup_create("s", "g", "0")
    r.xreadgroup("g", "c", {"s": ">"})
    assert r.dump("s")[0] == 19  # Redis 7.0 reads it
    cmd(r, "XNACK", "s", "g", "FAIL", "IDS", "1", "1-0")
    assert r.dump("s")[0] == 27
    r.xclaim("s", "g", "c", 0, ["1-0"])
    assert r.dump("s")[0] == 19
    cmd(r, "XCFGSET", "s", "IDMP-MAXSIZE", "5")
    assert r.dump("s")[0] == 27
    payload = r.dump("s")
    r.delete("t")
    r.restore("t", 0, payload)
    assert info(r, "t")["idmp-maxsize"] == 5


def new_state(c):
    """A stream with IDMP records, settings, a released entry, and a claimed one."""
    cmd(c, "XADD", "s", "99999999999990-0", "f", "0")
    cmd(c, "XADD", "s", "IDMP", "p", "i", "*", "f", "1")
    cmd(c, "XADD", "s", "IDMPAUTO", "q", "*", "f", "2")
    cmd(c, "XADD", "s", "IDMP", "p", "i", "*", "f", "1")
    cmd(c, "XCFGSET", "s", "IDMP-DURATION", "500")
    cmd(c, "XADD", "s", "IDMP", "p", "j", "*", "f", "3")
    c.xgroup_create("s", "g", "0")
    c.xreadgroup("g", "c", {"s": ">"})
    cmd(c, "XNACK", "s", "g", "FATAL", "IDS", "1", "99999999999990-2")
    cmd(c, "XNACK", "s", "g", "SILENT", "IDS", "1", "99999999999990-0")


def read_state(c):
    i = info(c)
    rows = [(x[0], x[1], x[3]) for x in cmd(c, "XPENDING", "s", "g", "-", "+", "10")]
    return (i["idmp-duration"], i["pids-tracked"], i["iids-tracked"], rows,
            cmd(c, "XADD", "s", "IDMP", "p", "j", "*", "f", "3"))


def test_debug_reload_keeps_new_state(r):
    r.delete("s")
    new_state(r)
    before = read_state(r)
    assert before[:3] == (500, 1, 1) and before[4] == "99999999999990-3"
    assert cmd(r, "DEBUG", "RELOAD") == "OK"
    assert read_state(r) == before


@pytest.mark.hotkv_only
@pytest.mark.parametrize("preamble", ["yes", "no"])
def test_aof_rewrite_keeps_new_state(tmp_path, preamble):
    from conftest import ServerProcess, wait_until
    args = ["--appendonly", "yes", "--aof-use-rdb-preamble", preamble]
    srv = ServerProcess(args, tmp_path=tmp_path).start()
    c = srv.client(decode_responses=True)
    new_state(c)
    before = read_state(c)
    c.bgrewriteaof()
    wait_until(lambda: "aof_rewrite_in_progress:0" in c.execute_command("INFO", "persistence")
               and "aof_last_bgrewrite_status:ok" in c.execute_command("INFO", "persistence"))
    c.close()
    srv.stop()
    srv = ServerProcess(args, tmp_path=tmp_path).start()
    c = srv.client(decode_responses=True)
    after = read_state(c)
    srv.stop()
    assert after == before
