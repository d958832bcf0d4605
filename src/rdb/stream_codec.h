// rdb/stream_codec.h (internal): streams in Redis's RDB encoding.
//
// Written as RDB_TYPE_STREAM_LISTPACKS_2 (19, what Redis 7.0 loads, as the rest of the
// files HotKV writes; a consumer's active-time, which only type 21 carries, is not kept:
// it reads back as its seen-time, as Redis loads type 19): the entries
// as listpack nodes of at most 100 live entries, each keyed by its first id (16 bytes big
// endian) and laid out as Redis lays them out (master entry: count, deleted, fields, 0;
// then per entry: flags, ms and seq deltas, [field count and fields unless the same as the
// master's], values, element count), then length, last id, first id, max deleted id,
// entries added, and the groups (name, last id, entries read, PEL with delivery time and
// count, consumers with seen time and their PEL ids).
//
// Read: types 15 (v1), 19 (v2) and 21 (v3); deleted entries inside a node are skipped.
// Later types (Redis 8.6's) fail with an error.
#pragma once

#include <string>
#include <string_view>

#include "engine/entry.h"
#include "rdb/format.h"

namespace hotkv::rdb {

// Writes a stream entry's value (after the type byte and key).
// The type a stream is written as: 27 (Redis 8.8's STREAM_LISTPACKS_5) when it holds
// state only that type carries (entries XNACK released, IDMP records, counters or
// settings other than the defaults), else 19, which Redis 7.0 reads.
uint8_t StreamRdbType(const Entry& e);
void WriteStream(Encoder& enc, const Entry& e);

// Reads a stream of RDB type `type` into a new entry under `key`; null after r.Fail.
Entry* LoadStream(Reader& r, uint8_t type, std::string_view key, bool expire_block);

}  // namespace hotkv::rdb
