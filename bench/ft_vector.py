#!/usr/bin/python3
"""Issue 18's vector benchmark: FT.SEARCH KNN through the query engine against VSIM on the
same data in the same server, HotKV against Redis 8.8 + RediSearch 2.10, in one run.

    bench/ft_vector.py                                   # Fashion-MNIST 60,000 x 784
    bench/ft_vector.py --limit 5000 --queries 200        # a quick look
    bench/ft_vector.py --servers redisearch --limit 2000 --efs 10,40
    bench/ft_vector.py --attach redisearch=7104          # a server already running

Data: Fashion-MNIST (Debian's dataset-fashion-mnist): the first --limit training images
(784 float32 pixels each) are the documents, the first --queries test images the queries;
cosine, HNSW M 16 / EF_CONSTRUCTION 200. Each document also gets a NUMERIC field `bucket`
in 0..99 (seeded random), so `@bucket:[0 0]`, `[0 9]`, `[0 49]` select 1 %, 10 %, 50 %.
Exact neighbours (cosine, float64 after normalising) come from numpy (python3-numpy).

Per server (started by this script on a free port, unpinned: client and server share the
machine's cores, as in the issue's RediSearch figures; or --attach NAME=PORT):
1. Build: FT.CREATE on an empty server, then HSET doc:<i> v <blob> bucket <b> over 4
   connections (16 commands in flight each) until FT.INFO num_docs = n: vectors/s and the
   server's CPU per vector. Then VADD vs FP32 <blob> <i> NOQUANT EF 200 M 16 SETATTR
   {"bucket": b} the same way (the vector set beside the index, same server).
2. KNN: FT.SEARCH idx "*=>[KNN 10 @v $B EF_RUNTIME ef]" PARAMS 2 B <blob> RETURN 1
   __v_score LIMIT 0 10 DIALECT 2, and VSIM vs FP32 <blob> COUNT 10 EF ef WITHSCORES, for
   each ef in --efs and each client count in --clients: closed loop (each client one
   connection, one query in flight), --seconds per point (at least every query once);
   q/s, recall@10 against the exact neighbours, p50/p99 latency, server CPU per query.
3. Filtered KNN: "@bucket:[0 s-1]=>[KNN 10 ...]" at 1 %, 10 %, 50 % and VSIM ... FILTER
   '.bucket < s' (its default FILTER-EF), recall against the exact neighbours among the
   allowed documents.

The client is one Python process driving every connection from one selector loop with
pre-encoded commands; its own CPU per query is reported (on 2 shared cores it competes
with the server). Results: bench/results/ft-vector_<date_time>/summary.md + results.json.
"""
import argparse
import datetime
import gzip
import json
import os
import platform
import resource
import selectors
import socket
import struct
import sys
import tempfile
import threading
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE / "harness"))
from common import CLK_TCK, Server, loadavg, log, proc_cpu_s, stop_all  # noqa: E402

ROOT = HERE.parent
# The peers: ../shared from the main checkout, ../../shared from a worktree (wt/<name>).
SHARED = next((p for p in (ROOT.parent / "shared", ROOT.parent.parent / "shared") if p.is_dir()),
              ROOT.parent / "shared")
PEER_88 = SHARED / "peers" / "redis-8.8" / "redis-server"
REDISEARCH = SHARED / "peers" / "redisearch-2.10" / "redisearch.so"
FASHION = Path("/usr/share/datasets/fashion-mnist")
NAMES = {"hotkv": "HotKV", "redisearch": "Redis 8.8 + RediSearch 2.10"}
K = 10


# ---------------------------------------------------------------------------------------
# Data and exact neighbours


def load_idx(path, limit):
    with gzip.open(path, "rb") as f:
        magic, n, rows, cols = struct.unpack(">IIII", f.read(16))
        assert magic == 0x803, path
        n = min(n, limit)
        raw = f.read(n * rows * cols)
    import numpy as np
    return np.frombuffer(raw, dtype=np.uint8).reshape(n, rows * cols).astype(np.float32)


class Data:
    def __init__(self, limit, nq, seed=7):
        import numpy as np
        self.base = load_idx(FASHION / "train-images-idx3-ubyte.gz", limit)
        self.queries = load_idx(FASHION / "t10k-images-idx3-ubyte.gz", nq)
        self.n, self.dim = self.base.shape
        self.bucket = np.random.default_rng(seed).integers(0, 100, self.n)
        self.blobs = [row.tobytes() for row in self.base]
        self.qblobs = [row.tobytes() for row in self.queries]
        b = self.base.astype(np.float64)
        b /= np.linalg.norm(b, axis=1, keepdims=True)
        q = self.queries.astype(np.float64)
        q /= np.linalg.norm(q, axis=1, keepdims=True)
        sims = q @ b.T  # (nq, n)
        self.truth = {100: self._top(sims)}
        for sel in (1, 10, 50):
            masked = np.where(self.bucket[None, :] < sel, sims, -np.inf)
            self.truth[sel] = self._top(masked)

    @staticmethod
    def _top(sims):
        import numpy as np
        idx = np.argpartition(-sims, K, axis=1)[:, :K]
        return [set(int(i) for i in row) for row in idx]


# ---------------------------------------------------------------------------------------
# RESP: encoding and an incremental parser


def encode(*args):
    out = [b"*%d\r\n" % len(args)]
    for a in args:
        if not isinstance(a, bytes):
            a = str(a).encode()
        out.append(b"$%d\r\n%s\r\n" % (len(a), a))
    return b"".join(out)


class Incomplete(Exception):
    pass


class ReplyError(Exception):
    pass


def parse(buf, pos=0):
    """One RESP2/RESP3 value from buf[pos:]: (value, next_pos); raises Incomplete."""
    end = buf.find(b"\r\n", pos)
    if end < 0:
        raise Incomplete
    t = buf[pos:pos + 1]
    line = bytes(buf[pos + 1:end])
    nxt = end + 2
    if t in (b"+", b"_", b",", b"#"):
        return line, nxt
    if t == b"-":
        return ReplyError(line.decode(errors="replace")), nxt
    if t == b":":
        return int(line), nxt
    if t in (b"$", b"="):
        n = int(line)
        if n < 0:
            return None, nxt
        if len(buf) < nxt + n + 2:
            raise Incomplete
        return bytes(buf[nxt:nxt + n]), nxt + n + 2
    if t in (b"*", b"%", b"~"):
        n = int(line)
        if t == b"%":
            n *= 2
        items = []
        for _ in range(max(n, 0)):
            v, nxt = parse(buf, nxt)
            items.append(v)
        return items, nxt
    raise ValueError(f"bad RESP type {t!r}")


def parse_fast(buf):
    """One RESP2 reply from the start of buf made of lines and bulk strings free of CRLF
    (every reply the timed loops read): one split and a walk, no recursion or slicing per
    element (the client shares the server's 2 CPUs, and FT.SEARCH replies hold twice
    VSIM's elements). (value, next_pos); None when the general parser must read it;
    raises Incomplete."""
    toks = bytes(buf).split(b"\r\n")
    n = len(toks) - 1  # complete lines
    i = 0
    stack = []
    while True:
        if i >= n:
            raise Incomplete
        t = toks[i]
        i += 1
        c = t[:1]
        if c == b"$":
            ln = int(t[1:])
            if ln < 0:
                v = None
            else:
                if i >= n:
                    raise Incomplete
                v = toks[i]
                i += 1
                if len(v) != ln:
                    return None  # a CRLF inside the string
        elif c == b"*":
            cnt = int(t[1:])
            if cnt > 0:
                stack.append([[], cnt])
                continue
            v = [] if cnt == 0 else None
        elif c == b":":
            v = int(t[1:])
        elif c == b"+":
            v = t[1:]
        elif c == b"-":
            v = ReplyError(t[1:].decode(errors="replace"))
        else:
            return None  # RESP3 types
        while stack:
            top = stack[-1]
            top[0].append(v)
            top[1] -= 1
            if top[1]:
                break
            v = top[0]
            stack.pop()
        else:
            return v, sum(len(x) for x in toks[:i]) + 2 * i


def parse_any(buf):
    r = parse_fast(buf)
    return parse(buf) if r is None else r


class Conn:
    def __init__(self, port):
        self.sock = socket.create_connection(("127.0.0.1", port))
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.buf = bytearray()

    def send(self, data):
        self.sock.sendall(data)

    def read(self):
        while True:
            try:
                v, n = parse(self.buf)
                del self.buf[:n]
                return v
            except Incomplete:
                chunk = self.sock.recv(1 << 16)
                if not chunk:
                    raise ConnectionError("server closed the connection")
                self.buf += chunk

    def call(self, *args):
        self.send(encode(*args))
        v = self.read()
        if isinstance(v, ReplyError):
            raise v
        return v

    def close(self):
        self.sock.close()


# ---------------------------------------------------------------------------------------
# Servers


def info_field(conn, section, key):
    text = conn.call("INFO", section).decode()
    for line in text.splitlines():
        if line.startswith(key + ":"):
            return line.split(":", 1)[1].strip()
    return None


def ft_info(conn, idx):
    """FT.INFO as a dict; where the server has no FT.INFO, num_docs from FT.SEARCH."""
    try:
        v = conn.call("FT.INFO", idx)
    except ReplyError:
        return {"num_docs": conn.call("FT.SEARCH", idx, "*", "LIMIT", "0", "0")[0], "indexing": 0}
    if isinstance(v, dict):
        return v
    return {(v[i].decode() if isinstance(v[i], bytes) else v[i]): v[i + 1]
            for i in range(0, len(v) - 1, 2)}


def thread_cpu(pid):
    """{tid: (name, cpu seconds)} for every live thread of the process."""
    out = {}
    for t in Path(f"/proc/{pid}/task").iterdir():
        try:
            raw = (t / "stat").read_text()
        except OSError:
            continue
        name = raw[raw.index("(") + 1:raw.rindex(")")]
        f = raw.rsplit(")", 1)[1].split()
        out[int(t.name)] = (name, (int(f[11]) + int(f[12])) / CLK_TCK)
    return out


def thread_split(before, after, total):
    """The threads that used CPU between two thread_cpu() samples, busiest first."""
    out = []
    for tid, (name, cpu) in after.items():
        d = cpu - before.get(tid, (name, 0.0))[1]
        if d >= 0.01:
            out.append({"tid": tid, "name": name, "cpu_s": round(d, 3),
                        "share": d / max(1e-9, total)})
    return sorted(out, key=lambda x: -x["cpu_s"])


class Target:
    def __init__(self, name, port, server=None):
        self.name = name
        self.port = port
        self.server = server
        c = Conn(port)
        pid = info_field(c, "server", "process_id")
        c.close()
        self.pid = int(pid) if pid and Path(f"/proc/{pid}").exists() else None

    def cpu_s(self):
        return proc_cpu_s(self.pid) if self.pid else None


def start_server(kind, build_dir, workdir, logdir):
    if kind == "hotkv":
        argv = [str(Path(build_dir) / "hotkv-server"), "--port", "{port}", "--bind",
                "127.0.0.1"]
    else:
        argv = [str(PEER_88), "--port", "{port}", "--bind", "127.0.0.1", "--save", "",
                "--appendonly", "no", "--dir", workdir, "--loadmodule", str(REDISEARCH)]
    cores = f"0-{os.cpu_count() - 1}"
    s = Server(kind, argv, cores, logdir).start()
    return Target(kind, s.port, s)


# ---------------------------------------------------------------------------------------
# Workloads


def load(target, cmds_of, n, conns=4, depth=16):
    """Sends cmds_of(i) for i in range(n) over `conns` connections, `depth` in flight
    each. Returns (seconds, errors)."""
    errors = []

    def worker(w):
        c = Conn(target.port)
        idxs = list(range(w, n, conns))
        for s in range(0, len(idxs), depth):
            batch = idxs[s:s + depth]
            c.send(b"".join(cmds_of(i) for i in batch))
            for _ in batch:
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


def closed_loop(target, cmds, extract, truth, clients, seconds):
    """`clients` connections, one command in flight each, cycling through `cmds` (client
    c starts at query c * len / clients) for `seconds` and at least one pass. Returns
    q/s, recall@10 (mean over every reply), latency percentiles, CPU per query."""
    sel = selectors.DefaultSelector()
    nq = len(cmds)
    conns = []
    for c in range(clients):
        conn = Conn(target.port)
        conn.sock.setblocking(False)
        st = {"conn": conn, "next": (c * nq) // clients, "sent_at": 0.0, "q": 0}
        conns.append(st)
        sel.register(conn.sock, selectors.EVENT_READ, st)
    lat = []
    recall_sum = 0.0
    done = 0
    errors = []
    issued = 0
    min_queries = nq

    def issue(st):
        nonlocal issued
        q = st["next"] % nq
        st["next"] += 1
        st["q"] = q
        st["sent_at"] = time.perf_counter()
        st["conn"].sock.setblocking(True)
        st["conn"].sock.sendall(cmds[q])
        st["conn"].sock.setblocking(False)
        issued += 1

    ru0 = resource.getrusage(resource.RUSAGE_SELF)
    s0 = target.cpu_s()
    t0 = time.perf_counter()
    deadline = t0 + seconds
    for st in conns:
        issue(st)
    inflight = len(conns)
    while inflight:
        for key, _ in sel.select(timeout=5):
            st = key.data
            conn = st["conn"]
            try:
                chunk = conn.sock.recv(1 << 16)
            except BlockingIOError:
                continue
            if not chunk:
                raise ConnectionError("server closed the connection")
            conn.buf += chunk
            try:
                v, n = parse_any(conn.buf)
            except Incomplete:
                continue
            del conn.buf[:n]
            now = time.perf_counter()
            lat.append(now - st["sent_at"])
            if isinstance(v, ReplyError):
                if len(errors) < 5:
                    errors.append(str(v))
            else:
                ids = extract(v)
                want = truth[st["q"]]
                recall_sum += len(want & ids) / max(1, min(K, len(want)))
            done += 1
            if now < deadline or issued < min_queries:
                issue(st)
            else:
                inflight -= 1
    wall = time.perf_counter() - t0
    s1 = target.cpu_s()
    ru1 = resource.getrusage(resource.RUSAGE_SELF)
    for st in conns:
        sel.unregister(st["conn"].sock)
        st["conn"].close()
    lat.sort()
    client_cpu = (ru1.ru_utime - ru0.ru_utime) + (ru1.ru_stime - ru0.ru_stime)
    return {
        "clients": clients, "queries": done, "seconds": round(wall, 3),
        "qps": done / wall, "recall": recall_sum / max(1, done),
        "p50_ms": 1000 * lat[len(lat) // 2], "p99_ms": 1000 * lat[min(len(lat) - 1, int(len(lat) * 0.99))],
        "server_cpu_us": (1e6 * (s1 - s0) / done) if s0 is not None else None,
        "client_cpu_us": 1e6 * client_cpu / done,
        "errors": errors,
    }


def ft_ids(v):
    # RESP2: [total, id, [fields], id, [fields], ...]
    ids = set()
    for i in range(1, len(v), 2):
        key = v[i]
        ids.add(int(key[4:]))  # b"doc:<i>"
    return ids


def vsim_ids(v):
    # WITHSCORES, RESP2: [elem, score, elem, score, ...]
    return {int(v[i]) for i in range(0, len(v), 2)}


def run_target(target, data, a, commands):
    res = {"name": target.name, "port": target.port}
    c = Conn(target.port)
    n = data.n
    create = ["FT.CREATE", "idx", "ON", "HASH", "PREFIX", "1", "doc:", "SCHEMA", "v", "VECTOR",
              "HNSW", "10", "TYPE", "FLOAT32", "DIM", str(data.dim), "DISTANCE_METRIC", "COSINE",
              "M", "16", "EF_CONSTRUCTION", "200", "bucket", "NUMERIC"]
    commands.append(" ".join(create))
    c.call("FLUSHALL")
    try:
        c.call("FT.DROPINDEX", "idx")
    except ReplyError:
        pass
    c.call(*create)
    mem0 = int(info_field(c, "memory", "used_memory") or 0)

    # 1. Build over HSET, then VADD.
    log(f"{target.name}: HSET {n} vectors over {a.load_conns} connections")
    commands.append("HSET doc:<i> v <784 float32> bucket <b>  (4 connections, 16 in flight)")
    s0 = target.cpu_s()
    th0 = thread_cpu(target.pid) if target.pid else {}
    t0 = time.monotonic()
    secs, errs = load(target, lambda i: encode("HSET", f"doc:{i}", "v", data.blobs[i], "bucket",
                                               int(data.bucket[i])), n, a.load_conns)
    while True:  # RediSearch may still be indexing in the background; HotKV is synchronous.
        info = ft_info(c, "idx")
        if int(info.get("num_docs", 0)) >= n and int(info.get("indexing", 0)) == 0:
            break
        if time.monotonic() - t0 > 3600:
            raise RuntimeError("index build did not finish")
        time.sleep(0.05)
    build_s = time.monotonic() - t0
    s1 = target.cpu_s()
    th1 = thread_cpu(target.pid) if target.pid else {}
    res["build"] = {"vectors": n, "seconds": round(build_s, 3), "hset_seconds": round(secs, 3),
                    "vectors_per_s": n / build_s, "errors": errs,
                    "server_cpu_us_per_vector": (1e6 * (s1 - s0) / n) if s0 is not None else None,
                    "used_memory_mb": (int(info_field(c, "memory", "used_memory")) - mem0) / 2**20,
                    "vector_index_sz_mb": float(info.get("vector_index_sz_mb", b"0") or 0),
                    # Which threads did the inserts (HotKV: one per worker; a worker gets
                    # the connections the kernel's SO_REUSEPORT hash gives it).
                    "threads": thread_split(th0, th1, (s1 - s0) if s0 is not None else 0)}
    log(f"{target.name}: build {n / build_s:,.0f} vectors/s")
    if not a.no_vsim:
        log(f"{target.name}: VADD {n} vectors")
        commands.append("VADD vs FP32 <blob> <i> NOQUANT EF 200 SETATTR {\"bucket\": b} M 16")
        s0 = target.cpu_s()
        secs, errs = load(target, lambda i: encode(
            "VADD", "vs", "FP32", data.blobs[i], str(i), "NOQUANT", "EF", "200", "SETATTR",
            '{"bucket": %d}' % int(data.bucket[i]), "M", "16"), n, a.load_conns)
        s1 = target.cpu_s()
        card = c.call("VCARD", "vs")
        res["vadd"] = {"vectors": card, "seconds": round(secs, 3), "vectors_per_s": n / secs,
                       "errors": errs,
                       "server_cpu_us_per_vector": (1e6 * (s1 - s0) / n) if s0 is not None else None}
        log(f"{target.name}: VADD {n / secs:,.0f} vectors/s")
    c.close()

    # 2. KNN sweep: FT.SEARCH and VSIM, after a warm-up pass of each (every query once).
    res["knn"] = []
    warm = [encode("FT.SEARCH", "idx", f"*=>[KNN {K} @v $B]", "PARAMS", "2", "B", b, "RETURN",
                   "1", "__v_score", "LIMIT", "0", str(K), "DIALECT", "2") for b in data.qblobs]
    closed_loop(target, warm, ft_ids, data.truth[100], max(a.clients), 0)
    if not a.no_vsim:
        warm = [encode("VSIM", "vs", "FP32", b, "COUNT", str(K), "WITHSCORES") for b in data.qblobs]
        closed_loop(target, warm, vsim_ids, data.truth[100], max(a.clients), 0)
    for ef in a.efs:
        q = f"*=>[KNN {K} @v $B EF_RUNTIME {ef}]"
        ft_cmds = [encode("FT.SEARCH", "idx", q, "PARAMS", "2", "B", b, "RETURN", "1",
                          "__v_score", "LIMIT", "0", str(K), "DIALECT", "2") for b in data.qblobs]
        vs_cmds = [encode("VSIM", "vs", "FP32", b, "COUNT", str(K), "EF", str(ef), "WITHSCORES")
                   for b in data.qblobs]
        commands.append(f"FT.SEARCH idx '{q}' PARAMS 2 B <blob> RETURN 1 __v_score LIMIT 0 10 DIALECT 2")
        for clients in a.clients:
            for kind, cmds, extract in (("FT.SEARCH", ft_cmds, ft_ids), ("VSIM", vs_cmds, vsim_ids)):
                if kind == "VSIM" and a.no_vsim:
                    continue
                r = closed_loop(target, cmds, extract, data.truth[100], clients, a.seconds)
                r.update({"kind": kind, "ef": ef})
                res["knn"].append(r)
                log(f"{target.name}: {kind} ef {ef} clients {clients}: {r['qps']:,.0f} q/s "
                    f"recall {r['recall']:.3f}{' ERR ' + r['errors'][0] if r['errors'] else ''}")
        commands.append(f"VSIM vs FP32 <blob> COUNT 10 EF {ef} WITHSCORES")

    # 3. Filtered KNN.
    res["filtered"] = []
    for sel in (1, 10, 50):
        for ef in a.filter_efs:
            q = f"@bucket:[0 {sel - 1}]=>[KNN {K} @v $B EF_RUNTIME {ef}]"
            ft_cmds = [encode("FT.SEARCH", "idx", q, "PARAMS", "2", "B", b, "RETURN", "1",
                              "__v_score", "LIMIT", "0", str(K), "DIALECT", "2") for b in data.qblobs]
            vs_cmds = [encode("VSIM", "vs", "FP32", b, "COUNT", str(K), "EF", str(ef), "FILTER",
                              f".bucket < {sel}", "WITHSCORES") for b in data.qblobs]
            commands.append(f"FT.SEARCH idx '{q}' PARAMS 2 B <blob> RETURN 1 __v_score LIMIT 0 10 DIALECT 2")
            commands.append(f"VSIM vs FP32 <blob> COUNT 10 EF {ef} FILTER '.bucket < {sel}' WITHSCORES")
            for clients in a.filter_clients:
                for kind, cmds, extract in (("FT.SEARCH", ft_cmds, ft_ids), ("VSIM", vs_cmds, vsim_ids)):
                    if kind == "VSIM" and a.no_vsim:
                        continue
                    r = closed_loop(target, cmds, extract, data.truth[sel], clients, a.seconds)
                    r.update({"kind": kind, "ef": ef, "selectivity_pct": sel})
                    res["filtered"].append(r)
                    log(f"{target.name}: {kind} {sel}% ef {ef} clients {clients}: "
                        f"{r['qps']:,.0f} q/s recall {r['recall']:.3f}"
                        f"{' ERR ' + r['errors'][0] if r['errors'] else ''}")
    return res


# ---------------------------------------------------------------------------------------
# Report


def fmt(v, spec=",.0f"):
    return "-" if v is None else format(v, spec)


def render(out):
    names = [t["name"] for t in out["targets"]]
    L = [f"# FT.SEARCH KNN vs VSIM, HotKV vs Redis 8.8 + RediSearch 2.10 (issue 18), {out['date']}", "",
         f"Machine: {out['machine']}; load average at start {out['loadavg']}. Command: "
         f"`{out['command']}`.", "",
         f"Data: Fashion-MNIST, {out['n']:,} x {out['dim']} (first training images), "
         f"{out['queries']} queries (first test images), cosine, HNSW M 16 / EF_CONSTRUCTION "
         "200; recall@10 against exact neighbours (numpy). Client: one Python process, "
         "closed loop, one query in flight per connection, unpinned (client and server "
         f"share the {os.cpu_count()} CPUs); {out['seconds']} s per point after a warm-up "
         "pass. Server CPU = the server process's utime+stime growth / queries.", "",
         "## Index build (HSET over 4 connections, 16 in flight each; VADD likewise)", "",
         "| server | HSET + index vectors/s | server CPU µs/vector | VADD vectors/s | VADD CPU µs/vector | index MB (used_memory growth) |",
         "|---|---|---|---|---|---|"]
    for t in out["targets"]:
        b, v = t["build"], t.get("vadd", {})
        L.append(f"| {NAMES.get(t['name'], t['name'])} | {b['vectors_per_s']:,.0f} | "
                 f"{fmt(b['server_cpu_us_per_vector'])} | {fmt(v.get('vectors_per_s'))} | "
                 f"{fmt(v.get('server_cpu_us_per_vector'))} | {b['used_memory_mb']:,.1f} |")
    L += ["", "Build CPU by server thread (name: seconds, share of the process's build CPU):", ""]
    for t in out["targets"]:
        th = t["build"].get("threads") or []
        L.append(f"- {NAMES.get(t['name'], t['name'])}: " + ("; ".join(
            f"{x['name']} {x['tid']}: {x['cpu_s']:.1f} s ({100 * x['share']:.0f} %)" for x in th[:6]) or "-"))
    L += ["", "## KNN (k = 10)", "",
          "| server | command | EF | clients | q/s | recall@10 | p50 ms | p99 ms | server CPU µs/q | client CPU µs/q |",
          "|---|---|---|---|---|---|---|---|---|---|"]
    for t in out["targets"]:
        for r in t["knn"]:
            L.append(f"| {NAMES.get(t['name'], t['name'])} | {r['kind']} | {r['ef']} | {r['clients']} | "
                     f"{r['qps']:,.0f} | {r['recall']:.3f} | {r['p50_ms']:.2f} | {r['p99_ms']:.2f} | "
                     f"{fmt(r['server_cpu_us'])} | {fmt(r['client_cpu_us'])} |")
    if len(names) > 1 and "hotkv" in names:
        L += ["", "HotKV FT.SEARCH q/s / other server's FT.SEARCH q/s, and HotKV FT.SEARCH / "
              "HotKV VSIM (same EF and clients):", "",
              "| EF | clients | " + " | ".join(f"vs {NAMES.get(n, n)}" for n in names if n != "hotkv") +
              " | vs HotKV VSIM |", "|---|---|" + "---|" * len(names)]
        by = {(t["name"], r["kind"], r["ef"], r["clients"]): r for t in out["targets"] for r in t["knn"]}
        for ef in out["efs"]:
            for cl in out["clients"]:
                h = by.get(("hotkv", "FT.SEARCH", ef, cl))
                if not h:
                    continue
                cells = []
                for nme in names:
                    if nme == "hotkv":
                        continue
                    o = by.get((nme, "FT.SEARCH", ef, cl))
                    cells.append(f"{h['qps'] / o['qps']:.2f}x (recall {h['recall']:.3f} / {o['recall']:.3f})" if o else "-")
                v = by.get(("hotkv", "VSIM", ef, cl))
                cells.append(f"{h['qps'] / v['qps']:.2f}x" if v else "-")
                L.append(f"| {ef} | {cl} | " + " | ".join(cells) + " |")
    L += ["", "## Filtered KNN (k = 10): `@bucket:[0 s-1]=>[KNN ...]` / VSIM FILTER '.bucket < s'", "",
          "| server | command | selectivity | EF | clients | q/s | recall@10 | p50 ms | p99 ms | server CPU µs/q |",
          "|---|---|---|---|---|---|---|---|---|---|"]
    for t in out["targets"]:
        for r in t["filtered"]:
            L.append(f"| {NAMES.get(t['name'], t['name'])} | {r['kind']} | {r['selectivity_pct']} % | {r['ef']} | "
                     f"{r['clients']} | {r['qps']:,.0f} | {r['recall']:.3f} | {r['p50_ms']:.2f} | "
                     f"{r['p99_ms']:.2f} | {fmt(r['server_cpu_us'])} |")
    errs = [(t["name"], r["kind"], e) for t in out["targets"] for r in t["knn"] + t["filtered"]
            for e in r["errors"]]
    errs += [(t["name"], "build", e) for t in out["targets"] for e in t["build"]["errors"]]
    if errs:
        L += ["", "Errors (first of each):", ""] + [f"- {n} {k}: `{e}`" for n, k, e in errs[:10]]
    L += ["", "Commands:", "", "```"] + out["commands"] + ["```", ""]
    return "\n".join(L)


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--servers", default="hotkv,redisearch", help="hotkv,redisearch (started here)")
    p.add_argument("--attach", action="append", default=[], metavar="NAME=PORT",
                   help="use a running server instead (repeatable); FLUSHALLs it")
    p.add_argument("--build-dir", default=str(ROOT / "build" / "release"))
    p.add_argument("--limit", type=int, default=60000, help="documents (first N training images)")
    p.add_argument("--queries", type=int, default=1000)
    p.add_argument("--efs", default="10,40,150")
    p.add_argument("--clients", default="1,16")
    p.add_argument("--filter-efs", default="40")
    p.add_argument("--filter-clients", default="1")
    p.add_argument("--seconds", type=float, default=3.0)
    p.add_argument("--load-conns", type=int, default=4)
    p.add_argument("--no-vsim", action="store_true")
    p.add_argument("--out", help="results folder (default bench/results/ft-vector_<stamp>)")
    a = p.parse_args()
    a.efs = [int(x) for x in a.efs.split(",")]
    a.clients = [int(x) for x in a.clients.split(",")]
    a.filter_efs = [int(x) for x in a.filter_efs.split(",")]
    a.filter_clients = [int(x) for x in a.filter_clients.split(",")]

    stamp = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d_%H%M%S")
    outdir = Path(a.out) if a.out else ROOT / "bench" / "results" / f"ft-vector_{stamp}"
    outdir.mkdir(parents=True, exist_ok=True)
    out = {"date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
           "machine": f"{platform.node()} {os.cpu_count()} CPUs {platform.machine()} {platform.release()}",
           "loadavg": loadavg(), "command": " ".join(["bench/ft_vector.py"] + sys.argv[1:]),
           "efs": a.efs, "clients": a.clients, "seconds": a.seconds, "targets": [], "commands": []}
    log("loading Fashion-MNIST and computing exact neighbours")
    data = Data(a.limit, a.queries)
    out.update({"n": data.n, "dim": data.dim, "queries": len(data.qblobs)})
    try:
        with tempfile.TemporaryDirectory(prefix="ft-vector-") as work:
            plan = [(x.split("=")[0], int(x.split("=")[1])) for x in a.attach]
            if not a.attach:
                plan = [(k, None) for k in a.servers.split(",") if k]
            for name, port in plan:
                target = Target(name, port) if port else start_server(name, a.build_dir, work, outdir)
                cmds = []
                res = run_target(target, data, a, cmds)
                out["targets"].append(res)
                for line in cmds:
                    if line not in out["commands"]:
                        out["commands"].append(line)
                if target.server:
                    target.server.stop()
                (outdir / "results.json").write_text(json.dumps(out, indent=1, default=str))
    finally:
        stop_all()
    text = render(out)
    (outdir / "summary.md").write_text(text)
    print(text)
    log(f"results in {outdir}")


if __name__ == "__main__":
    main()
