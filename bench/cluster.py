#!/usr/bin/python3
"""Issue 16's cluster benchmark: a 3-node HotKV cluster, a 3-node Redis 7.0 cluster and
(when its binary is found: HOTKV_BENCH_REDIS8, else ../shared/peers/redis-8.8/) a 3-node
Redis 8.8 cluster on this machine, one after the other, driven by `redis-benchmark --cluster` on the 12
reference commands at pipeline 100 with 256-byte values.

    bench/cluster.py                          # both clusters, every command
    bench/cluster.py --requests 200000        # a quicker look
    bench/cluster.py --servers redis7         # one kind (hotkv, redis7, redis8)
    bench/cluster.py --commands SET,GET       # some commands

For each kind: three nodes (`--cluster-enabled yes`, their own temp dirs and
nodes.conf), HotKV with `--threads 1` per node so that both kinds have one thread serving
commands per node; `redis-cli --cluster create --cluster-yes` assigns the slots, then
every node must report `cluster_state:ok` and `--cluster check` must pass before anything
is measured. Each command: one `redis-benchmark --cluster` run (-c 50 -P 100 -d 256
-r 1000000 --csv); ops/s from redis-benchmark, server CPU per op = the utime+stime growth
of the three server processes together / requests. MGET and MSET use 10 keys sharing
redis-benchmark's per-node `{tag}` (one slot, as a cluster requires); SETNX and APPEND use
their own key names. Servers and the client are not pinned (a 2-CPU machine has no core
to spare for each); the load average at the start is recorded.

Results: bench/results/cluster_<date_time>/summary.md + results.json + raw/ (each
redis-benchmark's output and the exact command line).
"""
import argparse
import csv
import datetime
import json
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE / "harness"))
from common import cli, loadavg, log, port_is_free, proc_cpu_s, stop_all  # noqa: E402
import common  # noqa: E402
from servers import find_redis8  # noqa: E402

ROOT = HERE.parent
COMMANDS = ["PING", "SET", "GET", "MGET", "SETNX", "APPEND", "INCR", "LPUSH", "RPUSH",
            "SADD", "HSET", "MSET"]
BUILTIN = {"PING": "ping_mbulk", "SET": "set", "GET": "get", "INCR": "incr",
           "LPUSH": "lpush", "RPUSH": "rpush", "SADD": "sadd", "HSET": "hset"}


def free_cluster_port():
    """A port p with p and p + 10000 (its bus port) both free."""
    for _ in range(200):
        p = common.pick_port()
        if p + 10000 < 65536 and port_is_free(p + 10000):
            return p
    raise RuntimeError("no free port pair")


class Node:
    def __init__(self, kind, binary, workdir, logdir):
        self.kind = kind
        self.port = free_cluster_port()
        self.dir = Path(workdir) / f"{kind}-{self.port}"
        self.dir.mkdir(parents=True)
        argv = [binary, "--port", str(self.port), "--bind", "127.0.0.1",
                "--cluster-enabled", "yes", "--cluster-config-file", str(self.dir / "nodes.conf"),
                "--cluster-node-timeout", "5000", "--dir", str(self.dir),
                "--save", "", "--appendonly", "no"]
        if kind == "hotkv":
            argv += ["--threads", "1"]
        self.server = common.Server(f"{kind}-node", argv, core="0-%d" % (os.cpu_count() - 1),
                                    logdir=logdir, port=self.port)

    def start(self):
        self.server.start()
        return self

    def cpu_s(self):
        return proc_cpu_s(self.server.pid)


def wait_cluster_ok(nodes, timeout=60):
    deadline = time.time() + timeout
    while time.time() < deadline:
        states = [cli(n.port, "CLUSTER", "INFO", check=False) for n in nodes]
        if all("cluster_state:ok" in s for s in states):
            return
        time.sleep(0.2)
    raise RuntimeError("cluster_state never became ok on every node")


def create_cluster(nodes, rawdir):
    addrs = [f"127.0.0.1:{n.port}" for n in nodes]
    argv = ["redis-cli", "--cluster", "create", *addrs, "--cluster-replicas", "0", "--cluster-yes"]
    p = subprocess.run(argv, capture_output=True, text=True, timeout=120)
    (rawdir / f"create-{nodes[0].kind}.txt").write_text(" ".join(argv) + "\n" + p.stdout + p.stderr)
    if "[OK] All 16384 slots covered" not in p.stdout:
        raise RuntimeError(f"cluster create failed: {p.stdout[-800:]} {p.stderr[-400:]}")
    wait_cluster_ok(nodes)
    check = ["redis-cli", "--cluster", "check", addrs[0]]
    deadline = time.time() + 60
    while True:
        c = subprocess.run(check, capture_output=True, text=True, timeout=60)
        if c.returncode == 0 and "[OK] All 16384 slots covered" in c.stdout and "[ERR]" not in c.stdout:
            break
        if time.time() > deadline:
            raise RuntimeError(f"cluster check failed: {c.stdout[-800:]}")
        time.sleep(0.5)
    (rawdir / f"check-{nodes[0].kind}.txt").write_text(" ".join(check) + "\n" + c.stdout)


def bench_argv(port, cmd, args):
    argv = ["redis-benchmark", "--cluster", "-h", "127.0.0.1", "-p", str(port),
            "-c", str(args.clients), "-P", str(args.pipeline), "-d", str(args.value_size),
            "-r", str(args.keyspace), "-n", str(args.requests), "--csv"]
    if cmd in BUILTIN:
        return argv + ["-t", BUILTIN[cmd]]
    value = "x" * args.value_size
    custom = {
        "MGET": ["MGET"] + ["key:{tag}:__rand_int__"] * 10,
        "MSET": ["MSET"] + ["key:{tag}:__rand_int__", value] * 10,
        "SETNX": ["SETNX", "nxkey:{tag}:__rand_int__", value],
        "APPEND": ["APPEND", "appkey:{tag}:__rand_int__", value],
    }
    return argv + custom[cmd]


def parse_rps(stdout):
    rows = [r for r in csv.reader(stdout.splitlines()) if len(r) >= 2 and r[0] != "test"]
    try:
        return float(rows[-1][1])
    except (IndexError, ValueError):
        return None


def run_kind(kind, binary, args, outdir):
    rawdir = outdir / "raw"
    workdir = Path(tempfile.mkdtemp(prefix=f"cluster-bench-{kind}-"))
    rows = []
    try:
        nodes = [Node(kind, binary, workdir, outdir).start() for _ in range(3)]
        create_cluster(nodes, rawdir)
        for cmd in args.commands:
            argv = bench_argv(nodes[0].port, cmd, args)
            cpu0 = sum(n.cpu_s() for n in nodes)
            t0 = time.time()
            p = subprocess.run(argv, capture_output=True, text=True, timeout=1800)
            wall = time.time() - t0
            cpu = sum(n.cpu_s() for n in nodes) - cpu0
            (rawdir / f"{kind}-{cmd}.txt").write_text(
                " ".join(argv) + "\n" + p.stdout + "\n--- stderr\n" + p.stderr)
            rps = parse_rps(p.stdout)
            ok = p.returncode == 0 and rps is not None and "error" not in (p.stdout + p.stderr).lower()
            row = {"kind": kind, "command": cmd, "requests": args.requests, "rps": rps,
                   "wall_s": round(wall, 2), "server_cpu_s": round(cpu, 3),
                   "ns_per_op": round(cpu * 1e9 / args.requests) if ok else None,
                   "status": "ok" if ok else "error"}
            if not ok:
                row["error"] = next((l for l in (p.stdout + p.stderr).splitlines() if "rror" in l),
                                    f"redis-benchmark rc {p.returncode}")
            log(f"{kind} {cmd}: {row}")
            rows.append(row)
    finally:
        stop_all()
        shutil.rmtree(workdir, ignore_errors=True)
    return rows


NAMES = {"hotkv": "HotKV", "redis7": "Redis 7.0", "redis8": "Redis 8.8"}


def summary(rows, args, meta):
    by = {(r["kind"], r["command"]): r for r in rows}
    kinds = [k for k in ("hotkv", "redis8", "redis7") if any(r["kind"] == k for r in rows)]
    peers = [k for k in kinds if k != "hotkv"]
    lines = [f"# 3-node cluster, HotKV vs {' and '.join(NAMES[k] for k in peers) or 'nothing'} "
             f"(issue 16), {meta['date']}", "",
             f"Machine: {meta['machine']}; load average at start {meta['load']}. "
             f"Command: `{meta['command']}`.", "",
             f"Each kind: 3 nodes on loopback, `redis-cli --cluster create`, then "
             f"`redis-benchmark --cluster -c {args.clients} -P {args.pipeline} -d {args.value_size} "
             f"-r {args.keyspace} -n {args.requests}` per command; server CPU = utime+stime growth "
             f"of the 3 server processes / requests. Unpinned (servers and client share the CPUs).", "",
             "| command | " + " | ".join(f"{NAMES[k]} ops/s" for k in kinds) + " | "
             + " | ".join(f"{NAMES[k]} ns/op" for k in kinds)
             + "".join(f" | CPU HotKV / {NAMES[k]}" for k in peers if "hotkv" in kinds) + " |",
             "|---|" + "---|" * (2 * len(kinds) + (len(peers) if "hotkv" in kinds else 0))]

    def fmt(v, f="{:,.0f}"):
        return f.format(v) if isinstance(v, (int, float)) else (v or "-")
    for cmd in args.commands:
        got = {k: by.get((k, cmd), {}) for k in kinds}
        cells = [fmt(got[k].get("rps")) for k in kinds] + [fmt(got[k].get("ns_per_op")) for k in kinds]
        if "hotkv" in kinds:
            h = got["hotkv"].get("ns_per_op")
            for k in peers:
                r = got[k].get("ns_per_op")
                cells.append(fmt(h / r if h and r else None, "{:.2f}"))
        lines.append(f"| {cmd} | " + " | ".join(cells) + " |")
    errors = [r for r in rows if r["status"] != "ok"]
    if errors:
        lines += ["", "Errors:", ""] + [f"- {r['kind']} {r['command']}: {r.get('error')}" for r in errors]
    return "\n".join(lines) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--servers", default="hotkv,redis8,redis7",
                    help="kinds, in run order (redis8 left out when its binary is not found)")
    ap.add_argument("--commands", default=",".join(COMMANDS))
    ap.add_argument("--requests", type=int, default=2_000_000)
    ap.add_argument("--clients", type=int, default=50)
    ap.add_argument("--pipeline", type=int, default=100)
    ap.add_argument("--value-size", type=int, default=256)
    ap.add_argument("--keyspace", type=int, default=1_000_000)
    ap.add_argument("--build-dir", default=str(ROOT / "build" / "release"))
    ap.add_argument("--out", default=None)
    args = ap.parse_args()
    args.commands = [c.strip().upper() for c in args.commands.split(",") if c.strip()]
    binaries = {"hotkv": str(Path(args.build_dir) / "hotkv-server"), "redis7": shutil.which("redis-server"),
                "redis8": find_redis8()}
    if not binaries["redis8"] and "redis8" in args.servers:
        log("Redis 8.8 not found (HOTKV_BENCH_REDIS8): left out")
        args.servers = ",".join(k for k in args.servers.split(",") if k.strip() != "redis8")
    stamp = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d_%H%M%S")
    outdir = Path(args.out) if args.out else HERE / "results" / f"cluster_{stamp}"
    (outdir / "raw").mkdir(parents=True, exist_ok=True)
    meta = {"date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
            "machine": f"{platform.node()} {os.cpu_count()} CPUs {platform.machine()} {platform.release()}",
            "load": loadavg(), "command": " ".join(["bench/cluster.py"] + sys.argv[1:])}
    rows = []
    for kind in [s.strip() for s in args.servers.split(",") if s.strip()]:
        rows += run_kind(kind, binaries[kind], args, outdir)
    (outdir / "results.json").write_text(json.dumps({"meta": meta, "rows": rows}, indent=1))
    (outdir / "summary.md").write_text(summary(rows, args, meta))
    print(outdir / "summary.md")


if __name__ == "__main__":
    main()
