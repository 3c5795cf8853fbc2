#include "analysis/AxisInfo.h"

#include <algorithm>
#include <numeric>

namespace tilec::analysis {

using tir::OpCode;
using tir::Operation;
using tir::Value;

int64_t highestPowerOf2Divisor(int64_t value) {
  if (value == 0)
    return kMaxDivisibility;
  uint64_t magnitude = value < 0 ? 0 - static_cast<uint64_t>(value) : static_cast<uint64_t>(value);
  return std::min<int64_t>(kMaxDivisibility, static_cast<int64_t>(magnitude & (~magnitude + 1)));
}

AxisInfo AxisInfo::unknown(unsigned rank) {
  AxisInfo info;
  info.contiguity.assign(rank, 1);
  info.divisibility.assign(rank, 1);
  info.constancy.assign(rank, 1);
  return info;
}

AxisInfo AxisInfo::meet(const AxisInfo &a, const AxisInfo &b) {
  AxisInfo info = AxisInfo::unknown(a.rank());
  for (unsigned d = 0; d < a.rank(); ++d) {
    info.contiguity[d] = std::gcd(a.contiguity[d], b.contiguity[d]);
    info.divisibility[d] = std::gcd(a.divisibility[d], b.divisibility[d]);
    info.constancy[d] = std::gcd(a.constancy[d], b.constancy[d]);
  }
  if (a.constant && b.constant && *a.constant == *b.constant)
    info.constant = a.constant;
  return info;
}

namespace {

unsigned rankOf(const Value *v) {
  return std::max(1u, v->type().rank());
}

int64_t dimSize(const Value *v, unsigned d) {
  return v->type().isScalar() ? 1 : v->type().shape[d];
}

int64_t capMul(int64_t a, int64_t b) {
  if (a >= kMaxDivisibility / std::max<int64_t>(b, 1))
    return kMaxDivisibility;
  return std::min(kMaxDivisibility, a * b);
}

/// Every element of `v` along `d` is the same.
bool isConstantDim(const AxisInfo &info, const Value *v, unsigned d) {
  return info.constancy[d] == dimSize(v, d);
}

/// A value whose every element is `c`.
AxisInfo constantInfo(const Value *v, int64_t c) {
  AxisInfo info = AxisInfo::unknown(rankOf(v));
  for (unsigned d = 0; d < info.rank(); ++d) {
    info.divisibility[d] = highestPowerOf2Divisor(c);
    info.constancy[d] = dimSize(v, d);
  }
  info.constant = c;
  return info;
}

bool isConstant(const AxisInfo &info, int64_t c) {
  return info.constant && *info.constant == c;
}

} // namespace

AxisInfoAnalysis::AxisInfoAnalysis(const tir::Function &function) {
  const tir::Block &body = function.body();
  for (unsigned i = 0; i < body.numArguments(); ++i) {
    const Value *arg = body.argument(i);
    AxisInfo info = AxisInfo::unknown(rankOf(arg));
    if (i < function.params.size()) {
      const tir::ParamInfo &param = function.params[i];
      unsigned promised = arg->type().elem.isPointer() ? param.alignment : param.divisibility;
      if (promised > 1)
        info.divisibility[0] = highestPowerOf2Divisor(promised);
    }
    set(arg, info);
  }
  visitBlock(body);
}

AxisInfo AxisInfoAnalysis::info(const Value *value) const {
  auto it = infos_.find(value);
  if (it != infos_.end())
    return it->second;
  return AxisInfo::unknown(rankOf(value));
}

unsigned AxisInfoAnalysis::vectorWidth(const Value *ptr, unsigned dim) const {
  const tir::Type &type = ptr->type();
  if (!type.elem.isPointer())
    return 1;
  AxisInfo facts = info(ptr);
  if (dim >= facts.rank())
    return 1;
  int64_t elemBytes = std::max(1u, type.elem.pointeeType().bytes());
  int64_t alignedElems = std::max<int64_t>(1, facts.divisibility[dim] / elemBytes);
  int64_t width =
      std::min({facts.contiguity[dim], alignedElems, std::max<int64_t>(1, 16 / elemBytes)});
  return static_cast<unsigned>(std::max<int64_t>(1, width));
}

std::vector<unsigned> AxisInfoAnalysis::contiguityOrder(const Value *value, Ties ties) const {
  AxisInfo facts = info(value);
  // Triton's sources at one time sorted from the last dimension (row-major ties), but Triton 3.6
  // as released sorts from the first: its Coalesce debug output reads contiguity [1, 1, 64] ->
  // order [2, 0, 1] and [1, 1] -> [0, 1].
  std::vector<unsigned> order;
  for (unsigned d = 0; d < facts.rank(); ++d)
    order.push_back(d);
  if (ties == Ties::LastDimFirst)
    std::reverse(order.begin(), order.end());
  std::stable_sort(order.begin(), order.end(), [&](unsigned a, unsigned b) {
    return facts.contiguity[a] > facts.contiguity[b];
  });
  return order;
}

unsigned AxisInfoAnalysis::maskConstancy(const Value *mask, unsigned dim) const {
  AxisInfo facts = info(mask);
  if (dim >= facts.rank())
    return 1;
  return static_cast<unsigned>(std::min<int64_t>(facts.constancy[dim], kMaxDivisibility));
}

void AxisInfoAnalysis::visitBlock(const tir::Block &block) {
  for (const auto &op : block.ops())
    visitOp(*op);
}

// Loop-carried values start from what the initial values promise and are met with what the body
// yields until nothing changes: facts only shrink, so a handful of rounds suffice; after too many
// the values are given up as unknown.
void AxisInfoAnalysis::visitFor(const Operation &op) {
  const tir::Block &body = op.region(0).block();
  const Value *iv = body.argument(0);
  AxisInfo lb = info(op.operand(0)), step = info(op.operand(2));
  AxisInfo ivInfo = AxisInfo::unknown(1);
  ivInfo.divisibility[0] = std::gcd(lb.divisibility[0], step.divisibility[0]);
  set(iv, ivInfo);
  unsigned numIters = op.numOperands() - 3;
  for (unsigned i = 0; i < numIters; ++i)
    set(body.argument(i + 1), info(op.operand(i + 3)));
  for (int round = 0;; ++round) {
    visitBlock(body);
    const Operation *yield = body.terminator();
    bool changed = false;
    for (unsigned i = 0; i < numIters; ++i) {
      const Value *arg = body.argument(i + 1);
      AxisInfo merged = AxisInfo::meet(info(arg), info(yield->operand(i)));
      if (round >= 8)
        merged = AxisInfo::unknown(rankOf(arg));
      if (merged != info(arg)) {
        set(arg, merged);
        changed = true;
      }
    }
    if (!changed)
      break;
  }
  for (unsigned i = 0; i < numIters; ++i)
    set(op.result(i), info(body.argument(i + 1)));
}

void AxisInfoAnalysis::visitWhile(const Operation &op) {
  const tir::Block &before = op.region(0).block();
  const tir::Block &after = op.region(1).block();
  for (unsigned i = 0; i < op.numOperands(); ++i)
    set(before.argument(i), info(op.operand(i)));
  for (int round = 0;; ++round) {
    visitBlock(before);
    const Operation *cond = before.terminator();
    for (unsigned i = 0; i < after.numArguments(); ++i)
      set(after.argument(i), info(cond->operand(i + 1)));
    visitBlock(after);
    const Operation *yield = after.terminator();
    bool changed = false;
    for (unsigned i = 0; i < before.numArguments(); ++i) {
      const Value *arg = before.argument(i);
      AxisInfo merged = AxisInfo::meet(info(arg), info(yield->operand(i)));
      if (round >= 8)
        merged = AxisInfo::unknown(rankOf(arg));
      if (merged != info(arg)) {
        set(arg, merged);
        changed = true;
      }
    }
    if (!changed)
      break;
  }
  const Operation *cond = before.terminator();
  for (unsigned i = 0; i < op.numResults(); ++i)
    set(op.result(i), info(cond->operand(i + 1)));
}

void AxisInfoAnalysis::visitOp(const Operation &op) {
  auto unknownResults = [&] {
    for (unsigned r = 0; r < op.numResults(); ++r)
      set(op.result(r), AxisInfo::unknown(rankOf(op.result(r))));
  };
  if (op.code() == OpCode::For)
    return visitFor(op);
  if (op.code() == OpCode::While)
    return visitWhile(op);
  if (op.code() == OpCode::If) {
    visitBlock(op.region(0).block());
    visitBlock(op.region(1).block());
    const Operation *thenYield = op.region(0).block().terminator();
    const Operation *elseYield = op.region(1).block().terminator();
    for (unsigned r = 0; r < op.numResults(); ++r)
      set(op.result(r), AxisInfo::meet(info(thenYield->operand(r)), info(elseYield->operand(r))));
    return;
  }
  if (op.numResults() != 1)
    return unknownResults();

  const Value *result = op.result();
  unsigned rank = rankOf(result);
  AxisInfo out = AxisInfo::unknown(rank);
  auto operandInfo = [&](unsigned i) { return info(op.operand(i)); };

  switch (op.code()) {
  case OpCode::Constant: {
    const tir::Attribute &value = op.attr("value");
    if (auto *i = std::get_if<int64_t>(&value))
      return set(result, constantInfo(result, *i));
    if (auto *b = std::get_if<bool>(&value))
      return set(result, constantInfo(result, *b ? 1 : 0));
    for (unsigned d = 0; d < rank; ++d)
      out.constancy[d] = dimSize(result, d);
    return set(result, out);
  }
  case OpCode::MakeRange:
    out.contiguity[0] = dimSize(result, 0);
    out.divisibility[0] = highestPowerOf2Divisor(op.intAttr("start"));
    return set(result, out);
  case OpCode::Splat: {
    AxisInfo in = operandInfo(0);
    for (unsigned d = 0; d < rank; ++d) {
      out.divisibility[d] = in.divisibility[0];
      out.constancy[d] = dimSize(result, d);
    }
    out.constant = in.constant;
    return set(result, out);
  }
  case OpCode::Broadcast: {
    AxisInfo in = operandInfo(0);
    const Value *src = op.operand(0);
    for (unsigned d = 0; d < rank; ++d) {
      bool grows = dimSize(src, d) == 1 && dimSize(result, d) != 1;
      out.contiguity[d] = grows ? 1 : in.contiguity[d];
      out.divisibility[d] = in.divisibility[d];
      out.constancy[d] = grows ? dimSize(result, d) : in.constancy[d];
    }
    out.constant = in.constant;
    return set(result, out);
  }
  case OpCode::ExpandDims: {
    AxisInfo in = operandInfo(0);
    unsigned axis = static_cast<unsigned>(op.intAttr("axis"));
    // The new dimension has one element; its divisibility is what every element promises
    // (a contiguous run promises it only of its first element).
    int64_t newDivisibility = kMaxDivisibility;
    if (in.constant) {
      newDivisibility = highestPowerOf2Divisor(*in.constant);
    } else {
      for (unsigned d = 0; d < in.rank(); ++d)
        newDivisibility =
            std::gcd(newDivisibility, in.contiguity[d] > 1 ? int64_t(1) : in.divisibility[d]);
    }
    out = in;
    out.contiguity.insert(out.contiguity.begin() + axis, 1);
    out.divisibility.insert(out.divisibility.begin() + axis, newDivisibility);
    out.constancy.insert(out.constancy.begin() + axis, 1);
    return set(result, out);
  }
  case OpCode::ConvertLayout:
    return set(result, operandInfo(0));
  case OpCode::Add:
  case OpCode::Sub:
  case OpCode::AddPtr: {
    AxisInfo lhs = operandInfo(0), rhs = operandInfo(1);
    int64_t scale = 1;
    if (op.code() == OpCode::AddPtr)
      scale = std::max(1u, op.operand(0)->type().elem.pointeeType().bytes());
    for (unsigned d = 0; d < rank; ++d) {
      int64_t contig = std::gcd(lhs.contiguity[d], rhs.constancy[d]);
      if (op.code() != OpCode::Sub)
        contig = std::max(contig, std::gcd(lhs.constancy[d], rhs.contiguity[d]));
      out.contiguity[d] = contig;
      out.divisibility[d] = std::gcd(lhs.divisibility[d], capMul(rhs.divisibility[d], scale));
      out.constancy[d] = std::gcd(lhs.constancy[d], rhs.constancy[d]);
    }
    if (lhs.constant && rhs.constant && op.code() != OpCode::AddPtr) {
      int64_t c =
          op.code() == OpCode::Add ? *lhs.constant + *rhs.constant : *lhs.constant - *rhs.constant;
      return set(result, constantInfo(result, c));
    }
    return set(result, out);
  }
  case OpCode::Neg: {
    // Triton negates an integer as 0 - x (semantic.minus; `ptr -= n` adds minus(n)), and its
    // axis info of that subtraction keeps x's divisibility and constancy: `S -= K * V` leaves a
    // loop-carried tile of pointers as aligned as it started, so its loads stay vectorised.
    if (!result->type().elem.isInteger())
      break;
    AxisInfo in = operandInfo(0);
    if (in.constant)
      return set(result, constantInfo(result, -*in.constant));
    for (unsigned d = 0; d < rank; ++d) {
      out.divisibility[d] = in.divisibility[d];
      out.constancy[d] = in.constancy[d];
    }
    return set(result, out);
  }
  case OpCode::Mul: {
    AxisInfo lhs = operandInfo(0), rhs = operandInfo(1);
    if (lhs.constant && rhs.constant)
      return set(result, constantInfo(result, *lhs.constant * *rhs.constant));
    for (unsigned d = 0; d < rank; ++d) {
      if (isConstant(lhs, 1))
        out.contiguity[d] = rhs.contiguity[d];
      else if (isConstant(rhs, 1))
        out.contiguity[d] = lhs.contiguity[d];
      // A contiguous run promises its divisibility only of its first element.
      int64_t lhsDiv = lhs.contiguity[d] > 1 && !isConstant(rhs, 1) ? 1 : lhs.divisibility[d];
      int64_t rhsDiv = rhs.contiguity[d] > 1 && !isConstant(lhs, 1) ? 1 : rhs.divisibility[d];
      out.divisibility[d] = capMul(lhsDiv, rhsDiv);
      out.constancy[d] = std::gcd(lhs.constancy[d], rhs.constancy[d]);
    }
    return set(result, out);
  }
  case OpCode::Div:
  case OpCode::Rem: {
    if (!result->type().elem.isInteger())
      break;
    AxisInfo lhs = operandInfo(0), rhs = operandInfo(1);
    for (unsigned d = 0; d < rank; ++d) {
      out.constancy[d] = std::gcd(lhs.constancy[d], rhs.constancy[d]);
      if (op.code() == OpCode::Rem && isConstantDim(rhs, op.operand(1), d)) {
        // (x + i) % c for x divisible by c runs i = 0 .. c-1 contiguously.
        out.contiguity[d] = std::gcd(lhs.contiguity[d], rhs.divisibility[d]);
        out.divisibility[d] = std::gcd(lhs.divisibility[d], rhs.divisibility[d]);
      }
      if (op.code() == OpCode::Div && isConstant(rhs, 1)) {
        out.contiguity[d] = lhs.contiguity[d];
        out.divisibility[d] = lhs.divisibility[d];
      } else if (op.code() == OpCode::Div && isConstantDim(rhs, op.operand(1), d)) {
        // (x + i) / c is constant over runs of c when x is divisible by c.
        out.constancy[d] = std::max(
            out.constancy[d],
            std::gcd(lhs.contiguity[d], std::gcd(lhs.divisibility[d], rhs.divisibility[d])));
        // x / 2^k is exact, and divisible by D / 2^k, when x is divisible by D >= 2^k (group
        // norm's C // GROUPS with C divisible by 16).
        if (rhs.constant && *rhs.constant > 0 &&
            highestPowerOf2Divisor(*rhs.constant) == *rhs.constant && lhs.contiguity[d] == 1 &&
            lhs.divisibility[d] % *rhs.constant == 0)
          out.divisibility[d] = lhs.divisibility[d] / *rhs.constant;
      }
    }
    if (lhs.constant && rhs.constant && *rhs.constant != 0) {
      int64_t c =
          op.code() == OpCode::Div ? *lhs.constant / *rhs.constant : *lhs.constant % *rhs.constant;
      return set(result, constantInfo(result, c));
    }
    return set(result, out);
  }
  case OpCode::Shl:
  case OpCode::Shr: {
    AxisInfo lhs = operandInfo(0), rhs = operandInfo(1);
    for (unsigned d = 0; d < rank; ++d)
      out.constancy[d] = std::gcd(lhs.constancy[d], rhs.constancy[d]);
    if (rhs.constant && *rhs.constant >= 0 && *rhs.constant < 30) {
      int64_t shift = *rhs.constant;
      for (unsigned d = 0; d < rank; ++d) {
        int64_t lhsDiv = lhs.contiguity[d] > 1 && shift != 0 ? 1 : lhs.divisibility[d];
        out.divisibility[d] = op.code() == OpCode::Shl ? capMul(lhsDiv, int64_t(1) << shift)
                                                       : std::max<int64_t>(1, lhsDiv >> shift);
        if (shift == 0)
          out.contiguity[d] = lhs.contiguity[d];
      }
    }
    return set(result, out);
  }
  case OpCode::Cmp: {
    AxisInfo lhs = operandInfo(0), rhs = operandInfo(1);
    const std::string &pred = op.strAttr("predicate");
    const Value *l = op.operand(0), *r = op.operand(1);
    for (unsigned d = 0; d < rank; ++d) {
      int64_t constancy = std::gcd(lhs.constancy[d], rhs.constancy[d]);
      // A contiguous run compared against a constant flips at most once, and only at a multiple
      // of both divisibilities: runs of that length have one answer.
      if ((pred == "gt" || pred == "le") && isConstantDim(lhs, l, d))
        constancy = std::max(constancy, std::gcd(rhs.contiguity[d], std::gcd(lhs.divisibility[d],
                                                                             rhs.divisibility[d])));
      else if ((pred == "lt" || pred == "ge") && isConstantDim(rhs, r, d))
        constancy = std::max(constancy, std::gcd(lhs.contiguity[d], std::gcd(lhs.divisibility[d],
                                                                             rhs.divisibility[d])));
      out.constancy[d] = constancy;
    }
    return set(result, out);
  }
  case OpCode::And:
  case OpCode::Or:
  case OpCode::Xor: {
    AxisInfo lhs = operandInfo(0), rhs = operandInfo(1);
    for (unsigned d = 0; d < rank; ++d)
      out.constancy[d] = std::gcd(lhs.constancy[d], rhs.constancy[d]);
    return set(result, out);
  }
  case OpCode::Select: {
    AxisInfo cond = operandInfo(0), lhs = operandInfo(1), rhs = operandInfo(2);
    if (cond.constant)
      return set(result, *cond.constant ? lhs : rhs);
    for (unsigned d = 0; d < rank; ++d) {
      out.contiguity[d] = std::min(std::gcd(lhs.contiguity[d], cond.constancy[d]),
                                   std::gcd(rhs.contiguity[d], cond.constancy[d]));
      out.divisibility[d] = std::gcd(lhs.divisibility[d], rhs.divisibility[d]);
      out.constancy[d] = std::min(std::gcd(lhs.constancy[d], rhs.constancy[d]), cond.constancy[d]);
    }
    return set(result, out);
  }
  case OpCode::Cast: {
    // Integer widening and narrowing of indices keep their runs (narrowing could wrap, which
    // Triton assumes away as well).
    const tir::DType &from = op.operand(0)->type().elem, &to = result->type().elem;
    if (from.isInteger() && !from.isBool() && to.isInteger() && !to.isBool())
      return set(result, operandInfo(0));
    AxisInfo in = operandInfo(0);
    out.constancy = in.constancy;
    return set(result, out);
  }
  default:
    break;
  }
  // Any other elementwise operation keeps at least the constancy its operands share.
  if (tir::isElementwise(op.code()) && op.numOperands() > 0) {
    for (unsigned d = 0; d < rank; ++d) {
      int64_t constancy = dimSize(result, d);
      for (const Value *v : op.operands())
        constancy = std::gcd(constancy, info(v).constancy[std::min(d, rankOf(v) - 1)]);
      out.constancy[d] = constancy;
    }
  }
  set(result, out);
}

} // namespace tilec::analysis
