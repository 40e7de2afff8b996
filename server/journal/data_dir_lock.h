// File: data_dir_lock.h
//
// One server per data directory: an exclusive flock(2) on DIR/arbiter.lock,
// held for the life of the process. The kernel drops it when the process
// dies however it dies (SIGKILL included), so a crash never leaves a stale
// lock behind; a second live server on the same directory is refused
// instead of interleaving its records with the first one's.
#pragma once

#include <memory>
#include <string>

#include "absl/status/statusor.h"

namespace arbiter::server {

class DataDirLock {
 public:
  /// FAILED_PRECONDITION naming the directory (and the holder's pid, which
  /// the holder writes into the file) when another process holds it.
  static absl::StatusOr<std::unique_ptr<DataDirLock>> Acquire(const std::string& data_dir);
  ~DataDirLock();
  DataDirLock(const DataDirLock&) = delete;
  DataDirLock& operator=(const DataDirLock&) = delete;

 private:
  explicit DataDirLock(int fd) : fd_(fd) {}
  int fd_ = -1;
};

}  // namespace arbiter::server
