// StepThreadPool: persistent workers that take a batch's tasks by claiming
// indices from one shared counter.
//
// The counter holds the batch's generation in its high half and the next
// unclaimed index in its low half, so a worker that wakes late, still
// holding an old batch, can never claim an index of a newer one (its
// compare-and-swap sees another generation and it stops). The batch itself
// (task, context, count) is copied under a mutex. Idle workers spin for a
// short while before they block, because a tick's parallel stages follow
// each other within tens of microseconds and a futex wake costs about that.
#include "arbiter/core/step_thread_pool.h"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <mutex>
#include <thread>
#include <vector>

namespace arbiter {
namespace {

// How long an idle thread polls before it blocks: a few tens of
// microseconds of pause instructions (the gap between two stages of a
// tick), then about a millisecond of yields (a tick's sequential solve,
// after which the next parallel stage needs the workers awake; a yield
// hands the core to any other runnable thread meanwhile).
constexpr int kSpins = 2000;
constexpr int kYields = 1000;

inline void CpuRelax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  asm volatile("yield");
#endif
}

struct Batch {
  uint32_t generation = 0;
  uint32_t count = 0;
  StepExecutor::Task task = nullptr;
  void* context = nullptr;
};

}  // namespace

struct StepThreadPool::Shared {
  uint32_t threads = 1;
  std::vector<std::thread> workers;

  std::mutex batch_mutex;  // guards batch and stop, and orders wakes' increments
  std::condition_variable batch_posted;
  Batch batch;
  bool stop = false;
  std::atomic<uint32_t> wakes{0};     // Prepare calls so far
  std::atomic<uint32_t> posted{0};    // the generation of the latest batch, for spinning workers
  std::atomic<uint64_t> claim{0};     // generation << 32 | next index
  std::atomic<uint32_t> finished{0};  // tasks of the current batch done
  std::mutex run_mutex;               // one batch in flight

  // Claims and runs the batch's tasks until none is left.
  void Drain(const Batch& b, uint32_t worker) {
    for (;;) {
      uint64_t state = claim.load(std::memory_order_acquire);
      uint32_t index;
      do {
        index = static_cast<uint32_t>(state);
        if (static_cast<uint32_t>(state >> 32) != b.generation || index >= b.count) return;
      } while (!claim.compare_exchange_weak(state, state + 1, std::memory_order_acq_rel));
      b.task(b.context, index, worker);
      if (finished.fetch_add(1, std::memory_order_acq_rel) + 1 == b.count) finished.notify_one();
    }
  }

  // The next batch after generation `seen`, or false when stopping. Polls,
  // then blocks; a Prepare since the polling began sends it back to polling.
  bool Await(uint32_t seen, Batch* out) {
    for (;;) {
      const uint32_t woken = wakes.load(std::memory_order_relaxed);
      for (int i = 0; i < kSpins && posted.load(std::memory_order_acquire) == seen; ++i) CpuRelax();
      for (int i = 0; i < kYields && posted.load(std::memory_order_acquire) == seen; ++i) std::this_thread::yield();
      std::unique_lock lock(batch_mutex);
      batch_posted.wait(lock, [&] {
        return stop || batch.generation != seen || wakes.load(std::memory_order_relaxed) != woken;
      });
      if (stop) return false;
      if (batch.generation != seen) {
        *out = batch;
        return true;
      }
    }
  }

  void WorkerLoop(uint32_t worker) {
    Batch b;
    while (Await(b.generation, &b)) Drain(b, worker);
  }

  void AwaitFinished(uint32_t count) {
    for (int i = 0; i < kSpins; ++i) {
      if (finished.load(std::memory_order_acquire) == count) return;
      CpuRelax();
    }
    for (uint32_t seen = finished.load(std::memory_order_acquire); seen != count;
         seen = finished.load(std::memory_order_acquire)) {
      finished.wait(seen, std::memory_order_acquire);
    }
  }
};

StepThreadPool::StepThreadPool(uint32_t threads) : shared_(std::make_unique<Shared>()) {
  shared_->threads = std::clamp<uint32_t>(threads, 1, kMaxStepWorkers);
  for (uint32_t w = 1; w < shared_->threads; ++w) {
    shared_->workers.emplace_back([s = shared_.get(), w] { s->WorkerLoop(w); });
  }
}

StepThreadPool::~StepThreadPool() {
  {
    std::lock_guard lock(shared_->batch_mutex);
    shared_->stop = true;
  }
  shared_->batch_posted.notify_all();
  for (std::thread& t : shared_->workers) t.join();
}

uint32_t StepThreadPool::Concurrency() const { return shared_->threads; }

void StepThreadPool::Prepare() {
  Shared& s = *shared_;
  if (s.workers.empty()) return;
  {
    std::lock_guard lock(s.batch_mutex);  // so that a worker between its test and its wait sees it
    s.wakes.fetch_add(1, std::memory_order_relaxed);
  }
  s.batch_posted.notify_all();
}

void StepThreadPool::Run(uint32_t count, Task task, void* context) {
  Shared& s = *shared_;
  // Inline: nothing to share, or another thread's batch holds the workers.
  if (s.workers.empty() || count <= 1 || !s.run_mutex.try_lock()) {
    for (uint32_t i = 0; i < count; ++i) task(context, i, 0);
    return;
  }
  Batch b;
  {
    std::lock_guard lock(s.batch_mutex);
    b = {s.batch.generation + 1, count, task, context};
    s.batch = b;
    s.finished.store(0, std::memory_order_relaxed);
    s.claim.store(uint64_t{b.generation} << 32, std::memory_order_release);
    s.posted.store(b.generation, std::memory_order_release);
  }
  s.batch_posted.notify_all();
  s.Drain(b, 0);
  s.AwaitFinished(count);
  s.run_mutex.unlock();
}

}  // namespace arbiter
