"""Pub/sub under CLIENT REPLY OFF / SKIP, RESP2 and RESP3.

Since Redis 7.2, CLIENT REPLY silences a connection's replies but not its pub/sub pushes:
(un)subscribe confirmations and message/pmessage/smessage frames are delivered whatever the
mode; PING (the [pong, ""] of RESP2 subscribed mode too) and errors stay silenced. SKIP is
used up by the next command even when that command is a SUBSCRIBE. A message raised by the
subscriber's own command (a PUBLISH it receives, a keyspace event of its own write) comes
after that command's reply (after EXEC's whole array). Checked by hand against Redis 8.8.

Every read is bounded by the raw connection's socket timeout; "nothing else arrived" is
checked with a marker published after the commands under test (helpers_pubsub)."""
import pytest

from helpers_pubsub import (SUBSCRIBED_MODE_ERROR, Connections, RespError, bb,  # noqa: F401
                            conns, drain, ps_server, publish_marker, set_events, unique)

pytestmark = pytest.mark.redis8  # Redis 7.0 dropped pushes under CLIENT REPLY OFF


@pytest.fixture
def events(conns):
    """notify-keyspace-events KEA on the module's server for one test."""
    admin = conns.client()
    set_events(admin, "KEA")
    yield admin
    set_events(admin, "")


def frame(sub):
    """The next pub/sub frame as a list; a RESP3 one must be a push."""
    f = sub.conn.read_reply()
    if sub.resp3:
        assert isinstance(f, tuple) and f[0] == "push", f"expected a push, got {f!r}"
        return f[1]
    assert isinstance(f, list), f"expected a frame, got {f!r}"
    return f


def silenced_subscriber(conns, resp3, mode, *channels):
    """A subscriber that turned its replies OFF (or SKIP, used up by the SUBSCRIBE itself)
    before subscribing to `channels`; checks the confirmations it still gets."""
    sub = conns.sub(resp3=resp3)
    sub.send("CLIENT", "REPLY", mode)
    sub.send("SUBSCRIBE", *channels)
    got = [frame(sub) for _ in channels]
    assert got == [[b"subscribe", bb(ch), i + 1] for i, ch in enumerate(channels)]
    return sub


@pytest.mark.parametrize("resp3", [False, True], ids=["resp2", "resp3"])
@pytest.mark.parametrize("mode", ["OFF", "SKIP"])
def test_silenced_subscriber_receives_keyspace_events(conns, events, resp3, mode):
    marker = unique("marker")
    sub = conns.sub(resp3=resp3)
    sub.send("CLIENT", "REPLY", mode)
    sub.send("PSUBSCRIBE", "__key*__:*")
    assert frame(sub) == [b"psubscribe", b"__key*__:*", 1]
    sub.send("SUBSCRIBE", marker)
    assert frame(sub) == [b"subscribe", bb(marker), 2]
    key = unique("k")
    writer = conns.client()
    writer.execute_command("SET", key, "v")
    writer.execute_command("DEL", key)
    got = drain(sub, writer, marker)
    pattern = b"__key*__:*"
    assert got == [
        [b"pmessage", pattern, bb("__keyspace@0__:" + key), b"set"],
        [b"pmessage", pattern, b"__keyevent@0__:set", bb(key)],
        [b"pmessage", pattern, bb("__keyspace@0__:" + key), b"del"],
        [b"pmessage", pattern, b"__keyevent@0__:del", bb(key)],
    ]


@pytest.mark.parametrize("resp3", [False, True], ids=["resp2", "resp3"])
def test_reply_off_every_confirmation_and_message_but_no_reply(conns, resp3):
    ch, marker, shard = unique("ch"), unique("marker"), unique("sh")
    sub = silenced_subscriber(conns, resp3, "OFF", ch, marker)
    pub = conns.raw()
    sub.send("PSUBSCRIBE", "pat:*")
    assert frame(sub) == [b"psubscribe", b"pat:*", 3]
    sub.send("SSUBSCRIBE", shard)
    assert frame(sub) == [b"ssubscribe", bb(shard), 1]
    assert pub.command("PUBLISH", ch, "m1") == 1
    assert pub.command("PUBLISH", "pat:x", "m2") == 1
    assert pub.command("SPUBLISH", shard, "m3") == 1
    # PING (with or without a message) and errors are replies: silenced.
    sub.send("PING")
    sub.send("PING", "hello")
    sub.send("SUBSCRIBE")  # wrong number of arguments
    if resp3:
        sub.send("GET", "nokey")
    assert drain(sub, pub, marker) == [
        [b"message", bb(ch), b"m1"],
        [b"pmessage", b"pat:*", b"pat:x", b"m2"],
        [b"smessage", bb(shard), b"m3"],
    ]
    sub.send("UNSUBSCRIBE", ch)
    assert frame(sub) == [b"unsubscribe", bb(ch), 2]
    sub.send("PUNSUBSCRIBE")
    assert frame(sub) == [b"punsubscribe", b"pat:*", 1]
    sub.send("SUNSUBSCRIBE")
    assert frame(sub) == [b"sunsubscribe", bb(shard), 0]
    sub.send("UNSUBSCRIBE")
    assert frame(sub) == [b"unsubscribe", bb(marker), 0]
    sub.send("UNSUBSCRIBE")  # nothing left: one confirmation with a null channel
    assert frame(sub) == [b"unsubscribe", None, 0]
    sub.send("PING")
    sub.send("CLIENT", "REPLY", "ON")
    assert sub.conn.read_reply() == "OK"  # the first reply seen is REPLY ON's


@pytest.mark.parametrize("resp3", [False, True], ids=["resp2", "resp3"])
def test_reply_skip_silences_only_the_next_command(conns, resp3):
    ch, marker = unique("ch"), unique("marker")
    # The SKIP is used up by SUBSCRIBE (its confirmations still come), so PING answers.
    sub = silenced_subscriber(conns, resp3, "SKIP", ch, marker)
    pub = conns.raw()
    assert pub.command("PUBLISH", ch, "m") == 1
    assert frame(sub) == [b"message", bb(ch), b"m"]

    def ping_reply(text):
        sub.send("PING", text)
        reply = sub.conn.read_reply()
        # RESP2 subscribed mode answers a frame; RESP3 a plain bulk string.
        assert reply == (bb(text) if resp3 else [b"pong", bb(text)]), reply

    ping_reply("a")
    if resp3:
        # SKIP before a PING: that PING is silent, the next one answers.
        sub.send("CLIENT", "REPLY", "SKIP")
        sub.send("PING", "silent")
    else:
        # RESP2 subscribed mode refuses CLIENT (and that error is a reply: it is seen).
        sub.send("CLIENT", "REPLY", "SKIP")
        assert sub.conn.read_reply() == SUBSCRIBED_MODE_ERROR.format("client|reply")
    ping_reply("heard")
    token = publish_marker(pub, marker)
    assert frame(sub) == [b"message", bb(marker), bb(token)]


@pytest.mark.parametrize("resp3", [False, True], ids=["resp2", "resp3"])
def test_reply_off_unsubscribe_without_subscriptions(conns, resp3):
    c = conns.sub(resp3=resp3)
    c.send("CLIENT", "REPLY", "OFF")
    c.send("UNSUBSCRIBE")
    assert frame(c) == [b"unsubscribe", None, 0]
    c.send("PUNSUBSCRIBE", "nope")
    assert frame(c) == [b"punsubscribe", b"nope", 0]
    c.send("SET", "k", "v")
    c.send("CLIENT", "REPLY", "ON")
    assert c.conn.read_reply() == "OK"


def test_reset_under_reply_off_answers_and_turns_replies_back_on(conns):
    sub = silenced_subscriber(conns, False, "OFF", unique("ch"))
    sub.send("RESET")
    assert sub.conn.read_reply() == "RESET"
    assert sub.conn.command("PING") == "PONG"


def test_own_messages_come_after_the_reply(conns, events):
    """RESP3: a subscriber's own write raises a keyspace event it receives; the push follows
    the command's reply, and follows EXEC's whole array."""
    key = unique("k")
    channel = "__keyspace@0__:" + key
    c = conns.raw(resp3=True)
    assert c.command("SUBSCRIBE", channel) == ("push", [b"subscribe", bb(channel), 1])
    event = ("push", [b"message", bb(channel), b"set"])
    assert c.command("SET", key, "v") == "OK"
    assert c.read_reply() == event
    assert c.command("PUBLISH", channel, "hi") == 1
    assert c.read_reply() == ("push", [b"message", bb(channel), b"hi"])
    z = unique("z")
    assert c.command("MULTI") == "OK"
    assert c.command("SET", key, "2") == "QUEUED"
    assert c.command("SUBSCRIBE", z) == "QUEUED"
    # SUBSCRIBE's confirmation is its reply (inside the array); SET's event comes after.
    assert c.command("EXEC") == ["OK", ("push", [b"subscribe", bb(z), 2])]
    assert c.read_reply() == event


def test_own_messages_under_reply_off(conns, events):
    key = unique("k")
    channel = "__keyspace@0__:" + key
    z = unique("z")
    c = conns.raw(resp3=True)
    c.send_command("CLIENT", "REPLY", "OFF")
    c.send_command("SUBSCRIBE", channel)
    assert c.read_reply() == ("push", [b"subscribe", bb(channel), 1])
    c.send_command("SET", key, "v")
    assert c.read_reply() == ("push", [b"message", bb(channel), b"set"])
    for command in (("MULTI",), ("SET", key, "2"), ("SUBSCRIBE", z), ("EXEC",)):
        c.send_command(*command)
    assert c.read_reply() == ("push", [b"subscribe", bb(z), 2])
    assert c.read_reply() == ("push", [b"message", bb(channel), b"set"])
    c.send_command("CLIENT", "REPLY", "ON")
    assert c.read_reply() == "OK"
    assert not isinstance(c.command("GET", key), RespError)
