#!/usr/bin/env python3
"""Compares HotKV's command table (COMMAND INFO from a running server) with the reference
command descriptions in ../shared/reference/commands (a maintainers' folder; users and
CI do not have it, so this is a developer tool, not a test).

usage: scripts/check_command_table.py [--port 6379] [--reference DIR] [--no-docs]
       scripts/check_command_table.py [--port 6379] --peer-port PORT
Prints one line per difference in arity, flags, key specs or COMMAND DOCS arguments
(name, type, token, optional / multiple / multiple_token, recursively); exits 1 if any.

The reference descriptions are Valkey 8's; Redis 8 differs from them in a few command
flags (REDIS8_FLAGS below), which are checked as Redis 8 has them. With --peer-port the
reference is instead a running Redis (start /work/shared/peers/redis-8.8/redis-server on
that port): every COMMAND INFO field of every command both servers have is compared
(arity, flags including movablekeys, legacy first/last/step, ACL categories, tips, key
specs, subcommands).
"""
import argparse
import glob
import json
import os
import sys

import redis

FLAG_MAP = {"WRITE": "write", "READONLY": "readonly", "DENYOOM": "denyoom", "ADMIN": "admin",
            "PUBSUB": "pubsub", "NOSCRIPT": "noscript", "BLOCKING": "blocking", "LOADING": "loading",
            "STALE": "stale", "SKIP_MONITOR": "skip_monitor", "SKIP_SLOWLOG": "skip_slowlog",
            "ASKING": "asking", "FAST": "fast", "NO_AUTH": "no_auth", "MAY_REPLICATE": "may_replicate",
            "NO_MANDATORY_KEYS": "no_mandatory_keys", "NO_ASYNC_LOADING": "no_async_loading",
            "NO_MULTI": "no_multi", "ALLOW_BUSY": "allow_busy", "PROTECTED": "protected"}
IGNORED_FLAGS = {"module", "sentinel", "only_sentinel", "movablekeys"}
# Flags Redis keeps in its table but leaves out of COMMAND INFO (the reference lists them).
HIDDEN_FLAGS = {"may_replicate", "protected", "touches_arbitrary_keys"}
# Where Redis 8.8's COMMAND INFO flags differ from the Valkey 8 descriptions otherwise:
# (added, removed). Redis 8 denies new subscriptions when out of memory, and MULTI/WATCH
# are not no_multi there (nesting is refused by the commands themselves).
REDIS8_FLAGS = {
    "subscribe": ({"denyoom"}, set()), "psubscribe": ({"denyoom"}, set()),
    "ssubscribe": ({"denyoom"}, set()),
    "multi": (set(), {"no_multi"}), "watch": (set(), {"no_multi"}),
}


# COMMAND DOCS arguments the reference has and Redis 8.8 does not: (command, argument).
# Redis 8.8 answers "Unknown client type 'primary'".
REDIS8_ABSENT_DOC_ARGS = {("client|kill", "primary")}


def drop_doc_args(name, args):
    out = []
    for a in args:
        if (name, a["name"]) in REDIS8_ABSENT_DOC_ARGS:
            continue
        if "arguments" in a:
            a = dict(a, arguments=drop_doc_args(name, a["arguments"]))
        out.append(a)
    return out

# The reference descriptions are Valkey 8's. COMMAND DOCS arguments where Redis 8.8 (which
# HotKV follows; scripts/diff_command_docs.py compares with it) differs from them, as
# (command, argument name): the reference has them and Redis 8.8 does not, or the other way.
# Redis 8.8's BITCOUNT puts end and unit straight in its range block (no end-unit-block);
# BITOP gained DIFF/DIFF1/ANDOR/ONE (8.2), SET its IF* conditions (8.4), XADD/XTRIM their
# KEEPREF/DELREF/ACKED condition (8.2).
REDIS8_REMOVED_DOC_ARGS = {("zscan", "noscores"), ("bitcount", "end-unit-block")}
REDIS8_ADDED_DOC_ARGS = ({(c, "count") for c in ("zunion", "zinter", "zunionstore", "zinterstore")}
                         | {("bitcount", "end"), ("bitcount", "unit")}
                         | {("bitop", op) for op in ("diff", "diff1", "andor", "one")}
                         | {("set", a) for a in ("ifeq-value", "ifne-value", "ifdeq-digest",
                                                 "ifdne-digest")}
                         | {("xadd", "condition"), ("xtrim", "condition")})


def prune_args(name, args, drop):
    """Normalized arguments without the (name, argument) pairs in `drop`, at any depth."""
    return [(a[0], a[1], a[2], a[3], prune_args(name, a[4], drop) if a[4] is not None else None)
            for a in args if (name, a[0]) not in drop]


def load_reference(folder):
    ref = {}
    for path in glob.glob(os.path.join(folder, "*.json")):
        with open(path) as f:
            for name, spec in json.load(f).items():
                full = (spec["container"].lower() + "|" + name.lower()) if "container" in spec else name.lower()
                ref[full] = spec
    return ref


def norm_keyspecs(specs):
    """The reference's key specs in the shape COMMAND INFO replies with (the JSON names
    the index "pos" and the step "step"; the reply says "index" and "keystep")."""
    def rename(spec):
        return {kind: {{"pos": "index", "step": "keystep"}.get(k, k): v for k, v in (fields or {}).items()}
                for kind, fields in spec.items()}
    out = []
    for ks in specs or []:
        bs = rename(ks.get("begin_search", {}))
        fk = rename(ks.get("find_keys", {}))
        out.append((sorted(ks.get("flags", [])), json.dumps(bs, sort_keys=True), json.dumps(fk, sort_keys=True)))
    return out


def to_py(x):
    if isinstance(x, bytes):
        return x.decode()
    if isinstance(x, list):
        return [to_py(i) for i in x]
    return x


def server_keyspecs(raw):
    out = []
    for ks in raw:
        d = dict(zip(ks[0::2], ks[1::2]))
        bs = dict(zip(d["begin_search"][0::2], d["begin_search"][1::2]))
        fk = dict(zip(d["find_keys"][0::2], d["find_keys"][1::2]))
        bspec = dict(zip(bs["spec"][0::2], bs["spec"][1::2]))
        fspec = dict(zip(fk["spec"][0::2], fk["spec"][1::2]))
        b = {bs["type"]: bspec}
        f = {fk["type"]: fspec}
        out.append((sorted(x.upper() for x in d["flags"]), json.dumps(b, sort_keys=True),
                    json.dumps(f, sort_keys=True)))
    return out


def server_args(args):
    out = []
    for a in args:
        d = dict(zip(a[0::2], a[1::2]))
        out.append((d["name"], d["type"], d.get("token"), tuple(sorted(d.get("flags", []))),
                    server_args(d["arguments"]) if "arguments" in d else None))
    return out


def reference_args(args):
    out = []
    for a in args:
        flags = tuple(sorted(k for k in ("optional", "multiple", "multiple_token") if a.get(k)))
        # The reference writes MIGRATE's empty-string token as '""'; Redis 8.8's COMMAND
        # DOCS reports it as an empty string, and HotKV follows Redis 8.8.
        token = "" if a.get("token") == '""' else a.get("token")
        out.append((a["name"], a["type"], token, flags,
                    reference_args(a["arguments"]) if "arguments" in a else None))
    return out


def default_reference():
    """../shared/reference/commands next to the main checkout (also from a worktree)."""
    import subprocess
    here = os.path.dirname(os.path.abspath(__file__))
    try:
        common = subprocess.run(["git", "-C", here, "rev-parse", "--git-common-dir"],
                                capture_output=True, text=True, check=True).stdout.strip()
        root = os.path.dirname(os.path.abspath(os.path.join(here, common)))
    except (OSError, subprocess.CalledProcessError):
        root = os.path.join(here, "..")
    return os.path.join(root, "..", "shared", "reference", "commands")


def plain_client(port):
    """A client that returns COMMAND's reply as the server sent it (redis-py otherwise
    turns it into a dict keyed by name, which the checks below cannot read)."""
    r = redis.Redis(port=port)
    r.response_callbacks.pop("COMMAND", None)
    return r


def command_infos(port):
    """COMMAND INFO of every command and subcommand, by full name."""
    r = plain_client(port)
    out = {}

    def add(info):
        name, arity, flags, first, last, step, acl, tips, specs, subs = info
        out[name] = {"arity": arity, "flags": sorted(flags), "first/last/step": (first, last, step),
                     "acl": sorted(acl), "tips": sorted(tips), "key specs": server_keyspecs(specs)}
        for sub in subs:
            add(sub)
    for info in to_py(r.execute_command("COMMAND", "INFO")):
        add(info)
    return out


def compare_with_peer(port, peer_port):
    ours, theirs = command_infos(port), command_infos(peer_port)
    problems = 0
    for name in sorted(ours.keys() & theirs.keys()):
        for field, value in ours[name].items():
            if value != theirs[name][field]:
                print(f"{name}: {field} {value}, peer {theirs[name][field]}")
                problems += 1
    print(f"{len(ours.keys() & theirs.keys())} commands compared with the peer "
          f"({len(ours.keys() - theirs.keys())} only here), {problems} differences")
    return 1 if problems else 0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--port", type=int, default=6379)
    ap.add_argument("--reference", default=default_reference())
    ap.add_argument("--no-docs", action="store_true", help="skip the COMMAND DOCS arguments")
    ap.add_argument("--peer-port", type=int, help="compare COMMAND INFO with a running Redis")
    args = ap.parse_args()
    if args.peer_port:
        return compare_with_peer(args.port, args.peer_port)
    if not os.path.isdir(args.reference):
        print(f"reference folder {args.reference} not found; nothing to check")
        return 0
    ref = load_reference(args.reference)
    r = plain_client(args.port)
    infos = to_py(r.execute_command("COMMAND", "INFO"))
    problems = 0
    def check(info):
        nonlocal problems
        name, arity, flags = info[0], info[1], info[2]
        spec = ref.get(name)
        if spec is None:
            return
        if spec.get("arity") != arity:
            print(f"{name}: arity {arity}, reference {spec.get('arity')}"); problems += 1
        want = {FLAG_MAP.get(f, f.lower()) for f in spec.get("command_flags", [])} - IGNORED_FLAGS
        added, removed = REDIS8_FLAGS.get(name, (set(), set()))
        want = (want | added) - removed - HIDDEN_FLAGS
        have = set(flags) - IGNORED_FLAGS
        if want != have:
            print(f"{name}: flags {sorted(have)}, reference {sorted(want)}"); problems += 1
        mine = server_keyspecs(info[8])
        theirs = norm_keyspecs(spec.get("key_specs"))
        if mine != theirs:
            print(f"{name}: key specs differ\n   ours: {mine}\n   ref:  {theirs}"); problems += 1
        for sub in info[9]:
            check(sub)
    for info in infos:
        check(info)

    def check_docs(name, doc):
        nonlocal problems
        spec = ref.get(name)
        if spec is not None:
            mine = prune_args(name, server_args(doc.get("arguments", [])), REDIS8_ADDED_DOC_ARGS)
            theirs = prune_args(name, reference_args(drop_doc_args(name, spec.get("arguments", []))),
                                REDIS8_REMOVED_DOC_ARGS)
            if mine != theirs:
                print(f"{name}: COMMAND DOCS arguments differ\n   ours: {mine}\n   ref:  {theirs}")
                problems += 1
        subs = doc.get("subcommands", [])
        for sub_name, sub_doc in zip(subs[0::2], subs[1::2]):
            check_docs(sub_name.lower(), dict(zip(sub_doc[0::2], sub_doc[1::2])))

    if not args.no_docs:
        conn = r.connection_pool.get_connection("COMMAND")
        conn.send_command("COMMAND", "DOCS")
        docs = to_py(conn.read_response())
        r.connection_pool.release(conn)
        for name, doc in zip(docs[0::2], docs[1::2]):
            check_docs(name.lower(), dict(zip(doc[0::2], doc[1::2])))
    print(f"{len(infos)} commands checked, {problems} differences")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
