// One ValidateHit call for the viewer's browser test (the CLI has no
// command for it): prints the verdict name the server answered.
// usage: validate_hit HOST:PORT WORLD SHOOTER TARGET OX OY DX DY
#include <cstdio>
#include <cstdlib>
#include <string>

#include "arbiter/client/client.h"

int main(int argc, char** argv) {
  if (argc != 9) {
    std::fprintf(stderr, "usage: validate_hit HOST:PORT WORLD SHOOTER TARGET OX OY DX DY\n");
    return 2;
  }
  arbiter::v1::ValidateHitRequest request;
  request.set_world_id(argv[2]);
  request.set_shooter_body_id(std::strtoull(argv[3], nullptr, 10));
  request.set_target_body_id(std::strtoull(argv[4], nullptr, 10));
  // The test passes coordinates DescribeWorld printed (raw * 2^-32, exact
  // doubles), so the conversion back is exact.
  *request.mutable_ray() = arbiter::client::MakeRay(std::strtod(argv[5], nullptr), std::strtod(argv[6], nullptr),
                                                    std::strtod(argv[7], nullptr), std::strtod(argv[8], nullptr));
  auto client = arbiter::client::ArbiterClient::Connect(argv[1]);
  absl::StatusOr<arbiter::v1::ValidateHitResponse> reply = client->ValidateHit(request);
  if (!reply.ok()) {
    std::fprintf(stderr, "validate_hit: %s\n", reply.status().ToString().c_str());
    return 1;
  }
  const std::string name = arbiter::v1::HitVerdict_Name(reply->verdict());
  std::printf("%s\n", name.substr(std::string("HIT_VERDICT_").size()).c_str());
  return 0;
}
