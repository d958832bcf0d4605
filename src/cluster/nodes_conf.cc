#include "cluster/nodes_conf.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cstring>

namespace hotkv::cluster {

namespace {

std::vector<std::string_view> SplitSpaces(std::string_view line) {
  std::vector<std::string_view> out;
  size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && (line[i] == ' ' || line[i] == '\t' || line[i] == '\r')) ++i;
    size_t j = i;
    while (j < line.size() && line[j] != ' ' && line[j] != '\t' && line[j] != '\r') ++j;
    if (j > i) out.push_back(line.substr(i, j - i));
    i = j;
  }
  return out;
}

template <typename T>
bool ParseNum(std::string_view s, T* v) {
  if (s.empty()) return false;
  auto r = std::from_chars(s.data(), s.data() + s.size(), *v);
  return r.ec == std::errc() && r.ptr == s.data() + s.size();
}

bool ParseSlot(std::string_view s, int* slot) {
  return ParseNum(s, slot) && *slot >= 0 && *slot < kNumSlots;
}

Status Corrupt(int line_no, const std::string& why) {
  return Status::InvalidArgument("Unrecoverable error: corrupted cluster config file (line " +
                                 std::to_string(line_no) + ": " + why + ")");
}

}  // namespace

Status ParseNodeAddress(std::string_view text, Node* n) {
  std::string_view addr = text;
  std::string_view rest;
  if (size_t comma = addr.find(','); comma != std::string_view::npos) {
    rest = addr.substr(comma + 1);
    addr = addr.substr(0, comma);
  }
  size_t colon = addr.rfind(':');
  if (colon == std::string_view::npos) return Status::InvalidArgument("no ':' in the address");
  std::string_view ip = addr.substr(0, colon);
  std::string_view ports = addr.substr(colon + 1);
  std::string_view cport_text;
  if (size_t at = ports.find('@'); at != std::string_view::npos) {
    cport_text = ports.substr(at + 1);
    ports = ports.substr(0, at);
  }
  int port = 0;
  if (!ParseNum(ports, &port) || port < 0 || port > 65535) {
    return Status::InvalidArgument("bad port");
  }
  int cport = port + 10000;
  if (!cport_text.empty() && (!ParseNum(cport_text, &cport) || cport < 0 || cport > 65535)) {
    return Status::InvalidArgument("bad bus port");
  }
  n->ip.assign(ip);
  n->port = port;
  n->cport = cport;
  // ",hostname" then Redis 7.2's ",key=value" auxiliary fields.
  bool first = true;
  while (!rest.empty() || first) {
    size_t comma = rest.find(',');
    std::string_view field = rest.substr(0, comma);
    rest = comma == std::string_view::npos ? std::string_view() : rest.substr(comma + 1);
    size_t eq = field.find('=');
    if (eq == std::string_view::npos) {
      if (first) n->hostname.assign(field);
    } else {
      std::string_view key = field.substr(0, eq);
      std::string_view val = field.substr(eq + 1);
      if (key == "shard-id") {
        if (!IsValidNodeName(val)) return Status::InvalidArgument("bad shard-id");
        n->shard_id.assign(val);
      } else if (key == "nodename") {
        n->human_nodename.assign(val);
      } else if (key == "tls-port") {
        int tp = 0;
        if (ParseNum(val, &tp)) n->tls_port = tp;
      } else if (key == "hostname") {
        n->hostname.assign(val);
      }
    }
    first = false;
    if (comma == std::string_view::npos) break;
  }
  return Status::Ok();
}

Status ParseNodesConf(std::string_view text, ParsedNodesConf* out) {
  *out = ParsedNodesConf();
  int line_no = 0;
  int myself_count = 0;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t nl = text.find('\n', pos);
    std::string_view line = text.substr(pos, nl == std::string_view::npos ? text.npos : nl - pos);
    pos = nl == std::string_view::npos ? text.size() : nl + 1;
    ++line_no;
    std::vector<std::string_view> argv = SplitSpaces(line);
    if (argv.empty()) continue;
    if (argv[0] == "vars") {
      if (argv.size() % 2 != 1) return Corrupt(line_no, "odd number of vars words");
      for (size_t j = 1; j + 1 < argv.size(); j += 2) {
        uint64_t v = 0;
        if (argv[j] == "currentEpoch") {
          if (!ParseNum(argv[j + 1], &v)) return Corrupt(line_no, "bad currentEpoch");
          out->current_epoch = v;
        } else if (argv[j] == "lastVoteEpoch") {
          if (!ParseNum(argv[j + 1], &v)) return Corrupt(line_no, "bad lastVoteEpoch");
          out->last_vote_epoch = v;
        }  // unknown vars are skipped, as Redis does (with a warning)
      }
      continue;
    }
    if (argv.size() < 8) return Corrupt(line_no, "fewer than 8 fields");
    Node n;
    if (!IsValidNodeName(argv[0])) return Corrupt(line_no, "bad node id");
    n.name.assign(argv[0]);
    for (const Node& other : out->nodes) {
      if (other.name == n.name) return Corrupt(line_no, "duplicate node id");
    }
    if (Status st = ParseNodeAddress(argv[1], &n); !st.ok()) {
      return Corrupt(line_no, st.message());
    }
    if (Status st = FlagsFromString(argv[2], &n.flags); !st.ok()) {
      return Corrupt(line_no, st.message());
    }
    if (n.Has(kFlagMyself)) ++myself_count;
    if (argv[3] != "-") {
      if (!IsValidNodeName(argv[3])) return Corrupt(line_no, "bad primary id");
      n.primary.assign(argv[3]);
    }
    int64_t ping = 0;
    int64_t pong = 0;
    if (!ParseNum(argv[4], &ping) || !ParseNum(argv[5], &pong)) {
      return Corrupt(line_no, "bad ping/pong time");
    }
    n.ping_sent_ms = ping;
    n.pong_received_ms = pong;
    if (!ParseNum(argv[6], &n.config_epoch)) return Corrupt(line_no, "bad config epoch");
    if (argv[7] != "connected" && argv[7] != "disconnected") {
      return Corrupt(line_no, "bad link state");
    }
    for (size_t j = 8; j < argv.size(); ++j) {
      std::string_view s = argv[j];
      if (s.front() == '[') {
        // [slot->-id] or [slot-<-id]
        if (s.size() < 3 || s.back() != ']') return Corrupt(line_no, "bad open slot");
        std::string_view body = s.substr(1, s.size() - 2);
        size_t dash = body.find('-');
        if (dash == std::string_view::npos || dash + 2 >= body.size()) {
          return Corrupt(line_no, "bad open slot");
        }
        int slot = 0;
        if (!ParseSlot(body.substr(0, dash), &slot)) return Corrupt(line_no, "bad open slot");
        char dir = body[dash + 1];
        if ((dir != '>' && dir != '<') || body[dash + 2] != '-') {
          return Corrupt(line_no, "bad open slot");
        }
        std::string_view id = body.substr(dash + 3);
        if (!IsValidNodeName(id)) return Corrupt(line_no, "bad open slot node id");
        (dir == '>' ? out->migrating : out->importing).emplace_back(slot, std::string(id));
        continue;
      }
      size_t dash = s.find('-');
      int start = 0;
      int stop = 0;
      if (dash == std::string_view::npos) {
        if (!ParseSlot(s, &start)) return Corrupt(line_no, "bad slot");
        stop = start;
      } else if (!ParseSlot(s.substr(0, dash), &start) || !ParseSlot(s.substr(dash + 1), &stop) ||
                 stop < start) {
        return Corrupt(line_no, "bad slot range");
      }
      for (int k = start; k <= stop; ++k) n.slots.set(k);
    }
    out->nodes.push_back(std::move(n));
  }
  if (myself_count != 1) {
    return Status::InvalidArgument(
        "Unrecoverable error: corrupted cluster config file (" +
        std::string(myself_count == 0 ? "no node flagged myself" : "several nodes flagged myself") +
        ")");
  }
  // Every slot claimed once at most; primaries named must be known (Redis creates unknown
  // ones in handshake... a file written by Redis always names known nodes).
  SlotBitmap seen;
  for (const Node& n : out->nodes) {
    if ((seen & n.slots).any()) {
      return Status::InvalidArgument(
          "Unrecoverable error: corrupted cluster config file (a slot is claimed by two nodes)");
    }
    seen |= n.slots;
  }
  return Status::Ok();
}

void AppendSlotRanges(const SlotBitmap& slots, std::string* out) {
  int j = 0;
  while (j < kNumSlots) {
    if (!slots.test(j)) {
      ++j;
      continue;
    }
    int start = j;
    while (j + 1 < kNumSlots && slots.test(j + 1)) ++j;
    out->push_back(' ');
    out->append(std::to_string(start));
    if (j != start) {
      out->push_back('-');
      out->append(std::to_string(j));
    }
    ++j;
  }
}

Status ReadWholeFile(const std::string& path, std::string* out, bool* missing) {
  out->clear();
  *missing = false;
  int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    if (errno == ENOENT) {
      *missing = true;
      return Status::Ok();
    }
    return Status::IoError("Could not open the cluster config file " + path + ": " +
                           strerror(errno));
  }
  char buf[65536];
  for (;;) {
    ssize_t r = read(fd, buf, sizeof(buf));
    if (r < 0) {
      if (errno == EINTR) continue;
      int e = errno;
      close(fd);
      return Status::IoError("Could not read the cluster config file " + path + ": " +
                             strerror(e));
    }
    if (r == 0) break;
    out->append(buf, static_cast<size_t>(r));
  }
  close(fd);
  return Status::Ok();
}

Status WriteFileAtomic(const std::string& path, std::string_view content) {
  std::string tmp = path + ".tmp-" + std::to_string(getpid());
  int fd = open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) {
    return Status::IoError("Could not open " + tmp + " for writing: " + strerror(errno));
  }
  size_t off = 0;
  while (off < content.size()) {
    ssize_t w = write(fd, content.data() + off, content.size() - off);
    if (w < 0) {
      if (errno == EINTR) continue;
      int e = errno;
      close(fd);
      unlink(tmp.c_str());
      return Status::IoError("Could not write " + tmp + ": " + strerror(e));
    }
    off += static_cast<size_t>(w);
  }
  if (fsync(fd) != 0) {
    int e = errno;
    close(fd);
    unlink(tmp.c_str());
    return Status::IoError("Could not fsync " + tmp + ": " + strerror(e));
  }
  close(fd);
  if (rename(tmp.c_str(), path.c_str()) != 0) {
    int e = errno;
    unlink(tmp.c_str());
    return Status::IoError("Could not rename " + tmp + " to " + path + ": " + strerror(e));
  }
  std::string dir = ".";
  if (size_t slash = path.rfind('/'); slash != std::string::npos) {
    dir = slash == 0 ? "/" : path.substr(0, slash);
  }
  int dfd = open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dfd >= 0) {
    fsync(dfd);
    close(dfd);
  }
  return Status::Ok();
}

}  // namespace hotkv::cluster
