// Constant folding and algebraic identities. Folding follows the semantics the interpreter and
// the GPU code have (integers wrap at their width, division rounds toward zero), and leaves
// fp16/bf16/fp8 arithmetic alone: its rounding is the backend's business.
#include "tir/Passes.h"
#include "tir/UseIndex.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <optional>
#include <unordered_set>
#include <vector>

namespace tilec::tir {
namespace {

struct Constant {
  bool isFloat = false;
  int64_t i = 0;
  double f = 0.0;
};

double roundTo(double x, DType t) {
  return t.kind == ScalarKind::F32 ? static_cast<double>(static_cast<float>(x)) : x;
}

std::optional<Constant> constantOf(const Value *v) {
  const Operation *def = v->definingOp();
  if (!def || def->code() != OpCode::Constant)
    return std::nullopt;
  Constant c;
  const Attribute &a = def->attr("value");
  if (auto *d = std::get_if<double>(&a)) {
    c.isFloat = true;
    // The attribute holds the number as written (0.1); an fp32 constant is its nearest float,
    // which is what `cast(fp32 0.1) to fp64` must fold to.
    c.f = roundTo(*d, v->type().elem);
  } else {
    c.i = std::get<int64_t>(a);
  }
  return c;
}

/// Wraps `x` to the width and signedness of integer type `t`.
int64_t wrap(int64_t x, DType t) {
  unsigned bits = t.bits();
  if (bits >= 64)
    return x;
  uint64_t mask = (uint64_t(1) << bits) - 1;
  uint64_t u = static_cast<uint64_t>(x) & mask;
  if (t.isSigned() && (u >> (bits - 1)))
    u |= ~mask;
  return static_cast<int64_t>(u);
}

bool foldableFloat(DType t) {
  return t.kind == ScalarKind::F32 || t.kind == ScalarKind::F64;
}

/// Whether fp16 or bf16 holds `x` exactly. The attribute of such a constant keeps the number as
/// written, so only then is it the constant's value, which widening to fp32 or fp64 keeps (MLIR
/// folds arith.extf of a constant: Triton's `tl.zeros(.., fp16)` added to an fp32 dot is a zero
/// fp32 accumulator, and the dot then accumulates into the next add's other operand).
bool exactInHalf(double x, DType t) {
  if (t.kind != ScalarKind::F16 && t.kind != ScalarKind::BF16)
    return false;
  if (x == 0.0 || std::isinf(x))
    return true;
  if (std::isnan(x))
    return false;
  // Significand bits after the point, and the exponents of the largest and smallest normals.
  int fraction = t.kind == ScalarKind::F16 ? 10 : 7;
  int maxExp = t.kind == ScalarKind::F16 ? 15 : 127;
  int minExp = t.kind == ScalarKind::F16 ? -14 : -126;
  int e = 0;
  std::frexp(std::fabs(x), &e);
  int exponent = e - 1; // |x| = 1.f * 2^exponent
  if (exponent > maxExp)
    return false;
  int bits = fraction - std::max(0, minExp - exponent); // fewer below the normals
  if (bits < 0)
    return false;
  double scaled = std::ldexp(std::fabs(x), bits - exponent);
  return scaled == std::floor(scaled);
}

/// `code`'s function of `x` in `x`'s precision: std::exp(float) is expf, as MLIR's folders call.
template <typename T> T applyMath(OpCode code, T x) {
  switch (code) {
  case OpCode::Exp:
    return std::exp(x);
  case OpCode::Exp2:
    return std::exp2(x);
  case OpCode::Log:
    return std::log(x);
  case OpCode::Log2:
    return std::log2(x);
  case OpCode::Sqrt:
    return std::sqrt(x);
  case OpCode::Sin:
    return std::sin(x);
  case OpCode::Cos:
    return std::cos(x);
  case OpCode::Erf:
    return std::erf(x);
  case OpCode::Floor:
    return std::floor(x);
  case OpCode::Ceil:
    return std::ceil(x);
  default:
    return std::fabs(x);
  }
}

class Canonicalizer {
public:
  explicit Canonicalizer(Function &f) : function_(f) {}

  void run() { visit(function_.body()); }

private:
  Function &function_;
  /// One replacement per folded op: through the index, not a walk each.
  UseIndex uses_{function_.body()};

  void replace(Operation &op, Value *with) { uses_.replaceAllUses(op.result(), with); }
  /// Ops whose result was replaced: dead, left for DCE, and no longer users of their operands.
  std::unordered_set<const Operation *> replaced_;

  /// Ops taken out of the function (a loop removed, its yield): kept alive until the pass ends,
  /// since the use index may still list them as users.
  std::vector<std::unique_ptr<Operation>> removed_;

  void visit(Block &block) {
    for (auto it = block.ops().begin(); it != block.ops().end(); ++it) {
      // A loop of no or one iteration gives way to its inits or its body, whose ops are visited
      // next, here: the add-into-dot below then sees them with what precedes the loop.
      std::optional<Block::OpList::iterator> next = removeTrivialLoop(block, it);
      if (!next)
        next = removeStaticIf(block, it);
      if (next) {
        it = *next;
        if (it == block.ops().end())
          break;
      }
      Operation &op = **it;
      for (unsigned r = 0; r < op.numRegions(); ++r)
        visit(op.region(r).block());
      if (auto folded = fold(op)) {
        // Replace by a new constant operation placed where `op` is.
        auto c = std::make_unique<Operation>(OpCode::Constant, op.loc());
        if (folded->isFloat)
          c->setAttr("value", folded->f);
        else
          c->setAttr("value", folded->i);
        Value *result = c->addResult(op.result()->type());
        block.insert(it, std::move(c));
        replace(op, result);
        replaced_.insert(&op);
        continue; // the dead original is left for DCE
      }
      if (Value *same = identity(op)) {
        replace(op, same);
        replaced_.insert(&op);
        continue;
      }
      if (Value *fused = addIntoDot(block, it, op))
        replace(op, fused);
    }
  }

  // A `for` with constant bounds and a constant positive step that runs no iteration is replaced
  // by its inits; one that runs one iteration by its body, the induction variable being lb. Triton
  // does this in the canonicalization that precedes its combine patterns (MLIR's trivial-loop
  // simplification), so a loop of one iteration (`range(tl.cdiv(V, BV))` with V <= BV) leaves
  // straight-line code: `acc += tl.dot(a, b)` on the zero init becomes the dot accumulating into
  // zeros, which a later `acc + t` then accumulates into, as in Triton. Returns the position to
  // continue at (the first op taken out of the body, or the op after the loop), or nothing.
  std::optional<Block::OpList::iterator> removeTrivialLoop(Block &block,
                                                           Block::OpList::iterator at) {
    Operation &loop = **at;
    if (loop.code() != OpCode::For)
      return std::nullopt;
    auto lb = constantOf(loop.operand(0)), ub = constantOf(loop.operand(1)),
         step = constantOf(loop.operand(2));
    if (!lb || !ub || !step || lb->isFloat || ub->isFloat || step->isFloat || step->i <= 0)
      return std::nullopt;
    Block &body = loop.region(0).block();
    const unsigned numInits = loop.numOperands() - 3;
    Operation *yield = body.terminator();
    if (!yield || yield->code() != OpCode::Yield || yield->numOperands() != loop.numResults() ||
        numInits != loop.numResults() || body.numArguments() != numInits + 1 ||
        body.argument(0)->type() != loop.operand(0)->type())
      return std::nullopt;
    const bool runsOnce = lb->i < ub->i && ub->i - lb->i <= step->i;
    if (ub->i > lb->i && !runsOnce)
      return std::nullopt;
    Block::OpList::iterator after = std::next(at);
    if (runsOnce) {
      uses_.replaceAllUses(body.argument(0), loop.operand(0));
      for (unsigned i = 0; i < numInits; ++i)
        uses_.replaceAllUses(body.argument(i + 1), loop.operand(3 + i));
      for (unsigned i = 0; i < loop.numResults(); ++i)
        uses_.replaceAllUses(loop.result(i), yield->operand(i));
      removed_.push_back(body.remove(yield));
      return spliceBefore(block, std::next(at), body, loop);
    }
    for (unsigned i = 0; i < loop.numResults(); ++i)
      uses_.replaceAllUses(loop.result(i), loop.operand(3 + i));
    removed_.push_back(block.remove(&loop));
    return after;
  }

  // An `if` whose condition is a constant gives way to the region it takes, as in Triton's
  // canonicalization (a loop of one iteration leaves `if i_k == 0:` on a constant). Returns the
  // position to continue at, or nothing.
  std::optional<Block::OpList::iterator> removeStaticIf(Block &block, Block::OpList::iterator at) {
    Operation &ifOp = **at;
    if (ifOp.code() != OpCode::If || ifOp.numRegions() != 2)
      return std::nullopt;
    auto condition = constantOf(ifOp.operand(0));
    if (!condition || condition->isFloat || !ifOp.operand(0)->type().isScalar())
      return std::nullopt;
    Block &taken = ifOp.region(condition->i ? 0 : 1).block();
    Operation *yield = taken.terminator();
    const bool yields = yield && yield->code() == OpCode::Yield;
    if (ifOp.numResults() != (yields ? yield->numOperands() : 0) || taken.numArguments() != 0)
      return std::nullopt;
    if (yields) {
      for (unsigned i = 0; i < ifOp.numResults(); ++i)
        uses_.replaceAllUses(ifOp.result(i), yield->operand(i));
      removed_.push_back(taken.remove(yield));
    }
    return spliceBefore(block, std::next(at), taken, ifOp);
  }

  /// Moves the ops of `from` before `after`, takes `op` (whose region `from` is) out of `block`,
  /// and returns the first op moved, or `after` when there were none.
  Block::OpList::iterator spliceBefore(Block &block, Block::OpList::iterator after, Block &from,
                                       Operation &op) {
    Block::OpList::iterator first = after;
    bool firstMoved = true;
    while (!from.empty()) {
      Operation *placed = block.insert(after, from.remove(from.ops().front().get()));
      if (firstMoved)
        first = block.find(placed);
      firstMoved = false;
    }
    removed_.push_back(block.remove(&op));
    return first;
  }

  // x + dot(a, b) -> dot(a, b, x), as Triton's combine patterns: a dot whose accumulator is zero
  // and whose only user is an add accumulates into the add's other operand instead (attention's
  // o * alpha + dot(p, v), `acc += tl.dot(a, b)`). The sum is then formed in the dot's order, as
  // Triton forms it. When both operands are such dots (`v = dot(w1, h1); v += dot(w2, h2)`),
  // the right one accumulates into the left, as Triton's pattern for `d + dot` matches first:
  // dot(w2, h2, dot(w1, h1)).
  Value *addIntoDot(Block &block, Block::OpList::iterator at, const Operation &op) {
    if (op.code() != OpCode::Add || op.numResults() != 1 || !op.result()->type().isTensor())
      return nullptr;
    for (unsigned i : {1u, 0u}) {
      Value *product = op.operand(i), *other = op.operand(1 - i);
      Operation *dot = product->definingOp();
      if (!dot || dot->code() != OpCode::Dot || dot->parentBlock() != &block ||
          product->type() != op.result()->type() || other->type() != op.result()->type())
        continue;
      auto zero = constantOf(dot->operand(2));
      if (!zero || (zero->isFloat ? zero->f != 0.0 : zero->i != 0) || usesOf(product) != 1)
        continue;
      // Triton's float pattern asks for maxNumImpreciseAcc == 0 too: an fp8 dot on sm_90
      // accumulates in the tensor cores' reduced precision, so `acc + dot(a, b)` (vLLM's
      // unified attention on fp8 caches) stays an fp32 add after the dot.
      if (op.result()->type().elem.isFloat() && dot->hasAttr("max_num_imprecise_acc") &&
          dot->intAttr("max_num_imprecise_acc") != 0)
        continue;
      auto fused = std::make_unique<Operation>(OpCode::Dot, dot->loc());
      fused->setOperands({dot->operand(0), dot->operand(1), other});
      for (const auto &[key, value] : dot->attrs())
        fused->setAttr(key, value);
      Value *result = fused->addResult(op.result()->type());
      uses_.addUser(*block.insert(at, std::move(fused)));
      return result; // the dead add and dot are left for DCE
    }
    return nullptr;
  }

  unsigned usesOf(const Value *value) {
    unsigned uses = 0;
    walk(function_.body(), [&](Operation &user) {
      if (replaced_.count(&user))
        return;
      for (const Value *operand : user.operands())
        uses += operand == value;
    });
    return uses;
  }

  std::optional<Constant> fold(const Operation &op) {
    if (op.numResults() != 1 || op.numRegions() != 0)
      return std::nullopt;
    // A conversion rounding toward zero and a NaN-propagating max/min are left to run time.
    if (op.hasAttr("rounding") || op.hasAttr("propagate_nan"))
      return std::nullopt;
    const Type &type = op.result()->type();
    DType t = type.elem;
    switch (op.code()) {
    case OpCode::Splat:
    case OpCode::Broadcast:
    case OpCode::ExpandDims:
      return constantOf(op.operand(0));
    case OpCode::Cast: {
      auto c = constantOf(op.operand(0));
      if (!c)
        return std::nullopt;
      DType from = op.operand(0)->type().elem;
      if (t.isPointer() || from.isPointer())
        return std::nullopt; // addresses are not known at compile time
      Constant r;
      if (t.isFloat()) {
        if (!foldableFloat(t) ||
            (from.isFloat() && !foldableFloat(from) && !(c->isFloat && exactInHalf(c->f, from))))
          return std::nullopt;
        r.isFloat = true;
        double x = c->isFloat          ? c->f
                   : from.isUnsigned() ? static_cast<double>(static_cast<uint64_t>(c->i))
                                       : static_cast<double>(c->i);
        r.f = roundTo(x, t);
        return r;
      }
      if (t.isBool())
        return std::nullopt; // casts to bool are compares, made by sema
      if (c->isFloat) {
        if (!std::isfinite(c->f) || std::fabs(c->f) >= 9.2e18)
          return std::nullopt;
        r.i = wrap(static_cast<int64_t>(std::trunc(c->f)), t);
        return r;
      }
      r.i = wrap(c->i, t);
      return r;
    }
    case OpCode::Cmp: {
      // Integers only, what the loop and `if` removal need (`i_k == 0` in a loop of one
      // iteration); an unsigned compare of a negative constant is left alone.
      auto a = constantOf(op.operand(0)), b = constantOf(op.operand(1));
      if (!a || !b || a->isFloat || b->isFloat)
        return std::nullopt;
      if (op.operand(0)->type().elem.isUnsigned() && (a->i < 0 || b->i < 0))
        return std::nullopt;
      const std::string &predicate = op.strAttr("predicate");
      Constant r;
      r.i = predicate == "eq"   ? a->i == b->i
            : predicate == "ne" ? a->i != b->i
            : predicate == "lt" ? a->i < b->i
            : predicate == "le" ? a->i <= b->i
            : predicate == "gt" ? a->i > b->i
                                : a->i >= b->i;
      return r;
    }
    case OpCode::Exp:
    case OpCode::Exp2:
    case OpCode::Log:
    case OpCode::Log2:
    case OpCode::Sqrt:
    case OpCode::Sin:
    case OpCode::Cos:
    case OpCode::Erf:
    case OpCode::Floor:
    case OpCode::Ceil:
    case OpCode::Abs:
      return foldMath(op);
    case OpCode::Add:
    case OpCode::Sub:
    case OpCode::Mul:
    case OpCode::Div:
    case OpCode::Rem:
    case OpCode::And:
    case OpCode::Or:
    case OpCode::Xor:
    case OpCode::Maximum:
    case OpCode::Minimum: {
      auto a = constantOf(op.operand(0)), b = constantOf(op.operand(1));
      // x % 1 is 0 for any integer x, as MLIR's remsi/remui folders have it in Triton's
      // canonicalisation: `i_v = i_kv % tl.cdiv(V, BV)` with V <= BV leaves `if i_v == 0:` on a
      // constant, whose `b_ds += b_dz[:, None]` then accumulates in the dot before it (fla's
      // parallel_based_bwd_kernel).
      if (op.code() == OpCode::Rem && !a && b && !b->isFloat && b->i == 1 && t.isInteger() &&
          !t.isBool() && op.operand(0)->type() == type)
        return Constant{};
      if (!a || !b)
        return std::nullopt;
      Constant r;
      if (t.isFloat()) {
        if (!foldableFloat(t) || op.code() == OpCode::Rem)
          return std::nullopt;
        r.isFloat = true;
        double x = a->f, y = b->f;
        switch (op.code()) {
        case OpCode::Add:
          r.f = x + y;
          break;
        case OpCode::Sub:
          r.f = x - y;
          break;
        case OpCode::Mul:
          r.f = x * y;
          break;
        case OpCode::Div:
          r.f = x / y;
          break;
        case OpCode::Maximum:
          r.f = std::fmax(x, y);
          break;
        case OpCode::Minimum:
          r.f = std::fmin(x, y);
          break;
        default:
          return std::nullopt;
        }
        r.f = roundTo(r.f, t);
        return r;
      }
      if (!t.isInteger() || t.isBool())
        return std::nullopt;
      uint64_t ux = static_cast<uint64_t>(a->i), uy = static_cast<uint64_t>(b->i);
      bool u = t.isUnsigned();
      switch (op.code()) {
      case OpCode::Add:
        r.i = static_cast<int64_t>(ux + uy);
        break;
      case OpCode::Sub:
        r.i = static_cast<int64_t>(ux - uy);
        break;
      case OpCode::Mul:
        r.i = static_cast<int64_t>(ux * uy);
        break;
      case OpCode::Div:
      case OpCode::Rem:
        if (b->i == 0 || (!u && a->i == INT64_MIN && b->i == -1))
          return std::nullopt; // the run-time behaviour is the backend's
        if (u)
          r.i = static_cast<int64_t>(op.code() == OpCode::Div ? ux / uy : ux % uy);
        else
          r.i = op.code() == OpCode::Div ? a->i / b->i : a->i % b->i;
        break;
      case OpCode::And:
        r.i = a->i & b->i;
        break;
      case OpCode::Or:
        r.i = a->i | b->i;
        break;
      case OpCode::Xor:
        r.i = a->i ^ b->i;
        break;
      case OpCode::Maximum:
        r.i = u ? static_cast<int64_t>(std::max(ux, uy)) : std::max(a->i, b->i);
        break;
      case OpCode::Minimum:
        r.i = u ? static_cast<int64_t>(std::min(ux, uy)) : std::min(a->i, b->i);
        break;
      default:
        return std::nullopt;
      }
      r.i = wrap(r.i, t);
      return r;
    }
    default:
      return std::nullopt;
    }
  }

  /// A math function of a constant, folded as MLIR's math dialect folds it in Triton's TTIR
  /// canonicalisation: with the host's libm in the operand's precision (expf for fp32, exp for
  /// fp64), so `tl.exp(3.0)` is expf(3.0f), not the GPU's ex2.approx. Like MLIR, log, log2 and
  /// sqrt leave negative operands (-0.0 too) alone, and only fp32 and fp64 fold; tl.sqrt_rn and
  /// rsqrt, which MLIR does not fold, stay.
  std::optional<Constant> foldMath(const Operation &op) {
    auto c = constantOf(op.operand(0));
    DType t = op.result()->type().elem;
    if (!c || op.hasAttr("ieee"))
      return std::nullopt;
    Constant r;
    if (op.code() == OpCode::Abs && t.isInteger() && !t.isBool()) {
      r.i = t.isUnsigned()
                ? c->i
                : wrap(c->i < 0 ? static_cast<int64_t>(0 - static_cast<uint64_t>(c->i)) : c->i, t);
      return r;
    }
    if (!c->isFloat || !foldableFloat(t))
      return std::nullopt;
    bool negative = std::signbit(c->f);
    if (negative &&
        (op.code() == OpCode::Log || op.code() == OpCode::Log2 || op.code() == OpCode::Sqrt))
      return std::nullopt;
    r.isFloat = true;
    r.f = t.kind == ScalarKind::F32 ? applyMath(op.code(), static_cast<float>(c->f))
                                    : applyMath(op.code(), c->f);
    return r;
  }

  // x + 0, x - 0, x * 1, x | 0, x ^ 0 on integers; on floats, the identities MLIR's arith
  // folders apply in Triton's TTIR canonicalisation, those that hold for every x: x * 1.0 and
  // 1.0 * x, x / 1.0, x + -0.0 and -0.0 + x, x - +0.0 (x + +0.0 is not x when x is -0.0). They
  // matter beyond the instruction they save: `o * scale + tl.dot(a, b) * scale` with scale = 1
  // leaves `o + dot(a, b)`, which accumulates in the dot (addIntoDot), as in Triton (fla's
  // chunk_fwd_kernel_o).
  Value *identity(const Operation &op) {
    if (op.numOperands() != 2 || op.numResults() != 1)
      return nullptr;
    DType t = op.result()->type().elem;
    if (t.isFloat())
      return floatIdentity(op);
    if (!t.isInteger())
      return nullptr;
    auto b = constantOf(op.operand(1));
    if (!b || op.operand(0)->type() != op.result()->type())
      return nullptr;
    switch (op.code()) {
    case OpCode::Add:
    case OpCode::Sub:
    case OpCode::Or:
    case OpCode::Xor:
    case OpCode::Shl:
    case OpCode::Shr:
      return b->i == 0 ? op.operand(0) : nullptr;
    case OpCode::Mul:
    case OpCode::Div:
      return b->i == 1 ? op.operand(0) : nullptr;
    default:
      return nullptr;
    }
  }

  Value *floatIdentity(const Operation &op) {
    auto isConstant = [](const Value *v, double value, bool negative) {
      auto c = constantOf(v);
      return c && c->isFloat && c->f == value && std::signbit(c->f) == negative;
    };
    const Value *result = op.result();
    auto sameType = [&](Value *v) { return v->type() == result->type() ? v : nullptr; };
    Value *a = op.operand(0), *b = op.operand(1);
    switch (op.code()) {
    case OpCode::Mul:
      if (isConstant(b, 1.0, false))
        return sameType(a);
      return isConstant(a, 1.0, false) ? sameType(b) : nullptr;
    case OpCode::Div:
      return isConstant(b, 1.0, false) ? sameType(a) : nullptr;
    case OpCode::Add:
      if (isConstant(b, 0.0, true))
        return sameType(a);
      return isConstant(a, 0.0, true) ? sameType(b) : nullptr;
    case OpCode::Sub:
      return isConstant(b, 0.0, false) ? sameType(a) : nullptr;
    default:
      return nullptr;
    }
  }
};

} // namespace

void runCanonicalize(Function &function) {
  Canonicalizer(function).run();
}

} // namespace tilec::tir
