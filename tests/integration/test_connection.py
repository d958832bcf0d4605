"""Connection commands: PING ECHO QUIT RESET HELLO AUTH SELECT and the CLIENT family."""

import pytest
import redis

from conftest import cmd, error_reply, parse_client_line, wait_until

WRONGPASS = "WRONGPASS invalid username-password pair or user is disabled."
NOAUTH = "NOAUTH Authentication required."
BAD_NAME = "ERR Client names cannot contain spaces, newlines or special characters."


def hello_fields(reply):
    """HELLO's reply (RESP2 flat array or RESP3 map from RawConnection) -> dict."""
    if isinstance(reply, tuple) and reply[0] == "map":
        pairs = reply[1]
    else:
        assert isinstance(reply, list) and len(reply) % 2 == 0, reply
        pairs = list(zip(reply[0::2], reply[1::2]))
    return {(k.decode() if isinstance(k, bytes) else k): v for k, v in pairs}


# --- PING / ECHO / QUIT / RESET --------------------------------------------------------

def test_ping(server):
    c = server.raw()
    assert c.command("PING") == "PONG"
    c.send_command("PING", "hello world")
    assert c.read_reply() == b"hello world"
    assert c.command("PING", "") == b""
    assert c.command("PING", "a", "b") == "ERR wrong number of arguments for 'ping' command"
    c.close()


def test_echo(server):
    c = server.raw()
    assert c.command("ECHO", "hi\r\nthere\x00") == b"hi\r\nthere\x00"
    assert c.command("ECHO", "") == b""
    assert c.command("ECHO") == "ERR wrong number of arguments for 'echo' command"
    assert c.command("ECHO", "a", "b") == "ERR wrong number of arguments for 'echo' command"
    c.close()


def test_quit_replies_ok_and_closes(server):
    c = server.raw()
    assert c.command("QUIT") == "OK"
    assert c.closed_by_server()
    c.close()


def test_commands_after_quit_in_same_packet_are_not_run(server, r):
    c = server.raw()
    c.send(b"*1\r\n$4\r\nQUIT\r\n*3\r\n$3\r\nSET\r\n$9\r\nafterquit\r\n$1\r\n1\r\n")
    assert c.read_reply() == "OK"
    assert c.closed_by_server()
    c.close()
    assert r.exists("afterquit") == 0


def test_reset(server, r):
    r.set("k", "db0")
    c = server.raw()
    assert c.command("SELECT", "2") == "OK"
    assert c.command("CLIENT", "SETNAME", "before-reset") == "OK"
    assert isinstance(c.command("HELLO", "3"), tuple)
    assert c.command("RESET") == "RESET"
    assert c.command("CLIENT", "GETNAME") is None
    assert c.command("GET", "k") == b"db0"                   # back in db 0
    fields = hello_fields(c.command("HELLO"))               # RESP2 again: a flat array
    assert fields["proto"] == 2
    info = parse_client_line(c.command("CLIENT", "INFO").decode())
    assert info["db"] == "0"
    assert info["name"] == ""
    assert info["resp"] == "2"
    c.close()


def test_reset_keeps_connection_id(server):
    c = server.raw()
    before = c.command("CLIENT", "ID")
    assert c.command("RESET") == "RESET"
    assert c.command("CLIENT", "ID") == before
    c.close()


# --- HELLO -----------------------------------------------------------------------------

def test_hello_default_is_resp2(server):
    c = server.raw()
    reply = c.command("HELLO")
    assert isinstance(reply, list)
    fields = hello_fields(reply)
    assert list(fields) == ["server", "version", "proto", "id", "mode", "role", "modules"]
    assert fields["proto"] == 2
    assert fields["id"] == c.command("CLIENT", "ID")
    assert fields["mode"] == b"standalone"
    assert fields["role"] == b"master"
    assert isinstance(fields["modules"], list)
    assert fields["server"]
    assert all(part.isdigit() for part in fields["version"].decode().split("."))
    c.close()


def test_hello_3_replies_with_a_map(server):
    c = server.raw()
    reply = c.command("HELLO", "3")
    assert isinstance(reply, tuple) and reply[0] == "map"
    fields = hello_fields(reply)
    assert set(fields) == {"server", "version", "proto", "id", "mode", "role", "modules"}
    assert fields["proto"] == 3
    assert fields["mode"] == b"standalone"
    assert fields["role"] == b"master"
    info = parse_client_line(c.command("CLIENT", "INFO")[1].decode())
    assert info["resp"] == "3"
    # and back
    assert hello_fields(c.command("HELLO", "2"))["proto"] == 2
    assert isinstance(c.command("HELLO"), list)
    c.close()


def test_hello_invalid_protocol(server):
    c = server.raw()
    assert c.command("HELLO", "4") == "NOPROTO unsupported protocol version"
    assert c.command("HELLO", "1") == "NOPROTO unsupported protocol version"
    assert c.command("HELLO", "abc") == "ERR Protocol version is not an integer or out of range"
    # the connection is still RESP2
    assert isinstance(c.command("HELLO"), list)
    c.close()


def test_hello_setname(server):
    c = server.raw()
    fields = hello_fields(c.command("HELLO", "3", "SETNAME", "myname"))
    assert fields["proto"] == 3
    assert c.command("CLIENT", "GETNAME") == b"myname"
    c.close()


def test_hello_setname_invalid_leaves_protocol(server):
    c = server.raw()
    assert c.command("HELLO", "3", "SETNAME", "my name") == BAD_NAME
    assert isinstance(c.command("HELLO"), list)          # still RESP2
    assert c.command("CLIENT", "GETNAME") is None
    c.close()


def test_hello_syntax_error(server):
    c = server.raw()
    assert c.command("HELLO", "3", "FOO") == "ERR Syntax error in HELLO option 'FOO'"
    assert c.command("HELLO", "3", "AUTH", "default") == "ERR Syntax error in HELLO option 'AUTH'"
    c.close()


def test_hello_auth(start_server):
    srv = start_server(args=["--requirepass", "pw"])
    c = srv.raw()
    assert c.command("HELLO", "3").startswith(
        "NOAUTH HELLO must be called with the client already authenticated, otherwise the ")
    assert c.command("HELLO", "3", "AUTH", "default", "wrong") == WRONGPASS
    assert c.command("GET", "k") == NOAUTH
    fields = hello_fields(c.command("HELLO", "3", "AUTH", "default", "pw", "SETNAME", "n1"))
    assert fields["proto"] == 3
    assert c.command("GET", "k") is None
    assert c.command("CLIENT", "GETNAME") == b"n1"
    c.close()


@pytest.mark.redis8
def test_hello_noauth_message(start_server):
    # Redis 7.0 says "the HELLO AUTH <user> <pass> option"; current Redis names <proto>.
    srv = start_server(args=["--requirepass", "pw"])
    c = srv.raw()
    assert c.command("HELLO", "3") == (
        "NOAUTH HELLO must be called with the client already authenticated, otherwise the "
        "HELLO <proto> AUTH <user> <pass> option can be used to authenticate the client and "
        "select the RESP protocol version at the same time")
    c.close()


# --- AUTH ------------------------------------------------------------------------------

def test_auth_required(start_server):
    srv = start_server(args=["--requirepass", "secret"])
    c = srv.raw()
    assert c.command("GET", "k") == NOAUTH
    assert c.command("SET", "k", "v") == NOAUTH
    assert c.command("PING") == NOAUTH
    assert c.command("AUTH", "wrong") == WRONGPASS
    assert c.command("AUTH", "default", "wrong") == WRONGPASS
    assert c.command("AUTH", "nosuchuser", "secret") == WRONGPASS
    assert c.command("GET", "k") == NOAUTH
    assert c.command("AUTH", "secret") == "OK"
    assert c.command("SET", "k", "v") == "OK"
    assert c.command("GET", "k") == b"v"
    c.close()
    c = srv.raw()
    assert c.command("AUTH", "default", "secret") == "OK"
    assert c.command("GET", "k") == b"v"
    assert c.command("AUTH", "a", "b", "c") == "ERR syntax error"
    c.close()


@pytest.mark.parametrize("data,message", [
    (b"*20\r\n", "ERR Protocol error: unauthenticated multibulk length"),
    (b"*1\r\n$20000\r\n", "ERR Protocol error: unauthenticated bulk length"),
])
def test_unauthenticated_clients_get_small_limits(start_server, data, message):
    srv = start_server(args=["--requirepass", "secret"])
    c = srv.raw()
    c.send(data)
    assert c.read_reply() == message
    assert c.closed_by_server()
    c.close()
    ok = srv.raw()
    assert ok.command("AUTH", "secret") == "OK"
    assert ok.command("MSET", *[f"k{i}" for i in range(20)]) == "OK"   # fine once authenticated
    ok.close()


def test_quit_allowed_before_auth(start_server):
    srv = start_server(args=["--requirepass", "secret"])
    c = srv.raw()
    assert c.command("QUIT") == "OK"
    assert c.closed_by_server()
    c.close()


def test_auth_without_password_configured(r):
    assert error_reply(r, "AUTH", "foo") == (
        "ERR AUTH <password> called without any password configured for the default user. "
        "Are you sure your configuration is correct?")
    # the default user has no password: any password is accepted with a username
    assert cmd(r, "AUTH", "default", "anything") == "OK"


def test_auth_via_redis_py(start_server):
    srv = start_server(args=["--requirepass", "pw"])
    good = srv.client()
    assert good.ping() is True
    bad = redis.Redis(host="127.0.0.1", port=srv.port, password="nope")
    with pytest.raises((redis.AuthenticationError, redis.ResponseError)) as e:
        bad.ping()
    assert "invalid username-password pair" in str(e.value)
    good.close()


def test_requirepass_set_at_runtime(start_server):
    srv = start_server()
    c = srv.client()
    assert c.config_set("requirepass", "newpw") is True
    other = srv.raw()
    assert other.command("GET", "x") == NOAUTH
    assert other.command("AUTH", "newpw") == "OK"
    other.close()
    assert c.ping() is True      # already authenticated connections stay usable
    c.close()


# --- SELECT on two connections ---------------------------------------------------------

def test_two_connections_two_databases(server, r):
    a, b = server.raw(), server.raw()
    assert a.command("SELECT", "5") == "OK"
    assert b.command("SELECT", "6") == "OK"
    assert a.command("SET", "shared", "five") == "OK"
    assert b.command("GET", "shared") is None
    assert b.command("SET", "shared", "six") == "OK"
    assert a.command("GET", "shared") == b"five"
    assert a.command("DBSIZE") == 1
    assert b.command("DBSIZE") == 1
    assert r.exists("shared") == 0
    a.close()
    b.close()


# --- CLIENT ID / SETNAME / GETNAME -----------------------------------------------------

def test_client_id_unique_and_increasing(server):
    # b connects after a has been served: with several worker threads, two connections
    # opened back to back may be accepted in either order.
    a = server.raw()
    ida = a.command("CLIENT", "ID")
    b = server.raw()
    idb = b.command("CLIENT", "ID")
    assert isinstance(ida, int) and isinstance(idb, int)
    assert 0 < ida < idb
    assert a.command("CLIENT", "ID") == ida
    a.close()
    b.close()


def test_client_setname_getname(server):
    c = server.raw()
    assert c.command("CLIENT", "GETNAME") is None
    assert c.command("CLIENT", "SETNAME", "worker-1") == "OK"
    assert c.command("CLIENT", "GETNAME") == b"worker-1"
    assert c.command("CLIENT", "SETNAME", "") == "OK"          # clears it
    assert c.command("CLIENT", "GETNAME") is None
    c.close()


@pytest.mark.parametrize("name", ["a b", "a\nb", "a\rb", "\x01", "caf\xe9"])
def test_client_setname_rejects_special_characters(server, name):
    c = server.raw()
    assert c.command("CLIENT", "SETNAME", "good") == "OK"
    assert c.command("CLIENT", "SETNAME", name) == BAD_NAME
    assert c.command("CLIENT", "GETNAME") == b"good"
    c.close()


def test_client_arity_and_unknown_subcommand(r):
    assert error_reply(r, "CLIENT", "SETNAME") == \
        "ERR wrong number of arguments for 'client|setname' command"
    assert error_reply(r, "CLIENT", "GETNAME", "x") == \
        "ERR wrong number of arguments for 'client|getname' command"
    assert error_reply(r, "CLIENT", "FOO") == "ERR unknown subcommand 'FOO'. Try CLIENT HELP."
    assert error_reply(r, "CLIENT") == "ERR wrong number of arguments for 'client' command"


def test_client_help(r):
    lines = cmd(r, "CLIENT", "HELP")
    assert lines[0].startswith("CLIENT <subcommand>")
    text = "\n".join(lines)
    for sub in ("ID", "INFO", "KILL", "LIST", "GETNAME", "SETNAME", "REPLY", "NO-EVICT"):
        assert sub in text


# --- CLIENT LIST / INFO ----------------------------------------------------------------

CLIENT_FIELDS = ["id", "addr", "laddr", "fd", "name", "age", "idle", "flags", "db", "sub",
                 "psub", "ssub", "multi", "qbuf", "qbuf-free", "argv-mem", "multi-mem", "obl",
                 "oll", "omem", "tot-mem", "events", "cmd", "user", "redir", "resp"]


def test_client_info_fields(server):
    c = server.raw()
    assert c.command("SELECT", "3") == "OK"
    assert c.command("CLIENT", "SETNAME", "info-test") == "OK"
    line = c.command("CLIENT", "INFO").decode()
    assert line.endswith("\n") and line.count("\n") == 1
    info = parse_client_line(line)
    for field in CLIENT_FIELDS:
        assert field in info, field
    assert int(info["id"]) == c.command("CLIENT", "ID")
    local = c.sock.getsockname()
    assert info["addr"] == f"{local[0]}:{local[1]}"
    assert info["laddr"] == f"127.0.0.1:{server.port}"
    assert info["name"] == "info-test"
    assert info["db"] == "3"
    assert info["flags"] == "N"
    assert info["cmd"] == "client|info"
    assert info["user"] == "default"
    assert info["resp"] == "2"
    assert info["multi"] == "-1"
    assert info["sub"] == "0" and info["psub"] == "0"
    assert int(info["age"]) >= 0 and int(info["idle"]) >= 0 and int(info["fd"]) >= 0
    c.close()


@pytest.mark.redis8
def test_client_info_newer_fields(server):
    c = server.raw()
    info = parse_client_line(c.command("CLIENT", "INFO").decode())
    for field in ("lib-name", "lib-ver", "watch", "io-thread"):
        assert field in info, field
    assert info["watch"] == "0"
    c.close()


def test_client_list(server):
    a, b = server.raw(), server.raw()
    assert a.command("CLIENT", "SETNAME", "list-a") == "OK"
    ida, idb = a.command("CLIENT", "ID"), b.command("CLIENT", "ID")
    text = b.command("CLIENT", "LIST").decode()
    assert text.endswith("\n")
    entries = {int(f["id"]): f for f in map(parse_client_line, text.splitlines())}
    assert ida in entries and idb in entries
    assert entries[ida]["name"] == "list-a"
    assert entries[idb]["cmd"] == "client|list"
    for field in CLIENT_FIELDS:
        assert field in entries[ida]
    a.close()
    b.close()


def test_client_list_filters(server):
    a, b = server.raw(), server.raw()
    ida, idb = a.command("CLIENT", "ID"), b.command("CLIENT", "ID")
    lines = a.command("CLIENT", "LIST", "ID", ida, idb).decode().splitlines()
    assert sorted(int(parse_client_line(l)["id"]) for l in lines) == sorted([ida, idb])
    lines = a.command("CLIENT", "LIST", "ID", idb).decode().splitlines()
    assert [int(parse_client_line(l)["id"]) for l in lines] == [idb]
    assert a.command("CLIENT", "LIST", "ID", 99999999) == b""
    normal = a.command("CLIENT", "LIST", "TYPE", "normal").decode().splitlines()
    assert {ida, idb} <= {int(parse_client_line(l)["id"]) for l in normal}
    assert a.command("CLIENT", "LIST", "TYPE", "pubsub") == b""
    assert a.command("CLIENT", "LIST", "TYPE", "replica") == b""
    assert a.command("CLIENT", "LIST", "TYPE", "foo") == "ERR Unknown client type 'foo'"
    assert a.command("CLIENT", "LIST", "ID", "abc") == "ERR Invalid client ID"
    assert a.command("CLIENT", "LIST", "FOO") == "ERR syntax error"
    a.close()
    b.close()


# --- CLIENT KILL -----------------------------------------------------------------------

def test_client_kill_by_id(start_server):
    srv = start_server()
    killer, victim = srv.raw(), srv.raw()
    vid = victim.command("CLIENT", "ID")
    assert killer.command("CLIENT", "KILL", "ID", vid) == 1
    assert victim.closed_by_server()
    assert wait_until(lambda: killer.command("CLIENT", "LIST", "ID", vid) == b"")
    assert killer.command("CLIENT", "KILL", "ID", vid) == 0
    assert killer.command("CLIENT", "KILL", "ID", 99999999) == 0
    assert killer.command("CLIENT", "KILL", "ID", "abc") == "ERR client-id should be greater than 0"
    assert killer.command("PING") == "PONG"
    killer.close()
    victim.close()


def test_client_kill_old_form_by_address(start_server):
    srv = start_server()
    killer, victim = srv.raw(), srv.raw()
    wait_for_clients(killer, 2)   # a connect is visible once the server has accepted it
    local = victim.sock.getsockname()
    addr = f"{local[0]}:{local[1]}"
    assert killer.command("CLIENT", "KILL", addr) == "OK"
    assert victim.closed_by_server()
    assert killer.command("CLIENT", "KILL", addr) == "ERR No such client"
    assert killer.command("CLIENT", "KILL", "1.2.3.4:5") == "ERR No such client"
    killer.close()
    victim.close()


def wait_for_clients(conn, count):
    """Waits (asking on `conn`) until the server lists exactly `count` clients: the
    fixture's start-up probe connection may take a moment to be reaped."""
    assert wait_until(lambda: len(conn.command("CLIENT", "LIST").splitlines()) == count)


def test_client_kill_by_addr_and_laddr(start_server):
    srv = start_server()
    killer, v1, v2 = srv.raw(), srv.raw(), srv.raw()
    wait_for_clients(killer, 3)
    local = v1.sock.getsockname()
    assert killer.command("CLIENT", "KILL", "ADDR", f"{local[0]}:{local[1]}") == 1
    assert v1.closed_by_server()
    assert killer.command("CLIENT", "KILL", "ADDR", "1.2.3.4:5") == 0
    # LADDR matches every client of this listening address; SKIPME (default yes) spares us
    assert killer.command("CLIENT", "KILL", "LADDR", f"127.0.0.1:{srv.port}") == 1
    assert v2.closed_by_server()
    assert killer.command("PING") == "PONG"
    for c in (killer, v1, v2):
        c.close()


def test_client_kill_by_user_and_skipme(start_server):
    srv = start_server()
    killer, victim = srv.raw(), srv.raw()
    wait_for_clients(killer, 2)
    assert killer.command("CLIENT", "KILL", "USER", "default") == 1
    assert victim.closed_by_server()
    assert killer.command("CLIENT", "KILL", "USER", "nobody") == "ERR No such user 'nobody'"
    # SKIPME no includes the caller: it still gets its reply, then is closed
    kid = killer.command("CLIENT", "ID")
    assert killer.command("CLIENT", "KILL", "ID", kid, "SKIPME", "no") == 1
    assert killer.closed_by_server()
    killer.close()
    victim.close()


def test_client_kill_skipme_yes_on_self(start_server):
    srv = start_server()
    c = srv.raw()
    cid = c.command("CLIENT", "ID")
    assert c.command("CLIENT", "KILL", "ID", cid, "SKIPME", "yes") == 0
    assert c.command("PING") == "PONG"
    c.close()


def test_client_kill_and_list_by_type(start_server):
    srv = start_server()
    killer, victim = srv.raw(), srv.raw()
    wait_for_clients(killer, 2)
    # There are no replication links, so no client is of the replication types. Redis 8.8
    # knows no "primary" type (checked against redis-server 8.8).
    for t in ("master", "replica", "slave", "MASTER"):
        assert killer.command("CLIENT", "KILL", "TYPE", t) == 0
        assert killer.command("CLIENT", "LIST", "TYPE", t) == b""
    for t in ("primary", "PRIMARY"):
        assert killer.command("CLIENT", "KILL", "TYPE", t) == f"ERR Unknown client type '{t}'"
        assert killer.command("CLIENT", "LIST", "TYPE", t) == f"ERR Unknown client type '{t}'"
    assert killer.command("CLIENT", "KILL", "TYPE", "pubsub") == 0
    assert killer.command("CLIENT", "KILL", "TYPE", "boss") == "ERR Unknown client type 'boss'"
    assert killer.command("CLIENT", "KILL", "TYPE", "normal") == 1   # SKIPME spares the caller
    assert victim.closed_by_server()
    assert killer.command("PING") == "PONG"
    killer.close()
    victim.close()


@pytest.mark.parametrize("args", [["FOO", "bar"], ["SKIPME", "maybe"], ["ID", "1", "FOO", "x"],
                                  ["ADDR", "1.2.3.4:5", "SKIPME", "maybe"]])
def test_client_kill_syntax_errors(r, args):
    assert error_reply(r, "CLIENT", "KILL", *args) == "ERR syntax error"


# --- CLIENT REPLY / NO-EVICT / NO-TOUCH / SETINFO --------------------------------------

def test_client_reply_off_and_on(server, r):
    c = server.raw()
    c.send_command("CLIENT", "REPLY", "OFF")
    c.send_command("SET", "reply-off", "1")
    c.send_command("GET", "reply-off")
    c.send_command("CLIENT", "REPLY", "ON")
    assert c.read_reply() == "OK"       # the first reply seen is the one to REPLY ON
    assert c.command("GET", "reply-off") == b"1"
    c.close()
    assert r.get("reply-off") == "1"


def test_client_reply_skip(server):
    c = server.raw()
    c.send_command("CLIENT", "REPLY", "SKIP")
    c.send_command("SET", "reply-skip", "1")
    c.send_command("GET", "reply-skip")
    assert c.read_reply() == b"1"
    assert c.command("PING") == "PONG"
    c.close()


def test_client_reply_errors_are_silenced_too(server):
    c = server.raw()
    c.send_command("CLIENT", "REPLY", "OFF")
    c.send_command("GET")                    # arity error, not replied
    c.send_command("CLIENT", "REPLY", "ON")
    assert c.read_reply() == "OK"
    c.close()


def test_client_reply_invalid(r):
    assert error_reply(r, "CLIENT", "REPLY", "MAYBE") == "ERR syntax error"


def test_client_no_evict(server):
    c = server.raw()
    assert c.command("CLIENT", "NO-EVICT", "ON") == "OK"
    assert "e" in parse_client_line(c.command("CLIENT", "INFO").decode())["flags"]
    assert c.command("CLIENT", "NO-EVICT", "OFF") == "OK"
    assert "e" not in parse_client_line(c.command("CLIENT", "INFO").decode())["flags"]
    assert c.command("CLIENT", "NO-EVICT", "MAYBE") == "ERR syntax error"
    c.close()


@pytest.mark.redis8
def test_client_no_touch(server):
    c = server.raw()
    assert c.command("CLIENT", "NO-TOUCH", "ON") == "OK"
    assert "T" in parse_client_line(c.command("CLIENT", "INFO").decode())["flags"]
    assert c.command("CLIENT", "NO-TOUCH", "OFF") == "OK"
    assert "T" not in parse_client_line(c.command("CLIENT", "INFO").decode())["flags"]
    assert c.command("CLIENT", "NO-TOUCH", "MAYBE") == "ERR syntax error"
    c.close()


@pytest.mark.redis8
def test_client_setinfo(server):
    c = server.raw()
    assert c.command("CLIENT", "SETINFO", "LIB-NAME", "mylib") == "OK"
    assert c.command("CLIENT", "SETINFO", "LIB-VER", "1.2.3") == "OK"
    info = parse_client_line(c.command("CLIENT", "INFO").decode())
    assert info["lib-name"] == "mylib"
    assert info["lib-ver"] == "1.2.3"
    assert c.command("CLIENT", "SETINFO", "lib-name", "my lib") == \
        "ERR lib-name cannot contain spaces, newlines or special characters."
    # Redis 7.2+ answers "ERR Unrecognized option 'FOO'" (not verified against a 7.2+ server)
    reply = c.command("CLIENT", "SETINFO", "FOO", "x")
    assert reply.startswith("ERR ") and "'FOO'" in reply
    assert parse_client_line(c.command("CLIENT", "INFO").decode())["lib-name"] == "mylib"
    c.close()


def test_connections_come_and_go_in_client_list(server):
    c = server.client()
    extra = [server.raw() for _ in range(3)]
    ids = {e.command("CLIENT", "ID") for e in extra}

    def listed_ids():
        return {int(entry["id"]) for entry in c.client_list()}

    assert ids <= listed_ids()
    assert c.info("clients")["connected_clients"] >= 4
    for e in extra:
        e.close()
    assert wait_until(lambda: not (ids & listed_ids()))
    c.close()
