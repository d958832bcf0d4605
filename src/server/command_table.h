// CommandTable: one entry per command — name, arity, flags, key positions, handler and
// documentation — from which the dispatcher checks arity, finds the keys to lock, and
// COMMAND / COMMAND INFO / COMMAND DOCS / COMMAND GETKEYS are generated.
//
//   table.Add({.name = "get", .arity = 2, .flags = "readonly fast",
//              .acl = "@read @string @fast", .keys = {KeyAt(1, "RO ACCESS")},
//              .handler = GetCommand,
//              .doc = {"string", "1.0.0", "O(1)", "Returns the value of a key.", "key"}});
//
// Container commands (CONFIG, CLIENT, ...) hold subcommands added with AddSub("config",
// {...}); they are reported as "config|get" the way Redis reports them.
//
// Thread safety: built once at start-up, read-only afterwards (stats are atomics).
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace hotkv {

class CommandContext;
using CommandHandler = void (*)(CommandContext&);

enum CommandFlag : uint32_t {
  kCmdWrite = 1u << 0,
  kCmdReadonly = 1u << 1,
  kCmdDenyOom = 1u << 2,
  kCmdAdmin = 1u << 3,
  kCmdPubsub = 1u << 4,
  kCmdNoscript = 1u << 5,
  kCmdBlocking = 1u << 6,
  kCmdLoading = 1u << 7,
  kCmdStale = 1u << 8,
  kCmdSkipMonitor = 1u << 9,
  kCmdSkipSlowlog = 1u << 10,
  kCmdAsking = 1u << 11,
  kCmdFast = 1u << 12,
  kCmdNoAuth = 1u << 13,
  kCmdMayReplicate = 1u << 14,
  kCmdNoMandatoryKeys = 1u << 15,
  kCmdNoAsyncLoading = 1u << 16,
  kCmdNoMulti = 1u << 17,
  kCmdAllowBusy = 1u << 18,
  kCmdProtected = 1u << 19,
  kCmdTouchesArbitraryKeys = 1u << 20,  // SCAN, RANDOMKEY (Redis 7.4+)
  // HotKV-internal flags (not reported by COMMAND INFO):
  // The dispatcher takes no shard lock for the command's keys: the handler locks the
  // key's shard itself, only around its keyspace accesses, so a long engine call (an
  // HNSW search or insert) runs with no shard lock held. The key specs stay declared
  // (COMMAND INFO, GETKEYS, EXEC's lock set). See docs/architecture.md.
  kCmdSelfLocking = 1u << 27,
  kCmdAllShards = 1u << 28,    // touches the whole keyspace (EXEC must lock every shard)
  kCmdSubscribedOk = 1u << 29, // allowed in RESP2 subscribed mode
  // A read that may change its key's value (PFCOUNT stores the count it computed in the
  // HLL header, and tells WATCH and the write stream): the dispatcher locks its shards
  // as for a write, so no other reader of the shard runs meanwhile.
  kCmdLockExclusive = 1u << 30,
};

enum KeySpecFlag : uint32_t {
  kKeyRO = 1u << 0,
  kKeyRW = 1u << 1,
  kKeyOW = 1u << 2,
  kKeyRM = 1u << 3,
  kKeyAccess = 1u << 4,
  kKeyUpdate = 1u << 5,
  kKeyInsert = 1u << 6,
  kKeyDelete = 1u << 7,
  kKeyNotKey = 1u << 8,
  kKeyIncomplete = 1u << 9,
  kKeyVariableFlags = 1u << 10,
};

// Where a command's keys are, as Redis's key specs describe it. kUnknown (begin and find):
// keys no spec can locate (SORT's BY/GET patterns and STORE); the command's getkeys finds
// what it can, and its handler takes care of the rest.
struct KeySpec {
  enum class Begin { kIndex, kKeyword, kUnknown } begin = Begin::kIndex;
  int index = 1;                 // kIndex: first key position
  std::string keyword;           // kKeyword: search for this token...
  int startfrom = 1;             // ...from this position (negative: from the end)
  enum class Find { kRange, kKeyNum, kUnknown } find = Find::kRange;
  int lastkey = 0;               // kRange: last key relative to the first (-1 = last arg)
  int step = 1;
  int limit = 0;
  int keynumidx = 0;             // kKeyNum: position of the count, relative to begin
  int firstkey = 1;              // ...first key relative to begin
  uint32_t flags = 0;
  std::string notes;
};

// A single key at `index`.
KeySpec KeyAt(int index, std::string_view flags);
// Keys from `index` to `lastkey` (relative: 0 = only index, -1 = last arg), every `step`.
KeySpec KeyRange(int index, int lastkey, int step, std::string_view flags, int limit = 0);
// A count at begin+keynumidx, then keys from begin+firstkey every `step`.
KeySpec KeyNum(int index, int keynumidx, int firstkey, int step, std::string_view flags);
// Keys that no spec can describe (begin_search and find_keys "unknown").
KeySpec KeyUnknown(std::string_view flags, std::string_view notes);
// Keys after a keyword token (e.g. STREAMS) searched from `startfrom`.
KeySpec KeyKeyword(std::string_view keyword, int startfrom, int lastkey, int step,
                   std::string_view flags, int limit = 0);

struct CommandDoc {
  std::string group;       // "string", "generic", "server", ...
  std::string since;       // first Redis version with the command
  std::string complexity;
  std::string summary;     // in HotKV's own words
  std::string syntax;      // argument grammar, e.g. "key value [NX | XX] [GET]"
  std::string doc_flags;   // "deprecated" etc.
  std::string deprecated_since;
  std::string replaced_by;
};

// Returns the key positions of a command invocation (for commands whose keys the key
// specs cannot describe, or to override them).
using GetKeysFn = void (*)(const std::vector<std::string_view>& args, std::vector<int>* out);
// True when an invocation reads keys its key specs cannot name (SORT ... BY/GET with a
// pattern): EXEC then locks every shard, since a queued command cannot take more locks.
using NeedsAllShardsFn = bool (*)(const std::vector<std::string_view>& args);

// A key found in a command invocation: its argument position and the flags of the key
// spec that found it (COMMAND GETKEYSANDFLAGS).
struct KeyPosition {
  int pos;
  uint32_t flags;
};

struct CommandDef {
  std::string name;
  int arity = 0;
  std::string flags;
  std::string acl;
  std::vector<KeySpec> keys;
  CommandHandler handler = nullptr;
  CommandDoc doc;
  GetKeysFn getkeys = nullptr;
  std::vector<std::string> tips;
  NeedsAllShardsFn all_shards_in_exec = nullptr;
};

struct CommandStats {
  std::atomic<uint64_t> calls{0};
  std::atomic<uint64_t> cycles{0};  // time spent, in TSC cycles (converted for INFO)
  std::atomic<uint64_t> rejected{0};
  std::atomic<uint64_t> failed{0};
  // Calls that entered the slow log, and their time (INFO commandstats slowlog_*).
  std::atomic<uint64_t> slowlog_count{0};
  std::atomic<uint64_t> slowlog_us_sum{0};
  std::atomic<uint64_t> slowlog_us_max{0};
  // LATENCY HISTOGRAM (latency-tracking yes): calls by duration bucket, see
  // LatencyBucket() in server/latency.h (kLatencyBuckets).
  std::atomic<uint64_t> latency_hist[24] = {};
};

class CommandSpec {
 public:
  std::string name;        // lowercase; subcommands: "get" (full name "config|get")
  std::string full_name;
  int arity = 0;
  uint32_t flags = 0;
  std::vector<std::string> acl_categories;  // without '@'
  std::vector<KeySpec> key_specs;
  CommandHandler handler = nullptr;
  GetKeysFn getkeys = nullptr;
  NeedsAllShardsFn all_shards_in_exec = nullptr;
  CommandDoc doc;
  std::vector<std::string> tips;
  CommandSpec* parent = nullptr;
  std::vector<std::unique_ptr<CommandSpec>> subcommands;
  int id = 0;  // index into per-worker statistics arrays
  bool movable_keys = false;
  // > 0 when the command has exactly one key, always at this position (fast path).
  int single_key_index = 0;
  // Legacy (first, last, step) for COMMAND INFO.
  int first_key = 0, last_key = 0, key_step = 0;

  bool is(uint32_t f) const { return flags & f; }
  const CommandSpec* FindSub(std::string_view name) const;
  // Appends the positions of the keys in `args` (which starts with the command name).
  // Returns false when the arguments are malformed for key extraction (e.g. a bad numkeys).
  // Lenient, for locking: the handler reports malformed arguments itself.
  bool GetKeys(const std::vector<std::string_view>& args, std::vector<int>* out) const;
  // The keys the key specs find, with Redis's rules (getKeysUsingKeySpecs): nullopt when
  // a spec does not fit the arguments (a count that is not a plain non-negative integer,
  // a range or count past the end, no key where one must be, an INCOMPLETE spec).
  // NOT_KEY specs are skipped; a keyword spec whose keyword is absent finds nothing.
  std::optional<std::vector<KeyPosition>> KeysBySpecs(
      const std::vector<std::string_view>& args) const;
  // True when some key spec names real keys (Redis's doesCommandHaveKeys).
  bool HasKeys() const;
};

class CommandTable {
 public:
  CommandTable() = default;
  CommandSpec* Add(CommandDef def);
  CommandSpec* AddSub(std::string_view parent, CommandDef def);

  // Case-insensitive lookup of a top-level command.
  const CommandSpec* Find(std::string_view name) const;
  const std::vector<std::unique_ptr<CommandSpec>>& all() const { return commands_; }
  // Every spec including subcommands, indexed by id.
  const std::vector<CommandSpec*>& by_id() const { return by_id_; }
  size_t size() const { return commands_.size(); }

  // Finishes the table: computes legacy key positions, movable-keys, lookup index.
  void Finalize();

 private:
  CommandSpec* Build(CommandDef def, CommandSpec* parent);

  std::vector<std::unique_ptr<CommandSpec>> commands_;
  std::vector<CommandSpec*> by_id_;
  // Open-addressing index: lowercase name hash -> command.
  std::vector<const CommandSpec*> index_;
  size_t index_mask_ = 0;
};

// Names of flags for COMMAND INFO (in Redis's order and spelling).
std::vector<std::string_view> CommandFlagNames(uint32_t flags, bool movable_keys);
std::vector<std::string_view> KeySpecFlagNames(uint32_t flags);

// Parses an argument grammar string ("key value [NX | XX] [EX seconds]") into the
// COMMAND DOCS argument tree. Used by the DOCS reply writer. The notation (group names,
// explicit types, quoted tokens, ...) is described above SyntaxParser in command_table.cc.
struct DocArg {
  std::string name;
  std::string type;    // key string integer double pattern unix-time pure-token oneof block
  std::string token;
  bool optional = false;
  bool multiple = false;
  bool multiple_token = false;
  int key_spec_index = -1;
  std::vector<DocArg> children;
};
std::vector<DocArg> ParseSyntax(std::string_view syntax);

}  // namespace hotkv
