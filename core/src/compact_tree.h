// The static tree: a bounding-volume hierarchy like DynamicTree (perimeter
// insertion, AVL rotations, binned SAH rebuild), laid out for memory.
//
// Each node holds its two children's boxes, so a leaf needs no node of its
// own: a tree of N leaves has N - 1 nodes, not 2N - 1. The boxes are
// QBoxes (quantized_box.h), 16 bytes instead of 32, in a frame the tree
// picks for what it holds; they are rounded outward, so a node's box always
// contains its leaves' exact boxes and every filter stays conservative. A
// node is 48 bytes, so the tree costs about 52 bytes per leaf (the node and
// the leaf's place) where DynamicTree's costs about 100.
//
// A leaf is named by the caller's key (a shape index, < 2^30), which the
// tree hands to visit/clip: the place of each key is one int32 in a table as
// long as the largest key, and no user value is stored beside it.
//
// The box a leaf was given is not kept: GetAabb returns a box that contains
// it, a step or two of the frame larger (2^shift raw each; see
// QuantFrame::kMinShift). The tree's shape depends on the order of
// operations, but nothing built on it may let that show: the world sorts
// every result canonically.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "arbiter/core/math.h"
#include "dynamic_tree.h"
#include "quantized_box.h"

namespace arbiter::internal {

class CompactTree {
 public:
  /// Adds leaf `key` (< 2^30, not in the tree) with box `aabb` (|coordinate|
  /// < 2^62 raw, quantized_box.h). Returns the key, as DynamicTree returns
  /// its proxy id.
  int32_t CreateProxy(const Aabb& aabb, uint32_t key);
  void DestroyProxy(int32_t key);
  /// Replaces a leaf's box (in place when it stays inside its parent's).
  void MoveProxy(int32_t key, const Aabb& aabb);
  /// Renames every leaf: key k becomes new_key[k] (a one-to-one map on the
  /// keys in the tree; entries of other keys are ignored).
  void Renumber(std::span<const uint32_t> new_key);

  /// A box containing leaf `key`'s: the one it was given, rounded out.
  Aabb GetAabb(int32_t key) const;
  int32_t leaf_count() const { return leaf_count_; }
  int32_t height() const { return HeightOf(root_); }

  /// Rebuilds the whole tree top-down (binned SAH) in depth-first order,
  /// in a frame chosen afresh for what it holds. Keys are kept.
  void Rebuild();

  /// As DynamicTree::Query: visit(key) for every leaf whose box may overlap
  /// `box` (every leaf whose exact box does, and a few that graze it).
  template <class Visit, class Prefetch = void (*)(uint32_t)>
  uint64_t Query(const Aabb& box, Visit&& visit, Prefetch&& prefetch = [](uint32_t) {}) const;

  /// As DynamicTree::RayCast, over the rounded-out boxes.
  template <class Clip, class Prefetch = void (*)(uint32_t)>
  uint64_t RayCast(Vec2 origin, Vec2 translation, Fixed max_fraction, Vec2 inflate, Clip&& clip,
                   Prefetch&& prefetch = [](uint32_t) {}) const;

  /// Exhaustive structural check for tests: parents, places, heights,
  /// enclosing boxes.
  bool Validate() const;

  size_t MemoryBytes() const { return nodes_.capacity() * sizeof(Node) + place_.capacity() * sizeof(int32_t); }

 private:
  static constexpr int32_t kNull = -1;
  // place_ entries: a node index times two plus the child slot, or these.
  static constexpr int32_t kAbsent = -1;
  static constexpr int32_t kAtRoot = -2;  // the leaf is the whole tree

  // A child reference: a node index (>= 0) or -2 - key for a leaf (< kNull,
  // so that kNull still means no tree).
  static constexpr bool IsLeaf(int32_t ref) { return ref < 0; }
  static constexpr int32_t LeafRef(uint32_t key) { return -2 - static_cast<int32_t>(key); }
  static constexpr uint32_t KeyOf(int32_t ref) { return static_cast<uint32_t>(-2 - ref); }

  // 48 bytes; what a walk reads (the boxes and children) comes first.
  struct Node {
    QBox box[2] = {};
    int32_t child[2] = {kNull, kNull};
    int32_t parent = kNull;  // or the next free node while on the free list
    int32_t height = 0;      // >= 1; -1 for free nodes
  };

  // Asks for what visiting `child` will read first: a node's boxes and
  // children (48 bytes, on up to two cache lines), or, through
  // prefetch(key), a leaf's record (its first read otherwise stalls the
  // walk when the leaf is popped).
  template <class Prefetch>
  void FetchChild(int32_t child, Prefetch& prefetch) const {
    if (IsLeaf(child)) {
      prefetch(KeyOf(child));
      return;
    }
    PrefetchRead(&nodes_[child]);
    PrefetchRead(&nodes_[child].child[1]);
  }

  int32_t HeightOf(int32_t ref) const { return ref == kNull ? 0 : IsLeaf(ref) ? 0 : nodes_[ref].height; }
  int SlotIn(int32_t node, int32_t ref) const { return nodes_[node].child[0] == ref ? 0 : 1; }
  // The box of a node or leaf as stored at its place (its parent's slot or
  // the root box).
  QBox& BoxAt(int32_t parent, int32_t ref) { return parent == kNull ? root_box_ : nodes_[parent].box[SlotIn(parent, ref)]; }
  void SetChild(int32_t node, int slot, int32_t ref, const QBox& box);
  void SetRoot(int32_t ref, const QBox& box);
  // Puts `ref` where `old` was (under old's parent `parent`, or the root).
  void Replace(int32_t parent, int32_t old, int32_t ref, const QBox& box);

  int32_t AllocateNode();
  void FreeNode(int32_t node);
  QBox EncodeWidening(const Aabb& aabb);
  void Reframe(const QuantFrame& frame);
  void InsertLeaf(uint32_t key, const QBox& box);
  void RemoveLeaf(uint32_t key);
  int32_t Balance(int32_t a);
  void RefitUpward(int32_t node);
  struct BuildInput;
  int32_t BuildTopDown(int32_t* items, int32_t count, const BuildInput& in, QBox* box);
  int32_t ValidateNode(int32_t ref, const QBox& box, bool* ok) const;

  std::vector<Node> nodes_;
  std::vector<int32_t> place_;  // by key: node * 2 + slot, kAtRoot or kAbsent
  QuantFrame frame_;
  QBox root_box_ = {};
  int32_t root_ = kNull;
  int32_t free_list_ = kNull;
  int32_t leaf_count_ = 0;
};

template <class Visit, class Prefetch>
uint64_t CompactTree::Query(const Aabb& box, Visit&& visit, Prefetch&& prefetch) const {
  if (root_ == kNull) return 0;
  uint64_t visits = 1;
  // Tested in frame units: QuantFrame::EncodeQuery says why that is exact
  // enough (conservative) and needs no decoding per node.
  const QBox q = frame_.EncodeQuery(box);
  if (!Overlaps(root_box_, q)) return visits;
  // Children are tested at their parent, so only references that overlap
  // are pushed; a leaf is visited when popped, as in DynamicTree::Query.
  std::array<int32_t, kTreeStackSize + 1> stack;  // + 1: the branch-free push writes one slot ahead
  int top = 0;
  stack[top++] = root_;
  while (top > 0) {
    const int32_t ref = stack[--top];
    if (IsLeaf(ref)) {
      if (!visit(KeyOf(ref))) return visits;
      continue;
    }
    const Node& node = nodes_[ref];
    visits += 2;
    const bool touch1 = Overlaps(node.box[0], q), touch2 = Overlaps(node.box[1], q);
    // The walk waits on memory one level at a time: a child to be visited
    // is fetched now, while its sibling's subtree runs.
    if (touch1) FetchChild(node.child[0], prefetch);
    if (touch2) FetchChild(node.child[1], prefetch);
    // Without branches, which the overlap tests mispredict (DynamicTree).
    stack[top] = node.child[1];
    top += touch2 ? 1 : 0;
    stack[top] = node.child[0];
    top += touch1 ? 1 : 0;
  }
  return visits;
}

// Kept out of line, as DynamicTree::RayCast is (both trees' casts share
// it): inlined into its one caller, the sweep's CastProxy, it changed what
// else the compiler inlined there, and sweeps ran 7-10% slower (arena-10k,
// peer_bench --profile sweeps, interleaved with main d823291).
template <class Clip, class Prefetch>
#if defined(__GNUC__) || defined(__clang__)
__attribute__((noinline))
#endif
uint64_t CompactTree::RayCast(Vec2 origin, Vec2 translation, Fixed max_fraction, Vec2 inflate, Clip&& clip,
                              Prefetch&& prefetch) const {
  if (root_ == kNull) return 0;
  // The segment's box is widened by an ulp: its end point is rounded.
  const Fixed ulp = Fixed::FromRaw(1);
  auto segment_box = [&](Fixed fraction) {
    const Vec2 end = MulAdd(origin, fraction, translation);
    return Aabb{{Min(origin.x, end.x) - ulp, Min(origin.y, end.y) - ulp}, {Max(origin.x, end.x) + ulp, Max(origin.y, end.y) + ulp}};
  };
  // Boxes are tested in frame units, as they are stored.
  SegmentBoxFilter filter(origin, translation, segment_box(max_fraction), inflate, frame_.box_frame());
  auto may_touch = [&](const QBox& q, SegmentBoxFilter::Centre* centre) {
    return filter.MayTouch(q.lx, q.ly, q.ux, q.uy, centre);
  };
  uint64_t visits = 1;
  SegmentBoxFilter::Centre centre;
  if (!may_touch(root_box_, &centre)) return visits;
  // As in DynamicTree::RayCast: entries below `stale` passed the test
  // against a segment since shortened and are tested again when popped.
  // Each entry's box (stored in its parent) is kept beside it, in an array
  // of its own: a pop reads only the reference (a 20-byte entry read back
  // whole stalls on store forwarding; measured 6% of a ray's time).
  std::array<int32_t, kTreeStackSize> stack;
  std::array<QBox, kTreeStackSize> stack_boxes;
  int top = 0;
  auto push = [&](int32_t ref, const QBox& box) {
    stack[top] = ref;
    stack_boxes[top] = box;
    ++top;
  };
  push(root_, root_box_);
  int stale = 0;
  while (top > 0) {
    const int32_t ref = stack[--top];
    if (top < stale) {
      stale = top;
      if (!may_touch(stack_boxes[top], &centre)) continue;
    }
    if (IsLeaf(ref)) {
      const Fixed next = clip(KeyOf(ref));
      if (next < kFixedZero) return visits;
      if (next < max_fraction) {
        max_fraction = next;
        filter.Shorten(segment_box(max_fraction));
        stale = top;
      }
      continue;
    }
    const Node& node = nodes_[ref];
    SegmentBoxFilter::Centre centre1, centre2;
    visits += 2;
    const bool touch1 = may_touch(node.box[0], &centre1);
    const bool touch2 = may_touch(node.box[1], &centre2);
    // As in Query.
    if (touch1) FetchChild(node.child[0], prefetch);
    if (touch2) FetchChild(node.child[1], prefetch);
    // Near child last on the stack, so it is visited first.
    if (touch1 && touch2) {
      const int near = filter.Along(centre1) <= filter.Along(centre2) ? 0 : 1;
      push(node.child[1 - near], node.box[1 - near]);
      push(node.child[near], node.box[near]);
    } else if (touch1) {
      push(node.child[0], node.box[0]);
    } else if (touch2) {
      push(node.child[1], node.box[1]);
    }
  }
  return visits;
}

}  // namespace arbiter::internal
