#!/usr/bin/python3
"""The load of bench/pcache_callgrind.sh: a 4,000-block chain (32-hex-digit keys) in
PCACHE namespace `ns` and the same keys as strings `ns:<key>`, then N rounds of one mode.

    pcache_callgrind_load.py PORT KEYFILE setup
    pcache_callgrind_load.py PORT KEYFILE longest|blob|exists N
"""
import os
import socket
import sys

port, keyfile, mode = int(sys.argv[1]), sys.argv[2], sys.argv[3]


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
    keys = [os.urandom(16).hex().encode() for _ in range(4000)]
    rt(enc("PCACHE.CREATE", "ns"))
    prev = None
    for k in keys:
        rt(enc("PCACHE.PUT", "ns", k, b"x" * 64, *(["PARENT", prev] if prev else [])))
        prev = k
    for k in keys:
        rt(enc("SET", b"ns:" + k, b"x" * 64))
    open(keyfile, "wb").write(b"\n".join(keys))
else:
    keys = open(keyfile, "rb").read().split(b"\n")
    if mode == "longest":
        req, n, want = enc("PCACHE.LONGEST", "ns", *keys), 1, b":4000\r\n"
    elif mode == "blob":
        req, n, want = enc("PCACHE.LONGESTBLOB", "ns", 32, b"".join(keys)), 1, b":4000\r\n"
    else:
        req, n, want = b"".join(enc("EXISTS", b"ns:" + k) for k in keys), 4000, b":1\r\n" * 4000
    for _ in range(int(sys.argv[4])):
        r = rt(req, n)
        assert r == want, r[:40]
