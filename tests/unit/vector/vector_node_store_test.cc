// Tests for the HNSW node store's chunked addressing: every id maps to its own
// zero-filled block, whatever the node size (which sets how many nodes a big chunk
// holds), and big chunks end on a page boundary.

#include "vector/node_store.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <map>

namespace hotkv::vector::internal {
namespace {

class NodeStoreTest : public ::testing::TestWithParam<size_t> {};

TEST_P(NodeStoreTest, EveryIdHasItsOwnZeroedBlock) {
  const size_t node_bytes = GetParam();
  NodeStore store(node_bytes);
  EXPECT_EQ(store.capacity(), 0u);
  constexpr uint32_t kIds = 5000;
  // Grow in uneven steps, as inserts do.
  for (uint32_t n = 1; n <= kIds; n = n * 3 / 2 + 1) {
    store.EnsureCapacity(n);
    ASSERT_GE(store.capacity(), n);
  }
  store.EnsureCapacity(kIds);
  const uint32_t capacity = store.capacity();
  ASSERT_GE(capacity, kIds);

  // Write each id's number into its whole block, then check nothing was overwritten:
  // blocks do not overlap and each lies inside allocated memory (ASan checks the rest).
  std::map<const uint8_t*, uint32_t> starts;
  for (uint32_t id = 0; id < capacity; ++id) {
    uint8_t* node = store.Node(id);
    ASSERT_EQ(reinterpret_cast<uintptr_t>(node) % 8, 0u) << id;
    for (size_t i = 0; i < node_bytes; ++i) {
      ASSERT_EQ(node[i], 0) << "id " << id << " byte " << i;
    }
    std::memset(node, static_cast<int>(id % 251) + 1, node_bytes);
    ASSERT_TRUE(starts.emplace(node, id).second) << id;
  }
  for (uint32_t id = 0; id < capacity; ++id) {
    const uint8_t* node = store.Node(id);
    for (size_t i = 0; i < node_bytes; ++i) {
      ASSERT_EQ(node[i], id % 251 + 1) << "id " << id << " byte " << i;
    }
  }
  // The last chunk holds at most 1024 nodes, and a big chunk is a whole number of pages
  // mapped on its own (its end is page-aligned): no chunk shares a partly used page.
  EXPECT_LE(capacity - kIds, 1024u);
  const uintptr_t end = reinterpret_cast<uintptr_t>(store.Node(capacity - 1)) + node_bytes;
  EXPECT_EQ(end % 4096, 0u);
  EXPECT_GE(store.AllocatedBytes(), size_t{capacity} * node_bytes);
}

// Past the first 8 MiB of mapped chunks, a store carves its chunks one after another out
// of 2 MiB-aligned slabs (advised for transparent huge pages): consecutive chunks are
// adjacent and a slab starts on a 2 MiB boundary. Nothing is written: the mapping
// costs address space only.
TEST(NodeStoreSlabTest, BigStoresCarveAdjacentChunksFromAlignedSlabs) {
  constexpr size_t kNodeBytes = 3280;  // 784-dim float32, M 16: 256-node chunks
  constexpr uint32_t kIds = 40000;     // ~131 MB of chunks
  NodeStore store(kNodeBytes);
  store.EnsureCapacity(kIds);
  ASSERT_GE(store.capacity(), kIds);
  size_t adjacent = 0;
  size_t aligned = 0;
  const uint32_t first_slab_id = static_cast<uint32_t>((size_t{8} << 20) / kNodeBytes) + 256;
  for (uint32_t id = first_slab_id; id + 1 < store.capacity(); ++id) {
    const uintptr_t a = reinterpret_cast<uintptr_t>(store.Node(id));
    const uintptr_t b = reinterpret_cast<uintptr_t>(store.Node(id + 1));
    if ((id + 1) % 256 == 0) {  // A chunk boundary.
      adjacent += b == a + kNodeBytes ? 1 : 0;
      aligned += b % (uintptr_t{2} << 20) == 0 ? 1 : 0;
    } else {
      ASSERT_EQ(b, a + kNodeBytes) << id;
    }
  }
  // 40000 ids: ~120 big chunks in slabs of 16+ MiB; all but a few slab ends adjacent.
  EXPECT_GE(adjacent, 100u);
  EXPECT_GE(aligned, 1u);
}

// 152: 16-dim float32 (512-node chunks); 656: 128-dim, 3280: 784-dim, 6288: 1536-dim
// (256-node chunks).
INSTANTIATE_TEST_SUITE_P(NodeSizes, NodeStoreTest, ::testing::Values(152, 656, 3280, 6288));

}  // namespace
}  // namespace hotkv::vector::internal
