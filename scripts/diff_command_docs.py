#!/usr/bin/env python3
"""Compares HotKV's COMMAND DOCS with a reference Redis's (Redis 8.8 by default), for the
command groups HotKV implements: string, bitmap, list, hash, set, sorted-set, generic (keys)
and pubsub.

usage: scripts/diff_command_docs.py [--redis PATH] [--hotkv PATH] [--groups g1,g2,...]
       scripts/diff_command_docs.py --redis-port P --hotkv-port Q   # servers already up

Starts both servers on free ports (unless given ports), reads COMMAND DOCS and COMMAND
INFO from each and prints
  (a) commands (and subcommands) the reference has in those groups that HotKV lacks;
  (b) for commands both have: arity, flags, ACL categories, tips, key specs, and the argument
      trees (name, type, token, optional / multiple / multiple_token, recursively),
      reported at the first level that differs.
Lines about commands or options owned by another issue (streams, SORT,
hash-field expiry, ...) are tagged
"[other issue: ...]" and do not count. Exits 1 when an untagged difference remains.
This is a developer tool (it needs the reference binary), not a test.
"""
import argparse
import os
import socket
import subprocess
import sys
import time

import redis

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# The workspace's Redis 8.8 (../shared/peers beside the checkout; a worktree one level
# deeper finds it two levels up).
DEFAULT_REDIS = next(
    (p for p in (os.path.join(ROOT, *up, "shared", "peers", "redis-8.8", "redis-server")
                 for up in ((".."), ("..", "..")))
     if os.path.exists(p)),
    os.path.join(ROOT, "..", "shared", "peers", "redis-8.8", "redis-server"))
DEFAULT_GROUPS = ["string", "bitmap", "list", "hash", "set", "sorted-set", "generic", "pubsub"]

# Commands another issue owns: name -> which.
OTHER_ISSUE_COMMANDS = {
    **{c: "hash-field expiry" for c in (
        "hexpire", "hpexpire", "hexpireat", "hpexpireat", "hexpiretime", "hpexpiretime",
        "httl", "hpttl", "hpersist", "hgetex", "hsetex")},
    "sort": "SORT", "sort_ro": "SORT",
}
# Options another issue owns: (command, token) -> which. A token anywhere in the argument
# tree of that command (e.g. SET's IFEQ inside its condition block).
OTHER_ISSUE_TOKENS = {}
# Groups another issue owns entirely (only relevant with --groups).
OTHER_ISSUE_GROUPS = {"hyperloglog": "HyperLogLog", "geo": "geo"}


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start(cmd, port):
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.time() + 15
    while time.time() < deadline:
        if proc.poll() is not None:
            raise SystemExit(f"{cmd[0]} exited with {proc.returncode}")
        try:
            if redis.Redis(port=port, socket_timeout=1).ping():
                return proc
        except redis.RedisError:
            time.sleep(0.05)
    proc.kill()
    raise SystemExit(f"{cmd[0]} did not start")


def to_py(x):
    if isinstance(x, bytes):
        return x.decode()
    if isinstance(x, list):
        return [to_py(i) for i in x]
    return x


def pairs(flat):
    return dict(zip(flat[0::2], flat[1::2]))


def read(port):
    """{full name: (doc dict, facts from COMMAND INFO)} for every command and subcommand."""
    r = redis.Redis(port=port, socket_timeout=10)
    conn = r.connection_pool.get_connection("COMMAND")
    try:
        conn.send_command("COMMAND", "DOCS")
        docs = to_py(conn.read_response())
        conn.send_command("COMMAND", "INFO")
        infos = to_py(conn.read_response())
    finally:
        r.connection_pool.release(conn)
    facts = {}

    def add_info(info):
        facts[info[0].lower()] = {
            "arity": info[1],
            "flags": sorted(info[2]),
            "acl categories": sorted(info[6]),
            "tips": sorted(info[7]),
            "key specs": [sorted(map(str, pairs(ks).get("flags", []))) +
                          [repr(pairs(ks).get("begin_search")), repr(pairs(ks).get("find_keys"))]
                          for ks in info[8]],
        }
        for sub in info[9] if len(info) > 9 else []:
            add_info(sub)

    for info in infos:
        add_info(info)
    out = {}

    def add_doc(name, doc, group=None):
        d = pairs(doc)
        d.setdefault("group", group)
        out[name] = (d, facts.get(name, {}))
        subs = d.get("subcommands", [])
        for sub_name, sub_doc in zip(subs[0::2], subs[1::2]):
            add_doc(sub_name.lower(), sub_doc, d["group"])

    for name, doc in zip(docs[0::2], docs[1::2]):
        add_doc(name.lower(), doc)
    return out


def norm(args):
    """Argument list -> list of (name, type, token, flags, children)."""
    out = []
    for a in args or []:
        d = pairs(a)
        flags = tuple(sorted(f for f in d.get("flags", [])
                             if f in ("optional", "multiple", "multiple_token")))
        out.append((d["name"], d["type"], d.get("token"), flags,
                    norm(d["arguments"]) if "arguments" in d else None))
    return out


def show(arg):
    name, typ, token, flags, _ = arg
    text = name if token is None else f"{name} ({token})"
    extra = [typ] + list(flags)
    return f"{text} [{', '.join(extra)}]"


def tokens_in(args):
    for a in args or []:
        if a[2] is not None:
            yield a[2].upper()
        yield from tokens_in(a[4])


def diff_args(path, ref, ours, out):
    """Appends (path, message, tokens involved) for each difference."""
    if ref == ours:
        return
    ref_names = [a[0] for a in ref]
    our_names = [a[0] for a in ours]
    if ref_names != our_names:
        only_ref = [a for a in ref if a[0] not in our_names]
        only_ours = [a for a in ours if a[0] not in ref_names]
        parts = []
        if only_ref:
            parts.append("only in Redis: " + "; ".join(show(a) for a in only_ref))
        if only_ours:
            parts.append("only in HotKV: " + "; ".join(show(a) for a in only_ours))
        if not only_ref and not only_ours:
            parts.append(f"order differs: Redis {ref_names}, HotKV {our_names}")
        out.append((path, ", ".join(parts), set(tokens_in(only_ref)) | set(tokens_in(only_ours))))
    by_name = {a[0]: a for a in ours}
    for a in ref:
        b = by_name.get(a[0])
        if b is None:
            continue
        where = f"{path} > {a[0]}"
        fields = []
        for i, label in ((1, "type"), (2, "token"), (3, "flags")):
            if a[i] != b[i]:
                fields.append(f"{label} Redis {a[i]!r}, HotKV {b[i]!r}")
        if fields:
            out.append((where, "; ".join(fields), {t.upper() for t in (a[2], b[2]) if t}))
        if (a[4] or []) != (b[4] or []):
            diff_args(where, a[4] or [], b[4] or [], out)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--redis", default=DEFAULT_REDIS)
    ap.add_argument("--hotkv", default=os.path.join(ROOT, "build", "release", "hotkv-server"))
    ap.add_argument("--redis-port", type=int)
    ap.add_argument("--hotkv-port", type=int)
    ap.add_argument("--groups", default=",".join(DEFAULT_GROUPS))
    opts = ap.parse_args()
    groups = set(opts.groups.split(","))
    procs = []
    try:
        rport, hport = opts.redis_port, opts.hotkv_port
        if rport is None:
            rport = free_port()
            procs.append(start([opts.redis, "--port", str(rport), "--bind", "127.0.0.1",
                                "--save", "", "--appendonly", "no"], rport))
        if hport is None:
            hport = free_port()
            procs.append(start([opts.hotkv, "--port", str(hport), "--bind", "127.0.0.1"], hport))
        ref, ours = read(rport), read(hport)
    finally:
        for p in procs:
            p.terminate()
            p.wait(10)

    counted = 0
    tagged = 0

    def emit(line, owner):
        nonlocal counted, tagged
        if owner:
            print(f"  {line}  [other issue: {owner}]")
            tagged += 1
        else:
            print(f"  {line}")
            counted += 1

    names = sorted(n for n, (d, _) in ref.items() if d.get("group") in groups)
    print(f"(a) commands Redis has in {', '.join(sorted(groups))} that HotKV lacks:")
    for n in names:
        if n not in ours:
            d = ref[n][0]
            owner = OTHER_ISSUE_COMMANDS.get(n) or OTHER_ISSUE_GROUPS.get(d.get("group"))
            emit(f"{n} ({d.get('group')}, since {d.get('since')})", owner)
    print("(b) differences in the commands both have:")
    for n in names:
        if n not in ours:
            continue
        (rd, rfacts), (od, ofacts) = ref[n], ours[n]
        owner = OTHER_ISSUE_COMMANDS.get(n)
        for fact in ("arity", "flags", "acl categories", "tips", "key specs"):
            if rfacts.get(fact) != ofacts.get(fact):
                emit(f"{n}: {fact} Redis {rfacts.get(fact)}, HotKV {ofacts.get(fact)}", owner)
        found = []
        diff_args(n, norm(rd.get("arguments")), norm(od.get("arguments")), found)
        for path, message, tokens in found:
            owners = {OTHER_ISSUE_TOKENS.get((n, t)) for t in tokens} - {None}
            emit(f"{path}: {message}", owner or ", ".join(sorted(owners)) or None)
    print(f"{len(names)} reference commands compared: {counted} differences, "
          f"{tagged} left to other issues")
    return 1 if counted else 0


if __name__ == "__main__":
    sys.exit(main())
