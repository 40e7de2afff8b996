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
#include <functional>
#include <span>
#include <system_error>
#include <thread>
#include <vector>

#include "absl/status/status.h"
#include "arbiter/core/query_collectors.h"
#include "arbiter/core/types.h"
#include "ops/request_checks.h"

namespace arbiter::server {

/// Receives the answer to each query, in query order: `query` indexes the
/// batch, `hit` says whether anything was hit, `hits` holds the hits the
/// mode reports (one for CLOSEST, every one for ALL, none for ANY).
using CastSink = std::function<void(size_t query, bool hit, std::span<const CastHit> hits)>;

/// Answers queries [0, n) with cast(i, collector), the collector the mode
/// picks, reused from query to query (each cast starts it afresh), and
/// gives each answer to `sink`.
template <class Cast>
void CollectCasts(CastMode mode, size_t n, Cast cast, const CastSink& sink) {
  ClosestHitCollector closest;
  AllHitsCollector all;
  AnyHitCollector any;
  CastCollector& collector = mode == CastMode::kAll ? static_cast<CastCollector&>(all)
                             : mode == CastMode::kAny ? static_cast<CastCollector&>(any)
                                                      : static_cast<CastCollector&>(closest);
  for (size_t i = 0; i < n; ++i) {
    cast(i, collector);
    sink(i, collector.had_hit(), collector.reported());
  }
}

/// Most queries one task of a split batch answers. Smaller than kChunk
/// (the cancellation stride of one thread): a 1,024-query batch in 16
/// tasks keeps both threads busy to the end where 4 tasks of 256 left one
/// idle while the other finished a slow chunk.
constexpr size_t kParallelChunk = 64;

/// One task's answers as its CastSink saw them, flat: answer k is for the
/// task's query query[k], hit[k], with hits [ends[k - 1], ends[k]) (one
/// allocation per array and task, not one per query).
struct BufferedCasts {
  std::vector<uint32_t> query;
  std::vector<uint8_t> hit;
  std::vector<uint32_t> ends;
  std::vector<CastHit> hits;
};

/// Runs answer(start, n, sink) over [0, count) in chunks on up to `threads`
/// threads (the caller's included), then gives every answer to `emit` in
/// query order. One thread, or one chunk: no buffering at all (chunks of
/// kChunk). CANCELLED (and nothing emitted) once `cancelled` says so.
template <class Answer>
absl::Status AnswerCasts(size_t count, uint32_t threads, const CancelFn& cancelled, Answer answer, const CastSink& emit) {
  const size_t chunks = (count + kParallelChunk - 1) / kParallelChunk;
  if (threads <= 1 || count <= kParallelChunk) {
    return InChunks(count, cancelled, [&](size_t start, size_t n) {
      answer(start, n, [&](size_t i, bool hit, std::span<const CastHit> hits) { emit(start + i, hit, hits); });
    });
  }
  std::vector<BufferedCasts> buffers(chunks);
  std::atomic<size_t> next{0};
  std::atomic<bool> stop{false};
  auto work = [&](bool polls) {
    for (size_t c = next.fetch_add(1); c < chunks && !stop.load(); c = next.fetch_add(1)) {
      if (polls && c > 0 && cancelled()) {
        stop.store(true);
        return;
      }
      const size_t start = c * kParallelChunk;
      BufferedCasts& out = buffers[c];
      answer(start, std::min(kParallelChunk, count - start), [&](size_t i, bool hit, std::span<const CastHit> hits) {
        out.query.push_back(static_cast<uint32_t>(i));
        out.hit.push_back(hit ? 1 : 0);
        out.hits.insert(out.hits.end(), hits.begin(), hits.end());
        out.ends.push_back(static_cast<uint32_t>(out.hits.size()));
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
  for (size_t c = 0; c < chunks; ++c) {
    const BufferedCasts& b = buffers[c];
    const std::span<const CastHit> hits(b.hits);
    for (size_t k = 0, begin = 0; k < b.hit.size(); begin = b.ends[k++]) {
      emit(c * kParallelChunk + b.query[k], b.hit[k] != 0, hits.subspan(begin, b.ends[k] - begin));
    }
  }
  return absl::OkStatus();
}

}  // namespace arbiter::server
