#include "dynamic_tree.h"

#include "sah_split.h"

#include <algorithm>
#include <utility>

namespace arbiter::internal {

int32_t DynamicTree::AllocateNode() { return AllocateFromPool(nodes_, free_list_); }

void DynamicTree::FreeNode(int32_t node) {
  nodes_[node].parent = free_list_;
  nodes_[node].height = -1;
  nodes_[node].child1 = nodes_[node].child2 = kNull;
  free_list_ = node;
}

int32_t DynamicTree::CreateProxy(const Aabb& aabb, uint32_t user) {
  const int32_t leaf = AllocateNode();
  int32_t proxy;
  if (free_proxy_ == kNull) {
    proxy = static_cast<int32_t>(proxy_node_.size());
    proxy_node_.push_back(leaf);
  } else {
    proxy = free_proxy_;
    free_proxy_ = -2 - proxy_node_[proxy];
    proxy_node_[proxy] = leaf;
  }
  nodes_[leaf].aabb = aabb;
  nodes_[leaf].child1 = LeafTag(proxy);
  nodes_[leaf].child2 = static_cast<int32_t>(user);
  nodes_[leaf].height = 0;
  InsertLeaf(leaf);
  ++leaf_count_;
  return proxy;
}

void DynamicTree::DestroyProxy(int32_t proxy) {
  const int32_t leaf = proxy_node_[proxy];
  RemoveLeaf(leaf);
  FreeNode(leaf);
  proxy_node_[proxy] = -2 - free_proxy_;
  free_proxy_ = proxy;
  --leaf_count_;
}

void DynamicTree::MoveProxy(int32_t proxy, const Aabb& aabb) {
  const int32_t leaf = proxy_node_[proxy];
  const int32_t parent = nodes_[leaf].parent;
  if (parent != kNull && Contains(nodes_[parent].aabb, aabb)) {
    // Still inside its parent's box: the leaf keeps its place, and only the
    // boxes above it are refitted (they may shrink, never grow).
    nodes_[leaf].aabb = aabb;
    for (int32_t index = parent; index != kNull; index = nodes_[index].parent) {
      Node& node = nodes_[index];
      const Aabb box = Union(nodes_[node.child1].aabb, nodes_[node.child2].aabb);
      if (box == node.aabb) break;
      node.aabb = box;
    }
    return;
  }
  RemoveLeaf(leaf);
  nodes_[leaf].aabb = aabb;
  InsertLeaf(leaf);
}

// Descends toward the sibling whose enlargement costs least (perimeter
// heuristic with inherited cost, as in Box2D 2.4), then rebalances upward.
void DynamicTree::InsertLeaf(int32_t leaf) {
  if (root_ == kNull) {
    root_ = leaf;
    nodes_[leaf].parent = kNull;
    return;
  }
  const Aabb leaf_box = nodes_[leaf].aabb;
  int32_t index = root_;
  while (!nodes_[index].IsLeaf()) {
    const Node& node = nodes_[index];
    const int64_t area = HalfPerimeterCost(node.aabb);
    const int64_t combined = HalfPerimeterCost(Union(node.aabb, leaf_box));
    const int64_t cost_here = 2 * combined;  // a new parent for this node and the leaf
    const int64_t inherited = 2 * (combined - area);
    auto descend_cost = [&](int32_t child) {
      const Aabb merged = Union(leaf_box, nodes_[child].aabb);
      const int64_t grown = nodes_[child].IsLeaf() ? HalfPerimeterCost(merged)
                                                  : HalfPerimeterCost(merged) - HalfPerimeterCost(nodes_[child].aabb);
      return grown + inherited;
    };
    const int64_t cost1 = descend_cost(node.child1);
    const int64_t cost2 = descend_cost(node.child2);
    if (cost_here < cost1 && cost_here < cost2) break;
    index = cost1 <= cost2 ? node.child1 : node.child2;
  }
  const int32_t sibling = index;
  const int32_t old_parent = nodes_[sibling].parent;
  const int32_t new_parent = AllocateNode();
  nodes_[new_parent].parent = old_parent;
  nodes_[new_parent].aabb = Union(leaf_box, nodes_[sibling].aabb);
  nodes_[new_parent].height = nodes_[sibling].height + 1;
  nodes_[new_parent].child1 = sibling;
  nodes_[new_parent].child2 = leaf;
  nodes_[sibling].parent = new_parent;
  nodes_[leaf].parent = new_parent;
  if (old_parent == kNull) {
    root_ = new_parent;
  } else if (nodes_[old_parent].child1 == sibling) {
    nodes_[old_parent].child1 = new_parent;
  } else {
    nodes_[old_parent].child2 = new_parent;
  }
  RefitUpward(nodes_[leaf].parent);
}

void DynamicTree::RemoveLeaf(int32_t leaf) {
  if (leaf == root_) {
    root_ = kNull;
    return;
  }
  const int32_t parent = nodes_[leaf].parent;
  const int32_t grand_parent = nodes_[parent].parent;
  const int32_t sibling = nodes_[parent].child1 == leaf ? nodes_[parent].child2 : nodes_[parent].child1;
  if (grand_parent == kNull) {
    root_ = sibling;
    nodes_[sibling].parent = kNull;
    FreeNode(parent);
    return;
  }
  if (nodes_[grand_parent].child1 == parent) {
    nodes_[grand_parent].child1 = sibling;
  } else {
    nodes_[grand_parent].child2 = sibling;
  }
  nodes_[sibling].parent = grand_parent;
  FreeNode(parent);
  RefitUpward(grand_parent);
}

void DynamicTree::RefitUpward(int32_t index) {
  while (index != kNull) {
    index = Balance(index);
    Node& node = nodes_[index];
    node.height = 1 + std::max(nodes_[node.child1].height, nodes_[node.child2].height);
    node.aabb = Union(nodes_[node.child1].aabb, nodes_[node.child2].aabb);
    index = node.parent;
  }
}

// An AVL rotation when a's children differ in height by more than one:
// the taller child is promoted and a becomes its child. Returns the node
// now at a's position.
int32_t DynamicTree::Balance(int32_t ia) {
  Node& a = nodes_[ia];
  if (a.IsLeaf() || a.height < 2) return ia;
  const int32_t ib = a.child1, ic = a.child2;
  const int32_t balance = nodes_[ic].height - nodes_[ib].height;
  if (balance >= -1 && balance <= 1) return ia;

  // Promote the taller child `iup`; `iother` stays below a.
  const bool right_heavy = balance > 1;
  const int32_t iup = right_heavy ? ic : ib;
  Node& up = nodes_[iup];
  const int32_t if_ = up.child1, ig = up.child2;
  up.child1 = ia;
  up.parent = a.parent;
  a.parent = iup;
  if (up.parent == kNull) {
    root_ = iup;
  } else if (nodes_[up.parent].child1 == ia) {
    nodes_[up.parent].child1 = iup;
  } else {
    nodes_[up.parent].child2 = iup;
  }
  // Of up's children, the taller stays with up; the shorter moves to a.
  const bool f_taller = nodes_[if_].height > nodes_[ig].height;
  const int32_t keep = f_taller ? if_ : ig;
  const int32_t give = f_taller ? ig : if_;
  up.child2 = keep;
  if (right_heavy) {
    a.child2 = give;
  } else {
    a.child1 = give;
  }
  nodes_[give].parent = ia;
  a.aabb = Union(nodes_[a.child1].aabb, nodes_[a.child2].aabb);
  a.height = 1 + std::max(nodes_[a.child1].height, nodes_[a.child2].height);
  up.aabb = Union(a.aabb, nodes_[keep].aabb);
  up.height = 1 + std::max(a.height, nodes_[keep].height);
  return iup;
}

void DynamicTree::Rebuild() {
  std::vector<int32_t> leaves;
  leaves.reserve(leaf_count_);
  for (int32_t i = 0; i < static_cast<int32_t>(nodes_.size()); ++i) {
    if (nodes_[i].height == 0) {
      leaves.push_back(i);
    } else if (nodes_[i].height > 0) {
      FreeNode(i);
    }
  }
  root_ = leaves.empty() ? kNull : BuildTopDown(leaves.data(), static_cast<int32_t>(leaves.size()));
  if (root_ != kNull) nodes_[root_].parent = kNull;
  LayOutDepthFirst();
}

// Copies the tree into a fresh array: the root first, then for every node
// its two children in adjacent slots, subtrees depth-first (child1's before
// child2's). Free nodes are dropped, so the array is exactly the tree.
void DynamicTree::LayOutDepthFirst() {
  std::vector<Node> laid_out;
  laid_out.reserve(root_ == kNull ? 0 : static_cast<size_t>(2 * leaf_count_ - 1));
  if (root_ != kNull) {
    laid_out.push_back(nodes_[root_]);
    laid_out[0].parent = kNull;
    // (old index, new index) of nodes whose children are still to place.
    std::vector<std::pair<int32_t, int32_t>> pending{{root_, 0}};
    while (!pending.empty()) {
      const auto [old_index, new_index] = pending.back();
      pending.pop_back();
      const Node& old_node = nodes_[old_index];
      if (old_node.IsLeaf()) {
        proxy_node_[old_node.Proxy()] = new_index;
        continue;
      }
      const int32_t first = static_cast<int32_t>(laid_out.size());
      for (const int32_t child : {old_node.child1, old_node.child2}) {
        laid_out.push_back(nodes_[child]);
        laid_out.back().parent = new_index;
      }
      laid_out[new_index].child1 = first;
      laid_out[new_index].child2 = first + 1;
      // child2 below child1 on the stack, so child1's subtree comes first.
      pending.push_back({old_node.child2, first + 1});
      pending.push_back({old_node.child1, first});
    }
  }
  nodes_ = std::move(laid_out);
  root_ = nodes_.empty() ? kNull : 0;
  free_list_ = kNull;
}

int32_t DynamicTree::BuildTopDown(int32_t* leaves, int32_t count) {
  if (count == 1) return leaves[0];
  const int32_t split = SahPartition(leaves, count, [&](int32_t leaf) -> const Aabb& { return nodes_[leaf].aabb; });
  const int32_t child1 = BuildTopDown(leaves, split);
  const int32_t child2 = BuildTopDown(leaves + split, count - split);
  const int32_t parent = AllocateNode();
  Node& node = nodes_[parent];
  node.child1 = child1;
  node.child2 = child2;
  node.height = 1 + std::max(nodes_[child1].height, nodes_[child2].height);
  node.aabb = Union(nodes_[child1].aabb, nodes_[child2].aabb);
  nodes_[child1].parent = parent;
  nodes_[child2].parent = parent;
  return parent;
}

int32_t DynamicTree::ValidateNode(int32_t index, bool* ok) const {
  const Node& node = nodes_[index];
  if (node.IsLeaf()) {
    if (node.height != 0 || node.child1 == kNull) *ok = false;
    return 1;
  }
  if (nodes_[node.child1].parent != index || nodes_[node.child2].parent != index) *ok = false;
  const int32_t h = 1 + std::max(nodes_[node.child1].height, nodes_[node.child2].height);
  if (h != node.height) *ok = false;
  if (node.aabb != Union(nodes_[node.child1].aabb, nodes_[node.child2].aabb)) *ok = false;
  return ValidateNode(node.child1, ok) + ValidateNode(node.child2, ok);
}

bool DynamicTree::Validate() const {
  if (root_ == kNull) return leaf_count_ == 0;
  bool ok = nodes_[root_].parent == kNull;
  for (size_t p = 0; p < proxy_node_.size(); ++p) {
    const int32_t node = proxy_node_[p];
    if (node >= 0 && (!nodes_[node].IsLeaf() || nodes_[node].height != 0 || nodes_[node].Proxy() != static_cast<int32_t>(p))) {
      ok = false;
    }
  }
  const int32_t leaves = ValidateNode(root_, &ok);
  return ok && leaves == leaf_count_;
}

}  // namespace arbiter::internal
