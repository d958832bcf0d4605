"""Wire protocol: RESP2 framing, inline commands, protocol errors (and the connection being
closed after them while other clients keep working), limits, pipelining, RESP3 replies."""
import socket
import threading
import time

import pytest

from conftest import error_reply, resp_command, wait_until


def send_tolerant(conn, data, chunk=65536):
    """Sends `data`, stopping quietly if the server closes the connection meanwhile."""
    try:
        for i in range(0, len(data), chunk):
            conn.sock.sendall(data[i:i + chunk])
    except (BrokenPipeError, ConnectionResetError):
        pass


def assert_other_clients_work(server):
    other = server.raw()
    assert other.command("PING") == "PONG"
    assert other.command("SET", "after-error", "ok") == "OK"
    assert other.command("GET", "after-error") == b"ok"
    other.close()


# --- RESP2 reply shapes ----------------------------------------------------------------

def test_resp2_reply_encodings(server):
    c = server.raw()
    c.send(resp_command("FLUSHDB"))
    assert c._line() == b"+OK"
    c.send(resp_command("GET", "nokey"))
    assert c._line() == b"$-1"
    c.send(resp_command("SET", "k", "hello"))
    assert c._line() == b"+OK"
    c.send(resp_command("GET", "k"))
    assert c._line() == b"$5"
    assert c._line() == b"hello"
    c.send(resp_command("EXISTS", "k"))
    assert c._line() == b":1"
    c.send(resp_command("MGET", "k", "nokey"))
    assert [c._line() for _ in range(4)] == [b"*2", b"$5", b"hello", b"$-1"]
    c.send(resp_command("KEYS", "nomatch*"))
    assert c._line() == b"*0"
    c.send(resp_command("ECHO", ""))
    assert c._line() == b"$0"
    assert c._line() == b""
    c.send(resp_command("GET"))
    assert c._line() == b"-ERR wrong number of arguments for 'get' command"
    assert c.buf == b""
    c.close()


# --- unknown commands and argument errors ----------------------------------------------

def test_unknown_command(server):
    c = server.raw()
    assert c.command("FOO", "a", "b") == \
        "ERR unknown command 'FOO', with args beginning with: 'a' 'b' "
    assert c.command("foo") == "ERR unknown command 'foo', with args beginning with: "
    assert c.command("") == "ERR unknown command '', with args beginning with: "
    assert c.command("PING") == "PONG"       # the connection stays open
    c.close()


def test_unknown_command_long_arguments_are_truncated(server):
    c = server.raw()
    reply = c.command("foo", "x" * 200, "y")
    assert reply == "ERR unknown command 'foo', with args beginning with: '" + "x" * 128 + "' "
    c.close()


def test_unknown_command_inline(server):
    c = server.raw()
    c.send(b"FOO a b\r\n")
    assert c.read_reply() == "ERR unknown command 'FOO', with args beginning with: 'a' 'b' "
    c.close()


@pytest.mark.parametrize("args,name", [
    (["GET"], "get"), (["GET", "a", "b"], "get"), (["SET", "a"], "set"),
    (["MGET"], "mget"), (["PING", "a", "b"], "ping"), (["EXPIRE", "k"], "expire"),
    (["SELECT"], "select"),
])
def test_wrong_arity(server, args, name):
    c = server.raw()
    assert c.command(*args) == f"ERR wrong number of arguments for '{name}' command"
    c.close()


def test_not_an_integer_and_overflow(server):
    c = server.raw()
    assert c.command("SET", "n", "9223372036854775807") == "OK"
    assert c.command("INCR", "n") == "ERR increment or decrement would overflow"
    assert c.command("INCRBY", "n", "x") == "ERR value is not an integer or out of range"
    assert c.command("EXPIRE", "n", "99999999999999999999") == \
        "ERR value is not an integer or out of range"
    c.close()


# --- protocol errors close the connection ----------------------------------------------

@pytest.mark.parametrize("data,message", [
    (b"*abc\r\n", "ERR Protocol error: invalid multibulk length"),
    (b"*2147483648\r\n", "ERR Protocol error: invalid multibulk length"),
    (b"*1\r\n$abc\r\n", "ERR Protocol error: invalid bulk length"),
    (b"*1\r\n$-1\r\n", "ERR Protocol error: invalid bulk length"),
    (b"*1\r\n$536870913\r\n", "ERR Protocol error: invalid bulk length"),   # > 512mb
    (b"*1\r\nfoo\r\n", "ERR Protocol error: expected '$', got 'f'"),
    (b"*2\r\n$3\r\nGET\r\n:1\r\n", "ERR Protocol error: expected '$', got ':'"),
    (b'SET a "b\r\n', "ERR Protocol error: unbalanced quotes in request"),
    (b"SET a 'b\r\n", "ERR Protocol error: unbalanced quotes in request"),
    (b'ECHO "a"b\r\n', "ERR Protocol error: unbalanced quotes in request"),
])
def test_protocol_errors(server, data, message):
    c = server.raw()
    assert c.command("PING") == "PONG"
    c.send(data)
    assert c.read_reply() == message
    assert c.closed_by_server()
    c.close()
    assert_other_clients_work(server)


def test_protocol_error_after_valid_commands_in_same_packet(server, r):
    c = server.raw()
    c.send(resp_command("SET", "before-error", "1") + b"*x\r\n" + resp_command("SET", "after", "1"))
    assert c.read_reply() == "OK"
    assert c.read_reply() == "ERR Protocol error: invalid multibulk length"
    assert c.closed_by_server()
    c.close()
    assert r.get("before-error") == "1"
    assert r.exists("after") == 0


def test_too_big_inline_request(server):
    c = server.raw()
    send_tolerant(c, b"x" * (70 * 1024))
    assert c.read_reply() == "ERR Protocol error: too big inline request"
    assert c.closed_by_server()
    c.close()
    assert_other_clients_work(server)


def test_bulk_larger_than_proto_max_bulk_len(start_server):
    srv = start_server()
    admin = srv.client()
    assert admin.config_set("proto-max-bulk-len", "1mb") is True
    assert admin.config_get("proto-max-bulk-len") == {"proto-max-bulk-len": "1048576"}
    c = srv.raw()
    c.send(b"*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$1048577\r\n")
    assert c.read_reply() == "ERR Protocol error: invalid bulk length"
    assert c.closed_by_server()
    c.close()
    # exactly the limit is accepted
    ok = srv.raw()
    assert ok.command("SET", "k", "x" * (1024 * 1024)) == "OK"
    assert admin.strlen("k") == 1024 * 1024
    ok.close()
    admin.close()


def test_proto_max_bulk_len_minimum(start_server):
    srv = start_server()
    admin = srv.client()
    assert error_reply(admin, "CONFIG", "SET", "proto-max-bulk-len", "1000") == (
        "ERR CONFIG SET failed (possibly related to argument 'proto-max-bulk-len') - "
        "argument must be between 1048576 and 9223372036854775807 inclusive")
    assert admin.config_get("proto-max-bulk-len") == {"proto-max-bulk-len": "536870912"}
    admin.close()


def test_query_buffer_limit(start_server):
    srv = start_server()
    admin = srv.client()
    assert error_reply(admin, "CONFIG", "SET", "client-query-buffer-limit", "1000") == (
        "ERR CONFIG SET failed (possibly related to argument 'client-query-buffer-limit') - "
        "argument must be between 1048576 and 9223372036854775807 inclusive")
    assert admin.config_set("client-query-buffer-limit", "1mb") is True
    c = srv.raw()
    # an argument of 3 MB announced, 2.5 MB sent: the query buffer passes the limit
    c.send(b"*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$3000000\r\n")
    send_tolerant(c, b"x" * 2500000)
    assert c.closed_by_server(timeout=5.0)
    c.close()
    assert admin.exists("k") == 0
    assert admin.ping() is True
    # below the limit still works
    small = srv.raw()
    assert small.command("SET", "k", "y" * 500000) == "OK"
    small.close()
    admin.close()


def test_maxclients(start_server):
    srv = start_server(args=["--maxclients", "2"])

    def connect_ok():
        """A connection that got a PONG, or None if the server refused it (retried, as the
        start-up probe connection of the fixture may not be reaped yet)."""
        c = srv.raw()
        try:
            if c.command("PING") == "PONG":
                return c
        except ConnectionError:
            pass
        c.close()
        return None

    first = wait_until(connect_ok, timeout=5.0)
    second = wait_until(connect_ok, timeout=5.0)
    assert first and second
    third = srv.raw()
    # the server refuses on accept, before any command is sent
    assert third.read_reply() == "ERR max number of clients reached"
    assert third.closed_by_server()
    third.close()
    assert first.command("PING") == "PONG"
    second.close()
    # a slot frees up once a client leaves
    again = wait_until(connect_ok, timeout=5.0)
    assert again
    again.close()
    first.close()


# --- inline commands -------------------------------------------------------------------

def test_inline_commands(server, r):
    c = server.raw()
    c.send(b"PING\r\n")
    assert c.read_reply() == "PONG"
    c.send(b"PING\n")                        # a bare LF ends an inline command too
    assert c.read_reply() == "PONG"
    c.send(b"  PING   \r\n")
    assert c.read_reply() == "PONG"
    c.send(b"\r\n\r\nPING\r\n")              # empty lines are ignored
    assert c.read_reply() == "PONG"
    c.send(b"SET inl \"hello world\"\r\n")
    assert c.read_reply() == "OK"
    c.send(b"GET inl\r\n")
    assert c.read_reply() == b"hello world"
    c.send(b"SET inl 'single quoted'\r\n")
    assert c.read_reply() == "OK"
    assert r.get("inl") == "single quoted"
    c.send(b'ECHO "\\x41\\tb\\n"\r\n')       # escapes inside double quotes
    assert c.read_reply() == b"A\tb\n"
    c.send(b"ECHO 'a\\nb'\r\n")              # but not inside single quotes
    assert c.read_reply() == b"a\\nb"
    c.send(b'ECHO ""\r\n')
    assert c.read_reply() == b""
    c.close()


def test_inline_and_multibulk_mixed(server):
    c = server.raw()
    c.send(b"PING\r\n" + resp_command("ECHO", "x") + b"ECHO y\r\n")
    assert c.read_reply() == "PONG"
    assert c.read_reply() == b"x"
    assert c.read_reply() == b"y"
    c.close()


def test_empty_and_negative_multibulk_are_ignored(server):
    c = server.raw()
    c.send(b"*0\r\n*-1\r\n" + resp_command("PING"))
    assert c.read_reply() == "PONG"
    assert c.buf == b""
    c.close()


def test_binary_arguments(server):
    c = server.raw()
    value = b"\x00\r\n$3\r\n*1\r\n\xff"
    assert c.command("SET", b"bin\x00key", value) == "OK"
    assert c.command("GET", b"bin\x00key") == value
    c.close()


# --- fragmentation and pipelining ------------------------------------------------------

def test_command_split_byte_by_byte(server):
    c = server.raw()
    c.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    data = resp_command("SET", "split", "hello\r\nworld") + resp_command("GET", "split")
    for i in range(len(data)):
        c.send(data[i:i + 1])
        time.sleep(0.001)
    assert c.read_reply() == "OK"
    assert c.read_reply() == b"hello\r\nworld"
    data = b"ECHO \"split inline\"\r\n"
    for i in range(len(data)):
        c.send(data[i:i + 1])
        time.sleep(0.001)
    assert c.read_reply() == b"split inline"
    c.close()


def test_pipeline_of_10000_commands(server, r):
    c = server.raw(timeout=30.0)
    n = 10000
    data = b"".join(resp_command("INCR", "pipelined") for _ in range(n))
    sender = threading.Thread(target=c.send, args=(data,))
    sender.start()
    replies = [c.read_reply() for _ in range(n)]
    sender.join()
    assert replies == list(range(1, n + 1))
    assert r.get("pipelined") == str(n)
    c.close()


def test_pipeline_mixed_commands_in_order(server):
    c = server.raw(timeout=30.0)
    data = []
    expected = []
    for i in range(3000):
        data.append(resp_command("SET", f"p{i}", f"v{i}"))
        expected.append("OK")
        data.append(resp_command("GET", f"p{i}"))
        expected.append(f"v{i}".encode())
        data.append(resp_command("GET", "no-such-key"))
        expected.append(None)
    data.append(resp_command("DBSIZE"))
    sender = threading.Thread(target=c.send, args=(b"".join(data),))
    sender.start()
    replies = [c.read_reply() for _ in range(len(expected))]
    dbsize = c.read_reply()
    sender.join()
    assert replies == expected
    assert dbsize >= 3000
    c.close()


@pytest.mark.parametrize("backend", ["io_uring", "epoll"])
def test_pipeline_longer_than_a_turn_runs_whole_while_others_are_served(start_server, backend):
    """One worker, one client pipelining ~2.7 MB of commands without reading: HotKV runs a
    connection's input in turns of 64 KB and stops reading it while over 1 MB of complete
    commands waits (epoll reads up to 1 MB at once). Every command must still run once, in
    order, and another client on the same worker is answered meanwhile."""
    srv = start_server(hotkv_args=["--io-backend", backend, "--threads", "1"])
    flood = srv.raw(timeout=60.0)
    other = srv.raw(timeout=60.0)
    n = 100_000
    data = b"".join(resp_command("INCR", "big") for _ in range(n))
    sender = threading.Thread(target=flood.send, args=(data,))
    sender.start()
    for i in range(1, 51):
        assert other.command("INCR", "other") == i
    replies = [flood.read_reply() for _ in range(n)]
    sender.join()
    assert replies == list(range(1, n + 1))
    assert other.command("GET", "big") == str(n).encode()
    assert flood.command("PING") == "PONG"
    flood.close()
    other.close()


@pytest.mark.parametrize("backend", ["io_uring", "epoll"])
def test_client_killed_while_its_pipeline_waits_for_its_turn(start_server, backend):
    """A connection whose input is run in turns is queued to resume; killing it meanwhile
    (CLIENT KILL from another client on the same worker) must leave no dangling entry:
    the server keeps serving, round after round."""
    srv = start_server(hotkv_args=["--io-backend", backend, "--threads", "1"])
    killer = srv.raw(timeout=30.0)
    data = b"".join(resp_command("INCR", "k") for _ in range(100_000))
    for _ in range(5):
        flood = srv.raw(timeout=30.0)
        flood_id = flood.command("CLIENT", "ID")
        sender = threading.Thread(target=send_tolerant, args=(flood, data))
        sender.start()
        wait_until(lambda: int(killer.command("GET", "k") or 0) > 0, timeout=10)
        assert killer.command("CLIENT", "KILL", "ID", str(flood_id)) in (0, 1)
        sender.join()
        flood.close()
        assert killer.command("PING") == "PONG"
    done = int(killer.command("GET", "k"))
    assert 0 < done <= 5 * 100_000
    assert killer.command("SET", "after", "ok") == "OK"
    killer.close()


# --- RESP3 -----------------------------------------------------------------------------

@pytest.fixture
def resp3(server, r):
    c = server.raw()
    hello = c.command("HELLO", "3")
    assert isinstance(hello, tuple) and hello[0] == "map"
    yield c
    c.close()


def test_resp3_null(resp3):
    resp3.send(resp_command("GET", "nokey"))
    assert resp3._line() == b"_"
    assert resp3.command("MGET", "nokey", "nokey2") == [None, None]
    assert resp3.command("CLIENT", "GETNAME") is None
    resp3.send(resp_command("SET", "k", "v", "GET"))
    assert resp3._line() == b"_"


def test_resp3_simple_types_unchanged(resp3):
    assert resp3.command("SET", "k", "v") == "OK"
    assert resp3.command("GET", "k") == b"v"
    assert resp3.command("EXISTS", "k") == 1
    assert resp3.command("PING") == "PONG"
    assert resp3.command("KEYS", "*") == [b"k"]
    assert resp3.command("GET") == "ERR wrong number of arguments for 'get' command"


def test_resp3_incrbyfloat_stays_a_bulk_string(resp3):
    resp3.send(resp_command("INCRBYFLOAT", "f", "1.5"))
    assert resp3._line() == b"$3"
    assert resp3._line() == b"1.5"


def test_resp3_config_get_is_a_map(resp3, server):
    assert resp3.command("CONFIG", "GET", "port") == ("map", [(b"port", str(server.port).encode())])
    kind, pairs = resp3.command("CONFIG", "GET", "port", "databases")
    assert kind == "map"
    assert dict(pairs) == {b"port": str(server.port).encode(), b"databases": b"16"}
    assert resp3.command("CONFIG", "GET", "no-such-param*") == ("map", [])


def test_resp3_hello_map(resp3):
    kind, pairs = resp3.command("HELLO")
    assert kind == "map"
    fields = dict(pairs)
    assert fields[b"proto"] == 3
    assert fields[b"modules"] == []
    assert fields[b"mode"] == b"standalone"
    assert fields[b"role"] == b"master"


def test_resp3_lcs_idx_is_a_map(resp3):
    resp3.command("MSET", "key1", "ohmytext", "key2", "mynewtext")
    assert resp3.command("LCS", "key1", "key2", "IDX") == \
        ("map", [(b"matches", [[[4, 7], [5, 8]], [[2, 3], [0, 1]]]), (b"len", 6)])


def test_resp3_info_is_verbatim(resp3):
    kind, payload = resp3.command("INFO", "server")
    assert kind == "verbatim"
    assert payload.startswith(b"txt:# Server\r\n")
    kind, payload = resp3.command("CLIENT", "INFO")
    assert kind == "verbatim"
    assert payload.startswith(b"txt:id=")


def test_resp3_scan_and_time_arrays(resp3):
    resp3.command("SET", "k", "v")
    assert resp3.command("SCAN", "0", "COUNT", "100") == [b"0", [b"k"]]
    secs, micros = resp3.command("TIME")
    assert secs.isdigit() and micros.isdigit()


def test_resp3_command_info_flags_are_sets(resp3):
    (info,) = resp3.command("COMMAND", "INFO", "get")
    assert info[0] == b"get"
    assert info[1] == 2
    assert info[2] == ("set", ["readonly", "fast"])


def test_back_to_resp2(resp3):
    reply = resp3.command("HELLO", "2")
    assert isinstance(reply, list)
    resp3.send(resp_command("GET", "nokey"))
    assert resp3._line() == b"$-1"
    assert resp3.command("CONFIG", "GET", "databases") == [b"databases", b"16"]
