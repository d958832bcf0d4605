#!/usr/bin/python3
"""Issue 19's semantic-cache benchmark (1): SCACHE.GET against the same cache done the
RedisVL way (FT.SEARCH VECTOR_RANGE, then EXPIRE on a hit) on the same HotKV server.

    bench/ai_scache.py                                  # 100,000 prompts x 1536 dims
    bench/ai_scache.py --n 5000 --seconds 2             # a quick look / build-rate probe
    bench/ai_scache.py --attach 7104                    # a server already running
    bench/ai_scache.py --n 50000 --repeat 2             # every point twice, in turn

Data (numpy, seeded): --n cached prompts of --dim dims in --clusters topics. A prompt's
embedding is its topic's centre plus noise (cosine ~0.6 between prompts of a topic, ~0
across topics), so no two cached prompts are within the threshold of each other. Hit
queries are a cached embedding plus small noise (cosine ~0.98 with it: distance ~0.02,
inside RedisVL's default threshold 0.1 = SCACHE similarity 0.95); miss queries are fresh
random vectors (cosine ~0 with everything). Each hit query knows which entry it must
find; hits are checked (a wrong or missing hit is counted, not timed differently).

Stores, both in one server (started here on a free port, unpinned, or --attach PORT):
- SCACHE.CREATE cache DIM d METRIC COSINE THRESHOLD 0.95 TTL 3600 (defaults M 16, EF 200)
  and one SCACHE.SET cache FP32 <blob> <response> PROMPT <prompt> per entry;
- RedisVL SemanticCache's layout: FT.CREATE llmcache ON HASH PREFIX 1 llmcache: SCHEMA
  prompt TEXT response TEXT inserted_at NUMERIC updated_at NUMERIC prompt_vector VECTOR
  HNSW (M 16, EF_CONSTRUCTION 200, cosine) and per entry HSET llmcache:<i> ... + EXPIRE
  3600. (RedisVL's default algorithm is FLAT; HNSW is the fast choice for 100k entries
  and the one SCACHE uses, so the comparison is index against index.)
Loads run over 4 connections, 16 commands in flight each; build rate = entries/s.

Lookups (closed loop: each client a process with one redis-py connection, one lookup in
flight; --seconds per point after a warm-up pass), at each client count in --clients:
- scache-exact:    SCACHE.GET cache FP32 <hit vec> PROMPT <cached prompt, case/space
                   changed>                      -> exact strategy, no vector search
- scache-semantic: SCACHE.GET cache FP32 <hit vec> PROMPT <a paraphrase> -> exact misses,
                   semantic hits
- scache-miss:     SCACHE.GET cache FP32 <random> PROMPT <new text>
- ft-hit:          FT.SEARCH llmcache "@prompt_vector:[VECTOR_RANGE $distance_threshold
                   $vector]=>{$YIELD_DISTANCE_AS: vector_distance}" RETURN 6 entry_id
                   prompt response vector_distance inserted_at updated_at SORTBY
                   vector_distance ASC LIMIT 0 1 DIALECT 2 PARAMS 4 vector <hit vec>
                   distance_threshold 0.1, then EXPIRE <key> 3600 (RedisVL's check():
                   VectorRangeQuery num_results 1, then expire() per hit) — two round trips
- ft-miss:         the same FT.SEARCH with a random vector (no EXPIRE)
Per point: lookups/s, p50/p99 latency (ms, client side, whole lookup incl. the EXPIRE),
hit accuracy, server CPU per lookup, the server worker (CLIENT INFO io-thread) each
client's connection landed on, the 1-minute load average. Results: bench/results/ai-scache_<stamp>/summary.md
+ results.json.
"""
import argparse
import datetime
import json
import multiprocessing as mp
import os
import platform
import shlex
import sys
import tempfile
import threading
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE / "harness"))
sys.path.insert(0, str(HERE))
from common import Server, loadavg, log, proc_cpu_s, stop_all  # noqa: E402
from ft_vector import Conn, ReplyError, encode, info_field  # noqa: E402

ROOT = HERE.parent
TTL = 3600
FT_DISTANCE = 0.1            # RedisVL's default distance_threshold (cosine units 0..2)
SC_THRESHOLD = 1 - FT_DISTANCE / 2   # the same on SCACHE's similarity scale: 0.95
RETURN = ["entry_id", "prompt", "response", "vector_distance", "inserted_at", "updated_at"]
FT_QUERY = ("@prompt_vector:[VECTOR_RANGE $distance_threshold $vector]"
            "=>{$YIELD_DISTANCE_AS: vector_distance}")
FT_KNN = "*=>[KNN 1 @prompt_vector $vector AS vector_distance]"
WORDS = ("how what why when which does can should the a of to in for with on is are my "
         "your model cache vector index server memory token prompt answer query data "
         "python redis latency cost price order refund account password shipping").split()


# ---------------------------------------------------------------------------------------
# Data


class Data:
    def __init__(self, n, dim, clusters, nq, seed=19):
        import numpy as np
        rng = np.random.default_rng(seed)
        self.n, self.dim = n, dim

        def unit(x):
            return (x / np.linalg.norm(x, axis=1, keepdims=True)).astype(np.float32)

        centres = unit(rng.standard_normal((clusters, dim), dtype=np.float32))
        topic = rng.integers(0, clusters, n)
        self.blobs = []
        self.vecs = np.empty((n, dim), dtype=np.float32)
        for s in range(0, n, 10000):  # chunks: bounded temporary memory at 100k x 1536
            e = min(n, s + 10000)
            noise = unit(rng.standard_normal((e - s, dim), dtype=np.float32))
            self.vecs[s:e] = unit(0.6 ** 0.5 * centres[topic[s:e]] + 0.4 ** 0.5 * noise)
        self.blobs = [row.tobytes() for row in self.vecs]
        wr = rng.integers(0, len(WORDS), (n, 8))
        self.prompts = [f"Q{i} " + " ".join(WORDS[w] for w in wr[i]) + f" topic {topic[i]}?"
                        for i in range(n)]
        self.responses = [f"answer {i}: " + "lorem ipsum " * 16 for i in range(n)]
        # Queries: nq hits (a cached vector + noise, cosine ~0.98) and nq misses.
        self.targets = rng.choice(n, size=min(nq, n), replace=False)
        s = 0.2  # |noise| 0.2 against a unit vector: cosine 1/sqrt(1.04) = 0.98
        noise = unit(rng.standard_normal((len(self.targets), dim), dtype=np.float32))
        self.hit_blobs = [r.tobytes() for r in unit(self.vecs[self.targets] + s * noise)]
        self.miss_blobs = [r.tobytes() for r in
                           unit(rng.standard_normal((nq, dim), dtype=np.float32))]
        sims = np.einsum("ij,ij->i", unit(self.vecs[self.targets] + s * noise),
                         self.vecs[self.targets])
        self.hit_cos = (float(sims.min()), float(sims.mean()))


# ---------------------------------------------------------------------------------------
# Loading


def load(port, cmds_of, n, conns=4, depth=16):
    """Sends cmds_of(i) (one or more encoded commands) for i in range(n) over `conns`
    connections, `depth` entries in flight each. Returns (seconds, errors)."""
    errors = []

    def worker(w):
        c = Conn(port)
        idxs = list(range(w, n, conns))
        for s in range(0, len(idxs), depth):
            batch = [cmds_of(i) for i in idxs[s:s + depth]]
            c.send(b"".join(b"".join(x) for x in batch))
            for x in batch:
                for _ in x:
                    v = c.read()
                    if isinstance(v, ReplyError) and len(errors) < 5:
                        errors.append(str(v))
        c.close()

    threads = [threading.Thread(target=worker, args=(w,)) for w in range(conns)]
    t0 = time.monotonic()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return time.monotonic() - t0, errors


def build(port, data, which, pid, commands):
    c = Conn(port)
    if which == "scache":
        create = ["SCACHE.CREATE", "cache", "DIM", str(data.dim), "METRIC", "COSINE",
                  "THRESHOLD", str(SC_THRESHOLD), "TTL", str(TTL)]
        c.call(*create)
        commands.append(" ".join(create))
        commands.append("SCACHE.SET cache FP32 <blob> <response> PROMPT <prompt>  "
                        "(4 connections, 16 in flight each)")

        def cmds(i):
            return [encode("SCACHE.SET", "cache", "FP32", data.blobs[i], data.responses[i],
                           "PROMPT", data.prompts[i])]
    else:
        create = ["FT.CREATE", "llmcache", "ON", "HASH", "PREFIX", "1", "llmcache:", "SCHEMA",
                  "prompt", "TEXT", "response", "TEXT", "inserted_at", "NUMERIC", "updated_at",
                  "NUMERIC", "prompt_vector", "VECTOR", "HNSW", "10", "TYPE", "FLOAT32", "DIM",
                  str(data.dim), "DISTANCE_METRIC", "COSINE", "M", "16", "EF_CONSTRUCTION", "200"]
        c.call(*create)
        commands.append(" ".join(create))
        commands.append("HSET llmcache:<i> entry_id <i> prompt <prompt> response <response> "
                        "prompt_vector <blob> inserted_at <t> updated_at <t> + EXPIRE "
                        f"llmcache:<i> {TTL}  (4 connections, 16 entries in flight each)")
        now = f"{time.time():.3f}"

        def cmds(i):
            key = f"llmcache:{i}"
            return [encode("HSET", key, "entry_id", str(i), "prompt", data.prompts[i],
                           "response", data.responses[i], "prompt_vector", data.blobs[i],
                           "inserted_at", now, "updated_at", now),
                    encode("EXPIRE", key, str(TTL))]
    mem0 = int(info_field(c, "memory", "used_memory") or 0)
    s0 = proc_cpu_s(pid) if pid else None
    secs, errs = load(port, cmds, data.n)
    s1 = proc_cpu_s(pid) if pid else None
    if which == "scache":
        info = c.call("SCACHE.INFO", "cache")
        d = {info[i].decode(): info[i + 1] for i in range(0, len(info) - 1, 2)}
        count = int(d["entries"])
    else:
        count = int(c.call("FT.SEARCH", "llmcache", "*", "LIMIT", "0", "0")[0])
    mem = (int(info_field(c, "memory", "used_memory") or 0) - mem0) / 2**20
    c.close()
    r = {"entries": count, "seconds": round(secs, 3), "entries_per_s": data.n / secs,
         "server_cpu_us_per_entry": (1e6 * (s1 - s0) / data.n) if s0 is not None else None,
         "used_memory_mb": mem, "errors": errs}
    log(f"{which}: {count} entries in {secs:.1f} s ({data.n / secs:,.0f}/s)")
    return r


# ---------------------------------------------------------------------------------------
# Lookups: closed loop, one process per client, redis-py


def _client(port, kind, queries, start, deadline, min_count, outq):
    import redis
    r = redis.Redis(host="127.0.0.1", port=port)
    r.ping()
    # The worker (io-thread) serving this connection: the kernel spreads connections over
    # the workers' SO_REUSEPORT listeners by a hash, so 4 clients can land 3 + 1 or 4 + 0.
    try:
        worker = int(r.execute_command("CLIENT", "INFO").split(b"io-thread=", 1)[1].split()[0])
    except Exception:  # noqa: BLE001 - a peer without the field
        worker = None
    lat, ok, wrong, none = [], 0, 0, 0
    errors = []
    nq = len(queries)
    i = start
    done = 0
    while True:
        args, want = queries[i % nq]
        i += 1
        t0 = time.perf_counter()
        try:
            if kind.startswith("ft-knn"):
                v = r.execute_command(*args)
                got = None
                if v and v[0] > 0:
                    fields = v[2]
                    d = float(fields[fields.index(b"vector_distance") + 1])
                    if d <= FT_DISTANCE:  # KNN 1, threshold checked by the client
                        key = v[1]
                        r.execute_command("EXPIRE", key, TTL)
                        got = int(key.split(b":", 1)[1])
            elif kind.startswith("ft"):
                v = r.execute_command(*args)
                got = None
                if v and v[0] > 0:
                    key = v[1]
                    r.execute_command("EXPIRE", key, TTL)  # RedisVL: expire() per hit key
                    got = int(key.split(b":", 1)[1])
            else:
                v = r.execute_command(*args)
                got = None if v is None else int(v.split(b" ", 2)[1].rstrip(b":"))
        except redis.ResponseError as e:
            got = None
            if len(errors) < 3:
                errors.append(str(e))
        t1 = time.perf_counter()
        lat.append(t1 - t0)
        if got is None:
            none += 1
        elif got == want:
            ok += 1
        else:
            wrong += 1
        done += 1
        if t1 >= deadline and done >= min_count:
            break
    outq.put({"lat": lat, "ok": ok, "wrong": wrong, "none": none, "errors": errors,
              "worker": worker})


def closed_loop(port, pid, kind, queries, clients, seconds):
    ctx = mp.get_context("fork")
    outq = ctx.Queue()
    nq = len(queries)
    # Everyone starts together, after the processes are up.
    t_start = time.perf_counter() + 0.5
    deadline = t_start + seconds
    min_count = max(1, nq // clients) if seconds > 0 else max(1, -(-nq // clients))
    procs = [ctx.Process(target=_starter, args=(t_start, port, kind, queries, (c * nq) // clients,
                                                deadline, min_count, outq))
             for c in range(clients)]
    for p in procs:
        p.start()
    s0 = proc_cpu_s(pid) if pid else None
    rs = [outq.get() for _ in procs]
    t_end = time.perf_counter()
    s1 = proc_cpu_s(pid) if pid else None
    for p in procs:
        p.join()
    lat = sorted(x for r in rs for x in r["lat"])
    done = len(lat)
    wall = t_end - t_start
    return {"kind": kind, "clients": clients, "lookups": done, "seconds": round(wall, 3),
            "lookups_per_s": done / wall,
            "p50_ms": 1000 * lat[len(lat) // 2],
            "p99_ms": 1000 * lat[min(len(lat) - 1, int(len(lat) * 0.99))],
            "hits_right": sum(r["ok"] for r in rs), "hits_wrong": sum(r["wrong"] for r in rs),
            "misses": sum(r["none"] for r in rs),
            "server_cpu_us": (1e6 * (s1 - s0) / done) if s0 is not None else None,
            "workers": " ".join(f"w{w}:{sum(1 for r in rs if r['worker'] == w)}"
                                for w in sorted({r["worker"] for r in rs if r["worker"] is not None})),
            "loadavg": loadavg().split()[0],
            "errors": [e for r in rs for e in r["errors"]][:3]}


def _starter(t_start, *args):
    d = t_start - time.perf_counter()
    if d > 0:
        time.sleep(d)
    _client(*args)


def make_queries(data):
    """kind -> [(args, expected entry or None)]."""
    q = {}
    tg = [int(t) for t in data.targets]
    q["scache-exact"] = [(("SCACHE.GET", "cache", "FP32", data.hit_blobs[j], "PROMPT",
                           "  " + data.prompts[t].upper().replace(" ", "   ") + " "), t)
                         for j, t in enumerate(tg)]
    q["scache-semantic"] = [(("SCACHE.GET", "cache", "FP32", data.hit_blobs[j], "PROMPT",
                              "Could you tell me " + data.prompts[t].lower()), t)
                            for j, t in enumerate(tg)]
    q["scache-miss"] = [(("SCACHE.GET", "cache", "FP32", b, "PROMPT",
                          f"a prompt never asked {j}"), None)
                        for j, b in enumerate(data.miss_blobs)]

    def ft(blob):
        return ("FT.SEARCH", "llmcache", FT_QUERY, "RETURN", str(len(RETURN)), *RETURN,
                "SORTBY", "vector_distance", "ASC", "LIMIT", "0", "1", "DIALECT", "2",
                "PARAMS", "4", "vector", blob, "distance_threshold", str(FT_DISTANCE))
    q["ft-hit"] = [(ft(data.hit_blobs[j]), t) for j, t in enumerate(tg)]
    q["ft-miss"] = [(ft(b), None) for b in data.miss_blobs]

    def knn(blob):
        return ("FT.SEARCH", "llmcache", FT_KNN, "RETURN", str(len(RETURN)), *RETURN,
                "LIMIT", "0", "1", "DIALECT", "2", "PARAMS", "2", "vector", blob)
    q["ft-knn-hit"] = [(knn(data.hit_blobs[j]), t) for j, t in enumerate(tg)]
    q["ft-knn-miss"] = [(knn(b), None) for b in data.miss_blobs]
    return q


# ---------------------------------------------------------------------------------------
# Report


def fmt(v, spec=",.0f"):
    return "-" if v is None else format(v, spec)


LABEL = {"scache-exact": "SCACHE.GET exact hit", "scache-semantic": "SCACHE.GET semantic hit",
         "scache-miss": "SCACHE.GET miss", "ft-hit": "FT.SEARCH + EXPIRE hit",
         "ft-miss": "FT.SEARCH miss", "ft-knn-hit": "FT.SEARCH KNN 1 + EXPIRE hit",
         "ft-knn-miss": "FT.SEARCH KNN 1 miss"}


def render(out):
    L = [f"# Semantic cache: SCACHE.GET vs FT.SEARCH VECTOR_RANGE + EXPIRE on HotKV (issue 19), "
         f"{out['date']}", "",
         f"Machine: {out['machine']}; load average at start {out['loadavg']}. Command: "
         f"`{out['command']}`. Server: {out['server']}.", "",
         f"Data: {out['n']:,} cached prompts x {out['dim']} dims (synthetic, seeded, "
         f"{out['clusters']} topics), {out['queries']} hit and {out['queries']} miss queries; "
         f"hit queries' cosine with their entry: min {out['hit_cos'][0]:.4f}, mean "
         f"{out['hit_cos'][1]:.4f}; threshold: SCACHE 0.95 similarity = FT distance 0.1. "
         f"Client: one process per client (redis-py {out['redis_py']}, no hiredis), closed "
         f"loop, {out['seconds']} s per point and at least every query once, after a warm-up pass; latency = the whole "
         "lookup seen by the client (FT hit: FT.SEARCH + EXPIRE).", ""]
    if out.get("note"):
        L += [out["note"], ""]
    L += ["## Build (4 connections, 16 entries in flight each)", "",
          "| store | entries | entries/s | server CPU µs/entry | used_memory growth MB |",
          "|---|---|---|---|---|"]
    for k, b in out["build"].items():
        L.append(f"| {k} | {b['entries']:,} | {b['entries_per_s']:,.0f} | "
                 f"{fmt(b['server_cpu_us_per_entry'])} | {b['used_memory_mb']:,.1f} |")
    L += ["", "## Lookups", "",
          "| lookup | clients | round | lookups/s | p50 ms | p99 ms | right hits | wrong hits | misses | server CPU µs/lookup | clients per worker (io-thread) | load (1 min) |",
          "|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in out["points"]:
        L.append(f"| {LABEL[r['kind']]} | {r['clients']} | {r.get('rep', 0) + 1} | {r['lookups_per_s']:,.0f} | "
                 f"{r['p50_ms']:.3f} | {r['p99_ms']:.3f} | {r['hits_right']} | {r['hits_wrong']} | "
                 f"{r['misses']} | {fmt(r['server_cpu_us'])} | {r.get('workers', '-')} | {r.get('loadavg', '-')} |")
    by = {(r["kind"], r["clients"], r.get("rep", 0)): r for r in out["points"]}
    L += ["", "## Targets", "",
          "| clients (round) | SCACHE semantic hit p50 / FT+EXPIRE hit p50 (≤ 0.5) | SCACHE exact hit p50 / FT+EXPIRE hit p50 | exact p50 / semantic p50 (≤ 0.2) | SCACHE miss p50 / FT miss p50 | SCACHE semantic hit p50 / FT KNN 1 + EXPIRE hit p50 | SCACHE miss p50 / FT KNN 1 miss p50 |",
          "|---|---|---|---|---|---|---|"]
    for cl, rep in [(cl, rep) for rep in range(out.get("repeat", 1)) for cl in out["clients"]]:
        sem, ex, fh = (by.get(("scache-semantic", cl, rep)), by.get(("scache-exact", cl, rep)),
                       by.get(("ft-hit", cl, rep)))
        sm, fm = by.get(("scache-miss", cl, rep)), by.get(("ft-miss", cl, rep))

        def ratio(a, b):
            return f"{a['p50_ms'] / b['p50_ms']:.2f}" if a and b else "-"
        kh, km = by.get(("ft-knn-hit", cl, rep)), by.get(("ft-knn-miss", cl, rep))
        L.append(f"| {cl} ({rep + 1}) | {ratio(sem, fh)} | {ratio(ex, fh)} | {ratio(ex, sem)} | {ratio(sm, fm)} | "
                 f"{ratio(sem, kh)} | {ratio(sm, km)} |")
    errs = [(r["kind"], e) for r in out["points"] for e in r["errors"]]
    errs += [(k, e) for k, b in out["build"].items() for e in b["errors"]]
    if errs:
        L += ["", "Errors (first of each):", ""] + [f"- {k}: `{e}`" for k, e in errs[:10]]
    L += ["", "Commands:", "", "```"] + out["commands"] + ["```", ""]
    return "\n".join(L)


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--attach", type=int, metavar="PORT", help="use a running server (FLUSHALLs it)")
    p.add_argument("--build-dir", default=str(ROOT / "build" / "release"))
    p.add_argument("--n", type=int, default=100000, help="cached prompts")
    p.add_argument("--dim", type=int, default=1536)
    p.add_argument("--clusters", type=int, default=1000)
    p.add_argument("--queries", type=int, default=1000, help="hit queries, and as many misses")
    p.add_argument("--clients", default="1,4,16")
    p.add_argument("--seconds", type=float, default=3.0)
    p.add_argument("--repeat", type=int, default=1,
                   help="rounds of every client count and kind, one after the other "
                        "(each round runs the kinds in turn: an A/B under a changing load)")
    p.add_argument("--kinds", default="scache-exact,scache-semantic,scache-miss,ft-hit,ft-miss")
    p.add_argument("--stores", default="scache,ft", help="which stores to build (profiling: scache)")
    p.add_argument("--build-only", action="store_true", help="stop after the builds")
    p.add_argument("--note", default="", help="a paragraph for summary.md (why this N, load...)")
    p.add_argument("--out", help="results folder (default bench/results/ai-scache_<stamp>)")
    a = p.parse_args()
    a.clients = [int(x) for x in a.clients.split(",")]
    kinds = a.kinds.split(",")

    stamp = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d_%H%M%S")
    outdir = Path(a.out) if a.out else ROOT / "bench" / "results" / f"ai-scache_{stamp}"
    outdir.mkdir(parents=True, exist_ok=True)
    import redis
    out = {"date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
           "machine": f"{platform.node()} {os.cpu_count()} CPUs {platform.machine()} {platform.release()}",
           "loadavg": loadavg(), "command": shlex.join(["bench/ai_scache.py"] + sys.argv[1:]),
           "clients": a.clients, "seconds": a.seconds, "repeat": a.repeat, "clusters": a.clusters,
           "redis_py": redis.__version__, "note": a.note, "build": {}, "points": [],
           "commands": []}
    log(f"generating {a.n} x {a.dim} embeddings")
    data = Data(a.n, a.dim, a.clusters, a.queries)
    out.update({"n": data.n, "dim": data.dim, "queries": len(data.hit_blobs), "hit_cos": data.hit_cos})
    try:
        with tempfile.TemporaryDirectory(prefix="ai-scache-"):
            if a.attach:
                port, server = a.attach, None
                out["server"] = f"attached on port {port}"
            else:
                argv = [str(Path(a.build_dir) / "hotkv-server"), "--port", "{port}", "--bind", "127.0.0.1"]
                server = Server("hotkv", argv, f"0-{os.cpu_count() - 1}", outdir).start()
                port = server.port
                out["server"] = f"HotKV {Path(a.build_dir) / 'hotkv-server'}, unpinned"
            c = Conn(port)
            pid = info_field(c, "server", "process_id")
            pid = int(pid) if pid and Path(f"/proc/{pid}").exists() else None
            c.call("FLUSHALL")
            c.close()
            for which in a.stores.split(","):
                out["build"][which] = build(port, data, which, pid, out["commands"])
                (outdir / "results.json").write_text(json.dumps(out, indent=1, default=str))
            if not a.build_only:
                queries = make_queries(data)
                out["commands"].append("SCACHE.GET cache FP32 <blob> PROMPT <text>")
                for k in ("ft-hit", "ft-knn-hit"):
                    if k in kinds:
                        out["commands"].append(
                            " ".join(str(x) if not isinstance(x, bytes) else "<blob>"
                                     for x in queries[k][0][0]) +
                            f"  then on a hit: EXPIRE <key> {TTL}" +
                            ("  (hit: vector_distance <= 0.1, checked by the client)"
                             if k == "ft-knn-hit" else ""))
                for kind in kinds:  # warm-up: every query once
                    closed_loop(port, pid, kind, queries[kind], max(a.clients), 0)
                for rep, cl in [(rep, cl) for rep in range(a.repeat) for cl in a.clients]:
                    for kind in kinds:
                        r = closed_loop(port, pid, kind, queries[kind], cl, a.seconds)
                        r["rep"] = rep
                        out["points"].append(r)
                        log(f"{kind} clients {cl} (round {rep + 1}, workers {r['workers']}): {r['lookups_per_s']:,.0f}/s p50 {r['p50_ms']:.3f} "
                            f"p99 {r['p99_ms']:.3f} ms right {r['hits_right']} wrong {r['hits_wrong']} "
                            f"miss {r['misses']}{' ERR ' + r['errors'][0] if r['errors'] else ''}")
                        (outdir / "results.json").write_text(json.dumps(out, indent=1, default=str))
            if server:
                server.stop()
    finally:
        stop_all()
    out["loadavg_end"] = loadavg()
    (outdir / "results.json").write_text(json.dumps(out, indent=1, default=str))
    text = render(out) + f"\nLoad average at the end: {out['loadavg_end']}.\n"
    (outdir / "summary.md").write_text(text)
    print(text)
    log(f"results in {outdir}")


if __name__ == "__main__":
    main()
