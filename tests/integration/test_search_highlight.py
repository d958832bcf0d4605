"""FT.SEARCH HIGHLIGHT and SUMMARIZE (search/highlight.cc): RediSearch 2.10's fragments,
context cuts, tags, separators, field selection and order, errors. Every expected reply
below was read from Redis 8.8 + RediSearch 2.10 on the same documents."""
import pytest

from conftest import error_reply

LONG = ("The quick brown fox jumps over the lazy dog. Foxes are clever animals and they hunt "
        "at night. The dog sleeps all day long while the fox runs around the farm looking for "
        "chickens to eat.")


def ft(r, *args):
    return r.execute_command(*args)


def docs(reply):
    """{id: {field: value}} of an FT.SEARCH reply (RESP2)."""
    return {reply[i]: dict(zip(reply[i + 1][::2], reply[i + 1][1::2]))
            for i in range(1, len(reply), 2)}


@pytest.fixture
def hl(r):
    ft(r, "FT.CREATE", "hl", "PREFIX", "1", "h:", "SCHEMA", "t", "TEXT", "b", "TEXT",
       "n", "NUMERIC")
    r.hset("h:1", mapping={"t": LONG, "b": "hello fox world", "n": "5"})
    r.hset("h:2", mapping={"t": "Nothing relevant here at all", "b": "foxy fox", "n": "3"})
    r.hset("h:3", mapping={"t": "alpha beta gamma", "n": "35", "b": "x"})
    r.hset("h:4", mapping={"t": "fox only", "extra": "fox here too"})
    yield r
    ft(r, "FT.DROPINDEX", "hl", "DD")


def test_highlight_default_tags_and_stems(hl):
    got = docs(ft(hl, "FT.SEARCH", "hl", "fox", "HIGHLIGHT"))
    assert got["h:1"]["t"] == LONG.replace("fox ", "<b>fox</b> ").replace(
        "Foxes", "<b>Foxes</b>")
    assert got["h:1"]["b"] == "hello <b>fox</b> world"
    assert got["h:2"] == {"t": "Nothing relevant here at all", "b": "foxy <b>fox</b>", "n": "3"}
    assert got["h:4"] == {"t": "<b>fox</b> only", "extra": "fox here too"}
    # A field restriction keeps only the terms that matched there ("+fox" of Foxes is in
    # t only), but their occurrences are highlighted in every field.
    got = docs(ft(hl, "FT.SEARCH", "hl", "@b:fox", "HIGHLIGHT", "RETURN", "1", "t"))
    assert got["h:1"]["t"] == LONG.replace("fox ", "<b>fox</b> ")


def test_highlight_fields_tags_and_order(hl):
    reply = ft(hl, "FT.SEARCH", "hl", "fox", "HIGHLIGHT", "FIELDS", "1", "b",
               "TAGS", "[", "]", "RETURN", "2", "b", "t")
    got = docs(reply)
    assert got["h:2"] == {"b": "foxy [fox]", "t": "Nothing relevant here at all"}
    assert got["h:1"]["t"] == LONG
    # Without RETURN the FIELDS come first (after SORTBY's field), the rest as stored.
    reply = ft(hl, "FT.SEARCH", "hl", "@t:nothing", "HIGHLIGHT", "FIELDS", "1", "b")
    assert reply == [1, "h:2", ["b", "foxy fox", "t", "Nothing relevant here at all", "n", "3"]]
    reply = ft(hl, "FT.SEARCH", "hl", "@t:nothing", "HIGHLIGHT", "FIELDS", "1", "b",
               "SORTBY", "n")
    assert reply == [1, "h:2", ["n", "3", "b", "foxy fox", "t", "Nothing relevant here at all"]]
    # With RETURN, FIELDS add nothing to the reply.
    reply = ft(hl, "FT.SEARCH", "hl", "@t:nothing", "RETURN", "1", "n", "HIGHLIGHT",
               "FIELDS", "1", "t")
    assert reply == [1, "h:2", ["n", "3"]]
    reply = ft(hl, "FT.SEARCH", "hl", "only", "highlight", "fields", "1", "t", "tags", "", "")
    assert reply == [1, "h:4", ["t", "fox only", "extra", "fox here too"]]


def test_summarize_fragments(hl):
    got = docs(ft(hl, "FT.SEARCH", "hl", "fox", "SUMMARIZE"))
    assert got["h:1"] == {
        "t": "quick brown fox jumps over the lazy dog. Foxes are clever animals and they hunt "
             "at night. The... they hunt at night. The dog sleeps all day long while the fox "
             "runs around the farm looking for chickens to eat... ",
        "b": "fox ... ", "n": "5"}
    # No match in a field: its head, cut at a separator; numbers too ("35" -> "3").
    assert got["h:2"] == {"t": "Nothing relevant here at", "b": "fox... ", "n": "3"}
    assert got["h:4"] == {"t": "fox ... ", "extra": "fox here"}
    got = docs(ft(hl, "FT.SEARCH", "hl", "alpha", "SUMMARIZE"))
    assert got == {"h:3": {"t": "alpha beta... ", "n": "3", "b": "x"}}
    got = docs(ft(hl, "FT.SEARCH", "hl", "fox", "SUMMARIZE", "FRAGS", "1", "LEN", "5"))
    assert got["h:1"]["t"] == "fox jumps over the lazy dog. Foxes ... "
    got = docs(ft(hl, "FT.SEARCH", "hl", "nothing", "SUMMARIZE"))
    assert got == {"h:2": {"t": "Nothing relevant here at... ", "b": "foxy", "n": "3"}}
    got = docs(ft(hl, "FT.SEARCH", "hl", "fox", "SUMMARIZE", "FIELDS", "2", "n", "b",
                  "LEN", "2", "FRAGS", "1", "SEPARATOR", "|"))
    assert got["h:1"] == {"n": "5", "b": "fox |", "t": LONG}
    assert got["h:2"] == {"n": "3", "b": "fox|", "t": "Nothing relevant here at all"}
    got = docs(ft(hl, "FT.SEARCH", "hl", "only", "SUMMARIZE", "FRAGS", "0"))
    assert got == {"h:4": {"t": "", "extra": "fox"}}
    # FIELDS 0 is every field.
    assert docs(ft(hl, "FT.SEARCH", "hl", "fox", "SUMMARIZE", "FIELDS", "0")) == \
        docs(ft(hl, "FT.SEARCH", "hl", "fox", "SUMMARIZE"))


def test_summarize_and_highlight_together(hl):
    got = docs(ft(hl, "FT.SEARCH", "hl", "fox", "SUMMARIZE", "FIELDS", "1", "t",
                  "HIGHLIGHT", "FIELDS", "1", "t"))
    assert got["h:1"]["t"] == (
        "quick brown <b>fox</b> jumps over the lazy dog. <b>Foxes</b> are clever animals and "
        "they hunt at night. The... they hunt at night. The dog sleeps all day long while the "
        "<b>fox</b> runs around the farm looking for chickens to eat... ")
    assert got["h:1"]["b"] == "hello fox world"
    # Both modes and no match: the field is left whole.
    assert got["h:2"]["t"] == "Nothing relevant here at all"
    got = docs(ft(hl, "FT.SEARCH", "hl", "fox dog", "SUMMARIZE", "FIELDS", "1", "t",
                  "FRAGS", "2", "LEN", "4", "HIGHLIGHT", "TAGS", "<", ">"))
    assert got["h:1"]["t"] == ("<fox> jumps over the lazy <dog>. <Foxes> are clever animals "
                               "and they hunt at night. The <dog> sleeps all day long while "
                               "the <fox>... ")
    assert got["h:1"]["b"] == "hello fox world"


def test_highlight_nocontent(hl):
    reply = ft(hl, "FT.SEARCH", "hl", "fox -alpha", "HIGHLIGHT", "NOCONTENT")
    assert reply[0] == 3 and sorted(reply[1:]) == ["h:1", "h:2", "h:4"]


def test_highlight_summarize_errors(hl):
    for args, err in [
            (("HIGHLIGHT", "TAGS"), "Bad arguments for HIGHLIGHT"),
            (("HIGHLIGHT", "TAGS", "a"), "Bad arguments for HIGHLIGHT"),
            (("HIGHLIGHT", "FIELDS", "3", "b"), "Bad arguments for HIGHLIGHT"),
            (("HIGHLIGHT", "FIELDS", "x"), "Bad arguments for HIGHLIGHT"),
            (("SUMMARIZE", "FIELDS", "1", "b", "FRAGS", "x"), "Bad arguments for SUMMARIZE"),
            (("SUMMARIZE", "FRAGS", "-1"), "Bad arguments for SUMMARIZE"),
            (("SUMMARIZE", "LEN"), "Bad arguments for SUMMARIZE"),
            (("SUMMARIZE", "SEPARATOR"), "Bad arguments for SUMMARIZE"),
            (("HIGHLIGHT", "FIELDS", "1", "zz"), "No such property `zz`"),
            (("SUMMARIZE", "FIELDS", "1", "extra"), "No such property `extra`"),
            (("SUMMARIZE", "LEN", "0", "FIELDS", "1", "t"),
             "Unknown argument `FIELDS` at position 4 for <main>")]:
        assert error_reply(hl, "FT.SEARCH", "hl", "fox", *args) == err, args
