// Blocking list commands: BLPOP BRPOP BLMOVE BRPOPLPUSH BLMPOP.
//
// With data they behave like LPOP/RPOP/LMOVE/LMPOP; without, the client blocks on its
// keys (server/blocking.h) and the serve functions below run later, on the thread of
// the command that gave a key data, under that key's shard lock. Inside MULTI they
// answer as if the timeout had passed.
#include "commands/helpers.h"
#include "commands/list_common.h"
#include "commands/register.h"
#include "server/blocking.h"
#include "server/dispatcher.h"
#include "server/server.h"
#include "types/list_value.h"

namespace hotkv {

namespace {

using namespace list_internal;


End BPopEnd(const CommandContext& ctx) {
  return ctx.command()->name == "blpop" ? End::kLeft : End::kRight;
}

ServeResult ServeBPop(CommandContext& ctx, std::string_view key, bool dry_run) {
  KeyRef ref = ctx.db().Lookup(key);
  if (!ref || ref.entry()->type() != ValueType::kList) {
    return ServeResult::kNotNow;
  }
  if (dry_run) {
    return ServeResult::kServe;
  }
  ctx.rb().Array(2);
  ctx.rb().Bulk(key);
  PopAndReply(ctx, ref, key, BPopEnd(ctx), false, 0);
  return ServeResult::kServe;
}

// BLPOP/BRPOP key [key ...] timeout
void BPopGeneric(CommandContext& ctx) {
  int64_t timeout;
  if (!ParseBlockTimeout(ctx, ctx.arg(ctx.argc() - 1), &timeout)) {
    return;
  }
  std::vector<std::string_view> keys(ctx.args().begin() + 1, ctx.args().end() - 1);
  for (std::string_view key : keys) {
    KeyRef ref;
    if (!ListRef(ctx, key, &ref)) {
      return;
    }
    if (ref) {
      ctx.rb().Array(2);
      ctx.rb().Bulk(key);
      return PopAndReply(ctx, ref, key, BPopEnd(ctx), false, 0);
    }
  }
  if (ctx.in_exec()) {
    return ctx.rb().NullArray();
  }
  BlockClient(ctx, keys, timeout, ServeBPop, true);
}
void BLPopCommand(CommandContext& ctx) { BPopGeneric(ctx); }
void BRPopCommand(CommandContext& ctx) { BPopGeneric(ctx); }

// The (src, dst, from, to) of BLMOVE / BRPOPLPUSH.
struct MoveArgs {
  std::string_view src, dst;
  End from = End::kRight, to = End::kLeft;
};
bool ParseBMove(CommandContext& ctx, MoveArgs* m) {
  m->src = ctx.arg(1);
  m->dst = ctx.arg(2);
  if (ctx.command()->name == "blmove") {
    auto from = ParseEnd(ctx.arg(3));
    auto to = ParseEnd(ctx.arg(4));
    if (!from || !to) {
      ctx.rb().Error(errors::kSyntax);
      return false;
    }
    m->from = *from;
    m->to = *to;
  }
  return true;
}

ServeResult ServeBMove(CommandContext& ctx, std::string_view key, bool dry_run) {
  MoveArgs m;
  if (!ParseBMove(ctx, &m)) {
    return ServeResult::kNotNow;
  }
  KeyRef ref = ctx.db().Lookup(m.src);
  if (!ref || ref.entry()->type() != ValueType::kList) {
    return ServeResult::kNotNow;
  }
  // The destination may live in a shard the waking command did not lock.
  if (!TryLockExtraShard(ctx.keyspace(), Keyspace::ShardOf(m.dst))) {
    return ServeResult::kNotNow;
  }
  // A destination of another type (there when the client blocked, or created since):
  // Redis re-runs the command, which answers WRONGTYPE and leaves the source alone.
  Entry* d = ctx.db().Find(m.dst);
  if (d != nullptr && d->type() != ValueType::kList) {
    if (!dry_run) {
      ctx.rb().Error(errors::kWrongType);
    }
    return ServeResult::kError;
  }
  if (dry_run) {
    return ServeResult::kServe;
  }
  MoveGeneric(ctx, m.src, m.dst, m.from, m.to);
  return ServeResult::kServe;
}

void BMoveGeneric(CommandContext& ctx) {
  MoveArgs m;
  if (!ParseBMove(ctx, &m)) {
    return;
  }
  int64_t timeout;
  if (!ParseBlockTimeout(ctx, ctx.arg(ctx.argc() - 1), &timeout)) {
    return;
  }
  KeyRef ref;
  if (!ListRef(ctx, m.src, &ref)) {
    return;
  }
  if (ref) {
    return MoveGeneric(ctx, m.src, m.dst, m.from, m.to);
  }
  if (ctx.in_exec()) {
    return ctx.rb().Null();
  }
  BlockClient(ctx, {m.src}, timeout, ServeBMove, false);
}
void BLMoveCommand(CommandContext& ctx) { BMoveGeneric(ctx); }
void BRPopLPushCommand(CommandContext& ctx) { BMoveGeneric(ctx); }

ServeResult ServeBLMPop(CommandContext& ctx, std::string_view key, bool dry_run) {
  MPopArgs a;
  if (!ParseMPop(ctx, 2, &a)) {
    return ServeResult::kNotNow;
  }
  KeyRef ref = ctx.db().Lookup(key);
  if (!ref || ref.entry()->type() != ValueType::kList) {
    return ServeResult::kNotNow;
  }
  if (dry_run) {
    return ServeResult::kServe;
  }
  ctx.rb().Array(2);
  ctx.rb().Bulk(key);
  PopAndReply(ctx, ref, key, a.end, true, a.count);
  return ServeResult::kServe;
}

// BLMPOP timeout numkeys key [key ...] LEFT|RIGHT [COUNT count]
void BLMPopCommand(CommandContext& ctx) {
  int64_t timeout;
  if (!ParseBlockTimeout(ctx, ctx.arg(1), &timeout)) {
    return;
  }
  MPopArgs a;
  if (!ParseMPop(ctx, 2, &a)) {
    return;
  }
  if (MPopFirst(ctx, a)) {
    return;
  }
  if (ctx.in_exec()) {
    return ctx.rb().NullArray();
  }
  BlockClient(ctx, a.keys, timeout, ServeBLMPop, true);
}

}  // namespace

void RegisterListBlockingCommands(CommandTable& t) {
  t.Add({.name = "blpop", .arity = -3, .flags = "write blocking", .acl = "@write @list @slow @blocking",
         .keys = {KeyRange(1, -2, 1, "RW ACCESS DELETE")}, .handler = BLPopCommand,
         .doc = {"list", "2.0.0", "O(N) where N is the number of provided keys.",
                 "Pops an element from the head of the first non-empty list, waiting for one if needed.", "key [key ...] timeout"}});
  t.Add({.name = "brpop", .arity = -3, .flags = "write blocking", .acl = "@write @list @slow @blocking",
         .keys = {KeyRange(1, -2, 1, "RW ACCESS DELETE")}, .handler = BRPopCommand,
         .doc = {"list", "2.0.0", "O(N) where N is the number of provided keys.",
                 "Pops an element from the tail of the first non-empty list, waiting for one if needed.", "key [key ...] timeout"}});
  t.Add({.name = "blmove", .arity = 6, .flags = "write denyoom blocking", .acl = "@write @list @slow @blocking",
         .keys = {KeyAt(1, "RW ACCESS DELETE"), KeyAt(2, "RW INSERT")}, .handler = BLMoveCommand,
         .doc = {"list", "6.2.0", "O(1)", "Moves an element between lists, waiting for one if the source is empty.",
                 "source destination <wherefrom: LEFT | RIGHT> <whereto: LEFT | RIGHT> timeout"}});
  t.Add({.name = "brpoplpush", .arity = 4, .flags = "write denyoom blocking", .acl = "@write @list @slow @blocking",
         .keys = {KeyAt(1, "RW ACCESS DELETE"), KeyAt(2, "RW INSERT")}, .handler = BRPopLPushCommand,
         .doc = {"list", "2.2.0", "O(1)", "Moves the last element of a list to another, waiting if the source is empty.",
                 "source destination timeout", "deprecated", "6.2.0", "`BLMOVE` with the `RIGHT` and `LEFT` arguments"}});
  t.Add({.name = "blmpop", .arity = -5, .flags = "write blocking", .acl = "@write @list @slow @blocking",
         .keys = {KeyNum(2, 0, 1, 1, "RW ACCESS DELETE")}, .handler = BLMPopCommand,
         .doc = {"list", "7.0.0", "O(N+M) where N is the number of provided keys and M is the number of elements returned.",
                 "Pops elements from the first non-empty list of several, waiting for one if needed.",
                 "timeout numkeys key [key ...] <where: LEFT | RIGHT> [COUNT count]"}});
}

}  // namespace hotkv
