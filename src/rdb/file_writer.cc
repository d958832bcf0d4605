// FileWriter: an RDB file written through a 1 MiB buffer, the CRC64 computed over each
// chunk as it is flushed. Layout: "REDIS0010", AUX fields, then per database SELECTDB +
// RESIZEDB and the keys ([EXPIRETIME_MS] [IDLE|FREQ] type key value), EOF, CRC64 (LE;
// zeros when checksums are off).
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "engine/extension_value.h"
#include "rdb/format.h"
#include "rdb/rdb.h"

namespace hotkv::rdb {

namespace {
constexpr size_t kFlushAt = 1 << 20;

// [EXPIRETIME_MS] [IDLE|FREQ] type key value appended to `buf` through `enc` (which
// writes to `buf`); on an error `buf` is left as it was.
Status EncodeKey(Encoder& enc, std::string& buf, const Entry& e, int64_t expire_ms,
                 std::optional<uint64_t> idle_seconds, std::optional<uint8_t> lfu_freq) {
  const int type = Encoder::ObjectType(e);
  if (type < 0) {
    return Status::InvalidArgument(std::string(TypeName(e)) +
                                   " values cannot be written to an RDB file yet");
  }
  const size_t mark = buf.size();
  if (expire_ms >= 0) {
    enc.Byte(kOpExpireTimeMs);
    enc.U64Le(static_cast<uint64_t>(expire_ms));
  }
  if (idle_seconds) {
    enc.Byte(kOpIdle);
    enc.Len(*idle_seconds);
  } else if (lfu_freq) {
    enc.Byte(kOpFreq);
    enc.Byte(*lfu_freq);
  }
  enc.Byte(static_cast<uint8_t>(type));
  enc.String(e.key());
  std::string error;
  if (!enc.Object(e, &error)) {
    buf.resize(mark);  // nothing of the key is written
    return Status::InvalidArgument(error);
  }
  return Status();
}
}  // namespace

struct FileWriter::Impl {
  int fd;
  WriteOptions opts;
  std::string buf;
  Encoder enc;
  uint64_t crc = 0;
  uint64_t written = 0;
  Status error;

  Impl(int f, WriteOptions o) : fd(f), opts(o), enc(&buf, o.compress) { buf.reserve(kFlushAt + 4096); }

  Status Flush(bool update_crc) {
    if (!error.ok()) return error;
    if (update_crc && opts.checksum) crc = Crc64(crc, buf.data(), buf.size());
    size_t off = 0;
    while (off < buf.size()) {
      ssize_t n = ::write(fd, buf.data() + off, buf.size() - off);
      if (n < 0) {
        if (errno == EINTR) continue;
        error = Status::IoError(std::string("write: ") + strerror(errno));
        return error;
      }
      off += static_cast<size_t>(n);
    }
    written += buf.size();
    buf.clear();
    return Status();
  }
  Status MaybeFlush() { return buf.size() >= kFlushAt ? Flush(true) : error; }
};

FileWriter::FileWriter(int fd, WriteOptions opts) : impl_(new Impl(fd, opts)) {}
FileWriter::~FileWriter() { delete impl_; }

uint64_t FileWriter::bytes_written() const { return impl_->written + impl_->buf.size(); }

Status FileWriter::Begin(const std::vector<std::pair<std::string, std::string>>& aux) {
  char magic[16];
  snprintf(magic, sizeof(magic), "REDIS%04d", impl_->opts.version);
  impl_->enc.Raw(magic, 9);
  for (const auto& [k, v] : aux) {
    impl_->enc.Byte(kOpAux);
    impl_->enc.String(k);
    impl_->enc.String(v);
  }
  return impl_->MaybeFlush();
}

Status FileWriter::SelectDb(int db, uint64_t keys, uint64_t keys_with_ttl) {
  impl_->enc.Byte(kOpSelectDb);
  impl_->enc.Len(static_cast<uint64_t>(db));
  impl_->enc.Byte(kOpResizeDb);
  impl_->enc.Len(keys);
  impl_->enc.Len(keys_with_ttl);
  return impl_->MaybeFlush();
}

Status FileWriter::WriteKey(const Entry& e, int64_t expire_ms, std::optional<uint64_t> idle_seconds,
                            std::optional<uint8_t> lfu_freq) {
  if (Status st = EncodeKey(impl_->enc, impl_->buf, e, expire_ms, idle_seconds, lfu_freq);
      !st.ok()) {
    return st;
  }
  return impl_->MaybeFlush();
}

Status FileWriter::WriteFunction(std::string_view code) {
  impl_->enc.Byte(kOpFunction2);
  impl_->enc.String(code);
  return impl_->MaybeFlush();
}

Status FileWriter::WriteRaw(std::string_view bytes) {
  impl_->buf.append(bytes);
  return impl_->MaybeFlush();
}

struct ChunkEncoder::Impl {
  std::string* out;
  Encoder enc;
  bool defer;
  std::vector<std::pair<size_t, size_t>> deferred;  // {offset of the length, size}
  Impl(std::string* o, bool compress, bool d)
      : out(o), enc(o, compress && !d), defer(compress && d) {
    if (defer) {
      enc.DeferCompression(&deferred);
    }
  }
};

ChunkEncoder::ChunkEncoder(std::string* out, bool compress, bool defer_compression)
    : impl_(new Impl(out, compress, defer_compression)) {}
ChunkEncoder::~ChunkEncoder() { delete impl_; }

void ChunkEncoder::CompressDeferred() {
  std::vector<std::pair<size_t, size_t>>& places = impl_->deferred;
  if (places.empty()) {
    return;
  }
  std::string& in = *impl_->out;
  std::string res;
  res.reserve(in.size());
  Encoder lzf(&res, /*compress=*/true);
  size_t cur = 0;
  for (const auto& [at, n] : places) {
    res.append(in, cur, at - cur);
    // The raw form Encoder::String wrote: Len(n), then the n bytes.
    const size_t len_bytes = n < (1u << 6) ? 1 : n < (1u << 14) ? 2 : 5;
    lzf.String(std::string_view(in.data() + at + len_bytes, n));  // as a compressing encoder
    cur = at + len_bytes + n;
  }
  res.append(in, cur, std::string::npos);
  in.swap(res);
  places.clear();
}

void ChunkEncoder::SelectDb(int db) {
  impl_->enc.Byte(kOpSelectDb);
  impl_->enc.Len(static_cast<uint64_t>(db));
}

Status ChunkEncoder::Key(const Entry& e, int64_t expire_ms, std::optional<uint64_t> idle_seconds,
                         std::optional<uint8_t> lfu_freq) {
  const size_t deferred = impl_->deferred.size();
  Status st = EncodeKey(impl_->enc, *impl_->out, e, expire_ms, idle_seconds, lfu_freq);
  if (!st.ok()) {
    impl_->deferred.resize(deferred);  // the key's bytes were dropped
  }
  return st;
}

Status FileWriter::Finish() {
  impl_->enc.Byte(kOpEof);
  if (!impl_->error.ok()) return impl_->error;
  if (impl_->opts.checksum) impl_->crc = Crc64(impl_->crc, impl_->buf.data(), impl_->buf.size());
  impl_->enc.U64Le(impl_->opts.checksum ? impl_->crc : 0);
  return impl_->Flush(/*update_crc=*/false);
}

}  // namespace hotkv::rdb
