// LangChain.js's Redis vector stores (issue 18): @langchain/redis RedisVectorStore and
// FluentRedisVectorStore, unchanged, through the node-redis 4 client they depend on, with a
// deterministic fake embedding function. They speak FT.CREATE / FT.INFO / FT.SEARCH
// (KNN with hybrid filters, DIALECT 2) / FT.DROPINDEX DD over hashes.
// Checked against Redis 8.8 + RediSearch 2.10 too (see server.mjs).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { Document } from '@langchain/core/documents';
import { RedisVectorStore, FluentRedisVectorStore, Tag, Num, Text, Geo } from '@langchain/redis';
import { FakeEmbeddings, embed } from './fake_embeddings.mjs';
import { startServer, dropAllIndexes } from './server.mjs';

// The `redis` (node-redis 4) that @langchain/redis itself imports.
const { createClient } = createRequire(import.meta.resolve('@langchain/redis'))('redis');

let server;
let client;
before(async () => {
  server = await startServer();
  client = createClient({ url: server.url });
  await client.connect();
});
after(async () => {
  await client.quit();
  await server.stop();
});

const DOCS = [
  { id: 'a', text: 'red apple fruit', meta: { category: 'fruit', price: 3, colour: ['red'], location: '-0.1276,51.5072', title: 'crisp apple' } },
  { id: 'b', text: 'green apple fruit', meta: { category: 'fruit', price: 2, colour: ['green'], location: '2.3522,48.8566', title: 'sour apple' } },
  { id: 'c', text: 'banana fruit', meta: { category: 'fruit', price: 1, colour: ['yellow', 'green'], location: '12.4964,41.9028', title: 'ripe banana' } },
  { id: 'd', text: 'fast red car vehicle', meta: { category: 'vehicle', price: 30000, colour: ['red'], location: '13.4050,52.5200', title: 'sports car' } },
  { id: 'e', text: 'cheap green bike vehicle', meta: { category: 'vehicle', price: 400, colour: ['green', 'blue'], location: '-3.7038,40.4168', title: 'city bike' } },
];
const documents = () => DOCS.map((d) => new Document({ pageContent: d.text, metadata: { ...d.meta } }));

// FT.CREATE scans existing keys in the background in RediSearch; the stores create their
// index before writing, so there is nothing to wait for except on the reference's first
// scan of an empty keyspace. Bounded.
async function waitIndexed(index) {
  for (let i = 0; i < 400; i += 1) {
    // Raw FT.INFO: node-redis 4's parser reads it by position, 2.10's `indexing` is not where it looks.
    const raw = await client.sendCommand(['FT.INFO', index]);
    const info = Object.fromEntries(raw.flatMap((v, j) => (j % 2 === 0 ? [[v, raw[j + 1]]] : [])));
    if (Number(info.indexing) === 0) return;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`${index}: still indexing`);
}

// Waits (bounded) until `pred()` holds: for keys that expire in the background.
async function eventually(pred, what) {
  for (let i = 0; i < 200; i += 1) {
    if (await pred()) return;
    await new Promise((r) => setTimeout(r, 25));
  }
  assert.fail(`not reached within 5 s: ${what}`);
}

const contents = (results) => results.map(([doc]) => doc.pageContent);

test('RedisVectorStore: add, similarity search with and without filters, delete, TTL', async () => {
  await dropAllIndexes(client);
  await client.flushAll();
  const store = new RedisVectorStore(new FakeEmbeddings(), {
    redisClient: client,
    indexName: 'lc_docs',
    ttl: 600,
    customSchema: {
      category: { type: 'TAG' },
      price: { type: 'NUMERIC', SORTABLE: true },
    },
  });
  // Keys given, so that delete({ ids }) (which prefixes keyPrefix) can name them.
  await store.addDocuments(documents(), { keys: DOCS.map((d) => `doc:lc_docs:${d.id}`) });
  await waitIndexed('lc_docs');
  assert.equal(await store.checkIndexExists(), true);
  const info = await client.ft.info('lc_docs');
  assert.equal(Number(info.numDocs), 5, 'FT.INFO num_docs after addDocuments');

  // Stored as LangChain writes it: FLOAT32 blob, content, escaped JSON metadata, TTL.
  const h = await client.hGetAll('doc:lc_docs:a');
  assert.equal(h.content, 'red apple fruit');
  assert.equal(h['metadata.category'], 'fruit');
  const ttl = await client.ttl('doc:lc_docs:a');
  assert.ok(ttl > 0 && ttl <= 600, `TTL of a stored document: ${ttl}`);

  // No filter: nearest first, cosine distance 0 for the identical text.
  let res = await store.similaritySearchWithScore('red apple fruit', 3);
  assert.equal(res.length, 3);
  assert.equal(res[0][0].pageContent, 'red apple fruit');
  assert.ok(Math.abs(res[0][1]) < 1e-5, `distance to itself: ${res[0][1]}`);
  assert.deepEqual(res[0][0].metadata, DOCS[0].meta, 'metadata round-trips through the escaped JSON field');
  assert.ok(res[1][1] >= res[0][1] && res[2][1] >= res[1][1], 'sorted by distance');
  assert.deepEqual(contents(res).slice(1).sort(), ['banana fruit', 'green apple fruit']);
  const docs = await store.similaritySearch('bike', 1);
  assert.equal(docs[0].pageContent, 'cheap green bike vehicle');

  // String-array filter over the TEXT metadata field, which holds the JSON with `"` and `:`
  // backslash-escaped: escaped characters join a token, so `"category":"vehicle"` is one
  // term and a bare `vehicle` is none (as on Redis). The filter is sent escaped the same way:
  // `@metadata:(\"category\"\:\"vehicle\") => [KNN 5 @content_vector $vector AS vector_score]`.
  res = await store.similaritySearchWithScore('red apple fruit', 5, ['"category":"vehicle"']);
  assert.deepEqual(contents(res), ['fast red car vehicle', 'cheap green bike vehicle'], 'filter [\'"category":"vehicle"\']');
  res = await store.similaritySearchWithScore('red apple fruit', 5, ['"price":2', '"price":30000']);
  assert.deepEqual(contents(res), ['green apple fruit', 'fast red car vehicle'], 'filter of two terms (OR)');
  res = await store.similaritySearchWithScore('red apple fruit', 5, ['vehicle']);
  assert.deepEqual(contents(res), [], 'a bare word inside an escaped JSON token is not a term');
  // A string filter goes inside `@metadata:( … )` as it is: a prefix of an escaped term,
  // and a term minus another.
  res = await store.similaritySearchVectorWithScore(embed('apple'), 5, String.raw`\"title\"\:\"c*`);
  assert.deepEqual(contents(res), ['red apple fruit', 'cheap green bike vehicle'], 'raw string filter (prefix)');
  res = await store.similaritySearchVectorWithScore(embed('apple'), 5, String.raw`apple\" -\"title\"\:\"sour`);
  assert.deepEqual(contents(res), ['red apple fruit'], 'raw string filter (negation)');
  // (similaritySearchVectorWithScoreAndMetadata sends `@metadata.category:{…}`, which
  // RediSearch rejects as a syntax error at the dot: not exercised.)

  // Delete by id: gone from the next search.
  await store.delete({ ids: ['a'] });
  res = await store.similaritySearchWithScore('red apple fruit', 5);
  assert.equal(res.length, 4);
  assert.ok(!contents(res).includes('red apple fruit'), 'deleted document not returned');

  // TTL: a document whose key expires leaves the index.
  await client.pExpire('doc:lc_docs:b', 1);
  await eventually(async () => (await client.exists('doc:lc_docs:b')) === 0, 'doc:lc_docs:b expired');
  res = await store.similaritySearchWithScore('green apple fruit', 5);
  assert.deepEqual(contents(res).sort(), ['banana fruit', 'cheap green bike vehicle', 'fast red car vehicle'], 'expired document not returned');

  // deleteAll: FT.DROPINDEX DD drops the index and its documents.
  await store.delete({ deleteAll: true });
  assert.equal(await store.checkIndexExists(), false);
  assert.deepEqual(await client.keys('doc:lc_docs:*'), []);
});

test('RedisVectorStore.fromTexts appends after existing documents (key numbering from FT.INFO num_docs)', async () => {
  await dropAllIndexes(client);
  await client.flushAll();
  const cfg = { redisClient: client, indexName: 'lc_texts' };
  const store = await RedisVectorStore.fromTexts(['coffee', 'tea'], [{ k: 1 }, { k: 2 }], new FakeEmbeddings(), cfg);
  await store.addDocuments([new Document({ pageContent: 'green tea', metadata: { k: 3 } })]);
  assert.deepEqual((await client.keys('doc:lc_texts:*')).sort(), ['doc:lc_texts:0', 'doc:lc_texts:1', 'doc:lc_texts:2']);
  const res = await store.similaritySearch('tea', 2);
  assert.deepEqual(res.map((d) => d.pageContent), ['tea', 'green tea']);
  assert.deepEqual(res.map((d) => d.metadata.k), [2, 3]);
  assert.equal(await store.dropIndex(false), true);
  assert.equal(await client.exists('doc:lc_texts:0'), 1, 'dropIndex without DD keeps the hashes');
});

test('FluentRedisVectorStore: typed metadata schema, Tag/Num/Text/Geo filters, delete, TTL', async () => {
  await dropAllIndexes(client);
  await client.flushAll();
  const store = new FluentRedisVectorStore(new FakeEmbeddings(), {
    redisClient: client,
    indexName: 'lc_fluent',
    ttl: 300,
    customSchema: [
      { name: 'category', type: 'tag' },
      { name: 'price', type: 'numeric', options: { sortable: true } },
      { name: 'colour', type: 'tag' },
      { name: 'location', type: 'geo' },
      { name: 'title', type: 'text' },
    ],
  });
  await store.addDocuments(documents(), { keys: DOCS.map((d) => `doc:lc_fluent:${d.id}`) });
  await waitIndexed('lc_fluent');
  const info = await client.ft.info('lc_fluent');
  assert.deepEqual(info.attributes.map((a) => `${a.identifier}:${a.type}`),
    ['content_vector:VECTOR', 'content:TEXT', 'category:TAG', 'price:NUMERIC', 'colour:TAG', 'location:GEO', 'title:TEXT']);
  const ttl = await client.ttl('doc:lc_fluent:c');
  assert.ok(ttl > 0 && ttl <= 300, `TTL ${ttl}`);

  // No filter.
  let res = await store.similaritySearchWithScore('banana', 2);
  assert.equal(res[0][0].pageContent, 'banana fruit');
  assert.deepEqual(res[0][0].metadata, { category: 'fruit', price: 1, colour: ['yellow', 'green'], location: [12.4964, 41.9028], title: 'ripe banana' },
    'metadata deserialised from the hash fields');

  // Tag, numeric, combined, negated, text and geo filters.
  res = await store.similaritySearchWithScore('red', 5, Tag('category').eq('vehicle'));
  assert.deepEqual(contents(res), ['fast red car vehicle', 'cheap green bike vehicle'], 'Tag eq, nearest first');
  res = await store.similaritySearchWithScore('red', 5, Tag('colour').eq(['green', 'blue']));
  assert.deepEqual(contents(res).sort(), ['banana fruit', 'cheap green bike vehicle', 'green apple fruit'], 'Tag eq any of');
  res = await store.similaritySearchWithScore('red', 5, Num('price').between(2, 400));
  assert.deepEqual(contents(res).sort(), ['cheap green bike vehicle', 'green apple fruit', 'red apple fruit'], 'Num between');
  res = await store.similaritySearchWithScore('red', 5, Num('price').lt(3).and(Tag('category').eq('fruit')));
  assert.deepEqual(contents(res).sort(), ['banana fruit', 'green apple fruit'], 'Num lt AND Tag');
  res = await store.similaritySearchWithScore('red', 5, Tag('category').ne('fruit'));
  assert.deepEqual(contents(res).sort(), ['cheap green bike vehicle', 'fast red car vehicle'], 'Tag ne');
  res = await store.similaritySearchWithScore('red', 5, Num('price').gt(1000).or(Tag('colour').eq('yellow')));
  assert.deepEqual(contents(res).sort(), ['banana fruit', 'fast red car vehicle'], 'OR');
  res = await store.similaritySearchWithScore('red', 5, Text('title').eq('apple'));
  assert.deepEqual(contents(res).sort(), ['green apple fruit', 'red apple fruit'], 'Text');
  res = await store.similaritySearchWithScore('red', 5, Geo('location').within(2.35, 48.85, 400, 'km'));
  assert.deepEqual(contents(res).sort(), ['green apple fruit', 'red apple fruit'], 'Geo within 400 km of Paris');

  // Delete and expiry leave the index at once.
  await store.delete({ ids: ['d'] });
  res = await store.similaritySearchWithScore('red', 5, Tag('category').eq('vehicle'));
  assert.deepEqual(contents(res), ['cheap green bike vehicle']);
  await client.pExpire('doc:lc_fluent:e', 1);
  await eventually(async () => (await client.exists('doc:lc_fluent:e')) === 0, 'doc:lc_fluent:e expired');
  res = await store.similaritySearchWithScore('red', 5, Tag('category').eq('vehicle'));
  assert.deepEqual(contents(res), [], 'expired document not returned');

  await store.delete({ deleteAll: true });
  assert.deepEqual(await client.ft._list(), []);
  assert.deepEqual(await client.keys('doc:lc_fluent:*'), []);
});
