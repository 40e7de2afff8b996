// A seeded "match": a world and a long, reproducible stream of the changes
// a game server makes (bodies spawned and removed, players teleported and
// pushed, steps with per-tick commands). The same seed gives the same
// requests, so two servers (or a server and its restarted self) can be fed
// identical streams and compared.
#pragma once

#include <algorithm>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "arbiter/client/client.h"
#include "arbiter/core/fixed_math.h"
#include "arbiter/wire/convert.h"
#include "testing/random.h"

namespace arbiter::testing {

class MatchScript {
 public:
  struct Op {
    enum class Kind { kAdd, kRemove, kUpdate, kStep } kind = Kind::kStep;
    v1::AddBodiesRequest add;
    v1::RemoveBodiesRequest remove;
    v1::UpdateBodiesRequest update;
    v1::StepRequest step;
  };

  MatchScript(std::string world, uint64_t seed) : world_(std::move(world)), rng_(seed) {}

  const std::string& world() const { return world_; }

  /// The world: a floor, two walls, a few kinematic "players", 40 crates.
  v1::CreateWorldRequest Create(uint32_t history_ticks = 0) {
    v1::CreateWorldRequest request;
    request.set_world_id(world_);
    request.set_tick_hz(60);
    request.set_history_ticks(history_ticks);
    wire::ToProto(Vec2{kFixedZero, Fixed::FromInt(-10)}, request.mutable_gravity());
    wire::ToProto(Box(1, BodyType::kStatic, 0, -1, 60, 1), request.add_bodies());
    wire::ToProto(Box(2, BodyType::kStatic, -60, 20, 1, 20), request.add_bodies());
    wire::ToProto(Box(3, BodyType::kStatic, 60, 20, 1, 20), request.add_bodies());
    for (uint64_t id = 10; id < 14; ++id) {
      BodyDef player = Disk(id, BodyType::kKinematic, -40.0 + 20.0 * static_cast<double>(id - 10), 4, 1);
      player.linear_velocity = {Fixed::FromInt(3), kFixedZero};
      wire::ToProto(player, request.add_bodies());
      players_.push_back(id);
    }
    for (int i = 0; i < 40; ++i) wire::ToProto(NewCrate(), request.add_bodies());
    return request;
  }

  /// The next change. Every change is valid for the world as the previous
  /// ones left it.
  Op Next() {
    Op op;
    const uint64_t r = rng_.Next() % 10;
    if (r < 5 || crates_.size() < 4) {
      op.kind = Op::Kind::kStep;
      op.step.set_world_id(world_);
      op.step.set_ticks(1 + static_cast<uint32_t>(rng_.Next() % 3));
      op.step.set_omit_events(true);
      v1::StepCommand* c = op.step.add_commands();
      c->set_tick_offset(static_cast<uint32_t>(rng_.Next() % op.step.ticks()));
      c->mutable_update()->set_body_id(players_[rng_.Next() % players_.size()]);
      wire::ToProto(Vec2{Fixed::FromInt(rng_.Uniform(-5, 5)), kFixedZero}, c->mutable_update()->mutable_velocity()->mutable_linear());
    } else if (r < 7) {
      op.kind = Op::Kind::kAdd;
      op.add.set_world_id(world_);
      for (int i = 0; i < 3; ++i) wire::ToProto(NewCrate(), op.add.add_bodies());
    } else if (r < 8) {
      op.kind = Op::Kind::kRemove;
      op.remove.set_world_id(world_);
      const size_t k = rng_.Next() % crates_.size();
      op.remove.add_body_ids(crates_[k]);
      crates_.erase(crates_.begin() + static_cast<std::ptrdiff_t>(k));
    } else {
      op.kind = Op::Kind::kUpdate;
      op.update.set_world_id(world_);
      v1::BodyUpdate* u = op.update.add_updates();
      u->set_body_id(players_[rng_.Next() % players_.size()]);
      const Transform to{{Fixed::FromInt(rng_.Uniform(-50, 50)), Fixed::FromInt(rng_.Uniform(2, 20))},
                         MakeRot(Fixed::FromRatio(rng_.Uniform(0, 628), 100))};
      wire::ToProto(to, u->mutable_transform());
    }
    return op;
  }

  /// Sends `op`; the step's reply in *step when it is a step.
  static absl::Status Apply(client::ArbiterClient& client, const Op& op, v1::StepResponse* step = nullptr) {
    switch (op.kind) {
      case Op::Kind::kAdd: return client.AddBodies(op.add).status();
      case Op::Kind::kRemove: return client.RemoveBodies(op.remove).status();
      case Op::Kind::kUpdate: return client.UpdateBodies(op.update).status();
      case Op::Kind::kStep: {
        absl::StatusOr<v1::StepResponse> reply = client.Step(op.step);
        if (reply.ok() && step != nullptr) *step = *reply;
        return reply.status();
      }
    }
    return absl::InternalError("unknown op");
  }

  /// Players' ids (kinematic disks), for shooters and targets.
  const std::vector<uint64_t>& players() const { return players_; }

  /// A box body of half extents (hw, hh) at (x, y).
  static BodyDef Box(uint64_t id, BodyType type, double x, double y, double hw, double hh) {
    BodyDef b;
    b.id = id;
    b.type = type;
    b.transform.p = {Fixed::FromDouble(x), Fixed::FromDouble(y)};
    Polygon p;
    (void)MakeBox(Fixed::FromDouble(hw), Fixed::FromDouble(hh), &p);
    ShapeDef sd;
    sd.shape = Shape::FromPolygon(p);
    b.shapes.push_back(sd);
    return b;
  }
  static BodyDef Disk(uint64_t id, BodyType type, double x, double y, double r) {
    BodyDef b;
    b.id = id;
    b.type = type;
    b.transform.p = {Fixed::FromDouble(x), Fixed::FromDouble(y)};
    ShapeDef sd;
    sd.shape = Shape::FromCircle({{}, Fixed::FromDouble(r)});
    b.shapes.push_back(sd);
    return b;
  }

 private:
  BodyDef NewCrate() {
    const uint64_t id = next_id_++;
    crates_.push_back(id);
    const double x = static_cast<double>(rng_.Uniform(-50, 50));
    const double y = 5 + static_cast<double>(rng_.Uniform(0, 30));
    return rng_.Next() % 2 == 0 ? Box(id, BodyType::kDynamic, x, y, 0.5, 0.5) : Disk(id, BodyType::kDynamic, x, y, 0.5);
  }

  std::string world_;
  SplitMix64 rng_;
  uint64_t next_id_ = 100;
  std::vector<uint64_t> players_;
  std::vector<uint64_t> crates_;
};

}  // namespace arbiter::testing
