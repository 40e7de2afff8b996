// A first program: a world with a floor, one ray, its hit.
#include <cstdio>

#include "arbiter/client/client.h"

using namespace arbiter;

int main(int argc, char** argv) {
  auto arbiter = client::ArbiterClient::Connect(argc > 1 ? argv[1] : "127.0.0.1:50051");
  v1::CreateWorldRequest create;
  create.set_world_id("first-program");
  *create.add_bodies() = client::MakeBody(1, v1::BODY_TYPE_STATIC, 0, 0, client::MakeBox(10, 0.5));
  if (auto world = arbiter->CreateWorld(create); !world.ok()) {
    std::fprintf(stderr, "CreateWorld: %s\n", world.status().ToString().c_str());
    return 1;
  }
  // A ray from (0, 10) straight down, 20 units long.
  auto hit = arbiter->CastRay("first-program", client::MakeRay(0, 10, 0, -20), v1::CAST_MODE_CLOSEST);
  if (!hit.ok() || hit->hits_size() != 1) return 1;
  std::printf("hit body %llu at y = %g (t = %g)\n", static_cast<unsigned long long>(hit->hits(0).body_id()),
              client::ToDouble(hit->hits(0).point().y()), client::ToDouble(hit->hits(0).fraction()));
  v1::DeleteWorldRequest done;
  done.set_world_id("first-program");
  return arbiter->DeleteWorld(done).ok() ? 0 : 1;
}
