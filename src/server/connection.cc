#include "server/connection.h"

#include <algorithm>

namespace hotkv {

Connection::Connection(uint64_t id, Worker* worker, int fd)
    : NetConnection(fd), Client(id, worker) {
  this->fd = fd;
  // Large stored values go out by reference (ReplyBuilder::BulkRef, net/io_vec.h).
  out.set_refs_allowed(true);
  sending.set_refs_allowed(true);
}

Connection::~Connection() = default;

void Connection::NoteReplyBytes(int64_t now_ms) {
  if (now_ms - reply_peak_since_ms_ >= kReplyPeakResetMs) {
    reply_peak_ = 0;
    reply_peak_since_ms_ = now_ms;
  }
  reply_peak_ = std::max(reply_peak_, out.size());
}

void Connection::PublishInfo() {
  constexpr auto kRelaxed = std::memory_order_relaxed;
  // HotKV has no reply list: unsent replies sit in `sending` (being written) and `out`
  // (built behind it). obl is every unsent byte, oll the buffers holding some, omem
  // their memory.
  const size_t unsent = sending.total_size() - sending_off;
  const size_t built = out.total_size();
  qbuf.store(in.size(), kRelaxed);
  qbuf_free.store(in.capacity() - in.size(), kRelaxed);
  obl.store(unsent + built, kRelaxed);
  oll.store((unsent > 0 ? 1 : 0) + (built > 0 ? 1 : 0), kRelaxed);
  omem.store((unsent > 0 ? sending.capacity() : 0) + (built > 0 ? out.capacity() : 0), kRelaxed);
  rbs.store(out.capacity(), kRelaxed);
  rbp.store(reply_peak_, kRelaxed);
  events.store((reading_paused ? 0 : kEventRead) | (unsent > 0 ? kEventWrite : 0), kRelaxed);
  tot_mem.store(sizeof(Connection) + in.capacity() + out.capacity() + sending.capacity() +
                    argv_mem.load(kRelaxed) + multi_mem.load(kRelaxed),
                kRelaxed);
}

}  // namespace hotkv
