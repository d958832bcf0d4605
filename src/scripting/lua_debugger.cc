#include "scripting/lua_debugger.h"

#include <lua.hpp>

#include <algorithm>
#include <cctype>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>

#include "common/string_util.h"
#include "scripting/lua_engine.h"
#include "scripting/script_run.h"
#include "server/connection.h"
#include "server/dispatcher.h"
#include "server/worker.h"

namespace hotkv::scripting {

namespace {

thread_local LdbSession* t_session = nullptr;

constexpr size_t kMaxBreakpoints = 64;    // Redis's LDB_BREAKPOINTS_MAX
constexpr int kMaxValueDepth = 10;        // LDB_MAX_VALUES_DEPTH
constexpr size_t kMaxInputBytes = 1 << 20;  // ldbRepl's client buffer limit

std::string Format(const char* fmt, ...) __attribute__((format(printf, 1, 2)));
std::string Format(const char* fmt, ...) {
  char buf[512];
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(buf, sizeof(buf), fmt, ap);
  va_end(ap);
  return std::string(buf, n < 0 ? 0 : std::min<size_t>(static_cast<size_t>(n), sizeof(buf) - 1));
}

bool EqualsAny(const std::string& s, const char* a, const char* b) {
  return EqualsIgnoreCase(s, a) || EqualsIgnoreCase(s, b);
}

void AppendValueRec(std::string* s, lua_State* L, int idx, int level) {
  if (level++ == kMaxValueDepth) {
    s->append("<max recursion level reached! Nested table?>");
    return;
  }
  const int t = lua_type(L, idx);
  switch (t) {
    case LUA_TSTRING: {
      size_t len;
      const char* p = lua_tolstring(L, idx, &len);
      AppendRepr(s, std::string_view(p, len));
      break;
    }
    case LUA_TBOOLEAN:
      s->append(lua_toboolean(L, idx) ? "true" : "false");
      break;
    case LUA_TNUMBER:
      s->append(Format("%g", static_cast<double>(lua_tonumber(L, idx))));
      break;
    case LUA_TNIL:
      s->append("nil");
      break;
    case LUA_TTABLE: {
      // Two representations at once (as an array, as a table); the right one is kept.
      const int abs = idx < 0 ? lua_gettop(L) + idx + 1 : idx;
      int expected = 1;
      bool is_array = true;
      std::string arr, tab;
      lua_pushnil(L);
      while (lua_next(L, abs)) {
        if (is_array && (lua_type(L, -2) != LUA_TNUMBER || lua_tonumber(L, -2) != expected)) {
          is_array = false;
        }
        AppendValueRec(&arr, L, -1, level);
        arr.append("; ");
        tab.push_back('[');
        AppendValueRec(&tab, L, -2, level);
        tab.append("]=");
        AppendValueRec(&tab, L, -1, level);
        tab.append("; ");
        lua_pop(L, 1);
        expected++;
      }
      if (!arr.empty()) {
        arr.resize(arr.size() - 2);
      }
      if (!tab.empty()) {
        tab.resize(tab.size() - 2);
      }
      s->push_back('{');
      s->append(is_array ? arr : tab);
      s->push_back('}');
      break;
    }
    case LUA_TFUNCTION:
    case LUA_TUSERDATA:
    case LUA_TTHREAD:
    case LUA_TLIGHTUSERDATA: {
      const char* name = t == LUA_TFUNCTION   ? "function"
                         : t == LUA_TUSERDATA ? "userdata"
                         : t == LUA_TTHREAD   ? "thread"
                                              : "light-userdata";
      s->append(Format("\"%s@%p\"", name, lua_topointer(L, idx)));
      break;
    }
    default:
      s->append("\"<unknown-lua-type>\"");
      break;
  }
}

// One line of RESP starting at `p` (without its "\r\n"), and the offset after it.
std::string_view RespLine(std::string_view resp, size_t* next) {
  size_t e = resp.find('\r');
  if (e == std::string_view::npos) {
    *next = resp.size();
    return resp;
  }
  *next = std::min(resp.size(), e + 2);
  return resp.substr(0, e);
}

}  // namespace

void AppendStackValue(std::string* out, lua_State* L, int idx) { AppendValueRec(out, L, idx, 0); }

void AppendRepr(std::string* out, std::string_view s) {
  out->push_back('"');
  for (char c : s) {
    switch (c) {
      case '\\':
      case '"':
        out->push_back('\\');
        out->push_back(c);
        break;
      case '\n':
        out->append("\\n");
        break;
      case '\r':
        out->append("\\r");
        break;
      case '\t':
        out->append("\\t");
        break;
      case '\a':
        out->append("\\a");
        break;
      case '\b':
        out->append("\\b");
        break;
      default:
        if (isprint(static_cast<unsigned char>(c))) {
          out->push_back(c);
        } else {
          out->append(Format("\\x%02x", static_cast<unsigned char>(c)));
        }
    }
  }
  out->push_back('"');
}

size_t AppendHumanReply(std::string* out, std::string_view resp) {
  if (resp.empty()) {
    return 0;
  }
  size_t next;
  std::string_view line = RespLine(resp, &next);
  std::string_view rest = line.substr(1);
  switch (resp[0]) {
    case ':':
      out->append(rest);
      return next;
    case '$': {
      long long n = atoll(std::string(rest).c_str());
      if (n < 0) {
        out->append("NULL");
        return next;
      }
      size_t len = static_cast<size_t>(n);
      AppendRepr(out, resp.substr(next, len));
      return std::min(resp.size(), next + len + 2);
    }
    case '+':
    case '-':
      AppendRepr(out, line);
      return next;
    case '*':
    case '~':
    case '%': {
      long long n = atoll(std::string(rest).c_str());
      if (n < 0) {
        out->append("NULL");
        return next;
      }
      const char kind = resp[0];
      out->append(kind == '*' ? "[" : kind == '~' ? "~(" : "{");
      size_t off = next;
      for (long long j = 0; j < n && off < resp.size(); j++) {
        off += AppendHumanReply(out, resp.substr(off));
        if (kind == '%') {
          out->append(" => ");
          off += AppendHumanReply(out, resp.substr(off));
        }
        if (j != n - 1) {
          out->push_back(',');
        }
      }
      out->append(kind == '*' ? "]" : kind == '~' ? ")" : "}");
      return off;
    }
    case '_':
      out->append("(null)");
      return next;
    case '#':
      out->append(rest == "t" ? "#true" : "#false");
      return next;
    case ',':
      out->append("(double) ");
      out->append(rest);
      return next;
    default:
      return next;
  }
}

LdbSession::LdbSession(Connection& conn, Worker& worker, std::string_view body, bool yes_mode)
    : conn_(conn), worker_(worker), yes_mode_(yes_mode), prev_(t_session) {
  // The source as the debugger lists it: trailing newlines dropped, split on "\n".
  while (!body.empty() && (body.back() == '\n' || body.back() == '\r')) {
    body.remove_suffix(1);
  }
  size_t start = 0;
  for (;;) {
    size_t nl = body.find('\n', start);
    src_.emplace_back(body.substr(start, nl == std::string_view::npos ? nl : nl - start));
    if (nl == std::string_view::npos) {
      break;
    }
    start = nl + 1;
  }
  t_session = this;
  fprintf(stderr, "# Redis synchronous debugging eval session started\n");
}

LdbSession::~LdbSession() {
  End();
  t_session = prev_;
}

LdbSession* LdbSession::Active() { return t_session; }

void LdbSession::End() {
  if (ended_) {
    return;
  }
  ended_ = true;
  Log("<endsession>");
  SendLogs();
  fprintf(stderr, "# Redis synchronous debugging eval session ended\n");
}

void LdbSession::Log(std::string line) { logs_.push_back(std::move(line)); }

void LdbSession::LogWithMaxLen(std::string line) {
  bool trimmed = false;
  if (maxlen_ != 0 && line.size() > maxlen_) {
    line.resize(maxlen_);
    line.append(" ...");
    trimmed = true;
  }
  Log(std::move(line));
  if (trimmed && !maxlen_hint_sent_) {
    maxlen_hint_sent_ = true;
    Log("<hint> The above reply was trimmed. Use 'maxlen 0' to disable trimming.");
  }
}

void LdbSession::SendLogs() {
  if (gone_) {
    logs_.clear();
    return;
  }
  std::string proto = "*" + std::to_string(logs_.size()) + "\r\n";
  for (std::string& l : logs_) {
    for (char& c : l) {
      if (c == '\r' || c == '\n') {
        c = ' ';
      }
    }
    proto.push_back('+');
    proto.append(l);
    proto.append("\r\n");
  }
  logs_.clear();
  conn_.out.Append(proto);
  worker_.Flush(&conn_);
}

bool LdbSession::IsBreakpoint(int line) const {
  for (int b : bp_) {
    if (b == line) {
      return true;
    }
  }
  return false;
}

void LdbSession::LogSourceLine(int line) {
  const char* text = line >= 1 && static_cast<size_t>(line) <= src_.size()
                         ? src_[static_cast<size_t>(line) - 1].c_str()
                         : "<out of range source code line>";
  const bool bp = IsBreakpoint(line);
  const bool current = current_line_ == line;
  const char* prefix = current && bp ? "->#" : current ? "-> " : bp ? "  #" : "   ";
  Log(Format("%s%-3d ", prefix, line) + text);
}

void LdbSession::List(int around, int context) {
  for (int j = 1; j <= static_cast<int>(src_.size()); j++) {
    if (around != 0 && abs(around - j) > context) {
      continue;
    }
    LogSourceLine(j);
  }
}

void LdbSession::LogStackValue(lua_State* L, const char* prefix) {
  std::string s = prefix;
  AppendStackValue(&s, L, -1);
  LogWithMaxLen(std::move(s));
}

void LdbSession::LogCommand(const std::vector<std::string_view>& argv) {
  std::string s = "<redis>";
  for (size_t j = 0; j < argv.size(); j++) {
    if (j == 10) {
      s.append(Format(" ... (%d more)", static_cast<int>(argv.size() - j - 1)));
      break;
    }
    s.push_back(' ');
    s.append(argv[j]);
  }
  Log(std::move(s));
}

void LdbSession::LogReply(std::string_view resp) {
  std::string s = "<reply> ";
  AppendHumanReply(&s, resp);
  LogWithMaxLen(std::move(s));
}

void LdbSession::LogError(std::string_view msg) { Log("<error> " + std::string(msg)); }

void LdbSession::LogDebug(lua_State* L) {
  int argc = lua_gettop(L);
  std::string s = Format("<debug> line %d: ", current_line_);
  while (argc--) {
    AppendStackValue(&s, L, -1 - argc);
    if (argc != 0) {
      s.append(", ");
    }
  }
  Log(std::move(s));
}

void LdbSession::Hook(lua_State* L, lua_Debug* ar) {
  lua_getstack(L, 0, ar);
  lua_getinfo(L, "Sl", ar);
  if (strstr(ar->short_src, "user_script") == nullptr) {
    return;  // events outside the script (the debugger's own eval)
  }
  current_line_ = ar->currentline;
  const bool bp = IsBreakpoint(current_line_) || luabp_;
  bool timeout = false;
  if (ar->event == LUA_HOOKCOUNT && !step_ && !bp) {
    if (run_ == nullptr || run_->ElapsedMs() < static_cast<double>(run_->DebugTimeLimitMs())) {
      return;
    }
    timeout = true;
    step_ = true;
  }
  if (!step_ && !bp) {
    return;
  }
  const char* reason = "step over";
  if (bp) {
    reason = luabp_ ? "redis.breakpoint() called" : "break point";
  } else if (timeout) {
    reason = "timeout reached, infinite loop?";
  }
  step_ = false;
  luabp_ = false;
  Log(Format("* Stopped at %d, stop reason = %s", current_line_, reason));
  LogSourceLine(current_line_);
  if (yes_mode_ && !hint_sent_) {
    hint_sent_ = true;
    Log("<hint> HotKV runs SCRIPT DEBUG YES as SYNC: the changes the script makes are "
        "kept (not rolled back).");
  }
  SendLogs();
  if (!Repl(L) && timeout) {
    // The client went away during a stop for a timeout: stop the script rather than
    // leaving it to run forever.
    RaiseScriptError(L, "ERR timeout during Lua debugging with client closing connection");
  }
  if (run_ != nullptr) {
    run_->RestartClock();
  }
}

std::vector<std::string> LdbSession::ReadCommand(lua_State* L) {
  for (;;) {
    // Redis's forgiving parser: "*<n>\r\n" then n "$<len>\r\n<bytes>\r\n".
    if (!cbuf_.empty()) {
      bool complete = false, error = false;
      std::vector<std::string> argv;
      size_t p = cbuf_.find('*');
      if (p == std::string::npos) {
        error = true;
      } else {
        size_t e = cbuf_.find("\r\n", p);
        if (e != std::string::npos) {
          long n = atol(cbuf_.substr(p + 1, e - p - 1).c_str());
          p = e + 2;
          if (n <= 0 || n > 1024) {
            error = true;
          } else {
            for (;;) {
              if (static_cast<long>(argv.size()) == n) {
                complete = true;
                break;
              }
              if (p >= cbuf_.size()) {
                break;  // more to read
              }
              if (cbuf_[p] != '$') {
                error = true;
                break;
              }
              e = cbuf_.find("\r\n", p);
              if (e == std::string::npos) {
                break;
              }
              long len = atol(cbuf_.substr(p + 1, e - p - 1).c_str());
              p = e + 2;
              if (len <= 0 || len > 1024) {
                error = true;
                break;
              }
              if (p + static_cast<size_t>(len) + 2 > cbuf_.size()) {
                break;
              }
              argv.emplace_back(cbuf_.substr(p, static_cast<size_t>(len)));
              p += static_cast<size_t>(len);
              if (cbuf_[p] != '\r' || cbuf_[p + 1] != '\n') {
                error = true;
                break;
              }
              p += 2;
            }
          }
        }
      }
      if (error) {
        RaiseScriptError(L, "ERR protocol error");
      }
      if (complete) {
        cbuf_.clear();  // as Redis: the rest of the buffer is dropped
        return argv;
      }
    }
    if (run_ != nullptr) {
      run_->DrainWatches();
    }
    if (run_ != nullptr && run_->kill_requested()) {
      RaiseScriptError(L, "ERR Script killed by user with SCRIPT KILL...");
    }
    if (gone_) {
      return {};
    }
    switch (worker_.ReadDebugInput(&conn_, kBusyScriptError, &cbuf_, 10)) {
      case Worker::DebugInput::kOk:
        break;
      case Worker::DebugInput::kGone:
        gone_ = true;
        break;
      case Worker::DebugInput::kStopping:
        // SHUTDOWN NOSAVE: the script stops; its caller gets no reply.
        gone_ = true;
        conn_.set_reply_mode(Client::ReplyMode::kOff);
        conn_.set_close_after_reply();
        RaiseScriptError(L, "ERR Script killed by user with SCRIPT KILL...");
    }
    if (cbuf_.size() > kMaxInputBytes) {
      RaiseScriptError(L, "ERR max client buffer reached");
    }
  }
}

bool LdbSession::Repl(lua_State* L) {
  if (!busy_ && run_ != nullptr) {
    busy_ = true;
    run_->BeginDebugWait();  // its shards are a busy script's from now on
  }
  for (;;) {
    std::vector<std::string> argv = ReadCommand(L);
    if (argv.empty()) {
      // Gone: run the rest of the script without stopping.
      step_ = false;
      bp_.clear();
      return false;
    }
    const std::string& c = argv[0];
    const size_t argc = argv.size();
    if (EqualsAny(c, "h", "help")) {
      Help();
    } else if (EqualsAny(c, "s", "step") || EqualsAny(c, "n", "next")) {
      step_ = true;
      return true;
    } else if (EqualsAny(c, "c", "continue")) {
      return true;
    } else if (EqualsAny(c, "t", "trace")) {
      Trace(L);
    } else if (EqualsAny(c, "m", "maxlen")) {
      Maxlen(argv);
    } else if (EqualsAny(c, "b", "break")) {
      Break(argv);
    } else if (EqualsAny(c, "e", "eval")) {
      Eval(L, argv);
    } else if (EqualsAny(c, "a", "abort")) {
      RaiseScriptError(L, "ERR script aborted for user request");
    } else if (argc > 1 && EqualsAny(c, "r", "redis")) {
      Redis(L, argv);
    } else if (EqualsAny(c, "p", "print")) {
      if (argc == 2) {
        Print(L, argv[1]);
      } else {
        PrintAll(L);
      }
    } else if (EqualsAny(c, "l", "list")) {
      int around = current_line_, ctx = 5;
      if (argc > 1) {
        int num = atoi(argv[1].c_str());
        if (num > 0) {
          around = num;
        }
      }
      if (argc > 2) {
        ctx = atoi(argv[2].c_str());
      }
      List(around, ctx);
    } else if (EqualsAny(c, "w", "whole")) {
      List(1, 1000000);
    } else {
      Log("<error> Unknown Redis Lua debugger command or wrong number of arguments.");
    }
    SendLogs();
  }
}

void LdbSession::Help() {
  static const char* kLines[] = {
      "Redis Lua debugger help:",
      "[h]elp               Show this help.",
      "[s]tep               Run current line and stop again.",
      "[n]ext               Alias for step.",
      "[c]ontinue           Run till next breakpoint.",
      "[l]ist               List source code around current line.",
      "[l]ist [line]        List source code around [line].",
      "                     line = 0 means: current position.",
      "[l]ist [line] [ctx]  In this form [ctx] specifies how many lines",
      "                     to show before/after [line].",
      "[w]hole              List all source code. Alias for 'list 1 1000000'.",
      "[p]rint              Show all the local variables.",
      "[p]rint <var>        Show the value of the specified variable.",
      "                     Can also show global vars KEYS and ARGV.",
      "[b]reak              Show all breakpoints.",
      "[b]reak <line>       Add a breakpoint to the specified line.",
      "[b]reak -<line>      Remove breakpoint from the specified line.",
      "[b]reak 0            Remove all breakpoints.",
      "[t]race              Show a backtrace.",
      "[e]val <code>        Execute some Lua code (in a different callframe).",
      "[r]edis <cmd>        Execute a Redis command.",
      "[m]axlen [len]       Trim logged Redis replies and Lua var dumps to len.",
      "                     Specifying zero as <len> means unlimited.",
      "[a]bort              Stop the execution of the script. In sync",
      "                     mode dataset changes will be retained.",
      "",
      "Debugger functions you can call from Lua scripts:",
      "redis.debug()        Produce logs in the debugger console.",
      "redis.breakpoint()   Stop execution like if there was a breakpoint in the",
      "                     next line of code."};
  for (const char* l : kLines) {
    Log(l);
  }
}

void LdbSession::Break(const std::vector<std::string>& argv) {
  if (argv.size() == 1) {
    if (bp_.empty()) {
      Log("No breakpoints set. Use 'b <line>' to add one.");
      return;
    }
    Log(Format("%d breakpoints set:", static_cast<int>(bp_.size())));
    for (int b : bp_) {
      LogSourceLine(b);
    }
    return;
  }
  for (size_t j = 1; j < argv.size(); j++) {
    std::optional<int64_t> v = ParseInt64(argv[j]);
    if (!v) {
      Log("Invalid argument:'" + argv[j] + "'");
      continue;
    }
    const int64_t line = *v;
    if (line == 0) {
      bp_.clear();
      Log("All breakpoints removed.");
    } else if (line > 0) {
      if (bp_.size() == kMaxBreakpoints) {
        Log("Too many breakpoints set.");
      } else if (line <= static_cast<int64_t>(src_.size()) && !IsBreakpoint(static_cast<int>(line))) {
        bp_.push_back(static_cast<int>(line));
        List(static_cast<int>(line), 1);
      } else {
        Log("Wrong line number.");
      }
    } else {
      auto it = std::find(bp_.begin(), bp_.end(), static_cast<int>(-line));
      if (it != bp_.end()) {
        bp_.erase(it);
        Log("Breakpoint removed.");
      } else {
        Log("No breakpoint in the specified line.");
      }
    }
  }
}

void LdbSession::PrintAll(lua_State* L) {
  lua_Debug ar;
  int vars = 0;
  if (lua_getstack(L, 0, &ar) != 0) {
    const char* name;
    for (int i = 1; (name = lua_getlocal(L, &ar, i)) != nullptr; i++) {
      if (strstr(name, "(*temporary)") == nullptr) {
        LogStackValue(L, ("<value> " + std::string(name) + " = ").c_str());
        vars++;
      }
      lua_pop(L, 1);
    }
  }
  if (vars == 0) {
    Log("No local variables in the current context.");
  }
}

void LdbSession::Print(lua_State* L, const std::string& varname) {
  lua_Debug ar;
  for (int level = 0; lua_getstack(L, level, &ar) != 0; level++) {
    const char* name;
    for (int i = 1; (name = lua_getlocal(L, &ar, i)) != nullptr; i++) {
      if (varname == name) {
        LogStackValue(L, "<value> ");
        lua_pop(L, 1);
        return;
      }
      lua_pop(L, 1);
    }
  }
  if (varname == "ARGV" || varname == "KEYS") {
    lua_getglobal(L, varname.c_str());
    LogStackValue(L, "<value> ");
    lua_pop(L, 1);
  } else {
    Log("No such variable.");
  }
}

void LdbSession::Trace(lua_State* L) {
  lua_Debug ar;
  int level = 0;
  while (lua_getstack(L, level, &ar)) {
    lua_getinfo(L, "Snl", &ar);
    if (strstr(ar.short_src, "user_script") != nullptr) {
      Log(Format("%s %s:", level == 0 ? "In" : "From", ar.name ? ar.name : "top level"));
      LogSourceLine(ar.currentline);
    }
    level++;
  }
  if (level == 0) {
    Log("<error> Can't retrieve Lua stack.");
  }
}

void LdbSession::Maxlen(const std::vector<std::string>& argv) {
  if (argv.size() == 2) {
    int v = atoi(argv[1].c_str());
    maxlen_hint_sent_ = true;  // the user knows about this command
    if (v != 0 && v <= 60) {
      v = 60;
    }
    maxlen_ = static_cast<size_t>(v < 0 ? 60 : v);
  }
  if (maxlen_ != 0) {
    Log(Format("<value> replies are truncated at %d bytes.", static_cast<int>(maxlen_)));
  } else {
    Log("<value> replies are unlimited.");
  }
}

void LdbSession::Eval(lua_State* L, const std::vector<std::string>& argv) {
  std::string code;
  for (size_t j = 1; j < argv.size(); j++) {
    if (j > 1) {
      code.push_back(' ');
    }
    code.append(argv[j]);
  }
  const std::string expr = "return " + code;
  // As an expression first ("return " prepended), then as a statement.
  if (luaL_loadbuffer(L, expr.data(), expr.size(), "@ldb_eval") != 0) {
    lua_pop(L, 1);
    if (luaL_loadbuffer(L, code.data(), code.size(), "@ldb_eval") != 0) {
      Log(std::string("<error> ") + (lua_tostring(L, -1) ? lua_tostring(L, -1) : ""));
      lua_pop(L, 1);
      return;
    }
  }
  if (lua_pcall(L, 0, 1, 0) != 0) {
    Log(std::string("<error> ") + (lua_tostring(L, -1) ? lua_tostring(L, -1) : ""));
    lua_pop(L, 1);
    return;
  }
  LogStackValue(L, "<retval> ");
  lua_pop(L, 1);
}

void LdbSession::Redis(lua_State* L, const std::vector<std::string>& argv) {
  if (!lua_checkstack(L, static_cast<int>(argv.size()) + 1)) {
    LogReply("max lua stack reached");
    return;
  }
  lua_getglobal(L, "redis");
  lua_getfield(L, -1, "call");
  for (size_t j = 1; j < argv.size(); j++) {
    lua_pushlstring(L, argv[j].data(), argv[j].size());
  }
  step_ = true;  // redis.call logs the command and its reply
  lua_pcall(L, static_cast<int>(argv.size()) - 1, 1, 0);
  step_ = false;
  lua_pop(L, 2);
}

}  // namespace hotkv::scripting
