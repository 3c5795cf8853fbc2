// The AST walker behind specializeKernel (internal to src/sema).
//
// Specializer.cpp walks statements and expressions and handles names, calls and control flow;
// Operators.cpp implements Python/Triton operators with promotion and broadcasting;
// Builtins.cpp implements the `tl.*` functions and the Python builtins kernels use.
#pragma once

#include "frontend/AST.h"
#include "sema/Imports.h"
#include "sema/Sema.h"
#include "sema/SemaValue.h"
#include "sema/Signature.h"
#include "tir/Builder.h"
#include "tir/Libdevice.h"

#include <deque>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace tilec::sema {

/// The classes of the objects (SemaValue::Kind::Object) module-level Python makes with dict
/// displays and triton.Config(...). A dict's elems are a tuple of its keys and one of its values;
/// a config's are its kwargs (a dict), then num_warps, num_stages and maxnreg (ints, or None where
/// the config gives none).
inline constexpr const char *kDictClass = "dict";
/// The class of the placeholder a signature entry or -D value naming a function becomes until
/// the kernel's module is in scope (FunctionReferences.cpp); elems[0] is the text.
inline constexpr const char *kFunctionReferenceClass = "tilec.function_reference";

/// Whether a signature entry or -D value is a dotted name that names a function
/// (`tl.extra.cuda.globaltimer`, `__main__.relu`, `test_x.<locals>.act`).
bool isFunctionReferenceText(const std::string &text);
/// The placeholder for such a value.
SemaValue functionReference(const std::string &text);
/// A function definition that @triton.jit decorates.
bool isJitDefinition(const ast::Stmt &stmt);
inline constexpr const char *kTritonConfigClass = "triton.Config";
/// What host code's `triton.heuristics(values)` returns (the decorator), its dict in elems[0]:
/// a module-level `f = make_heuristics()(f)` applies it.
inline constexpr const char *kTritonHeuristicsClass = "triton.heuristics";
/// What triton.autotune(configs, key, ...) returns in module-level Python (or a project's own
/// spelling of it, isAutotuneWrapper): elems are the configs and the key.
inline constexpr const char *kTritonAutotuneClass = "triton.autotune";

/// Module-level Python's sets and frozensets: Objects whose elems[0] is a list of their elements,
/// each once, in the order they were added (Python's own order is its hash table's: iterating a
/// set is refused, membership and size are what code asks of one).
inline constexpr const char *kSetClass = "set";
inline constexpr const char *kFrozenSetClass = "frozenset";
inline bool isSetObject(const SemaValue &v) {
  return v.kind == SemaValue::Kind::Object && (v.name == kSetClass || v.name == kFrozenSetClass);
}

/// An empty dict object (kDictClass).
SemaValue makeDict();
/// `dict[key] = value`: replaces the value of a key it holds, where Python keeps the key's
/// place, or appends the entry (HostPython.cpp).
void dictInsert(SemaValue &dict, const SemaValue &key, const SemaValue &value);

/// The arguments of a launch of `kernel` that its signature and -D (`defines`) give, keyed by
/// parameter name in the parameters' order, as Triton's autotuner hands them to the functions of
/// prune_configs_by (`nargs`): a constexpr's value; a run-time argument (a pointer, an integer
/// that is not the constant 1) as an unknown value (UnknownValues.cpp) that says `why` it is
/// known only at a launch, asked at `origin`. A parameter neither gives is left out.
SemaValue launchArguments(const ast::Stmt &kernel, const std::string &signature,
                          const std::vector<std::pair<std::string, std::string>> &defines,
                          const std::string &why, SourceLoc origin);

/// The Triton version tilec implements: module-level version checks see it.
inline constexpr const char *kTritonVersion = "3.6.0";
/// The dtype spellings a signature or -D accepts, for error messages.
inline constexpr const char *kDTypeSpellings =
    "fp16/float16/tl.float16, bf16/bfloat16/tl.bfloat16, fp32/float32/tl.float32, "
    "fp64/float64/tl.float64, fp8e4nv/fp8e5/fp8e4b15, i1/int1, i8/int8 ... i64/int64, u8/uint8 ... "
    "u64/uint64";

/// A Python exception raised by module-level code that tilec evaluates: an import, inside a
/// Python function, of a module that is not installed. A `try`/`except` in that code catches it;
/// one that escapes is a compile error.
struct HostException {
  std::vector<std::string> classes; // its class, then its bases up to BaseException
  std::string message;
  SourceLoc loc;
};

/// Whether `a op b` holds for the ordering comparison `op` (<, <=, ==, !=, >=, >), given the
/// three-way comparison of a and b (negative, zero or positive).
bool orderingHolds(ast::CompareOperator op, int threeWay);

/// A Python built-in exception class and its bases up to BaseException ("KeyError":
/// KeyError, LookupError, Exception, BaseException); none for a class tilec does not know.
std::optional<std::vector<std::string>> builtinExceptionClasses(const std::string &name);
/// Those of a class of Python's library that derives from built-in class `base` ("error" of `re`
/// from Exception).
std::vector<std::string> libraryExceptionClasses(const std::string &name, const std::string &base);

/// Arguments of a call after evaluation.
/// What functools gives module-level code (HostPython.cpp): the decorator that
/// `functools.lru_cache(maxsize=...)` returns, and a `functools.partial` object (elems: the
/// function, a tuple of its bound positional arguments, a tuple of (name, value) keywords).
inline constexpr const char *kCacheDecorator = "functools.lru_cache()";
inline constexpr const char *kPartialObject = "functools.partial";

/// A typing.NamedTuple class of a module (NamedTuples.cpp): a Builtin whose name is this prefix
/// and the class's name, and whose `function` is the class statement.
inline constexpr const char *kNamedTupleClass = "namedtuple:";

/// A plain Python class of module-level code (PythonClasses.cpp): a Builtin whose name is this
/// prefix and the class's name, and whose `function` is the class statement; its objects are
/// Objects of class kPythonObjectClass and the class's name, with `attributes`.
inline constexpr const char *kPythonClass = "pyclass:";
inline constexpr const char *kPythonObjectClass = "pyobject:";
/// Whether a statement is a class tilec evaluates as Python does: no base but `object`, and an
/// __init__ method or a @dataclass decorator (its only decorator).
bool isPythonClass(const ast::Stmt &stmt);
/// Whether a value is an object of such a class.
bool isPythonObject(const SemaValue &value);

/// A class whose body defines @triton.jit functions, used as their namespace
/// (ClassNamespaces.cpp): a Builtin whose name is this prefix and the class's name, and whose
/// `function` is the class statement.
inline constexpr const char *kJitNamespaceClass = "jitclass:";
/// Whether a statement is a class definition (not a NamedTuple) whose body, or a nested class's,
/// defines a @triton.jit function.
bool isJitNamespaceClass(const ast::Stmt &stmt);

/// Triton's constexpr_type, the .type of a constant: an Object of this class whose elems hold
/// the constant.
inline constexpr const char *kConstexprTypeClass = "tl.constexpr_type";

/// A field of a NamedTuple class: its name and its default (null when it has none).
struct NamedTupleField {
  std::string name;
  const ast::Expr *defaultValue = nullptr;
};
/// Whether a statement is a class definition deriving from typing.NamedTuple.
bool isNamedTupleClass(const ast::Stmt &stmt);
/// The fields of a NamedTuple class: its annotated names, in order.
std::vector<NamedTupleField> namedTupleFields(const ast::Stmt &cls);

/// Module-level names bound once to a call of triton.autotune or triton.heuristics.
using DecoratorVariables = std::map<std::string, const ast::Expr *>;

struct CallArgs {
  std::vector<SemaValue> positional;
  std::vector<std::pair<std::string, SemaValue>> keywords;
  SourceLoc loc;
};

class Specializer {
public:
  /// `stdlib` are the standard library's modules (see parseStdlib in Sema.h).
  /// `imports`, when given, are the modules `module` imports (loadImports), with `module` first.
  Specializer(const ast::Module &module, const SourceManager &sources, tir::Function &function,
              const std::vector<const ast::Module *> &stdlib = {},
              const ModuleGraph *imports = nullptr);
  /// Empties the variables of the closures it made: a closure stored among its maker's own
  /// variables (`fs.append(lambda: v)`) holds itself, which Python's collector frees and
  /// reference counts do not.
  ~Specializer();

  /// The @triton.jit function that module-level name `name` is bound to, its `if`s evaluated;
  /// null when it names something else.
  const ast::Stmt *moduleLevelKernel(const std::string &name, SourceLoc use);
  /// The module-level @triton.jit function that a string names, as a signature passes a
  /// function argument (a bare word); `value` itself when it names none.
  SemaValue jitFunctionNamed(const SemaValue &value, SourceLoc use);
  /// The target GPU (KernelRequest::arch), which module-level queries of the device answer from.
  void setTargetArch(std::string arch) { targetArch_ = std::move(arch); }
  void setTorchBuild(TorchBuild torch) { torch_ = std::move(torch); }
  /// tl.dot's input_precision where an fp32 dot names none (KernelRequest::dotPrecision).
  void setDefaultDotPrecision(std::string precision) {
    defaultDotPrecision_ = std::move(precision);
  }
  /// Triton's debug mode, in which tl.device_assert and `assert` statements are kept; Triton
  /// drops them otherwise (semantic.device_assert returns when options.debug is off).
  void setDebug(bool debug) { debug_ = debug; }

  /// The value of `expr` evaluated as module-level Python of the module (a decorator's argument:
  /// @triton.autotune's configs).
  SemaValue evalModuleLevel(const ast::Expr &expr);
  /// Calls a Python function (a def or a lambda of the module) with positional arguments, as
  /// module-level code calls it.
  SemaValue callPython(const SemaValue &function, std::vector<SemaValue> positional, SourceLoc loc);
  /// The same with keyword arguments (`f(configs, nargs, grid=..., warmup=False)`).
  SemaValue callPython(const SemaValue &function, std::vector<SemaValue> positional,
                       std::vector<std::pair<std::string, SemaValue>> keywords, SourceLoc loc);
  /// Binds the module's names again as Python has bound them once its first `statements`
  /// top-level statements ran: a decorator's arguments are evaluated when its function is
  /// defined, before the names later statements rebind (a tutorial's `configs = []` of its
  /// benchmarks, after the kernel's `configs=configs`). Kernels, which Triton compiles at launch,
  /// see every statement.
  void bindMainModuleAsOf(size_t statements);
  /// Binds the module's names again as Python has bound them when it reaches `stmt`, a
  /// statement of the main module at any depth of its `if`, `try` and `match` blocks: the
  /// statements before it, and the branch that holds it up to it (Python took that branch to
  /// get there). A decorator's arguments are evaluated so, before the names that later
  /// statements of the same block bind.
  void bindMainModuleBefore(const ast::Stmt &stmt);

  /// Replaces a module-level name with a value given on the command line (-D). Returns false
  /// when the module has no such name.
  bool overrideGlobal(const std::string &name, const SemaValue &value);

  /// Overrides the module-level constants that `defines` (-D) name, those that are not
  /// parameters of `kernel` and whose value is a literal, as specializeKernel does: for the
  /// decorators' arguments (`configs=[... for w in NUM_WARPS]`), which read them too.
  void overrideModuleConstants(const ast::Stmt &kernel,
                               const std::vector<std::pair<std::string, std::string>> &defines);

  /// Binds a module-level name whether or not the module has one: a nested kernel's closure
  /// variable given with -D, or a @triton.jit function of its enclosing function.
  void bindGlobal(const std::string &name, const SemaValue &value);

  /// The value an import statement binds to `name`, as if run in a function (a nested kernel's
  /// enclosing function that imports what the kernel reads: `from triton.language.core import
  /// constexpr_type` in a test). Errors where the module is not one tilec knows.
  SemaValue importedValue(const ast::Stmt &import, const std::string &name);

  /// The function a signature entry or -D value names by a dotted name (see
  /// FunctionReferences.cpp); errors when it names none.
  SemaValue resolveFunctionReference(const std::string &text, SourceLoc loc);

  /// Binds the kernel's parameters (run-time ones become body arguments) and walks its body.
  /// \p tupleArgs are the tuple arguments with run-time elements, whose parameters
  /// specializeKernel added under dotted names (`arg.0`, `arg.1.0`).
  void specialize(const ast::Stmt &kernel, const std::map<std::string, SemaValue> &constexprArgs,
                  const std::map<std::string, SignatureEntry> &tupleArgs = {});

  // --- used by Operators.cpp and Builtins.cpp -----------------------------------------------
  [[noreturn]] void error(SourceLoc loc, const std::string &message) const {
    sources_.error(loc, message);
  }
  tir::Builder &builder() { return builder_; }

  /// Converts a constexpr number to an IR constant of its literal type (or `type` if given).
  tir::Value *materialize(const SemaValue &v, SourceLoc loc,
                          std::optional<tir::DType> type = std::nullopt);
  /// What Triton's code generator makes of a value a kernel assigns to a name (without a
  /// tl.constexpr annotation) or a @triton.jit helper returns: a number, a constexpr's too,
  /// becomes a 0-d tensor of the type semantic.to_tensor gives it (bool: int1; int: int32,
  /// uint32 or int64 by range; float: fp32, or fp64 outside fp32's normal range); a tuple decays
  /// element by element; anything else is kept. So after `c = 0.5`, `x_fp16 * c` is fp32, as
  /// in Triton, and `tl.arange(0, c)` is refused, as in Triton.
  SemaValue decayNumbers(const SemaValue &v, SourceLoc loc);
  /// `v` as an operand of type `type` the way Triton's builtins that call semantic.to_tensor
  /// first (tl.store's value, tl.load's other, atomics, tl.cast, tl.maximum, comparisons...)
  /// make it: a number becomes a tensor of its to_tensor type, then is cast. A float thus goes
  /// through fp32: `tl.store(p_fp64, 0.1)` stores (double)(float)0.1, as Triton does.
  tir::Value *toTensorAs(const SemaValue &v, SourceLoc loc, tir::DType type);
  /// `v`'s integer value; errors, naming `what`, unless it is a compile-time integer (or bool).
  int64_t constantInt(const SemaValue &v, SourceLoc loc, const std::string &what);
  /// For an error that wants a compile-time value and got `v`: where `v` is a number a kernel
  /// assigned to a name (a 0-d constant tensor, see decayNumbers), a sentence saying so and how
  /// to keep it a constant; else nothing.
  static std::string assignedNumberHint(const SemaValue &v);
  /// Whether the statements run now are a kernel's or a @triton.jit helper's (not module-level
  /// Python, a constexpr function or another host function).
  bool inKernelCode() const { return hostCallDepth_ == 0 && moduleLevelDepth_ == 0; }
  /// A run-time value (materialising constexpr numbers); errors for anything else.
  tir::Value *toValue(const SemaValue &v, SourceLoc loc, const char *what);
  /// Converts a value to `to` (numeric conversion), a no-op when it already has that type.
  tir::Value *castTo(tir::Value *v, tir::DType to);
  /// Triton's NVIDIA conversions of fp8e4b15 (Fp8E4B15.cpp): from it to fp16, or to fp32 when
  /// `to` is fp32 (Triton's result for any other `to` is the fp16); and to it from fp16 or fp32
  /// (an error at `loc` for any other type).
  tir::Value *convertFromFp8E4B15(tir::Value *v, tir::DType to);
  tir::Value *convertToFp8E4B15(tir::Value *v, SourceLoc loc);
  /// A number that Triton makes an fp8e4b15 constant of (semantic.scalar_constant: tl.where's
  /// and tl.full's numbers): 0.0 for any number equal to 0 (the type's null value, +0), an error
  /// for any other, which Triton 3.6 cannot make.
  SemaValue fp8E4B15Number(const SemaValue &number, SourceLoc loc);
  /// Broadcasts a value (scalar or tensor) to `shape`, prepending size-1 dimensions as needed.
  tir::Value *broadcastTo(tir::Value *v, const std::vector<int64_t> &shape, SourceLoc loc);
  /// The shape two operands broadcast to.
  std::vector<int64_t> broadcastShape(const tir::Type &a, const tir::Type &b, SourceLoc loc);
  /// Triton's TRITON_MAX_TENSOR_NUMEL: no tensor has more elements.
  static constexpr int64_t kMaxTensorElements = int64_t(1) << 20;
  /// Errors at `loc` when a tensor of `shape` would have more than kMaxTensorElements elements.
  void checkTensorSize(const std::vector<int64_t> &shape, SourceLoc loc) const;

  /// The type two numeric operands are computed in, by Triton's promotion rules (a Python literal
  /// takes part only when it is of a higher kind than the tensor); an error when there is none.
  /// `selecting` is for tl.where, which alone takes fp8e4b15 operands as they are.
  tir::DType operandType(const SemaValue &lhs, const SemaValue &rhs, bool divOrMod, SourceLoc loc,
                         bool selecting = false);
  /// Both operands converted to `type` and broadcast to their common shape.
  std::pair<tir::Value *, tir::Value *>
  convertAndBroadcast(const SemaValue &lhs, const SemaValue &rhs, tir::DType type, SourceLoc loc);

  SemaValue binaryOp(ast::BinaryOperator op, const SemaValue &lhs, const SemaValue &rhs,
                     SourceLoc loc);
  /// `seq * n`: a tuple, list or string repeated (Python's sequence repetition). Kernel code
  /// has only Triton's tl.tuple.__mul__ (a tuple or list on the left, a constexpr integer on
  /// the right); host code has Python's both orders and strings too.
  SemaValue repeatSequence(const SemaValue &lhs, const SemaValue &rhs, SourceLoc loc);
  SemaValue compareOp(ast::CompareOperator op, const SemaValue &lhs, const SemaValue &rhs,
                      SourceLoc loc);
  SemaValue unaryOp(ast::UnaryOperator op, const SemaValue &operand, SourceLoc loc);
  /// Python truthiness of a constexpr; nullopt for a run-time value.
  std::optional<bool> constexprTruth(const SemaValue &v) const;

  SemaValue callBuiltin(const SemaValue &callee, CallArgs &args);
  /// A call of libdevice.NAME (triton.language.extra.libdevice): fp32/fp64 operands.
  SemaValue callLibdevice(const tir::LibdeviceFunction &fn, CallArgs &args);
  /// A call of a libdevice function with integer operands or results, or several operand types
  /// (tir::LibdeviceExtern), dispatched as Triton's core.extern_elementwise.
  SemaValue callLibdeviceExtern(const tir::LibdeviceExtern &fn, CallArgs &args);
  /// tl.dot (Builtins.cpp).
  SemaValue dot(CallArgs &args);
  /// tl.dot_scaled, decomposed into scaled fp16/bf16 operands and a dot, as Triton before sm_100.
  /// tl.dot of fp32 with input_precision "bf16x3" (parts = 2) or "bf16x6" (3): Triton's
  /// decomposition into bf16 dots accumulating in fp32, plus `acc`.
  tir::Value *splitBf16Dot(tir::Value *lhs, tir::Value *rhs, tir::Value *acc, unsigned parts);
  tir::Value *splitTf32Dot(tir::Value *lhs, tir::Value *rhs, tir::Value *acc);
  SemaValue dotScaled(CallArgs &args);
  /// Bytes of two e2m1 (fp4) values each, packed along `axis` (low nibble first), as `compute`.
  tir::Value *unpackFp4(tir::Value *bytes, unsigned axis, tir::DType compute);
  /// tl.trans of a 2-D tensor.
  tir::Value *transposed(tir::Value *matrix);
  /// tl.associative_scan, tl.reduce and tl.xor_sum (Combine.cpp).
  SemaValue callCombining(const std::string &fn, CallArgs &args);
  /// tl.join, tl.split, tl.interleave, tl.flip, tl.clamp, tl.div_rn, tl.fdiv (ShapeOps.cpp).
  SemaValue callShapeOp(const std::string &fn, CallArgs &args);
  /// tl.histogram, tl.gather, tl.inline_asm_elementwise, tl.map_elementwise (SpecialOps.cpp).
  SemaValue callSpecialOp(const std::string &fn, CallArgs &args);
  /// tl.map_elementwise: a scalar @triton.jit function as the region of a map_elementwise op.
  SemaValue mapElementwise(CallArgs &args);
  /// Looks up `attr` of a module ("triton.language" . "load").
  SemaValue moduleAttribute(const std::string &module, const std::string &attr, SourceLoc loc);
  SemaValue valueAttribute(const SemaValue &value, const std::string &attr, SourceLoc loc);
  /// The standard library's @triton.jit function `name`, or null.
  const ast::Stmt *stdlibFunction(const std::string &name) const;

  // Python's library for module-level code (HostPython.cpp).
  /// Raises the Python exception `classes[0]` (its bases follow): a `try` in a Python function
  /// may catch it; raised by module-level code itself, it is a compile error.
  [[noreturn]] void raisePython(const std::vector<std::string> &classes, const std::string &message,
                                SourceLoc loc);
  // Files that module-level code reads and the json module (HostFiles.cpp).
  /// open(file, mode="r", ...): a text file read whole, recorded as a dependency.
  SemaValue openFile(CallArgs &args);
  /// `f.read` and the other attributes of a file open() made; nullopt for another value.
  std::optional<SemaValue> textFileAttribute(const SemaValue &file, const std::string &attr,
                                             SourceLoc loc);
  /// f.read(), f.readlines(), f.close() (the receiver is args.positional[0]).
  SemaValue callTextFileMethod(const std::string &method, CallArgs &args);
  /// What `with manager as x:` binds x to (__enter__); an error for a manager tilec lacks.
  SemaValue enterContext(const SemaValue &manager, SourceLoc loc);
  /// json.load(f) and json.loads(s).
  SemaValue callJson(const std::string &fn, CallArgs &args);
  /// str() of a value; an error for one whose text tilec does not know.
  std::string pythonStr(const SemaValue &v, SourceLoc loc);
  /// repr() of `v`, as Python gives it; a located error for what tilec does not model.
  std::string pythonRepr(const SemaValue &v, SourceLoc loc);
  /// format(v, spec), as Python gives it (PythonFormat.h): the format-spec mini-language of int,
  /// bool, float and str; Python's TypeError for a non-empty spec on other values.
  std::string pythonFormat(const SemaValue &v, const std::string &spec, SourceLoc loc);
  SemaValue isInstance(CallArgs &args);
  /// A NamedTuple class as a value, its call, a field of one of its tuples (nullopt when `attr`
  /// is none), and the classes that a signature's `Name(...)` tuples name, looked up in the
  /// module (NamedTuples.cpp).
  SemaValue namedTupleClass(const ast::Stmt &cls);
  /// A class holding @triton.jit functions as a value, and its attribute `attr` (a @triton.jit
  /// function or a nested such class; nullopt when `cls` is no such class), ClassNamespaces.cpp.
  SemaValue jitNamespaceClass(const ast::Stmt &cls);
  std::optional<SemaValue> jitNamespaceAttribute(const SemaValue &cls, const std::string &attr,
                                                 SourceLoc loc);
  SemaValue constructNamedTuple(const ast::Stmt &cls, CallArgs &args);
  std::optional<SemaValue> namedTupleField(const SemaValue &tuple, const std::string &attr);
  void bindNamedTupleClasses(SemaValue &value, SourceLoc loc);
  /// getattr(x, name[, default]) and hasattr(x, name).
  SemaValue callGetattr(CallArgs &args, bool hasattr);
  /// hasattr(value, attr) on a value of a kernel (a number, a tensor, a tuple), as Triton
  /// answers it; nullopt where tilec cannot tell.
  std::optional<bool> valueHasAttribute(const SemaValue &value, const std::string &attr);
  /// A comparison that involves a library object (two packaging Versions); nullopt when neither
  /// operand is one.
  std::optional<SemaValue> compareHostObjects(ast::CompareOperator op, const SemaValue &lhs,
                                              const SemaValue &rhs, SourceLoc loc);
  /// An attribute of a string or a library object (a method, or a Version's `release`...).
  SemaValue hostObjectAttribute(const SemaValue &object, const std::string &attr, SourceLoc loc);
  /// A call of a library function ("re.match", "importlib.metadata.version",
  /// "packaging.version.Version") or of a method ("str.rstrip", "re.Match.group": the receiver
  /// is the first argument); an error for one tilec does not model.
  SemaValue callHostLibrary(const std::string &qualified, CallArgs &args);

  // Block pointers (BlockPointers.cpp).
  SemaValue makeBlockPointer(CallArgs &args);
  SemaValue advanceBlockPointer(CallArgs &args);
  /// \p descriptor: the load is a tensor descriptor's, whose NaN padding is TMA's (tmaNanFill).
  SemaValue loadBlockPointer(const SemaValue &blockPtr, const SemaValue *boundaryCheck,
                             const SemaValue *padding, SourceLoc loc, bool descriptor = false);
  /// The store it creates.
  tir::Operation *storeBlockPointer(const SemaValue &blockPtr, const SemaValue &value,
                                    const SemaValue *boundaryCheck, SourceLoc loc);
  /// Whether two block pointers are made of the same values.
  /// Takes out of `carried` the names whose value before a run-time loop is neither a tensor
  /// nor a number (`b_dw = ... if USE_DW else None`, reassigned in the loop only under
  /// `if USE_DW:`): no loop can carry them, and the body must leave them as they were, which
  /// checkUncarriedUnchanged checks once it has run (a branch of a false constexpr `if` never
  /// runs).
  std::vector<std::string> splitUncarried(std::vector<std::string> &carried,
                                          const std::map<std::string, SemaValue> &before) const;
  void checkUncarriedUnchanged(const std::vector<std::string> &uncarried,
                               const std::map<std::string, SemaValue> &before,
                               const ast::Stmt &loop) const;
  static bool sameBlockPointer(const SemaValue &a, const SemaValue &b);
  /// A block pointer at \p offsets (int32 scalars) into a tensor of \p shape and \p strides
  /// (int64 scalars), for loads and stores through tensor descriptors.
  SemaValue blockPointerAt(const SemaValue &base, std::vector<SemaValue> shape,
                           std::vector<SemaValue> strides, std::vector<SemaValue> offsets,
                           const SemaValue &blockShape);

  // Tensor descriptors (TensorDescriptors.cpp).
  SemaValue makeTensorDescriptor(CallArgs &args);
  /// The descriptor a `tensordesc<...>` kernel argument denotes, from its parameters (the base,
  /// the shape, the strides and the padding flag, as specializeKernel added them).
  SemaValue tensorDescriptorArgument(const tir::TensorDescParam &param);
  /// The value of the run-time parameter or descriptor named \p name (dotted inside tuples), or
  /// nullopt where specializeKernel added none.
  std::optional<SemaValue> runtimeArgument(const std::string &name);
  /// The value of tuple argument \p name given by \p entry: its literals bound, its run-time
  /// elements the parameters named after their position.
  SemaValue tupleArgument(const std::string &name, const SignatureEntry &entry);
  /// desc.load / tl.load_tensor_descriptor, desc.store / tl.store_tensor_descriptor.
  SemaValue loadTensorDescriptor(const SemaValue &desc, const SemaValue &offsets, SourceLoc loc);
  void storeTensorDescriptor(const SemaValue &desc, const SemaValue &offsets,
                             const SemaValue &value, SourceLoc loc);
  /// desc.atomic_add(offsets, value) and the other descriptor atomics (`kind` is add, min...).
  void atomicTensorDescriptor(const std::string &kind, const SemaValue &desc,
                              const SemaValue &offsets, const SemaValue &value, SourceLoc loc);
  SemaValue tensorDescriptorAttribute(const SemaValue &desc, const std::string &attr,
                                      SourceLoc loc);
  /// Whether two tensor descriptors are made of the same values.
  static bool sameTensorDescriptor(const SemaValue &a, const SemaValue &b);

  // Values of module-level Python that tilec cannot know ahead of time (UnknownValues.cpp).
  /// A value the host would have (`what`, such as "torch.cuda.get_device_name()") that tilec
  /// cannot know, and `why`; asked at `origin`.
  static SemaValue unknownValue(const std::string &what, const std::string &why, SourceLoc origin);
  static bool isUnknown(const SemaValue &v);
  /// `v` if it is unknown, else the first unknown element of a tuple or list it is; null.
  static const SemaValue *findUnknown(const SemaValue &v);
  /// A bool computed from an unknown value (`not u`).
  static SemaValue unknownBool(const SemaValue &unknown);
  /// Records that module-level `global` holds `v`, for the -D that errors suggest.
  static void noteUnknownHolder(SemaValue &v, const std::string &global);
  /// Records that the constexpr `name` is computed from `v` (a heuristic), for the -D that
  /// errors suggest where no module-level name holds it.
  static void noteUnknownSource(SemaValue &v, const std::string &name);
  /// Refuses `v` at `use` where it is or holds an unknown value, saying that `needs` (such as
  /// "this condition") depends on it.
  void refuseUnknown(const SemaValue &v, SourceLoc use, const std::string &needs) const;
  /// A comparison or `in` with an unknown operand: an unknown bool; nullopt when neither is.
  static std::optional<SemaValue> compareUnknown(ast::CompareOperator op, const SemaValue &lhs,
                                                 const SemaValue &rhs);
  /// `unknown and rhs` / `unknown or rhs`: what `rhs` decides, else an error at `loc`.
  SemaValue boolOpWithUnknown(bool isAnd, const SemaValue &unknown, const SemaValue &rhs,
                              SourceLoc loc);
  /// A method of an unknown value, and its call: an unknown result.
  static SemaValue unknownAttribute(const SemaValue &base, const std::string &attr);
  std::optional<SemaValue> callUnknown(const SemaValue &callee, const CallArgs &args);

private:
  /// Runs `body` in a scope of its own, as module-level code (evalModuleLevel, callPython).
  SemaValue inModuleLevelScope(const std::function<SemaValue()> &body);
  const ast::Module &module_;
  const SourceManager &sources_;
  tir::Function &function_;
  tir::Builder builder_;

  // Each module's names: the kernel file's (modules_[0]) and those of the files it imports
  // (graph_), bound when the module is first used. Names resolve in `current_`, the module of
  // the function being inlined.
  struct ImportedName {
    int module;          // in graph_, or -1 for a library module
    std::string attr;    // its name there
    SourceLoc loc;       // the import
    std::string library; // module < 0: the library module's dotted name ("triton.language")
  };
  struct ModuleState {
    const ast::Module *ast = nullptr;
    bool collected = false;
    // Module-level names: imports and functions eagerly, constant assignments lazily.
    std::map<std::string, SemaValue> globals;
    std::map<std::string, const ast::Expr *> pending;
    // For a name of a tuple assignment (`major, minor = torch.cuda.get_device_capability()`):
    // the whole target, which unpacks the pending value into all its names at once.
    std::map<std::string, const ast::Expr *> pendingTarget;
    // Names bound by a module-level `if` (`if compare_version("triton", ...):`): the condition
    // is evaluated when a kernel first uses one of them, so that a condition tilec cannot
    // evaluate is an error only for the kernels that depend on it.
    std::map<std::string, const ast::Stmt *> conditional;
    // `from helpers import f`: looked up in helpers when first used; so is a name imported
    // from a library (`from triton.language.core import _aggregate`), which Python binds
    // whether or not the kernels use it, so that what tilec does not support is an error only
    // for the kernels that use it.
    std::map<std::string, ImportedName> imported;
    // What a name was bound to before a module-level `if` that may rebind it: when the branch
    // Python takes does not bind it, the name keeps that binding (`import triton.language as tl`
    // under `if has_triton():`, again under a later `if` whose condition is false).
    struct PriorBinding {
      std::optional<SemaValue> global;
      const ast::Expr *pending = nullptr;
      const ast::Expr *pendingTarget = nullptr;
      const ast::Stmt *conditional = nullptr;
      std::optional<ImportedName> imported;
      const ast::Stmt *changedInPlace = nullptr;
    };
    std::map<std::pair<const ast::Stmt *, std::string>, PriorBinding> priorBindings;
    // A pending value that uses the name it binds (`CONFIGS = CONFIGS + [...]`, `X += 1`):
    // keyed by the value, the binding its statement sees, and the augmented assignment whose
    // operator combines the two (null for a plain assignment).
    struct SelfReference {
      PriorBinding prior;
      const ast::Stmt *augmented = nullptr;
    };
    std::map<const ast::Expr *, SelfReference> selfReferences;
    // Names that a module-level statement changes in place or in a loop
    // (namesChangedInPlace), which tilec does not run: the statement, for the error where the
    // name is read. A later assignment binds the name anew.
    std::map<std::string, const ast::Stmt *> changedInPlace;
    // Names that a function of the module rebinds (`global X` in it): the `global` statement
    // and the module-level function that holds it. Python evaluates a decorator's arguments and
    // module-level assignments at import time, before the program calls such a function, so
    // module-level code reads the binding the module's own statements make; kernels, which
    // Triton compiles at launch, read whatever the program has rebound it to by then.
    struct Rebinding {
      const ast::Stmt *global;
      const ast::Stmt *function;
    };
    std::map<std::string, std::vector<Rebinding>> reboundByFunction;
    // The module-level statements `f(...)` that call such a function, run once, in Python's
    // order, before a module-level read of a name it rebinds that follows them
    // (runImportTimeCalls); those running now store the names they declare global in globals.
    std::set<const ast::Expr *> importTimeCallsRun;
    std::set<const ast::Expr *> importTimeCallsRunning;
    // Lazy loaders (runLazyLoaders): the functions run, the names they bound, and >0 while one
    // runs, which lets its `global` assignments change the module's bindings.
    std::set<const ast::Stmt *> lazyLoadersRun;
    std::set<std::string> lazilyLoaded;
    std::map<std::string, bool> boundToNoneBeforeLoaders;
    unsigned lazyLoadersRunning = 0;
    // The triton.autotune/heuristics calls its names hold (`tuned = triton.autotune(...)`),
    // which `f = tuned(f)` applies by call; computed on first need.
    std::optional<DecoratorVariables> decoratorVariables;
  };
  const ModuleGraph *graph_;
  // A deque: reading a module may load more (see loadModule), and references stay valid.
  std::deque<ModuleState> modules_;
  size_t current_ = 0;
  ModuleState &mod() { return modules_[current_]; }
  std::vector<std::string> globalsBeingEvaluated_; // "module:name"

  /// Enters a module (and leaves the stdlib) for as long as it lives; `newScope` hides the
  /// caller's locals from module-level code.
  struct ModuleSwitch {
    ModuleSwitch(Specializer &s, size_t module, bool newScope);
    ~ModuleSwitch();
    Specializer &s;
    size_t savedModule;
    bool savedInStdlib;
    bool newScope;
  };
  void ensureCollected(size_t index);
  /// Parses a module the graph registered unread (ModuleGraph::ensureLoaded), and takes in the
  /// modules that found.
  void loadModule(size_t index);
  /// Takes in the modules the graph found or loaded since.
  void syncModules();
  /// `h.NAME` for a loaded module h.
  SemaValue userModuleAttribute(int index, const std::string &attr, SourceLoc loc);
  /// Rethrows `e`, a failure to evaluate `name` of the kernel's file, with a note at `at` that
  /// -D binds the name instead; `what` starts the note.
  /// Rethrows `e` with a note at `at` (also registered with the source manager, for the
  /// diagnostics' JSON form).
  [[noreturn]] void rethrowWithNote(const CompileError &e, SourceLoc at,
                                    const std::string &note) const;
  [[noreturn]] void rethrowWithDefineHint(const CompileError &e, const std::string &what,
                                          const std::string &name, SourceLoc at);
  /// `Cls.ATTR` in module-level Python where `Cls` is a plain class (or a dataclass) whose body
  /// assigns ATTR a literal (stk's `TritonConfig.BLOCK_M` in its autotune configs): its value,
  /// else nullopt.
  std::optional<SemaValue> classConstant(const std::string &className, const std::string &attr);
  /// Thrown by lookup, while classNameUse_ is set, for a name that only a class statement binds.
  struct PlainClassName {};
  bool classNameUse_ = false;
  /// Reports a use of a name that a module-level class statement binds (tilec evaluates none).
  [[noreturn]] void refuseClass(const ast::Stmt &classStmt, const std::string &name, SourceLoc use);
  /// Reports the import `graph_->missing[index]`, with a note at `use`.
  [[noreturn]] void missingModuleError(int index, SourceLoc use);

  // The standard library: its functions by name, and the names its own code sees (its imports
  // and functions). `inStdlib_` is set while a stdlib function's body or defaults are evaluated,
  // so that its names resolve in its module and not in the user's.
  std::map<std::string, const ast::Stmt *> stdlibFunctions_;
  std::map<std::string, SemaValue> stdlibGlobals_;
  bool inStdlib_ = false;

  // One scope per inlined function call.
  struct Scope {
    std::map<std::string, SemaValue> names;
    /// Python functions: the locals that hold a list the function made itself (a display, a
    /// comprehension, list(...)) and no other name holds, which evalListMethod may change in
    /// place. tilec's values are not shared, so a list that a parameter or a second name holds
    /// could not change for its other holders as it does in Python.
    std::set<std::string> ownLists;
    /// Python functions: the names a `global` statement run in it declares, and the statement.
    std::map<std::string, const ast::Stmt *> declaredGlobal;
    /// The variables of the functions and lambdas defined in it, which bind() keeps up to date:
    /// Python's closures read their maker's variables when they run, not when they are made
    /// (a nested function may read a name its maker assigns after the `def`).
    std::vector<std::shared_ptr<std::map<std::string, SemaValue>>> closures;
    /// Kernels: the run-time loops whose variable is unbound after them (loopVariableAfterLoop),
    /// for the error where one is read.
    std::map<std::string, const ast::Stmt *> endedLoopVariables;
  };
  /// Every closure's variables made (liveClosure), which the destructor empties.
  std::vector<std::weak_ptr<std::map<std::string, SemaValue>>> madeClosures_;
  std::vector<Scope> scopes_;
  unsigned callDepth_ = 0;

  // What compile-time unrolling and inlining may expand a kernel to, so that an absurd trip count
  // or a fan-out of helper calls is an error in bounded time and memory rather than minutes and
  // gigabytes: iterations of one tl.static_range, loop bodies and calls expanded in all, and
  // operations built.
  static constexpr int64_t kMaxStaticRangeIterations = 4096;
  static constexpr int64_t kMaxExpansions = int64_t(1) << 16;
  static constexpr size_t kMaxOperations = size_t(1) << 18;
  int64_t expansions_ = 0;

  // How deeply eval and execBlock recurse. The parser bounds each function's nesting, but inlined
  // calls nest one function's expressions inside another's: 60 helpers of 3000 nested unary
  // minus signs each overflowed the stack. kMaxNestingDepth stays well within 8 MB.
  static constexpr unsigned kMaxNestingDepth = 6000;
  unsigned nestingDepth_ = 0;
  struct NestingGuard {
    NestingGuard(Specializer &s, SourceLoc loc);
    ~NestingGuard() { --s.nestingDepth_; }
    Specializer &s;
  };
  /// Counts one unrolled body or inlined call at `loc` against the budgets above.
  void countExpansion(SourceLoc loc, const char *what);

  // Set by `return` inside a helper function.
  std::optional<SemaValue> returnValue_;
  /// A `break` or `continue` that Python code that tilec runs (a function that module-level
  /// code calls) has reached: the statements up to its loop are skipped, and the loop ends or
  /// goes on to its next iteration.
  enum class LoopExit { None, Break, Continue };
  LoopExit loopExit_ = LoopExit::None;
  // >0 while inside a run-time (IR) loop or an `if` without `return`: `return` is not allowed
  // there (an `if` with a `return` is built by execReturningIf).
  unsigned runtimeControlFlowDepth_ = 0;
  // >0 inside a tl.static_range loop, where a run-time `if` cannot return either.
  unsigned staticLoopDepth_ = 0;
  // The statements that follow the one being executed, innermost last, up to the end of the
  // function: an `if` that returns on a run-time condition runs them inside its branches.
  struct Continuation {
    const ast::StmtList *stmts;
    size_t next;
  };
  // The exceptions the `except` handlers being run caught, innermost last (a bare `raise`).
  std::vector<HostException> handledExceptions_;
  std::vector<Continuation> continuations_;

  /// Binds the module-level names that the first `count` statements of `stmts` define; with
  /// `only`, just those names.
  void collectGlobals(const ast::StmtList &stmts, const std::set<std::string> *only = nullptr,
                      size_t count = SIZE_MAX);
  /// Binds the names a module-level `try` statement defines, taking the handler where an import
  /// of the try block fails.
  void collectTryGlobals(const ast::Stmt &stmt, const std::set<std::string> *only);
  /// Binds what the statements of `stmts` before `stop` bind, descending into the block of
  /// stmts that holds it (see bindMainModuleBefore).
  void collectGlobalsBefore(const ast::StmtList &stmts, const ast::Stmt &stop);
  /// Evaluates the module-level `if` (or `match`) that binds `name` and binds the names of the
  /// branch (or case) taken.
  void resolveModuleIf(const ast::Stmt &stmt, const std::string &name, SourceLoc use);
  /// compare_version("triton", operator.ge, "3.0.0"), the helper of Liger-Kernel and others:
  /// tilec compiles for Triton 3.6.0.
  SemaValue compareVersion(const CallArgs &args);
  void collectStdlib(const std::vector<const ast::Module *> &stdlib);

  // Module-level code may call the file's plain Python functions (`if compare_version(...) and
  // not is_npu_available():`): tilec runs their bodies as it runs a kernel's constexpr code, plus
  // `try`/`except` and imports, which bind local names. >0 while module-level code is evaluated
  // (a call of a Python function inside a kernel stays an error, as in Triton), and the depth of
  // Python function calls under it.
  unsigned moduleLevelDepth_ = 0;
  unsigned hostCallDepth_ = 0;
  std::string targetArch_ = "sm_90a";
  TorchBuild torch_;
  /// torch.__version__ (a TorchVersion).
  SemaValue torchVersion() const;
  std::string defaultDotPrecision_ = "tf32";
  bool debug_ = false;
  // What module-level code asks of the GPU it will run on (HostPython.cpp): the compute
  // capability and what follows from it; what differs between GPUs of one architecture (the name,
  // the number of SMs, how many there are) is an error.
  SemaValue deviceQuery(const std::string &qualified, CallArgs &args);
  SemaValue devicePropertiesItem(const SemaValue &properties, const SemaValue &key, SourceLoc loc);
  /// triton.language.target_info's constexpr functions (is_cuda(), cuda_capability_geq(9, 0)...),
  /// answered for the target compiled for.
  SemaValue callTargetInfo(const std::string &fn, CallArgs &args);
  /// Whether tilec's triton.language (or tl.math, tl.core, tl.standard) has `attr`: what
  /// hasattr(tl, "gather") answers; nullopt when `module` is none of them.
  std::optional<bool> tritonLanguageHas(const std::string &module, const std::string &attr);
  /// tl.X (or tl.math.X, ...): a dtype, a submodule, a builtin, a stdlib function; nullopt for
  /// what tilec does not have.
  std::optional<SemaValue> tritonLanguageAttribute(const std::string &module,
                                                   const std::string &attr);
  // "module:name" of the imported names being looked up, to report `from a import x` in b and
  // `from b import x` in a instead of recursing forever.
  std::set<std::string> importsBeingResolved_;
  SemaValue callHostFunction(const ast::Stmt &def, CallArgs &args);
  /// A set (kSetClass) or frozenset of `elements`, duplicates (by ==) dropped.
  SemaValue makeSet(const char *cls, const std::vector<SemaValue> &elements, SourceLoc loc);
  // Plain Python classes of module-level code (PythonClasses.cpp).
  SemaValue pythonClass(const ast::Stmt &cls);
  SemaValue constructPythonObject(const ast::Stmt &cls, CallArgs &args);
  /// An attribute of such a class or of one of its objects; nullopt for other values. Where the
  /// object has no such attribute, its class's __getattr__ gives it, unless `withGetattr` is false
  /// (object.__getattribute__).
  std::optional<SemaValue> pythonClassAttribute(const SemaValue &value, const std::string &attr,
                                                SourceLoc loc, bool withGetattr = true);
  /// `object.__new__(cls)`, `object.__getattribute__(obj, name)`, `object.__setattr__(obj, name,
  /// value)`: the methods of Python's `object` that a class's own __new__, __getattr__ and
  /// __setattr__ call to reach the object itself.
  SemaValue callObjectMethod(const std::string &method, CallArgs &args);
  /// Calls `method` of such a class (its __getattr__ or a property) on behalf of an attribute
  /// read, as module-level code where the read is in a kernel.
  SemaValue callClassMethod(const ast::Stmt &method, CallArgs &args);
  /// `obj.attr = value` in Python code that tilec runs, on such an object; false for others.
  bool assignPythonObjectAttribute(const ast::Expr &target, const SemaValue &value);
  /// Calls a Python function value of module-level code (a def of the module or a lambda, whose
  /// closure its body sees).
  SemaValue callHostFunction(const SemaValue &function, CallArgs &args);
  /// The closure of the lambda being called, which inlineJitFunction binds first.
  const std::map<std::string, SemaValue> *pendingClosure_ = nullptr;
  const std::map<std::string, SemaValue> *pendingDefaults_ = nullptr;
  /// The defaults of a function or lambda made now in host code, evaluated as Python evaluates
  /// them where it is made (null when it has none).
  std::shared_ptr<const std::map<std::string, SemaValue>> evalDefaults(const ast::Stmt &def);
  /// `attr` of user module `index` that the module does not define: what its module-level
  /// __getattr__ returns (PEP 562).
  SemaValue moduleGetattr(int index, const std::string &attr, SourceLoc loc);
  /// `x` repeated `times` times along `axis` ([.., d, ..] -> [.., times * d, ..], the copies one
  /// after the other), and the first of such copies back: tl.dot's small M and N.
  tir::Value *repeatAlong(tir::Value *x, unsigned axis, int64_t times);
  tir::Value *firstRepeat(tir::Value *x, unsigned axis, int64_t times);
  /// The element of a single-element tensor, as a scalar (Triton's unsplat: x.item(), an `if`
  /// on a one-element block); a scalar is itself.
  tir::Value *unsplat(tir::Value *x, SourceLoc loc);
  /// Notes the names that `global` statements in the body of `function`, a module-level
  /// function, rebind.
  void recordGlobalStatements(const ast::StmtList &body, const ast::Stmt &function);
  /// The `global` statements of a class's methods (and of its nested classes').
  void recordClassGlobalStatements(const ast::Stmt &cls);
  /// Refuses a read of `name`, which a function of the module rebinds with `global`, where the
  /// value read is not the module-level binding: code that runs at launch (a kernel, a
  /// constexpr function it calls, a heuristic), or import-time code of a module whose own
  /// module-level code calls a function that rebinds the name.
  void checkReboundGlobal(const std::string &name, SourceLoc use);
  /// Binding `name` where the Python function running declared it `global`: stores `value`
  /// as the module's binding (true) while a module-level call of the module runs
  /// (runImportTimeCalls), refuses it otherwise; false where `name` is not declared global.
  bool assignDeclaredGlobal(const std::string &name, const SemaValue &value, SourceLoc loc);
  /// Runs, in order and once, the module-level statements `f(...)` of the current module that
  /// call `functions` (which rebind a name with `global`), where the read of the name at `use`
  /// follows them all, as Python would have by then; true when the read may go on (they have
  /// run, or one is running), false where tilec cannot tell which of them ran before the read.
  bool runImportTimeCalls(const std::set<std::string> &functions, SourceLoc use);
  /// A kernel's read of a module-level name bound to None that only parameterless module-level
  /// functions rebind (`global X` ... `X = imported_jit_fn`, a lazy import): runs those
  /// functions once, as the host must have before Triton could compile the read, and returns
  /// true; false where the name is not such a name.
  bool runLazyLoaders(const std::string &name,
                      const std::vector<ModuleState::Rebinding> &rebindings, SourceLoc use);
  /// A call that module-level code (of any module tilec loaded) makes of a function of one of
  /// these names (`f(...)`, `m.f(...)`); null when there is none.
  const ast::Expr *moduleLevelCallOf(const std::set<std::string> &names);
  /// Runs `body` as code that Python runs when the module is imported: a module-level
  /// assignment's value, a module-level condition, a decorator's arguments.
  template <typename F> auto atImport(F &&body) {
    ++importDepth_;
    struct Leave {
      unsigned &depth;
      ~Leave() { --depth; }
    } leave{importDepth_};
    return body();
  }
  // >0 while code that Python runs at import time is evaluated (atImport).
  unsigned importDepth_ = 0;
  /// A `@triton.constexpr_function` (or `@tl.constexpr`) called from a kernel: run as Python
  /// at compile time, on compile-time arguments, for a compile-time result.
  SemaValue callConstexprFunction(const ast::Stmt &def, CallArgs &args);
  // The library functions behind callHostLibrary (HostPython.cpp).
  SemaValue callRegex(const std::string &fn, CallArgs &args);
  /// Python's math module on compile-time numbers (math.log2(BLOCK), math.pi at module level).
  SemaValue callMath(const std::string &fn, CallArgs &args);
  /// os.path's functions (posixpath) of the host that compiles: join, dirname, basename,
  /// abspath, normpath, realpath, splitext, isabs, exists, isfile, isdir; nullopt for others.
  std::optional<SemaValue> callOsPath(const std::string &fn, CallArgs &args);
  /// Whether `dotted` is a key of sys.modules as module-level code reads it: a module that an
  /// import statement of one of the files tilec loaded imports (with its parent packages), or
  /// sys and builtins, which every interpreter has loaded (HostPython.cpp).
  bool inSysModules(const std::string &dotted) const;
  SemaValue torchTypeInfo(bool floating, CallArgs &args);
  SemaValue torchDevice(CallArgs &args);
  SemaValue callStringMethod(const std::string &method, CallArgs &args);
  /// str.format: `text` with its replacement fields formatted from `args` (Python's
  /// build_string; `depth` counts down the nesting of fields in specs).
  std::string formatString(const std::string &text, const CallArgs &args, int depth, int &autoState,
                           int64_t &autoNumber);
  SemaValue callMatchMethod(const std::string &method, CallArgs &args);
  SemaValue importlibVersion(CallArgs &args);
  SemaValue findSpec(CallArgs &args);
  SemaValue moduleFromSpec(CallArgs &args);
  /// An f-string's value: its literal text and its fields formatted (Triton's rules in kernels).
  SemaValue evalFString(const ast::Expr &expr);
  [[noreturn]] void execRaise(const ast::Stmt &stmt);
  void execTry(const ast::Stmt &stmt);
  // Match statements (MatchStatements.cpp), in the Python code tilec evaluates: a function that
  // module-level code calls, or the module level itself.
  using PatternBindings = std::vector<std::pair<std::string, SemaValue>>;
  void execMatch(const ast::Stmt &stmt);
  /// `xs.append(x)`, `.extend(ys)` and `.insert(i, x)` on a local list of a Python function that
  /// module-level code calls; nullopt for any other call.
  std::optional<SemaValue> evalListMethod(const ast::Expr &call);
  /// The variables that a function or lambda defined now in the innermost scope reads: that
  /// scope's, kept up to date as it binds names.
  std::shared_ptr<const std::map<std::string, SemaValue>> liveClosure();
  // In-place changes of host objects (HostObjects.cpp).
  /// Stores `updated`, a changed list, dict or triton.Config, wherever its object is held; an
  /// error where a module-level name holds it, unless `memoCache` (the change is a memo cache's
  /// store: isMemoCacheStore), which module-level names then hold too.
  void replaceObject(const SemaValue &updated, SourceLoc loc, bool memoCache = false);
  /// The Python functions of module-level code being run, innermost last (callHostFunction).
  std::vector<const ast::Stmt *> hostFunctions_;
  /// The class variables of module-level Python classes evaluated so far, by their statement in
  /// the class body: Python evaluates each once, so its readers share one object.
  struct ClassVariable {
    std::string name; // Class.attr
    SemaValue value;
  };
  std::map<const ast::Stmt *, ClassVariable> classVariables_;
  /// `d[k] = v`, `xs[i] = v` and `config.kwargs = v` in Python code: the object changed in
  /// place. False for another target (or an object without an identity).
  bool assignInPlace(const ast::Expr &target, const SemaValue &value);
  /// `xs += items` and xs.extend(items) on a list with an identity; false for another value.
  bool extendInPlace(const SemaValue &list, const SemaValue &items, SourceLoc loc);
  /// The case of a match statement that its subject selects (evaluated in the current scope,
  /// where the guards see the captures), with the captures it binds; null when none does.
  const ast::MatchCase *selectMatchCase(const ast::Stmt &stmt, PatternBindings &bindings);
  bool matchPattern(const ast::Pattern &pattern, const SemaValue &subject,
                    PatternBindings &bindings);
  void execHostImport(const ast::Stmt &stmt);
  /// What an import statement in a function binds: each name with its value.
  std::vector<std::pair<std::string, SemaValue>> hostImportBindings(const ast::Stmt &stmt);
  bool isStdlibFunction(const ast::Stmt &def) const;
  SemaValue inlineJitFunction(const ast::Stmt &def, CallArgs &args);
  SemaValue lookup(const std::string &name, SourceLoc loc);
  /// The value of a module-level name whose pending statement uses the name itself, with the
  /// name bound as that statement sees it.
  SemaValue evalSelfReference(const std::string &name, const ast::Expr &value,
                              const ModuleState::SelfReference &reference);
  /// What `name` is bound to now in the current module, and binding it so again.
  ModuleState::PriorBinding currentBinding(const std::string &name);
  void restoreBinding(const std::string &name, const ModuleState::PriorBinding &binding);
  /// Binds each name that a module-level `if` after `at` (other than `self`) may rebind to what
  /// it was bound to before that `if`, as Python sees it at `at`, which it runs first; returns
  /// the bindings to put back (putBackBindings).
  std::vector<std::pair<std::string, ModuleState::PriorBinding>>
  bindAsBeforeLaterIfs(SourceLoc at, const ast::Stmt *self);
  void putBackBindings(const std::vector<std::pair<std::string, ModuleState::PriorBinding>> &own);
  /// Binds `name` as `binding` records, adding to what the module binds now.
  void applyPriorBinding(const std::string &name, const ModuleState::PriorBinding &binding);
  void assign(const ast::Expr &target, const SemaValue &value);
  void bind(const std::string &name, const SemaValue &value);

  // Statements
  void execBlock(const ast::StmtList &stmts, size_t from = 0);
  void exec(const ast::Stmt &stmt);
  void execAssign(const ast::Stmt &stmt);
  /// The values an `if`'s two paths give for one result, made to agree in type (each in its block).
  /// Ends both branches of a run-time `if` with yields of their values, continues after it, and
  /// returns its results (one per yielded value).
  std::vector<tir::Value *> closeBranches(tir::Operation &ifOp,
                                          const std::vector<tir::Value *> &thenValues,
                                          const std::vector<tir::Value *> &elseValues);
  std::pair<tir::Value *, tir::Value *> branchValues(const SemaValue &tv, const SemaValue &ev,
                                                     tir::Block &thenBlock, tir::Block &elseBlock,
                                                     SourceLoc loc);
  void execIf(const ast::Stmt &stmt);
  /// A run-time `if` condition as an int1 scalar (a one-element block unsplatted, as Triton
  /// does); null for a block of several elements.
  tir::Value *scalarCondition(const SemaValue &cond, SourceLoc loc);
  /// `a if c else b`: folded on a constexpr condition, an `if` on a run-time scalar one.
  SemaValue evalIfExp(const ast::Expr &expr);

  void execReturningIf(const ast::Stmt &stmt, tir::Value *cond);
  /// A `for` in a Python function that module-level code calls: over range(), a tuple or list,
  /// or a string, run as Python runs it.
  void execHostFor(const ast::Stmt &stmt);
  bool hostLoopEnds();
  /// The values of Python's range(...) over `arguments` (module-level code), bounded as a loop's.
  std::vector<SemaValue> hostRangeItems(const std::vector<SemaValue> &arguments, bool keywords,
                                        SourceLoc loc);
  /// A `while` in such a function, run as Python runs it.
  void execHostWhile(const ast::Stmt &stmt);
  /// What a `for` of module-level Python iterates: range()'s numbers, a tuple's or list's
  /// elements, a string's characters.
  std::vector<SemaValue> hostIterationItems(const ast::Expr &iter);
  /// [e for x in xs if c] and (e for x in xs) in module-level Python: a list.
  SemaValue evalComprehension(const ast::Expr &expr);
  /// [e for x in t] in a kernel, as Triton's code generator evaluates it: a tuple.
  SemaValue evalKernelListComprehension(const ast::Expr &expr);
  /// A call statement, whose result is dropped, of a function whose result must be used (Triton's
  /// must_use_result: tl.advance, @triton.must_use_result functions) is an error.
  void checkResultUsed(const ast::Expr &call);
  void execFor(const ast::Stmt &stmt);
  /// The value a run-time loop's variable has after the loop where tilec knows it (see the
  /// definition); nullopt: the name keeps what it had before the loop, or stays unbound.
  std::optional<SemaValue> loopVariableAfterLoop(const SemaValue &start, const SemaValue &stop,
                                                 const SemaValue &step);
  void execWhile(const ast::Stmt &stmt);
  void execStaticFor(const ast::Stmt &stmt, const std::vector<int64_t> &values);

  // Expressions
  SemaValue eval(const ast::Expr &expr);
  SemaValue evalCall(const ast::Expr &expr);
  /// `base[lower:upper:step]` of a tuple, a list or a string, with constant bounds.
  SemaValue sliceSequence(const SemaValue &base, const ast::Expr &slice);
  /// Calls `callee` (any callable value: a kernel helper, a builtin, a module-level Python
  /// function, a functools wrapper) with evaluated arguments; `calleeLoc` is where it is named.
  SemaValue callValue(const SemaValue &callee, CallArgs &args, SourceLoc calleeLoc);
  SemaValue evalSubscript(const ast::Expr &expr);
  /// `base.attr`.
  SemaValue attribute(const SemaValue &base, const std::string &attr, SourceLoc loc);
  SemaValue evalConstantGlobal(const std::string &name, const ast::Expr &expr);
  SemaValue callJitFunction(const ast::Stmt &def, CallArgs &args);

  // Scans and reductions with combine functions (Combine.cpp).
  bool constFlag(const std::optional<SemaValue> &v, SourceLoc loc, const std::string &what);
  /// A propagate_nan argument: true for tl.PropagateNan.ALL, false for NONE, an error otherwise.
  /// Which of the kernel's tensor descriptor arguments `desc` is (its index in
  /// Function::tensorDescriptors); none for tl.make_tensor_descriptor's.
  /// The same for a load through the block pointer `blockPtr` (tl.load with `boundaryCheck` and
  /// `padding`), where TMA gives its result: 2-D, row-major (order (1, 0)), unit last stride,
  /// both dimensions bounds-checked.
  void addBlockPointerTmaOperands(const SemaValue &blockPtr, const SemaValue *boundaryCheck,
                                  const SemaValue *padding, SourceLoc loc, tir::Operation &load);
  /// What both append (tir::kernelDescriptorLoadOperands): the offsets, the base, the shape (i32
  /// values), the strides but the last; and the attributes kernel_descriptor and fill_nan.
  static void appendTmaOperands(tir::Operation &load, const std::vector<SemaValue> &offsets,
                                tir::Value *base, const std::vector<tir::Value *> &shape,
                                const std::vector<SemaValue> &strides, bool fillNan);
  /// Whether the last of `strides` is the constant 1: TMA copies along a contiguous dimension.
  static bool hasUnitLastStride(const std::vector<SemaValue> &strides);
  /// Appends to `load` (a bounds-checked load through the kernel-made descriptor `desc` at
  /// `blockPtr`'s offsets) the operands a TMA copy of it needs (tir::kernelDescriptorLoadOperands).
  void addKernelDescriptorOperands(const SemaValue &desc, const SemaValue &blockPtr,
                                   tir::Operation &load);
  std::optional<unsigned> descriptorArgument(const SemaValue &desc) const;
  bool propagateNanAll(const SemaValue &p, SourceLoc loc, const std::string &display);
  /// A bf16 tensor cast to fp32, anything else as is (Triton's _promote_bfloat16_to_float32,
  /// which tl.minimum, tl.maximum and tl.clamp apply to their operands: no bf16 min/max/compare).
  SemaValue promoteBFloat16ToFloat32(const SemaValue &v);
  static bool isClipPattern(const SemaValue &min, const SemaValue &max, tir::Value *lower,
                            tir::Value *upper);
  int64_t constAxis(const SemaValue &v, unsigned rank, SourceLoc loc, const std::string &what);
  void buildCombineRegion(tir::Operation &op, const SemaValue &fn,
                          const std::vector<tir::DType> &types, SourceLoc loc,
                          const std::string &what);
  std::vector<tir::Value *> combinedOperands(const SemaValue &input, SourceLoc loc,
                                             const std::string &what);

  // Control flow support
  std::vector<std::string> carriedNames(const ast::StmtList &body) const;

  // Block pointers (BlockPointers.cpp).
  /// boundary_check's dimensions, checked and sorted.
  std::vector<int64_t> boundaryCheckDims(const SemaValue *boundaryCheck, size_t rank,
                                         SourceLoc loc);
  /// The NaN TMA fills out-of-bounds descriptor elements with (padding "nan"), of `scalar`.
  tir::Value *tmaNanFill(const tir::Type &scalar);
  /// The block's pointer tensor and, when `checked` names dimensions, its in-bounds mask.
  std::pair<tir::Value *, tir::Value *> blockPointerAddresses(const SemaValue &blockPtr,
                                                              const std::vector<int64_t> &checked,
                                                              SourceLoc loc);
  /// A block pointer that a run-time loop reassigns: its offsets (or, when the loop changes more
  /// than its offsets, all its run-time parts) travel as hidden loop-carried names.
  struct CarriedBlockPointer {
    std::string name;
    SemaValue before;
    bool whole;
    std::vector<std::string> hidden;
  };
  /// The loops (and names) whose block pointers change more than their offsets.
  std::set<std::pair<const ast::Stmt *, std::string>> wholeBlockPointers_;
  /// Replaces the block pointers among `carried` by their hidden names (bound to their current
  /// parts).
  std::vector<CarriedBlockPointer> splitCarriedBlockPointers(std::vector<std::string> &carried,
                                                             const ast::Stmt &loop);
  /// Binds each block pointer's name to the block pointer its hidden names now give.
  void rebuildCarriedBlockPointers(const std::vector<CarriedBlockPointer> &pointers);
  /// Binds the hidden names to the parts each block pointer's name now has. False when a block
  /// pointer changed more than its offsets: the loop must be built again, carrying all of it.
  bool exposeCarriedBlockPointers(const std::vector<CarriedBlockPointer> &pointers,
                                  const ast::Stmt &loop);
  /// A tuple that a run-time loop or `if` reassigns: its leaves travel as hidden names
  /// (TupleFlow.cpp).
  struct FlowingTuple {
    std::string name;
    SemaValue before; // its value before the loop, or after the `if`'s then-path
    std::vector<std::string> hidden;
  };
  /// Replaces the tuples among `names` by their leaves' hidden names, bound to the leaves.
  std::vector<FlowingTuple> splitFlowingTuples(std::vector<std::string> &names);
  /// Binds the hidden names to the leaves each tuple's name now has (after a loop's body); an
  /// error when the tuple's structure changed.
  void exposeFlowingTuples(const std::vector<FlowingTuple> &tuples, const ast::Stmt &loop);
  /// Binds each tuple's name to the tuple its hidden names now give.
  void rebuildFlowingTuples(const std::vector<FlowingTuple> &tuples);
  /// For an `if`: the names in `assigned` that are tuples on both paths become their leaves'
  /// hidden names, the leaves added to both paths' bindings.
  void splitMergedTuples(std::vector<std::string> &assigned,
                         std::map<std::string, SemaValue> &afterThen,
                         std::map<std::string, SemaValue> &afterElse,
                         std::vector<FlowingTuple> &tuples, SourceLoc loc);
  /// A run-time part of a block pointer that differs between the two paths of an `if`.
  struct MergedBlockPointer {
    size_t part, dim;
    tir::Value *thenValue, *elseValue;
  };
  /// The parts in which two block pointers (the values of `name` after each path of an `if`)
  /// differ; an error when they differ in what only compile time knows.
  std::vector<MergedBlockPointer> mergeBlockPointers(const std::string &name,
                                                     const SemaValue &thenValue,
                                                     const SemaValue &elseValue, SourceLoc loc);
  /// The block pointer after the `if`: `thenValue` with the merged parts taken from `results`.
  SemaValue mergedBlockPointer(const SemaValue &thenValue,
                               const std::vector<MergedBlockPointer> &merged,
                               const std::vector<tir::Value *> &results);
  std::vector<std::pair<std::string, SemaValue>>
  liveBindings(const std::vector<std::string> &names);
};

/// Returns the dotted name of an expression such as `triton.language.float32`, or "" if it is not
/// a chain of names.
std::string dottedName(const ast::Expr &expr);

/// Binds a call's arguments to named parameters, Python style: positional ones in order, then
/// keywords by name; the first `required` must be given. Too many, unknown, repeated or missing
/// arguments are located errors naming `fn`. Parameters not given are empty.
std::vector<std::optional<SemaValue>> bindCallArgs(Specializer &s, const std::string &fn,
                                                   const std::vector<std::string> &params,
                                                   size_t required, const CallArgs &args);

/// Whether `value` is a file that open() made.
bool isTextFile(const SemaValue &value);

/// Whether a parameter bound by bindCallArgs was given a value other than None.
inline bool isGiven(const std::optional<SemaValue> &v) {
  return v && !v->isNone();
}

} // namespace tilec::sema
