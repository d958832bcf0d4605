"""Loading data sets into a server we started.

- `preload_padded`: keys `key:<12 digits>` (redis-benchmark's `-r` names), for the
  redis-benchmark parts (CPU per op, pipeline prefetch), via `redis-cli --pipe`.
- `preload_loadgen`: keys `key:<i>` (hotkv-loadgen's names), for the latency sweep and
  the memory figure, via `hotkv-loadgen --load`.
Both write `value_size` bytes per value and check DBSIZE afterwards.
"""
import json
import re
import subprocess
import time
from pathlib import Path

from common import HOST, log

PRELOAD_PY = Path(__file__).resolve().parent / "preload.py"


def _dbsize(server):
    return int(server.cli("DBSIZE").strip())


def preload_padded(server, n, value_size, core, cmdlog):
    gen_argv = ["taskset", "-c", str(core), "python3", str(PRELOAD_PY), str(n), str(value_size)]
    cli_argv = ["taskset", "-c", str(core), "redis-cli", "-h", HOST, "-p", str(server.port), "--pipe"]
    cmdlog.add(gen_argv[3:] + ["|"] + cli_argv, server.port, "preload for redis-benchmark key names")
    t0 = time.monotonic()
    gen = subprocess.Popen(gen_argv, stdout=subprocess.PIPE)
    r = subprocess.run(cli_argv, stdin=gen.stdout, capture_output=True, text=True)
    gen.stdout.close()
    gen.wait()
    secs = time.monotonic() - t0
    m = re.search(r"errors: (\d+), replies: (\d+)", r.stdout)
    if r.returncode != 0 or not m or int(m.group(1)) != 0 or int(m.group(2)) != n:
        raise RuntimeError(f"preload into {server.name} failed: {r.stdout[-300:]} {r.stderr[-300:]}")
    size = _dbsize(server)
    if size < n:
        raise RuntimeError(f"{server.name}: DBSIZE {size} after loading {n} keys")
    sample = server.cli("STRLEN", f"key:{n // 2:012d}").strip()
    if sample != str(value_size):
        raise RuntimeError(f"{server.name}: STRLEN of a loaded key is {sample}")
    log(f"{server.name}: loaded {n} keys in {secs:.1f}s")
    return {"keys": n, "seconds": secs, "dbsize": size}


def preload_loadgen(server, n, value_size, core, loadgen, cmdlog):
    argv = ["taskset", "-c", str(core), str(loadgen), "--host", HOST, "--port", str(server.port),
            "--load", str(n), "--value-size", str(value_size), "--json"]
    cmdlog.add(argv, server.port, "preload for the sweep and the memory figure")
    r = subprocess.run(argv, capture_output=True, text=True)
    try:
        res = json.loads(r.stdout)
    except json.JSONDecodeError:
        raise RuntimeError(f"hotkv-loadgen --load: rc {r.returncode}: {r.stdout[-300:]} {r.stderr[-300:]}")
    if r.returncode != 0 or not res.get("complete"):
        raise RuntimeError(f"hotkv-loadgen --load into {server.name} incomplete: {r.stdout[-400:]}")
    res["dbsize"] = _dbsize(server)
    log(f"{server.name}: loaded {n} keys with hotkv-loadgen in {res['seconds']:.1f}s")
    return res
