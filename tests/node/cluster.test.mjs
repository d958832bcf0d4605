// ioredis `Cluster` against a 3-node HotKV cluster built with `redis-cli --cluster create`
// (docs/cluster.md): set/get across slots, pipelines over several slots of one node,
// MOVED followed after `redis-cli --cluster reshard`, sharded pub/sub (SSUBSCRIBE/SPUBLISH).
// HOTKV_TEST_PEER=/usr/bin/redis-server runs it against Redis 7.0 instead (the reference).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, execFileSync } from 'node:child_process';
import net from 'node:net';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Redis from 'ioredis';
import { SERVER, PEER } from './server.mjs';

const REDIS_CLI = '/usr/bin/redis-cli';

// CRC16/XMODEM of the hash tag or key, mod 16384: Redis's key slot.
function keySlot(key) {
  const s = key.indexOf('{');
  if (s >= 0) {
    const e = key.indexOf('}', s + 1);
    if (e > s + 1) key = key.slice(s + 1, e);
  }
  let crc = 0;
  for (const b of Buffer.from(key)) {
    crc ^= b << 8;
    for (let i = 0; i < 8; i++) crc = crc & 0x8000 ? ((crc << 1) ^ 0x1021) & 0xffff : (crc << 1) & 0xffff;
  }
  return crc % 16384;
}

function bindable(port) {
  return new Promise((resolve) => {
    const srv = net.createServer();
    srv.once('error', () => resolve(false));
    srv.listen(port, '127.0.0.1', () => srv.close(() => resolve(true)));
  });
}

// A client port p with p + 10000 (the bus port) free as well.
async function portPair(used) {
  for (let i = 0; i < 500; i++) {
    const p = 20000 + Math.floor(Math.random() * 25000);
    if (!used.has(p) && (await bindable(p)) && (await bindable(p + 10000))) {
      used.add(p);
      return p;
    }
  }
  throw new Error('no free port pair');
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

async function until(pred, timeoutMs = 30000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      const v = await pred();
      if (v) return v;
    } catch { /* retried */ }
    if (Date.now() > deadline) return null;
    await sleep(100);
  }
}

function cli(...args) {
  return execFileSync(REDIS_CLI, args, { encoding: 'utf8', timeout: 120000, stdio: ['ignore', 'pipe', 'pipe'] });
}

const nodes = [];
let dir;

before(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hotkv-node-cluster-'));
  const used = new Set();
  for (let i = 0; i < 3; i++) {
    const port = await portPair(used);
    const ndir = path.join(dir, String(port));
    fs.mkdirSync(ndir);
    const extra = PEER ? ['--save', '', '--appendonly', 'no'] : [];
    const proc = spawn(SERVER, ['--port', String(port), '--bind', '127.0.0.1', '--dir', ndir,
      '--cluster-enabled', 'yes', '--cluster-config-file', 'nodes.conf',
      '--cluster-node-timeout', '2000', ...extra], { stdio: ['ignore', 'ignore', 'inherit'] });
    const node = { port, proc, exited: false };
    proc.once('exit', () => { node.exited = true; });
    nodes.push(node);
    const ok = await until(async () => {
      if (node.exited) throw new Error('exited');
      const r = new Redis(port, '127.0.0.1', { lazyConnect: true, retryStrategy: null });
      r.on('error', () => {});
      try { await r.connect(); return (await r.ping()) === 'PONG'; } finally { r.disconnect(); }
    }, 10000);
    assert.ok(ok, `${SERVER} on ${port} did not start`);
  }
  const out = cli('--cluster', 'create', ...nodes.map((n) => `127.0.0.1:${n.port}`),
    '--cluster-replicas', '0', '--cluster-yes');
  assert.match(out, /\[OK\] All 16384 slots covered/);
  for (const n of nodes) {
    const r = new Redis(n.port, '127.0.0.1');
    try {
      assert.ok(await until(async () => (await r.cluster('INFO')).includes('cluster_state:ok')));
      // Every node knows the three primaries.
      assert.ok(await until(async () => (await r.cluster('NODES')).trim().split('\n')
        .filter((l) => !/handshake|fail/.test(l)).length === 3));
    } finally {
      r.disconnect();
    }
  }
});

after(async () => {
  for (const n of nodes) {
    if (!n.exited) {
      const done = new Promise((r) => n.proc.once('exit', r));
      n.proc.kill('SIGTERM');
      await done;
    }
  }
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

function cluster(opts = {}) {
  return new Redis.Cluster([{ host: '127.0.0.1', port: nodes[0].port }], opts);
}

// {slot: "host:port"} of the owner, from CLUSTER SLOTS.
async function slotOwners(c) {
  const owners = new Array(16384);
  for (const [lo, hi, [host, port]] of await c.cluster('SLOTS')) {
    for (let s = lo; s <= hi; s++) owners[s] = `${host}:${port}`;
  }
  return owners;
}

test('ioredis Cluster: set/get across slots and nodes', async () => {
  const c = cluster();
  try {
    const slots = new Set();
    for (let i = 0; i < 300; i++) {
      assert.equal(await c.set(`k:${i}`, `v${i}`), 'OK');
      slots.add(keySlot(`k:${i}`));
    }
    assert.ok(slots.size > 250);
    for (let i = 0; i < 300; i++) assert.equal(await c.get(`k:${i}`), `v${i}`);
    // Keys on every node.
    const sizes = await Promise.all(c.nodes('master').map((n) => n.dbsize()));
    assert.equal(sizes.length, 3);
    assert.ok(sizes.every((s) => s > 0), String(sizes));
    // Multi-key commands in one slot; across slots the server answers CROSSSLOT.
    await c.mset('{u1}:a', '1', '{u1}:b', '2');
    assert.deepEqual(await c.mget('{u1}:a', '{u1}:b'), ['1', '2']);
    const node = c.nodes('master').find((n) => n.options.port === nodes[0].port);
    await assert.rejects(node.mget('k:1', 'k:2'), /CROSSSLOT|MOVED/);
  } finally {
    c.disconnect();
  }
});

test('ioredis Cluster: pipelines over several slots of one node', async () => {
  const c = cluster();
  try {
    const owners = await slotOwners(c);
    // ioredis sends one pipeline to one node: keys of different slots that node owns.
    for (const n of nodes) {
      const addr = `127.0.0.1:${n.port}`;
      const keys = [];
      for (let i = 0; keys.length < 40 && i < 100000; i++) {
        if (owners[keySlot(`p:${i}`)] === addr) keys.push(`{p:${i}}`);
      }
      assert.equal(keys.length, 40);
      assert.ok(new Set(keys.map(keySlot)).size > 30);
      const p = c.pipeline();
      keys.forEach((k, i) => p.set(k, `pv${i}`).incr(`${k}:n`).rpush(`${k}:l`, 'a', 'b'));
      const res = await p.exec();
      assert.equal(res.length, 120);
      assert.ok(res.every(([err]) => err === null), JSON.stringify(res.filter(([e]) => e)));
      const g = c.pipeline();
      keys.forEach((k) => g.get(k).get(`${k}:n`).llen(`${k}:l`));
      const got = await g.exec();
      keys.forEach((k, i) => {
        assert.deepEqual(got.slice(i * 3, i * 3 + 3), [[null, `pv${i}`], [null, '1'], [null, 2]]);
      });
    }
  } finally {
    c.disconnect();
  }
});

test('ioredis Cluster: follows MOVED after redis-cli --cluster reshard', async () => {
  const c = cluster();
  try {
    const src = nodes[0];
    const dst = nodes[1];
    const r = new Redis(src.port, '127.0.0.1');
    const srcId = (await r.cluster('MYID'));
    const rd = new Redis(dst.port, '127.0.0.1');
    const dstId = await rd.cluster('MYID');
    rd.disconnect();
    // reshard moves the source's lowest slots first: keys in its first slot.
    const nodesLine = (await r.cluster('NODES')).split('\n').find((l) => l.includes('myself'));
    const first = Number(nodesLine.split(' ')[8].split('-')[0]);
    r.disconnect();
    const keys = [];
    for (let i = 0; keys.length < 5 && i < 2000000; i++) {
      if (keySlot(`m:${i}`) === first) keys.push(`m:${i}`);
    }
    assert.equal(keys.length, 5);
    for (const k of keys) await c.set(k, `before-${k}`);
    const out = cli('--cluster', 'reshard', `127.0.0.1:${src.port}`, '--cluster-from', srcId,
      '--cluster-to', dstId, '--cluster-slots', '1', '--cluster-yes');
    assert.match(out, new RegExp(`Moving slot ${first} from`));
    const d = new Redis(dst.port, '127.0.0.1');
    try {
      assert.equal(await d.cluster('COUNTKEYSINSLOT', first), 5);
      // The client's slot table is stale: the GET hits the old owner, gets MOVED, follows.
      let moved = 0;
      for (const k of keys) assert.equal(await c.get(k), `before-${k}`);
      for (const k of keys) assert.equal(await c.set(k, `after-${k}`), 'OK');
      assert.deepEqual(await d.mget(...keys), keys.map((k) => `after-${k}`));
      // The old owner answers MOVED itself.
      const s = new Redis(src.port, '127.0.0.1');
      try {
        await assert.rejects(s.get(keys[0]), new RegExp(`MOVED ${first} 127.0.0.1:${dst.port}`));
        moved++;
      } finally {
        s.disconnect();
      }
      assert.equal(moved, 1);
    } finally {
      d.disconnect();
    }
  } finally {
    c.disconnect();
  }
});

test('ioredis Cluster: sharded pub/sub (SSUBSCRIBE / SPUBLISH)', async () => {
  const sub = cluster({ shardedSubscribers: true });
  const pub = cluster();
  try {
    const got = [];
    sub.on('smessage', (channel, message) => got.push([channel, message]));
    // Channels of several slots (each SSUBSCRIBE names channels of one slot).
    const channels = ['ch{a}:1', 'ch{a}:2', 'ch{b}:1', 'ch{zz}:1'];
    assert.equal(await sub.ssubscribe('ch{a}:1', 'ch{a}:2'), 2);
    await sub.ssubscribe('ch{b}:1');
    await sub.ssubscribe('ch{zz}:1');
    for (const ch of channels) {
      assert.equal(await pub.spublish(ch, `msg-${ch}`), 1, ch);
    }
    assert.ok(await until(() => got.length === channels.length, 10000), JSON.stringify(got));
    assert.deepEqual(got.sort(), channels.map((ch) => [ch, `msg-${ch}`]).sort());
    // Nobody listens on this one: 0 receivers, on its slot's node.
    assert.equal(await pub.spublish('ch{nobody}', 'x'), 0);
    // SPUBLISH sent to the wrong node is redirected.
    const owners = await slotOwners(pub);
    const wrong = nodes.find((n) => owners[keySlot('ch{a}:1')] !== `127.0.0.1:${n.port}`);
    const w = new Redis(wrong.port, '127.0.0.1');
    try {
      await assert.rejects(w.spublish('ch{a}:1', 'x'), /MOVED/);
    } finally {
      w.disconnect();
    }
  } finally {
    sub.disconnect();
    pub.disconnect();
  }
});
