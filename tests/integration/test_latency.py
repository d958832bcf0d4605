"""LATENCY: events recorded above latency-monitor-threshold, their replies and texts, and
per-command histograms in RESP2 and RESP3 shapes (as Redis 8.8 replies them)."""
import pytest

from conftest import RespError

REDIS_BUCKETS = {1, 2, 4, 8, 16, 33, 66, 132, 264, 528, 1056, 2113, 4227, 8454, 16908,
                 33816, 67633, 135266, 270532, 541065, 1082130}


@pytest.fixture
def srv(start_server):
    return start_server()


def test_no_events_below_or_without_a_threshold(srv):
    r = srv.client()
    r.execute_command("DEBUG", "SLEEP", "0.02")
    assert r.execute_command("LATENCY", "LATEST") == []
    assert r.execute_command("LATENCY", "DOCTOR").startswith(
        "I'm sorry, Dave, I can't do that. Latency monitoring is disabled in this Redis instance.")
    r.config_set("latency-monitor-threshold", 1000)
    r.execute_command("DEBUG", "SLEEP", "0.02")
    assert r.execute_command("LATENCY", "LATEST") == []
    assert r.execute_command("LATENCY", "DOCTOR") == (
        "Dave, no latency spike was observed during the lifetime of this Redis instance, not in "
        "the slightest bit. I honestly think you ought to sit down calmly, take a stress pill, "
        "and think things over.\n")


def test_command_event_latest_history_graph_doctor_reset(srv):
    r = srv.client()
    r.config_set("latency-monitor-threshold", 5)
    r.execute_command("DEBUG", "SLEEP", "0.02")
    latest = r.execute_command("LATENCY", "LATEST")
    assert len(latest) == 1
    name, t, last, top = latest[0]
    assert name == "command" and last >= 5 and top >= last and t > 1700000000
    history = r.execute_command("LATENCY", "HISTORY", "command")
    assert history == [[t, last]]
    graph = r.execute_command("LATENCY", "GRAPH", "command")
    assert graph.startswith(f"command - high {last} ms, low {last} ms (all time high {top} ms)\n"
                            + "-" * 80 + "\n")
    # One sample: four rows, the lowest with "_", a margin, then the label ("0s") downwards.
    assert graph.split("\n")[2:6] == [" ", " ", " ", "_"]
    doctor = r.execute_command("LATENCY", "DOCTOR")
    assert doctor.startswith("Dave, I have observed latency spikes in this Redis instance.")
    assert f"1. command: 1 latency spikes (average {last}ms, mean deviation 0ms" in doctor
    assert "Please use 'CONFIG SET slowlog-log-slower-than 5000'." in doctor
    assert r.execute_command("LATENCY", "RESET", "nosuch") == 0
    assert r.execute_command("LATENCY", "RESET", "command", "nosuch") == 1
    assert r.execute_command("LATENCY", "LATEST") == []
    assert r.execute_command("LATENCY", "HISTORY", "command") == []


def test_errors_and_help(srv):
    r = srv.client()
    with pytest.raises(Exception) as e:
        r.execute_command("LATENCY", "GRAPH", "command")
    assert str(e.value) == "No samples available for event 'command'"
    with pytest.raises(Exception) as e:
        r.execute_command("LATENCY", "foo")
    assert str(e.value) == "unknown subcommand 'foo'. Try LATENCY HELP."
    with pytest.raises(Exception) as e:
        r.execute_command("LATENCY", "HISTORY")
    assert str(e.value) == "wrong number of arguments for 'latency|history' command"
    help_lines = r.execute_command("LATENCY", "HELP")
    assert help_lines[0] == "LATENCY <subcommand> [<arg> [value] [opt] ...]. Subcommands are:"
    assert "HISTOGRAM [COMMAND ...]" in help_lines and help_lines[-1] == "    Print this help."


def test_histogram_resp2_shape(srv):
    r = srv.client()
    for _ in range(3):
        r.set("k", "v")
    r.get("k")
    reply = r.execute_command("LATENCY", "HISTOGRAM", "set", "nosuch", "get")
    assert [reply[0], reply[2]] == ["set", "get"]
    body = reply[1]
    assert body[0] == "calls" and body[1] == 3 and body[2] == "histogram_usec"
    buckets = body[3]
    keys, counts = buckets[0::2], buckets[1::2]
    assert set(keys) <= REDIS_BUCKETS and keys == sorted(keys)
    assert counts == sorted(counts) and counts[-1] == 3  # cumulative
    assert r.execute_command("LATENCY", "HISTOGRAM", "nosuch") == []
    # A container names its subcommands that ran.
    r.config_get("maxmemory")
    names = r.execute_command("LATENCY", "HISTOGRAM", "config")[0::2]
    assert names == ["config|get"]
    assert r.execute_command("LATENCY", "HISTOGRAM", "config|get")[0] == "config|get"
    everything = r.execute_command("LATENCY", "HISTOGRAM")[0::2]
    assert {"set", "get", "config|get"} <= set(everything)


def test_histogram_resp3_shape(srv):
    c = srv.raw()
    c.send_command("HELLO", "3")
    c.read_reply()
    c.send_command("SET", "a", "1")
    c.read_reply()
    c.send_command("LATENCY", "HISTOGRAM", "set")
    c.send(b"")
    # %1 \r\n $3 set %2 calls :1 histogram_usec %1 <bucket> :1
    assert c._line() == b"%1"
    assert c.read_reply() == b"set"
    assert c._line() == b"%2"
    assert c.read_reply() == b"calls" and c.read_reply() == 1
    assert c.read_reply() == b"histogram_usec"
    assert c._line() == b"%1"
    assert c.read_reply() in REDIS_BUCKETS and c.read_reply() == 1


def test_latency_tracking_off_stops_histograms(srv):
    r = srv.client()
    r.config_set("latency-tracking", "no")
    r.set("k", "v")
    assert r.execute_command("LATENCY", "HISTOGRAM", "set") == []
    r.config_set("latency-tracking", "yes")
    r.set("k", "v")
    assert r.execute_command("LATENCY", "HISTOGRAM", "set")[1][1] == 1
