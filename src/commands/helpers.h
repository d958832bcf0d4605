// Small helpers shared by the command families: typed lookups with Redis's statistics and
// errors, option parsing for expiry arguments, the collection encoding limits, the
// options of HSCAN/SSCAN and the count of HRANDFIELD/SRANDMEMBER.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include "common/notify_flags.h"
#include "common/string_util.h"
#include "engine/database.h"
#include "server/command_context.h"
#include "server/config.h"
#include "types/encoding_limits.h"

namespace hotkv {

class Config;

// A read lookup: counts keyspace hits/misses, records the access, emits "keymiss".
// The first form takes the key's shard and hash (LocateKey) when the caller has them.
inline Entry* LookupRead(CommandContext& ctx, std::string_view key, uint32_t shard, uint64_t hash) {
  KeyRef ref = ctx.db().Lookup(key, shard, hash);
  Entry* e = ref ? ref.entry() : nullptr;
  ctx.CountLookup(e != nullptr);
  if (e != nullptr) {
    ctx.TouchEntry(e);
  } else {
    ctx.Notify(notify::kKeyMiss, "keymiss", key);
  }
  return e;
}
inline Entry* LookupRead(CommandContext& ctx, std::string_view key) {
  uint32_t shard;
  uint64_t hash;
  LocateKey(key, &shard, &hash);
  return LookupRead(ctx, key, shard, hash);
}

// A read lookup of a string key: the entry, or nullptr when missing; for another type it
// replies WRONGTYPE and sets *wrongtype.
inline Entry* LookupString(CommandContext& ctx, std::string_view key, bool* wrongtype) {
  Entry* e = LookupRead(ctx, key);
  *wrongtype = e != nullptr && !e->is_string();
  if (*wrongtype) {
    ctx.rb().Error(errors::kWrongType);
  }
  return e;
}

// Replies WRONGTYPE and returns false when `e` exists with another type.
inline bool CheckType(CommandContext& ctx, const Entry* e, ValueType t) {
  if (e != nullptr && e->type() != t) {
    ctx.rb().Error(errors::kWrongType);
    return false;
  }
  return true;
}

// Makes the string entry at `ref` able to hold `want` bytes, growing its block with slack as
// sds does (double below 1 MB, else 1 MB more) so that repeated APPEND/SETBIT/BITFIELD
// growth is amortised; bytes past the current length are not initialised. Returns the
// entry (the block may have moved; the table is told).
Entry* ReserveString(Database& db, KeyRef& ref, size_t want);

// Parses a database index argument (SELECT, MOVE, COPY DB): replies and returns nullopt
// on error.
std::optional<int> ParseDbIndex(CommandContext& ctx, std::string_view arg);

// Adds `delta` to `base` for expiry arithmetic; false on overflow.
inline bool AddOverflow(int64_t a, int64_t b, int64_t* out) { return __builtin_add_overflow(a, b, out); }

// "ERR invalid expire time in '<cmd>' command".
void ReplyInvalidExpire(CommandContext& ctx);

// The encoding thresholds of collections, from the live configuration.
types::EncodingLimits EncodingLimitsFrom(const Config& cfg);

// Deletes the key of a collection that a command emptied, with its "del" notification.
void DeleteIfEmpty(CommandContext& ctx, KeyRef& ref, std::string_view key, bool empty);

// "ERR wrong number of arguments for '<cmd>' command" (for arity checks a handler makes
// itself, e.g. an odd number of field/value arguments).
void ReplyWrongArity(CommandContext& ctx);

// A scan cursor as Redis parses it (string2ull: a non-negative integer, or what strtoull
// accepts); replies "ERR invalid cursor" and returns nullopt otherwise.
std::optional<uint64_t> ParseScanCursor(CommandContext& ctx, std::string_view arg);

// The options of HSCAN/SSCAN/ZSCAN after the cursor: [MATCH pattern] [COUNT count]
// [NOVALUES] (hashes only), as Redis 8.8's scanGenericCommand parses them (it has no
// NOSCORES: a syntax error). Replies and returns nullopt on error.
struct CollectionScanOptions {
  std::string_view pattern;
  bool use_pattern = false;  // false for no MATCH or MATCH *
  int64_t count = 10;
  bool only_keys = false;  // NOVALUES
};
std::optional<CollectionScanOptions> ParseCollectionScanOptions(CommandContext& ctx, size_t first,
                                                                ValueType type);

// The count of HRANDFIELD/SRANDMEMBER/ZRANDMEMBER and LREM: an integer in [-LONG_MAX, LONG_MAX]
// (Redis's getRangeLongFromObjectOrReply). Replies and returns nullopt otherwise.
std::optional<int64_t> ParseRandomCount(CommandContext& ctx, size_t i);

// Replies with a negative random count repeat elements, so -count may be as large as
// LONG_MAX. Redis stops such a reply when the client output buffer limit closes the
// client; HotKV has no limit for normal clients, so these commands emit in chunks and stop
// once a reply has grown past kMaxRandomReplyBytes, closing the connection (the client
// could not have used the rest anyway). Returns true when the reply must stop.
inline constexpr size_t kMaxRandomReplyBytes = size_t{512} << 20;
bool RandomReplyTooLarge(CommandContext& ctx, size_t reply_start);

}  // namespace hotkv
