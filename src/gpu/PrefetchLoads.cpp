// PrefetchLoads: the loads of a `for` loop issued one iteration ahead, into registers.
//
// A memory-bound loop (a sum down the rows of a column block, a norm's passes over a long row)
// cannot add an iteration's tile before its loads return: one DRAM round trip per iteration, with
// nothing else in flight when the grid is small. Here each such load is issued for the next
// iteration at the top of the body, so that it is in flight while the body works on the tile
// loaded one iteration earlier:
//
//   before     x = load(p(lb), mask(lb) & lb < ub)
//   loop i     x' = load(p(i + step), mask(i + step) & i + step < ub)
//              ... the body, which reads x ...
//              yield ..., x'
//
// It is the register form of SoftwarePipeliner's shared-memory ring (which only takes the tiles
// of tensor-core dots), and reuses its idea: the ops that compute the load's pointer, mask and
// `other` from the induction variable and loop-carried values (the load slice) are cloned for the
// next iteration, and the loop-carried values the slice reads travel one iteration ahead as extra
// iteration arguments. The loaded values are exactly those of the loop as written: a loop is left
// alone when anything in it (nested regions included) has side effects (a store, an atomic, a
// barrier: a store the early load could pass), and so is a slice with loads of its own.
//
// Also left alone: a step that is not a positive constant, volatile loads, loops whose num_stages
// is 1 (the kernel's or tl.range's: no pipelining asked for), and loads beyond a register budget,
// since the tile is held twice (the one in use and the one in flight).
//
// Only loops that move a large tile with wide accesses are rewritten: at least 64 bytes per
// thread and iteration, in accesses of 8 bytes or more. Measured on an H200 (bench/suite.py):
// column sums, 128 x 32 fp32 tiles of 16-byte loads on a grid smaller than the GPU, ran 3.4-4x
// faster than before (and than Triton); but loops of 32 bytes per thread (row sums, group norm,
// many programs per SM) ran 5-17 % slower, and so did loops of scalar accesses (a matrix whose
// rows are not 16-byte aligned), where the extra addresses and predicates of the next iteration
// cost more issue slots than the overlap gains.
#include "analysis/AxisInfo.h"
#include "gpu/PassUtils.h"
#include "gpu/Passes.h"
#include "tir/Builder.h"
#include "tir/Passes.h"

#include <map>
#include <optional>
#include <set>

namespace tilec::gpu {
namespace {

using tir::Block;
using tir::Builder;
using tir::OpCode;
using tir::Operation;
using tir::Type;
using tir::Value;

/// Bytes per thread the prefetched tiles of one loop may take: 32 registers.
constexpr int64_t kRegisterBudgetBytes = 128;
/// The least a loop must load per thread and iteration, and the narrowest access, to be worth it.
constexpr int64_t kMinimumBytesPerIteration = 64;
constexpr unsigned kMinimumAccessBytes = 8;

Value *mapped(const std::map<const Value *, Value *> &map, Value *value) {
  auto it = map.find(value);
  return it == map.end() ? value : it->second;
}

class LoopPrefetcher {
public:
  LoopPrefetcher(tir::Function &function, Operation &loop,
                 const analysis::AxisInfoAnalysis &axis)
      : function_(function), loop_(loop), body_(loop.region(0).block()), axis_(axis) {}

  void run() {
    const Operation *stepDef = loop_.operand(2)->definingOp();
    if (!stepDef || stepDef->code() != OpCode::Constant)
      return;
    auto *step = std::get_if<int64_t>(&stepDef->attr("value"));
    if (!step || *step <= 0 || tir::hasSideEffects(loop_))
      return;
    if (!findCandidates() || !buildSlice())
      return;
    rewrite();
  }

private:
  tir::Function &function_;
  Operation &loop_;
  Block &body_;
  const analysis::AxisInfoAnalysis &axis_;
  std::vector<Operation *> candidates_;
  std::set<const Operation *> slice_;
  /// Iteration arguments (body argument index >= 1) the slice reads, in order.
  std::vector<unsigned> carried_;

  /// Bytes of one access of `load`: its vector along the layout's fastest dimension.
  unsigned accessBytes(const Operation &load) const {
    const Type &type = load.result()->type();
    if (type.layout->kind != LayoutKind::Blocked)
      return type.elem.bytes();
    unsigned fastest = type.layout->order[0];
    unsigned vec =
        std::min(type.layout->sizePerThread[fastest], axis_.vectorWidth(load.operand(0), fastest));
    if (load.numOperands() >= 2)
      vec = std::min(vec, axis_.maskConstancy(load.operand(1), fastest));
    return std::max(1u, vec) * type.elem.bytes();
  }

  /// The loads to issue ahead; false when the loop is not worth it (see the file comment).
  bool findCandidates() {
    int64_t bytes = 0;
    const int64_t threads = int64_t(function_.numWarps) * 32;
    for (auto &opPtr : body_.ops()) {
      Operation &load = *opPtr;
      if (load.code() != OpCode::Load)
        continue;
      const Type &type = load.result()->type();
      if (!type.isTensor() || !type.layout ||
          (load.hasAttr("volatile") && load.boolAttr("volatile")))
        continue;
      int64_t elements = 1;
      for (int64_t d : type.shape)
        elements *= d;
      int64_t perThread = std::max<int64_t>(1, elements / threads) * type.elem.bytes();
      if (bytes + perThread > kRegisterBudgetBytes || accessBytes(load) < kMinimumAccessBytes)
        continue;
      bytes += perThread;
      candidates_.push_back(&load);
    }
    return bytes >= kMinimumBytesPerIteration;
  }

  /// The ops of the body that compute the candidates' operands, closed over the loop-carried
  /// values they read (with what the loop yields for them); false when they cannot be cloned
  /// into another iteration.
  bool buildSlice() {
    std::vector<Value *> work;
    for (Operation *load : candidates_)
      for (Value *operand : load->operands())
        work.push_back(operand);
    std::set<unsigned> carried;
    while (!work.empty()) {
      Value *v = work.back();
      work.pop_back();
      if (v->isBlockArgument()) {
        if (v->ownerBlock() != &body_ || v->index() == 0 || !carried.insert(v->index()).second)
          continue;
        work.push_back(body_.terminator()->operand(v->index() - 1));
        continue;
      }
      Operation *op = v->definingOp();
      if (op->parentBlock() != &body_ || slice_.count(op))
        continue;
      if (op->numRegions() > 0 || op->code() == OpCode::Load || op->code() == OpCode::Dot ||
          op->code() == OpCode::LocalLoad)
        return false;
      slice_.insert(op);
      for (Value *operand : op->operands())
        work.push_back(operand);
    }
    carried_.assign(carried.begin(), carried.end());
    return true;
  }

  /// Clones the slice at `builder` for the iteration whose induction variable is `iv` and whose
  /// loop-carried values are `state`.
  std::map<const Value *, Value *> cloneSlice(Builder &builder, Value *iv,
                                              const std::vector<Value *> &state) {
    std::map<const Value *, Value *> map;
    map[body_.argument(0)] = iv;
    for (size_t i = 0; i < carried_.size(); ++i)
      map[body_.argument(carried_[i])] = state[i];
    for (auto &opPtr : body_.ops()) {
      Operation &op = *opPtr;
      if (!slice_.count(&op))
        continue;
      std::vector<Value *> operands;
      for (Value *operand : op.operands())
        operands.push_back(mapped(map, operand));
      std::vector<Type> types;
      for (unsigned r = 0; r < op.numResults(); ++r)
        types.push_back(op.result(r)->type());
      builder.setLoc(op.loc());
      Operation *clone = builder.create(op.code(), operands, types);
      for (const auto &[key, value] : op.attrs())
        clone->setAttr(key, value);
      for (unsigned r = 0; r < op.numResults(); ++r)
        map[op.result(r)] = clone->result(r);
    }
    return map;
  }

  /// The candidates' loads for iteration `iv`, off where it is past the loop's end.
  std::vector<Value *> issueLoads(Builder &builder, const std::map<const Value *, Value *> &map,
                                  Value *iv) {
    Value *inRange = builder.cmp("lt", iv, loop_.operand(1));
    std::vector<Value *> loaded;
    for (Operation *load : candidates_) {
      builder.setLoc(load->loc());
      Type maskType = load->numOperands() >= 2
                          ? load->operand(1)->type()
                          : load->result()->type().withElem(tir::DType::scalar(tir::ScalarKind::I1));
      Value *mask = builder.createValue(OpCode::Splat, {inRange}, maskType);
      if (load->numOperands() >= 2)
        mask = builder.createValue(OpCode::And, {mapped(map, load->operand(1)), mask}, maskType);
      std::vector<Value *> operands{mapped(map, load->operand(0)), mask};
      if (load->numOperands() >= 3)
        operands.push_back(mapped(map, load->operand(2)));
      Operation *copy = builder.create(OpCode::Load, operands, {load->result()->type()});
      for (const auto &[key, value] : load->attrs())
        copy->setAttr(key, value);
      copy->result()->setNameHint(load->result()->nameHint());
      loaded.push_back(copy->result());
    }
    return loaded;
  }

  void rewrite() {
    Value *lb = loop_.operand(0), *step = loop_.operand(2);
    Builder before;
    before.setInsertionPoint(&loop_);
    before.setLoc(loop_.loc());

    // Iteration lb's tiles before the loop; the carried state one iteration ahead.
    std::vector<Value *> state;
    for (unsigned index : carried_)
      state.push_back(loop_.operand(3 + index - 1));
    auto first = cloneSlice(before, lb, state);
    std::vector<Value *> firstTiles = issueLoads(before, first, lb);
    for (size_t i = 0; i < carried_.size(); ++i)
      state[i] = mapped(first, body_.terminator()->operand(carried_[i] - 1));

    std::vector<Value *> tiles, ahead;
    for (Value *tile : firstTiles) {
      loop_.addOperand(tile);
      tiles.push_back(body_.addArgument(tile->type()));
      loop_.addResult(tile->type());
    }
    for (Value *value : state) {
      loop_.addOperand(value);
      ahead.push_back(body_.addArgument(value->type()));
      loop_.addResult(value->type());
    }

    // Top of the body: the next iteration's loads; this iteration reads the carried tiles.
    Builder top;
    top.setInsertionPoint(body_.ops().front().get());
    top.setLoc(loop_.loc());
    Value *next = top.binary(OpCode::Add, body_.argument(0), step);
    auto map = cloneSlice(top, next, ahead);
    std::vector<Value *> nextTiles = issueLoads(top, map, next);
    for (size_t i = 0; i < candidates_.size(); ++i) {
      replaceAllUses(function_, candidates_[i]->result(), tiles[i]);
      body_.remove(candidates_[i]);
    }
    Operation *yield = body_.terminator();
    for (Value *tile : nextTiles)
      yield->addOperand(tile);
    for (size_t i = 0; i < carried_.size(); ++i)
      yield->addOperand(mapped(map, yield->operand(carried_[i] - 1)));
  }
};

} // namespace

void runPrefetchLoads(tir::Function &function) {
  std::vector<Operation *> loops;
  tir::walk(function, [&](Operation &op) {
    if (op.code() != OpCode::For)
      return;
    unsigned stages = op.hasAttr("num_stages") ? static_cast<unsigned>(op.intAttr("num_stages"))
                                               : function.numStages;
    if (stages >= 2)
      loops.push_back(&op);
  });
  if (loops.empty())
    return;
  analysis::AxisInfoAnalysis axis(function);
  for (Operation *loop : loops)
    LoopPrefetcher(function, *loop, axis).run();
}

} // namespace tilec::gpu
