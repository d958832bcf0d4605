#include "command_builder.h"

#include <algorithm>
#include <cctype>
#include <charconv>

namespace hotkv::loadgen {
namespace {

constexpr std::string_view kKeyPlaceholder = "__key__";
constexpr std::string_view kValuePlaceholder = "__value__";

void AppendUnsigned(uint64_t v, std::string& out) {
  char buf[24];
  auto [end, ec] = std::to_chars(buf, buf + sizeof(buf), v);
  out.append(buf, end);
}

std::vector<std::string_view> SplitSpaces(std::string_view line) {
  std::vector<std::string_view> parts;
  size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && line[i] == ' ') {
      ++i;
    }
    size_t start = i;
    while (i < line.size() && line[i] != ' ') {
      ++i;
    }
    if (i > start) {
      parts.push_back(line.substr(start, i - start));
    }
  }
  return parts;
}

std::string Upper(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
  return out;
}

}  // namespace

void AppendBulkHeader(size_t len, std::string& out) {
  out.push_back('$');
  AppendUnsigned(len, out);
  out.append("\r\n");
}

void AppendCommand(const std::vector<std::string_view>& args, std::string& out) {
  out.push_back('*');
  AppendUnsigned(args.size(), out);
  out.append("\r\n");
  for (std::string_view arg : args) {
    AppendBulkHeader(arg.size(), out);
    out.append(arg);
    out.append("\r\n");
  }
}

std::string EncodeCommand(const std::vector<std::string_view>& args) {
  std::string out;
  AppendCommand(args, out);
  return out;
}

std::string MakeValue(size_t size) {
  std::string value(size, 'v');
  for (size_t i = 0; i < size; ++i) {
    value[i] = static_cast<char>('a' + i % 26);
  }
  return value;
}

std::optional<CommandTemplate> CommandTemplate::ForName(std::string_view name,
                                                        std::string_view key_prefix,
                                                        size_t value_size) {
  std::string upper = Upper(name);
  if (upper == "GET") {
    return Parse("GET __key__", key_prefix, value_size);
  }
  if (upper == "SET") {
    return Parse("SET __key__ __value__", key_prefix, value_size);
  }
  if (upper == "INCR") {
    return Parse("INCR __key__", key_prefix, value_size);
  }
  if (upper == "PING") {
    return Parse("PING", key_prefix, value_size);
  }
  return std::nullopt;
}

std::optional<CommandTemplate> CommandTemplate::Parse(std::string_view line,
                                                      std::string_view key_prefix,
                                                      size_t value_size) {
  std::vector<std::string_view> args = SplitSpaces(line);
  if (args.empty()) {
    return std::nullopt;
  }
  CommandTemplate t;
  t.key_prefix_ = std::string(key_prefix);
  t.name_ = Upper(args[0]);
  std::string value = MakeValue(value_size);
  std::string current = "*";
  AppendUnsigned(args.size(), current);
  current.append("\r\n");
  for (std::string_view arg : args) {
    if (arg == kKeyPlaceholder) {
      t.segments_.push_back(std::move(current));
      current.clear();
      t.uses_key_ = true;
      continue;
    }
    std::string_view text = arg == kValuePlaceholder ? std::string_view(value) : arg;
    AppendBulkHeader(text.size(), current);
    current.append(text);
    current.append("\r\n");
  }
  t.segments_.push_back(std::move(current));
  return t;
}

void CommandTemplate::Append(uint64_t key, std::string& out) const {
  out.append(segments_[0]);
  if (segments_.size() == 1) {
    return;
  }
  char digits[24];
  auto [end, ec] = std::to_chars(digits, digits + sizeof(digits), key);
  size_t key_len = key_prefix_.size() + static_cast<size_t>(end - digits);
  for (size_t i = 1; i < segments_.size(); ++i) {
    AppendBulkHeader(key_len, out);
    out.append(key_prefix_);
    out.append(digits, end);
    out.append("\r\n");
    out.append(segments_[i]);
  }
}

}  // namespace hotkv::loadgen
