// The logical content of an output buffer (its own bytes with its references' bytes
// spliced in, protocol/byte_buffer.h) as an iovec array, for writev/sendmsg: a large
// value referenced by a reply goes to the kernel from where it is stored, uncopied.
//
// Thread safety: none (the buffer's owner).
#pragma once

#include <sys/uio.h>

#include <cstddef>

#include "protocol/byte_buffer.h"

namespace hotkv {

// Most iovecs one send passes (a reply with more references is sent in several calls).
inline constexpr size_t kMaxSendIov = 64;

// Fills iov (up to max entries) with b's logical bytes from logical offset `off`;
// returns the number of entries (0: nothing left).
inline size_t FillIov(const ByteBuffer& b, size_t off, iovec* iov, size_t max) {
  size_t n = 0;
  size_t own = 0;  // next own byte not yet described
  size_t pos = 0;  // logical offset of own byte `own`
  auto add = [&](const char* p, size_t len) {
    if (len == 0 || n == max) {
      return;
    }
    if (pos + len <= off) {  // wholly before `off`
      pos += len;
      return;
    }
    const size_t skip = off > pos ? off - pos : 0;
    iov[n].iov_base = const_cast<char*>(p + skip);
    iov[n].iov_len = len - skip;
    n++;
    pos += len;
  };
  for (const ByteBuffer::Ref& r : b.refs()) {
    add(b.data() + own, r.at - own);
    own = r.at;
    add(r.data, r.len);
    if (n == max) {
      return n;
    }
  }
  add(b.data() + own, b.size() - own);
  return n;
}

}  // namespace hotkv
