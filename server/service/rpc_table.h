// File: rpc_table.h
//
// Every RPC of arbiter.v1.Arbiter, described once: its name, the least
// role that may call it, whether it names one world, whether its accepted
// changes are journaled, and how the request log summarizes it. The
// service admits each call by its row's role (ArbiterService::Admit), the
// request log and the per-RPC metrics are keyed by the rows' names
// (request_observer.h, RpcMetrics), and a test checks the rows against
// the service's descriptor and the journal's record fields
// (tests/server/rpc_table_test.cc). A new RPC is a row here, a method in
// arbiter.proto, its handler and its operation.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "access/access.h"

namespace arbiter::server {

enum class Rpc : uint8_t {
  kCreateWorld,
  kDeleteWorld,
  kListWorlds,
  kDescribeWorld,
  kAddBodies,
  kRemoveBodies,
  kUpdateBodies,
  kCastRays,
  kOverlap,
  kCastShapes,
  kDistance,
  kStep,
  kWatchEvents,
  kGetStateHash,
  kGetSnapshot,
  kRestore,
  kQueryStream,
  kValidateHit,
  kValidateShots,
  kValidateMove,
  kMoveShapes,
  kReportHashes,
  kExportJournal,
  kFreezeWorld,
  kImportWorld,
  kImportWorldStream,
  kGetServerInfo,
};

/// What the request log says of one request message: the world it names
/// ("" for none) and its items (the elements of its top-level repeated
/// fields: rays, bodies, queries, commands; summed over a stream).
struct RequestSummary {
  std::string world;
  uint64_t items = 0;
};

struct RpcInfo {
  Rpc rpc;
  std::string_view name;  ///< the method's short name ("CastRays")
  Access role;            ///< the least role that may call it
  bool world_scoped;      ///< names one world; x-arbiter-world must agree
  bool journaled;         ///< its accepted changes are journal records
  /// `request` points at one message of the method's request type, as a
  /// gRPC interceptor sees it.
  RequestSummary (*summarize)(const void* request);
};

/// The rows, in the enum's order.
std::span<const RpcInfo> Rpcs();
const RpcInfo& Describe(Rpc rpc);
/// The row of a short method name; null for a name that is no RPC.
const RpcInfo* FindRpc(std::string_view name);

}  // namespace arbiter::server
