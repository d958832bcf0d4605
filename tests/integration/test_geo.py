"""Geo commands: GEOADD GEOPOS GEODIST GEOHASH GEOSEARCH GEOSEARCHSTORE GEORADIUS[_RO]
GEORADIUSBYMEMBER[_RO]. Replies from Redis's documentation examples (Palermo/Catania),
errors as Redis 8.8 writes them, and, when a Redis 8.8 binary is at hand, the same random
queries on both servers with identical replies (to the digit: coordinates and stored
distances print as Redis 8's Grisu2 does)."""
import os
import random
import shutil
import subprocess
import time

import pytest
import redis

from conftest import free_port
from helpers_types import SYNTAX, WRONGTYPE, arity, double, rc_fixture, resp3_connection

NOT_FLOAT = "ERR value is not a valid float"
UNIT = "ERR unsupported unit provided. please use M, KM, FT, MI"


@pytest.fixture
def rc(server, r):
    yield from rc_fixture(server)


@pytest.fixture
def sicily(rc):
    assert rc("GEOADD", "Sicily", "13.361389", "38.115556", "Palermo",
              "15.087269", "37.502669", "Catania") == 2
    return rc


def floats(v):
    """Coordinates (nested lists of strings) as floats."""
    if isinstance(v, list):
        return [floats(x) for x in v]
    return float(v) if v is not None else None


# ---------------------------------------------------------------- GEOADD

def test_geoadd_stores_52_bit_scores(sicily):
    rc = sicily
    assert rc("ZRANGE", "Sicily", "0", "-1", "WITHSCORES") == [
        "Palermo", "3479099956230698", "Catania", "3479447370796909"]
    assert rc("TYPE", "Sicily") == "zset"
    assert rc("GEOADD", "Sicily", "13.361389", "38.115556", "Palermo") == 0


def test_geoadd_nx_xx_ch(sicily):
    rc = sicily
    assert rc("GEOADD", "Sicily", "NX", "1", "1", "Palermo", "2", "2", "x") == 1
    assert floats(rc("GEOPOS", "Sicily", "Palermo"))[0][0] == pytest.approx(13.361389, abs=1e-5)
    assert rc("GEOADD", "Sicily", "XX", "1", "1", "Palermo", "3", "3", "y") == 0
    assert rc("ZSCORE", "Sicily", "y") is None
    assert floats(rc("GEOPOS", "Sicily", "Palermo"))[0][0] == pytest.approx(1, abs=1e-5)
    assert rc("GEOADD", "Sicily", "CH", "XX", "5", "5", "Palermo", "2", "2", "x") == 1
    assert rc("GEOADD", "Sicily", "CH", "6", "6", "Palermo", "7", "7", "z") == 2
    assert rc("GEOADD", "nokey", "XX", "1", "1", "a") == 0
    assert rc("EXISTS", "nokey") == 0


def test_geoadd_errors(sicily):
    rc = sicily
    assert rc.err("GEOADD", "k", "1", "2") == arity("geoadd")
    assert rc.err("GEOADD", "k", "NX", "XX", "1", "2", "a") == SYNTAX
    assert rc.err("GEOADD", "k", "GT", "1", "2", "a") == SYNTAX  # GT is not an option
    assert rc.err("GEOADD", "k", "1", "2", "a", "3") == SYNTAX
    assert rc.err("GEOADD", "k", "x", "2", "a") == NOT_FLOAT
    assert rc.err("GEOADD", "k", "1", "nan", "a") == NOT_FLOAT
    assert rc.err("GEOADD", "k", "200", "10", "a") == (
        "ERR invalid longitude,latitude pair 200.000000,10.000000")
    assert rc.err("GEOADD", "k", "100", "87", "a") == (
        "ERR invalid longitude,latitude pair 100.000000,87.000000")
    # A bad pair anywhere changes nothing.
    assert rc.err("GEOADD", "Sicily", "1", "1", "new", "1", "90", "b") == (
        "ERR invalid longitude,latitude pair 1.000000,90.000000")
    assert rc("ZCARD", "Sicily") == 2
    rc("SET", "str", "v")
    assert rc.err("GEOADD", "str", "1", "1", "a") == WRONGTYPE
    assert rc.err("GEOADD", "str", "1", "91", "a").startswith("ERR invalid")  # args first


def test_geoadd_limits(rc):
    assert rc("GEOADD", "k", "180", "85.05112878", "ne", "-180", "-85.05112878", "sw") == 2
    assert rc("ZSCORE", "k", "sw") == "0"
    assert rc("ZSCORE", "k", "ne") == "13510798882111488"
    assert rc("GEOPOS", "k", "ne", "sw") == [
        ["180", "85.05112878"], ["-179.99999731779099", "-85.05112751263943"]]
    assert rc("GEOHASH", "k", "ne", "sw") == ["bp05b5048p0", "00bh0hbj200"]


# ---------------------------------------------------------------- GEOPOS GEODIST GEOHASH

def test_geopos(sicily):
    rc = sicily
    assert rc("GEOPOS", "Sicily", "Palermo", "Catania", "NonExisting") == [
        ["13.361389338970184", "38.1155563954963"],
        ["15.087267458438873", "37.50266842333162"], None]
    assert rc("GEOPOS", "Sicily") == []
    assert rc("GEOPOS", "nokey", "a", "b") == [None, None]
    rc("GEOADD", "z", "0.000001", "0.000001", "a")
    assert rc("GEOPOS", "z", "a") == [["2.682209014892578e-6", "1.2673605809254695e-6"]]
    rc("SET", "str", "v")
    assert rc.err("GEOPOS", "str", "a") == WRONGTYPE


def test_geodist(sicily):
    rc = sicily
    assert rc("GEODIST", "Sicily", "Palermo", "Catania") == "166274.1516"
    assert rc("GEODIST", "Sicily", "Palermo", "Catania", "km") == "166.2742"
    assert rc("GEODIST", "Sicily", "Palermo", "Catania", "KM") == "166.2742"
    assert rc("GEODIST", "Sicily", "Palermo", "Catania", "mi") == "103.3182"
    assert rc("GEODIST", "Sicily", "Palermo", "Catania", "ft") == "545518.8700"
    assert rc("GEODIST", "Sicily", "Palermo", "Palermo") == "0.0000"
    assert rc("GEODIST", "Sicily", "Foo", "Bar") is None
    assert rc("GEODIST", "nokey", "Foo", "Bar") is None
    assert rc.err("GEODIST", "Sicily", "Palermo", "Catania", "yd") == UNIT
    assert rc.err("GEODIST", "nokey", "a", "b", "yd") == UNIT  # the unit is checked first
    assert rc.err("GEODIST", "Sicily", "Palermo", "Catania", "km", "x") == SYNTAX
    assert rc.err("GEODIST", "Sicily", "Palermo") == arity("geodist")


def test_geohash(sicily):
    rc = sicily
    assert rc("GEOHASH", "Sicily", "Palermo", "Catania", "x") == [
        "sqc8b49rny0", "sqdtr74hyu0", None]
    assert rc("GEOHASH", "nokey", "a") == [None]
    assert rc("GEOHASH", "Sicily") == []


def test_scores_that_geoadd_never_writes_still_decode(rc):
    rc("ZADD", "z", "-1", "neg", "1e20", "big", "4503599627370496.5", "frac")
    pos = floats(rc("GEOPOS", "z", "neg", "big", "frac"))
    for lon, lat in pos:
        assert -180 <= lon <= 180 and -85.05112879 <= lat <= 85.05112879
    assert len(rc("GEOHASH", "z", "neg")[0]) == 11


# ---------------------------------------------------------------- searches

def test_georadius_documentation_examples(sicily):
    rc = sicily
    assert rc("GEORADIUS", "Sicily", "15", "37", "200", "km", "WITHDIST") == [
        ["Palermo", "190.4424"], ["Catania", "56.4413"]]
    got = rc("GEORADIUS", "Sicily", "15", "37", "200", "km", "WITHCOORD")
    assert [g[0] for g in got] == ["Palermo", "Catania"]
    assert floats(got[0][1]) == [13.36138933897018433, 38.11555639549629859]
    got = rc("GEORADIUS", "Sicily", "15", "37", "200", "km", "WITHDIST", "WITHCOORD")
    assert [g[0] for g in got] == ["Palermo", "Catania"]
    assert [g[1] for g in got] == ["190.4424", "56.4413"]
    assert floats(got[0][2]) == [13.36138933897018433, 38.11555639549629859]
    assert floats(got[1][2]) == [15.08726745843887329, 37.50266842333162032]
    rc("GEOADD", "Sicily", "13.583333", "37.316667", "Agrigento")
    assert rc("GEORADIUSBYMEMBER", "Sicily", "Agrigento", "100", "km") == ["Agrigento", "Palermo"]
    assert rc("GEORADIUS_RO", "Sicily", "15", "37", "200", "km", "ASC") == [
        "Catania", "Agrigento", "Palermo"]


def test_geosearch_documentation_examples(sicily):
    rc = sicily
    rc("GEOADD", "Sicily", "12.758489", "38.788135", "edge1", "17.241510", "38.788135", "edge2")
    assert rc("GEOSEARCH", "Sicily", "FROMLONLAT", "15", "37", "BYRADIUS", "200", "km",
              "ASC") == ["Catania", "Palermo"]
    got = rc("GEOSEARCH", "Sicily", "FROMLONLAT", "15", "37", "BYBOX", "400", "400", "km",
             "ASC", "WITHCOORD", "WITHDIST")
    assert [(g[0], g[1]) for g in got] == [("Catania", "56.4413"), ("Palermo", "190.4424"),
                                          ("edge2", "279.7403"), ("edge1", "279.7405")]
    assert floats(got[2][2]) == [17.24151045083999634, 38.78813451624225195]
    assert rc("GEOSEARCHSTORE", "key1", "Sicily", "FROMLONLAT", "15", "37", "BYBOX", "400",
              "400", "km", "ASC", "COUNT", "3") == 3
    got = rc("GEOSEARCH", "key1", "FROMLONLAT", "15", "37", "BYBOX", "400", "400", "km",
             "ASC", "WITHCOORD", "WITHDIST", "WITHHASH")
    assert [(g[0], g[1], g[2]) for g in got] == [
        ("Catania", "56.4413", 3479447370796909), ("Palermo", "190.4424", 3479099956230698),
        ("edge2", "279.7403", 3481342659049484)]
    assert rc("GEOSEARCHSTORE", "key2", "Sicily", "FROMLONLAT", "15", "37", "BYBOX", "400",
              "400", "km", "ASC", "COUNT", "3", "STOREDIST") == 3
    assert rc("ZRANGE", "key2", "0", "-1", "WITHSCORES") == [
        "Catania", "56.4412578701582", "Palermo", "190.44242984775784",
        "edge2", "279.7403417843143"]


def test_search_order_count_any(sicily):
    rc = sicily
    rc("GEOADD", "Sicily", "13.583333", "37.316667", "Agrigento")
    base = ("GEOSEARCH", "Sicily", "FROMLONLAT", "15", "37", "BYRADIUS", "300", "km")
    assert rc(*base, "DESC") == ["Palermo", "Agrigento", "Catania"]
    assert rc(*base, "ASC") == ["Catania", "Agrigento", "Palermo"]
    assert rc(*base, "COUNT", "2") == ["Catania", "Agrigento"]  # COUNT sorts ascending
    assert rc(*base, "COUNT", "2", "DESC") == ["Palermo", "Agrigento"]
    assert rc(*base, "COUNT", "1", "ANY") in (["Palermo"], ["Catania"], ["Agrigento"])
    assert len(rc(*base, "COUNT", "2", "ANY", "ASC")) == 2
    assert rc(*base, "COUNT", "10") == ["Catania", "Agrigento", "Palermo"]
    assert rc("GEOSEARCH", "Sicily", "FROMMEMBER", "Palermo", "BYRADIUS", "0", "m") == ["Palermo"]
    assert rc("GEOSEARCH", "Sicily", "FROMLONLAT", "0", "0", "BYRADIUS", "1", "km") == []
    assert rc("GEOSEARCH", "nokey", "FROMMEMBER", "x", "BYRADIUS", "1", "km") == []
    assert rc("GEORADIUSBYMEMBER", "nokey", "m", "abc", "m") == []  # radius unread


def test_search_with_options_shapes(sicily):
    rc = sicily
    got = rc("GEORADIUS", "Sicily", "15", "37", "200", "km", "WITHHASH", "ASC")
    assert got == [["Catania", 3479447370796909], ["Palermo", 3479099956230698]]
    got = rc("GEORADIUS", "Sicily", "15", "37", "200", "km", "WITHCOORD", "WITHHASH",
             "WITHDIST", "ASC", "COUNT", "1")
    assert got[0][:3] == ["Catania", "56.4413", 3479447370796909]
    assert floats(got[0][3]) == [15.087267458438873, 37.50266842333162]


def test_search_errors(sicily):
    rc = sicily
    s = ("GEOSEARCH", "Sicily")
    assert rc.err(*s, "FROMLONLAT", "15", "37", "BYRADIUS", "200", "km", "ANY") == (
        "ERR the ANY argument requires COUNT argument")
    assert rc.err(*s, "FROMLONLAT", "15", "37") == arity("geosearch")
    assert rc.err(*s, "FROMLONLAT", "15", "37", "WITHDIST", "ASC") == (
        "ERR exactly one of BYRADIUS and BYBOX can be specified for GEOSEARCH")
    assert rc.err(*s, "BYRADIUS", "1", "m", "WITHDIST", "ASC") == (
        "ERR exactly one of FROMMEMBER or FROMLONLAT can be specified for GEOSEARCH")
    assert rc.err(*s, "FROMMEMBER", "nope", "BYRADIUS", "1", "m") == (
        "ERR could not decode requested zset member")
    assert rc.err(*s, "FROMLONLAT", "15", "37", "BYRADIUS", "1", "m", "COUNT", "0") == (
        "ERR COUNT must be > 0")
    assert rc.err(*s, "FROMLONLAT", "15", "37", "BYRADIUS", "1", "m", "COUNT", "x") == (
        "ERR value is not an integer or out of range")
    assert rc.err(*s, "FROMLONLAT", "15", "37", "BYRADIUS", "1", "m", "STOREDIST") == SYNTAX
    assert rc.err(*s, "FROMLONLAT", "15", "37", "FROMMEMBER", "Palermo", "BYRADIUS", "1",
                  "m") == SYNTAX
    assert rc.err(*s, "FROMLONLAT", "15", "37", "BYRADIUS", "1", "m", "BYBOX", "1", "1",
                  "m") == SYNTAX
    assert rc.err(*s, "FROMLONLAT", "15", "37", "BYBOX", "200", "km", "km") == (
        "ERR need numeric height")
    assert rc.err(*s, "FROMLONLAT", "15", "37", "BYBOX", "x", "2", "km") == (
        "ERR need numeric width")
    assert rc.err(*s, "FROMLONLAT", "15", "37", "BYBOX", "-1", "2", "km") == (
        "ERR height or width cannot be negative")
    assert rc.err(*s, "FROMLONLAT", "15", "37", "BYRADIUS", "x", "m") == "ERR need numeric radius"
    assert rc.err(*s, "FROMLONLAT", "15", "37", "BYRADIUS", "-1", "m") == (
        "ERR radius cannot be negative")
    assert rc.err(*s, "FROMLONLAT", "15", "37", "BYRADIUS", "1", "yd") == UNIT
    assert rc.err(*s, "FROMLONLAT", "x", "37", "BYRADIUS", "1", "m") == NOT_FLOAT
    assert rc.err(*s, "FROMLONLAT", "15", "86", "BYRADIUS", "1", "m") == (
        "ERR invalid longitude,latitude pair 15.000000,86.000000")
    assert rc.err("GEOSEARCHSTORE", "d", "Sicily", "FROMLONLAT", "15", "37", "BYRADIUS",
                  "200", "km", "WITHDIST") == (
        "ERR GEOSEARCHSTORE is not compatible with WITHDIST, WITHHASH and WITHCOORD options")
    assert rc.err("GEORADIUS", "Sicily", "15", "37", "200", "km", "STORE", "d", "WITHDIST") == (
        "ERR STORE option in GEORADIUS is not compatible with WITHDIST, WITHHASH and "
        "WITHCOORD options")
    assert rc.err("GEORADIUS_RO", "Sicily", "15", "37", "200", "km", "STORE", "d") == SYNTAX
    assert rc.err("GEORADIUSBYMEMBER_RO", "Sicily", "Palermo", "200", "km", "STOREDIST",
                  "d") == SYNTAX
    assert rc.err("GEORADIUS", "Sicily", "200", "0", "1", "m") == (
        "ERR invalid longitude,latitude pair 200.000000,0.000000")
    assert rc.err("GEORADIUS", "nokey", "10", "0", "abc", "m") == "ERR need numeric radius"
    assert rc.err("GEORADIUSBYMEMBER", "Sicily", "nope", "1", "m") == (
        "ERR could not decode requested zset member")
    rc("SET", "str", "v")
    assert rc.err("GEOSEARCH", "str", "FROMLONLAT", "x", "37", "BYRADIUS", "1", "m") == WRONGTYPE
    assert rc.err("GEORADIUS", "str", "15", "37", "1", "m") == WRONGTYPE


def test_store_variants(sicily):
    rc = sicily
    assert rc("GEORADIUS", "Sicily", "15", "37", "200", "km", "STORE", "dst") == 2
    assert rc("ZRANGE", "dst", "0", "-1", "WITHSCORES") == [
        "Palermo", "3479099956230698", "Catania", "3479447370796909"]
    assert rc("GEORADIUSBYMEMBER", "Sicily", "Palermo", "200", "km", "STOREDIST", "dst",
              "COUNT", "1") == 1
    assert rc("ZRANGE", "dst", "0", "-1", "WITHSCORES") == ["Palermo", "0"]
    rc("SET", "str", "v")  # any old value is replaced
    rc("EXPIRE", "str", "100")
    assert rc("GEOSEARCHSTORE", "str", "Sicily", "FROMMEMBER", "Palermo", "BYRADIUS", "200",
              "km", "STOREDIST") == 2
    assert rc("TYPE", "str") == "zset" and rc("TTL", "str") == -1
    assert rc("ZRANGE", "str", "0", "-1", "WITHSCORES") == [
        "Palermo", "0", "Catania", "166.27415156960032"]
    # No point: the destination is deleted.
    assert rc("GEOSEARCHSTORE", "str", "Sicily", "FROMLONLAT", "0", "0", "BYRADIUS", "1",
              "m") == 0
    assert rc("EXISTS", "str") == 0
    rc("SET", "d2", "v")
    assert rc("GEOSEARCHSTORE", "d2", "nokey", "FROMMEMBER", "x", "BYRADIUS", "1", "m") == 0
    assert rc("EXISTS", "d2") == 0
    # The source as destination.
    assert rc("GEOSEARCHSTORE", "Sicily", "Sicily", "FROMLONLAT", "15", "37", "BYRADIUS", "100",
              "km") == 1
    assert rc("ZRANGE", "Sicily", "0", "-1") == ["Catania"]


def test_keyspace_events(server, sicily):
    rc = sicily
    r = server.client()
    r.config_set("notify-keyspace-events", "KEA")
    p = r.pubsub()
    p.psubscribe("__keyevent@0__:*")
    try:
        time.sleep(0.05)
        rc("GEOADD", "Sicily", "1", "1", "a")
        rc("GEOSEARCHSTORE", "d", "Sicily", "FROMLONLAT", "15", "37", "BYRADIUS", "200", "km")
        rc("GEORADIUS", "Sicily", "15", "37", "200", "km", "STORE", "d2")
        rc("GEOADD", "Sicily", "1", "1", "a")  # unchanged: no event
        events = []
        deadline = time.time() + 2
        while len(events) < 3 and time.time() < deadline:
            m = p.get_message(timeout=0.2)
            if m and m["type"] == "pmessage":
                events.append((m["channel"].split(":", 1)[1], m["data"]))
        assert events == [("zadd", "Sicily"), ("geosearchstore", "d"), ("georadiusstore", "d2")]
    finally:
        p.close()
        r.config_set("notify-keyspace-events", "")
        r.close()


def test_resp3_replies(server, sicily):
    conn = resp3_connection(server)
    try:
        # Coordinates are RESP3 doubles, a missing member a null; distances stay bulk strings.
        assert conn.command("GEOPOS", "Sicily", "Palermo", "nope") == [
            [double("13.361389338970184"), double("38.1155563954963")], None]
        assert conn.command("GEODIST", "Sicily", "Palermo", "Catania", "km") == b"166.2742"
        assert conn.command("GEODIST", "Sicily", "Palermo", "nope") is None
        assert conn.command("GEOHASH", "Sicily", "Palermo", "nope") == [b"sqc8b49rny0", None]
        assert conn.command("GEOSEARCH", "Sicily", "FROMLONLAT", "15", "37", "BYRADIUS", "100",
                            "km", "WITHDIST", "WITHHASH", "WITHCOORD") == [
            [b"Catania", b"56.4413", 3479447370796909,
             [double("15.087267458438873"), double("37.50266842333162")]]]
    finally:
        conn.close()


def test_command_getkeys_finds_the_store_key(sicily):
    rc = sicily
    assert rc("COMMAND", "GETKEYS", "GEORADIUS", "k", "1", "2", "3", "m", "STORE", "dst") == [
        "k", "dst"]
    assert rc("COMMAND", "GETKEYS", "GEOSEARCHSTORE", "dst", "src", "FROMMEMBER", "m",
              "BYRADIUS", "1", "m") == ["dst", "src"]


def test_many_points_skiplist_encoding(rc):
    random.seed(5)
    args = []
    for i in range(500):
        args += ["%.6f" % random.uniform(-10, 10), "%.6f" % random.uniform(-10, 10), f"p{i}"]
    assert rc("GEOADD", "big", *args) == 500
    assert rc("OBJECT", "ENCODING", "big") == "skiplist"
    got = rc("GEOSEARCH", "big", "FROMLONLAT", "0", "0", "BYRADIUS", "300", "km", "WITHDIST",
             "ASC")
    dists = [float(d) for _, d in got]
    assert dists == sorted(dists) and all(d <= 300 for d in dists)
    # Every point within the radius is found (checked against GEODIST from a probe).
    rc("GEOADD", "big", "0", "0", "probe")
    near = {m for m, _ in got}
    for i in range(500):
        d = float(rc("GEODIST", "big", "probe", f"p{i}", "km"))
        if d < 299.9:
            assert f"p{i}" in near
        if d > 300.1:
            assert f"p{i}" not in near


# ---------------------------------------------------------------- against Redis 8.8

PEER = os.environ.get("HOTKV_REDIS8", "/work/shared/peers/redis-8.8/redis-server")


@pytest.fixture(scope="module")
def peer():
    if not (os.path.exists(PEER) and os.access(PEER, os.X_OK)):
        pytest.skip("no Redis 8.8 binary")
    port = free_port()
    proc = subprocess.Popen([PEER, "--port", str(port), "--save", "", "--appendonly", "no"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    client = redis.Redis(port=port, decode_responses=True)
    for _ in range(200):
        try:
            client.ping()
            break
        except redis.ConnectionError:
            time.sleep(0.05)
    yield client
    proc.kill()
    proc.wait()


def test_random_points_match_redis(server, peer):
    ours = server.client()
    ours.flushall()
    peer.flushall()
    rng = random.Random(22)
    both = (ours, peer)
    for c in both:
        c.response_callbacks.clear()  # replies as the servers sent them

    def same(*args):
        replies = []
        for c in both:
            try:
                replies.append(c.execute_command(*args))
            except redis.ResponseError as e:
                replies.append(("error", str(e)))
        assert replies[0] == replies[1], args
        return replies[0]

    for region in ((12.0, 36.0, 16.0, 39.0), (-180, -85.05, 180, 85.05), (170, 60, 180, 85)):
        key = f"pts{region[0]}"
        args = []
        for i in range(300):
            args += ["%.7f" % rng.uniform(region[0], region[2]),
                     "%.7f" % rng.uniform(region[1], region[3]), f"m{i}"]
        same("GEOADD", key, *args)
        same("GEOPOS", key, *[f"m{i}" for i in range(0, 300, 7)])
        same("GEOHASH", key, *[f"m{i}" for i in range(0, 300, 7)])
        for _ in range(60):
            a, b = rng.randrange(300), rng.randrange(300)
            same("GEODIST", key, f"m{a}", f"m{b}", rng.choice(["m", "km", "ft", "mi"]))
            lon = "%.5f" % rng.uniform(region[0], region[2])
            lat = "%.5f" % rng.uniform(region[1], region[3])
            radius = rng.choice(["1", "10", "50", "150", "400", "2000", "8000"])
            opts = ["WITHDIST", "WITHCOORD", "WITHHASH"] + rng.choice(
                [["ASC"], ["DESC"], ["COUNT", "5"], ["COUNT", "3", "DESC"]])
            same("GEOSEARCH", key, "FROMLONLAT", lon, lat, "BYRADIUS", radius, "km", *opts)
            same("GEOSEARCH", key, "FROMMEMBER", f"m{a}", "BYBOX", radius, str(int(radius) // 2 + 1),
                 "km", *opts)
            same("GEORADIUS", key, lon, lat, radius, "km", "WITHDIST", "ASC")
            same("GEORADIUSBYMEMBER", key, f"m{b}", radius, "km", "WITHDIST", "DESC")
            same("GEOSEARCHSTORE", "dst", key, "FROMLONLAT", lon, lat, "BYBOX", radius, radius,
                 "km", "STOREDIST")
            same("ZRANGE", "dst", "0", "-1", "WITHSCORES")
    # Points at equal distances (members sharing a place): with COUNT, Redis's partial
    # quicksort decides which of them come and in which order.
    for n_members in (5, 12, 45, 130):
        key = f"ties{n_members}"
        spots = [("%.6f" % rng.uniform(13, 15), "%.6f" % rng.uniform(37, 38)) for _ in range(6)]
        args = []
        for i in range(n_members):
            lon, lat = rng.choice(spots)
            args += [lon, lat, f"t{i}"]
        same("GEOADD", key, *args)
        for count in ("1", "2", "3", "5", "8", "20", "50", "100", "200"):
            for order in ("ASC", "DESC"):
                same("GEOSEARCH", key, "FROMLONLAT", "14", "37.5", "BYRADIUS", "300", "km",
                     "COUNT", count, order, "WITHDIST")
                same("GEORADIUSBYMEMBER", key, "t0", "300", "km", "COUNT", count, order)
    ours.close()


def test_geo_keys_are_sorted_sets_everywhere(server, sicily):
    rc = sicily
    # WATCH sees GEOADD; DUMP/RESTORE and COPY keep the points.
    other = server.client()
    pipe = server.client().pipeline()
    pipe.watch("Sicily")
    other.execute_command("GEOADD", "Sicily", "1", "1", "w")
    pipe.multi()
    pipe.execute_command("GEOPOS", "Sicily", "w")
    with pytest.raises(redis.WatchError):
        pipe.execute()
    dump = server.client(decode_responses=False).dump("Sicily")
    rc("RESTORE", "copy1", "0", dump)
    rc("COPY", "Sicily", "copy2")
    for k in ("copy1", "copy2"):
        assert rc("GEOHASH", k, "Palermo", "Catania") == ["sqc8b49rny0", "sqdtr74hyu0"]
    assert rc("OBJECT", "ENCODING", "Sicily") == "listpack"
    other.close()
