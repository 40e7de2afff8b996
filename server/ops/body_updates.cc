#include "ops/body_updates.h"

#include <optional>

#include "ops/request_checks.h"
#include "ops/status_convert.h"

namespace arbiter::server {

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

absl::Status RollBack(WorldEntry& entry, World& world, std::vector<Undo>& undo, absl::Status why) {
  arbiter::Status failed;
  for (auto it = undo.rbegin(); it != undo.rend() && failed.ok(); ++it) {
    switch (it->kind) {
      case Undo::Kind::kTransform: failed = world.SetBodyTransform(it->body_id, it->transform); break;
      case Undo::Kind::kVelocity: failed = world.SetBodyVelocity(it->body_id, it->linear, it->angular); break;
      case Undo::Kind::kFilter: failed = world.SetShapeFilter(it->body_id, it->shape_index, it->filter); break;
    }
  }
  undo.clear();
  if (failed.ok()) return why;
  const std::string reason = "rolling back a failed change of world '" + entry.id() + "' failed (" + failed.message() +
                             "); the world is offline until a restart recovers its last acknowledged state";
  entry.TakeOffline(reason);
  return absl::InternalError(reason);
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

}  // namespace arbiter::server
