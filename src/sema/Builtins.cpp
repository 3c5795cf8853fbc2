// The `tl.*` functions, tensor methods and attributes, and the Python builtins kernels use.
#include "gpu/Arch.h"
#include "sema/Imports.h"
#include "sema/Specializer.h"
#include "sema/TypeRules.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <iostream>
#include <limits>
#include <map>
#include <set>

namespace tilec::sema {

using tir::DType;
using tir::OpCode;
using tir::ScalarKind;
using tir::Type;
using Kind = SemaValue::Kind;

namespace {

// tl.* functions and what they are; anything else under `tl.` is "not supported yet".
const std::set<std::string> &supportedTl() {
  static const std::set<std::string> names = {
      "program_id", "num_programs", "arange", "zeros", "full", "load", "store", "exp", "exp2",
      "log", "log2", "sqrt", "sqrt_rn", "rsqrt", "sin", "cos", "abs", "floor", "ceil", "erf", "fma",
      "maximum", "minimum", "where", "sum", "max", "min", "argmax", "argmin", "cast", "expand_dims",
      "broadcast", "broadcast_to", "static_assert", "static_print", "device_print", "device_assert",
      "multiple_of", "max_contiguous", "max_constancy", "constexpr", "atomic_add", "atomic_max",
      "atomic_min", "atomic_xchg", "atomic_and", "atomic_or", "atomic_xor", "atomic_cas", "range",
      "static_range", "static_range", "to", "debug_barrier", "dot", "trans", "permute", "reshape",
      "view", "next_power_of_2", "umulhi", "to_tensor", "make_block_ptr", "advance", "cumsum",
      "cumprod", "associative_scan", "reduce", "xor_sum", "join", "split", "interleave", "flip",
      "clamp", "div_rn", "fdiv", "sort", "topk", "bitonic_merge", "histogram", "gather",
      "inline_asm_elementwise", "map_elementwise", "assume", "make_tensor_descriptor",
      "load_tensor_descriptor", "store_tensor_descriptor", "unwrap_if_constexpr",
      "constexpr_function", "dot_scaled", "add", "sub", "mul", "broadcast",
      // Types, for isinstance and annotations.
      "dtype", "tensor", "pointer_type", "tensor_descriptor", "tensor_descriptor_base",
      "constexpr_type",
      // Helpers of Triton's own library that kernels call (tl.standard._log2 in a user's
      // bitonic sort, tl.core.get_int_dtype for its bitcasts).
      "_log2", "_is_power_of_two", "get_int_dtype"};
  return names;
}

// The names Triton 3.6's triton.language exports (its __all__, its submodules and the names
// kernels reach through it): an unknown tl.X outside these is Triton's error too.
const std::set<std::string> &tritonLanguageNames() {
  static const std::set<std::string> names = {"PropagateNan",
                                              "TRITON_MAX_TENSOR_NUMEL",
                                              "load_tensor_descriptor",
                                              "store_tensor_descriptor",
                                              "make_tensor_descriptor",
                                              "tensor_descriptor",
                                              "tensor_descriptor_base",
                                              "abs",
                                              "add",
                                              "advance",
                                              "arange",
                                              "argmax",
                                              "argmin",
                                              "associative_scan",
                                              "assume",
                                              "atomic_add",
                                              "atomic_and",
                                              "atomic_cas",
                                              "atomic_max",
                                              "atomic_min",
                                              "atomic_or",
                                              "atomic_xchg",
                                              "atomic_xor",
                                              "bfloat16",
                                              "bitonic_merge",
                                              "block_type",
                                              "broadcast",
                                              "broadcast_to",
                                              "cat",
                                              "cast",
                                              "cdiv",
                                              "ceil",
                                              "clamp",
                                              "condition",
                                              "const",
                                              "constexpr",
                                              "constexpr_type",
                                              "cos",
                                              "cumprod",
                                              "cumsum",
                                              "debug_barrier",
                                              "device_assert",
                                              "device_print",
                                              "div_rn",
                                              "dot",
                                              "dot_scaled",
                                              "dtype",
                                              "erf",
                                              "exp",
                                              "exp2",
                                              "expand_dims",
                                              "extra",
                                              "fdiv",
                                              "flip",
                                              "float16",
                                              "float32",
                                              "float64",
                                              "float8e4b15",
                                              "float8e4nv",
                                              "float8e4b8",
                                              "float8e5",
                                              "float8e5b16",
                                              "floor",
                                              "fma",
                                              "full",
                                              "gather",
                                              "histogram",
                                              "inline_asm_elementwise",
                                              "interleave",
                                              "int1",
                                              "int16",
                                              "int32",
                                              "int64",
                                              "int8",
                                              "join",
                                              "load",
                                              "log",
                                              "log2",
                                              "make_block_ptr",
                                              "map_elementwise",
                                              "math",
                                              "max",
                                              "max_constancy",
                                              "max_contiguous",
                                              "maximum",
                                              "min",
                                              "minimum",
                                              "multiple_of",
                                              "num_programs",
                                              "pair_uniform_to_normal",
                                              "permute",
                                              "philox",
                                              "philox_impl",
                                              "pi32_t",
                                              "pointer_type",
                                              "program_id",
                                              "rand",
                                              "rand4x",
                                              "randint",
                                              "randint4x",
                                              "randn",
                                              "randn4x",
                                              "range",
                                              "ravel",
                                              "squeeze",
                                              "unsqueeze",
                                              "reduce",
                                              "reduce_or",
                                              "reshape",
                                              "rsqrt",
                                              "slice",
                                              "sigmoid",
                                              "sin",
                                              "softmax",
                                              "sort",
                                              "split",
                                              "sqrt",
                                              "sqrt_rn",
                                              "static_assert",
                                              "static_print",
                                              "static_range",
                                              "store",
                                              "sum",
                                              "swizzle2d",
                                              "target_info",
                                              "tensor",
                                              "topk",
                                              "trans",
                                              "tuple",
                                              "uint16",
                                              "uint32",
                                              "uint64",
                                              "uint8",
                                              "uint_to_uniform_float",
                                              "umulhi",
                                              "view",
                                              "void",
                                              "where",
                                              "xor_sum",
                                              "zeros",
                                              "zeros_like",
                                              "core",
                                              "standard",
                                              "semantic",
                                              "random",
                                              "extern",
                                              "float8e4m3fn",
                                              "float8e5m2",
                                              "to_tensor",
                                              "next_power_of_2"};
  return names;
}

/// Every name Triton 3.6's triton.language.standard defines or imports. Older Triton had more
/// private helpers there (_cast_to_int, _take_slice, _get_sort_dim of its bitonic sort), which
/// kernels copied from Triton's sort reach through tl.standard: Triton 3.6 raises
/// AttributeError on them.
const std::set<std::string> &tritonStandardNames() {
  static const std::set<std::string> names = {"annotations",
                                              "jit",
                                              "constexpr_function",
                                              "core",
                                              "math",
                                              "_log2",
                                              "_is_power_of_two",
                                              "_get_int_dtype",
                                              "cdiv",
                                              "sigmoid",
                                              "softmax",
                                              "ravel",
                                              "swizzle2d",
                                              "zeros",
                                              "zeros_like",
                                              "_argmax_combine",
                                              "_argmax_combine_tie_break_left",
                                              "_argmax_combine_tie_break_fast",
                                              "_elementwise_max",
                                              "max",
                                              "argmax",
                                              "_argmin_combine",
                                              "_argmin_combine_tie_break_left",
                                              "_argmin_combine_tie_break_fast",
                                              "_elementwise_min",
                                              "min",
                                              "argmin",
                                              "_sum_combine",
                                              "_pick_sum_dtype",
                                              "sum",
                                              "_xor_combine",
                                              "xor_sum",
                                              "_or_combine",
                                              "reduce_or",
                                              "cumsum",
                                              "_prod_combine",
                                              "cumprod",
                                              "_indicator",
                                              "_compare_and_swap",
                                              "_bitonic_merge_hypercube",
                                              "_bitonic_merge",
                                              "sort_impl",
                                              "sort",
                                              "topk",
                                              "bitonic_merge",
                                              "_get_flip_dim",
                                              "flip",
                                              "interleave",
                                              "squeeze",
                                              "unsqueeze"};
  return names;
}

bool isTritonLanguageModule(const std::string &module) {
  return module == "triton.language" || module == "triton.language.math" ||
         module == "triton.language.core" || module == "triton.language.standard" ||
         module == "triton.language.random";
}

/// The public names of Triton 3.6's triton.language.random: its @jit functions (tilec's
/// stdlib/random.tl, all of which triton.language exports too) and the default round count.
bool isTritonRandomName(const std::string &name) {
  static const std::set<std::string> names = {"philox_impl",
                                              "philox",
                                              "randint",
                                              "randint4x",
                                              "uint_to_uniform_float",
                                              "rand",
                                              "rand4x",
                                              "randn",
                                              "randn4x",
                                              "pair_uniform_to_normal",
                                              "N_ROUNDS_DEFAULT"};
  return names.count(name) != 0;
}

const std::map<std::string, ScalarKind> &dtypeNames() {
  static const std::map<std::string, ScalarKind> names = {
      {"int1", ScalarKind::I1},         {"int8", ScalarKind::I8},
      {"int16", ScalarKind::I16},       {"int32", ScalarKind::I32},
      {"int64", ScalarKind::I64},       {"uint8", ScalarKind::U8},
      {"uint16", ScalarKind::U16},      {"uint32", ScalarKind::U32},
      {"uint64", ScalarKind::U64},      {"float16", ScalarKind::F16},
      {"bfloat16", ScalarKind::BF16},   {"float32", ScalarKind::F32},
      {"float64", ScalarKind::F64},     {"float8e4nv", ScalarKind::F8E4M3},
      {"float8e5", ScalarKind::F8E5M2}, {"float8e4b15", ScalarKind::F8E4B15}};
  return names;
}

const std::map<std::string, OpCode> &unaryMath() {
  static const std::map<std::string, OpCode> ops = {
      {"exp", OpCode::Exp},   {"exp2", OpCode::Exp2},   {"log", OpCode::Log},
      {"log2", OpCode::Log2}, {"sqrt", OpCode::Sqrt},   {"sqrt_rn", OpCode::Sqrt},
      {"rsqrt", OpCode::Rsqrt}, {"sin", OpCode::Sin},   {"cos", OpCode::Cos},
      {"abs", OpCode::Abs},   {"floor", OpCode::Floor}, {"ceil", OpCode::Ceil},
      {"erf", OpCode::Erf}};
  return ops;
}

/// Binds a call's arguments to named parameters, Python style. `params` lists the parameter
/// names; the first `required` must be given. Unknown keywords are errors.
struct BoundArgs {
  std::vector<std::optional<SemaValue>> values;
  const SemaValue *get(size_t i) const {
    return values[i] && !values[i]->isNone() ? &*values[i] : nullptr;
  }
  bool given(size_t i) const { return values[i].has_value(); }
};

BoundArgs bindArgs(Specializer &s, const std::string &fn, const std::vector<std::string> &params,
                   size_t required, const CallArgs &args) {
  return BoundArgs{bindCallArgs(s, fn, params, required, args)};
}

DType constDType(Specializer &s, const SemaValue &v, SourceLoc loc, const std::string &what) {
  if (v.kind == Kind::DType)
    return v.dtype;
  if (v.kind == Kind::String)
    s.error(loc, what + " must be a dtype, not the string '" + v.name + "' (dtypes are spelled " +
                     kDTypeSpellings + ")");
  s.error(loc, what + " must be a dtype such as tl.float32, not " + v.describe());
}

std::vector<int64_t> constShape(Specializer &s, const SemaValue &v, SourceLoc loc) {
  std::vector<int64_t> shape;
  if (v.kind == Kind::Tuple) {
    for (const SemaValue &e : v.elems)
      shape.push_back(s.constantInt(e, loc, "a shape dimension"));
  } else {
    shape.push_back(s.constantInt(v, loc, "a shape"));
  }
  // Triton 3.6's validate_block_shape takes 0 as a power of two ((0 & -1) == 0): tl.zeros([0])
  // makes an empty tensor, which ejkernel's decode kernel builds on a path that never uses it.
  for (int64_t d : shape)
    if (d < 0 || (d & (d - 1)) != 0)
      s.error(loc, "tensor dimensions must be powers of two, got " + std::to_string(d));
  s.checkTensorSize(shape, loc);
  return shape;
}

/// "[32, 16]": a tensor type's shape as the diagnostics write it.
std::string shapeText(const Type &t) {
  std::string text = "[";
  for (size_t d = 0; d < t.shape.size(); ++d)
    text += (d ? ", " : "") + std::to_string(t.shape[d]);
  return text + "]";
}

/// Whether a stdlib function of this name is one of tl's: those of other modules
/// (tl.extra.cuda's in extra_cuda.tl, torch's triton_helpers in inductor.tl) carry a prefix.
bool isTlStdlibName(const std::string &name) {
  return name.rfind("cuda_", 0) != 0 && name.rfind("inductor_", 0) != 0;
}

/// triton.next_power_of_2: the smallest power of two at or above n, 0 for n <= 0 (its bit
/// twiddling on n - 1).
int64_t nextPowerOfTwo(Specializer &s, int64_t n, SourceLoc loc) {
  if (n <= 0)
    return 0;
  if (n > (int64_t(1) << 62))
    s.error(loc, "the next power of two of " + std::to_string(n) + " does not fit in int64");
  int64_t p = 1;
  while (p < n)
    p <<= 1;
  return p;
}

/// The methods of tl.tensor that sema implements as builtins (x.to(...), x.sum(axis)).
const std::set<std::string> &tensorMethods() {
  static const std::set<std::string> methods = {
      "to", "sum", "max", "min", "argmax", "argmin", "exp", "exp2", "log", "log2", "sqrt", "abs",
      "expand_dims", "broadcast_to", "reshape", "view", "trans", "permute", "cast", "cumsum",
      "cumprod", "associative_scan", "reduce", "xor_sum", "split", "flip", "sort", "topk",
      "logical_and", "logical_or",
      // Triton 3.6's other @_tensor_member_fn functions (core.py and math.py).
      "cos", "sin", "sqrt_rn", "rsqrt", "erf", "floor", "ceil", "store", "advance", "atomic_cas",
      "atomic_xchg", "atomic_add", "atomic_max", "atomic_min", "atomic_and", "atomic_or",
      "atomic_xor", "histogram", "gather"};
  return methods;
}

/// A dunder method of tl.tensor that Triton 3.6 defines for an operator (`x.__rshift__(4)` is
/// `x >> 4`): which operator it is, and whether it is the reflected form, whose receiver is the
/// right operand (`x.__rsub__(y)` is `y - x`).
struct TensorOperatorMethod {
  enum class Form { Binary, Compare, Unary } form;
  ast::BinaryOperator binary = ast::BinaryOperator::Add;
  ast::CompareOperator compare = ast::CompareOperator::Eq;
  ast::UnaryOperator unary = ast::UnaryOperator::Neg;
  bool reflected = false;
};

const TensorOperatorMethod *tensorOperatorMethod(const std::string &name) {
  using BO = ast::BinaryOperator;
  using CO = ast::CompareOperator;
  using UO = ast::UnaryOperator;
  using Form = TensorOperatorMethod::Form;
  auto binary = [](BO op, bool reflected) {
    return TensorOperatorMethod{Form::Binary, op, CO::Eq, UO::Neg, reflected};
  };
  auto compare = [](CO op, bool reflected) {
    return TensorOperatorMethod{Form::Compare, BO::Add, op, UO::Neg, reflected};
  };
  auto unary = [](UO op) { return TensorOperatorMethod{Form::Unary, BO::Add, CO::Eq, op, false}; };
  static const std::map<std::string, TensorOperatorMethod> methods = {
      {"__add__", binary(BO::Add, false)},
      {"__radd__", binary(BO::Add, true)},
      {"__sub__", binary(BO::Sub, false)},
      {"__rsub__", binary(BO::Sub, true)},
      {"__mul__", binary(BO::Mul, false)},
      {"__rmul__", binary(BO::Mul, true)},
      {"__truediv__", binary(BO::Div, false)},
      {"__rtruediv__", binary(BO::Div, true)},
      {"__floordiv__", binary(BO::FloorDiv, false)},
      {"__rfloordiv__", binary(BO::FloorDiv, true)},
      {"__mod__", binary(BO::Mod, false)},
      {"__rmod__", binary(BO::Mod, true)},
      {"__and__", binary(BO::BitAnd, false)},
      {"__rand__", binary(BO::BitAnd, true)},
      {"__or__", binary(BO::BitOr, false)},
      {"__ror__", binary(BO::BitOr, true)},
      {"__xor__", binary(BO::BitXor, false)},
      {"__rxor__", binary(BO::BitXor, true)},
      {"__lshift__", binary(BO::LShift, false)},
      {"__rlshift__", binary(BO::LShift, true)},
      {"__rshift__", binary(BO::RShift, false)},
      {"__rrshift__", binary(BO::RShift, true)},
      {"__gt__", compare(CO::Gt, false)},
      {"__rgt__", compare(CO::Gt, true)},
      {"__ge__", compare(CO::Ge, false)},
      {"__rge__", compare(CO::Ge, true)},
      {"__lt__", compare(CO::Lt, false)},
      {"__rlt__", compare(CO::Lt, true)},
      {"__le__", compare(CO::Le, false)},
      {"__rle__", compare(CO::Le, true)},
      {"__eq__", compare(CO::Eq, false)},
      {"__req__", compare(CO::Eq, true)},
      {"__ne__", compare(CO::Ne, false)},
      {"__rne__", compare(CO::Ne, true)},
      {"__neg__", unary(UO::Neg)},
      {"__invert__", unary(UO::Invert)},
      {"__not__", unary(UO::Not)}};
  auto it = methods.find(name);
  return it == methods.end() ? nullptr : &it->second;
}

std::string valueText(const SemaValue &v) {
  return v.kind == Kind::String ? v.name : v.repr();
}

} // namespace

//===----------------------------------------------------------------------===//
// Attributes
//===----------------------------------------------------------------------===//

std::optional<SemaValue> Specializer::tritonLanguageAttribute(const std::string &module,
                                                              const std::string &attr) {
  if (module == "triton.language.random") {
    if (!isTritonRandomName(attr))
      return std::nullopt;
    if (attr == "N_ROUNDS_DEFAULT")
      return SemaValue::ofInt(10);
    if (const ast::Stmt *def = stdlibFunction(attr))
      return SemaValue::ofJitFunction(def);
    return std::nullopt;
  }
  if (module == "triton.language.math") {
    // What Triton 3.6's triton.language.math defines; older Triton's tl.math was libdevice,
    // whose functions stay reachable (tl.math.tanh). Any other name is no attribute of it, as in
    // Triton 3.6: not tl's function of that name (tl.math.max(x, y) was Triton 2's elementwise
    // maximum, which tl.max(x, axis) would silently turn into a reduction).
    static const std::set<std::string> mathNames = {
        "umulhi", "exp", "exp2", "log",    "log2", "cos",   "sin",  "sqrt", "sqrt_rn",
        "rsqrt",  "abs", "fdiv", "div_rn", "erf",  "floor", "ceil", "fma",  "core"};
    if (!mathNames.count(attr)) {
      if (tir::findLibdeviceFunction(attr) || tir::findLibdeviceExtern(attr))
        return SemaValue::ofBuiltin("libdevice." + attr);
      return std::nullopt;
    }
  }
  auto dt = dtypeNames().find(attr);
  if (dt != dtypeNames().end())
    return SemaValue::ofDType(DType::scalar(dt->second));
  if (attr == "math" || attr == "core" || attr == "standard" || attr == "extra" || attr == "random")
    return SemaValue::ofModule("triton.language." + attr);
  if (attr == "TRITON_MAX_TENSOR_NUMEL") // the most elements a block may have, as in Triton
    return SemaValue::ofInt(1048576);
  if (attr == "target_info") // tl.target_info.is_cuda(), Triton 3.6's constexpr target queries
    return SemaValue::ofModule("triton.language.target_info");
  if (attr == "PropagateNan") // tl.PropagateNan.ALL / .NONE, read by tl.clamp
    return SemaValue::ofModule("triton.language.PropagateNan");
  if (attr == "float8e4m3fn")
    return SemaValue::ofDType(DType::scalar(ScalarKind::F8E4M3));
  if (attr == "pi32_t") // core.pi32_t = pointer_type(int32)
    return SemaValue::ofDType(DType::pointer(ScalarKind::I32));
  if (attr == "CONSTEXPR_0") // core.CONSTEXPR_0, a parameter default
    return SemaValue::ofInt(0);
  // tl.tuple(iterable) is Triton's tuple value in a kernel: tilec's tuples are already that.
  if (attr == "tuple")
    return SemaValue::ofBuiltin("py.tuple");
  if (supportedTl().count(attr))
    return SemaValue::ofBuiltin("tl." + attr);
  // Functions Triton writes in its own language come from tilec's stdlib.
  if (isTlStdlibName(attr))
    if (const ast::Stmt *def = stdlibFunction(attr))
      return SemaValue::ofJitFunction(def);
  // Older Triton had libdevice's functions in tl.math (tl.math.tanh).
  if (module == "triton.language.math" &&
      (tir::findLibdeviceFunction(attr) || tir::findLibdeviceExtern(attr)))
    return SemaValue::ofBuiltin("libdevice." + attr);
  return std::nullopt;
}

std::optional<bool> Specializer::tritonLanguageHas(const std::string &module,
                                                   const std::string &attr) {
  if (!isTritonLanguageModule(module))
    return std::nullopt;
  return tritonLanguageAttribute(module, attr).has_value();
}

SemaValue Specializer::moduleAttribute(const std::string &module, const std::string &attr,
                                       SourceLoc loc) {
  if (module == "triton") {
    if (attr == "language")
      return SemaValue::ofModule("triton.language");
    if (attr == "__version__")
      return SemaValue::ofString(kTritonVersion);
    if (attr == "next_power_of_2")
      return moduleAttribute("triton.language", attr, loc);
    if (attr == "runtime") // triton.runtime.driver.active.get_current_target() and the like
      return SemaValue::ofModule("triton.runtime");
    if (attr == "knobs") // triton.knobs.runtime.interpret
      return SemaValue::ofModule("triton.knobs");
    return SemaValue::ofBuiltin("triton." + attr); // jit, autotune, Config, heuristics...
  }
  if (module == "triton.knobs" && attr == "runtime")
    return SemaValue::ofModule("triton.knobs.runtime");
  // Whether Triton's CPU interpreter runs the kernels (TRITON_INTERPRET=1): never for the GPU
  // code tilec compiles, so host code that checks it (`triton_interpret =
  // triton.knobs.runtime.interpret`) takes its GPU path.
  if (module == "triton.knobs.runtime" && attr == "interpret")
    return SemaValue::ofBool(false);
  if (isTritonLanguageModule(module)) {
    if (std::optional<SemaValue> value = tritonLanguageAttribute(module, attr))
      return *value;
    if (module == "triton.language" && !tritonLanguageNames().count(attr)) {
      // Not a name of Triton 3.6's triton.language either: Triton stops there too.
      std::string hint;
      if (attr.rfind("_experimental_", 0) == 0 && attr.find("descriptor") != std::string::npos)
        hint = " (the experimental descriptor API was removed in Triton 3.4: make descriptors "
               "with tl.make_tensor_descriptor, or pass a TensorDescriptor argument, and use "
               "desc.load / desc.store)";
      else if (attr == "async_task")
        hint = " (it is the warp-specialization API of a Triton fork; Triton 3.6 specializes "
               "warps with tl.range(..., warp_specialize=True))";
      else if (attr == "float" || attr == "half" || attr == "double")
        hint = " (its dtypes are spelled tl.float32, tl.float16, tl.float64...)";
      error(loc, "Triton 3.6's triton.language has no attribute '" + attr + "'" + hint);
    }
    if (module == "triton.language.standard" && !tritonStandardNames().count(attr))
      error(loc, "Triton 3.6's triton.language.standard has no attribute '" + attr +
                     "' (a private helper of an older Triton: it is not there in 3.6)");
    if (module == "triton.language.math") {
      std::string hint;
      if (attr == "max" || attr == "min")
        hint = " (Triton 2's tl.math." + attr + "(x, y) was the elementwise " + attr + "imum: tl." +
               attr + "imum(x, y))";
      error(loc, "Triton 3.6's triton.language.math has no attribute '" + attr + "'" + hint);
    }
    if (module == "triton.language.random")
      error(loc, "Triton 3.6's triton.language.random has no attribute '" + attr +
                     "' (it has philox, philox_impl, randint, randint4x, rand, rand4x, randn, "
                     "randn4x, uint_to_uniform_float, pair_uniform_to_normal)");
    // AMD's fp8 formats: Triton's NVIDIA backend refuses them (dtype.to_ir) in these words.
    if (attr == "float8e4b8" || attr == "float8e5b16")
      error(loc, "type " + std::string(attr == "float8e4b8" ? "fp8e4b8" : "fp8e5b16") +
                     " not supported in this architecture. The supported fp8 dtypes are "
                     "('fp8e4b15', 'fp8e4nv', 'fp8e5')");
    error(loc, "tl." + attr + " is not supported yet");
  }
  if (module == "math") {
    static const std::map<std::string, double> constants = {
        {"pi", M_PI},
        {"e", M_E},
        {"tau", 2 * M_PI},
        {"inf", std::numeric_limits<double>::infinity()},
        {"nan", std::numeric_limits<double>::quiet_NaN()}};
    if (auto it = constants.find(attr); it != constants.end())
      return SemaValue::ofFloat(it->second);
  }
  // False while Python runs (true only for static type checkers): `if TYPE_CHECKING:` imports
  // are for annotations.
  if (module == "typing" && attr == "TYPE_CHECKING")
    return SemaValue::ofBool(false);
  // The host that runs the kernels tilec compiles has a CUDA build of torch (HostPython.cpp).
  if (module == "torch.version" && attr == "hip")
    return SemaValue::none();
  if (module == "torch.version" && attr == "cuda") // --cuda-version
    return SemaValue::ofString(torch_.cuda);
  if (module == "re") {
    // The flags, with Python's values, so that `re.I | re.M` is an int as in Python.
    static const std::map<std::string, int64_t> flags = {
        {"I", 2},         {"IGNORECASE", 2}, {"L", 4},       {"LOCALE", 4}, {"M", 8},
        {"MULTILINE", 8}, {"S", 16},         {"DOTALL", 16}, {"U", 32},     {"UNICODE", 32},
        {"X", 64},        {"VERBOSE", 64},   {"A", 256},     {"ASCII", 256}};
    if (auto it = flags.find(attr); it != flags.end())
      return SemaValue::ofInt(it->second);
  }
  // Triton 3.6's triton.language.extra holds libdevice and its backends' packages (cuda, hip);
  // forks add their own (triton-cpu's tl.extra.cpu.vnni_decode, Intel's
  // tl.extra.intel.libdevice.fast_sinf), which are no attribute of it.
  if (module == "triton.language.extra" && attr != "cuda" && attr != "hip" && attr != "libdevice" &&
      attr.rfind("__", 0) != 0) {
    std::string hint;
    if (attr == "cpu")
      hint = " (it is triton-cpu's backend package, not Triton 3.6's)";
    else if (attr == "intel")
      hint = " (it is Intel's XPU backend package, not Triton 3.6's)";
    error(loc, "Triton 3.6's triton.language.extra has no attribute '" + attr +
                   "'; it has cuda, hip and libdevice" + hint);
  }
  if (module == "triton.language.extra.cuda") {
    if (attr == "libdevice")
      return SemaValue::ofModule("triton.language.extra.cuda.libdevice");
    // The submodules that define what triton.language.extra.cuda exports (a function's
    // __module__ names them: triton.language.extra.cuda.utils.globaltimer).
    if (attr == "utils" || attr == "gdc")
      return SemaValue::ofModule(module);
    // num_warps() and num_threads() are the program's constants; globaltimer() and smid() read
    // special registers, and gdc_wait() and gdc_launch_dependents() are programmatic dependent
    // launch's griddepcontrol, written in the kernel language (stdlib/extra_cuda.tl).
    if (attr == "num_warps" || attr == "num_threads")
      return SemaValue::ofBuiltin("cuda." + attr);
    if (attr == "globaltimer" || attr == "smid" || attr == "gdc_wait" ||
        attr == "gdc_launch_dependents")
      if (const ast::Stmt *def = stdlibFunction("cuda_" + attr))
        return SemaValue::ofJitFunction(def);
    // The fp8e4b15 converters are what Triton's own casts call; any other name is not Triton
    // 3.6's, and its Triton stops there too.
    if (attr.rfind("convert_", 0) == 0)
      error(loc, "tl.extra.cuda." + attr + " is not supported yet");
    std::string hint;
    if (attr.rfind("experimental_", 0) == 0 && attr.find("tensormap") != std::string::npos)
      hint = " (the experimental device-side tensor map API was removed in Triton 3.4: make "
             "descriptors in the kernel with tl.make_tensor_descriptor and use desc.load / "
             "desc.store)";
    error(loc, "Triton 3.6's triton.language.extra.cuda has no attribute '" + attr + "'" + hint);
  }
  // PyTorch Inductor's generated kernels call torch's triton_helpers module (the runtime/ one
  // from torch 2.3 on): its @triton.jit helpers are tilec's stdlib/inductor.tl, its libdevice
  // and math are Triton's.
  if (module == "torch._inductor.runtime.triton_helpers" ||
      module == "torch._inductor.triton_helpers") {
    if (attr == "libdevice")
      return SemaValue::ofModule("triton.language.extra.libdevice");
    if (attr == "math")
      return SemaValue::ofModule("triton.language.math");
    // torch's @triton_builtin helpers, evaluated at compile time: they return constexprs.
    if (attr == "constexpr_next_power_of_2" || attr == "if_mask")
      return SemaValue::ofBuiltin("inductor." + attr);
    if (const ast::Stmt *def = stdlibFunction("inductor_" + attr))
      return SemaValue::ofJitFunction(def);
    error(loc, "torch's triton_helpers." + attr + " is not supported yet");
  }
  // torch's triton_compat re-exports Triton under the names Inductor and Helion import from it
  // (`from torch._inductor.runtime.triton_compat import libdevice`); with Triton 3.6 installed,
  // its libdevice is triton.language.extra.libdevice and its math triton.language.math.
  if (module == "torch._inductor.runtime.triton_compat") {
    if (attr == "libdevice")
      return SemaValue::ofModule("triton.language.extra.libdevice");
    if (attr == "math")
      return SemaValue::ofModule("triton.language.math");
    if (attr == "tl")
      return SemaValue::ofModule("triton.language");
    if (attr == "triton")
      return SemaValue::ofModule("triton");
    if (attr == "_log2")
      return moduleAttribute("triton.language.standard", attr, loc);
    if (attr == "HAS_TRITON")
      return SemaValue::ofBool(true);
  }
  if (module == "triton.language.extra.libdevice" ||
      module == "triton.language.extra.cuda.libdevice") {
    if (tir::findLibdeviceFunction(attr) || tir::findLibdeviceExtern(attr))
      return SemaValue::ofBuiltin("libdevice." + attr);
    // Every function of Triton 3.6's libdevice is in one of the two tables: Python's own error.
    error(loc, "module '" + module + "' has no attribute '" + attr + "'");
  }
  return SemaValue::ofModule(module + "." + attr);
}

std::optional<bool> Specializer::valueHasAttribute(const SemaValue &value,
                                                   const std::string &attr) {
  // Python's hasattr on what a kernel holds: Triton unwraps constexprs for it, so a constant is
  // a Python number (which has no dtype) and a run-time scalar or block a tl.tensor (which has).
  static const std::set<std::string> intAttributes = {
      "real",      "imag",     "numerator", "denominator",      "bit_length",
      "bit_count", "to_bytes", "conjugate", "as_integer_ratio", "is_integer"};
  static const std::set<std::string> floatAttributes = {"real", "imag",      "is_integer",
                                                        "hex",  "conjugate", "as_integer_ratio"};
  switch (value.kind) {
  case Kind::None:
    return false;
  case Kind::Int:
  case Kind::Bool:
    return intAttributes.count(attr) != 0;
  case Kind::Float:
    return floatAttributes.count(attr) != 0;
  case Kind::Tensor: {
    // What tilec's tensors answer; a method of Triton's it lacks reads as absent, so that a
    // kernel testing for it takes the path tilec compiles (as hasattr(tl, ...) does).
    static const std::set<std::string> attributes = {"dtype",  "type", "shape", "numel",
                                                     "handle", "T",    "item"};
    return attributes.count(attr) || tensorMethods().count(attr) || tensorOperatorMethod(attr) ||
           (isTlStdlibName(attr) && stdlibFunction(attr));
  }
  case Kind::Tuple:
    if (namedTupleField(value, attr))
      return true;
    return attr == "values" || attr == "type";
  default:
    return std::nullopt;
  }
}

SemaValue Specializer::valueAttribute(const SemaValue &value, const std::string &attr,
                                      SourceLoc loc) {
  if (isUnknown(value))
    return unknownAttribute(value, attr);
  if (std::optional<SemaValue> member = jitNamespaceAttribute(value, attr, loc))
    return *member;
  if (std::optional<SemaValue> member = pythonClassAttribute(value, attr, loc))
    return *member;
  if (value.kind == Kind::Tensor) {
    const Type &t = value.value->type();
    if (attr == "dtype")
      return SemaValue::ofDType(t.elem);
    if (attr == "type") {
      // Triton's block_type(element, shape) for a block, the dtype itself for a scalar.
      SemaValue type = SemaValue::ofDType(t.elem);
      for (int64_t d : t.shape)
        type.elems.push_back(SemaValue::ofInt(d));
      return type;
    }
    if (attr == "shape") {
      std::vector<SemaValue> dims;
      for (int64_t d : t.shape)
        dims.push_back(SemaValue::ofInt(d));
      return SemaValue::ofTuple(std::move(dims));
    }
    if (attr == "numel")
      return SemaValue::ofInt(t.numElements());
    if (attr == "T") {
      CallArgs args{{value}, {}, loc};
      return callBuiltin(SemaValue::ofBuiltin("tl.trans"), args);
    }
    if (attr == "item") {
      SemaValue m = SemaValue::ofBuiltin("tensor.item");
      m.elems.push_back(value);
      return m;
    }
    if (tensorMethods().count(attr)) {
      SemaValue m = SemaValue::ofBuiltin("tl." + attr);
      m.elems.push_back(value);
      return m;
    }
    if (tensorOperatorMethod(attr)) {
      SemaValue m = SemaValue::ofBuiltin("tensor." + attr);
      m.elems.push_back(value);
      return m;
    }
    // Stdlib functions are tensor methods too (x.sigmoid(), x.softmax(), x.ravel()).
    if (const ast::Stmt *def = isTlStdlibName(attr) ? stdlibFunction(attr) : nullptr) {
      SemaValue m = SemaValue::ofJitFunction(def);
      m.elems.push_back(value);
      return m;
    }
    error(loc, "tensors have no attribute '" + attr + "' (or it is not supported yet)");
  }
  if (value.kind == Kind::DType && value.isBlockPointerType()) {
    if (attr == "element_ty") {
      SemaValue block = SemaValue::ofDType(value.dtype.pointeeType());
      block.elems = value.elems;
      return block;
    }
    // The dtype predicates (is_ptr() is the one true) answer below.
    if (attr.rfind("is_", 0) != 0)
      error(loc,
            "a block pointer's type has no attribute '" + attr + "' (or it is not supported yet)");
  }
  if (value.kind == Kind::DType && value.isBlockType()) {
    // A tensor's .type: block_type(element, shape).
    if (attr == "element_ty" || attr == "scalar")
      return SemaValue::ofDType(value.dtype);
    if (attr == "shape")
      return SemaValue::ofTuple(value.elems);
    if (attr == "numel" || attr == "nbytes") {
      int64_t n = 1;
      for (const SemaValue &d : value.elems)
        n *= d.intValue;
      return SemaValue::ofInt(attr == "numel" ? n : n * (value.dtype.bits() / 8));
    }
    if (attr == "get_block_shapes" || attr == "with_element_ty") {
      SemaValue m = SemaValue::ofBuiltin("blocktype." + attr);
      m.elems.push_back(value);
      return m;
    }
    // The dtype predicates (is_block(), is_fp32()...) answer for block types below.
    if (attr.rfind("is_", 0) != 0)
      error(loc, "block types have no attribute '" + attr + "' (or it is not supported yet)");
  }
  if (value.kind == Kind::DType) {
    if (attr == "scalar") // dtype.scalar is the dtype itself
      return value;
    if (attr == "element_ty") {
      if (!value.dtype.isPointer())
        error(loc, "'element_ty' is only defined on pointer dtypes, not " +
                       value.dtype.tritonName());
      return SemaValue::ofDType(value.dtype.pointeeType());
    }
    if (attr == "primitive_bitwidth")
      return SemaValue::ofInt(value.dtype.bits());
    // dtype.__init__ sets itemsize = primitive_bitwidth // 8 (0 for int1); pointer_type's own
    // __init__ does not, so a pointer dtype has none.
    if (attr == "itemsize" && !value.dtype.isPointer())
      return SemaValue::ofInt(value.dtype.bits() / 8);
    if (attr == "value") // tl.constexpr(dtype).value
      return value;
    if (attr == "with_element_ty" && !value.isBlockPointerType()) {
      SemaValue m = SemaValue::ofBuiltin("blocktype." + attr);
      m.elems.push_back(value);
      return m;
    }
    if (attr == "int_bitwidth" && value.dtype.isInteger())
      return SemaValue::ofInt(value.dtype.bits());
    if (attr == "fp_mantissa_width" && (value.dtype.isFloat() || value.dtype.isFp8E4B15())) {
      static const std::map<ScalarKind, int64_t> widths = {
          {ScalarKind::F8E4M3, 3}, {ScalarKind::F8E5M2, 2}, {ScalarKind::F16, 10},
          {ScalarKind::BF16, 7},   {ScalarKind::F32, 23},   {ScalarKind::F64, 52},
          {ScalarKind::F8E4B15, 3}};
      return SemaValue::ofInt(widths.at(value.dtype.kind));
    }
    static const std::set<std::string> predicates = {
        "is_fp16",     "is_bf16",     "is_fp32",       "is_fp64",
        "is_floating", "is_int",      "is_int_signed", "is_int_unsigned",
        "is_ptr",      "is_bool",     "is_int1",       "is_int8",
        "is_int16",    "is_int32",    "is_int64",      "is_uint8",
        "is_uint16",   "is_uint32",   "is_uint64",     "is_fp8",
        "is_fp8e4nv",  "is_fp8e4b15", "is_fp8e5",      "is_standard_floating",
        "is_block",    "is_void"};
    if (predicates.count(attr)) {
      SemaValue m = SemaValue::ofBuiltin("dtype." + attr);
      m.elems.push_back(value);
      return m;
    }
    error(loc, "dtypes have no attribute '" + attr + "' (or it is not supported yet)");
  }
  if (value.kind == Kind::TensorDesc)
    return tensorDescriptorAttribute(value, attr, loc);
  // A block pointer is a tl.tensor in Triton, so its member functions are there too
  // (`tl.load(q_block.advance([start, 0]))`, `o_block.store(acc)`).
  if (value.kind == Kind::BlockPtr && (attr == "advance" || attr == "store")) {
    SemaValue m = SemaValue::ofBuiltin("tl." + attr);
    m.elems.push_back(value);
    return m;
  }
  if (value.kind == Kind::BlockPtr && (attr == "type" || attr == "dtype") &&
      value.elems[0].isTensor()) {
    // Triton types a block pointer pointer<block_type(element, shape)>: its .type.element_ty is
    // the block type, which .to() takes for its element (q.to(Q_block_ptr.type.element_ty)).
    SemaValue type = SemaValue::ofDType(value.elems[0].value->type().elem);
    type.elems = value.elems[4].elems; // the block shape
    type.name = "block pointer";
    return type;
  }
  if (value.kind == Kind::String || value.kind == Kind::Object)
    return hostObjectAttribute(value, attr, loc);
  if (std::optional<SemaValue> field = namedTupleField(value, attr))
    return *field;
  // A number assigned to a name in a kernel is a 0-d tensor in Triton (its code generator's
  // to_tensor: int32, int64, fp32...), so `block = BLOCK_SIZE; block.to(tl.uint32)` works there:
  // the number's tensor answers .to and .dtype here.
  if (value.isConstexprNumber() && (attr == "to" || attr == "dtype"))
    return valueAttribute(SemaValue::ofTensor(materialize(value, loc)), attr, loc);
  // A constant's .type is Triton's constexpr_type of it (isinstance(s.type, tl.constexpr_type)
  // tells a constexpr element of a tuple argument from a run-time one); a tuple of constants is
  // one constant (`c: tl.constexpr = (5, 6, 7)`).
  std::function<bool(const SemaValue &)> constant = [&](const SemaValue &v) {
    if (v.kind == Kind::Tuple)
      return std::all_of(v.elems.begin(), v.elems.end(), constant);
    return v.isConstexprNumber() || v.kind == Kind::None || v.kind == Kind::String ||
           v.kind == Kind::JitFunction;
  };
  if (attr == "type" && constant(value)) {
    SemaValue type;
    type.kind = Kind::Object;
    type.name = kConstexprTypeClass;
    type.elems = {value};
    return type;
  }
  // tl.constexpr(...).value: tilec holds constexprs unwrapped.
  if (attr == "value" &&
      (value.isConstexprNumber() || value.kind == Kind::None || value.kind == Kind::Tuple))
    return value;
  error(loc, value.describe() + " has no attribute '" + attr + "' usable in a kernel");
}

//===----------------------------------------------------------------------===//
// Calls
//===----------------------------------------------------------------------===//

SemaValue Specializer::callLibdevice(const tir::LibdeviceFunction &fn, CallArgs &args) {
  SourceLoc loc = args.loc;
  std::string display = std::string("libdevice.") + fn.name;
  if (!args.keywords.empty())
    error(loc, display + " takes positional arguments only");
  if (args.positional.size() != fn.arity)
    error(loc, display + " takes " + std::to_string(fn.arity) + " argument" +
                   (fn.arity == 1 ? "" : "s") + " but " + std::to_string(args.positional.size()) +
                   " were given");
  // libdevice has fp32 and fp64 functions: fp16 and bf16 are computed in fp32, as Triton's math
  // functions do, and the result stays fp32.
  ScalarKind kind = ScalarKind::F32;
  for (const SemaValue &v : args.positional) {
    if (v.isConstexprNumber())
      continue;
    if (!v.isTensor()) {
      refuseUnknown(v, loc, display + "'s result");
      error(loc, display + " needs numbers or tensors, not " + v.describe());
    }
    DType t = v.value->type().elem;
    if (!t.isFloat())
      error(loc, display + " needs floating-point arguments, got " + t.tritonName() +
                     " (convert it with .to(tl.float32))");
    if (t.kind == ScalarKind::F64)
      kind = ScalarKind::F64;
  }
  if (kind == ScalarKind::F64 && !fn.fp64)
    error(loc, display + " exists for fp32 only");
  DType type = DType::scalar(kind);
  std::vector<tir::Value *> operands;
  std::vector<int64_t> shape;
  for (const SemaValue &v : args.positional) {
    operands.push_back(toTensorAs(v, loc, type));
    shape = broadcastShape(Type(type, shape), operands.back()->type(), loc);
  }
  for (tir::Value *&v : operands)
    v = broadcastTo(v, shape, loc);
  DType result = fn.returnsInt ? DType::scalar(ScalarKind::I32) : type;
  tir::Value *r = builder_.createValue(OpCode::Libdevice, operands, Type(result, shape));
  r->definingOp()->setAttr("fn", std::string(fn.name));
  return SemaValue::ofTensor(r);
}

SemaValue Specializer::callLibdeviceExtern(const tir::LibdeviceExtern &fn, CallArgs &args) {
  SourceLoc loc = args.loc;
  std::string display = std::string("libdevice.") + fn.name;
  unsigned arity = fn.overloads.front().arity;
  if (!args.keywords.empty())
    error(loc, display + " takes positional arguments only");
  if (args.positional.size() != arity)
    error(loc, display + " takes " + std::to_string(arity) + " argument" + (arity == 1 ? "" : "s") +
                   " but " + std::to_string(args.positional.size()) + " were given");
  // core.extern_elementwise: every argument becomes a tensor (semantic.to_tensor's types for
  // numbers); an exact match of the dtypes in the function's table is called as it is, anything
  // else is first promoted as a binary operator's operands are, all to one type.
  std::vector<tir::Value *> operands;
  for (const SemaValue &v : args.positional) {
    SemaValue t = decayNumbers(v, loc);
    if (!t.isTensor() || t.value->type().elem.isPointer()) {
      refuseUnknown(v, loc, display + "'s result");
      error(loc, display + " needs numbers or tensors, not " + v.describe());
    }
    operands.push_back(t.value);
  }
  auto match = [&]() -> const tir::LibdeviceOverload * {
    for (const tir::LibdeviceOverload &o : fn.overloads) {
      bool same = true;
      for (unsigned i = 0; i < arity; ++i)
        same &= operands[i]->type().elem == DType::scalar(o.args[i]);
      if (same)
        return &o;
    }
    return nullptr;
  };
  const tir::LibdeviceOverload *overload = match();
  if (!overload) {
    DType common = operands[0]->type().elem;
    std::string why;
    for (tir::Value *v : operands) {
      std::optional<DType> t = computationType(v->type().elem, false, common, false, false, why);
      if (!t)
        error(loc, display + ": " + why);
      common = *t;
    }
    std::vector<DType> promoted;
    for (tir::Value *&v : operands) {
      DType t = *computationType(v->type().elem, false, common, false, false, why);
      promoted.push_back(t);
      v = castTo(v, t);
    }
    overload = match();
    if (!overload) {
      // Triton's ValueError: "input arg type does not match. Expect one of ..., got ...".
      auto tuple = [](auto begin, auto end, auto name) {
        std::string r = "(";
        for (auto it = begin; it != end; ++it)
          r += (it == begin ? "" : ", ") + name(*it);
        return r + ")";
      };
      auto dtypeName = [](DType t) { return t.tritonName(); };
      std::string expected;
      for (const tir::LibdeviceOverload &o : fn.overloads)
        expected += (expected.empty() ? "" : ", ") +
                    tuple(o.args, o.args + o.arity,
                          [](ScalarKind k) { return DType::scalar(k).tritonName(); });
      std::vector<DType> given;
      for (const SemaValue &v : args.positional)
        given.push_back(v.isTensor() ? v.value->type().elem
                                     : decayNumbers(v, loc).value->type().elem);
      error(loc, display + ": input arg type does not match. Expect one of " + expected + ", got " +
                     tuple(promoted.begin(), promoted.end(), dtypeName) +
                     (given == promoted ? std::string()
                                        : " (promoted from " +
                                              tuple(given.begin(), given.end(), dtypeName) + ")"));
    }
  }
  std::vector<int64_t> shape;
  for (tir::Value *v : operands)
    shape = broadcastShape(Type(v->type().elem, shape), v->type(), loc);
  for (tir::Value *&v : operands)
    v = broadcastTo(v, shape, loc);
  tir::Value *r = builder_.createValue(OpCode::Libdevice, operands,
                                       Type(DType::scalar(overload->result), shape));
  r->definingOp()->setAttr("fn", std::string(fn.name));
  r->definingOp()->setAttr("symbol", std::string(overload->symbol));
  return SemaValue::ofTensor(r);
}

SemaValue Specializer::callBuiltin(const SemaValue &callee, CallArgs &args) {
  const std::string &name = callee.name;
  SourceLoc loc = args.loc;
  if (!callee.elems.empty())
    args.positional.insert(args.positional.begin(), callee.elems[0]);
  auto tensorArg = [&](const SemaValue &v, const std::string &what) -> tir::Value * {
    return toValue(v, loc, what.c_str());
  };

  if (name == "tl.unwrap_if_constexpr") {
    // tilec holds constexprs unwrapped: tl.constexpr(x).value and unwrap_if_constexpr(x) are x.
    if (args.positional.size() != 1 || !args.keywords.empty())
      error(loc, "unwrap_if_constexpr takes one argument");
    return args.positional[0];
  }
  if ((name == "tl.constexpr_function" || name == "triton.constexpr_function") && !inKernelCode()) {
    // Called rather than used as a decorator (`f = triton.constexpr_function(f)`, as
    // TransformerEngine wraps tl.core.get_int_dtype from Triton 3.5 on): the function, which
    // kernels may then call at compile time. tl's own functions are already callable so.
    auto a = bindArgs(*this, name, {"fn"}, 1, args);
    SemaValue fn = *a.values[0];
    const std::string python = "pyfunc:";
    if (fn.kind == Kind::Builtin && fn.function && fn.name.rfind(python, 0) == 0) {
      fn.name = "constexprfn:" + fn.name.substr(python.size());
      return fn;
    }
    if (fn.kind == Kind::Builtin)
      return fn;
    error(loc, name + " takes a Python function, not " + fn.describe());
  }
  if (name == "tl.constexpr_function")
    error(loc, "tl.constexpr_function is a decorator of Python functions that kernels call");
  if (name == "tl.logical_and" || name == "tl.logical_or") {
    // Tensor methods (x.logical_or(y)); Triton takes booleans only (it bitcasts to int1).
    if (args.positional.size() != 2 || !args.keywords.empty())
      error(loc, "x." + name.substr(3) + "(y) takes one argument");
    for (const SemaValue &v : args.positional) {
      bool boolean = v.kind == Kind::Bool || (v.isTensor() && v.value->type().elem.isBool());
      if (!boolean)
        error(loc, name.substr(3) + " needs boolean tensors (x.to(tl.int1)), not " + v.describe());
    }
    return binaryOp(name == "tl.logical_and" ? ast::BinaryOperator::BitAnd
                                             : ast::BinaryOperator::BitOr,
                    args.positional[0], args.positional[1], loc);
  }
  if (name.rfind("pyfunc:", 0) == 0)
    error(loc, "'" + name.substr(7) +
                   "' is a Python function, not a @triton.jit function: kernels can only call "
                   "@triton.jit functions");
  if (name == "triton.cdiv") {
    // Host Python, `(x + y - 1) // y`, not tl.cdiv: on numbers a number (a kernel can use it in
    // a tl.constexpr), on tensors the same operations.
    auto a = bindArgs(*this, "triton.cdiv", {"x", "y"}, 2, args);
    SemaValue sum = binaryOp(ast::BinaryOperator::Add, *a.values[0], *a.values[1], loc);
    SemaValue less = binaryOp(ast::BinaryOperator::Sub, sum, SemaValue::ofInt(1), loc);
    return binaryOp(ast::BinaryOperator::FloorDiv, less, *a.values[1], loc);
  }
  // Methods of the objects triton.backends.backends holds, called by module-level code.
  if (name.rfind("triton.backends.", 0) == 0)
    return callHostLibrary(name, args);
  // A triton.Config's methods (all_kwargs()), called by module-level code.
  if (name.rfind(std::string(kTritonConfigClass) + ".", 0) == 0 && !inKernelCode())
    return callHostLibrary(name, args);
  if (name == "triton.Config" && !inKernelCode()) {
    // triton.Config(kwargs, num_warps=4, num_stages=3, num_ctas=1, maxnreg=None,
    // pre_hook=None, ir_override=None), built by module-level code for @triton.autotune.
    // maxnreg bounds the registers of each thread (.maxnreg); the options after it are the
    // launch's or the autotuner's, not the kernel's.
    static const std::vector<std::string> params = {
        "kwargs", "num_warps", "num_stages", "num_ctas", "maxnreg", "pre_hook", "ir_override"};
    std::vector<SemaValue> bound;
    for (const std::optional<SemaValue> &value :
         bindCallArgs(*this, "triton.Config", params, 0, args))
      bound.push_back(value.value_or(SemaValue::none()));
    if (bound[0].kind != Kind::Object || bound[0].name != kDictClass)
      error(loc, "triton.Config: the first argument must be a dict, not " + bound[0].describe());
    SemaValue config;
    config.kind = Kind::Object;
    config.name = kTritonConfigClass;
    config.elems = {bound[0], bound[1], bound[2], bound[4], bound[5]};
    config.objectId = SemaValue::newObjectId();
    return config;
  }
  if (name == "triton.autotune" && !inKernelCode()) {
    // triton.autotune(configs, key, ...) called by module-level code that builds the decorator
    // (a function returning it, applied as `f = make()(f)`): its configs and key. The other
    // options are the autotuner's at run time.
    static const std::vector<std::string> params = {
        "configs",  "key",          "prune_configs_by", "reset_to_zero", "restore_value",
        "pre_hook", "post_hook",    "warmup",           "rep",           "use_cuda_graph",
        "do_bench", "cache_results"};
    auto a = bindCallArgs(*this, "triton.autotune", params, 2, args);
    SemaValue decorator;
    decorator.kind = Kind::Object;
    decorator.name = kTritonAutotuneClass;
    decorator.elems = {*a[0], *a[1]};
    return decorator;
  }
  if (name == "triton.heuristics" && !inKernelCode()) {
    // triton.heuristics(values), called by module-level code that builds the decorator (a
    // function returning it, applied as `f = make()(f)`): the dict of functions it holds.
    auto a = bindCallArgs(*this, "triton.heuristics", {"values"}, 1, args);
    if (a[0]->kind != Kind::Object || a[0]->name != kDictClass)
      error(loc, "triton.heuristics: values must be a dict, not " + a[0]->describe());
    SemaValue decorator;
    decorator.kind = Kind::Object;
    decorator.name = kTritonHeuristicsClass;
    decorator.elems = {*a[0]};
    return decorator;
  }
  if (name.rfind("triton.", 0) == 0)
    error(loc, name + " cannot be used inside a kernel");
  if (name == "inductor.constexpr_next_power_of_2") {
    // triton.next_power_of_2 of a constexpr, as a constexpr (a tensor is an error, as torch's
    // assertion that n is a tl.constexpr).
    auto a = bindArgs(*this, "triton_helpers.constexpr_next_power_of_2", {"n"}, 1, args);
    if (!a.values[0]->isConstexprNumber())
      error(loc, "triton_helpers.constexpr_next_power_of_2 needs a tl.constexpr integer, not " +
                     a.values[0]->describe());
    return SemaValue::ofInt(nextPowerOfTwo(*this, constantInt(*a.values[0], loc, "n"), loc));
  }
  if (name == "inductor.if_mask") {
    // `other=if_mask(mask, value)`: None where the mask is None (a load without a mask takes no
    // other), else the value.
    auto a = bindArgs(*this, "triton_helpers.if_mask", {"mask", "val"}, 2, args);
    return a.values[0]->isNone() ? SemaValue::none() : *a.values[1];
  }

  if (const TensorOperatorMethod *method =
          name.rfind("tensor.__", 0) == 0 ? tensorOperatorMethod(name.substr(7)) : nullptr) {
    // x.__rshift__(4): what the operator computes, as Triton's operators are these methods.
    using Form = TensorOperatorMethod::Form;
    std::string call = "x." + name.substr(7);
    size_t operands = method->form == Form::Unary ? 1 : 2;
    if (args.positional.size() != operands || !args.keywords.empty())
      error(loc, call + (operands == 1 ? "() takes no arguments" : "(other) takes one argument"));
    const SemaValue &self = args.positional[0];
    if (method->form == Form::Unary)
      return unaryOp(method->unary, self, loc);
    const SemaValue &other = args.positional[1];
    // A reflected method computes `other OP self`, as the operator does with a number on the
    // left. With a tensor on the left, Triton's __rrshift__ still picks the arithmetic or the
    // logical shift by its receiver's signedness, which `other >> self` would take from `other`.
    if (method->reflected && method->binary == ast::BinaryOperator::RShift &&
        method->form == Form::Binary && other.isTensor() &&
        other.value->type().elem.isSigned() != self.value->type().elem.isSigned())
      error(loc, call + " of a tensor of the other signedness is not supported yet");
    const SemaValue &lhs = method->reflected ? other : self;
    const SemaValue &rhs = method->reflected ? self : other;
    if (method->form == Form::Binary)
      return binaryOp(method->binary, lhs, rhs, loc);
    return compareOp(method->compare, lhs, rhs, loc);
  }
  if (name == "tensor.item") {
    // x.item(): the element of a single-element tensor, as a scalar.
    if (args.positional.size() != 1 || !args.keywords.empty())
      error(loc, "x.item() takes no arguments");
    return SemaValue::ofTensor(unsplat(args.positional[0].value, loc));
  }
  if (name == "blocktype.get_block_shapes") {
    // block_type.get_block_shapes(): its shape, a tuple of ints.
    if (args.positional.size() != 1 || !args.keywords.empty())
      error(loc, "get_block_shapes() takes no arguments");
    return SemaValue::ofTuple(args.positional[0].elems);
  }
  if (name == "blocktype.with_element_ty") {
    // dtype.with_element_ty(t): the same shape (none for a scalar type) with element type t.
    auto a = bindArgs(*this, "with_element_ty", {"self", "element_ty"}, 2, args);
    const SemaValue &elem = *a.values[1];
    if (elem.kind != Kind::DType || elem.isBlockType() || elem.isBlockPointerType())
      error(loc, "with_element_ty() needs a scalar dtype");
    SemaValue type = SemaValue::ofDType(elem.dtype);
    type.elems = a.values[0]->elems;
    return type;
  }
  if (name.rfind("dtype.", 0) == 0) {
    DType t = args.positional[0].dtype;
    std::string p = name.substr(6);
    if (args.positional[0].isBlockType()) // a block type is a block, and nothing else
      return SemaValue::ofBool(p == "is_block");
    if (args.positional[0].isBlockPointerType()) // a pointer (to a block), and nothing else
      return SemaValue::ofBool(p == "is_ptr");
    bool r = p == "is_fp16"                     ? t.kind == ScalarKind::F16
             : p == "is_bf16"                   ? t.kind == ScalarKind::BF16
             : p == "is_fp32"                   ? t.kind == ScalarKind::F32
             : p == "is_fp64"                   ? t.kind == ScalarKind::F64
             : p == "is_floating"               ? t.isFloat() || t.isFp8E4B15()
             : p == "is_int"                    ? t.isInteger()
             : p == "is_int_signed"             ? t.isSigned()
             : p == "is_int_unsigned"           ? t.isUnsigned()
             : p == "is_ptr"                    ? t.isPointer()
             : p == "is_bool" || p == "is_int1" ? t.isBool()
             : p == "is_int8"                   ? t.kind == ScalarKind::I8
             : p == "is_int16"                  ? t.kind == ScalarKind::I16
             : p == "is_int32"                  ? t.kind == ScalarKind::I32
             : p == "is_int64"                  ? t.kind == ScalarKind::I64
             : p == "is_uint8"                  ? t.kind == ScalarKind::U8
             : p == "is_uint16"                 ? t.kind == ScalarKind::U16
             : p == "is_uint32"                 ? t.kind == ScalarKind::U32
             : p == "is_uint64"                 ? t.kind == ScalarKind::U64
             : p == "is_fp8"                    ? t.isFp8() || t.isFp8E4B15()
             : p == "is_fp8e4nv"                ? t.kind == ScalarKind::F8E4M3
             : p == "is_fp8e4b15"               ? t.isFp8E4B15()
             : p == "is_fp8e5"                  ? t.kind == ScalarKind::F8E5M2
             : p == "is_standard_floating"
                 ? t.kind == ScalarKind::F16 || t.kind == ScalarKind::BF16 ||
                       t.kind == ScalarKind::F32 || t.kind == ScalarKind::F64
                 : false; // is_block, is_void: a scalar dtype is neither
    return SemaValue::ofBool(r);
  }

  if (name == "cuda.num_warps" || name == "cuda.num_threads") {
    if (!args.positional.empty() || !args.keywords.empty())
      error(loc, "tl.extra.cuda." + name.substr(5) + "() takes no arguments");
    return SemaValue::ofInt(int64_t(function_.numWarps) * (name == "cuda.num_threads" ? 32 : 1));
  }

  // --- Python builtins ------------------------------------------------------------------------
  if (name == "py.open") {
    if (inKernelCode())
      error(loc, "open() cannot be used inside a kernel");
    return openFile(args);
  }
  if (name.rfind("io.TextIOWrapper.", 0) == 0)
    return callTextFileMethod(name.substr(std::string("io.TextIOWrapper.").size()), args);
  if (name == "py.range") {
    if (inKernelCode())
      error(loc, "range() can only be used as the iterable of a for loop in a kernel");
    // In module-level Python a range is a sequence: `list(range(4))`, `zip(names, range(n))`,
    // `len(range(...))` and `in` read it as the tuple of its values.
    return SemaValue::ofTuple(hostRangeItems(args.positional, !args.keywords.empty(), loc));
  }
  if (name == "py.min" || name == "py.max") {
    if (args.positional.size() == 1 && args.positional[0].kind == Kind::Tuple)
      args.positional = args.positional[0].elems;
    if (args.positional.empty())
      error(loc, name.substr(3) + "() needs at least one argument");
    bool allConst = std::all_of(args.positional.begin(), args.positional.end(),
                                [](const SemaValue &v) { return v.isConstexprNumber(); });
    SemaValue best = args.positional[0];
    for (size_t i = 1; i < args.positional.size(); ++i) {
      const SemaValue &v = args.positional[i];
      if (allConst) {
        SemaValue less = compareOp(ast::CompareOperator::Lt, v, best, loc);
        SemaValue more = compareOp(ast::CompareOperator::Gt, v, best, loc);
        if ((name == "py.min" && less.boolValue) || (name == "py.max" && more.boolValue))
          best = v;
        continue;
      }
      // On run-time values Triton maps min/max to tl.minimum/tl.maximum.
      CallArgs pair{{best, v}, {}, loc};
      best = callBuiltin(SemaValue::ofBuiltin(name == "py.min" ? "tl.minimum" : "tl.maximum"),
                         pair);
    }
    return best;
  }
  if (name == "py.float") {
    if (args.positional.size() != 1)
      error(loc, "float() takes one argument");
    const SemaValue &v = args.positional[0];
    if (v.kind == Kind::String) {
      std::string t = v.name;
      std::transform(t.begin(), t.end(), t.begin(), ::tolower);
      if (t == "inf" || t == "+inf" || t == "infinity")
        return SemaValue::ofFloat(std::numeric_limits<double>::infinity());
      if (t == "-inf" || t == "-infinity")
        return SemaValue::ofFloat(-std::numeric_limits<double>::infinity());
      if (t == "nan")
        return SemaValue::ofFloat(std::numeric_limits<double>::quiet_NaN());
      try {
        return SemaValue::ofFloat(std::stod(t));
      } catch (...) {
        error(loc, "could not convert '" + v.name + "' to float");
      }
    }
    if (v.isConstexprNumber())
      return SemaValue::ofFloat(v.numberAsFloat());
    error(loc, "float() of a run-time value is not supported: use x.to(tl.float32)");
  }
  if (name == "py.bool" && args.positional.size() == 1 && args.keywords.empty()) {
    // Python's truth of a constant: None, strings, tuples and library objects too.
    const SemaValue &v = args.positional[0];
    bool known = v.isConstexprNumber() || v.isNone() || v.kind == Kind::String ||
                 v.kind == Kind::Tuple || v.kind == Kind::Object;
    if (known)
      return SemaValue::ofBool(*constexprTruth(v));
  }
  // int("12") in module-level Python (`tuple(map(int, version.split(".")))`): base 10, with
  // Python's surrounding whitespace, sign and underscores between digits.
  if (name == "py.int" && args.positional.size() == 1 && args.keywords.empty() &&
      args.positional[0].kind == Kind::String) {
    const std::string &text = args.positional[0].name;
    size_t begin = text.find_first_not_of(" \t\n\r\f\v");
    size_t end = text.find_last_not_of(" \t\n\r\f\v");
    std::string digits;
    bool valid = begin != std::string::npos;
    if (valid) {
      std::string body = text.substr(begin, end - begin + 1);
      size_t i = body[0] == '-' || body[0] == '+' ? 1 : 0;
      valid = i < body.size();
      for (size_t j = i; valid && j < body.size(); ++j) {
        if (body[j] == '_' && j > i && j + 1 < body.size() &&
            std::isdigit(static_cast<unsigned char>(body[j + 1])) &&
            std::isdigit(static_cast<unsigned char>(body[j - 1])))
          continue;
        valid = std::isdigit(static_cast<unsigned char>(body[j])) != 0;
        digits += body[j];
      }
      if (valid && body[0] == '-')
        digits = "-" + digits;
    }
    if (!valid)
      raisePython(*builtinExceptionClasses("ValueError"),
                  "invalid literal for int() with base 10: " + pythonRepr(args.positional[0], loc),
                  loc);
    if (digits.size() > 18)
      error(loc, "int() of " + args.positional[0].repr() + " is beyond 64-bit integers");
    return SemaValue::ofInt(std::stoll(digits));
  }
  if (name == "py.int" || name == "py.bool" || name == "py.abs") {
    if (args.positional.size() != 1 || !args.positional[0].isConstexprNumber())
      error(loc, name.substr(3) + "() is only supported on constants in a kernel");
    const SemaValue &v = args.positional[0];
    if (name == "py.bool")
      return SemaValue::ofBool(*constexprTruth(v));
    if (name == "py.int") {
      // Python's int() of a float has unbounded range; ours stops at int64 (and NaN has none).
      if (v.kind == Kind::Float && !(std::fabs(v.floatValue) < 9223372036854775808.0))
        error(loc, "int() of " + v.describe() + " does not fit in 64-bit integers");
      if (v.kind == Kind::Int)
        return v;
      return SemaValue::ofInt(v.kind == Kind::Float ? static_cast<int64_t>(v.floatValue)
                                                    : v.boolValue);
    }
    if (v.kind == Kind::Float)
      return SemaValue::ofFloat(std::fabs(v.floatValue));
    __int128 x = v.numberAsWideInt(); // |-2^127| is the one value beyond 128 bits
    if (x == std::numeric_limits<__int128>::min())
      error(loc, "abs() of " + v.repr() + " overflows 128-bit integers");
    return SemaValue::ofWideInt(x < 0 ? -x : x);
  }
  if (name == "py.len") {
    if (args.positional.size() != 1)
      error(loc, "len() takes one argument");
    const SemaValue &v = args.positional[0];
    if (v.kind == Kind::Tuple)
      return SemaValue::ofInt(static_cast<int64_t>(v.elems.size()));
    if (v.kind == Kind::Object && (v.name == kDictClass || isSetObject(v))) // its keys
      return SemaValue::ofInt(static_cast<int64_t>(v.elems[0].elems.size()));
    if (v.isTensor() && v.value->type().isTensor())
      return SemaValue::ofInt(v.value->type().shape[0]);
    if (v.kind == Kind::String) // code points: the UTF-8 bytes that do not continue one
      return SemaValue::ofInt(std::count_if(v.name.begin(), v.name.end(), [](char c) {
        return (static_cast<unsigned char>(c) & 0xC0) != 0x80;
      }));
    error(loc, "len() of " + v.describe() + " is not supported");
  }
  if (name == "py.print") {
    CallArgs printArgs = args;
    printArgs.positional.insert(printArgs.positional.begin(), SemaValue::ofString(""));
    return callBuiltin(SemaValue::ofBuiltin("tl.device_print"), printArgs);
  }
  if (name == "py.isinstance")
    return isInstance(args);
  if (name == "py.getattr" || name == "py.hasattr")
    return callGetattr(args, name == "py.hasattr");
  if (name.rfind("py.object.", 0) == 0)
    return callObjectMethod(name.substr(sizeof("py.object.") - 1), args);
  if (name == "py.str") {
    if (args.positional.size() != 1 || !args.keywords.empty())
      error(loc, "str() takes one argument");
    // A plain str, also of a str subclass such as torch's TorchVersion.
    return SemaValue::ofString(pythonStr(args.positional[0], loc));
  }
  if (name == "py.eval") {
    // eval() of a string that is a literal in module-level Python (xopes' debug switch:
    // `eval(os.environ.get("XOPES_DEBUG", default="False"))`): its value, as Python's eval
    // gives it. Other expressions would need the parser at this point: not supported yet.
    if (hostCallDepth_ == 0 && moduleLevelDepth_ == 0)
      error(loc, "eval() is not supported in a kernel (Triton's code generator has none)");
    if (args.positional.size() != 1 || !args.keywords.empty() ||
        args.positional[0].kind != Kind::String)
      error(loc, "eval() is supported only on one string, a literal, in module-level Python");
    const std::string &text = args.positional[0].name;
    size_t begin = text.find_first_not_of(" \t\n\r\f\v");
    size_t end = text.find_last_not_of(" \t\n\r\f\v");
    std::string body = begin == std::string::npos ? "" : text.substr(begin, end - begin + 1);
    if (body == "True" || body == "False")
      return SemaValue::ofBool(body == "True");
    if (body == "None")
      return SemaValue::none();
    bool integer = !body.empty() && body.find_first_not_of("+-0123456789_") == std::string::npos &&
                   std::isdigit(static_cast<unsigned char>(body.back()));
    if (integer) {
      CallArgs asInt{{SemaValue::ofString(body)}, {}, loc};
      return callBuiltin(SemaValue::ofBuiltin("py.int"), asInt);
    }
    char *stop = nullptr;
    double number = body.empty() ? 0.0 : std::strtod(body.c_str(), &stop);
    if (!body.empty() && stop == body.c_str() + body.size() &&
        body.find_first_of("xXnN") == std::string::npos)
      return SemaValue::ofFloat(number);
    error(loc, "eval() of " + args.positional[0].repr() +
                   ": only a literal (True, False, None, a number) is supported yet");
  }
  if (name == "py.__import__") {
    // `__import__("os").environ` in module-level code (an autotune config list chosen by an
    // environment variable). Triton's code generator has no __import__ in a kernel.
    if (hostCallDepth_ == 0 && moduleLevelDepth_ == 0)
      error(loc, "__import__() is not supported in a kernel (Triton's code generator has none)");
    auto a = bindCallArgs(*this, "__import__", {"name", "globals", "locals", "fromlist", "level"},
                          1, args);
    if (a[0]->kind != Kind::String)
      error(loc, "__import__() takes the module's name as a string");
    // Without a fromlist Python returns the top-level package of a dotted name.
    const std::string &dotted = a[0]->name;
    std::string root = dotted.substr(0, dotted.find('.'));
    bool fromlist = a[3] && !a[3]->isNone() && !(a[3]->kind == Kind::Tuple && a[3]->elems.empty());
    if (!isAlwaysInstalled(root) || fromlist ||
        (a[4] && !(a[4]->kind == Kind::Int && a[4]->intValue == 0)))
      error(loc, "__import__('" + dotted +
                     "'): only an absolute import of a module of Python's standard library, "
                     "torch, numpy, triton or packaging without a fromlist is supported yet; "
                     "use an import statement");
    return SemaValue::ofModule(root);
  }
  if (name == "py.bin" || name == "py.oct" || name == "py.hex") {
    // Python's integer-to-string builtins, for host code (a @triton.constexpr_function such as
    // PyTorch's `log2(n): return len(bin(n)) - 3`); Triton's code generator has none in a kernel.
    const std::string fn = name.substr(3);
    if (hostCallDepth_ == 0 && moduleLevelDepth_ == 0)
      error(loc, fn + "() is not supported in a kernel (Triton's code generator has none); it is "
                      "evaluated in module-level Python and @triton.constexpr_function bodies");
    auto a = bindCallArgs(*this, fn, {"number"}, 1, args);
    const SemaValue &v = *a[0];
    if (v.kind != Kind::Int && v.kind != Kind::Bool)
      raisePython(*builtinExceptionClasses("TypeError"),
                  "'" + std::string(v.kind == Kind::Float ? "float" : v.describe()) +
                      "' object cannot be interpreted as an integer",
                  loc);
    __int128 x = v.numberAsWideInt();
    const bool negative = x < 0;
    unsigned __int128 magnitude =
        negative ? -static_cast<unsigned __int128>(x) : static_cast<unsigned __int128>(x);
    const unsigned shift = fn == "bin" ? 1 : fn == "oct" ? 3 : 4;
    std::string digits;
    do {
      digits.insert(digits.begin(), "0123456789abcdef"[magnitude & ((1u << shift) - 1)]);
      magnitude >>= shift;
    } while (magnitude != 0);
    const char *prefix = fn == "bin" ? "0b" : fn == "oct" ? "0o" : "0x";
    return SemaValue::ofString((negative ? "-" : "") + std::string(prefix) + digits);
  }
  if (name == "py.format") {
    // Python's format(value, format_spec=''); Triton's code generator has no format() in a
    // kernel.
    if (hostCallDepth_ == 0 && moduleLevelDepth_ == 0)
      error(loc, "format() is not supported in a kernel (Triton's code generator has none); "
                 "it is evaluated in module-level Python");
    auto a = bindCallArgs(*this, "format", {"value", "format_spec"}, 1, args);
    std::string spec;
    if (a[1] && a[1]->kind != Kind::String) {
      const Kind k = a[1]->kind;
      std::string cls = k == Kind::None    ? "NoneType"
                        : k == Kind::Int   ? "int"
                        : k == Kind::Float ? "float"
                        : k == Kind::Bool  ? "bool"
                        : k == Kind::Tuple ? (a[1]->isList ? "list" : "tuple")
                                           : a[1]->describe();
      raisePython(*builtinExceptionClasses("TypeError"),
                  "format() argument 2 must be str, not " + cls, loc);
    }
    if (a[1])
      spec = a[1]->name;
    return SemaValue::ofString(pythonFormat(*a[0], spec, loc));
  }
  if (name == "py.sum" || name == "py.any" || name == "py.all") {
    // Over the constants of a tuple or list (a comprehension's result), as Python.
    if (args.positional.empty() || args.positional.size() > (name == "py.sum" ? 2u : 1u) ||
        args.positional[0].kind != Kind::Tuple)
      error(loc, name.substr(3) + "() is only supported on a tuple or a list of constants");
    if (name != "py.sum") {
      bool any = false, all = true;
      for (const SemaValue &v : args.positional[0].elems) {
        std::optional<bool> truth = constexprTruth(v);
        if (!truth)
          error(loc, name.substr(3) + "() of " + v.describe() + " is not supported");
        any |= *truth;
        all &= *truth;
      }
      return SemaValue::ofBool(name == "py.any" ? any : all);
    }
    SemaValue total = args.positional.size() == 2 ? args.positional[1] : SemaValue::ofInt(0);
    for (const SemaValue &v : args.positional[0].elems) {
      if (!v.isConstexprNumber() || !total.isConstexprNumber())
        error(loc, "sum() is only supported on constant numbers");
      total = binaryOp(ast::BinaryOperator::Add, total, v, loc);
    }
    return total;
  }
  if (name == "py.map") {
    // map(f, a, b...) in module-level Python (`tuple(map(int, version.split(".")))`): f of the
    // elements at each position, as many as the shortest iterable has. Its iterator is a list
    // here, which tuple(), list() and the loops take alike. Triton's kernels have no map.
    if (hostCallDepth_ == 0 && moduleLevelDepth_ == 0)
      error(loc, "map() is not supported in a kernel (Triton's code generator has none)");
    if (args.positional.size() < 2 || !args.keywords.empty())
      raisePython(*builtinExceptionClasses("TypeError"), "map() must have at least two arguments.",
                  loc);
    size_t count = SIZE_MAX;
    for (size_t i = 1; i < args.positional.size(); ++i) {
      const SemaValue &iterable = args.positional[i];
      if (iterable.kind != Kind::Tuple)
        error(loc, "map() over " + iterable.describe() +
                       " is not supported; tilec maps tuples "
                       "and lists");
      count = std::min(count, iterable.elems.size());
    }
    std::vector<SemaValue> results;
    for (size_t e = 0; e < count; ++e) {
      CallArgs call;
      call.loc = loc;
      for (size_t i = 1; i < args.positional.size(); ++i)
        call.positional.push_back(args.positional[i].elems[e]);
      results.push_back(callValue(args.positional[0], call, loc));
    }
    return SemaValue::ofList(std::move(results));
  }
  if (name == "py.zip" || name == "py.enumerate" || name == "py.sorted" || name == "py.reversed") {
    // zip(), enumerate(), sorted() and reversed() in module-level Python (config builders,
    // pruners): their iterators are lists here, consumed where they are made, as map()'s.
    const std::string display = name.substr(3);
    if (inKernelCode())
      error(loc, display + "() is not supported in a kernel; tilec evaluates it in module-level "
                           "Python");
    // The items of a tuple, list, string, dict (its keys) or set, in iteration order.
    auto itemsOf = [&](const SemaValue &iterable) {
      if (iterable.kind == Kind::Tuple)
        return iterable.elems;
      std::vector<SemaValue> items;
      if (iterable.kind == Kind::String) {
        for (char c : iterable.name)
          items.push_back(SemaValue::ofString(std::string(1, c)));
        return items;
      }
      if (iterable.kind == Kind::Object && iterable.name == kDictClass)
        return iterable.elems[0].elems;
      // A set's order is its hash table's, which sorted() does not depend on (its items are
      // unique).
      if (isSetObject(iterable) && name == "py.sorted")
        return iterable.elems[0].elems;
      error(loc, display + "() over " + iterable.describe() +
                     " is not supported yet (tuples, lists, strings and dicts are)");
    };
    if (name == "py.zip") {
      for (const auto &[keyword, value] : args.keywords)
        if (keyword != "strict")
          raisePython(*builtinExceptionClasses("TypeError"),
                      "zip() got an unexpected keyword argument '" + keyword + "'", loc);
      std::vector<std::vector<SemaValue>> columns;
      size_t count = args.positional.empty() ? 0 : SIZE_MAX;
      for (const SemaValue &iterable : args.positional) {
        columns.push_back(itemsOf(iterable));
        count = std::min(count, columns.back().size());
      }
      std::vector<SemaValue> rows;
      for (size_t r = 0; r < count; ++r) {
        std::vector<SemaValue> row;
        for (const std::vector<SemaValue> &column : columns)
          row.push_back(column[r]);
        rows.push_back(SemaValue::ofTuple(std::move(row)));
      }
      return SemaValue::ofList(std::move(rows));
    }
    if (name == "py.enumerate") {
      auto a = bindArgs(*this, display, {"iterable", "start"}, 1, args);
      int64_t start = 0;
      if (const SemaValue *given = a.get(1)) {
        if (given->kind != Kind::Int && given->kind != Kind::Bool)
          raisePython(*builtinExceptionClasses("TypeError"),
                      "'" + given->describe() + "' object cannot be interpreted as an integer",
                      loc);
        start = given->intValue;
      }
      std::vector<SemaValue> pairs;
      for (const SemaValue &item : itemsOf(*a.values[0]))
        pairs.push_back(SemaValue::ofTuple({SemaValue::ofInt(start++), item}));
      return SemaValue::ofList(std::move(pairs));
    }
    if (name == "py.reversed") {
      auto a = bindArgs(*this, display, {"sequence"}, 1, args);
      std::vector<SemaValue> items = itemsOf(*a.values[0]);
      std::reverse(items.begin(), items.end());
      return SemaValue::ofList(std::move(items));
    }
    // sorted(iterable, /, *, key=None, reverse=False): Python's sort is stable and compares with
    // `<` only; reverse=True keeps equal items in their order too.
    if (args.positional.size() != 1)
      raisePython(*builtinExceptionClasses("TypeError"),
                  "sorted expected 1 argument, got " + std::to_string(args.positional.size()), loc);
    SemaValue key = SemaValue::none();
    bool reverse = false;
    for (const auto &[keyword, value] : args.keywords) {
      if (keyword == "key") {
        key = value;
      } else if (keyword == "reverse") {
        std::optional<bool> truth = constexprTruth(value);
        if (!truth)
          error(loc, "sorted(): reverse must be a Python value here");
        reverse = *truth;
      } else {
        raisePython(*builtinExceptionClasses("TypeError"),
                    "sort() got an unexpected keyword argument '" + keyword + "'", loc);
      }
    }
    std::vector<SemaValue> items = itemsOf(args.positional[0]);
    std::vector<std::pair<SemaValue, size_t>> keyed;
    for (size_t i = 0; i < items.size(); ++i) {
      if (key.isNone()) {
        keyed.emplace_back(items[i], i);
        continue;
      }
      CallArgs call;
      call.positional = {items[i]};
      call.loc = loc;
      keyed.emplace_back(callValue(key, call, loc), i);
    }
    auto less = [&](const SemaValue &a, const SemaValue &b) {
      std::optional<bool> truth = constexprTruth(compareOp(ast::CompareOperator::Lt, a, b, loc));
      if (!truth)
        error(loc, "sorted(): cannot order " + a.describe() + " and " + b.describe());
      return *truth;
    };
    std::stable_sort(keyed.begin(), keyed.end(), [&](const auto &a, const auto &b) {
      return reverse ? less(b.first, a.first) : less(a.first, b.first);
    });
    std::vector<SemaValue> sorted;
    for (const auto &entry : keyed)
      sorted.push_back(items[entry.second]);
    return SemaValue::ofList(std::move(sorted));
  }
  if (name == "py.set" || name == "py.frozenset") {
    // set(iterable) and frozenset(iterable) in module-level Python.
    const std::string display = name.substr(3);
    if (inKernelCode())
      error(loc, "a " + display + " is not supported in a kernel");
    if (!args.keywords.empty())
      raisePython(*builtinExceptionClasses("TypeError"), display + "() takes no keyword arguments",
                  loc);
    if (args.positional.size() > 1)
      raisePython(*builtinExceptionClasses("TypeError"),
                  display + " expected at most 1 argument, got " +
                      std::to_string(args.positional.size()),
                  loc);
    const char *cls = name == "py.set" ? kSetClass : kFrozenSetClass;
    if (args.positional.empty())
      return makeSet(cls, {}, loc);
    const SemaValue &from = args.positional[0];
    if (from.kind == Kind::Tuple)
      return makeSet(cls, from.elems, loc);
    if (from.kind == Kind::Object && (from.name == kDictClass || isSetObject(from)))
      return makeSet(cls, from.elems[0].elems, loc);
    if (from.kind == Kind::String) {
      std::vector<SemaValue> characters;
      for (char c : from.name)
        characters.push_back(SemaValue::ofString(std::string(1, c)));
      if (std::any_of(from.name.begin(), from.name.end(),
                      [](char c) { return static_cast<unsigned char>(c) >= 0x80; }))
        error(loc, display + "() of a string outside ASCII is not supported yet");
      return makeSet(cls, characters, loc);
    }
    error(loc, display + "() of " + from.describe() +
                   " is not supported yet (tuples, lists, strings, dicts and sets are)");
  }
  if (name == "py.dict") {
    // dict(), dict(mapping), dict(pairs) and their keywords, in module-level Python.
    if (inKernelCode())
      error(loc, "a dict is not supported in a kernel");
    if (args.positional.size() > 1)
      raisePython(*builtinExceptionClasses("TypeError"),
                  "dict expected at most 1 argument, got " + std::to_string(args.positional.size()),
                  loc);
    SemaValue dict = makeDict();
    if (!args.positional.empty()) {
      const SemaValue &from = args.positional[0];
      if (from.kind == Kind::Object && from.name == kDictClass) {
        dict = from;
        dict.objectId = SemaValue::newObjectId(); // a new dict of the same items
      } else if (from.kind == Kind::Tuple) {
        for (const SemaValue &pair : from.elems) {
          if (pair.kind != Kind::Tuple || pair.elems.size() != 2)
            raisePython(*builtinExceptionClasses("ValueError"),
                        "dictionary update sequence element has the wrong length", loc);
          dictInsert(dict, pair.elems[0], pair.elems[1]);
        }
      } else {
        error(loc, "dict() of " + from.describe() + " is not supported yet");
      }
    }
    for (const auto &[keyword, value] : args.keywords)
      dictInsert(dict, SemaValue::ofString(keyword), value);
    return dict;
  }
  if (name == "py.tuple" || name == "py.list") {
    // list() and tuple() with no argument: a new empty list, the empty tuple
    // (`out = list()` before a loop that appends configs, NeMo Automodel's LoRA kernels).
    if (args.positional.empty() && args.keywords.empty()) {
      SemaValue empty = SemaValue::ofTuple({});
      empty.isList = name == "py.list";
      empty.objectId = empty.isList ? SemaValue::newObjectId() : 0;
      return empty;
    }
    if (args.positional.size() != 1 || args.positional[0].kind != Kind::Tuple)
      error(loc, name.substr(3) + "() is only supported on a tuple or a list");
    SemaValue copy = args.positional[0];
    copy.isList = name == "py.list";
    // list(xs) is a new list; tuple(xs) a tuple.
    copy.objectId = copy.isList ? SemaValue::newObjectId() : 0;
    return copy;
  }
  if (name == "py.filter") {
    // filter(function, iterable) over a tuple or list, consumed where it is made (list(...)):
    // the items the function (a Python function of the module, or None: truth) keeps.
    auto a = bindArgs(*this, "filter", {"function", "iterable"}, 2, args);
    const SemaValue &fn = *a.values[0];
    if (a.values[1]->kind != Kind::Tuple)
      error(loc, "filter() is only supported on a tuple or a list");
    bool hostFunction = fn.kind == Kind::Builtin && fn.function && fn.name.rfind("pyfunc:", 0) == 0;
    if (!fn.isNone() && !hostFunction)
      error(loc, "filter() takes a Python function of the module or None, not " + fn.describe());
    std::vector<SemaValue> kept;
    for (const SemaValue &item : a.values[1]->elems) {
      SemaValue verdict = item;
      if (hostFunction) {
        CallArgs call{{item}, {}, loc};
        verdict = callHostFunction(fn, call);
      }
      std::optional<bool> truth = constexprTruth(verdict);
      if (!truth)
        error(loc, "filter(): the truth of " + verdict.describe() + " is not supported");
      if (*truth)
        kept.push_back(item);
    }
    return SemaValue::ofList(std::move(kept));
  }
  // Methods of strings and of the library objects of module-level code (HostPython.cpp).
  if (name.rfind("str.", 0) == 0 || name.rfind("re.", 0) == 0 || name.rfind("importlib.", 0) == 0 ||
      name.rfind("dict.", 0) == 0 || name.rfind("logging.Logger.", 0) == 0)
    return callHostLibrary(name, args);

  if (name.rfind("libdevice.", 0) == 0) {
    std::string fn = name.substr(10);
    const tir::LibdeviceFunction *floatFn = tir::findLibdeviceFunction(fn);
    const tir::LibdeviceExtern *externFn = tir::findLibdeviceExtern(fn);
    // pow(x, n) with an integer exponent is Triton's __nv_powif/__nv_powi.
    bool integerOperand = false;
    for (const SemaValue &v : args.positional)
      integerOperand |= v.kind == Kind::Int || v.kind == Kind::Bool ||
                        (v.isTensor() && (v.value->type().elem.isInteger()));
    SemaValue result = floatFn && (!externFn || !integerOperand)
                           ? callLibdevice(*floatFn, args)
                           : callLibdeviceExtern(*externFn, args);
    // Triton 3.6's libdevice converts these four int32 answers to int1 (signbit stays int32).
    if (fn == "isnan" || fn == "isinf" || fn == "finitef" || fn == "isfinited")
      return SemaValue::ofTensor(castTo(result.value, DType::scalar(ScalarKind::I1)));
    return result;
  }
  if (name.rfind("tl.", 0) != 0)
    error(loc, "'" + name + "' cannot be called in a kernel");
  std::string fn = name.substr(3);
  std::string display = "tl." + fn;

  // --- Compile-time helpers -------------------------------------------------------------------
  if (fn == "constexpr") {
    auto a = bindArgs(*this, display, {"value"}, 1, args);
    return *a.values[0];
  }
  if (fn == "constexpr_type") {
    // core.constexpr_type(value): the type of a constexpr holding `value`, equal to another
    // when the values are (Triton's own test_constexpr_assignment compares `c.type` with it).
    auto a = bindArgs(*this, display, {"value"}, 1, args);
    SemaValue type;
    type.kind = Kind::Object;
    type.name = kConstexprTypeClass;
    type.elems = {*a.values[0]};
    return type;
  }
  if (fn == "pointer_type") {
    // tl.pointer_type(tl.uint32): the dtype of pointers to it (for .to() casts of pointers and
    // of the 64-bit integers that hold addresses), in the global address space.
    auto a = bindArgs(*this, display, {"element_ty", "address_space", "const"}, 1, args);
    if (a.values[0]->kind != Kind::DType)
      error(loc, "tl.pointer_type needs the dtype of the elements, got " + a.values[0]->describe());
    if (a.values[0]->dtype.isPointer())
      error(loc, "tl.pointer_type of a pointer type (pointers to pointers) is not supported yet: "
                 "hold the addresses as int64 and cast them with .to(tl.pointer_type(...))");
    if (const SemaValue *space = a.get(1);
        space && !(space->isConstexprNumber() && space->numberAsInt() == 1))
      error(loc, "tl.pointer_type: only the global address space (1) is supported yet");
    if (const SemaValue *isConst = a.get(2); isConst && constexprTruth(*isConst).value_or(true))
      error(loc, "tl.pointer_type(const=True) is not supported yet");
    return SemaValue::ofDType(tir::DType::pointer(a.values[0]->dtype.kind));
  }
  if (fn == "static_assert") {
    auto a = bindArgs(*this, display, {"cond", "msg"}, 1, args);
    auto truth = constexprTruth(*a.values[0]);
    if (!truth)
      error(loc, "tl.static_assert needs a compile-time condition, got " + a.values[0]->describe() +
                     assignedNumberHint(*a.values[0]));
    if (!*truth) // an autotuned kernel's driver skips the config, as Triton's autotuner
      sources_.error(
          loc, "static assertion failed" + (a.get(1) ? ": " + valueText(*a.get(1)) : std::string()),
          CompileError::Kind::CompileTimeAssertion);
    return SemaValue::none();
  }
  if (fn == "static_print") {
    std::string text;
    for (const SemaValue &v : args.positional)
      text += (text.empty() ? "" : " ") + (v.isTensor() ? v.describe() : valueText(v));
    sources_.note(loc, "static_print: " + text);
    return SemaValue::none();
  }
  if (fn == "next_power_of_2") {
    auto a = bindArgs(*this, display, {"n"}, 1, args);
    return SemaValue::ofInt(nextPowerOfTwo(*this, constantInt(*a.values[0], loc, "n"), loc));
  }
  if (fn == "_log2") { // standard._log2: the floor of log2 of a constexpr (0 below 2)
    auto a = bindArgs(*this, display, {"i"}, 1, args);
    int64_t n = constantInt(*a.values[0], loc, "i");
    int64_t log2 = 0;
    for (; n > 1; n >>= 1)
      ++log2;
    return SemaValue::ofInt(log2);
  }
  if (fn == "_is_power_of_two") { // standard._is_power_of_two: a constexpr function of 3.6
    auto a = bindArgs(*this, display, {"i"}, 1, args);
    int64_t n = constantInt(*a.values[0], loc, "i");
    return SemaValue::ofBool(n != 0 && (n & (n - 1)) == 0);
  }
  if (fn == "get_int_dtype") {
    auto a = bindArgs(*this, display, {"bitwidth", "signed"}, 2, args);
    int64_t bits = constantInt(*a.values[0], loc, "bitwidth");
    auto isSigned = constexprTruth(*a.values[1]);
    if (!isSigned)
      error(loc, display + "'s signed must be a constexpr bool");
    static const std::map<std::pair<int64_t, bool>, ScalarKind> kinds = {
        {{1, true}, ScalarKind::I1},   {{1, false}, ScalarKind::I1},
        {{8, true}, ScalarKind::I8},   {{8, false}, ScalarKind::U8},
        {{16, true}, ScalarKind::I16}, {{16, false}, ScalarKind::U16},
        {{32, true}, ScalarKind::I32}, {{32, false}, ScalarKind::U32},
        {{64, true}, ScalarKind::I64}, {{64, false}, ScalarKind::U64}};
    auto it = kinds.find({bits, *isSigned});
    if (it == kinds.end())
      error(loc, "Unsupported bitwidth " + std::to_string(bits) + " and signedness " +
                     (*isSigned ? "True" : "False"));
    return SemaValue::ofDType(DType::scalar(it->second));
  }
  if (fn == "multiple_of" || fn == "max_contiguous" || fn == "max_constancy") {
    auto a = bindArgs(*this, display, {"input", "values"}, 2, args);
    tir::Value *v = tensorArg(*a.values[0], display);
    std::vector<int64_t> values;
    if (a.values[1]->kind == Kind::Tuple) {
      for (const SemaValue &e : a.values[1]->elems)
        values.push_back(constantInt(e, loc, "values"));
    } else {
      values.push_back(constantInt(*a.values[1], loc, "values"));
    }
    if (values.size() != std::max<size_t>(1, v->type().rank()))
      error(loc, display + " needs one value per dimension of the tensor");
    // The hint rides on the value's defining operation, where axis analysis reads it.
    if (tir::Operation *def = v->definingOp())
      def->setAttr(fn == "multiple_of"      ? "hint.divisibility"
                   : fn == "max_contiguous" ? "hint.contiguity"
                                            : "hint.constancy",
                   values);
    return *a.values[0];
  }

  // --- Program and tensor creation ------------------------------------------------------------
  if (fn == "program_id" || fn == "num_programs") {
    auto a = bindArgs(*this, display, {"axis"}, 1, args);
    int64_t axis = constantInt(*a.values[0], loc, "axis");
    if (axis < 0 || axis > 2)
      error(loc, display + "'s axis must be 0, 1 or 2, got " + std::to_string(axis));
    return SemaValue::ofTensor(fn == "program_id" ? builder_.programId(axis)
                                                  : builder_.numPrograms(axis));
  }
  if (fn == "arange") {
    auto a = bindArgs(*this, display, {"start", "end"}, 2, args);
    int64_t start = constantInt(*a.values[0], loc, "tl.arange's start");
    int64_t end = constantInt(*a.values[1], loc, "tl.arange's end");
    // Bounds far outside int32 would overflow the length computed from them.
    bool fitsInt32 = start >= std::numeric_limits<int32_t>::min() &&
                     start <= std::numeric_limits<int32_t>::max() &&
                     end >= std::numeric_limits<int32_t>::min() &&
                     end <= std::numeric_limits<int32_t>::max();
    int64_t n = fitsInt32 ? end - start : 0;
    if (fitsInt32 && (n <= 0 || (n & (n - 1)) != 0))
      error(loc, "tl.arange's range must have a power-of-two length, got " + std::to_string(n));
    if (!fitsInt32)
      error(loc, "tl.arange's bounds must fit in int32");
    checkTensorSize({n}, loc);
    return SemaValue::ofTensor(builder_.makeRange(start, end));
  }
  if (fn == "zeros" || fn == "full") {
    std::vector<int64_t> shape;
    DType dtype;
    SemaValue fill = SemaValue::ofInt(0);
    if (fn == "zeros") {
      auto a = bindArgs(*this, display, {"shape", "dtype"}, 2, args);
      shape = constShape(*this, *a.values[0], loc);
      dtype = constDType(*this, *a.values[1], loc, "dtype");
    } else {
      auto a = bindArgs(*this, display, {"shape", "value", "dtype"}, 3, args);
      shape = constShape(*this, *a.values[0], loc);
      fill = *a.values[1];
      dtype = constDType(*this, *a.values[2], loc, "dtype");
    }
    if (dtype.isFp8E4B15())
      fill = fp8E4B15Number(fill, loc);
    tir::Value *scalar = fill.isTensor() ? castTo(fill.value, dtype) : materialize(fill, loc, dtype);
    if (!scalar->type().isScalar())
      error(loc, display + "'s value must be a scalar");
    return SemaValue::ofTensor(broadcastTo(scalar, shape, loc));
  }

  // --- Memory ---------------------------------------------------------------------------------
  if (fn == "load") {
    auto a = bindArgs(*this, display,
                      {"pointer", "mask", "other", "boundary_check", "padding_option",
                       "cache_modifier", "eviction_policy", "volatile"},
                      1, args);
    if (a.values[0]->kind == Kind::BlockPtr) {
      if (a.get(1) || a.get(2))
        error(loc, "tl.load through a block pointer takes no mask or other: use boundary_check "
                   "and padding_option");
      SemaValue loaded = loadBlockPointer(*a.values[0], a.get(3), a.get(4), loc);
      addBlockPointerTmaOperands(*a.values[0], a.get(3), a.get(4), loc,
                                 *loaded.value->definingOp());
      return loaded;
    }
    if (a.values[0]->kind == Kind::TensorDesc)
      error(loc, "tl.load does not take a tensor descriptor: use desc.load(offsets)");
    tir::Value *ptr = tensorArg(*a.values[0], "tl.load's pointer");
    if (!ptr->type().elem.isPointer())
      error(loc, "tl.load needs a pointer, got " + a.values[0]->describe());
    // Booleans are bytes in memory: as Triton does, an int1 pointer loads int8 (`other` cast to
    // int8), and the bytes read are `!= 0`.
    const bool boolMemory = ptr->type().elem.pointee == ScalarKind::I1;
    if (boolMemory)
      ptr = builder_.cast(ptr, DType::pointer(ScalarKind::I8));
    if ((a.get(3) && !(a.get(3)->kind == Kind::Tuple && a.get(3)->elems.empty())) ||
        (a.get(4) && !(a.get(4)->kind == Kind::String && a.get(4)->name.empty())))
      error(loc, "tl.load's boundary_check and padding_option need a block pointer "
                 "(tl.make_block_ptr): a tensor of pointers has no bounds");
    if (!a.get(1) && a.get(2))
      error(loc, "`other` cannot be provided without `mask`"); // Triton's ValueError
    tir::Value *mask = nullptr;
    if (const SemaValue *m = a.get(1)) {
      if (m->kind == Kind::Bool && m->boolValue) {
        // mask=True masks nothing
      } else {
        mask = tensorArg(*m, "tl.load's mask");
        if (!mask->type().elem.isBool())
          error(loc, "tl.load's mask must be a boolean tensor, got " + mask->type().str());
      }
    }
    DType elem = ptr->type().elem.pointeeType();
    std::vector<int64_t> shape = ptr->type().shape;
    if (mask)
      shape = broadcastShape(Type(elem, shape), mask->type(), loc);
    tir::Value *other = nullptr;
    if (const SemaValue *o = a.get(2); o && mask) {
      other = toTensorAs(*o, loc, elem);
      shape = broadcastShape(Type(elem, shape), other->type(), loc);
    }
    std::vector<tir::Value *> operands = {broadcastTo(ptr, shape, loc)};
    if (mask)
      operands.push_back(broadcastTo(mask, shape, loc));
    if (other)
      operands.push_back(broadcastTo(other, shape, loc));
    tir::Value *loaded = builder_.createValue(OpCode::Load, operands, Type(elem, shape));
    // volatile=True: every load reaches memory (no reuse, no early issue by prefetch-loads).
    // cache_modifier=".cv" (fetch again, do not cache: the flag polls of multi-GPU kernels) asks
    // no less, and is compiled so; the other cache modifiers only tune performance.
    const SemaValue *cacheModifier = a.get(5);
    bool fetchAgain =
        cacheModifier && cacheModifier->kind == Kind::String && cacheModifier->name == ".cv";
    if (const SemaValue *v = a.get(7); (v && v->kind == Kind::Bool && v->boolValue) || fetchAgain)
      loaded->definingOp()->setAttr("volatile", true);
    if (boolMemory)
      loaded = castTo(loaded, DType::scalar(ScalarKind::I1));
    return SemaValue::ofTensor(loaded);
  }
  if (fn == "store") {
    auto a = bindArgs(*this, display,
                      {"pointer", "value", "mask", "boundary_check", "cache_modifier",
                       "eviction_policy"},
                      2, args);
    if (a.values[0]->kind == Kind::BlockPtr) {
      if (a.get(2))
        error(loc, "tl.store through a block pointer takes no mask: use boundary_check");
      storeBlockPointer(*a.values[0], *a.values[1], a.get(3), loc);
      return SemaValue::none();
    }
    if (a.values[0]->kind == Kind::TensorDesc) {
      error(loc, "tl.store does not take a tensor descriptor: use desc.store(offsets, value)");
    }
    tir::Value *ptr = tensorArg(*a.values[0], "tl.store's pointer");
    if (!ptr->type().elem.isPointer())
      error(loc, "tl.store needs a pointer, got " + a.values[0]->describe());
    // An int1 pointer stores int8, the value cast to int8 as Triton does (a bool is 0 or 1).
    if (ptr->type().elem.pointee == ScalarKind::I1)
      ptr = builder_.cast(ptr, DType::pointer(ScalarKind::I8));
    if (a.get(3) && !(a.get(3)->kind == Kind::Tuple && a.get(3)->elems.empty()))
      error(loc, "tl.store's boundary_check needs a block pointer (tl.make_block_ptr): a tensor "
                 "of pointers has no bounds");
    DType elem = ptr->type().elem.pointeeType();
    const SemaValue &val = *a.values[1];
    tir::Value *value = toTensorAs(val, loc, elem);
    if (ptr->type().isScalar() && !value->type().isScalar())
      error(loc, "tl.store of a block of values through a single pointer: Triton refuses it "
                 "(make the pointer a block of the value's shape)");
    std::vector<int64_t> shape = broadcastShape(ptr->type(), value->type(), loc);
    tir::Value *mask = nullptr;
    if (const SemaValue *m = a.get(2); m && !(m->kind == Kind::Bool && m->boolValue)) {
      mask = tensorArg(*m, "tl.store's mask");
      if (!mask->type().elem.isBool())
        error(loc, "tl.store's mask must be a boolean tensor, got " + mask->type().str());
      shape = broadcastShape(Type(elem, shape), mask->type(), loc);
    }
    // The value and the mask broadcast to the pointers, never the pointers to them (Triton's
    // _store_legacy: a store writes each pointer once).
    if (!ptr->type().isScalar() && shape != ptr->type().shape)
      error(loc, "tl.store: the value or mask has the shape " + shapeText(Type(elem, shape)) +
                     " once broadcast, the pointers " + shapeText(ptr->type()) +
                     " (Triton: expected pointer argument to have shape " +
                     shapeText(Type(elem, shape)) + ")");
    std::vector<tir::Value *> operands = {broadcastTo(ptr, shape, loc),
                                          broadcastTo(value, shape, loc)};
    if (mask)
      operands.push_back(broadcastTo(mask, shape, loc));
    builder_.create(OpCode::Store, operands, {});
    return SemaValue::none();
  }
  if (fn.rfind("atomic_", 0) == 0) {
    bool cas = fn == "atomic_cas";
    auto a = cas ? bindArgs(*this, display, {"pointer", "cmp", "val", "sem", "scope"}, 3, args)
                 : bindArgs(*this, display, {"pointer", "val", "mask", "sem", "scope"}, 2, args);
    tir::Value *ptr = tensorArg(*a.values[0], display + "'s pointer");
    if (!ptr->type().elem.isPointer())
      error(loc, display + " needs a pointer, got " + a.values[0]->describe());
    DType elem = ptr->type().elem.pointeeType();
    // Triton 3.6's element types: atomic_cas takes any 16-, 32- or 64-bit type; the
    // read-modify-write atomics take 32- and 64-bit types, and fp16/bf16 for atomic_add only.
    if (cas && elem.bits() != 16 && elem.bits() != 32 && elem.bits() != 64)
      error(loc,
            display + " only supports elements of 16, 32 or 64 bits, got " + elem.tritonName());
    if (!cas) {
      bool half = elem.kind == ScalarKind::F16 || elem.kind == ScalarKind::BF16;
      if (half && fn != "atomic_add")
        error(loc, display + " does not support " + elem.tritonName() +
                       " (Triton has only atomic_add and atomic_cas on 16-bit floats)");
      if (!half && (elem.isBool() || elem.bits() < 32))
        error(loc, display + " does not support " + elem.tritonName());
    }
    auto asElem = [&](const SemaValue &v) { return toTensorAs(v, loc, elem); };
    // The memory order and scope, as Triton takes them (acq_rel and gpu by default); kept on the
    // op where they differ, for the atom instruction's qualifiers.
    auto orderAttrs = [&](tir::Operation *op) {
      const SemaValue *sem = a.get(3), *scope = a.get(4);
      if (sem) {
        if (sem->kind != Kind::String || (sem->name != "acquire" && sem->name != "release" &&
                                          sem->name != "acq_rel" && sem->name != "relaxed"))
          error(loc, display + ": sem must be 'acquire', 'release', 'acq_rel' or 'relaxed', got " +
                         (sem->kind == Kind::String ? "'" + sem->name + "'" : sem->describe()));
        if (sem->name != "acq_rel")
          op->setAttr("sem", sem->name);
      }
      if (scope) {
        if (scope->kind != Kind::String ||
            (scope->name != "gpu" && scope->name != "cta" && scope->name != "sys"))
          error(loc,
                display + ": scope must be 'gpu', 'cta' or 'sys', got " +
                    (scope->kind == Kind::String ? "'" + scope->name + "'" : scope->describe()));
        if (scope->name != "gpu")
          op->setAttr("scope", scope->name);
      }
      return op;
    };
    if (cas) {
      tir::Value *cmp = asElem(*a.values[1]);
      tir::Value *val = asElem(*a.values[2]);
      std::vector<int64_t> shape = broadcastShape(ptr->type(), cmp->type(), loc);
      shape = broadcastShape(Type(elem, shape), val->type(), loc);
      tir::Value *old =
          builder_.createValue(OpCode::AtomicCAS,
                               {broadcastTo(ptr, shape, loc), broadcastTo(cmp, shape, loc),
                                broadcastTo(val, shape, loc)},
                               Type(elem, shape));
      orderAttrs(old->definingOp());
      return SemaValue::ofTensor(old);
    }
    tir::Value *val = asElem(*a.values[1]);
    std::vector<int64_t> shape = broadcastShape(ptr->type(), val->type(), loc);
    tir::Value *mask = nullptr;
    if (const SemaValue *m = a.get(2)) {
      mask = tensorArg(*m, display + "'s mask");
      shape = broadcastShape(Type(elem, shape), mask->type(), loc);
    }
    std::vector<tir::Value *> operands = {broadcastTo(ptr, shape, loc), broadcastTo(val, shape, loc)};
    if (mask)
      operands.push_back(broadcastTo(mask, shape, loc));
    tir::Operation *op = builder_.create(OpCode::AtomicRMW, operands, {Type(elem, shape)});
    op->setAttr("kind", fn.substr(7));
    orderAttrs(op);
    return SemaValue::ofTensor(op->result());
  }

  // --- Elementwise math -----------------------------------------------------------------------
  if (auto m = unaryMath().find(fn); m != unaryMath().end()) {
    auto a = bindArgs(*this, display, {"x"}, 1, args);
    tir::Value *x = tensorArg(*a.values[0], display);
    DType t = x->type().elem;
    if (m->second == OpCode::Abs) {
      if (t.isPointer() || t.isBool())
        error(loc, "tl.abs needs a number, got " + t.tritonName());
      if (t.isUnsigned())
        return SemaValue::ofTensor(x);
      if (t.isFp8E4B15()) {
        // Triton's math.abs: `and` with 0x7f on the byte (an i8 in its MLIR).
        Type bytes = x->type().withElem(DType::scalar(ScalarKind::U8));
        tir::Value *mask = builder_.intConstant(0x7f, Type(bytes.elem));
        if (bytes.isTensor())
          mask = builder_.splat(mask, bytes.shape);
        tir::Value *cleared =
            builder_.binary(OpCode::And, builder_.createValue(OpCode::Bitcast, {x}, bytes), mask);
        return SemaValue::ofTensor(builder_.createValue(OpCode::Bitcast, {cleared}, x->type()));
      }
      return SemaValue::ofTensor(builder_.unary(OpCode::Abs, x));
    }
    if (!t.isFloat())
      error(loc, display + " needs a floating-point argument, got " + t.tritonName() +
                     " (convert it with .to(tl.float32))");
    // Triton 3.6's math functions check their tensors' dtypes (math._check_dtype, libdevice's
    // convention): fp16, bf16 and fp8 are refused, not computed in fp32, and sqrt_rn takes
    // fp32 only. Its tl.sigmoid calls tl.exp on its argument, so it refuses fp16 too (tl.softmax
    // does not: its tl.max makes fp16 fp32 first).
    bool fp32Only = fn == "sqrt_rn";
    if (!(t.kind == ScalarKind::F32 || (!fp32Only && t.kind == ScalarKind::F64)))
      error(loc, std::string("Expected dtype ") + (fp32Only ? "['fp32']" : "['fp32', 'fp64']") +
                     " but got " + t.tritonName() + " (Triton's ValueError for " + display +
                     ": convert the argument with .to(tl.float32))");
    tir::Value *r = builder_.unary(m->second, x);
    // tl.sqrt is the approximate square root on the GPU, tl.sqrt_rn the IEEE one.
    if (fn == "sqrt_rn")
      r->definingOp()->setAttr("ieee", true);
    return SemaValue::ofTensor(r);
  }
  if (fn == "fma") {
    auto a = bindArgs(*this, display, {"x", "y", "z"}, 3, args);
    // As Triton: the three become tensors (to_tensor), then x and y, z and x, z and y are
    // promoted pairwise as tensor operands: tl.fma(x_fp16, 2.0, 1.0) is fp32.
    std::vector<tir::Value *> v;
    for (int i = 0; i < 3; ++i)
      v.push_back(toValue(*a.values[i], loc, "tl.fma"));
    DType type = v[0]->type().elem;
    for (int i = 1; i < 3; ++i) {
      std::string why;
      std::optional<DType> common =
          computationType(type, false, v[i]->type().elem, false, false, why);
      if (!common)
        error(loc, why);
      type = *common;
    }
    if (!type.isFloat())
      error(loc, "tl.fma needs floating-point arguments");
    std::vector<int64_t> shape;
    for (tir::Value *&e : v) {
      e = castTo(e, type);
      shape = broadcastShape(Type(type, shape), e->type(), loc);
    }
    for (tir::Value *&e : v)
      e = broadcastTo(e, shape, loc);
    return SemaValue::ofTensor(builder_.createValue(OpCode::Fma, v, Type(type, shape)));
  }
  if (fn == "maximum" || fn == "minimum") {
    auto a = bindArgs(*this, display, {"x", "y", "propagate_nan"}, 2, args);
    // propagate_nan=tl.PropagateNan.ALL: on floats a NaN operand makes the result NaN (Triton's
    // arith.maximumf / minimumf) instead of the other operand (maxnumf / minnumf, the default).
    bool propagate = false;
    if (const SemaValue *p = a.get(2); p && !p->isNone())
      propagate = propagateNanAll(*p, loc, display);
    SemaValue x = *a.values[0], y = *a.values[1];
    for (const SemaValue *v : {&x, &y}) {
      if (!v->isTensor() && !v->isConstexprNumber()) {
        refuseUnknown(*v, loc, display + "'s result");
        error(loc, display + " needs numbers or tensors, not " + v->describe());
      }
      if (v->isTensor() && v->value->type().elem.isPointer())
        error(loc, display + " is not defined on pointers");
    }
    // As Triton: numbers become tensors first (to_tensor: tl.maximum(x_fp16, 0.0) is fp32 and
    // tl.maximum(x_fp64, 0.1) compares with (double)(float)0.1), bf16 tensors are widened to
    // fp32 (_promote_bfloat16_to_float32), then both are promoted and broadcast like tensor
    // operands of an arithmetic operator.
    x = promoteBFloat16ToFloat32(decayNumbers(x, loc));
    y = promoteBFloat16ToFloat32(decayNumbers(y, loc));
    auto [lhs, rhs] = convertAndBroadcast(x, y, operandType(x, y, false, loc), loc);
    tir::Value *r = builder_.binary(fn == "maximum" ? OpCode::Maximum : OpCode::Minimum, lhs, rhs);
    // Integers have no NaN: Triton ignores propagate_nan there.
    if (propagate && r->type().elem.isFloat())
      r->definingOp()->setAttr("propagate_nan", std::string("all"));
    return SemaValue::ofTensor(r);
  }
  if (fn == "make_block_ptr")
    return makeBlockPointer(args);
  if (fn == "make_tensor_descriptor")
    return makeTensorDescriptor(args);
  if (fn == "load_tensor_descriptor") {
    auto a = bindArgs(*this, display, {"desc", "offsets"}, 2, args);
    return loadTensorDescriptor(*a.values[0], *a.values[1], loc);
  }
  if (fn.rfind("descriptor_atomic_", 0) == 0) {
    auto a = bindArgs(*this, display, {"desc", "offsets", "value"}, 3, args);
    atomicTensorDescriptor(fn.substr(18), *a.values[0], *a.values[1], *a.values[2], loc);
    return SemaValue::none();
  }
  if (fn == "store_tensor_descriptor") {
    auto a = bindArgs(*this, display, {"desc", "offsets", "value"}, 3, args);
    storeTensorDescriptor(*a.values[0], *a.values[1], *a.values[2], loc);
    return SemaValue::none();
  }
  if (fn == "advance")
    return advanceBlockPointer(args);
  if (fn == "to_tensor") {
    // A Python number becomes a scalar of its to_tensor type (int1; int32, uint32 or int64;
    // fp32, or fp64 beyond fp32's range).
    auto a = bindArgs(*this, display, {"x"}, 1, args);
    return SemaValue::ofTensor(tensorArg(*a.values[0], display));
  }
  if (fn == "umulhi") {
    auto a = bindArgs(*this, display, {"x", "y"}, 2, args);
    for (const SemaValue *v : {&*a.values[0], &*a.values[1]})
      if (!v->isTensor() && !v->isConstexprNumber())
        error(loc, display + " needs integers or integer tensors, not " + v->describe());
    // Numbers become tensors first (to_tensor), then both are promoted as tensor operands;
    // Triton accepts 32- and 64-bit integers only.
    SemaValue x = decayNumbers(*a.values[0], loc), y = decayNumbers(*a.values[1], loc);
    DType t = operandType(x, y, false, loc);
    if (!t.isInteger() || (t.bits() != 32 && t.bits() != 64))
      error(loc, display + " needs int32, uint32, int64 or uint64 operands, got " + t.tritonName());
    auto [lhs, rhs] = convertAndBroadcast(x, y, t, loc);
    return SemaValue::ofTensor(builder_.binary(OpCode::MulHi, lhs, rhs));
  }
  if (fn == "where") {
    auto a = bindArgs(*this, display, {"condition", "x", "y"}, 3, args);
    const SemaValue &c = *a.values[0];
    if (auto truth = constexprTruth(c))
      return *a.values[*truth ? 1 : 2];
    tir::Value *cond = castTo(tensorArg(c, "tl.where's condition"), DType::scalar(ScalarKind::I1));
    SemaValue x = *a.values[1], y = *a.values[2];
    DType t;
    bool xLit = !x.isTensor(), yLit = !y.isTensor();
    if (!xLit && !yLit && x.value->type().elem.isPointer()) {
      if (x.value->type().elem != y.value->type().elem)
        error(loc, "tl.where's values have different pointer types");
      t = x.value->type().elem;
    } else {
      t = operandType(x, y, false, loc, /*selecting=*/true);
    }
    if (t.isFp8E4B15()) {
      x = fp8E4B15Number(x, loc);
      y = fp8E4B15Number(y, loc);
    }
    tir::Value *xv = materialize(x, loc, t), *yv = materialize(y, loc, t);
    std::vector<int64_t> shape = broadcastShape(cond->type(), xv->type(), loc);
    shape = broadcastShape(Type(t, shape), yv->type(), loc);
    return SemaValue::ofTensor(builder_.select(broadcastTo(cond, shape, loc),
                                               broadcastTo(xv, shape, loc),
                                               broadcastTo(yv, shape, loc)));
  }
  if (fn == "cast" || fn == "to") {
    auto a = bindArgs(*this, display, {"input", "dtype", "fp_downcast_rounding", "bitcast"}, 2, args);
    DType to = constDType(*this, *a.values[1], loc, "dtype");
    bool bitcast = a.get(3) && constexprTruth(*a.get(3)).value_or(false);
    const SemaValue &in = *a.values[0];
    // fp_downcast_rounding, as Triton 3.6's semantic.cast: ignored when the dtype does not
    // change, 'rtne' (the default) or 'rtz', and only on a float conversion to fewer bits.
    std::string rounding;
    tir::Value *source = nullptr; // the input as a tensor, where a rounding is named
    if (const SemaValue *r = a.get(2); r && !r->isNone() && !bitcast) {
      source = tensorArg(in, display); // a Python number: a scalar of its literal type
      DType from = source->type().elem;
      if (from != to) {
        if (r->kind != Kind::String || (r->name != "rtne" && r->name != "rtz"))
          error(loc,
                "Invalid rounding mode: " + (r->kind == Kind::String ? r->name : r->describe()) +
                    ". Supported rounding modes are 'rtne' and 'rtz'.");
        // fp8e4b15 is a float to Triton (an i8 only in its MLIR).
        auto isFloating = [](DType t) { return t.isFloat() || t.isFp8E4B15(); };
        if (!isFloating(from) || !isFloating(to) || to.bits() >= from.bits())
          error(loc, "fp_downcast_rounding should be set only for truncating fp conversions. "
                     "Source scalar type is " +
                         from.tritonName() + " and destination type is " + to.tritonName());
        rounding = r->name;
      }
    }
    if (!bitcast && (to.isFp8E4B15() || (in.isTensor() && in.value->type().elem.isFp8E4B15()))) {
      // The backend's convert_custom_types, which ignores the rounding (fp32 goes to fp16
      // toward zero first, whatever is named); from fp8e4b15 the result is fp16 for every
      // destination but fp32 (Fp8E4B15.cpp).
      tir::Value *v = source ? source : toValue(in, loc, "the value to convert");
      if (v->type().elem == to)
        return SemaValue::ofTensor(v);
      if (to.isFp8E4B15())
        return SemaValue::ofTensor(convertToFp8E4B15(v, loc));
      return SemaValue::ofTensor(convertFromFp8E4B15(v, to));
    }
    if (rounding == "rtz") {
      DType from = source->type().elem;
      // Triton's NVIDIA backend (FpToFpOpConversion) has rtz for fp32 -> fp16 (cvt.rz.f16.f32),
      // fp32 -> bf16 (cvt.rz.bf16.f32) and, after 3.6 (which stops on it), to fp8e5m2 from fp32
      // or fp16 (through fp16 rounded toward zero, then its high byte); it stops on the others.
      bool toE5 = to.kind == ScalarKind::F8E5M2 &&
                  (from.kind == ScalarKind::F32 || from.kind == ScalarKind::F16);
      if (to.isFp8() && !toE5) {
        error(loc, "Triton has no rtz conversion from " + from.tritonName() + " to " +
                       to.tritonName() +
                       " (its NVIDIA backend stops: 'Unsupported rounding mode for conversion')");
      }
      if (from.kind != ScalarKind::F32 && !toE5)
        error(loc, "Triton has no rtz conversion from " + from.tritonName() + " to " +
                       to.tritonName() +
                       " (its NVIDIA backend stops: 'Unsupported rounding mode for conversion'); "
                       "only fp32 converts to fp16 or bf16 with rtz");
    }
    if (rounding == "rtz") {
      tir::Value *c = builder_.createValue(OpCode::Cast, {source}, source->type().withElem(to));
      c->definingOp()->setAttr("rounding", std::string("rtz"));
      return SemaValue::ofTensor(c);
    }
    // A Python number is first a tensor of its to_tensor type: tl.cast(0.1, tl.float64) is
    // (double)(float)0.1 and tl.cast(1.0, tl.int32, bitcast=True) is 0x3F800000, as in Triton.
    tir::Value *v = toValue(in, loc, "the value to convert");
    if (v->type().elem.isPointer() || to.isPointer()) {
      // Triton 3.6's semantic.cast between pointers and numbers, which bitcast=True takes too: a
      // pointer becomes its address (int64) or whether it is null (int1), an integer of any
      // width a pointer, and a pointer a pointer to another type.
      DType from = v->type().elem;
      if (from == to)
        return SemaValue::ofTensor(v);
      if (from.isPointer() && to.isBool())
        return SemaValue::ofTensor(castTo(v, to));
      if ((from.isPointer() && (to.isPointer() || to.kind == ScalarKind::I64)) ||
          (from.isInteger() && to.isPointer()))
        return SemaValue::ofTensor(builder_.cast(v, to));
      error(loc, "cannot cast " + from.tritonName() + " to " + to.tritonName() +
                     " (a pointer converts to int64 or int1, and from an integer or a pointer)");
    }
    if (bitcast) {
      if (v->type().elem.bits() != to.bits())
        error(loc, "bitcast between types of different widths: " + v->type().elem.tritonName() +
                       " and " + to.tritonName());
      if (v->type().elem == to)
        return SemaValue::ofTensor(v);
      return SemaValue::ofTensor(builder_.createValue(OpCode::Bitcast, {v}, v->type().withElem(to)));
    }
    return SemaValue::ofTensor(castTo(v, to));
  }
  if (fn == "add" || fn == "sub" || fn == "mul") {
    // tl.core.sub(a, b, sanitize_overflow=False): the operator; sanitize_overflow only adds
    // overflow checks in Triton's debug mode.
    auto a = bindArgs(*this, display, {"x", "y", "sanitize_overflow"}, 2, args);
    ast::BinaryOperator op = fn == "add"   ? ast::BinaryOperator::Add
                             : fn == "sub" ? ast::BinaryOperator::Sub
                                           : ast::BinaryOperator::Mul;
    return binaryOp(op, *a.values[0], *a.values[1], loc);
  }
  if (fn == "dtype") {
    // tl.dtype("uint16"): a dtype by its Triton name (triton_kernels' topk makes the unsigned
    // type of a width: tl.dtype(f"uint{x_nbits}")).
    auto a = bindArgs(*this, display, {"name"}, 1, args);
    const SemaValue &name = *a.values[0];
    if (name.kind != Kind::String)
      error(loc, "tl.dtype takes a dtype's name such as 'uint16', not " + name.describe());
    for (ScalarKind k :
         {ScalarKind::I1, ScalarKind::I8, ScalarKind::I16, ScalarKind::I32, ScalarKind::I64,
          ScalarKind::U8, ScalarKind::U16, ScalarKind::U32, ScalarKind::U64, ScalarKind::F16,
          ScalarKind::BF16, ScalarKind::F32, ScalarKind::F64, ScalarKind::F8E4M3,
          ScalarKind::F8E5M2, ScalarKind::F8E4B15})
      if (DType::scalar(k).tritonName() == name.name)
        return SemaValue::ofDType(DType::scalar(k));
    if (name.name == "fp8e4b8" || name.name == "fp8e5b16")
      error(loc, "type " + name.name +
                     " not supported in this architecture. The supported fp8 dtypes are "
                     "('fp8e4b15', 'fp8e4nv', 'fp8e5')");
    error(loc, "tl.dtype: '" + name.name +
                   "' is no dtype name (Triton's are int1, int8, int16, int32, int64, uint8, "
                   "uint16, uint32, uint64, fp8e4nv, fp8e5, fp8e4b15, fp16, bf16, fp32 and fp64)");
  }
  if (fn == "expand_dims") {
    auto a = bindArgs(*this, display, {"input", "axis"}, 2, args);
    tir::Value *v = tensorArg(*a.values[0], display);
    std::vector<int64_t> axes;
    if (a.values[1]->kind == Kind::Tuple)
      for (const SemaValue &e : a.values[1]->elems)
        axes.push_back(constantInt(e, loc, "axis"));
    else
      axes.push_back(constantInt(*a.values[1], loc, "axis"));
    int64_t newRank = v->type().rank() + axes.size();
    std::string normalized;
    for (int64_t &ax : axes) {
      if (ax < -newRank || ax >= newRank)
        error(loc, "tl.expand_dims: invalid axis " + std::to_string(ax) + ". Expected " +
                       std::to_string(-newRank) + " <= axis < " + std::to_string(newRank));
      if (ax < 0)
        ax += newRank;
      normalized += (normalized.empty() ? "" : ", ") + std::to_string(ax);
    }
    // Triton's ValueError: two axes naming one position of the result.
    if (std::set<int64_t>(axes.begin(), axes.end()).size() != axes.size())
      error(loc, "tl.expand_dims received duplicate axes, normalized axes = [" + normalized + "]");
    std::sort(axes.begin(), axes.end());
    if (v->type().isScalar())
      v = builder_.splat(v, {1});
    else
      v = builder_.expandDims(v, static_cast<unsigned>(axes[0]));
    for (size_t i = 1; i < axes.size(); ++i)
      v = builder_.expandDims(v, static_cast<unsigned>(axes[i]));
    return SemaValue::ofTensor(v);
  }
  if (fn == "broadcast") {
    // tl.broadcast(a, b): both, broadcast to their common shape (Triton's broadcast_impl_value).
    auto a = bindArgs(*this, display, {"input", "other"}, 2, args);
    tir::Value *x = tensorArg(*a.values[0], display);
    tir::Value *y = tensorArg(*a.values[1], display);
    std::vector<int64_t> shape = broadcastShape(x->type(), y->type(), loc);
    return SemaValue::ofTuple({SemaValue::ofTensor(broadcastTo(x, shape, loc)),
                               SemaValue::ofTensor(broadcastTo(y, shape, loc))});
  }
  if (fn == "broadcast_to") {
    std::vector<SemaValue> shapeArgs(args.positional.begin() + 1, args.positional.end());
    if (args.positional.empty())
      error(loc, "tl.broadcast_to needs a tensor and a shape");
    tir::Value *v = tensorArg(args.positional[0], display);
    SemaValue shapeValue = shapeArgs.size() == 1 ? shapeArgs[0] : SemaValue::ofTuple(shapeArgs);
    for (const auto &[k, val] : args.keywords)
      if (k == "shape")
        shapeValue = val;
    std::vector<int64_t> target = constShape(*this, shapeValue, loc);
    // As Triton: a block keeps its rank (only a scalar may become a block of any rank).
    if (!v->type().isScalar() && v->type().rank() != target.size())
      error(loc, "tl.broadcast_to cannot change the rank: " + shapeText(v->type()) + " to " +
                     shapeText(Type(v->type().elem, target)) +
                     " (as in Triton; use [None, :] or "
                     "tl.expand_dims first)");
    return SemaValue::ofTensor(broadcastTo(v, target, loc));
  }

  // --- Shape manipulation and matrix multiplication ------------------------------------------
  if (fn == "trans" || fn == "permute") {
    // trans(x) swaps the two dimensions of a 2-D tensor; trans(x, *dims) and permute(x, *dims)
    // reorder the dimensions: result dimension i is input dimension dims[i].
    if (args.positional.empty())
      error(loc, display + " needs a tensor");
    std::vector<SemaValue> dimArgs(args.positional.begin() + 1, args.positional.end());
    for (const auto &[k, v] : args.keywords) {
      if (k != "dims")
        error(loc, display + "() got an unexpected keyword argument '" + k + "'");
      if (!dimArgs.empty())
        error(loc, display + "() got multiple values for argument 'dims'");
      dimArgs.push_back(v);
    }
    if (dimArgs.size() == 1 && dimArgs[0].kind == Kind::Tuple)
      dimArgs = dimArgs[0].elems;
    tir::Value *v = tensorArg(args.positional[0], display);
    unsigned rank = v->type().rank();
    std::vector<int64_t> order;
    for (const SemaValue &d : dimArgs)
      order.push_back(constantInt(d, loc, display + "'s dims"));
    if (order.empty()) {
      if (fn == "permute")
        error(loc, "tl.permute needs the new order of the dimensions");
      // As Triton 3.6: the last two axes swap (a batched 2-D transpose).
      if (rank < 2)
        error(loc, "tl.trans without dims needs a tensor of 2 or more dimensions, got " +
                       args.positional[0].describe());
      for (unsigned d = 0; d + 2 < rank; ++d)
        order.push_back(d);
      order.push_back(rank - 1);
      order.push_back(rank - 2);
    }
    if (order.size() != rank)
      error(loc, display + "'s dims (" + std::to_string(order.size()) +
                     " of them) must name every dimension of " + args.positional[0].describe());
    std::vector<bool> seen(rank, false);
    std::vector<int64_t> shape;
    for (int64_t &d : order) {
      if (d < 0)
        d += rank;
      if (d < 0 || d >= static_cast<int64_t>(rank) || seen[d])
        error(loc, display + "'s dims must be a permutation of 0.." + std::to_string(rank - 1));
      seen[d] = true;
      shape.push_back(v->type().shape[d]);
    }
    bool identity = true;
    for (size_t i = 0; i < order.size(); ++i)
      identity = identity && order[i] == static_cast<int64_t>(i);
    if (identity)
      return SemaValue::ofTensor(v);
    tir::Operation *op = builder_.create(OpCode::Trans, {v}, {Type(v->type().elem, shape)});
    op->setAttr("order", order);
    return SemaValue::ofTensor(op->result());
  }
  if (fn == "reshape" || fn == "view") {
    // reshape(x, shape, can_reorder=False) and reshape(x, d0, d1, ...); the elements keep their
    // row-major order. view() may reorder elements in Triton; keeping the order is one valid
    // choice, so it is the same operation here.
    if (args.positional.empty())
      error(loc, display + " needs a tensor");
    std::vector<SemaValue> shapeArgs(args.positional.begin() + 1, args.positional.end());
    for (const auto &[k, v] : args.keywords) {
      if (k == "can_reorder")
        continue;
      if (k != "shape")
        error(loc, display + "() got an unexpected keyword argument '" + k + "'");
      shapeArgs.push_back(v);
    }
    if (shapeArgs.empty())
      error(loc, display + " needs the new shape");
    SemaValue shapeValue = shapeArgs.size() == 1 ? shapeArgs[0] : SemaValue::ofTuple(shapeArgs);
    tir::Value *v = tensorArg(args.positional[0], display);
    std::vector<int64_t> shape = constShape(*this, shapeValue, loc);
    // Triton 3.6's tl.reshape(x, []) unsplats a single-element block to a scalar (Helion
    // generates it); view() still builds a 0-d block type, which Triton refuses.
    if (shape.empty() && fn == "reshape")
      return SemaValue::ofTensor(unsplat(v, loc));
    if (shape.empty())
      error(loc, display + " to the shape () is not allowed: Triton forbids 0-d blocks (0d "
                           "block_type is forbidden)");
    int64_t count = 1;
    for (int64_t d : shape)
      count *= d;
    if (count != v->type().numElements())
      error(loc, display + " cannot change the number of elements: " + v->type().str() + " has " +
                     std::to_string(v->type().numElements()) + ", the new shape " +
                     std::to_string(count));
    if (v->type().isScalar())
      v = builder_.splat(v, std::vector<int64_t>(1, 1));
    if (v->type().shape == shape)
      return SemaValue::ofTensor(v);
    return SemaValue::ofTensor(
        builder_.createValue(OpCode::Reshape, {v}, Type(v->type().elem, shape)));
  }
  if (fn == "dot")
    return dot(args);
  if (fn == "dot_scaled")
    return dotScaled(args);

  // --- Scans ----------------------------------------------------------------------------------
  if (fn == "cumsum" || fn == "cumprod") {
    BoundArgs a = fn == "cumsum"
                      ? bindArgs(*this, display, {"input", "axis", "reverse", "dtype"}, 1, args)
                      : bindArgs(*this, display, {"input", "axis", "reverse"}, 1, args);
    tir::Value *v = tensorArg(*a.values[0], display);
    DType t = v->type().elem;
    if (t.isPointer())
      error(loc, display + " of pointers is not supported");
    if (v->type().isScalar())
      error(loc, display + " needs a tensor, not a scalar");
    // As Triton: bf16 is scanned in fp32; cumsum also widens narrow integers to 32 bits.
    if (fn == "cumsum" && a.get(3))
      t = constDType(*this, *a.get(3), loc, "dtype");
    else if (t.kind == ScalarKind::BF16)
      t = DType::scalar(ScalarKind::F32);
    else if (fn == "cumsum" && (t.isBool() || (t.isInteger() && t.bits() < 32)))
      t = DType::scalar(t.isSigned() ? ScalarKind::I32 : ScalarKind::U32);
    if (t.isFp8E4B15())
      error(loc, display + " of fp8e4b15 is not supported (Triton's scan combines it with float "
                           "operations on the i8 it is held in): convert it with .to(tl.float32) "
                           "first");
    v = castTo(v, t);
    int64_t rank = v->type().rank();
    int64_t axis = a.get(1) ? constantInt(*a.get(1), loc, "axis") : 0;
    if (axis < 0)
      axis += rank;
    if (axis < 0 || axis >= rank)
      error(loc, display + "'s axis " + std::to_string(axis) + " is out of range for rank " +
                     std::to_string(rank));
    bool reverse = a.get(2) && constexprTruth(*a.get(2)).value_or(false);
    if (a.get(2) && !constexprTruth(*a.get(2)))
      error(loc, display + "'s reverse must be a constant");
    tir::Operation *op = builder_.create(OpCode::Scan, {v}, {v->type()});
    op->setAttr("kind", std::string(fn == "cumsum" ? "sum" : "prod"));
    op->setAttr("axis", axis);
    op->setAttr("reverse", reverse);
    return SemaValue::ofTensor(op->result());
  }

  if (fn == "associative_scan" || fn == "reduce" || fn == "xor_sum")
    return callCombining(fn, args);
  if (fn == "join" || fn == "split" || fn == "interleave" || fn == "flip" || fn == "clamp" ||
      fn == "div_rn" || fn == "fdiv" || fn == "sort" || fn == "topk" || fn == "bitonic_merge")
    return callShapeOp(fn, args);
  if (fn == "histogram" || fn == "gather" || fn == "inline_asm_elementwise" ||
      fn == "map_elementwise")
    return callSpecialOp(fn, args);

  // --- Reductions -----------------------------------------------------------------------------
  if (fn == "sum" || fn == "max" || fn == "min" || fn == "argmax" || fn == "argmin") {
    bool arg = fn == "argmax" || fn == "argmin";
    BoundArgs a = fn == "sum"
                      ? bindArgs(*this, display, {"input", "axis", "keep_dims", "dtype"}, 1, args)
                  : arg ? bindArgs(*this, display, {"input", "axis", "tie_break_left", "keep_dims"},
                                   2, args)
                        : bindArgs(*this, display,
                                   {"input", "axis", "return_indices",
                                    "return_indices_tie_break_left", "keep_dims"},
                                   1, args);
    tir::Value *v = tensorArg(*a.values[0], display);
    if (v->type().elem.isPointer())
      error(loc, display + " of pointers is not supported");
    size_t keepIndex = fn == "sum" ? 2 : arg ? 3 : 4;
    bool keepDims = a.get(keepIndex) && constexprTruth(*a.get(keepIndex)).value_or(false);
    bool returnIndices = !arg && fn != "sum" && a.get(2) && constexprTruth(*a.get(2)).value_or(false);
    // tie_break_left=False (return_indices_tie_break_left=False) lets Triton return any index
    // of a tied extreme; the leftmost one, which both backends give, is such an index.
    size_t tieIndex = arg ? 2 : 3;
    if (fn != "sum" && a.get(tieIndex) && !constexprTruth(*a.get(tieIndex)))
      error(loc, display + "'s " + (arg ? "tie_break_left" : "return_indices_tie_break_left") +
                     " must be a constant");
    // The input types of Triton 3.6's standard.py. sum widens integers narrower than 32 bits to
    // int32, or uint32 when unsigned (bool counts as unsigned there), and keeps floats (bf16
    // sums add in bf16). max and min take bf16 through fp32 (the hardware has no bf16
    // comparison); without indices they also widen what is narrower than 32 bits: floats to
    // fp32, integers and bools to int32 (signed, even for unsigned inputs).
    DType t = v->type().elem;
    if (fn == "sum") {
      if (a.get(3)) {
        t = constDType(*this, *a.get(3), loc, "dtype");
      } else if (t.isBool() || (t.isInteger() && t.bits() < 32)) {
        t = DType::scalar(t.isSigned() ? ScalarKind::I32 : ScalarKind::U32);
      }
    } else {
      if (t.kind == ScalarKind::BF16)
        t = DType::scalar(ScalarKind::F32);
      if (!arg && !returnIndices && t.bits() < 32 && !t.isPointer())
        t = DType::scalar(t.isFloat() || t.isFp8E4B15() ? ScalarKind::F32 : ScalarKind::I32);
    }
    if (t.isFp8E4B15())
      error(loc, display + " of fp8e4b15 is not supported (Triton's reduction combines it with "
                           "float operations on the i8 it is held in): convert it with "
                           ".to(tl.float32) first");
    if (!(t == v->type().elem))
      v = castTo(v, t);
    if (v->type().isScalar())
      v = builder_.splat(v, {1});
    std::vector<int64_t> axes;
    unsigned rank = v->type().rank();
    if (!a.get(1)) {
      if (arg)
        error(loc, display + " needs an axis");
      for (unsigned d = rank; d-- > 0;)
        axes.push_back(d); // reduce everything, innermost first
    } else {
      int64_t axis = constantInt(*a.get(1), loc, "axis");
      if (axis < 0)
        axis += rank;
      if (axis < 0 || axis >= rank)
        error(loc, display + "'s axis " + std::to_string(axis) + " is out of range for rank " +
                       std::to_string(rank));
      axes.push_back(axis);
    }
    auto reduceOnce = [&](tir::Value *input, int64_t axis, const std::string &kind,
                          bool index) -> tir::Value * {
      std::vector<int64_t> shape = input->type().shape;
      shape.erase(shape.begin() + axis);
      Type resultType(index ? DType::scalar(ScalarKind::I32) : input->type().elem, shape);
      tir::Operation *op =
          builder_.create(index ? OpCode::ArgReduce : OpCode::Reduce, {input}, {resultType});
      op->setAttr("kind", kind);
      op->setAttr("axis", axis);
      return op->result();
    };
    if (arg || returnIndices) {
      if (axes.size() != 1)
        error(loc, "returning indices needs a single axis");
      std::string kind = (fn == "argmax" || fn == "max") ? "argmax" : "argmin";
      tir::Value *index = reduceOnce(v, axes[0], kind, true);
      if (keepDims)
        index = builder_.expandDims(index, axes[0]);
      if (arg)
        return SemaValue::ofTensor(index);
      tir::Value *value = reduceOnce(v, axes[0], fn, false);
      if (keepDims)
        value = builder_.expandDims(value, axes[0]);
      return SemaValue::ofTuple({SemaValue::ofTensor(value), SemaValue::ofTensor(index)});
    }
    tir::Value *r = v;
    if (!a.get(1) && (rank > 1 || v->type().numElements() > 0)) {
      // As Triton's semantic.reduction: no axis is the tensor flattened (its elements in any
      // order: can_reorder, which OptimizeReshapeLayout turns into each thread's registers as
      // they are) and reduced along its one axis. A 1-D tensor is "flattened" too: Triton keeps
      // that same-shape reshape (it folds only reshapes that may not reorder), so where the
      // operand's layout holds other elements per thread than the 1-D default (a slice of a 2-D
      // layout whose other dimension's lanes hold copies), the reduction runs in the default
      // layout after a conversion, as Triton's. (An empty 1-D tensor is left to the reduction,
      // whose diagnostic names what the kernel wrote.)
      tir::Operation *flat =
          builder_.create(OpCode::Reshape, {v}, {Type(v->type().elem, {v->type().numElements()})});
      flat->setAttr("can_reorder", true);
      r = reduceOnce(flat->result(), 0, fn, false);
    } else {
      r = reduceOnce(r, axes[0], fn, false);
    }
    if (keepDims) {
      std::vector<int64_t> sorted(axes.begin(), axes.end());
      std::sort(sorted.begin(), sorted.end());
      if (r->type().isScalar()) {
        r = builder_.splat(r, std::vector<int64_t>(rank, 1));
      } else {
        for (int64_t axis : sorted)
          r = builder_.expandDims(r, static_cast<unsigned>(axis));
      }
    }
    return SemaValue::ofTensor(r);
  }

  // --- Debugging ------------------------------------------------------------------------------
  if (fn == "device_print") {
    if (args.positional.empty())
      error(loc, "tl.device_print needs a prefix string");
    std::string prefix = valueText(args.positional[0]);
    std::vector<tir::Value *> values;
    for (size_t i = 1; i < args.positional.size(); ++i) {
      const SemaValue &v = args.positional[i];
      if (v.kind == Kind::String) {
        prefix += " " + v.name;
        continue;
      }
      values.push_back(toValue(v, loc, "tl.device_print"));
    }
    for (const auto &[k, v] : args.keywords)
      if (k != "hex")
        error(loc, "tl.device_print got an unexpected keyword argument '" + k + "'");
    tir::Operation *op = builder_.create(OpCode::Print, values, {});
    op->setAttr("prefix", prefix);
    return SemaValue::none();
  }
  if (fn == "device_assert") {
    auto a = bindArgs(*this, display, {"cond", "msg", "mask"}, 1, args);
    std::string message = a.get(1) ? valueText(*a.get(1)) : "";
    // Outside debug mode Triton drops the assertion (semantic.device_assert returns), after
    // making a tensor of the condition.
    if (!debug_) {
      if (!constexprTruth(*a.values[0]))
        tensorArg(*a.values[0], display);
      return SemaValue::none();
    }
    if (auto truth = constexprTruth(*a.values[0])) {
      if (!*truth)
        error(loc, "device assertion is always false" + (message.empty() ? "" : ": " + message));
      return SemaValue::none();
    }
    tir::Value *cond = castTo(tensorArg(*a.values[0], display), DType::scalar(ScalarKind::I1));
    if (a.get(2)) {
      // Masked-off lanes never fail: the assertion checks cond | ~mask, as Triton's does.
      tir::Value *mask =
          castTo(toValue(*a.get(2), loc, "the mask"), DType::scalar(ScalarKind::I1));
      std::vector<int64_t> shape = broadcastShape(cond->type(), mask->type(), loc);
      cond = broadcastTo(cond, shape, loc);
      mask = broadcastTo(mask, shape, loc);
      tir::Value *ones = builder_.intConstant(1, Type(mask->type().elem));
      if (!shape.empty())
        ones = builder_.splat(ones, shape);
      tir::Value *unmasked = builder_.createValue(OpCode::Xor, {mask, ones}, mask->type());
      cond = builder_.createValue(OpCode::Or, {cond, unmasked}, cond->type());
    }
    tir::Operation *op = builder_.create(OpCode::Assert, {cond}, {});
    op->setAttr("message", message);
    return SemaValue::none();
  }
  if (fn == "debug_barrier") {
    bindArgs(*this, display, {}, 0, args);
    builder_.create(OpCode::Barrier, {}, {});
    return SemaValue::none();
  }
  if (fn == "assume") {
    // A promise to the optimiser; tilec does not use it, but the condition must still be a
    // value, as Triton's to_tensor requires.
    auto a = bindArgs(*this, display, {"cond"}, 1, args);
    if (!constexprTruth(*a.values[0]))
      toValue(*a.values[0], loc, "the condition of tl.assume");
    return SemaValue::none();
  }
  if (fn == "range" || fn == "static_range")
    error(loc, display + "() can only be used as the iterable of a for loop");
  error(loc, display + " is not supported yet");
}

//===----------------------------------------------------------------------===//
// tl.dot
//===----------------------------------------------------------------------===//

SemaValue Specializer::dot(CallArgs &args) {
  SourceLoc loc = args.loc;
  auto a = bindArgs(*this, "tl.dot",
                    {"input", "other", "acc", "input_precision", "allow_tf32",
                     "max_num_imprecise_acc", "out_dtype"},
                    2, args);
  tir::Value *lhs = toValue(*a.values[0], loc, "tl.dot's first operand");
  tir::Value *rhs = toValue(*a.values[1], loc, "tl.dot's second operand");
  // As Triton 3.6's tl.dot: operands of 4 or more dimensions are one batch of 2-D products, their
  // leading dimensions folded into one, and the result takes their shape back.
  std::vector<int64_t> unfoldedShape;
  auto foldBatch = [&](tir::Value *v) {
    std::vector<int64_t> shape = v->type().shape;
    int64_t batch = 1;
    for (size_t d = 0; d + 2 < shape.size(); ++d)
      batch *= shape[d];
    return builder_.createValue(
        OpCode::Reshape, {v}, Type(v->type().elem, {batch, shape[shape.size() - 2], shape.back()}));
  };
  if (lhs->type().rank() >= 4 && lhs->type().rank() == rhs->type().rank()) {
    const std::vector<int64_t> &ls = lhs->type().shape, &rs = rhs->type().shape;
    if (!std::equal(ls.begin(), ls.end() - 2, rs.begin()))
      error(loc, "tl.dot's operands must have equal batch shapes: " + shapeText(lhs->type()) +
                     " x " + shapeText(rhs->type()));
    unfoldedShape.assign(ls.begin(), ls.end() - 1);
    unfoldedShape.push_back(rs.back());
    lhs = foldBatch(lhs);
    rhs = foldBatch(rhs);
  }
  if (lhs->type().elem.isFp8E4B15() || rhs->type().elem.isFp8E4B15()) {
    // Triton 3.6's semantic.dot multiplies fp8e4b15 in fp16: both operands are converted (its
    // MLIR has no fp8e4b15 type), with a warning from sm_90 on (the NVIDIA backend's
    // deprecated_fp8_dot_operand_dtypes).
    if (gpu::smVersion(targetArch_) >= 90)
      sources_.warning(loc, "the use of fp8e4b15 is deprecated on Hopper and later architectures "
                            "and can cause significant slow down (Triton's warning): its operands "
                            "are converted to fp16");
    const DType f16 = DType::scalar(ScalarKind::F16);
    lhs = castTo(lhs, f16);
    rhs = castTo(rhs, f16);
  }
  const Type &lt = lhs->type(), &rt = rhs->type();
  // Two 2-D operands, or two 3-D ones: a batch of products, [B, M, K] x [B, K, N] -> [B, M, N].
  if (lt.rank() != rt.rank() || (lt.rank() != 2 && lt.rank() != 3))
    error(loc, "tl.dot needs two 2-D tensors (or two 3-D ones, a batch of products), got " +
                   a.values[0]->describe() + " and " + a.values[1]->describe());
  const unsigned rank = lt.rank(), mDim = rank - 2, kDim = rank - 1;
  if (rank == 3 && lt.shape[0] != rt.shape[0])
    error(loc, "tl.dot's batch dimensions differ: " + shapeText(lt) + " x " + shapeText(rt));
  if (lt.shape[kDim] != rt.shape[mDim])
    error(loc, "tl.dot's shapes do not chain: " + shapeText(lt) + " x " + shapeText(rt) +
                   " (the first operand's columns must equal the second's rows)");
  if (lt.elem != rt.elem)
    error(loc, "tl.dot's operands must have the same dtype, got " + lt.elem.tritonName() +
                   " and " + rt.elem.tritonName() + " (convert one with .to())");
  DType in = lt.elem;
  static const std::set<ScalarKind> supportedInputs = {
      ScalarKind::I8,  ScalarKind::F16, ScalarKind::BF16,   ScalarKind::F32,
      ScalarKind::F64, ScalarKind::F8E4M3, ScalarKind::F8E5M2};
  if (in.isPointer() || !supportedInputs.count(in.kind))
    error(loc, "tl.dot of " + in.tritonName() +
                   " is not supported (Triton multiplies int8, fp8, fp16, bf16, fp32 and fp64)");
  int64_t m = lt.shape[mDim], k = lt.shape[kDim], n = rt.shape[kDim];
  // Triton 3.6 on NVIDIA GPUs (its backend's min_dot_size) takes any M and N (it pads small
  // ones for the tensor cores) and K of at least 32 for 8-bit inputs, 16 for the others.
  const int64_t tritonMinK = in.bits() == 8 ? 32 : 16;
  if (k < tritonMinK)
    error(loc, "tl.dot needs K to be at least " + std::to_string(tritonMinK) + " for " +
                   in.tritonName() + ", as in Triton (input shapes should have M >= 1, N >= 1 " +
                   "and K >= " + std::to_string(tritonMinK) + "); got " + shapeText(lt) + " x " +
                   shapeText(rt));

  // The accumulator type, as Triton 3.6's semantic.dot: int8 products accumulate in int32, fp64
  // in fp64, fp32 and bf16 in fp32, whatever out_dtype says; fp16 and fp8 in out_dtype (fp32 by
  // default, or fp16). out_dtype still names the type an `acc` argument must have.
  DType outType = DType::scalar(ScalarKind::F32);
  if (in.kind == ScalarKind::I8)
    outType = DType::scalar(ScalarKind::I32);
  else if (in.kind == ScalarKind::F64)
    outType = DType::scalar(ScalarKind::F64);
  std::optional<DType> namedOut;
  if (const SemaValue *o = a.get(6)) {
    DType asked = constDType(*this, *o, loc, "tl.dot's out_dtype");
    namedOut = asked;
    if (asked.kind == ScalarKind::BF16 && in.kind != ScalarKind::I8)
      error(loc, "out_dtype=bfloat16 is unsupported. Please use out_dtype=float32/float16 and "
                 "cast with `.to(tl.bfloat16)` (as in Triton)");
    if (in.kind == ScalarKind::F16 || in.isFp8()) {
      if (asked.kind != ScalarKind::F16 && asked.kind != ScalarKind::F32)
        error(loc, "tl.dot of " + in.tritonName() + " cannot accumulate in " + asked.tritonName() +
                       " (fp32 or fp16)");
      outType = asked;
    }
  }

  // Precision of fp32 inputs: Triton's default is tf32 (tensor cores round the inputs to a
  // 10-bit mantissa) unless TRITON_F32_DEFAULT (--dot-precision) says otherwise;
  // allow_tf32=False or input_precision="ieee" asks for full fp32.
  if (a.get(3) && a.get(4))
    error(loc, "tl.dot takes input_precision or allow_tf32, not both");
  std::string precision = defaultDotPrecision_;
  if (const SemaValue *allow = a.get(4)) {
    auto truth = constexprTruth(*allow);
    if (!truth)
      error(loc, "tl.dot's allow_tf32 must be a constant, not " + allow->describe());
    precision = *truth ? "tf32" : "ieee";
  } else if (const SemaValue *p = a.get(3)) {
    if (p->kind != Kind::String)
      error(loc, "tl.dot's input_precision must be \"tf32\", \"tf32x3\", \"ieee\", \"bf16x3\" "
                 "or \"bf16x6\", not " +
                     p->describe());
    precision = p->name;
    std::transform(precision.begin(), precision.end(), precision.begin(), ::tolower);
    if (precision != "tf32" && precision != "tf32x3" && precision != "ieee" &&
        precision != "bf16x3" && precision != "bf16x6")
      error(loc, "tl.dot's input_precision must be \"tf32\", \"tf32x3\", \"ieee\", \"bf16x3\" "
                 "or \"bf16x6\", not '" +
                     p->name + "'");
  }
  if (in.kind != ScalarKind::F32)
    precision = "ieee"; // only fp32 inputs are rounded
  // As Triton 3.6's semantic.dot: checked against K for fp8 x fp8 only, and only the sm_90 wgmma
  // lowering of fp8 into fp32 reads it (how many products accumulate in the tensor cores' reduced
  // precision before an fp32 add); for every other dtype it has no effect.
  std::optional<int64_t> maxImpreciseAcc;
  if (const SemaValue *acc = a.get(5); acc && !acc->isNone()) {
    int64_t bound = constantInt(*acc, loc, "tl.dot's max_num_imprecise_acc");
    if (in.isFp8()) {
      if (bound > k)
        error(loc, "max_num_imprecise_acc (" + std::to_string(bound) + ") must be <= K (" +
                       std::to_string(k) + ")");
      maxImpreciseAcc = bound;
    }
  }
  // Unset on fp8 x fp8, Triton's backend default (max_num_imprecise_acc_default: 2^30 on sm_90,
  // 0 elsewhere). Canonicalize reads it: Triton folds `acc + dot` into the dot's accumulator
  // only where it is 0.
  if (in.isFp8() && !maxImpreciseAcc)
    maxImpreciseAcc = gpu::smVersion(targetArch_) == 90 ? int64_t(1) << 30 : 0;

  std::vector<int64_t> shape = {m, n};
  if (rank == 3)
    shape.insert(shape.begin(), lt.shape[0]);
  checkTensorSize(shape, loc);
  tir::Value *acc;
  if (const SemaValue *c = a.get(2)) {
    acc = toValue(*c, loc, "tl.dot's acc");
    if (!unfoldedShape.empty() && acc->type().shape == unfoldedShape)
      acc = foldBatch(acc);
    if (acc->type().shape != shape || acc->type().elem != outType)
      error(loc, "tl.dot's acc must be a " + shapeText(Type(outType, shape)) + " tensor of " +
                     outType.tritonName() + ", got " + c->describe());
    // Triton 3.6 also requires the accumulator to be of out_dtype, whose default is fp32 even
    // where the products are int32 or fp64: an int8 dot with an acc needs out_dtype=tl.int32.
    DType named = namedOut.value_or(DType::scalar(ScalarKind::F32));
    if (!(acc->type().elem == named))
      error(loc, "tl.dot's acc is " + acc->type().elem.tritonName() + " and out_dtype is " +
                     named.tritonName() + (namedOut ? "" : " (the default)") +
                     ": Triton requires them to be the same (pass out_dtype as the acc's type)");
  } else {
    acc = broadcastTo(materialize(SemaValue::ofInt(0), loc, outType), shape, loc);
  }
  // M or N below 16 (a matrix-vector product: [64, 128] x [128, 1]): the operands and the
  // accumulator are repeated up to 16 along it, the tensor cores compute each copy as they
  // compute any output element, and the first copy is the result.
  const int64_t mRepeat = m < 16 ? 16 / m : 1, nRepeat = n < 16 ? 16 / n : 1;
  if (mRepeat > 1) {
    lhs = repeatAlong(lhs, mDim, mRepeat);
    acc = repeatAlong(acc, mDim, mRepeat);
  }
  if (nRepeat > 1) {
    rhs = repeatAlong(rhs, kDim, nRepeat);
    acc = repeatAlong(acc, kDim, nRepeat);
  }
  tir::Value *result;
  if (precision == "bf16x3" || precision == "bf16x6") {
    result = splitBf16Dot(lhs, rhs, acc, precision == "bf16x3" ? 2 : 3);
  } else if (precision == "tf32x3") {
    result = splitTf32Dot(lhs, rhs, acc);
  } else {
    tir::Operation *op = builder_.create(OpCode::Dot, {lhs, rhs, acc}, {acc->type()});
    op->setAttr("input_precision", precision);
    if (maxImpreciseAcc)
      op->setAttr("max_num_imprecise_acc", *maxImpreciseAcc);
    result = op->result();
  }
  if (mRepeat > 1)
    result = firstRepeat(result, mDim, mRepeat);
  if (nRepeat > 1)
    result = firstRepeat(result, kDim, nRepeat);
  if (!unfoldedShape.empty())
    result =
        builder_.createValue(OpCode::Reshape, {result}, Type(result->type().elem, unfoldedShape));
  return SemaValue::ofTensor(result);
}

tir::Value *Specializer::splitBf16Dot(tir::Value *lhs, tir::Value *rhs, tir::Value *acc,
                                      unsigned parts) {
  // As Triton 3.6's F32DotTC pass (BF16xN, after arXiv:1904.06376): each fp32 operand becomes
  // `parts` bf16 values, hi = bf16(x), mid = bf16(x - hi), lo = bf16(x - hi - mid) (each
  // rounded to nearest even), and bf16 dots with fp32 accumulation add the cross products from
  // the smallest up, in Triton's order; NaNs of the small terms (inf * 0) are zeroed before the
  // big product is added, and the dot's own accumulator last.
  const DType bf16 = DType::scalar(ScalarKind::BF16), f32 = DType::scalar(ScalarKind::F32);
  auto split = [&](tir::Value *x) {
    std::vector<tir::Value *> out;
    for (unsigned i = 0; i < parts; ++i) {
      tir::Value *part = builder_.cast(x, bf16);
      if (i + 1 != parts)
        x = builder_.binary(OpCode::Sub, x, builder_.cast(part, f32));
      out.push_back(part);
    }
    return out;
  };
  const std::vector<tir::Value *> a = split(lhs), b = split(rhs);
  const unsigned hi = 0, mid = 1, lo = 2;
  tir::Value *sum = builder_.splat(builder_.floatConstant(0.0, Type(f32)), acc->type().shape);
  auto dotInto = [&](tir::Value *x, tir::Value *y) {
    tir::Operation *op = builder_.create(OpCode::Dot, {x, y, sum}, {sum->type()});
    op->setAttr("input_precision", std::string("ieee"));
    sum = op->result();
  };
  if (parts == 3) {
    dotInto(a[mid], b[mid]);
    dotInto(a[lo], b[hi]);
    dotInto(a[hi], b[lo]);
  }
  dotInto(a[mid], b[hi]);
  dotInto(a[hi], b[mid]);
  tir::Value *isNan = builder_.cmp("ne", sum, sum);
  sum = builder_.select(
      isNan, builder_.splat(builder_.floatConstant(0.0, Type(f32)), sum->type().shape), sum);
  dotInto(a[hi], b[hi]);
  return builder_.binary(OpCode::Add, sum, acc);
}

tir::Value *Specializer::splitTf32Dot(tir::Value *lhs, tir::Value *rhs, tir::Value *acc) {
  // As Triton 3.6's F32DotTC pass (TF32x3, on sm_80 and later, tilec's targets): each fp32 operand
  // becomes big = cvt.rna.tf32(x) and small = x - big, and three tf32 dots add small * big, then
  // big * small, into zeros; NaNs of those (inf * 0) are zeroed, big * big is added, and the
  // dot's own accumulator last. Each dot accumulates over the whole K before the next starts,
  // which fixes the order of the additions.
  const DType f32 = DType::scalar(ScalarKind::F32), i32 = DType::scalar(ScalarKind::I32);
  auto big = [&](tir::Value *x) {
    // cvt.rna: round to the nearest tf32 (10 mantissa bits), ties away from zero, which adding
    // half a tf32 ulp to the magnitude's bits and clearing the 13 low bits does (overflowing to
    // infinity beyond the largest tf32); NaNs stay NaN.
    const std::vector<int64_t> &shape = x->type().shape;
    auto bits = [&](int64_t v) {
      return builder_.splat(builder_.intConstant(v, Type(i32)), shape);
    };
    tir::Value *raw = builder_.createValue(OpCode::Bitcast, {x}, Type(i32, shape));
    tir::Value *rounded = builder_.binary(
        OpCode::And, builder_.binary(OpCode::Add, raw, bits(0x1000)), bits(-0x2000));
    tir::Value *asFloat = builder_.createValue(OpCode::Bitcast, {rounded}, Type(f32, shape));
    return builder_.select(builder_.cmp("ne", x, x), x, asFloat);
  };
  tir::Value *aBig = big(lhs), *bBig = big(rhs);
  tir::Value *aSmall = builder_.binary(OpCode::Sub, lhs, aBig);
  tir::Value *bSmall = builder_.binary(OpCode::Sub, rhs, bBig);
  tir::Value *zeros = builder_.splat(builder_.floatConstant(0.0, Type(f32)), acc->type().shape);
  tir::Value *sum = zeros;
  auto dotInto = [&](tir::Value *x, tir::Value *y) {
    tir::Operation *op = builder_.create(OpCode::Dot, {x, y, sum}, {sum->type()});
    op->setAttr("input_precision", std::string("tf32"));
    sum = op->result();
  };
  dotInto(aSmall, bBig);
  dotInto(aBig, bSmall);
  sum = builder_.select(builder_.cmp("ne", sum, sum), zeros, sum);
  dotInto(aBig, bBig);
  return builder_.binary(OpCode::Add, sum, acc);
}

SemaValue Specializer::dotScaled(CallArgs &args) {
  SourceLoc loc = args.loc;
  auto a = bindArgs(*this, "tl.dot_scaled",
                    {"lhs", "lhs_scale", "lhs_format", "rhs", "rhs_scale", "rhs_format", "acc",
                     "fast_math", "lhs_k_pack", "rhs_k_pack", "out_dtype"},
                    6, args);
  auto format = [&](size_t i) {
    const SemaValue &f = *a.values[i];
    if (f.kind != Kind::String)
      error(loc, "tl.dot_scaled's formats are strings (\"e4m3\", \"e5m2\", \"bf16\", \"fp16\", "
                 "\"e2m1\"), not " +
                     f.describe());
    if (f.name != "e2m1" && f.name != "e4m3" && f.name != "e5m2" && f.name != "bf16" &&
        f.name != "fp16")
      error(loc,
            "tl.dot_scaled's format must be e2m1, e4m3, e5m2, bf16 or fp16, not '" + f.name + "'");
    return f.name;
  };
  const std::string lhsFormat = format(2), rhsFormat = format(5);
  if (const SemaValue *o = a.get(10);
      o && !(constDType(*this, *o, loc, "out_dtype") == DType::scalar(ScalarKind::F32)))
    error(loc, "tl.dot_scaled with an out_dtype other than fp32 is not supported yet");
  bool fastMath = false;
  if (const SemaValue *f = a.get(7)) {
    auto truth = constexprTruth(*f);
    if (!truth)
      error(loc, "tl.dot_scaled's fast_math must be a constant, not " + f->describe());
    fastMath = *truth;
  }
  // As Triton lowers a scaled dot where the tensor cores have none (before sm_100,
  // DecomposeScaledBlocked): both operands become fp16 (if either format is fp16) or bf16, each
  // times its scale 2^(s - 127) broadcast along K (32 elements a scale), NaN where the scale is
  // 0xFF unless fast_math; then an ordinary dot.
  const DType compute = DType::scalar(
      lhsFormat == "fp16" || rhsFormat == "fp16" ? ScalarKind::F16 : ScalarKind::BF16);
  auto scaled = [&](size_t valueIndex, size_t scaleIndex, const std::string &fmt,
                    bool isLhs) -> tir::Value * {
    tir::Value *v = toValue(*a.values[valueIndex], loc, "tl.dot_scaled's operand");
    if (v->type().rank() != 2)
      error(loc, "tl.dot_scaled of tensors other than 2-D is not supported yet");
    DType elem = v->type().elem;
    if (fmt == "e2m1") {
      const SemaValue *pack = a.get(isLhs ? 8 : 9);
      if (pack && constexprTruth(*pack) != std::optional<bool>(true))
        error(loc, "tl.dot_scaled of e2m1 packed along M or N (k_pack=False) is not supported yet");
      if (elem.kind != ScalarKind::U8 && elem.kind != ScalarKind::I8)
        error(loc, "tl.dot_scaled's e2m1 " + std::string(isLhs ? "lhs" : "rhs") +
                       " must be uint8 (two fp4 values a byte), not " + elem.tritonName());
      v = unpackFp4(v, isLhs ? 1 : 0, compute);
      elem = compute;
    }
    DType want = fmt == "e2m1" ? compute
                               : DType::scalar(fmt == "e4m3"   ? ScalarKind::F8E4M3
                                               : fmt == "e5m2" ? ScalarKind::F8E5M2
                                               : fmt == "bf16" ? ScalarKind::BF16
                                                               : ScalarKind::F16);
    if (want.isFp8() && (elem.kind == ScalarKind::U8 || elem.kind == ScalarKind::I8))
      v = builder_.createValue(OpCode::Bitcast, {v}, v->type().withElem(want));
    else if (!(elem == want))
      error(loc, "tl.dot_scaled's " + std::string(isLhs ? "lhs" : "rhs") + " is " +
                     elem.tritonName() + " but its format says " + fmt);
    v = castTo(v, compute);
    const SemaValue *scaleArg = a.get(scaleIndex);
    if (!scaleArg || scaleArg->isNone())
      return v;
    tir::Value *scale = toValue(*scaleArg, loc, "tl.dot_scaled's scale");
    const int64_t k = v->type().shape[isLhs ? 1 : 0], rows = v->type().shape[isLhs ? 0 : 1];
    const Type &st = scale->type();
    if (!(st.elem.kind == ScalarKind::U8 || st.elem.kind == ScalarKind::I8) || st.rank() != 2 ||
        st.shape[0] != rows || st.shape[1] <= 0 || k % st.shape[1] != 0)
      error(loc, "tl.dot_scaled's " + std::string(isLhs ? "lhs" : "rhs") +
                     "_scale must be a uint8 tensor of [" + std::to_string(rows) +
                     ", K / 32], got " + scaleArg->describe());
    const int64_t group = k / st.shape[1];
    // 2^(s - 127) in the compute type: the byte as bf16's exponent, or as fp32's, then rounded
    // to fp16.
    const DType i16 = DType::scalar(ScalarKind::I16), i32 = DType::scalar(ScalarKind::I32);
    bool bf16 = compute.kind == ScalarKind::BF16;
    tir::Value *bits =
        builder_.createValue(OpCode::Bitcast, {scale}, st.withElem(DType::scalar(ScalarKind::U8)));
    bits = castTo(bits, bf16 ? i16 : i32);
    bits = builder_.binary(
        OpCode::Shl, bits,
        builder_.splat(builder_.intConstant(bf16 ? 7 : 23, Type(bf16 ? i16 : i32)), st.shape));
    tir::Value *factor = builder_.createValue(
        OpCode::Bitcast, {bits}, st.withElem(bf16 ? compute : DType::scalar(ScalarKind::F32)));
    factor = castTo(factor, compute);
    tir::Value *isNan = builder_.cmp(
        "eq", bits,
        builder_.splat(builder_.intConstant(bf16 ? 0xFF << 7 : 0xFF << 23, Type(bf16 ? i16 : i32)),
                       st.shape));
    // Along K: [rows, K/g] -> [rows, K/g, g] (lhs) or [K/g, g, rows] (rhs) -> the operand's shape.
    auto alongK = [&](tir::Value *x) {
      const DType &e = x->type().elem;
      if (isLhs) {
        x = builder_.createValue(OpCode::Reshape, {x}, Type(e, {rows, k / group, 1}));
        x = builder_.broadcast(x, {rows, k / group, group});
        return builder_.createValue(OpCode::Reshape, {x}, Type(e, {rows, k}));
      }
      x = builder_.createValue(OpCode::Reshape, {transposed(x)}, Type(e, {k / group, 1, rows}));
      x = builder_.broadcast(x, {k / group, group, rows});
      return builder_.createValue(OpCode::Reshape, {x}, Type(e, {k, rows}));
    };
    tir::Value *product = builder_.binary(OpCode::Mul, v, alongK(factor));
    if (fastMath)
      return product;
    tir::Value *nan = builder_.splat(
        builder_.floatConstant(std::numeric_limits<double>::quiet_NaN(), Type(compute)),
        product->type().shape);
    return builder_.select(alongK(isNan), nan, product);
  };
  tir::Value *lhs = scaled(0, 1, lhsFormat, true);
  tir::Value *rhs = scaled(3, 4, rhsFormat, false);
  CallArgs dotArgs{{SemaValue::ofTensor(lhs), SemaValue::ofTensor(rhs)}, {}, loc};
  if (const SemaValue *acc = a.get(6); acc && !acc->isNone())
    dotArgs.keywords.emplace_back("acc", *acc);
  return dot(dotArgs);
}

tir::Value *Specializer::unpackFp4(tir::Value *bytes, unsigned axis, DType compute) {
  // Two e2m1 values a byte along `axis`, the low nibble first; each becomes the bf16 of its
  // value (exactly: 0, 0.5, 1, 1.5, 2, 3, 4, 6 and their negatives), then `compute`.
  const DType i16 = DType::scalar(ScalarKind::I16);
  const std::vector<int64_t> &shape = bytes->type().shape;
  auto constant = [&](int64_t v) {
    return builder_.splat(builder_.intConstant(v, Type(i16)), shape);
  };
  tir::Value *word =
      castTo(builder_.createValue(OpCode::Bitcast, {bytes},
                                  bytes->type().withElem(DType::scalar(ScalarKind::U8))),
             i16);
  auto decode = [&](tir::Value *nibble) {
    tir::Value *exponent = builder_.binary(
        OpCode::And, builder_.binary(OpCode::Shr, nibble, constant(1)), constant(3));
    tir::Value *mantissa = builder_.binary(OpCode::And, nibble, constant(1));
    // e > 0: 2^(e - 1) (1 + m / 2) = bf16 exponent e + 126, mantissa m << 6; e = 0: m / 2.
    tir::Value *normal = builder_.binary(
        OpCode::Or,
        builder_.binary(OpCode::Shl, builder_.binary(OpCode::Add, exponent, constant(126)),
                        constant(7)),
        builder_.binary(OpCode::Shl, mantissa, constant(6)));
    tir::Value *subnormal =
        builder_.select(builder_.cmp("eq", mantissa, constant(1)), constant(0x3F00), constant(0));
    tir::Value *magnitude =
        builder_.select(builder_.cmp("eq", exponent, constant(0)), subnormal, normal);
    tir::Value *sign = builder_.binary(
        OpCode::Shl, builder_.binary(OpCode::And, nibble, constant(8)), constant(12));
    tir::Value *bits = builder_.binary(OpCode::Or, magnitude, sign);
    return castTo(
        builder_.createValue(OpCode::Bitcast, {bits}, Type(DType::scalar(ScalarKind::BF16), shape)),
        compute);
  };
  tir::Value *low = decode(builder_.binary(OpCode::And, word, constant(15)));
  tir::Value *high = decode(builder_.binary(OpCode::Shr, word, constant(4)));
  // Interleaved along `axis` (the last one, transposing around it for axis 0).
  if (axis == 0) {
    low = transposed(low);
    high = transposed(high);
  }
  CallArgs interleave{{SemaValue::ofTensor(low), SemaValue::ofTensor(high)}, {}, builder_.loc()};
  tir::Value *values = callBuiltin(SemaValue::ofBuiltin("tl.interleave"), interleave).value;
  return axis == 0 ? transposed(values) : values;
}

tir::Value *Specializer::transposed(tir::Value *matrix) {
  CallArgs args{{SemaValue::ofTensor(matrix)}, {}, builder_.loc()};
  return callBuiltin(SemaValue::ofBuiltin("tl.trans"), args).value;
}

tir::Value *Specializer::repeatAlong(tir::Value *x, unsigned axis, int64_t times) {
  const Type &t = x->type();
  // [.., d, ..] -> [.., 1, d, ..] -> [.., times, d, ..] -> [.., times * d, ..]
  std::vector<int64_t> split = t.shape;
  split.insert(split.begin() + axis, 1);
  tir::Value *v = builder_.createValue(OpCode::Reshape, {x}, Type(t.elem, split));
  split[axis] = times;
  v = builder_.broadcast(v, split);
  std::vector<int64_t> merged = t.shape;
  merged[axis] *= times;
  return builder_.createValue(OpCode::Reshape, {v}, Type(t.elem, merged));
}

tir::Value *Specializer::firstRepeat(tir::Value *x, unsigned axis, int64_t times) {
  const Type &t = x->type();
  std::vector<int64_t> split = t.shape;
  split[axis] /= times;
  split.insert(split.begin() + axis, times);
  return builder_.pickAlong(builder_.createValue(OpCode::Reshape, {x}, Type(t.elem, split)), axis,
                            0);
}

std::vector<std::optional<SemaValue>> bindCallArgs(Specializer &s, const std::string &fn,
                                                   const std::vector<std::string> &params,
                                                   size_t required, const CallArgs &args) {
  std::vector<std::optional<SemaValue>> values(params.size());
  if (args.positional.size() > params.size())
    s.error(args.loc, fn + "() takes at most " + std::to_string(params.size()) + " arguments, " +
                          std::to_string(args.positional.size()) + " given");
  for (size_t i = 0; i < args.positional.size(); ++i)
    values[i] = args.positional[i];
  for (const auto &[name, value] : args.keywords) {
    auto it = std::find(params.begin(), params.end(), name);
    if (it == params.end())
      s.error(args.loc, fn + "() got an unexpected keyword argument '" + name + "'");
    size_t i = static_cast<size_t>(it - params.begin());
    if (values[i])
      s.error(args.loc, fn + "() got multiple values for argument '" + name + "'");
    values[i] = value;
  }
  for (size_t i = 0; i < required; ++i)
    if (!values[i])
      s.error(args.loc, fn + "() is missing the argument '" + params[i] + "'");
  return values;
}

} // namespace tilec::sema
