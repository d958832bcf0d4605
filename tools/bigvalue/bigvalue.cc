// hotkv-bigvalue: GB/s of large-value round trips on one connection (issue 19's
// "32 MB PCACHE.GET at >= 2 GB/s per connection"), with the server's CPU per round.
//
//   hotkv-bigvalue --port P [--mb 32] [--reps 30] [--pid SERVER_PID] [--modes pcache,string,ceiling]
//                  [--sockbuf BYTES]   (SO_RCVBUF/SO_SNDBUF asked for; 0: kernel autotuning)
//
// Each round sends one request and reads the whole reply into a preallocated buffer
// (SO_RCVBUF raised); the time is the round trip. `pcache`: PCACHE.PUT then PCACHE.GET of
// one block; `string`: SET then GET; `ceiling`: the same bytes from a thread of this
// process over loopback, no server (what this machine's loopback and this client allow).
// Prints one line per row: name, median and best GB/s (value bytes / round trip), median
// ms, server CPU ms per round (--pid: utime+stime from /proc/PID/stat).
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

namespace {

double Now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

[[noreturn]] void Die(const char* what) {
  perror(what);
  exit(1);
}

// SO_RCVBUF/SO_SNDBUF asked for (the kernel caps them at net.core.rmem_max/wmem_max,
// doubled, and stops autotuning them); 0: leave both to the kernel's autotuning (up to
// net.ipv4.tcp_rmem/tcp_wmem's maximum).
int g_sockbuf = 64 << 20;

int Connect(int port) {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  int one = 1, big = g_sockbuf;
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
  if (big > 0) {
    setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &big, sizeof(big));
    setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &big, sizeof(big));
  }
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(static_cast<uint16_t>(port));
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof(a)) != 0) Die("connect");
  return fd;
}

void SendAll(int fd, const char* p, size_t n) {
  while (n > 0) {
    ssize_t k = send(fd, p, n, MSG_NOSIGNAL);
    if (k <= 0) Die("send");
    p += k;
    n -= static_cast<size_t>(k);
  }
}

std::string Encode(const std::vector<std::string>& args) {
  std::string out = "*" + std::to_string(args.size()) + "\r\n";
  for (const std::string& a : args) {
    out += "$" + std::to_string(a.size()) + "\r\n" + a + "\r\n";
  }
  return out;
}

// Reads one reply into buf: a bulk string ($len, read whole) or a one-line reply.
// Returns the bulk length (-1: nil or not a bulk).
long ReadReply(int fd, std::vector<char>& buf) {
  size_t got = 0;
  long need = -1;  // total bytes of the reply once known
  long len = -1;
  for (;;) {
    ssize_t k = recv(fd, buf.data() + got, buf.size() - got, 0);
    if (k <= 0) Die("recv");
    got += static_cast<size_t>(k);
    if (need < 0) {
      char* eol = static_cast<char*>(memmem(buf.data(), got, "\r\n", 2));
      if (eol == nullptr) continue;
      size_t line = static_cast<size_t>(eol - buf.data()) + 2;
      if (buf[0] != '$') {
        if (buf[0] == '-') {
          fprintf(stderr, "error: %.*s", static_cast<int>(line), buf.data());
          return -2;
        }
        return -1;
      }
      len = atol(buf.data() + 1);
      if (len < 0) return -1;
      need = static_cast<long>(line) + len + 2;
      if (static_cast<size_t>(need) > buf.size()) {
        fprintf(stderr, "reply of %ld bytes larger than the buffer\n", need);
        exit(1);
      }
    }
    if (static_cast<long>(got) >= need) {
      return len;
    }
  }
}

double CpuSeconds(int pid) {
  if (pid <= 0) return 0;
  char path[64];
  snprintf(path, sizeof(path), "/proc/%d/stat", pid);
  FILE* f = fopen(path, "r");
  if (f == nullptr) return 0;
  char line[2048];
  size_t n = fread(line, 1, sizeof(line) - 1, f);
  fclose(f);
  line[n] = 0;
  char* p = strrchr(line, ')');
  unsigned long ut = 0, st = 0;
  // Fields after ")": state(3) ... utime(14) stime(15).
  sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %lu %lu", &ut, &st);
  return static_cast<double>(ut + st) / static_cast<double>(sysconf(_SC_CLK_TCK));
}

struct Row {
  std::string name;
  std::vector<double> secs;
  double cpu = 0;  // seconds per round
};

void Print(const Row& r, size_t bytes) {
  std::vector<double> s = r.secs;
  std::sort(s.begin(), s.end());
  const double med = s[s.size() / 2], best = s.front();
  printf("%-12s median %6.2f GB/s  best %6.2f GB/s  median %8.2f ms  server CPU %7.2f ms\n",
         r.name.c_str(), static_cast<double>(bytes) / med / 1e9,
         static_cast<double>(bytes) / best / 1e9, med * 1e3, r.cpu * 1e3);
  fflush(stdout);
}

// Times `reps` rounds of `req` -> one reply.
Row Rounds(const char* name, int fd, const std::string& req, std::vector<char>& buf, int reps,
           int pid, long expect_len) {
  Row r{name, {}, 0};
  const double cpu0 = CpuSeconds(pid);
  for (int i = 0; i < reps; i++) {
    const double t0 = Now();
    SendAll(fd, req.data(), req.size());
    long len = ReadReply(fd, buf);
    r.secs.push_back(Now() - t0);
    if (len == -2) exit(1);
    if (expect_len >= 0 && len != expect_len) {
      fprintf(stderr, "%s: reply of %ld bytes, expected %ld\n", name, len, expect_len);
      exit(1);
    }
  }
  r.cpu = (CpuSeconds(pid) - cpu0) / reps;
  return r;
}

}  // namespace

int main(int argc, char** argv) {
  int port = 0, reps = 30, pid = 0;
  size_t mb = 32;
  std::string modes = "pcache,string,ceiling";
  for (int i = 1; i + 1 < argc; i += 2) {
    std::string k = argv[i];
    if (k == "--port") port = atoi(argv[i + 1]);
    else if (k == "--mb") mb = static_cast<size_t>(atol(argv[i + 1]));
    else if (k == "--reps") reps = atoi(argv[i + 1]);
    else if (k == "--pid") pid = atoi(argv[i + 1]);
    else if (k == "--modes") modes = argv[i + 1];
    else if (k == "--sockbuf") g_sockbuf = atoi(argv[i + 1]);
    else {
      fprintf(stderr, "unknown option %s\n", k.c_str());
      return 2;
    }
  }
  const size_t bytes = mb << 20;
  std::string value(bytes, 'v');
  for (size_t i = 0; i < bytes; i += 4096) value[i] = static_cast<char>('a' + i / 4096 % 26);
  std::vector<char> buf(bytes + 1024);
  const long want = static_cast<long>(bytes);
  if (modes.find("pcache") != std::string::npos || modes.find("string") != std::string::npos) {
    if (port == 0) {
      fprintf(stderr, "--port needed\n");
      return 2;
    }
    int fd = Connect(port);
    if (modes.find("pcache") != std::string::npos) {
      const std::string create = Encode({"PCACHE.CREATE", "bigvalue:ns"});
      SendAll(fd, create.data(), create.size());
      ReadReply(fd, buf);  // an existing namespace's error is fine
      const std::string put = Encode({"PCACHE.PUT", "bigvalue:ns", "blk", value});
      Print(Rounds("PCACHE.PUT", fd, put, buf, reps, pid, -1), bytes);
      Print(Rounds("PCACHE.GET", fd, Encode({"PCACHE.GET", "bigvalue:ns", "blk"}), buf, reps, pid, want),
            bytes);
    }
    if (modes.find("string") != std::string::npos) {
      Print(Rounds("SET", fd, Encode({"SET", "bigvalue:str", value}), buf, reps, pid, -1), bytes);
      Print(Rounds("GET", fd, Encode({"GET", "bigvalue:str"}), buf, reps, pid, want), bytes);
    }
    close(fd);
  }
  if (modes.find("ceiling") != std::string::npos) {
    // A thread that answers each one-byte request with the value as a bulk reply.
    int lfd = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (bind(lfd, reinterpret_cast<sockaddr*>(&a), sizeof(a)) != 0) Die("bind");
    socklen_t al = sizeof(a);
    getsockname(lfd, reinterpret_cast<sockaddr*>(&a), &al);
    listen(lfd, 1);
    const std::string reply = "$" + std::to_string(bytes) + "\r\n" + value + "\r\n";
    std::thread server([&] {
      int s = accept(lfd, nullptr, nullptr);
      int big = g_sockbuf;
      if (big > 0) setsockopt(s, SOL_SOCKET, SO_SNDBUF, &big, sizeof(big));
      char c;
      while (recv(s, &c, 1, 0) == 1) SendAll(s, reply.data(), reply.size());
      close(s);
    });
    int fd = Connect(ntohs(a.sin_port));
    Print(Rounds("ceiling", fd, "x", buf, reps, 0, want), bytes);
    close(fd);
    server.join();
    close(lfd);
  }
  return 0;
}
