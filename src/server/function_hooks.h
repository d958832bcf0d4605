// FunctionHooks: what the persistence layer asks of FUNCTION's library registry
// (src/scripting/): the libraries' code to save (RDB function section, AOF rewrite) and
// the libraries read back from a file. server/ declares it and never includes
// scripting/; main.cc installs the implementation with SetFunctionHooks(). Without one
// (tests that build a bare Server) files are written without functions and the function
// section of a file read is skipped.
//
// Thread safety: implementations may be called from any thread, and from a forked
// snapshot child (LibraryCodes): they must not take a lock that a writer could hold while
// the shards are locked for the fork.
#pragma once

#include <atomic>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"

namespace hotkv {

class FunctionHooks {
 public:
  virtual ~FunctionHooks() = default;
  // The code of every library, in a stable order.
  virtual std::vector<std::string> LibraryCodes() = 0;
  // Adds one library read from an RDB file or an AOF's RDB base; a library of the same
  // name is replaced. An error (code that does not load) stops the load.
  virtual Status LoadLibraryFromFile(std::string_view code) = 0;
};

namespace function_hooks_internal {
inline std::atomic<FunctionHooks*> g_hooks{nullptr};
}  // namespace function_hooks_internal

inline void SetFunctionHooks(FunctionHooks* hooks) {
  function_hooks_internal::g_hooks.store(hooks, std::memory_order_release);
}
inline FunctionHooks* GetFunctionHooks() {
  return function_hooks_internal::g_hooks.load(std::memory_order_acquire);
}

}  // namespace hotkv
