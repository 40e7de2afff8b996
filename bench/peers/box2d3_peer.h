// File: box2d3_peer.h
//
// Box2D v3 (erincatto/box2d, C, v3.1 or later) as a peer, built only when
// CMake is given -DARBITER_BOX2D3_DIR (a tree built by Box2D's own CMake;
// Debian ships no v3). Every body of the scene becomes a static body, created
// in Hilbert order (SpatialOrder in peer.h), and once all are in the static
// tree is rebuilt top-down (b2World_RebuildStaticTree), as Box2D's own
// BenchmarkCast sample offers. Shapes map one to one: circles, capsules,
// segments, and polygons (b2ComputeHull + b2MakePolygon, with their rounding
// radius); a chain segment becomes a two-sided segment (v3 makes chain
// segments only as parts of a b2Chain) and is counted in Setup().
//
// Queries, the way Box2D's users write them:
//  - rays: b2World_CastRay with a callback returning the fraction (clipping
//    the ray to the closest hit so far); ties go to the lower body id;
//  - boxes and disks: b2World_OverlapShape with a box or one-point proxy
//    (exact GJK distance; Box2D counts distance <= 0.0005 as overlap);
//    b2World_OverlapAABB would report tree boxes, not shapes;
//  - sweeps: b2World_CastShape with a one-point proxy of the disk's radius,
//    clipped like the rays.
//
// The v3 headers define b2Vec2, b2AABB, b2Rot... as Box2D 2.4.1's do, with
// other layouts. They are included by box2d3_peer.cc alone, every helper
// there has internal linkage, and no template is instantiated on a v3 type,
// so no symbol of the two versions can meet at link time.
#pragma once

#include <memory>

#include "peers/peer.h"

namespace arbiter::bench {

/// Box2D v3 as a Peer (named "Box2D3" in tables).
std::unique_ptr<Peer> MakeBox2d3Peer();

}  // namespace arbiter::bench
