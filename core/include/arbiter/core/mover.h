// File: mover.h
//
// Move-and-slide: where a character-like shape ends up when it tries to move
// by a translation through a world, sliding along what it meets. Game
// servers replay a player's claimed movement with it (server ValidateMove).
// Like every query it is exact and deterministic: integer arithmetic only,
// candidates in canonical order, ties to the lower (body id, shape index).
//
// The algorithm (World::MoveAndSlide in core/src/mover.cc):
//  1. Push-out. When the shape at the start touches or overlaps shapes that
//     pass the filter (the exact overlap test; touching counts), it is
//     pushed out of the deepest one (largest penetration; ties to the lower
//     shape ref) along that contact's minimum translation until it is
//     `skin` clear of it, and again, up to `max_iterations` rounds. Each
//     push is reported as a plane with `pushed_out` set. If it still
//     touches something after the rounds, the move is `blocked` and the
//     shape stays where the pushes left it.
//  2. Cast and slide. Up to `max_iterations` times: cast the shape along the
//     translation still left; with no hit it takes all of it. On a hit at
//     fraction t it advances to t backed off so that it stays `skin` clear
//     along the hit's normal (never past t; zero when the approach along the
//     normal is too shallow for that), the plane is reported, and what is
//     left of the translation loses its component into the plane. When
//     nothing is left to slide (a head-on hit), or the remainder still
//     points into an earlier plane of this move (not the same plane again,
//     i.e. normals more than about 0.1 degree apart: a corner, where in 2D
//     no motion keeps clear of both), the move ends `blocked`. Running out
//     of iterations with translation left is also `blocked`. A cast that
//     starts touching (the rounding of a back-off) runs the push-out again.
//     Every plane met counts for the rest of the move: sliding along a
//     floor into a wall ends in the corner even if the floor ends there.
//
// Units are world units (raw Q32.32 in Fixed); the rotation of `start` is
// kept throughout; the result's position is where the shape's transform
// ends.
#pragma once

#include <cstdint>
#include <vector>

#include "arbiter/core/math.h"
#include "arbiter/core/shapes.h"

namespace arbiter {

/// One surface the mover met, in the order met.
struct MovePlane {
  uint64_t body_id = 0;
  uint32_t shape_index = 0;
  Vec2 normal;   ///< unit, pointing from the surface toward the mover
  Vec2 point;    ///< world-space contact point on the surface
  bool pushed_out = false;  ///< met at the start (push-out) rather than by the cast
  friend bool operator==(const MovePlane&, const MovePlane&) = default;
};

struct MoveResult {
  Vec2 position;  ///< where the transform's origin ends (rotation unchanged)
  std::vector<MovePlane> planes;
  /// The displacement achieved along the wanted translation as a fraction
  /// of it: dot(position - start, translation) / |translation|^2 clamped
  /// to [0, 1] (1 for a zero translation that was not blocked).
  Fixed fraction;
  /// True when translation was left that the mover could not take: a
  /// head-on hit, a corner, an unresolved start overlap, or the iteration
  /// limit. Sliding along a surface is not blocked.
  bool blocked = false;
  int32_t iterations = 0;  ///< casts made
  friend bool operator==(const MoveResult&, const MoveResult&) = default;
};

/// Input checks (OUT_OF_RANGE / INVALID_ARGUMENT naming the field) live in
/// ValidateMoveInput (world.h); World::MoveAndSlide expects valid input.
struct MoveInput {
  Shape shape;            ///< any shape (circle and capsule are the usual movers)
  Transform start = kTransformIdentity;  ///< |position| <= kMaxWorldCoordinate
  Vec2 translation;       ///< each component within +-kMaxMoveTranslation (2^28)
  Fixed skin = Fixed::FromRaw(int64_t{1} << 26);  ///< 1/64 unit by default; gap kept from surfaces, [kMinMoveSkin, kMaxMoveSkin]
  int32_t max_iterations = 4;            ///< 1..kMaxMoveIterations
};

}  // namespace arbiter
