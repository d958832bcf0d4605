"""Helpers for the vector tests (test_vector_sets.py: Redis 8 VADD/VSIM/..., test_vsim.py:
HotKV's VSIM.*): vectors as FP32 blobs or VALUES arguments, brute-force neighbours in plain
Python (no numpy on the test machines), and a thread runner that reports errors."""
import math
import random
import struct
import threading


def fp32(vec):
    """The little-endian float32 blob of `vec` (FP32 argument)."""
    return struct.pack(f"<{len(vec)}f", *vec)


def values(vec):
    """["VALUES", n, v1, ..., vn] arguments; repr keeps every digit."""
    return ["VALUES", len(vec)] + [repr(float(x)) for x in vec]


def as_f32(x):
    """x rounded to float32, as the server stores it."""
    return struct.unpack("<f", struct.pack("<f", x))[0]


def random_vectors(n, dim, seed):
    rng = random.Random(seed)
    return [[rng.uniform(-1.0, 1.0) for _ in range(dim)] for _ in range(n)]


def dot(a, b):
    return sum(x * y for x, y in zip(a, b))


def norm(a):
    return math.sqrt(dot(a, a))


def cosine_similarity(a, b):
    return dot(a, b) / (norm(a) * norm(b))


def l2_squared(a, b):
    return sum((x - y) ** 2 for x, y in zip(a, b))


def brute_force(vectors, query, k, distance):
    """Names (indexes as str) of the k elements of `vectors` nearest to `query`."""
    order = sorted(range(len(vectors)), key=lambda i: distance(vectors[i], query))
    return [str(i) for i in order[:k]]


def cosine_distance(a, b):
    return 1.0 - cosine_similarity(a, b)


def pairs(flat):
    """[a, 1, b, 2] -> [(a, 1), (b, 2)]"""
    assert len(flat) % 2 == 0, flat
    return list(zip(flat[0::2], flat[1::2]))


def run_threads(targets, timeout=120):
    """Runs each callable in its own thread; re-raises the first exception in the caller."""
    errors = []

    def wrap(fn):
        def body():
            try:
                fn()
            except BaseException as e:  # reported in the main thread
                errors.append(e)
        return body

    threads = [threading.Thread(target=wrap(t)) for t in targets]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=timeout)
    assert not any(t.is_alive() for t in threads), "client threads did not finish"
    if errors:
        raise errors[0]
