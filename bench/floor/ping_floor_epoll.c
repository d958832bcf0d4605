// ping_floor_epoll: the least a server can do to answer pipelined PINGs over TCP with
// epoll: one read() of whatever arrived, count the commands in it, one write() of that
// many "+PONG\r\n". No parsing, no command table, no data: what it costs per request is
// (almost) only the kernel's socket work, a floor for any server on the sockets API.
// bench/ping_floor.sh measures it beside HotKV and Redis.
//
//   ping_floor_epoll --port PORT
//
// A measurement tool, not a server: it understands only commands whose lines start with
// a letter (inline PING, or the payload line of a RESP array), and it stops on a short
// write (never seen with redis-benchmark's 30-command batches).
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include "ping_floor_common.h"

int main(int argc, char** argv) {
  int lfd = floor_listen(floor_port(argc, argv), SOCK_NONBLOCK);
  int ep = epoll_create1(0);
  struct epoll_event ev = {.events = EPOLLIN, .data.fd = lfd};
  epoll_ctl(ep, EPOLL_CTL_ADD, lfd, &ev);
  static char buf[kFloorBufSize];
  struct epoll_event evs[256];
  for (;;) {
    int n = epoll_wait(ep, evs, 256, -1);
    for (int i = 0; i < n; i++) {
      int fd = evs[i].data.fd;
      if (fd == lfd) {
        int c;
        while ((c = accept4(lfd, NULL, NULL, SOCK_NONBLOCK)) >= 0) {
          if (c >= kFloorMaxFd) {
            close(c);
            continue;
          }
          floor_conn_reset(c);
          struct epoll_event ce = {.events = EPOLLIN, .data.fd = c};
          epoll_ctl(ep, EPOLL_CTL_ADD, c, &ce);
        }
        continue;
      }
      ssize_t r = read(fd, buf, sizeof buf);
      if (r <= 0) {
        if (r == 0 || errno != EAGAIN) {
          close(fd);
        }
        continue;
      }
      size_t cmds = floor_count_commands(fd, buf, (size_t)r);
      if (cmds > 0 && floor_write_pongs(fd, cmds) != 0) {
        return 1;
      }
    }
  }
}
