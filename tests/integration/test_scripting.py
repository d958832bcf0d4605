"""Lua scripting: EVAL, EVALSHA, EVAL_RO, EVALSHA_RO, SCRIPT LOAD/EXISTS/FLUSH/HELP.

Replies and error texts are those of Redis 8.8 (checked against it by hand: the same file
runs against a Redis with HOTKV_SERVER pointing at it). Conversion tables: RESP2 through
redis-py, RESP3 through a raw socket after HELLO 3 (redis-py 4.3.4 speaks RESP2 only).
Atomicity, BUSY / SCRIPT KILL and AOF replay: test_scripting_atomic.py.
"""
import hashlib
import socket

import pytest
import redis

from conftest import cmd, error_reply


def sha(body):
    return hashlib.sha1(body.encode()).hexdigest()


def err(r, script, *args):
    """The complete error line EVAL of `script` with numkeys 0 (then args) replies."""
    return error_reply(r, "EVAL", script, *(args or ("0",)))


def suffix(script, line=1):
    return f" script: {sha(script)}, on @user_script:{line}."


# --- RESP2 conversion (Lua -> reply), redis-py parses ---

@pytest.mark.parametrize("script,expected", [
    ("return 1", 1),
    ("return 3.99", 3),
    ("return -3.9", -3),
    ("return 'abc'", "abc"),
    ("return true", 1),
    ("return false", None),
    ("return nil", None),
    ("return {1,2,3.7,'a',false,nil,5}", [1, 2, 3, "a", None]),
    ("return {1,{2,{3}}}", [1, [2, [3]]]),
    ("return {ok='fine'}", "fine"),
    ("return redis.status_reply('S')", "S"),
    ("return {1, {ok='st'}, 3}", [1, "st", 3]),
    ("return {double=3.5}", "3.5"),
    ("return {map={a=1}}", ["a", 1]),
    ("return {big_number='123'}", "123"),
    ("return redis.call('ping')", "PONG"),
    ("return table.getn({1,2})", 2),
    ("return string.format('%d', 1)", "1"),
    ("return tostring(math.huge)", "inf"),
    ("return bit.band(7,3)", 3),
    ("return cjson.encode({1,2})", "[1,2]"),
    ("return cjson.decode('[1,2,{\"a\":3}]')[3].a", 3),
    ("return ('abc'):upper()", "ABC"),
    ("return getmetatable('').__index == string", 1),
    ("return redis.sha1hex('')", "da39a3ee5e6b4b0d3255bfef95601890afd80709"),
    ("return redis.replicate_commands()", 1),
    ("return redis.set_repl(redis.REPL_ALL)", None),
    ("return redis.breakpoint()", None),
    ("return redis.debug('x')", None),
    ("return redis.log(redis.LOG_WARNING, 'hi')", None),
    ("return {redis.LOG_DEBUG, redis.LOG_VERBOSE, redis.LOG_NOTICE, redis.LOG_WARNING, redis.REPL_ALL,"
     " redis.REPL_AOF, redis.REPL_SLAVE, redis.REPL_REPLICA, redis.REPL_NONE}", [0, 1, 2, 3, 3, 1, 2, 2, 0]),
    ("return type(redis.REDIS_VERSION_NUM)", "number"),
    ("return loadstring", None),
    ("local t = {} t.x = 1 return t.x", 1),
    ("return {redis.call('get', 'nokey') == false}", [1]),
    ("local t = redis.pcall('nosuchcmd') return t['err']", "ERR Unknown Redis command called from script"),
    ("return redis.error_reply('noprefix')['err']", "ERR noprefix"),
    ("return redis.error_reply('E1 x')['err']", "E1 x"),
    ("local ok, e = pcall(redis.call, 'nosuch') return {type(e), e}",
     ["string", "ERR Unknown Redis command called from script"]),
    ("local ok, e = pcall(error, 'x') return e", "x"),
    ("return coroutine.running()", None),
])
def test_lua_to_resp2(r, script, expected):
    assert cmd(r, "EVAL", script, "0") == expected


def test_keys_and_argv(r):
    assert r.eval("return {KEYS[1], KEYS[2], ARGV[1], ARGV[2], #KEYS, #ARGV}", 2, "k1", "k2", "a", "b") == \
        ["k1", "k2", "a", "b", 2, 2]
    assert r.eval("return {#KEYS, #ARGV}", 0) == [0, 0]


def test_resp_to_lua_rules(r):
    r.hset("h", "f", "v")
    r.rpush("l", "a", "b")
    r.set("s", "5")
    assert r.eval("return redis.call('hgetall', KEYS[1])", 1, "h") == ["f", "v"]
    assert r.eval("return redis.call('lrange', KEYS[1], 0, -1)", 1, "l") == ["a", "b"]
    assert r.eval("return redis.call('incr', KEYS[1]) + 1", 1, "s") == 7
    assert r.eval("return type(redis.call('set', KEYS[1], 'x'))", 1, "s") == "table"
    assert r.eval("return redis.call('set', KEYS[1], 'x')['ok']", 1, "s") == "OK"
    assert r.eval("return type(redis.call('get', 'missing'))", 0) == "boolean"
    assert r.eval("return redis.pcall('incr', KEYS[1])['err']", 1, "h") == \
        "WRONGTYPE Operation against a key holding the wrong kind of value"


@pytest.mark.redis8  # 7.0 printed numbers with "%.17g"
def test_numeric_arguments_are_formatted_as_redis(r):
    r.eval("redis.call('set','n', 1/3) redis.call('set','m',123456789012345678)"
           " redis.call('set','o', 1e300) redis.call('set','f', 3.5)", 0)
    assert r.mget("n", "m", "o", "f") == ["0.3333333333333333", "123456789012345680", "1e+300", "3.5"]


# --- errors ---

@pytest.mark.parametrize("script,message", [
    ("return redis.call('nosuch')", "ERR Unknown Redis command called from script"),
    ("return redis.call('get')", "ERR Wrong number of args calling Redis command from script"),
    ("return redis.call('get',{})", "ERR Lua redis lib command arguments must be strings or integers"),
    ("return redis.call()", "ERR Please specify at least one argument for this redis lib call"),
    ("return redis.call('PING','a','b','c')", "ERR wrong number of arguments for 'ping' command"),
    ("return redis.call('eval','return 1',0)", "ERR This Redis command is not allowed from script"),
    ("return redis.call('subscribe','c')", "ERR This Redis command is not allowed from script"),
    ("redis.call('set','k','v') return redis.call('incr','k')", "ERR value is not an integer or out of range"),
    ("x=1", "ERR user_script:1: Attempt to modify a readonly table"),
    ("redis = 1", "ERR user_script:1: Attempt to modify a readonly table"),
    ("redis.call = 1", "ERR user_script:1: Attempt to modify a readonly table"),
    ("string.foo = 1", "ERR user_script:1: Attempt to modify a readonly table"),
    ("setmetatable(_G, nil)", "ERR Attempt to modify a readonly table"),
    ("rawset(_G, 'z', 1)", "ERR Attempt to modify a readonly table"),
    ("return y", "ERR user_script:1: Script attempted to access nonexistent global variable 'y'"),
    ("print('x')", "ERR user_script:1: Script attempted to access nonexistent global variable 'print'"),
    ("return io", "ERR user_script:1: Script attempted to access nonexistent global variable 'io'"),
    ("return dofile", "ERR user_script:1: Script attempted to access nonexistent global variable 'dofile'"),
    ("return require", "ERR user_script:1: Script attempted to access nonexistent global variable 'require'"),
    ("return debug", "ERR user_script:1: Script attempted to access nonexistent global variable 'debug'"),
    ("error('boom')", "ERR user_script:1: boom"),
    ("error({err='XX y'})", "XX y"),
    ("error(redis.error_reply('E2 z'))", "E2 z"),
    ("error(123)", "ERR user_script:1: 123"),
    ("error()", "ERR nil"),
    pytest.param("error({})", "ERR unknown error", marks=pytest.mark.redis8),  # crashes 7.0
    ("error('x', 0)", "ERR x"),
    ("return redis.sha1hex()", "ERR wrong number of arguments"),
    ("return redis.log()", "ERR redis.log() requires two arguments or more."),
    ("return redis.setresp(4)", "ERR RESP version must be 2 or 3."),
    ("return redis.set_repl(99)",
     "ERR Invalid replication flags. Use REPL_AOF, REPL_REPLICA, REPL_ALL or REPL_NONE."),
])
def test_script_errors(r, script, message):
    assert err(r, script) == message + suffix(script)


def test_error_line_numbers(r):
    s = "local function f()\n  error('deep')\nend\nf()"
    assert err(r, s) == "ERR user_script:2: deep" + suffix(s, 2)


@pytest.mark.parametrize("script,message", [
    ("return {err='My Err'}", "My Err"),
    ("return redis.error_reply('E1 x')", "E1 x"),
    ("return redis.error_reply('noprefix')", "ERR noprefix"),
    ("return redis.status_reply()", "ERR wrong number or type of arguments"),
    ("return redis.error_reply()", "ERR wrong number or type of arguments"),
    ("return redis.pcall('nosuch')", "ERR Unknown Redis command called from script"),
    ("syntax err(", "ERR Error compiling script (new function): user_script:1: '=' expected near 'err'"),
])
def test_error_replies_without_position(r, script, message):
    assert err(r, script) == message


def test_error_inside_array(r):
    assert cmd(r, "EVAL", "return {1, {err='inner'}, 3}", "0")[0] == 1
    reply = cmd(r, "EVAL", "return {1, {err='inner'}, 3}", "0")
    assert isinstance(reply[1], redis.ResponseError) and str(reply[1]) == "inner"


def test_numkeys_errors(r):
    assert error_reply(r, "EVAL", "return 1", "-1") == "ERR Number of keys can't be negative"
    assert error_reply(r, "EVAL", "return 1", "3", "a") == \
        "ERR Number of keys can't be greater than number of args"
    assert error_reply(r, "EVAL", "return 1", "x") == "ERR value is not an integer or out of range"
    assert error_reply(r, "EVAL", "return 1") == "ERR wrong number of arguments for 'eval' command"


@pytest.mark.parametrize("script,expected", [
    ("local n=0 for k,v in pairs(string) do n=n+1 end return n", 15),
    ("local t={} for k in pairs(math) do t[#t+1]=k end table.sort(t) return table.concat(t, ' ')",
     "abs acos asin atan atan2 ceil cos cosh deg exp floor fmod frexp huge ldexp log log10 max "
     "min mod modf pi pow rad random randomseed sin sinh sqrt tan tanh"),
    # (Redis's cjson adds decode_array_with_array_mt, which Debian's lua-cjson lacks)
    ("local n=0 for k,v in pairs(cjson) do if k == 'encode' or k == 'decode' or k == 'null' "
     "then n=n+1 end end return n", 3),
    ("local n=0 for k,v in pairs(os) do n=n+1 end return n", 1),
    ("local n=0 for k,v in pairs(redis) do if type(v) == 'function' then n=n+1 end end "
     "return n > 10", 1),
    ("local n=0 for k,v in pairs(_G) do if k == 'redis' or k == 'KEYS' then n=n+1 end end return n", 2),
    ("return type(next(string))", "string"),
    ("return type(rawget(string, 'len'))", "function"),
    ("local n=0 for i,v in ipairs(string) do n=n+1 end return n", 0),
    ("local n=0 for k,v in pairs({a=1,b=2,3}) do n=n+1 end return n", 3),
    ("return next({})", None),
])
def test_library_tables_are_iterable(r, script, expected):
    # Redis 7+'s read-only tables are real tables: pairs, next and rawget see their contents.
    assert r.eval(script, 0) == expected


# --- EVALSHA and SCRIPT ---

def test_evalsha_and_script_commands(r):
    body = "return 'cached ' .. ARGV[1]"
    h = sha(body)
    r.script_flush()
    assert error_reply(r, "EVALSHA", h, "0") == "NOSCRIPT No matching script. Please use EVAL."
    assert error_reply(r, "EVALSHA", "fff", "0") == "NOSCRIPT No matching script. Please use EVAL."
    assert r.script_exists(h) == [False]
    assert r.script_load(body) == h
    assert cmd(r, "SCRIPT", "EXISTS", h, "f" * 40) == [1, 0]
    assert cmd(r, "EVALSHA", h, "0", "x") == "cached x"
    assert cmd(r, "EVALSHA", h.upper(), "0", "y") == "cached y"
    assert cmd(r, "EVALSHA_RO", h, "0", "z") == "cached z"
    # EVAL caches its script too.
    other = "return 2"
    assert r.eval(other, 0) == 2
    assert cmd(r, "SCRIPT", "EXISTS", sha(other)) == [1]
    assert cmd(r, "SCRIPT", "FLUSH") == "OK"
    assert cmd(r, "SCRIPT", "EXISTS", h, sha(other)) == [0, 0]
    assert cmd(r, "SCRIPT", "FLUSH", "ASYNC") == "OK"
    assert cmd(r, "SCRIPT", "FLUSH", "sync") == "OK"
    assert error_reply(r, "SCRIPT", "FLUSH", "foo") == "ERR SCRIPT FLUSH only support SYNC|ASYNC option"
    assert error_reply(r, "SCRIPT", "FLUSH", "async", "sync") == \
        "ERR SCRIPT FLUSH only support SYNC|ASYNC option"
    assert error_reply(r, "SCRIPT", "EXISTS") == "ERR wrong number of arguments for 'script|exists' command"
    assert error_reply(r, "SCRIPT", "LOAD", "x(") == \
        "ERR Error compiling script (new function): user_script:1: unexpected symbol near '<eof>'"
    assert error_reply(r, "SCRIPT", "KILL") == "NOTBUSY No scripts in execution right now."
    assert error_reply(r, "SCRIPT", "foo") == "ERR unknown subcommand 'foo'. Try SCRIPT HELP."
    help_lines = cmd(r, "SCRIPT", "HELP")
    assert help_lines[0].startswith("SCRIPT <subcommand>") and "KILL" in help_lines


def test_script_flush_then_eval_recompiles(r):
    assert r.eval("return 10", 0) == 10
    r.script_flush()
    assert r.eval("return 10", 0) == 10


# --- shebang flags and read-only scripts ---

def test_read_only_scripts_refuse_writes(r):
    s = "return redis.call('set','a','b')"
    assert error_reply(r, "EVAL_RO", s, "0") == \
        "ERR Write commands are not allowed from read-only scripts." + suffix(s)
    s2 = "#!lua flags=no-writes\nreturn redis.call('set','a','b')"
    assert error_reply(r, "EVAL", s2, "0") == \
        "ERR Write commands are not allowed from read-only scripts." + suffix(s2, 2)
    r.set("a", "1")
    assert cmd(r, "EVAL_RO", "return redis.call('get', KEYS[1])", "1", "a") == "1"


def test_read_only_scripts_refuse_may_replicate_commands(r, rb):
    """Redis refuses may-replicate commands in read-only runs as writes
    (scriptVerifyWriteCommandAllow): PFCOUNT (which caches its count in the HLL) and
    PUBLISH, in EVAL_RO, EVALSHA_RO, no-writes scripts, FCALL_RO and FCALL of a no-writes
    function. The HLL is left as it was. A script that may write runs PFCOUNT, and the
    count is cached as by a plain PFCOUNT (the bytes equal a twin key's). Lock mode:
    tests/unit/scripting/script_lock_mode_test.cc."""
    body = "return redis.call('pfcount', KEYS[1])"
    r.execute_command("FUNCTION", "LOAD", "REPLACE",
                      "#!lua name=rohll\nredis.register_function{function_name='rohll_cnt', "
                      "callback=function(k) return redis.call('pfcount', k[1]) end, "
                      "flags={'no-writes'}}")
    msg = "ERR Write commands are not allowed from read-only scripts."
    r.pfadd("h", "a", "b", "c")
    before = rb.get("h")
    fn = " script: rohll_cnt, on @user_function:2."
    for call, tail in [(("EVAL_RO", body, "1", "h"), suffix(body)),
                       (("EVALSHA_RO", r.script_load(body), "1", "h"), suffix(body)),
                       (("EVAL", "#!lua flags=no-writes\n" + body, "1", "h"),
                        suffix("#!lua flags=no-writes\n" + body, 2)),
                       (("FCALL_RO", "rohll_cnt", "1", "h"), fn),
                       (("FCALL", "rohll_cnt", "1", "h"), fn)]:
        assert error_reply(r, *call) == msg + tail, call[0]
    assert error_reply(r, "EVAL_RO", "return redis.pcall('pfcount', KEYS[1])", "1", "h") == msg
    s = "return redis.call('publish', 'ch', 'm')"
    assert error_reply(r, "EVAL_RO", s, "0") == msg + suffix(s)
    assert rb.get("h") == before
    r.pfadd("twin", "a", "b", "c")
    assert cmd(r, "EVAL", body, "1", "h") == 3
    assert r.pfcount("twin") == 3
    assert rb.get("h") == rb.get("twin") != before
    r.execute_command("FUNCTION", "DELETE", "rohll")


def test_shebang(r):
    s = "#!lua\nerror('x')"
    assert err(r, s) == "ERR user_script:2: x" + suffix(s, 2)
    assert cmd(r, "EVAL", "#!lua flags=\nreturn 1", "0") == 1
    assert cmd(r, "EVAL", "#!lua flags=no-writes,allow-oom,allow-stale,no-cluster,allow-cross-slot-keys\n"
                          "return 1", "0") == 1
    assert err(r, "#!lua flags=bad\nreturn 1") == "ERR Unexpected flag in script shebang: bad"
    assert err(r, "#!lua    flags=no-writes,,allow-oom\nreturn 1") == "ERR Unexpected flag in script shebang: "
    assert err(r, "#!luax\nreturn 1") == "ERR Unexpected engine in script shebang: #!luax"
    assert err(r, "#!lua foo=bar\nreturn 1") == "ERR Unknown lua shebang option: foo=bar"


# --- commands inside scripts ---

def test_select_inside_script_stays_inside(r):
    assert r.eval("redis.call('select','1') redis.call('set','dbk','x') return redis.call('get','dbk')", 0) == "x"
    assert r.get("dbk") is None
    r.execute_command("SELECT", 1)
    assert r.get("dbk") == "x"


def test_keyspace_commands_inside_scripts(r):
    r.mset({"ka": 1, "kb": 2})
    assert sorted(r.eval("return redis.call('keys','k*')", 0)) == ["ka", "kb"]
    assert r.eval("return redis.call('dbsize')", 0) == 2


def test_script_in_multi(r):
    p = r.pipeline(transaction=True)
    p.eval("return redis.call('incr', KEYS[1])", 1, "c")
    p.eval("return redis.call('incr', KEYS[1])", 1, "c")
    p.eval("return redis.call('incr', 'undeclared')", 0)
    assert p.execute() == [1, 2, 1]


def test_watch_is_invalidated_by_a_script_write(server, r):
    r.set("w", "1")
    with r.pipeline() as p:
        p.watch("w")
        r.eval("redis.call('set', KEYS[1], '2')", 1, "w")
        p.multi()
        p.get("w")
        with pytest.raises(redis.WatchError):
            p.execute()


def test_blpop_woken_by_script_push(server, r):
    c2 = server.client()
    c2.connection_pool.get_connection("x").send_command("BLPOP", "q", "10")
    # The blocked client is registered once BLOCKED clients shows it.
    for _ in range(500):
        if r.info("clients")["blocked_clients"] == 1:
            break
    assert r.info("clients")["blocked_clients"] == 1
    r.eval("redis.call('lpush', KEYS[1], 'a') redis.call('lpush', KEYS[1], 'b')", 1, "q")
    conn = c2.connection_pool._available_connections[0] if c2.connection_pool._available_connections else None
    c2.close()
    # The woken client took one element: the last one pushed (served after the script).
    assert r.lrange("q", 0, -1) in (["a"], ["b"])
    assert r.llen("q") == 1


def test_keyspace_notification_from_script(server, r):
    r.config_set("notify-keyspace-events", "KEA")
    try:
        p = server.client().pubsub()
        p.psubscribe("__keyspace@0__:nk")
        assert p.get_message(timeout=5)["type"] == "psubscribe"
        r.eval("redis.call('set', KEYS[1], 'v')", 1, "nk")
        msg = None
        for _ in range(50):
            msg = p.get_message(timeout=0.1)
            if msg is not None:
                break
        assert msg is not None and msg["data"] == "set"
        p.close()
    finally:
        r.config_set("notify-keyspace-events", "")


def test_commandstats_count_script_commands(r):
    r.config_resetstat()
    r.eval("redis.call('set','cs','1') redis.call('get','cs')", 0)
    stats = r.info("commandstats")
    assert stats["cmdstat_eval"]["calls"] == 1
    assert stats["cmdstat_set"]["calls"] == 1
    assert stats["cmdstat_get"]["calls"] == 1


# --- RESP3 (raw socket) ---

def enc(*args):
    out = b"*%d\r\n" % len(args)
    for a in args:
        a = a.encode() if isinstance(a, str) else a
        out += b"$%d\r\n%s\r\n" % (len(a), a)
    return out


class Raw:
    def __init__(self, port):
        self.s = socket.create_connection(("127.0.0.1", port), timeout=5)
        self.buf = b""

    def line(self):
        while b"\r\n" not in self.buf:
            chunk = self.s.recv(65536)
            assert chunk, "connection closed"
            self.buf += chunk
        i = self.buf.index(b"\r\n")
        ln, self.buf = self.buf[:i + 2], self.buf[i + 2:]
        return ln

    def exact(self, n):
        while len(self.buf) < n:
            chunk = self.s.recv(65536)
            assert chunk, "connection closed"
            self.buf += chunk
        out, self.buf = self.buf[:n], self.buf[n:]
        return out

    def reply(self):
        """The bytes of one whole reply."""
        ln = self.line()
        t = ln[:1]
        if t in (b"$", b"=", b"!"):
            n = int(ln[1:-2])
            return ln + (self.exact(n + 2) if n >= 0 else b"")
        if t in (b"*", b"~", b">", b"%", b"|"):
            n = int(ln[1:-2])
            if t in (b"%", b"|"):
                n *= 2
            return ln + b"".join(self.reply() for _ in range(max(n, 0)))
        return ln

    def call(self, *args):
        self.s.sendall(enc(*args))
        return self.reply()


RESP3_CASES = [
    # script, reply to a RESP2 client, reply to a RESP3 client
    ("return {double=3.5}", b"$3\r\n3.5\r\n", b",3.5\r\n"),
    ("return {map={a=1}}", b"*2\r\n$1\r\na\r\n:1\r\n", b"%1\r\n$1\r\na\r\n:1\r\n"),
    ("return {set={a=true}}", b"*1\r\n$1\r\na\r\n", b"~1\r\n$1\r\na\r\n"),
    ("return {big_number='123'}", b"$3\r\n123\r\n", b"(123\r\n"),
    ("return {verbatim_string={format='txt', string='hi'}}", b"$2\r\nhi\r\n", b"=6\r\ntxt:hi\r\n"),
    ("return true", b":1\r\n", b":1\r\n"),
    ("return false", b"$-1\r\n", b"_\r\n"),
    ("return nil", b"$-1\r\n", b"_\r\n"),
    ("redis.setresp(3) return true", b":1\r\n", b"#t\r\n"),
    ("redis.setresp(3) return false", b":0\r\n", b"#f\r\n"),
    ("redis.setresp(3) return nil", b"$-1\r\n", b"_\r\n"),
    ("redis.setresp(3) return redis.call('hgetall','rh')", b"*2\r\n$1\r\nf\r\n$1\r\nv\r\n",
     b"%1\r\n$1\r\nf\r\n$1\r\nv\r\n"),
    ("redis.setresp(3) return redis.call('smembers','rs')", b"*1\r\n$1\r\na\r\n", b"~1\r\n$1\r\na\r\n"),
    ("redis.setresp(3) return redis.call('zscore','rz','a')", b"$3\r\n1.5\r\n", b",1.5\r\n"),
    ("redis.setresp(3) local r = redis.call('zscore','rz','a') return type(r)..':'..tostring(r.double)",
     b"$9\r\ntable:1.5\r\n", b"$9\r\ntable:1.5\r\n"),
    ("redis.setresp(3) return type(redis.call('hgetall','rh').map)", b"$5\r\ntable\r\n", b"$5\r\ntable\r\n"),
    ("redis.setresp(3) return redis.call('get','nokey')", b"$-1\r\n", b"_\r\n"),
    ("redis.setresp(3) return {redis.call('get','nokey') == nil}", b"*1\r\n:1\r\n", b"*1\r\n#t\r\n"),
    ("redis.setresp(3) return redis.call('smembers','rs').set['a']", b":1\r\n", b"#t\r\n"),
    ("return redis.call('hgetall','rh')", b"*2\r\n$1\r\nf\r\n$1\r\nv\r\n", b"*2\r\n$1\r\nf\r\n$1\r\nv\r\n"),
    ("return {1, nil, 2}", b"*1\r\n:1\r\n", b"*1\r\n:1\r\n"),
    ("return {err='x\\r\\ny'}", b"-x  y\r\n", b"-x  y\r\n"),
    ("return {err='-X y'}", b"--X y\r\n", b"--X y\r\n"),
]


@pytest.mark.parametrize("script,resp2,resp3", RESP3_CASES)
def test_lua_to_resp2_and_resp3_raw(server, r, script, resp2, resp3):
    r.hset("rh", "f", "v")
    r.sadd("rs", "a")
    r.zadd("rz", {"a": 1.5})
    c = Raw(server.port)
    assert c.call("EVAL", script, "0") == resp2
    c.call("HELLO", "3")
    assert c.call("EVAL", script, "0") == resp3


def test_maxmemory_rules_for_scripts(r):
    r.set("big", "x")
    r.config_set("maxmemory", "1")
    try:
        s = "return redis.call('set','a','b')"
        oom = "OOM command not allowed when used memory > 'maxmemory'."
        assert error_reply(r, "EVAL", s, "0") == oom + suffix(s)
        assert r.eval("return redis.call('get','big')", 0) == "x"
        # A write first (DEL is not deny-oom): later deny-oom commands are allowed.
        assert r.eval("redis.call('del','zz') return redis.call('set','a','b')", 0) == "OK"
        # With a shebang the script is refused up front, unless no-writes or allow-oom.
        assert error_reply(r, "EVAL", "#!lua\nreturn redis.call('get','a')", "0") == oom
        assert r.eval("#!lua flags=allow-oom\nreturn redis.call('set','a','c')", 0) == "OK"
        assert r.eval("#!lua flags=no-writes\nreturn 1", 0) == 1
    finally:
        r.config_set("maxmemory", "0")
