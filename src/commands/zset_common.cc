#include "commands/zset_common.h"

#include "types/set_value.h"

#include <algorithm>
#include <utility>

#include "commands/helpers.h"
#include "server/config.h"
#include "server/server.h"
#include "types/set_value.h"

namespace hotkv {

types::ZSetLimits ZLimits(CommandContext& ctx) {
  Config& cfg = ctx.server().config();
  types::ZSetLimits limits;
  limits.max_listpack_entries =
      static_cast<size_t>(std::max<int64_t>(0, cfg.zset_max_listpack_entries()));
  limits.max_listpack_value =
      static_cast<size_t>(std::max<int64_t>(0, cfg.zset_max_listpack_value()));
  return limits;
}

namespace {

ZFound Typed(CommandContext& ctx, Entry* e) {
  if (e == nullptr) {
    return {};
  }
  if (e->type() != ValueType::kZSet) {
    ctx.rb().Error(errors::kWrongType);
    return {nullptr, true};
  }
  return {e->As<types::ZSetValue>(), false};
}

}  // namespace

ZFound FindZSetForRead(CommandContext& ctx, std::string_view key) {
  return Typed(ctx, LookupRead(ctx, key));
}

ZFound FindZSetForWrite(CommandContext& ctx, std::string_view key) {
  Entry* e = ctx.db().Find(key);
  if (e != nullptr) {
    ctx.TouchEntry(e);  // a write is an access too (OBJECT IDLETIME / FREQ)
  }
  return Typed(ctx, e);
}

types::ZSetValue* InsertZSet(CommandContext& ctx, std::string_view key, types::ZSetValue zset) {
  auto* value = new types::ZSetValue(std::move(zset));
  KeyRef ref = ctx.db().Lookup(key);
  ctx.db().Insert(ref, Entry::NewObject(key, ValueType::kZSet, value, false));
  return value;
}

bool DeleteZSetIfEmpty(CommandContext& ctx, std::string_view key, const types::ZSetValue& zset) {
  if (!zset.Empty()) {
    return false;
  }
  KeyRef ref = ctx.db().Lookup(key);
  if (ref) {
    ctx.db().Erase(ref);  // frees `zset`
  }
  ctx.Notify(notify::kGeneric, "del", key);
  return true;
}

void StoreZSetResult(CommandContext& ctx, std::string_view dst, types::ZSetValue result,
                     std::string_view event) {
  Database& db = ctx.db();
  KeyRef ref = db.Lookup(dst);
  if (result.Empty()) {
    if (ref) {
      db.Erase(ref);
      ctx.KeyModified(dst, notify::kGeneric, "del");
    }
    return ctx.rb().Integer(0);
  }
  const size_t size = result.Size();
  if (ref) {
    db.Erase(ref);  // any type; the TTL goes with it (Redis's setKey)
  }
  // Insert (not Replace) so that clients blocked on `dst` are signalled even when it
  // held another value before.
  db.Insert(
      ref, Entry::NewObject(dst, ValueType::kZSet, new types::ZSetValue(std::move(result)), false));
  ctx.KeyModified(dst, notify::kZSet, event);
  ctx.rb().Integer(static_cast<int64_t>(size));
}

void ZPairsHeader(ReplyBuilder& rb, size_t n, bool withscores) {
  rb.Array(withscores && !rb.resp3() ? n * 2 : n);
}

void ZPair(ReplyBuilder& rb, std::string_view member, double score, bool withscores) {
  if (!withscores) {
    rb.Bulk(member);
    return;
  }
  if (rb.resp3()) {
    rb.Array(2);
  }
  rb.Bulk(member);
  rb.Double(score);
}

namespace {

// A plain SET as an input of ZUNION/ZINTER/ZDIFF: every member scores 1, as in Redis.
class SetAsZSetSource final : public types::ZSetSource {
 public:
  explicit SetAsZSetSource(const types::SetValue* set) : set_(set) {}
  size_t Size() const override { return set_->size(); }
  void ForEachUntil(types::ZFunctionRef<bool(std::string_view, double)> visit) const override {
    set_->ForEach([&](std::string_view m) { return visit(m, 1.0); });
  }
  std::optional<double> Score(std::string_view member) const override {
    return set_->Contains(member) ? std::optional<double>(1.0) : std::nullopt;
  }

 private:
  const types::SetValue* set_;
};

}  // namespace

ZAlgebraInput ZAlgebraSourceFor(CommandContext& ctx, const Entry* e) {
  if (e == nullptr) {
    return {};
  }
  switch (e->type()) {
    case ValueType::kZSet:
      return {std::make_unique<types::ZSetValueSource>(e->As<types::ZSetValue>()), false};
    case ValueType::kSet:
      return {std::make_unique<SetAsZSetSource>(e->As<types::SetValue>()), false};
    default:
      ctx.rb().Error(errors::kWrongType);
      return {nullptr, true};
  }
}

}  // namespace hotkv
