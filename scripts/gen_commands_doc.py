#!/usr/bin/env python3
"""Writes docs/commands.md from a running HotKV server (COMMAND DOCS), so the list of
supported commands can never drift from the command table.

usage: scripts/gen_commands_doc.py --port P [--reference DIR] > docs/commands.md

With the maintainers' reference folder (../shared/reference/commands) present, Redis
commands that HotKV does not implement are listed as "not yet supported" too.
"""
import argparse
import glob
import json
import os
import sys

import redis

# Notes on commands whose support is partial or differs from Redis on purpose.
NOTES = {
    "psync": "refused with an error naming cluster-allow-replica-migration no: no replication yet (docs/cluster.md)",
    "sync": "refused with an error naming cluster-allow-replica-migration no: no replication yet (docs/cluster.md)",
    "lset": "an index far past the list (e.g. 2^63-1) is out of range, as in Redis 7.0 (Redis 8.8's listpack seek wraps it and sets an element)",
    "wait": "no replication: waits for its timeout and counts 0 replicas, as a Redis master without replicas",
    "waitaof": "with appendonly yes the local AOF counts once this client's writes are fsynced; no replication: replicas always 0",
    "sort": "ALPHA compares bytes (Redis: strcoll in its locale, the same in the C locale); BY nosort on a set without STORE returns HotKV's set order",
    "sort_ro": "ALPHA compares bytes (Redis: strcoll in its locale, the same in the C locale); BY nosort on a set returns HotKV's set order",
    "pfdebug": "SIMD ON|OFF switches PFCOUNT's AVX-512 register histogram (same counts either way); a bad argument gets only the error (Redis 8.8 also sends the status after it)",
    "pfselftest": "adds 1M elements (Redis: 10M) and checks 100 rounds of registers (Redis: 1000)",
    "increx": "a BYFLOAT result that looks like an integer reports OBJECT ENCODING int, not embstr (as INCRBYFLOAT)",
    "incrbyfloat": "a result that looks like an integer reports OBJECT ENCODING int, not embstr",
    "save": "writes dump.rdb in the calling worker with every shard locked (every client waits, as Redis's SAVE blocks the server); see docs/persistence.md",
    "shutdown": "NOW and FORCE are accepted (no replicas to wait for); no shutdown is ever in progress for ABORT",
    "debug": "HELP, SLEEP, RELOAD [MERGE] [NOFLUSH] [NOSAVE], SET-ACTIVE-EXPIRE, OBJECT, DIGEST, DIGEST-VALUE, LISTPACK, STRINGMATCH-LEN, CHANGE-REPL-ID and QUICKLIST-PACKED-THRESHOLD",
    "object|freq": "needs an LFU maxmemory-policy, as in Redis",
    "memory|usage": "SAMPLES is accepted; sizes are exact, not sampled",
    "client|list": "every Redis 8.8 field; TYPE master/replica/slave match nothing (no "
                   "replication); io-thread is the index of the worker thread that serves "
                   "the connection; obl/oll/omem: unsent bytes, the output buffers holding "
                   "them (no reply list), their memory; omem-shared is 0 (replies are copied)",
    "client|info": "fields as CLIENT LIST (see there)",
    "script|debug": "YES runs as SYNC (no fork): the script's changes are kept, and the session's "
                    "first stop says so; while a session waits for the debugger, commands on its "
                    "shards (any command on its worker) get -BUSY instead of waiting "
                    "(docs/scripting.md)",
    "client|kill": "USER accepts only 'default' (no ACL users)",
    "client|no-evict": "sets flag e; there is no client eviction (maxmemory-clients) to "
                       "exempt from",
    "command|list": "FILTERBY MODULE matches nothing: vector sets are built in, where Redis 8 "
                    "has them in its vectorset module",
    "auth": "the default user only (requirepass); no ACL users",
    "migrate": "connections to targets are cached per worker thread (an idle one is closed at "
               "that worker's next MIGRATE after 10 s, not by a timer); a key changed by another "
               "client while MIGRATE "
               "talked to the target is not deleted (see docs/persistence.md)",
    "hello": "AUTH with the default user only",
    "vadd": "M up to 255; CAS runs the insert at once (never under a keyspace lock); non-finite components refused; see docs/vector.md",
    "vsim": "NOTHREAD changes nothing (searches never hold a keyspace lock)",
    "vinfo": "hnsw-max-node-uid is the number of node slots in use",
    "info": "some fields left out: see \"INFO fields\" below",
    "set": "GET with IFDEQ/IFDNE and a digest that is not 16 characters: only the error is "
           "sent (Redis 8.8 sends the old value and then the error, two replies to one command)",
    "xread": "a client woken from BLOCK reports the streams whose shards the waking command "
             "locked (Redis re-runs the command and reports every ready stream)",
    "xreadgroup": "a client woken from BLOCK reports the stream that woke it (Redis re-runs "
                  "the command and may report several)",
    "xinfo|stream": "radix-tree-nodes is blocks + 1",
    "xadd": "IDMPAUTO's idempotent id is HotKV's own hash (an IDMPAUTO record restored from "
            "Redis never matches); IDMP records expire exactly at idmp-duration (Redis sweeps "
            "up to about a second later); a trim with ACKED is replayed by its effect "
            "(XDELEX + XSETID)",
    "xtrim": "a trim with ACKED is replayed by its effect (XDELEX + XSETID): its result "
             "depends on the block layout",
}

# INFO: the fields Redis 8.8 prints, in the sections HotKV prints, that HotKV leaves out
# (every field HotKV prints has a real value; none is a constant standing in).
INFO_GAPS = [
    ("Clients", "`active_clients` (its meaning in 8.8 is undocumented)."),
    ("Memory", "`used_memory_peak_time`, `used_memory_startup`, `used_memory_overhead`, "
     "`used_memory_dataset`, `used_memory_dataset_perc`, `mem_clients_normal*` (not measured "
     "separately); `allocator_*`, `allocator_frag_*`, `allocator_rss_*`, `rss_overhead_*` "
     "(jemalloc statistics; HotKV uses mimalloc); `used_memory_lua*`, `used_memory_vm_*`, "
     "`used_memory_scripts*`, `used_memory_functions`, `number_of_cached_scripts`, "
     "`number_of_functions`, `number_of_libraries` (no scripting); `mem_not_counted_for_evict`, "
     "`mem_replication_backlog`, `mem_total_replication_buffers`, `mem_replica_full_sync_buffer`, "
     "`mem_clients_slaves`, `mem_aof_buffer`, `mem_cluster_*` (no replication, AOF or cluster); "
     "`mem_overhead_db_hashtable_rehashing` (tables resize at once), `active_defrag_running` "
     "(no active defragmentation)."),
    ("Persistence", "copy-on-write and save-progress figures (`current_cow_*`, "
     "`current_fork_perc`, `current_save_keys_*`, `rdb_last_cow_size`, `aof_last_cow_size`, "
     "`module_fork_last_cow_size`: not measured); `loading_rdb_used_mem` is 0 (the used-mem "
     "aux field is not read back). HotKV adds `rdb_last_fork_usec` (the pause of the last "
     "BGSAVE's start: every shard locked, then fork), `rdb_last_walk` and `rdb_walk_totals` "
     "(the last and all `bgsave-mode walk` BGSAVEs: shard-lock holds, keys saved by client "
     "threads, CPU time, yields) and `shard_lock_waits` (every wait of a client's thread on a "
     "shard lock since start: count, usec, max_usec, over_100us, over_1ms); "
     "docs/persistence.md."),
    ("Stats", "`total_net_repl_*`, `instantaneous_*_repl_kbps`, `sync_*`, "
     "`slave_expires_tracked_keys` (no replication); `instantaneous_input_kbps`, "
     "`instantaneous_output_kbps`, `eventloop_*`, `instantaneous_eventloop_*`, "
     "`total_client_processing_events`, `avg_pipeline_length*`, `reply_buffer_*` (not "
     "sampled); "
     "`expired_stale_perc` (not estimated); `total_eviction_exceeded_time`, "
     "`current_eviction_exceeded_time` (time over maxmemory is not measured); "
     "`evicted_clients`, `evicted_scripts`, `active_defrag_*`, `total_active_defrag_time`, "
     "`current_active_defrag_time`, `unexpected_error_replies`, "
     "`dump_payload_sanitizations`, `io_threaded_*`, `acl_access_denied_*` (features HotKV "
     "does not have: client eviction, scripting, defragmentation, "
     "deep sanitization as a separate step (RESTORE always validates), I/O threads, ACL)."),
    ("Replication", "`repl_backlog_size`, `repl_backlog_first_byte_offset`, "
     "`repl_backlog_histlen` (no replication backlog)."),
    ("CPU", "`used_cpu_sys_main_thread`, `used_cpu_user_main_thread` (commands run on every "
     "worker thread, there is no main thread)."),
    ("Modules", "the `module:` lines (no modules; vector sets are built in)."),
    ("Keysizes", "the `db<N>_distrib_*_sizes` memory histograms Redis adds with "
     "`key-memory-histograms yes` (HotKV has no such setting)."),
    ("Sections", "`# Threads`, `# Hotkeys` and `# Latencystats` are not printed."),
]

# HotKV's own commands (no Redis counterpart): status "hotkv", documented in docs/.
HOTKV_COMMANDS = {
    "vsim.createindex": "see docs/vector.md", "vsim.set": "see docs/vector.md",
    "vsim.search": "see docs/vector.md", "vsim.get": "see docs/vector.md",
    "vsim.del": "see docs/vector.md", "vsim.info": "see docs/vector.md",
    "vsim.card": "see docs/vector.md",
}

# Redis 8 commands and options of the implemented families that other issues own (the
# reference folder, Valkey 8's, lists few of them): (what, which).
OTHER_ISSUES = [
]

GROUP_TITLES = {
    "string": "Strings", "bitmap": "Bitmaps", "generic": "Keys", "list": "Lists", "hash": "Hashes", "set": "Sets",
    "sorted-set": "Sorted sets", "pubsub": "Pub/Sub", "transactions": "Transactions",
    "connection": "Connection", "server": "Server", "vector": "Vector search",
}


def decode(x):
    if isinstance(x, bytes):
        return x.decode()
    if isinstance(x, list):
        return [decode(i) for i in x]
    if isinstance(x, dict):
        return {decode(k): decode(v) for k, v in x.items()}
    return x


def pairs(lst):
    return dict(zip(lst[0::2], lst[1::2])) if isinstance(lst, list) else lst


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--port", type=int, default=6379)
    here = os.path.dirname(os.path.abspath(__file__))
    ap.add_argument("--reference", default=os.path.join(here, "..", "..", "shared", "reference", "commands"))
    args = ap.parse_args()
    r = redis.Redis(port=args.port)
    r.response_callbacks.pop("COMMAND", None)  # redis-py would parse DOCS as COMMAND's reply
    docs = pairs(decode(r.execute_command("COMMAND", "DOCS")))
    rows = {}
    implemented = set()
    for name, d in docs.items():
        d = pairs(d)
        group = d.get("group", "other")
        rows.setdefault(group, []).append((name, d.get("summary", ""), d.get("since", "")))
        implemented.add(name)
        for sub, sd in pairs(d.get("subcommands", [])).items() if d.get("subcommands") else []:
            sd = pairs(sd)
            rows.setdefault(group, []).append((sub, sd.get("summary", ""), sd.get("since", "")))
            implemented.add(sub)
    out = []
    out.append("# Commands supported by HotKV\n")
    out.append("Generated by `scripts/gen_commands_doc.py` from the server's own command table "
               "(`COMMAND DOCS`): every command listed here is implemented with the options, "
               "replies and errors Redis documents, unless the notes column says otherwise "
               "(status \"hotkv\": a HotKV command with no Redis counterpart). "
               "Run `COMMAND DOCS <name>` for the argument grammar.\n")
    total = 0
    for group in sorted(rows, key=lambda g: list(GROUP_TITLES).index(g) if g in GROUP_TITLES else 99):
        out.append(f"\n## {GROUP_TITLES.get(group, group.title())}\n")
        out.append("| command | status | summary | notes |")
        out.append("|---|---|---|---|")
        for name, summary, since in sorted(rows[group]):
            note = NOTES.get(name, "")
            status = "partial" if note else "supported"
            if name in HOTKV_COMMANDS:
                note, status = HOTKV_COMMANDS[name], "hotkv"
            out.append(f"| `{name.upper()}` | {status} | {summary} | {note} |")
            total += 1
    out.append(f"\n{total} commands and subcommands.\n")
    if OTHER_ISSUES:
        out.append("\n## Not yet implemented (other issues)\n")
        out.append("Redis 8 commands and options of the implemented families that other "
                   "issues own (`scripts/diff_command_docs.py` lists every difference from "
                   "Redis 8.8):\n")
        for what, names in OTHER_ISSUES:
            out.append(f"- **{what}**: {names}")
    if os.path.isdir(args.reference):
        missing = {}
        for path in glob.glob(os.path.join(args.reference, "*.json")):
            with open(path) as f:
                for name, spec in json.load(f).items():
                    full = (spec["container"].lower() + "|" + name.lower()) if "container" in spec else name.lower()
                    if full not in implemented and "container" not in spec:
                        missing.setdefault(spec.get("group", "other"), []).append(full)
        out.append("\n## Not yet supported\n")
        out.append("Redis commands HotKV does not implement yet (an unknown command gets Redis's "
                   "`ERR unknown command` reply):\n")
        for group in sorted(missing):
            names = ", ".join(f"`{n.upper()}`" for n in sorted(missing[group]))
            out.append(f"- **{group}**: {names}")
    out.append("\n## INFO fields\n")
    out.append("INFO prints Redis's sections in Redis's order with Redis's field names; these "
               "fields of Redis 8.8 are left out:\n")
    for section, text in INFO_GAPS:
        out.append(f"- **{section}**: {text}")
    print("\n".join(out))


if __name__ == "__main__":
    sys.exit(main())
