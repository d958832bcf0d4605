#!/usr/bin/python3
"""Sums the self Ir of every function in a callgrind dump (callgrind_annotate's PROGRAM
TOTALS line is wrong for dumps taken after `callgrind_control -i off/on`), per request:
all, and without Keyspace::ExpireCycle (the active-expiry timer: its work grows with the
wall time valgrind takes, not with the requests). Prints the top functions too.

    pcache_callgrind_sum.py callgrind.out.MODE REQUESTS
"""
import re
import subprocess
import sys

path, n = sys.argv[1], int(sys.argv[2])
out = subprocess.run(["callgrind_annotate", "--threshold=100", path], capture_output=True,
                     text=True).stdout
rows = []
started = False
for line in out.splitlines():
    if "file:function" in line:
        started = True
        continue
    m = re.match(r"\s*([\d,]+) \(\s*[\d.]+%\)\s+(.*)", line) if started else None
    if m:
        rows.append((int(m.group(1).replace(",", "")), m.group(2)))
total = sum(ir for ir, _ in rows)
timer = sum(ir for ir, f in rows if "ExpireCycle" in f)
print(f"Ir per request: {total / n:,.0f} all, {(total - timer) / n:,.0f} without ExpireCycle "
      f"({n} requests)")
merged = {}
for ir, f in rows:
    name = re.sub(r"\(.*", "", f.split(":", 1)[1] if ":" in f else f)
    merged[name] = merged.get(name, 0) + ir
for name, ir in sorted(merged.items(), key=lambda x: -x[1])[:10]:
    print(f"  {ir / n:>12,.0f}  {name[:100]}")
