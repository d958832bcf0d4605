"""FT.CREATE's TEMPORARY, LANGUAGE_FIELD, SCORE_FIELD and PAYLOAD_FIELD (with FT.SEARCH
WITHPAYLOADS), as Redis 8.8 + RediSearch 2.10 do them (replies read from the reference)."""
import time

import pytest

from conftest import error_reply, wait_until


def ft(r, *args):
    return r.execute_command(*args)


@pytest.fixture
def pl(r):
    ft(r, "FT.CREATE", "pl", "PREFIX", "1", "pl:", "PAYLOAD_FIELD", "pf", "LANGUAGE_FIELD",
       "lang", "SCORE_FIELD", "sc", "SCHEMA", "t", "TEXT")
    r.hset("pl:1", mapping={"t": "running dogs", "pf": "mypayload", "lang": "french", "sc": "0.5"})
    r.hset("pl:2", mapping={"t": "running dogs", "lang": "english", "sc": "2"})
    r.hset("pl:3", mapping={"t": "running dogs", "lang": "klingon", "sc": "abc"})
    r.hset("pl:4", mapping={"t": "courir chiens", "lang": "french"})
    r.hset("pl:5", mapping={"t": "running dogs", "sc": "-1"})
    r.hset("pl:6", mapping={"t": "running dogs", "sc": "0"})
    r.hset("pl:7", mapping={"t": "running dogs", "sc": " 3"})
    yield r
    ft(r, "FT.DROPINDEX", "pl", "DD")


def test_score_field_and_payloads(pl):
    # SCORE_FIELD: any number (2 is not capped), negative ranks 0, " 3"/"abc" are the
    # default 1. WITHPAYLOADS: the PAYLOAD_FIELD's value after the score, else nil.
    assert ft(pl, "FT.SEARCH", "pl", "running", "WITHPAYLOADS", "WITHSCORES", "NOCONTENT") == [
        6, "pl:2", "4", None, "pl:3", "2", None, "pl:7", "2", None, "pl:1", "0.5", "mypayload",
        "pl:5", "0", None, "pl:6", "0", None]
    assert ft(pl, "FT.SEARCH", "pl", "running", "WITHPAYLOADS", "LIMIT", "0", "2",
              "RETURN", "1", "t") == [6, "pl:2", None, ["t", "running dogs"],
                                      "pl:3", None, ["t", "running dogs"]]
    assert ft(pl, "FT.SEARCH", "pl", "@t:dogs", "WITHPAYLOADS", "NOCONTENT", "INKEYS", "1",
              "pl:1") == [1, "pl:1", "mypayload"]
    # The payload, score and language fields are never returned fields; others are.
    pl.hset("pl:1", "other", "x")
    assert ft(pl, "FT.SEARCH", "pl", "@t:dogs", "INKEYS", "1", "pl:1") == \
        [1, "pl:1", ["t", "running dogs", "other", "x"]]
    assert ft(pl, "FT.SEARCH", "pl", "@t:dogs", "INKEYS", "1", "pl:1", "RETURN", "4", "pf",
              "t", "sc", "lang") == [1, "pl:1", ["t", "running dogs"]]


def test_language_field(pl):
    # French documents are stemmed in French ("running" has no English stem "run" there);
    # an unknown language is the index's.
    assert ft(pl, "FT.SEARCH", "pl", "run", "NOCONTENT", "SORTBY", "t") == \
        [5, "pl:2", "pl:3", "pl:5", "pl:6", "pl:7"]
    assert ft(pl, "FT.SEARCH", "pl", "chien", "NOCONTENT") == [1, "pl:4"]
    assert ft(pl, "FT.SEARCH", "pl", "courir", "NOCONTENT") == [1, "pl:4"]


def test_temporary_index_drops_itself(r):
    assert error_reply(r, "FT.CREATE", "tx", "TEMPORARY", "x", "SCHEMA", "t", "TEXT") == \
        "Bad arguments for TEMPORARY: Could not convert argument to expected type"
    ft(r, "FT.CREATE", "tmp1", "TEMPORARY", "1", "PREFIX", "1", "tmp:", "SCHEMA", "t", "TEXT")
    ft(r, "FT.CREATE", "keep", "TEMPORARY", "1000", "PREFIX", "1", "tmp:", "SCHEMA", "t", "TEXT")
    try:
        r.hset("tmp:1", "t", "hello")
        assert ft(r, "FT.SEARCH", "tmp1", "hello", "NOCONTENT") == [1, "tmp:1"]
        assert ft(r, "FT.ALIASADD", "tmpal", "tmp1") == "OK"
        # Idle for its second (writes do not count): gone, with its alias and, as on
        # RediSearch, its documents.
        t0 = time.time()
        assert wait_until(lambda: "tmp1" not in ft(r, "FT._LIST"), timeout=5.0)
        assert time.time() - t0 > 0.5
        assert error_reply(r, "FT.SEARCH", "tmp1", "hello") == "No such index tmp1"
        assert error_reply(r, "FT.SEARCH", "tmpal", "hello") == "No such index tmpal"
        assert error_reply(r, "FT.DROPINDEX", "tmp1") == "Unknown Index name"
        assert wait_until(lambda: r.exists("tmp:1") == 0, timeout=5.0)
        assert "keep" in ft(r, "FT._LIST")
        assert ft(r, "FT.SEARCH", "keep", "hello", "NOCONTENT") == [0]
    finally:
        for name in ft(r, "FT._LIST"):
            if name in ("tmp1", "keep"):
                ft(r, "FT.DROPINDEX", name)
        r.delete("tmp:1")
