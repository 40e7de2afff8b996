// File: recovery_gate.h
//
// Whether a starting server has finished recovering its journal. The
// server listens at once, so that health checks and clients get an answer
// rather than a refused connection, while its worlds are replayed in the
// background (journal_recovery.h). Until the gate opens, every call that
// needs the writer or admin role (changes, creations, deletions, snapshots,
// exports) and ListWorlds get UNAVAILABLE: a creation could take the id of
// a world not yet back and write a second live journal row for it, and a
// list would silently miss the worlds still being replayed. Reads of a
// world already back are served; a world not yet back answers UNAVAILABLE
// through its kRecovering registry entry (world_registry.h).
#pragma once

#include <atomic>
#include <cstddef>
#include <string>

#include "absl/status/status.h"

namespace arbiter::server {

class RecoveryGate {
 public:
  /// Closed: a server opens it before listening when it has no journal
  /// to recover, and when the recovery is done otherwise.
  RecoveryGate() = default;

  bool open() const { return open_.load(); }
  void Open() { open_.store(true); }
  /// For the refusal's message: worlds back so far, of how many.
  void SetProgress(size_t back, size_t total) {
    back_.store(back);
    total_.store(total);
  }

  /// OK once open; UNAVAILABLE with a retry hint before.
  absl::Status Check() const {
    if (open()) return absl::OkStatus();
    return absl::UnavailableError("the server is recovering its journal (" + std::to_string(back_.load()) + " of " +
                                  std::to_string(total_.load()) +
                                  " worlds back); retry in a few seconds (health turns SERVING when it is done)");
  }

 private:
  std::atomic<bool> open_{false};
  std::atomic<size_t> back_{0};
  std::atomic<size_t> total_{0};
};

}  // namespace arbiter::server
