// File: viewer_stream.h
//
// One viewer page's server-sent event stream on one world
// (GET /api/worlds/W/events). It subscribes to the world's tick events (the
// EventBroadcaster WatchEvents uses) and to the hit feed; both only note
// the news and wake the HTTP thread waiting in Next(), which then reads
// the world under its shared lock and writes:
//
//   event: tick   data: {"tick":T,"bodies":[...]}   (viewer_api.h's bodies)
//   event: hit    data: a ValidateHit verdict (hit_feed.h)
//   event: end    data: {"reason":"..."}              the world closed or went offline
//
// Ticks coalesce: a viewer that falls behind gets the newest state, never
// a backlog. The first message is the state at subscription.
#pragma once

#include <chrono>
#include <condition_variable>
#include <deque>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "ops/event_broadcaster.h"
#include "http/hit_feed.h"
#include "ops/world_registry.h"

namespace arbiter::server {

class ViewerStream final : public EventSink, public HitSink {
 public:
  /// Subscribes to `entry`'s ticks and `hits`; fails as Subscribe (the
  /// world closed). Both must outlive the stream.
  static absl::StatusOr<std::unique_ptr<ViewerStream>> Open(std::shared_ptr<WorldEntry> entry, HitFeed* hits);
  ~ViewerStream() override;

  /// The next message, waiting up to `wait` for one: a keep-alive comment
  /// when nothing happened; nullopt once the stream has ended (after its
  /// "end" message).
  std::optional<std::string> Next(std::chrono::milliseconds wait);
  /// Wakes Next() for good (the listener is stopping).
  void Stop();

  void OnTick(std::shared_ptr<const v1::TickEvents> events) override;
  void OnClose(const absl::Status& status) override;
  void OnHit(const std::string& json) override;

 private:
  ViewerStream(std::shared_ptr<WorldEntry> entry, HitFeed* hits) : entry_(std::move(entry)), hits_(hits) {}
  std::string TickMessage();

  std::shared_ptr<WorldEntry> entry_;
  HitFeed* hits_;
  std::mutex mu_;
  std::condition_variable cv_;
  bool tick_pending_ = true;  // the first message is the current state
  std::deque<std::string> hits_pending_;
  std::optional<std::string> end_;  // why the stream ends
  bool ended_ = false;
};

}  // namespace arbiter::server
