#include "gpu/LoopSlice.h"

#include "tir/Passes.h"

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

} // namespace tilec::gpu
