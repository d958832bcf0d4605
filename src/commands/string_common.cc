#include "commands/string_common.h"

#include <limits>

#define XXH_INLINE_ALL
#include <xxhash.h>

#include "commands/helpers.h"

namespace hotkv {

std::optional<int64_t> ResolveExpire(CommandContext& ctx, const ExpireOpt& opt) {
  auto v = ParseInt64(opt.value);
  if (!v) {
    ctx.rb().Error(errors::kNotInteger);
    return std::nullopt;
  }
  int64_t ms = *v;
  bool seconds = opt.kind == ExpireOpt::kEx || opt.kind == ExpireOpt::kExAt;
  if (ms <= 0 || (seconds && ms > std::numeric_limits<int64_t>::max() / 1000)) {
    ReplyInvalidExpire(ctx);
    return std::nullopt;
  }
  if (seconds) {
    ms *= 1000;
  }
  if (opt.kind == ExpireOpt::kEx || opt.kind == ExpireOpt::kPx) {
    if (AddOverflow(ms, ctx.now_ms(), &ms)) {
      ReplyInvalidExpire(ctx);
      return std::nullopt;
    }
  }
  return ms;
}

OptionParse ParseSetExpiry(CommandContext& ctx, size_t* i, ExpireOpt* exp) {
  static constexpr std::pair<std::string_view, ExpireOpt::Kind> kOptions[] = {
      {"EX", ExpireOpt::kEx},
      {"PX", ExpireOpt::kPx},
      {"EXAT", ExpireOpt::kExAt},
      {"PXAT", ExpireOpt::kPxAt},
      {"KEEPTTL", ExpireOpt::kKeepTtl}};
  std::string_view word = ctx.arg(*i);
  for (const auto& [name, kind] : kOptions) {
    if (!EqualsIgnoreCase(word, name)) {
      continue;
    }
    if (exp->kind != ExpireOpt::kNone && exp->kind != kind) {
      return OptionParse::kSyntax;
    }
    exp->kind = kind;
    if (kind == ExpireOpt::kKeepTtl) {
      return OptionParse::kOk;
    }
    if (*i + 1 >= ctx.argc()) {
      return OptionParse::kSyntax;
    }
    exp->value = ctx.arg(++*i);
    return OptionParse::kOk;
  }
  return OptionParse::kNotMine;
}

std::string ValueDigest(std::string_view value) {
  static constexpr char kHex[] = "0123456789abcdef";
  uint64_t h = XXH3_64bits(value.data(), value.size());
  std::string out(16, '0');
  for (int i = 15; i >= 0; i--) {
    out[static_cast<size_t>(i)] = kHex[h & 15];
    h >>= 4;
  }
  return out;
}

std::optional<ValueCond> ParseValueCond(std::string_view word) {
  static constexpr std::pair<std::string_view, ValueCond> kConds[] = {{"IFEQ", ValueCond::kIfEq},
                                                                      {"IFNE", ValueCond::kIfNe},
                                                                      {"IFDEQ", ValueCond::kIfDeq},
                                                                      {"IFDNE", ValueCond::kIfDne}};
  for (const auto& [name, cond] : kConds) {
    if (EqualsIgnoreCase(word, name)) {
      return cond;
    }
  }
  return std::nullopt;
}

std::optional<bool> CheckValueCond(CommandContext& ctx, ValueCond cond, std::string_view arg,
                                   std::string_view value) {
  switch (cond) {
    case ValueCond::kNone:
      return true;
    case ValueCond::kIfEq:
      return value == arg;
    case ValueCond::kIfNe:
      return value != arg;
    case ValueCond::kIfDeq:
    case ValueCond::kIfDne:
      break;
  }
  if (arg.size() != 16) {
    ctx.rb().Error("ERR must be exactly 16 hexadecimal characters");
    return std::nullopt;
  }
  const bool same = EqualsIgnoreCase(ValueDigest(value), arg);
  return cond == ValueCond::kIfDeq ? same : !same;
}

}  // namespace hotkv
