// rdb/blobs.h (internal): validation and decoding of the packed blobs RDB stores as
// strings — ziplists (Redis 2.6..6.2), listpacks (7.0+), intsets and zipmaps (2.x).
//
// Each decoder validates the whole blob the way Redis's deep sanitisation does (header
// sizes and counts, every entry inside the blob, ziplist prevlens and listpack backlens
// consistent, the end marker where it belongs, intsets sorted and unique) before a single
// item is handed out, so a value is never half built from a corrupt blob.
//
//   std::vector<BlobItem> items;
//   if (!DecodeListpack(blob, &items)) return r.Fail("Listpack integrity check failed.");
//   char buf[kMaxIntDigits]; for (auto& it : items) use(it.Text(buf));
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "types/element.h"

namespace hotkv::rdb {

// One entry of a blob: bytes (a view into the blob) or an integer.
struct BlobItem {
  const char* data = nullptr;
  uint32_t len = 0;
  bool is_int = false;
  int64_t value = 0;

  // The entry as text; integers are formatted into `buf` (kMaxIntDigits bytes).
  std::string_view Text(char* buf) const {
    if (!is_int) return {data, len};
    return {buf, types::FormatInt(value, buf)};
  }
};

// Each returns false (and leaves `out` in an unspecified state) on any inconsistency.
// `out` is cleared first and then holds every entry in blob order.
bool DecodeZiplist(std::string_view blob, std::vector<BlobItem>* out);
bool DecodeListpack(std::string_view blob, std::vector<BlobItem>* out);
bool DecodeIntset(std::string_view blob, std::vector<BlobItem>* out);
// Zipmap entries come out as key, value, key, value...
bool DecodeZipmap(std::string_view blob, std::vector<BlobItem>* out);

}  // namespace hotkv::rdb
