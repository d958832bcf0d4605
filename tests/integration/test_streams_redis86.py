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
