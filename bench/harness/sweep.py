"""Parts 2 and 3: memory after loading 1M keys, and the open-loop GET rate sweep.

Memory: one server at a time (pinned to the server core): RSS of the empty server, load
`key:0..N-1` with `hotkv-loadgen --load` (256-byte values), RSS again after a second of
rest.

Sweep (if asked): the loaded servers stay up, side by side on the server core, the ones
not being measured stopped (SIGSTOP: an idle neighbour's 10 Hz timers, woken on the same
core, roughly doubled the p99 of a 20k GET/s step), and every step — a connection count and a rate — runs
`ctx.sweep_reps` times on each server, the servers alternating within a repetition and
their order reversing from one repetition to the next, so that a burst of noise on this
shared machine lands on one run, not on one server. A step's figures are the medians of
its runs; it is sustained when most of its runs were (≥ 97 % of the asked rate, every
request answered). A server's sweep at a connection count stops after its first step
that is not sustained.
"""
import json
import statistics
import time

from common import HOST, log, run_measured
from load import preload_loadgen
from servers import CONFIGS, start


def sweep_run(ctx, server, conns, rate, rep):
    argv = ["taskset", "-c", str(ctx.client_core), str(ctx.loadgen), "--host", HOST,
            "--port", str(server.port), "--command", "get", "--rate", str(rate),
            "--connections", str(conns), "--duration", str(ctx.sweep_duration),
            "--warmup", str(ctx.sweep_warmup), "--keyspace", str(ctx.mem_keys), "--json"]
    if rep == 0:
        ctx.cmdlog.add(argv, server.port)
    m = run_measured(argv, server, timeout=ctx.sweep_duration + ctx.sweep_warmup + 120)
    try:
        res = json.loads(m["stdout"])
    except json.JSONDecodeError:
        res = {}
    lat = res.get("latency_us") or {}
    lag = res.get("send_lag_us") or {}
    run = {
        "config": server.name, "connections": conns, "rate": rate, "rep": rep,
        "achieved": res.get("achieved_rate"), "sustained": bool(res.get("sustained")),
        "p50_us": lat.get("p50"), "p99_us": lat.get("p99"), "p99_9_us": lat.get("p99_9"),
        "max_us": lat.get("max"), "send_lag_p99_us": lag.get("p99"),
        "loadgen_behind": res.get("loadgen_behind"), "loadgen_saturated": res.get("loadgen_saturated"),
        "loadgen_cpu_pct": res.get("loadgen_cpu_pct"),
        "errors": res.get("errors"), "unanswered": res.get("unanswered"),
        "conn_errors": res.get("conn_errors"),
        "server_cpu_pct": round(m["server_cpu_pct"], 1), "foreign_pct": round(m["foreign_pct"], 1),
        "rc": m["rc"], "first_error": (res.get("first_error") or res.get("first_conn_error") or
                                       ("" if res else m["stderr"][-200:]))[:200],
    }
    with open(ctx.rawdir / "sweep.jsonl", "a") as f:
        f.write(json.dumps({"config": server.name, "rep": rep, "argv": argv, "result": res}) + "\n")
    return run


def _median(values):
    values = [v for v in values if v is not None]
    return statistics.median(values) if values else None


def summarize_step(runs):
    """One row per (server, connections, rate) from its runs: medians, and the spread of p99."""
    ok = [r for r in runs if r["sustained"]]
    sustained = 2 * len(ok) > len(runs)
    basis = ok if sustained else runs
    first = runs[0]
    row = {
        "config": first["config"], "connections": first["connections"], "rate": first["rate"],
        "runs": len(runs), "runs_sustained": len(ok), "sustained": sustained,
        "achieved": _median([r["achieved"] for r in runs]),
        "loadgen_behind": sum(bool(r["loadgen_behind"]) for r in basis) * 2 > len(basis),
        "loadgen_saturated": sum(bool(r["loadgen_saturated"]) for r in basis) * 2 > len(basis),
        "errors": sum(r["errors"] or 0 for r in runs),
        "conn_errors": sum(r["conn_errors"] or 0 for r in runs),
        "first_error": next((r["first_error"] for r in runs if r["first_error"]), ""),
    }
    for key in ["p50_us", "p99_us", "p99_9_us", "max_us", "send_lag_p99_us", "loadgen_cpu_pct",
                "server_cpu_pct", "foreign_pct"]:
        row[key] = _median([r[key] for r in basis])
    p99s = [r["p99_us"] for r in basis if r["p99_us"] is not None]
    row["p99_min_us"] = min(p99s) if p99s else None
    row["p99_max_us"] = max(p99s) if p99s else None
    return row


def run_sweep_memory(ctx, do_sweep):
    """(summarized steps, every run, memory rows)."""
    memory, servers = [], {}
    try:
        for config in CONFIGS:
            server = start(ctx, config)
            servers[config] = server
            time.sleep(0.5)
            rss_empty = server.rss_kb()
            load = preload_loadgen(server, ctx.mem_keys, ctx.value_size, ctx.client_core,
                                   ctx.loadgen, ctx.cmdlog)
            time.sleep(1.0)
            rss_loaded = server.rss_kb()
            memory.append({
                "config": config, "keys": ctx.mem_keys, "value_size": ctx.value_size,
                "dbsize": load["dbsize"], "rss_empty_kb": rss_empty, "rss_loaded_kb": rss_loaded,
                "bytes_per_key": (rss_loaded - rss_empty) * 1024 / ctx.mem_keys,
                "load_keys_per_s": round(load["keys_per_s"]),
            })
            log(f"memory: {config}: RSS {rss_empty} kB empty, {rss_loaded} kB with {ctx.mem_keys} keys")
            if not do_sweep:
                stop_checked(ctx, servers.pop(config))
        steps, runs = (sweep(ctx, servers) if do_sweep else ([], []))
    finally:
        for server in servers.values():
            stop_checked(ctx, server)
    return steps, runs, memory


def stop_checked(ctx, server):
    rc = server.stop()
    if rc not in (0, None, -15):
        ctx.problem(f"sweep/memory: {server.name} exited with status {rc} (log {server.logpath})")


def sweep(ctx, servers):
    steps, runs = [], []
    for conns in ctx.sweep_conns:
        active = list(CONFIGS)
        for rate in ctx.sweep_rates:
            if not active:
                break
            by_config = {c: [] for c in active}
            for rep in range(ctx.sweep_reps):
                order = active if rep % 2 == 0 else list(reversed(active))
                for config in order:
                    server = servers[config]
                    if not server.alive():
                        continue
                    others = [o for c, o in servers.items() if c != config]
                    for o in others:
                        o.pause()
                    try:
                        run = sweep_run(ctx, server, conns, rate, rep)
                    finally:
                        for o in others:
                            o.resume()
                    runs.append(run)
                    by_config[config].append(run)
                    if run["errors"] or run["conn_errors"] or not server.alive():
                        ctx.problem(f"sweep: {config} c={conns} rate={rate} (run {rep + 1}): "
                                    f"errors={run['errors']} conn_errors={run['conn_errors']} "
                                    f"{run['first_error']}")
            for config in list(active):
                if not by_config[config]:
                    active.remove(config)
                    continue
                row = summarize_step(by_config[config])
                steps.append(row)
                p99 = f"{row['p99_us']:.0f}" if row["p99_us"] else "-"
                log(f"  sweep {config:14} c={conns:<4} rate {rate:>8} achieved "
                    f"{row['achieved'] or 0:>9.0f} sustained={row['sustained']} "
                    f"({row['runs_sustained']}/{row['runs']}) p99 {p99} us")
                if not row["sustained"] or not servers[config].alive():
                    active.remove(config)
    return steps, runs
