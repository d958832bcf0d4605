#include "commands/hash_common.h"

#include <algorithm>
#include <string>
#include <vector>

#include "commands/helpers.h"
#include "engine/entry.h"
#include "server/server.h"

namespace hotkv {

using types::HashValue;

HashValue* ReadHash(CommandContext& ctx, std::string_view key, bool* wrong_type) {
  Entry* e = LookupRead(ctx, key);
  *wrong_type = !CheckType(ctx, e, ValueType::kHash);
  return e != nullptr && !*wrong_type ? e->As<HashValue>() : nullptr;
}

HashValue* HashForWrite(CommandContext& ctx, std::string_view key) {
  Database& db = ctx.db();
  KeyRef ref = db.Lookup(key);
  if (ref) {
    Entry* e = ref.entry();
    if (!CheckType(ctx, e, ValueType::kHash)) {
      return nullptr;
    }
    ctx.TouchEntry(e);
    return e->As<HashValue>();
  }
  auto* hash = new HashValue();
  db.Insert(ref, Entry::NewObject(key, ValueType::kHash, hash, false));
  return hash;
}

types::EncodingLimits HashLimits(CommandContext& ctx) {
  return EncodingLimitsFrom(ctx.server().config());
}

HashValue* ExpireDueFields(CommandContext& ctx, std::string_view key, HashValue* hash,
                           size_t first, size_t count, size_t step) {
  if (hash == nullptr || !hash->HasDueFields(ctx.now_ms())) {
    return hash;
  }
  std::vector<std::string> due;
  for (size_t i = first; i < first + count * step; i += step) {
    const std::string_view field = ctx.arg(i);
    if (hash->IsExpired(field, ctx.now_ms()) &&
        std::find(due.begin(), due.end(), field) == due.end()) {
      due.emplace_back(field);
    }
  }
  if (due.empty()) {
    return hash;
  }
  KeyRef ref = ctx.db().Lookup(key);
  ctx.db().ExpireFields(ref, due, /*active=*/false);
  return ref ? hash : nullptr;
}

HashValue* ExpireDueField(CommandContext& ctx, std::string_view key, HashValue* hash,
                          std::string_view field) {
  if (hash == nullptr || !hash->IsExpired(field, ctx.now_ms())) {
    return hash;
  }
  KeyRef ref = ctx.db().Lookup(key);
  ctx.db().ExpireFields(ref, {std::string(field)}, /*active=*/false);
  return ref ? hash : nullptr;
}

bool ParseTrailingFields(CommandContext& ctx) {
  if (!EqualsIgnoreCase(ctx.arg(2), "FIELDS")) {
    ctx.rb().Error("ERR Mandatory argument FIELDS is missing or not at the right position");
    return false;
  }
  auto numfields = ParseInt64(ctx.arg(3));
  if (!numfields || *numfields < 1) {
    ctx.rb().Error("ERR Number of fields must be a positive integer");
    return false;
  }
  if (*numfields != static_cast<int64_t>(ctx.argc() - 4)) {
    ctx.rb().Error("ERR The `numfields` parameter must match the number of arguments");
    return false;
  }
  return true;
}

}  // namespace hotkv
