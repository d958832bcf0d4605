"""Cluster fixtures for integration tests: N server nodes with cluster-enabled on loopback.

Each node gets a free client port whose bus port (port + 10000) is free too, its own
directory (nodes.conf, logs), and is stopped by its pid. Works for HotKV (HOTKV_SERVER)
and for real Redis binaries (/usr/bin/redis-server, Redis 8.8 in ../shared/peers), so a
test can build mixed clusters.

    with ClusterNodes(tmp_path, 3) as nodes:
        nodes[0].client().cluster("nodes")
"""
import os
import random
import shutil
import signal
import socket
import subprocess
import time

import pytest
import redis

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
HOTKV = os.environ.get("HOTKV_SERVER", os.path.join(ROOT, "build/release/hotkv-server"))
REDIS70 = "/usr/bin/redis-server"
REDIS_CLI = shutil.which("redis-cli") or "/usr/bin/redis-cli"


def _bindable(port):
    with socket.socket() as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            s.bind(("127.0.0.1", port))
        except OSError:
            return False
    return True


_used = set()


def cluster_port_pair():
    """A free client port p (below 55536) with p + 10000 free as well."""
    for _ in range(500):
        p = random.randint(20000, 45000)
        if p in _used:
            continue
        if _bindable(p) and _bindable(p + 10000):
            _used.add(p)
            return p
    raise RuntimeError("no free port pair")


def is_redis(binary):
    return os.path.basename(binary).startswith("redis-server")


class ClusterNode:
    def __init__(self, binary, workdir, extra=(), node_timeout=5000):
        self.binary = binary
        self.port = cluster_port_pair()
        self.bus_port = self.port + 10000
        self.dir = os.path.join(str(workdir), f"node-{self.port}")
        os.makedirs(self.dir, exist_ok=True)
        self.extra = list(extra)
        self.node_timeout = node_timeout
        self.proc = None
        self.log = None

    def start(self):
        cmd = [self.binary, "--port", str(self.port), "--bind", "127.0.0.1",
               "--cluster-enabled", "yes", "--cluster-config-file", "nodes.conf",
               "--cluster-node-timeout", str(self.node_timeout), "--dir", self.dir]
        if is_redis(self.binary):
            cmd += ["--save", "", "--appendonly", "no"]
        cmd += self.extra
        self.log = open(os.path.join(self.dir, "server.log"), "ab")
        self.proc = subprocess.Popen(cmd, cwd=self.dir, stdout=self.log, stderr=subprocess.STDOUT)
        deadline = time.time() + 15
        while time.time() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"{self.binary} exited: {self.read_log()[-2000:]}")
            try:
                if self.client().ping():
                    return self
            except redis.exceptions.ConnectionError:
                time.sleep(0.05)
        raise RuntimeError(f"{self.binary} on {self.port} did not start")

    def read_log(self):
        try:
            with open(os.path.join(self.dir, "server.log"), "rb") as f:
                return f.read().decode(errors="replace")
        except OSError:
            return ""

    def client(self, **kw):
        return redis.Redis(host="127.0.0.1", port=self.port, socket_timeout=10, **kw)

    def myid(self):
        return self.client().execute_command("CLUSTER", "MYID").decode()

    def nodes(self):
        """CLUSTER NODES parsed: {id: {"addr", "flags" (set), "master", "epoch", "link", "slots"}}."""
        raw = self.client().execute_command("CLUSTER", "NODES")
        if isinstance(raw, bytes):
            raw = raw.decode()
        out = {}
        for line in raw.strip().splitlines():
            f = line.split()
            out[f[0]] = {"addr": f[1], "flags": set(f[2].split(",")), "master": f[3],
                         "epoch": int(f[6]), "link": f[7], "slots": f[8:], "line": line}
        return out

    def stop(self):
        if self.proc is None:
            return
        if self.proc.poll() is None:
            os.kill(self.proc.pid, signal.SIGTERM)
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                os.kill(self.proc.pid, signal.SIGKILL)
                self.proc.wait(timeout=10)
        self.proc = None
        if self.log:
            self.log.close()
            self.log = None


class ClusterNodes:
    """N nodes (binaries: one path for all, or a list), started on enter, stopped on exit."""

    def __init__(self, workdir, count=3, binaries=None, extra=(), node_timeout=5000):
        if binaries is None or isinstance(binaries, str):
            binaries = [binaries or HOTKV] * count
        self.nodes = [ClusterNode(b, workdir, extra, node_timeout) for b in binaries]

    def __enter__(self):
        try:
            for n in self.nodes:
                n.start()
        except Exception:
            self.stop()
            raise
        return self.nodes

    def __exit__(self, *exc):
        self.stop()

    def stop(self):
        for n in self.nodes:
            n.stop()


def wait_until(pred, timeout=20, interval=0.1):
    """Polls `pred` until it returns something truthy (returned) or `timeout` passes (None)."""
    deadline = time.time() + timeout
    while True:
        try:
            v = pred()
            if v:
                return v
        except (redis.exceptions.RedisError, OSError):
            pass
        if time.time() >= deadline:
            return None
        time.sleep(interval)


def redis_cli(*args, timeout=60):
    """Runs redis-cli; returns (exit status, stdout + stderr)."""
    p = subprocess.run([REDIS_CLI, *args], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       timeout=timeout, stdin=subprocess.DEVNULL)
    return p.returncode, p.stdout.decode(errors="replace")


# Slow cluster cases (mixed clusters, failovers, larger clusters) run with
# HOTKV_SLOW_TESTS=1 (`make cluster-test`); `make test` keeps a fast subset.
SLOW_TESTS = os.environ.get("HOTKV_SLOW_TESTS") == "1"
slow = pytest.mark.skipif(not SLOW_TESTS, reason="slow: set HOTKV_SLOW_TESTS=1 (make cluster-test)")
