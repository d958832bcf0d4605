"""Blocking XREAD / XREADGROUP: wake-ups by XADD (FIFO), `$`, timeouts, MULTI, errors for
a deleted key / destroyed group / changed type, CLIENT UNBLOCK. Checked against Redis 8.8.

A blocked client is a raw RESP connection that has sent its command and not read the
reply yet; each step waits until INFO clients counts it blocked."""
import pytest

from test_blocking import bl, is_err, no_reply_within  # noqa: F401 (bl is a fixture)
from helpers_types import WRONGTYPE


def dec(v):
    """The raw connection's reply with bytes decoded."""
    if isinstance(v, bytes):
        return v.decode()
    if isinstance(v, list):
        return [dec(x) for x in v]
    return v


def test_xread_block_woken_by_xadd(bl, r):
    r.execute_command("XADD", "s", "1-0", "f", "old")
    c = bl.block("XREAD", "BLOCK", "0", "STREAMS", "s", "$", expect=1)
    assert no_reply_within(c, 0.05)
    r.execute_command("XADD", "s", "2-0", "f", "new")
    assert dec(c.read_reply()) == [["s", [["2-0", ["f", "new"]]]]]
    bl.wait(0)


def test_xread_block_on_missing_key(bl, r):
    c = bl.block("XREAD", "BLOCK", "0", "STREAMS", "s", "$", expect=1)
    r.execute_command("XADD", "s", "5-0", "f", "v")
    assert dec(c.read_reply()) == [["s", [["5-0", ["f", "v"]]]]]


def test_xread_block_several_keys(bl, r):
    c = bl.block("XREAD", "BLOCK", "0", "STREAMS", "a", "b", "$", "$", expect=1)
    r.execute_command("XADD", "b", "1-0", "f", "v")
    assert dec(c.read_reply()) == [["b", [["1-0", ["f", "v"]]]]]


@pytest.mark.redis8
def test_xread_block_woken_by_exec_reports_every_ready_stream(bl, r):
    """Redis re-runs a woken XREAD, so an EXEC that added to several streams wakes it
    with all of them, in the command's key order (different hash slots: other shards)."""
    for k in ("{a}1", "{b}2", "{c}3"):
        r.execute_command("XADD", k, "1-0", "x", "0")
    c = bl.block("XREAD", "BLOCK", "0", "STREAMS", "{a}1", "{b}2", "{c}3", "$", "$", "$",
                 expect=1)
    p = r.pipeline(transaction=True)
    p.execute_command("XADD", "{c}3", "5-0", "f", "v")
    p.execute_command("XADD", "{a}1", "5-0", "f", "v")
    p.execute()
    assert dec(c.read_reply()) == [["{a}1", [["5-0", ["f", "v"]]]],
                                   ["{c}3", [["5-0", ["f", "v"]]]]]
    bl.wait(0)


def test_xread_block_timeout(bl, r):
    r.execute_command("XADD", "s", "1-0", "f", "v")
    c = bl.conn()
    c.send_command("XREAD", "BLOCK", "100", "STREAMS", "s", "$")
    assert c.read_reply() is None
    bl.wait(0)


def test_xread_block_served_at_once_when_data(bl, r):
    r.execute_command("XADD", "s", "1-0", "f", "v")
    c = bl.conn()
    c.send_command("XREAD", "BLOCK", "0", "STREAMS", "s", "0")
    assert dec(c.read_reply()) == [["s", [["1-0", ["f", "v"]]]]]


def test_xread_block_fifo(bl, r):
    r.execute_command("XADD", "s", "1-0", "f", "v")
    c1 = bl.block("XREAD", "BLOCK", "0", "STREAMS", "s", "$", expect=1)
    c2 = bl.block("XREAD", "BLOCK", "0", "COUNT", "1", "STREAMS", "s", "$", expect=2)
    r.execute_command("XADD", "s", "2-0", "f", "v2")
    # Both readers get it (streams are not consumed by XREAD).
    assert dec(c1.read_reply()) == [["s", [["2-0", ["f", "v2"]]]]]
    assert dec(c2.read_reply()) == [["s", [["2-0", ["f", "v2"]]]]]


def test_xread_block_not_woken_by_older_id(bl, r):
    r.execute_command("XADD", "s", "1-0", "f", "v")
    c = bl.block("XREAD", "BLOCK", "0", "STREAMS", "s", "5-0", expect=1)
    r.execute_command("XADD", "s", "3-0", "f", "v")
    assert no_reply_within(c, 0.1)
    r.execute_command("XADD", "s", "6-0", "f", "v")
    assert dec(c.read_reply()) == [["s", [["6-0", ["f", "v"]]]]]


def test_xread_block_in_multi_answers_nil(r):
    r.execute_command("XADD", "s", "1-0", "f", "v")
    with r.pipeline(transaction=True) as p:
        p.execute_command("XREAD", "BLOCK", "0", "STREAMS", "s", "$")
        # A nil reply (redis-py's XREAD callback shows it as []).
        assert p.execute() in ([None], [[]])


def test_xreadgroup_block_woken_by_xadd(bl, r):
    r.execute_command("XGROUP", "CREATE", "s", "g", "$", "MKSTREAM")
    c = bl.block("XREADGROUP", "GROUP", "g", "c", "BLOCK", "0", "STREAMS", "s", ">", expect=1)
    r.execute_command("XADD", "s", "1-0", "f", "v")
    assert dec(c.read_reply()) == [["s", [["1-0", ["f", "v"]]]]]
    assert r.xpending("s", "g")["pending"] == 1


def test_xreadgroup_block_one_consumer_per_entry(bl, r):
    r.execute_command("XGROUP", "CREATE", "s", "g", "$", "MKSTREAM")
    c1 = bl.block("XREADGROUP", "GROUP", "g", "c1", "BLOCK", "0", "STREAMS", "s", ">", expect=1)
    c2 = bl.block("XREADGROUP", "GROUP", "g", "c2", "BLOCK", "0", "STREAMS", "s", ">", expect=2)
    r.execute_command("XADD", "s", "1-0", "f", "v")
    assert dec(c1.read_reply()) == [["s", [["1-0", ["f", "v"]]]]]
    assert no_reply_within(c2, 0.1)  # the first waiter took it
    r.execute_command("XADD", "s", "2-0", "f", "v")
    assert dec(c2.read_reply()) == [["s", [["2-0", ["f", "v"]]]]]


def test_xreadgroup_block_key_deleted(bl, r):
    r.execute_command("XGROUP", "CREATE", "s", "g", "$", "MKSTREAM")
    c = bl.block("XREADGROUP", "GROUP", "g", "c", "BLOCK", "0", "STREAMS", "s", ">", expect=1)
    r.execute_command("DEL", "s")
    assert is_err(c.read_reply(),
                  "NOGROUP No such key 's' or consumer group 'g' in XREADGROUP with GROUP option")


def test_xreadgroup_block_group_destroyed(bl, r):
    r.execute_command("XGROUP", "CREATE", "s", "g", "$", "MKSTREAM")
    c = bl.block("XREADGROUP", "GROUP", "g", "c", "BLOCK", "0", "STREAMS", "s", ">", expect=1)
    r.execute_command("XGROUP", "DESTROY", "s", "g")
    assert is_err(c.read_reply(),
                  "NOGROUP No such key 's' or consumer group 'g' in XREADGROUP with GROUP option")


def test_xreadgroup_block_type_changed(bl, r):
    r.execute_command("XGROUP", "CREATE", "s", "g", "$", "MKSTREAM")
    c = bl.block("XREADGROUP", "GROUP", "g", "c", "BLOCK", "0", "STREAMS", "s", ">", expect=1)
    r.execute_command("SET", "s", "x")
    assert is_err(c.read_reply(), WRONGTYPE)


def test_xreadgroup_block_not_woken_by_setid(bl, r):
    r.execute_command("XGROUP", "CREATE", "s", "g", "$", "MKSTREAM")
    c = bl.block("XREADGROUP", "GROUP", "g", "c", "BLOCK", "0", "STREAMS", "s", ">", expect=1)
    r.execute_command("XGROUP", "SETID", "s", "g", "0")
    assert no_reply_within(c, 0.1)


def test_xread_unblock_client(bl, r):
    c = bl.conn()
    c.send_command("CLIENT", "ID")
    cid = c.read_reply()
    c.send_command("XREAD", "BLOCK", "0", "STREAMS", "s", "$")
    bl.wait(1)
    assert r.execute_command("CLIENT", "UNBLOCK", str(cid)) == 1
    assert c.read_reply() is None
    c.send_command("XREAD", "BLOCK", "0", "STREAMS", "s", "$")
    bl.wait(1)
    assert r.execute_command("CLIENT", "UNBLOCK", str(cid), "ERROR") == 1
    assert is_err(c.read_reply(), "UNBLOCKED client unblocked via CLIENT UNBLOCK")
