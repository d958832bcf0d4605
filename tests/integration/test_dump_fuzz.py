"""RESTORE of damaged DUMP payloads (bounded: a fixed number of seeded mutations of payloads
of every type and encoding, this server's and Redis 7.0's when present). Mutations with the
CRC64 recomputed reach the decoder: each must be refused with "ERR Bad data format" and
leave no key behind, or be accepted as a value that reads back whole and DUMPs/RESTOREs
again. Mutations without it must be caught by the checksum. The server must answer PING
throughout. Against redis-server the test turns on sanitize-dump-payload (Redis trusts a
payload with a good checksum otherwise and may crash)."""
import os
import random

import pytest

from conftest import IS_REDIS, error_reply
from helpers_dump import REDIS7, Peer, snapshot, with_footer

# Bounded by default; HOTKV_FUZZ_MUTATIONS / HOTKV_FUZZ_SEED run longer or other searches.
MUTATIONS = int(os.environ.get("HOTKV_FUZZ_MUTATIONS", "3000"))
SEED = int(os.environ.get("HOTKV_FUZZ_SEED", "1515"))
CHECKSUM = "ERR DUMP payload version or checksum are wrong"
BAD_DATA = "ERR Bad data format"


def make_keys(c):
    rnd = random.Random(7)
    p = c.pipeline(transaction=False)
    p.set(b"s:int", b"-12345")
    p.set(b"s:short", b"hello world")
    p.set(b"s:lzf", b"abcabcabc" * 200)
    p.set(b"s:bin", bytes(range(256)))
    p.rpush(b"l:small", b"a", b"12", b"-7", b"x" * 30, b"\x00\xff")
    p.rpush(b"l:medium", *[rnd.randbytes(rnd.randint(0, 40)) for _ in range(300)])
    p.rpush(b"l:ints", *range(-100, 100, 3))
    p.hset(b"h:small", mapping={b"a": b"1", b"bb": b"22", b"c": b"x" * 20})
    p.hset(b"h:medium", mapping={f"f{i}".encode(): rnd.randbytes(rnd.randint(0, 20))
                                 for i in range(200)})
    p.hset(b"h:long", mapping={b"k": b"v" * 100})
    p.sadd(b"set:int", 1, -2, 300, 70000, 5000000000)
    p.sadd(b"set:intmed", *range(0, 1800, 3))
    p.sadd(b"set:str", b"a", b"bb", b"ccc")
    p.sadd(b"set:strmed", *[f"m{i}".encode() for i in range(200)])
    p.zadd(b"z:small", {b"a": 1, b"b": 2.5, b"c": float("inf"), b"d": -1e-300})
    p.zadd(b"z:medium", {f"m{i}".encode(): rnd.uniform(-1e6, 1e6) for i in range(200)})
    p.execute()
    return [b"s:int", b"s:short", b"s:lzf", b"s:bin", b"l:small", b"l:medium", b"l:ints",
            b"h:small", b"h:medium", b"h:long", b"set:int", b"set:intmed", b"set:str",
            b"set:strmed", b"z:small", b"z:medium"]


@pytest.fixture
def payloads(rb, tmp_path):
    """Payloads of this server, plus Redis 7.0's (listpacks, intsets, quicklists) if present."""
    out = [rb.dump(k) for k in make_keys(rb)]
    rb.flushall()
    if os.path.exists(REDIS7):
        peer = Peer(REDIS7, tmp_path)
        try:
            c = peer.client()
            out += [c.dump(k) for k in make_keys(c)]
        finally:
            peer.stop()
    return out


def mutate(rnd, payload):
    """(mutated payload, whether its checksum is valid)."""
    body, version = bytearray(payload[:-10]), int.from_bytes(payload[-10:-8], "little")
    kind = rnd.randrange(7)
    if kind == 0:  # truncated body
        body = body[:rnd.randrange(len(body))]
    elif kind == 1:  # bit flips
        for bit in rnd.sample(range(len(body) * 8), min(rnd.randint(1, 4), len(body) * 8)):
            body[bit // 8] ^= 1 << (bit % 8)
    elif kind == 2:  # a byte set to a value lengths and encodings care about
        body[rnd.randrange(len(body))] = rnd.choice([0x00, 0x01, 0x3F, 0x40, 0x7F, 0x80, 0xC0,
                                                     0xC3, 0xFE, 0xFF])
    elif kind == 3:  # random bytes inserted
        i = rnd.randrange(len(body) + 1)
        body[i:i] = rnd.randbytes(rnd.randint(1, 8))
    elif kind == 4:  # a chunk cut out
        i = rnd.randrange(len(body))
        del body[i:i + rnd.randint(1, 16)]
    elif kind == 5:  # bit flips, checksum left as it was
        data = bytearray(payload)
        for bit in rnd.sample(range(len(data) * 8), rnd.randint(1, 3)):  # distinct bits
            data[bit // 8] ^= 1 << (bit % 8)
        return bytes(data), False
    else:  # truncated payload, checksum gone with it
        return payload[:rnd.randrange(len(payload))], False
    return with_footer(body, version=version), True


def test_damaged_payloads(rb, payloads, restore_config):
    if IS_REDIS:
        restore_config("sanitize-dump-payload")
        rb.config_set("sanitize-dump-payload", "yes")
    rnd = random.Random(SEED)
    outcomes = {"ok": 0, BAD_DATA: 0, CHECKSUM: 0}
    for n in range(MUTATIONS):
        data, checksum_ok = mutate(rnd, rnd.choice(payloads))
        try:
            reply = rb.restore(b"fz", 0, data)
        except Exception as e:  # the full error text is checked below
            reply = e
        if isinstance(reply, Exception):
            text = error_reply(rb, "RESTORE", "fz", 0, data)
            if checksum_ok:
                assert text == BAD_DATA, (n, data)
            elif data[-8:] == b"\0" * 8:  # no checksum to check (Redis 7.0 still refuses it)
                assert text in (BAD_DATA, CHECKSUM), (n, data)
            else:
                assert text == CHECKSUM, (n, data)
            outcomes[text] += 1
            assert rb.exists(b"fz") == 0, (n, data)
        else:
            # accepted: the value must read back whole and survive another round trip
            assert checksum_ok or data[-8:] == b"\0" * 8, (n, data)
            outcomes["ok"] += 1
            before = snapshot(rb, b"fz")
            again = rb.dump(b"fz")
            rb.delete(b"fz")
            assert rb.restore(b"fz", 0, again)
            assert snapshot(rb, b"fz") == before, (n, data)
            rb.delete(b"fz")
        if n % 100 == 0:
            assert rb.ping()
    assert rb.ping()
    assert rb.dbsize() == 0
    # every path was taken
    assert all(v > 0 for v in outcomes.values()), outcomes
