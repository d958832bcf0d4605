#include "types/stream.h"

#include <malloc.h>

#include <algorithm>
#include <charconv>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <iterator>

#include "common/parse_digits.h"
#include "common/string_util.h"

namespace hotkv::types {

// ---------------------------------------------------------------------------------------
// StreamId

bool StreamId::Incr() {
  if (seq == UINT64_MAX) {
    if (ms == UINT64_MAX) {
      return false;
    }
    ms++;
    seq = 0;
  } else {
    seq++;
  }
  return true;
}

bool StreamId::Decr() {
  if (seq == 0) {
    if (ms == 0) {
      return false;
    }
    ms--;
    seq = UINT64_MAX;
  } else {
    seq--;
  }
  return true;
}

size_t StreamId::Format(char* buf) const {
  // XADDs in one millisecond share the ms part: its digits are kept per thread and
  // copied (13 digits by division cost ~150 instructions per XADD); the sequence is
  // usually a few digits.
  thread_local uint64_t last_ms = 0;
  thread_local char last_text[20] = {'0'};
  thread_local size_t last_len = 1;
  if (ms != last_ms) {
    last_len = static_cast<size_t>(std::to_chars(last_text, last_text + 20, ms).ptr - last_text);
    last_ms = ms;
  }
  memcpy(buf, last_text, last_len);
  char* p = buf + last_len;
  *p++ = '-';
  char tmp[20];
  char* t = tmp + sizeof(tmp);
  uint64_t v = seq;
  do {
    *--t = static_cast<char>('0' + v % 10);
    v /= 10;
  } while (v != 0);
  const auto n = static_cast<size_t>(tmp + sizeof(tmp) - t);
  memcpy(p, t, n);
  return last_len + 1 + n;
}

std::string StreamId::ToString() const {
  char buf[kTextMax];
  return std::string(buf, Format(buf));
}

namespace {

// Redis's string2ull: a canonical integer, or whatever strtoull takes whole (so "+5",
// " 7" and "007" are accepted), never a negative number.
std::optional<uint64_t> ParseU64(std::string_view s) {
  if (auto v = ParseInt64(s)) {
    if (*v < 0) {
      return std::nullopt;
    }
    return static_cast<uint64_t>(*v);
  }
  if (s.empty() || s.size() > 127) {
    return std::nullopt;
  }
  char buf[128];
  memcpy(buf, s.data(), s.size());
  buf[s.size()] = '\0';
  errno = 0;
  char* end = nullptr;
  unsigned long long v = strtoull(buf, &end, 10);
  if (errno == EINVAL || errno == ERANGE || end != buf + s.size()) {
    return std::nullopt;
  }
  return v;
}

}  // namespace

std::optional<StreamId> StreamId::Parse(std::string_view s, uint64_t missing_seq) {
  if (s.size() > 127) {
    return std::nullopt;
  }
  StreamId id;
  size_t dash = s.find('-');
  auto ms = ParseU64(s.substr(0, dash));
  if (!ms) {
    return std::nullopt;
  }
  id.ms = *ms;
  if (dash == std::string_view::npos) {
    id.seq = missing_seq;
  } else {
    auto seq = ParseU64(s.substr(dash + 1));
    if (!seq) {
      return std::nullopt;
    }
    id.seq = *seq;
  }
  return id;
}

// ---------------------------------------------------------------------------------------
// Blocks

namespace {

constexpr uint8_t kFlagDeleted = 1;
constexpr uint8_t kFlagSameFields = 2;

uint64_t GetVarint(const char* data, size_t* pos) {
  uint64_t v = 0;
  int shift = 0;
  for (;;) {
    uint8_t b = static_cast<uint8_t>(data[(*pos)++]);
    v |= static_cast<uint64_t>(b & 0x7F) << shift;
    if (!(b & 0x80)) {
      return v;
    }
    shift += 7;
  }
}

// Field names and values ("items") are stored as Redis's listpacks store them, integers
// compactly: a varint header h; h even: a string of h / 2 bytes follows; h odd: the item
// is the canonical decimal form of an integer whose zigzag code is h / 2 (so an 8-digit
// value takes 5 bytes, not 9). Integers whose zigzag code needs 64 bits stay strings.
// Writes a varint at p; returns the end.
inline char* PutVarintRaw(char* p, uint64_t v) {
  while (v >= 0x80) {
    *p++ = static_cast<char>((v & 0x7F) | 0x80);
    v >>= 7;
  }
  *p++ = static_cast<char>(v);
  return p;
}

// The integer `s` is the canonical decimal form of (what ParseInt64 accepts), if any; up to
// 18 digits without overflow checks (the common case, cheap), longer ones by ParseInt64.
inline std::optional<int64_t> ItemInteger(std::string_view s) {
  const size_t n = s.size();
  if (n == 0 || n > 20) {
    return std::nullopt;
  }
  const bool neg = s[0] == '-';
  const size_t i0 = neg ? 1 : 0;
  if (n == i0 || s[i0] < '0' || s[i0] > '9') {
    return std::nullopt;
  }
  if (s[i0] == '0') {
    return n == 1 ? std::optional<int64_t>(0) : std::nullopt;  // no leading zeros, no -0
  }
  if (n - i0 > 18) {
    return ParseInt64(s);
  }
  uint64_t v;
  if (!ParseDigits(s.data() + i0, n - i0, &v)) {
    return std::nullopt;
  }
  return neg ? -static_cast<int64_t>(v) : static_cast<int64_t>(v);
}

// Writes an item at p (room for ItemBound(s) bytes); returns the end.
inline char* PutItemRaw(char* p, std::string_view s) {
  if (auto v = ItemInteger(s)) {
    const uint64_t zz = (static_cast<uint64_t>(*v) << 1) ^ static_cast<uint64_t>(*v >> 63);
    if (zz < (uint64_t{1} << 63)) {
      return PutVarintRaw(p, zz * 2 + 1);
    }
  }
  p = PutVarintRaw(p, uint64_t{s.size()} * 2);
  memcpy(p, s.data(), s.size());
  return p + s.size();
}

inline size_t ItemBound(std::string_view s) { return 10 + s.size(); }

inline int64_t UnZigzag(uint64_t zz) {
  return static_cast<int64_t>((zz >> 1) ^ (~(zz & 1) + 1));
}

// Skips an item.
inline void SkipItem(const char* data, size_t* pos) {
  const uint64_t h = GetVarint(data, pos);
  if ((h & 1) == 0) {
    *pos += h >> 1;
  }
}

}  // namespace

// Where decoded integers are formatted: the views handed out point here. Reset(n) makes
// room for n items (no reallocation while they are formatted), invalidating the views of
// the previous ones. Inline storage covers entries of up to 12 integers without the heap.
class StreamNumBuf {
 public:
  void Reset(size_t items) {
    const size_t need = items * kInt64Digits;
    if (need > sizeof(inline_) && need > heap_.size()) {
      heap_.resize(need);
    }
    base_ = need > sizeof(inline_) ? heap_.data() : inline_;
    used_ = 0;
  }
  std::string_view Format(int64_t v) {
    char* p = base_ + used_;
    const size_t n = FormatInt64(v, p);
    used_ += n;
    return {p, n};
  }

 private:
  char inline_[12 * kInt64Digits];
  std::vector<char> heap_;
  char* base_ = inline_;
  size_t used_ = 0;
};

namespace {

// Reads an item; integers are formatted into `nums` (which must have room).
inline std::string_view GetItem(const char* data, size_t* pos, StreamNumBuf* nums) {
  const uint64_t h = GetVarint(data, pos);
  if (h & 1) {
    return nums->Format(UnZigzag(h >> 1));
  }
  std::string_view s(data + *pos, h >> 1);
  *pos += h >> 1;
  return s;
}

// Whether the item at *pos equals `s` (and moves past it). Field names are short: they
// are compared in place, without a call to memcmp.
inline bool ItemEquals(const char* data, size_t* pos, std::string_view s) {
  const uint64_t h = GetVarint(data, pos);
  if (h & 1) {
    char buf[kInt64Digits];
    const size_t n = FormatInt64(UnZigzag(h >> 1), buf);
    return std::string_view(buf, n) == s;
  }
  const size_t len = h >> 1;
  const char* item = data + *pos;
  *pos += len;
  if (len != s.size()) {
    return false;
  }
  if (len <= 16) {
    for (size_t i = 0; i < len; i++) {
      if (item[i] != s[i]) {
        return false;
      }
    }
    return true;
  }
  return memcmp(item, s.data(), len) == 0;
}

size_t VarintSize(uint64_t v) {
  size_t n = 1;
  while (v >= 0x80) {
    v >>= 7;
    n++;
  }
  return n;
}

}  // namespace

// One node of entries: see the layout in stream.h.
class StreamBlock {
 public:
  StreamId first;  // the id of the first entry put in the block (the delta base)
  StreamId last;   // the id of the last entry put in the block (live or deleted)
  uint32_t count = 0;  // entries, deleted included
  uint32_t live = 0;
  uint32_t entries_start = 0;  // offset of the first entry (after the master fields)
  uint32_t last_pos = 0;       // offset of the last entry
  // Offsets of entries kMarkStride, 2 * kMarkStride, ... (up to kMarks of them), so that a
  // seek into the block skips at most kMarkStride - 1 entries (a block of 100 entries).
  static constexpr uint32_t kMarkStride = 8;
  static constexpr size_t kMarks = 12;
  uint32_t marks[kMarks] = {};
  std::string data;

  // Where to start looking for the first entry with id >= `start`: the last mark whose
  // entry id is <= start (entries before it are all below start), else the first entry.
  size_t SeekPos(const StreamId& start) const {
    // Marks set so far: entries kMarkStride * (1..hi) exist.
    size_t lo = 0, hi = count == 0 ? 0 : std::min<size_t>(kMarks, (count - 1) / kMarkStride);
    size_t pos = entries_start;
    StreamId id;
    uint8_t flags;
    while (lo < hi) {
      const size_t mid = (lo + hi) / 2;
      DecodeHeader(marks[mid], &id, &flags);
      if (id <= start) {
        pos = marks[mid];
        lo = mid + 1;
      } else {
        hi = mid;
      }
    }
    return pos;
  }

  // Decoded master fields, filled on demand by the readers (integer names formatted
  // into `nums`, which must outlive the views).
  void MasterFields(std::vector<std::string_view>* out, StreamNumBuf* nums) const {
    out->clear();
    size_t pos = 0;
    size_t n = GetVarint(data.data(), &pos);
    nums->Reset(n);
    for (size_t i = 0; i < n; i++) {
      out->push_back(GetItem(data.data(), &pos, nums));
    }
  }

  // How many master fields the block has.
  size_t MasterCount() const {
    size_t pos = 0;
    return GetVarint(data.data(), &pos);
  }

  // Reads the flags and id of the entry at `pos`; returns the offset of its fields.
  size_t DecodeHeader(size_t pos, StreamId* id, uint8_t* flags) const {
    const char* d = data.data();
    *flags = static_cast<uint8_t>(d[pos++]);
    uint64_t msd = GetVarint(d, &pos);
    uint64_t seqd = GetVarint(d, &pos);
    id->ms = first.ms + msd;
    id->seq = msd == 0 ? first.seq + seqd : seqd;
    return pos;
  }

  // Skips the fields of an entry (`pos` from DecodeHeader); returns the next entry's offset.
  size_t SkipBody(size_t pos, uint8_t flags, size_t master_count) const {
    const char* d = data.data();
    const size_t items = (flags & kFlagSameFields) ? master_count : 2 * GetVarint(d, &pos);
    for (size_t i = 0; i < items; i++) {
      SkipItem(d, &pos);
    }
    return pos;
  }

  // Decodes the fields of an entry (`pos` from DecodeHeader) into `fv`, integers formatted
  // into `nums` (the views of the previous entry's becoming invalid); `master` is only
  // read for an entry with the master fields. Returns the next entry's offset.
  size_t DecodeBody(size_t pos, uint8_t flags, const std::vector<std::string_view>& master,
                    StreamFields* fv, StreamNumBuf* nums) const {
    const char* d = data.data();
    fv->clear();
    if (flags & kFlagSameFields) {
      nums->Reset(master.size());
      for (std::string_view f : master) {
        fv->push_back(f);
        fv->push_back(GetItem(d, &pos, nums));
      }
    } else {
      const size_t n = GetVarint(d, &pos);
      nums->Reset(2 * n);
      for (size_t i = 0; i < 2 * n; i++) {
        fv->push_back(GetItem(d, &pos, nums));
      }
    }
    return pos;
  }

  // The entry at `pos` without its fields; returns the next entry's offset.
  size_t Skip(size_t pos, size_t master_count, StreamId* id, uint8_t* flags) const {
    const size_t body = DecodeHeader(pos, id, flags);
    return SkipBody(body, *flags, master_count);
  }

  // Offsets of every entry, in order.
  void Offsets(std::vector<uint32_t>* out) const {
    out->clear();
    const size_t mc = MasterCount();
    StreamId id;
    uint8_t flags;
    for (size_t pos = entries_start; pos < data.size();) {
      out->push_back(static_cast<uint32_t>(pos));
      pos = Skip(pos, mc, &id, &flags);
    }
  }

  bool SameAsMaster(std::span<const std::string_view> fv) const {
    size_t pos = 0;
    size_t n = GetVarint(data.data(), &pos);
    if (n * 2 != fv.size()) {
      return false;
    }
    for (size_t i = 0; i < n; i++) {
      if (!ItemEquals(data.data(), &pos, fv[i * 2])) {
        return false;
      }
    }
    return true;
  }

  void AppendEntry(const StreamId& id, std::span<const std::string_view> fv) {
    // Written through a pointer into room made once (at most 10 bytes per varint), then
    // cut to what was written.
    size_t bound = 31;
    for (std::string_view item : fv) {
      bound += ItemBound(item);
    }
    if (count == 0) {
      first = id;
      data.resize(bound);
      char* p = PutVarintRaw(data.data(), fv.size() / 2);
      for (size_t i = 0; i < fv.size(); i += 2) {
        p = PutItemRaw(p, fv[i]);
      }
      entries_start = static_cast<uint32_t>(p - data.data());
      data.resize(entries_start);
    }
    const bool same = SameAsMaster(fv);
    last_pos = static_cast<uint32_t>(data.size());
    if (count != 0 && count % kMarkStride == 0 && count / kMarkStride <= kMarks) {
      marks[count / kMarkStride - 1] = last_pos;
    }
    data.resize(last_pos + bound);
    char* p = data.data() + last_pos;
    *p++ = static_cast<char>(same ? kFlagSameFields : 0);
    uint64_t msd = id.ms - first.ms;
    p = PutVarintRaw(p, msd);
    p = PutVarintRaw(p, msd == 0 ? id.seq - first.seq : id.seq);
    if (!same) {
      p = PutVarintRaw(p, fv.size() / 2);
    }
    for (size_t i = 0; i < fv.size(); i += 2) {
      if (!same) {
        p = PutItemRaw(p, fv[i]);
      }
      p = PutItemRaw(p, fv[i + 1]);
    }
    data.resize(static_cast<size_t>(p - data.data()));
    last = id;
    count++;
    live++;
  }

  void MarkDeleted(size_t pos) { data[pos] = static_cast<char>(data[pos] | kFlagDeleted); }
  bool LastDeleted() const { return (data[last_pos] & kFlagDeleted) != 0; }
};

namespace {

size_t EncodedSize(std::span<const std::string_view> fv) {
  size_t n = 24;
  for (std::string_view s : fv) {
    // integers take no more; a string under 64 bytes has a one-byte header
    n += (s.size() < 64 ? 1 : VarintSize(uint64_t{s.size()} * 2)) + s.size();
  }
  return n;
}

// Reused decoding scratch (the server runs one command at a time per thread).
struct Scratch {
  std::vector<std::string_view> master;
  StreamFields fv;
  std::vector<uint32_t> offsets;
  StreamNumBuf master_nums;  // the master fields' integer names
  StreamNumBuf nums;         // the current entry's integer items
};

}  // namespace

// ---------------------------------------------------------------------------------------
// StreamValue

StreamValue::StreamValue() = default;

StreamValue::~StreamValue() {
  for (StreamBlock* b : blocks_) {
    delete b;
  }
}

StreamValue::StreamValue(StreamValue&& o) noexcept
    : blocks_(std::move(o.blocks_)),
      length_(o.length_),
      last_id_(o.last_id_),
      max_deleted_id_(o.max_deleted_id_),
      entries_added_(o.entries_added_),
      groups_(std::move(o.groups_)),
      idmp_duration_(o.idmp_duration_),
      idmp_maxsize_(o.idmp_maxsize_),
      idmp_(std::move(o.idmp_)) {
  o.blocks_.clear();
  o.length_ = 0;
}

StreamValue& StreamValue::operator=(StreamValue&& o) noexcept {
  if (this != &o) {
    for (StreamBlock* b : blocks_) {
      delete b;
    }
    blocks_ = std::move(o.blocks_);
    o.blocks_.clear();
    length_ = o.length_;
    o.length_ = 0;
    last_id_ = o.last_id_;
    max_deleted_id_ = o.max_deleted_id_;
    entries_added_ = o.entries_added_;
    groups_ = std::move(o.groups_);
    idmp_duration_ = o.idmp_duration_;
    idmp_maxsize_ = o.idmp_maxsize_;
    idmp_ = std::move(o.idmp_);
  }
  return *this;
}

StreamValue StreamValue::Clone() const {
  StreamValue c;
  for (const StreamBlock* b : blocks_) {
    c.blocks_.push_back(new StreamBlock(*b));
  }
  c.length_ = length_;
  c.last_id_ = last_id_;
  c.max_deleted_id_ = max_deleted_id_;
  c.entries_added_ = entries_added_;
  c.idmp_duration_ = idmp_duration_;
  c.idmp_maxsize_ = idmp_maxsize_;
  if (idmp_ != nullptr) {
    c.idmp_ = std::make_unique<StreamIdmp>(*idmp_);
  }
  for (const auto& [name, g] : groups_) {
    auto ng = std::make_unique<StreamGroup>();
    ng->last_id = g->last_id;
    ng->entries_read = g->entries_read;
    ng->nack_counter = g->nack_counter;
    for (const auto& [cname, cons] : g->consumers) {
      auto nc = std::make_unique<StreamConsumer>();
      nc->name = cons->name;
      nc->seen_time = cons->seen_time;
      nc->active_time = cons->active_time;
      ng->consumers.emplace(cname, std::move(nc));
    }
    for (const auto& [id, pe] : g->pel) {
      auto npe = std::make_unique<PendingEntry>(*pe);
      if (pe->consumer != nullptr) {
        StreamConsumer* owner = ng->consumers.find(pe->consumer->name)->second.get();
        npe->consumer = owner;
        owner->pel.emplace(id, npe.get());
      }
      ng->pel.emplace(id, std::move(npe));
    }
    c.groups_.emplace(name, std::move(ng));
  }
  return c;
}

size_t StreamValue::BlockFor(const StreamId& id) const {
  // The last block whose first id <= id.
  auto it = std::upper_bound(blocks_.begin(), blocks_.end(), id,
                             [](const StreamId& v, const StreamBlock* b) { return v < b->first; });
  if (it == blocks_.begin()) {
    return blocks_.size();
  }
  return static_cast<size_t>(it - blocks_.begin()) - 1;
}

void StreamValue::RemoveBlock(size_t i) {
  delete blocks_[i];
  blocks_.erase(blocks_.begin() + static_cast<std::ptrdiff_t>(i));
}

void StreamValue::Append(const StreamId& id, std::span<const std::string_view> fv,
                         const StreamNodeLimits& limits) {
  StreamBlock* b = blocks_.empty() ? nullptr : blocks_.back();
  if (b != nullptr) {
    const size_t max_bytes = limits.max_bytes == 0 ? (size_t{1} << 30) : limits.max_bytes;
    if (b->data.size() + EncodedSize(fv) >= max_bytes ||
        (limits.max_entries != 0 && b->count >= limits.max_entries)) {
      b->data.shrink_to_fit();
      b = nullptr;
    }
  }
  if (b == nullptr) {
    b = new StreamBlock();
    blocks_.push_back(b);
  }
  b->AppendEntry(id, fv);
  length_++;
  last_id_ = id;
  entries_added_++;
}

size_t StreamValue::Range(const StreamId& start, const StreamId& end, bool rev, size_t count,
                          StreamVisitor visit) const {
  if (start > end || blocks_.empty()) {
    return 0;
  }
  Scratch s;
  s.fv.reserve(16);
  size_t emitted = 0;
  StreamId id;
  uint8_t flags;
  if (!rev) {
    size_t bi = BlockFor(start);
    if (bi == blocks_.size()) {
      bi = 0;
    }
    for (; bi < blocks_.size(); bi++) {
      const StreamBlock* b = blocks_[bi];
      if (b->first > end) {
        return emitted;
      }
      if (b->last < start) {
        continue;
      }
      // Entries before `start` are skipped without decoding their fields; the master
      // fields are decoded only if an entry to visit uses them.
      const size_t mc = b->MasterCount();
      bool have_master = false;
      for (size_t pos = b->first < start ? b->SeekPos(start) : b->entries_start;
           pos < b->data.size();) {
        pos = b->DecodeHeader(pos, &id, &flags);
        if ((flags & kFlagDeleted) || id < start) {
          pos = b->SkipBody(pos, flags, mc);
          continue;
        }
        if (id > end) {
          return emitted;
        }
        if ((flags & kFlagSameFields) && !have_master) {
          b->MasterFields(&s.master, &s.master_nums);
          have_master = true;
        }
        pos = b->DecodeBody(pos, flags, s.master, &s.fv, &s.nums);
        emitted++;
        if (!visit(id, s.fv) || (count != 0 && emitted >= count)) {
          return emitted;
        }
      }
    }
    return emitted;
  }
  size_t bi = BlockFor(end);
  if (bi == blocks_.size()) {
    return 0;
  }
  for (size_t k = bi + 1; k-- > 0;) {
    const StreamBlock* b = blocks_[k];
    if (b->last < start) {
      return emitted;
    }
    b->Offsets(&s.offsets);
    bool have_master = false;
    for (size_t j = s.offsets.size(); j-- > 0;) {
      const size_t body = b->DecodeHeader(s.offsets[j], &id, &flags);
      if ((flags & kFlagDeleted) || id > end) {
        continue;
      }
      if (id < start) {
        return emitted;
      }
      if ((flags & kFlagSameFields) && !have_master) {
        b->MasterFields(&s.master, &s.master_nums);
        have_master = true;
      }
      b->DecodeBody(body, flags, s.master, &s.fv, &s.nums);
      emitted++;
      if (!visit(id, s.fv) || (count != 0 && emitted >= count)) {
        return emitted;
      }
    }
  }
  return emitted;
}

bool StreamValue::Get(const StreamId& id, StreamVisitor visit) const {
  return Range(id, id, false, 1, visit) == 1;
}

bool StreamValue::Contains(const StreamId& id) const {
  return Get(id, [](const StreamId&, const StreamFields&) { return true; });
}

bool StreamValue::Delete(const StreamId& id) {
  size_t bi = BlockFor(id);
  if (bi == blocks_.size()) {
    return false;
  }
  StreamBlock* b = blocks_[bi];
  if (b->last < id) {
    return false;
  }
  const size_t mc = b->MasterCount();
  StreamId cur;
  uint8_t flags;
  for (size_t pos = b->SeekPos(id); pos < b->data.size();) {
    size_t at = pos;
    pos = b->Skip(pos, mc, &cur, &flags);
    if (cur == id) {
      if (flags & kFlagDeleted) {
        return false;
      }
      b->MarkDeleted(at);
      b->live--;
      length_--;
      if (b->live == 0) {
        RemoveBlock(bi);
      }
      return true;
    }
    if (cur > id) {
      return false;
    }
  }
  return false;
}

// The ids of a block's live entries, in order.
static std::vector<StreamId> LiveIds(const StreamBlock& b) {
  const size_t mc = b.MasterCount();
  std::vector<StreamId> ids;
  StreamId id;
  uint8_t flags;
  for (size_t pos = b.entries_start; pos < b.data.size();) {
    pos = b.Skip(pos, mc, &id, &flags);
    if (!(flags & kFlagDeleted)) {
      ids.push_back(id);
    }
  }
  return ids;
}

int64_t StreamValue::Trim(const TrimSpec& spec, std::vector<StreamId>* removed) {
  if (spec.kind == TrimSpec::kNone) {
    return 0;
  }
  // Without groups there is nothing to keep or clean up: every policy trims alike.
  const TrimSpec::Refs refs = groups_.empty() ? TrimSpec::Refs::kKeep : spec.refs;
  int64_t deleted = 0;
  size_t bi = 0;  // blocks before it kept entries some group needs (kAcked)
  while (bi < blocks_.size()) {
    if (spec.kind == TrimSpec::kMaxLen && length_ <= spec.maxlen) {
      break;
    }
    StreamBlock* b = blocks_[bi];
    const int64_t entries = b->live;
    if (spec.limit != 0 && deleted + entries > spec.limit) {
      break;
    }
    const bool whole = spec.kind == TrimSpec::kMaxLen
                           ? length_ - static_cast<uint64_t>(entries) >= spec.maxlen
                           : b->last < spec.minid;
    if (whole && refs != TrimSpec::Refs::kAcked) {
      if (refs == TrimSpec::Refs::kDelete || removed != nullptr) {
        for (const StreamId& id : LiveIds(*b)) {
          if (refs == TrimSpec::Refs::kDelete) {
            RemoveReferences(id);
          }
          if (removed != nullptr) {
            removed->push_back(id);
          }
        }
      }
      length_ -= static_cast<uint64_t>(entries);
      deleted += entries;
      RemoveBlock(bi);
      continue;
    }
    // An approximate trim stops at a block it cannot drop whole, except under DELREF or
    // ACKED with groups present, which Redis 8.8 then finishes entry by entry.
    if (spec.approx && refs == TrimSpec::Refs::kKeep) {
      break;
    }
    // Entry by entry: the block is only partly below the threshold, or (kAcked) some of
    // its entries may still be needed by a group and stay.
    const size_t mc = b->MasterCount();
    StreamId id;
    uint8_t flags;
    bool reached = false;
    for (size_t pos = b->entries_start; pos < b->data.size();) {
      size_t at = pos;
      pos = b->Skip(pos, mc, &id, &flags);
      reached = spec.kind == TrimSpec::kMaxLen ? length_ <= spec.maxlen : id >= spec.minid;
      if (reached) {
        break;
      }
      if ((flags & kFlagDeleted) || (refs == TrimSpec::Refs::kAcked && Referenced(id))) {
        continue;
      }
      if (refs == TrimSpec::Refs::kDelete) {
        RemoveReferences(id);
      }
      if (removed != nullptr) {
        removed->push_back(id);
      }
      b->MarkDeleted(at);
      b->live--;
      length_--;
      deleted++;
    }
    if (b->live == 0) {
      RemoveBlock(bi);
    } else {
      bi++;
    }
    // A block only partly in range ends the trim (as in Redis, even when ACKED kept
    // entries and the length is still above MAXLEN); a whole one kept by ACKED goes on.
    if (reached || !whole) {
      break;
    }
  }
  return deleted;
}

StreamId StreamValue::FirstId() const {
  // The first block holding a live entry (blocks with none are freed, so the front one).
  for (const StreamBlock* b : blocks_) {
    if (b->live == 0) {
      continue;
    }
    const size_t mc = b->MasterCount();
    StreamId id;
    uint8_t flags;
    for (size_t pos = b->entries_start; pos < b->data.size();) {
      pos = b->Skip(pos, mc, &id, &flags);
      if (!(flags & kFlagDeleted)) {
        return id;
      }
    }
  }
  return {};
}

StreamId StreamValue::LastEntryId() const {
  for (size_t k = blocks_.size(); k-- > 0;) {
    const StreamBlock* b = blocks_[k];
    if (b->live == 0) {
      continue;
    }
    if (!b->LastDeleted()) {
      return b->last;
    }
    const size_t mc = b->MasterCount();
    StreamId id, last;
    uint8_t flags;
    for (size_t pos = b->entries_start; pos < b->data.size();) {
      pos = b->Skip(pos, mc, &id, &flags);
      if (!(flags & kFlagDeleted)) {
        last = id;
      }
    }
    return last;
  }
  return {};
}

size_t StreamValue::MemoryUsage() const {
  size_t n = blocks_.size() * sizeof(void*) + 64;
  for (const StreamBlock* b : blocks_) {
    n += malloc_usable_size(const_cast<StreamBlock*>(b));
    if (b->data.capacity() > 15) {
      n += b->data.capacity() + 1;
    }
  }
  for (const auto& [name, g] : groups_) {
    n += 64 + name.size() + sizeof(StreamGroup) + g->MemoryUsage();
  }
  if (idmp_ != nullptr) {
    n += sizeof(StreamIdmp) + idmp_->MemoryUsage();
  }
  return n;
}

StreamIdmp& StreamValue::EnsureIdmp() {
  if (idmp_ == nullptr) {
    idmp_ = std::make_unique<StreamIdmp>();
  }
  return *idmp_;
}

void StreamIdmp::Expire(int64_t now_ms, int64_t duration_s) {
  const int64_t horizon = now_ms - duration_s * 1000;
  for (auto it = producers.begin(); it != producers.end();) {
    Producer& p = it->second;
    while (!p.order.empty() && p.order.front().time_ms <= horizon) {
      p.index.erase(p.order.front().iid);
      p.order.pop_front();
      tracked--;
    }
    it = p.order.empty() ? producers.erase(it) : std::next(it);
  }
}

void StreamIdmp::CountLive(int64_t now_ms, int64_t duration_s, uint64_t* pids,
                           uint64_t* iids) const {
  const int64_t horizon = now_ms - duration_s * 1000;
  for (const auto& [pid, p] : producers) {
    uint64_t live = 0;
    for (auto r = p.order.rbegin(); r != p.order.rend() && r->time_ms > horizon; ++r) {
      live++;
    }
    *pids += live > 0 ? 1 : 0;
    *iids += live;
  }
}

const StreamId* StreamIdmp::Find(std::string_view pid, std::string_view iid) const {
  auto p = producers.find(pid);
  if (p == producers.end()) {
    return nullptr;
  }
  auto r = p->second.index.find(iid);
  return r == p->second.index.end() ? nullptr : &r->second;
}

void StreamIdmp::Record(std::string_view pid, std::string_view iid, const StreamId& id,
                        int64_t maxsize) {
  const int64_t time_ms = static_cast<int64_t>(std::min<uint64_t>(id.ms, INT64_MAX));
  auto p = producers.find(pid);
  if (p == producers.end()) {
    p = producers.emplace(std::string(pid), Producer()).first;
  }
  Producer& pr = p->second;
  pr.order.push_back({std::string(iid), id, time_ms});
  pr.index.emplace(std::string(iid), id);
  tracked++;
  iids_added++;
  while (pr.order.size() > static_cast<size_t>(maxsize)) {
    pr.index.erase(pr.order.front().iid);
    pr.order.pop_front();
    tracked--;
  }
}

void StreamIdmp::Clear() {
  producers.clear();
  tracked = 0;
}

size_t StreamIdmp::MemoryUsage() const {
  size_t n = 0;
  for (const auto& [pid, p] : producers) {
    n += 64 + pid.size() + sizeof(Producer);
    for (const IidRecord& r : p.order) {
      // The deque slot and the index node, both holding the iid.
      n += sizeof(IidRecord) + 64 + sizeof(StreamId) + 2 * r.iid.size();
    }
  }
  return n;
}

}  // namespace hotkv::types
