#include "rdb/stream_codec.h"

#include <algorithm>
#include <cstring>
#include <memory>
#include <vector>

#include "common/string_util.h"
#include "rdb/blobs.h"
#include "types/stream.h"

namespace hotkv::rdb {

namespace {

using types::StreamId;
using types::StreamValue;

constexpr int64_t kFlagDeleted = 1;
constexpr int64_t kFlagSameFields = 2;
constexpr size_t kNodeEntries = 100;

// A listpack under construction (Redis's listpack.c format: total bytes and element
// count headers, entries with their back-lengths, 0xFF terminator).
class ListpackWriter {
 public:
  ListpackWriter() { buf_.assign(6, '\0'); }

  void Int(int64_t v) {
    char e[9];
    size_t n;
    if (v >= 0 && v <= 127) {
      e[0] = static_cast<char>(v);
      n = 1;
    } else if (v >= -4096 && v <= 4095) {
      uint64_t u = static_cast<uint64_t>(v) & 0x1FFF;
      e[0] = static_cast<char>(0xC0 | (u >> 8));
      e[1] = static_cast<char>(u & 0xFF);
      n = 2;
    } else {
      e[0] = static_cast<char>(0xF4);
      uint64_t u = static_cast<uint64_t>(v);
      for (int i = 0; i < 8; i++) {
        e[1 + i] = static_cast<char>(u >> (8 * i));
      }
      n = 9;
    }
    Append(e, n, {});
  }

  void Str(std::string_view s) {
    char h[5];
    size_t n;
    if (s.size() < 64) {
      h[0] = static_cast<char>(0x80 | s.size());
      n = 1;
    } else if (s.size() < 4096) {
      h[0] = static_cast<char>(0xE0 | (s.size() >> 8));
      h[1] = static_cast<char>(s.size() & 0xFF);
      n = 2;
    } else {
      h[0] = static_cast<char>(0xF0);
      for (int i = 0; i < 4; i++) {
        h[1 + i] = static_cast<char>(s.size() >> (8 * i));
      }
      n = 5;
    }
    Append(h, n, s);
  }

  std::string Finish() {
    buf_.push_back(static_cast<char>(0xFF));
    const uint32_t total = static_cast<uint32_t>(buf_.size());
    const uint16_t count = count_ < 65535 ? static_cast<uint16_t>(count_) : 65535;
    for (int i = 0; i < 4; i++) {
      buf_[i] = static_cast<char>(total >> (8 * i));
    }
    buf_[4] = static_cast<char>(count & 0xFF);
    buf_[5] = static_cast<char>(count >> 8);
    return std::move(buf_);
  }

 private:
  void Append(const char* header, size_t n, std::string_view data) {
    buf_.append(header, n);
    buf_.append(data);
    // The back-length: the entry's size, 7 bits per byte, read from the end.
    uint64_t l = n + data.size();
    unsigned char b[5];
    size_t bn;
    if (l <= 127) {
      b[0] = static_cast<unsigned char>(l);
      bn = 1;
    } else if (l < 16383) {
      b[0] = static_cast<unsigned char>(l >> 7);
      b[1] = static_cast<unsigned char>((l & 127) | 128);
      bn = 2;
    } else if (l < 2097151) {
      b[0] = static_cast<unsigned char>(l >> 14);
      b[1] = static_cast<unsigned char>(((l >> 7) & 127) | 128);
      b[2] = static_cast<unsigned char>((l & 127) | 128);
      bn = 3;
    } else if (l < 268435455) {
      b[0] = static_cast<unsigned char>(l >> 21);
      b[1] = static_cast<unsigned char>(((l >> 14) & 127) | 128);
      b[2] = static_cast<unsigned char>(((l >> 7) & 127) | 128);
      b[3] = static_cast<unsigned char>((l & 127) | 128);
      bn = 4;
    } else {
      b[0] = static_cast<unsigned char>(l >> 28);
      b[1] = static_cast<unsigned char>(((l >> 21) & 127) | 128);
      b[2] = static_cast<unsigned char>(((l >> 14) & 127) | 128);
      b[3] = static_cast<unsigned char>(((l >> 7) & 127) | 128);
      b[4] = static_cast<unsigned char>((l & 127) | 128);
      bn = 5;
    }
    buf_.append(reinterpret_cast<const char*>(b), bn);
    count_++;
  }

  std::string buf_;
  size_t count_ = 0;
};

std::string RawId(const StreamId& id) {
  char b[16];
  for (int i = 0; i < 8; i++) {
    b[i] = static_cast<char>(id.ms >> (56 - 8 * i));
    b[8 + i] = static_cast<char>(id.seq >> (56 - 8 * i));
  }
  return std::string(b, 16);
}

StreamId IdFromRaw(const uint8_t* b) {
  StreamId id;
  for (int i = 0; i < 8; i++) {
    id.ms = (id.ms << 8) | b[i];
    id.seq = (id.seq << 8) | b[8 + i];
  }
  return id;
}

// One node: the entries [first, first + n) of `entries`.
struct NodeEntry {
  StreamId id;
  std::vector<std::string> fv;  // copies: a stream's views last only through one visit
};

std::string EncodeNode(const std::vector<NodeEntry>& entries, const StreamId& master) {
  ListpackWriter lp;
  const std::vector<std::string>& mfv = entries.front().fv;
  lp.Int(static_cast<int64_t>(entries.size()));
  lp.Int(0);
  lp.Int(static_cast<int64_t>(mfv.size() / 2));
  for (size_t i = 0; i < mfv.size(); i += 2) {
    lp.Str(mfv[i]);
  }
  lp.Int(0);
  for (const NodeEntry& e : entries) {
    bool same = e.fv.size() == mfv.size();
    for (size_t i = 0; same && i < mfv.size(); i += 2) {
      same = e.fv[i] == mfv[i];
    }
    lp.Int(same ? kFlagSameFields : 0);
    lp.Int(static_cast<int64_t>(e.id.ms - master.ms));
    lp.Int(static_cast<int64_t>(e.id.seq - master.seq));
    const size_t nf = e.fv.size() / 2;
    if (!same) {
      lp.Int(static_cast<int64_t>(nf));
    }
    for (size_t i = 0; i < e.fv.size(); i += 2) {
      if (!same) {
        lp.Str(e.fv[i]);
      }
      lp.Str(e.fv[i + 1]);
    }
    lp.Int(static_cast<int64_t>(nf + 3 + (same ? 0 : nf + 1)));
  }
  return lp.Finish();
}

}  // namespace

namespace {

bool HasRedis88State(const StreamValue& s) {
  const auto custom = [](int64_t v) { return v != 0 && v != 100; };
  if (custom(s.idmp_duration()) || custom(s.idmp_maxsize())) {
    return true;
  }
  if (const types::StreamIdmp* im = s.idmp();
      im != nullptr && (!im->producers.empty() || im->iids_added != 0 || im->iids_duplicates != 0)) {
    return true;
  }
  for (const auto& [name, g] : s.groups()) {
    if (g->NackedCount() > 0) {
      return true;
    }
  }
  return false;
}

}  // namespace

uint8_t StreamRdbType(const Entry& e) {
  return HasRedis88State(*e.As<StreamValue>()) ? kTypeStreamListpacks5 : kTypeStreamListpacks2;
}

void WriteStream(Encoder& enc, const Entry& e) {
  const auto* s = e.As<StreamValue>();
  const bool v5 = HasRedis88State(*s);
  // The nodes: collected first because the count comes first.
  std::vector<std::pair<StreamId, std::string>> nodes;
  std::vector<std::string> owned;  // copies of the views of one node's entries
  std::vector<NodeEntry> batch;
  auto flush = [&]() {
    if (!batch.empty()) {
      nodes.emplace_back(batch.front().id, EncodeNode(batch, batch.front().id));
      batch.clear();
    }
  };
  StreamId after = StreamId::Min();
  bool more = s->length() > 0;
  while (more) {
    size_t n = s->Range(after, StreamId::Max(), false, kNodeEntries,
                        [&](const StreamId& id, const types::StreamFields& fv) {
                          batch.push_back({id, {fv.begin(), fv.end()}});
                          after = id;
                          return true;
                        });
    flush();
    more = n == kNodeEntries && after.Incr();
  }
  enc.Len(nodes.size());
  for (const auto& [id, lp] : nodes) {
    enc.String(RawId(id));
    enc.String(lp);
  }
  enc.Len(s->length());
  enc.Len(s->last_id().ms);
  enc.Len(s->last_id().seq);
  const StreamId first = s->FirstId();
  enc.Len(first.ms);
  enc.Len(first.seq);
  enc.Len(s->max_deleted_id().ms);
  enc.Len(s->max_deleted_id().seq);
  enc.Len(s->entries_added());
  enc.Len(s->groups().size());
  for (const auto& [name, g] : s->groups()) {
    enc.String(name);
    enc.Len(g->last_id.ms);
    enc.Len(g->last_id.seq);
    enc.Len(static_cast<uint64_t>(g->entries_read));
    enc.Len(g->pel.size());
    for (const auto& [id, pe] : g->pel) {
      std::string raw = RawId(id);
      enc.Raw(raw.data(), raw.size());
      enc.U64Le(static_cast<uint64_t>(pe->delivery_time));
      enc.Len(pe->delivery_count);
    }
    enc.Len(g->consumers.size());
    for (const auto& [cname, c] : g->consumers) {
      enc.String(cname);
      enc.U64Le(static_cast<uint64_t>(c->seen_time));
      if (v5) {
        enc.U64Le(static_cast<uint64_t>(c->active_time));
      }
      enc.Len(c->pel.size());
      for (const auto& [id, pe] : c->pel) {
        std::string raw = RawId(id);
        enc.Raw(raw.data(), raw.size());
      }
    }
    if (v5) {  // the entries XNACK released, in nack order
      std::vector<std::pair<uint64_t, StreamId>> nacked;
      for (const auto& [id, pe] : g->pel) {
        if (pe->consumer == nullptr) {
          nacked.emplace_back(pe->nack_seq, id);
        }
      }
      std::sort(nacked.begin(), nacked.end());
      enc.Len(nacked.size());
      for (const auto& [seq, id] : nacked) {
        std::string raw = RawId(id);
        enc.Raw(raw.data(), raw.size());
      }
    }
  }
  if (v5) {  // IDMP: settings, per producer its records (iid, entry id), the counters
    enc.Len(static_cast<uint64_t>(s->idmp_duration() != 0 ? s->idmp_duration() : 100));
    enc.Len(static_cast<uint64_t>(s->idmp_maxsize() != 0 ? s->idmp_maxsize() : 100));
    const types::StreamIdmp* im = s->idmp();
    enc.Len(im != nullptr ? im->producers.size() : 0);
    if (im != nullptr) {
      for (const auto& [pid, p] : im->producers) {
        enc.String(pid);
        enc.Len(p.order.size());
        for (const types::StreamIdmp::IidRecord& rec : p.order) {
          enc.String(rec.iid);
          enc.Len(rec.id.ms);
          enc.Len(rec.id.seq);
        }
      }
    }
    enc.Len(im != nullptr ? im->iids_added : 0);
    enc.Len(im != nullptr ? im->iids_duplicates : 0);
  }
}

namespace {

bool ItemInt(const BlobItem& it, int64_t* v) {
  if (it.is_int) {
    *v = it.value;
    return true;
  }
  auto p = ParseInt64(std::string_view(it.data, it.len));
  if (!p) {
    return false;
  }
  *v = *p;
  return true;
}

// Appends the live entries of one node to `s`.
bool LoadNode(const StreamId& master, const std::vector<BlobItem>& items, StreamValue* s) {
  char int_buf[32];  // integer items formatted as text
  size_t i = 0;
  auto next_int = [&](int64_t* v) { return i < items.size() && ItemInt(items[i++], v); };
  int64_t count, deleted, nmaster;
  if (!next_int(&count) || !next_int(&deleted) || !next_int(&nmaster) || nmaster < 0 ||
      i + static_cast<size_t>(nmaster) + 1 > items.size()) {
    return false;
  }
  std::vector<std::string> master_fields;
  for (int64_t f = 0; f < nmaster; f++) {
    master_fields.emplace_back(items[i++].Text(int_buf));
  }
  int64_t zero;
  if (!next_int(&zero) || zero != 0) {
    return false;
  }
  std::vector<std::string> owned;
  std::vector<std::string_view> fv;
  const int64_t total = count + deleted;
  for (int64_t n = 0; n < total; n++) {
    int64_t flags, msd, seqd, nf, lp_count;
    if (!next_int(&flags) || !next_int(&msd) || !next_int(&seqd)) {
      return false;
    }
    const bool same = flags & kFlagSameFields;
    if (same) {
      nf = nmaster;
    } else if (!next_int(&nf) || nf < 0) {
      return false;
    }
    if (i + static_cast<size_t>(nf) * (same ? 1 : 2) > items.size()) {
      return false;
    }
    owned.clear();
    for (int64_t f = 0; f < nf; f++) {
      owned.push_back(same ? master_fields[static_cast<size_t>(f)]
                           : std::string(items[i++].Text(int_buf)));
      owned.emplace_back(items[i++].Text(int_buf));
    }
    if (!next_int(&lp_count)) {
      return false;
    }
    if (flags & kFlagDeleted) {
      continue;
    }
    fv.assign(owned.begin(), owned.end());
    StreamId id{master.ms + static_cast<uint64_t>(msd), master.seq + static_cast<uint64_t>(seqd)};
    s->Append(id, fv, types::StreamNodeLimits{});
  }
  return i == items.size();
}

bool LenId(Reader& r, StreamId* id) { return r.Len(&id->ms) && r.Len(&id->seq); }

}  // namespace

Entry* LoadStream(Reader& r, uint8_t type, std::string_view key, bool expire_block) {
  if (type != kTypeStreamListpacks && type != kTypeStreamListpacks2 &&
      type != kTypeStreamListpacks3 && type != kTypeStreamListpacks4 &&
      type != kTypeStreamListpacks5) {
    r.Fail("stream encoding (RDB type " + std::to_string(type) + ") is not supported");
    return nullptr;
  }
  // 21 added consumers' active time; 26 (Redis 8.6) the IDMP state after the groups;
  // 27 (Redis 8.8) also each group's list of entries XNACK released.
  const bool has_active = type >= kTypeStreamListpacks3;
  const bool has_idmp = type >= kTypeStreamListpacks4;
  const bool has_nacked = type >= kTypeStreamListpacks5;
  auto s = std::make_unique<StreamValue>();
  std::string s1, s2;
  std::vector<BlobItem> items;
  uint64_t nodes;
  if (!r.Count(&nodes, 2)) {
    return nullptr;
  }
  for (uint64_t n = 0; n < nodes; n++) {
    std::string_view raw, lp;
    if (!r.String(&s1, &raw)) {
      return nullptr;
    }
    if (raw.size() != 16) {
      r.Fail("Stream node key entry is not the size of a stream ID");
      return nullptr;
    }
    const StreamId master = IdFromRaw(reinterpret_cast<const uint8_t*>(raw.data()));
    if (!r.String(&s2, &lp)) {
      return nullptr;
    }
    if (!DecodeListpack(lp, &items) || !LoadNode(master, items, s.get())) {
      r.Fail("Stream listpack integrity check failed.");
      return nullptr;
    }
  }
  uint64_t length;
  StreamId last, first, max_deleted;
  uint64_t entries_added = 0;
  if (!r.Len(&length) || !LenId(r, &last)) {
    return nullptr;
  }
  if (type != kTypeStreamListpacks) {
    if (!LenId(r, &first) || !LenId(r, &max_deleted) || !r.Len(&entries_added)) {
      return nullptr;
    }
  } else {
    entries_added = length;
  }
  if (length != s->length()) {
    r.Fail("Stream length inconsistent with its entries");
    return nullptr;
  }
  s->set_last_id(last);
  s->set_max_deleted_id(max_deleted);
  s->set_entries_added(entries_added);
  uint64_t ngroups;
  if (!r.Count(&ngroups, 1)) {
    return nullptr;
  }
  for (uint64_t gi = 0; gi < ngroups; gi++) {
    std::string_view name;
    StreamId glast;
    if (!r.String(&s1, &name) || !LenId(r, &glast)) {
      return nullptr;
    }
    int64_t entries_read = types::kInvalidEntriesRead;
    if (type != kTypeStreamListpacks) {
      uint64_t v;
      if (!r.Len(&v)) {
        return nullptr;
      }
      entries_read = static_cast<int64_t>(v);
    } else {
      entries_read = s->EstimateDistance(glast);
    }
    types::StreamGroup* g = s->CreateGroup(name, glast, entries_read);
    if (g == nullptr) {
      r.Fail("Duplicated consumer group name");
      return nullptr;
    }
    uint64_t npel;
    if (!r.Count(&npel, 17)) {
      return nullptr;
    }
    for (uint64_t p = 0; p < npel; p++) {
      const uint8_t* raw;
      uint64_t time, count;
      if (!r.Bytes(16, &raw) || !r.U64Le(&time) || !r.Len(&count)) {
        return nullptr;
      }
      auto pe = std::make_unique<types::PendingEntry>();
      pe->delivery_time = static_cast<int64_t>(time);
      pe->delivery_count = count;
      g->pel.emplace(IdFromRaw(raw), std::move(pe));
    }
    uint64_t nconsumers;
    if (!r.Count(&nconsumers, 1)) {
      return nullptr;
    }
    for (uint64_t ci = 0; ci < nconsumers; ci++) {
      std::string_view cname;
      uint64_t seen, active;
      if (!r.String(&s1, &cname) || !r.U64Le(&seen)) {
        return nullptr;
      }
      active = seen;
      if (has_active && !r.U64Le(&active)) {
        return nullptr;
      }
      types::StreamConsumer* c = g->CreateConsumer(cname, static_cast<int64_t>(seen));
      if (c == nullptr) {
        r.Fail("Duplicated consumer name");
        return nullptr;
      }
      c->active_time = static_cast<int64_t>(active);
      uint64_t ncpel;
      if (!r.Count(&ncpel, 16)) {
        return nullptr;
      }
      for (uint64_t p = 0; p < ncpel; p++) {
        const uint8_t* raw;
        if (!r.Bytes(16, &raw)) {
          return nullptr;
        }
        const StreamId id = IdFromRaw(raw);
        auto it = g->pel.find(id);
        if (it == g->pel.end() || it->second->consumer != nullptr) {
          r.Fail("Consumer PEL entry not found in the group's PEL");
          return nullptr;
        }
        it->second->consumer = c;
        c->pel.emplace(id, it->second.get());
      }
    }
    uint64_t nnacked = 0;
    if (has_nacked && !r.Count(&nnacked, 16)) {
      return nullptr;
    }
    for (uint64_t k = 0; k < nnacked; k++) {
      const uint8_t* raw;
      if (!r.Bytes(16, &raw)) {
        return nullptr;
      }
      auto it = g->pel.find(IdFromRaw(raw));
      if (it == g->pel.end() || it->second->consumer != nullptr || it->second->nack_seq != 0) {
        r.Fail("Stream nacked entry not found in the group's PEL");
        return nullptr;
      }
      it->second->nack_seq = ++g->nack_counter;
    }
    for (const auto& [id, pe] : g->pel) {
      if (pe->consumer == nullptr && pe->nack_seq == 0) {
        r.Fail("Stream group PEL entry without a consumer");
        return nullptr;
      }
    }
  }
  if (has_idmp) {
    uint64_t duration, maxsize, npids;
    if (!r.Len(&duration) || !r.Len(&maxsize) || !r.Count(&npids, 2)) {
      return nullptr;
    }
    if (duration < 1 || duration > 86400 || maxsize < 1 || maxsize > 10000) {
      r.Fail("Stream IDMP settings out of range");
      return nullptr;
    }
    s->set_idmp_duration(static_cast<int64_t>(duration));
    s->set_idmp_maxsize(static_cast<int64_t>(maxsize));
    types::StreamIdmp& im = s->EnsureIdmp();
    for (uint64_t k = 0; k < npids; k++) {
      std::string_view pid;
      uint64_t nrec;
      if (!r.String(&s1, &pid)) {
        return nullptr;
      }
      std::string pid_owned(pid);
      if (!r.Count(&nrec, 3)) {
        return nullptr;
      }
      auto& producer = im.producers[pid_owned];
      for (uint64_t j = 0; j < nrec; j++) {
        std::string_view iid;
        StreamId id;
        if (!r.String(&s2, &iid) || !LenId(r, &id)) {
          return nullptr;
        }
        std::string iid_owned(iid);
        if (!producer.index.emplace(iid_owned, id).second) {
          r.Fail("Stream IDMP record duplicated");
          return nullptr;
        }
        producer.order.push_back({std::move(iid_owned), id, static_cast<int64_t>(id.ms)});
        im.tracked++;
      }
    }
    uint64_t added, duplicates;
    if (!r.Len(&added) || !r.Len(&duplicates)) {
      return nullptr;
    }
    im.iids_added = added;
    im.iids_duplicates = duplicates;
  }
  return Entry::NewObject(key, ValueType::kStream, s.release(), expire_block);
}

}  // namespace hotkv::rdb
