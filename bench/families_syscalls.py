#!/usr/bin/python3
"""System calls per pipelined batch for one of bench/families.py's workloads, HotKV against
Redis: each server runs under `strace -c -f` (counts only), the workload is sent at
pipeline 30 over one connection as families.py sends it, and the calls are reported per
batch of 30. A check of the claim that both servers pay the same kernel work per batch.

    bench/families_syscalls.py --only setbit --n 30000
    bench/families_syscalls.py --only pfadd --servers hotkv,redis88 --hotkv-arg=--io-backend --hotkv-arg=epoll

strace slows every call down: the counts are what it is for, not the times.
"""
import argparse
import random
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from families import PEER_88, PIPELINE, Conn, run_pipelined  # noqa: E402
from families_callgrind import free_port  # noqa: E402

ROOT = HERE.parent


def workload(name, n, rng):
    if name == "setbit":
        return [[b"SETBIT", b"bm", rng.randrange(1 << 27), b"1"] for _ in range(n)]
    if name == "pfadd":
        return [[b"PFADD", b"hll", b"e%d" % rng.randrange(1 << 40)] for _ in range(n)]
    if name == "getbit":
        return [[b"GETBIT", b"bm", rng.randrange(1 << 27)] for _ in range(n)]
    raise SystemExit(f"unknown workload {name}")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--only", default="setbit")
    ap.add_argument("--n", type=int, default=30000)
    ap.add_argument("--servers", default="hotkv,redis7,redis88")
    ap.add_argument("--hotkv", default=str(ROOT / "build/release/hotkv-server"))
    ap.add_argument("--hotkv-arg", action="append", default=[])
    a = ap.parse_args()
    work = Path(tempfile.mkdtemp(prefix="hotkv-syscalls-"))
    try:
        for kind in a.servers.split(","):
            port = free_port()
            if kind == "hotkv":
                argv = [a.hotkv, "--port", str(port), "--bind", "127.0.0.1", "--threads", "1", *a.hotkv_arg]
            else:
                argv = [str(PEER_88) if kind == "redis88" else shutil.which("redis-server"), "--port",
                        str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
                        "--dir", str(work)]
            for name in a.only.split(","):
                out = work / f"{kind}-{name}.strace"
                p = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
                try:
                    for _ in range(200):
                        try:
                            c = Conn(port)
                            c.call("PING")
                            break
                        except OSError:
                            time.sleep(0.05)
                    rng = random.Random(22)
                    # Setup outside the count: the bitmap's full size, a dense HLL.
                    if name in ("setbit", "getbit"):
                        c.call("SETBIT", "bm", (1 << 27) - 1, "1")
                    if name == "pfadd":
                        run_pipelined(c, workload("pfadd", 30000, rng))
                    cmds = workload(name, a.n, rng)
                    st = subprocess.Popen(["strace", "-c", "-f", "-o", str(out), "-p", str(p.pid)],
                                          stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
                    time.sleep(1.0)
                    run_pipelined(c, cmds)
                    time.sleep(0.3)
                    st.terminate()
                    st.wait()
                finally:
                    p.terminate()
                    p.wait()
                batches = (a.n + PIPELINE - 1) // PIPELINE
                print(f"## {kind} {name}: {a.n} commands, {batches} batches of {PIPELINE}")
                for line in out.read_text().splitlines():
                    f = line.split()
                    if len(f) >= 5 and f[3].isdigit() and not line.startswith("-"):
                        calls = int(f[3])
                        print(f"  {f[-1]:<22} {calls:>8}  {calls / batches:6.2f} per batch")
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
