#include "render_source.h"

#include <fstream>
#include <iterator>

#include "journal/journal_file.h"
#include "journal/offline_replay.h"

namespace arbiter::cli {
namespace {

absl::StatusOr<std::string> ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return absl::NotFoundError(path + ": cannot read");
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

absl::StatusOr<World> Restore(std::string_view bytes, const std::string& what) {
  World world;
  const std::span<const uint8_t> image(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());
  if (Status s = World::Restore(image, &world); !s.ok()) return absl::InvalidArgumentError(what + ": " + s.message());
  return world;
}

}  // namespace

absl::StatusOr<World> WorldFromSnapshotFile(const std::string& path) {
  absl::StatusOr<std::string> bytes = ReadFile(path);
  if (!bytes.ok()) return bytes.status();
  return Restore(*bytes, path);
}

absl::StatusOr<World> WorldFromJournal(const std::vector<v1::JournalRecord>& records, TickAt at) {
  return server::ReplayToTick(records, at.tick, Fixed::FromRaw(at.fraction_raw));
}

absl::StatusOr<World> WorldFromJournalFile(const std::string& path, TickAt at) {
  absl::StatusOr<std::string> bytes = ReadFile(path);
  if (!bytes.ok()) return bytes.status();
  std::vector<v1::JournalRecord> records;
  if (absl::Status s = server::ParseJournalFile(*bytes, &records); !s.ok()) {
    return absl::Status(s.code(), path + ": " + std::string(s.message()));
  }
  return WorldFromJournal(records, at);
}

absl::StatusOr<World> WorldFromServer(client::ArbiterClient& client, const std::string& world_id,
                                      const std::optional<TickAt>& at) {
  if (!at) {
    v1::GetSnapshotRequest request;
    request.set_world_id(world_id);
    absl::StatusOr<v1::GetSnapshotResponse> reply = client.GetSnapshot(request);
    if (!reply.ok()) return reply.status();
    return Restore(reply->snapshot(), "world '" + world_id + "' snapshot");
  }
  // The newest snapshot at or before the tick and every record up to the
  // one that steps past it (to_tick is exclusive; +2 covers a fraction).
  v1::ExportJournalRequest request;
  request.set_world_id(world_id);
  request.set_from_tick(at->tick);
  request.set_to_tick(at->tick + 2);
  absl::StatusOr<std::string> file = client.ExportJournal(request);
  if (!file.ok()) return file.status();
  std::vector<v1::JournalRecord> records;
  if (absl::Status s = server::ParseJournalFile(*file, &records); !s.ok()) return s;
  return WorldFromJournal(records, *at);
}

}  // namespace arbiter::cli
