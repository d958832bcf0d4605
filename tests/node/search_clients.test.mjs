// FT.* through node-redis's own search API (issue 18): redis@5 (the `redis5` alias) over
// RESP2 and redis@6 over RESP3, its default. Both go through their client.ft.* parsers,
// so a reply shape the client cannot read fails here. Checked against Redis 8.8 +
// RediSearch 2.10 too: HOTKV_TEST_PEER=…/redis-server HOTKV_TEST_MODULE=…/redisearch.so.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createClient } from 'redis';
import { createClient as createClientV5 } from 'redis5';
import { startServer, dropAllIndexes } from './server.mjs';

let server;
before(async () => { server = await startServer(); });
after(async () => { await server.stop(); });

const f32 = (a) => Buffer.from(new Float32Array(a).buffer);

const PRODUCTS = [
  { id: 'p:1', title: 'red apple from the orchard', tags: 'fruit,red', price: 3, loc: '-0.1276,51.5072', v: [1, 0, 0, 0] },
  { id: 'p:2', title: 'green apple', tags: 'fruit,green', price: 2, loc: '2.3522,48.8566', v: [0.9, 0.1, 0, 0] },
  { id: 'p:3', title: 'red sports car', tags: 'vehicle,red', price: 30000, loc: '13.4050,52.5200', v: [0, 0, 1, 0] },
  { id: 'p:4', title: 'blue bicycle', tags: 'vehicle,blue', price: 400, loc: '-3.7038,40.4168', v: [0, 0, 0.8, 0.6] },
  { id: 'p:5', title: 'yellow banana', tags: 'fruit,yellow', price: 1, loc: '12.4964,41.9028', v: [0.6, 0.8, 0, 0] },
];

const SCHEMA = {
  title: { type: 'TEXT', SORTABLE: true },
  tags: { type: 'TAG', SEPARATOR: ',' },
  price: { type: 'NUMERIC', SORTABLE: true },
  loc: { type: 'GEO' },
  v: { type: 'VECTOR', ALGORITHM: 'HNSW', TYPE: 'FLOAT32', DIM: 4, DISTANCE_METRIC: 'COSINE' },
};

// FT.CREATE scans existing keys in the background in RediSearch (FT.INFO `indexing`);
// wait for the scan to finish, a bounded number of times.
export async function waitIndexed(c, index) {
  for (let i = 0; i < 400; i += 1) {
    const info = await c.ft.info(index);
    if (Number(info.indexing) === 0 && Number(info.percent_indexed) === 1) return;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`${index}: still indexing after 10 s`);
}

const ids = (reply) => reply.documents.map((d) => d.id);
const sorted = (a) => [...a].sort();

// The same FT.* walk for both clients; `resp` only names the protocol in messages.
async function checkFt(c, resp) {
  await dropAllIndexes(c);
  await c.flushAll();
  // Documents before the index: FT.CREATE indexes existing keys.
  for (const p of PRODUCTS.slice(0, 3)) {
    await c.hSet(p.id, { title: p.title, tags: p.tags, price: p.price, loc: p.loc, v: f32(p.v) });
  }
  assert.equal(await c.ft.create('products', SCHEMA, { ON: 'HASH', PREFIX: 'p:' }), 'OK');
  await assert.rejects(c.ft.create('products', SCHEMA, { ON: 'HASH', PREFIX: 'p:' }), /Index already exists/);
  await waitIndexed(c, 'products');
  // Documents after the index: searchable as soon as HSET returns.
  for (const p of PRODUCTS.slice(3)) {
    await c.hSet(p.id, { title: p.title, tags: p.tags, price: p.price, loc: p.loc, v: f32(p.v) });
  }
  await c.hSet('other:1', { title: 'red apple outside the prefix', tags: 'fruit' });
  assert.deepEqual(await c.ft._list(), ['products'], resp);

  // Full text, stemmed ("apples" finds "apple"), with the stored fields as values.
  let r = await c.ft.search('products', 'apples');
  assert.equal(r.total, 2, `${resp}: text search total`);
  assert.deepEqual(sorted(ids(r)), ['p:1', 'p:2']);
  const doc1 = r.documents.find((d) => d.id === 'p:1');
  assert.equal(doc1.value.title, 'red apple from the orchard');
  assert.equal(doc1.value.price, '3');

  // Tag filter, numeric range, SORTBY and LIMIT, RETURN.
  r = await c.ft.search('products', '@tags:{red}', { SORTBY: { BY: 'price', DIRECTION: 'DESC' }, RETURN: ['title', 'price'] });
  assert.deepEqual(ids(r), ['p:3', 'p:1'], `${resp}: tag filter sorted by price DESC`);
  assert.deepEqual({ ...r.documents[0].value }, { title: 'red sports car', price: '30000' });
  r = await c.ft.search('products', '@price:[2 (400]', { SORTBY: 'price' });
  assert.deepEqual(ids(r), ['p:2', 'p:1'], `${resp}: numeric range with exclusive bound`);
  r = await c.ft.search('products', '@tags:{fruit} -@title:apple', {});
  assert.deepEqual(ids(r), ['p:5'], `${resp}: negation`);
  r = await c.ft.search('products', '@tags:{fruit|vehicle}', { SORTBY: 'price', LIMIT: { from: 1, size: 2 }, RETURN: [] });
  assert.equal(r.total, 5);
  assert.deepEqual(ids(r), ['p:2', 'p:1'], `${resp}: LIMIT 1 2 after SORTBY price`);
  r = await c.ft.search('products', '@loc:[-0.1 51.5 400 km]', { RETURN: ['title'] });
  assert.deepEqual(sorted(ids(r)), ['p:1', 'p:2'], `${resp}: GEO radius from London`);

  // KNN, plain and pre-filtered, with the distance as a returned field.
  r = await c.ft.search('products', '*=>[KNN 3 @v $q AS dist]', {
    PARAMS: { q: f32([1, 0, 0, 0]) }, SORTBY: 'dist', RETURN: ['dist', 'title'], DIALECT: 2,
  });
  assert.deepEqual(ids(r), ['p:1', 'p:2', 'p:5'], `${resp}: KNN order`);
  assert.ok(Math.abs(Number(r.documents[0].value.dist)) < 1e-6, `${resp}: cosine distance of identical vectors is 0, got ${r.documents[0].value.dist}`);
  assert.ok(Math.abs(Number(r.documents[2].value.dist) - 0.4) < 1e-5, `${resp}: cosine distance 1-0.6, got ${r.documents[2].value.dist}`);
  r = await c.ft.search('products', '(@tags:{vehicle})=>[KNN 5 @v $q AS dist]', {
    PARAMS: { q: f32([1, 0, 0, 0]) }, SORTBY: 'dist', RETURN: ['dist'], DIALECT: 2,
  });
  assert.deepEqual(sorted(ids(r)), ['p:3', 'p:4'], `${resp}: pre-filtered KNN returns only vehicles`);

  // Aggregation: GROUPBY + REDUCE, APPLY, SORTBY.
  const agg = await c.ft.aggregate('products', '@tags:{fruit}', {
    LOAD: ['@title', '@price'],
    STEPS: [
      { type: 'APPLY', expression: '@price * 2', AS: 'double' },
      { type: 'GROUPBY', properties: [], REDUCE: [
        { type: 'COUNT', AS: 'n' }, { type: 'SUM', property: '@double', AS: 'total' }] },
    ],
  });
  assert.equal(agg.results.length, 1, `${resp}: GROUPBY 0 gives one row`);
  assert.equal(String(agg.results[0].n), '3');
  assert.equal(String(agg.results[0].total), '12');
  const byPrice = await c.ft.aggregate('products', '*', {
    LOAD: ['@price'],
    // (node-redis counts its MAX inside SORTBY's nargs, which RediSearch rejects: LIMIT.)
    STEPS: [{ type: 'SORTBY', BY: { BY: '@price', DIRECTION: 'DESC' } }, { type: 'LIMIT', from: 0, size: 2 }],
  });
  assert.deepEqual(byPrice.results.map((x) => String(x.price)), ['30000', '400'], `${resp}: SORTBY DESC + LIMIT 0 2`);

  // A write is visible to the next search: HSET changes, HDEL, DEL, EXPIRE.
  await c.hSet('p:5', 'tags', 'fruit,red');
  r = await c.ft.search('products', '@tags:{red}', { RETURN: [] });
  assert.deepEqual(sorted(ids(r)), ['p:1', 'p:3', 'p:5'], `${resp}: re-tagged document found`);
  await c.del('p:5');
  r = await c.ft.search('products', '@tags:{red}', { RETURN: [] });
  assert.deepEqual(sorted(ids(r)), ['p:1', 'p:3'], `${resp}: deleted document gone`);

  // FT.INFO through the client's parser.
  const info = await c.ft.info('products');
  assert.equal(info.index_name, 'products');
  assert.equal(Number(info.num_docs), 4, `${resp}: num_docs`);
  const attrs = info.attributes.map((a) => [a.identifier, a.attribute, a.type]);
  assert.deepEqual(attrs, [['title', 'title', 'TEXT'], ['tags', 'tags', 'TAG'], ['price', 'price', 'NUMERIC'],
    ['loc', 'loc', 'GEO'], ['v', 'v', 'VECTOR']], `${resp}: FT.INFO attributes`);
  const vattr = info.attributes[4];
  assert.equal(vattr.algorithm, 'HNSW');
  assert.equal(vattr.data_type, 'FLOAT32');
  assert.equal(Number(vattr.dim), 4);
  assert.equal(vattr.distance_metric, 'COSINE');

  // FT.TAGVALS, aliases, cursors.
  // RediSearch keeps a deleted document's tag values until its GC runs ('yellow' was p:5's).
  const tagVals = sorted(await c.ft.tagVals('products', 'tags')).filter((t) => t !== 'yellow');
  assert.deepEqual(tagVals, ['blue', 'fruit', 'green', 'red', 'vehicle'], `${resp}: FT.TAGVALS`);
  assert.equal(await c.ft.aliasAdd('shop', 'products'), 'OK');
  r = await c.ft.search('shop', '@tags:{blue}', { RETURN: [] });
  assert.deepEqual(ids(r), ['p:4'], `${resp}: search through an alias`);
  await c.ft.create('products2', SCHEMA, { ON: 'HASH', PREFIX: 'other:' });
  await waitIndexed(c, 'products2');
  assert.equal(await c.ft.aliasUpdate('shop', 'products2'), 'OK');
  r = await c.ft.search('shop', 'apple', { RETURN: [] });
  assert.deepEqual(ids(r), ['other:1'], `${resp}: alias moved by FT.ALIASUPDATE`);
  assert.equal(await c.ft.aliasDel('shop'), 'OK');
  await assert.rejects(c.ft.search('shop', '*'), /no such index/i);

  const first = await c.ft.aggregateWithCursor('products', '*', { LOAD: ['@price'], COUNT: 2 });
  assert.equal(first.results.length, 2, `${resp}: first cursor page`);
  assert.notEqual(Number(first.cursor), 0);
  const rest = await c.ft.cursorRead('products', first.cursor);
  assert.equal(rest.results.length, 2, `${resp}: second cursor page`);
  const prices = [...first.results, ...rest.results].map((x) => Number(x.price)).sort((a, b) => a - b);
  assert.deepEqual(prices, [2, 3, 400, 30000]);

  // FT.EXPLAIN, FT.CONFIG GET, FT.ALTER … SCHEMA ADD, FT.PROFILE through the client.
  assert.equal(await c.ft.explain('products', '@title:car @price:[1 2]', { DIALECT: 2 }),
    'INTERSECT {\n  @title:UNION {\n    @title:car\n    @title:+car(expanded)\n  }\n  NUMERIC {1.000000 <= @price <= 2.000000}\n}\n',
    `${resp}: FT.EXPLAIN`);
  assert.deepEqual({ ...(await c.ft.configGet('TIMEOUT')) }, { TIMEOUT: '500' }, `${resp}: FT.CONFIG GET TIMEOUT`);
  assert.equal(await c.ft.alter('products', { colour: 'TAG' }), 'OK');
  await c.hSet('p:4', 'colour', 'navy');
  r = await c.ft.search('products', '@colour:{navy}', { RETURN: ['colour'] });
  assert.deepEqual(ids(r), ['p:4'], `${resp}: field added by FT.ALTER is indexed`);
  const profile = await c.ft.profileSearch('products', '@tags:{fruit}');
  assert.ok(profile.profile, `${resp}: FT.PROFILE has a profile part`);
  assert.equal(profile.results.total, 2, `${resp}: FT.PROFILE results`);

  // FT.DROPINDEX: without DD keeps the documents, with DD deletes them.
  assert.equal(await c.ft.dropIndex('products2'), 'OK');
  assert.equal(await c.exists('other:1'), 1);
  assert.equal(await c.ft.dropIndex('products', { DD: true }), 'OK');
  assert.equal(await c.exists('p:1'), 0, `${resp}: DD deleted the documents`);
  assert.deepEqual(await c.ft._list(), []);
  await assert.rejects(c.ft.info('products'), /Unknown index name/);
  await assert.rejects(c.ft.dropIndex('products'), /Unknown Index name/); // sic, capital I
  await assert.rejects(c.ft.search('products', '*'), /no such index/i);
}

test('node-redis 5 client.ft.* over RESP2', async () => {
  const c = createClientV5({ url: server.url, RESP: 2 });
  await c.connect();
  try {
    await checkFt(c, 'redis5/RESP2');
  } finally {
    await c.quit();
  }
});

test('node-redis 6 client.ft.* over RESP3 (its default)', async () => {
  const c = createClient({ url: server.url });
  await c.connect();
  try {
    assert.equal((await c.hello()).proto, 3);
    await checkFt(c, 'redis6/RESP3');
  } finally {
    await c.quit();
  }
});
