// Memory accounting: the allocated-bytes figure rises with allocations and falls as
// soon as they are freed, per thread and for the process.
#include "common/memory_usage.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <memory>
#include <thread>
#include <vector>

namespace hotkv {
namespace {

constexpr int64_t kMiB = 1 << 20;

TEST(MemoryUsage, MallocAndFreeMoveTheFigures) {
  const int64_t process_before = AllocatedBytes();
  const int64_t thread_before = ThreadAllocatedBytes();
  void* p = std::malloc(8 * kMiB);
  ASSERT_NE(p, nullptr);
  EXPECT_GE(AllocatedBytes() - process_before, 8 * kMiB);
  EXPECT_GE(ThreadAllocatedBytes() - thread_before, 8 * kMiB);
  std::free(p);
  EXPECT_LT(AllocatedBytes() - process_before, kMiB);
  EXPECT_LT(ThreadAllocatedBytes() - thread_before, kMiB);
}

TEST(MemoryUsage, NewDeleteAndReallocAreCounted) {
  const int64_t before = AllocatedBytes();
  auto block = std::make_unique<char[]>(4 * kMiB);
  EXPECT_GE(AllocatedBytes() - before, 4 * kMiB);
  block.reset();
  EXPECT_LT(AllocatedBytes() - before, kMiB);
  void* p = std::malloc(1024);
  p = std::realloc(p, 6 * kMiB);
  ASSERT_NE(p, nullptr);
  EXPECT_GE(AllocatedBytes() - before, 6 * kMiB);
  p = std::realloc(p, 16);
  EXPECT_LT(AllocatedBytes() - before, kMiB);
  std::free(p);
}

TEST(MemoryUsage, FreedOnAnotherThreadStillBalances) {
  const int64_t before = AllocatedBytes();
  std::vector<void*> blocks;
  std::thread([&] {
    for (int i = 0; i < 64; i++) {
      blocks.push_back(std::malloc(64 * 1024));
    }
  }).join();
  EXPECT_GE(AllocatedBytes() - before, 4 * kMiB);
  const int64_t mine = ThreadAllocatedBytes();
  for (void* b : blocks) {
    std::free(b);
  }
  EXPECT_LT(AllocatedBytes() - before, kMiB);
  if (CountingAllocatorActive()) {
    // This thread freed what another allocated: its own figure fell by that much.
    EXPECT_LE(ThreadAllocatedBytes() - mine, -4 * kMiB);
  }
}

TEST(MemoryUsage, MappedBytesAreIncluded) {
  const int64_t before = AllocatedBytes();
  CountMappedBytes(10 * kMiB);
  EXPECT_GE(AllocatedBytes() - before, 10 * kMiB - kMiB);
  CountMappedBytes(-10 * kMiB);
  EXPECT_LT(AllocatedBytes() - before, kMiB);
}

}  // namespace
}  // namespace hotkv
