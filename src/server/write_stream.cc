// WriteStream: per-thread pending records and buffers, the sequence-ordered merge, and
// the observer that turns engine events (expiry, eviction, flush, swapdb) into commands.
#include "server/write_stream.h"

#include <algorithm>
#include <cstring>

namespace hotkv {

namespace {

std::atomic<uint64_t> g_stream_ids{1};

// Entry header inside a record: database, then the length of the RESP bytes.
struct EntryHeader {
  int64_t db;
  uint64_t len;  // one command: up to argc x 512 MB
};
// Record header inside a thread buffer: sequence number, then the record's length.
struct RecordHeader {
  uint64_t seq;
  uint64_t len;  // a whole MULTI ... EXEC may pass 4 GB
};

template <typename T>
T ReadAt(const std::string& s, size_t pos) {
  T v;
  memcpy(&v, s.data() + pos, sizeof(T));
  return v;
}

// "<type><n>\r\n" for a non-negative n (counts and lengths), without printf.
void AppendInt(std::string* out, char type, int64_t n) {
  char buf[24];
  char* end = buf + sizeof(buf);
  char* p = end;
  *--p = '\n';
  *--p = '\r';
  uint64_t v = static_cast<uint64_t>(n);
  do {
    *--p = static_cast<char>('0' + v % 10);
    v /= 10;
  } while (v != 0);
  *--p = type;
  out->append(p, static_cast<size_t>(end - p));
}

// Engine events as commands. Runs with the key's shard locked (flush/swapdb: all).
class StreamObserver : public KeyObserver {
 public:
  explicit StreamObserver(WriteStream* s) : stream_(s) {}
  void OnKeyExpired(int db, std::string_view key) override { Deleted(db, key); }
  void OnKeyEvicted(int db, std::string_view key) override { Deleted(db, key); }
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

struct WriteStream::ThreadBuffer {
  // Producer-only state (its thread).
  std::string pending;
  bool rewritten = false;
  bool in_multi = false;
  size_t multi_start = 0;
  size_t multi_count = 0;
  uint64_t last_committed = 0;
  // Shared with the consumer.
  SpinLock lock;
  std::string data;  // committed records
};

namespace {
thread_local WriteStream::ThreadBuffer* t_buffer = nullptr;
thread_local uint64_t t_buffer_stream = 0;
}  // namespace

WriteStream::WriteStream()
    : id_(g_stream_ids.fetch_add(1, std::memory_order_relaxed)),
      observer_(std::make_unique<StreamObserver>(this)) {}

WriteStream::~WriteStream() = default;

WriteStream::ThreadBuffer& WriteStream::Local() {
  if (t_buffer_stream == id_) [[likely]] {
    return *t_buffer;
  }
  std::lock_guard<std::mutex> g(registry_mu_);
  buffers_.push_back(std::make_unique<ThreadBuffer>());
  buffer_count_.store(buffers_.size(), std::memory_order_release);
  t_buffer = buffers_.back().get();
  t_buffer_stream = id_;
  return *t_buffer;
}

void WriteStream::EncodeCommand(std::string* out, const std::vector<std::string_view>& args) {
  AppendInt(out, '*', static_cast<int64_t>(args.size()));
  for (std::string_view a : args) {
    AppendInt(out, '$', static_cast<int64_t>(a.size()));
    out->append(a);
    out->append("\r\n", 2);
  }
}

void WriteStream::Append(int db, const std::vector<std::string_view>& args) {
  ThreadBuffer& b = Local();
  const size_t header_at = b.pending.size();
  b.pending.resize(header_at + sizeof(EntryHeader));
  EncodeCommand(&b.pending, args);
  EntryHeader h{db, b.pending.size() - header_at - sizeof(EntryHeader)};
  memcpy(b.pending.data() + header_at, &h, sizeof(h));
  if (b.in_multi) {
    b.multi_count++;
  }
}

void WriteStream::Append(int db, std::initializer_list<std::string_view> args) {
  Append(db, std::vector<std::string_view>(args));
}

void WriteStream::MarkRewritten() { Local().rewritten = true; }
void WriteStream::BeginCommand() { Local().rewritten = false; }
bool WriteStream::rewritten() { return Local().rewritten; }

void WriteStream::BeginMulti() {
  ThreadBuffer& b = Local();
  b.in_multi = true;
  b.multi_start = b.pending.size();
  b.multi_count = 0;
}

void WriteStream::EndMulti() {
  ThreadBuffer& b = Local();
  if (!b.in_multi) {
    return;
  }
  b.in_multi = false;
  if (b.multi_count < 2) {
    return;  // one command needs no wrapping (Redis 7 wraps only several)
  }
  // MULTI goes in the first wrapped command's database, so a SELECT precedes it.
  const int64_t first_db = ReadAt<EntryHeader>(b.pending, b.multi_start).db;
  std::string multi(sizeof(EntryHeader), '\0');
  EncodeCommand(&multi, {"MULTI"});
  EntryHeader h{first_db, multi.size() - sizeof(EntryHeader)};
  memcpy(multi.data(), &h, sizeof(h));
  b.pending.insert(b.multi_start, multi);
  Append(-1, {"EXEC"});
}

uint64_t WriteStream::Commit() {
  ThreadBuffer& b = Local();
  if (b.pending.empty() || b.in_multi) {
    return 0;
  }
  b.lock.lock();
  const uint64_t seq = seq_.fetch_add(1, std::memory_order_acq_rel) + 1;
  RecordHeader h{seq, b.pending.size()};
  b.data.append(reinterpret_cast<const char*>(&h), sizeof(h));
  b.data.append(b.pending);
  b.lock.unlock();
  b.pending.clear();
  b.last_committed = seq;
  return seq;
}

uint64_t WriteStream::LastCommittedByThisThread() {
  return t_buffer_stream == id_ ? t_buffer->last_committed : 0;
}

uint64_t WriteStream::Drain(std::string* out, int* db) {
  std::vector<std::string> taken;
  uint64_t complete = 0;
  {
    std::lock_guard<std::mutex> g(registry_mu_);
    for (auto& b : buffers_) {
      b->lock.lock();
    }
    // Every number handed out so far is in a buffer now: Commit takes it under its lock.
    complete = seq_.load(std::memory_order_acquire);
    taken.resize(buffers_.size());
    for (size_t i = 0; i < buffers_.size(); i++) {
      taken[i].swap(buffers_[i]->data);
    }
    for (auto& b : buffers_) {
      b->lock.unlock();
    }
  }
  // K-way merge by sequence number (few buffers: a linear minimum is enough).
  std::vector<size_t> pos(taken.size(), 0);
  for (;;) {
    size_t best = taken.size();
    uint64_t best_seq = 0;
    for (size_t i = 0; i < taken.size(); i++) {
      if (pos[i] < taken[i].size()) {
        const uint64_t s = ReadAt<RecordHeader>(taken[i], pos[i]).seq;
        if (best == taken.size() || s < best_seq) {
          best = i;
          best_seq = s;
        }
      }
    }
    if (best == taken.size()) {
      break;
    }
    const std::string& src = taken[best];
    const RecordHeader rh = ReadAt<RecordHeader>(src, pos[best]);
    size_t p = pos[best] + sizeof(RecordHeader);
    const size_t end = p + rh.len;
    while (p < end) {
      const EntryHeader eh = ReadAt<EntryHeader>(src, p);
      p += sizeof(EntryHeader);
      if (eh.db >= 0 && eh.db != *db) {
        const std::string n = std::to_string(eh.db);
        EncodeCommand(out, {"SELECT", n});
        *db = static_cast<int>(eh.db);
      }
      out->append(src, p, eh.len);
      p += eh.len;
    }
    pos[best] = end;
  }
  return complete;
}

}  // namespace hotkv
