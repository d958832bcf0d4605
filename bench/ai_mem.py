#!/usr/bin/python3
"""Issue 19's agent-memory benchmark: MEM.SEARCH (one command: KNN, filters, recency
re-ranking and the access update in the server) against the query-engine way that
agent-memory-server uses on Redis (FT.AGGREGATE with a KNN query, APPLY for the recency
formula, SORTBY the final score; then, to record the accesses, an HSET of last_accessed
per returned memory: a second round trip), on the same data in the same HotKV server.

    bench/ai_mem.py                                # 20,000 memories x 384 dims
    bench/ai_mem.py --n 2000 --queries 100         # a quick look
    bench/ai_mem.py --ways mem,ft --filters user   # some of the points

Data (numpy, seeded): --n memories of --dim float32 dims (normal, normalised), 20 users
(user = i % 20), created 0..90 days ago, last accessed between creation and now. The
same memories are added with MEM.ADD ... ID i CREATED ms ACCESSED ms and as hashes
mem:i {text, user, created_at, last_accessed, vector} under an FT index (TEXT text, TAG
user, NUMERIC created_at / last_accessed, VECTOR HNSW FLOAT32 COSINE M 16
EF_CONSTRUCTION 200). Queries: a stored vector plus noise.

Ranking (both ways, agent-memory-server's default): recency = 0.6 * 2^(-since_access / 7 d)
+ 0.4 * 2^(-age / 30 d), score = 0.8 * similarity + 0.2 * recency, over the 40 nearest
candidates (MEM.SEARCH's candidate pool for K 10), top 10 returned. Similarity on
MEM.SEARCH's scale, (1 + cos) / 2: `1 - @dist/2` in APPLY (RediSearch's cosine distance is
1 - cos). The namespace has TOUCH-INTERVAL 0, so MEM.SEARCH records every access, as the
ft+touch way does.

Workloads, each at 1 and 4 clients (closed loop, one connection and one query in flight
per client, --queries per client): unfiltered, and filtered to one user (5 %).
  - mem:      MEM.SEARCH mem FP32 <q> K 10 EF 100 [USER u]
  - ft:       FT.AGGREGATE idx "[(@user:{u})]=>[KNN 40 @vector $q EF_RUNTIME 100 AS dist]"
              ... APPLY x3
              SORTBY 2 @score DESC LIMIT 0 10
  - ft+touch: the same, then one pipelined HSET mem:<id> last_accessed <now> per result
Reported: q/s, p50/p99 latency (client side, ms), the server's microseconds per call of
each command (INFO commandstats: the client is Python and shares the cores, so the
server-side cost is the cleaner comparison), and the overlap of the two top-10s.
Results: bench/results/ai-mem_<date>_<time>/summary.md + results.json.
"""
import argparse
import datetime
import json
import os
import platform
import socket
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import numpy as np
import redis

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
DAY_S = 86400
USERS = 20
EF = 100  # search beam width of both ways


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def loadavg():
    return " ".join(open("/proc/loadavg").read().split()[:3])


def cpu_model():
    for line in open("/proc/cpuinfo"):
        if line.startswith("model name"):
            return line.split(":", 1)[1].strip()
    return platform.processor()


def pct(xs, p):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(round(p / 100 * (len(xs) - 1))))]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--server", default=str(ROOT / "build" / "release" / "hotkv-server"))
    ap.add_argument("--n", type=int, default=20000)
    ap.add_argument("--dim", type=int, default=384)
    ap.add_argument("--queries", type=int, default=300, help="per client per point")
    ap.add_argument("--clients", default="1,4")
    ap.add_argument("--threads", type=int, default=2, help="server worker threads")
    ap.add_argument("--ways", default="mem,ft,ft+touch")
    ap.add_argument("--filters", default="none,user")
    ap.add_argument("--out", default=None)
    args = ap.parse_args()

    stamp = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d_%H%M")
    out = Path(args.out) if args.out else HERE / "results" / f"ai-mem_{stamp}"
    out.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(7)
    base = rng.standard_normal((args.n, args.dim)).astype(np.float32)
    base /= np.linalg.norm(base, axis=1, keepdims=True)
    now_ms = int(time.time() * 1000)
    created = now_ms - (rng.uniform(0, 90, args.n) * DAY_S * 1000).astype(np.int64)
    accessed = created + ((now_ms - created) * rng.uniform(0, 1, args.n)).astype(np.int64)
    qidx = rng.integers(0, args.n, 1000)
    queries = base[qidx] + 0.3 * rng.standard_normal((1000, args.dim)).astype(np.float32) / np.sqrt(args.dim)
    queries = queries.astype(np.float32)

    port = free_port()
    tmp = tempfile.mkdtemp(prefix="ai-mem-")
    argv = [args.server, "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--dir", tmp,
            "--threads", str(args.threads)]
    proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    results = {"command": " ".join([sys.argv[0]] + sys.argv[1:]), "server_argv": argv,
               "machine": {"host": platform.node(), "cpu": cpu_model(), "cores": os.cpu_count(),
                           "kernel": platform.release()},
               "date_utc": stamp, "load_before": loadavg(), "n": args.n, "dim": args.dim,
               "points": []}
    try:
        r = redis.Redis(port=port)
        for _ in range(500):
            try:
                r.ping()
                break
            except redis.ConnectionError:
                time.sleep(0.02)

        # ---- load
        t0 = time.perf_counter()
        r.execute_command("MEM.CREATE", "mem", "DIM", args.dim, "TOUCH-INTERVAL", 0)
        p = r.pipeline(transaction=False)
        for i in range(args.n):
            p.execute_command("MEM.ADD", "mem", "FP32", base[i].tobytes(), f"memory text {i}",
                              "USER", f"u{i % USERS}", "ID", str(i), "CREATED", int(created[i]),
                              "ACCESSED", int(accessed[i]))
            if len(p) == 200:
                p.execute()
        p.execute()
        t_mem = time.perf_counter() - t0
        t0 = time.perf_counter()
        r.execute_command("FT.CREATE", "idx", "ON", "HASH", "PREFIX", 1, "mem:", "SCHEMA",
                          "text", "TEXT", "user", "TAG", "created_at", "NUMERIC",
                          "last_accessed", "NUMERIC", "vector", "VECTOR", "HNSW", 10, "TYPE",
                          "FLOAT32", "DIM", args.dim, "DISTANCE_METRIC", "COSINE", "M", 16,
                          "EF_CONSTRUCTION", 200)
        for i in range(args.n):
            p.hset(f"mem:{i}", mapping={"text": f"memory text {i}", "user": f"u{i % USERS}",
                                        "created_at": int(created[i]) // 1000,
                                        "last_accessed": int(accessed[i]) // 1000,
                                        "vector": base[i].tobytes()})
            if len(p) == 200:
                p.execute()
        p.execute()
        for _ in range(6000):
            info = r.execute_command("FT.INFO", "idx")
            d = dict(zip(info[0::2], info[1::2]))
            if int(d[b"num_docs"]) >= args.n and str(d.get(b"indexing", b"0")) in ("0", "b'0'"):
                break
            time.sleep(0.05)
        t_ft = time.perf_counter() - t0
        results["load_s"] = {"mem_add": round(t_mem, 2), "hset_ft": round(t_ft, 2)}
        print(f"loaded: MEM.ADD {t_mem:.1f}s, HSET+index {t_ft:.1f}s", flush=True)

        def mem_query(c, q, user):
            a = ["MEM.SEARCH", "mem", "FP32", q.tobytes(), "K", 10, "EF", EF]
            if user is not None:
                a += ["USER", user]
            reply = c.execute_command(*a)
            return [m[1].decode() for m in reply]

        def ft_query(c, q, user, touch):
            now_s = time.time()
            pre = f"(@user:{{{user}}})" if user is not None else "*"
            reply = c.execute_command(
                "FT.AGGREGATE", "idx", f"{pre}=>[KNN 40 @vector $q EF_RUNTIME {EF} AS dist]", "PARAMS", 2, "q",
                q.tobytes(), "DIALECT", 2, "LOAD", 3, "@__key", "@last_accessed", "@created_at",
                "APPLY", "1 - @dist/2", "AS", "sim",
                "APPLY", f"0.6*pow(2, -({now_s:.3f} - @last_accessed)/{7 * DAY_S}) + "
                         f"0.4*pow(2, -({now_s:.3f} - @created_at)/{30 * DAY_S})", "AS", "rec",
                "APPLY", "0.8*@sim + 0.2*@rec", "AS", "score",
                "SORTBY", 2, "@score", "DESC", "LIMIT", 0, 10)
            keys = []
            for row in reply[1:]:
                d = dict(zip(row[0::2], row[1::2]))
                keys.append(d[b"__key"].decode())
            if touch and keys:
                pp = c.pipeline(transaction=False)
                for k in keys:
                    pp.hset(k, "last_accessed", int(now_s))
                pp.execute()
            return [k[4:] for k in keys]

        # Agreement of the two rankings: both record the accesses (MEM.SEARCH in the
        # server, TOUCH-INTERVAL 0; the FT way by HSET), so their states stay alike.
        c = redis.Redis(port=port)
        overlap = []
        for qi in range(50):
            a = mem_query(c, queries[qi], None)
            b = ft_query(c, queries[qi], None, True)
            overlap.append(len(set(a) & set(b)) / max(1, len(b)))
        results["top10_overlap"] = round(float(np.mean(overlap)), 3)
        print(f"top-10 overlap MEM.SEARCH vs FT.AGGREGATE: {results['top10_overlap']}", flush=True)

        ways = {
            "mem": lambda c, q, u: mem_query(c, q, u),
            "ft": lambda c, q, u: ft_query(c, q, u, False),
            "ft+touch": lambda c, q, u: ft_query(c, q, u, True),
        }
        for filt in args.filters.split(","):
            for nclients in [int(x) for x in args.clients.split(",")]:
                for way in args.ways.split(","):
                    fn = ways[way]
                    lat = [[] for _ in range(nclients)]

                    def client(ci):
                        cc = redis.Redis(port=port)
                        for j in range(args.queries):
                            qi = (ci * 7919 + j) % len(queries)
                            u = f"u{qi % USERS}" if filt == "user" else None
                            t = time.perf_counter()
                            fn(cc, queries[qi], u)
                            lat[ci].append(time.perf_counter() - t)
                        cc.close()

                    threads = [threading.Thread(target=client, args=(ci,)) for ci in range(nclients)]
                    r.execute_command("CONFIG", "RESETSTAT")
                    t0 = time.perf_counter()
                    for t in threads:
                        t.start()
                    for t in threads:
                        t.join()
                    wall = time.perf_counter() - t0
                    all_lat = [x for l in lat for x in l]
                    stats = r.info("commandstats")
                    server_us = {k[len("cmdstat_"):]: v["usec_per_call"] for k, v in stats.items()
                                 if k in ("cmdstat_mem.search", "cmdstat_ft.aggregate", "cmdstat_hset")}
                    pt = {"filter": filt, "clients": nclients, "way": way,
                          "qps": round(len(all_lat) / wall, 1),
                          "p50_ms": round(pct(all_lat, 50) * 1000, 3),
                          "p99_ms": round(pct(all_lat, 99) * 1000, 3),
                          "server_usec_per_call": server_us, "load": loadavg()}
                    results["points"].append(pt)
                    print(json.dumps(pt), flush=True)
    finally:
        proc.terminate()
        proc.wait(10)
    results["load_after"] = loadavg()
    (out / "results.json").write_text(json.dumps(results, indent=1))
    lines = [f"# MEM.SEARCH vs FT.AGGREGATE + APPLY (agent memory), {stamp} UTC", "",
             f"- Command: `{results['command']}`",
             f"- Server: `{' '.join(argv)}`",
             f"- Machine: {results['machine']['cpu']}, {results['machine']['cores']} cores, "
             f"kernel {results['machine']['kernel']}. **Shared and loaded** (other sessions "
             f"build and test on the same 2 cores): load average {results['load_before']} before, "
             f"{results['load_after']} after; the client (Python, redis-py) runs on the same cores.",
             f"- Data: {args.n} memories x {args.dim} dims, 20 users; load: MEM.ADD "
             f"{results['load_s']['mem_add']} s, HSET + FT index {results['load_s']['hset_ft']} s.",
             f"- Top-10 agreement of the two rankings (50 queries): {results['top10_overlap']}",
             "", "q/s and latency at the client (Python); server µs per call from INFO commandstats.",
             "", "| filter | clients | way | q/s | p50 ms | p99 ms | server µs/call |",
             "|---|---|---|---|---|---|---|"]
    for pt in results["points"]:
        us = ", ".join(f"{k} {v}" for k, v in sorted(pt["server_usec_per_call"].items()))
        lines.append(f"| {pt['filter']} | {pt['clients']} | {pt['way']} | {pt['qps']} | "
                     f"{pt['p50_ms']} | {pt['p99_ms']} | {us} |")
    (out / "summary.md").write_text("\n".join(lines) + "\n")
    print(f"results in {out}")


if __name__ == "__main__":
    main()
