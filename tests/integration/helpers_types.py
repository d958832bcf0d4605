"""Shared helpers for the data-type integration tests (lists, hashes, sets, sorted sets,
transactions, blocking commands).

- `raw_client(server)` / `rc_fixture(server)`: a client that returns the server's replies
  as they are (redis-py's reply callbacks are removed, so "1.5" stays a string, an integer
  stays an int, nil is None, a status reply is its text), on one dedicated connection
  (MULTI/EXEC safe). Test modules define an `rc` fixture from it that also depends on `r`
  (so every database is flushed first).
  Use: `rc("LPUSH", "k", "a") == 1`, `rc.err("LPOP", "k", "-1") == "ERR ..."`.
- `error_text(exc)`: the whole error line a ResponseError came from, e.g.
  "ERR syntax error" (redis-py itself strips a leading "ERR " from str(exc)).
- `expect_error(text)`: context manager; the block must raise a ResponseError whose whole
  error line is `text`.
- `resp3_connection(server)`: a raw connection after HELLO 3; `double("1.5")` is how
  it returns a RESP3 double.
- `blocked_clients(client)`, `wait_blocked(client, n)`: INFO clients / blocked_clients.
"""
import contextlib
import time

import pytest
import redis
import redis.connection
from redis.exceptions import ResponseError

# redis-py turns "-ERR text" into ResponseError("text") but "-WRONGTYPE text" into
# ResponseError("WRONGTYPE text"), so str(exc) cannot tell "-ERR x" from "-x". Keep the
# whole line on the exception so that tests compare the exact error the server sent.
# (Only an attribute is added; str(exc) and the exception classes are unchanged.)
_orig_parse_error = redis.connection.BaseParser.parse_error
if not getattr(_orig_parse_error, "_keeps_full_text", False):
    def _parse_error_keeping_text(self, response):
        exc = _orig_parse_error(self, response)
        exc.full_text = response
        return exc

    _parse_error_keeping_text._keeps_full_text = True
    redis.connection.BaseParser.parse_error = _parse_error_keeping_text


def error_text(exc):
    """The whole error line (without the leading '-') of a ResponseError."""
    return getattr(exc, "full_text", str(exc))


@contextlib.contextmanager
def expect_error(text):
    with pytest.raises(ResponseError) as info:
        yield info
    assert error_text(info.value) == text


WRONGTYPE = "WRONGTYPE Operation against a key holding the wrong kind of value"
SYNTAX = "ERR syntax error"
NOT_INT = "ERR value is not an integer or out of range"
NOT_FLOAT = "ERR value is not a valid float"
OUT_OF_RANGE_POSITIVE = "ERR value is out of range, must be positive"


def arity(cmd):
    return f"ERR wrong number of arguments for '{cmd}' command"


class RawClient:
    """Callable wrapper around a redis-py client without reply callbacks."""

    def __init__(self, client):
        self.client = client

    def __call__(self, *args):
        return self.client.execute_command(*args)

    def err(self, *args):
        """Runs a command that must fail; returns the whole error line."""
        try:
            reply = self.client.execute_command(*args)
        except ResponseError as exc:
            return error_text(exc)
        raise AssertionError(f"{args!r} did not fail, replied {reply!r}")

    def close(self):
        self.client.close()


def raw_client(server, **kwargs):
    kwargs.setdefault("single_connection_client", True)
    client = server.client(**kwargs)
    client.response_callbacks.clear()
    return RawClient(client)


def rc_fixture(server):
    """Body of the per-module `rc` fixture (the shared server is flushed by `r`):

        @pytest.fixture
        def rc(server, r):
            yield from rc_fixture(server)
    """
    c = raw_client(server)
    yield c
    c.close()


def resp3_connection(server):
    """A raw RESP connection switched to RESP3 with HELLO 3."""
    conn = server.raw()
    hello = conn.command("HELLO", "3")
    assert isinstance(hello, tuple) and hello[0] == "map", hello
    return conn


def double(text):
    """How RawConnection represents a RESP3 double reply (",1.5")."""
    return ("double", text)


def as_set_of_pairs(flat):
    """[m1, s1, m2, s2] -> {(m1, s1), (m2, s2)}"""
    return set(zip(flat[0::2], flat[1::2]))


def wait_for(predicate, timeout=5.0, interval=0.005, what="condition"):
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(interval)


def blocked_clients(client):
    info = client.execute_command("INFO", "clients")
    if isinstance(info, bytes):
        info = info.decode()
    if isinstance(info, dict):  # a client with redis-py's INFO callback
        return int(info["blocked_clients"])
    for line in info.splitlines():
        if line.startswith("blocked_clients:"):
            return int(line.split(":", 1)[1])
    raise AssertionError("INFO clients has no blocked_clients field")


def wait_blocked(client, n, timeout=5.0):
    """Waits until exactly `n` clients are blocked on the server."""
    wait_for(lambda: blocked_clients(client) == n, timeout=timeout,
             what=f"{n} blocked clients")
