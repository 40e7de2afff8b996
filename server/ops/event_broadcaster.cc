#include "ops/event_broadcaster.h"

#include <algorithm>

namespace arbiter::server {

absl::Status EventBroadcaster::Subscribe(EventSink* sink) {
  std::lock_guard<std::mutex> lock(mu_);
  if (closed_) return *closed_;
  sinks_.push_back(sink);
  return absl::OkStatus();
}

void EventBroadcaster::Unsubscribe(EventSink* sink) {
  std::lock_guard<std::mutex> lock(mu_);
  sinks_.erase(std::remove(sinks_.begin(), sinks_.end(), sink), sinks_.end());
}

bool EventBroadcaster::HasSubscribers() const {
  std::lock_guard<std::mutex> lock(mu_);
  return !sinks_.empty();
}

void EventBroadcaster::Publish(const std::vector<std::shared_ptr<const v1::TickEvents>>& ticks) {
  std::lock_guard<std::mutex> lock(mu_);
  for (EventSink* sink : sinks_) {
    for (const auto& tick : ticks) sink->OnTick(tick);
  }
}

void EventBroadcaster::Close(const absl::Status& status) {
  std::lock_guard<std::mutex> lock(mu_);
  if (closed_) return;
  closed_ = status;
  for (EventSink* sink : sinks_) sink->OnClose(status);
  sinks_.clear();
}

}  // namespace arbiter::server
