#include "report.h"

#include <sys/resource.h>

#include <cmath>
#include <cstdio>

namespace hotkv::loadgen {
namespace {

double ToUs(uint64_t ns) { return static_cast<double>(ns) / 1000.0; }

}  // namespace

LatencySummary Summarize(const Histogram& h) {
  LatencySummary s;
  s.count = h.count();
  s.p50 = ToUs(h.ValueAtPercentile(50));
  s.p90 = ToUs(h.ValueAtPercentile(90));
  s.p99 = ToUs(h.ValueAtPercentile(99));
  s.p999 = ToUs(h.ValueAtPercentile(99.9));
  s.p9999 = ToUs(h.ValueAtPercentile(99.99));
  s.max = ToUs(h.max());
  s.mean = h.Mean() / 1000.0;
  return s;
}

std::string FormatUs(double us) {
  char buf[32];
  if (us < 1000) {
    std::snprintf(buf, sizeof(buf), "%.1f", us);
  } else {
    std::snprintf(buf, sizeof(buf), "%.0f", us);
  }
  return buf;
}

std::string FormatLatencyLine(const LatencySummary& s) {
  return "p50 " + FormatUs(s.p50) + "  p90 " + FormatUs(s.p90) + "  p99 " + FormatUs(s.p99) +
         "  p99.9 " + FormatUs(s.p999) + "  p99.99 " + FormatUs(s.p9999) + "  max " +
         FormatUs(s.max) + "  mean " + FormatUs(s.mean);
}

std::string JsonEscape(std::string_view s) {
  std::string out;
  for (char c : s) {
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          char buf[8];
          std::snprintf(buf, sizeof(buf), "\\u%04x", c);
          out += buf;
        } else {
          out += c;
        }
    }
  }
  return out;
}

void JsonObject::Key(std::string_view key) {
  if (!body_.empty()) {
    body_ += ", ";
  }
  body_ += "\"" + JsonEscape(key) + "\": ";
}

JsonObject& JsonObject::Add(std::string_view key, std::string_view value) {
  Key(key);
  body_ += "\"" + JsonEscape(value) + "\"";
  return *this;
}

JsonObject& JsonObject::Add(std::string_view key, double value) {
  Key(key);
  if (!std::isfinite(value)) {
    body_ += "null";
    return *this;
  }
  char buf[48];
  std::snprintf(buf, sizeof(buf), "%.6g", value);
  if (std::fabs(value) >= 1e6 && std::fabs(value) < 1e15) {
    std::snprintf(buf, sizeof(buf), "%.1f", value);
  }
  body_ += buf;
  return *this;
}

JsonObject& JsonObject::Add(std::string_view key, uint64_t value) {
  Key(key);
  body_ += std::to_string(value);
  return *this;
}

JsonObject& JsonObject::Add(std::string_view key, bool value) {
  Key(key);
  body_ += value ? "true" : "false";
  return *this;
}

JsonObject& JsonObject::AddNull(std::string_view key) {
  Key(key);
  body_ += "null";
  return *this;
}

JsonObject& JsonObject::AddObject(std::string_view key, const JsonObject& value) {
  Key(key);
  body_ += value.str();
  return *this;
}

JsonObject& JsonObject::AddLatency(std::string_view key, const LatencySummary& s) {
  JsonObject o;
  o.Add("count", s.count)
      .Add("p50", s.p50)
      .Add("p90", s.p90)
      .Add("p99", s.p99)
      .Add("p99_9", s.p999)
      .Add("p99_99", s.p9999)
      .Add("max", s.max)
      .Add("mean", s.mean);
  return AddObject(key, o);
}

uint64_t ProcessCpuNs() {
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  auto tv_ns = [](const timeval& tv) {
    return static_cast<uint64_t>(tv.tv_sec) * 1'000'000'000ULL +
           static_cast<uint64_t>(tv.tv_usec) * 1000ULL;
  };
  return tv_ns(ru.ru_utime) + tv_ns(ru.ru_stime);
}

}  // namespace hotkv::loadgen
