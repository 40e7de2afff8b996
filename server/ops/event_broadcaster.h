// File: event_broadcaster.h
//
// Per-world fan-out of tick events to WatchEvents streams. Step publishes
// every tick it ran, in order, while it still holds the world's lock, so
// every watcher sees ticks in order and none twice.
#pragma once

#include <cstddef>
#include <memory>
#include <mutex>
#include <optional>
#include <vector>

#include "absl/status/status.h"
#include "arbiter/v1/arbiter.pb.h"

namespace arbiter::server {

/// A receiver of tick events (a WatchEvents stream). Called with the
/// broadcaster's lock held: implementations must only queue and return.
class EventSink {
 public:
  virtual ~EventSink() = default;
  /// The events of one tick (shared: every sink gets the same message).
  virtual void OnTick(std::shared_ptr<const v1::TickEvents> events) = 0;
  /// No more events will come; `status` says why.
  virtual void OnClose(const absl::Status& status) = 0;
};

class EventBroadcaster {
 public:
  /// Adds a sink. Fails with the close status once Close() was called.
  absl::Status Subscribe(EventSink* sink);
  /// Removes a sink; after this returns, the sink receives no more calls.
  void Unsubscribe(EventSink* sink);
  /// Whether anyone is subscribed (Step skips building events otherwise).
  bool HasSubscribers() const;
  /// Delivers ticks, in order, to every sink.
  void Publish(const std::vector<std::shared_ptr<const v1::TickEvents>>& ticks);
  /// Ends every subscription with `status` and refuses new ones.
  void Close(const absl::Status& status);

 private:
  mutable std::mutex mu_;
  std::vector<EventSink*> sinks_;
  std::optional<absl::Status> closed_;
};

}  // namespace arbiter::server
