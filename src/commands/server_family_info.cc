// INFO sections beyond the basic ones of server_family.cc: keysizes.
#include <string>
#include <vector>

#include "commands/server_common.h"
#include "engine/key_sizes.h"
#include "engine/keyspace.h"
#include "server/dispatcher.h"
#include "server/server.h"

namespace hotkv::server_internal {

std::string KeysizesSection(Server& s) {
  // In Redis's type order (OBJ_STRING .. OBJ_HASH), which is ValueType's.
  static const char* kNames[KeySizeHistogram::kTypes] = {
      "distrib_strings_sizes", "distrib_lists_items", "distrib_sets_items",
      "distrib_zsets_items", "distrib_hashes_items"};
  constexpr int kBins = KeySizeHistogram::kBins;
  std::string o = "# Keysizes\r\n";
  Keyspace& ks = s.keyspace();
  // Inside EXEC this thread already holds some shard locks (ThisThreadHoldsShard).
  const std::vector<uint64_t> sums = ks.KeySizes(ThisThreadHoldsShard);
  for (int d = 0; d < ks.num_dbs(); d++) {
    for (int t = 0; t < KeySizeHistogram::kTypes; t++) {
      const uint64_t* row = &sums[(static_cast<size_t>(d) * KeySizeHistogram::kTypes + t) * kBins];
      std::string line;
      for (int b = 0; b < kBins; b++) {
        if (row[b] == 0) {
          continue;
        }
        line += line.empty() ? "" : ",";
        line += KeySizeBinLabel(b);
        line += '=';
        line += std::to_string(row[b]);
      }
      if (!line.empty()) {
        o += "db" + std::to_string(d) + "_" + kNames[t] + ":" + line + "\r\n";
      }
    }
  }
  return o;
}

}  // namespace hotkv::server_internal
