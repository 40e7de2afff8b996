// File: server_log.h
//
// The server's log: lines on stderr, each written with one call so that
// lines from different threads never interleave. Request logs
// (request_observer.h) are JSON lines; events that always matter (journal
// failures, recovery, token reloads, shutdown) are plain
// "arbiter-server: ..." lines.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace arbiter::server {

/// Writes `line` and a newline to stderr in one write.
void LogLine(std::string_view line);

/// "arbiter-server: " + message, through LogLine.
void LogEvent(std::string_view message);

/// UTC wall-clock time as RFC 3339 with milliseconds
/// ("2026-12-01T18:30:00.123Z"), for log lines only.
std::string LogTimestamp();

}  // namespace arbiter::server
