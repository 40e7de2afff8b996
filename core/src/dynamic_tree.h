// A bounding-volume hierarchy of AABBs over integer (Q32.32) boxes.
//
// Nodes are pooled in one array and addressed by index ("nodes are pooled
// and relocatable, so I use node indices rather than pointers", as Box2D's
// b2DynamicTree says). Leaves are inserted with the perimeter (2D surface
// area) heuristic and the tree is kept height-balanced by AVL rotations
// (Box2D 2.4's b2DynamicTree), and it can also be rebuilt top-down with a
// binned SAH build, which gives better trees for large static sets.
//
// Proxy ids are stable handles, mapped to nodes through one small array, so
// that Rebuild can lay every node out afresh in depth-first order with
// siblings side by side: a traversal then tests both children of a node on
// neighbouring cache lines instead of two random ones.
//
// The tree's shape depends on the order of operations, but nothing built on
// it may let that show: the world sorts every result canonically.
#pragma once

#include <algorithm>
#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "arbiter/core/math.h"
#include "quantized_box.h"

namespace arbiter::internal {

/// Most nodes a traversal stack holds; a balanced tree of 2^31 leaves is
/// less than 64 levels deep, so 256 leaves ample slack.
constexpr int kTreeStackSize = 256;

/// Asks for the cache line at `p` ahead of its use; no effect on any result.
inline void PrefetchRead(const void* p) {
#if defined(__GNUC__) || defined(__clang__)
  __builtin_prefetch(p);
#else
  (void)p;
#endif
}

/// A node from a pool whose free nodes are chained through their `parent`
/// field from `free_list` (-1 ends it): a free one, reset, or a new one.
template <class Node>
int32_t AllocateFromPool(std::vector<Node>& nodes, int32_t& free_list) {
  if (free_list < 0) {
    nodes.emplace_back();
    return static_cast<int32_t>(nodes.size() - 1);
  }
  const int32_t node = free_list;
  free_list = nodes[node].parent;
  nodes[node] = Node();
  return node;
}

class DynamicTree {
 public:
  static constexpr int32_t kNull = -1;

  /// Adds a leaf with box `aabb` carrying `user`; returns its proxy id.
  int32_t CreateProxy(const Aabb& aabb, uint32_t user);
  void DestroyProxy(int32_t proxy);
  /// Replaces a leaf's box (remove and re-insert).
  void MoveProxy(int32_t proxy, const Aabb& aabb);

  const Aabb& GetAabb(int32_t proxy) const { return nodes_[proxy_node_[proxy]].aabb; }
  uint32_t GetUser(int32_t proxy) const { return nodes_[proxy_node_[proxy]].User(); }
  void SetUser(int32_t proxy, uint32_t user) { nodes_[proxy_node_[proxy]].child2 = static_cast<int32_t>(user); }
  int32_t leaf_count() const { return leaf_count_; }
  int32_t height() const { return root_ == kNull ? 0 : nodes_[root_].height; }

  /// Rebuilds the whole tree top-down (binned SAH) and lays it out in
  /// depth-first order with siblings adjacent. Proxy ids are kept.
  void Rebuild();

  /// Calls visit(user) for every leaf whose box overlaps `box` (touching
  /// counts) until visit returns false. Returns the number of nodes visited.
  /// `prefetch(user)`, when given, is called as RayCast's is.
  template <class Visit, class Prefetch = void (*)(uint32_t)>
  uint64_t Query(const Aabb& box, Visit&& visit, Prefetch&& prefetch = [](uint32_t) {}) const;

  /// Visits leaves whose box the segment origin + t * translation,
  /// t in [0, max_fraction], may touch, in roughly front-to-back order.
  /// `clip(user)` returns the new max_fraction (a value <= the current one
  /// shortens the segment; a negative value stops the traversal).
  /// `inflate` grows every node box by that much on each axis first, which
  /// turns the traversal into a box sweep. `prefetch(user)`, when given, is
  /// called as soon as a leaf is known to be visited, so that the caller can
  /// ask for what clip(user) will read while the walk goes on (it must not
  /// change anything clip sees). Returns nodes visited.
  template <class Clip, class Prefetch = void (*)(uint32_t)>
  uint64_t RayCast(Vec2 origin, Vec2 translation, Fixed max_fraction, Vec2 inflate, Clip&& clip,
                   Prefetch&& prefetch = [](uint32_t) {}) const;

  /// Exhaustive structural check for tests: parents, heights, enclosing boxes.
  bool Validate() const;

  size_t MemoryBytes() const {
    return nodes_.capacity() * sizeof(Node) + proxy_node_.capacity() * sizeof(int32_t);
  }

 private:
  // 48 bytes: a leaf has no children, an inner node no user value and no
  // proxy id, so a leaf keeps those two in its child fields (a static world
  // holds two nodes per shape). Heights stay plain fields: the AVL
  // rotations read them without asking what kind of node they are.
  struct Node {
    Aabb aabb;
    int32_t parent = kNull;  // or the next free node while on the free list
    int32_t child1 = kNull;  // a leaf's is LeafTag(proxy id) (< kNull); kNull on the free list
    int32_t child2 = kNull;  // a leaf's is its user value
    int32_t height = 0;      // 0 for leaves, -1 for free nodes
    bool IsLeaf() const { return child1 < 0; }  // free nodes too
    uint32_t User() const { return static_cast<uint32_t>(child2); }
    int32_t Proxy() const { return -2 - child1; }
  };
  static constexpr int32_t LeafTag(int32_t proxy) { return -2 - proxy; }

  int32_t AllocateNode();
  void FreeNode(int32_t node);
  void InsertLeaf(int32_t leaf);
  void RemoveLeaf(int32_t leaf);
  int32_t Balance(int32_t a);
  void RefitUpward(int32_t node);
  int32_t BuildTopDown(int32_t* leaves, int32_t count);
  int32_t ValidateNode(int32_t node, bool* ok) const;
  void LayOutDepthFirst();

  std::vector<Node> nodes_;
  // Node of each proxy id; a free id holds the next free id, encoded as
  // -2 - next (so kNull ends the list and live entries stay >= 0).
  std::vector<int32_t> proxy_node_;
  int32_t root_ = kNull;
  int32_t free_list_ = kNull;
  int32_t free_proxy_ = kNull;
  int32_t leaf_count_ = 0;
};

/// Half the perimeter of a box in raw units, halved once more so that the
/// sum fits an int64 for any box inside the world range. Only compared.
inline int64_t HalfPerimeterCost(const Aabb& a) {
  return ((a.upper.x - a.lower.x).raw() >> 1) + ((a.upper.y - a.lower.y).raw() >> 1);
}

template <class Visit, class Prefetch>
uint64_t DynamicTree::Query(const Aabb& box, Visit&& visit, Prefetch&& prefetch) const {
  if (root_ == kNull) return 0;
  uint64_t visits = 1;
  if (!Overlaps(nodes_[root_].aabb, box)) return visits;
  // Children are tested at their parent (adjacent after a rebuild), so only
  // nodes that overlap are pushed and fetched again.
  std::array<int32_t, kTreeStackSize + 1> stack;  // + 1: the branch-free push writes one slot ahead
  int top = 0;
  stack[top++] = root_;
  while (top > 0) {
    const Node& node = nodes_[stack[--top]];
    if (node.IsLeaf()) {
      if (!visit(node.User())) return visits;
      continue;
    }
    visits += 2;
    const Node& c1 = nodes_[node.child1];
    const Node& c2 = nodes_[node.child2];
    const bool touch1 = Overlaps(c1.aabb, box), touch2 = Overlaps(c2.aabb, box);
    // The walk waits on memory one level at a time: the children of a child
    // to be visited are fetched now, while its sibling's subtree runs.
    // A leaf's record likewise (see RayCast).
    if (touch1) c1.IsLeaf() ? prefetch(c1.User()) : PrefetchRead(&nodes_[c1.child1]);
    if (touch2) c2.IsLeaf() ? prefetch(c2.User()) : PrefetchRead(&nodes_[c2.child1]);
    // child2 below child1, so child1 is visited first, as before; without
    // branches, which the overlap tests mispredict: each slot is written and
    // kept when its child overlaps. (Measured on arena-10k disks: 6-9% more
    // queries per second; the ray walk, bound by its arithmetic, gained
    // nothing from the same change and keeps its branches.)
    stack[top] = node.child2;
    top += touch2 ? 1 : 0;
    stack[top] = node.child1;
    top += touch1 ? 1 : 0;
  }
  return visits;
}

// The segment-versus-box test of RayCast, in plain 64-bit integers.
//
// A segment meets a box exactly when their bounding boxes overlap and the
// box is not strictly on one side of the segment's line (van den Bergen,
// Collision Detection in Interactive 3D Environments, p. 80): for the box
// clamped to the segment's bounding box, with doubled centre C and doubled
// half extents H relative to the origin,
//     |d.x C.y - d.y C.x| > |d.y| H.x + |d.x| H.y   means a miss.
// Every coordinate is taken relative to the origin and shifted right by one
// per-segment `shift` that brings the segment's extent below 2^29, and the
// box is clamped to the segment's box, so every product fits an int64. The
// floor shifts leave each operand up to 1 (d), 2 (C) or 1 (H) off; a box is
// rejected only when it misses by more than the largest error those can
// cause, so no box the exact test accepts is ever rejected (a few more may
// be accepted). Floor is monotone, so the clamp and the box overlap test
// commute with the shift and stay conservative too.
//
// Boxes may come in a BoxFrame's units (the static tree's QBoxes): box
// coordinate c stands for raw base + c 2^S. The box test's bounds are then
// moved into frame units (exactly: raw < b iff c < ceil((b - base) / 2^S)),
// and a shifted operand floor((base + c 2^S - L) / 2^shift) is formed as
//   c 2^(S - shift) + floor((base - L) / 2^shift)   when shift < S,
//   floor((c + floor((base - L) / 2^S)) / 2^(shift - S))   otherwise
// (the first pulls out a multiple of 2^shift, the second nests floors),
// the same values as from the decoded box, without decoding it.
class SegmentBoxFilter {
 public:
  SegmentBoxFilter(Vec2 origin, Vec2 translation, const Aabb& segment_box, Vec2 inflate, BoxFrame frame = {})
      : ox_(origin.x.raw()),
        oy_(origin.y.raw()),
        // |origin| <= 2^61 raw (limits.h: 2^29 units) and the inflation,
        // half a shape's box, below 2^58 raw (2^24-unit extents), so the
        // sums fit an int64 and box - (ix + ox) is box - ix - ox exactly.
        lower_x_(inflate.x.raw() + ox_),
        upper_x_(ox_ - inflate.x.raw()),
        lower_y_(inflate.y.raw() + oy_),
        upper_y_(oy_ - inflate.y.raw()),
        frame_(frame) {
    // The largest magnitude any clamped operand can have before the shift.
    uint64_t bound = std::max(MagnitudeOf(translation.x.raw()), MagnitudeOf(translation.y.raw()));
    bound = std::max({bound, MagnitudeOf(segment_box.lower.x.raw() - ox_), MagnitudeOf(segment_box.upper.x.raw() - ox_),
                      MagnitudeOf(segment_box.lower.y.raw() - oy_), MagnitudeOf(segment_box.upper.y.raw() - oy_)});
    const int width = 64 - std::countl_zero(bound);
    shift_ = width > kOperandBits ? width - kOperandBits : 0;
    // The operands from frame units (see the class comment). |base| <
    // 2^62 (quantized_box.h) and |lower_x_| < 2^61 + 2^58, so base - L
    // fits; so does c 2^(S - shift), which is (decoded - base) / 2^shift
    // with |decoded - base| < 2^63.
    const int common = std::min(frame.shift, shift_);
    scale_ = int64_t{1} << (frame.shift - common);
    down_ = shift_ - common;
    from_lx_ = (frame.base_x - lower_x_) >> common;
    from_ux_ = (frame.base_x - upper_x_) >> common;
    from_ly_ = (frame.base_y - lower_y_) >> common;
    from_uy_ = (frame.base_y - upper_y_) >> common;
    dx_ = translation.x.raw() >> shift_;
    dy_ = translation.y.raw() >> shift_;
    const int64_t adx = dx_ < 0 ? -dx_ : dx_, ady = dy_ < 0 ? -dy_ : dy_;
    // |exact cross| >= |cross| - (2|dx| + 2|dy| + |Cx| + |Cy| + 4) and the
    // exact right side <= (|dy| + 1)(Hx + 1) + (|dx| + 1)(Hy + 1)
    //                   = |dy| Hx + |dx| Hy + Hx + Hy + |dx| + |dy| + 2.
    // What depends on the box beyond |dy| Hx + |dx| Hy, Hx + Hy + |Cx| +
    // |Cy|, is bounded once per segment box (Shorten), so that each test
    // adds one constant instead of four terms.
    adx_ = adx;
    ady_ = ady;
    slack_ = 3 * (adx + ady) + 6;
    Shorten(segment_box);
  }

  /// The segment now ends earlier: `segment_box` lies within the first one.
  void Shorten(const Aabb& segment_box) {
    slx_ = (segment_box.lower.x.raw() - ox_) >> shift_;
    sux_ = (segment_box.upper.x.raw() - ox_) >> shift_;
    sly_ = (segment_box.lower.y.raw() - oy_) >> shift_;
    suy_ = (segment_box.upper.y.raw() - oy_) >> shift_;
    // The box test of MayTouch on raw coordinates, without the shifts:
    // floor(a / 2^s) < b exactly when a < b 2^s, and floor(a / 2^s) > b
    // exactly when a >= (b + 1) 2^s. Each bound is within 2^s of the
    // segment box's side (|side - origin| <= 2^62 + 1 raw, limits.h's
    // query translation; s <= 35) plus the origin and the inflation
    // (2^61 and 2^58 raw at most), so it fits an int64. Then in frame
    // units: raw < b exactly when c < ceil((b - base) / 2^S).
    const int64_t unit = int64_t{1} << shift_;
    below_x_ = InFrame(slx_ * unit + upper_x_, frame_.base_x);
    beyond_x_ = InFrame((sux_ + 1) * unit + lower_x_, frame_.base_x);
    below_y_ = InFrame(sly_ * unit + upper_y_, frame_.base_y);
    beyond_y_ = InFrame((suy_ + 1) * unit + lower_y_, frame_.base_y);
    // A box that passes the box test is clamped into [slx, sux] x [sly, suy]
    // with lower <= upper (floor is monotone and lower - ix <= upper + ix),
    // so Hx <= sux - slx, |Cx| <= 2 max(|slx|, |sux|), and likewise in y;
    // with the shifted extent below 2^29 + 2 the sum is below 2^33.
    const int64_t mx = std::max(slx_ < 0 ? -slx_ : slx_, sux_ < 0 ? -sux_ : sux_);
    const int64_t my = std::max(sly_ < 0 ? -sly_ : sly_, suy_ < 0 ? -suy_ : suy_);
    bound_ = (sux_ - slx_) + (suy_ - sly_) + 2 * (mx + my) + slack_;
  }

  /// The doubled centre of the last box MayTouch accepted, clamped and
  /// shifted: Along() of it orders children front to back.
  struct Centre {
    int64_t x = 0;
    int64_t y = 0;
  };

  /// A scaled, approximate distance of a box's centre along the segment.
  /// Only compared, and only when both children of a node may touch, so it
  /// is formed then and not for every box tested.
  int64_t Along(Centre c) const { return c.x * dx_ + c.y * dy_; }

  /// False only when the segment surely misses `box` (raw; the frame must
  /// be the identity) grown by the inflation. Sets *centre (see Along)
  /// when true.
  bool MayTouch(const Aabb& box, Centre* centre) const {
    return MayTouch(box.lower.x.raw(), box.lower.y.raw(), box.upper.x.raw(), box.upper.y.raw(), centre);
  }

  /// The same for a box in the frame's units (decoded sides below 2^62 +
  /// 2^33 in magnitude, quantized_box.h).
  bool MayTouch(int64_t lower_x, int64_t lower_y, int64_t upper_x, int64_t upper_y, Centre* centre) const {
    // Most boxes fail here (the boxes do not overlap), before any shift.
    if (upper_x < below_x_ || lower_x >= beyond_x_ || upper_y < below_y_ || lower_y >= beyond_y_) {
      return false;
    }
    int64_t lx = (lower_x * scale_ + from_lx_) >> down_;
    int64_t ux = (upper_x * scale_ + from_ux_) >> down_;
    int64_t ly = (lower_y * scale_ + from_ly_) >> down_;
    int64_t uy = (upper_y * scale_ + from_uy_) >> down_;
    lx = std::max(lx, slx_);
    ux = std::min(ux, sux_);
    ly = std::max(ly, sly_);
    uy = std::min(uy, suy_);
    const int64_t cx = lx + ux, cy = ly + uy;  // doubled centre
    *centre = {cx, cy};
    const int64_t cross = dx_ * cy - dy_ * cx;
    // At least the bound of the constructor's comment for this box (bound_
    // covers its box-dependent terms), so the test stays conservative.
    const int64_t limit = ady_ * (ux - lx) + adx_ * (uy - ly) + bound_;
    return (cross < 0 ? -cross : cross) <= limit;
  }

 private:
  static constexpr int kOperandBits = 29;
  static uint64_t MagnitudeOf(int64_t v) { return v < 0 ? 0 - static_cast<uint64_t>(v) : static_cast<uint64_t>(v); }
  // ceil((b - base) / 2^S), exactly and without overflow: the identity
  // frame has base 0; otherwise S >= 2 and, with b = bh 2^S + bl and base =
  // kh 2^S + kl (0 <= bl, kl < 2^S), it is bh - kh + (bl > kl), where
  // |bh - kh| < 2^62.
  int64_t InFrame(int64_t b, int64_t base) const {
    const int s = frame_.shift;
    if (s == 0) return b - base;
    const int64_t mask = (int64_t{1} << s) - 1;
    return (b >> s) - (base >> s) + ((b & mask) > (base & mask) ? 1 : 0);
  }

  int64_t ox_, oy_;
  int64_t lower_x_, upper_x_, lower_y_, upper_y_;  // what box coordinates are measured from
  BoxFrame frame_;
  int shift_ = 0;
  int64_t scale_ = 1;  // 2^(S - min(S, shift))
  int down_ = 0;       // shift - min(S, shift)
  int64_t from_lx_ = 0, from_ux_ = 0, from_ly_ = 0, from_uy_ = 0;  // floor((base - L) / 2^min(S, shift)), per side
  int64_t dx_ = 0, dy_ = 0;
  int64_t adx_ = 0, ady_ = 0, slack_ = 0;
  int64_t bound_ = 0;  // slack_ plus the largest Hx + Hy + |Cx| + |Cy| of a clamped box
  int64_t slx_ = 0, sux_ = 0, sly_ = 0, suy_ = 0;  // the segment's box, shifted
  int64_t below_x_ = 0, beyond_x_ = 0, below_y_ = 0, beyond_y_ = 0;  // the box test's bounds, in frame units
};

// Kept out of line, as CompactTree::RayCast is: with the static tree a
// CompactTree, the movable tree's cast is its caller's only one and was
// inlined into it (measured with peer_bench --profile sweeps).
template <class Clip, class Prefetch>
#if defined(__GNUC__) || defined(__clang__)
__attribute__((noinline))
#endif
uint64_t DynamicTree::RayCast(Vec2 origin, Vec2 translation, Fixed max_fraction, Vec2 inflate, Clip&& clip,
                              Prefetch&& prefetch) const {
  if (root_ == kNull) return 0;
  // The segment's box is widened by an ulp: its end point is rounded.
  const Fixed ulp = Fixed::FromRaw(1);
  auto segment_box = [&](Fixed fraction) {
    const Vec2 end = MulAdd(origin, fraction, translation);
    return Aabb{{Min(origin.x, end.x) - ulp, Min(origin.y, end.y) - ulp}, {Max(origin.x, end.x) + ulp, Max(origin.y, end.y) + ulp}};
  };
  SegmentBoxFilter filter(origin, translation, segment_box(max_fraction), inflate);
  uint64_t visits = 1;
  SegmentBoxFilter::Centre centre;
  if (!filter.MayTouch(nodes_[root_].aabb, &centre)) return visits;
  // Every node on the stack has passed the test, against a segment that may
  // have been shortened since; those are tested again when popped. They are
  // the entries below `stale`, the stack's height at the last shortening
  // (lowered as they are popped): an entry pushed since passed the test
  // against the segment as it still is, and the test is a function of the
  // box and the segment alone, so testing it again could only say yes.
  std::array<int32_t, kTreeStackSize> stack;
  int top = 0;
  stack[top++] = root_;
  int stale = 0;
  while (top > 0) {
    const Node& node = nodes_[stack[--top]];
    if (top < stale) {
      stale = top;
      if (!filter.MayTouch(node.aabb, &centre)) continue;
    }
    if (node.IsLeaf()) {
      const Fixed next = clip(node.User());
      if (next < kFixedZero) return visits;
      if (next < max_fraction) {
        max_fraction = next;
        filter.Shorten(segment_box(max_fraction));
        stale = top;
      }
      continue;
    }
    SegmentBoxFilter::Centre centre1, centre2;
    visits += 2;
    const Node& c1 = nodes_[node.child1];
    const Node& c2 = nodes_[node.child2];
    const bool touch1 = filter.MayTouch(c1.aabb, &centre1);
    const bool touch2 = filter.MayTouch(c2.aabb, &centre2);
    // As in Query: the children of a child to be visited are fetched now,
    // while the walk tests its sibling's subtree.
    // A leaf's record is fetched likewise: the first read of a shape is
    // a cache miss that otherwise stalls the walk when the leaf is popped.
    auto fetch_below = [&](const Node& child) {
      if (child.IsLeaf()) {
        prefetch(child.User());
        return;
      }
      PrefetchRead(&nodes_[child.child1]);
      PrefetchRead(&nodes_[child.child2]);
    };
    if (touch1) fetch_below(c1);
    if (touch2) fetch_below(c2);
    // Near child last on the stack, so it is visited first.
    if (touch1 && touch2) {
      const bool first_is_near = filter.Along(centre1) <= filter.Along(centre2);
      stack[top++] = first_is_near ? node.child2 : node.child1;
      stack[top++] = first_is_near ? node.child1 : node.child2;
    } else if (touch1) {
      stack[top++] = node.child1;
    } else if (touch2) {
      stack[top++] = node.child2;
    }
  }
  return visits;
}

}  // namespace arbiter::internal
