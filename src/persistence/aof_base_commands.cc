// The AOF base as commands: see aof_base_commands.h.
#include "persistence/aof_base_commands.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <optional>
#include <cerrno>
#include <cstring>
#include <string_view>
#include <vector>

#include "common/string_util.h"
#include "engine/entry.h"
#include "engine/extension_value.h"
#include "engine/keyspace.h"
#include "engine/vector_set_value.h"
#include "json/json_node.h"
#include "rdb/rdb.h"
#include "server/function_hooks.h"
#include "server/search_hooks.h"
#include "server/write_stream.h"
#include "types/hash_value.h"
#include "types/list_value.h"
#include "types/set_value.h"
#include "types/stream.h"
#include "types/zset.h"

namespace hotkv::persistence {

namespace {

constexpr size_t kItemsPerCommand = 64;  // Redis's AOF_REWRITE_ITEMS_PER_CMD

class CommandFile {
 public:
  explicit CommandFile(int fd) : fd_(fd) {}
  void Add(const std::vector<std::string_view>& args) {
    WriteStream::EncodeCommand(&buf_, args);
    if (buf_.size() >= (1 << 20)) {
      Flush();
    }
  }
  void Flush() {
    size_t off = 0;
    while (ok_ && off < buf_.size()) {
      ssize_t n = write(fd_, buf_.data() + off, buf_.size() - off);
      if (n < 0 && errno == EINTR) {
        continue;
      }
      if (n <= 0) {
        ok_ = false;
        err_ = errno;
        break;
      }
      off += static_cast<size_t>(n);
    }
    buf_.clear();
  }
  bool ok() const { return ok_; }
  int err() const { return err_; }

 private:
  int fd_;
  std::string buf_;
  bool ok_ = true;
  int err_ = 0;
};

// Emits `head` + items in commands of up to kItemsPerCommand items (`per_item` strings
// each) through `visit`, which calls `add(item...)` for every item.
class Batcher {
 public:
  Batcher(CommandFile* f, std::vector<std::string_view> head, size_t per_item)
      : file_(f), head_(std::move(head)), per_item_(per_item) {}
  ~Batcher() { Emit(); }
  void Add(std::string_view a) {
    owned_.emplace_back(a);
    if (owned_.size() == kItemsPerCommand * per_item_) {
      Emit();
    }
  }

 private:
  void Emit() {
    if (owned_.empty()) {
      return;
    }
    std::vector<std::string_view> args = head_;
    for (const std::string& s : owned_) {
      args.emplace_back(s);
    }
    file_->Add(args);
    owned_.clear();
  }
  CommandFile* file_;
  std::vector<std::string_view> head_;
  size_t per_item_;
  std::vector<std::string> owned_;
};

// A stream as Redis's rewriteStreamObject writes it: XADD per entry (or an XADD MAXLEN 0
// that creates an empty stream), XSETID with the metadata, then per group XGROUP CREATE
// ... ENTRIESREAD, one XCLAIM ... TIME RETRYCOUNT JUSTID FORCE per pending entry (XNACK ...
// FORCE for those XNACK released), and XGROUP CREATECONSUMER for consumers with nothing
// pending; IDMP state as XCFGSET and XIDMPRECORD.
void WriteStreamKey(CommandFile& f, std::string_view key, const types::StreamValue& s) {
  using types::StreamId;
  const std::string last = s.last_id().ToString();
  if (s.length() == 0) {
    f.Add({"XADD", key, "MAXLEN", "0", "0-1", "x", "y"});  // creates it empty, as Redis does
  } else {
    s.Range(StreamId::Min(), StreamId::Max(), false, 0,
            [&](const StreamId& id, const types::StreamFields& fv) {
              const std::string ids = id.ToString();
              std::vector<std::string_view> args = {"XADD", key, ids};
              args.insert(args.end(), fv.begin(), fv.end());
              f.Add(args);
              return true;
            });
  }
  const std::string added = std::to_string(s.entries_added());
  const std::string max_deleted = s.max_deleted_id().ToString();
  f.Add({"XSETID", key, last, "ENTRIESADDED", added, "MAXDELETEDID", max_deleted});
  // Redis 8.6's IDMP: the settings when not the defaults or when records exist, then each
  // record whose entry still exists, oldest first per producer (XIDMPRECORD needs the
  // entry; the counters restart from the records).
  const bool custom = (s.idmp_duration() != 0 && s.idmp_duration() != 100) ||
                      (s.idmp_maxsize() != 0 && s.idmp_maxsize() != 100);
  if (custom || (s.idmp() != nullptr && s.idmp()->tracked > 0)) {
    const std::string duration = std::to_string(s.idmp_duration() != 0 ? s.idmp_duration() : 100);
    const std::string maxsize = std::to_string(s.idmp_maxsize() != 0 ? s.idmp_maxsize() : 100);
    f.Add({"XCFGSET", key, "IDMP-DURATION", duration, "IDMP-MAXSIZE", maxsize});
  }
  if (s.idmp() != nullptr) {
    for (const auto& [pid, p] : s.idmp()->producers) {
      for (const types::StreamIdmp::IidRecord& rec : p.order) {
        if (s.Contains(rec.id)) {
          const std::string ids = rec.id.ToString();
          f.Add({"XIDMPRECORD", key, pid, rec.iid, ids});
        }
      }
    }
  }
  for (const auto& [name, g] : s.groups()) {
    const std::string gid = g->last_id.ToString();
    const std::string read = std::to_string(g->entries_read);
    f.Add({"XGROUP", "CREATE", key, name, gid, "ENTRIESREAD", read});
    std::vector<std::pair<uint64_t, StreamId>> nacked;
    for (const auto& [id, pe] : g->pel) {
      if (pe->consumer == nullptr) {
        nacked.emplace_back(pe->nack_seq, id);
        continue;
      }
      const std::string ids = id.ToString();
      const std::string time = std::to_string(pe->delivery_time);
      const std::string count = std::to_string(pe->delivery_count);
      f.Add({"XCLAIM", key, name, pe->consumer->name, "0", ids, "TIME", time, "RETRYCOUNT",
             count, "JUSTID", "FORCE"});
    }
    // Entries XNACK released: released again in their order, with their delivery counts.
    std::sort(nacked.begin(), nacked.end());
    for (const auto& [seq, id] : nacked) {
      const std::string ids = id.ToString();
      const std::string count = std::to_string(g->pel.find(id)->second->delivery_count);
      f.Add({"XNACK", key, name, "FAIL", "IDS", "1", ids, "RETRYCOUNT", count, "FORCE"});
    }
    for (const auto& [cname, c] : g->consumers) {
      if (c->pel.empty()) {
        f.Add({"XGROUP", "CREATECONSUMER", key, name, cname});
      }
    }
  }
}

// A vector set (Redis 8.8's own rewrite has no form for one: its child crashes with
// aof-use-rdb-preamble no). One VADD per element, in the set's order, with the vector
// as VEMB gives it (dequantised, times its norm: VADD normalises and quantises it again
// to the same stored form), the quantisation, M and the attributes, so that HotKV and
// Redis 8 replay it. A REDUCE set holds only the projections, and VADD REDUCE wants the
// vectors before projection: it goes as a RESTORE of its DUMP payload (Redis 8's
// vector-set encoding, which both load). Sets with another metric, or made by
// VSIM.CREATEINDEX, have neither form and are refused, as in an RDB base.
Status WriteVectorSetKey(CommandFile& f, const Entry& e) {
  const std::string_view key = e.key();
  const VectorSet& set = *e.As<VectorSetValue>()->set;
  const vector::IndexOptions& opts = set.options();
  if (opts.metric != vector::Metric::kCosine || set.persistent()) {
    return Status::InvalidArgument("the AOF base cannot hold the vector set '" +
                                   std::string(key) + "' (" +
                                   (set.persistent() ? std::string("VSIM.CREATEINDEX")
                                                     : std::string(vector::MetricName(opts.metric)) +
                                                           " metric") +
                                   ") as commands");
  }
  if (set.projection_input_dim() != 0) {
    const std::string payload = rdb::DumpPayload(e, true);
    if (payload.empty()) {
      return Status::InvalidArgument("the AOF base cannot hold the vector set '" +
                                     std::string(key) + "'");
    }
    f.Add({"RESTORE", key, "0", payload});
    return Status::Ok();
  }
  const char* quant = opts.quant == vector::Quantization::kQ8       ? "Q8"
                      : opts.quant == vector::Quantization::kBinary ? "BIN"
                                                                    : "NOQUANT";
  const std::string m = std::to_string(opts.m);
  // Labels and attributes first (the RDB writer does the same), then each vector.
  std::vector<std::pair<std::string, std::string>> elements;
  elements.reserve(set.index().size());
  set.index().ForEachElement([&](const vector::ElementView& v) {
    elements.emplace_back(std::string(v.label), std::string(v.attributes));
  });
  std::string blob;
  std::vector<float> x;
  for (const auto& [label, attributes] : elements) {
    if (opts.quant == vector::Quantization::kQ8) {
      std::optional<vector::RawVector> raw = set.index().GetRawVector(label);
      if (!raw) {
        continue;  // removed meanwhile (only with a caller holding the locks)
      }
      x = vector::Q8Preimage(*raw);
    } else {
      std::optional<std::vector<float>> v = set.index().GetVector(label);
      if (!v) {
        continue;
      }
      x = std::move(*v);
    }
    blob.assign(reinterpret_cast<const char*>(x.data()), x.size() * sizeof(float));
    if (attributes.empty()) {
      f.Add({"VADD", key, "FP32", blob, label, quant, "M", m});
    } else {
      f.Add({"VADD", key, "FP32", blob, label, quant, "M", m, "SETATTR", attributes});
    }
  }
  return Status::Ok();
}

Status WriteKey(CommandFile& f, const Entry& e) {
  const std::string_view key = e.key();
  if (e.type() == kValueTypeExtension) {
    // The type's own commands (engine/extension_value.h), then the TTL below.
    e.As<ExtensionValue>()->Rewrite(key, [&](const std::vector<std::string>& args) {
      f.Add(std::vector<std::string_view>(args.begin(), args.end()));
    });
  }
  switch (e.type()) {
    case ValueType::kString:
      f.Add({"SET", key, e.str()});
      break;
    case ValueType::kList: {
      Batcher b(&f, {"RPUSH", key}, 1);
      e.As<types::ListValue>()->ForEach([&](std::string_view v) {
        b.Add(v);
        return true;
      });
      break;
    }
    case ValueType::kSet: {
      Batcher b(&f, {"SADD", key}, 1);
      e.As<types::SetValue>()->ForEach([&](std::string_view m) {
        b.Add(m);
        return true;
      });
      break;
    }
    case ValueType::kHash: {
      const auto* h = e.As<types::HashValue>();
      {
        Batcher b(&f, {"HMSET", key}, 2);
        h->ForEach([&](std::string_view field, std::string_view value) {
          b.Add(field);
          b.Add(value);
          return true;
        });
      }
      // Field TTLs after the fields, one HPEXPIREAT per field (as Redis's rewrite).
      h->ForEachWithTtl([&](std::string_view field, std::string_view, int64_t at) {
        if (at != 0) {
          const std::string ms = std::to_string(at);
          f.Add({"HPEXPIREAT", key, ms, "FIELDS", "1", field});
        }
        return true;
      });
      break;
    }
    case ValueType::kZSet: {
      Batcher b(&f, {"ZADD", key}, 2);
      e.As<types::ZSetValue>()->ForEach([&](std::string_view member, double score) {
        b.Add(DoubleToString(score));
        b.Add(member);
      });
      break;
    }
    case ValueType::kJson:
      f.Add({"JSON.SET", key, "$", json::ToJson(*e.As<json::Node>())});
      break;
    case ValueType::kStream:
      WriteStreamKey(f, key, *e.As<types::StreamValue>());
      break;
    case ValueType::kVectorSet:
      if (Status st = WriteVectorSetKey(f, e); !st.ok()) {
        return st;
      }
      break;
    default:
      if (e.type() == kValueTypeExtension) {
        break;
      }
      return Status::InvalidArgument("the AOF base cannot hold the " +
                                     std::string(TypeName(e)) + " key '" + std::string(key) +
                                     "' as commands yet");
  }
  if (e.has_ttl()) {
    const std::string at = std::to_string(e.expire_ms());
    f.Add({"PEXPIREAT", key, at});
  }
  return Status::Ok();
}

}  // namespace

Status WriteCommandBase(const std::string& path, Keyspace& ks, int64_t now_ms) {
  int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) {
    return Status::IoError("Can't create the AOF base " + path + ": " + strerror(errno));
  }
  CommandFile f(fd);
  Status st;
  // The function libraries first, as Redis's rewrite writes them (FUNCTION LOAD each).
  if (FunctionHooks* hooks = GetFunctionHooks(); hooks != nullptr) {
    for (const std::string& code : hooks->LibraryCodes()) {
      f.Add({"FUNCTION", "LOAD", code});
    }
  }
  // Search indexes before the keys: replaying the keys indexes them.
  if (SearchHooks* hooks = GetSearchHooks(); hooks != nullptr) {
    for (const std::vector<std::string>& c : hooks->DefinitionCommands()) {
      std::vector<std::string_view> v(c.begin(), c.end());
      f.Add(v);
    }
  }
  for (int db = 0; st.ok() && db < ks.num_dbs(); db++) {
    bool selected = false;
    for (uint32_t i = 0; st.ok() && i < Keyspace::kShardCount; i++) {
      ks.shard(i).db(db).keys.ForEach([&](Entry* e) {
        if (!st.ok() || (e->has_ttl() && e->expire_ms() <= now_ms)) {
          return;
        }
        if (!selected) {
          const std::string n = std::to_string(db);
          f.Add({"SELECT", n});
          selected = true;
        }
        st = WriteKey(f, *e);
      });
    }
  }
  f.Flush();
  if (st.ok() && !f.ok()) {
    st = Status::IoError("write " + path + ": " + strerror(f.err()));
  }
  if (st.ok() && fsync(fd) != 0) {
    st = Status::IoError("fsync " + path + ": " + strerror(errno));
  }
  close(fd);
  return st;
}

}  // namespace hotkv::persistence
