// Reads: each Prepare* parses and checks a query without any lock and returns
// the ReadOp that answers it under the world's shared lock (live or at a past
// tick), recording it when --journal_queries is on.
#include "ops/operations.h"

#include <algorithm>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "arbiter/core/query_collectors.h"
#include "arbiter/wire/convert.h"
#include "ops/parallel_casts.h"
#include "ops/request_checks.h"
#include "ops/status_convert.h"
#include "ops/world_records.h"

namespace arbiter::server {
namespace {

using wire::OwnedQueryFilter;

struct ParsedRays {
  OwnedQueryFilter filter;
  std::vector<RayCastInput> rays;
  CastMode mode = CastMode::kClosest;
  bool columns = false;
};

void AppendRow(v1::HitColumns* c, size_t query, const CastHit& h) {
  c->add_query_index(static_cast<uint32_t>(query));
  c->add_body_id(h.shape.body_id);
  c->add_shape_index(h.shape.shape_index);
  c->add_user_tag(h.user_tag);
  c->add_fraction(h.fraction.raw());
  c->add_point_x(h.point.x.raw());
  c->add_point_y(h.point.y.raw());
  c->add_normal_x(h.normal.x.raw());
  c->add_normal_y(h.normal.y.raw());
}

void AppendResult(v1::CastResult* r, bool hit, std::span<const CastHit> hits) {
  r->set_hit(hit);
  for (const CastHit& h : hits) wire::ToProto(h, r->add_hits());
}

absl::Status RunCastRays(const World& world, const ParsedRays& p, uint32_t threads, v1::CastRaysResponse* reply,
                         const CancelFn& cancelled) {
  reply->set_tick(world.tick());
  const QueryFilter filter = p.filter.Get();
  v1::HitColumns* columns = p.columns ? reply->mutable_columns() : nullptr;
  if (!p.columns) reply->mutable_results()->Reserve(static_cast<int>(p.rays.size()));
  const std::span<const RayCastInput> rays(p.rays);
  return AnswerCasts(
      rays.size(), threads, cancelled,
      [&](size_t start, size_t n, const CastSink& sink) {
        CollectCasts(p.mode, n, [&](size_t i, CastCollector& c) { world.CastRay(rays[start + i], filter, c); }, sink);
      },
      [&](size_t query, bool hit, std::span<const CastHit> hits) {
        if (columns == nullptr) return AppendResult(reply->add_results(), hit, hits);
        // ANY reports no hits: its row is the query index alone.
        if (hit && hits.empty()) columns->add_query_index(static_cast<uint32_t>(query));
        for (const CastHit& h : hits) AppendRow(columns, query, h);
      });
}

struct ParsedOverlap {
  enum class Kind { kPoint, kAabb, kShape } kind = Kind::kPoint;
  Vec2 point;
  Aabb aabb;
  Shape shape;
  Transform transform;
};

struct ParsedOverlaps {
  OwnedQueryFilter filter;
  std::vector<ParsedOverlap> queries;
  bool want_contacts = false;
};

// OverlapResult with contacts: shapes[i] and contacts[i] describe one overlap.
void AppendContacts(const std::vector<OverlapContact>& contacts, v1::OverlapResult* r) {
  for (const OverlapContact& c : contacts) {
    wire::ToProto(c.shape, r->add_shapes());
    wire::ToProto(c, r->add_contacts());
  }
}

// A shape moved from `transform` by `translation` (World::CastShape).
struct WorldShapeCast {
  Shape shape;
  Transform transform;
  Vec2 translation;
};

struct ParsedCasts {
  OwnedQueryFilter filter;
  std::vector<WorldShapeCast> casts;
  CastMode mode = CastMode::kClosest;
};

void SetQuery(v1::RecordedQuery* q, const v1::CastRaysRequest& request, const v1::CastRaysResponse& reply) {
  *q->mutable_cast_rays() = request;
  *q->mutable_cast_rays_reply() = reply;
}

void SetQuery(v1::RecordedQuery* q, const v1::OverlapRequest& request, const v1::OverlapResponse& reply) {
  *q->mutable_overlap() = request;
  *q->mutable_overlap_reply() = reply;
}

void SetQuery(v1::RecordedQuery* q, const v1::CastShapesRequest& request, const v1::CastShapesResponse& reply) {
  *q->mutable_cast_shapes() = request;
  *q->mutable_cast_shapes_reply() = reply;
}

void SetQuery(v1::RecordedQuery* q, const v1::ValidateHitRequest& request, const v1::ValidateHitResponse& reply) {
  *q->mutable_validate_hit() = request;
  *q->mutable_validate_hit_reply() = reply;
}

void SetQuery(v1::RecordedQuery* q, const v1::MoveShapesRequest& request, const v1::MoveShapesResponse& reply) {
  *q->mutable_move_shapes() = request;
  *q->mutable_move_shapes_reply() = reply;
}

void SetQuery(v1::RecordedQuery* q, const v1::DistanceRequest& request, const v1::DistanceResponse& reply) {
  *q->mutable_distance() = request;
  *q->mutable_distance_reply() = reply;
}

}  // namespace

void Operations::JournalQuery(const WorldEntry& entry, const World& live, v1::JournalRecord record) const {
  const JournalCursor& cursor = entry.journal();
  if (cursor.key < 0) return;
  record.set_seq(cursor.seq);
  record.set_tick(live.tick());
  // An audit trail, not acknowledged state: a failed write costs the record,
  // not the answer.
  (void)durability_.journal->AppendQuery(cursor.key, record);
}

template <class Request, class Reply>
ReadOp Operations::MakeRead(std::shared_ptr<WorldEntry> entry, const Request& request, Reply* reply,
                            std::function<absl::Status(const World&, const CancelFn&)> run) {
  const bool has_at = request.has_at();
  const int64_t tick = request.at().tick();
  const Fixed fraction = Fixed::FromRaw(request.at().fraction());
  std::shared_ptr<const Request> recorded;
  if (durability_.journal != nullptr && durability_.record_queries) recorded = std::make_shared<Request>(request);
  const WorldEntry* e = entry.get();
  return ReadOp{std::move(entry), [this, e, has_at, tick, fraction, reply, run = std::move(run), recorded](
                                      const World& live, const CancelFn& cancelled) -> absl::Status {
                  std::shared_ptr<const World> past;
                  if (has_at) {
                    if (absl::Status s = FromCore(e->history().At(live, tick, fraction, &past)); !s.ok()) {
                      return WithPrefix(s, "at.");
                    }
                  }
                  if (absl::Status s = run(past != nullptr ? *past : live, cancelled); !s.ok()) return s;
                  reply->set_tick_fraction(fraction.raw());
                  if (recorded != nullptr) {
                    v1::JournalRecord r;
                    SetQuery(r.mutable_query(), *recorded, *reply);
                    JournalQuery(*e, live, std::move(r));
                  }
                  return absl::OkStatus();
                }};
}

// MoveShapes is prepared in operations_moves.cc, beside ValidateMove.
template ReadOp Operations::MakeRead(std::shared_ptr<WorldEntry>, const v1::MoveShapesRequest&, v1::MoveShapesResponse*,
                                     std::function<absl::Status(const World&, const CancelFn&)>);
// Distance is prepared in operations_distance.cc.
template ReadOp Operations::MakeRead(std::shared_ptr<WorldEntry>, const v1::DistanceRequest&, v1::DistanceResponse*,
                                     std::function<absl::Status(const World&, const CancelFn&)>);

absl::StatusOr<ReadOp> Operations::PrepareDescribeWorld(const v1::DescribeWorldRequest& request,
                                                        v1::DescribeWorldResponse* reply) {
  absl::StatusOr<std::shared_ptr<WorldEntry>> entry = registry_->Find(request.world_id());
  if (!entry.ok()) return entry.status();
  const bool bodies = request.include_bodies();
  const WorldEntry* e = entry->get();
  return ReadOp{*entry, [reply, bodies, e](const World& world, const CancelFn& cancelled) -> absl::Status {
                  FillWorldInfo(*e, world, true, reply->mutable_world());
                  if (!bodies) return absl::OkStatus();
                  const std::vector<uint64_t> ids = world.BodyIds();
                  reply->mutable_bodies()->Reserve(static_cast<int>(ids.size()));
                  for (size_t i = 0; i < ids.size(); ++i) {
                    if (i % kChunk == 0 && i > 0 && cancelled()) return Cancelled();
                    wire::ToProto(*world.FindBody(ids[i]), reply->add_bodies());
                  }
                  return absl::OkStatus();
                }};
}

absl::StatusOr<ReadOp> Operations::PrepareCastRays(const v1::CastRaysRequest& request, v1::CastRaysResponse* reply) {
  reply->set_request_tag(request.request_tag());
  const absl::StatusOr<CastMode> mode = ParseMode(request.mode(), "mode");
  if (!mode.ok()) return mode.status();
  const bool has_columns = request.has_columns();
  if (has_columns && request.rays_size() > 0) {
    return absl::InvalidArgumentError("rays: set either rays or columns, not both");
  }
  const size_t count = has_columns ? static_cast<size_t>(request.columns().origin_x_size())
                                   : static_cast<size_t>(request.rays_size());
  if (absl::Status s = CheckBatch(count, has_columns ? "columns" : "rays"); !s.ok()) return s;
  if (absl::Status s = CheckPastTick(request.has_at(), request.at()); !s.ok()) return s;
  absl::StatusOr<std::shared_ptr<WorldEntry>> entry = registry_->Find(request.world_id());
  if (!entry.ok()) return entry.status();

  auto parsed = std::make_shared<ParsedRays>();
  parsed->mode = *mode;
  parsed->columns = has_columns;
  if (absl::Status s = wire::ParseQueryFilter(request.filter(), "filter", &parsed->filter); !s.ok()) return s;
  if (has_columns) {
    if (absl::Status s = wire::ParseRayColumns(request.columns(), "columns", &parsed->rays); !s.ok()) return s;
  } else {
    parsed->rays.resize(count);
    for (size_t i = 0; i < count; ++i) {
      const absl::Status s = wire::ParseRay(request.rays(static_cast<int>(i)), "", &parsed->rays[i]);
      if (!s.ok()) return WithPrefix(s, Indexed("rays", i));
    }
  }
  return MakeRead(*entry, request, reply, [parsed, reply, threads = limits_.query_threads](const World& world,
                                                                                        const CancelFn& cancelled) {
    return RunCastRays(world, *parsed, threads, reply, cancelled);
  });
}

absl::StatusOr<ReadOp> Operations::PrepareOverlap(const v1::OverlapRequest& request, v1::OverlapResponse* reply) {
  const size_t count = static_cast<size_t>(request.queries_size());
  if (absl::Status s = CheckBatch(count, "queries"); !s.ok()) return s;
  if (absl::Status s = CheckPastTick(request.has_at(), request.at()); !s.ok()) return s;
  absl::StatusOr<std::shared_ptr<WorldEntry>> entry = registry_->Find(request.world_id());
  if (!entry.ok()) return entry.status();

  auto parsed = std::make_shared<ParsedOverlaps>();
  if (absl::Status s = wire::ParseQueryFilter(request.filter(), "filter", &parsed->filter); !s.ok()) return s;
  parsed->queries.resize(count);
  for (size_t i = 0; i < count; ++i) {
    const v1::OverlapQuery& q = request.queries(static_cast<int>(i));
    ParsedOverlap& out = parsed->queries[i];
    const std::string field = Indexed("queries", i);
    absl::Status s;
    switch (q.kind_case()) {
      case v1::OverlapQuery::kPoint:
        out.kind = ParsedOverlap::Kind::kPoint;
        s = wire::ParsePoint(q.point(), field + ".point", &out.point);
        break;
      case v1::OverlapQuery::kAabb:
        out.kind = ParsedOverlap::Kind::kAabb;
        s = wire::ParseAabb(q.aabb(), field + ".aabb", &out.aabb);
        break;
      case v1::OverlapQuery::kShape:
        out.kind = ParsedOverlap::Kind::kShape;
        s = ParseShapeAt(q.shape().shape(), q.shape().transform(), q.shape().has_shape(), field + ".shape", &out.shape,
                         &out.transform);
        break;
      case v1::OverlapQuery::KIND_NOT_SET:
        s = absl::InvalidArgumentError(field + ": no query kind set (point, aabb or shape)");
        break;
    }
    if (!s.ok()) return s;
    if (request.want_contacts() && out.kind != ParsedOverlap::Kind::kShape) {
      return absl::InvalidArgumentError(field + ": want_contacts needs a shape query (a point or aabb has no contact)");
    }
  }
  parsed->want_contacts = request.want_contacts();
  return MakeRead(*entry, request, reply, [parsed, reply](const World& world, const CancelFn& cancelled) -> absl::Status {
                  reply->set_tick(world.tick());
                  const QueryFilter filter = parsed->filter.Get();
                  reply->mutable_results()->Reserve(static_cast<int>(parsed->queries.size()));
                  for (size_t i = 0; i < parsed->queries.size(); ++i) {
                    if (i % kChunk == 0 && i > 0 && cancelled()) return Cancelled();
                    const ParsedOverlap& q = parsed->queries[i];
                    if (parsed->want_contacts) {
                      AppendContacts(world.OverlapShapeContacts(q.shape, q.transform, filter), reply->add_results());
                      continue;
                    }
                    std::vector<ShapeRef> refs;
                    switch (q.kind) {
                      case ParsedOverlap::Kind::kPoint: refs = world.OverlapPoint(q.point, filter); break;
                      case ParsedOverlap::Kind::kAabb: refs = world.OverlapAabb(q.aabb, filter); break;
                      case ParsedOverlap::Kind::kShape: refs = world.OverlapShape(q.shape, q.transform, filter); break;
                    }
                    v1::OverlapResult* r = reply->add_results();
                    for (const ShapeRef& ref : refs) wire::ToProto(ref, r->add_shapes());
                  }
                  return absl::OkStatus();
                });
}

absl::StatusOr<ReadOp> Operations::PrepareCastShapes(const v1::CastShapesRequest& request, v1::CastShapesResponse* reply) {
  const absl::StatusOr<CastMode> mode = ParseMode(request.mode(), "mode");
  if (!mode.ok()) return mode.status();
  const size_t count = static_cast<size_t>(request.casts_size());
  if (absl::Status s = CheckBatch(count, "casts"); !s.ok()) return s;
  if (absl::Status s = CheckPastTick(request.has_at(), request.at()); !s.ok()) return s;
  absl::StatusOr<std::shared_ptr<WorldEntry>> entry = registry_->Find(request.world_id());
  if (!entry.ok()) return entry.status();

  auto parsed = std::make_shared<ParsedCasts>();
  parsed->mode = *mode;
  if (absl::Status s = wire::ParseQueryFilter(request.filter(), "filter", &parsed->filter); !s.ok()) return s;
  parsed->casts.resize(count);
  for (size_t i = 0; i < count; ++i) {
    const v1::ShapeCast& c = request.casts(static_cast<int>(i));
    WorldShapeCast& out = parsed->casts[i];
    const std::string field = Indexed("casts", i);
    if (absl::Status s = ParseShapeAt(c.shape(), c.transform(), c.has_shape(), field, &out.shape, &out.transform); !s.ok()) {
      return s;
    }
    if (absl::Status s = wire::ParseTranslation(c.translation(), field + ".translation", &out.translation);
        !s.ok()) {
      return s;
    }
  }
  return MakeRead(*entry, request, reply, [parsed, reply, threads = limits_.query_threads](const World& world,
                                                                                        const CancelFn& cancelled) {
    reply->set_tick(world.tick());
    const QueryFilter filter = parsed->filter.Get();
    reply->mutable_results()->Reserve(static_cast<int>(parsed->casts.size()));
    const std::span<const WorldShapeCast> casts(parsed->casts);
    return AnswerCasts(
        casts.size(), threads, cancelled,
        [&](size_t start, size_t n, const CastSink& sink) {
          CollectCasts(parsed->mode, n, [&](size_t i, CastCollector& c) {
            const WorldShapeCast& q = casts[start + i];
            world.CastShape(q.shape, q.transform, q.translation, filter, c);
          }, sink);
        },
        [&](size_t, bool hit, std::span<const CastHit> hits) { AppendResult(reply->add_results(), hit, hits); });
  });
}

absl::StatusOr<ReadOp> Operations::PrepareValidateHit(const v1::ValidateHitRequest& request,
                                                      v1::ValidateHitResponse* reply) {
  if (request.shooter_body_id() == 0) return absl::InvalidArgumentError("shooter_body_id: required (non-zero)");
  if (request.target_body_id() == 0) return absl::InvalidArgumentError("target_body_id: required (non-zero)");
  if (request.shooter_body_id() == request.target_body_id()) {
    return absl::InvalidArgumentError("target_body_id: the shooter cannot be its own target");
  }
  if (!request.has_ray()) return absl::InvalidArgumentError("ray: required");
  if (absl::Status s = CheckPastTick(request.has_at(), request.at()); !s.ok()) return s;
  absl::StatusOr<std::shared_ptr<WorldEntry>> entry = registry_->Find(request.world_id());
  if (!entry.ok()) return entry.status();
  struct Parsed {
    RayCastInput ray;
    OwnedQueryFilter filter;
    uint64_t shooter = 0;
    uint64_t target = 0;
  };
  auto parsed = std::make_shared<Parsed>();
  parsed->shooter = request.shooter_body_id();
  parsed->target = request.target_body_id();
  if (absl::Status s = wire::ParseRay(request.ray(), "ray", &parsed->ray); !s.ok()) return s;
  if (absl::Status s = wire::ParseQueryFilter(request.filter(), "filter", &parsed->filter); !s.ok()) return s;
  // The request outlives the read, as the reply does (ReadOp).
  const v1::ValidateHitRequest* asked = &request;
  return MakeRead(*entry, request, reply, [this, asked, parsed, reply](const World& world, const CancelFn&) -> absl::Status {
    const std::string at = " at tick " + std::to_string(world.tick());
    if (!world.FindBody(parsed->shooter)) {
      return absl::NotFoundError("shooter_body_id: no body " + std::to_string(parsed->shooter) + at);
    }
    if (!world.FindBody(parsed->target)) {
      return absl::NotFoundError("target_body_id: no body " + std::to_string(parsed->target) + at);
    }
    QueryFilter filter = parsed->filter.Get();
    std::vector<uint64_t> excluded(filter.exclude_bodies.begin(), filter.exclude_bodies.end());
    excluded.push_back(parsed->shooter);
    filter.exclude_bodies = excluded;
    const std::vector<CastHit> hits = world.CastRayAll(parsed->ray, filter);
    reply->set_tick(world.tick());
    const auto on_target = std::find_if(hits.begin(), hits.end(),
                                        [&](const CastHit& h) { return h.shape.body_id == parsed->target; });
    if (!hits.empty()) wire::ToProto(hits.front(), reply->mutable_first_hit());
    if (on_target == hits.end()) {
      reply->set_verdict(v1::HIT_VERDICT_MISSED);
    } else {
      wire::ToProto(*on_target, reply->mutable_target_hit());
      reply->set_verdict(on_target == hits.begin() ? v1::HIT_VERDICT_CONFIRMED : v1::HIT_VERDICT_BLOCKED);
    }
    if (verdict_observer_ != nullptr && verdict_observer_->Watched(asked->world_id())) {
      verdict_observer_->OnHit(*asked, *reply);
    }
    return absl::OkStatus();
  });
}

absl::StatusOr<ReadOp> Operations::PrepareReportHashes(const v1::ReportHashesRequest& request,
                                                       v1::ReportHashesResponse* reply) {
  const size_t count = static_cast<size_t>(request.state_hashes_size());
  if (absl::Status s = CheckBatch(count, "state_hashes"); !s.ok()) return s;
  absl::StatusOr<std::shared_ptr<WorldEntry>> entry = registry_->Find(request.world_id());
  if (!entry.ok()) return entry.status();
  const WorldEntry* e = entry->get();
  const int64_t first = request.first_tick();
  std::vector<uint64_t> hashes(request.state_hashes().begin(), request.state_hashes().end());
  return ReadOp{*entry, [e, first, hashes = std::move(hashes), reply](const World& world, const CancelFn&) {
                  const TickHashes& known = e->hashes();
                  const int64_t last = first + static_cast<int64_t>(hashes.size()) - 1;
                  reply->set_tick(world.tick());
                  reply->set_oldest_tick(known.oldest());
                  if (first < known.oldest() || last > known.newest()) {
                    return absl::OutOfRangeError("first_tick: ticks [" + std::to_string(first) + ", " +
                                                 std::to_string(last) + "] reported; the server has hashes for [" +
                                                 std::to_string(known.oldest()) + ", " +
                                                 std::to_string(known.newest()) + "]");
                  }
                  for (size_t i = 0; i < hashes.size(); ++i) {
                    const int64_t tick = first + static_cast<int64_t>(i);
                    if (known.At(tick) != hashes[i]) {
                      reply->set_in_sync(false);
                      reply->set_first_divergent_tick(tick);
                      reply->set_server_hash(known.At(tick));
                      return absl::OkStatus();
                    }
                  }
                  reply->set_in_sync(true);
                  reply->set_server_hash(known.At(last));
                  return absl::OkStatus();
                }};
}

absl::StatusOr<ReadOp> Operations::PrepareGetStateHash(const v1::GetStateHashRequest& request,
                                                       v1::GetStateHashResponse* reply) {
  absl::StatusOr<std::shared_ptr<WorldEntry>> entry = registry_->Find(request.world_id());
  if (!entry.ok()) return entry.status();
  return ReadOp{*entry, [reply](const World& world, const CancelFn&) {
                  reply->set_tick(world.tick());
                  reply->set_state_hash(world.StateHash());
                  return absl::OkStatus();
                }};
}

absl::StatusOr<ReadOp> Operations::PrepareGetSnapshot(const v1::GetSnapshotRequest& request,
                                                      v1::GetSnapshotResponse* reply) {
  absl::StatusOr<std::shared_ptr<WorldEntry>> entry = registry_->Find(request.world_id());
  if (!entry.ok()) return entry.status();
  return ReadOp{*entry, [reply](const World& world, const CancelFn&) {
                  const std::vector<uint8_t> bytes = world.Snapshot();
                  reply->set_tick(world.tick());
                  reply->set_state_hash(world.StateHash());
                  reply->set_snapshot(bytes.data(), bytes.size());
                  return absl::OkStatus();
                }};
}

}  // namespace arbiter::server
