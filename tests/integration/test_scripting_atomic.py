"""Scripts across cores: atomicity with many clients on both workers (declared and
undeclared keys), AOF replay of a script's effects, BUSY replies and SCRIPT KILL,
redis-py's register_script and Lock. No timing in pass/fail: loops are bounded polls."""
import threading
import time

import pytest
import redis
from redis.lock import Lock

from conftest import ServerProcess, cmd, error_reply, restarted_with_aof

# Sets two keys in different shards to the same fresh value, reading in between.
PAIR = """
local v = redis.call('incr', KEYS[3])
redis.call('set', KEYS[1], v)
for i = 1, 20 do redis.call('get', KEYS[1]) end
redis.call('set', KEYS[2], v)
return v
"""
# The same with its keys undeclared (try-locked during the run, or a rerun with every
# shard locked).
PAIR_UNDECLARED = """
local v = redis.call('incr', 'pc')
redis.call('set', 'pa', v)
for i = 1, 20 do redis.call('get', 'pa') end
redis.call('set', 'pb', v)
return v
"""


def run_clients(server, n, fn):
    errors = []

    def worker(i):
        try:
            c = server.client()
            fn(c, i)
            c.close()
        except Exception as e:  # noqa: BLE001 - reported below
            errors.append(repr(e))

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(120)
    assert not errors, errors[:3]


@pytest.mark.parametrize("undeclared", [False, True])
def test_intermediate_state_never_seen(server, r, undeclared):
    # 6 writers and 4 readers spread over both workers; a reader's MGET locks both
    # shards at once, so it must never see the pair half-written.
    keys = ("pa", "pb", "pc")
    r.mset({"pa": 0, "pb": 0, "pc": 0})
    body = PAIR_UNDECLARED if undeclared else PAIR
    h = r.script_load(body)
    seen_unequal = []
    workers = set()

    def client(c, i):
        workers.add(c.client_info()["io-thread"])
        if i < 6:
            for _ in range(150):
                if undeclared:
                    c.evalsha(h, 0)
                else:
                    c.evalsha(h, 3, *keys)
        else:
            for _ in range(300):
                a, b = c.mget("pa", "pb")
                if a != b:
                    seen_unequal.append((a, b))

    run_clients(server, 10, client)
    assert seen_unequal == []
    assert r.mget("pa", "pb", "pc") == ["900", "900", "900"]
    assert len(workers) >= 1


def test_parallel_scripts_on_disjoint_keys(server, r):
    incr2 = "redis.call('incr', KEYS[1]) redis.call('incr', KEYS[2]) return 1"
    h = r.script_load(incr2)

    def client(c, i):
        for _ in range(200):
            c.evalsha(h, 2, f"x{{{i}}}", f"y{{{i}}}")
            c.evalsha(h, 2, "shared1", "shared2")

    run_clients(server, 8, client)
    for i in range(8):
        assert r.mget(f"x{{{i}}}", f"y{{{i}}}") == ["200", "200"]
    assert r.mget("shared1", "shared2") == ["1600", "1600"]


def test_cross_slot_flag_and_keyspace_commands(r):
    s = "#!lua flags=allow-cross-slot-keys\nredis.call('set','u1','1') redis.call('set','u2','2') " \
        "return redis.call('dbsize')"
    assert r.eval(s, 0) == 2
    assert r.mget("u1", "u2") == ["1", "2"]


@pytest.mark.hotkv_only
def test_aof_replays_script_effects(tmp_path):
    def make(c):
        c.eval("redis.call('set', KEYS[1], 'v') redis.call('expire', KEYS[1], 1000) "
               "redis.call('rpush', KEYS[2], 'a', 'b') redis.call('incrbyfloat', KEYS[3], '1.5') "
               "redis.call('spop', 'noset')", 3, "ak", "al", "af")
        c.eval("return redis.call('incr', 'solo')", 0)
        c.eval("return redis.call('get', 'ak')", 0)  # read-only: nothing recorded
        c.eval("redis.call('select', 3) redis.call('set', 'indb3', 'x')", 0)

    def read(c):
        ttl = c.ttl("ak")
        c.execute_command("SELECT", 3)
        in3 = c.get("indb3")
        c.execute_command("SELECT", 0)
        return (c.get("ak"), 900 < ttl <= 1000, c.lrange("al", 0, -1), c.get("af"), c.get("solo"), in3)

    before, after = restarted_with_aof(tmp_path, make, read)
    assert before == ("v", True, ["a", "b"], "1.5", "1", "x")
    assert after == before


def test_register_script_and_lock(r):
    s = r.register_script("return redis.call('incrby', KEYS[1], ARGV[1])")
    r.script_flush()
    assert s(keys=["rk"], args=[5]) == 5  # NOSCRIPT -> EVAL fallback
    assert s(keys=["rk"], args=[2]) == 7
    lock = Lock(r, "resource", timeout=10)
    assert lock.acquire(blocking=False)
    other = Lock(r, "resource", timeout=10)
    assert not other.acquire(blocking=False)
    assert lock.extend(5)
    assert lock.reacquire()
    lock.release()
    assert other.acquire(blocking=False)
    other.release()
    with pytest.raises(redis.exceptions.LockError):
        other.release()


# --- BUSY and SCRIPT KILL ---

def client_on_other_worker(srv, worker):
    for _ in range(200):
        c = srv.client(socket_timeout=30)
        if c.client_info()["io-thread"] != worker:
            return c
        c.close()
    pytest.skip("no connection landed on another worker")


def poll(fn, tries=3000):
    for _ in range(tries):
        v = fn()
        if v:
            return v
        time.sleep(0.01)
    return fn()


@pytest.mark.hotkv_only
def test_busy_and_script_kill(start_server):
    srv = start_server(hotkv_args=["--threads", "2"])
    r = srv.client()
    r.config_set("busy-reply-threshold", "50")
    runner = srv.client(socket_timeout=60)
    worker = runner.client_info()["io-thread"]
    other = client_on_other_worker(srv, worker)
    result = {}

    def run():
        try:
            result["reply"] = runner.eval("local i = 0 while true do i = i + 1 end", 1, "bk")
        except redis.ResponseError as e:
            result["error"] = str(e)

    t = threading.Thread(target=run)
    t.start()

    def busy():
        try:
            other.get("bk")
        except redis.ResponseError as e:
            return str(e) == ("BUSY Redis is busy running a script. You can only call SCRIPT "
                              "KILL or SHUTDOWN NOSAVE.")
        return False

    assert poll(busy)
    # Keys in other shards are served meanwhile (other clients of the other worker).
    other.set("free-key-{x}", "1")
    assert other.get("free-key-{x}") == "1"
    assert other.execute_command("SCRIPT", "KILL") == "OK"
    t.join(60)
    assert not t.is_alive()
    assert result.get("error", "").startswith("Script killed by user with SCRIPT KILL...")
    assert other.get("bk") is None  # served again
    assert error_reply(other, "SCRIPT", "KILL") == "NOTBUSY No scripts in execution right now."


@pytest.mark.hotkv_only
def test_unkillable_after_write(start_server):
    srv = start_server(hotkv_args=["--threads", "2"])
    r = srv.client()
    r.config_set("busy-reply-threshold", "50")
    runner = srv.client(socket_timeout=60)
    worker = runner.client_info()["io-thread"]
    other = client_on_other_worker(srv, worker)
    result = {}
    body = ("redis.call('set', KEYS[1], 'w') local t = os.clock() "
            "while os.clock() - t < 1 do end return 'done'")

    def run():
        result["reply"] = runner.eval(body, 1, "uk")

    t = threading.Thread(target=run)
    t.start()

    def unkillable():
        try:
            other.execute_command("SCRIPT", "KILL")
        except redis.ResponseError as e:
            return str(e).startswith("UNKILLABLE") and str(e)
        return False

    msg = poll(unkillable)
    assert msg == ("UNKILLABLE Sorry the script already executed write commands against the dataset. "
                   "You can either wait the script termination or kill the server in a hard way "
                   "using the SHUTDOWN NOSAVE command.")
    t.join(60)
    assert result["reply"] == "done"
    assert other.get("uk") == "w"


@pytest.mark.hotkv_only
def test_function_kill_and_the_kill_of_the_other_kind(start_server):
    srv = start_server(hotkv_args=["--threads", "2"])
    r = srv.client()
    r.config_set("busy-reply-threshold", "50")
    r.function_load("#!lua name=spin\n"
                    "redis.register_function('spin', function(keys, args) "
                    "local i = 0 while true do i = i + 1 end end)")
    runner = srv.client(socket_timeout=60)
    worker = runner.client_info()["io-thread"]
    other = client_on_other_worker(srv, worker)
    result = {}

    def run():
        try:
            result["reply"] = runner.fcall("spin", 1, "fk")
        except redis.ResponseError as e:
            result["error"] = str(e)

    t = threading.Thread(target=run)
    t.start()

    def busy_function():
        try:
            other.execute_command("SCRIPT", "KILL")
        except redis.ResponseError as e:
            return str(e).startswith("BUSY") and str(e)
        return False

    # SCRIPT KILL does not stop a function: Redis names the KILL to use.
    assert poll(busy_function) == ("BUSY Redis is busy running a script. You can only call "
                                   "FUNCTION KILL or SHUTDOWN NOSAVE.")
    # FUNCTION STATS describes the busy function, as Redis does.
    stats = other.execute_command("FUNCTION", "STATS")
    running = stats[1]
    assert stats[0] == "running_script" and running[0::2] == ["name", "command", "duration_ms"]
    assert running[1] == "spin" and [a.lower() for a in running[3]] == ["fcall", "spin", "1", "fk"]
    assert running[5] >= 50
    # A command on the busy function's key gets the BUSY that names FUNCTION KILL.
    with pytest.raises(redis.ResponseError) as e:
        other.get("fk")
    assert str(e.value).endswith("Redis is busy running a script. You can only call FUNCTION KILL or "
                                 "SHUTDOWN NOSAVE.")
    assert other.execute_command("FUNCTION", "KILL") == "OK"
    t.join(60)
    assert not t.is_alive()
    assert result.get("error", "").startswith("Script killed by user with SCRIPT KILL...")
    assert error_reply(other, "FUNCTION", "KILL") == "NOTBUSY No scripts in execution right now."

    # And FUNCTION KILL does not stop an EVAL script.
    result.clear()

    def run_eval():
        try:
            result["reply"] = runner.eval("local i = 0 while true do i = i + 1 end", 1, "fk")
        except redis.ResponseError as e:
            result["error"] = str(e)

    t = threading.Thread(target=run_eval)
    t.start()

    def busy_eval():
        try:
            other.execute_command("FUNCTION", "KILL")
        except redis.ResponseError as e:
            return str(e).startswith("BUSY") and str(e)
        return False

    assert poll(busy_eval) == ("BUSY Redis is busy running a script. You can only call "
                               "SCRIPT KILL or SHUTDOWN NOSAVE.")
    # FUNCTION STATS answers BUSY while an EVAL script is busy (Redis's slowevalerr).
    # (on `other`'s own connection: a fresh one could land on the busy worker)
    with pytest.raises(redis.ResponseError) as e:
        other.execute_command("FUNCTION", "STATS")
    assert str(e.value).endswith("Redis is busy running a script. You can only call SCRIPT KILL or SHUTDOWN NOSAVE.")
    assert other.execute_command("SCRIPT", "KILL") == "OK"
    t.join(60)
    assert result.get("error", "").startswith("Script killed by user with SCRIPT KILL...")
