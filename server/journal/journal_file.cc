#include "journal/journal_file.h"

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>

namespace arbiter::server {

void AppendDelimited(const v1::JournalRecord& record, std::string* file) {
  google::protobuf::io::StringOutputStream stream(file);
  google::protobuf::io::CodedOutputStream out(&stream);
  out.WriteVarint64(record.ByteSizeLong());
  record.SerializeWithCachedSizes(&out);
}

absl::Status ParseJournalFile(std::string_view file, std::vector<v1::JournalRecord>* records) {
  if (file.substr(0, kJournalFileMagic.size()) != kJournalFileMagic) {
    return absl::InvalidArgumentError("not an Arbiter journal file (it does not start with ARBJRNL1)");
  }
  records->clear();
  size_t offset = kJournalFileMagic.size();
  while (offset < file.size()) {
    google::protobuf::io::CodedInputStream in(reinterpret_cast<const uint8_t*>(file.data() + offset),
                                              static_cast<int>(std::min<size_t>(file.size() - offset, INT32_MAX)));
    uint64_t size = 0;
    if (!in.ReadVarint64(&size) || size > file.size() - offset - static_cast<size_t>(in.CurrentPosition())) {
      return absl::DataLossError("journal file: truncated record length at byte " + std::to_string(offset));
    }
    const size_t start = offset + static_cast<size_t>(in.CurrentPosition());
    v1::JournalRecord record;
    if (!record.ParseFromArray(file.data() + start, static_cast<int>(size))) {
      return absl::DataLossError("journal file: damaged record at byte " + std::to_string(offset));
    }
    records->push_back(std::move(record));
    offset = start + size;
  }
  if (records->empty() || !records->front().has_header()) {
    return absl::DataLossError("journal file: the first record is not a header");
  }
  return absl::OkStatus();
}

}  // namespace arbiter::server
