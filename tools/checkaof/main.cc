// hotkv-check-aof: checks an append-only file the way HotKV (and Redis 7) load it.
//
//   hotkv-check-aof [--fix] <dir>/appendonly.aof.manifest   every file the manifest names
//   hotkv-check-aof [--fix] <file>.aof | <file>.rdb          one file
//
// Each file: an RDB base is decoded with the rdb/ library; a command file is parsed
// command by command. A torn last command (or a MULTI without EXEC) at the end of the
// last file is what a crash leaves: reported with its offset, and with --fix the file is
// truncated there (as redis-check-aof --fix). Any other damage is reported with its
// offset and left alone. Exit code 0 when everything is valid (or was fixed), 1 otherwise.
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "persistence/aof_format.h"
#include "persistence/aof_manifest.h"
#include "rdb/rdb.h"

namespace {

using hotkv::Result;
using hotkv::Status;
using namespace hotkv::persistence;

bool EndsWith(const std::string& s, const char* suffix) {
  const size_t n = strlen(suffix);
  return s.size() >= n && s.compare(s.size() - n, n, suffix) == 0;
}

// Returns true when the file is valid (or was fixed).
bool CheckFile(const std::string& path, bool last, bool fix) {
  if (EndsWith(path, ".rdb")) {
    hotkv::rdb::LoadOptions opts;
    Result<hotkv::rdb::LoadStats> st =
        hotkv::rdb::LoadFile(path, opts, [](hotkv::rdb::LoadedKey&& k) {
          hotkv::Entry::Free(k.entry);
          return Status::Ok();
        });
    if (!st.ok()) {
      printf("%s: bad RDB base: %s\n", path.c_str(), st.status().message().c_str());
      return false;
    }
    printf("%s: RDB base is valid (version %d, %llu keys)\n", path.c_str(), st.value().version,
           static_cast<unsigned long long>(st.value().keys));
    return true;
  }
  Result<std::string> data = ReadWholeFile(path);
  if (!data.ok()) {
    printf("%s: %s\n", path.c_str(), data.status().message().c_str());
    return false;
  }
  // An RDB preamble: checked as an RDB, then the commands after its checksum.
  size_t preamble = 0;
  if (data.value().compare(0, 5, "REDIS") == 0) {
    hotkv::rdb::LoadOptions opts;
    Result<hotkv::rdb::LoadStats> st =
        hotkv::rdb::LoadFile(path, opts, [](hotkv::rdb::LoadedKey&& k) {
          hotkv::Entry::Free(k.entry);
          return Status::Ok();
        });
    if (!st.ok()) {
      printf("%s: bad RDB preamble: %s\n", path.c_str(), st.status().message().c_str());
      return false;
    }
    preamble = static_cast<size_t>(st.value().bytes);
    printf("%s: RDB preamble is valid (%zu bytes, %llu keys)\n", path.c_str(), preamble,
           static_cast<unsigned long long>(st.value().keys));
  }
  AofCheck c = CheckAofCommands(std::string_view(data.value()).substr(preamble));
  c.valid_end += preamble;
  c.bad_offset += preamble;
  const size_t size = data.value().size();
  if (c.result == ParseResult::kOk) {
    printf("%s: valid (%llu commands, %zu bytes)\n", path.c_str(),
           static_cast<unsigned long long>(c.commands), size);
    return true;
  }
  if (c.result == ParseResult::kBad) {
    printf("%s: bad format at offset %zu: %s (ok up to %zu of %zu bytes)\n", path.c_str(),
           c.bad_offset, c.why.c_str(), c.valid_end, size);
    return false;
  }
  printf("%s: %zu bytes of an incomplete command at offset %zu%s%s\n", path.c_str(),
         size - c.valid_end, c.valid_end, c.why.empty() ? "" : ": ", c.why.c_str());
  if (!last) {
    printf("%s: not the last file: not truncated\n", path.c_str());
    return false;
  }
  if (!fix) {
    printf("%s: run with --fix to truncate it at offset %zu\n", path.c_str(), c.valid_end);
    return false;
  }
  if (truncate(path.c_str(), static_cast<off_t>(c.valid_end)) != 0) {
    printf("%s: truncate failed: %s\n", path.c_str(), strerror(errno));
    return false;
  }
  printf("%s: truncated to %zu bytes\n", path.c_str(), c.valid_end);
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  bool fix = false;
  std::string target;
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--fix") == 0) {
      fix = true;
    } else if (target.empty()) {
      target = argv[i];
    } else {
      target.clear();
      break;
    }
  }
  if (target.empty()) {
    fprintf(stderr, "Usage: hotkv-check-aof [--fix] <file.manifest|file.aof|file.rdb>\n");
    return 1;
  }
  if (!EndsWith(target, ".manifest")) {
    return CheckFile(target, true, fix) ? 0 : 1;
  }
  Result<std::string> text = ReadWholeFile(target);
  if (!text.ok()) {
    fprintf(stderr, "%s\n", text.status().message().c_str());
    return 1;
  }
  Result<AofManifest> m = AofManifest::Parse(text.value(), target);
  if (!m.ok()) {
    printf("%s\n", m.status().message().c_str());
    return 1;
  }
  const size_t slash = target.rfind('/');
  const std::string dir = slash == std::string::npos ? "." : target.substr(0, slash);
  bool ok = true;
  const AofManifest& man = m.value();
  if (!man.base.name.empty()) {
    ok = CheckFile(dir + "/" + man.base.name, man.incrs.empty(), fix) && ok;
  }
  for (size_t i = 0; i < man.incrs.size(); i++) {
    ok = CheckFile(dir + "/" + man.incrs[i].name, i + 1 == man.incrs.size(), fix) && ok;
  }
  printf(ok ? "AOF is valid\n" : "AOF is not valid\n");
  return ok ? 0 : 1;
}
