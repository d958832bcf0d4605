// FUNCTION DUMP / RESTORE payloads and the function section of RDB files (rdb.h).
#include <string>
#include <string_view>
#include <vector>

#include "rdb/format.h"
#include "rdb/rdb.h"

namespace hotkv::rdb {

namespace {
constexpr size_t kFunctionFooter = 10;  // version + CRC64
}  // namespace

std::string FunctionDumpPayload(const std::vector<std::string>& codes, bool compress) {
  std::string out;
  Encoder enc(&out, compress);
  for (const std::string& code : codes) {
    enc.Byte(kOpFunction2);
    enc.String(code);
  }
  enc.Byte(kWriteVersion & 0xff);
  enc.Byte((kWriteVersion >> 8) & 0xff);
  enc.U64Le(Crc64(0, out.data(), out.size()));
  return out;
}

Result<std::vector<std::string>> ParseFunctionPayload(std::string_view payload) {
  if (!VerifyDumpPayload(payload)) {
    return Status::InvalidArgument("DUMP payload version or checksum are wrong");
  }
  const auto* b = reinterpret_cast<const uint8_t*>(payload.data());
  Reader r(b, b + payload.size() - kFunctionFooter);
  std::vector<std::string> codes;
  std::string scratch;
  while (r.remaining() > 0) {
    uint8_t type;
    if (!r.U8(&type)) {
      return Status::InvalidArgument("can not read data type");
    }
    if (type == kOpFunctionPreGa) {
      return Status::InvalidArgument("Pre-GA function format not supported");
    }
    if (type != kOpFunction2) {
      return Status::InvalidArgument("given type is not a function");
    }
    std::string_view code;
    if (!r.String(&scratch, &code)) {
      return Status::InvalidArgument("Failed loading library payload");
    }
    codes.emplace_back(code);
  }
  return codes;
}

}  // namespace hotkv::rdb
