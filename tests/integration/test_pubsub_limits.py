"""Pub/sub under load: fan-out over many connections (HotKV spreads them over worker threads),
per-publisher ordering, many subscriptions, large messages, and slow subscribers cut off by
client-output-buffer-limit while the rest keep receiving and the server's memory stays
bounded."""
import socket
import threading

import pytest

from conftest import RawConnection, resp_command, wait_until
from helpers_pubsub import (Connections, bb, client_list, conns, ps_server, read_frames,  # noqa: F401
                            unique)


def run_threads(target, count, timeout=120):
    errors = []

    def wrapper(i):
        try:
            target(i)
        except BaseException as e:     # reported in the main thread
            errors.append(e)

    threads = [threading.Thread(target=wrapper, args=(i,)) for i in range(count)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=timeout)
    assert not any(t.is_alive() for t in threads), "threads did not finish"
    if errors:
        raise errors[0]


def payload_of(frame):
    """message/smessage -> payload, pmessage -> payload."""
    if frame[0] == b"pmessage":
        return frame[3]
    assert frame[0] in (b"message", b"smessage"), frame
    return frame[2]


def publish_batch(pub, channel, payloads, command="PUBLISH"):
    pub.send(b"".join(resp_command(command, channel, p) for p in payloads))
    return [pub.read_reply() for _ in payloads]


# --- fan-out and ordering ----------------------------------------------------------------------

@pytest.mark.hotkv_only
def test_module_server_runs_several_workers(ps_server):
    """The tests below are about delivery between workers; make sure there are several."""
    c = ps_server.client()
    assert c.info("server")["worker_threads"] == 4
    c.close()


def test_fanout_keeps_every_publishers_order(conns):
    """20 subscribers (channel and pattern, RESP2 and RESP3) on one channel, 3 publishers
    publishing 500 numbered messages each at the same time: every subscriber gets all 1500,
    and each publisher's messages in the order it sent them."""
    ch = unique("fan")
    pattern = ch + "*"
    subs = []
    for i in range(20):
        s = conns.sub(resp3=(i % 4 == 3))
        if i % 2 == 0:
            assert s.subscribe(ch) == [[b"subscribe", bb(ch), 1]]
        else:
            assert s.psubscribe(pattern) == [[b"psubscribe", bb(pattern), 1]]
        subs.append(s)
    pubs = [conns.raw() for _ in range(3)]
    per_publisher = 500

    def publish(p):
        for start in range(0, per_publisher, 100):
            replies = publish_batch(pubs[p], ch, [b"%d:%d" % (p, n) for n in range(start, start + 100)])
            assert replies == [20] * 100

    run_threads(publish, len(pubs))
    for i, s in enumerate(subs):
        frames = read_frames(s.conn, len(pubs) * per_publisher)
        seen = {p: [] for p in range(len(pubs))}
        for f in frames:
            if i % 2 == 0:
                assert f[:2] == [b"message", bb(ch)], f
            else:
                assert f[:3] == [b"pmessage", bb(pattern), bb(ch)], f
            p, n = payload_of(f).split(b":")
            seen[int(p)].append(int(n))
        for p in seen:
            assert seen[p] == list(range(per_publisher)), f"subscriber {i}, publisher {p}"


def test_shard_fanout_keeps_order(conns):
    ch = unique("{sfan}")
    subs = [conns.sub() for _ in range(8)]
    for s in subs:
        assert s.ssubscribe(ch) == [[b"ssubscribe", bb(ch), 1]]
    pubs = [conns.raw() for _ in range(2)]

    def publish(p):
        for start in range(0, 300, 100):
            replies = publish_batch(pubs[p], ch, [b"%d:%d" % (p, n) for n in range(start, start + 100)],
                                    command="SPUBLISH")
            assert replies == [8] * 100

    run_threads(publish, len(pubs))
    for s in subs:
        seen = {0: [], 1: []}
        for f in read_frames(s.conn, 600):
            assert f[:2] == [b"smessage", bb(ch)], f
            p, n = f[2].split(b":")
            seen[int(p)].append(int(n))
        assert seen == {0: list(range(300)), 1: list(range(300))}


def test_subscription_churn_does_not_disturb_steady_subscribers(conns):
    """While other connections subscribe and unsubscribe over and over, the steady
    subscribers still get every message, in order, and PUBLISH never counts fewer than them."""
    ch = unique("churn")
    steady = [conns.sub() for _ in range(3)]
    for s in steady:
        s.subscribe(ch)
    churners = [conns.sub() for _ in range(4)]
    pub = conns.raw()
    total = 1000
    counts = []
    stop = threading.Event()

    def churn(i):
        s = churners[i]
        rounds = 0
        while not stop.is_set() or rounds < 20:
            s.send("SUBSCRIBE", ch)
            s.send("UNSUBSCRIBE", ch)
            # the messages that arrive in between are fine; the confirmations must come
            got = []
            while len(got) < 2:
                f = s.message(timeout=10)
                if f[0] in (b"subscribe", b"unsubscribe"):
                    got.append(f)
            assert got == [[b"subscribe", bb(ch), 1], [b"unsubscribe", bb(ch), 0]]
            rounds += 1

    def publish(_):
        try:
            for start in range(0, total, 50):
                counts.extend(publish_batch(pub, ch, [b"%d" % n for n in range(start, start + 50)]))
        finally:
            stop.set()

    run_threads(lambda i: publish(i) if i == len(churners) else churn(i), len(churners) + 1)
    assert len(counts) == total
    assert all(len(steady) <= n <= len(steady) + len(churners) for n in counts), set(counts)
    for s in steady:
        assert [f[2] for f in read_frames(s.conn, total)] == [b"%d" % n for n in range(total)]


def test_many_subscribers_on_one_channel(conns, ps_server):
    ch = unique("many")
    subs = [conns.sub() for _ in range(100)]
    for s in subs:
        s.send("SUBSCRIBE", ch)
    for s in subs:
        assert s.frame() == [b"subscribe", bb(ch), 1]
    q = conns.raw()
    assert q.command("PUBSUB", "NUMSUB", ch) == [bb(ch), 100]
    assert q.command("PUBLISH", ch, "hello") == 100
    for s in subs:
        assert s.message() == [b"message", bb(ch), b"hello"]
    for s in subs[:50]:
        s.close()
    assert wait_until(lambda: q.command("PUBSUB", "NUMSUB", ch) == [bb(ch), 50])
    assert q.command("PUBLISH", ch, "again") == 50
    for s in subs[50:]:
        assert s.message() == [b"message", bb(ch), b"again"]


def test_many_subscriptions_on_one_connection(conns):
    base = unique("wide")
    names = [f"{base}.{i}" for i in range(2000)]
    s = conns.sub()
    s.send("SUBSCRIBE", *names)
    frames = read_frames(s.conn, len(names))
    assert frames == [[b"subscribe", bb(n), i + 1] for i, n in enumerate(names)]
    s.send("PSUBSCRIBE", *[n + ".*" for n in names[:500]])
    frames = read_frames(s.conn, 500)
    assert [f[2] for f in frames] == list(range(2001, 2501))
    q = conns.raw()
    assert q.command("PUBSUB", "NUMSUB", names[0], names[-1]) == [bb(names[0]), 1, bb(names[-1]), 1]
    assert len(q.command("PUBSUB", "CHANNELS", base + ".*")) == 2000
    assert q.command("PUBLISH", names[1234], "m") == 1
    assert s.message() == [b"message", bb(names[1234]), b"m"]
    assert q.command("PUBLISH", names[7] + ".x", "p") == 1
    assert s.message() == [b"pmessage", bb(names[7] + ".*"), bb(names[7] + ".x"), b"p"]
    s.send("UNSUBSCRIBE")
    frames = read_frames(s.conn, 2000)
    assert sorted(f[1] for f in frames) == sorted(bb(n) for n in names)
    assert [f[2] for f in frames] == list(range(2499, 499, -1))
    assert q.command("PUBSUB", "NUMSUB", names[0]) == [bb(names[0]), 0]


def test_large_message(conns):
    ch = unique("big")
    subs = [conns.sub() for _ in range(3)]
    for s in subs:
        s.subscribe(ch)
    pub = conns.raw()
    payload = bytes(range(256)) * (2 * 4096)        # 2 MiB, every byte value
    assert pub.command("PUBLISH", ch, payload) == 3
    for s in subs:
        assert read_frames(s.conn, 1) == [[b"message", bb(ch), payload]]


# --- slow subscribers --------------------------------------------------------------------------

def slow_subscriber(server, channel, name):
    """A subscriber with a tiny receive buffer that reads its two confirmations and then
    nothing more."""
    sock = socket.socket()
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    sock.settimeout(5)
    sock.connect(("127.0.0.1", server.port))
    conn = RawConnection(sock)
    conn.send(resp_command("CLIENT", "SETNAME", name) + resp_command("SUBSCRIBE", channel))
    assert conn.read_reply() == "OK"
    assert conn.read_reply() == [b"subscribe", bb(channel), 1]
    return conn


def names_connected(admin):
    return {e["name"] for e in client_list(admin)}


def overflow_slow_subscriber(srv):
    """Sets `pubsub 256kb 128kb 1`, subscribes a reader and a never-reading client to one
    channel and publishes 4 KiB messages until the server drops the slow one (and 1 MiB more).
    Checks the reader got every message in order and that memory stayed bounded. Returns the
    admin client."""
    admin = srv.client()
    assert admin.config_set("client-output-buffer-limit", "pubsub 256kb 128kb 1")
    assert "pubsub 262144 131072 1" in admin.config_get("client-output-buffer-limit")[
        "client-output-buffer-limit"]
    conns = Connections(srv)
    try:
        ch = unique("slow")
        fast = conns.sub()
        fast.send("CLIENT", "SETNAME", "fastsub")
        assert fast.conn.read_reply() == "OK"
        fast.subscribe(ch)
        slow = slow_subscriber(srv, ch, "slowsub")
        conns.opened.append(slow)
        pub = conns.raw()
        # A reply means pub's worker has accepted and registered it: only then is the
        # client count below stable (a fresh connection is accepted asynchronously).
        assert pub.command("PING") == "PONG"
        assert {"fastsub", "slowsub"} <= names_connected(admin)
        clients_before = admin.info("clients")["connected_clients"]
        baseline = admin.info("memory")["used_memory"]
        peak = baseline
        filler = b"x" * 4090
        counts, seq, batch = [], 0, 16
        dropped_at = None
        while seq < 4096:                   # 16 MiB at most
            payloads = [b"%05d" % n + filler for n in range(seq, seq + batch)]
            counts += publish_batch(pub, ch, payloads)
            # the reader keeps up: it takes each batch before the next is published
            assert [f[2] for f in read_frames(fast.conn, batch)] == payloads
            seq += batch
            peak = max(peak, admin.info("memory")["used_memory"])
            if dropped_at is None and "slowsub" not in names_connected(admin):
                dropped_at = seq
            if dropped_at is not None and seq >= dropped_at + 256:
                break
        assert dropped_at is not None, "the never-reading subscriber was not disconnected"
        # every PUBLISH reached both until the slow one was cut off, then only the reader
        assert set(counts) <= {1, 2} and counts == sorted(counts, reverse=True), set(counts)
        assert counts[0] == 2 and counts[-1] == 1
        assert wait_until(lambda: admin.info("clients")["connected_clients"] == clients_before - 1)
        assert wait_until(lambda: admin.execute_command("PUBSUB", "NUMSUB", ch) == [ch, 1])
        # bounded: the slow client's backlog was capped near 256 KiB (the bound is generous)
        assert peak - baseline < 16 * 1024 * 1024, (baseline, peak)
        # the server keeps serving, the reader stays subscribed
        assert admin.ping()
        assert admin.set("after", "ok") and admin.get("after") == "ok"
        assert pub.command("PUBLISH", ch, "last") == 1
        assert fast.message() == [b"message", bb(ch), b"last"]
        assert "fastsub" in names_connected(admin)
    finally:
        conns.close_all()
    return admin


def test_slow_subscriber_is_disconnected_at_the_hard_limit(start_server):
    srv = start_server(hotkv_args=["--threads", "4"])
    admin = overflow_slow_subscriber(srv)
    admin.close()


@pytest.mark.redis8
def test_slow_subscriber_disconnection_is_counted(start_server):
    srv = start_server(hotkv_args=["--threads", "4"])
    admin = overflow_slow_subscriber(srv)
    assert admin.info("stats")["client_output_buffer_limit_disconnections"] == 1
    # the test's other connections are closed by now: no client left in pub/sub mode
    assert wait_until(lambda: admin.info("clients")["pubsub_clients"] == 0)
    admin.close()


def test_slow_subscriber_is_disconnected_at_the_soft_limit(start_server):
    """No hard limit, a 64 KiB soft limit for 1 s: a subscriber whose backlog stays above it
    is dropped once the time has passed (Redis checks when more output is queued)."""
    srv = start_server(hotkv_args=["--threads", "4"])
    admin = srv.client()
    assert admin.config_set("client-output-buffer-limit", "pubsub 0 64kb 1")
    conns = Connections(srv)
    try:
        ch = unique("soft")
        slow = slow_subscriber(srv, ch, "softsub")
        conns.opened.append(slow)
        pub = conns.raw()
        filler = b"y" * 4096
        sent = 0

        def dropped():
            # keep the backlog growing (the kernel's socket buffers take the first MiBs),
            # then just keep output coming so the server looks at the limit again
            nonlocal sent
            if sent < 12 * 1024 * 1024:
                counts = publish_batch(pub, ch, [filler] * 64)
                sent += 64 * len(filler)
            else:
                counts = [pub.command("PUBLISH", ch, "tick")]
            assert set(counts) <= {0, 1}
            return "softsub" not in names_connected(admin)

        assert wait_until(dropped, timeout=20, interval=0.05)
        assert pub.command("PUBLISH", ch, "after") == 0
        assert admin.ping()
    finally:
        conns.close_all()
        admin.close()


def test_normal_clients_are_not_limited_by_the_pubsub_class(start_server):
    """The pubsub class applies to subscribed clients only: a plain client that does not read
    a large reply for a while is not cut off."""
    srv = start_server(hotkv_args=["--threads", "4"])
    admin = srv.client()
    assert admin.config_set("client-output-buffer-limit", "pubsub 64kb 32kb 1")
    admin.set("big", "z" * (1024 * 1024))
    sock = socket.socket()
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    sock.settimeout(10)
    sock.connect(("127.0.0.1", srv.port))
    c = RawConnection(sock)
    try:
        assert c.command("CLIENT", "SETNAME", "bigreader") == "OK"
        c.send(resp_command("GET", "big") * 4)          # 4 MiB of replies, read later

        def backlog():
            (entry,) = [e for e in client_list(admin) if e["name"] == "bigreader"]
            return int(entry["omem"]) > 1024 * 1024

        # the replies pile up in the server, far past the pubsub class's limits
        assert wait_until(backlog, timeout=10)
        assert [c.read_reply() for _ in range(4)] == [b"z" * (1024 * 1024)] * 4
        assert c.command("PING") == "PONG"
    finally:
        c.close()
        admin.close()


@pytest.mark.redis8
def test_info_pubsub_clients(conns, ps_server):
    q = conns.client()
    assert wait_until(lambda: q.info("clients")["pubsub_clients"] == 0)
    a, b, c, d = conns.sub(), conns.sub(), conns.sub(), conns.sub(resp3=True)
    a.subscribe(unique())
    b.psubscribe(unique("pc") + "*")
    c.ssubscribe(unique("{pc}"))
    d.subscribe(unique())
    assert q.info("clients")["pubsub_clients"] == 4
    a.send("UNSUBSCRIBE")
    a.frame()
    d.send("RESET")
    assert d.conn.read_reply() == "RESET"
    assert q.info("clients")["pubsub_clients"] == 2
    b.close()
    assert wait_until(lambda: q.info("clients")["pubsub_clients"] == 1)
