// LangGraph.js's Redis persistence (issue 18): @langchain/langgraph-checkpoint-redis's
// RedisSaver (checkpointer) and RedisStore (long-term memory store), unchanged, through the
// node-redis 4 client they depend on. Both keep JSON documents (JSON.SET) indexed by
// FT.CREATE … ON JSON (TAG/NUMERIC/TEXT, and a FLAT vector field for the store's semantic
// search) and read them back with FT.SEARCH.
//
// Both libraries swallow FT.* failures (console.error on FT.CREATE, an empty result or a
// KEYS fallback on "no such index"), so each test also checks the indexes directly.
// The reference (Redis 8.8 + RediSearch 2.10) has no JSON module: there these tests skip.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { emptyCheckpoint, uuid6 } from '@langchain/langgraph-checkpoint';
import { RedisSaver } from '@langchain/langgraph-checkpoint-redis';
import { RedisStore } from '@langchain/langgraph-checkpoint-redis/store';
import { FakeEmbeddings, DIM } from './fake_embeddings.mjs';
import { startServer, PEER, dropAllIndexes } from './server.mjs';

const { createClient } = createRequire(import.meta.resolve('@langchain/langgraph-checkpoint-redis'))('redis');

let server;
let client;
let noJson = false;
before(async () => {
  server = await startServer();
  client = createClient({ url: server.url });
  await client.connect();
  try {
    await client.sendCommand(['JSON.SET', 'probe:json', '$', '{}']);
    await client.del('probe:json');
  } catch (e) {
    // Only the reference may lack JSON; HotKV has it, so there the tests run and fail.
    if (PEER && /unknown command/i.test(e.message)) noJson = true;
  }
});
after(async () => {
  await client.quit();
  await server.stop();
});

async function ftTotal(index, query) {
  const reply = await client.sendCommand(['FT.SEARCH', index, query, 'NOCONTENT', 'LIMIT', '0', '100', 'DIALECT', '2']);
  return { total: reply[0], ids: reply.slice(1).sort() };
}

function checkpoint(values, versions) {
  const cp = emptyCheckpoint();
  cp.id = uuid6(-1);
  cp.channel_values = values;
  cp.channel_versions = versions;
  return cp;
}

test('RedisSaver: checkpoints saved, loaded by id and latest, listed with filters, pending writes, deleteThread', async (t) => {
  if (noJson) return t.skip('the reference has no JSON module');
  await dropAllIndexes(client);
  await client.flushAll();
  const saver = new RedisSaver(client);
  await saver.ensureIndexes();
  assert.deepEqual((await client.sendCommand(['FT._LIST'])).sort(), ['checkpoint_blobs', 'checkpoint_writes', 'checkpoints'],
    'FT.CREATE … ON JSON for the three indexes');

  const thread = 'user-42'; // a '-' the library escapes in TAG queries
  const base = { configurable: { thread_id: thread, checkpoint_ns: '' } };
  const cp1 = checkpoint({ messages: ['hi'] }, { messages: 1 });
  const cfg1 = await saver.put(base, cp1, { source: 'input', step: -1, parents: {} }, { messages: 1 });
  assert.equal(cfg1.configurable.checkpoint_id, cp1.id);
  const cp2 = checkpoint({ messages: ['hi', 'there'] }, { messages: 2 });
  const cfg2 = await saver.put(cfg1, cp2, { source: 'loop', step: 0, parents: {} }, { messages: 2 });
  await saver.putWrites(cfg2, [['messages', 'pending']], 'task-1');
  const other = checkpoint({ messages: ['other'] }, { messages: 1 });
  await saver.put({ configurable: { thread_id: 'other', checkpoint_ns: '' } }, other, { source: 'input', step: -1, parents: {} }, { messages: 1 });

  // The documents are in the indexes (TAG with an escaped '-', NUMERIC range).
  assert.equal((await ftTotal('checkpoints', '@thread_id:{user\\-42}')).total, 2, 'checkpoints of the thread by TAG');
  assert.equal((await ftTotal('checkpoints', '@thread_id:{user\\-42} @step:[0 0]')).total, 1, 'TAG + NUMERIC');
  assert.equal((await ftTotal('checkpoints', '@checkpoint_ns:{__empty__}')).total, 3);
  assert.equal((await ftTotal('checkpoint_blobs', '@thread_id:{user\\-42} @channel:{messages}')).total, 2);
  assert.equal((await ftTotal('checkpoint_writes', '@task_id:{task\\-1}')).total, 1);

  // Latest and by id.
  const latest = await saver.getTuple(base);
  assert.equal(latest.checkpoint.id, cp2.id);
  assert.deepEqual(latest.checkpoint.channel_values, { messages: ['hi', 'there'] });
  assert.equal(latest.metadata.source, 'loop');
  assert.equal(latest.parentConfig.configurable.checkpoint_id, cp1.id);
  assert.deepEqual(latest.pendingWrites, [['task-1', 'messages', 'pending']]);
  const first = await saver.getTuple({ configurable: { thread_id: thread, checkpoint_ns: '', checkpoint_id: cp1.id } });
  assert.deepEqual(first.checkpoint.channel_values, { messages: ['hi'] });

  // list() with a filter goes through FT.SEARCH … SORTBY checkpoint_ts DESC.
  const ids = async (cfg, opts) => {
    const out = [];
    for await (const tup of saver.list(cfg, opts)) out.push(tup.checkpoint.id);
    return out;
  };
  assert.deepEqual(await ids(base, { filter: {} }), [cp2.id, cp1.id], 'newest first');
  assert.deepEqual(await ids(base, { filter: { source: 'input' } }), [cp1.id], 'metadata TAG filter');
  assert.deepEqual(await ids(base, { filter: { step: 0 } }), [cp2.id], 'metadata NUMERIC filter');
  assert.deepEqual(await ids(base, { filter: {}, limit: 1 }), [cp2.id], 'limit');
  assert.deepEqual(await ids({ configurable: {} }, { filter: { source: 'input' } }), [other.id, cp1.id], 'across threads, newest first');

  await saver.deleteThread(thread);
  assert.equal((await ftTotal('checkpoints', '@thread_id:{user\\-42}')).total, 0, 'deleted checkpoints leave the index');
  assert.equal((await ftTotal('checkpoint_blobs', '@thread_id:{user\\-42}')).total, 0);
  assert.equal(await saver.getTuple(base), undefined);
  assert.equal((await ftTotal('checkpoints', '*')).total, 1, 'the other thread stays');
});

test('RedisStore: put/get/search by namespace, semantic search over a JSON vector index, update, delete, TTL', async (t) => {
  if (noJson) return t.skip('the reference has no JSON module');
  await dropAllIndexes(client);
  await client.flushAll();
  const store = new RedisStore(client, {
    index: { dims: DIM, embed: new FakeEmbeddings(), fields: ['text'], distanceType: 'cosine' },
    ttl: { defaultTTL: 2 },
  });
  await store.setup();
  assert.deepEqual((await client.sendCommand(['FT._LIST'])).sort(), ['store', 'store_vectors']);

  await store.put(['users', 'alice', 'prefs'], 'food', { text: 'likes red apples' });
  await store.put(['users', 'alice', 'prefs'], 'transport', { text: 'rides a green bike' });
  await store.put(['users', 'alice', 'prefs'], 'drink', { text: 'coffee every morning', strength: 3 });
  await store.put(['users', 'bob', 'prefs'], 'drink', { text: 'green tea' });

  // Indexed: TEXT prefix tokens (namespace dots split), TAG key, vectors.
  assert.equal((await ftTotal('store', '@prefix:(users alice)')).total, 3);
  assert.equal((await ftTotal('store', '@key:{drink}')).total, 2);
  assert.equal((await ftTotal('store_vectors', '*')).total, 4);

  const got = await store.get(['users', 'alice', 'prefs'], 'drink');
  assert.deepEqual(got.value, { text: 'coffee every morning', strength: 3 });
  assert.deepEqual(got.namespace, ['users', 'alice', 'prefs']);
  assert.equal(await store.get(['users', 'alice', 'prefs'], 'nothing'), null);

  // Namespace search (FT.SEARCH … SORTBY created_at DESC), with a client-side filter.
  let items = await store.search(['users', 'bob']);
  assert.deepEqual(items.map((i) => i.key), ['drink']);
  items = await store.search(['users', 'alice'], { limit: 10 });
  assert.deepEqual(items.map((i) => i.key), ['drink', 'transport', 'food'], 'newest first');
  items = await store.search(['users', 'alice'], { filter: { strength: { $gte: 2 } } });
  assert.deepEqual(items.map((i) => i.key), ['drink']);

  // Semantic search: KNN over the JSON vector field with a TEXT prefix pre-filter. (A KNN
  // query without SORTBY returns its k nearest in document order, as RediSearch does.)
  items = await store.search(['users'], { query: 'apple', limit: 1 });
  assert.deepEqual(items.map((i) => i.key), ['food'], 'nearest to "apple"');
  assert.ok(items[0].score > 0.5, `similarity of the nearest: ${items[0].score}`);
  items = await store.search(['users'], { query: 'green', limit: 2 });
  assert.deepEqual(items.map((i) => `${i.namespace.join('.')}/${i.key}`).sort(),
    ['users.alice.prefs/transport', 'users.bob.prefs/drink'], 'green bike and green tea');
  // (The pre-filter is `@prefix:<first namespace part>*`.)
  items = await store.search(['nobody'], { query: 'apple', limit: 4 });
  assert.deepEqual(items, [], 'the prefix pre-filter matches no namespace');
  items = await store.search(['users', 'bob'], { query: 'apple', limit: 4 });
  assert.equal(items.length, 4, 'all four under users*');

  // Update: the old document is found through FT.SEARCH and replaced.
  await store.put(['users', 'alice', 'prefs'], 'food', { text: 'now prefers bananas' });
  assert.deepEqual((await store.get(['users', 'alice', 'prefs'], 'food')).value, { text: 'now prefers bananas' });
  assert.equal((await ftTotal('store', '@key:{food}')).total, 1, 'one document per key after an update');
  items = await store.search(['users'], { query: 'banana', limit: 1 });
  assert.equal(items[0].key, 'food');

  // TTL in minutes, as EXPIRE.
  const keys = await client.keys('store:*');
  const ttl = await client.ttl(keys[0]);
  assert.ok(ttl > 0 && ttl <= 120, `TTL ${ttl}`);

  // Delete, and namespaces.
  await store.delete(['users', 'alice', 'prefs'], 'transport');
  assert.equal(await store.get(['users', 'alice', 'prefs'], 'transport'), null);
  assert.equal((await ftTotal('store', '@prefix:(users alice)')).total, 2);
  assert.deepEqual(await store.listNamespaces({ prefix: ['users'] }), [['users', 'alice', 'prefs'], ['users', 'bob', 'prefs']]);
});
