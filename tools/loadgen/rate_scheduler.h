// RateScheduler: the intended send times of one open-loop request stream.
//
// A stream sends at `rate_per_s`. With uniform spacing the k-th intended time is
// start + (phase + k) / rate, computed from k (no accumulated drift); with Poisson
// spacing the gaps are exponential with mean 1 / rate (seeded, reproducible). A load
// of R req/s over C connections gives each connection rate R / C and phase i / C, so
// the connections' intended times interleave evenly at 1 / R.
//
// The scheduler knows nothing of sockets: the caller asks Next(), sends when the clock
// has passed it (late or not: the intended time stays what it was) and calls Advance().
//
// Thread safety: none; one scheduler per connection, used by the thread owning it.
#pragma once

#include <cstdint>

namespace hotkv::loadgen {

// kBursty: uniform per-connection pacing with every connection in phase (all start at
// t0) and at most one request outstanding per connection (a closed-loop, per-connection
// rate-limited client, e.g. memtier_benchmark --rate-limiting). The scheduler treats it
// as uniform; the closed loop is the Worker's (WorkerTimes::closed_loop).
enum class Arrival { kUniform, kPoisson, kBursty };

inline const char* ArrivalName(Arrival a) {
  return a == Arrival::kPoisson ? "poisson" : a == Arrival::kBursty ? "bursty" : "uniform";
}

class RateScheduler {
 public:
  RateScheduler() = default;
  // `phase` in [0, 1) shifts uniform streams by that fraction of an interval; Poisson
  // streams ignore it (their first gap is random). `rate_per_s` must be > 0.
  RateScheduler(uint64_t start_ns, double rate_per_s, double phase, Arrival arrival, uint64_t seed);

  // The intended send time of the next request (ns, same clock as start_ns).
  uint64_t Next() const { return next_ns_; }
  // Moves to the following request.
  void Advance();
  // How many requests have been advanced past.
  uint64_t issued() const { return index_; }

 private:
  uint64_t Uniform(uint64_t k) const;
  double NextExponential();

  uint64_t start_ns_ = 0;
  long double interval_ns_ = 0;
  long double phase_ = 0;
  Arrival arrival_ = Arrival::kUniform;
  uint64_t index_ = 0;
  uint64_t next_ns_ = UINT64_MAX;
  long double poisson_ns_ = 0;  // running Poisson time, relative to start
  uint64_t rng_ = 0;
};

}  // namespace hotkv::loadgen
