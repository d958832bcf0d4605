// Bitmap commands on string values: SETBIT GETBIT BITCOUNT BITPOS BITOP. (BITFIELD and
// BITFIELD_RO: bitmap_family_field.cc.) The bits live in the string's bytes (bit 0 is the
// most significant bit of byte 0), so GET/SETRANGE/APPEND see exactly what Redis would.
//
// Edge cases honoured (as Redis 8):
// - Offsets: negative, non-integer, or with a byte at or past proto-max-bulk-len are
//   "ERR bit offset is not an integer or out of range". SETBIT's value must be 0 or 1
//   ("ERR bit is not an integer or out of range"), checked before the key's type.
// - SETBIT creates or zero-pads the string, makes its encoding "raw" even when nothing
//   changes, and notifies "setbit" only when the string grew or the bit changed.
// - BITCOUNT/BITPOS parse every argument before looking the key up (Redis 7.0 looked up
//   first); ranges count from the end when negative and are clamped; start > end counts
//   0 / finds -1. BITPOS of 0 with no explicit end finds the first bit past the string
//   when the range is all ones (the string reads as zero-padded), -1 with an explicit
//   end. A missing key finds 0 for bit 0 and -1 for bit 1; an empty string -1.
// - BITOP: NOT takes one source, DIFF/DIFF1/ANDOR at least two (Redis 8.2); sources are
//   zero-padded to the longest; an empty result deletes the destination ("del"),
//   otherwise it is stored with no TTL and encoding "raw" ("set").
#include <cstring>
#include <vector>

#include "commands/bitmap_common.h"
#include "commands/helpers.h"
#include "commands/register.h"
#include "server/server.h"
#include "types/bitops.h"

namespace hotkv {

namespace {

const uint8_t* Bytes(const Entry* e) { return reinterpret_cast<const uint8_t*>(e->str().data()); }

void SetBitCommand(CommandContext& ctx) {
  auto offset = ParseBitOffset(ctx, ctx.arg(2), 0);
  if (!offset) {
    return;
  }
  auto on = ParseInt64(ctx.arg(3));
  if (!on || (*on != 0 && *on != 1)) {
    return ctx.rb().Error("ERR bit is not an integer or out of range");
  }
  std::string_view key = ctx.arg(1);
  KeyRef ref = ctx.db().Lookup(key);
  bool grown;
  Entry* e = StringForBitWrite(ctx, ref, key, *offset >> 3, &grown);
  if (e == nullptr) {
    return;
  }
  auto* byte = reinterpret_cast<uint8_t*>(e->str_data()) + (*offset >> 3);
  const uint8_t mask = static_cast<uint8_t>(0x80 >> (*offset & 7));
  const bool old = (*byte & mask) != 0;
  if (grown || old != (*on == 1)) {
    *byte = static_cast<uint8_t>(*on ? (*byte | mask) : (*byte & ~mask));
    ctx.KeyModified(key, notify::kString, "setbit");
  }
  ctx.rb().Integer(old ? 1 : 0);
}

void GetBitCommand(CommandContext& ctx) {
  auto offset = ParseBitOffset(ctx, ctx.arg(2), 0);
  if (!offset) {
    return;
  }
  bool failed;
  Entry* e = LookupString(ctx, ctx.arg(1), &failed);
  if (failed) {
    return;
  }
  const uint64_t byte = *offset >> 3;
  if (e == nullptr || byte >= e->str_size()) {
    return ctx.rb().Integer(0);
  }
  ctx.rb().Integer((Bytes(e)[byte] >> (7 - (*offset & 7))) & 1);
}

// Parses BYTE | BIT; replies a syntax error and returns nullopt otherwise.
std::optional<bool> ParseUnitIsBit(CommandContext& ctx, std::string_view arg) {
  if (EqualsIgnoreCase(arg, "BIT")) {
    return true;
  }
  if (EqualsIgnoreCase(arg, "BYTE")) {
    return false;
  }
  ctx.rb().Error(errors::kSyntax);
  return std::nullopt;
}

// Resolves start/end (negative from the end) over `total` units, clamped as Redis does.
// Returns false for an empty range.
bool ClampRange(int64_t total, int64_t* start, int64_t* end) {
  if (*start < 0) {
    *start += total;
  }
  if (*end < 0) {
    *end += total;
  }
  if (*start < 0) {
    *start = 0;
  }
  if (*end < 0) {
    *end = 0;
  }
  if (*end >= total) {
    *end = total - 1;
  }
  return *start <= *end;
}

// BITCOUNT key [start end [BYTE | BIT]]
void BitCountCommand(CommandContext& ctx) {
  const size_t argc = ctx.argc();
  if (argc != 2 && argc != 4 && argc != 5) {
    return ctx.rb().Error(errors::kSyntax);
  }
  int64_t start = 0, end = -1;
  bool is_bit = false;
  if (argc >= 4) {
    auto s = ctx.IntArg(2);
    if (!s) {
      return;
    }
    auto e = ctx.IntArg(3);
    if (!e) {
      return;
    }
    start = *s;
    end = *e;
    if (argc == 5) {
      auto unit = ParseUnitIsBit(ctx, ctx.arg(4));
      if (!unit) {
        return;
      }
      is_bit = *unit;
    }
  }
  bool failed;
  Entry* e = LookupString(ctx, ctx.arg(1), &failed);
  if (failed) {
    return;
  }
  if (e == nullptr) {
    return ctx.rb().Integer(0);
  }
  const auto len = static_cast<int64_t>(e->str_size());
  // Both counted from the end and in the wrong order: empty, before any clamping (which
  // could bring both to 0). BITPOS has no such check.
  if (start < 0 && end < 0 && start > end) {
    return ctx.rb().Integer(0);
  }
  if (!ClampRange(is_bit ? len * 8 : len, &start, &end)) {
    return ctx.rb().Integer(0);
  }
  uint64_t n;
  if (is_bit) {
    n = types::CountBitsInRange(Bytes(e), static_cast<uint64_t>(start), static_cast<uint64_t>(end));
  } else {
    n = types::CountBits(Bytes(e) + start, static_cast<size_t>(end - start + 1));
  }
  ctx.rb().Integer(static_cast<int64_t>(n));
}

// BITPOS key bit [start [end [BYTE | BIT]]]
void BitPosCommand(CommandContext& ctx) {
  const size_t argc = ctx.argc();
  auto bit = ctx.IntArg(2);
  if (!bit) {
    return;
  }
  if (*bit != 0 && *bit != 1) {
    return ctx.rb().Error("ERR The bit argument must be 1 or 0.");
  }
  if (argc > 6) {
    return ctx.rb().Error(errors::kSyntax);
  }
  // Redis parses start, then the unit, then end.
  int64_t start = 0, end = 0;
  bool is_bit = false;
  const bool end_given = argc >= 5;
  if (argc >= 4) {
    auto s = ctx.IntArg(3);
    if (!s) {
      return;
    }
    start = *s;
  }
  if (argc == 6) {
    auto unit = ParseUnitIsBit(ctx, ctx.arg(5));
    if (!unit) {
      return;
    }
    is_bit = *unit;
  }
  if (end_given) {
    auto e = ctx.IntArg(4);
    if (!e) {
      return;
    }
    end = *e;
  }
  bool failed;
  Entry* e = LookupString(ctx, ctx.arg(1), &failed);
  if (failed) {
    return;
  }
  if (e == nullptr) {
    return ctx.rb().Integer(*bit ? -1 : 0);
  }
  const auto len = static_cast<int64_t>(e->str_size());
  const int64_t total = is_bit ? len * 8 : len;
  if (!end_given) {
    end = total - 1;
  }
  if (!ClampRange(total, &start, &end)) {
    return ctx.rb().Integer(-1);
  }
  const uint64_t first = is_bit ? static_cast<uint64_t>(start) : static_cast<uint64_t>(start) * 8;
  const uint64_t last = is_bit ? static_cast<uint64_t>(end) : static_cast<uint64_t>(end) * 8 + 7;
  int64_t pos = types::FindBit(Bytes(e), first, last, *bit == 1);
  if (pos < 0 && *bit == 0 && !end_given) {
    // No explicit end: the string continues with zeros, the first right after the range
    // (which then ends at the string's last byte).
    pos = static_cast<int64_t>(((last >> 3) + 1) * 8);
  }
  ctx.rb().Integer(pos);
}

// BITOP operation destkey key [key ...]
void BitOpCommand(CommandContext& ctx) {
  auto op = types::ParseBitOp(ctx.arg(1));
  if (!op) {
    return ctx.rb().Error(errors::kSyntax);
  }
  const size_t sources = ctx.argc() - 3;
  if (*op == types::BitOp::kNot && sources != 1) {
    return ctx.rb().Error("ERR BITOP NOT must be called with a single source key.");
  }
  if (sources < types::BitOpMinSources(*op)) {
    std::string name(ctx.arg(1));
    for (char& c : name) {
      c = static_cast<char>(toupper(static_cast<unsigned char>(c)));
    }
    return ctx.rb().Error("ERR BITOP " + name + " must be called with at least two source keys.");
  }
  std::vector<std::string_view> values;
  values.reserve(sources);
  for (size_t i = 3; i < ctx.argc(); i++) {
    bool failed;
    Entry* e = LookupString(ctx, ctx.arg(i), &failed);
    if (failed) {
      return;
    }
    values.push_back(e != nullptr ? e->str() : std::string_view());
  }
  std::string result = types::ApplyBitOp(*op, values);
  std::string_view dest = ctx.arg(2);
  Database& db = ctx.db();
  KeyRef ref = db.Lookup(dest);
  if (!result.empty()) {
    if (ref) {
      ctx.KeyOverwritten(dest, ref.entry()->type(), ValueType::kString);
    }
    db.SetString(ref, dest, result, false);
    ref.entry()->set_raw_forced();
    ctx.KeyModified(dest, notify::kString, "set");
  } else if (ref) {
    db.Erase(ref);
    ctx.KeyModified(dest, notify::kGeneric, "del");
  }
  ctx.rb().Integer(static_cast<int64_t>(result.size()));
}

}  // namespace

void RegisterBitmapCommands(CommandTable& t) {
  t.Add({.name = "setbit", .arity = 4, .flags = "write denyoom", .acl = "@write @bitmap @slow",
         .keys = {KeyAt(1, "RW ACCESS UPDATE")}, .handler = SetBitCommand,
         .doc = {"bitmap", "2.2.0", "O(1)",
                 "Sets or clears the bit at an offset of a string value, creating or padding "
                 "the string with zeros; returns the bit's previous value.",
                 "key offset:integer value:integer"}});
  t.Add({.name = "getbit", .arity = 3, .flags = "readonly fast", .acl = "@read @bitmap @fast",
         .keys = {KeyAt(1, "RO ACCESS")}, .handler = GetBitCommand,
         .doc = {"bitmap", "2.2.0", "O(1)",
                 "Returns the bit at an offset of a string value (0 past its end).",
                 "key offset:integer"}});
  t.Add({.name = "bitcount", .arity = -2, .flags = "readonly", .acl = "@read @bitmap @slow",
         .keys = {KeyAt(1, "RO ACCESS")}, .handler = BitCountCommand,
         .doc = {"bitmap", "2.6.0", "O(N)",
                 "Counts the set bits of a string value, optionally in a byte or bit range.",
                 "key [range: start:integer end:integer [unit: BYTE | BIT]]"}});
  t.Add({.name = "bitpos", .arity = -3, .flags = "readonly", .acl = "@read @bitmap @slow",
         .keys = {KeyAt(1, "RO ACCESS")}, .handler = BitPosCommand,
         .doc = {"bitmap", "2.8.7", "O(N)",
                 "Finds the first set or clear bit of a string value, optionally in a byte or "
                 "bit range.",
                 "key bit:integer [range: start:integer [end-unit-block: end:integer [unit: BYTE | BIT]]]"}});
  t.Add({.name = "bitop", .arity = -4, .flags = "write denyoom", .acl = "@write @bitmap @slow",
         .keys = {KeyAt(2, "OW UPDATE"), KeyRange(3, -1, 1, "RO ACCESS")},
         .handler = BitOpCommand,
         .doc = {"bitmap", "2.6.0", "O(N)",
                 "Stores the bitwise AND, OR, XOR, NOT, DIFF, DIFF1, ANDOR or ONE of string "
                 "values in a key.",
                 "<operation: AND | OR | XOR | NOT | DIFF | DIFF1 | ANDOR | ONE> destkey:key key [key ...]"}});
}

}  // namespace hotkv
