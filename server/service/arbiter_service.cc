#include "service/arbiter_service.h"
#include "service/world_metadata.h"

#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <type_traits>
#include <utility>

#include "journal/journal_export.h"
#include "journal/world_import.h"
#include "ops/status_convert.h"

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

absl::StatusOr<Permit> ArbiterService::Admit(const grpc::CallbackServerContext& context, Rpc rpc,
                                             std::string_view world_id) {
  const Access access = Describe(rpc).role;
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
// Each admits the caller by its row of the RPC table, then runs a read
// (Prepare*: validated now, run under the world's shared lock) or a change
// (on a worker: it may wait for the world's lock).

template <class Request, class Reply>
grpc::ServerUnaryReactor* ArbiterService::Read(grpc::CallbackServerContext* context, Rpc rpc, const Request* request,
                                               Reply* reply, Prepare<Request, Reply> prepare) {
  absl::StatusOr<Permit> permit = Admit(*context, rpc, request->world_id());
  if (!permit.ok()) return Refuse(context, permit.status());
  return RunRead(context, *std::move(permit), (operations_->*prepare)(*request, reply), reply);
}

template <class Request, class Reply, class Work>
grpc::ServerUnaryReactor* ArbiterService::Change(grpc::CallbackServerContext* context, Rpc rpc, const Request* request,
                                                 Reply* reply, Work work) {
  absl::StatusOr<Permit> permit = Admit(*context, rpc, request->world_id());
  if (!permit.ok()) return Refuse(context, permit.status());
  return RunOnPool(context, *std::move(permit), reply,
                   [this, request, reply, work](const CancelFn& cancelled) {
                     if constexpr (std::is_invocable_v<Work, Operations*, const Request&, Reply*, const CancelFn&>) {
                       return std::invoke(work, operations_, *request, reply, cancelled);
                     } else {
                       return std::invoke(work, operations_, *request, reply);
                     }
                   });
}

// The unary calls that are nothing but their row of the RPC table and their
// operation: a read runs Operations::Prepare<Name>, a change
// Operations::<Name> (or the function named).
#define ARBITER_UNARY_READ(Name)                                                                        \
  grpc::ServerUnaryReactor* ArbiterService::Name(grpc::CallbackServerContext* context,                  \
                                                 const v1::Name##Request* request, v1::Name##Response* reply) { \
    return Read(context, Rpc::k##Name, request, reply, &Operations::Prepare##Name);                     \
  }
#define ARBITER_UNARY_CHANGE(Name, work)                                                                \
  grpc::ServerUnaryReactor* ArbiterService::Name(grpc::CallbackServerContext* context,                  \
                                                 const v1::Name##Request* request, v1::Name##Response* reply) { \
    return Change(context, Rpc::k##Name, request, reply, work);                                         \
  }

ARBITER_UNARY_READ(DescribeWorld)
ARBITER_UNARY_READ(CastRays)
ARBITER_UNARY_READ(Overlap)
ARBITER_UNARY_READ(CastShapes)
ARBITER_UNARY_READ(Distance)
ARBITER_UNARY_READ(GetStateHash)
ARBITER_UNARY_READ(ValidateHit)
ARBITER_UNARY_READ(ValidateMove)
ARBITER_UNARY_READ(MoveShapes)
ARBITER_UNARY_READ(ReportHashes)
ARBITER_UNARY_READ(GetSnapshot)
ARBITER_UNARY_CHANGE(CreateWorld, &Operations::CreateWorld)
ARBITER_UNARY_CHANGE(DeleteWorld, &Operations::DeleteWorld)
ARBITER_UNARY_CHANGE(AddBodies, &Operations::AddBodies)
ARBITER_UNARY_CHANGE(RemoveBodies, &Operations::RemoveBodies)
ARBITER_UNARY_CHANGE(UpdateBodies, &Operations::UpdateBodies)
ARBITER_UNARY_CHANGE(Step, &Operations::Step)
ARBITER_UNARY_CHANGE(Restore, &Operations::Restore)
ARBITER_UNARY_CHANGE(FreezeWorld, &Operations::FreezeWorld)
ARBITER_UNARY_CHANGE(ImportWorld, &server::ImportWorld)

#undef ARBITER_UNARY_READ
#undef ARBITER_UNARY_CHANGE

grpc::ServerUnaryReactor* ArbiterService::ListWorlds(grpc::CallbackServerContext* context,
                                                     const v1::ListWorldsRequest* request, v1::ListWorldsResponse* reply) {
  absl::StatusOr<Permit> permit = Admit(*context, Rpc::kListWorlds, "");
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

grpc::ServerUnaryReactor* ArbiterService::ValidateShots(grpc::CallbackServerContext* context,
                                                        const v1::ValidateShotsRequest* request,
                                                        v1::ValidateShotsResponse* reply) {
  absl::StatusOr<Permit> permit = Admit(*context, Rpc::kValidateShots, request->world_id());
  if (!permit.ok()) return Refuse(context, permit.status());
  const std::optional<uint32_t> rewind_ms = permit->max_rewind_ms();
  return RunRead(context, *std::move(permit), operations_->PrepareValidateShots(*request, rewind_ms, reply), reply);
}

// Fixed at start, so answered inline, also while the journal recovers: a
// client sizes its batches before it has any world to call.
grpc::ServerUnaryReactor* ArbiterService::GetServerInfo(grpc::CallbackServerContext* context,
                                                        const v1::GetServerInfoRequest* /*request*/,
                                                        v1::GetServerInfoResponse* reply) {
  absl::StatusOr<Permit> permit = Admit(*context, Rpc::kGetServerInfo, "");
  if (!permit.ok()) return Refuse(context, permit.status());
  *reply = info_;
  grpc::ServerUnaryReactor* reactor = context->DefaultReactor();
  reactor->Finish(grpc::Status::OK);
  return reactor;
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
      if (absl::Status s = permit_->Recheck(Describe(Rpc::kImportWorldStream).role, request.world_id()); !s.ok()) return s;
      if (absl::Status s = CheckWorldMetadata(*context_, request.world_id()); !s.ok()) return s;
      absl::StatusOr<std::unique_ptr<WorldImport>> import = WorldImport::Begin(service_->operations_, request);
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
  return new ImportReactor(this, context, response, Admit(*context, Rpc::kImportWorldStream, ""));
}

grpc::ServerWriteReactor<v1::ExportJournalChunk>* ArbiterService::ExportJournal(
    grpc::CallbackServerContext* context, const v1::ExportJournalRequest* request) {
  return new ExportReactor(this, context, request, Admit(*context, Rpc::kExportJournal, request->world_id()));
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
  absl::StatusOr<Permit> permit = Admit(*context, Rpc::kWatchEvents, request->world_id());
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
    if (absl::Status s = permit_->Recheck(Describe(Rpc::kQueryStream).role, request_.world_id()); !s.ok()) {
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
  return new QueryStreamReactor(this, context, Admit(*context, Rpc::kQueryStream, ""));
}

}  // namespace arbiter::server
