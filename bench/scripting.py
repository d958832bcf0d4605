#!/usr/bin/python3
"""Issue 20's scripting benchmark: EVALSHA of a small rate limiter (INCR + EXPIRE) and of a
10-command script, HotKV against Debian's Redis 7.0 and (when present) Redis 8.8.

    bench/scripting.py                 # everything
    bench/scripting.py --calls 20000   # a quick look

1. Server CPU per call: each server alone on core 0 (HotKV --threads 1), redis-benchmark on
   core 1 with one connection, at pipeline 1 and 30, random keys (-r 100000).
   CPU per call = the server's utime+stime growth / calls.
2. Calls/s of the rate limiter on random keys with HotKV's default threads and with
   --threads 1 (server and redis-benchmark unpinned, 50 connections, pipeline 30,
   redis-benchmark --threads 2). On a 2-CPU machine the generator takes a core too, so
   this shows whether a second worker still helps when the generator has less headroom.

Results: bench/results/scripting_<date_time>/summary.md + results.json (+ commands.txt).
"""
import argparse
import datetime
import json
import os
import platform
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE / "harness"))
from common import Server, cli, loadavg, log, proc_cpu_s, stop_all  # noqa: E402

ROOT = HERE.parent
PEER_88 = ROOT.parent / "shared" / "peers" / "redis-8.8" / "redis-server"

SMALL = ("local n = redis.call('INCR', KEYS[1]) "
         "if n == 1 then redis.call('EXPIRE', KEYS[1], ARGV[1]) end return n")
# Ten commands on keys sharing the declared key's hash tag (one shard).
TEN = ("local k = KEYS[1] "
       "local n = redis.call('INCR', k .. 'c') "
       "redis.call('EXPIRE', k .. 'c', 60) "
       "redis.call('SET', k .. 's', n) "
       "redis.call('GET', k .. 's') "
       "redis.call('HSET', k .. 'h', 'f', n) "
       "redis.call('HGET', k .. 'h', 'f') "
       "redis.call('LPUSH', k .. 'l', n) "
       "redis.call('LTRIM', k .. 'l', 0, 9) "
       "redis.call('EXISTS', k .. 'c') "
       "return redis.call('TTL', k .. 'c')")

COMMANDS = []


def bench_cmd(port, calls, pipeline, conns, args, threads=None, core=None):
    argv = ["redis-benchmark", "-p", str(port), "-n", str(calls), "-c", str(conns),
            "-P", str(pipeline), "-r", "100000", "--csv"]
    if threads:
        argv += ["--threads", str(threads)]
    argv += args
    if core is not None:
        argv = ["taskset", "-c", str(core)] + argv
    COMMANDS.append(" ".join(argv))
    out = subprocess.run(argv, capture_output=True, text=True, timeout=900).stdout
    rps = None
    for line in out.splitlines():
        m = re.match(r'^"[^"]*","([0-9.]+)"', line)
        if m:
            rps = float(m.group(1))
    return rps


def server_argv(kind, build, workdir, threads):
    if kind == "hotkv":
        argv = [str(Path(build) / "hotkv-server"), "--port", "{port}", "--bind", "127.0.0.1"]
        if threads is not None:
            argv += ["--threads", str(threads)]
        return argv
    binary = shutil.which("redis-server") if kind == "redis7" else str(PEER_88)
    return [binary, "--port", "{port}", "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
            "--dir", workdir]


def cpu_per_call(kind, a, workdir, logdir):
    srv = Server(kind, server_argv(kind, a.build, workdir, 1), 0, logdir).start()
    res = {}
    try:
        for name, body in (("small", SMALL), ("ten", TEN)):
            sha = cli(srv.port, "SCRIPT", "LOAD", body).strip()
            key = "rl:__rand_int__" if name == "small" else "{u:__rand_int__}"
            args = ["EVALSHA", sha, "1", key, "60"]
            for pipeline in (1, 30):
                calls = a.calls if pipeline == 1 else a.calls * 3
                bench_cmd(srv.port, max(calls // 10, 1000), pipeline, 1, args, core=1)  # warm-up
                c0 = proc_cpu_s(srv.pid)
                rps = bench_cmd(srv.port, calls, pipeline, 1, args, core=1)
                c1 = proc_cpu_s(srv.pid)
                res[f"{name}_p{pipeline}"] = {"cpu_us": (c1 - c0) / calls * 1e6, "rps": rps}
                log(f"{kind} {name} p{pipeline}: {res[f'{name}_p{pipeline}']}")
    finally:
        srv.stop()
    return res


def throughput(a, workdir, logdir):
    res = {}
    for label, threads in (("default", None), ("threads1", 1)):
        srv = Server(f"hotkv-{label}", server_argv("hotkv", a.build, workdir, threads), "0-1",
                     logdir).start()
        try:
            sha = cli(srv.port, "SCRIPT", "LOAD", SMALL).strip()
            args = ["EVALSHA", sha, "1", "rl:__rand_int__", "60"]
            bench_cmd(srv.port, a.calls, 30, 50, args, threads=2, core="0-1")
            c0 = proc_cpu_s(srv.pid)
            rps = bench_cmd(srv.port, a.calls * 10, 30, 50, args, threads=2, core="0-1")
            c1 = proc_cpu_s(srv.pid)
            res[label] = {"rps": rps, "cpu_us": (c1 - c0) / (a.calls * 10) * 1e6,
                          "threads": srv.threads()}
            log(f"throughput {label}: {res[label]}")
        finally:
            srv.stop()
    return res


def render(res):
    names = {"hotkv": "HotKV", "redis7": "Redis 7.0", "redis88": "Redis 8.8"}
    kinds = list(res["cpu"])
    lines = [f"# Scripting benchmark (issue 20), {res['date']}", "",
             f"Machine: {res['machine']}; load average at start {res['load']}.", "",
             "## Server CPU µs per EVALSHA (one connection, server alone on core 0)", "",
             "| script | pipeline | " + " | ".join(names[k] for k in kinds) + " | HotKV / 7.0 | HotKV / 8.8 |",
             "|---|---|" + "---|" * len(kinds) + "---|---|"]
    for name, label in (("small", "INCR+EXPIRE rate limiter"), ("ten", "10 commands")):
        for p in (1, 30):
            k = f"{name}_p{p}"
            vals = [res["cpu"][kk][k]["cpu_us"] for kk in kinds]
            h = res["cpu"]["hotkv"][k]["cpu_us"]
            r7 = res["cpu"].get("redis7", {}).get(k, {}).get("cpu_us")
            r8 = res["cpu"].get("redis88", {}).get(k, {}).get("cpu_us")
            lines.append(f"| {label} | {p} | " + " | ".join(f"{v:.2f}" for v in vals) +
                         f" | {h / r7:.2f} |" if r7 else " | - |")
            lines[-1] += f" {h / r8:.2f} |" if r8 else " - |"
    lines += ["", "## Rate limiter calls/s on random keys (50 connections, pipeline 30, unpinned)", "",
              "| HotKV threads | calls/s | server CPU µs/call | server threads |", "|---|---|---|---|"]
    for label in ("default", "threads1"):
        t = res["throughput"][label]
        lines.append(f"| {label} | {t['rps']:,.0f} | {t['cpu_us']:.2f} | {t['threads']} |")
    lines += ["", "Commands:", "", "```", *res["commands"], "```", ""]
    return "\n".join(lines)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default=str(ROOT / "build" / "release"))
    ap.add_argument("--calls", type=int, default=100000)
    ap.add_argument("--servers", default="hotkv,redis7,redis88")
    a = ap.parse_args()
    stamp = datetime.datetime.now().strftime("%Y-%m-%d_%H%M%S")
    out = ROOT / "bench" / "results" / f"scripting_{stamp}"
    out.mkdir(parents=True, exist_ok=True)
    workdir = tempfile.mkdtemp(prefix="hotkv-scripting-")
    res = {"date": datetime.datetime.now().strftime("%Y-%m-%d %H:%M"), "load": loadavg(),
           "machine": f"{platform.node()} {os.cpu_count()} CPUs {platform.machine()} "
                      f"{platform.release()}", "cpu": {}}
    try:
        for kind in a.servers.split(","):
            if kind == "redis88" and not PEER_88.exists():
                continue
            res["cpu"][kind] = cpu_per_call(kind, a, workdir, out)
        res["throughput"] = throughput(a, workdir, out)
    finally:
        stop_all()
    res["commands"] = [f"bench/scripting.py --calls {a.calls} --servers {a.servers}"] + COMMANDS
    (out / "results.json").write_text(json.dumps(res, indent=2))
    (out / "summary.md").write_text(render(res))
    print(render(res))
    print(f"results: {out}")


if __name__ == "__main__":
    main()
