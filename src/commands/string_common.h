// Pieces shared by the string commands: expiry options (SET, GETEX, MSETEX), the value
// conditions of Redis 8.4 (SET and DELEX IFEQ/IFNE/IFDEQ/IFDNE) and DIGEST's hash.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "server/command_context.h"

namespace hotkv {

// An expiry option of SET, GETEX or MSETEX.
struct ExpireOpt {
  enum Kind { kNone, kEx, kPx, kExAt, kPxAt, kKeepTtl, kPersist } kind = kNone;
  std::string_view value;
};

// Converts the option to an absolute time in ms. Replies and returns nullopt on error
// (not an integer; "invalid expire time in '<cmd>' command" when not positive or when the
// absolute time overflows).
std::optional<int64_t> ResolveExpire(CommandContext& ctx, const ExpireOpt& opt);

// Reads SET's (and MSETEX's) expiry options at argument *i: EX/PX/EXAT/PXAT with a value,
// KEEPTTL. As Redis's parser, the same option may repeat (the last value counts), a
// different one is a syntax error. kOk moves *i to the option's last argument.
enum class OptionParse { kNotMine, kOk, kSyntax };
OptionParse ParseSetExpiry(CommandContext& ctx, size_t* i, ExpireOpt* exp);

// XXH3-64 of the value as 16 lower-case hex digits, as Redis's DIGEST prints it.
std::string ValueDigest(std::string_view value);

enum class ValueCond { kNone, kIfEq, kIfNe, kIfDeq, kIfDne };

// IFEQ / IFNE / IFDEQ / IFDNE (any case); nullopt for another word.
std::optional<ValueCond> ParseValueCond(std::string_view word);

// Whether the string `value` passes `cond` with its argument `arg`. IFDEQ/IFDNE compare
// the value's digest with `arg` ignoring case; `arg` must be 16 characters long (Redis
// checks nothing else), else this replies "ERR must be exactly 16 hexadecimal characters"
// and returns nullopt. kNone passes.
std::optional<bool> CheckValueCond(CommandContext& ctx, ValueCond cond, std::string_view arg,
                                   std::string_view value);

}  // namespace hotkv
