#!/usr/bin/python3
"""Issue 17's JSON bench: server CPU per JSON.* operation and memory per document, the
same documents stored as JSON (HotKV), as strings (SET of the compact JSON text) and as
hashes (the document flattened to path -> value fields), HotKV against Debian's Redis 7.0
(strings and hashes only: neither Redis here has the JSON module), in one run.

    bench/json_docs.py                            # 100,000 documents of every shape
    bench/json_docs.py --docs 10000               # fewer documents
    bench/json_docs.py --only memory              # memory only (no CPU workloads)
    bench/json_docs.py --shapes profile           # some shapes

Shapes (one corpus per shape, generated from --seed):
  profile     the issue's ~1 KB user profile: nested address, arrays of tags, scores and
              orders (objects)
  checkpoint  a LangGraph checkpoint: ids, timestamps, channel versions, a few messages
  entity      a redis-om entity: name, age, flags, location, a string array, a paragraph
  product     a product catalog row: title, price, stock, categories, ratings, attributes,
              a 16-float embedding

Memory per document = used_memory growth / documents (and RSS growth / documents), for
JSON.SET key $ doc, SET key doc and HSET key f1 v1 ... (flattened). The issue's target:
JSON bytes per document - (string bytes per document - text length) <= 1.0 x text length,
i.e. a JSON document costs no more than the per-key overhead a string pays plus its text.

CPU per operation (profile shape; server CPU growth / ops, pipeline 30, server alone on
core 0 with --threads 1, client on core 1): JSON.SET of a whole document, JSON.GET $,
JSON.GET of one field, JSON.NUMINCRBY, JSON.ARRAPPEND; GET and SET of the same text and
HGETALL / HGET / HINCRBY of the hash for comparison. Results:
bench/results/json_<date_time>/summary.md + results.json.
"""
import json
import sys
import argparse  # noqa: E402
import datetime  # noqa: E402
import os
import random  # noqa: E402
import shutil  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE / "harness"))
from common import Server, loadavg, log, proc_status, stop_all  # noqa: E402
from families import Conn, RespError, measure, run_pipelined, server_argv, used_memory  # noqa: E402

ROOT = HERE.parent

WORDS = ("alpha bravo charlie delta echo foxtrot golf hotel india juliet kilo lima mike "
         "november oscar papa quebec romeo sierra tango uniform victor whiskey xray yankee "
         "zulu redis json vector memory thread shard cache stream query").split()


def uuid(rng):
    h = "%032x" % rng.getrandbits(128)
    return f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:]}"


def sentence(rng, n):
    return " ".join(rng.choice(WORDS) for _ in range(n))


def profile(rng, i):
    return {
        "id": f"user:{i}",
        "name": f"{rng.choice(WORDS).title()} {rng.choice(WORDS).title()}",
        "email": f"{rng.choice(WORDS)}.{i}@example.com",
        "age": rng.randrange(18, 90),
        "active": rng.random() < 0.8,
        "created": 1700000000 + rng.randrange(10**7),
        "address": {"street": f"{rng.randrange(1, 999)} {rng.choice(WORDS).title()} Street",
                    "city": rng.choice(WORDS).title(), "zip": "%05d" % rng.randrange(10**5),
                    "country": rng.choice(["DE", "FR", "US", "UK", "NL"])},
        "tags": [rng.choice(WORDS) for _ in range(rng.randrange(3, 7))],
        "scores": [rng.randrange(100) for _ in range(8)],
        "prefs": {"theme": rng.choice(["dark", "light"]), "lang": "en", "notify": True},
        "orders": [{"id": rng.randrange(10**6), "sku": "SKU-%06d" % rng.randrange(10**6),
                    "qty": rng.randrange(1, 5), "price": round(rng.uniform(1, 200), 2),
                    "status": rng.choice(["new", "paid", "shipped"])}
                   for _ in range(rng.randrange(3, 6))],
        "bio": sentence(rng, 12),
    }


def checkpoint(rng, i):
    ts = f"2026-12-02T15:{rng.randrange(60):02d}:{rng.randrange(60):02d}.{rng.randrange(10**6):06d}+00:00"
    ver = lambda: f"{rng.randrange(1, 40):032d}.0.{rng.random():.16f}"  # noqa: E731
    msgs = [{"type": rng.choice(["human", "ai"]), "content": sentence(rng, rng.randrange(5, 15)),
             "id": uuid(rng)} for _ in range(rng.randrange(1, 4))]
    return {
        "thread_id": f"thread-{i}", "checkpoint_ns": "", "checkpoint_id": uuid(rng),
        "parent_checkpoint_id": uuid(rng),
        "checkpoint": {"v": 1, "ts": ts, "id": uuid(rng),
                       "channel_values": {"messages": msgs},
                       "channel_versions": {"__start__": ver(), "messages": ver(), "agent": ver()},
                       "versions_seen": {"__input__": {}, "__start__": {"__start__": ver()}},
                       "pending_sends": []},
        "metadata": {"source": "loop", "step": rng.randrange(20), "writes": None, "parents": {}},
        "checkpoint_ts": 1764680000000 + rng.randrange(10**7),
    }


def entity(rng, i):
    return {
        "name": f"{rng.choice(WORDS).title()} {rng.choice(WORDS).title()}",
        "age": rng.randrange(18, 90), "verified": rng.random() < 0.5,
        "location": f"{rng.uniform(-10, 30):.6f},{rng.uniform(36, 60):.6f}",
        "skills": [rng.choice(WORDS) for _ in range(rng.randrange(2, 5))],
        "personalStatement": sentence(rng, 10),
    }


def product(rng, i):
    return {
        "id": i, "title": sentence(rng, 4).title(), "brand": rng.choice(WORDS).title(),
        "price": round(rng.uniform(1, 500), 2), "stock": rng.randrange(1000),
        "categories": [rng.choice(WORDS) for _ in range(3)],
        "ratings": [rng.randrange(1, 6) for _ in range(10)],
        "attrs": {"color": rng.choice(["red", "green", "blue", "black"]),
                  "size": rng.choice(["S", "M", "L", "XL"]), "weight_g": rng.randrange(50, 5000)},
        "embedding": [round(rng.uniform(-1, 1), 4) for _ in range(16)],
    }


SHAPES = {"profile": profile, "checkpoint": checkpoint, "entity": entity, "product": product}


def compact(doc):
    return json.dumps(doc, separators=(",", ":")).encode()


def flatten(doc, prefix=""):
    """A document as hash fields: path -> scalar text (what a hash-based store keeps)."""
    out = []
    items = doc.items() if isinstance(doc, dict) else enumerate(doc)
    for k, v in items:
        p = f"{prefix}.{k}" if prefix else str(k)
        if isinstance(v, (dict, list)):
            if v:
                out += flatten(v, p)
            else:
                out.append((p, "{}" if isinstance(v, dict) else "[]"))
        else:
            out.append((p, json.dumps(v) if not isinstance(v, str) else v))
    return out


def load_memory(srv, c, cmds, n):
    """used_memory and RSS growth per key of running `cmds` (after a FLUSHALL)."""
    c.call("FLUSHALL")
    time.sleep(0.2)
    m0, r0 = used_memory(c), proc_status(srv.pid, "VmRSS")
    errors = run_pipelined(c, cmds)
    if errors:
        return {"refused": errors[0][:80]}
    m1, r1 = used_memory(c), proc_status(srv.pid, "VmRSS")
    return {"bytes_per_doc": (m1 - m0) / n, "rss_per_doc": (r1 - r0) * 1024 / n}


def sample_usage(c, kind, keys):
    """Mean MEMORY USAGE (and JSON.DEBUG MEMORY for JSON) of some keys."""
    mu = [c.call("MEMORY", "USAGE", k) for k in keys]
    res = {"memory_usage": sum(mu) / len(mu)} if all(isinstance(x, int) for x in mu) else {}
    if kind == "json":
        dm = [c.call("JSON.DEBUG", "MEMORY", k) for k in keys]
        if all(isinstance(x, int) for x in dm):
            res["json_debug_memory"] = sum(dm) / len(dm)
    return res


def run_server(kind, srv, c, a, corpora, r):
    n = a.docs
    for shape, texts in corpora.items():
        if "memory" not in a.only:
            break
        keys = [b"d:%d" % i for i in range(n)]
        sample = keys[:: max(1, n // 200)]
        mem = r.setdefault("memory", {}).setdefault(shape, {})
        if kind == "hotkv":
            mem["json"] = load_memory(srv, c, [[b"JSON.SET", k, b"$", t] for k, t in zip(keys, texts)], n)
            if "refused" not in mem["json"]:
                mem["json"].update(sample_usage(c, "json", sample))
        mem["string"] = load_memory(srv, c, [[b"SET", k, t] for k, t in zip(keys, texts)], n)
        mem["string"].update(sample_usage(c, "string", sample))
        hcmds = []
        for k, t in zip(keys, texts):
            fields = flatten(json.loads(t))
            hcmds.append([b"HSET", k] + [x.encode() for f in fields for x in f])
        mem["hash"] = load_memory(srv, c, hcmds, n)
        mem["hash"].update(sample_usage(c, "hash", sample))
        log(f"{kind} memory {shape}: {mem}")
    if "cpu" not in a.only or "profile" not in corpora:
        return
    texts = corpora["profile"]
    keys = [b"p:%d" % i for i in range(n)]
    rng = random.Random(a.seed + 1)
    pick = lambda: keys[rng.randrange(n)]  # noqa: E731
    ops = min(n, a.ops)
    cpu = r["cpu"] = {}
    c.call("FLUSHALL")
    cpu["SET"] = measure(srv, c, [[b"SET", k, t] for k, t in zip(keys, texts)])
    cpu["GET"] = measure(srv, c, [[b"GET", pick()] for _ in range(ops)])
    c.call("FLUSHALL")
    hcmds = [[b"HSET", k] + [x.encode() for f in flatten(json.loads(t)) for x in f]
             for k, t in zip(keys, texts)]
    cpu["HSET (flattened)"] = measure(srv, c, hcmds)
    cpu["HGETALL"] = measure(srv, c, [[b"HGETALL", pick()] for _ in range(ops)])
    cpu["HGET address.city"] = measure(srv, c, [[b"HGET", pick(), b"address.city"] for _ in range(ops)])
    cpu["HINCRBY age"] = measure(srv, c, [[b"HINCRBY", pick(), b"age", b"1"] for _ in range(ops)])
    if kind != "hotkv":
        return
    c.call("FLUSHALL")
    cpu["JSON.SET $"] = measure(srv, c, [[b"JSON.SET", k, b"$", t] for k, t in zip(keys, texts)])
    cpu["JSON.GET $"] = measure(srv, c, [[b"JSON.GET", pick(), b"$"] for _ in range(ops)])
    cpu["JSON.GET (no path)"] = measure(srv, c, [[b"JSON.GET", pick()] for _ in range(ops)])
    cpu["JSON.GET $.address.city"] = measure(
        srv, c, [[b"JSON.GET", pick(), b"$.address.city"] for _ in range(ops)])
    cpu["JSON.SET $.age"] = measure(srv, c, [[b"JSON.SET", pick(), b"$.age", b"42"] for _ in range(ops)])
    cpu["JSON.NUMINCRBY $.age"] = measure(
        srv, c, [[b"JSON.NUMINCRBY", pick(), b"$.age", b"1"] for _ in range(ops)])
    cpu["JSON.ARRAPPEND $.tags"] = measure(
        srv, c, [[b"JSON.ARRAPPEND", pick(), b"$.tags", b'"new"'] for _ in range(ops)])
    cpu["JSON.ARRAPPEND $.scores"] = measure(
        srv, c, [[b"JSON.ARRAPPEND", pick(), b"$.scores", b"7"] for _ in range(ops)])


def render(res, a):
    kinds = list(res["servers"])
    names = {"hotkv": "HotKV", "redis7": "Redis 7.0", "redis88": "Redis 8.8"}
    lines = [f"# JSON benchmark (issue 17), {res['date']}", "",
             f"Machine: {res['machine']}; load average at start {res['loadavg']}. Command: "
             f"`bench/json_docs.py --docs {a.docs} --ops {a.ops} --shapes {','.join(res['shapes'])} "
             f"--only {a.only} --servers {','.join(kinds)}"
             f"{'' if a.build_dir == str(ROOT / 'build/release') else ' --build-dir ' + a.build_dir}`. "
             "Pipeline 30, one connection, "
             "server on core 0 (HotKV --threads 1), client on core 1.", ""]
    if "memory" in a.only:
        lines += ["Memory per document (used_memory growth / documents, bytes; RSS growth in "
                  "brackets). `text` = mean compact JSON length; `JSON - string overhead` = JSON "
                  "bytes minus what a string pays beyond its text, ÷ text (the issue's target "
                  "≤ 1.0):", "",
                  "| " + " | ".join(["shape", "text", "HotKV JSON", "HotKV string", "HotKV hash"] +
                                   [f"{names[k]} {t}" for k in kinds if k != "hotkv"
                                    for t in ("string", "hash")] +
                                   ["HotKV JSON ÷ text (overhead removed)"]) + " |",
                  "|---|---|---|---|---|" + "---|---|" * (len(kinds) - 1) + "---|"]
        for shape in res["shapes"]:
            tl = res["text_len"][shape]
            cells = [shape, f"{tl:.0f}"]
            hk = res["servers"].get("hotkv", {}).get("memory", {}).get(shape, {})

            def cell(m):
                if not m or "bytes_per_doc" not in m:
                    return "refused" if m and "refused" in m else ""
                return f"{m['bytes_per_doc']:.0f} ({m['rss_per_doc']:.0f})"
            cells += [cell(hk.get("json")), cell(hk.get("string")), cell(hk.get("hash"))]
            for k in kinds:
                if k != "hotkv":
                    m = res["servers"][k].get("memory", {}).get(shape, {})
                    cells += [cell(m.get("string")), cell(m.get("hash"))]
            ratio = ""
            if hk.get("json", {}).get("bytes_per_doc") and hk.get("string", {}).get("bytes_per_doc"):
                over = hk["string"]["bytes_per_doc"] - tl
                ratio = f"{(hk['json']['bytes_per_doc'] - over) / tl:.2f}"
            cells.append(ratio)
            lines.append("| " + " | ".join(cells) + " |")
        lines += ["", "MEMORY USAGE / JSON.DEBUG MEMORY (mean of a sample of keys, bytes):", "",
                  "| " + " | ".join(["shape", "HotKV JSON MEMORY USAGE", "JSON.DEBUG MEMORY",
                                    "HotKV string"] +
                                   [f"{names[k]} string" for k in kinds if k != "hotkv"]) + " |",
                  "|---|---|---|---|" + "---|" * (len(kinds) - 1)]
        for shape in res["shapes"]:
            hk = res["servers"].get("hotkv", {}).get("memory", {}).get(shape, {})
            f = lambda v: "" if v is None else f"{v:.0f}"  # noqa: E731
            row = [shape, f(hk.get("json", {}).get("memory_usage")),
                   f(hk.get("json", {}).get("json_debug_memory")),
                   f(hk.get("string", {}).get("memory_usage"))]
            for k in kinds:
                if k != "hotkv":
                    row.append(f(res["servers"][k].get("memory", {}).get(shape, {})
                                 .get("string", {}).get("memory_usage")))
            lines.append("| " + " | ".join(row) + " |")
    if "cpu" in a.only:
        ops_names = []
        for k in kinds:
            for o in res["servers"][k].get("cpu", {}):
                if o not in ops_names:
                    ops_names.append(o)
        lines += ["", f"Server CPU per operation (ns), profile shape ({res['text_len'].get('profile', 0):.0f}-byte "
                  "documents):", "", "| operation | " + " | ".join(names[k] for k in kinds) + " |",
                  "|---|" + "---|" * len(kinds)]
        for o in ops_names:
            row = []
            for k in kinds:
                m = res["servers"][k].get("cpu", {}).get(o)
                row.append("" if not m else "refused" if "refused" in m else f"{m['cpu_ns_per_op']:,.0f}")
            lines.append(f"| {o} | " + " | ".join(row) + " |")
    return "\n".join(lines) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--docs", type=int, default=100_000)
    ap.add_argument("--ops", type=int, default=100_000, help="operations per CPU workload")
    ap.add_argument("--shapes", default=",".join(SHAPES))
    ap.add_argument("--only", default="memory,cpu")
    ap.add_argument("--servers", default="hotkv,redis7")
    ap.add_argument("--build-dir", default=str(ROOT / "build/release"))
    ap.add_argument("--seed", type=int, default=17)
    ap.add_argument("--no-record", action="store_true")
    a = ap.parse_args()
    os.sched_setaffinity(0, {1 % os.cpu_count()})
    stamp = datetime.datetime.now().strftime("%Y-%m-%d_%H%M%S")
    shapes = a.shapes.split(",")
    corpora = {}
    for s in shapes:
        rng = random.Random(f"{a.seed}-{s}")
        corpora[s] = [compact(SHAPES[s](rng, i)) for i in range(a.docs)]
    res = {"date": stamp, "loadavg": loadavg(), "machine": f"{os.cpu_count()} CPUs, "
           f"{os.uname().release}", "docs": a.docs, "shapes": shapes, "servers": {},
           "text_len": {s: sum(map(len, t)) / len(t) for s, t in corpora.items()}}
    work = tempfile.mkdtemp(prefix="hotkv-json-bench-")
    try:
        for kind in a.servers.split(","):
            srv = Server(kind, server_argv(kind, a.build_dir, work), 0, work).start()
            r = res["servers"][kind] = {}
            try:
                run_server(kind, srv, Conn(srv.port), a, corpora, r)
                log(f"{kind}: {r.get('cpu')}")
            finally:
                srv.stop()
    finally:
        stop_all()
        shutil.rmtree(work, ignore_errors=True)
    summary = render(res, a)
    print(summary)
    if not a.no_record:
        out = ROOT / "bench/results" / f"json_{stamp}"
        out.mkdir(parents=True, exist_ok=True)
        (out / "results.json").write_text(json.dumps(res, indent=1))
        (out / "summary.md").write_text(summary)
        print(f"written to {out.relative_to(ROOT)}/")


if __name__ == "__main__":
    main()
