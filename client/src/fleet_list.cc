// ListWorldsAcross (fleet.h): ListWorlds fanned out over a known instance
// list, one instance after another, merged by world id.
#include <algorithm>
#include <tuple>

#include "arbiter/client/fleet.h"

namespace arbiter::client {

FleetListing ListWorldsAcross(const std::vector<std::string>& instances, const ClientOptions& options) {
  FleetListing listing;
  for (const std::string& instance : instances) {
    absl::StatusOr<v1::ListWorldsResponse> reply = ArbiterClient::Connect(instance, options)->ListWorlds();
    if (!reply.ok()) {
      listing.unreachable.emplace_back(instance, reply.status());
      continue;
    }
    for (const v1::WorldInfo& w : reply->worlds()) listing.worlds.push_back({instance, w});
  }
  std::sort(listing.worlds.begin(), listing.worlds.end(), [](const FleetWorld& a, const FleetWorld& b) {
    return std::tie(a.info.world_id(), a.instance) < std::tie(b.info.world_id(), b.instance);
  });
  return listing;
}

}  // namespace arbiter::client
