// File: worker_pool.h
//
// A fixed set of threads running submitted tasks in FIFO order. The service
// runs steps, mutations and queries that cannot take their world's lock at
// once here, so gRPC's callback threads never block on a world.
#pragma once

#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace arbiter::server {

class WorkerPool {
 public:
  /// Starts `threads` workers (at least one).
  explicit WorkerPool(int threads);
  /// Stop()s.
  ~WorkerPool();
  WorkerPool(const WorkerPool&) = delete;
  WorkerPool& operator=(const WorkerPool&) = delete;

  /// Queues a task; false (and the task is dropped) once Stop() has begun.
  bool Submit(std::function<void()> task);
  /// Runs every queued task, then joins the workers. Idempotent.
  void Stop();

  int size() const { return static_cast<int>(threads_.size()); }
  /// Tasks queued and not yet started (for /metrics; takes the queue's lock).
  size_t queue_depth();

 private:
  void Run();

  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<std::function<void()>> tasks_;
  bool stopping_ = false;
  std::vector<std::thread> threads_;
};

}  // namespace arbiter::server
