// Module-level names that stand for Triton's decorators, as projects wrap them:
//
//   triton_jit = try_decorate(lambda: triton.jit)      then  @triton_jit()
//   from triton import jit as tjit                            @tjit
//   TritonConfig = triton.Config                              TritonConfig({}, num_warps=8)
//   tl_constexpr = tl.constexpr                               n_cols: tl_constexpr
//
// Kernels are found by their decorators before any module-level code runs, so a decorator that
// only a project's own name holds would hide the kernel. A name is an alias of triton.jit (or
// triton.autotune, triton.heuristics, triton.Config, or Triton's constexpr class, which Python
// evaluates in an annotation) when its module-level value refers to that one and to no other of
// them, without applying it to a function (`f = triton.jit(g)` makes a kernel, not a decorator), or
// when it is imported (`from m import name`) from a module where it is one. A wrapper such as
// Fast-LLM's try_decorate returns what the decorator returns, which is what makes it the decorator
// on a host where Triton is installed. A decorator factory whose decorator hands the function to
// a class that writes its source out behind "@triton.jit" for Triton's ahead-of-time compiler
// (PaddleNLP's paddle_use_triton and KernelInterface) is an alias of triton.jit too.
#pragma once

#include "frontend/AST.h"

#include <string>

namespace tilec::sema {

class ModuleGraph;

/// Whether `def` is a project's own spelling of triton.autotune: a plain function whose first
/// parameters are triton.autotune's (`configs`, `key`) and that returns a decorator building
/// Triton's autotuner from them. generative-recommenders writes `def triton_autotune(configs, key,
/// prune_configs_by=None, ...)` returning `decorator(fn)`, which returns `Autotuner(fn,
/// fn.arg_names, configs, key, ...)`. Its other parameters are run-time options, as
/// triton.autotune's are to tilec.
bool isAutotuneWrapper(const ast::Stmt &def);

/// Whether `def` is a project's own spelling of triton.heuristics: a plain function of one
/// parameter `values` that returns a decorator building Triton's heuristics (or a copy of its
/// Heuristics class, as GaLore's custom_autotune has) from it.
bool isHeuristicsWrapper(const ast::Stmt &def);

/// Finds the aliases of every module of `graph` (replacing those of an earlier graph).
void computeDecoratorAliases(const ModuleGraph &graph);

/// The Triton decorator (or class) that the name `callee` stands for in the module it is written
/// in: "jit", "autotune", "heuristics", "Config" or "constexpr" (the annotation); empty when it is
/// no alias (or not a name).
std::string decoratorAlias(const ast::Expr &callee);

} // namespace tilec::sema
