// BITFIELD and BITFIELD_RO: signed (i1..i64) and unsigned (u1..u63) integers at any bit
// offset of a string value.
//
// Edge cases honoured (as Redis):
// - Every operation is parsed before anything runs; the first bad one answers: an unknown
//   word or missing arguments "ERR syntax error", a bad type "ERR Invalid bitfield type.
//   Use something like i16 u8. Note that u64 is not supported but i64 is.", a bad offset
//   "ERR bit offset is not an integer or out of range" ("#N" is N times the width), a
//   bad value "ERR value is not an integer or out of range", a bad OVERFLOW "ERR Invalid
//   OVERFLOW type specified". Then BITFIELD_RO refuses SET/INCRBY, then WRONGTYPE.
// - OVERFLOW applies to the SET/INCRBY after it: WRAP (default), SAT, FAIL (the op
//   answers nil and writes nothing). An unsigned SET of a negative value overflows as a
//   huge number (SAT stores the maximum).
// - With any SET/INCRBY the string is created or zero-padded up to the farthest field
//   written before the operations run, even if they all FAIL, and its encoding becomes
//   "raw"; "setbit" is notified once when a write changed a value or the string grew. GET reads past the
//   string's end as zeros and creates nothing.
#include <optional>
#include <vector>

#include "commands/bitmap_common.h"
#include "commands/helpers.h"
#include "commands/register.h"
#include "server/server.h"
#include "types/bitops.h"

namespace hotkv {

namespace {

constexpr std::string_view kBadType =
    "ERR Invalid bitfield type. Use something like i16 u8. Note that u64 is not supported but "
    "i64 is.";

struct FieldOp {
  enum Kind { kGet, kSet, kIncrBy } kind;
  bool is_signed;
  int bits;
  uint64_t offset;
  int64_t value;  // SET's value or INCRBY's increment
  types::BitfieldOverflow overflow;
};

// "i<1..64>" or "u<1..63>"; replies kBadType otherwise.
bool ParseFieldType(CommandContext& ctx, std::string_view arg, FieldOp* op) {
  if (arg.size() >= 2 && (arg[0] == 'i' || arg[0] == 'u')) {
    op->is_signed = arg[0] == 'i';
    auto bits = ParseInt64(arg.substr(1));
    if (bits && *bits >= 1 && *bits <= (op->is_signed ? 64 : 63)) {
      op->bits = static_cast<int>(*bits);
      return true;
    }
  }
  ctx.rb().Error(kBadType);
  return false;
}

// Parses the operations; replies and returns nullopt on the first error.
std::optional<std::vector<FieldOp>> ParseFieldOps(CommandContext& ctx) {
  std::vector<FieldOp> ops;
  auto overflow = types::BitfieldOverflow::kWrap;
  for (size_t i = 2; i < ctx.argc();) {
    std::string_view word = ctx.arg(i);
    const size_t rest = ctx.argc() - i - 1;
    if (EqualsIgnoreCase(word, "OVERFLOW") && rest >= 1) {
      std::string_view how = ctx.arg(i + 1);
      if (EqualsIgnoreCase(how, "WRAP")) {
        overflow = types::BitfieldOverflow::kWrap;
      } else if (EqualsIgnoreCase(how, "SAT")) {
        overflow = types::BitfieldOverflow::kSat;
      } else if (EqualsIgnoreCase(how, "FAIL")) {
        overflow = types::BitfieldOverflow::kFail;
      } else {
        ctx.rb().Error("ERR Invalid OVERFLOW type specified");
        return std::nullopt;
      }
      i += 2;
      continue;
    }
    FieldOp op{};
    if (EqualsIgnoreCase(word, "GET") && rest >= 2) {
      op.kind = FieldOp::kGet;
    } else if (EqualsIgnoreCase(word, "SET") && rest >= 3) {
      op.kind = FieldOp::kSet;
    } else if (EqualsIgnoreCase(word, "INCRBY") && rest >= 3) {
      op.kind = FieldOp::kIncrBy;
    } else {
      ctx.rb().Error(errors::kSyntax);
      return std::nullopt;
    }
    if (!ParseFieldType(ctx, ctx.arg(i + 1), &op)) {
      return std::nullopt;
    }
    auto offset = ParseBitOffset(ctx, ctx.arg(i + 2), op.bits);
    if (!offset) {
      return std::nullopt;
    }
    op.offset = *offset;
    op.overflow = overflow;
    if (op.kind != FieldOp::kGet) {
      auto v = ctx.IntArg(i + 3);
      if (!v) {
        return std::nullopt;
      }
      op.value = *v;
    }
    i += op.kind == FieldOp::kGet ? 3 : 4;
    ops.push_back(op);
  }
  return ops;
}

int64_t FieldValue(uint64_t raw, const FieldOp& op) {
  return op.is_signed ? types::SignExtend(raw, op.bits) : static_cast<int64_t>(raw);
}

void BitFieldGeneric(CommandContext& ctx, bool read_only) {
  auto ops = ParseFieldOps(ctx);
  if (!ops) {
    return;
  }
  std::string_view key = ctx.arg(1);
  uint64_t last_written_bit = 0;
  bool writes = false;
  for (const FieldOp& op : *ops) {
    if (op.kind != FieldOp::kGet) {
      writes = true;
      last_written_bit = std::max(last_written_bit, op.offset + static_cast<uint64_t>(op.bits) - 1);
    }
  }
  Entry* e;
  bool grown = false;
  if (!writes) {
    e = LookupRead(ctx, key);
    if (e != nullptr && !e->is_string()) {
      return ctx.rb().Error(errors::kWrongType);
    }
  } else {
    if (read_only) {
      return ctx.rb().Error("ERR BITFIELD_RO only supports the GET subcommand");
    }
    KeyRef ref = ctx.db().Lookup(key);
    e = StringForBitWrite(ctx, ref, key, last_written_bit >> 3, &grown);
    if (e == nullptr) {
      return;
    }
  }
  ctx.rb().Array(ops->size());
  size_t changes = 0;
  for (const FieldOp& op : *ops) {
    const auto* bytes = reinterpret_cast<const uint8_t*>(e != nullptr ? e->str().data() : "");
    const size_t len = e != nullptr ? e->str_size() : 0;
    const uint64_t raw = types::GetBitfield(bytes, len, op.offset, op.bits);
    const int64_t old = FieldValue(raw, op);
    if (op.kind == FieldOp::kGet) {
      ctx.rb().Integer(old);
      continue;
    }
    const bool incr = op.kind == FieldOp::kIncrBy;
    auto stored = types::ResolveBitfield(op.is_signed, op.bits, incr ? old : op.value,
                                         incr ? op.value : 0, op.overflow);
    if (!stored) {
      ctx.rb().Null();
      continue;
    }
    types::SetBitfield(reinterpret_cast<uint8_t*>(e->str_data()), op.offset, op.bits,
                       static_cast<uint64_t>(*stored));
    if (grown || *stored != old) {
      changes++;  // as Redis: a write that changes nothing is no change
    }
    ctx.rb().Integer(op.kind == FieldOp::kSet ? old : *stored);
  }
  if (changes > 0) {
    ctx.KeyModified(key, notify::kString, "setbit");
  } else if (writes) {
    // Every write failed: the string may still have grown (as in Redis), silently.
    ctx.db().UpdateKeySize(key);
  }
}

void BitFieldCommand(CommandContext& ctx) { BitFieldGeneric(ctx, false); }
void BitFieldRoCommand(CommandContext& ctx) { BitFieldGeneric(ctx, true); }

}  // namespace

void RegisterBitFieldCommands(CommandTable& t) {
  t.Add({.name = "bitfield", .arity = -2, .flags = "write denyoom", .acl = "@write @bitmap @slow",
         .keys = {[] {
           KeySpec k = KeyAt(1, "RW ACCESS UPDATE VARIABLE_FLAGS");
           k.notes = "This command allows both access and modification of the key";
           return k;
         }()},
         .handler = BitFieldCommand,
         .doc = {"bitmap", "3.2.0", "O(1) for each subcommand specified",
                 "Reads, writes and increments integers of 1 to 64 bits at any bit offset of a "
                 "string value.",
                 "key [operation: <get-block: GET encoding:string offset> | <write: [overflow-block: "
                 "OVERFLOW <WRAP | SAT | FAIL>] <write-operation: <set-block: SET encoding:string "
                 "offset value:integer> | <incrby-block: INCRBY encoding:string offset increment>>>] ..."}});
  t.Add({.name = "bitfield_ro", .arity = -2, .flags = "readonly fast", .acl = "@read @bitmap @fast",
         .keys = {KeyAt(1, "RO ACCESS")}, .handler = BitFieldRoCommand,
         .doc = {"bitmap", "6.0.0", "O(1) for each subcommand specified",
                 "Reads integers of 1 to 64 bits at any bit offset of a string value.",
                 "key [get-block: GET encoding:string offset] ..."}});
}

}  // namespace hotkv
