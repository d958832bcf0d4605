// Small helpers shared by the command families: typed lookups with Redis's statistics and
// errors, option parsing for expiry arguments.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include "common/notify_flags.h"
#include "common/strings.h"
#include "engine/database.h"
#include "server/command_context.h"
#include "server/config.h"
#include "types/encoding_limits.h"

namespace hotkv {

// A read lookup: counts keyspace hits/misses, records the access, emits "keymiss".
inline Entry* LookupRead(CommandContext& ctx, std::string_view key) {
  Entry* e = ctx.db().Find(key);
  ctx.CountLookup(e != nullptr);
  if (e != nullptr) {
    ctx.TouchEntry(e);
  } else {
    ctx.Notify(notify::kKeyMiss, "keymiss", key);
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

}  // namespace hotkv
