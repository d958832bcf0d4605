#include "server/command_table.h"

#include <atomic>
#include <cctype>
#include <cstdlib>
#include <cstring>
#include <sstream>

#include "common/string_util.h"

namespace hotkv {

namespace {

struct FlagName {
  std::string_view name;
  uint32_t bit;
};

constexpr FlagName kCommandFlags[] = {
    {"write", kCmdWrite},         {"readonly", kCmdReadonly},
    {"denyoom", kCmdDenyOom},     {"admin", kCmdAdmin},
    {"pubsub", kCmdPubsub},       {"noscript", kCmdNoscript},
    {"blocking", kCmdBlocking},   {"loading", kCmdLoading},
    {"stale", kCmdStale},         {"skip_monitor", kCmdSkipMonitor},
    {"skip_slowlog", kCmdSkipSlowlog}, {"asking", kCmdAsking},
    {"fast", kCmdFast},           {"no_auth", kCmdNoAuth},
    {"may_replicate", kCmdMayReplicate}, {"no_mandatory_keys", kCmdNoMandatoryKeys},
    {"no_async_loading", kCmdNoAsyncLoading}, {"no_multi", kCmdNoMulti},
    {"allow_busy", kCmdAllowBusy}, {"protected", kCmdProtected},
    {"touches_arbitrary_keys", kCmdTouchesArbitraryKeys},
    {"self_locking", kCmdSelfLocking}, {"all_shards", kCmdAllShards},
    {"subscribed_ok", kCmdSubscribedOk}, {"lock_exclusive", kCmdLockExclusive},
};

constexpr FlagName kKeyFlags[] = {
    {"RO", kKeyRO},         {"RW", kKeyRW},         {"OW", kKeyOW},
    {"RM", kKeyRM},         {"ACCESS", kKeyAccess}, {"UPDATE", kKeyUpdate},
    {"INSERT", kKeyInsert}, {"DELETE", kKeyDelete}, {"NOT_KEY", kKeyNotKey},
    {"INCOMPLETE", kKeyIncomplete}, {"VARIABLE_FLAGS", kKeyVariableFlags},
};

template <size_t N>
uint32_t ParseFlags(std::string_view text, const FlagName (&names)[N]) {
  uint32_t out = 0;
  std::istringstream in{std::string(text)};
  std::string word;
  while (in >> word) {
    bool found = false;
    for (const auto& f : names) {
      if (EqualsIgnoreCase(f.name, word)) {
        out |= f.bit;
        found = true;
      }
    }
    if (!found) {
      fprintf(stderr, "command table: unknown flag '%s'\n", word.c_str());
      abort();  // a typo in the table is a programming error
    }
  }
  return out;
}

// ASCII-only case folding: command names are ASCII, and libc's tolower is a locale
// lookup through a function call on the per-command path.
inline unsigned char FoldAscii(unsigned char c) {
  return (c >= 'A' && c <= 'Z') ? static_cast<unsigned char>(c | 0x20) : c;
}

uint64_t NameHash(std::string_view s) {
  uint64_t h = 1469598103934665603ull;
  for (char c : s) {
    h ^= FoldAscii(static_cast<unsigned char>(c));
    h *= 1099511628211ull;
  }
  return h;
}

// `lower` is already lowercase (table names are).
bool EqualsFolded(std::string_view lower, std::string_view s) {
  if (lower.size() != s.size()) {
    return false;
  }
  for (size_t i = 0; i < s.size(); i++) {
    if (static_cast<unsigned char>(lower[i]) != FoldAscii(static_cast<unsigned char>(s[i]))) {
      return false;
    }
  }
  return true;
}

// The bytes of a name of 1..16 bytes as two little-endian words, zero above the name:
// overlapping fixed-size loads, never reading outside the name.
inline bool LoadShortName(std::string_view s, uint64_t* w0, uint64_t* w1) {
  const char* p = s.data();
  const size_t n = s.size();
  if (n - 1 >= 16) {  // 0 or more than 16
    return false;
  }
  if (n >= 8) {
    uint64_t a;
    memcpy(&a, p, 8);
    *w0 = a;
    if (n == 8) {
      *w1 = 0;
    } else {
      uint64_t b;
      memcpy(&b, p + n - 8, 8);
      *w1 = b >> (8 * (16 - n));
    }
  } else if (n >= 4) {
    uint32_t lo, hi;
    memcpy(&lo, p, 4);
    memcpy(&hi, p + n - 4, 4);
    *w0 = uint64_t{lo} | (uint64_t{hi} << (8 * (n - 4)));
    *w1 = 0;
  } else {
    const auto* u = reinterpret_cast<const unsigned char*>(p);
    *w0 = uint64_t{u[0]} | (uint64_t{u[n >> 1]} << (8 * (n >> 1))) |
          (uint64_t{u[n - 1]} << (8 * (n - 1)));
    *w1 = 0;
  }
  return true;
}

// ASCII 'A'..'Z' to lowercase in all eight bytes at once; other bytes unchanged.
inline uint64_t FoldWord(uint64_t x) {
  constexpr uint64_t kOnes = 0x0101010101010101ull;
  constexpr uint64_t kHigh = kOnes * 0x80;
  const uint64_t b = x & ~kHigh;  // each byte's low 7 bits: the additions never carry
  const uint64_t ge_a = b + kOnes * (0x80 - 'A');
  const uint64_t gt_z = b + kOnes * (0x80 - 'Z' - 1);
  const uint64_t upper = ge_a & ~gt_z & ~x & kHigh;
  return x | (upper >> 2);
}

inline uint64_t ShortNameHash(uint64_t w0, uint64_t w1, uint64_t len) {
  return ((w0 ^ (w1 * 0x9e3779b97f4a7c15ull) ^ len) * 0xbf58476d1ce4e5b9ull);
}

// Names of up to 16 bytes (every command but a few module ones) in a second index keyed
// by the name's bytes as two words, case-folded eight bytes at a time: a lookup is a few
// word operations and one compare instead of a byte loop hashing and comparing (100-170
// instructions per command before, bench/notes/2026-12-03-fastpath-vs-redis8.md). It
// serves the table finalized last (the server's, built once at start-up); any other
// table's Find takes the byte-loop index, which gives the same answers.
struct ShortName {
  uint64_t w0 = 0, w1 = 0;
  uint64_t len = 0;
  const CommandSpec* spec = nullptr;
};
struct ShortIndex {
  const CommandTable* owner = nullptr;
  std::vector<ShortName> slots;
  size_t mask = 0;
  int shift = 64;
};
ShortIndex g_short_index;
// Bumped by every Finalize: a thread's last-found name (below) from before is stale.
std::atomic<uint64_t> g_short_index_generation{1};

// The name this thread found last, as LoadShortName's raw (unfolded) words: a pipeline
// usually repeats its command, and the same bytes are then matched without case folding,
// hashing or probing. Filled only through the short index, so the generation check also
// says which table it belongs to (the index's owner).
struct LastFound {
  uint64_t w0 = 0, w1 = 0, len = 0;
  uint64_t generation = 0;
  const CommandSpec* spec = nullptr;
};
thread_local constinit LastFound t_last_found;

}  // namespace

KeySpec KeyAt(int index, std::string_view flags) {
  KeySpec k;
  k.index = index;
  k.lastkey = 0;
  k.flags = ParseFlags(flags, kKeyFlags);
  return k;
}

KeySpec KeyRange(int index, int lastkey, int step, std::string_view flags, int limit) {
  KeySpec k;
  k.index = index;
  k.lastkey = lastkey;
  k.step = step;
  k.limit = limit;
  k.flags = ParseFlags(flags, kKeyFlags);
  return k;
}

KeySpec KeyNum(int index, int keynumidx, int firstkey, int step, std::string_view flags) {
  KeySpec k;
  k.index = index;
  k.find = KeySpec::Find::kKeyNum;
  k.keynumidx = keynumidx;
  k.firstkey = firstkey;
  k.step = step;
  k.flags = ParseFlags(flags, kKeyFlags);
  return k;
}

KeySpec KeyUnknown(std::string_view flags, std::string_view notes) {
  KeySpec k;
  k.begin = KeySpec::Begin::kUnknown;
  k.find = KeySpec::Find::kUnknown;
  k.flags = ParseFlags(flags, kKeyFlags);
  k.notes = std::string(notes);
  return k;
}

KeySpec KeyKeyword(std::string_view keyword, int startfrom, int lastkey, int step,
                   std::string_view flags, int limit) {
  KeySpec k;
  k.begin = KeySpec::Begin::kKeyword;
  k.keyword = std::string(keyword);
  k.startfrom = startfrom;
  k.lastkey = lastkey;
  k.step = step;
  k.limit = limit;
  k.flags = ParseFlags(flags, kKeyFlags);
  return k;
}

std::vector<std::string_view> CommandFlagNames(uint32_t flags, bool movable_keys) {
  // Redis keeps these in its table but leaves them out of COMMAND INFO on purpose.
  constexpr uint32_t kHidden = kCmdMayReplicate | kCmdProtected | kCmdTouchesArbitraryKeys;
  std::vector<std::string_view> out;
  for (const auto& f : kCommandFlags) {
    // Redis writes movablekeys between no_multi and allow_busy.
    if (f.bit == kCmdAllowBusy && movable_keys) {
      out.push_back("movablekeys");
    }
    if ((flags & f.bit) && f.bit < kCmdSelfLocking && !(f.bit & kHidden)) {
      out.push_back(f.name);
    }
  }
  return out;
}

std::vector<std::string_view> KeySpecFlagNames(uint32_t flags) {
  // Redis writes the access kinds in upper case and the operation flags in lower case.
  static constexpr FlagName kReplyNames[] = {
      {"RO", kKeyRO},         {"RW", kKeyRW},         {"OW", kKeyOW},
      {"RM", kKeyRM},         {"access", kKeyAccess}, {"update", kKeyUpdate},
      {"insert", kKeyInsert}, {"delete", kKeyDelete}, {"not_key", kKeyNotKey},
      {"incomplete", kKeyIncomplete}, {"variable_flags", kKeyVariableFlags},
  };
  std::vector<std::string_view> out;
  for (const auto& f : kReplyNames) {
    if (flags & f.bit) {
      out.push_back(f.name);
    }
  }
  return out;
}

const CommandSpec* CommandSpec::FindSub(std::string_view sub) const {
  for (const auto& s : subcommands) {
    if (EqualsIgnoreCase(s->name, sub)) {
      return s.get();
    }
  }
  return nullptr;
}

bool CommandSpec::GetKeys(const std::vector<std::string_view>& args, std::vector<int>* out) const {
  if (single_key_index > 0) {
    if (static_cast<size_t>(single_key_index) < args.size()) {
      out->push_back(single_key_index);
    }
    return true;
  }
  if (getkeys != nullptr) {
    getkeys(args, out);
    return true;
  }
  const int argc = static_cast<int>(args.size());
  for (const KeySpec& ks : key_specs) {
    if ((ks.flags & kKeyNotKey) || ks.begin == KeySpec::Begin::kUnknown) {
      continue;
    }
    int start;
    if (ks.begin == KeySpec::Begin::kIndex) {
      start = ks.index;
    } else {
      start = -1;
      if (ks.startfrom >= 0) {
        for (int i = ks.startfrom; i < argc; i++) {
          if (EqualsIgnoreCase(args[i], ks.keyword)) {
            start = i + 1;
            break;
          }
        }
      } else {
        for (int i = argc + ks.startfrom; i > 0; i--) {
          if (EqualsIgnoreCase(args[i], ks.keyword)) {
            start = i + 1;
            break;
          }
        }
      }
      if (start < 0) {
        continue;
      }
    }
    if (start >= argc) {
      continue;
    }
    if (ks.find == KeySpec::Find::kRange) {
      int last;
      if (ks.lastkey >= 0) {
        last = start + ks.lastkey;
      } else if (ks.limit <= 1) {
        last = argc + ks.lastkey;
      } else {
        last = start + ((argc - start) / ks.limit) + ks.lastkey;
      }
      if (last >= argc) {
        last = argc - 1;
      }
      for (int i = start; i <= last; i += ks.step) {
        out->push_back(i);
      }
    } else {
      int numpos = start + ks.keynumidx;
      if (numpos >= argc) {
        return false;
      }
      auto n = ParseInt64(args[numpos]);
      // More keys than arguments is malformed; checking it first also keeps the bound
      // check below from overflowing on a huge count (ZMPOP 9223372036854775807 ...).
      if (!n || *n < 0 || *n > argc) {
        return false;
      }
      int first = start + ks.firstkey;
      if (*n > 0 && first + (*n - 1) * ks.step >= argc) {
        return false;
      }
      for (int64_t i = 0; i < *n; i++) {
        out->push_back(first + static_cast<int>(i) * ks.step);
      }
    }
  }
  return true;
}

std::optional<std::vector<KeyPosition>> CommandSpec::KeysBySpecs(
    const std::vector<std::string_view>& args) const {
  const int argc = static_cast<int>(args.size());
  std::vector<KeyPosition> out;
  for (const KeySpec& ks : key_specs) {
    if (ks.flags & kKeyNotKey) {
      continue;
    }
    int first = 0;
    if (ks.begin == KeySpec::Begin::kUnknown) {
      return std::nullopt;  // Redis: an invalid spec; the getkeys proc answers instead
    }
    if (ks.begin == KeySpec::Begin::kIndex) {
      first = ks.index;
    } else {
      // Forwards from startfrom up to (not including) the last argument, or backwards
      // from argc+startfrom down to (not including) argument 1, as Redis searches.
      const int from = ks.startfrom > 0 ? ks.startfrom : argc + ks.startfrom;
      const int to = ks.startfrom > 0 ? argc - 1 : 1;
      for (int i = from; i != to; i = from <= to ? i + 1 : i - 1) {
        if (i >= argc || i < 1) {
          break;
        }
        if (EqualsIgnoreCase(args[i], ks.keyword)) {
          first = i + 1;
          break;
        }
      }
      if (first == 0) {
        continue;  // keyword absent: this spec finds no key
      }
    }
    int last = 0;
    int step = ks.step;
    if (ks.find == KeySpec::Find::kRange) {
      if (ks.lastkey >= 0) {
        last = first + ks.lastkey;
      } else if (ks.limit == 0) {
        last = argc + ks.lastkey;
      } else {
        last = first + ((argc - first) / ks.limit + ks.lastkey);
      }
    } else {
      if (first + ks.keynumidx >= argc) {
        return std::nullopt;
      }
      auto numkeys = ParseInt64(args[first + ks.keynumidx]);
      if (!numkeys || *numkeys < 0 || *numkeys > argc) {
        return std::nullopt;
      }
      first += ks.firstkey;
      // numkeys keys, `step` apart (MSETEX's key/value pairs: step 2), as Redis 8.8.
      last = first + (static_cast<int>(*numkeys) - 1) * step;
    }
    if (last >= argc || last < first || first >= argc) {
      return std::nullopt;
    }
    for (int i = first; i <= last; i += step) {
      out.push_back({i, ks.flags});
    }
    if (ks.flags & kKeyIncomplete) {
      return std::nullopt;
    }
  }
  return out;
}

bool CommandSpec::HasKeys() const {
  if (getkeys != nullptr) {
    return true;
  }
  for (const KeySpec& ks : key_specs) {
    if (!(ks.flags & kKeyNotKey)) {
      return true;
    }
  }
  return false;
}

CommandSpec* CommandTable::Build(CommandDef def, CommandSpec* parent) {
  auto spec = std::make_unique<CommandSpec>();
  spec->name = ToLower(def.name);
  spec->full_name = parent ? parent->name + "|" + spec->name : spec->name;
  spec->arity = def.arity;
  spec->flags = ParseFlags(def.flags, kCommandFlags);
  std::istringstream acl(def.acl);
  std::string cat;
  while (acl >> cat) {
    spec->acl_categories.push_back(cat[0] == '@' ? cat.substr(1) : cat);
  }
  spec->key_specs = std::move(def.keys);
  spec->handler = def.handler;
  spec->getkeys = def.getkeys;
  spec->all_shards_in_exec = def.all_shards_in_exec;
  spec->doc = std::move(def.doc);
  spec->tips = std::move(def.tips);
  spec->parent = parent;
  spec->movable_keys = def.getkeys != nullptr;
  for (const auto& ks : spec->key_specs) {
    if (ks.begin == KeySpec::Begin::kKeyword || ks.find == KeySpec::Find::kKeyNum) {
      spec->movable_keys = true;
    }
  }
  CommandSpec* raw = spec.get();
  if (parent) {
    parent->subcommands.push_back(std::move(spec));
  } else {
    commands_.push_back(std::move(spec));
  }
  return raw;
}

CommandSpec* CommandTable::Add(CommandDef def) { return Build(std::move(def), nullptr); }

CommandSpec* CommandTable::AddSub(std::string_view parent, CommandDef def) {
  for (auto& c : commands_) {
    if (c->name == parent) {
      return Build(std::move(def), c.get());
    }
  }
  fprintf(stderr, "command table: no parent '%.*s'\n", static_cast<int>(parent.size()),
          parent.data());
  abort();
}

void CommandTable::Finalize() {
  by_id_.clear();
  auto legacy = [](CommandSpec* s) {
    // Legacy triple: only when the first key spec is a simple index+range.
    if (!s->key_specs.empty()) {
      const KeySpec& k = s->key_specs[0];
      if (k.begin == KeySpec::Begin::kIndex && k.find == KeySpec::Find::kRange) {
        s->first_key = k.index;
        s->last_key = k.lastkey >= 0 ? k.index + k.lastkey : k.lastkey;
        s->key_step = k.step;
        // Later specs with plain ranges extend the legacy range (e.g. RENAME: 1..2).
        for (size_t i = 1; i < s->key_specs.size(); i++) {
          const KeySpec& n = s->key_specs[i];
          if (n.begin == KeySpec::Begin::kIndex && n.find == KeySpec::Find::kRange &&
              s->last_key >= 0 && n.index == s->last_key + 1 && n.lastkey == 0) {
            s->last_key = n.index;
          } else if (n.begin == KeySpec::Begin::kIndex && n.find == KeySpec::Find::kRange &&
                     n.lastkey < 0 && s->last_key >= 0 && n.index == s->last_key + 1) {
            s->last_key = n.lastkey;
          }
        }
      }
    }
  };
  auto simple = [](CommandSpec* s) {
    if (s->getkeys == nullptr && s->key_specs.size() == 1) {
      const KeySpec& k = s->key_specs[0];
      if (k.begin == KeySpec::Begin::kIndex && k.find == KeySpec::Find::kRange &&
          k.lastkey == 0 && !(k.flags & kKeyNotKey)) {
        s->single_key_index = k.index;
      }
    }
  };
  for (auto& c : commands_) {
    c->id = static_cast<int>(by_id_.size());
    by_id_.push_back(c.get());
    legacy(c.get());
    simple(c.get());
    for (auto& s : c->subcommands) {
      s->id = static_cast<int>(by_id_.size());
      by_id_.push_back(s.get());
      legacy(s.get());
      simple(s.get());
    }
  }
  size_t cap = 16;
  while (cap < commands_.size() * 4) {
    cap *= 2;
  }
  index_.assign(cap, nullptr);
  index_mask_ = cap - 1;
  for (auto& c : commands_) {
    size_t i = NameHash(c->name) & index_mask_;
    while (index_[i] != nullptr) {
      i = (i + 1) & index_mask_;
    }
    index_[i] = c.get();
  }
  ShortIndex& si = g_short_index;
  g_short_index_generation.fetch_add(1, std::memory_order_relaxed);
  si.owner = this;
  si.mask = cap - 1;
  si.shift = 64 - __builtin_ctzll(cap);
  si.slots.assign(cap, ShortName{});
  for (auto& c : commands_) {
    uint64_t w0, w1;
    if (!LoadShortName(c->name, &w0, &w1)) {
      continue;
    }
    w0 = FoldWord(w0);
    w1 = FoldWord(w1);
    const uint64_t len = c->name.size();
    size_t i = ShortNameHash(w0, w1, len) >> si.shift;
    while (si.slots[i].spec != nullptr) {
      i = (i + 1) & si.mask;
    }
    si.slots[i] = ShortName{w0, w1, len, c.get()};
  }
}

const CommandSpec* CommandTable::Find(std::string_view name) const {
  if (index_.empty() || name.size() > 64) {
    return nullptr;
  }
  uint64_t w0, w1;
  const ShortIndex& si = g_short_index;
  if (si.owner == this && LoadShortName(name, &w0, &w1)) {
    const uint64_t len = name.size();
    LastFound& last = t_last_found;
    const uint64_t generation = g_short_index_generation.load(std::memory_order_relaxed);
    if (last.w0 == w0 && last.w1 == w1 && last.len == len && last.generation == generation) {
      return last.spec;
    }
    const uint64_t raw0 = w0, raw1 = w1;
    w0 = FoldWord(w0);
    w1 = FoldWord(w1);
    for (size_t i = ShortNameHash(w0, w1, len) >> si.shift;; i = (i + 1) & si.mask) {
      const ShortName& e = si.slots[i];
      if (e.spec == nullptr) {
        return nullptr;
      }
      if (e.w0 == w0 && e.w1 == w1 && e.len == len) {
        last = LastFound{raw0, raw1, len, generation, e.spec};
        return e.spec;
      }
    }
  }
  for (size_t i = NameHash(name) & index_mask_;; i = (i + 1) & index_mask_) {
    const CommandSpec* c = index_[i];
    if (c == nullptr) {
      return nullptr;
    }
    if (EqualsFolded(c->name, name)) {
      return c;
    }
  }
}

}  // namespace hotkv
