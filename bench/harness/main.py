#!/usr/bin/env python3
"""HotKV vs redis-server benchmark harness (called by bench/run.sh; see bench/README.md).

    python3 bench/harness/main.py --build-dir build/release [--quick] [--only cpu,sweep,memory,prefetch]
                                  [--reps N] [--sweep-reps N] [--record | --no-record]
                                  [--redis8 PATH]
"""
import argparse
import datetime
import json
import platform
import signal
import subprocess
import sys
import time
import traceback
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import REPO, CommandLog, loadavg, log, stop_all  # noqa: E402
import report  # noqa: E402
import servers  # noqa: E402
from servers import HOTKV_BASELINE, HOTKV_EXTRA_ARGS, redis_version  # noqa: E402

PARTS = ["cpu", "sweep", "memory", "prefetch"]


class Context:
    """Settings of one harness run, plus what it learns on the way (facts, problems)."""

    def __init__(self, args):
        q = args.quick
        self.quick = q
        self.build_dir = Path(args.build_dir).resolve()
        self.loadgen = self.build_dir / "tools" / "loadgen" / "hotkv-loadgen"
        self.server_core, self.client_core = args.server_core, args.client_core
        self.clients, self.pipeline, self.value_size = 50, 30, 256
        self.reps = args.reps or (1 if q else 3)
        # Part 1: "per-command" (a fresh, preloaded server for each command) or "shared".
        self.cpu_server = args.cpu_server
        # Part 1: keyspace (preloaded, and -r), requests per run (MGET/MSET: 10 keys each).
        self.keys = 100_000 if q else 1_000_000
        self.n = 100_000 if q else 1_000_000
        self.n_multi = 20_000 if q else 200_000
        # Parts 2 and 3.
        self.mem_keys = 100_000 if q else 1_000_000
        self.sweep_conns = [50, 500]
        self.sweep_rates = ([20_000, 100_000, 400_000] if q else
                            [20_000, 50_000, 100_000, 200_000, 400_000, 600_000, 800_000,
                             1_000_000, 1_500_000])
        self.sweep_duration = 1 if q else 5
        self.sweep_warmup = 0.5 if q else 1
        # Runs of every sweep step on every server (medians reported; see sweep.py).
        self.sweep_reps = args.sweep_reps or (1 if q else 3)
        # Part 4.
        self.prefetch_keys = 200_000 if q else 5_000_000
        self.prefetch_n = 100_000 if q else 2_000_000
        self.prefetch_pipelines = [30, 100]

        stamp = datetime.datetime.now().strftime("%Y-%m-%d_%H%M%S") + ("-quick" if q else "")
        self.stamp = stamp
        self.outdir = REPO / "bench" / "results" / stamp
        self.rawdir = self.outdir / "raw"
        self.rawdir.mkdir(parents=True, exist_ok=True)
        self.cmdlog = CommandLog(self.outdir / "commands.txt")
        self.facts = {}
        self.problems = []

    def problem(self, text):
        log("PROBLEM: " + text)
        self.problems.append(text)

    def settings(self):
        keys = ["quick", "reps", "cpu_server", "server_core", "client_core", "clients", "pipeline", "value_size",
                "keys", "n", "n_multi", "mem_keys", "sweep_conns", "sweep_rates", "sweep_duration",
                "sweep_warmup", "sweep_reps", "prefetch_keys", "prefetch_n", "prefetch_pipelines"]
        return {k: getattr(self, k) for k in keys}


def sh(cmd):
    try:
        return subprocess.run(cmd, shell=True, capture_output=True, text=True, timeout=30).stdout.strip()
    except subprocess.SubprocessError:
        return "?"


def machine_facts(ctx):
    lscpu = {}
    for line in sh("LC_ALL=C lscpu").splitlines():
        k, _, v = line.partition(":")
        lscpu[k.strip()] = v.strip()
    cache = {}
    cache_file = ctx.build_dir / "CMakeCache.txt"
    if cache_file.exists():
        for line in cache_file.read_text().splitlines():
            for name in ["CMAKE_BUILD_TYPE", "CMAKE_CXX_COMPILER", "CMAKE_CXX_FLAGS",
                         "CMAKE_CXX_FLAGS_RELEASE", "HOTKV_SANITIZE", "HOTKV_USE_MIMALLOC", "MIMALLOC_LIB",
                         "CMAKE_HOME_DIRECTORY"]:
                if line.startswith(name + ":"):
                    cache[name] = line.split("=", 1)[1]
    # The flags really used are those in compile_commands.json (a cache entry can be
    # shadowed by a normal variable).
    effective = "?"
    cc = ctx.build_dir / "compile_commands.json"
    if cc.exists():
        for entry in json.loads(cc.read_text()):
            if entry["file"].endswith("src/server/worker.cc"):
                effective = " ".join(w for w in entry["command"].split()[1:]
                                     if w.startswith(("-O", "-D", "-f", "-m", "-g", "-std")))
    src = cache.get("CMAKE_HOME_DIRECTORY", str(REPO))
    return {
        "date": datetime.datetime.now().astimezone().isoformat(timespec="seconds"),
        "cpu_model": lscpu.get("Model name", "?"), "cpus": lscpu.get("CPU(s)", "?"),
        "threads_per_core": lscpu.get("Thread(s) per core", "?"),
        "hypervisor": lscpu.get("Hypervisor vendor") or
                      ("yes (vendor not shown)" if "hypervisor" in lscpu.get("Flags", "") else "none"),
        "kernel": platform.release(), "mem_total": sh("free -g | awk '/Mem:/{print $2}'") + " GiB",
        "compiler": sh(f"{cache.get('CMAKE_CXX_COMPILER', 'c++')} --version | head -1"),
        "cmake_cache": cache, "effective_flags": effective,
        # The source tree the measured build was made from (BUILD_DIR may belong to
        # another checkout or worktree than the harness's).
        "git": sh(f"git -C {src} rev-parse --short HEAD") +
               (" (with uncommitted changes)" if sh(f"git -C {src} status --porcelain -- src tools CMakeLists.txt") else ""),
        "git_branch": sh(f"git -C {src} rev-parse --abbrev-ref HEAD"),
        "hotkv_version": sh(f"{ctx.build_dir}/hotkv-server --version"),
        "redis_version": redis_version(),
        "redis8_path": servers.REDIS8 or "",
        "redis8_version": redis_version(servers.REDIS8) if servers.REDIS8 else "",
        "redis_benchmark_version": sh("redis-benchmark --version"),
    }


def render_again(outdir, record):
    results = json.loads((outdir / "results.json").read_text())

    class Saved:
        pass

    ctx = Saved()
    ctx.outdir, ctx.stamp, ctx.facts = outdir, outdir.name, results["facts"]
    ctx.quick = results["settings"]["quick"]
    ctx.problems = results["problems"]
    if results["facts"].get("redis8_path"):
        servers.use_redis8(results["facts"]["redis8_path"])
    ctx.problem = lambda text: (log("PROBLEM: " + text), ctx.problems.append(text))
    report.write_all(ctx, results, record)
    return 0


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--build-dir", default=str(REPO / "build" / "release"))
    ap.add_argument("--quick", action="store_true", help="short smoke run: small data, 1 repetition")
    ap.add_argument("--only", default=",".join(PARTS), help="comma-separated parts: " + ",".join(PARTS))
    ap.add_argument("--reps", type=int, default=0, help="repetitions (default 3, --quick 1)")
    ap.add_argument("--sweep-reps", type=int, default=0,
                    help="runs of each latency-sweep step per server (default 3, --quick 1)")
    ap.add_argument("--cpu-server", choices=["per-command", "shared"], default="per-command",
                    help="cpu part: a fresh, preloaded server for each command (default), or "
                         "one server per repetition for all 12 commands in turn")
    ap.add_argument("--redis8", metavar="PATH", default=None,
                    help="Redis 8.8 redis-server to measure beside Redis 7.0 (default: "
                         "$HOTKV_BENCH_REDIS8, else ../shared/peers/redis-8.8/redis-server when "
                         "present); 'none' leaves it out")
    ap.add_argument("--server-core", type=int, default=0)
    ap.add_argument("--client-core", type=int, default=1)
    rec = ap.add_mutually_exclusive_group()
    rec.add_argument("--record", dest="record", action="store_true", default=None,
                     help="write the section to <run folder>/summary.md (default unless --quick)")
    rec.add_argument("--no-record", dest="record", action="store_false")
    ap.add_argument("--render", metavar="DIR",
                    help="only redraw the charts and results.md of an earlier run from its "
                         "results.json (writes summary.md only with --record)")
    args = ap.parse_args()
    if args.render:
        return render_again(Path(args.render).resolve(), bool(args.record))
    parts = [p.strip() for p in args.only.split(",") if p.strip()]
    bad = [p for p in parts if p not in PARTS]
    if bad or not parts:
        ap.error(f"--only: unknown part(s) {bad}; choose from {PARTS}")
    record = (not args.quick) if args.record is None else args.record

    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    if args.redis8 != "none":
        r8 = servers.find_redis8(args.redis8)
        if args.redis8 and r8 is None:
            ap.error(f"--redis8 {args.redis8}: no such file")
        if r8 is None:
            log("Redis 8.8 not found (--redis8 PATH or HOTKV_BENCH_REDIS8): its columns are left out")
        servers.use_redis8(r8)
    ctx = Context(args)
    ctx.facts.update(machine_facts(ctx))
    ctx.facts["hotkv_extra_args"] = " ".join(HOTKV_EXTRA_ARGS)
    ctx.facts["hotkv_baseline"] = HOTKV_BASELINE
    ctx.facts["parts"] = parts
    ctx.facts["loadavg_before"] = loadavg()
    ctx.facts["uptime_before"] = sh("uptime")
    log(f"results in {ctx.outdir}; parts {parts}; load average {ctx.facts['loadavg_before']}")
    results = {"settings": ctx.settings(), "facts": ctx.facts, "problems": ctx.problems, "timing_s": {}}
    t_start = time.monotonic()
    try:
        for part in [p for p in PARTS if p in parts]:
            if part == "memory" and "sweep" in parts:
                continue  # measured together with the sweep (same loaded server)
            t0 = time.monotonic()
            la0 = loadavg()
            try:
                if part == "cpu":
                    from cpu import run_cpu
                    results["cpu_runs"], results["cpu_summary"] = run_cpu(ctx)
                elif part in ("sweep", "memory"):
                    from sweep import run_sweep_memory
                    results["sweep"], results["sweep_runs"], results["memory"] = \
                        run_sweep_memory(ctx, part == "sweep")
                elif part == "prefetch":
                    from prefetch import run_prefetch
                    results["prefetch_runs"], results["prefetch_summary"] = run_prefetch(ctx)
            except (KeyboardInterrupt, SystemExit):
                raise
            except Exception as e:  # noqa: BLE001 - report the part as failed, go on
                ctx.problem(f"part {part} failed: {e!r}")
                (ctx.rawdir / f"{part}-traceback.txt").write_text(traceback.format_exc())
                stop_all()
            name = "sweep+memory" if part == "sweep" and "memory" in parts else part
            results["timing_s"][name] = round(time.monotonic() - t0)
            ctx.facts.setdefault("loadavg_parts", {})[name] = f"{la0} -> {loadavg()}"
    finally:
        stop_all()
        results["timing_s"]["total"] = round(time.monotonic() - t_start)
        ctx.facts["loadavg_after"] = loadavg()
        ctx.facts["uptime_after"] = sh("uptime")
        results_json = ctx.outdir / "results.json"
        results_json.write_text(json.dumps(results, indent=1, default=str))
        report.write_all(ctx, results, record)
        results_json.write_text(json.dumps(results, indent=1, default=str))  # + chart problems
    return 1 if ctx.problems and any(p.startswith("part ") for p in ctx.problems) else 0


if __name__ == "__main__":
    sys.exit(main())
