// Hit validation, the lag-compensation quickstart: a shooter fires at a
// moving target as the shooter's (delayed) view showed it; the server
// judges the shot against the world at that past tick.
//
//   hit_validation [HOST:PORT]      (default 127.0.0.1:50051)
//
// Exit 0 when the verdicts are the expected ones: the shot aimed at where
// the target was at tick 10 is CONFIRMED at tick 10, MISSED now (the target
// has moved on), and BLOCKED once a wall stands in the way.
#include <cstdio>
#include <string>

#include "arbiter/client/client.h"

using namespace arbiter;

namespace {

constexpr uint64_t kShooter = 1, kTarget = 2, kWall = 3;
const char* kWorld = "hit-validation-example";

const char* Verdict(v1::HitVerdict v) { return v1::HitVerdict_Name(v).c_str() + sizeof("HIT_VERDICT_") - 1; }

bool Check(const char* what, const absl::StatusOr<v1::ValidateHitResponse>& reply, v1::HitVerdict expected) {
  if (!reply.ok()) {
    std::fprintf(stderr, "%s: %s\n", what, reply.status().ToString().c_str());
    return false;
  }
  std::printf("%-28s tick %lld: %s", what, static_cast<long long>(reply->tick()), Verdict(reply->verdict()));
  if (reply->has_first_hit()) {
    std::printf(" (first hit: body %llu at x = %g)", static_cast<unsigned long long>(reply->first_hit().body_id()),
                client::ToDouble(reply->first_hit().point().x()));
  }
  std::printf("\n");
  return reply->verdict() == expected;
}

}  // namespace

int main(int argc, char** argv) {
  auto arbiter = client::ArbiterClient::Connect(argc > 1 ? argv[1] : "127.0.0.1:50051");

  // No gravity; the target (a disk of radius 1) flies up at 6 units/s.
  v1::CreateWorldRequest create;
  create.set_world_id(kWorld);
  create.set_tick_hz(60);
  create.set_history_ticks(120);  // two seconds of past ticks to judge shots in
  *create.add_bodies() = client::MakeBody(kShooter, v1::BODY_TYPE_KINEMATIC, -20, 0, client::MakeCircle(0.5));
  v1::BodyDef target = client::MakeBody(kTarget, v1::BODY_TYPE_KINEMATIC, 10, 0, client::MakeCircle(1));
  *target.mutable_linear_velocity() = client::MakeVec2(0, 6);
  *create.add_bodies() = target;
  if (auto created = arbiter->CreateWorld(create); !created.ok()) {
    std::fprintf(stderr, "CreateWorld: %s\n", created.status().ToString().c_str());
    return 1;
  }

  // Thirty ticks pass (half a second: the target is now 3 units up).
  if (auto stepped = arbiter->StepInChunks(kWorld, 30, 30); !stepped.ok()) {
    std::fprintf(stderr, "Step: %s\n", stepped.status().ToString().c_str());
    return 1;
  }

  // At tick 10 the shooter saw the target at (10, 1): it aims there.
  const v1::Ray shot = client::MakeRay(-20, 0, 30, 1);
  absl::StatusOr<v1::PastTick> then = client::MakePastTick(10);
  if (!then.ok()) return 1;
  bool ok = Check("shot judged at tick 10", arbiter->ValidateHit(kWorld, kShooter, kTarget, shot, *then),
                  v1::HIT_VERDICT_CONFIRMED);
  ok &= Check("same shot judged now", arbiter->ValidateHit(kWorld, kShooter, kTarget, shot), v1::HIT_VERDICT_MISSED);

  // A wall put up between them: the past world at later ticks has it.
  v1::AddBodiesRequest wall;
  wall.set_world_id(kWorld);
  *wall.add_bodies() = client::MakeBody(kWall, v1::BODY_TYPE_STATIC, 0, 0, client::MakeBox(0.5, 10));
  ok &= arbiter->AddBodies(wall).ok() && arbiter->StepInChunks(kWorld, 1, 1).ok();
  const v1::Ray now_shot = client::MakeRay(-20, 0, 30, 3.1);  // at the target where it is now
  ok &= Check("shot through the wall", arbiter->ValidateHit(kWorld, kShooter, kTarget, now_shot),
              v1::HIT_VERDICT_BLOCKED);

  v1::DeleteWorldRequest done;
  done.set_world_id(kWorld);
  ok &= arbiter->DeleteWorld(done).ok();
  std::printf("%s\n", ok ? "all verdicts as expected" : "UNEXPECTED verdict");
  return ok ? 0 : 1;
}
