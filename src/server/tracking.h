// Client-side caching (CLIENT TRACKING), as Redis 7/8 documents it, across workers.
//
// Default mode: the keys a tracked client's read-only command named are remembered in
// the key's shard (key -> client ids; the table is keyed by name only, every database
// alike, as Redis's), under the shard lock the command already holds. A change of such a
// key (KeyModified, expiry, eviction) queues one invalidation for each remembered client
// and forgets them (one-shot). BCAST mode keeps no table: every changed key matching a
// client's prefixes (a process-wide list, read through a per-thread snapshot) is queued
// for it. FLUSHDB/FLUSHALL queue a null invalidation ("everything") for every tracking
// client and drop the whole table (generations: each shard's table is emptied the next
// time it is touched).
//
// Delivery: what a command queued is sent when it ends (the outermost CommandContext),
// with no shard lock held; changes outside commands (active expiry, eviction before a
// command) are sent at once. Invalidations for the calling worker's clients are written
// right away (the running client's own ones after its reply, through its pending pushes,
// as Redis sends them after the command); the others are posted to their worker's
// mailbox, one job per worker. Per key, order follows the key's lock. On the tracking
// client's worker the message goes to the client itself (RESP3 push), or to its REDIRECT
// client (RESP3 push, or a `__redis__:invalidate` message to a subscribed RESP2 client)
// on whatever worker that one lives; a missing redirect client sets the `R` flag and
// answers `tracking-redir-broken` instead, as Redis does on each later invalidation.
//
// Cost when nobody tracks: one relaxed load and a predicted branch per changed key
// (TrackingActive()), and one predicted branch on the client's flags per command.
//
// Thread safety: the per-shard tables are guarded by their shard's lock; the BCAST
// prefix list by a mutex (snapshots copied per thread when its version moves); a
// client's tracking state is its owner's (flags mirrored in an atomic for CLIENT LIST).
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "server/client.h"

namespace hotkv {

class CommandContext;
class CommandSpec;
class KeyObserver;
class Server;
class Worker;

// Client tracking flags (Client::tracking_flags()).
enum TrackingFlag : uint32_t {
  kTrackOn = 1u << 0,
  kTrackBcast = 1u << 1,
  kTrackOptin = 1u << 2,
  kTrackOptout = 1u << 3,
  kTrackNoloop = 1u << 4,
  kTrackCaching = 1u << 5,      // CLIENT CACHING YES (OPTIN) / NO (OPTOUT) given
  kTrackBrokenRedir = 1u << 6,  // the REDIRECT client went away
};

// Clients with tracking on, and keys in the default-mode tables (INFO).
extern std::atomic<int64_t> g_tracking_clients;
extern std::atomic<int64_t> g_tracking_keys;

// Whether a key change has any tracking work to do.
inline bool TrackingActive() {
  return g_tracking_clients.load(std::memory_order_relaxed) != 0 ||
         g_tracking_keys.load(std::memory_order_relaxed) != 0;
}

// ---- called by the runtime ----

// The observer (expiry, eviction, flush) the server registers with its keyspace.
std::unique_ptr<KeyObserver> MakeTrackingObserver(Server& server);
// `key` changed (CommandContext::KeyModified), its shard locked by the caller.
void TrackingKeyChanged(std::string_view key);
// After a read-only command of a tracked client, under the command's locks: remembers
// the keys it named (unless OPTIN/OPTOUT say otherwise, or the client is in BCAST mode).
// `lock_shards`: the command ran without locks (self_locking): each key's shard is
// locked here.
void TrackingRememberKeys(CommandContext& ctx, bool lock_shards);
// The outermost CommandContext of this thread starts / ends (no shard lock held at the
// end, except for a blocked command's stand-in, whose client never tracks). Inline: the
// common case (nothing queued, the client not tracking, no table) is a few loads.
namespace tracking_internal {
inline thread_local int t_depth = 0;              // CommandContexts alive on this thread
inline thread_local Client* t_current = nullptr;  // the client of the outermost one
inline thread_local bool t_queued = false;        // invalidations wait to be sent
void CommandEndSlow(Client& client, Server& server, const CommandSpec* cmd);
}  // namespace tracking_internal

inline void TrackingCommandBegin(Client& client) {
  if (tracking_internal::t_depth++ == 0) {
    tracking_internal::t_current = &client;
  }
}
inline void TrackingCommandEnd(Client& client, Server& server, const CommandSpec* cmd) {
  if (--tracking_internal::t_depth != 0) {
    return;
  }
  tracking_internal::t_current = nullptr;
  if (tracking_internal::t_queued || client.tracking_flags() != 0 ||
      g_tracking_keys.load(std::memory_order_relaxed) != 0) [[unlikely]] {
    tracking_internal::CommandEndSlow(client, server, cmd);
  }
}
// The client is going away (disconnect, RemoveLocalClient) or RESET: tracking off.
void TrackingDisable(Client& client);

// ---- CLIENT TRACKING / CACHING / TRACKINGINFO (commands/) ----

// CLIENT TRACKING ON with options the command checked (Redis's enableTracking): keeps a
// pending CLIENT CACHING flag, replaces the rest, adds BCAST prefixes ("" when none).
void TrackingEnable(Client& client, uint64_t redirect, uint32_t options,
                    const std::vector<std::string>& prefixes);
// Sorted prefixes of a BCAST client (CLIENT TRACKINGINFO).
const std::vector<std::string>& TrackingPrefixes(const Client& client);

// INFO stats.
uint64_t TrackingTotalItems();
uint64_t TrackingTotalPrefixes();
uint64_t TrackingTotalKeys();

}  // namespace hotkv
