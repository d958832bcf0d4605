// LdbSession: the Lua debugger (Redis's LDB) driving one EVAL of a client that asked for
// it with SCRIPT DEBUG YES|SYNC, as `redis-cli --ldb` / `--ldb-sync-mode` use it.
//
//   client: SCRIPT DEBUG SYNC            -> +OK
//   client: EVAL "<script>" 0            -> *2 +* Stopped at 1, stop reason = step over
//                                              +-> 1   local a = 1
//   client: *1 $4 step                   -> the next stop's log lines (an array of statuses)
//   ...                                  -> *1 +<endsession>, then EVAL's own reply, and
//                                           the connection closes (as Redis ends a session)
//
// Protocol and texts are Redis's (eval.c's ldb*): commands arrive as RESP arrays of bulk
// strings on the debugged connection; every answer is an array of status lines (`ldbLog`
// lines, "\r\n" mapped to spaces). Commands: help, step/next, continue, list [line [ctx]],
// whole, print [var], break [[-]line ...], trace, eval <code>, redis <cmd ...>,
// maxlen [len], abort. redis.debug() logs "<debug> line N: ..." and redis.breakpoint()
// stops at the next line (both no-ops returning nothing / false outside a session).
//
// What HotKV blocks: the session runs as SCRIPT DEBUG SYNC, on the client's worker
// thread, holding the shards the script holds (its declared KEYS, and every shard it
// touched) until it ends; they are registered as a busy script's (dispatcher.h
// AddBusyShards) from the first stop, so other clients needing them get -BUSY instead of
// waiting, as does every other command on the same worker (served while the session
// waits for the debugger's input, Worker::ServeWhileBusy) except the allow_busy ones
// (SCRIPT KILL ends a session that has not written). Redis's SYNC mode blocks the whole
// server for the session. SCRIPT DEBUG YES (Redis forks and rolls the changes back) also
// runs as SYNC here: the script's changes are kept, and the first stop says so in a
// "<hint>" line (docs/scripting.md).
//
// Thread safety: one session per worker thread at most (thread_local), used only there.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

struct lua_State;
struct lua_Debug;

namespace hotkv {
class Connection;
class Worker;
}  // namespace hotkv

namespace hotkv::scripting {

class ScriptRun;

class LdbSession {
 public:
  // `body`: the script's source (lines are listed from it). `yes_mode`: SCRIPT DEBUG YES.
  // Started before EVAL checks its arguments (an EVAL that fails still ends the session
  // with "<endsession>", as in Redis); the run is attached once it exists.
  LdbSession(Connection& conn, Worker& worker, std::string_view body, bool yes_mode);
  ~LdbSession();
  LdbSession(const LdbSession&) = delete;
  LdbSession& operator=(const LdbSession&) = delete;

  // This thread's session, or null.
  static LdbSession* Active();

  // The line hook (LUA_MASKLINE | LUA_MASKCOUNT) installed for the session's run.
  void Hook(lua_State* L, lua_Debug* ar);
  // Logs "<endsession>" and sends what is left (before EVAL's reply). Once.
  void End();
  bool ended() const { return ended_; }
  void set_run(ScriptRun* run) { run_ = run; }

  // redis.call's logging while stepping (and during the debugger's `redis` command).
  bool stepping() const { return step_; }
  void LogCommand(const std::vector<std::string_view>& argv);
  void LogReply(std::string_view resp);
  void LogError(std::string_view msg);
  // redis.debug(...) (the values at stack slots 1..n) and redis.breakpoint().
  void LogDebug(lua_State* L);
  void SetLuaBreakpoint() { luabp_ = true; }

 private:
  void Log(std::string line);
  void LogWithMaxLen(std::string line);
  void LogSourceLine(int line);
  void LogStackValue(lua_State* L, const char* prefix);
  void SendLogs();
  void List(int around, int context);
  bool IsBreakpoint(int line) const;
  // Reads and runs debugger commands until one resumes the script. False when the client
  // went away (the script then runs to its end without stopping).
  bool Repl(lua_State* L);
  // The next complete command of the input, waiting for it (serving the worker's other
  // connections meanwhile). Empty when the client went away; raises on a protocol error,
  // an input over 1 MB or SCRIPT KILL / SHUTDOWN.
  std::vector<std::string> ReadCommand(lua_State* L);
  void Break(const std::vector<std::string>& argv);
  void Print(lua_State* L, const std::string& name);
  void PrintAll(lua_State* L);
  void Trace(lua_State* L);
  void Eval(lua_State* L, const std::vector<std::string>& argv);
  void Redis(lua_State* L, const std::vector<std::string>& argv);
  void Maxlen(const std::vector<std::string>& argv);
  void Help();

  ScriptRun* run_ = nullptr;
  Connection& conn_;
  Worker& worker_;
  bool yes_mode_;
  bool hint_sent_ = false;
  std::vector<std::string> src_;
  std::vector<std::string> logs_;
  std::vector<int> bp_;
  bool step_ = true;
  bool luabp_ = false;
  bool gone_ = false;
  bool ended_ = false;
  bool busy_ = false;  // registered as busy at the first stop
  int current_line_ = -1;
  size_t maxlen_ = 256;
  bool maxlen_hint_sent_ = false;
  std::string cbuf_;
  LdbSession* prev_;
};

// Redis's ldbCatStackValue: a Lua value as the debugger shows it ("str" quoted and
// escaped, numbers with %g, {1; 2} arrays, {[k]=v} tables, "function@0x...").
void AppendStackValue(std::string* out, lua_State* L, int idx);
// Redis's sdscatrepr: `s` quoted, with \n \r \t \a \b \\ \" and \xNN escapes.
void AppendRepr(std::string* out, std::string_view s);
// Redis's ldbRedisProtocolToHuman for one reply at the start of `resp`; returns the bytes
// it used.
size_t AppendHumanReply(std::string* out, std::string_view resp);

}  // namespace hotkv::scripting
