"""Pub/sub: (P|S)SUBSCRIBE / (P|S)UNSUBSCRIBE replies, PUBLISH / SPUBLISH delivery and counts,
glob patterns, PUBSUB introspection, RESP2 subscribed mode, RESP3 push frames, RESET.

Replies are checked on raw sockets (exact RESP frames and running counts). Every test runs on
a server of its own module (`ps_server`), so global counters start from a known state."""
import pytest

from conftest import wait_until
from helpers_pubsub import (SUBSCRIBED_MODE_ERROR, bb, client_list, conns, drain,  # noqa: F401
                            ps_server, publish_marker, unique)


# --- SUBSCRIBE / UNSUBSCRIBE ----------------------------------------------------------------

def test_subscribe_replies_with_running_count(conns):
    s = conns.sub()
    a, b, c = unique(), unique(), unique()
    assert s.subscribe(a, b) == [[b"subscribe", bb(a), 1], [b"subscribe", bb(b), 2]]
    assert s.subscribe(c) == [[b"subscribe", bb(c), 3]]


def test_duplicate_subscribe_keeps_the_count(conns):
    s = conns.sub()
    a, b = unique(), unique()
    assert s.subscribe(a, a, b, a) == [[b"subscribe", bb(a), 1], [b"subscribe", bb(a), 1],
                                       [b"subscribe", bb(b), 2], [b"subscribe", bb(a), 2]]
    assert s.subscribe(b) == [[b"subscribe", bb(b), 2]]


def test_unsubscribe_named_channels(conns):
    s = conns.sub()
    a, b, other = unique(), unique(), unique()
    s.subscribe(a, b)
    s.send("UNSUBSCRIBE", b, other)
    # a channel the client never subscribed to is confirmed too, with the unchanged count
    assert s.frames(2) == [[b"unsubscribe", bb(b), 1], [b"unsubscribe", bb(other), 1]]
    s.send("UNSUBSCRIBE", a)
    assert s.frame() == [b"unsubscribe", bb(a), 0]


def test_unsubscribe_without_arguments_leaves_every_channel(conns):
    s = conns.sub()
    names = [unique() for _ in range(3)]
    s.subscribe(*names)
    s.send("UNSUBSCRIBE")
    frames = s.frames(3)
    # the order over the channels is the server's; the counts still go 2, 1, 0
    assert [f[0] for f in frames] == [b"unsubscribe"] * 3
    assert sorted(f[1] for f in frames) == sorted(bb(n) for n in names)
    assert [f[2] for f in frames] == [2, 1, 0]
    # nothing left: a further UNSUBSCRIBE answers with a nil channel
    s.send("UNSUBSCRIBE")
    assert s.frame() == [b"unsubscribe", None, 0]


def test_unsubscribe_without_subscriptions_replies_nil(conns):
    c = conns.raw()
    assert c.command("UNSUBSCRIBE") == [b"unsubscribe", None, 0]
    assert c.command("PUNSUBSCRIBE") == [b"punsubscribe", None, 0]
    assert c.command("SUNSUBSCRIBE") == [b"sunsubscribe", None, 0]
    # the connection never entered subscribed mode
    assert c.command("SET", "k" + unique(), "v") == "OK"


def test_unsubscribe_count_includes_patterns(conns):
    s = conns.sub()
    ch, pat = unique(), unique("pat") + "*"
    assert s.psubscribe(pat) == [[b"psubscribe", bb(pat), 1]]
    assert s.subscribe(ch) == [[b"subscribe", bb(ch), 2]]
    s.send("UNSUBSCRIBE")
    assert s.frame() == [b"unsubscribe", bb(ch), 1]
    # no channels left, one pattern: nil channel, count 1
    s.send("UNSUBSCRIBE")
    assert s.frame() == [b"unsubscribe", None, 1]


# --- PSUBSCRIBE / PUNSUBSCRIBE --------------------------------------------------------------

def test_psubscribe_count_is_channels_plus_patterns(conns):
    s = conns.sub()
    a, b = unique(), unique()
    p1, p2 = unique("p") + ".*", unique("p") + "?"
    assert s.subscribe(a, b) == [[b"subscribe", bb(a), 1], [b"subscribe", bb(b), 2]]
    assert s.psubscribe(p1, p2, p1) == [[b"psubscribe", bb(p1), 3], [b"psubscribe", bb(p2), 4],
                                        [b"psubscribe", bb(p1), 4]]
    c = unique()
    assert s.subscribe(c) == [[b"subscribe", bb(c), 5]]


def test_punsubscribe_named_and_all(conns):
    s = conns.sub()
    ch = unique()
    p1, p2, p3 = (unique("p") + "*" for _ in range(3))
    s.subscribe(ch)
    s.psubscribe(p1, p2, p3)
    s.send("PUNSUBSCRIBE", p2, "never-subscribed*")
    assert s.frames(2) == [[b"punsubscribe", bb(p2), 3], [b"punsubscribe", b"never-subscribed*", 3]]
    s.send("PUNSUBSCRIBE")
    frames = s.frames(2)
    assert [f[0] for f in frames] == [b"punsubscribe"] * 2
    assert sorted(f[1] for f in frames) == sorted([bb(p1), bb(p3)])
    assert [f[2] for f in frames] == [2, 1]        # the channel still counts
    s.send("PUNSUBSCRIBE")
    assert s.frame() == [b"punsubscribe", None, 1]
    s.send("UNSUBSCRIBE")
    assert s.frame() == [b"unsubscribe", bb(ch), 0]


def test_pattern_is_a_literal_in_unsubscribe(conns, ps_server):
    """PUNSUBSCRIBE names patterns exactly; it does not glob over the subscribed ones."""
    s = conns.sub()
    pub = conns.raw()
    base = unique("lit")
    s.psubscribe(base + ".a*")
    s.send("PUNSUBSCRIBE", base + ".*")
    assert s.frame() == [b"punsubscribe", bb(base + ".*"), 1]
    assert pub.command("PUBLISH", base + ".abc", "x") == 1
    assert s.message() == [b"pmessage", bb(base + ".a*"), bb(base + ".abc"), b"x"]


# --- SSUBSCRIBE / SUNSUBSCRIBE --------------------------------------------------------------

def test_ssubscribe_counts_only_shard_channels(conns):
    s = conns.sub()
    ch, pat = unique(), unique("p") + "*"
    s1, s2 = unique("{s}"), unique("{s}")
    s.subscribe(ch)
    s.psubscribe(pat)
    assert s.ssubscribe(s1, s2, s1) == [[b"ssubscribe", bb(s1), 1], [b"ssubscribe", bb(s2), 2],
                                        [b"ssubscribe", bb(s1), 2]]
    # and the channel/pattern counts do not include shard channels
    other = unique()
    assert s.subscribe(other) == [[b"subscribe", bb(other), 3]]
    s.send("SUNSUBSCRIBE", s2)
    assert s.frame() == [b"sunsubscribe", bb(s2), 1]
    s.send("SUNSUBSCRIBE")
    assert s.frame() == [b"sunsubscribe", bb(s1), 0]
    # no shard channels left (channels and patterns remain): nil, 0
    s.send("SUNSUBSCRIBE")
    assert s.frame() == [b"sunsubscribe", None, 0]


def test_sunsubscribe_all_reports_each_channel(conns):
    s = conns.sub()
    names = [unique("{t}") for _ in range(3)]
    s.ssubscribe(*names)
    s.send("SUNSUBSCRIBE")
    frames = s.frames(3)
    assert [f[0] for f in frames] == [b"sunsubscribe"] * 3
    assert sorted(f[1] for f in frames) == sorted(bb(n) for n in names)
    assert [f[2] for f in frames] == [2, 1, 0]


# --- PUBLISH ---------------------------------------------------------------------------------

def test_publish_without_subscribers_returns_zero(conns):
    pub = conns.raw()
    assert pub.command("PUBLISH", unique(), "hello") == 0


def test_message_frames(conns):
    ch = unique("news")
    pat = ch[:-3] + "*"
    s, p, pub = conns.sub(), conns.sub(), conns.raw()
    s.subscribe(ch)
    p.psubscribe(pat)
    assert pub.command("PUBLISH", ch, "hello") == 2
    assert s.message() == [b"message", bb(ch), b"hello"]
    assert p.message() == [b"pmessage", bb(pat), bb(ch), b"hello"]


@pytest.mark.parametrize("payload", [b"", b"a\r\nb", b"\x00\xff\x01binary", b"x" * 100000])
def test_payload_is_binary_safe(conns, payload):
    ch = unique()
    s, pub = conns.sub(), conns.raw()
    s.subscribe(ch)
    assert pub.command("PUBLISH", ch, payload) == 1
    assert s.message() == [b"message", bb(ch), payload]


def test_binary_channel_names(conns):
    ch = b"bin\x00\r\n:" + unique().encode()
    s, pub = conns.sub(), conns.raw()
    assert s.subscribe(ch) == [[b"subscribe", ch, 1]]
    assert pub.command("PUBLISH", ch, "m") == 1
    assert s.message() == [b"message", ch, b"m"]
    assert pub.command("PUBLISH", ch[:-1], "m") == 0


def test_publish_counts_every_receiver(conns):
    base = unique("cnt")
    ch = base + ".x"
    subs = [conns.sub() for _ in range(3)]
    subs[0].subscribe(ch)
    subs[1].subscribe(ch)
    subs[2].psubscribe(base + ".*")
    pub = conns.raw()
    assert pub.command("PUBLISH", ch, "one") == 3
    assert subs[0].message() == [b"message", bb(ch), b"one"]
    assert subs[1].message() == [b"message", bb(ch), b"one"]
    assert subs[2].message() == [b"pmessage", bb(base + ".*"), bb(ch), b"one"]
    # a channel only the pattern matches
    assert pub.command("PUBLISH", base + ".y", "two") == 1


def test_client_counted_once_per_matching_subscription(conns):
    """A client subscribed to the channel and to two matching patterns gets three messages,
    and PUBLISH counts three."""
    base = unique("multi")
    ch = base + ".x"
    s, pub = conns.sub(), conns.raw()
    s.subscribe(ch)
    s.psubscribe(base + ".*", base + "*", base + ".nomatch*")
    assert pub.command("PUBLISH", ch, "m") == 3
    frames = [s.message() for _ in range(3)]
    assert frames[0] == [b"message", bb(ch), b"m"]        # channel subscribers first
    assert sorted(frames[1:]) == sorted([[b"pmessage", bb(base + ".*"), bb(ch), b"m"],
                                         [b"pmessage", bb(base + "*"), bb(ch), b"m"]])
    assert drain(s, pub, ch) == []


def test_unsubscribed_client_gets_nothing_more(conns):
    a, b = unique(), unique()
    s, pub = conns.sub(), conns.raw()
    s.subscribe(a, b)
    s.send("UNSUBSCRIBE", a)
    assert s.frame() == [b"unsubscribe", bb(a), 1]
    assert pub.command("PUBLISH", a, "lost") == 0
    assert drain(s, pub, b) == []


def test_publish_order_is_kept(conns):
    ch = unique()
    s, pub = conns.sub(), conns.raw()
    s.subscribe(ch)
    pub.send(b"".join(b"*3\r\n$7\r\nPUBLISH\r\n$%d\r\n%s\r\n$%d\r\n%d\r\n"
                      % (len(ch), bb(ch), len(str(i)), i) for i in range(200)))
    assert [pub.read_reply() for _ in range(200)] == [1] * 200
    assert [s.message() for _ in range(200)] == [[b"message", bb(ch), b"%d" % i] for i in range(200)]


def test_subscriber_can_publish_to_itself_in_resp3(conns):
    ch = unique()
    s = conns.sub(resp3=True)
    s.subscribe(ch)
    s.send("PUBLISH", ch, "me")
    # Redis queues the push while PUBLISH runs, so it comes first; either order is a valid
    # RESP3 stream as long as both arrive whole
    got = [s.conn.read_reply(), s.conn.read_reply()]
    assert sorted(got, key=repr) == sorted([("push", [b"message", bb(ch), b"me"]), 1], key=repr)


# --- glob patterns ---------------------------------------------------------------------------

GLOB_CASES = [
    ("h?llo", ["hello", "hallo", "h\x00llo"], ["hllo", "heello", "Hello"]),
    ("h*llo", ["hllo", "hello", "heeeello", "h.x.llo"], ["hellox", "ello"]),
    ("h[ae]llo", ["hello", "hallo"], ["hillo", "hllo", "haello"]),
    ("h[^e]llo", ["hallo", "hbllo"], ["hello", "hllo"]),
    ("h[a-c]llo", ["hallo", "hbllo", "hcllo"], ["hdllo", "hello"]),
    ("h[c-a]llo", ["hbllo"], ["hdllo"]),                # Redis swaps a reversed range
    ("h[^a-c]llo", ["hdllo"], ["hbllo"]),
    ("h\\*llo", ["h*llo"], ["hello", "hllo"]),
    ("h\\?llo", ["h?llo"], ["hallo"]),
    ("\\[x\\]", ["[x]"], ["x"]),
    ("news.*", ["news.", "news.art.tech"], ["news", "newsX"]),
    ("*", ["anything", "a:b:c"], []),
    ("[abc]", ["a", "c"], ["d", "ab", ""]),
    ("*.end", [".end", "x.end"], ["x.ends"]),
    ("a*b*c", ["abc", "aXbYc", "abbc"], ["acb", "ab"]),
]


@pytest.mark.parametrize("pattern,matching,other", GLOB_CASES,
                         ids=[c[0] for c in GLOB_CASES])
def test_glob_patterns(conns, pattern, matching, other):
    prefix = unique("g") + "|"
    s, pub = conns.sub(), conns.raw()
    full = prefix + pattern
    s.psubscribe(full)
    for name in matching:
        assert pub.command("PUBLISH", prefix + name, "m") == 1, f"{pattern!r} should match {name!r}"
        assert s.message() == [b"pmessage", bb(full), bb(prefix + name), b"m"]
    for name in other:
        assert pub.command("PUBLISH", prefix + name, "m") == 0, f"{pattern!r} matched {name!r}"


def test_pubsub_channels_uses_the_same_globs(conns):
    s, c = conns.sub(), conns.raw()
    prefix = unique("gl") + "|"
    names = ["hello", "hallo", "hbllo", "h*llo", "hllo"]
    s.subscribe(*[prefix + n for n in names])
    for pat, expected in [("h?llo", {"hello", "hallo", "hbllo", "h*llo"}),
                          ("h[ae]llo", {"hello", "hallo"}),
                          ("h[^e]llo", {"hallo", "hbllo", "h*llo"}),
                          ("h\\*llo", {"h*llo"}),
                          ("h*", set(names))]:
        got = c.command("PUBSUB", "CHANNELS", prefix + pat)
        assert sorted(got) == sorted(bb(prefix + n) for n in expected), pat


# --- sharded pub/sub --------------------------------------------------------------------------

def test_spublish_reaches_only_ssubscribers(conns):
    ch = unique("{sh}")
    shard, plain, pattern = conns.sub(), conns.sub(), conns.sub()
    pub = conns.raw()
    shard.ssubscribe(ch)
    plain.subscribe(ch)
    pattern.psubscribe(ch[:4] + "*")
    # SPUBLISH: only the shard subscriber, never patterns or plain channel subscribers
    assert pub.command("SPUBLISH", ch, "s1") == 1
    assert shard.message() == [b"smessage", bb(ch), b"s1"]
    # PUBLISH does not reach the shard subscriber
    assert pub.command("PUBLISH", ch, "p1") == 2
    assert plain.message() == [b"message", bb(ch), b"p1"]
    assert pattern.message() == [b"pmessage", bb(ch[:4] + "*"), bb(ch), b"p1"]
    # no smessage reached the plain or the pattern subscriber
    token = publish_marker(pub, ch)
    assert plain.until_marker(ch, token) == []
    assert pattern.until_marker(ch, token) == []
    shard.send("SUBSCRIBE", ch)                   # now a plain subscriber too
    assert shard.frame() == [b"subscribe", bb(ch), 1]
    assert pub.command("SPUBLISH", ch, "s2") == 1
    assert pub.command("PUBLISH", ch, "p2") == 3
    assert shard.message() == [b"smessage", bb(ch), b"s2"]
    assert shard.message() == [b"message", bb(ch), b"p2"]


def test_spublish_without_subscribers(conns):
    pub = conns.raw()
    assert pub.command("SPUBLISH", unique("{x}"), "m") == 0


def test_sunsubscribed_shard_channel_gets_nothing(conns):
    a, b = unique("{u}"), unique("{u}")
    s, pub = conns.sub(), conns.raw()
    s.ssubscribe(a, b)
    s.send("SUNSUBSCRIBE", a)
    assert s.frame() == [b"sunsubscribe", bb(a), 1]
    assert pub.command("SPUBLISH", a, "x") == 0
    assert pub.command("SPUBLISH", b, "y") == 1
    assert s.message() == [b"smessage", bb(b), b"y"]


# --- PUBSUB introspection --------------------------------------------------------------------

def test_pubsub_channels_and_numsub(conns):
    base = unique("intro")
    a, b, c_ = base + ".a", base + ".b", base + ".c"
    s1, s2, s3 = conns.sub(), conns.sub(), conns.sub()
    q = conns.raw()
    s1.subscribe(a, b)
    s2.subscribe(a)
    s3.psubscribe(base + ".*")          # patterns are not channels and not counted by NUMSUB
    s3.ssubscribe(c_)                   # nor are shard channels
    assert sorted(q.command("PUBSUB", "CHANNELS", base + "*")) == [bb(a), bb(b)]
    assert bb(a) in q.command("PUBSUB", "CHANNELS")
    assert q.command("PUBSUB", "CHANNELS", base + ".z*") == []
    assert q.command("PUBSUB", "NUMSUB", a, b, c_, a) == [bb(a), 2, bb(b), 1, bb(c_), 0, bb(a), 2]
    assert q.command("PUBSUB", "NUMSUB") == []
    s1.send("UNSUBSCRIBE", a)
    assert s1.frame() == [b"unsubscribe", bb(a), 1]
    assert q.command("PUBSUB", "NUMSUB", a) == [bb(a), 1]
    s2.send("UNSUBSCRIBE")
    assert s2.frame() == [b"unsubscribe", bb(a), 0]
    assert q.command("PUBSUB", "NUMSUB", a) == [bb(a), 0]
    assert q.command("PUBSUB", "CHANNELS", base + "*") == [bb(b)]


def test_pubsub_numpat_counts_unique_patterns(conns):
    q = conns.raw()
    assert wait_until(lambda: q.command("PUBSUB", "NUMPAT") == 0), "patterns left by other tests"
    p1, p2 = unique("np") + "*", unique("np") + "*"
    s1, s2 = conns.sub(), conns.sub()
    s1.psubscribe(p1, p2)
    s2.psubscribe(p1)                   # same pattern from another client: still 2 patterns
    s2.subscribe(unique())              # channels are not patterns
    assert q.command("PUBSUB", "NUMPAT") == 2
    s1.send("PUNSUBSCRIBE", p1)
    s1.frame()
    assert q.command("PUBSUB", "NUMPAT") == 2      # s2 still holds p1
    s2.send("PUNSUBSCRIBE", p1)
    s2.frame()
    assert q.command("PUBSUB", "NUMPAT") == 1


def test_pubsub_shardchannels_and_shardnumsub(conns):
    base = unique("{shi}")
    a, b = base + ".a", base + ".b"
    s1, s2, s3 = conns.sub(), conns.sub(), conns.sub()
    q = conns.raw()
    s1.ssubscribe(a, b)
    s2.ssubscribe(a)
    s3.subscribe(base + ".plain")       # not a shard channel
    assert sorted(q.command("PUBSUB", "SHARDCHANNELS", base + "*")) == [bb(a), bb(b)]
    assert q.command("PUBSUB", "SHARDCHANNELS", base + ".a") == [bb(a)]
    assert bb(a) in q.command("PUBSUB", "SHARDCHANNELS")
    assert q.command("PUBSUB", "SHARDNUMSUB", a, b, base + ".plain") == \
        [bb(a), 2, bb(b), 1, bb(base + ".plain"), 0]
    assert q.command("PUBSUB", "SHARDNUMSUB") == []
    assert q.command("PUBSUB", "CHANNELS", base + "*") == [bb(base + ".plain")]


def test_closed_connection_drops_its_subscriptions(conns):
    ch, pat, sh = unique(), unique("cl") + "*", unique("{cl}")
    q = conns.raw()
    assert wait_until(lambda: q.command("PUBSUB", "NUMPAT") == 0), "patterns left by other tests"
    base_numpat = 0
    s = conns.sub()
    s.subscribe(ch)
    s.psubscribe(pat)
    s.ssubscribe(sh)
    assert q.command("PUBSUB", "NUMSUB", ch) == [bb(ch), 1]
    assert q.command("PUBSUB", "NUMPAT") == base_numpat + 1
    s.close()
    assert wait_until(lambda: q.command("PUBSUB", "NUMSUB", ch) == [bb(ch), 0])
    assert wait_until(lambda: q.command("PUBSUB", "SHARDNUMSUB", sh) == [bb(sh), 0])
    assert wait_until(lambda: q.command("PUBSUB", "NUMPAT") == base_numpat)
    assert q.command("PUBLISH", ch, "x") == 0
    assert q.command("SPUBLISH", sh, "x") == 0


def test_pubsub_errors(conns):
    q = conns.raw()
    assert q.command("PUBSUB") == "ERR wrong number of arguments for 'pubsub' command"
    assert q.command("PUBSUB", "FOO") == "ERR unknown subcommand 'FOO'. Try PUBSUB HELP."
    assert q.command("PUBSUB", "NUMPAT", "x") == \
        "ERR wrong number of arguments for 'pubsub|numpat' command"
    assert q.command("PUBSUB", "CHANNELS", "a", "b") == \
        "ERR unknown subcommand or wrong number of arguments for 'CHANNELS'. Try PUBSUB HELP."


@pytest.mark.parametrize("args,name", [
    (["SUBSCRIBE"], "subscribe"), (["PSUBSCRIBE"], "psubscribe"), (["SSUBSCRIBE"], "ssubscribe"),
    (["PUBLISH", "ch"], "publish"), (["PUBLISH", "ch", "m", "x"], "publish"),
    (["SPUBLISH", "ch"], "spublish"), (["SPUBLISH", "ch", "m", "x"], "spublish"),
])
def test_arity_errors(conns, args, name):
    c = conns.raw()
    assert c.command(*args) == f"ERR wrong number of arguments for '{name}' command"
    # a failed SUBSCRIBE does not put the connection into subscribed mode
    assert c.command("PING") == "PONG"


def test_info_stats_counts_channels_and_patterns(conns, ps_server):
    q = conns.client()

    def stats():
        info = q.info("stats")
        return info["pubsub_channels"], info["pubsub_patterns"], info["pubsubshard_channels"]

    assert wait_until(lambda: stats() == (0, 0, 0)), stats()
    s1, s2 = conns.sub(), conns.sub()
    a, b, p, sh = unique(), unique(), unique("ip") + "*", unique("{ip}")
    s1.subscribe(a, b)
    s2.subscribe(a)
    s1.psubscribe(p)
    s2.psubscribe(p)
    s2.ssubscribe(sh)
    assert stats() == (2, 1, 1)


def test_client_list_shows_subscriptions(conns):
    s = conns.sub()
    q = conns.client()
    s.send("CLIENT", "SETNAME", "lister")
    assert s.conn.read_reply() == "OK"
    s.subscribe(unique(), unique())
    s.psubscribe(unique("cl") + "*")
    s.ssubscribe(unique("{cl}"), unique("{cl}"), unique("{cl}"))
    (entry,) = [e for e in client_list(q) if e["name"] == "lister"]
    assert (entry["sub"], entry["psub"], entry["ssub"]) == ("2", "1", "3")
    assert "P" in entry["flags"]
    (me,) = [e for e in client_list(q) if e["cmd"] == "client|list"]
    assert (me["sub"], me["psub"], me["ssub"]) == ("0", "0", "0")
    assert "P" not in me["flags"]


# --- RESP2 subscribed mode -------------------------------------------------------------------

def test_resp2_subscribed_mode_rejects_other_commands(conns):
    s = conns.sub()
    ch = unique()
    s.subscribe(ch)
    s.send("GET", "k")
    assert s.conn.read_reply() == SUBSCRIBED_MODE_ERROR.format("get")
    s.send("SET", "k", "v")
    assert s.conn.read_reply() == SUBSCRIBED_MODE_ERROR.format("set")
    s.send("publish", ch, "x")
    assert s.conn.read_reply() == SUBSCRIBED_MODE_ERROR.format("publish")
    # the rejection leaves the subscription alone
    pub = conns.raw()
    assert pub.command("PUBLISH", ch, "still") == 1
    assert s.message() == [b"message", bb(ch), b"still"]


def test_resp2_ping_in_subscribed_mode(conns):
    s = conns.sub()
    s.subscribe(unique())
    s.send("PING")
    assert s.frame() == [b"pong", b""]
    s.send("PING", "hello")
    assert s.frame() == [b"pong", b"hello"]


@pytest.mark.parametrize("kind", ["PSUBSCRIBE", "SSUBSCRIBE"])
def test_resp2_pattern_or_shard_subscription_enters_subscribed_mode(conns, kind):
    s = conns.sub()
    s.send(kind, unique("{m}") + "*")
    s.frame()
    s.send("GET", "k")
    assert s.conn.read_reply() == SUBSCRIBED_MODE_ERROR.format("get")
    s.send("PING")
    assert s.frame() == [b"pong", b""]


def test_resp2_leaves_subscribed_mode_after_the_last_unsubscribe(conns):
    s = conns.sub()
    ch, pat, sh = unique(), unique("lv") + "*", unique("{lv}")
    s.subscribe(ch)
    s.psubscribe(pat)
    s.ssubscribe(sh)
    s.send("UNSUBSCRIBE")
    assert s.frame() == [b"unsubscribe", bb(ch), 1]
    s.send("GET", "k")                  # a pattern is left
    assert s.conn.read_reply() == SUBSCRIBED_MODE_ERROR.format("get")
    s.send("PUNSUBSCRIBE")
    assert s.frame() == [b"punsubscribe", bb(pat), 0]
    s.send("GET", "k")                  # a shard channel is left
    assert s.conn.read_reply() == SUBSCRIBED_MODE_ERROR.format("get")
    s.send("SUNSUBSCRIBE")
    assert s.frame() == [b"sunsubscribe", bb(sh), 0]
    # nothing left: back to normal replies
    s.send("PING")
    assert s.conn.read_reply() == "PONG"
    assert s.conn.command("SET", unique("k"), "v") == "OK"


def test_resp2_subscribe_and_commands_in_one_packet(conns):
    """Commands pipelined behind SUBSCRIBE are judged in subscribed mode."""
    c = conns.raw()
    ch = unique()
    c.send(b"*2\r\n$9\r\nSUBSCRIBE\r\n$%d\r\n%s\r\n*1\r\n$4\r\nPING\r\n*2\r\n$3\r\nGET\r\n$1\r\nk\r\n"
           b"*1\r\n$11\r\nUNSUBSCRIBE\r\n*1\r\n$4\r\nPING\r\n" % (len(ch), bb(ch)))
    assert c.read_reply() == [b"subscribe", bb(ch), 1]
    assert c.read_reply() == [b"pong", b""]
    assert c.read_reply() == SUBSCRIBED_MODE_ERROR.format("get")
    assert c.read_reply() == [b"unsubscribe", bb(ch), 0]
    assert c.read_reply() == "PONG"


def test_quit_in_subscribed_mode(conns):
    s = conns.sub()
    s.subscribe(unique())
    s.send("QUIT")
    assert s.conn.read_reply() == "OK"
    assert s.conn.closed_by_server()


def test_reset_leaves_subscribed_mode(conns):
    s = conns.sub()
    q = conns.raw()
    ch, pat, sh = unique(), unique("rs") + "*", unique("{rs}")
    s.subscribe(ch)
    s.psubscribe(pat)
    s.ssubscribe(sh)
    s.send("RESET")
    assert s.conn.read_reply() == "RESET"
    assert s.conn.command("GET", unique("nokey")) is None
    assert s.conn.command("PING") == "PONG"
    # RESET dropped every subscription
    assert q.command("PUBSUB", "NUMSUB", ch) == [bb(ch), 0]
    assert q.command("PUBSUB", "SHARDNUMSUB", sh) == [bb(sh), 0]
    assert q.command("PUBLISH", pat[:-1] + "x", "m") == 0
    assert q.command("PUBLISH", ch, "m") == 0


def test_subscribe_inside_multi(conns):
    c = conns.raw()
    pub = conns.raw()
    ch, sh = unique(), unique("{mx}")
    assert c.command("MULTI") == "OK"
    assert c.command("SUBSCRIBE", ch) == "QUEUED"
    assert c.command("SSUBSCRIBE", sh) == "QUEUED"
    assert c.command("EXEC") == [[b"subscribe", bb(ch), 1],
                                 "ERR SSUBSCRIBE isn't allowed for a DENY BLOCKING client"]
    assert pub.command("PUBLISH", ch, "after") == 1
    assert c.read_reply() == [b"message", bb(ch), b"after"]


# --- RESP3 ---------------------------------------------------------------------------------

def test_resp3_confirmations_and_messages_are_pushes(conns):
    s = conns.sub(resp3=True)
    pub = conns.raw()
    ch, sh = unique("r3"), unique("{r3}")
    pat = ch[:-2] + "*"
    s.send("SUBSCRIBE", ch)
    assert s.conn.read_reply() == ("push", [b"subscribe", bb(ch), 1])
    s.send("PSUBSCRIBE", pat)
    assert s.conn.read_reply() == ("push", [b"psubscribe", bb(pat), 2])
    s.send("SSUBSCRIBE", sh)
    assert s.conn.read_reply() == ("push", [b"ssubscribe", bb(sh), 1])
    assert pub.command("PUBLISH", ch, "m1") == 2
    assert s.conn.read_reply() == ("push", [b"message", bb(ch), b"m1"])
    assert s.conn.read_reply() == ("push", [b"pmessage", bb(pat), bb(ch), b"m1"])
    assert pub.command("SPUBLISH", sh, "m2") == 1
    assert s.conn.read_reply() == ("push", [b"smessage", bb(sh), b"m2"])
    s.send("UNSUBSCRIBE", ch)
    assert s.conn.read_reply() == ("push", [b"unsubscribe", bb(ch), 1])
    s.send("PUNSUBSCRIBE")
    assert s.conn.read_reply() == ("push", [b"punsubscribe", bb(pat), 0])
    s.send("UNSUBSCRIBE")
    assert s.conn.read_reply() == ("push", [b"unsubscribe", None, 0])
    s.send("SUNSUBSCRIBE")
    assert s.conn.read_reply() == ("push", [b"sunsubscribe", bb(sh), 0])


def test_resp3_subscribed_client_runs_any_command(conns):
    s = conns.sub(resp3=True)
    ch, key = unique(), unique("key")
    s.subscribe(ch)
    c = s.conn
    assert c.command("SET", key, "v") == "OK"
    assert c.command("GET", key) == b"v"
    assert c.command("PING") == "PONG"
    assert c.command("PING", "hi") == b"hi"
    assert c.command("PUBSUB", "NUMSUB", ch) == [bb(ch), 1]
    assert c.command("PUBLISH", unique(), "nobody") == 0


def test_resp3_message_between_replies(conns):
    """A push that arrives while the client waits for a reply comes before or after it, never
    inside it; both arrive."""
    s = conns.sub(resp3=True)
    pub = conns.raw()
    ch, key = unique(), unique("key")
    s.subscribe(ch)
    assert s.conn.command("SET", key, "value") == "OK"
    assert pub.command("PUBLISH", ch, "m") == 1
    s.send("GET", key)
    got = [s.conn.read_reply(), s.conn.read_reply()]
    assert sorted(got, key=repr) == sorted([("push", [b"message", bb(ch), b"m"]), b"value"], key=repr)


def test_resp3_reset_returns_to_resp2(conns):
    s = conns.sub(resp3=True)
    ch = unique()
    s.subscribe(ch)
    assert s.conn.command("RESET") == "RESET"
    # RESP2 again (a flat array, not a map), and no subscriptions left
    hello = s.conn.command("HELLO")
    assert isinstance(hello, list)
    assert dict(zip(hello[0::2], hello[1::2]))[b"proto"] == 2
    pub = conns.raw()
    assert pub.command("PUBLISH", ch, "x") == 0
    assert s.conn.command("SUBSCRIBE", ch) == [b"subscribe", bb(ch), 1]
