// What a name or expression denotes while sema walks a kernel.
//
// Triton kernels mix two worlds: compile-time Python values (constexpr ints, dtypes, tuples,
// functions, modules) and run-time values (scalars and tensors in the IR). Sema evaluates the
// former as it goes, like Triton's code generator does, and emits IR only for the latter. A
// SemaValue is either.
#pragma once

#include "frontend/AST.h"
#include "tir/IR.h"

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace tilec::sema {

/// A 128-bit integer in decimal, as Python prints it.
inline std::string wideIntToString(__int128 v) {
  bool negative = v < 0;
  unsigned __int128 magnitude =
      negative ? static_cast<unsigned __int128>(-(v + 1)) + 1 : static_cast<unsigned __int128>(v);
  std::string digits;
  do {
    digits.insert(digits.begin(), static_cast<char>('0' + static_cast<int>(magnitude % 10)));
    magnitude /= 10;
  } while (magnitude != 0);
  return negative ? "-" + digits : digits;
}

struct SemaValue {
  enum class Kind {
    None,        // Python None
    Int,         // a constexpr Python int
    Float,       // a constexpr Python float
    Bool,        // a constexpr Python bool
    String,      // a constexpr string
    DType,       // tl.float32, a tensor's .dtype, ...
    Tuple,       // a tuple or a list of values (isList tells which)
    Tensor,      // a run-time value: an IR scalar or tensor
    Module,      // `triton`, `triton.language`, `torch`, ... (name = dotted module name)
    JitFunction, // a user @triton.jit function
    Builtin,     // a function sema implements: "tl.load", "range", "min"...; with `self` for
                 // bound methods such as x.to (elems[0] is the receiver)
    Slice,       // `:` inside a subscript (only full slices are meaningful to Triton)
    BlockPtr,    // tl.make_block_ptr's result: elems are the base (a pointer scalar), then
                 // tuples of the shape and strides (int64 scalars), the offsets (int32
                 // scalars), the block shape and the order (constexpr ints). Loads and stores
                 // through it become pointer tensors and masks (BlockPointers.cpp).
    TensorDesc,  // tl.make_tensor_descriptor's result or a `tensordesc<...>` kernel argument:
                 // elems are the base (a pointer scalar), tuples of the shape (int32 scalars)
                 // and strides (int64 scalars), the block shape (constexpr ints) and the
                 // padding (the string 'zero' or 'nan', or an int1 scalar: nan when true).
                 // Loads and stores go through block pointers (TensorDescriptors.cpp).
    Object,      // an object of a Python library class that module-level code uses, which
                 // tilec models (HostPython.cpp): name is its class ("packaging.version.Version",
                 // "re.Match", "re.Pattern"), elems its state.
  };

  Kind kind = Kind::None;
  int64_t intValue = 0;
  /// Int: the value is outside int64 and held in wideValue (intValue has its low 64 bits).
  /// Python's ints are unbounded, tilec's constants 128-bit; Triton gives a number in
  /// [2^63, 2^64) the type uint64 and refuses larger ones in kernels (semantic.to_tensor).
  bool intIsWide = false;
  __int128 wideValue = 0;
  double floatValue = 0.0;
  bool boolValue = false;
  std::string name; // String: the text; Module: dotted name; Builtin: qualified name
  tir::DType dtype;
  std::vector<SemaValue> elems;        // Tuple elements; Builtin: bound receiver
  tir::Value *value = nullptr;         // Tensor
  const ast::Stmt *function = nullptr; // JitFunction
  /// Builtin "pyfunc:<lambda>": the locals of the function that evaluated the lambda, which its
  /// body reads as Python's closure would (`lambda nargs: nargs[name].zero_()` in a helper).
  std::shared_ptr<const std::map<std::string, SemaValue>> closure;
  /// Builtin "pyfunc:" defined in a Python function: its parameters' defaults, which Python
  /// evaluates where the function is made (`lambda args, _v=v: _v` in a loop keeps each v).
  std::shared_ptr<const std::map<std::string, SemaValue>> defaults;
  /// Object of a Python class of module-level code (PythonClasses.cpp): its attributes, shared
  /// by every copy as Python's objects are (`function` is the class statement).
  std::shared_ptr<std::map<std::string, SemaValue>> attributes;
  int userModule = -1;    // Module: a file the kernel imports (ModuleGraph index), or -1
  int missingImport = -1; // Module: bound by an import that found no file (ModuleGraph::missing)
  bool isList = false;    // Tuple: a list ([a, b], str.split's result), which Python tells
                          // apart from a tuple in ==, isinstance and repr
  bool isTorchVersion = false; // String: torch.__version__, a str subclass (TorchVersion) that
                               // compares with strings and tuples as a version
  /// A list, a dict or a triton.Config of module-level Python: the identity of the Python
  /// object, which every copy of the value keeps, as every name holding a Python object holds
  /// the same one. An in-place change (Specializer::replaceObject) reaches every holder of the
  /// identity. 0 where none is known: such a value is not changed in place.
  uint64_t objectId = 0;

  /// A new identity, for a value that Python makes as a new object.
  static uint64_t newObjectId() {
    static uint64_t last = 0;
    return ++last;
  }

  static SemaValue none() { return {}; }
  static SemaValue ofInt(int64_t v) {
    SemaValue r;
    r.kind = Kind::Int;
    r.intValue = v;
    return r;
  }
  /// An Int of any 128-bit value: a plain one where it fits int64.
  static SemaValue ofWideInt(__int128 v) {
    SemaValue r = ofInt(static_cast<int64_t>(static_cast<uint64_t>(v)));
    r.intIsWide = v < static_cast<__int128>(INT64_MIN) || v > static_cast<__int128>(INT64_MAX);
    r.wideValue = r.intIsWide ? v : 0;
    return r;
  }
  /// An Int in [2^63, 2^64): a uint64 in Triton.
  bool isUint64Int() const {
    return kind == Kind::Int && intIsWide && wideValue > 0 &&
           wideValue <= static_cast<__int128>(UINT64_MAX);
  }
  static SemaValue ofFloat(double v) {
    SemaValue r;
    r.kind = Kind::Float;
    r.floatValue = v;
    return r;
  }
  static SemaValue ofBool(bool v) {
    SemaValue r;
    r.kind = Kind::Bool;
    r.boolValue = v;
    return r;
  }
  static SemaValue ofString(std::string s) {
    SemaValue r;
    r.kind = Kind::String;
    r.name = std::move(s);
    return r;
  }
  /// A tensor's .type is Triton's block_type(element, shape): a DType whose elems are the shape.
  bool isBlockType() const { return kind == Kind::DType && !elems.empty() && name.empty(); }
  /// A block pointer's .type: Triton's pointer_type(block_type(element, shape)); dtype is the
  /// pointer to the element, elems the block shape.
  bool isBlockPointerType() const { return kind == Kind::DType && name == "block pointer"; }
  static SemaValue ofDType(tir::DType t) {
    SemaValue r;
    r.kind = Kind::DType;
    r.dtype = t;
    return r;
  }
  static SemaValue ofTuple(std::vector<SemaValue> elems) {
    SemaValue r;
    r.kind = Kind::Tuple;
    r.elems = std::move(elems);
    return r;
  }
  /// A new list (a display, a comprehension, list(...)): a new object.
  static SemaValue ofList(std::vector<SemaValue> elems) {
    SemaValue r = ofTuple(std::move(elems));
    r.isList = true;
    r.objectId = newObjectId();
    return r;
  }
  static SemaValue ofTensor(tir::Value *v) {
    SemaValue r;
    r.kind = Kind::Tensor;
    r.value = v;
    return r;
  }
  static SemaValue ofModule(std::string dotted) {
    SemaValue r;
    r.kind = Kind::Module;
    r.name = std::move(dotted);
    return r;
  }
  static SemaValue ofUserModule(std::string dotted, int index) {
    SemaValue r = ofModule(std::move(dotted));
    r.userModule = index;
    return r;
  }
  static SemaValue ofBuiltin(std::string qualified) {
    SemaValue r;
    r.kind = Kind::Builtin;
    r.name = std::move(qualified);
    return r;
  }
  static SemaValue ofJitFunction(const ast::Stmt *def) {
    SemaValue r;
    r.kind = Kind::JitFunction;
    r.function = def;
    return r;
  }

  bool isConstexprNumber() const {
    return kind == Kind::Int || kind == Kind::Float || kind == Kind::Bool;
  }
  /// An Int's or a Bool's value as Python's int() gives it (True is 1).
  int64_t numberAsInt() const { return kind == Kind::Bool ? (boolValue ? 1 : 0) : intValue; }
  /// An Int's or a Bool's value, exactly, for the upper half of uint64 too.
  __int128 numberAsWideInt() const { return intIsWide ? wideValue : numberAsInt(); }
  /// A constexpr number's value as Python's float() gives it.
  double numberAsFloat() const {
    if (kind == Kind::Int && intIsWide)
      return static_cast<double>(wideValue);
    return kind == Kind::Float ? floatValue : static_cast<double>(numberAsInt());
  }
  bool isTensor() const { return kind == Kind::Tensor; }
  bool isNone() const { return kind == Kind::None; }

  /// How Python would print it, for constexpr values ("1024", "True", "fp16"); also a short
  /// description of what the value is for messages ("a tensor", "module 'torch'").
  std::string repr() const;
  std::string describe() const;
  /// The same value: equal fields and elements, the same IR value for tensors.
  bool sameAs(const SemaValue &other) const;
};

} // namespace tilec::sema
