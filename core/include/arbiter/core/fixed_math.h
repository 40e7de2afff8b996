// File: fixed_math.h
//
// Square root, trigonometry and angle helpers on Fixed, computed with integer
// arithmetic only, so they give the same bits everywhere. Box2D hand-codes
// b2Atan2 and b2ComputeCosSin for the same reason.
//
// Accuracy (measured against long double / double in tests/core/fixed_math_test.cc
// on more than 10^6 samples):
//   Sqrt        correctly rounded (error <= 0.5 ulp, ulp = 2^-32);
//   CosSin      |error| <= 1 ulp per component for |angle| <= 2^20 radians;
//               the reduction uses pi/2 to 2^-62, so the error grows by at
//               most |angle| * 2^-63 radians beyond that;
//   Atan2       |error| <= 1 ulp;
//   Normalize   each component within 1 ulp of the exact unit vector.
#pragma once

#include "arbiter/core/fixed.h"
#include "arbiter/core/math.h"

namespace arbiter {

/// sqrt(a) correctly rounded; zero for a <= 0.
Fixed Sqrt(Fixed a);

/// The rotation by `angle` radians: (cos angle, sin angle).
Rot MakeRot(Fixed angle);

/// atan2(y, x) in [-pi, pi]; atan2(0, 0) is 0.
Fixed Atan2(Fixed y, Fixed x);

/// The angle of q in [-pi, pi].
inline Fixed RotAngle(Rot q) { return Atan2(q.s, q.c); }

}  // namespace arbiter
