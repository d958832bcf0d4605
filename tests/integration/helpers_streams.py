"""Shared helpers of the stream tests (test_streams*.py)."""

INVALID_ID = "ERR Invalid stream ID specified as stream command argument"


def fill(rc, key, n, start=1):
    """Adds entries start-0 .. start+n-1 - 0, each {"f": str(i)}."""
    for i in range(start, start + n):
        rc("XADD", key, f"{i}-0", "f", str(i))


def ids(entries):
    return [e[0] for e in entries]


def as_map(flat):
    return dict(zip(flat[0::2], flat[1::2]))
