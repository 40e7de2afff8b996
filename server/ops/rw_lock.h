// File: rw_lock.h
//
// A readers-writer lock that prefers writers, for the per-world lock.
//
// Why not std::shared_mutex: on glibc it is a pthread rwlock of the default
// kind, which prefers readers, so a steady stream of queries (each taking
// the lock shared) can keep a Step waiting indefinitely. With writer
// preference a waiting Step blocks new readers, the readers in flight
// drain, the step runs, and queries resume at the next tick. Meets the
// standard SharedMutex requirements, so std::shared_lock and
// std::unique_lock work with it. Not recursive: a thread holding a read lock
// must not take it again (a waiting writer would deadlock it).
#pragma once

#include <pthread.h>

namespace arbiter::server {

class RwLock {
 public:
  RwLock() {
    pthread_rwlockattr_t attr;
    pthread_rwlockattr_init(&attr);
    pthread_rwlockattr_setkind_np(&attr, PTHREAD_RWLOCK_PREFER_WRITER_NONRECURSIVE_NP);
    pthread_rwlock_init(&lock_, &attr);
    pthread_rwlockattr_destroy(&attr);
  }
  ~RwLock() { pthread_rwlock_destroy(&lock_); }
  RwLock(const RwLock&) = delete;
  RwLock& operator=(const RwLock&) = delete;

  void lock() { pthread_rwlock_wrlock(&lock_); }
  bool try_lock() { return pthread_rwlock_trywrlock(&lock_) == 0; }
  void unlock() { pthread_rwlock_unlock(&lock_); }

  void lock_shared() { pthread_rwlock_rdlock(&lock_); }
  /// Fails while a writer holds the lock or waits for it.
  bool try_lock_shared() { return pthread_rwlock_tryrdlock(&lock_) == 0; }
  void unlock_shared() { pthread_rwlock_unlock(&lock_); }

 private:
  pthread_rwlock_t lock_;
};

}  // namespace arbiter::server
