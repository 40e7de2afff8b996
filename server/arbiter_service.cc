#include "arbiter_service.h"
#include "world_metadata.h"

#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <utility>

#include "journal_export.h"
#include "status_convert.h"
#include "world_import.h"

namespace arbiter::server {
namespace {

CancelFn CancelOf(grpc::CallbackServerContext* context) {
  return [context] { return context->IsCancelled(); };
}

absl::Status Unavailable() { return absl::UnavailableError("server shutting down"); }

}  // namespace

ArbiterService::ArbiterService(Operations* operations, WorkerPool* pool, AccessControl* access,
                               const RecoveryGate* gate, size_t max_watch_backlog, v1::GetServerInfoResponse info)
    : operations_(operations),
      pool_(pool),
      access_(access),
      gate_(gate),
      max_watch_backlog_(max_watch_backlog),
      info_(std::move(info)) {}

absl::StatusOr<Permit> ArbiterService::Admit(const grpc::CallbackServerContext& context, Access access,
                                             std::string_view world_id) {
  absl::StatusOr<Permit> permit = access_->Admit(context, access, world_id);
  if (!permit.ok()) return permit;
  if (absl::Status s = CheckWorldMetadata(context, world_id); !s.ok()) return s;
  if (access == Access::kRead) return permit;
  if (absl::Status s = gate_->Check(); !s.ok()) return s;
  return permit;
}

grpc::ServerUnaryReactor* ArbiterService::Refuse(grpc::CallbackServerContext* context, const absl::Status& status) {
  grpc::ServerUnaryReactor* reactor = context->DefaultReactor();
  reactor->Finish(ToGrpc(status));
  return reactor;
}

absl::Status ArbiterService::CheckReplySize(absl::Status status, const google::protobuf::Message& reply) const {
  if (!status.ok()) return status;
  const size_t bytes = reply.ByteSizeLong();
  if (bytes > operations_->limits().max_message_bytes) {
    return absl::ResourceExhaustedError("reply: " + std::to_string(bytes) + " bytes exceed --max_message_bytes (" +
                                        std::to_string(operations_->limits().max_message_bytes) +
                                        "); split the request into smaller batches");
  }
  return status;
}

template <class Reply>
grpc::ServerUnaryReactor* ArbiterService::RunRead(grpc::CallbackServerContext* context, Permit permit,
                                                  absl::StatusOr<ReadOp> op, const Reply* reply) {
  grpc::ServerUnaryReactor* reactor = context->DefaultReactor();
  if (!op.ok()) {
    reactor->Finish(ToGrpc(op.status()));
    return reactor;
  }
  const CancelFn cancelled = CancelOf(context);
  absl::Status status;
  if (op->entry->TryReadLive([&](const World& world) { return op->run(world, cancelled); }, &status)) {
    reactor->Finish(ToGrpc(CheckReplySize(std::move(status), *reply)));
    return reactor;
  }
  // A step or mutation holds (or awaits) the lock: wait on a worker.
  auto task = [this, permit = std::move(permit), op = std::move(*op), cancelled, reactor, reply] {
    if (cancelled()) {
      reactor->Finish(ToGrpc(absl::CancelledError("cancelled before it ran")));
      return;
    }
    const absl::Status s = op.entry->ReadLive([&](const World& world) { return op.run(world, cancelled); });
    reactor->Finish(ToGrpc(CheckReplySize(s, *reply)));
  };
  if (!pool_->Submit(std::move(task))) reactor->Finish(ToGrpc(Unavailable()));
  return reactor;
}

template <class Reply, class Work>
grpc::ServerUnaryReactor* ArbiterService::RunOnPool(grpc::CallbackServerContext* context, Permit permit,
                                                    const Reply* reply, Work work) {
  grpc::ServerUnaryReactor* reactor = context->DefaultReactor();
  const CancelFn cancelled = CancelOf(context);
  auto task = [this, permit = std::move(permit), work = std::move(work), cancelled, reactor, reply] {
    if (cancelled()) {
      reactor->Finish(ToGrpc(absl::CancelledError("cancelled before it ran")));
      return;
    }
    reactor->Finish(ToGrpc(CheckReplySize(work(cancelled), *reply)));
  };
  if (!pool_->Submit(std::move(task))) reactor->Finish(ToGrpc(Unavailable()));
  return reactor;
}

// ---- Unary calls ---------------------------------------------------------------------

grpc::ServerUnaryReactor* ArbiterService::CreateWorld(grpc::CallbackServerContext* context,
                                                      const v1::CreateWorldRequest* request,
                                                      v1::CreateWorldResponse* reply) {
  absl::StatusOr<Permit> permit = Admit(*context, Access::kAdmin, request->world_id());
  if (!permit.ok()) return Refuse(context, permit.status());
  return RunOnPool(context, *std::move(permit), reply, [this, request, reply](const CancelFn& c) {
    return operations_->CreateWorld(*request, reply, c);
  });
}

grpc::ServerUnaryReactor* ArbiterService::DeleteWorld(grpc::CallbackServerContext* context,
                                                      const v1::DeleteWorldRequest* request,
                                                      v1::DeleteWorldResponse* reply) {
  absl::StatusOr<Permit> permit = Admit(*context, Access::kAdmin, request->world_id());
  if (!permit.ok()) return Refuse(context, permit.status());
  return RunOnPool(context, *std::move(permit), reply,
                   [this, request, reply](const CancelFn&) { return operations_->DeleteWorld(*request, reply); });
}

grpc::ServerUnaryReactor* ArbiterService::ListWorlds(grpc::CallbackServerContext* context,
                                                     const v1::ListWorldsRequest* request, v1::ListWorldsResponse* reply) {
  absl::StatusOr<Permit> permit = Admit(*context, Access::kRead, "");
  if (!permit.ok()) return Refuse(context, permit.status());
  // A list made while worlds are still being replayed would miss them.
  if (absl::Status s = gate_->Check(); !s.ok()) return Refuse(context, s);
  return RunOnPool(context, *permit, reply, [this, request, reply, permit = *permit](const CancelFn&) {
    const absl::Status s = operations_->ListWorlds(*request, reply);
    // A token scoped to some worlds does not learn the others' names.
    v1::ListWorldsResponse visible;
    for (v1::WorldInfo& world : *reply->mutable_worlds()) {
      if (permit.Allows(Access::kRead, world.world_id())) *visible.add_worlds() = std::move(world);
    }
    reply->Swap(&visible);
    return s;
  });
}

grpc::ServerUnaryReactor* ArbiterService::DescribeWorld(grpc::CallbackServerContext* context,
                                                        const v1::DescribeWorldRequest* request,
                                                        v1::DescribeWorldResponse* reply) {
  absl::StatusOr<Permit> permit = Admit(*context, Access::kRead, request->world_id());
  if (!permit.ok()) return Refuse(context, permit.status());
  return RunRead(context, *std::move(permit), operations_->PrepareDescribeWorld(*request, reply), reply);
}

grpc::ServerUnaryReactor* ArbiterService::AddBodies(grpc::CallbackServerContext* context,
                                                    const v1::AddBodiesRequest* request, v1::AddBodiesResponse* reply) {
  absl::StatusOr<Permit> permit = Admit(*context, Access::kWrite, request->world_id());
  if (!permit.ok()) return Refuse(context, permit.status());
  return RunOnPool(context, *std::move(permit), reply,
                   [this, request, reply](const CancelFn&) { return operations_->AddBodies(*request, reply); });
}

grpc::ServerUnaryReactor* ArbiterService::RemoveBodies(grpc::CallbackServerContext* context,
                                                       const v1::RemoveBodiesRequest* request,
                                                       v1::RemoveBodiesResponse* reply) {
  absl::StatusOr<Permit> permit = Admit(*context, Access::kWrite, request->world_id());
  if (!permit.ok()) return Refuse(context, permit.status());
  return RunOnPool(context, *std::move(permit), reply,
                   [this, request, reply](const CancelFn&) { return operations_->RemoveBodies(*request, reply); });
}

grpc::ServerUnaryReactor* ArbiterService::UpdateBodies(grpc::CallbackServerContext* context,
                                                       const v1::UpdateBodiesRequest* request,
                                                       v1::UpdateBodiesResponse* reply) {
  absl::StatusOr<Permit> permit = Admit(*context, Access::kWrite, request->world_id());
  if (!permit.ok()) return Refuse(context, permit.status());
  return RunOnPool(context, *std::move(permit), reply,
                   [this, request, reply](const CancelFn&) { return operations_->UpdateBodies(*request, reply); });
}

grpc::ServerUnaryReactor* ArbiterService::CastRays(grpc::CallbackServerContext* context,
                                                   const v1::CastRaysRequest* request, v1::CastRaysResponse* reply) {
  absl::StatusOr<Permit> permit = Admit(*context, Access::kRead, request->world_id());
  if (!permit.ok()) return Refuse(context, permit.status());
  return RunRead(context, *std::move(permit), operations_->PrepareCastRays(*request, reply), reply);
}

grpc::ServerUnaryReactor* ArbiterService::Overlap(grpc::CallbackServerContext* context,
                                                  const v1::OverlapRequest* request, v1::OverlapResponse* reply) {
  absl::StatusOr<Permit> permit = Admit(*context, Access::kRead, request->world_id());
  if (!permit.ok()) return Refuse(context, permit.status());
  return RunRead(context, *std::move(permit), operations_->PrepareOverlap(*request, reply), reply);
}

grpc::ServerUnaryReactor* ArbiterService::CastShapes(grpc::CallbackServerContext* context,
                                                     const v1::CastShapesRequest* request, v1::CastShapesResponse* reply) {
  absl::StatusOr<Permit> permit = Admit(*context, Access::kRead, request->world_id());
  if (!permit.ok()) return Refuse(context, permit.status());
  return RunRead(context, *std::move(permit), operations_->PrepareCastShapes(*request, reply), reply);
}

grpc::ServerUnaryReactor* ArbiterService::Distance(grpc::CallbackServerContext* context,
                                                   const v1::DistanceRequest* request, v1::DistanceResponse* reply) {
  absl::StatusOr<Permit> permit = Admit(*context, Access::kRead, request->world_id());
  if (!permit.ok()) return Refuse(context, permit.status());
  return RunRead(context, *std::move(permit), operations_->PrepareDistance(*request, reply), reply);
}

grpc::ServerUnaryReactor* ArbiterService::Step(grpc::CallbackServerContext* context, const v1::StepRequest* request,
                                               v1::StepResponse* reply) {
  absl::StatusOr<Permit> permit = Admit(*context, Access::kWrite, request->world_id());
  if (!permit.ok()) return Refuse(context, permit.status());
  return RunOnPool(context, *std::move(permit), reply,
                   [this, request, reply](const CancelFn& c) { return operations_->Step(*request, reply, c); });
}

grpc::ServerUnaryReactor* ArbiterService::GetStateHash(grpc::CallbackServerContext* context,
                                                       const v1::GetStateHashRequest* request,
                                                       v1::GetStateHashResponse* reply) {
  absl::StatusOr<Permit> permit = Admit(*context, Access::kRead, request->world_id());
  if (!permit.ok()) return Refuse(context, permit.status());
  return RunRead(context, *std::move(permit), operations_->PrepareGetStateHash(*request, reply), reply);
}

grpc::ServerUnaryReactor* ArbiterService::ValidateHit(grpc::CallbackServerContext* context,
                                                      const v1::ValidateHitRequest* request,
                                                      v1::ValidateHitResponse* reply) {
  absl::StatusOr<Permit> permit = Admit(*context, Access::kRead, request->world_id());
  if (!permit.ok()) return Refuse(context, permit.status());
  return RunRead(context, *std::move(permit), operations_->PrepareValidateHit(*request, reply), reply);
}

grpc::ServerUnaryReactor* ArbiterService::ValidateShots(grpc::CallbackServerContext* context,
                                                        const v1::ValidateShotsRequest* request,
                                                        v1::ValidateShotsResponse* reply) {
  absl::StatusOr<Permit> permit = Admit(*context, Access::kRead, request->world_id());
  if (!permit.ok()) return Refuse(context, permit.status());
  const std::optional<uint32_t> rewind_ms = permit->max_rewind_ms();
  return RunRead(context, *std::move(permit), operations_->PrepareValidateShots(*request, rewind_ms, reply), reply);
}

grpc::ServerUnaryReactor* ArbiterService::ValidateMove(grpc::CallbackServerContext* context,
                                                       const v1::ValidateMoveRequest* request,
                                                       v1::ValidateMoveResponse* reply) {
  absl::StatusOr<Permit> permit = Admit(*context, Access::kRead, request->world_id());
  if (!permit.ok()) return Refuse(context, permit.status());
  return RunRead(context, *std::move(permit), operations_->PrepareValidateMove(*request, reply), reply);
}

grpc::ServerUnaryReactor* ArbiterService::MoveShapes(grpc::CallbackServerContext* context,
                                                     const v1::MoveShapesRequest* request, v1::MoveShapesResponse* reply) {
  absl::StatusOr<Permit> permit = Admit(*context, Access::kRead, request->world_id());
  if (!permit.ok()) return Refuse(context, permit.status());
  return RunRead(context, *std::move(permit), operations_->PrepareMoveShapes(*request, reply), reply);
}

grpc::ServerUnaryReactor* ArbiterService::ReportHashes(grpc::CallbackServerContext* context,
                                                       const v1::ReportHashesRequest* request,
                                                       v1::ReportHashesResponse* reply) {
  absl::StatusOr<Permit> permit = Admit(*context, Access::kRead, request->world_id());
  if (!permit.ok()) return Refuse(context, permit.status());
  return RunRead(context, *std::move(permit), operations_->PrepareReportHashes(*request, reply), reply);
}

// Fixed at start, so answered inline, also while the journal recovers: a
// client sizes its batches before it has any world to call.
grpc::ServerUnaryReactor* ArbiterService::GetServerInfo(grpc::CallbackServerContext* context,
                                                        const v1::GetServerInfoRequest* /*request*/,
                                                        v1::GetServerInfoResponse* reply) {
  absl::StatusOr<Permit> permit = Admit(*context, Access::kRead, "");
  if (!permit.ok()) return Refuse(context, permit.status());
  *reply = info_;
  grpc::ServerUnaryReactor* reactor = context->DefaultReactor();
  reactor->Finish(grpc::Status::OK);
  return reactor;
}

// ---- Moving a world between instances: admin, like creating and deleting ---------------

grpc::ServerUnaryReactor* ArbiterService::FreezeWorld(grpc::CallbackServerContext* context,
                                                      const v1::FreezeWorldRequest* request,
                                                      v1::FreezeWorldResponse* reply) {
  absl::StatusOr<Permit> permit = Admit(*context, Access::kAdmin, request->world_id());
  if (!permit.ok()) return Refuse(context, permit.status());
  return RunOnPool(context, *std::move(permit), reply,
                   [this, request, reply](const CancelFn&) { return operations_->FreezeWorld(*request, reply); });
}

grpc::ServerUnaryReactor* ArbiterService::ImportWorld(grpc::CallbackServerContext* context,
                                                      const v1::ImportWorldRequest* request,
                                                      v1::ImportWorldResponse* reply) {
  absl::StatusOr<Permit> permit = Admit(*context, Access::kAdmin, request->world_id());
  if (!permit.ok()) return Refuse(context, permit.status());
  return RunOnPool(context, *std::move(permit), reply,
                   [this, request, reply](const CancelFn&) { return operations_->ImportWorld(*request, reply); });
}

// ---- ExportJournal ----------------------------------------------------------------
// Opens the export on a worker (SQLite blocks), then produces each chunk on
// a worker once the previous one is written: one write in flight, so the
// reader's pace sets the export's and the server holds one chunk plus the
// largest record (journal_export.h). Writer access: the journal holds the
// world's whole history (and the recorded queries).
class ArbiterService::ExportReactor final : public grpc::ServerWriteReactor<v1::ExportJournalChunk> {
 public:
  ExportReactor(ArbiterService* service, grpc::CallbackServerContext* context, const v1::ExportJournalRequest* request,
                absl::StatusOr<Permit> permit)
      : service_(service) {
    if (!permit.ok()) {
      Finish(ToGrpc(permit.status()));
      return;
    }
    permit_ = *std::move(permit);  // held until the last chunk is written
    OnWorker([this, context, request] {
      if (context->IsCancelled()) {
        Finish(ToGrpc(absl::CancelledError("cancelled before it ran")));
        return;
      }
      absl::StatusOr<std::unique_ptr<JournalExport>> opened = service_->operations_->OpenExport(*request);
      if (!opened.ok()) {
        Finish(ToGrpc(opened.status()));
        return;
      }
      export_ = *std::move(opened);
      WriteNext();
    });
  }

  void OnWriteDone(bool ok) override {
    if (!ok) {
      Finish(ToGrpc(absl::CancelledError("the caller went away")));
      return;
    }
    if (export_->done()) {
      Finish(grpc::Status::OK);
      return;
    }
    OnWorker([this] { WriteNext(); });
  }
  void OnDone() override { delete this; }

 private:
  void OnWorker(std::function<void()> task) {
    if (!service_->pool_->Submit(std::move(task))) Finish(ToGrpc(Unavailable()));
  }
  void WriteNext() {
    if (absl::Status s = export_->Next(&chunk_); !s.ok()) {
      Finish(ToGrpc(s));
      return;
    }
    StartWrite(&chunk_);
  }

  ArbiterService* service_;
  std::optional<Permit> permit_;
  std::unique_ptr<JournalExport> export_;
  v1::ExportJournalChunk chunk_;
};

// ---- ImportWorldStream ---------------------------------------------------------------
// Reads a chunk, feeds it to the import on a worker (the replay is the
// work), reads the next; at the client's half-close finishes the import on
// a worker. The first chunk names the world: admitted then for it. Any
// failure ends the stream with its status, and destroying the import
// undoes it (world_import.h), so a stream cut short changes nothing.
class ArbiterService::ImportReactor final : public grpc::ServerReadReactor<v1::ImportWorldChunk> {
 public:
  ImportReactor(ArbiterService* service, grpc::CallbackServerContext* context, v1::ImportWorldResponse* reply,
                absl::StatusOr<Permit> permit)
      : service_(service), context_(context), reply_(reply) {
    if (!permit.ok()) {
      Finish(ToGrpc(permit.status()));
      return;
    }
    permit_ = *std::move(permit);
    StartRead(&chunk_);
  }

  void OnReadDone(bool ok) override {
    if (!ok && context_->IsCancelled()) {
      End(absl::CancelledError("the client went away"));
      return;
    }
    auto task = [this, ok] {
      const absl::Status s = ok ? Take() : Complete();
      if (!s.ok() || !ok) {
        End(s);
        return;
      }
      StartRead(&chunk_);
    };
    if (!service_->pool_->Submit(std::move(task))) End(Unavailable());
  }

  void OnDone() override { delete this; }

 private:
  // One chunk: the first begins the import.
  absl::Status Take() {
    if (import_ == nullptr) {
      const v1::ImportWorldRequest& request = chunk_.request();
      if (absl::Status s = permit_->Recheck(Access::kAdmin, request.world_id()); !s.ok()) return s;
      if (absl::Status s = CheckWorldMetadata(*context_, request.world_id()); !s.ok()) return s;
      absl::StatusOr<std::unique_ptr<WorldImport>> import = service_->operations_->BeginImport(request);
      if (!import.ok()) return import.status();
      import_ = *std::move(import);
      if (absl::Status s = import_->Feed(request.journal()); !s.ok()) return s;
    } else if (chunk_.has_request()) {
      return absl::InvalidArgumentError("request: only in the stream's first message");
    }
    if (chunk_.has_file_hash()) import_->ExpectFileHash(chunk_.file_hash());
    return import_->Feed(chunk_.data());
  }

  absl::Status Complete() {
    if (import_ == nullptr) return absl::InvalidArgumentError("request: the stream carried no message");
    return import_->Finish(reply_);
  }

  void End(const absl::Status& s) {
    import_.reset();  // undone unless finished
    Finish(ToGrpc(s));
  }

  ArbiterService* service_;
  grpc::CallbackServerContext* context_;
  std::optional<Permit> permit_;
  v1::ImportWorldChunk chunk_;
  v1::ImportWorldResponse* reply_;
  std::unique_ptr<WorldImport> import_;
};

grpc::ServerReadReactor<v1::ImportWorldChunk>* ArbiterService::ImportWorldStream(grpc::CallbackServerContext* context,
                                                                                 v1::ImportWorldResponse* response) {
  return new ImportReactor(this, context, response, Admit(*context, Access::kAdmin, ""));
}

grpc::ServerWriteReactor<v1::ExportJournalChunk>* ArbiterService::ExportJournal(
    grpc::CallbackServerContext* context, const v1::ExportJournalRequest* request) {
  return new ExportReactor(this, context, request, Admit(*context, Access::kWrite, request->world_id()));
}

grpc::ServerUnaryReactor* ArbiterService::GetSnapshot(grpc::CallbackServerContext* context,
                                                      const v1::GetSnapshotRequest* request,
                                                      v1::GetSnapshotResponse* reply) {
  // Writer, not reader: a snapshot is the world's whole state in the form
  // Restore takes (the tool for saving and rewinding a match) and the most
  // expensive read; game clients (readers) have DescribeWorld.
  absl::StatusOr<Permit> permit = Admit(*context, Access::kWrite, request->world_id());
  if (!permit.ok()) return Refuse(context, permit.status());
  return RunRead(context, *std::move(permit), operations_->PrepareGetSnapshot(*request, reply), reply);
}

grpc::ServerUnaryReactor* ArbiterService::Restore(grpc::CallbackServerContext* context, const v1::RestoreRequest* request,
                                                  v1::RestoreResponse* reply) {
  absl::StatusOr<Permit> permit = Admit(*context, Access::kWrite, request->world_id());
  if (!permit.ok()) return Refuse(context, permit.status());
  return RunOnPool(context, *std::move(permit), reply,
                   [this, request, reply](const CancelFn&) { return operations_->Restore(*request, reply); });
}

// ---- WatchEvents -----------------------------------------------------------------------

// One watcher: a queue between the world's broadcaster (which pushes under
// its own lock, from the stepping thread) and gRPC's write completions.
// At most one write is in flight; Finish waits for it.
class ArbiterService::WatchReactor final : public grpc::ServerWriteReactor<v1::TickEvents>, public EventSink {
 public:
  /// Subscribes to the world's events; with no world, finishes at once
  /// with `error`. The permit is held while the stream is open.
  WatchReactor(absl::StatusOr<std::shared_ptr<WorldEntry>> entry, std::optional<Permit> permit, size_t max_backlog)
      : entry_(entry.ok() ? *entry : nullptr), permit_(std::move(permit)), max_backlog_(max_backlog) {
    const absl::Status s = entry.ok() ? entry_->events().Subscribe(this) : entry.status();
    if (!s.ok()) {
      entry_.reset();
      std::lock_guard<std::mutex> lock(mu_);
      RequestFinishLocked(s);
    }
  }

  void OnTick(std::shared_ptr<const v1::TickEvents> events) override {
    std::lock_guard<std::mutex> lock(mu_);
    if (finish_) return;
    if (queue_.size() >= max_backlog_) {
      RequestFinishLocked(absl::ResourceExhaustedError("watcher fell more than " + std::to_string(max_backlog_) +
                                                       " ticks behind"));
      return;
    }
    queue_.push_back(std::move(events));
    if (!writing_) WriteNextLocked();
  }

  void OnClose(const absl::Status& status) override {
    std::lock_guard<std::mutex> lock(mu_);
    // Ticks already queued are still delivered before the close status.
    closing_ = status;
    if (!writing_ && queue_.empty()) RequestFinishLocked(status);
  }

  void OnWriteDone(bool ok) override {
    std::lock_guard<std::mutex> lock(mu_);
    writing_ = false;
    current_.reset();
    if (!ok) {
      RequestFinishLocked(absl::CancelledError("the watcher went away"));
    } else if (finish_) {
      DoFinishLocked();
    } else if (!queue_.empty()) {
      WriteNextLocked();
    } else if (closing_) {
      RequestFinishLocked(*closing_);
    }
  }

  void OnCancel() override {
    std::lock_guard<std::mutex> lock(mu_);
    RequestFinishLocked(absl::CancelledError("cancelled by the watcher"));
  }

  void OnDone() override {
    if (entry_) entry_->events().Unsubscribe(this);
    delete this;
  }

 private:
  void WriteNextLocked() {
    current_ = std::move(queue_.front());
    queue_.pop_front();
    writing_ = true;
    StartWrite(current_.get());
  }

  void RequestFinishLocked(const absl::Status& status) {
    if (finish_) return;
    finish_ = status;
    queue_.clear();
    if (!writing_) DoFinishLocked();
  }

  void DoFinishLocked() {
    if (finished_) return;
    finished_ = true;
    Finish(ToGrpc(*finish_));
  }

  std::shared_ptr<WorldEntry> entry_;
  const std::optional<Permit> permit_;
  const size_t max_backlog_;
  std::mutex mu_;
  std::deque<std::shared_ptr<const v1::TickEvents>> queue_;
  std::shared_ptr<const v1::TickEvents> current_;  // the message being written
  bool writing_ = false;
  std::optional<absl::Status> closing_;  // the broadcaster closed; finish after the queue
  std::optional<absl::Status> finish_;   // finishing with this status
  bool finished_ = false;
};

grpc::ServerWriteReactor<v1::TickEvents>* ArbiterService::WatchEvents(grpc::CallbackServerContext* context,
                                                                      const v1::WatchEventsRequest* request) {
  absl::StatusOr<Permit> permit = Admit(*context, Access::kRead, request->world_id());
  if (!permit.ok()) return new WatchReactor(permit.status(), std::nullopt, max_watch_backlog_);
  return new WatchReactor(operations_->registry().Find(request->world_id()), *std::move(permit), max_watch_backlog_);
}

// ---- QueryStream -------------------------------------------------------------------------

// Reads one CastRaysRequest, answers it, writes the reply, reads the next.
// One request at a time keeps replies in request order. Opening the stream
// is admitted like a call (and holds a call-in-flight slot while open);
// each request is checked again, for its own world and against the rate.
class ArbiterService::QueryStreamReactor final
    : public grpc::ServerBidiReactor<v1::CastRaysRequest, v1::CastRaysResponse> {
 public:
  QueryStreamReactor(ArbiterService* service, grpc::CallbackServerContext* context, absl::StatusOr<Permit> permit)
      : service_(service), context_(context) {
    if (!permit.ok()) {
      Finish(ToGrpc(permit.status()));
      return;
    }
    permit_ = *std::move(permit);
    StartRead(&request_);
  }

  void OnReadDone(bool ok) override {
    if (!ok) {  // the client half-closed (or went away): done
      Finish(grpc::Status::OK);
      return;
    }
    if (absl::Status s = permit_->Recheck(Access::kRead, request_.world_id()); !s.ok()) {
      Finish(ToGrpc(s));
      return;
    }
    // A stream routed for one world must not ask another (it may not be here).
    if (absl::Status s = CheckWorldMetadata(*context_, request_.world_id()); !s.ok()) {
      Finish(ToGrpc(s));
      return;
    }
    reply_.Clear();
    absl::StatusOr<ReadOp> op = service_->operations_->PrepareCastRays(request_, &reply_);
    if (!op.ok()) {
      Finish(ToGrpc(op.status()));
      return;
    }
    const CancelFn cancelled = CancelOf(context_);
    absl::Status status;
    if (op->entry->TryReadLive([&](const World& world) { return op->run(world, cancelled); }, &status)) {
      Reply(std::move(status));
      return;
    }
    auto task = [this, op = std::move(*op), cancelled] {
      Reply(op.entry->ReadLive([&](const World& world) { return op.run(world, cancelled); }));
    };
    if (!service_->pool_->Submit(std::move(task))) Finish(ToGrpc(Unavailable()));
  }

  void OnWriteDone(bool ok) override {
    if (!ok) {
      Finish(ToGrpc(absl::CancelledError("the client went away")));
      return;
    }
    StartRead(&request_);
  }

  void OnDone() override { delete this; }

 private:
  void Reply(absl::Status status) {
    status = service_->CheckReplySize(std::move(status), reply_);
    if (!status.ok()) {
      Finish(ToGrpc(status));
      return;
    }
    StartWrite(&reply_);
  }

  ArbiterService* service_;
  grpc::CallbackServerContext* context_;
  std::optional<Permit> permit_;
  v1::CastRaysRequest request_;
  v1::CastRaysResponse reply_;
};

grpc::ServerBidiReactor<v1::CastRaysRequest, v1::CastRaysResponse>* ArbiterService::QueryStream(
    grpc::CallbackServerContext* context) {
  return new QueryStreamReactor(this, context, Admit(*context, Access::kRead, ""));
}

}  // namespace arbiter::server
