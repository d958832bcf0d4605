// HyperLogLog commands: PFADD, PFCOUNT, PFMERGE, PFDEBUG, PFSELFTEST. The values are plain
// strings in Redis's HLL representation (types/hyperloglog.h), so GET/SET, DUMP/RESTORE,
// APPEND... work on them as on any string, and a value copied from Redis counts the same.
//
// As in Redis:
// - A string that is not an HLL (too short, no "HYLL" magic, unknown encoding, a dense
//   value of the wrong size) is refused with "WRONGTYPE Key is not a valid HyperLogLog
//   string value."; sparse data that does not decode to 16384 registers with
//   "INVALIDOBJ Corrupted HLL object detected".
// - PFADD creates the key (counted as a change even without elements, so `PFADD k`
//   replies 1 and invalidates the new value's cache), raises registers in place, and emits
//   "pfadd". A sparse value turns dense past hll-sparse-max-bytes or when a register
//   exceeds 32. On a corrupted value the registers changed before the error stay, with no
//   event, as in Redis.
// - PFCOUNT of one key returns the cached cardinality or computes it and stores it in the
//   header (in place, under the key's lock): that is a change for WATCH and the write stream
//   (PFCOUNT is replayed as it ran) but has no keyspace event. PFCOUNT of several keys
//   merges them in a temporary and changes nothing.
// - PFMERGE reads every key (the destination included), creates the destination if
//   missing, turns it dense if any input was dense, raises its registers in ascending
//   order (a sparse destination gets Redis's exact opcodes) and emits "pfadd".
// - Every HLL command leaves the value "raw" for OBJECT ENCODING (Redis unshares it).
#include <atomic>
#include <cstring>
#include <string>

#include "commands/helpers.h"
#include "commands/register.h"
#include "common/random.h"
#include "server/server.h"
#include "server/worker.h"
#include "types/hyperloglog.h"

namespace hotkv {

namespace {

namespace hll = types::hll;

constexpr std::string_view kNotHll = "WRONGTYPE Key is not a valid HyperLogLog string value.";
constexpr std::string_view kCorrupt = "INVALIDOBJ Corrupted HLL object detected";

// Replies the right error and returns false unless `e` is null or a valid HLL.
bool CheckHll(CommandContext& ctx, const Entry* e) {
  if (e == nullptr) {
    return true;
  }
  if (!e->is_string()) {
    ctx.rb().Error(errors::kWrongType);
    return false;
  }
  if (!hll::IsValid(e->str())) {
    ctx.rb().Error(kNotHll);
    return false;
  }
  return true;
}

size_t SparseMaxBytes(CommandContext& ctx) {
  return static_cast<size_t>(ctx.server().config().hll_sparse_max_bytes());
}

// server.dirty++ without a key event (Redis's PFDEBUG conversions).
void CountDirty(CommandContext& ctx) { WorkerStats::Inc(ctx.worker().stats().dirty); }

// Stores `value` as the key's string (keeping its TTL), as Redis leaves it: "raw".
void StoreHll(CommandContext& ctx, KeyRef& ref, std::string_view key, std::string_view value) {
  ctx.db().SetString(ref, key, value, true);
  ref.entry()->set_raw_forced();
}

void PfAddCommand(CommandContext& ctx) {
  std::string_view key = ctx.arg(1);
  Database& db = ctx.db();
  KeyRef ref = db.Lookup(key);
  Entry* e = ref ? ref.entry() : nullptr;
  if (!CheckHll(ctx, e)) {
    return;
  }
  int updated = e == nullptr ? 1 : 0;
  if (e != nullptr && hll::Encoding(e->str()) == hll::kDense) {
    // Dense: registers change in place, the size never does.
    for (size_t i = 2; i < ctx.argc(); i++) {
      updated += hll::DenseAdd(e->str_data(), ctx.arg(i));
    }
    e->set_raw_forced();
    if (updated != 0) {
      hll::InvalidateCache(e->str_data());
    }
  } else {
    std::string v = e == nullptr ? hll::NewSparse() : std::string(e->str());
    const size_t max_bytes = SparseMaxBytes(ctx);
    for (size_t i = 2; i < ctx.argc(); i++) {
      const int r = hll::Add(&v, ctx.arg(i), max_bytes);
      if (r < 0) {
        StoreHll(ctx, ref, key, v);  // what was changed stays, as in Redis
        return ctx.rb().Error(kCorrupt);
      }
      updated += r;
    }
    if (updated != 0) {
      hll::InvalidateCache(v.data());
      StoreHll(ctx, ref, key, v);
    } else {
      e->set_raw_forced();
    }
  }
  if (updated != 0) {
    ctx.KeyModified(key, notify::kString, "pfadd");
    // Redis: server.dirty += updated (1 for a new key, 1 per register changed).
    if (updated > 1) {
      ctx.AddDirty(updated - 1);
    }
  }
  ctx.rb().Integer(updated != 0 ? 1 : 0);
}

// Merges every key from `first` into `max`; replies and returns false on error.
// `any_dense` tells whether one of them was dense.
bool MergeKeys(CommandContext& ctx, size_t first, uint8_t* max, bool* any_dense) {
  for (size_t i = first; i < ctx.argc(); i++) {
    Entry* e = LookupRead(ctx, ctx.arg(i));
    if (e == nullptr) {
      continue;
    }
    if (!CheckHll(ctx, e)) {
      return false;
    }
    if (hll::Encoding(e->str()) == hll::kDense) {
      *any_dense = true;
    }
    if (!hll::MergeInto(e->str(), max)) {
      ctx.rb().Error(kCorrupt);
      return false;
    }
  }
  return true;
}

void PfCountCommand(CommandContext& ctx) {
  if (ctx.argc() > 2) {
    uint8_t max[hll::kRegisters];
    memset(max, 0, sizeof(max));
    bool any_dense = false;
    if (!MergeKeys(ctx, 1, max, &any_dense)) {
      return;
    }
    return ctx.rb().Integer(static_cast<int64_t>(hll::CountRaw(max)));
  }
  std::string_view key = ctx.arg(1);
  Entry* e = LookupRead(ctx, key);
  if (e == nullptr) {
    return ctx.rb().Integer(0);
  }
  if (!CheckHll(ctx, e)) {
    return;
  }
  e->set_raw_forced();
  uint64_t card;
  if (hll::CacheValid(e->str())) {
    card = hll::CachedCard(e->str());
  } else {
    auto c = hll::Count(e->str());
    if (!c) {
      return ctx.rb().Error(kCorrupt);
    }
    card = *c;
    hll::StoreCard(e->str_data(), card);
    // A change of the value (WATCH, replicated as it ran), without a keyspace event.
    ctx.KeyModified(key, 0, "");
  }
  ctx.rb().Integer(static_cast<int64_t>(card));
}

void PfMergeCommand(CommandContext& ctx) {
  uint8_t max[hll::kRegisters];
  memset(max, 0, sizeof(max));
  bool use_dense = false;
  if (!MergeKeys(ctx, 1, max, &use_dense)) {
    return;
  }
  std::string_view key = ctx.arg(1);
  KeyRef ref = ctx.db().Lookup(key);
  std::string v = ref ? std::string(ref.entry()->str()) : hll::NewSparse();
  if ((use_dense && !hll::SparseToDense(&v)) ||
      !hll::WriteRegisters(&v, max, SparseMaxBytes(ctx))) {
    return ctx.rb().Error(kCorrupt);
  }
  hll::InvalidateCache(v.data());
  StoreHll(ctx, ref, key, v);
  // A PFADD event: in theory PFMERGE is a PFADD of the union.
  ctx.KeyModified(key, notify::kString, "pfadd");
  ctx.rb().Ok();
}

// PFDEBUG SIMD ON|OFF (Redis 8): turns the AVX-512 register histogram of PFCOUNT on or
// off (hll::SetSimd; the counts are the same either way) and reports the setting as Redis
// does ("enabled" / "disabled"). Redis 8.8 replies both the error and the status to a bad
// argument; HotKV replies only the error.
std::atomic<bool> g_hll_simd{true};

// PFDEBUG <GETREG | DECODE | ENCODING | TODENSE> key, PFDEBUG SIMD <ON | OFF>
void PfDebugCommand(CommandContext& ctx) {
  std::string_view sub = ctx.arg(1);
  std::string_view key = ctx.arg(2);
  if (EqualsIgnoreCase(sub, "SIMD")) {
    if (EqualsIgnoreCase(key, "ON") || EqualsIgnoreCase(key, "OFF")) {
      g_hll_simd.store(EqualsIgnoreCase(key, "ON"), std::memory_order_relaxed);
      hll::SetSimd(g_hll_simd.load(std::memory_order_relaxed));
      return ctx.rb().SimpleString(g_hll_simd.load(std::memory_order_relaxed) ? "enabled"
                                                                              : "disabled");
    }
    return ctx.rb().Error("ERR Argument must be ON or OFF");
  }
  KeyRef ref = ctx.db().Lookup(key);
  if (!ref) {
    return ctx.rb().Error("ERR The specified key does not exist");
  }
  Entry* e = ref.entry();
  if (!CheckHll(ctx, e)) {
    return;
  }
  e->set_raw_forced();
  const bool sparse = hll::Encoding(e->str()) == hll::kSparse;
  if (EqualsIgnoreCase(sub, "GETREG") || EqualsIgnoreCase(sub, "TODENSE")) {
    const bool getreg = EqualsIgnoreCase(sub, "GETREG");
    if (sparse) {
      std::string v(e->str());
      if (!hll::SparseToDense(&v)) {
        return ctx.rb().Error(kCorrupt);
      }
      StoreHll(ctx, ref, key, v);
      e = ref.entry();
      CountDirty(ctx);  // propagated: the replicas convert too
    }
    if (!getreg) {
      return ctx.rb().Integer(sparse ? 1 : 0);
    }
    const auto* regs = reinterpret_cast<const uint8_t*>(e->str().data()) + hll::kHeaderSize;
    ctx.rb().Array(hll::kRegisters);
    for (int j = 0; j < hll::kRegisters; j++) {
      ctx.rb().Integer(hll::DenseGet(regs, j));
    }
  } else if (EqualsIgnoreCase(sub, "DECODE")) {
    if (!sparse) {
      return ctx.rb().Error("ERR HLL encoding is not sparse");
    }
    ctx.rb().Bulk(hll::DecodeSparse(e->str()));
  } else if (EqualsIgnoreCase(sub, "ENCODING")) {
    ctx.rb().SimpleString(sparse ? "sparse" : "dense");
  } else {
    ctx.rb().Error("ERR Unknown PFDEBUG subcommand '" + std::string(sub) + "'");
  }
}

void PfSelfTestCommand(CommandContext& ctx) {
  const std::string failure = hll::SelfTest(ThreadRng());
  if (!failure.empty()) {
    return ctx.rb().Error(failure);
  }
  ctx.rb().Ok();
}

KeySpec PfCountKeys() {
  KeySpec k = KeyRange(1, -1, 1, "RW ACCESS");
  k.notes =
      "RW because it may change the internal representation of the key, and propagate to "
      "replicas";
  return k;
}

}  // namespace

void RegisterHllCommands(CommandTable& t) {
  t.Add({.name = "pfadd",
         .arity = -2,
         .flags = "write denyoom fast",
         .acl = "@write @hyperloglog @fast",
         .keys = {KeyAt(1, "RW INSERT")},
         .handler = PfAddCommand,
         .doc = {"hyperloglog", "2.8.9", "O(1) to add every element.",
                 "Adds elements to a HyperLogLog, creating the key if needed; replies 1 when "
                 "the estimate may have changed.",
                 "key [element ...]"}});
  t.Add({.name = "pfcount",
         .arity = -2,
         .flags = "readonly may_replicate lock_exclusive",
         .acl = "@read @hyperloglog @slow",
         .keys = {PfCountKeys()},
         .handler = PfCountCommand,
         .doc = {"hyperloglog", "2.8.9",
                 "O(1) with a very small average constant time when called with a single key. "
                 "O(N) with N being the number of keys, and much bigger constant times, when "
                 "called with multiple keys.",
                 "Estimates the number of distinct elements added to one HyperLogLog, or to the "
                 "union of several.",
                 "key [key ...]"}});
  t.Add({.name = "pfmerge",
         .arity = -2,
         .flags = "write denyoom",
         .acl = "@write @hyperloglog @slow",
         .keys = {KeyAt(1, "RW ACCESS INSERT"), KeyRange(2, -1, 1, "RO ACCESS")},
         .handler = PfMergeCommand,
         .doc = {"hyperloglog", "2.8.9",
                 "O(N) to merge N HyperLogLogs, but with high constant times.",
                 "Merges HyperLogLogs into a destination that then estimates their union.",
                 "destkey:key [sourcekey:key ...]"}});
  t.Add(
      {.name = "pfdebug",
       .arity = 3,
       .flags = "write denyoom admin",
       .acl = "@write @hyperloglog @admin @slow @dangerous",
       .keys = {KeyAt(2, "RW ACCESS")},
       .handler = PfDebugCommand,
       .doc = {"hyperloglog", "2.8.9", "N/A", "Internal commands for debugging HyperLogLog values.",
               "subcommand:string key", "syscmd"}});
  t.Add({.name = "pfselftest",
         .arity = 1,
         .flags = "admin",
         .acl = "@hyperloglog @admin @slow @dangerous",
         .handler = PfSelfTestCommand,
         .doc = {"hyperloglog", "2.8.9", "N/A",
                 "An internal command for testing HyperLogLog values.", "", "syscmd"}});
}

}  // namespace hotkv
