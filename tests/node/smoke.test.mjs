// Both npm clients connect, round-trip a value and pipeline against hotkv-server.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import Redis from 'ioredis';
import { createClient } from 'redis';
import { startServer } from './server.mjs';

let server;
before(async () => { server = await startServer(); });
after(async () => { await server.stop(); });

test('ioredis: set, get, pipeline', async () => {
  const r = new Redis(server.port, '127.0.0.1', { lazyConnect: true });
  await r.connect();
  try {
    assert.equal(await r.set('smoke:a', 'x'), 'OK');
    assert.equal(await r.get('smoke:a'), 'x');
    const res = await r.pipeline().incr('smoke:n').incr('smoke:n').exec();
    assert.deepEqual(res, [[null, 1], [null, 2]]);
  } finally {
    r.disconnect();
  }
});

test('node-redis: RESP2 and RESP3 round trips', async () => {
  for (const RESP of [2, 3]) {
    const c = createClient({ url: server.url, RESP });
    await c.connect();
    try {
      await c.hSet(`smoke:h${RESP}`, { f: 'v', g: 'w' });
      assert.deepEqual({ ...(await c.hGetAll(`smoke:h${RESP}`)) }, { f: 'v', g: 'w' });
    } finally {
      await c.close();
    }
  }
});
