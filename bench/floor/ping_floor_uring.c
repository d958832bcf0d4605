// ping_floor_uring: ping_floor_epoll.c's floor with HotKV's io_uring pattern instead of
// epoll: a multishot accept, a recv per connection from a ring of provided buffers
// (single-shot with POLL_FIRST and re-armed, as HotKV does, or multishot), and the
// replies as an io_uring SEND. One io_uring_enter per turn submits and waits.
//
//   ping_floor_uring [multishot] --port PORT
#define _GNU_SOURCE
#include <errno.h>
#include <liburing.h>
#include <sys/mman.h>

#include "ping_floor_common.h"

enum { kBuffers = 128, kOpAccept = 1, kOpRecv = 2, kOpSend = 3 };

static struct io_uring ring;
static struct io_uring_buf_ring* buf_ring;
static char* buffers;
static bool multishot;

// user_data: the bytes a send asked for (<< 32), the socket (<< 8), the operation.
static uint64_t tag(int fd, int op, size_t len) {
  return ((uint64_t)len << 32) | ((uint64_t)fd << 8) | (uint64_t)op;
}

static void arm_recv(int fd) {
  struct io_uring_sqe* sqe = io_uring_get_sqe(&ring);
  if (multishot) {
    io_uring_prep_recv_multishot(sqe, fd, NULL, 0, 0);
  } else {
    io_uring_prep_recv(sqe, fd, NULL, 0, 0);
    sqe->ioprio |= IORING_RECVSEND_POLL_FIRST;
  }
  sqe->flags |= IOSQE_BUFFER_SELECT;
  sqe->buf_group = 0;
  io_uring_sqe_set_data64(sqe, tag(fd, kOpRecv, 0));
}

static void setup(void) {
  struct io_uring_params params = {0};
  params.flags = IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_DEFER_TASKRUN | IORING_SETUP_SUBMIT_ALL;
  if (io_uring_queue_init_params(1024, &ring, &params) < 0) {
    perror("io_uring_queue_init_params");
    exit(1);
  }
  buf_ring = mmap(NULL, kBuffers * sizeof(struct io_uring_buf), PROT_READ | PROT_WRITE,
                  MAP_ANONYMOUS | MAP_PRIVATE, -1, 0);
  buffers = malloc((size_t)kBuffers * kFloorBufSize);
  if (buf_ring == MAP_FAILED || buffers == NULL) {
    perror("buffers");
    exit(1);
  }
  io_uring_buf_ring_init(buf_ring);
  struct io_uring_buf_reg reg = {
      .ring_addr = (uint64_t)(uintptr_t)buf_ring, .ring_entries = kBuffers, .bgid = 0};
  if (io_uring_register_buf_ring(&ring, &reg, 0) != 0) {
    perror("io_uring_register_buf_ring");
    exit(1);
  }
  for (int i = 0; i < kBuffers; i++) {
    io_uring_buf_ring_add(buf_ring, buffers + (size_t)i * kFloorBufSize, kFloorBufSize,
                          (unsigned short)i, io_uring_buf_ring_mask(kBuffers), i);
  }
  io_uring_buf_ring_advance(buf_ring, kBuffers);
}

static void on_recv(int fd, const struct io_uring_cqe* cqe) {
  if (cqe->flags & IORING_CQE_F_BUFFER) {
    unsigned bid = cqe->flags >> IORING_CQE_BUFFER_SHIFT;
    char* buf = buffers + (size_t)bid * kFloorBufSize;
    size_t cmds = cqe->res > 0 ? floor_count_commands(fd, buf, (size_t)cqe->res) : 0;
    io_uring_buf_ring_add(buf_ring, buf, kFloorBufSize, (unsigned short)bid,
                          io_uring_buf_ring_mask(kBuffers), 0);
    io_uring_buf_ring_advance(buf_ring, 1);
    if (cmds > kFloorMaxPongs) {
      exit(1);
    }
    if (cmds > 0) {
      struct io_uring_sqe* sqe = io_uring_get_sqe(&ring);
      io_uring_prep_send(sqe, fd, floor_pongs, cmds * 7, MSG_NOSIGNAL);
      io_uring_sqe_set_data64(sqe, tag(fd, kOpSend, cmds * 7));
    }
  }
  if (cqe->res == 0 || (cqe->res < 0 && cqe->res != -ENOBUFS)) {
    close(fd);
    return;
  }
  if (!(cqe->flags & IORING_CQE_F_MORE)) {
    arm_recv(fd);
  }
}

int main(int argc, char** argv) {
  multishot = argc > 1 && strcmp(argv[1], "multishot") == 0;
  int lfd = floor_listen(floor_port(argc, argv), 0);
  setup();
  struct io_uring_sqe* sqe = io_uring_get_sqe(&ring);
  io_uring_prep_multishot_accept(sqe, lfd, NULL, NULL, 0);
  io_uring_sqe_set_data64(sqe, tag(lfd, kOpAccept, 0));
  for (;;) {
    io_uring_submit_and_wait(&ring, 1);
    struct io_uring_cqe* cqe;
    unsigned head;
    unsigned count = 0;
    io_uring_for_each_cqe(&ring, head, cqe) {
      count++;
      uint64_t data = io_uring_cqe_get_data64(cqe);
      int fd = (int)((data >> 8) & 0xffffff);
      switch (data & 0xff) {
        case kOpAccept:
          if (cqe->res >= kFloorMaxFd) {
            close(cqe->res);
          } else if (cqe->res >= 0) {
            floor_conn_reset(cqe->res);
            arm_recv(cqe->res);
          }
          break;
        case kOpRecv:
          on_recv(fd, cqe);
          break;
        case kOpSend:
          if (cqe->res < 0) {
            close(fd);
          } else if ((uint64_t)cqe->res != data >> 32) {
            return 1;  // a short send: outside what this tool handles
          }
          break;
      }
    }
    io_uring_cq_advance(&ring, count);
  }
}
