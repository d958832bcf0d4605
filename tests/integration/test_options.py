"""Start-up options: config file, command-line overrides, bad options, signals, HotKV's own
options (--threads, pipeline-prefetch)."""
import signal
import threading
import time

import pytest

from conftest import cmd, error_reply, free_port, run_server_binary


def base_args():
    return ["--port", str(free_port()), "--bind", "127.0.0.1"]


def test_config_file_and_command_line_override(start_server):
    srv = start_server(config_text="maxclients 50\nhz 20\nslowlog-max-len 33\n",
                       args=["--maxclients", "60"])
    c = srv.client()
    assert c.config_get("maxclients") == {"maxclients": "60"}      # command line wins
    assert c.config_get("hz") == {"hz": "20"}                      # from the file
    assert c.config_get("slowlog-max-len") == {"slowlog-max-len": "33"}
    assert c.config_get("port") == {"port": str(srv.port)}
    c.close()


def test_config_file_comments_blank_lines_and_quotes(start_server):
    text = ("# a comment line\n"
            "\n"
            "   # indented comment\n"
            "maxclients 77\n"
            "maxmemory-policy \"allkeys-lru\"\n"
            "maxmemory 2mb\n")
    srv = start_server(config_text=text)
    c = srv.client()
    assert c.config_get("maxclients") == {"maxclients": "77"}
    assert c.config_get("maxmemory-policy") == {"maxmemory-policy": "allkeys-lru"}
    assert c.config_get("maxmemory") == {"maxmemory": "2097152"}
    c.close()


def test_last_command_line_value_wins(start_server):
    srv = start_server(args=["--maxclients", "60", "--maxclients", "70"])
    c = srv.client()
    assert c.config_get("maxclients") == {"maxclients": "70"}
    c.close()


def test_databases_option(start_server):
    srv = start_server(args=["--databases", "4"])
    c = srv.raw()
    assert c.command("CONFIG", "GET", "databases") == [b"databases", b"4"]
    assert c.command("SELECT", "3") == "OK"
    assert c.command("SELECT", "4") == "ERR DB index is out of range"
    c.close()


def test_requirepass_from_config_file(start_server):
    srv = start_server(config_text="requirepass filepw\n")
    c = srv.raw()
    assert c.command("GET", "k") == "NOAUTH Authentication required."
    assert c.command("AUTH", "filepw") == "OK"
    assert c.command("PING") == "PONG"
    c.close()


@pytest.mark.parametrize("bad", [["--foo", "bar"], ["--no-such-option", "1"],
                                 ["--maxclients", "abc"], ["--maxclients"]])
def test_bad_command_line_option_exits_1(bad):
    rc, out = run_server_binary(base_args() + bad)
    assert rc == 1, out
    assert bad[0][2:] in out, out


def test_unknown_directive_in_config_file_exits_1(tmp_path):
    conf = tmp_path / "bad.conf"
    conf.write_text("maxclients 50\nbogus-directive 1\n")
    rc, out = run_server_binary([str(conf)] + base_args())
    assert rc == 1, out
    assert "bogus-directive" in out, out


def test_missing_config_file_exits_1(tmp_path):
    rc, out = run_server_binary([str(tmp_path / "nonexistent.conf")] + base_args())
    assert rc == 1, out
    assert "nonexistent.conf" in out, out


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
def test_signal_exits_0(start_server, sig):
    srv = start_server()
    c = srv.client()
    c.set("k", "v")
    c.close()
    assert srv.stop(sig=sig) == 0


def test_sigterm_with_connected_clients(start_server):
    srv = start_server()
    conns = [srv.raw() for _ in range(5)]
    for c in conns:
        assert c.command("PING") == "PONG"
    assert srv.stop() == 0
    for c in conns:
        assert c.closed_by_server()
        c.close()


# --- HotKV-only options ----------------------------------------------------------------

@pytest.mark.hotkv_only
@pytest.mark.parametrize("threads", ["1", "4"])
def test_threads_option(start_server, threads):
    srv = start_server(hotkv_args=["--threads", threads])
    errors = []

    def work(i):
        try:
            c = srv.client()
            pipe = c.pipeline(transaction=False)
            for j in range(1000):
                pipe.incr("counter")
                pipe.set(f"k:{i}:{j}", j)
            pipe.execute()
            c.close()
        except Exception as e:
            errors.append(e)

    workers = [threading.Thread(target=work, args=(i,)) for i in range(8)]
    for t in workers:
        t.start()
    for t in workers:
        t.join(timeout=60)
    assert not errors
    c = srv.client()
    assert c.get("counter") == "8000"
    assert c.dbsize() == 8001
    c.close()


@pytest.mark.hotkv_only
def test_threads_option_invalid():
    rc, out = run_server_binary(base_args() + ["--threads", "abc"])
    assert rc == 1, out
    assert "threads" in out, out


@pytest.mark.hotkv_only
def test_pipeline_prefetch_config(start_server):
    srv = start_server()
    c = srv.client()
    # on by default (bench/notes/2026-12-03-fastpath-vs-redis8.md)
    assert cmd(c, "CONFIG", "GET", "pipeline-prefetch") == ["pipeline-prefetch", "yes"]
    for setting in ("no", "yes"):
        assert cmd(c, "CONFIG", "SET", "pipeline-prefetch", setting) == "OK"
        assert cmd(c, "CONFIG", "GET", "pipeline-prefetch") == ["pipeline-prefetch", setting]
        # a pipeline answers in order either way
        pipe = c.pipeline(transaction=False)
        for i in range(1000):
            pipe.set(f"p{i}", i)
            pipe.get(f"p{i}")
        replies = pipe.execute()
        assert replies == [x for i in range(1000) for x in (True, str(i))]
    assert error_reply(c, "CONFIG", "SET", "pipeline-prefetch", "maybe") == (
        "ERR CONFIG SET failed (possibly related to argument 'pipeline-prefetch') - "
        "argument must be 'yes' or 'no'")
    c.close()


@pytest.mark.hotkv_only
def test_pipeline_prefetch_from_command_line(start_server):
    srv = start_server(hotkv_args=["--pipeline-prefetch", "yes"])
    c = srv.client()
    assert cmd(c, "CONFIG", "GET", "pipeline-prefetch") == ["pipeline-prefetch", "yes"]
    c.close()


def thp_mode():
    try:
        with open("/sys/kernel/mm/transparent_hugepage/enabled") as f:
            text = f.read()
    except OSError:
        return "never"
    return text[text.index("[") + 1:text.index("]")]


def anon_huge_kb(pid):
    with open(f"/proc/{pid}/smaps_rollup") as f:
        for line in f:
            if line.startswith("AnonHugePages:"):
                return int(line.split()[1])
    return 0


@pytest.mark.hotkv_only
def test_prefault_memory_option(start_server):
    srv = start_server()
    c = srv.client()
    assert c.config_get("prefault-memory") == {"prefault-memory": "yes"}
    assert error_reply(c, "CONFIG", "SET", "prefault-memory", "no") == (
        "ERR CONFIG SET failed (possibly related to argument 'prefault-memory') - can't set "
        "immutable config")
    mimalloc = c.info("memory")["mem_allocator"].startswith("mimalloc")  # not under ASan
    assert c.info("memory")["mem_prefault_active"] == (1 if mimalloc else 0)
    # 40 MB of values written while the prefault thread pages in what the allocator
    # commits: every value reads back unchanged.
    p = c.pipeline(transaction=False)
    for i in range(20000):
        p.set(f"k{i}", f"{i:08d}" * 250)
    p.execute()
    p = c.pipeline(transaction=False)
    for i in range(20000):
        p.get(f"k{i}")
    values = p.execute()
    assert all(v == f"{i:08d}" * 250 for i, v in enumerate(values))
    if mimalloc:
        assert c.info("memory")["mem_prefault_ranges"] > 0
        deadline = time.monotonic() + 20  # populated by a background thread
        while c.info("memory")["mem_prefault_bytes"] == 0 and time.monotonic() < deadline:
            time.sleep(0.01)
        assert c.info("memory")["mem_prefault_bytes"] > 0
    c.close()
    srv = start_server(hotkv_args=["--prefault-memory", "no"])
    c = srv.client()
    assert c.config_get("prefault-memory") == {"prefault-memory": "no"}
    c.set("k", "v")
    info = c.info("memory")
    assert info["mem_prefault_active"] == 0
    assert info["mem_prefault_ranges"] == 0
    c.close()


@pytest.mark.hotkv_only
def test_hugepages_option(start_server):
    srv = start_server()
    c = srv.client()
    assert c.config_get("hugepages") == {"hugepages": "no"}
    assert error_reply(c, "CONFIG", "SET", "hugepages", "yes") == (
        "ERR CONFIG SET failed (possibly related to argument 'hugepages') - can't set "
        "immutable config")
    c.close()
    srv = start_server(hotkv_args=["--hugepages", "yes"])
    c = srv.client()
    assert c.config_get("hugepages") == {"hugepages": "yes"}
    p = c.pipeline(transaction=False)
    for i in range(20000):
        p.set(f"k{i}", "v" * 2000)
    p.execute()
    assert c.dbsize() == 20000
    mimalloc = c.info("memory")["mem_allocator"].startswith("mimalloc")  # not under ASan
    if mimalloc and thp_mode() in ("always", "madvise"):
        # 40 MB of values: the allocator's huge-page regions are backed by 2 MB pages.
        assert anon_huge_kb(srv.proc.pid) >= 2048
    c.close()
