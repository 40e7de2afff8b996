// A world's state and record: hash, snapshot, restore, export (the
// journal), report-hashes (a lockstep peer's hashes against the server's),
// the server's health and what it is (info: GetServerInfo).
#pragma once

#include "command.h"

namespace arbiter::cli {

int RunHash(const Context& c);
int RunSnapshot(const Context& c);
int RunRestore(const Context& c);
int RunExport(const Context& c);
int RunReportHashes(const Context& c);
int RunHealth(const Context& c);
int RunInfo(const Context& c);

}  // namespace arbiter::cli
