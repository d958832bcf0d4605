#!/usr/bin/python3
"""Kernel work per EVALSHA (the rate limiter on random keys) by server: system calls,
io_uring waits, context switches, wake-ups issued, user and system CPU, counted with
`perf stat` tracepoints attached to the server process during a fixed redis-benchmark
run. Issue 20's scaling question: what the extra system time per call with two workers
is. Counts are load-independent enough to compare; the times are indicative.

    bench/scripting_syscalls.py                                  # hotkv t1 vs t2, P30, 50 conns
    bench/scripting_syscalls.py --servers hotkv1,redis88 --pipeline 1 --conns 1 --calls 10000
    bench/scripting_syscalls.py --record                         # + perf record of kernel symbols

Servers: hotkv1 / hotkv2 (`--threads 1/2`), redis88 (Redis 8.8), redis7 (/usr/bin). All
unpinned on the machine's CPUs with redis-benchmark (`--bench-threads`).
Results: bench/results/scripting-syscalls_<date_time>/ (summary.md, results.json).
"""
import argparse
import datetime
import json
import os
import platform
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE / "harness"))
from common import (Server, cli, ctx_switches, loadavg, log, proc_user_sys_s,  # noqa: E402
                    stop_all)

ROOT = HERE.parent
PEER_88 = Path("/work/shared/peers/redis-8.8/redis-server")
SMALL = ("local n = redis.call('INCR', KEYS[1]) "
         "if n == 1 then redis.call('EXPIRE', KEYS[1], ARGV[1]) end return n")
EVENTS = [
    "raw_syscalls:sys_enter",
    "syscalls:sys_enter_io_uring_enter",
    "syscalls:sys_enter_epoll_wait",
    "syscalls:sys_enter_read",
    "syscalls:sys_enter_write",
    "syscalls:sys_enter_sendmsg",
    "syscalls:sys_enter_recvfrom",
    "syscalls:sys_enter_sendto",
    "syscalls:sys_enter_futex",
    "syscalls:sys_enter_sched_yield",
    "syscalls:sys_enter_madvise",
    "io_uring:io_uring_cqring_wait",
    "io_uring:io_uring_local_work_run",
    "sched:sched_switch",
    "sched:sched_wakeup",
    "context-switches",
    "cpu-migrations",
    "task-clock",
]
COMMANDS = []


def server_argv(kind, a, workdir):
    if kind.startswith("hotkv"):
        t = kind[len("hotkv"):] or "2"
        return [str(Path(a.build) / "hotkv-server"), "--port", "{port}", "--bind", "127.0.0.1",
                "--threads", t, "--save", "", "--dir", workdir] + a.hotkv_args.split()
    binary = str(PEER_88) if kind == "redis88" else shutil.which("redis-server")
    return [binary, "--port", "{port}", "--bind", "127.0.0.1", "--save", "", "--appendonly",
            "no", "--dir", workdir]


def bench_argv(a, port, sha):
    argv = ["redis-benchmark", "-p", str(port), "-c", str(a.conns), "-P", str(a.pipeline),
            "-r", "100000", "--csv"]
    if a.bench_threads > 1:
        argv += ["--threads", str(a.bench_threads)]
    return argv, ["EVALSHA", sha, "1", "rl:__rand_int__", "60"]


def run_bench(argv, tail, n):
    full = argv[:3] + ["-n", str(n)] + argv[3:] + tail
    COMMANDS.append(" ".join(full))
    out = subprocess.run(full, capture_output=True, text=True, timeout=1800).stdout
    for line in out.splitlines():
        m = re.match(r'^"[^"]*","([0-9.]+)"', line)
        if m:
            return float(m.group(1))
    return None


def parse_perf_csv(path):
    counts = {}
    for line in Path(path).read_text(errors="replace").splitlines():
        parts = line.split(",")
        if len(parts) < 3 or line.startswith("#"):
            continue
        try:
            v = float(parts[0])
        except ValueError:
            continue
        counts[parts[2]] = v
    return counts


def one_round(a, kind, workdir, out, r):
    srv = Server(f"{kind}-r{r}", server_argv(kind, a, workdir), a.cores, out).start()
    try:
        sha = cli(srv.port, "SCRIPT", "LOAD", SMALL).strip()
        argv, tail = bench_argv(a, srv.port, sha)
        run_bench(argv, tail, max(2000, a.calls // 10))  # warm-up: every worker compiles it
        perf_out = out / f"perf-{kind}-r{r}.csv"
        perf = subprocess.Popen(["perf", "stat", "-x,", "-o", str(perf_out), "-p", str(srv.pid),
                                 "-e", ",".join(EVENTS)], stdout=subprocess.DEVNULL,
                                stderr=subprocess.DEVNULL)
        rec = None
        if a.record:
            rec = subprocess.Popen(["perf", "record", "-q", "-F", "2000", "-g", "-o",
                                    str(out / f"perf-{kind}-r{r}.data"), "-p", str(srv.pid)],
                                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        time.sleep(0.5)  # perf attached
        load = loadavg()
        u0, s0 = proc_user_sys_s(srv.pid)
        v0, i0 = ctx_switches(srv.pid)
        t0 = time.time()
        rps = run_bench(argv, tail, a.calls)
        wall = time.time() - t0
        u1, s1 = proc_user_sys_s(srv.pid)
        v1, i1 = ctx_switches(srv.pid)
        for p in (perf, rec):
            if p is not None:
                p.send_signal(signal.SIGINT)
                p.wait(timeout=120)
        counts = parse_perf_csv(perf_out)
        n = a.calls
        row = {"server": kind, "round": r, "load": load, "rps": rps, "wall_s": wall,
               "user_us": (u1 - u0) / n * 1e6, "sys_us": (s1 - s0) / n * 1e6,
               "vol_cs_per_1k": (v1 - v0) / n * 1000, "invol_cs_per_1k": (i1 - i0) / n * 1000,
               "per_1k": {k: v / n * 1000 for k, v in counts.items()}}
        if a.record:
            rep = subprocess.run(["perf", "report", "-i", str(out / f"perf-{kind}-r{r}.data"),
                                  "--no-children", "--sort", "sym", "--stdio", "-g", "none",
                                  "--percent-limit", "0.7"], capture_output=True, text=True,
                                 timeout=300).stdout
            (out / f"report-{kind}-r{r}.txt").write_text(rep)
        return row
    finally:
        srv.stop()


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--build", default=str(ROOT / "build" / "release"))
    ap.add_argument("--servers", default="hotkv1,hotkv2")
    ap.add_argument("--calls", type=int, default=600000)
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--conns", type=int, default=50)
    ap.add_argument("--pipeline", type=int, default=30)
    ap.add_argument("--bench-threads", type=int, default=2)
    ap.add_argument("--cores", default="0-1")
    ap.add_argument("--hotkv-args", default="")
    ap.add_argument("--record", action="store_true")
    a = ap.parse_args()
    stamp = datetime.datetime.now().strftime("%Y-%m-%d_%H%M%S")
    out = ROOT / "bench" / "results" / f"scripting-syscalls_{stamp}"
    out.mkdir(parents=True, exist_ok=True)
    workdir = tempfile.mkdtemp(prefix="hotkv-scripting-syscalls-")
    res = {"date": datetime.datetime.now().strftime("%Y-%m-%d %H:%M"), "load": loadavg(),
           "machine": f"{platform.node()} {os.cpu_count()} CPUs {platform.machine()} "
                      f"{platform.release()}", "rounds": []}
    kinds = a.servers.split(",")
    try:
        for r in range(a.rounds):
            for kind in (kinds if r % 2 == 0 else list(reversed(kinds))):
                row = one_round(a, kind, workdir, out, r)
                log(json.dumps({k: v for k, v in row.items() if k != "per_1k"}))
                res["rounds"].append(row)
    finally:
        stop_all()
    res["commands"] = [" ".join(sys.argv)] + COMMANDS
    (out / "results.json").write_text(json.dumps(res, indent=2))
    cols = ["raw_syscalls:sys_enter", "syscalls:sys_enter_io_uring_enter",
            "syscalls:sys_enter_epoll_wait", "syscalls:sys_enter_read", "syscalls:sys_enter_write",
            "syscalls:sys_enter_futex", "syscalls:sys_enter_sched_yield",
            "io_uring:io_uring_cqring_wait", "io_uring:io_uring_local_work_run",
            "sched:sched_switch", "sched:sched_wakeup", "cpu-migrations"]
    short = [c.split(":")[-1].replace("sys_enter_", "") for c in cols]
    lines = [f"# EVALSHA rate limiter: kernel work per 1,000 calls, {res['date']}", "",
             f"Machine: {res['machine']}; load average at start {res['load']}. "
             f"{a.calls:,} calls, {a.conns} connections, pipeline {a.pipeline}.", "",
             "| server | round | calls/s | user µs/call | sys µs/call | " + " | ".join(short) + " | load |",
             "|---" * (5 + len(short) + 1) + "|"]
    for row in res["rounds"]:
        p = row["per_1k"]
        lines.append(f"| {row['server']} | {row['round']} | {row['rps'] or 0:,.0f} | "
                     f"{row['user_us']:.3f} | {row['sys_us']:.3f} | " +
                     " | ".join(f"{p.get(c, float('nan')):.1f}" for c in cols) +
                     f" | {row['load']} |")
    lines += ["", "Commands:", "", "```", *res["commands"], "```", ""]
    (out / "summary.md").write_text("\n".join(lines))
    print("\n".join(lines))
    print(f"results: {out}")


if __name__ == "__main__":
    main()
