// File: step_executor.h
//
// How World::Step may spread the work of one tick over threads.
//
// A step given an executor cuts some of its stages into independent tasks
// and hands each batch to Run. Which stages, and why they keep their bits:
//  - pair finding: the static-tree queries and the sweep, each over a range
//    of bodies or sweep entries; every range collects its pairs in its own
//    list, and the union is sorted (the pairs are unique, so the sorted
//    list is the same whatever found which pair);
//  - contacts: each candidate pair's manifold into its own slot, then each
//    range of pairs builds its solver constraints at an offset fixed by the
//    counts of the ranges before it, so constraints keep pair order;
//  - solver: by islands (the movers connected through contacts; the
//    immovable body joins none). No constraint of one island touches a
//    body of another, so each chunk of islands is solved alone, its
//    constraints in their global order, and every body and impulse gets
//    the bits of the serial solve (a tick with few constraints solves on
//    the calling thread);
//  - finalize: each mover's solved pose, continuous cast against static
//    geometry and new world points, into its own slots; the broad-phase
//    tree is then refitted on the calling thread in body id order.
// The bullets' casts, sensors and events stay on the calling thread, in
// their fixed order. A world with kinematic bodies finalizes on
// the calling thread too (a dynamic body's cast there sees the kinematic
// bodies moved so far, an order that a parallel pass would not keep).
//
// So every executor, every thread count and every schedule gives the same
// bits as a step without one (tests/core/step_parallel_test.cc compares
// the state hash after every tick for 1, 2, 3, 4 and 8 threads and for an
// executor running the tasks backwards).
#pragma once

#include <cstdint>

namespace arbiter {

/// Runs batches of independent tasks for World::Step. Implement it to put
/// the step on a game's own job system, or use StepThreadPool
/// (step_thread_pool.h).
class StepExecutor {
 public:
  /// A task: `index` in [0, count) of its batch; `worker` in
  /// [0, Concurrency()) names the thread running it, such that no two tasks
  /// of one batch running at the same time have the same worker (the step
  /// keeps scratch memory per worker).
  using Task = void (*)(void* context, uint32_t index, uint32_t worker);

  virtual ~StepExecutor() = default;

  /// How many tasks may run at once, in [1, kMaxStepWorkers] (outside
  /// that range the step runs on the calling thread alone); fixed for the
  /// executor's life. The step cuts a stage into a few tasks per worker;
  /// the number never reaches a result.
  virtual uint32_t Concurrency() const = 0;

  /// Runs task(context, i, worker) exactly once for every i in [0, count),
  /// in any order, on any threads (the calling one included), and returns
  /// when all have finished. Called only from the thread running Step; a
  /// task does not throw and does not call Run.
  virtual void Run(uint32_t count, Task task, void* context) = 0;

  /// A hint, given early in a step with bodies enough in motion to cut a
  /// stage into tasks (128 or more; a smaller step may still call Run):
  /// batches are a stage away, a few hundred microseconds on such a world.
  /// An executor whose idle threads block can start waking them now, so
  /// that they are polling when the first batch comes rather than still in
  /// the kernel (on the 2-core development VM a blocked worker joined the
  /// tick's first batch 83 us after it was posted, a polling one 2.5 us
  /// after, and the batch ran on one thread meanwhile). Called only from
  /// the thread running Step; it runs no task, and nothing it does reaches
  /// a result. The default does nothing.
  virtual void Prepare() {}
};

/// The most workers a step keeps scratch memory for.
constexpr uint32_t kMaxStepWorkers = 64;

}  // namespace arbiter
