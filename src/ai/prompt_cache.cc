// PromptCache (see prompt_cache.h).
#include "ai/prompt_cache.h"

#include <algorithm>
#include <cstring>
#include <unordered_set>

namespace hotkv::ai {
namespace {

// Expired blocks a write removes besides those it meets.
constexpr size_t kSweepPerWrite = 64;
// Per-block bookkeeping beyond the key and value bytes (map node, Block, set nodes,
// shared_ptr control block), for MEMORY USAGE.
constexpr size_t kBlockOverhead = 264;
// Children LONGEST compares with the next key before a table lookup.
constexpr int kChildProbes = 4;

// a == b, inline for the usual block keys of 16 to 32 bytes (two overlapping 16-byte
// halves: no call, no loop); memcmp otherwise.
[[gnu::always_inline]] inline bool SameKey(std::string_view a, std::string_view b) {
  const size_t n = a.size();
  if (n != b.size()) {
    return false;
  }
  if (n >= 16 && n <= 32) {
    uint64_t x[4], y[4];
    memcpy(&x[0], a.data(), 16);
    memcpy(&x[2], a.data() + n - 16, 16);
    memcpy(&y[0], b.data(), 16);
    memcpy(&y[2], b.data() + n - 16, 16);
    return ((x[0] ^ y[0]) | (x[1] ^ y[1]) | (x[2] ^ y[2]) | (x[3] ^ y[3])) == 0;
  }
  return memcmp(a.data(), b.data(), n) == 0;
}

}  // namespace

[[gnu::always_inline]] inline bool PromptCache::Block::KeyIs(std::string_view k) const {
  if (key_len <= kInlineKey) {
    return k.size() == key_len && SameKey(std::string_view(key_inline, key_len), k);
  }
  return SameKey(*key, k);
}

PromptCacheOptions PromptCache::options() const {
  std::lock_guard<std::mutex> g(mu_);
  return options_;
}

PromptCache::Block* PromptCache::FindLocked(std::string_view key) {
  auto it = blocks_.find(key);
  return it == blocks_.end() ? nullptr : &it->second;
}

PromptCache::Block* PromptCache::FindLiveLocked(std::string_view key, int64_t now_ms) {
  Block* b = FindLocked(key);
  return b == nullptr || Expired(*b, now_ms) ? nullptr : b;
}

void PromptCache::UseLocked(Block* b) {
  const uint64_t used = ++clock_;
  if (b->first_child == nullptr) {
    leaves_.erase({b->used, b});
    leaves_.insert({used, b});
  }
  b->used = used;
}

void PromptCache::SetExpiryLocked(Block* b, int64_t expire_at_ms) {
  if (b->expire_at_ms != 0) {
    expiry_.erase({b->expire_at_ms, b});
  }
  b->expire_at_ms = expire_at_ms;
  if (expire_at_ms != 0) {
    expiry_.insert({expire_at_ms, b});
  }
}

PromptCache::Block* PromptCache::InsertLocked(std::string_view key, BlockValue value, Block* parent,
                                              int64_t expire_at_ms, uint64_t used) {
  auto [it, inserted] = blocks_.try_emplace(std::string(key));
  Block* b = &it->second;
  b->key = &it->first;
  if (key.size() <= kInlineKey) {
    b->key_len = static_cast<uint8_t>(key.size());
    memcpy(b->key_inline, key.data(), key.size());
  } else {
    b->key_len = kInlineKey + 1;  // not inline
  }
  b->value = std::move(value);
  b->used = used;
  b->parent = parent;
  if (parent != nullptr) {
    if (parent->first_child == nullptr) {
      leaves_.erase({parent->used, parent});
    } else {
      parent->first_child->prev_sibling = b;
    }
    b->next_sibling = parent->first_child;
    parent->first_child = b;
  }
  leaves_.insert({used, b});
  SetExpiryLocked(b, expire_at_ms);
  bytes_ += b->bytes();
  return b;
}

size_t PromptCache::RemoveSubtreeLocked(Block* b) {
  if (Block* p = b->parent; p != nullptr) {
    if (b->prev_sibling != nullptr) {
      b->prev_sibling->next_sibling = b->next_sibling;
    } else {
      p->first_child = b->next_sibling;
    }
    if (b->next_sibling != nullptr) {
      b->next_sibling->prev_sibling = b->prev_sibling;
    }
    if (p->first_child == nullptr) {
      leaves_.insert({p->used, p});
    }
  }
  size_t n = 0;
  std::vector<Block*> stack = {b};
  while (!stack.empty()) {
    Block* x = stack.back();
    stack.pop_back();
    for (Block* c = x->first_child; c != nullptr; c = c->next_sibling) {
      stack.push_back(c);
    }
    if (x->first_child == nullptr) {
      leaves_.erase({x->used, x});
    }
    if (x->expire_at_ms != 0) {
      expiry_.erase({x->expire_at_ms, x});
    }
    bytes_ -= x->bytes();
    freed_.push_back(std::move(x->value));
    const std::string* key = x->key;
    blocks_.erase(blocks_.find(*key));
    n++;
  }
  return n;
}

void PromptCache::SweepLocked(int64_t now_ms, size_t limit, std::vector<std::string>* removed) {
  while (limit-- > 0 && !expiry_.empty() && expiry_.begin()->first <= now_ms) {
    Block* b = expiry_.begin()->second;
    removed->push_back(*b->key);
    expirations_ += RemoveSubtreeLocked(b);
  }
}

bool PromptCache::EvictLocked(uint64_t target, int64_t now_ms, std::vector<std::string>* removed) {
  while (bytes_ > target) {
    if (!expiry_.empty() && expiry_.begin()->first <= now_ms && !expiry_.begin()->second->pinned) {
      SweepLocked(now_ms, 1, removed);
      continue;
    }
    Block* victim = nullptr;
    for (const auto& [used, leaf] : leaves_) {
      if (!leaf->pinned) {
        victim = leaf;
        break;
      }
    }
    if (victim == nullptr) {
      return false;
    }
    removed->push_back(*victim->key);
    evictions_ += RemoveSubtreeLocked(victim);
  }
  return true;
}

void PromptCache::ReportDel(const std::vector<std::string>& removed, const ChangeFn& changes) {
  if (changes && !removed.empty()) {
    Change c{.kind = Change::Kind::kDel};
    c.keys = removed;
    changes(c);
  }
}

void PromptCache::Configure(const PromptCacheOptions& o, int64_t now_ms, const ChangeFn& changes) {
  std::vector<BlockValue> freed;  // released after the mutex
  std::lock_guard<std::mutex> g(mu_);
  ReleaseAfterUnlock release{freed, freed_};
  options_ = o;
  std::vector<std::string> removed;
  if (o.budget_bytes != 0) {
    EvictLocked(o.budget_bytes, now_ms, &removed);
  }
  ReportDel(removed, changes);
  if (changes) {
    changes(Change{.kind = Change::Kind::kConfig});
  }
}

Status PromptCache::Put(const PutRequest& req, int64_t now_ms, const ChangeFn& changes) {
  std::vector<BlockValue> freed;  // released after the mutex
  std::lock_guard<std::mutex> g(mu_);
  ReleaseAfterUnlock release{freed, freed_};
  const bool replay = req.expire_at_ms.has_value();
  std::vector<std::string> removed;
  // Expired blocks are absent: remove the ones this write meets (and a few more) first,
  // so that "exists" below means present. Not in the replay form: the log replays the
  // primary's removals explicitly.
  if (!replay) {
    SweepLocked(now_ms, kSweepPerWrite, &removed);
    for (const PutItem& item : req.items) {
      if (Block* b = FindLocked(item.key); b != nullptr && Expired(*b, now_ms)) {
        removed.push_back(*b->key);
        expirations_ += RemoveSubtreeLocked(b);
      }
    }
  }
  auto fail = [&](Status st) {
    ReportDel(removed, changes);
    return st;
  };

  Block* anchor = nullptr;
  if (req.parent) {
    anchor = replay ? FindLocked(*req.parent) : FindLiveLocked(*req.parent, now_ms);
    if (anchor == nullptr) {
      return fail(Status::NotFound("parent block not found"));
    }
  }
  std::vector<Block*> existing(req.items.size(), nullptr);
  uint64_t new_bytes = 0, old_bytes = 0;
  std::unordered_set<std::string_view> seen;
  for (size_t i = 0; i < req.items.size(); i++) {
    const PutItem& item = req.items[i];
    if (req.items.size() > 1 && !seen.insert(item.key).second) {
      return fail(Status::InvalidArgument("the same block key twice in one chain"));
    }
    if (req.parent && item.key == *req.parent) {
      return fail(Status::InvalidArgument("a block cannot be its own parent"));
    }
    Block* b = FindLocked(item.key);
    if (b != nullptr) {
      if (i == 0 && !req.parent) {
        anchor = b->parent;
      } else if (b->parent != (i == 0 ? anchor : existing[i - 1]) ||
                 (i > 0 && existing[i - 1] == nullptr)) {
        return fail(Status::FailedPrecondition("block already exists under another parent"));
      }
      old_bytes += b->bytes();
    }
    existing[i] = b;
    new_bytes += item.key.size() + item.value->size();
  }

  const uint64_t budget = options_.budget_bytes;
  if (budget != 0 && bytes_ - old_bytes + new_bytes > budget) {
    uint64_t path_bytes = 0;
    for (Block* a = anchor; a != nullptr; a = a->parent) {
      path_bytes += a->bytes();
    }
    if (path_bytes + new_bytes > budget) {
      return fail(Status::FailedPrecondition(
          "the blocks and their ancestors need " + std::to_string(path_bytes + new_bytes) +
          " bytes, beyond the namespace budget of " + std::to_string(budget)));
    }
    for (Block* a = anchor; a != nullptr; a = a->parent) {
      a->pinned = true;
    }
    for (Block* b : existing) {
      if (b != nullptr) {
        b->pinned = true;
      }
    }
    EvictLocked(budget + old_bytes - new_bytes, replay ? INT64_MIN : now_ms, &removed);
    for (Block* a = anchor; a != nullptr; a = a->parent) {
      a->pinned = false;
    }
    for (Block* b : existing) {
      if (b != nullptr) {
        b->pinned = false;
      }
    }
  }
  ReportDel(removed, changes);

  int64_t expire_at = 0;
  if (replay) {
    expire_at = *req.expire_at_ms;
  } else if (const int64_t ttl = req.ttl_ms.value_or(options_.ttl_ms); ttl > 0) {
    expire_at = now_ms + ttl;
  }
  Block* parent = anchor;
  for (size_t i = 0; i < req.items.size(); i++) {
    const PutItem& item = req.items[i];
    int64_t exp = expire_at;
    if (parent != nullptr && parent->expire_at_ms != 0 &&
        (exp == 0 || exp > parent->expire_at_ms)) {
      exp = parent->expire_at_ms;  // a block never outlives its parent
    }
    Block* b = existing[i];
    if (b != nullptr) {
      bytes_ -= b->value->size();
      freed_.push_back(std::move(b->value));
      b->value = item.value;
      bytes_ += b->value->size();
      const bool shorter = exp != 0 && (b->expire_at_ms == 0 || exp < b->expire_at_ms);
      SetExpiryLocked(b, exp);
      if (shorter) {  // cap the descendants' expiries
        std::vector<Block*> stack;
        for (Block* c = b->first_child; c != nullptr; c = c->next_sibling) {
          stack.push_back(c);
        }
        while (!stack.empty()) {
          Block* x = stack.back();
          stack.pop_back();
          if (x->expire_at_ms == 0 || x->expire_at_ms > exp) {
            SetExpiryLocked(x, exp);
            for (Block* c = x->first_child; c != nullptr; c = c->next_sibling) {
              stack.push_back(c);
            }
          }
        }
      }
      UseLocked(b);
    } else {
      b = InsertLocked(item.key, item.value, parent, exp, ++clock_);
    }
    if (changes) {
      Change c{.kind = Change::Kind::kPut};
      c.key = *b->key;
      c.has_parent = b->parent != nullptr;
      c.parent = c.has_parent ? std::string_view(*b->parent->key) : std::string_view();
      c.value = b->value.get();
      c.expire_at_ms = exp;
      changes(c);
    }
    parent = b;
  }
  return Status::Ok();
}

template <size_t W, typename KeyAt>
size_t PromptCache::LongestOf(size_t count, const KeyAt& key_at, int64_t now_ms) {
  // Whether c's key is k. With a width known here (LONGESTBLOB of 16- or 32-byte keys,
  // always kept inline), a fixed compare of 8-byte words: no size dispatch per block.
  static_assert(W == 0 || W == 16 || W == 32);
  static_assert(W <= kInlineKey);
  auto key_is = [](const Block* c, std::string_view k) {
    if constexpr (W != 0) {
      if (c->key_len != W) {
        return false;
      }
      uint64_t x[W / 8], y[W / 8];
      memcpy(x, c->key_inline, W);
      memcpy(y, k.data(), W);
      uint64_t d = 0;
      for (size_t j = 0; j < W / 8; j++) {
        d |= x[j] ^ y[j];
      }
      return d == 0;
    } else {
      return c->KeyIs(k);
    }
  };
  std::lock_guard<std::mutex> g(mu_);
  size_t n = 0;
  Block* prev = nullptr;
  // The use ticks of the matches, in order; kept in a local and stored once (the loop
  // runs once per block of a prompt: 4,000 for a long one).
  uint64_t clock = clock_;
  for (size_t i = 0; i < count; i++) {
    const std::string_view k = key_at(i);
    // The keys of a prompt are usually a chain: look among the previous block's first
    // children before the hash table. They were allocated one after the other, so this
    // walk touches memory close together where the table's buckets are scattered.
    Block* b = nullptr;
    if (prev != nullptr) {
      int tries = 0;
      for (Block* c = prev->first_child; c != nullptr && tries < kChildProbes;
           c = c->next_sibling, tries++) {
        if (key_is(c, k)) {
          b = c;
          break;
        }
      }
    }
    if (b == nullptr) {
      b = FindLocked(k);
    }
    if (b == nullptr || Expired(*b, now_ms)) {
      misses_++;
      break;
    }
    // A use (UseLocked, with the local clock): only a leaf moves in the eviction order.
    const uint64_t used = ++clock;
    if (b->first_child == nullptr) {
      leaves_.erase({b->used, b});
      leaves_.insert({used, b});
    }
    b->used = used;
    prev = b;
    n++;
    // The next block of a chain is usually b's first child: its two cache lines (links
    // and key) start loading now, while the loop moves on to the next key.
    if (Block* next = b->first_child; next != nullptr) {
      __builtin_prefetch(next);
      __builtin_prefetch(reinterpret_cast<const char*>(next) + 64);
    }
  }
  clock_ = clock;
  hits_ += n;
  return n;
}

size_t PromptCache::Longest(std::span<const std::string_view> keys, int64_t now_ms) {
  return LongestOf<0>(keys.size(), [keys](size_t i) { return keys[i]; }, now_ms);
}

size_t PromptCache::LongestPacked(std::string_view blob, size_t width, int64_t now_ms) {
  const size_t count = blob.size() / width;
  const char* p = blob.data();
  switch (width) {
    case 16:
      return LongestOf<16>(count, [p](size_t i) { return std::string_view(p + i * 16, 16); }, now_ms);
    case 32:
      return LongestOf<32>(count, [p](size_t i) { return std::string_view(p + i * 32, 32); }, now_ms);
    default:
      return LongestOf<0>(
          count, [p, width](size_t i) { return std::string_view(p + i * width, width); }, now_ms);
  }
}

void PromptCache::Get(std::span<const std::string_view> keys, int64_t now_ms,
                      std::vector<BlockValue>* out) {
  std::lock_guard<std::mutex> g(mu_);
  out->clear();
  out->reserve(keys.size());
  for (std::string_view k : keys) {
    Block* b = FindLiveLocked(k, now_ms);
    if (b == nullptr) {
      misses_++;
      out->push_back(nullptr);
      continue;
    }
    hits_++;
    UseLocked(b);
    out->push_back(b->value);
  }
}

size_t PromptCache::Delete(std::span<const std::string_view> keys, int64_t now_ms,
                           const ChangeFn& changes) {
  std::vector<BlockValue> freed;  // released after the mutex
  std::lock_guard<std::mutex> g(mu_);
  ReleaseAfterUnlock release{freed, freed_};
  std::vector<std::string> removed;
  size_t n = 0;
  for (std::string_view k : keys) {
    Block* b = FindLocked(k);
    if (b == nullptr) {
      continue;
    }
    removed.emplace_back(k);
    if (Expired(*b, now_ms)) {
      expirations_ += RemoveSubtreeLocked(b);
    } else {
      n += RemoveSubtreeLocked(b);
    }
  }
  ReportDel(removed, changes);
  return n;
}

PromptCache::Stats PromptCache::GetStats() const {
  std::lock_guard<std::mutex> g(mu_);
  return Stats{blocks_.size(), bytes_, hits_, misses_, evictions_, expirations_,
               sizeof(*this) + bytes_ + blocks_.size() * kBlockOverhead};
}

size_t PromptCache::size() const {
  std::lock_guard<std::mutex> g(mu_);
  return blocks_.size();
}

size_t PromptCache::MemoryUsage() const { return GetStats().memory; }

PromptCache::Snapshot PromptCache::TakeSnapshot() const {
  std::lock_guard<std::mutex> g(mu_);
  Snapshot s;
  s.options = options_;
  s.hits = hits_;
  s.misses = misses_;
  s.evictions = evictions_;
  s.expirations = expirations_;
  s.clock = clock_;
  s.blocks.reserve(blocks_.size());
  // A canonical order (digests of equal caches are equal): roots, then each block's
  // children, by last use; parents before children (pre-order).
  auto by_use = [](const Block* x, const Block* y) { return x->used > y->used; };
  std::vector<const Block*> stack, children;
  for (const auto& [key, b] : blocks_) {
    if (b.parent == nullptr) {
      stack.push_back(&b);
    }
  }
  std::sort(stack.begin(), stack.end(), by_use);  // popped from the back: oldest first
  while (!stack.empty()) {
    const Block* x = stack.back();
    stack.pop_back();
    SavedBlock sb;
    sb.key = *x->key;
    sb.has_parent = x->parent != nullptr;
    if (sb.has_parent) {
      sb.parent = *x->parent->key;
    }
    sb.expire_at_ms = x->expire_at_ms;
    sb.used = x->used;
    sb.value = x->value;
    s.blocks.push_back(std::move(sb));
    children.clear();
    for (const Block* c = x->first_child; c != nullptr; c = c->next_sibling) {
      children.push_back(c);
    }
    std::sort(children.begin(), children.end(), by_use);
    stack.insert(stack.end(), children.begin(), children.end());
  }
  return s;
}

Status PromptCache::Restore(Snapshot snap) {
  std::lock_guard<std::mutex> g(mu_);
  options_ = snap.options;
  hits_ = snap.hits;
  misses_ = snap.misses;
  evictions_ = snap.evictions;
  expirations_ = snap.expirations;
  clock_ = snap.clock;
  blocks_.reserve(snap.blocks.size());
  for (SavedBlock& sb : snap.blocks) {
    Block* parent = nullptr;
    if (sb.has_parent) {
      parent = FindLocked(sb.parent);
      if (parent == nullptr) {
        return Status::InvalidArgument("block saved before its parent");
      }
    }
    if (FindLocked(sb.key) != nullptr || sb.value == nullptr) {
      return Status::InvalidArgument("duplicate block");
    }
    InsertLocked(sb.key, std::move(sb.value), parent, sb.expire_at_ms, sb.used);
    clock_ = std::max(clock_, sb.used);
  }
  return Status::Ok();
}

Status PromptCache::CheckInvariants() const {
  std::lock_guard<std::mutex> g(mu_);
  uint64_t bytes = 0;
  size_t leaves = 0, expiring = 0;
  for (const auto& [key, b] : blocks_) {
    auto fail = [&](const std::string& what) {
      return Status::FailedPrecondition("block " + key + ": " + what);
    };
    if (b.key != &key || b.value == nullptr) return fail("key or value");
    bytes += b.bytes();
    if (b.pinned) return fail("left pinned");
    if (b.used > clock_) return fail("used after the clock");
    if (b.first_child == nullptr) {
      leaves++;
      if (!leaves_.contains({b.used, const_cast<Block*>(&b)})) return fail("leaf not in leaves_");
    }
    if (b.expire_at_ms != 0) {
      expiring++;
      if (!expiry_.contains({b.expire_at_ms, const_cast<Block*>(&b)})) return fail("not in expiry_");
    }
    if (b.parent != nullptr) {
      bool found = false;
      for (const Block* c = b.parent->first_child; c != nullptr; c = c->next_sibling) {
        found |= c == &b;
      }
      if (!found) return fail("not among its parent's children");
      if (b.parent->expire_at_ms != 0 &&
          (b.expire_at_ms == 0 || b.expire_at_ms > b.parent->expire_at_ms)) {
        return fail("outlives its parent");
      }
    }
    const Block* prev = nullptr;
    for (const Block* c = b.first_child; c != nullptr; prev = c, c = c->next_sibling) {
      if (c->parent != &b || c->prev_sibling != prev) return fail("child links");
    }
  }
  if (bytes != bytes_) return Status::FailedPrecondition("bytes_ off");
  if (leaves != leaves_.size()) return Status::FailedPrecondition("leaves_ has extra entries");
  if (expiring != expiry_.size()) return Status::FailedPrecondition("expiry_ has extra entries");
  return Status::Ok();
}

std::shared_ptr<PromptCache> PromptCache::Clone() const {
  Snapshot s = TakeSnapshot();
  auto copy = std::make_shared<PromptCache>(s.options);
  (void)copy->Restore(std::move(s));
  return copy;
}

}  // namespace hotkv::ai
