// `arbiter demo`: exercises the core in-process and prints what it answers.
#pragma once

namespace arbiter::cli {

/// Runs the demo; returns the process exit code.
int RunDemo();

}  // namespace arbiter::cli
