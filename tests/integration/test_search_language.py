"""FT.SEARCH / FT.AGGREGATE / FT.EXPLAIN ... LANGUAGE <lang> (issue 18): the query's terms
expand to their stems in the given language (the documents keep the stems of the index's
language); an unknown language is "No such language". Runs unchanged on Redis 8.8 +
RediSearch 2.10 (HOTKV_TEST_REDIS_MODULE)."""
import pytest

from conftest import error_reply


@pytest.fixture
def li(r):
    r.execute_command("FT.CREATE", "li", "PREFIX", "1", "l:", "SCHEMA", "t", "TEXT")
    r.hset("l:1", "t", "running")
    r.hset("l:2", "t", "laufen laufende")
    r.hset("l:3", "t", "run")
    yield r
    r.execute_command("FT.DROPINDEX", "li")


def search(r, *args):
    return r.execute_command("FT.SEARCH", "li", *args, "NOCONTENT")


def test_language_changes_query_stemming(li):
    r = li
    # English (the index's): "running" -> +run, run.
    assert search(r, "running") == [2, "l:1", "l:3"]
    assert search(r, "running", "LANGUAGE", "English") == [2, "l:1", "l:3"]
    # German stems "running" to itself: no expansion to "run".
    assert search(r, "running", "LANGUAGE", "german") == [1, "l:1"]
    # French stems "runs" to "run" (the documents' English stem).
    assert search(r, "runs", "LANGUAGE", "french") == [2, "l:1", "l:3"]
    assert search(r, "laufende", "LANGUAGE", "GERMAN") == [1, "l:2"]
    # A language without a stemmer: the term alone.
    assert search(r, "running", "LANGUAGE", "chinese") == [1, "l:1"]
    # VERBATIM wins.
    assert search(r, "running", "LANGUAGE", "english", "VERBATIM") == [1, "l:1"]
    assert r.execute_command("FT.AGGREGATE", "li", "running", "LANGUAGE", "german",
                             "LOAD", "1", "@t") == [1, ["t", "running"]]
    assert r.execute_command("FT.AGGREGATE", "li", "running", "LANGUAGE", "english",
                             "LOAD", "1", "@t", "SORTBY", "1", "@t")[0] == 2


def test_language_in_explain(li):
    r = li
    assert r.execute_command("FT.EXPLAIN", "li", "running laufende", "LANGUAGE", "german") == (
        "INTERSECT {\n  UNION {\n    running\n    +running(expanded)\n  }\n"
        "  UNION {\n    laufende\n    +laufend(expanded)\n    laufend(expanded)\n  }\n}\n")
    assert r.execute_command("FT.EXPLAIN", "li", "running") == (
        "UNION {\n  running\n  +run(expanded)\n  run(expanded)\n}\n")
    assert r.execute_command("FT.EXPLAINCLI", "li", "laufende", "LANGUAGE", "german") == [
        "UNION {", "  laufende", "  +laufend(expanded)", "  laufend(expanded)", "}", ""]


def test_language_errors(li):
    r = li
    for cmd in ("FT.SEARCH", "FT.AGGREGATE", "FT.EXPLAIN"):
        assert error_reply(r, cmd, "li", "x", "LANGUAGE", "klingon") == "No such language", cmd
        assert error_reply(r, cmd, "li", "x", "LANGUAGE", "") == "No such language", cmd
    for cmd in ("FT.SEARCH", "FT.AGGREGATE"):
        assert error_reply(r, cmd, "li", "x", "LANGUAGE") == \
            "Bad arguments for LANGUAGE: Expected an argument, but none provided"
