// The record loop of an RDB file, shared by LoadFile (one thread) and LoadFileParallel
// (values decoded and handed over by lane threads): opcodes, aux fields, functions and
// the checksum are handled by ScanFile; each key goes to a KeySink, either decoded or —
// when the sink asks for it and SkipValue knows the type — as the byte range of its
// still-encoded value inside the mapped file.
//
// Thread safety: ScanFile runs on the calling thread; a sink that hands records to
// other threads must be done with them before Finish returns (the file is unmapped after).
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

#include "rdb/rdb.h"

namespace hotkv::rdb {

// One key whose value is still encoded: [value, value_end) of the mapped file.
struct RawKey {
  size_t offset = 0;      // of the record's type byte, for error messages
  uint8_t type = 0;
  std::string key;        // copied: an encoded key lives in the scanner's scratch
  const uint8_t* value = nullptr;
  const uint8_t* value_end = nullptr;
  LoadedKey meta;         // db, expiry, IDLE, FREQ (entry stays null)
};

class KeySink {
 public:
  virtual ~KeySink() = default;
  // Whether this sink takes values of `type` undecoded (only asked for types SkipValue
  // can skip).
  virtual bool WantsRaw(uint8_t type) const = 0;
  virtual Status Decoded(size_t offset, LoadedKey&& k) = 0;
  virtual Status Raw(RawKey&& k) = 0;
  // Called once, before the file is unmapped, with the scan's own outcome; returns the
  // load's outcome (the scan's error, or one the sink met at a lower file offset).
  virtual Status Finish(Status scan) = 0;
};

// "path: offset N: message", the form of every load error.
Status LoadError(const std::string& path, size_t offset, const std::string& message);

Result<LoadStats> ScanFile(const std::string& path, const LoadOptions& opts, KeySink& sink,
                           const std::function<void(uint64_t, uint64_t)>& on_progress);

}  // namespace hotkv::rdb
