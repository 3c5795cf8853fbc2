// Triton 3.6's OptimizeThreadLocality (the reduce rewrite): a loop that folds the reduction of a
// loaded tile along its last axis into a carried accumulator,
//
//   acc = constant;  for ...: x = load(...); acc = acc + reduce(x, axis=last)
//
// keeps one partial per thread instead: in the loop each thread folds its own elements of a row
// into its own carried partial ([..., N/E], E = the thread's elements along the axis), and the
// reduction across lanes and warps happens once, after the loop, on the partials. That changes
// the association of the floating-point operations, so tilec must do it wherever Triton does to
// give Triton's bits, and nowhere else.
//
// Triton views the tile as [..., N/E, E] in a 3-D blocked layout (each thread keeps its registers)
// and reduces the new last axis. tilec says the same with one operation: a reduce marked
// `within_thread`, whose result keeps the axis with one element per thread along it, in the slice
// (along the extra dimension) of that 3-D layout; the reduction after the loop is the original
// reduce on those partials, in the same layout as Triton's, so the lowering's lane and warp trees
// are Triton's too.
//
// The conditions are Triton 3.6's: a one-operation floating-point add, mul, max or min reduction
// (tl.sum, tl.max, tl.min, or tl.reduce with such a function) of a blocked rank > 1 tile along
// its last axis, its operand a tt.load, more than one element per thread along the axis, its
// only use the update of a loop-carried value whose only use is the loop's yield, the loop an
// scf.for whose init for that value is a constant. Where Triton 3.6's rewrite computes something
// else than the kernel says, tilec keeps the loop as it is (correct rather than Triton's wrong
// bits): the carried value used elsewhere in the loop (those uses would see the constant; later
// Triton refuses it too), an update that is not the reduction's own operation (for
// `acc -= tl.sum(x, 1)` 3.6 computes init + the sums), or a combine function whose one operation
// is not applied to its two arguments. And where 3.6's register reinterpretation puts elements
// of other rows into a row's partial (a tile repeated along the axis and along another dimension
// that comes before it in the layout's order, e.g. [1024, 16] column-major on 4 warps), the
// partials hold each thread's own elements of the row, as later Triton's do.
#include "gpu/Arch.h"
#include "gpu/PassUtils.h"
#include "gpu/Passes.h"
#include "tir/Builder.h"

#include <limits>
#include <optional>

namespace tilec::gpu {

using tir::Builder;
using tir::OpCode;
using tir::Operation;
using tir::Type;
using tir::Value;

namespace {

using Users = std::map<const Value *, std::vector<Operation *>>;

/// The operation that combines elements in `reduce` (one operand, one result of its type),
/// when it is one floating-point add, mul, max or min; null otherwise.
const Operation *combiningOp(const Operation &reduce, OpCode *code) {
  if (reduce.numOperands() != 1 || !reduce.operand(0)->type().elem.isFloat() ||
      !(reduce.result()->type().elem == reduce.operand(0)->type().elem))
    return nullptr;
  const std::string &kind = reduce.strAttr("kind");
  if (kind == "sum" || kind == "max" || kind == "min") {
    *code = kind == "sum" ? OpCode::Add : kind == "max" ? OpCode::Maximum : OpCode::Minimum;
    return &reduce; // tl.max and tl.min are maxnum and minnum, as the update's tl.maximum is
  }
  if (kind != "combine")
    return nullptr;
  const tir::Block &body = reduce.region(0).block();
  if (body.ops().size() != 2)
    return nullptr;
  const Operation &op = *body.ops().front();
  if (op.code() != OpCode::Add && op.code() != OpCode::Mul && op.code() != OpCode::Maximum &&
      op.code() != OpCode::Minimum)
    return nullptr;
  bool onArguments = (op.operand(0) == body.argument(0) && op.operand(1) == body.argument(1)) ||
                     (op.operand(0) == body.argument(1) && op.operand(1) == body.argument(0));
  if (!onArguments || body.terminator()->operand(0) != op.result())
    return nullptr;
  *code = op.code();
  return &op;
}

/// Whether `update` applies the same operation as `combining` (NaN propagation included).
bool sameOperation(const Operation &update, OpCode code, const Operation &combining) {
  if (update.code() != code)
    return false;
  auto nan = [](const Operation &op) { return op.hasAttr("propagate_nan"); };
  return combining.code() == OpCode::Reduce ? !nan(update) : nan(update) == nan(combining);
}

/// The identity of the combining operation, as Triton's createAccum: +0.0 for add
/// (arith::getNeutralElement's zero), 1 for mul, -inf for max and +inf for min.
double neutralElement(OpCode code) {
  double inf = std::numeric_limits<double>::infinity();
  switch (code) {
  case OpCode::Add:
    return 0.0;
  case OpCode::Mul:
    return 1.0;
  case OpCode::Maximum:
    return -inf;
  default:
    return inf;
  }
}

/// The one user of `value`, or null. A convert_layout in between (tilec's layout assignment
/// leaves some where Triton's remove-layout-conversions leaves none) is looked through when it is
/// the value's one user and has one user itself.
Operation *soleUser(const Value *value, const Users &users) {
  auto it = users.find(value);
  if (it == users.end() || it->second.size() != 1)
    return nullptr;
  Operation *user = it->second[0];
  if (user->code() != OpCode::ConvertLayout)
    return user;
  return soleUser(user->result(), users);
}

/// `value` itself, or what the convert_layout that defines it converts.
Value *beforeConversion(Value *value) {
  Operation *def = value->definingOp();
  return def && def->code() == OpCode::ConvertLayout ? def->operand(0) : value;
}

/// Whether `value` is an arith.constant in Triton by the time OptimizeThreadLocality runs: a
/// constant, or a splat, cast or conversion of one, which Triton's canonicalizer folds
/// (`tl.full([M], x, tl.float16)` with x = 0.0 a variable is a splat of an fp32 constant cast).
bool foldsToConstant(const Value *value) {
  const Operation *def = value->definingOp();
  if (!def)
    return false;
  switch (def->code()) {
  case OpCode::Constant:
    return true;
  case OpCode::Splat:
  case OpCode::Cast:
  case OpCode::ConvertLayout:
    return foldsToConstant(def->operand(0));
  default:
    return false;
  }
}

/// Whether `load` is a tt.load in Triton: loads through tensor descriptors stay
/// tt.descriptor_load from sm_90 on (before, Triton rewrites them to pointer loads).
bool isTritonLoad(const Operation &load, const std::string &arch) {
  return load.code() == OpCode::Load &&
         !(load.hasAttr("tensor_descriptor") && smVersion(arch) >= 90);
}

struct Candidate {
  Operation *reduce;
  Value *tile;       // the loaded tile reduced (the load's result, in its own layout)
  Operation *update; // acc <op> reduce(...)
  Operation *loop;
  unsigned iter; // the carried value's index among the loop's results
  OpCode code;
  int64_t perThread; // E: the elements each thread holds along the axis
};

std::optional<Candidate> match(Operation &reduce, const Users &users, const std::string &arch) {
  Candidate c;
  c.reduce = &reduce;
  const Operation *combining = combiningOp(reduce, &c.code);
  if (!combining)
    return std::nullopt;
  c.tile = beforeConversion(reduce.operand(0));
  const Type &tile = c.tile->type();
  Operation *load = c.tile->definingOp();
  // (Loads take their blocked layouts from Coalesce, without repeats in the warp.)
  if (!load || !isTritonLoad(*load, arch) || tile.rank() < 2 || !tile.layout ||
      tile.layout->kind != LayoutKind::Blocked || !tile.layout->repsInWarp.empty())
    return std::nullopt;
  unsigned axis = tile.rank() - 1;
  if (reduce.intAttr("axis") != axis)
    return std::nullopt;
  const Layout &l = *tile.layout;
  int64_t span = int64_t(l.sizePerThread[axis]) * l.threadsPerWarp[axis] * l.warpsPerCTA[axis];
  c.perThread = std::max<int64_t>(1, tile.shape[axis] / span) * l.sizePerThread[axis];
  if (c.perThread == 1 || tile.shape[axis] % c.perThread != 0)
    return std::nullopt;

  // reduce -> update -> yield, the update's other operand the loop's carried value.
  c.update = soleUser(reduce.result(), users);
  Operation *loop = reduce.parentBlock()->parentOp();
  if (!c.update || c.update->numOperands() != 2 || !loop || loop->code() != OpCode::For ||
      !sameOperation(*c.update, c.code, *combining))
    return std::nullopt;
  tir::Block &body = loop->region(0).block();
  Operation *yield = soleUser(c.update->result(), users);
  Value *acc = nullptr;
  for (Value *operand : c.update->operands())
    if (beforeConversion(operand) != reduce.result())
      acc = beforeConversion(operand);
  if (yield != body.terminator() || !acc || !acc->isBlockArgument() || acc->ownerBlock() != &body ||
      acc->index() == 0)
    return std::nullopt;
  c.loop = loop;
  c.iter = acc->index() - 1;
  if (beforeConversion(body.terminator()->operand(c.iter)) != c.update->result())
    return std::nullopt;
  // Every other use of the carried value would see the init after the rewrite.
  if (soleUser(acc, users) != c.update)
    return std::nullopt;
  if (!foldsToConstant(loop->operand(3 + c.iter)))
    return std::nullopt;
  return c;
}

void rewrite(tir::Function &function, const Candidate &c) {
  const Type &tile = c.tile->type();
  unsigned axis = tile.rank() - 1;

  // Triton's 3-D layout: the thread's E elements along a new fastest dimension, one element per
  // thread along the old axis, whose lanes and warps stay as they were.
  LayoutPtr partials = threadPartialsLayout(tile.layout);
  std::vector<int64_t> partialShape = tile.shape;
  partialShape[axis] /= c.perThread;
  Type partialType = Type(tile.elem, partialShape).withLayout(partials);

  Operation &loop = *c.loop;
  tir::Block &body = loop.region(0).block();
  Operation *yield = body.terminator();
  Value *oldResult = loop.result(c.iter);
  Value *init = loop.operand(3 + c.iter);

  // The partials, carried from the combining operation's identity.
  Builder b;
  b.setLoc(c.reduce->loc());
  b.setInsertionPoint(&loop);
  loop.addOperand(b.floatConstant(neutralElement(c.code), partialType));
  Value *carried = body.addArgument(partialType);
  Value *result = loop.addResult(partialType);

  // In the loop: each thread folds its elements into its partials; the old value is carried
  // through unchanged (dead: DCE removes what computed it).
  b.setInsertionPoint(c.update);
  Operation *own = cloneOp(b, *c.reduce, {c.tile}, {partialType});
  own->setAttr("within_thread", true);
  Operation *update = cloneOp(b, *c.update, {carried, own->result()}, {partialType});
  yield->setOperand(c.iter, body.argument(c.iter + 1));
  yield->addOperand(update->result());

  // After the loop: the original reduction across threads, then the update of the init.
  b.setInsertionPoint(std::next(loop.parentBlock()->find(&loop))->get());
  std::vector<int64_t> reducedShape(partialShape.begin(), partialShape.end() - 1);
  Type reducedType = Type(tile.elem, reducedShape).withLayout(makeSlice(axis, partials));
  Value *total = cloneOp(b, *c.reduce, {result}, {reducedType})->result();
  if (!sameLayout(layoutOf(total), layoutOf(oldResult)))
    total = b.createValue(OpCode::ConvertLayout, {total}, oldResult->type());
  Value *final = cloneOp(b, *c.update, {init, total}, {oldResult->type()})->result();
  replaceAllUses(function, oldResult, final);
}

} // namespace

void runOptimizeThreadLocality(tir::Function &function, const std::string &arch) {
  Users users = usersOf(function);
  std::vector<Candidate> candidates;
  tir::walk(function, [&](Operation &op) {
    if (op.code() != OpCode::Reduce)
      return;
    if (std::optional<Candidate> c = match(op, users, arch))
      candidates.push_back(*c);
  });
  for (const Candidate &c : candidates)
    rewrite(function, c);
}

} // namespace tilec::gpu
