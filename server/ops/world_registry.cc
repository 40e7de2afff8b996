#include "ops/world_registry.h"

#include "ops/server_log.h"

namespace arbiter::server {

absl::Status ValidateWorldId(std::string_view id, std::string_view field) {
  if (id.empty()) return absl::InvalidArgumentError(std::string(field) + ": must not be empty");
  if (id.size() > 64) return absl::InvalidArgumentError(std::string(field) + ": longer than 64 characters");
  for (char c : id) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
                    c == '_' || c == '-';
    if (!ok) return absl::InvalidArgumentError(std::string(field) + ": only [A-Za-z0-9._-] allowed");
  }
  return absl::OkStatus();
}

absl::Status WorldEntry::Availability() const {
  switch (state_.load()) {
    case State::kLive: return absl::OkStatus();
    case State::kCreating: return absl::NotFoundError("world_id: no world '" + id_ + "'");
    case State::kOffline: break;
    case State::kRecovering:
      return absl::UnavailableError("world_id: world '" + id_ +
                                    "' is not back yet: the server is recovering its journal; retry in a few "
                                    "seconds (health turns SERVING when every world is back)");
    case State::kImporting:
      return absl::UnavailableError("world_id: world '" + id_ +
                                    "' is arriving from another instance and not serving here yet; retry shortly");
  }
  return absl::UnavailableError("world_id: world '" + id_ + "' is offline (" + offline_reason_ +
                                "); a restart recovers its last acknowledged state");
}

absl::Status WorldEntry::Freeze(const std::string& destination) {
  if (frozen() && destination_ != destination) {
    return absl::FailedPreconditionError("destination: world '" + id_ + "' is already moving to " + destination_ +
                                         " (thaw it first to move it elsewhere)");
  }
  destination_ = destination;
  frozen_.store(true);
  return absl::OkStatus();
}

absl::Status WorldEntry::Moving() const {
  return absl::UnavailableError("world_id: world '" + id_ + "' is moving to " + destination_ +
                                "; writes are refused until it serves there; retry shortly");
}

namespace {

absl::Status MovedStatus(std::string_view id, const std::string& moved_to) {
  return absl::UnavailableError("world_id: world '" + std::string(id) + "' moved to " + moved_to +
                                "; retry (a proxy routes it there once its configuration is reloaded)");
}

}  // namespace

void WorldEntry::TakeOffline(const std::string& why) {
  // Always logged: the operator must learn why a world stopped serving.
  LogEvent("world '" + id_ + "' is OFFLINE until a restart recovers it: " + why);
  offline_reason_ = why;
  state_.store(State::kOffline);
  events_.Close(Availability());
}

absl::Status WorldRegistry::CheckCanInsertLocked(std::string_view id) const {
  if (closed_) return absl::UnavailableError("server shutting down");
  if (worlds_.find(id) != worlds_.end()) {
    return absl::AlreadyExistsError("world_id: world '" + std::string(id) + "' already exists");
  }
  if (worlds_.size() >= limits_.max_worlds) {
    return absl::ResourceExhaustedError("world_id: the server holds its limit of " +
                                        std::to_string(limits_.max_worlds) + " worlds (--max_worlds)");
  }
  return absl::OkStatus();
}

absl::Status WorldRegistry::CheckCanInsert(std::string_view id) const {
  std::lock_guard<std::mutex> lock(mu_);
  return CheckCanInsertLocked(id);
}

absl::StatusOr<std::shared_ptr<WorldEntry>> WorldRegistry::Insert(std::string id, World world, uint32_t history_ticks,
                                                                  JournalCursor journal, WorldEntry::State state) {
  std::lock_guard<std::mutex> lock(mu_);
  if (absl::Status s = CheckCanInsertLocked(id); !s.ok()) return s;
  auto entry =
      std::make_shared<WorldEntry>(id, std::move(world), history_ticks, limits_.hash_window_ticks, journal, state);
  // The world is here again, unless this is only an import's placeholder:
  // an import that fails leaves the world where it was, and calls naming it
  // must still be sent there ("moved"), not told it does not exist.
  if (state != WorldEntry::State::kImporting) tombstones_.erase(id);
  worlds_.emplace(std::move(id), entry);
  return entry;
}

absl::StatusOr<std::shared_ptr<WorldEntry>> WorldRegistry::Find(std::string_view id) const {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = worlds_.find(id);
  if (it == worlds_.end()) return MissingLocked(id);
  if (absl::Status s = it->second->Availability(); !s.ok()) return s;
  return it->second;
}

absl::Status WorldRegistry::MissingLocked(std::string_view id) const {
  auto it = tombstones_.find(id);
  if (it != tombstones_.end() && std::chrono::steady_clock::now() < it->second.until) {
    return MovedStatus(id, it->second.moved_to);
  }
  return absl::NotFoundError("world_id: no world '" + std::string(id) + "'");
}

absl::Status WorldRegistry::Reserve(std::string id, WorldEntry::State state) {
  // The placeholder's world is empty and never shown: Availability refuses it.
  return Insert(std::move(id), World(), 1, {}, state).status();
}

void WorldRegistry::Unreserve(std::string_view id) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = worlds_.find(id);
  if (it != worlds_.end() && it->second->state() == WorldEntry::State::kImporting) worlds_.erase(it);
}

absl::Status WorldRegistry::Install(std::shared_ptr<WorldEntry> entry) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = worlds_.find(entry->id());
  // Nobody else can hold the placeholder: Find and List never hand it out.
  const bool placeholder = it != worlds_.end() && (it->second->state() == WorldEntry::State::kRecovering ||
                                                   it->second->state() == WorldEntry::State::kImporting);
  if (!placeholder) {
    return absl::FailedPreconditionError("world '" + entry->id() + "' is not being recovered");
  }
  tombstones_.erase(it->first);  // an import's placeholder kept it (Insert)
  it->second = std::move(entry);
  return absl::OkStatus();
}

bool WorldRegistry::Holds(std::string_view id) const {
  std::lock_guard<std::mutex> lock(mu_);
  return worlds_.find(id) != worlds_.end();
}

absl::StatusOr<std::shared_ptr<WorldEntry>> WorldRegistry::Remove(std::string_view id, const std::string& moved_to) {
  std::shared_ptr<WorldEntry> entry;
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = worlds_.find(id);
    if (it == worlds_.end()) return MissingLocked(id);
    entry = std::move(it->second);
    worlds_.erase(it);
    if (!moved_to.empty()) {
      const auto now = std::chrono::steady_clock::now();
      // Expired tombstones go whenever a new one comes, so they stay few.
      std::erase_if(tombstones_, [&](const auto& t) { return t.second.until <= now; });
      tombstones_[std::string(id)] = Tombstone{moved_to, now + limits_.moved_tombstone};
    }
  }
  entry->events().Close(moved_to.empty() ? absl::AbortedError("world '" + entry->id() + "' was deleted")
                                         : MovedStatus(id, moved_to));
  return entry;
}

void WorldRegistry::RestoreTombstone(const std::string& id, const std::string& moved_to,
                                     std::chrono::seconds remaining) {
  std::lock_guard<std::mutex> lock(mu_);
  if (worlds_.find(id) != worlds_.end()) return;  // the world is here again
  tombstones_[id] = Tombstone{moved_to, std::chrono::steady_clock::now() + remaining};
}

std::vector<std::shared_ptr<WorldEntry>> WorldRegistry::List() const {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<std::shared_ptr<WorldEntry>> out;
  out.reserve(worlds_.size());
  for (const auto& [id, entry] : worlds_) {
    if (entry->Availability().ok()) out.push_back(entry);
  }
  return out;
}

void WorldRegistry::CloseAll(const absl::Status& status) {
  std::vector<std::shared_ptr<WorldEntry>> entries;
  {
    std::lock_guard<std::mutex> lock(mu_);
    closed_ = true;
    for (const auto& [id, entry] : worlds_) entries.push_back(entry);
  }
  for (const auto& entry : entries) entry->events().Close(status);
}

}  // namespace arbiter::server
