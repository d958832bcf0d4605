#!/usr/bin/python3
"""ns of server CPU per SET by kernel path, from a measure.py --record run:
    categories.py <label> [requests]
perf sampled the server's threads at 1999 Hz of CPU time (cpu-clock: no PMU in this VM),
so samples * 1e9 / 1999 / requests = ns per SET. Server threads: the <label>.txt table
(the rewrite child, which /proc's CPU figures leave out too, is not counted).
Inclusive (children) samples of each kernel entry point or function."""
import os, re, subprocess, sys
here = os.path.dirname(os.path.abspath(__file__))
label = sys.argv[1]
n = int(sys.argv[2]) if len(sys.argv) > 2 else 500000
tids = []
for line in open(os.path.join(here, label + ".txt")):
    m = re.match(r"\s+(\d+) (hotkv|redis|bio_|jemalloc)", line)
    if m:
        tids.append(m.group(1))
data = f"/tmp/aofperf/{label}.data"
out = subprocess.run(["perf", "script", "-i", data, "--tid", ",".join(tids), "-F", "tid,ip,sym"],
                     capture_output=True, text=True).stdout
per_ns = 1e9 / 1999 / n
keys = ["ext4_buffered_write_iter", "copy_folio_from_iter_atomic", "__x64_sys_fdatasync",
        "do_wp_page", "do_anonymous_page", "__x64_sys_madvise", "__do_sys_io_uring_enter",
        "__x64_sys_sched_yield", "__x64_sys_futex", "ksys_read", "ksys_write", "do_epoll_wait",
        "copy_page_range", "entry_SYSCALL_64", "asm_exc_page_fault"]
counts = {k: 0 for k in keys}
total = 0
for block in out.split("\n\n"):
    lines = [l.strip() for l in block.strip().splitlines()]
    if not lines:
        continue
    total += 1
    syms = set()
    for l in lines[1:]:
        parts = l.split(None, 1)
        if len(parts) == 2:
            syms.add(parts[1].split("+")[0])
    for k in keys:
        if k in syms:
            counts[k] += 1
print(f"{label}: server threads {','.join(tids)}: {total} samples = {total * per_ns:.0f} ns/SET")
for k in keys:
    if counts[k]:
        print(f"  {k:32} {counts[k] * per_ns:6.0f} ns/SET")
