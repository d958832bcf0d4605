// INFO pieces beyond the basic ones of server_family.cc: the keysizes section and the
// blocking-keys count.
#include <string>
#include <vector>

#include "commands/server_common.h"
#include "engine/key_sizes.h"
#include "engine/keyspace.h"
#include "server/dispatcher.h"
#include "server/blocking.h"
#include "server/server.h"
#include "server/shard_state.h"

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

size_t BlockingKeys(Server& s) {
  if (g_blocked_clients.load(std::memory_order_relaxed) == 0) {
    return 0;
  }
  size_t n = 0;
  Keyspace& ks = s.keyspace();
  for (uint32_t i = 0; i < Keyspace::kShardCount; i++) {
    Shard& shard = ks.shard(i);
    const bool lock = !ThisThreadHoldsShard(i);  // inside EXEC some are held already
    if (lock) {
      shard.lock.lock_read();
    }
    if (ShardState* st = StateIfAny(shard)) {
      n += st->waiters.size();
    }
    if (lock) {
      shard.lock.unlock();
    }
  }
  return n;
}

}  // namespace hotkv::server_internal
