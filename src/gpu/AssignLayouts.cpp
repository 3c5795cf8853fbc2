// Layout assignment: every tensor value gets a layout.
//
// Layouts flow from the anchors Coalesce set (memory accesses) to the rest of the kernel, the way
// Triton's layout propagation does:
//   - backward, a value takes the layout its user wants of it (an elementwise op wants its
//     operands in its own layout, expand_dims wants the slice of its result's layout, ...);
//   - forward, a value nobody constrains takes the layout its operands imply (a reduction gives the
//     slice of its operand's layout along the reduced axis);
//   - what is still unconstrained after both gets the default blocked layout of its own shape, all
//     at once (as every op has it in Triton before its layout propagation), except views, which
//     then take their users' layouts.
// Then every op is legalised: an operand whose layout differs from the one the op needs is
// converted with convert_layout (RemoveRedundantConversions later removes what it can).
#include "gpu/Layout.h"
#include "gpu/LoopSlice.h"
#include "gpu/Mma.h"
#include "gpu/PassUtils.h"
#include "gpu/Passes.h"

#include <algorithm>
#include <functional>
#include <map>
#include <set>

namespace tilec::gpu {
namespace {

using tir::Block;
using tir::OpCode;
using tir::Operation;
using tir::Value;

bool sharesOneLayout(const Operation &op) {
  return tir::sharesOneLayout(op.code());
}

/// The inverse of a trans's order: operand dimension d is result dimension inverse[d].
std::vector<int64_t> inversePermutation(const Operation &trans) {
  const auto &order = std::get<std::vector<int64_t>>(trans.attr("order"));
  std::vector<int64_t> inverse(order.size());
  for (size_t i = 0; i < order.size(); ++i)
    inverse[static_cast<size_t>(order[i])] = static_cast<int64_t>(i);
  return inverse;
}

/// A reshape that may reorder its elements (tl.sum(x) and tl.max(x) without an axis flatten x so)
/// is one of Triton's layout anchors (RemoveLayoutConversions.cpp, isLayoutAnchor): its result
/// keeps the default blocked layout ConvertTritonToTritonGPU gave it. Its operand, where no
/// anchor's layout reaches it, keeps its default layout too: for a 1-D x, the same one, so that
/// the products summed are computed in the reduction's layout, and the backend fuses the first
/// of them into the reduction's first add (an L2 norm's tl.sum(q * q) of a small q that is also
/// broadcast against a 2-D state: Triton loads q a second time, in the slice layout, rather than
/// converting it).
bool isReorderingReshape(const Operation &op) {
  return op.code() == OpCode::Reshape && op.hasAttr("can_reorder") &&
         op.result()->type().isTensor();
}

/// The layout op wants operand `i` in, given the layouts it has now; null when it has no say.
/// A reduction asks for the parent of its result's slice layout only when
/// `reductionsFollowResults`: see LayoutAssigner::run.
LayoutPtr wantedOperandLayout(const Operation &op, unsigned i, bool reductionsFollowResults) {
  const Value *operand = op.operand(i);
  if (!operand->type().isTensor())
    return nullptr;
  if (sharesOneLayout(op)) {
    if (op.numResults() == 1 && layoutOf(op.result()))
      return layoutOf(op.result());
    for (const Value *v : op.operands()) // a store: its pointer's layout
      if (v->type().isTensor() && layoutOf(v))
        return layoutOf(v);
    return nullptr;
  }
  switch (op.code()) {
  case OpCode::ExpandDims:
    if (LayoutPtr result = layoutOf(op.result()))
      return makeSlice(static_cast<unsigned>(op.intAttr("axis")), result);
    return nullptr;
  case OpCode::ConvertLayout:
    return layoutOf(op.result());
  case OpCode::Reshape:
    // A reordering reshape that keeps its operand's shape (tl.sum(x) of a 1-D x) is a view of
    // it: see isReorderingReshape.
    if (isReorderingReshape(op) && op.operand(0)->type().shape == op.result()->type().shape)
      return layoutOf(op.result());
    return nullptr;
  case OpCode::Trans:
    return permuteLayout(layoutOf(op.result()), inversePermutation(op));
  case OpCode::Dot:
    return i == 2 ? layoutOf(op.result()) : nullptr;
  case OpCode::Gather: // the index and the result share one layout (see LowerSpecial.cpp)
    return i == 1 ? layoutOf(op.result()) : nullptr;
  case OpCode::Scan:
    // A scan's operands and results share one layout, a blocked one (isScanLayout).
    for (unsigned r = 0; r < op.numResults(); ++r)
      if (LayoutPtr l = layoutOf(op.result(r)); isScanLayout(l))
        return l;
    for (const Value *v : op.operands())
      if (LayoutPtr l = layoutOf(v); isScanLayout(l))
        return l;
    return nullptr;
  case OpCode::Reduce:
  case OpCode::ArgReduce: {
    if (i > 0 && layoutOf(op.operand(0)))
      return layoutOf(op.operand(0));
    if (!reductionsFollowResults)
      return nullptr;
    LayoutPtr result = layoutOf(op.result());
    if (result && result->kind == LayoutKind::Slice &&
        result->dim == static_cast<unsigned>(op.intAttr("axis")))
      return result->parent;
    return nullptr;
  }
  default:
    return nullptr;
  }
}

/// The tensor a join widens into one of its halves (broadcast(expand_dims(x)) along the new last
/// axis, see ShapeOps.cpp); null for anything else.
const Value *joinedHalf(const Value *v) {
  const Operation *broadcast = v->definingOp();
  if (!broadcast || broadcast->code() != OpCode::Broadcast)
    return nullptr;
  const Operation *expand = broadcast->operand(0)->definingOp();
  if (!expand || expand->code() != OpCode::ExpandDims ||
      expand->intAttr("axis") != static_cast<int64_t>(v->type().shape.size()) - 1)
    return nullptr;
  return expand->operand(0);
}

/// The layout of a join of two tensors in blocked layout `half`: the same threads and warps, each
/// thread holding both halves, the new axis fastest (Triton's inferDefaultJoinOpEncoding). Null
/// for other layouts.
LayoutPtr joinedLayout(const LayoutPtr &half) {
  if (!half || half->kind != LayoutKind::Blocked)
    return nullptr;
  auto widen = [](std::vector<unsigned> v, unsigned last) {
    if (!v.empty())
      v.push_back(last);
    return v;
  };
  const unsigned axis = half->rank();
  std::vector<unsigned> order{axis}, warpOrder;
  order.insert(order.end(), half->order.begin(), half->order.end());
  if (!half->warpOrder.empty()) {
    warpOrder.push_back(axis);
    warpOrder.insert(warpOrder.end(), half->warpOrder.begin(), half->warpOrder.end());
  }
  return makeBlocked(widen(half->sizePerThread, 2), widen(half->threadsPerWarp, 1),
                     widen(half->warpsPerCTA, 1), order, widen(half->repsInWarp, 1), warpOrder);
}

/// The layout in which a reshape of `operand` (blocked, of shape `from`) that merges its last two
/// dimensions leaves every element in its register: where each thread holds the whole last
/// dimension, next to its elements of the one before (a join's layout), the merged dimension
/// holds their product per thread (Triton's inferReshapeOpEncoding; tl.interleave's reshape).
/// Null for other reshapes and layouts.
LayoutPtr mergedLastDimsLayout(const LayoutPtr &operand, const std::vector<int64_t> &from,
                               const std::vector<int64_t> &to) {
  const size_t rank = from.size();
  if (!operand || operand->kind != LayoutKind::Blocked || rank < 2 || to.size() != rank - 1 ||
      !operand->repsInWarp.empty() || !operand->warpOrder.empty())
    return nullptr;
  const unsigned last = static_cast<unsigned>(rank - 1), before = last - 1;
  for (size_t d = 0; d + 1 < to.size(); ++d)
    if (to[d] != from[d])
      return nullptr;
  if (to.back() != from[before] * from[last] || operand->sizePerThread[last] != from[last] ||
      operand->threadsPerWarp[last] != 1 || operand->warpsPerCTA[last] != 1 ||
      operand->order[0] != last || operand->order[1] != before)
    return nullptr;
  std::vector<unsigned> spt(operand->sizePerThread.begin(), operand->sizePerThread.end() - 1);
  spt[before] *= operand->sizePerThread[last];
  std::vector<unsigned> tpw(operand->threadsPerWarp.begin(), operand->threadsPerWarp.end() - 1);
  std::vector<unsigned> wpc(operand->warpsPerCTA.begin(), operand->warpsPerCTA.end() - 1);
  std::vector<unsigned> order(operand->order.begin() + 1, operand->order.end());
  return makeBlocked(spt, tpw, wpc, order);
}

/// Whether `v` is a constant's result.
bool isConstantValue(const Value *v) {
  const Operation *producer = v->definingOp();
  return producer && producer->code() == OpCode::Constant;
}

/// For each value an anchor's layout reached, the position (in program order) of the latest anchor
/// that reached it.
struct AnchorRanks {
  std::map<const Value *, int64_t> of;
  /// What anchorRank adds to the ranks of the anchors other than the loads Triton pipelines.
  int64_t unpipelinedOffset = 0;
  /// The values some anchor's layout reaches through ops that carry it (Triton's propagation).
  std::set<const Value *> carried;

  /// The rank `v` competes with where two layouts meet. A value no anchor's layout reaches (the
  /// expand_dims of a 1-D load's blocked layout) has no layout in the LayoutPropagation after
  /// Triton's pipeliner either, so against a pipelined load the first propagation decides, which
  /// orders all anchors by program position (fla's chunk_kda_bwd_kernel_intra subtracts
  /// b_gn[None, :] from the pipelined b_gk in b_gk's layout).
  int64_t competing(const Value *v, int64_t rank) const {
    return rank > unpipelinedOffset && !carried.count(v) ? rank - unpipelinedOffset : rank;
  }
};

/// The rank of the anchor result numbered `position` in program order: odd, so that the even rank
/// below it can stand for the same anchor reaching a value through a loop's back edge, which
/// Triton's depth-first propagation follows after the anchor's direct users (a loop-carried value
/// multiplied by the tile that made it takes the tile's layout, not its own). A load that Triton's
/// pipeliner turns into an asynchronous copy (`pipelined`) ranks below every other anchor: the
/// RemoveLayoutConversions after the pipeliner sees a local_load there, no anchor, so any other
/// anchor reaching a value decides its layout, and the local_load is rematerialised in it (fla's
/// dhu adds the loaded dv to a dot's product in the dot's layout). Among themselves they keep
/// program order (the first RemoveLayoutConversions' choice stands where only they reach).
int64_t anchorRank(int64_t position, bool pipelined, int64_t numAnchors) {
  return 2 * (pipelined ? position : numAnchors + position) + 1;
}

/// The layout op's result `r` should have, given its operands' layouts; null when unknown. Where
/// an elementwise op's operands have different layouts, the one whose layout comes from the
/// latest anchor (`ranks`), else its first such operand's. With `reached`, only the operands in it
/// are looked at, and operands that disagree give none.
LayoutPtr impliedResultLayout(const Operation &op, unsigned r,
                              const std::set<const Value *> *reached = nullptr,
                              const AnchorRanks *ranks = nullptr) {
  if (!op.result(r)->type().isTensor())
    return nullptr;
  const bool onlyIfAgreed = reached != nullptr;
  auto layoutIfCounted = [&](const Value *v) -> LayoutPtr {
    if (!v->type().isTensor() || (reached && !reached->count(v)))
      return nullptr;
    return layoutOf(v);
  };
  if (op.hasAttr("join")) {
    // tl.join(a, b): Triton's JoinOp keeps its operands' layout and holds both halves in each
    // thread (inferDefaultJoinOpEncoding), so that tl.interleave's reshape that follows moves no
    // data. tilec's join is a select between a and b widened along a new last axis.
    for (unsigned i = 1; i < op.numOperands(); ++i)
      if (const Value *half = joinedHalf(op.operand(i)))
        if (LayoutPtr l = joinedLayout(layoutIfCounted(half)))
          return l;
  }
  if (sharesOneLayout(op) || op.code() == OpCode::ConvertLayout) {
    // A constant operand has a say only where no other operand has one: Triton materialises a
    // splat constant in whatever layout its user wants, so the layout one user gave a shared
    // tl.zeros (a loop accumulating FMA dots) does not decide another's (-x is 0 - x on a loaded
    // tile, which follows the load in Triton, and so does the order of the sums on it).
    // Triton's conflict rule (LayoutPropagation::resolveConflicts, after propagateLayout): a value
    // that several blocked layouts reach keeps the first that reached it, and the anchors
    // propagate last to first in program order. So where the operands disagree, the operand whose
    // layout comes from the latest anchor decides: fla's tl.sum(b_dk2 * b_k, 1) multiplies a
    // loop's FMA-dot accumulator by a tile loaded after that loop, and sums in the load's layout;
    // naive_attn_decoding's b_p[:, None] * b_v (b_p from the b_k loaded before b_v) multiplies
    // in b_v's layout. Triton's backward rematerialisation does not move such an op back: the
    // conversion after it could only go away by recomputing the later anchor (a dot, or a load
    // large enough to be an anchor), which it never rematerialises.
    if (ranks) {
      LayoutPtr latest;
      int64_t latestRank = -1;
      bool disagree = false;
      for (const Value *v : op.operands()) {
        auto it = ranks->of.find(v);
        LayoutPtr l = layoutIfCounted(v);
        if (!l || isConstantValue(v) || it == ranks->of.end())
          continue;
        disagree |= latest && !sameLayout(latest, l);
        if (const int64_t rank = ranks->competing(v, it->second); rank > latestRank) {
          latest = l;
          latestRank = rank;
        }
      }
      if (disagree)
        return latest;
    }
    LayoutPtr found;
    for (bool constants : {false, true}) {
      for (const Value *v : op.operands()) {
        if (isConstantValue(v) != constants)
          continue;
        LayoutPtr l = layoutIfCounted(v);
        if (!l)
          continue;
        if (!found)
          found = l;
        else if (onlyIfAgreed && !sameLayout(found, l))
          return nullptr;
        if (!onlyIfAgreed)
          return found;
      }
      if (found)
        return found;
    }
    return found;
  }
  switch (op.code()) {
  case OpCode::ExpandDims: {
    LayoutPtr operand = layoutIfCounted(op.operand(0));
    if (operand && operand->kind == LayoutKind::Slice &&
        operand->dim == static_cast<unsigned>(op.intAttr("axis")))
      return operand->parent;
    return nullptr;
  }
  case OpCode::Reduce:
  case OpCode::ArgReduce:
    if (LayoutPtr operand = layoutIfCounted(op.operand(0)))
      return makeSlice(static_cast<unsigned>(op.intAttr("axis")), operand);
    return nullptr;
  case OpCode::Scan:
    for (const Value *v : op.operands())
      if (LayoutPtr l = layoutIfCounted(v); isScanLayout(l))
        return l;
    return nullptr;
  case OpCode::Trans:
    return permuteLayout(layoutIfCounted(op.operand(0)),
                         std::get<std::vector<int64_t>>(op.attr("order")));
  case OpCode::Gather:
    return layoutIfCounted(op.operand(1));
  case OpCode::Reshape:
    if (op.hasAttr("can_reorder"))
      return nullptr;
    return mergedLastDimsLayout(layoutIfCounted(op.operand(0)), op.operand(0)->type().shape,
                                op.result()->type().shape);
  default:
    return nullptr;
  }
}

/// The values a structured op ties together: for `for`, init i, region argument i+1, result i and
/// the yield's operand i must agree, and so on.
struct TiedValues {
  std::vector<Value *> values;
};

std::vector<TiedValues> tiedValues(const Operation &op) {
  std::vector<TiedValues> groups;
  switch (op.code()) {
  case OpCode::For: {
    Block &body = op.region(0).block();
    for (unsigned i = 0; i + 3 < op.numOperands(); ++i)
      groups.push_back(
          {{op.operand(i + 3), body.argument(i + 1), op.result(i), body.terminator()->operand(i)}});
    break;
  }
  case OpCode::If:
    for (unsigned i = 0; i < op.numResults(); ++i)
      groups.push_back({{op.result(i), op.region(0).block().terminator()->operand(i),
                         op.region(1).block().terminator()->operand(i)}});
    break;
  case OpCode::While: {
    Block &before = op.region(0).block(), &after = op.region(1).block();
    for (unsigned i = 0; i < op.numOperands(); ++i)
      groups.push_back({{op.operand(i), before.argument(i), after.terminator()->operand(i)}});
    for (unsigned i = 0; i < op.numResults(); ++i)
      groups.push_back({{op.result(i), after.argument(i), before.terminator()->operand(i + 1)}});
    break;
  }
  default:
    break;
  }
  return groups;
}

class LayoutAssigner {
public:
  explicit LayoutAssigner(tir::Function &function) : function_(function) {}

  void run() {
    // A tensor-core dot's result has its layout already (AccelerateMatmul's); an FMA dot's
    // result is an anchor, like a memory access: its layout decides how many multiply-adds each
    // operand read feeds.
    tir::walk(function_, [&](Operation &op) {
      if (op.code() != OpCode::Dot)
        return;
      if (LayoutPtr accumulator = layoutOf(op.result()))
        tensorCoreLayouts_.push_back(accumulator);
      else
        set(op.result(), dotFmaLayout(op.result()->type().shape, function_.numWarps));
    });
    // A reordering reshape's result has the default blocked layout of its shape (Triton's).
    tir::walk(function_, [&](Operation &op) {
      if (isReorderingReshape(op))
        set(op.result(), defaultBlockedLayout(op.result()->type().shape, function_.numWarps, 1));
    });
    pipelinedLoads_ = tritonPipelinedLoads(function_, /*skipFarCarriedLoops=*/false);
    tir::walk(function_, [&](Operation &op) {
      if (isLayoutAnchor(op))
        numAnchorResults_ += op.numResults();
    });
    computeLatestAnchorLayouts();
    anchorRanks_.unpipelinedOffset = 2 * numAnchorResults_;
    for (const auto &entry : latestAnchorLayouts_)
      anchorRanks_.carried.insert(entry.first);
    // A tensor-core accumulator keeps its layout through the loop that carries it and the
    // arithmetic on it (attention's rescaling, softmax statistics): one forward sweep first lets
    // the mma layout reach them before the stores' layouts flow back, so that the conversion to
    // the store's layout happens once, after the loop, as in Triton.
    if (!tensorCoreLayouts_.empty())
      forward(function_.body());
    // Triton's layouts flow forward from the loads (its LayoutPropagation starts at them), and
    // the conversions to the stores' layouts stay at the stores. The bits follow: a
    // floating-point sum's order is its layout's, and a product converted before the add that
    // uses it is not fused into an FMA. So the loads' layouts flow forward first, through every
    // op whose operands agree on one; the stores' layouts then flow back into what is left (the
    // address arithmetic, and ops where two layouts meet), as in Triton's rematerialisation.
    // Triton's anchors: memory accesses of at least one element per thread (smaller ones hit in
    // the cache and take their neighbours' layouts) and dots.
    tir::walk(function_, [&](Operation &op) {
      if (isLayoutAnchor(op))
        for (unsigned r = 0; r < op.numResults(); ++r) {
          reached_.insert(op.result(r));
          const auto position = static_cast<int64_t>(anchorRanks_.of.size());
          anchorRanks_.of[op.result(r)] = rankOfAnchor(op, position);
        }
    });
    std::set<const Value *> anchors;
    for (const auto &entry : anchorRanks_.of)
      anchors.insert(entry.first);
    strictForward_ = true;
    forward(function_.body());
    strictForward_ = false;
    rankReachedValues(anchors);
    defaultUnreachedCarriedFloats();
    // A reduction's operand takes its layout from its producers (the loads and the loop that
    // accumulates it), not from where its result goes: a [BLOCK_M, 1] sum stored with keep_dims
    // would otherwise hand the store's layout back into the accumulating loop and convert every
    // iteration. Only operands that nothing else constrains then follow their results, before
    // the default layout.
    while (true) {
      propagate();
      Value *unassigned = firstUnassigned();
      if (!unassigned)
        break;
      if (!reductionsFollowResults_) {
        reductionsFollowResults_ = true;
        continue;
      }
      // What no anchor reached keeps the default layout of its own shape, as
      // ConvertTritonToTritonGPU gives every op in Triton, and not the layout of the first such
      // value spread to its neighbours; views (expand_dims, broadcast) then take their users'
      // layouts in the next propagation, as Triton's rematerialisation moves its conversions up
      // to them (FlagAttention's paged attention: a 3-D product of a broadcast small load keeps
      // its own default, not the small load's layout carried through the broadcast).
      std::vector<Value *> computed = unassignedNonViews();
      if (computed.empty())
        computed.push_back(unassigned); // a view or a region argument
      for (Value *v : computed)
        set(v, defaultBlockedLayout(v->type().shape, function_.numWarps, 1));
    }
    legalizeBlock(function_.body());
    rematerialiseAnchorReductions();
  }

private:
  tir::Function &function_;
  bool changed_ = false;
  bool reductionsFollowResults_ = false;
  /// While set, layouts flow forward only from the values in reached_ (the anchors and what they
  /// reached), and not into ops whose operands' layouts disagree.
  bool strictForward_ = false;
  std::set<const Value *> reached_;
  /// The result layouts of the tensor-core dots (AccelerateMatmul's).
  std::vector<LayoutPtr> tensorCoreLayouts_;
  /// The anchors' positions, then the latest anchor reaching each value (rankReachedValues).
  AnchorRanks anchorRanks_;
  /// The scans whose result a user wanted in a layout a scan cannot run in.
  std::set<const Operation *> refusedScans_;
  /// For each value some anchor's layout reaches through ops that carry a layout over (whatever
  /// the other operands bring), the position of the latest such anchor and the layout it gives
  /// the value: Triton's first encoding of the value, before its conflicts are resolved.
  std::map<const Value *, std::pair<int64_t, LayoutPtr>> latestAnchorLayouts_;
  /// The reductions that run in the latest anchor's layout, not their operand's (see
  /// reductionInLatestAnchorLayout); legalize converts their operands.
  std::set<const Operation *> reductionsInAnchorLayout_;

  /// The loads Triton pipelines (tritonPipelinedLoads).
  std::set<const Operation *> pipelinedLoads_;
  /// How many results the anchors have.
  int64_t numAnchorResults_ = 0;

  /// The rank of result number `position` (program order) among the anchors', `op`'s.
  int64_t rankOfAnchor(const Operation &op, int64_t position) const {
    return anchorRank(position, pipelinedLoads_.count(&op) != 0, numAnchorResults_);
  }

  /// Triton's anchors: memory accesses of at least one element per thread (smaller ones hit in
  /// the cache and take their neighbours' layouts), dots, reordering reshapes, and gathers (their
  /// layout is OptimizeGatherLayout's).
  bool isLayoutAnchor(const Operation &op) const {
    if (op.code() == OpCode::Dot || isReorderingReshape(op))
      return true;
    if (op.code() == OpCode::Gather)
      return layoutOf(op.result()) != nullptr;
    const bool access = op.code() == OpCode::Load || tir::isAtomic(op.code());
    const int64_t numThreads = 32 * static_cast<int64_t>(function_.numWarps);
    return access && op.operand(0)->type().isTensor() &&
           op.operand(0)->type().numElements() >= numThreads;
  }

  /// The layout `op`'s result `r` has where operand layout `l` reaches it in Triton's
  /// LayoutPropagation (before conflicts are resolved); null where it stops.
  static LayoutPtr carriedLayout(const Operation &op, unsigned r, const LayoutPtr &l) {
    if (!op.result(r)->type().isTensor())
      return nullptr;
    if (sharesOneLayout(op) || op.code() == OpCode::ConvertLayout || op.code() == OpCode::Scan)
      return l;
    switch (op.code()) {
    case OpCode::Reduce:
    case OpCode::ArgReduce:
      return makeSlice(static_cast<unsigned>(op.intAttr("axis")), l);
    case OpCode::ExpandDims:
      if (l->kind == LayoutKind::Slice && l->dim == static_cast<unsigned>(op.intAttr("axis")))
        return l->parent;
      return nullptr;
    case OpCode::Trans:
      return permuteLayout(l, std::get<std::vector<int64_t>>(op.attr("order")));
    default:
      return nullptr;
    }
  }

  /// Fills latestAnchorLayouts_. Triton's LayoutPropagation pushes the anchors in program order
  /// and pops the last first, and each value collects the layouts reaching it in the order they
  /// arrive, so a value's first layout is the latest anchor's that reaches it.
  /// The ranks are the anchors' (anchorRank), as anchorRanks_ has them.
  void computeLatestAnchorLayouts() {
    std::set<const Value *> anchors;
    int64_t position = 0;
    tir::walk(function_, [&](Operation &op) {
      if (!isLayoutAnchor(op))
        return;
      for (unsigned r = 0; r < op.numResults(); ++r, ++position)
        if (LayoutPtr l = layoutOf(op.result(r))) {
          latestAnchorLayouts_[op.result(r)] = {rankOfAnchor(op, position), l};
          anchors.insert(op.result(r));
        }
    });
    bool changed = true;
    auto offer = [&](const Value *v, const std::pair<int64_t, LayoutPtr> &entry) {
      if (!entry.second || anchors.count(v) || !v->type().isTensor())
        return;
      auto [it, inserted] = latestAnchorLayouts_.emplace(v, entry);
      if (!inserted && it->second.first < entry.first) {
        it->second = entry;
        inserted = true;
      }
      changed |= inserted;
    };
    auto latestOf = [&](const auto &values) {
      std::pair<int64_t, LayoutPtr> latest{-1, nullptr};
      for (const Value *v : values)
        if (auto it = latestAnchorLayouts_.find(v);
            it != latestAnchorLayouts_.end() && it->second.first > latest.first)
          latest = it->second;
      return latest;
    };
    while (changed) {
      changed = false;
      tir::walk(function_, [&](Operation &op) {
        // A structured op's layouts flow from its inits and yields into its region arguments
        // and results, never back (a tl.zeros shared by several loops' inits stays apart).
        for (const TiedValues &group : tiedValues(op))
          if (auto latest = latestOf(group.values); latest.second)
            for (const Value *v : group.values)
              if (v->isBlockArgument() || v->definingOp() == &op)
                offer(v, latest);
        auto latest = latestOf(op.operands());
        if (!latest.second)
          return;
        for (unsigned r = 0; r < op.numResults(); ++r)
          offer(op.result(r), {latest.first, carriedLayout(op, r, latest.second)});
      });
    }
  }

  /// The layout result `r` of reduction `op` takes where Triton's conflict rule resolves the
  /// reduction and its operand differently; null elsewhere. The op computing the operand takes a
  /// tensor-core accumulator's layout whenever one reaches it, while the reduction's result
  /// (a slice, never a tensor-core layout) keeps its first, the latest anchor's: fla's
  /// tl.sum(b_dq * b_q, 1), after a loop accumulating b_dq with mma dots and b_q loaded after it,
  /// multiplies in the mma layout, converts the product, and sums in b_q's layout.
  LayoutPtr reductionInLatestAnchorLayout(const Operation &op, unsigned r) const {
    if ((op.code() != OpCode::Reduce && op.code() != OpCode::ArgReduce) ||
        !op.result(r)->type().isTensor())
      return nullptr;
    const Value *operand = op.operand(0);
    const Operation *producer = operand->definingOp();
    if (!isTensorCoreLayout(layoutOf(operand)) ||
        (producer && (producer->code() == OpCode::Load || tir::isAtomic(producer->code()))))
      return nullptr;
    auto it = latestAnchorLayouts_.find(operand);
    if (it == latestAnchorLayouts_.end() || isTensorCoreLayout(it->second.second) ||
        it->second.second->kind != LayoutKind::Blocked)
      return nullptr;
    return carriedLayout(op, r, it->second.second);
  }

  /// The layout of a scan whose users want its result in a layout a scan cannot run in. Triton
  /// fixes a scan's layout in its first RemoveLayoutConversions, before AccelerateMatmul: there
  /// the scan's operand takes the layout of the latest anchor reaching it (the conflict rule keeps
  /// the first that arrives), and the conversion after the scan is rematerialised through it.
  /// AccelerateMatmul's layouts come later and never move a scan (tt.scan refuses them). So the
  /// scan takes the latest anchor's layout as it was before AccelerateMatmul: a load's, or for a
  /// tensor-core dot the blocked layout the dot had (dotFmaLayout); the default blocked layout
  /// where no anchor reaches its operand or what reaches it is not a blocked layout of its shape
  /// (fla's chunk_gla_bwd_kernel_inter: b_dg = b_q * b_dq - b_k * b_dk is computed in the mma
  /// layout, its cumsum in the layout of the loads after the loop).
  LayoutPtr refusedScanLayout(const Operation &scan) const {
    const std::vector<int64_t> &shape = scan.result(0)->type().shape;
    LayoutPtr fallback = defaultBlockedLayout(shape, function_.numWarps, 1);
    auto it = latestAnchorLayouts_.find(scan.operand(0));
    if (it == latestAnchorLayouts_.end())
      return fallback;
    LayoutPtr l = it->second.second;
    if (isTensorCoreLayout(l))
      l = dotFmaLayout(shape, function_.numWarps);
    return isScanLayout(l) ? l : fallback;
  }

  /// A loop or an if: each of its results is tied to its own initial value and yields
  /// (tiedValues), so it takes the latest rank among those only. Triton's layout propagation
  /// carries each anchor's layout through a loop along the value it reaches, so a loop result
  /// fed by a load in the body does not take the layout of a dot that only another loop-carried
  /// value comes from (fla's gdn2 backward with several chunks of K: b_dgk += tl.sum(b_kdk, 0)
  /// adds in the dot's layout, which reaches b_kdk through the carried b_dk, not in that of the
  /// carried b_dgk, a sum of loads).
  static bool isStructured(const Operation &op) {
    return op.code() == OpCode::For || op.code() == OpCode::If || op.code() == OpCode::While;
  }

  /// In the strict forward sweep: result `r` of op takes the latest rank among its reached
  /// operands. An anchor keeps its own: Triton's propagation does not pass through a dot or a
  /// load to its result, so a dot reading a loop-carried value is not ranked as the later anchor
  /// that reaches the value through the back edge (fla's chunkwise_bwd_kernel_hdqgl adds the
  /// tile loaded after such a dot to the dot's product in the tile's layout, with no FMA).
  void rankFromOperands(const Operation &op, unsigned r) {
    const Value *result = op.result(r);
    if (!reached_.count(result) || op.code() == OpCode::Constant || isStructured(op) ||
        isLayoutAnchor(op))
      return;
    if (int64_t rank = latestReachedRank(op.operands()); rank >= 0)
      raiseRank(result, rank);
  }

  /// Where an elementwise op meets a reduction that runs in the latest anchor's layout
  /// (reductionInLatestAnchorLayout) and operands in other layouts, the layout of the operand
  /// that the latest anchor reaches (Triton's first encoding, resolveConflicts keeps it); null
  /// elsewhere. The tensor-core sweep meets such an op before the anchors are ranked, and would
  /// take its first operand's layout: fla's dplr backward adds tl.sum(b_k * b_dk, 0), b_k loaded
  /// last, to a sum of earlier loads (b_h * b_dh), and Triton adds in b_k's slice, converting
  /// the earlier sum, which its rematerialisation then computes in that layout.
  LayoutPtr layoutAfterAnchorReduction(const Operation &op, unsigned r) const {
    if (!sharesOneLayout(op) || !op.result(r)->type().isTensor())
      return nullptr;
    bool meetsReduction = false, disagree = false;
    LayoutPtr first, latest;
    int64_t latestRank = -1;
    for (const Value *v : op.operands()) {
      LayoutPtr l = v->type().isTensor() && !isConstantValue(v) ? layoutOf(v) : nullptr;
      if (!l)
        continue;
      const Operation *producer = v->definingOp();
      meetsReduction |= producer && reductionsInAnchorLayout_.count(producer);
      disagree |= first && !sameLayout(first, l);
      if (!first)
        first = l;
      auto it = latestAnchorLayouts_.find(v);
      if (it != latestAnchorLayouts_.end() && it->second.first > latestRank) {
        latestRank = it->second.first;
        latest = l;
      }
    }
    return meetsReduction && disagree ? latest : nullptr;
  }

  /// The latest rank among `values` that the strict forward sweep reached; -1 where none has one.
  template <typename Values> int64_t latestReachedRank(const Values &values) const {
    int64_t rank = -1;
    for (const Value *v : values)
      if (auto it = anchorRanks_.of.find(v); it != anchorRanks_.of.end() && reached_.count(v))
        rank = std::max(rank, it->second);
    return rank;
  }

  /// Gives `v` rank `rank` unless it has a later one; whether its rank changed.
  bool raiseRank(const Value *v, int64_t rank) {
    auto [mine, inserted] = anchorRanks_.of.emplace(v, rank);
    if (inserted)
      return true;
    if (mine->second >= rank)
      return false;
    mine->second = rank;
    return true;
  }

  /// Gives every value the strict forward sweep reached the rank of the latest anchor that
  /// reached it: through the ops whose operands agreed and the values a loop or an if ties.
  void rankReachedValues(const std::set<const Value *> &anchors) {
    auto raise = [&](const Value *v, int64_t rank, bool &changed) {
      if (anchors.count(v) || !reached_.count(v) || isConstantValue(v))
        return;
      changed |= raiseRank(v, rank);
    };
    bool changed = true;
    while (changed) {
      changed = false;
      tir::walk(function_, [&](Operation &op) {
        for (const TiedValues &group : tiedValues(op))
          if (int64_t rank = latestReachedRank(group.values); rank >= 0)
            for (const Value *v : group.values)
              raise(v, rank, changed);
        if (isStructured(op))
          return; // its results take their own groups' ranks, not every initial value's
        if (int64_t rank = latestReachedRank(op.operands()); rank >= 0)
          for (unsigned r = 0; r < op.numResults(); ++r)
            raise(op.result(r), rank, changed);
      });
    }
  }

  bool counts(const Value *v) const { return !strictForward_ || reached_.count(v) != 0; }

  /// Gives `v` layout `l` unless it has one already. A scan's result takes no layout a scan
  /// cannot run in (isScanLayout); the scan is then remembered (refusedScans_).
  void set(Value *v, const LayoutPtr &l) {
    if (!l || !v->type().isTensor() || layoutOf(v))
      return;
    if (const Operation *producer = v->definingOp();
        producer && producer->code() == OpCode::Scan && !isScanLayout(l)) {
      refusedScans_.insert(producer);
      return;
    }
    v->setType(v->type().withLayout(l));
    changed_ = true;
    if (strictForward_)
      reached_.insert(v);
  }

  void propagate() {
    do {
      changed_ = false;
      backward(function_.body());
      forward(function_.body());
    } while (changed_);
  }

  void tie(const Operation &op) {
    for (const TiedValues &group : tiedValues(op)) {
      LayoutPtr known;
      // Triton's conflict rule for a loop-carried value (a block argument, not a memory
      // access): where its initial value brings a load's layout and the body yields a
      // tensor-core accumulator, the accumulator's layout wins, and the initial value is
      // converted once, before the loop (fla's path attention carries o and q, loaded before
      // the loop and updated by dots in it). A constant initial value brings no tensor-core
      // layout, here or below: one zeros tensor (CSE) may start both an accumulator, whose
      // group gives it the mma layout, and a sum of loads, which Triton carries in the loads'
      // layout (a constant has no layout of its own there; it is rematerialised in each).
      for (Value *v : group.values)
        if (!known && counts(v) && !isConstantValue(v) && isTensorCoreLayout(layoutOf(v)))
          known = layoutOf(v);
      // A loop-carried tensor-core accumulator reaches the yield through the conversion
      // AccelerateMatmul left after its dot (no layout yet), maybe through elementwise ops
      // (q - dot(s, w)): the carried value takes the dot's layout before the arithmetic on it in
      // the body is assigned (attention's rescaling by alpha, whose other operand comes from the
      // first product, in another layout where the warps of the two products differ).
      for (Value *v : group.values)
        if (!known)
          known = accumulatorLayoutReaching(v, 4);
      // The strict sweep meets a loop-carried value before the body that yields it: where a
      // later anchor than its initial value's reaches it through the yield, that anchor's layout
      // wins, as the latest anchor does everywhere in Triton's propagation (see
      // computeLatestAnchorLayouts).
      std::pair<int64_t, LayoutPtr> carried{-1, nullptr};
      if (!known && strictForward_) {
        carried = latestAnchorLayoutThroughLoop(group);
        known = carried.second;
      }
      for (Value *v : group.values)
        if (!known && counts(v) && !(isConstantValue(v) && isTensorCoreLayout(layoutOf(v))))
          known = layoutOf(v);
      for (Value *v : group.values)
        set(v, known);
      if (strictForward_) {
        for (const Value *v : group.values)
          if (carried.second && v->isBlockArgument() && sameLayout(layoutOf(v), carried.second))
            raiseRank(v, carried.first - 1); // through the back edge (anchorRank)
        rankGroup(group);
      }
    }
  }

  /// The latest anchor reaching a loop's region argument in `group` (computeLatestAnchorLayouts'
  /// fixpoint, which follows the loop's back edge), with its layout, where it comes later than
  /// every anchor the strict sweep has brought to the group so far; {-1, null} elsewhere.
  std::pair<int64_t, LayoutPtr> latestAnchorLayoutThroughLoop(const TiedValues &group) const {
    std::pair<int64_t, LayoutPtr> latest{latestReachedRank(group.values), nullptr};
    for (const Value *v : group.values)
      if (auto it = latestAnchorLayouts_.find(v); v->isBlockArgument() &&
                                                  it != latestAnchorLayouts_.end() &&
                                                  it->second.first > latest.first)
        latest = it->second;
    return latest.second ? latest : std::pair<int64_t, LayoutPtr>{-1, nullptr};
  }

  /// The values a structured op ties share the latest rank among them.
  void rankGroup(const TiedValues &group) {
    int64_t rank = latestReachedRank(group.values);
    if (rank < 0)
      return;
    for (const Value *v : group.values)
      if (reached_.count(v) && !isConstantValue(v))
        raiseRank(v, rank);
  }

  /// The layout of a tensor-core dot whose result reaches `v` through the conversion after it
  /// and at most `depth` elementwise ops; null if none.
  LayoutPtr accumulatorLayoutReaching(const Value *v, unsigned depth) const {
    const Operation *producer = v->definingOp();
    if (!producer)
      return nullptr;
    if (producer->code() == OpCode::ConvertLayout) {
      const Operation *dot = producer->operand(0)->definingOp();
      return dot && isTensorCoreDot(*dot) ? layoutOf(dot->result()) : nullptr;
    }
    if (depth == 0 || !tir::isElementwise(producer->code()) || producer->numResults() != 1 ||
        producer->result()->type().shape != v->type().shape)
      return nullptr;
    for (const Value *operand : producer->operands())
      if (operand->type().isTensor())
        if (LayoutPtr layout = accumulatorLayoutReaching(operand, depth - 1))
          return layout;
    return nullptr;
  }

  void backward(Block &block) {
    for (auto it = block.ops().rbegin(); it != block.ops().rend(); ++it) {
      Operation &op = **it;
      tie(op);
      for (unsigned r = op.numRegions(); r-- > 0;)
        backward(op.region(r).block());
      // Where a user wants a scan's result in a slice or a tensor-core layout, Triton can
      // neither propagate that layout into the scan nor rematerialise the scan in it: the scan
      // keeps the default blocked layout its shape had, and so does an operand nothing else
      // decides (fla's decays = exp(sum(g) - cumsum(g)) broadcast against a 2-D tile: the
      // cumsum and the sum of g run with one element per thread, then convert).
      if (op.code() == OpCode::Scan && refusedScans_.count(&op) && !layoutOf(op.result(0))) {
        LayoutPtr l = refusedScanLayout(op);
        for (unsigned r = 0; r < op.numResults(); ++r)
          set(op.result(r), l);
      }
      for (unsigned i = 0; i < op.numOperands(); ++i)
        set(op.operand(i), wantedOperandLayout(op, i, reductionsFollowResults_));
    }
  }

  /// A floating-point tensor a loop carries that no anchor's layout reached keeps Triton's
  /// default layout for its shape, which ConvertTritonToTritonGPU gave it and nothing changes
  /// later: Triton's layouts flow forward from anchors only, and its rematerialisation stops at
  /// a loop's results. A recurrent state updated from small loads (fla's fused recurrent
  /// kernels) is then summed in Triton's order, not in the order of the layout that the store
  /// after the loop, or a broadcast in its body, would want. Pointers and integers are left to
  /// the propagation: their layout changes no value, and Triton rematerialises the address
  /// arithmetic its loads and stores use.
  void defaultUnreachedCarriedFloats() {
    std::vector<Operation *> loops;
    std::map<const Value *, unsigned> uses;
    tir::walk(function_, [&](Operation &op) {
      for (const Value *v : op.operands())
        ++uses[v];
      if (op.code() == OpCode::For || op.code() == OpCode::While)
        loops.push_back(&op);
    });
    for (Operation *loop : loops) {
      const unsigned firstInit = loop->code() == OpCode::For ? 3 : 0;
      const unsigned numInits = loop->numOperands() - firstInit;
      std::vector<TiedValues> groups = tiedValues(*loop);
      for (unsigned g = 0; g < groups.size(); ++g) {
        const tir::Type &type = groups[g].values.front()->type();
        if (!type.isTensor() || !type.elem.isFloat() ||
            std::any_of(groups[g].values.begin(), groups[g].values.end(),
                        [](const Value *v) { return layoutOf(v) != nullptr; }))
          continue;
        // A constant initial value (tl.zeros) that other ops use too gets a copy of its own, as
        // Triton materialises a constant in each layout it is used in.
        if (g < numInits && uses[loop->operand(firstInit + g)] > 1) {
          const Operation *constant = loop->operand(firstInit + g)->definingOp();
          if (constant && constant->code() == OpCode::Constant) {
            tir::Builder builder;
            builder.setInsertionPoint(loop);
            Value *copy = cloneOp(builder, *constant, {}, {constant->result()->type()})->result();
            loop->setOperand(firstInit + g, copy);
            groups[g].values.front() = copy;
          }
        }
        for (Value *v : groups[g].values)
          set(v, defaultBlockedLayout(type.shape, function_.numWarps, 1));
      }
    }
  }

  void forward(Block &block) {
    for (auto &opPtr : block.ops()) {
      Operation &op = *opPtr;
      tie(op);
      for (unsigned r = 0; r < op.numRegions(); ++r)
        forward(op.region(r).block());
      tie(op);
      for (unsigned r = 0; r < op.numResults(); ++r)
        if (!layoutOf(op.result(r)))
          if (LayoutPtr l = reductionInLatestAnchorLayout(op, r)) {
            set(op.result(r), l);
            reductionsInAnchorLayout_.insert(&op);
          }
      if (!strictForward_ && op.numResults() == 1)
        set(op.result(), tensorCoreLayoutAmongOperands(op));
      for (unsigned r = 0; r < op.numResults(); ++r)
        if (strictForward_) {
          if (!layoutOf(op.result(r)))
            set(op.result(r), impliedResultLayout(op, r, &reached_, &anchorRanks_));
          rankFromOperands(op, r);
        } else {
          set(op.result(r), layoutAfterAnchorReduction(op, r));
          set(op.result(r), impliedResultLayout(op, r, nullptr, &anchorRanks_));
        }
    }
  }

  /// Triton's conflict rule (LayoutPropagation::resolveConflicts): an op other than a memory
  /// access whose operands arrive in several layouts takes a tensor-core accumulator's layout
  /// where one of them has it, and the others are converted to it. For an FMA dot's product
  /// minus an mma dot's result (fla's dhu), the subtraction is then done in the mma layout, after
  /// the product's conversion, which keeps the backend from fusing the product's multiply into
  /// the subtraction: the bits are Triton's.
  LayoutPtr tensorCoreLayoutAmongOperands(const Operation &op) const {
    if (!sharesOneLayout(op) || op.code() == OpCode::Load || tir::isStoreOrAtomic(op.code()))
      return nullptr;
    LayoutPtr first, tensorCore;
    bool disagree = false;
    for (const Value *v : op.operands()) {
      LayoutPtr l = v->type().isTensor() ? layoutOf(v) : nullptr;
      if (!l)
        continue;
      if (!first)
        first = l;
      disagree |= !sameLayout(first, l);
      if (!tensorCore && isTensorCoreLayout(l))
        tensorCore = l;
    }
    return disagree ? tensorCore : nullptr;
  }

  bool isTensorCoreLayout(const LayoutPtr &layout) const {
    return std::any_of(tensorCoreLayouts_.begin(), tensorCoreLayouts_.end(),
                       [&](const LayoutPtr &l) { return sameLayout(l, layout); });
  }

  /// The results without a layout yet of the ops other than expand_dims and broadcast.
  std::vector<Value *> unassignedNonViews() {
    std::vector<Value *> found;
    tir::walk(function_, [&](Operation &op) {
      if (op.code() == OpCode::ExpandDims || op.code() == OpCode::Broadcast)
        return;
      for (unsigned r = 0; r < op.numResults(); ++r)
        if (op.result(r)->type().isTensor() && !layoutOf(op.result(r)))
          found.push_back(op.result(r));
    });
    return found;
  }

  Value *firstUnassigned() {
    Value *found = nullptr;
    std::function<void(Block &)> visit = [&](Block &block) {
      for (unsigned i = 0; i < block.numArguments() && !found; ++i)
        if (block.argument(i)->type().isTensor() && !layoutOf(block.argument(i)))
          found = block.argument(i);
      for (auto &op : block.ops()) {
        for (unsigned r = 0; r < op->numResults() && !found; ++r)
          if (op->result(r)->type().isTensor() && !layoutOf(op->result(r)))
            found = op->result(r);
        for (unsigned r = 0; r < op->numRegions() && !found; ++r)
          visit(op->region(r).block());
      }
    };
    visit(function_.body());
    return found;
  }

  void retypeResult(Operation &op, unsigned r, const LayoutPtr &wanted) {
    gpu::retypeResult(function_, op, r, wanted);
  }

  void convertOperand(Operation &op, unsigned i, const LayoutPtr &wanted) {
    Value *operand = op.operand(i);
    if (!wanted || !operand->type().isTensor() || sameLayout(layoutOf(operand), wanted))
      return;
    // An operand used twice (x * x) is converted once: each conversion of a small load is
    // replaced by a load of its own (RemoveRedundantConversions), and Triton's rematerialisation
    // issues one.
    for (unsigned j = 0; j < i; ++j)
      if (const Operation *earlier = op.operand(j)->definingOp();
          earlier && earlier->code() == OpCode::ConvertLayout && earlier->operand(0) == operand &&
          sameLayout(layoutOf(op.operand(j)), wanted))
        return op.setOperand(i, op.operand(j));
    op.setOperand(i, insertConvert(operand, wanted, &op));
  }

  void legalizeBlock(Block &block) {
    std::vector<Operation *> ops;
    for (auto &op : block.ops())
      ops.push_back(op.get());
    for (Operation *op : ops)
      legalize(*op);
  }

  void legalize(Operation &op) {
    for (unsigned r = 0; r < op.numRegions(); ++r)
      legalizeBlock(op.region(r).block());
    if (op.code() == OpCode::Reduce || op.code() == OpCode::ArgReduce) {
      // Every operand in the first one's layout, every result in the slice of it; or, where
      // the reduction runs in the latest anchor's layout, every operand converted to it.
      if (reductionsInAnchorLayout_.count(&op)) {
        LayoutPtr source = layoutOf(op.result(0))->parent;
        for (unsigned i = 0; i < op.numOperands(); ++i)
          convertOperand(op, i, source);
        return;
      }
      for (unsigned i = 1; i < op.numOperands(); ++i)
        convertOperand(op, i, layoutOf(op.operand(0)));
      for (unsigned r = 0; r < op.numResults(); ++r)
        if (op.result(r)->type().isTensor())
          retypeResult(op, r, impliedResultLayout(op, r));
      return;
    }
    if (op.code() == OpCode::Scan) {
      // The scan runs in its result's layout, a blocked one (isScanLayout). Its lowering walks a
      // thread's elements, then the lanes, then the warps along the axis: a warp's repeated
      // rows are converted away first.
      LayoutPtr target = withoutRepsInWarp(layoutOf(op.result(0)));
      for (unsigned i = 0; i < op.numOperands(); ++i)
        convertOperand(op, i, target);
      for (unsigned r = 0; r < op.numResults(); ++r)
        retypeResult(op, r, target);
      return;
    }
    if (op.code() == OpCode::For || op.code() == OpCode::If || op.code() == OpCode::While)
      return legalizeStructured(op);
    if (op.code() == OpCode::Trans)
      return legalizeTrans(op);
    if (op.code() == OpCode::Dot) {
      LayoutPtr result = layoutOf(op.result());
      if (!result || result->kind != LayoutKind::Blocked)
        retypeResult(op, 0, dotFmaLayout(op.result()->type().shape, function_.numWarps));
      convertOperand(op, 2, layoutOf(op.result()));
      return;
    }
    if (op.code() == OpCode::Gather) {
      LayoutPtr result = layoutOf(op.result());
      if (!result) {
        result = layoutOf(op.operand(1));
        retypeResult(op, 0, result);
      }
      convertOperand(op, 1, result);
      return;
    }
    if ((op.code() == OpCode::InlineAsm || op.code() == OpCode::MapElementwise) &&
        op.numResults() > 0 && op.result(0)->type().isTensor()) {
      // Elementwise with several results: operands and results all in result 0's layout.
      LayoutPtr target = layoutOf(op.result(0));
      for (unsigned i = 0; i < op.numOperands(); ++i)
        convertOperand(op, i, target);
      for (unsigned r = 1; r < op.numResults(); ++r)
        retypeResult(op, r, target);
      return;
    }
    if (op.numOperands() == 0)
      return; // nothing to convert (an inline asm without arguments: a scalar result)
    if (op.code() == OpCode::Reshape)
      return; // its lowering moves what it must (OptimizeReshapeLayout: maybe nothing)
    if (sharesOneLayout(op)) {
      LayoutPtr target = op.numResults() == 1 && op.result()->type().isTensor()
                             ? layoutOf(op.result())
                             : layoutOf(op.operand(0));
      for (unsigned i = 0; i < op.numOperands(); ++i)
        convertOperand(op, i, target);
      return;
    }
    for (unsigned i = 0; i < op.numOperands(); ++i)
      if (op.code() != OpCode::ConvertLayout)
        convertOperand(op, i, wantedOperandLayout(op, i, reductionsFollowResults_));
  }

  /// Triton's backward rematerialisation of the conversion that brings a reduction's result
  /// into the slice of a tensor-core layout. A reduction that runs in the latest anchor's layout
  /// (reductionInLatestAnchorLayout) has its operand converted from a tensor-core layout T; where
  /// its result flows, through elementwise ops and conversions used once each, into a conversion
  /// to T's slice (an expand_dims in T, its result broadcast against an mma tile), Triton
  /// rematerialises that conversion's source in T's slice: the slice behind it stops at the
  /// conversions (the one feeding the reduction is then a conversion from T to T, which folds
  /// away), every op in it being used once costs nothing, and the reduction runs in T after all,
  /// the elementwise ops in T's slice, their other operands converted (fla's
  /// chunk_gla_bwd_kernel_inter: b_dg - cumsum(b_dg) + sum(b_dg, 0)[None, :] + b_dgk[None, :],
  /// with b_dgk += sum(b_dk * b_k, 0), sums both in the mma layout).
  void rematerialiseAnchorReductions() {
    std::vector<Operation *> reductions;
    tir::walk(function_, [&](Operation &op) {
      if (reductionsInAnchorLayout_.count(&op))
        reductions.push_back(&op);
    });
    auto users = usersOf(function_); // rebuilt after each rewrite, which adds conversions
    for (Operation *reduction : reductions) {
      if (reduction->numResults() != 1 || !reduction->result()->type().isTensor())
        continue;
      // The tensor-core layout every operand was converted from.
      LayoutPtr tensorCore;
      bool fromTensorCore = true;
      for (const Value *operand : reduction->operands()) {
        const Operation *convert = operand->definingOp();
        LayoutPtr source = convert && convert->code() == OpCode::ConvertLayout
                               ? layoutOf(convert->operand(0))
                               : nullptr;
        if (!source || !isTensorCoreLayout(source) ||
            (tensorCore && !sameLayout(tensorCore, source))) {
          fromTensorCore = false;
          break;
        }
        tensorCore = source;
      }
      if (!fromTensorCore)
        continue;
      // The chain of single uses from the result to a conversion to the layout it would have
      // there had the reduction run in `tensorCore` (its slice, then `tensorCore` itself past an
      // expand_dims along the reduced axis), with the layout each op of the chain then has.
      const unsigned axis = static_cast<unsigned>(reduction->intAttr("axis"));
      LayoutPtr wanted = makeSlice(axis, tensorCore);
      std::vector<std::pair<Operation *, LayoutPtr>> chain;
      bool found = false;
      const Value *v = reduction->result();
      for (unsigned depth = 0; depth < 12 && !found; ++depth) {
        auto it = users.find(v);
        if (it == users.end() || it->second.size() != 1)
          break;
        Operation *user = it->second.front();
        if (user->code() == OpCode::ConvertLayout) {
          found = sameLayout(layoutOf(user->result()), wanted);
          v = user->result();
          continue;
        }
        if (user->code() == OpCode::ExpandDims) {
          if (wanted->kind != LayoutKind::Slice ||
              wanted->dim != static_cast<unsigned>(user->intAttr("axis")))
            break;
          wanted = wanted->parent;
        } else if (user->code() != OpCode::Broadcast &&
                   (!sharesOneLayout(*user) || !tir::isElementwise(user->code()) ||
                    user->numResults() != 1 || user->result()->type().shape != v->type().shape)) {
          break;
        }
        chain.emplace_back(user, wanted);
        v = user->result();
      }
      if (!found)
        continue;
      for (unsigned i = 0; i < reduction->numOperands(); ++i)
        reduction->setOperand(i, reduction->operand(i)->definingOp()->operand(0));
      retypeResult(*reduction, 0, makeSlice(axis, tensorCore));
      for (auto &[op, layout] : chain) {
        LayoutPtr operandLayout =
            op->code() == OpCode::ExpandDims
                ? makeSlice(static_cast<unsigned>(op->intAttr("axis")), layout)
                : layout;
        for (unsigned i = 0; i < op->numOperands(); ++i)
          convertOperand(*op, i, operandLayout);
        retypeResult(*op, 0, layout);
      }
      users = usersOf(function_);
    }
  }

  // trans permutes a blocked layout for free: the operand takes the result's layout unpermuted,
  // or, when the result's layout is not blocked, the result takes the operand's permuted.
  void legalizeTrans(Operation &op) {
    if (LayoutPtr wanted = permuteLayout(layoutOf(op.result()), inversePermutation(op)))
      return convertOperand(op, 0, wanted);
    const auto &order = std::get<std::vector<int64_t>>(op.attr("order"));
    LayoutPtr operand = layoutOf(op.operand(0));
    if (!permuteLayout(operand, order)) {
      operand = defaultBlockedLayout(op.operand(0)->type().shape, function_.numWarps, 1);
      convertOperand(op, 0, operand);
    }
    retypeResult(op, 0, permuteLayout(operand, order));
  }

  // Region arguments are the reference: inits and yields are converted to them, results take them.
  void legalizeStructured(Operation &op) {
    if (op.code() == OpCode::For) {
      Block &body = op.region(0).block();
      for (unsigned i = 0; i + 3 < op.numOperands(); ++i) {
        LayoutPtr l = layoutOf(body.argument(i + 1));
        convertOperand(op, i + 3, l);
        convertOperand(*body.terminator(), i, l);
        retypeResult(op, i, l);
      }
      return;
    }
    if (op.code() == OpCode::If) {
      for (unsigned i = 0; i < op.numResults(); ++i) {
        LayoutPtr l = layoutOf(op.result(i));
        convertOperand(*op.region(0).block().terminator(), i, l);
        convertOperand(*op.region(1).block().terminator(), i, l);
      }
      return;
    }
    Block &before = op.region(0).block(), &after = op.region(1).block();
    for (unsigned i = 0; i < op.numOperands(); ++i) {
      LayoutPtr l = layoutOf(before.argument(i));
      convertOperand(op, i, l);
      convertOperand(*after.terminator(), i, l);
    }
    for (unsigned i = 0; i < op.numResults(); ++i) {
      LayoutPtr l = layoutOf(after.argument(i));
      convertOperand(*before.terminator(), i + 1, l);
      retypeResult(op, i, l);
    }
  }
};

} // namespace

void runAssignLayouts(tir::Function &function) {
  LayoutAssigner(function).run();
}

} // namespace tilec::gpu
