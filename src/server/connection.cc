#include "server/connection.h"

namespace hotkv {

Connection::Connection(uint64_t id, Worker* worker, int fd)
    : NetConnection(fd), Client(id, worker) {
  this->fd = fd;
}

Connection::~Connection() = default;

}  // namespace hotkv
