// Config's start-up: the config file (with include), the command line, and the error
// texts redis-server prints for a bad directive.
#include <sched.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>
#include <thread>

#include "common/string_util.h"
#include "protocol/resp_parser.h"
#include "server/config.h"

namespace hotkv {

namespace {

std::string FatalConfigError(int line, const std::string& echo, const std::string& why) {
  return "\n*** FATAL CONFIG FILE ERROR (HotKV) ***\nReading the configuration file, at line " +
         std::to_string(line) + "\n>>> '" + echo + "'\n" + why + "\n";
}

}  // namespace

// A word as Redis echoes a command-line argument in a config error: in double quotes,
// with escapes (sdscatrepr).
std::string ConfigRepr(const std::string& s) {
  std::string out;
  AppendQuotedRepr(out, s);
  return out;
}

Status Config::ApplyDirective(const std::vector<std::string>& words) {
  if (words.empty()) {
    return Status::Ok();
  }
  const std::string name = ToLower(words[0]);
  std::vector<std::string> values(words.begin() + 1, words.end());
  if (name == "include") {
    if (values.size() != 1) {
      return Status::InvalidArgument("Bad directive or wrong number of arguments");
    }
    if (++include_depth_ > 16) {
      include_depth_--;
      return Status::InvalidArgument("Too many levels of config file includes");
    }
    std::ifstream in(values[0]);
    if (!in) {
      include_depth_--;
      return Status::IoError("Fatal error, can't open config file '" + values[0] +
                             "': " + strerror(errno));
    }
    std::stringstream text;
    text << in.rdbuf();
    Status st = LoadText(text.str(), values[0], 1, false);
    include_depth_--;
    return st;
  }
  if (name == "sentinel") {
    return Status::InvalidArgument("sentinel directive while not in sentinel mode");
  }
  if (name == "rename-command" || name == "user" || name == "loadmodule") {
    return Status::InvalidArgument("'" + name + "' is not supported by HotKV");
  }
  Option* opt = Find(name);
  if (opt == nullptr) {
    std::string line = words[0];
    for (const auto& v : values) {
      line += " " + v;
    }
    unresolved_.push_back(line);  // reported once the whole configuration is read
    return Status::Ok();
  }
  if (opt->is(kDeprecated)) {
    return values.size() == 1
               ? Status::Ok()
               : Status::InvalidArgument("Bad directive or wrong number of arguments");
  }
  if (opt->is(kMultiArg) && values.size() == 1 && !values[0].empty()) {
    values = SplitValue(values[0]);  // `save "3600 1 300 100"`
  }
  std::lock_guard<std::mutex> g(mu_);
  Result<ParsedValue> parsed = ParseValue(*opt, values, false);
  if (!parsed.ok()) {
    return parsed.status();
  }
  ParsedValue old = Current(*opt);
  Store(*opt, *parsed);
  if (opt->apply) {
    if (Status st = opt->apply(*parsed, false); !st.ok()) {
      Store(*opt, old);
      return st;
    }
  }
  return Status::Ok();
}

// `text`: a config file's content, or the command line's directives (one per line). Line
// numbers count from `first_line`; `quoted_echo`: error lines show the arguments quoted,
// as Redis shows command-line options.
Status Config::LoadText(const std::string& text, const std::string& path, int first_line,
                        bool quoted_echo) {
  std::istringstream in(text);
  std::string line;
  int lineno = first_line - 1;
  while (std::getline(in, line)) {
    lineno++;
    size_t start = line.find_first_not_of(" \t\r\n");
    if (start == std::string::npos || line[start] == '#') {
      continue;
    }
    std::string trimmed = line.substr(start);
    while (!trimmed.empty() && strchr(" \t\r\n", trimmed.back()) != nullptr) {
      trimmed.pop_back();
    }
    std::vector<std::string_view> views;
    std::vector<char> storage;
    bool balanced = SplitInlineArgs(trimmed, &views, &storage);
    std::vector<std::string> words(views.begin(), views.end());
    std::string echo = trimmed;
    if (quoted_echo && !words.empty()) {
      echo = words[0];
      for (size_t i = 1; i < words.size(); i++) {
        echo += " " + ConfigRepr(words[i]);
      }
    }
    std::string why;
    if (!balanced) {
      why = "Unbalanced quotes in configuration line";
    } else if (Status st = ApplyDirective(words); !st.ok()) {
      if (st.code() == StatusCode::kIoError) {
        return st;  // an include that cannot be read: Redis's own message
      }
      why = st.message();
    } else {
      continue;
    }
    (void)path;
    return Status::InvalidArgument(FatalConfigError(lineno, echo, why));
  }
  return Status::Ok();
}

Status Config::LoadFile(const std::string& path) {
  std::ifstream in(path);
  if (!in) {
    return Status::IoError("Fatal error, can't open config file '" + path +
                           "': " + strerror(errno));
  }
  std::stringstream text;
  text << in.rdbuf();
  config_file_ = path;
  return LoadText(text.str(), path, 1, false);
}

Status Config::LoadArgs(int argc, char** argv) {
  loading_ = true;
  save_loaded_ = false;
  unresolved_.clear();
  struct Done {
    bool* flag;
    ~Done() { *flag = false; }
  } done{&loading_};
  int i = 1;
  // Redis numbers the command line's directives after the file's lines and one more.
  int file_lines = 0;
  if (i < argc && argv[i][0] != '-') {
    std::string path = argv[i];
    if (path.front() != '/') {
      char cwd[4096];
      if (getcwd(cwd, sizeof(cwd)) != nullptr) {
        path = std::string(cwd) + "/" + path;
      }
    }
    if (Status st = LoadFile(path); !st.ok()) {
      return st;
    }
    std::ifstream in(path);
    for (std::string l; std::getline(in, l);) {
      file_lines++;
    }
    i++;
  }
  // "--name v1 v2 --other v": each --name starts a directive with the words after it.
  std::vector<std::vector<std::string>> directives;
  for (; i < argc; i++) {
    std::string a = argv[i];
    if (a.size() > 2 && a[0] == '-' && a[1] == '-') {
      directives.push_back({a.substr(2)});
    } else if (directives.empty()) {
      return Status::InvalidArgument("Invalid argument '" + a +
                                     "': options are given as --name value\n");
    } else {
      directives.back().push_back(a);
    }
  }
  int lineno = file_lines + 2;
  for (const auto& words : directives) {
    if (Status st = ApplyDirective(words); !st.ok()) {
      if (st.code() == StatusCode::kIoError) {
        return st;
      }
      std::string echo = words[0];
      for (size_t w = 1; w < words.size(); w++) {
        echo += " " + ConfigRepr(words[w]);
      }
      return Status::InvalidArgument(FatalConfigError(lineno, echo, st.message()));
    }
    lineno++;
  }
  if (!unresolved_.empty()) {
    // Redis 8 takes an unknown name for a module's parameter and gives up once no module
    // claimed it.
    std::string msg = "# Unresolved Configuration(s) Detected:\n";
    for (const auto& u : unresolved_) {
      msg += "# >>> '" + u + "'\n";
    }
    msg +=
        "# Module Configuration detected without loadmodule directive or no ApplyConfig call: "
        "aborting\n";
    return Status::InvalidArgument(msg);
  }
  threads_auto_ = threads_.load() == 0;
  if (threads_auto_) {
    // One worker per core this process may run on (taskset/cgroups), not per core of
    // the machine: two workers sharing one core only add context switches.
    cpu_set_t set;
    int n = sched_getaffinity(0, sizeof(set), &set) == 0 ? CPU_COUNT(&set) : 0;
    if (n <= 0) {
      n = static_cast<int>(std::thread::hardware_concurrency());
    }
    threads_ = n <= 0 ? 1 : n;
  }
  return Status::Ok();
}

}  // namespace hotkv
