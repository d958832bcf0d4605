"""Shared pieces of the benchmark harness: /proc readers, servers we start, tool runs.

Everything here touches only processes this harness started (by pid) and ports it picked
and checked free. Standard library only.
"""
import ctypes
import os
import random
import resource
import signal
import socket
import statistics
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
CLK_TCK = os.sysconf("SC_CLK_TCK")
HOST = "127.0.0.1"


def log(msg):
    print(f"[bench {time.strftime('%H:%M:%S')}] {msg}", file=sys.stderr, flush=True)


# ---------------------------------------------------------------------------------------
# /proc readers


def proc_cpu_s(pid):
    """utime + stime of the whole process (all threads, live and exited), in seconds."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    # fields[0] is field 3 (state); utime, stime are fields 14 and 15.
    return (int(fields[11]) + int(fields[12])) / CLK_TCK


def proc_user_sys_s(pid):
    """(utime, stime) of the whole process, in seconds."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return int(fields[11]) / CLK_TCK, int(fields[12]) / CLK_TCK


def ctx_switches(pid):
    """(voluntary, involuntary) context switches of every thread of the process."""
    vol = invol = 0
    for tid in os.listdir(f"/proc/{pid}/task"):
        try:
            with open(f"/proc/{pid}/task/{tid}/status") as f:
                for line in f:
                    if line.startswith("voluntary_ctxt_switches:"):
                        vol += int(line.split()[1])
                    elif line.startswith("nonvoluntary_ctxt_switches:"):
                        invol += int(line.split()[1])
        except FileNotFoundError:
            pass  # a thread that ended meanwhile
    return vol, invol


def proc_status(pid, key):
    """A field of /proc/<pid>/status as an int (VmRSS in kB, Threads...)."""
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith(key + ":"):
                return int(line.split()[1])
    return None


def core_busy_s(core):
    """Busy (non-idle, non-iowait) seconds of one CPU so far, and its steal seconds."""
    with open("/proc/stat") as f:
        for line in f:
            if line.startswith(f"cpu{core} "):
                v = [int(x) for x in line.split()[1:]]
                user, nice, system, idle, iowait, irq, softirq, steal = v[:8]
                busy = user + nice + system + irq + softirq + steal
                return busy / CLK_TCK, steal / CLK_TCK
    raise RuntimeError(f"cpu{core} not in /proc/stat")


def loadavg():
    with open("/proc/loadavg") as f:
        return " ".join(f.read().split()[:3])


def children_cpu_s():
    """CPU seconds of all children waited for so far (used as a before/after delta)."""
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


# ---------------------------------------------------------------------------------------
# Ports and processes


def port_is_free(port):
    with socket.socket() as s:
        if s.connect_ex((HOST, port)) == 0:
            return False  # somebody listens there
    with socket.socket() as s:
        try:
            s.bind((HOST, port))
        except OSError:
            return False
    return True


def pick_port():
    rng = random.Random(os.getpid() ^ time.time_ns())
    for _ in range(200):
        port = rng.randrange(20000, 60000)
        if port_is_free(port):
            return port
    raise RuntimeError("no free port found")


def _die_with_parent():
    # PR_SET_PDEATHSIG: a server we started dies with the harness even on SIGKILL.
    ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGTERM)


_STARTED = []  # servers still running, stopped by stop_all() on exit


class Server:
    """One server process we start, pinned to `core` with taskset (taskset execs, so the
    pid we hold is the server's own)."""

    def __init__(self, name, argv, core, logdir, port=None):
        self.name = name
        self.port = port or pick_port()
        self.argv = ["taskset", "-c", str(core)] + [a.replace("{port}", str(self.port)) for a in argv]
        self.logpath = Path(logdir) / f"{name}-{self.port}.log"
        self.proc = None

    @property
    def pid(self):
        return self.proc.pid

    def start(self, timeout=20):
        self.logpath.parent.mkdir(parents=True, exist_ok=True)
        logf = open(self.logpath, "w")
        log(f"start {self.name}: {' '.join(self.argv)}")
        self.proc = subprocess.Popen(self.argv, stdout=logf, stderr=subprocess.STDOUT,
                                     stdin=subprocess.DEVNULL, preexec_fn=_die_with_parent)
        _STARTED.append(self)
        deadline = time.time() + timeout
        while time.time() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"{self.name} exited with {self.proc.returncode}; see {self.logpath}")
            if cli(self.port, "PING", check=False).strip() == "PONG":
                return self
            time.sleep(0.1)
        self.stop()
        raise RuntimeError(f"{self.name} did not answer PING within {timeout}s")

    def alive(self):
        return self.proc is not None and self.proc.poll() is None

    def cpu_s(self):
        return proc_cpu_s(self.pid)

    def rss_kb(self):
        return proc_status(self.pid, "VmRSS")

    def threads(self):
        return proc_status(self.pid, "Threads")

    def cli(self, *args, check=True):
        return cli(self.port, *args, check=check)

    def pause(self):
        """SIGSTOP: a server kept loaded beside the one measured takes no CPU meanwhile."""
        if self.alive():
            self.proc.send_signal(signal.SIGSTOP)

    def resume(self):
        if self.alive():
            self.proc.send_signal(signal.SIGCONT)

    def stop(self):
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGCONT)  # in case it was paused
        if self.proc is None or self.proc.poll() is not None:
            if self in _STARTED:
                _STARTED.remove(self)
            return self.proc.returncode if self.proc else None
        self.proc.send_signal(signal.SIGTERM)
        try:
            self.proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            log(f"{self.name} (pid {self.pid}) ignored SIGTERM for 15 s; SIGKILL")
            self.proc.kill()
            self.proc.wait()
        _STARTED.remove(self)
        return self.proc.returncode


def stop_all():
    for s in list(_STARTED):
        try:
            s.stop()
        except Exception as e:  # noqa: BLE001 - best effort on the way out
            log(f"stopping {s.name}: {e}")


def cli(port, *args, check=True, timeout=30):
    r = subprocess.run(["redis-cli", "-h", HOST, "-p", str(port)] + [str(a) for a in args],
                       capture_output=True, text=True, timeout=timeout)
    if check and r.returncode != 0:
        raise RuntimeError(f"redis-cli {' '.join(map(str, args))}: {r.stderr.strip()}")
    return r.stdout


class CommandLog:
    """Every external command the harness runs against a server, one per line, with the
    port replaced by $PORT so that the lines are the same from run to run."""

    def __init__(self, path):
        self.path = Path(path)
        self.seen = []

    def add(self, argv, port=None, note=""):
        line = " ".join(_shell_quote(a) for a in argv)
        if port is not None:
            line = line.replace(str(port), "$PORT")
        if note:
            line = f"{line}    # {note}"
        if line not in self.seen:
            self.seen.append(line)
            with open(self.path, "a") as f:
                f.write(line + "\n")


def _shell_quote(a):
    a = str(a)
    if len(a) > 40 and len(set(a)) == 1:
        return f"$(printf '{a[0]}%.0s' {{1..{len(a)}}})"  # a long run of one char
    if a == "|":
        return a
    if a == "" or any(c in a for c in " '\"$*?[]{}()<>|&;\\"):
        return "'" + a.replace("'", "'\\''") + "'"
    return a


def run_measured(argv, server, timeout=None):
    """Run a client tool to completion; return its output and CPU figures.

    Server CPU (all threads, /proc/<pid>/stat) and the busy time of the server's core are
    sampled just before the tool starts and just after it exits; the tool's own CPU comes
    from getrusage(RUSAGE_CHILDREN) around its wait (no other child is waited meanwhile).
    """
    core = server_core(server)
    c0 = children_cpu_s()
    s0 = server.cpu_s()
    b0, st0 = core_busy_s(core)
    t0 = time.monotonic()
    r = subprocess.run(argv, capture_output=True, text=True, timeout=timeout)
    wall = time.monotonic() - t0
    s1 = server.cpu_s()
    b1, st1 = core_busy_s(core)
    c1 = children_cpu_s()
    server_cpu = s1 - s0
    return {
        "rc": r.returncode,
        "stdout": r.stdout,
        "stderr": r.stderr,
        "wall_s": wall,
        "server_cpu_s": server_cpu,
        "gen_cpu_s": c1 - c0,
        "gen_cpu_pct": 100.0 * (c1 - c0) / wall if wall > 0 else 0.0,
        "server_cpu_pct": 100.0 * server_cpu / wall if wall > 0 else 0.0,
        # CPU of other processes (and steal) on the server's core: noise from the shared machine
        "foreign_pct": 100.0 * max(0.0, (b1 - b0) - server_cpu) / wall if wall > 0 else 0.0,
        "steal_pct": 100.0 * (st1 - st0) / wall if wall > 0 else 0.0,
    }


def server_core(server):
    return int(server.argv[2])


def idle_cpu_pct(server, seconds=1.0):
    s0 = server.cpu_s()
    time.sleep(seconds)
    return 100.0 * (server.cpu_s() - s0) / seconds


def settle(server, limit_pct=3.0, max_s=15):
    """Wait until the server is idle (a 1 s window under limit_pct of a core) so that work
    left over from a load does not land in the next measurement. Returns (the last
    window's CPU %, seconds waited)."""
    t0 = time.monotonic()
    while True:
        pct = idle_cpu_pct(server)
        waited = time.monotonic() - t0
        if pct <= limit_pct or waited >= max_s:
            if pct > limit_pct:
                log(f"{server.name} still uses {pct:.0f} % of a core {waited:.0f} s after the load")
            return pct, waited


def med_min_max(values):
    v = [x for x in values if x is not None]
    if not v:
        return None, None, None
    return statistics.median(v), min(v), max(v)
