// The narrow phase as the world's queries call it: the same functions as
// collision.h, with what stays the same across one query's candidates
// computed once per query, and what only the winning candidate needs left
// for the caller to compute for the winner alone. Every answer is bit for
// bit that of the public function (RayCast, ShapeCast).
#pragma once

#include "arbiter/core/collision.h"
#include "arbiter/core/math.h"
#include "proxy_view.h"

namespace arbiter::internal {

/// A ray's translation with its length and direction, which the circle and
/// corner tests need: one square root and two divisions, formed on first use
/// and then kept for every candidate of the query. Not thread-safe: one per
/// query.
class RayFrame {
 public:
  explicit RayFrame(Vec2 translation) : translation_(translation) {}

  Fixed length() const {
    Prepare();
    return length_;
  }
  Vec2 dir() const {
    Prepare();
    return dir_;
  }

 private:
  void Prepare() const {
    if (ready_) return;
    dir_ = GetLengthAndNormalize(&length_, translation_);
    ready_ = true;
  }

  Vec2 translation_;
  mutable Fixed length_;
  mutable Vec2 dir_;
  mutable bool ready_ = false;
};

/// RayCast(proxy, input) of the proxy `proxy` views, with `frame` that of
/// input.translation.
CastOutput RayCast(const ProxyView& proxy, const RayCastInput& input, const RayFrame& frame);

/// TestOverlap and ContainsPoint of the proxies the views show.
bool TestOverlap(const ProxyView& a, const ProxyView& b);
bool ContainsPoint(const ProxyView& proxy, Vec2 point);

/// ShapeDistance of the proxies the views show (their one-sidedness aside,
/// as ShapeDistance ignores it).
DistanceOutput ShapeDistance(const ProxyView& a, const ProxyView& b);

/// ShapeCast({a, b, translation, max_fraction}) of the proxies the views
/// show, without the contact point (left zero), with `frame` that of
/// `translation`; ShapeCastPoint gives the point of a hit.
CastOutput ShapeCastWithoutPoint(const ProxyView& a, const ProxyView& b, Vec2 translation, Fixed max_fraction,
                                 const RayFrame& frame);

/// The contact point ShapeCast reports for a hit at `fraction`.
Vec2 ShapeCastPoint(const ShapeCastInput& input, Fixed fraction);

}  // namespace arbiter::internal
