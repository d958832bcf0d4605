// Key transfer: DUMP, RESTORE, RESTORE-ASKING (and the registration of MIGRATE, whose
// handler is in dump_family_migrate.cc). Payloads are Redis's DUMP format, built and
// read by rdb/ (rdb.h), so they move between HotKV and Redis in both directions.
//
// RESTORE key ttl serialized-value [REPLACE] [ABSTTL] [IDLETIME seconds] [FREQ frequency]
// checks in Redis 8.8's order: the options first (an unknown word, a missing value, or
// IDLETIME and FREQ together is a syntax error; "Invalid IDLETIME value, must be >= 0",
// "Invalid FREQ value, must be >= 0 and <= 255"), then an existing key without REPLACE
// (BUSYKEY), then the TTL (not an integer; "Invalid TTL value, must be >= 0"), then the
// payload's version and CRC64 ("DUMP payload version or checksum are wrong"; a CRC of 0
// is not checked) and its contents ("Bad data format"). Nothing changes before all of
// these passed. A TTL of 0 means none; ABSTTL makes it a Unix time in ms. A time already
// past (ABSTTL, or a relative TTL that overflows, as in Redis) creates nothing and still
// replies OK; with REPLACE the old key is then deleted ("del" event). Otherwise the key
// is created with the "restore" event, then "overwritten" (and "type_changed") when
// REPLACE replaced a key. IDLETIME sets the idle time under an LRU (or no) policy, FREQ
// the LFU counter under an LFU policy; each is ignored under the other kind of policy.
#include <string>
#include <string_view>

#include "commands/dump_common.h"
#include "commands/helpers.h"
#include "commands/register.h"
#include "commands/zset_common.h"
#include "engine/extension_value.h"
#include "engine/lazy_free.h"
#include "rdb/rdb.h"
#include "server/server.h"

namespace hotkv {

bool DumpCompressionOn(CommandContext& ctx) {
  return ctx.server().config().GetString("rdbcompression") == "yes";
}

std::string NotDumpableError(const Entry& e) {
  return "ERR DUMP is not supported for this " + std::string(TypeName(e)) + " value";
}

bool LazyServerDel(CommandContext& ctx) {
  return ctx.server().config().GetString("lazyfree-lazy-server-del") == "yes";
}

namespace {

// Redis 8.8's verifyDumpPayload: a version HotKV reads and either a CRC64 of 0 (a
// payload written without a checksum: not checked) or the right one. (rdb's
// VerifyDumpPayload checks a CRC of 0 too, as Redis 7.0 did.)
bool PayloadFooterOk(std::string_view payload) {
  constexpr size_t kFooter = 10;  // 2-byte RDB version, 8-byte CRC64
  if (payload.size() < kFooter) {
    return false;
  }
  const std::string_view footer = payload.substr(payload.size() - kFooter);
  const int version = static_cast<uint8_t>(footer[0]) | (static_cast<uint8_t>(footer[1]) << 8);
  if (version <= rdb::kMaxReadVersion && footer.substr(2) == std::string_view("\0\0\0\0\0\0\0\0", 8)) {
    return true;
  }
  return rdb::VerifyDumpPayload(payload);
}

void DumpCommand(CommandContext& ctx) {
  Entry* e = LookupRead(ctx, ctx.arg(1));
  if (e == nullptr) {
    return ctx.rb().Null();
  }
  const std::string payload = rdb::DumpPayload(*e, DumpCompressionOn(ctx));
  if (payload.empty()) {
    return ctx.rb().Error(NotDumpableError(*e));
  }
  ctx.rb().Bulk(payload);
}

struct RestoreOptions {
  bool replace = false;
  bool absttl = false;
  int64_t lru_idle = -1;  // IDLETIME seconds; -1: not given
  int64_t lfu_freq = -1;  // FREQ; -1: not given
};

// Parses the options after the payload; replies and returns nullopt on error.
std::optional<RestoreOptions> ParseRestoreOptions(CommandContext& ctx) {
  RestoreOptions o;
  for (size_t j = 4; j < ctx.argc(); j++) {
    const size_t additional = ctx.argc() - j - 1;
    std::string_view a = ctx.arg(j);
    if (EqualsIgnoreCase(a, "REPLACE")) {
      o.replace = true;
    } else if (EqualsIgnoreCase(a, "ABSTTL")) {
      o.absttl = true;
    } else if (EqualsIgnoreCase(a, "IDLETIME") && additional >= 1 && o.lfu_freq == -1) {
      auto v = ctx.IntArg(j + 1);
      if (!v) {
        return std::nullopt;
      }
      if (*v < 0) {
        ctx.rb().Error("ERR Invalid IDLETIME value, must be >= 0");
        return std::nullopt;
      }
      o.lru_idle = *v;
      j++;
    } else if (EqualsIgnoreCase(a, "FREQ") && additional >= 1 && o.lru_idle == -1) {
      auto v = ctx.IntArg(j + 1);
      if (!v) {
        return std::nullopt;
      }
      if (*v < 0 || *v > 255) {
        ctx.rb().Error("ERR Invalid FREQ value, must be >= 0 and <= 255");
        return std::nullopt;
      }
      o.lfu_freq = *v;
      j++;
    } else {
      ctx.rb().Error(errors::kSyntax);
      return std::nullopt;
    }
  }
  return o;
}

// Redis's objectSetLRUOrLFU: FREQ under an LFU policy, IDLETIME under any other.
void SetAccessInfo(CommandContext& ctx, Entry* e, const RestoreOptions& o) {
  if (ctx.server().config().lfu_policy()) {
    if (o.lfu_freq >= 0) {
      e->set_lfu_counter(static_cast<uint8_t>(o.lfu_freq));
      e->set_access_clock(static_cast<uint32_t>(ctx.now_ms() / 60000));
    }
  } else if (o.lru_idle >= 0) {
    const uint32_t now = ctx.server().lru_clock();
    e->set_access_clock(static_cast<uint64_t>(o.lru_idle) >= now
                            ? 0
                            : now - static_cast<uint32_t>(o.lru_idle));
  }
}

void RestoreCommand(CommandContext& ctx) {
  std::optional<RestoreOptions> opts = ParseRestoreOptions(ctx);
  if (!opts) {
    return;
  }
  Database& db = ctx.db();
  const std::string_view key = ctx.arg(1);
  KeyRef ref = db.Lookup(key);
  if (ref && !opts->replace) {
    return ctx.rb().Error("BUSYKEY Target key name already exists.");
  }
  auto ttl = ctx.IntArg(2);
  if (!ttl) {
    return;
  }
  if (*ttl < 0) {
    return ctx.rb().Error("ERR Invalid TTL value, must be >= 0");
  }
  const std::string_view payload = ctx.arg(3);
  if (!PayloadFooterOk(payload)) {
    return ctx.rb().Error("ERR DUMP payload version or checksum are wrong");
  }
  Result<Entry*> loaded = rdb::LoadDumpPayload(
      payload, key, EncodingLimitsFrom(ctx.server().config()), ZLimits(ctx));
  if (!loaded.ok()) {
    return ctx.rb().Error("ERR Bad data format");
  }
  Entry* e = *loaded;

  // REPLACE: the old key goes first (Redis's dbDelete, lazily freed per
  // lazyfree-lazy-server-del); the new value is then a new key (fresh access time,
  // blocked clients served).
  bool deleted = false;
  ValueType old_type = ValueType::kString;
  if (ref) {
    old_type = ref.entry()->type();
    FreeEntry(db.Detach(ref), LazyServerDel(ctx));
    deleted = true;
  }
  // A relative TTL is added with wrap-around, as Redis does: one that overflows lands in
  // the past and the key is not created.
  int64_t when = *ttl;
  if (*ttl != 0 && !opts->absttl) {
    when = static_cast<int64_t>(static_cast<uint64_t>(*ttl) + static_cast<uint64_t>(ctx.now_ms()));
  }
  if (*ttl != 0 && when <= ctx.now_ms()) {
    Entry::Free(e);
    if (deleted) {
      ctx.KeyModified(key, notify::kGeneric, "del");
      ctx.PropagateAs({"DEL", key});  // what it did: the old key went, nothing came
    }
    return ctx.rb().Ok();
  }
  ref = db.Lookup(key);
  db.Insert(ref, e);
  if (*ttl != 0) {
    db.SetTtl(ref, when);
  }
  e = ref.entry();
  SetAccessInfo(ctx, e, *opts);
  const ValueType new_type = e->type();
  ctx.KeyModified(key, notify::kGeneric, "restore");
  if (deleted) {
    ctx.KeyOverwritten(key, old_type, new_type);
  }
  if (*ttl != 0 && !opts->absttl && ctx.propagating()) {
    // As Redis: a relative TTL is replayed as the absolute time it gave (ABSTTL).
    std::vector<std::string_view> args(ctx.args().begin(), ctx.args().end());
    const std::string at = std::to_string(when);
    args[2] = at;
    args.emplace_back("ABSTTL");
    ctx.PropagateAs(args);
  }
  ctx.rb().Ok();
}

}  // namespace

void RegisterDumpCommands(CommandTable& t) {
  const char* kRestoreComplexity =
      "O(1) to create the new key and additional O(N*M) to reconstruct the serialized value, "
      "where N is the number of Redis objects composing the value and M their average size. "
      "For small string values the time complexity is thus O(1)+O(1*M) where M is small, so "
      "simply O(1). However for sorted set values the complexity is O(N*M*log(N)) because "
      "inserting values into sorted sets is O(log(N)).";
  const char* kRestoreSyntax =
      "key ttl:integer serialized-value [REPLACE] [ABSTTL] [IDLETIME seconds] "
      "[FREQ frequency:integer]";
  t.Add({.name = "dump", .arity = 2, .flags = "readonly", .acl = "@keyspace @read @slow",
         .keys = {KeyAt(1, "RO ACCESS")}, .handler = DumpCommand,
         .doc = {"generic", "2.6.0",
                 "O(1) to access the key and additional O(N*M) to serialize it, where N is the "
                 "number of Redis objects composing the value and M their average size. For "
                 "small string values the time complexity is thus O(1)+O(1*M) where M is small, "
                 "so simply O(1).",
                 "Returns the value of a key in Redis's serialized (DUMP) format.", "key"},
         .tips = {"nondeterministic_output"}});
  t.Add({.name = "restore", .arity = -4, .flags = "write denyoom",
         .acl = "@keyspace @write @slow @dangerous", .keys = {KeyAt(1, "OW UPDATE")},
         .handler = RestoreCommand,
         .doc = {"generic", "2.6.0", kRestoreComplexity,
                 "Creates a key from a DUMP payload, optionally replacing it and setting its "
                 "expiry and access statistics.",
                 kRestoreSyntax}});
  t.Add({.name = "restore-asking", .arity = -4, .flags = "write denyoom asking",
         .acl = "@keyspace @write @slow @dangerous", .keys = {KeyAt(1, "OW UPDATE")},
         .handler = RestoreCommand,
         .doc = {"server", "3.0.0", kRestoreComplexity,
                 "RESTORE as sent by a cluster node migrating keys to this one.", kRestoreSyntax,
                 "syscmd"}});
  t.Add({.name = "migrate", .arity = -6, .flags = "write self_locking",
         .acl = "@keyspace @write @slow @dangerous",
         .keys = {KeyAt(3, "RW ACCESS DELETE"),
                  KeyKeyword("KEYS", -2, -1, 1, "RW ACCESS DELETE INCOMPLETE")},
         .handler = MigrateCommand,
         .doc = {"generic", "2.6.0",
                 "This command actually executes a DUMP+DEL in the source instance, and a "
                 "RESTORE in the target instance. See the pages of these commands for time "
                 "complexity. Also an O(N) data transfer between the two instances is performed.",
                 "Moves keys to another server (DUMP here, RESTORE there, then DEL here).",
                 "host port <key-selector: key | <empty-string: ''>> destination-db:integer "
                 "timeout:integer [COPY] [REPLACE] "
                 "[authentication: <auth: AUTH password> | <auth2: AUTH2 username password>] "
                 "[keys: KEYS key ...]"},
         .getkeys = MigrateGetKeys,
         .tips = {"nondeterministic_output"}});
}

}  // namespace hotkv
