// WriteStream: per-thread pending records and buffers, the sequence-ordered merge, and
// the observer that turns engine events (expiry, eviction, flush, swapdb) into commands.
#include "server/write_stream.h"

#include <algorithm>
#include <cstring>

namespace hotkv {

namespace {

std::atomic<uint64_t> g_stream_ids{1};

// An entry's place in a byte buffer: its database and where its RESP bytes end. A
// thread buffer's committed entries also carry their record's sequence number (the entries
// of one record share it). Bytes and marks are kept apart, so that a run of entries goes
// to the consumer's output in one copy (or none: see Drain).
struct PendingMark {
  int db;
  size_t end;
};
using Mark = WriteStream::Mark;

size_t Digits(uint64_t v) {
  size_t n = 1;
  while (v >= 10000) {
    v /= 10000;
    n += 4;
  }
  return n + (v >= 10) + (v >= 100) + (v >= 1000);
}

// Writes "<type><n>\r\n" at p (Digits(n) + 3 bytes); returns the end.
char* PutInt(char* p, char type, uint64_t n) {
  *p++ = type;
  const size_t d = Digits(n);
  char* q = p + d;
  do {
    *--q = static_cast<char>('0' + n % 10);
    n /= 10;
  } while (n != 0);
  p += d;
  *p++ = '\r';
  *p++ = '\n';
  return p;
}

template <typename Args>
void Encode(std::string* out, const Args& args) {
  size_t need = Digits(args.size()) + 3;
  for (std::string_view a : args) {
    need += Digits(a.size()) + 5 + a.size();
  }
  const size_t at = out->size();
  out->resize(at + need);
  char* p = out->data() + at;
  p = PutInt(p, '*', args.size());
  for (std::string_view a : args) {
    p = PutInt(p, '$', a.size());
    if (!a.empty()) {
      memcpy(p, a.data(), a.size());
    }
    p += a.size();
    *p++ = '\r';
    *p++ = '\n';
  }
}

// Engine events as commands. Runs with the key's shard locked (flush/swapdb: all).
class StreamObserver : public KeyObserver {
 public:
  explicit StreamObserver(WriteStream* s) : stream_(s) {}
  void OnKeyExpired(int db, std::string_view key) override { Deleted(db, key); }
  void OnKeyEvicted(int db, std::string_view key) override { Deleted(db, key); }
  // Expired hash fields: HDEL (the key goes with its last field on replay too).
  void OnFieldsExpired(int db, std::string_view key, const std::vector<std::string>& fields,
                       bool, bool) override {
    if (!stream_->active()) {
      return;
    }
    std::vector<std::string_view> args;
    args.reserve(fields.size() + 2);
    args.push_back("HDEL");
    args.push_back(key);
    args.insert(args.end(), fields.begin(), fields.end());
    stream_->Append(db, args);
    stream_->Commit();
  }
  void OnFlush(int db) override {
    if (!stream_->active()) {
      return;
    }
    if (db < 0) {
      stream_->Append(-1, {"FLUSHALL"});
    } else {
      stream_->Append(db, {"FLUSHDB"});
    }
    stream_->MarkRewritten();
    stream_->Commit();
  }
  void OnSwapDb(int a, int b) override {
    if (!stream_->active()) {
      return;
    }
    const std::string sa = std::to_string(a), sb = std::to_string(b);
    stream_->Append(-1, {"SWAPDB", sa, sb});
    stream_->MarkRewritten();
    stream_->Commit();
  }
  bool AtomicFlushWanted() const override { return stream_->active(); }

 private:
  // An expired or evicted key: DEL, committed at once (inside a command it lands before
  // the command's own record, which is committed under the same lock right after).
  void Deleted(int db, std::string_view key) {
    if (!stream_->active()) {
      return;
    }
    stream_->Append(db, {"DEL", key});
    stream_->Commit();
  }
  WriteStream* stream_;
};

}  // namespace

// Cache-line aligned: the buffers of two workers never share a line.
struct alignas(64) WriteStream::ThreadBuffer {
  // Producer-only state (its thread).
  std::string pending;                // RESP of the record being built
  std::vector<PendingMark> pending_marks;
  bool rewritten = false;
  bool in_multi = false;
  size_t multi_start = 0;             // byte offset in pending
  size_t multi_mark = 0;              // index in pending_marks
  uint64_t last_committed = 0;
  // Shared with the consumer (under lock).
  SpinLock lock;
  std::string data;         // committed records' RESP
  std::vector<Mark> marks;  // one per entry, in data's order
  // Consumer-only: the buffers Drain swaps in, so their capacity is reused instead of
  // growing a fresh string from nothing after every drain.
  std::string spare_data;
  std::vector<Mark> spare_marks;
};

thread_local WriteStream::ThreadBuffer* WriteStream::t_buffer_ = nullptr;
thread_local uint64_t WriteStream::t_buffer_stream_ = 0;

WriteStream::WriteStream()
    : id_(g_stream_ids.fetch_add(1, std::memory_order_relaxed)),
      observer_(std::make_unique<StreamObserver>(this)) {}

WriteStream::~WriteStream() = default;

WriteStream::ThreadBuffer& WriteStream::Register() {
  std::lock_guard<std::mutex> g(registry_mu_);
  buffers_.push_back(std::make_unique<ThreadBuffer>());
  buffer_count_.store(buffers_.size(), std::memory_order_release);
  t_buffer_ = buffers_.back().get();
  t_buffer_stream_ = id_;
  return *t_buffer_;
}

void WriteStream::EncodeCommand(std::string* out, const std::vector<std::string_view>& args) {
  Encode(out, args);
}

// The client's own bytes when they are exactly what Encode would write. The request
// parser accepts counts and lengths only in their shortest form (no leading zero, no
// sign: protocol/resp_parser.cc, ParseCount and ParseInt64), so a RESP request it parsed
// is canonical; what is checked here, in O(1), is that `args` is that request's own
// vector (the dispatcher's arguments are const: nothing replaces one in place) and that
// its first and last arguments sit where canonical RESP puts them (a count or length
// written any other way would move them). Before, the whole body's size was summed
// argument by argument: ~115 instructions per SET.
bool WriteStream::RawIsCanonical(const std::vector<std::string_view>& args) {
  if (&args != t_raw_args_ || t_raw_.empty()) {
    return false;
  }
  const std::string_view front = args.front(), back = args.back();
  const char* const raw = t_raw_.data();
  // The count and the command name's length: one digit nearly always.
  auto digits = [](size_t v) { return v < 10 ? 1 : Digits(v); };
  return front.data() == raw + digits(args.size()) + 3 + digits(front.size()) + 3 &&
         back.data() + back.size() + 2 == raw + t_raw_.size();
}

void WriteStream::Append(int db, const std::vector<std::string_view>& args) {
  ThreadBuffer& b = Local();
  if (RawIsCanonical(args)) {
    b.pending.append(t_raw_);
  } else {
    Encode(&b.pending, args);
  }
  b.pending_marks.push_back({db, b.pending.size()});
}

uint64_t WriteStream::AppendCommit(int db, const std::vector<std::string_view>& args) {
  ThreadBuffer& b = Local();
  if (b.in_multi || !b.pending_marks.empty()) [[unlikely]] {
    Append(db, args);
    return 0;
  }
  const bool raw = RawIsCanonical(args);
  b.lock.lock();
  const uint64_t seq = seq_.fetch_add(1, std::memory_order_acq_rel) + 1;
  if (raw) {
    b.data.append(t_raw_);
  } else {
    Encode(&b.data, args);
  }
  b.marks.push_back({seq, db, b.data.size()});
  b.lock.unlock();
  b.last_committed = seq;
  return seq;
}

void WriteStream::Append(int db, std::initializer_list<std::string_view> args) {
  ThreadBuffer& b = Local();
  Encode(&b.pending, args);
  b.pending_marks.push_back({db, b.pending.size()});
}

void WriteStream::MarkRewritten() { Local().rewritten = true; }
void WriteStream::BeginCommand() { Local().rewritten = false; }
bool WriteStream::rewritten() { return Local().rewritten; }

void WriteStream::BeginMulti() {
  ThreadBuffer& b = Local();
  b.in_multi = true;
  b.multi_start = b.pending.size();
  b.multi_mark = b.pending_marks.size();
}

void WriteStream::EndMulti() {
  ThreadBuffer& b = Local();
  if (!b.in_multi) {
    return;
  }
  b.in_multi = false;
  if (b.pending_marks.size() - b.multi_mark < 2) {
    return;  // one command needs no wrapping (Redis 7 wraps only several)
  }
  // MULTI goes in the first wrapped command's database, so a SELECT precedes it.
  const int first_db = b.pending_marks[b.multi_mark].db;
  std::string multi;
  Encode(&multi, std::initializer_list<std::string_view>{"MULTI"});
  b.pending.insert(b.multi_start, multi);
  for (size_t i = b.multi_mark; i < b.pending_marks.size(); i++) {
    b.pending_marks[i].end += multi.size();
  }
  b.pending_marks.insert(b.pending_marks.begin() + static_cast<ptrdiff_t>(b.multi_mark),
                         PendingMark{first_db, b.multi_start + multi.size()});
  Append(-1, {"EXEC"});
}

uint64_t WriteStream::Commit() {
  ThreadBuffer& b = Local();
  if (b.pending_marks.empty() || b.in_multi) {
    return 0;
  }
  b.lock.lock();
  const uint64_t seq = seq_.fetch_add(1, std::memory_order_acq_rel) + 1;
  const size_t base = b.data.size();
  b.data.append(b.pending);
  for (const PendingMark& m : b.pending_marks) {
    b.marks.push_back({seq, m.db, base + m.end});
  }
  b.lock.unlock();
  b.pending.clear();
  b.pending_marks.clear();
  b.last_committed = seq;
  return seq;
}

uint64_t WriteStream::LastCommittedByThisThread() {
  return t_buffer_stream_ == id_ ? t_buffer_->last_committed : 0;
}

struct WriteStream::Taken {
  ThreadBuffer* from = nullptr;
  std::string data;
  std::vector<Mark> marks;
  size_t next = 0;  // index of the first mark not yet emitted
};

WriteStream::Drained::Drained() = default;
WriteStream::Drained::~Drained() = default;

uint64_t WriteStream::TakeAll(std::vector<Taken>* taken) {
  std::lock_guard<std::mutex> g(registry_mu_);
  taken->resize(buffers_.size());
  for (size_t i = 0; i < buffers_.size(); i++) {
    Taken& t = (*taken)[i];
    t.from = buffers_[i].get();
    t.next = 0;
    t.data.swap(buffers_[i]->spare_data);
    t.marks.swap(buffers_[i]->spare_marks);
  }
  for (auto& b : buffers_) {
    b->lock.lock();
  }
  // Every number handed out so far is in a buffer now: Commit takes it under its lock.
  const uint64_t complete = seq_.load(std::memory_order_acquire);
  for (size_t i = 0; i < buffers_.size(); i++) {
    (*taken)[i].data.swap(buffers_[i]->data);
    (*taken)[i].marks.swap(buffers_[i]->marks);
  }
  for (auto& b : buffers_) {
    b->lock.unlock();
  }
  return complete;
}

// K-way merge by sequence number, a run at a time: from the buffer holding the lowest
// next number, every entry numbered below the other buffers' next numbers goes in one
// piece (entries of one database; a SELECT between databases). Few buffers: a linear
// minimum is enough. `run(t, from, to)`: bytes [from, to) of t.data; `select(db)`.
template <typename Run, typename Select>
void WriteStream::Merge(std::vector<Taken>& taken, int* db, Run&& run, Select&& select) {
  for (;;) {
    size_t best = taken.size();
    uint64_t best_seq = 0, second_seq = UINT64_MAX;
    for (size_t i = 0; i < taken.size(); i++) {
      if (taken[i].next < taken[i].marks.size()) {
        const uint64_t s = taken[i].marks[taken[i].next].seq;
        if (best == taken.size() || s < best_seq) {
          if (best != taken.size()) {
            second_seq = std::min(second_seq, best_seq);
          }
          best = i;
          best_seq = s;
        } else {
          second_seq = std::min(second_seq, s);
        }
      }
    }
    if (best == taken.size()) {
      break;
    }
    Taken& t = taken[best];
    while (t.next < t.marks.size() && t.marks[t.next].seq < second_seq) {
      const int64_t entry_db = t.marks[t.next].db;
      if (entry_db >= 0 && entry_db != *db) {
        select(static_cast<int>(entry_db));
        *db = static_cast<int>(entry_db);
      }
      // The run: following entries of the same database (or of none) below second_seq.
      const size_t from = t.next == 0 ? 0 : t.marks[t.next - 1].end;
      size_t last = t.next;
      while (last + 1 < t.marks.size() && t.marks[last + 1].seq < second_seq &&
             (t.marks[last + 1].db < 0 || t.marks[last + 1].db == *db)) {
        last++;
      }
      run(t, from, t.marks[last].end);
      t.next = last + 1;
    }
  }
}

// The taken buffers become the spares of the next drain (their capacity kept, unless a
// burst made it large).
void WriteStream::ReturnSpares(std::vector<Taken>& taken) {
  constexpr size_t kMaxSpare = 16u << 20;
  for (Taken& t : taken) {
    t.data.clear();
    t.marks.clear();
    if (t.data.capacity() > kMaxSpare) {
      std::string().swap(t.data);
      std::vector<Mark>().swap(t.marks);
    }
    t.from->spare_data.swap(t.data);
    t.from->spare_marks.swap(t.marks);
  }
}

uint64_t WriteStream::Drain(std::string* out, int* db) {
  std::vector<Taken> taken;
  const uint64_t complete = TakeAll(&taken);
  Merge(
      taken, db,
      [&](Taken& t, size_t from, size_t to) {
        if (out->empty() && from == 0 && to == t.data.size()) {
          out->swap(t.data);  // the whole buffer: no copy (t.data gets out's capacity)
          t.data.clear();
        } else {
          out->append(t.data, from, to - from);
        }
      },
      [&](int d) {
        const std::string n = std::to_string(d);
        Encode(out, std::initializer_list<std::string_view>{"SELECT", n});
      });
  ReturnSpares(taken);
  return complete;
}

uint64_t WriteStream::DrainPieces(Drained* d, int* db) {
  ReleaseDrained(d);
  const uint64_t complete = TakeAll(&d->taken_);
  // Places first (source, offset, size), pointers once selects_ has stopped growing.
  constexpr uint32_t kSelects = UINT32_MAX;
  d->places_.clear();
  Merge(
      d->taken_, db,
      [&](Taken& t, size_t from, size_t to) {
        d->places_.push_back({static_cast<uint32_t>(&t - d->taken_.data()), from, to - from});
      },
      [&](int n) {
        const size_t at = d->selects_.size();
        const std::string s = std::to_string(n);
        Encode(&d->selects_, std::initializer_list<std::string_view>{"SELECT", s});
        d->places_.push_back({kSelects, at, d->selects_.size() - at});
      });
  d->pieces.reserve(d->places_.size());
  for (const Drained::Place& p : d->places_) {
    const char* base =
        p.source == kSelects ? d->selects_.data() : d->taken_[p.source].data.data();
    d->pieces.push_back({base + p.offset, p.size});
    d->bytes += p.size;
  }
  return complete;
}

void WriteStream::ReleaseDrained(Drained* d) {
  if (!d->taken_.empty()) {
    ReturnSpares(d->taken_);
    d->taken_.clear();
  }
  d->pieces.clear();
  d->bytes = 0;
  d->selects_.clear();
}

}  // namespace hotkv
