// HotKV AI helpers over node-redis: SemanticCache, PromptCache and AgentMemory.
//
// Thin wrappers over HotKV's SCACHE.*, PCACHE.* and MEM.* commands (docs/ai.md): one
// method, one command, one round trip, through `client.sendCommand(args, options)`.
// Works with node-redis v5 and v6 (RESP2 or RESP3; the helpers pass their own
// typeMapping, so a client's withTypeMapping does not change what they return) and v4
// (RESP2). Vectors are arrays of numbers or typed arrays, sent as little-endian FP32 blobs.
//
//   import { createClient } from 'redis';
//   import { SemanticCache } from './hotkv-ai.mjs';
//   const cache = new SemanticCache(client, 'llmcache');
//   await cache.create(768, { threshold: 0.92, ttl: 86400, existOk: true });
//   const hit = await cache.get(await embed(q), { prompt: q });
//   if (!hit) await cache.set(await embed(q), answer, { prompt: q });

/** @typedef {number[] | Float32Array | Float64Array | ArrayLike<number> | Buffer} Vector */
/** @typedef {Record<string, unknown> | string} Attrs  object (sent as JSON) or JSON text */
/** @typedef {string | Buffer} Key */

// RESP type codes (node-redis's RESP_TYPES): maps arrive as flat [k, v, ...] arrays and
// doubles as text in both protocols; PCACHE values as Buffers.
const MAP = 37, DOUBLE = 44, BLOB_STRING = 36;
const TEXT = { typeMapping: { [MAP]: Array, [DOUBLE]: String } };
const BINARY = { typeMapping: { [MAP]: Array, [DOUBLE]: String, [BLOB_STRING]: Buffer },
  returnBuffers: true /* node-redis v4 */ };

/**
 * Packs a vector as a little-endian float32 blob.
 * @param {Vector} vector
 * @returns {Buffer}
 */
export function fp32(vector) {
  if (Buffer.isBuffer(vector)) return vector;
  const n = vector.length;
  const buf = Buffer.allocUnsafe(4 * n);
  for (let i = 0; i < n; i++) buf.writeFloatLE(Number(vector[i]), 4 * i);
  return buf;
}

/**
 * Packs token ids as little-endian u32.
 * @param {ArrayLike<number> | Uint32Array | Buffer} tokens
 * @returns {Buffer}
 */
export function u32(tokens) {
  if (Buffer.isBuffer(tokens)) return tokens;
  const n = tokens.length;
  const buf = Buffer.allocUnsafe(4 * n);
  for (let i = 0; i < n; i++) buf.writeUInt32LE(Number(tokens[i]), 4 * i);
  return buf;
}

const str = (v) => (v === null || v === undefined ? null
  : Buffer.isBuffer(v) ? v.toString('utf8') : String(v));
const num = (v) => (v === null || v === undefined ? null
  : Number(Buffer.isBuffer(v) ? v.toString() : v));
const arg = (v) => (Buffer.isBuffer(v) ? v : typeof v === 'string' ? v : String(v));

/** A reply map (flat array, Map or object) as a plain object with string keys. */
function toMap(reply) {
  if (reply === null || reply === undefined) return {};
  const out = {};
  if (Array.isArray(reply)) {
    for (let i = 0; i + 1 < reply.length; i += 2) out[str(reply[i])] = reply[i + 1];
  } else if (reply instanceof Map) {
    for (const [k, v] of reply) out[str(k)] = v;
  } else {
    Object.assign(out, reply);
  }
  return out;
}

function attrsArg(attrs) {
  return attrs === undefined || attrs === null ? undefined
    : typeof attrs === 'string' ? attrs : JSON.stringify(attrs);
}

function attrsVal(v) {
  const s = str(v);
  if (s === null || s === '') return null;
  try { return JSON.parse(s); } catch { return s; }
}

/** A FILTER expression, or an object of field == value conditions joined with `and`. */
function filterArg(f) {
  if (f === undefined || f === null) return undefined;
  if (typeof f === 'string') return f;
  return Object.entries(f).map(([k, v]) => `.${k} == ${JSON.stringify(v)}`).join(' and ');
}

const csv = (v) => (v === undefined || v === null ? undefined
  : typeof v === 'string' ? v : [...v].join(','));

/** [NAME, value] when value is given, else []. */
const opt = (name, value) => (value === undefined || value === null ? [] : [name, value]);

function infoObject(reply, floats = [], texts = []) {
  const m = toMap(reply);
  const out = {};
  for (const [k, v] of Object.entries(m)) {
    if (texts.includes(k)) out[k] = str(v);
    else if (typeof v === 'number' || floats.includes(k)) out[k] = num(v);
    else out[k] = Number.isNaN(num(v)) ? str(v) : num(v);   // an unknown text field stays text
  }
  return out;
}

class Base {
  /**
   * @param {{ sendCommand: Function }} client  a connected node-redis client
   * @param {string} name  the key of the cache / namespace
   */
  constructor(client, name) {
    this.client = client;
    this.name = name;
  }

  /** @protected */
  _cmd(args, options = TEXT) {
    return this.client.sendCommand(args.map(arg), options);
  }

  /** @protected */
  async _create(cmd, args, existOk) {
    try {
      await this._cmd([cmd, this.name, ...args]);
      return true;
    } catch (e) {
      if (!(existOk && /already exists/.test(e?.message ?? ''))) throw e;
    }
    const type = this.constructor.keyType;
    if (str(await this._cmd(['TYPE', this.name])) !== type) {
      throw new Error(`WRONGTYPE ${this.name} exists and is not a ${type} key`);
    }
    return false;
  }

  /** Deletes the whole key. @returns {Promise<boolean>} */
  async drop() { return (await this._cmd(['DEL', this.name])) === 1; }

  /** @returns {Promise<boolean>} */
  async exists() { return (await this._cmd(['EXISTS', this.name])) === 1; }
}

// ---------------------------------------------------------------------- semantic cache

/**
 * @typedef {object} CacheHit
 * @property {string} response
 * @property {number} id
 * @property {'exact'|'semantic'} strategy
 * @property {number} score       similarity (1 for an exact hit)
 * @property {string|null} prompt
 * @property {unknown} attrs      parsed JSON, or null
 */

/**
 * @typedef {object} SemanticCacheInfo
 * @property {number} entries @property {number} dim @property {string} metric
 * @property {string} type @property {number} threshold @property {number} ttl
 * @property {number} maxentries @property {number} hits @property {number} hits_exact
 * @property {number} hits_semantic @property {number} misses @property {number} hit_ratio
 * @property {number} evictions @property {number} expirations @property {number} memory
 */

/** A semantic LLM-response cache (SCACHE.*): exact prompt match, then by similarity. */
export class SemanticCache extends Base {
  static keyType = 'scache';

  /**
   * SCACHE.CREATE; false when it exists and existOk.
   * @param {number} dim
   * @param {{metric?: string, type?: string, threshold?: number, ttl?: number,
   *   maxEntries?: number, m?: number, ef?: number, existOk?: boolean}} [o]
   * @returns {Promise<boolean>}
   */
  create(dim, o = {}) {
    return this._create('SCACHE.CREATE', ['DIM', dim, ...opt('METRIC', o.metric),
      ...opt('TYPE', o.type), ...opt('THRESHOLD', o.threshold), ...opt('TTL', o.ttl),
      ...opt('MAXENTRIES', o.maxEntries), ...opt('M', o.m), ...opt('EF', o.ef)], o.existOk);
  }

  /**
   * Stores a response; resolves to the entry id.
   * @param {Vector} vector
   * @param {string|Buffer} response
   * @param {{prompt?: string, attrs?: Attrs, ttl?: number}} [o]
   * @returns {Promise<number>}
   */
  async set(vector, response, o = {}) {
    return Number(await this._cmd(['SCACHE.SET', this.name, 'FP32', fp32(vector), response,
      ...opt('PROMPT', o.prompt), ...opt('ATTRS', attrsArg(o.attrs)), ...opt('TTL', o.ttl)]));
  }

  /**
   * The best hit at or above the threshold (refreshing its TTL), or null.
   * @param {Vector} vector
   * @param {{prompt?: string, threshold?: number, filter?: string|Record<string, unknown>}} [o]
   * @returns {Promise<CacheHit|null>}
   */
  async get(vector, o = {}) {
    const reply = await this._cmd(['SCACHE.GET', this.name, 'FP32', fp32(vector),
      ...opt('PROMPT', o.prompt), ...opt('THRESHOLD', o.threshold),
      ...opt('FILTER', filterArg(o.filter)), 'WITHSCORE', 'WITHPROMPT', 'WITHATTRS']);
    if (reply === null || reply === undefined) return null;
    const d = toMap(reply);
    return { response: str(d.response), id: num(d.id), strategy: str(d.strategy),
      score: num(d.score), prompt: str(d.prompt), attrs: attrsVal(d.attrs) };
  }

  /** @param {number} id @returns {Promise<boolean>} */
  async delete(id) { return (await this._cmd(['SCACHE.DEL', this.name, id])) === 1; }

  /** Removes every entry; resolves to how many. @returns {Promise<number>} */
  async flush() { return Number(await this._cmd(['SCACHE.FLUSH', this.name])); }

  /** @returns {Promise<SemanticCacheInfo>} */
  async info() {
    return infoObject(await this._cmd(['SCACHE.INFO', this.name]),
      ['threshold', 'hit_ratio'], ['metric', 'type']);
  }
}

// ------------------------------------------------------------------------ prompt cache

/**
 * @typedef {object} PromptCacheInfo
 * @property {number} blocks @property {number} bytes @property {number} budget
 * @property {number} ttl @property {number} hits @property {number} misses
 * @property {number} evictions @property {number} expirations @property {number} memory
 */

/** A prefix (KV-block) cache for LLM serving (PCACHE.*): values are Buffers. */
export class PromptCache extends Base {
  static keyType = 'pcache';

  /**
   * PCACHE.CREATE with a byte budget (0: none) and a default block TTL.
   * @param {{budget?: number, ttl?: number, existOk?: boolean}} [o]
   * @returns {Promise<boolean>}
   */
  create(o = {}) {
    return this._create('PCACHE.CREATE', [...opt('BUDGET', o.budget), ...opt('TTL', o.ttl)],
      o.existOk);
  }

  /** PCACHE.CONFIG (a lower budget evicts at once). @param {{budget?: number, ttl?: number}} o */
  async configure(o) {
    await this._cmd(['PCACHE.CONFIG', this.name, ...opt('BUDGET', o.budget), ...opt('TTL', o.ttl)]);
  }

  /** @param {number} budget bytes */
  setBudget(budget) { return this.configure({ budget }); }

  /**
   * @param {Key} block
   * @param {string|Buffer} value
   * @param {{parent?: Key, ttl?: number}} [o]
   */
  async put(block, value, o = {}) {
    await this._cmd(['PCACHE.PUT', this.name, block, value, ...opt('PARENT', o.parent),
      ...opt('TTL', o.ttl)]);
  }

  /**
   * Stores values[i] as block i of `tokens` (blockSize tokens each) and resolves to the
   * keys the server hashed; sends min(full blocks, values.length) blocks.
   * @param {ArrayLike<number>|Uint32Array|Buffer} tokens
   * @param {number} blockSize
   * @param {Array<string|Buffer>} values
   * @param {{parent?: Key, ttl?: number}} [o]
   * @returns {Promise<string[]>}
   */
  async putTokens(tokens, blockSize, values, o = {}) {
    let blob = u32(tokens);
    let vals = [...values];
    if (blockSize > 0) {
      const n = Math.min(Math.floor(blob.length / (4 * blockSize)), vals.length);
      blob = blob.subarray(0, n * 4 * blockSize);
      vals = vals.slice(0, n);
    }
    const reply = await this._cmd(['PCACHE.PUTTOKENS', this.name, ...opt('PARENT', o.parent),
      ...opt('TTL', o.ttl), 'TOKENS', blob, 'BLOCK', blockSize, ...vals]);
    return reply.map(str);
  }

  /**
   * How many of `blocks`, from the first, are present (one round trip).
   * @param {Key[]} blocks
   * @returns {Promise<number>}
   */
  async longest(blocks) {
    if (blocks.length === 0) return 0;
    const keys = blocks.map((b) => (Buffer.isBuffer(b) ? b : Buffer.from(String(b))));
    const width = keys[0].length;
    if (keys.length > 1 && width > 0 && width <= 1024 && keys.every((k) => k.length === width)) {
      return Number(await this._cmd(['PCACHE.LONGESTBLOB', this.name, width, Buffer.concat(keys)]));
    }
    return Number(await this._cmd(['PCACHE.LONGEST', this.name, ...keys]));
  }

  /** @param {Key} block @returns {Promise<Buffer|null>} */
  get(block) { return this._cmd(['PCACHE.GET', this.name, block], BINARY); }

  /** @param {Key[]} blocks @returns {Promise<Array<Buffer|null>>} */
  async mget(blocks) {
    return blocks.length ? this._cmd(['PCACHE.MGET', this.name, ...blocks], BINARY) : [];
  }

  /**
   * The values of the longest present prefix of `blocks` (LONGEST, then MGET).
   * @param {Key[]} blocks
   * @returns {Promise<Buffer[]>}
   */
  async loadPrefix(blocks) {
    const n = await this.longest(blocks);
    return n ? (await this.mget(blocks.slice(0, n))).filter((v) => v !== null) : [];
  }

  /** Removes blocks and their descendants. @param {...Key} blocks @returns {Promise<number>} */
  async delete(...blocks) {
    return blocks.length ? Number(await this._cmd(['PCACHE.DEL', this.name, ...blocks])) : 0;
  }

  /** @returns {Promise<PromptCacheInfo>} */
  async info() { return infoObject(await this._cmd(['PCACHE.INFO', this.name])); }
}

// ------------------------------------------------------------------------ agent memory

/**
 * @typedef {object} Memory
 * @property {string} id @property {string} text @property {string|null} user
 * @property {string|null} session @property {string} type
 * @property {string[]} topics @property {string[]} entities
 * @property {unknown} attrs  parsed JSON, or null
 * @property {number} created_at @property {number} updated_at
 * @property {number} last_accessed  ms since the epoch @property {number} access_count
 * @property {number} [similarity]  search only @property {number} [score]  search only
 */

/** @typedef {{role: string, content: string, at: number}} Message */
/** @typedef {{count: number, memoryId: string|null}} AppendResult */

/**
 * @typedef {object} MemoryFilters
 * @property {string} [user] @property {string} [session] @property {string} [type]
 * @property {string|string[]} [topics] @property {string|string[]} [entities]
 * @property {string|Record<string, unknown>} [filter]
 */

function memory(reply) {
  const d = toMap(reply);
  const m = {
    id: str(d.id), text: str(d.text), user: str(d.user), session: str(d.session),
    type: str(d.type), topics: (d.topics ?? []).map(str), entities: (d.entities ?? []).map(str),
    attrs: attrsVal(d.attrs), created_at: num(d.created_at), updated_at: num(d.updated_at),
    last_accessed: num(d.last_accessed), access_count: num(d.access_count),
  };
  if (d.similarity !== undefined) m.similarity = num(d.similarity);
  if (d.score !== undefined) m.score = num(d.score);
  return m;
}

/** @param {MemoryFilters} f */
const filters = (f = {}) => [...opt('USER', f.user), ...opt('SESSION', f.session),
  ...opt('TYPE', f.type), ...opt('TOPICS', csv(f.topics)), ...opt('ENTITIES', csv(f.entities)),
  ...opt('FILTER', filterArg(f.filter))];

/** Agent memory (MEM.*): long-term memories ranked by similarity and recency, and
 *  per-session working memory. */
export class AgentMemory extends Base {
  static keyType = 'memory';

  /**
   * MEM.CREATE (optional: the first add creates a namespace with the defaults).
   * @param {{dim?: number, metric?: string, weights?: [number, number],
   *   freshness?: [number, number], novelty?: [number, number], touchInterval?: number,
   *   sessionTtl?: number, m?: number, ef?: number, existOk?: boolean}} [o]
   * @returns {Promise<boolean>}
   */
  create(o = {}) {
    return this._create('MEM.CREATE', [...opt('DIM', o.dim), ...opt('METRIC', o.metric),
      ...(o.weights ? ['WEIGHTS', ...o.weights] : []),
      ...(o.freshness ? ['FRESHNESS', ...o.freshness] : []),
      ...(o.novelty ? ['NOVELTY', ...o.novelty] : []),
      ...opt('TOUCH-INTERVAL', o.touchInterval), ...opt('SESSION-TTL', o.sessionTtl),
      ...opt('M', o.m), ...opt('EF', o.ef)], o.existOk);
  }

  /**
   * MEM.CONFIG: new ranking weights, half-lives, touch interval, default session TTL
   * (sessions started later) or search EF; dim, metric and M stay as created.
   * @param {{weights?: [number, number], freshness?: [number, number],
   *   novelty?: [number, number], touchInterval?: number, sessionTtl?: number,
   *   ef?: number}} o
   */
  async configure(o) {
    await this._cmd(['MEM.CONFIG', this.name,
      ...(o.weights ? ['WEIGHTS', ...o.weights] : []),
      ...(o.freshness ? ['FRESHNESS', ...o.freshness] : []),
      ...(o.novelty ? ['NOVELTY', ...o.novelty] : []),
      ...opt('TOUCH-INTERVAL', o.touchInterval), ...opt('SESSION-TTL', o.sessionTtl),
      ...opt('EF', o.ef)]);
  }

  /**
   * Adds a memory (or updates its exact / DEDUP-similar duplicate); resolves to its id.
   * @param {Vector} vector
   * @param {string} text
   * @param {MemoryFilters & {attrs?: Attrs, id?: string, dedup?: number}} [o]
   * @returns {Promise<string>}
   */
  async add(vector, text, o = {}) {
    return str(await this._cmd(['MEM.ADD', this.name, 'FP32', fp32(vector), text,
      ...filters({ ...o, filter: undefined }), ...opt('ATTRS', attrsArg(o.attrs)),
      ...opt('ID', o.id), ...opt('DEDUP', o.dedup)]));
  }

  /**
   * The k best memories by similarity and recency, best first. `recency: [w, freshness_s,
   * novelty_s]` overrides the ranking for this search ([0, 1, 1]: similarity alone).
   * @param {Vector} vector
   * @param {MemoryFilters & {k?: number, threshold?: number,
   *   recency?: [number, number, number], ef?: number}} [o]
   * @returns {Promise<Memory[]>}
   */
  async search(vector, o = {}) {
    const reply = await this._cmd(['MEM.SEARCH', this.name, 'FP32', fp32(vector),
      ...opt('K', o.k), ...filters(o), ...opt('THRESHOLD', o.threshold),
      ...(o.recency ? ['RECENCY', ...o.recency] : []), ...opt('EF', o.ef)]);
    return reply.map(memory);
  }

  /** @param {string} id @returns {Promise<Memory|null>} */
  async get(id) {
    const reply = await this._cmd(['MEM.GET', this.name, id]);
    return reply === null || reply === undefined ? null : memory(reply);
  }

  /**
   * Changes the given fields; false when there is no such memory.
   * @param {string} id
   * @param {Omit<MemoryFilters, 'filter'> & {text?: string, vector?: Vector, attrs?: Attrs}} o
   * @returns {Promise<boolean>}
   */
  async update(id, o) {
    return (await this._cmd(['MEM.UPDATE', this.name, id, ...opt('TEXT', o.text),
      ...(o.vector !== undefined ? ['FP32', fp32(o.vector)] : []),
      ...filters({ ...o, filter: undefined }), ...opt('ATTRS', attrsArg(o.attrs))])) === 1;
  }

  /** @param {...string} ids @returns {Promise<number>} */
  async delete(...ids) {
    return ids.length ? Number(await this._cmd(['MEM.DEL', this.name, ...ids])) : 0;
  }

  /**
   * Iterates over the matching memories in insertion order (MEM.LIST pages).
   * @param {MemoryFilters & {count?: number}} [o]
   * @returns {AsyncGenerator<Memory>}
   */
  async* list(o = {}) {
    let cursor = '0';
    do {
      const [next, page] = await this._cmd(['MEM.LIST', this.name, ...filters(o),
        'CURSOR', cursor, ...opt('COUNT', o.count)]);
      cursor = str(next);
      for (const m of page) yield memory(m);
    } while (cursor !== '0');
  }

  /** @param {MemoryFilters} [o] @returns {Promise<number>} */
  async count(o = {}) { return Number(await this._cmd(['MEM.COUNT', this.name, ...filters(o)])); }

  /**
   * Removes memories created more than `older` s ago and/or last accessed more than
   * `inactive` s ago among those matching the filters; resolves to how many.
   * @param {MemoryFilters & {older?: number, inactive?: number}} o
   * @returns {Promise<number>}
   */
  async forget(o) {
    return Number(await this._cmd(['MEM.FORGET', this.name, ...opt('OLDER', o.older),
      ...opt('INACTIVE', o.inactive), ...filters(o)]));
  }

  /** @returns {Promise<Record<string, number|string>>} */
  async info() {
    return infoObject(await this._cmd(['MEM.INFO', this.name]),
      ['similarity_weight', 'recency_weight', 'freshness_weight', 'novelty_weight'], ['metric']);
  }

  /**
   * Appends a message; with `promote` (its vector) also adds it as a memory.
   * @param {string} session @param {string} role @param {string} content
   * @param {{ttl?: number, user?: string, promote?: Vector}} [o]
   * @returns {Promise<AppendResult>}
   */
  async sessionAppend(session, role, content, o = {}) {
    const reply = await this._cmd(['MEM.SESSION.APPEND', this.name, session, role, content,
      ...opt('TTL', o.ttl), ...opt('USER', o.user),
      ...(o.promote !== undefined ? ['PROMOTE', 'FP32', fp32(o.promote)] : [])]);
    return Array.isArray(reply) ? { count: Number(reply[0]), memoryId: str(reply[1]) }
      : { count: Number(reply), memoryId: null };
  }

  /**
   * Appends a message and adds it as a long-term memory in the same call.
   * @param {string} session @param {string} role @param {string} content
   * @param {Vector} vector @param {{ttl?: number, user?: string}} [o]
   * @returns {Promise<AppendResult>}
   */
  sessionPromote(session, role, content, vector, o = {}) {
    return this.sessionAppend(session, role, content, { ...o, promote: vector });
  }

  /**
   * The session's messages (the last `last`), oldest first.
   * @param {string} session @param {{last?: number}} [o]
   * @returns {Promise<Message[]>}
   */
  async sessionGet(session, o = {}) {
    const reply = await this._cmd(['MEM.SESSION.GET', this.name, session, ...opt('LAST', o.last)]);
    return reply.map((m) => {
      const d = toMap(m);
      return { role: str(d.role), content: str(d.content), at: num(d.at) };
    });
  }

  /** @param {string} session @returns {Promise<boolean>} */
  async sessionClear(session) {
    return (await this._cmd(['MEM.SESSION.CLEAR', this.name, session])) === 1;
  }
}
