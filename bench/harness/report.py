"""Writes a harness run's summary CSVs, its Markdown section (results.md, and summary.md
when recording) and its gnuplot charts into the run folder bench/results/<stamp>/."""
import csv
import shutil
import subprocess
from pathlib import Path

from common import log
from servers import CONFIGS, PEERS, label, peer_short

COMMANDS = ["SET", "GET", "MGET", "SETNX", "APPEND", "INCR", "LPUSH", "RPUSH", "SADD",
            "HSET", "MSET", "PING"]
HEAVY_LOAD = 1.5  # 1-minute load average per CPU above which the run is labelled "under load"


# ---------------------------------------------------------------------------------------
# Formatting


def k(x):
    if x is None:
        return "–"
    if x >= 1e6:
        return f"{x / 1e6:.2f}M"
    if x >= 1e3:
        return f"{x / 1e3:.0f}k"
    return f"{x:.0f}"


def num(x, digits=0):
    return "–" if x is None else f"{x:,.{digits}f}"


def us(x):
    if x is None:
        return "–"
    return f"{x / 1000:.2f} ms" if x >= 10_000 else f"{x:.0f} µs"


def spread(s, med, lo, hi, fmt):
    if s is None:
        return "not run"
    if s["status"] in ("unsupported", "error"):
        return s["status"]
    text = f"{fmt(s[med])} ({fmt(s[lo])}–{fmt(s[hi])})"
    return text + (" ⚠" if s["status"] == "partial" else "")


def ratio(a, b, key):
    if not a or not b or a.get(key) is None or b.get(key) is None or not b[key]:
        return "–"
    return f"{a[key] / b[key]:.2f}"


def ratio_header(facts):
    """Ratio columns: HotKV (t1, default) over each peer, Redis 8.8 first when measured."""
    return [f"{h} / {peer_short(p, facts)}" for p in PEERS for h in ("t1", "default")]


def ratio_cells(summ, cmd, key):
    return [ratio(summ.get((cmd, h)), summ.get((cmd, p)), key)
            for p in PEERS for h in ("hotkv-t1", "hotkv-default")]


def table(header, rows):
    out = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    out += ["| " + " | ".join(str(c) for c in r) + " |" for r in rows]
    return "\n".join(out)


def write_csv(path, rows):
    if not rows:
        return
    fields = []
    for r in rows:
        fields += [f for f in r if f not in fields]
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=fields)
        w.writeheader()
        w.writerows(rows)


# ---------------------------------------------------------------------------------------
# Sections


def section_header(ctx, res):
    f, s = ctx.facts, res["settings"]
    cache = f.get("cmake_cache", {})
    try:
        la = float(f["loadavg_before"].split()[0]), float(f["loadavg_after"].split()[0])
        heavy = max(la) / max(1, int(f.get("cpus", "1"))) > HEAVY_LOAD
    except (KeyError, ValueError):
        heavy = True
    parts = f.get("parts", [])
    scope = "full run" if set(parts) >= {"cpu", "sweep", "memory", "prefetch"} \
        else "run of " + ", ".join(parts)
    kind = "QUICK SMOKE RUN (--quick: small data, 1 repetition — not for quoting)" if ctx.quick \
        else scope + (f", median of {s['reps']}" if {"cpu", "prefetch"} & set(parts) else "")
    t = res["timing_s"]
    lines = [
        f"## {f['date'][:16].replace('T', ' ')} — {kind}",
        "",
        f"HotKV `{f.get('git')}` (branch {f.get('git_branch')}) vs "
        + (f"Redis {f['redis8_version']} (`{f['redis8_path']}`) and " if f.get("redis8_path") else "")
        + f"Redis {f.get('redis_version')}"
        + ("" if f.get("redis8_path") else " (Redis 8.8 not found: --redis8 PATH)") + "; "
        f"parts: {', '.join(f.get('parts', []))}; raw data: `bench/results/{ctx.stamp}/`.",
        "",
    ]
    if heavy:
        lines += ["> **Taken under load.** This 2-CPU machine was shared with other work during "
                  "the run (load averages below). Absolute numbers are noisy; compare the "
                  "servers within this run, and read the “other load on the server core” column.", ""]
    lines += [
        f"- Machine: {f.get('cpu_model')}, {f.get('cpus')} CPUs ({f.get('threads_per_core')} thread/core, "
        f"hypervisor {f.get('hypervisor')}), {f.get('mem_total')}, Linux {f.get('kernel')}.",
        f"- Load average (1/5/15 min): before `{f.get('loadavg_before')}`, after `{f.get('loadavg_after')}`; "
        + "; ".join(f"{p}: `{v}`" for p, v in f.get("loadavg_parts", {}).items()) + ".",
        f"- Build: {cache.get('CMAKE_BUILD_TYPE', '?')}, effective flags `{f.get('effective_flags')}` "
        f"(from compile_commands.json; CMAKE_CXX_FLAGS_RELEASE=`{cache.get('CMAKE_CXX_FLAGS_RELEASE')}`), "
        f"CMAKE_CXX_FLAGS=`{cache.get('CMAKE_CXX_FLAGS', '')}`, "
        f"{f.get('compiler')}, HOTKV_USE_MIMALLOC={cache.get('HOTKV_USE_MIMALLOC')} "
        f"({cache.get('MIMALLOC_LIB', 'not found')}), HOTKV_SANITIZE={cache.get('HOTKV_SANITIZE')}.",
        f"- Servers: {f.get('hotkv_version')}; default threads = {f.get('hotkv_default_threads', '?')} "
        f"(one per CPU it may run on), pipeline-prefetch default `{f.get('hotkv_pipeline_prefetch_default', '?')}`"
        f"{'; every HotKV configuration started with `' + f['hotkv_extra_args'] + '`' if f.get('hotkv_extra_args') else ''}; "
        f"{'; baseline binary (base-* columns) `' + f['hotkv_baseline'] + '`' if f.get('hotkv_baseline') else ''}; "
        f"redis-server {f.get('redis_version')}"
        + (f" and {f['redis8_version']}" if f.get("redis8_path") else "")
        + f" `--save '' --appendonly no`; {f.get('redis_benchmark_version')}.",
        f"- Pinning: every server on core {s['server_core']}, every client tool (redis-benchmark, "
        f"hotkv-loadgen, the preloader) on core {s['client_core']}, with taskset. With 2 CPUs this "
        "is the only split that gives the server and the generator a core each; HotKV counts "
        "the CPUs of its affinity mask, so its default here is one worker on core 0, the same "
        "as `--threads 1` (the two columns measure the same setting twice).",
        "- Duration: " + ", ".join(f"{p} {v // 60}m{v % 60:02d}s" for p, v in t.items()) + ".",
        "",
    ]
    return lines


def section_cpu(ctx, res, img):
    s = res["settings"]
    summ = {(r["command"], r["config"]): r for r in res.get("cpu_summary", [])}
    names = [label(c, ctx.facts) for c in CONFIGS]
    lines = [
        "### 1. Throughput and server CPU per operation (redis-benchmark)",
        "",
        f"`redis-benchmark -c {s['clients']} -P {s['pipeline']} -d {s['value_size']} -r {s['keys']} "
        f"-n {s['n']}` per command (MGET/MSET: `-n {s['n_multi']}`, 10 keys per request), after "
        f"preloading {s['keys']:,} keys `key:<12 digits>` × {s['value_size']} B so that GET/MGET hit. "
        f"Median of {s['reps']} runs (min–max); server order alternates between repetitions; "
        + ("each server is started and preloaded afresh for each command and repetition. "
           if s.get("cpu_server", "shared") == "per-command" else
           "each server is started fresh for each repetition and runs all 12 commands in turn "
           "(`--cpu-server shared`: a command's figure then depends on the memory the earlier "
           "ones took). ")
        + "CPU/op = server utime+stime (all threads, "
        "/proc/<pid>/stat, 10 ms ticks) over the run ÷ requests. A request of MGET/MSET is one "
        "command on 10 keys. ⚠ = some repetitions failed.",
        "",
        "**Throughput, requests/s** († = redis-benchmark above 85 % of its core in some run: "
        "the generator was the limit, so the figure is a floor)",
        "",
    ]
    rows = []
    for cmd in COMMANDS:
        cells = []
        for c in CONFIGS:
            x = summ.get((cmd, c))
            cell = spread(x, "rps_med", "rps_min", "rps_max", k)
            if x and x["status"] in ("ok", "partial") and x["gen_saturated"]:
                cell += " †"
            cells.append(cell)
        rows.append([cmd] + cells + ratio_cells(summ, cmd, "rps_med"))
    lines += [table(["command"] + names + ratio_header(ctx.facts), rows), ""]
    lines += ["**Server CPU per request, ns** (lower is better; ratio < 1: HotKV uses less CPU)", ""]
    rows = []
    for cmd in COMMANDS:
        cells = [spread(summ.get((cmd, c)), "ns_med", "ns_min", "ns_max", num) for c in CONFIGS]
        rows.append([cmd] + cells + ratio_cells(summ, cmd, "ns_med"))
    lines += [table(["command"] + names + ratio_header(ctx.facts), rows), ""]
    lines += ["**Where the time went** (medians, % of one core over the run: generator / server / "
              "other processes + steal on the server's core)", ""]
    rows = []
    for cmd in COMMANDS:
        cells = []
        for c in CONFIGS:
            x = summ.get((cmd, c))
            if not x or x["status"] in ("unsupported", "error"):
                cells.append(x["status"] if x else "not run")
            else:
                cells.append(f"{x['gen_cpu_med']:.0f} / {x['server_cpu_med']:.0f} / {x['foreign_med']:.0f}")
        rows.append([cmd] + cells)
    lines += [table(["command"] + names, rows), ""]
    idle = {}
    for r in res.get("cpu_runs", []):
        if r.get("idle_cpu_pct") is not None:
            idle.setdefault(r["config"], []).append(r["idle_cpu_pct"])
    if idle:
        lines += ["Idle CPU of each server after the preload (the harness first waits for a 1 s "
                  "window under 3 % of a core; the idle rate is part of every run above; worst "
                  "repetition, 10 ms ticks): " +
                  ", ".join(f"{label(c, ctx.facts)} {max(v):.1f} %" for c, v in idle.items()) + ".", ""]
    errors = sorted({(r["config"], r["command"], r.get("error", "")) for r in res.get("cpu_summary", [])
                     if r["status"] in ("error", "partial")})
    if errors:
        lines += ["Errors: " + "; ".join(f"{c} {cmd}: {e}" for c, cmd, e in errors), ""]
    lines += [f"![CPU ns per request]({img}cpu_ns_per_op.png)", "",
              f"![Throughput]({img}throughput.png)", ""]
    return lines


def section_sweep(ctx, res, img):
    s = res["settings"]
    steps = res.get("sweep", [])
    reps = s.get("sweep_reps", 1)
    if reps > 1:
        how = (f"Every step ran {reps} times on each server: the loaded servers stay up side by "
               "side, alternate within a repetition and reverse their order in the next. The "
               "figures are the medians of a step's runs (p99 also shows the lowest and highest "
               "run). A step is sustained when most of its runs were: ≥ 97 % of the asked rate, "
               "every request answered. A server's sweep stops after its first step that is not "
               "sustained, which reports no latency.")
    else:
        how = ("A step is sustained when ≥ 97 % of the asked rate was achieved and every request "
               "answered; the sweep stops after the first unsustained step, which reports no "
               "latency. One run per step and server (not repeated).")
    lines = [
        "### 2. GET latency at fixed rates (hotkv-loadgen, open loop)",
        "",
        f"`hotkv-loadgen --command get --keyspace {s['mem_keys']} --duration {s['sweep_duration']} "
        f"--warmup {s['sweep_warmup']} --rate R --connections C` after `--load {s['mem_keys']}`; "
        "latency from the intended send time (coordinated omission corrected). " + how + " "
        "“send lag” is how late the generator itself sent (it did not "
        "get its CPU in time); that delay is inside the latency figures, so where it is of the "
        "order of the latency, the figure measures the machine, not the server. “late” = send "
        "lag p99 > 1 ms. “other %” = other processes on the server's core.",
        "",
        "**Highest sustained rate (GET/s)**",
        "",
    ]
    rows = []
    for c in CONFIGS:
        cells = []
        for conns in s["sweep_conns"]:
            mine = [x for x in steps if x["config"] == c and x["connections"] == conns]
            ok = [x["rate"] for x in mine if x["sustained"]]
            if not mine:
                cells.append("not run")
            else:
                top = k(max(ok)) if ok else "none"
                capped = mine[-1]["sustained"]  # the list ran out before a failure
                cells.append(top + (" (≥, top of the list)" if capped else ""))
        rows.append([label(c, ctx.facts)] + cells)
    lines += [table(["server"] + [f"{c} connections" for c in s["sweep_conns"]], rows), ""]
    rows = []
    for x in steps:
        flags = []
        if x["loadgen_behind"]:
            flags.append("late")
        if x["loadgen_saturated"]:
            flags.append("gen saturated")
        if x["errors"] or x["conn_errors"]:
            flags.append(f"errors {x['errors']}/{x['conn_errors']}")
        sus = x["sustained"]
        p99 = us(x["p99_us"]) if sus else "–"
        if sus and x.get("runs", 1) > 1 and x.get("p99_min_us") is not None:
            p99 += f" ({us(x['p99_min_us'])}–{us(x['p99_max_us'])})"
        runs = f"{x['runs_sustained']}/{x['runs']}" if "runs" in x else ("1/1" if sus else "0/1")
        rows.append([label(x["config"], ctx.facts), x["connections"], k(x["rate"]), k(x["achieved"]),
                     ("yes" if sus else "**no**") + f" ({runs})", us(x["p50_us"]) if sus else "–",
                     p99, us(x["p99_9_us"]) if sus else "–",
                     us(x["send_lag_p99_us"]), f"{x['loadgen_cpu_pct'] or 0:.0f}",
                     f"{x['server_cpu_pct']:.0f} / {x['foreign_pct']:.0f}", ", ".join(flags)])
    lines += ["**Every step**" + (" (medians of the runs)" if reps > 1 else ""), "",
              table(["server", "conns", "asked", "achieved", "sustained (runs)", "p50", "p99",
                     "p99.9", "send lag p99", "loadgen CPU %", "server CPU % / other %", "notes"],
                    rows), "",
              f"![Latency vs rate]({img}latency_vs_rate.png)", ""]
    return lines


def section_memory(ctx, res):
    mem = {m["config"]: m for m in res.get("memory", [])}
    peers = [p for p in PEERS if p in mem] or PEERS[-1:]
    rows = []
    for c in CONFIGS:
        m = mem.get(c)
        if not m:
            continue
        cells = []
        for key in ("bytes_per_key", "rss_loaded_kb"):
            for p in peers:
                r = mem.get(p)
                cells.append(f"{m[key] / r[key]:.2f}" if r and r[key] else "–")
        rows.append([label(c, ctx.facts), f"{m['dbsize']:,}", num(m["rss_empty_kb"] / 1024, 1),
                     num(m["rss_loaded_kb"] / 1024, 1), num(m["bytes_per_key"])] + cells)
    any_m = next(iter(mem.values()), None)
    return [
        "### 3. Memory",
        "",
        f"RSS (VmRSS, /proc/<pid>/status) of a fresh server, then 1 s after `hotkv-loadgen --load "
        f"{any_m['keys'] if any_m else '?'} --value-size {any_m['value_size'] if any_m else '?'}` "
        "(keys `key:0` … `key:N-1`, the same keys and values for every server). "
        "Bytes/key = (RSS loaded − RSS empty) ÷ keys. One measurement per server.",
        "",
        table(["server", "keys", "RSS empty MiB", "RSS loaded MiB", "bytes/key"]
              + [f"bytes/key ÷ {peer_short(p, ctx.facts)}" for p in peers]
              + [f"RSS ÷ {peer_short(p, ctx.facts)}" for p in peers], rows),
        "",
    ]


def section_prefetch(ctx, res):
    s = res["settings"]
    summ = {(r["pipeline"], r["prefetch"]): r for r in res.get("prefetch_summary", [])}
    f = ctx.facts
    rows = []
    for p in s["prefetch_pipelines"]:
        no, yes = summ.get((p, "no")), summ.get((p, "yes"))
        rel = "–"
        if no and yes and no.get("ns_med") and yes.get("ns_med") is not None:
            rel = f"{100 * (yes['ns_med'] - no['ns_med']) / no['ns_med']:+.1f} %"
        rows.append([p, spread(no, "ns_med", "ns_min", "ns_max", num),
                     spread(yes, "ns_med", "ns_min", "ns_max", num), rel,
                     spread(no, "rps_med", "rps_min", "rps_max", k),
                     spread(yes, "rps_med", "rps_min", "rps_max", k),
                     f"{no['gen_cpu_med']:.0f} / {yes['gen_cpu_med']:.0f}" if no and yes and
                     no.get("gen_cpu_med") is not None and yes.get("gen_cpu_med") is not None else "–"])
    return [
        "### 4. Pipeline prefetch (HotKV `--threads 1`, `--pipeline-prefetch no` vs `yes`)",
        "",
        f"{s['prefetch_keys']:,} keys × {s['value_size']} B preloaded into each of two instances "
        f"(started side by side on core {s['server_core']}, loaded once; the one not being measured "
        f"is idle: {f.get('prefetch_no_idle_cpu_pct', '?')} % / {f.get('prefetch_yes_idle_cpu_pct', '?')} % "
        f"of a core); `redis-benchmark -t get -c {s['clients']} -d {s['value_size']} "
        f"-r {s['prefetch_keys']} -n {s['prefetch_n']} -P <pipeline>`. Median of {s['reps']} "
        "(min–max), order alternating. CONFIG GET pipeline-prefetch answered "
        f"`{f.get('prefetch_no_config_get', '?')}` / `{f.get('prefetch_yes_config_get', '?')}`. "
        "Relative difference = (yes − no) ÷ no of the medians; negative = prefetch saves CPU.",
        "",
        table(["pipeline", "CPU ns/GET, prefetch no", "CPU ns/GET, prefetch yes", "difference",
               "GET/s no", "GET/s yes", "generator CPU % no / yes"], rows),
        "",
    ]


def render(ctx, res, img):
    parts = ctx.facts.get("parts", [])
    lines = section_header(ctx, res)
    if "cpu" in parts:
        lines += section_cpu(ctx, res, img)
    if "sweep" in parts:
        lines += section_sweep(ctx, res, img)
    if res.get("memory"):
        lines += section_memory(ctx, res)
    if "prefetch" in parts:
        lines += section_prefetch(ctx, res)
    lines += ["### Problems seen", ""]
    lines += [f"- {p}" for p in res["problems"]] or ["- none"]
    lines += ["", "### Exact commands ($PORT: a free port picked per server start)", "", "```"]
    cmds = ctx.outdir / "commands.txt"
    lines += cmds.read_text().splitlines() if cmds.exists() else []
    lines += ["```", ""]
    return "\n".join(lines) + "\n"


# ---------------------------------------------------------------------------------------
# Charts


def gnuplot_terminal():
    if not shutil.which("gnuplot"):
        return None
    r = subprocess.run(["gnuplot", "-e", "set terminal pngcairo"], capture_output=True, text=True)
    return "pngcairo" if r.returncode == 0 and not r.stderr.strip() else "png"


def charts(ctx, res):
    term = gnuplot_terminal()
    if term is None:
        return "gnuplot not found: no charts"
    out = ctx.outdir
    scripts = []
    summ = {(r["command"], r["config"]): r for r in res.get("cpu_summary", [])}
    names = [label(c, ctx.facts) for c in CONFIGS]
    for fname, med, lo, hi, ylabel, title in [
            ("cpu_ns_per_op", "ns_med", "ns_min", "ns_max", "server CPU ns per request",
             "Server CPU per request (lower is better)"),
            ("throughput", "rps_med", "rps_min", "rps_max", "requests/s",
             "Throughput, redis-benchmark -P 30 -c 50 (generator-bound where noted in results.md)")]:
        if not summ:
            break
        with open(out / f"{fname}.dat", "w") as f:
            f.write("# command " + " ".join(f"{c}_med {c}_min {c}_max" for c in CONFIGS) + "\n")
            for cmd in COMMANDS:
                missing = [c for c in CONFIGS if not summ.get((cmd, c)) or
                           summ[(cmd, c)]["status"] not in ("ok", "partial")]
                tick = cmd + ("*" if missing else "")
                vals = []
                for c in CONFIGS:
                    x = summ.get((cmd, c))
                    ok = x and x["status"] in ("ok", "partial") and x[med] is not None
                    vals += [f"{x[m]:.1f}" if ok else "?" for m in (med, lo, hi)]
                f.write(f"{tick} " + " ".join(vals) + "\n")
        plot = ", ".join(f"'{fname}.dat' using {2 + 3 * i}:{3 + 3 * i}:{4 + 3 * i}"
                         + (":xtic(1)" if i == 0 else "") + f" title '{n}'"
                         for i, n in enumerate(names))
        scripts.append((fname, f"""
set terminal {term} size 1200,560 noenhanced
set output '{fname}.png'
set title "{title} — {ctx.stamp}"
set datafile missing '?'
set style data histogram
set style histogram errorbars gap 2 lw 1
set style fill solid 0.8 border -1
set ylabel '{ylabel} (log scale)'
set logscale y
set grid ytics mytics
set key inside top left horizontal
set xtics font ',10'
set xlabel '* = not measured on every server (see results.md)   whiskers: min-max   MGET/MSET: 10 keys per request'
plot {plot}
"""))
    steps = [x for x in res.get("sweep", []) if x["sustained"]]
    if steps:
        blocks, titles = [], []
        for c in CONFIGS:
            for conns in res["settings"]["sweep_conns"]:
                mine = [x for x in steps if x["config"] == c and x["connections"] == conns]
                if mine:
                    blocks.append("\n".join(f"{x['achieved']} {x['p50_us']} {x['p99_us']} {x['p99_9_us']}"
                                            for x in mine))
                    titles.append(f"{label(c, ctx.facts)}, {conns} conns")
        (out / "latency.dat").write_text("# achieved p50_us p99_us p99_9_us, one block per series\n"
                                         + "\n\n\n".join(blocks) + "\n")
        panels = []
        for col, name in [(2, "p50"), (3, "p99"), (4, "p99.9")]:
            plot = ", ".join(f"'latency.dat' index {i} using ($1/1000):{col} with linespoints "
                             f"lw 2 title '{t}'" for i, t in enumerate(titles))
            key = "set key below font ',9'" if name == "p99" else "unset key"
            panels.append(f"{key}\nset title '{name} GET latency (sustained steps only)'\nplot {plot}")
        scripts.append(("latency_vs_rate", f"""
set terminal {term} size 1500,600 noenhanced
set output 'latency_vs_rate.png'
set multiplot layout 1,3 title "Open-loop GET latency vs achieved rate — {ctx.stamp}"
set logscale xy
set xlabel 'achieved rate (thousand GET/s, log scale)'
set ylabel 'latency (us, log scale)'
set grid
set bmargin 9
""" + "\n".join(panels) + "\nunset multiplot\n"))
    done = []
    for name, script in scripts:
        (out / f"{name}.gp").write_text(script)
        r = subprocess.run(["gnuplot", f"{name}.gp"], cwd=out, capture_output=True, text=True)
        if r.returncode != 0:
            ctx.problem(f"gnuplot {name}.gp: {r.stderr.strip()[:300]}")
        else:
            done.append(f"{name}.png")
    return f"charts ({term}): {', '.join(done) or 'none'}"


def write_all(ctx, res, record):
    out = ctx.outdir
    write_csv(out / "cpu_runs.csv", res.get("cpu_runs"))
    write_csv(out / "cpu_summary.csv", res.get("cpu_summary"))
    write_csv(out / "sweep.csv", res.get("sweep"))
    write_csv(out / "sweep_runs.csv", res.get("sweep_runs"))
    write_csv(out / "memory.csv", res.get("memory"))
    write_csv(out / "prefetch_runs.csv", res.get("prefetch_runs"))
    write_csv(out / "prefetch_summary.csv", res.get("prefetch_summary"))
    log(charts(ctx, res))
    (out / "results.md").write_text(render(ctx, res, ""))
    # results.md is redrawn by --render; summary.md is the run's recorded report (notes
    # may be added to it by hand). bench/RESULTS.md is never written here: it holds the
    # current figure of each area, chosen by hand.
    if record:
        (out / "summary.md").write_text(render(ctx, res, ""))
        log(f"recorded in {out / 'summary.md'}")
        log("bench/RESULTS.md is not touched: if this run is to become the current figure "
            "of its area, update that area's table there by hand (and name this run folder)")
    else:
        log(f"not recorded (quick run; --record writes summary.md); see {out / 'results.md'}")
    print(render(ctx, res, ""))
