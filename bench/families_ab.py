#!/usr/bin/python3
"""Alternating A/B of server CPU per command between HotKV and Redis for one repeated
command on a prepared key, for a shared machine: every server is started once and loaded
once, then the rounds alternate (HotKV, Redis 7.0, Redis 8.8, HotKV, ...) so that each
round of each server runs under about the same load; the medians are compared.

    bench/families_ab.py bitcount                   # BITCOUNT of a 16 MB random string
    bench/families_ab.py pfcount --rounds 7         # PFADD+PFCOUNT pairs on a dense HLL
    bench/families_ab.py geosearch --servers hotkv,redis88
    bench/families_ab.py setbit --hotkv-arg=--io-backend --hotkv-arg=epoll

Workloads: bitcount (BITCOUNT of 16 MB of random bytes, 600 per round), setbit (SETBIT at
random offsets below 2^27, 300,000 per round), pfadd (300,000 per round, dense key),
pfcount (PFADD + PFCOUNT pairs, 60,000 per round: CPU per pair), geosearch (GEOSEARCH
20 km COUNT 10 over 1,000,000 random European points, 3,000 per round). Pipeline 30, one
connection per server, servers on core 0, this script on core 1. CPU = utime + stime of
the server process over the round; user and system reported apart.
"""
import argparse
import os
import random
import shutil
import statistics
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE / "harness"))
sys.path.insert(0, str(HERE))
from common import Server, loadavg, log, proc_user_sys_s, stop_all  # noqa: E402
from families import Conn, europe, run_pipelined, server_argv  # noqa: E402

ROOT = HERE.parent


def setup(name, c, rng):
    if name == "bitcount":
        c.call("SET", "bm", rng.randbytes(16 << 20))
    elif name == "setbit":
        c.call("SETBIT", "bm", (1 << 27) - 1, "1")
    elif name in ("pfadd", "pfcount"):
        run_pipelined(c, [[b"PFADD", b"hll", b"e%d" % rng.randrange(1 << 40)] for _ in range(100000)])
    elif name == "geosearch":
        cmds = []
        for i in range(1_000_000):
            lon, lat = europe(rng)
            cmds.append([b"GEOADD", b"g", lon, lat, b"m%d" % i])
        run_pipelined(c, cmds)


def round_cmds(name, rng):
    if name == "bitcount":
        return [[b"BITCOUNT", b"bm"]] * 600, 600
    if name == "setbit":
        return [[b"SETBIT", b"bm", rng.randrange(1 << 27), b"1"] for _ in range(300000)], 300000
    if name == "pfadd":
        return [[b"PFADD", b"hll", b"e%d" % rng.randrange(1 << 40)] for _ in range(300000)], 300000
    if name == "pfcount":
        out = []
        for _ in range(60000):
            out += [[b"PFADD", b"hll", b"e%d" % rng.randrange(1 << 40)], [b"PFCOUNT", b"hll"]]
        return out, 60000
    if name == "geosearch":
        out = []
        for _ in range(3000):
            lon, lat = europe(rng)
            out.append([b"GEOSEARCH", b"g", b"FROMLONLAT", lon, lat, b"BYRADIUS", b"20", b"km",
                        b"ASC", b"COUNT", b"10"])
        return out, 3000
    raise SystemExit(f"unknown workload {name}")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("workload")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--servers", default="hotkv,redis7,redis88")
    ap.add_argument("--build-dir", default=str(ROOT / "build/release"))
    ap.add_argument("--hotkv-arg", action="append", default=[])
    ap.add_argument("--build-dir-b", default="",
                    help="a second HotKV build (server 'hotkv_b'): A/B of two builds")
    ap.add_argument("--hotkv-arg-b", action="append", default=None,
                    help="hotkv_b's extra arguments instead of --hotkv-arg's")
    a = ap.parse_args()
    os.sched_setaffinity(0, {1 % os.cpu_count()})
    print(f"load average at start: {loadavg()}")
    work = tempfile.mkdtemp(prefix="hotkv-families-ab-")
    kinds = a.servers.split(",") + (["hotkv_b"] if a.build_dir_b else [])
    servers, conns = {}, {}
    try:
        for kind in kinds:
            argv = (server_argv("hotkv", a.build_dir_b, work,
                                a.hotkv_arg if a.hotkv_arg_b is None else a.hotkv_arg_b)
                    if kind == "hotkv_b"
                    else server_argv(kind, a.build_dir, work, a.hotkv_arg))
            servers[kind] = Server(kind, argv, 0, work).start()
            conns[kind] = Conn(servers[kind].port)
            setup(a.workload, conns[kind], random.Random(22))
            log(f"{kind} loaded")
        res = {k: [] for k in kinds}
        for r in range(a.rounds):
            for kind in kinds:
                cmds, ops = round_cmds(a.workload, random.Random(1000 + r))
                u0, s0 = proc_user_sys_s(servers[kind].pid)
                errs = run_pipelined(conns[kind], cmds)
                u1, s1 = proc_user_sys_s(servers[kind].pid)
                if errs:
                    raise SystemExit(f"{kind}: {errs[0]}")
                res[kind].append(((u1 - u0) * 1e9 / ops, (s1 - s0) * 1e9 / ops))
                print(f"round {r} {kind:8} user {res[kind][-1][0]:10,.0f} sys {res[kind][-1][1]:10,.0f} "
                      f"total {sum(res[kind][-1]):10,.0f} ns/op", flush=True)
        print(f"load average at end: {loadavg()}")
        med = {k: statistics.median(u + s for u, s in v) for k, v in res.items()}
        for k in kinds:
            mu = statistics.median(u for u, _ in res[k])
            ms = statistics.median(s for _, s in res[k])
            ratio = "".join(f", HotKV/{o} {med['hotkv'] / med[o]:.2f}" for o in kinds
                            if k == "hotkv" and o != "hotkv" and med[o] > 0)
            print(f"median {k:8} total {med[k]:10,.0f} ns/op (user {mu:,.0f}, sys {ms:,.0f}){ratio}")
    finally:
        for s in servers.values():
            s.stop()
        stop_all()
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
