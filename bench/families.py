#!/usr/bin/python3
"""Issue 22's data families: server CPU per operation and memory per entry, HotKV against
Debian's Redis 7.0 and (when present) Redis 8.8, in one run.

    bench/families.py                          # every workload, full sizes
    bench/families.py --scale 0.1              # a tenth of every size (a quick look)
    bench/families.py --only xadd,pfadd        # some workloads
    bench/families.py --servers hotkv,redis7   # some servers

Workloads (sizes at --scale 1):
  xadd        XADD s * f1 v1 ... f5 v5 (8-byte values: digits, or with --values alpha
              not a number), 1,000,000 entries;
              memory per entry = used_memory growth / entries
  xreadgroup  on that stream: XREADGROUP GROUP g c COUNT 1 STREAMS s > then XACK s g id,
              200,000 of each (ops = reads + acks)
  setbit      SETBIT bm <random bit below 2^27> 1, 1,000,000 (a 128 Mbit bitmap); memory = the
              bitmap key's used_memory growth
  bitcount    BITCOUNT bm on that 16 MB bitmap, 1,000
  pfadd       PFADD hll <random element>, 1,000,000 (one key: dense after a few thousand);
              memory = the HLL key's used_memory growth
  pfcount     PFCOUNT hll after a PFADD of a new element each time, 200,000 pairs (the cached
              count is invalidated only when the PFADD changed a register, as in Redis;
              ops = the PFCOUNTs; the PFADDs' CPU is subtracted at the pfadd rate)
  geoadd      GEOADD g lon lat m<i>, 1,000,000 random points over Europe; memory per point
  geosearch   GEOSEARCH g FROMLONLAT lon lat BYRADIUS 20 km ASC COUNT 10, 20,000

Every command is sent at pipeline 30 by this script on core 1; each server runs alone on
core 0 (HotKV with --threads 1). With --conns 1 (the default) batches of 30 go over one
connection, the next batch after the previous one's replies, so the server sleeps and
wakes once per batch and that wake-up's kernel time (~1.2 µs per op here, the same for
every server) is part of each figure. With --conns 50 (the setting of the 12-command CPU
benchmark, bench/run.sh) the batches go round-robin over 50 connections, up to 50 in
flight, as redis-benchmark -c 50 -P 30 sends them; xreadgroup (each read needs the
previous reply's ids) always uses one connection. CPU per op = the server process's utime+stime growth over the
workload / operations. A server that does not know a command (unknown command) is
reported as such. Results: bench/results/families_<date_time>/summary.md + results.json.
"""
import argparse
import datetime
import json
import os
import random
import shutil
import socket
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE / "harness"))
from common import Server, loadavg, log, proc_user_sys_s, stop_all  # noqa: E402

ROOT = HERE.parent
PIPELINE = 30
# ../shared from /work/main, ../../shared from a worktree under /work/wt.
PEER_88 = next((d / "shared" / "peers" / "redis-8.8" / "redis-server" for d in (ROOT.parent, ROOT.parent.parent)
                if (d / "shared" / "peers" / "redis-8.8" / "redis-server").exists()),
               ROOT.parent / "shared" / "peers" / "redis-8.8" / "redis-server")


class RespError(Exception):
    pass


class Conn:
    """A raw RESP2 connection with a small reply parser (arrays, bulk, ints, errors)."""

    def __init__(self, port):
        self.s = socket.create_connection(("127.0.0.1", port))
        self.s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.buf = b""
        self.pos = 0

    def _fill(self):
        chunk = self.s.recv(1 << 20)
        if not chunk:
            raise ConnectionError("server closed the connection")
        self.buf = self.buf[self.pos:] + chunk
        self.pos = 0

    def _line(self):
        while True:
            i = self.buf.find(b"\r\n", self.pos)
            if i >= 0:
                line = self.buf[self.pos:i]
                self.pos = i + 2
                return line
            self._fill()

    def read(self):
        line = self._line()
        t, rest = line[:1], line[1:]
        if t == b"+":
            return rest
        if t == b"-":
            return RespError(rest.decode())
        if t == b":":
            return int(rest)
        if t == b"$":
            n = int(rest)
            if n < 0:
                return None
            while len(self.buf) - self.pos < n + 2:
                self._fill()
            v = self.buf[self.pos:self.pos + n]
            self.pos += n + 2
            return v
        if t == b"*":
            n = int(rest)
            return None if n < 0 else [self.read() for _ in range(n)]
        raise RuntimeError(f"unexpected reply {line[:40]!r}")

    def call_many(self, encoded, count):
        self.s.sendall(encoded)
        return [self.read() for _ in range(count)]

    def call(self, *args):
        return self.call_many(encode([args]), 1)[0]


def encode(cmds):
    out = []
    for args in cmds:
        out.append(b"*%d\r\n" % len(args))
        for a in args:
            a = a if isinstance(a, bytes) else str(a).encode()
            out.append(b"$%d\r\n%s\r\n" % (len(a), a))
    return b"".join(out)


# Extra connections for --conns N (opened per server by main(); empty with --conns 1).
EXTRA_CONNS = []


def run_pipelined(conn, cmds):
    """Sends `cmds` (a list of arg lists) in batches of PIPELINE over `conn` and the extra
    connections, one batch in flight per connection; returns the error replies."""
    conns = [conn] + EXTRA_CONNS
    batches = [(encode(cmds[i:i + PIPELINE]), len(cmds[i:i + PIPELINE]))
               for i in range(0, len(cmds), PIPELINE)]
    errors = []
    for g in range(0, len(batches), len(conns)):
        group = list(zip(conns, batches[g:g + len(conns)]))
        for c, (enc, _) in group:
            c.s.sendall(enc)
        for c, (_, k) in group:
            for _ in range(k):
                r = c.read()
                if isinstance(r, RespError):
                    errors.append(str(r))
    return errors


def used_memory(conn):
    info = conn.call("INFO", "memory").decode()
    for line in info.splitlines():
        if line.startswith("used_memory:"):
            return int(line.split(":")[1])
    return None


def measure(srv, conn, cmds, ops=None):
    """CPU ns per op of running `cmds` at pipeline 30 (None if the server refused them)."""
    u0, s0 = proc_user_sys_s(srv.pid)
    t0 = time.perf_counter()
    errors = run_pipelined(conn, cmds)  # (encoding inside: client-side time only)
    wall = time.perf_counter() - t0
    u1, s1 = proc_user_sys_s(srv.pid)
    cpu = (u1 - u0) + (s1 - s0)
    ops = ops or len(cmds)
    res = {"ops": ops, "cpu_ns_per_op": cpu * 1e9 / ops, "ops_per_s": ops / wall,
           "user_ns_per_op": (u1 - u0) * 1e9 / ops, "sys_ns_per_op": (s1 - s0) * 1e9 / ops}
    if errors:
        res = {"refused": errors[0][:80], "errors": len(errors)}
    return res


def europe(rng):
    return round(rng.uniform(-10, 30), 6), round(rng.uniform(36, 60), 6)


def workloads(scale, rng, values="num"):
    n = lambda x: max(PIPELINE, int(x * scale))  # noqa: E731
    # "num": 8 digits, which Redis's listpacks store as integers; "alpha": 8 characters
    # that are not a number.
    if values == "num":
        vals = [b"%08d" % rng.randrange(10**8) for _ in range(1024)]
    else:
        vals = [b"v%07d" % rng.randrange(10**7) for _ in range(1024)]
    xadd_n, xrg_n = n(1_000_000), n(200_000)
    setbit_n, bitcount_n = n(1_000_000), max(PIPELINE, int(1000 * max(scale, 0.1)))
    pfadd_n, pfcount_n = n(1_000_000), n(200_000)
    geo_n, geos_n = n(1_000_000), n(20_000)

    def xadd(srv, c, r):
        cmds = [[b"XADD", b"s", b"*"] + [x for f in range(5) for x in (b"f%d" % f, vals[(i + f) & 1023])]
                for i in range(xadd_n)]
        m0 = used_memory(c)
        r["xadd"] = measure(srv, c, cmds)
        if "refused" not in r["xadd"]:
            r["xadd"]["bytes_per_entry"] = (used_memory(c) - m0) / xadd_n

    def xreadgroup(srv, c, r):
        if "refused" in r.get("xadd", {"refused": 1}):
            r["xreadgroup"] = {"refused": "needs xadd"}
            return
        c.call("XGROUP", "CREATE", "s", "g", "0")
        u0, s0 = proc_user_sys_s(srv.pid)
        t0 = time.perf_counter()
        read = [[b"XREADGROUP", b"GROUP", b"g", b"c", b"COUNT", b"1", b"STREAMS", b"s", b">"]] * PIPELINE
        enc = encode(read)
        done = 0
        while done < xrg_n:
            ids = [rep[0][1][0][0] for rep in c.call_many(enc, PIPELINE)]
            for rep in c.call_many(encode([[b"XACK", b"s", b"g", i] for i in ids]), PIPELINE):
                if rep != 1:
                    raise RuntimeError(f"XACK replied {rep!r}")
            done += PIPELINE
        wall = time.perf_counter() - t0
        u1, s1 = proc_user_sys_s(srv.pid)
        cpu = (u1 - u0) + (s1 - s0)
        r["xreadgroup"] = {"ops": 2 * done, "cpu_ns_per_op": cpu * 1e9 / (2 * done),
                           "ops_per_s": 2 * done / wall,
                           "user_ns_per_op": (u1 - u0) * 1e9 / (2 * done),
                           "sys_ns_per_op": (s1 - s0) * 1e9 / (2 * done)}

    def setbit(srv, c, r):
        cmds = [[b"SETBIT", b"bm", rng.randrange(1 << 27), b"1"] for _ in range(setbit_n)]
        cmds[0] = [b"SETBIT", b"bm", (1 << 27) - 1, b"1"]  # the whole 16 MB at once
        m0 = used_memory(c)
        r["setbit"] = measure(srv, c, cmds)
        if "refused" not in r["setbit"]:
            r["setbit"]["bytes_per_entry"] = used_memory(c) - m0  # the one bitmap key

    def bitcount(srv, c, r):
        r["bitcount"] = measure(srv, c, [[b"BITCOUNT", b"bm"]] * bitcount_n)

    def pfadd(srv, c, r):
        cmds = [[b"PFADD", b"hll", b"e%d" % rng.randrange(1 << 40)] for _ in range(pfadd_n)]
        m0 = used_memory(c)
        r["pfadd"] = measure(srv, c, cmds)
        if "refused" not in r["pfadd"]:
            r["pfadd"]["bytes_per_entry"] = used_memory(c) - m0  # the one HLL key (dense)

    def pfcount(srv, c, r):
        if "refused" in r.get("pfadd", {"refused": 1}):
            r["pfcount"] = {"refused": "needs pfadd"}
            return
        cmds = []
        for _ in range(pfcount_n):
            cmds.append([b"PFADD", b"hll", b"e%d" % rng.randrange(1 << 40)])
            cmds.append([b"PFCOUNT", b"hll"])
        res = measure(srv, c, cmds, ops=pfcount_n)
        if "refused" not in res:
            for k in ("cpu_ns_per_op", "user_ns_per_op", "sys_ns_per_op"):
                res[k] -= r["pfadd"][k]
        r["pfcount"] = res

    def geoadd(srv, c, r):
        cmds = []
        for i in range(geo_n):
            lon, lat = europe(rng)
            cmds.append([b"GEOADD", b"g", lon, lat, b"m%d" % i])
        m0 = used_memory(c)
        r["geoadd"] = measure(srv, c, cmds)
        if "refused" not in r["geoadd"]:
            r["geoadd"]["bytes_per_entry"] = (used_memory(c) - m0) / geo_n

    def geosearch(srv, c, r):
        cmds = []
        for _ in range(geos_n):
            lon, lat = europe(rng)
            cmds.append([b"GEOSEARCH", b"g", b"FROMLONLAT", lon, lat, b"BYRADIUS", b"20", b"km",
                         b"ASC", b"COUNT", b"10"])
        r["geosearch"] = measure(srv, c, cmds)

    return [("xadd", xadd), ("xreadgroup", xreadgroup), ("setbit", setbit),
            ("bitcount", bitcount), ("pfadd", pfadd), ("pfcount", pfcount),
            ("geoadd", geoadd), ("geosearch", geosearch)]


def server_argv(kind, build_dir, workdir, hotkv_args=()):
    if kind == "hotkv":
        return [str(Path(build_dir) / "hotkv-server"), "--port", "{port}", "--bind", "127.0.0.1",
                "--threads", "1", *hotkv_args]
    binary = shutil.which("redis-server") if kind == "redis7" else str(PEER_88)
    return [binary, "--port", "{port}", "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
            "--dir", workdir]


def render(res, a):
    kinds = list(res["servers"])
    names = {"hotkv": "HotKV", "redis7": "Redis 7.0", "redis88": "Redis 8.8"}
    lines = [f"# Data families benchmark (issue 22), {res['date']}", "",
             f"Machine: {res['machine']}; load average at start {res['loadavg']}. Command: "
             f"`bench/families.py --scale {a.scale}{' --only ' + a.only if a.only else ''}"
             f"{' --values ' + a.values if a.values != 'num' else ''}"
             f"{''.join(' --hotkv-arg=' + x for x in a.hotkv_arg)} "
             f"--servers {','.join(kinds)} --conns {a.conns}`. Pipeline {PIPELINE}, "
             f"{'one connection' if a.conns == 1 else f'{a.conns} connections (xreadgroup: one)'}, server on "
             "core 0 (HotKV --threads 1), client on core 1.", "",
             "Server CPU per operation (ns):", "",
             "| workload | ops | " + " | ".join(names[k] for k in kinds) +
             "".join(f" | HotKV / {names[k]}" for k in kinds if k != "hotkv") + " |",
             "|---|---|" + "---|" * (2 * len(kinds) - 1)]
    for w in res["workloads"]:
        cells, vals = [], {}
        ops = ""
        for k in kinds:
            r = res["servers"][k].get(w, {})
            if "cpu_ns_per_op" in r:
                vals[k] = r["cpu_ns_per_op"]
                cells.append(f"{r['cpu_ns_per_op']:,.0f}")
                ops = f"{r['ops']:,}"
            else:
                cells.append("refused" if "refused" in r else "")
        for k in kinds:
            if k != "hotkv":
                ok = "hotkv" in vals and k in vals and vals[k] > 0
                cells.append(f"{vals['hotkv'] / vals[k]:.2f}" if ok else "")
        lines.append(f"| {w} | {ops} | " + " | ".join(cells) + " |")
    lines += ["", "User / system CPU per operation (ns), the same runs:", "",
              "| workload | " + " | ".join(names[k] for k in kinds) + " |",
              "|---|" + "---|" * len(kinds)]
    for w in res["workloads"]:
        cells = []
        for k in kinds:
            r = res["servers"][k].get(w, {})
            cells.append(f"{r['user_ns_per_op']:,.0f} / {r['sys_ns_per_op']:,.0f}"
                         if "user_ns_per_op" in r else "")
        lines.append(f"| {w} | " + " | ".join(cells) + " |")
    lines += ["", "Memory (used_memory growth, bytes): per entry for xadd and geoadd, the whole "
              "key for setbit (the 128 Mbit bitmap) and pfadd (the HLL):", "",
              "| workload | " + " | ".join(names[k] for k in kinds) + " |",
              "|---|" + "---|" * len(kinds)]
    for w in res["workloads"]:
        row = [res["servers"][k].get(w, {}).get("bytes_per_entry") for k in kinds]
        if any(v is not None for v in row):
            lines.append(f"| {w} | " + " | ".join("" if v is None else f"{v:.1f}" for v in row) + " |")
    return "\n".join(lines) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--scale", type=float, default=1.0)
    ap.add_argument("--only", default="")
    ap.add_argument("--servers", default="hotkv,redis7,redis88")
    ap.add_argument("--build-dir", default=str(ROOT / "build/release"))
    ap.add_argument("--seed", type=int, default=22)
    ap.add_argument("--values", choices=["num", "alpha"], default="num",
                    help="XADD's field values: 8 digits (default) or 8 non-numeric characters")
    ap.add_argument("--hotkv-arg", action="append", default=[],
                    help="an extra HotKV argument (repeat: --hotkv-arg=--io-backend --hotkv-arg=epoll)")
    ap.add_argument("--conns", type=int, default=1,
                    help="connections with a batch in flight each (1: sequential batches)")
    ap.add_argument("--no-record", action="store_true")
    a = ap.parse_args()
    kinds = [k for k in a.servers.split(",") if k != "redis88" or PEER_88.exists()]
    os.sched_setaffinity(0, {1 % os.cpu_count()})
    stamp = datetime.datetime.now().strftime("%Y-%m-%d_%H%M%S")
    res = {"date": stamp, "conns": a.conns, "loadavg": loadavg(), "machine": f"{os.cpu_count()} CPUs, "
           f"{os.uname().release}", "scale": a.scale, "servers": {}, "workloads": []}
    work = tempfile.mkdtemp(prefix="hotkv-families-bench-")
    try:
        for kind in kinds:
            srv = Server(kind, server_argv(kind, a.build_dir, work, a.hotkv_arg), 0, work).start()
            r = res["servers"][kind] = {}
            try:
                c = Conn(srv.port)
                EXTRA_CONNS[:] = [Conn(srv.port) for _ in range(a.conns - 1)]
                for name, fn in workloads(a.scale, random.Random(a.seed), a.values):
                    if a.only and name not in a.only.split(","):
                        continue
                    if name not in res["workloads"]:
                        res["workloads"].append(name)
                    fn(srv, c, r)
                    log(f"{kind} {name}: {r.get(name)}")
            finally:
                for x in EXTRA_CONNS:
                    x.s.close()
                EXTRA_CONNS.clear()
                srv.stop()
    finally:
        stop_all()
        shutil.rmtree(work, ignore_errors=True)
    summary = render(res, a)
    print(summary)
    if not a.no_record:
        out = ROOT / "bench/results" / f"families{'' if a.conns == 1 else f'-c{a.conns}'}_{stamp}"
        out.mkdir(parents=True, exist_ok=True)
        (out / "results.json").write_text(json.dumps(res, indent=1))
        (out / "summary.md").write_text(summary)
        print(f"written to {out.relative_to(ROOT)}/")


if __name__ == "__main__":
    main()
