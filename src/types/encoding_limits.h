// Encoding thresholds for the collection types, one field per server config name.
//
// Small collections use compact encodings (packed arrays, intsets) and convert to full
// structures once they grow past these limits; they never convert back. The server owns
// one EncodingLimits built from its config (CONFIG SET updates it) and passes it to every
// mutating call that may grow a collection. The defaults are Redis's.
//
//   hotkv::types::EncodingLimits limits;          // Redis defaults
//   limits.hash_max_listpack_entries = 256;       // CONFIG SET hash-max-listpack-entries 256
//   hash.Set("field", "value", limits);
//
// Thread safety: a plain aggregate; callers synchronise access as for any value.

#ifndef HOTKV_TYPES_ENCODING_LIMITS_H_
#define HOTKV_TYPES_ENCODING_LIMITS_H_

#include <cstddef>
#include <cstdint>

namespace hotkv::types {

struct EncodingLimits {
  // list-max-listpack-size: negative -1..-5 bound each packed node to 4/8/16/32/64 KB;
  // positive N bounds it to N entries (and, for safety, to 8 KB).
  int64_t list_max_listpack_size = -2;
  // hash-max-listpack-entries / hash-max-listpack-value.
  uint64_t hash_max_listpack_entries = 128;
  uint64_t hash_max_listpack_value = 64;
  // set-max-intset-entries / set-max-listpack-entries / set-max-listpack-value.
  uint64_t set_max_intset_entries = 512;
  uint64_t set_max_listpack_entries = 128;
  uint64_t set_max_listpack_value = 64;
};

// The bounds one packed list node may reach, derived from list-max-listpack-size.
struct ListNodeLimit {
  size_t max_bytes;    // a node holding more than one entry stays at or under this size
  size_t max_entries;  // a node holds at most this many entries
};

// Interprets list-max-listpack-size as Redis does: -1..-5 select 4..64 KB (values below
// -5 clamp to 64 KB), a positive count also keeps a node under 8 KB, and 0 is treated
// as 1 entry per node.
ListNodeLimit ListNodeLimitFor(int64_t list_max_listpack_size);

}  // namespace hotkv::types

#endif  // HOTKV_TYPES_ENCODING_LIMITS_H_
