#!/usr/bin/python3
"""Persistence benchmark: HotKV vs Redis 8.8 (when found) and Debian's redis-server (7.0) in one run (issue 15).

    bench/persistence.py                 # 1,000,000 keys x 256 B + 100,000 hashes/lists/zsets
    bench/persistence.py --quick         # 100,000 keys + 10,000 of each, shorter windows
    bench/persistence.py --servers hotkv # one side only
    bench/persistence.py --hotkv-args "--bgsave-mode walk"   # options for HotKV's server

For each server, on the same data set (loaded with hotkv-loadgen --load and
redis-cli --pipe):
  - BGSAVE duration: BGSAVE sent -> INFO rdb_bgsave_in_progress back to 0 (polled every 5 ms);
  - memory during BGSAVE: the largest sum of PSS of the server and its children, minus
    the server's PSS before (copy-on-write and the writer's buffers; PSS counts a page
    shared by parent and child once);
  - the longest pause a client sees when BGSAVE starts: one connection sends GET of a
    random key back to back (one outstanding) from 1 s before BGSAVE until it ends; the
    largest round trip, against the largest of the same probe without BGSAVE;
  - p99 of a fixed-rate GET load and a fixed-rate SET load (hotkv-loadgen, open loop,
    half the rate each) during BGSAVEs (repeated back to back) vs without;
  - load at start-up: the process started on the file until DBSIZE answers the full
    count (no -LOADING), keys/s;
  - server CPU per SET at pipeline 30 (redis-benchmark, 2M requests) with
    appendonly yes + appendfsync everysec, and with always (requests/s too; user and
    system time apart in results.json and the table; --aof-fsync off adds the same load
    without the AOF). --hotkv-args applies to these runs too (e.g. "--threads 1").
A server that refuses a setting (HotKV before the AOF landed) is reported as such.

Results: bench/results/persistence_<date_time>/summary.md and results.json.
The server runs on core 0 (HotKV: default threads, i.e. both cores), the load on core 1.
"""
import argparse
import datetime
import json
import os
import random
import shlex
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

import redis  # noqa: E402  (Debian's python3-redis)

sys.path.insert(0, os.path.join(ROOT, "bench", "harness"))
from servers import find_redis8  # noqa: E402  (HOTKV_BENCH_REDIS8, else ../shared/peers)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def pss_kb(pid):
    """PSS of a process in kB (0 when it is gone)."""
    try:
        with open(f"/proc/{pid}/smaps_rollup") as f:
            for line in f:
                if line.startswith("Pss:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


def children(pid):
    try:
        with open(f"/proc/{pid}/task/{pid}/children") as f:
            return [int(x) for x in f.read().split()]
    except OSError:
        return []


def cpu_ticks(pid):
    return sum(cpu_split(pid))  # utime + stime


def cpu_split(pid):
    """(utime, stime) of a process in clock ticks."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return int(fields[11]), int(fields[12])


class Server:
    def __init__(self, kind, binary, workdir, extra=()):
        self.kind = kind
        self.binary = binary
        self.dir = workdir
        self.extra = list(extra)
        self.port = free_port()
        self.proc = None
        self.log = None

    def start(self, wait_loaded=True):
        args = [self.binary, "--port", str(self.port), "--dir", self.dir,
                "--dbfilename", "dump.rdb", "--save", ""] + self.extra
        if self.kind.startswith("redis"):
            args += ["--appendonly", "no"] if "--appendonly" not in self.extra else []
        self.log = open(os.path.join(self.dir, f"{self.kind}.log"), "ab")
        self.t_start = time.monotonic()
        self.proc = subprocess.Popen(["taskset", "-c", "0" if self.kind.startswith("redis") else "0,1"] + args,
                                     stdout=self.log, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + 600
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"{self.kind} exited with {self.proc.returncode}; see {self.log.name}")
            try:
                c = self.client()
                c.ping()
                if wait_loaded:
                    while c.info("persistence").get("loading", 0):
                        time.sleep(0.005)
                return time.monotonic() - self.t_start
            except redis.exceptions.BusyLoadingError:
                time.sleep(0.005)
            except (redis.exceptions.ConnectionError, OSError):
                time.sleep(0.005)
        raise RuntimeError(f"{self.kind} did not start")

    def client(self):
        return redis.Redis(port=self.port, socket_timeout=600)

    def stop(self):
        if self.proc and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL)
            self.proc.wait()
        if self.log:
            self.log.close()


def fill(server, loadgen, keys, small):
    subprocess.run(["taskset", "-c", "1", loadgen, "--port", str(server.port), "--load", str(keys),
                    "--value-size", "256", "--pipeline", "64", "--connections", "8"],
                   check=True, stdout=subprocess.DEVNULL)
    # Small collections through redis-cli --pipe (RESP written here).
    def resp(*args):
        out = [f"*{len(args)}\r\n".encode()]
        for a in args:
            a = a if isinstance(a, bytes) else str(a).encode()
            out.append(b"$%d\r\n%s\r\n" % (len(a), a))
        return b"".join(out)
    buf = bytearray()
    for i in range(small):
        buf += resp("HSET", f"hash:{i}", *[x for j in range(5) for x in (f"f{j}", f"value-{i}-{j}")])
        buf += resp("RPUSH", f"list:{i}", *[f"item-{i}-{j}" for j in range(10)])
        buf += resp("ZADD", f"zset:{i}", *[x for j in range(10) for x in (j * 1.5, f"m-{i}-{j}")])
    subprocess.run(["taskset", "-c", "1", "redis-cli", "-p", str(server.port), "--pipe"],
                   input=bytes(buf), check=True, stdout=subprocess.DEVNULL)
    return server.client().dbsize()


def wait_bgsave(c):
    while True:
        info = c.info("persistence")
        if not info.get("rdb_bgsave_in_progress", 0):
            return info
        time.sleep(0.005)


def get_probe(port, keys, stop, out):
    """GET of random keys back to back on one connection; the largest round trip (s)."""
    s = socket.create_connection(("127.0.0.1", port))
    s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    rng = random.Random(7)
    worst = 0.0
    n = 0
    while not stop.is_set():
        k = b"key:%d" % rng.randrange(keys)
        t0 = time.perf_counter()
        s.sendall(b"*2\r\n$3\r\nGET\r\n$%d\r\n%s\r\n" % (len(k), k))
        got = b""
        while b"\r\n" not in got:
            got += s.recv(65536)
        head, _, rest = got.partition(b"\r\n")
        need = int(head[1:]) + 2 if head.startswith(b"$") and head != b"$-1" else 0
        while len(rest) < need:
            rest += s.recv(65536)
        worst = max(worst, time.perf_counter() - t0)
        n += 1
    s.close()
    out["max_ms"] = worst * 1000
    out["probes"] = n


def measure_bgsave(server, keys):
    c = server.client()
    base_pss = pss_kb(server.proc.pid)
    # The probe without BGSAVE first (same length as a BGSAVE is unknown: 2 s).
    stop = threading.Event()
    quiet = {}
    t = threading.Thread(target=get_probe, args=(server.port, keys, stop, quiet))
    t.start()
    time.sleep(2)
    stop.set()
    t.join()
    # Then with BGSAVE.
    stop = threading.Event()
    during = {}
    t = threading.Thread(target=get_probe, args=(server.port, keys, stop, during))
    t.start()
    time.sleep(1)
    peak = base_pss
    t0 = time.monotonic()
    c.bgsave()
    while True:
        total = pss_kb(server.proc.pid) + sum(pss_kb(ch) for ch in children(server.proc.pid))
        peak = max(peak, total)
        info = c.info("persistence")
        if not info.get("rdb_bgsave_in_progress", 0):
            break
        time.sleep(0.005)
    duration = time.monotonic() - t0
    stop.set()
    t.join()
    return {
        "bgsave_s": duration,
        "bgsave_status": info.get("rdb_last_bgsave_status"),
        "rdb_bytes": os.path.getsize(os.path.join(server.dir, "dump.rdb")),
        "pss_before_mb": base_pss / 1024,
        "pss_growth_mb": (peak - base_pss) / 1024,
        "pause_max_ms_bgsave": during.get("max_ms"),
        "pause_max_ms_quiet": quiet.get("max_ms"),
        # HotKV's own: the pause of the BGSAVE's start as the server measured it.
        "start_pause_ms": (info["rdb_last_fork_usec"] / 1000
                           if "rdb_last_fork_usec" in info else None),
    }


def loadgen_p99(server, loadgen, rate, secs, keys, during_bgsave):
    """p99 (us) of fixed-rate GET and SET loads run together, optionally under BGSAVEs."""
    stop = threading.Event()
    saves = [0]

    def saver():
        c = server.client()
        while not stop.is_set():
            try:
                c.bgsave()
                saves[0] += 1
                wait_bgsave(c)
            except redis.exceptions.ResponseError:
                wait_bgsave(c)
            except redis.exceptions.ConnectionError as e:  # reported, not fatal to the run
                saves.append(f"saver connection lost: {e}")
                return
    th = None
    cpu0 = cpu_ticks(server.proc.pid)
    waits0 = shard_lock_waits(server)
    if during_bgsave:
        th = threading.Thread(target=saver)
        th.start()
        time.sleep(0.2)
    procs = []
    for cmd in ("get", "set"):
        procs.append(subprocess.Popen(
            ["taskset", "-c", "1", loadgen, "--port", str(server.port), "--rate", str(rate // 2),
             "--duration", str(secs), "--warmup", "1", "--command", cmd, "--keyspace", str(keys),
             "--connections", "25", "--json"], stdout=subprocess.PIPE, text=True))
    res = {}
    for cmd, p in zip(("get", "set"), procs):
        out, _ = p.communicate()
        try:
            j = json.loads(out.strip().splitlines()[-1])
            if j.get("latency_us") is None:  # hotkv-loadgen: the rate was not sustained
                res[cmd] = {"p99_us": "not sustained", "achieved": j.get("achieved_rate"),
                            "unanswered": j.get("unanswered")}
                continue
            res[cmd] = {"p99_us": j["latency_us"]["p99"], "max_us": j["latency_us"]["max"],
                        "achieved": j["achieved_rate"]}
        except (ValueError, IndexError, TypeError, KeyError):
            # A load that lost its connections: the row shows it instead of a number.
            res[cmd] = {"p99_us": "loadgen failed", "output": out[-300:]}
    if th:
        stop.set()
        th.join()
        res["bgsaves"] = saves[0]
        res["saver_errors"] = saves[1:]
    # Load-independent figures where the server has them (HotKV): its CPU time over the
    # window, the clients' waits on shard locks in it, the last walk's lock holds.
    res["server_cpu_s"] = (cpu_ticks(server.proc.pid) - cpu0) / os.sysconf("SC_CLK_TCK")
    waits1 = shard_lock_waits(server)
    if waits1:
        res["shard_lock_waits"] = {k: waits1.get(k, 0) - waits0.get(k, 0)
                                   for k in ("count", "usec", "over_100us", "over_1ms")}
    if during_bgsave:
        try:
            info = server.client().info("persistence")
            for name in ("rdb_last_walk", "rdb_walk_totals"):
                if isinstance(info.get(name), dict):
                    res[name] = info[name]
        except redis.exceptions.RedisError:
            pass
    return res


def shard_lock_waits(server):
    """HotKV's INFO persistence shard_lock_waits as a dict ({} elsewhere)."""
    try:
        v = server.client().info("persistence").get("shard_lock_waits")
    except redis.exceptions.RedisError:
        return {}
    return v if isinstance(v, dict) else {}


def measure_load(server, keys_total):
    server.stop()
    t = server.start(wait_loaded=True)
    n = server.client().dbsize()
    return {"load_s": t, "keys_loaded": n, "keys_per_s": n / t if t > 0 else 0,
            "complete": n == keys_total}


def measure_aof(kind, binary, base, fsync, requests, extra=()):
    d = tempfile.mkdtemp(dir=base)
    # fsync "off": appendonly no, the same load (the baseline of what the AOF adds).
    aof = ["--appendonly", "no"] if fsync == "off" else ["--appendonly", "yes", "--appendfsync", fsync]
    srv = Server(kind, binary, d, aof + list(extra))
    try:
        srv.start()
    except RuntimeError as e:
        srv.stop()
        with open(os.path.join(d, f"{kind}.log"), "rb") as f:
            why = f.read().decode(errors="replace").strip().splitlines()[-1:] or [str(e)]
        return {"refused": why[0]}
    try:
        u0, s0 = cpu_split(srv.proc.pid)
        c0 = u0 + s0
        t0 = time.monotonic()
        out = subprocess.run(["taskset", "-c", "1", "redis-benchmark", "-p", str(srv.port), "-t", "set",
                              "-P", "30", "-n", str(requests), "-r", "1000000", "-d", "256", "-c", "50",
                              "-q"], capture_output=True, text=True).stdout
        wall = time.monotonic() - t0
        u1, s1 = cpu_split(srv.proc.pid)
        c1 = u1 + s1
        hz = os.sysconf("SC_CLK_TCK")
        rps = None
        for part in out.replace("\r", "\n").split("\n"):
            if "requests per second" in part:
                rps = float(part.split(":")[1].split()[0])
        return {"cpu_ns_per_set": (c1 - c0) / hz / requests * 1e9,
                "user_ns_per_set": (u1 - u0) / hz / requests * 1e9,
                "sys_ns_per_set": (s1 - s0) / hz / requests * 1e9,
                "rps": rps, "wall_s": wall}
    finally:
        srv.stop()
        shutil.rmtree(d, ignore_errors=True)


class _SkipSnapshots(Exception):
    pass


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--keys", type=int, default=None)
    ap.add_argument("--small", type=int, default=None)
    ap.add_argument("--rate", type=int, default=20000, help="fixed-rate load, GET+SET together")
    ap.add_argument("--servers", default="hotkv,redis8,redis",
                    help="hotkv, redis (Debian's 7.0), redis8 (Redis 8.8: HOTKV_BENCH_REDIS8 or "
                         "../shared/peers/redis-8.8/redis-server; left out when absent)")
    ap.add_argument("--build-dir", default=os.path.join(ROOT, "build/release"))
    ap.add_argument("--no-record", action="store_true")
    ap.add_argument("--no-aof", action="store_true", help="skip the AOF CPU-per-SET runs")
    ap.add_argument("--aof-only", action="store_true",
                    help="only the AOF CPU-per-SET runs (no data set, no BGSAVE)")
    ap.add_argument("--aof-requests", type=int, default=None,
                    help="SETs per AOF run (default 2,000,000; --quick 200,000)")
    ap.add_argument("--aof-repeat", type=int, default=1,
                    help="AOF runs per setting, HotKV and Redis alternated; the median "
                         "CPU per SET is reported, every run kept in results.json")
    ap.add_argument("--hotkv-args", default="", help="extra options for HotKV's server, "
                    "e.g. \"--bgsave-mode walk\"")
    ap.add_argument("--aof-fsync", default="everysec,always",
                    help="AOF settings measured (comma-separated): everysec, always, no, and "
                         "off (appendonly no: the same load without the AOF)")
    a = ap.parse_args()
    keys = a.keys or (100_000 if a.quick else 1_000_000)
    small = a.small or (10_000 if a.quick else 100_000)
    secs = 3 if a.quick else 10
    aof_requests = a.aof_requests or (200_000 if a.quick else 2_000_000)
    hotkv = os.path.join(a.build_dir, "hotkv-server")
    loadgen = os.path.join(a.build_dir, "tools/loadgen/hotkv-loadgen")
    binaries = {"hotkv": hotkv, "redis": shutil.which("redis-server"), "redis8": find_redis8()}
    if "redis8" in a.servers.split(",") and not binaries["redis8"]:
        print("Redis 8.8 not found (HOTKV_BENCH_REDIS8): left out", flush=True)
        a.servers = ",".join(k for k in a.servers.split(",") if k != "redis8")
    stamp = datetime.datetime.now().strftime("%Y-%m-%d_%H%M%S")
    base = tempfile.mkdtemp(prefix="hotkv-persist-bench-")
    results = {"keys": keys, "small": small, "rate": a.rate, "date": stamp,
               "hotkv_args": a.hotkv_args,
               "loadavg_at_start": open("/proc/loadavg").read().split()[:3],
               "machine": f"{os.cpu_count()} CPUs, {os.uname().release}", "servers": {}}
    try:
        for kind in a.servers.split(","):
            d = tempfile.mkdtemp(dir=base)
            srv = Server(kind, binaries[kind], d,
                         shlex.split(a.hotkv_args) if kind == "hotkv" else ())
            r = {}
            try:
                if a.aof_only:
                    raise _SkipSnapshots()
                srv.start()
                total = fill(srv, loadgen, keys, small)
                r["keys_total"] = total
                print(f"{kind}: {total} keys loaded", flush=True)
                r.update(measure_bgsave(srv, keys))
                print(f"{kind}: bgsave {r['bgsave_s']:.2f} s", flush=True)
                r["p99_quiet"] = loadgen_p99(srv, loadgen, a.rate, secs, keys, False)
                r["p99_bgsave"] = loadgen_p99(srv, loadgen, a.rate, secs, keys, True)
                wait_bgsave(srv.client())
                srv.client().save()
                r.update(measure_load(srv, total))
                print(f"{kind}: load {r['load_s']:.2f} s", flush=True)
            except _SkipSnapshots:
                pass
            finally:
                srv.stop()
            results["servers"][kind] = r
        kinds = a.servers.split(",")
        for fsync in () if a.no_aof else a.aof_fsync.split(","):
            runs = {k: [] for k in kinds}
            for _ in range(max(1, a.aof_repeat)):
                for kind in kinds:  # alternated: the machine's load drifts for both
                    extra = shlex.split(a.hotkv_args) if kind == "hotkv" else ()
                    runs[kind].append(measure_aof(kind, binaries[kind], base, fsync, aof_requests,
                                                  extra))
            for kind in kinds:
                ok = sorted((x for x in runs[kind] if "cpu_ns_per_set" in x),
                            key=lambda x: x["cpu_ns_per_set"])
                best = dict(ok[len(ok) // 2]) if ok else runs[kind][0]
                best["runs"] = runs[kind]
                results["servers"][kind][f"aof_{fsync}"] = best
    finally:
        shutil.rmtree(base, ignore_errors=True)
    summary = render(results, a)
    print(summary)
    if not a.no_record:
        tag = "".join(ch if ch.isalnum() else "-" for ch in a.hotkv_args).strip("-")
        out = os.path.join(ROOT, "bench/results", f"persistence_{stamp}" + ("-quick" if a.quick else "")
                           + (f"-{tag}" if tag else ""))
        os.makedirs(out, exist_ok=True)
        with open(os.path.join(out, "results.json"), "w") as f:
            json.dump(results, f, indent=1)
        with open(os.path.join(out, "summary.md"), "w") as f:
            f.write(summary)
        print(f"written to {os.path.relpath(out, ROOT)}/")


NAMES = {"hotkv": "HotKV", "redis": "Redis 7.0", "redis8": "Redis 8.8"}


def render(res, a):
    s = res["servers"]
    kinds = list(s)
    peers = [k for k in kinds if k != "hotkv"] if "hotkv" in kinds else []
    lines = [f"# Persistence benchmark, {res['date']}", "",
             f"Machine: {res['machine']}. Command: `bench/persistence.py "
             f"{'--quick ' if a.quick else ''}--rate {a.rate} --servers {a.servers}"
             f"{' --hotkv-args ' + shlex.quote(a.hotkv_args) if a.hotkv_args else ''}"
             f"{' --no-aof' if a.no_aof else ''}{' --aof-only' if a.aof_only else ''}"
             f"{f' --aof-repeat {a.aof_repeat}' if a.aof_repeat > 1 else ''}"
             f"{f' --aof-fsync {a.aof_fsync}' if a.aof_fsync != 'everysec,always' else ''}"
             f"{f' --aof-requests {a.aof_requests}' if a.aof_requests else ''}"
             f"{f' --build-dir {a.build_dir}' if a.build_dir != os.path.join(ROOT, 'build/release') else ''}`. "
             f"Load average at start: {' '.join(res.get('loadavg_at_start', []))}. "
             f"Data: {res['keys']:,} strings x 256 B + {res['small']:,} each of 5-field hashes, "
             f"10-element lists, 10-member sorted sets.", "",
             "| | " + " | ".join(NAMES.get(k, k) for k in kinds)
             + "".join(f" | HotKV / {NAMES.get(k, k)}" for k in peers) + " |",
             "|---|" + "---|" * (len(kinds) + len(peers))]

    def row(name, fn, fmt="{:.2f}"):
        vals = []
        for k in kinds:
            try:
                vals.append(fn(s[k]))
            except (KeyError, TypeError):
                vals.append(None)
        cells = [fmt.format(v) if isinstance(v, (int, float)) else str(v) for v in vals]
        by = dict(zip(kinds, vals))
        for k in peers:
            h, p = by["hotkv"], by[k]
            ok = isinstance(h, (int, float)) and isinstance(p, (int, float)) and p
            cells.append(f"{h / p:.2f}" if ok else "")
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
    row("keys", lambda r: r["keys_total"], "{:,}")
    row("RDB file (MB)", lambda r: r["rdb_bytes"] / 1e6)
    row("BGSAVE duration (s)", lambda r: r["bgsave_s"])
    row("PSS before (MB)", lambda r: r["pss_before_mb"], "{:.0f}")
    row("PSS growth during BGSAVE (MB)", lambda r: r["pss_growth_mb"], "{:.0f}")
    row("BGSAVE start pause, server-measured (ms)", lambda r: r["start_pause_ms"])
    row("longest GET round trip, BGSAVE start (ms)", lambda r: r["pause_max_ms_bgsave"])
    row("longest GET round trip, no BGSAVE (ms)", lambda r: r["pause_max_ms_quiet"])
    for cmd in ("get", "set"):
        row(f"{cmd.upper()} p99 at {a.rate // 2}/s, no BGSAVE (us)", lambda r, c=cmd: r["p99_quiet"][c]["p99_us"], "{:.0f}")
        row(f"{cmd.upper()} p99 at {a.rate // 2}/s, during BGSAVEs (us)", lambda r, c=cmd: r["p99_bgsave"][c]["p99_us"], "{:.0f}")
    row("load at start-up (s)", lambda r: r["load_s"])
    row("load at start-up (keys/s)", lambda r: r["keys_per_s"], "{:,.0f}")
    for fsync in [f for f in ("off", "no", "everysec", "always") if any(f"aof_{f}" in r for r in s.values())]:
        row(f"AOF {fsync}: CPU per SET, P30 (ns)",
            lambda r, f=fsync: r[f"aof_{f}"].get("cpu_ns_per_set", r[f"aof_{f}"].get("refused")), "{:.0f}")
        row(f"AOF {fsync}: SET/s, P30", lambda r, f=fsync: r[f"aof_{f}"].get("rps"), "{:,.0f}")
        row(f"AOF {fsync}: user + sys ns per SET",
            lambda r, f=fsync: "{:.0f} + {:.0f}".format(r[f"aof_{f}"]["user_ns_per_set"],
                                                      r[f"aof_{f}"]["sys_ns_per_set"]))
    lines.append("")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    main()
