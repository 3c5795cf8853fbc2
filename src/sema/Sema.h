// Semantic analysis: a @triton.jit kernel plus a signature -> one TIR function.
//
// Sema works like Triton's code generator: it walks the kernel's AST once per specialisation,
// evaluating everything that is known at compile time (constexpr parameters, dtypes, Python
// arithmetic on them, `if` on constants, helper-function calls, which are inlined) and emitting IR
// for the rest, with Triton's type promotion and broadcasting rules. There is no separate typed
// AST: the IR it emits is typed, and keeping one walk keeps Triton's semantics in one place.
#pragma once

#include "frontend/AST.h"
#include "tir/IR.h"

#include <functional>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace tilec::sema {

class ModuleGraph; // Imports.h

/// The newest torch and CUDA versions tilec is tested with: what module-level code that asks
/// torch.__version__ and torch.version.cuda sees unless --torch-version / --cuda-version say
/// otherwise.
inline constexpr const char *kDefaultTorchVersion = "2.11.0";
inline constexpr const char *kDefaultCudaVersion = "13.0";

/// The build of torch on the host that runs the kernels, as module-level code asks about it.
struct TorchBuild {
  std::string version = kDefaultTorchVersion; // torch.__version__
  std::string cuda = kDefaultCudaVersion;     // torch.version.cuda
};

struct KernelRequest {
  std::string name;
  /// The name of the emitted function (the PTX .entry) when it is not `name`: each autotune
  /// variant of one kernel gets its own ("matmul_kernel__0", ...).
  std::string entryName;
  /// The signature in Triton AOT syntax (see Signature.h). Required.
  std::string signature;
  /// -D NAME=VALUE bindings of constexpr parameters and module-level names.
  std::vector<std::pair<std::string, std::string>> defines;
  /// The names among `defines` that an autotune config binds (not the user's -D).
  std::set<std::string> tuned;
  unsigned numWarps = 4;
  unsigned numStages = 3;
  /// Whether numWarps / numStages are the launch's own (--num-warps, --num-stages, an autotune
  /// config) rather than the defaults: where not, a kernel parameter of that name that the
  /// signature binds sets them (bindLaunchOptionParams).
  bool numWarpsGiven = false;
  bool numStagesGiven = false;
  /// Triton's maxnreg option: at most this many registers per thread (.maxnreg); 0 for none.
  unsigned maxRegisters = 0;
  /// The GPU the kernel is compiled for (sm_80 ... sm_90a): module-level code that asks the host
  /// what it runs on (torch.cuda.get_device_capability(), Triton's current target) is answered
  /// from it.
  std::string arch = "sm_90a";
  /// The host's torch, for torch.__version__ and torch.version.cuda.
  TorchBuild torch;
  /// tl.dot's input_precision where an fp32 dot names none ("tf32", "tf32x3" or "ieee").
  std::string dotPrecision = "tf32";
  /// Triton's debug mode: device assertions are kept (else only a @triton.jit(debug=True)
  /// kernel's are).
  bool debug = false;
  /// When set, receives the names of the `defines` this kernel used (a parameter or a module-level
  /// name), so the driver can reject a -D that no kernel uses.
  std::vector<std::string> *usedDefines = nullptr;
  /// The standard library's modules (see parseStdlib): `tl.X` names one of their @triton.jit
  /// functions when sema has no builtin X. Without them only the builtins exist.
  std::vector<const ast::Module *> stdlib;
  /// The files the kernel's module imports (loadImports), with the module first; null when it
  /// imports none that tilec loaded.
  const ModuleGraph *imports = nullptr;
};

/// Parses the standard library (stdlib/*.tl, embedded in tilec at build time) into `sources`,
/// one module per file, named "<stdlib>/FILE" in diagnostics.
std::vector<std::unique_ptr<ast::Module>> parseStdlib(SourceManager &sources);

/// Calls `visit(stmt, nested)` on each statement of `stmts` and, recursively, on those of the
/// blocks of its `if`/`else` and `try`/`except`/`else`/`finally` statements, in source order:
/// the statements Python may run at module level, whichever way the conditions go. `nested` says
/// whether the statement is inside one of those blocks.
void forEachModuleLevelStatement(const ast::StmtList &stmts,
                                 const std::function<void(const ast::Stmt &, bool nested)> &visit);

/// The module-level names that `stmt` changes in ways tilec's evaluation of module-level names
/// does not model: in place (`xs.append(x)`, `d[k] = v`), or by running a loop (`for`/`while`
/// bind and change names as they go).
void namesChangedInPlace(const ast::Stmt &stmt, std::vector<std::string> &out);
/// The module-level names that a module-level statement `f(...)` changes in place by calling
/// `f`, a function of the module (`def register(k, v): REGISTRY[k] = v`): what its body changes
/// in place that is neither its parameter nor its local, a memo cache's store excepted (see
/// isMemoCacheStore). `defs` are the statements where the function's `def` may be.
void namesChangedByCall(const ast::Stmt &stmt, const std::vector<const ast::StmtList *> &defs,
                        std::vector<std::string> &out);

/// Whether a statement of `body` (nested blocks too) assigns to `name`.
bool assignsName(const ast::StmtList &body, const std::string &name);
/// Whether `target`, assigned in `function`, is a memo cache's store `cache[key] = ...`: `key`
/// is a parameter the function never rebinds, and a statement of its body returns when
/// `key in cache` (`if key in cache: return cache[key]`), so it stores each key once.
bool isMemoCacheStore(const ast::Stmt &function, const ast::Expr &target);

/// The module's @triton.jit functions, in source order.
std::vector<const ast::Stmt *> jitFunctions(const ast::Module &module);
/// What module-level code makes of the name `name` through Triton's decorators applied by call:
/// `name = triton.autotune(...)(f)`, `name = tuned(f)` where `tuned = triton.autotune(...)` once
/// at module level (a decorator kept in a variable, applied under `if not _is_cpu:` too), the
/// same with triton.heuristics and triton.jit. `function` is the function they wrap (`name`
/// itself when the assignment rebinds it), `decorators` the autotune and heuristics calls, as
/// @-decorators would list them (outermost first). Empty `function` when there is no such
/// assignment.
struct DecoratedByCall {
  std::string function;
  std::vector<const ast::Expr *> decorators;
  /// Later module-level statements that rebind `name` to what a call tilec does not read makes
  /// of it (`f = cce_autotune()(f)`, a plain function returning a decorator): what they add at
  /// a launch (heuristics, configs, num_warps) is not seen.
  std::vector<const ast::Stmt *> unread;
};
DecoratedByCall decoratedByCall(const ast::Module &module, const std::string &name);
/// The decorators of a definition, with those named by a module-level variable that holds a
/// triton.autotune or triton.heuristics call (`tune = triton.autotune(...)`, then `@tune`)
/// replaced by that call.
std::vector<const ast::Expr *> resolvedDecorators(const ast::Stmt &def, const ast::Module *module);
/// Whether `expr` calls a plain function of `module` that returns a triton.autotune or
/// triton.heuristics decorator (GaLore's `get_autotuner()`, `_autotuner(configs)`): a decorator
/// that only evaluating the call gives.
bool isDecoratorMakerCall(const ast::Expr &expr, const ast::Module &module);
/// The @triton.jit functions defined inside the module's top-level `if`/`else` and `try` blocks
/// (`if has_triton(): @triton.jit def k(...)`), nested ones included, in source order.
std::vector<const ast::Stmt *> conditionalJitFunctions(const ast::Module &module);
/// The definition of kernel `request.name` that Python would bind: a top-level @triton.jit
/// function, or one inside module-level `if`/`try` blocks, whose conditions are then evaluated
/// as for any module-level name (an error when the branch taken defines no such kernel), or the
/// kernel that a module-level `name = tuned(kernel)` wraps (decoratedByCall). Null when the
/// module defines no kernel of that name anywhere.
const ast::Stmt *findKernel(const ast::Module &module, const SourceManager &sources,
                            const KernelRequest &request);
/// findKernel's kernel, else one in a class body or nested in a function (by its name or
/// qualified name, as -k finds them), whose decorators (@triton.autotune...) the driver reads.
const ast::Stmt *findAnyKernel(const ast::Module &module, const SourceManager &sources,
                               const KernelRequest &request);
/// Whether a parameter annotation makes it a compile-time constant (`tl.constexpr`).
bool isConstexprAnnotation(const ast::Expr *annotation);

/// Finds a `# tilec: -s "SIG"` style signature comment directly above a kernel's decorators, so
/// that `tilec file.tl -o out.ptx` can compile kernels whose signature lives in the source.
/// Returns nullopt when there is none.
std::optional<std::string> signatureFromSource(const SourceManager &sources,
                                               const ast::Stmt &kernel);

/// Specialises `request.name` and appends the function to `out`. Errors (an unknown kernel, a
/// signature that does not match, any semantic error in the kernel) are reported through
/// `sources.error`, which throws CompileError.
tir::Function &specializeKernel(const ast::Module &module, const SourceManager &sources,
                                const KernelRequest &request, tir::Module &out);

} // namespace tilec::sema
