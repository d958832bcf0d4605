// AofManifest: Redis 7's multi-part AOF layout, read and written exactly as Redis does,
// so Redis 7+ loads HotKV's AOF directory and HotKV loads Redis's.
//
//   <dir>/<appenddirname>/
//     appendonly.aof.1.base.rdb      the base: an RDB (aof-use-rdb-preamble yes) or .aof
//     appendonly.aof.1.incr.aof      commands appended since the base
//     appendonly.aof.manifest        one line per file:
//       file appendonly.aof.1.base.rdb seq 1 type b
//       file appendonly.aof.1.incr.aof seq 1 type i
//
// Types: b (base, at most one, first), h (history, deleted after a rewrite), i (incr, in
// seq order). The manifest is replaced atomically (temp-<name>.manifest, fsync, rename).
//
// Thread safety: a value type; no shared state.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/status.h"

namespace hotkv::persistence {

struct AofFileInfo {
  std::string name;
  int64_t seq = 0;
  char type = 'i';  // 'b', 'h' or 'i'
};

struct AofManifest {
  AofFileInfo base;  // name empty: no base
  std::vector<AofFileInfo> incrs;
  std::vector<AofFileInfo> history;
  int64_t cur_base_seq = 0;
  int64_t cur_incr_seq = 0;

  // Parses the manifest's text (`path` names it in errors, as Redis's messages do).
  static Result<AofManifest> Parse(const std::string& text, const std::string& path);
  std::string Format() const;

  // Names as Redis builds them from appendfilename.
  static std::string BaseName(const std::string& prefix, int64_t seq, bool rdb);
  static std::string IncrName(const std::string& prefix, int64_t seq);
  static std::string ManifestName(const std::string& prefix) { return prefix + ".manifest"; }
};

// Reads a whole small file; NotFound when it does not exist.
Result<std::string> ReadWholeFile(const std::string& path);
// Writes `text` to path via a temporary file, fsync and rename (and fsyncs the directory).
Status WriteFileAtomically(const std::string& dir, const std::string& name,
                           const std::string& text);

}  // namespace hotkv::persistence
