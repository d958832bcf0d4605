#!/usr/bin/python3
"""p99 of a fixed-rate GET+SET load during back-to-back BGSAVEs, settings alternated on
ONE server process (issue 15: what the walk's p99 is made of).

    bench/walk_p99_ab.py [--server BIN] [--keys 500000] [--rate 20000] [--secs 8]
                         [--rounds 3] [--variants quiet,walk-nice0,walk-nice19,fork]
                         [--out DIR]

One server (HotKV, on cores 0,1 as bench/persistence.py runs it) is filled once with
--keys strings of 256 B (hotkv-loadgen --load); then, round after round, each variant
runs in turn: its settings are applied with CONFIG SET, and hotkv-loadgen sends GET and
SET at --rate/2 each (open loop, 25 connections each, on core 1) for --secs seconds while
a client thread runs BGSAVEs back to back (BGSAVE, then INFO persistence every 5 ms until
it is done, as bench/persistence.py's saver). Alternating the variants within one
process cancels most of the drift of a shared machine between them; a run of one
variant is still only indicative (the machine's other load moves p99 by 10x).

Variants (comma-separated):
  quiet           no BGSAVE (the baseline of the ratio)
  walk-nice<N>    bgsave-mode walk, bgsave-walk-nice N
  walk-nice<N>-nocomp  the same with rdbcompression no
  walk-y<N>       bgsave-mode walk, bgsave-walk-yield-us N (nice 0); may be combined:
                  walk-nice0-y0, walk-y100-nocomp
  fork            bgsave-mode fork
  walk            bgsave-mode walk, nothing else set (a build without bgsave-walk-nice)
Prints one line per run and a table of medians; --out writes runs.json there.

Load-independent figures per run, where the server has them (HotKV with INFO persistence
`shard_lock_waits` / `rdb_last_walk`, named worker threads): the server's CPU time, the
workers' run-queue wait per scheduling (/proc/<pid>/task/<tid>/schedstat of the
`hkv-worker-*` threads: time runnable but not running, divided by the times they were
scheduled), the clients' waits on shard locks (count, over 1 ms, longest), the last walk's
shard-lock hold percentiles, and the longest pause at a BGSAVE's start in the run (server
log).
"""
import argparse
import json
import os
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time

import redis

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def apply(c, variant):
    if variant == "quiet":
        return False
    if variant == "fork":
        c.config_set("bgsave-mode", "fork")
        c.config_set("rdbcompression", "yes")
        return True
    if variant == "walk":
        c.config_set("bgsave-mode", "walk")
        c.config_set("rdbcompression", "yes")
        return True
    parts = variant.split("-")
    assert parts[0] == "walk", variant
    c.config_set("bgsave-mode", "walk")
    nice, yield_us, comp = "0", None, "yes"
    for p in parts[1:]:
        if p.startswith("nice"):
            nice = p[len("nice"):]
        elif p.startswith("y"):
            yield_us = p[1:]
        elif p == "nocomp":
            comp = "no"
        else:
            raise SystemExit(f"unknown variant part {p!r} in {variant!r}")
    c.config_set("bgsave-walk-nice", nice)
    if yield_us is not None:
        c.config_set("bgsave-walk-yield-us", yield_us)
    c.config_set("rdbcompression", comp)
    return True


def proc_cpu_s(pid):
    """utime + stime of the whole process, seconds."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def worker_sched(pid):
    """{tid: (run_ns, wait_ns, slices)} of the threads named hkv-worker-*."""
    out = {}
    for tid in os.listdir(f"/proc/{pid}/task"):
        try:
            with open(f"/proc/{pid}/task/{tid}/comm") as f:
                if not f.read().startswith("hkv-worker"):
                    continue
            with open(f"/proc/{pid}/task/{tid}/schedstat") as f:
                out[tid] = tuple(int(x) for x in f.read().split()[:3])
        except OSError:
            pass
    return out


def info_kv(c, name):
    v = c.info("persistence").get(name)
    return v if isinstance(v, dict) else {}


def snapshot(pid, c):
    return {"cpu": proc_cpu_s(pid), "sched": worker_sched(pid),
            "waits": info_kv(c, "shard_lock_waits"), "walks": info_kv(c, "rdb_walk_totals")}


def server_figures(before, after, log_path, log_from):
    """Deltas between two snapshot()s, the last walk's stats and the log's pauses."""
    d = {"server_cpu_s": round(after["cpu"] - before["cpu"], 3)}
    run = wait = slices = 0
    for tid, (r1, w1, s1) in after["sched"].items():
        r0, w0, s0 = before["sched"].get(tid, (0, 0, 0))
        run += r1 - r0
        wait += w1 - w0
        slices += s1 - s0
    if slices:
        d["worker_runq_wait_us_per_slice"] = round(wait / slices / 1000, 1)
        d["worker_runq_wait_ms"] = round(wait / 1e6, 1)
        d["worker_cpu_ms"] = round(run / 1e6, 1)
    w0, w1 = before["waits"], after["waits"]
    if w1:
        d["lock_waits"] = {k: w1.get(k, 0) - w0.get(k, 0) for k in ("count", "usec", "over_100us", "over_1ms")}
        d["lock_wait_max_usec_ever"] = w1.get("max_usec")
    t0, t1 = before["walks"], after["walks"]
    if t1:
        d["walks"] = {k: t1.get(k, 0) - t0.get(k, 0) for k in
                      ("walks", "chunks", "holds_over_100us", "holds_over_1ms", "hook_keys",
                       "cpu_us", "yields", "nivcsw")}
    pauses = []
    try:
        with open(log_path, "rb") as f:
            f.seek(log_from)
            for line in f.read().decode(errors="replace").splitlines():
                if "Background saving started" in line and "pause " in line:
                    pauses.append(int(line.split("pause ")[1].split()[0]))
    except (OSError, ValueError, IndexError):
        pass
    if pauses:
        d["pause_us_max"] = max(pauses)
        d["pause_us_median"] = statistics.median(pauses)
    return d


def wait_bgsave(c):
    while c.info("persistence").get("rdb_bgsave_in_progress", 0):
        time.sleep(0.005)


def run_one(port, loadgen, args, saving):
    c = redis.Redis(port=port, socket_timeout=600)
    wait_bgsave(c)
    stop = threading.Event()
    saves = []

    def saver():
        cc = redis.Redis(port=port, socket_timeout=600)
        while not stop.is_set():
            t0 = time.monotonic()
            try:
                cc.bgsave()
            except redis.exceptions.ResponseError:
                wait_bgsave(cc)
                continue
            wait_bgsave(cc)
            saves.append(time.monotonic() - t0)

    th = None
    if saving:
        th = threading.Thread(target=saver)
        th.start()
        time.sleep(0.2)
    procs = [subprocess.Popen(
        ["taskset", "-c", "1", loadgen, "--port", str(port), "--rate", str(args.rate // 2),
         "--duration", str(args.secs), "--warmup", "1", "--command", cmd, "--keyspace",
         str(args.keys), "--connections", "25", "--json"], stdout=subprocess.PIPE, text=True)
        for cmd in ("get", "set")]
    res = {}
    for cmd, p in zip(("get", "set"), procs):
        out, _ = p.communicate()
        try:
            j = json.loads(out.strip().splitlines()[-1])
            lat = j.get("latency_us")
            res[cmd] = lat["p99"] if lat else None
            if lat:
                res[cmd + "_p50"] = lat.get("p50")
                res[cmd + "_max"] = lat.get("max")
        except (ValueError, IndexError, TypeError, KeyError):
            res[cmd] = None
    if th:
        stop.set()
        th.join()
    res["saves"] = len(saves)
    res["save_s"] = statistics.median(saves) if saves else None
    if saving:
        walk = info_kv(c, "rdb_last_walk")
        if walk:
            res["last_walk"] = walk
    return res


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--server", default=os.path.join(ROOT, "build/release/hotkv-server"))
    ap.add_argument("--loadgen",
                    default=os.path.join(ROOT, "build/release/tools/loadgen/hotkv-loadgen"))
    ap.add_argument("--keys", type=int, default=500_000)
    ap.add_argument("--rate", type=int, default=20_000)
    ap.add_argument("--secs", type=int, default=8)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--variants", default="quiet,walk-nice0,walk-nice19,fork")
    ap.add_argument("--out", default=None)
    a = ap.parse_args()
    variants = a.variants.split(",")
    d = tempfile.mkdtemp(prefix="walk-p99-")
    port = free_port()
    log = open(os.path.join(d, "server.log"), "wb")
    srv = subprocess.Popen(["taskset", "-c", "0,1", a.server, "--port", str(port), "--dir", d,
                            "--save", "", "--bind", "127.0.0.1"], stdout=log,
                           stderr=subprocess.STDOUT)
    runs = []
    head = {"date": time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime()),
            "loadavg_at_start": open("/proc/loadavg").read().split()[:3],
            "server": a.server, "keys": a.keys, "rate": a.rate, "secs": a.secs,
            "machine": f"{os.cpu_count()} CPUs, {os.uname().release}"}
    print(json.dumps(head), flush=True)
    try:
        c = redis.Redis(port=port, socket_timeout=600)
        for _ in range(300):
            try:
                c.ping()
                break
            except redis.exceptions.ConnectionError:
                time.sleep(0.05)
        subprocess.run(["taskset", "-c", "1", a.loadgen, "--port", str(port), "--load",
                        str(a.keys), "--value-size", "256", "--pipeline", "64",
                        "--connections", "8"], check=True, stdout=subprocess.DEVNULL)
        for rnd in range(a.rounds):
            for v in variants:
                saving = apply(c, v)
                la = open("/proc/loadavg").read().split()[0]
                log.flush()
                log_from = os.path.getsize(os.path.join(d, "server.log"))
                before = snapshot(srv.pid, c)
                r = run_one(port, a.loadgen, a, saving)
                after = snapshot(srv.pid, c)
                r.update(server_figures(before, after, os.path.join(d, "server.log"), log_from))
                r.update({"variant": v, "round": rnd, "loadavg": la})
                runs.append(r)
                print(json.dumps(r), flush=True)
    finally:
        srv.send_signal(signal.SIGKILL)
        srv.wait()
    print()
    print("| variant | GET p99 ms (median) | SET p99 ms (median) | runs: GET / SET p99 ms | BGSAVEs per run | BGSAVE s (median) |")
    print("|---|---|---|---|---|---|")

    def ms(x):
        return f"{x / 1000:.1f}" if isinstance(x, (int, float)) else "n/s"
    for v in variants:
        rs = [r for r in runs if r["variant"] == v]
        g = [r["get"] for r in rs if r["get"] is not None]
        s = [r["set"] for r in rs if r["set"] is not None]
        sv = [r["save_s"] for r in rs if r["save_s"]]
        gm = ms(statistics.median(g)) if g else "n/s"
        sm = ms(statistics.median(s)) if s else "n/s"
        each = ", ".join(f"{ms(r['get'])} / {ms(r['set'])}" for r in rs)
        saves = ", ".join(str(r["saves"]) for r in rs)
        svm = f"{statistics.median(sv):.2f}" if sv else "-"
        print(f"| {v} | {gm} | {sm} | {each} | {saves} | {svm} |")
    print()
    print("| variant | server CPU s (median) | worker run-queue wait us/slice (median) | client shard-lock waits: count / >1 ms (median) | walks' chunks / holds >1 ms (median; all walks of the run) | last walk's lock hold p50 / p99 / max us (median) | BGSAVE pause max us (median) |")
    print("|---|---|---|---|---|---|---|")

    def med(xs):
        xs = [x for x in xs if isinstance(x, (int, float))]
        return statistics.median(xs) if xs else "-"
    for v in variants:
        rs = [r for r in runs if r["variant"] == v]
        cpu = med(r.get("server_cpu_s") for r in rs)
        rq = med(r.get("worker_runq_wait_us_per_slice") for r in rs)
        lw = med(r.get("lock_waits", {}).get("count") for r in rs)
        lw1 = med(r.get("lock_waits", {}).get("over_1ms") for r in rs)
        h99 = med(r.get("last_walk", {}).get("hold_p99_us") for r in rs)
        hmax = med(r.get("last_walk", {}).get("hold_max_us") for r in rs)
        pm = med(r.get("pause_us_max") for r in rs)
        h50 = med(r.get("last_walk", {}).get("hold_p50_us") for r in rs)
        wc = med(r.get("walks", {}).get("chunks") for r in rs)
        w1 = med(r.get("walks", {}).get("holds_over_1ms") for r in rs)
        print(f"| {v} | {cpu} | {rq} | {lw} / {lw1} | {wc} / {w1} | {h50} / {h99} / {hmax} | {pm} |")
    if a.out:
        os.makedirs(a.out, exist_ok=True)
        with open(os.path.join(a.out, "runs.json"), "w") as f:
            json.dump({"head": head, "runs": runs}, f, indent=1)


if __name__ == "__main__":
    sys.exit(main())
