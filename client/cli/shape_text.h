// `describe --shapes`: DescribeWorld carries no shapes, so the world's
// snapshot is fetched and read back into a core World in this process,
// whose body definitions give every shape exactly (shape-local
// coordinates, world units).
#pragma once

#include <cstdint>

#include "absl/status/statusor.h"
#include "arbiter/client/client.h"
#include "arbiter/core/world.h"
#include "output.h"

namespace arbiter::cli {

/// The world `world_id` as a core World, from GetSnapshot.
absl::StatusOr<World> FetchWorld(client::ArbiterClient& client, const std::string& world_id);
/// The shapes of body `id`: [{"kind": "circle", ...}], coordinates in the body's frame.
Json ShapesJson(const World& world, uint64_t id);
/// The same, one line per shape, indented under the body's line.
void PrintShapes(const World& world, uint64_t id);

}  // namespace arbiter::cli
