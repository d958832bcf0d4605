#!/usr/bin/env python3
"""Write the RESP stream `SET key:<i as 12 digits> <value>` for i in [0, N) to stdout.

The key names are exactly those redis-benchmark's `-r` produces (`key:` + `__rand_int__`,
a 12-digit zero-padded number), so GET/MGET in the redis-benchmark runs hit. Pipe the
output into `redis-cli --pipe`. The value is `--value-size` bytes of 'x' (what
`redis-benchmark -d` sends).

    python3 preload.py 1000000 256 | redis-cli -p PORT --pipe
"""
import sys


def main() -> int:
    n = int(sys.argv[1])
    size = int(sys.argv[2]) if len(sys.argv) > 2 else 256
    value = b"x" * size
    tail = b"\r\n$%d\r\n%s\r\n" % (size, value)
    head = b"*3\r\n$3\r\nSET\r\n$16\r\nkey:"
    out = sys.stdout.buffer
    batch = 10000
    for start in range(0, n, batch):
        end = min(n, start + batch)
        out.write(b"".join(head + b"%012d" % i + tail for i in range(start, end)))
    out.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
