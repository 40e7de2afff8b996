#include "compact_tree.h"

#include <algorithm>

#include "sah_split.h"

namespace arbiter::internal {

int32_t CompactTree::AllocateNode() { return AllocateFromPool(nodes_, free_list_); }

void CompactTree::FreeNode(int32_t node) {
  nodes_[node] = Node();
  nodes_[node].parent = free_list_;
  nodes_[node].height = -1;
  free_list_ = node;
}

void CompactTree::SetChild(int32_t node, int slot, int32_t ref, const QBox& box) {
  nodes_[node].child[slot] = ref;
  nodes_[node].box[slot] = box;
  if (IsLeaf(ref)) {
    place_[KeyOf(ref)] = node * 2 + slot;  // < 2^31: fewer than 2^30 nodes
  } else {
    nodes_[ref].parent = node;
  }
}

void CompactTree::SetRoot(int32_t ref, const QBox& box) {
  root_ = ref;
  root_box_ = box;
  if (IsLeaf(ref)) {
    place_[KeyOf(ref)] = kAtRoot;
  } else {
    nodes_[ref].parent = kNull;
  }
}

void CompactTree::Replace(int32_t parent, int32_t old, int32_t ref, const QBox& box) {
  if (parent == kNull) {
    SetRoot(ref, box);
  } else {
    SetChild(parent, SlotIn(parent, old), ref, box);
  }
}

// The frame holds every box in the tree; a box it cannot hold widens it
// (every stored box re-encoded), so boxes are never clamped. The new frame
// holds at least twice the old content's extent, so this happens a few
// dozen times at most between rebuilds.
QBox CompactTree::EncodeWidening(const Aabb& aabb) {
  if (root_ == kNull) {
    frame_ = QuantFrame::Around(aabb);
  } else if (!frame_.Holds(aabb)) {
    Reframe(QuantFrame::Around(Union(frame_.Decode(root_box_), aabb)));
  }
  return frame_.Encode(aabb);
}

// Decoding is affine and encoding rounds outward, both monotone: every
// re-encoded box contains the old one (so the exact one), and min/max
// commute with them, so a node's box stays the union of its children's.
void CompactTree::Reframe(const QuantFrame& frame) {
  auto again = [&](QBox& box) { box = frame.Encode(frame_.Decode(box)); };
  for (Node& node : nodes_) {
    if (node.height < 0) continue;
    again(node.box[0]);
    again(node.box[1]);
  }
  again(root_box_);
  frame_ = frame;
}

int32_t CompactTree::CreateProxy(const Aabb& aabb, uint32_t key) {
  if (key >= place_.size()) place_.resize(static_cast<size_t>(key) + 1, kAbsent);
  const QBox box = EncodeWidening(aabb);
  InsertLeaf(key, box);
  ++leaf_count_;
  return static_cast<int32_t>(key);
}

void CompactTree::DestroyProxy(int32_t key) {
  RemoveLeaf(static_cast<uint32_t>(key));
  --leaf_count_;
}

void CompactTree::MoveProxy(int32_t key, const Aabb& aabb) {
  const QBox box = EncodeWidening(aabb);
  const int32_t place = place_[key];
  if (place == kAtRoot) {
    root_box_ = box;
    return;
  }
  const int32_t parent = place >> 1;
  if (Contains(BoxAt(nodes_[parent].parent, parent), box)) {
    // Still inside its parent's box: the leaf keeps its place, and only the
    // boxes above it are refitted (they may shrink, never grow).
    nodes_[parent].box[place & 1] = box;
    for (int32_t index = parent; index != kNull; index = nodes_[index].parent) {
      const QBox merged = Union(nodes_[index].box[0], nodes_[index].box[1]);
      QBox& at = BoxAt(nodes_[index].parent, index);
      if (merged == at) break;
      at = merged;
    }
    return;
  }
  RemoveLeaf(static_cast<uint32_t>(key));
  InsertLeaf(static_cast<uint32_t>(key), box);
}

Aabb CompactTree::GetAabb(int32_t key) const {
  const int32_t place = place_[key];
  return frame_.Decode(place == kAtRoot ? root_box_ : nodes_[place >> 1].box[place & 1]);
}

// Descends toward the sibling whose enlargement costs least (perimeter
// heuristic with inherited cost, as DynamicTree::InsertLeaf), then
// rebalances upward.
void CompactTree::InsertLeaf(uint32_t key, const QBox& box) {
  if (root_ == kNull) {
    SetRoot(LeafRef(key), box);
    return;
  }
  int32_t parent = kNull, index = root_;
  QBox index_box = root_box_;
  while (!IsLeaf(index)) {
    const Node& node = nodes_[index];
    const int64_t area = HalfPerimeterCost(index_box);
    const int64_t combined = HalfPerimeterCost(Union(index_box, box));
    const int64_t cost_here = 2 * combined;  // a new parent for this node and the leaf
    const int64_t inherited = 2 * (combined - area);
    auto descend_cost = [&](int slot) {
      const int64_t merged = HalfPerimeterCost(Union(box, node.box[slot]));
      return (IsLeaf(node.child[slot]) ? merged : merged - HalfPerimeterCost(node.box[slot])) + inherited;
    };
    const int64_t cost1 = descend_cost(0);
    const int64_t cost2 = descend_cost(1);
    if (cost_here < cost1 && cost_here < cost2) break;
    const int slot = cost1 <= cost2 ? 0 : 1;
    parent = index;
    index_box = node.box[slot];
    index = node.child[slot];
  }
  const int32_t fresh = AllocateNode();
  nodes_[fresh].height = HeightOf(index) + 1;
  Replace(parent, index, fresh, Union(index_box, box));
  SetChild(fresh, 0, index, index_box);
  SetChild(fresh, 1, LeafRef(key), box);
  RefitUpward(fresh);
}

void CompactTree::RemoveLeaf(uint32_t key) {
  const int32_t place = place_[key];
  place_[key] = kAbsent;
  if (place == kAtRoot) {
    root_ = kNull;
    return;
  }
  const int32_t parent = place >> 1;
  const int slot = place & 1;
  const int32_t sibling = nodes_[parent].child[1 - slot];
  const QBox sibling_box = nodes_[parent].box[1 - slot];
  const int32_t grand_parent = nodes_[parent].parent;
  Replace(grand_parent, parent, sibling, sibling_box);
  FreeNode(parent);
  RefitUpward(grand_parent);
}

void CompactTree::RefitUpward(int32_t index) {
  while (index != kNull) {
    index = Balance(index);
    Node& node = nodes_[index];
    node.height = 1 + std::max(HeightOf(node.child[0]), HeightOf(node.child[1]));
    BoxAt(node.parent, index) = Union(node.box[0], node.box[1]);
    index = node.parent;
  }
}

// An AVL rotation when a's children differ in height by more than one, as
// DynamicTree::Balance: the taller child `up` takes a's place, a becomes
// its first child, and of up's children the taller stays with up while the
// shorter moves to a. Returns the node now at a's position.
int32_t CompactTree::Balance(int32_t ia) {
  Node& a = nodes_[ia];
  if (a.height < 2) return ia;
  const int32_t balance = HeightOf(a.child[1]) - HeightOf(a.child[0]);
  if (balance >= -1 && balance <= 1) return ia;
  const int up_slot = balance > 1 ? 1 : 0;
  const int32_t iup = a.child[up_slot];
  Node& up = nodes_[iup];
  const bool first_taller = HeightOf(up.child[0]) > HeightOf(up.child[1]);
  const int keep_slot = first_taller ? 0 : 1;
  const int32_t keep = up.child[keep_slot], give = up.child[1 - keep_slot];
  const QBox keep_box = up.box[keep_slot], give_box = up.box[1 - keep_slot];
  SetChild(ia, up_slot, give, give_box);
  a.height = 1 + std::max(HeightOf(a.child[0]), HeightOf(a.child[1]));
  const QBox a_box = Union(a.box[0], a.box[1]);
  Replace(a.parent, ia, iup, Union(a_box, keep_box));
  SetChild(iup, 0, ia, a_box);
  SetChild(iup, 1, keep, keep_box);
  up.height = 1 + std::max(a.height, HeightOf(keep));
  return iup;
}

void CompactTree::Renumber(std::span<const uint32_t> new_key) {
  auto rename = [&](int32_t& ref) {
    if (IsLeaf(ref)) ref = LeafRef(new_key[KeyOf(ref)]);
  };
  uint32_t largest = 0;
  auto note = [&](int32_t ref) {
    if (IsLeaf(ref)) largest = std::max(largest, KeyOf(ref));
  };
  for (Node& node : nodes_) {
    if (node.height < 0) continue;
    rename(node.child[0]);
    rename(node.child[1]);
    note(node.child[0]);
    note(node.child[1]);
  }
  if (root_ != kNull) {
    rename(root_);
    note(root_);
  }
  place_.assign(root_ == kNull ? 0 : static_cast<size_t>(largest) + 1, kAbsent);
  place_.shrink_to_fit();
  for (int32_t i = 0; i < static_cast<int32_t>(nodes_.size()); ++i) {
    if (nodes_[i].height < 0) continue;
    for (int slot = 0; slot < 2; ++slot) {
      if (IsLeaf(nodes_[i].child[slot])) place_[KeyOf(nodes_[i].child[slot])] = i * 2 + slot;
    }
  }
  if (root_ != kNull && IsLeaf(root_)) place_[KeyOf(root_)] = kAtRoot;
}

struct CompactTree::BuildInput {
  std::vector<uint32_t> keys;
  std::vector<Aabb> boxes;   // decoded, for the split heuristic
  std::vector<QBox> qboxes;  // in the new frame
};

void CompactTree::Rebuild() {
  BuildInput in;
  in.keys.reserve(leaf_count_);
  in.boxes.reserve(leaf_count_);
  for (uint32_t key = 0; key < place_.size(); ++key) {
    if (place_[key] == kAbsent) continue;
    in.keys.push_back(key);
    in.boxes.push_back(GetAabb(static_cast<int32_t>(key)));
  }
  nodes_.clear();
  nodes_.shrink_to_fit();
  free_list_ = kNull;
  place_.shrink_to_fit();
  if (in.keys.empty()) {
    root_ = kNull;
    return;
  }
  Aabb bounds = in.boxes[0];
  for (const Aabb& box : in.boxes) bounds = Union(bounds, box);
  frame_ = QuantFrame::Around(bounds);
  in.qboxes.reserve(in.boxes.size());
  for (const Aabb& box : in.boxes) in.qboxes.push_back(frame_.Encode(box));
  std::vector<int32_t> items(in.keys.size());
  for (int32_t i = 0; i < static_cast<int32_t>(items.size()); ++i) items[i] = i;
  nodes_.reserve(items.size() - 1);
  QBox box;
  const int32_t root = BuildTopDown(items.data(), static_cast<int32_t>(items.size()), in, &box);
  SetRoot(root, box);
}

// Top-down, split by SahPartition (sah_split.h), in depth-first order: a
// node comes before its subtrees and child[0]'s subtree right after it, so
// a walk that goes to the first child finds it on the next cache lines.
int32_t CompactTree::BuildTopDown(int32_t* items, int32_t count, const BuildInput& in, QBox* box) {
  if (count == 1) {
    *box = in.qboxes[items[0]];
    return LeafRef(in.keys[items[0]]);
  }
  const int32_t split = SahPartition(items, count, [&](int32_t item) -> const Aabb& { return in.boxes[item]; });
  const int32_t node = AllocateNode();
  QBox box1, box2;
  const int32_t child1 = BuildTopDown(items, split, in, &box1);
  const int32_t child2 = BuildTopDown(items + split, count - split, in, &box2);
  SetChild(node, 0, child1, box1);
  SetChild(node, 1, child2, box2);
  nodes_[node].height = 1 + std::max(HeightOf(child1), HeightOf(child2));
  *box = Union(box1, box2);
  return node;
}

int32_t CompactTree::ValidateNode(int32_t ref, const QBox& box, bool* ok) const {
  if (IsLeaf(ref)) return 1;
  const Node& node = nodes_[ref];
  for (const int32_t child : node.child) {
    if (!IsLeaf(child) && nodes_[child].parent != ref) *ok = false;
  }
  if (node.height != 1 + std::max(HeightOf(node.child[0]), HeightOf(node.child[1]))) *ok = false;
  if (box != Union(node.box[0], node.box[1])) *ok = false;
  return ValidateNode(node.child[0], node.box[0], ok) + ValidateNode(node.child[1], node.box[1], ok);
}

bool CompactTree::Validate() const {
  if (root_ == kNull) return leaf_count_ == 0;
  bool ok = IsLeaf(root_) || nodes_[root_].parent == kNull;
  int32_t placed = 0;
  for (uint32_t key = 0; key < place_.size(); ++key) {
    const int32_t place = place_[key];
    if (place == kAbsent) continue;
    ++placed;
    const int32_t at = place == kAtRoot ? root_ : nodes_[place >> 1].child[place & 1];
    if (at != LeafRef(key)) ok = false;
  }
  const int32_t leaves = ValidateNode(root_, root_box_, &ok);
  return ok && leaves == leaf_count_ && placed == leaf_count_;
}

}  // namespace arbiter::internal
