// `arbiter bench`: a load generator against a running arbiter-server.
#pragma once

namespace arbiter::cli {

/// Runs `arbiter bench ...` (argv[1] == "bench"); returns the exit code.
int RunBench(int argc, char** argv);

}  // namespace arbiter::cli
