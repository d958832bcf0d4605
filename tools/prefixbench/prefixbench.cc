// hotkv-prefixbench: "how many leading blocks of this prompt are cached", asked as one
// PCACHE.LONGEST of an N-block chain against the same question as N pipelined EXISTS
// (issue 19's target: LONGEST >= 20x faster for 4,000 blocks), with the same client for
// both, so that neither side pays for a slow client.
//
//   hotkv-prefixbench --port P [--pid SERVER_PID] [--blocks 4000] [--reps 300]
//                     [--modes longest,blob,exists,floor] [--setup 1] [--keys hex32|bin16]
//
// Keys: N block keys (a seeded PRNG), stored as a chain (PCACHE.PUT prefixbench:ns k_i v
// PARENT k_i-1) and as strings with 64-byte values. --keys hex32 (default): 32 lower-case
// hex digits, the shape of PUTTOKENS' keys, strings SET prefixbench:k_i; --keys bin16:
// 16 raw bytes (a 128-bit hash as binary, what a client that hashes its own blocks can
// send), strings SET k_i (the same 16 bytes, no prefix: the smallest EXISTS request).
// Modes, each `reps` timed rounds after 20 warm-up rounds, one request written with one
// send, all replies read:
//   longest  PCACHE.LONGEST prefixbench:ns k_1 .. k_N          -> N
//   blob     PCACHE.LONGESTBLOB prefixbench:ns W k_1..k_N      -> N (one argument; W the
//            key width, 32 or 16)
//   exists   EXISTS <string key 1> .. EXISTS <string key N>, pipelined -> N x 1
//   floor    no server: a thread of this process receives the longest, the blob and the
//            exists requests' bytes and writes the same replies, parsing nothing (what
//            the kernel's loopback costs for those bytes; its CPU per round is the
//            thread's).
// Per row: request bytes, round trip (median, p10, p90 µs), server CPU per round (µs: the
// sum of /proc/PID/task/*/schedstat run time, and utime/stime from /proc/PID/stat, 10 ms
// ticks, so only meaningful over many rounds), and CPU per block (ns).
// Against a Redis peer: --modes exists (the setup writes only what the modes need).
#include <arpa/inet.h>
#include <dirent.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
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

int Connect(int port) {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  int one = 1;
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
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

void Append(std::string* out, const std::vector<std::string>& args) {
  *out += "*" + std::to_string(args.size()) + "\r\n";
  for (const std::string& a : args) {
    *out += "$" + std::to_string(a.size()) + "\r\n";
    *out += a;
    *out += "\r\n";
  }
}

// Reads until `lines` reply lines (each ends in CRLF; only one-line replies are expected)
// have come; returns them concatenated.
std::string ReadLines(int fd, size_t lines) {
  static std::vector<char> buf(1 << 20);
  std::string got;
  size_t seen = 0;
  while (seen < lines) {
    ssize_t k = recv(fd, buf.data(), buf.size(), 0);
    if (k <= 0) Die("recv");
    for (ssize_t i = 0; i < k; i++) seen += buf[static_cast<size_t>(i)] == '\n';
    got.append(buf.data(), static_cast<size_t>(k));
  }
  return got;
}

struct Cpu {
  double run_s = 0;         // schedstat, all threads
  double user_s = 0, sys_s = 0;  // /proc/PID/stat ticks
};

Cpu ReadCpu(int pid) {
  Cpu c;
  if (pid <= 0) return c;
  char path[128];
  snprintf(path, sizeof(path), "/proc/%d/stat", pid);
  if (FILE* f = fopen(path, "r")) {
    char line[4096];
    size_t n = fread(line, 1, sizeof(line) - 1, f);
    fclose(f);
    line[n] = 0;
    unsigned long ut = 0, st = 0;
    if (char* p = strrchr(line, ')')) {
      sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %lu %lu", &ut, &st);
    }
    const double hz = static_cast<double>(sysconf(_SC_CLK_TCK));
    c.user_s = static_cast<double>(ut) / hz;
    c.sys_s = static_cast<double>(st) / hz;
  }
  snprintf(path, sizeof(path), "/proc/%d/task", pid);
  if (DIR* d = opendir(path)) {
    while (dirent* e = readdir(d)) {
      if (e->d_name[0] == '.') continue;
      char p2[256];
      snprintf(p2, sizeof(p2), "/proc/%d/task/%s/schedstat", pid, e->d_name);
      if (FILE* f = fopen(p2, "r")) {
        unsigned long long ns = 0;
        if (fscanf(f, "%llu", &ns) == 1) c.run_s += static_cast<double>(ns) / 1e9;
        fclose(f);
      }
    }
    closedir(d);
  }
  return c;
}

double ThreadCpu() {
  timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) / 1e9;
}

struct Row {
  std::string name;
  size_t request_bytes = 0;
  std::vector<double> rtt;
  Cpu cpu;  // per round
};

void Print(const Row& r, size_t blocks) {
  std::vector<double> s = r.rtt;
  std::sort(s.begin(), s.end());
  auto q = [&](double f) { return s[std::min(s.size() - 1, static_cast<size_t>(f * s.size()))] * 1e6; };
  printf("%-8s %8zu B  rtt median %8.1f us  p10 %8.1f  p90 %8.1f  |  server CPU %8.1f us/round"
         " (user %7.1f sys %7.1f)  %6.1f ns/block\n",
         r.name.c_str(), r.request_bytes, q(0.5), q(0.1), q(0.9), r.cpu.run_s * 1e6,
         r.cpu.user_s * 1e6, r.cpu.sys_s * 1e6, r.cpu.run_s * 1e9 / static_cast<double>(blocks));
  fflush(stdout);
}

// Times `reps` rounds of `req` -> `lines` reply lines, each checked against `expect`.
Row Rounds(const std::string& name, int fd, const std::string& req, size_t lines,
           const std::string& expect, int reps, int pid) {
  Row r{name, req.size(), {}, {}};
  for (int i = 0; i < 20; i++) {
    SendAll(fd, req.data(), req.size());
    std::string got = ReadLines(fd, lines);
    if (got != expect) {
      fprintf(stderr, "%s: unexpected reply %.60s (%zu bytes)\n", name.c_str(), got.c_str(), got.size());
      exit(1);
    }
  }
  const Cpu c0 = ReadCpu(pid);
  for (int i = 0; i < reps; i++) {
    const double t0 = Now();
    SendAll(fd, req.data(), req.size());
    ReadLines(fd, lines);
    r.rtt.push_back(Now() - t0);
  }
  const Cpu c1 = ReadCpu(pid);
  r.cpu.run_s = (c1.run_s - c0.run_s) / reps;
  r.cpu.user_s = (c1.user_s - c0.user_s) / reps;
  r.cpu.sys_s = (c1.sys_s - c0.sys_s) / reps;
  return r;
}

// The floor: a thread that reads `req_bytes` and answers `reply`, per round; its CPU per
// round is reported as the "server" CPU (run time only: no user/sys split).
Row Floor(const std::string& name, const std::string& req, const std::string& reply, int reps) {
  int lfd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (bind(lfd, reinterpret_cast<sockaddr*>(&a), sizeof(a)) != 0) Die("bind");
  socklen_t al = sizeof(a);
  getsockname(lfd, reinterpret_cast<sockaddr*>(&a), &al);
  listen(lfd, 1);
  double thread_cpu = 0;
  const int total = reps + 20;
  std::thread server([&] {
    int s = accept(lfd, nullptr, nullptr);
    int one = 1;
    setsockopt(s, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
    std::vector<char> buf(256 * 1024);
    double c0 = 0;
    for (int round = 0; round < total; round++) {
      if (round == 20) c0 = ThreadCpu();
      size_t got = 0;
      while (got < req.size()) {
        ssize_t k = recv(s, buf.data(), buf.size(), 0);
        if (k <= 0) Die("floor recv");
        got += static_cast<size_t>(k);
      }
      SendAll(s, reply.data(), reply.size());
    }
    thread_cpu = (ThreadCpu() - c0) / reps;
    close(s);
  });
  int fd = Connect(ntohs(a.sin_port));
  size_t lines = static_cast<size_t>(std::count(reply.begin(), reply.end(), '\n'));
  Row r = Rounds(name, fd, req, lines, reply, reps, 0);
  server.join();
  close(fd);
  close(lfd);
  r.cpu.run_s = thread_cpu;
  return r;
}

}  // namespace

int main(int argc, char** argv) {
  int port = 0, reps = 300, pid = 0, setup = 1;
  size_t blocks = 4000;
  std::string modes = "longest,blob,exists,floor";
  std::string key_form = "hex32";
  for (int i = 1; i + 1 < argc; i += 2) {
    std::string k = argv[i];
    if (k == "--port") port = atoi(argv[i + 1]);
    else if (k == "--blocks") blocks = static_cast<size_t>(atol(argv[i + 1]));
    else if (k == "--reps") reps = atoi(argv[i + 1]);
    else if (k == "--pid") pid = atoi(argv[i + 1]);
    else if (k == "--modes") modes = argv[i + 1];
    else if (k == "--setup") setup = atoi(argv[i + 1]);
    else if (k == "--keys") key_form = argv[i + 1];
    else {
      fprintf(stderr, "unknown option %s\n", k.c_str());
      return 2;
    }
  }
  auto has = [&](const char* m) { return ("," + modes + ",").find(std::string(",") + m + ",") != std::string::npos; };
  std::mt19937_64 rng(19);
  if (key_form != "hex32" && key_form != "bin16") {
    fprintf(stderr, "--keys must be hex32 or bin16\n");
    return 2;
  }
  const bool bin = key_form == "bin16";
  std::vector<std::string> keys(blocks);
  for (std::string& k : keys) {
    const uint64_t hi = rng(), lo = rng();
    if (bin) {
      k.resize(16);
      memcpy(k.data(), &hi, 8);
      memcpy(k.data() + 8, &lo, 8);
    } else {
      char hex[33];
      snprintf(hex, sizeof(hex), "%016llx%016llx", static_cast<unsigned long long>(hi),
               static_cast<unsigned long long>(lo));
      k = hex;
    }
  }
  const std::string width = std::to_string(keys.empty() ? 32 : keys[0].size());
  auto string_key = [&](const std::string& k) { return bin ? k : "prefixbench:" + k; };
  const std::string ns = "prefixbench:ns";
  const std::string value(64, 'v');
  const std::string n_reply = ":" + std::to_string(blocks) + "\r\n";
  std::string exists_reply;
  for (size_t i = 0; i < blocks; i++) exists_reply += ":1\r\n";

  std::vector<std::string> longest_args = {"PCACHE.LONGEST", ns};
  longest_args.insert(longest_args.end(), keys.begin(), keys.end());
  std::string longest_req, blob_req, exists_req;
  Append(&longest_req, longest_args);
  std::string blob;
  for (const std::string& k : keys) blob += k;
  Append(&blob_req, {"PCACHE.LONGESTBLOB", ns, width, blob});
  for (const std::string& k : keys) Append(&exists_req, {"EXISTS", string_key(k)});

  printf("# hotkv-prefixbench: %zu blocks, keys %s, %d rounds per row (after 20 warm-up rounds), port %d, pid %d\n",
         blocks, key_form.c_str(), reps, port, pid);
  if (has("longest") || has("blob") || has("exists")) {
    if (port == 0) {
      fprintf(stderr, "--port needed\n");
      return 2;
    }
    int fd = Connect(port);
    if (setup) {
      std::string req;
      size_t n = 0;
      auto flush = [&] {
        SendAll(fd, req.data(), req.size());
        ReadLines(fd, n);
        req.clear();
        n = 0;
      };
      if (has("longest") || has("blob")) {
        Append(&req, {"DEL", ns});
        Append(&req, {"PCACHE.CREATE", ns});
        n += 2;
        for (size_t i = 0; i < blocks; i++) {
          if (i == 0) Append(&req, {"PCACHE.PUT", ns, keys[i], value});
          else Append(&req, {"PCACHE.PUT", ns, keys[i], value, "PARENT", keys[i - 1]});
          if (++n == 500) flush();
        }
      }
      if (has("exists")) {
        for (size_t i = 0; i < blocks; i++) {
          Append(&req, {"SET", string_key(keys[i]), value});
          if (++n == 500) flush();
        }
      }
      flush();
    }
    if (has("longest")) Print(Rounds("longest", fd, longest_req, 1, n_reply, reps, pid), blocks);
    if (has("blob")) Print(Rounds("blob", fd, blob_req, 1, n_reply, reps, pid), blocks);
    if (has("exists")) Print(Rounds("exists", fd, exists_req, blocks, exists_reply, reps, pid), blocks);
    close(fd);
  }
  if (has("floor")) {
    Print(Floor("floor-L", longest_req, n_reply, reps), blocks);
    Print(Floor("floor-B", blob_req, n_reply, reps), blocks);
    Print(Floor("floor-E", exists_req, exists_reply, reps), blocks);
  }
  return 0;
}
