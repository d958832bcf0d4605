"""Helpers for the pub/sub and keyspace-notification tests (test_pubsub*.py,
test_notifications.py).

Every negative check ("this subscriber got nothing else") is made with a *marker*: after the
commands under test, the same connection that ran them publishes a unique token on a channel
the subscriber listens to, and the subscriber reads up to that token. Redis keeps the order of
one publisher's messages at each subscriber (and a HotKV worker must too), so whatever the
commands produced has arrived by then. No sleeps, no "wait and hope nothing comes".
"""
import socket
import time
import uuid

import pytest

from conftest import RawConnection, RespError, ServerProcess

# HotKV spreads connections over its worker threads; more workers than the machine's two cores
# makes almost every publisher/subscriber pair cross workers. redis-server ignores hotkv_args.
PUBSUB_HOTKV_ARGS = ["--threads", "4"]

SUBSCRIBED_MODE_ERROR = ("ERR Can't execute '{}': only (P|S)SUBSCRIBE / (P|S)UNSUBSCRIBE / "
                         "PING / QUIT / RESET are allowed in this context")


def unique(prefix="ch"):
    """A channel/key name no other test uses."""
    return f"{prefix}:{uuid.uuid4().hex[:12]}"


def bb(value):
    """str -> bytes (RawConnection returns bulk strings as bytes)."""
    return value.encode() if isinstance(value, str) else value


@pytest.fixture(scope="module")
def ps_server(tmp_path_factory):
    """A server of its own for one test module, so the global pub/sub state (NUMPAT, PUBSUB
    CHANNELS, notify-keyspace-events) is not shared with the other test files."""
    proc = ServerProcess(hotkv_args=PUBSUB_HOTKV_ARGS,
                         tmp_path=tmp_path_factory.mktemp("pubsub")).start()
    yield proc
    proc.stop()


class Connections:
    """Opens raw connections / redis-py clients on a server and closes them all at teardown."""

    def __init__(self, server):
        self.server = server
        self.opened = []

    def raw(self, resp3=False, timeout=5.0):
        c = self.server.raw(timeout=timeout)
        self.opened.append(c)
        if resp3:
            reply = c.command("HELLO", "3")
            assert isinstance(reply, tuple) and reply[0] == "map", reply
        return c

    def sub(self, resp3=False, timeout=5.0):
        s = Subscriber(self.raw(resp3=resp3, timeout=timeout), resp3=resp3)
        return s

    def client(self, **kwargs):
        """A redis-py client on ONE connection, so a marker it publishes follows the
        commands it ran (and SELECT sticks)."""
        kwargs.setdefault("single_connection_client", True)
        c = self.server.client(**kwargs)
        self.opened.append(c)
        return c

    def close_all(self):
        for c in self.opened:
            try:
                c.close()
            except Exception:
                pass
        self.opened = []


@pytest.fixture
def conns(ps_server):
    c = Connections(ps_server)
    yield c
    c.close_all()


class Subscriber:
    """A raw connection used as a subscriber. Frames come back as lists (RESP2) or the lists
    inside ("push", [...]) (RESP3); `frame()` strips the push wrapper after checking it."""

    def __init__(self, conn, resp3=False):
        self.conn = conn
        self.resp3 = resp3

    # --- sending / confirmations --------------------------------------------------------
    def send(self, *args):
        self.conn.send_command(*args)

    def frame(self):
        """The next frame: RESP2 arrays as they are; RESP3 frames must be pushes."""
        f = self.conn.read_reply()
        if self.resp3:
            assert isinstance(f, tuple) and f[0] == "push", f"expected a push frame, got {f!r}"
            return f[1]
        return f

    def frames(self, n):
        return [self.frame() for _ in range(n)]

    def _confirm(self, kind, names):
        self.send(kind, *names)
        return self.frames(len(names))

    def subscribe(self, *channels):
        return self._confirm("SUBSCRIBE", channels)

    def psubscribe(self, *patterns):
        return self._confirm("PSUBSCRIBE", patterns)

    def ssubscribe(self, *channels):
        return self._confirm("SSUBSCRIBE", channels)

    # --- reading messages ---------------------------------------------------------------
    def message(self, timeout=5.0):
        """The next frame, waiting up to `timeout` seconds (AssertionError if none comes)."""
        self.conn.sock.settimeout(timeout)
        try:
            return self.frame()
        except (socket.timeout, TimeoutError):
            raise AssertionError(f"no message within {timeout}s") from None

    def until_marker(self, marker_channel, token, timeout=10.0):
        """Reads frames until `token` arrives on `marker_channel` (as a message, or a
        pmessage when the subscriber gets it through a pattern) and returns the frames read
        before it."""
        deadline = time.time() + timeout
        got = []
        while True:
            left = deadline - time.time()
            assert left > 0, f"marker never arrived; read {got!r}"
            f = self.message(timeout=left)
            if f[:1] == [b"message"] and f[1:] == [bb(marker_channel), bb(token)]:
                return got
            if f[:1] == [b"pmessage"] and f[2:] == [bb(marker_channel), bb(token)]:
                return got
            got.append(f)

    def close(self):
        self.conn.close()


def publish_marker(publisher, channel):
    """Publishes a unique token on `channel` through `publisher` (a RawConnection or a redis-py
    client) and returns it."""
    token = uuid.uuid4().hex
    if isinstance(publisher, RawConnection):
        n = publisher.command("PUBLISH", channel, token)
    else:
        n = publisher.execute_command("PUBLISH", channel, token)
    assert isinstance(n, int) and n >= 1, f"marker PUBLISH reached {n!r} subscribers"
    return token


def drain(sub, publisher, marker_channel):
    """Everything `sub` receives up to a marker that `publisher` publishes now. `sub` must be
    subscribed to `marker_channel`."""
    token = publish_marker(publisher, marker_channel)
    return sub.until_marker(marker_channel, token)


def client_list(client):
    """CLIENT LIST -> list of dicts."""
    from conftest import parse_client_line
    text = client.execute_command("CLIENT", "LIST")
    if isinstance(text, bytes):
        text = text.decode()
    return [parse_client_line(line) for line in text.splitlines() if line.strip()]


def numsub(client, *channels):
    reply = client.execute_command("PUBSUB", "NUMSUB", *channels)
    return [(k.decode() if isinstance(k, bytes) else k, v) for k, v in zip(reply[0::2], reply[1::2])]



def read_frames(conn, n, timeout=30.0):
    """Reads `n` pub/sub frames (RESP2 arrays or RESP3 pushes of bulk strings and integers)
    from a RawConnection, parsing by offset so that tens of thousands of frames stay cheap
    (RawConnection re-slices its buffer per line). Frames come back as lists; bytes left over
    go back into the connection's buffer."""
    buf = bytearray(conn.buf)
    conn.buf = b""
    pos = 0
    out = []
    deadline = time.time() + timeout

    def fill():
        nonlocal buf, pos
        if pos > (1 << 20):
            del buf[:pos]
            pos = 0
        left = deadline - time.time()
        if left <= 0:
            raise AssertionError(f"read {len(out)} of {n} frames in {timeout}s")
        conn.sock.settimeout(left)
        try:
            chunk = conn.sock.recv(1 << 20)
        except (socket.timeout, TimeoutError):
            raise AssertionError(f"read {len(out)} of {n} frames in {timeout}s") from None
        if not chunk:
            raise ConnectionError(f"connection closed after {len(out)} of {n} frames")
        buf += chunk

    def parse(at):
        """One frame starting at `at` -> (frame, end) or None when incomplete."""
        eol = buf.find(b"\r\n", at)
        if eol < 0:
            return None
        if buf[at] not in b"*>":
            raise AssertionError(f"not a frame: {bytes(buf[at:eol])!r}")
        count = int(buf[at + 1:eol])
        at = eol + 2
        items = []
        for _ in range(count):
            eol = buf.find(b"\r\n", at)
            if eol < 0:
                return None
            kind = buf[at]
            if kind == 0x3A:                     # ':'
                items.append(int(buf[at + 1:eol]))
                at = eol + 2
            elif kind == 0x24:                   # '$'
                size = int(buf[at + 1:eol])
                if size < 0:
                    items.append(None)
                    at = eol + 2
                    continue
                start, end = eol + 2, eol + 2 + size
                if len(buf) < end + 2:
                    return None
                items.append(bytes(buf[start:end]))
                at = end + 2
            else:
                raise AssertionError(f"unexpected element {bytes(buf[at:eol])!r}")
        return items, at

    while len(out) < n:
        parsed = parse(pos) if pos < len(buf) else None
        if parsed is None:
            fill()
            continue
        frame, pos = parsed
        out.append(frame)
    conn.buf = bytes(buf[pos:])
    return out

# --- keyspace notifications --------------------------------------------------------------

class KeyspaceWatcher:
    """Subscribes to every keyspace/keyevent channel (`__key*__:*`) plus a marker channel, and
    returns the notifications produced by the commands a client ran, in arrival order."""

    def __init__(self, conns, patterns=("__key*__:*",)):
        self.sub = conns.sub()
        self.marker = unique("marker")
        assert self.sub.subscribe(self.marker) == [[b"subscribe", bb(self.marker), 1]]
        replies = self.sub.psubscribe(*patterns)
        assert [f[0] for f in replies] == [b"psubscribe"] * len(patterns)

    def frames(self, client, wait_for=None):
        """(channel, payload) pairs (str) received since the last call, up to a marker that
        `client` publishes now (so everything `client` caused before has arrived).

        `wait_for` is for notifications the server sends on its own (expired): a
        (channel, payload) pair or a predicate(channel, payload); frames are read until one
        matches (up to 10 s) before the marker is published."""
        out = []
        if wait_for is not None:
            match = wait_for if callable(wait_for) else (lambda ch, p: (ch, p) == tuple(wait_for))
            deadline = time.time() + 10.0
            while not any(match(ch, p) for ch, p in out):
                left = deadline - time.time()
                assert left > 0, f"no notification matching {wait_for!r}; got {out!r}"
                out.append(self._decode(self.sub.message(timeout=left)))
        out += [self._decode(f) for f in drain(self.sub, client, self.marker)]
        return out

    @staticmethod
    def _decode(frame):
        assert frame[0] == b"pmessage", frame
        return frame[2].decode(), frame[3].decode()

    def events(self, client, wait_for=None):
        """Notifications as (db, key, event) from the keyspace channel, checking that each is
        followed at once by the same notification on the keyevent channel (flags "KE")."""
        return pair_events(self.frames(client, wait_for))

    def keyspace(self, client, wait_for=None):
        """(db, key, event) from keyspace channels only; fails on any keyevent message."""
        out = []
        for channel, payload in self.frames(client, wait_for):
            kind, db, name = split_channel(channel)
            assert kind == "keyspace", (channel, payload)
            out.append((db, name, payload))
        return out

    def keyevent(self, client, wait_for=None):
        """(db, key, event) from keyevent channels only; fails on any keyspace message."""
        out = []
        for channel, payload in self.frames(client, wait_for):
            kind, db, name = split_channel(channel)
            assert kind == "keyevent", (channel, payload)
            out.append((db, payload, name))
        return out


def split_channel(channel):
    """"__keyspace@3__:foo" -> ("keyspace", 3, "foo"); same for __keyevent@N__."""
    for kind in ("keyspace", "keyevent"):
        prefix = f"__{kind}@"
        if channel.startswith(prefix):
            db, sep, name = channel[len(prefix):].partition("__:")
            assert sep and db.isdigit(), channel
            return kind, int(db), name
    raise AssertionError(f"not a notification channel: {channel!r}")


def pair_events(frames):
    """[(keyspace channel, event), (keyevent channel, key), ...] -> [(db, key, event), ...]."""
    assert len(frames) % 2 == 0, f"keyspace/keyevent messages do not pair up: {frames!r}"
    out = []
    for (ch1, p1), (ch2, p2) in zip(frames[0::2], frames[1::2]):
        k1, db1, key = split_channel(ch1)
        k2, db2, event = split_channel(ch2)
        assert (k1, k2) == ("keyspace", "keyevent"), f"expected keyspace then keyevent: {frames!r}"
        assert (db1, p1) == (db2, event) and p2 == key, f"mismatched pair {(ch1, p1, ch2, p2)!r}"
        out.append((db1, key, event))
    return out


def set_events(client, flags):
    assert client.execute_command("CONFIG", "SET", "notify-keyspace-events", flags) in (True, "OK", b"OK")


@pytest.fixture
def keyevents(start_server):
    """events(*command): runs the command on a fresh server with notify-keyspace-events KEA
    and returns the (event, key) pairs of the keyevent notifications it caused. The client
    is events.client."""
    srv = start_server()
    conns = Connections(srv)
    c = conns.client()
    set_events(c, "KEA")
    w = KeyspaceWatcher(conns)

    def events(*command):
        c.execute_command(*command)
        return [(ch.split("@0__:")[1], p) for ch, p in w.frames(c) if "keyevent" in ch]

    events.client = c
    yield events
    conns.close_all()


__all__ = ["PUBSUB_HOTKV_ARGS", "SUBSCRIBED_MODE_ERROR", "unique", "bb", "ps_server", "conns",
           "Connections", "Subscriber", "publish_marker", "drain", "read_frames", "client_list", "numsub",
           "KeyspaceWatcher", "split_channel", "pair_events", "set_events", "RespError",
           "keyevents"]
