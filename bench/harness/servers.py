"""The server configurations compared, and the probe for commands a server lacks."""
import os
import re
import shlex
import subprocess
from pathlib import Path

from common import HOST, Server

# Options added to every HotKV configuration (e.g. HOTKV_EXTRA_ARGS="--hugepages yes"
# to measure a setting against the same Redis run); shown in the run's report.
HOTKV_EXTRA_ARGS = shlex.split(os.environ.get("HOTKV_EXTRA_ARGS", ""))

# Another hotkv-server binary to measure beside this build in the same run (before/after
# a change: HOTKV_BASELINE=/path/to/old/hotkv-server); its columns are base-t1 and
# base-default, started exactly like hotkv-t1 and hotkv-default.
HOTKV_BASELINE = os.environ.get("HOTKV_BASELINE", "")

# Redis 8.8, the reference peer (issue 21), measured beside Debian's Redis 7.0 when its
# binary is found: --redis8 PATH (main.py), else HOTKV_BENCH_REDIS8, else
# ../shared/peers/redis-8.8/redis-server next to the checkout (or next to its parent: a
# worktree under /work/wt/<name>). Absent: its columns are left out, nothing fails.
_REPO = Path(__file__).resolve().parents[2]
REDIS8_DEFAULTS = [_REPO.parent / "shared" / "peers" / "redis-8.8" / "redis-server",
                   _REPO.parent.parent / "shared" / "peers" / "redis-8.8" / "redis-server"]


def find_redis8(explicit=None):
    """The Redis 8.8 binary to measure, or None. An explicit path that is not an
    executable file is reported by the caller (returned as is when it exists)."""
    for cand in [explicit, os.environ.get("HOTKV_BENCH_REDIS8")]:
        if cand:
            return str(Path(cand).resolve()) if Path(cand).is_file() else None
    for cand in REDIS8_DEFAULTS:
        if cand.is_file() and os.access(cand, os.X_OK):
            return str(cand)
    return None


REDIS8 = None  # set by use_redis8()

# Order of the configurations in tables and charts; the run order alternates (see cpu.py).
# "redis8" (Redis 8.8) is inserted before "redis" (Debian's 7.0) by use_redis8().
CONFIGS = ["hotkv-t1", "hotkv-default", "redis"]
if HOTKV_BASELINE:
    CONFIGS += ["base-t1", "base-default"]
# The peers HotKV is compared with, the reference first (ratio columns follow this order).
PEERS = ["redis"]


def use_redis8(path):
    """Adds the Redis 8.8 configuration (in place: modules hold these lists)."""
    global REDIS8
    REDIS8 = path
    if path and "redis8" not in CONFIGS:
        CONFIGS.insert(CONFIGS.index("redis"), "redis8")
        PEERS.insert(0, "redis8")


def redis_version(binary="redis-server"):
    try:
        out = subprocess.run([binary, "--version"], capture_output=True, text=True).stdout
    except OSError:
        return "?"
    for word in out.split():
        if word.startswith("v="):
            return word[2:]
    return "?"


def peer_short(config, facts):
    """Short name of a peer for ratio column headers: "R8.8", "R7.0"."""
    v = facts.get("redis8_version" if config == "redis8" else "redis_version", "?")
    return "R" + ".".join(v.split(".")[:2])


def label(config, facts):
    if config == "hotkv-t1":
        return "HotKV --threads 1"
    if config == "hotkv-default":
        return f"HotKV default threads ({facts.get('hotkv_default_threads', '?')})"
    if config == "redis":
        return f"Redis {facts.get('redis_version', '?')}"
    if config == "redis8":
        return f"Redis {facts.get('redis8_version', '?')}"
    if config.startswith("hotkv-prefetch-"):
        return f"HotKV --threads 1 --pipeline-prefetch {config.rsplit('-', 1)[1]}"
    if config == "base-t1":
        return "baseline HotKV --threads 1"
    if config == "base-default":
        return f"baseline HotKV default threads ({facts.get('base_default_threads', '?')})"
    return config


def make_server(config, build_dir, core, logdir, extra=()):
    """A Server (not started) for one configuration. `{port}` is filled in by Server."""
    hotkv = str(Path(build_dir) / "hotkv-server")
    if config.startswith("base-"):
        hotkv = HOTKV_BASELINE
        config_shape = "hotkv-" + config[len("base-"):]
    else:
        config_shape = config
    if config_shape == "hotkv-t1":
        argv = [hotkv, "--port", "{port}", "--bind", HOST, "--threads", "1"]
    elif config_shape == "hotkv-default":
        argv = [hotkv, "--port", "{port}", "--bind", HOST]
    elif config.startswith("hotkv-prefetch-"):
        mode = config.rsplit("-", 1)[1]
        argv = [hotkv, "--port", "{port}", "--bind", HOST, "--threads", "1",
                "--pipeline-prefetch", mode]
    elif config in ("redis", "redis8"):
        rdir = Path(logdir) / f"{config}-dir"
        rdir.mkdir(parents=True, exist_ok=True)
        binary = REDIS8 if config == "redis8" else "redis-server"
        argv = [binary, "--port", "{port}", "--bind", HOST, "--save", "",
                "--appendonly", "no", "--dir", str(rdir)]
    else:
        raise ValueError(config)
    if config.startswith(("hotkv", "base-")):
        argv += HOTKV_EXTRA_ARGS
    return Server(config, argv + list(extra), core, logdir)


def start(ctx, config, extra=()):
    """Start one configuration pinned to the server core; note what it tells about itself."""
    server = make_server(config, ctx.build_dir, ctx.server_core, ctx.rawdir, extra).start()
    if config.startswith(("hotkv", "base-")):
        m = re.search(r"(\d+) worker threads", server.logpath.read_text())
        if config == "hotkv-default" and m:
            ctx.facts["hotkv_default_threads"] = int(m.group(1))
        if config == "base-default" and m:
            ctx.facts["base_default_threads"] = int(m.group(1))
        if config in ("hotkv-t1", "hotkv-default"):
            got = server.cli("CONFIG", "GET", "pipeline-prefetch").split()
            ctx.facts["hotkv_pipeline_prefetch_default"] = got[-1] if got else "?"
    return server


# A probe per command: arguments that must succeed on a server that has the command.
PROBES = {
    "SET": ["SET", "bench:probe:str", "x"],
    "GET": ["GET", "bench:probe:str"],
    "MGET": ["MGET", "bench:probe:str", "bench:probe:str"],
    "SETNX": ["SETNX", "bench:probe:nx", "x"],
    "APPEND": ["APPEND", "bench:probe:ap", "x"],
    "INCR": ["INCR", "bench:probe:cnt"],
    "LPUSH": ["LPUSH", "bench:probe:list", "x"],
    "RPUSH": ["RPUSH", "bench:probe:list", "x"],
    "SADD": ["SADD", "bench:probe:set", "x"],
    "HSET": ["HSET", "bench:probe:hash", "f", "x"],
    "MSET": ["MSET", "bench:probe:m1", "x", "bench:probe:m2", "x"],
    "PING": ["PING"],
}
PROBE_KEYS = ["bench:probe:str", "bench:probe:nx", "bench:probe:ap", "bench:probe:cnt",
              "bench:probe:list", "bench:probe:set", "bench:probe:hash", "bench:probe:m1",
              "bench:probe:m2"]


def probe(server, commands):
    """{command: "ok" | "unsupported" | "error: <reply>"}; the probe keys are deleted."""
    out = {}
    for cmd in commands:
        reply = server.cli(*PROBES[cmd], check=False).strip()
        if reply.startswith("ERR unknown command"):
            out[cmd] = "unsupported"
        elif reply.startswith(("ERR", "WRONGTYPE")) or not server.alive():
            out[cmd] = "error: " + reply.splitlines()[0] if reply else "error: no reply"
        else:
            out[cmd] = "ok"
    server.cli("DEL", *PROBE_KEYS, check=False)
    return out
