"""CLIENT LIST / CLIENT INFO fields and filters, CLIENT KILL filters, CLIENT NO-TOUCH and
NO-EVICT, as Redis 8.8 has them (every case was run against redis-server 8.8 by hand)."""
import socket
import time

import pytest

from conftest import RawConnection, cmd, error_reply, parse_client_line, wait_until

# Every field of a CLIENT LIST line, in Redis 8.8's order.
REDIS8_FIELDS = [
    "id", "addr", "laddr", "fd", "name", "age", "idle", "flags", "db", "sub", "psub", "ssub",
    "multi", "watch", "qbuf", "qbuf-free", "argv-mem", "multi-mem", "rbs", "rbp", "obl", "oll",
    "omem", "omem-shared", "omem-unshared", "tot-mem", "events", "cmd", "user", "redir",
    "resp", "lib-name", "lib-ver", "io-thread", "tot-net-in", "tot-net-out", "tot-cmds",
    "read-events", "avg-pipeline-len-sum", "avg-pipeline-len-cnt"]


class CountingConnection(RawConnection):
    """A raw connection that counts the bytes it sends and receives."""

    def __init__(self, sock):
        super().__init__(sock)
        self.sent = 0
        self.received = 0

    def send(self, data):
        if isinstance(data, str):
            data = data.encode()
        self.sent += len(data)
        super().send(data)

    def _fill(self):
        chunk = self.sock.recv(65536)
        if not chunk:
            raise ConnectionError("connection closed by server")
        self.received += len(chunk)
        self.buf += chunk


def counting(server):
    return CountingConnection(socket.create_connection(("127.0.0.1", server.port), timeout=5))


def own_info(conn):
    return parse_client_line(conn.command("CLIENT", "INFO").decode())


def info_of(observer, client_id):
    """The CLIENT LIST line of `client_id`, as seen by another connection."""
    text = observer.command("CLIENT", "LIST", "ID", client_id).decode()
    assert text.count("\n") == 1, text
    return parse_client_line(text)


def field_names(line):
    return [item.partition("=")[0] for item in line.strip().split(" ")]


# --- fields ------------------------------------------------------------------------------

@pytest.mark.redis8
def test_client_info_and_list_print_redis8_fields_in_order(server):
    c = server.raw()
    assert field_names(c.command("CLIENT", "INFO").decode()) == REDIS8_FIELDS
    for line in c.command("CLIENT", "LIST").decode().splitlines():
        assert field_names(line) == REDIS8_FIELDS
    c.close()


@pytest.mark.redis8
def test_long_client_name_is_printed_whole(server):
    c = server.raw()
    name = "n" * 3000
    assert c.command("CLIENT", "SETNAME", name) == "OK"
    info = own_info(c)
    assert info["name"] == name
    assert "tot-net-in" in info
    c.close()


@pytest.mark.redis8
def test_traffic_totals_count_every_byte_and_command(server):
    c = counting(server)
    # The first command: its own bytes are in, nothing out yet, no command run before it.
    info = own_info(c)
    assert int(info["tot-net-in"]) == len(b"*2\r\n$6\r\nCLIENT\r\n$4\r\nINFO\r\n")
    assert info["tot-net-out"] == "0"
    assert info["tot-cmds"] == "0"
    assert info["read-events"] == "1"
    assert (info["avg-pipeline-len-sum"], info["avg-pipeline-len-cnt"]) == ("1", "1")
    for args in (("SET", "k", "v"), ("GET", "k"), ("INCR", "k"), ("PING",)):
        c.command(*args)  # INCR fails in the command: it counts as a command run
    received = c.received
    info = own_info(c)
    assert int(info["tot-net-in"]) == c.sent
    assert int(info["tot-net-out"]) == received
    assert info["tot-cmds"] == "5"
    assert info["read-events"] == "6"
    c.close()


@pytest.mark.redis8
def test_rejected_commands_are_not_counted(server):
    c, observer = server.raw(), server.raw()
    cid = c.command("CLIENT", "ID")
    start = int(info_of(observer, cid)["tot-cmds"])
    assert c.command("NOSUCHCOMMAND").startswith("ERR unknown command")
    assert c.command("GET").startswith("ERR wrong number of arguments")
    assert c.command("CLIENT", "NOSUCH").startswith("ERR unknown subcommand")
    # MULTI, then two queued commands (not run yet), then EXEC which runs both.
    assert c.command("MULTI") == "OK"
    assert c.command("SET", "a", "1") == "QUEUED"
    assert c.command("GET", "a") == "QUEUED"
    assert int(info_of(observer, cid)["tot-cmds"]) - start == 1  # MULTI
    assert c.command("EXEC") == ["OK", b"1"]
    assert int(info_of(observer, cid)["tot-cmds"]) - start == 4  # and EXEC, SET, GET
    assert c.command("MULTI") == "OK"
    assert c.command("NOSUCHCOMMAND").startswith("ERR unknown command")
    assert c.command("EXEC").startswith("EXECABORT")  # an EXEC that fails still ran
    assert int(info_of(observer, cid)["tot-cmds"]) - start == 6
    c.close()
    observer.close()


@pytest.mark.redis8
def test_pipeline_figures_group_a_reads_commands_by_16(server):
    c = counting(server)
    before = own_info(c)
    # 100 PINGs and CLIENT INFO in one write: one read of 101 commands, 7 groups of 16.
    c.send(b"*1\r\n$4\r\nPING\r\n" * 100 + b"*2\r\n$6\r\nCLIENT\r\n$4\r\nINFO\r\n")
    for _ in range(100):
        assert c.read_reply() == "PONG"
    after = parse_client_line(c.read_reply().decode())
    assert int(after["read-events"]) - int(before["read-events"]) == 1
    assert int(after["avg-pipeline-len-sum"]) - int(before["avg-pipeline-len-sum"]) == 101
    assert int(after["avg-pipeline-len-cnt"]) - int(before["avg-pipeline-len-cnt"]) == 7
    assert int(after["tot-cmds"]) - int(before["tot-cmds"]) == 101
    c.close()


@pytest.mark.redis8
def test_a_command_split_over_two_reads(server):
    c = counting(server)
    before = own_info(c)
    c.send(b"*1\r\n$4\r\nPI")
    time.sleep(0.2)
    c.send(b"NG\r\n")
    assert c.read_reply() == "PONG"
    after = own_info(c)
    assert int(after["read-events"]) - int(before["read-events"]) == 3
    assert int(after["avg-pipeline-len-sum"]) - int(before["avg-pipeline-len-sum"]) == 2
    assert int(after["avg-pipeline-len-cnt"]) - int(before["avg-pipeline-len-cnt"]) == 2
    c.close()


def test_argv_mem_of_the_running_and_the_blocked_command(server):
    c, observer = server.raw(), server.raw()
    info = own_info(c)
    assert info["argv-mem"] == "10"  # "CLIENT" + "INFO"
    assert info["qbuf"] == str(len(b"*2\r\n$6\r\nCLIENT\r\n$4\r\nINFO\r\n"))
    cid = c.command("CLIENT", "ID")
    assert info_of(observer, cid)["argv-mem"] == "0"  # nothing held between commands
    c.send_command("BLPOP", "argv-mem-list", "0")
    assert wait_until(lambda: info_of(observer, cid)["flags"] == "b")
    blocked = info_of(observer, cid)
    assert blocked["argv-mem"] == str(len("BLPOP") + len("argv-mem-list") + len("0"))
    assert blocked["cmd"] == "blpop"
    assert observer.command("RPUSH", "argv-mem-list", "x") == 1
    assert c.read_reply() == [b"argv-mem-list", b"x"]
    assert wait_until(lambda: info_of(observer, cid)["flags"] == "N")
    assert info_of(observer, cid)["argv-mem"] == "0"
    c.close()
    observer.close()


@pytest.mark.redis8
def test_multi_mem_counts_queued_arguments(server):
    c, observer = server.raw(), server.raw()
    cid = c.command("CLIENT", "ID")
    assert c.command("MULTI") == "OK"
    assert c.command("SET", "a", "1") == "QUEUED"
    assert c.command("GET", "a") == "QUEUED"
    info = info_of(observer, cid)
    assert (info["multi"], info["multi-mem"], info["flags"]) == ("2", "9", "x")
    assert c.command("EXEC") == ["OK", b"1"]
    info = info_of(observer, cid)
    assert (info["multi"], info["multi-mem"], info["flags"]) == ("-1", "0", "N")
    c.close()
    observer.close()


@pytest.mark.redis8
def test_output_figures_of_a_client_that_does_not_read(server, r):
    r.set("big", "x" * 1000000)
    c, observer = server.raw(), server.raw()
    cid = c.command("CLIENT", "ID")
    # With io_uring the CLIENT ID reply counts as pending until its send completion is
    # reaped, which can come after the client has read it.
    idle = wait_until(lambda: (lambda i: i if (i["obl"], i["oll"], i["omem"]) == ("0", "0", "0")
                               else None)(info_of(observer, cid)))
    assert idle, info_of(observer, cid)
    c.send(b"*2\r\n$3\r\nGET\r\n$3\r\nbig\r\n" * 20)  # 20 MB of replies, none read

    def pending():
        info = info_of(observer, cid)
        return info if "w" in info["events"] and int(info["omem"]) > 1000000 else None
    info = wait_until(pending)
    assert info, info_of(observer, cid)
    assert int(info["omem-shared"]) + int(info["omem-unshared"]) == int(info["omem"])
    # (tot-mem: Redis 8.8 leaves out the values its replies share with the keyspace.)
    assert int(info["tot-mem"]) > 0
    for _ in range(20):
        assert len(c.read_reply()) == 1000000
    # The write interest is dropped once the last byte is sent, which the server may
    # notice a loop iteration after the client read it.
    drained = wait_until(lambda: (lambda i: i if (i["omem"], i["events"]) == ("0", "r") else None)(
        info_of(observer, cid)))
    assert drained, info_of(observer, cid)
    c.close()
    observer.close()


def test_output_buffers_kept_while_busy_then_returned_when_idle(server, r):
    """A client whose batches of replies pass 64 KB keeps both output buffers between
    batches (no regrowth from 1 KB on every batch), and the worker's cron gives them back
    once the client has sent nothing for 5 s (HotKV's own policy: tot-mem)."""
    r.set("v", "x" * 4000)
    c, observer = server.raw(), server.raw()
    cid = c.command("CLIENT", "ID")
    mget = b"*11\r\n$4\r\nMGET\r\n" + b"$1\r\nv\r\n" * 10
    for _ in range(4):
        c.send(mget * 3)  # one batch of ~120 KB of replies
        for _ in range(3):
            assert len(c.read_reply()) == 10
    # Two buffers of 128 KB now (before: both freed after every batch, one at a time).
    kept = wait_until(lambda: (lambda m: m if m > 224 * 1024 else None)(
        int(info_of(observer, cid)["tot-mem"])))
    assert kept, info_of(observer, cid)
    returned = wait_until(lambda: int(info_of(observer, cid)["tot-mem"]) < kept - 200 * 1024,
                          timeout=20)
    assert returned, info_of(observer, cid)
    c.close()
    observer.close()


def test_age_and_idle(server):
    c, observer = server.raw(), server.raw()
    cid = c.command("CLIENT", "ID")
    assert wait_until(lambda: int(info_of(observer, cid)["idle"]) >= 1, timeout=5)
    info = info_of(observer, cid)
    assert int(info["age"]) >= int(info["idle"]) >= 1
    assert c.command("PING") == "PONG"
    assert info_of(observer, cid)["idle"] == "0"
    c.close()
    observer.close()


@pytest.mark.hotkv_only
def test_io_thread_is_the_worker(start_server):
    # io-thread is the index of the worker that serves the connection: each new connection
    # goes to the worker serving the fewest, so connections alternate and a closed one
    # frees its worker's place (the kernel's SO_REUSEPORT hash alone put two clients on
    # one worker half the time).
    srv = start_server(hotkv_args=["--threads", "3"])
    conns = [srv.raw() for _ in range(6)]
    workers = [int(own_info(c)["io-thread"]) for c in conns]
    assert sorted(workers) == [0, 0, 1, 1, 2, 2]
    gone = workers[3]
    conns.pop(3).close()
    # The close is processed by its worker asynchronously.
    assert wait_until(lambda: b"connected_clients:5\r\n" in conns[0].command("INFO", "clients"))
    newcomer = srv.raw()
    assert int(own_info(newcomer)["io-thread"]) == gone
    for c in conns + [newcomer]:
        c.close()


# --- flags and cmd -------------------------------------------------------------------------

@pytest.mark.redis8
def test_flags_in_redis_order(server):
    c, other, observer = server.raw(), server.raw(), server.raw()
    cid = c.command("CLIENT", "ID")
    assert info_of(observer, cid)["flags"] == "N"
    assert c.command("WATCH", "flag-key") == "OK"
    assert other.command("SET", "flag-key", "1") == "OK"
    assert info_of(observer, cid)["flags"] == "d"  # a watched key changed
    assert c.command("MULTI") == "OK"
    assert info_of(observer, cid)["flags"] == "xd"
    assert c.command("EXEC") is None
    assert info_of(observer, cid)["flags"] == "N"
    assert c.command("CLIENT", "NO-EVICT", "ON") == "OK"
    assert c.command("CLIENT", "NO-TOUCH", "ON") == "OK"
    assert info_of(observer, cid)["flags"] == "eT"
    assert c.command("SUBSCRIBE", "flag-channel") == [b"subscribe", b"flag-channel", 1]
    assert info_of(observer, cid)["flags"] == "PeT"
    assert observer.command("CLIENT", "LIST", "TYPE", "pubsub").decode().count("\n") == 1
    assert c.command("UNSUBSCRIBE") == [b"unsubscribe", b"flag-channel", 0]
    assert c.command("RESET") == "RESET"
    assert info_of(observer, cid)["flags"] == "N"
    for conn in (c, other, observer):
        conn.close()


def test_resp3_subscriber_in_multi(server):
    c, observer = server.raw(), server.raw()
    cid = c.command("CLIENT", "ID")
    c.command("HELLO", "3")
    assert c.command("SUBSCRIBE", "resp3-flags")[0] == "push"
    assert c.command("MULTI") == "OK"
    assert info_of(observer, cid)["flags"] == "Px"
    assert c.command("DISCARD") == "OK"
    c.close()
    observer.close()


def test_cmd_is_the_command_looked_up_last(server):
    c, observer = server.raw(), server.raw()
    cid = c.command("CLIENT", "ID")
    for args, last in [(["GET"], "get"),                 # refused for its arity: still get
                       (["NOSUCHCOMMAND"], "NULL"),
                       (["PING"], "ping"),
                       (["CLIENT", "NOSUCH"], "NULL"),
                       (["CONFIG"], "config"),           # a container without subcommand
                       (["MULTI"], "multi"),
                       (["GET", "a"], "get"),            # queued
                       (["DISCARD"], "discard"),
                       (["SET", "k", "v", "BAD"], "set")]:
        c.command(*args)
        assert info_of(observer, cid)["cmd"] == last, args
    c.close()
    observer.close()


# --- CLIENT LIST filters -------------------------------------------------------------------

def test_client_list_id_lists_in_the_order_given(server):
    a, b = server.raw(), server.raw()
    ida, idb = a.command("CLIENT", "ID"), b.command("CLIENT", "ID")
    ids = lambda text: [int(parse_client_line(l)["id"]) for l in text.decode().splitlines()]
    assert ids(a.command("CLIENT", "LIST", "ID", idb, ida)) == [idb, ida]
    assert ids(a.command("CLIENT", "LIST", "ID", ida, ida)) == [ida, ida]
    assert ids(a.command("CLIENT", "LIST", "ID", 0, -1, ida, 99999999)) == [ida]
    a.close()
    b.close()


@pytest.mark.parametrize("args,error", [
    (["ID", "abc"], "ERR Invalid client ID"),
    (["ID", "1", "abc"], "ERR Invalid client ID"),
    (["ID", "1.5"], "ERR Invalid client ID"),
    (["ID", "+5"], "ERR Invalid client ID"),
    (["ID", "99999999999999999999"], "ERR Invalid client ID"),
    (["ID", "1", "TYPE", "normal"], "ERR Invalid client ID"),  # ID takes everything after it
    (["TYPE", "normal", "ID", "1"], "ERR syntax error"),       # TYPE only on its own
    (["TYPE"], "ERR syntax error"),
    (["ID"], "ERR syntax error"),
    (["TYPE", "foo"], "ERR Unknown client type 'foo'"),
    (["TYPE", "primary"], "ERR Unknown client type 'primary'"),
    (["USER", "default"], "ERR syntax error"),
    (["ADDR", "1.2.3.4:5"], "ERR syntax error"),
    (["LADDR", "1.2.3.4:5"], "ERR syntax error"),
    (["SKIPME", "no"], "ERR syntax error"),
    (["MAXAGE", "10"], "ERR syntax error"),
    (["foo", "bar"], "ERR syntax error"),
])
def test_client_list_errors(r, args, error):
    assert error_reply(r, "CLIENT", "LIST", *args) == error


@pytest.mark.parametrize("type_name", ["normal", "NORMAL", "Normal"])
def test_client_list_type_is_case_insensitive(server, type_name):
    c = server.raw()
    cid = c.command("CLIENT", "ID")
    lines = c.command("CLIENT", "LIST", "TYPE", type_name).decode().splitlines()
    assert cid in [int(parse_client_line(l)["id"]) for l in lines]
    c.close()


# --- CLIENT KILL ---------------------------------------------------------------------------

@pytest.mark.parametrize("args,error", [
    (["ID", "0"], "ERR client-id should be greater than 0"),
    (["ID", "-1"], "ERR client-id should be greater than 0"),
    (["ID", "abc"], "ERR client-id should be greater than 0"),
    (["ID", "99999999999999999999"], "ERR client-id should be greater than 0"),
    (["ID", "1", "TYPE"], "ERR syntax error"),
    (["ID", "abc", "TYPE"], "ERR client-id should be greater than 0"),  # left to right
    pytest.param(["MAXAGE", "0"], "ERR maxage should be greater than 0", marks=pytest.mark.redis8),
    pytest.param(["MAXAGE", "-1"], "ERR maxage should be greater than 0", marks=pytest.mark.redis8),
    pytest.param(["MAXAGE", "abc"], "ERR maxage is not an integer or out of range", marks=pytest.mark.redis8),
    pytest.param(["MAXAGE", "1.5"], "ERR maxage is not an integer or out of range", marks=pytest.mark.redis8),
    pytest.param(["MAXAGE", "99999999999999999999"], "ERR maxage is not an integer or out of range", marks=pytest.mark.redis8),
    (["SKIPME", "maybe"], "ERR syntax error"),
    (["USER", "nobody"], "ERR No such user 'nobody'"),
    (["USER", "DEFAULT"], "ERR No such user 'DEFAULT'"),
    (["TYPE", "bogus"], "ERR Unknown client type 'bogus'"),
    (["TYPE", "primary"], "ERR Unknown client type 'primary'"),
    (["foo", "bar"], "ERR syntax error"),
    (["ID", "1", "foo", "bar"], "ERR syntax error"),
    # One argument is the old form: an address.
    (["nonsense"], "ERR No such client"),
    (["ID"], "ERR No such client"),
    (["MAXAGE"], "ERR No such client"),
    (["1.2.3.4:5"], "ERR No such client"),
])
def test_client_kill_errors(r, args, error):
    assert error_reply(r, "CLIENT", "KILL", *args) == error


@pytest.mark.parametrize("args", [
    ["SKIPME", "YES"], ["USER", "default"], ["ADDR", "x"], ["LADDR", "x"],
    ["TYPE", "master"], ["TYPE", "replica"], ["TYPE", "slave"], ["TYPE", "pubsub"],
    ["ID", "5", "ID", "6"],
    pytest.param(["ADDR", "1:1", "LADDR", "2:2", "USER", "default", "SKIPME", "no", "MAXAGE",
                  "1000000", "TYPE", "normal", "ID", "3"], marks=pytest.mark.redis8),
])
def test_client_kill_filters_that_match_nobody(start_server, args):
    srv = start_server()
    c = srv.raw()
    # Alone on the server (the start-up probe may take a moment to go), so the filters
    # that would match any other client match nobody.
    assert wait_until(lambda: c.command("CLIENT", "LIST").count(b"\n") == 1)
    assert c.command("CLIENT", "KILL", *args) == 0
    assert c.command("PING") == "PONG"
    c.close()


@pytest.mark.redis8
def test_client_kill_maxage_kills_clients_at_least_that_old(start_server):
    srv = start_server()
    old = srv.raw()
    oid = old.command("CLIENT", "ID")
    time.sleep(1.1)
    killer = srv.raw()
    assert wait_until(lambda: int(info_of(killer, oid)["age"]) >= 2, timeout=5)
    age = int(info_of(killer, oid)["age"])
    assert killer.command("CLIENT", "KILL", "MAXAGE", age + 1) == 0
    # An age equal to MAXAGE is old enough; the caller (age 0 or 1) is young and skipped.
    assert killer.command("CLIENT", "KILL", "MAXAGE", age) == 1
    assert old.closed_by_server()
    assert killer.command("PING") == "PONG"
    killer.close()
    old.close()


def test_client_kill_old_form_may_kill_the_caller(start_server):
    srv = start_server()
    c = srv.raw()
    local = c.sock.getsockname()
    assert c.command("CLIENT", "KILL", f"{local[0]}:{local[1]}") == "OK"
    assert c.closed_by_server()
    c.close()


def test_a_killed_client_leaves_client_list_at_once(start_server):
    srv = start_server()
    killer, victim = srv.raw(), srv.raw()
    vid = victim.command("CLIENT", "ID")
    assert killer.command("CLIENT", "KILL", "ID", vid) == 1
    assert killer.command("CLIENT", "LIST", "ID", vid) == b""
    assert victim.closed_by_server()
    killer.close()
    victim.close()


# --- CLIENT NO-TOUCH / NO-EVICT ------------------------------------------------------------

@pytest.mark.redis8
def test_no_touch_keeps_idletime_except_for_touch(server, r, restore_config):
    restore_config("maxmemory-policy")
    r.config_set("maxmemory-policy", "allkeys-lru")
    r.set("nt-key", "v")
    c = server.raw()
    assert c.command("CLIENT", "NO-TOUCH", "ON") == "OK"
    assert wait_until(lambda: c.command("OBJECT", "IDLETIME", "nt-key") >= 2, timeout=6)
    assert c.command("GET", "nt-key") == b"v"
    assert c.command("STRLEN", "nt-key") == 1
    assert c.command("OBJECT", "IDLETIME", "nt-key") >= 2
    assert c.command("TOUCH", "nt-key") == 1  # TOUCH still touches
    assert c.command("OBJECT", "IDLETIME", "nt-key") == 0
    assert wait_until(lambda: c.command("OBJECT", "IDLETIME", "nt-key") >= 1, timeout=6)
    assert c.command("CLIENT", "NO-TOUCH", "OFF") == "OK"
    assert c.command("GET", "nt-key") == b"v"
    assert c.command("OBJECT", "IDLETIME", "nt-key") == 0
    c.close()


@pytest.mark.redis8
def test_no_touch_keeps_the_lfu_counter_except_for_touch(server, r, restore_config):
    restore_config("maxmemory-policy")
    r.config_set("maxmemory-policy", "allkeys-lfu")
    r.set("nt-lfu", "v")
    c = server.raw()
    assert c.command("OBJECT", "FREQ", "nt-lfu") == 5  # a new key's counter (LFU_INIT_VAL)
    assert c.command("CLIENT", "NO-TOUCH", "ON") == "OK"
    for _ in range(10):
        assert c.command("GET", "nt-lfu") == b"v"
    assert c.command("OBJECT", "FREQ", "nt-lfu") == 5
    # At the initial counter an access always increments it.
    assert c.command("TOUCH", "nt-lfu") == 1
    assert c.command("OBJECT", "FREQ", "nt-lfu") == 6
    c.close()


@pytest.mark.redis8
def test_no_touch_and_no_evict_arguments(r):
    for sub in ("NO-TOUCH", "NO-EVICT"):
        assert error_reply(r, "CLIENT", sub, "MAYBE") == "ERR syntax error"
        assert error_reply(r, "CLIENT", sub) == \
            f"ERR wrong number of arguments for 'client|{sub.lower()}' command"
        assert cmd(r, "CLIENT", sub, "on") == "OK"
        assert cmd(r, "CLIENT", sub, "Off") == "OK"


# --- CLIENT HELP ---------------------------------------------------------------------------

@pytest.mark.redis8
def test_client_help_describes_kill_and_list_as_redis(r):
    lines = cmd(r, "CLIENT", "HELP")
    assert lines[0] == "CLIENT <subcommand> [<arg> [value] [opt] ...]. Subcommands are:"
    kill = lines.index("KILL <option> <value> [<option> <value> [...]]")
    assert lines[kill + 1:kill + 16] == [
        "    Kill connections. Options are:",
        "    * ADDR (<ip:port>|<unixsocket>:0)",
        "      Kill connections made from the specified address",
        "    * LADDR (<ip:port>|<unixsocket>:0)",
        "      Kill connections made to specified local address",
        "    * TYPE (NORMAL|MASTER|REPLICA|PUBSUB)",
        "      Kill connections by type.",
        "    * USER <username>",
        "      Kill connections authenticated by <username>.",
        "    * SKIPME (YES|NO)",
        "      Skip killing current connection (default: yes).",
        "    * ID <client-id>",
        "      Kill connections by client id.",
        "    * MAXAGE <maxage>",
        "      Kill connections older than the specified age."]
    assert lines[-2:] == ["HELP", "    Print this help."]
