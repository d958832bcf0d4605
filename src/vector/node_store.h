// Internal to the HNSW index: the memory layout of graph nodes and the chunked store
// that holds them.
//
// A node is a fixed-size block (NodeLayout::node_bytes, a multiple of 8):
//   0            std::atomic<Meta*> meta   label, attributes, norm, upper-layer links
//   8            uint8 lock                per-node spinlock (guards all link lists
//                                          of the node and the meta pointer swap)
//   9            uint8 level               top layer of the node
//   10           uint16 count0 ┐           layer-0 link list ("list pointer" = 10;
//                                          count word: see LoadCountWord)
//   12           uint32 ids[m0]┘
//   12 + 4*m0    uint32 state              NodeState, right before the record so both
//                                          usually share a cache line
//   16 + 4*m0    record                    the encoded vector (VectorSpace)
//   8-aligned    sketch (optional)         the same vector in the index's sketch form
//                                          (IndexOptions::sketch), for SearchNear
//
// Upper layer l >= 1 lists live in the Meta blob, (4 + 4*m) bytes each:
//   [uint16 pad][uint16 count][uint32 ids[m]] — so for every layer the count is a
// uint16 at the "list pointer" and the ids follow 2 bytes later.
//
// Link lists are read without locks: counts and ids are accessed atomically (relaxed
// or acquire), writers hold the node lock and publish with release stores. A reader
// may see a list mid-update; every id it can read was a valid link at some point
// during its epoch guard, so the node behind it is live, tombstoned, or recycled
// only after the reader left (see epoch.h) — and the state word tells which.
//
// NodeStore keeps nodes in chunks that never move: chunk 0 holds ids [0,16), chunk c
// in 1..S-4 holds [2^(c+3), 2^(c+4)), then every chunk holds 2^S ids, S in 6..10 the
// smallest that makes a big chunk a whole number of 4 KiB pages (node sizes are
// multiples of 8, so S <= 9). Big chunks are mapped straight from the kernel and not
// written until their nodes are used: the unused tail of the last chunk costs address
// space, not memory, and no chunk ends in a shared, partly used page (with 64-node
// chunks of 784-dimension nodes that page cost 48 bytes per vector of RSS). Small
// indexes stay small; big ones pay one predictable branch per lookup.
//
// Once a store has kHugeFromBytes of mapped chunks, its next big chunks are carved one
// after the other out of "slabs": 2 MiB-aligned reservations (MAP_NORESERVE, at least
// 16 MiB and as large as what the store already maps, so reserved address space stays
// under twice the used) advised MADV_HUGEPAGE. A graph walk reads one node record after
// another at random, and a 784-float record spans one or two 4 KiB pages: on 4 KiB
// pages nearly every distance also pays one or two TLB misses (page walks, nested ones
// in a virtual machine), which 2 MiB pages remove for everything past the first
// kHugeFromBytes. What it costs: the 2 MiB page at the growth frontier is resident as a
// whole (at most 2 MiB per big index, none for indexes under kHugeFromBytes); the
// chunk accounting (AllocatedBytes, MappedBytes) is unchanged. Where the kernel gives
// no huge pages (THP "never", no free 2 MiB pages) the slabs are plain 4 KiB mappings.
//
// Thread safety: Node()/capacity() are safe from any thread. EnsureCapacity() must be
// called under the index's allocation mutex.
#ifndef HOTKV_VECTOR_NODE_STORE_H_
#define HOTKV_VECTOR_NODE_STORE_H_

#include <algorithm>
#include <atomic>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string_view>
#include <thread>
#include <vector>

namespace hotkv::vector::internal {

enum NodeState : uint32_t {
  kFree = 0,     // Slot unused (or waiting for readers to leave before reuse).
  kInit = 1,     // Being written by an insert; not readable.
  kLive = 2,     // Searchable.
  kDeleted = 3,  // Being removed: traversable, never returned.
};

// Heap blob owned by a node; replaced (copy + swap under the node lock) when the
// attributes change. Layout: this 8-byte header, one upper link list per level above
// 0 (the node's level byte says how many), the label bytes, then — only when the node
// has attributes — their length (uint32, unaligned) and bytes. A label of up to 8
// bytes keeps the whole blob of a level-0 node within a 16-byte allocation.
struct Meta {
  static constexpr uint32_t kHasAttributes = 1u << 31;
  static constexpr uint32_t kMaxLabelLen = kHasAttributes - 1;

  uint32_t label_bits;  // label length | kHasAttributes
  float norm;           // L2 norm of the vector as given (for de-normalisation).

  uint32_t label_len() const { return label_bits & kMaxLabelLen; }
  bool has_attributes() const { return (label_bits & kHasAttributes) != 0; }
  uint8_t* upper_lists() { return reinterpret_cast<uint8_t*>(this) + sizeof(Meta); }
};
static_assert(sizeof(Meta) == 8);

struct NodeLayout {
  uint32_t m = 0;
  uint32_t m0 = 0;
  size_t record_bytes = 0;
  size_t state_offset = 0;
  size_t record_offset = 0;
  size_t sketch_offset = 0;  // the record's end, rounded up to 8
  size_t sketch_bytes = 0;   // 0: no sketch
  size_t node_bytes = 0;
  size_t upper_list_bytes = 0;

  static NodeLayout Make(uint32_t m, size_t record_bytes, size_t sketch_bytes = 0) {
    NodeLayout l;
    l.m = m;
    l.m0 = 2 * m;
    l.record_bytes = record_bytes;
    l.state_offset = 12 + 4 * size_t{l.m0};
    l.record_offset = l.state_offset + 4;
    l.sketch_offset = (l.record_offset + record_bytes + 7) & ~size_t{7};
    l.sketch_bytes = sketch_bytes;
    l.node_bytes = (l.sketch_offset + sketch_bytes + 7) & ~size_t{7};
    l.upper_list_bytes = 4 + 4 * size_t{m};
    return l;
  }

  size_t MetaBytes(uint32_t level, size_t label_len, size_t attr_len) const {
    return sizeof(Meta) + level * upper_list_bytes + label_len +
           (attr_len > 0 ? sizeof(uint32_t) + attr_len : 0);
  }
};

// --- Raw node field access (node = start of a node block). -------------------------

inline std::atomic_ref<Meta*> MetaRef(uint8_t* node) {
  return std::atomic_ref<Meta*>(*reinterpret_cast<Meta**>(node));
}
inline Meta* LoadMeta(const uint8_t* node) {
  return MetaRef(const_cast<uint8_t*>(node)).load(std::memory_order_acquire);
}
inline uint32_t NodeLevel(const uint8_t* node) { return node[9]; }
inline std::atomic_ref<uint32_t> StateRef(uint8_t* node, const NodeLayout& l) {
  return std::atomic_ref<uint32_t>(*reinterpret_cast<uint32_t*>(node + l.state_offset));
}
inline uint32_t LoadState(const uint8_t* node, const NodeLayout& l) {
  return StateRef(const_cast<uint8_t*>(node), l).load(std::memory_order_acquire);
}
inline const uint8_t* Record(const uint8_t* node, const NodeLayout& l) {
  return node + l.record_offset;
}
inline const uint8_t* SketchOf(const uint8_t* node, const NodeLayout& l) {
  return node + l.sketch_offset;
}
inline const char* MetaText(const Meta* meta, uint32_t level, const NodeLayout& l) {
  return reinterpret_cast<const char*>(meta) + sizeof(Meta) + level * l.upper_list_bytes;
}
inline std::string_view MetaLabel(const Meta* meta, uint32_t level, const NodeLayout& l) {
  return std::string_view(MetaText(meta, level, l), meta->label_len());
}
inline std::string_view MetaAttributes(const Meta* meta, uint32_t level, const NodeLayout& l) {
  if (!meta->has_attributes()) {
    return {};
  }
  const char* p = MetaText(meta, level, l) + meta->label_len();
  uint32_t len;
  std::memcpy(&len, p, sizeof(len));
  return std::string_view(p + sizeof(len), len);
}
inline std::string_view NodeLabel(const uint8_t* node, const NodeLayout& l) {
  return MetaLabel(LoadMeta(node), NodeLevel(node), l);
}
inline std::string_view NodeAttributes(const uint8_t* node, const NodeLayout& l) {
  return MetaAttributes(LoadMeta(node), NodeLevel(node), l);
}

// List pointer of `level` (see the file comment), or nullptr if the node's meta has
// no such level.
inline uint8_t* ListPtr(uint8_t* node, uint32_t level, const NodeLayout& l) {
  if (level == 0) {
    return node + 10;
  }
  Meta* meta = LoadMeta(node);
  return meta->upper_lists() + (level - 1) * l.upper_list_bytes + 2;
}
inline uint32_t ListCapacity(uint32_t level, const NodeLayout& l) { return level == 0 ? l.m0 : l.m; }

// The 16-bit count word of a list: bits 0-9 the number of links (at most 2 * 255), bits
// 10-15 the length of its "unchecked tail" (kUnknownTail: the whole list). The links
// before the tail are the list's *clean prefix*: sorted by distance to the owner,
// nearest first, and each one passed the neighbour-selection heuristic against every
// link before it. Pruning a full list then needs no distance between two links of the
// clean prefix (their check is known to pass), only those involving a tail link or the
// new one (HnswIndex::AddBacklink). Readers use LoadCount, which masks the tail bits.
inline constexpr uint32_t kCountMask = 0x3ff;
inline constexpr uint32_t kTailShift = 10;
inline constexpr uint32_t kUnknownTail = 63;
inline uint32_t LoadCountWord(const uint8_t* list) {
  return std::atomic_ref<uint16_t>(*reinterpret_cast<uint16_t*>(const_cast<uint8_t*>(list)))
      .load(std::memory_order_acquire);
}
inline uint32_t LoadCount(const uint8_t* list) { return LoadCountWord(list) & kCountMask; }
// Length of the clean prefix (<= the count).
inline uint32_t LoadCleanPrefix(const uint8_t* list) {
  const uint32_t word = LoadCountWord(list);
  const uint32_t count = word & kCountMask;
  const uint32_t tail = word >> kTailShift;
  return tail >= kUnknownTail || tail > count ? 0 : count - tail;
}
// Publishes `count` links of which the first `clean` (<= count) form the clean prefix.
inline void StoreCount(uint8_t* list, uint32_t count, uint32_t clean = 0) {
  uint32_t tail = count - std::min(clean, count);
  if (tail >= kUnknownTail) {
    tail = kUnknownTail;
  }
  std::atomic_ref<uint16_t>(*reinterpret_cast<uint16_t*>(list))
      .store(static_cast<uint16_t>(count | (tail << kTailShift)), std::memory_order_release);
}
inline uint32_t* ListIds(uint8_t* list) { return reinterpret_cast<uint32_t*>(list + 2); }
inline uint32_t LoadId(const uint8_t* list, uint32_t i) {
  return std::atomic_ref<uint32_t>(ListIds(const_cast<uint8_t*>(list))[i])
      .load(std::memory_order_acquire);
}
inline void StoreId(uint8_t* list, uint32_t i, uint32_t id) {
  std::atomic_ref<uint32_t>(ListIds(list)[i]).store(id, std::memory_order_release);
}

// Per-node spinlock (byte 8). Critical sections are short (a link list rewrite).
class NodeLock {
 public:
  explicit NodeLock(uint8_t* node) : lock_(node[8]) {
    for (int spins = 0; lock_.exchange(1, std::memory_order_acquire) != 0;) {
      while (lock_.load(std::memory_order_relaxed) != 0) {
        if (++spins < 64) {
          __builtin_ia32_pause();
        } else {
          std::this_thread::yield();
        }
      }
    }
  }
  ~NodeLock() { lock_.store(0, std::memory_order_release); }
  NodeLock(const NodeLock&) = delete;
  NodeLock& operator=(const NodeLock&) = delete;

 private:
  std::atomic_ref<uint8_t> lock_;
};

// --- Chunked storage. ---------------------------------------------------------------

class NodeStore {
 public:
  explicit NodeStore(size_t node_bytes);
  ~NodeStore();
  NodeStore(const NodeStore&) = delete;
  NodeStore& operator=(const NodeStore&) = delete;

  uint8_t* Node(uint32_t id) const {
    uint32_t chunk;
    uint32_t offset;
    if (id >> big_shift_ != 0) [[likely]] {
      chunk = (id >> big_shift_) + big_shift_ - 4;
      offset = id & ((uint32_t{1} << big_shift_) - 1);
    } else if (id >= kFirstChunk) {
      chunk = static_cast<uint32_t>(std::bit_width(id)) - 4;
      offset = id - (uint32_t{1} << (chunk + 3));
    } else {
      chunk = 0;
      offset = id;
    }
    uint8_t* const* dir = dir_.load(std::memory_order_acquire);
    return dir[chunk] + size_t{offset} * node_bytes_;
  }

  // Number of node slots allocated (ids < capacity() are addressable).
  uint32_t capacity() const { return capacity_.load(std::memory_order_acquire); }

  // Allocates chunks (zero-filled; big ones as untouched zero pages) until
  // capacity() >= n.
  void EnsureCapacity(uint32_t n);

  // Bytes of chunk memory (mapped or allocated, used or not) and directories.
  size_t AllocatedBytes() const { return allocated_bytes_.load(std::memory_order_relaxed); }
  // Of AllocatedBytes(), the chunks mapped with mmap (invisible to malloc statistics).
  size_t MappedBytes() const { return mapped_bytes_.load(std::memory_order_relaxed); }
  size_t node_bytes() const { return node_bytes_; }

 private:
  static constexpr uint32_t kFirstChunk = 16;
  static constexpr uint32_t kMinBigShift = 6;
  static constexpr uint32_t kMaxBigShift = 10;
  // Chunks of at least this many bytes are mapped with mmap (zero pages, touched lazily).
  static constexpr size_t kMapThreshold = size_t{64} << 10;
  // Mapped chunks come from huge-page slabs once the store maps this much.
  static constexpr size_t kHugeFromBytes = size_t{8} << 20;
  static constexpr size_t kHugePageBytes = size_t{2} << 20;
  static constexpr size_t kMinSlabBytes = size_t{16} << 20;

  // Chunks 0 .. big_shift_-4 hold the ids below 2^big_shift_: 16, 16, 32, 64, ...
  uint32_t ChunkNodes(uint32_t chunk) const {
    if (chunk == 0) {
      return kFirstChunk;
    }
    return chunk < big_shift_ - 3 ? (uint32_t{1} << (chunk + 3)) : (uint32_t{1} << big_shift_);
  }

  // Maps `bytes` (a whole number of pages) of zero pages: from the current slab once the
  // store is big enough (see the file comment), else on its own.
  void* MapChunk(size_t bytes);

  size_t node_bytes_;
  uint32_t big_shift_;
  // The unused part of the current huge-page slab (guarded like EnsureCapacity).
  uint8_t* slab_next_ = nullptr;
  uint8_t* slab_end_ = nullptr;
  std::atomic<uint8_t**> dir_{nullptr};
  uint32_t dir_size_ = 0;
  uint32_t num_chunks_ = 0;
  std::atomic<uint32_t> capacity_{0};
  std::atomic<size_t> allocated_bytes_{0};
  std::atomic<size_t> mapped_bytes_{0};
  // Replaced directories stay valid for readers until destruction (they are small).
  std::vector<std::unique_ptr<uint8_t*[]>> dirs_;
};

}  // namespace hotkv::vector::internal

#endif  // HOTKV_VECTOR_NODE_STORE_H_
