"""FT.PROFILE's reply shape as RediSearch 2.10 (search/aggregate_family.cc): the command's
reply, then the times, "Warning", the iterators tree built from the query (TEXT / TAG /
NUMERIC leaves, INTERSECT smallest child first, UNION with its "Query type", NOT with its
"Child iterator", WILDCARD) and the result processors. Times and counts vary; the
structure is compared with the reference's."""
import pytest

T = "T"
N = "N"
TIMES = ("Time", "Total profile time", "Parsing time", "Pipeline creation time",
         "Total GIL time")
COUNTS = ("Number of reading operations", "Estimated number of matches", "Results processed")


def ft(r, *args):
    return r.execute_command(*args)


def norm(x, key=None):
    """Times -> "T", counts -> "N", the rest as is."""
    if isinstance(x, list):
        out, prev = [], None
        for e in x:
            out.append(norm(e, prev))
            prev = e if isinstance(e, str) else None
        return out
    if key in TIMES:
        return T
    if key in COUNTS:
        return N
    return x


def text(term):
    return ["Type", "TEXT", "Term", term, "Time", T, "Number of reading operations", N,
            "Estimated number of matches", N]


def tag(term):
    return ["Type", "TAG", "Term", term, "Time", T, "Number of reading operations", N,
            "Estimated number of matches", N]


def rps(*names):
    return ["Result processors profile"] + [
        ["Type", n, "Time", T, "Results processed", N] for n in names]


HEAD = [["Total profile time", T], ["Parsing time", T], ["Pipeline creation time", T],
        ["Total GIL time", T], ["Warning"]]


@pytest.fixture
def pf(r):
    ft(r, "FT.CREATE", "pf", "PREFIX", "1", "pf:", "SCHEMA", "t", "TEXT", "n", "NUMERIC",
       "g", "TAG")
    r.hset("pf:1", mapping={"t": "hello world", "n": 1, "g": "a"})
    r.hset("pf:2", mapping={"t": "hello there", "n": 5, "g": "b"})
    yield r
    ft(r, "FT.DROPINDEX", "pf", "DD")


def test_profile_search_shapes(pf):
    res = ft(pf, "FT.PROFILE", "pf", "SEARCH", "QUERY", "hello world", "NOCONTENT")
    assert res[0] == [1, "pf:1"]
    assert norm(res[1]) == HEAD + [
        ["Iterators profile", ["Type", "INTERSECT", "Time", T, "Number of reading operations", N,
                               "Child iterators", text("world"), text("hello")]],
        rps("Index", "Scorer", "Sorter")]
    res = ft(pf, "FT.PROFILE", "pf", "SEARCH", "QUERY", '"hello world"', "NOCONTENT")
    assert norm(res[1])[5] == [
        "Iterators profile", ["Type", "INTERSECT", "Time", T, "Number of reading operations", N,
                              "Child iterators", text("hello"), text("world")]]
    res = ft(pf, "FT.PROFILE", "pf", "SEARCH", "QUERY", "@g:{a|b}")
    assert res[0][0] == 2
    assert norm(res[1]) == HEAD + [
        ["Iterators profile", ["Type", "UNION", "Query type", "TAG", "Time", T,
                               "Number of reading operations", N, "Child iterators",
                               tag("a"), tag("b")]],
        rps("Index", "Scorer", "Sorter", "Loader")]
    prefix = ["Type", "UNION", "Query type", "PREFIX - hel", "Time", T,
              "Number of reading operations", N, "Child iterators"]
    for limited in (False, True):
        res = ft(pf, "FT.PROFILE", "pf", "SEARCH", *(["LIMITED"] if limited else []), "QUERY",
                 "hel* @g:{a}", "NOCONTENT")
        assert res[0] == [1, "pf:1"]
        assert norm(res[1])[5] == [
            "Iterators profile",
            ["Type", "INTERSECT", "Time", T, "Number of reading operations", N,
             "Child iterators", tag("a"),
             prefix + (["The number of iterators in the union is 1"] if limited
                       else [text("hello")])]]
    res = ft(pf, "FT.PROFILE", "pf", "SEARCH", "QUERY", "@g:{a} -@g:{b}", "NOCONTENT")
    assert norm(res[1])[5] == [
        "Iterators profile",
        ["Type", "INTERSECT", "Time", T, "Number of reading operations", N, "Child iterators",
         tag("a"), ["Type", "NOT", "Time", T, "Number of reading operations", N,
                    "Child iterator", tag("b")]]]


def test_profile_aggregate_and_numeric(pf):
    res = ft(pf, "FT.PROFILE", "pf", "AGGREGATE", "QUERY", "*", "LOAD", "1", "@n",
             "SORTBY", "2", "@n", "DESC")
    assert res[0] == [2, ["n", "5"], ["n", "1"]]
    assert norm(res[1]) == HEAD + [
        ["Iterators profile", ["Type", "WILDCARD", "Time", T, "Number of reading operations", N]],
        rps("Index", "Loader", "Sorter")]
    res = ft(pf, "FT.PROFILE", "pf", "SEARCH", "QUERY", "hello|@n:[1 10]", "NOCONTENT")
    tree = norm(res[1])[5][1]
    assert tree[:9] == ["Type", "UNION", "Query type", "UNION", "Time", T,
                        "Number of reading operations", N, "Child iterators"]
    assert tree[9] == text("hello")
    assert tree[10][:2] == ["Type", "NUMERIC"] and len(tree[10]) == 10


def test_profile_errors(pf):
    from conftest import error_reply
    assert error_reply(pf, "FT.PROFILE", "pf", "BAD", "QUERY", "*") == \
        "No `SEARCH` or `AGGREGATE` provided"
    assert error_reply(pf, "FT.PROFILE", "nope", "SEARCH", "QUERY", "*") == "No such index nope"
