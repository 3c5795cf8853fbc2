// Tensor descriptors: tl.make_tensor_descriptor, `tensordesc<...>` kernel arguments, and
// desc.load / desc.store (tl.load_tensor_descriptor / tl.store_tensor_descriptor).
//
// A descriptor never reaches the IR, as a block pointer does not: sema keeps its base, shape,
// strides, block shape and padding as a SemaValue, and each load or store builds the block
// pointer at its offsets with every dimension bounds-checked. That is Triton's semantics where
// it does not use TMA: elements outside [0, shape) read as the padding (zero, or NaN for
// padding_option="nan") and are not written. The tensor of pointers, the mask and the way the
// axis analysis sees them are the block pointers' (BlockPointers.cpp). A load through a
// descriptor argument also carries its attribute `descriptor` and its offsets, so that the
// pipeliner may copy the tile by TMA on Hopper instead (gpu/SoftwarePipeliner.cpp); the copy
// fills the elements outside with the padding the runtime encodes in the tensor map. A store
// through a descriptor argument carries them likewise, after its mask, for a TMA store
// (gpu/TmaStores.cpp), which writes nothing outside. A load through a descriptor made in the
// kernel carries its offsets and what the descriptor is made of (base, shape, strides): on
// Hopper the pipeliner may write a tensor map of them in global scratch and copy by TMA, as
// Triton 3.6 does.
//
// Triton requires the last stride to be 1. Where it is a constant, tilec checks it; a kernel
// argument's last stride is taken to be 1 (the runtime checks the value passed), so the last
// dimension is contiguous and loads are vectorised; a run-time last stride of
// make_tensor_descriptor (which Triton rejects) is used as given.
#include "sema/Specializer.h"
#include "sema/TypeRules.h"

#include <limits>
#include <optional>
#include <set>

namespace tilec::sema {

using tir::DType;
using tir::ScalarKind;
using tir::Type;
using Kind = SemaValue::Kind;

namespace {

// Where each part of a descriptor sits in SemaValue::elems.
enum DescriptorPart : size_t { kBase, kShape, kStrides, kBlockShape, kPadding, kNumParts };

const DType kI1 = DType::scalar(ScalarKind::I1);
const DType kI32 = DType::scalar(ScalarKind::I32);
const DType kI64 = DType::scalar(ScalarKind::I64);

/// Triton's limit: TMA handles at most five dimensions.
constexpr size_t kMaxRank = 5;

/// A list argument's elements; a single value counts as a 1-element list.
std::vector<SemaValue> elementsOf(const SemaValue &v) {
  if (v.kind == Kind::Tuple)
    return v.elems;
  return {v};
}

size_t rankOf(const SemaValue &desc) {
  return desc.elems[kBlockShape].elems.size();
}

DType elementOf(const SemaValue &desc) {
  return desc.elems[kBase].value->type().elem.pointeeType();
}

} // namespace

SemaValue Specializer::makeTensorDescriptor(CallArgs &args) {
  SourceLoc loc = args.loc;
  const std::string fn = "tl.make_tensor_descriptor";
  std::vector<std::optional<SemaValue>> values = bindCallArgs(
      *this, fn, {"base", "shape", "strides", "block_shape", "padding_option"}, 4, args);

  const SemaValue &base = *values[0];
  if (!base.isTensor() || !base.value->type().isScalar() || !base.value->type().elem.isPointer())
    error(loc, fn + "'s base must be a scalar pointer, not " + base.describe());
  DType elem = base.value->type().elem.pointeeType();
  if (elem.kind == ScalarKind::I1)
    error(loc, "tensor descriptors of int1 are not supported yet");

  std::vector<SemaValue> shape = elementsOf(*values[1]), strides = elementsOf(*values[2]);
  size_t rank = shape.size();
  if (rank < 1 || rank > kMaxRank)
    error(loc, fn + " needs 1 to 5 dimensions, got " + std::to_string(rank));
  if (strides.size() != rank)
    error(loc, fn + " needs one stride per dimension of the shape (" + std::to_string(rank) +
                   "), got " + std::to_string(strides.size()));

  // The block shape is compile-time (Triton's validate_block_shape), one entry per dimension.
  std::vector<SemaValue> blockShape = elementsOf(*values[3]);
  if (blockShape.size() != rank)
    error(loc, fn + "'s block_shape needs one entry per dimension of the shape (" +
                   std::to_string(rank) + "), got " + std::to_string(blockShape.size()));
  std::vector<int64_t> block;
  for (const SemaValue &d : blockShape) {
    if (d.kind != Kind::Int)
      error(loc, fn + "'s block_shape must be constexpr integers, not " + d.describe());
    if (d.intValue <= 0 || (d.intValue & (d.intValue - 1)) != 0)
      error(loc, fn + "'s block_shape must be powers of two, got " + std::to_string(d.intValue));
    block.push_back(d.intValue);
  }
  checkTensorSize(block, loc);
  // As in Triton: TMA moves at least 16 bytes along the contiguous dimension.
  int64_t lastBytes = block.back() * static_cast<int64_t>(elem.bits() / 8);
  if (lastBytes < 16)
    error(loc, fn + "'s block must have at least 16 bytes in the last dimension, got " +
                   std::to_string(block.back()) + " x " + std::to_string(elem.bits() / 8) + " = " +
                   std::to_string(lastBytes) + " bytes");

  const SemaValue &lastStride = strides.back();
  if (lastStride.kind == Kind::Int && lastStride.intValue != 1)
    error(loc, fn + "'s last stride must be 1 (the last dimension is contiguous), got " +
                   std::to_string(lastStride.intValue));

  // The shape is int32 and the strides int64, as in Triton.
  auto scalars = [&](const std::vector<SemaValue> &given, DType type, const char *what) {
    std::vector<SemaValue> out;
    for (const SemaValue &v : given) {
      tir::Value *value;
      if (v.kind == Kind::Int) {
        if (type == kI32 && (v.intValue < std::numeric_limits<int32_t>::min() ||
                             v.intValue > std::numeric_limits<int32_t>::max()))
          error(loc, fn + "'s " + what + " must fit in int32, got " + v.repr());
        value = materialize(v, loc, type);
      } else if (v.isTensor() && v.value->type().isScalar() && v.value->type().elem.isInteger() &&
                 !v.value->type().elem.isBool()) {
        value = castTo(v.value, type);
      } else {
        error(loc, fn + "'s " + what + " must be integer scalars or constexpr integers, not " +
                       v.describe());
      }
      out.push_back(SemaValue::ofTensor(value));
    }
    return out;
  };

  SemaValue padding = SemaValue::ofString("zero");
  if (isGiven(values[4])) {
    padding = *values[4];
    if (padding.kind != Kind::String || (padding.name != "zero" && padding.name != "nan"))
      error(loc,
            fn + "'s padding_option must be \"zero\" or \"nan\", not " +
                (padding.kind == Kind::String ? "'" + padding.name + "'" : padding.describe()));
    if (padding.name == "nan" && !elem.isFloat())
      error(loc, "padding_option \"nan\" is not supported for integer tensor descriptors");
  }

  SemaValue r;
  r.kind = Kind::TensorDesc;
  r.elems.resize(kNumParts);
  r.elems[kBase] = base;
  r.elems[kShape] = SemaValue::ofTuple(scalars(shape, kI32, "shape"));
  r.elems[kStrides] = SemaValue::ofTuple(scalars(strides, kI64, "strides"));
  r.elems[kBlockShape] = SemaValue::ofTuple(blockShape);
  r.elems[kPadding] = padding;
  return r;
}

SemaValue Specializer::tensorDescriptorArgument(const tir::TensorDescParam &param) {
  size_t rank = param.blockShape.size();
  auto argument = [&](size_t i) {
    return SemaValue::ofTensor(function_.body().argument(param.firstParam + i));
  };
  std::vector<SemaValue> shape, strides, block;
  for (size_t d = 0; d < rank; ++d) {
    // The shape stays int64 here: the bounds checks use all of it.
    shape.push_back(argument(1 + d));
    strides.push_back(argument(1 + rank + d));
    block.push_back(SemaValue::ofInt(param.blockShape[d]));
  }
  // The runtime refuses a last stride other than 1 (Triton's TensorDescriptor asserts it), so the
  // kernel may rely on it.
  strides.back() = SemaValue::ofTensor(builder_.intConstant(1, Type(kI64)));
  SemaValue r;
  r.kind = Kind::TensorDesc;
  r.elems.resize(kNumParts);
  r.elems[kBase] = argument(0);
  r.elems[kShape] = SemaValue::ofTuple(std::move(shape));
  r.elems[kStrides] = SemaValue::ofTuple(std::move(strides));
  r.elems[kBlockShape] = SemaValue::ofTuple(std::move(block));
  r.elems[kPadding] = argument(1 + 2 * rank);
  return r;
}

namespace {

/// The block pointer of a load or store at \p offsets: the descriptor's base, shape and strides
/// in int64, the offsets in int32 (as Triton converts them).
SemaValue descriptorBlockPointer(Specializer &s, const SemaValue &desc, const SemaValue &offsets,
                                 const std::string &what, SourceLoc loc) {
  if (desc.kind != Kind::TensorDesc)
    s.error(loc, what + " needs a tensor descriptor (tl.make_tensor_descriptor), not " +
                     desc.describe());
  std::vector<SemaValue> given = elementsOf(offsets);
  size_t rank = rankOf(desc);
  if (given.size() != rank)
    s.error(loc, what + " needs one offset per dimension of the descriptor (" +
                     std::to_string(rank) + "), got " + std::to_string(given.size()));
  std::vector<SemaValue> shape, strides, converted;
  for (size_t d = 0; d < rank; ++d) {
    shape.push_back(SemaValue::ofTensor(s.castTo(desc.elems[kShape].elems[d].value, kI64)));
    strides.push_back(desc.elems[kStrides].elems[d]);
    const SemaValue &v = given[d];
    tir::Value *offset;
    if (v.kind == Kind::Int) {
      if (v.intValue < std::numeric_limits<int32_t>::min() ||
          v.intValue > std::numeric_limits<int32_t>::max())
        s.error(loc, what + "'s offsets must fit in int32, got " + v.repr());
      offset = s.materialize(v, loc, kI32);
    } else if (v.isTensor() && v.value->type().isScalar() && v.value->type().elem.isInteger() &&
               !v.value->type().elem.isBool()) {
      if (v.value->type().elem.bits() == 64)
        s.error(loc, "tensor descriptors only support 32-bit offsets, got " + v.describe() +
                         " (add .to(tl.int32))");
      offset = s.castTo(v.value, kI32);
    } else {
      s.error(loc, what + "'s offsets must be integer scalars or constexpr integers, not " +
                       v.describe());
    }
    converted.push_back(SemaValue::ofTensor(offset));
  }
  return s.blockPointerAt(desc.elems[kBase], std::move(shape), std::move(strides),
                          std::move(converted), desc.elems[kBlockShape]);
}

/// Every dimension, for boundary_check.
SemaValue allDimensions(size_t rank) {
  std::vector<SemaValue> dims;
  for (size_t d = 0; d < rank; ++d)
    dims.push_back(SemaValue::ofInt(static_cast<int64_t>(d)));
  return SemaValue::ofTuple(std::move(dims));
}

} // namespace

/// The NaN that TMA writes for elements outside a descriptor's shape with padding "nan", which
/// Triton loads descriptors with on sm_90: 0x7FF77FF7 in fp32, 0x7FF7 in fp16 and bf16 (measured on
/// an H200). The loads that do not use TMA fill with the same bits, so that both give Triton's.
tir::Value *Specializer::tmaNanFill(const Type &scalar) {
  uint64_t bits = 0;
  ScalarKind same = ScalarKind::I32;
  switch (scalar.elem.kind) {
  case ScalarKind::F32:
    bits = 0x7FF77FF7;
    break;
  case ScalarKind::F16:
  case ScalarKind::BF16:
    bits = 0x7FF7;
    same = ScalarKind::I16;
    break;
  default:
    return builder_.floatConstant(std::numeric_limits<double>::quiet_NaN(), scalar);
  }
  tir::Value *integer = builder_.intConstant(static_cast<int64_t>(bits), Type(DType::scalar(same)));
  return builder_.createValue(tir::OpCode::Bitcast, {integer}, scalar);
}

SemaValue Specializer::loadTensorDescriptor(const SemaValue &desc, const SemaValue &offsets,
                                            SourceLoc loc) {
  SemaValue blockPtr = descriptorBlockPointer(*this, desc, offsets, "a descriptor load", loc);
  const SemaValue &padding = desc.elems[kPadding];
  DType elem = elementOf(desc);
  std::optional<unsigned> argument = descriptorArgument(desc);
  if (!argument && (padding.kind == Kind::String || !elem.isFloat())) {
    // A constant padding (integers always pad with zeros) is the block pointer's.
    SemaValue option = SemaValue::ofString(padding.kind == Kind::String ? padding.name : "zero");
    SemaValue dims = allDimensions(rankOf(desc));
    SemaValue loaded = loadBlockPointer(blockPtr, &dims, &option, loc, /*descriptor=*/true);
    addKernelDescriptorOperands(desc, blockPtr, *loaded.value->definingOp());
    loaded.value->definingOp()->setAttr("tensor_descriptor", true);
    return loaded;
  }
  std::vector<int64_t> all;
  for (size_t d = 0; d < rankOf(desc); ++d)
    all.push_back(static_cast<int64_t>(d));
  auto [ptr, mask] = blockPointerAddresses(blockPtr, all, loc);
  Type scalar(elem);
  tir::Value *fill;
  if (!elem.isFloat()) {
    fill = builder_.intConstant(0, scalar);
  } else if (padding.kind == Kind::String) {
    fill = padding.name == "nan" ? tmaNanFill(scalar) : builder_.floatConstant(0.0, scalar);
  } else {
    // A kernel argument's padding is known at run time only: NaN where its flag is set.
    fill = builder_.select(padding.value, tmaNanFill(scalar), builder_.floatConstant(0.0, scalar));
  }
  std::vector<tir::Value *> operands{ptr, mask, builder_.splat(fill, ptr->type().shape)};
  if (argument) // the tile is also the box of a TMA copy at these offsets, if the pipeliner wants
    for (const SemaValue &offset : blockPtr.elems[3].elems)
      operands.push_back(offset.value);
  tir::Operation *load =
      builder_.create(tir::OpCode::Load, std::move(operands), {Type(elem, ptr->type().shape)});
  if (argument)
    load->setAttr("descriptor", int64_t(*argument));
  // Triton's tt.descriptor_load from sm_90 on (gpu/OptimizeThreadLocality.cpp tells them apart).
  load->setAttr("tensor_descriptor", true);
  return SemaValue::ofTensor(load->result());
}

void Specializer::addKernelDescriptorOperands(const SemaValue &desc, const SemaValue &blockPtr,
                                              tir::Operation &load) {
  // TMA reads a tensor whose last dimension is contiguous: a run-time last stride (which Triton
  // rejects and tilec takes as given) keeps the plain load.
  if (load.code() != tir::OpCode::Load || load.numOperands() != 3 ||
      !hasUnitLastStride(desc.elems[kStrides].elems))
    return;
  std::vector<tir::Value *> shape;
  for (const SemaValue &extent : desc.elems[kShape].elems)
    shape.push_back(extent.value);
  const SemaValue &padding = desc.elems[kPadding];
  appendTmaOperands(load, blockPtr.elems[3].elems, desc.elems[kBase].value, shape,
                    desc.elems[kStrides].elems,
                    padding.kind == Kind::String && padding.name == "nan");
}

std::optional<unsigned> Specializer::descriptorArgument(const SemaValue &desc) const {
  const tir::Value *base = desc.elems[kBase].value;
  for (unsigned i = 0; i < function_.tensorDescriptors.size(); ++i)
    if (function_.body().argument(function_.tensorDescriptors[i].firstParam) == base)
      return i;
  return std::nullopt;
}

void Specializer::storeTensorDescriptor(const SemaValue &desc, const SemaValue &offsets,
                                        const SemaValue &value, SourceLoc loc) {
  SemaValue blockPtr = descriptorBlockPointer(*this, desc, offsets, "a descriptor store", loc);
  // Triton asks for the block's shape exactly; a number is broadcast, as tl.store does.
  if (value.isTensor() && !value.value->type().isScalar()) {
    std::vector<int64_t> block;
    for (const SemaValue &d : desc.elems[kBlockShape].elems)
      block.push_back(d.intValue);
    if (value.value->type().shape != block)
      error(loc, "the value stored through a tensor descriptor must have its block shape " +
                     Type(elementOf(desc), block).str() + ", not " + value.value->type().str());
  }
  SemaValue dims = allDimensions(rankOf(desc));
  tir::Operation *store = storeBlockPointer(blockPtr, value, &dims, loc);
  // As a load's: through a descriptor argument, the tile is also the box of a TMA store at these
  // offsets, if gpu/TmaStores.cpp takes it (after the mask, which bounds-checking always gives).
  std::optional<unsigned> argument = descriptorArgument(desc);
  if (!argument || store->numOperands() != 3)
    return;
  for (const SemaValue &offset : blockPtr.elems[3].elems)
    store->addOperand(offset.value);
  store->setAttr("descriptor", int64_t(*argument));
}

void Specializer::atomicTensorDescriptor(const std::string &kind, const SemaValue &desc,
                                         const SemaValue &offsets, const SemaValue &value,
                                         SourceLoc loc) {
  // Triton 3.6 reduces the tile into memory with one TMA reduction (from sm_90); the same
  // effect here is an atomic per element, through the bounds-checked addresses of a store:
  // elements outside the tensor are not touched. The element types are Triton's on sm_90 (min
  // and max of fp16 and bf16 included, which no plain tl.atomic_min/max takes: the backend
  // combines them as min.f16/max.f16 do, in a compare-and-swap loop).
  std::string what = "a descriptor atomic_" + kind;
  SemaValue blockPtr = descriptorBlockPointer(*this, desc, offsets, what, loc);
  DType elem = elementOf(desc);
  using SK = ScalarKind;
  std::set<SK> allowed = kind == "add"
                             ? std::set<SK>{SK::U32, SK::I32, SK::U64, SK::F32, SK::F16, SK::BF16}
                         : kind == "min" || kind == "max"
                             ? std::set<SK>{SK::U32, SK::I32, SK::U64, SK::I64, SK::F16, SK::BF16}
                             : std::set<SK>{SK::U32, SK::I32, SK::U64, SK::I64};
  if (!allowed.count(elem.kind))
    error(loc, what + " does not support " + elem.tritonName() + " (as in Triton)");
  std::vector<int64_t> block;
  for (const SemaValue &d : desc.elems[kBlockShape].elems)
    block.push_back(d.intValue);
  if (!value.isTensor() || value.value->type().shape != block)
    error(loc, "the value of " + what + " must have the descriptor's block shape " +
                   Type(elem, block).str() + ", not " + value.describe());
  std::vector<int64_t> all;
  for (size_t d = 0; d < rankOf(desc); ++d)
    all.push_back(static_cast<int64_t>(d));
  auto [ptr, mask] = blockPointerAddresses(blockPtr, all, loc);
  tir::Value *val = castTo(value.value, elem);
  tir::Operation *op =
      builder_.create(tir::OpCode::AtomicRMW, {ptr, val, mask}, {Type(elem, ptr->type().shape)});
  op->setAttr("kind", kind);
}

SemaValue Specializer::tensorDescriptorAttribute(const SemaValue &desc, const std::string &attr,
                                                 SourceLoc loc) {
  if (attr == "load" || attr == "store") {
    SemaValue m = SemaValue::ofBuiltin("tl." + attr + "_tensor_descriptor");
    m.elems.push_back(desc);
    return m;
  }
  static const std::set<std::string> atomics = {"atomic_add", "atomic_min", "atomic_max",
                                                "atomic_and", "atomic_or",  "atomic_xor"};
  if (atomics.count(attr)) {
    SemaValue m = SemaValue::ofBuiltin("tl.descriptor_" + attr);
    m.elems.push_back(desc);
    return m;
  }
  if (attr == "dtype")
    return SemaValue::ofDType(elementOf(desc));
  if (attr == "block_shape")
    return desc.elems[kBlockShape];
  if (attr == "shape") {
    // int32, as Triton's descriptors hold it.
    std::vector<SemaValue> dims;
    for (const SemaValue &d : desc.elems[kShape].elems)
      dims.push_back(SemaValue::ofTensor(castTo(d.value, kI32)));
    return SemaValue::ofTuple(std::move(dims));
  }
  if (attr == "strides")
    return desc.elems[kStrides];
  // Row gathers and scatters are Blackwell's TMA (sm_100); Triton 3.6 skips them on Hopper.
  if (attr == "gather" || attr == "scatter")
    error(loc, "tensor descriptor '" + attr + "' (a TMA row " + attr +
                   ", a Blackwell (sm_100) instruction) is not supported "
                   "yet");
  if (attr == "block_type")
    error(loc, "tensor descriptor 'block_type' is not supported yet");
  error(loc, "tensor descriptors have no attribute '" + attr +
                 "' (they have load, store, the atomics, shape, strides, block_shape and dtype)");
}

bool Specializer::sameTensorDescriptor(const SemaValue &a, const SemaValue &b) {
  if (a.kind != Kind::TensorDesc || b.kind != Kind::TensorDesc)
    return false;
  if (a.elems[kBlockShape].repr() != b.elems[kBlockShape].repr() ||
      a.elems[kBase].value != b.elems[kBase].value)
    return false;
  const SemaValue &pa = a.elems[kPadding], &pb = b.elems[kPadding];
  if (pa.kind != pb.kind || (pa.kind == Kind::String ? pa.name != pb.name : pa.value != pb.value))
    return false;
  for (size_t p : {kShape, kStrides})
    for (size_t d = 0; d < rankOf(a); ++d)
      if (a.elems[p].elems[d].value != b.elems[p].elems[d].value)
        return false;
  return true;
}

} // namespace tilec::sema
