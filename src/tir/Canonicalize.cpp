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

  void visit(Block &block) {
    for (auto it = block.ops().begin(); it != block.ops().end(); ++it) {
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
        if (!foldableFloat(t) || (from.isFloat() && !foldableFloat(from)))
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
