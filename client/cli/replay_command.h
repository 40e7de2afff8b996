// `arbiter replay verify FILE`: re-runs a journal export offline (no
// server) and reports whether every tick's state hash, every checkpoint and
// every recorded query answer come out the same. See server/journal/offline_replay.h.
#pragma once

namespace arbiter::cli {

/// argv[1] is "replay". Exit code: 0 identical, 1 diverged or an answer
/// differs, 2 bad usage or an unreadable file.
int RunReplay(int argc, char** argv);

}  // namespace arbiter::cli
