"""The Lua debugger (SCRIPT DEBUG SYNC / YES and Redis's LDB protocol), driven over raw
RESP as redis-cli --ldb does, and once through redis-cli --ldb-sync-mode itself.

The expected lines are Redis's (checked with HOTKV_SERVER=/usr/bin/redis-server and
/work/shared/peers/redis-8.8/redis-server). Tests marked hotkv_only cover what HotKV does
differently while a session waits (other clients get -BUSY instead of hanging)."""

import os
import subprocess

import pytest
import redis

from conftest import IS_REDIS, RespError, wait_until

REDIS_CLI = "/usr/bin/redis-cli"
_open = []


@pytest.fixture(autouse=True)
def close_sessions():
    """A failed test must not leave a session waiting (Redis's SYNC session blocks the
    whole server, and the shared server's teardown with it)."""
    yield
    while _open:
        _open.pop().close()


def start_session(server, script, keys=(), args=(), mode="SYNC"):
    """A raw connection in SCRIPT DEBUG `mode` that sent EVAL; returns it and the first
    reply (the first stop's log lines)."""
    c = server.raw()
    _open.append(c)
    assert c.command("SCRIPT", "DEBUG", mode) == "OK"
    c.send_command("EVAL", script, len(keys), *keys, *args)
    return c, c.read_reply()


def finish(c, *cmd):
    """Sends a command that ends the session; returns (log lines, EVAL's reply) and checks
    that the server closes the connection, as Redis ends a debugging session."""
    c.send_command(*cmd)
    logs = c.read_reply()
    reply = c.read_reply()
    assert c.closed_by_server()
    return logs, reply


STEP_SCRIPT = "\n".join([
    "local a = 1",
    "local t = {1, 'x'}",
    "redis.call('set', KEYS[1], ARGV[1])",
    "return a",
])


def test_step_print_list_and_continue(server, r):
    c, first = start_session(server, STEP_SCRIPT, keys=["k"], args=["v"])
    assert first == ["* Stopped at 1, stop reason = step over", "-> 1   local a = 1"]
    assert c.command("s") == ["* Stopped at 2, stop reason = step over",
                              "-> 2   local t = {1, 'x'}"]
    assert c.command("next") == ["* Stopped at 3, stop reason = step over",
                                 "-> 3   redis.call('set', KEYS[1], ARGV[1])"]
    assert c.command("print") == ["<value> a = 1", '<value> t = {1; "x"}']
    assert c.command("p", "a") == ["<value> 1"]
    assert c.command("p", "KEYS") == ['<value> {"k"}']
    assert c.command("p", "nope") == ["No such variable."]
    # Stepping over redis.call logs the command and its reply.
    assert c.command("step") == ["<redis> set k v", '<reply> "+OK"',
                                 "* Stopped at 4, stop reason = step over", "-> 4   return a"]
    assert c.command("list", "1", "1") == ["   1   local a = 1", "   2   local t = {1, 'x'}"]
    assert c.command("l") == ["   1   local a = 1", "   2   local t = {1, 'x'}",
                              "   3   redis.call('set', KEYS[1], ARGV[1])", "-> 4   return a"]
    assert c.command("whole") == c.command("list", "0", "1000000")
    logs, reply = finish(c, "c")
    assert logs == ["<endsession>"]
    assert reply == 1
    assert r.get("k") == "v"  # SYNC keeps the changes


BREAK_SCRIPT = "\n".join([
    "local x = 0",
    "for i = 1, 3 do",
    "  x = x + i",
    "end",
    "redis.debug('x is', x, {1, 2})",
    "redis.breakpoint()",
    "return x",
])


def test_breakpoints_debug_and_lua_breakpoint(server, r):
    c, first = start_session(server, BREAK_SCRIPT)
    assert first[0] == "* Stopped at 1, stop reason = step over"
    assert c.command("b") == ["No breakpoints set. Use 'b <line>' to add one."]
    assert c.command("b", "3") == ["   2   for i = 1, 3 do", "  #3     x = x + i", "   4   end"]
    assert c.command("b", "99") == ["Wrong line number."]
    assert c.command("b", "x1") == ["Invalid argument:'x1'"]
    assert c.command("break") == ["1 breakpoints set:", "  #3     x = x + i"]
    assert c.command("c") == ["* Stopped at 3, stop reason = break point", "->#3     x = x + i"]
    assert c.command("p", "x") == ["<value> 0"]
    assert c.command("c") == ["* Stopped at 3, stop reason = break point", "->#3     x = x + i"]
    assert c.command("p", "x") == ["<value> 1"]
    assert c.command("b", "-3") == ["Breakpoint removed."]
    assert c.command("b", "-3") == ["No breakpoint in the specified line."]
    assert c.command("b", "4", "0") == ["-> 3     x = x + i", "  #4   end", "   5   redis.debug('x is', x, {1, 2})",
                                        "All breakpoints removed."]
    # redis.debug's line comes with the next stop; redis.breakpoint() stops at the next line.
    assert c.command("c") == ['<debug> line 5: "x is", 6, {1; 2}',
                              "* Stopped at 7, stop reason = redis.breakpoint() called",
                              "-> 7   return x"]
    logs, reply = finish(c, "continue")
    assert logs == ["<endsession>"] and reply == 6


FUNC_SCRIPT = "\n".join([
    "local function double(n)",
    "  redis.breakpoint()",
    "  return n * 2",
    "end",
    "local r = double(21)",
    "return r",
])


def test_trace_eval_redis_maxlen_help(server, r):
    c, first = start_session(server, FUNC_SCRIPT)
    assert first[0].startswith("* Stopped at ")
    assert c.command("c") == ["* Stopped at 3, stop reason = redis.breakpoint() called",
                              "-> 3     return n * 2"]
    assert c.command("t") == ["In double:", "-> 3     return n * 2",
                              "From top level:", "   5   local r = double(21)"]
    assert c.command("e", "1", "+", "1") == ["<retval> 2"]
    assert c.command("eval", "{1, 'a'}") == ['<retval> {1; "a"}']
    assert c.command("e", "error('boom')")[0].startswith("<error> ")
    assert c.command("r", "set", "foo", "bar") == ["<redis> set foo bar", '<reply> "+OK"']
    assert c.command("redis", "incr", "foo")[0:1] == ["<redis> incr foo"]
    assert c.command("r", "get", "foo") == ["<redis> get foo", '<reply> "bar"']
    assert c.command("r", "get", "nokey") == ["<redis> get nokey", "<reply> NULL"]
    assert c.command("maxlen") == ["<value> replies are truncated at 256 bytes."]
    assert c.command("m", "10") == ["<value> replies are truncated at 60 bytes."]
    c.command("r", "set", "big", "x" * 100)  # (Redis's SYNC session blocks other clients)
    assert c.command("r", "get", "big") == ["<redis> get big", '<reply> "' + "x" * 51 + " ..."]
    assert c.command("maxlen", "0") == ["<value> replies are unlimited."]
    assert c.command("r", "get", "big") == ["<redis> get big", '<reply> "' + "x" * 100 + '"']
    unknown = ["<error> Unknown Redis Lua debugger command or wrong number of arguments."]
    assert c.command("r") == unknown
    assert c.command("frobnicate") == unknown
    helptext = c.command("h")
    assert helptext[0] == "Redis Lua debugger help:"
    assert "[a]bort              Stop the execution of the script. In sync" in helptext
    logs, reply = finish(c, "c")
    assert logs == ["<endsession>"] and reply == 42


def test_abort(server, r):
    c, first = start_session(server, STEP_SCRIPT, keys=["k"], args=["v"])
    assert c.command("s")[0] == "* Stopped at 2, stop reason = step over"
    logs, reply = finish(c, "abort")
    assert logs == ["<endsession>"]
    assert isinstance(reply, RespError)
    assert reply.startswith("ERR script aborted for user request")
    assert r.get("k") is None


def test_errors_are_logged_while_stepping(server, r):
    c, _ = start_session(server, "local ok = redis.pcall('nosuchcommand')\nreturn ok")
    logs = c.command("s")
    assert logs[0] == "<redis> nosuchcommand"
    assert logs[1].startswith("<error> ")
    assert "Unknown Redis command called from script" in logs[1]
    finish(c, "c")


def test_script_debug_modes_and_errors(server, r):
    c = server.raw()
    assert c.command("SCRIPT", "DEBUG", "maybe") == "ERR Use SCRIPT DEBUG YES/SYNC/NO"
    assert c.command("SCRIPT", "DEBUG") == \
        "ERR wrong number of arguments for 'script|debug' command"
    assert c.command("MULTI") == "OK"
    assert c.command("SCRIPT", "DEBUG", "SYNC") == "QUEUED"
    assert c.command("EXEC") == ["ERR SCRIPT DEBUG must be called outside a pipeline"]
    c.send(b"PING\r\nSCRIPT DEBUG SYNC\r\n")
    assert c.read_reply() == "PONG"
    assert c.read_reply() == "ERR SCRIPT DEBUG must be called outside a pipeline"
    # NO turns it off again: EVAL runs normally and the connection stays.
    assert c.command("SCRIPT", "DEBUG", "SYNC") == "OK"
    assert c.command("SCRIPT", "DEBUG", "NO") == "OK"
    assert c.command("EVAL", "return 5", "0") == 5
    assert c.command("SCRIPT", "DEBUG", "SYNC") == "OK"
    sha = r.script_load("return 1")
    assert c.command("EVALSHA", sha, "0") == "ERR Please use EVAL instead of EVALSHA for debugging"
    # An EVAL that fails before running still ends the session.
    c.send_command("EVAL", "return 1", "-1")
    assert c.read_reply() == ["<endsession>"]
    assert c.read_reply() == "ERR Number of keys can't be negative"
    assert c.closed_by_server()
    c, first = start_session(server, "return +")
    assert first == ["<endsession>"]
    err = c.read_reply()
    assert isinstance(err, RespError) and err.startswith("ERR Error compiling script")
    assert c.closed_by_server()


def test_breakpoint_and_debug_outside_a_session(r):
    assert r.eval("return redis.breakpoint()", 0) is None  # false -> nil
    assert r.eval("return {redis.debug('x', 1)}", 0) == []


def test_client_gone_lets_the_script_finish(server, r):
    c, first = start_session(server, STEP_SCRIPT, keys=["k"], args=["v"])
    assert first[0] == "* Stopped at 1, stop reason = step over"
    c.close()

    def done():
        try:
            return r.get("k") == "v"
        except redis.ResponseError as e:  # HotKV: -BUSY until the session sees the close
            assert str(e).startswith("BUSY ")
            return False
    assert wait_until(done, timeout=10)
    assert r.ping()


@pytest.mark.hotkv_only
@pytest.mark.parametrize("backend", ["io_uring", "epoll"])
def test_others_get_busy_while_a_session_waits(start_server, backend):
    """Redis's SYNC session blocks the whole server; HotKV serves the others while it
    waits: commands on the session's shards (any shard on its own worker) get -BUSY, and
    SCRIPT KILL ends a session that has not written."""
    srv = start_server(hotkv_args=["--threads", "1", "--io-backend", backend])
    other = srv.raw()
    c, first = start_session(srv, "local v = redis.call('get', KEYS[1])\nreturn v", keys=["k"])
    assert first[0] == "* Stopped at 1, stop reason = step over"
    busy = other.command("GET", "k")
    assert isinstance(busy, RespError) and busy.startswith("BUSY ")
    assert c.command("p") == ["No local variables in the current context."]
    assert other.command("SCRIPT", "KILL") == "OK"
    logs = c.read_reply()
    assert logs == ["<endsession>"]
    err = c.read_reply()
    assert isinstance(err, RespError) and err.startswith("ERR Script killed by user")
    assert c.closed_by_server()
    assert other.command("GET", "k") is None


@pytest.mark.hotkv_only
def test_yes_mode_runs_as_sync_with_a_hint(server, r):
    c, first = start_session(server, STEP_SCRIPT, keys=["k"], args=["v"], mode="YES")
    assert first[:2] == ["* Stopped at 1, stop reason = step over", "-> 1   local a = 1"]
    assert first[2].startswith("<hint> HotKV runs SCRIPT DEBUG YES as SYNC")
    logs, reply = finish(c, "c")
    assert reply == 1 and r.get("k") == "v"


@pytest.mark.skipif(not os.path.exists(REDIS_CLI), reason="needs redis-cli")
def test_redis_cli_ldb_sync_mode(server, r, tmp_path):
    path = tmp_path / "script.lua"
    path.write_text("local n = redis.call('incr', KEYS[1])\nreturn n * 10\n")
    out = subprocess.run(
        [REDIS_CLI, "-p", str(server.port), "--ldb-sync-mode", "--eval", str(path), "cnt"],
        input="step\nprint\ncontinue\n", capture_output=True, text=True, timeout=20)
    text = out.stdout
    assert "* Stopped at 1, stop reason = step over" in text
    assert "<redis> incr cnt" in text
    assert "<value> n = 1" in text
    assert "(integer) 10" in text
    assert r.get("cnt") == "1"


LOOP_SCRIPT = "local i = 0\nwhile true do\n  i = i + 1\nend"


def test_timeout_stop_protocol_error_and_gone_client(start_server):
    """A script running past busy-reply-threshold without a stop stops ("timeout
    reached"); input that is not RESP fails the script ("protocol error"); a client that
    goes away at a timeout stop gets its script stopped (the server then answers)."""
    srv = start_server(hotkv_args=["--threads", "1"])
    admin = srv.raw()
    assert admin.command("CONFIG", "SET", "busy-reply-threshold", "100") == "OK"
    c, first = start_session(srv, LOOP_SCRIPT)
    assert first == ["* Stopped at 1, stop reason = step over", "-> 1   local i = 0"]
    assert c.command("c") == ["* Stopped at 3, stop reason = timeout reached, infinite loop?",
                              "-> 3     i = i + 1"]
    assert c.command("p")[0].startswith("<value> i = ")
    c.send(b"garbage\r\n")
    assert c.read_reply() == ["<endsession>"]
    err = c.read_reply()
    assert isinstance(err, RespError) and err.startswith("ERR protocol error script: ")
    assert c.closed_by_server()
    c, first = start_session(srv, LOOP_SCRIPT)
    assert c.command("c")[0] == "* Stopped at 3, stop reason = timeout reached, infinite loop?"
    c.close()
    # The session's worker notices the closed connection at its next poll; until then
    # others still get -BUSY.
    assert wait_until(lambda: admin.command("PING") == "PONG", timeout=10)


def test_resp3_replies_and_values_as_redis_shows_them(server, r):
    script = "\n".join([
        "redis.setresp(3)",
        "redis.call('hset', KEYS[1], 'a', '1')",
        "local m = redis.call('hgetall', KEYS[1])",
        "local z = redis.call('get', 'nokey')",
        "return 1",
    ])
    c, first = start_session(server, script, keys=["h"])
    assert first[0] == "* Stopped at 1, stop reason = step over"
    c.command("s")
    assert c.command("s")[:2] == ["<redis> hset h a 1", "<reply> 1"]
    assert c.command("s")[:2] == ["<redis> hgetall h", '<reply> {"a" => "1"}']
    assert c.command("s")[:2] == ["<redis> get nokey", "<reply> (null)"]
    assert c.command("r", "sadd", "s", "x") == ["<redis> sadd s x", "<reply> 1"]
    assert c.command("r", "smembers", "s") == ["<redis> smembers s", '<reply> ~("x")']
    assert c.command("e", "'a\\tb\\1'") == ['<retval> "a\\tb\\x01"']
    logs, reply = finish(c, "c")
    assert reply == 1
