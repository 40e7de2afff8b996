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

#include "access/access.h"
#include "arbiter/v1/arbiter.grpc.pb.h"
#include "journal/recovery_gate.h"
#include "ops/operations.h"
#include "ops/worker_pool.h"
#include "service/rpc_table.h"

namespace arbiter::server {

class ArbiterService final : public v1::Arbiter::CallbackService {
 public:
  /// `max_watch_backlog`: ticks a WatchEvents stream may fall behind before
  /// it is ended with RESOURCE_EXHAUSTED.
  /// `gate` must outlive the service. `info`: the GetServerInfo reply
  /// (server_info.h).
  ArbiterService(Operations* operations, WorkerPool* pool, AccessControl* access, const RecoveryGate* gate,
                 size_t max_watch_backlog, v1::GetServerInfoResponse info);

  // One unary method per row of the RPC table (rpc_table.h), each
  // (context, const <Name>Request*, <Name>Response*).
#define ARBITER_UNARY(Name)                                                                                     \
  grpc::ServerUnaryReactor* Name(grpc::CallbackServerContext* context, const v1::Name##Request* request,         \
                                 v1::Name##Response* reply) override;
  ARBITER_UNARY(CreateWorld)
  ARBITER_UNARY(DeleteWorld)
  ARBITER_UNARY(ListWorlds)
  ARBITER_UNARY(DescribeWorld)
  ARBITER_UNARY(AddBodies)
  ARBITER_UNARY(RemoveBodies)
  ARBITER_UNARY(UpdateBodies)
  ARBITER_UNARY(CastRays)
  ARBITER_UNARY(Overlap)
  ARBITER_UNARY(Distance)
  ARBITER_UNARY(CastShapes)
  ARBITER_UNARY(Step)
  ARBITER_UNARY(GetStateHash)
  ARBITER_UNARY(GetSnapshot)
  ARBITER_UNARY(Restore)
  ARBITER_UNARY(ValidateHit)
  ARBITER_UNARY(ValidateShots)
  ARBITER_UNARY(ValidateMove)
  ARBITER_UNARY(MoveShapes)
  ARBITER_UNARY(ReportHashes)
  ARBITER_UNARY(FreezeWorld)
  ARBITER_UNARY(ImportWorld)
  ARBITER_UNARY(GetServerInfo)
#undef ARBITER_UNARY
  grpc::ServerWriteReactor<v1::TickEvents>* WatchEvents(grpc::CallbackServerContext* context,
                                                        const v1::WatchEventsRequest* request) override;
  grpc::ServerBidiReactor<v1::CastRaysRequest, v1::CastRaysResponse>* QueryStream(
      grpc::CallbackServerContext* context) override;
  grpc::ServerWriteReactor<v1::ExportJournalChunk>* ExportJournal(grpc::CallbackServerContext* context,
                                                                  const v1::ExportJournalRequest* request) override;
  grpc::ServerReadReactor<v1::ImportWorldChunk>* ImportWorldStream(grpc::CallbackServerContext* context,
                                                                   v1::ImportWorldResponse* response) override;

 private:
  class WatchReactor;
  class QueryStreamReactor;
  class ExportReactor;
  class ImportReactor;

  template <class Request, class Reply>
  using Prepare = absl::StatusOr<ReadOp> (Operations::*)(const Request&, Reply*);

  /// AccessControl::Admit for the role in `rpc`'s row (rpc_table.h), then,
  /// for writer and admin calls, the recovery gate (after authentication,
  /// so a stranger learns nothing new).
  absl::StatusOr<Permit> Admit(const grpc::CallbackServerContext& context, Rpc rpc, std::string_view world_id);
  /// A unary read: admitted, then `prepare`d and run by RunRead.
  template <class Request, class Reply>
  grpc::ServerUnaryReactor* Read(grpc::CallbackServerContext* context, Rpc rpc, const Request* request, Reply* reply,
                                 Prepare<Request, Reply> prepare);
  /// A unary change (or any call that may wait for a world's lock):
  /// admitted, then `work(operations, request, reply[, cancelled])` on the pool.
  template <class Request, class Reply, class Work>
  grpc::ServerUnaryReactor* Change(grpc::CallbackServerContext* context, Rpc rpc, const Request* request,
                                   Reply* reply, Work work);
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
