// A StepExecutor that runs a batch backwards on the calling thread,
// spreading the worker indices: a schedule no thread pool would choose.
// The step's results must not depend on it (determinism tests).
#pragma once

#include <cstdint>

#include "arbiter/core/step_executor.h"

namespace arbiter::testing {

class BackwardsExecutor final : public StepExecutor {
 public:
  uint32_t Concurrency() const override { return 5; }
  void Run(uint32_t count, Task task, void* context) override {
    for (uint32_t i = count; i-- > 0;) task(context, i, i % 5);
  }
};

}  // namespace arbiter::testing
