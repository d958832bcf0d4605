// WriteStream: every change to the data, as the Redis commands that replay it, in an order
// consistent with each key's history. The AOF writes it; replication will ship it.
//
//   producer (a worker, with the command's shard locks held)
//     Append(db, {"SET", "k", "v", "PXAT", "1700000000000"})   -> this thread's pending record
//     Commit()                                                -> takes a sequence number and
//                                                                moves the record into this
//                                                                thread's buffer
//   consumer (the AOF thread)
//     Drain(&out, &db)   -> every committed record of every thread, merged by sequence
//                           number, as RESP (a SELECT where the database changes)
//
// Ordering: the sequence number is taken while the shard locks of the command are held, so
// two commands that touch the same key get numbers in the order they ran; the consumer
// merges the per-thread buffers by number. No global lock on the producer side: one
// atomic increment and the thread's own buffer lock, which only the consumer contends.
// Drain takes every thread's buffer lock at once, so what it takes is exactly the records
// numbered below some n: no hole can be filled later.
//
// Cost when nobody consumes: active() is one relaxed load; the dispatcher skips all of it.
//
// Which commands go in and how they are rewritten (relative TTL -> PXAT/PEXPIREAT, SPOP
// -> SREM, blocking pops -> the pop they did ...) is decided by the dispatcher (a write
// command that changed the dirty counter goes in as it ran) and by the handlers, through
// CommandContext::PropagateAs. See docs/persistence.md, "Write stream".
//
// Thread safety: producer calls act on the calling thread's state; Drain and the consumer
// calls are for one consumer thread at a time (serialised by the consumer).
#pragma once

#include <atomic>
#include <cstdint>
#include <initializer_list>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "common/spin_lock.h"
#include "engine/keyspace.h"

namespace hotkv {

class WriteStream {
 public:
  WriteStream();
  ~WriteStream();
  WriteStream(const WriteStream&) = delete;
  WriteStream& operator=(const WriteStream&) = delete;

  // Consumers: while at least one is registered, producers record.
  void AddConsumer() { consumers_.fetch_add(1, std::memory_order_acq_rel); }
  void RemoveConsumer() { consumers_.fetch_sub(1, std::memory_order_acq_rel); }
  bool active() const { return consumers_.load(std::memory_order_relaxed) != 0; }

  // --- producer side (calling thread's pending record) ---

  // Appends one command run in database `db` (-1: no database, e.g. MULTI/EXEC).
  // When `args` is the very vector of the raw request set on this thread and those bytes
  // are the command's canonical RESP, they are copied as they came (no re-encoding).
  void Append(int db, const std::vector<std::string_view>& args);
  void Append(int db, std::initializer_list<std::string_view> args);
  // Append + Commit of a record of this one command, when nothing is pending on this
  // thread and no MULTI is open: the bytes go straight into the thread buffer, under its
  // lock (no copy through the pending record). Otherwise the same as Append (the
  // caller's Commit commits it). Call with the command's shard locks held. Returns the
  // number given (0: appended to the pending record).
  uint64_t AppendCommit(int db, const std::vector<std::string_view>& args);
  // The request the calling thread is about to dispatch: its parsed `args` and the RESP
  // bytes the client sent for it, as the request parser accepted them (which makes them
  // canonical RESP; empty: none, e.g. an inline command). Cleared with
  // (nullptr, {}) once it ran. Only a pointer and a view are kept.
  static void SetRawRequest(const std::vector<std::string_view>* args, std::string_view raw) {
    t_raw_args_ = args;
    t_raw_ = raw;
  }
  // Kept across commands run in the middle of another (Worker::ServeWhileBusy).
  struct RawRequest {
    const std::vector<std::string_view>* args;
    std::string_view raw;
  };
  static RawRequest SaveRawRequest() { return {t_raw_args_, t_raw_}; }
  static void RestoreRawRequest(const RawRequest& r) { SetRawRequest(r.args, r.raw); }
  // Marks the running command as propagated by hand (PropagateAs, or nothing at all), so
  // that the dispatcher does not add it as it ran. Reset by BeginCommand.
  void MarkRewritten();
  void BeginCommand();
  bool rewritten();
  // Inside EXEC: the commands appended until EndMulti are wrapped in MULTI ... EXEC when
  // there is more than one (as Redis 7); Commit() waits for EndMulti.
  void BeginMulti();
  void EndMulti();
  // Gives the pending record the next sequence number and hands it to the consumer.
  // Call with the shard locks of everything the record changed still held. Returns the
  // number (0: nothing pending, or inside a MULTI).
  uint64_t Commit();
  // The last sequence number this thread committed (group commit waits for it).
  uint64_t LastCommittedByThisThread();

  // --- consumer side ---

  // Moves every committed record into `out` as RESP, in sequence order. `db` is the
  // database the consumer's output is in (SELECT is emitted when a record's differs; -1
  // at the start of a file). Returns n: every record numbered up to n is now in `out` or
  // was drained before (nothing numbered <= n can still come).
  uint64_t Drain(std::string* out, int* db);

  struct Mark {  // an entry of a thread buffer (write_stream.cc)
    uint64_t seq;
    int64_t db;
    size_t end;
  };
  struct Taken;
  struct Piece {
    const char* data;
    size_t size;
  };
  class Drained {
   public:
    Drained();
    ~Drained();
    Drained(const Drained&) = delete;
    Drained& operator=(const Drained&) = delete;
    std::vector<Piece> pieces;
    size_t bytes = 0;  // the pieces' total size

   private:
    friend class WriteStream;
    struct Place {
      uint32_t source;  // index in taken_, or UINT32_MAX: selects_
      size_t offset;
      size_t size;
    };
    std::vector<Taken> taken_;
    std::vector<Place> places_;
    std::string selects_;
  };
  // The same drain without copying the records: `pieces` are the merged runs where they
  // lie in the taken thread buffers (and the SELECTs between them), in order, for one
  // writev. Valid until ReleaseDrained (or the next DrainPieces, which releases first);
  // release before any other Drain. With several producing threads, whose records
  // interleave one by one, this saves the consumer a copy of every record.
  uint64_t DrainPieces(Drained* d, int* db);
  void ReleaseDrained(Drained* d);
  // Highest sequence number handed out so far.
  uint64_t last_seq() const { return seq_.load(std::memory_order_acquire); }

  // The keyspace observer that turns expired and evicted keys into DEL, FLUSHDB/FLUSHALL
  // and SWAPDB into those commands. The server registers it.
  KeyObserver* observer() { return observer_.get(); }

  // RESP encoding of one command (used by the AOF's base writer too).
  static void EncodeCommand(std::string* out, const std::vector<std::string_view>& args);

  struct ThreadBuffer;  // one per producing thread (write_stream.cc)

 private:
  ThreadBuffer& Local() {
    if (t_buffer_stream_ == id_) [[likely]] {
      return *t_buffer_;
    }
    return Register();
  }
  ThreadBuffer& Register();  // first use of this stream on the calling thread
  // Whether `args` is the raw request set on this thread and its bytes are what Encode
  // would write for it.
  static bool RawIsCanonical(const std::vector<std::string_view>& args);
  // Drain's steps: take every thread's committed records, merge them by number, give
  // the buffers back as spares.
  uint64_t TakeAll(std::vector<Taken>* taken);
  template <typename Run, typename Select>
  static void Merge(std::vector<Taken>& taken, int* db, Run&& run, Select&& select);
  static void ReturnSpares(std::vector<Taken>& taken);

  // The calling thread's buffer of the stream it used last (one stream per server).
  static thread_local ThreadBuffer* t_buffer_;
  static thread_local uint64_t t_buffer_stream_;
  // Defined here, constant-initialised: other files (the worker, once per command)
  // access them directly instead of through a TLS wrapper call.
  static inline thread_local constinit const std::vector<std::string_view>* t_raw_args_ = nullptr;
  static inline thread_local constinit std::string_view t_raw_{};

  // Read by every command (active(), Local()): kept off seq_'s cache line, which every
  // recorded write of every worker changes (with them on one line, each SET of one
  // worker made the next command of the other miss on the line).
  std::atomic<int> consumers_{0};
  const uint64_t id_;
  alignas(64) std::atomic<uint64_t> seq_{0};
  char seq_line_pad_[64 - sizeof(std::atomic<uint64_t>)];
  std::mutex registry_mu_;  // registration of thread buffers (once per thread)
  std::vector<std::unique_ptr<ThreadBuffer>> buffers_;
  std::atomic<size_t> buffer_count_{0};
  std::unique_ptr<KeyObserver> observer_;
};

}  // namespace hotkv
