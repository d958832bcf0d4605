// The JavaScript client helpers (clients/js/hotkv-ai.mjs) against hotkv-server: every
// method of SemanticCache, PromptCache and AgentMemory once, error cases, with node-redis
// v6 and v5 in RESP2 and RESP3 (and a client whose own typeMapping returns Buffers).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createClient, RESP_TYPES } from 'redis';
import { createClient as createClientV5 } from 'redis5';
import { createRequire } from 'node:module';
import { startServer } from './server.mjs';
import { SemanticCache, PromptCache, AgentMemory, fp32, u32 } from '../../clients/js/hotkv-ai.mjs';

let server;
before(async () => { server = await startServer(); });
after(async () => { await server.stop(); });

const DAY_MS = 86400 * 1000;
const at = (deg) => [Math.cos((deg * Math.PI) / 180), Math.sin((deg * Math.PI) / 180)];
const sim = (deg) => (1 + Math.cos((deg * Math.PI) / 180)) / 2;
const near = (a, b, eps = 1e-5) => assert.ok(Math.abs(a - b) < eps, `${a} != ${b}`);

async function withClient(create, RESP, fn) {
  const c = create({ url: server.url, RESP });
  await c.connect();
  try {
    await c.sendCommand(['FLUSHALL']);
    await c.sendCommand(['AI.DEBUG', 'CLOCK-RESET']);
    await fn(c);
  } finally {
    await c.sendCommand(['AI.DEBUG', 'CLOCK-RESET']);
    await (c.close ? c.close() : c.quit());   // v4 has no close()
  }
}

const advance = (c, ms) => c.sendCommand(['AI.DEBUG', 'CLOCK-ADVANCE', String(ms)]);

async function semanticCache(c) {
  const s = new SemanticCache(c, 'qa');
  assert.equal(await s.exists(), false);
  assert.equal(await s.create(2, { threshold: 0.99, ttl: 100, maxEntries: 10, metric: 'COSINE',
    type: 'FLOAT32', m: 16, ef: 100 }), true);
  assert.equal(await s.create(2, { existOk: true }), false);
  await assert.rejects(s.create(2), /already exists/);
  await c.sendCommand(['SET', 'plain', 'x']);
  await assert.rejects(new SemanticCache(c, 'plain').create(2, { existOk: true }), /WRONGTYPE/);
  await assert.rejects(new PromptCache(c, 'qa').create({ existOk: true }), /WRONGTYPE/);

  const id1 = await s.set(at(0), 'Paris.', { prompt: 'What is the capital of France?',
    attrs: { user: 'alice', n: 1 } });
  const id2 = await s.set(new Float32Array(at(90)), 'Berlin.', { attrs: '{"user":"bob"}', ttl: 0 });
  assert.equal(typeof id1, 'number');
  assert.ok(id2 > id1);

  assert.deepEqual(await s.get(at(180), { prompt: 'what is the capital of  FRANCE?' }), {
    response: 'Paris.', id: id1, strategy: 'exact', score: 1,
    prompt: 'What is the capital of France?', attrs: { user: 'alice', n: 1 } });
  const hit = await s.get(Float64Array.from(at(3)));
  assert.equal(hit.strategy, 'semantic');
  near(hit.score, sim(3));
  assert.equal(await s.get(at(20)), null);
  assert.equal((await s.get(at(20), { threshold: 0.9 })).id, id1);
  assert.equal(await s.get(at(85), { filter: { user: 'alice' } }), null);
  assert.equal((await s.get(at(85), { filter: '.user == "bob"' })).response, 'Berlin.');

  const info = await s.info();
  assert.deepEqual([info.entries, info.dim, info.metric, info.threshold, info.ttl, info.maxentries],
    [2, 2, 'COSINE', 0.99, 100, 10]);
  assert.deepEqual([info.hits, info.hits_exact, info.misses], [4, 1, 2]);
  near(info.hit_ratio, 4 / 6);

  await advance(c, 101_000);
  assert.equal(await s.get(at(0)), null);
  assert.equal((await s.info()).expirations, 1);
  assert.equal(await s.delete(id2), true);
  assert.equal(await s.delete(id2), false);
  await s.set(at(0), 'x');
  assert.equal(await s.flush(), 1);

  await assert.rejects(s.set([1, 0, 0], 'z'), /dimension mismatch/);
  await assert.rejects(s.get([NaN, 1]), /invalid vector/);
  await assert.rejects(s.get(at(0), { threshold: 1.5 }), /THRESHOLD/);
  await assert.rejects(new SemanticCache(c, 'missing').get(at(0)), /no such cache/);
  assert.equal((await s.info()).entries, 0);
  assert.equal(await s.drop(), true);
}

async function promptCache(c) {
  const p = new PromptCache(c, 'kv');
  assert.equal(await p.create({ budget: 0, ttl: 0 }), true);
  assert.equal(await p.create({ existOk: true }), false);
  const v = (i) => Buffer.concat([Buffer.alloc(100, i), Buffer.from([0xff, 0x00])]);
  await p.put('s', v(1));
  await p.put('s/q', v(2), { parent: 's' });
  await p.put(Buffer.from('s/q/a'), v(3), { parent: 's/q', ttl: 3600 });
  assert.equal(await p.longest(['s', 's/q', 's/q/a', 's/q/a/x']), 3);
  assert.equal(await p.longest(['s', 'x']), 1);          // equal widths: LONGESTBLOB
  assert.equal(await p.longest([]), 0);
  assert.deepEqual(await p.get('s/q'), v(2));
  assert.equal(await p.get('nope'), null);
  assert.deepEqual(await p.mget(['s', 'nope', 's/q/a']), [v(1), null, v(3)]);
  assert.deepEqual(await p.mget([]), []);
  assert.deepEqual(await p.loadPrefix(['s', 's/q', 'zz']), [v(1), v(2)]);

  const tokens = Array.from({ length: 10 }, (_, i) => 1000 + i);   // 2 blocks of 4
  const keys = await p.putTokens(tokens, 4, [Buffer.from('b0'), 'b1', 'extra']);
  assert.equal(keys.length, 2);
  assert.match(keys[0], /^[0-9a-f]{32}$/);
  // The same chain as the server's: PUTTOKENS with the tokens as a blob finds them all.
  assert.equal(await p.longest([...keys, '0'.repeat(32)]), 2);
  const more = await p.putTokens(Uint32Array.from([5, 6, 7, 8]), 4, ['b2'],
    { parent: keys[1], ttl: 60 });
  assert.deepEqual((await p.loadPrefix([...keys, ...more])).map(String), ['b0', 'b1', 'b2']);
  const again = await p.putTokens(u32(tokens.slice(0, 4)), 4, ['b0']);
  assert.deepEqual(again, [keys[0]]);

  const info = await p.info();
  assert.deepEqual([info.blocks, info.budget, info.ttl], [6, 0, 0]);
  assert.ok(info.bytes > 300 && info.hits > 0 && info.misses > 0);
  assert.equal(await p.delete('s/q'), 2);
  assert.equal(await p.delete(), 0);
  const before = (await p.info()).bytes;
  await p.setBudget(before - 1);
  const after = await p.info();
  assert.ok(after.bytes < before && after.evictions >= 1 && after.budget === before - 1);
  await p.configure({ ttl: 10 });
  assert.equal((await p.info()).ttl, 10);

  await assert.rejects(p.put('orphan', 'x', { parent: 'absent' }), /parent block not found/);
  await assert.rejects(new PromptCache(c, 'missing').put('a', 'x'), /no such namespace/);
  await assert.rejects(p.putTokens([1, 2], 0, ['x']), /BLOCK/);
  assert.equal(await new PromptCache(c, 'missing').longest(['a']), 0);
  assert.equal(await p.drop(), true);
}

async function agentMemory(c) {
  const m = new AgentMemory(c, 'agent');
  assert.equal(await m.create({ dim: 2, weights: [0.8, 0.2], freshness: [0.6, 604800],
    novelty: [0.4, 2592000], touchInterval: 0, sessionTtl: 0, metric: 'COSINE', m: 16, ef: 100 }), true);
  assert.equal(await m.create({ existOk: true }), false);

  const a = await m.add(at(0), 'Alice prefers window seats', { user: 'alice',
    topics: ['travel', 'prefs'], attrs: { importance: 5 } });
  assert.equal(typeof a, 'string');
  assert.equal(await m.add(at(0), 'Alice prefers window seats', { user: 'alice' }), a);
  assert.equal(await m.add(at(1), 'Alice likes window seats', { user: 'alice', dedup: 0.99 }), a);
  await advance(c, 60 * DAY_MS);
  const b = await m.add(at(12), 'Alice is allergic to peanuts', { user: 'alice',
    type: 'semantic', entities: ['peanuts'], session: 's1' });
  assert.equal(await m.add(at(2), 'Bob likes aisle seats', { user: 'bob', type: 'episodic',
    id: 'bob-1' }), 'bob-1');

  const got = await m.get(a);
  assert.deepEqual([got.text, got.user, got.type, got.topics, got.attrs, got.session],
    ['Alice likes window seats', 'alice', 'semantic', ['travel', 'prefs'], { importance: 5 }, null]);
  assert.ok(got.created_at > 0 && !('similarity' in got));
  assert.equal(await m.get('nope'), null);

  const found = await m.search(at(4), { user: 'alice' });
  assert.deepEqual(found.map((x) => x.id), [b, a]);                  // recency wins
  near(found[1].similarity, sim(3));
  assert.ok(found[0].score > found[1].score);
  const ids = async (o) => (await m.search(at(4), o)).map((x) => x.id);
  assert.deepEqual(await ids({ user: 'alice', recency: [0, 1, 1] }), [a, b]);
  assert.deepEqual(await ids({ k: 1, recency: [0, 1, 1] }), ['bob-1']);
  assert.deepEqual(await ids({ topics: 'prefs' }), [a]);
  assert.deepEqual(await ids({ entities: ['peanuts'], session: 's1' }), [b]);
  assert.deepEqual(await ids({ filter: '.importance >= 5' }), [a]);
  assert.deepEqual(await ids({ type: 'episodic', ef: 50 }), ['bob-1']);
  assert.deepEqual(await m.search(at(90), { threshold: 0.9 }), []);
  assert.ok((await m.get(a)).access_count >= 1);

  assert.equal(await m.update(a, { text: 'Alice prefers aisle seats', vector: at(5),
    topics: ['travel'], attrs: { importance: 1 } }), true);
  assert.equal(await m.update('nope', { text: 'x' }), false);
  assert.equal((await m.get(a)).text, 'Alice prefers aisle seats');

  assert.equal(await m.count(), 3);
  assert.equal(await m.count({ user: 'alice' }), 2);
  assert.equal(await m.count({ filter: { user: 'bob' } }), 1);
  const listed = [];
  for await (const x of m.list({ count: 1 })) listed.push(x.id);
  assert.deepEqual(listed, [a, b, 'bob-1']);

  assert.deepEqual(await m.sessionAppend('chat', 'user', 'Book me a flight', { ttl: 3600 }),
    { count: 1, memoryId: null });
  const res = await m.sessionPromote('chat', 'assistant', 'Window seat?', at(40), { user: 'alice' });
  assert.equal(res.count, 2);
  assert.equal((await m.get(res.memoryId)).type, 'message');
  const res2 = await m.sessionAppend('chat', 'user', 'yes', { promote: at(41) });
  assert.ok(res2.count === 3 && res2.memoryId);
  const msgs = await m.sessionGet('chat');
  assert.deepEqual(msgs.map((x) => [x.role, x.content]),
    [['user', 'Book me a flight'], ['assistant', 'Window seat?'], ['user', 'yes']]);
  assert.ok(msgs[0].at > 0);
  assert.deepEqual((await m.sessionGet('chat', { last: 1 })).map((x) => x.content), ['yes']);
  assert.equal(await m.sessionClear('chat'), true);
  assert.equal(await m.sessionClear('chat'), false);
  assert.deepEqual(await m.sessionGet('chat'), []);

  const info = await m.info();
  assert.deepEqual([info.memories, info.dim, info.metric, info.touch_interval], [5, 2, 'COSINE', 0]);
  near(info.similarity_weight, 0.8);
  await m.configure({ weights: [0.7, 0.3], touchInterval: 5, ef: 64 });
  const info2 = await m.info();
  assert.deepEqual([info2.touch_interval, info2.ef, info2.dim], [5, 64, 2]);
  near(info2.recency_weight, 0.3);
  await assert.rejects(m.configure({ ef: 0 }), /EF must be/);
  assert.equal(await m.delete(res.memoryId, res2.memoryId, 'nope'), 2);
  assert.equal(await m.delete(), 0);
  await advance(c, 31 * DAY_MS);
  assert.equal(await m.forget({ older: 90 * 86400, user: 'alice' }), 1);
  assert.equal(await m.forget({ filter: '.user == "bob"' }), 1);
  const left = [];
  for await (const x of m.list()) left.push(x.id);
  assert.deepEqual(left, [b]);

  await assert.rejects(m.add(at(0), 'x', { type: 'bogus' }), /TYPE must be/);
  await assert.rejects(m.search([1, 0, 0]), /dimension mismatch/);
  await assert.rejects(m.forget({}), /needs OLDER/);
  await assert.rejects(new AgentMemory(c, 'missing').get('1'), /no such memory namespace/);
  assert.equal(await m.count(), 1);
  assert.equal(await m.drop(), true);
}

for (const [version, create] of [['6', createClient], ['5', createClientV5]]) {
  for (const RESP of [2, 3]) {
    test(`node-redis v${version} RESP${RESP}: SemanticCache, PromptCache, AgentMemory`, async () => {
      await withClient(create, RESP, async (c) => {
        await semanticCache(c);
        await promptCache(c);
        await agentMemory(c);
      });
    });
  }
}

// node-redis v4 (RESP2 only), as redis-om pins it; skipped if npm hoisted it elsewhere.
let createClientV4 = null;
try {
  ({ createClient: createClientV4 } = createRequire(import.meta.url)('./node_modules/redis-om/node_modules/redis'));
} catch { /* not installed there */ }
test('node-redis v4 RESP2: SemanticCache, PromptCache, AgentMemory', { skip: !createClientV4 }, async () => {
  await withClient((o) => createClientV4({ url: o.url }), 2, async (c) => {
    await semanticCache(c);
    await promptCache(c);
    await agentMemory(c);
  });
});

test('a client with its own typeMapping (Buffers, Maps) gets the same results', async () => {
  await withClient(createClient, 3, async (c0) => {
    const c = c0.withTypeMapping({ [RESP_TYPES.BLOB_STRING]: Buffer, [RESP_TYPES.MAP]: Map });
    const s = new SemanticCache(c, 'qa');
    await s.create(2);
    await s.set(at(0), 'Paris.', { attrs: { u: 1 } });
    const hit = await s.get(at(1));
    assert.deepEqual([hit.response, hit.attrs, hit.strategy], ['Paris.', { u: 1 }, 'semantic']);
    assert.equal((await s.info()).entries, 1);
    const m = new AgentMemory(c, 'agent');
    const id = await m.add(at(0), 'fact', { user: 'u' });
    assert.deepEqual((await m.search(at(0))).map((x) => [x.id, x.text]), [[id, 'fact']]);
  });
});

test('fp32 and u32 pack little-endian', () => {
  const f = Buffer.alloc(8);
  f.writeFloatLE(1, 0);
  f.writeFloatLE(-2.5, 4);
  assert.deepEqual(fp32([1, -2.5]), f);
  assert.deepEqual(fp32(new Float32Array([1, -2.5])), f);
  assert.deepEqual(u32([1, 0x01020304]), Buffer.from([1, 0, 0, 0, 4, 3, 2, 1]));
});
