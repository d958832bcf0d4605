#include "commands/bitmap_common.h"

#include <cstring>

#include "server/server.h"

namespace hotkv {

std::optional<uint64_t> ParseBitOffset(CommandContext& ctx, std::string_view arg, int hash_bits) {
  const bool hashed = hash_bits > 0 && !arg.empty() && arg[0] == '#';
  auto v = ParseInt64(hashed ? arg.substr(1) : arg);
  if (v) {
    uint64_t offset = static_cast<uint64_t>(*v);
    if (hashed) {
      offset *= static_cast<uint64_t>(hash_bits);
    }
    const auto signed_offset = static_cast<int64_t>(offset);
    if (signed_offset >= 0 && (signed_offset >> 3) < ctx.server().config().proto_max_bulk_len()) {
      return offset;
    }
  }
  ctx.rb().Error(kBitOffsetError);
  return std::nullopt;
}

Entry* StringForBitWrite(CommandContext& ctx, KeyRef& ref, std::string_view key, uint64_t last_byte,
                         bool* grown) {
  Database& db = ctx.db();
  const size_t need = static_cast<size_t>(last_byte) + 1;
  *grown = false;
  if (!ref) {
    Entry* e = Entry::NewString(key, "", false, need);
    memset(e->str_data(), 0, need);
    e->set_str_size(need);
    db.Insert(ref, e);
    *grown = true;
  } else if (!ref.entry()->is_string()) {
    ctx.rb().Error(errors::kWrongType);
    return nullptr;
  } else if (ref.entry()->str_size() < need) {
    const size_t cur = ref.entry()->str_size();
    Entry* e = ReserveString(db, ref, need);
    memset(e->str_data() + cur, 0, need - cur);
    e->set_str_size(need);
    *grown = true;
  }
  ref.entry()->set_raw_forced();
  return ref.entry();
}

}  // namespace hotkv
