#!/usr/bin/python3
"""Where an indexed HSET's instructions go (issue 18: index build rate over HSET).

    bench/ftbuild_callgrind.py --out bench/results/ftbuild_<date> [--warm 300 --n 100]

Starts hotkv-server (--threads 1) under callgrind with instrumentation off, creates the
FT index of bench/ft_vector.py (HNSW, COSINE, 784-d, M 16, EF_CONSTRUCTION 200, a NUMERIC
`bucket`), HSETs the first --warm Fashion-MNIST training images uninstrumented (so the
graph is not trivially small), then with instrumentation on, one dump per form:

  hset_indexed  HSET doc:<i> v <blob> bucket <b>    (the next --n images: indexed)
  hset_plain    HSET plain:<i> v <blob> bucket <b>  (same values, outside the PREFIX)

and prints the instructions per HSET of the steps (inclusive): the command as dispatched,
the keyspace observer, SearchIndex::Sync, VectorField::Set, the HNSW insert
(HnswIndex::Add), so that the query/index layer's own part (Sync minus the insert) and
the HSET's part can be read off. Counts exclude Worker::Cron (timers, active expiry:
per tick, so under valgrind they follow wall time).
"""
import argparse
import gzip
import os
import re
import struct
import subprocess
import sys
import time
from pathlib import Path

import redis

ROOT = Path(__file__).resolve().parent.parent
FASHION = Path("/usr/share/datasets/fashion-mnist")

# Inclusive cost of these functions (first match of each pattern in callgrind_annotate).
STEPS = [
    ("dispatch (whole command)", r"hotkv::Dispatch\(hotkv::Worker&, hotkv::Client&"),
    ("HSET command", r"hotkv::\S*HSet(Generic|Command)\("),
    ("keyspace observers (KeyModified)", r"hotkv::CommandContext::KeyModified"),
    ("search observer OnKeyChanged", r"SearchObserver::OnKeyChanged"),
    ("SearchIndex::Sync", r"hotkv::search::SearchIndex::Sync\("),
    ("SearchIndex::IndexEntry", r"hotkv::search::SearchIndex::IndexEntry\("),
    ("VectorField::Set", r"hotkv::search::VectorField::Set\("),
    ("HnswIndex::Add (the insert)", r"hotkv::vector::HnswIndex::Add\("),
    ("HnswIndex::InsertNode", r"hotkv::vector::HnswIndex::InsertNode\("),
    ("Worker::Cron (excluded)", r"hotkv::Worker::Cron\("),
]


def images(name, limit):
    with gzip.open(FASHION / name, "rb") as f:
        magic, n, rows, cols = struct.unpack(">IIII", f.read(16))
        n = min(n, limit)
        dim = rows * cols
        raw = f.read(n * dim)
    return [struct.pack("%df" % dim, *raw[i * dim:(i + 1) * dim]) for i in range(n)], dim


def inclusive(path):
    out = subprocess.run(["callgrind_annotate", "--inclusive=yes", "--threshold=100", str(path)],
                         capture_output=True, text=True).stdout
    total = 0
    found = {}
    for line in out.splitlines():
        m = re.match(r"\s*([\d,]+)\s", line)
        if not m:
            continue
        n = int(m.group(1).replace(",", ""))
        if "PROGRAM TOTALS" in line:
            total = n
            continue
        for name, pat in STEPS:
            if name not in found and re.search(pat, line):
                found[name] = n
    return total, found


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--server", default=str(ROOT / "build/release/hotkv-server"))
    ap.add_argument("--out", required=True)
    ap.add_argument("--warm", type=int, default=300)
    ap.add_argument("--n", type=int, default=100)
    ap.add_argument("--port", type=int, default=23951)
    a = ap.parse_args()
    out = Path(a.out)
    out.mkdir(parents=True, exist_ok=True)
    load_at_start = open("/proc/loadavg").read().strip()
    head = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"],
                          capture_output=True, text=True).stdout.strip()
    started = time.strftime("%Y-%m-%d %H:%M:%S %Z")
    docs, dim = images("train-images-idx3-ubyte.gz", a.warm + a.n)
    cmd = ["valgrind", "--tool=callgrind", "--instr-atstart=no", "--fair-sched=yes",
           "--callgrind-out-file=%s/callgrind.%%p.out" % out, a.server, "--port", str(a.port),
           "--save", "", "--threads", "1"]
    srv = subprocess.Popen(cmd, stdout=open(out / "server.log", "w"), stderr=subprocess.STDOUT)
    rows = {}
    try:
        r = redis.Redis(port=a.port)
        for _ in range(600):
            try:
                r.ping()
                break
            except redis.ConnectionError:
                time.sleep(0.5)
        r.execute_command("FT.CREATE", "idx", "ON", "HASH", "PREFIX", "1", "doc:", "SCHEMA", "v",
                          "VECTOR", "HNSW", "10", "TYPE", "FLOAT32", "DIM", str(dim),
                          "DISTANCE_METRIC", "COSINE", "M", "16", "EF_CONSTRUCTION", "200",
                          "bucket", "NUMERIC")
        t0 = time.time()
        p = r.pipeline(transaction=False)
        for i in range(a.warm):
            p.hset("doc:%d" % i, mapping={"v": docs[i], "bucket": i % 100})
            if i % 100 == 99:
                p.execute()
        p.execute()
        print("warm-up: %d vectors in %.0f s" % (a.warm, time.time() - t0), flush=True)
        pid = str(srv.pid)
        subprocess.run(["callgrind_control", "-i", "on", pid], check=True, capture_output=True)
        forms = {"hset_indexed": "doc:%d", "hset_plain": "plain:%d"}
        for name, pattern in forms.items():
            subprocess.run(["callgrind_control", "-z", pid], check=True, capture_output=True)
            for i in range(a.warm, a.warm + a.n):
                r.hset(pattern % i, mapping={"v": docs[i], "bucket": i % 100})
            subprocess.run(["callgrind_control", "-d", name, pid], check=True, capture_output=True)
            time.sleep(0.5)
            dumps = sorted(out.glob("callgrind.%s.out.*" % pid), key=os.path.getmtime)
            final = out / ("%s.callgrind" % name)
            dumps[-1].rename(final)
            with open(out / ("%s.annotate.txt" % name), "w") as fo:
                subprocess.run(["callgrind_annotate", "--inclusive=yes", str(final)], stdout=fo,
                               stderr=subprocess.DEVNULL)
            rows[name] = inclusive(final)
            print("%s done" % name, flush=True)
        assert int(r.execute_command("FT.SEARCH", "idx", "*", "LIMIT", "0", "0")[0]) == a.warm + a.n
    finally:
        srv.terminate()
        srv.wait(timeout=120)
        for leftover in out.glob("callgrind.*.out*"):
            leftover.unlink()
    lines = ["command: %s" % " ".join(sys.argv),
             "server: %s (worktree HEAD at start: %s)" % (a.server, head),
             "started: %s; loadavg at start: %s" % (started, load_at_start),
             "index: HNSW COSINE %d-d M 16 EF_CONSTRUCTION 200 + NUMERIC; %d vectors before, "
             "%d HSETs measured per form" % (dim, a.warm, a.n),
             "", "instructions per HSET (inclusive):", ""]
    for name, (total, found) in rows.items():
        cron = found.get("Worker::Cron (excluded)", 0)
        lines.append("%s: whole process %s, without Worker::Cron %s" % (
            name, format(total // a.n, ","), format((total - cron) // a.n, ",")))
        for step, _ in STEPS[:-1]:
            if step in found:
                lines.append("  %-36s %12s" % (step, format(found[step] // a.n, ",")))
        lines.append("")
    f = rows.get("hset_indexed", (0, {}))[1]
    if "SearchIndex::Sync" in f and "HnswIndex::Add (the insert)" in f:
        own = f["SearchIndex::Sync"] - f["HnswIndex::Add (the insert)"]
        lines.append("query/index layer's own part (Sync minus HnswIndex::Add): %s per HSET "
                     "(%.2f %% of the indexed HSET)" % (
                         format(own // a.n, ","),
                         100.0 * own / max(1, f.get("dispatch (whole command)", 1))))
    text = "\n".join(lines) + "\n"
    (out / "summary.txt").write_text(text)
    print(text)


if __name__ == "__main__":
    main()
