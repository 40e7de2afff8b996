// File: metrics.h
//
// Counters the server keeps for GET /metrics (metrics_exposition.h). Every
// update is a relaxed atomic add on a slot fixed at start: the hot path
// takes no lock and allocates nothing. Reads (a scrape) may see one
// counter a moment ahead of another; Prometheus expects that.
//
// Units: latencies are counted in whole microseconds (steady clock; they
// describe the server, they never feed a result).
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace arbiter::server {

/// A latency histogram over fixed bucket bounds, in microseconds.
class LatencyHistogram {
 public:
  /// Upper bounds of the buckets (inclusive), microseconds; +Inf follows.
  static constexpr std::array<uint64_t, 14> kBoundsMicros = {
      50, 100, 250, 500, 1'000, 2'500, 5'000, 10'000, 25'000, 50'000, 100'000, 250'000, 1'000'000, 10'000'000};

  void Observe(uint64_t micros);

  struct Counts {
    std::array<uint64_t, kBoundsMicros.size() + 1> buckets{};  ///< per bucket, not cumulative; last: +Inf
    uint64_t count = 0;
    uint64_t sum_micros = 0;
  };
  Counts Read() const;

 private:
  std::array<std::atomic<uint64_t>, kBoundsMicros.size() + 1> buckets_{};
  std::atomic<uint64_t> sum_micros_{0};
};

/// The name of a gRPC status code (0..16), e.g. "NOT_FOUND"; "UNKNOWN"
/// for anything else.
const char* StatusCodeName(int code);

/// Calls of one RPC: finished calls by gRPC status code, and latencies.
struct RpcCounters {
  static constexpr int kCodes = 17;  ///< grpc::StatusCode 0..16
  std::array<std::atomic<uint64_t>, kCodes> by_code{};
  LatencyHistogram latency;
};

/// The per-RPC counters, one slot per method known at start.
class RpcMetrics {
 public:
  /// `methods`: short method names ("CastRays"); calls to any other method
  /// (health, reflection) count under "other".
  explicit RpcMetrics(const std::vector<std::string>& methods);

  /// The slot of a full gRPC method path ("/arbiter.v1.Arbiter/CastRays")
  /// or short name; never null.
  RpcCounters* Find(std::string_view method);
  /// Every slot, by short name (sorted: scrapes come out in a fixed order).
  const std::map<std::string, std::unique_ptr<RpcCounters>, std::less<>>& all() const { return slots_; }

  /// The short name of a full method path: what follows the last '/'.
  static std::string_view ShortName(std::string_view method);

 private:
  std::map<std::string, std::unique_ptr<RpcCounters>, std::less<>> slots_;
};

/// Per-world counters, kept in its WorldEntry (updated under the world's
/// exclusive lock by Step, read by scrapes without it).
struct WorldCounters {
  std::atomic<uint64_t> ticks{0};  ///< ticks stepped since the server started
  LatencyHistogram step;           ///< duration of each Step call's ticks
  /// ValidateShots: shots judged (first judgements), by verdict in the
  /// order of ShotVerdict (shot_judge.h), and re-sent shots answered from
  /// the ledger. Updated under the ledger's lock, read without it.
  std::array<std::atomic<uint64_t>, 5> shots{};
  std::atomic<uint64_t> duplicate_shots{0};
};

/// Journal writes (journal.cc).
struct JournalCounters {
  LatencyHistogram commit;              ///< one transaction: insert + commit
  std::atomic<uint64_t> bytes_written{0};  ///< record bytes inserted
  std::atomic<uint64_t> failures{0};       ///< transactions that failed
};

}  // namespace arbiter::server
