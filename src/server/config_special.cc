// The parsers of the parameters with their own syntax (save, notify-keyspace-events,
// client-output-buffer-limit, bind, ...), with Redis's error texts. Each takes the words
// of a value: a config-file line's arguments, or CONFIG SET's value split at spaces for
// the multi-word ones.
#include <locale.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cstdio>
#include <cstring>

#include "common/notify_flags.h"
#include "common/string_util.h"
#include "server/config.h"

namespace hotkv {

namespace {

using ParsedValue = Config::ParsedValue;

std::string Join(const std::vector<std::string>& words) {
  std::string out;
  for (const auto& w : words) {
    if (!out.empty()) {
      out += ' ';
    }
    out += w;
  }
  return out;
}

// No words, or the one empty word of `save ""` in a config file.
bool Empty(const std::vector<std::string>& words) {
  return words.empty() || (words.size() == 1 && words[0].empty());
}

Status Invalid(std::string why) { return Status::InvalidArgument(std::move(why)); }

Result<ParsedValue> OneWord(const std::vector<std::string>& words) {
  if (words.size() != 1) {
    return Invalid("wrong number of arguments");
  }
  return ParsedValue{0, words[0]};
}

Result<ParsedValue> ParseSave(const std::vector<std::string>& words) {
  if (Empty(words)) {
    return ParsedValue{};
  }
  if (words.size() % 2 != 0) {
    return Invalid("Invalid save parameters");
  }
  for (size_t i = 0; i < words.size(); i += 2) {
    std::optional<int64_t> seconds = ParseInt64(words[i]);
    std::optional<int64_t> changes = ParseInt64(words[i + 1]);
    if (!seconds || !changes || *seconds < 1 || *changes < 0) {
      return Invalid("Invalid save parameters");
    }
  }
  return ParsedValue{0, Join(words)};
}

// client-output-buffer-limit: groups of <class> <hard> <soft> <soft seconds>, each group
// replacing one class of `current`.
Result<ParsedValue> ParseOutputLimits(const std::vector<std::string>& words,
                                      const std::string& current_text) {
  if (words.empty()) {
    return ParsedValue{0, current_text};  // CONFIG SET with "": nothing changes
  }
  if (words.size() % 4 != 0) {
    return Invalid("Wrong number of arguments in buffer limit configuration.");
  }
  std::vector<std::string> current = Config::SplitValue(current_text);
  if (current.empty()) {
    current = Config::SplitValue("normal 0 0 0 slave 0 0 0 pubsub 0 0 0");
  }
  for (size_t i = 0; i < words.size(); i += 4) {
    std::string cls = ToLower(words[i]);
    if (cls == "replica") {
      cls = "slave";
    }
    if (cls != "normal" && cls != "slave" && cls != "pubsub") {
      return Invalid("Invalid client class specified in buffer limit configuration.");
    }
    uint64_t hard = 0, soft = 0;
    std::optional<int64_t> secs = ParseInt64(words[i + 3]);
    if (!ParseMemory(words[i + 1], &hard) || !ParseMemory(words[i + 2], &soft) || !secs ||
        *secs < 0) {
      return Invalid("Error in hard, soft or soft_seconds setting in buffer limit configuration.");
    }
    for (size_t j = 0; j + 3 < current.size(); j += 4) {
      if (current[j] == cls) {
        current[j + 1] = std::to_string(hard);
        current[j + 2] = std::to_string(soft);
        current[j + 3] = std::to_string(*secs);
      }
    }
  }
  return ParsedValue{0, Join(current)};
}

Result<ParsedValue> ParsePercentiles(const std::vector<std::string>& words) {
  std::vector<std::string> out;
  for (const auto& w : words) {
    std::optional<double> p = ParseDouble(w);
    if (!p) {
      return Invalid("Invalid latency-tracking-info-percentiles parameters");
    }
    if (*p < 0 || *p > 100) {
      return Invalid("latency-tracking-info-percentiles parameters should sit between [0.0,100.0]");
    }
    char buf[400];  // fixed notation of a number in [0, 100], shortest that reads back
    auto res = std::to_chars(buf, buf + sizeof(buf), *p, std::chars_format::fixed);
    out.emplace_back(buf, res.ptr);
  }
  return ParsedValue{0, Join(out)};
}

Result<ParsedValue> ParseOomValues(const std::vector<std::string>& words) {
  if (words.size() != 3) {
    return Invalid("wrong number of arguments");
  }
  for (const auto& w : words) {
    std::optional<int64_t> v = ParseInt64(w);
    if (!v || *v < -2000 || *v > 2000) {
      return Invalid("Invalid oom-score-adj-values, elements must be between -2000 and 2000.");
    }
  }
  return ParsedValue{0, Join(words)};
}

// Redis's hostnames: letters, digits, '-' and '.'.
Result<ParsedValue> ParseHostname(const std::vector<std::string>& words) {
  Result<ParsedValue> v = OneWord(words);
  if (!v.ok()) {
    return v;
  }
  for (unsigned char c : v->sv) {
    if (!isalnum(c) && c != '-' && c != '.') {
      return Invalid("Hostnames may only contain alphanumeric characters, hyphens or dots");
    }
  }
  return v;
}

// Printable ASCII except spaces and punctuation other than - . / _ `; bytes past ASCII
// are allowed (UTF-8 names).
Result<ParsedValue> ParseHumanNodename(const std::vector<std::string>& words) {
  Result<ParsedValue> v = OneWord(words);
  if (!v.ok()) {
    return v;
  }
  for (unsigned char c : v->sv) {
    bool ok = c >= 128 || isalnum(c) || c == '-' || c == '.' || c == '/' || c == '_' || c == '`';
    if (!ok) {
      return Invalid("Announced human node name contained invalid character");
    }
  }
  return v;
}

// {variables} of proc-title-template, which must leave something besides {title}.
Result<ParsedValue> ParseTitleTemplate(const std::vector<std::string>& words) {
  Result<ParsedValue> v = OneWord(words);
  if (!v.ok()) {
    return v;
  }
  static const char* kVars[] = {"title",    "listen-addr", "server-mode", "port",
                                "tls-port", "unixsocket",  "config-file"};
  const std::string& t = v->sv;
  bool other = false;
  for (size_t i = 0; i < t.size(); i++) {
    if (t[i] != '{') {
      other = true;
      continue;
    }
    size_t end = t.find('}', i);
    if (end == std::string::npos) {
      return Invalid("template format is invalid or contains unknown variables");
    }
    std::string var = t.substr(i + 1, end - i - 1);
    bool known = false;
    for (const char* k : kVars) {
      known = known || var == k;
    }
    if (!known) {
      return Invalid("template format is invalid or contains unknown variables");
    }
    other = other || var != "title";
    i = end;
  }
  if (!other) {
    return Invalid("template format is invalid or contains unknown variables");
  }
  return v;
}

Result<ParsedValue> ParseLocale(const std::vector<std::string>& words) {
  Result<ParsedValue> v = OneWord(words);
  if (!v.ok() || v->sv.empty()) {
    return v;
  }
  locale_t loc = newlocale(LC_COLLATE_MASK, v->sv.c_str(), static_cast<locale_t>(0));
  if (loc == static_cast<locale_t>(0)) {
    return Invalid("Invalid locale name");
  }
  freelocale(loc);
  return v;
}

Result<ParsedValue> ParseOctalPerm(const std::vector<std::string>& words) {
  Result<ParsedValue> v = OneWord(words);
  if (!v.ok()) {
    return v;
  }
  const std::string& s = v->sv;
  int64_t perm = 0;
  size_t i = s.size() > 0 && s[0] == '-' ? 1 : 0;
  if (i == s.size() && !s.empty()) {
    return Invalid("argument couldn't be parsed as an octal number");
  }
  for (; i < s.size(); i++) {
    if (s[i] < '0' || s[i] > '7' || perm > (INT64_MAX >> 3)) {
      return Invalid("argument couldn't be parsed as an octal number");
    }
    perm = perm * 8 + (s[i] - '0');
  }
  if (!s.empty() && s[0] == '-') {
    perm = -perm;
  }
  if (perm < 0 || perm > 0777) {
    return Invalid("argument must be between 0 and 777 inclusive");
  }
  char buf[16];
  snprintf(buf, sizeof(buf), "%llo", static_cast<unsigned long long>(perm));
  return ParsedValue{perm, buf};
}

Result<ParsedValue> ParseReplicaOf(const std::vector<std::string>& words) {
  if (words.empty()) {
    return ParsedValue{};  // the default
  }
  if (words.size() != 2) {
    return Invalid("wrong number of arguments");
  }
  if (EqualsIgnoreCase(words[0], "no") && EqualsIgnoreCase(words[1], "one")) {
    return ParsedValue{};
  }
  std::optional<int64_t> port = ParseInt64(words[1]);
  if (!port || *port < 0 || *port > 65535) {
    return Invalid("Invalid master port");
  }
  return ParsedValue{0, Join(words)};
}

Result<ParsedValue> ParseBind(const std::vector<std::string>& words) {
  if (Empty(words)) {
    return ParsedValue{};
  }
  if (words.size() > 16) {
    return Invalid("Too many bind addresses specified.");
  }
  return ParsedValue{0, Join(words)};
}

}  // namespace

std::vector<std::string> Config::SplitValue(std::string_view value) {
  std::vector<std::string> out;
  if (value.empty()) {
    return out;
  }
  size_t start = 0;
  for (;;) {
    size_t sp = value.find(' ', start);
    out.emplace_back(value.substr(start, sp == std::string_view::npos ? sp : sp - start));
    if (sp == std::string_view::npos) {
      return out;
    }
    start = sp + 1;
  }
}

void Config::AddSpecialParsers() {
  auto special = [this](const char* name, uint32_t extra_flags,
                        std::function<Result<ParsedValue>(const std::vector<std::string>&)> fn) {
    Option* o = Find(name);
    o->kind = Kind::kSpecial;
    o->flags |= extra_flags;
    o->parse = std::move(fn);
    return o;
  };
  // save: in one load, the first `save` line replaces the default and later ones add to
  // it (a stock redis.conf has several); CONFIG SET replaces.
  Option* save = special("save", kMultiArg, nullptr);
  save->parse = [this, save](const std::vector<std::string>& words) -> Result<ParsedValue> {
    Result<ParsedValue> v = ParseSave(words);
    if (v.ok() && loading_ && save_loaded_ && !v->sv.empty() && !save->own_str.empty()) {
      v->sv = save->own_str + " " + v->sv;
    }
    return v;
  };
  save->on_store = [this](const ParsedValue&) {
    if (loading_) {
      save_loaded_ = true;
    }
  };

  Option* notify = special("notify-keyspace-events", 0,
                           [](const std::vector<std::string>& words) -> Result<ParsedValue> {
                             int64_t flags = words.size() == 1 ? ParseNotifyFlags(words[0]) : -1;
                             if (flags < 0) {
                               return Invalid("Invalid event class character. Use '" +
                                              std::string(kNotifyClassLetters) + "'.");
                             }
                             // Classes are kept even without K or E (nothing is delivered then), as
                             // Redis does.
                             return ParsedValue{flags, FormatNotifyFlags(flags)};
                           });
  notify->on_store = [this](const ParsedValue& v) {
    notify_flags_.store(v.iv, std::memory_order_relaxed);
  };

  Option* cobl = special("client-output-buffer-limit", kMultiArg, nullptr);
  cobl->parse = [cobl](const std::vector<std::string>& words) {
    return ParseOutputLimits(words, cobl->own_str);
  };
  cobl->on_store = [this](const ParsedValue& v) {
    std::vector<std::string> w = SplitValue(v.sv);
    for (size_t j = 0; j + 3 < w.size(); j += 4) {
      if (w[j] == "pubsub") {
        pubsub_hard_ = static_cast<int64_t>(*ParseUint64(w[j + 1]));
        pubsub_soft_ = static_cast<int64_t>(*ParseUint64(w[j + 2]));
        pubsub_soft_seconds_ = *ParseInt64(w[j + 3]);
      }
    }
  };

  special("bind", kMultiArg, ParseBind);
  special("latency-tracking-info-percentiles", kMultiArg, ParsePercentiles);
  special("oom-score-adj-values", kMultiArg, ParseOomValues);
  special("replicaof", kMultiArg, ParseReplicaOf);
  special("unixsocketperm", 0, ParseOctalPerm);
  special("cluster-announce-hostname", 0, ParseHostname);
  special("cluster-announce-ip", 0, ParseHostname);
  special("cluster-announce-human-nodename", 0, ParseHumanNodename);
  special("proc-title-template", 0, ParseTitleTemplate);
  special("locale-collate", 0, ParseLocale);

  // dir: the working directory. Setting it changes directory (an error is the system's
  // reason, "No such file or directory"); reading it reports where the server is.
  Option* dir = special("dir", 0, OneWord);
  dir->apply = [dir](const ParsedValue& v, bool) {
    if (chdir(v.sv.c_str()) != 0) {
      return Invalid(strerror(errno));
    }
    char cwd[4096];
    if (getcwd(cwd, sizeof(cwd)) != nullptr) {
      dir->own_str = cwd;
    }
    return Status::Ok();
  };
}

}  // namespace hotkv
