// Config's values: parsing with Redis's rules and texts, formatting, CONFIG GET and
// CONFIG SET (all or nothing, with the rebind of the listeners).
#include "server/config.h"

#include <algorithm>
#include <cstdio>
#include <cstring>

#include "common/string_util.h"

namespace hotkv {

namespace {

std::string SetError(const std::string& name, const std::string& why) {
  return "ERR CONFIG SET failed (possibly related to argument '" + name + "') - " + why;
}

bool HasGlob(std::string_view p) { return p.find_first_of("*?[\\") != std::string_view::npos; }

}  // namespace

bool ParseMemory(std::string_view s, uint64_t* out) {
  size_t i = 0;
  while (i < s.size() && s[i] >= '0' && s[i] <= '9') {
    i++;
  }
  std::string unit = ToLower(s.substr(i));
  uint64_t mul;
  if (unit.empty() || unit == "b") {
    mul = 1;
  } else if (unit == "k") {
    mul = 1000;
  } else if (unit == "kb") {
    mul = 1024;
  } else if (unit == "m") {
    mul = 1000 * 1000;
  } else if (unit == "mb") {
    mul = 1024 * 1024;
  } else if (unit == "g") {
    mul = 1000ULL * 1000 * 1000;
  } else if (unit == "gb") {
    mul = 1024ULL * 1024 * 1024;
  } else {
    return false;
  }
  uint64_t n = 0;
  for (size_t j = 0; j < i; j++) {
    unsigned d = static_cast<unsigned>(s[j] - '0');
    if (n > (UINT64_MAX - d) / 10) {
      n = UINT64_MAX;  // saturates, as strtoull
      break;
    }
    n = n * 10 + d;
  }
  *out = n * mul;  // modulo 2^64, as Redis
  return true;
}

Config::Config() { BuildTable(); }

Config::Option* Config::Find(std::string_view name) {
  auto it = by_name_.find(ToLower(name));
  return it == by_name_.end() ? nullptr : it->second;
}

void Config::SetListenHook(ListenHook hook) {
  std::lock_guard<std::mutex> g(mu_);
  listen_hook_ = std::move(hook);
}

std::string Config::GetString(std::string_view name) {
  Option* o = Find(name);
  if (o == nullptr || o->is(kDeprecated)) {
    return "";
  }
  std::lock_guard<std::mutex> g(mu_);
  return Format(*o);
}

Result<Config::ParsedValue> Config::ParseValue(Option& opt, const std::vector<std::string>& words,
                                               bool runtime) {
  ParsedValue out;
  auto one_of = [&opt] {
    std::string why = "argument(s) must be one of the following: ";
    for (size_t i = 0; i < opt.values.size(); i++) {
      why += (i ? ", " : "") + opt.values[i].first;
    }
    return Status::InvalidArgument(why);
  };
  if (opt.kind == Kind::kSpecial) {
    Result<ParsedValue> v = opt.parse(words);
    if (!v.ok()) {
      return v.status();
    }
    out = std::move(v).value();
  } else if (opt.kind == Kind::kFlags) {
    if (words.empty()) {
      return one_of();
    }
    for (const auto& w : words) {
      auto it = std::find_if(opt.values.begin(), opt.values.end(),
                             [&w](const auto& v) { return EqualsIgnoreCase(v.first, w); });
      if (it == opt.values.end()) {
        return one_of();
      }
      out.iv |= it->second;
    }
  } else if (words.size() != 1) {
    return Status::InvalidArgument("wrong number of arguments");
  } else {
    const std::string& v = words[0];
    const std::string range_error = "argument must be between " + std::to_string(opt.min) +
                                    " and " + std::to_string(opt.max) + " inclusive";
    switch (opt.kind) {
      case Kind::kBool:
        if (!EqualsIgnoreCase(v, "yes") && !EqualsIgnoreCase(v, "no")) {
          return Status::InvalidArgument("argument must be 'yes' or 'no'");
        }
        out.iv = EqualsIgnoreCase(v, "yes") ? 1 : 0;
        break;
      case Kind::kInt: {
        std::optional<int64_t> n = ParseInt64(v);
        if (!n) {
          return Status::InvalidArgument("argument couldn't be parsed into an integer");
        }
        if (*n < opt.min || *n > opt.max) {
          return Status::InvalidArgument(range_error);
        }
        out.iv = *n;
        break;
      }
      case Kind::kMemory: {
        const bool percent = opt.is(kPercent);
        const char* not_memory = percent ? "argument must be a memory or percent value"
                                         : "argument must be a memory value";
        uint64_t n = 0;
        if (percent && !v.empty() && v.back() == '%') {
          std::optional<int64_t> p = ParseInt64(std::string_view(v).substr(0, v.size() - 1));
          if (!p || *p < 0) {
            return Status::InvalidArgument(not_memory);
          }
          n = static_cast<uint64_t>(-*p);  // a percentage is stored negated
        } else if (!ParseMemory(v, &n)) {
          return Status::InvalidArgument(not_memory);
        }
        const auto s = static_cast<int64_t>(n);
        if (percent && s < 0) {
          if (s < -100) {
            return Status::InvalidArgument("percentage argument must be less or equal to 100");
          }
        } else if (!opt.is(kUnsigned) &&
                   (n > static_cast<uint64_t>(INT64_MAX) || s < opt.min || s > opt.max)) {
          return Status::InvalidArgument(range_error);
        }
        out.iv = s;
        break;
      }
      case Kind::kEnum: {
        auto it = std::find_if(opt.values.begin(), opt.values.end(),
                               [&v](const auto& e) { return EqualsIgnoreCase(e.first, v); });
        if (it == opt.values.end()) {
          return one_of();
        }
        out.iv = it->second;
        break;
      }
      case Kind::kString:
        out.sv = v;
        break;
      case Kind::kFlags:
      case Kind::kSpecial:
        break;
    }
  }
  if (opt.check) {
    if (Status st = opt.check(&out, runtime); !st.ok()) {
      return st;
    }
  }
  return out;
}

void Config::Store(Option& opt, const ParsedValue& v) {
  opt.int_value->store(v.iv, std::memory_order_relaxed);
  if (opt.kind == Kind::kString || opt.kind == Kind::kSpecial) {
    *opt.str_value = v.sv;
  }
  if (opt.on_store) {
    opt.on_store(v);
  }
}

Config::ParsedValue Config::Current(const Option& opt) {
  return ParsedValue{opt.int_value->load(std::memory_order_relaxed), *opt.str_value};
}

std::string Config::Format(const Option& opt) {
  const int64_t iv = opt.int_value->load(std::memory_order_relaxed);
  switch (opt.kind) {
    case Kind::kBool:
      return iv ? "yes" : "no";
    case Kind::kInt:
      return std::to_string(iv);
    case Kind::kMemory:
      if (opt.is(kUnsigned)) {
        return std::to_string(static_cast<uint64_t>(iv));
      }
      return opt.is(kPercent) && iv < 0 ? std::to_string(-iv) + "%" : std::to_string(iv);
    case Kind::kEnum:
    case Kind::kFlags: {
      for (const auto& [name, v] : opt.values) {
        if (v == iv) {
          return name;  // the first name of the value
        }
      }
      std::string out;
      for (const auto& [name, v] : opt.values) {
        if (v != 0 && (v & (v - 1)) == 0 && (iv & v)) {
          out += (out.empty() ? "" : " ") + name;
        }
      }
      return out;
    }
    case Kind::kString:
    case Kind::kSpecial:
      return *opt.str_value;
  }
  return "";
}

std::vector<std::pair<std::string, std::string>> Config::Get(
    const std::vector<std::string_view>& patterns) {
  std::vector<std::pair<std::string, std::string>> out;
  std::vector<std::string> seen;  // lower-case names already answered
  auto add = [&](const std::string& shown, const Option& o) {
    std::string key = ToLower(shown);
    if (std::find(seen.begin(), seen.end(), key) == seen.end()) {
      seen.push_back(key);
      out.emplace_back(shown, Format(o));
    }
  };
  std::lock_guard<std::mutex> g(mu_);
  for (std::string_view p : patterns) {
    if (!HasGlob(p)) {
      Option* o = Find(p);
      if (o != nullptr && !o->is(kDeprecated)) {
        add(std::string(p), *o);
      }
      continue;
    }
    for (const auto& o : options_) {
      if (o->is(kHidden) || o->is(kDeprecated)) {
        continue;
      }
      if (GlobMatch(p, o->name, true)) {
        add(o->name, *o);
      }
      for (const auto& a : o->aliases) {
        if (GlobMatch(p, a, true)) {
          add(a, *o);
        }
      }
    }
  }
  return out;
}

Status Config::ApplyListeners(const std::vector<std::pair<Option*, ParsedValue>>& pending,
                              const std::vector<ParsedValue>& old,
                              const std::vector<std::string>& arg_names, bool* rebound) {
  // Port and bind are applied together: one rebind of every worker with both values
  // (already stored).
  *rebound = false;
  int first = -1;
  bool changed = false;
  for (size_t i = 0; i < pending.size(); i++) {
    Option* o = pending[i].first;
    if (o == port_opt_ || o == bind_opt_) {
      if (first < 0) {
        first = static_cast<int>(i);
      }
      changed = changed || old[i].iv != pending[i].second.iv || old[i].sv != pending[i].second.sv;
    }
  }
  if (first < 0 || !changed || !listen_hook_) {
    return Status::Ok();
  }
  Status st = listen_hook_(BindAddressesLocked(), port_opt_->int_value->load());
  if (st.ok()) {
    *rebound = true;
    return st;
  }
  fprintf(stderr, "# Warning: %s\n", st.message().c_str());
  const bool port_first = pending[first].first == port_opt_;
  return Status::InvalidArgument(
      SetError(arg_names[first], port_first ? "Unable to listen on this port. Check server logs."
                                            : "Failed to bind to specified addresses."));
}

std::vector<std::string> Config::BindAddressesLocked() {
  std::vector<std::string> out = SplitValue(bind_opt_->own_str);
  if (out.empty()) {
    out = {"*", "-::*"};  // no address given: every address, as Redis
  }
  return out;
}

Status Config::Set(const std::vector<std::pair<std::string, std::string>>& pairs,
                   bool local_client) {
  std::vector<std::function<void()>> callbacks;
  {
    std::lock_guard<std::mutex> g(mu_);
    // First every name: unknown, immutable, protected or repeated (as typed, case
    // aside: an alias and its name are two parameters here, as in Redis).
    std::vector<Option*> opts;
    std::vector<std::string> names;
    const int64_t protected_ok = Find("enable-protected-configs")->int_value->load();
    for (const auto& [name, value] : pairs) {
      Option* opt = Find(name);
      if (opt == nullptr || opt->is(kDeprecated)) {
        return Status::InvalidArgument(
            "ERR Unknown option or number of arguments for CONFIG SET - '" + name + "'");
      }
      if (opt->is(kImmutable)) {
        return Status::InvalidArgument(SetError(name, "can't set immutable config"));
      }
      if (opt->is(kProtected) && !(protected_ok == 1 || (protected_ok == 2 && local_client))) {
        return Status::InvalidArgument(SetError(name, "can't set protected config"));
      }
      for (const auto& n : names) {
        if (EqualsIgnoreCase(n, name)) {
          return Status::InvalidArgument(SetError(name, "duplicate parameter"));
        }
      }
      opts.push_back(opt);
      names.push_back(name);
    }
    // Then every value.
    std::vector<std::pair<Option*, ParsedValue>> pending;
    for (size_t i = 0; i < pairs.size(); i++) {
      Option* opt = opts[i];
      std::vector<std::string> words = {pairs[i].second};
      if (opt->is(kMultiArg)) {
        words = SplitValue(pairs[i].second);
      }
      Result<ParsedValue> parsed = ParseValue(*opt, words, true);
      if (!parsed.ok()) {
        return Status::InvalidArgument(SetError(names[i], parsed.status().message()));
      }
      pending.emplace_back(opt, std::move(parsed).value());
    }
    // Then store them all and run their effects; one failing puts every value back
    // (and the listeners where they were).
    std::vector<ParsedValue> old;
    for (const auto& [opt, v] : pending) {
      old.push_back(Current(*opt));
      Store(*opt, v);
    }
    bool rebound = false;
    Status failed = ApplyListeners(pending, old, names, &rebound);
    size_t applied = 0;
    for (; failed.ok() && applied < pending.size(); applied++) {
      auto& [opt, v] = pending[applied];
      if (opt->apply) {
        if (Status st = opt->apply(v, true); !st.ok()) {
          failed = Status::InvalidArgument(SetError(names[applied], st.message()));
        }
      }
    }
    if (!failed.ok()) {
      for (size_t i = pending.size(); i-- > 0;) {
        Option* opt = pending[i].first;
        Store(*opt, old[i]);
        if (opt->apply && i + 1 < applied) {
          (void)opt->apply(old[i], true);
        }
      }
      if (rebound) {
        (void)listen_hook_(BindAddressesLocked(), port_opt_->int_value->load());
      }
      return failed;
    }
    for (const auto& [opt, v] : pending) {
      auto cb = on_change_.find(opt->name);
      if (cb != on_change_.end()) {
        for (auto& fn : cb->second) {
          callbacks.push_back(fn);
        }
      }
    }
  }
  for (auto& fn : callbacks) {
    fn();
  }
  return Status::Ok();
}

void Config::OnChange(std::string name, std::function<void()> fn) {
  std::lock_guard<std::mutex> g(mu_);
  on_change_[std::move(name)].push_back(std::move(fn));
}

}  // namespace hotkv
