// Worker: one load-generator thread — an epoll loop over the connections it owns.
//
// Each Conn may send on a RateScheduler (open loop). The worker keeps the scheduled
// connections in a min-heap by next intended send time and sleeps on a timerfd armed
// (absolute, ns resolution) for the earliest one. On each wake-up ("tick") it takes
// every connection that is due, appends ALL its due requests (each with its own
// intended time, pipelined) and sends them in one write. If the generator is late, the
// requests still carry their intended times: latency is measured from those, so a slow
// generator or a stalled server shows up in the figures instead of hiding (coordinated
// omission correction, as in wrk2). If a socket stops accepting data, the connection's
// requests wait (keeping their intended times) once kMaxPendingBytes are queued.
//
// Sleeping costs a wake-up (timer or socket) each time; where that is slow (VMs: tens
// of us) WorkerTimes::spin_ns trades a busy core for punctual sends and reply reads:
// the worker sleeps on the timer only until spin_ns before the next send, then polls.
//
// Replies are read with a streaming RespScanner; RESP2 replies come back in request
// order per connection, so each reply pops the oldest intended time of its connection.
// Replies with no outstanding request (pub/sub pushes) are passed as kUnsolicited.
// A Driver (one per worker) decides what a request is and what a reply means; it can
// also ask for closed-loop requests (load mode) from InitialRequests()/OnReply().
//
// Thread safety: a Worker and its Conns and Driver are used by the thread in Run() only;
// set up before, read stats after joining.
#pragma once

#include <cstdint>
#include <deque>
#include <memory>
#include <queue>
#include <string>
#include <utility>
#include <vector>

#include "histogram.h"
#include "rate_scheduler.h"
#include "resp_scanner.h"

namespace hotkv::loadgen {

inline constexpr uint64_t kUnsolicited = UINT64_MAX;

struct Conn {
  explicit Conn(bool capture) : scanner(capture) {}

  size_t pending_out() const { return out.size() - out_off; }

  int fd = -1;
  size_t slot = 0;         // index for the driver's own per-connection state
  int role = 0;            // driver-defined (e.g. publisher / subscriber)
  bool scheduled = false;  // sends on `schedule`
  bool in_heap = false;
  bool alive = true;
  bool want_write = false;  // EPOLLOUT registered
  RateScheduler schedule;
  std::string out;
  size_t out_off = 0;
  std::deque<uint64_t> inflight;  // intended send times of outstanding requests, oldest first
  RespScanner scanner;
};

class Driver {
 public:
  virtual ~Driver() = default;
  // Appends the bytes of one request intended at `intended_ns` to conn.out.
  virtual void AppendRequest(Conn& conn, uint64_t intended_ns) = 0;
  // One complete reply. `intended_ns` is that of the request it answers, or
  // kUnsolicited. Returns how many closed-loop requests to send now.
  virtual int OnReply(Conn& conn, const RespReply& reply, uint64_t intended_ns,
                      uint64_t recv_ns) = 0;
  // Closed-loop requests to send when the worker starts.
  virtual int InitialRequests(Conn& conn) { return 0; }
  // Whether the worker may stop; `inflight` is its number of unanswered requests.
  virtual bool Done(uint64_t now_ns, uint64_t inflight) = 0;
};

// The measured interval [t0, t1): requests (or messages) intended within it are measured;
// replies received within it count towards the achieved rate.
struct MeasureWindow {
  uint64_t t0 = 0;
  uint64_t t1 = 0;
  bool Contains(uint64_t t) const { return t >= t0 && t < t1; }
  double seconds() const { return static_cast<double>(t1 - t0) / 1e9; }
};

struct WorkerTimes {
  uint64_t measure_start_ns = 0;  // send lag is recorded for requests intended from here
  uint64_t send_end_ns = 0;       // no scheduled request is intended at or after this
  uint64_t deadline_ns = 0;       // stop waiting for replies here
  // Busy-poll (epoll_wait with timeout 0) instead of sleeping while replies are
  // outstanding or the next send is due within this many ns; 0 = always sleep.
  uint64_t spin_ns = 0;
  // Closed loop (--arrival bursty): a scheduled connection has at most one request
  // outstanding; its next scheduled request goes once the reply is in (at once when the
  // reply came after that request's time, otherwise at its time), and latency is
  // measured from the actual send instead of the intended time.
  bool closed_loop = false;
};

struct WorkerStats {
  Histogram send_lag;        // send time - intended time, measured requests
  uint64_t sent = 0;         // requests written (all, warm-up included)
  uint64_t unanswered = 0;   // scheduled or sent requests without a reply at the end
  uint64_t conn_errors = 0;  // connections lost (closed, reset, malformed stream)
  std::string first_conn_error;
};

class Worker {
 public:
  static constexpr size_t kMaxPendingBytes = 4 * 1024 * 1024;
  static constexpr size_t kReadBufferBytes = 256 * 1024;

  Worker(Driver* driver, WorkerTimes times);
  ~Worker();
  Worker(const Worker&) = delete;
  Worker& operator=(const Worker&) = delete;

  // Takes ownership of a connected, non-blocking fd.
  Conn& AddConn(int fd, bool capture_replies);
  // The thread body: runs until the driver is done or the deadline passes.
  void Run();

  const WorkerStats& stats() const { return stats_; }
  const std::vector<std::unique_ptr<Conn>>& conns() const { return conns_; }

 private:
  using HeapEntry = std::pair<uint64_t, Conn*>;

  void SendDue();
  void Enqueue(Conn& conn, uint64_t intended_ns);
  void MaybeSchedule(Conn& conn);
  void Flush(Conn& conn);
  void Read(Conn& conn);
  void Kill(Conn& conn, const std::string& why);
  void SetWriteInterest(Conn& conn, bool on);
  void ArmTimer(uint64_t target_ns);

  Driver* driver_;
  WorkerTimes times_;
  WorkerStats stats_;
  std::vector<std::unique_ptr<Conn>> conns_;
  std::priority_queue<HeapEntry, std::vector<HeapEntry>, std::greater<>> heap_;
  uint64_t inflight_ = 0;
  int epoll_fd_ = -1;
  int timer_fd_ = -1;
  uint64_t armed_ns_ = 0;     // absolute time the timer is armed for, 0 = disarmed
  bool timer_fired_ = false;  // it fired and is still readable (settime clears it)
  std::vector<char> read_buf_;
};

// Runs each worker on its own thread and joins them. Returns the process CPU time
// (all threads) spent between measure_start_ns and measure_end_ns, sampled by the
// calling thread, which otherwise sleeps.
uint64_t RunWorkerThreads(const std::vector<std::unique_ptr<Worker>>& workers,
                          uint64_t measure_start_ns, uint64_t measure_end_ns);

}  // namespace hotkv::loadgen
