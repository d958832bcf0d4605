// LoadFileParallel: ScanFile on the calling thread, values decoded and handed to on_key
// by `lanes` threads. Each key goes to the lane lane_of(key) names, in batches; a lane
// decodes its keys in file order, so one key's records (a duplicate) meet in order on
// one lane, as they would on one thread.
//
// Progress: the bytes scanned, scaled by the share of handed-out keys the lanes have
// finished (the scanner may be far ahead of them), reported by the scanner and by each
// lane after each batch.
//
// Errors: every lane keeps the first error it meets, with its record's file offset, and
// stops decoding (it still drains its queue, freeing what it was handed); the scanner
// stops handing out keys once any lane failed. The load's error is the one at the lowest
// offset — the error a one-thread load of the same file reports.
#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <deque>
#include <memory>
#include <mutex>
#include <thread>
#include <utility>
#include <vector>

#include "engine/entry.h"
#include "rdb/format.h"
#include "rdb/rdb.h"
#include "rdb/scan.h"

namespace hotkv::rdb {
namespace {

constexpr size_t kBatch = 128;        // records per hand-over
constexpr size_t kMaxQueued = 16;     // batches queued per lane before the scanner waits

// A record for a lane: undecoded (raw.value set) or decoded by the scanner (meta.entry).
using Batch = std::vector<RawKey>;

class LaneSink final : public KeySink {
 public:
  LaneSink(const std::string& path, const LoadOptions& opts, int lanes,
           const std::function<int(std::string_view)>& lane_of,
           const std::function<Status(LoadedKey&&)>& on_key,
           const std::function<void(uint64_t, uint64_t)>& on_progress)
      : path_(path), opts_(opts), lane_of_(lane_of), on_key_(on_key), on_progress_(on_progress) {
    lanes_.reserve(static_cast<size_t>(lanes));
    for (int i = 0; i < lanes; ++i) lanes_.push_back(std::make_unique<Lane>());
    for (auto& l : lanes_) l->thread = std::thread([this, lane = l.get()] { Run(lane); });
  }
  ~LaneSink() override { Close(); }

  bool WantsRaw(uint8_t) const override { return true; }

  // The scanner's progress (bytes read of the file).
  void Scanned(uint64_t bytes, uint64_t total) {
    scanned_.store(bytes, std::memory_order_relaxed);
    total_.store(total, std::memory_order_relaxed);
    Report();
  }

  Status Decoded(size_t offset, LoadedKey&& k) override {
    RawKey rec;  // (no key copy: the lane is chosen by the entry's own key)
    rec.offset = offset;
    rec.meta = std::move(k);
    return Raw(std::move(rec));
  }

  Status Raw(RawKey&& rec) override {
    if (failed_.load(std::memory_order_relaxed)) {
      if (rec.meta.entry != nullptr) Entry::Free(rec.meta.entry);
      return Status::FailedPrecondition("a lane failed");  // replaced by Finish
    }
    const int n = static_cast<int>(lanes_.size());
    const std::string_view key = rec.meta.entry != nullptr ? rec.meta.entry->key() : rec.key;
    const int i = std::clamp(lane_of_(key), 0, n - 1);
    Lane& l = *lanes_[static_cast<size_t>(i)];
    handed_.fetch_add(1, std::memory_order_relaxed);
    l.filling.push_back(std::move(rec));
    if (l.filling.size() >= kBatch) Push(l);
    return Status();
  }

  Status Finish(Status scan) override {
    for (auto& l : lanes_) {
      if (!l->filling.empty()) Push(*l);
    }
    Close();
    // The error at the lowest offset: a lane's, or the scanner's (whose offset is past
    // every record it handed out, unless it is the "a lane failed" stop).
    const Lane* first = nullptr;
    for (auto& l : lanes_) {
      if (!l->error.ok() && (first == nullptr || l->error_offset < first->error_offset)) {
        first = l.get();
      }
    }
    return first != nullptr ? first->error : scan;
  }

 private:
  struct Lane {
    std::mutex mu;
    std::condition_variable cv;      // a batch queued, or closed (lane waits)
    std::condition_variable space;   // a batch taken (scanner waits)
    std::deque<Batch> queue;
    bool closed = false;
    Batch filling;                   // the scanner's batch in the making
    std::thread thread;
    Status error;                    // the lane's first error
    size_t error_offset = 0;
  };

  void Push(Lane& l) {
    std::unique_lock<std::mutex> lock(l.mu);
    l.space.wait(lock, [&] { return l.queue.size() < kMaxQueued; });
    l.queue.push_back(std::move(l.filling));
    l.filling = Batch();
    l.filling.reserve(kBatch);
    l.cv.notify_one();
  }

  void Close() {
    for (auto& l : lanes_) {
      {
        std::lock_guard<std::mutex> lock(l->mu);
        l->closed = true;
      }
      l->cv.notify_one();
    }
    for (auto& l : lanes_) {
      if (l->thread.joinable()) l->thread.join();
    }
  }

  void Run(Lane* l) {
    for (;;) {
      Batch batch;
      {
        std::unique_lock<std::mutex> lock(l->mu);
        l->cv.wait(lock, [&] { return !l->queue.empty() || l->closed; });
        if (l->queue.empty()) return;
        batch = std::move(l->queue.front());
        l->queue.pop_front();
      }
      l->space.notify_one();
      for (RawKey& rec : batch) Handle(l, rec);
      done_.fetch_add(batch.size(), std::memory_order_relaxed);
      Report();
    }
  }

  void Report() {
    if (!on_progress_) return;
    const uint64_t handed = handed_.load(std::memory_order_relaxed);
    const uint64_t done = std::min(done_.load(std::memory_order_relaxed), handed);
    const uint64_t scanned = scanned_.load(std::memory_order_relaxed);
    const uint64_t at = handed == 0 ? scanned
                                    : static_cast<uint64_t>(static_cast<double>(scanned) *
                                                            static_cast<double>(done) /
                                                            static_cast<double>(handed));
    on_progress_(at, total_.load(std::memory_order_relaxed));
  }

  void Handle(Lane* l, RawKey& rec) {
    if (!l->error.ok()) {
      if (rec.meta.entry != nullptr) Entry::Free(rec.meta.entry);
      return;
    }
    if (rec.meta.entry == nullptr) {
      Reader r(rec.value, rec.value_end);  // errors carry the record's offset, not r's
      bool empty = false;
      Result<Entry*> e = LoadObject(r, rec.type, rec.key, rec.meta.expire_ms >= 0, opts_.limits,
                                    opts_.zset_limits, &empty);
      if (!e.ok()) {
        if (!empty) Fail(l, rec.offset, LoadError(path_, rec.offset, e.status().message()));
        return;  // an empty collection is skipped, as the one-thread load does
      }
      rec.meta.entry = *e;
    }
    if (Status st = on_key_(std::move(rec.meta)); !st.ok()) Fail(l, rec.offset, std::move(st));
  }

  void Fail(Lane* l, size_t offset, Status st) {
    l->error = std::move(st);
    l->error_offset = offset;
    failed_.store(true, std::memory_order_relaxed);
  }

  const std::string& path_;
  const LoadOptions& opts_;
  const std::function<int(std::string_view)>& lane_of_;
  const std::function<Status(LoadedKey&&)>& on_key_;
  const std::function<void(uint64_t, uint64_t)>& on_progress_;
  std::vector<std::unique_ptr<Lane>> lanes_;
  std::atomic<bool> failed_{false};
  std::atomic<uint64_t> handed_{0}, done_{0};   // keys handed to lanes / finished by them
  std::atomic<uint64_t> scanned_{0}, total_{0};
};

}  // namespace

Result<LoadStats> LoadFileParallel(const std::string& path, const LoadOptions& opts, int lanes,
                                   const std::function<int(std::string_view key)>& lane_of,
                                   const std::function<Status(LoadedKey&&)>& on_key,
                                   const std::function<void(uint64_t, uint64_t)>& on_progress) {
  if (lanes <= 1) return LoadFile(path, opts, on_key, on_progress);
  LaneSink sink(path, opts, lanes, lane_of, on_key, on_progress);
  Result<LoadStats> r = ScanFile(path, opts, sink, [&sink](uint64_t bytes, uint64_t total) {
    sink.Scanned(bytes, total);
  });
  if (r.ok() && on_progress) on_progress(r->bytes, r->bytes);  // every lane done (Finish)
  return r;
}

}  // namespace hotkv::rdb
