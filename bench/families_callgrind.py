#!/usr/bin/python3
"""Instructions per operation (callgrind) for issue 22's workloads, HotKV against Redis:
a noise-free A/B companion to bench/families.py on a shared machine.

    bench/families_callgrind.py                                  # all workloads, HotKV + 8.8
    bench/families_callgrind.py --only pfadd,geosearch --servers hotkv --out /tmp/cg

Each server runs under `valgrind --tool=callgrind --instr-atstart=no` (HotKV --threads 1
--io-backend epoll); a workload's setup runs uninstrumented, then instrumentation is
switched on (callgrind_control -i on) for the measured commands only, sent at pipeline 30
as bench/families.py sends them, and the profile is dumped. Reported: instructions (Ir)
per operation, every instruction of the process counted (event loop, parsing, reply). The
profiles stay in --out for callgrind_annotate. Sizes are smaller than families.py's where
the setup would take long under valgrind (geo: 200,000 points, so ~5x fewer per search;
GEOADD adds 6,000 new members to those 200,000).
"""
import argparse
import glob
import os
import random
import re
import socket
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from families import PEER_88, Conn, encode, europe, run_pipelined  # noqa: E402

ROOT = HERE.parent


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    p = s.getsockname()[1]
    s.close()
    return p


HOTKV = [str(ROOT / "build/release/hotkv-server")]


def start(kind, port, out, name):
    if kind == "hotkv":
        argv = [HOTKV[0], "--port", str(port), "--bind", "127.0.0.1",
                "--threads", "1", "--io-backend", "epoll"]
    else:
        argv = [str(PEER_88) if kind == "redis88" else "redis-server", "--port", str(port),
                "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--dir", out]
    cg = ["valgrind", "--tool=callgrind", "--instr-atstart=no",
          f"--callgrind-out-file={out}/{name}.%p"]
    p = subprocess.Popen(cg + argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    for _ in range(600):
        try:
            c = Conn(port)
            c.call("PING")
            return p, c
        except OSError:
            time.sleep(0.1)
    p.kill()
    raise RuntimeError(f"{kind} did not start")


def total_ir(path):
    for line in open(path):
        if line.startswith("totals:") or line.startswith("summary:"):
            return int(line.split()[1])
    return 0


def workloads(rng, vals):
    def xadd_cmds(n):
        return [[b"XADD", b"s", b"*"] + [x for f in range(5) for x in (b"f%d" % f, vals[(i + f) & 1023])]
                for i in range(n)]

    def pf(n):
        return [[b"PFADD", b"hll", b"e%d" % rng.randrange(1 << 40)] for _ in range(n)]

    def xrg_measure(c):
        read = encode([[b"XREADGROUP", b"GROUP", b"g", b"c", b"COUNT", b"1", b"STREAMS", b"s", b">"]] * 30)
        for _ in range(100):
            ids = [rep[0][1][0][0] for rep in c.call_many(read, 30)]
            c.call_many(encode([[b"XACK", b"s", b"g", i] for i in ids]), 30)
        return 6000

    def pfcount_cmds(n):
        out = []
        for cmd in pf(n):
            out += [cmd, [b"PFCOUNT", b"hll"]]
        return out

    def geo_setup(c):
        cmds = []
        for i in range(200_000):
            lon, lat = europe(rng)
            cmds.append([b"GEOADD", b"g", lon, lat, b"m%d" % i])
        run_pipelined(c, cmds)

    def geoadds(n):
        out = []
        for i in range(n):
            lon, lat = europe(rng)
            out.append([b"GEOADD", b"g", lon, lat, b"n%d" % i])
        return out

    def geos(n):
        out = []
        for _ in range(n):
            lon, lat = europe(rng)
            out.append([b"GEOSEARCH", b"g", b"FROMLONLAT", lon, lat, b"BYRADIUS", b"20", b"km",
                        b"ASC", b"COUNT", b"10"])
        return out

    bm_setup = [[b"SETBIT", b"bm", (1 << 27) - 1, b"1"]] + \
        [[b"SETBIT", b"bm", rng.randrange(1 << 27), b"1"] for _ in range(20000)]
    # name: (setup commands or function, measured commands or function -> ops)
    return {
        "xadd": (xadd_cmds(2000), xadd_cmds(6000)),
        "xreadgroup": (xadd_cmds(10000) + [[b"XGROUP", b"CREATE", b"s", b"g", b"0"]], xrg_measure),
        "setbit": (bm_setup, [[b"SETBIT", b"bm", rng.randrange(1 << 27), b"1"] for _ in range(6000)]),
        "pfadd": (pf(20000), pf(6000)),
        # ops = pairs; the PFCOUNT alone is this minus pfadd's figure
        "pfadd+pfcount": (pf(20000), pfcount_cmds(3000)),
        "geosearch": (geo_setup, geos(600)),
        # new members into the 200,000-point set
        "geoadd": (geo_setup, geoadds(6000)),
        # PFCOUNT alone on a key whose cached cardinality is valid (the common case of
        # families.py's pfcount after 1M PFADDs: a PFADD there rarely raises a register)
        "pfcount-hit": (pf(20000) + [[b"PFCOUNT", b"hll"]], [[b"PFCOUNT", b"hll"]] * 6000),
    }


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--only", default="")
    ap.add_argument("--servers", default="hotkv,redis88")
    ap.add_argument("--out", default="/tmp/families_cg")
    ap.add_argument("--values", choices=["num", "alpha"], default="num")
    ap.add_argument("--hotkv", default=HOTKV[0], help="the HotKV binary (A/B against a build)")
    a = ap.parse_args()
    HOTKV[0] = a.hotkv
    os.makedirs(a.out, exist_ok=True)
    results = {}
    for kind in a.servers.split(","):
        rng = random.Random(22)
        if a.values == "num":
            vals = [b"%08d" % rng.randrange(10**8) for _ in range(1024)]
        else:
            vals = [b"v%07d" % rng.randrange(10**7) for _ in range(1024)]
        for name, (setup, meas) in workloads(rng, vals).items():
            if a.only and name not in a.only.split(","):
                continue
            port = free_port()
            p, c = start(kind, port, a.out, f"{kind}-{name}")
            try:
                if callable(setup):
                    setup(c)
                else:
                    run_pipelined(c, setup)
                subprocess.run(["callgrind_control", "-i", "on", str(p.pid)], check=True,
                               stdout=subprocess.DEVNULL)
                if callable(meas):
                    ops = meas(c)
                else:
                    errs = run_pipelined(c, meas)
                    if errs:
                        print(kind, name, "errors:", errs[0])
                    ops = len(meas)
                subprocess.run(["callgrind_control", "-d", str(p.pid)], check=True,
                               stdout=subprocess.DEVNULL)
            finally:
                p.terminate()
                p.wait()
            files = sorted(glob.glob(f"{a.out}/{kind}-{name}.{p.pid}*"), key=os.path.getmtime)
            dumps = [f for f in files if re.search(r"\.\d+\.\d+$", f)] or files
            ir = total_ir(dumps[0])
            results[(kind, name)] = ir / ops
            print(f"{kind:8} {name:14} {ir / ops:12,.0f} Ir/op  ({ops} ops, {dumps[0]})", flush=True)
    return results


if __name__ == "__main__":
    main()
