#include "gpu/LoopSlice.h"

#include "analysis/AxisInfo.h"
#include "gpu/Layout.h"
#include "gpu/PassUtils.h"
#include "tir/Passes.h"

#include <functional>
#include <map>

namespace tilec::gpu {

using tir::OpCode;
using tir::Operation;
using tir::Value;

std::optional<LoopSlice> LoopSlice::build(tir::Block &body, const std::vector<Value *> &roots) {
  LoopSlice slice(body);
  std::vector<Value *> work(roots.begin(), roots.end());
  std::set<unsigned> carried;
  while (!work.empty()) {
    Value *v = work.back();
    work.pop_back();
    if (v->isBlockArgument()) {
      if (v->ownerBlock() != &body || v->index() == 0 || !carried.insert(v->index()).second)
        continue;
      work.push_back(body.terminator()->operand(v->index() - 1));
      continue;
    }
    Operation *op = v->definingOp();
    if (op->parentBlock() != &body || slice.ops_.count(op))
      continue;
    if (op->numRegions() > 0 || op->code() == OpCode::Load || tir::hasSideEffects(*op) ||
        op->code() == OpCode::Dot || op->code() == OpCode::LocalLoad)
      return std::nullopt;
    slice.ops_.insert(op);
    for (Value *operand : op->operands())
      work.push_back(operand);
  }
  slice.carried_.assign(carried.begin(), carried.end());
  return slice;
}

std::map<const Value *, Value *> LoopSlice::clone(tir::Builder &builder, Value *iv,
                                                  const std::vector<Value *> &state) const {
  std::map<const Value *, Value *> map;
  map[body_->argument(0)] = iv;
  for (size_t i = 0; i < carried_.size(); ++i)
    map[body_->argument(carried_[i])] = state[i];
  for (auto &opPtr : body_->ops()) {
    Operation &op = *opPtr;
    if (!ops_.count(&op))
      continue;
    std::vector<Value *> operands;
    for (Value *operand : op.operands())
      operands.push_back(mapped(map, operand));
    std::vector<tir::Type> types;
    for (unsigned r = 0; r < op.numResults(); ++r)
      types.push_back(op.result(r)->type());
    builder.setLoc(op.loc());
    Operation *copy = builder.create(op.code(), operands, types);
    for (const auto &[key, value] : op.attrs())
      copy->setAttr(key, value);
    for (unsigned r = 0; r < op.numResults(); ++r)
      map[op.result(r)] = copy->result(r);
  }
  return map;
}

Value *LoopSlice::mapped(const std::map<const Value *, Value *> &map, Value *value) {
  auto it = map.find(value);
  return it == map.end() ? value : it->second;
}

std::vector<std::pair<Operation *, unsigned>> pipelinedLoops(tir::Function &function) {
  std::vector<std::pair<Operation *, unsigned>> loops;
  tir::walk(function, [&](Operation &op) {
    if (op.code() != OpCode::For)
      return;
    unsigned stages = op.hasAttr("num_stages") ? static_cast<unsigned>(op.intAttr("num_stages"))
                                               : function.numStages;
    if (stages >= 2)
      loops.push_back({&op, stages});
  });
  return loops;
}

/// How many consecutive elements of `ptr` (a tensor of pointers) along its layout's fastest
/// dimension one thread can access at once (Triton's ModuleAxisInfoAnalysis::getContiguity):
/// the elements per thread along it, limited by the pointers' contiguity and alignment, and by
/// the mask's constancy (getMaskAlignment).
static unsigned accessWidth(const analysis::AxisInfoAnalysis &axis, const Value *ptr,
                            const Value *mask) {
  LayoutPtr layout = layoutOf(ptr);
  if (!layout || !ptr->type().isTensor())
    return 1;
  // A slice keeps its parent's order and elements per thread, less the dimension it lost.
  std::vector<unsigned> perThread, order;
  if (layout->kind == LayoutKind::Slice) {
    if (!layout->parent || layout->parent->kind != LayoutKind::Blocked)
      return 1;
    for (unsigned d = 0; d < layout->parent->rank(); ++d)
      if (d != layout->dim)
        perThread.push_back(layout->parent->sizePerThread[d]);
    for (unsigned d : layout->parent->order)
      if (d != layout->dim)
        order.push_back(d > layout->dim ? d - 1 : d);
  } else {
    perThread = layout->sizePerThread;
    order = layout->order;
  }
  if (order.empty())
    return 1;
  unsigned fastest = order[0];
  const auto &shape = ptr->type().shape;
  int64_t width = std::min<int64_t>(perThread[fastest], shape[fastest]);
  analysis::AxisInfo facts = axis.info(ptr);
  if (fastest < facts.rank()) {
    int64_t elemBytes = std::max(1u, ptr->type().elem.pointeeType().bytes());
    int64_t aligned = std::max<int64_t>(1, facts.divisibility[fastest] / elemBytes);
    width = std::min({width, facts.contiguity[fastest], aligned});
  } else {
    width = 1;
  }
  if (mask)
    width = std::min<int64_t>(width, axis.maskConstancy(mask, fastest));
  return static_cast<unsigned>(std::max<int64_t>(1, width));
}

/// The loads Triton's software pipeliner turns into asynchronous copies to shared memory (its
/// AssignLatencies): in a loop that asks for num_stages >= 2, holds no other loop and yields no
/// value it did not compute (a distance of more than one iteration), the loads that the
/// operands of its dots (not their accumulators) reach backwards through the ops of the loop's
/// body, each at one indirection level (how many loads lie between it and the dot) below
/// num_stages - 1, and accessed in at least 32 bits at a time (isSmallLoad). Each iteration then
/// reads such a tile from shared memory, which Triton's last layout pass recomputes in another
/// layout (a local_load is neither an anchor nor expensive) where a global load stays put.
std::set<const Operation *> tritonPipelinedLoads(tir::Function &function,
                                                 bool skipFarCarriedLoops) {
  std::set<const Operation *> loads;
  std::vector<std::pair<Operation *, unsigned>> loops = pipelinedLoops(function);
  if (loops.empty())
    return loads;
  analysis::AxisInfoAnalysis axis(function);
  for (auto [loop, stages] : loops) {
    tir::Block &body = loop->region(0).block();
    bool outer = false;
    tir::walk(body, [&](Operation &op) {
      outer |= op.code() == OpCode::For || op.code() == OpCode::While;
    });
    if (outer)
      continue;
    const Operation *yield = body.terminator();
    bool farCarried = false;
    for (const Value *operand : yield->operands())
      farCarried |= operand->definingOp() == nullptr;
    if (farCarried && skipFarCarriedLoops)
      continue;
    std::map<const Operation *, int> levels;
    std::set<const Operation *> seen, excluded;
    std::function<void(Operation *, int)> visit = [&](Operation *op, int distance) {
      if (!seen.insert(op).second || excluded.count(op))
        return;
      if (op->code() == OpCode::Load) {
        const Value *mask = op->numOperands() > 1 ? op->operand(1) : nullptr;
        if (!op->operand(0)->type().isTensor() ||
            accessWidth(axis, op->operand(0), mask) *
                    op->operand(0)->type().elem.pointeeType().bits() <
                32)
          return;
        auto [it, inserted] = levels.emplace(op, distance);
        if (!inserted && it->second != distance) {
          levels.erase(it);
          excluded.insert(op);
          return;
        }
        ++distance;
      }
      std::vector<Value *> operands;
      std::function<void(Operation &)> collect = [&](Operation &nested) {
        for (Value *operand : nested.operands())
          operands.push_back(operand);
      };
      collect(*op);
      for (unsigned r = 0; r < op->numRegions(); ++r)
        tir::walk(op->region(r).block(), collect);
      for (Value *operand : operands) {
        if (op->code() == OpCode::Dot && operand == op->operand(2))
          continue;
        Operation *producer = operand->definingOp();
        if (producer && producer->parentBlock() == op->parentBlock())
          visit(producer, distance);
      }
    };
    for (auto &op : body.ops()) {
      if (op->code() != OpCode::Dot)
        continue;
      seen.clear();
      visit(op.get(), 0);
    }
    for (auto [load, level] : levels)
      if (level < int(stages) - 1)
        loads.insert(load);
  }
  return loads;
}

} // namespace tilec::gpu
