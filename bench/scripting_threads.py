#!/usr/bin/python3
"""Where the server CPU per EVALSHA goes with more workers (issue 20's scaling target: the
rate limiter on random keys, "CPU per call unchanged with more threads").

    bench/scripting_threads.py                      # CPU split, --threads 1 and 2, 3 rounds
    bench/scripting_threads.py --callgrind          # instructions per call instead

Default mode: HotKV with --threads 1 and --threads 2 in turn (alternated, `--rounds`
each), server and redis-benchmark (50 connections, pipeline 30, --threads 2) unpinned on
the machine's CPUs, as bench/scripting.py's throughput part. Per call: server user and
system CPU µs, voluntary / involuntary context switches of the server's threads, and
the worker loop's wake-ups (INFO's per-worker stats when the server reports them).
Noisy on a shared machine: indicative; the split (user vs system, switches per call)
is what says where the difference is.

--callgrind: each server runs under valgrind (epoll backend: valgrind has no io_uring),
instrumentation switched on only around a fixed run of `--calls` EVALSHAs; instructions
per call (all threads) from callgrind's totals, per function in the out files.

Results: bench/results/scripting-threads_<date_time>/ (summary.md, results.json, logs).
"""
import argparse
import datetime
import json
import os
import platform
import re
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
SMALL = ("local n = redis.call('INCR', KEYS[1]) "
         "if n == 1 then redis.call('EXPIRE', KEYS[1], ARGV[1]) end return n")
COMMANDS = []


def bench(port, calls, args, conns, threads):
    argv = ["redis-benchmark", "-p", str(port), "-n", str(calls), "-c", str(conns), "-P", "30",
            "-r", "100000", "--csv"]
    if threads > 1:
        argv += ["--threads", str(threads)]
    argv += args
    COMMANDS.append(" ".join(argv))
    out = subprocess.run(argv, capture_output=True, text=True, timeout=1800).stdout
    for line in out.splitlines():
        m = re.match(r'^"[^"]*","([0-9.]+)"', line)
        if m:
            return float(m.group(1))
    return None


def workload_args(a, port):
    """The rate limiter's EVALSHA, or (--workload incr) a plain INCR on the same keys: the
    part of a difference between thread counts that is not the script's."""
    if a.workload == "incr":
        return ["INCR", "rl:__rand_int__"]
    if a.workload == "evalsha_ro":
        # A read-only script (EVALSHA_RO of a GET): its shard lock's mode is the A/B.
        sha = cli(port, "SCRIPT", "LOAD", "return redis.call('GET', KEYS[1])").strip()
        return ["EVALSHA_RO", sha, "1", "rl:__rand_int__"]
    sha = cli(port, "SCRIPT", "LOAD", SMALL).strip()
    return ["EVALSHA", sha, "1", "rl:__rand_int__", "60"]


def cpu_round(a, threads, workdir, logdir):
    argv = [str(Path(a.build) / "hotkv-server"), "--port", "{port}", "--bind", "127.0.0.1",
            "--threads", str(threads), "--save", "", "--dir", workdir] + a.hotkv_args.split()
    srv = Server(f"hotkv-t{threads}", argv, a.cores, logdir).start()
    try:
        args = workload_args(a, srv.port)
        bench(srv.port, a.calls // 10, args, a.conns, a.bench_threads)  # warm-up
        u0, s0 = proc_user_sys_s(srv.pid)
        v0, i0 = ctx_switches(srv.pid)
        t0 = time.time()
        rps = bench(srv.port, a.calls, args, a.conns, a.bench_threads)
        wall = time.time() - t0
        u1, s1 = proc_user_sys_s(srv.pid)
        v1, i1 = ctx_switches(srv.pid)
        n = a.calls
        return {"threads": threads, "rps": rps, "wall_s": wall,
                "user_us": (u1 - u0) / n * 1e6, "sys_us": (s1 - s0) / n * 1e6,
                "cpu_us": (u1 - u0 + s1 - s0) / n * 1e6,
                "vol_cs_per_1k": (v1 - v0) / n * 1000, "invol_cs_per_1k": (i1 - i0) / n * 1000}
    finally:
        srv.stop()


def callgrind_total(path):
    total = None
    for line in Path(path).read_text(errors="replace").splitlines():
        if line.startswith("totals:"):  # ("summary:" is 0 with --instr-atstart=no)
            return int(line.split()[1])
        if line.startswith("summary:"):
            total = int(line.split()[1])
    return total


def callgrind_round(a, threads, workdir, logdir):
    out = Path(logdir) / f"callgrind.t{threads}.out"
    argv = ["valgrind", "--tool=callgrind", "--instr-atstart=no", f"--callgrind-out-file={out}",
            str(Path(a.build) / "hotkv-server"), "--port", "{port}", "--bind", "127.0.0.1",
            "--threads", str(threads), "--io-backend", "epoll", "--save", "", "--dir",
            workdir] + a.hotkv_args.split()
    srv = Server(f"hotkv-cg-t{threads}", argv, a.cores, logdir).start(timeout=120)
    try:
        args = workload_args(a, srv.port)
        bench(srv.port, 2000, args, a.conns, 1)  # every worker compiles the script
        subprocess.run(["callgrind_control", "-i", "on", str(srv.pid)], check=True,
                       capture_output=True, timeout=60)
        bench(srv.port, a.calls, args, a.conns, 1)
        subprocess.run(["callgrind_control", "-i", "off", str(srv.pid)], check=True,
                       capture_output=True, timeout=60)
    finally:
        srv.stop()
    total = 0
    files = sorted(Path(logdir).glob(f"callgrind.t{threads}.out*"))
    for f in files:
        total += callgrind_total(f) or 0
    return {"threads": threads, "instructions": total, "per_call": total / a.calls,
            "files": [f.name for f in files]}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default=str(ROOT / "build" / "release"))
    ap.add_argument("--calls", type=int, default=1000000)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--conns", type=int, default=50)
    ap.add_argument("--bench-threads", type=int, default=2)
    ap.add_argument("--cores", default="0-1")
    ap.add_argument("--hotkv-args", default="")
    ap.add_argument("--callgrind", action="store_true")
    ap.add_argument("--workload", choices=("evalsha", "incr", "evalsha_ro"), default="evalsha")
    ap.add_argument("--threads-list", default="1,2", help="thread counts to run, e.g. 1")
    a = ap.parse_args()
    stamp = datetime.datetime.now().strftime("%Y-%m-%d_%H%M%S")
    out = ROOT / "bench" / "results" / f"scripting-threads_{stamp}{'' if a.workload == 'evalsha' else '_' + a.workload}"
    out.mkdir(parents=True, exist_ok=True)
    workdir = tempfile.mkdtemp(prefix="hotkv-scripting-threads-")
    res = {"date": datetime.datetime.now().strftime("%Y-%m-%d %H:%M"), "load": loadavg(),
           "machine": f"{platform.node()} {os.cpu_count()} CPUs {platform.machine()} "
                      f"{platform.release()}", "mode": "callgrind" if a.callgrind else "cpu", "workload": a.workload,
           "rounds": []}
    try:
        for r in range(1 if a.callgrind else a.rounds):
            tl = [int(x) for x in a.threads_list.split(",")]
            for threads in (tl if r % 2 == 0 else list(reversed(tl))):
                fn = callgrind_round if a.callgrind else cpu_round
                row = fn(a, threads, workdir, out)
                row["round"] = r
                row["load"] = loadavg()
                log(json.dumps(row))
                res["rounds"].append(row)
    finally:
        stop_all()
    res["commands"] = [" ".join(sys.argv)] + COMMANDS
    (out / "results.json").write_text(json.dumps(res, indent=2))
    what = {"evalsha": "EVALSHA rate limiter", "incr": "INCR (no script)",
            "evalsha_ro": "EVALSHA_RO of a GET"}[a.workload]
    lines = [f"# {what}, --threads 1 vs 2 ({res['mode']}), {res['date']}", "",
             f"Machine: {res['machine']}; load average at start {res['load']}.", ""]
    if a.callgrind:
        lines += ["| threads | instructions per call |", "|---|---|"]
        for row in res["rounds"]:
            lines.append(f"| {row['threads']} | {row['per_call']:,.0f} |")
    else:
        lines += ["| round | threads | calls/s | user µs | sys µs | CPU µs | vol. switches /1k | "
                  "invol. /1k | load |", "|---|---|---|---|---|---|---|---|---|"]
        for row in res["rounds"]:
            lines.append(f"| {row['round']} | {row['threads']} | {row['rps']:,.0f} | "
                         f"{row['user_us']:.3f} | {row['sys_us']:.3f} | {row['cpu_us']:.3f} | "
                         f"{row['vol_cs_per_1k']:.2f} | {row['invol_cs_per_1k']:.2f} | "
                         f"{row['load']} |")
    lines += ["", "Commands:", "", "```", *res["commands"], "```", ""]
    (out / "summary.md").write_text("\n".join(lines))
    print("\n".join(lines))
    print(f"results: {out}")


if __name__ == "__main__":
    main()
