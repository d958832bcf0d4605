"""Key expiration: lazy expiry on access, active expiry of keys nobody reads, TTL
bookkeeping across commands. No timing assertions: expired keys must be gone within a
generous deadline, checked by polling."""
import time

from conftest import cmd, wait_until


def test_lazy_expiry_on_access(r):
    r.set("k", "v", px=50)
    r.set("keep", "v")
    time.sleep(0.15)
    assert r.get("k") is None
    assert r.exists("k") == 0
    assert cmd(r, "TTL", "k") == -2
    assert r.get("keep") == "v"


def test_expired_key_is_invisible_to_every_read(r):
    r.set("k", "v", px=30)
    r.set("n", "5", px=30)
    time.sleep(0.1)
    assert r.exists("k", "n") == 0
    assert r.mget("k", "n") == [None, None]
    assert r.strlen("k") == 0
    assert cmd(r, "TYPE", "k") == "none"
    assert r.keys("*") == []
    assert cmd(r, "RANDOMKEY") is None
    assert cmd(r, "GETRANGE", "k", "0", "-1") == ""
    # writes treat it as missing, so the old value and TTL are gone
    assert r.incr("n") == 1
    assert cmd(r, "TTL", "n") == -1
    assert cmd(r, "SET", "k", "new", "NX") == "OK"
    assert r.get("k") == "new"


def test_expired_key_not_returned_by_scan(r):
    r.set("gone", "v", px=30)
    r.set("kept", "v")
    time.sleep(0.1)
    cursor, keys = "0", []
    while True:
        cursor, batch = cmd(r, "SCAN", cursor)
        keys += batch
        if cursor == "0":
            break
    assert keys == ["kept"]


def test_active_expiry_removes_unread_key(r):
    r.set("k", "v", px=50)
    r.set("keep", "v")
    assert r.dbsize() == 2
    # DBSIZE does not look at the key, so only active expiry can bring it down
    assert wait_until(lambda: r.dbsize() == 1, timeout=3.0)
    assert r.get("keep") == "v"


def test_active_expiry_of_many_keys(r):
    pipe = r.pipeline(transaction=False)
    for i in range(1000):
        pipe.set(f"exp:{i}", "v", px=100)
    for i in range(10):
        pipe.set(f"live:{i}", "v", ex=1000)
    pipe.execute()
    assert wait_until(lambda: r.dbsize() == 10, timeout=8.0), r.dbsize()
    assert sorted(r.keys("*")) == sorted(f"live:{i}" for i in range(10))
    info = r.info("keyspace")
    assert info["db0"]["keys"] == 10
    assert info["db0"]["expires"] == 10


def test_active_expiry_in_other_databases(r, server):
    c3 = server.client(db=3)
    c3.set("k", "v", px=50)
    assert wait_until(lambda: c3.dbsize() == 0, timeout=3.0)
    c3.close()


def test_expired_keys_stat(r):
    r.config_resetstat()
    for i in range(5):
        r.set(f"k{i}", "v", px=20)
    time.sleep(0.1)
    for i in range(5):
        r.get(f"k{i}")
    assert r.info("stats")["expired_keys"] == 5


def test_set_without_keepttl_clears_ttl(r):
    r.set("k", "v", px=200)
    r.set("k", "w")
    time.sleep(0.4)
    assert r.get("k") == "w"
    assert cmd(r, "TTL", "k") == -1


def test_persist_prevents_expiry(r):
    r.set("k", "v", px=100)
    assert cmd(r, "PERSIST", "k") == 1
    time.sleep(0.3)
    assert r.get("k") == "v"


def test_expire_zero_or_negative_deletes_immediately(r):
    r.mset({"a": 1, "b": 2, "c": 3})
    assert cmd(r, "EXPIRE", "a", 0) == 1
    assert cmd(r, "PEXPIRE", "b", -5) == 1
    # gone without any wait, also for commands that do not read the key
    assert r.dbsize() == 1
    assert r.keys("*") == ["c"]


def test_ttl_counts_down(r):
    r.set("k", "v", px=1500)
    first = cmd(r, "PTTL", "k")
    assert 0 < first <= 1500
    assert wait_until(lambda: cmd(r, "PTTL", "k") < first, timeout=3.0)


def test_renamed_key_still_expires(r):
    r.set("a", "v", px=100)
    cmd(r, "RENAME", "a", "b")
    assert 0 < cmd(r, "PTTL", "b") <= 100
    assert wait_until(lambda: r.dbsize() == 0, timeout=3.0)


def test_getex_and_set_keepttl_keep_expiring(r):
    r.set("a", "v", px=100)
    r.set("a", "w", keepttl=True)
    r.set("b", "v")
    cmd(r, "GETEX", "b", "PX", "100")
    assert wait_until(lambda: r.dbsize() == 0, timeout=3.0)


def test_incr_does_not_reset_ttl(r):
    r.set("n", "1", px=100)
    r.incr("n")
    assert wait_until(lambda: r.dbsize() == 0, timeout=3.0)
