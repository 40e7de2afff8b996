// File: parallel_casts.h
//
// A batch of casts answered on several threads, with a reply byte-identical
// to one thread's: every query's answer is a function of the world and the
// query alone, each chunk's answers are buffered, and the buffers are
// emitted in query order on the calling thread. Only the calling thread
// polls for cancellation (gRPC's context is the caller's); the helpers stop
// at their next chunk once it has seen one.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <span>
#include <system_error>
#include <thread>
#include <vector>

#include "absl/status/status.h"
#include "arbiter/core/query_collectors.h"
#include "request_checks.h"

namespace arbiter::server {

/// One query's answer as a CastSink saw it.
struct BufferedCast {
  size_t query;
  bool hit;
  std::vector<CastHit> hits;
};

/// Runs answer(start, n, sink) over [0, count) in chunks of kChunk on up to
/// `threads` threads (the caller's included), then gives every answer to
/// `emit` in query order. One thread, or one chunk: no buffering at all.
/// CANCELLED (and nothing emitted) once `cancelled` says so.
template <class Answer>
absl::Status AnswerCasts(size_t count, uint32_t threads, const CancelFn& cancelled, Answer answer, const CastSink& emit) {
  const size_t chunks = (count + kChunk - 1) / kChunk;
  if (threads <= 1 || chunks <= 1) {
    return InChunks(count, cancelled, [&](size_t start, size_t n) {
      answer(start, n, [&](size_t i, bool hit, std::span<const CastHit> hits) { emit(start + i, hit, hits); });
    });
  }
  std::vector<std::vector<BufferedCast>> buffers(chunks);
  std::atomic<size_t> next{0};
  std::atomic<bool> stop{false};
  auto work = [&](bool polls) {
    for (size_t c = next.fetch_add(1); c < chunks && !stop.load(); c = next.fetch_add(1)) {
      if (polls && c > 0 && cancelled()) {
        stop.store(true);
        return;
      }
      const size_t start = c * kChunk;
      std::vector<BufferedCast>& out = buffers[c];
      answer(start, std::min(kChunk, count - start), [&](size_t i, bool hit, std::span<const CastHit> hits) {
        out.push_back({start + i, hit, std::vector<CastHit>(hits.begin(), hits.end())});
      });
    }
  };
  std::vector<std::thread> helpers;
  const size_t wanted = std::min<size_t>(threads, chunks) - 1;
  for (size_t t = 0; t < wanted; ++t) {
    try {
      helpers.emplace_back(work, false);
    } catch (const std::system_error&) {
      break;  // no thread to be had: the caller's thread does the rest
    }
  }
  work(true);
  for (std::thread& t : helpers) t.join();
  if (stop.load()) return Cancelled();
  for (const std::vector<BufferedCast>& buffer : buffers) {
    for (const BufferedCast& b : buffer) emit(b.query, b.hit, b.hits);
  }
  return absl::OkStatus();
}

}  // namespace arbiter::server
