"""pipeline-prefetch must never change a reply: the same pipelined workload, run with the
option off and on, must produce byte-identical replies."""
import random

import pytest


def workload(seed, n):
    rnd = random.Random(seed)
    cmds = []
    for i in range(n):
        k = f"key:{rnd.randrange(300)}"
        op = rnd.randrange(17)
        if op == 0:
            cmds.append(("SET", k, f"v{rnd.randrange(1000)}"))
        elif op == 1:
            cmds.append(("GET", k))
        elif op == 2:
            cmds.append(("INCR", f"ctr:{rnd.randrange(50)}"))
        elif op == 3:
            cmds.append(("DEL", k))
        elif op == 4:
            cmds.append(("MGET", k, f"key:{rnd.randrange(300)}", f"key:{rnd.randrange(300)}"))
        elif op == 5:
            cmds.append(("APPEND", k, "xy"))
        elif op == 6:
            cmds.append(("LPUSH", f"list:{rnd.randrange(20)}", str(i)))
        elif op == 7:
            cmds.append(("LRANGE", f"list:{rnd.randrange(20)}", "0", "3"))
        elif op == 8:
            cmds.append(("SELECT", str(rnd.randrange(3))))
        elif op == 9:
            cmds.append(("EXISTS", k))
        elif op == 10:
            cmds.append(("SETNX", k, "nx"))
        elif op == 11:
            cmds.append(("TYPE", k))
        elif op == 12:
            cmds.append(("GETSET", k, "gs"))
        elif op == 13:
            cmds.append(("STRLEN", k))
        elif op == 14:
            # queued commands and EXEC: keys named by commands that are not run at once
            cmds += [("MULTI",), ("GET", k), ("INCR", f"ctr:{rnd.randrange(50)}"),
                     ("SET", f"key:{rnd.randrange(300)}", "m"), ("EXEC",)]
        elif op == 15:
            # counted keys (the first one is prefetched when the count is 1 or more),
            # also with counts that are 0, malformed or too large
            n = rnd.choice(["1", "2", "0", "01", "-1", "x", "9"])
            cmds.append(("EVAL", "return redis.call('INCR', KEYS[1] or 'ctr:0')", n,
                         f"ctr:{rnd.randrange(50)}", k))
            cmds.append(("ZUNION", n, f"z:{rnd.randrange(5)}", f"z:{rnd.randrange(5)}"))
        else:
            cmds.append(("GET",))  # rejected before it runs (wrong arity)
    return cmds


def encode(cmds):
    out = []
    for c in cmds:
        out.append(b"*%d\r\n" % len(c))
        for a in c:
            a = a.encode()
            out.append(b"$%d\r\n%s\r\n" % (len(a), a))
    return b"".join(out)


def run(server, cmds, prefetch):
    admin = server.client()
    admin.flushall()
    admin.config_set("pipeline-prefetch", "yes" if prefetch else "no")
    conn = server.raw()
    replies = []
    # Pipelines of 100 commands sent in one write, so the server sees whole batches.
    for start in range(0, len(cmds), 100):
        chunk = cmds[start:start + 100]
        conn.send(encode(chunk))
        for _ in chunk:
            replies.append(conn.read_reply())
    conn.close()
    admin.config_set("pipeline-prefetch", "yes")  # the default
    return replies


@pytest.mark.hotkv_only
def test_prefetch_never_changes_replies(start_server):
    srv = start_server(hotkv_args=["--threads", "2"])
    cmds = workload(1234, 20000)
    off = run(srv, cmds, False)
    on = run(srv, cmds, True)
    assert len(off) == len(on) == len(cmds)
    for i, (a, b) in enumerate(zip(off, on)):
        assert a == b, f"command {i} {cmds[i]}: {a!r} != {b!r}"


@pytest.mark.hotkv_only
def test_prefetch_config_default_and_set(r):
    assert r.config_get("pipeline-prefetch") == {"pipeline-prefetch": "yes"}
    r.config_set("pipeline-prefetch", "no")
    assert r.config_get("pipeline-prefetch") == {"pipeline-prefetch": "no"}
    r.config_set("pipeline-prefetch", "yes")


@pytest.mark.hotkv_only
@pytest.mark.parametrize("prefetch", ["no", "yes"])
def test_pipeline_of_100_costs_one_read_and_one_write(start_server, prefetch):
    srv = start_server(hotkv_args=["--threads", "1", "--pipeline-prefetch", prefetch])
    conn = srv.raw()

    def counters():
        info = conn.command("INFO", "stats").decode()
        fields = dict(line.split(":", 1) for line in info.splitlines() if ":" in line)
        return int(fields["total_reads_processed"]), int(fields["total_writes_processed"])

    # Warm up: let the read buffer reach the batch's size.
    cmds = [("SET", f"k{i}", "x" * 256) for i in range(100)]
    for _ in range(3):
        conn.send(encode(cmds))
        for _ in cmds:
            assert conn.read_reply() == "OK"
    reads0, writes0 = counters()
    conn.send(encode(cmds))
    for _ in cmds:
        assert conn.read_reply() == "OK"
    reads1, writes1 = counters()
    # Between the two INFO snapshots: the pipeline's read and write, the first INFO's
    # reply write and the second INFO's read.
    assert (reads1 - reads0, writes1 - writes0) == (2, 2)
    conn.close()
