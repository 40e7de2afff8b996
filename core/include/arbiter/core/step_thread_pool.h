// File: step_thread_pool.h
//
// A StepExecutor with persistent worker threads: `threads - 1` workers
// started once, plus the thread that calls Run, so a tick pays a wake-up per
// parallel stage (a few microseconds) and never a thread start.
//
// Ownership: the caller owns the pool and may step any number of worlds
// with it, one Run at a time; when a second thread calls Run while a batch
// is in flight, the second batch runs on its own calling thread (same
// results: the step's results never depend on the schedule). Destroying the
// pool joins the workers; no Run may be in progress then.
//
// Lives in its own library, arbiter_step_pool (it needs std::thread), so
// that the core itself stays free of threads (the WebAssembly and cross
// builds of the determinism matrix link the core alone).
#pragma once

#include <cstdint>
#include <memory>

#include "arbiter/core/step_executor.h"

namespace arbiter {

class StepThreadPool final : public StepExecutor {
 public:
  /// `threads` in total, the caller's included, clamped to
  /// [1, kMaxStepWorkers]; 1 starts no thread and runs every task inline.
  explicit StepThreadPool(uint32_t threads);
  ~StepThreadPool() override;
  StepThreadPool(const StepThreadPool&) = delete;
  StepThreadPool& operator=(const StepThreadPool&) = delete;

  uint32_t Concurrency() const override;
  void Run(uint32_t count, Task task, void* context) override;
  /// Wakes blocked workers, which then poll for the next batch as they do
  /// after one (a few tens of microseconds of pause, then about a
  /// millisecond of yields) before they block again.
  void Prepare() override;

  struct Shared;

 private:
  std::unique_ptr<Shared> shared_;
};

}  // namespace arbiter
