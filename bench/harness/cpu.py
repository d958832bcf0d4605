"""Part 1: throughput and server CPU per operation for the 12 reference commands.

For each repetition and command, each configuration in turn (the order reverses every
repetition): start the server pinned to the server core, probe which commands it has,
preload the 1M `key:<12 digits>` keys, then one redis-benchmark run of the command,
pinned to the client core, bracketed by samples of the server's /proc/<pid>/stat.
`--cpu-server shared` runs all commands on one server per repetition instead (see run_cpu).
"""
import csv

from common import HOST, log, med_min_max, run_measured, settle
from load import preload_padded
from servers import CONFIGS, probe, start

COMMANDS = ["SET", "GET", "MGET", "SETNX", "APPEND", "INCR", "LPUSH", "RPUSH", "SADD",
            "HSET", "MSET", "PING"]
# Reads first, right after the preload, so that nothing but the preload is in the keyspace.
RUN_ORDER = ["GET", "MGET", "SET", "SETNX", "APPEND", "INCR", "LPUSH", "RPUSH", "SADD",
             "HSET", "MSET", "PING"]
# redis-benchmark's own tests (-t); the others are given as a command line.
BUILTIN = {"SET": "set", "GET": "get", "INCR": "incr", "LPUSH": "lpush", "RPUSH": "rpush",
           "SADD": "sadd", "HSET": "hset", "MSET": "mset", "PING": "ping_mbulk"}
MULTI_KEY = {"MGET": 10, "MSET": 10}  # keys per request (redis-benchmark's MSET has 10)


def rb_argv(ctx, port, cmd, n, keys, pipeline):
    argv = ["taskset", "-c", str(ctx.client_core), "redis-benchmark", "-h", HOST, "-p", str(port),
            "-c", str(ctx.clients), "-P", str(pipeline), "-d", str(ctx.value_size),
            "-r", str(keys), "-n", str(n), "--csv"]
    if cmd in BUILTIN:
        return argv + ["-t", BUILTIN[cmd]]
    value = "x" * ctx.value_size
    custom = {
        "MGET": ["MGET"] + ["key:__rand_int__"] * MULTI_KEY["MGET"],
        "SETNX": ["SETNX", "nxkey:__rand_int__", value],
        "APPEND": ["APPEND", "appkey:__rand_int__", value],
    }
    return argv + custom[cmd]


def parse_rps(stdout):
    rows = [r for r in csv.reader(stdout.splitlines()) if len(r) >= 2 and r[0] != "test"]
    try:
        return float(rows[-1][1])
    except (IndexError, ValueError):
        return None


def keyspace_stats(server):
    """(keyspace_hits, keyspace_misses) from INFO stats, or (None, None)."""
    info = dict(line.strip().split(":", 1) for line in server.cli("INFO", "stats", check=False).splitlines()
                if line.startswith("keyspace_"))
    try:
        return int(info["keyspace_hits"]), int(info["keyspace_misses"])
    except (KeyError, ValueError):
        return None, None


def run_benchmark(ctx, server, cmd, n, keys, pipeline, rawname):
    """One redis-benchmark run; a result row (without config/rep). For reads, the misses
    (INFO stats, sampled outside the measured window) must be 0: the preload has every key."""
    argv = rb_argv(ctx, server.port, cmd, n, keys, pipeline)
    ctx.cmdlog.add(argv, server.port)
    ks0 = keyspace_stats(server) if cmd in ("GET", "MGET") else (None, None)
    m = run_measured(argv, server, timeout=900)
    ks1 = keyspace_stats(server) if cmd in ("GET", "MGET") and server.alive() else (None, None)
    misses = ks1[1] - ks0[1] if None not in (ks0[1], ks1[1]) else None
    (ctx.rawdir / f"{rawname}.txt").write_text(
        " ".join(argv) + "\n" + m["stdout"] + "\n--- stderr\n" + m["stderr"])
    rps = parse_rps(m["stdout"])
    status, error = "ok", ""
    out = m["stdout"] + m["stderr"]
    if not server.alive():
        status, error = "error", f"server exited with {server.proc.returncode}"
    elif m["rc"] != 0 or rps is None or "Error" in out or "error" in out.lower():
        status = "error"
        error = next((l for l in out.splitlines() if "rror" in l), f"redis-benchmark rc {m['rc']}")
    return {
        "command": cmd, "n": n, "pipeline": pipeline, "rps": rps,
        "ns_per_op": m["server_cpu_s"] * 1e9 / n if status == "ok" else None,
        "wall_s": round(m["wall_s"], 3), "server_cpu_s": round(m["server_cpu_s"], 3),
        "gen_cpu_pct": round(m["gen_cpu_pct"], 1), "server_cpu_pct": round(m["server_cpu_pct"], 1),
        "foreign_pct": round(m["foreign_pct"], 1), "steal_pct": round(m["steal_pct"], 1),
        "misses": misses, "status": status, "error": error[:200],
    }


def run_cpu(ctx):
    """ctx.cpu_server "per-command": every command of every repetition on a server started
    and preloaded for it alone, the servers taking turns command by command (order
    reversed every repetition). "shared": one server per repetition runs all 12 commands
    in RUN_ORDER, each command on what the earlier ones left in memory.

    Why per-command is the default: on this VM the price of a fresh page depends on how
    much memory the process already took. The guest kernel keeps up to 1 GiB of freed
    pages unreported to the host (/sys/module/page_reporting/parameters/max_waiting_mib);
    past that, every new page costs a host fault, ~3x the kernel time per push
    (bench/notes/2026-11-30-seventh-stop-sweep-repeated-rpush-memory.md, "RPUSH after
    LPUSH"). In a shared server the commands that run after ~1 GB of growth (RPUSH for
    HotKV, LPUSH and RPUSH for Redis) pay it and the others do not: their figures depend
    on the run order, not only on the command."""
    rows = []
    commands = [[c] for c in RUN_ORDER] if ctx.cpu_server == "per-command" else [RUN_ORDER]
    for rep in range(ctx.reps):
        order = CONFIGS if rep % 2 == 0 else list(reversed(CONFIGS))
        for group in commands:
            for pos, config in enumerate(order):
                what = group[0] if len(group) == 1 else "all commands"
                log(f"cpu: repetition {rep + 1}/{ctx.reps}, {config}, {what}")
                rows += run_server_commands(ctx, config, rep, pos, group)
    return rows, summarize(rows)


def run_server_commands(ctx, config, rep, pos, group):
    """Starts `config`, preloads it, runs the commands of `group` in order, stops it."""
    rows = []
    server = start(ctx, config)
    try:
        support = probe(server, COMMANDS)
        preload_padded(server, ctx.keys, ctx.value_size, ctx.client_core, ctx.cmdlog)
        idle, waited = settle(server)
        if idle > 3:
            ctx.problem(f"cpu: {config} still used {idle:.0f} % of a core while idle, "
                        f"{waited:.0f} s after the preload")
        dead = False
        for cmd in group:
            base = {"config": config, "rep": rep, "order": pos, "idle_cpu_pct": round(idle, 2)}
            if support[cmd] != "ok" or dead:
                status = "error" if dead else support[cmd].split(":")[0]
                error = "server not running" if dead else support[cmd]
                rows.append({**base, "command": cmd, "status": status, "error": error})
                continue
            n = ctx.n_multi if cmd in MULTI_KEY else ctx.n
            row = run_benchmark(ctx, server, cmd, n, ctx.keys, ctx.pipeline,
                                f"cpu-{config}-r{rep}-{cmd}")
            row["rss_after_kb"] = server.rss_kb() if server.alive() else None
            rows.append({**base, **row})
            if row["misses"]:
                ctx.problem(f"cpu: {config} {cmd}: {row['misses']} keyspace misses (reads should all hit)")
            if row["status"] != "ok":
                ctx.problem(f"cpu: {config} {cmd} (repetition {rep + 1}): {row['error']}")
                dead = not server.alive()
            else:
                log(f"  {config:14} {cmd:6} {row['rps']:>10.0f} ops/s "
                    f"{row['ns_per_op']:7.0f} ns/op  gen {row['gen_cpu_pct']:.0f}%  "
                    f"server {row['server_cpu_pct']:.0f}%  other {row['foreign_pct']:.0f}%  "
                    f"RSS {(row['rss_after_kb'] or 0) / 1024:.0f} MiB")
    finally:
        rc = server.stop()
        if rc not in (0, None, -15):
            ctx.problem(f"cpu: {config} exited with status {rc} on SIGTERM (log {server.logpath})")
    return rows


def summarize(rows, keys=("command", "config")):
    groups = {}
    for r in rows:
        groups.setdefault(tuple(r[k] for k in keys), []).append(r)
    out = []
    for key, rs in groups.items():
        ok = [r for r in rs if r["status"] == "ok"]
        statuses = {r["status"] for r in rs}
        status = "ok" if statuses == {"ok"} else "unsupported" if "unsupported" in statuses \
            else "error" if not ok else "partial"
        rps = med_min_max([r["rps"] for r in ok])
        ns = med_min_max([r["ns_per_op"] for r in ok])
        gen = med_min_max([r["gen_cpu_pct"] for r in ok])
        srv = med_min_max([r["server_cpu_pct"] for r in ok])
        foreign = med_min_max([r["foreign_pct"] for r in ok])
        out.append({
            **dict(zip(keys, key)), "status": status, "runs": len(ok),
            "rps_med": rps[0], "rps_min": rps[1], "rps_max": rps[2],
            "ns_med": ns[0], "ns_min": ns[1], "ns_max": ns[2],
            "gen_cpu_med": gen[0], "gen_cpu_max": gen[2],
            "gen_saturated": any(r["gen_cpu_pct"] > 85 for r in ok),
            "server_cpu_med": srv[0], "foreign_med": foreign[0], "foreign_max": foreign[2],
            "error": next((r.get("error", "") for r in rs if r["status"] != "ok"), ""),
        })
    return out
