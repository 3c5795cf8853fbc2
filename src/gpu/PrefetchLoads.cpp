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
// of tensor-core dots), and works the same way: the ops that compute the load's pointer, mask and
// `other` from the induction variable and loop-carried values (the LoopSlice) are cloned for the
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
#include "gpu/LoopSlice.h"
#include "gpu/PassUtils.h"
#include "gpu/Passes.h"
#include "tir/Builder.h"
#include "tir/Passes.h"

#include <map>
#include <optional>

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

class LoopPrefetcher {
public:
  LoopPrefetcher(tir::Function &function, Operation &loop,
                 const analysis::AxisInfoAnalysis &axis)
      : function_(function), loop_(loop), body_(loop.region(0).block()), axis_(axis) {}

  void run() {
    if (!tir::hasPositiveConstantStep(loop_) || tir::hasSideEffects(loop_))
      return;
    if (!findCandidates())
      return;
    std::vector<Value *> roots;
    for (Operation *load : candidates_)
      roots.insert(roots.end(), load->operands().begin(), load->operands().end());
    slice_ = LoopSlice::build(body_, roots);
    if (slice_)
      rewrite();
  }

private:
  tir::Function &function_;
  Operation &loop_;
  Block &body_;
  const analysis::AxisInfoAnalysis &axis_;
  std::vector<Operation *> candidates_;
  /// What computes the candidates' operands, cloned for the next iteration.
  std::optional<LoopSlice> slice_;

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
        mask = builder.createValue(OpCode::And, {LoopSlice::mapped(map, load->operand(1)), mask},
                                   maskType);
      std::vector<Value *> operands{LoopSlice::mapped(map, load->operand(0)), mask};
      if (load->numOperands() >= 3)
        operands.push_back(LoopSlice::mapped(map, load->operand(2)));
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
    const std::vector<unsigned> &carried = slice_->carried();
    std::vector<Value *> state;
    for (unsigned index : carried)
      state.push_back(loop_.operand(3 + index - 1));
    auto first = slice_->clone(before, lb, state);
    std::vector<Value *> firstTiles = issueLoads(before, first, lb);
    for (size_t i = 0; i < carried.size(); ++i)
      state[i] = LoopSlice::mapped(first, body_.terminator()->operand(carried[i] - 1));

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
    auto map = slice_->clone(top, next, ahead);
    std::vector<Value *> nextTiles = issueLoads(top, map, next);
    for (size_t i = 0; i < candidates_.size(); ++i) {
      replaceAllUses(function_, candidates_[i]->result(), tiles[i]);
      body_.remove(candidates_[i]);
    }
    Operation *yield = body_.terminator();
    for (Value *tile : nextTiles)
      yield->addOperand(tile);
    for (size_t i = 0; i < carried.size(); ++i)
      yield->addOperand(LoopSlice::mapped(map, yield->operand(carried[i] - 1)));
  }
};

} // namespace

void runPrefetchLoads(tir::Function &function) {
  std::vector<std::pair<Operation *, unsigned>> loops = pipelinedLoops(function);
  if (loops.empty())
    return;
  analysis::AxisInfoAnalysis axis(function);
  for (const auto &loop : loops) // prefetch-loads issues one iteration ahead, whatever the count
    LoopPrefetcher(function, *loop.first, axis).run();
}

} // namespace tilec::gpu
