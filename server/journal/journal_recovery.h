// File: journal_recovery.h
//
// Rebuilds every live world of the journal when a server starts, while the
// server already listens:
//  - Reserve(), before the server listens, holds each journaled world's id
//    in the registry as a kRecovering placeholder, so no call can create
//    that id again (a second live journal row) or see a half-built world,
//    and puts back the tombstones of worlds that moved away;
//  - Run(), on a thread of its own, replays the worlds one by one, each
//    into a registry of its own through the same Replayer as ever (so a
//    recovered world is bit for bit what a recovery before listening
//    built), compacts its journal and installs it in place of its
//    placeholder. Any difference from the recorded hashes stops the run:
//    the server must not serve a half-recovered journal.
// Progress goes to `log`: a line as each world starts, one every
// `progress_every` while it replays, and one when it is back.
#pragma once

#include <chrono>
#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "journal/journal.h"
#include "journal/recovery_gate.h"
#include "ops/operations.h"
#include "ops/world_registry.h"

namespace arbiter::server {

struct RecoveryOptions {
  /// Where progress lines go (without a trailing newline); null: nowhere.
  std::function<void(const std::string&)> log;
  std::chrono::milliseconds progress_every{2000};
  /// Tests only: a pause after each replayed record, so that tests can
  /// watch a server mid-recovery on a small journal. 0 in production.
  std::chrono::milliseconds delay_per_record_for_testing{0};
};

class JournalRecovery {
 public:
  /// Every pointer must outlive this object.
  JournalRecovery(Journal* journal, WorldRegistry* registry, Operations* operations, RecoveryGate* gate,
                  RecoveryOptions options);

  /// Reads the journal's live worlds and reserves their ids (see above).
  absl::Status Reserve();
  /// Replays every reserved world; `stop` is polled between records
  /// (CANCELLED once it returns true). The first failure ends the run, its
  /// message naming the world and the journal.
  absl::Status Run(const std::function<bool()>& stop);

  /// The worlds back so far, by journal key.
  const std::vector<std::string>& recovered() const { return recovered_; }

 private:
  absl::Status RecoverWorld(const Journal::StoredWorld& stored, const std::function<bool()>& stop);
  /// The tombstones of worlds moved away, back in the registry.
  absl::Status RestoreTombstones();
  void Log(const std::string& line) const;

  Journal* journal_;
  WorldRegistry* registry_;
  Operations* operations_;
  RecoveryGate* gate_;
  const RecoveryOptions options_;
  std::vector<Journal::StoredWorld> worlds_;
  std::vector<std::string> recovered_;
};

}  // namespace arbiter::server
