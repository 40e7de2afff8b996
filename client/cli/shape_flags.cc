#include "shape_flags.h"

#include <sstream>
#include <vector>

#include "arbiter/client/client.h"
#include "units.h"

namespace arbiter::cli {

std::optional<std::string> ShapeFromFlags(const Args& a, v1::Shape* out) {
  const int kinds = a.Has("circle") + a.Has("box") + a.Has("capsule");
  if (kinds != 1) return "give exactly one shape: --circle R, --box HW,HH or --capsule X1,Y1,X2,Y2,R";
  if (a.Has("circle")) {
    double r = 0;
    if (auto e = ParseUnits("--circle", a.Get("circle", ""), kExtent, &r)) return e;
    *out = client::MakeCircle(r);
  } else if (a.Has("box")) {
    double hw = 0, hh = 0;
    if (auto e = ParsePair("--box", a.Get("box", ""), kExtent, &hw, &hh)) return e;
    *out = client::MakeBox(hw, hh);
  } else {
    std::vector<double> v(5);
    std::stringstream in(a.Get("capsule", ""));
    std::string part;
    size_t n = 0;
    for (; std::getline(in, part, ','); ++n) {
      if (n >= v.size()) return "--capsule: expected X1,Y1,X2,Y2,R (five numbers)";
      if (auto e = ParseUnits("--capsule[" + std::to_string(n) + "]", part, kExtent, &v[n])) return e;
    }
    if (n != v.size()) return "--capsule: expected X1,Y1,X2,Y2,R (five numbers)";
    *out = client::MakeCapsule(v[0], v[1], v[2], v[3], v[4]);
  }
  return std::nullopt;
}

}  // namespace arbiter::cli
