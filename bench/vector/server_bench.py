#!/usr/bin/env python3
"""Vector search through hotkv-server (issue 6): load rate, recall@10, queries/s and
latency at each ef with 1..32 clients, RSS per vector. Called by
bench/vector/run_server_bench.sh (see bench/vector/README.md). Standard library only.

    python3 bench/vector/server_bench.py --build-dir build/release [--quick]
        [--sets fashion,syn128,syn1536] [--configs default,t1] [--reps N]
        [--no-engine] [--record | --no-record] [--resume DIR] [--render DIR]

Every server is one this script started, on a port it checked free, stopped by pid
(it also dies with this script through PR_SET_PDEATHSIG).
"""
import argparse
import datetime
import json
import os
import platform
import re
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
sys.path.insert(0, str(REPO / "bench" / "harness"))

from common import Server, loadavg, log, proc_status, stop_all  # noqa: E402

EFS = [40, 80, 150, 300, 500]
CLIENTS = [1, 2, 4, 8, 16, 32]

# Data sets: the flags for vector_server_bench (and vector_engine_bench, which shares
# the generator and the ground-truth cache under bench/vector/data/).
SETS = {
    "fashion": {
        "title": "Fashion-MNIST, 60,000 x 784, L2",
        "dialect": "vsim", "metric": "L2", "dim": 784,
        "full": {"n": 60000, "data": ["--dataset=fashion", "--queries=1000"]},
        "quick": {"n": 10000, "data": ["--dataset=fashion", "--n=10000", "--queries=200"]},
    },
    "syn128": {
        "title": "synthetic clustered unit vectors, 100,000 x 128, cosine",
        "dialect": "vadd", "metric": "cosine", "dim": 128,
        "full": {"n": 100000, "data": ["--dataset=synthetic", "--n=100000", "--dim=128",
                                       "--clusters=1000", "--noise=3", "--queries=1000"]},
        "quick": {"n": 10000, "data": ["--dataset=synthetic", "--n=10000", "--dim=128",
                                       "--clusters=100", "--noise=3", "--queries=200"]},
    },
    # 1536 dims (OpenAI-embedding size), sized for minutes on 2 shared cores: a load of
    # 50,000 took 124 s there (400 vectors/s), and the bench loads each set 4 times.
    # noise 6, the harder of the engine benchmark's two 1536 variants.
    "syn1536": {
        "title": "synthetic clustered unit vectors, 20,000 x 1536, cosine",
        "dialect": "vadd", "metric": "cosine", "dim": 1536,
        "full": {"n": 20000, "data": ["--dataset=synthetic", "--n=20000", "--dim=1536",
                                      "--clusters=200", "--noise=6", "--queries=500"]},
        "quick": {"n": 3000, "data": ["--dataset=synthetic", "--n=3000", "--dim=1536",
                                      "--clusters=30", "--noise=6", "--queries=100"]},
    },
}
CONFIGS = {"default": [], "t1": ["--threads", "1"]}


class Run:
    def __init__(self, args):
        self.quick = args.quick
        self.build = Path(args.build_dir).resolve()
        self.tool = self.build / "bench" / "vector" / "vector_server_bench"
        self.engine_tool = self.build / "bench" / "vector" / "vector_engine_bench"
        self.server_bin = self.build / "hotkv-server"
        self.sets = args.sets.split(",")
        self.configs = args.configs.split(",")
        self.reps = args.reps or (1 if self.quick else 3)
        self.min_seconds = args.min_seconds or (0.3 if self.quick else 1.0)
        self.clients = [1, 4, 16] if self.quick else CLIENTS
        # --threads 1 is the control for the thread-scaling comparison: fewer points.
        self.t1_clients = [1, 4, 16]
        self.load_conns = [1, 4] if self.quick else [1, 2, 4]
        self.t1_load_conns = 4
        self.engine = not args.no_engine and self.engine_tool.exists()
        if args.resume:
            self.outdir = Path(args.resume).resolve()
        else:
            stamp = datetime.datetime.now().strftime("%Y-%m-%d_%H%M%S")
            self.outdir = REPO / "bench" / "results" / f"vector-server_{stamp}{'-quick' if self.quick else ''}"
        self.rawdir = self.outdir / "raw"
        self.rawdir.mkdir(parents=True, exist_ok=True)
        self.cpus = os.cpu_count()

    def size(self, name):
        return SETS[name]["quick" if self.quick else "full"]

    def settings(self):
        return {"quick": self.quick, "reps": self.reps, "min_seconds": self.min_seconds,
                "efs": EFS, "clients": self.clients, "t1_clients": self.t1_clients, "load_conns": self.load_conns,
                "t1_load_conns": self.t1_load_conns, "pipeline": 16, "sets": self.sets,
                "configs": self.configs, "engine_check": self.engine}


def sh(cmd):
    try:
        return subprocess.run(cmd, shell=True, capture_output=True, text=True, timeout=30).stdout.strip()
    except subprocess.SubprocessError:
        return "?"


def machine_facts(run):
    lscpu = {}
    for line in sh("LC_ALL=C lscpu").splitlines():
        k, _, v = line.partition(":")
        lscpu[k.strip()] = v.strip()
    flags = lscpu.get("Flags", "").split()
    effective = "?"
    cc = run.build / "compile_commands.json"
    if cc.exists():
        for entry in json.loads(cc.read_text()):
            if entry["file"].endswith("src/vector/hnsw_index.cc"):
                effective = " ".join(w for w in entry["command"].split()[1:]
                                     if w.startswith(("-O", "-D", "-f", "-m", "-g", "-std")))
    cache = (run.build / "CMakeCache.txt").read_text() if (run.build / "CMakeCache.txt").exists() else ""
    m = re.search(r"^CMAKE_BUILD_TYPE:\w+=(.*)$", cache, re.M)
    mi = re.search(r"^MIMALLOC_LIB:\w+=(.*)$", cache, re.M)
    return {
        "date": datetime.datetime.now().astimezone().isoformat(timespec="seconds"),
        "cpu_model": lscpu.get("Model name", "?"), "cpus": lscpu.get("CPU(s)", "?"),
        "threads_per_core": lscpu.get("Thread(s) per core", "?"),
        "mhz": lscpu.get("CPU max MHz") or lscpu.get("CPU MHz", "?"),
        "avx512": "avx512f" in flags, "avx2": "avx2" in flags,
        "kernel": platform.release(), "mem_total": sh("free -g | awk '/Mem:/{print $2}'") + " GiB",
        "compiler": sh("c++ --version | head -1"),
        "build_type": m.group(1) if m else "?", "effective_flags": effective,
        "allocator": ("mimalloc (" + mi.group(1) + ")") if mi and "NOTFOUND" not in mi.group(1) else "glibc malloc",
        "git": sh(f"git -C {REPO} rev-parse --short HEAD") +
               (" (with uncommitted changes)" if sh(f"git -C {REPO} status --porcelain -- src bench/vector CMakeLists.txt") else ""),
        "git_branch": sh(f"git -C {REPO} rev-parse --abbrev-ref HEAD"),
        "hotkv_version": sh(f"{run.server_bin} --version"),
    }


def tool(run, argv, logname, timeout):
    """Runs vector_server_bench (or the engine bench); its stderr goes to a log and to our
    stderr (progress bars); returns the lines of its stdout (JSON for vector_server_bench)."""
    argv = [str(a) for a in argv]
    log("run: " + " ".join(argv))
    with open(run.rawdir / logname, "a") as errf:
        errf.write("$ " + " ".join(argv) + "\n")
        errf.flush()
        p = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                             cwd=REPO)
        timer = threading.Timer(timeout, p.kill)
        timer.start()

        def pump():
            for line in p.stderr:
                sys.stderr.write(line)
                sys.stderr.flush()
                errf.write(line)

        t = threading.Thread(target=pump, daemon=True)
        t.start()
        out = p.stdout.read()
        p.wait()
        t.join()
        timer.cancel()
        errf.write(out)
    if p.returncode != 0:
        raise RuntimeError(f"exit {p.returncode}: {' '.join(argv)} (see {run.rawdir / logname})")
    return out.splitlines()


def start_server(run, config, tag):
    argv = [str(run.server_bin), "--port", "{port}", "--bind", "127.0.0.1"] + CONFIGS[config]
    # No pinning: the server may use every core (the scaling target needs both), and the
    # client shares them; its CPU share is reported with every point.
    s = Server(f"hotkv-{config}-{tag}", argv, f"0-{run.cpus - 1}", run.rawdir).start()
    m = re.search(r"(\d+) worker threads", s.logpath.read_text())
    s.worker_threads = int(m.group(1)) if m else None
    return s


def info_memory(server, key, dialect):
    """Engine accounting: MEMORY USAGE and VSIM.INFO memory_bytes."""
    out = {}
    try:
        out["memory_usage"] = int(server.cli("MEMORY", "USAGE", key).strip() or -1)
    except (RuntimeError, ValueError):
        out["memory_usage"] = None
    lines = server.cli("VSIM.INFO", key, check=False).splitlines()
    for k, v in zip(lines[0::2], lines[1::2]):
        out["vsim_info_" + k] = v
    out["used_memory"] = None
    for line in server.cli("INFO", "memory", check=False).splitlines():
        if line.startswith("used_memory:"):
            out["used_memory"] = int(line.split(":")[1])
    return out


def wait_quiet(server, limit=10.0):
    """Waits (up to `limit` s) until the server uses < 3 % of a core over 0.5 s."""
    from common import proc_cpu_s
    deadline = time.time() + limit
    while time.time() < deadline:
        a = proc_cpu_s(server.pid)
        time.sleep(0.5)
        if proc_cpu_s(server.pid) - a < 0.015:
            return


def load_once(run, name, config, conns, keep):
    spec, size = SETS[name], run.size(name)
    key = f"vbench:{name}"
    server = start_server(run, config, f"{name}-c{conns}")
    try:
        time.sleep(0.5)
        empty_kb = server.rss_kb()
        lines = tool(run, [run.tool, "load", f"--port={server.port}", f"--key={key}",
                           f"--dialect={spec['dialect']}", f"--conns={conns}", "--pipeline=16",
                           f"--server-pid={server.pid}"] + size["data"],
                     f"{name}-{config}.log", timeout=1800)
        res = json.loads(lines[-1])
        wait_quiet(server)
        loaded_kb = server.rss_kb()
        half_kb, at_half, end_kb = res.get("rss_half_kb", -1), res.get("done_at_half", 0), res.get("rss_end_kb", -1)
        marginal = ((end_kb - half_kb) * 1024 / (res["n"] - at_half)
                    if half_kb > 0 and end_kb > 0 and res["n"] > at_half else None)
        res.update(config=config, empty_rss_kb=empty_kb, loaded_rss_kb=loaded_kb,
                   rss_bytes_per_vector=(loaded_kb - empty_kb) * 1024 / size["n"],
                   rss_marginal_bytes_per_vector=marginal,
                   worker_threads=server.worker_threads, loadavg=loadavg(),
                   **info_memory(server, key, spec["dialect"]))
        log(f"{name}/{config}: {conns} conns {res['rate']:.0f} vectors/s, RSS "
            f"{empty_kb} -> {loaded_kb} kB = {res['rss_bytes_per_vector']:.0f} B/vector"
            + (f", second half {marginal:.0f} B/vector" if marginal else ""))
        if not res["ok"]:
            raise RuntimeError(f"load failed: {res}")
    except BaseException:
        server.stop()
        raise
    if keep:
        return res, server
    server.stop()
    return res, None


def query(run, name, config, server):
    spec, size = SETS[name], run.size(name)
    lines = tool(run, [run.tool, "query", f"--port={server.port}", f"--key=vbench:{name}",
                       f"--dialect={spec['dialect']}", f"--server-pid={server.pid}",
                       "--ef=" + ",".join(map(str, EFS)),
                       "--clients=" + ",".join(map(str, run.clients if config == "default" else run.t1_clients)),
                       f"--reps={run.reps}", f"--min-seconds={run.min_seconds}"] + size["data"],
                 f"{name}-{config}.log", timeout=3600)
    return [json.loads(x) for x in lines if x.startswith("{")]


def part_path(run, name, config):
    return run.outdir / f"part-{name}-{config}.json"


def measure(run, name, config):
    """Loads (fresh server per loader-connection count) and queries one set on one config."""
    path = part_path(run, name, config)
    if path.exists():
        log(f"{name}/{config}: already measured ({path.name}), skipped")
        return json.loads(path.read_text())
    part = {"set": name, "config": config, "loadavg_before": loadavg(), "loads": []}
    conns_list = run.load_conns if config == "default" else [run.t1_load_conns]
    server = None
    for i, conns in enumerate(conns_list):
        res, server = load_once(run, name, config, conns, keep=(i == len(conns_list) - 1))
        part["loads"].append(res)
    try:
        part["worker_threads"] = server.worker_threads
        part["points"] = query(run, name, config, server)
        part["rss_after_queries_kb"] = server.rss_kb()
    finally:
        server.stop()
    part["loadavg_after"] = loadavg()
    path.write_text(json.dumps(part, indent=1))
    return part


def engine_check(run, name):
    """The in-process engine (vector_engine_bench --skip-hnswlib) on the same data and
    queries: recall@10 and queries per CPU-second at each ef, single thread."""
    path = run.outdir / f"engine-{name}.json"
    if path.exists():
        return json.loads(path.read_text())
    size = run.size(name)
    argv = [run.engine_tool] + size["data"] + ["--ef=" + ",".join(map(str, EFS)), "--reps=1",
                                               "--build-reps=1", "--skip-hnswlib"]
    out = tool(run, argv, f"engine-{name}.log", timeout=1800)
    res = {"command": " ".join(str(a) for a in argv), "ef": {}, "build": None}
    for line in out:
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) >= 4 and cells[0].isdigit() and int(cells[0]) in EFS:
            res["ef"][cells[0]] = {"recall": float(cells[1]),
                                   "q_per_cpu_s": float(cells[2].split()[0]),
                                   "q_per_s_wall": float(cells[3].split()[0])}
        elif len(cells) >= 6 and cells[0] == "hotkv":
            res["build"] = {"vectors_per_cpu_s_1t": float(cells[1].split()[0]),
                            "vectors_per_s_1t": float(cells[2].split()[0]),
                            "vectors_per_s_2t": float(cells[3].split()[0]),
                            "bytes_per_vector_malloc": float(cells[4].split()[0]),
                            "bytes_per_vector_engine": float(cells[5].split(";")[0])}
    path.write_text(json.dumps(res, indent=1))
    return res


# ---------------------------------------------------------------------------------------
# Report


def med(xs):
    return statistics.median(xs) if xs else float("nan")


def rng(xs, fmt="{:.0f}"):
    if not xs:
        return "-"
    if len(xs) == 1:
        return fmt.format(xs[0])
    return f"{fmt.format(med(xs))} [{fmt.format(min(xs))}-{fmt.format(max(xs))}]"


def grid(points):
    """{(ef, clients): [points of every rep]}"""
    g = {}
    for p in points:
        g.setdefault((p["ef"], p["clients"]), []).append(p)
    return g


def targets(results):
    """The issue's three targets per set, from the default-threads configuration."""
    out = {}
    for name, parts in results["parts"].items():
        d = parts.get("default")
        if not d:
            continue
        g = grid(d["points"])
        scal, cores16, cpu_ratio = {}, {}, {}
        for ef in EFS:
            if (ef, 1) in g and (ef, 16) in g:
                q1 = med([p["qps"] for p in g[(ef, 1)]])
                q16 = med([p["qps"] for p in g[(ef, 16)]])
                scal[ef] = q16 / q1
                cores16[ef] = med([p["server_cpu_s"] / p["seconds"] for p in g[(ef, 16)]])
                us1 = med([p["server_cpu_s"] / p["queries"] for p in g[(ef, 1)]])
                us16 = med([p["server_cpu_s"] / p["queries"] for p in g[(ef, 16)]])
                cpu_ratio[ef] = us16 / us1
        dim = SETS[name]["dim"]
        bpv = med([x["rss_bytes_per_vector"] for x in d["loads"]])
        margs = [x["rss_marginal_bytes_per_vector"] for x in d["loads"]
                 if x.get("rss_marginal_bytes_per_vector")]
        mbpv = med(margs) if margs else None
        rec = {}
        eng = results.get("engine", {}).get(name)
        for ef in EFS:
            if (ef, 1) in g:
                server_recall = g[(ef, 1)][0]["recall"]
                engine_recall = eng["ef"].get(str(ef), {}).get("recall") if eng else None
                rec[ef] = (server_recall, engine_recall)
        out[name] = {"scaling": scal, "cores16": cores16, "cpu_ratio": cpu_ratio, "bytes_per_vector": bpv, "marginal_bytes_per_vector": mbpv,
                     "bytes_limit": 4 * dim + 200,
                     "recall": rec}
    return out


def render(results):
    f, s = results["facts"], results["settings"]
    L = []
    w = L.append
    quick = " (quick smoke run: small subsets, numbers not for quoting)" if s["quick"] else ""
    w(f"## Vector search through the server — {f['date'][:10]}{quick}\n")
    w("Issue 6. `bench/vector/run_server_bench.sh` (see `bench/vector/README.md`): "
      "`hotkv-server` on 127.0.0.1, loaded over pipelined connections by "
      "`vector_server_bench load`, queried by `vector_server_bench query` (one thread, "
      "epoll, closed loop: one query in flight per client connection). recall@10 against "
      "exact neighbours computed by brute force in double precision "
      "(`bench/vector/bench_data.cc`, cached under `bench/vector/data/`). HNSW M=16, "
      "ef_construction=200, float32 storage, top-10.\n")
    w("### Machine, build, load\n")
    w(f"- CPU: {f['cpu_model']}, {f['cpus']} CPUs ({f['threads_per_core']} thread/core), "
      f"AVX-512: {'yes' if f['avx512'] else 'no'}; RAM {f['mem_total']}; "
      f"kernel {f['kernel']}.")
    w(f"- Build: {f['build_type']} (`{f['effective_flags']}`), {f['compiler']}, allocator "
      f"{f['allocator']}; git {f['git']} on `{f['git_branch']}`; {f['hotkv_version']}.")
    w(f"- Servers: default thread count ({results.get('default_threads', '?')} worker threads) "
      "and `--threads 1`; neither server nor client is pinned (the server must be free to use "
      "both cores; the client shares them, its CPU is shown). Persistence is not involved.")
    w(f"- Load average (1/5/15 min) before: **{f['loadavg_before']}**, after: "
      f"**{f.get('loadavg_after', '?')}**; per part in the tables below. "
      + ("**The machine was shared and busy** (load above its 2 cores) — other developers' "
         "builds and benchmarks ran alongside; wall-clock rates understate the server, the "
         "server-CPU-per-query figures are the load-independent ones."
         if max(float(f["loadavg_before"].split()[0]), float(f.get("loadavg_after", "0 0 0").split()[0])) > 1.5
         else "The machine was quiet."))
    w(f"- Settings: {s['reps']} repetition(s) per point (median, [min-max]; the order of ef "
      f"and client counts reverses each repetition), each point runs every held-out query "
      f"at least once and lasts at least {s['min_seconds']} s (queries repeat in order); "
      f"recall over the distinct queries. Loader: {s['pipeline']} commands in flight per "
      f"connection, a fresh server per loader-connection count.")
    w(f"- Total wall time: {results.get('wall_minutes', '?')} min.\n")
    w("Exact commands (per part, ports vary): in `bench/results/" + results["outdir_name"]
      + "/raw/*.log` (each line starting with `$`); the server: `hotkv-server --port P --bind "
      "127.0.0.1 [--threads 1]`.\n")

    tg = targets(results)
    if tg:
        w("### Targets (issue 6)\n")
        w("| data set | 16 clients / 1 client q/s (default threads; target ≥ 1.8), per ef 40/80/150/300/500 "
          "| server cores used at 16 clients; server CPU per query 16 clients / 1 client "
          "| recall@10 server vs in-process engine, ef 40/80/150/300/500 "
          "| bytes/vector, RSS growth over the whole load ÷ n; over the second half ÷ n/2 "
          "(target ≤ 4·dim+200) |")
        w("|---|---|---|---|---|")
        for name, t in tg.items():
            sc = " / ".join(f"{t['scaling'][ef]:.2f}" for ef in EFS if ef in t["scaling"])
            ok = all(v >= 1.8 for v in t["scaling"].values()) if t["scaling"] else None
            mn = min(t["scaling"].values()) if t["scaling"] else float("nan")
            rc = []
            worst = 0.0
            for ef in EFS:
                if ef in t["recall"]:
                    sr, er = t["recall"][ef]
                    rc.append(f"{sr:.4f} vs {er:.4f}" if er is not None else f"{sr:.4f} vs -")
                    if er is not None:
                        worst = max(worst, er - sr)
            bpv, lim = t["bytes_per_vector"], t["bytes_limit"]
            cores = " / ".join(f"{t['cores16'][ef]:.2f}" for ef in EFS if ef in t["cores16"])
            cpur = " / ".join(f"{t['cpu_ratio'][ef]:.2f}" for ef in EFS if ef in t["cpu_ratio"])
            w(f"| {name} | {sc}: **{'met' if ok else 'not met'}** (lowest {mn:.2f}) "
              f"| {cores}; {cpur} "
              f"| {'; '.join(rc)} (largest shortfall {worst:.4f}) "
              f"| {bpv:.0f} vs {lim}: **{'met' if bpv <= lim else 'not met'}** "
              f"({(bpv - lim):+.0f} B, {100 * (bpv - lim) / lim:+.1f} %)"
              + (f"; second half {t['marginal_bytes_per_vector']:.0f}: "
                 f"**{'met' if t['marginal_bytes_per_vector'] <= lim else 'not met'}**"
                 if t.get("marginal_bytes_per_vector") else "") + " |")
        w("")

    for name in s["sets"]:
        parts = results["parts"].get(name)
        if not parts:
            continue
        spec = SETS[name]
        any_part = next(iter(parts.values()))
        n = any_part["loads"][0]["n"]
        ds = any_part["loads"][0]["dataset"]
        w(f"### {spec['title']}" + (f" (quick subset: {n} vectors)" if s["quick"] else "") + "\n")
        dialect = spec["dialect"]
        if dialect == "vsim":
            w(f"Data set `{ds}`. L2 needs the HotKV dialect (Redis-dialect `VADD` sets are always "
              "cosine): `VSIM.CREATEINDEX key DIM 784 METRIC L2 TYPE FLOAT32 M 16 EF_CONSTRUCTION "
              "200`, `VSIM.SET key <i> FP32 <blob>`, queries `VSIM.SEARCH key FP32 <blob> K 10 EF "
              "<ef>`.\n")
        else:
            w(f"Data set `{ds}`. Redis 8 dialect: `VADD key FP32 <blob> <i> NOQUANT EF 200 M 16`, "
              "queries `VSIM key FP32 <blob> COUNT 10 EF <ef>`.\n")
        w("Loading (build rate through the server; RSS = VmRSS of the loaded server minus the "
          "same server's when empty, ÷ n; the second-half figure is the VmRSS growth while the "
          "second half of the vectors went in, ÷ their number: the marginal cost of a vector, "
          "without the fixed costs the first requests bring into memory, such as the workers' "
          "4 MB of receive buffers):\n")
        w("| server | loader conns | vectors/s | server CPU-s per 1000 vectors | loaded RSS (MiB) "
          "| bytes/vector (RSS) | bytes/vector (RSS growth over the second half of the load) "
          "| bytes/vector (MEMORY USAGE) | bytes/vector (INFO used_memory = mimalloc commit) | load avg |")
        w("|---|---|---|---|---|---|---|---|---|---|")
        for config in s["configs"]:
            p = parts.get(config)
            if not p:
                continue
            for ld in p["loads"]:
                mu = ld.get("memory_usage")
                um = ld.get("used_memory")
                w(f"| {config_label(config, p)} | {ld['conns']} | {ld['rate']:.0f} "
                  f"| {1000 * ld['server_cpu_s'] / ld['n']:.2f} | {ld['loaded_rss_kb'] / 1024:.1f} "
                  f"| {ld['rss_bytes_per_vector']:.0f} "
                  f"| {ld.get('rss_marginal_bytes_per_vector') or float('nan'):.0f} "
                  f"| {mu / ld['n'] if mu else float('nan'):.0f} "
                  f"| {um / ld['n'] if um else float('nan'):.0f} | {ld['loadavg']} |")
        eng = results.get("engine", {}).get(name)
        if eng and eng.get("build"):
            b = eng["build"]
            w(f"\nIn-process engine on the same data (`{eng['command']}`): build "
              f"{b['vectors_per_s_1t']:.0f} vectors/s wall with 1 thread "
              f"({b['vectors_per_cpu_s_1t']:.0f} per CPU-s), {b['vectors_per_s_2t']:.0f} with 2; "
              f"{b['bytes_per_vector_malloc']:.0f} bytes/vector (glibc malloc + mapped chunks), "
              f"{b['bytes_per_vector_engine']:.0f} (engine's own accounting).")
        w("")
        for config in s["configs"]:
            p = parts.get(config)
            if not p:
                continue
            g = grid(p["points"])
            w(f"Queries, {config_label(config, p)} (load average {p['loadavg_before']} → "
              f"{p['loadavg_after']}); q/s median [min-max] of the repetitions, latency "
              "p50/p99 from the median repetition, server cores = server CPU-s per wall-s, "
              "server µs CPU per query:\n")
            w("| ef | recall@10 | clients | q/s | p50 ms | p99 ms | server cores | client cores "
              "| server µs CPU/query |")
            w("|---|---|---|---|---|---|---|---|---|")
            for ef in EFS:
                for c in s["clients"]:
                    pts = g.get((ef, c))
                    if not pts:
                        continue
                    qps = [x["qps"] for x in pts]
                    mid = sorted(pts, key=lambda x: x["qps"])[len(pts) // 2]
                    srv = med([x["server_cpu_s"] / x["seconds"] for x in pts])
                    cli = med([x["client_cpu_s"] / x["seconds"] for x in pts])
                    us = med([1e6 * x["server_cpu_s"] / x["queries"] for x in pts])
                    w(f"| {ef} | {pts[0]['recall']:.4f} | {c} | {rng(qps)} | {mid['p50_us'] / 1000:.2f} "
                      f"| {mid['p99_us'] / 1000:.2f} | {srv:.2f} | {cli:.2f} | {us:.0f} |")
            w("")
        if eng and eng.get("ef"):
            w("Recall and CPU per query: server vs in-process engine (single thread, same data "
              "and queries; the engine's figure is its thread's CPU time, the server's the whole "
              "process's CPU per query at 1 client, default threads):\n")
            w("| ef | engine recall@10 | server recall@10 | engine µs CPU/query | server µs CPU/query (1 client) | server overhead |")
            w("|---|---|---|---|---|---|")
            d = parts.get("default")
            g = grid(d["points"]) if d else {}
            for ef in EFS:
                e = eng["ef"].get(str(ef))
                pts = g.get((ef, 1))
                if not e or not pts:
                    continue
                e_us = 1e6 / e["q_per_cpu_s"]
                s_us = med([1e6 * x["server_cpu_s"] / x["queries"] for x in pts])
                w(f"| {ef} | {e['recall']:.4f} | {pts[0]['recall']:.4f} | {e_us:.0f} | {s_us:.0f} "
                  f"| {s_us - e_us:+.0f} µs ({100 * (s_us - e_us) / e_us:+.0f} %) |")
            w("")
        # Matched-recall comparison of the two server configurations.
        if "default" in parts and "t1" in parts:
            w("Thread scaling at matched ef (same recall): best q/s over client counts, "
              "default threads vs `--threads 1`:\n")
            w("| ef | recall@10 | default: 1 client | default: 16 clients | default: best | --threads 1: 1 client | --threads 1: best | default best / t1 best |")
            w("|---|---|---|---|---|---|---|---|")
            gd, gt1 = grid(parts["default"]["points"]), grid(parts["t1"]["points"])
            for ef in EFS:
                def q(g, c):
                    return med([x["qps"] for x in g.get((ef, c), [])]) if g.get((ef, c)) else float("nan")
                bd = max(q(gd, c) for c in s["clients"] if gd.get((ef, c)))
                bt = max(q(gt1, c) for c in s["clients"] if gt1.get((ef, c)))
                w(f"| {ef} | {gd[(ef, 1)][0]['recall']:.4f} | {q(gd, 1):.0f} | {q(gd, 16):.0f} | {bd:.0f} "
                  f"| {q(gt1, 1):.0f} | {bt:.0f} | {bd / bt:.2f} |")
            w("")
    if results.get("problems"):
        w("### Problems seen\n")
        for p in results["problems"]:
            w(f"- {p}")
        w("")
    return "\n".join(L) + "\n"


def config_label(config, part):
    t = part.get("worker_threads")
    return f"default ({t} threads)" if config == "default" else "--threads 1"


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--build-dir", default="build/release")
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--sets", default="fashion,syn128,syn1536")
    ap.add_argument("--configs", default="default,t1")
    ap.add_argument("--reps", type=int, default=0)
    ap.add_argument("--min-seconds", type=float, default=0,
                    help="shortest measurement point (default 1.0 s, --quick 0.3 s)")
    ap.add_argument("--no-engine", action="store_true", help="skip the in-process engine recall check")
    ap.add_argument("--record", action="store_true", help="write summary.md for a --quick run too")
    ap.add_argument("--no-record", action="store_true", help="do not write summary.md for a full run")
    ap.add_argument("--resume", help="continue an interrupted run in this results directory")
    ap.add_argument("--render", help="re-render results.md of a finished run directory and exit")
    args = ap.parse_args()
    if args.render:
        d = Path(args.render).resolve()
        results = json.loads((d / "results.json").read_text())
        (d / "results.md").write_text(render(results))
        print(render(results))
        return 0
    if args.resume:
        saved = json.loads((Path(args.resume) / "settings.json").read_text())
        args.quick = saved["quick"]
        args.reps = args.reps or saved["reps"]
        args.min_seconds = args.min_seconds or saved["min_seconds"]
    run = Run(args)
    (run.outdir / "settings.json").write_text(json.dumps(run.settings(), indent=1))
    facts_path = run.outdir / "facts.json"
    if facts_path.exists():
        facts = json.loads(facts_path.read_text())
    else:
        facts = machine_facts(run)
        facts["loadavg_before"] = loadavg()
        facts["start_time"] = time.time()
        facts_path.write_text(json.dumps(facts, indent=1))
    log(f"results in {run.outdir}; load average {loadavg()}")
    results = {"facts": facts, "settings": run.settings(), "parts": {}, "engine": {},
               "problems": [], "outdir_name": run.outdir.name}
    try:
        for name in run.sets:
            for config in run.configs:
                part = measure(run, name, config)
                results["parts"].setdefault(name, {})[config] = part
                if config == "default":
                    results["default_threads"] = part["worker_threads"]
                for ld in part["loads"]:
                    if ld.get("errors"):
                        results["problems"].append(f"{name}/{config}: load errors: {ld['first_error']}")
            # vector_engine_bench cannot take a prefix of Fashion-MNIST, so a quick run
            # (10,000 of its vectors) has no engine figures to compare with.
            if run.engine and not (run.quick and name == "fashion"):
                results["engine"][name] = engine_check(run, name)
    finally:
        stop_all()
    facts["loadavg_after"] = loadavg()
    facts["wall_minutes"] = round((time.time() - facts["start_time"]) / 60, 1)
    results["wall_minutes"] = facts["wall_minutes"]
    facts_path.write_text(json.dumps(facts, indent=1))
    (run.outdir / "results.json").write_text(json.dumps(results, indent=1))
    md = render(results)
    (run.outdir / "results.md").write_text(md)
    print(md)
    # The run's recorded report stays in its folder; bench/RESULTS.md holds the current
    # figure of each area and is updated by hand.
    if (not run.quick and not args.no_record) or (run.quick and args.record):
        (run.outdir / "summary.md").write_text(md)
        log(f"recorded in {run.outdir / 'summary.md'}")
        log("bench/RESULTS.md is not touched: if this run is to become the current vector "
            "figure, update that table there by hand (and name this run folder)")
    log(f"done in {facts['wall_minutes']} min; load average {facts['loadavg_after']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
