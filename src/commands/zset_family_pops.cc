// Sorted-set pops: ZPOPMIN ZPOPMAX ZMPOP and the blocking BZPOPMIN BZPOPMAX BZMPOP.
//
// Reply shapes (as Redis): ZPOPMIN/ZPOPMAX reply a flat [member, score, ...] array,
// except in RESP3 with an explicit count, where it is an array of [member, score]
// pairs; a missing key (or count 0) is an empty array. ZMPOP/BZMPOP reply
// [key, [[member, score], ...]] or a null array. BZPOPMIN/BZPOPMAX reply the flat
// [key, member, score]; a timeout is a null array.
//
// Edge cases honoured: the first existing key among the given ones must be a zset
// (WRONGTYPE otherwise, even when a later key has data); ZPOP's count must be a
// non-negative integer ("value is out of range, must be positive"); ZMPOP/BZMPOP check
// numkeys, then MIN|MAX, then COUNT (once, >= 1), then (BZMPOP) the timeout; BZPOP*
// check the timeout first. Inside MULTI/EXEC a blocking pop that finds nothing replies
// nil at once. A blocked client is served by the command that makes its key a
// non-empty zset (ZADD, ZUNIONSTORE...), with the data as that command left it.
#include <span>
#include <string_view>
#include <vector>

#include "commands/helpers.h"
#include "commands/zset_common.h"
#include "common/string_util.h"
#include "server/blocking.h"

namespace hotkv {

namespace {

struct PopShape {
  bool emit_key = false;        // the key name leads the reply (ZMPOP, BZ*)
  bool nested = false;          // [[member, score], ...] instead of a flat list
  bool nil_when_empty = false;  // ZMPOP/BZMPOP: null array when no key has data
};

// Pops from the first existing key of `keys` (which must be a zset) and replies.
// `count` -1 is a plain single pop.
void GenericPop(CommandContext& ctx, std::span<const std::string_view> keys, bool from_max,
                int64_t count, PopShape shape) {
  ZFound found;
  std::string_view key;
  for (std::string_view k : keys) {
    found = FindZSetForWrite(ctx, k);
    if (found.wrong_type) {
      return;
    }
    if (found.zset != nullptr) {
      key = k;
      break;
    }
  }
  ReplyBuilder& rb = ctx.rb();
  if (found.zset == nullptr) {
    return shape.nil_when_empty ? rb.NullArray() : rb.EmptyArray();
  }
  if (count == 0) {
    return rb.EmptyArray();
  }
  const size_t size = found.zset->Size();
  const size_t n = count < 0 ? 1 : (static_cast<uint64_t>(count) < size ? count : size);
  if (shape.emit_key && shape.nested) {
    rb.Array(2);
    rb.Bulk(key);
    rb.Array(n);
  } else if (shape.emit_key) {
    rb.Array(n * 2 + 1);
    rb.Bulk(key);
  } else {
    rb.Array(shape.nested ? n : n * 2);
  }
  found.zset->Pop(n, from_max, [&](std::string_view member, double score) {
    if (shape.nested) {
      rb.Array(2);
    }
    rb.Bulk(member);
    rb.Double(score);
  });
  ctx.KeyModified(key, notify::kZSet, from_max ? "zpopmax" : "zpopmin");
  ctx.AddDirty(static_cast<int64_t>(n) - 1);  // Redis: one per member popped
  DeleteZSetIfEmpty(ctx, key, *found.zset);
  // ZMPOP and the blocking pops are replayed as the ZPOPMIN/ZPOPMAX they did, as Redis.
  const std::string& name = ctx.command()->name;
  if (ctx.propagating() && name != "zpopmin" && name != "zpopmax") {
    const char* pop = from_max ? "ZPOPMAX" : "ZPOPMIN";
    if (count >= 0) {
      const std::string c = std::to_string(count);
      ctx.PropagateAs({pop, key, c});
    } else {
      ctx.PropagateAs({pop, key});
    }
  }
}

// ZPOPMIN / ZPOPMAX key [count]
void ZPopGeneric(CommandContext& ctx, bool from_max) {
  if (ctx.argc() > 3) {
    return ctx.rb().Error(errors::kSyntax);
  }
  int64_t count = -1;
  if (ctx.argc() == 3) {
    auto c = ParseInt64(ctx.arg(2));
    if (!c || *c < 0) {
      return ctx.rb().Error(errors::kMustBePositive);
    }
    count = *c;
  }
  PopShape shape;
  shape.nested = ctx.rb().resp3() && count != -1;
  const std::string_view key = ctx.arg(1);
  GenericPop(ctx, {&key, 1}, from_max, count, shape);
}

// The arguments of ZMPOP / BZMPOP after the timeout: numkeys key... MIN|MAX [COUNT n].
struct MPopArgs {
  bool ok = false;
  size_t first_key = 0;
  size_t num_keys = 0;
  bool from_max = false;
  int64_t count = 1;
};

MPopArgs ParseMPop(CommandContext& ctx, size_t numkeys_idx) {
  MPopArgs out;
  auto numkeys = ParseInt64(ctx.arg(numkeys_idx));
  if (!numkeys || *numkeys < 1) {
    ctx.rb().Error("ERR numkeys should be greater than 0");
    return out;
  }
  if (static_cast<uint64_t>(*numkeys) >= ctx.argc() - numkeys_idx - 1) {
    ctx.rb().Error(errors::kSyntax);  // no room left for MIN|MAX
    return out;
  }
  out.first_key = numkeys_idx + 1;
  out.num_keys = static_cast<size_t>(*numkeys);
  const size_t where_idx = out.first_key + out.num_keys;
  if (EqualsIgnoreCase(ctx.arg(where_idx), "MIN")) {
    out.from_max = false;
  } else if (EqualsIgnoreCase(ctx.arg(where_idx), "MAX")) {
    out.from_max = true;
  } else {
    ctx.rb().Error(errors::kSyntax);
    return out;
  }
  bool has_count = false;
  for (size_t j = where_idx + 1; j < ctx.argc(); j++) {
    if (!has_count && EqualsIgnoreCase(ctx.arg(j), "COUNT") && j + 1 < ctx.argc()) {
      auto c = ParseInt64(ctx.arg(++j));
      if (!c || *c < 1) {
        ctx.rb().Error("ERR count should be greater than 0");
        return out;
      }
      out.count = *c;
      has_count = true;
    } else {
      ctx.rb().Error(errors::kSyntax);
      return out;
    }
  }
  out.ok = true;
  return out;
}

std::span<const std::string_view> KeysOf(CommandContext& ctx, size_t first, size_t n) {
  return std::span<const std::string_view>(ctx.args()).subspan(first, n);
}

// Serves a client blocked in BZPOPMIN / BZPOPMAX / BZMPOP from `ready_key` (see ServeFn).
ServeResult ServeBlockedPop(CommandContext& ctx, std::string_view ready_key, bool dry_run) {
  Entry* e = ctx.db().Find(ready_key);
  if (e == nullptr || e->type() != ValueType::kZSet || e->As<types::ZSetValue>()->Empty()) {
    return ServeResult::kNotNow;
  }
  if (dry_run) {
    return ServeResult::kServe;
  }
  std::string_view name = ctx.arg(0);
  if (EqualsIgnoreCase(name, "BZMPOP")) {
    MPopArgs args = ParseMPop(ctx, 2);  // validated when the client blocked
    PopShape shape{true, true, true};
    GenericPop(ctx, {&ready_key, 1}, args.from_max, args.count, shape);
  } else {
    PopShape shape{true, false, false};
    GenericPop(ctx, {&ready_key, 1}, EqualsIgnoreCase(name, "BZPOPMAX"), -1, shape);
  }
  return ServeResult::kServe;
}

// Pops from the first key with data, or blocks on all of `keys`.
void BlockingPop(CommandContext& ctx, std::span<const std::string_view> keys, bool from_max,
                 int64_t count, PopShape shape, int64_t timeout_ms) {
  for (std::string_view key : keys) {
    ZFound found = FindZSetForWrite(ctx, key);
    if (found.wrong_type) {
      return;
    }
    if (found.zset != nullptr && !found.zset->Empty()) {
      return GenericPop(ctx, {&key, 1}, from_max, count, shape);
    }
  }
  if (ctx.in_exec()) {
    return ctx.rb().NullArray();  // never block inside a transaction
  }
  BlockClient(ctx, std::vector<std::string_view>(keys.begin(), keys.end()), timeout_ms,
              ServeBlockedPop, /*null_array_on_timeout=*/true);
}

// BZPOPMIN / BZPOPMAX key [key ...] timeout
void BZPopGeneric(CommandContext& ctx, bool from_max) {
  int64_t timeout_ms = 0;
  if (!ParseBlockTimeout(ctx, ctx.arg(ctx.argc() - 1), &timeout_ms)) {
    return;
  }
  BlockingPop(ctx, KeysOf(ctx, 1, ctx.argc() - 2), from_max, -1, PopShape{true, false, false},
              timeout_ms);
}

}  // namespace

void ZPopMinCommand(CommandContext& ctx) { ZPopGeneric(ctx, false); }
void ZPopMaxCommand(CommandContext& ctx) { ZPopGeneric(ctx, true); }

// ZMPOP numkeys key [key ...] MIN|MAX [COUNT count]
void ZMPopCommand(CommandContext& ctx) {
  MPopArgs args = ParseMPop(ctx, 1);
  if (!args.ok) {
    return;
  }
  GenericPop(ctx, KeysOf(ctx, args.first_key, args.num_keys), args.from_max, args.count,
             PopShape{true, true, true});
}

void BZPopMinCommand(CommandContext& ctx) { BZPopGeneric(ctx, false); }
void BZPopMaxCommand(CommandContext& ctx) { BZPopGeneric(ctx, true); }

// BZMPOP timeout numkeys key [key ...] MIN|MAX [COUNT count]
void BZMPopCommand(CommandContext& ctx) {
  MPopArgs args = ParseMPop(ctx, 2);
  if (!args.ok) {
    return;
  }
  int64_t timeout_ms = 0;
  if (!ParseBlockTimeout(ctx, ctx.arg(1), &timeout_ms)) {
    return;
  }
  BlockingPop(ctx, KeysOf(ctx, args.first_key, args.num_keys), args.from_max, args.count,
              PopShape{true, true, true}, timeout_ms);
}

}  // namespace hotkv
