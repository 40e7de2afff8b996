#include "arbiter/render/svg_world.h"

#include <algorithm>
#include <cstdint>
#include <set>

#include "arbiter/core/shapes.h"
#include "arbiter/render/exact_decimal.h"

namespace arbiter::render {
namespace {

// Colours and line styles; strokes keep their screen width at any zoom,
// except the strokes that are geometry (capsules, rounded polygons).
constexpr const char* kStyle =
    "<style>"
    ".shape:not(.round),.core,.ray,.normal,.query{vector-effect:non-scaling-stroke;stroke-width:1.5}"
    ".static{fill:#a7b0b8;stroke:#4a535b}.kinematic{fill:#8ec3ea;stroke:#1f5f8b}"
    ".dynamic{fill:#f4c27a;stroke:#8a5a12}"
    ".round.static{stroke:#a7b0b8}.round.kinematic{stroke:#8ec3ea}.round.dynamic{stroke:#f4c27a}"
    ".round{stroke-linecap:round;stroke-linejoin:round}.core{fill:none;stroke:#333}"
    ".sensor{fill-opacity:.2;stroke-opacity:.6;stroke-dasharray:4 3}"
    ".segment{fill:none}.chain.shape:not(.hit){stroke-width:3;stroke-linecap:round}.hit{stroke:#d0021b!important}.hit:not(.round){stroke-width:3}"
    ".ray{stroke:#6a1b9a;stroke-dasharray:6 4;fill:none}.ray.reached{stroke-dasharray:none}"
    ".normal{stroke:#00897b;fill:none}.point{fill:#d0021b}.query{fill:#6a1b9a;fill-opacity:.08;stroke:#6a1b9a}"
    "</style>";

void Num(std::string* out, Fixed v) { AppendExactDecimal(out, v.raw()); }

// Appends ` name="value"` with the exact decimal of v.
void Attr(std::string* out, const char* name, Fixed v) {
  out->append(" ").append(name).append("=\"");
  Num(out, v);
  out->push_back('"');
}

// The negation of a value known to be far from INT64_MIN (a rotation).
Fixed Negate(Fixed v) { return Fixed::FromRaw(static_cast<int64_t>(uint64_t{0} - static_cast<uint64_t>(v.raw()))); }

std::string ShapeTitle(uint64_t body, uint32_t index, const BodyDef& def, const ShapeDef& shape) {
  return "<title>body " + std::to_string(body) + " shape " + std::to_string(index) + ": " + BodyTypeName(def.type) +
         " " + ShapeTypeName(shape.shape.type) + (shape.is_sensor ? " sensor" : "") + "</title>";
}

// Opens a shape element: <tag class="shape TYPE [sensor] [round] [hit]" data-...
void OpenShape(std::string* out, const char* tag, uint64_t body, uint32_t index, const BodyDef& def,
               const ShapeDef& shape, bool round, bool hit) {
  out->append("<").append(tag).append(" class=\"shape ").append(BodyTypeName(def.type));
  if (shape.is_sensor) out->append(" sensor");
  if (round) out->append(" round");
  if (shape.shape.type == ShapeType::kSegment) out->append(" segment");
  if (shape.shape.type == ShapeType::kChainSegment) out->append(" segment chain");
  if (hit) out->append(" hit");
  out->append("\" data-body=\"" + std::to_string(body) + "\" data-shape=\"" + std::to_string(index) + "\"");
}

void AppendPoints(std::string* out, const Polygon& p) {
  out->append(" points=\"");
  for (int32_t i = 0; i < p.count; ++i) {
    if (i > 0) out->push_back(' ');
    Num(out, p.vertices[static_cast<size_t>(i)].x);
    out->push_back(',');
    Num(out, p.vertices[static_cast<size_t>(i)].y);
  }
  out->push_back('"');
}

void AppendLine(std::string* out, Vec2 a, Vec2 b) {
  Attr(out, "x1", a.x);
  Attr(out, "y1", a.y);
  Attr(out, "x2", b.x);
  Attr(out, "y2", b.y);
}

// One shape in its body's frame.
void DrawShape(std::string* out, uint64_t body, uint32_t index, const BodyDef& def, bool hit) {
  const ShapeDef& sd = def.shapes[index];
  const Shape& s = sd.shape;
  const std::string title = ShapeTitle(body, index, def, sd);
  switch (s.type) {
    case ShapeType::kCircle:
      OpenShape(out, "circle", body, index, def, sd, false, hit);
      Attr(out, "cx", s.circle.center.x);
      Attr(out, "cy", s.circle.center.y);
      Attr(out, "r", s.circle.radius);
      break;
    case ShapeType::kCapsule:
      // A line of width 2r with round caps is exactly the capsule.
      OpenShape(out, "line", body, index, def, sd, true, hit);
      AppendLine(out, s.capsule.center1, s.capsule.center2);
      Attr(out, "stroke-width", s.capsule.radius + s.capsule.radius);
      break;
    case ShapeType::kSegment:
      OpenShape(out, "line", body, index, def, sd, false, hit);
      AppendLine(out, s.segment.point1, s.segment.point2);
      break;
    case ShapeType::kChainSegment:
      // The two points; the solid side is drawn by the .chain style (a
      // thicker stroke), the ghosts are not geometry.
      OpenShape(out, "line", body, index, def, sd, false, hit);
      AppendLine(out, s.chain_segment.point1, s.chain_segment.point2);
      break;
    case ShapeType::kPolygon:
      OpenShape(out, "polygon", body, index, def, sd, s.polygon.radius.raw() > 0, hit);
      AppendPoints(out, s.polygon);
      if (s.polygon.radius.raw() > 0) Attr(out, "stroke-width", s.polygon.radius + s.polygon.radius);
      break;
  }
  out->append(">").append(title).append("</").append(s.type == ShapeType::kCircle    ? "circle"
                                                    : s.type == ShapeType::kPolygon ? "polygon"
                                                                                     : "line");
  out->append(">\n");
}

void DrawBody(std::string* out, const BodyDef& def, const std::set<ShapeRef>& highlighted) {
  const Transform& xf = def.transform;
  out->append("<g class=\"body ").append(BodyTypeName(def.type)).append("\" data-body=\"" + std::to_string(def.id) + "\"");
  out->append(" transform=\"matrix(");
  for (Fixed v : {xf.q.c, xf.q.s, Negate(xf.q.s), xf.q.c, xf.p.x, xf.p.y}) {
    if (out->back() != '(') out->push_back(' ');
    Num(out, v);
  }
  out->append(")\">\n");
  for (uint32_t i = 0; i < def.shapes.size(); ++i) {
    DrawShape(out, def.id, i, def, highlighted.count(ShapeRef{def.id, i}) > 0);
  }
  out->append("</g>\n");
}

struct RayAnswer {
  RayCastInput ray;
  std::optional<CastHit> hit;
};

// A dot of radius `dot` at p, titled.
void DrawPoint(std::string* out, Vec2 p, Fixed dot, const std::string& title) {
  out->append("<circle class=\"point\"");
  Attr(out, "cx", p.x);
  Attr(out, "cy", p.y);
  Attr(out, "r", dot);
  out->append("><title>" + title + "</title></circle>\n");
}

std::string PointText(Vec2 p) { return "(" + ExactDecimal(p.x.raw()) + ", " + ExactDecimal(p.y.raw()) + ")"; }

void DrawRay(std::string* out, size_t i, const RayAnswer& a, Fixed dot) {
  const Vec2 end = a.ray.origin + a.ray.translation;
  std::string title = "ray " + std::to_string(i) + " from " + PointText(a.ray.origin) + " along " +
                      PointText(a.ray.translation);
  if (!a.hit) {
    out->append("<line class=\"ray\"");
    AppendLine(out, a.ray.origin, end);
    out->append("><title>" + title + ": no hit</title></line>\n");
    return;
  }
  const CastHit& h = *a.hit;
  title += ": hit body " + std::to_string(h.shape.body_id) + " shape " + std::to_string(h.shape.shape_index) +
           " at fraction " + ExactDecimal(h.fraction.raw()) + ", point " + PointText(h.point) + ", normal " +
           PointText(h.normal);
  out->append("<line class=\"ray\"");
  AppendLine(out, h.point, end);
  out->append("/>\n<line class=\"ray reached\"");
  AppendLine(out, a.ray.origin, h.point);
  out->append("><title>" + title + "</title></line>\n<line class=\"normal\"");
  // The normal drawn 8 dots long: a unit vector scaled by a Q32.32 length.
  AppendLine(out, h.point, h.point + (dot + dot + dot + dot + dot + dot + dot + dot) * h.normal);
  out->append("/>\n");
  DrawPoint(out, h.point, dot, title);
}

void DrawBox(std::string* out, size_t i, const Aabb& box, size_t overlaps) {
  out->append("<rect class=\"query\"");
  Attr(out, "x", box.lower.x);
  Attr(out, "y", box.lower.y);
  Attr(out, "width", box.upper.x - box.lower.x);
  Attr(out, "height", box.upper.y - box.lower.y);
  out->append("><title>box " + std::to_string(i) + ": overlaps " + std::to_string(overlaps) +
              " shape(s)</title></rect>\n");
}

// Every shape and query, with a margin; a 20-unit square for an empty world.
Aabb DefaultView(const std::vector<BodyDef>& bodies, const RenderQueries& q) {
  std::optional<Aabb> all;
  auto add = [&](const Aabb& b) { all = all ? Union(*all, b) : b; };
  for (const BodyDef& def : bodies) {
    for (const ShapeDef& s : def.shapes) add(ComputeAabb(s.shape, def.transform));
  }
  for (const RayCastInput& r : q.rays) {
    const Vec2 end = r.origin + r.translation;
    add({{Min(r.origin.x, end.x), Min(r.origin.y, end.y)}, {Max(r.origin.x, end.x), Max(r.origin.y, end.y)}});
  }
  for (const Aabb& b : q.boxes) add(b);
  if (!all) return {{Fixed::FromInt(-10), Fixed::FromInt(-10)}, {Fixed::FromInt(10), Fixed::FromInt(10)}};
  // Margin: 1/16 of the larger side, at least one unit.
  const Fixed side = Max(all->upper.x - all->lower.x, all->upper.y - all->lower.y);
  const Fixed margin = Max(Fixed::FromRaw(side.raw() / 16), kFixedOne);
  return {{all->lower.x - margin, all->lower.y - margin}, {all->upper.x + margin, all->upper.y + margin}};
}

// The picture's size in pixels: 1000 wide, height in proportion (100..4000).
int64_t PixelHeight(const Aabb& view) {
  const __int128 w = static_cast<__int128>(view.upper.x.raw()) - view.lower.x.raw();
  const __int128 h = static_cast<__int128>(view.upper.y.raw()) - view.lower.y.raw();
  return static_cast<int64_t>(std::clamp<__int128>(h * 1000 / w, 100, 4000));
}

void OpenSvg(std::string* out, const Aabb& view, const std::string& caption) {
  out->append("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"1000\"");
  out->append(" height=\"" + std::to_string(PixelHeight(view)) + "\" viewBox=\"");
  // y is flipped below, so the top edge of the view is -upper.y.
  Num(out, view.lower.x);
  out->push_back(' ');
  Num(out, Negate(view.upper.y));
  out->push_back(' ');
  Num(out, view.upper.x - view.lower.x);
  out->push_back(' ');
  Num(out, view.upper.y - view.lower.y);
  out->append("\">\n<title>");
  for (char c : caption) {
    if (c == '<') out->append("&lt;");
    else if (c == '&') out->append("&amp;");
    else out->push_back(c);
  }
  out->append("</title>\n").append(kStyle).append("\n<g transform=\"scale(1,-1)\">\n");
}

}  // namespace

const char* BodyTypeName(BodyType type) {
  switch (type) {
    case BodyType::kStatic: return "static";
    case BodyType::kKinematic: return "kinematic";
    case BodyType::kDynamic: return "dynamic";
  }
  return "static";
}

Status CheckRenderInput(const RenderQueries& queries, const RenderOptions& options) {
  for (size_t i = 0; i < queries.rays.size(); ++i) {
    const std::string field = "rays[" + std::to_string(i) + "]";
    if (Status s = ValidateRay(queries.rays[i], field.c_str()); !s.ok()) return s;
  }
  for (size_t i = 0; i < queries.boxes.size(); ++i) {
    const std::string field = "boxes[" + std::to_string(i) + "]";
    if (Status s = ValidateAabb(queries.boxes[i], field.c_str()); !s.ok()) return s;
  }
  if (options.view) {
    if (Status s = ValidateAabb(*options.view, "view"); !s.ok()) return s;
    if (!(options.view->lower.x < options.view->upper.x) || !(options.view->lower.y < options.view->upper.y)) {
      return InvalidArgumentError("view: min must be below max on both axes");
    }
  }
  return OkStatus();
}

std::string RenderSvg(const World& world, const RenderQueries& queries, const RenderOptions& options) {
  std::vector<BodyDef> bodies;
  for (uint64_t id : world.BodyIds()) bodies.push_back(*world.GetBodyDef(id));
  // Answer the queries first: the shapes they touch are drawn highlighted.
  std::set<ShapeRef> highlighted;
  std::vector<RayAnswer> rays;
  for (const RayCastInput& r : queries.rays) {
    rays.push_back({r, world.CastRayClosest(r)});
    if (rays.back().hit) highlighted.insert(rays.back().hit->shape);
  }
  std::vector<size_t> overlap_counts;
  for (const Aabb& b : queries.boxes) {
    const std::vector<ShapeRef> touched = world.OverlapAabb(b);
    highlighted.insert(touched.begin(), touched.end());
    overlap_counts.push_back(touched.size());
  }
  const Aabb view = options.view ? *options.view : DefaultView(bodies, queries);
  const Fixed dot = Max(Fixed::FromRaw((view.upper.x - view.lower.x).raw() / 200), Fixed::FromRaw(1));

  std::string out;
  OpenSvg(&out, view, options.caption);
  for (const BodyDef& def : bodies) DrawBody(&out, def, highlighted);
  for (size_t i = 0; i < queries.boxes.size(); ++i) DrawBox(&out, i, queries.boxes[i], overlap_counts[i]);
  for (size_t i = 0; i < rays.size(); ++i) DrawRay(&out, i, rays[i], dot);
  out.append("</g>\n</svg>\n");
  return out;
}

}  // namespace arbiter::render
