#include "output.h"

#include <cerrno>
#include <cinttypes>
#include <cstdio>
#include <cstring>

#include "arbiter/client/client.h"

namespace arbiter::cli {

using client::ToDouble;

int Usage(const Context& c, const std::string& message) {
  std::fprintf(stderr, "arbiter %s: %s\n(see `arbiter help %s`)\n", c.name.c_str(), message.c_str(), c.name.c_str());
  return 2;
}

namespace {

bool Contains(const absl::Status& s, const char* text) {
  return std::string(s.message()).find(text) != std::string::npos;
}

// What a user can do about the common failures ("" when the message says it).
std::string Hint(const Context& c, const absl::Status& s) {
  switch (s.code()) {
    case absl::StatusCode::kUnavailable:
      if (Contains(s, "recovering")) return "the server is starting up; retry in a few seconds";
      if (Contains(s, "moved to") || Contains(s, "is moving to") || Contains(s, "arriving from")) {
        return "the world is moving between instances; retry shortly (or name the instance it moved to with --server)";
      }
      return "is arbiter-server running at " + c.server +
             "? Start one (scripts/run.sh) or name it with --server HOST[:PORT]";
    case absl::StatusCode::kDeadlineExceeded:
      return "no answer within --timeout_ms; raise it for long calls, or check that the server is not overloaded";
    case absl::StatusCode::kUnauthenticated:
      return "this server wants a token: pass --token_file FILE or set $ARBITER_TOKEN";
    case absl::StatusCode::kPermissionDenied:
      return "use a token whose role and worlds cover this call";
    case absl::StatusCode::kNotFound:
      if (Contains(s, "world_id")) return "`arbiter worlds` lists the server's worlds; `arbiter create` makes one";
      return "";
    case absl::StatusCode::kAlreadyExists:
      if (Contains(s, "world_id")) return "pick another --world, or delete the old one (`arbiter delete --world ID`)";
      return "";
    case absl::StatusCode::kOutOfRange:
      if (Contains(s, "at.tick") || Contains(s, "].tick:")) {
        return "`arbiter describe` shows the tick and the oldest tick still kept";
      }
      return "";
    case absl::StatusCode::kResourceExhausted:
      return "a server limit: send smaller batches (--batch) or fewer ticks per call, or ask the operator";
    default:
      return "";
  }
}

}  // namespace

int Fail(const Context& c, const absl::Status& status) {
  std::fprintf(stderr, "arbiter %s: %s: %s\n", c.name.c_str(), absl::StatusCodeToString(status.code()).c_str(),
               std::string(status.message()).c_str());
  if (const std::string hint = Hint(c, status); !hint.empty()) std::fprintf(stderr, "  %s\n", hint.c_str());
  return 1;
}

int FileError(const Context& c, const std::string& verb, const std::string& path) {
  const char* reason = errno != 0 ? std::strerror(errno) : "unknown error";
  std::fprintf(stderr, "arbiter %s: cannot %s local file '%s': %s\n  check the path and its folder's permissions\n",
               c.name.c_str(), verb.c_str(), path.c_str(), reason);
  return 1;
}

void PrintJson(const Json& j) { std::printf("%s\n", j.dump(2).c_str()); }

std::string Hex(uint64_t v) {
  char buf[19];
  std::snprintf(buf, sizeof(buf), "0x%016" PRIx64, v);
  return buf;
}

Json VecJson(const v1::Vec2& v) { return Json::array({ToDouble(v.x()), ToDouble(v.y())}); }

Json VecRaw(const v1::Vec2& v) { return Json::array({v.x(), v.y()}); }

std::string VecText(const v1::Vec2& v) {
  char buf[80];
  std::snprintf(buf, sizeof(buf), "(%.10g, %.10g)", ToDouble(v.x()), ToDouble(v.y()));
  return buf;
}

Json HitJson(const v1::Hit& h) {
  return Json{{"body_id", h.body_id()},
              {"shape_index", h.shape_index()},
              {"user_tag", h.user_tag()},
              {"fraction", ToDouble(h.fraction())},
              {"point", VecJson(h.point())},
              {"normal", VecJson(h.normal())},
              {"raw", {{"fraction", h.fraction()}, {"point", VecRaw(h.point())}, {"normal", VecRaw(h.normal())}}}};
}

std::string HitText(const v1::Hit& h) {
  char buf[256];
  std::snprintf(buf, sizeof(buf), "body %" PRIu64 " shape %u  t=%.10g  point (%.10g, %.10g)  normal (%.10g, %.10g)",
                h.body_id(), h.shape_index(), ToDouble(h.fraction()), ToDouble(h.point().x()), ToDouble(h.point().y()),
                ToDouble(h.normal().x()), ToDouble(h.normal().y()));
  return buf;
}

std::string TickText(int64_t tick, int64_t fraction_raw) {
  std::string s = "tick " + std::to_string(tick);
  if (fraction_raw != 0) {
    char buf[40];
    std::snprintf(buf, sizeof(buf), " + %.10g", ToDouble(fraction_raw));
    s += buf;
  }
  return s;
}

}  // namespace arbiter::cli
