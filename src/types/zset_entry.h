// ZEntry: one (member, score) element of a large ("skiplist"-encoded) zset, and the
// member hash used by its member table.
//
// An entry is a single malloc'ed block: an 8-byte score, a LEB128 varint length,
// then the member bytes (binary safe). The member table and the score tree both
// point at the same entry, so each member is stored once. For a 13-byte member the
// block is 22 bytes, served from the allocator's 24-byte size class.
//
// Thread safety: entries are plain memory owned by one ZTreeSet (or ZSetBuilder);
// the owner's caller serializes access.

#ifndef HOTKV_TYPES_ZSET_ENTRY_H_
#define HOTKV_TYPES_ZSET_ENTRY_H_

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string_view>

namespace hotkv::types {

// malloc/calloc/realloc that abort the process on out-of-memory (as Redis's zmalloc
// does), so callers never see null. All zset memory goes through these, so
// ZAllocatedBytes (malloc_usable_size) accounts for every byte the allocator gives.
void* ZMalloc(size_t size);
void* ZCalloc(size_t count, size_t size);
void* ZRealloc(void* ptr, size_t size);
size_t ZAllocatedBytes(const void* ptr);  // 0 for null

class ZEntry {
 public:
  // Allocates an entry with ZMalloc.
  static ZEntry* Create(std::string_view member, double score);
  static void Destroy(ZEntry* entry);

  double score() const { return score_; }
  void set_score(double score) { score_ = score; }

  std::string_view member() const {
    const auto* p = reinterpret_cast<const uint8_t*>(this) + sizeof(double);
    if (*p < 0x80) {  // the common case: members shorter than 128 bytes
      return {reinterpret_cast<const char*>(p + 1), *p};
    }
    return SlowMember(p);
  }

  // Bytes the allocator really handed out for this entry (malloc_usable_size).
  size_t AllocatedBytes() const;

  ZEntry(const ZEntry&) = delete;
  ZEntry& operator=(const ZEntry&) = delete;

 private:
  explicit ZEntry(double score) : score_(score) {}  // only via Create (placement new)
  static std::string_view SlowMember(const uint8_t* p);

  double score_;
  // Followed in the same allocation by: varint member length, member bytes.
};

// (score, member) order between an entry and a key.
inline bool ZEntryLess(const ZEntry* a, const ZEntry* b) {
  return a->score() < b->score() || (a->score() == b->score() && a->member() < b->member());
}

// 64-bit hash of a member, seeded once per process (so hash flooding needs the
// seed). Stable for the life of the process, which ZSCAN cursors rely on.
uint64_t ZHashMember(std::string_view member);

// Process-wide seed used by ZHashMember (exposed for tests).
uint64_t ZHashSeed();

}  // namespace hotkv::types

#endif  // HOTKV_TYPES_ZSET_ENTRY_H_
