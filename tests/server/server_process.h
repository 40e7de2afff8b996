// arbiter-server as a child process on a free loopback port, with its
// stderr captured (warnings, reload messages), and the `arbiter` CLI as a
// command: for the tests of the shipped programs.
#pragma once

#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace arbiter::testing {

class ServerProcess {
 public:
  /// Starts `arbiter-server --listen=127.0.0.1:0 --threads=2 extra_args...`
  /// (a later --listen wins) and reads its first stdout line. Whatever
  /// the host it listens on, address() reaches it through 127.0.0.1.
  explicit ServerProcess(std::vector<std::string> extra_args) {
    int out[2];
    int err[2];
    if (pipe(out) != 0) return;
    if (pipe(err) != 0) return;
    // No journal unless a test asks for one (a later --data_dir wins): the
    // default directory would carry worlds from one test to the next.
    std::vector<std::string> args = {ARBITER_SERVER_BINARY, "--listen=127.0.0.1:0", "--threads=2", "--data_dir="};
    args.insert(args.end(), extra_args.begin(), extra_args.end());
    pid_ = fork();
    if (pid_ == 0) {
      dup2(out[1], STDOUT_FILENO);
      dup2(err[1], STDERR_FILENO);
      close(out[0]);
      close(out[1]);
      close(err[0]);
      close(err[1]);
      std::vector<char*> argv;
      for (std::string& a : args) argv.push_back(a.data());
      argv.push_back(nullptr);
      execv(argv[0], argv.data());
      _exit(127);
    }
    close(out[1]);
    close(err[1]);
    stderr_fd_ = err[0];
    stdout_ = fdopen(out[0], "r");
    // "arbiter-server listening on 127.0.0.1:PORT (worlds: ...)"; nothing
    // when it refuses to start.
    char line[512];
    if (stdout_ != nullptr && std::fgets(line, sizeof(line), stdout_) != nullptr) {
      first_line_ = line;
      const size_t on = first_line_.find("listening on ");
      const size_t end = first_line_.find(' ', on + 13);
      const size_t colon = first_line_.rfind(':', end);
      if (on != std::string::npos && colon != std::string::npos) port_ = std::atoi(first_line_.c_str() + colon + 1);
    }
  }
  ~ServerProcess() {
    if (pid_ > 0 && !reaped_) {
      kill(pid_, SIGKILL);
      waitpid(pid_, nullptr, 0);
    }
    if (stdout_ != nullptr) std::fclose(stdout_);
    if (stderr_fd_ >= 0) close(stderr_fd_);
  }

  int port() const { return port_; }
  std::string address() const { return "127.0.0.1:" + std::to_string(port_); }
  /// The next line of stdout after the first ("" at its end), e.g. the
  /// "arbiter-server http on http://HOST:PORT ..." line of --http_listen.
  std::string NextStdoutLine() {
    char line[512];
    if (stdout_ == nullptr || std::fgets(line, sizeof(line), stdout_) == nullptr) return "";
    return line;
  }
  const std::string& first_line() const { return first_line_; }
  void Signal(int sig) const { kill(pid_, sig); }
  /// Waits for the process; its wait status.
  int Wait() {
    int status = 0;
    waitpid(pid_, &status, 0);
    reaped_ = true;
    return status;
  }

  /// Reads stderr until it contains `text` at or after `from` (an offset
  /// into stderr_text()), the pipe closes, or `patience` passes without
  /// it; true if found. The bound only keeps a broken server from hanging
  /// the test.
  bool WaitForStderr(const std::string& text, size_t from = 0,
                     std::chrono::seconds patience = std::chrono::seconds(60)) {
    const auto give_up = std::chrono::steady_clock::now() + patience;
    while (stderr_.find(text, from) == std::string::npos) {
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(give_up - std::chrono::steady_clock::now());
      if (left.count() <= 0 || stderr_fd_ < 0) return false;
      pollfd p{stderr_fd_, POLLIN, 0};
      if (poll(&p, 1, static_cast<int>(left.count())) <= 0) continue;
      char buf[4096];
      const ssize_t n = read(stderr_fd_, buf, sizeof(buf));
      if (n <= 0) {
        close(stderr_fd_);
        stderr_fd_ = -1;
        return stderr_.find(text, from) != std::string::npos;
      }
      stderr_.append(buf, static_cast<size_t>(n));
    }
    return true;
  }
  /// Waits for the line a journaled server prints once every world of its
  /// journal is back (it listens, NOT_SERVING, before that).
  bool WaitUntilRecovered() { return WaitForStderr("; recovered "); }
  /// Everything read from stderr so far.
  const std::string& stderr_text() const { return stderr_; }

 private:
  pid_t pid_ = -1;
  bool reaped_ = false;
  FILE* stdout_ = nullptr;
  int stderr_fd_ = -1;
  std::string stderr_;
  std::string first_line_;
  int port_ = 0;
};

struct CliResult {
  int exit_code = -1;
  std::string output;  // stdout, or stdout and stderr with `merge`
};

/// Runs `arbiter <args>` through the shell.
inline CliResult RunCli(const std::string& args, bool merge = false) {
  const std::string command = std::string(ARBITER_CLI_BINARY) + " " + args + (merge ? " 2>&1" : " 2>/dev/null");
  CliResult r;
  FILE* p = popen(command.c_str(), "r");
  if (p == nullptr) return r;
  char buf[4096];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof(buf), p)) > 0) r.output.append(buf, n);
  const int status = pclose(p);
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

}  // namespace arbiter::testing
