// Lazy expiry while writes are paused (CLIENT PAUSE WRITE|ALL, Redis 7): a read command
// run with KeepExpiredScope treats a key whose TTL passed as missing but leaves it in
// place (no deletion, no "expired" event, INFO expired_keys unchanged); the key goes on
// the first lookup after the pause. Only read commands set it (the dispatcher): a write
// always deletes what it finds expired, so nothing is ever inserted over a kept key.
//
// Thread safety: a thread-local flag of the calling thread.
#pragma once

namespace hotkv {

void SetLookupKeepsExpired(bool on);
bool LookupKeepsExpired();

class KeepExpiredScope {
 public:
  explicit KeepExpiredScope(bool on) : on_(on) {
    if (on_) {
      SetLookupKeepsExpired(true);
    }
  }
  ~KeepExpiredScope() {
    if (on_) {
      SetLookupKeepsExpired(false);
    }
  }
  KeepExpiredScope(const KeepExpiredScope&) = delete;
  KeepExpiredScope& operator=(const KeepExpiredScope&) = delete;

 private:
  const bool on_;
};

}  // namespace hotkv
