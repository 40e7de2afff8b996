// arbiter-server as a child process (the shipped binary, started as
// scripts/run.sh starts it): the process tests, the crash test.
#pragma once

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace arbiter::testing {

/// arbiter-server as a child process on a free port.
class ServerProcess {
 public:
  explicit ServerProcess(std::vector<std::string> extra_args) {
    int out[2];
    if (pipe(out) != 0) return;
    std::vector<std::string> args = {ARBITER_SERVER_BINARY, "--listen=127.0.0.1:0", "--threads=2"};
    args.insert(args.end(), extra_args.begin(), extra_args.end());
    pid_ = fork();
    if (pid_ == 0) {
      dup2(out[1], STDOUT_FILENO);
      close(out[0]);
      close(out[1]);
      std::vector<char*> argv;
      for (std::string& a : args) argv.push_back(a.data());
      argv.push_back(nullptr);
      execv(argv[0], argv.data());
      _exit(127);
    }
    close(out[1]);
    stdout_ = fdopen(out[0], "r");
    // "arbiter-server listening on 127.0.0.1:PORT (worlds: ...)"
    char line[512];
    if (stdout_ != nullptr && std::fgets(line, sizeof(line), stdout_) != nullptr) {
      first_line_ = line;
      const size_t colon = first_line_.find("127.0.0.1:");
      if (colon != std::string::npos) port_ = std::atoi(first_line_.c_str() + colon + 10);
    }
  }
  ~ServerProcess() {
    if (pid_ > 0 && !reaped_) {
      kill(pid_, SIGKILL);
      waitpid(pid_, nullptr, 0);
    }
    if (stdout_ != nullptr) std::fclose(stdout_);
  }

  int port() const { return port_; }
  std::string address() const { return "127.0.0.1:" + std::to_string(port_); }
  const std::string& first_line() const { return first_line_; }
  void Signal(int sig) const { kill(pid_, sig); }
  /// Waits for the process; its wait status.
  int Wait() {
    int status = 0;
    waitpid(pid_, &status, 0);
    reaped_ = true;
    return status;
  }

 private:
  pid_t pid_ = -1;
  bool reaped_ = false;
  FILE* stdout_ = nullptr;
  std::string first_line_;
  int port_ = 0;
};

}  // namespace arbiter::testing
