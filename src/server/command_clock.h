// Command timing with one TSC read per command where commands run back to back.
//
// `rdtsc` is cheap on bare metal but trapped by some hypervisors (70-110 ns of wall time
// per read on the PVM guest of bench/notes/2026-12-03-cpu-floor.md), and every command
// is timed (INFO commandstats usec, latency histograms, SLOWLOG, LATENCY). Within one
// connection's turn (Worker::ProcessInput opens a CommandClockTurn) a command's start is
// the previous command's end, so a command's interval also covers the little the
// dispatcher does between two commands (accounting the previous one, parsing and looking
// up this one: tens of ns, below the microsecond the figures are kept in). The first
// command of a turn, and any command run outside a turn (unblocked clients, scripts'
// inner commands, the AOF loader, EXEC's queue), reads the clock at its start as before.
// Anything that may take long between two commands of a turn (evictions before a
// command, a large parse) calls RestartCommandClock() so it is not charged to the
// next command.
//
// Thread safety: thread-local state of the thread running the commands.
#pragma once

#include <cstdint>

namespace hotkv {

namespace command_clock_internal {
// 0: outside a turn (read at each start); 1: in a turn, no command ended yet; else the
// TSC at the end of the turn's last command. Cleared while a command runs, so that a
// command dispatched from inside another one (a script's redis.call) reads its own.
inline thread_local constinit uint64_t t_chain = 0;
}  // namespace command_clock_internal

class CommandClockTurn {
 public:
  // `chain` false (a turn served while a script is busy) keeps two reads per command.
  explicit CommandClockTurn(bool chain) : saved_(command_clock_internal::t_chain) {
    command_clock_internal::t_chain = chain ? 1 : 0;
  }
  ~CommandClockTurn() { command_clock_internal::t_chain = saved_; }
  CommandClockTurn(const CommandClockTurn&) = delete;
  CommandClockTurn& operator=(const CommandClockTurn&) = delete;

 private:
  uint64_t saved_;
};

// The next command of this turn reads the clock at its start (see above).
inline void RestartCommandClock() {
  if (command_clock_internal::t_chain > 1) {
    command_clock_internal::t_chain = 1;
  }
}

}  // namespace hotkv
