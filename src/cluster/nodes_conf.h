// nodes.conf: Redis Cluster's configuration file, in Redis's own format, so a file written
// by Redis 7 loads here and the reverse.
//
//   <id> <ip>:<port>@<cport>[,<hostname>] <flags> <primary|-> <ping_sent> <pong_recv>
//        <config_epoch> <connected|disconnected> <slot|from-to>... [<slot>->-<id>]...
//   vars currentEpoch <n> lastVoteEpoch <n>
//
// Each node line is the line CLUSTER NODES prints; open slots ([slot->-id] migrating,
// [slot-<-id] importing) appear on myself's line. Redis 7.2+'s auxiliary fields after the
// hostname (",key=value", e.g. shard-id=) are read (shard-id kept, others skipped).
//
// The file is written atomically: a temporary file in the same directory, fsync, rename
// over the old one, fsync of the directory; a crash leaves the old or the new file.
// A malformed file is reported as an error with the line number (the server refuses to
// start, as Redis does), never a crash.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "cluster/cluster_state.h"
#include "common/status.h"

namespace hotkv::cluster {

struct ParsedNodesConf {
  std::vector<Node> nodes;  // as read; `slots` holds the slots the line lists
  uint64_t current_epoch = 0;
  uint64_t last_vote_epoch = 0;
  std::vector<std::pair<int, std::string>> migrating;  // slot, target node id
  std::vector<std::pair<int, std::string>> importing;  // slot, source node id
};

// Parses the text of a nodes.conf. Requires exactly one node flagged myself.
Status ParseNodesConf(std::string_view text, ParsedNodesConf* out);

// "0-5460 5462 6000-6001": the ranges of `slots`, each preceded by a space.
void AppendSlotRanges(const SlotBitmap& slots, std::string* out);

// Parses "ip:port@cport[,hostname[,aux=..]]" (cport defaults to port + 10000).
Status ParseNodeAddress(std::string_view text, Node* n);

// Reads a whole file. `*missing` is set (and ok returned) when it does not exist.
Status ReadWholeFile(const std::string& path, std::string* out, bool* missing);
// Writes `content` to `path` atomically (temp file, fsync, rename, directory fsync).
Status WriteFileAtomic(const std::string& path, std::string_view content);

}  // namespace hotkv::cluster
