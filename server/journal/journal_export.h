// File: journal_export.h
//
// One export of a world's journal (ExportJournal; journal.proto's file
// format), produced chunk by chunk at the reader's pace: each chunk reads
// the next pages of the journal (JournalStore::ReadPage, outside the
// journal's lock between pages), so the exporting instance holds at most
// the largest record (the snapshot) plus one chunk, never the whole file,
// and a slow reader delays no other world's writes.
//
// The range is fixed when the export opens (JournalStore::OpenRange): a
// live world's later steps are not in it. If compaction removes the
// range's start while it is read (a live world stepping past its history
// window during a slow export), the next chunk fails ABORTED: export again.
//
// Thread safety: one caller at a time (a stream asks for chunks in order).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "arbiter/v1/arbiter.pb.h"
#include "journal/journal_store.h"

namespace arbiter::server {

class JournalExport {
 public:
  /// Bytes per chunk; the last may be shorter.
  static constexpr size_t kChunkBytes = size_t{1} << 20;

  JournalExport(JournalStore* journal, const JournalRange& cursor);
  ~JournalExport();
  JournalExport(const JournalExport&) = delete;
  JournalExport& operator=(const JournalExport&) = delete;

  /// Fills `chunk` with the file's next bytes (at most kChunkBytes). Its
  /// total_bytes is the size estimated from the stored records at open,
  /// and exact in the last chunk, which also carries the file's xxh64.
  /// Errors: the journal's (DATA_LOSS, INTERNAL) or ABORTED (see above).
  absl::Status Next(v1::ExportJournalChunk* chunk);
  /// True once the last chunk has been produced.
  bool done() const { return done_; }

 private:
  /// Reads pages until a chunk's worth is pending or the range is read.
  absl::Status Fill();

  JournalStore* journal_;
  JournalRange cursor_;
  std::string pending_;        ///< bytes read and not yet sent
  size_t pending_offset_ = 0;  ///< how much of pending_ was sent
  uint64_t sent_ = 0;
  void* hash_state_;  ///< an XXH64_state_t (kept out of this header)
  bool done_ = false;
};

}  // namespace arbiter::server
