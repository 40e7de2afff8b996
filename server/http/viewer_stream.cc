#include "http/viewer_stream.h"

#include <nlohmann/json.hpp>

#include "http/viewer_api.h"

namespace arbiter::server {
namespace {

// A viewer that does not read its stream must not make the server hold
// verdicts without bound; past this the oldest are dropped.
constexpr size_t kMaxPendingHits = 256;

std::string Message(const char* event, const std::string& data) {
  return std::string("event: ") + event + "\ndata: " + data + "\n\n";
}

}  // namespace

absl::StatusOr<std::unique_ptr<ViewerStream>> ViewerStream::Open(std::shared_ptr<WorldEntry> entry, HitFeed* hits) {
  std::unique_ptr<ViewerStream> stream(new ViewerStream(std::move(entry), hits));
  if (absl::Status s = stream->entry_->events().Subscribe(stream.get()); !s.ok()) return s;
  hits->Subscribe(stream->entry_->id(), stream.get());
  return stream;
}

ViewerStream::~ViewerStream() {
  hits_->Unsubscribe(entry_->id(), this);
  entry_->events().Unsubscribe(this);
}

void ViewerStream::OnTick(std::shared_ptr<const v1::TickEvents>) {
  std::lock_guard<std::mutex> lock(mu_);
  tick_pending_ = true;
  cv_.notify_all();
}

void ViewerStream::OnClose(const absl::Status& status) {
  std::lock_guard<std::mutex> lock(mu_);
  if (!end_) end_ = std::string(status.message());
  cv_.notify_all();
}

void ViewerStream::OnHit(const std::string& json) {
  std::lock_guard<std::mutex> lock(mu_);
  if (hits_pending_.size() >= kMaxPendingHits) hits_pending_.pop_front();
  hits_pending_.push_back(json);
  cv_.notify_all();
}

void ViewerStream::Stop() { OnClose(absl::UnavailableError("server shutting down")); }

std::string ViewerStream::TickMessage() {
  std::string data;
  const absl::Status s = entry_->ReadLive([&](const World& world) {
    data = "{\"tick\":" + std::to_string(world.tick()) + ",\"bodies\":" + BodiesJson(world) + "}";
    return absl::OkStatus();
  });
  if (!s.ok()) {
    std::lock_guard<std::mutex> lock(mu_);
    if (!end_) end_ = std::string(s.message());
    return ": world unavailable\n\n";
  }
  return Message("tick", data);
}

std::optional<std::string> ViewerStream::Next(std::chrono::milliseconds wait) {
  std::unique_lock<std::mutex> lock(mu_);
  if (ended_) return std::nullopt;
  cv_.wait_for(lock, wait, [&] { return tick_pending_ || !hits_pending_.empty() || end_.has_value(); });
  if (!hits_pending_.empty()) {
    std::string hit = Message("hit", hits_pending_.front());
    hits_pending_.pop_front();
    return hit;
  }
  if (end_) {
    ended_ = true;
    return Message("end", "{\"reason\":" + nlohmann::json(*end_).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "}");
  }
  if (!tick_pending_) return std::string(": keep-alive\n\n");
  tick_pending_ = false;
  lock.unlock();  // the world's lock is taken without ours
  return TickMessage();
}

}  // namespace arbiter::server
