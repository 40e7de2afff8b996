#include "journal/data_dir_lock.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

namespace arbiter::server {
namespace {

std::string ReadHolder(int fd) {
  char buf[32] = {};
  const ssize_t n = pread(fd, buf, sizeof(buf) - 1, 0);
  std::string pid = n > 0 ? std::string(buf, static_cast<size_t>(n)) : "";
  while (!pid.empty() && (pid.back() == '\n' || pid.back() == ' ')) pid.pop_back();
  return pid;
}

}  // namespace

absl::StatusOr<std::unique_ptr<DataDirLock>> DataDirLock::Acquire(const std::string& data_dir) {
  const std::string path = (std::filesystem::path(data_dir) / "arbiter.lock").string();
  const int fd = open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) {
    return absl::FailedPreconditionError("data_dir: cannot open '" + path + "': " + std::strerror(errno));
  }
  if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
    const int error = errno;
    const std::string holder = ReadHolder(fd);
    close(fd);
    if (error == EWOULDBLOCK) {
      return absl::FailedPreconditionError("data_dir: '" + data_dir + "' is in use by another arbiter-server" +
                                           (holder.empty() ? "" : " (pid " + holder + ")") + ", which holds " +
                                           path + "; stop it or give this one another --data_dir");
    }
    return absl::FailedPreconditionError("data_dir: cannot lock '" + path + "': " + std::strerror(error));
  }
  // The pid is only for the message above; the lock is the flock itself.
  const std::string pid = std::to_string(getpid()) + "\n";
  // Not fatal when it fails: the lock holds without the note.
  const bool noted = ftruncate(fd, 0) == 0 && pwrite(fd, pid.data(), pid.size(), 0) > 0;
  (void)noted;
  return std::unique_ptr<DataDirLock>(new DataDirLock(fd));
}

DataDirLock::~DataDirLock() {
  if (fd_ >= 0) close(fd_);  // closing the last descriptor releases the flock
}

}  // namespace arbiter::server
