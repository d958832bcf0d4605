#!/usr/bin/python3
"""Syscalls and per-thread user/system CPU of one server under the AOF SET load.

    measure.py --label L --server BIN [--kind hotkv|redis] [--aof off|everysec|always]
               [--requests 500000] [--trace] [--record]

Load: taskset -c 1 redis-benchmark -P 30 -c 50 -t set -n N -d 256 -r 1000000 (as
bench/persistence.py); the server on cores 0,1 (HotKV, default threads) or 0 (Redis),
--dir a fresh temp dir on / (ext4). Per-thread utime/stime from /proc/<pid>/task/*/stat
before and after the load. --trace: `perf trace -s -p <pid>` during the load (syscall
counts per thread; slows the server a little). --record: `perf record -g` during the load
(kernel+user profile, perf report --no-children --sort sym top lines).
Output: <label>.txt in this directory.
"""
import argparse, os, shutil, signal, socket, subprocess, sys, tempfile, time

HERE = os.path.dirname(os.path.abspath(__file__))
HZ = os.sysconf("SC_CLK_TCK")


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def threads(pid):
    out = {}
    for tid in os.listdir(f"/proc/{pid}/task"):
        try:
            with open(f"/proc/{pid}/task/{tid}/stat") as f:
                s = f.read()
            comm = s[s.index("(") + 1:s.rindex(")")]
            fl = s.rsplit(")", 1)[1].split()
            out[int(tid)] = (comm, int(fl[11]), int(fl[12]))
        except OSError:
            pass
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--label", required=True)
    ap.add_argument("--server", required=True)
    ap.add_argument("--kind", default="hotkv")
    ap.add_argument("--aof", default="everysec")
    ap.add_argument("--requests", type=int, default=500000)
    ap.add_argument("--trace", action="store_true")
    ap.add_argument("--record", action="store_true")
    ap.add_argument("--extra", default="")
    a = ap.parse_args()
    global PERFDATA
    os.makedirs("/tmp/aofperf", exist_ok=True)
    PERFDATA = f"/tmp/aofperf/{a.label}.data"
    d = tempfile.mkdtemp(prefix="aofsys-", dir="/tmp")
    port = free_port()
    aof = ["--appendonly", "no"] if a.aof == "off" else ["--appendonly", "yes", "--appendfsync", a.aof]
    args = [a.server, "--port", str(port), "--dir", d, "--save", ""] + aof + a.extra.split()
    cores = "0" if a.kind == "redis" else "0,1"
    log = open(os.path.join(d, "server.log"), "wb")
    p = subprocess.Popen(["taskset", "-c", cores] + args, stdout=log, stderr=subprocess.STDOUT)
    lines = []
    def say(s=""):
        print(s); lines.append(s)
    try:
        for _ in range(1000):
            if subprocess.run(["redis-cli", "-p", str(port), "ping"], capture_output=True, text=True).stdout.strip() == "PONG":
                break
            time.sleep(0.01)
        time.sleep(0.3)
        with open("/proc/loadavg") as f:
            load = f.read().strip()
        say(f"# {a.label}: {a.kind} {a.server} aof={a.aof} extra={a.extra!r}")
        say(f"date {time.strftime('%Y-%m-%d %H:%M:%S', time.gmtime())} UTC, loadavg at start: {load}")
        bench = ["taskset", "-c", "1", "redis-benchmark", "-p", str(port), "-t", "set", "-P", "30",
                 "-n", str(a.requests), "-r", "1000000", "-d", "256", "-c", "50", "-q"]
        say("load: " + " ".join(bench))
        tracer = None
        tfile = os.path.join(d, "trace.txt")
        if a.trace:
            tracer = subprocess.Popen(["perf", "trace", "-s", "-p", str(p.pid), "-o", tfile],
                                      stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            time.sleep(1.0)
        if a.record:
            tracer = subprocess.Popen(["perf", "record", "-F", "1999", "-g", "-p", str(p.pid), "-o",
                                       PERFDATA],
                                      stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            time.sleep(1.0)
        t0 = threads(p.pid)
        w0 = time.monotonic()
        out = subprocess.run(bench, capture_output=True, text=True).stdout
        wall = time.monotonic() - w0
        t1 = threads(p.pid)
        if tracer:
            tracer.send_signal(signal.SIGINT)
            tracer.wait()
        rps = [x for x in out.replace("\r", "\n").split("\n") if "requests per second" in x]
        say(f"benchmark: {rps[-1].strip() if rps else out[-200:]}  wall {wall:.2f} s")
        tu = ts = 0
        say(f"{'tid':>8} {'comm':16} {'user ns/SET':>12} {'sys ns/SET':>12}")
        for tid, (comm, u1, s1) in sorted(t1.items()):
            _, u0, s0 = t0.get(tid, (comm, 0, 0))
            du, ds = u1 - u0, s1 - s0
            tu += du; ts += ds
            if du or ds:
                say(f"{tid:>8} {comm:16} {du / HZ / a.requests * 1e9:12.0f} {ds / HZ / a.requests * 1e9:12.0f}")
        say(f"{'total':>8} {'':16} {tu / HZ / a.requests * 1e9:12.0f} {ts / HZ / a.requests * 1e9:12.0f}"
            f"   = {(tu + ts) / HZ / a.requests * 1e9:.0f} ns per SET")
        aofsize = 0
        for root, _, files in os.walk(d):
            for fn in files:
                if "aof" in fn or "appendonly" in root:
                    aofsize += os.path.getsize(os.path.join(root, fn))
        with open(os.path.join(d, "server.log"), errors="replace") as f:
            rw = [l.strip() for l in f if "rewrit" in l.lower()]
        say(f"server log, rewrite lines ({len(rw)}):")
        for l in rw:
            say("  " + l)
        say(f"AOF bytes on disk: {aofsize:,} ({aofsize / a.requests:.0f} per SET)")
        if a.trace and os.path.exists(tfile):
            with open(tfile) as f:
                say(f.read())
        if a.record:
            rep = subprocess.run(["perf", "report", "-i", PERFDATA, "--pid", str(p.pid), "--no-children",
                                  "--sort", "sym", "--stdio", "-g", "none", "--percent-limit", "0.7"],
                                 capture_output=True, text=True).stdout
            say("\n".join(l for l in rep.splitlines() if l and not l.startswith("#"))[:8000])
            rep = subprocess.run(["perf", "report", "-i", PERFDATA, "--pid", str(p.pid), "--no-children",
                                  "--sort", "comm,dso", "--stdio", "-g", "none"],
                                 capture_output=True, text=True).stdout
            say("\n".join(l for l in rep.splitlines() if l and not l.startswith("#"))[:3000])
    finally:
        p.send_signal(signal.SIGKILL)
        p.wait()
        shutil.rmtree(d, ignore_errors=True)
    with open(os.path.join(HERE, a.label + ".txt"), "w") as f:
        f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
