#include "vector/epoch.h"

#include <atomic>

namespace hotkv::vector {
namespace {

constexpr int kSlotsPerBlock = 64;

struct alignas(64) Slot {
  std::atomic<uint64_t> epoch{0};  // 0 = not inside a guard.
  std::atomic<bool> owned{false};
};

struct SlotBlock {
  Slot slots[kSlotsPerBlock];
  SlotBlock* next = nullptr;
};

class Domain {
 public:
  std::atomic<uint64_t> global_epoch{1};
  std::atomic<SlotBlock*> head{nullptr};

  Slot* Acquire() {
    for (;;) {
      for (SlotBlock* b = head.load(std::memory_order_acquire); b != nullptr; b = b->next) {
        for (Slot& s : b->slots) {
          bool expected = false;
          if (!s.owned.load(std::memory_order_relaxed) &&
              s.owned.compare_exchange_strong(expected, true, std::memory_order_acq_rel)) {
            return &s;
          }
        }
      }
      // All slots taken: publish a new block (blocks are never freed).
      SlotBlock* block = new SlotBlock();
      block->next = head.load(std::memory_order_acquire);
      while (!head.compare_exchange_weak(block->next, block, std::memory_order_acq_rel)) {
      }
    }
  }

  uint64_t MinActive() {
    std::atomic_thread_fence(std::memory_order_seq_cst);
    uint64_t min = UINT64_MAX;
    for (SlotBlock* b = head.load(std::memory_order_acquire); b != nullptr; b = b->next) {
      for (Slot& s : b->slots) {
        uint64_t e = s.epoch.load(std::memory_order_seq_cst);
        if (e != 0 && e < min) {
          min = e;
        }
      }
    }
    return min;
  }
};

Domain& GlobalDomain() {
  // Leaked on purpose: thread_local destructors may run after static destruction.
  static Domain* domain = new Domain();
  return *domain;
}

struct ThreadState {
  Slot* slot = nullptr;
  int depth = 0;
  ~ThreadState() {
    if (slot != nullptr) {
      slot->epoch.store(0, std::memory_order_release);
      slot->owned.store(false, std::memory_order_release);
    }
  }
};

thread_local ThreadState tls_state;

}  // namespace

EpochGuard::EpochGuard() {
  ThreadState& ts = tls_state;
  if (ts.depth++ > 0) {
    return;
  }
  if (ts.slot == nullptr) {
    ts.slot = GlobalDomain().Acquire();
  }
  Domain& d = GlobalDomain();
  // Announce, then re-check: if a writer advanced the epoch in between, it may have
  // scanned the slots before our announcement became visible, so announce again.
  uint64_t e = d.global_epoch.load(std::memory_order_seq_cst);
  for (;;) {
    ts.slot->epoch.store(e, std::memory_order_seq_cst);
    std::atomic_thread_fence(std::memory_order_seq_cst);
    uint64_t now = d.global_epoch.load(std::memory_order_seq_cst);
    if (now == e) {
      break;
    }
    e = now;
  }
}

EpochGuard::~EpochGuard() {
  ThreadState& ts = tls_state;
  if (--ts.depth == 0) {
    ts.slot->epoch.store(0, std::memory_order_release);
  }
}

uint64_t RetireEpoch() {
  std::atomic_thread_fence(std::memory_order_seq_cst);
  return GlobalDomain().global_epoch.fetch_add(1, std::memory_order_seq_cst);
}

uint64_t MinActiveEpoch() { return GlobalDomain().MinActive(); }

}  // namespace hotkv::vector
