// Distance: the bodies nearest a placed shape, parsed and checked without a
// lock, answered under the world's shared lock (live or at a past tick).
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "arbiter/core/limits.h"
#include "arbiter/wire/convert.h"
#include "ops/operations.h"
#include "ops/request_checks.h"
#include "ops/status_convert.h"

namespace arbiter::server {
namespace {

struct ParsedDistance {
  Shape shape;
  Transform transform;
  Fixed max_distance;
  uint32_t max_results = 1;
};

struct ParsedDistances {
  wire::OwnedQueryFilter filter;
  std::vector<ParsedDistance> queries;
};

absl::Status ParseDistanceQuery(const v1::DistanceQuery& q, const std::string& field, ParsedDistance* out) {
  if (absl::Status s = ParseShapeAt(q.shape().shape(), q.shape().transform(), q.has_shape() && q.shape().has_shape(),
                                    field + ".shape", &out->shape, &out->transform);
      !s.ok()) {
    return s;
  }
  out->max_distance = Fixed::FromRaw(q.max_distance());
  if (absl::Status s = FromCore(ValidateMaxDistance(out->max_distance, (field + ".max_distance").c_str())); !s.ok()) {
    return s;
  }
  if (q.max_results() > kMaxDistanceResults) {
    return absl::OutOfRangeError(field + ".max_results: must be in 0.." + std::to_string(kMaxDistanceResults) +
                                 " (0: the nearest body only)");
  }
  out->max_results = q.max_results() == 0 ? 1 : q.max_results();
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<ReadOp> Operations::PrepareDistance(const v1::DistanceRequest& request, v1::DistanceResponse* reply) {
  const size_t count = static_cast<size_t>(request.queries_size());
  if (absl::Status s = CheckBatch(count, "queries"); !s.ok()) return s;
  if (absl::Status s = CheckPastTick(request.has_at(), request.at()); !s.ok()) return s;
  absl::StatusOr<std::shared_ptr<WorldEntry>> entry = registry_->Find(request.world_id());
  if (!entry.ok()) return entry.status();

  auto parsed = std::make_shared<ParsedDistances>();
  if (absl::Status s = wire::ParseQueryFilter(request.filter(), "filter", &parsed->filter); !s.ok()) return s;
  parsed->queries.resize(count);
  for (size_t i = 0; i < count; ++i) {
    if (absl::Status s = ParseDistanceQuery(request.queries(static_cast<int>(i)), Indexed("queries", i), &parsed->queries[i]);
        !s.ok()) {
      return s;
    }
  }
  return MakeRead(*entry, request, reply, [parsed, reply](const World& world, const CancelFn& cancelled) -> absl::Status {
    reply->set_tick(world.tick());
    const QueryFilter filter = parsed->filter.Get();
    reply->mutable_results()->Reserve(static_cast<int>(parsed->queries.size()));
    for (size_t i = 0; i < parsed->queries.size(); ++i) {
      if (i % kChunk == 0 && i > 0 && cancelled()) return Cancelled();
      const ParsedDistance& q = parsed->queries[i];
      v1::DistanceResult* r = reply->add_results();
      for (const DistanceHit& h : world.Distance(q.shape, q.transform, q.max_distance, q.max_results, filter)) {
        wire::ToProto(h, r->add_hits());
      }
    }
    return absl::OkStatus();
  });
}

}  // namespace arbiter::server
