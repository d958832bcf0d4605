"""HotKV AI helpers over redis-py: SemanticCache, PromptCache and AgentMemory.

Thin, typed wrappers over HotKV's SCACHE.*, PCACHE.* and MEM.* commands (docs/ai.md):
one method, one command, one round trip. Works with redis-py 4.3+ (RESP2) and redis-py
5+ (RESP2 or ``protocol=3``), with or without ``decode_responses``. Vectors are lists of
floats or numpy arrays (numpy is optional) and travel as little-endian FP32 blobs.

    import redis, hotkv_ai
    r = redis.Redis()
    cache = hotkv_ai.SemanticCache(r, "llmcache")
    cache.create(dim=768, threshold=0.92, ttl=86400, exist_ok=True)
    hit = cache.get(embed(q), prompt=q)
    if hit is None:
        cache.set(embed(q), answer, prompt=q)
"""
from __future__ import annotations

import ctypes
import json
import struct
from dataclasses import dataclass, field, fields
from typing import Any, Dict, Iterable, Iterator, List, Mapping, Optional, Sequence, Tuple, Union

try:  # numpy is optional: vectors may be plain lists of floats.
    import numpy as _np
except ImportError:  # pragma: no cover
    _np = None

try:
    from redis.exceptions import ResponseError
except ImportError:  # pragma: no cover
    ResponseError = Exception

__all__ = [
    "SemanticCache", "PromptCache", "AgentMemory", "CacheHit", "SemanticCacheInfo",
    "PromptCacheInfo", "Memory", "MemoryInfo", "Message", "AppendResult", "fp32",
    "block_keys",
]

# redis-py reads the reply without decoding when this option is given (4.x and 5.x):
# the helpers decode themselves, so the client's decode_responses does not matter.
_RAW = {"NEVER_DECODE": True}

Vector = Union[Sequence[float], Any]  # list/tuple of floats or a 1-D numpy array
Attrs = Union[Mapping[str, Any], str, None]


# ---------------------------------------------------------------------------- helpers

def fp32(vector: Vector) -> bytes:
    """Packs a vector (floats or a numpy array) as a little-endian float32 blob."""
    if isinstance(vector, (bytes, bytearray, memoryview)):
        return bytes(vector)
    if _np is not None and isinstance(vector, _np.ndarray):
        return _np.ascontiguousarray(vector, dtype="<f4").reshape(-1).tobytes()
    vals = [float(v) for v in vector]
    return struct.pack(f"<{len(vals)}f", *vals)


def _u32(tokens) -> bytes:
    if isinstance(tokens, (bytes, bytearray, memoryview)):
        return bytes(tokens)
    if _np is not None and isinstance(tokens, _np.ndarray):
        return _np.ascontiguousarray(tokens, dtype="<u4").reshape(-1).tobytes()
    vals = [int(t) for t in tokens]
    return struct.pack(f"<{len(vals)}I", *vals)


def _s(v):
    """bytes -> str (UTF-8); anything else unchanged."""
    if isinstance(v, (bytes, bytearray)):
        return bytes(v).decode("utf-8")
    return v


def _text(v):
    """A stored text: str when it is UTF-8, else the bytes as they are."""
    if isinstance(v, (bytes, bytearray)):
        try:
            return bytes(v).decode("utf-8")
        except UnicodeDecodeError:
            return bytes(v)
    return v


def _num(v, kind=float):
    if v is None:
        return None
    return kind(_s(v)) if isinstance(v, (bytes, bytearray, str)) else kind(v)


def _map(reply) -> Dict[str, Any]:
    """A RESP3 map (dict) or a RESP2 flat [k, v, k, v, ...] list -> dict with str keys."""
    if reply is None:
        return {}
    if isinstance(reply, dict):
        items = reply.items()
    else:
        items = zip(reply[0::2], reply[1::2])
    return {_s(k): v for k, v in items}


def _attrs_arg(attrs: Attrs) -> Optional[str]:
    if attrs is None:
        return None
    return attrs if isinstance(attrs, str) else json.dumps(attrs, separators=(",", ":"))


def _attrs_val(v):
    v = _s(v)
    if v is None or v == "":
        return None
    try:
        return json.loads(v)
    except ValueError:
        return v


def _filter_arg(flt) -> Optional[str]:
    """A FILTER expression, or a dict of field == value conditions joined with `and`."""
    if flt is None:
        return None
    if isinstance(flt, str):
        return flt
    return " and ".join(f".{k} == {json.dumps(v)}" for k, v in flt.items())


def _csv(v) -> str:
    return v if isinstance(v, str) else ",".join(v)


def _build(cls, d: Dict[str, Any], conv: Mapping[str, Any]):
    """A dataclass from a reply map: known fields converted, the whole map kept in raw."""
    kw = {}
    for f in fields(cls):
        if f.name in d and f.name != "raw":
            fn = conv.get(f.name)
            kw[f.name] = fn(d[f.name]) if fn else d[f.name]
    kw["raw"] = {k: _s(v) for k, v in d.items()}
    return cls(**kw)


class _Base:
    def __init__(self, client, name: str):
        self.client = client
        self.name = name

    def _cmd(self, *args):
        return self.client.execute_command(*args, **_RAW)

    def drop(self) -> bool:
        """Deletes the whole key (cache or namespace)."""
        return bool(self.client.delete(self.name))

    def exists(self) -> bool:
        return bool(self.client.exists(self.name))

    _type = ""  # the key's TYPE

    def _create(self, cmd, args, exist_ok):
        try:
            self._cmd(cmd, self.name, *args)
            return True
        except ResponseError as e:
            if not (exist_ok and "already exists" in str(e)):
                raise
        if _s(self._cmd("TYPE", self.name)) != self._type:
            raise ResponseError(f"WRONGTYPE {self.name} exists and is not a {self._type} key")
        return False


def _opt(name, value):
    return () if value is None else (name, value)


# ---------------------------------------------------------------------- semantic cache

@dataclass
class CacheHit:
    """A SCACHE.GET hit: the response and how it was found."""
    response: Union[str, bytes]
    id: int
    strategy: str            # "exact" or "semantic"
    score: float             # similarity (1 for an exact hit)
    prompt: Optional[str] = None
    attrs: Any = None


@dataclass
class SemanticCacheInfo:
    entries: int = 0
    dim: int = 0
    metric: str = ""
    type: str = ""
    threshold: float = 0.0
    ttl: int = 0
    maxentries: int = 0
    hits: int = 0
    hits_exact: int = 0
    hits_semantic: int = 0
    misses: int = 0
    hit_ratio: float = 0.0
    evictions: int = 0
    expirations: int = 0
    memory: int = 0
    raw: Dict[str, Any] = field(default_factory=dict)


class SemanticCache(_Base):
    """A semantic LLM-response cache (SCACHE.*): exact prompt match, then by similarity."""

    _type = "scache"

    def create(self, dim: int, *, metric: str = None, type: str = None,
               threshold: float = None, ttl: int = None, max_entries: int = None,
               m: int = None, ef: int = None, exist_ok: bool = False) -> bool:
        """SCACHE.CREATE; False when it exists and exist_ok (options then unchanged)."""
        args = ("DIM", dim, *_opt("METRIC", metric), *_opt("TYPE", type),
                *_opt("THRESHOLD", threshold), *_opt("TTL", ttl),
                *_opt("MAXENTRIES", max_entries), *_opt("M", m), *_opt("EF", ef))
        return self._create("SCACHE.CREATE", args, exist_ok)

    def set(self, vector: Vector, response: Union[str, bytes], *, prompt: str = None,
            attrs: Attrs = None, ttl: int = None) -> int:
        """Stores a response; returns the entry id."""
        return int(self._cmd("SCACHE.SET", self.name, "FP32", fp32(vector), response,
                             *_opt("PROMPT", prompt), *_opt("ATTRS", _attrs_arg(attrs)),
                             *_opt("TTL", ttl)))

    def get(self, vector: Vector, *, prompt: str = None, threshold: float = None,
            filter: Union[str, Mapping[str, Any], None] = None) -> Optional[CacheHit]:
        """The best hit at or above the threshold (refreshing its TTL), or None."""
        reply = self._cmd("SCACHE.GET", self.name, "FP32", fp32(vector),
                          *_opt("PROMPT", prompt), *_opt("THRESHOLD", threshold),
                          *_opt("FILTER", _filter_arg(filter)),
                          "WITHSCORE", "WITHPROMPT", "WITHATTRS")
        if reply is None:
            return None
        d = _map(reply)
        return CacheHit(response=_text(d["response"]), id=int(d["id"]),
                        strategy=_s(d["strategy"]), score=_num(d.get("score")),
                        prompt=_text(d.get("prompt")), attrs=_attrs_val(d.get("attrs")))

    def delete(self, entry_id: int) -> bool:
        return bool(self._cmd("SCACHE.DEL", self.name, entry_id))

    def flush(self) -> int:
        """Removes every entry (counters stay); returns how many."""
        return int(self._cmd("SCACHE.FLUSH", self.name))

    def info(self) -> SemanticCacheInfo:
        i = int
        return _build(SemanticCacheInfo, _map(self._cmd("SCACHE.INFO", self.name)), {
            "entries": i, "dim": i, "metric": _s, "type": _s, "threshold": _num,
            "ttl": i, "maxentries": i, "hits": i, "hits_exact": i, "hits_semantic": i,
            "misses": i, "hit_ratio": _num, "evictions": i, "expirations": i, "memory": i})


# ------------------------------------------------------------------------ prompt cache

@dataclass
class PromptCacheInfo:
    blocks: int = 0
    bytes: int = 0
    budget: int = 0
    ttl: int = 0
    hits: int = 0
    misses: int = 0
    evictions: int = 0
    expirations: int = 0
    memory: int = 0
    raw: Dict[str, Any] = field(default_factory=dict)


class _Hash128(ctypes.Structure):
    _fields_ = [("low64", ctypes.c_uint64), ("high64", ctypes.c_uint64)]


_xxh3 = None


def _xxh3_128_hex(data: bytes) -> str:
    global _xxh3
    if _xxh3 is None:
        try:
            import xxhash
            _xxh3 = xxhash.xxh3_128_hexdigest
        except ImportError:
            lib = ctypes.CDLL("libxxhash.so.0")
            lib.XXH3_128bits.restype = _Hash128
            lib.XXH3_128bits.argtypes = [ctypes.c_char_p, ctypes.c_size_t]

            def _h(b, _lib=lib):
                h = _lib.XXH3_128bits(b, len(b))
                return f"{h.high64:016x}{h.low64:016x}"
            _xxh3 = _h
    return _xxh3(data)


def block_keys(tokens, block_size: int, parent: Union[bytes, str] = b"") -> List[str]:
    """The PUTTOKENS block keys of the full blocks of `tokens` (docs/ai.md's hash chain).

    Needs the `xxhash` package or libxxhash.so.0."""
    blob = _u32(tokens)
    width = 4 * block_size
    prev = parent.encode() if isinstance(parent, str) else bytes(parent)
    keys = []
    for off in range(0, len(blob) - len(blob) % width, width):
        key = _xxh3_128_hex(prev + blob[off:off + width])
        keys.append(key)
        prev = key.encode()
    return keys


def _key(k) -> bytes:
    return k.encode() if isinstance(k, str) else bytes(k)


class PromptCache(_Base):
    """A prefix (KV-block) cache for LLM serving (PCACHE.*): values are bytes."""

    _type = "pcache"

    def create(self, *, budget: int = None, ttl: int = None, exist_ok: bool = False) -> bool:
        """PCACHE.CREATE with a byte budget (0: none) and a default block TTL."""
        return self._create("PCACHE.CREATE", (*_opt("BUDGET", budget), *_opt("TTL", ttl)),
                            exist_ok)

    def configure(self, *, budget: int = None, ttl: int = None) -> None:
        """PCACHE.CONFIG: a lower budget evicts at once."""
        self._cmd("PCACHE.CONFIG", self.name, *_opt("BUDGET", budget), *_opt("TTL", ttl))

    def set_budget(self, budget: int) -> None:
        self.configure(budget=budget)

    def put(self, block, value: bytes, *, parent=None, ttl: int = None) -> None:
        self._cmd("PCACHE.PUT", self.name, block, value, *_opt("PARENT", parent),
                  *_opt("TTL", ttl))

    def put_tokens(self, tokens, block_size: int, values: Sequence[bytes], *,
                   parent=None, ttl: int = None) -> List[str]:
        """Stores values[i] as block i of `tokens` (block_size tokens each); returns the
        keys the server hashed. Sends min(full blocks, len(values)) blocks: a trailing
        partial block (or one without a value) is not stored."""
        blob, values = _u32(tokens), list(values)
        if block_size > 0:
            n = min(len(blob) // (4 * block_size), len(values))
            blob, values = blob[:n * 4 * block_size], values[:n]
        reply = self._cmd("PCACHE.PUTTOKENS", self.name, *_opt("PARENT", parent),
                          *_opt("TTL", ttl), "TOKENS", blob, "BLOCK", block_size, *values)
        return [_s(k) for k in reply]

    def longest(self, blocks: Sequence) -> int:
        """How many of `blocks`, from the first, are present (one round trip)."""
        keys = [_key(b) for b in blocks]
        if not keys:
            return 0
        width = len(keys[0])
        if len(keys) > 1 and 0 < width <= 1024 and all(len(k) == width for k in keys):
            return int(self._cmd("PCACHE.LONGESTBLOB", self.name, width, b"".join(keys)))
        return int(self._cmd("PCACHE.LONGEST", self.name, *keys))

    def get(self, block) -> Optional[bytes]:
        return self._cmd("PCACHE.GET", self.name, block)

    def mget(self, blocks: Sequence) -> List[Optional[bytes]]:
        return list(self._cmd("PCACHE.MGET", self.name, *blocks)) if blocks else []

    def load_prefix(self, blocks: Sequence) -> List[bytes]:
        """The values of the longest present prefix of `blocks` (LONGEST, then MGET)."""
        n = self.longest(blocks)
        return [v for v in self.mget(list(blocks)[:n]) if v is not None] if n else []

    def delete(self, *blocks) -> int:
        """Removes blocks and their descendants; returns how many blocks went."""
        return int(self._cmd("PCACHE.DEL", self.name, *blocks)) if blocks else 0

    def info(self) -> PromptCacheInfo:
        conv = {k.name: int for k in fields(PromptCacheInfo) if k.name != "raw"}
        return _build(PromptCacheInfo, _map(self._cmd("PCACHE.INFO", self.name)), conv)


# ------------------------------------------------------------------------ agent memory

@dataclass
class Memory:
    """A long-term memory (similarity and score are set by search only)."""
    id: str
    text: Union[str, bytes]
    user: Optional[str] = None
    session: Optional[str] = None
    type: Optional[str] = None
    topics: List[str] = field(default_factory=list)
    entities: List[str] = field(default_factory=list)
    attrs: Any = None
    created_at: int = 0
    updated_at: int = 0
    last_accessed: int = 0
    access_count: int = 0
    similarity: Optional[float] = None
    score: Optional[float] = None


@dataclass
class MemoryInfo:
    memories: int = 0
    sessions: int = 0
    dim: int = 0
    metric: str = ""
    similarity_weight: float = 0.0
    recency_weight: float = 0.0
    freshness_weight: float = 0.0
    freshness_halflife: int = 0
    novelty_weight: float = 0.0
    novelty_halflife: int = 0
    touch_interval: int = 0
    session_ttl: int = 0
    m: int = 0
    ef: int = 0
    memory: int = 0
    raw: Dict[str, Any] = field(default_factory=dict)


@dataclass
class Message:
    role: str
    content: Union[str, bytes]
    at: int  # ms since the epoch


@dataclass
class AppendResult:
    count: int                       # messages in the session
    memory_id: Optional[str] = None  # set when the message was promoted


def _memory(reply) -> Memory:
    d = _map(reply)
    strs = lambda v: [_s(x) for x in (v or [])]
    return Memory(id=_s(d["id"]), text=_text(d["text"]), user=_s(d.get("user")),
                  session=_s(d.get("session")), type=_s(d.get("type")),
                  topics=strs(d.get("topics")), entities=strs(d.get("entities")),
                  attrs=_attrs_val(d.get("attrs")), created_at=_num(d.get("created_at"), int) or 0,
                  updated_at=_num(d.get("updated_at"), int) or 0,
                  last_accessed=_num(d.get("last_accessed"), int) or 0,
                  access_count=_num(d.get("access_count"), int) or 0,
                  similarity=_num(d.get("similarity")), score=_num(d.get("score")))


def _filters(user=None, session=None, type=None, topics=None, entities=None, filter=None):
    return (*_opt("USER", user), *_opt("SESSION", session), *_opt("TYPE", type),
            *_opt("TOPICS", None if topics is None else _csv(topics)),
            *_opt("ENTITIES", None if entities is None else _csv(entities)),
            *_opt("FILTER", _filter_arg(filter)))


class AgentMemory(_Base):
    """Agent memory (MEM.*): long-term memories ranked by similarity and recency, and
    per-session working memory."""

    _type = "memory"

    def create(self, *, dim: int = None, metric: str = None,
               weights: Tuple[float, float] = None, freshness: Tuple[float, int] = None,
               novelty: Tuple[float, int] = None, touch_interval: int = None,
               session_ttl: int = None, m: int = None, ef: int = None,
               exist_ok: bool = False) -> bool:
        """MEM.CREATE (optional: the first add creates a namespace with the defaults)."""
        args = (*_opt("DIM", dim), *_opt("METRIC", metric),
                *(("WEIGHTS", *weights) if weights else ()),
                *(("FRESHNESS", *freshness) if freshness else ()),
                *(("NOVELTY", *novelty) if novelty else ()),
                *_opt("TOUCH-INTERVAL", touch_interval), *_opt("SESSION-TTL", session_ttl),
                *_opt("M", m), *_opt("EF", ef))
        return self._create("MEM.CREATE", args, exist_ok)

    def configure(self, *, weights: Tuple[float, float] = None,
                  freshness: Tuple[float, int] = None, novelty: Tuple[float, int] = None,
                  touch_interval: int = None, session_ttl: int = None,
                  ef: int = None) -> None:
        """MEM.CONFIG: new ranking weights, half-lives, touch interval, default session
        TTL (sessions started later) or search EF; dim, metric and M stay as created."""
        self._cmd("MEM.CONFIG", self.name,
                  *(("WEIGHTS", *weights) if weights else ()),
                  *(("FRESHNESS", *freshness) if freshness else ()),
                  *(("NOVELTY", *novelty) if novelty else ()),
                  *_opt("TOUCH-INTERVAL", touch_interval), *_opt("SESSION-TTL", session_ttl),
                  *_opt("EF", ef))

    def add(self, vector: Vector, text: str, *, user: str = None, session: str = None,
            type: str = None, topics: Iterable[str] = None, entities: Iterable[str] = None,
            attrs: Attrs = None, id: str = None, dedup: float = None) -> str:
        """Adds a memory (or updates its exact / DEDUP-similar duplicate); returns its id."""
        return _s(self._cmd("MEM.ADD", self.name, "FP32", fp32(vector), text,
                            *_filters(user, session, type, topics, entities),
                            *_opt("ATTRS", _attrs_arg(attrs)), *_opt("ID", id),
                            *_opt("DEDUP", dedup)))

    def search(self, vector: Vector, *, k: int = None, user: str = None,
               session: str = None, type: str = None, topics: Iterable[str] = None,
               entities: Iterable[str] = None, filter=None, threshold: float = None,
               recency: Tuple[float, float, float] = None, ef: int = None) -> List[Memory]:
        """The k best memories by similarity and recency (best first).

        recency=(weight, freshness_halflife_s, novelty_halflife_s) overrides the
        namespace's ranking for this search; (0, 1, 1) ranks by similarity alone."""
        reply = self._cmd("MEM.SEARCH", self.name, "FP32", fp32(vector), *_opt("K", k),
                          *_filters(user, session, type, topics, entities, filter),
                          *_opt("THRESHOLD", threshold),
                          *(("RECENCY", *recency) if recency else ()), *_opt("EF", ef))
        return [_memory(m) for m in reply]

    def get(self, memory_id: str) -> Optional[Memory]:
        reply = self._cmd("MEM.GET", self.name, memory_id)
        return None if reply is None else _memory(reply)

    def update(self, memory_id: str, *, text: str = None, vector: Vector = None,
               user: str = None, session: str = None, type: str = None,
               topics: Iterable[str] = None, entities: Iterable[str] = None,
               attrs: Attrs = None) -> bool:
        """Changes the given fields; False when there is no such memory."""
        return bool(self._cmd("MEM.UPDATE", self.name, memory_id, *_opt("TEXT", text),
                              *(("FP32", fp32(vector)) if vector is not None else ()),
                              *_filters(user, session, type, topics, entities),
                              *_opt("ATTRS", _attrs_arg(attrs))))

    def delete(self, *memory_ids: str) -> int:
        return int(self._cmd("MEM.DEL", self.name, *memory_ids)) if memory_ids else 0

    def list(self, *, user: str = None, session: str = None, type: str = None,
             topics: Iterable[str] = None, entities: Iterable[str] = None, filter=None,
             count: int = None) -> Iterator[Memory]:
        """Iterates over the matching memories in insertion order (MEM.LIST pages)."""
        cursor = "0"
        while True:
            reply = self._cmd("MEM.LIST", self.name,
                              *_filters(user, session, type, topics, entities, filter),
                              "CURSOR", cursor, *_opt("COUNT", count))
            cursor = _s(reply[0])
            for m in reply[1]:
                yield _memory(m)
            if str(cursor) == "0":
                return

    def count(self, *, user: str = None, session: str = None, type: str = None,
              topics: Iterable[str] = None, entities: Iterable[str] = None,
              filter=None) -> int:
        return int(self._cmd("MEM.COUNT", self.name,
                             *_filters(user, session, type, topics, entities, filter)))

    def forget(self, *, older: int = None, inactive: int = None, user: str = None,
               session: str = None, type: str = None, topics: Iterable[str] = None,
               entities: Iterable[str] = None, filter=None) -> int:
        """Removes memories created more than `older` s ago and/or last accessed more than
        `inactive` s ago among those matching the filters; returns how many."""
        return int(self._cmd("MEM.FORGET", self.name, *_opt("OLDER", older),
                             *_opt("INACTIVE", inactive),
                             *_filters(user, session, type, topics, entities, filter)))

    def info(self) -> MemoryInfo:
        f, i = _num, int
        return _build(MemoryInfo, _map(self._cmd("MEM.INFO", self.name)), {
            "memories": i, "sessions": i, "dim": i, "metric": _s, "similarity_weight": f,
            "recency_weight": f, "freshness_weight": f, "freshness_halflife": i,
            "novelty_weight": f, "novelty_halflife": i, "touch_interval": i,
            "session_ttl": i, "m": i, "ef": i, "memory": i})

    # Working memory.
    def session_append(self, session: str, role: str, content: str, *, ttl: int = None,
                       user: str = None, promote: Vector = None) -> AppendResult:
        """Appends a message; with `promote` (its vector) also adds it as a memory."""
        reply = self._cmd("MEM.SESSION.APPEND", self.name, session, role, content,
                          *_opt("TTL", ttl), *_opt("USER", user),
                          *(("PROMOTE", "FP32", fp32(promote)) if promote is not None else ()))
        if isinstance(reply, list):
            return AppendResult(int(reply[0]), _s(reply[1]))
        return AppendResult(int(reply))

    def session_promote(self, session: str, role: str, content: str, vector: Vector, *,
                        ttl: int = None, user: str = None) -> AppendResult:
        """Appends a message and adds it as a long-term memory in the same call."""
        return self.session_append(session, role, content, ttl=ttl, user=user,
                                   promote=vector)

    def session_get(self, session: str, *, last: int = None) -> List[Message]:
        """The session's messages (the last `last` ones), oldest first."""
        out = []
        for m in self._cmd("MEM.SESSION.GET", self.name, session, *_opt("LAST", last)):
            d = _map(m)
            out.append(Message(role=_s(d["role"]), content=_text(d["content"]),
                               at=_num(d.get("at"), int)))
        return out

    def session_clear(self, session: str) -> bool:
        return bool(self._cmd("MEM.SESSION.CLEAR", self.name, session))
