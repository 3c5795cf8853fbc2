// Block pointers: tl.make_block_ptr, tl.advance, and tl.load / tl.store through them.
//
// A block pointer never reaches the IR. Sema keeps it as a SemaValue (the base pointer, the
// tensor's shape and strides as int64 scalars, the block's offsets as int32 scalars, and the
// constexpr block shape and order), and a load or store through it becomes what Triton's
// "rewrite tensor pointer" pass makes of it: a tensor of pointers
//
//   base + sum_d (offset_d + arange(0, B_d)) * stride_d        (in int64, shaped like the block)
//
// and, for each dimension in boundary_check, the mask 0 <= offset_d + arange(0, B_d) < shape_d.
// The strides are splatted to each dimension's expanded index before the product, so that the
// axis analysis sees a unit stride's contiguity and the others' divisibility, and loads stay
// vectorised. In a run-time loop only the offsets of a block pointer are carried (tl.advance
// changes nothing else), each as a hidden loop-carried name, so that the base, shape and strides
// keep what the axis analysis knows of them; a loop that changes more is built again carrying all
// of it. After a run-time `if`, the parts that differ between the two paths are the if's results.
#include "sema/Specializer.h"
#include "sema/TypeRules.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace tilec::sema {

using tir::DType;
using tir::OpCode;
using tir::ScalarKind;
using tir::Type;
using Kind = SemaValue::Kind;

namespace {

// Where each part of a block pointer sits in SemaValue::elems.
enum BlockPtrPart : size_t { kBase, kShape, kStrides, kOffsets, kBlockShape, kOrder, kNumParts };

const DType kI32 = DType::scalar(ScalarKind::I32);
const DType kI64 = DType::scalar(ScalarKind::I64);

/// A tuple argument's elements; a single value counts as a 1-tuple.
std::vector<SemaValue> elementsOf(const SemaValue &v) {
  if (v.kind == Kind::Tuple)
    return v.elems;
  return {v};
}

std::vector<int64_t> intsOf(const SemaValue &tuple) {
  std::vector<int64_t> out;
  for (const SemaValue &e : tuple.elems)
    out.push_back(e.intValue);
  return out;
}

size_t rankOf(const SemaValue &blockPtr) {
  return blockPtr.elems[kBlockShape].elems.size();
}

} // namespace

SemaValue Specializer::makeBlockPointer(CallArgs &args) {
  SourceLoc loc = args.loc;
  static const std::vector<std::string> params = {"base",    "shape",       "strides",
                                                  "offsets", "block_shape", "order"};
  std::vector<std::optional<SemaValue>> values(params.size());
  if (args.positional.size() > params.size())
    error(loc, "tl.make_block_ptr() takes 6 arguments, " + std::to_string(args.positional.size()) +
                   " given");
  for (size_t i = 0; i < args.positional.size(); ++i)
    values[i] = args.positional[i];
  for (const auto &[name, value] : args.keywords) {
    auto it = std::find(params.begin(), params.end(), name);
    if (it == params.end())
      error(loc, "tl.make_block_ptr() got an unexpected keyword argument '" + name + "'");
    if (values[it - params.begin()])
      error(loc, "tl.make_block_ptr() got multiple values for argument '" + name + "'");
    values[it - params.begin()] = value;
  }
  for (size_t i = 0; i < params.size(); ++i)
    if (!values[i])
      error(loc, "tl.make_block_ptr() is missing the argument '" + params[i] + "'");

  SemaValue base = *values[0];
  if (!base.isTensor() || !base.value->type().isScalar() || !base.value->type().elem.isPointer())
    error(loc, "tl.make_block_ptr's base must be a scalar pointer, not " + base.describe());
  // Booleans are bytes in memory: Triton makes a block pointer to int1 one to int8, whose loads
  // give int8 blocks and whose stores cast to int8.
  if (base.value->type().elem.pointee == ScalarKind::I1) {
    builder_.setLoc(loc);
    base = SemaValue::ofTensor(builder_.cast(base.value, DType::pointer(ScalarKind::I8)));
  }

  // The block shape and order are compile-time; they fix the rank.
  std::vector<SemaValue> blockShape = elementsOf(*values[4]), order = elementsOf(*values[5]);
  std::vector<int64_t> block;
  for (const SemaValue &d : blockShape) {
    if (d.kind != Kind::Int)
      error(loc, "tl.make_block_ptr's block_shape must be constexpr integers, not " + d.describe());
    if (d.intValue <= 0 || (d.intValue & (d.intValue - 1)) != 0)
      error(loc, "tl.make_block_ptr's block_shape must be powers of two, got " +
                     std::to_string(d.intValue));
    block.push_back(d.intValue);
  }
  checkTensorSize(block, loc);
  size_t rank = block.size();
  std::vector<bool> seen(rank, false);
  for (const SemaValue &o : order) {
    if (o.kind != Kind::Int || o.intValue < 0 || o.intValue >= static_cast<int64_t>(rank) ||
        seen[o.intValue])
      error(loc, "tl.make_block_ptr's order must be a permutation of 0 .. " +
                     std::to_string(rank - 1) + " (constexpr integers)");
    seen[o.intValue] = true;
  }

  std::vector<SemaValue> parts[3];
  const char *names[3] = {"shape", "strides", "offsets"};
  for (int p = 0; p < 3; ++p) {
    std::vector<SemaValue> given = elementsOf(*values[1 + p]);
    if (given.size() != rank || order.size() != rank)
      error(loc, std::string("tl.make_block_ptr's shape, strides, offsets, block_shape and order "
                             "must have one entry per dimension; ") +
                     names[p] + " has " + std::to_string(given.size()) + " and block_shape " +
                     std::to_string(rank));
    // The shape and strides are int64 and the offsets int32, as in Triton.
    bool isOffset = p == 2;
    DType type = isOffset ? kI32 : kI64;
    for (const SemaValue &v : given) {
      tir::Value *value;
      if (v.kind == Kind::Int) {
        if (isOffset && (v.intValue < std::numeric_limits<int32_t>::min() ||
                         v.intValue > std::numeric_limits<int32_t>::max()))
          error(loc, "tl.make_block_ptr's offsets must fit in int32, got " + v.repr());
        value = materialize(v, loc, type);
      } else if (v.isTensor() && v.value->type().isScalar() && v.value->type().elem.isInteger() &&
                 !v.value->type().elem.isBool()) {
        if (isOffset && v.value->type().elem != kI32)
          error(loc, "block pointers only support int32 offsets, got " + v.describe() +
                         " (add .to(tl.int32), or use a tensor of pointers for 64-bit offsets)");
        value = castTo(v.value, type);
      } else {
        error(loc, std::string("tl.make_block_ptr's ") + names[p] +
                       " must be integer scalars or constexpr integers, not " + v.describe());
      }
      parts[p].push_back(SemaValue::ofTensor(value));
    }
  }
  SemaValue r;
  r.kind = Kind::BlockPtr;
  r.elems.resize(kNumParts);
  r.elems[kBase] = base;
  r.elems[kShape] = SemaValue::ofTuple(parts[0]);
  r.elems[kStrides] = SemaValue::ofTuple(parts[1]);
  r.elems[kOffsets] = SemaValue::ofTuple(parts[2]);
  r.elems[kBlockShape] = SemaValue::ofTuple(blockShape);
  r.elems[kOrder] = SemaValue::ofTuple(order);
  return r;
}

SemaValue Specializer::advanceBlockPointer(CallArgs &args) {
  SourceLoc loc = args.loc;
  std::optional<SemaValue> base, offsets;
  if (args.positional.size() > 2)
    error(loc, "tl.advance() takes 2 arguments");
  if (!args.positional.empty())
    base = args.positional[0];
  if (args.positional.size() > 1)
    offsets = args.positional[1];
  for (const auto &[name, value] : args.keywords) {
    std::optional<SemaValue> &slot = name == "base" ? base : offsets;
    if (name != "base" && name != "offsets")
      error(loc, "tl.advance() got an unexpected keyword argument '" + name + "'");
    if (slot)
      error(loc, "tl.advance() got multiple values for argument '" + name + "'");
    slot = value;
  }
  if (!base || !offsets)
    error(loc, "tl.advance() needs a block pointer and offsets");
  if (base->kind != Kind::BlockPtr)
    error(loc, "tl.advance needs a block pointer (tl.make_block_ptr), not " + base->describe());
  std::vector<SemaValue> deltas = elementsOf(*offsets);
  if (deltas.size() != rankOf(*base))
    error(loc, "tl.advance needs one offset per dimension of the block pointer (" +
                   std::to_string(rankOf(*base)) + "), got " + std::to_string(deltas.size()));
  SemaValue r = *base;
  for (size_t d = 0; d < deltas.size(); ++d) {
    const SemaValue &delta = deltas[d];
    if (delta.kind == Kind::Int) {
      if (delta.intValue < std::numeric_limits<int32_t>::min() ||
          delta.intValue > std::numeric_limits<int32_t>::max())
        error(loc, "tl.advance's offsets must fit in int32, got " + delta.repr());
      if (delta.intValue == 0)
        continue;
    } else if (!delta.isTensor() || !delta.value->type().isScalar() ||
               delta.value->type().elem != kI32) {
      error(loc, "tl.advance's offsets must be int32 scalars or constexpr integers, not " +
                     delta.describe());
    }
    // int32 arithmetic, wrapping like Triton's.
    tir::Value *old = r.elems[kOffsets].elems[d].value;
    r.elems[kOffsets].elems[d] =
        SemaValue::ofTensor(builder_.binary(OpCode::Add, old, materialize(delta, loc, kI32)));
  }
  return r;
}

std::vector<int64_t> Specializer::boundaryCheckDims(const SemaValue *boundaryCheck, size_t rank,
                                                    SourceLoc loc) {
  std::vector<int64_t> dims;
  if (!boundaryCheck)
    return dims;
  for (const SemaValue &d : elementsOf(*boundaryCheck)) {
    if (d.kind != Kind::Int || d.intValue < 0 || d.intValue >= static_cast<int64_t>(rank))
      error(loc, "boundary_check must list dimensions of the block (0 .. " +
                     std::to_string(rank - 1) + "), got " + d.describe());
    if (std::find(dims.begin(), dims.end(), d.intValue) != dims.end())
      error(loc, "boundary_check lists dimension " + std::to_string(d.intValue) + " twice");
    dims.push_back(d.intValue);
  }
  std::sort(dims.begin(), dims.end());
  return dims;
}

std::pair<tir::Value *, tir::Value *>
Specializer::blockPointerAddresses(const SemaValue &blockPtr, const std::vector<int64_t> &checked,
                                   SourceLoc loc) {
  std::vector<int64_t> block = intsOf(blockPtr.elems[kBlockShape]);
  size_t rank = block.size();
  // The address of element r is base + sum_d (offset_d + r_d) * stride_d, computed as the scalar
  // base + sum_d offset_d * stride_d plus the tensor sum_d r_d * stride_d (the same int64
  // values): the tensor part depends on no offset, so in a loop that advances the offsets it is
  // computed once, and each iteration adds scalars only. Likewise offset_d + r_d in [0, shape_d)
  // is r_d in [-offset_d, shape_d - offset_d): one scalar subtraction per dimension.
  std::vector<tir::Value *> offsets;
  tir::Value *start = blockPtr.elems[kBase].value;
  for (size_t d = 0; d < rank; ++d) {
    tir::Value *offset = castTo(blockPtr.elems[kOffsets].elems[d].value, kI64);
    offsets.push_back(offset);
    tir::Value *scaled =
        builder_.binary(OpCode::Mul, offset, blockPtr.elems[kStrides].elems[d].value);
    start = builder_.addPtr(start, scaled);
  }
  tir::Value *ptr = broadcastTo(start, block, loc);
  tir::Value *mask = nullptr;
  for (size_t d = 0; d < rank; ++d) {
    // arange(0, B_d) in int64, shaped [1, .., B_d, .., 1].
    tir::Value *index = castTo(builder_.makeRange(0, block[d]), kI64);
    for (size_t k = 0; k < d; ++k)
      index = builder_.expandDims(index, 0);
    for (size_t k = d + 1; k < rank; ++k)
      index = builder_.expandDims(index, static_cast<unsigned>(k));
    const std::vector<int64_t> &shape = index->type().shape;
    tir::Value *stride = builder_.splat(blockPtr.elems[kStrides].elems[d].value, shape);
    tir::Value *scaled = builder_.binary(OpCode::Mul, index, stride);
    ptr = builder_.addPtr(ptr, broadcastTo(scaled, block, loc));
    if (std::find(checked.begin(), checked.end(), static_cast<int64_t>(d)) == checked.end())
      continue;
    tir::Value *zero = materialize(SemaValue::ofInt(0), loc, kI64);
    // One statement each: the order of the ops must not depend on argument evaluation order.
    tir::Value *first = builder_.binary(OpCode::Sub, zero, offsets[d]);
    tir::Value *end =
        builder_.binary(OpCode::Sub, blockPtr.elems[kShape].elems[d].value, offsets[d]);
    tir::Value *aboveFirst = builder_.cmp("ge", index, builder_.splat(first, shape));
    tir::Value *belowEnd = builder_.cmp("lt", index, builder_.splat(end, shape));
    tir::Value *inside = builder_.binary(OpCode::And, aboveFirst, belowEnd);
    inside = broadcastTo(inside, block, loc);
    mask = mask ? builder_.binary(OpCode::And, mask, inside) : inside;
  }
  return {ptr, mask};
}

SemaValue Specializer::loadBlockPointer(const SemaValue &blockPtr, const SemaValue *boundaryCheck,
                                        const SemaValue *padding, SourceLoc loc, bool descriptor) {
  DType elem = blockPtr.elems[kBase].value->type().elem.pointeeType();
  std::string option = "";
  if (padding) {
    if (padding->kind != Kind::String)
      error(loc, "padding_option must be \"zero\", \"nan\" or \"\", not " + padding->describe());
    option = padding->name;
    if (option != "" && option != "zero" && option != "nan")
      error(loc, "padding_option must be \"zero\", \"nan\" or \"\", not '" + option + "'");
    if (option == "nan" && !elem.isFloat())
      error(loc, "padding_option \"nan\" is not supported for integer block pointers");
  }
  std::vector<int64_t> checked = boundaryCheckDims(boundaryCheck, rankOf(blockPtr), loc);
  auto [ptr, mask] = blockPointerAddresses(blockPtr, checked, loc);
  std::vector<tir::Value *> operands = {ptr};
  if (mask) {
    operands.push_back(mask);
    // Without a padding option the elements outside stay unspecified (as Triton's); the loads
    // still fill them with zeros.
    if (option == "zero" || option == "nan") {
      double fill = option == "zero" ? 0.0 : std::numeric_limits<double>::quiet_NaN();
      tir::Value *other = !elem.isFloat() ? builder_.intConstant(0, Type(elem))
                          : descriptor && option == "nan"
                              ? tmaNanFill(Type(elem))
                              : builder_.floatConstant(fill, Type(elem));
      operands.push_back(builder_.splat(other, ptr->type().shape));
    }
  }
  return SemaValue::ofTensor(
      builder_.createValue(OpCode::Load, operands, Type(elem, ptr->type().shape)));
}

bool Specializer::hasUnitLastStride(const std::vector<SemaValue> &strides) {
  const tir::Operation *constant = strides.back().value->definingOp();
  return constant && constant->code() == OpCode::Constant && constant->hasAttr("value") &&
         std::holds_alternative<int64_t>(constant->attr("value")) &&
         constant->intAttr("value") == 1;
}

void Specializer::appendTmaOperands(tir::Operation &load, const std::vector<SemaValue> &offsets,
                                    tir::Value *base, const std::vector<tir::Value *> &shape,
                                    const std::vector<SemaValue> &strides, bool fillNan) {
  for (const SemaValue &offset : offsets)
    load.addOperand(offset.value);
  load.addOperand(base);
  for (tir::Value *extent : shape)
    load.addOperand(extent);
  for (size_t d = 0; d + 1 < strides.size(); ++d)
    load.addOperand(strides[d].value);
  load.setAttr("kernel_descriptor", int64_t(shape.size()));
  load.setAttr("fill_nan", fillNan);
}

void Specializer::addBlockPointerTmaOperands(const SemaValue &blockPtr,
                                             const SemaValue *boundaryCheck,
                                             const SemaValue *padding, SourceLoc loc,
                                             tir::Operation &load) {
  // TMA copies a box of a row-major 2-D tensor whose rows are contiguous, and fills what lies
  // outside the shape: only where the load checks both bounds does that give the load's result.
  const size_t rank = rankOf(blockPtr);
  if (rank != 2 || load.code() != OpCode::Load || load.numOperands() < 2 ||
      boundaryCheckDims(boundaryCheck, rank, loc).size() != rank)
    return;
  const std::vector<SemaValue> &order = blockPtr.elems[kOrder].elems;
  if (order[0].intValue != 1 || order[1].intValue != 0)
    return;
  if (!hasUnitLastStride(blockPtr.elems[kStrides].elems))
    return;
  DType elem = load.result()->type().elem;
  if (elem.isPointer() || elem.isBool())
    return;
  if (load.numOperands() == 2) {
    // No padding option: the elements outside are unspecified, and TMA's zeros will do. The
    // pipeliner drops this `other` again where it does not use TMA.
    tir::Value *zero = elem.isFloat() ? builder_.floatConstant(0.0, Type(elem))
                                      : builder_.intConstant(0, Type(elem));
    load.addOperand(builder_.splat(zero, load.result()->type().shape));
    load.setAttr("implicit_other", true);
  }
  // TMA's dimensions are 32-bit (at most 2^32): the shape's low 32 bits.
  std::vector<tir::Value *> shape;
  for (const SemaValue &extent : blockPtr.elems[kShape].elems)
    shape.push_back(castTo(extent.value, kI32));
  appendTmaOperands(load, blockPtr.elems[kOffsets].elems, blockPtr.elems[kBase].value, shape,
                    blockPtr.elems[kStrides].elems,
                    padding && padding->kind == Kind::String && padding->name == "nan");
  // The zero `other` and the shape's casts were made after the load, which must follow them.
  tir::Block &block = *load.parentBlock();
  std::unique_ptr<tir::Operation> moved = block.remove(&load);
  block.insert(block.ops().end(), std::move(moved));
}

tir::Operation *Specializer::storeBlockPointer(const SemaValue &blockPtr, const SemaValue &value,
                                               const SemaValue *boundaryCheck, SourceLoc loc) {
  DType elem = blockPtr.elems[kBase].value->type().elem.pointeeType();
  std::vector<int64_t> block = intsOf(blockPtr.elems[kBlockShape]);
  if (!value.isTensor() && !value.isConstexprNumber())
    error(loc, "tl.store's value must be a tensor or a number, not " + value.describe());
  tir::Value *v = toTensorAs(value, loc, elem);
  if (v->type().isScalar())
    v = broadcastTo(v, block, loc);
  if (v->type().shape != block)
    error(loc, "the value stored through a block pointer must have the block's shape " +
                   Type(elem, block).str() + ", not " + v->type().str());
  std::vector<int64_t> checked = boundaryCheckDims(boundaryCheck, block.size(), loc);
  auto [ptr, mask] = blockPointerAddresses(blockPtr, checked, loc);
  std::vector<tir::Value *> operands = {ptr, v};
  if (mask)
    operands.push_back(mask);
  return builder_.create(OpCode::Store, operands, {});
}

SemaValue Specializer::blockPointerAt(const SemaValue &base, std::vector<SemaValue> shape,
                                      std::vector<SemaValue> strides,
                                      std::vector<SemaValue> offsets, const SemaValue &blockShape) {
  // Row-major order: a descriptor's last dimension is the contiguous one.
  std::vector<SemaValue> order;
  for (size_t d = blockShape.elems.size(); d-- > 0;)
    order.push_back(SemaValue::ofInt(static_cast<int64_t>(d)));
  SemaValue r;
  r.kind = Kind::BlockPtr;
  r.elems.resize(kNumParts);
  r.elems[kBase] = base;
  r.elems[kShape] = SemaValue::ofTuple(std::move(shape));
  r.elems[kStrides] = SemaValue::ofTuple(std::move(strides));
  r.elems[kOffsets] = SemaValue::ofTuple(std::move(offsets));
  r.elems[kBlockShape] = blockShape;
  r.elems[kOrder] = SemaValue::ofTuple(std::move(order));
  return r;
}

bool Specializer::sameBlockPointer(const SemaValue &a, const SemaValue &b) {
  if (a.kind != Kind::BlockPtr || b.kind != Kind::BlockPtr)
    return false;
  if (a.elems[kBlockShape].repr() != b.elems[kBlockShape].repr() ||
      a.elems[kOrder].repr() != b.elems[kOrder].repr() ||
      a.elems[kBase].value != b.elems[kBase].value)
    return false;
  for (size_t p : {kShape, kStrides, kOffsets})
    for (size_t d = 0; d < rankOf(a); ++d)
      if (a.elems[p].elems[d].value != b.elems[p].elems[d].value)
        return false;
  return true;
}

//===----------------------------------------------------------------------===//
// Block pointers in run-time control flow
//===----------------------------------------------------------------------===//

namespace {

// Tensor descriptors (TensorDescriptors.cpp) share this machinery: their run-time values are the
// base, the shape and the strides (parts 0, 1 and 2 there as here), and their block shape and
// padding option are compile-time (parts 3 and 4 there).
constexpr size_t kDescriptorBlockShape = 3, kDescriptorPadding = 4;

/// The run-time values of a block pointer or tensor descriptor, as (part, dimension) pairs: a
/// block pointer's offsets only, or with `whole` the base, shape, strides (and offsets).
std::vector<std::pair<size_t, size_t>> components(const SemaValue &blockPtr, bool whole) {
  std::vector<std::pair<size_t, size_t>> out;
  bool descriptor = blockPtr.kind == Kind::TensorDesc;
  if (whole || descriptor)
    out.push_back({kBase, 0});
  size_t rank = descriptor ? blockPtr.elems[kShape].elems.size() : rankOf(blockPtr);
  for (size_t p : {kShape, kStrides, kOffsets}) {
    if (descriptor && p == kOffsets)
      continue;
    if (!whole && !descriptor && p != kOffsets)
      continue;
    for (size_t d = 0; d < rank; ++d)
      out.push_back({p, d});
  }
  return out;
}

SemaValue &component(SemaValue &blockPtr, std::pair<size_t, size_t> at) {
  return at.first == kBase ? blockPtr.elems[kBase] : blockPtr.elems[at.first].elems[at.second];
}

const SemaValue &component(const SemaValue &blockPtr, std::pair<size_t, size_t> at) {
  return at.first == kBase ? blockPtr.elems[kBase] : blockPtr.elems[at.first].elems[at.second];
}

/// Whether two block pointers (or two tensor descriptors) have the same block shape, order (or
/// padding option) and element type: what no run-time value can carry.
bool sameStaticPart(const SemaValue &a, const SemaValue &b) {
  if (a.kind == Kind::TensorDesc && b.kind == Kind::TensorDesc) {
    const SemaValue &pa = a.elems[kDescriptorPadding], &pb = b.elems[kDescriptorPadding];
    return a.elems[kDescriptorBlockShape].repr() == b.elems[kDescriptorBlockShape].repr() &&
           pa.kind == Kind::String && pb.kind == Kind::String && pa.name == pb.name &&
           a.elems[kBase].value->type().elem == b.elems[kBase].value->type().elem;
  }
  return a.kind == Kind::BlockPtr && b.kind == Kind::BlockPtr &&
         a.elems[kBlockShape].repr() == b.elems[kBlockShape].repr() &&
         a.elems[kOrder].repr() == b.elems[kOrder].repr() &&
         a.elems[kBase].value->type().elem == b.elems[kBase].value->type().elem;
}

} // namespace

std::vector<Specializer::CarriedBlockPointer>
Specializer::splitCarriedBlockPointers(std::vector<std::string> &carried, const ast::Stmt &loop) {
  std::vector<CarriedBlockPointer> out;
  std::vector<std::string> names;
  for (const std::string &name : carried) {
    const SemaValue &v = scopes_.back().names.at(name);
    bool descriptor =
        v.kind == Kind::TensorDesc && v.elems[kDescriptorPadding].kind == Kind::String;
    if (v.kind != Kind::BlockPtr && !descriptor) {
      names.push_back(name);
      continue;
    }
    // A tensor descriptor made anew in the loop travels whole (base, shape and strides).
    bool whole = descriptor || wholeBlockPointers_.count({&loop, name}) != 0;
    CarriedBlockPointer c{name, v, whole, {}};
    for (auto at : components(v, whole)) {
      // Not an identifier: no kernel can name it.
      c.hidden.push_back(name + "#" + std::to_string(at.first) + "." + std::to_string(at.second));
      bind(c.hidden.back(), component(v, at));
      names.push_back(c.hidden.back());
    }
    out.push_back(std::move(c));
  }
  carried = std::move(names);
  return out;
}

void Specializer::rebuildCarriedBlockPointers(const std::vector<CarriedBlockPointer> &pointers) {
  for (const CarriedBlockPointer &c : pointers) {
    SemaValue v = c.before;
    auto parts = components(v, c.whole);
    for (size_t i = 0; i < parts.size(); ++i)
      component(v, parts[i]) = scopes_.back().names.at(c.hidden[i]);
    bind(c.name, v);
  }
}

bool Specializer::exposeCarriedBlockPointers(const std::vector<CarriedBlockPointer> &pointers,
                                             const ast::Stmt &loop) {
  bool settled = true;
  for (const CarriedBlockPointer &c : pointers) {
    const SemaValue &now = scopes_.back().names.at(c.name);
    const char *what = c.before.kind == Kind::TensorDesc ? "tensor descriptor" : "block pointer";
    if (now.kind != c.before.kind)
      error(loop.loc, "'" + c.name + "' is a " + what + " before the loop and " + now.describe() +
                          " after an iteration");
    if (!sameStaticPart(now, c.before))
      error(loop.loc, std::string("the ") + what + " '" + c.name + "' gets another block shape, " +
                          (c.before.kind == Kind::TensorDesc ? "padding" : "order") +
                          " or element type in this loop");
    if (!c.whole) {
      // Only the offsets travel: anything else that changed needs the loop built again with
      // the whole block pointer carried.
      SemaValue rest = now;
      for (size_t d = 0; d < rankOf(rest); ++d)
        rest.elems[kOffsets].elems[d] = c.before.elems[kOffsets].elems[d];
      if (!sameBlockPointer(rest, c.before)) {
        wholeBlockPointers_.insert({&loop, c.name});
        settled = false;
        continue;
      }
    }
    auto parts = components(now, c.whole);
    for (size_t i = 0; i < parts.size(); ++i)
      bind(c.hidden[i], component(now, parts[i]));
  }
  return settled;
}

std::vector<Specializer::MergedBlockPointer>
Specializer::mergeBlockPointers(const std::string &name, const SemaValue &thenValue,
                                const SemaValue &elseValue, SourceLoc loc) {
  if (!sameStaticPart(thenValue, elseValue))
    error(loc, "'" + name + "' is " + thenValue.describe() + " on one path of this if and " +
                   elseValue.describe() + " on the other" +
                   (thenValue.kind != elseValue.kind ? ""
                    : thenValue.kind == Kind::TensorDesc
                        ? " (another block shape, padding or type, or a padding known only at run "
                          "time, which is not supported yet)"
                        : " (another block shape, order or type)"));
  std::vector<MergedBlockPointer> out;
  for (auto at : components(thenValue, true))
    if (component(thenValue, at).value != component(elseValue, at).value)
      out.push_back(
          {at.first, at.second, component(thenValue, at).value, component(elseValue, at).value});
  return out;
}

SemaValue Specializer::mergedBlockPointer(const SemaValue &thenValue,
                                          const std::vector<MergedBlockPointer> &merged,
                                          const std::vector<tir::Value *> &results) {
  SemaValue v = thenValue;
  for (size_t i = 0; i < merged.size(); ++i)
    component(v, {merged[i].part, merged[i].dim}) = SemaValue::ofTensor(results[i]);
  return v;
}

} // namespace tilec::sema
