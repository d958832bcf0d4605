"""Network namespaces for cluster failure tests: one namespace per server, joined by veth
pairs to a bridge in the test's own namespace, so a test can cut a node off (link down),
heal it (link up) or slow its link (tc tbf; this kernel has no netem).

Everything is made by the test and removed on exit, even after a failure: server
processes (by pid), veth pairs, the bridge, the namespaces. Addresses are in a private
/24 of 10.250.0.0/16 that no interface of this machine uses yet. Needs root (CAP_NET_ADMIN);
`NetLab.available()` says why not when it cannot be used.

    with NetLab(3) as lab:
        lab.start_server(0, HOTKV, ["--cluster-enabled", "yes"])
        lab.client(0).ping()
        lab.cut(0); lab.heal(0)
"""
import os
import random
import shutil
import signal
import subprocess
import time

import redis

IP = shutil.which("ip") or "/usr/sbin/ip"
TC = shutil.which("tc") or "/usr/sbin/tc"
REDIS_CLI = shutil.which("redis-cli") or "/usr/bin/redis-cli"
PORT = 7000  # every server has its own namespace, so they all use the same port


def _run(*args, check=True, timeout=20):
    p = subprocess.run(list(args), stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       timeout=timeout, stdin=subprocess.DEVNULL)
    out = p.stdout.decode(errors="replace")
    if check and p.returncode != 0:
        raise RuntimeError(f"{' '.join(args)} failed ({p.returncode}): {out}")
    return p.returncode, out


def unavailable_reason():
    """None when namespaces can be made here, else why not (for pytest.skip)."""
    if not os.path.exists(IP):
        return "no `ip` command"
    name = f"hkvprobe{os.getpid()}"
    try:
        rc, out = _run(IP, "netns", "add", name, check=False)
    except (OSError, subprocess.SubprocessError) as e:
        return f"ip netns add: {e}"
    if rc != 0:
        return f"ip netns add not permitted: {out.strip()}"
    _run(IP, "netns", "del", name, check=False)
    return None


def _free_subnet():
    _, out = _run(IP, "-4", "addr", "show", check=False)
    _, routes = _run(IP, "-4", "route", "show", "table", "all", check=False)
    used = out + routes
    for _ in range(200):
        k = random.randint(1, 254)
        if f"10.250.{k}." not in used:
            return f"10.250.{k}"
    raise RuntimeError("no free 10.250.x.0/24")


class NetLab:
    def __init__(self, count):
        self.count = count
        tag = f"{os.getpid() % 100000:05d}{random.randint(0, 99):02d}"
        self.tag = tag
        self.bridge = f"hk{tag}b"           # <= 15 characters
        self.bridge2 = f"hk{tag}p"          # the far side of a partition, made on demand
        self.ns = [f"hkv{tag}n{i}" for i in range(count)]
        self.veth = [f"hk{tag}v{i}" for i in range(count)]
        self.subnet = None
        self.procs = {}
        self.logs = {}
        self.made_ns = []
        self.made_links = []
        self.shaped = set()

    # -- set-up and tear-down --------------------------------------------------------
    def __enter__(self):
        try:
            self._setup()
        except BaseException:
            self.close()
            raise
        return self

    def __exit__(self, *exc):
        self.close()

    def ip(self, i):
        return f"{self.subnet}.{i + 1}"

    def _setup(self):
        self.subnet = _free_subnet()
        _run(IP, "link", "add", self.bridge, "type", "bridge")
        self.made_links.append(self.bridge)
        _run(IP, "addr", "add", f"{self.subnet}.254/24", "dev", self.bridge)
        _run(IP, "link", "set", self.bridge, "up")
        for i in range(self.count):
            _run(IP, "netns", "add", self.ns[i])
            self.made_ns.append(self.ns[i])
            _run(IP, "link", "add", self.veth[i], "type", "veth", "peer", "name", "eth0",
                 "netns", self.ns[i])
            self.made_links.append(self.veth[i])
            _run(IP, "link", "set", self.veth[i], "master", self.bridge)
            _run(IP, "link", "set", self.veth[i], "up")
            _run(IP, "netns", "exec", self.ns[i], IP, "link", "set", "lo", "up")
            _run(IP, "netns", "exec", self.ns[i], IP, "addr", "add", f"{self.ip(i)}/24", "dev", "eth0")
            _run(IP, "netns", "exec", self.ns[i], IP, "link", "set", "eth0", "up")

    def close(self):
        errors = []
        for i in list(self.procs):
            try:
                self.stop_server(i)
            except Exception as e:  # keep tearing down
                errors.append(str(e))
        for name in reversed(self.made_links):  # deleting one end of a veth removes both
            _run(IP, "link", "del", name, check=False)
        self.made_links = []
        for ns in reversed(self.made_ns):
            _run(IP, "netns", "del", ns, check=False)
        self.made_ns = []
        if errors:
            raise RuntimeError("; ".join(errors))

    # -- servers ----------------------------------------------------------------------
    def start_server(self, i, binary, args, workdir):
        d = os.path.join(str(workdir), f"node{i}")
        os.makedirs(d, exist_ok=True)
        cmd = [IP, "netns", "exec", self.ns[i], binary, "--port", str(PORT),
               "--bind", self.ip(i), "127.0.0.1", "--dir", d, *args]
        if os.path.basename(binary).startswith("redis-server"):
            cmd += ["--save", "", "--appendonly", "no", "--protected-mode", "no"]
        log = open(os.path.join(d, "server.log"), "ab")
        self.logs[i] = log
        # `ip netns exec` execs the binary: the pid is the server's.
        self.procs[i] = subprocess.Popen(cmd, cwd=d, stdout=log, stderr=subprocess.STDOUT)
        deadline = time.time() + 15
        while time.time() < deadline:
            if self.procs[i].poll() is not None:
                raise RuntimeError(f"server {i} exited: {self.read_log(i, workdir)[-2000:]}")
            # Asked from inside its namespace: works while its link is down too.
            if self.cli(i, "PING", timeout=5).strip() == "PONG":
                return
            time.sleep(0.05)
        raise RuntimeError(f"server {i} did not start")

    def read_log(self, i, workdir):
        try:
            with open(os.path.join(str(workdir), f"node{i}", "server.log"), "rb") as f:
                return f.read().decode(errors="replace")
        except OSError:
            return ""

    def stop_server(self, i):
        p = self.procs.pop(i, None)
        if p is not None and p.poll() is None:
            try:
                os.kill(p.pid, signal.SIGCONT)  # a paused server cannot act on SIGTERM
                os.kill(p.pid, signal.SIGTERM)
                p.wait(timeout=10)
            except subprocess.TimeoutExpired:
                os.kill(p.pid, signal.SIGKILL)
                p.wait(timeout=10)
        log = self.logs.pop(i, None)
        if log:
            log.close()

    def pause(self, i):
        os.kill(self.procs[i].pid, signal.SIGSTOP)

    def resume(self, i):
        os.kill(self.procs[i].pid, signal.SIGCONT)

    def client(self, i, timeout=5):
        """A client from the test's namespace, over the bridge."""
        return redis.Redis(host=self.ip(i), port=PORT, socket_timeout=timeout,
                           socket_connect_timeout=timeout)

    def cli(self, i, *args, timeout=10):
        """redis-cli run inside node i's namespace (reaches it while it is cut off)."""
        _, out = _run(IP, "netns", "exec", self.ns[i], REDIS_CLI, "-h", "127.0.0.1", "-p",
                      str(PORT), *[str(a) for a in args], check=False, timeout=timeout)
        return out

    # -- faults -------------------------------------------------------------------------
    def cut(self, i):
        """Node i loses its link: nothing reaches it or leaves it (no RST, no FIN)."""
        _run(IP, "link", "set", self.veth[i], "down")

    def heal(self, i):
        _run(IP, "link", "set", self.veth[i], "up")

    def partition(self, group):
        """Moves the nodes of `group` onto a second bridge: they reach each other but not
        the rest, nor the test's namespace (ask them with cli())."""
        if self.bridge2 not in self.made_links:
            _run(IP, "link", "add", self.bridge2, "type", "bridge")
            self.made_links.insert(0, self.bridge2)
            _run(IP, "link", "set", self.bridge2, "up")
        for i in group:
            _run(IP, "link", "set", self.veth[i], "master", self.bridge2)

    def unpartition(self, group):
        for i in group:
            _run(IP, "link", "set", self.veth[i], "master", self.bridge)

    def slow(self, i, rate="256kbit", burst="4kb", latency="400ms"):
        """A token-bucket (tbf) limit on both directions of node i's link."""
        _run(TC, "qdisc", "add", "dev", self.veth[i], "root", "tbf", "rate", rate,
             "burst", burst, "latency", latency)
        _run(IP, "netns", "exec", self.ns[i], TC, "qdisc", "add", "dev", "eth0", "root", "tbf",
             "rate", rate, "burst", burst, "latency", latency)
        self.shaped.add(i)

    def unslow(self, i):
        _run(TC, "qdisc", "del", "dev", self.veth[i], "root", check=False)
        _run(IP, "netns", "exec", self.ns[i], TC, "qdisc", "del", "dev", "eth0", "root", check=False)
        self.shaped.discard(i)

    def qdisc_stats(self, i):
        """`tc -s qdisc` of both ends of node i's link (bytes sent through tbf)."""
        _, a = _run(TC, "-s", "qdisc", "show", "dev", self.veth[i], check=False)
        _, b = _run(IP, "netns", "exec", self.ns[i], TC, "-s", "qdisc", "show", "dev", "eth0",
                    check=False)
        return a + b
