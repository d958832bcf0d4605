// The cluster slots of a multi-key command's keys, as the dispatcher computed them to
// lock their shards (RunCommand), for the handler to reuse: MGET and MSET locate each key
// with one CRC16 instead of two. In cluster mode the router fills them first when it
// routed the command by them (all keys in one slot), and the dispatcher keeps them: one
// CRC16 per key in all.
//
//   uint32_t slot = DispatchedKeySlot(ctx.args(), i);   // kNoSlot: not known, compute it
//
// Valid only while the command the dispatcher locked runs: matched by the identity of the
// argument array (its data pointer and size), and cleared when the command returns, so a
// later command whose arguments reuse the same vector never sees them. Positions from
// kMaxDispatchedSlots on are not kept.
//
// Thread safety: thread-local; set and read on the worker running the command.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

#include "engine/database.h"

namespace hotkv {

inline constexpr size_t kMaxDispatchedSlots = 64;

namespace dispatched_slots_internal {
inline thread_local const std::string_view* t_args = nullptr;
inline thread_local size_t t_argc = 0;
inline thread_local uint64_t t_valid = 0;  // bit i: t_slots[i] holds argument i's slot
inline thread_local uint32_t t_slots[kMaxDispatchedSlots];
}  // namespace dispatched_slots_internal

// For the dispatcher: a new command's arguments (nothing known yet) ...
inline void BeginDispatchedSlots(const std::vector<std::string_view>& args) {
  using namespace dispatched_slots_internal;
  t_args = args.data();
  t_argc = args.size();
  t_valid = 0;
}
// ... argument `i` is a key in `slot` ...
inline void SetDispatchedSlot(size_t i, uint32_t slot) {
  using namespace dispatched_slots_internal;
  if (i < kMaxDispatchedSlots) {
    t_slots[i] = slot;
    t_valid |= uint64_t{1} << i;
  }
}
// ... and the command is over.
inline void EndDispatchedSlots() { dispatched_slots_internal::t_args = nullptr; }
// Whether the slots of `args`' keys were given already for this command (the cluster
// router computed them to route it, before the dispatcher locks): the dispatcher then
// takes them instead of computing them again. Dispatch ends them after every command,
// so they never outlive it (a later command may reuse the same argument vector).
inline bool DispatchedSlotsGiven(const std::vector<std::string_view>& args) {
  using namespace dispatched_slots_internal;
  return args.data() == t_args && args.size() == t_argc;
}

// The slot of argument `i` of the running command (whose arguments are `args`), or
// kNoSlot when the dispatcher did not compute it.
inline uint32_t DispatchedKeySlot(const std::vector<std::string_view>& args, size_t i) {
  using namespace dispatched_slots_internal;
  if (args.data() != t_args || args.size() != t_argc || i >= kMaxDispatchedSlots ||
      !(t_valid & (uint64_t{1} << i))) {
    return kNoSlot;
  }
  return t_slots[i];
}

}  // namespace hotkv
