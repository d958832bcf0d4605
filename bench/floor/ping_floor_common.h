// Shared by the two ping_floor servers (see ping_floor_epoll.c).
#pragma once

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

enum { kFloorBufSize = 64 * 1024, kFloorMaxFd = 4096, kFloorMaxPongs = 8192 };

// Where each connection is inside its current line, across reads.
struct floor_conn {
  bool mid_line;    // the last read ended inside a line
  bool payload;     // that line starts with a letter: a command
};
static struct floor_conn floor_conns[kFloorMaxFd];
static char floor_pongs[kFloorMaxPongs * 7];

// The port from "--port N" among the arguments (the way redis-server takes it).
static inline int floor_port(int argc, char** argv) {
  for (int i = 1; i + 1 < argc; i++) {
    if (strcmp(argv[i], "--port") == 0) {
      return atoi(argv[i + 1]);
    }
  }
  fprintf(stderr, "usage: %s --port PORT\n", argv[0]);
  exit(2);
}

static inline int floor_listen(int port, int flags) {
  for (size_t i = 0; i < kFloorMaxPongs; i++) {
    memcpy(floor_pongs + 7 * i, "+PONG\r\n", 7);
  }
  int fd = socket(AF_INET, SOCK_STREAM | flags, 0);
  int one = 1;
  setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (bind(fd, (struct sockaddr*)&a, sizeof a) != 0 || listen(fd, 512) != 0) {
    perror("bind/listen");
    exit(1);
  }
  return fd;
}

static inline void floor_conn_reset(int fd) {
  floor_conns[fd] = (struct floor_conn){false, false};
  int one = 1;
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);  // as Redis and HotKV do
}

// Commands completed in these bytes: lines that start with a letter ("PING\r\n" inline,
// or the "PING" payload of "*1\r\n$4\r\nPING\r\n"); "*" and "$" lines are headers.
static inline size_t floor_count_commands(int fd, const char* p, size_t n) {
  struct floor_conn* c = &floor_conns[fd];
  size_t cmds = 0;
  for (size_t i = 0; i < n; i++) {
    if (!c->mid_line) {
      c->payload = p[i] != '*' && p[i] != '$';
      c->mid_line = true;
    }
    if (p[i] == '\n') {
      cmds += c->payload;
      c->mid_line = false;
    }
  }
  return cmds;
}

// Writes `cmds` replies in one call; -1 on a short or failed write.
static inline int floor_write_pongs(int fd, size_t cmds) {
  if (cmds > kFloorMaxPongs) {
    return -1;
  }
  ssize_t w = send(fd, floor_pongs, cmds * 7, MSG_NOSIGNAL);
  return w == (ssize_t)(cmds * 7) ? 0 : -1;
}
