// File: arbiter_service.h
//
// The gRPC face of Operations, on the callback API (grpc::CallbackService).
// Why callback rather than sync: on this class of machine the callback
// server holds its throughput at 64 concurrent callers where the sync
// server's falls by a third (see /work/shared/ENVIRONMENT.md).
//
// Scheduling: gRPC's callback threads must not block, so
//  - a query first tries its world's shared lock without waiting and, if it
//    gets it, answers inline (the common case: no step in progress);
//  - otherwise, and for every step and mutation, the work goes to the
//    WorkerPool, which finishes the call when done.
// Every status leaves through ToGrpc (status_convert.h); nothing here
// invents codes except for transport-level facts (reply too large).
//
// Access: every handler's first act is one AccessControl::Admit call
// (access.h) naming what the call needs (read, write or admin) and its
// world; a refused call ends there. The Permit it returns travels with the
// work and releases the caller's call-in-flight slot when the work is done.
// While the server recovers its journal, the RecoveryGate (recovery_gate.h)
// then refuses writer and admin calls and ListWorlds with UNAVAILABLE.
#pragma once

#include <grpcpp/grpcpp.h>

#include "access.h"
#include "arbiter/v1/arbiter.grpc.pb.h"
#include "operations.h"
#include "recovery_gate.h"
#include "worker_pool.h"

namespace arbiter::server {

class ArbiterService final : public v1::Arbiter::CallbackService {
 public:
  /// `max_watch_backlog`: ticks a WatchEvents stream may fall behind before
  /// it is ended with RESOURCE_EXHAUSTED.
  /// `gate` must outlive the service. `info`: the GetServerInfo reply
  /// (server_info.h).
  ArbiterService(Operations* operations, WorkerPool* pool, AccessControl* access, const RecoveryGate* gate,
                 size_t max_watch_backlog, v1::GetServerInfoResponse info);

  grpc::ServerUnaryReactor* CreateWorld(grpc::CallbackServerContext* context, const v1::CreateWorldRequest* request,
                                        v1::CreateWorldResponse* reply) override;
  grpc::ServerUnaryReactor* DeleteWorld(grpc::CallbackServerContext* context, const v1::DeleteWorldRequest* request,
                                        v1::DeleteWorldResponse* reply) override;
  grpc::ServerUnaryReactor* ListWorlds(grpc::CallbackServerContext* context, const v1::ListWorldsRequest* request,
                                       v1::ListWorldsResponse* reply) override;
  grpc::ServerUnaryReactor* DescribeWorld(grpc::CallbackServerContext* context, const v1::DescribeWorldRequest* request,
                                          v1::DescribeWorldResponse* reply) override;
  grpc::ServerUnaryReactor* AddBodies(grpc::CallbackServerContext* context, const v1::AddBodiesRequest* request,
                                      v1::AddBodiesResponse* reply) override;
  grpc::ServerUnaryReactor* RemoveBodies(grpc::CallbackServerContext* context, const v1::RemoveBodiesRequest* request,
                                         v1::RemoveBodiesResponse* reply) override;
  grpc::ServerUnaryReactor* UpdateBodies(grpc::CallbackServerContext* context, const v1::UpdateBodiesRequest* request,
                                         v1::UpdateBodiesResponse* reply) override;
  grpc::ServerUnaryReactor* CastRays(grpc::CallbackServerContext* context, const v1::CastRaysRequest* request,
                                     v1::CastRaysResponse* reply) override;
  grpc::ServerUnaryReactor* Overlap(grpc::CallbackServerContext* context, const v1::OverlapRequest* request,
                                    v1::OverlapResponse* reply) override;
  grpc::ServerUnaryReactor* Distance(grpc::CallbackServerContext* context, const v1::DistanceRequest* request,
                                     v1::DistanceResponse* reply) override;
  grpc::ServerUnaryReactor* CastShapes(grpc::CallbackServerContext* context, const v1::CastShapesRequest* request,
                                       v1::CastShapesResponse* reply) override;
  grpc::ServerUnaryReactor* Step(grpc::CallbackServerContext* context, const v1::StepRequest* request,
                                 v1::StepResponse* reply) override;
  grpc::ServerWriteReactor<v1::TickEvents>* WatchEvents(grpc::CallbackServerContext* context,
                                                        const v1::WatchEventsRequest* request) override;
  grpc::ServerUnaryReactor* GetStateHash(grpc::CallbackServerContext* context, const v1::GetStateHashRequest* request,
                                         v1::GetStateHashResponse* reply) override;
  grpc::ServerUnaryReactor* GetSnapshot(grpc::CallbackServerContext* context, const v1::GetSnapshotRequest* request,
                                        v1::GetSnapshotResponse* reply) override;
  grpc::ServerUnaryReactor* Restore(grpc::CallbackServerContext* context, const v1::RestoreRequest* request,
                                    v1::RestoreResponse* reply) override;
  grpc::ServerBidiReactor<v1::CastRaysRequest, v1::CastRaysResponse>* QueryStream(
      grpc::CallbackServerContext* context) override;
  grpc::ServerUnaryReactor* ValidateHit(grpc::CallbackServerContext* context, const v1::ValidateHitRequest* request,
                                        v1::ValidateHitResponse* reply) override;
  grpc::ServerUnaryReactor* ValidateShots(grpc::CallbackServerContext* context, const v1::ValidateShotsRequest* request,
                                          v1::ValidateShotsResponse* reply) override;
  grpc::ServerUnaryReactor* ValidateMove(grpc::CallbackServerContext* context, const v1::ValidateMoveRequest* request,
                                         v1::ValidateMoveResponse* reply) override;
  grpc::ServerUnaryReactor* MoveShapes(grpc::CallbackServerContext* context, const v1::MoveShapesRequest* request,
                                       v1::MoveShapesResponse* reply) override;
  grpc::ServerUnaryReactor* ReportHashes(grpc::CallbackServerContext* context, const v1::ReportHashesRequest* request,
                                         v1::ReportHashesResponse* reply) override;
  grpc::ServerWriteReactor<v1::ExportJournalChunk>* ExportJournal(grpc::CallbackServerContext* context,
                                                                  const v1::ExportJournalRequest* request) override;
  // Moving a world between instances (operations_migration.cc): admin.
  grpc::ServerUnaryReactor* FreezeWorld(grpc::CallbackServerContext* context, const v1::FreezeWorldRequest* request,
                                        v1::FreezeWorldResponse* reply) override;
  grpc::ServerUnaryReactor* ImportWorld(grpc::CallbackServerContext* context, const v1::ImportWorldRequest* request,
                                        v1::ImportWorldResponse* reply) override;
  grpc::ServerReadReactor<v1::ImportWorldChunk>* ImportWorldStream(grpc::CallbackServerContext* context,
                                                                   v1::ImportWorldResponse* response) override;
  grpc::ServerUnaryReactor* GetServerInfo(grpc::CallbackServerContext* context, const v1::GetServerInfoRequest* request,
                                          v1::GetServerInfoResponse* reply) override;

 private:
  class WatchReactor;
  class QueryStreamReactor;
  class ExportReactor;
  class ImportReactor;

  /// AccessControl::Admit, then, for writer and admin calls, the recovery
  /// gate (after authentication, so a stranger learns nothing new).
  absl::StatusOr<Permit> Admit(const grpc::CallbackServerContext& context, Access access, std::string_view world_id);
  /// Finishes a call that Admit refused.
  static grpc::ServerUnaryReactor* Refuse(grpc::CallbackServerContext* context, const absl::Status& status);
  /// Runs a validated read inline if its world's lock is free, else on the
  /// pool; finishes the call either way.
  template <class Reply>
  grpc::ServerUnaryReactor* RunRead(grpc::CallbackServerContext* context, Permit permit, absl::StatusOr<ReadOp> op,
                                    const Reply* reply);
  /// Runs `work(cancelled)` on the pool and finishes the call with its status.
  template <class Reply, class Work>
  grpc::ServerUnaryReactor* RunOnPool(grpc::CallbackServerContext* context, Permit permit, const Reply* reply,
                                      Work work);
  /// The final status: `status`, or RESOURCE_EXHAUSTED when the reply would
  /// exceed --max_message_bytes.
  absl::Status CheckReplySize(absl::Status status, const google::protobuf::Message& reply) const;

  Operations* operations_;
  WorkerPool* pool_;
  AccessControl* access_;
  const RecoveryGate* gate_;
  const size_t max_watch_backlog_;
  const v1::GetServerInfoResponse info_;
};

}  // namespace arbiter::server
