// The AOF's command format: parsing with byte offsets, and a whole-file check.
#include "persistence/aof_format.h"

#include "common/string_util.h"

namespace hotkv::persistence {

ParseResult ParseCommand(std::string_view data, size_t* pos, std::vector<std::string_view>* args,
                         std::string* why) {
  size_t p = *pos;
  auto read_line = [&](int64_t* n) -> ParseResult {
    const size_t eol = data.find("\r\n", p);
    if (eol == std::string_view::npos) {
      return ParseResult::kTorn;
    }
    auto v = ParseInt64(data.substr(p + 1, eol - p - 1));
    if (!v) {
      *why = "a bad number";
      return ParseResult::kBad;
    }
    *n = *v;
    p = eol + 2;
    return ParseResult::kOk;
  };
  if (data[p] != '*') {
    *why = "a command that is not a RESP array";
    return ParseResult::kBad;
  }
  int64_t argc;
  if (ParseResult r = read_line(&argc); r != ParseResult::kOk) {
    return r;
  }
  if (argc < 1 || argc > 1024 * 1024) {
    *why = "a bad argument count";
    return ParseResult::kBad;
  }
  args->clear();
  for (int64_t i = 0; i < argc; i++) {
    if (p >= data.size()) {
      return ParseResult::kTorn;
    }
    if (data[p] != '$') {
      *why = "an argument that is not a bulk string";
      return ParseResult::kBad;
    }
    int64_t len;
    if (ParseResult r = read_line(&len); r != ParseResult::kOk) {
      return r;
    }
    if (len < 0 || len > 512LL * 1024 * 1024) {
      *why = "a bad bulk length";
      return ParseResult::kBad;
    }
    if (p + static_cast<size_t>(len) + 2 > data.size()) {
      return ParseResult::kTorn;
    }
    if (data.substr(p + static_cast<size_t>(len), 2) != "\r\n") {
      *why = "a bulk string not ended by CRLF";
      return ParseResult::kBad;
    }
    args->push_back(data.substr(p, static_cast<size_t>(len)));
    p += static_cast<size_t>(len) + 2;
  }
  *pos = p;
  return ParseResult::kOk;
}

AofCheck CheckAofCommands(std::string_view data) {
  AofCheck c;
  std::vector<std::string_view> args;
  size_t pos = 0;
  bool in_multi = false;
  while (pos < data.size()) {
    if (data[pos] == '#') {
      const size_t eol = data.find('\n', pos);
      if (eol == std::string_view::npos) {
        c.result = ParseResult::kTorn;
        return c;
      }
      pos = eol + 1;
      if (!in_multi) {
        c.valid_end = pos;
      }
      continue;
    }
    const size_t start = pos;
    ParseResult r = ParseCommand(data, &pos, &args, &c.why);
    if (r != ParseResult::kOk) {
      c.result = r;
      c.bad_offset = start;
      return c;
    }
    c.commands++;
    if (EqualsIgnoreCase(args[0], "multi")) {
      in_multi = true;
    } else if (EqualsIgnoreCase(args[0], "exec")) {
      in_multi = false;
    }
    if (!in_multi) {
      c.valid_end = pos;
    }
  }
  if (in_multi) {
    c.result = ParseResult::kTorn;
    c.why = "a MULTI without its EXEC";
  }
  return c;
}

}  // namespace hotkv::persistence
