// Writes the seed corpus of fuzz_requests: one valid request of every type
// the target knows (and a few near-misses), each as the target reads it: a
// kind byte (low five bits; high bit: aim at world "w") and the serialized
// message. Run from the fuzz build:
//   build-fuzz/tests/fuzz/make_request_corpus tests/fuzz/corpus/fuzz_requests
// The files are committed; rerun only when the requests change.
#include <cstdio>
#include <string>

#include "arbiter/core/shapes.h"
#include "arbiter/core/world.h"
#include "arbiter/v1/arbiter.pb.h"
#include "arbiter/wire/convert.h"

namespace arbiter {
namespace {

constexpr int kAim = 0x80;
constexpr const char* kWorld = "w";

int64_t Raw(double v) { return Fixed::FromDouble(v).raw(); }

v1::Vec2 Vec(double x, double y) {
  v1::Vec2 v;
  v.set_x(Raw(x));
  v.set_y(Raw(y));
  return v;
}

v1::Shape WireCircle(double r) {
  v1::Shape s;
  s.mutable_circle()->set_radius(Raw(r));
  return s;
}

v1::Shape Box(double hw, double hh) {
  v1::Shape s;
  *s.mutable_box()->mutable_half_extents() = Vec(hw, hh);
  return s;
}

v1::Shape Triangle() {
  v1::Shape s;
  *s.mutable_polygon()->add_points() = Vec(-1, 0);
  *s.mutable_polygon()->add_points() = Vec(1, 0);
  *s.mutable_polygon()->add_points() = Vec(0, 1);
  return s;
}

v1::Shape WireCapsule() {
  v1::Shape s;
  *s.mutable_capsule()->mutable_center1() = Vec(-1, 0);
  *s.mutable_capsule()->mutable_center2() = Vec(1, 0);
  s.mutable_capsule()->set_radius(Raw(0.25));
  return s;
}

v1::Shape WireSegment() {
  v1::Shape s;
  *s.mutable_segment()->mutable_point1() = Vec(0, 0);
  *s.mutable_segment()->mutable_point2() = Vec(2, 1);
  return s;
}

v1::BodyDef Body(uint64_t id, v1::BodyType type, double x, double y, const v1::Shape& shape) {
  v1::BodyDef b;
  b.set_id(id);
  b.set_type(type);
  *b.mutable_transform()->mutable_position() = Vec(x, y);
  *b.add_shapes()->mutable_shape() = shape;
  return b;
}

bool Write(const std::string& dir, const std::string& name, int kind, const google::protobuf::Message& m) {
  std::string bytes(1, static_cast<char>(kind));
  bytes += m.SerializeAsString();
  const std::string path = dir + "/" + name;
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (f == nullptr) return false;
  const bool ok = std::fwrite(bytes.data(), 1, bytes.size(), f) == bytes.size();
  return std::fclose(f) == 0 && ok;
}

}  // namespace
}  // namespace arbiter

int main(int argc, char** argv) {
  using namespace arbiter;
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s OUTPUT_DIR\n", argv[0]);
    return 2;
  }
  const std::string dir = argv[1];
  bool ok = true;

  v1::CreateWorldRequest create;
  create.set_world_id("fresh");
  *create.mutable_gravity() = Vec(0, -10);
  create.set_tick_hz(60);
  *create.add_bodies() = Body(1, v1::BODY_TYPE_STATIC, 0, -1, Box(10, 1));
  *create.add_bodies() = Body(2, v1::BODY_TYPE_DYNAMIC, 0, 2, WireCircle(0.5));
  ok &= Write(dir, "create_world", 0, create);
  create.set_world_id(kWorld);
  ok &= Write(dir, "create_world_taken", 0, create);
  create.set_scene("demo.scene.json");
  ok &= Write(dir, "create_world_scene", kAim, create);

  v1::DeleteWorldRequest del;
  ok &= Write(dir, "delete_world", 1 | kAim, del);
  ok &= Write(dir, "list_worlds", 2, v1::ListWorldsRequest());
  v1::DescribeWorldRequest describe;
  describe.set_include_bodies(true);
  ok &= Write(dir, "describe_world", 3 | kAim, describe);

  v1::AddBodiesRequest add;
  add.set_world_id(kWorld);
  *add.add_bodies() = Body(100, v1::BODY_TYPE_DYNAMIC, 0, 5, Triangle());
  *add.add_bodies() = Body(101, v1::BODY_TYPE_KINEMATIC, 4, 5, WireCapsule());
  *add.add_bodies() = Body(102, v1::BODY_TYPE_STATIC, -4, 5, WireSegment());
  v1::BodyDef& fancy = *add.add_bodies();
  fancy = Body(103, v1::BODY_TYPE_DYNAMIC, 6, 6, Box(0.5, 0.25));
  *fancy.mutable_linear_velocity() = Vec(1, 2);
  fancy.set_angular_velocity(Raw(0.5));
  fancy.mutable_shapes(0)->set_friction(Raw(0.3));
  fancy.mutable_shapes(0)->set_density(Raw(2));
  fancy.mutable_shapes(0)->mutable_filter()->set_category_bits(2);
  fancy.mutable_shapes(0)->mutable_filter()->set_mask_bits(3);
  fancy.mutable_shapes(0)->set_is_sensor(true);
  *fancy.mutable_transform()->mutable_rotation() = [] {
    v1::Rot q;
    q.set_c(0);
    q.set_s(Fixed::kOneRaw);
    return q;
  }();
  ok &= Write(dir, "add_bodies", 4 | kAim, add);
  add.mutable_bodies(0)->mutable_shapes(0)->mutable_shape()->mutable_polygon()->mutable_points(2)->set_y(0);
  ok &= Write(dir, "add_bodies_collinear", 4 | kAim, add);

  v1::RemoveBodiesRequest remove;
  remove.add_body_ids(2);
  remove.add_body_ids(5);
  ok &= Write(dir, "remove_bodies", 5 | kAim, remove);

  v1::UpdateBodiesRequest update;
  v1::BodyUpdate* u = update.add_updates();
  u->set_body_id(2);
  *u->mutable_transform()->mutable_position() = Vec(1, 3);
  *u->mutable_velocity()->mutable_linear() = Vec(0, 1);
  v1::BodyUpdate* f = update.add_updates();
  f->set_body_id(1);
  f->add_filters()->mutable_filter()->set_category_bits(4);
  ok &= Write(dir, "update_bodies", 6 | kAim, update);

  v1::CastRaysRequest rays;
  rays.set_mode(v1::CAST_MODE_ALL);
  v1::Ray* ray = rays.add_rays();
  *ray->mutable_origin() = Vec(-20, 0.5);
  *ray->mutable_translation() = Vec(40, 0);
  ray = rays.add_rays();
  *ray->mutable_origin() = Vec(0, 10);
  *ray->mutable_translation() = Vec(0.5, -20);
  ray->set_max_fraction(Raw(0.75));
  rays.mutable_filter()->add_body_types(v1::BODY_TYPE_DYNAMIC);
  rays.mutable_filter()->add_exclude_bodies(3);
  ok &= Write(dir, "cast_rays", 7 | kAim, rays);
  v1::CastRaysRequest columns;
  columns.set_mode(v1::CAST_MODE_CLOSEST);
  for (int i = 0; i < 3; ++i) {
    columns.mutable_columns()->add_origin_x(Raw(-10 + 5 * i));
    columns.mutable_columns()->add_origin_y(Raw(10));
    columns.mutable_columns()->add_translation_x(0);
    columns.mutable_columns()->add_translation_y(Raw(-20));
  }
  ok &= Write(dir, "cast_ray_columns", 7 | kAim, columns);

  // The same rays half way between two recorded ticks (lag compensation).
  rays.mutable_at()->set_tick(1);
  rays.mutable_at()->set_fraction(Raw(0.5));
  ok &= Write(dir, "cast_rays_past", 7 | kAim, rays);

  v1::OverlapRequest overlap;
  *overlap.add_queries()->mutable_point() = Vec(0, 1);
  v1::Aabb* box = overlap.add_queries()->mutable_aabb();
  *box->mutable_lower() = Vec(-3, -1);
  *box->mutable_upper() = Vec(3, 2);
  v1::ShapeQuery* shape = overlap.add_queries()->mutable_shape();
  *shape->mutable_shape() = WireCapsule();
  *shape->mutable_transform()->mutable_position() = Vec(3, 1);
  overlap.mutable_filter()->set_include_sensors(true);
  ok &= Write(dir, "overlap", 8 | kAim, overlap);

  v1::CastShapesRequest casts;
  casts.set_mode(v1::CAST_MODE_CLOSEST);
  v1::ShapeCast* cast = casts.add_casts();
  *cast->mutable_shape() = Box(0.5, 0.5);
  *cast->mutable_transform()->mutable_position() = Vec(0, 8);
  *cast->mutable_translation() = Vec(0, -10);
  cast = casts.add_casts();
  *cast->mutable_shape() = WireCircle(0.25);
  *cast->mutable_translation() = Vec(20, 0);
  ok &= Write(dir, "cast_shapes", 9 | kAim, casts);

  v1::StepRequest step;
  step.set_ticks(4);
  step.set_hash_every_tick(true);
  v1::StepCommand* command = step.add_commands();
  command->set_tick_offset(2);
  command->mutable_update()->set_body_id(3);
  *command->mutable_update()->mutable_velocity()->mutable_linear() = Vec(-2, 0);
  ok &= Write(dir, "step", 10 | kAim, step);
  command->mutable_update()->set_body_id(1);
  ok &= Write(dir, "step_static_velocity", 10 | kAim, step);

  ok &= Write(dir, "get_state_hash", 11 | kAim, v1::GetStateHashRequest());
  ok &= Write(dir, "get_snapshot", 12 | kAim, v1::GetSnapshotRequest());
  v1::RestoreRequest restore;
  restore.set_snapshot("not a snapshot at all");
  ok &= Write(dir, "restore_garbage", 13 | kAim, restore);
  // A real snapshot, for the fuzzer to damage.
  World world;
  BodyDef body;
  body.id = 9;
  body.type = BodyType::kDynamic;
  ShapeDef disk;
  disk.shape = Shape::FromCircle({{}, kFixedOne});
  body.shapes.push_back(disk);
  ok &= world.AddBody(body).ok();
  world.Step();
  const std::vector<uint8_t> image = world.Snapshot();
  restore.set_snapshot(std::string(image.begin(), image.end()));
  ok &= Write(dir, "restore", 13 | kAim, restore);
  v1::ValidateHitRequest shot;
  shot.set_shooter_body_id(4);
  shot.set_target_body_id(3);
  *shot.mutable_ray()->mutable_origin() = Vec(-5, 2);
  *shot.mutable_ray()->mutable_translation() = Vec(10, -1);
  shot.mutable_at()->set_tick(2);
  ok &= Write(dir, "validate_hit", 14 | kAim, shot);
  v1::ReportHashesRequest hashes;
  hashes.set_first_tick(0);
  for (uint64_t h : {0x1234u, 0x5678u, 0x9abcu}) hashes.add_state_hashes(h);
  ok &= Write(dir, "report_hashes", 15 | kAim, hashes);
  v1::ValidateMoveRequest moves;
  moves.set_max_speed(Fixed::FromInt(300).raw());
  v1::MoveClaim* claim = moves.add_claims();
  claim->set_body_id(4);
  claim->set_tick(1);
  *claim->add_positions() = Vec(-4, 2);
  *claim->add_positions() = Vec(-3, 2);
  ok &= Write(dir, "validate_move", 16 | kAim, moves);
  v1::MoveShapesRequest slide;
  v1::ShapeMove* move = slide.add_moves();
  *move->mutable_shape() = WireCircle(0.5);
  *move->mutable_transform()->mutable_position() = Vec(-5, 2);
  *move->mutable_translation() = Vec(10, -3);
  slide.mutable_at()->set_tick(2);
  ok &= Write(dir, "move_shapes", 17 | kAim, slide);
  v1::DistanceRequest near;
  v1::DistanceQuery* nq = near.add_queries();
  *nq->mutable_shape()->mutable_shape() = WireCircle(0.5);
  *nq->mutable_shape()->mutable_transform()->mutable_position() = Vec(-5, 2);
  nq->set_max_distance(Fixed::FromInt(20).raw());
  nq->set_max_results(3);
  near.mutable_at()->set_tick(2);
  ok &= Write(dir, "distance", 18 | kAim, near);
  v1::OverlapRequest sunk;
  v1::OverlapQuery* sq = sunk.add_queries();
  *sq->mutable_shape()->mutable_shape() = WireCircle(1.5);
  *sq->mutable_shape()->mutable_transform()->mutable_position() = Vec(-4, 2);
  ok &= Write(dir, "overlap_contacts", 19 | kAim, sunk);
  v1::ValidateShotsRequest shots;
  v1::Shot* rocket = shots.add_shots();
  rocket->set_shooter_body_id(4);
  rocket->set_shot_id(1);
  rocket->mutable_fire()->set_tick(1);
  *rocket->mutable_origin() = Vec(-6, 2);
  *rocket->mutable_velocity() = Vec(120, 0);
  *rocket->mutable_acceleration() = Vec(0, -10);
  rocket->set_flight_ticks(8);
  rocket->set_target_body_id(2);
  rocket->set_impact_tick(3);
  ok &= Write(dir, "validate_shots", 20 | kAim, shots);
  if (!ok) {
    std::fprintf(stderr, "could not write every file to %s\n", dir.c_str());
    return 1;
  }
  return 0;
}
