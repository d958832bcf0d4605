// DUMP / RESTORE payloads: [object type][object][RDB version u16 LE][CRC64 u64 LE], the
// checksum covering everything before it (Redis's createDumpPayload/verifyDumpPayload).
#include "rdb/format.h"
#include "rdb/rdb.h"

namespace hotkv::rdb {

namespace {
constexpr size_t kFooter = 10;  // version + CRC64
}

std::string DumpPayload(const Entry& e, bool compress) {
  std::string out;
  if (e.is_string()) out.reserve(e.str_size() + 16);
  Encoder enc(&out, compress);
  int type = Encoder::ObjectType(e);
  if (type < 0) return std::string();
  enc.Byte(static_cast<uint8_t>(type));
  std::string error;
  if (!enc.Object(e, &error)) return std::string();
  // Hashes with field expiry need version 12 (Redis 7.4+); the rest stays loadable by 7.0.
  const int version = type == kTypeHashMetadata ? kFieldExpiryVersion : kWriteVersion;
  enc.Byte(version & 0xff);
  enc.Byte((version >> 8) & 0xff);
  enc.U64Le(Crc64(0, out.data(), out.size()));
  return out;
}

bool VerifyDumpPayload(std::string_view payload) {
  if (payload.size() < kFooter) return false;
  const auto* footer = reinterpret_cast<const uint8_t*>(payload.data() + payload.size() - kFooter);
  int version = footer[0] | (footer[1] << 8);
  if (version > kMaxReadVersion) return false;
  uint64_t crc = 0;
  for (int i = 9; i >= 2; --i) crc = (crc << 8) | footer[i];
  return Crc64(0, payload.data(), payload.size() - 8) == crc;
}

Result<Entry*> LoadDumpPayload(std::string_view payload, std::string_view key,
                               const types::EncodingLimits& limits) {
  return LoadDumpPayload(payload, key, limits, types::ZSetLimits());
}

Result<Entry*> LoadDumpPayload(std::string_view payload, std::string_view key,
                               const types::EncodingLimits& limits,
                               const types::ZSetLimits& zset_limits) {
  if (payload.size() < kFooter + 1) return Status::InvalidArgument("Bad data format");
  const auto* b = reinterpret_cast<const uint8_t*>(payload.data());
  Reader r(b, b + payload.size() - kFooter);
  uint8_t type;
  r.U8(&type);
  if (!r.ok()) return Status::InvalidArgument("Bad data format");
  bool empty = false;
  return LoadObject(r, type, key, /*expire_block=*/false, limits, zset_limits, &empty);
}

}  // namespace hotkv::rdb
