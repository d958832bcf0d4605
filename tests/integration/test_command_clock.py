"""Command timing with one clock read per command (server/command_clock.h, CommandClockTurn):
within one read's pipeline a command's start is the previous command's end. What that
must not change: a command after a slow one in the same pipeline is not charged the slow
one's time (INFO commandstats usec, SLOWLOG), nor is a script's inner command charged the
time of the commands before its script."""
import pytest

from conftest import cmd, resp_command

THRESHOLD_US = 200000  # slowlog-log-slower-than; DEBUG SLEEP 0.3 is above it


@pytest.fixture
def c(server, restore_config):
    restore_config("slowlog-log-slower-than", "slowlog-max-len")
    client = server.client()
    client.config_set("slowlog-log-slower-than", THRESHOLD_US)
    client.config_set("slowlog-max-len", 128)
    cmd(client, "SLOWLOG", "RESET")
    cmd(client, "CONFIG", "RESETSTAT")
    yield client
    client.close()


def commandstats(client):
    out = {}
    for line in cmd(client, "INFO", "commandstats").split("\r\n"):
        if line.startswith("cmdstat_"):
            name, fields = line[len("cmdstat_"):].split(":", 1)
            out[name] = dict(f.split("=") for f in fields.split(","))
    return out


def pipelined(server, *commands):
    """Sends the commands in one write and returns their replies."""
    raw = server.raw()
    raw.send(b"".join(resp_command(*a) for a in commands))
    replies = [raw.read_reply() for _ in commands]
    raw.close()
    return replies


def test_command_after_a_slow_one_is_timed_alone(server, c):
    replies = pipelined(server, ("DEBUG", "SLEEP", "0.3"), ("PING",), ("SET", "clk:a", "1"),
                        ("GET", "clk:a"))
    assert replies == ["OK", "PONG", "OK", b"1"]
    logged = [e[3] for e in cmd(c, "SLOWLOG", "GET", "-1")]
    assert logged == [["DEBUG", "SLEEP", "0.3"]]
    stats = commandstats(c)
    assert int(stats["debug"]["usec"]) >= 300000
    for name in ("ping", "set", "get"):
        assert stats[name]["calls"] == "1"
        assert int(stats[name]["usec"]) < THRESHOLD_US, (name, stats[name])
    hist = c.execute_command("LATENCY", "HISTOGRAM", "ping")
    buckets = hist[1][3]
    assert max(buckets[0::2]) < THRESHOLD_US  # its one call in a bucket under the sleep


def test_script_inner_commands_are_timed_alone(server, c):
    script = "redis.call('set', 'clk:b', '2') return redis.call('get', 'clk:b')"
    replies = pipelined(server, ("DEBUG", "SLEEP", "0.3"), ("EVAL", script, "0"),
                        ("DEBUG", "SLEEP", "0.3"), ("EVAL", script, "0"))
    assert replies == ["OK", b"2", "OK", b"2"]
    stats = commandstats(c)
    assert stats["set"]["calls"] == "2" and stats["get"]["calls"] == "2"
    for name in ("eval", "set", "get"):
        assert int(stats[name]["usec"]) < THRESHOLD_US, (name, stats[name])
    logged = [e[3][0] for e in cmd(c, "SLOWLOG", "GET", "-1")]
    assert logged == ["DEBUG", "DEBUG"]


def test_transaction_after_a_slow_command(server, c):
    c.delete("clk:c")
    replies = pipelined(server, ("DEBUG", "SLEEP", "0.3"), ("MULTI",), ("INCR", "clk:c"),
                        ("INCR", "clk:c"), ("EXEC",))
    assert replies == ["OK", "OK", "QUEUED", "QUEUED", [1, 2]]
    stats = commandstats(c)
    for name in ("multi", "incr", "exec"):
        assert int(stats[name]["usec"]) < THRESHOLD_US, (name, stats[name])
    assert [e[3][0] for e in cmd(c, "SLOWLOG", "GET", "-1")] == ["DEBUG"]
