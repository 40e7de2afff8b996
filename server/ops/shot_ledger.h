// File: shot_ledger.h
//
// The shots a world has judged (ValidateShots' "once per shot"): the first
// judgement of each (shooter, shot id), kept until its fire tick falls
// more than the history window plus a margin behind the current tick. By
// then a re-sent shot is TOO_OLD anyway, so no shot is ever judged twice to
// two different verdicts while the ledger holds at most its capacity.
//
// Thread safety: the caller holds Lock() across a whole request (look up,
// judge, record, journal), so that shots on one world are judged, and
// journaled, in one order that a replay reproduces.
#pragma once

#include <compare>
#include <cstddef>
#include <cstdint>
#include <map>
#include <mutex>
#include <set>
#include <utility>

#include "arbiter/v1/arbiter.pb.h"

namespace arbiter::server {

class ShotLedger {
 public:
  struct Key {
    uint64_t shooter = 0;
    uint64_t shot = 0;
    friend auto operator<=>(const Key&, const Key&) = default;
  };

  std::unique_lock<std::mutex> Lock() const { return std::unique_lock<std::mutex>(mu_); }

  // ---- Under Lock() ----------------------------------------------------------
  /// Forgets every shot fired before `oldest_kept_tick`.
  void Expire(int64_t oldest_kept_tick);
  /// The first judgement of `key`, or null.
  const v1::ShotJudgement* Find(const Key& key) const;
  /// Remembers the first judgement of a shot fired at `fire_tick`.
  void Record(const Key& key, int64_t fire_tick, v1::ShotJudgement judgement);
  size_t size() const { return by_key_.size(); }

 private:
  struct Entry {
    int64_t fire_tick = 0;
    v1::ShotJudgement judgement;
  };
  mutable std::mutex mu_;
  std::map<Key, Entry> by_key_;
  std::set<std::pair<int64_t, Key>> by_fire_tick_;  // expiry order
};

}  // namespace arbiter::server
