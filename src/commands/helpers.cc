#include "commands/helpers.h"

#include <cerrno>
#include <cstdlib>
#include <limits>
#include <string>

#include "server/server.h"

namespace hotkv {

std::optional<int> ParseDbIndex(CommandContext& ctx, std::string_view arg) {
  auto v = ParseInt64(arg);
  if (!v) {
    ctx.rb().Error(errors::kNotInteger);
    return std::nullopt;
  }
  if (*v < std::numeric_limits<int32_t>::min() || *v > std::numeric_limits<int32_t>::max()) {
    // Redis parses a DB index as a C int first (getIntFromObjectOrReply).
    ctx.rb().Error("ERR value is out of range, value must between -2147483648 and 2147483647");
    return std::nullopt;
  }
  if (*v < 0 || *v >= ctx.keyspace().num_dbs()) {
    ctx.rb().Error(errors::kDbIndex);
    return std::nullopt;
  }
  return static_cast<int>(*v);
}

void ReplyInvalidExpire(CommandContext& ctx) {
  ctx.rb().Error("ERR invalid expire time in '" + ctx.command()->full_name + "' command");
}

types::EncodingLimits EncodingLimitsFrom(const Config& cfg) { return cfg.encoding_limits(); }

void DeleteIfEmpty(CommandContext& ctx, KeyRef& ref, std::string_view key, bool empty) {
  if (!empty) {
    return;
  }
  ctx.db().Erase(ref);
  ctx.KeyModified(key, notify::kGeneric, "del");
  ctx.AddDirty(-1);  // Redis counts the change that emptied it, not the deletion
}

Entry* ReserveString(Database& db, KeyRef& ref, size_t want) {
  Entry* e = ref.entry();
  if (want <= e->str_capacity()) {
    return e;
  }
  const size_t cap = want < (size_t{1} << 20) ? want * 2 : want + (size_t{1} << 20);
  e = Entry::GrowString(e, cap);
  db.Relocated(ref, e);
  return e;
}

void ReplyWrongArity(CommandContext& ctx) {
  ctx.rb().Error("ERR wrong number of arguments for '" + ctx.command()->full_name + "' command");
}

std::optional<uint64_t> ParseScanCursor(CommandContext& ctx, std::string_view arg) {
  // Redis's string2ull on the argument as a C string: a canonical integer that is not
  // negative, or else whatever strtoull takes whole without overflow (leading zeros,
  // spaces or sign included).
  const std::string text(arg.substr(0, arg.find('\0')));
  if (auto v = ParseInt64(text)) {
    if (*v >= 0) {
      return static_cast<uint64_t>(*v);
    }
  } else if (!text.empty()) {
    char* end = nullptr;
    errno = 0;
    const unsigned long long v = strtoull(text.c_str(), &end, 10);
    if (errno != EINVAL && errno != ERANGE && *end == '\0') {
      return static_cast<uint64_t>(v);
    }
  }
  ctx.rb().Error("ERR invalid cursor");
  return std::nullopt;
}

std::optional<CollectionScanOptions> ParseCollectionScanOptions(CommandContext& ctx, size_t first,
                                                                ValueType type) {
  CollectionScanOptions opts;
  for (size_t i = first; i < ctx.argc();) {
    std::string_view a = ctx.arg(i);
    const size_t left = ctx.argc() - i;
    if (EqualsIgnoreCase(a, "COUNT") && left >= 2) {
      auto c = ctx.IntArg(i + 1);
      if (!c) {
        return std::nullopt;
      }
      if (*c < 1) {
        ctx.rb().Error(errors::kSyntax);
        return std::nullopt;
      }
      opts.count = *c;
      i += 2;
    } else if (EqualsIgnoreCase(a, "MATCH") && left >= 2) {
      opts.pattern = ctx.arg(i + 1);
      opts.use_pattern = opts.pattern != "*";
      i += 2;
    } else if (EqualsIgnoreCase(a, "NOVALUES")) {
      if (type != ValueType::kHash) {
        ctx.rb().Error("ERR NOVALUES option can only be used in HSCAN");
        return std::nullopt;
      }
      opts.only_keys = true;
      i++;
    } else {
      ctx.rb().Error(errors::kSyntax);
      return std::nullopt;
    }
  }
  return opts;
}

std::optional<int64_t> ParseRandomCount(CommandContext& ctx, size_t i) {
  auto v = ctx.IntArg(i);
  if (v && *v == std::numeric_limits<int64_t>::min()) {
    ctx.rb().Error(
        "ERR value is out of range, value must between -9223372036854775807 and "
        "9223372036854775807");
    return std::nullopt;
  }
  return v;
}

bool RandomReplyTooLarge(CommandContext& ctx, size_t reply_start) {
  if (ctx.rb().buffer()->size() - reply_start <= kMaxRandomReplyBytes) {
    return false;
  }
  ctx.client().set_close_after_reply();
  return true;
}

}  // namespace hotkv
