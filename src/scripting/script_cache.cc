#include "scripting/script_cache.h"

#include <mutex>
#include <vector>

namespace hotkv::scripting {

ScriptCache& ScriptCache::Instance() {
  static ScriptCache cache;
  return cache;
}

std::shared_ptr<CachedScript> ScriptCache::Find(std::string_view sha) const {
  std::shared_lock lock(mu_);
  auto it = scripts_.find(std::string(sha));
  return it == scripts_.end() ? nullptr : it->second;
}

std::shared_ptr<CachedScript> ScriptCache::Add(std::string sha, std::string_view body,
                                               const ScriptFlags& flags, bool from_eval,
                                               uint64_t* evicted) {
  std::vector<std::shared_ptr<CachedScript>> gone;  // freed after the lock
  std::unique_lock lock(mu_);
  auto it = scripts_.find(sha);
  if (it != scripts_.end()) {
    return it->second;
  }
  if (from_eval) {
    // Redis's scriptsLRUAdd: the least recently used EVAL scripts go first. A scan of at
    // most 500 entries, only when a new script is added.
    while (evictable_.size() >= kMaxEvalScripts) {
      size_t victim = 0;
      for (size_t i = 1; i < evictable_.size(); i++) {
        const CachedScript* a = evictable_[i];
        const CachedScript* b = evictable_[victim];
        const uint64_t ua = a->last_use.load(std::memory_order_relaxed);
        const uint64_t ub = b->last_use.load(std::memory_order_relaxed);
        if (ua < ub || (ua == ub && a->seq < b->seq)) {
          victim = i;
        }
      }
      CachedScript* v = evictable_[victim];
      evictable_[victim] = evictable_.back();
      evictable_.pop_back();
      v->evicted.store(true, std::memory_order_release);
      auto vit = scripts_.find(v->sha);
      bytes_ -= v->body.size() + v->sha.size();
      gone.push_back(std::move(vit->second));
      scripts_.erase(vit);
      evictions_.fetch_add(1, std::memory_order_relaxed);
      if (evicted != nullptr) {
        (*evicted)++;
      }
    }
  }
  auto s = std::make_shared<CachedScript>();
  s->sha = sha;
  s->body.assign(body);
  s->flags = flags;
  s->seq = next_seq_++;
  if (from_eval) {
    s->evictable = true;
    const uint64_t t = clock_.load(std::memory_order_relaxed) + 2;
    clock_.store(t, std::memory_order_relaxed);
    s->last_use.store(t, std::memory_order_relaxed);
    evictable_.push_back(s.get());
  }
  bytes_ += body.size() + sha.size();
  scripts_.emplace(std::move(sha), s);
  return s;
}

void ScriptCache::Flush() {
  std::unordered_map<std::string, std::shared_ptr<CachedScript>> old;
  {
    std::unique_lock lock(mu_);
    old.swap(scripts_);
    evictable_.clear();
    bytes_ = 0;
    epoch_.fetch_add(1, std::memory_order_acq_rel);
  }
}

size_t ScriptCache::size() const {
  std::shared_lock lock(mu_);
  return scripts_.size();
}

size_t ScriptCache::memory() const {
  std::shared_lock lock(mu_);
  return bytes_;
}

std::string ParseShebang(std::string_view body, ScriptFlags* flags) {
  *flags = ScriptFlags{};
  if (body.size() < 2 || body[0] != '#' || body[1] != '!') {
    return {};
  }
  flags->shebang = true;
  size_t eol = body.find('\n');
  std::string_view line = body.substr(0, eol == std::string_view::npos ? body.size() : eol);
  // Words separated by spaces: the engine first, then name=value pairs.
  std::vector<std::string_view> words;
  size_t i = 2;
  while (i < line.size()) {
    while (i < line.size() && line[i] == ' ') {
      i++;
    }
    size_t j = i;
    while (j < line.size() && line[j] != ' ') {
      j++;
    }
    if (j > i) {
      words.push_back(line.substr(i, j - i));
    }
    i = j;
  }
  if (words.empty() || words[0] != "lua") {
    return "ERR Unexpected engine in script shebang: " + std::string(line);
  }
  for (size_t w = 1; w < words.size(); w++) {
    std::string_view kv = words[w];
    if (kv.substr(0, 6) != "flags=") {
      return "ERR Unknown lua shebang option: " + std::string(kv);
    }
    std::string_view list = kv.substr(6);
    size_t p = 0;
    while (p <= list.size() && !list.empty()) {
      size_t q = list.find(',', p);
      std::string_view f = list.substr(p, q == std::string_view::npos ? list.size() - p : q - p);
      if (f == "no-writes") {
        flags->no_writes = true;
      } else if (f == "allow-oom") {
        flags->allow_oom = true;
      } else if (f == "allow-stale") {
        flags->allow_stale = true;
      } else if (f == "no-cluster") {
        flags->no_cluster = true;
      } else if (f == "allow-cross-slot-keys") {
        flags->allow_cross_slot = true;
      } else {
        return "ERR Unexpected flag in script shebang: " + std::string(f);
      }
      if (q == std::string_view::npos) {
        break;
      }
      p = q + 1;
    }
  }
  return {};
}

}  // namespace hotkv::scripting
