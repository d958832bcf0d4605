// rdb/format.h (internal): the constants of the RDB format (opcodes, object types,
// length and string encodings) and the two primitives every other file of rdb/ uses:
//
//   Encoder — appends RDB bytes to a std::string (lengths, strings with Redis's integer
//             and LZF encodings, binary doubles, whole values).
//   Reader  — a bounds-checked cursor over RDB bytes (a DUMP payload or an mmapped
//             file). Every read checks what remains; the first failure records a message
//             and every later read fails too, so callers test once at a convenient point.
//
// Not part of the library's interface (rdb.h); included only by src/rdb/*.cc.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <utility>
#include <vector>
#include <string_view>

#include "common/status.h"
#include "engine/entry.h"
#include "types/encoding_limits.h"
#include "types/zset_defs.h"

namespace hotkv::rdb {

// ---- Object types (the byte before a key) ----
inline constexpr uint8_t kTypeString = 0;
inline constexpr uint8_t kTypeList = 1;
inline constexpr uint8_t kTypeSet = 2;
inline constexpr uint8_t kTypeZSet = 3;
inline constexpr uint8_t kTypeHash = 4;
inline constexpr uint8_t kTypeZSet2 = 5;
inline constexpr uint8_t kTypeModulePreGa = 6;
inline constexpr uint8_t kTypeModule2 = 7;
inline constexpr uint8_t kTypeHashZipmap = 9;
inline constexpr uint8_t kTypeListZiplist = 10;
inline constexpr uint8_t kTypeSetIntset = 11;
inline constexpr uint8_t kTypeZSetZiplist = 12;
inline constexpr uint8_t kTypeHashZiplist = 13;
inline constexpr uint8_t kTypeListQuicklist = 14;
inline constexpr uint8_t kTypeStreamListpacks = 15;
inline constexpr uint8_t kTypeHashListpack = 16;
inline constexpr uint8_t kTypeZSetListpack = 17;
inline constexpr uint8_t kTypeListQuicklist2 = 18;
inline constexpr uint8_t kTypeStreamListpacks2 = 19;
inline constexpr uint8_t kTypeSetListpack = 20;
inline constexpr uint8_t kTypeStreamListpacks3 = 21;
inline constexpr uint8_t kTypeHashMetadataPreGa = 22;
inline constexpr uint8_t kTypeHashListpackExPreGa = 23;
inline constexpr uint8_t kTypeHashMetadata = 24;
inline constexpr uint8_t kTypeHashListpackEx = 25;
inline constexpr uint8_t kTypeStreamListpacks4 = 26;
inline constexpr uint8_t kTypeStreamListpacks5 = 27;
inline constexpr uint8_t kTypeLast = 27;

// ---- Opcodes (file level) ----
// Redis 8.8's per-key module metadata (before the type byte): a class count, then per
// class a 4-byte class spec and a module opcode stream up to its EOF.
inline constexpr uint8_t kOpKeyMeta = 243;
inline constexpr uint64_t kKeyMetaMaxClasses = 7;
inline constexpr uint8_t kOpSlotInfo = 244;
inline constexpr uint8_t kOpFunction2 = 245;
inline constexpr uint8_t kOpFunctionPreGa = 246;
inline constexpr uint8_t kOpModuleAux = 247;
inline constexpr uint8_t kOpIdle = 248;
inline constexpr uint8_t kOpFreq = 249;
inline constexpr uint8_t kOpAux = 250;
inline constexpr uint8_t kOpResizeDb = 251;
inline constexpr uint8_t kOpExpireTimeMs = 252;
inline constexpr uint8_t kOpExpireTime = 253;
inline constexpr uint8_t kOpSelectDb = 254;
inline constexpr uint8_t kOpEof = 255;

// ---- Length / string encodings ----
inline constexpr uint8_t kLen6Bit = 0;
inline constexpr uint8_t kLen14Bit = 1;
inline constexpr uint8_t kLen32Bit = 0x80;
inline constexpr uint8_t kLen64Bit = 0x81;
inline constexpr uint8_t kEncVal = 3;
inline constexpr uint8_t kEncInt8 = 0;
inline constexpr uint8_t kEncInt16 = 1;
inline constexpr uint8_t kEncInt32 = 2;
inline constexpr uint8_t kEncLzf = 3;

// Quicklist 2 node containers.
inline constexpr uint64_t kQuicklistNodePlain = 1;
inline constexpr uint64_t kQuicklistNodePacked = 2;

// Module value opcodes (RDB_MODULE_OPCODE_*), the self-describing module encoding.
inline constexpr uint64_t kModuleOpEof = 0;
inline constexpr uint64_t kModuleOpSint = 1;
inline constexpr uint64_t kModuleOpUint = 2;
inline constexpr uint64_t kModuleOpFloat = 3;
inline constexpr uint64_t kModuleOpDouble = 4;
inline constexpr uint64_t kModuleOpString = 5;

// The 9-character module type name inside a 64-bit module id ("vectorset").
std::string ModuleNameFromId(uint64_t id);

// ---- Writing ----

class Encoder {
 public:
  explicit Encoder(std::string* out, bool compress) : out_(out), compress_(compress) {}
  // Strings over 20 bytes are written raw and their places remembered here, for a later
  // pass that compresses them (ChunkEncoder's defer_compression): {offset of the length,
  // string size}.
  void DeferCompression(std::vector<std::pair<size_t, size_t>>* places) { deferred_ = places; }

  void Byte(uint8_t b) { out_->push_back(static_cast<char>(b)); }
  void Raw(const void* p, size_t n) { out_->append(static_cast<const char*>(p), n); }
  void Len(uint64_t len);
  // rdbSaveRawString: integer encoding for canonical integers within int32, LZF for
  // strings over 20 bytes that shrink by at least 4 bytes (when compressing), else raw.
  void String(std::string_view s);
  void BinaryDouble(double d);
  void U64Le(uint64_t v);
  // The object type byte of an entry (kTypeString, kTypeList, ...).
  static int ObjectType(const Entry& e);
  // The object (no type byte). False, with `error` set, for a value that cannot be
  // represented (some vector sets, see vector_set_codec.h); the output then holds a
  // partial object the caller must drop.
  bool Object(const Entry& e, std::string* error);

 private:
  std::string* out_;
  bool compress_;
  std::string lzf_;  // compression scratch
  std::vector<std::pair<size_t, size_t>>* deferred_ = nullptr;
};

// ---- Reading ----

class Reader {
 public:
  Reader(const uint8_t* begin, const uint8_t* end) : base_(begin), p_(begin), end_(end) {}
  // Reading [pos, end) of a buffer that starts at `base` (offsets count from `base`).
  Reader(const uint8_t* base, const uint8_t* pos, const uint8_t* end)
      : base_(base), p_(pos), end_(end) {}

  bool ok() const { return error_.empty(); }
  const std::string& error() const { return error_; }
  size_t offset() const { return static_cast<size_t>(p_ - base_); }
  size_t remaining() const { return static_cast<size_t>(end_ - p_); }
  const uint8_t* pos() const { return p_; }
  // Records the first error (later ones are dropped); always returns false.
  bool Fail(std::string message);
  bool ShortRead() { return Fail("Short read or OOM loading DB"); }

  bool U8(uint8_t* v);
  bool Bytes(size_t n, const uint8_t** out);
  bool U32Le(uint32_t* v);
  bool U64Le(uint64_t* v);
  // A length (no special encoding allowed).
  bool Len(uint64_t* len);
  // A length that counts items each taking at least `min_item_bytes` bytes of what
  // remains: a corrupt count fails here instead of driving a huge allocation.
  bool Count(uint64_t* n, size_t min_item_bytes);
  // A string in any of its encodings. A plain string is returned as a view of the input;
  // an integer-encoded or compressed one is decoded into `scratch` (so the view lives
  // until `scratch` changes).
  bool String(std::string* scratch, std::string_view* out);
  // Skips a string without decoding it.
  bool SkipString();
  // ZSET's ASCII double (253 nan, 254 +inf, 255 -inf) and ZSET_2's binary double.
  bool AsciiDouble(double* d);
  bool BinaryDouble(double* d);
  // The remaining bytes of a module value's self-describing opcode stream up to its EOF.
  bool SkipModuleOpcodes();

 private:
  const uint8_t* base_;
  const uint8_t* p_;
  const uint8_t* end_;
  std::string error_;
};

// Reads one value of RDB object type `type` into a new entry under `key` (with an
// expire block when `expire_block`). Empty collections fail with `*empty` set (a file
// loader skips such keys, as Redis does; RESTORE refuses them).
Result<Entry*> LoadObject(Reader& r, uint8_t type, std::string_view key, bool expire_block,
                          const types::EncodingLimits& limits,
                          const types::ZSetLimits& zset_limits, bool* empty);

// Whether SkipValue knows where a value of `type` ends without decoding it: strings and
// every list, set, sorted-set and hash encoding; not streams or module values.
bool CanSkipValue(uint8_t type);
// Moves `r` past one value of a type CanSkipValue accepts, reading only its lengths (the
// same length checks as LoadObject; the content is checked when it is decoded).
bool SkipValue(Reader& r, uint8_t type);

}  // namespace hotkv::rdb
