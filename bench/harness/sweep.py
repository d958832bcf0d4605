"""Parts 2 and 3: memory after loading 1M keys, and the open-loop GET rate sweep.

One server at a time (pinned to the server core): RSS of the empty server, load
`key:0..N-1` with `hotkv-loadgen --load` (256-byte values), RSS again after a second of
rest; then, if asked, a GET sweep with hotkv-loadgen (pinned to the client core) at each
connection count, rising rates, stopping after the first unsustained step.
"""
import json
import time

from common import HOST, log, run_measured
from load import preload_loadgen
from servers import CONFIGS, start


def sweep_step(ctx, server, conns, rate):
    argv = ["taskset", "-c", str(ctx.client_core), str(ctx.loadgen), "--host", HOST,
            "--port", str(server.port), "--command", "get", "--rate", str(rate),
            "--connections", str(conns), "--duration", str(ctx.sweep_duration),
            "--warmup", str(ctx.sweep_warmup), "--keyspace", str(ctx.mem_keys), "--json"]
    ctx.cmdlog.add(argv, server.port)
    m = run_measured(argv, server, timeout=ctx.sweep_duration + ctx.sweep_warmup + 120)
    try:
        res = json.loads(m["stdout"])
    except json.JSONDecodeError:
        res = {}
    lat = res.get("latency_us") or {}
    lag = res.get("send_lag_us") or {}
    row = {
        "config": server.name, "connections": conns, "rate": rate,
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
        f.write(json.dumps({"config": server.name, "argv": argv, "result": res}) + "\n")
    return row


def run_sweep_memory(ctx, do_sweep):
    steps, memory = [], []
    for config in CONFIGS:
        server = start(ctx, config)
        try:
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
                continue
            for conns in ctx.sweep_conns:
                for rate in ctx.sweep_rates:
                    row = sweep_step(ctx, server, conns, rate)
                    steps.append(row)
                    p99 = f"{row['p99_us']:.0f}" if row["p99_us"] else "-"
                    log(f"  sweep {config:14} c={conns:<4} rate {rate:>8} achieved "
                        f"{row['achieved'] or 0:>9.0f} sustained={row['sustained']} p99 {p99} us")
                    if row["errors"] or row["conn_errors"] or not server.alive():
                        ctx.problem(f"sweep: {config} c={conns} rate={rate}: errors={row['errors']} "
                                    f"conn_errors={row['conn_errors']} {row['first_error']}")
                    if not server.alive():
                        break
                    if not row["sustained"]:
                        break
        finally:
            rc = server.stop()
            if rc not in (0, None, -15):
                ctx.problem(f"sweep/memory: {config} exited with status {rc} (log {server.logpath})")
    return steps, memory
