// node-redis's client-side cache (RESP3 + CLIENT TRACKING) against hotkv-server: a cached
// GET is answered locally (the server's GET count does not move) and is refreshed after
// another client's SET invalidates it. Two workers, so the two clients usually sit on
// different threads.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createClient, BasicClientSideCache } from 'redis';
import { SERVER, startServer } from './server.mjs';

let server;
// (redis-server, for comparison, has no --threads.)
const args = SERVER.includes('redis-server') ? [] : ['--threads', '2'];
before(async () => { server = await startServer(args); });
after(async () => { await server.stop(); });

async function getCalls(admin) {
  const info = await admin.info('commandstats');
  const m = /cmdstat_get:calls=(\d+)/.exec(info);
  return m ? Number(m[1]) : 0;
}

test('node-redis clientSideCache: local hits, refreshed after an invalidation', async () => {
  const cache = new BasicClientSideCache({ ttl: 0, maxEntries: 0, evictPolicy: 'LRU' });
  const cached = createClient({ url: server.url, RESP: 3, clientSideCache: cache });
  const other = createClient({ url: server.url });
  await cached.connect();
  await other.connect();
  try {
    // The client turned tracking on when it connected.
    const info = await cached.sendCommand(['CLIENT', 'TRACKINGINFO']);
    assert.deepEqual([...info.flags], ['on']);
    assert.equal(info.redirect, 0);

    await other.set('csc:a', '1');
    assert.equal(await cached.get('csc:a'), '1');     // miss: fetched and cached
    const before = await getCalls(other);
    for (let i = 0; i < 5; i++) {
      assert.equal(await cached.get('csc:a'), '1');   // hits: never reach the server
    }
    assert.equal(await getCalls(other), before);
    assert.equal(cache.stats().hitCount, 5);
    assert.equal(cache.stats().missCount, 1);

    await other.set('csc:a', '2');
    // The invalidation push drops the entry; the next GET goes to the server again.
    let value = '1';
    for (let i = 0; i < 200 && value === '1'; i++) {
      await new Promise((r) => setTimeout(r, 10));
      value = await cached.get('csc:a');
    }
    assert.equal(value, '2');
    assert.equal(cache.stats().missCount, 2);
    assert.equal(await getCalls(other), before + 1);

    // FLUSHALL invalidates everything.
    await cached.get('csc:b');
    assert.ok(cache.size() >= 1);
    await other.flushAll();
    for (let i = 0; i < 200 && cache.size() > 0; i++) {
      await new Promise((r) => setTimeout(r, 10));
    }
    assert.equal(cache.size(), 0);
  } finally {
    await cached.close();
    await other.close();
  }
});
