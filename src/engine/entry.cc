#include "engine/entry.h"

#include <malloc.h>
#include <sys/mman.h>

#include <cstdlib>
#include <new>

#include "common/string_util.h"
#include "engine/extension_value.h"

namespace hotkv {

std::atomic<uint8_t> g_entry_snapshot_mark{0};

std::string_view TypeName(ValueType t) {
  switch (t) {
    case ValueType::kString:
      return "string";
    case ValueType::kList:
      return "list";
    case ValueType::kSet:
      return "set";
    case ValueType::kZSet:
      return "zset";
    case ValueType::kHash:
      return "hash";
    case ValueType::kStream:
      return "stream";
    case ValueType::kVectorSet:
      return "vectorset";
    case ValueType::kJson:
      return "ReJSON-RL";
  }
  if (t == kValueTypeExtension) {
    return "extension";
  }
  return "none";
}

std::string_view TypeName(const Entry& e) {
  if (e.type() == kValueTypeExtension) {
    return e.As<ExtensionValue>()->type().type_name;
  }
  return TypeName(e.type());
}

namespace {

// Values of 8 MB and more (large bitmaps: BITCOUNT, BITPOS and BITOP read them whole)
// ask for transparent huge pages over the 2 MB-aligned part of their block, where the
// kernel's THP mode is "madvise" or "always": a 16 MB popcount here takes ~228 us on huge
// pages against ~280 us on 4 KB pages (fewer page walks). Called before the value is
// written (copied or zero-filled), so the pages come in huge when they are first touched,
// and every byte of them is written anyway: no memory becomes resident that would not
// have. Smaller blocks are left alone (the block's mapping is split in up to three).
constexpr size_t kHugeValueBytes = size_t{8} << 20;

void AdviseHugePages(void* p, size_t bytes) {
  constexpr uintptr_t kHugePage = uintptr_t{2} << 20;
  if (bytes < kHugeValueBytes) {
    return;
  }
  const uintptr_t start = (reinterpret_cast<uintptr_t>(p) + kHugePage - 1) & ~(kHugePage - 1);
  const uintptr_t end = (reinterpret_cast<uintptr_t>(p) + bytes) & ~(kHugePage - 1);
  if (end > start) {
    madvise(reinterpret_cast<void*>(start), end - start, MADV_HUGEPAGE);  // advice only
  }
}

}  // namespace

Entry* Entry::Allocate(size_t bytes) {
  void* p = malloc(bytes);
  if (p == nullptr) {
    throw std::bad_alloc();
  }
  return static_cast<Entry*>(p);
}

Entry* Entry::NewString(std::string_view key, std::string_view value, bool expire_block,
                        size_t reserve) {
  size_t head = kHeaderSize + (expire_block ? kExpireBlockSize : 0);
  Entry* e = Allocate(head + key.size() + value.size() + reserve);
  AdviseHugePages(e, head + key.size() + value.size() + reserve);
  e->key_len_ = static_cast<uint32_t>(key.size());
  e->value_len_ = static_cast<uint32_t>(value.size());
  e->access_clock_ = 0;
  e->type_ = 0;
  e->flags_ = static_cast<uint8_t>((expire_block ? kExpireBlock : 0) |
                                   g_entry_snapshot_mark.load(std::memory_order_relaxed));
  e->lfu_ = 0;
  e->size_bin_ = kNotCounted;
  memcpy(e->Base() + head, key.data(), key.size());
  if (!value.empty()) {
    memcpy(e->Base() + head + key.size(), value.data(), value.size());
  }
  return e;
}

Entry* Entry::NewObject(std::string_view key, ValueType type, void* object, bool expire_block) {
  size_t head = kHeaderSize + (expire_block ? kExpireBlockSize : 0);
  Entry* e = Allocate(head + sizeof(void*) + key.size());
  e->key_len_ = static_cast<uint32_t>(key.size());
  e->value_len_ = 0;
  e->access_clock_ = 0;
  e->type_ = static_cast<uint8_t>(type);
  e->flags_ = static_cast<uint8_t>((expire_block ? kExpireBlock : 0) |
                                   g_entry_snapshot_mark.load(std::memory_order_relaxed));
  e->lfu_ = 0;
  e->size_bin_ = kNotCounted;
  e->set_object(object);
  memcpy(e->Base() + head + sizeof(void*), key.data(), key.size());
  return e;
}

void Entry::Free(Entry* e) {
  if (e->type_ != 0) {
    DestroyObject(e->type(), e->object());
  }
  free(e);
}

Entry* Entry::Clone(const Entry* e, std::string_view new_key) {
  Entry* c;
  if (e->is_string()) {
    c = NewString(new_key, e->str(), e->has_expire_block());
    if (e->raw_forced()) {
      c->set_raw_forced();
    }
  } else {
    c = NewObject(new_key, e->type(), CloneObject(e->type(), e->object()), e->has_expire_block());
  }
  c->lfu_ = e->lfu_;
  c->access_clock_ = e->access_clock_;
  return c;
}

Entry* Entry::Rekey(Entry* e, std::string_view new_key) {
  size_t head = e->KeyOffset();
  Entry* n = Allocate(head + new_key.size() + e->value_len_);
  memcpy(n, e, head);
  n->key_len_ = static_cast<uint32_t>(new_key.size());
  memcpy(n->Base() + head, new_key.data(), new_key.size());
  if (e->value_len_ > 0) {
    memcpy(n->Base() + head + new_key.size(), e->ValuePtr(), e->value_len_);
  }
  free(e);
  return n;
}

Entry* Entry::WithExpireBlock(Entry* e) {
  if (e->has_expire_block()) {
    return e;
  }
  size_t old_head = e->ObjectOffset();
  size_t rest = (e->type_ == 0 ? 0 : sizeof(void*)) + e->key_len_ + e->value_len_;
  Entry* n = Allocate(old_head + kExpireBlockSize + rest);
  memcpy(n, e, kHeaderSize);
  memcpy(n->Base() + kHeaderSize + kExpireBlockSize, e->Base() + old_head, rest);
  n->flags_ = static_cast<uint8_t>((e->flags_ | kExpireBlock) & ~kHasTtl);
  free(e);
  return n;
}

size_t Entry::str_capacity() const {
  return malloc_usable_size(const_cast<Entry*>(this)) - KeyOffset() - key_len_;
}

Entry* Entry::GrowString(Entry* e, size_t capacity) {
  size_t need = e->KeyOffset() + e->key_len_ + capacity;
  void* p = realloc(e, need);
  if (p == nullptr) {
    throw std::bad_alloc();
  }
  AdviseHugePages(p, need);  // the part past the old value is written next
  return static_cast<Entry*>(p);
}

std::string_view Entry::StringEncoding() const {
  if (!raw_forced() && value_len_ <= 20 && IsCanonicalInt64(str())) {
    return "int";
  }
  if (!raw_forced() && value_len_ <= 44) {
    return "embstr";
  }
  return "raw";
}

std::string_view Entry::EncodingName() const {
  if (is_string()) {
    return StringEncoding();
  }
  return ObjectEncodingName(type(), object());
}

size_t Entry::MemoryUsage() const {
  size_t n = malloc_usable_size(const_cast<Entry*>(this));
  if (!is_string()) {
    n += ObjectMemoryUsage(type(), object());
  }
  return n;
}

}  // namespace hotkv
