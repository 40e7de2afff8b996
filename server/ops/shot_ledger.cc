#include "ops/shot_ledger.h"

#include <utility>

namespace arbiter::server {

void ShotLedger::Expire(int64_t oldest_kept_tick) {
  while (!by_fire_tick_.empty() && by_fire_tick_.begin()->first < oldest_kept_tick) {
    by_key_.erase(by_fire_tick_.begin()->second);
    by_fire_tick_.erase(by_fire_tick_.begin());
  }
}

const v1::ShotJudgement* ShotLedger::Find(const Key& key) const {
  const auto it = by_key_.find(key);
  return it == by_key_.end() ? nullptr : &it->second.judgement;
}

void ShotLedger::Record(const Key& key, int64_t fire_tick, v1::ShotJudgement judgement) {
  const auto [it, inserted] = by_key_.try_emplace(key, Entry{fire_tick, std::move(judgement)});
  if (inserted) by_fire_tick_.emplace(fire_tick, key);
}

}  // namespace arbiter::server
