#include "service/rpc_table.h"

#include <array>
#include <cstddef>

#include <google/protobuf/descriptor.h>
#include <google/protobuf/message.h>
#include <google/protobuf/reflection.h>

#include "arbiter/v1/arbiter.pb.h"

namespace arbiter::server {
namespace {

// The elements of a message's top-level repeated fields.
uint64_t CountItems(const google::protobuf::Message& message) {
  const google::protobuf::Descriptor* d = message.GetDescriptor();
  const google::protobuf::Reflection* r = message.GetReflection();
  uint64_t items = 0;
  for (int i = 0; i < d->field_count(); ++i) {
    if (d->field(i)->is_repeated()) items += static_cast<uint64_t>(r->FieldSize(message, d->field(i)));
  }
  return items;
}

// gRPC hands the interceptor the request as void*; it points at the
// method's own request type, so each method gets a cast to exactly that.
template <class Request>
RequestSummary Summarize(const void* message) {
  const auto* request = static_cast<const Request*>(message);
  return {request->world_id(), CountItems(*request)};
}

// Rays may come as columns instead (one item per row).
template <>
RequestSummary Summarize<v1::CastRaysRequest>(const void* message) {
  const auto* request = static_cast<const v1::CastRaysRequest*>(message);
  return {request->world_id(), static_cast<uint64_t>(request->rays_size() + request->columns().origin_x_size())};
}

// Names no world and carries no items.
RequestSummary Nothing(const void*) { return {}; }

// A streamed import: the world named by its first message.
RequestSummary SummarizeImportChunk(const void* message) {
  const auto* chunk = static_cast<const v1::ImportWorldChunk*>(message);
  return {chunk->request().world_id(), 0};
}

constexpr bool kWorld = true;      // world_scoped
constexpr bool kNoWorld = false;
constexpr bool kJournaled = true;  // journaled
constexpr bool kNotJournaled = false;

// QueryStream and ImportWorldStream name their world in each message, not
// at the call's start: admitted for any world, checked per message.
constexpr std::array kRows{
    RpcInfo{Rpc::kCreateWorld, "CreateWorld", Access::kAdmin, kWorld, kJournaled, &Summarize<v1::CreateWorldRequest>},
    RpcInfo{Rpc::kDeleteWorld, "DeleteWorld", Access::kAdmin, kWorld, kJournaled, &Summarize<v1::DeleteWorldRequest>},
    RpcInfo{Rpc::kListWorlds, "ListWorlds", Access::kRead, kNoWorld, kNotJournaled, &Nothing},
    RpcInfo{Rpc::kDescribeWorld, "DescribeWorld", Access::kRead, kWorld, kNotJournaled,
            &Summarize<v1::DescribeWorldRequest>},
    RpcInfo{Rpc::kAddBodies, "AddBodies", Access::kWrite, kWorld, kJournaled, &Summarize<v1::AddBodiesRequest>},
    RpcInfo{Rpc::kRemoveBodies, "RemoveBodies", Access::kWrite, kWorld, kJournaled,
            &Summarize<v1::RemoveBodiesRequest>},
    RpcInfo{Rpc::kUpdateBodies, "UpdateBodies", Access::kWrite, kWorld, kJournaled,
            &Summarize<v1::UpdateBodiesRequest>},
    RpcInfo{Rpc::kCastRays, "CastRays", Access::kRead, kWorld, kNotJournaled, &Summarize<v1::CastRaysRequest>},
    RpcInfo{Rpc::kOverlap, "Overlap", Access::kRead, kWorld, kNotJournaled, &Summarize<v1::OverlapRequest>},
    RpcInfo{Rpc::kCastShapes, "CastShapes", Access::kRead, kWorld, kNotJournaled, &Summarize<v1::CastShapesRequest>},
    RpcInfo{Rpc::kDistance, "Distance", Access::kRead, kWorld, kNotJournaled, &Summarize<v1::DistanceRequest>},
    RpcInfo{Rpc::kStep, "Step", Access::kWrite, kWorld, kJournaled, &Summarize<v1::StepRequest>},
    RpcInfo{Rpc::kWatchEvents, "WatchEvents", Access::kRead, kWorld, kNotJournaled,
            &Summarize<v1::WatchEventsRequest>},
    RpcInfo{Rpc::kGetStateHash, "GetStateHash", Access::kRead, kWorld, kNotJournaled,
            &Summarize<v1::GetStateHashRequest>},
    // Writer, not reader: a snapshot is the world's whole state in the form
    // Restore takes (the tool for saving and rewinding a match) and the
    // most expensive read; game clients (readers) have DescribeWorld.
    RpcInfo{Rpc::kGetSnapshot, "GetSnapshot", Access::kWrite, kWorld, kNotJournaled,
            &Summarize<v1::GetSnapshotRequest>},
    RpcInfo{Rpc::kRestore, "Restore", Access::kWrite, kWorld, kJournaled, &Summarize<v1::RestoreRequest>},
    RpcInfo{Rpc::kQueryStream, "QueryStream", Access::kRead, kNoWorld, kNotJournaled,
            &Summarize<v1::CastRaysRequest>},
    RpcInfo{Rpc::kValidateHit, "ValidateHit", Access::kRead, kWorld, kNotJournaled,
            &Summarize<v1::ValidateHitRequest>},
    RpcInfo{Rpc::kValidateShots, "ValidateShots", Access::kRead, kWorld, kNotJournaled,
            &Summarize<v1::ValidateShotsRequest>},
    RpcInfo{Rpc::kValidateMove, "ValidateMove", Access::kRead, kWorld, kNotJournaled,
            &Summarize<v1::ValidateMoveRequest>},
    RpcInfo{Rpc::kMoveShapes, "MoveShapes", Access::kRead, kWorld, kNotJournaled, &Summarize<v1::MoveShapesRequest>},
    RpcInfo{Rpc::kReportHashes, "ReportHashes", Access::kRead, kWorld, kNotJournaled,
            &Summarize<v1::ReportHashesRequest>},
    // Writer: the journal holds the world's whole history and recorded queries.
    RpcInfo{Rpc::kExportJournal, "ExportJournal", Access::kWrite, kWorld, kNotJournaled,
            &Summarize<v1::ExportJournalRequest>},
    RpcInfo{Rpc::kFreezeWorld, "FreezeWorld", Access::kAdmin, kWorld, kJournaled, &Summarize<v1::FreezeWorldRequest>},
    RpcInfo{Rpc::kImportWorld, "ImportWorld", Access::kAdmin, kWorld, kJournaled, &Summarize<v1::ImportWorldRequest>},
    RpcInfo{Rpc::kImportWorldStream, "ImportWorldStream", Access::kAdmin, kNoWorld, kJournaled,
            &SummarizeImportChunk},
    // Fixed at start: a client sizes its batches before it has a world.
    RpcInfo{Rpc::kGetServerInfo, "GetServerInfo", Access::kRead, kNoWorld, kNotJournaled, &Nothing},
};

constexpr bool InEnumOrder() {
  for (size_t i = 0; i < kRows.size(); ++i) {
    if (static_cast<size_t>(kRows[i].rpc) != i) return false;
  }
  return true;
}
static_assert(InEnumOrder(), "kRows must list every Rpc once, in the enum's order");
static_assert(kRows.size() == static_cast<size_t>(Rpc::kGetServerInfo) + 1, "a row for every Rpc");

}  // namespace

std::span<const RpcInfo> Rpcs() { return kRows; }

const RpcInfo& Describe(Rpc rpc) { return kRows[static_cast<size_t>(rpc)]; }

const RpcInfo* FindRpc(std::string_view name) {
  for (const RpcInfo& row : kRows) {
    if (row.name == name) return &row;
  }
  return nullptr;
}

}  // namespace arbiter::server
