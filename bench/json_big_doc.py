#!/usr/bin/python3
"""Issue 17's third JSON target: a JSON.SET of one scalar path in a ~100 KB document costs
<= 2 us of server CPU. redis-benchmark (core 1, one connection, pipeline 30) sends the same
command N times to HotKV (core 0, --threads 1) holding one ~100 KB document; server CPU =
utime + stime growth / N. SET / GET of a small string run the same way give the floor
(what any command costs this way), so the JSON write's own cost is the difference.

    bench/json_big_doc.py                 # 1,000,000 calls per command
    bench/json_big_doc.py --calls 200000

Results: bench/results/json_big_<date_time>/summary.md.
"""
import json
import sys
import argparse  # noqa: E402
import datetime  # noqa: E402
import random  # noqa: E402
import shutil  # noqa: E402
import subprocess  # noqa: E402
import tempfile  # noqa: E402
from pathlib import Path  # noqa: E402

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE / "harness"))
from common import Server, loadavg, log, stop_all  # noqa: E402

ROOT = HERE.parent


def big_document(seed):
    rng = random.Random(seed)
    items = [{"id": i, "name": "user-%06d" % i, "tags": ["a", "b", "c"],
              "scores": [rng.randrange(100) for _ in range(8)],
              "address": {"city": "c%d" % i, "zip": "%05d" % i}} for i in range(800)]
    return {"meta": {"n": 0, "name": "big"}, "items": items}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--calls", type=int, default=1_000_000)
    ap.add_argument("--build-dir", default=str(ROOT / "build/release"))
    ap.add_argument("--seed", type=int, default=3)
    ap.add_argument("--no-record", action="store_true")
    a = ap.parse_args()
    bench = shutil.which("redis-benchmark")
    workdir = tempfile.mkdtemp(prefix="hotkv-json-big-")
    srv = Server("hotkv", [str(Path(a.build_dir) / "hotkv-server"), "--port", "{port}",
                           "--bind", "127.0.0.1", "--threads", "1", "--dir", workdir], 0, workdir)
    load = loadavg()
    rows = []
    try:
        srv.start()
        text = json.dumps(big_document(a.seed), separators=(",", ":"))
        srv.cli("JSON.SET", "big", "$", text)
        srv.cli("SET", "s", "v")
        usage = int(srv.cli("MEMORY", "USAGE", "big").strip())
        for args in (["SET", "s", "v"], ["GET", "s"], ["JSON.SET", "big", "$.meta.n", "42"],
                     ["JSON.NUMINCRBY", "big", "$.meta.n", "1"], ["JSON.GET", "big", "$.meta.n"]):
            before = srv.cpu_s()
            subprocess.run(["taskset", "-c", "1", bench, "-p", str(srv.port), "-n", str(a.calls),
                            "-P", "30", "-c", "1", "-q"] + args,
                           stdout=subprocess.DEVNULL, check=True)
            ns = (srv.cpu_s() - before) * 1e9 / a.calls
            log(f"{' '.join(args)}: {ns:.0f} ns/op")
            rows.append((" ".join(args), ns))
    finally:
        stop_all()
        shutil.rmtree(workdir, ignore_errors=True)
    stamp = datetime.datetime.now().strftime("%Y-%m-%d_%H%M%S")
    cmd = "bench/json_big_doc.py" + ("" if a.calls == 1_000_000 else f" --calls {a.calls}")
    lines = [f"# JSON scalar write in a large document (issue 17), {stamp}", "",
             f"Machine: {subprocess.run(['nproc'], capture_output=True, text=True).stdout.strip()} CPUs; "
             f"load average at start {load}. Command: `{cmd}`. redis-benchmark on core 1, "
             f"1 connection, pipeline 30, {a.calls:,} calls per command; HotKV --threads 1 on core 0.",
             f"Document: {len(text):,} bytes of compact JSON (MEMORY USAGE {usage:,}).", "",
             "| command | server CPU ns per call |", "|---|---|"]
    lines += [f"| `{c}` | {ns:,.0f} |" for c, ns in rows]
    out = "\n".join(lines) + "\n"
    print(out)
    if not a.no_record:
        d = ROOT / "bench/results" / f"json_big_{stamp}"
        d.mkdir(parents=True)
        (d / "summary.md").write_text(out)
        print(f"written to {d.relative_to(ROOT)}/")


if __name__ == "__main__":
    main()
