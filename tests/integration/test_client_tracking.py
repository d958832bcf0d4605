"""Client-side caching: CLIENT TRACKING / CACHING / TRACKINGINFO / GETREDIR and the
invalidation messages (RESP3 pushes, or `__redis__:invalidate` messages to a RESP2
REDIRECT client), as Redis 7/8 document them. Passes against Redis 8.8 too
(HOTKV_SERVER=../shared/peers/redis-8.8/redis-server).

The server runs with two workers, and the tests that matter put the tracking client and
the writer on different ones (Redis has one thread: there every pair is "the same").
Negative checks ("no invalidation for that") use a marker: the tracking client also reads
a marker key, the writer changes it after the commands under test, and everything that
arrives before the marker's invalidation is what those commands produced (one writer's
invalidations reach a client in the order it made them).
"""
import time
import uuid

import pytest
import redis

from conftest import IS_REDIS, RawConnection, RespError, ServerProcess


@pytest.fixture(scope="module")
def srv(tmp_path_factory):
    proc = ServerProcess(hotkv_args=["--threads", "2"],
                         tmp_path=tmp_path_factory.mktemp("tracking")).start()
    yield proc
    proc.stop()


def uniq(prefix="k"):
    return f"{prefix}:{uuid.uuid4().hex[:10]}"


def b(s):
    return s.encode() if isinstance(s, str) else s


class Conn:
    """A raw connection that keeps the pushes that arrive between replies."""

    def __init__(self, server, resp3=True):
        self.raw = server.raw(timeout=5.0)
        self.pushes = []
        if resp3:
            reply = self.cmd("HELLO", "3")
            assert reply[0] == "map"
        self.id = self.cmd("CLIENT", "ID")
        info = self.cmd("CLIENT", "INFO")
        if isinstance(info, tuple):
            info = info[1][4:]
        fields = dict(f.split("=", 1) for f in info.decode().split())
        self.worker = int(fields.get("io-thread", 0))

    def cmd(self, *args):
        self.raw.send_command(*args)
        return self.reply()

    def reply(self):
        while True:
            r = self.raw.read_reply()
            if isinstance(r, tuple) and r[0] == "push":
                self.pushes.append(r[1])
                continue
            return r

    def next_push(self, timeout=5.0):
        if self.pushes:
            return self.pushes.pop(0)
        self.raw.sock.settimeout(timeout)
        try:
            r = self.raw.read_reply()
        finally:
            self.raw.sock.settimeout(5.0)
        assert isinstance(r, tuple) and r[0] == "push", r
        return r[1]

    def pushes_until(self, marker, timeout=5.0):
        """Invalidations read until the one naming `marker` (which is not returned)."""
        got = []
        deadline = time.time() + timeout
        while time.time() < deadline:
            p = self.next_push(timeout=max(0.1, deadline - time.time()))
            if p[0] == b"invalidate" and p[1] is not None and b(marker) in p[1]:
                rest = [k for k in p[1] if k != b(marker)]
                if rest:
                    got.append([b"invalidate", rest])
                return got
            got.append(p)
        raise AssertionError(f"no invalidation of {marker} within {timeout}s; got {got}")

    def close(self):
        self.raw.close()


@pytest.fixture
def conns(srv):
    opened = []

    def make(resp3=True, worker=None):
        """A connection, on worker `worker` when given (HotKV; Redis has one thread)."""
        for _ in range(64):
            c = Conn(srv, resp3)
            opened.append(c)
            if worker is None or IS_REDIS or c.worker == worker:
                return c
        raise AssertionError(f"no connection landed on worker {worker}")

    yield make
    for c in opened:
        c.close()


def marked(tracker, writer, read_cmd=("GET",)):
    """Has `tracker` read a fresh marker key; returns a function that makes `writer` change
    it and returns what `tracker` got before its invalidation."""
    marker = uniq("marker")
    tracker.cmd(*read_cmd, marker)

    def finish():
        writer.cmd("SET", marker, "1")
        return tracker.pushes_until(marker)
    return finish


def inv(*keys):
    return [b"invalidate", [b(k) for k in keys]]


def info_fields(c, section):
    text = c.cmd("INFO", section)
    if isinstance(text, tuple):
        text = text[1]
    out = {}
    for line in text.decode().splitlines():
        if ":" in line and not line.startswith("#"):
            k, v = line.split(":", 1)
            out[k] = v
    return out


# ---- options, errors, TRACKINGINFO --------------------------------------------------

ERRORS = [
    (("ON", "PREFIX", "a"), "ERR PREFIX option requires BCAST mode to be enabled"),
    (("ON", "BCAST", "PREFIX", "ab", "PREFIX", "a"),
     "ERR Prefix 'ab' overlaps with another provided prefix 'a'. Prefixes for a single client "
     "must not overlap."),
    (("ON", "BCAST", "PREFIX", "a", "PREFIX", "a"),
     "ERR Prefix 'a' overlaps with another provided prefix 'a'. Prefixes for a single client "
     "must not overlap."),
    (("ON", "OPTIN", "OPTOUT"), "ERR You can't specify both OPTIN mode and OPTOUT mode"),
    (("ON", "BCAST", "OPTIN"), "ERR OPTIN and OPTOUT are not compatible with BCAST"),
    (("ON", "BCAST", "OPTOUT"), "ERR OPTIN and OPTOUT are not compatible with BCAST"),
    (("ON", "REDIRECT", "999999999"), "ERR The client ID you want redirect to does not exist"),
    (("ON", "REDIRECT", "0"), "ERR The client ID you want redirect to does not exist"),
    (("ON", "REDIRECT", "x"), "ERR value is not an integer or out of range"),
    (("ON", "FOO"), "ERR syntax error"),
    (("MAYBE",), "ERR syntax error"),
    (("ON", "REDIRECT"), "ERR syntax error"),
    (("ON", "PREFIX"), "ERR syntax error"),
]


@pytest.mark.parametrize("resp3", [False, True])
def test_tracking_option_errors(conns, resp3):
    c = conns(resp3)
    for args, err in ERRORS:
        r = c.cmd("CLIENT", "TRACKING", *args)
        assert isinstance(r, RespError) and r == err, (args, r)
    r = c.cmd("CLIENT", "TRACKING")
    assert r == "ERR wrong number of arguments for 'client|tracking' command"
    # A second REDIRECT is refused (after the first id was found).
    r = c.cmd("CLIENT", "TRACKING", "ON", "REDIRECT", c.id, "REDIRECT", c.id)
    assert r == "ERR A client can only redirect to a single other client"
    # OFF ignores the options.
    assert c.cmd("CLIENT", "TRACKING", "OFF", "OPTIN", "OPTOUT", "PREFIX", "x") == "OK"
    assert c.cmd("CLIENT", "TRACKINGINFO") == (
        ("map", [(b"flags", ("set", [b"off"])), (b"redirect", -1), (b"prefixes", [])])
        if resp3 else [b"flags", [b"off"], b"redirect", -1, b"prefixes", []])


def test_mode_switch_errors(conns):
    c = conns()
    assert c.cmd("CLIENT", "TRACKING", "ON", "BCAST", "PREFIX", "b", "PREFIX", "c") == "OK"
    assert c.cmd("CLIENT", "TRACKING", "ON") == (
        "ERR You can't switch BCAST mode on/off before disabling tracking for this client, and "
        "then re-enabling it with a different mode.")
    assert c.cmd("CLIENT", "TRACKING", "ON", "BCAST", "PREFIX", "bx") == (
        "ERR Prefix 'bx' overlaps with an existing prefix 'b'. Prefixes for a single client "
        "must not overlap.")
    assert c.cmd("CLIENT", "TRACKING", "ON", "BCAST", "PREFIX", "d") == "OK"
    assert c.cmd("CLIENT", "TRACKINGINFO") == (
        "map", [(b"flags", ("set", [b"on", b"bcast"])), (b"redirect", 0),
                (b"prefixes", [b"b", b"c", b"d"])])
    assert c.cmd("CLIENT", "TRACKING", "OFF") == "OK"
    assert c.cmd("CLIENT", "TRACKING", "ON", "OPTIN") == "OK"
    assert c.cmd("CLIENT", "TRACKING", "ON", "OPTOUT") == (
        "ERR You can't switch OPTIN/OPTOUT mode before disabling tracking for this client, and "
        "then re-enabling it with a different mode.")


def test_caching_errors_and_trackinginfo_flags(conns):
    c = conns(resp3=False)
    assert c.cmd("CLIENT", "CACHING", "YES") == (
        "ERR CLIENT CACHING can be called only when the client is in tracking mode with OPTIN "
        "or OPTOUT mode enabled")
    assert c.cmd("CLIENT", "TRACKING", "ON") == "OK"
    assert c.cmd("CLIENT", "CACHING", "YES") == (
        "ERR CLIENT CACHING YES is only valid when tracking is enabled in OPTIN mode.")
    assert c.cmd("CLIENT", "CACHING", "NO") == (
        "ERR CLIENT CACHING NO is only valid when tracking is enabled in OPTOUT mode.")
    assert c.cmd("CLIENT", "TRACKINGINFO") == [b"flags", [b"on"], b"redirect", 0, b"prefixes", []]
    assert c.cmd("CLIENT", "GETREDIR") == 0
    assert c.cmd("CLIENT", "TRACKING", "OFF") == "OK"
    assert c.cmd("CLIENT", "TRACKING", "ON", "OPTIN") == "OK"
    assert c.cmd("CLIENT", "CACHING", "MAYBE") == "ERR syntax error"
    assert c.cmd("CLIENT", "CACHING", "YES", "X") == (
        "ERR wrong number of arguments for 'client|caching' command")
    assert c.cmd("CLIENT", "CACHING", "YES") == "OK"
    assert c.cmd("CLIENT", "TRACKINGINFO")[1] == [b"on", b"optin", b"caching-yes"]
    c.cmd("PING")  # the flag lasts one command
    assert c.cmd("CLIENT", "TRACKINGINFO")[1] == [b"on", b"optin"]
    assert c.cmd("CLIENT", "TRACKING", "OFF") == "OK"
    assert c.cmd("CLIENT", "TRACKING", "ON", "OPTOUT", "NOLOOP") == "OK"
    assert c.cmd("CLIENT", "CACHING", "NO") == "OK"
    assert c.cmd("CLIENT", "TRACKINGINFO")[1] == [b"on", b"optout", b"caching-no", b"noloop"]
    info = c.cmd("CLIENT", "INFO").decode()
    assert " flags=t " in info and " redir=0 " in info
    assert c.cmd("CLIENT", "TRACKING", "OFF") == "OK"
    info = c.cmd("CLIENT", "INFO").decode()
    assert " flags=N " in info and " redir=-1 " in info
    assert c.cmd("CLIENT", "GETREDIR") == -1


def test_client_list_flags_and_reset(conns):
    c = conns()
    other = conns()
    assert c.cmd("CLIENT", "TRACKING", "ON", "BCAST", "REDIRECT", other.id) == "OK"
    info = c.cmd("CLIENT", "INFO")[1].decode()
    assert " flags=tB " in info and f" redir={other.id} " in info
    listing = other.cmd("CLIENT", "LIST", "ID", c.id)[1].decode()
    assert " flags=tB " in listing and f" redir={other.id} " in listing
    assert c.cmd("CLIENT", "GETREDIR") == other.id
    assert c.cmd("RESET") == "RESET"
    assert c.cmd("CLIENT", "TRACKINGINFO") == [b"flags", [b"off"], b"redirect", -1,
                                               b"prefixes", []]


# ---- default mode ---------------------------------------------------------------------

def test_invalidation_on_write_is_one_shot(conns):
    t = conns(worker=0)
    w = conns(worker=1)
    k = uniq()
    assert t.cmd("CLIENT", "TRACKING", "ON") == "OK"
    assert t.cmd("GET", k) is None
    assert w.cmd("SET", k, "1") == "OK"
    assert t.next_push() == inv(k)
    finish = marked(t, w)
    w.cmd("SET", k, "2")          # nobody tracks it any more
    w.cmd("DEL", uniq())          # nothing changed: no invalidation
    assert finish() == []
    # Read again: tracked again.
    t.cmd("GET", k)
    w.cmd("APPEND", k, "x")
    assert t.next_push() == inv(k)


def test_own_write_invalidation_follows_reply(conns):
    t = conns()
    k = uniq()
    t.cmd("CLIENT", "TRACKING", "ON")
    t.cmd("GET", k)
    t.raw.send_command("SET", k, "x")
    assert t.raw.read_reply() == "OK"   # the reply first, then the push
    assert t.raw.read_reply() == ("push", inv(k))


def test_read_commands_track_every_key(conns):
    t = conns(worker=0)
    w = conns(worker=1)
    t.cmd("CLIENT", "TRACKING", "ON")
    k1, k2, k3, k4 = (uniq() for _ in range(4))
    w.cmd("SET", k4, "v")
    t.cmd("MGET", k1, k2)
    t.cmd("EXISTS", k3)
    t.cmd("STRLEN", k4)
    finish = marked(t, w)
    w.cmd("MSET", k1, "1", k2, "2", k3, "3")
    w.cmd("SET", k4, "w")
    got = finish()
    assert sorted(got) == sorted([inv(k1), inv(k2), inv(k3), inv(k4)])


def test_write_commands_do_not_track(conns):
    t = conns(worker=0)
    w = conns(worker=1)
    t.cmd("CLIENT", "TRACKING", "ON")
    k = uniq()
    t.cmd("INCR", k)       # a write: not remembered
    t.cmd("GETEX", k)      # GETEX is flagged write too
    finish = marked(t, w)
    w.cmd("SET", k, "9")
    assert finish() == []


def test_del_rename_expire_command(conns):
    t = conns(worker=0)
    w = conns(worker=1)
    t.cmd("CLIENT", "TRACKING", "ON")
    a, c, d = uniq(), uniq(), uniq()
    w.cmd("MSET", a, "1", d, "1")
    t.cmd("GET", a)
    t.cmd("GET", c)
    w.cmd("RENAME", a, c)
    got = [t.next_push(), t.next_push()]
    assert sorted(got) == sorted([inv(a), inv(c)])
    t.cmd("GET", c)
    w.cmd("DEL", c)
    assert t.next_push() == inv(c)
    t.cmd("GET", d)
    w.cmd("EXPIRE", d, "100")
    assert t.next_push() == inv(d)


def test_multi_exec_invalidations_after_exec_reply(conns):
    t = conns()
    k1, k2 = uniq(), uniq()
    t.cmd("CLIENT", "TRACKING", "ON")
    t.cmd("GET", k1)
    t.cmd("GET", k2)
    for args in (("MULTI",), ("SET", k1, "1"), ("SET", k2, "2"), ("EXEC",)):
        t.raw.send_command(*args)
    replies = [t.raw.read_reply() for _ in range(4)]
    assert replies == ["OK", "QUEUED", "QUEUED", ["OK", "OK"]]
    assert [t.raw.read_reply(), t.raw.read_reply()] == [("push", inv(k1)), ("push", inv(k2))]


def test_multi_from_another_client(conns):
    t = conns(worker=0)
    w = conns(worker=1)
    k1, k2 = uniq(), uniq()
    t.cmd("CLIENT", "TRACKING", "ON")
    t.cmd("MGET", k1, k2)
    w.cmd("MULTI")
    w.cmd("SET", k1, "1")
    w.cmd("INCR", k2)
    assert w.cmd("EXEC") == ["OK", 1]
    assert sorted([t.next_push(), t.next_push()]) == sorted([inv(k1), inv(k2)])


@pytest.mark.parametrize("cmd", [("FLUSHALL",), ("FLUSHDB",), ("FLUSHALL", "ASYNC")])
def test_flush_sends_null(conns, cmd):
    t = conns(worker=0)
    bc = conns(worker=1)
    w = conns(worker=1)
    t.cmd("CLIENT", "TRACKING", "ON")
    bc.cmd("CLIENT", "TRACKING", "ON", "BCAST", "PREFIX", "zzz")
    k = uniq()
    t.cmd("GET", k)
    assert w.cmd(*cmd) == "OK"
    assert t.next_push() == [b"invalidate", None]
    assert bc.next_push() == [b"invalidate", None]
    # The table was dropped: a later write of k sends nothing.
    finish = marked(t, w)
    w.cmd("SET", k, "1")
    assert finish() == []


def test_flush_of_another_database_sends_null(conns):
    t = conns(worker=0)
    w = conns(worker=1)
    t.cmd("CLIENT", "TRACKING", "ON")
    t.cmd("GET", uniq())
    w.cmd("SELECT", "9")
    assert w.cmd("FLUSHDB") == "OK"
    assert t.next_push() == [b"invalidate", None]


def test_active_expiry(conns):
    t = conns(worker=0)
    w = conns(worker=1)
    k = uniq()
    t.cmd("CLIENT", "TRACKING", "ON")
    w.cmd("SET", k, "v", "PX", "30")
    t.cmd("GET", k)
    assert t.next_push(timeout=10.0) == inv(k)


def test_lazy_expiry_on_another_clients_read(conns):
    t = conns(worker=0)
    w = conns(worker=1)
    k = uniq()
    t.cmd("CLIENT", "TRACKING", "ON")
    assert w.cmd("DEBUG", "SET-ACTIVE-EXPIRE", "0") == "OK"
    try:
        w.cmd("SET", k, "v", "PX", "20")
        t.cmd("GET", k)
        deadline = time.time() + 5
        while w.cmd("PTTL", k) != -2 and time.time() < deadline:
            time.sleep(0.01)
        assert w.cmd("GET", k) is None
        assert t.next_push() == inv(k)
    finally:
        w.cmd("DEBUG", "SET-ACTIVE-EXPIRE", "1")


def test_eviction_invalidates(start_server):
    # volatile-random: only the tracked keys (which have a TTL) can be evicted.
    srv = start_server(args=["--maxmemory-policy", "volatile-random"],
                       hotkv_args=["--threads", "2"])
    t = Conn(srv)
    w = Conn(srv, resp3=False)
    t.cmd("CLIENT", "TRACKING", "ON")
    keys = [f"ev:{i}" for i in range(200)]
    for k in keys:
        w.cmd("SET", k, "x" * 1000, "EX", "1000")
    t.cmd("MGET", *keys)
    used = int(info_fields(w, "memory")["used_memory"])
    assert w.cmd("CONFIG", "SET", "maxmemory", str(used + 100_000)) == "OK"
    i = 0
    while int(info_fields(w, "stats")["evicted_keys"]) == 0 and i < 2000:
        w.cmd("SET", f"filler:{i}", "y" * 1000)
        i += 1
    w.cmd("CONFIG", "SET", "maxmemory", "0")
    gone = {k for k in keys if w.cmd("EXISTS", k) == 0}
    assert gone
    got = set()
    deadline = time.time() + 10
    while not gone <= got and time.time() < deadline:
        p = t.next_push(timeout=max(0.1, deadline - time.time()))
        assert p[0] == b"invalidate"
        got.update(k.decode() for k in p[1])
    assert gone <= got
    t.close()
    w.close()


def test_noloop(conns):
    t = conns(worker=0)
    w = conns(worker=1)
    t.cmd("CLIENT", "TRACKING", "ON", "NOLOOP")
    k = uniq()
    t.cmd("GET", k)
    finish = marked(t, w)
    t.cmd("SET", k, "1")  # its own write: no message (the registration is used up)
    assert finish() == []
    t.cmd("GET", k)
    w.cmd("SET", k, "2")
    assert t.next_push() == inv(k)


def test_optin(conns):
    t = conns(worker=0)
    w = conns(worker=1)
    t.cmd("CLIENT", "TRACKING", "ON", "OPTIN")
    k1, k2, k3, k4, k5 = (uniq() for _ in range(5))
    t.cmd("GET", k1)                    # not tracked
    t.cmd("CLIENT", "CACHING", "YES")
    t.cmd("CLIENT", "ID")               # CLIENT subcommands keep the flag
    t.cmd("GET", k2)                    # tracked
    t.cmd("GET", k3)                    # not: the flag was for one command
    t.cmd("CLIENT", "CACHING", "YES")
    t.cmd("MULTI")
    t.cmd("GET", k4)
    t.cmd("GET", k5)
    t.cmd("EXEC")                       # the whole transaction is tracked
    t.cmd("CLIENT", "CACHING", "YES")
    finish = marked(t, w)
    w.cmd("MSET", k1, "1", k2, "1", k3, "1", k4, "1", k5, "1")
    assert sorted(finish()) == sorted([inv(k2), inv(k4), inv(k5)])


def test_optout(conns):
    t = conns(worker=0)
    w = conns(worker=1)
    t.cmd("CLIENT", "TRACKING", "ON", "OPTOUT")
    k1, k2 = uniq(), uniq()
    t.cmd("GET", k1)
    t.cmd("CLIENT", "CACHING", "NO")
    t.cmd("GET", k2)                    # not tracked
    finish = marked(t, w)
    w.cmd("MSET", k1, "1", k2, "1")
    assert finish() == [inv(k1)]


# ---- BCAST ----------------------------------------------------------------------------

def test_bcast_prefixes(conns):
    t = conns(worker=0)
    w = conns(worker=1)
    p = uniq("bc") + ":"
    a, bb_ = p + "a:", p + "b:"
    assert t.cmd("CLIENT", "TRACKING", "ON", "BCAST", "PREFIX", a, "PREFIX", bb_) == "OK"
    w.cmd("MSET", a + "1", "1", a + "2", "2", bb_ + "1", "x", p + "c:1", "y")
    got = t.pushes_until_bcast = None
    got = [t.next_push(), t.next_push()]
    assert sorted(got) == sorted([inv(a + "1", a + "2"), inv(bb_ + "1")])
    # Keys outside the prefixes send nothing; the marker is under a prefix.
    marker = a + "marker"
    w.cmd("SET", p + "c:2", "1")
    w.cmd("SET", marker, "1")
    assert t.pushes_until(marker) == []
    # Its own writes too (no NOLOOP).
    t.cmd("SET", a + "own", "1")
    assert t.next_push() == inv(a + "own")


def test_bcast_all_keys_noloop(conns):
    t = conns(worker=0)
    w = conns(worker=1)
    assert t.cmd("CLIENT", "TRACKING", "ON", "BCAST", "NOLOOP") == "OK"
    assert t.cmd("CLIENT", "TRACKINGINFO") == (
        "map", [(b"flags", ("set", [b"on", b"bcast", b"noloop"])), (b"redirect", 0),
                (b"prefixes", [b""])])
    k1, k2, marker = uniq(), uniq(), uniq()
    t.cmd("SET", k1, "1")
    w.cmd("SET", k2, "1")
    w.cmd("SET", marker, "1")
    assert t.pushes_until(marker) == [inv(k2)]


# ---- REDIRECT -------------------------------------------------------------------------

def test_redirect_resp2_pubsub(srv, conns):
    r = srv.client(client_name="trk-redir")
    ps = r.pubsub()
    ps.subscribe("__redis__:invalidate")
    assert ps.get_message(timeout=5)["type"] == "subscribe"
    rid = next(c["id"] for c in r.client_list() if c["name"] == "trk-redir" and c["sub"] == "1")
    t = conns(resp3=False)
    w = conns(resp3=False)
    assert t.cmd("CLIENT", "TRACKING", "ON", "REDIRECT", rid) == "OK"
    assert t.cmd("CLIENT", "GETREDIR") == int(rid)
    k = uniq()
    t.cmd("GET", k)
    w.cmd("SET", k, "1")
    msg = ps.get_message(timeout=5)
    assert msg["type"] == "message" and msg["channel"] == "__redis__:invalidate"
    assert msg["data"] == [k]
    # A flush: the tracking client is RESP2, so the null is RESP2's.
    w.cmd("FLUSHALL")
    msg = ps.get_message(timeout=5)
    assert msg["type"] == "message" and msg["data"] is None
    ps.close()
    r.close()


def test_redirect_raw_frames_and_resp3_target(srv, conns):
    r2 = conns(resp3=False, worker=0)
    assert r2.cmd("SUBSCRIBE", "__redis__:invalidate") == [b"subscribe", b"__redis__:invalidate", 1]
    r3 = conns(resp3=True, worker=1)
    t2 = conns(resp3=False, worker=1)
    t3 = conns(resp3=True, worker=0)
    w = conns(resp3=False)
    t2.cmd("CLIENT", "TRACKING", "ON", "REDIRECT", r3.id)   # RESP2 -> RESP3 target: push
    t3.cmd("CLIENT", "TRACKING", "ON", "REDIRECT", r2.id)   # RESP3 -> RESP2 subscribed
    k1, k2 = uniq(), uniq()
    t2.cmd("GET", k1)
    t3.cmd("GET", k2)
    w.cmd("SET", k1, "1")
    w.cmd("SET", k2, "1")
    assert r3.next_push() == inv(k1)
    assert r2.raw.read_reply() == [b"message", b"__redis__:invalidate", [b(k2)]]
    w.cmd("FLUSHALL")
    assert r3.next_push() == [b"invalidate", None]
    # RESP3 tracking client's null is RESP3's "_", even to a RESP2 target (as Redis).
    r2.raw.sock.settimeout(5)
    want = b"*3\r\n$7\r\nmessage\r\n$20\r\n__redis__:invalidate\r\n_\r\n"
    while len(r2.raw.buf) < len(want):
        r2.raw._fill()
    assert r2.raw.buf == want


def test_redirect_to_unsubscribed_resp2_sends_nothing(conns):
    r = conns(resp3=False, worker=1)
    t = conns(resp3=False, worker=0)
    w = conns(resp3=False)
    t.cmd("CLIENT", "TRACKING", "ON", "REDIRECT", r.id)
    t.cmd("GET", uniq())
    w.cmd("FLUSHALL")
    assert r.cmd("PING") == "PONG"
    r.raw.sock.settimeout(0.3)
    with pytest.raises((TimeoutError, OSError)):
        r.raw._fill()


def test_broken_redirect(conns):
    t = conns(resp3=True, worker=0)
    r = conns(resp3=True, worker=1)
    w = conns(resp3=False)
    rid = r.id
    t.cmd("CLIENT", "TRACKING", "ON", "REDIRECT", rid)
    k = uniq()
    t.cmd("GET", k)
    r.close()
    deadline = time.time() + 5
    while any(f" id={rid} " in " " + line + " " for line in
              w.cmd("CLIENT", "LIST").decode().splitlines()) and time.time() < deadline:
        time.sleep(0.01)
    # Nothing is sent until an invalidation is due.
    assert t.cmd("CLIENT", "TRACKINGINFO")[1][0] == (b"flags", ("set", [b"on"]))
    w.cmd("SET", k, "1")
    assert t.next_push() == [b"tracking-redir-broken", rid]
    info = t.cmd("CLIENT", "TRACKINGINFO")
    assert info[1][0] == (b"flags", ("set", [b"on", b"broken_redirect"]))
    assert info[1][1] == (b"redirect", rid)
    assert " flags=tR " in t.cmd("CLIENT", "INFO")[1].decode()
    w.cmd("FLUSHALL")
    assert t.next_push() == [b"tracking-redir-broken", rid]
    # Re-enabling clears the flag.
    assert t.cmd("CLIENT", "TRACKING", "ON") == "OK"
    assert t.cmd("CLIENT", "TRACKINGINFO")[1][0] == (b"flags", ("set", [b"on"]))


# ---- many clients and keys across workers, INFO, the table limit -----------------------

def test_many_keys_many_clients_both_workers(conns):
    trackers = [conns(worker=i % 2) for i in range(4)]
    writers = [conns(resp3=False, worker=i % 2) for i in range(2)]
    base = uniq("many")
    keys = [f"{base}:{i}" for i in range(300)]
    for t in trackers:
        t.cmd("CLIENT", "TRACKING", "ON")
        t.cmd("MGET", *keys)
    for i, k in enumerate(keys):
        writers[i % 2].cmd("SET", k, str(i))
    for t in trackers:
        got = []
        while len(got) < len(keys):
            p = t.next_push()
            assert p[0] == b"invalidate"
            got.extend(p[1])
        assert sorted(got) == sorted(b(k) for k in keys)
    # Every key was invalidated once per tracker: the writes left nothing behind.
    finish = [marked(t, writers[0]) for t in trackers]
    for k in keys:
        writers[1].cmd("SET", k, "again")
    for f in finish:
        assert f() == []


def test_info_fields(start_server):
    srv = start_server(hotkv_args=["--threads", "2"])
    w = Conn(srv, resp3=False)
    assert info_fields(w, "clients")["tracking_clients"] == "0"
    t1, t2, t3 = Conn(srv), Conn(srv), Conn(srv)
    t1.cmd("CLIENT", "TRACKING", "ON")
    t2.cmd("CLIENT", "TRACKING", "ON")
    t3.cmd("CLIENT", "TRACKING", "ON", "BCAST", "PREFIX", "p1", "PREFIX", "p2")
    t1.cmd("MGET", "a", "b", "c")
    t2.cmd("MGET", "b", "c", "d")
    st = info_fields(w, "stats")
    assert (st["tracking_total_keys"], st["tracking_total_items"],
            st["tracking_total_prefixes"]) == ("4", "6", "2")
    assert info_fields(w, "clients")["tracking_clients"] == "3"
    w.cmd("SET", "b", "1")
    st = info_fields(w, "stats")
    assert (st["tracking_total_keys"], st["tracking_total_items"]) == ("3", "4")
    t3.close()
    t2.cmd("CLIENT", "TRACKING", "OFF")
    deadline = time.time() + 5
    while info_fields(w, "clients")["tracking_clients"] != "1" and time.time() < deadline:
        time.sleep(0.01)
    assert info_fields(w, "clients")["tracking_clients"] == "1"
    assert info_fields(w, "stats")["tracking_total_prefixes"] == "0"
    w.cmd("FLUSHALL")
    st = info_fields(w, "stats")
    assert (st["tracking_total_keys"], st["tracking_total_items"]) == ("0", "0")


def test_tracking_table_max_keys(start_server):
    srv = start_server(hotkv_args=["--threads", "2"])
    w = Conn(srv, resp3=False)
    assert w.cmd("CONFIG", "GET", "tracking-table-max-keys") == [b"tracking-table-max-keys",
                                                                  b"1000000"]
    assert w.cmd("CONFIG", "SET", "tracking-table-max-keys", "-1").startswith(
        "ERR CONFIG SET failed (possibly related to argument 'tracking-table-max-keys')")
    assert w.cmd("CONFIG", "SET", "tracking-table-max-keys", "5") == "OK"
    t = Conn(srv)
    t.cmd("CLIENT", "TRACKING", "ON")
    keys = [f"mk{i}" for i in range(10)]
    for k in keys:
        t.cmd("GET", k)
    w.cmd("PING")  # Redis trims the table before each command
    assert info_fields(w, "stats")["tracking_total_keys"] == "5"
    evicted = []
    while len(evicted) < 5:
        p = t.next_push()
        assert p[0] == b"invalidate" and len(p[1]) == 1
        evicted.append(p[1][0].decode())
    assert len(set(evicted)) == 5 and set(evicted) <= set(keys)
    # The keys still remembered are the other five.
    kept = [k for k in keys if k not in evicted]
    assert w.cmd("CONFIG", "SET", "tracking-table-max-keys", "0") == "OK"
    marker = "mk-marker"
    t.cmd("GET", marker)
    for k in keys:
        w.cmd("SET", k, "1")
    w.cmd("SET", marker, "1")
    assert sorted(t.pushes_until(marker)) == sorted(inv(k) for k in kept)
    t.close()
    w.close()


def test_pipelined_own_writes_interleave(conns):
    t = conns()
    k1, k2 = uniq(), uniq()
    t.cmd("CLIENT", "TRACKING", "ON")
    t.cmd("MGET", k1, k2)
    t.raw.send(b"".join(b"*3\r\n$3\r\nSET\r\n$%d\r\n%s\r\n$1\r\n1\r\n" % (len(k), b(k))
                        for k in (k1, k2)))
    got = [t.raw.read_reply() for _ in range(4)]
    assert got == ["OK", ("push", inv(k1)), "OK", ("push", inv(k2))]


def test_swapdb_sends_nothing_as_redis(conns):
    # Redis's table is keyed by name only and SWAPDB invalidates nothing (checked against
    # Redis 8.8); the FLUSH of either database would.
    t = conns(worker=0)
    w = conns(worker=1)
    t.cmd("CLIENT", "TRACKING", "ON")
    k = uniq()
    w.cmd("SET", k, "1")
    t.cmd("GET", k)
    finish = marked(t, w)
    assert w.cmd("SWAPDB", "0", "1") == "OK"
    assert w.cmd("SWAPDB", "0", "1") == "OK"
    assert finish() == []


def test_move_copy_and_other_types(conns):
    t = conns(worker=0)
    w = conns(worker=1)
    t.cmd("CLIENT", "TRACKING", "ON")
    src, dst, h, z = uniq(), uniq(), uniq(), uniq()
    w.cmd("SET", src, "v")
    w.cmd("HSET", h, "f", "1")
    t.cmd("GET", dst)
    t.cmd("HGET", h, "f")
    t.cmd("ZRANGE", z, "0", "-1")
    w.cmd("COPY", src, dst)
    assert t.next_push() == inv(dst)
    w.cmd("HINCRBY", h, "f", "1")
    assert t.next_push() == inv(h)
    w.cmd("ZADD", z, "1", "m")
    assert t.next_push() == inv(z)
    t.cmd("GET", src)
    w.cmd("MOVE", src, "5")
    assert t.next_push() == inv(src)


def test_blocked_pop_served_by_a_push_invalidates(conns):
    t = conns(worker=0)
    blocked = conns(resp3=False, worker=1)
    w = conns(resp3=False, worker=0)
    lst = uniq("list")
    t.cmd("CLIENT", "TRACKING", "ON")
    t.cmd("LRANGE", lst, "0", "-1")
    blocked.raw.send_command("BLPOP", lst, "5")
    deadline = time.time() + 5
    while "blocked_clients:1" not in w.cmd("INFO", "clients").decode() and time.time() < deadline:
        time.sleep(0.01)
    assert w.cmd("RPUSH", lst, "a") == 1
    assert blocked.raw.read_reply() == [b(lst), b"a"]
    assert t.next_push() == inv(lst)


def test_switch_to_bcast_drops_default_registrations(conns):
    t = conns(worker=0)
    w = conns(worker=1)
    k = uniq("sw")
    t.cmd("CLIENT", "TRACKING", "ON")
    t.cmd("GET", k)
    t.cmd("CLIENT", "TRACKING", "OFF")
    t.cmd("CLIENT", "TRACKING", "ON", "BCAST", "PREFIX", "only-this:")
    marker = "only-this:" + uniq()
    w.cmd("SET", k, "1")      # remembered from default mode: not sent to a BCAST client
    w.cmd("SET", marker, "1")
    assert t.pushes_until(marker) == []


def test_bcast_message_keys_unique_and_sorted(conns):
    t = conns(worker=0)
    w = conns(worker=1)
    p = uniq("bs") + ":"
    t.cmd("CLIENT", "TRACKING", "ON", "BCAST", "PREFIX", p)
    w.cmd("MSET", p + "z", "1", p + "a", "1", p + "z", "2", p + "m", "1")
    assert t.next_push() == inv(p + "a", p + "m", p + "z")
