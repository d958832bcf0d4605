"""Part 4: HotKV `--pipeline-prefetch no` vs `yes`, GET at pipeline 30 and 100.

Two HotKV instances (`--threads 1`, one per setting) are started side by side, both
pinned to the server core, and each is loaded once with the 5M `key:<12 digits>` keys
(loading 5M keys takes far longer than the measurement, so it is not repeated). Each
repetition then measures both, in an order that reverses every repetition; the idle one
sleeps in epoll meanwhile (its idle CPU is recorded). CPU per GET comes from each
instance's own /proc/<pid>/stat.
"""
from common import log, settle
from cpu import run_benchmark, summarize
from load import preload_padded
from servers import start

MODES = ["no", "yes"]


def run_prefetch(ctx):
    servers = {}
    rows = []
    try:
        for mode in MODES:
            s = servers[mode] = start(ctx, f"hotkv-prefetch-{mode}")
            got = s.cli("CONFIG", "GET", "pipeline-prefetch").split()
            ctx.facts[f"prefetch_{mode}_config_get"] = got[-1] if got else "?"
            if got[-1:] != [mode]:
                ctx.problem(f"prefetch: started with --pipeline-prefetch {mode}, CONFIG GET says {got}")
            preload_padded(s, ctx.prefetch_keys, ctx.value_size, ctx.client_core, ctx.cmdlog)
            ctx.facts[f"prefetch_{mode}_rss_kb"] = s.rss_kb()
        for mode, s in servers.items():
            idle, waited = settle(s)
            ctx.facts[f"prefetch_{mode}_idle_cpu_pct"] = round(idle, 2)
            if idle > 3:
                ctx.problem(f"prefetch: {mode} instance still used {idle:.0f} % of a core while "
                            f"idle, {waited:.0f} s after the preload")
        for rep in range(ctx.reps):
            order = MODES if rep % 2 == 0 else list(reversed(MODES))
            for pos, mode in enumerate(order):
                s = servers[mode]
                for pipeline in ctx.prefetch_pipelines:
                    row = run_benchmark(ctx, s, "GET", ctx.prefetch_n, ctx.prefetch_keys, pipeline,
                                        f"prefetch-{mode}-r{rep}-P{pipeline}")
                    rows.append({"config": s.name, "prefetch": mode, "rep": rep, "order": pos, **row})
                    if row["status"] != "ok":
                        ctx.problem(f"prefetch: {mode} P={pipeline} (repetition {rep + 1}): {row['error']}")
                    else:
                        log(f"  prefetch={mode:3} P={pipeline:<3} {row['rps']:>10.0f} ops/s "
                            f"{row['ns_per_op']:7.0f} ns/GET  gen {row['gen_cpu_pct']:.0f}%  "
                            f"other {row['foreign_pct']:.0f}%")
    finally:
        for mode, s in servers.items():
            rc = s.stop()
            if rc not in (0, None, -15):
                ctx.problem(f"prefetch: hotkv --pipeline-prefetch {mode} exited with status {rc}")
    return rows, summarize(rows, keys=("pipeline", "prefetch"))
