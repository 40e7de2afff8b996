#include "scene_reader.h"

#include <cstdio>
#include <memory>

#include "arbiter/core/chain.h"
#include "arbiter/core/shapes.h"
#include "json_reader.h"

namespace arbiter::determinism {

namespace {

bool ReadFixed(JsonReader& r, Fixed* out) {
  int64_t raw = 0;
  if (!r.ReadFixedRaw(&raw)) return false;
  *out = Fixed::FromRaw(raw);
  return true;
}

bool ReadVec2(JsonReader& r, Vec2* out) {
  if (!r.BeginObject()) return false;
  bool has_x = false, has_y = false;
  std::string_view key;
  while (r.NextKey(&key)) {
    if (key == "x") {
      has_x = ReadFixed(r, &out->x);
    } else if (key == "y") {
      has_y = ReadFixed(r, &out->y);
    } else {
      r.Fail("unknown vector key " + std::string(key));
    }
  }
  if (r.ok() && !(has_x && has_y)) r.Fail("vector needs x and y");
  return r.ok();
}

bool CheckShape(JsonReader& r, ShapeError error, const char* what) {
  if (error != ShapeError::kOk) r.Fail(std::string(what) + ": " + ShapeErrorMessage(error));
  return r.ok();
}

// [vec2, ...], appended to *out.
bool ReadPoints(JsonReader& r, std::vector<Vec2>* out) {
  if (!r.BeginArray()) return false;
  while (r.NextItem()) {
    Vec2 p;
    ReadVec2(r, &p);
    out->push_back(p);
  }
  return r.ok();
}

// {"points": [...], "loop": bool}: the chain's segments, appended to *out.
bool ReadChain(JsonReader& r, std::vector<ShapeDef>* out) {
  std::vector<Vec2> points;
  bool loop = false;
  std::string_view key;
  if (!r.BeginObject()) return false;
  while (r.NextKey(&key)) {
    if (key == "points") {
      if (!ReadPoints(r, &points)) return false;
    } else if (key == "loop") {
      r.ReadBool(&loop);
    } else {
      r.Fail("unknown chain key " + std::string(key));
    }
  }
  std::vector<Shape> segments;
  if (!r.ok() || !CheckShape(r, MakeChain(points, loop, &segments), "chain")) return false;
  for (const Shape& segment : segments) {
    out->emplace_back();
    out->back().shape = segment;
  }
  return true;
}

// One shape, or a chain's segments, appended to *shapes.
bool ReadShape(JsonReader& r, std::vector<ShapeDef>* shapes) {
  if (!r.BeginObject()) return false;
  ShapeDef def;
  ShapeDef* out = &def;
  bool is_chain = false;
  std::string_view kind;
  int kinds = 0;
  while (r.NextKey(&kind)) {
    ++kinds;
    std::string_view key;
    if (kind == "circle") {
      Circle c;
      if (!r.BeginObject()) return false;
      while (r.NextKey(&key)) {
        if (key == "center") ReadVec2(r, &c.center);
        else if (key == "radius") ReadFixed(r, &c.radius);
        else r.Fail("unknown circle key " + std::string(key));
      }
      if (!CheckShape(r, ValidateCircle(c), "circle")) return false;
      out->shape = Shape::FromCircle(c);
    } else if (kind == "box") {
      Vec2 half;
      if (!r.BeginObject()) return false;
      while (r.NextKey(&key)) {
        if (key == "half") ReadVec2(r, &half);
        else r.Fail("unknown box key " + std::string(key));
      }
      Polygon polygon;
      if (!r.ok() || !CheckShape(r, MakeBox(half.x, half.y, &polygon), "box")) return false;
      out->shape = Shape::FromPolygon(polygon);
    } else if (kind == "polygon") {
      std::vector<Vec2> points;
      if (!r.BeginObject()) return false;
      while (r.NextKey(&key)) {
        if (key == "points") {
          if (!ReadPoints(r, &points)) return false;
        } else {
          r.Fail("unknown polygon key " + std::string(key));
        }
      }
      Polygon polygon;
      if (!r.ok() || !CheckShape(r, MakePolygon(points, kFixedZero, &polygon), "polygon")) return false;
      out->shape = Shape::FromPolygon(polygon);
    } else if (kind == "capsule") {
      Capsule c;
      if (!r.BeginObject()) return false;
      while (r.NextKey(&key)) {
        if (key == "p1") ReadVec2(r, &c.center1);
        else if (key == "p2") ReadVec2(r, &c.center2);
        else if (key == "radius") ReadFixed(r, &c.radius);
        else r.Fail("unknown capsule key " + std::string(key));
      }
      if (!CheckShape(r, ValidateCapsule(c), "capsule")) return false;
      out->shape = Shape::FromCapsule(c);
    } else if (kind == "chain") {
      is_chain = true;
      if (!ReadChain(r, shapes)) return false;
    } else {
      r.Fail("unknown shape " + std::string(kind));
    }
  }
  if (r.ok() && kinds != 1) r.Fail("a shape needs exactly one kind");
  if (r.ok() && !is_chain) shapes->push_back(def);
  return r.ok();
}

bool ReadBody(JsonReader& r, BodyDef* out) {
  if (!r.BeginObject()) return false;
  std::string_view key;
  bool has_id = false;
  while (r.NextKey(&key)) {
    if (key == "id") {
      has_id = r.ReadUint64(&out->id);
    } else if (key == "type") {
      std::string_view type;
      if (!r.ReadString(&type)) return false;
      if (type == "static") out->type = BodyType::kStatic;
      else if (type == "kinematic") out->type = BodyType::kKinematic;
      else if (type == "dynamic") out->type = BodyType::kDynamic;
      else r.Fail("unknown body type " + std::string(type));
    } else if (key == "position") {
      ReadVec2(r, &out->transform.p);
    } else if (key == "velocity") {
      ReadVec2(r, &out->linear_velocity);
    } else if (key == "shapes") {
      if (!r.BeginArray()) return false;
      while (r.NextItem()) {
        if (!ReadShape(r, &out->shapes)) return false;
      }
    } else {
      r.Fail("unknown body key " + std::string(key));
    }
  }
  if (r.ok() && (!has_id || out->id == 0)) r.Fail("a body needs a positive id");
  return r.ok();
}

bool Finish(JsonReader& r, std::string* error) {
  if (r.ok() && !r.AtEnd()) r.Fail("trailing characters");
  if (!r.ok()) *error = r.error();
  return r.ok();
}

}  // namespace

bool ReadTextFile(const std::string& path, std::string* out, std::string* error) {
  std::unique_ptr<std::FILE, int (*)(std::FILE*)> file(std::fopen(path.c_str(), "rb"), &std::fclose);
  if (!file) {
    *error = path + ": cannot open";
    return false;
  }
  std::string text;
  char buffer[1 << 16];
  for (;;) {
    const size_t n = std::fread(buffer, 1, sizeof buffer, file.get());
    text.append(buffer, n);
    if (n < sizeof buffer) break;
  }
  if (std::ferror(file.get())) {
    *error = path + ": cannot read";
    return false;
  }
  *out = std::move(text);
  return true;
}

bool ParseSceneText(const std::string& text, SceneData* out, std::string* error) {
  JsonReader r(text);
  SceneData scene;
  if (r.BeginObject()) {
    std::string_view key;
    while (r.NextKey(&key)) {
      if (key == "format") {
        std::string_view format;
        if (r.ReadString(&format) && format != "arbiter-scene/1") r.Fail("not an arbiter-scene/1 file");
      } else if (key == "name") {
        std::string_view name;
        if (r.ReadString(&name)) scene.name = std::string(name);
      } else if (key == "gravity") {
        ReadVec2(r, &scene.world.gravity);
      } else if (key == "tick_hz") {
        int64_t hz = 0;
        if (r.ReadInt64(&hz)) {
          if (hz < 1 || hz > 10000) r.Fail("tick_hz out of range");
          scene.world.tick_hz = static_cast<int32_t>(hz);
        }
      } else if (key == "steps") {
        int64_t steps = 0;
        if (r.ReadInt64(&steps)) {
          if (steps < 0 || steps > INT32_MAX) r.Fail("steps out of range");
          scene.steps = static_cast<int32_t>(steps);
        }
      } else if (key == "bodies") {
        if (r.BeginArray()) {
          while (r.NextItem()) {
            BodyDef body;
            if (!ReadBody(r, &body)) break;
            scene.bodies.push_back(std::move(body));
          }
        }
        if (!r.ok()) {
          *error = "bodies[" + std::to_string(scene.bodies.size()) + "]: " + r.error();
          return false;
        }
      } else {
        r.Fail("unknown scene key " + std::string(key));
      }
    }
  }
  if (!Finish(r, error)) return false;
  *out = std::move(scene);
  return true;
}

bool ParseQueryText(const std::string& text, QueryData* out, std::string* error) {
  JsonReader r(text);
  QueryData set;
  if (r.BeginObject()) {
    std::string_view key;
    while (r.NextKey(&key)) {
      std::string_view k;
      if (key == "format") {
        std::string_view format;
        if (r.ReadString(&format) && format != "arbiter-queries/1") r.Fail("not an arbiter-queries/1 file");
      } else if (key == "scene") {
        std::string_view scene;
        r.ReadString(&scene);
      } else if (key == "rays") {
        if (!r.BeginArray()) break;
        while (r.NextItem()) {
          RayCastInput ray;
          ray.max_fraction = kFixedOne;
          if (!r.BeginObject()) break;
          while (r.NextKey(&k)) {
            if (k == "origin") ReadVec2(r, &ray.origin);
            else if (k == "translation") ReadVec2(r, &ray.translation);
            else r.Fail("unknown ray key " + std::string(k));
          }
          set.rays.push_back(ray);
        }
      } else if (key == "aabbs") {
        if (!r.BeginArray()) break;
        while (r.NextItem()) {
          Aabb box;
          if (!r.BeginObject()) break;
          while (r.NextKey(&k)) {
            if (k == "min") ReadVec2(r, &box.lower);
            else if (k == "max") ReadVec2(r, &box.upper);
            else r.Fail("unknown aabb key " + std::string(k));
          }
          if (r.ok() && !IsValid(box)) r.Fail("aabb min > max");
          set.aabbs.push_back(box);
        }
      } else if (key == "circles" || key == "sweeps") {
        const bool sweep = key == "sweeps";
        if (!r.BeginArray()) break;
        while (r.NextItem()) {
          SweepQuery q;
          if (!r.BeginObject()) break;
          // A disk is {center, radius}; a sweep is {circle: disk, translation}.
          auto read_disk_member = [&](std::string_view member) {
            if (member == "center") ReadVec2(r, &q.center);
            else if (member == "radius") ReadFixed(r, &q.radius);
            else r.Fail("unknown disk key " + std::string(member));
          };
          while (r.NextKey(&k)) {
            if (!sweep) {
              read_disk_member(k);
            } else if (k == "circle") {
              std::string_view m;
              if (!r.BeginObject()) break;
              while (r.NextKey(&m)) read_disk_member(m);
            } else if (k == "translation") {
              ReadVec2(r, &q.translation);
            } else {
              r.Fail("unknown sweep key " + std::string(k));
            }
          }
          if (r.ok() && q.radius < kFixedZero) r.Fail("negative radius");
          if (sweep) {
            set.sweeps.push_back(q);
          } else {
            set.disks.push_back({q.center, q.radius});
          }
        }
      } else {
        r.Fail("unknown query-set key " + std::string(key));
      }
    }
  }
  if (!Finish(r, error)) return false;
  *out = std::move(set);
  return true;
}

bool LoadScene(const std::string& path, SceneData* out, std::string* error) {
  std::string text;
  if (!ReadTextFile(path, &text, error)) return false;
  if (!ParseSceneText(text, out, error)) {
    *error = path + ": " + *error;
    return false;
  }
  return true;
}

bool LoadQueries(const std::string& path, QueryData* out, std::string* error) {
  std::string text;
  if (!ReadTextFile(path, &text, error)) return false;
  if (!ParseQueryText(text, out, error)) {
    *error = path + ": " + *error;
    return false;
  }
  return true;
}

}  // namespace arbiter::determinism
