// File: journal_file.h
//
// The journal export file: the 8 bytes "ARBJRNL1", then JournalRecord
// messages, each preceded by its length as a base-128 varint (protobuf's
// delimited format). See journal.proto.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "arbiter/v1/journal.pb.h"

namespace arbiter::server {

inline constexpr std::string_view kJournalFileMagic = "ARBJRNL1";

/// Appends `record` to an export file's bytes.
void AppendDelimited(const v1::JournalRecord& record, std::string* file);

/// Parses a whole export file. DATA_LOSS naming the byte offset when it is
/// truncated or damaged; INVALID_ARGUMENT when it is not an export file.
absl::Status ParseJournalFile(std::string_view file, std::vector<v1::JournalRecord>* records);

}  // namespace arbiter::server
