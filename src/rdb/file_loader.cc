// LoadFile: reads a whole RDB file (versions 1..kMaxReadVersion) from an mmapped view,
// so plain strings are handed to the value builders without a copy. Opcodes: SELECTDB,
// RESIZEDB and SLOT_INFO (hints, skipped), AUX (collected), EXPIRETIME / EXPIRETIME_MS,
// IDLE / FREQ, MODULE_AUX (skipped by parsing its content: HotKV has no modules),
// FUNCTION2 (each library's code handed to LoadOptions::on_function, or skipped),
// FUNCTION_PRE_GA (refused, as Redis does), EOF and the
// CRC64 after it (RDB 5+; 0 means "not computed").
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cinttypes>
#include <cstring>

#include "rdb/format.h"
#include "rdb/rdb.h"
#include "rdb/scan.h"

namespace hotkv::rdb {
namespace {

constexpr uint64_t kProgressEvery = 8 << 20;

class MappedFile {
 public:
  ~MappedFile() {
    if (data_ != nullptr && data_ != MAP_FAILED) munmap(data_, size_);
    if (fd_ >= 0) close(fd_);
  }
  Status Open(const std::string& path) {
    fd_ = open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd_ < 0) return Status::IoError("open " + path + ": " + strerror(errno));
    struct stat st;
    if (fstat(fd_, &st) != 0) return Status::IoError("fstat " + path + ": " + strerror(errno));
    size_ = static_cast<size_t>(st.st_size);
    if (size_ == 0) return Status();
    data_ = mmap(nullptr, size_, PROT_READ, MAP_PRIVATE, fd_, 0);
    if (data_ == MAP_FAILED) return Status::IoError("mmap " + path + ": " + strerror(errno));
    madvise(data_, size_, MADV_SEQUENTIAL | MADV_WILLNEED);
    return Status();
  }
  const uint8_t* data() const {
    static const uint8_t kEmpty = 0;
    return size_ == 0 ? &kEmpty : static_cast<const uint8_t*>(data_);
  }
  size_t size() const { return size_; }

 private:
  int fd_ = -1;
  void* data_ = nullptr;
  size_t size_ = 0;
};

Result<LoadStats> ScanMapped(const std::string& path, const uint8_t* base, size_t size,
                             const LoadOptions& opts, KeySink& sink,
                             const std::function<void(uint64_t, uint64_t)>& on_progress);

}  // namespace

Status LoadError(const std::string& path, size_t offset, const std::string& message) {
  return Status::InvalidArgument(path + ": offset " + std::to_string(offset) + ": " + message);
}

Result<LoadStats> ScanFile(const std::string& path, const LoadOptions& opts, KeySink& sink,
                           const std::function<void(uint64_t, uint64_t)>& on_progress) {
  MappedFile file;
  if (Status st = file.Open(path); !st.ok()) return st;
  Result<LoadStats> r = ScanMapped(path, file.data(), file.size(), opts, sink, on_progress);
  Status done = sink.Finish(r.ok() ? Status() : r.status());
  if (!done.ok()) return done;
  return r;
}

namespace {

Result<LoadStats> ScanMapped(const std::string& path, const uint8_t* base, size_t size,
                             const LoadOptions& opts, KeySink& sink,
                             const std::function<void(uint64_t, uint64_t)>& on_progress) {
  auto fail = [&](size_t offset, const std::string& msg) { return LoadError(path, offset, msg); };

  LoadStats stats;
  if (size < 9 || memcmp(base, "REDIS", 5) != 0) {
    return fail(0, "Wrong signature trying to load DB from file");
  }
  int version = 0;
  for (int i = 5; i < 9; ++i) {
    if (base[i] < '0' || base[i] > '9') return fail(0, "Wrong signature trying to load DB from file");
    version = version * 10 + (base[i] - '0');
  }
  if (version < 1 || version > kMaxReadVersion) {
    return fail(5, "Can't handle RDB format version " + std::to_string(version));
  }
  stats.version = version;

  Reader r(base, base + size);
  const uint8_t* skip;
  r.Bytes(9, &skip);
  int db = 0;
  int64_t expire_ms = -1;
  std::optional<uint64_t> idle;
  std::optional<uint8_t> freq;
  std::string s1, s2;
  uint64_t next_progress = kProgressEvery;
  if (on_progress) on_progress(0, size);

  for (;;) {
    const size_t op_offset = r.offset();
    uint8_t type;
    if (!r.U8(&type)) return fail(op_offset, r.error());
    if (type == kOpEof) break;
    switch (type) {
      case kOpExpireTime: {
        uint32_t secs;
        if (!r.U32Le(&secs)) return fail(op_offset, r.error());
        expire_ms = static_cast<int64_t>(static_cast<int32_t>(secs)) * 1000;
        continue;
      }
      case kOpExpireTimeMs: {
        uint64_t ms;
        if (!r.U64Le(&ms)) return fail(op_offset, r.error());
        expire_ms = static_cast<int64_t>(ms);
        continue;
      }
      case kOpFreq: {
        uint8_t f;
        if (!r.U8(&f)) return fail(op_offset, r.error());
        freq = f;
        continue;
      }
      case kOpIdle: {
        uint64_t v;
        if (!r.Len(&v)) return fail(op_offset, r.error());
        idle = v;
        continue;
      }
      case kOpSelectDb: {
        uint64_t id;
        if (!r.Len(&id)) return fail(op_offset, r.error());
        if (id >= static_cast<uint64_t>(opts.num_dbs)) {
          return fail(op_offset, "FATAL: Data file was created with a Redis server configured "
                                 "to handle more than " +
                                     std::to_string(opts.num_dbs) + " databases. Exiting");
        }
        db = static_cast<int>(id);
        continue;
      }
      case kOpResizeDb: {
        uint64_t a, b;
        if (!r.Len(&a) || !r.Len(&b)) return fail(op_offset, r.error());
        continue;
      }
      case kOpSlotInfo: {
        uint64_t a, b, c;
        if (!r.Len(&a) || !r.Len(&b) || !r.Len(&c)) return fail(op_offset, r.error());
        continue;
      }
      case kOpAux: {
        std::string_view k, v;
        if (!r.String(&s1, &k) || !r.String(&s2, &v)) return fail(op_offset, r.error());
        stats.aux.emplace_back(std::string(k), std::string(v));
        continue;
      }
      case kOpModuleAux: {
        uint64_t id, when_opcode, when;
        if (!r.Len(&id) || !r.Len(&when_opcode) || !r.Len(&when)) return fail(op_offset, r.error());
        if (when_opcode != kModuleOpUint) return fail(op_offset, "bad when_opcode");
        if (!r.SkipModuleOpcodes()) return fail(op_offset, r.error());
        continue;
      }
      case kOpKeyMeta: {
        // Module key metadata: HotKV has no module to own it, so it is skipped whole.
        uint64_t classes;
        if (!r.Len(&classes)) return fail(op_offset, r.error());
        if (classes > kKeyMetaMaxClasses) return fail(op_offset, "Too many metadata classes");
        for (uint64_t i = 0; i < classes; ++i) {
          const uint8_t* spec;
          if (!r.Bytes(4, &spec) || !r.SkipModuleOpcodes()) return fail(op_offset, r.error());
        }
        continue;
      }
      case kOpFunctionPreGa:
        return fail(op_offset, "Pre-release function format not supported");
      case kOpFunction2: {
        if (!opts.on_function) {
          if (!r.SkipString()) return fail(op_offset, r.error());
          continue;
        }
        std::string_view code;
        if (!r.String(&s1, &code)) return fail(op_offset, r.error());
        if (Status st = opts.on_function(code); !st.ok()) return st;
        continue;
      }
      default:
        break;
    }
    // A key: type, key, value.
    if (type > kTypeLast) return fail(op_offset, "Unknown RDB encoding type " + std::to_string(type));
    std::string_view key;
    if (!r.String(&s1, &key)) return fail(op_offset, r.error());
    LoadedKey k;
    k.db = db;
    k.expire_ms = expire_ms;
    k.idle_seconds = idle;
    k.lfu_freq = freq;
    const uint8_t* value = r.pos();
    bool handed_raw = false;
    if (CanSkipValue(type) && sink.WantsRaw(type)) {
      if (SkipValue(r, type)) {
        RawKey raw{op_offset, type, std::string(key), value, r.pos(), std::move(k)};
        ++stats.keys;
        if (Status st = sink.Raw(std::move(raw)); !st.ok()) return st;
        handed_raw = true;
      } else {
        // A value that cannot be skipped is decoded here, so that its error is the one a
        // decoder reports (the skip reads only lengths).
        r = Reader(base, value, base + size);
      }
    }
    if (!handed_raw) {
      bool empty = false;
      Result<Entry*> e = LoadObject(r, type, key, expire_ms >= 0, opts.limits, opts.zset_limits, &empty);
      if (!e.ok() && !empty) return fail(op_offset, e.status().message());
      if (e.ok()) {
        k.entry = *e;
        ++stats.keys;
        if (Status st = sink.Decoded(op_offset, std::move(k)); !st.ok()) return st;
      }
    }
    expire_ms = -1;
    idle.reset();
    freq.reset();
    if (on_progress && r.offset() >= next_progress) {
      on_progress(r.offset(), size);
      next_progress = r.offset() + kProgressEvery;
    }
  }
  const size_t eof_end = r.offset();
  if (version >= 5) {
    uint64_t expected;
    if (!r.U64Le(&expected)) return fail(eof_end, r.error());
    if (opts.verify_checksum && expected != 0) {
      uint64_t got = Crc64(0, base, eof_end);
      if (got != expected) {
        char msg[128];
        snprintf(msg, sizeof(msg), "Wrong RDB checksum expected: (%" PRIx64 ") got (%" PRIx64 ")",
                 expected, got);
        return fail(eof_end, msg);
      }
    }
  }
  stats.bytes = r.offset();
  if (on_progress) on_progress(stats.bytes, size);
  return stats;
}

// LoadFile's sink: every key decoded by the scanner and handed on at once.
class InlineSink final : public KeySink {
 public:
  explicit InlineSink(const std::function<Status(LoadedKey&&)>& on_key) : on_key_(on_key) {}
  bool WantsRaw(uint8_t) const override { return false; }
  Status Decoded(size_t, LoadedKey&& k) override { return on_key_(std::move(k)); }
  Status Raw(RawKey&&) override { return Status::FailedPrecondition("raw key in an inline load"); }
  Status Finish(Status scan) override { return scan; }

 private:
  const std::function<Status(LoadedKey&&)>& on_key_;
};

}  // namespace

Result<LoadStats> LoadFile(const std::string& path, const LoadOptions& opts,
                           const std::function<Status(LoadedKey&&)>& on_key,
                           const std::function<void(uint64_t, uint64_t)>& on_progress) {
  InlineSink sink(on_key);
  return ScanFile(path, opts, sink, on_progress);
}

}  // namespace hotkv::rdb
