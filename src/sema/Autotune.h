// @triton.autotune and @triton.heuristics: what a kernel's decorators ask to compile.
//
//   @triton.autotune(configs=[triton.Config({'BLOCK_SIZE': 1024}, num_warps=4),
//                             triton.Config({'BLOCK_SIZE': 2048}, num_warps=8, num_stages=2)],
//                    key=['n_elements'])
//   @triton.jit
//   def add_kernel(x_ptr, y_ptr, output_ptr, n_elements, BLOCK_SIZE: tl.constexpr): ...
//
// compiles to one variant per config (the driver specialises the kernel once per config, with the
// config's values bound like -D and its num_warps/num_stages); the runtime times the variants for
// each value of the key and keeps the fastest (runtime/README.md).
//
// Ahead of time there are no argument values: a @triton.heuristics value that is a constant binds
// its name in every variant; one that is a function of the arguments is left out here, and sema
// computes it where every argument it reads is a constexpr bound by then (specializeKernel), else
// its name is bound like any constexpr (in the signature or with -D). prune_configs_by runs ahead
// of time over the arguments the signature and -D give (pruneConfigs); restore_value,
// reset_to_zero and the other run-time options of @triton.autotune are accepted and ignored.
#pragma once

#include "frontend/AST.h"
#include "frontend/SourceManager.h"

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace tilec::sema {

struct KernelRequest;

/// The most warps a config may ask for. Triton takes any power of two (Intel's backend runs 64
/// warps of 16 lanes); on NVIDIA a block holds at most kMaxBlockWarps, and a config over it fails
/// to compile, which the autotuner skips (the driver does so too).
inline constexpr int64_t kMaxConfigWarps = 1024;
inline constexpr unsigned kMaxBlockWarps = 32;

struct AutotuneConfig {
  /// The config's constexpr bindings (dict entries, then heuristics), as -D NAME=VALUE texts.
  std::vector<std::pair<std::string, std::string>> constexprs;
  unsigned numWarps = 4;
  unsigned numStages = 3;
  /// triton.Config's maxnreg (registers per thread, .maxnreg); 0 where the config gives none.
  unsigned maxRegisters = 0;
  /// Where the config's pre_hook sets a descriptor argument's block_shape
  /// (`nargs["a_desc"].block_shape = [BLOCK_M, BLOCK_K]`); invalid where it does not.
  SourceLoc preHookSetsBlockShape;
};

struct AutotuneSpec {
  /// True when the kernel has @triton.autotune: then every config is a variant. Otherwise there is
  /// one config, holding only the heuristics' bindings (possibly none) and the defaults.
  bool autotuned = false;
  std::vector<AutotuneConfig> configs;
  /// The autotune key: names of the kernel's parameters whose values select a variant.
  std::vector<std::string> key;
};

/// Reads the decorators of `kernel` (a FunctionDef). `defaultWarps`/`defaultStages` are the
/// command line's, used where a config does not give them (Triton's defaults are 4 and 3).
/// Errors (a config that is not a literal dict, a key that is not a parameter, a heuristic that
/// is a lambda...) are reported through `sources.error`, which throws CompileError.
/// `module`, when given, is the kernel's module: `configs=NAME` then reads the list literal that
/// its one module-level assignment to NAME binds (`configs = [triton.Config(...), ...]`). With
/// `context` too (what the kernel is compiled with: its imports, the target), `configs=` is
/// evaluated as Python evaluates it when the module is imported, whatever computes it (a
/// function returning a list, a comprehension over block sizes, values that are names).
/// `byCall` are the autotune and heuristics calls that module-level code applies to it by call
/// (decoratedByCall), read after its own decorators.
AutotuneSpec readAutotune(const ast::Stmt &kernel, const SourceManager &sources,
                          unsigned defaultWarps, unsigned defaultStages,
                          const ast::Module *module = nullptr,
                          const KernelRequest *context = nullptr,
                          const std::vector<const ast::Expr *> &byCall = {});

/// Whether a @triton.heuristics of `kernel` (its decorators, then `byCall`) computes `name` from
/// the launch's arguments (a lambda or a named function), which only a signature or -D can bind
/// ahead of time.
bool isRuntimeHeuristic(const ast::Stmt &kernel, const SourceManager &sources,
                        const std::string &name, const std::vector<const ast::Expr *> &byCall,
                        const ast::Module *module);

/// One @triton.heuristics entry: the constexpr it computes and its value's expression.
struct HeuristicEntry {
  std::string name;
  const ast::Expr *value;
  /// Whether an @triton.autotune decorator wraps it: it then runs after the config's values are
  /// bound, and a key it shares with the config is its to set.
  bool belowAutotune = false;
};

/// The @triton.heuristics entries of `kernel` (its decorators, those held in module-level
/// variables included, and `byCall`), in the order Triton's launcher computes them: the
/// outermost decorator first, each dict in its order; each sees the values before it.
std::vector<HeuristicEntry> heuristicEntries(const ast::Stmt &kernel, const ast::Module *module,
                                             const std::vector<const ast::Expr *> &byCall);

/// The constant values of the @triton.heuristics of `kernel` (its decorators, then `byCall`:
/// `{"TWICE": 2}`), as readAutotune adds them to each config; its functions of the arguments are
/// specializeKernel's to compute.
std::vector<std::pair<std::string, std::string>>
constantHeuristics(const ast::Stmt &kernel, const SourceManager &sources, const ast::Module *module,
                   const std::vector<const ast::Expr *> &byCall);

/// Whether `signature` and `defines` bind every tl.constexpr parameter of `kernel` that has no
/// default (those left out take their defaults), and it has at least one. Then a config has
/// nothing left to choose but num_warps and num_stages, which the command line gives: the driver
/// compiles that one specialisation, as Triton's AOT compiler does and as Triton's JIT does once
/// the autotuner picked a config, without reading the decorators (whose configs may be built by
/// code tilec does not evaluate, or by another project's autotuner, such as triton-dejavu's
/// `config_space=`). A constexpr that a @triton.heuristics of `kernel` (its decorators, then
/// `byCall`) computes above any autotune decorator counts as bound: Triton's launcher computes it
/// before the autotuner picks a config.
bool bindsEveryConstexpr(const ast::Stmt &kernel, const std::string &signature,
                         const std::vector<std::pair<std::string, std::string>> &defines,
                         const ast::Module *module = nullptr,
                         const std::vector<const ast::Expr *> &byCall = {});

} // namespace tilec::sema
