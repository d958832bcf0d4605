#include "engine/lazy_free.h"

#include <condition_variable>
#include <deque>
#include <mutex>
#include <thread>

namespace hotkv {

namespace {

class LazyFreer {
 public:
  static LazyFreer& Get() {
    static LazyFreer* instance = new LazyFreer();  // lives until exit
    return *instance;
  }

  void Push(std::vector<DbTable>&& tables, Entry* entry, uint64_t objects,
            std::function<void()> done) {
    {
      std::lock_guard<std::mutex> g(mu_);
      jobs_.push_back(Job{std::move(tables), entry, objects, std::move(done)});
      pending_ += objects;
    }
    cv_.notify_one();
  }

  LazyFreeStats Stats() {
    std::lock_guard<std::mutex> g(mu_);
    return LazyFreeStats{pending_, freed_};
  }

  void ResetFreed() {
    std::lock_guard<std::mutex> g(mu_);
    freed_ = 0;
  }

  // Until every job queued so far (its `done` included) has run. A paused freer is not
  // waited for (tests pause it on purpose).
  void Drain() {
    std::unique_lock<std::mutex> g(mu_);
    idle_cv_.wait(g, [this] { return (jobs_.empty() && !running_) || paused_; });
  }

  void SetPaused(bool paused) {
    {
      std::lock_guard<std::mutex> g(mu_);
      paused_ = paused;
    }
    cv_.notify_one();
  }

 private:
  struct Job {
    std::vector<DbTable> tables;
    Entry* entry = nullptr;
    uint64_t objects = 0;
    std::function<void()> done;
  };

  LazyFreer() {
    std::thread([this] { Run(); }).detach();
  }

  void Run() {
    for (;;) {
      Job job;
      {
        std::unique_lock<std::mutex> g(mu_);
        cv_.wait(g, [this] { return !jobs_.empty() && !paused_; });
        job = std::move(jobs_.front());
        jobs_.pop_front();
        running_ = true;
      }
      for (DbTable& t : job.tables) {
        t.keys.Clear([](Entry* e) { Entry::Free(e); });
      }
      job.tables.clear();  // the key-size histograms and TTL lists go too
      if (job.entry != nullptr) {
        Entry::Free(job.entry);
      }
      {
        // Both counters move together, so pending + freed is exact for INFO.
        std::lock_guard<std::mutex> g(mu_);
        pending_ -= job.objects;
        freed_ += job.objects;
      }
      if (job.done) {
        job.done();
      }
      {
        std::lock_guard<std::mutex> g(mu_);
        running_ = false;
      }
      idle_cv_.notify_all();
    }
  }

  std::mutex mu_;
  std::condition_variable cv_;
  std::condition_variable idle_cv_;  // Drain(): the queue emptied and the job finished
  std::deque<Job> jobs_;
  bool running_ = false;
  uint64_t pending_ = 0;
  uint64_t freed_ = 0;
  bool paused_ = false;
};

}  // namespace

size_t FreeEffort(const Entry* e) {
  if (e->is_string()) {
    return 1;
  }
  return ObjectFreeEffort(e->type(), e->object());
}

bool FreeEntry(Entry* e, bool lazy) {
  if (!lazy || FreeEffort(e) <= kLazyFreeThreshold) {
    Entry::Free(e);
    return false;
  }
  LazyFreer::Get().Push({}, e, 1, {});
  return true;
}

void FreeTables(std::vector<DbTable>&& tables, std::function<void()> done) {
  uint64_t keys = 0;
  for (const DbTable& t : tables) {
    keys += t.keys.size();
  }
  LazyFreer::Get().Push(std::move(tables), nullptr, keys, std::move(done));
}

LazyFreeStats GetLazyFreeStats() { return LazyFreer::Get().Stats(); }

void ResetLazyFreedObjects() { LazyFreer::Get().ResetFreed(); }

void PauseLazyFreeForTesting(bool paused) { LazyFreer::Get().SetPaused(paused); }

void WaitForLazyFree() { LazyFreer::Get().Drain(); }

}  // namespace hotkv
