// Cutting a stage of the step into tasks for a StepExecutor.
//
// A stage over n items is cut into contiguous ranges ("chunks"), chunk c
// covering [n c / k, n (c + 1) / k). Each chunk writes only slots of its own
// (per item, or per chunk, or per worker for scratch), and the stage merges
// the chunks in chunk order, so the result is the sequential one whatever
// the number of chunks or the order they ran in.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <type_traits>

#include "arbiter/core/step_executor.h"

namespace arbiter::internal {

/// At most this many chunks per stage (per-chunk lists are kept per tick).
constexpr uint32_t kMaxStepChunks = 64;

class StepTasks {
 public:
  StepTasks() = default;
  /// Without an executor, or with one whose Concurrency() is outside
  /// [1, kMaxStepWorkers], every stage runs on the calling thread.
  explicit StepTasks(StepExecutor* executor) {
    const uint32_t n = executor == nullptr ? 1 : executor->Concurrency();
    if (n > 1 && n <= kMaxStepWorkers) {
      executor_ = executor;
      workers_ = n;
    }
  }

  /// Scratch memory per worker: tasks see worker indices below this.
  uint32_t workers() const { return workers_; }

  /// How many chunks to cut `n` items into, each at least `min_items` long
  /// (so that a small stage is not worth a wake-up): a few per worker, for
  /// balance when one thread is slowed down; 1 without an executor.
  uint32_t Chunks(size_t n, size_t min_items) const {
    if (workers_ == 1) return 1;
    const size_t by_size = n / std::max<size_t>(min_items, 1);
    return static_cast<uint32_t>(std::clamp<size_t>(by_size, 1, std::min<size_t>(4 * workers_, kMaxStepChunks)));
  }

  /// Tells the executor, if any, that batches are coming (StepExecutor::Prepare).
  void Prepare() const {
    if (executor_ != nullptr) executor_->Prepare();
  }
  /// fn(chunk, worker) for every chunk in [0, chunks); inline for one.
  template <class Fn>
  void Run(uint32_t chunks, Fn&& fn) const {
    if (chunks == 1 || executor_ == nullptr) {
      for (uint32_t c = 0; c < chunks; ++c) fn(c, uint32_t{0});
      return;
    }
    using F = std::remove_reference_t<Fn>;
    executor_->Run(
        chunks, [](void* context, uint32_t index, uint32_t worker) { (*static_cast<F*>(context))(index, worker); },
        const_cast<void*>(static_cast<const void*>(std::addressof(fn))));
  }

 private:
  StepExecutor* executor_ = nullptr;
  uint32_t workers_ = 1;
};

/// The first item of chunk c of `chunks` over n items (c == chunks gives n).
inline size_t ChunkBegin(size_t n, uint32_t chunks, uint32_t c) { return n * c / chunks; }

}  // namespace arbiter::internal
