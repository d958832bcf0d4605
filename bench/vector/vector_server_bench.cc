// Vector search benchmark THROUGH a running HotKV server (issue 6): a pipelined loader
// and a closed-loop query driver over real connections, on the data sets and exact
// ground truth of the in-process engine benchmark (bench_data.h).
//
//   vector_server_bench load  --port=P --key=K --dialect=vsim|vadd [data flags]
//                             [--conns=4] [--pipeline=16] [--metric=l2|cosine]
//   vector_server_bench query --port=P --key=K --dialect=vsim|vadd [data flags]
//                             [--ef=40,80,150,300,500] [--clients=1,2,4,8,16,32]
//                             [--run-queries=N] [--reps=1] [--min-seconds=1]
//                             [--server-pid=PID]
//
// Data flags (as vector_engine_bench, so the ground-truth cache is shared):
//   --dataset=fashion|synthetic --fashion-dir=DIR --n --dim --queries --clusters --noise
//   --seed --data-dir=bench/vector/data
// --metric=cosine (fashion only): unit-normalised vectors and cosine ground truth, so
// the set can be loaded with VADD (--dialect=vadd) into HotKV or Redis 8.
// For fashion, --n (< 60000) keeps the first n training vectors (quick runs); the
// ground truth is then computed for that subset. --queries is the size of the held-out
// set the ground truth is cached for; --run-queries (default: all) how many of its first
// queries each measurement point runs.
//
// Dialects:
//   vsim: VSIM.CREATEINDEX key DIM d METRIC <metric> TYPE FLOAT32 M 16 EF_CONSTRUCTION 200,
//         VSIM.SET key <id> FP32 <blob>, VSIM.SEARCH key FP32 <blob> K 10 EF <ef>
//   vadd: VADD key FP32 <blob> <id> NOQUANT EF 200 M 16 (cosine only),
//         VSIM key FP32 <blob> COUNT 10 EF <ef>
// Element names are the decimal vector index, so a reply maps back to ground-truth ids.
//
// One thread, epoll, non-blocking sockets to 127.0.0.1. Results: one JSON object per
// line on stdout; progress and a readable summary on stderr.
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "bench_data.h"

namespace hotkv::bench {
namespace {

using Clock = std::chrono::steady_clock;

double Seconds(Clock::time_point a, Clock::time_point b) {
  return std::chrono::duration<double>(b - a).count();
}

double SelfCpuSeconds() {
  rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  return static_cast<double>(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
         static_cast<double>(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1e-6;
}

// utime + stime of a whole process (all threads) from /proc/<pid>/stat; -1 if unknown.
// VmRSS of process `pid` in kB, or -1.
long ProcessRssKb(long pid) {
  if (pid <= 0) {
    return -1;
  }
  std::ifstream in("/proc/" + std::to_string(pid) + "/status");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("VmRSS:", 0) == 0) {
      return std::atol(line.c_str() + 6);
    }
  }
  return -1;
}

double ProcessCpuSeconds(long pid) {
  if (pid <= 0) {
    return -1;
  }
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string all((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  size_t close = all.rfind(')');
  if (close == std::string::npos) {
    return -1;
  }
  std::istringstream rest(all.substr(close + 2));
  std::string field;
  unsigned long long utime = 0, stime = 0;
  // After ")": field 3 (state) ... utime is field 14, stime field 15.
  for (int f = 3; f <= 15 && rest >> field; ++f) {
    if (f == 14) {
      utime = std::stoull(field);
    } else if (f == 15) {
      stime = std::stoull(field);
    }
  }
  return static_cast<double>(utime + stime) / static_cast<double>(sysconf(_SC_CLK_TCK));
}

struct Flags {
  std::map<std::string, std::string> kv;
  std::string Get(const std::string& k, const std::string& def) const {
    auto it = kv.find(k);
    return it == kv.end() ? def : it->second;
  }
  size_t GetInt(const std::string& k, size_t def) const {
    auto it = kv.find(k);
    return it == kv.end() ? def : std::stoull(it->second);
  }
  double GetDouble(const std::string& k, double def) const {
    auto it = kv.find(k);
    return it == kv.end() ? def : std::stod(it->second);
  }
  bool Has(const std::string& k) const { return kv.count(k) != 0; }
};

std::vector<size_t> ParseList(const std::string& list) {
  std::vector<size_t> out;
  for (size_t pos = 0; pos < list.size();) {
    size_t comma = list.find(',', pos);
    out.push_back(std::stoull(list.substr(pos, comma - pos)));
    pos = comma == std::string::npos ? list.size() : comma + 1;
  }
  return out;
}

// ---------------------------------------------------------------------------------------
// RESP

void AppendBulk(std::string* out, std::string_view s) {
  out->push_back('$');
  out->append(std::to_string(s.size()));
  out->append("\r\n");
  out->append(s.data(), s.size());
  out->append("\r\n");
}

void AppendCommand(std::string* out, const std::vector<std::string_view>& args) {
  out->push_back('*');
  out->append(std::to_string(args.size()));
  out->append("\r\n");
  for (std::string_view a : args) {
    AppendBulk(out, a);
  }
}

struct Reply {
  char type = 0;  // '+', '-', ':', '$', '*', '_' (null), '#', ',' ...
  std::string str;
  long long integer = 0;
  std::vector<Reply> elements;
  bool IsError() const { return type == '-' || type == '!'; }
};

// Parses one reply from p[0..n). Returns bytes consumed, 0 if incomplete, -1 on a
// protocol error.
long ParseReply(const char* p, size_t n, Reply* out) {
  const char* end = static_cast<const char*>(memchr(p, '\r', n));
  if (end == nullptr || static_cast<size_t>(end - p) + 2 > n) {
    return 0;
  }
  const size_t line = static_cast<size_t>(end - p);
  std::string_view body(p + 1, line - 1);
  const size_t header = line + 2;
  out->type = p[0];
  switch (p[0]) {
    case '+':
    case '-':
    case ',':
    case '(':
      out->str.assign(body);
      return static_cast<long>(header);
    case ':':
    case '#':
      out->integer = std::strtoll(std::string(body).c_str(), nullptr, 10);
      return static_cast<long>(header);
    case '_':
      return static_cast<long>(header);
    case '$':
    case '!':
    case '=': {
      long long len = std::strtoll(std::string(body).c_str(), nullptr, 10);
      if (len < 0) {
        out->type = '_';
        return static_cast<long>(header);
      }
      if (header + static_cast<size_t>(len) + 2 > n) {
        return 0;
      }
      out->str.assign(p + header, static_cast<size_t>(len));
      if (p[0] == '!') {
        out->type = '-';
      }
      return static_cast<long>(header + static_cast<size_t>(len) + 2);
    }
    case '*':
    case '~':
    case '>':
    case '%': {
      long long count = std::strtoll(std::string(body).c_str(), nullptr, 10);
      if (count < 0) {
        out->type = '_';
        return static_cast<long>(header);
      }
      if (p[0] == '%') {
        count *= 2;
      }
      out->type = '*';
      out->elements.resize(static_cast<size_t>(count));
      size_t pos = header;
      for (auto& e : out->elements) {
        long used = ParseReply(p + pos, n - pos, &e);
        if (used <= 0) {
          return used;
        }
        pos += static_cast<size_t>(used);
      }
      return static_cast<long>(pos);
    }
    default:
      return -1;
  }
}

std::string Describe(const Reply& r) {
  switch (r.type) {
    case '-':
      return "error: " + r.str;
    case ':':
      return "integer " + std::to_string(r.integer);
    case '*':
      return "array of " + std::to_string(r.elements.size());
    case '_':
      return "null";
    default:
      return std::string(1, r.type) + r.str;
  }
}

// ---------------------------------------------------------------------------------------
// Connections

int Connect(const std::string& host, int port) {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) {
    return -1;
  }
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(port));
  inet_pton(AF_INET, host.c_str(), &addr.sin_addr);
  if (connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0) {
    close(fd);
    return -1;
  }
  int one = 1;
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
  fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
  return fd;
}

struct Pending {
  size_t item;  // vector id (load) or query index (query)
  Clock::time_point sent;
};

struct Conn {
  int fd = -1;
  std::string out;
  size_t out_pos = 0;
  std::string in;
  size_t in_pos = 0;
  std::deque<Pending> inflight;
  bool dead = false;
  bool want_out = false;  // registered for EPOLLOUT (a write did not complete)
};

// A synchronous command on a blocking-style use of a connection (setup, checks).
bool Call(Conn& c, const std::vector<std::string_view>& args, Reply* reply) {
  std::string cmd;
  AppendCommand(&cmd, args);
  size_t off = 0;
  while (off < cmd.size()) {
    ssize_t w = write(c.fd, cmd.data() + off, cmd.size() - off);
    if (w < 0 && errno != EAGAIN && errno != EINTR) {
      return false;
    }
    if (w > 0) {
      off += static_cast<size_t>(w);
    }
  }
  std::string buf;
  char tmp[65536];
  for (;;) {
    long used = ParseReply(buf.data(), buf.size(), reply);
    if (used > 0) {
      return true;
    }
    if (used < 0) {
      return false;
    }
    ssize_t r = read(c.fd, tmp, sizeof(tmp));
    if (r == 0) {
      return false;
    }
    if (r < 0) {
      if (errno == EAGAIN || errno == EINTR) {
        usleep(100);
        continue;
      }
      return false;
    }
    buf.append(tmp, static_cast<size_t>(r));
  }
}

// Event loop over a set of connections. The driver supplies:
//   refill(conn_index, Conn&)        queue more requests (append to out, push inflight)
//   on_reply(conn_index, Pending, Reply, now)
//   done()                           true when the run is over
template <typename Refill, typename OnReply, typename Done, typename Tick>
bool RunLoop(std::vector<Conn*>& conns, Refill refill, OnReply on_reply, Done done, Tick tick) {
  int ep = epoll_create1(0);
  for (size_t i = 0; i < conns.size(); ++i) {
    epoll_event ev{};
    ev.events = EPOLLIN | EPOLLET;
    ev.data.u64 = i;
    epoll_ctl(ep, EPOLL_CTL_ADD, conns[i]->fd, &ev);
  }
  // EPOLLOUT only while a write is incomplete: on loopback every drained send buffer
  // would otherwise wake the loop once more per request.
  auto flush = [ep](Conn& c, size_t i) {
    while (c.out_pos < c.out.size()) {
      ssize_t w = write(c.fd, c.out.data() + c.out_pos, c.out.size() - c.out_pos);
      if (w < 0) {
        if (errno == EINTR) {
          continue;
        }
        if (errno != EAGAIN) {
          c.dead = true;
        }
        break;
      }
      c.out_pos += static_cast<size_t>(w);
    }
    const bool pending = c.out_pos < c.out.size();
    if (!pending) {
      c.out.clear();
      c.out_pos = 0;
    } else if (c.out_pos > (1u << 20)) {
      c.out.erase(0, c.out_pos);
      c.out_pos = 0;
    }
    if (pending != c.want_out) {
      c.want_out = pending;
      epoll_event ev{};
      ev.events = EPOLLIN | EPOLLET | (pending ? EPOLLOUT : 0u);
      ev.data.u64 = i;
      epoll_ctl(ep, EPOLL_CTL_MOD, c.fd, &ev);
    }
  };
  for (size_t i = 0; i < conns.size(); ++i) {
    refill(i, *conns[i]);
    flush(*conns[i], i);
  }
  bool ok = true;
  std::vector<epoll_event> events(conns.size() + 1);
  char buf[1 << 16];
  Reply reply;
  while (!done()) {
    int n = epoll_wait(ep, events.data(), static_cast<int>(events.size()), 100);
    if (n < 0 && errno != EINTR) {
      ok = false;
      break;
    }
    for (int e = 0; e < n; ++e) {
      const size_t i = events[e].data.u64;
      Conn& c = *conns[i];
      if (events[e].events & (EPOLLIN | EPOLLHUP | EPOLLERR)) {
        for (;;) {
          ssize_t r = read(c.fd, buf, sizeof(buf));
          if (r > 0) {
            c.in.append(buf, static_cast<size_t>(r));
            if (static_cast<size_t>(r) < sizeof(buf)) {
              break;  // drained: new data raises a new edge (saves a read per reply)
            }
            continue;
          }
          if (r == 0) {
            c.dead = true;
          } else if (errno == EINTR) {
            continue;
          } else if (errno != EAGAIN) {
            c.dead = true;
          }
          break;
        }
        const Clock::time_point now = Clock::now();
        for (;;) {
          long used = ParseReply(c.in.data() + c.in_pos, c.in.size() - c.in_pos, &reply);
          if (used == 0) {
            break;
          }
          if (used < 0 || c.inflight.empty()) {
            std::fprintf(stderr, "protocol error or unexpected reply on connection %zu\n", i);
            c.dead = true;
            break;
          }
          c.in_pos += static_cast<size_t>(used);
          Pending p = c.inflight.front();
          c.inflight.pop_front();
          on_reply(i, p, reply, now);
        }
        if (c.in_pos == c.in.size()) {
          c.in.clear();
          c.in_pos = 0;
        } else if (c.in_pos > (1u << 20)) {
          c.in.erase(0, c.in_pos);
          c.in_pos = 0;
        }
        refill(i, c);
      }
      flush(c, i);
      if (c.dead) {
        std::fprintf(stderr, "connection %zu closed by the server\n", i);
        ok = false;
      }
    }
    tick();
    if (!ok) {
      break;
    }
  }
  close(ep);
  return ok;
}

// ---------------------------------------------------------------------------------------
// Data

std::optional<Dataset> LoadData(const Flags& flags) {
  Dataset ds;
  if (flags.Get("dataset", "fashion") == "fashion") {
    auto loaded = LoadFashionMnist(flags.Get("fashion-dir", "/usr/share/datasets/fashion-mnist"),
                                   flags.GetInt("queries", 10000));
    if (!loaded) {
      return std::nullopt;
    }
    ds = std::move(*loaded);
    AdaptDataset(&ds, flags.GetInt("n", ds.n), flags.Get("metric", "l2") == "cosine");
  } else {
    ds = MakeEmbeddingLike(flags.GetInt("n", 100000), flags.GetInt("queries", 1000),
                           static_cast<uint32_t>(flags.GetInt("dim", 128)),
                           flags.GetInt("clusters", 1000), std::stod(flags.Get("noise", "3")),
                           flags.GetInt("seed", 1));
  }
  return ds;
}

std::string_view Blob(const float* v, uint32_t dim) {
  // The benchmark runs on little-endian x86-64, so the in-memory floats are the wire format.
  return {reinterpret_cast<const char*>(v), dim * sizeof(float)};
}

// Progress on stderr: a redrawn bar on a terminal, a line per 10 % otherwise.
class Progress {
 public:
  Progress(std::string label, size_t total)
      : label_(std::move(label)), total_(total), tty_(isatty(2)), start_(Clock::now()) {}
  void Update(size_t done, bool final = false) {
    const Clock::time_point now = Clock::now();
    const double el = Seconds(start_, now);
    const size_t decile = total_ ? done * 10 / total_ : 10;
    if (final ? !tty_ && last_decile_ == 10 && done == total_
              : tty_ ? Seconds(last_, now) < 0.2 : decile <= last_decile_) {
      return;
    }
    last_ = now;
    last_decile_ = decile;
    const double rate = el > 0 ? static_cast<double>(done) / el : 0;
    const double eta = rate > 0 ? static_cast<double>(total_ - done) / rate : 0;
    const int width = 30;
    const int filled = total_ ? static_cast<int>(width * done / total_) : width;
    std::string bar(static_cast<size_t>(filled), '#');
    bar.append(static_cast<size_t>(width - filled), '.');
    std::fprintf(stderr, "%s%s [%s] %zu/%zu %5.1f%% %.0f/s %.0fs left%s", tty_ ? "\r" : "",
                 label_.c_str(), bar.c_str(), done, total_,
                 total_ ? 100.0 * static_cast<double>(done) / static_cast<double>(total_) : 100.0,
                 rate, eta, tty_ && !final ? "   " : "\n");
  }

 private:
  std::string label_;
  size_t total_;
  bool tty_;
  Clock::time_point start_;
  Clock::time_point last_{};
  size_t last_decile_ = 0;
};

std::string JsonEscape(const std::string& s) {
  std::string out;
  for (char ch : s) {
    if (ch == '"' || ch == '\\') {
      out.push_back('\\');
      out.push_back(ch);
    } else if (static_cast<unsigned char>(ch) < 0x20) {
      out += ' ';
    } else {
      out.push_back(ch);
    }
  }
  return out;
}

std::vector<Conn> OpenConns(const std::string& host, int port, size_t count) {
  std::vector<Conn> conns(count);
  for (auto& c : conns) {
    c.fd = Connect(host, port);
    if (c.fd < 0) {
      std::fprintf(stderr, "cannot connect to %s:%d: %s\n", host.c_str(), port, strerror(errno));
      std::exit(1);
    }
  }
  return conns;
}

// ---------------------------------------------------------------------------------------
// load

int Load(const Flags& flags, const Dataset& ds) {
  const std::string host = flags.Get("host", "127.0.0.1");
  const int port = static_cast<int>(flags.GetInt("port", 6379));
  const std::string key = flags.Get("key", "vbench");
  const std::string dialect = flags.Get("dialect", ds.cosine ? "vadd" : "vsim");
  const size_t nconns = flags.GetInt("conns", 4);
  const size_t depth = flags.GetInt("pipeline", 16);
  const size_t m = flags.GetInt("m", 16);
  const size_t efc = flags.GetInt("ef-construction", 200);
  const std::string m_str = std::to_string(m), efc_str = std::to_string(efc);
  const std::string dim_str = std::to_string(ds.dim);
  if (dialect == "vadd" && !ds.cosine) {
    std::fprintf(stderr, "VADD sets are cosine; use --dialect=vsim for an L2 data set\n");
    return 2;
  }
  std::vector<Conn> storage = OpenConns(host, port, nconns);
  std::vector<Conn*> conns;
  for (auto& c : storage) {
    conns.push_back(&c);
  }
  if (dialect == "vsim") {
    Reply r;
    if (!Call(storage[0],
              {"VSIM.CREATEINDEX", key, "DIM", dim_str, "METRIC", ds.cosine ? "COSINE" : "L2",
               "TYPE", "FLOAT32", "M", m_str, "EF_CONSTRUCTION", efc_str},
              &r) ||
        r.type != '+') {
      std::fprintf(stderr, "VSIM.CREATEINDEX failed: %s\n", Describe(r).c_str());
      return 1;
    }
  }
  size_t next = 0, done = 0, errors = 0;
  std::string first_error;
  Progress progress("load " + key + " (" + std::to_string(nconns) + " conns)", ds.n);
  const double cpu0 = SelfCpuSeconds();
  const double srv0 = ProcessCpuSeconds(static_cast<long>(flags.GetInt("server-pid", 0)));
  const Clock::time_point t0 = Clock::now();
  std::string id;
  auto refill = [&](size_t, Conn& c) {
    while (c.inflight.size() < depth && next < ds.n) {
      id = std::to_string(next);
      if (dialect == "vsim") {
        AppendCommand(&c.out, {"VSIM.SET", key, id, "FP32", Blob(ds.Base(next), ds.dim)});
      } else {
        AppendCommand(&c.out, {"VADD", key, "FP32", Blob(ds.Base(next), ds.dim), id, "NOQUANT",
                               "EF", efc_str, "M", m_str});
      }
      c.inflight.push_back({next, Clock::now()});
      ++next;
    }
  };
  auto on_reply = [&](size_t, const Pending&, const Reply& r, Clock::time_point) {
    ++done;
    const bool good = dialect == "vsim" ? r.type == ':' && r.integer == 1
                                        : (r.type == ':' && r.integer == 1) || r.type == '#';
    if (!good) {
      if (errors++ == 0) {
        first_error = Describe(r);
      }
    }
  };
  // The server's RSS when half the vectors are in and at the end: the growth between the
  // two is the marginal cost of a vector, without the fixed costs (I/O buffers, thread
  // heaps) that the first requests bring into memory.
  const long server_pid = static_cast<long>(flags.GetInt("server-pid", 0));
  const size_t half = ds.n / 2;
  long rss_half_kb = -1;
  size_t done_at_half = 0;
  bool ok = RunLoop(
      conns, refill, on_reply, [&] { return done == ds.n; },
      [&] {
        progress.Update(done);
        if (rss_half_kb < 0 && done >= half) {
          rss_half_kb = ProcessRssKb(server_pid);
          done_at_half = done;
        }
      });
  const long rss_end_kb = ProcessRssKb(server_pid);
  const double secs = Seconds(t0, Clock::now());
  const double cpu = SelfCpuSeconds() - cpu0;
  const double srv1 = ProcessCpuSeconds(static_cast<long>(flags.GetInt("server-pid", 0)));
  progress.Update(done, true);
  size_t card = 0;
  {
    Reply r;
    if (Call(storage[0], {dialect == "vsim" ? "VSIM.CARD" : "VCARD", key}, &r) && r.type == ':') {
      card = static_cast<size_t>(r.integer);
    }
  }
  for (auto& c : storage) {
    close(c.fd);
  }
  std::printf(
      "{\"mode\":\"load\",\"dataset\":\"%s\",\"dialect\":\"%s\",\"key\":\"%s\",\"n\":%zu,"
      "\"dim\":%u,\"conns\":%zu,\"pipeline\":%zu,\"seconds\":%.3f,\"rate\":%.1f,"
      "\"client_cpu_s\":%.3f,\"server_cpu_s\":%.3f,\"errors\":%zu,\"first_error\":\"%s\","
      "\"card\":%zu,\"rss_half_kb\":%ld,\"done_at_half\":%zu,\"rss_end_kb\":%ld,\"ok\":%s}\n",
      ds.name.c_str(), dialect.c_str(), key.c_str(), done, ds.dim, nconns, depth, secs,
      static_cast<double>(done) / secs, cpu, srv0 >= 0 ? srv1 - srv0 : -1.0, errors,
      JsonEscape(first_error).c_str(), card, rss_half_kb, done_at_half, rss_end_kb,
      ok && errors == 0 && card == ds.n ? "true" : "false");
  std::fflush(stdout);
  std::fprintf(stderr, "loaded %zu vectors in %.1f s: %.0f vectors/s; errors %zu%s%s; card %zu\n",
               done, secs, static_cast<double>(done) / secs, errors,
               errors ? ", first: " : "", first_error.c_str(), card);
  return ok && errors == 0 && card == ds.n ? 0 : 1;
}

// ---------------------------------------------------------------------------------------
// query

double Percentile(std::vector<double>& v, double p) {
  if (v.empty()) {
    return NAN;
  }
  const size_t idx = std::min(v.size() - 1, static_cast<size_t>(p * static_cast<double>(v.size())));
  std::nth_element(v.begin(), v.begin() + static_cast<long>(idx), v.end());
  return v[idx];
}

int Query(const Flags& flags, const Dataset& ds) {
  const std::string host = flags.Get("host", "127.0.0.1");
  const int port = static_cast<int>(flags.GetInt("port", 6379));
  const std::string key = flags.Get("key", "vbench");
  const std::string dialect = flags.Get("dialect", ds.cosine ? "vadd" : "vsim");
  const size_t k = 10;
  const std::vector<size_t> efs = ParseList(flags.Get("ef", "40,80,150,300,500"));
  const std::vector<size_t> clients = ParseList(flags.Get("clients", "1,2,4,8,16,32"));
  const size_t reps = flags.GetInt("reps", 1);
  const double min_seconds = flags.GetDouble("min-seconds", 1.0);
  const long server_pid = static_cast<long>(flags.GetInt("server-pid", 0));
  const size_t nq = std::min(ds.nq, flags.GetInt("run-queries", ds.nq));
  const std::vector<int32_t> gt = GroundTruth(ds, k, flags.Get("data-dir", "bench/vector/data"),
                                              static_cast<int>(flags.GetInt("threads", 2)));
  // The fixed prefix of every query command (all but the EF value), built once.
  std::vector<std::string> prefix(nq);
  for (size_t q = 0; q < nq; ++q) {
    std::string& s = prefix[q];
    std::string_view blob = Blob(ds.Query(q), ds.dim);
    if (dialect == "vsim") {
      s = "*8\r\n";
      AppendBulk(&s, "VSIM.SEARCH");
      AppendBulk(&s, key);
      AppendBulk(&s, "FP32");
      AppendBulk(&s, blob);
      AppendBulk(&s, "K");
      AppendBulk(&s, "10");
    } else {
      s = "*8\r\n";
      AppendBulk(&s, "VSIM");
      AppendBulk(&s, key);
      AppendBulk(&s, "FP32");
      AppendBulk(&s, blob);
      AppendBulk(&s, "COUNT");
      AppendBulk(&s, "10");
    }
    AppendBulk(&s, "EF");
  }
  const size_t max_clients = *std::max_element(clients.begin(), clients.end());
  std::vector<Conn> storage = OpenConns(host, port, max_clients);
  {
    Reply r;
    if (!Call(storage[0], {dialect == "vsim" ? "VSIM.CARD" : "VCARD", key}, &r) ||
        r.type != ':' || static_cast<size_t>(r.integer) != ds.n) {
      std::fprintf(stderr, "key %s holds %s, expected %zu elements: load it first\n", key.c_str(),
                   Describe(r).c_str(), ds.n);
      return 1;
    }
  }

  struct Point {
    double qps, p50_us, p99_us, recall, seconds, server_cpu_s, client_cpu_s;
    size_t done, errors;
    std::string first_error;
  };
  // One closed-loop run: `nc` connections, one query in flight each, queries in order
  // (query index = issue count mod nq) until every query ran once and min_secs passed.
  auto run = [&](size_t ef, size_t nc, double min_secs, bool show) -> Point {
    const std::string ef_bulk = [&] {
      std::string s;
      AppendBulk(&s, std::to_string(ef));
      return s;
    }();
    std::vector<Conn*> conns;
    for (size_t i = 0; i < nc; ++i) {
      conns.push_back(&storage[i]);
    }
    size_t issued = 0, done = 0, errors = 0;
    std::string first_error;
    std::vector<double> lat;
    lat.reserve(nq * 2);
    std::vector<float> recall(nq, -1.0f);
    const double cpu0 = SelfCpuSeconds();
    const double srv0 = ProcessCpuSeconds(server_pid);
    const Clock::time_point t0 = Clock::now();
    bool stop = false;
    Progress progress("ef " + std::to_string(ef) + ", " + std::to_string(nc) + " clients", nq);
    auto refill = [&](size_t, Conn& c) {
      if (c.inflight.empty() && !stop) {
        const size_t q = issued++ % nq;
        c.out += prefix[q];
        c.out += ef_bulk;
        c.inflight.push_back({q, Clock::now()});
      }
    };
    auto on_reply = [&](size_t, const Pending& p, const Reply& r, Clock::time_point now) {
      ++done;
      lat.push_back(std::chrono::duration<double, std::micro>(now - p.sent).count());
      if (r.type != '*') {
        if (errors++ == 0) {
          first_error = Describe(r);
        }
        return;
      }
      if (recall[p.item] >= 0) {
        return;
      }
      const int32_t* truth = &gt[p.item * k];
      size_t hits = 0;
      // WITHSCORES is not asked for, so a RESP2 reply is a flat list of names.
      for (size_t j = 0; j < r.elements.size() && j < k; ++j) {
        const int32_t id = static_cast<int32_t>(std::strtol(r.elements[j].str.c_str(), nullptr, 10));
        hits += std::find(truth, truth + k, id) != truth + k;
      }
      recall[p.item] = static_cast<float>(hits) / static_cast<float>(k);
    };
    auto finished = [&] {
      if (!stop && done >= nq && Seconds(t0, Clock::now()) >= min_secs) {
        stop = true;  // no new queries; wait for the ones in flight
      }
      if (stop) {
        for (Conn* c : conns) {
          if (!c->inflight.empty()) {
            return false;
          }
        }
        return true;
      }
      return false;
    };
    bool ok = RunLoop(conns, refill, on_reply, finished, [&] {
      if (show) {
        progress.Update(std::min(done, nq));
      }
    });
    Point pt;
    pt.seconds = Seconds(t0, Clock::now());
    pt.client_cpu_s = SelfCpuSeconds() - cpu0;
    const double srv1 = ProcessCpuSeconds(server_pid);
    pt.server_cpu_s = srv0 >= 0 ? srv1 - srv0 : -1;
    if (!ok) {
      std::fprintf(stderr, "query run failed (ef %zu, %zu clients)\n", ef, nc);
      std::exit(1);
    }
    pt.done = done;
    pt.errors = errors;
    pt.first_error = first_error;
    pt.qps = static_cast<double>(done) / pt.seconds;
    pt.p50_us = Percentile(lat, 0.50);
    pt.p99_us = Percentile(lat, 0.99);
    double sum = 0;
    for (float r : recall) {
      sum += r < 0 ? 0 : r;
    }
    pt.recall = sum / static_cast<double>(nq);
    return pt;
  };

  // Warm-up (not reported): every query once at the first ef with all clients.
  run(efs.front(), max_clients, 0, false);
  std::fprintf(stderr, "%-4s %5s %7s %9s %8s %9s %9s %9s %9s\n", "rep", "ef", "clients",
               "recall@10", "q/s", "p50 us", "p99 us", "srv cores", "cli cores");
  for (size_t rep = 0; rep < reps; ++rep) {
    // Alternate the order of the points between repetitions, so that drift in the
    // machine's load does not favour one end of the sweep.
    std::vector<size_t> ef_order = efs, cl_order = clients;
    if (rep % 2 == 1) {
      std::reverse(ef_order.begin(), ef_order.end());
      std::reverse(cl_order.begin(), cl_order.end());
    }
    for (size_t ef : ef_order) {
      for (size_t nc : cl_order) {
        Point pt = run(ef, nc, min_seconds, false);
        std::printf(
            "{\"mode\":\"query\",\"dataset\":\"%s\",\"dialect\":\"%s\",\"key\":\"%s\",\"rep\":%zu,"
            "\"ef\":%zu,\"clients\":%zu,\"queries\":%zu,\"distinct_queries\":%zu,"
            "\"seconds\":%.4f,\"qps\":%.1f,\"p50_us\":%.1f,\"p99_us\":%.1f,\"recall\":%.5f,"
            "\"server_cpu_s\":%.3f,\"client_cpu_s\":%.3f,\"errors\":%zu,\"first_error\":\"%s\"}\n",
            ds.name.c_str(), dialect.c_str(), key.c_str(), rep, ef, nc, pt.done, nq, pt.seconds,
            pt.qps, pt.p50_us, pt.p99_us, pt.recall, pt.server_cpu_s, pt.client_cpu_s, pt.errors,
            JsonEscape(pt.first_error).c_str());
        std::fflush(stdout);
        std::fprintf(stderr, "%-4zu %5zu %7zu %9.4f %8.0f %9.0f %9.0f %9.2f %9.2f%s%s\n", rep, ef,
                     nc, pt.recall, pt.qps, pt.p50_us, pt.p99_us,
                     pt.server_cpu_s >= 0 ? pt.server_cpu_s / pt.seconds : NAN,
                     pt.client_cpu_s / pt.seconds, pt.errors ? "  errors: " : "",
                     pt.first_error.c_str());
        if (pt.errors) {
          return 1;
        }
      }
    }
  }
  for (auto& c : storage) {
    close(c.fd);
  }
  return 0;
}

int Main(int argc, char** argv) {
  if (argc < 2 || (std::string(argv[1]) != "load" && std::string(argv[1]) != "query")) {
    std::fprintf(stderr, "usage: vector_server_bench load|query --port=P --key=K [flags]\n");
    return 2;
  }
  Flags flags;
  for (int i = 2; i < argc; ++i) {
    std::string a = argv[i];
    if (a.rfind("--", 0) != 0) {
      std::fprintf(stderr, "bad argument %s\n", a.c_str());
      return 2;
    }
    auto eq = a.find('=');
    flags.kv[a.substr(2, eq == std::string::npos ? std::string::npos : eq - 2)] =
        eq == std::string::npos ? "1" : a.substr(eq + 1);
  }
  std::optional<Dataset> ds = LoadData(flags);
  if (!ds) {
    return 1;
  }
  return std::string(argv[1]) == "load" ? Load(flags, *ds) : Query(flags, *ds);
}

}  // namespace
}  // namespace hotkv::bench

int main(int argc, char** argv) { return hotkv::bench::Main(argc, argv); }
