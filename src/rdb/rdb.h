// rdb/: Redis's RDB format — the encoding of values (DUMP payloads) and of whole
// snapshot files (dump.rdb) — as a library with no server dependencies. It turns engine
// entries (engine/entry.h) into RDB bytes and RDB bytes back into new entries.
//
// What it reads: every encoding Redis 2.x..8.x writes up to kMaxReadVersion (plain
// lists/sets/zsets/hashes, ziplists, zipmaps, intsets, listpacks, quicklist 1 and 2,
// LZF and integer-encoded strings, binary and ASCII doubles, aux fields, RESIZEDB,
// IDLE/FREQ, second and millisecond expiry, function libraries (LoadOptions::on_function)), and Redis 8's
// vector sets (the "vectorset" module type), hashes with field expiry (Redis 7.4+'s
// HASH_METADATA and HASH_LISTPACK_EX, GA and pre-GA), streams up to
// RDB_TYPE_STREAM_LISTPACKS_3 (rdb/stream_codec.h). Other module values and Redis 8.6's
// stream encodings are refused with a clear error.
// What it writes: RDB version kWriteVersion (what Redis 7.0 loads) with plain
// encodings Redis 7.0..8.x and redis-check-rdb accept; vector sets in Redis 8's module
// encoding (loadable by Redis 8 only); hashes with field TTLs as HASH_METADATA, in files
// and payloads of version kFieldExpiryVersion (loadable by Redis 7.4+ only).
//
//   std::string payload = rdb::DumpPayload(*entry, /*compress=*/true);   // DUMP
//   Result<Entry*> e = rdb::LoadDumpPayload(payload, "key", limits);     // RESTORE
//
//   rdb::FileWriter w(fd, {.compress = true, .checksum = true});
//   w.Begin(aux); w.SelectDb(0, n, n_ttl); w.WriteKey(*e, expire_ms); w.Finish();
//
//   rdb::LoadFile(path, opts, [&](rdb::LoadedKey k) { ...insert k.entry...; return Status(); });
//
// Thread safety: free functions are reentrant; a FileWriter belongs to one thread.
// Entries passed in must not change during the call (caller holds the shard lock, or
// runs in a forked child).
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/status.h"
#include "engine/entry.h"
#include "types/encoding_limits.h"
#include "types/zset_defs.h"

namespace hotkv::rdb {

// RDB version of the files and DUMP payloads HotKV writes: Redis 7.0's, so that Redis
// 7.0 and every later version load them.
inline constexpr int kWriteVersion = 10;
// RDB version of files and DUMP payloads that hold a hash with field expiry
// (RDB_TYPE_HASH_METADATA, Redis 7.4+).
inline constexpr int kFieldExpiryVersion = 12;
// Highest RDB version HotKV reads (Redis 8.x; Redis 8.8 writes version 14).
inline constexpr int kMaxReadVersion = 14;

struct WriteOptions {
  bool compress = true;  // rdbcompression: LZF for strings longer than 20 bytes
  bool checksum = true;  // rdbchecksum: CRC64 at the end of a file (0 when off)
  // The file's RDB version: kFieldExpiryVersion when it may hold a hash with field TTLs.
  int version = kWriteVersion;
};

// CRC64 as Redis computes it (Jones polynomial, reflected; crc64(0, "123456789", 9) ==
// 0xe9c6d914c4b8d9ca).
uint64_t Crc64(uint64_t crc, const void* data, size_t len);

// ---- DUMP / RESTORE ----

// The DUMP payload of a value: object type, object, 2-byte RDB version (little endian),
// 8-byte CRC64 of everything before (little endian). An empty string for a value that
// cannot be serialized (a vector set with a non-cosine metric or made by
// VSIM.CREATEINDEX: Redis's format has no place for them).
std::string DumpPayload(const Entry& e, bool compress);

// Checks version and checksum of a DUMP payload (Redis's verifyDumpPayload): false means
// RESTORE replies "ERR DUMP payload version or checksum are wrong".
bool VerifyDumpPayload(std::string_view payload);

// Decodes a verified payload into a new entry under `key` (no TTL set; the caller sets
// it). An error means RESTORE replies "ERR Bad data format". Collections are built with
// `limits` deciding their encoding, as a write would.
Result<Entry*> LoadDumpPayload(std::string_view payload, std::string_view key,
                               const types::EncodingLimits& limits);
// The same, with the sorted-set limits (zset-max-listpack-entries / -value) too; the
// overload above uses Redis's defaults for them.
Result<Entry*> LoadDumpPayload(std::string_view payload, std::string_view key,
                               const types::EncodingLimits& limits,
                               const types::ZSetLimits& zset_limits);

// ---- FUNCTION DUMP / RESTORE ----

// Redis's FUNCTION DUMP payload: per library the FUNCTION2 opcode and its code as an RDB
// string, then the 2-byte RDB version and the CRC64 (as DUMP's footer).
std::string FunctionDumpPayload(const std::vector<std::string>& codes, bool compress);
// The library codes of a FUNCTION RESTORE payload; errors carry Redis's texts ("DUMP
// payload version or checksum are wrong", "given type is not a function", ...).
Result<std::vector<std::string>> ParseFunctionPayload(std::string_view payload);

// ---- Files ----

// Writes an RDB file to a file descriptor through an internal buffer, computing the
// checksum as it goes. Errors are I/O errors naming the system call.
class FileWriter {
 public:
  FileWriter(int fd, WriteOptions opts);
  ~FileWriter();
  FileWriter(const FileWriter&) = delete;
  FileWriter& operator=(const FileWriter&) = delete;

  // "REDIS0010" and the aux fields (redis-ver, redis-bits, ctime, used-mem, aof-base…).
  Status Begin(const std::vector<std::pair<std::string, std::string>>& aux);
  // SELECTDB + RESIZEDB for the keys of database `db` that follow.
  Status SelectDb(int db, uint64_t keys, uint64_t keys_with_ttl);
  // One key: [EXPIRETIME_MS] [IDLE|FREQ] type key value. expire_ms < 0: no TTL.
  // A vector set Redis's format cannot hold (non-cosine metric, VSIM.CREATEINDEX) is
  // refused: an error Status, nothing of the key written.
  // idle_seconds / lfu_freq are written only when given (Redis writes them when the
  // maxmemory policy is LRU / LFU).
  Status WriteKey(const Entry& e, int64_t expire_ms, std::optional<uint64_t> idle_seconds = {},
                  std::optional<uint8_t> lfu_freq = {});
  // One function library (FUNCTION2 opcode and its code), written after Begin and before
  // the keys, as Redis writes its function section.
  Status WriteFunction(std::string_view code);
  // Bytes made by a ChunkEncoder (SELECTDB and keys), written as they are; the checksum
  // covers them as any other part of the file.
  Status WriteRaw(std::string_view bytes);
  // EOF and the checksum; flushes. Does not fsync or close.
  Status Finish();
  uint64_t bytes_written() const;

 private:
  struct Impl;
  Impl* impl_;
};

// Encodes parts of a file body into a memory buffer, for snapshots that serialize
// several pieces of the keyspace in parallel and hand them to one FileWriter
// (FileWriter::WriteRaw). A file may hold any number of SELECTDB opcodes, each naming
// the database of the keys that follow.
//
//   std::string chunk;
//   rdb::ChunkEncoder enc(&chunk, /*compress=*/true);
//   enc.SelectDb(0); enc.Key(*e, -1);  ...  writer.WriteRaw(chunk);
class ChunkEncoder {
 public:
  // `defer_compression` (with `compress`): the strings LZF may shrink are written raw
  // and remembered, and CompressDeferred() rewrites them later as a compressing encoder
  // would have written them: the same bytes, but the encoding (a copy) can run under a
  // lock and the compression after it is released.
  ChunkEncoder(std::string* out, bool compress, bool defer_compression = false);
  ~ChunkEncoder();
  ChunkEncoder(const ChunkEncoder&) = delete;
  ChunkEncoder& operator=(const ChunkEncoder&) = delete;

  // SELECTDB `db` (no RESIZEDB).
  void SelectDb(int db);
  // One key, as FileWriter::WriteKey writes it (same arguments, same errors); on an
  // error nothing of the key is appended.
  Status Key(const Entry& e, int64_t expire_ms, std::optional<uint64_t> idle_seconds = {},
             std::optional<uint8_t> lfu_freq = {});
  // With defer_compression: compresses the strings written raw so far, in `out` (which
  // must hold what this encoder wrote, at the same offsets). Needs no access to the keys.
  void CompressDeferred();

 private:
  struct Impl;
  Impl* impl_;
};

// One large collection key encoded in several steps, for snapshots that must not hold a
// lock for the whole key (persistence/snapshot_walk.cc). The key's bytes are the same as
// ChunkEncoder::Key writes for it (same type, same element order for lists and sorted
// sets); the caller concatenates what each step appends. The value must not change
// between the steps: the count is written first.
//
//   rdb::SlicedKeyEncoder k(*e, expire_ms, idle, freq, compress);    // Sliceable(*e)
//   k.Begin(&buf);  while (!k.Next(*e, &buf, 4096, 64 << 10)) { ...unlock, lock... }
class SlicedKeyEncoder {
 public:
  // A list, set, sorted set, or hash without field TTLs: the types whose elements a
  // step can resume at.
  static bool Sliceable(const Entry& e);
  // The number of elements (fields for a hash).
  static size_t Elements(const Entry& e);

  SlicedKeyEncoder(const Entry& e, int64_t expire_ms, std::optional<uint64_t> idle_seconds,
                   std::optional<uint8_t> lfu_freq, bool compress);
  // [EXPIRETIME_MS] [IDLE|FREQ] type key count.
  void Begin(const Entry& e, std::string* out);
  // Appends the next elements, stopping once `max_elements` were written or `out` grew by
  // `max_bytes`; returns true when the key is complete. A value that no longer holds the
  // count written by Begin (it changed between steps) sets error() and returns true.
  bool Next(const Entry& e, std::string* out, size_t max_elements, size_t max_bytes);
  const std::string& error() const { return error_; }
  uint64_t written() const { return written_; }

 private:
  int64_t expire_ms_;
  std::optional<uint64_t> idle_;
  std::optional<uint8_t> freq_;
  bool compress_;
  uint64_t total_ = 0;
  uint64_t written_ = 0;
  uint64_t cursor_ = 0;  // Scan cursor (sets, hashes)
  std::string error_;
};

// One key read from a file: the caller takes ownership of `entry`. An entry with an
// expiry is allocated with its expire block (Entry::has_expire_block), the TTL not yet
// set: the caller sets it (SetExpireMs) when it inserts the key.
struct LoadedKey {
  int db = 0;
  Entry* entry = nullptr;
  int64_t expire_ms = -1;                 // absolute unix time in ms; -1: none
  std::optional<uint64_t> idle_seconds;   // IDLE opcode
  std::optional<uint8_t> lfu_freq;        // FREQ opcode
};

struct LoadOptions {
  types::EncodingLimits limits;  // encodings of the collections built
  int num_dbs = 16;              // a SELECTDB past this is an error, as in Redis
  bool verify_checksum = true;   // rdbchecksum: a CRC64 of 0 in the file is never checked
  types::ZSetLimits zset_limits;  // zset-max-listpack-entries / -value of the zsets built
  // The code of each function library in the file (FUNCTION2 opcode), in file order; an
  // error stops the load. Unset: the libraries are skipped.
  std::function<Status(std::string_view code)> on_function;
};

struct LoadStats {
  uint64_t keys = 0;
  uint64_t bytes = 0;
  int version = 0;
  std::vector<std::pair<std::string, std::string>> aux;
};

// Reads a whole RDB file. `on_key` gets every key in file order (an error it returns
// stops the load and is passed back). `on_progress(bytes_read, total_bytes)` is called
// now and then (INFO loading fields). Errors name the file, the byte offset and what was
// wrong ("Short read or OOM loading DB", "Unknown RDB encoding type 42", "Wrong RDB
// checksum", ...). Keys already handed to on_key before an error stay the caller's.
Result<LoadStats> LoadFile(const std::string& path, const LoadOptions& opts,
                           const std::function<Status(LoadedKey&&)>& on_key,
                           const std::function<void(uint64_t, uint64_t)>& on_progress = {});

// LoadFile with `lanes` threads decoding values and calling on_key (rdb/parallel_loader.cc):
// the calling thread reads the file in order, skipping over each string, list, set,
// sorted-set and hash value (streams and module values it decodes itself), and the lane
// lane_of(key) decodes the value and calls on_key — so on_key runs on `lanes` threads at
// once, each lane's keys in file order. The error returned is the one at the lowest file
// offset, as LoadFile reports it. lanes <= 1: LoadFile.
Result<LoadStats> LoadFileParallel(const std::string& path, const LoadOptions& opts, int lanes,
                                   const std::function<int(std::string_view key)>& lane_of,
                                   const std::function<Status(LoadedKey&&)>& on_key,
                                   const std::function<void(uint64_t, uint64_t)>& on_progress = {});

}  // namespace hotkv::rdb
