// ExtensionValue: the seam for key types that live outside engine/ (the AI caches of
// ai/, and any later capability folder). A key of such a type is an Entry of type
// kValueTypeExtension whose object is an ExtensionValue*; the engine, rdb/ and
// persistence/ reach the value only through this interface, so they never include the
// folder that defines it.
//
//   Entry (kValueTypeExtension) -> ExtensionValue* (owned by the entry; Entry::Free deletes it)
//                          -> type(): a registered ExtensionType (TYPE name, RDB id, loader)
//
// What the interface answers:
//   - TYPE / SCAN TYPE: type().type_name; OBJECT ENCODING: EncodingName().
//   - MEMORY USAGE: MemoryUsage(); UNLINK / lazy free: FreeEffort() (Redis's
//     lazyfreeGetFreeEffort: above 64 the value is freed by the lazy-free thread).
//   - COPY: Clone() (a deep copy; RENAME/MOVE keep the object).
//   - RDB (files, DUMP/RESTORE, DEBUG DIGEST-VALUE): Save() writes Redis's self-describing
//     module opcode stream (RedisModule_SaveUnsigned & co.) after a RDB_TYPE_MODULE_2 type
//     byte and the 64-bit module id of type().rdb_name + encver (moduleTypeEncodeId), so a
//     Redis without the module refuses the file or payload cleanly ("unknown module type")
//     instead of misreading it. The loader is found by that id in the registry below.
//   - AOF rewrite without the RDB preamble: Rewrite() emits the commands that rebuild the
//     value (the rewrite adds PEXPIREAT for the key's TTL).
//
// Thread safety: an ExtensionValue is guarded by its key's shard lock like any value;
// an implementation whose commands run outside the lock (self_locking, as vector sets)
// keeps a shared_ptr to a thread-safe object inside and makes these methods safe to call
// concurrently with those commands. The registry is written at start-up (before any
// loading) and read-only afterwards.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "engine/entry.h"

namespace hotkv {

// The ValueType of extension keys. Declared here rather than as an enumerator in
// entry.h, which nearly every file includes, so that adding the seam rebuilt a handful
// of files; TYPE names come from TypeName(const Entry&) below.
inline constexpr ValueType kValueTypeExtension = static_cast<ValueType>(8);

// The name TYPE and SCAN TYPE use: TypeName(e.type()), or an extension value's own name.
std::string_view TypeName(const Entry& e);

// The RDB writer an ExtensionValue saves through: each call is one module opcode
// (UINT, SINT, DOUBLE, STRING) and its value.
class ExtensionWriter {
 public:
  virtual void Unsigned(uint64_t v) = 0;
  virtual void Signed(int64_t v) = 0;
  virtual void Double(double v) = 0;
  virtual void String(std::string_view s) = 0;

 protected:
  ~ExtensionWriter() = default;
};

// The RDB reader a loader reads through. Each read checks the opcode; false means the
// reader has failed (the load is refused with its message) and every later read fails.
class ExtensionReader {
 public:
  virtual bool Unsigned(uint64_t* v) = 0;
  virtual bool Signed(int64_t* v) = 0;
  virtual bool Double(double* v) = 0;
  virtual bool String(std::string* s) = 0;
  // Refuses the value with `message`; always returns false.
  virtual bool Fail(std::string message) = 0;
  // Bytes left in the payload or file: bounds a count read from the data before
  // allocating for it.
  virtual size_t remaining() const = 0;

 protected:
  ~ExtensionReader() = default;
};

class ExtensionValue;

// One extension key type. Registered once (static storage), never freed.
struct ExtensionType {
  // TYPE and SCAN TYPE name (e.g. "scache").
  std::string_view type_name;
  // The 9-character module type name of the RDB id, from Redis's module-name charset
  // (A-Z a-z 0-9 - _), e.g. "hotkv-sca".
  std::string_view rdb_name;
  // The encoding version written (0..1023); the loader gets the version read and must
  // accept every version up to this one.
  int encver = 1;
  // Reads a value Save() wrote with `encver`; null after `r.Fail(...)` (or a failed read).
  std::unique_ptr<ExtensionValue> (*load)(ExtensionReader& r, int encver) = nullptr;
};

class ExtensionValue {
 public:
  virtual ~ExtensionValue() = default;

  virtual const ExtensionType& type() const = 0;
  // OBJECT ENCODING ("raw", as Redis reports module values, unless overridden).
  virtual std::string_view EncodingName() const { return "raw"; }
  // Heap bytes this value owns, *this included.
  virtual size_t MemoryUsage() const = 0;
  // Allocations freeing it walks (lazy free above 64).
  virtual size_t FreeEffort() const { return 1; }
  // A deep copy (COPY): nothing shared with this value.
  virtual std::unique_ptr<ExtensionValue> Clone() const = 0;
  // The value as module opcodes (after the module id; the EOF opcode is written by rdb/).
  virtual void Save(ExtensionWriter& w) const = 0;
  // The commands that rebuild this value under `key`, each passed to `emit` in order.
  using EmitCommand = std::function<void(const std::vector<std::string>& args)>;
  virtual void Rewrite(std::string_view key, const EmitCommand& emit) const = 0;
};

// Redis's moduleTypeEncodeId: the 9 characters of `rdb_name` 6 bits each, then 10 bits of
// encoding version. `rdb_name` must be 9 characters of the module-name charset.
uint64_t ExtensionModuleId(std::string_view rdb_name, int encver);

// Registers `t` (static storage) for loading by module id. Idempotent for the same
// pointer; call before any RDB or AOF is loaded.
void RegisterExtensionType(const ExtensionType* t);
// The registered type whose rdb_name matches `module_id`'s name with an encoding version
// it reads (<= its encver), the version in `*encver`; null when none.
const ExtensionType* FindExtensionType(uint64_t module_id, int* encver);

// Entries of type kValueTypeExtension.
Entry* NewExtensionEntry(std::string_view key, std::unique_ptr<ExtensionValue> value,
                         bool expire_block);
inline ExtensionValue* AsExtension(const Entry& e) {
  return e.type() == kValueTypeExtension ? e.As<ExtensionValue>() : nullptr;
}

}  // namespace hotkv
