#include "arbiter/client/client.h"

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <sstream>

#include "arbiter/core/fixed_math.h"
#include "arbiter/wire/convert.h"

namespace arbiter::client {

absl::Status FromGrpcStatus(const grpc::Status& status) {
  if (status.ok()) return absl::OkStatus();
  return absl::Status(static_cast<absl::StatusCode>(status.error_code()), status.error_message());
}

namespace {

// The one way every unary call goes: call the stub, convert the status.
template <class Reply, class Call>
absl::StatusOr<Reply> Invoke(Call&& call) {
  Reply reply;
  const grpc::Status status = call(&reply);
  if (!status.ok()) return FromGrpcStatus(status);
  return reply;
}

// Every world-scoped call carries its world id as x-arbiter-world, so a
// fleet's proxy can route it (issue 16; the server checks the two agree).
template <class Request>
void RouteTo(grpc::ClientContext* context, const Request& request) {
  if constexpr (requires { request.world_id(); }) {
    if (!request.world_id().empty()) context->AddMetadata(std::string(kWorldMetadataKey), request.world_id());
  }
}

}  // namespace

#define ARBITER_CLIENT_UNARY(Method, Request, Reply)                                                 \
  absl::StatusOr<v1::Reply> ArbiterClient::Method(const v1::Request& request) {                      \
    return Invoke<v1::Reply>([&](v1::Reply* reply) {                                                 \
      grpc::ClientContext context;                                                                   \
      Prepare(&context);                                                                             \
      RouteTo(&context, request);                                                                    \
      return stub_->Method(&context, request, reply);                                                \
    });                                                                                              \
  }

ARBITER_CLIENT_UNARY(CreateWorld, CreateWorldRequest, CreateWorldResponse)
ARBITER_CLIENT_UNARY(DeleteWorld, DeleteWorldRequest, DeleteWorldResponse)
ARBITER_CLIENT_UNARY(ListWorlds, ListWorldsRequest, ListWorldsResponse)
ARBITER_CLIENT_UNARY(FreezeWorld, FreezeWorldRequest, FreezeWorldResponse)
ARBITER_CLIENT_UNARY(ImportWorld, ImportWorldRequest, ImportWorldResponse)
ARBITER_CLIENT_UNARY(DescribeWorld, DescribeWorldRequest, DescribeWorldResponse)
ARBITER_CLIENT_UNARY(AddBodies, AddBodiesRequest, AddBodiesResponse)
ARBITER_CLIENT_UNARY(RemoveBodies, RemoveBodiesRequest, RemoveBodiesResponse)
ARBITER_CLIENT_UNARY(UpdateBodies, UpdateBodiesRequest, UpdateBodiesResponse)
ARBITER_CLIENT_UNARY(CastRays, CastRaysRequest, CastRaysResponse)
ARBITER_CLIENT_UNARY(Overlap, OverlapRequest, OverlapResponse)
ARBITER_CLIENT_UNARY(CastShapes, CastShapesRequest, CastShapesResponse)
ARBITER_CLIENT_UNARY(Step, StepRequest, StepResponse)
ARBITER_CLIENT_UNARY(GetStateHash, GetStateHashRequest, GetStateHashResponse)
ARBITER_CLIENT_UNARY(GetSnapshot, GetSnapshotRequest, GetSnapshotResponse)
ARBITER_CLIENT_UNARY(Restore, RestoreRequest, RestoreResponse)
ARBITER_CLIENT_UNARY(ValidateHit, ValidateHitRequest, ValidateHitResponse)
ARBITER_CLIENT_UNARY(ValidateMove, ValidateMoveRequest, ValidateMoveResponse)
ARBITER_CLIENT_UNARY(ValidateShots, ValidateShotsRequest, ValidateShotsResponse)
ARBITER_CLIENT_UNARY(MoveShapes, MoveShapesRequest, MoveShapesResponse)
ARBITER_CLIENT_UNARY(Distance, DistanceRequest, DistanceResponse)
ARBITER_CLIENT_UNARY(ReportHashes, ReportHashesRequest, ReportHashesResponse)

#undef ARBITER_CLIENT_UNARY

absl::StatusOr<std::string> ArbiterClient::ExportJournal(const v1::ExportJournalRequest& request,
                                                         const ProgressFn& progress) {
  std::string file;
  absl::Status s = ExportJournalChunks(request, [&](const v1::ExportJournalChunk& chunk) {
    file += chunk.data();
    if (progress) progress(file.size(), chunk.total_bytes());
    return absl::OkStatus();
  });
  if (!s.ok()) return s;
  return file;
}

absl::Status ArbiterClient::ExportJournalChunks(
    const v1::ExportJournalRequest& request, const std::function<absl::Status(const v1::ExportJournalChunk&)>& take) {
  grpc::ClientContext context;
  Prepare(&context);
  RouteTo(&context, request);
  std::unique_ptr<grpc::ClientReader<v1::ExportJournalChunk>> reader = stub_->ExportJournal(&context, request);
  v1::ExportJournalChunk chunk;
  absl::Status taken;
  while (taken.ok() && reader->Read(&chunk)) taken = take(chunk);
  if (!taken.ok()) {
    context.TryCancel();
    (void)reader->Finish();
    return taken;
  }
  return FromGrpcStatus(reader->Finish());
}

std::unique_ptr<ImportStream> ArbiterClient::OpenImport(const v1::ImportWorldRequest& request) {
  auto stream = std::make_unique<ImportStream>();
  // A stream has no deadline: a large world takes as long as it takes.
  AddToken(&stream->context_);
  RouteTo(&stream->context_, request);
  stream->request_ = request;
  stream->writer_ = stub_->ImportWorldStream(&stream->context_, &stream->reply_);
  return stream;
}

bool ImportStream::Write(std::string_view data, std::optional<uint64_t> file_hash) {
  v1::ImportWorldChunk chunk;
  if (first_) {
    *chunk.mutable_request() = std::move(request_);
    first_ = false;
  }
  chunk.set_data(data.data(), data.size());
  if (file_hash.has_value()) chunk.set_file_hash(*file_hash);
  return writer_->Write(chunk);
}

absl::StatusOr<v1::ImportWorldResponse> ImportStream::Finish() {
  if (!cancelled_) {
    if (first_) (void)Write({});  // the request travels even with no bytes
    writer_->WritesDone();
  }
  const grpc::Status status = writer_->Finish();
  if (!status.ok()) return FromGrpcStatus(status);
  return reply_;
}

absl::StatusOr<ClientTls> LoadClientTls(const std::string& ca_file, const std::string& cert_file,
                                        const std::string& key_file) {
  ClientTls tls;
  const std::pair<const std::string*, std::string*> files[] = {
      {&ca_file, &tls.root_certs}, {&cert_file, &tls.cert_chain}, {&key_file, &tls.private_key}};
  for (const auto& [name, pem] : files) {
    if (name->empty()) continue;
    std::ifstream in(*name, std::ios::binary);
    std::ostringstream text;
    if (in) text << in.rdbuf();
    if (!in || text.str().empty()) return absl::InvalidArgumentError("cannot read PEM file '" + *name + "'");
    *pem = text.str();
  }
  if (tls.cert_chain.empty() != tls.private_key.empty()) {
    return absl::InvalidArgumentError("a client certificate needs its key, and a key its certificate");
  }
  return tls;
}

std::unique_ptr<ArbiterClient> ArbiterClient::Connect(const std::string& target, const ClientOptions& options) {
  grpc::ChannelArguments args;
  args.SetMaxReceiveMessageSize(options.max_message_bytes);
  args.SetMaxSendMessageSize(options.max_message_bytes);
  std::shared_ptr<grpc::ChannelCredentials> credentials = grpc::InsecureChannelCredentials();
  if (options.tls) {
    grpc::SslCredentialsOptions ssl;
    ssl.pem_root_certs = options.tls->root_certs;
    ssl.pem_cert_chain = options.tls->cert_chain;
    ssl.pem_private_key = options.tls->private_key;
    credentials = grpc::SslCredentials(ssl);
  }
  return std::make_unique<ArbiterClient>(grpc::CreateCustomChannel(target, credentials, args), options);
}

ArbiterClient::ArbiterClient(std::shared_ptr<grpc::Channel> channel, const ClientOptions& options)
    : options_(options),
      channel_(std::move(channel)),
      stub_(v1::Arbiter::NewStub(channel_)),
      health_(grpc::health::v1::Health::NewStub(channel_)) {}

void ArbiterClient::Prepare(grpc::ClientContext* context) const {
  if (options_.timeout.count() > 0) context->set_deadline(std::chrono::system_clock::now() + options_.timeout);
  AddToken(context);
}

void ArbiterClient::AddToken(grpc::ClientContext* context) const {
  // Plain metadata rather than grpc::AccessTokenCredentials: gRPC refuses
  // call credentials on plaintext channels, and loopback servers are plaintext.
  if (!options_.token.empty()) context->AddMetadata("authorization", "Bearer " + options_.token);
}

std::unique_ptr<EventWatch> ArbiterClient::WatchEvents(const std::string& world_id) {
  auto watch = std::make_unique<EventWatch>();
  v1::WatchEventsRequest request;
  request.set_world_id(world_id);
  AddToken(&watch->context_);
  RouteTo(&watch->context_, request);
  watch->reader_ = stub_->WatchEvents(&watch->context_, request);
  return watch;
}

std::optional<v1::TickEvents> EventWatch::Next() {
  v1::TickEvents events;
  if (!reader_->Read(&events)) return std::nullopt;
  return events;
}

absl::Status EventWatch::Finish() { return FromGrpcStatus(reader_->Finish()); }

std::unique_ptr<RayStream> ArbiterClient::OpenQueryStream(const std::string& world_id) {
  auto stream = std::make_unique<RayStream>();
  AddToken(&stream->context_);
  if (!world_id.empty()) stream->context_.AddMetadata(std::string(kWorldMetadataKey), world_id);
  stream->stream_ = stub_->QueryStream(&stream->context_);
  return stream;
}

std::optional<v1::CastRaysResponse> RayStream::Read() {
  v1::CastRaysResponse reply;
  if (!stream_->Read(&reply)) return std::nullopt;
  return reply;
}

absl::Status RayStream::Finish() {
  if (!writes_done_) {
    stream_->WritesDone();
    writes_done_ = true;
  }
  v1::CastRaysResponse ignored;
  while (stream_->Read(&ignored)) {
  }
  return FromGrpcStatus(stream_->Finish());
}

absl::StatusOr<bool> ArbiterClient::CheckHealth(const std::string& service) {
  grpc::health::v1::HealthCheckRequest request;
  request.set_service(service);
  absl::StatusOr<grpc::health::v1::HealthCheckResponse> reply =
      Invoke<grpc::health::v1::HealthCheckResponse>([&](grpc::health::v1::HealthCheckResponse* r) {
        grpc::ClientContext context;
        Prepare(&context);
        return health_->Check(&context, request, r);
      });
  if (!reply.ok()) return reply.status();
  return reply->status() == grpc::health::v1::HealthCheckResponse::SERVING;
}

absl::Status ArbiterClient::AddBodiesInBatches(const std::string& world_id, std::span<const BodyDef> bodies,
                                               size_t batch, const ProgressFn& progress) {
  batch = std::max<size_t>(batch, 1);
  for (size_t start = 0; start < bodies.size(); start += batch) {
    v1::AddBodiesRequest request;
    request.set_world_id(world_id);
    const size_t end = std::min(bodies.size(), start + batch);
    request.mutable_bodies()->Reserve(static_cast<int>(end - start));
    for (size_t i = start; i < end; ++i) wire::ToProto(bodies[i], request.add_bodies());
    if (absl::StatusOr<v1::AddBodiesResponse> reply = AddBodies(request); !reply.ok()) {
      const absl::Status& s = reply.status();
      // Say which body of the whole list the server's index refers to.
      return absl::Status(s.code(), "batch starting at body " + std::to_string(start) + ": " + std::string(s.message()));
    }
    if (progress) progress(end, bodies.size());
  }
  return absl::OkStatus();
}

absl::StatusOr<v1::StepResponse> ArbiterClient::StepInChunks(const std::string& world_id, uint64_t ticks,
                                                             uint32_t chunk, const ProgressFn& progress) {
  chunk = std::max<uint32_t>(chunk, 1);
  v1::GetStateHashRequest where;
  where.set_world_id(world_id);
  absl::StatusOr<v1::GetStateHashResponse> start = GetStateHash(where);
  if (!start.ok()) return start.status();
  v1::StepResponse last;
  last.set_tick(start->tick());
  last.set_state_hash(start->state_hash());
  for (uint64_t done = 0; done < ticks;) {
    v1::StepRequest request;
    request.set_world_id(world_id);
    const uint32_t n = static_cast<uint32_t>(std::min<uint64_t>(chunk, ticks - done));
    request.set_ticks(n);
    request.set_omit_events(true);
    request.set_expected_tick(last.tick());
    absl::StatusOr<v1::StepResponse> reply = StepOnce(request);
    if (!reply.ok()) return reply.status();
    last = std::move(*reply);
    done += n;
    if (progress) progress(done, ticks);
  }
  return last;
}

namespace {

// A step that failed so may have been applied with its reply lost.
bool ReplyMayBeLost(const absl::Status& s) {
  return s.code() == absl::StatusCode::kDeadlineExceeded || s.code() == absl::StatusCode::kUnavailable;
}

constexpr int kStepAttempts = 3;

}  // namespace

absl::StatusOr<v1::StepResponse> ArbiterClient::StepOnce(const v1::StepRequest& request) {
  absl::StatusOr<v1::StepResponse> reply = Step(request);
  for (int attempt = 1; attempt < kStepAttempts && !reply.ok() && ReplyMayBeLost(reply.status()); ++attempt) {
    // Resent unchanged: if the lost attempt was applied, the world has left
    // expected_tick and the resend is refused instead of stepping again.
    reply = Step(request);
    if (reply.ok() || reply.status().code() != absl::StatusCode::kFailedPrecondition) continue;
    // Refused: the world is `ticks` further when that was our lost attempt
    // (or, indistinguishably, another caller's step of the same length).
    v1::GetStateHashRequest where;
    where.set_world_id(request.world_id());
    absl::StatusOr<v1::GetStateHashResponse> now = GetStateHash(where);
    if (now.ok() && now->tick() == request.expected_tick() + request.ticks()) {
      v1::StepResponse applied;
      applied.set_tick(now->tick());
      applied.set_state_hash(now->state_hash());
      return applied;
    }
  }
  return reply;
}

absl::StatusOr<std::optional<CastHit>> ArbiterClient::CastRayClosest(const std::string& world_id,
                                                                    const RayCastInput& ray,
                                                                    const std::optional<v1::PastTick>& at) {
  v1::Ray r;
  wire::ToProto(ray.origin, r.mutable_origin());
  wire::ToProto(ray.translation, r.mutable_translation());
  r.set_max_fraction(ray.max_fraction.raw());
  absl::StatusOr<v1::CastResult> result = CastRay(world_id, r, v1::CAST_MODE_CLOSEST, at);
  if (!result.ok()) return result.status();
  if (result->hits_size() == 0) return std::optional<CastHit>();
  return std::optional<CastHit>(wire::FromProto(result->hits(0)));
}

namespace {

// The one result of a batch of one; INTERNAL if the server broke that.
template <class Result, class Reply>
absl::StatusOr<Result> OnlyResult(absl::StatusOr<Reply> reply, const char* rpc) {
  if (!reply.ok()) return reply.status();
  if (reply->results_size() != 1) return absl::InternalError(std::string(rpc) + ": expected one result");
  return reply->results(0);
}

}  // namespace

absl::StatusOr<v1::CastResult> ArbiterClient::CastRay(const std::string& world_id, const v1::Ray& ray,
                                                      v1::CastMode mode, const std::optional<v1::PastTick>& at) {
  v1::CastRaysRequest request;
  request.set_world_id(world_id);
  request.set_mode(mode);
  *request.add_rays() = ray;
  if (at) *request.mutable_at() = *at;
  return OnlyResult<v1::CastResult>(CastRays(request), "CastRays");
}

absl::StatusOr<v1::OverlapResult> ArbiterClient::OverlapOne(const std::string& world_id,
                                                            const v1::OverlapQuery& query,
                                                            const std::optional<v1::PastTick>& at) {
  v1::OverlapRequest request;
  request.set_world_id(world_id);
  *request.add_queries() = query;
  if (at) *request.mutable_at() = *at;
  return OnlyResult<v1::OverlapResult>(Overlap(request), "Overlap");
}

absl::StatusOr<v1::OverlapResult> ArbiterClient::OverlapContacts(const std::string& world_id,
                                                                 const v1::OverlapQuery& query,
                                                                 const std::optional<v1::PastTick>& at) {
  v1::OverlapRequest request;
  request.set_world_id(world_id);
  request.set_want_contacts(true);
  *request.add_queries() = query;
  if (at) *request.mutable_at() = *at;
  return OnlyResult<v1::OverlapResult>(Overlap(request), "Overlap");
}

absl::StatusOr<v1::DistanceResult> ArbiterClient::DistanceOne(const std::string& world_id,
                                                              const v1::DistanceQuery& query,
                                                              const std::optional<v1::PastTick>& at) {
  v1::DistanceRequest request;
  request.set_world_id(world_id);
  *request.add_queries() = query;
  if (at) *request.mutable_at() = *at;
  return OnlyResult<v1::DistanceResult>(Distance(request), "Distance");
}

absl::StatusOr<v1::CastResult> ArbiterClient::CastShape(const std::string& world_id, const v1::ShapeCast& cast,
                                                        v1::CastMode mode, const std::optional<v1::PastTick>& at) {
  v1::CastShapesRequest request;
  request.set_world_id(world_id);
  request.set_mode(mode);
  *request.add_casts() = cast;
  if (at) *request.mutable_at() = *at;
  return OnlyResult<v1::CastResult>(CastShapes(request), "CastShapes");
}

absl::StatusOr<v1::ValidateHitResponse> ArbiterClient::ValidateHit(const std::string& world_id,
                                                                   uint64_t shooter_body_id, uint64_t target_body_id,
                                                                   const v1::Ray& ray,
                                                                   const std::optional<v1::PastTick>& at) {
  v1::ValidateHitRequest request;
  request.set_world_id(world_id);
  request.set_shooter_body_id(shooter_body_id);
  request.set_target_body_id(target_body_id);
  *request.mutable_ray() = ray;
  if (at) *request.mutable_at() = *at;
  return ValidateHit(request);
}

absl::StatusOr<v1::ReportHashesResponse> ArbiterClient::ReportHashes(const std::string& world_id, int64_t first_tick,
                                                                     std::span<const uint64_t> state_hashes) {
  v1::ReportHashesRequest request;
  request.set_world_id(world_id);
  request.set_first_tick(first_tick);
  request.mutable_state_hashes()->Add(state_hashes.begin(), state_hashes.end());
  return ReportHashes(request);
}

// ---- Helpers ------------------------------------------------------------------------------

int64_t ToRaw(double v) { return Fixed::FromDouble(v).raw(); }
double ToDouble(int64_t raw) { return Fixed::FromRaw(raw).ToDouble(); }

absl::StatusOr<v1::PastTick> MakePastTick(int64_t tick, double fraction) {
  if (tick < 0) return absl::InvalidArgumentError("at.tick: " + std::to_string(tick) + " is negative");
  // Checked after the exact conversion: a fraction just below 1 that
  // rounds to 1.0 in Q32.32 is refused too (the wire takes [0, 1)).
  // Negative input is refused even when it would round to 0 (a caller's
  // sign error, not a moment).
  const bool in_range =
      Fixed::IsRepresentable(fraction) && !(fraction < 0) && Fixed::FromDouble(fraction) < kFixedOne;
  if (!in_range) {
    char text[64];
    std::snprintf(text, sizeof(text), "%.17g", fraction);
    return absl::InvalidArgumentError(std::string("at.fraction: ") + text +
                                      " is outside [0, 1) (after rounding to Q32.32)");
  }
  v1::PastTick at;
  at.set_tick(tick);
  at.set_fraction(Fixed::FromDouble(fraction).raw());
  return at;
}

v1::Vec2 MakeVec2(double x, double y) {
  v1::Vec2 v;
  v.set_x(ToRaw(x));
  v.set_y(ToRaw(y));
  return v;
}

v1::Rot MakeRotation(double radians) {
  v1::Rot r;
  wire::ToProto(MakeRot(Fixed::FromDouble(radians)), &r);
  return r;
}

v1::Transform MakeTransform(double x, double y, double radians) {
  v1::Transform t;
  *t.mutable_position() = MakeVec2(x, y);
  if (radians != 0) *t.mutable_rotation() = MakeRotation(radians);
  return t;
}

v1::Shape MakeCircle(double radius, double center_x, double center_y) {
  v1::Shape s;
  *s.mutable_circle()->mutable_center() = MakeVec2(center_x, center_y);
  s.mutable_circle()->set_radius(ToRaw(radius));
  return s;
}

v1::Shape MakeBox(double half_width, double half_height) {
  v1::Shape s;
  *s.mutable_box()->mutable_half_extents() = MakeVec2(half_width, half_height);
  return s;
}

v1::Shape MakePolygon(const std::vector<std::pair<double, double>>& points, double radius) {
  v1::Shape s;
  for (const auto& [x, y] : points) *s.mutable_polygon()->add_points() = MakeVec2(x, y);
  s.mutable_polygon()->set_radius(ToRaw(radius));
  return s;
}

v1::Shape MakeCapsule(double x1, double y1, double x2, double y2, double radius) {
  v1::Shape s;
  *s.mutable_capsule()->mutable_center1() = MakeVec2(x1, y1);
  *s.mutable_capsule()->mutable_center2() = MakeVec2(x2, y2);
  s.mutable_capsule()->set_radius(ToRaw(radius));
  return s;
}

v1::Shape MakeSegment(double x1, double y1, double x2, double y2) {
  v1::Shape s;
  *s.mutable_segment()->mutable_point1() = MakeVec2(x1, y1);
  *s.mutable_segment()->mutable_point2() = MakeVec2(x2, y2);
  return s;
}

v1::Ray MakeRay(double origin_x, double origin_y, double translation_x, double translation_y) {
  v1::Ray r;
  *r.mutable_origin() = MakeVec2(origin_x, origin_y);
  *r.mutable_translation() = MakeVec2(translation_x, translation_y);
  return r;
}

v1::OverlapQuery MakePointQuery(double x, double y) {
  v1::OverlapQuery q;
  *q.mutable_point() = MakeVec2(x, y);
  return q;
}

v1::OverlapQuery MakeAabbQuery(double lower_x, double lower_y, double upper_x, double upper_y) {
  v1::OverlapQuery q;
  *q.mutable_aabb()->mutable_lower() = MakeVec2(lower_x, lower_y);
  *q.mutable_aabb()->mutable_upper() = MakeVec2(upper_x, upper_y);
  return q;
}

v1::OverlapQuery MakeShapeQuery(const v1::Shape& shape, const v1::Transform& transform) {
  v1::OverlapQuery q;
  *q.mutable_shape()->mutable_shape() = shape;
  *q.mutable_shape()->mutable_transform() = transform;
  return q;
}

v1::ShapeCast MakeShapeCast(const v1::Shape& shape, const v1::Transform& transform, double translation_x,
                            double translation_y) {
  v1::ShapeCast c;
  *c.mutable_shape() = shape;
  *c.mutable_transform() = transform;
  *c.mutable_translation() = MakeVec2(translation_x, translation_y);
  return c;
}

v1::BodyDef MakeBody(uint64_t id, v1::BodyType type, double x, double y, const v1::Shape& shape) {
  v1::BodyDef b;
  b.set_id(id);
  b.set_type(type);
  *b.mutable_transform() = MakeTransform(x, y);
  *b.add_shapes()->mutable_shape() = shape;
  return b;
}

absl::StatusOr<v1::GetServerInfoResponse> ArbiterClient::ServerInfo() {
  return Invoke<v1::GetServerInfoResponse>([&](v1::GetServerInfoResponse* reply) {
    grpc::ClientContext context;
    Prepare(&context);
    return stub_->GetServerInfo(&context, v1::GetServerInfoRequest(), reply);
  });
}

}  // namespace arbiter::client
