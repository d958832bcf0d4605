// Pieces shared by the bitmap commands (bitmap_family.cc, bitmap_family_field.cc): bit
// offset arguments and the string a bit write works on.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include "commands/helpers.h"

namespace hotkv {

inline constexpr std::string_view kBitOffsetError =
    "ERR bit offset is not an integer or out of range";

// A bit offset argument as Redis reads it: a non-negative integer whose byte lies below
// proto-max-bulk-len; with `hash_bits` > 0 (BITFIELD) also "#N", meaning N * hash_bits
// (multiplied in 64 bits, wrapping as Redis's does). Replies kBitOffsetError and returns
// nullopt otherwise.
std::optional<uint64_t> ParseBitOffset(CommandContext& ctx, std::string_view arg, int hash_bits);

// The string value a bit write up to byte `last_byte` changes, as Redis's
// lookupStringForBitCommand: a missing key is created holding last_byte + 1 zero bytes, a
// shorter string is padded with zeros to that length, and the value's encoding becomes
// "raw" (even if nothing changes). Sets *grown when the key was created or lengthened.
// Replies WRONGTYPE and returns nullptr when the key holds another type. No notification.
Entry* StringForBitWrite(CommandContext& ctx, KeyRef& ref, std::string_view key, uint64_t last_byte,
                         bool* grown);

}  // namespace hotkv
