// Page prefaulting: memory the allocator commits is paged in by the background thread,
// and doing so never changes what the program stored, even while it writes concurrently.
#include "common/page_prefault.h"

#include <gtest/gtest.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <thread>
#include <vector>

namespace hotkv {
namespace {

// Waits (bounded) until the prefault thread has populated more than `bytes`.
bool WaitForPopulated(uint64_t bytes) {
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (std::chrono::steady_clock::now() < deadline) {
    if (GetPrefaultStats().bytes_populated > bytes) {
      return true;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return false;
}

uint8_t PatternByte(size_t block, size_t i) { return static_cast<uint8_t>(block * 131 + i * 7 + 1); }

class PagePrefault : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!StartPagePrefaulter()) {
      GTEST_SKIP() << "not the mimalloc build";
    }
  }
};

TEST_F(PagePrefault, CommittedMemoryIsPopulatedAndKeepsItsContents) {
  const PrefaultStats before = GetPrefaultStats();
  EXPECT_TRUE(before.active);
  // 64 MB in 1 KB blocks: mimalloc commits it 1 MiB at a time as it hands it out.
  constexpr size_t kBlocks = 64 * 1024;
  constexpr size_t kSize = 1000;
  std::vector<uint8_t*> blocks(kBlocks);
  for (size_t b = 0; b < kBlocks; b++) {
    blocks[b] = static_cast<uint8_t*>(std::malloc(kSize));
    ASSERT_NE(blocks[b], nullptr);
    for (size_t i = 0; i < kSize; i++) {
      blocks[b][i] = PatternByte(b, i);
    }
  }
  const PrefaultStats after = GetPrefaultStats();
  EXPECT_GT(after.ranges_queued, before.ranges_queued);
  EXPECT_TRUE(WaitForPopulated(before.bytes_populated));
  for (size_t b = 0; b < kBlocks; b++) {
    for (size_t i = 0; i < kSize; i++) {
      ASSERT_EQ(blocks[b][i], PatternByte(b, i)) << "block " << b << " byte " << i;
    }
  }
  for (uint8_t* p : blocks) {
    std::free(p);
  }
}

TEST_F(PagePrefault, ConcurrentWritersSeeTheirOwnBytes) {
  // Two threads allocate and fill blocks as fast as they can, so their writes race with
  // the prefault thread populating the same fresh ranges; every byte must read back.
  auto work = [](size_t seed, bool* ok) {
    std::vector<uint8_t*> blocks;
    for (size_t b = 0; b < 40000; b++) {
      size_t size = 200 + (b * 37 + seed) % 3000;
      auto* p = static_cast<uint8_t*>(std::malloc(size));
      for (size_t i = 0; i < size; i++) {
        p[i] = PatternByte(b + seed, i);
      }
      blocks.push_back(p);
      if (b % 3 == 0) {  // free some, so that memory is also reused
        size_t victim = b / 2;
        if (blocks[victim] != nullptr) {
          std::free(blocks[victim]);
          blocks[victim] = nullptr;
        }
      }
    }
    *ok = true;
    for (size_t b = 0; b < blocks.size(); b++) {
      if (blocks[b] == nullptr) {
        continue;
      }
      size_t size = 200 + (b * 37 + seed) % 3000;
      for (size_t i = 0; i < size && *ok; i++) {
        if (blocks[b][i] != PatternByte(b + seed, i)) {
          *ok = false;
        }
      }
      std::free(blocks[b]);
    }
  };
  bool ok1 = false;
  bool ok2 = false;
  std::thread t1(work, 1, &ok1);
  std::thread t2(work, 100000, &ok2);
  t1.join();
  t2.join();
  EXPECT_TRUE(ok1);
  EXPECT_TRUE(ok2);
}

TEST_F(PagePrefault, InterposedMprotectBehavesLikeTheSystemCall) {
  const long page = sysconf(_SC_PAGESIZE);
  void* m = mmap(nullptr, 4 * page, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  ASSERT_NE(m, MAP_FAILED);
  auto* bytes = static_cast<char*>(m);
  // A misaligned address: EINVAL, as from the kernel.
  errno = 0;
  EXPECT_EQ(mprotect(bytes + 1, page, PROT_READ), -1);
  EXPECT_EQ(errno, EINVAL);
  // Made writable: it is (and the range may be queued for populating: harmless).
  EXPECT_EQ(mprotect(m, 4 * page, PROT_READ | PROT_WRITE), 0);
  memset(bytes, 0x5a, 4 * page);
  EXPECT_EQ(bytes[4 * page - 1], 0x5a);
  // Unmapped before the thread gets to it: populating fails quietly, nothing else happens.
  EXPECT_EQ(munmap(m, 4 * page), 0);
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  EXPECT_TRUE(GetPrefaultStats().active);
}

}  // namespace
}  // namespace hotkv
