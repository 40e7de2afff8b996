#include "journal/journal_export.h"

#include <algorithm>

#define XXH_INLINE_ALL
#include <xxhash.h>

#include "journal/journal_file.h"

namespace arbiter::server {
namespace {

// Records per page: small enough that other worlds' writes wait little for
// the journal's lock, large enough that a chunk takes few pages.
constexpr int64_t kPageRecords = 64;

XXH64_state_t* State(void* p) { return static_cast<XXH64_state_t*>(p); }

}  // namespace

JournalExport::JournalExport(JournalStore* journal, const JournalRange& cursor)
    : journal_(journal), cursor_(cursor), pending_(kJournalFileMagic), hash_state_(XXH64_createState()) {
  XXH64_reset(State(hash_state_), 0);
}

JournalExport::~JournalExport() { XXH64_freeState(State(hash_state_)); }

absl::Status JournalExport::Fill() {
  while (pending_.size() - pending_offset_ < kChunkBytes && !cursor_.done) {
    // Drop what was sent before appending, so pending_ stays one chunk
    // plus the record that overfilled it.
    pending_.erase(0, pending_offset_);
    pending_offset_ = 0;
    if (absl::Status s = journal_->ReadPage(&cursor_, kPageRecords,
                                            [&](const v1::JournalRecord& r) {
                                              AppendDelimited(r, &pending_);
                                              return absl::OkStatus();
                                            });
        !s.ok()) {
      return s;
    }
  }
  return absl::OkStatus();
}

absl::Status JournalExport::Next(v1::ExportJournalChunk* chunk) {
  chunk->Clear();
  if (done_) return absl::FailedPreconditionError("the export has ended");
  if (absl::Status s = Fill(); !s.ok()) return s;
  const size_t n = std::min(kChunkBytes, pending_.size() - pending_offset_);
  chunk->set_data(pending_.data() + pending_offset_, n);
  XXH64_update(State(hash_state_), pending_.data() + pending_offset_, n);
  pending_offset_ += n;
  sent_ += n;
  done_ = cursor_.done && pending_offset_ == pending_.size();
  if (done_) {
    chunk->set_total_bytes(sent_);
    chunk->set_file_hash(XXH64_digest(State(hash_state_)));
  } else {
    // The stored size leaves out each record's length prefix: never report
    // less than is already known to come.
    chunk->set_total_bytes(std::max<uint64_t>(cursor_.stored_bytes, sent_ + (pending_.size() - pending_offset_)));
  }
  return absl::OkStatus();
}

}  // namespace arbiter::server
