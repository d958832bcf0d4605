#!/usr/bin/env python3
"""Checks that every #include "folder/..." in src/ follows the one-way dependencies of
docs/architecture.md, and that no two folders hold a file of the same name (the naming
rule there). Run by CTest (tests/unit/CMakeLists.txt); exits 1 listing each problem.

usage: scripts/check_layering.py [SRC_DIR]
"""
import os
import re
import sys

# What each folder of src/ may include, besides itself. Keep in step with the
# dependency picture in docs/architecture.md and the libraries in CMakeLists.txt.
ALLOWED = {
    "common": set(),
    "protocol": {"common"},
    "types": {"common"},
    "vector": {"json", "common"},
    "json": {"common"},
    "net": {"protocol", "common"},
    "pubsub": {"protocol", "common"},
    "engine": {"types", "vector", "json", "common"},
    "rdb": {"engine", "types", "vector", "json", "common"},
    "server": {"engine", "pubsub", "net", "protocol", "types", "vector", "json", "common"},
    "commands": {"server", "rdb", "engine", "pubsub", "net", "protocol", "types", "vector", "json",
                 "common"},
    "persistence": {"server", "rdb", "engine", "pubsub", "net", "protocol", "types", "vector",
                    "json", "common"},
    "scripting": {"server", "rdb", "engine", "pubsub", "net", "protocol", "types", "vector",
                  "json", "common"},
    "search": {"server", "rdb", "engine", "pubsub", "net", "protocol", "types", "vector",
               "json", "common"},
    # cluster/ is Redis Cluster (slot table, nodes.conf, CLUSTER commands, the bus);
    # server/ sees it only through server/cluster_hooks.h.
    "cluster": {"commands", "server", "rdb", "engine", "pubsub", "net", "protocol", "types",
                "vector", "json", "common"},
    # ai/ reuses the vector commands' helpers (commands/vector_common.h).
    "ai": {"commands", "server", "rdb", "engine", "pubsub", "net", "protocol", "types", "vector",
           "json", "common"},
}

INCLUDE = re.compile(r'^\s*#\s*include\s+"([a-z_]+)/')


def main():
    src = sys.argv[1] if len(sys.argv) > 1 else os.path.join(
        os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "src")
    bad = []
    seen = {}
    for folder in sorted(os.listdir(src)):
        path = os.path.join(src, folder)
        if not os.path.isdir(path):
            continue
        if folder not in ALLOWED:
            bad.append(f"src/{folder}/: a folder this check does not know; add it to ALLOWED")
            continue
        for name in sorted(os.listdir(path)):
            if not name.endswith((".h", ".cc")):
                continue
            if name in seen:
                bad.append(f"src/{folder}/{name}: the same name as src/{seen[name]}/{name}")
            seen[name] = folder
            with open(os.path.join(path, name), encoding="utf-8") as f:
                for lineno, line in enumerate(f, 1):
                    m = INCLUDE.match(line)
                    if m and m.group(1) != folder and m.group(1) not in ALLOWED[folder]:
                        bad.append(f"src/{folder}/{name}:{lineno}: includes {m.group(1)}/")
    for b in bad:
        print(b)
    if bad:
        print(f"{len(bad)} problem(s) against the layering and naming of docs/architecture.md")
        return 1
    print("layering: ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
