// Removal of layout conversions that are not needed. A conversion goes through shared memory with
// two barriers; most of those AssignLayouts leaves behind are avoidable:
//   - a conversion to the layout its operand already has is the operand;
//   - a conversion of a conversion converts the original value;
//   - a conversion of a value that is cheap to compute (a constant, make_range, splat, and the
//     elementwise/broadcast/expand_dims trees over them and over values already available in the
//     wanted layout) is replaced by recomputing that value directly in the wanted layout;
//   - so is a conversion of a small load (fewer elements than the program has threads, Triton's
//     rule: the copies of each element the threads then read hit in the cache), issued again in
//     the wanted layout right after the original (so that a store between the load and the
//     conversion does not matter);
//   - the pointers of such a load may be carried by the loop the load is in (`p_k += stride`):
//     the loop then carries a copy of them in the wanted layout too, its initial value and its
//     increment recomputed so (Triton's rematerialisation goes through a loop's region
//     arguments): fla's recurrent kernels load their small k and v vectors straight in the
//     layouts of their outer product, and LLVM ranks the products of the state update by where
//     those loads are. The copy the loop carried before is dropped when nothing else reads it;
//   - a conversion of a broadcast (through expand_dims and such trees) converts what is broadcast
//     instead, when that is smaller, and broadcasts it again in the wanted layout (Triton's
//     hoisting of conversions over broadcasts: attention's rescaling factor, one per row, where
//     the two products' warps differ).
//   - a conversion inside such a tree is recomputed as a conversion of its source to the wanted
//     layout (Triton's canFoldIntoConversion: its backward slice stops there), unless the wanted
//     layout is a tensor core's and the source is not in it already;
//   - a value of such a tree that an earlier conversion already brings into the wanted layout is
//     taken from there (Triton's rematerialisation reuses a conversion that dominates the use):
//     fla's chunk_rwkv6_bwd_kernel_inter adds b_dA[:, None] * b_u[None, :] * b_k to an mma
//     accumulator, the product recomputed in the mma layout from the conversion of b_k its
//     b_k * b_dk already made, so that the add takes the last multiply into an FMA as Triton's.
//   - a wide slice (below) may end at a load that Triton's pipeliner reads from shared memory
//     (tritonPipelinedLoads): Triton's last layout pass runs after the pipeliner, when such a load
//     is a local_load, neither an anchor nor too expensive to issue again, so its tile is read
//     again in the wanted layout; here the load is converted right after it. fla's chunked ATK
//     backward computes `U = beta[:, None] * k * k` for a dot and for `g * dot + U`, and
//     `gkp * k`, `2 * k` in the dot's layout, all from k (pipelined) converted, as Triton.
// Producers left without users are erased.
#include "analysis/AxisInfo.h"
#include "gpu/Layout.h"
#include "gpu/LoopSlice.h"
#include "gpu/PassUtils.h"
#include "gpu/Passes.h"
#include "tir/Builder.h"
#include "tir/Passes.h"

#include <algorithm>
#include <functional>
#include <map>
#include <set>
#include <tuple>

namespace tilec::gpu {
namespace {

using tir::OpCode;
using tir::Operation;
using tir::Value;

/// How deep a tree of producers is recomputed: far enough for index arithmetic such as
/// `ptr + (pid * BLOCK + arange)[:, None] * stride + arange[None, :]`.
constexpr unsigned kMaxRematerialisationDepth = 12;

bool isRematerialisable(const Operation &op) {
  switch (op.code()) {
  case OpCode::Constant:
  case OpCode::MakeRange:
  case OpCode::Splat:
  case OpCode::Broadcast:
  case OpCode::ExpandDims:
    return true;
  default:
    return tir::isElementwise(op.code());
  }
}

/// The ops of `block` that `op` needs, itself included: the producers in `block` of its operands
/// and of the values its regions use from above (MLIR's getBackwardSlice with block arguments
/// omitted and uses from above kept), transitively.
std::set<Operation *> backwardSliceIn(tir::Block &block, Operation *op) {
  std::set<Operation *> slice;
  std::vector<Operation *> work{op};
  while (!work.empty()) {
    Operation *current = work.back();
    work.pop_back();
    if (!slice.insert(current).second)
      continue;
    std::vector<Value *> operands(current->operands().begin(), current->operands().end());
    for (unsigned r = 0; r < current->numRegions(); ++r)
      tir::walk(current->region(r).block(), [&](Operation &nested) {
        for (Value *operand : nested.operands())
          operands.push_back(operand);
      });
    for (Value *operand : operands)
      if (Operation *producer = operand->definingOp();
          producer && producer->parentBlock() == &block)
        work.push_back(producer);
  }
  return slice;
}

/// Triton's pipeliner orders the body of a loop it pipelines by its schedule's clusters. What it
/// schedules first is every op downstream of a load it pipelines (scheduleKeyOps); then its
/// schedulePrologueAndEpilogue puts every `if` in the backward slice of a scheduled op into a
/// cluster of its own at the front of the body, the ops it needs with it (scheduleDependencies
/// gives them its cluster), and the other ifs into a cluster at the back. Where a value computed
/// after such an if meets one computed before it decides which product LLVM fuses into an FMA
/// (instruction selection sees one block at a time): fla's chunked ATK loads `ac` in an if for
/// the dot's accumulator, and Triton's `g * dot + U` takes U's product into the FMA because U is
/// computed after the if; its backward stores in an if, which Triton's ttgir has at the back.
/// Left in place: an if at the front that stores or reads a pipelined load, an if at the back
/// whose results the body uses (their clusters are not modelled).
void schedulePrologueIfs(tir::Function &function, const std::set<const Operation *> &pipelined) {
  for (auto [loop, stages] : pipelinedLoops(function)) {
    (void)stages;
    tir::Block &body = loop->region(0).block();
    // What Triton schedules (scheduleKeyOps): the pipelined loads and every op of the body
    // downstream of one (an op whose result a nested op uses counts as that op's ancestor).
    std::set<Operation *> downstream;
    for (auto &op : body.ops())
      if (pipelined.count(op.get()))
        downstream.insert(op.get());
    if (downstream.empty())
      continue; // Triton schedules nothing in this loop
    for (auto &op : body.ops()) {
      if (downstream.count(op.get()))
        continue;
      bool reached = false;
      auto reads = [&](Operation &nested) {
        for (Value *operand : nested.operands())
          if (Operation *producer = operand->definingOp())
            reached |= downstream.count(producer) > 0;
      };
      reads(*op);
      for (unsigned r = 0; r < op->numRegions(); ++r)
        tir::walk(op->region(r).block(), reads);
      if (reached)
        downstream.insert(op.get());
    }
    std::set<Operation *> ifs;
    for (Operation *key : downstream)
      for (Operation *op : backwardSliceIn(body, key))
        if (op->code() == OpCode::If && op != key)
          ifs.insert(op);
    std::set<Operation *> moved;
    for (Operation *ifOp : ifs) {
      bool stores = false;
      for (unsigned r = 0; r < ifOp->numRegions(); ++r)
        tir::walk(ifOp->region(r).block(),
                  [&](Operation &nested) { stores |= tir::isStoreOrAtomic(nested.code()); });
      std::set<Operation *> slice = backwardSliceIn(body, ifOp);
      bool readsPipelined = false;
      for (Operation *op : slice)
        readsPipelined |= pipelined.count(op) > 0;
      if (stores || readsPipelined)
        continue; // (its place in Triton's clusters is not modelled)
      moved.insert(slice.begin(), slice.end());
    }
    // In body order, each to the front after those already moved.
    std::vector<Operation *> order;
    for (auto &op : body.ops())
      if (moved.count(op.get()))
        order.push_back(op.get());
    auto front = body.ops().begin();
    for (Operation *op : order) {
      if (front != body.ops().end() && front->get() == op) {
        ++front;
        continue;
      }
      std::unique_ptr<Operation> taken = body.remove(op);
      body.insert(front, std::move(taken));
    }
    // The other ifs go to a cluster at the back of the body, with what only they use
    // (scheduleDependencies leaves it to their cluster, the last). Taken here only where the if
    // has no results other than what the loop yields, so that no user has to follow it.
    Operation *yield = body.terminator();
    std::vector<Operation *> others;
    for (auto &op : body.ops())
      if (op->code() == OpCode::If && !ifs.count(op.get()))
        others.push_back(op.get());
    for (Operation *ifOp : others) {
      bool usedInBody = false;
      for (unsigned i = 0; i < ifOp->numResults(); ++i)
        tir::walk(body, [&](Operation &user) {
          if (&user == yield)
            return;
          for (Value *operand : user.operands())
            usedInBody |= operand == ifOp->result(i);
        });
      if (usedInBody)
        continue;
      std::set<Operation *> slice = backwardSliceIn(body, ifOp);
      std::set<Operation *> tail{ifOp};
      // Later ops first: a producer joins once every user of its results is in the tail.
      std::vector<Operation *> reversed;
      for (auto &op : body.ops())
        reversed.push_back(op.get());
      std::reverse(reversed.begin(), reversed.end());
      for (Operation *op : reversed) {
        if (op == ifOp || !slice.count(op) || !isRematerialisable(*op) || downstream.count(op))
          continue; // (what Triton schedules keeps its cluster)
        bool onlyTail = true;
        tir::walk(body, [&](Operation &user) {
          for (Value *operand : user.operands())
            if (operand->definingOp() == op) {
              Operation *top = &user;
              while (top->parentBlock() != &body)
                top = top->parentBlock()->parentOp();
              onlyTail &= tail.count(top) > 0;
            }
        });
        if (onlyTail)
          tail.insert(op);
      }
      std::vector<Operation *> tailOrder;
      for (auto &op : body.ops())
        if (tail.count(op.get()))
          tailOrder.push_back(op.get());
      for (Operation *op : tailOrder) {
        std::unique_ptr<Operation> taken = body.remove(op);
        body.insert(body.find(yield), std::move(taken));
      }
    }
  }
}

/// The copies rematerialise made: a value in a layout, placed at the conversion or right after
/// the original.
using Copies = std::map<std::tuple<const Value *, std::string, bool>, Value *>;

class ConversionRemover {
public:
  explicit ConversionRemover(tir::Function &function) : function_(function) {}

  void run() {
    pipelinedLoads_ = tritonPipelinedLoads(function_, /*skipFarCarriedLoops=*/true);
    // First what cheap recomputation alone removes; then, on what is left, recomputation through
    // conversions and from earlier conversions too (foldConversions_), and again until nothing
    // changes.
    for (bool folding : {false, true}) {
      foldConversions_ = folding;
      runRounds();
    }
    schedulePrologueIfs(function_, pipelinedLoads_);
    if (loopsCarryingCopies_.empty())
      return;
    // Inner loops first, in program order: dropping an outer loop's dead operations may erase an
    // inner loop, which must not be visited after.
    std::vector<Operation *> loops;
    tir::walk(function_, [&](Operation &op) {
      if (loopsCarryingCopies_.count(&op))
        loops.push_back(&op);
    });
    for (auto it = loops.rbegin(); it != loops.rend(); ++it)
      eraseUnusedCarriedValues(function_, **it);
    eraseDeadPureOps(function_);
  }

private:
  void runRounds() {
    for (bool changed = true; changed;) {
      changed = false;
      std::vector<Operation *> converts;
      tir::walk(function_, [&](Operation &op) {
        if (op.code() == OpCode::ConvertLayout)
          converts.push_back(&op);
      });
      // Built again each round: erasing ops invalidates it (and the copies made).
      tir::UseIndex uses(function_.body());
      uses_ = &uses;
      conversions_.clear();
      madeCopies_.clear();
      for (Operation *convert : converts)
        conversions_[{convert->operand(0), layoutOf(convert->result())->str()}].push_back(convert);
      for (Operation *convert : converts)
        changed |= simplify(*convert);
      uses_ = nullptr;
      eraseDeadPureOps(function_);
    }
  }

  /// A convert_layout of `source` to `like`'s type in `layout`, made at `b`'s insertion point,
  /// entered in the use index and named as `like`.
  Value *createConversion(tir::Builder &b, Value *source, const Value &like,
                          const LayoutPtr &layout) {
    Value *converted =
        b.createValue(OpCode::ConvertLayout, {source}, like.type().withLayout(layout));
    uses_->addUser(*converted->definingOp());
    converted->setNameHint(like.nameHint());
    return converted;
  }

  tir::Function &function_;
  /// The uses of the round's values: each conversion removed replaces its result's.
  tir::UseIndex *uses_ = nullptr;
  /// The region arguments a loop carries in another layout too (rematerialiseCarried), by the
  /// argument and the layout; those being checked by canRematerialiseCarried.
  std::map<std::pair<const Value *, std::string>, Value *> carriedCopies_;
  std::set<std::pair<const Value *, std::string>> carriedBeingChecked_;
  /// The broadcasts a conversion moves above in canRematerialise's convertLeaves mode whose
  /// operands cannot be recomputed in the wanted layout: Triton's single widening.
  std::set<const Operation *> unrecomputedBroadcasts_;
  /// The region argument each of those copies copies.
  std::map<const Value *, Value *> carriedOriginals_;
  std::set<Operation *> loopsCarryingCopies_;
  /// The conversions at the start of the round, by their source and their result's layout.
  std::map<std::pair<const Value *, std::string>, std::vector<Operation *>> conversions_;
  /// Whether a recomputed tree may go through conversions and take values from earlier ones.
  bool foldConversions_ = false;
  /// The loads Triton pipelines (tritonPipelinedLoads): a wide slice reads them converted.
  std::set<const Operation *> pipelinedLoads_;

  /// Whether `def` comes before `user` in `def`'s block or in a block enclosing `user`.
  static bool dominates(const Operation *def, const Operation *user) {
    const tir::Block *block = def->parentBlock();
    const Operation *op = user;
    while (op && op->parentBlock() != block)
      op = op->parentBlock() ? op->parentBlock()->parentOp() : nullptr;
    if (!op || op == def)
      return false;
    for (const auto &o : block->ops()) {
      if (o.get() == def)
        return true;
      if (o.get() == op)
        return false;
    }
    return false;
  }

  /// An earlier conversion of `v` to `layout` that `before` may use, or null.
  Value *existingConversion(const Value *v, const LayoutPtr &layout,
                            const Operation *before) const {
    auto it = conversions_.find({v, layout->str()});
    if (it == conversions_.end())
      return nullptr;
    for (Operation *convert : it->second)
      if (convert != before && dominates(convert, before))
        return convert->result();
    return nullptr;
  }

  /// Whether a conversion producing a value of a rematerialised tree may be replaced by a
  /// conversion of its source to `layout` (Triton's canFoldIntoConversion).
  static bool foldsInto(const Operation &convert, const LayoutPtr &layout) {
    return !isTensorCoreLayout(layout) || sameLayout(layoutOf(convert.operand(0)), layout);
  }

  /// The copies rematerialise made this round, by what they copy and their layout: a later
  /// conversion of the same value reuses one that dominates it, as Triton's rematerialisation
  /// reuses its copies (getRematValue): the next value of a loop-carried copy, recomputed before
  /// the yield, is then the one computed for the conversion in the body, not a second one.
  std::map<std::pair<const Value *, std::string>, std::vector<Value *>> madeCopies_;

  /// Whether `def` (an operation's result) is available at `user`: defined earlier in the block
  /// of `user` or of an operation holding it.
  static bool dominates(const Value *def, const Operation *user) {
    const Operation *definition = def->definingOp();
    return definition && dominates(definition, user);
  }

  /// Whether `load` is one Triton's rematerialisation issues again anywhere (canBeRemat: fewer
  /// elements than threads), the copy right before the original, as a wide slice places it.
  bool isSmallLoad(const Operation &load) const {
    return load.result()->type().numElements() < int64_t(32) * function_.numWarps &&
           !(load.hasAttr("volatile") && load.boolAttr("volatile"));
  }

  /// Whether a wide slice may issue `load` again: a small load anywhere where the kernel has loads
  /// Triton pipelines (isSmallLoad), else only before the conversion in its block
  /// (isCheapLoadBefore). Measured on the H200 against Triton: with num_stages 3 Triton computes
  /// pipelined_load_square_dot's a[:, None] * x * x in the dot's layout from `a` loaded again
  /// before the loop; with num_stages 1 (nothing pipelined) square_dot_times_x converts the
  /// product instead, and re-issuing `a` there differed from Triton in 2105 of 8192 elements.
  bool isReissuableLoad(const Operation &load, const Operation &root) const {
    return pipelinedLoads_.empty() ? isCheapLoadBefore(load, &root) : isSmallLoad(load);
  }

  /// Whether `load` may be issued again, in another layout, for a use at `before`: it is small,
  /// not volatile, and comes before `before` in its block. The copy goes right after the load
  /// (rematerialise), where it reads what the load reads, whatever is between the load and
  /// `before`: a loop-carried value recomputed for the yield, after the loop's stores (fla's
  /// precond_kda carries its ATK state in the slice layout the state update wants, as Triton).
  bool isCheapLoadBefore(const Operation &load, const Operation *before) const {
    if (!isSmallLoad(load))
      return false;
    tir::Block *block = load.parentBlock();
    if (!block || block != before->parentBlock())
      return false;
    for (auto it = std::next(block->find(const_cast<Operation *>(&load))); it != block->ops().end();
         ++it) {
      if (it->get() == before)
        return true;
    }
    return false;
  }

  bool simplify(Operation &convert) {
    Value *source = convert.operand(0);
    LayoutPtr target = layoutOf(convert.result());
    if (sameLayout(layoutOf(source), target)) {
      uses_->replaceAllUses(convert.result(), source);
      return true;
    }
    Operation *producer = source->definingOp();
    if (producer && producer->code() == OpCode::ConvertLayout) {
      uses_->setOperand(convert, 0, producer->operand(0));
      return true;
    }
    // The whole tree recomputed, else (convertLeaves) what is broadcast converted instead.
    bool convertLeaves = false;
    if (!canRematerialise(source, target, &convert, kMaxRematerialisationDepth, false, false)) {
      if (rematerialiseWideSlice(convert))
        return true;
      convertLeaves = true;
      unrecomputedBroadcasts_.clear();
      if (!canRematerialise(source, target, &convert, kMaxRematerialisationDepth, true, false))
        return false;
    }
    Copies done;
    Value *replacement = rematerialise(source, target, &convert, done, false, convertLeaves, false);
    uses_->replaceAllUses(convert.result(), replacement);
    return true;
  }

  // Triton's backward rematerialisation (RemoveLayoutConversions.cpp, backwardRematerialization
  // and getConvertBackwardSlice in Utility.cpp) takes a wider slice than the trees above: it goes
  // through reductions (a sum is recomputed in the layout whose slice is wanted) and scans (a
  // blocked layout passes through one; Triton's cost model prices a scan at nothing), it ends at a
  // conversion (whose source is then converted to the wanted layout instead), and it ends at a
  // value that a conversion kept earlier already converts to the wanted layout (that conversion
  // is reused). It rewrites the slice when its cost model says the copies cost no more than the
  // conversion. That decides the layout a reduction runs in: fla's gdn2 backward computes
  // b_kdk = b_k * b_dk in a dot's layout, converts it to the load's layout for b_q * b_dq - b_kdk,
  // and sums it with tl.sum(b_kdk, 0) into a row that is broadcast over that load's layout; the
  // conversion of the broadcast product is rematerialised back to the sum, which reads the kept
  // conversion of b_kdk and adds in the load's layout's order. mamba2's chunk cumsum stores dt,
  // then scans dt * A[:, None]: the conversion of the scan's result for its store is
  // rematerialised through the scan and the product back to the conversion kept for dt's store,
  // so the scan runs along the store's lanes, as Triton's.
  // It is tried where the trees above fail, before converting what is broadcast (Triton hoists
  // conversions over broadcasts only after its rematerialisation). fla's gdn2 backward also
  // computes b_kg * b_dkgb * b_b from the product it stores (CSE): the multiplication by b_b
  // reads the conversion kept for the store and happens in the load's layout, where the backend
  // fuses it into the add.

  /// A wide slice: the layout each value takes, the producers of its values, and the values that
  /// end at a kept conversion (and that conversion).
  struct WideSlice {
    std::map<const Value *, LayoutPtr> layout;
    std::set<const Operation *> ops;
    std::map<const Value *, Operation *> reused;
  };

  /// A conversion of `v` to `layout`, other than `root`, that stays (the trees above cannot
  /// remove it) and can precede `user`: in the block of `v`'s definition and of `user`, where
  /// Triton's layout propagation places it right after that definition. Null when none.
  Operation *keptConversion(Value &v, const LayoutPtr &layout, const Operation &user,
                            const Operation &root) {
    const Operation *definition = v.definingOp();
    if (!definition || user.parentBlock() != definition->parentBlock())
      return nullptr;
    for (Operation *c : uses_->usersOf(&v)) {
      if (c == &root || c->code() != OpCode::ConvertLayout ||
          c->parentBlock() != definition->parentBlock() ||
          !sameLayout(layoutOf(c->result()), layout) || uses_->usersOf(c->result()).empty())
        continue;
      if (canRematerialise(&v, layout, c, kMaxRematerialisationDepth, false, false))
        continue; // it goes away itself
      if (feedsOnlyMemoryAccesses(*c) && !isTensorCoreLayout(layoutOf(&v)) && !dominates(c, &user))
        continue;
      return c;
    }
    return nullptr;
  }

  /// Whether the result of `convert` is only stored (or given to atomics). Triton's Coalesce
  /// converts such a value right before the store, and its layout propagation rewrites that
  /// conversion where it is; a conversion for a computation instead it creates right after the
  /// converted value's definition. So a store's conversion serves a user only when it precedes
  /// it: fla's gsa backward (chunk_gsa_bwd_k_kernel_dqkvg) sums b_dv * b_v before it stores b_dv,
  /// and Triton's slice then reaches the dot behind b_dv and the sum stays in the dot's layout.
  /// A value in a tensor core's layout is another matter: Triton does not propagate an mma
  /// result's layout forward unless it is converted back to mma further down (initAnchorLayout),
  /// so what AssignLayouts computes there Triton computes in the blocked layout already, and the
  /// conversion stands for its copy there (fla's oja backward, chunk_oja_bwd_kernel_dvwg_h, sums
  /// b_dv * b_v before storing b_dv too, in the store's layout as Triton).
  bool feedsOnlyMemoryAccesses(const Operation &convert) const {
    const auto &users = uses_->usersOf(convert.result());
    return !users.empty() && std::all_of(users.begin(), users.end(), [](const Operation *u) {
      return tir::isStoreOrAtomic(u->code());
    });
  }

  bool addToWideSlice(Value *v, const LayoutPtr &layout, const Operation &user,
                      const Operation &root, unsigned depth, WideSlice &slice) {
    if (!v->type().isTensor() || availableIn(v, layout))
      return true;
    if (auto it = slice.layout.find(v); it != slice.layout.end())
      return sameLayout(it->second, layout); // Triton gives up on a value wanted in two layouts
    slice.layout[v] = layout;
    Operation *producer = v->definingOp();
    if (!producer || depth == 0)
      return false;
    // Triton's getConvertBackwardSlice fails at a loop's result before it looks for an existing
    // conversion of it: fla's gdn2 and kda intra backward compute (b_dk2 - b_dkt) * b_k, b_dkt
    // a loop's result, in the FMA dot's layout and convert the product for the add, which keeps
    // the multiplication out of an FMA; reusing the conversion of b_dkt kept for the other add
    // would multiply in the load's layout and fuse it.
    if (producer->code() == OpCode::For || producer->code() == OpCode::While)
      return false;
    slice.ops.insert(producer);
    if (Operation *kept = keptConversion(*v, layout, user, root)) {
      slice.reused[v] = kept;
      return true;
    }
    if (producer->code() == OpCode::ConvertLayout)
      return true; // its source is converted to `layout` instead
    if (pipelinedLoads_.count(producer))
      return &user != &root; // converted right after the load (rematerialiseWide); the
                             // conversion of the load itself stays
    if (producer->code() == OpCode::Reduce || producer->code() == OpCode::Scan) {
      if (producer->numOperands() != 1 || producer->numResults() != 1)
        return false;
    } else if (!isRematerialisable(*producer) &&
               !(producer->code() == OpCode::Load && isReissuableLoad(*producer, root))) {
      return false;
    }
    LayoutPtr wanted = operandLayoutFor(*producer, layout);
    if (!wanted)
      return false;
    for (Value *operand : producer->operands())
      if (!addToWideSlice(operand, wanted, *producer, root, depth - 1, slice))
        return false;
    return true;
  }

  static int64_t bytesOf(const Value *v, int64_t minElements = 0, int64_t minBits = 0) {
    const tir::Type &type = v->type();
    int64_t elements = std::max<int64_t>(type.isTensor() ? type.numElements() : 1, minElements);
    int64_t bits = std::max<int64_t>(type.elem.bits(), minBits);
    return elements * bits / 8;
  }

  /// Triton's isExpensiveMathOp: several instructions, or the special function unit.
  static bool isExpensiveMath(const Operation &op) {
    switch (op.code()) {
    case OpCode::Div:
      return op.result()->type().elem.isFloat();
    case OpCode::Exp:
    case OpCode::Exp2:
    case OpCode::Log:
    case OpCode::Log2:
    case OpCode::Sqrt:
    case OpCode::Rsqrt:
    case OpCode::Sin:
    case OpCode::Cos:
    case OpCode::Erf:
      return true;
    default:
      return false;
    }
  }

  /// What recomputing `op` costs in Triton's model (isRematBeneficial), in its milli-cycles.
  static int64_t rematerialisationCost(const Operation &op) {
    switch (op.code()) {
    case OpCode::Constant:
    case OpCode::AddPtr: // Triton's own ops, not arith or math: free in its model
    case OpCode::Bitcast:
    case OpCode::MulHi:
    case OpCode::Libdevice:
      return 0;
    case OpCode::Load:
      return 8 * bytesOf(op.result());
    case OpCode::Reduce: {
      // The lanes and the warps along the axis, as the reduction's lowering combines them.
      LayoutPtr source = layoutOf(op.operand(0));
      auto axis = static_cast<unsigned>(op.intAttr("axis"));
      if (!source || source->kind != LayoutKind::Blocked || axis >= source->rank())
        return 0;
      return source->threadsPerWarp[axis] + 8 * int64_t(source->warpsPerCTA[axis]);
    }
    default:
      break;
    }
    if (!tir::isElementwise(op.code()))
      return 0;
    int64_t cost = 0;
    for (unsigned r = 0; r < op.numResults(); ++r)
      cost += (isExpensiveMath(op) ? 8 : 1) * bytesOf(op.result(r));
    return cost;
  }

  /// Triton's isRematBeneficial: the ops of the slice whose results are also used outside it
  /// stay, so their copies cost; the conversion costs a round trip through shared memory.
  bool isWorthRematerialising(const Operation &root, const WideSlice &slice) {
    std::set<const Value *> stay;
    std::vector<const Value *> work;
    for (const auto &entry : slice.layout) {
      const Value *v = entry.first;
      bool outside = slice.reused.count(v) != 0; // the kept conversion has users of its own
      for (Operation *user : uses_->usersOf(v))
        outside |= user != &root && !slice.ops.count(user);
      if (outside && stay.insert(v).second)
        work.push_back(v);
    }
    while (!work.empty()) {
      const Value *v = work.back();
      work.pop_back();
      const Operation *producer = v->definingOp();
      if (!producer || slice.reused.count(v))
        continue;
      for (const Value *operand : producer->operands())
        if (slice.layout.count(operand) && stay.insert(operand).second)
          work.push_back(operand);
    }
    int64_t cost = 0;
    for (const Operation *op : slice.ops) {
      bool stays = false;
      for (unsigned r = 0; r < op->numResults(); ++r)
        stays |= stay.count(op->result(r)) != 0;
      if (stays)
        cost += rematerialisationCost(*op);
    }
    // (Triton prices a conversion that only reorders each thread's registers at zero; that case
    // is not told apart here.)
    int64_t conversionCost = 32 * bytesOf(root.operand(0), 32, 32);
    return conversionCost >= cost;
  }

  /// The copy of `v` in `layout` for the wide slice: each op copied right before the op it
  /// copies, as Triton's rewriteSlice places them; a kept conversion moved right after the
  /// definition of what it converts.
  Value *rematerialiseWide(Value *v, const LayoutPtr &layout, const WideSlice &slice,
                           std::map<const Value *, Value *> &done) {
    if (!v->type().isTensor())
      return v;
    if (Value *available = availableIn(v, layout))
      return available;
    if (auto it = done.find(v); it != done.end())
      return it->second;
    Operation *producer = v->definingOp();
    tir::Block *block = producer->parentBlock();
    if (auto it = slice.reused.find(v); it != slice.reused.end()) {
      Operation *kept = it->second;
      std::unique_ptr<Operation> moved = block->remove(kept);
      block->insert(std::next(block->find(producer)), std::move(moved));
      done[v] = kept->result();
      return kept->result();
    }
    if (pipelinedLoads_.count(producer)) {
      // Triton reads the tile from shared memory again in `layout`; the same values come from
      // converting the load right after it, once for every slice that reads them there.
      for (Operation *c : uses_->usersOf(v))
        if (c->code() == OpCode::ConvertLayout && c->parentBlock() == block && c->operand(0) == v &&
            sameLayout(layoutOf(c->result()), layout)) {
          std::unique_ptr<Operation> moved = block->remove(c); // (right after the load)
          block->insert(std::next(block->find(producer)), std::move(moved));
          done[v] = c->result();
          return c->result();
        }
      tir::Builder b;
      b.restoreInsertionPoint({block, std::next(block->find(producer))});
      b.setLoc(producer->loc());
      Value *converted = createConversion(b, v, *v, layout);
      done[v] = converted;
      return converted;
    }
    std::vector<Value *> operands;
    if (producer->code() == OpCode::ConvertLayout) {
      operands.push_back(producer->operand(0));
    } else {
      LayoutPtr wanted = operandLayoutFor(*producer, layout);
      for (Value *operand : producer->operands())
        operands.push_back(rematerialiseWide(operand, wanted, slice, done));
    }
    tir::Builder b;
    b.restoreInsertionPoint({block, block->find(producer)});
    b.setLoc(producer->loc());
    Operation *copy = cloneOp(b, *producer, operands, {v->type().withLayout(layout)});
    uses_->addUser(*copy);
    copy->result()->setNameHint(v->nameHint());
    done[v] = copy->result();
    return copy->result();
  }

  /// The wide slice of `convert` rematerialised, when Triton's cost model takes it.
  bool rematerialiseWideSlice(Operation &convert) {
    Value *source = convert.operand(0);
    LayoutPtr target = layoutOf(convert.result());
    WideSlice slice;
    if (!addToWideSlice(source, target, convert, convert, kMaxRematerialisationDepth, slice) ||
        !isWorthRematerialising(convert, slice))
      return false;
    std::map<const Value *, Value *> done;
    Value *replacement = rematerialiseWide(source, target, slice, done);
    uses_->replaceAllUses(convert.result(), replacement);
    return true;
  }

  /// The value `v` already in `layout` without a conversion, or null.
  static Value *availableIn(Value *v, const LayoutPtr &layout) {
    if (sameLayout(layoutOf(v), layout))
      return v;
    Operation *producer = v->definingOp();
    if (producer && producer->code() == OpCode::ConvertLayout &&
        sameLayout(layoutOf(producer->operand(0)), layout))
      return producer->operand(0);
    return nullptr;
  }

  /// With `convertLeaves`, whether `v` is converted itself rather than recomputed: it is below a
  /// broadcast of the tree (`belowBroadcast`), not made by another broadcast or expand_dims.
  static bool isConvertedLeaf(const Value *v, bool convertLeaves, bool belowBroadcast) {
    if (!convertLeaves || !belowBroadcast)
      return false;
    const Operation *producer = v->definingOp();
    return !producer ||
           (producer->code() != OpCode::Broadcast && producer->code() != OpCode::ExpandDims);
  }

  /// Whether LLVM keeps the lowering of `op` where it is: a call it may not speculate (the
  /// ex2.approx of exp and exp2, sqrt.approx, rsqrt.approx, the inline div.full.f32), which
  /// Reassociate then ranks by its position like a load, ordering the operands of the adds it feeds
  /// by that rank (see SinkConversions.cpp). Copies of other operations may go anywhere their
  /// operands allow.
  static bool staysInPlace(const Operation &op) {
    switch (op.code()) {
    case OpCode::Exp:
    case OpCode::Exp2:
    case OpCode::Rsqrt:
      return true;
    case OpCode::Sqrt:
      return !op.hasAttr("ieee");
    case OpCode::Div:
      return op.result()->type().elem.kind == tir::ScalarKind::F32 &&
             !(op.hasAttr("rounding") && op.strAttr("rounding") == "rn");
    default:
      return false;
    }
  }

  /// Whether a copy of `producer` reading `operands` may go right before `producer`, where
  /// Triton's rewriteSlice puts each copy: `producer` comes before `before` in its block or in a
  /// block holding it, and each operand is available there. fla's gsa inference kernel computes
  /// b_g = exp(load) once per layout of its two outer products, both at the top as Triton; the
  /// copy made at the second product's conversion ranked after that product's loads and took
  /// the other multiply of b_hk * b_g + b_k * b_s into the FMA.
  static bool canPrecede(const std::vector<Value *> &operands, const Operation &producer,
                         const Operation *before) {
    if (!dominates(&producer, before))
      return false;
    for (const Value *operand : operands) {
      if (const Operation *definition = operand->definingOp()) {
        if (!dominates(definition, &producer))
          return false;
        continue;
      }
      // A region argument: of the block of `producer` or of one holding it.
      const tir::Block *block = producer.parentBlock();
      while (block && block != operand->ownerBlock())
        block = block->parentOp() ? block->parentOp()->parentBlock() : nullptr;
      if (!block)
        return false;
    }
    return true;
  }

  bool canRematerialise(Value *v, const LayoutPtr &layout, const Operation *before, unsigned depth,
                        bool convertLeaves, bool belowBroadcast) {
    if (!v->type().isTensor() || availableIn(v, layout))
      return true;
    if (isConvertedLeaf(v, convertLeaves, belowBroadcast))
      return layoutOf(v) && v->type().numElements() < before->operand(0)->type().numElements();
    Operation *producer = v->definingOp();
    // A loop's result ends Triton's slice (getConvertBackwardSlice) before an existing
    // conversion of it is looked for (see addToWideSlice).
    if (foldConversions_ && producer &&
        (producer->code() == OpCode::For || producer->code() == OpCode::While))
      return false;
    if (foldConversions_ && !convertLeaves && existingConversion(v, layout, before))
      return true;
    if (foldConversions_ && producer && producer->code() == OpCode::ConvertLayout &&
        !convertLeaves && producer != before)
      return foldsInto(*producer, layout);
    if (depth == 0)
      return false;
    if (!producer)
      return canRematerialiseCarried(v, layout, depth - 1);
    bool cheapLoad = producer->code() == OpCode::Load && isCheapLoadBefore(*producer, before);
    if (!cheapLoad && !isRematerialisable(*producer))
      return false;
    if (convertLeaves && !belowBroadcast && producer->code() == OpCode::Broadcast &&
        !canRematerialise(producer->operand(0), operandLayoutFor(*producer, layout), before,
                          depth - 1, false, false)) {
      // Triton hoists a conversion over one broadcast only (hoistConvertOnTopOfExtOrBroadcast:
      // a second would duplicate the conversion); with two it keeps the conversion where it is.
      // Rotary embeddings' q0 * sin1 + q1 * cos1 then runs in cos's layout, converted for the
      // store, and LLVM ranks cos1 and sin1 by where they are loaded, which picks the product the
      // add fuses.
      unrecomputedBroadcasts_.insert(producer);
      if (unrecomputedBroadcasts_.size() > 1)
        return false;
    }
    belowBroadcast |= producer->code() == OpCode::Broadcast;
    for (unsigned i = 0; i < producer->numOperands(); ++i)
      if (!canRematerialise(producer->operand(i), operandLayoutFor(*producer, layout), before,
                            depth - 1, convertLeaves, belowBroadcast))
        return false;
    return true;
  }

  /// The `for` loop that carries `v` (a region argument of its body but the induction variable),
  /// or null.
  static Operation *carryingLoop(const Value *v) {
    if (!v->isBlockArgument() || v->index() == 0)
      return nullptr;
    Operation *loop = v->ownerBlock()->parentOp();
    return loop && loop->code() == OpCode::For ? loop : nullptr;
  }

  /// The region argument that `arg` is a copy of (rematerialiseCarried), else `arg`: a copy in
  /// yet another layout copies the original, and one in the original's layout is the original.
  Value *originalCarried(Value *arg) const {
    auto it = carriedOriginals_.find(arg);
    return it == carriedOriginals_.end() ? arg : it->second;
  }

  /// Whether the loop that carries `arg` can carry it in `layout` too: its initial value
  /// recomputed before the loop, its next value before the body's yield.
  bool canRematerialiseCarried(Value *arg, const LayoutPtr &layout, unsigned depth) {
    arg = originalCarried(arg);
    if (sameLayout(layoutOf(arg), layout))
      return true;
    Operation *loop = carryingLoop(arg);
    if (!loop)
      return false;
    auto key = std::make_pair(static_cast<const Value *>(arg), layout->str());
    if (carriedCopies_.count(key) || carriedBeingChecked_.count(key))
      return true; // (its next value reads it)
    unsigned i = arg->index() - 1;
    Operation *yield = arg->ownerBlock()->terminator();
    carriedBeingChecked_.insert(key);
    bool can = canRematerialise(loop->operand(3 + i), layout, loop, depth, false, false) &&
               canRematerialise(yield->operand(i), layout, yield, depth, false, false);
    carriedBeingChecked_.erase(key);
    return can;
  }

  /// The copy in `layout` of the loop-carried `arg`: a new value the loop carries, from the
  /// initial value recomputed before the loop, to the next value recomputed before the yield.
  /// Each gets copies of its own (`done` holds copies placed before another operation, which
  /// need not dominate these places).
  Value *rematerialiseCarried(Value *arg, const LayoutPtr &layout) {
    arg = originalCarried(arg);
    if (sameLayout(layoutOf(arg), layout))
      return arg;
    auto key = std::make_pair(static_cast<const Value *>(arg), layout->str());
    if (auto it = carriedCopies_.find(key); it != carriedCopies_.end())
      return it->second;
    Operation *loop = carryingLoop(arg);
    tir::Block &body = *arg->ownerBlock();
    Operation *yield = body.terminator();
    unsigned i = arg->index() - 1;
    tir::Type type = arg->type().withLayout(layout);

    Copies beforeLoop;
    uses_->addOperand(
        *loop, rematerialise(loop->operand(3 + i), layout, loop, beforeLoop, false, false, false));
    Value *copy = body.addArgument(type);
    copy->setNameHint(arg->nameHint());
    carriedCopies_[key] = copy;
    carriedOriginals_[copy] = arg;
    // The copy's yield operand and result take their places now, before the next value is
    // recomputed: that may carry other arguments in the layout too (a ratio of two carried
    // scales, `ratio = scale / next_scale`), whose arguments, yield operands and results come
    // after this one's.
    const unsigned slot = yield->numOperands();
    uses_->addOperand(*yield, copy);
    loop->addResult(type)->setNameHint(loop->result(i)->nameHint());
    Copies beforeYield;
    uses_->setOperand(
        *yield, slot,
        rematerialise(yield->operand(i), layout, yield, beforeYield, false, false, false));
    loopsCarryingCopies_.insert(loop);
    return copy;
  }

  /// Copies of `v`'s producers in `layout`, inserted before `before`; or, with `atOriginals`,
  /// each right after the operation it copies. A load issued again is placed so, its address
  /// computation with it, as Triton's rematerialisation places copies: the load keeps its place
  /// among the loads, and LLVM ranks an add's operands by where the unmovable instructions
  /// (loads among them) are (see SinkConversions.cpp): Liger's rope fused another product than
  /// Triton when cos was loaded again after q.
  Value *rematerialise(Value *v, const LayoutPtr &layout, Operation *before, Copies &done,
                       bool atOriginals, bool convertLeaves, bool belowBroadcast) {
    if (!v->type().isTensor())
      return v;
    if (Value *available = availableIn(v, layout))
      return available;
    auto key = std::make_tuple(static_cast<const Value *>(v), layout->str(), atOriginals);
    if (auto it = done.find(key); it != done.end())
      return it->second;
    if (!atOriginals)
      if (auto it = madeCopies_.find({v, layout->str()}); it != madeCopies_.end())
        for (Value *copy : it->second)
          if (dominates(copy, before))
            return done[key] = copy;
    Operation *producer = v->definingOp();
    if (foldConversions_ && !convertLeaves)
      if (Value *existing = existingConversion(v, layout, before))
        if (!atOriginals || dominates(existing->definingOp(), producer))
          return existing;
    if (foldConversions_ && producer && producer->code() == OpCode::ConvertLayout &&
        !convertLeaves && producer != before) {
      tir::Builder b;
      tir::Block *block = producer->parentBlock();
      b.restoreInsertionPoint({block, std::next(block->find(producer))});
      b.setLoc(producer->loc());
      Value *converted = createConversion(b, producer->operand(0), *v, layout);
      done[key] = converted;
      return converted;
    }
    if (!producer && !isConvertedLeaf(v, convertLeaves, belowBroadcast))
      return rematerialiseCarried(v, layout);
    if (isConvertedLeaf(v, convertLeaves, belowBroadcast)) {
      // At the conversion it replaces; but the copies of a load's tree go right after what they
      // copy, before that conversion, so there the leaf is converted where it is defined (a
      // varlen recurrence's `mask = (start < end) & mask_h[None, :]`, loaded under again).
      tir::Builder b;
      if (!atOriginals) {
        b.setInsertionPoint(before);
      } else if (Operation *definition = v->definingOp()) {
        tir::Block *block = definition->parentBlock();
        b.restoreInsertionPoint({block, std::next(block->find(definition))});
      } else {
        tir::Block *block = v->ownerBlock();
        b.restoreInsertionPoint({block, block->ops().begin()});
      }
      b.setLoc(before->loc());
      Value *converted = createConversion(b, v, *v, layout);
      done[key] = converted;
      return converted;
    }
    atOriginals |= producer->code() == OpCode::Load;
    belowBroadcast |= producer->code() == OpCode::Broadcast;
    std::vector<Value *> operands;
    for (unsigned i = 0; i < producer->numOperands(); ++i)
      operands.push_back(rematerialise(producer->operand(i), operandLayoutFor(*producer, layout),
                                       before, done, atOriginals, convertLeaves, belowBroadcast));
    tir::Builder b;
    if (atOriginals) {
      tir::Block *block = producer->parentBlock();
      b.restoreInsertionPoint({block, std::next(block->find(producer))});
    } else if (staysInPlace(*producer) && canPrecede(operands, *producer, before)) {
      tir::Block *block = producer->parentBlock();
      b.restoreInsertionPoint({block, block->find(producer)});
    } else {
      b.setInsertionPoint(before);
    }
    b.setLoc(producer->loc());
    Operation *clone = b.create(producer->code(), operands, {v->type().withLayout(layout)});
    uses_->addUser(*clone);
    for (const auto &[name, value] : producer->attrs())
      clone->setAttr(name, value);
    clone->result()->setNameHint(v->nameHint());
    done[key] = clone->result();
    madeCopies_[{v, layout->str()}].push_back(clone->result());
    return clone->result();
  }
};

} // namespace

void runRemoveRedundantConversions(tir::Function &function) {
  ConversionRemover(function).run();
}

} // namespace tilec::gpu
