// File: digest.h
//
// Folding results into 64-bit digests. Every value is written as canonical
// bytes (integers little-endian, Q32.32 values as their raw int64, sizes as
// u64) into a streaming xxh64 (seed 0), so a digest depends on the values
// only, never on the host's byte order, word size or struct layout.
//
// xxHash comes header-only (XXH_INLINE_ALL, as core/src/snapshot.cc uses
// it): the cross compilers on Debian search /usr/include after their own
// sysroot, so /usr/include/xxhash.h from libxxhash-dev serves every target
// and no library is linked.
#pragma once

#include <cstdint>
#include <cstring>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#define XXH_INLINE_ALL
#include <xxhash.h>

#include "arbiter/core/collision.h"
#include "arbiter/core/manifold.h"
#include "arbiter/core/shapes.h"
#include "arbiter/core/status.h"
#include "arbiter/core/world.h"

namespace arbiter::determinism {

/// xxh64 (seed 0) of bytes, for one-shot use.
inline uint64_t Xxh64(const void* data, size_t size) { return XXH64(data, size, 0); }

class Digest {
 public:
  Digest() { XXH64_reset(&state_, 0); }
  Digest(const Digest&) = delete;
  Digest& operator=(const Digest&) = delete;

  /// The digest of everything folded so far (folding may continue).
  uint64_t Value() {
    Flush();
    return XXH64_digest(&state_);
  }

  void Bytes(const void* data, size_t size) {
    if (used_ + size > sizeof buffer_) Flush();
    if (size > sizeof buffer_) {
      XXH64_update(&state_, data, size);
      return;
    }
    std::memcpy(buffer_ + used_, data, size);
    used_ += size;
  }

  void U8(uint8_t v) { Bytes(&v, 1); }
  void U16(uint16_t v) { Le(v, 2); }
  void U32(uint32_t v) { Le(v, 4); }
  void U64(uint64_t v) { Le(v, 8); }
  void I32(int32_t v) { U32(static_cast<uint32_t>(v)); }
  void I64(int64_t v) { U64(static_cast<uint64_t>(v)); }
  void Bool(bool v) { U8(v ? 1 : 0); }
  void Size(size_t n) { U64(static_cast<uint64_t>(n)); }
  /// A string with its length (so "ab","c" differs from "a","bc").
  void Str(std::string_view s) {
    Size(s.size());
    Bytes(s.data(), s.size());
  }
  /// A tag naming what follows (keeps structurally different streams apart).
  void Tag(char c) { U8(static_cast<uint8_t>(c)); }

  void F(Fixed v) { I64(v.raw()); }
  void V(Vec2 v) {
    F(v.x);
    F(v.y);
  }
  void R(Rot q) {
    F(q.c);
    F(q.s);
  }
  void Xf(const Transform& xf) {
    V(xf.p);
    R(xf.q);
  }
  void Box(const Aabb& b) {
    V(b.lower);
    V(b.upper);
  }
  void Wide(Int128 v) {
    U64(v.lo());
    U64(v.hi());
  }

  void Code(const Status& s) {
    U8(static_cast<uint8_t>(s.code()));
    Str(s.message());
  }

  void Ref(const ShapeRef& r) {
    U64(r.body_id);
    U32(r.shape_index);
  }
  void Refs(const std::vector<ShapeRef>& refs) {
    Size(refs.size());
    for (const ShapeRef& r : refs) Ref(r);
  }
  void Hit(const CastHit& h) {
    Ref(h.shape);
    U64(h.user_tag);
    F(h.fraction);
    V(h.point);
    V(h.normal);
  }
  void Hit(const std::optional<CastHit>& h) {
    Bool(h.has_value());
    if (h) Hit(*h);
  }
  void Hits(const std::vector<CastHit>& hits) {
    Size(hits.size());
    for (const CastHit& h : hits) Hit(h);
  }

  void Cast(const CastOutput& out) {
    Bool(out.hit);
    F(out.fraction);
    V(out.point);
    V(out.normal);
  }
  void Distance(const DistanceOutput& d) {
    V(d.point_a);
    V(d.point_b);
    V(d.normal);
    F(d.distance);
  }
  void Contacts(const Manifold& m) {
    I32(m.point_count);
    V(m.normal);
    for (int i = 0; i < m.point_count && i < 2; ++i) {
      V(m.points[i].point);
      F(m.points[i].separation);
      U16(m.points[i].id);
    }
  }
  void Mass(const MassData& m) {
    F(m.mass);
    V(m.center);
    F(m.rotational_inertia);
    Bool(m.representable);
  }
  void ShapeValue(const Shape& s) {
    U8(static_cast<uint8_t>(s.type));
    switch (s.type) {
      case ShapeType::kCircle:
        V(s.circle.center);
        F(s.circle.radius);
        break;
      case ShapeType::kCapsule:
        V(s.capsule.center1);
        V(s.capsule.center2);
        F(s.capsule.radius);
        break;
      case ShapeType::kSegment:
        V(s.segment.point1);
        V(s.segment.point2);
        break;
      case ShapeType::kChainSegment:
        V(s.chain_segment.ghost1);
        V(s.chain_segment.point1);
        V(s.chain_segment.point2);
        V(s.chain_segment.ghost2);
        break;
      case ShapeType::kPolygon:
        I32(s.polygon.count);
        for (int i = 0; i < s.polygon.count && i < kMaxPolygonVertices; ++i) {
          V(s.polygon.vertices[i]);
          V(s.polygon.normals[i]);
        }
        V(s.polygon.centroid);
        F(s.polygon.radius);
        break;
    }
  }
  void Proxy(const ShapeProxy& p) {
    I32(p.count);
    for (int i = 0; i < p.count && i < kMaxPolygonVertices; ++i) V(p.points[i]);
    F(p.radius);
  }
  void Events(const TickEvents& e) {
    auto contacts = [this](const std::vector<ContactEvent>& list) {
      Size(list.size());
      for (const ContactEvent& c : list) {
        Ref(c.a);
        Ref(c.b);
        V(c.point);
        V(c.normal);
        F(c.approach_speed);
      }
    };
    auto sensors = [this](const std::vector<SensorEvent>& list) {
      Size(list.size());
      for (const SensorEvent& s : list) {
        Ref(s.sensor);
        Ref(s.visitor);
      }
    };
    contacts(e.contact_begin);
    contacts(e.contact_end);
    sensors(e.sensor_enter);
    sensors(e.sensor_exit);
  }
  void Body(const std::optional<BodyView>& b) {
    Bool(b.has_value());
    if (!b) return;
    U64(b->id);
    U8(static_cast<uint8_t>(b->type));
    Xf(b->transform);
    V(b->linear_velocity);
    F(b->angular_velocity);
    U32(b->shape_count);
  }

 private:
  void Le(uint64_t v, int bytes) {
    uint8_t b[8];
    for (int i = 0; i < bytes; ++i) b[i] = static_cast<uint8_t>(v >> (8 * i));
    Bytes(b, static_cast<size_t>(bytes));
  }
  void Flush() {
    if (used_ != 0) XXH64_update(&state_, buffer_, used_);
    used_ = 0;
  }

  XXH64_state_t state_;
  uint8_t buffer_[512];
  size_t used_ = 0;
};

}  // namespace arbiter::determinism
