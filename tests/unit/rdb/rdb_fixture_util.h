// The Redis-written fixture files of tests/unit/rdb/fixtures (scripts/gen_rdb_fixtures.sh)
// and the corruption helper the fuzz-style tests share.
#pragma once

#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

namespace hotkv::rdb::testing {

inline std::string Fixture(const std::string& name) {
  return std::string(RDB_FIXTURE_DIR) + "/" + name;
}

inline std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Every whole RDB file among the fixtures (the parameter list of the file fuzz tests).
inline std::vector<std::string> FixtureFiles() {
  return {"redis70.rdb", "redis88.rdb", "redis88_cluster.rdb", "redis88_vset.rdb", "redis88_hfe.rdb"};
}

// A test-name-safe form of a fixture's name ("redis70.rdb" -> "redis70_rdb").
inline std::string FixtureTestName(std::string n) {
  for (char& c : n) c = isalnum(static_cast<unsigned char>(c)) ? c : '_';
  return n;
}

// Damages one byte of s[from, to): a bit flip, a random byte, or 0x00 / 0xFF.
inline void Corrupt(std::string* s, size_t from, size_t to, std::mt19937_64& rng) {
  if (to <= from) return;
  const size_t at = from + rng() % (to - from);
  switch (rng() % 3) {
    case 0: (*s)[at] ^= static_cast<char>(1 << (rng() % 8)); break;
    case 1: (*s)[at] = static_cast<char>(rng()); break;
    default: (*s)[at] = static_cast<char>((rng() % 2) ? 0xFF : 0x00); break;
  }
}

}  // namespace hotkv::rdb::testing
