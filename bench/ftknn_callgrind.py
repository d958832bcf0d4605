#!/usr/bin/python3
"""FT.SEARCH KNN against VSIM in instructions (issue 18: the query layer's overhead).

    bench/ftknn_callgrind.py --out bench/results/ftknn_<date>/before [--limit 20000]

Starts hotkv-server (--threads 1) under callgrind with instrumentation off, loads the first --limit
Fashion-MNIST training images twice (HSET doc:<i> v <blob> into an FT index: HNSW, cosine,
M 16, EF_CONSTRUCTION 200, EF_RUNTIME --ef (40); VADD vs FP32 <blob> <i> NOQUANT M 16 EF 200 into a vector set),
runs every query once of each kind to warm up, then with instrumentation on runs --reps
passes over --queries test images of each form below, dumping the counts per form:

  ft_return  FT.SEARCH idx "*=>[KNN 10 @v $B]" PARAMS 2 B <blob> RETURN 1 __v_score DIALECT 2
  ft_plain   FT.SEARCH idx "*=>[KNN 10 @v $B]" PARAMS 2 B <blob> DIALECT 2   (every field)
  ft_nocontent  ... NOCONTENT
  vsim       VSIM vs FP32 <blob> COUNT 10 EF <--ef> WITHSCORES

Instructions per query (the whole server process: I/O threads, parsing, search, reply)
and the top functions of each form (callgrind_annotate) go to --out.
"""
import argparse
import gzip
import os
import struct
import subprocess
import sys
import time
from pathlib import Path

import redis

ROOT = Path(__file__).resolve().parent.parent
FASHION = Path("/usr/share/datasets/fashion-mnist")


def images(name, limit):
    with gzip.open(FASHION / name, "rb") as f:
        magic, n, rows, cols = struct.unpack(">IIII", f.read(16))
        n = min(n, limit)
        dim = rows * cols
        raw = f.read(n * dim)
    return [struct.pack("%df" % dim, *raw[i * dim:(i + 1) * dim]) for i in range(n)], dim


def totals(path):
    for line in open(path):
        if line.startswith("totals:") or line.startswith("summary:"):
            return int(line.split()[1])
    return 0


def cron(path):
    """Instructions that follow wall time, not the queries: Worker::Cron (timers, active
    expiry: per tick) and SlowLog::Add (under valgrind a query passes 10 ms now and then)."""
    out = subprocess.run(["callgrind_annotate", "--inclusive=yes", "--threshold=100", str(path)],
                         capture_output=True, text=True).stdout
    n = 0
    for line in out.splitlines():
        if "hotkv::Worker::Cron(" in line or "hotkv::SlowLog::Add(" in line:
            n += int(line.split()[0].replace(",", ""))
    return n


def summarize(out, n):
    """Per form: instructions per query, whole process and without Worker::Cron."""
    res = {}
    for f in sorted(out.glob("*.callgrind")):
        t = totals(f)
        res[f.stem] = (t / n, (t - cron(f)) / n)
    return res


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--server", default=str(ROOT / "build/release/hotkv-server"))
    ap.add_argument("--out", required=True)
    ap.add_argument("--summarize", type=int, default=0,
                    help="only re-read the dumps in --out (queries per form given)")
    ap.add_argument("--limit", type=int, default=20000)
    ap.add_argument("--queries", type=int, default=100)
    ap.add_argument("--reps", type=int, default=2)
    ap.add_argument("--port", type=int, default=23901)
    ap.add_argument("--ef", type=int, default=40)
    a = ap.parse_args()
    out = Path(a.out)
    if a.summarize:
        for name, (v, w) in summarize(out, a.summarize).items():
            print("%-13s %10.0f  %10.0f" % (name, v, w))
        return
    out.mkdir(parents=True, exist_ok=True)
    load_at_start = open("/proc/loadavg").read().strip()
    head = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"],
                          capture_output=True, text=True).stdout.strip()
    started = time.strftime("%Y-%m-%d %H:%M:%S %Z")
    docs, dim = images("train-images-idx3-ubyte.gz", a.limit)
    queries, _ = images("t10k-images-idx3-ubyte.gz", a.queries)
    # One worker thread, fair scheduling: valgrind runs one thread at a time, and a
    # second worker polling for work starves the first.
    cmd = ["valgrind", "--tool=callgrind", "--instr-atstart=no", "--fair-sched=yes",
           "--callgrind-out-file=%s/callgrind.%%p.out" % out, a.server, "--port", str(a.port),
           "--save", "", "--threads", "1"]
    srv = subprocess.Popen(cmd, stdout=open(out / "server.log", "w"), stderr=subprocess.STDOUT)
    try:
        r = redis.Redis(port=a.port)
        for _ in range(600):
            try:
                r.ping()
                break
            except redis.ConnectionError:
                time.sleep(0.5)
        t0 = time.time()
        r.execute_command("FT.CREATE", "idx", "ON", "HASH", "PREFIX", "1", "doc:", "SCHEMA", "v",
                          "VECTOR", "HNSW", "12", "TYPE", "FLOAT32", "DIM", str(dim),
                          "DISTANCE_METRIC", "COSINE", "M", "16", "EF_CONSTRUCTION", "200",
                          "EF_RUNTIME", str(a.ef))
        p = r.pipeline(transaction=False)
        for i, b in enumerate(docs):
            p.hset("doc:%d" % i, mapping={"v": b, "bucket": i % 100})
            p.execute_command("VADD", "vs", "FP32", b, str(i), "NOQUANT", "M", "16", "EF", "200")
            if i % 200 == 199:
                p.execute()
        p.execute()
        print("loaded %d in %.0f s" % (len(docs), time.time() - t0), flush=True)
        forms = {
            "ft_return": lambda q: ("FT.SEARCH", "idx", "*=>[KNN 10 @v $B]", "PARAMS", "2", "B", q,
                                    "RETURN", "1", "__v_score", "DIALECT", "2"),
            "ft_plain": lambda q: ("FT.SEARCH", "idx", "*=>[KNN 10 @v $B]", "PARAMS", "2", "B", q,
                                   "DIALECT", "2"),
            "ft_nocontent": lambda q: ("FT.SEARCH", "idx", "*=>[KNN 10 @v $B]", "PARAMS", "2", "B",
                                       q, "NOCONTENT", "DIALECT", "2"),
            "vsim": lambda q: ("VSIM", "vs", "FP32", q, "COUNT", "10", "EF", str(a.ef),
                               "WITHSCORES"),
        }
        for f in forms.values():
            for q in queries:
                r.execute_command(*f(q))
        pid = str(srv.pid)
        subprocess.run(["callgrind_control", "-i", "on", pid], check=True, capture_output=True)
        n = len(queries) * a.reps
        results = {}
        for name, f in forms.items():
            subprocess.run(["callgrind_control", "-z", pid], check=True, capture_output=True)
            for _ in range(a.reps):
                for q in queries:
                    r.execute_command(*f(q))
            subprocess.run(["callgrind_control", "-d", name, pid], check=True, capture_output=True)
            time.sleep(0.5)
            dumps = sorted(out.glob("callgrind.%s.out.*" % pid), key=os.path.getmtime)
            path = dumps[-1]
            final = out / ("%s.callgrind" % name)
            path.rename(final)
            with open(out / ("%s.annotate.txt" % name), "w") as fo:
                subprocess.run(["callgrind_annotate", "--inclusive=no", str(final)], stdout=fo,
                               stderr=subprocess.DEVNULL)
            print("%s done" % name, flush=True)
        results = summarize(out, n)
        with open(out / "summary.txt", "w") as fo:
            fo.write("command: %s\n" % " ".join(sys.argv))
            fo.write("server: %s (worktree HEAD at start: %s)\n" % (a.server, head))
            fo.write("started: %s\nloadavg at start: %s\n" % (started, load_at_start))
            fo.write("documents: %d x %d, queries: %d x %d reps, ef %d\n" % (
                len(docs), dim, len(queries), a.reps, a.ef))
            fo.write("instructions per query: whole process, and without Worker::Cron (timers,\n"
                     "active expiry: per tick, so under valgrind they follow wall time) and\n"
                     "SlowLog::Add (a query passes 10 ms under valgrind now and then)\n")
            for name, (v, w) in results.items():
                fo.write("%-13s %10.0f  %10.0f  (%.2fx vsim)\n" %
                         (name, v, w, w / results["vsim"][1]))
        print(open(out / "summary.txt").read())
    finally:
        srv.terminate()
        srv.wait(timeout=60)
        for leftover in out.glob("callgrind.*.out*"):
            leftover.unlink()


if __name__ == "__main__":
    main()
