#include "http/hit_feed.h"

#include "arbiter/render/exact_decimal.h"

namespace arbiter::server {
namespace {

std::string Num(int64_t raw) { return render::ExactDecimal(raw); }

std::string HitJson(const v1::ValidateHitResponse& reply, bool target) {
  const bool present = target ? reply.has_target_hit() : reply.has_first_hit();
  if (!present) return "null";
  const v1::Hit& h = target ? reply.target_hit() : reply.first_hit();
  return "{\"body\":\"" + std::to_string(h.body_id()) + "\",\"x\":" + Num(h.point().x()) + ",\"y\":" +
         Num(h.point().y()) + ",\"nx\":" + Num(h.normal().x()) + ",\"ny\":" + Num(h.normal().y()) + "}";
}

const char* VerdictName(v1::HitVerdict verdict) {
  switch (verdict) {
    case v1::HIT_VERDICT_CONFIRMED: return "CONFIRMED";
    case v1::HIT_VERDICT_BLOCKED: return "BLOCKED";
    case v1::HIT_VERDICT_MISSED: return "MISSED";
    default: return "UNSPECIFIED";
  }
}

}  // namespace

std::string HitFeed::VerdictJson(const v1::ValidateHitRequest& request, const v1::ValidateHitResponse& reply) {
  const v1::Ray& ray = request.ray();
  return "{\"tick\":" + std::to_string(reply.tick()) + ",\"fraction\":" + Num(reply.tick_fraction()) +
         ",\"shooter\":\"" + std::to_string(request.shooter_body_id()) + "\",\"target\":\"" +
         std::to_string(request.target_body_id()) + "\",\"verdict\":\"" + VerdictName(reply.verdict()) +
         "\",\"ray\":{\"x\":" + Num(ray.origin().x()) + ",\"y\":" + Num(ray.origin().y()) +
         ",\"dx\":" + Num(ray.translation().x()) + ",\"dy\":" + Num(ray.translation().y()) +
         "},\"first_hit\":" + HitJson(reply, false) + ",\"target_hit\":" + HitJson(reply, true) + "}";
}

std::string HitFeed::ShotJson(const v1::Shot& shot, const v1::ShotJudgement& j, const std::vector<Vec2>& path) {
  std::string points;
  for (const Vec2& p : path) {
    points += std::string(points.empty() ? "" : ",") + "{\"x\":" + Num(p.x.raw()) + ",\"y\":" + Num(p.y.raw()) + "}";
  }
  std::string hit = "null";
  if (j.has_hit()) {
    const v1::Hit& h = j.hit();
    hit = "{\"body\":\"" + std::to_string(h.body_id()) + "\",\"x\":" + Num(h.point().x()) + ",\"y\":" +
          Num(h.point().y()) + ",\"nx\":" + Num(h.normal().x()) + ",\"ny\":" + Num(h.normal().y()) + "}";
  }
  const std::string verdict = v1::ShotVerdict_Name(j.verdict()).substr(sizeof("SHOT_VERDICT_") - 1);
  const std::string end = j.end() == v1::FLIGHT_END_UNSPECIFIED ? "" : v1::FlightEnd_Name(j.end()).substr(sizeof("FLIGHT_END_") - 1);
  return "{\"kind\":\"shot\",\"tick\":" + std::to_string(j.judged_at_tick()) + ",\"shooter\":\"" +
         std::to_string(shot.shooter_body_id()) + "\",\"shot\":\"" + std::to_string(shot.shot_id()) + "\",\"target\":\"" +
         std::to_string(shot.target_body_id()) + "\",\"verdict\":\"" + verdict + "\",\"fire_tick\":" +
         std::to_string(shot.fire().tick()) + ",\"end\":\"" + end + "\",\"path\":[" + points + "],\"hit\":" + hit + "}";
}

void HitFeed::Subscribe(const std::string& world_id, HitSink* sink) {
  std::lock_guard<std::mutex> lock(mu_);
  if (sinks_[world_id].insert(sink).second) subscriptions_.fetch_add(1);
}

void HitFeed::Unsubscribe(const std::string& world_id, HitSink* sink) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = sinks_.find(world_id);
  if (it == sinks_.end()) return;
  if (it->second.erase(sink) > 0) subscriptions_.fetch_sub(1);
  if (it->second.empty()) sinks_.erase(it);
}

bool HitFeed::Watched(std::string_view world_id) const {
  if (subscriptions_.load() == 0) return false;
  std::lock_guard<std::mutex> lock(mu_);
  return sinks_.find(world_id) != sinks_.end();
}

void HitFeed::OnHit(const v1::ValidateHitRequest& request, const v1::ValidateHitResponse& reply) {
  PublishJson(request.world_id(), VerdictJson(request, reply));
}

void HitFeed::OnShot(const std::string& world_id, const v1::Shot& shot, const v1::ShotJudgement& judgement,
                     const std::vector<Vec2>& path) {
  PublishJson(world_id, ShotJson(shot, judgement, path));
}

void HitFeed::PublishJson(const std::string& world_id, const std::string& json) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = sinks_.find(world_id);
  if (it == sinks_.end()) return;
  for (HitSink* sink : it->second) sink->OnHit(json);
}

}  // namespace arbiter::server
