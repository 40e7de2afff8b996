// File: chain_reference.h
//
// The double reference for chain segments (core/include/arbiter/core/chain.h),
// written from the rules, not from core's code: one-sidedness as a signed
// distance, and the ghost-vertex rule as ANGLES (core decides with exact
// dot and cross products and a sine tolerance).
#pragma once

#include "reference/reference.h"

namespace arbiter::reference {

struct DChain {
  DVec2 ghost1, point1, point2, ghost2;
};

inline DProxy SegmentOf(const DChain& c) { return DProxy{{c.point1, c.point2}, 0}; }

/// Signed distance of p in front of the segment's line (normal =
/// RightPerp(point2 - point1)); negative behind.
double FrontDistance(const DChain& c, DVec2 p);

/// The mean of the proxy's points.
DVec2 Centre(const DProxy& p);

/// A ray hits only from strictly in front; then as a plain segment.
CastResult ChainRayCast(const DChain& c, DVec2 origin, DVec2 translation, double max_fraction);

/// A moves; hits only when A's centre starts strictly in front.
CastResult ChainShapeCast(const DProxy& a, const DChain& b, DVec2 translation, double max_fraction);

enum class DVerdict { kAdmit, kSkip, kSnap };

/// Which contact normal n (unit, from the segment toward the other shape)
/// the segment owns. With delta the angle from the face normal to n
/// (positive = counter-clockwise = leaning toward point2), alpha the left
/// turn at point1 (from the previous edge into this one) and beta the turn
/// at point2: |delta| >= pi/2 snaps (behind the face); at a convex joint
/// (turn >= 0) the segment owns delta in [-alpha, 0] at point1 and [0, beta]
/// at point2, a normal past that is skipped; at a concave joint it owns
/// only delta = 0, a normal past it snaps. *margin is the angular distance
/// to the nearest boundary that decided (radians).
DVerdict ClassifyNormal(const DChain& c, DVec2 n, double* margin);

}  // namespace arbiter::reference
