// Shared pieces of the hash command family (hash_family.cc, hash_family_expiry.cc): typed
// lookups, the encoding limits, and lazy field expiry.
//
// Lazy field expiry, as Redis 8 does it: a command that reads or conditionally writes
// given fields (HGET, HMGET, HEXISTS, HSTRLEN, HGETDEL, HGETEX, HSETNX, HINCRBY*,
// HSETEX, and SORT/SORT_RO's BY/GET "->field" patterns) first deletes those of them whose
// time has come (ExpireDueFields: "hexpired", or only "del" when they were the last; HDEL
// in the write stream), then works as if they never existed. Whole-hash reads (HGETALL,
// HKEYS, HVALS, HSCAN, HRANDFIELD) skip expired fields without deleting them; HLEN counts
// them (Redis does too); HSET, HDEL and the HEXPIRE family treat them as present; a small
// hash converting to "hashtable" keeps them (Redis 8.8 too). The engine's active cycle
// reclaims the rest (Keyspace::ExpireCycle).
//
// Thread safety: stateless helpers; run with the key's shard locked.
#pragma once

#include <cstddef>
#include <string_view>

#include "server/command_context.h"
#include "server/command_table.h"
#include "types/encoding_limits.h"
#include "types/hash_value.h"

namespace hotkv {

// A hash found by a read lookup (statistics, keymiss, access time), or null when the key
// is missing. Sets *wrong_type (and replies WRONGTYPE) when the key holds another type.
types::HashValue* ReadHash(CommandContext& ctx, std::string_view key, bool* wrong_type);
// The hash of `key` for a write, created empty when the key is missing (the caller then
// adds at least one field). Null after replying WRONGTYPE.
types::HashValue* HashForWrite(CommandContext& ctx, std::string_view key);
// The encoding limits of the live configuration.
types::EncodingLimits HashLimits(CommandContext& ctx);

// Lazy expiry of the fields named by args first, first + step, ... (count of them) of
// `hash`, the value of `key`: deletes those whose time has come. Returns the hash, or null
// when the key went with them (or `hash` was null).
types::HashValue* ExpireDueFields(CommandContext& ctx, std::string_view key,
                                  types::HashValue* hash, size_t first, size_t count,
                                  size_t step = 1);

// Lazy expiry of one field of `hash` (the value of `key`) whose time has come, for
// readers that name fields some other way (SORT's BY/GET "->field"). Returns the hash, or
// null when the key went with it.
types::HashValue* ExpireDueField(CommandContext& ctx, std::string_view key,
                                 types::HashValue* hash, std::string_view field);

// The strict `FIELDS numfields field ...` block at args 2.. of HTTL & co., HPERSIST and
// HGETDEL (it must end the command). Replies Redis's error and returns false if wrong.
bool ParseTrailingFields(CommandContext& ctx);

// HEXPIRE HPEXPIRE HEXPIREAT HPEXPIREAT HTTL HPTTL HEXPIRETIME HPEXPIRETIME HPERSIST
// HGETEX HSETEX (hash_family_expiry.cc).
void RegisterHashExpiryCommands(CommandTable& t);

}  // namespace hotkv
