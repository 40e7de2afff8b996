// narrow_bench: the cost of every narrow-phase function of core/ (Q32.32),
// per shape pair, measured beside the double-precision reference
// (tests/reference/reference.h) on the same inputs.
//
// Benchmarks are named FUNCTION/CASE/SIDE, SIDE being `fixed` (core) or
// `double` (the reference; for the scalar helpers, <cmath>):
//   TestOverlap, ShapeDistance, ShapeCast, Collide   CASE = A-B, every
//                                                    unordered pair of kinds
//   ContainsPoint, RayCast                           CASE = the shape kind
//   MakeRot, Atan2, Sqrt, Normalize                  CASE = the input kind
// Kinds: circle, capsule, segment, box, 6gon (a hexagon), 6gon_r (a rounded
// hexagon). scripts/bench-narrow.sh runs everything and prints the
// fixed/double time ratio of each function and case.
//
// Inputs: each case has its own array of kConfigs seeded random
// configurations (proxies already placed in world space, plus the query
// point, ray or translation), converted once to doubles with convert.h. The
// timed loop walks the array cyclically, so neither side sees one input over
// and over (branch predictors would learn it) and both sides answer exactly
// the same questions; proxy construction and conversion are never timed.
//
// Layouts (sizes s are 2^[-1, 3] units, positions near the origin, so that
// every conversion to double is exact):
//   TestOverlap, ShapeDistance: B at 0..3 s from A in a random direction
//     (roughly half of the pairs overlap; the `hit` counter says how many);
//   Collide: B moved along the reference's minimum translation so that the
//     separation is in [-0.1 s, +0.02] units, i.e. pairs the solver would
//     see (speculative distance 0.02, as in step_internal.h);
//   ShapeCast, RayCast: A (or the ray origin) 2..5 s away, moving towards B
//     with a random miss (ShapeCast hits 50-90% of the time, RayCast 25-45%);
//   ContainsPoint: points within 1.5 s of the shape's position.
//
// Counters: `hit` is the fraction of the calls made that overlapped /
// contained / hit (for ShapeDistance: found distance zero); `pts` the mean
// contact count of Collide. Once a case has run through its inputs a few
// times, equal values on both sides show that both did the same work. Not
// for Collide: core clips the incident edge against the reference face
// (Box2D's b2CollidePolygons) and keeps both clipped ends within the
// speculative distance, while the reference takes the exact supporting
// features, a single point unless two faces are exactly parallel, so core
// reports 1.0-1.4 points per pair where the reference reports 1.0.
//
// What the ratio means: the reference is written to be obviously correct,
// not fast (it allocates std::vectors, tries every vertex-edge pair, builds
// an explicit Minkowski difference), so fixed/double compares core with a
// straightforward double implementation of the same algorithms, not with an
// optimised float engine (bench/peer_bench does that, on whole queries).
#include <benchmark/benchmark.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <iterator>
#include <map>
#include <memory>
#include <numbers>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "arbiter/core/collision.h"
#include "arbiter/core/fixed_math.h"
#include "arbiter/core/manifold.h"
#include "arbiter/core/proxy.h"
#include "arbiter/core/shapes.h"
#include "reference/convert.h"
#include "reference/reference.h"
#include "testing/numbers.h"
#include "testing/random.h"

namespace arbiter::bench {
namespace {

namespace ref = arbiter::reference;
using ref::FromD;
using testing::RandomFixed;
using testing::RandomVec;
using testing::SplitMix64;  // as in scenes/generate.py and the property tests
using testing::UniformD;

/// Configurations per case (a power of two).
constexpr size_t kConfigs = 4096;
/// The speculative distance of Collide, as in the step (4 x linear slop).
constexpr double kSpeculative = 0.02;

// ---- Random inputs ------------------------------------------------------------

Rot RandomRot(SplitMix64& rng) { return MakeRot(RandomFixed(rng, -std::numbers::pi, std::numbers::pi)); }
ref::DVec2 RandomDirection(SplitMix64& rng) {
  const double a = UniformD(rng, 0, 2 * std::numbers::pi);
  return {std::cos(a), std::sin(a)};
}
double RandomScale(SplitMix64& rng) { return std::exp2(UniformD(rng, -1, 3)); }

enum class Kind { kCircle, kCapsule, kSegment, kBox, kHexagon, kRoundHexagon };
constexpr Kind kKinds[] = {Kind::kCircle, Kind::kCapsule, Kind::kSegment,
                           Kind::kBox,    Kind::kHexagon, Kind::kRoundHexagon};

const char* KindName(Kind k) {
  switch (k) {
    case Kind::kCircle: return "circle";
    case Kind::kCapsule: return "capsule";
    case Kind::kSegment: return "segment";
    case Kind::kBox: return "box";
    case Kind::kHexagon: return "6gon";
    case Kind::kRoundHexagon: return "6gon_r";
  }
  return "?";
}

// A shape of size about s in its body frame, made with core's constructors.
Shape RandomShape(SplitMix64& rng, Kind kind, double s) {
  for (;;) {
    switch (kind) {
      case Kind::kCircle: {
        const Circle c{RandomVec(rng, 0.2 * s), RandomFixed(rng, 0.4 * s, s)};
        if (ValidateCircle(c) == ShapeError::kOk) return Shape::FromCircle(c);
        break;
      }
      case Kind::kCapsule: {
        const Fixed h1 = RandomFixed(rng, 0.3 * s, 0.8 * s), h2 = RandomFixed(rng, 0.3 * s, 0.8 * s);
        const Capsule c{{-h1, kFixedZero}, {h2, kFixedZero}, RandomFixed(rng, 0.15 * s, 0.4 * s)};
        if (ValidateCapsule(c) == ShapeError::kOk) return Shape::FromCapsule(c);
        break;
      }
      case Kind::kSegment: {
        const Fixed h1 = RandomFixed(rng, 0.5 * s, 1.2 * s), h2 = RandomFixed(rng, 0.5 * s, 1.2 * s);
        const Segment g{{-h1, kFixedZero}, {h2, kFixedZero}};
        if (ValidateSegment(g) == ShapeError::kOk) return Shape::FromSegment(g);
        break;
      }
      case Kind::kBox: {
        Polygon p;
        if (MakeBox(RandomFixed(rng, 0.3 * s, s), RandomFixed(rng, 0.3 * s, s), &p) == ShapeError::kOk) {
          return Shape::FromPolygon(p);
        }
        break;
      }
      case Kind::kHexagon:
      case Kind::kRoundHexagon: {
        // One vertex per 60 degree sector of an ellipse: strictly convex, CCW.
        const bool rounded = kind == Kind::kRoundHexagon;
        const double ax = UniformD(rng, 0.6, 1.0) * s * (rounded ? 0.8 : 1.0);
        const double ay = UniformD(rng, 0.6, 1.0) * s * (rounded ? 0.8 : 1.0);
        Vec2 points[6];
        for (int i = 0; i < 6; ++i) {
          const double a = (i + UniformD(rng, 0.2, 0.8)) * std::numbers::pi / 3;
          points[i] = FromD({ax * std::cos(a), ay * std::sin(a)});
        }
        const Fixed radius = rounded ? RandomFixed(rng, 0.1 * s, 0.3 * s) : kFixedZero;
        Polygon p;
        if (MakePolygon(points, radius, &p) == ShapeError::kOk) return Shape::FromPolygon(p);
        break;
      }
    }
  }
}

// ---- Pair cases ------------------------------------------------------------------

enum class Layout { kMixed, kContact, kCast };

struct DoublePair {
  ref::DProxy a, b;
  ref::DVec2 translation;
  double max_fraction = 1;
};

// The fixed side of a pair is stored as a ShapeCastInput (proxies a and b,
// plus the translation that only ShapeCast reads), so that ShapeCast needs
// no copy in its timed loop.
struct PairSet {
  std::vector<ShapeCastInput> fixed;
  std::vector<DoublePair> dbl;
};

PairSet MakePairSet(Layout layout, Kind ka, Kind kb, uint64_t seed) {
  SplitMix64 rng(seed);
  PairSet set;
  set.fixed.reserve(kConfigs);
  set.dbl.reserve(kConfigs);
  while (set.fixed.size() < kConfigs) {
    const double s = RandomScale(rng);
    const Shape sa = RandomShape(rng, ka, s), sb = RandomShape(rng, kb, s);
    const Transform xa = {RandomVec(rng, s), RandomRot(rng)};
    const double dist = layout == Layout::kCast ? UniformD(rng, 2 * s, 5 * s) : UniformD(rng, 0, 3 * s);
    Transform xb = {xa.p + FromD(dist * RandomDirection(rng)), RandomRot(rng)};
    ShapeCastInput in;
    in.a = MakeProxy(sa, xa);
    in.b = MakeProxy(sb, xb);
    DoublePair d{ref::ToD(in.a), ref::ToD(in.b), {}, 1.0};
    if (layout == Layout::kContact) {
      // Move B along the minimum translation to the wanted separation.
      const ref::Penetration pen = ref::SignedSeparation(d.a, d.b);
      if (!std::isfinite(pen.separation) || ref::Length(pen.normal) < 0.5) continue;
      const double target = UniformD(rng, -0.1 * s, kSpeculative);
      xb.p += FromD((target - pen.separation) * pen.normal);
      in.b = MakeProxy(sb, xb);
      d.b = ref::ToD(in.b);
    } else if (layout == Layout::kCast) {
      // Towards B, with a miss of up to 1.5 s, overshooting or stopping short.
      const Vec2 aim = (xb.p - xa.p) + RandomVec(rng, 1.5 * s);
      in.translation = RandomFixed(rng, 0.6, 1.6) * aim;
      d.translation = ref::ToD(in.translation);
    }
    set.fixed.push_back(in);
    set.dbl.push_back(std::move(d));
  }
  return set;
}

// ---- Single-shape cases (ContainsPoint, RayCast) --------------------------------

struct DoubleShapeCase {
  ref::DProxy proxy;
  ref::DVec2 origin;  // the point, for ContainsPoint
  ref::DVec2 translation;
  double max_fraction = 1;
};

struct FixedShapeCase {
  ShapeProxy proxy;
  RayCastInput ray;  // ray.origin is the point, for ContainsPoint
};

struct ShapeSet {
  std::vector<FixedShapeCase> fixed;
  std::vector<DoubleShapeCase> dbl;
};

ShapeSet MakeShapeSet(bool ray, Kind kind, uint64_t seed) {
  SplitMix64 rng(seed);
  ShapeSet set;
  set.fixed.reserve(kConfigs);
  set.dbl.reserve(kConfigs);
  while (set.fixed.size() < kConfigs) {
    const double s = RandomScale(rng);
    const Shape shape = RandomShape(rng, kind, s);
    const Transform xf = {RandomVec(rng, s), RandomRot(rng)};
    FixedShapeCase c;
    c.proxy = MakeProxy(shape, xf);
    if (ray) {
      c.ray.origin = xf.p + FromD(UniformD(rng, 2 * s, 5 * s) * RandomDirection(rng));
      const Vec2 aim = (xf.p - c.ray.origin) + RandomVec(rng, 1.5 * s);
      c.ray.translation = RandomFixed(rng, 0.6, 1.6) * aim;
    } else {
      c.ray.origin = xf.p + RandomVec(rng, 1.5 * s);
    }
    set.dbl.push_back(
        {ref::ToD(c.proxy), ref::ToD(c.ray.origin), ref::ToD(c.ray.translation), c.ray.max_fraction.ToDouble()});
    set.fixed.push_back(c);
  }
  return set;
}

// ---- Lazily built inputs ------------------------------------------------------------
// Each case's inputs are made on its first run (outside the timed loop), so
// a filtered run builds only what it measures. Seeds depend on the case
// only, so a case sees the same inputs in every run and under any filter.

uint64_t Seed(int function, Kind a, Kind b) {
  return 0x5eed0000ull + 4096ull * static_cast<uint64_t>(function) + 64ull * static_cast<uint64_t>(a) +
         static_cast<uint64_t>(b);
}

const PairSet& Pairs(Layout layout, Kind a, Kind b) {
  static std::map<std::tuple<Layout, Kind, Kind>, std::unique_ptr<PairSet>> cache;
  std::unique_ptr<PairSet>& slot = cache[{layout, a, b}];
  if (!slot) slot = std::make_unique<PairSet>(MakePairSet(layout, a, b, Seed(static_cast<int>(layout), a, b)));
  return *slot;
}

const ShapeSet& Shapes(bool ray, Kind kind) {
  static std::map<std::pair<bool, Kind>, std::unique_ptr<ShapeSet>> cache;
  std::unique_ptr<ShapeSet>& slot = cache[{ray, kind}];
  if (!slot) slot = std::make_unique<ShapeSet>(MakeShapeSet(ray, kind, Seed(ray ? 11 : 10, kind, kind)));
  return *slot;
}

struct ScalarSet {
  std::vector<Fixed> x, y;
  std::vector<double> dx, dy;
};

// Angles in [-pi, pi] (MakeRot); y, x in [-100, 100] (Atan2); values
// 2^[-16, 16] (Sqrt); vectors with components of magnitude 2^[-8, 8]
// (Normalize).
const ScalarSet& Scalars(int which) {
  static std::map<int, std::unique_ptr<ScalarSet>> cache;
  std::unique_ptr<ScalarSet>& slot = cache[which];
  if (slot) return *slot;
  slot = std::make_unique<ScalarSet>();
  SplitMix64 rng(Seed(20 + which, Kind::kCircle, Kind::kCircle));
  for (size_t i = 0; i < kConfigs; ++i) {
    Fixed x, y;
    switch (which) {
      case 0: x = RandomFixed(rng, -std::numbers::pi, std::numbers::pi); break;
      case 1:
        x = RandomFixed(rng, -100, 100);
        y = RandomFixed(rng, -100, 100);
        break;
      case 2: x = Fixed::FromDouble(std::exp2(UniformD(rng, -16, 16))); break;
      default: {
        const double m = std::exp2(UniformD(rng, -8, 8));
        x = RandomFixed(rng, -m, m);
        y = RandomFixed(rng, -m, m);
      }
    }
    slot->x.push_back(x);
    slot->y.push_back(y);
    slot->dx.push_back(x.ToDouble());
    slot->dy.push_back(y.ToDouble());
  }
  return *slot;
}

// ---- The timed loop ----------------------------------------------------------------

// Calls body(i) once per iteration, i cycling through 0..kConfigs-1; body
// returns a count (hits, contact points) that is summed and reported as the
// mean per call in `counter` (no counter when null).
template <class Body>
void Cycle(benchmark::State& state, const char* counter, Body body) {
  int64_t total = 0;
  size_t i = 0;
  for (auto _ : state) {
    total += body(i);
    i = (i + 1) & (kConfigs - 1);
  }
  benchmark::DoNotOptimize(total);
  if (counter && state.iterations() > 0) {
    state.counters[counter] = static_cast<double>(total) / static_cast<double>(state.iterations());
  }
}

static_assert((kConfigs & (kConfigs - 1)) == 0, "kConfigs must be a power of two");

// ---- Registration ------------------------------------------------------------------

// Registers FUNCTION/LABEL/SIDE (RegisterBenchmark copies the name).
template <class Fn>
void Register(const std::string& function, const std::string& label, const char* side, Fn fn) {
  benchmark::RegisterBenchmark((function + "/" + label + "/" + side).c_str(), fn);
}

// Calls f(a, b, "a-b") for every unordered pair of kinds.
template <class F>
void ForEachPair(F f) {
  for (size_t ia = 0; ia < std::size(kKinds); ++ia) {
    for (size_t ib = ia; ib < std::size(kKinds); ++ib) {
      f(kKinds[ia], kKinds[ib], std::string(KindName(kKinds[ia])) + "-" + KindName(kKinds[ib]));
    }
  }
}

void RegisterPairs() {
  ForEachPair([](Kind a, Kind b, const std::string& pair) {
    Register("TestOverlap", pair, "fixed", [=](benchmark::State& st) {
      const auto& in = Pairs(Layout::kMixed, a, b).fixed;
      Cycle(st, "hit", [&](size_t i) { return static_cast<int64_t>(TestOverlap(in[i].a, in[i].b)); });
    });
    Register("TestOverlap", pair, "double", [=](benchmark::State& st) {
      const auto& in = Pairs(Layout::kMixed, a, b).dbl;
      Cycle(st, "hit", [&](size_t i) { return static_cast<int64_t>(ref::Overlap(in[i].a, in[i].b)); });
    });
  });
  ForEachPair([](Kind a, Kind b, const std::string& pair) {
    Register("ShapeDistance", pair, "fixed", [=](benchmark::State& st) {
      const auto& in = Pairs(Layout::kMixed, a, b).fixed;
      Cycle(st, "hit", [&](size_t i) {
        const DistanceOutput out = ShapeDistance(in[i].a, in[i].b);
        benchmark::DoNotOptimize(out);
        return static_cast<int64_t>(out.distance == kFixedZero);
      });
    });
    Register("ShapeDistance", pair, "double", [=](benchmark::State& st) {
      const auto& in = Pairs(Layout::kMixed, a, b).dbl;
      Cycle(st, "hit", [&](size_t i) {
        const ref::DistanceResult out = ref::Distance(in[i].a, in[i].b);
        benchmark::DoNotOptimize(out);
        return static_cast<int64_t>(out.distance == 0.0);
      });
    });
  });
  ForEachPair([](Kind a, Kind b, const std::string& pair) {
    Register("ShapeCast", pair, "fixed", [=](benchmark::State& st) {
      const auto& in = Pairs(Layout::kCast, a, b).fixed;
      Cycle(st, "hit", [&](size_t i) {
        const CastOutput out = ShapeCast(in[i]);
        benchmark::DoNotOptimize(out);
        return static_cast<int64_t>(out.hit);
      });
    });
    Register("ShapeCast", pair, "double", [=](benchmark::State& st) {
      const auto& in = Pairs(Layout::kCast, a, b).dbl;
      Cycle(st, "hit", [&](size_t i) {
        const ref::CastResult out = ref::ShapeCast(in[i].a, in[i].b, in[i].translation, in[i].max_fraction);
        benchmark::DoNotOptimize(out);
        return static_cast<int64_t>(out.hit);
      });
    });
  });
  ForEachPair([](Kind a, Kind b, const std::string& pair) {
    Register("Collide", pair, "fixed", [=](benchmark::State& st) {
      const auto& in = Pairs(Layout::kContact, a, b).fixed;
      const Fixed speculative = Fixed::FromDouble(kSpeculative);
      Cycle(st, "pts", [&](size_t i) {
        const Manifold m = Collide(in[i].a, in[i].b, speculative);
        benchmark::DoNotOptimize(m);
        return static_cast<int64_t>(m.point_count);
      });
    });
    Register("Collide", pair, "double", [=](benchmark::State& st) {
      const auto& in = Pairs(Layout::kContact, a, b).dbl;
      Cycle(st, "pts", [&](size_t i) {
        const ref::DManifold m = ref::Manifold(in[i].a, in[i].b, kSpeculative);
        benchmark::DoNotOptimize(m);
        return static_cast<int64_t>(m.points.size());
      });
    });
  });
}

void RegisterShapes() {
  for (const Kind k : kKinds) {
    const std::string label = KindName(k);
    Register("ContainsPoint", label, "fixed", [=](benchmark::State& st) {
      const auto& in = Shapes(false, k).fixed;
      Cycle(st, "hit", [&](size_t i) { return static_cast<int64_t>(ContainsPoint(in[i].proxy, in[i].ray.origin)); });
    });
    Register("ContainsPoint", label, "double", [=](benchmark::State& st) {
      const auto& in = Shapes(false, k).dbl;
      Cycle(st, "hit", [&](size_t i) { return static_cast<int64_t>(ref::Contains(in[i].proxy, in[i].origin)); });
    });
  }
  for (const Kind k : kKinds) {
    const std::string label = KindName(k);
    Register("RayCast", label, "fixed", [=](benchmark::State& st) {
      const auto& in = Shapes(true, k).fixed;
      Cycle(st, "hit", [&](size_t i) {
        const CastOutput out = RayCast(in[i].proxy, in[i].ray);
        benchmark::DoNotOptimize(out);
        return static_cast<int64_t>(out.hit);
      });
    });
    Register("RayCast", label, "double", [=](benchmark::State& st) {
      const auto& in = Shapes(true, k).dbl;
      Cycle(st, "hit", [&](size_t i) {
        const ref::CastResult out = ref::RayCast(in[i].proxy, in[i].origin, in[i].translation, in[i].max_fraction);
        benchmark::DoNotOptimize(out);
        return static_cast<int64_t>(out.hit);
      });
    });
  }
}

// The scalar helpers of fixed_math.h and math.h against <cmath> (and the
// reference's Normalize, which is what <cmath> users would write).
void RegisterMath() {
  Register("MakeRot", "angle", "fixed", [](benchmark::State& st) {
    const auto& in = Scalars(0);
    Cycle(st, nullptr, [&](size_t i) {
      const Rot q = MakeRot(in.x[i]);
      benchmark::DoNotOptimize(q);
      return int64_t{0};
    });
  });
  Register("MakeRot", "angle", "double", [](benchmark::State& st) {
    const auto& in = Scalars(0);
    Cycle(st, nullptr, [&](size_t i) {
      const double c = std::cos(in.dx[i]), s = std::sin(in.dx[i]);
      benchmark::DoNotOptimize(c);
      benchmark::DoNotOptimize(s);
      return int64_t{0};
    });
  });
  Register("Atan2", "yx", "fixed", [](benchmark::State& st) {
    const auto& in = Scalars(1);
    Cycle(st, nullptr, [&](size_t i) {
      const Fixed a = Atan2(in.y[i], in.x[i]);
      benchmark::DoNotOptimize(a);
      return int64_t{0};
    });
  });
  Register("Atan2", "yx", "double", [](benchmark::State& st) {
    const auto& in = Scalars(1);
    Cycle(st, nullptr, [&](size_t i) {
      const double a = std::atan2(in.dy[i], in.dx[i]);
      benchmark::DoNotOptimize(a);
      return int64_t{0};
    });
  });
  Register("Sqrt", "scalar", "fixed", [](benchmark::State& st) {
    const auto& in = Scalars(2);
    Cycle(st, nullptr, [&](size_t i) {
      const Fixed r = Sqrt(in.x[i]);
      benchmark::DoNotOptimize(r);
      return int64_t{0};
    });
  });
  Register("Sqrt", "scalar", "double", [](benchmark::State& st) {
    const auto& in = Scalars(2);
    Cycle(st, nullptr, [&](size_t i) {
      const double r = std::sqrt(in.dx[i]);
      benchmark::DoNotOptimize(r);
      return int64_t{0};
    });
  });
  Register("Normalize", "vec2", "fixed", [](benchmark::State& st) {
    const auto& in = Scalars(3);
    Cycle(st, nullptr, [&](size_t i) {
      const Vec2 n = Normalize(Vec2{in.x[i], in.y[i]});
      benchmark::DoNotOptimize(n);
      return int64_t{0};
    });
  });
  Register("Normalize", "vec2", "double", [](benchmark::State& st) {
    const auto& in = Scalars(3);
    Cycle(st, nullptr, [&](size_t i) {
      const ref::DVec2 n = ref::Normalize(ref::DVec2{in.dx[i], in.dy[i]});
      benchmark::DoNotOptimize(n);
      return int64_t{0};
    });
  });
}

}  // namespace
}  // namespace arbiter::bench

int main(int argc, char** argv) {
  using namespace arbiter::bench;
  // Fixed then double for each case, adjacently: a slow spell of a shared
  // machine then tends to hit both sides of a ratio.
  RegisterMath();
  RegisterShapes();
  RegisterPairs();
  benchmark::AddCustomContext("narrow_bench.configs_per_case", std::to_string(kConfigs));
  benchmark::AddCustomContext("narrow_bench.sides", "fixed = core (Q32.32), double = tests/reference or <cmath>");
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  const size_t ran = benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  if (ran == 0) {
    std::fprintf(stderr, "narrow_bench: no benchmark matches the filter\n");
    return 1;
  }
  return 0;
}
