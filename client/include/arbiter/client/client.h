// File: client.h
//
// The C++ client library for arbiter.v1.Arbiter.
//
// ArbiterClient has one method per RPC, taking and returning the wire
// messages (so every raw Q32.32 value stays visible), with results as
// absl::StatusOr: the gRPC status converts to absl::Status at exactly one
// seam (FromGrpcStatus), code and message unchanged. On top of that sit a
// few conveniences (batched uploads, chunked steps with progress) and free
// helpers that build shapes and queries from doubles.
//
// Doubles: every helper converts with arbiter::Fixed::FromDouble (round to
// nearest, ties away from zero), a pure function of the double's bits, so
// the same double becomes the same raw value on every machine. ToDouble is
// exact for |value| < 2^21 and the nearest double beyond.
//
// Thread safety: an ArbiterClient may be used from many threads at once
// (gRPC stubs are thread-safe); EventWatch and RayStream are for one thread.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <grpcpp/grpcpp.h>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "arbiter/core/world.h"
#include "arbiter/v1/arbiter.grpc.pb.h"
#include "arbiter/wire/convert.h"
#include "grpc/health/v1/health.grpc.pb.h"

namespace arbiter::client {

/// The call metadata naming a call's world (arbiter/wire/convert.h), set on
/// every world-scoped call.
using wire::kWorldMetadataKey;

/// grpc::Status -> absl::Status, code for code (both use google.rpc codes).
absl::Status FromGrpcStatus(const grpc::Status& status);

/// TLS settings of a channel, as PEM text (LoadClientTls reads files).
struct ClientTls {
  /// CA certificates that sign the server's certificate; empty: the system's roots.
  std::string root_certs;
  /// A client certificate chain and its key, for servers that require one
  /// (--tls_client_ca); both or neither.
  std::string cert_chain;
  std::string private_key;
};

/// Reads the named PEM files into a ClientTls (empty names stay empty).
/// Errors name the file.
absl::StatusOr<ClientTls> LoadClientTls(const std::string& ca_file, const std::string& cert_file,
                                        const std::string& key_file);

struct ClientOptions {
  /// Deadline of each unary call; zero for none. Streams have none.
  std::chrono::milliseconds timeout{60000};
  /// Largest reply accepted, in bytes (the server has its own limit).
  int max_message_bytes = 64 << 20;
  /// Sent as "authorization: Bearer <token>" with every call and stream;
  /// empty: none (for servers with open access).
  std::string token;
  /// Set: Connect makes a TLS channel; unset: plaintext.
  std::optional<ClientTls> tls;
};

/// Called after each batch or chunk: (done, total).
using ProgressFn = std::function<void(uint64_t done, uint64_t total)>;

/// A WatchEvents stream.
class EventWatch {
 public:
  /// The next tick's events, or nullopt once the stream ended; then Finish()
  /// says why.
  std::optional<v1::TickEvents> Next();
  /// Cancels the stream (from any thread).
  void Cancel() { context_.TryCancel(); }
  /// The stream's final status; call after Next() returned nullopt.
  absl::Status Finish();

 private:
  friend class ArbiterClient;
  grpc::ClientContext context_;
  std::unique_ptr<grpc::ClientReader<v1::TickEvents>> reader_;
};

/// A QueryStream: write CastRaysRequests, read one reply per request, in
/// order.
class RayStream {
 public:
  /// False when the stream is broken (then Finish() says why).
  bool Write(const v1::CastRaysRequest& request) { return stream_->Write(request); }
  /// The next reply, or nullopt when the stream ended.
  std::optional<v1::CastRaysResponse> Read();
  /// Half-closes, drains and returns the final status.
  absl::Status Finish();

 private:
  friend class ArbiterClient;
  grpc::ClientContext context_;
  std::unique_ptr<grpc::ClientReaderWriter<v1::CastRaysRequest, v1::CastRaysResponse>> stream_;
  bool writes_done_ = false;
};

/// An ImportWorldStream (arbiter.proto): the export file in pieces, for a
/// world of any size; nothing changes on the server unless Finish succeeds.
class ImportStream {
 public:
  /// The next bytes of the export file, with the whole file's xxh64 when
  /// known (ExportJournalChunk.file_hash). False when the stream is broken
  /// (the server refused: Finish() says why).
  bool Write(std::string_view data, std::optional<uint64_t> file_hash = std::nullopt);
  /// Half-closes and returns the server's answer: the world imported, or
  /// why not (then nothing changed there).
  absl::StatusOr<v1::ImportWorldResponse> Finish();
  /// Abandons the import (from any thread): the server undoes it, and
  /// Finish() then only collects the stream's end.
  void Cancel() {
    cancelled_ = true;
    context_.TryCancel();
  }

 private:
  friend class ArbiterClient;
  grpc::ClientContext context_;
  v1::ImportWorldResponse reply_;
  std::unique_ptr<grpc::ClientWriter<v1::ImportWorldChunk>> writer_;
  bool first_ = true;
  std::atomic<bool> cancelled_{false};
  v1::ImportWorldRequest request_;  // sent with the first piece
};

class ArbiterClient {
 public:
  /// A channel to `target` ("host:port"): TLS when options.tls is set,
  /// plaintext otherwise. With TLS, the host part is checked against the
  /// server certificate's names (use an address or name it lists).
  static std::unique_ptr<ArbiterClient> Connect(const std::string& target, const ClientOptions& options = {});
  explicit ArbiterClient(std::shared_ptr<grpc::Channel> channel, const ClientOptions& options = {});

  // ---- One method per RPC ---------------------------------------------------------
  absl::StatusOr<v1::CreateWorldResponse> CreateWorld(const v1::CreateWorldRequest& request);
  absl::StatusOr<v1::DeleteWorldResponse> DeleteWorld(const v1::DeleteWorldRequest& request);
  absl::StatusOr<v1::ListWorldsResponse> ListWorlds(const v1::ListWorldsRequest& request = {});
  absl::StatusOr<v1::DescribeWorldResponse> DescribeWorld(const v1::DescribeWorldRequest& request);
  /// Moving a world between instances (admin; arbiter.proto "Moving a
  /// world"). MigrateWorld (fleet.h) drives the whole move.
  absl::StatusOr<v1::FreezeWorldResponse> FreezeWorld(const v1::FreezeWorldRequest& request);
  absl::StatusOr<v1::ImportWorldResponse> ImportWorld(const v1::ImportWorldRequest& request);
  absl::StatusOr<v1::AddBodiesResponse> AddBodies(const v1::AddBodiesRequest& request);
  absl::StatusOr<v1::RemoveBodiesResponse> RemoveBodies(const v1::RemoveBodiesRequest& request);
  absl::StatusOr<v1::UpdateBodiesResponse> UpdateBodies(const v1::UpdateBodiesRequest& request);
  absl::StatusOr<v1::CastRaysResponse> CastRays(const v1::CastRaysRequest& request);
  absl::StatusOr<v1::OverlapResponse> Overlap(const v1::OverlapRequest& request);
  absl::StatusOr<v1::CastShapesResponse> CastShapes(const v1::CastShapesRequest& request);
  /// The nearest bodies to placed shapes, with distances and closest points
  /// (see Distance in arbiter.proto).
  absl::StatusOr<v1::DistanceResponse> Distance(const v1::DistanceRequest& request);
  absl::StatusOr<v1::StepResponse> Step(const v1::StepRequest& request);
  absl::StatusOr<v1::GetStateHashResponse> GetStateHash(const v1::GetStateHashRequest& request);
  absl::StatusOr<v1::GetSnapshotResponse> GetSnapshot(const v1::GetSnapshotRequest& request);
  absl::StatusOr<v1::RestoreResponse> Restore(const v1::RestoreRequest& request);
  absl::StatusOr<v1::ValidateHitResponse> ValidateHit(const v1::ValidateHitRequest& request);
  /// Movement validation: a verdict per claimed path (see MoveVerdict in
  /// arbiter.proto).
  absl::StatusOr<v1::ValidateMoveResponse> ValidateMove(const v1::ValidateMoveRequest& request);
  /// Projectile validation: a judgement per shot, traced through the
  /// history (see ValidateShots in arbiter.proto); a shot sent again gets
  /// its first judgement, marked duplicate.
  absl::StatusOr<v1::ValidateShotsResponse> ValidateShots(const v1::ValidateShotsRequest& request);
  /// Move-and-slide as a query: where each shape ends (see MoveShapes in
  /// arbiter.proto); the world is unchanged.
  absl::StatusOr<v1::MoveShapesResponse> MoveShapes(const v1::MoveShapesRequest& request);
  absl::StatusOr<v1::ReportHashesResponse> ReportHashes(const v1::ReportHashesRequest& request);
  /// The bytes of a journal export file (the whole stream, concatenated);
  /// `progress` gets the bytes received and the whole size after each chunk.
  absl::StatusOr<std::string> ExportJournal(const v1::ExportJournalRequest& request,
                                            const ProgressFn& progress = nullptr);
  /// The export chunk by chunk, for a file of any size: `take` gets each;
  /// a status it returns other than OK cancels the export and is returned.
  absl::Status ExportJournalChunks(const v1::ExportJournalRequest& request,
                                   const std::function<absl::Status(const v1::ExportJournalChunk&)>& take);
  /// Opens an ImportWorldStream for `request`'s world and expectations
  /// (its `journal`, if any, is sent as the file's first bytes).
  std::unique_ptr<ImportStream> OpenImport(const v1::ImportWorldRequest& request);
  /// Opens a WatchEvents stream (events of every tick stepped from now on).
  std::unique_ptr<EventWatch> WatchEvents(const std::string& world_id);
  /// Opens a QueryStream. With `world_id`, the stream is routed for that
  /// world (x-arbiter-world): through a fleet's proxy every request on it
  /// must name that world. Without, requests may name any world of the
  /// server it reaches (direct connections).
  std::unique_ptr<RayStream> OpenQueryStream(const std::string& world_id = "");
  /// grpc.health.v1 Check: true when SERVING.
  absl::StatusOr<bool> CheckHealth(const std::string& service = "");
  /// GetServerInfo: the server's version, limits (size batches by
  /// limits().max_batch and max_message_bytes) and features.
  absl::StatusOr<v1::GetServerInfoResponse> ServerInfo();

  // ---- Conveniences over core types --------------------------------------------------
  /// Adds `bodies` in AddBodies calls of at most `batch` bodies each. Not
  /// atomic as a whole (each call is): on error, earlier batches stay.
  absl::Status AddBodiesInBatches(const std::string& world_id, std::span<const BodyDef> bodies, size_t batch,
                                  const ProgressFn& progress = nullptr);
  /// Steps `ticks` in Step calls of at most `chunk` ticks (events omitted);
  /// returns the last reply (the final tick and hash). Each call names the
  /// tick it starts from (StepRequest.expected_tick), so a chunk resent
  /// after a lost reply (DEADLINE_EXCEEDED, UNAVAILABLE) never steps twice;
  /// a world stepped by someone else meanwhile ends it with
  /// FAILED_PRECONDITION naming the world's tick.
  absl::StatusOr<v1::StepResponse> StepInChunks(const std::string& world_id, uint64_t ticks, uint32_t chunk,
                                                const ProgressFn& progress = nullptr);
  /// The closest hit of one ray, in core types; at the current tick, or at
  /// `at` (a past tick, see MakePastTick).
  absl::StatusOr<std::optional<CastHit>> CastRayClosest(const std::string& world_id, const RayCastInput& ray,
                                                        const std::optional<v1::PastTick>& at = std::nullopt);

  // ---- One query, now or at a past tick --------------------------------------------
  // Each sends a batch of one; `at` absent: the current tick. A tick outside
  // the world's retained window is OUT_OF_RANGE, naming the window.
  absl::StatusOr<v1::CastResult> CastRay(const std::string& world_id, const v1::Ray& ray, v1::CastMode mode,
                                         const std::optional<v1::PastTick>& at = std::nullopt);
  absl::StatusOr<v1::OverlapResult> OverlapOne(const std::string& world_id, const v1::OverlapQuery& query,
                                               const std::optional<v1::PastTick>& at = std::nullopt);
  /// One shape overlap query with each overlap's contact (normal, depth,
  /// points: OverlapContact); `query` must be a shape query.
  absl::StatusOr<v1::OverlapResult> OverlapContacts(const std::string& world_id, const v1::OverlapQuery& query,
                                                    const std::optional<v1::PastTick>& at = std::nullopt);
  /// One distance query: the bodies within `query.max_distance`, nearest first.
  absl::StatusOr<v1::DistanceResult> DistanceOne(const std::string& world_id, const v1::DistanceQuery& query,
                                                 const std::optional<v1::PastTick>& at = std::nullopt);
  absl::StatusOr<v1::CastResult> CastShape(const std::string& world_id, const v1::ShapeCast& cast, v1::CastMode mode,
                                           const std::optional<v1::PastTick>& at = std::nullopt);
  /// Judges a shot (ValidateHit): `ray` fired by `shooter_body_id` (whose
  /// shapes are ignored) at the claimed `target_body_id`, against the world
  /// at `at`. The reply holds the verdict and its evidence (first_hit,
  /// target_hit).
  absl::StatusOr<v1::ValidateHitResponse> ValidateHit(const std::string& world_id, uint64_t shooter_body_id,
                                                      uint64_t target_body_id, const v1::Ray& ray,
                                                      const std::optional<v1::PastTick>& at = std::nullopt);
  /// A lockstep peer's state hashes after stepping into first_tick,
  /// first_tick + 1, ... against the server's (ReportHashes).
  absl::StatusOr<v1::ReportHashesResponse> ReportHashes(const std::string& world_id, int64_t first_tick,
                                                        std::span<const uint64_t> state_hashes);

 private:
  /// One chunk of StepInChunks: resends after a lost reply, and takes a
  /// refusal of the resend at exactly `ticks` further as the lost attempt
  /// having been applied.
  absl::StatusOr<v1::StepResponse> StepOnce(const v1::StepRequest& request);
  /// A context with this client's deadline and token.
  void Prepare(grpc::ClientContext* context) const;
  /// A stream's context: the token, no deadline.
  void AddToken(grpc::ClientContext* context) const;

  ClientOptions options_;
  std::shared_ptr<grpc::Channel> channel_;
  std::unique_ptr<v1::Arbiter::Stub> stub_;
  std::unique_ptr<grpc::health::v1::Health::Stub> health_;
};

// ---- Building requests from doubles ------------------------------------------------------

/// The raw Q32.32 value nearest to `v` (Fixed::FromDouble; saturates).
int64_t ToRaw(double v);
/// raw * 2^-32.
double ToDouble(int64_t raw);
/// A past moment for a query's `at`: `tick`, plus `fraction` of the way to
/// tick + 1 (in [0, 1), converted exactly by Fixed::FromDouble).
/// INVALID_ARGUMENT naming the field for a negative tick, a negative or
/// non-finite fraction, or one that is not below 1 after rounding to Q32.32
/// (the largest double below 1 rounds to 1).
absl::StatusOr<v1::PastTick> MakePastTick(int64_t tick, double fraction = 0);
v1::Vec2 MakeVec2(double x, double y);
/// The rotation by `radians`, from the core's deterministic sine and cosine.
v1::Rot MakeRotation(double radians);
v1::Transform MakeTransform(double x, double y, double radians = 0);
v1::Shape MakeCircle(double radius, double center_x = 0, double center_y = 0);
v1::Shape MakeBox(double half_width, double half_height);
/// Counter-clockwise points {x, y}.
v1::Shape MakePolygon(const std::vector<std::pair<double, double>>& points, double radius = 0);
v1::Shape MakeCapsule(double x1, double y1, double x2, double y2, double radius);
v1::Shape MakeSegment(double x1, double y1, double x2, double y2);
v1::Ray MakeRay(double origin_x, double origin_y, double translation_x, double translation_y);
v1::OverlapQuery MakePointQuery(double x, double y);
v1::OverlapQuery MakeAabbQuery(double lower_x, double lower_y, double upper_x, double upper_y);
v1::OverlapQuery MakeShapeQuery(const v1::Shape& shape, const v1::Transform& transform);
v1::ShapeCast MakeShapeCast(const v1::Shape& shape, const v1::Transform& transform, double translation_x,
                            double translation_y);
/// A body with one shape at (x, y).
v1::BodyDef MakeBody(uint64_t id, v1::BodyType type, double x, double y, const v1::Shape& shape);

}  // namespace arbiter::client
