#include "rate_scheduler.h"

#include <cmath>

namespace hotkv::loadgen {
namespace {

// splitmix64: a small, good 64-bit generator.
uint64_t SplitMix(uint64_t& state) {
  uint64_t z = (state += 0x9E3779B97F4A7C15ULL);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

}  // namespace

RateScheduler::RateScheduler(uint64_t start_ns, double rate_per_s, double phase, Arrival arrival,
                             uint64_t seed)
    : start_ns_(start_ns),
      interval_ns_(1e9L / static_cast<long double>(rate_per_s)),
      phase_(phase),
      arrival_(arrival),
      rng_(seed) {
  if (arrival_ != Arrival::kPoisson) {
    next_ns_ = Uniform(0);
  } else {
    poisson_ns_ = NextExponential() * interval_ns_;
    next_ns_ = start_ns_ + static_cast<uint64_t>(poisson_ns_);
  }
}

uint64_t RateScheduler::Uniform(uint64_t k) const {
  return start_ns_ + static_cast<uint64_t>((phase_ + static_cast<long double>(k)) * interval_ns_);
}

double RateScheduler::NextExponential() {
  // u in (0, 1]: 53 random bits, never 0, so log(u) is finite.
  double u = static_cast<double>((SplitMix(rng_) >> 11) + 1) * 0x1.0p-53;
  return -std::log(u);
}

void RateScheduler::Advance() {
  ++index_;
  if (arrival_ != Arrival::kPoisson) {
    next_ns_ = Uniform(index_);
  } else {
    poisson_ns_ += NextExponential() * interval_ns_;
    next_ns_ = start_ns_ + static_cast<uint64_t>(poisson_ns_);
  }
}

}  // namespace hotkv::loadgen
