"""SLOWLOG as Redis 8.8 (checked by hand against redis-server 8.8): entry limits and their
texts, redacted passwords, commands inside MULTI/EXEC, blocked commands (logged when they
end, with the time they ran, not the time they waited), slowlog-max-len 0, the INFO
counters (stats slowlog_commands_*, commandstats slowlog_*) and SLOWLOG's own errors.
(The basic entry format is tested in test_server.py.)"""
import re
import threading
import time

import pytest

from conftest import cmd, error_reply, wait_until

pytestmark = pytest.mark.redis8  # the INFO counters and some texts are Redis 8.x


@pytest.fixture
def c(server, restore_config):
    restore_config("slowlog-log-slower-than", "slowlog-max-len", "requirepass")
    client = server.client()
    client.config_set("slowlog-log-slower-than", 0)
    client.config_set("slowlog-max-len", 128)
    cmd(client, "SLOWLOG", "RESET")
    yield client
    client.config_set("slowlog-log-slower-than", -1)
    client.close()


def entries(client, *names):
    """Logged argument lists (newest first), without SLOWLOG and CONFIG themselves."""
    out = []
    for e in cmd(client, "SLOWLOG", "GET", "-1"):
        if e[3][0].upper() in ("SLOWLOG", "INFO") or e[3][:2] == ["CONFIG", "SET"] and \
                e[3][2] == "slowlog-log-slower-than":
            continue
        if not names or e[3][0].upper() in names:
            out.append(e)
    return out


def test_argument_count_limit(c):
    c.execute_command("RPUSH", "l", *range(30))  # 32 arguments: all kept
    assert entries(c, "RPUSH")[0][3] == ["RPUSH", "l"] + [str(i) for i in range(30)]
    c.execute_command("RPUSH", "l", *range(31))  # 33: the 32nd says how many are left
    assert entries(c, "RPUSH")[0][3] == ["RPUSH", "l"] + [str(i) for i in range(29)] + \
        ["... (2 more arguments)"]


def test_argument_length_limit(c):
    c.set("k128", "a" * 128)
    c.set("k129", "b" * 129)
    got = entries(c, "SET")
    assert got[1][3] == ["SET", "k128", "a" * 128]
    assert got[0][3] == ["SET", "k129", "b" * 128 + "... (1 more bytes)"]


def test_passwords_are_redacted(c):
    assert error_reply(c, "AUTH", "secret").startswith("ERR AUTH <password> called without")
    assert error_reply(c, "AUTH", "user", "secret").startswith("WRONGPASS")
    assert error_reply(c, "HELLO", "3", "AUTH", "nobody", "secret").startswith("WRONGPASS")
    assert error_reply(c, "HELLO", "9", "AUTH", "nobody", "secret").startswith("NOPROTO")
    assert cmd(c, "CONFIG", "SET", "requirepass", "") == "OK"
    got = [e[3] for e in entries(c)][:5]
    assert got == [
        ["CONFIG", "SET", "requirepass", "(redacted)"],
        ["HELLO", "9", "AUTH", "nobody", "secret"],  # refused before its options: as Redis
        ["HELLO", "3", "AUTH", "(redacted)", "(redacted)"],
        ["AUTH", "(redacted)", "(redacted)"],
        ["AUTH", "(redacted)"],
    ]


def test_transaction_logs_its_commands_not_exec(c):
    p = c.pipeline(transaction=True)
    p.set("a", "1")
    p.execute_command("INCR", "a")
    p.execute()
    got = [e[3] for e in entries(c)][:3]
    assert got == [["INCR", "a"], ["SET", "a", "1"], ["MULTI"]]


def test_commands_redis_rewrites_are_logged_as_sent(c):
    # Redis rewrites these for replication (PXAT, PEXPIREAT, SET, SREM, ...) but logs
    # what the client sent.
    sent = [["SET", "k", "v", "EX", "100"], ["GETEX", "k", "EX", "100"], ["EXPIRE", "k", "100"],
            ["INCRBYFLOAT", "f", "1.5"], ["SADD", "s", "a", "b"], ["SPOP", "s"],
            ["RPUSH", "l", "a"], ["BLMOVE", "l", "l2", "LEFT", "RIGHT", "0"]]
    for args in sent:
        c.execute_command(*args)
    assert [e[3] for e in entries(c)][:len(sent)] == sent[::-1]


def test_blocked_command_is_logged_when_it_ends(c, server):
    blocked = server.client()
    blocked.client_setname("waiter")
    start = time.time()
    assert blocked.blpop("nolist", timeout=0.3) is None   # timed out
    e = entries(c, "BLPOP")[0]
    assert e[3] == ["BLPOP", "nolist", "0.3"]
    assert e[5] == "waiter"
    assert e[2] < 200000  # the time it ran, not the 300 ms it waited
    assert time.time() - start >= 0.25

    # Served by a push: logged after the push that served it.
    reply = {}
    t = threading.Thread(target=lambda: reply.setdefault("v", blocked.blpop("q", timeout=5)))
    t.start()
    wait_until(lambda: int(c.info("clients")["blocked_clients"]) == 1)
    time.sleep(0.2)
    c.rpush("q", "x")
    t.join()
    assert reply["v"] == ("q", "x")
    got = entries(c, "BLPOP", "RPUSH")
    assert got[0][3] == ["BLPOP", "q", "5"] and got[1][3] == ["RPUSH", "q", "x"]
    assert got[0][0] > got[1][0]
    assert got[0][2] < 150000
    blocked.close()


def test_client_unblock_error_counts_as_failed(c, server):
    cmd(c, "CONFIG", "RESETSTAT")
    blocked = server.client()
    conn = blocked.connection_pool.get_connection("BLPOP")
    conn.send_command("CLIENT", "ID")
    cid = conn.read_response()
    conn.send_command("BLPOP", "nothing", "10")
    wait_until(lambda: int(c.info("clients")["blocked_clients"]) == 1)
    assert c.client_unblock(cid, error=True)
    with pytest.raises(Exception, match="UNBLOCKED"):
        conn.read_response()
    blocked.connection_pool.release(conn)
    blocked.close()
    stat = c.info("commandstats")["cmdstat_blpop"]
    assert stat["calls"] == 1 and stat["failed_calls"] == 1 and stat["slowlog_count"] == 1
    assert entries(c, "BLPOP")[0][3] == ["BLPOP", "nothing", "10"]


def test_max_len_zero_logs_nothing(c):
    c.config_set("slowlog-max-len", 0)
    cmd(c, "SLOWLOG", "RESET")
    cmd(c, "CONFIG", "RESETSTAT")
    c.set("x", "y")
    assert cmd(c, "SLOWLOG", "LEN") == 0
    assert c.info("stats")["slowlog_commands_count"] == 0
    assert "slowlog_count" not in cmd(c, "INFO", "commandstats")


def test_info_counters(c):
    cmd(c, "CONFIG", "RESETSTAT")
    assert c.info("stats")["slowlog_commands_count"] == 1  # RESETSTAT, logged after it ran
    c.set("a", "1")
    c.set("b", "2")
    c.get("a")
    stats = c.info("stats")
    assert stats["slowlog_commands_count"] >= 3  # the three, and the INFO before them
    text = cmd(c, "INFO", "stats")
    assert re.search(r"\r\nslowlog_commands_count:\d+\r\nslowlog_commands_time_ms_max:\d+\.\d\d\r\n"
                     r"slowlog_commands_time_ms_sum:\d+\.\d\d\r\n", text)
    line = [l for l in cmd(c, "INFO", "commandstats").split("\r\n") if l.startswith("cmdstat_set:")][0]
    assert re.fullmatch(r"cmdstat_set:calls=2,usec=\d+,usec_per_call=\d+\.\d\d,rejected_calls=0,"
                        r"failed_calls=0,slowlog_count=2,slowlog_time_ms_sum=\d+\.\d\d,"
                        r"slowlog_time_ms_max=\d+\.\d\d", line), line
    # A command never logged has no slowlog fields.
    c.config_set("slowlog-log-slower-than", -1)
    c.strlen("a")
    line = [l for l in cmd(c, "INFO", "commandstats").split("\r\n") if l.startswith("cmdstat_strlen:")][0]
    assert "slowlog" not in line
    # SLOWLOG RESET drops the entries, not the counters; RESETSTAT the counters, not the entries.
    before = c.info("stats")["slowlog_commands_count"]
    cmd(c, "SLOWLOG", "RESET")
    assert c.info("stats")["slowlog_commands_count"] == before
    c.config_set("slowlog-log-slower-than", 0)
    c.set("z", "1")
    assert cmd(c, "SLOWLOG", "LEN") >= 1
    length = cmd(c, "SLOWLOG", "LEN")
    cmd(c, "CONFIG", "RESETSTAT")
    assert cmd(c, "SLOWLOG", "LEN") >= length
    assert c.info("stats")["slowlog_commands_count"] <= 2  # RESETSTAT itself and this INFO


def test_slowlog_errors_and_help(c):
    assert error_reply(c, "SLOWLOG", "GET", "1", "2") == \
        "ERR unknown subcommand or wrong number of arguments for 'GET'. Try SLOWLOG HELP."
    assert error_reply(c, "slowlog", "get", "1", "2") == \
        "ERR unknown subcommand or wrong number of arguments for 'get'. Try SLOWLOG HELP."
    assert error_reply(c, "SLOWLOG", "GET", "1.5") == "ERR count should be greater than or equal to -1"
    assert error_reply(c, "SLOWLOG", "GET", "99999999999999999999") == \
        "ERR count should be greater than or equal to -1"
    assert error_reply(c, "SLOWLOG", "LEN", "1") == "ERR wrong number of arguments for 'slowlog|len' command"
    assert error_reply(c, "SLOWLOG", "RESET", "1") == \
        "ERR wrong number of arguments for 'slowlog|reset' command"
    assert error_reply(c, "SLOWLOG") == "ERR wrong number of arguments for 'slowlog' command"
    assert cmd(c, "SLOWLOG", "HELP") == [
        "SLOWLOG <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
        "GET [<count>]",
        "    Return top <count> entries from the slowlog (default: 10, -1 mean all).",
        "    Entries are made of:",
        "    id, timestamp, time in microseconds, arguments array, client IP and port,",
        "    client name",
        "LEN",
        "    Return the length of the slowlog.",
        "RESET",
        "    Reset the slowlog.",
        "HELP",
        "    Print this help."]
