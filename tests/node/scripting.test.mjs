// Lua scripts through the npm clients: ioredis defineCommand (EVALSHA with the NOSCRIPT ->
// EVAL fallback, pipelines) and node-redis defineScript (createClient({ scripts })).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import Redis from 'ioredis';
import { createClient, defineScript } from 'redis';
import { startServer } from './server.mjs';

let server;
before(async () => { server = await startServer(); });
after(async () => { await server.stop(); });

const RATE_LIMIT = `
local n = redis.call('INCR', KEYS[1])
if n == 1 then redis.call('EXPIRE', KEYS[1], ARGV[1]) end
return n`;

test('ioredis: defineCommand, EVALSHA fallback, pipeline', async () => {
  const r = new Redis(server.port, '127.0.0.1', { lazyConnect: true });
  await r.connect();
  try {
    await r.script('FLUSH');
    r.defineCommand('rateLimit', { numberOfKeys: 1, lua: RATE_LIMIT });
    assert.equal(await r.rateLimit('lua:rl', 60), 1);
    assert.equal(await r.rateLimit('lua:rl', 60), 2);
    const ttl = await r.ttl('lua:rl');
    assert.ok(ttl > 0 && ttl <= 60);
    const res = await r.pipeline().rateLimit('lua:rl2', 10).rateLimit('lua:rl2', 10).exec();
    assert.deepEqual(res, [[null, 1], [null, 2]]);
    r.defineCommand('echoArgs', { numberOfKeys: 2, lua: 'return {KEYS[1], KEYS[2], ARGV[1]}' });
    assert.deepEqual(await r.echoArgs('a', 'b', 'c'), ['a', 'b', 'c']);
    r.defineCommand('fails', { numberOfKeys: 0, lua: "return redis.call('nosuch')" });
    await assert.rejects(r.fails(), /Unknown Redis command called from script/);
  } finally {
    r.disconnect();
  }
});

test('node-redis: scripts in createClient, RESP2 and RESP3', async () => {
  const rateLimit = defineScript({
    SCRIPT: RATE_LIMIT,
    NUMBER_OF_KEYS: 1,
    parseCommand(parser, key, seconds) {
      parser.pushKey(key);
      parser.push(seconds.toString());
    },
    transformReply(reply) { return reply; },
  });
  for (const RESP of [2, 3]) {
    const c = createClient({ url: server.url, RESP, scripts: { rateLimit } });
    await c.connect();
    try {
      await c.scriptFlush();
      assert.equal(await c.rateLimit(`lua:nr${RESP}`, 30), 1);
      assert.equal(await c.rateLimit(`lua:nr${RESP}`, 30), 2);
      assert.equal(await c.eval("return redis.call('GET', KEYS[1])",
        { keys: [`lua:nr${RESP}`] }), '2');
      const sha = await c.scriptLoad('return ARGV[1]');
      assert.equal(await c.evalSha(sha, { arguments: ['x'] }), 'x');
    } finally {
      await c.close();
    }
  }
});
