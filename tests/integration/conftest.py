"""Fixtures for integration tests: a real server process on a free port.

HOTKV_SERVER names the binary (default build/release/hotkv-server). Pointing it at
Debian's /usr/bin/redis-server runs the same tests against Redis 7.0, which is how a test
is checked against the reference before HotKV is held to it. Tests that depend on
behaviour that changed after Redis 7.0 (we follow current Redis docs) are marked with
`@pytest.mark.redis8` and skipped against redis-server 7.0; tests for HotKV-only features
are marked `@pytest.mark.hotkv_only`. With HOTKV_TEST_REDIS_MODULE=/path/module.so a
redis-server loads that module (e.g. Redis 8.8 + RediSearch for the FT.* tests).
"""
import os
import signal
import socket
import subprocess
import time

import pytest
import redis

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SERVER = os.environ.get("HOTKV_SERVER", os.path.join(ROOT, "build/release/hotkv-server"))
IS_REDIS = os.path.basename(SERVER).startswith("redis-server")
REDIS_MODULE = os.environ.get("HOTKV_TEST_REDIS_MODULE", "") if IS_REDIS else ""


def _redis_major():
    """The major version of a redis-server SERVER ("Redis server v=8.8.0 ..."), else 0."""
    if not IS_REDIS:
        return 0
    try:
        out = subprocess.run([SERVER, "--version"], capture_output=True, text=True,
                             timeout=10).stdout
        return int(out.split("v=")[1].split(".")[0])
    except (OSError, ValueError, IndexError, subprocess.TimeoutExpired):
        return 0


REDIS_MAJOR = _redis_major()


def pytest_configure(config):
    config.addinivalue_line("markers", "redis8: behaviour of Redis >= 7.2/8.x (skipped on redis-server 7.0)")
    config.addinivalue_line("markers", "hotkv_only: HotKV feature (skipped on redis-server)")


def pytest_collection_modifyitems(config, items):
    if not IS_REDIS:
        return
    skip8 = pytest.mark.skip(reason="needs Redis 8 behaviour; reference peer is 7.0")
    if REDIS_MAJOR >= 8:
        skip8 = None  # Redis 8.x (/work/shared/peers/redis-8.8) runs the redis8 tests
    skiph = pytest.mark.skip(reason="HotKV-only feature")
    for item in items:
        if "redis8" in item.keywords and skip8 is not None:
            item.add_marker(skip8)
        if "hotkv_only" in item.keywords:
            item.add_marker(skiph)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class ServerProcess:
    """One server process. `args` are redis-server style options ("--name", "value")."""

    def __init__(self, args=(), hotkv_args=(), config_text=None, tmp_path=None):
        self.port = free_port()
        self.args = list(args)
        self.hotkv_args = list(hotkv_args)
        self.config_text = config_text
        self.tmp_path = tmp_path
        self.proc = None
        self.password = None
        for i, a in enumerate(self.args):
            if a == "--requirepass" and i + 1 < len(self.args):
                self.password = self.args[i + 1]

    def command_line(self):
        cmd = [SERVER]
        if self.config_text is not None:
            path = os.path.join(str(self.tmp_path), f"server-{self.port}.conf")
            with open(path, "w") as f:
                f.write(self.config_text)
            cmd.append(path)
        # DEBUG is refused by default (Redis 8's enable-debug-command no); tests use it.
        cmd += ["--port", str(self.port), "--bind", "127.0.0.1", "--enable-debug-command", "yes"]
        # Each server works in its test's directory: a dump.rdb left there (or in the
        # directory pytest runs in) must never be loaded by another test's server.
        if self.tmp_path is not None:
            cmd += ["--dir", str(self.tmp_path)]
        if IS_REDIS:
            cmd += ["--save", "", "--appendonly", "no"]
            if REDIS_MODULE:
                cmd += ["--loadmodule", REDIS_MODULE]
        else:
            cmd += self.hotkv_args
        cmd += self.args
        return cmd

    def start(self, timeout=15.0, accept_loading=False):
        """Waits until the server answers PING (with `accept_loading`, a -LOADING reply
        while it loads a dataset counts as started)."""
        self.proc = subprocess.Popen(self.command_line(), stdout=subprocess.PIPE,
                                     stderr=subprocess.STDOUT)
        deadline = time.time() + timeout
        while time.time() < deadline:
            if self.proc.poll() is not None:
                out = self.proc.stdout.read().decode(errors="replace")
                raise RuntimeError(f"server exited with {self.proc.returncode}: {out}")
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=0.5) as s:
                    # QUIT: the server closes the probe itself, before we see EOF, so the
                    # probe is never still counted among the clients once start() returns.
                    s.sendall(b"PING\r\nQUIT\r\n")
                    data = b""
                    while True:
                        chunk = s.recv(64)
                        if not chunk:
                            break
                        data += chunk
                    if data.startswith(b"+PONG") or data.startswith(b"-NOAUTH") or (
                            accept_loading and data.startswith(b"-LOADING")):
                        return self
            except OSError:
                pass
            time.sleep(0.02)
        raise RuntimeError("server did not start")

    def client(self, **kwargs):
        kwargs.setdefault("decode_responses", True)
        if self.password is not None:
            kwargs.setdefault("password", self.password)
        return redis.Redis(host="127.0.0.1", port=self.port, **kwargs)

    def raw(self, timeout=5.0):
        """A plain socket to the server, for protocol-level tests."""
        s = socket.create_connection(("127.0.0.1", self.port), timeout=timeout)
        return RawConnection(s)

    def stop(self, sig=signal.SIGTERM, timeout=10.0):
        """Stops the server and returns its exit code."""
        if self.proc is None or self.proc.poll() is not None:
            return self.proc.returncode if self.proc else None
        self.proc.send_signal(sig)
        try:
            return self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
            raise

    def alive(self):
        return self.proc is not None and self.proc.poll() is None


class RawConnection:
    """A socket with helpers to send bytes and read whole RESP replies."""

    def __init__(self, sock):
        self.sock = sock
        self.buf = b""

    def send(self, data):
        if isinstance(data, str):
            data = data.encode()
        self.sock.sendall(data)

    def send_command(self, *args):
        out = [b"*%d\r\n" % len(args)]
        for a in args:
            if isinstance(a, str):
                a = a.encode()
            elif isinstance(a, int):
                a = str(a).encode()
            out.append(b"$%d\r\n%s\r\n" % (len(a), a))
        self.send(b"".join(out))

    def _fill(self):
        chunk = self.sock.recv(65536)
        if not chunk:
            raise ConnectionError("connection closed by server")
        self.buf += chunk

    def _line(self):
        while b"\r\n" not in self.buf:
            self._fill()
        line, self.buf = self.buf.split(b"\r\n", 1)
        return line

    def _exact(self, n):
        while len(self.buf) < n + 2:
            self._fill()
        data, self.buf = self.buf[:n], self.buf[n + 2:]
        return data

    def read_reply(self):
        """Parses one RESP2/RESP3 reply. Errors come back as RespError, pushes as ('push', [...])."""
        line = self._line()
        t, rest = line[:1], line[1:]
        if t == b"+":
            return rest.decode()
        if t == b"-":
            return RespError(rest.decode())
        if t == b":":
            return int(rest)
        if t == b"$":
            n = int(rest)
            return None if n < 0 else self._exact(n)
        if t in (b"*", b"~", b">"):
            n = int(rest)
            if n < 0:
                return None
            items = [self.read_reply() for _ in range(n)]
            if t == b"~":
                return ("set", items)
            if t == b">":
                return ("push", items)
            return items
        if t == b"%":
            n = int(rest)
            return ("map", [(self.read_reply(), self.read_reply()) for _ in range(n)])
        if t == b"_":
            return None
        if t == b",":
            return ("double", rest.decode())
        if t == b"#":
            return rest == b"t"
        if t == b"(":
            return int(rest)
        if t == b"=":
            n = int(rest)
            return ("verbatim", self._exact(n))
        if t == b"|":
            n = int(rest)
            attrs = [(self.read_reply(), self.read_reply()) for _ in range(n)]
            return ("attr", attrs, self.read_reply())
        raise ValueError(f"bad reply type {line!r}")

    def command(self, *args):
        self.send_command(*args)
        return self.read_reply()

    def closed_by_server(self, timeout=2.0):
        """True when the server closes the connection (EOF) within `timeout`."""
        self.sock.settimeout(timeout)
        try:
            while True:
                chunk = self.sock.recv(65536)
                if not chunk:
                    return True
                self.buf += chunk
        except (socket.timeout, TimeoutError):
            return False
        except ConnectionResetError:
            return True

    def close(self):
        self.sock.close()


class RespError(str):
    pass


@pytest.fixture(scope="session")
def server(tmp_path_factory):
    """One server shared by the tests of a session; tests must not change its config
    permanently (use `start_server` for that)."""
    proc = ServerProcess(tmp_path=tmp_path_factory.mktemp("srv")).start()
    yield proc
    proc.stop()


@pytest.fixture
def r(server):
    """A decode_responses client on the shared server, with every database flushed."""
    c = server.client()
    c.flushall()
    yield c
    c.close()


@pytest.fixture
def rb(server):
    """A bytes client (decode_responses=False) on the shared server, databases flushed."""
    c = server.client(decode_responses=False)
    c.flushall()
    yield c
    c.close()


@pytest.fixture
def start_server(tmp_path):
    """Factory: start_server(args=[...], hotkv_args=[...], config_text=...) -> ServerProcess.
    Every server started is stopped at teardown."""
    started = []

    def factory(args=(), hotkv_args=(), config_text=None):
        proc = ServerProcess(args=args, hotkv_args=hotkv_args, config_text=config_text,
                             tmp_path=tmp_path).start()
        started.append(proc)
        return proc

    yield factory
    for p in started:
        p.stop()


# ---------------------------------------------------------------------------------------
# Helpers shared by the test files (import them with `from conftest import ...`).
# ---------------------------------------------------------------------------------------

class FullErrorParser(redis.connection.PythonParser):
    """redis-py strips the leading "ERR " from error replies (and turns a few into special
    exception classes); this parser keeps the whole line, so a test can tell
    "ERR syntax error" from "syntax error" or "WRONGTYPE ...". """

    def parse_error(self, response):
        return redis.ResponseError(response)


def restarted_with_aof(tmp_path, make, read, decode_responses=True):
    """Starts a server with appendonly yes in `tmp_path`, runs make(client), stops it,
    starts it again (the AOF replayed) and returns (read(client) before, read(client)
    after the restart)."""
    args = ["--dir", str(tmp_path), "--threads", "2", "--appendonly", "yes"]
    results = []
    for step in (make, None):
        srv = ServerProcess(args, tmp_path=tmp_path).start()
        try:
            c = srv.client(decode_responses=decode_responses)
            if step is not None:
                step(c)
            results.append(read(c))
        finally:
            srv.stop()
    return tuple(results)


def error_reply(client, *args):
    """Runs `args` on a fresh connection to the same server and database as `client` (same
    credentials) and returns the complete error line, e.g. "ERR syntax error". Fails the
    test if the command does not reply with an error."""
    kwargs = dict(client.connection_pool.connection_kwargs)
    kwargs["parser_class"] = FullErrorParser
    kwargs.pop("client_name", None)
    conn = redis.Connection(**kwargs)
    try:
        conn.send_command(*args)
        try:
            reply = conn.read_response()
        except redis.ResponseError as e:
            return str(e)
        raise AssertionError(f"{args!r} replied {reply!r}, expected an error")
    finally:
        conn.disconnect()


def cmd(client, *args):
    """Runs a command on `client` (one of its pooled connections, so SELECT etc. apply) and
    returns the reply as the RESP parser gives it, without redis-py's per-command
    conversions (SET -> True, TTL -> int, ...): "OK" stays "OK", nil is None."""
    pool = client.connection_pool
    conn = pool.get_connection(args[0])
    try:
        conn.send_command(*args)
        return conn.read_response()
    finally:
        pool.release(conn)


def wait_until(predicate, timeout=5.0, interval=0.01):
    """Polls `predicate` until it returns a true value or `timeout` seconds pass; returns
    the last value. Used instead of fixed sleeps so slow machines only make tests slower."""
    deadline = time.time() + timeout
    while True:
        value = predicate()
        if value or time.time() >= deadline:
            return value
        time.sleep(interval)


def parse_client_line(line):
    """One CLIENT LIST / CLIENT INFO line -> dict of its `field=value` pairs."""
    fields = {}
    for item in line.strip().split(" "):
        name, _, value = item.partition("=")
        fields[name] = value
    return fields


def resp_command(*args):
    """The RESP2 multibulk encoding of a command (bytes)."""
    out = [b"*%d\r\n" % len(args)]
    for a in args:
        if isinstance(a, str):
            a = a.encode()
        elif isinstance(a, int):
            a = str(a).encode()
        out.append(b"$%d\r\n%s\r\n" % (len(a), a))
    return b"".join(out)


@pytest.fixture
def restore_config(server):
    """Factory: restore_config("name", ...) records those parameters of the shared server
    and sets them back at teardown, so a test may CONFIG SET them freely."""
    saved = {}
    admin = server.client()

    def factory(*names):
        for name in names:
            saved.update(admin.config_get(name))

    yield factory
    for name, value in saved.items():
        admin.config_set(name, value)
    admin.close()


def run_server_binary(args, timeout=15.0):
    """Runs the server binary with `args` expecting it to exit by itself (bad options);
    returns (exit code, combined output). Kills it if it is still running at `timeout`."""
    proc = subprocess.Popen([SERVER] + list(args), stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT)
    try:
        out, _ = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        out, _ = proc.communicate()
        raise AssertionError(f"{args!r}: server kept running: {out.decode(errors='replace')}")
    return proc.returncode, out.decode(errors="replace")
