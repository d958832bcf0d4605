#!/usr/bin/python3
"""Issue 19's prompt-cache targets (docs/ai.md, PCACHE.*), on HotKV alone:

1. Prefix lookup of a 4,000-block chain: one `PCACHE.LONGEST ns k1 .. k4000` against the
   way LMCache does it on plain keys, 4,000 `EXISTS` pipelined in one write (the client
   then counts the leading 1s). Target: LONGEST >= 20x faster.
2. 32 MiB values: `PCACHE.PUT` / `PCACHE.GET` against `SET` / `GET` of the same bytes, one
   connection on loopback. Target: PCACHE.GET >= 2 GB/s per connection.

The client is a minimal RESP client over a raw socket (requests encoded once, replies read
with recv_into into a preallocated buffer), pinned to core 1; the server (--threads 1)
to core 0, so the time measured is the server's and the kernel's, not Python parsing.
Each measurement: `--reps` rounds (`--lookup-reps` for the lookups), median and best
reported, and for the lookups the server's CPU per round.

    bench/pcache.py                  # 4,000 blocks, 32 MiB values
    bench/pcache.py --reps 50 --lookup-reps 2000 --value-mb 32 --blocks 4000

Results: bench/results/pcache_<date_time>/summary.md (and results.json).
"""
import argparse
import datetime
import json
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE / "harness"))
from common import Server, loadavg, log, stop_all  # noqa: E402

ROOT = HERE.parent


def encode(*args):
    out = [b"*%d\r\n" % len(args)]
    for a in args:
        a = a if isinstance(a, bytes) else str(a).encode()
        out += [b"$%d\r\n" % len(a), a, b"\r\n"]
    return b"".join(out)


class Conn:
    def __init__(self, port):
        self.s = socket.create_connection(("127.0.0.1", port))
        self.s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.buf = bytearray(64 << 20)
        self.view = memoryview(self.buf)

    def send(self, data):
        self.s.sendall(data)

    def read_lines(self, n):
        """Reads until n CRLF-terminated simple replies have arrived; returns the bytes."""
        got, have = 0, 0
        while have < n:
            k = self.s.recv_into(self.view[got:])
            if k == 0:
                raise ConnectionError("closed")
            got += k
            have = self.buf.count(b"\r\n", 0, got)
        return bytes(self.buf[:got])

    def read_bulk(self):
        """Reads one bulk reply into the buffer; returns its length (-1 for nil)."""
        got = 0
        while True:
            k = self.s.recv_into(self.view[got:])
            if k == 0:
                raise ConnectionError("closed")
            got += k
            end = self.buf.find(b"\r\n", 0, got)
            if end >= 0:
                break
        if self.buf[0:1] != b"$":
            raise RuntimeError(bytes(self.buf[:min(got, 200)]))
        n = int(self.buf[1:end])
        total = end + 2 + n + 2 if n >= 0 else end + 2
        while got < total:
            k = self.s.recv_into(self.view[got:total])
            if k == 0:
                raise ConnectionError("closed")
            got += k
        return n

    def call(self, *args):
        self.send(encode(*args))
        return self.read_lines(1)


def timed(fn, reps, srv=None):
    """(median s, best s) of `reps` calls, and the server's CPU seconds per call."""
    times = []
    cpu0 = srv.cpu_s() if srv else 0
    for _ in range(reps):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    cpu = (srv.cpu_s() - cpu0) / reps if srv else 0
    return statistics.median(times), min(times), cpu


def loopback_ceiling(size, reps):
    """What this client can receive on loopback at all: `size` bytes sent by a plain
    Python sender on core 0 (no server), read the same way as a GET reply."""
    lst = socket.socket()
    lst.bind(("127.0.0.1", 0))
    lst.listen(1)
    pid = os.fork()
    if pid == 0:
        os.sched_setaffinity(0, {0})
        s, _ = lst.accept()
        data = b"$%d\r\n" % size + b"x" * size + b"\r\n"
        for _ in range(reps + 1):
            s.recv(1)
            s.sendall(data)
        os._exit(0)
    c = Conn(lst.getsockname()[1])

    def one():
        c.send(b"g")
        assert c.read_bulk() == size

    one()
    r = timed(one, reps)
    os.waitpid(pid, 0)
    return r


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--blocks", type=int, default=4000)
    ap.add_argument("--value-mb", type=int, default=32)
    ap.add_argument("--reps", type=int, default=30)
    ap.add_argument("--lookup-reps", type=int, default=1000)
    ap.add_argument("--build-dir", default=str(ROOT / "build/release"))
    ap.add_argument("--no-record", action="store_true")
    a = ap.parse_args()
    workdir = tempfile.mkdtemp(prefix="hotkv-pcache-")
    srv = Server("hotkv", [str(Path(a.build_dir) / "hotkv-server"), "--port", "{port}",
                           "--bind", "127.0.0.1", "--threads", "1", "--dir", workdir, "--save", ""],
                 0, workdir)
    load = loadavg()
    res = {}
    try:
        os.sched_setaffinity(0, {1})
        srv.start()
        c = Conn(srv.port)
        # 1. LONGEST vs pipelined EXISTS on a 4,000-block chain of small values.
        assert c.call("PCACHE.CREATE", "ns").startswith(b"+OK")
        keys = [b"%032x" % (i * 2654435761) for i in range(a.blocks)]
        puts = [encode("PCACHE.PUT", "ns", keys[0], b"v" * 64)]
        puts += [encode("PCACHE.PUT", "ns", k, b"v" * 64, "PARENT", keys[i]) for i, k in enumerate(keys[1:])]
        sets = [encode("SET", b"ns:" + k, b"v" * 64) for k in keys]
        c.send(b"".join(puts))
        c.read_lines(a.blocks)
        c.send(b"".join(sets))
        c.read_lines(a.blocks)
        longest = encode("PCACHE.LONGEST", "ns", *keys)
        blob = encode("PCACHE.LONGESTBLOB", "ns", 32, b"".join(keys))
        exists = b"".join(encode("EXISTS", b"ns:" + k) for k in keys)

        def run_longest():
            c.send(longest)
            r = c.read_lines(1)
            assert r == b":%d\r\n" % a.blocks, r

        def run_blob():
            c.send(blob)
            r = c.read_lines(1)
            assert r == b":%d\r\n" % a.blocks, r

        def run_exists():
            c.send(exists)
            r = c.read_lines(a.blocks)
            assert r.count(b":1\r\n") == a.blocks

        for fn in (run_longest, run_blob, run_exists):  # warm-up
            fn()
        reps = a.lookup_reps
        res["longest_s"] = timed(run_longest, reps, srv)
        res["blob_s"] = timed(run_blob, reps, srv)
        res["exists_s"] = timed(run_exists, reps, srv)
        res["speedup_median"] = res["exists_s"][0] / res["longest_s"][0]
        res["speedup_blob_median"] = res["exists_s"][0] / res["blob_s"][0]
        res["speedup_cpu"] = res["exists_s"][2] / max(res["longest_s"][2], 1e-9)
        res["speedup_blob_cpu"] = res["exists_s"][2] / max(res["blob_s"][2], 1e-9)
        log(f"LONGEST {res['longest_s'][0]*1e6:.0f} us, LONGESTBLOB {res['blob_s'][0]*1e6:.0f} us, "
            f"pipelined EXISTS {res['exists_s'][0]*1e6:.0f} us, x{res['speedup_median']:.1f}")

        # 2. 32 MiB values: PUT/GET vs SET/GET.
        size = a.value_mb << 20
        value = os.urandom(1 << 20) * a.value_mb
        put = encode("PCACHE.PUT", "ns", "big", value)
        set_ = encode("SET", "big", value)
        get = encode("PCACHE.GET", "ns", "big")
        sget = encode("GET", "big")

        def run_put():
            c.send(put)
            assert c.read_lines(1) == b"+OK\r\n"

        def run_set():
            c.send(set_)
            assert c.read_lines(1) == b"+OK\r\n"

        def run_get():
            c.send(get)
            assert c.read_bulk() == size

        def run_sget():
            c.send(sget)
            assert c.read_bulk() == size

        run_put()
        run_set()
        run_get()
        assert bytes(c.view[len(b"$%d\r\n" % size):][:size]) == value
        for name, fn in (("pcache_put", run_put), ("set", run_set), ("pcache_get", run_get), ("get", run_sget)):
            fn()
            med, best, cpu = timed(fn, a.reps, srv)
            res[name + "_s"] = (med, best, cpu)
            res[name + "_gbps"] = (size / med / 1e9, size / best / 1e9)
            log(f"{name}: median {size/med/1e9:.2f} GB/s, best {size/best/1e9:.2f} GB/s")
        # 3. Head-of-line: PING latency of a second connection (same worker: --threads 1),
        # from its own process, while the first sends 32 MiB PUTs (then SETs) back to back.
        def ping_during(fn):
            r, w = os.pipe()
            go_r, go_w = os.pipe()
            pid = os.fork()
            if pid == 0:
                os.close(r)
                p = Conn(srv.port)
                ping = encode("PING")
                lat = []
                os.set_blocking(go_r, False)
                while True:
                    try:
                        if os.read(go_r, 1):
                            break
                    except BlockingIOError:
                        pass
                    t = time.perf_counter()
                    p.send(ping)
                    p.read_lines(1)
                    lat.append(time.perf_counter() - t)
                os.write(w, json.dumps(lat).encode())
                os.close(w)
                os._exit(0)
            os.close(w)
            time.sleep(0.3)
            t0 = time.perf_counter()
            for _ in range(a.reps):
                fn()
            busy_s = time.perf_counter() - t0
            time.sleep(0.3)
            os.write(go_w, b"x")
            data = b""
            while chunk := os.read(r, 1 << 20):
                data += chunk
            os.waitpid(pid, 0)
            lat = sorted(json.loads(data))
            q = lambda v: lat[min(len(lat) - 1, int(v * len(lat)))] * 1e3  # noqa: E731
            return (q(0.5), q(0.99), lat[-1] * 1e3, len(lat), busy_s)

        res["ping_idle_ms"] = ping_during(lambda: time.sleep(0.05))
        res["ping_busy_ms"] = ping_during(run_put)
        res["ping_busy_set_ms"] = ping_during(run_set)
        log(f"PING during 32 MiB PUTs: p50 {res['ping_busy_ms'][0]:.2f} ms, p99 {res['ping_busy_ms'][1]:.2f} ms, "
            f"max {res['ping_busy_ms'][2]:.2f} ms; during SETs max {res['ping_busy_set_ms'][2]:.2f} ms")
        res["server_rss_kb"] = srv.rss_kb()
        c.s.close()
        srv.stop()
        med, best, _ = loopback_ceiling(size, a.reps)
        res["loopback_gbps"] = (size / med / 1e9, size / best / 1e9)
        log(f"loopback ceiling: median {size/med/1e9:.2f} GB/s")
    finally:
        stop_all()
        shutil.rmtree(workdir, ignore_errors=True)
    stamp = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d_%H%M%S")
    cmd = "bench/pcache.py" + "".join(f" --{k.replace('_', '-')} {v}" for k, v in
                                      (("blocks", a.blocks), ("value_mb", a.value_mb), ("reps", a.reps),
                                       ("lookup_reps", a.lookup_reps))
                                      if v != ap.get_default(k))
    cpu = subprocess.run(["sh", "-c", "grep -m1 'model name' /proc/cpuinfo | cut -d: -f2"],
                         capture_output=True, text=True).stdout.strip()
    us = lambda t: f"{t * 1e6:,.0f}"  # noqa: E731
    lines = [f"# Prompt cache (issue 19): PCACHE.LONGEST and 32 MiB values, {stamp} UTC", "",
             f"Machine: {os.cpu_count()} CPUs ({cpu}), shared with other sessions and loaded: "
             f"load average at start {load}. Command: `{cmd}`. HotKV --threads 1 on core 0, the "
             f"Python raw-socket client on core 1, loopback TCP, one connection, {a.reps} rounds "
             "per row (median, best).", "",
             f"## Prefix lookup of a {a.blocks:,}-block chain (32-byte hex keys, 64-byte values)", "",
             f"Round trip: send the request, read the whole reply; {reps} rounds. Server CPU: the "
             "server's utime+stime growth over the rounds / rounds.", "",
             "| way | request bytes | median us | best us | server CPU us |", "|---|---|---|---|---|",
             f"| `PCACHE.LONGEST ns k1 .. k{a.blocks}` (1 command) | {len(longest):,} | {us(res['longest_s'][0])} | {us(res['longest_s'][1])} | {us(res['longest_s'][2])} |",
             f"| `PCACHE.LONGESTBLOB ns 32 <k1..k{a.blocks}>` (1 argument) | {len(blob):,} | {us(res['blob_s'][0])} | {us(res['blob_s'][1])} | {us(res['blob_s'][2])} |",
             f"| {a.blocks:,} `EXISTS` pipelined in one write | {len(exists):,} | {us(res['exists_s'][0])} | {us(res['exists_s'][1])} | {us(res['exists_s'][2])} |",
             "", f"Round trip: LONGEST **{res['speedup_median']:.1f}x**, LONGESTBLOB "
             f"**{res['speedup_blob_median']:.1f}x** faster than pipelined EXISTS (medians). Server CPU: "
             f"**{res['speedup_cpu']:.1f}x** and **{res['speedup_blob_cpu']:.1f}x**. Target >= 20x.", "",
             f"## {a.value_mb} MiB values, one connection", "",
             "| command | median GB/s | best GB/s | median ms | server CPU ms |", "|---|---|---|---|---|"]
    for name, label in (("pcache_put", "PCACHE.PUT"), ("set", "SET"), ("pcache_get", "PCACHE.GET"), ("get", "GET")):
        g = res[name + "_gbps"]
        lines.append(f"| `{label}` | {g[0]:.2f} | {g[1]:.2f} | {res[name + '_s'][0] * 1e3:.1f} | "
                     f"{res[name + '_s'][2] * 1e3:.1f} |")
    g = res["loopback_gbps"]
    lines.append(f"| loopback ceiling: a plain Python sender, no server | {g[0]:.2f} | {g[1]:.2f} | "
                 f"{size / g[0] / 1e6:.1f} | - |")
    lines += ["", "GB/s = value bytes / round-trip time (send the request, read the whole reply). "
              "Target: PCACHE.GET >= 2 GB/s per connection. The last row is what this client and "
              "this machine's loopback deliver with no server at all: the ceiling of every row.", ""]
    i, b, st = res["ping_idle_ms"], res["ping_busy_ms"], res["ping_busy_set_ms"]
    lines += [f"## Other clients while {a.value_mb} MiB values arrive", "",
              f"A second connection on the same worker (--threads 1), from its own process, sends "
              f"PING in a loop while the first sends {a.reps} `PCACHE.PUT`s (then `SET`s) of "
              f"{a.value_mb} MiB back to back.", "",
              "| PING round trip | PINGs | p50 ms | p99 ms | max ms |", "|---|---|---|---|---|",
              f"| idle server | {i[3]:,} | {i[0]:.2f} | {i[1]:.2f} | {i[2]:.2f} |",
              f"| during the PCACHE.PUTs ({b[4]:.1f} s) | {b[3]:,} | {b[0]:.2f} | {b[1]:.2f} | {b[2]:.2f} |",
              f"| during the SETs ({st[4]:.1f} s) | {st[3]:,} | {st[0]:.2f} | {st[1]:.2f} | {st[2]:.2f} |", ""]
    out = "\n".join(lines) + "\n"
    print(out)
    if not a.no_record:
        d = ROOT / "bench/results" / f"pcache_{stamp}"
        d.mkdir(parents=True)
        (d / "summary.md").write_text(out)
        (d / "results.json").write_text(json.dumps({"command": cmd, "load": load, **res}, indent=1))
        print(f"written to {d.relative_to(ROOT)}/")


if __name__ == "__main__":
    main()
