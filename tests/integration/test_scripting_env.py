"""The Lua environment scripts see, against a fixed list taken from Redis 8.8 (every
global, and every field of the library tables, with its type), and the behaviour of the
entries HotKV had missing: loadstring/load (no bytecode, as Redis's Lua never undumps),
__redis__err__handler and cjson.decode_array_with_array_mt. Redis 7.0 lacks `os` and
decode_array_with_array_mt (docs/scripting.md), hence the redis8 marks."""

import pytest
import redis

from conftest import FullErrorParser

WALK = """
local res = {}
local skip = {_G = true, KEYS = true, ARGV = true}
for k, v in pairs(_G) do
  res[#res + 1] = tostring(k) .. ':' .. type(v)
  if type(v) == 'table' and not skip[k] then
    for k2, v2 in pairs(v) do
      res[#res + 1] = tostring(k) .. '.' .. tostring(k2) .. ':' .. type(v2)
    end
  end
end
table.sort(res)
return res
"""

# Redis 8.8's list (EVAL of WALK with no keys).
REDIS_8_GLOBALS = [
    'ARGV:table', 'KEYS:table', '_G:table', '_VERSION:string',
    '__redis__err__handler:function', 'assert:function', 'bit.arshift:function',
    'bit.band:function', 'bit.bnot:function', 'bit.bor:function', 'bit.bswap:function',
    'bit.bxor:function', 'bit.lshift:function', 'bit.rol:function', 'bit.ror:function',
    'bit.rshift:function', 'bit.tobit:function', 'bit.tohex:function', 'bit:table',
    'cjson._NAME:string', 'cjson._VERSION:string', 'cjson.decode:function',
    'cjson.decode_array_with_array_mt:function', 'cjson.decode_invalid_numbers:function',
    'cjson.decode_max_depth:function', 'cjson.encode:function',
    'cjson.encode_invalid_numbers:function', 'cjson.encode_keep_buffer:function',
    'cjson.encode_max_depth:function', 'cjson.encode_number_precision:function',
    'cjson.encode_sparse_array:function', 'cjson.new:function', 'cjson.null:userdata',
    'cjson:table', 'cmsgpack._COPYRIGHT:string', 'cmsgpack._DESCRIPTION:string',
    'cmsgpack._NAME:string', 'cmsgpack._VERSION:string', 'cmsgpack.pack:function',
    'cmsgpack.unpack:function', 'cmsgpack.unpack_limit:function',
    'cmsgpack.unpack_one:function', 'cmsgpack:table', 'collectgarbage:function',
    'coroutine.create:function', 'coroutine.resume:function', 'coroutine.running:function',
    'coroutine.status:function', 'coroutine.wrap:function', 'coroutine.yield:function',
    'coroutine:table', 'error:function', 'gcinfo:function', 'getmetatable:function',
    'ipairs:function', 'load:function', 'loadstring:function', 'math.abs:function',
    'math.acos:function', 'math.asin:function', 'math.atan2:function',
    'math.atan:function', 'math.ceil:function', 'math.cos:function', 'math.cosh:function',
    'math.deg:function', 'math.exp:function', 'math.floor:function', 'math.fmod:function',
    'math.frexp:function', 'math.huge:number', 'math.ldexp:function',
    'math.log10:function', 'math.log:function', 'math.max:function', 'math.min:function',
    'math.mod:function', 'math.modf:function', 'math.pi:number', 'math.pow:function',
    'math.rad:function', 'math.random:function', 'math.randomseed:function',
    'math.sin:function', 'math.sinh:function', 'math.sqrt:function', 'math.tan:function',
    'math.tanh:function', 'math:table', 'next:function', 'os.clock:function', 'os:table',
    'pairs:function', 'pcall:function', 'rawequal:function', 'rawget:function',
    'rawset:function', 'redis.LOG_DEBUG:number', 'redis.LOG_NOTICE:number',
    'redis.LOG_VERBOSE:number', 'redis.LOG_WARNING:number', 'redis.REDIS_VERSION:string',
    'redis.REDIS_VERSION_NUM:number', 'redis.REPL_ALL:number', 'redis.REPL_AOF:number',
    'redis.REPL_NONE:number', 'redis.REPL_REPLICA:number', 'redis.REPL_SLAVE:number',
    'redis.acl_check_cmd:function', 'redis.breakpoint:function', 'redis.call:function',
    'redis.debug:function', 'redis.error_reply:function', 'redis.log:function',
    'redis.pcall:function', 'redis.replicate_commands:function', 'redis.set_repl:function',
    'redis.setresp:function', 'redis.sha1hex:function', 'redis.status_reply:function',
    'redis:table', 'select:function', 'setmetatable:function', 'string.byte:function',
    'string.char:function', 'string.dump:function', 'string.find:function',
    'string.format:function', 'string.gfind:function', 'string.gmatch:function',
    'string.gsub:function', 'string.len:function', 'string.lower:function',
    'string.match:function', 'string.rep:function', 'string.reverse:function',
    'string.sub:function', 'string.upper:function', 'string:table', 'struct.pack:function',
    'struct.size:function', 'struct.unpack:function', 'struct:table',
    'table.concat:function', 'table.foreach:function', 'table.foreachi:function',
    'table.getn:function', 'table.insert:function', 'table.maxn:function',
    'table.remove:function', 'table.setn:function', 'table.sort:function', 'table:table',
    'tonumber:function', 'tostring:function', 'type:function', 'unpack:function',
    'xpcall:function',
]


@pytest.mark.redis8
def test_globals_and_library_tables_match_redis_8(r):
    assert r.eval(WALK, 0) == REDIS_8_GLOBALS


def script_error(server, script):
    c = server.client()
    c.connection_pool.connection_kwargs["parser_class"] = FullErrorParser
    try:
        c.eval(script, 0)
    except redis.ResponseError as e:
        return str(e)
    finally:
        c.close()
    raise AssertionError("no error")


def test_loadstring_and_load_refuse_bytecode(r):
    assert r.eval("return loadstring('return 1 + 1')()", 0) == 2
    assert r.eval("return load(function() return nil end) ~= nil", 0) == 1
    # Precompiled chunks are parsed as text, so they fail as Redis's Lua fails them.
    assert r.eval("local f, e = loadstring(string.dump(function() return 1 end)) "
                  "return {tostring(f), e}", 0) == [
        "nil", "[string \"\x1bLuaQ\"]:1: unexpected symbol near 'char(27)'"]
    assert r.eval("local dump = string.dump(function() return 1 end) local done = false "
                  "local f, e = load(function() if done then return nil end done = true "
                  "return dump end) return {tostring(f), e}", 0) == [
        "nil", "(load):1: unexpected symbol near 'char(27)'"]
    assert r.eval("local f, e = loadstring('x = ', 'chunk') return {tostring(f), e}", 0) == [
        "nil", "[string \"chunk\"]:1: unexpected symbol near '<eof>'"]
    # A reader error goes through the script's message handler (an error table), as in Redis.
    assert r.eval("local f, e = load(function() return {} end) return {tostring(f), e.err}",
                  0) == ["nil", "ERR user_script:1: reader function must return a string"]
    # What loadstring makes runs in the sandbox.
    assert r.eval("return {pcall(loadstring('x = 1'))}", 0) == [
        None, '[string "x = 1"]:1: Attempt to modify a readonly table']
    assert r.eval("return {pcall(loadstring('return KEYS[1]'))}", 1, "kk") == [1, "kk"]


def test_redis_err_handler_is_a_global(r):
    assert r.eval("return type(__redis__err__handler)", 0) == "function"
    assert r.eval("local e = __redis__err__handler('boom') return {e.err, e.source, e.line}",
                  0) == ["ERR boom", "@user_script", 1]


@pytest.mark.parametrize("script, expected", [
    ("return tostring(getmetatable(getmetatable('')))", "nil"),
    ("return tostring(getmetatable('').__index == string)", "true"),
    ("return tostring(rawequal(getmetatable(''), getmetatable('x')))", "true"),
    ("return type(getmetatable(_G).__index)", "function"),
    ("return tostring(rawequal(getmetatable(_G), getmetatable(_G)))", "true"),
    ("return tostring(getmetatable(getmetatable(_G)))", "nil"),
    ("return tostring(getmetatable(redis))", "nil"),
    ("return tostring(getmetatable(string))", "nil"),
    ("return tostring(getmetatable(KEYS))", "nil"),
    ("return tostring(getmetatable(setmetatable({}, {__metatable = false})))", "false"),
])
def test_getmetatable(r, script, expected):
    """getmetatable answers for the read-only tables as Redis's (real tables with a
    read-only flag; HotKV's are proxies)."""
    assert r.eval(script, 0) == expected


@pytest.mark.parametrize("script, message", [
    ("getmetatable('').__index = nil", "user_script:1: Attempt to modify a readonly table"),
    ("getmetatable(_G).__index = nil", "user_script:1: Attempt to modify a readonly table"),
    ("setmetatable(nil, {})",
     "user_script:1: bad argument #1 to 'setmetatable' (table expected, got nil)"),
    ("setmetatable({}, 1)",
     "user_script:1: bad argument #2 to 'setmetatable' (nil or table expected)"),
    ("setmetatable(setmetatable({}, {__metatable = 1}), {})",
     "user_script:1: cannot change a protected metatable"),
    ("rawset(1, 2, 3)", "user_script:1: bad argument #1 to 'rawset' (table expected, got number)"),
    ("getmetatable()", "user_script:1: bad argument #1 to 'getmetatable' (value expected)"),
])
def test_metatable_misuse_errors(server, r, script, message):
    assert message in script_error(server, script)
    # The strings' metatable is intact for the next script.
    assert r.eval("return ('abc'):upper()", 0) == "ABC"


@pytest.mark.redis8
def test_cjson_decode_array_with_array_mt(r):
    try:
        assert r.eval("return cjson.decode_array_with_array_mt()", 0) is None  # false
        assert r.eval("return cjson.encode(cjson.decode('[]'))", 0) == "{}"
        assert r.eval("return cjson.decode_array_with_array_mt(true)", 0) == 1
        script = ("cjson.decode_array_with_array_mt(true) return cjson.encode(cjson.decode(ARGV[1]))")
        for text, expected in [("[]", "[]"), ("[[[]]]", "[[[]]]"), ('{"a":[]}', '{"a":[]}'),
                               ('[1.5,"x",null,true]', '[1.5,"x",null,true]'),
                               ('{"a":{"a":[]},"a":[1]}', '{"a":[1]}'),
                               ('{"k\\n":[]}', '{"k\\n":[]}'), ("[{}]", "[{}]")]:
            assert r.eval(script, 0, text) == expected, text
        assert r.eval("cjson.decode_array_with_array_mt(true) "
                      "local t = cjson.decode('[1,2]') t.x = 1 return cjson.encode(t)", 0) == "[1,2]"
        assert r.eval("cjson.decode_array_with_array_mt(true) local mt = "
                      "getmetatable(cjson.decode('[1]')) local r = {} for k, v in pairs(mt) do "
                      "r[#r+1] = k .. '=' .. tostring(v) end return r", 0) == ["__is_cjson_array=true"]
        assert r.eval("cjson.decode_array_with_array_mt(true) return tostring("
                      "getmetatable(cjson.decode('[1]')) == getmetatable(cjson.decode('[]')))", 0) == "false"
        # The metatable is a plain (read-only) table: no metatable of its own.
        assert r.eval("cjson.decode_array_with_array_mt(true) return tostring(getmetatable("
                      "getmetatable(cjson.decode('[1]'))))", 0) == "nil"
        assert r.eval("cjson.decode_array_with_array_mt(true) local t = cjson.decode('[1]') "
                      "return tostring(rawequal(getmetatable(t), getmetatable(t)))", 0) == "true"
        assert r.eval("cjson.decode_array_with_array_mt(true) "
                      "return {pcall(cjson.decode, '[1,')}", 0) == [
            None, "Expected value but found T_END at character 4"]
        # Any table whose metatable says __is_cjson_array encodes as an array, also when
        # the field is set after setmetatable or comes through the metatable's __index.
        assert r.eval("return cjson.encode(setmetatable({}, {__is_cjson_array = true}))", 0) == "[]"
        assert r.eval("local mt = {} local t = setmetatable({}, mt) mt.__is_cjson_array = true "
                      "return cjson.encode(t)", 0) == "[]"
        assert r.eval("return cjson.encode(setmetatable({}, setmetatable({}, "
                      "{__index = {__is_cjson_array = true}})))", 0) == "[]"
        # Instances have their own setting.
        assert r.eval("cjson.decode_array_with_array_mt(false) local c2 = cjson.new() "
                      "c2.decode_array_with_array_mt(true) return {cjson.encode(cjson.decode('[]')), "
                      "c2.encode(c2.decode('[]'))}", 0) == ["{}", "[]"]
    finally:
        r.eval("cjson.decode_array_with_array_mt(false)", 0)


@pytest.mark.redis8
@pytest.mark.parametrize("script, message", [
    ("cjson.decode_array_with_array_mt('x')",
     "bad argument #1 to 'decode_array_with_array_mt' (invalid option 'x')"),
    ("cjson.decode_array_with_array_mt(true, 2)",
     "bad argument #2 to 'decode_array_with_array_mt' (found too many arguments)"),
    ("cjson.decode_array_with_array_mt({})",
     "bad argument #1 to 'decode_array_with_array_mt' (string expected, got table)"),
    ("cjson.decode()", "bad argument #1 to 'decode' (expected 1 argument)"),
    ("cjson.decode({})", "bad argument #1 to 'decode' (string expected, got table)"),
    ("cjson.decode('[1,')", "user_script:1: Expected value but found T_END at character 4"),
    ("cjson.decode_array_with_array_mt(true) cjson.decode('[1,')",
     "user_script:1: Expected value but found T_END at character 4"),
    ("cjson.encode(function() end)", "user_script:1: Cannot serialise function: type not supported"),
    ("local a = {} a[1] = a cjson.encode(a)", "user_script:1: Cannot serialise, excessive nesting (1001)"),
    ("local a = setmetatable({}, {__is_cjson_array = true}) a[1] = a cjson.encode(a)",
     "user_script:1: Cannot serialise, excessive nesting (1001)"),
    ("cjson.encode(1, 2)", "bad argument #1 to 'encode' (expected 1 argument)"),
    ("cjson.decode_array_with_array_mt(true) getmetatable(cjson.decode('[]')).x = 1",
     "Attempt to modify a readonly table"),
])
def test_cjson_misuse_errors(server, r, script, message):
    try:
        assert message in script_error(server, script)
    finally:
        r.eval("cjson.decode_array_with_array_mt(false)", 0)
