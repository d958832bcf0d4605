"""Server commands: INFO, TIME, COMMAND, CONFIG, SLOWLOG, DEBUG SLEEP, SHUTDOWN, DBSIZE."""
import re
import time

import pytest

from conftest import cmd, error_reply


def info_text(client, *sections):
    return cmd(client, "INFO", *sections)


def info_sections(text):
    return [line[2:].strip().lower() for line in text.splitlines() if line.startswith("# ")]


def info_fields(text):
    fields = {}
    for line in text.splitlines():
        if line and not line.startswith("#"):
            name, _, value = line.partition(":")
            fields[name] = value
    return fields


# --- INFO ------------------------------------------------------------------------------

def test_info_format(r):
    text = info_text(r)
    assert isinstance(text, str)
    assert "\r\n" in text
    for line in text.split("\r\n"):
        assert line == "" or line.startswith("# ") or re.match(r"^[A-Za-z0-9_|.-]+:", line), line


def test_info_default_sections(r):
    sections = info_sections(info_text(r))
    for name in ("server", "clients", "memory", "stats", "cpu", "keyspace"):
        assert name in sections
    assert "commandstats" not in sections


def test_info_server_fields(r, server):
    fields = info_fields(info_text(r, "server"))
    assert info_sections(info_text(r, "server")) == ["server"]
    assert re.fullmatch(r"\d+\.\d+\.\d+", fields["redis_version"])
    assert fields["tcp_port"] == str(server.port)
    assert fields["redis_mode"] == "standalone"
    assert int(fields["process_id"]) == server.proc.pid
    assert int(fields["uptime_in_seconds"]) >= 0
    assert re.fullmatch(r"[0-9a-f]{40}", fields["run_id"])
    assert fields["arch_bits"] in ("32", "64")


def test_info_clients_and_memory(r, server):
    extra = server.raw()
    assert extra.command("PING") == "PONG"
    clients = info_fields(info_text(r, "clients"))
    assert int(clients["connected_clients"]) >= 2
    assert int(clients["blocked_clients"]) == 0
    assert int(clients["maxclients"]) == int(r.config_get("maxclients")["maxclients"])
    extra.close()
    memory = info_fields(info_text(r, "memory"))
    assert int(memory["used_memory"]) > 0
    assert "used_memory_human" in memory
    assert int(memory["maxmemory"]) == int(r.config_get("maxmemory")["maxmemory"])
    assert memory["maxmemory_policy"] == r.config_get("maxmemory-policy")["maxmemory-policy"]


def test_info_cpu_and_stats(r):
    cpu = info_fields(info_text(r, "cpu"))
    for name in ("used_cpu_sys", "used_cpu_user"):
        assert float(cpu[name]) >= 0
    stats = info_fields(info_text(r, "stats"))
    for name in ("total_connections_received", "total_commands_processed", "expired_keys",
                 "keyspace_hits", "keyspace_misses", "rejected_connections"):
        assert int(stats[name]) >= 0


def test_info_keyspace(r, server):
    assert info_fields(info_text(r, "keyspace")) == {}
    r.mset({"a": 1, "b": 2, "c": 3})
    r.expire("a", 100)
    c5 = server.client(db=5)
    c5.set("x", 1)
    fields = info_fields(info_text(r, "keyspace"))
    assert set(fields) == {"db0", "db5"}
    assert re.fullmatch(r"keys=3,expires=1,avg_ttl=\d+(,.*)?", fields["db0"]), fields["db0"]
    assert re.fullmatch(r"keys=1,expires=0,avg_ttl=0(,.*)?", fields["db5"]), fields["db5"]
    c5.close()


def test_info_multiple_sections_and_case(r):
    assert info_sections(info_text(r, "server", "clients")) == ["server", "clients"]
    assert info_sections(info_text(r, "SERVER")) == ["server"]


def test_info_everything_and_all(r):
    everything = info_sections(info_text(r, "everything"))
    for name in ("server", "clients", "memory", "stats", "cpu", "commandstats", "keyspace"):
        assert name in everything
    assert "commandstats" in info_sections(info_text(r, "all"))
    assert "commandstats" not in info_sections(info_text(r, "default"))


def test_info_unknown_section_is_empty(r):
    assert info_text(r, "nosuchsection") == ""


def test_info_commandstats(r):
    assert cmd(r, "CONFIG", "RESETSTAT") == "OK"
    r.set("k", "v")
    for _ in range(3):
        r.get("k")
    error_reply(r, "GET")                        # rejected (arity) calls
    error_reply(r, "INCR", "k")                  # failed calls
    fields = info_fields(info_text(r, "commandstats"))
    get = dict(kv.split("=") for kv in fields["cmdstat_get"].split(","))
    assert get["calls"] == "3"
    assert int(get["usec"]) >= 0
    assert float(get["usec_per_call"]) >= 0
    assert get["rejected_calls"] == "1"
    assert get["failed_calls"] == "0"
    incr = dict(kv.split("=") for kv in fields["cmdstat_incr"].split(","))
    assert incr["calls"] == "1" and incr["failed_calls"] == "1"   # failures still count as calls
    assert "cmdstat_set" in fields


def test_config_resetstat_clears_stats(r):
    r.get("missing")
    assert cmd(r, "CONFIG", "RESETSTAT") == "OK"
    fields = info_fields(info_text(r, "commandstats"))
    assert "cmdstat_get" not in fields
    stats = info_fields(info_text(r, "stats"))
    assert stats["keyspace_misses"] == "0"
    r.set("k", "v")
    r.get("k")
    r.get("missing")
    stats = info_fields(info_text(r, "stats"))
    assert stats["keyspace_hits"] == "1"
    assert stats["keyspace_misses"] == "1"


# --- TIME / DBSIZE / DEBUG SLEEP -------------------------------------------------------

def test_time(r):
    reply = cmd(r, "TIME")
    assert isinstance(reply, list) and len(reply) == 2
    secs, micros = reply
    assert secs.isdigit() and micros.isdigit()
    assert 0 <= int(micros) < 1000000
    assert abs(int(secs) - time.time()) < 30
    assert error_reply(r, "TIME", "x") == "ERR wrong number of arguments for 'time' command"


def test_dbsize(r):
    assert cmd(r, "DBSIZE") == 0
    r.mset({"a": 1, "b": 2})
    assert cmd(r, "DBSIZE") == 2
    assert error_reply(r, "DBSIZE", "x") == "ERR wrong number of arguments for 'dbsize' command"


def test_debug_sleep_zero(r):
    assert cmd(r, "DEBUG", "SLEEP", "0") == "OK"
    assert r.ping() is True


# --- COMMAND ---------------------------------------------------------------------------

def test_command_count(r):
    count = cmd(r, "COMMAND", "COUNT")
    assert isinstance(count, int) and count > 50
    assert count == len(cmd(r, "COMMAND"))


def test_command_info(r):
    get, setc = cmd(r, "COMMAND", "INFO", "get", "SET")
    assert get[:6] == ["get", 2, ["readonly", "fast"], 1, 1, 1]
    assert setc[:6] == ["set", -3, ["write", "denyoom"], 1, 1, 1]
    assert sorted(get[6]) == ["@fast", "@read", "@string"]
    assert sorted(setc[6]) == ["@slow", "@string", "@write"]
    assert len(get) == 10
    mset, = cmd(r, "COMMAND", "INFO", "mset")
    assert mset[:6] == ["mset", -3, ["write", "denyoom"], 1, -1, 2]
    assert cmd(r, "COMMAND", "INFO", "nosuchcommand") == [None]


@pytest.mark.parametrize("name, flags", [
    ("scan", ["readonly"]),
    ("randomkey", ["readonly"]),
    ("echo", ["loading", "stale", "fast"]),
    ("multi", ["noscript", "loading", "stale", "fast", "allow_busy"]),
    ("watch", ["noscript", "loading", "stale", "fast", "allow_busy"]),
    ("subscribe", ["denyoom", "pubsub", "noscript", "loading", "stale"]),
    ("psubscribe", ["denyoom", "pubsub", "noscript", "loading", "stale"]),
    ("ssubscribe", ["denyoom", "pubsub", "noscript", "loading", "stale"]),
    ("publish", ["pubsub", "loading", "stale", "fast"]),
    ("spublish", ["pubsub", "loading", "stale", "fast"]),
    ("debug", ["admin", "noscript", "loading", "stale"]),
    ("set", ["write", "denyoom"]),
    ("zunionstore", ["write", "denyoom", "movablekeys"]),
    ("sintercard", ["readonly", "movablekeys"]),
    ("lmpop", ["write", "movablekeys"]),
    ("blmpop", ["write", "blocking", "movablekeys"]),
])
@pytest.mark.redis8
def test_command_info_flags_as_redis_8(r, name, flags):
    # COMMAND INFO's flags as Redis 8.8 prints them, in its order: it hides
    # may_replicate, protected and touches_arbitrary_keys; MULTI and WATCH are not
    # no_multi (nesting is refused by the commands themselves); SUBSCRIBE and its
    # siblings are denyoom; movablekeys comes from the key specs (SET's getkeys only
    # refines its flags).
    info, = cmd(r, "COMMAND", "INFO", name)
    assert info[2] == flags


def test_command_info_lpos_key_spec_reads_the_value(r):
    # LPOS returns data derived from the list: key spec flags RO ACCESS, as in Redis 8.
    info, = cmd(r, "COMMAND", "INFO", "lpos")
    spec = info[8][0]
    flags = spec[spec.index("flags") + 1]
    assert flags == ["RO", "access"]


def test_command_docs(r):
    docs = cmd(r, "COMMAND", "DOCS", "get")
    assert docs[0] == "get"
    fields = dict(zip(docs[1][0::2], docs[1][1::2]))
    assert isinstance(fields["summary"], str) and fields["summary"]
    assert fields["since"] == "1.0.0"
    assert fields["group"] == "string"
    assert fields["complexity"] == "O(1)"
    assert cmd(r, "COMMAND", "DOCS", "nosuchcommand") == []


@pytest.mark.redis8
def test_command_docs_summary(r):
    # Command summaries were rewritten in Redis 7.2 (7.0 says "Get the value of a key").
    docs = cmd(r, "COMMAND", "DOCS", "get")
    fields = dict(zip(docs[1][0::2], docs[1][1::2]))
    assert fields["summary"] == "Returns the string value of a key."


def doc_args(r, name):
    """COMMAND DOCS arguments of `name` as {name: fields}, fields a dict whose "arguments"
    (if any) is converted the same way and whose "flags" is a set."""
    def convert(args):
        out = {}
        for a in args:
            d = dict(zip(a[0::2], a[1::2]))
            d["flags"] = set(d.get("flags", []))
            if "arguments" in d:
                d["arguments"] = convert(d["arguments"])
            out[d["name"]] = d
        return out
    docs = cmd(r, "COMMAND", "DOCS", name)
    fields = dict(zip(docs[1][0::2], docs[1][1::2]))
    return convert(fields["arguments"])


def test_command_docs_named_oneofs(r):
    args = doc_args(r, "set")
    assert args["condition"]["type"] == "oneof"
    assert args["condition"]["flags"] == {"optional"}
    # Redis 8.4 added the compare-and-set conditions to the same oneof.
    assert set(args["condition"]["arguments"]) == {"nx", "xx", "ifeq-value", "ifne-value",
                                                   "ifdeq-digest", "ifdne-digest"}
    assert args["expiration"]["type"] == "oneof"
    assert args["expiration"]["arguments"]["seconds"]["token"] == "EX"
    assert args["expiration"]["arguments"]["seconds"]["type"] == "integer"
    assert "choice" not in args
    assert list(doc_args(r, "lmove")) == ["source", "destination", "wherefrom", "whereto"]


def test_command_docs_explicit_types(r):
    assert doc_args(r, "incrbyfloat")["increment"]["type"] == "double"
    assert doc_args(r, "hincrbyfloat")["increment"]["type"] == "double"
    assert doc_args(r, "incrby")["increment"]["type"] == "integer"
    count = doc_args(r, "lpos")["num-matches"]
    assert (count["type"], count["token"], count["flags"]) == ("integer", "COUNT", {"optional"})


def test_command_docs_token_groups(r):
    args = doc_args(r, "zunion")
    weight = args["weight"]
    assert (weight["type"], weight["token"], weight["flags"]) == ("integer", "WEIGHTS", {"optional", "multiple"})
    aggregate = args["aggregate"]
    assert (aggregate["type"], aggregate["token"], aggregate["flags"]) == ("oneof", "AGGREGATE", {"optional"})
    # Redis 8.8 adds COUNT (test_redis8_additions.py); 7.0 stops at MAX.
    assert list(aggregate["arguments"])[:3] == ["sum", "min", "max"]
    assert doc_args(r, "zadd")["change"]["token"] == "CH"


@pytest.mark.redis8
def test_command_docs_named_blocks(r):
    # Redis 7.0 names these blocks "offset_count" and "field_value"; 7.2 renamed them.
    limit = doc_args(r, "zrange")["limit"]
    assert (limit["type"], limit["token"]) == ("block", "LIMIT")
    assert list(limit["arguments"]) == ["offset", "count"]
    assert "token" not in limit["arguments"]["offset"]
    args = doc_args(r, "hset")
    assert list(args) == ["key", "data"]
    assert (args["data"]["type"], args["data"]["flags"]) == ("block", {"multiple"})
    assert list(args["data"]["arguments"]) == ["field", "value"]
    data = doc_args(r, "mset")["data"]
    assert (data["type"], data["flags"]) == ("block", {"multiple"})
    assert list(data["arguments"]) == ["key", "value"]


def test_command_list(r):
    names = cmd(r, "COMMAND", "LIST")
    for name in ("get", "set", "del", "expire", "ping", "client", "config", "command"):
        assert name in names
    filtered = cmd(r, "COMMAND", "LIST", "FILTERBY", "PATTERN", "get*")
    assert {"get", "getdel", "getex", "getrange", "getset"} <= set(filtered)
    assert all(n.startswith("get") for n in filtered)
    assert error_reply(r, "COMMAND", "LIST", "FILTERBY", "FOO", "x") == "ERR syntax error"


@pytest.mark.parametrize("args,keys", [
    (["SET", "k", "v"], ["k"]),
    (["GET", "k"], ["k"]),
    (["MSET", "a", "1", "b", "2"], ["a", "b"]),
    (["MGET", "a", "b", "c"], ["a", "b", "c"]),
    (["DEL", "x", "y"], ["x", "y"]),
    (["RENAME", "src", "dst"], ["src", "dst"]),
    (["SET", "k", "v", "EX", "10", "GET"], ["k"]),
])
def test_command_getkeys(r, args, keys):
    assert cmd(r, "COMMAND", "GETKEYS", *args) == keys


def test_command_getkeys_numkeys_style(r):
    assert cmd(r, "COMMAND", "GETKEYS", "ZUNIONSTORE", "dst", "2", "a", "b",
               "WEIGHTS", "1", "2") == ["dst", "a", "b"]


def test_command_getkeys_errors(r):
    assert error_reply(r, "COMMAND", "GETKEYS", "PING", "x") == \
        "ERR The command has no key arguments"
    assert error_reply(r, "COMMAND", "GETKEYS", "NOSUCHCMD", "x") == \
        "ERR Invalid command specified"
    assert error_reply(r, "COMMAND", "GETKEYS", "SET", "a") == \
        "ERR Invalid number of arguments specified for command"
    assert error_reply(r, "COMMAND", "GETKEYS") == \
        "ERR wrong number of arguments for 'command|getkeys' command"
    assert error_reply(r, "COMMAND", "FOO") == "ERR unknown subcommand 'FOO'. Try COMMAND HELP."


# --- CONFIG ----------------------------------------------------------------------------

def test_config_get(r, server):
    assert cmd(r, "CONFIG", "GET", "port") == ["port", str(server.port)]
    assert cmd(r, "CONFIG", "GET", "databases") == ["databases", "16"]
    assert cmd(r, "CONFIG", "GET", "no-such-parameter") == []
    assert error_reply(r, "CONFIG", "GET") == \
        "ERR wrong number of arguments for 'config|get' command"


def test_config_get_glob_and_multiple(r, server):
    got = r.config_get("maxmemory*")
    assert {"maxmemory", "maxmemory-policy"} <= set(got)
    assert all(name.startswith("maxmemory") for name in got)
    reply = cmd(r, "CONFIG", "GET", "port", "databases", "port")
    pairs = dict(zip(reply[0::2], reply[1::2]))
    assert pairs == {"port": str(server.port), "databases": "16"}
    assert len(reply) == 4                   # no duplicates
    assert cmd(r, "CONFIG", "GET", "PORT")[1] == str(server.port)
    assert set(r.config_get("*")) >= {"port", "maxclients", "maxmemory", "timeout"}


def test_config_set_and_get(r, restore_config):
    restore_config("maxmemory", "slowlog-max-len", "hz")
    assert cmd(r, "CONFIG", "SET", "maxmemory", "1mb") == "OK"
    assert r.config_get("maxmemory") == {"maxmemory": "1048576"}
    assert cmd(r, "CONFIG", "SET", "maxmemory", "0", "slowlog-max-len", "77", "hz", "15") == "OK"
    assert r.config_get("slowlog-max-len") == {"slowlog-max-len": "77"}
    assert r.config_get("hz") == {"hz": "15"}
    assert cmd(r, "CONFIG", "SET", "SLOWLOG-MAX-LEN", "78") == "OK"
    assert r.config_get("slowlog-max-len") == {"slowlog-max-len": "78"}


def test_config_set_unknown_parameter(r):
    assert error_reply(r, "CONFIG", "SET", "foo", "bar") == \
        "ERR Unknown option or number of arguments for CONFIG SET - 'foo'"


def test_config_set_is_atomic(r, restore_config):
    restore_config("hz")
    before = r.config_get("hz")
    assert error_reply(r, "CONFIG", "SET", "hz", "17", "foo", "bar") == \
        "ERR Unknown option or number of arguments for CONFIG SET - 'foo'"
    assert error_reply(r, "CONFIG", "SET", "hz", "17", "maxclients", "abc") == (
        "ERR CONFIG SET failed (possibly related to argument 'maxclients') - "
        "argument couldn't be parsed into an integer")
    assert r.config_get("hz") == before


def test_config_set_invalid_values(r):
    assert error_reply(r, "CONFIG", "SET", "maxclients", "abc") == (
        "ERR CONFIG SET failed (possibly related to argument 'maxclients') - "
        "argument couldn't be parsed into an integer")
    assert error_reply(r, "CONFIG", "SET", "appendonly", "maybe") == (
        "ERR CONFIG SET failed (possibly related to argument 'appendonly') - "
        "argument must be 'yes' or 'no'")
    assert error_reply(r, "CONFIG", "SET", "maxmemory-policy", "bogus").startswith(
        "ERR CONFIG SET failed (possibly related to argument 'maxmemory-policy') - "
        "argument(s) must be one of the following: ")
    assert error_reply(r, "CONFIG", "SET", "maxclients", "100", "maxclients", "200") == (
        "ERR CONFIG SET failed (possibly related to argument 'maxclients') - "
        "duplicate parameter")
    assert error_reply(r, "CONFIG", "SET", "maxclients") == \
        "ERR wrong number of arguments for 'config|set' command"


def test_config_unknown_subcommand(r):
    assert error_reply(r, "CONFIG", "FOO") == "ERR unknown subcommand 'FOO'. Try CONFIG HELP."


# --- SLOWLOG ---------------------------------------------------------------------------

def test_slowlog_records_everything_at_zero(server, restore_config):
    restore_config("slowlog-log-slower-than", "slowlog-max-len")
    c = server.client()
    c.client_setname("slow-client")
    assert cmd(c, "CONFIG", "SET", "slowlog-log-slower-than", "0") == "OK"
    assert cmd(c, "SLOWLOG", "RESET") == "OK"
    before = int(time.time())
    assert cmd(c, "SET", "slowkey", "slowvalue") == "OK"
    entries = cmd(c, "SLOWLOG", "GET")
    assert isinstance(entries, list) and entries
    set_entries = [e for e in entries if e[3][:1] == ["SET"]]
    assert len(set_entries) == 1
    entry = set_entries[0]
    assert len(entry) == 6
    entry_id, ts, duration, args, addr, name = entry
    assert isinstance(entry_id, int) and entry_id >= 0
    assert before - 5 <= ts <= time.time() + 5
    assert isinstance(duration, int) and duration >= 0
    assert args == ["SET", "slowkey", "slowvalue"]
    conn = c.connection_pool.get_connection("x")
    local = conn._sock.getsockname()
    c.connection_pool.release(conn)
    assert addr == f"{local[0]}:{local[1]}"
    assert name == "slow-client"
    ids = [e[0] for e in entries]
    assert ids == sorted(ids, reverse=True) and len(set(ids)) == len(ids)   # newest first
    c.close()


def test_slowlog_len_get_count_and_max_len(server, restore_config):
    restore_config("slowlog-log-slower-than", "slowlog-max-len")
    c = server.client()
    cmd(c, "CONFIG", "SET", "slowlog-log-slower-than", "0", "slowlog-max-len", "3")
    for i in range(10):
        c.set(f"k{i}", i)
    assert cmd(c, "SLOWLOG", "LEN") == 3
    assert len(cmd(c, "SLOWLOG", "GET")) == 3
    assert len(cmd(c, "SLOWLOG", "GET", "1")) == 1
    assert len(cmd(c, "SLOWLOG", "GET", "-1")) == 3     # -1: all entries
    assert cmd(c, "SLOWLOG", "GET", "0") == []
    assert error_reply(c, "SLOWLOG", "GET", "-2") == \
        "ERR count should be greater than or equal to -1"
    assert error_reply(c, "SLOWLOG", "GET", "abc") == \
        "ERR count should be greater than or equal to -1"
    c.close()


def test_slowlog_reset_and_threshold(server, restore_config):
    restore_config("slowlog-log-slower-than")
    c = server.client()
    cmd(c, "CONFIG", "SET", "slowlog-log-slower-than", "100000000")
    assert cmd(c, "SLOWLOG", "RESET") == "OK"
    c.set("k", "v")
    assert cmd(c, "SLOWLOG", "LEN") == 0
    assert cmd(c, "SLOWLOG", "GET") == []
    # DEBUG SLEEP is slower than a 100 ms threshold
    cmd(c, "CONFIG", "SET", "slowlog-log-slower-than", "100000")
    assert cmd(c, "DEBUG", "SLEEP", "0.2") == "OK"
    entries = cmd(c, "SLOWLOG", "GET")
    assert [e[3] for e in entries] == [["DEBUG", "SLEEP", "0.2"]]
    assert entries[0][2] >= 100000
    c.close()


def test_slowlog_truncates_long_arguments(server, restore_config):
    restore_config("slowlog-log-slower-than")
    c = server.client()
    cmd(c, "CONFIG", "SET", "slowlog-log-slower-than", "0")
    cmd(c, "SET", "long", "x" * 200)
    entry = [e for e in cmd(c, "SLOWLOG", "GET") if e[3][:2] == ["SET", "long"]][0]
    assert entry[3] == ["SET", "long", "x" * 128 + "... (72 more bytes)"]
    args = ["MSET"] + [f"k{i}" if i % 2 == 0 else "v" for i in range(40)]
    cmd(c, *args)
    entry = [e for e in cmd(c, "SLOWLOG", "GET") if e[3][:1] == ["MSET"]][0]
    assert entry[3] == args[:31] + ["... (10 more arguments)"]
    c.close()


def test_slowlog_errors(r):
    assert error_reply(r, "SLOWLOG", "FOO") == "ERR unknown subcommand 'FOO'. Try SLOWLOG HELP."
    assert cmd(r, "SLOWLOG", "HELP")[0].startswith("SLOWLOG <subcommand>")


# --- SHUTDOWN --------------------------------------------------------------------------

def test_shutdown_nosave(start_server):
    srv = start_server()
    c = srv.raw()
    assert c.command("SET", "k", "v") == "OK"
    c.send_command("SHUTDOWN", "NOSAVE")
    assert c.closed_by_server(timeout=10.0)
    c.close()
    assert srv.proc.wait(timeout=10) == 0


def test_shutdown_invalid_option(start_server):
    srv = start_server()
    c = srv.raw()
    assert c.command("SHUTDOWN", "FOO") == "ERR syntax error"
    assert c.command("PING") == "PONG"
    c.close()
    assert srv.alive()


def test_flushall_on_other_connection_is_visible(r, server):
    other = server.client()
    r.set("k", "v")
    other.flushall()
    assert r.exists("k") == 0
    other.close()
