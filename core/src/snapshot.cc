// The canonical byte image of a world, its hash, and restore.
//
// Layout (version 1), all integers little-endian regardless of the host:
//   "ARBW" magic, u32 version,
//   world: i64 gravity.x, i64 gravity.y, i32 tick_hz,
//     [version 3 only: u8 allow_sleep, i32 sub_steps, i32 contact_hertz]
//     u32 max_bodies,
//   i64 tick, u64 body count,
//   per body in ascending id order:
//     u64 id, u8 type, u8 is_bullet, i64 p.x, p.y, q.c, q.s, i64 v.x, v.y, w,
//     i64 linear_damping, angular_damping, gravity_scale, u32 shape count,
//     per shape in body order: u8 type, u8 is_sensor, u8 point count,
//       i64 radius, point count x (i64 x, i64 y) in the body frame,
//       u64 category, u64 mask, i32 group, i64 friction, restitution,
//       density, u64 user tag,
//   u64 contact count, per contact in (a, b) order: u64 a.body, u32 a.shape,
//     u64 b.body, u32 b.shape, u8 point count, per point: u16 feature id,
//     i64 normal impulse, i64 tangent impulse,
//   u64 sensor overlap count, per overlap: u64, u32 (sensor), u64, u32 (visitor),
//   [version 2, and 3 with allow_sleep: per body in ascending id order:
//     u8 awake, i64 sleep time]
//   u64 xxh64 of everything before it.
// Version 2 is a world with sleeping on (WorldDef::allow_sleep, which is
// not written otherwise): a world without it writes version 1, byte for
// byte as before sleeping existed, and both versions restore.
// Version 3 is a world with non-default solver settings (WorldDef::sub_steps
// or contact_hertz not 4 and 30), sleeping on or off: the settings and the
// sleep flag follow tick_hz. A world with the default settings never writes
// it (so every image is canonical: Restore rejects a version 3 image with
// the default settings), and every version restores.
// Every number is a raw Q32.32 value or an integer, so the image (and the
// hash over it) is the same on every compiler and architecture, big-endian
// included. Tree structure, slots and caches are not state and are absent.
// StateHash is xxh64 (seed 0) of the same layout without max_bodies and
// without the trailing checksum.
#include <algorithm>
#include <cstring>

#define XXH_INLINE_ALL
#include <xxhash.h>

#include "arbiter/core/world.h"
#include "world_impl.h"

namespace arbiter {

using internal::BodyRecord;
using internal::ShapeRecord;

namespace {

constexpr char kMagic[4] = {'A', 'R', 'B', 'W'};
constexpr uint32_t kVersion = 1;
constexpr uint32_t kVersionSleeping = 2;  // kVersion plus the sleep section
constexpr uint32_t kVersionSolver = 3;    // plus the solver settings (and the sleep section if on)

bool DefaultSolver(const WorldDef& def) {
  return def.sub_steps == kDefaultSubSteps && def.contact_hertz == kDefaultContactHertz;
}

uint32_t VersionOf(const WorldDef& def) {
  if (!DefaultSolver(def)) return kVersionSolver;
  return def.allow_sleep ? kVersionSleeping : kVersion;
}

class ByteWriter {
 public:
  explicit ByteWriter(std::vector<uint8_t>* out) : out_(out) {}
  void U8(uint8_t v) { out_->push_back(v); }
  void U32(uint32_t v) {
    for (int i = 0; i < 4; ++i) out_->push_back(static_cast<uint8_t>(v >> (8 * i)));
  }
  void U64(uint64_t v) {
    for (int i = 0; i < 8; ++i) out_->push_back(static_cast<uint8_t>(v >> (8 * i)));
  }
  void I32(int32_t v) { U32(static_cast<uint32_t>(v)); }
  void I64(int64_t v) { U64(static_cast<uint64_t>(v)); }
  void F(Fixed v) { I64(v.raw()); }
  void V(Vec2 v) {
    F(v.x);
    F(v.y);
  }

 private:
  std::vector<uint8_t>* out_;
};

class ByteReader {
 public:
  explicit ByteReader(std::span<const uint8_t> in) : in_(in) {}
  bool ok() const { return ok_; }
  size_t remaining() const { return in_.size() - pos_; }
  uint8_t U8() { return static_cast<uint8_t>(Take(1)); }
  uint32_t U32() { return static_cast<uint32_t>(Take(4)); }
  uint64_t U64() { return Take(8); }
  int32_t I32() { return static_cast<int32_t>(U32()); }
  int64_t I64() { return static_cast<int64_t>(U64()); }
  Fixed F() { return Fixed::FromRaw(I64()); }
  Vec2 V() {
    const Fixed x = F();
    return {x, F()};
  }

 private:
  uint64_t Take(int n) {
    if (!ok_ || remaining() < static_cast<size_t>(n)) {
      ok_ = false;
      return 0;
    }
    uint64_t v = 0;
    for (int i = 0; i < n; ++i) v |= static_cast<uint64_t>(in_[pos_ + i]) << (8 * i);
    pos_ += n;
    return v;
  }
  std::span<const uint8_t> in_;
  size_t pos_ = 0;
  bool ok_ = true;
};

// With for_hash, the world's limits (max_bodies) are left out: they bound
// what may be added but do not change how the world evolves, so two
// servers configured differently still agree on the state hash.
std::vector<uint8_t> Encode(const World::Impl& w, bool for_hash) {
  std::vector<std::pair<uint64_t, uint32_t>> order;
  order.reserve(w.live_bodies);
  for (uint32_t slot = 0; slot < w.bodies.size(); ++slot) {
    if (w.bodies[slot].id != 0) order.push_back({w.bodies[slot].id, slot});
  }
  std::sort(order.begin(), order.end());

  std::vector<uint8_t> bytes;
  bytes.reserve(64 + order.size() * 200);
  ByteWriter out(&bytes);
  for (char c : kMagic) out.U8(static_cast<uint8_t>(c));
  const uint32_t version = VersionOf(w.def);
  out.U32(version);
  out.V(w.def.gravity);
  out.I32(w.def.tick_hz);
  if (version == kVersionSolver) {
    out.U8(w.def.allow_sleep ? 1 : 0);
    out.I32(w.def.sub_steps);
    out.I32(w.def.contact_hertz);
  }
  if (!for_hash) out.U32(w.def.max_bodies);
  out.I64(w.tick);
  out.U64(order.size());
  for (const auto& [id, slot] : order) {
    const BodyRecord& b = w.bodies[slot];
    out.U64(b.id);
    out.U8(static_cast<uint8_t>(b.type));
    out.U8(b.is_bullet ? 1 : 0);
    out.V(b.transform.p);
    out.F(b.transform.q.c);
    out.F(b.transform.q.s);
    const internal::BodyMotion& m = w.MotionOf(b);
    out.V(m.linear_velocity);
    out.F(m.angular_velocity);
    out.F(m.linear_damping);
    out.F(m.angular_damping);
    out.F(m.gravity_scale);
    out.U32(b.shape_count);
    for (uint32_t i = 0; i < b.shape_count; ++i) {
      const ShapeRecord& s = w.shapes[b.first_shape + i];
      out.U8(static_cast<uint8_t>(s.type));
      out.U8(s.is_sensor ? 1 : 0);
      out.U8(s.point_count);
      out.F(s.radius);
      for (int k = 0; k < s.point_count; ++k) out.V(w.LocalPoint(s, k));
      const Filter& filter = w.FilterOf(s);
      out.U64(filter.category_bits);
      out.U64(filter.mask_bits);
      out.I32(filter.group_index);
      const internal::ShapeMaterial& material = w.MaterialOf(s);
      out.F(material.friction);
      out.F(material.restitution);
      out.F(material.density);
      out.U64(s.user_tag);
    }
  }
  out.U64(w.contacts.size());
  for (const internal::ContactState& c : w.contacts) {
    out.U64(c.a.body_id);
    out.U32(c.a.shape_index);
    out.U64(c.b.body_id);
    out.U32(c.b.shape_index);
    out.U8(static_cast<uint8_t>(c.point_count));
    for (int i = 0; i < c.point_count; ++i) {
      out.U32(c.points[i].id);
      out.F(c.points[i].normal_impulse);
      out.F(c.points[i].tangent_impulse);
    }
  }
  out.U64(w.sensor_overlaps.size());
  for (const SensorEvent& e : w.sensor_overlaps) {
    out.U64(e.sensor.body_id);
    out.U32(e.sensor.shape_index);
    out.U64(e.visitor.body_id);
    out.U32(e.visitor.shape_index);
  }
  if (w.def.allow_sleep) {
    for (const auto& [id, slot] : order) {
      const internal::BodyMotion& m = w.MotionOf(w.bodies[slot]);
      out.U8(m.awake ? 1 : 0);
      out.F(m.sleep_time);
    }
  }
  return bytes;
}

Status Corrupt(const std::string& what) { return InvalidArgumentError("snapshot: " + what); }

std::string RefName(const ShapeRef& r) {
  return "(" + std::to_string(r.body_id) + ", " + std::to_string(r.shape_index) + ")";
}

// Contacts as a step leaves them (step_contacts.cc): a strictly ascending list of
// touching pairs of non-sensor shapes on two bodies, one of them dynamic.
// Anything else would go into the hash and the next step's warm start and
// events unchecked.
Status ValidateContacts(const World::Impl& w, const std::vector<internal::ContactState>& contacts) {
  for (size_t i = 0; i < contacts.size(); ++i) {
    const internal::ContactState& c = contacts[i];
    const std::string field = "contacts[" + std::to_string(i) + "]";
    if (i > 0 && !(contacts[i - 1].a < c.a || (contacts[i - 1].a == c.a && contacts[i - 1].b < c.b))) {
      return Corrupt(field + ": not in strictly ascending (a, b) order");
    }
    if (!(c.a < c.b)) return Corrupt(field + ": shape a " + RefName(c.a) + " must precede shape b " + RefName(c.b));
    const ShapeRecord* a = w.FindShape(c.a);
    const ShapeRecord* b = w.FindShape(c.b);
    if (a == nullptr) return Corrupt(field + ".a: no shape " + RefName(c.a));
    if (b == nullptr) return Corrupt(field + ".b: no shape " + RefName(c.b));
    if (c.a.body_id == c.b.body_id) return Corrupt(field + ": both shapes are on body " + std::to_string(c.a.body_id));
    if (a->is_sensor || b->is_sensor) return Corrupt(field + ": a sensor shape cannot be in contact");
    if (w.bodies[a->body_slot].type != BodyType::kDynamic && w.bodies[b->body_slot].type != BodyType::kDynamic) {
      return Corrupt(field + ": neither body is dynamic");
    }
    if (c.point_count < 1 || c.point_count > 2) return Corrupt(field + ": a contact has 1 or 2 points");
    for (int k = 0; k < c.point_count; ++k) {
      if (c.points[k].normal_impulse < kFixedZero) {
        return Corrupt(field + ".points[" + std::to_string(k) + "].normal_impulse: negative");
      }
    }
  }
  return OkStatus();
}

// Sensor overlaps as a step leaves them: strictly ascending (sensor,
// visitor) pairs of a sensor shape and a non-sensor shape on another body,
// not both static.
Status ValidateSensors(const World::Impl& w, const std::vector<SensorEvent>& sensors) {
  for (size_t i = 0; i < sensors.size(); ++i) {
    const SensorEvent& e = sensors[i];
    const std::string field = "sensor_overlaps[" + std::to_string(i) + "]";
    if (i > 0 && !(sensors[i - 1].sensor < e.sensor || (sensors[i - 1].sensor == e.sensor && sensors[i - 1].visitor < e.visitor))) {
      return Corrupt(field + ": not in strictly ascending (sensor, visitor) order");
    }
    const ShapeRecord* sensor = w.FindShape(e.sensor);
    const ShapeRecord* visitor = w.FindShape(e.visitor);
    if (sensor == nullptr) return Corrupt(field + ".sensor: no shape " + RefName(e.sensor));
    if (visitor == nullptr) return Corrupt(field + ".visitor: no shape " + RefName(e.visitor));
    if (!sensor->is_sensor) return Corrupt(field + ".sensor: shape " + RefName(e.sensor) + " is not a sensor");
    if (visitor->is_sensor) return Corrupt(field + ".visitor: shape " + RefName(e.visitor) + " is a sensor");
    if (e.sensor.body_id == e.visitor.body_id) return Corrupt(field + ": both shapes are on body " + std::to_string(e.sensor.body_id));
    if (w.bodies[sensor->body_slot].type == BodyType::kStatic && w.bodies[visitor->body_slot].type == BodyType::kStatic) {
      return Corrupt(field + ": both bodies are static");
    }
  }
  return OkStatus();
}


// ---- Restore's stages: each reads one part of the layout above, in order,
// and names what is wrong with it; the world is only built from the parts
// once all of them have been read and AddBodies has checked them.

// The checksum, magic and version: whether the bytes are an image this
// build can read at all, before any field is trusted. *body is what follows
// the version, up to the trailer.
Status CheckEnvelope(std::span<const uint8_t> bytes, std::span<const uint8_t>* body, uint32_t* version_out) {
  if (bytes.size() < 8 + 8) return Corrupt("too short");
  const std::span<const uint8_t> image = bytes.first(bytes.size() - 8);
  ByteReader trailer(bytes.last(8));
  if (trailer.U64() != XXH64(image.data(), image.size(), 0)) return Corrupt("checksum mismatch (truncated or damaged)");
  ByteReader in(image);
  for (char c : kMagic) {
    if (in.U8() != static_cast<uint8_t>(c)) return Corrupt("bad magic (not an Arbiter world snapshot)");
  }
  const uint32_t version = in.U32();
  if (version != kVersion && version != kVersionSleeping && version != kVersionSolver) return Corrupt("unsupported version " + std::to_string(version));
  *version_out = version;
  *body = image.last(in.remaining());
  return OkStatus();
}

// A shape's geometry from its type byte, point count, radius and points
// (already read), through the shape constructors: a polygon is re-checked
// by MakePolygon.
Status MakeStoredShape(uint8_t type, int n, Fixed radius, const Vec2* p, Shape* out) {
  switch (static_cast<ShapeType>(type)) {
    case ShapeType::kCircle:
      if (n != 1) return Corrupt("circle with " + std::to_string(n) + " points");
      *out = Shape::FromCircle({p[0], radius});
      return OkStatus();
    case ShapeType::kCapsule:
      if (n != 2) return Corrupt("capsule with " + std::to_string(n) + " points");
      *out = Shape::FromCapsule({p[0], p[1], radius});
      return OkStatus();
    case ShapeType::kSegment:
      if (n != 2) return Corrupt("segment with " + std::to_string(n) + " points");
      *out = Shape::FromSegment({p[0], p[1]});
      return OkStatus();
    case ShapeType::kChainSegment:  // stored as point1, point2, ghost1, ghost2
      if (n != 4) return Corrupt("chain segment with " + std::to_string(n) + " points");
      *out = Shape::FromChainSegment({p[2], p[0], p[1], p[3]});
      return OkStatus();
    case ShapeType::kPolygon: {
      Polygon polygon;
      const ShapeError error = MakePolygon(std::span<const Vec2>(p, n), radius, &polygon);
      if (error != ShapeError::kOk) return Corrupt(std::string("polygon: ") + ShapeErrorMessage(error));
      *out = Shape::FromPolygon(polygon);
      return OkStatus();
    }
  }
  return Corrupt("unknown shape type " + std::to_string(type));
}

Status ReadShapeDef(ByteReader& in, ShapeDef* sd) {
  const uint8_t type = in.U8();
  sd->is_sensor = in.U8() != 0;
  const uint8_t n = in.U8();
  const Fixed radius = in.F();
  Vec2 p[kMaxPolygonVertices];
  if (n < 1 || n > kMaxPolygonVertices) return Corrupt("bad point count");
  for (int k = 0; k < n; ++k) p[k] = in.V();
  if (Status s = MakeStoredShape(type, n, radius, p, &sd->shape); !s.ok()) return s;
  sd->filter.category_bits = in.U64();
  sd->filter.mask_bits = in.U64();
  sd->filter.group_index = in.I32();
  sd->friction = in.F();
  sd->restitution = in.F();
  sd->density = in.F();
  sd->user_tag = in.U64();
  return OkStatus();
}

Status ReadBodyDef(ByteReader& in, BodyDef* b) {
  b->id = in.U64();
  b->type = static_cast<BodyType>(in.U8());
  b->is_bullet = in.U8() != 0;
  b->transform.p = in.V();
  b->transform.q.c = in.F();
  b->transform.q.s = in.F();
  b->linear_velocity = in.V();
  b->angular_velocity = in.F();
  b->linear_damping = in.F();
  b->angular_damping = in.F();
  b->gravity_scale = in.F();
  const uint32_t shape_count = in.U32();
  if (!in.ok() || shape_count > kMaxShapesPerBody + kMaxChainSegmentsPerBody) return Corrupt("bad shape count");
  b->shapes.resize(shape_count);
  for (ShapeDef& sd : b->shapes) {
    if (Status s = ReadShapeDef(in, &sd); !s.ok()) return s;
  }
  return OkStatus();
}

Status ReadBodies(ByteReader& in, std::vector<BodyDef>* defs) {
  const uint64_t count = in.U64();
  // Each body takes at least 100 bytes: reject absurd counts before allocating.
  if (!in.ok() || count > in.remaining() / 100 + 1) return Corrupt("body count exceeds the data");
  defs->resize(count);
  for (BodyDef& b : *defs) {
    if (Status s = ReadBodyDef(in, &b); !s.ok()) return s;
  }
  return OkStatus();
}

Status ReadContacts(ByteReader& in, std::vector<internal::ContactState>* contacts) {
  const uint64_t contact_count = in.U64();
  if (!in.ok() || contact_count > in.remaining() / 25 + 1) return Corrupt("contact count exceeds the data");
  contacts->resize(contact_count);
  for (internal::ContactState& c : *contacts) {
    c.a = {in.U64(), in.U32()};
    c.b = {in.U64(), in.U32()};
    c.point_count = in.U8();
    if (c.point_count > 2) return Corrupt("contact with more than two points");
    for (int i = 0; i < c.point_count; ++i) {
      const uint32_t id = in.U32();
      if (id > 0xFFFF) return Corrupt("contact point with a feature id beyond 16 bits");
      c.points[i].id = static_cast<uint16_t>(id);
      c.points[i].normal_impulse = in.F();
      c.points[i].tangent_impulse = in.F();
    }
  }
  return OkStatus();
}

Status ReadSensors(ByteReader& in, std::vector<SensorEvent>* sensors) {
  const uint64_t sensor_count = in.U64();
  if (!in.ok() || sensor_count > in.remaining() / 24 + 1) return Corrupt("sensor count exceeds the data");
  sensors->resize(sensor_count);
  for (SensorEvent& e : *sensors) {
    e.sensor = {in.U64(), in.U32()};
    e.visitor = {in.U64(), in.U32()};
  }
  return OkStatus();
}

// Version 2's sleep section, by body in id order (the order of `defs`).
Status ReadSleep(ByteReader& in, const std::vector<BodyDef>& defs, std::vector<std::pair<bool, Fixed>>* sleep) {
  sleep->resize(defs.size());
  for (size_t i = 0; i < defs.size(); ++i) {
    const std::string field = "bodies[" + std::to_string(i) + "]";
    const uint8_t awake = in.U8();
    const Fixed time = in.F();
    if (!in.ok()) return Corrupt("truncated");
    if (awake > 1) return Corrupt(field + ".awake: not 0 or 1");
    if (time < kFixedZero || time > kTimeToSleep) return Corrupt(field + ".sleep_time: beyond 0..kTimeToSleep");
    if (defs[i].type == BodyType::kStatic && (awake == 0 || time != kFixedZero)) {
      return Corrupt(field + ": a static body does not sleep");
    }
    if (awake == 0 && (defs[i].linear_velocity != Vec2{} || defs[i].angular_velocity != kFixedZero)) {
      return Corrupt(field + ": an asleep body has zero velocity");
    }
    (*sleep)[i] = {awake == 1, time};
  }
  return OkStatus();
}

// Asleep islands sleep whole: a kept contact joins two bodies in the same
// state (or one static), as the step leaves them (step_sleep.h).
Status ValidateSleepingContacts(const World::Impl& w) {
  for (size_t i = 0; i < w.contacts.size(); ++i) {
    const BodyRecord* a = w.Find(w.contacts[i].a.body_id);
    const BodyRecord* b = w.Find(w.contacts[i].b.body_id);
    if (a->type != BodyType::kStatic && b->type != BodyType::kStatic && w.MotionOf(*a).awake != w.MotionOf(*b).awake) {
      return Corrupt("contacts[" + std::to_string(i) + "]: joins an awake body and an asleep one");
    }
  }
  return OkStatus();
}

}  // namespace

uint64_t World::StateHash() const {
  const std::vector<uint8_t> bytes = Encode(*impl_, /*for_hash=*/true);
  return XXH64(bytes.data(), bytes.size(), 0);
}

std::vector<uint8_t> World::Snapshot() const {
  std::vector<uint8_t> bytes = Encode(*impl_, /*for_hash=*/false);
  const uint64_t checksum = XXH64(bytes.data(), bytes.size(), 0);
  ByteWriter(&bytes).U64(checksum);
  return bytes;
}

Status World::Restore(std::span<const uint8_t> bytes, World* out) {
  std::span<const uint8_t> body;
  uint32_t version = 0;
  if (Status s = CheckEnvelope(bytes, &body, &version); !s.ok()) return s;
  ByteReader in(body);
  WorldDef def;
  def.allow_sleep = version == kVersionSleeping;
  def.gravity = in.V();
  def.tick_hz = in.I32();
  if (version == kVersionSolver) {
    const uint8_t sleep = in.U8();
    if (sleep > 1) return Corrupt("allow_sleep: not 0 or 1");
    def.allow_sleep = sleep == 1;
    def.sub_steps = in.I32();
    def.contact_hertz = in.I32();
    if (in.ok() && DefaultSolver(def)) {
      return Corrupt("version 3 with the default solver settings (written as version 1 or 2)");
    }
  }
  def.max_bodies = in.U32();
  const int64_t tick = in.I64();
  std::vector<BodyDef> defs;
  if (Status s = ReadBodies(in, &defs); !s.ok()) return s;
  std::vector<internal::ContactState> contacts;
  if (Status s = ReadContacts(in, &contacts); !s.ok()) return s;
  std::vector<SensorEvent> sensors;
  if (Status s = ReadSensors(in, &sensors); !s.ok()) return s;
  std::vector<std::pair<bool, Fixed>> sleep;
  if (!in.ok()) return Corrupt("truncated");
  if (def.allow_sleep) {
    if (Status s = ReadSleep(in, defs, &sleep); !s.ok()) return s;
  }
  if (in.remaining() != 0) return Corrupt("trailing bytes");
  // Re-validate through the ordinary paths: a snapshot is input like any other.
  if (Status s = ValidateWorldDef(def); !s.ok()) return Corrupt(s.message());
  if (tick < 0) return Corrupt("tick: negative");
  World restored(def);
  if (Status s = restored.AddBodies(defs); !s.ok()) return Corrupt(s.message());
  if (Status s = ValidateContacts(*restored.impl_, contacts); !s.ok()) return s;
  if (Status s = ValidateSensors(*restored.impl_, sensors); !s.ok()) return s;
  for (size_t i = 0; i < sleep.size(); ++i) {
    // ReadSleep let a static body through only awake with a zero timer,
    // which is what it has: only movers (which have a motion) are set.
    if (defs[i].type == BodyType::kStatic) continue;
    const BodyRecord& record = restored.impl_->bodies[restored.impl_->SlotOf(defs[i].id)];
    internal::BodyMotion& motion = restored.impl_->MoverMotion(record);
    motion.awake = sleep[i].first;
    motion.sleep_time = sleep[i].second;
  }
  restored.impl_->tick = tick;
  restored.impl_->contacts = std::move(contacts);
  if (Status s = ValidateSleepingContacts(*restored.impl_); !s.ok()) return s;
  restored.impl_->sensor_overlaps = std::move(sensors);
  *out = std::move(restored);
  return OkStatus();
}

}  // namespace arbiter
