#include "body_updates.h"

#include <cstdlib>
#include <optional>

#include "request_checks.h"
#include "status_convert.h"

namespace arbiter::server {

void MustSucceed(const arbiter::Status& s) {
  // Undo writes values the world held a moment ago. Every value a world can
  // hold passes the setters' checks (one table of limits, and the step
  // clamps into it: world.h, Step), and within a batch bodies neither
  // vanish nor change type, so this cannot fail; if it ever did, that is a
  // core bug worth a crash rather than a silently half-rolled-back world.
  if (!s.ok()) std::abort();
}


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

}  // namespace arbiter::server
