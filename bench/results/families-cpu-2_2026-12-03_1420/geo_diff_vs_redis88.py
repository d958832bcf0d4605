# Large geo sets: HotKV vs Redis 8.8, every reply of random searches compared exactly.
import random, subprocess, sys, time, socket
sys.path.insert(0, "/work/wt/bits/bench")
from families import Conn, run_pipelined, encode, PEER_88
def port():
    s = socket.socket(); s.bind(("127.0.0.1", 0)); p = s.getsockname()[1]; s.close(); return p
ph, pr = port(), port()
h = subprocess.Popen([sys.argv[1], "--port", str(ph), "--bind", "127.0.0.1", "--threads", "1"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
r = subprocess.Popen([str(PEER_88), "--port", str(pr), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--dir", "/tmp/bits"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
time.sleep(1.0)
try:
    ch, cr = Conn(ph), Conn(pr)
    rng = random.Random(int(sys.argv[2]) if len(sys.argv) > 2 else 7)
    cmds = []
    for i in range(60000):
        if i % 3 == 0:   # dense cluster around Europe
            lon, lat = round(rng.uniform(-10, 30), 6), round(rng.uniform(36, 60), 6)
        elif i % 3 == 1:  # anywhere, including near the poles and the antimeridian
            lon, lat = round(rng.uniform(-180, 180), 6), round(rng.uniform(-85.05, 85.05), 6)
        else:
            lon, lat = round(rng.choice([-180, 180]) + rng.uniform(-0.5, 0.5), 6), round(rng.uniform(-85, 85), 6)
            lon = max(-180, min(180, lon))
        cmds.append([b"GEOADD", b"g", lon, lat, b"m%d" % i])
    assert not run_pipelined(ch, cmds) and not run_pipelined(cr, cmds)
    diffs = 0; n = 0
    for k in range(4000):
        kind = rng.random()
        if kind < 0.4:
            lon, lat = round(rng.uniform(-10, 30), 5), round(rng.uniform(36, 60), 5)
        elif kind < 0.7:
            lon, lat = round(rng.uniform(-180, 180), 5), round(rng.uniform(-85, 85), 5)
        else:
            lon, lat = round(rng.choice([-179.9, 179.9, 0]) + rng.uniform(-0.2, 0.2), 5), round(rng.choice([84.9, -84.9, 0, 60]) + rng.uniform(-0.2, 0.1), 5)
        unit = rng.choice([b"m", b"km", b"mi", b"ft"])
        size = 10 ** rng.uniform(-1, 3.7) if unit != b"m" else 10 ** rng.uniform(1, 6.5)
        size = round(size, 3)
        shape = [b"BYRADIUS", size, unit] if rng.random() < 0.6 else [b"BYBOX", size, round(size * rng.uniform(0.2, 3), 3), unit]
        opts = rng.choice([[b"ASC"], [b"DESC"], [b"ASC", b"COUNT", b"10"], [b"COUNT", b"5", b"ANY"], [b"DESC", b"COUNT", b"50"], []])
        opts += rng.choice([[b"WITHDIST"], [b"WITHCOORD", b"WITHDIST", b"WITHHASH"], []])
        cmd = [b"GEOSEARCH", b"g", b"FROMLONLAT", lon, lat] + shape + opts
        a = ch.call_many(encode([cmd]), 1)[0]
        b = cr.call_many(encode([cmd]), 1)[0]
        n += 1
        if repr(a) != repr(b):
            diffs += 1
            if diffs <= 5:
                print("DIFF", cmd, str(a)[:300], str(b)[:300])
    print(f"{n} searches, {diffs} differences")
finally:
    h.terminate(); r.terminate(); h.wait(); r.wait()
