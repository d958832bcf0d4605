"""The script cache's eviction of EVAL scripts (Redis 7.4+: the 500 most recently used
scripts added by EVAL are kept, SCRIPT LOAD's never evicted; INFO evicted_scripts).
Checked against Redis 8.8 (HOTKV_SERVER=/work/shared/peers/redis-8.8/redis-server)."""
import hashlib

import pytest
import redis


def sha(body):
    return hashlib.sha1(body.encode()).hexdigest()


def evicted(c):
    return c.info("stats")["evicted_scripts"]


@pytest.mark.redis8
def test_eval_scripts_are_evicted_least_recently_used_first(start_server):
    srv = start_server(hotkv_args=["--threads", "2"])
    c = srv.client()
    c.script_load("return 'loaded'")
    c.script_load("return 'x'")
    assert c.eval("return 'x'", 0) == "x"  # known from SCRIPT LOAD: never evicted
    for i in range(500):
        assert c.eval(f"return {i}", 0) == i
    assert evicted(c) == 0
    assert c.script_exists(sha("return 0"), sha("return 1")) == [True, True]
    # EVALSHA (like EVAL) makes a script the most recently used.
    assert c.evalsha(sha("return 0"), 0) == 0
    assert c.eval("return 500", 0) == 500
    assert c.script_exists(sha("return 0"), sha("return 1"), sha("return 2")) == [True, False, True]
    assert evicted(c) == 1
    with pytest.raises(redis.exceptions.NoScriptError):
        c.evalsha(sha("return 1"), 0)
    # The same on another connection (another worker has its own copy of the cache).
    for _ in range(10):
        other = srv.client()
        with pytest.raises(redis.exceptions.NoScriptError):
            other.evalsha(sha("return 1"), 0)
        other.close()
    for i in range(501, 1100):
        c.eval(f"return {i}", 0)
    assert evicted(c) == 600
    assert c.script_exists(sha("return 'loaded'"), sha("return 'x'"), sha("return 0"),
                           sha("return 1099")) == [True, True, False, True]
    # An evicted script runs again through EVAL (added anew).
    assert c.eval("return 1", 0) == 1
    assert c.evalsha(sha("return 1"), 0) == 1
    # SCRIPT FLUSH keeps the count; CONFIG RESETSTAT clears it.
    c.script_flush()
    assert evicted(c) == 601
    c.config_resetstat()
    assert evicted(c) == 0
