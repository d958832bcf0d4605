// redis-om 0.4.7's search (issue 18): repository.createIndex() (FT.CREATE from its schema,
// ON HASH and ON JSON), the fluent search builder (tag, text, numeric, boolean, date, geo,
// array-contains, and/or/sub-searches, sortBy, count, page, first, min/max) and dropIndex(),
// through its own node-redis 4 client. The HASH half is checked against Redis 8.8 +
// RediSearch 2.10 too; the JSON half needs the JSON module and skips on that reference.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { Client, EntityId, Repository, Schema } from 'redis-om';
import { startServer, PEER, dropAllIndexes } from './server.mjs';

let server;
let om;
let noJson = false;
before(async () => {
  server = await startServer();
  om = await new Client().open(server.url);
  try {
    await om.redis.sendCommand(['JSON.SET', 'probe:json', '$', '{}']);
    await om.redis.sendCommand(['DEL', 'probe:json']);
  } catch (e) {
    if (PEER && /unknown command/i.test(e.message)) noJson = true;
  }
});
after(async () => {
  await om.close();
  await server.stop();
});

const PEOPLE = [
  { id: 'ada', name: 'Ada Lovelace', team: 'engines', age: 36, verified: true, born: new Date('1815-12-10T00:00:00Z'),
    location: { longitude: -0.1276, latitude: 51.5072 }, bio: 'Wrote the first algorithm for the Analytical Engine', skills: ['math', 'poetry'] },
  { id: 'charles', name: 'Charles Babbage', team: 'engines', age: 79, verified: false, born: new Date('1791-12-26T00:00:00Z'),
    location: { longitude: -0.1276, latitude: 51.5072 }, bio: 'Designed the Difference Engine and the Analytical Engine', skills: ['math', 'mechanics'] },
  { id: 'grace', name: 'Grace Hopper', team: 'compilers', age: 85, verified: true, born: new Date('1906-12-09T00:00:00Z'),
    location: { longitude: -77.0369, latitude: 38.9072 }, bio: 'Wrote the first compiler', skills: ['compilers', 'navy'] },
  { id: 'alan', name: 'Alan Turing', team: 'codes', age: 41, verified: true, born: new Date('1912-06-23T00:00:00Z'),
    location: { longitude: -2.2426, latitude: 53.4808 }, bio: 'Broke codes and defined computability', skills: ['math', 'codes'] },
];

function schema(name, dataStructure) {
  return new Schema(name, {
    name: { type: 'string' },
    team: { type: 'string' },
    age: { type: 'number', sortable: true },
    verified: { type: 'boolean' },
    born: { type: 'date', sortable: true },
    location: { type: 'point' },
    bio: { type: 'text' },
    skills: { type: 'string[]' },
  }, { dataStructure });
}

const idsOf = (entities) => entities.map((e) => e[EntityId]);
const sorted = (a) => [...a].sort();

async function checkSearch(repo, label) {
  await repo.createIndex();
  for (const { id, ...person } of PEOPLE) await repo.save(id, person);

  assert.equal(await repo.search().count(), 4, `${label}: count all`);
  // TAG (string), boolean, number, date.
  assert.deepEqual(sorted(idsOf(await repo.search().where('team').eq('engines').return.all())), ['ada', 'charles'], `${label}: string eq`);
  assert.deepEqual(sorted(idsOf(await repo.search().where('verified').is.false().return.all())), ['charles'], `${label}: boolean`);
  assert.deepEqual(sorted(idsOf(await repo.search().where('age').gte(41).and('age').lt(85).return.all())), ['alan', 'charles'], `${label}: number range`);
  assert.deepEqual(sorted(idsOf(await repo.search().where('born').after(new Date('1900-01-01T00:00:00Z')).return.all())), ['alan', 'grace'], `${label}: date`);
  // TEXT, stemmed and fuzzy; arrays; geo.
  assert.deepEqual(sorted(idsOf(await repo.search().where('bio').matches('engines').return.all())), ['ada', 'charles'], `${label}: text (stemmed)`);
  assert.deepEqual(idsOf(await repo.search().where('bio').matches('compiler').return.all()), ['grace'], `${label}: text`);
  assert.deepEqual(idsOf(await repo.search().where('bio').matches('compilr', { fuzzyMatching: true }).return.all()), ['grace'], `${label}: fuzzy text`);
  assert.deepEqual(sorted(idsOf(await repo.search().where('skills').contains('math').return.all())), ['ada', 'alan', 'charles'], `${label}: array contains`);
  assert.deepEqual(sorted(idsOf(await repo.search().where('skills').containsOneOf('navy', 'codes').return.all())), ['alan', 'grace'], `${label}: contains one of`);
  assert.deepEqual(sorted(idsOf(await repo.search().where('location').inRadius((c) => c.origin(-0.1276, 51.5072).radius(300).kilometers).return.all())),
    ['ada', 'alan', 'charles'], `${label}: within 300 km of London`);
  // and / or / sub-search / not.
  const s = repo.search().where('team').eq('engines').and((sub) => sub.where('age').lt(40).or('verified').is.false());
  assert.deepEqual(sorted(idsOf(await s.return.all())), ['ada', 'charles'], `${label}: sub-search`);
  assert.deepEqual(sorted(idsOf(await repo.search().where('skills').contains('math').and('team').not.eq('engines').return.all())), ['alan'], `${label}: not`);
  // sortBy, page, first, min/max.
  assert.deepEqual(idsOf(await repo.search().sortBy('age', 'DESC').return.all()), ['grace', 'charles', 'alan', 'ada'], `${label}: sortBy age DESC`);
  assert.deepEqual(idsOf(await repo.search().sortBy('born').return.page(1, 2)), ['ada', 'grace'], `${label}: page after sortBy born`);
  assert.equal((await repo.search().where('team').eq('codes').return.first())[EntityId], 'alan');
  assert.equal((await repo.search().return.max('age'))[EntityId], 'grace', `${label}: max`);
  assert.equal(await repo.search().return.minId('age'), 'ada', `${label}: minId`);
  const found = await repo.search().where('name').eq('Grace Hopper').return.first();
  assert.equal(found.age, 85);
  assert.deepEqual(found.skills, ['compilers', 'navy']);
  assert.equal(found.born.getTime(), PEOPLE[2].born.getTime());

  // Changes are visible to the next search; dropIndex() keeps the entities.
  const alan = await repo.fetch('alan');
  alan.team = 'engines';
  await repo.save(alan);
  assert.equal(await repo.search().where('team').eq('engines').return.count(), 3, `${label}: after an update`);
  await repo.remove('ada');
  assert.equal(await repo.search().where('team').eq('engines').return.count(), 2, `${label}: after a remove`);
  await repo.dropIndex();
  await assert.rejects(repo.search().return.count(), /no such index/i);
  assert.equal((await repo.fetch('grace')).name, 'Grace Hopper');
}

test('redis-om search on hashes', async () => {
  await dropAllIndexes(om.redis);
  await om.redis.flushAll();
  await checkSearch(new Repository(schema('om-hash', 'HASH'), om), 'HASH');
});

test('redis-om search on JSON documents', async (t) => {
  if (noJson) return t.skip('the reference has no JSON module');
  await dropAllIndexes(om.redis);
  await om.redis.flushAll();
  await checkSearch(new Repository(schema('om-json', 'JSON'), om), 'JSON');
});
