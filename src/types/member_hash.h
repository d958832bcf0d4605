// HashBytes: the string hash of the collection hash tables.
//
// A 64-bit multiply-mix hash in the style of wyhash: a handful of instructions for the
// short strings fields and members usually are, good avalanche, and keyed with a seed
// chosen at random once per process so that clients cannot aim many fields at one
// bucket (Redis keys its SipHash the same way). Hash values therefore differ between
// runs; nothing may persist them.
//
// Thread safety: pure functions; the process seed is initialised thread-safely.

#ifndef HOTKV_TYPES_MEMBER_HASH_H_
#define HOTKV_TYPES_MEMBER_HASH_H_

#include <cstdint>
#include <string_view>

namespace hotkv::types {

uint64_t HashBytes(std::string_view bytes, uint64_t seed);

// HashBytes with this process's random seed.
uint64_t HashString(std::string_view bytes);

// Tests only: fixes the process seed so that hash-table iteration orders (and so the
// members SPOP/HRANDFIELD pick) repeat from run to run. Takes effect only when called
// before the first HashString of the process (e.g. from a test file's static
// initialiser); returns whether it did.
bool PinHashSeedForTesting(uint64_t seed);

}  // namespace hotkv::types

#endif  // HOTKV_TYPES_MEMBER_HASH_H_
