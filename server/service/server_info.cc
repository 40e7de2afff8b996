#include "service/server_info.h"

#include "arbiter/core/limits.h"
#include "service/server.h"

#ifndef ARBITER_VERSION
#error "ARBITER_VERSION comes from the CMake project version (server/CMakeLists.txt)"
#endif

namespace arbiter::server {

v1::GetServerInfoResponse DescribeServer(const ServerOptions& options) {
  v1::GetServerInfoResponse info;
  info.set_version(ARBITER_VERSION);

  v1::ServerLimits& limits = *info.mutable_limits();
  limits.set_max_batch(options.service.max_batch);
  limits.set_max_message_bytes(options.service.max_message_bytes);
  limits.set_max_step_ticks(options.service.max_step_ticks);
  limits.set_max_worlds(static_cast<uint32_t>(options.registry.max_worlds));
  limits.set_max_bodies_per_world(options.registry.max_bodies_per_world);
  limits.set_history_seconds(options.service.history_seconds);
  limits.set_max_history_ticks(options.service.max_history_ticks);
  limits.set_hash_window_ticks(static_cast<uint32_t>(options.registry.hash_window_ticks));
  limits.set_query_threads(options.service.query_threads);
  limits.set_max_scene_bytes(options.service.max_scene_bytes);
  limits.set_max_import_bytes(options.service.max_import_bytes);
  limits.set_max_shapes_per_body(kMaxShapesPerBody);
  limits.set_max_world_coordinate(kFixedMaxWorldCoordinate.raw());
  limits.set_max_query_translation(kMaxQueryTranslation.raw());
  limits.set_max_distance_results(kMaxDistanceResults);
  limits.set_max_judged_shots(options.service.max_judged_shots);
  limits.set_max_rewind_ms(options.service.max_rewind_ms);
  limits.set_max_projectile_flight_ticks(kMaxProjectileFlightTicks);
  limits.set_rate_limit_rps(options.access.limits.requests_per_second);
  limits.set_max_calls_in_flight(options.access.limits.max_calls_in_flight);

  v1::ServerFeatures& features = *info.mutable_features();
  features.set_auth_required(!options.access.token_file.empty());
  features.set_tls(!options.tls.cert_file.empty());
  features.set_client_certificate_required(!options.tls.client_ca_file.empty());
  features.set_journal(!options.data_dir.empty());
  features.set_scenes(!options.service.scene_dir.empty());
  return info;
}

}  // namespace arbiter::server
