#include "service/world_metadata.h"

#include <string>

namespace arbiter::server {

absl::Status CheckWorldMetadata(const grpc::ServerContextBase& context, std::string_view world_id) {
  if (world_id.empty()) return absl::OkStatus();
  const auto& metadata = context.client_metadata();
  const auto it = metadata.find(kWorldMetadataKey);
  if (it == metadata.end()) return absl::OkStatus();
  const std::string_view routed(it->second.data(), it->second.size());
  if (routed == world_id) return absl::OkStatus();
  return absl::InvalidArgumentError(std::string(kWorldMetadataKey) + ": the call was routed for world '" +
                                    std::string(routed) + "' but names world_id '" + std::string(world_id) +
                                    "'; send the world id the request names");
}

}  // namespace arbiter::server
