#!/usr/bin/python3
"""Issue 18's index build over HSET, per server thread: who does the HNSW inserts.

    bench/ft_build.py --limit 10000                           # HotKV and RediSearch
    bench/ft_build.py --limit 10000 --targets hotkv,hotkv-t1,redisearch,redisearch-w2

The index and the writes of bench/ft_vector.py's build step (FT.CREATE idx ON HASH PREFIX
1 doc: SCHEMA v VECTOR HNSW ... COSINE M 16 EF_CONSTRUCTION 200, bucket NUMERIC; then
HSET doc:<i> v <784 float32> bucket <b> over --conns connections, 16 in flight each, the
first --limit Fashion-MNIST training images), on an empty server started here, unpinned.

Targets:
  hotkv           hotkv-server as shipped (one worker per CPU)
  hotkv-t1        hotkv-server --threads 1 (one worker: the serial cost per vector)
  redisearch      Redis 8.8 + RediSearch 2.10, module defaults
  redisearch-w2   the same with the module argument WORKERS 2 (a RediSearch built with its
                  thread pool queues vectors in a flat buffer for background jobs; the
                  2.10.32 build in ../shared/peers has no such option and refuses to load)
  hotkv-vadd      HotKV as shipped, the same vectors by VADD vs FP32 <blob> <i> NOQUANT EF
                  200 M 16 into one vector set (the same HNSW engine without the FT layer,
                  the hash or the keyspace: what the FT path adds per vector)

For each: vectors/s from the first HSET until the index holds every vector (RediSearch
with WORKERS: until its background jobs are done, by FT.DEBUG VECSIM_INFO), the server
process's CPU per vector, and the CPU of each of its threads over the build (from
/proc/<pid>/task/*/stat), so one sees whether the inserts ran on one thread or several.
For RediSearch also FT.CONFIG GET WORKERS / MIN_OPERATION_WORKERS / MT_MODE as loaded.
Then (--query-clients, not for hotkv-vadd) a closed loop of FT.SEARCH "*=>[KNN 10 @v $B
EF_RUNTIME 40]" ... RETURN 1 __v_score over that many connections for --query-seconds,
with the same per-thread CPU split: whether concurrent searches use every worker.
Results: bench/results/ft-build_<date_time>/summary.md + results.json (or --out).
"""
import argparse
import datetime
import json
import os
import platform
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE / "harness"))
import ft_vector as fv  # noqa: E402
from common import Server, loadavg, log, stop_all  # noqa: E402

ROOT = HERE.parent
NAMES = {
    "hotkv": "HotKV (one worker per CPU)",
    "hotkv-t1": "HotKV --threads 1",
    "hotkv-vadd": "HotKV VADD (no index, no hash)",
    "redisearch": "Redis 8.8 + RediSearch 2.10 (defaults)",
    "redisearch-w2": "Redis 8.8 + RediSearch 2.10, WORKERS 2",
}


def start(kind, build_dir, workdir, logdir):
    if kind.startswith("hotkv"):
        argv = [str(Path(build_dir) / "hotkv-server"), "--port", "{port}", "--bind", "127.0.0.1"]
        if kind == "hotkv-t1":
            argv += ["--threads", "1"]
    else:
        argv = [str(fv.PEER_88), "--port", "{port}", "--bind", "127.0.0.1", "--save", "",
                "--appendonly", "no", "--dir", workdir, "--loadmodule", str(fv.REDISEARCH)]
        if kind == "redisearch-w2":
            argv += ["WORKERS", "2"]
    s = Server(kind, argv, f"0-{os.cpu_count() - 1}", logdir).start()
    return s


def vecsim_pending(c):
    """RediSearch: vectors its background jobs still have to insert (0 when none or when
    the index is not tiered); None where FT.DEBUG VECSIM_INFO does not answer."""
    try:
        v = c.call("FT.DEBUG", "VECSIM_INFO", "idx", "v")
    except fv.ReplyError:
        return None
    flat = {}

    def walk(x):
        if isinstance(x, list):
            for i in range(0, len(x) - 1, 2):
                k = x[i].decode() if isinstance(x[i], bytes) else x[i]
                if isinstance(x[i + 1], list):
                    walk(x[i + 1])
                else:
                    flat.setdefault(k, x[i + 1])
    walk(v)
    pend = 1 if str(flat.get("BACKGROUND_INDEXING", 0)) not in ("0", "b'0'") else 0
    return pend, {k: (v.decode() if isinstance(v, bytes) else v) for k, v in flat.items()}


def run(kind, blobs, buckets, a, workdir, outdir):
    s = start(kind, a.build_dir, workdir, outdir)
    res = {"target": kind, "name": NAMES.get(kind, kind)}
    c = fv.Conn(s.port)
    if kind.startswith("redisearch"):
        cfg = {}
        for opt in ("WORKERS", "MIN_OPERATION_WORKERS", "MT_MODE", "WORKER_THREADS",
                    "TIERED_HNSW_BUFFER_LIMIT"):
            try:
                v = c.call("FT.CONFIG", "GET", opt)
                if v:
                    cfg[opt] = v[0][1].decode() if isinstance(v[0][1], bytes) else v[0][1]
            except fv.ReplyError as e:
                cfg[opt] = f"error: {e}"
        res["config"] = cfg
    create = ["FT.CREATE", "idx", "ON", "HASH", "PREFIX", "1", "doc:", "SCHEMA", "v", "VECTOR",
              "HNSW", "10", "TYPE", "FLOAT32", "DIM", str(len(blobs[0]) // 4), "DISTANCE_METRIC",
              "COSINE", "M", "16", "EF_CONSTRUCTION", "200", "bucket", "NUMERIC"]
    vadd = kind == "hotkv-vadd"
    if not vadd:
        c.call(*create)
    n = len(blobs)
    t_before = fv.thread_cpu(s.pid)
    p0 = s.cpu_s()
    t0 = time.monotonic()
    if vadd:
        cmd = lambda i: fv.encode("VADD", "vs", "FP32", blobs[i], str(i), "NOQUANT", "EF", "200",
                                  "M", "16")  # noqa: E731
    else:
        cmd = lambda i: fv.encode("HSET", f"doc:{i}", "v", blobs[i], "bucket",
                                  int(buckets[i]))  # noqa: E731
    secs, errs = fv.load(type("T", (), {"port": s.port})(), cmd, n, a.conns)
    info = {}
    pend_info = None
    while not vadd:
        info = fv.ft_info(c, "idx")
        done = int(info.get("num_docs", 0)) >= n and int(info.get("indexing", 0)) == 0
        if done and kind.startswith("redisearch"):
            p = vecsim_pending(c)
            if p is not None:
                pend_info = p[1]
                done = p[0] == 0
        if done:
            break
        if time.monotonic() - t0 > a.max_seconds:
            raise RuntimeError(f"{kind}: index build did not finish in {a.max_seconds} s")
        time.sleep(0.02)
    wall = time.monotonic() - t0
    p1 = s.cpu_s()
    t_after = fv.thread_cpu(s.pid)
    if vadd:
        info = {"num_docs": c.call("VCARD", "vs")}
    # What the server burns idle afterwards (timers, background threads), per second.
    i0 = s.cpu_s()
    time.sleep(a.idle_seconds)
    idle = (s.cpu_s() - i0) / a.idle_seconds
    threads = []
    for tid, (name, cpu) in t_after.items():
        d = cpu - t_before.get(tid, (name, 0.0))[1]
        if d >= 0.01:
            threads.append({"tid": tid, "name": name, "cpu_s": round(d, 3),
                            "share": d / max(1e-9, p1 - p0)})
    threads.sort(key=lambda x: -x["cpu_s"])
    res.update({
        "vectors": n, "seconds": round(wall, 3), "hset_seconds": round(secs, 3),
        "vectors_per_s": n / wall, "server_cpu_s": round(p1 - p0, 3),
        "server_cpu_us_per_vector": 1e6 * (p1 - p0) / n,
        "server_cores_busy": (p1 - p0) / wall, "threads": threads, "errors": errs,
        "num_threads": len(t_after), "vecsim_info": pend_info, "idle_cpu_per_s": idle,
        "indexed": int(info.get("num_docs", 0)),
        "vector_index_sz_mb": str(info.get("vector_index_sz_mb", b"")),
    })
    if not vadd and a.query_clients > 0:
        tgt = fv.Target(kind, s.port)
        cmds = [fv.encode("FT.SEARCH", "idx", "*=>[KNN 10 @v $B EF_RUNTIME 40]", "PARAMS", "2",
                          "B", q, "RETURN", "1", "__v_score", "LIMIT", "0", "10", "DIALECT", "2")
                for q in a.qblobs]
        fv.closed_loop(tgt, cmds, fv.ft_ids, [set()] * len(cmds), a.query_clients, 0)  # warm
        q0 = fv.thread_cpu(s.pid)
        r = fv.closed_loop(tgt, cmds, fv.ft_ids, [set()] * len(cmds), a.query_clients,
                           a.query_seconds)
        q1 = fv.thread_cpu(s.pid)
        qt = []
        tot = sum(cpu for _, cpu in q1.values()) - sum(cpu for _, cpu in q0.values())
        for tid, (name, cpu) in q1.items():
            d = cpu - q0.get(tid, (name, 0.0))[1]
            if d >= 0.01:
                qt.append({"tid": tid, "name": name, "cpu_s": round(d, 3), "share": d / max(1e-9, tot)})
        qt.sort(key=lambda x: -x["cpu_s"])
        res["query"] = {"clients": a.query_clients, "qps": r["qps"], "seconds": r["seconds"],
                        "server_cpu_us": r["server_cpu_us"], "client_cpu_us": r["client_cpu_us"],
                        "server_cores_busy": (r["server_cpu_us"] or 0) * r["qps"] / 1e6,
                        "p50_ms": r["p50_ms"], "threads": qt, "errors": r["errors"]}
        log(f"{kind}: FT.SEARCH x{a.query_clients}: {r['qps']:,.0f} q/s, "
            f"{r['server_cpu_us']:,.0f} µs/q; threads: "
            + ", ".join(f"{t['name']} {t['cpu_s']:.1f}s" for t in qt[:6]))
    log(f"{kind}: {n / wall:,.0f} vectors/s, {res['server_cpu_us_per_vector']:,.0f} µs CPU/vector, "
        f"{res['server_cores_busy']:.2f} cores busy; threads: "
        + ", ".join(f"{t['name']} {t['cpu_s']:.1f}s" for t in threads[:6]))
    c.close()
    s.stop()
    return res


def fmt(v):
    return "-" if v is None else f"{v:,.0f}"


def render(out):
    L = [f"# FT index build over HSET, per thread (issue 18), {out['date']}", "",
         f"Machine: {out['machine']}; load average at start {out['loadavg']}, at end "
         f"{out['loadavg_end']}. Command: `{out['command']}`.", "",
         f"Data: the first {out['n']:,} Fashion-MNIST training images (784 float32), "
         "FT.CREATE idx ON HASH PREFIX 1 doc: SCHEMA v VECTOR HNSW 10 TYPE FLOAT32 DIM 784 "
         "DISTANCE_METRIC COSINE M 16 EF_CONSTRUCTION 200 bucket NUMERIC; HSET doc:<i> v <blob> "
         f"bucket <b> over {out['conns']} connections, 16 in flight each (one Python client "
         "process on the same CPUs). Time: first HSET until FT.INFO num_docs = n (and, for "
         "RediSearch, FT.DEBUG VECSIM_INFO shows no background indexing).", "",
         "| server | vectors/s | server CPU µs/vector | server cores busy | idle CPU after (cores) | threads with CPU (name: seconds, share) |",
         "|---|---|---|---|---|---|"]
    for r in out["results"]:
        th = "; ".join(f"{t['name']}: {t['cpu_s']:.1f} s ({100 * t['share']:.0f} %)" for t in r["threads"][:6])
        L.append(f"| {r['name']} | {r['vectors_per_s']:,.0f} | {r['server_cpu_us_per_vector']:,.0f} | "
                 f"{r['server_cores_busy']:.2f} | {r['idle_cpu_per_s']:.3f} | {th} |")
    qs = [r for r in out["results"] if r.get("query")]
    if qs:
        L += ["", f"FT.SEARCH `*=>[KNN 10 @v $B EF_RUNTIME 40]` RETURN 1 __v_score, closed loop, "
              f"{qs[0]['query']['clients']} connections, after the build (the client shares the CPUs):", "",
              "| server | q/s | server CPU µs/q | server cores busy | client CPU µs/q | threads with CPU (name: seconds, share) |",
              "|---|---|---|---|---|---|"]
        for r in qs:
            q = r["query"]
            th = "; ".join(f"{t['name']}: {t['cpu_s']:.1f} s ({100 * t['share']:.0f} %)" for t in q["threads"][:6])
            L.append(f"| {r['name']} | {q['qps']:,.0f} | {fmt(q['server_cpu_us'])} | "
                     f"{q['server_cores_busy']:.2f} | {fmt(q['client_cpu_us'])} | {th} |")
    for r in out["results"]:
        if r.get("config"):
            L += ["", f"{r['name']}: FT.CONFIG as loaded: " +
                  ", ".join(f"{k} = {v}" for k, v in r["config"].items())]
        if r.get("errors"):
            L += ["", f"{r['name']}: errors: {r['errors']}"]
    L.append("")
    return "\n".join(L)


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--targets", default="hotkv,redisearch")
    p.add_argument("--limit", type=int, default=10000)
    p.add_argument("--conns", type=int, default=4)
    p.add_argument("--build-dir", default=str(ROOT / "build" / "release"))
    p.add_argument("--max-seconds", type=float, default=900)
    p.add_argument("--idle-seconds", type=float, default=2.0)
    p.add_argument("--query-clients", type=int, default=16)
    p.add_argument("--query-seconds", type=float, default=3.0)
    p.add_argument("--queries", type=int, default=200)
    p.add_argument("--out")
    a = p.parse_args()
    stamp = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d_%H%M%S")
    outdir = Path(a.out) if a.out else ROOT / "bench" / "results" / f"ft-build_{stamp}"
    outdir.mkdir(parents=True, exist_ok=True)
    import numpy as np
    base = fv.load_idx(fv.FASHION / "train-images-idx3-ubyte.gz", a.limit)
    blobs = [row.tobytes() for row in base]
    buckets = np.random.default_rng(7).integers(0, 100, len(blobs))  # as ft_vector.py
    a.qblobs = [row.tobytes() for row in fv.load_idx(fv.FASHION / "t10k-images-idx3-ubyte.gz",
                                                     a.queries)]
    out = {"date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
           "machine": f"{platform.node()} {os.cpu_count()} CPUs {platform.machine()} {platform.release()}",
           "loadavg": fv.loadavg(), "command": " ".join(["bench/ft_build.py"] + sys.argv[1:]),
           "n": len(blobs), "conns": a.conns, "results": []}
    import tempfile
    try:
        with tempfile.TemporaryDirectory(prefix="ft-build-") as work:
            for kind in a.targets.split(","):
                out["results"].append(run(kind, blobs, buckets, a, work, outdir))
                (outdir / "results.json").write_text(json.dumps(out, indent=1, default=str))
    finally:
        stop_all()
    out["loadavg_end"] = loadavg()
    (outdir / "results.json").write_text(json.dumps(out, indent=1, default=str))
    text = render(out)
    (outdir / "summary.md").write_text(text)
    print(text)
    log(f"results in {outdir}")


if __name__ == "__main__":
    main()
