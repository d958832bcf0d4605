"""Index aliases kept with the index definitions (search/index_registry.cc: the RDB aux
field hotkv-ft-indexes and the AOF's commands) through DEBUG RELOAD, SAVE + restart and
AOF rewrites (RDB base and command base), as RediSearch 2.10 keeps them in its RDB."""
from conftest import IS_REDIS, ServerProcess, wait_until


def ft(r, *args):
    return r.execute_command(*args)


def aliased(c):
    """What the aliases resolve to: the documents each finds. (RediSearch re-indexes
    loaded keys in the background: give it a moment; HotKV indexes before it serves.)"""
    wait_until(lambda: found(c) == EXPECTED, timeout=5.0)
    return found(c)


def found(c):
    out = {}
    for a in ("al1", "al2", "gone"):
        try:
            out[a] = sorted(ft(c, "FT.SEARCH", a, "@t:{x}", "NOCONTENT")[1:])
        except Exception as e:  # noqa: BLE001 - the error text is the answer
            out[a] = str(e)
    return out


def make_aliases(c):
    c.hset("pa:1", "t", "x")
    c.hset("pb:1", "t", "x")
    c.hset("pb:2", "t", "x")
    ft(c, "FT.CREATE", "ia", "PREFIX", "1", "pa:", "SCHEMA", "t", "TAG")
    ft(c, "FT.CREATE", "ib", "PREFIX", "1", "pb:", "SCHEMA", "t", "TAG")
    ft(c, "FT.ALIASADD", "al1", "ia")
    ft(c, "FT.ALIASADD", "al2", "ia")
    ft(c, "FT.ALIASUPDATE", "al2", "ib")
    ft(c, "FT.ALIASADD", "gone", "ib")
    ft(c, "FT.ALIASDEL", "gone")


EXPECTED = {"al1": ["pa:1"], "al2": ["pb:1", "pb:2"], "gone": "No such index gone"}


def test_aliases_survive_debug_reload(r):
    try:
        make_aliases(r)
        assert aliased(r) == EXPECTED
        assert r.execute_command("DEBUG", "RELOAD") in (True, "OK")
        assert aliased(r) == EXPECTED
        # Still aliases (not indexes) after the reload.
        assert ft(r, "FT._LIST") == ["ia", "ib"] or sorted(ft(r, "FT._LIST")) == ["ia", "ib"]
        assert ft(r, "FT.ALIASDEL", "al1") == "OK"
    finally:
        for name in ft(r, "FT._LIST"):
            ft(r, "FT.DROPINDEX", name, "DD")


def test_aliases_survive_save_and_restart(tmp_path):
    args = ["--dir", str(tmp_path), "--save", "60 1000"] + ([] if IS_REDIS else ["--threads", "2"])
    srv = ServerProcess(args, tmp_path=tmp_path).start()
    try:
        c = srv.client()
        make_aliases(c)
        c.save()
    finally:
        srv.stop()
    srv = ServerProcess(args, tmp_path=tmp_path).start()
    try:
        assert aliased(srv.client()) == EXPECTED
    finally:
        srv.stop()


def restarted_with_aof(d, make, read):
    """conftest's helper without --threads (the reference has no such option)."""
    args = ["--dir", str(d), "--appendonly", "yes"] + ([] if IS_REDIS else ["--threads", "2"])
    results = []
    for step in (make, None):
        srv = ServerProcess(args, tmp_path=d).start()
        try:
            c = srv.client()
            if step is not None:
                step(c)
            results.append(read(c))
        finally:
            srv.stop()
    return tuple(results)


def test_aliases_survive_aof_restart_and_rewrite(tmp_path):
    # "none": the alias commands replayed from the AOF; "yes" / "no": after a rewrite
    # with an RDB base / a base written as commands.
    for mode in ("none", "yes", "no"):
        if IS_REDIS and mode == "no":
            continue  # RediSearch 2.10's command base re-creates indexes, not their aliases
        def make(c, mode=mode):
            make_aliases(c)
            if mode != "none":
                c.config_set("aof-use-rdb-preamble", mode)
                c.bgrewriteaof()
                assert wait_until(
                    lambda: c.info("persistence")["aof_rewrite_in_progress"] == 0 and
                    c.info("persistence")["aof_rewrite_scheduled"] == 0)
        d = tmp_path / ("aof-" + mode)
        d.mkdir()
        before, after = restarted_with_aof(d, make, aliased)
        assert before == after == EXPECTED, mode
