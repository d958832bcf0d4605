// JSON documents through real npm clients (issue 17): redis-om 0.4.7 storing entities
// with a JSON schema (through its own node-redis 4 client and through node-redis 6.3.1),
// and node-redis 6.3.1's client.json.* commands in RESP2 and RESP3.
//
// These tests use save, fetch, remove and expire; redis-om's search (createIndex(),
// repository.search()) is tested in redis_om_search.test.mjs.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createClient } from 'redis';
import { createClient as createClientV5 } from 'redis5';
import { Client, EntityId, EntityKeyName, Repository, Schema } from 'redis-om';
import { startServer } from './server.mjs';

let server;
before(async () => { server = await startServer(); });
after(async () => { await server.stop(); });

const personSchema = (name) => new Schema(name, {
  name: { type: 'string' },
  age: { type: 'number' },
  verified: { type: 'boolean' },
  location: { type: 'point' },
  born: { type: 'date' },
  skills: { type: 'string[]' },
  scores: { type: 'number[]' },
  statement: { type: 'text' },
  city: { type: 'string', path: '$.address.city' },
}, { dataStructure: 'JSON' });

const ada = {
  name: 'Ada Lovelace',
  age: 36,
  verified: true,
  location: { longitude: -0.1276, latitude: 51.5072 },
  born: new Date('1815-12-10T00:00:00.000Z'),
  skills: ['math', 'engines'],
  scores: [1.5, 2, 3],
  statement: 'The Analytical Engine weaves algebraic patterns.',
  address: { city: 'London', street: 'St James Square' },
};

// Checks save / fetch / remove / expire of one repository; `raw` is a node-redis 6
// client on the same server for looking at what redis-om stored.
async function checkRepository(repo, raw, prefix) {
  const saved = await repo.save(ada);
  const id = saved[EntityId];
  assert.ok(id);
  assert.equal(saved[EntityKeyName], `${prefix}:${id}`);

  // Stored as a ReJSON-RL document, fields as redis-om writes them.
  assert.equal(await raw.type(`${prefix}:${id}`), 'ReJSON-RL');
  const doc = await raw.json.get(`${prefix}:${id}`);
  assert.equal(doc.name, 'Ada Lovelace');
  assert.equal(doc.location, '-0.1276,51.5072');
  assert.equal(doc.born, ada.born.getTime() / 1000);
  assert.deepEqual(doc.address, ada.address);

  const fetched = await repo.fetch(id);
  assert.equal(fetched[EntityId], id);
  assert.equal(fetched.name, ada.name);
  assert.equal(fetched.age, 36);
  assert.equal(fetched.verified, true);
  assert.deepEqual(fetched.location, ada.location);
  assert.equal(fetched.born.getTime(), ada.born.getTime());
  assert.deepEqual(fetched.skills, ada.skills);
  assert.deepEqual(fetched.scores, ada.scores);
  assert.equal(fetched.statement, ada.statement);
  assert.deepEqual(fetched.address, ada.address);

  // Update in place: save the fetched entity again with changes.
  fetched.age = 37;
  fetched.skills.push('poetry');
  await repo.save(fetched);
  const again = await repo.fetch(id);
  assert.equal(again.age, 37);
  assert.deepEqual(again.skills, ['math', 'engines', 'poetry']);

  // Several ids at once; a missing id gives an empty entity.
  const other = await repo.save('fixed-id', { ...ada, name: 'Charles Babbage', age: 79 });
  assert.equal(other[EntityId], 'fixed-id');
  const [a, b, missing] = await repo.fetch(id, 'fixed-id', 'nobody');
  assert.equal(a.name, 'Ada Lovelace');
  assert.equal(b.name, 'Charles Babbage');
  assert.equal(missing[EntityId], 'nobody');
  assert.equal(missing.name, undefined);

  // expire sets a TTL on the document's key.
  await repo.expire('fixed-id', 100);
  const ttl = await raw.ttl(`${prefix}:fixed-id`);
  assert.ok(ttl > 0 && ttl <= 100, `ttl ${ttl}`);

  await repo.remove(id, 'fixed-id');
  assert.equal(await raw.exists([`${prefix}:${id}`, `${prefix}:fixed-id`]), 0);
  const gone = await repo.fetch(id);
  assert.equal(gone.name, undefined);
}

test('redis-om: Schema + Repository on JSON through its own client', async () => {
  const om = await new Client().open(server.url);
  const raw = createClient({ url: server.url });
  await raw.connect();
  try {
    const repo = new Repository(personSchema('om-person'), om);
    await checkRepository(repo, raw, 'om-person');
  } finally {
    await om.close();
    await raw.close();
  }
});

test('redis-om: Repository on a node-redis 6 connection', async () => {
  const conn = createClient({ url: server.url });
  await conn.connect();
  try {
    const repo = new Repository(personSchema('om6-person'), conn);
    await checkRepository(repo, conn, 'om6-person');
  } finally {
    await conn.close();
  }
});

// node-redis v6 (the current release) and v5 (the version the issue names).
for (const [version, create] of [['6', createClient], ['5', createClientV5]]) {
test(`node-redis v${version}: client.json.* in RESP2 and RESP3`, async () => {
  for (const RESP of [2, 3]) {
    const c = create({ url: server.url, RESP });
    await c.connect();
    const k = `nr${version}:doc${RESP}`;
    try {
      const doc = { name: 'x', n: 1, tags: ['a'], nested: { a: 1, b: [1, 2] }, f: 1.5 };
      assert.equal(await c.json.set(k, '$', doc), 'OK');
      assert.equal(await c.json.set(k, '$', doc, { condition: 'NX' }), null);
      assert.deepEqual(await c.json.get(k), doc);
      assert.deepEqual(await c.json.get(k, { path: '$.nested.b' }), [[1, 2]]);
      assert.deepEqual(await c.json.get(k, { path: ['$.n', '$.name'] }), { '$.n': [1], '$.name': ['x'] });
      assert.deepEqual(await c.json.get(k, { path: '.name' }), 'x');

      assert.deepEqual(await c.json.arrAppend(k, '$.tags', 'b', 'c'), [3]);
      assert.deepEqual(await c.json.arrAppend(k, '$.nested.b', 3), [3]);
      assert.deepEqual(await c.json.numIncrBy(k, '$.n', 2), [3]);
      // RESP3 replies a double (`,1.75`); node-redis v5's RESP3 decoder builds doubles
      // digit by digit and reads 1.7500000000000002, so compare within an ulp or two.
      const inc = await c.json.numIncrBy(k, '$.f', 0.25);
      assert.equal(inc.length, 1);
      assert.ok(Math.abs(inc[0] - 1.75) < 1e-12, `numIncrBy gave ${inc[0]}`);
      assert.deepEqual(await c.json.numIncrBy(k, '$.name', 1), [null]);
      // A legacy path replies the new value; RESP3 wraps it in an array, as Redis 8 does.
      assert.deepEqual(await c.json.numIncrBy(k, '.n', 1), RESP === 3 ? [4] : 4);
      assert.deepEqual(await c.json.objKeys(k, { path: '$' }), [['name', 'n', 'tags', 'nested', 'f']]);
      assert.deepEqual(await c.json.objKeys(k, { path: '$.nested' }), [['a', 'b']]);
      assert.deepEqual(await c.json.type(k, { path: '$.tags' }), ['array']);
      assert.deepEqual(await c.json.type(k, { path: '$.f' }), ['number']);
      assert.equal(await c.json.type(k), 'object');

      assert.equal(await c.json.merge(k, '$', { nested: { a: null, c: 'new' }, name: 'y' }), 'OK');
      assert.deepEqual(await c.json.get(k, { path: '$.nested' }), [{ b: [1, 2, 3], c: 'new' }]);
      assert.deepEqual(await c.json.get(k, { path: '$.name' }), ['y']);

      // mGet: one reply per key, null for a missing key.
      await c.json.set(`${k}:2`, '$', { n: 10 });
      assert.deepEqual(await c.json.mGet([k, `${k}:2`, `${k}:none`], '$.n'), [[4], [10], null]);

      assert.equal(await c.json.del(k, { path: '$.tags[0]' }), 1);
      assert.deepEqual(await c.json.get(k, { path: '$.tags' }), [['b', 'c']]);
      assert.equal(await c.json.del(k, { path: '$.nothing' }), 0);
      assert.equal(await c.json.del(k), 1);
      assert.equal(await c.json.get(k), null);
      assert.equal(await c.json.del(`${k}:2`), 1);
    } finally {
      await c.close();
    }
  }
});
}
