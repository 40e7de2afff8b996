// A bounding-volume hierarchy of AABBs over integer (Q32.32) boxes.
//
// Nodes are pooled in one array and addressed by index ("nodes are pooled
// and relocatable, so I use node indices rather than pointers", as Box2D's
// b2DynamicTree says). Leaves are inserted with the perimeter (2D surface
// area) heuristic and the tree is kept height-balanced by AVL rotations
// (Box2D 2.4's b2DynamicTree), and it can also be rebuilt top-down with a
// binned SAH build, which gives better trees for large static sets.
//
// The tree's shape depends on the order of operations, but nothing built on
// it may let that show: the world sorts every result canonically.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "arbiter/core/math.h"

namespace arbiter::internal {

/// Most nodes a traversal stack holds; a balanced tree of 2^31 leaves is
/// less than 64 levels deep, so 256 leaves ample slack.
constexpr int kTreeStackSize = 256;

class DynamicTree {
 public:
  static constexpr int32_t kNull = -1;

  /// Adds a leaf with box `aabb` carrying `user`; returns its proxy id.
  int32_t CreateProxy(const Aabb& aabb, uint32_t user);
  void DestroyProxy(int32_t proxy);
  /// Replaces a leaf's box (remove and re-insert).
  void MoveProxy(int32_t proxy, const Aabb& aabb);

  const Aabb& GetAabb(int32_t proxy) const { return nodes_[proxy].aabb; }
  uint32_t GetUser(int32_t proxy) const { return nodes_[proxy].user; }
  void SetUser(int32_t proxy, uint32_t user) { nodes_[proxy].user = user; }
  int32_t leaf_count() const { return leaf_count_; }
  int32_t height() const { return root_ == kNull ? 0 : nodes_[root_].height; }

  /// Rebuilds the whole tree top-down (binned SAH). Proxy ids are kept.
  void Rebuild();

  /// Calls visit(user) for every leaf whose box overlaps `box` (touching
  /// counts) until visit returns false. Returns the number of nodes visited.
  template <class Visit>
  uint64_t Query(const Aabb& box, Visit&& visit) const;

  /// Visits leaves whose box the segment origin + t * translation,
  /// t in [0, max_fraction], may touch, in roughly front-to-back order.
  /// `clip(user)` returns the new max_fraction (a value <= the current one
  /// shortens the segment; a negative value stops the traversal).
  /// `inflate` grows every node box by that much on each axis first, which
  /// turns the traversal into a box sweep. Returns nodes visited.
  template <class Clip>
  uint64_t RayCast(Vec2 origin, Vec2 translation, Fixed max_fraction, Vec2 inflate, Clip&& clip) const;

  /// Exhaustive structural check for tests: parents, heights, enclosing boxes.
  bool Validate() const;

  size_t MemoryBytes() const { return nodes_.capacity() * sizeof(Node); }

 private:
  struct Node {
    Aabb aabb;
    int32_t parent = kNull;  // or the next free node while on the free list
    int32_t child1 = kNull;
    int32_t child2 = kNull;
    int32_t height = 0;      // 0 for leaves, -1 for free nodes
    uint32_t user = 0;
    bool IsLeaf() const { return child1 == kNull; }
  };

  int32_t AllocateNode();
  void FreeNode(int32_t node);
  void InsertLeaf(int32_t leaf);
  void RemoveLeaf(int32_t leaf);
  int32_t Balance(int32_t a);
  void RefitUpward(int32_t node);
  int32_t BuildTopDown(int32_t* leaves, int32_t count);
  int32_t ValidateNode(int32_t node, bool* ok) const;

  std::vector<Node> nodes_;
  int32_t root_ = kNull;
  int32_t free_list_ = kNull;
  int32_t leaf_count_ = 0;
};

/// Half the perimeter of a box in raw units, halved once more so that the
/// sum fits an int64 for any box inside the world range. Only compared.
inline int64_t HalfPerimeterCost(const Aabb& a) {
  return ((a.upper.x - a.lower.x).raw() >> 1) + ((a.upper.y - a.lower.y).raw() >> 1);
}

template <class Visit>
uint64_t DynamicTree::Query(const Aabb& box, Visit&& visit) const {
  if (root_ == kNull) return 0;
  std::array<int32_t, kTreeStackSize> stack;
  int top = 0;
  stack[top++] = root_;
  uint64_t visits = 0;
  while (top > 0) {
    const Node& node = nodes_[stack[--top]];
    ++visits;
    if (!Overlaps(node.aabb, box)) continue;
    if (node.IsLeaf()) {
      if (!visit(node.user)) return visits;
    } else {
      stack[top++] = node.child1;
      stack[top++] = node.child2;
    }
  }
  return visits;
}

template <class Clip>
uint64_t DynamicTree::RayCast(Vec2 origin, Vec2 translation, Fixed max_fraction, Vec2 inflate, Clip&& clip) const {
  if (root_ == kNull) return 0;
  // Separating-axis test of the segment against a node box (van den Bergen,
  // Collision Detection in Interactive 3D Environments, p. 80): the box is
  // missed when |cross(d, o - c)| > |d.y| hx + |d.x| hy, evaluated exactly in
  // 128 bits. c is rounded to nearest, so h is widened by one ulp, and the
  // segment's own box by one ulp, so that no box the segment touches is
  // ever skipped.
  const Fixed ulp = Fixed::FromRaw(1);  // widening of the segment's box
  const Fixed abs_dx = Abs(translation.x), abs_dy = Abs(translation.y);
  auto segment_box = [&](Fixed fraction) {
    const Vec2 end = MulAdd(origin, fraction, translation);
    return Aabb{{Min(origin.x, end.x) - ulp, Min(origin.y, end.y) - ulp}, {Max(origin.x, end.x) + ulp, Max(origin.y, end.y) + ulp}};
  };
  Aabb seg_box = segment_box(max_fraction);
  std::array<int32_t, kTreeStackSize> stack;
  int top = 0;
  stack[top++] = root_;
  uint64_t visits = 0;
  const bool inflated = inflate != Vec2{};
  const int64_t ox = origin.x.raw(), oy = origin.y.raw();
  while (top > 0) {
    const Node& node = nodes_[stack[--top]];
    ++visits;
    Aabb box = node.aabb;
    if (inflated) box = {box.lower - inflate, box.upper + inflate};
    if (!Overlaps(box, seg_box)) continue;
    // Centre and half extents by floor shifts: each is at most half an ulp
    // low, which the one-ulp widening of h covers.
    const int64_t cx = (box.lower.x.raw() + box.upper.x.raw()) >> 1;
    const int64_t cy = (box.lower.y.raw() + box.upper.y.raw()) >> 1;
    const int64_t hx = ((box.upper.x.raw() - box.lower.x.raw()) >> 1) + 1;
    const int64_t hy = ((box.upper.y.raw() - box.lower.y.raw()) >> 1) + 1;
    const Int128 separation = (Int128::Mul(translation.x.raw(), oy - cy) - Int128::Mul(translation.y.raw(), ox - cx)).Abs();
    if (separation > Int128::Mul(abs_dy.raw(), hx) + Int128::Mul(abs_dx.raw(), hy)) continue;
    if (node.IsLeaf()) {
      const Fixed next = clip(node.user);
      if (next < kFixedZero) return visits;
      if (next < max_fraction) {
        max_fraction = next;
        seg_box = segment_box(max_fraction);
      }
    } else {
      // Near child last on the stack, so it is visited first.
      const Vec2 c1 = Center(nodes_[node.child1].aabb), c2 = Center(nodes_[node.child2].aabb);
      const bool first_is_near = DotWide(c1 - c2, translation).Sign() <= 0;
      stack[top++] = first_is_near ? node.child2 : node.child1;
      stack[top++] = first_is_near ? node.child1 : node.child2;
    }
  }
  return visits;
}

}  // namespace arbiter::internal
