#include "arbiter/scene/scene.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <functional>
#include <filesystem>
#include <initializer_list>
#include <limits>
#include <memory>
#include <span>
#include <system_error>
#include <unordered_map>
#include <utility>

#include <nlohmann/json.hpp>

#include "arbiter/core/chain.h"

namespace arbiter::scene {
namespace {

using Json = nlohmann::json;

constexpr const char* kSceneFormat = "arbiter-scene/1";
constexpr const char* kQueryFormat = "arbiter-queries/1";

// Range limits, as powers of two (so that messages can name them exactly).
constexpr int kWorldLog2 = 29;        // kMaxWorldCoordinate: positions, velocities, gravity
constexpr int kShapeLog2 = 24;        // kMaxShapeExtent: shape-local coordinates and radii
constexpr int kTranslationLog2 = 30;  // query translations (see world.h)
static_assert(int64_t{1} << kWorldLog2 == kMaxWorldCoordinate);
static_assert(int64_t{1} << kShapeLog2 == kMaxShapeExtent);
static_assert(Fixed::FromInt(int64_t{1} << kTranslationLog2) == kMaxQueryTranslation);
// The world's own limits (gravity, tick_hz, speeds) are the core's
// (limits.h), checked by the core's validation after parsing.

// A JSON path, built on the stack as the parser descends and turned into
// text only when an error is reported, e.g. "bodies[12].shapes[0].polygon".
class Path {
 public:
  Path() = default;  // the document root
  Path operator[](const char* key) const { return Path(this, key, 0); }
  Path operator[](size_t index) const { return Path(this, nullptr, index); }

  std::string ToString() const {
    std::string s;
    Append(&s);
    return s.empty() ? "(root)" : s;
  }

 private:
  Path(const Path* parent, const char* key, size_t index) : parent_(parent), key_(key), index_(index) {}

  void Append(std::string* s) const {
    if (parent_ == nullptr) return;
    parent_->Append(s);
    if (key_ != nullptr) {
      if (!s->empty()) s->push_back('.');
      s->append(key_);
    } else {
      s->push_back('[');
      s->append(std::to_string(index_));
      s->push_back(']');
    }
  }

  const Path* parent_ = nullptr;
  const char* key_ = nullptr;  // nullptr: an array index
  size_t index_ = 0;
};

Status Error(StatusCode code, const Path& path, std::string_view problem) {
  std::string message = path.ToString();
  message += ": ";
  message += problem;
  return Status(code, std::move(message));
}
Status Invalid(const Path& path, std::string_view problem) {
  return Error(StatusCode::kInvalidArgument, path, problem);
}

#define ARBITER_SCENE_RETURN_IF_ERROR(expr) \
  do {                                      \
    Status status_ = (expr);                \
    if (!status_.ok()) return status_;      \
  } while (0)

// ---- Generic readers --------------------------------------------------------

Status ExpectObject(const Json& j, const Path& path) {
  return j.is_object() ? OkStatus() : Invalid(path, "expected an object");
}

Status ExpectArray(const Json& j, const Path& path) {
  return j.is_array() ? OkStatus() : Invalid(path, "expected an array");
}

// Rejects members of the object `j` not in `allowed` (catches misspellings
// such as "veloctiy" that would otherwise be silently ignored).
Status CheckKeys(const Json& j, const Path& path, std::initializer_list<std::string_view> allowed) {
  for (auto it = j.begin(); it != j.end(); ++it) {
    const std::string& key = it.key();
    bool known = false;
    for (std::string_view a : allowed) {
      if (key == a) {
        known = true;
        break;
      }
    }
    if (!known) {
      std::string problem = "unknown key; expected one of ";
      bool first = true;
      for (std::string_view a : allowed) {
        if (!first) problem += ", ";
        problem += a;
        first = false;
      }
      return Invalid(path[key.c_str()], problem);
    }
  }
  return OkStatus();
}

// The member `key` of object `j`, or nullptr.
const Json* Find(const Json& j, const char* key) {
  const auto it = j.find(key);
  return it == j.end() ? nullptr : &*it;
}

Status Require(const Json& j, const Path& path, const char* key, const Json** out) {
  *out = Find(j, key);
  return *out != nullptr ? OkStatus() : Invalid(path[key], "missing");
}

// A number within |v| <= 2^limit_log2, converted to Q32.32 by
// round-to-nearest (exact for multiples of 2^-32 in range).
Status ReadFixed(const Json& j, const Path& path, int limit_log2, Fixed* out) {
  if (!j.is_number()) return Invalid(path, "expected a number");
  const double d = j.get<double>();
  const int64_t limit_raw = int64_t{1} << (limit_log2 + Fixed::kFractionBits);
  if (Fixed::IsRepresentable(d)) {
    const Fixed f = Fixed::FromDouble(d);
    if (f.raw() >= -limit_raw && f.raw() <= limit_raw) {
      *out = f;
      return OkStatus();
    }
  }
  return Error(StatusCode::kOutOfRange, path, "out of range (|v| <= 2^" + std::to_string(limit_log2) + ")");
}

// {"x": number, "y": number}, each within 2^limit_log2.
Status ReadVec2(const Json& j, const Path& path, int limit_log2, Vec2* out) {
  ARBITER_SCENE_RETURN_IF_ERROR(ExpectObject(j, path));
  ARBITER_SCENE_RETURN_IF_ERROR(CheckKeys(j, path, {"x", "y"}));
  const Json* x;
  const Json* y;
  ARBITER_SCENE_RETURN_IF_ERROR(Require(j, path, "x", &x));
  ARBITER_SCENE_RETURN_IF_ERROR(Require(j, path, "y", &y));
  Vec2 v;
  ARBITER_SCENE_RETURN_IF_ERROR(ReadFixed(*x, path["x"], limit_log2, &v.x));
  ARBITER_SCENE_RETURN_IF_ERROR(ReadFixed(*y, path["y"], limit_log2, &v.y));
  *out = v;
  return OkStatus();
}

Status RequireVec2(const Json& j, const Path& path, const char* key, int limit_log2, Vec2* out) {
  const Json* member;
  ARBITER_SCENE_RETURN_IF_ERROR(Require(j, path, key, &member));
  return ReadVec2(*member, path[key], limit_log2, out);
}

Status RequireFixed(const Json& j, const Path& path, const char* key, int limit_log2, Fixed* out) {
  const Json* member;
  ARBITER_SCENE_RETURN_IF_ERROR(Require(j, path, key, &member));
  return ReadFixed(*member, path[key], limit_log2, out);
}

// An integer (no fraction, no exponent form that parsed as a float) in [lo, hi].
Status ReadInt(const Json& j, const Path& path, int64_t lo, int64_t hi, int64_t* out) {
  if (!j.is_number_integer()) return Invalid(path, "expected an integer");
  bool in_range;
  int64_t v = 0;
  if (j.is_number_unsigned()) {
    const uint64_t u = j.get<uint64_t>();
    in_range = u <= static_cast<uint64_t>(std::numeric_limits<int64_t>::max());
    if (in_range) v = static_cast<int64_t>(u);
  } else {
    v = j.get<int64_t>();
    in_range = true;
  }
  if (!in_range || v < lo || v > hi) {
    return Error(StatusCode::kOutOfRange, path,
                 "out of range (" + std::to_string(lo) + ".." + std::to_string(hi) + ")");
  }
  *out = v;
  return OkStatus();
}

Status RequireFormat(const Json& root, const char* expected) {
  const Path path;
  const Json* format;
  ARBITER_SCENE_RETURN_IF_ERROR(Require(root, path, "format", &format));
  if (!format->is_string() || format->get_ref<const std::string&>() != expected) {
    return Invalid(path["format"], std::string("expected \"") + expected + "\"");
  }
  return OkStatus();
}

Status ParseErrorStatus(size_t byte, std::string_view what) {
  // what is "[json.exception.parse_error.101] parse error at line 1, ...".
  if (const size_t bracket = what.find("] "); !what.empty() && what[0] == '[' && bracket != what.npos) {
    what.remove_prefix(bracket + 2);
  }
  return InvalidArgumentError("invalid JSON at byte " + std::to_string(byte) + ": " + std::string(what));
}

// ---- Streaming ----------------------------------------------------------------
//
// The standard files are large (arena-10k.queries.json is 8.7 MB) and almost
// all of their bytes are the elements of a few top-level arrays. Building
// nlohmann's DOM for a whole file costs more time and memory (about 70 MB)
// than the rest of the loading together, so the document is read with
// nlohmann's SAX parser instead: every value is built as usual except the
// elements of the top-level arrays named by a ListSink, which are built one
// at a time as small DOMs, converted, and dropped. Those arrays appear empty
// in the root DOM. The result, errors included, is the same as converting a
// full DOM: syntax errors win, and the first error in a list is reported
// when the root-level checks reach that list.

// Builds a Json value from SAX events, as nlohmann's own DOM parser does.
class DomBuilder {
 public:
  void Reset(Json* target) {
    target_ = target;
    stack_.clear();
  }
  void Value(Json&& value) { Put(std::move(value)); }
  void StartObject() { stack_.push_back(Put(Json::object())); }
  void StartArray() { stack_.push_back(Put(Json::array())); }
  void End() { stack_.pop_back(); }
  // Duplicate keys: the last value wins, as in nlohmann's DOM.
  void Key(const std::string& key) { member_ = &(*stack_.back())[key]; }

 private:
  Json* Put(Json&& value) {
    if (stack_.empty()) {
      *target_ = std::move(value);
      return target_;
    }
    Json& parent = *stack_.back();
    if (parent.is_array()) {
      parent.push_back(std::move(value));
      return &parent.back();
    }
    *member_ = std::move(value);
    return member_;
  }

  Json* target_ = nullptr;
  std::vector<Json*> stack_;
  Json* member_ = nullptr;
};

// A top-level array whose elements are converted one at a time.
struct ListSink {
  const char* key;
  std::function<Status(const Json& item, const Path& path)> add;  ///< converts and appends one element
  std::function<void()> clear;  ///< forgets earlier elements (a repeated key: the last one wins)
  Status status;                ///< the first element error
  size_t count = 0;             ///< elements seen
};

class StreamingHandler final : public nlohmann::json_sax<Json> {
 public:
  StreamingHandler(Json* root, std::span<ListSink> sinks) : sinks_(sinks) { root_builder_.Reset(root); }

  const Status& error() const { return error_; }

  bool null() override { return Scalar(Json(nullptr)); }
  bool boolean(bool value) override { return Scalar(Json(value)); }
  bool number_integer(number_integer_t value) override { return Scalar(Json(value)); }
  bool number_unsigned(number_unsigned_t value) override { return Scalar(Json(value)); }
  bool number_float(number_float_t value, const string_t&) override { return Scalar(Json(value)); }
  bool string(string_t& value) override { return Scalar(Json(value)); }
  bool binary(binary_t& value) override { return Scalar(Json(value)); }  // never from JSON text

  bool start_object(std::size_t) override { return Open(/*is_array=*/false); }
  bool start_array(std::size_t) override { return Open(/*is_array=*/true); }
  bool end_object() override { return Close(); }
  bool end_array() override { return Close(); }

  bool key(string_t& key) override {
    if (sink_ != nullptr) {
      if (sink_->status.ok()) item_builder_.Key(key);
      return true;
    }
    if (depth_ == 1) pending_ = FindSink(key);
    root_builder_.Key(key);
    return true;
  }

  bool parse_error(std::size_t position, const std::string&, const nlohmann::detail::exception& e) override {
    error_ = ParseErrorStatus(position, e.what());
    return false;
  }

 private:
  // depth_ counts the open containers (the root object is depth 1); a
  // streamed array is depth 2 and its elements start there.

  ListSink* FindSink(const std::string& key) {
    for (ListSink& sink : sinks_) {
      if (key == sink.key) return &sink;
    }
    return nullptr;
  }

  bool Scalar(Json&& value) {
    if (sink_ != nullptr) {
      if (depth_ == 2) {  // a scalar element
        item_ = std::move(value);
        FinishItem();
      } else if (sink_->status.ok()) {
        item_builder_.Value(std::move(value));
      }
      return true;
    }
    pending_ = nullptr;
    root_builder_.Value(std::move(value));
    return true;
  }

  bool Open(bool is_array) {
    if (sink_ != nullptr) {
      if (depth_ == 2) item_builder_.Reset(&item_);
      ++depth_;
      if (sink_->status.ok()) is_array ? item_builder_.StartArray() : item_builder_.StartObject();
      return true;
    }
    ListSink* sink = std::exchange(pending_, nullptr);
    ++depth_;
    if (sink != nullptr && is_array && depth_ == 2) {
      root_builder_.Value(Json::array());  // the root keeps an empty array
      sink_ = sink;
      sink_->clear();
      sink_->status = OkStatus();
      sink_->count = 0;
      return true;
    }
    is_array ? root_builder_.StartArray() : root_builder_.StartObject();
    return true;
  }

  bool Close() {
    --depth_;
    if (sink_ != nullptr) {
      if (depth_ == 1) {  // the streamed array ends
        sink_ = nullptr;
        return true;
      }
      if (sink_->status.ok()) item_builder_.End();
      if (depth_ == 2) FinishItem();
      return true;
    }
    root_builder_.End();
    return true;
  }

  void FinishItem() {
    if (sink_->status.ok()) {
      const Path root;
      const Path list = root[sink_->key];
      sink_->status = sink_->add(item_, list[sink_->count]);
    }
    ++sink_->count;
    item_ = Json();
  }

  std::span<ListSink> sinks_;
  DomBuilder root_builder_;
  DomBuilder item_builder_;
  Json item_;
  int depth_ = 0;
  ListSink* pending_ = nullptr;  // the sink named by the root key whose value comes next
  ListSink* sink_ = nullptr;     // the array being streamed
  Status error_;
};

// Parses `text` into *root, streaming the arrays named by `sinks`.
Status ParseStreaming(std::string_view text, std::span<ListSink> sinks, Json* root) {
  StreamingHandler handler(root, sinks);
  if (!Json::sax_parse(text.begin(), text.end(), &handler)) return handler.error();
  return OkStatus();
}

// The elements of the streamed list `sink`, once the root has been checked
// up to it: an error for a non-array value, or the first element error.
Status ListStatus(const Json& root, const Path& path, const ListSink& sink) {
  const Json* list = Find(root, sink.key);
  if (list == nullptr) return OkStatus();
  ARBITER_SCENE_RETURN_IF_ERROR(ExpectArray(*list, path[sink.key]));
  return sink.status;
}

// ---- Scenes -----------------------------------------------------------------

Status ShapeStatus(ShapeError error, const Path& path) {
  if (error == ShapeError::kOk) return OkStatus();
  const StatusCode code =
      error == ShapeError::kOutOfRange ? StatusCode::kOutOfRange : StatusCode::kInvalidArgument;
  return Error(code, path, ShapeErrorMessage(error));
}

bool IsRadiusError(ShapeError error) {
  return error == ShapeError::kNegativeRadius || error == ShapeError::kZeroRadius;
}

Status ParseCircleShape(const Json& j, const Path& path, Shape* out) {
  ARBITER_SCENE_RETURN_IF_ERROR(ExpectObject(j, path));
  ARBITER_SCENE_RETURN_IF_ERROR(CheckKeys(j, path, {"center", "radius"}));
  Circle c;
  ARBITER_SCENE_RETURN_IF_ERROR(RequireVec2(j, path, "center", kShapeLog2, &c.center));
  ARBITER_SCENE_RETURN_IF_ERROR(RequireFixed(j, path, "radius", kShapeLog2, &c.radius));
  const ShapeError error = ValidateCircle(c);
  ARBITER_SCENE_RETURN_IF_ERROR(ShapeStatus(error, IsRadiusError(error) ? path["radius"] : path));
  *out = Shape::FromCircle(c);
  return OkStatus();
}

Status ParseBoxShape(const Json& j, const Path& path, Shape* out) {
  ARBITER_SCENE_RETURN_IF_ERROR(ExpectObject(j, path));
  ARBITER_SCENE_RETURN_IF_ERROR(CheckKeys(j, path, {"half"}));
  Vec2 half;
  ARBITER_SCENE_RETURN_IF_ERROR(RequireVec2(j, path, "half", kShapeLog2, &half));
  Polygon polygon;
  ARBITER_SCENE_RETURN_IF_ERROR(ShapeStatus(MakeBox(half.x, half.y, &polygon), path["half"]));
  *out = Shape::FromPolygon(polygon);
  return OkStatus();
}

Status ParsePolygonShape(const Json& j, const Path& path, Shape* out) {
  ARBITER_SCENE_RETURN_IF_ERROR(ExpectObject(j, path));
  ARBITER_SCENE_RETURN_IF_ERROR(CheckKeys(j, path, {"points"}));
  const Json* points;
  ARBITER_SCENE_RETURN_IF_ERROR(Require(j, path, "points", &points));
  const Path points_path = path["points"];
  ARBITER_SCENE_RETURN_IF_ERROR(ExpectArray(*points, points_path));
  if (points->size() > static_cast<size_t>(kMaxPolygonVertices)) {
    return ShapeStatus(ShapeError::kTooManyVertices, points_path);
  }
  std::array<Vec2, kMaxPolygonVertices> vertices;
  const size_t count = points->size();
  for (size_t i = 0; i < count; ++i) {
    ARBITER_SCENE_RETURN_IF_ERROR(ReadVec2((*points)[i], points_path[i], kShapeLog2, &vertices[i]));
  }
  Polygon polygon;
  ARBITER_SCENE_RETURN_IF_ERROR(ShapeStatus(
      MakePolygon(std::span<const Vec2>(vertices.data(), count), kFixedZero, &polygon), points_path));
  *out = Shape::FromPolygon(polygon);
  return OkStatus();
}

Status ParseCapsuleShape(const Json& j, const Path& path, Shape* out) {
  ARBITER_SCENE_RETURN_IF_ERROR(ExpectObject(j, path));
  ARBITER_SCENE_RETURN_IF_ERROR(CheckKeys(j, path, {"p1", "p2", "radius"}));
  Capsule c;
  ARBITER_SCENE_RETURN_IF_ERROR(RequireVec2(j, path, "p1", kShapeLog2, &c.center1));
  ARBITER_SCENE_RETURN_IF_ERROR(RequireVec2(j, path, "p2", kShapeLog2, &c.center2));
  ARBITER_SCENE_RETURN_IF_ERROR(RequireFixed(j, path, "radius", kShapeLog2, &c.radius));
  const ShapeError error = ValidateCapsule(c);
  ARBITER_SCENE_RETURN_IF_ERROR(ShapeStatus(error, IsRadiusError(error) ? path["radius"] : path));
  *out = Shape::FromCapsule(c);
  return OkStatus();
}

// {"points": [vec2, ...], "loop": bool (optional, false)}: the chain's
// segments (scenes/FORMAT-chains.md), appended to *out.
Status ParseChainShape(const Json& j, const Path& path, std::vector<ShapeDef>* out) {
  ARBITER_SCENE_RETURN_IF_ERROR(ExpectObject(j, path));
  ARBITER_SCENE_RETURN_IF_ERROR(CheckKeys(j, path, {"points", "loop"}));
  const Json* points;
  ARBITER_SCENE_RETURN_IF_ERROR(Require(j, path, "points", &points));
  const Path points_path = path["points"];
  ARBITER_SCENE_RETURN_IF_ERROR(ExpectArray(*points, points_path));
  if (points->size() > kMaxChainPoints) return ShapeStatus(ShapeError::kTooManyChainPoints, points_path);
  std::vector<Vec2> vertices(points->size());
  for (size_t i = 0; i < vertices.size(); ++i) {
    ARBITER_SCENE_RETURN_IF_ERROR(ReadVec2((*points)[i], points_path[i], kShapeLog2, &vertices[i]));
  }
  bool loop = false;
  if (const Json* l = Find(j, "loop")) {
    if (!l->is_boolean()) return Invalid(path["loop"], "expected true or false");
    loop = l->get<bool>();
  }
  std::vector<Shape> segments;
  ARBITER_SCENE_RETURN_IF_ERROR(ShapeStatus(MakeChain(vertices, loop, &segments), points_path));
  for (const Shape& segment : segments) {
    out->emplace_back();
    out->back().shape = segment;
  }
  return OkStatus();
}

constexpr const char* kShapeKinds = "circle, box, polygon, capsule, chain";

// One shape, or a chain's segments, appended to *out.
Status ParseShape(const Json& j, const Path& path, std::vector<ShapeDef>* out) {
  ARBITER_SCENE_RETURN_IF_ERROR(ExpectObject(j, path));
  if (j.size() != 1) return Invalid(path, std::string("expected exactly one of ") + kShapeKinds);
  const auto it = j.begin();
  const std::string& kind = it.key();
  if (kind == "chain") return ParseChainShape(*it, path["chain"], out);
  ShapeDef def;
  if (kind == "circle") {
    ARBITER_SCENE_RETURN_IF_ERROR(ParseCircleShape(*it, path["circle"], &def.shape));
  } else if (kind == "box") {
    ARBITER_SCENE_RETURN_IF_ERROR(ParseBoxShape(*it, path["box"], &def.shape));
  } else if (kind == "polygon") {
    ARBITER_SCENE_RETURN_IF_ERROR(ParsePolygonShape(*it, path["polygon"], &def.shape));
  } else if (kind == "capsule") {
    ARBITER_SCENE_RETURN_IF_ERROR(ParseCapsuleShape(*it, path["capsule"], &def.shape));
  } else {
    return Invalid(path[kind.c_str()], std::string("unknown shape; expected one of ") + kShapeKinds);
  }
  out->push_back(std::move(def));
  return OkStatus();
}

Status ParseBodyType(const Json& j, const Path& path, BodyType* out) {
  if (j.is_string()) {
    const std::string& s = j.get_ref<const std::string&>();
    if (s == "static") {
      *out = BodyType::kStatic;
      return OkStatus();
    }
    if (s == "kinematic") {
      *out = BodyType::kKinematic;
      return OkStatus();
    }
    if (s == "dynamic") {
      *out = BodyType::kDynamic;
      return OkStatus();
    }
  }
  return Invalid(path, "expected one of static, kinematic, dynamic");
}

Status ParseBodyId(const Json& j, const Path& path, uint64_t* out) {
  if (!j.is_number_integer()) return Invalid(path, "expected an integer");
  if (!j.is_number_unsigned() || j.get<uint64_t>() == 0) {
    return Error(StatusCode::kOutOfRange, path, "must be positive");
  }
  *out = j.get<uint64_t>();
  return OkStatus();
}

Status ParseBody(const Json& j, const Path& path, BodyDef* out) {
  ARBITER_SCENE_RETURN_IF_ERROR(ExpectObject(j, path));
  ARBITER_SCENE_RETURN_IF_ERROR(CheckKeys(j, path, {"id", "type", "position", "velocity", "shapes"}));
  BodyDef def;
  const Json* member;
  ARBITER_SCENE_RETURN_IF_ERROR(Require(j, path, "id", &member));
  ARBITER_SCENE_RETURN_IF_ERROR(ParseBodyId(*member, path["id"], &def.id));
  ARBITER_SCENE_RETURN_IF_ERROR(Require(j, path, "type", &member));
  ARBITER_SCENE_RETURN_IF_ERROR(ParseBodyType(*member, path["type"], &def.type));
  ARBITER_SCENE_RETURN_IF_ERROR(RequireVec2(j, path, "position", kWorldLog2, &def.transform.p));
  if (const Json* velocity = Find(j, "velocity")) {
    ARBITER_SCENE_RETURN_IF_ERROR(ReadVec2(*velocity, path["velocity"], kWorldLog2, &def.linear_velocity));
  }
  ARBITER_SCENE_RETURN_IF_ERROR(Require(j, path, "shapes", &member));
  const Path shapes_path = path["shapes"];
  ARBITER_SCENE_RETURN_IF_ERROR(ExpectArray(*member, shapes_path));
  def.shapes.reserve(member->size());
  for (size_t i = 0; i < member->size(); ++i) {
    ARBITER_SCENE_RETURN_IF_ERROR(ParseShape((*member)[i], shapes_path[i], &def.shapes));
  }
  *out = std::move(def);
  return OkStatus();
}

// The root checks, in document order of the format; `bodies` was streamed
// into out->bodies already.
Status ParseSceneJson(const Json& root, const ListSink& bodies, Scene* out) {
  const Path path;
  ARBITER_SCENE_RETURN_IF_ERROR(ExpectObject(root, path));
  ARBITER_SCENE_RETURN_IF_ERROR(
      CheckKeys(root, path, {"format", "name", "gravity", "tick_hz", "allow_sleep", "sub_steps", "contact_hertz", "steps", "bodies"}));
  ARBITER_SCENE_RETURN_IF_ERROR(RequireFormat(root, kSceneFormat));

  const Json* member;
  ARBITER_SCENE_RETURN_IF_ERROR(Require(root, path, "name", &member));
  if (!member->is_string()) return Invalid(path["name"], "expected a string");
  out->name = member->get<std::string>();

  ARBITER_SCENE_RETURN_IF_ERROR(RequireVec2(root, path, "gravity", kWorldLog2, &out->world.gravity));

  int64_t value = 0;
  ARBITER_SCENE_RETURN_IF_ERROR(Require(root, path, "tick_hz", &member));
  ARBITER_SCENE_RETURN_IF_ERROR(ReadInt(*member, path["tick_hz"], kMinTickHz, kMaxTickHz, &value));
  out->world.tick_hz = static_cast<int32_t>(value);
  if (const Json* sleep = Find(root, "allow_sleep")) {
    if (!sleep->is_boolean()) return Invalid(path["allow_sleep"], "expected true or false");
    out->world.allow_sleep = sleep->get<bool>();
  }
  if (const Json* sub_steps = Find(root, "sub_steps")) {
    ARBITER_SCENE_RETURN_IF_ERROR(ReadInt(*sub_steps, path["sub_steps"], kMinSubSteps, kMaxSubSteps, &value));
    out->world.sub_steps = static_cast<int32_t>(value);
  }
  if (const Json* hertz = Find(root, "contact_hertz")) {
    ARBITER_SCENE_RETURN_IF_ERROR(ReadInt(*hertz, path["contact_hertz"], kMinContactHertz, kMaxContactHertz, &value));
    out->world.contact_hertz = static_cast<int32_t>(value);
  }
  // The core's one check of a world definition; its message names the
  // field ("gravity: ..."), which is also the JSON path here.
  if (Status s = ValidateWorldDef(out->world); !s.ok()) return s;

  out->steps = 0;
  if (const Json* steps = Find(root, "steps")) {
    ARBITER_SCENE_RETURN_IF_ERROR(
        ReadInt(*steps, path["steps"], 0, std::numeric_limits<int32_t>::max(), &value));
    out->steps = static_cast<int32_t>(value);
  }

  ARBITER_SCENE_RETURN_IF_ERROR(Require(root, path, "bodies", &member));
  return ListStatus(root, path, bodies);
}

// ---- Query sets -------------------------------------------------------------

Status ParseRay(const Json& j, const Path& path, RayCastInput* out) {
  ARBITER_SCENE_RETURN_IF_ERROR(ExpectObject(j, path));
  ARBITER_SCENE_RETURN_IF_ERROR(CheckKeys(j, path, {"origin", "translation"}));
  RayCastInput ray;
  ARBITER_SCENE_RETURN_IF_ERROR(RequireVec2(j, path, "origin", kWorldLog2, &ray.origin));
  ARBITER_SCENE_RETURN_IF_ERROR(RequireVec2(j, path, "translation", kTranslationLog2, &ray.translation));
  ray.max_fraction = kFixedOne;
  *out = ray;
  return OkStatus();
}

Status ParseAabb(const Json& j, const Path& path, Aabb* out) {
  ARBITER_SCENE_RETURN_IF_ERROR(ExpectObject(j, path));
  ARBITER_SCENE_RETURN_IF_ERROR(CheckKeys(j, path, {"min", "max"}));
  Aabb box;
  ARBITER_SCENE_RETURN_IF_ERROR(RequireVec2(j, path, "min", kWorldLog2, &box.lower));
  ARBITER_SCENE_RETURN_IF_ERROR(RequireVec2(j, path, "max", kWorldLog2, &box.upper));
  if (box.lower.x > box.upper.x) return Invalid(path, "min.x > max.x");
  if (box.lower.y > box.upper.y) return Invalid(path, "min.y > max.y");
  *out = box;
  return OkStatus();
}

// {"center": vec, "radius": number >= 0}: a disk query.
Status ParseDisk(const Json& j, const Path& path, Vec2* center, Fixed* radius) {
  ARBITER_SCENE_RETURN_IF_ERROR(ExpectObject(j, path));
  ARBITER_SCENE_RETURN_IF_ERROR(CheckKeys(j, path, {"center", "radius"}));
  ARBITER_SCENE_RETURN_IF_ERROR(RequireVec2(j, path, "center", kWorldLog2, center));
  ARBITER_SCENE_RETURN_IF_ERROR(RequireFixed(j, path, "radius", kShapeLog2, radius));
  if (*radius < kFixedZero) return Invalid(path["radius"], ShapeErrorMessage(ShapeError::kNegativeRadius));
  return OkStatus();
}

Status ParseDiskQuery(const Json& j, const Path& path, DiskQuery* out) {
  DiskQuery disk;
  ARBITER_SCENE_RETURN_IF_ERROR(ParseDisk(j, path, &disk.center, &disk.radius));
  *out = disk;
  return OkStatus();
}

Status ParseSweep(const Json& j, const Path& path, SweepQuery* out) {
  ARBITER_SCENE_RETURN_IF_ERROR(ExpectObject(j, path));
  ARBITER_SCENE_RETURN_IF_ERROR(CheckKeys(j, path, {"circle", "translation"}));
  SweepQuery sweep;
  const Json* circle;
  ARBITER_SCENE_RETURN_IF_ERROR(Require(j, path, "circle", &circle));
  ARBITER_SCENE_RETURN_IF_ERROR(ParseDisk(*circle, path["circle"], &sweep.center, &sweep.radius));
  ARBITER_SCENE_RETURN_IF_ERROR(RequireVec2(j, path, "translation", kTranslationLog2, &sweep.translation));
  *out = sweep;
  return OkStatus();
}

// A sink that converts each element with `parse` and appends it to *out.
template <typename T>
ListSink MakeSink(const char* key, Status (*parse)(const Json&, const Path&, T*), std::vector<T>* out) {
  ListSink sink;
  sink.key = key;
  sink.add = [parse, out](const Json& item, const Path& path) {
    T value;
    ARBITER_SCENE_RETURN_IF_ERROR(parse(item, path, &value));
    out->push_back(value);
    return OkStatus();
  };
  sink.clear = [out] { out->clear(); };
  return sink;
}

// The root checks; the four lists were streamed already (absent: empty).
Status ParseQuerySetJson(const Json& root, std::span<const ListSink> lists) {
  const Path path;
  ARBITER_SCENE_RETURN_IF_ERROR(ExpectObject(root, path));
  ARBITER_SCENE_RETURN_IF_ERROR(
      CheckKeys(root, path, {"format", "scene", "rays", "aabbs", "circles", "sweeps"}));
  ARBITER_SCENE_RETURN_IF_ERROR(RequireFormat(root, kQueryFormat));
  if (const Json* scene = Find(root, "scene"); scene != nullptr && !scene->is_string()) {
    return Invalid(path["scene"], "expected a string");
  }
  for (const ListSink& list : lists) ARBITER_SCENE_RETURN_IF_ERROR(ListStatus(root, path, list));
  return OkStatus();
}

// ---- Files ------------------------------------------------------------------

Status ReadFile(const std::string& path, std::string* out) {
  std::unique_ptr<std::FILE, int (*)(std::FILE*)> file(std::fopen(path.c_str(), "rb"), &std::fclose);
  if (!file) return NotFoundError(path + ": cannot open (" + std::strerror(errno) + ")");
  std::string text;
  std::error_code size_error;
  const uintmax_t size = std::filesystem::file_size(path, size_error);  // fails for a directory
  if (!size_error) text.reserve(static_cast<size_t>(size));
  char buffer[1 << 16];
  for (;;) {
    const size_t n = std::fread(buffer, 1, sizeof buffer, file.get());
    text.append(buffer, n);
    if (n < sizeof buffer) break;
  }
  if (std::ferror(file.get())) return NotFoundError(path + ": cannot read (" + std::strerror(errno) + ")");
  *out = std::move(text);
  return OkStatus();
}

Status WithFile(const std::string& path, Status status) {
  if (status.ok()) return status;
  return Status(status.code(), path + ": " + status.message());
}

}  // namespace

Status ParseScene(std::string_view json, Scene* out) {
  Scene scene;
  std::unordered_map<uint64_t, size_t> first_index;  // body id -> its index in the file
  ListSink bodies;
  bodies.key = "bodies";
  bodies.add = [&scene, &first_index](const Json& item, const Path& path) {
    BodyDef body;
    ARBITER_SCENE_RETURN_IF_ERROR(ParseBody(item, path, &body));
    const auto [it, inserted] = first_index.emplace(body.id, scene.bodies.size());
    if (!inserted) {
      return Error(StatusCode::kAlreadyExists, path["id"],
                   "duplicate id " + std::to_string(body.id) + " (first used by bodies[" +
                       std::to_string(it->second) + "])");
    }
    scene.bodies.push_back(std::move(body));
    return OkStatus();
  };
  bodies.clear = [&scene, &first_index] {
    scene.bodies.clear();
    first_index.clear();
  };

  Json root;
  ARBITER_SCENE_RETURN_IF_ERROR(ParseStreaming(json, std::span<ListSink>(&bodies, 1), &root));
  ARBITER_SCENE_RETURN_IF_ERROR(ParseSceneJson(root, bodies, &scene));
  *out = std::move(scene);
  return OkStatus();
}

Status LoadSceneFile(const std::string& path, Scene* out) {
  std::string text;
  ARBITER_SCENE_RETURN_IF_ERROR(ReadFile(path, &text));
  return WithFile(path, ParseScene(text, out));
}

Status ParseBodyList(std::string_view json, std::vector<BodyDef>* out) {
  // A whole scene is parsed as one, so that its checks (and streaming) apply.
  if (json.find("\"format\"") != std::string_view::npos) {
    Scene scene;
    ARBITER_SCENE_RETURN_IF_ERROR(ParseScene(json, &scene));
    *out = std::move(scene.bodies);
    return OkStatus();
  }
  Json root = Json::parse(json, nullptr, /*allow_exceptions=*/false);
  if (root.is_discarded()) return InvalidArgumentError("invalid JSON (expected {\"bodies\": [...]} or a scene)");
  const Path path;
  ARBITER_SCENE_RETURN_IF_ERROR(ExpectObject(root, path));
  ARBITER_SCENE_RETURN_IF_ERROR(CheckKeys(root, path, {"bodies"}));
  const Json* list;
  ARBITER_SCENE_RETURN_IF_ERROR(Require(root, path, "bodies", &list));
  ARBITER_SCENE_RETURN_IF_ERROR(ExpectArray(*list, path["bodies"]));
  std::vector<BodyDef> bodies(list->size());
  for (size_t i = 0; i < bodies.size(); ++i) {
    ARBITER_SCENE_RETURN_IF_ERROR(ParseBody((*list)[i], path["bodies"][i], &bodies[i]));
  }
  *out = std::move(bodies);
  return OkStatus();
}

Status LoadBodyListFile(const std::string& path, std::vector<BodyDef>* out) {
  std::string text;
  ARBITER_SCENE_RETURN_IF_ERROR(ReadFile(path, &text));
  return WithFile(path, ParseBodyList(text, out));
}

Status ParseQuerySet(std::string_view json, QuerySet* out) {
  QuerySet set;
  ListSink lists[] = {
      MakeSink("rays", ParseRay, &set.rays),
      MakeSink("aabbs", ParseAabb, &set.aabbs),
      MakeSink("circles", ParseDiskQuery, &set.disks),
      MakeSink("sweeps", ParseSweep, &set.sweeps),
  };
  Json root;
  ARBITER_SCENE_RETURN_IF_ERROR(ParseStreaming(json, lists, &root));
  ARBITER_SCENE_RETURN_IF_ERROR(ParseQuerySetJson(root, lists));
  *out = std::move(set);
  return OkStatus();
}

Status LoadQuerySetFile(const std::string& path, QuerySet* out) {
  std::string text;
  ARBITER_SCENE_RETURN_IF_ERROR(ReadFile(path, &text));
  return WithFile(path, ParseQuerySet(text, out));
}

}  // namespace arbiter::scene
