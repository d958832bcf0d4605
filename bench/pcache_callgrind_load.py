#!/usr/bin/python3
"""The load of bench/pcache_callgrind.sh: a 4,000-block chain in PCACHE namespace `ns`
and the same keys as strings, then N rounds of one mode. KEYS=hex32 (default): 32 hex
digits, strings `ns:<key>`; KEYS=bin16: 16 raw bytes, strings `<key>` (no prefix), as
hotkv-prefixbench --keys bin16.

    pcache_callgrind_load.py PORT KEYFILE setup
    pcache_callgrind_load.py PORT KEYFILE longest|blob|exists N
"""
import os
import socket
import sys

port, keyfile, mode = int(sys.argv[1]), sys.argv[2], sys.argv[3]
BIN = os.environ.get("KEYS", "hex32") == "bin16"


def key_of(h):  # h: 32 hex digits (the key file's form)
    return bytes.fromhex(h.decode()) if BIN else h


def string_key(k):
    return k if BIN else b"ns:" + k


def enc(*a):
    o = [b"*%d\r\n" % len(a)]
    for x in a:
        x = x if isinstance(x, bytes) else str(x).encode()
        o += [b"$%d\r\n" % len(x), x, b"\r\n"]
    return b"".join(o)


s = socket.create_connection(("127.0.0.1", port))


def rt(req, n=1):
    s.sendall(req)
    got = b""
    while got.count(b"\r\n") < n:
        got += s.recv(1 << 20)
    return got


if mode == "setup":
    hexes = [os.urandom(16).hex().encode() for _ in range(4000)]
    keys = [key_of(h) for h in hexes]
    rt(enc("PCACHE.CREATE", "ns"))
    prev = None
    for k in keys:
        rt(enc("PCACHE.PUT", "ns", k, b"x" * 64, *(["PARENT", prev] if prev else [])))
        prev = k
    for k in keys:
        rt(enc("SET", string_key(k), b"x" * 64))
    open(keyfile, "wb").write(b"\n".join(hexes))
else:
    keys = [key_of(h) for h in open(keyfile, "rb").read().split(b"\n")]
    if mode == "longest":
        req, n, want = enc("PCACHE.LONGEST", "ns", *keys), 1, b":4000\r\n"
    elif mode == "blob":
        req, n, want = enc("PCACHE.LONGESTBLOB", "ns", len(keys[0]), b"".join(keys)), 1, b":4000\r\n"
    else:
        req, n, want = b"".join(enc("EXISTS", string_key(k)) for k in keys), 4000, b":1\r\n" * 4000
    for _ in range(int(sys.argv[4])):
        r = rt(req, n)
        assert r == want, r[:40]
