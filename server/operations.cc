#include "operations.h"

#include <algorithm>
#include <array>
#include <filesystem>
#include <optional>
#include <span>
#include <utility>
#include <vector>

#include "arbiter/scene/scene.h"
#include "arbiter/v1/journal.pb.h"
#include "journal.h"
#include "journal_file.h"
#include "arbiter/wire/convert.h"
#include "status_convert.h"

namespace arbiter::server {
namespace {

using wire::OwnedQueryFilter;

// Rays per World::CastRaysClosest call, and items between cancellation
// checks: small enough that a cancelled batch stops within microseconds,
// large enough that the check costs nothing.
constexpr size_t kChunk = 256;

// Gravity and tick rate are bounded by the core's table (limits.h) and
// checked by its ValidateWorldDef.
constexpr int32_t kDefaultTickHz = 60;

std::string Indexed(const char* field, size_t i) { return std::string(field) + "[" + std::to_string(i) + "]"; }

absl::Status WithPrefix(const absl::Status& s, const std::string& prefix) {
  if (s.ok()) return s;
  return absl::Status(s.code(), prefix + std::string(s.message()));
}

absl::Status Cancelled() { return absl::CancelledError("cancelled by the caller (or its deadline passed)"); }

void FillWorldInfo(const std::string& id, uint32_t history_ticks, int64_t oldest_tick, const World& world,
                   bool with_hash, v1::WorldInfo* out) {
  out->set_world_id(id);
  out->set_history_ticks(history_ticks);
  out->set_oldest_tick(oldest_tick);
  wire::ToProto(world.def().gravity, out->mutable_gravity());
  out->set_tick_hz(world.def().tick_hz);
  out->set_max_bodies(world.def().max_bodies);
  out->set_tick(world.tick());
  out->set_body_count(world.body_count());
  if (with_hash) out->set_state_hash(world.StateHash());
}

void FillWorldInfo(const WorldEntry& entry, const World& world, bool with_hash, v1::WorldInfo* out) {
  FillWorldInfo(entry.id(), entry.history().capacity(), entry.oldest_tick(world), world, with_hash, out);
}

absl::Status ParseMode(v1::CastMode mode, const char* field) {
  switch (mode) {
    case v1::CAST_MODE_CLOSEST:
    case v1::CAST_MODE_ALL:
    case v1::CAST_MODE_ANY: return absl::OkStatus();
    case v1::CAST_MODE_UNSPECIFIED:
      return absl::InvalidArgumentError(std::string(field) + ": CAST_MODE_UNSPECIFIED; set CLOSEST, ALL or ANY");
    default: break;
  }
  return absl::InvalidArgumentError(std::string(field) + ": unknown cast mode " + std::to_string(static_cast<int>(mode)));
}

// ---- Scene files -------------------------------------------------------------------

absl::StatusOr<std::string> ResolveScenePath(const std::string& scene_dir, const std::string& name) {
  namespace fs = std::filesystem;
  if (scene_dir.empty()) {
    return absl::FailedPreconditionError("scene: this server loads no scene files (start it with --scene_dir)");
  }
  const fs::path rel(name);
  bool escapes = rel.is_absolute() || rel.has_root_name();
  for (const fs::path& part : rel) escapes = escapes || part == "..";
  if (escapes) return absl::InvalidArgumentError("scene: must be a relative path inside the scene directory, without '..'");
  std::error_code ec;
  const fs::path base = fs::weakly_canonical(scene_dir, ec);
  const fs::path full = fs::weakly_canonical(base / rel, ec);
  // A symbolic link inside the directory may still point out of it.
  const auto [mismatch, unused] = std::mismatch(base.begin(), base.end(), full.begin(), full.end());
  if (ec || mismatch != base.end()) {
    return absl::InvalidArgumentError("scene: '" + name + "' resolves outside the scene directory");
  }
  if (!fs::is_regular_file(full, ec)) return absl::NotFoundError("scene: no scene file '" + name + "'");
  return full.string();
}

absl::Status LoadScene(const std::string& path, const std::string& shown_name, scene::Scene* out) {
  const arbiter::Status s = scene::LoadSceneFile(path, out);
  if (s.ok()) return absl::OkStatus();
  // The loader prefixes its messages with the server-side path; callers
  // named the file relative to the scene directory.
  std::string message = s.message();
  if (message.rfind(path, 0) == 0) message.erase(0, path.size());
  return FromCore(arbiter::Status(s.code(), "scene '" + shown_name + "'" + message));
}

// ---- Body updates ------------------------------------------------------------------

// Checks everything about an update that depends on the world but not on
// other updates: the body exists, it can move if a velocity is set, and
// every shape index exists. Bodies neither appear nor change type during a
// Step, so this holds for every tick of a step.
absl::Status CheckUpdateAgainstWorld(const World& world, const wire::BodyUpdate& u, const std::string& field) {
  const std::optional<BodyView> body = world.FindBody(u.body_id);
  if (!body) return absl::NotFoundError(field + ".body_id: no body " + std::to_string(u.body_id));
  if (u.velocity && body->type == BodyType::kStatic) {
    return absl::FailedPreconditionError(field + ".velocity: body " + std::to_string(u.body_id) +
                                         " is static and cannot move");
  }
  for (size_t k = 0; k < u.filters.size(); ++k) {
    if (u.filters[k].first >= body->shape_count) {
      return absl::NotFoundError(field + ".filters[" + std::to_string(k) + "].shape_index: body " +
                                 std::to_string(u.body_id) + " has " + std::to_string(body->shape_count) + " shape(s)");
    }
  }
  return absl::OkStatus();
}

// What an applied update overwrote, to put it back.
struct Undo {
  enum class Kind { kTransform, kVelocity, kFilter } kind;
  uint64_t body_id = 0;
  Transform transform;
  Vec2 linear;
  Fixed angular;
  uint32_t shape_index = 0;
  Filter filter;
};

void MustSucceed(const arbiter::Status& s) {
  // Undo writes values the world held a moment ago. Every value a world can
  // hold passes the setters' checks (one table of limits, and the step
  // clamps into it: world.h, Step), and within a batch bodies neither
  // vanish nor change type, so this cannot fail; if it ever did, that is a
  // core bug worth a crash rather than a silently half-rolled-back world.
  if (!s.ok()) std::abort();
}

void RollBack(World& world, std::vector<Undo>& undo) {
  for (auto it = undo.rbegin(); it != undo.rend(); ++it) {
    switch (it->kind) {
      case Undo::Kind::kTransform: MustSucceed(world.SetBodyTransform(it->body_id, it->transform)); break;
      case Undo::Kind::kVelocity: MustSucceed(world.SetBodyVelocity(it->body_id, it->linear, it->angular)); break;
      case Undo::Kind::kFilter: MustSucceed(world.SetShapeFilter(it->body_id, it->shape_index, it->filter)); break;
    }
  }
  undo.clear();
}

// Applies one update, recording what it overwrote in *undo. On failure the
// caller rolls back. `field` names the update in error messages.
absl::Status ApplyUpdate(World& world, const wire::BodyUpdate& u, const std::string& field, std::vector<Undo>* undo) {
  if (absl::Status s = CheckUpdateAgainstWorld(world, u, field); !s.ok()) return s;
  const BodyView before = *world.FindBody(u.body_id);
  if (u.transform) {
    undo->push_back({Undo::Kind::kTransform, u.body_id, before.transform, {}, {}, 0, {}});
    if (absl::Status s = FromCore(world.SetBodyTransform(u.body_id, *u.transform)); !s.ok()) {
      undo->pop_back();
      return WithPrefix(s, field + ".");
    }
  }
  if (u.velocity) {
    undo->push_back({Undo::Kind::kVelocity, u.body_id, {}, before.linear_velocity, before.angular_velocity, 0, {}});
    if (absl::Status s = FromCore(world.SetBodyVelocity(u.body_id, u.velocity->first, u.velocity->second)); !s.ok()) {
      undo->pop_back();
      return WithPrefix(s, field + ".velocity.");
    }
  }
  if (!u.filters.empty()) {
    const std::optional<BodyDef> def = world.GetBodyDef(u.body_id);
    for (size_t k = 0; k < u.filters.size(); ++k) {
      const auto& [index, filter] = u.filters[k];
      undo->push_back({Undo::Kind::kFilter, u.body_id, {}, {}, {}, index, def->shapes[index].filter});
      if (absl::Status s = FromCore(world.SetShapeFilter(u.body_id, index, filter)); !s.ok()) {
        undo->pop_back();
        return WithPrefix(s, field + ".filters[" + std::to_string(k) + "].");
      }
    }
  }
  return absl::OkStatus();
}

// ---- Queries ---------------------------------------------------------------------

struct ParsedRays {
  OwnedQueryFilter filter;
  std::vector<RayCastInput> rays;
  v1::CastMode mode = v1::CAST_MODE_CLOSEST;
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

absl::Status RunCastRays(const World& world, const ParsedRays& p, v1::CastRaysResponse* reply, const CancelFn& cancelled) {
  reply->set_tick(world.tick());
  const QueryFilter filter = p.filter.Get();
  const size_t n = p.rays.size();
  v1::HitColumns* columns = p.columns ? reply->mutable_columns() : nullptr;
  if (!p.columns) reply->mutable_results()->Reserve(static_cast<int>(n));
  std::array<std::optional<CastHit>, kChunk> closest;
  for (size_t start = 0; start < n; start += kChunk) {
    if (start > 0 && cancelled()) return Cancelled();
    const size_t count = std::min(kChunk, n - start);
    const std::span<const RayCastInput> rays(p.rays.data() + start, count);
    switch (p.mode) {
      case v1::CAST_MODE_CLOSEST:
        world.CastRaysClosest(rays, filter, std::span<std::optional<CastHit>>(closest.data(), count));
        for (size_t i = 0; i < count; ++i) {
          if (columns != nullptr) {
            if (closest[i]) AppendRow(columns, start + i, *closest[i]);
          } else {
            v1::CastResult* r = reply->add_results();
            r->set_hit(closest[i].has_value());
            if (closest[i]) wire::ToProto(*closest[i], r->add_hits());
          }
        }
        break;
      case v1::CAST_MODE_ALL:
        for (size_t i = 0; i < count; ++i) {
          const std::vector<CastHit> hits = world.CastRayAll(rays[i], filter);
          if (columns != nullptr) {
            for (const CastHit& h : hits) AppendRow(columns, start + i, h);
          } else {
            v1::CastResult* r = reply->add_results();
            r->set_hit(!hits.empty());
            for (const CastHit& h : hits) wire::ToProto(h, r->add_hits());
          }
        }
        break;
      default:  // ANY (the mode was validated)
        for (size_t i = 0; i < count; ++i) {
          const bool hit = world.CastRayAny(rays[i], filter);
          if (columns != nullptr) {
            if (hit) columns->add_query_index(static_cast<uint32_t>(start + i));
          } else {
            reply->add_results()->set_hit(hit);
          }
        }
        break;
    }
  }
  return absl::OkStatus();
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
};

struct ParsedCast {
  Shape shape;
  Transform transform;
  Vec2 translation;
};

struct ParsedCasts {
  OwnedQueryFilter filter;
  std::vector<ParsedCast> casts;
  v1::CastMode mode = v1::CAST_MODE_CLOSEST;
};

absl::Status ParseShapeAt(const v1::Shape& shape, const v1::Transform& transform, bool has_shape,
                          const std::string& field, Shape* shape_out, Transform* transform_out) {
  if (!has_shape) return absl::InvalidArgumentError(field + ".shape: required");
  if (absl::Status s = FromCore(wire::ParseShape(shape, field + ".shape", shape_out)); !s.ok()) return s;
  return FromCore(wire::ParseTransform(transform, field + ".transform", transform_out));
}

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

v1::JournalRecord SnapshotRecord(const World& world, bool restored) {
  v1::JournalRecord r;
  r.set_tick(world.tick());
  const std::vector<uint8_t> bytes = world.Snapshot();
  r.mutable_snapshot()->set_snapshot(bytes.data(), bytes.size());
  r.mutable_snapshot()->set_state_hash(world.StateHash());
  r.mutable_snapshot()->set_restored(restored);
  return r;
}

absl::Status CheckPastTick(bool has_at, const v1::PastTick& at) {
  if (has_at && (at.fraction() < 0 || at.fraction() >= Fixed::kOneRaw)) {
    return absl::InvalidArgumentError("at.fraction: must be in [0, 1) (Q32.32 raw 0..2^32-1)");
  }
  return absl::OkStatus();
}

}  // namespace

Operations::Operations(WorldRegistry* registry, ServiceLimits limits, Durability durability)
    : registry_(registry), limits_(std::move(limits)), durability_(durability) {}

absl::StatusOr<uint32_t> Operations::HistoryTicks(uint32_t requested, int32_t tick_hz) const {
  if (requested > limits_.max_history_ticks) {
    return absl::ResourceExhaustedError("history_ticks: " + std::to_string(requested) + " exceeds the limit of " +
                                        std::to_string(limits_.max_history_ticks) + " (--max_history_ticks)");
  }
  if (requested != 0) return requested;
  const uint64_t ticks = uint64_t{limits_.history_seconds} * static_cast<uint64_t>(std::max(tick_hz, 1));
  return static_cast<uint32_t>(std::clamp<uint64_t>(ticks, 1, limits_.max_history_ticks));
}

absl::Status Operations::JournalNewWorld(const std::string& id, const World& world, uint32_t history_ticks,
                                         int64_t* key) {
  *key = -1;
  if (durability_.journal == nullptr) return absl::OkStatus();
  v1::JournalRecord header;
  header.set_seq(0);
  header.set_tick(world.tick());
  header.mutable_header()->set_world_id(id);
  header.mutable_header()->set_history_ticks(history_ticks);
  header.mutable_header()->set_format(1);
  v1::JournalRecord snapshot = SnapshotRecord(world, /*restored=*/false);
  snapshot.set_seq(1);
  absl::StatusOr<int64_t> k = durability_.journal->CreateWorld(id, header, snapshot);
  if (!k.ok()) return k.status();
  *key = *k;
  return absl::OkStatus();
}

bool Operations::Journaled(const WorldEntry& entry) const {
  return durability_.journal != nullptr && entry.journal().key >= 0;
}

template <class Request>
absl::Status Operations::JournalRequest(WorldEntry& entry, int64_t tick, Request* (v1::JournalRecord::*field)(),
                                        const Request& request) {
  if (!Journaled(entry)) return absl::OkStatus();
  v1::JournalRecord record;
  record.set_tick(tick);
  *(record.*field)() = request;
  return JournalChange(entry, {&record});
}

absl::Status Operations::JournalChange(WorldEntry& entry, std::vector<v1::JournalRecord*> records) {
  JournalCursor& cursor = entry.journal();
  if (!Journaled(entry)) return absl::OkStatus();
  uint64_t seq = cursor.seq;
  std::vector<const v1::JournalRecord*> out;
  for (v1::JournalRecord* r : records) {
    r->set_seq(++seq);
    out.push_back(r);
  }
  if (absl::Status s = durability_.journal->Append(cursor.key, out); !s.ok()) {
    (void)registry_->Remove(entry.id());
    return absl::UnavailableError("the change could not be journaled, so it was not applied (" +
                                  std::string(s.message()) + "); world '" + entry.id() +
                                  "' is offline until the server restarts and recovers it");
  }
  cursor.seq = seq;
  return absl::OkStatus();
}

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

absl::Status Operations::CheckBatch(size_t size, const char* field) const {
  if (size == 0) return absl::InvalidArgumentError(std::string(field) + ": empty batch");
  if (size > limits_.max_batch) {
    return absl::ResourceExhaustedError(std::string(field) + ": " + std::to_string(size) +
                                        " items exceed the batch limit of " + std::to_string(limits_.max_batch) +
                                        " (--max_batch)");
  }
  return absl::OkStatus();
}

// ---- Reads ---------------------------------------------------------------------------

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
  if (absl::Status s = ParseMode(request.mode(), "mode"); !s.ok()) return s;
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
  parsed->mode = request.mode();
  parsed->columns = has_columns;
  if (absl::Status s = FromCore(wire::ParseQueryFilter(request.filter(), "filter", &parsed->filter)); !s.ok()) return s;
  if (has_columns) {
    if (absl::Status s = FromCore(wire::ParseRayColumns(request.columns(), "columns", &parsed->rays)); !s.ok()) return s;
  } else {
    parsed->rays.resize(count);
    for (size_t i = 0; i < count; ++i) {
      const arbiter::Status s = wire::ParseRay(request.rays(static_cast<int>(i)), "", &parsed->rays[i]);
      if (!s.ok()) return WithPrefix(FromCore(s), Indexed("rays", i));
    }
  }
  return MakeRead(*entry, request, reply, [parsed, reply](const World& world, const CancelFn& cancelled) {
    return RunCastRays(world, *parsed, reply, cancelled);
  });
}

absl::StatusOr<ReadOp> Operations::PrepareOverlap(const v1::OverlapRequest& request, v1::OverlapResponse* reply) {
  const size_t count = static_cast<size_t>(request.queries_size());
  if (absl::Status s = CheckBatch(count, "queries"); !s.ok()) return s;
  if (absl::Status s = CheckPastTick(request.has_at(), request.at()); !s.ok()) return s;
  absl::StatusOr<std::shared_ptr<WorldEntry>> entry = registry_->Find(request.world_id());
  if (!entry.ok()) return entry.status();

  auto parsed = std::make_shared<ParsedOverlaps>();
  if (absl::Status s = FromCore(wire::ParseQueryFilter(request.filter(), "filter", &parsed->filter)); !s.ok()) return s;
  parsed->queries.resize(count);
  for (size_t i = 0; i < count; ++i) {
    const v1::OverlapQuery& q = request.queries(static_cast<int>(i));
    ParsedOverlap& out = parsed->queries[i];
    const std::string field = Indexed("queries", i);
    absl::Status s;
    switch (q.kind_case()) {
      case v1::OverlapQuery::kPoint:
        out.kind = ParsedOverlap::Kind::kPoint;
        s = FromCore(wire::ParsePoint(q.point(), field + ".point", &out.point));
        break;
      case v1::OverlapQuery::kAabb:
        out.kind = ParsedOverlap::Kind::kAabb;
        s = FromCore(wire::ParseAabb(q.aabb(), field + ".aabb", &out.aabb));
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
  }
  return MakeRead(*entry, request, reply, [parsed, reply](const World& world, const CancelFn& cancelled) -> absl::Status {
                  reply->set_tick(world.tick());
                  const QueryFilter filter = parsed->filter.Get();
                  reply->mutable_results()->Reserve(static_cast<int>(parsed->queries.size()));
                  for (size_t i = 0; i < parsed->queries.size(); ++i) {
                    if (i % kChunk == 0 && i > 0 && cancelled()) return Cancelled();
                    const ParsedOverlap& q = parsed->queries[i];
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
  if (absl::Status s = ParseMode(request.mode(), "mode"); !s.ok()) return s;
  const size_t count = static_cast<size_t>(request.casts_size());
  if (absl::Status s = CheckBatch(count, "casts"); !s.ok()) return s;
  if (absl::Status s = CheckPastTick(request.has_at(), request.at()); !s.ok()) return s;
  absl::StatusOr<std::shared_ptr<WorldEntry>> entry = registry_->Find(request.world_id());
  if (!entry.ok()) return entry.status();

  auto parsed = std::make_shared<ParsedCasts>();
  parsed->mode = request.mode();
  if (absl::Status s = FromCore(wire::ParseQueryFilter(request.filter(), "filter", &parsed->filter)); !s.ok()) return s;
  parsed->casts.resize(count);
  for (size_t i = 0; i < count; ++i) {
    const v1::ShapeCast& c = request.casts(static_cast<int>(i));
    ParsedCast& out = parsed->casts[i];
    const std::string field = Indexed("casts", i);
    if (absl::Status s = ParseShapeAt(c.shape(), c.transform(), c.has_shape(), field, &out.shape, &out.transform); !s.ok()) {
      return s;
    }
    if (absl::Status s = FromCore(wire::ParseTranslation(c.translation(), field + ".translation", &out.translation));
        !s.ok()) {
      return s;
    }
  }
  return MakeRead(*entry, request, reply, [parsed, reply](const World& world, const CancelFn& cancelled) -> absl::Status {
                  reply->set_tick(world.tick());
                  const QueryFilter filter = parsed->filter.Get();
                  reply->mutable_results()->Reserve(static_cast<int>(parsed->casts.size()));
                  for (size_t i = 0; i < parsed->casts.size(); ++i) {
                    if (i % kChunk == 0 && i > 0 && cancelled()) return Cancelled();
                    const ParsedCast& c = parsed->casts[i];
                    v1::CastResult* r = reply->add_results();
                    if (parsed->mode == v1::CAST_MODE_ALL) {
                      const std::vector<CastHit> hits = world.CastShapeAll(c.shape, c.transform, c.translation, filter);
                      r->set_hit(!hits.empty());
                      for (const CastHit& h : hits) wire::ToProto(h, r->add_hits());
                    } else {
                      const std::optional<CastHit> hit = world.CastShapeClosest(c.shape, c.transform, c.translation, filter);
                      r->set_hit(hit.has_value());
                      if (hit && parsed->mode == v1::CAST_MODE_CLOSEST) wire::ToProto(*hit, r->add_hits());
                    }
                  }
                  return absl::OkStatus();
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
  if (absl::Status s = FromCore(wire::ParseRay(request.ray(), "ray", &parsed->ray)); !s.ok()) return s;
  if (absl::Status s = FromCore(wire::ParseQueryFilter(request.filter(), "filter", &parsed->filter)); !s.ok()) return s;
  return MakeRead(*entry, request, reply, [parsed, reply](const World& world, const CancelFn&) -> absl::Status {
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

// ---- Worlds ----------------------------------------------------------------------------

absl::Status Operations::CreateWorld(const v1::CreateWorldRequest& request, v1::CreateWorldResponse* reply,
                                     const CancelFn& cancelled) {
  if (absl::Status s = ValidateWorldId(request.world_id()); !s.ok()) return s;
  if (absl::Status s = registry_->CheckCanInsert(request.world_id()); !s.ok()) return s;
  if (request.bodies_size() > 0) {
    if (absl::Status s = CheckBatch(static_cast<size_t>(request.bodies_size()), "bodies"); !s.ok()) return s;
  }
  if (request.tick_hz() < 0 || request.tick_hz() > kMaxTickHz) {
    return absl::OutOfRangeError("tick_hz: must be in 1..10000 (0 for the default)");
  }
  Vec2 gravity;
  if (absl::Status s = FromCore(wire::ParseVec2(request.gravity(), "gravity", &gravity)); !s.ok()) return s;
  if (request.has_gravity()) {
    WorldDef probe;
    probe.gravity = gravity;
    if (absl::Status s = FromCore(ValidateWorldDef(probe)); !s.ok()) return s;
  }
  const uint32_t limit = registry_->limits().max_bodies_per_world;
  if (request.max_bodies() > limit) {
    return absl::ResourceExhaustedError("max_bodies: " + std::to_string(request.max_bodies()) +
                                        " exceeds the server's limit of " + std::to_string(limit) +
                                        " (--max_bodies_per_world)");
  }
  // Parse the inline bodies before the (possibly slow) scene load, so a bad
  // request fails fast.
  std::vector<BodyDef> bodies(static_cast<size_t>(request.bodies_size()));
  for (size_t i = 0; i < bodies.size(); ++i) {
    const arbiter::Status s = wire::ParseBodyDef(request.bodies(static_cast<int>(i)), Indexed("bodies", i), &bodies[i]);
    if (!s.ok()) return FromCore(s);
  }

  WorldDef def;
  def.tick_hz = kDefaultTickHz;
  scene::Scene loaded;
  if (!request.scene().empty()) {
    absl::StatusOr<std::string> path = ResolveScenePath(limits_.scene_dir, request.scene());
    if (!path.ok()) return path.status();
    // Checked before parsing: the parser would hold the whole file (and a
    // DOM several times its size) in memory.
    std::error_code ec;
    const uintmax_t bytes = std::filesystem::file_size(*path, ec);
    if (!ec && bytes > limits_.max_scene_bytes) {
      return absl::ResourceExhaustedError("scene: '" + request.scene() + "' has " + std::to_string(bytes) +
                                          " bytes, more than --max_scene_bytes (" +
                                          std::to_string(limits_.max_scene_bytes) + ")");
    }
    if (absl::Status s = LoadScene(*path, request.scene(), &loaded); !s.ok()) return s;
    def = loaded.world;
  }
  if (request.has_gravity()) def.gravity = gravity;
  if (request.tick_hz() != 0) def.tick_hz = request.tick_hz();
  def.max_bodies = request.max_bodies() != 0 ? request.max_bodies() : limit;
  if (absl::Status s = FromCore(ValidateWorldDef(def)); !s.ok()) return s;
  absl::StatusOr<uint32_t> history_ticks = HistoryTicks(request.history_ticks(), def.tick_hz);
  if (!history_ticks.ok()) return history_ticks.status();

  if (cancelled()) return Cancelled();
  World world(def);
  if (!loaded.bodies.empty()) {
    if (absl::Status s = FromCore(world.AddBodies(loaded.bodies)); !s.ok()) {
      return WithPrefix(s, "scene '" + request.scene() + "': ");
    }
  }
  if (!bodies.empty()) {
    if (absl::Status s = FromCore(world.AddBodies(bodies)); !s.ok()) return s;
  }
  if (cancelled()) return Cancelled();
  if (absl::Status s = registry_->CheckCanInsert(request.world_id()); !s.ok()) return s;
  FillWorldInfo(request.world_id(), *history_ticks, world.tick(), world, true, reply->mutable_world());
  int64_t key = -1;
  if (absl::Status s = JournalNewWorld(request.world_id(), world, *history_ticks, &key); !s.ok()) return s;
  absl::StatusOr<std::shared_ptr<WorldEntry>> entry =
      registry_->Insert(request.world_id(), std::move(world), *history_ticks, JournalCursor{key, 1});
  if (!entry.ok()) {
    // Another call took the id meanwhile: the journaled world never existed.
    if (key >= 0) (void)durability_.journal->DeleteWorld(key);
    return entry.status();
  }
  return absl::OkStatus();
}

absl::StatusOr<std::shared_ptr<WorldEntry>> Operations::AdoptWorld(const std::string& id, uint32_t history_ticks,
                                                                   const std::string& snapshot) {
  if (absl::Status s = ValidateWorldId(id); !s.ok()) return s;
  World world;
  const std::span<const uint8_t> bytes(reinterpret_cast<const uint8_t*>(snapshot.data()), snapshot.size());
  if (absl::Status s = FromCore(World::Restore(bytes, &world)); !s.ok()) return WithPrefix(s, "snapshot: ");
  return registry_->Insert(id, std::move(world), std::max<uint32_t>(history_ticks, 1));
}

absl::StatusOr<std::string> Operations::PreloadScene(const std::string& path) {
  scene::Scene loaded;
  if (absl::Status s = FromCore(scene::LoadSceneFile(path, &loaded)); !s.ok()) return s;
  if (absl::Status s = ValidateWorldId(loaded.name, path + ": name"); !s.ok()) return s;
  // A world recovered from the journal is newer than its scene file.
  if (registry_->Find(loaded.name).ok()) return loaded.name;
  WorldDef def = loaded.world;
  def.max_bodies = registry_->limits().max_bodies_per_world;
  World world;
  if (absl::Status s = FromCore(World::Create(def, &world)); !s.ok()) return WithPrefix(s, path + ": ");
  if (absl::Status s = FromCore(world.AddBodies(loaded.bodies)); !s.ok()) return WithPrefix(s, path + ": ");
  absl::StatusOr<uint32_t> history_ticks = HistoryTicks(0, def.tick_hz);
  if (!history_ticks.ok()) return history_ticks.status();
  int64_t key = -1;
  if (absl::Status s = JournalNewWorld(loaded.name, world, *history_ticks, &key); !s.ok()) return s;
  absl::StatusOr<std::shared_ptr<WorldEntry>> entry =
      registry_->Insert(loaded.name, std::move(world), *history_ticks, JournalCursor{key, 1});
  if (!entry.ok()) return WithPrefix(entry.status(), path + ": ");
  return loaded.name;
}

absl::Status Operations::DeleteWorld(const v1::DeleteWorldRequest& request, v1::DeleteWorldResponse* reply) {
  if (durability_.journal != nullptr) {
    absl::StatusOr<std::shared_ptr<WorldEntry>> found = registry_->Find(request.world_id());
    if (!found.ok()) return found.status();
    const int64_t key = (*found)->Read([&](const World&) { return (*found)->journal().key; });
    if (key >= 0) {
      if (absl::Status s = durability_.journal->DeleteWorld(key); !s.ok()) return s;
    }
  }
  absl::StatusOr<std::shared_ptr<WorldEntry>> entry = registry_->Remove(request.world_id());
  if (!entry.ok()) return entry.status();
  reply->set_tick((*entry)->Read([](const World& world) { return world.tick(); }));
  return absl::OkStatus();
}

absl::Status Operations::ListWorlds(const v1::ListWorldsRequest&, v1::ListWorldsResponse* reply) {
  for (const std::shared_ptr<WorldEntry>& entry : registry_->List()) {
    entry->Read([&](const World& world) { FillWorldInfo(*entry, world, false, reply->add_worlds()); });
  }
  return absl::OkStatus();
}

// ---- Bodies ----------------------------------------------------------------------------

absl::Status Operations::AddBodies(const v1::AddBodiesRequest& request, v1::AddBodiesResponse* reply) {
  const size_t count = static_cast<size_t>(request.bodies_size());
  if (absl::Status s = CheckBatch(count, "bodies"); !s.ok()) return s;
  absl::StatusOr<std::shared_ptr<WorldEntry>> entry = registry_->Find(request.world_id());
  if (!entry.ok()) return entry.status();
  std::vector<BodyDef> bodies(count);
  for (size_t i = 0; i < count; ++i) {
    const arbiter::Status s = wire::ParseBodyDef(request.bodies(static_cast<int>(i)), Indexed("bodies", i), &bodies[i]);
    if (!s.ok()) return FromCore(s);
  }
  return (*entry)->Write([&](World& world) -> absl::Status {
    if (absl::Status s = FromCore(world.AddBodies(bodies)); !s.ok()) return s;
    if (absl::Status s = JournalRequest(**entry, world.tick(), &v1::JournalRecord::mutable_add_bodies, request); !s.ok()) {
      return s;
    }
    reply->set_tick(world.tick());
    reply->set_body_count(world.body_count());
    return absl::OkStatus();
  });
}

absl::Status Operations::RemoveBodies(const v1::RemoveBodiesRequest& request, v1::RemoveBodiesResponse* reply) {
  if (absl::Status s = CheckBatch(static_cast<size_t>(request.body_ids_size()), "body_ids"); !s.ok()) return s;
  absl::StatusOr<std::shared_ptr<WorldEntry>> entry = registry_->Find(request.world_id());
  if (!entry.ok()) return entry.status();
  const std::vector<uint64_t> ids(request.body_ids().begin(), request.body_ids().end());
  return (*entry)->Write([&](World& world) -> absl::Status {
    if (absl::Status s = FromCore(world.RemoveBodies(ids)); !s.ok()) return s;
    if (absl::Status s = JournalRequest(**entry, world.tick(), &v1::JournalRecord::mutable_remove_bodies, request); !s.ok()) {
      return s;
    }
    reply->set_tick(world.tick());
    reply->set_body_count(world.body_count());
    return absl::OkStatus();
  });
}

absl::Status Operations::UpdateBodies(const v1::UpdateBodiesRequest& request, v1::UpdateBodiesResponse* reply) {
  const size_t count = static_cast<size_t>(request.updates_size());
  if (absl::Status s = CheckBatch(count, "updates"); !s.ok()) return s;
  absl::StatusOr<std::shared_ptr<WorldEntry>> entry = registry_->Find(request.world_id());
  if (!entry.ok()) return entry.status();
  std::vector<wire::BodyUpdate> updates(count);
  for (size_t i = 0; i < count; ++i) {
    const arbiter::Status s = wire::ParseBodyUpdate(request.updates(static_cast<int>(i)), Indexed("updates", i), &updates[i]);
    if (!s.ok()) return FromCore(s);
  }
  return (*entry)->Write([&](World& world) -> absl::Status {
    std::vector<Undo> undo;
    for (size_t i = 0; i < count; ++i) {
      if (absl::Status s = ApplyUpdate(world, updates[i], Indexed("updates", i), &undo); !s.ok()) {
        RollBack(world, undo);
        return s;
      }
    }
    if (absl::Status s = JournalRequest(**entry, world.tick(), &v1::JournalRecord::mutable_update_bodies, request); !s.ok()) {
      return s;
    }
    reply->set_tick(world.tick());
    return absl::OkStatus();
  });
}

// ---- Stepping --------------------------------------------------------------------------

absl::Status Operations::Step(const v1::StepRequest& request, v1::StepResponse* reply, const CancelFn& cancelled) {
  const uint32_t ticks = request.ticks();
  if (ticks == 0) return absl::InvalidArgumentError("ticks: must be at least 1");
  if (ticks > limits_.max_step_ticks) {
    return absl::ResourceExhaustedError("ticks: " + std::to_string(ticks) + " exceed the limit of " +
                                        std::to_string(limits_.max_step_ticks) + " per call (--max_step_ticks)");
  }
  const size_t command_count = static_cast<size_t>(request.commands_size());
  if (command_count > 0) {
    if (absl::Status s = CheckBatch(command_count, "commands"); !s.ok()) return s;
  }
  absl::StatusOr<std::shared_ptr<WorldEntry>> entry = registry_->Find(request.world_id());
  if (!entry.ok()) return entry.status();

  // Parse every command; then order them by tick offset, keeping request
  // order within an offset (stable sort: deterministic).
  std::vector<wire::BodyUpdate> updates(command_count);
  std::vector<size_t> order(command_count);
  for (size_t i = 0; i < command_count; ++i) {
    const v1::StepCommand& c = request.commands(static_cast<int>(i));
    const std::string field = Indexed("commands", i);
    if (c.tick_offset() >= ticks) {
      return absl::OutOfRangeError(field + ".tick_offset: " + std::to_string(c.tick_offset()) +
                                   " is not below ticks (" + std::to_string(ticks) + ")");
    }
    if (!c.has_update()) return absl::InvalidArgumentError(field + ".update: required");
    if (absl::Status s = FromCore(wire::ParseBodyUpdate(c.update(), field + ".update", &updates[i])); !s.ok()) return s;
    order[i] = i;
  }
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return request.commands(static_cast<int>(a)).tick_offset() < request.commands(static_cast<int>(b)).tick_offset();
  });

  WorldEntry& world_entry = **entry;
  return world_entry.Write([&](World& world) -> absl::Status {
    for (size_t i = 0; i < command_count; ++i) {
      const std::string field = Indexed("commands", i) + ".update";
      if (absl::Status s = CheckUpdateAgainstWorld(world, updates[i], field); !s.ok()) return s;
    }
    if (cancelled()) return Cancelled();
    // One tick can be undone with the update undo log alone (the tick itself
    // runs only after every command applied). Longer runs keep a copy to
    // return to if a later command fails or the caller cancels: a copy,
    // not a snapshot, so that returning cannot fail (issue 13).
    std::optional<World> before;
    if (ticks > 1) before = world.Clone();
    const int64_t start_tick = world.tick();
    auto abandon = [&](absl::Status why) {
      if (before) world = std::move(*before);
      world_entry.history().DropFrom(start_tick);
      return why;
    };
    std::vector<uint64_t> tick_hashes;
    tick_hashes.reserve(ticks);

    const bool watched = world_entry.events().HasSubscribers();
    const bool want_events = !request.omit_events() || watched;
    std::vector<std::shared_ptr<const v1::TickEvents>> published;
    if (want_events) published.reserve(ticks);
    TickEvents events;
    size_t next = 0;
    for (uint32_t t = 0; t < ticks; ++t) {
      if (t > 0 && cancelled()) return abandon(Cancelled());
      // The state at this tick is final now: the step commands below
      // belong to the step out of it.
      world_entry.history().Record(world);
      std::vector<Undo> undo;
      for (; next < command_count && request.commands(static_cast<int>(order[next])).tick_offset() == t; ++next) {
        const size_t i = order[next];
        if (absl::Status s = ApplyUpdate(world, updates[i], Indexed("commands", i) + ".update", &undo); !s.ok()) {
          RollBack(world, undo);
          return abandon(s);
        }
      }
      world.Step(want_events ? &events : nullptr);
      tick_hashes.push_back(world.StateHash());
      if (want_events || request.hash_every_tick()) {
        auto tick = std::make_shared<v1::TickEvents>();
        if (want_events) {
          wire::ToProto(events, world.tick(), tick.get());
        } else {
          tick->set_tick(world.tick());
        }
        if (request.hash_every_tick()) tick->set_state_hash(tick_hashes.back());
        published.push_back(std::move(tick));
      }
    }
    if (Journaled(world_entry)) {
      v1::JournalRecord record;
      record.set_tick(start_tick);
      *record.mutable_step() = request;
      for (uint64_t h : tick_hashes) record.add_tick_hashes(h);
      std::vector<v1::JournalRecord*> records = {&record};
      // A checkpoint when the step crossed a multiple of
      // --snapshot_every_ticks, so that a restart replays a bounded tail.
      v1::JournalRecord checkpoint;
      const int64_t every = durability_.snapshot_every_ticks;
      if (every > 0 && world.tick() / every != start_tick / every) {
        checkpoint = SnapshotRecord(world, /*restored=*/false);
        records.push_back(&checkpoint);
      }
      if (absl::Status s = JournalChange(world_entry, std::move(records)); !s.ok()) return s;
    }
    for (uint64_t h : tick_hashes) world_entry.hashes().Push(h);
    reply->set_tick(world.tick());
    reply->set_state_hash(tick_hashes.back());
    if (!request.omit_events()) {
      reply->mutable_ticks()->Reserve(static_cast<int>(published.size()));
      for (const auto& tick : published) *reply->add_ticks() = *tick;
      // Keep the reply deliverable: the ticks happened either way; a reply
      // the transport would refuse would hide that.
      if (reply->ByteSizeLong() > limits_.max_message_bytes) {
        reply->clear_ticks();
        reply->set_events_truncated(true);
      }
    } else if (request.hash_every_tick()) {
      for (const auto& tick : published) {
        v1::TickEvents* t = reply->add_ticks();
        t->set_tick(tick->tick());
        t->set_state_hash(tick->state_hash());
      }
    }
    if (watched) world_entry.events().Publish(published);
    return absl::OkStatus();
  });
}

absl::Status Operations::Restore(const v1::RestoreRequest& request, v1::RestoreResponse* reply) {
  absl::StatusOr<std::shared_ptr<WorldEntry>> entry = registry_->Find(request.world_id());
  if (!entry.ok()) return entry.status();
  if (request.snapshot().empty()) return absl::InvalidArgumentError("snapshot: empty");
  // Decode and check outside the lock: queries keep running meanwhile.
  World restored;
  const std::span<const uint8_t> bytes(reinterpret_cast<const uint8_t*>(request.snapshot().data()),
                                       request.snapshot().size());
  if (absl::Status s = FromCore(World::Restore(bytes, &restored)); !s.ok()) return WithPrefix(s, "snapshot: ");
  const uint32_t limit = registry_->limits().max_bodies_per_world;
  if (restored.def().max_bodies > limit || restored.body_count() > limit) {
    return absl::ResourceExhaustedError("snapshot: its body limit (" + std::to_string(restored.def().max_bodies) +
                                        ") exceeds the server's --max_bodies_per_world (" + std::to_string(limit) + ")");
  }
  return (*entry)->Write([&](World& world) -> absl::Status {
    if (Journaled(**entry)) {
      v1::JournalRecord record = SnapshotRecord(restored, /*restored=*/true);
      record.set_tick(world.tick());  // like every record: the tick it was applied at
      if (absl::Status s = JournalChange(**entry, {&record}); !s.ok()) return s;
    }
    world = std::move(restored);
    (*entry)->history().Clear();
    FillWorldInfo(**entry, world, true, reply->mutable_world());
    (*entry)->hashes().Reset(world.tick(), reply->world().state_hash());
    return absl::OkStatus();
  });
}

absl::Status Operations::ExportJournal(const v1::ExportJournalRequest& request, std::string* file) {
  if (durability_.journal == nullptr) {
    return absl::FailedPreconditionError("this server keeps no journal (start it with --data_dir)");
  }
  if (request.from_tick() < 0 || request.to_tick() < 0) {
    return absl::InvalidArgumentError("from_tick, to_tick: must not be negative");
  }
  if (request.to_tick() != 0 && request.to_tick() <= request.from_tick()) {
    return absl::InvalidArgumentError("to_tick: must be after from_tick (or 0 for the end)");
  }
  absl::StatusOr<std::shared_ptr<WorldEntry>> entry = registry_->Find(request.world_id());
  if (!entry.ok()) return entry.status();
  const int64_t key = (*entry)->Read([&](const World&) { return (*entry)->journal().key; });
  if (key < 0) return absl::FailedPreconditionError("world_id: world '" + request.world_id() + "' is not journaled");
  *file = std::string(kJournalFileMagic);
  return durability_.journal->ReadRange(key, request.from_tick(), request.to_tick(),
                                        [&](const v1::JournalRecord& r) {
                                          AppendDelimited(r, file);
                                          return absl::OkStatus();
                                        });
}

}  // namespace arbiter::server
