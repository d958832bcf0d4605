"""FUNCTION (LOAD DELETE FLUSH LIST STATS DUMP RESTORE KILL HELP), FCALL and FCALL_RO, with
Redis 8.8's replies and error texts; FUNCTION DUMP/RESTORE payloads exchanged with Redis
7.0 and 8.8 both ways; libraries kept across restarts by the RDB file and by the AOF (with
and without the RDB preamble).
"""
import os
import threading

import pytest
import redis

from conftest import ServerProcess, error_reply
from helpers_dump import REDIS7, REDIS88, start_peer, with_footer

LIB = "#!lua name=mylib\nredis.register_function('myfunc', function(keys, args) return args[1] end)"
LIB_RW = """#!lua name=kv
redis.register_function('kv_set', function(keys, args) return redis.call('SET', keys[1], args[1]) end)
redis.register_function{function_name='kv_get', callback=function(keys, args)
  return redis.call('GET', keys[1]) end, flags={'no-writes'}, description='reads a key'}
"""


@pytest.fixture
def f(r):
    r.function_flush()
    yield r
    r.function_flush()


def lib(name, *funcs, body=""):
    regs = " ".join(f"redis.register_function('{fn}', function(keys, args) return '{fn}' end)"
                    for fn in funcs)
    return f"#!lua name={name}\n{body}{regs}"


# ---------------------------------------------------------------------------------------
# FUNCTION LOAD
# ---------------------------------------------------------------------------------------

def test_load_returns_the_library_name_and_fcall_runs_it(f):
    assert f.function_load(LIB) == "mylib"
    assert f.fcall("myfunc", 0, "hello") == "hello"
    assert f.fcall("MYFUNC", 0, "x") == "x"  # function names ignore case


BAD_HEADERS = [
    ("return 1", "ERR Missing library metadata"),
    ("#!lua\nreturn 1", "ERR Library name was not given"),
    ("#!lua name=\nreturn 1", "ERR Library names can only contain letters, numbers, or "
                              "underscores(_) and must be at least one character long"),
    ("#!lua name=a-b\nreturn 1", "ERR Library names can only contain letters, numbers, or "
                                 "underscores(_) and must be at least one character long"),
    ("#!lua name=x name=y\nreturn 1",
     "ERR Invalid metadata value, name argument was given multiple times"),
    ("#!lua name=x foo=bar\nreturn 1", "ERR Invalid metadata value given: foo=bar"),
    ("#!luaX name=x\nreturn 1", "ERR Engine 'luaX' not found"),
    ("#!lua name=x", "ERR Invalid library metadata"),
    ("#!lua name=y\nreturn 1", "ERR No functions registered"),
    ("#!lua name=y\nlocal a = \nreturn 1",
     "ERR Error compiling function: user_function:3: unexpected symbol near 'return'"),
]


@pytest.mark.parametrize("code,err", BAD_HEADERS)
def test_load_header_and_compile_errors(f, code, err):
    assert error_reply(f, "FUNCTION", "LOAD", code) == err
    assert f.function_list() == []


REG = "ERR Error registering functions: "
BAD_REGISTRATIONS = [
    ("redis.call('set','a','b')",
     REG + "ERR user_function:2: Script attempted to access nonexistent global variable 'call'"),
    ("error('boom')",
     REG + "ERR user_function:2: Script attempted to access nonexistent global variable 'error'"),
    ("local t = string.rep('x', 2)",
     REG + "ERR user_function:2: Script attempted to access nonexistent global variable 'string'"),
    ("x = 5", REG + "ERR user_function:2: Attempt to modify a readonly table"),
    ("redis.register_function('f-1', function() return 1 end)",
     REG + "ERR Library names can only contain letters, numbers, or underscores(_) and must be "
           "at least one character long"),
    ("redis.register_function('fy', 'x')",
     REG + "ERR second argument to redis.register_function must be a function"),
    ("redis.register_function('fy')",
     REG + "ERR calling redis.register_function with a single argument is only applicable to "
           "Lua table (representing named arguments)."),
    ("redis.register_function('fy', function() end, 3)",
     REG + "ERR wrong number of arguments to redis.register_function"),
    ("redis.register_function({function_name='fy', callback=function() end}, 2)",
     REG + "ERR first argument to redis.register_function must be a string"),
    ("redis.register_function('fy', function() end) redis.register_function('fy', function() end)",
     REG + "ERR Function already exists in the library"),
    ("redis.register_function{function_name='fy', callback=function() end, flags={'bad'}}",
     REG + "ERR unknown flag given"),
    ("redis.register_function{function_name='fy', callback=function() end, flags='no-writes'}",
     REG + "ERR flags argument to redis.register_function must be a table representing "
           "function flags"),
    ("redis.register_function{function_name='fy', callback=function() end, foo=1}",
     REG + "ERR unknown argument given to redis.register_function"),
    ("redis.register_function{function_name='fy'}",
     REG + "ERR redis.register_function must get a callback argument"),
    ("redis.register_function{callback=function() end}",
     REG + "ERR redis.register_function must get a function name argument"),
    ("redis.register_function{function_name='fy', callback='x'}",
     REG + "ERR callback argument given to redis.register_function must be a function"),
    ("redis.register_function{[1]='fy', callback=function() end}",
     REG + "ERR unknown argument given to redis.register_function"),
    ("while true do end", REG + "ERR FUNCTION LOAD timeout"),
]


@pytest.mark.parametrize("body,err", BAD_REGISTRATIONS)
def test_load_registration_errors(f, body, err):
    assert error_reply(f, "FUNCTION", "LOAD", "#!lua name=y\n" + body) == err
    assert f.function_list() == []


def test_load_environment_has_only_the_loading_redis_table(f):
    # What is visible while loading: redis.log, LOG_*, REDIS_VERSION(_NUM), register_function.
    f.function_load("#!lua name=env\nredis.log(redis.LOG_WARNING, 'loading') "
                    "local v = redis.REDIS_VERSION .. redis.REDIS_VERSION_NUM "
                    "redis.register_function('env_f', function() "
                    "return {type(pairs), string.format('%d', 5), tostring(redis.register_function)} end)")
    # At call time the callback sees the full sandbox, and no register_function.
    assert f.fcall("env_f", 0) == ["function", "5", "nil"]


def test_load_replace_and_collisions(f):
    assert f.function_load(lib("a", "fa")) == "a"
    assert error_reply(f, "FUNCTION", "LOAD", lib("a", "fa2")) == "ERR Library 'a' already exists"
    # The existence check comes before the code runs.
    assert error_reply(f, "FUNCTION", "LOAD", "#!lua name=a\nx = 1") == \
        "ERR Library 'a' already exists"
    assert error_reply(f, "FUNCTION", "LOAD", lib("b", "fa")) == "ERR Function fa already exists"
    assert f.function_load(lib("a", "fa2"), replace=True) == "a"
    assert f.fcall("fa2", 0) == "fa2"
    assert error_reply(f, "FCALL", "fa", 0) == "ERR Function not found"
    assert f.function_load(lib("b", "fa")) == "b"
    assert error_reply(f, "FUNCTION", "LOAD", "REPLACE", lib("b", "fa2")) == \
        "ERR Function fa2 already exists"
    assert error_reply(f, "FUNCTION", "LOAD", "FOO", lib("z", "fz")) == \
        "ERR Unknown option given: FOO"
    assert f.execute_command("FUNCTION", "LOAD", "replace", lib("b", "fb")) == "b"


def test_function_names_ignore_case_library_names_do_not(f):
    f.function_load(lib("a", "fa"))
    assert error_reply(f, "FUNCTION", "LOAD", lib("A", "FA")) == "ERR Function FA already exists"
    assert error_reply(f, "FUNCTION", "LOAD", lib("b", "x", "x")) == \
        "ERR Error registering functions: ERR Function already exists in the library"
    assert f.function_load(lib("A", "fb")) == "A"
    assert f.fcall("Fa", 0) == "fa"
    assert [d["library_name"] for d in _list(f, "LIBRARYNAME", "a")] == ["A", "a"]


def test_register_function_name_and_description_may_be_numbers(f):
    f.function_load("#!lua name=n\nredis.register_function(1, function() return 1 end) "
                    "redis.register_function{function_name=2, callback=function() return 2 end, "
                    "description=3}")
    funcs = {x["name"]: x for x in _list(f)[0]["functions"]}
    assert funcs["1"]["description"] is None
    assert funcs["2"]["description"] == "3"
    assert f.fcall("2", 0) == 2


# ---------------------------------------------------------------------------------------
# FUNCTION LIST / STATS / DELETE / FLUSH / KILL / HELP
# ---------------------------------------------------------------------------------------

def _list(c, *args):
    """FUNCTION LIST as a list of dicts (RESP2 flat pairs), libraries and functions sorted
    by name (Redis lists them in hash order)."""
    out = []
    for lib_entry in c.execute_command("FUNCTION", "LIST", *args):
        d = dict(zip(lib_entry[::2], lib_entry[1::2]))
        d["functions"] = sorted((dict(zip(fn[::2], fn[1::2])) for fn in d["functions"]),
                                key=lambda fn: fn["name"])
        out.append(d)
    return sorted(out, key=lambda d: d["library_name"])


def test_list_reports_flags_descriptions_and_code(f):
    f.function_load(LIB_RW)
    f.function_load(LIB)
    libs = _list(f)
    assert [d["library_name"] for d in libs] == ["kv", "mylib"]
    kv = libs[0]
    assert kv["engine"] == "LUA" and "library_code" not in kv
    funcs = {x["name"]: x for x in kv["functions"]}
    assert funcs["kv_get"] == {"name": "kv_get", "description": "reads a key",
                               "flags": ["no-writes"]}
    assert funcs["kv_set"] == {"name": "kv_set", "description": None, "flags": []}
    with_code = _list(f, "WITHCODE")
    assert with_code[0]["library_code"] == LIB_RW
    assert [d["library_name"] for d in _list(f, "LIBRARYNAME", "my*")] == ["mylib"]
    assert [d["library_name"] for d in _list(f, "libraryname", "KV", "withcode")] == ["kv"]


def test_list_all_flags_in_redis_order(f):
    f.function_load("#!lua name=fl\nredis.register_function{function_name='g', "
                    "callback=function() return 1 end, flags={'allow-cross-slot-keys', "
                    "'no-cluster', 'allow-stale', 'allow-oom', 'no-writes'}}")
    assert _list(f)[0]["functions"][0]["flags"] == [
        "no-writes", "allow-oom", "allow-stale", "no-cluster", "allow-cross-slot-keys"]


def test_list_resp3_uses_maps_and_sets(f, server):
    f.function_load(LIB_RW)
    raw = server.raw()
    try:
        raw.command("HELLO", "3")
        reply = raw.command("FUNCTION", "LIST", "LIBRARYNAME", "kv")
    finally:
        raw.close()
    assert len(reply) == 1 and reply[0][0] == "map"
    entry = dict(reply[0][1])
    assert entry[b"library_name"] == b"kv" and entry[b"engine"] == b"LUA"
    funcs = {dict(fn[1])[b"name"]: dict(fn[1]) for fn in entry[b"functions"]}
    assert funcs[b"kv_get"][b"flags"] == ("set", ["no-writes"])  # status strings
    assert funcs[b"kv_get"][b"description"] == b"reads a key"
    assert funcs[b"kv_set"][b"flags"] == ("set", [])
    assert funcs[b"kv_set"][b"description"] is None


def test_list_errors(f):
    assert error_reply(f, "FUNCTION", "LIST", "LIBRARYNAME") == \
        "ERR library name argument was not given"
    assert error_reply(f, "FUNCTION", "LIST", "FOO") == "ERR Unknown argument FOO"
    assert error_reply(f, "FUNCTION", "LIST", "LIBRARYNAME", "a", "LIBRARYNAME", "b") == \
        "ERR Unknown argument LIBRARYNAME"
    assert error_reply(f, "FUNCTION", "LIST", "WITHCODE", "WITHCODE") == \
        "ERR Unknown argument WITHCODE"


def test_stats_delete_flush(f):
    assert f.execute_command("FUNCTION", "STATS") == [
        "running_script", None, "engines", ["LUA", ["libraries_count", 0, "functions_count", 0]]]
    f.function_load(LIB_RW)
    f.function_load(LIB)
    assert f.execute_command("FUNCTION", "STATS")[3] == [
        "LUA", ["libraries_count", 2, "functions_count", 3]]
    assert f.execute_command("FUNCTION", "DELETE", "mylib") == "OK"
    assert error_reply(f, "FCALL", "myfunc", 0) == "ERR Function not found"
    assert error_reply(f, "FUNCTION", "DELETE", "mylib") == "ERR Library not found"
    assert error_reply(f, "FUNCTION", "DELETE") == \
        "ERR wrong number of arguments for 'function|delete' command"
    assert f.execute_command("FUNCTION", "FLUSH", "ASYNC") == "OK"
    assert f.function_list() == []
    f.function_load(LIB)
    assert f.execute_command("FUNCTION", "FLUSH", "sync") == "OK"
    assert f.function_list() == []
    assert error_reply(f, "FUNCTION", "FLUSH", "FOO") == \
        "ERR FUNCTION FLUSH only supports SYNC|ASYNC option"
    assert error_reply(f, "FUNCTION", "FLUSH", "ASYNC", "SYNC") == \
        "ERR unknown subcommand or wrong number of arguments for 'FLUSH'. Try FUNCTION HELP."


def test_flushall_keeps_functions(f):
    f.function_load(LIB)
    f.flushall()
    assert f.fcall("myfunc", 0, "v") == "v"


def test_kill_help_and_unknown_subcommand(f):
    assert error_reply(f, "FUNCTION", "KILL") == "NOTBUSY No scripts in execution right now."
    help_lines = f.execute_command("FUNCTION", "HELP")
    assert help_lines[0].startswith("FUNCTION <subcommand>")
    assert "RESTORE <PAYLOAD> [FLUSH|APPEND|REPLACE]" in help_lines
    assert help_lines[-1] == "    Print this help."
    assert error_reply(f, "FUNCTION", "FOO") == \
        "ERR unknown subcommand 'FOO'. Try FUNCTION HELP."
    assert error_reply(f, "FUNCTION") == "ERR wrong number of arguments for 'function' command"


# ---------------------------------------------------------------------------------------
# FCALL / FCALL_RO
# ---------------------------------------------------------------------------------------

def test_fcall_keys_args_and_redis_call(f):
    f.function_load(LIB_RW)
    assert f.fcall("kv_set", 1, "k", "v1") == "OK"
    assert f.get("k") == "v1"
    assert f.fcall("kv_get", 1, "k") == "v1"
    assert f.fcall_ro("kv_get", 1, "k") == "v1"


def test_fcall_errors(f):
    f.function_load(LIB_RW)
    assert error_reply(f, "FCALL", "nope", 0) == "ERR Function not found"
    assert error_reply(f, "FCALL", "nope", "x") == "ERR Function not found"
    assert error_reply(f, "FCALL", "kv_set", "x") == "ERR Bad number of keys provided"
    assert error_reply(f, "FCALL", "kv_set", "-1") == "ERR Number of keys can't be negative"
    assert error_reply(f, "FCALL", "kv_set", 2, "a") == \
        "ERR Number of keys can't be greater than number of args"
    assert error_reply(f, "FCALL_RO", "kv_set", 1, "k", "v") == \
        "ERR Can not execute a script with write flag using *_ro command."
    assert error_reply(f, "FCALL", "kv_get") == \
        "ERR wrong number of arguments for 'fcall' command"


def test_fcall_no_writes_function_cannot_write(f):
    f.function_load("#!lua name=ro\nredis.register_function{function_name='ro_set', "
                    "callback=function(keys) return redis.call('SET', keys[1], 'x') end, "
                    "flags={'no-writes'}}")
    err = error_reply(f, "FCALL", "ro_set", 1, "k")
    assert err.startswith("ERR Write commands are not allowed from read-only scripts.")
    assert f.get("k") is None


def test_fcall_runtime_global_write_refused_with_function_name(f):
    f.function_load("#!lua name=g\nredis.register_function('gw', function() x = 1 end)")
    assert error_reply(f, "FCALL", "gw", 0) == \
        "ERR user_function:2: Attempt to modify a readonly table script: gw, on @user_function:2."


def test_fcall_sees_a_replaced_library_on_every_connection(f, server):
    clients = [server.client() for _ in range(8)]  # spread over the workers
    f.function_load("#!lua name=ver\nredis.register_function('ver', function() return 1 end)")
    assert [c.fcall("ver", 0) for c in clients] == [1] * 8
    f.function_load("#!lua name=ver\nredis.register_function('ver', function() return 2 end)",
                    replace=True)
    assert [c.fcall("ver", 0) for c in clients] == [2] * 8
    f.function_delete("ver")
    for c in clients:
        with pytest.raises(redis.ResponseError, match="Function not found"):
            c.fcall("ver", 0)
        c.close()


def test_fcall_concurrent_increments_are_atomic(f, server):
    f.function_load("#!lua name=cnt\nredis.register_function('bump', function(keys) "
                    "local v = tonumber(redis.call('GET', keys[1]) or '0') "
                    "redis.call('SET', keys[1], v + 1) return v + 1 end)")
    errors = []

    def run():
        c = server.client()
        try:
            for _ in range(200):
                c.fcall("bump", 1, "counter")
        except Exception as e:  # noqa: BLE001 - reported below
            errors.append(e)
        finally:
            c.close()

    threads = [threading.Thread(target=run) for _ in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert not errors
    assert f.get("counter") == "1200"


@pytest.mark.hotkv_only
def test_fcall_over_maxmemory_runs_only_allow_oom_and_no_writes(start_server):
    srv = start_server(args=["--maxmemory-policy", "noeviction"])
    c = srv.client()
    c.function_load("#!lua name=oom\nredis.register_function('w', function() return 1 end)\n"
                    "redis.register_function{function_name='ao', callback=function() "
                    "return redis.call('SET', 'x', 'y') end, flags={'allow-oom'}}\n"
                    "redis.register_function{function_name='nw', callback=function() "
                    "return 3 end, flags={'no-writes'}}")
    c.set("filler", "x" * 100000)
    c.config_set("maxmemory", 1)
    try:
        assert error_reply(c, "FCALL", "w", 0) == \
            "OOM command not allowed when used memory > 'maxmemory'."
        assert c.fcall("nw", 0) == 3
        assert c.fcall_ro("nw", 0) == 3
        assert c.fcall("ao", 0) == "OK"
    finally:
        c.config_set("maxmemory", 0)


def test_script_flush_keeps_functions(f, server):
    clients = [server.client() for _ in range(4)]
    f.function_load(LIB)
    assert [c.fcall("myfunc", 0, "a") for c in clients] == ["a"] * 4
    assert f.script_flush() is True
    assert [c.fcall("myfunc", 0, "b") for c in clients] == ["b"] * 4
    assert len(f.function_list()) == 1
    for c in clients:
        c.close()


def test_function_load_inside_multi(f):
    p = f.pipeline(transaction=True)
    p.function_load(LIB)
    p.fcall("myfunc", 0, "in-multi")
    assert p.execute() == ["mylib", "in-multi"]


# ---------------------------------------------------------------------------------------
# DUMP / RESTORE
# ---------------------------------------------------------------------------------------

def test_dump_restore_policies(f):
    f.function_load(lib("a", "fa"))
    f.function_load(lib("b", "fb"))
    payload = f.function_dump()
    assert payload[-10:-8] == (10).to_bytes(2, "little") or payload[-10] >= 10
    f.function_flush()
    assert f.function_restore(payload) is True
    assert [d["library_name"] for d in _list(f)] == ["a", "b"]
    # Which library is reported first follows the payload (Redis: its hash order).
    assert error_reply(f, "FUNCTION", "RESTORE", payload) in (
        "ERR Library a already exists", "ERR Library b already exists")
    assert error_reply(f, "FUNCTION", "RESTORE", payload, "APPEND") in (
        "ERR Library a already exists", "ERR Library b already exists")
    f.function_load(lib("a", "fa_new"), replace=True)
    assert f.function_restore(payload, "REPLACE") is True
    assert f.fcall("fa", 0) == "fa"
    f.function_load(lib("c", "fc"))
    assert f.function_restore(payload, "FLUSH") is True
    assert [d["library_name"] for d in _list(f)] == ["a", "b"]
    # REPLACE still fails on a function of another library: nothing changes.
    f.function_flush()
    f.function_load(lib("other", "fa"))
    assert error_reply(f, "FUNCTION", "RESTORE", payload, "REPLACE") == \
        "ERR Function fa already exists"
    assert [d["library_name"] for d in _list(f)] == ["other"]


def test_dump_compresses_as_rdbcompression_says(f, server):
    code = "#!lua name=z\n-- " + "y" * 200 + "\nredis.register_function('fz', function() return 1 end)"
    f.function_load(code)
    b = server.client(decode_responses=False)
    assert code.encode() not in b.function_dump()  # LZF
    f.config_set("rdbcompression", "no")
    try:
        plain = b.function_dump()
    finally:
        f.config_set("rdbcompression", "yes")
        b.close()
    assert code.encode() in plain
    f.function_flush()
    assert f.function_restore(plain) is True
    assert f.fcall("fz", 0) == 1


def test_restore_errors(f):
    assert error_reply(f, "FUNCTION", "RESTORE", "garbage") == \
        "ERR DUMP payload version or checksum are wrong"
    assert error_reply(f, "FUNCTION", "RESTORE", "garbage", "FOO") == \
        "ERR Wrong restore policy given, value should be either FLUSH, APPEND or REPLACE."
    # A DUMP payload of a key is not a function payload.
    f.set("k", "v")
    assert error_reply(f, "FUNCTION", "RESTORE", f.dump("k")) == \
        "ERR given type is not a function"
    # Pre-GA function opcode (246).
    assert error_reply(f, "FUNCTION", "RESTORE", with_footer(b"\xf6\x01x")) == \
        "ERR Pre-GA function format not supported"
    # A library twice in one payload.
    body = b""
    code = lib("dup", "fd").encode()
    for _ in range(2):
        body += b"\xf5" + bytes([0x40 | (len(code) >> 8), len(code) & 0xff]) + code
    assert error_reply(f, "FUNCTION", "RESTORE", with_footer(body)) == \
        "ERR Library 'dup' already exists"
    assert f.function_list() == []


def _peer_roundtrip(binary, f, tmp_path_factory):
    peer = start_peer(binary, tmp_path_factory)
    try:
        pc = peer.client(decode_responses=True)
        # Peer -> HotKV
        pc.function_load(LIB_RW)
        pc.function_load("#!lua name=big\n" + "-- " + "x" * 300 + "\n" +
                         "redis.register_function('big_f', function() return 'big' end)")
        payload = peer.client().function_dump()
        assert f.function_restore(payload) is True
        assert _list(f, "WITHCODE") == _list(pc, "WITHCODE")
        assert f.fcall("big_f", 0) == "big"
        # HotKV -> peer
        f.function_load(lib("hk", "hk_f"))
        ours = redis.Redis(host="127.0.0.1", port=f.connection_pool.connection_kwargs["port"]) \
            .function_dump()
        assert pc.function_restore(ours, "FLUSH") is True
        assert _list(pc, "WITHCODE") == _list(f, "WITHCODE")
        assert pc.fcall("hk_f", 0) == "hk_f"
        assert pc.fcall("kv_set", 1, "pk", "pv") == "OK"
    finally:
        peer.stop()


@pytest.mark.hotkv_only
def test_dump_restore_with_redis7(f, tmp_path_factory):
    _peer_roundtrip(REDIS7, f, tmp_path_factory)


@pytest.mark.hotkv_only
def test_dump_restore_with_redis88(f, tmp_path_factory):
    _peer_roundtrip(REDIS88, f, tmp_path_factory)


# ---------------------------------------------------------------------------------------
# Persistence
# ---------------------------------------------------------------------------------------

def _start(tmp_path, *extra):
    return ServerProcess(["--dir", str(tmp_path), "--threads", "2", *extra],
                         tmp_path=tmp_path).start()


@pytest.mark.hotkv_only
def test_rdb_keeps_functions_across_restart(tmp_path):
    srv = _start(tmp_path, "--save", "")
    try:
        c = srv.client()
        c.function_load(LIB_RW)
        c.fcall("kv_set", 1, "k", "v")
        assert c.save()
        c.execute_command("DEBUG", "RELOAD")
        assert c.fcall("kv_get", 1, "k") == "v"
        before = _list(c, "WITHCODE")
    finally:
        srv.stop()
    srv = _start(tmp_path, "--save", "")
    try:
        c = srv.client()
        assert _list(c, "WITHCODE") == before
        assert c.fcall_ro("kv_get", 1, "k") == "v"
    finally:
        srv.stop()
    # Redis 7.0 loads the file, functions included.
    if os.path.exists(REDIS7):
        peer = ServerProcess.__new__(ServerProcess)
        import subprocess
        from conftest import free_port
        port = free_port()
        proc = subprocess.Popen([REDIS7, "--port", str(port), "--bind", "127.0.0.1", "--dir",
                                 str(tmp_path), "--save", "", "--appendonly", "no"],
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            pc = redis.Redis(port=port, decode_responses=True)
            for _ in range(300):
                try:
                    pc.ping()
                    break
                except (redis.ConnectionError, redis.BusyLoadingError):
                    import time
                    time.sleep(0.02)
            assert pc.fcall("kv_get", 1, "k") == "v"
            assert _list(pc, "WITHCODE") == before
        finally:
            proc.terminate()
            proc.wait(10)
        del peer


@pytest.mark.hotkv_only
def test_rdb_written_by_redis7_with_functions_loads(tmp_path):
    import subprocess
    import time
    from conftest import free_port
    if not os.path.exists(REDIS7):
        pytest.skip("no redis-server 7.0")
    port = free_port()
    proc = subprocess.Popen([REDIS7, "--port", str(port), "--bind", "127.0.0.1", "--dir",
                             str(tmp_path), "--save", "", "--appendonly", "no"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        pc = redis.Redis(port=port, decode_responses=True)
        for _ in range(300):
            try:
                pc.ping()
                break
            except redis.ConnectionError:
                time.sleep(0.02)
        pc.function_load(LIB_RW)
        pc.set("k", "from7")
        assert pc.save()
    finally:
        proc.terminate()
        proc.wait(10)
    srv = _start(tmp_path, "--save", "")
    try:
        c = srv.client()
        assert c.fcall("kv_get", 1, "k") == "from7"
    finally:
        srv.stop()


@pytest.mark.hotkv_only
@pytest.mark.parametrize("preamble", ["yes", "no"])
def test_aof_keeps_functions_across_restart_and_rewrite(tmp_path, preamble):
    args = ("--appendonly", "yes", "--aof-use-rdb-preamble", preamble)
    srv = _start(tmp_path, *args)
    try:
        c = srv.client()
        c.function_load(lib("a", "fa"))
        c.function_load(lib("b", "fb"))
        c.function_load(lib("gone", "fg"))
        c.function_delete("gone")
        c.function_load(lib("a", "fa2"), replace=True)
        before = _list(c, "WITHCODE")
    finally:
        srv.stop()
    srv = _start(tmp_path, *args)
    try:
        c = srv.client()
        assert _list(c, "WITHCODE") == before
        # A rewrite puts the libraries in the base; later changes go to the new tail.
        c.bgrewriteaof()
        for _ in range(500):
            if c.info("persistence")["aof_rewrite_in_progress"] == 0 and \
                    c.info("persistence")["aof_rewrite_scheduled"] == 0:
                break
            import time
            time.sleep(0.02)
        c.function_load(lib("c", "fc"))
        c.function_restore(c.function_dump(), "FLUSH")
        before = _list(c, "WITHCODE")
    finally:
        srv.stop()
    srv = _start(tmp_path, *args)
    try:
        c = srv.client()
        assert _list(c, "WITHCODE") == before
        assert c.fcall("fc", 0) == "fc"
        c.function_flush()
    finally:
        srv.stop()
    srv = _start(tmp_path, *args)
    try:
        assert srv.client().function_list() == []
    finally:
        srv.stop()


# ---------------------------------------------------------------------------------------
# cmsgpack and struct through EVAL (unit tests: tests/unit/scripting/)
# ---------------------------------------------------------------------------------------

def test_cmsgpack_through_eval(rb):
    assert rb.eval("return cmsgpack.pack(1, -1, 'abc', {1,2}, {a=1}, true, 1.5)", 0) == \
        b"\x01\xff\xa3abc\x92\x01\x02\x81\xa1a\x01\xc3\xca?\xc0\x00\x00"
    assert rb.eval("return cmsgpack.unpack(cmsgpack.pack({10, 20, {x='y'}}))", 0) == [10, 20, []]
    assert rb.eval("local a, b, c = cmsgpack.unpack_limit(cmsgpack.pack(1, 2, 3), 2) "
                   "return {a, b, c}", 0) == [2, 1, 2]
    with pytest.raises(redis.ResponseError, match="Missing bytes in input."):
        rb.eval("return cmsgpack.unpack('\\205\\1')", 0)


def test_struct_through_eval(rb):
    assert rb.eval("return struct.pack('>iH', -2, 7)", 0) == b"\xff\xff\xff\xfe\x00\x07"
    assert rb.eval("return {struct.unpack('>iH', struct.pack('>iH', -2, 7))}", 0) == [-2, 7, 7]
    assert rb.eval("return struct.size('!4 b i d')", 0) == 16
    with pytest.raises(redis.ResponseError, match="bad argument #1 to 'pack' "
                                                  r"\(invalid format option 'z'\)"):
        rb.eval("return struct.pack('z', 1)", 0)


def test_libraries_are_read_only(r):
    with pytest.raises(redis.ResponseError, match="Attempt to modify a readonly table"):
        r.eval("cmsgpack.pack = nil", 0)
    with pytest.raises(redis.ResponseError, match="Attempt to modify a readonly table"):
        r.eval("struct.x = 1", 0)
