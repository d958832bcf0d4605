"""COMMAND LIST filters, COMMAND GETKEYS / GETKEYSANDFLAGS and COMMAND INFO's flags and
tips, as Redis 8.8 replies (each case was run against redis-server 8.8 by hand)."""
import pytest

from conftest import cmd, error_reply


def command_info(r, name):
    info, = cmd(r, "COMMAND", "INFO", name)
    return info


def key_flags(r, *args):
    """GETKEYSANDFLAGS as [(key, [flags...]), ...]."""
    return [(k, list(f)) for k, f in cmd(r, "COMMAND", "GETKEYSANDFLAGS", *args)]


# --- COMMAND LIST ------------------------------------------------------------------------

def test_command_list_has_commands_and_subcommands(r):
    names = cmd(r, "COMMAND", "LIST")
    assert len(names) == len(set(names))
    assert {"get", "client", "client|list", "config|get", "object|encoding"} <= set(names)


@pytest.mark.redis8
def test_command_list_filter_by_pattern_matches_full_names(r):
    assert cmd(r, "COMMAND", "LIST", "FILTERBY", "PATTERN", "CLIENT|K*") == ["client|kill"]
    subs = set(cmd(r, "COMMAND", "LIST", "FILTERBY", "PATTERN", "client|*"))
    assert {"client|list", "client|info", "client|kill", "client|no-touch"} <= subs
    assert "client" not in subs
    assert cmd(r, "COMMAND", "LIST", "FILTERBY", "PATTERN", "xx*") == []
    assert set(cmd(r, "COMMAND", "LIST", "FILTERBY", "PATTERN", "?et")) == {"get", "set"}


def test_command_list_filter_by_aclcat(r):
    read = set(cmd(r, "COMMAND", "LIST", "FILTERBY", "ACLCAT", "read"))
    assert {"get", "mget", "object|encoding", "ttl"} <= read
    assert "set" not in read
    # The category name is matched without case; "@read" is not a category name.
    assert set(cmd(r, "COMMAND", "LIST", "FILTERBY", "ACLCAT", "READ")) == read
    assert cmd(r, "COMMAND", "LIST", "FILTERBY", "ACLCAT", "@read") == []
    assert cmd(r, "COMMAND", "LIST", "FILTERBY", "ACLCAT", "nosuch") == []
    conn = set(cmd(r, "COMMAND", "LIST", "FILTERBY", "ACLCAT", "connection"))
    assert {"select", "client|list", "ping", "auth"} <= conn


def test_command_list_filter_by_unknown_module_is_empty(r):
    assert cmd(r, "COMMAND", "LIST", "FILTERBY", "MODULE", "nosuchmodule") == []


@pytest.mark.parametrize("args", [
    ["FILTERBY"],
    ["FILTERBY", "MODULE"],
    ["FILTERBY", "ACLCAT"],
    ["FILTERBY", "BOGUS", "x"],
    ["FILTER", "ACLCAT", "read"],
    ["foo"],
    ["FILTERBY", "PATTERN", "x", "extra"],
])
def test_command_list_syntax_errors(r, args):
    assert error_reply(r, "COMMAND", "LIST", *args) == "ERR syntax error"


# --- COMMAND GETKEYS ---------------------------------------------------------------------

@pytest.mark.parametrize("args,keys", [
    (["OBJECT", "ENCODING", "k"], ["k"]),
    (["object", "freq", "k"], ["k"]),
    (["MEMORY", "USAGE", "k", "SAMPLES", "5"], ["k"]),
    (["ZUNIONSTORE", "d", "2", "a", "b", "WEIGHTS", "1", "2"], ["d", "a", "b"]),
    (["ZINTER", "2", "a", "b"], ["a", "b"]),
    (["ZINTERCARD", "1", "a", "LIMIT", "3"], ["a"]),
    (["SINTERCARD", "2", "a", "b"], ["a", "b"]),
    (["LMPOP", "2", "a", "b", "LEFT"], ["a", "b"]),
    (["BLMPOP", "0", "2", "a", "b", "LEFT"], ["a", "b"]),
    (["ZMPOP", "1", "a", "MIN"], ["a"]),
    (["BZMPOP", "0", "1", "a", "MIN"], ["a"]),
    (["MSET", "a", "1", "b", "2"], ["a", "b"]),
    (["MSETNX", "a", "1", "b"], ["a", "b"]),  # the range steps over the missing value
    (["LMOVE", "a", "b", "LEFT", "RIGHT"], ["a", "b"]),
    (["WATCH", "a", "b"], ["a", "b"]),
    (["GET", ""], [""]),
])
def test_command_getkeys(r, args, keys):
    assert cmd(r, "COMMAND", "GETKEYS", *args) == keys


def test_command_getkeys_many_keys(r):
    keys = ["k%d" % i for i in range(1000)]
    assert cmd(r, "COMMAND", "GETKEYS", "MGET", *keys) == keys
    assert cmd(r, "COMMAND", "GETKEYS", "ZUNION", "500", *keys[:500]) == keys[:500]
    flags = key_flags(r, "DEL", *keys[:300])
    assert flags == [(k, ["RM", "delete"]) for k in keys[:300]]


@pytest.mark.parametrize("numkeys", ["2abc", "02", " 2", "+2"])
def test_command_getkeys_numkeys_read_like_atoi_when_not_an_integer(r, numkeys):
    # The key specs need a plain integer; otherwise Redis falls back to the command's own
    # key finder, which reads the count with atoi and puts the destination last, with
    # no flags.
    assert cmd(r, "COMMAND", "GETKEYS", "ZUNIONSTORE", "d", numkeys, "a", "b") == ["a", "b", "d"]
    assert key_flags(r, "ZUNIONSTORE", "d", numkeys, "a", "b") == [("a", []), ("b", []), ("d", [])]
    assert key_flags(r, "SINTERCARD", numkeys, "a", "b") == [("a", []), ("b", [])]
    assert key_flags(r, "BLMPOP", "0", numkeys, "a", "b", "LEFT") == [("a", []), ("b", [])]


@pytest.mark.parametrize("args", [
    ["ZUNIONSTORE", "d", "0", "a"],
    ["ZUNIONSTORE", "d", "-1", "a"],
    ["ZUNIONSTORE", "d", "3", "a"],
    ["ZUNIONSTORE", "d", "x", "a"],
    ["ZUNIONSTORE", "d", "99999999999999999999", "a"],
    ["ZINTER", "0", "a"],
    ["LMPOP", "0", "a", "LEFT"],
    ["SINTERCARD", "3", "a", "b"],
])
def test_command_getkeys_bad_numkeys(r, args):
    assert error_reply(r, "COMMAND", "GETKEYS", *args) == \
        "ERR Invalid arguments specified for command"


@pytest.mark.parametrize("args,error", [
    (["NOSUCHCMD", "x"], "ERR Invalid command specified"),
    (["OBJECT", "NOSUCH", "k"], "ERR Invalid command specified"),
    (["COMMAND", "NOSUCH"], "ERR Invalid command specified"),
    # A container alone is the container, which has no keys.
    pytest.param(["OBJECT"], "ERR The command has no key arguments", marks=pytest.mark.redis8),
    pytest.param(["CLIENT"], "ERR The command has no key arguments", marks=pytest.mark.redis8),
    pytest.param(["COMMAND"], "ERR The command has no key arguments", marks=pytest.mark.redis8),
    (["OBJECT", "HELP"], "ERR The command has no key arguments"),
    (["CLIENT", "KILL", "x"], "ERR The command has no key arguments"),
    (["CONFIG", "GET", "x"], "ERR The command has no key arguments"),
    # Only NOT_KEY specs: shard channels are not keys.
    (["SPUBLISH", "c", "m"], "ERR The command has no key arguments"),
    (["SSUBSCRIBE", "c"], "ERR The command has no key arguments"),
    # "no key arguments" is checked before the arity.
    (["PING", "a", "b", "c"], "ERR The command has no key arguments"),
    (["GET", "a", "b"], "ERR Invalid number of arguments specified for command"),
    (["OBJECT", "ENCODING"], "ERR Invalid number of arguments specified for command"),
    (["OBJECT", "ENCODING", "k", "x"], "ERR Invalid number of arguments specified for command"),
    (["MSET", "a"], "ERR Invalid number of arguments specified for command"),
    (["BLMPOP", "0", "1", "a"], "ERR Invalid number of arguments specified for command"),
])
def test_command_getkeys_errors_in_redis_order(r, args, error):
    assert error_reply(r, "COMMAND", "GETKEYS", *args) == error
    assert error_reply(r, "COMMAND", "GETKEYSANDFLAGS", *args) == error


def test_command_getkeysandflags(r):
    assert key_flags(r, "LMOVE", "a", "b", "LEFT", "RIGHT") == [
        ("a", ["RW", "access", "delete"]), ("b", ["RW", "insert"])]
    assert key_flags(r, "ZUNIONSTORE", "d", "2", "a", "b") == [
        ("d", ["OW", "update"]), ("a", ["RO", "access"]), ("b", ["RO", "access"])]
    assert key_flags(r, "RENAME", "a", "b") == [
        ("a", ["RW", "access", "delete"]), ("b", ["OW", "update"])]
    assert key_flags(r, "OBJECT", "FREQ", "k") == [("k", ["RO"])]
    assert key_flags(r, "MSET", "a", "1") == [("a", ["OW", "update"])]


def test_command_getkeysandflags_set_depends_on_get(r):
    # SET's key spec has VARIABLE_FLAGS: the flags come from the arguments.
    assert key_flags(r, "SET", "k", "v") == [("k", ["OW", "update"])]
    assert key_flags(r, "SET", "k", "v", "NX", "EX", "5") == [("k", ["OW", "update"])]
    assert key_flags(r, "SET", "k", "v", "get") == [("k", ["RW", "access", "update"])]
    assert key_flags(r, "SET", "k", "v", "NX", "GET") == [("k", ["RW", "access", "update"])]
    assert key_flags(r, "SET", "k", "v", "getx") == [("k", ["OW", "update"])]
    # The value is never taken for the GET option.
    assert key_flags(r, "SET", "k", "get") == [("k", ["OW", "update"])]
    assert cmd(r, "COMMAND", "GETKEYS", "SET", "k", "v", "GET") == ["k"]


# --- COMMAND INFO ------------------------------------------------------------------------

@pytest.mark.parametrize("name", [
    "zunionstore", "zinterstore", "zdiffstore", "zunion", "zinter", "zdiff", "zintercard",
    "sintercard", "lmpop", "blmpop", "zmpop", "bzmpop"])
def test_command_info_movablekeys_where_keys_are_counted(r, name):
    info = command_info(r, name)
    assert "movablekeys" in info[2]
    # Movable keys have no legacy range.
    assert info[3:6] == ([1, 1, 1] if name.endswith("store") else [0, 0, 0])


@pytest.mark.parametrize("name", ["set", "get", "mset", "del", "rename", "lmove", "watch"])
def test_command_info_no_movablekeys_for_fixed_positions(r, name):
    assert "movablekeys" not in command_info(r, name)[2]


@pytest.mark.parametrize("name,tips", [
    ("del", ["request_policy:multi_shard", "response_policy:agg_sum"]),
    ("unlink", ["request_policy:multi_shard", "response_policy:agg_sum"]),
    ("exists", ["request_policy:multi_shard", "response_policy:agg_sum"]),
    ("touch", ["request_policy:multi_shard", "response_policy:agg_sum"]),
    ("mget", ["request_policy:multi_shard"]),
    ("mset", ["request_policy:multi_shard", "response_policy:all_succeeded"]),
    ("ttl", ["nondeterministic_output"]),
    ("pttl", ["nondeterministic_output"]),
    ("object|encoding", ["nondeterministic_output"]),
    ("object|idletime", ["nondeterministic_output"]),
    pytest.param("client|setname", ["request_policy:all_nodes", "response_policy:all_succeeded"], marks=pytest.mark.redis8),
    ("get", []),
])
def test_command_info_tips(r, name, tips):
    assert command_info(r, name)[7] == tips


def test_command_info_select_is_a_connection_command(r):
    assert sorted(command_info(r, "select")[6]) == ["@connection", "@fast"]


@pytest.mark.redis8
def test_subscribe_is_refused_when_out_of_memory(r, restore_config):
    # SUBSCRIBE, PSUBSCRIBE and SSUBSCRIBE are denyoom in Redis 8.
    restore_config("maxmemory", "maxmemory-policy")
    r.config_set("maxmemory-policy", "noeviction")
    r.set("foo", "bar")
    r.config_set("maxmemory", 1)
    for name in ("SUBSCRIBE", "PSUBSCRIBE", "SSUBSCRIBE"):
        assert error_reply(r, name, "ch") == \
            "OOM command not allowed when used memory > 'maxmemory'."
    assert cmd(r, "PUBLISH", "ch", "x") == 0
