// File: hit_feed.h
//
// ValidateHit verdicts as they happen, for the viewer: the operation
// publishes each answered ValidateHit (operations.h's VerdictObserver) as a
// JSON object, and every viewer stream watching that world
// (viewer_stream.h) receives it. Like EventBroadcaster, sinks are called
// with the feed's lock held and must only queue.
//
// JSON: {"tick","fraction","shooter","target","verdict":"CONFIRMED"|"BLOCKED"|"MISSED",
//        "ray":{"x","y","dx","dy"},"first_hit":{"body","x","y","nx","ny"}|null,
//        "target_hit":{...}|null}; numbers as exact decimals, ids as strings.
// ValidateShots judgements come the same way: {"kind":"shot","tick" (judged at),"shooter",
// "shot","target","verdict":"CONFIRMED"|...|"TOO_OLD","fire_tick","end":
// "HIT"|...,"path":[{"x","y"},...],"hit":{"body","x","y","nx","ny"}|null}.
#pragma once

#include <atomic>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "arbiter/v1/arbiter.pb.h"
#include "ops/operations.h"

namespace arbiter::server {

class HitSink {
 public:
  virtual ~HitSink() = default;
  virtual void OnHit(const std::string& json) = 0;
};

class HitFeed : public VerdictObserver {
 public:
  void Subscribe(const std::string& world_id, HitSink* sink);
  void Unsubscribe(const std::string& world_id, HitSink* sink);
  /// Whether anyone watches `world_id` (the operations publish verdicts
  /// only then). Without any viewer open (the usual case) it takes no lock:
  /// ValidateHit is a hot call.
  bool Watched(std::string_view world_id) const override;
  void OnHit(const v1::ValidateHitRequest& request, const v1::ValidateHitResponse& reply) override;
  void OnShot(const std::string& world_id, const v1::Shot& shot, const v1::ShotJudgement& judgement,
              const std::vector<Vec2>& path) override;

  /// The JSON of one verdict (see the file comment).
  static std::string VerdictJson(const v1::ValidateHitRequest& request, const v1::ValidateHitResponse& reply);
  /// The JSON of one judged shot (see the file comment).
  static std::string ShotJson(const v1::Shot& shot, const v1::ShotJudgement& judgement, const std::vector<Vec2>& path);

 private:
  void PublishJson(const std::string& world_id, const std::string& json);

  mutable std::mutex mu_;
  std::map<std::string, std::set<HitSink*>, std::less<>> sinks_;
  std::atomic<size_t> subscriptions_{0};  // sinks_ entries over all worlds
};

}  // namespace arbiter::server
