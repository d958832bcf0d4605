// StreamValue: the value of a Redis stream — an append-only log of entries (an id and
// field/value pairs) plus its consumer groups.
//
// Layout (OBJECT ENCODING "stream"):
//   - Entries live in blocks (StreamBlock) of at most stream-node-max-entries entries and
//     about stream-node-max-bytes bytes, as Redis's listpack nodes. A block is one byte
//     buffer: the field names of its first entry (the "master fields"), then each entry
//     as [flags][ms delta][seq delta][fields unless same as master][values], integers as
//     LEB128 varints, ids delta-encoded against the block's first id. A field or value
//     that is a canonical integer is stored as its zigzag varint (as listpacks store
//     integers: an 8-digit value takes 5 bytes), the readers formatting it back. XDEL only sets the
//     entry's deleted flag; a block whose entries are all deleted is freed.
//   - An ordered index over blocks: a deque of block pointers sorted by first id
//     (binary search to seek; trimming pops from the front in O(1)).
//   - Metadata as Redis 7 keeps it: length, last id, max deleted id, entries added.
//   - Consumer groups (StreamGroup): last delivered id, entries read, the pending entries
//     list (PEL, id -> owner, delivery time, delivery count) and consumers, each with its
//     own PEL view (the same PendingEntry objects) and seen/active times. Groups and
//     consumers are kept ordered by name, PELs by id, as Redis's radix trees are.
//
// Every stream command is a thin wrapper (commands/stream_family*.cc): XADD Append (+
// Trim), XRANGE/XREVRANGE/XREAD Range, XDEL Delete, XTRIM Trim, XSETID the metadata
// setters, XGROUP/XREADGROUP/XACK/XPENDING/XCLAIM/XAUTOCLAIM/XINFO the group API.
//
// Thread safety: none; the engine holds the key's shard lock around every call.

#ifndef HOTKV_TYPES_STREAM_H_
#define HOTKV_TYPES_STREAM_H_

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "types/function_ref.h"

namespace hotkv::types {

struct StreamId {
  uint64_t ms = 0;
  uint64_t seq = 0;

  static constexpr StreamId Min() { return {0, 0}; }
  static constexpr StreamId Max() { return {UINT64_MAX, UINT64_MAX}; }
  bool IsZero() const { return ms == 0 && seq == 0; }
  // The next / previous id; false when there is none (Max / Min).
  bool Incr();
  bool Decr();
  std::string ToString() const;
  // Writes "ms-seq" into buf (at least kTextMax bytes, no NUL); returns its length.
  static constexpr size_t kTextMax = 41;
  size_t Format(char* buf) const;
  // Parses "ms-seq" or "ms" (seq = missing_seq). No "-", "+" or "*".
  static std::optional<StreamId> Parse(std::string_view s, uint64_t missing_seq);

  friend auto operator<=>(const StreamId&, const StreamId&) = default;
};

// One entry's fields and values, alternating (field, value, field, value ...); views into
// the stream's memory or (integers, stored as numbers) into the reader's scratch buffer:
// valid only during the visit that hands them out.
using StreamFields = std::vector<std::string_view>;
using StreamVisitor = FunctionRef<bool(const StreamId&, const StreamFields&)>;

struct StreamNodeLimits {
  size_t max_bytes = 4096;   // stream-node-max-bytes (0 = no limit)
  size_t max_entries = 100;  // stream-node-max-entries (0 = no limit)
};

struct StreamConsumer;

// A pending entry. consumer == nullptr: released by Redis 8.8's XNACK ("nacked"), owned by
// no consumer, delivery time 0, waiting for XREADGROUP ... CLAIM (first, in nack order).
struct PendingEntry {
  StreamConsumer* consumer = nullptr;
  int64_t delivery_time = 0;  // ms
  uint64_t delivery_count = 0;
  uint64_t nack_seq = 0;  // order of the last XNACK (for nacked entries)
  // Order of the last change of delivery_time (StampDelivery): among entries delivered in
  // the same millisecond, XREADGROUP ... CLAIM takes the one stamped first, as Redis 8.8
  // does (its time index keeps entries of equal time in the order they were stamped, not
  // by id). 0: loaded (RDB), ordered by id among themselves.
  uint64_t time_seq = 0;
};

// Sets a pending entry's delivery time and stamps the order of that change.
inline void StampDelivery(PendingEntry& pe, int64_t time_ms) {
  static std::atomic<uint64_t> counter{0};  // streams of several shards stamp at once
  pe.delivery_time = time_ms;
  pe.time_seq = counter.fetch_add(1, std::memory_order_relaxed) + 1;
}

// One more delivery; saturates at INT64_MAX (XNACK FATAL's count), as Redis 8.8 does.
inline void BumpDeliveryCount(PendingEntry& pe) {
  if (pe.delivery_count < static_cast<uint64_t>(INT64_MAX)) {
    pe.delivery_count++;
  }
}

struct StreamConsumer {
  std::string name;
  int64_t seen_time = 0;    // last interaction (ms)
  int64_t active_time = -1;  // last successful read/claim (ms), -1 never
  std::map<StreamId, PendingEntry*> pel;
};

inline constexpr int64_t kInvalidEntriesRead = -1;

struct StreamGroup {
  StreamGroup() = default;
  StreamGroup(const StreamGroup&) = delete;
  StreamGroup& operator=(const StreamGroup&) = delete;

  StreamId last_id;
  int64_t entries_read = kInvalidEntriesRead;
  std::map<StreamId, std::unique_ptr<PendingEntry>> pel;
  std::map<std::string, std::unique_ptr<StreamConsumer>, std::less<>> consumers;

  StreamConsumer* FindConsumer(std::string_view name);
  // Creates the consumer (seen/active as Redis: seen = now, active = -1); null if it exists.
  StreamConsumer* CreateConsumer(std::string_view name, int64_t now_ms);
  // Removes a consumer and its pending entries; returns how many it had pending.
  size_t DeleteConsumer(std::string_view name);
  // Adds (or re-assigns) a pending entry to `c`, as delivered now.
  PendingEntry* AddPending(const StreamId& id, StreamConsumer* c, int64_t now_ms);
  // Removes a pending entry (XACK); false if it was not pending.
  bool Ack(const StreamId& id);
  // Moves an existing pending entry to consumer `c`.
  void Reassign(PendingEntry* pe, const StreamId& id, StreamConsumer* c);
  // XNACK: releases a pending entry from its consumer (delivery time 0, queued last among
  // the nacked), or with pe == nullptr creates it released with delivery count 0.
  PendingEntry* Nack(PendingEntry* pe, const StreamId& id);
  size_t NackedCount() const;

  uint64_t nack_counter = 0;
  size_t MemoryUsage() const;
};

// Redis 8.6's idempotent producers (XADD IDMP pid iid / IDMPAUTO pid): per producer id,
// the idempotent ids recorded (with the entry id each produced and when), oldest first,
// at most `maxsize` per producer and for `duration` seconds; plus the stream's counters.
struct StreamIdmp {
  struct IidRecord {
    std::string iid;
    StreamId id;
    int64_t time_ms = 0;
  };
  struct Producer {
    std::deque<IidRecord> order;                       // insertion order
    std::map<std::string, StreamId, std::less<>> index;  // iid -> entry id
  };
  std::map<std::string, Producer, std::less<>> producers;
  uint64_t tracked = 0;          // iids-tracked
  uint64_t iids_added = 0;       // iids-added
  uint64_t iids_duplicates = 0;  // iids-duplicates

  // Drops the records older than `duration_s` seconds at `now_ms` (and empty producers).
  // Redis 8.8 drops them in a periodic sweep, up to about a second later.
  void Expire(int64_t now_ms, int64_t duration_s);
  // Producers and records not expired at `now_ms` (XINFO STREAM, which changes nothing).
  void CountLive(int64_t now_ms, int64_t duration_s, uint64_t* pids, uint64_t* iids) const;
  const StreamId* Find(std::string_view pid, std::string_view iid) const;
  // Records (pid, iid) -> id, dropping the producer's oldest beyond `maxsize`. A record's
  // time is its entry id's (as Redis 8.8 keeps it: an old id's record expires at once).
  void Record(std::string_view pid, std::string_view iid, const StreamId& id, int64_t maxsize);
  // Forgets every record (XCFGSET changing a setting); the counters stay.
  void Clear();
  size_t MemoryUsage() const;
};

class StreamBlock;

class StreamValue {
 public:
  StreamValue();
  ~StreamValue();
  StreamValue(StreamValue&&) noexcept;
  StreamValue& operator=(StreamValue&&) noexcept;
  StreamValue(const StreamValue&) = delete;
  StreamValue& operator=(const StreamValue&) = delete;

  // A deep copy (COPY).
  StreamValue Clone() const;

  uint64_t length() const { return length_; }
  const StreamId& last_id() const { return last_id_; }
  const StreamId& max_deleted_id() const { return max_deleted_id_; }
  uint64_t entries_added() const { return entries_added_; }
  void set_last_id(const StreamId& id) { last_id_ = id; }
  void set_max_deleted_id(const StreamId& id) { max_deleted_id_ = id; }
  void set_entries_added(uint64_t n) { entries_added_ = n; }

  // The first / last live entry's id (0-0 when empty).
  StreamId FirstId() const;
  StreamId LastEntryId() const;

  // Appends an entry; `id` must be greater than last_id(). `fv` alternates field, value.
  void Append(const StreamId& id, std::span<const std::string_view> fv,
              const StreamNodeLimits& limits);

  // Visits live entries with ids in [start, end] (ascending, or descending with `rev`),
  // at most `count` of them (0 = all), until the visitor returns false. Returns the
  // number visited.
  size_t Range(const StreamId& start, const StreamId& end, bool rev, size_t count,
               StreamVisitor visit) const;
  // Visits one live entry; false if there is none with that id.
  bool Get(const StreamId& id, StreamVisitor visit) const;
  bool Contains(const StreamId& id) const;

  // Deletes a live entry (XDEL); false if there was none. Does not touch max_deleted_id.
  bool Delete(const StreamId& id);

  // Trims as Redis's streamTrim: MAXLEN (keep at most `maxlen`) or MINID (drop entries
  // below `minid`); `approx` only drops whole blocks; `limit` (approx only, 0 = none)
  // bounds the entries dropped. Returns the number of entries deleted.
  // `refs` (Redis 8.2's XADD/XTRIM KEEPREF | DELREF | ACKED): kKeep leaves the groups' PELs
  // alone, kDelete also removes the trimmed entries from them, kAcked trims only entries no
  // group still needs (see Referenced) and skips the others, going on past them.
  struct TrimSpec {
    enum Kind { kNone, kMaxLen, kMinId } kind = kNone;
    enum class Refs { kKeep, kDelete, kAcked };
    uint64_t maxlen = 0;
    StreamId minid;
    bool approx = false;
    int64_t limit = 0;
    Refs refs = Refs::kKeep;
  };
  // With `removed`, the ids of the deleted entries are appended to it (ACKED trims depend
  // on the block layout, so they are replayed by their effect).
  int64_t Trim(const TrimSpec& spec, std::vector<StreamId>* removed = nullptr);

  // Whether a deleted entry may lie in [start, end] (Redis's streamRangeHasTombstones).
  bool RangeHasTombstones(const StreamId& start, const StreamId& end) const;
  // The logical read counter of `id` if it can be known (Redis's
  // streamEstimateDistanceFromFirstEverEntry), else kInvalidEntriesRead.
  int64_t EstimateDistance(const StreamId& id) const;
  // A group's lag, or nullopt when it cannot be computed.
  std::optional<int64_t> Lag(const StreamGroup& g) const;

  // Whether a group still needs the entry: it is pending somewhere, or some group has
  // not been delivered it yet (Redis 8.2's ACKED condition).
  bool Referenced(const StreamId& id) const;
  // Removes the entry from every group's PEL (DELREF).
  void RemoveReferences(const StreamId& id);

  // Consumer groups, ordered by name.
  StreamGroup* FindGroup(std::string_view name);
  StreamGroup* CreateGroup(std::string_view name, const StreamId& last_id, int64_t entries_read);
  bool DestroyGroup(std::string_view name);
  const std::map<std::string, std::unique_ptr<StreamGroup>, std::less<>>& groups() const {
    return groups_;
  }

  // IDMP settings (0: not set, the server's stream-idmp-* apply) and state (null until used).
  int64_t idmp_duration() const { return idmp_duration_; }
  int64_t idmp_maxsize() const { return idmp_maxsize_; }
  void set_idmp_duration(int64_t s) { idmp_duration_ = static_cast<uint32_t>(s); }
  void set_idmp_maxsize(int64_t n) { idmp_maxsize_ = static_cast<uint32_t>(n); }
  StreamIdmp* idmp() { return idmp_.get(); }
  const StreamIdmp* idmp() const { return idmp_.get(); }
  StreamIdmp& EnsureIdmp();

  size_t BlockCount() const { return blocks_.size(); }
  size_t MemoryUsage() const;

 private:
  // Index of the block that may hold `id` (the last block whose first id <= id), or
  // blocks_.size() when none.
  size_t BlockFor(const StreamId& id) const;
  void RemoveBlock(size_t i);

  std::deque<StreamBlock*> blocks_;
  uint64_t length_ = 0;
  StreamId last_id_;
  StreamId max_deleted_id_;
  uint64_t entries_added_ = 0;
  std::map<std::string, std::unique_ptr<StreamGroup>, std::less<>> groups_;
  uint32_t idmp_duration_ = 0;
  uint32_t idmp_maxsize_ = 0;
  std::unique_ptr<StreamIdmp> idmp_;
};

}  // namespace hotkv::types

#endif  // HOTKV_TYPES_STREAM_H_
