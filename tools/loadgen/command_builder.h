// Request encoding for hotkv-loadgen: RESP arrays of bulk strings.
//
// CommandTemplate turns a command line such as "SET __key__ __value__" into a request
// that is re-encoded per send with a fresh key. Placeholders (whole arguments only):
//   __key__    key prefix + key index (the index the caller picks, e.g. random)
//   __value__  a value of value_size bytes (fixed for the run)
// Everything except the key is encoded once, up front, so Append() is a few memcpy's
// and one integer formatting.
//
// Thread safety: a built CommandTemplate is immutable; Append() may be called from any
// number of threads.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace hotkv::loadgen {

// Appends the RESP encoding of `args` (an array of bulk strings) to `out`.
void AppendCommand(const std::vector<std::string_view>& args, std::string& out);
// Returns the RESP encoding of `args`.
std::string EncodeCommand(const std::vector<std::string_view>& args);
// Appends "$<len>\r\n" (a bulk string header) to `out`.
void AppendBulkHeader(size_t len, std::string& out);

// The value used for SET and __value__: `size` printable bytes, deterministic.
std::string MakeValue(size_t size);

class CommandTemplate {
 public:
  // Built-in commands: "get", "set", "incr", "ping" (case-insensitive); nullopt if the
  // name is not one of them.
  static std::optional<CommandTemplate> ForName(std::string_view name, std::string_view key_prefix,
                                                size_t value_size);
  // A custom command line, arguments separated by spaces; nullopt if empty.
  static std::optional<CommandTemplate> Parse(std::string_view line, std::string_view key_prefix,
                                              size_t value_size);

  // Appends one request for key index `key` to `out`.
  void Append(uint64_t key, std::string& out) const;
  // True if the request names a key (the key index then matters).
  bool uses_key() const { return uses_key_; }
  // The command name as typed, upper-cased (e.g. "GET").
  const std::string& name() const { return name_; }

 private:
  CommandTemplate() = default;

  // The encoded request is: segments_[0] key segments_[1] key ... segments_[n].
  std::vector<std::string> segments_;
  std::string key_prefix_;
  std::string name_;
  bool uses_key_ = false;
};

}  // namespace hotkv::loadgen
