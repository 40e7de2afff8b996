// The per-world lock must prefer writers: once a Step waits for the lock,
// queries that arrive later must wait behind it (else a steady stream of
// queries could hold a step off forever). The fast path of the service
// relies on try_lock_shared() failing while a writer waits.
#include "ops/rw_lock.h"

#include <gtest/gtest.h>

#include <atomic>
#include <shared_mutex>
#include <thread>

namespace arbiter::server {
namespace {

TEST(RwLockTest, WaitingWriter_BlocksNewReaders) {
  RwLock lock;
  lock.lock_shared();  // a query in flight
  std::atomic<bool> wrote{false};
  std::thread writer([&] {
    std::unique_lock<RwLock> exclusive(lock);  // a step arrives and waits
    wrote = true;
  });
  // Until the writer is queued, new readers still get in; once it is, they
  // must not. Iterations are bounded rather than timed: the writer queues
  // within a few scheduler rounds.
  bool blocked = false;
  for (int i = 0; i < 10'000'000 && !blocked; ++i) {
    if (lock.try_lock_shared()) {
      lock.unlock_shared();
      std::this_thread::yield();
    } else {
      blocked = true;
    }
  }
  EXPECT_TRUE(blocked);
  EXPECT_FALSE(wrote.load());  // the first reader still holds the lock
  lock.unlock_shared();
  writer.join();
  EXPECT_TRUE(wrote.load());
  EXPECT_TRUE(lock.try_lock_shared());  // free again
  lock.unlock_shared();
}

TEST(RwLockTest, ReadersShare_WriterExcludes) {
  RwLock lock;
  lock.lock_shared();
  EXPECT_TRUE(lock.try_lock_shared());
  EXPECT_FALSE(lock.try_lock());
  lock.unlock_shared();
  lock.unlock_shared();
  EXPECT_TRUE(lock.try_lock());
  EXPECT_FALSE(lock.try_lock_shared());
  lock.unlock();
}

}  // namespace
}  // namespace arbiter::server
