// AofManifest: parsing and formatting Redis 7's AOF manifest, and small file helpers.
#include "persistence/aof_manifest.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <sstream>

#include "common/string_util.h"

namespace hotkv::persistence {

namespace {

// Splits a manifest line into words; "quoted words" may hold spaces (Redis writes names
// with spaces quoted).
std::vector<std::string> SplitWords(const std::string& line) {
  std::vector<std::string> out;
  size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && (line[i] == ' ' || line[i] == '\t')) {
      i++;
    }
    if (i >= line.size()) {
      break;
    }
    std::string w;
    if (line[i] == '"') {
      i++;
      while (i < line.size() && line[i] != '"') {
        if (line[i] == '\\' && i + 1 < line.size()) {
          i++;
        }
        w += line[i++];
      }
      i++;
    } else {
      while (i < line.size() && line[i] != ' ' && line[i] != '\t') {
        w += line[i++];
      }
    }
    out.push_back(std::move(w));
  }
  return out;
}

std::string FormatName(const std::string& name) {
  if (name.find_first_of(" \t\"\\") == std::string::npos) {
    return name;
  }
  std::string q = "\"";
  for (char c : name) {
    if (c == '"' || c == '\\') {
      q += '\\';
    }
    q += c;
  }
  return q + "\"";
}

Status Invalid(const std::string& path, const std::string& what) {
  return Status::InvalidArgument("Invalid AOF manifest file format (" + path + "): " + what);
}

}  // namespace

Result<AofManifest> AofManifest::Parse(const std::string& text, const std::string& path) {
  AofManifest m;
  std::istringstream in(text);
  std::string line;
  int64_t last_incr = 0;
  while (std::getline(in, line)) {
    if (!line.empty() && line.back() == '\r') {
      line.pop_back();
    }
    if (line.empty() || line[0] == '#') {
      continue;
    }
    std::vector<std::string> words = SplitWords(line);
    if (words.size() % 2 != 0) {
      return Invalid(path, "odd number of words in '" + line + "'");
    }
    AofFileInfo info;
    info.type = 0;
    for (size_t i = 0; i < words.size(); i += 2) {
      const std::string& k = words[i];
      const std::string& v = words[i + 1];
      if (k == "file") {
        info.name = v;
      } else if (k == "seq") {
        auto n = ParseInt64(v);
        if (!n || *n <= 0) {
          return Invalid(path, "bad seq '" + v + "'");
        }
        info.seq = *n;
      } else if (k == "type") {
        if (v.size() != 1 || (v[0] != 'b' && v[0] != 'h' && v[0] != 'i')) {
          return Invalid(path, "unknown type '" + v + "'");
        }
        info.type = v[0];
      }
      // Unknown keys are skipped, as Redis does (forward compatibility).
    }
    if (info.name.empty() || info.seq == 0 || info.type == 0) {
      return Invalid(path, "a line lacks file, seq or type: '" + line + "'");
    }
    if (info.name.find('/') != std::string::npos) {
      return Invalid(path, "a file name with a path: '" + info.name + "'");
    }
    if (info.type == 'b') {
      if (!m.base.name.empty()) {
        return Status::InvalidArgument("Found duplicate base file information in " + path);
      }
      m.base = info;
      m.cur_base_seq = info.seq;
    } else if (info.type == 'h') {
      m.history.push_back(info);
    } else {
      if (info.seq <= last_incr) {
        return Status::InvalidArgument("Found a non-monotonic sequence number in " + path);
      }
      last_incr = info.seq;
      m.incrs.push_back(info);
      m.cur_incr_seq = info.seq;
    }
  }
  return m;
}

std::string AofManifest::Format() const {
  std::string out;
  auto line = [&](const AofFileInfo& f) {
    out += "file " + FormatName(f.name) + " seq " + std::to_string(f.seq) + " type " +
           std::string(1, f.type) + "\n";
  };
  if (!base.name.empty()) {
    line(base);
  }
  for (const AofFileInfo& f : history) {
    line(f);
  }
  for (const AofFileInfo& f : incrs) {
    line(f);
  }
  return out;
}

std::string AofManifest::BaseName(const std::string& prefix, int64_t seq, bool rdb) {
  return prefix + "." + std::to_string(seq) + ".base" + (rdb ? ".rdb" : ".aof");
}

std::string AofManifest::IncrName(const std::string& prefix, int64_t seq) {
  return prefix + "." + std::to_string(seq) + ".incr.aof";
}

Result<std::string> ReadWholeFile(const std::string& path) {
  int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    if (errno == ENOENT) {
      return Status::NotFound(path + ": no such file");
    }
    return Status::IoError("open " + path + ": " + strerror(errno));
  }
  std::string out;
  char buf[65536];
  for (;;) {
    ssize_t n = read(fd, buf, sizeof(buf));
    if (n < 0) {
      if (errno == EINTR) {
        continue;
      }
      Status st = Status::IoError("read " + path + ": " + strerror(errno));
      close(fd);
      return st;
    }
    if (n == 0) {
      break;
    }
    out.append(buf, static_cast<size_t>(n));
  }
  close(fd);
  return out;
}

Status WriteFileAtomically(const std::string& dir, const std::string& name,
                           const std::string& text) {
  const std::string tmp = dir + "/temp-" + name;
  const std::string final_path = dir + "/" + name;
  int fd = open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) {
    return Status::IoError("open " + tmp + ": " + strerror(errno));
  }
  size_t off = 0;
  while (off < text.size()) {
    ssize_t n = write(fd, text.data() + off, text.size() - off);
    if (n < 0 && errno == EINTR) {
      continue;
    }
    if (n <= 0) {
      Status st = Status::IoError("write " + tmp + ": " + strerror(errno));
      close(fd);
      return st;
    }
    off += static_cast<size_t>(n);
  }
  if (fsync(fd) != 0) {
    Status st = Status::IoError("fsync " + tmp + ": " + strerror(errno));
    close(fd);
    return st;
  }
  close(fd);
  if (rename(tmp.c_str(), final_path.c_str()) != 0) {
    return Status::IoError("rename " + tmp + ": " + strerror(errno));
  }
  int dfd = open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dfd >= 0) {
    fsync(dfd);
    close(dfd);
  }
  return Status::Ok();
}

}  // namespace hotkv::persistence
