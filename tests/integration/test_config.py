"""CONFIG GET/SET/REWRITE as Redis 8.8 answers them: every parameter round-trips, the
error texts, run-time port and bind changes with real connections, start-up errors, and
README's table of parameters. Texts were checked by hand against redis-server 8.8."""
import os
import re
import resource
import socket
import time

import pytest
import redis

from conftest import ROOT, cmd, error_reply, free_port, run_server_binary, wait_until


def failed(name, why):
    return f"ERR CONFIG SET failed (possibly related to argument '{name}') - {why}"


def config_pairs(c, *patterns):
    reply = cmd(c, "CONFIG", "GET", *patterns)
    if isinstance(reply, dict):
        return list(reply.items())
    return list(zip(reply[0::2], reply[1::2]))


def accepts(port):
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=0.5) as s:
            s.sendall(b"PING\r\n")
            return s.recv(16).startswith(b"+PONG")
    except OSError:
        return False


def test_every_parameter_round_trips(start_server):
    """CONFIG GET * then CONFIG SET of each value back: +OK and the same value, or the
    immutable/protected error."""
    srv = start_server()
    c = srv.client()
    pairs = config_pairs(c, "*")
    assert len(pairs) >= 218
    settable = 0
    for name, value in pairs:
        if name in ("port", "bind"):
            continue  # set back below with a real rebind
        try:
            reply = cmd(c, "CONFIG", "SET", name, value)
        except redis.ResponseError as e:
            reply = str(e)
        if reply == "OK":
            assert config_pairs(c, name) == [(name, value)], name
            settable += 1
        else:
            assert reply.endswith("can't set immutable config") or \
                reply.endswith("can't set protected config"), (name, value, reply)
    assert settable > 150
    assert cmd(c, "CONFIG", "SET", "port", str(srv.port), "bind", "127.0.0.1") == "OK"
    c.close()


def test_redis_names_aliases_and_hidden(r):
    names = dict(config_pairs(r, "*"))
    for name in ("slaveof", "replicaof", "hash-max-ziplist-entries", "list-max-ziplist-size",
                 "min-slaves-to-write", "aof_rewrite_cpulist", "lazyfree-lazy-user-del",
                 "slowlog-entry-max-argc", "maxmemory-clients", "tls-port", "cluster-enabled"):
        assert name in names, name
    assert names["hash-max-ziplist-entries"] == names["hash-max-listpack-entries"]
    assert "key-load-delay" not in names                 # hidden from patterns...
    assert config_pairs(r, "KEY-LOAD-DELAY") == [("KEY-LOAD-DELAY", "0")]   # ...not by name
    assert config_pairs(r, "Hz") == [("Hz", names["hz"])]
    assert config_pairs(r, "hz", "h?", "hz") == [("hz", names["hz"])]


@pytest.mark.redis8
def test_defaults_as_redis_8(r):
    got = dict(config_pairs(r, "*"))
    assert got["hash-max-listpack-entries"] == "512"
    assert got["maxmemory-policy"] == "noeviction"
    assert got["latency-tracking-info-percentiles"] == "50 99 99.9"
    assert got["client-output-buffer-limit"] == \
        "normal 0 0 0 slave 268435456 67108864 60 pubsub 33554432 8388608 60"
    assert got["proc-title-template"] == "{title} {listen-addr} {server-mode}"


def test_set_error_texts(r, restore_config):
    restore_config("hz", "maxmemory-clients", "hash-max-listpack-entries")
    assert error_reply(r, "CONFIG", "SET", "databases", "3") == \
        failed("databases", "can't set immutable config")
    assert error_reply(r, "CONFIG", "SET", "dir", "/tmp") == failed("dir", "can't set protected config")
    assert error_reply(r, "CONFIG", "SET", "hz", "abc", "nosuch", "1") == \
        "ERR Unknown option or number of arguments for CONFIG SET - 'nosuch'"
    assert error_reply(r, "CONFIG", "SET", "hz", "abc", "daemonize", "yes") == \
        failed("daemonize", "can't set immutable config")
    assert error_reply(r, "CONFIG", "SET", "hz", "1", "HZ", "2") == failed("HZ", "duplicate parameter")
    assert error_reply(r, "CONFIG", "SET", "hz", "1", "maxmemory") == "ERR syntax error"
    assert error_reply(r, "CONFIG", "SET", "hz") == \
        "ERR wrong number of arguments for 'config|set' command"
    assert error_reply(r, "CONFIG", "SET", "active-expire-effort", "11") == \
        failed("active-expire-effort", "argument must be between 1 and 10 inclusive")
    assert error_reply(r, "CONFIG", "SET", "hz", "05") == \
        failed("hz", "argument couldn't be parsed into an integer")
    assert error_reply(r, "CONFIG", "SET", "maxmemory", "1tb") == \
        failed("maxmemory", "argument must be a memory value")
    assert error_reply(r, "CONFIG", "SET", "maxmemory-clients", "101%") == \
        failed("maxmemory-clients", "percentage argument must be less or equal to 100")
    assert cmd(r, "CONFIG", "SET", "maxmemory-clients", "5%") == "OK"
    assert config_pairs(r, "maxmemory-clients") == [("maxmemory-clients", "5%")]
    assert error_reply(r, "CONFIG", "SET", "appendfsync", "sometimes") == \
        failed("appendfsync", "argument(s) must be one of the following: everysec, always, no")
    # An alias and its name are two parameters (no duplicate), applied in order.
    assert cmd(r, "CONFIG", "SET", "hash-max-ziplist-entries", "7", "hash-max-listpack-entries", "9") == "OK"
    assert config_pairs(r, "hash-max-ziplist-entries") == [("hash-max-ziplist-entries", "9")]
    # hz is kept within 1..500, as Redis does.
    assert cmd(r, "CONFIG", "SET", "hz", "100000") == "OK"
    assert config_pairs(r, "hz") == [("hz", "500")]


def test_set_rolls_back_everything(r, restore_config):
    restore_config("hz", "maxclients", "notify-keyspace-events")
    before = config_pairs(r, "hz", "maxclients", "notify-keyspace-events")
    assert error_reply(r, "CONFIG", "SET", "hz", "33", "notify-keyspace-events", "KEA",
                       "maxclients", "0") == \
        failed("maxclients", "argument must be between 1 and 4294967295 inclusive")
    assert config_pairs(r, "hz", "maxclients", "notify-keyspace-events") == before


@pytest.mark.hotkv_only
def test_refused_values_are_not_faked(r):
    assert "not implemented by HotKV" in error_reply(r, "CONFIG", "SET", "maxmemory-policy", "allkeys-lrm")


def test_maxclients_past_the_open_files_limit(r, restore_config):
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)  # the server inherited ours
    if hard == resource.RLIM_INFINITY or hard >= 100000000 + 32:
        pytest.skip("no open-files limit to run into")
    restore_config("maxclients", "hz")
    reply = error_reply(r, "CONFIG", "SET", "hz", "44", "maxclients", "100000000")
    assert reply == failed("maxclients", "The operating system is not able to handle the specified "
                                         f"number of clients, try with {hard - 32}")
    assert config_pairs(r, "hz") != [("hz", "44")]


def test_port_rebind(start_server):
    srv = start_server(hotkv_args=["--threads", "3"])
    c = srv.client()
    old = srv.port
    new = free_port()
    assert cmd(c, "CONFIG", "SET", "port", str(new)) == "OK"
    assert config_pairs(c, "port") == [("port", str(new))]
    assert c.ping()                                   # the connection it came on stays
    # Every worker listens on the new port: many fresh connections are all served.
    assert all(accepts(new) for _ in range(30))
    assert wait_until(lambda: not accepts(old)), "the old port still accepts"
    srv.port = new
    d = srv.client()
    assert d.set("k", "v") and d.get("k") == "v"
    assert cmd(d, "CONFIG", "SET", "port", str(old)) == "OK"
    srv.port = old
    assert all(accepts(old) for _ in range(30))
    d.close()
    c.close()


def test_port_rebind_failure_keeps_the_old_port(start_server):
    srv = start_server()
    c = srv.client()
    taken = socket.socket()
    taken.bind(("0.0.0.0", 0))
    taken.listen(1)
    try:
        port = taken.getsockname()[1]
        before = config_pairs(c, "hz")
        assert error_reply(c, "CONFIG", "SET", "hz", "31", "port", str(port)) == \
            failed("port", "Unable to listen on this port. Check server logs.")
        assert config_pairs(c, "hz") == before
        assert config_pairs(c, "port") == [("port", str(srv.port))]
        assert all(accepts(srv.port) for _ in range(10))
        # With bind first, the error is bind's.
        assert error_reply(c, "CONFIG", "SET", "bind", "127.0.0.1", "port", str(port)) == \
            failed("bind", "Failed to bind to specified addresses.")
    finally:
        taken.close()
    c.close()


def test_bind_rebind(start_server):
    srv = start_server(hotkv_args=["--threads", "2"])
    c = srv.client()
    assert error_reply(c, "CONFIG", "SET", "bind", "192.0.2.1") == \
        failed("bind", "Failed to bind to specified addresses.")
    assert error_reply(c, "CONFIG", "SET", "bind", "127.0.0.1 127.0.0.1") == \
        failed("bind", "Failed to bind to specified addresses.")
    assert config_pairs(c, "bind") == [("bind", "127.0.0.1")]
    assert all(accepts(srv.port) for _ in range(10))
    # "-addr" is optional: skipped where this host does not have it.
    assert cmd(c, "CONFIG", "SET", "bind", "-192.0.2.1 127.0.0.1") == "OK"
    assert config_pairs(c, "bind") == [("bind", "-192.0.2.1 127.0.0.1")]
    assert all(accepts(srv.port) for _ in range(20))
    assert cmd(c, "CONFIG", "SET", "bind", "* -::*") == "OK"
    assert all(accepts(srv.port) for _ in range(20))
    c.close()


def test_debug_follows_enable_debug_command(start_server):
    srv = start_server(args=["--enable-debug-command", "no"])
    c = srv.client()
    assert error_reply(c, "DEBUG", "SLEEP", "0") == (
        "ERR DEBUG command not allowed. If the enable-debug-command option is set to \"local\", "
        "you can run it from a local connection, otherwise you need to set this option in the "
        "configuration file, and then restart the server.")
    c.close()
    srv = start_server(args=["--enable-debug-command", "local"])
    c = srv.client()
    assert cmd(c, "DEBUG", "SLEEP", "0") == "OK"     # 127.0.0.1 is local
    c.close()


def test_protected_configs_when_enabled(start_server, tmp_path):
    srv = start_server(args=["--enable-protected-configs", "yes"])
    c = srv.client()
    assert cmd(c, "CONFIG", "SET", "dir", str(tmp_path)) == "OK"
    assert config_pairs(c, "dir") == [("dir", os.path.realpath(str(tmp_path)))]
    assert error_reply(c, "CONFIG", "SET", "dir", str(tmp_path / "missing")) == \
        failed("dir", "No such file or directory")
    assert error_reply(c, "CONFIG", "SET", "dbfilename", "a/b.rdb") == \
        failed("dbfilename", "dbfilename can't be a path, just a filename")
    c.close()


def base_args():
    return ["--port", str(free_port()), "--bind", "127.0.0.1"]


def test_start_up_error_format(tmp_path):
    conf = tmp_path / "bad.conf"
    conf.write_text("port 0\n\n  databases  \"1 2\" \n")
    rc, out = run_server_binary([str(conf)])
    assert rc == 1
    assert "Reading the configuration file, at line 3\n>>> 'databases  \"1 2\"'\n" \
           "argument couldn't be parsed into an integer\n" in out, out
    rc, out = run_server_binary(base_args() + ["--hz", "x"])
    assert rc == 1
    assert "at line 4\n>>> 'hz \"x\"'\nargument couldn't be parsed into an integer\n" in out, out
    rc, out = run_server_binary(base_args() + ["--maxmemory-policy", "lru"])
    assert rc == 1
    assert "argument(s) must be one of the following: volatile-lru, volatile-lfu" in out, out


@pytest.mark.redis8
def test_unknown_directive_as_redis_8(tmp_path):
    rc, out = run_server_binary(base_args() + ["--no-such-option", "1"])
    assert rc == 1
    assert "Unresolved Configuration(s) Detected:" in out, out
    assert ">>> 'no-such-option 1'" in out, out
    assert "Module Configuration detected without loadmodule directive or no ApplyConfig call: " \
           "aborting" in out, out


def test_config_file_include_and_redis_conf_directives(start_server, tmp_path):
    inner = tmp_path / "inner.conf"
    inner.write_text("hz 21\nslave-read-only no\n")
    srv = start_server(config_text=f"include {inner}\n"
                                   "list-max-ziplist-size -3\nio-threads-do-reads yes\n")
    c = srv.client()
    assert dict(config_pairs(c, "hz", "replica-read-only", "list-max-listpack-size")) == {
        "hz": "21", "replica-read-only": "no", "list-max-listpack-size": "-3"}
    c.close()


@pytest.mark.hotkv_only
def test_config_rewrite(start_server, tmp_path):
    srv = start_server(config_text="# keep me\nhz 5\nsave 3600 1\nmaxmemory 1mb\n")
    c = srv.client()
    assert cmd(c, "CONFIG", "SET", "hz", "20", "maxclients", "99", "notify-keyspace-events",
               "KEA", "save", "60 5 30 7", "client-output-buffer-limit", "pubsub 1mb 1mb 0") == "OK"
    assert cmd(c, "CONFIG", "REWRITE") == "OK"
    path = [p for p in os.listdir(tmp_path) if p.startswith("server-")][0]
    text = (tmp_path / path).read_text().splitlines()
    assert text[0] == "# keep me"
    # As Redis writes them: memory in units, one save line per pair, strings quoted, one
    # output-buffer line per class not at its default.
    assert text[1:5] == ["hz 20", "save 60 5", "save 30 7", "maxmemory 1mb"]
    assert text[5:7] == ["", "# Generated by CONFIG REWRITE"]
    assert "maxclients 99" in text and 'notify-keyspace-events "AKE"' in text
    assert "client-output-buffer-limit pubsub 1mb 1mb 0" in text
    assert not any(line.startswith("threads") for line in text)
    # The rewritten file starts a server with the same settings.
    srv.stop()
    srv2 = start_server(config_text=(tmp_path / path).read_text())
    c2 = srv2.client()
    assert config_pairs(c2, "hz", "maxclients", "save", "client-output-buffer-limit") == [
        ("hz", "20"), ("maxclients", "99"), ("save", "60 5 30 7"),
        ("client-output-buffer-limit",
         "normal 0 0 0 slave 268435456 67108864 60 pubsub 1048576 1048576 0")]
    c2.close()


@pytest.mark.hotkv_only
def test_readme_documents_every_parameter(r):
    """README's parameter table has one row per parameter (hidden ones included)."""
    with open(os.path.join(ROOT, "README.md")) as f:
        readme = f.read()
    documented = set()
    for line in readme.splitlines():
        cells = line.split("|")
        if len(cells) > 3 and re.match(r"^ `[a-z0-9_-]+`", cells[1]):
            documented.update(re.findall(r"`([a-z0-9_-]+)`", cells[1] + cells[2]))
    names = {n for n, _ in config_pairs(r, "*")}
    for hidden in ("key-load-delay", "rdb-key-save-delay", "loading-process-events-interval-bytes",
                   "watchdog-period", "prefetch-batch-max-size", "repl-rdb-channel"):
        assert config_pairs(r, hidden), hidden
        names.add(hidden)
    missing = names - documented
    assert not missing, sorted(missing)
