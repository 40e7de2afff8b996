#include "journal/world_import.h"

#include <google/protobuf/io/coded_stream.h>

#define XXH_INLINE_ALL
#include <xxhash.h>

#include <algorithm>
#include <utility>

#include "journal/journal_file.h"
#include "journal/journal_store.h"
#include "ops/operations.h"
#include "ops/request_checks.h"
#include "ops/world_records.h"

namespace arbiter::server {
namespace {

// Staged records go to the journal in transactions of about this much.
constexpr size_t kStageRecords = 512;
constexpr size_t kStageBytes = size_t{8} << 20;
// A record's length past this is damage, not a record (protobuf parses at
// most 2 GiB; the largest snapshot within the limits is far below).
constexpr uint64_t kMaxRecordBytes = uint64_t{1} << 30;
// A varint is at most 10 bytes: fewer than that may just be cut by a chunk.
constexpr size_t kMaxVarintBytes = 10;

}  // namespace

struct WorldImport::FileHash {
  XXH64_state_t state;
};

absl::StatusOr<std::unique_ptr<WorldImport>> WorldImport::Begin(Operations* operations,
                                                                const v1::ImportWorldRequest& request) {
  WorldRegistry* registry = &operations->registry();
  JournalStore* journal = operations->durability().journal;
  if (absl::Status s = ValidateWorldId(request.world_id()); !s.ok()) return s;
  if (request.expected_tick() < 0) return absl::InvalidArgumentError("expected_tick: must not be negative");
  // The id is held (invisible, UNAVAILABLE) while the world is replayed.
  if (absl::Status s = registry->Reserve(request.world_id(), WorldEntry::State::kImporting); !s.ok()) return s;
  int64_t key = -1;
  if (journal != nullptr) {
    absl::StatusOr<int64_t> k = journal->BeginImport(request.world_id());
    if (!k.ok()) {
      registry->Unreserve(request.world_id());
      return WithPrefix(k.status(), "journal: could not be written here: ");
    }
    key = *k;
  }
  return std::unique_ptr<WorldImport>(new WorldImport(operations, registry, journal, request, key));
}

WorldImport::WorldImport(Operations* operations, WorldRegistry* registry, JournalStore* journal,
                         const v1::ImportWorldRequest& request, int64_t key)
    : operations_(operations),
      registry_(registry),
      journal_(journal),
      request_(request),
      key_(key),
      scratch_(registry->limits()),
      replayer_(&scratch_, Replayer::Mode::kRecover),
      hash_(std::make_unique<FileHash>()) {
  request_.clear_journal();
  XXH64_reset(&hash_->state, 0);
}

WorldImport::~WorldImport() {
  if (done_) return;
  // Undone: whatever was staged goes, and the id is free again.
  if (key_ >= 0) (void)journal_->DeleteWorld(key_);
  registry_->Unreserve(request_.world_id());
}

absl::Status WorldImport::Feed(std::string_view bytes) {
  XXH64_update(&hash_->state, bytes.data(), bytes.size());
  bytes_fed_ += bytes.size();
  buffer_.append(bytes);
  return TakeRecords();
}

// Parses every complete record at the front of buffer_: the magic first,
// then varint-delimited JournalRecords (journal_file.h).
absl::Status WorldImport::TakeRecords() {
  size_t at = 0;
  if (buffer_offset_ == 0) {
    const size_t n = std::min(buffer_.size(), kJournalFileMagic.size());
    if (std::string_view(buffer_).substr(0, n) != kJournalFileMagic.substr(0, n)) {
      return absl::InvalidArgumentError("journal: not an Arbiter journal file (it does not start with ARBJRNL1)");
    }
    if (n < kJournalFileMagic.size()) return absl::OkStatus();
    at = n;
  }
  for (;;) {
    const size_t available = buffer_.size() - at;
    if (available == 0) break;
    google::protobuf::io::CodedInputStream in(reinterpret_cast<const uint8_t*>(buffer_.data() + at),
                                              static_cast<int>(std::min<size_t>(available, kMaxVarintBytes)));
    uint64_t size = 0;
    if (!in.ReadVarint64(&size)) {
      if (available < kMaxVarintBytes) break;  // the rest of the length is still to come
      return absl::DataLossError("journal: damaged record length at byte " + std::to_string(buffer_offset_ + at));
    }
    if (size > kMaxRecordBytes) {
      return absl::DataLossError("journal: a record of " + std::to_string(size) + " bytes at byte " +
                                 std::to_string(buffer_offset_ + at) + " (damaged)");
    }
    const size_t start = at + static_cast<size_t>(in.CurrentPosition());
    if (buffer_.size() - start < size) break;  // the rest of the record is still to come
    v1::JournalRecord record;
    if (!record.ParseFromArray(buffer_.data() + start, static_cast<int>(size))) {
      return absl::DataLossError("journal: damaged record at byte " + std::to_string(buffer_offset_ + at));
    }
    if (absl::Status s = Take(std::move(record), buffer_offset_ + at); !s.ok()) return s;
    at = start + static_cast<size_t>(size);
  }
  buffer_.erase(0, at);
  buffer_offset_ += at;
  return absl::OkStatus();
}

// One record: the header is checked, recorded queries are skipped (they
// change nothing and are keyed by the change they followed), everything
// else is replayed and staged.
absl::Status WorldImport::Take(v1::JournalRecord record, size_t offset) {
  if (!header_seen_) {
    if (!record.has_header()) {
      return absl::InvalidArgumentError("journal: does not start with a header (use ExportJournal's file)");
    }
    if (record.header().world_id() != request_.world_id()) {
      return absl::InvalidArgumentError("journal: its header names world '" + record.header().world_id() +
                                        "', not world_id '" + request_.world_id() + "'");
    }
    header_seen_ = true;
  }
  if (record.has_query()) return absl::OkStatus();
  if (absl::Status s = replayer_.Apply(record); !s.ok()) {
    return WithPrefix(s, "journal (record at byte " + std::to_string(offset) + "): ");
  }
  ++records_;
  if (key_ < 0) return absl::OkStatus();
  staged_bytes_ += record.ByteSizeLong();
  staged_.push_back(std::move(record));
  return staged_.size() >= kStageRecords || staged_bytes_ >= kStageBytes ? Stage() : absl::OkStatus();
}

absl::Status WorldImport::Stage() {
  if (staged_.empty()) return absl::OkStatus();
  std::vector<const v1::JournalRecord*> pointers;
  pointers.reserve(staged_.size());
  for (const v1::JournalRecord& r : staged_) pointers.push_back(&r);
  if (absl::Status s = journal_->Append(key_, pointers); !s.ok()) {
    return WithPrefix(s, "journal: could not be written here: ");
  }
  staged_.clear();
  staged_bytes_ = 0;
  return absl::OkStatus();
}

// The end: the whole file, of the expected content, replaying to where the
// source froze.
absl::Status WorldImport::CheckEnd() const {
  if (!buffer_.empty()) {
    return absl::DataLossError("journal: ends inside a record at byte " + std::to_string(buffer_offset_) +
                               " (truncated)");
  }
  if (file_hash_.has_value() && *file_hash_ != XXH64_digest(&hash_->state)) {
    return absl::DataLossError("file_hash: the " + std::to_string(bytes_fed_) + " bytes received hash to " +
                               std::to_string(XXH64_digest(&hash_->state)) + ", not " + std::to_string(*file_hash_) +
                               " (damaged or incomplete in transit)");
  }
  if (replayer_.entry() == nullptr) return absl::InvalidArgumentError("journal: holds no snapshot to start from");
  const std::shared_ptr<WorldEntry>& entry = replayer_.entry();
  const auto [tick, hash] =
      entry->Read([](const World& world) { return std::make_pair(world.tick(), world.StateHash()); });
  if (tick != request_.expected_tick() || hash != request_.expected_state_hash()) {
    return absl::FailedPreconditionError(
        "expected_state_hash: the journal replays to tick " + std::to_string(tick) + " with state hash " +
        std::to_string(hash) + ", not the expected tick " + std::to_string(request_.expected_tick()) +
        " with state hash " + std::to_string(request_.expected_state_hash()));
  }
  const auto [frozen, epoch] = entry->Read([&](const World&) { return std::make_pair(entry->frozen(), entry->epoch()); });
  if (request_.expected_epoch() != 0 && (!frozen || epoch != request_.expected_epoch())) {
    return absl::FailedPreconditionError(
        "expected_epoch: the journal ends " +
        (frozen ? "frozen at epoch " + std::to_string(epoch) : std::string("not frozen (an export of a live world)")) +
        ", not frozen at epoch " + std::to_string(request_.expected_epoch()) +
        " (export again after the freeze whose epoch you name)");
  }
  return absl::OkStatus();
}

// The world is this instance's from here on: live, at the epoch it was
// frozen at (a copy of a live world: one past its source's), journaled in
// one transaction with the arrival, then shown.
absl::Status WorldImport::Install() {
  const std::shared_ptr<WorldEntry> entry = replayer_.entry();
  const v1::JournalRecord arrived = entry->Write([&](World& world) {
    const uint64_t epoch = entry->frozen() ? entry->epoch() : entry->epoch() + 1;
    entry->set_epoch(epoch);
    entry->Thaw();
    entry->journal().seq = replayer_.last_seq();
    v1::JournalRecord r = MoveRecord(world, v1::WorldMove::ARRIVED, "", epoch);
    r.set_seq(++entry->journal().seq);
    return r;
  });
  if (key_ >= 0) {
    if (absl::Status s = journal_->FinishImport(key_, request_.world_id(), {&arrived}); !s.ok()) {
      return WithPrefix(s, "journal: could not be written here: ");
    }
  }
  entry->Write([&](World& world) {
    entry->journal().key = key_;
    if (key_ >= 0) operations_->CompactJournal(*entry, world);
  });
  if (absl::Status s = registry_->Install(entry); !s.ok()) return s;
  done_ = true;
  return absl::OkStatus();
}

absl::Status WorldImport::Finish(v1::ImportWorldResponse* reply) {
  if (absl::Status s = key_ >= 0 ? Stage() : absl::OkStatus(); !s.ok()) return s;
  if (absl::Status s = CheckEnd(); !s.ok()) return s;
  if (absl::Status s = Install(); !s.ok()) return s;
  const std::shared_ptr<WorldEntry>& entry = replayer_.entry();
  entry->Read([&](const World& world) { FillWorldInfo(*entry, world, true, reply->mutable_world()); });
  reply->set_records(records_);
  return absl::OkStatus();
}

absl::Status ImportWorld(Operations* operations, const v1::ImportWorldRequest& request,
                         v1::ImportWorldResponse* reply) {
  const uint64_t limit = operations->limits().max_import_bytes;
  if (request.journal().size() > limit) {
    return absl::ResourceExhaustedError("journal: " + std::to_string(request.journal().size()) +
                                        " bytes exceed --max_import_bytes (" + std::to_string(limit) +
                                        "; ImportWorldStream takes an export of any size)");
  }
  absl::StatusOr<std::unique_ptr<WorldImport>> import = WorldImport::Begin(operations, request);
  if (!import.ok()) return import.status();
  if (absl::Status s = (*import)->Feed(request.journal()); !s.ok()) return s;
  return (*import)->Finish(reply);
}

}  // namespace arbiter::server
