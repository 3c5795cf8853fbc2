#include "sema/Specializer.h"

#include "sema/Autotune.h"
#include "sema/DecoratorAliases.h"
#include "sema/Sema.h"
#include "sema/Signature.h"
#include "sema/TypeRules.h"
#include "tir/Verifier.h"

#include <algorithm>
#include <cassert>
#include <cctype>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <functional>
#include <limits>
#include <set>
#include <sstream>
#include <utility>

namespace tilec::sema {

using tir::DType;
using tir::OpCode;
using tir::ScalarKind;
using tir::Type;

//===----------------------------------------------------------------------===//
// SemaValue
//===----------------------------------------------------------------------===//

bool SemaValue::sameAs(const SemaValue &other) const {
  if (kind != other.kind || intValue != other.intValue || intIsWide != other.intIsWide ||
      wideValue != other.wideValue || boolValue != other.boolValue || name != other.name ||
      !(dtype == other.dtype) || value != other.value || function != other.function ||
      userModule != other.userModule || isList != other.isList ||
      elems.size() != other.elems.size() || attributes != other.attributes)
    return false;
  // Floats by their bits: a NaN constant stays the same value.
  if (std::memcmp(&floatValue, &other.floatValue, sizeof floatValue) != 0)
    return false;
  for (size_t i = 0; i < elems.size(); ++i)
    if (!elems[i].sameAs(other.elems[i]))
      return false;
  return true;
}

std::string SemaValue::repr() const {
  switch (kind) {
  case Kind::None:
    return "None";
  case Kind::Int:
    return intIsWide ? wideIntToString(wideValue) : std::to_string(intValue);
  case Kind::Float: {
    std::ostringstream os;
    os.precision(17);
    os << floatValue;
    std::string s = os.str();
    if (s.find_first_of(".eEn") == std::string::npos)
      s += ".0";
    return s;
  }
  case Kind::Bool:
    return boolValue ? "True" : "False";
  case Kind::String:
    return "'" + name + "'";
  case Kind::DType:
    if (isBlockType() || isBlockPointerType()) {
      // Triton 3.6's block_type.__str__, its shape a tuple: <(64, 32), fp16>, <(16,), fp32>.
      std::string shape;
      for (size_t i = 0; i < elems.size(); ++i)
        shape += (i ? ", " : "") + elems[i].repr();
      shape = "(" + shape + (elems.size() == 1 ? ",)" : ")");
      if (isBlockPointerType())
        return "pointer<<" + shape + ", " + dtype.pointeeType().tritonName() + ">>";
      return "<" + shape + ", " + dtype.tritonName() + ">";
    }
    return dtype.tritonName();
  case Kind::Tuple: {
    if (!name.empty()) { // a NamedTuple: Tensor(ptr=..., shape=(16, 16))
      std::vector<NamedTupleField> fields;
      if (function)
        fields = namedTupleFields(*function);
      std::string s = name + "(";
      for (size_t i = 0; i < elems.size(); ++i)
        s += (i ? ", " : "") + (i < fields.size() ? fields[i].name + "=" : "") + elems[i].repr();
      return s + ")";
    }
    std::string s = isList ? "[" : "(";
    for (size_t i = 0; i < elems.size(); ++i)
      s += (i ? ", " : "") + elems[i].repr();
    if (isList)
      return s + "]";
    return s + (elems.size() == 1 ? ",)" : ")");
  }
  default:
    return describe();
  }
}

std::string SemaValue::describe() const {
  switch (kind) {
  case Kind::None:
    return "None";
  case Kind::Int:
  case Kind::Float:
  case Kind::Bool:
    return "the constant " + repr();
  case Kind::String:
    return "a string";
  case Kind::DType:
    return (isBlockType() ? "the block type " : "the dtype ") + repr();
  case Kind::Tuple:
    return isList ? "a list" : "a tuple";
  case Kind::Tensor:
    return value->type().isScalar() ? "a scalar of type " + value->type().elem.tritonName()
                                    : "a tensor of type " + value->type().str();
  case Kind::Module:
    return "module '" + name + "'";
  case Kind::JitFunction:
    return "the @triton.jit function '" + function->name + "'";
  case Kind::BlockPtr:
    return "a block pointer";
  case Kind::TensorDesc:
    return "a tensor descriptor";
  case Kind::Builtin:
    return "the function '" + name + "'";
  case Kind::Slice:
    return "a slice";
  case Kind::Object:
    if (name == "unknown host value")
      return "a value tilec cannot know at compile time (" + elems[0].name + ")";
    return "a " + name.substr(name.rfind('.') + 1) + " object";
  }
  return "a value";
}

std::string dottedName(const ast::Expr &expr) {
  if (expr.kind == ast::ExprKind::Name)
    return expr.name;
  if (expr.kind == ast::ExprKind::Attribute) {
    std::string base = dottedName(*expr.operands[0]);
    return base.empty() ? "" : base + "." + expr.name;
  }
  return "";
}

//===----------------------------------------------------------------------===//
// Module-level names
//===----------------------------------------------------------------------===//

static bool isJitDecorator(const ast::Expr &decorator) {
  const ast::Expr *callee = &decorator;
  if (callee->kind == ast::ExprKind::Call)
    callee = callee->operands[0].get();
  std::string name = dottedName(*callee);
  return name == "jit" || name == "triton.jit" || decoratorAlias(*callee) == "jit";
}

/// Whether the kernel is decorated `@triton.jit(debug=True)` (Triton's debug mode for it alone).
static bool jitDebugFlag(const ast::Stmt &kernel) {
  for (const ast::ExprPtr &d : kernel.decorators) {
    if (d->kind != ast::ExprKind::Call || !isJitDecorator(*d))
      continue;
    for (const ast::Keyword &k : d->keywords)
      if (k.name == "debug" && k.value && k.value->kind == ast::ExprKind::BoolLit)
        return k.value->boolValue;
  }
  return false;
}

/// `@triton.constexpr_function` (Triton 3.5 on), `@tl.constexpr_function`, or the older
/// `@tl.constexpr` on a Python function: kernels may call it, and it runs at compile time.
static bool isConstexprFunctionDecorator(const ast::Expr &decorator) {
  std::string name = dottedName(decorator);
  std::string last = name.substr(name.rfind('.') + 1);
  return last == "constexpr_function" || last == "constexpr";
}

/// DecoratorVariables' key of a function of the module that returns a tuning decorator.
static const std::string kMakerPrefix = "maker:";

static bool returnsTuningDecorator(const ast::Stmt &def);

bool isDecoratorMakerCall(const ast::Expr &expr, const ast::Module &module) {
  if (expr.kind != ast::ExprKind::Call || expr.operands[0]->kind != ast::ExprKind::Name)
    return false;
  const std::string &name = expr.operands[0]->name;
  for (const ast::StmtPtr &stmt : module.body)
    if (stmt->kind == ast::StmtKind::FunctionDef && stmt->name == name)
      return returnsTuningDecorator(*stmt);
  return false;
}

/// Whether `expr` calls one of `makers`, the module's functions that return a tuning decorator.
static bool isComputedDecorator(const ast::Expr &expr, const std::set<std::string> &makers) {
  return expr.kind == ast::ExprKind::Call && expr.operands[0]->kind == ast::ExprKind::Name &&
         makers.count(expr.operands[0]->name);
}

/// Whether `expr` calls triton.autotune or triton.heuristics: the decorator they return. As for
/// a decorator (Autotune.cpp reads any `X.autotune(...)`), the last name decides, so that a
/// project's own autotuner with Triton's arguments (GPTQModel's
/// `custom_autotune.autotune(configs=..., key=...)(kernel)`) is read like triton.autotune.
static bool isTuningDecoratorCall(const ast::Expr &expr) {
  if (expr.kind != ast::ExprKind::Call)
    return false;
  std::string wrapper = dottedName(*expr.operands[0]);
  std::string last = wrapper.substr(wrapper.rfind('.') + 1);
  if (std::string alias = decoratorAlias(*expr.operands[0]); !alias.empty())
    last = alias;
  return last == "heuristics" || last == "autotune";
}

/// Whether `def`, a plain function, returns a decorator that triton.autotune or triton.heuristics
/// (or a project's spelling of them) makes: `return heuristics({...})`, or a local name bound to
/// one (`autotuner = autotune(configs=configs, key=key)` then `return autotuner`), as GaLore's
/// get_autotuner() and get_mm_heuristics() do.
static bool returnsTuningDecorator(const ast::Stmt &def) {
  if (def.kind != ast::StmtKind::FunctionDef || !def.decorators.empty())
    return false;
  std::set<std::string> holders;
  bool returns = false;
  std::function<void(const ast::StmtList &)> visit = [&](const ast::StmtList &stmts) {
    for (const ast::StmtPtr &stmt : stmts) {
      if (stmt->kind == ast::StmtKind::Assign && stmt->targets.size() == 1 &&
          stmt->targets[0]->kind == ast::ExprKind::Name && stmt->value &&
          isTuningDecoratorCall(*stmt->value))
        holders.insert(stmt->targets[0]->name);
      if (stmt->kind == ast::StmtKind::Return && stmt->value &&
          (isTuningDecoratorCall(*stmt->value) ||
           (stmt->value->kind == ast::ExprKind::Name && holders.count(stmt->value->name))))
        returns = true;
      if (stmt->kind == ast::StmtKind::If) {
        visit(stmt->body);
        visit(stmt->orelse);
      }
    }
  };
  visit(def.body);
  return returns;
}

/// The triton.autotune and triton.heuristics calls that module-level names hold, as SGLang keeps
/// one decorator for several kernels (`fp8_autotune = triton.autotune(configs=..., key=...)`):
/// each name's one module-level assignment (a name assigned more than once is left out). A call
/// of a function of the module that returns such a decorator (`_autotuner = get_autotuner()`)
/// is held too: the decorator is what evaluating the call gives (a computed decorator).
static DecoratorVariables decoratorVariables(const ast::Module &module) {
  DecoratorVariables variables;
  std::set<std::string> assigned;
  std::set<std::string> makers;
  for (const ast::StmtPtr &stmt : module.body)
    if (returnsTuningDecorator(*stmt)) {
      makers.insert(stmt->name);
      // Named so that no decorator's name finds it: decoratorCallTarget reads a call of one
      // (`_autotuner(configs)(kernel)`) as a decorator.
      variables[kMakerPrefix + stmt->name] = nullptr;
    }
  forEachModuleLevelStatement(module.body, [&](const ast::Stmt &stmt, bool) {
    if ((stmt.kind != ast::StmtKind::Assign && stmt.kind != ast::StmtKind::AnnAssign) ||
        stmt.targets.size() != 1 || stmt.targets[0]->kind != ast::ExprKind::Name || !stmt.value)
      return;
    const std::string &name = stmt.targets[0]->name;
    if (!assigned.insert(name).second) {
      variables.erase(name);
      return;
    }
    if (isTuningDecoratorCall(*stmt.value) || isComputedDecorator(*stmt.value, makers))
      variables[name] = stmt.value.get();
  });
  return variables;
}

std::vector<const ast::Expr *> resolvedDecorators(const ast::Stmt &def, const ast::Module *module) {
  std::vector<const ast::Expr *> result;
  std::optional<DecoratorVariables> variables;
  for (const ast::ExprPtr &decorator : def.decorators) {
    if (decorator->kind != ast::ExprKind::Name || !module) {
      result.push_back(decorator.get());
      continue;
    }
    if (!variables)
      variables = decoratorVariables(*module);
    auto held = variables->find(decorator->name);
    result.push_back(held == variables->end() ? decorator.get() : held->second);
  }
  return result;
}

/// The name a module-level value wraps when it applies Triton's decorators by call, as
/// unsloth writes its kernels: `f = triton.jit(f)`, `f = triton.heuristics({...})(f)`,
/// `triton.autotune(...)(triton.jit(f))`, or through a decorator that the module keeps in a
/// variable (`f = fp8_autotune(f)`, `variables` from decoratorVariables). `sawJit` tells whether
/// triton.jit is among them; `decorators`, when given, receives the autotune and heuristics
/// calls, outermost first. Empty when the value is anything else.
static std::string decoratorCallTarget(const ast::Expr &value, bool &sawJit,
                                       const DecoratorVariables *variables = nullptr,
                                       std::vector<const ast::Expr *> *decorators = nullptr) {
  if (value.kind == ast::ExprKind::Name)
    return value.name;
  if (value.kind != ast::ExprKind::Call || value.operands.size() != 2 || !value.keywords.empty())
    return "";
  const ast::Expr &callee = *value.operands[0];
  if (isJitDecorator(callee) && callee.kind != ast::ExprKind::Call) {
    sawJit = true;
    return decoratorCallTarget(*value.operands[1], sawJit, variables, decorators);
  }
  const ast::Expr *decorator = nullptr;
  if (isTuningDecoratorCall(callee)) {
    decorator = &callee;
  } else if (callee.kind == ast::ExprKind::Name && variables) {
    auto held = variables->find(callee.name);
    decorator = held == variables->end() ? nullptr : held->second;
  } else if (callee.kind == ast::ExprKind::Call && variables &&
             callee.operands[0]->kind == ast::ExprKind::Name &&
             variables->count(kMakerPrefix + callee.operands[0]->name)) {
    // `_autotuner(configs)(kernel)`: the decorator a function of the module returns.
    decorator = &callee;
  }
  if (!decorator)
    return "";
  if (decorators)
    decorators->push_back(decorator);
  return decoratorCallTarget(*value.operands[1], sawJit, variables, decorators);
}

bool isJitDefinition(const ast::Stmt &stmt) {
  return stmt.kind == ast::StmtKind::FunctionDef &&
         std::any_of(stmt.decorators.begin(), stmt.decorators.end(),
                     [](const ast::ExprPtr &d) { return isJitDecorator(*d); });
}

/// The function that a module-level `name = ...(f)` wraps through Triton's decorators (see
/// decoratorCallTarget), or empty. `decorators` as there.
static std::string decoratedFunction(const ast::Stmt &stmt, bool &sawJit,
                                     const DecoratorVariables *variables,
                                     std::vector<const ast::Expr *> *decorators = nullptr) {
  if ((stmt.kind != ast::StmtKind::Assign && stmt.kind != ast::StmtKind::AnnAssign) ||
      stmt.targets.size() != 1 || stmt.targets[0]->kind != ast::ExprKind::Name || !stmt.value ||
      stmt.value->kind != ast::ExprKind::Call)
    return "";
  return decoratorCallTarget(*stmt.value, sawJit, variables, decorators);
}

/// The name of a function that a module-level `f = ...(f)` rebinds through Triton's decorators
/// (see decoratorCallTarget), or empty.
static std::string redecoratedName(const ast::Stmt &stmt, bool &sawJit,
                                   const DecoratorVariables *variables) {
  std::string target = decoratedFunction(stmt, sawJit, variables);
  return !target.empty() && target == stmt.targets[0]->name ? target : "";
}

/// The body of the function that encloses a kernel named by its qualified name
/// (`test_x.<locals>.kernel`, `TestCase.test_x.<locals>.kernel`): the last function of the path,
/// found where the path's scopes lead; null for a plain name or where none is found.
static const ast::StmtList *enclosingBody(const ast::Module &module, const std::string &name,
                                          std::string &kernelName) {
  std::vector<std::string> path;
  for (size_t start = 0;;) {
    size_t dot = name.find('.', start);
    std::string part = name.substr(start, dot == std::string::npos ? dot : dot - start);
    if (part != "<locals>")
      path.push_back(part);
    if (dot == std::string::npos)
      break;
    start = dot + 1;
  }
  if (path.size() < 2)
    return nullptr;
  kernelName = path.back();
  path.pop_back();
  const ast::StmtList *body = &module.body;
  for (const std::string &scope : path) {
    const ast::StmtList *next = nullptr;
    for (const ast::StmtPtr &st : *body) {
      bool isClass = st->kind == ast::StmtKind::Unsupported && st->name == "class definition" &&
                     !st->targets.empty() && st->targets[0]->name == scope;
      if ((st->kind == ast::StmtKind::FunctionDef && st->name == scope) || isClass)
        next = &st->body;
    }
    if (!next)
      return nullptr;
    body = next;
  }
  return body == &module.body ? nullptr : body;
}

/// The functions that a function body applies triton.jit to by call (`k = triton.jit(f)`,
/// `k = triton.autotune(...)(triton.jit(f))`): each bound name, to the function it wraps.
static std::map<std::string, std::string> jittedByCallIn(const ast::StmtList &body) {
  std::map<std::string, std::string> result;
  forEachModuleLevelStatement(body, [&](const ast::Stmt &stmt, bool) {
    bool sawJit = false;
    std::string function = decoratedFunction(stmt, sawJit, nullptr);
    if (function.empty())
      return;
    const std::string &target = stmt.targets[0]->name;
    // `k = triton.autotune(...)(k)` after `k = triton.jit(f)` wraps the same function.
    auto earlier = result.find(function);
    if (earlier != result.end())
      result[target] = earlier->second;
    else if (sawJit)
      result[target] = function;
  });
  return result;
}

DecoratedByCall decoratedByCall(const ast::Module &module, const std::string &name) {
  DecoratedByCall result;
  DecoratorVariables variables = decoratorVariables(module);
  // A kernel nested in a function is decorated by the calls of that function's body, as
  // PyTorch's tests write `kernel = triton.autotune(configs=..., key=...)(kernel)`.
  std::string local = name;
  const ast::StmtList *body = enclosingBody(module, name, local);
  if (!body)
    body = &module.body;
  forEachModuleLevelStatement(*body, [&](const ast::Stmt &stmt, bool) {
    if (stmt.targets.size() != 1 || stmt.targets[0]->kind != ast::ExprKind::Name ||
        stmt.targets[0]->name != local)
      return;
    bool sawJit = false;
    std::vector<const ast::Expr *> decorators;
    std::string function = decoratedFunction(stmt, sawJit, &variables, &decorators);
    if (function.empty() && stmt.value && stmt.value->kind == ast::ExprKind::Call &&
        std::any_of(stmt.value->operands.begin() + 1, stmt.value->operands.end(),
                    [&](const ast::ExprPtr &arg) {
                      return arg->kind == ast::ExprKind::Name && arg->name == local;
                    })) {
      result.unread.push_back(&stmt);
      return;
    }
    // `a = b` alone is no decoration.
    if (function.empty() || (decorators.empty() && !sawJit))
      return;
    // `f = triton.jit(f)`, then `f = triton.heuristics({...})(f)`: each statement wraps what
    // the one before bound, so its decorators run first at a launch (outermost first).
    if (!result.function.empty() && function == local) {
      result.decorators.insert(result.decorators.begin(), decorators.begin(), decorators.end());
      return;
    }
    if (!result.function.empty())
      return;
    result.function = function;
    result.decorators = std::move(decorators);
  });
  return result;
}

std::vector<const ast::Stmt *> jitFunctions(const ast::Module &module) {
  // A function is a kernel when @triton.jit decorates it, or when module-level code applies
  // triton.jit to it by call (`f = triton.jit(f)`), as Python runs decorators.
  std::set<std::string> jittedByCall;
  DecoratorVariables variables = decoratorVariables(module);
  for (const ast::StmtPtr &stmt : module.body) {
    bool sawJit = false;
    std::string name = redecoratedName(*stmt, sawJit, &variables);
    if (!name.empty() && sawJit)
      jittedByCall.insert(name);
  }
  std::vector<const ast::Stmt *> result;
  for (const ast::StmtPtr &stmt : module.body) {
    if (stmt->kind != ast::StmtKind::FunctionDef)
      continue;
    if (jittedByCall.count(stmt->name) || isJitDefinition(*stmt))
      result.push_back(stmt.get());
  }
  return result;
}

static void visitModuleLevel(const ast::StmtList &stmts, bool nested,
                             const std::function<void(const ast::Stmt &, bool nested)> &visit) {
  for (const ast::StmtPtr &stmt : stmts) {
    visit(*stmt, nested);
    if (stmt->kind == ast::StmtKind::If) {
      visitModuleLevel(stmt->body, true, visit);
      visitModuleLevel(stmt->orelse, true, visit);
    } else if (stmt->kind == ast::StmtKind::Unsupported && stmt->name == "try statement") {
      visitModuleLevel(stmt->body, true, visit);
      for (const ast::ExceptHandler &handler : stmt->handlers)
        visitModuleLevel(handler.body, true, visit);
      visitModuleLevel(stmt->orelse, true, visit);
      visitModuleLevel(stmt->finalbody, true, visit);
    } else if (stmt->kind == ast::StmtKind::Match) {
      for (const ast::MatchCase &matchCase : stmt->cases)
        visitModuleLevel(matchCase.body, true, visit);
    }
  }
}

void forEachModuleLevelStatement(const ast::StmtList &stmts,
                                 const std::function<void(const ast::Stmt &, bool nested)> &visit) {
  visitModuleLevel(stmts, false, visit);
}

std::vector<const ast::Stmt *> conditionalJitFunctions(const ast::Module &module) {
  std::vector<const ast::Stmt *> result;
  forEachModuleLevelStatement(module.body, [&](const ast::Stmt &stmt, bool nested) {
    if (nested && isJitDefinition(stmt))
      result.push_back(&stmt);
  });
  return result;
}

static const ast::Stmt *findKernelDefinition(const ast::Module &module,
                                             const SourceManager &sources,
                                             const KernelRequest &request);
static const ast::Stmt *classKernel(const ast::Module &module, const SourceManager &sources,
                                    const std::string &name);
static const ast::Stmt *nestedKernel(const ast::Module &module, const SourceManager &sources,
                                     const std::string &name,
                                     const std::map<std::string, std::string> &defines,
                                     std::map<std::string, const ast::Stmt *> &closureFunctions,
                                     std::map<std::string, const ast::Stmt *> &closureImports,
                                     bool findOnly);

const ast::Stmt *findKernel(const ast::Module &module, const SourceManager &sources,
                            const KernelRequest &request) {
  if (const ast::Stmt *kernel = findKernelDefinition(module, sources, request))
    return kernel;
  // `tuned_kernel = rmsnorm_autotune(kernel)`: the kernel it wraps, under the new name.
  DecoratedByCall byCall = decoratedByCall(module, request.name);
  if (byCall.function.empty() || byCall.function == request.name)
    return nullptr;
  KernelRequest wrapped = request;
  wrapped.name = byCall.function;
  return findKernelDefinition(module, sources, wrapped);
}

const ast::Stmt *findAnyKernel(const ast::Module &module, const SourceManager &sources,
                               const KernelRequest &request) {
  if (const ast::Stmt *kernel = findKernel(module, sources, request))
    return kernel;
  if (const ast::Stmt *kernel = classKernel(module, sources, request.name))
    return kernel;
  std::map<std::string, const ast::Stmt *> functions, imports;
  return nestedKernel(module, sources, request.name, {}, functions, imports, /*findOnly=*/true);
}

static const ast::Stmt *findKernelDefinition(const ast::Module &module,
                                             const SourceManager &sources,
                                             const KernelRequest &request) {
  // A name defined twice at module level (a kernel rewritten below its first version) is bound
  // by its last definition when Python has run the module, as the kernels that call it read it.
  const ast::Stmt *lastDefinition = nullptr;
  for (const ast::Stmt *f : jitFunctions(module))
    if (f->name == request.name)
      lastDefinition = f;
  if (lastDefinition)
    return lastDefinition;
  const std::vector<const ast::Stmt *> nested = conditionalJitFunctions(module);
  auto candidate = std::find_if(nested.begin(), nested.end(),
                                [&](const ast::Stmt *f) { return f->name == request.name; });
  if (candidate == nested.end())
    return nullptr;
  // Which definition Python binds depends on the module-level code around it: ask a
  // specializer of a scratch function, which evaluates the `if`s (and `try`s) as for any
  // module-level name a kernel uses.
  tir::Module scratch;
  tir::Function *probe = scratch.addFunction(request.name, (*candidate)->loc);
  Specializer specializer(module, sources, *probe, request.stdlib, request.imports);
  specializer.setTargetArch(request.arch);
  specializer.setTorchBuild(request.torch);
  // -D binds a module-level name for the condition too (`if has_triton_op:` computed by a
  // library tilec does not have), as it does for the kernel's own reads.
  specializer.overrideModuleConstants(**candidate, request.defines);
  const ast::Stmt *kernel = specializer.moduleLevelKernel(request.name, (*candidate)->loc);
  if (!kernel)
    sources.error((*candidate)->loc,
                  "'" + request.name +
                      "' is a @triton.jit function only on a path of module-level code that "
                      "Python does not take on the host tilec compiles for (--arch " +
                      request.arch + ")");
  return kernel;
}

Specializer::Specializer(const ast::Module &module, const SourceManager &sources,
                         tir::Function &function, const std::vector<const ast::Module *> &stdlib,
                         const ModuleGraph *imports)
    : module_(module), sources_(sources), function_(function), builder_(function.body()),
      graph_(imports) {
  // The stdlib first: the user's `from triton.language import cdiv` resolves into it.
  collectStdlib(stdlib);
  modules_.resize(graph_ ? graph_->modules.size() : 1);
  modules_[0].ast = &module_;
  for (size_t i = 1; i < modules_.size(); ++i)
    modules_[i].ast = graph_->modules[i].ast;
  ensureCollected(0);
}

void Specializer::loadModule(size_t index) {
  if (!graph_ || index == 0 || modules_[index].collected)
    return;
  graph_->ensureLoaded(static_cast<int>(index));
  syncModules();
}

void Specializer::syncModules() {
  // Loading a module may have found more modules, and loaded those it imports names from.
  if (modules_.size() < graph_->modules.size())
    modules_.resize(graph_->modules.size());
  for (size_t i = 1; i < modules_.size(); ++i)
    if (!modules_[i].ast)
      modules_[i].ast = graph_->modules[i].ast;
}

void Specializer::ensureCollected(size_t index) {
  loadModule(index);
  ModuleState &state = modules_[index];
  if (state.collected)
    return;
  state.collected = true;
  if (!state.ast)
    return; // a namespace package: only submodules
  // Imported modules bind their names lazily, on first use: an import in a helper file that no
  // kernel needs is not evaluated, as for the kernel file's own module-level code.
  size_t saved = current_;
  current_ = index;
  try {
    collectGlobals(state.ast->body);
  } catch (...) {
    current_ = saved;
    throw;
  }
  current_ = saved;
}

Specializer::ModuleSwitch::ModuleSwitch(Specializer &s, size_t module, bool newScope)
    : s(s), savedModule(s.current_), savedInStdlib(s.inStdlib_), newScope(newScope) {
  s.ensureCollected(module);
  s.current_ = module;
  s.inStdlib_ = false;
  if (newScope)
    s.scopes_.push_back(Scope{});
}

Specializer::ModuleSwitch::~ModuleSwitch() {
  if (newScope)
    s.scopes_.pop_back();
  s.current_ = savedModule;
  s.inStdlib_ = savedInStdlib;
}

SemaValue Specializer::moduleGetattr(int index, const std::string &attr, SourceLoc loc) {
  // PEP 562: Python asks a module's own __getattr__ for a name the module does not define
  // (vLLM's vllm.platforms makes current_platform so, probing the machine when first asked).
  const std::string &moduleName = graph_->modules[static_cast<size_t>(index)].name;
  std::string message = "'" + attr + "' is not defined in module '" + moduleName +
                        "': Python asks the module's __getattr__ for it, which tilec ran here";
  try {
    ModuleSwitch in(*this, static_cast<size_t>(index), /*newScope=*/true);
    SemaValue getattr = lookup("__getattr__", loc);
    if (getattr.kind != SemaValue::Kind::Builtin || !getattr.function ||
        getattr.name.rfind("pyfunc:", 0) != 0)
      error(loc, "module '" + moduleName + "' has no attribute '" + attr +
                     "' and its __getattr__ is not a function tilec can run");
    CallArgs args{{SemaValue::ofString(attr)}, {}, loc};
    ++moduleLevelDepth_;
    try {
      SemaValue value = callHostFunction(*getattr.function, args);
      --moduleLevelDepth_;
      return value;
    } catch (...) {
      --moduleLevelDepth_;
      throw;
    }
  } catch (const CompileError &e) {
    rethrowWithNote(e, loc, message);
  }
}

/// The module-level class statement that binds `name`, if any: tilec evaluates no class but a
/// typing.NamedTuple one, so the name is unbound where Python binds it.
static const ast::Stmt *classStatement(const ast::StmtList &stmts, const std::string &name) {
  const ast::Stmt *found = nullptr;
  forEachModuleLevelStatement(stmts, [&](const ast::Stmt &stmt, bool) {
    if (!found && stmt.kind == ast::StmtKind::Unsupported && stmt.name == "class definition" &&
        !stmt.targets.empty() && stmt.targets[0]->name == name)
      found = &stmt;
  });
  return found;
}

/// The module-level `with` statement whose body assigns `name`, if any.
static const ast::Stmt *moduleLevelWithBinding(const ast::StmtList &stmts,
                                               const std::string &name) {
  const ast::Stmt *found = nullptr;
  forEachModuleLevelStatement(stmts, [&](const ast::Stmt &stmt, bool) {
    if (found || stmt.kind != ast::StmtKind::Unsupported || stmt.name != "with statement")
      return;
    for (const ast::StmtPtr &inner : stmt.body)
      if (inner->kind == ast::StmtKind::Assign || inner->kind == ast::StmtKind::AnnAssign)
        for (const ast::ExprPtr &target : inner->targets)
          if (target->kind == ast::ExprKind::Name && target->name == name)
            found = &stmt;
  });
  return found;
}

std::optional<SemaValue> Specializer::classConstant(const std::string &className,
                                                    const std::string &attr) {
  if (!mod().ast)
    return std::nullopt;
  const ast::Stmt *cls = classStatement(mod().ast->body, className);
  // No bases (whose metaclass could make the attribute something else) and no decorator but
  // dataclass, which leaves a field's default as the class attribute.
  if (!cls || cls->value)
    return std::nullopt;
  for (const ast::ExprPtr &decorator : cls->decorators) {
    const ast::Expr &callee =
        decorator->kind == ast::ExprKind::Call ? *decorator->operands[0] : *decorator;
    std::string name = dottedName(callee);
    if (name != "dataclass" && name != "dataclasses.dataclass")
      return std::nullopt;
  }
  // The class body runs in order: the last assignment of the name wins. Only bodies of
  // assignments, definitions and docstrings are read.
  const ast::Expr *value = nullptr;
  for (const ast::StmtPtr &member : cls->body) {
    switch (member->kind) {
    case ast::StmtKind::Assign:
    case ast::StmtKind::AnnAssign:
      for (const ast::ExprPtr &target : member->targets)
        if (target->kind == ast::ExprKind::Name && target->name == attr)
          value = member->value.get();
      break;
    case ast::StmtKind::FunctionDef:
      if (member->name == attr)
        return std::nullopt;
      break;
    case ast::StmtKind::ExprStmt:
    case ast::StmtKind::Pass:
      break;
    default:
      return std::nullopt;
    }
  }
  if (!value)
    return std::nullopt;
  // A literal, which reads no name of the class's own scope.
  const ast::Expr *literal = value;
  if (literal->kind == ast::ExprKind::UnaryOp &&
      (literal->unaryOp == ast::UnaryOperator::Neg || literal->unaryOp == ast::UnaryOperator::Pos))
    literal = literal->operands[0].get();
  switch (literal->kind) {
  case ast::ExprKind::IntLit:
  case ast::ExprKind::FloatLit:
  case ast::ExprKind::BoolLit:
  case ast::ExprKind::NoneLit:
    return eval(*value);
  case ast::ExprKind::StringLit:
    if (!literal->isFString && literal == value)
      return eval(*value);
    return std::nullopt;
  default:
    return std::nullopt;
  }
}

void Specializer::refuseClass(const ast::Stmt &classStmt, const std::string &name, SourceLoc use) {
  std::string message = "class '" + name + "' defined here";
  try {
    error(use, "'" + name +
                   "' is a Python class, which tilec does not evaluate in module-level code "
                   "(only typing.NamedTuple classes, @dataclass classes, and classes with an "
                   "__init__ and no base but object); not supported yet");
  } catch (const CompileError &e) {
    rethrowWithNote(e, classStmt.loc, message);
  }
}

SemaValue Specializer::userModuleAttribute(int index, const std::string &attr, SourceLoc loc) {
  ensureCollected(static_cast<size_t>(index));
  const ModuleState &state = modules_[static_cast<size_t>(index)];
  const SourceModule &module = graph_->modules[static_cast<size_t>(index)];
  bool known = state.globals.count(attr) || state.pending.count(attr) ||
               state.conditional.count(attr) || state.imported.count(attr);
  const bool hasGetattr =
      state.globals.count("__getattr__") || state.conditional.count("__getattr__");
  if (known && hasGetattr && !state.globals.count(attr) && !state.pending.count(attr) &&
      !state.imported.count(attr)) {
    // Bound only under module-level `if`s: where none taken binds it (vLLM's envs declare each
    // variable under `if TYPE_CHECKING:`), Python asks the module's __getattr__.
    ModuleSwitch in(*this, static_cast<size_t>(index), /*newScope=*/true);
    for (auto c = mod().conditional.find(attr); c != mod().conditional.end();
         c = mod().conditional.find(attr))
      resolveModuleIf(*c->second, attr, loc);
    known = state.globals.count(attr) || state.pending.count(attr) || state.imported.count(attr);
  }
  if (!known) {
    // A submodule that some import loaded (`import pkg.mod` makes pkg.mod reachable).
    auto sub = module.submodules.find(attr);
    if (sub != module.submodules.end())
      return SemaValue::ofUserModule(module.name + "." + attr, sub->second);
    // One that an import in a module tilec did not read may have imported.
    if (int found = graph_->findSubmodule(index, attr); found >= 0) {
      syncModules();
      return SemaValue::ofUserModule(module.name + "." + attr, found);
    }
    if (hasGetattr)
      return moduleGetattr(index, attr, loc);
    if (state.ast)
      if (const ast::Stmt *cls = classStatement(state.ast->body, attr))
        refuseClass(*cls, attr, loc);
    error(loc, "module '" + module.name + "' (" + (module.path.empty() ? module.dir : module.path) +
                   ") has no attribute '" + attr + "'");
  }
  // Its module-level code sees its own names, not the caller's locals.
  ModuleSwitch in(*this, static_cast<size_t>(index), /*newScope=*/true);
  return lookup(attr, loc);
}

void Specializer::missingModuleError(int index, SourceLoc use) {
  const MissingImport &missing = graph_->missing[static_cast<size_t>(index)];
  std::string message = "used here";
  std::string stem = missing.name.substr(missing.name.find_first_not_of('.'));
  std::replace(stem.begin(), stem.end(), '.', '/');
  try {
    if (!missing.message.empty())
      sources_.error(missing.loc, missing.message);
    sources_.error(missing.loc, "cannot find module '" + missing.name + "': no " + stem + ".tl, " +
                                    stem + ".py or " + stem + "/__init__.{tl,py} in " +
                                    missing.searched + " (add its folder with -I DIR)");
  } catch (const CompileError &e) {
    rethrowWithNote(e, use, message);
  }
}

void Specializer::collectStdlib(const std::vector<const ast::Module *> &stdlib) {
  for (const ast::Module *module : stdlib)
    for (const ast::Stmt *def : jitFunctions(*module))
      stdlibFunctions_[def->name] = def;
  // The stdlib's own names: its imports and its functions (it has no constants).
  for (const ast::Module *module : stdlib)
    for (const ast::StmtPtr &stmt : module->body) {
      if (stmt->kind == ast::StmtKind::Import) {
        for (const ast::ImportAlias &alias : stmt->names) {
          std::string root = alias.name.substr(0, alias.name.find('.'));
          stdlibGlobals_[alias.asName.empty() ? root : alias.asName] =
              SemaValue::ofModule(alias.asName.empty() ? root : alias.name);
        }
      } else if (stmt->kind == ast::StmtKind::FunctionDef && stdlibFunctions_.count(stmt->name)) {
        stdlibGlobals_[stmt->name] = SemaValue::ofJitFunction(stdlibFunctions_[stmt->name]);
      }
    }
}

const ast::Stmt *Specializer::stdlibFunction(const std::string &name) const {
  auto it = stdlibFunctions_.find(name);
  return it == stdlibFunctions_.end() ? nullptr : it->second;
}

bool Specializer::isStdlibFunction(const ast::Stmt &def) const {
  auto it = stdlibFunctions_.find(def.name);
  return it != stdlibFunctions_.end() && it->second == &def;
}

void namesChangedInPlace(const ast::Stmt &stmt, std::vector<std::string> &out) {
  static const std::set<std::string> mutators = {
      "append", "extend",  "insert",     "pop",     "remove", "clear",  "update",
      "sort",   "reverse", "setdefault", "popitem", "add",    "discard"};
  auto base = [](const ast::Expr &target) -> const ast::Expr * {
    if (target.kind == ast::ExprKind::Subscript && target.operands[0]->kind == ast::ExprKind::Name)
      return target.operands[0].get();
    return nullptr;
  };
  switch (stmt.kind) {
  case ast::StmtKind::ExprStmt: {
    const ast::Expr &value = *stmt.value;
    if (value.kind == ast::ExprKind::Call && value.operands[0]->kind == ast::ExprKind::Attribute &&
        value.operands[0]->operands[0]->kind == ast::ExprKind::Name &&
        mutators.count(value.operands[0]->name))
      out.push_back(value.operands[0]->operands[0]->name);
    return;
  }
  case ast::StmtKind::Assign:
  case ast::StmtKind::AugAssign:
  case ast::StmtKind::AnnAssign:
    for (const ast::ExprPtr &target : stmt.targets)
      if (const ast::Expr *name = base(*target))
        out.push_back(name->name);
    return;
  case ast::StmtKind::For:
  case ast::StmtKind::While: {
    std::vector<std::string> names;
    std::function<void(const ast::Expr &)> targetNames = [&](const ast::Expr &target) {
      if (target.kind == ast::ExprKind::Name)
        out.push_back(target.name);
      for (const ast::ExprPtr &part : target.operands)
        if (part && (target.kind == ast::ExprKind::Tuple || target.kind == ast::ExprKind::List))
          targetNames(*part);
    };
    std::function<void(const ast::StmtList &)> block = [&](const ast::StmtList &stmts) {
      for (const ast::StmtPtr &inner : stmts) {
        namesChangedInPlace(*inner, out);
        if (inner->kind == ast::StmtKind::Assign || inner->kind == ast::StmtKind::AugAssign ||
            inner->kind == ast::StmtKind::AnnAssign || inner->kind == ast::StmtKind::For)
          for (const ast::ExprPtr &target : inner->targets)
            targetNames(*target);
        if (inner->kind == ast::StmtKind::FunctionDef)
          out.push_back(inner->name);
        if (inner->kind == ast::StmtKind::If || inner->kind == ast::StmtKind::Unsupported) {
          block(inner->body);
          block(inner->orelse);
        }
      }
    };
    for (const ast::ExprPtr &target : stmt.targets)
      targetNames(*target);
    block(stmt.body);
    block(stmt.orelse);
    return;
  }
  default:
    return;
  }
}

void namesChangedByCall(const ast::Stmt &stmt, const std::vector<const ast::StmtList *> &defs,
                        std::vector<std::string> &out) {
  if (stmt.kind != ast::StmtKind::ExprStmt || stmt.value->kind != ast::ExprKind::Call ||
      stmt.value->operands[0]->kind != ast::ExprKind::Name)
    return;
  const std::string &callee = stmt.value->operands[0]->name;
  const ast::Stmt *function = nullptr;
  for (const ast::StmtList *stmts : defs)
    for (const ast::StmtPtr &def : *stmts)
      if (def->kind == ast::StmtKind::FunctionDef && def->name == callee)
        function = def.get(); // the last def of the name (the module's binding) wins
  if (!function)
    return;
  auto isParam = [&](const std::string &name) {
    return std::any_of(function->params.begin(), function->params.end(),
                       [&](const ast::Param &p) { return p.name == name; });
  };
  std::function<void(const ast::StmtList &)> visit = [&](const ast::StmtList &body) {
    for (const ast::StmtPtr &inner : body) {
      // A nested def or class changes nothing until called.
      if (inner->kind == ast::StmtKind::FunctionDef ||
          (inner->kind == ast::StmtKind::Unsupported && inner->name == "class definition"))
        continue;
      bool memoStore = std::any_of(
          inner->targets.begin(), inner->targets.end(),
          [&](const ast::ExprPtr &target) { return isMemoCacheStore(*function, *target); });
      bool assignment = inner->kind == ast::StmtKind::Assign ||
                        inner->kind == ast::StmtKind::AugAssign ||
                        inner->kind == ast::StmtKind::AnnAssign;
      std::vector<std::string> changed;
      if (inner->kind == ast::StmtKind::ExprStmt || (assignment && !memoStore))
        namesChangedInPlace(*inner, changed);
      for (const std::string &name : changed) {
        // A local (or a parameter the body rebinds) is the function's own object.
        if (assignsName(function->body, name))
          continue;
        if (!isParam(name)) {
          out.push_back(name);
          continue;
        }
        // A parameter changed in place changes the module-level object passed for it
        // (`fill(TABLE)`, `fill(table=TABLE)`).
        const ast::Expr *argument = nullptr;
        for (size_t i = 0; i < function->params.size(); ++i) {
          const ast::Param &param = function->params[i];
          if (param.name != name || param.isVarArgs || param.isKwArgs)
            continue;
          if (!param.isKeywordOnly && i + 1 < stmt.value->operands.size())
            argument = stmt.value->operands[i + 1].get();
          for (const ast::Keyword &keyword : stmt.value->keywords)
            if (keyword.name == name)
              argument = keyword.value.get();
        }
        if (argument && argument->kind == ast::ExprKind::Name)
          out.push_back(argument->name);
      }
      visit(inner->body);
      visit(inner->orelse);
      visit(inner->finalbody);
      for (const ast::ExceptHandler &handler : inner->handlers)
        visit(handler.body);
    }
  };
  visit(function->body);
}

/// The names a module-level statement list binds (imports, functions, assignments) or changes
/// (namesChangedInPlace), through nested `if` and `try` statements.
static void collectModuleNames(const ast::StmtList &stmts, std::set<std::string> &out) {
  for (const ast::StmtPtr &stmt : stmts) {
    std::vector<std::string> changed;
    namesChangedInPlace(*stmt, changed);
    out.insert(changed.begin(), changed.end());
    switch (stmt->kind) {
    case ast::StmtKind::Import:
      for (const ast::ImportAlias &alias : stmt->names)
        out.insert(alias.asName.empty() ? alias.name.substr(0, alias.name.find('.'))
                                        : alias.asName);
      break;
    case ast::StmtKind::ImportFrom:
      for (const ast::ImportAlias &alias : stmt->names)
        out.insert(alias.asName.empty() ? alias.name : alias.asName);
      break;
    case ast::StmtKind::FunctionDef:
      out.insert(stmt->name);
      break;
    case ast::StmtKind::Assign:
    case ast::StmtKind::AnnAssign:
      // A bare annotation (`current_platform: Platform` under `if TYPE_CHECKING:`) binds
      // nothing.
      if (stmt->value && stmt->targets.size() == 1 && stmt->targets[0]->kind == ast::ExprKind::Name)
        out.insert(stmt->targets[0]->name);
      break;
    case ast::StmtKind::Unsupported:
      // A class binds its name; the names of its body are its own. So does a type alias.
      if (stmt->name == "class definition" || stmt->name == "type alias statement") {
        if (!stmt->targets.empty())
          out.insert(stmt->targets[0]->name);
        break;
      }
      for (const ast::ExprPtr &target : stmt->withTargets)
        if (target && target->kind == ast::ExprKind::Name)
          out.insert(target->name);
      collectModuleNames(stmt->body, out);
      collectModuleNames(stmt->orelse, out);
      break;
    case ast::StmtKind::If:
      collectModuleNames(stmt->body, out);
      collectModuleNames(stmt->orelse, out);
      break;
    case ast::StmtKind::Match:
      for (const ast::MatchCase &matchCase : stmt->cases) {
        std::vector<std::string> captured;
        ast::patternNames(*matchCase.pattern, captured);
        out.insert(captured.begin(), captured.end());
        collectModuleNames(matchCase.body, out);
      }
      break;
    default:
      break;
    }
  }
}

/// The names a module-level assignment target binds: `x`, or `a, (b, c)`; false for targets
/// that bind no module-level name (`x[0] = ...`, `obj.attr = ...`).
static bool unpackedNames(const ast::Expr &target, std::vector<std::string> &names) {
  if (target.kind == ast::ExprKind::Name) {
    names.push_back(target.name);
    return true;
  }
  if (target.kind != ast::ExprKind::Tuple && target.kind != ast::ExprKind::List)
    return false;
  for (const ast::ExprPtr &part : target.operands)
    if (!unpackedNames(*part, names))
      return false;
  return true;
}

/// Whether `expr` reads the name `name` (anywhere in it: a comprehension's own variable of that
/// name counts too, which only makes tilec keep the binding it had).
static bool mentionsName(const ast::Expr &expr, const std::string &name) {
  if (expr.kind == ast::ExprKind::Name && expr.name == name)
    return true;
  for (const ast::ExprPtr &operand : expr.operands)
    if (operand && mentionsName(*operand, name))
      return true;
  for (const ast::Keyword &keyword : expr.keywords)
    if (keyword.value && mentionsName(*keyword.value, name))
      return true;
  if (expr.lambda)
    return mentionsName(*expr.lambda->body[0]->value, name);
  return false;
}

Specializer::ModuleState::PriorBinding Specializer::currentBinding(const std::string &name) {
  ModuleState::PriorBinding prior;
  if (auto g = mod().globals.find(name); g != mod().globals.end())
    prior.global = g->second;
  if (auto p = mod().pending.find(name); p != mod().pending.end())
    prior.pending = p->second;
  if (auto t = mod().pendingTarget.find(name); t != mod().pendingTarget.end())
    prior.pendingTarget = t->second;
  if (auto c = mod().conditional.find(name); c != mod().conditional.end())
    prior.conditional = c->second;
  if (auto i = mod().imported.find(name); i != mod().imported.end())
    prior.imported = i->second;
  if (auto c = mod().changedInPlace.find(name); c != mod().changedInPlace.end())
    prior.changedInPlace = c->second;
  return prior;
}

void Specializer::restoreBinding(const std::string &name,
                                 const ModuleState::PriorBinding &binding) {
  mod().globals.erase(name);
  mod().pending.erase(name);
  mod().pendingTarget.erase(name);
  mod().conditional.erase(name);
  mod().imported.erase(name);
  mod().changedInPlace.erase(name);
  applyPriorBinding(name, binding);
}

std::vector<std::pair<std::string, Specializer::ModuleState::PriorBinding>>
Specializer::bindAsBeforeLaterIfs(SourceLoc at, const ast::Stmt *self) {
  std::vector<std::pair<std::string, ModuleState::PriorBinding>> own;
  for (const auto &[n, owner] : mod().conditional)
    if (owner != self && owner->loc.file == at.file &&
        std::make_pair(owner->loc.line, owner->loc.col) > std::make_pair(at.line, at.col) &&
        mod().priorBindings.count({owner, n}))
      own.emplace_back(n, currentBinding(n));
  for (const auto &[n, binding] : own)
    restoreBinding(n, mod().priorBindings.at({binding.conditional, n}));
  return own;
}

void Specializer::putBackBindings(
    const std::vector<std::pair<std::string, ModuleState::PriorBinding>> &own) {
  for (const auto &[n, binding] : own)
    restoreBinding(n, binding);
}

void Specializer::applyPriorBinding(const std::string &name,
                                    const ModuleState::PriorBinding &binding) {
  if (binding.changedInPlace)
    mod().changedInPlace[name] = binding.changedInPlace;
  if (binding.global)
    mod().globals[name] = *binding.global;
  if (binding.pending)
    mod().pending[name] = binding.pending;
  if (binding.pendingTarget)
    mod().pendingTarget[name] = binding.pendingTarget;
  if (binding.conditional)
    mod().conditional[name] = binding.conditional;
  if (binding.imported)
    mod().imported[name] = *binding.imported;
}

SemaValue Specializer::evalSelfReference(const std::string &name, const ast::Expr &value,
                                         const ModuleState::SelfReference &reference) {
  // The statement's own binding, to put back if evaluating it fails (a `try` of the Python
  // that asked may catch the error).
  ModuleState::PriorBinding own = currentBinding(name);
  restoreBinding(name, reference.prior);
  scopes_.push_back(Scope{});
  ++moduleLevelDepth_;
  SemaValue result;
  try {
    result = atImport([&] {
      if (!reference.augmented)
        return eval(value);
      SemaValue before = lookup(name, reference.augmented->targets[0]->loc);
      SemaValue operand = eval(value);
      return binaryOp(reference.augmented->augOp, before, operand, reference.augmented->loc);
    });
  } catch (...) {
    --moduleLevelDepth_;
    scopes_.pop_back();
    restoreBinding(name, own);
    throw;
  }
  --moduleLevelDepth_;
  scopes_.pop_back();
  ModuleState::PriorBinding bound;
  bound.global = result;
  restoreBinding(name, bound);
  return result;
}

void Specializer::collectGlobals(const ast::StmtList &stmts, const std::set<std::string> *only,
                                 size_t count) {
  auto wanted = [&](const std::string &name) { return !only || only->count(name); };
  const std::vector<const ast::Stmt *> kernels =
      mod().ast ? jitFunctions(*mod().ast) : std::vector<const ast::Stmt *>{};
  // A later definition replaces whatever bound the name before, a conditional one included.
  auto define = [&](const std::string &name, const SemaValue &value) {
    mod().changedInPlace.erase(name);
    mod().globals[name] = value;
    mod().pending.erase(name);
    mod().conditional.erase(name);
    mod().imported.erase(name);
  };
  // A name of a loaded module, bound when first used.
  auto importName = [&](const std::string &name, int module, const std::string &attr, SourceLoc loc,
                        const std::string &library = "") {
    mod().changedInPlace.erase(name);
    mod().globals.erase(name);
    mod().pending.erase(name);
    mod().conditional.erase(name);
    mod().imported[name] = ImportedName{module, attr, loc, library};
  };
  auto missing = [&](std::string dotted, int index) {
    SemaValue value = SemaValue::ofModule(std::move(dotted));
    value.missingImport = index;
    return value;
  };
  // A module-level `if`, `match` or `with`: the names either binds depend on which branch or
  // case runs (resolveModuleIf decides when one of them is used). A `with` (a JSON config read
  // at import) runs its context managers then, and its body binds the names.
  auto deferToUse = [&](const ast::Stmt &stmt) {
    std::set<std::string> names;
    if (stmt.kind == ast::StmtKind::Unsupported) {
      for (const ast::ExprPtr &target : stmt.withTargets)
        if (target && target->kind == ast::ExprKind::Name)
          names.insert(target->name);
      collectModuleNames(stmt.body, names);
    } else if (stmt.kind == ast::StmtKind::If) {
      collectModuleNames(stmt.body, names);
      collectModuleNames(stmt.orelse, names);
    } else {
      for (const ast::MatchCase &matchCase : stmt.cases) {
        std::vector<std::string> captured;
        ast::patternNames(*matchCase.pattern, captured);
        names.insert(captured.begin(), captured.end());
        collectModuleNames(matchCase.body, names);
      }
    }
    for (const std::string &name : names) {
      if (!wanted(name))
        continue;
      ModuleState::PriorBinding prior = currentBinding(name);
      if (prior.global || prior.pending || prior.conditional || prior.imported ||
          prior.changedInPlace)
        mod().priorBindings[{&stmt, name}] = prior;
      mod().changedInPlace.erase(name);
      mod().globals.erase(name);
      mod().pending.erase(name);
      mod().imported.erase(name);
      mod().conditional[name] = &stmt;
    }
  };
  for (size_t index = 0; index < std::min(count, stmts.size()); ++index) {
    const ast::StmtPtr &stmt = stmts[index];
    // What the statement changes in place or in a loop: refused where it is read, as tilec does
    // not run such statements (the name keeps no value that could be wrong).
    std::vector<std::string> changed;
    namesChangedInPlace(*stmt, changed);
    namesChangedByCall(*stmt, {&mod().ast->body, &stmts}, changed);
    for (const std::string &name : changed)
      if (wanted(name))
        mod().changedInPlace[name] = stmt.get();
    switch (stmt->kind) {
    case ast::StmtKind::Import:
      for (const ast::ImportAlias &alias : stmt->names) {
        std::string bound =
            alias.asName.empty() ? alias.name.substr(0, alias.name.find('.')) : alias.asName;
        if (int m = graph_ ? graph_->resolved(alias.loc) : -1; m >= 0) {
          if (wanted(bound))
            define(bound, SemaValue::ofUserModule(graph_->modules[m].name, m));
          continue;
        }
        if (int miss = graph_ ? graph_->missingAt(alias.loc) : -1; miss >= 0) {
          if (wanted(bound))
            define(bound, missing(alias.asName.empty() ? bound : alias.name, miss));
          continue;
        }
        if (!alias.asName.empty()) {
          if (wanted(alias.asName))
            define(alias.asName, SemaValue::ofModule(alias.name));
          continue;
        }
        // `import triton.language` binds `triton`.
        std::string root = alias.name.substr(0, alias.name.find('.'));
        if (wanted(root))
          define(root, SemaValue::ofModule(root));
      }
      break;
    case ast::StmtKind::ImportFrom: {
      int base = graph_ ? graph_->resolved(stmt->loc) : -1;
      int miss = graph_ ? graph_->missingAt(stmt->loc) : -1;
      for (const ast::ImportAlias &alias : stmt->names) {
        if (alias.name == "*" && base >= 0) {
          // `from helpers import *`: its public names (it has no __all__ tilec reads).
          std::set<std::string> names;
          if (const ast::Module *syntax = graph_->modules[base].ast)
            collectModuleNames(syntax->body, names);
          for (const std::string &name : names)
            if (name[0] != '_' && wanted(name))
              importName(name, base, name, alias.loc);
          continue;
        }
        std::string bound = alias.asName.empty() ? alias.name : alias.asName;
        if (!wanted(bound))
          continue;
        // `from . import util` (or `from pkg import util`) where util is a submodule: Python
        // imports it, also while pkg's own __init__ is still running (FlagGems' runtime package
        // does), so it binds the submodule rather than a name pkg has not defined yet.
        if (base >= 0) {
          const SourceModule &package = graph_->modules[static_cast<size_t>(base)];
          auto sub = package.submodules.find(alias.name);
          // Python takes the package's attribute first: where the package's __init__ binds the
          // name itself (`from .matmul import matmul`, rebinding the attribute that importing
          // the submodule set), a module outside the package, which imports it after its
          // __init__ ran, gets that binding (xma's `from ..triton_utils import matmul`).
          // (`from . import name` there binds the submodule itself.)
          const std::string &here = graph_->modules[current_].name;
          if (sub != package.submodules.end() && package.ast && here != package.name &&
              here.rfind(package.name + ".", 0) != 0) {
            std::set<std::string> own;
            collectModuleNames(package.ast->body, own);
            forEachModuleLevelStatement(package.ast->body, [&](const ast::Stmt &st, bool) {
              if (st.kind == ast::StmtKind::ImportFrom &&
                  st.module.find_first_not_of('.') == std::string::npos)
                for (const ast::ImportAlias &a : st.names)
                  own.erase(a.asName.empty() ? a.name : a.asName);
            });
            if (own.count(alias.name))
              sub = package.submodules.end();
          }
          if (sub != package.submodules.end()) {
            define(bound, SemaValue::ofUserModule(package.name + "." + alias.name, sub->second));
            continue;
          }
        }
        if (base >= 0)
          importName(bound, base, alias.name, alias.loc);
        else if (miss >= 0)
          define(bound, missing(stmt->module + "." + alias.name, miss));
        else
          importName(bound, -1, alias.name, alias.loc, stmt->module);
      }
      break;
    }
    case ast::StmtKind::FunctionDef: {
      recordGlobalStatements(stmt->body, *stmt);
      if (!wanted(stmt->name))
        break;
      bool jit = isJitDefinition(*stmt) ||
                 std::find(kernels.begin(), kernels.end(), stmt.get()) != kernels.end();
      bool constexprFunction =
          std::any_of(stmt->decorators.begin(), stmt->decorators.end(),
                      [](const ast::ExprPtr &d) { return isConstexprFunctionDecorator(*d); });
      SemaValue value =
          SemaValue::ofBuiltin((constexprFunction ? "constexprfn:" : "pyfunc:") + stmt->name);
      if (jit)
        value = SemaValue::ofJitFunction(stmt.get());
      else
        value.function = stmt.get(); // for module-level code that calls it
      define(stmt->name, value);
      break;
    }
    case ast::StmtKind::AugAssign: {
      // `X += 1`: X as the statements before bound it, combined with the value when used.
      const ast::Expr &target = *stmt->targets[0];
      if (target.kind != ast::ExprKind::Name || !wanted(target.name))
        break;
      mod().selfReferences[stmt->value.get()] = {currentBinding(target.name), stmt.get()};
      mod().globals.erase(target.name);
      mod().conditional.erase(target.name);
      mod().imported.erase(target.name);
      mod().pendingTarget.erase(target.name);
      mod().pending[target.name] = stmt->value.get();
      break;
    }
    case ast::StmtKind::Assign:
    case ast::StmtKind::AnnAssign: {
      // `f = triton.heuristics({...})(triton.jit(f))` leaves `f` the function defined above:
      // what the wrappers add matters at launch (the heuristics and configs bind constexprs).
      bool sawJit = false;
      if (!mod().decoratorVariables)
        mod().decoratorVariables = decoratorVariables(*mod().ast);
      if (!redecoratedName(*stmt, sawJit, &*mod().decoratorVariables).empty())
        break;
      if (stmt->targets.size() != 1 || !stmt->value)
        break;
      const ast::Expr *target = stmt->targets[0].get();
      std::vector<std::string> names;
      if (!unpackedNames(*target, names))
        break;
      for (const std::string &name : names) {
        if (!wanted(name))
          continue;
        if (target->kind == ast::ExprKind::Name && mentionsName(*stmt->value, name))
          mod().selfReferences[stmt->value.get()] = {currentBinding(name), nullptr};
        mod().changedInPlace.erase(name);
        mod().globals.erase(name);
        mod().conditional.erase(name);
        mod().imported.erase(name);
        mod().pending[name] = stmt->value.get();
        if (target->kind == ast::ExprKind::Name)
          mod().pendingTarget.erase(name);
        else
          mod().pendingTarget[name] = target;
      }
      break;
    }
    case ast::StmtKind::If:
    case ast::StmtKind::Match:
      deferToUse(*stmt);
      break;
    case ast::StmtKind::Unsupported:
      if (stmt->name == "with statement") {
        deferToUse(*stmt);
        break;
      }
      if (stmt->name == "try statement")
        collectTryGlobals(*stmt, only);
      // A method's `global X` rebinds the module's X too (a test case's method changing a
      // module-level constant its kernels read).
      if (stmt->name == "class definition")
        recordClassGlobalStatements(*stmt);
      if (isNamedTupleClass(*stmt) && wanted(stmt->targets[0]->name))
        define(stmt->targets[0]->name, namedTupleClass(*stmt));
      if (isJitNamespaceClass(*stmt) && wanted(stmt->targets[0]->name))
        define(stmt->targets[0]->name, jitNamespaceClass(*stmt));
      if (isPythonClass(*stmt) && wanted(stmt->targets[0]->name))
        define(stmt->targets[0]->name, pythonClass(*stmt));
      break;
    default:
      break;
    }
  }
}

/// Whether an `except` clause catches `e`: a bare `except:`, or a class (or tuple of classes)
/// named like `e`'s class or one of its bases (`Exception`, `builtins.ImportError`).
static bool handlerCatches(const ast::ExceptHandler &handler, const HostException &e) {
  if (!handler.type)
    return true;
  std::function<bool(const ast::Expr &)> names = [&](const ast::Expr &type) {
    if (type.kind == ast::ExprKind::Tuple)
      return std::any_of(type.operands.begin(), type.operands.end(),
                         [&](const ast::ExprPtr &t) { return names(*t); });
    if (type.kind != ast::ExprKind::Name && type.kind != ast::ExprKind::Attribute)
      return false;
    return std::find(e.classes.begin(), e.classes.end(), type.name) != e.classes.end();
  };
  return names(*handler.type);
}

/// The import statement at the top level of `stmts` that names a module tilec cannot find
/// (ModuleGraph::missingAt), as its index; none when every import there resolves.
static std::optional<size_t> firstMissingImport(const ast::StmtList &stmts,
                                                const ModuleGraph *graph) {
  if (!graph)
    return std::nullopt;
  for (size_t i = 0; i < stmts.size(); ++i) {
    const ast::Stmt &stmt = *stmts[i];
    if (stmt.kind == ast::StmtKind::ImportFrom &&
        (graph->missingAt(stmt.loc) >= 0 || graph->failureAt(stmt.loc)))
      return i;
    if (stmt.kind == ast::StmtKind::Import)
      for (const ast::ImportAlias &alias : stmt.names)
        if (graph->missingAt(alias.loc) >= 0 || graph->failureAt(alias.loc))
          return i;
  }
  return std::nullopt;
}

void Specializer::collectTryGlobals(const ast::Stmt &stmt, const std::set<std::string> *only) {
  // Python runs the try block until a statement raises. At module level the statements that
  // tilec can tell will raise are imports of modules it cannot find: ModuleNotFoundError, as on
  // a host without that module (the try block's other statements are taken to succeed: their
  // values are computed only when a kernel uses them). The names the block binds before that
  // import stay bound, then the first handler that catches the error runs, and `else` does not;
  // `finally` runs either way. An error no handler catches leaves the import's names to fail
  // where a kernel uses them, as an import outside `try` does.
  std::optional<size_t> failing = firstMissingImport(stmt.body, graph_);
  if (!failing) {
    collectGlobals(stmt.body, only);
    collectGlobals(stmt.orelse, only);
    collectGlobals(stmt.finalbody, only);
    return;
  }
  const ast::Stmt &import = *stmt.body[*failing];
  SourceLoc at = import.loc;
  std::string module = import.module;
  if (import.kind == ast::StmtKind::Import)
    for (const ast::ImportAlias &alias : import.names)
      if (graph_->missingAt(alias.loc) >= 0 || graph_->failureAt(alias.loc)) {
        at = alias.loc;
        module = alias.name;
        break;
      }
  HostException raised;
  if (const std::string *failure = graph_->failureAt(at)) {
    // An import cycle that reaches a partially initialised module (Imports.cpp).
    raised = {*builtinExceptionClasses("ImportError"), *failure, at};
  } else {
    const MissingImport &missing = graph_->missing[static_cast<size_t>(graph_->missingAt(at))];
    raised = {*builtinExceptionClasses("ModuleNotFoundError"),
              missing.message.empty()
                  ? "No module named '" + module.substr(0, module.find('.')) + "'"
                  : missing.message,
              at};
  }
  auto handler =
      std::find_if(stmt.handlers.begin(), stmt.handlers.end(),
                   [&](const ast::ExceptHandler &h) { return handlerCatches(h, raised); });
  collectGlobals(stmt.body, only, handler == stmt.handlers.end() ? *failing + 1 : *failing);
  if (handler != stmt.handlers.end()) {
    if (!handler->name.empty() && (!only || only->count(handler->name))) {
      mod().globals[handler->name] = SemaValue::ofString(raised.message);
      mod().pending.erase(handler->name);
      mod().conditional.erase(handler->name);
      mod().imported.erase(handler->name);
    }
    collectGlobals(handler->body, only);
  }
  collectGlobals(stmt.finalbody, only);
}

void Specializer::resolveModuleIf(const ast::Stmt &stmt, const std::string &name, SourceLoc use) {
  std::set<std::string> owned;
  for (const auto &[n, owner] : mod().conditional)
    if (owner == &stmt)
      owned.insert(n);
  // What `n` was bound to before the `if`, bound again.
  auto restorePrior = [&](const std::string &n) {
    auto prior = mod().priorBindings.find({&stmt, n});
    if (prior == mod().priorBindings.end())
      return;
    applyPriorBinding(n, prior->second);
  };
  // The condition sees those bindings of the names the `if` may rebind (`if HAS_TRITON:` whose
  // body sets HAS_TRITON = False on some paths, in vLLM's triton_utils).
  for (const std::string &n : owned) {
    mod().conditional.erase(n);
    restorePrior(n);
  }
  // A name that a later module-level `if` rebinds reads here what it was bound to before that
  // `if` (NeMo Automodel tests `version.parse(triton.__version__)` in a `try` above `if not
  // HAVE_TRITON: triton = ...`; reading the later binding resolved that `if` first, which needs
  // this one).
  auto laterRebound = bindAsBeforeLaterIfs(stmt.loc, &stmt);
  auto putBackLaterRebound = [&] { putBackBindings(laterRebound); };
  std::optional<bool> truth;
  const ast::MatchCase *taken = nullptr;
  PatternBindings captured;
  std::vector<SemaValue> entered; // a `with`: what each item's `as` binds
  try {
    if (stmt.kind == ast::StmtKind::Unsupported) {
      for (const ast::ExprPtr &item : stmt.withItems)
        entered.push_back(enterContext(evalModuleLevel(*item), item->loc));
    } else if (stmt.kind == ast::StmtKind::Match) {
      // The subject, the patterns and the guards run in module scope; the captures of the
      // case taken become module-level names.
      scopes_.push_back(Scope{});
      ++moduleLevelDepth_;
      try {
        taken = atImport([&] { return selectMatchCase(stmt, captured); });
      } catch (...) {
        --moduleLevelDepth_;
        scopes_.pop_back();
        throw;
      }
      --moduleLevelDepth_;
      scopes_.pop_back();
    } else {
      SemaValue cond = evalModuleLevel(*stmt.test);
      refuseUnknown(cond, stmt.test->loc, "this module-level condition");
      truth = constexprTruth(cond);
      if (!truth)
        error(stmt.test->loc, "this module-level condition is not a compile-time constant");
    }
  } catch (const CompileError &e) {
    putBackLaterRebound();
    std::string message = "'" + name + "' is defined under that module-level '" +
                          (stmt.kind == ast::StmtKind::Match ? "match"
                           : stmt.kind == ast::StmtKind::If  ? "if"
                                                             : "with") +
                          "', used here";
    rethrowWithNote(e, use, message);
  }
  putBackLaterRebound();
  for (const std::string &n : owned)
    mod().conditional.erase(n);
  if (stmt.kind == ast::StmtKind::Unsupported) {
    for (size_t i = 0; i < stmt.withTargets.size(); ++i) {
      const ast::Expr *target = stmt.withTargets[i].get();
      if (!target)
        continue;
      if (target->kind != ast::ExprKind::Name)
        error(target->loc, "a module-level `with` binding other than a name is not supported yet");
      if (owned.count(target->name)) {
        mod().globals[target->name] = entered[i];
        mod().pending.erase(target->name);
        mod().imported.erase(target->name);
      }
    }
    collectGlobals(stmt.body, &owned);
  } else if (stmt.kind == ast::StmtKind::Match) {
    for (const auto &[n, value] : captured)
      if (owned.count(n)) {
        mod().globals[n] = value;
        mod().pending.erase(n);
        mod().imported.erase(n);
      }
    if (taken)
      collectGlobals(taken->body, &owned);
  } else {
    collectGlobals(*truth ? stmt.body : stmt.orelse, &owned);
  }
  // A name the branch taken does not bind keeps what it was bound to before the `if`.
  for (const std::string &n : owned)
    if (!mod().globals.count(n) && !mod().pending.count(n) && !mod().conditional.count(n) &&
        !mod().imported.count(n))
      restorePrior(n);
}

SemaValue Specializer::compareVersion(const CallArgs &args) {
  if (args.positional.size() != 3 || !args.keywords.empty())
    error(args.loc, "compare_version takes three arguments: a package, an operator.* comparison "
                    "and a version string");
  const SemaValue &package = args.positional[0], &op = args.positional[1],
                  &target = args.positional[2];
  if (package.kind != SemaValue::Kind::String || target.kind != SemaValue::Kind::String)
    error(args.loc, "compare_version needs a package name and a version as strings");
  if (package.name != "triton")
    error(args.loc, "tilec cannot know the version of '" + package.name +
                        "'; it only knows triton's (3.6.0)");
  static const std::map<std::string, ast::CompareOperator> ops = {
      {"operator.lt", ast::CompareOperator::Lt}, {"operator.le", ast::CompareOperator::Le},
      {"operator.eq", ast::CompareOperator::Eq}, {"operator.ne", ast::CompareOperator::Ne},
      {"operator.ge", ast::CompareOperator::Ge}, {"operator.gt", ast::CompareOperator::Gt}};
  auto it = op.kind == SemaValue::Kind::Module ? ops.find(op.name) : ops.end();
  if (it == ops.end())
    error(args.loc, "compare_version's comparison must be one of operator.lt, le, eq, ne, ge, gt");
  // Release segments compared numerically; a suffix (rc1, .dev0, +local) is ignored.
  auto parse = [](const std::string &text) {
    std::vector<int64_t> parts;
    size_t i = 0;
    while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i]))) {
      int64_t v = 0;
      while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i])))
        v = v * 10 + (text[i++] - '0');
      parts.push_back(v);
      if (i < text.size() && text[i] == '.')
        ++i;
    }
    parts.resize(std::max<size_t>(parts.size(), 3), 0);
    return parts;
  };
  std::vector<int64_t> have = parse(kTritonVersion), want = parse(target.name);
  size_t n = std::max(have.size(), want.size());
  have.resize(n, 0);
  want.resize(n, 0);
  int c = have < want ? -1 : have > want ? 1 : 0;
  return SemaValue::ofBool(orderingHolds(it->second, c));
}

bool Specializer::overrideGlobal(const std::string &name, const SemaValue &value) {
  bool known = mod().globals.count(name) || mod().pending.count(name) ||
               mod().conditional.count(name) || mod().imported.count(name);
  if (!known)
    return false;
  bindGlobal(name, value);
  return true;
}

static std::optional<SemaValue> parseConstexprLiteral(const std::string &text);

void Specializer::overrideModuleConstants(
    const ast::Stmt &kernel, const std::vector<std::pair<std::string, std::string>> &defines) {
  for (const auto &[name, text] : defines) {
    bool isParam = std::any_of(kernel.params.begin(), kernel.params.end(),
                               [&](const ast::Param &p) { return p.name == name; });
    if (isParam)
      continue;
    // What is not a literal is reported where the kernel is compiled (specializeKernel).
    if (std::optional<SemaValue> value = parseConstexprLiteral(text))
      overrideGlobal(name, *value);
  }
}

void Specializer::bindGlobal(const std::string &name, const SemaValue &value) {
  mod().pending.erase(name);
  mod().conditional.erase(name);
  mod().imported.erase(name);
  mod().globals[name] = value;
}

void Specializer::bindMainModuleAsOf(size_t statements) {
  ModuleState fresh;
  fresh.ast = &module_;
  fresh.collected = true;
  modules_[0] = std::move(fresh);
  size_t saved = current_;
  current_ = 0;
  try {
    collectGlobals(module_.body, nullptr, statements);
  } catch (...) {
    current_ = saved;
    throw;
  }
  current_ = saved;
}

void Specializer::bindMainModuleBefore(const ast::Stmt &stmt) {
  ModuleState fresh;
  fresh.ast = &module_;
  fresh.collected = true;
  modules_[0] = std::move(fresh);
  size_t saved = current_;
  current_ = 0;
  try {
    collectGlobalsBefore(module_.body, stmt);
  } catch (...) {
    current_ = saved;
    throw;
  }
  current_ = saved;
}

/// Whether `stmts`, or a block of theirs that Python may run at module level, holds `stmt`.
static bool holdsStatement(const ast::StmtList &stmts, const ast::Stmt &stmt) {
  bool found = false;
  forEachModuleLevelStatement(stmts, [&](const ast::Stmt &s, bool) { found |= &s == &stmt; });
  return found;
}

void Specializer::collectGlobalsBefore(const ast::StmtList &stmts, const ast::Stmt &stop) {
  auto holder = std::find_if(stmts.begin(), stmts.end(), [&](const ast::StmtPtr &s) {
    return s.get() == &stop ||
           (s->kind != ast::StmtKind::FunctionDef && holdsStatement(s->body, stop)) ||
           holdsStatement(s->orelse, stop) || holdsStatement(s->finalbody, stop) ||
           std::any_of(s->handlers.begin(), s->handlers.end(),
                       [&](const ast::ExceptHandler &h) { return holdsStatement(h.body, stop); }) ||
           std::any_of(s->cases.begin(), s->cases.end(),
                       [&](const ast::MatchCase &c) { return holdsStatement(c.body, stop); });
  });
  size_t index = static_cast<size_t>(holder - stmts.begin());
  collectGlobals(stmts, nullptr, index);
  if (holder == stmts.end() || holder->get() == &stop)
    return;
  const ast::Stmt &block = **holder;
  if (block.kind == ast::StmtKind::If) {
    collectGlobalsBefore(holdsStatement(block.body, stop) ? block.body : block.orelse, stop);
    return;
  }
  if (block.kind == ast::StmtKind::Match) {
    // The case that holds it; what its pattern captures is not bound here.
    for (const ast::MatchCase &matchCase : block.cases)
      if (holdsStatement(matchCase.body, stop))
        collectGlobalsBefore(matchCase.body, stop);
    return;
  }
  // A try statement: the try block up to it; or, for a handler, the try block up to the import
  // that failed, then the handler (its `as` name is left unbound); or all of the try block then
  // `else` or `finally` up to it.
  if (holdsStatement(block.body, stop)) {
    collectGlobalsBefore(block.body, stop);
    return;
  }
  for (const ast::ExceptHandler &handler : block.handlers) {
    if (!holdsStatement(handler.body, stop))
      continue;
    std::optional<size_t> failing = firstMissingImport(block.body, graph_);
    collectGlobals(block.body, nullptr, failing ? *failing : block.body.size());
    collectGlobalsBefore(handler.body, stop);
    return;
  }
  collectGlobals(block.body);
  if (holdsStatement(block.orelse, stop)) {
    collectGlobalsBefore(block.orelse, stop);
    return;
  }
  collectGlobalsBefore(block.finalbody, stop);
}

SemaValue Specializer::callPython(const SemaValue &function, std::vector<SemaValue> positional,
                                  SourceLoc loc) {
  CallArgs args;
  args.positional = std::move(positional);
  args.loc = loc;
  return inModuleLevelScope([&] { return callValue(function, args, loc); });
}

SemaValue Specializer::callPython(const SemaValue &function, std::vector<SemaValue> positional,
                                  std::vector<std::pair<std::string, SemaValue>> keywords,
                                  SourceLoc loc) {
  CallArgs args;
  args.positional = std::move(positional);
  args.keywords = std::move(keywords);
  args.loc = loc;
  return inModuleLevelScope([&] { return callValue(function, args, loc); });
}

SemaValue Specializer::evalModuleLevel(const ast::Expr &expr) {
  // Every caller evaluates what Python runs at import time: a module-level statement's
  // expression or a decorator's argument.
  return atImport([&] { return inModuleLevelScope([&] { return eval(expr); }); });
}

SemaValue Specializer::inModuleLevelScope(const std::function<SemaValue()> &body) {
  // Module-level code runs in its own scope, as evalConstantGlobal's.
  scopes_.push_back(Scope{});
  ++moduleLevelDepth_;
  SemaValue value;
  try {
    value = body();
  } catch (...) {
    --moduleLevelDepth_;
    scopes_.pop_back();
    throw;
  }
  --moduleLevelDepth_;
  scopes_.pop_back();
  return value;
}

void Specializer::rethrowWithNote(const CompileError &e, SourceLoc at,
                                  const std::string &note) const {
  sources_.note(at, note);
  throw CompileError(std::string(e.what()) + sources_.format(at, "note", note), e.reported());
}

void Specializer::rethrowWithDefineHint(const CompileError &e, const std::string &what,
                                        const std::string &name, SourceLoc at) {
  // What module-level code computes from the host it runs on (a vendor library chosen by
  // probing the machine) may be beyond tilec; -D binds a name of the kernel's file instead.
  std::string message = what + " of the kernel's file: -D " + name +
                        "=VALUE binds it instead (a signature literal, or a function or module "
                        "by its dotted name such as tl.extra.cuda.libdevice.pow)";
  sources_.note(at, message);
  throw CompileError(std::string(e.what()) + sources_.format(at, "note", message), e.reported(),
                     e.kind());
}

SemaValue Specializer::evalConstantGlobal(const std::string &name, const ast::Expr &expr) {
  // Qualified by module: helpers.BLOCK = BLOCK * 2 with `from kernel import BLOCK` is no cycle.
  std::string qualified = std::to_string(current_) + ":" + name;
  if (std::find(globalsBeingEvaluated_.begin(), globalsBeingEvaluated_.end(), qualified) !=
      globalsBeingEvaluated_.end())
    error(expr.loc, "global '" + name + "' is defined in terms of itself");
  globalsBeingEvaluated_.push_back(qualified);
  // Module-level code runs in its own scope: a kernel's locals are not visible to it. A name
  // that a later module-level `if` rebinds reads the binding Python's earlier statement sees.
  auto laterRebound = bindAsBeforeLaterIfs(expr.loc, nullptr);
  SemaValue value;
  try {
    value = evalModuleLevel(expr);
    putBackBindings(laterRebound);
  } catch (const CompileError &e) {
    putBackBindings(laterRebound);
    globalsBeingEvaluated_.pop_back();
    if (current_ != 0)
      throw;
    rethrowWithDefineHint(e, "while evaluating '" + name + "', a module-level name", name,
                          expr.loc);
  } catch (...) {
    putBackBindings(laterRebound);
    globalsBeingEvaluated_.pop_back();
    throw;
  }
  globalsBeingEvaluated_.pop_back();
  noteUnknownHolder(value, name);
  if (value.isTensor())
    error(expr.loc, "global '" + name +
                        "' is not a compile-time constant; kernels can only use constant globals");
  return value;
}

static bool isIdentifier(const std::string &text);

SemaValue Specializer::jitFunctionNamed(const SemaValue &value, SourceLoc use) {
  // Triton specialises a @triton.jit function argument as a constexpr whose value is the
  // function; a signature names it, a bare word, which reads as a string. Where a string is
  // called (or is a combine_fn), it is the module's function of that name.
  if (value.kind != SemaValue::Kind::String || !isIdentifier(value.name))
    return value;
  if (const ast::Stmt *def = moduleLevelKernel(value.name, use))
    return SemaValue::ofJitFunction(def);
  return value;
}

const ast::Stmt *Specializer::moduleLevelKernel(const std::string &name, SourceLoc use) {
  // The `if`s that may bind it, evaluated as lookup would; a name no branch taken binds is no
  // kernel (rather than an undefined name).
  for (auto c = mod().conditional.find(name); c != mod().conditional.end();
       c = mod().conditional.find(name))
    resolveModuleIf(*c->second, name, use);
  if (!mod().globals.count(name) && !mod().pending.count(name) && !mod().imported.count(name))
    return nullptr;
  SemaValue value = lookup(name, use);
  return value.kind == SemaValue::Kind::JitFunction ? value.function : nullptr;
}

SemaValue Specializer::lookup(const std::string &name, SourceLoc loc) {
  // Only this lookup may answer with PlainClassName, not those that evaluating a module-level
  // name makes.
  const bool classNameUse = std::exchange(classNameUse_, false);
  if (!scopes_.empty()) {
    auto it = scopes_.back().names.find(name);
    if (it != scopes_.back().names.end())
      return it->second;
  }
  if (inStdlib_) {
    auto it = stdlibGlobals_.find(name);
    if (it != stdlibGlobals_.end())
      return it->second;
    if (name != "range" && name != "min" && name != "max" && name != "len" && name != "float" &&
        name != "int" && name != "isinstance")
      error(loc, "undefined name '" + name + "' in the standard library");
    return SemaValue::ofBuiltin("py." + name);
  }
  checkReboundGlobal(name, loc);
  if (auto changed = mod().changedInPlace.find(name); changed != mod().changedInPlace.end()) {
    const ast::Stmt &stmt = *changed->second;
    // A statement that does not itself change the name changes it through the function it
    // calls (namesChangedByCall).
    std::vector<std::string> changedByStatement;
    namesChangedInPlace(stmt, changedByStatement);
    std::string message = "changed here";
    if (!std::count(changedByStatement.begin(), changedByStatement.end(), name))
      message = "changed by this call of '" + stmt.value->operands[0]->name + "'";
    try {
      error(loc, "module-level '" + name + "' is changed " +
                     (stmt.kind == ast::StmtKind::For || stmt.kind == ast::StmtKind::While
                          ? "by a module-level loop"
                          : "in place") +
                     ", which tilec does not run when it evaluates module-level names; not "
                     "supported yet");
    } catch (const CompileError &e) {
      rethrowWithNote(e, stmt.loc, message);
    }
  }
  auto g = mod().globals.find(name);
  if (g != mod().globals.end())
    return g->second;
  auto pending = mod().pending.find(name);
  if (pending != mod().pending.end()) {
    auto self = mod().selfReferences.find(pending->second);
    if (self != mod().selfReferences.end() && !mod().pendingTarget.count(name)) {
      ModuleState::SelfReference reference = self->second;
      return evalSelfReference(name, *pending->second, reference);
    }
    SemaValue value = evalConstantGlobal(name, *pending->second);
    auto target = mod().pendingTarget.find(name);
    if (target == mod().pendingTarget.end()) {
      mod().globals[name] = value;
      mod().pending.erase(name);
      return value;
    }
    // `a, b = value`: every name of the target gets its part (those another statement
    // rebound since keep their own).
    const ast::Expr *whole = target->second;
    std::function<void(const ast::Expr &, const SemaValue &)> unpack = [&](const ast::Expr &t,
                                                                           const SemaValue &v) {
      if (t.kind == ast::ExprKind::Name) {
        auto own = mod().pendingTarget.find(t.name);
        if (own == mod().pendingTarget.end() || own->second != whole)
          return;
        mod().globals[t.name] = v;
        mod().pending.erase(t.name);
        mod().pendingTarget.erase(own);
        return;
      }
      if (v.kind != SemaValue::Kind::Tuple || v.elems.size() != t.operands.size())
        error(t.loc, "cannot unpack " + v.describe() + " into " +
                         std::to_string(t.operands.size()) + " names");
      for (size_t i = 0; i < t.operands.size(); ++i)
        unpack(*t.operands[i], v.elems[i]);
    };
    unpack(*whole, value);
    return lookup(name, loc);
  }
  auto conditional = mod().conditional.find(name);
  if (conditional != mod().conditional.end()) {
    resolveModuleIf(*conditional->second, name, loc);
    return lookup(name, loc);
  }
  auto imported = mod().imported.find(name);
  if (imported != mod().imported.end()) {
    ImportedName from = imported->second;
    size_t here = current_;
    std::string key = std::to_string(here) + ":" + name;
    if (!importsBeingResolved_.insert(key).second)
      error(from.loc, "cannot import name '" + from.attr +
                          "': the modules import it from each other (circular import)");
    SemaValue value;
    try {
      if (from.module >= 0) {
        try {
          value = userModuleAttribute(from.module, from.attr, from.loc);
        } catch (const CompileError &e) {
          if (here != 0)
            throw;
          rethrowWithDefineHint(e, "while importing '" + name + "', a name", name, from.loc);
        }
      } else {
        try {
          value = moduleAttribute(from.library, from.attr, from.loc);
        } catch (const CompileError &e) {
          std::string message = "'" + name + "' is imported there, used here";
          rethrowWithNote(e, loc, message);
        }
      }
    } catch (...) {
      importsBeingResolved_.erase(key);
      throw;
    }
    importsBeingResolved_.erase(key);
    modules_[here].globals[name] = value;
    modules_[here].imported.erase(name);
    return value;
  }
  // A module's own name (`logger = init_logger(__name__)`, `f"module {__name__!r} ..."`): the
  // name the kernels' host imports it by.
  if (name == "__name__" && graph_ && current_ < graph_->modules.size() &&
      !graph_->modules[current_].name.empty())
    return SemaValue::ofString(graph_->modules[current_].name);
  // The path of the module's file (`os.path.dirname(__file__)` to find files next to it), which
  // Python makes absolute for a module it imports and for the script it runs.
  if (name == "__file__" && graph_ && current_ < graph_->modules.size() &&
      !graph_->modules[current_].path.empty())
    return SemaValue::ofString(
        std::filesystem::absolute(graph_->modules[current_].path).lexically_normal().string());
  // Python builtins that kernels may use.
  static const std::set<std::string> pyBuiltins = {
      "range",      "min",    "max", "float",     "int",    "bool",       "len",
      "print",      "abs",    "str", "tuple",     "list",   "isinstance", "getattr",
      "hasattr",    "format", "sum", "any",       "all",    "filter",     "map",
      "dict",       "bin",    "oct", "hex",       "set",    "frozenset",  "open",
      "__import__", "eval",   "zip", "enumerate", "sorted", "reversed",   "object"};
  if (pyBuiltins.count(name))
    return SemaValue::ofBuiltin("py." + name);
  // The categories module-level code passes to warnings.warn, which ignores them (HostPython.cpp).
  static const std::set<std::string> warningCategories = {
      "Warning", "UserWarning", "DeprecationWarning", "FutureWarning", "RuntimeWarning"};
  if (warningCategories.count(name))
    return SemaValue::ofBuiltin("py." + name);
  if (mod().ast)
    if (const ast::Stmt *cls = classStatement(mod().ast->body, name)) {
      if (classNameUse)
        throw PlainClassName{};
      refuseClass(*cls, name, loc);
    }
  if (mod().ast)
    if (const ast::Stmt *with = moduleLevelWithBinding(mod().ast->body, name)) {
      try {
        error(loc, "'" + name +
                       "' is bound in a module-level `with` statement (such as `with open(path) "
                       "as f: " +
                       name +
                       " = json.load(f)`), which tilec does not evaluate: not supported yet");
      } catch (const CompileError &e) {
        rethrowWithNote(e, with->loc, "the `with` statement");
      }
    }
  if (auto loop = scopes_.back().endedLoopVariables.find(name);
      loop != scopes_.back().endedLoopVariables.end()) {
    try {
      error(loc, "undefined name '" + name +
                     "': a for loop's variable read after the loop, which Triton leaves "
                     "undefined (poison); tilec gives it Python's value only where the loop's "
                     "bounds are constexpr and it runs at least once");
    } catch (const CompileError &e) {
      rethrowWithNote(e, loop->second->loc, "the loop");
    }
  }
  error(loc, "undefined name '" + name + "'");
}

void Specializer::recordGlobalStatements(const ast::StmtList &body, const ast::Stmt &function) {
  for (const ast::StmtPtr &stmt : body) {
    if (stmt->kind == ast::StmtKind::Unsupported && stmt->name == "global statement")
      for (const ast::ImportAlias &name : stmt->names)
        mod().reboundByFunction[name.name].push_back({stmt.get(), &function});
    // Nested blocks (if, for, try...), nested functions too: a `global` statement anywhere names
    // the module's binding, and calling `function` may run the nested one.
    recordGlobalStatements(stmt->body, function);
    recordGlobalStatements(stmt->orelse, function);
    for (const ast::MatchCase &matchCase : stmt->cases)
      recordGlobalStatements(matchCase.body, function);
  }
}

void Specializer::recordClassGlobalStatements(const ast::Stmt &cls) {
  for (const ast::StmtPtr &stmt : cls.body) {
    if (stmt->kind == ast::StmtKind::FunctionDef)
      recordGlobalStatements(stmt->body, *stmt);
    else if (stmt->kind == ast::StmtKind::Unsupported && stmt->name == "class definition")
      recordClassGlobalStatements(*stmt);
  }
}

namespace {
void forEachExpr(const ast::StmtList &stmts, bool intoFunctions,
                 const std::function<void(const ast::Expr &)> &f);
} // namespace

const ast::Expr *Specializer::moduleLevelCallOf(const std::set<std::string> &names) {
  // By the name called (`set_mode(True)`, `determinism.set_mode(True)`), in every module tilec
  // loaded: the calls that the modules' top-level statements, decorators and defaults make when
  // they are imported.
  const ast::Expr *found = nullptr;
  for (const ModuleState &module : modules_) {
    if (!module.ast || found)
      continue;
    forEachExpr(module.ast->body, /*intoFunctions=*/false, [&](const ast::Expr &e) {
      if (found || e.kind != ast::ExprKind::Call)
        return;
      const ast::Expr &callee = *e.operands[0];
      if ((callee.kind == ast::ExprKind::Name || callee.kind == ast::ExprKind::Attribute) &&
          names.count(callee.name))
        found = &e;
    });
  }
  return found;
}

void Specializer::checkReboundGlobal(const std::string &name, SourceLoc use) {
  auto rebound = mod().reboundByFunction.find(name);
  if (rebound == mod().reboundByFunction.end())
    return;
  // A lazy loader runs: it reads the binding as it is now.
  if (mod().lazyLoadersRunning > 0)
    return;
  if (importDepth_ == 0 && runLazyLoaders(name, rebound->second, use))
    return;
  const ModuleState::Rebinding &first = rebound->second.front();
  std::string globalNote = "'global " + name + "' here, in '" + first.function->name + "'";
  const ast::Expr *call = nullptr;
  std::string message;
  if (importDepth_ == 0) {
    message = "module-level '" + name + "' is rebound by a function (global " + name +
              "), and this code runs when the kernel is compiled or launched, after the " +
              "program may have called that function: tilec cannot know the value then; not " +
              "supported yet (pass it as a constexpr argument instead)";
  } else {
    std::set<std::string> functions;
    for (const ModuleState::Rebinding &r : rebound->second)
      functions.insert(r.function->name);
    call = moduleLevelCallOf(functions);
    if (!call)
      return; // Import time: the module-level binding, as Python reads it then.
    if (runImportTimeCalls(functions, use))
      return;
    message = "module-level '" + name + "' is rebound by a function (global " + name +
              ") that module-level code calls when the module is imported: tilec evaluates " +
              "module-level names on demand, not in the order Python runs the statements; " +
              "not supported yet";
  }
  try {
    error(use, message);
  } catch (const CompileError &e) {
    std::string notes = std::string(e.what());
    sources_.note(first.global->loc, globalNote);
    notes += sources_.format(first.global->loc, "note", globalNote);
    if (call) {
      sources_.note(call->loc, "called here");
      notes += sources_.format(call->loc, "note", "called here");
    }
    throw CompileError(notes, e.reported());
  }
}

bool Specializer::runLazyLoaders(const std::string &name,
                                 const std::vector<ModuleState::Rebinding> &rebindings,
                                 SourceLoc use) {
  if (mod().lazilyLoaded.count(name))
    return true;
  const ast::Module *ast = mod().ast;
  if (!ast)
    return false;
  // Functions the host calls without arguments, so what they bind does not depend on the call
  // (`_load_helpers()` before each launch), in the order the module defines them.
  std::vector<const ast::Stmt *> loaders;
  for (const ast::StmtPtr &stmt : ast->body) {
    bool rebinds = std::any_of(rebindings.begin(), rebindings.end(),
                               [&](const auto &r) { return r.function == stmt.get(); });
    if (rebinds)
      loaders.push_back(stmt.get());
  }
  for (const ModuleState::Rebinding &r : rebindings)
    if (std::find(loaders.begin(), loaders.end(), r.function) == loaders.end())
      return false; // A method or a nested function.
  for (const ast::Stmt *loader : loaders)
    if (loader->kind != ast::StmtKind::FunctionDef ||
        std::any_of(loader->params.begin(), loader->params.end(), [](const ast::Param &p) {
          return !p.defaultValue && !p.isVarArgs && !p.isKwArgs;
        }))
      return false;
  // By index: running code may load modules (modules_ grows).
  size_t here = current_;
  struct Running {
    Specializer &self;
    size_t module;
    Running(Specializer &self, size_t module) : self(self), module(module) {
      ++self.modules_[module].lazyLoadersRunning;
    }
    ~Running() { --self.modules_[module].lazyLoadersRunning; }
  } running(*this, here);
  // Triton refuses a kernel's read of a global bound to None (code_generator's global_lookup
  // raises NameError), so a kernel that compiles reads the value a loader bound: the host
  // called the loaders before the launch. A module-level value the kernel could read as it is
  // (a flag a function toggles) stays ambiguous. So the module's own binding of every name a
  // loader rebinds is noted before the loader first runs.
  for (const ast::Stmt *loader : loaders) {
    if (modules_[here].lazyLoadersRun.count(loader))
      continue;
    std::vector<std::string> names;
    for (const auto &[rebound, functions] : modules_[here].reboundByFunction)
      if (std::any_of(functions.begin(), functions.end(),
                      [&](const auto &r) { return r.function == loader; }))
        names.push_back(rebound);
    for (const std::string &n : names)
      if (!modules_[here].boundToNoneBeforeLoaders.count(n))
        modules_[here].boundToNoneBeforeLoaders[n] = lookup(n, use).isNone();
  }
  if (!modules_[here].boundToNoneBeforeLoaders[name])
    return false;
  for (const ast::Stmt *loader : loaders) {
    if (!modules_[here].lazyLoadersRun.insert(loader).second)
      continue;
    CallArgs args;
    args.loc = use;
    atImport([&] { return inModuleLevelScope([&] { return callHostFunction(*loader, args); }); });
  }
  if (lookup(name, use).isNone())
    return false;
  modules_[here].lazilyLoaded.insert(name);
  return true;
}

bool Specializer::runImportTimeCalls(const std::set<std::string> &functions, SourceLoc use) {
  // By index: evaluating code may load modules (modules_ grows).
  size_t here = current_;
  const ast::Module *ast = modules_[here].ast;
  // A call runs: the function reads the binding as it is now.
  if (!modules_[here].importTimeCallsRunning.empty())
    return true;
  if (!ast)
    return false;
  // Every call of the functions that module-level code makes (moduleLevelCallOf's) must be a
  // statement `f(...)` of this module's top level, before the read in the file (a function
  // defined before a call may read the name after it: refused), or the read is in another
  // module, which imported this one whole.
  std::vector<const ast::Expr *> calls;
  for (const ast::StmtPtr &stmt : ast->body) {
    if (stmt->kind != ast::StmtKind::ExprStmt || stmt->value->kind != ast::ExprKind::Call)
      continue;
    const ast::Expr &callee = *stmt->value->operands[0];
    if ((callee.kind == ast::ExprKind::Name || callee.kind == ast::ExprKind::Attribute) &&
        functions.count(callee.name))
      calls.push_back(stmt->value.get());
  }
  bool elsewhere = false;
  for (const ModuleState &other : modules_) {
    if (!other.ast)
      continue;
    forEachExpr(other.ast->body, /*intoFunctions=*/false, [&](const ast::Expr &e) {
      if (e.kind != ast::ExprKind::Call)
        return;
      const ast::Expr &callee = *e.operands[0];
      if ((callee.kind == ast::ExprKind::Name || callee.kind == ast::ExprKind::Attribute) &&
          functions.count(callee.name) && std::find(calls.begin(), calls.end(), &e) == calls.end())
        elsewhere = true;
    });
  }
  if (elsewhere || calls.empty())
    return false;
  if (use.file == ast->file && std::any_of(calls.begin(), calls.end(), [&](const ast::Expr *call) {
        return call->loc.line >= use.line;
      }))
    return false;
  // Python ran them in order by then.
  for (const ast::Expr *call : calls) {
    if (!modules_[here].importTimeCallsRun.insert(call).second)
      continue;
    modules_[here].importTimeCallsRunning.insert(call);
    try {
      evalModuleLevel(*call);
    } catch (...) {
      modules_[here].importTimeCallsRunning.erase(call);
      throw;
    }
    modules_[here].importTimeCallsRunning.erase(call);
  }
  return true;
}

bool Specializer::assignDeclaredGlobal(const std::string &name, const SemaValue &value,
                                       SourceLoc loc) {
  if (scopes_.empty())
    return false;
  auto declared = scopes_.back().declaredGlobal.find(name);
  if (declared == scopes_.back().declaredGlobal.end())
    return false;
  // A module-level call of the function's module runs (runImportTimeCalls): the module's
  // binding changes, as in Python.
  if (!mod().importTimeCallsRunning.empty() || mod().lazyLoadersRunning > 0) {
    mod().globals[name] = value;
    mod().pending.erase(name);
    mod().pendingTarget.erase(name);
    mod().conditional.erase(name);
    mod().imported.erase(name);
    return true;
  }
  std::string message = "'global " + name + "' here";
  try {
    error(loc, std::string("module-level code calls this function when the module is ") +
                   "imported, and it rebinds module-level '" + name + "' (global " + name +
                   "): tilec evaluates " +
                   "module-level names on demand, not in the order Python runs the statements, " +
                   "and does not change them; not supported yet");
  } catch (const CompileError &e) {
    sources_.note(declared->second->loc, message);
    throw CompileError(std::string(e.what()) +
                           sources_.format(declared->second->loc, "note", message),
                       e.reported());
  }
  return false;
}

void Specializer::bind(const std::string &name, const SemaValue &value) {
  if (value.isTensor() && value.value->nameHint().empty())
    value.value->setNameHint(name);
  scopes_.back().names[name] = value;
  scopes_.back().ownLists.erase(name);
  for (const auto &closure : scopes_.back().closures)
    (*closure)[name] = value;
}

std::shared_ptr<const std::map<std::string, SemaValue>>
Specializer::evalDefaults(const ast::Stmt &def) {
  std::map<std::string, SemaValue> values;
  for (const ast::Param &param : def.params)
    if (param.defaultValue)
      values[param.name] = eval(*param.defaultValue);
  if (values.empty())
    return nullptr;
  return std::make_shared<const std::map<std::string, SemaValue>>(std::move(values));
}

std::shared_ptr<const std::map<std::string, SemaValue>> Specializer::liveClosure() {
  auto variables = std::make_shared<std::map<std::string, SemaValue>>(scopes_.back().names);
  scopes_.back().closures.push_back(variables);
  madeClosures_.push_back(variables);
  return variables;
}

Specializer::~Specializer() {
  for (const auto &made : madeClosures_)
    if (auto variables = made.lock())
      variables->clear();
}

/// Whether evaluating `expr` makes a new list that nothing else holds.
static bool makesNewList(const ast::Expr &expr) {
  switch (expr.kind) {
  case ast::ExprKind::List:
    return true;
  case ast::ExprKind::Comprehension:
    return expr.boolValue;
  case ast::ExprKind::BinOp:
    return expr.binOp == ast::BinaryOperator::Add || expr.binOp == ast::BinaryOperator::Mul;
  case ast::ExprKind::Call:
    return expr.operands[0]->kind == ast::ExprKind::Name &&
           (expr.operands[0]->name == "list" || expr.operands[0]->name == "sorted");
  default:
    return false;
  }
}

void Specializer::assign(const ast::Expr &target, const SemaValue &value) {
  if (target.kind == ast::ExprKind::Name) {
    if (!assignDeclaredGlobal(target.name, value, target.loc))
      bind(target.name, value);
    return;
  }
  if (target.kind == ast::ExprKind::Tuple || target.kind == ast::ExprKind::List) {
    if (value.kind != SemaValue::Kind::Tuple)
      error(target.loc, "cannot unpack " + value.describe() + " into " +
                            std::to_string(target.operands.size()) + " names");
    if (value.elems.size() != target.operands.size())
      error(target.loc, "cannot unpack " + std::to_string(value.elems.size()) + " values into " +
                            std::to_string(target.operands.size()) + " names");
    for (size_t i = 0; i < target.operands.size(); ++i)
      assign(*target.operands[i], value.elems[i]);
    return;
  }
  if (assignPythonObjectAttribute(target, value))
    return;
  if (assignInPlace(target, value))
    return;
  // Other host Python that changes objects in place (a function computing autotune configs that
  // sets `config.kwargs["X"] = v` on each triton.Config) changes values that other names share;
  // tilec's values other than user-class objects are not shared, so such a change would be lost
  // rather than seen where Python sees it.
  if ((target.kind == ast::ExprKind::Subscript || target.kind == ast::ExprKind::Attribute) &&
      !inKernelCode())
    error(target.loc, "changing an object in place (an element or attribute assignment) in the "
                      "host Python that tilec evaluates is not supported yet");
  if (target.kind == ast::ExprKind::Subscript || target.kind == ast::ExprKind::Attribute)
    error(target.loc, "assigning to an element or attribute is not supported in a kernel: tensors "
                      "are immutable, store through a pointer with tl.store");
  error(target.loc, "cannot assign to this expression");
}

//===----------------------------------------------------------------------===//
// Kernel entry
//===----------------------------------------------------------------------===//

bool isConstexprAnnotation(const ast::Expr *annotation) {
  if (!annotation)
    return false;
  // A string annotation (`BLOCK_SIZE: "tl.constexpr"`, torch's test kernels): Triton's JIT
  // calls the parameter constexpr when the string holds "constexpr" (KernelParam.is_constexpr).
  if (annotation->kind == ast::ExprKind::StringLit && !annotation->isFString)
    return annotation->stringValue.find("constexpr") != std::string::npos;
  // Triton's JIT calls a parameter constexpr when the name of its annotation's class is
  // `constexpr`, however the module reached it: `tl.constexpr`, `core.constexpr` after
  // `import triton.language.core as core`, `tl.core.constexpr`.
  // Python evaluates the annotation, so a module-level name for that class is one too (Fast-LLM
  // annotates `n_cols: tl_constexpr` after `tl_constexpr = tl.constexpr`).
  if (decoratorAlias(*annotation) == "constexpr")
    return true;
  std::string name = dottedName(*annotation);
  static const std::string kSuffix = ".constexpr";
  return name == "constexpr" ||
         (name.size() > kSuffix.size() &&
          name.compare(name.size() - kSuffix.size(), kSuffix.size(), kSuffix) == 0);
}

std::optional<SemaValue> Specializer::runtimeArgument(const std::string &name) {
  auto desc = std::find_if(function_.tensorDescriptors.begin(), function_.tensorDescriptors.end(),
                           [&](const tir::TensorDescParam &d) { return d.name == name; });
  if (desc != function_.tensorDescriptors.end())
    return tensorDescriptorArgument(*desc);
  // Run-time parameters were added as body arguments by specializeKernel, in order.
  for (unsigned index = 0; index < function_.params.size(); ++index)
    if (function_.params[index].name == name)
      return SemaValue::ofTensor(function_.body().argument(index));
  return std::nullopt;
}

SemaValue Specializer::tupleArgument(const std::string &name, const SignatureEntry &entry) {
  std::vector<SemaValue> elements;
  for (size_t i = 0; i < entry.elements.size(); ++i) {
    const SignatureEntry &element = entry.elements[i];
    std::string elementName = name + "." + std::to_string(i);
    if (element.kind == SignatureEntry::Kind::Tuple) {
      elements.push_back(tupleArgument(elementName, element));
      continue;
    }
    if (element.kind == SignatureEntry::Kind::Constant) {
      // specializeKernel checked that the literal reads (or names a function).
      std::optional<SemaValue> literal = parseConstexprLiteral(element.constant);
      SemaValue value = literal ? *literal : functionReference(element.constant);
      function_.constexprs.push_back({elementName, literal ? value.repr() : element.constant});
      elements.push_back(value);
      continue;
    }
    std::optional<SemaValue> value = runtimeArgument(elementName);
    assert(value && "specializeKernel adds a parameter for every run-time tuple element");
    elements.push_back(*value);
  }
  SemaValue tuple = SemaValue::ofTuple(std::move(elements));
  tuple.name = entry.className; // a NamedTuple's class, bound by specialize
  return tuple;
}

void Specializer::specialize(const ast::Stmt &kernel,
                             const std::map<std::string, SemaValue> &constexprArgs,
                             const std::map<std::string, SignatureEntry> &tupleArgs) {
  scopes_.push_back(Scope{});
  builder_.setLoc(kernel.loc);
  for (const ast::Param &param : kernel.params) {
    auto bound = constexprArgs.find(param.name);
    if (bound != constexprArgs.end()) {
      SemaValue value = bound->second;
      if (value.kind == SemaValue::Kind::Object && value.name == kFunctionReferenceClass) {
        const std::string &text = value.elems.at(0).name;
        bind(param.name, resolveFunctionReference(text, param.loc));
        function_.constexprs.push_back({param.name, text});
        continue;
      }
      bindNamedTupleClasses(value, param.loc);
      bind(param.name, value);
      function_.constexprs.push_back({param.name, value.repr()});
      continue;
    }
    auto tuple = tupleArgs.find(param.name);
    if (tuple != tupleArgs.end()) {
      SemaValue value = tupleArgument(param.name, tuple->second);
      bindNamedTupleClasses(value, param.loc);
      bind(param.name, value);
      continue;
    }
    if (std::optional<SemaValue> value = runtimeArgument(param.name)) {
      bind(param.name, *value);
      continue;
    }
    // A parameter the signature did not cover: its default, evaluated in module scope.
    if (!param.defaultValue)
      error(param.loc, "parameter '" + param.name + "' has no value: give it in the signature" +
                           (isConstexprAnnotation(param.annotation.get())
                                ? " or with -D " + param.name + "=VALUE"
                                : ""));
    scopes_.push_back(Scope{});
    SemaValue value;
    try {
      value = eval(*param.defaultValue);
    } catch (const CompileError &e) {
      scopes_.pop_back();
      // The default is module-level Python the kernel's caller ran on its machine; binding the
      // parameter skips it.
      std::string message =
          "evaluating the default of '" + param.name +
          "', which the signature does not give (give it there" +
          (isConstexprAnnotation(param.annotation.get()) ? " or with -D " + param.name + "=VALUE)"
                                                         : ")");
      rethrowWithNote(e, param.loc, message);
    }
    scopes_.pop_back();
    bind(param.name, value);
    function_.constexprs.push_back({param.name, value.repr()});
  }
  execBlock(kernel.body);
  if (returnValue_ && !returnValue_->isNone())
    error(kernel.loc, "a kernel cannot return a value");
  builder_.setInsertionPointToEnd(function_.body());
  builder_.setLoc(kernel.loc);
  builder_.create(OpCode::Return, {}, {});
}

//===----------------------------------------------------------------------===//
// Statements
//===----------------------------------------------------------------------===//

Specializer::NestingGuard::NestingGuard(Specializer &s, SourceLoc loc) : s(s) {
  if (++s.nestingDepth_ > kMaxNestingDepth)
    s.error(loc, "expressions and blocks nest too deeply through inlined calls (more than " +
                     std::to_string(kMaxNestingDepth) + " levels)");
}

void Specializer::execBlock(const ast::StmtList &stmts, size_t from) {
  NestingGuard guard(*this, stmts.empty() ? builder_.loc() : stmts.front()->loc);
  for (size_t i = from; i < stmts.size(); ++i) {
    if (returnValue_ || loopExit_ != LoopExit::None)
      return;
    // What follows this statement, for an `if` with a `return` on a run-time condition, which
    // runs it inside its branches (see execReturningIf).
    continuations_.push_back({&stmts, i + 1});
    exec(*stmts[i]);
    continuations_.pop_back();
  }
}

static bool containsReturn(const ast::StmtList &stmts) {
  for (const ast::StmtPtr &stmt : stmts) {
    if (stmt->kind == ast::StmtKind::Return)
      return true;
    if (stmt->kind == ast::StmtKind::FunctionDef)
      continue;
    if (containsReturn(stmt->body) || containsReturn(stmt->orelse))
      return true;
  }
  return false;
}

void Specializer::exec(const ast::Stmt &stmt) {
  builder_.setLoc(stmt.loc);
  switch (stmt.kind) {
  case ast::StmtKind::ExprStmt:
    // Docstrings and other bare constants do nothing.
    if (stmt.value->kind == ast::ExprKind::StringLit)
      return;
    if (stmt.value->kind == ast::ExprKind::Call)
      checkResultUsed(*stmt.value);
    eval(*stmt.value);
    return;
  case ast::StmtKind::Assign:
  case ast::StmtKind::AugAssign:
  case ast::StmtKind::AnnAssign:
    execAssign(stmt);
    return;
  case ast::StmtKind::If:
    execIf(stmt);
    return;
  case ast::StmtKind::For:
    execFor(stmt);
    return;
  case ast::StmtKind::While:
    execWhile(stmt);
    return;
  case ast::StmtKind::Pass:
    return;
  case ast::StmtKind::Return:
    if (runtimeControlFlowDepth_ > 0)
      error(stmt.loc, "'return' inside a loop or an 'if' on a run-time condition is not "
                      "supported yet");
    returnValue_ = stmt.value ? eval(*stmt.value) : SemaValue::none();
    if (inKernelCode())
      returnValue_ = decayNumbers(*returnValue_, stmt.loc);
    return;
  case ast::StmtKind::Assert: {
    SemaValue cond = eval(*stmt.test);
    std::string message;
    if (stmt.value) {
      SemaValue m = eval(*stmt.value);
      message = m.kind == SemaValue::Kind::String ? m.name : m.repr();
    }
    // Outside debug mode Triton drops the assertion (a failing constant one included).
    if (!debug_)
      return;
    if (auto truth = constexprTruth(cond)) {
      if (!*truth)
        error(stmt.loc, "assertion failed" + (message.empty() ? "" : ": " + message));
      return;
    }
    tir::Operation *op = builder_.create(OpCode::Assert, {toValue(cond, stmt.loc, "assert")}, {});
    op->setAttr("message", message);
    return;
  }
  case ast::StmtKind::Break:
  case ast::StmtKind::Continue:
    // Python code that module-level code runs (a config builder, an early_config_prune).
    if (moduleLevelDepth_ > 0) {
      loopExit_ = stmt.kind == ast::StmtKind::Break ? LoopExit::Break : LoopExit::Continue;
      return;
    }
    error(stmt.loc, std::string("'") + (stmt.kind == ast::StmtKind::Break ? "break" : "continue") +
                        "' is not supported in kernels (Triton does not support it either)");
  case ast::StmtKind::FunctionDef:
    // A plain Python function that module-level code calls may define and return a function
    // (vLLM's envs build their variables' readers with env_with_choices(...)): a function like
    // a lambda, over the variables its maker has bound so far.
    if (hostCallDepth_ > 0 && !inKernelCode() && stmt.decorators.empty()) {
      SemaValue function = SemaValue::ofBuiltin("pyfunc:" + stmt.name);
      function.function = &stmt;
      function.defaults = evalDefaults(stmt);
      if (!scopes_.empty())
        function.closure = liveClosure();
      bind(stmt.name, function);
      return;
    }
    error(stmt.loc, "nested function definitions are not supported in kernels");
  case ast::StmtKind::Import:
  case ast::StmtKind::ImportFrom:
    if (hostCallDepth_ > 0) {
      execHostImport(stmt);
      return;
    }
    error(stmt.loc, "imports inside a kernel are not supported; import at module level");
  case ast::StmtKind::Match:
    if (hostCallDepth_ > 0) {
      execMatch(stmt);
      return;
    }
    error(stmt.loc, "match statement in a kernel: Triton's code generator has none (unsupported "
                    "AST node type: Match)");
  case ast::StmtKind::Unsupported:
    if (hostCallDepth_ > 0 && stmt.name == "global statement") {
      // Reading the names is reading the module's bindings, which lookup does for names the
      // function does not bind; binding them is refused, or changes the module's binding while a
      // module-level call runs (assignDeclaredGlobal).
      for (const ast::ImportAlias &name : stmt.names)
        scopes_.back().declaredGlobal.emplace(name.name, &stmt);
      return;
    }
    if (hostCallDepth_ > 0 && stmt.name == "try statement") {
      execTry(stmt);
      return;
    }
    if (hostCallDepth_ > 0 && stmt.name == "raise statement")
      execRaise(stmt);
    if (hostCallDepth_ > 0 && !inKernelCode() && stmt.name == "with statement") {
      // `with open(path) as f: return json.load(f)` in a function that module-level code
      // calls: each context manager entered in turn, its `as` target bound, then the body.
      for (size_t i = 0; i < stmt.withItems.size(); ++i) {
        SemaValue value = enterContext(eval(*stmt.withItems[i]), stmt.withItems[i]->loc);
        if (stmt.withTargets[i])
          assign(*stmt.withTargets[i], value);
      }
      execBlock(stmt.body);
      return;
    }
    if (hostCallDepth_ > 0)
      error(stmt.loc, stmt.name + " is not supported yet in Python code that tilec evaluates at "
                                  "module level");
    // Triton's code generator has no `raise` either: a kernel reaching one (a constexpr branch
    // taken, such as `if quant_max is not None: raise NotImplementedError()`) does not compile.
    if (stmt.name == "raise statement")
      error(stmt.loc, "raise in a kernel: Triton's code generator has none (unsupported AST node "
                      "type: Raise); only a compile-time branch not taken may hold one");
    // Triton's code generator first evaluates what each `with` item calls (`tl.async_task` of a
    // warp-specializing fork is no attribute of Triton 3.6's triton.language): report that.
    if (stmt.name == "with statement")
      for (const ast::ExprPtr &item : stmt.withItems)
        eval(item->kind == ast::ExprKind::Call ? *item->operands[0] : *item);
    error(stmt.loc, stmt.name + " is not supported yet in a kernel");
  }
}

void Specializer::execTry(const ast::Stmt &stmt) {
  // `finally` runs on every way out; a `return` before it stays pending unless it returns.
  auto runFinally = [&] {
    std::optional<SemaValue> pending = std::move(returnValue_);
    returnValue_.reset();
    LoopExit pendingExit = std::exchange(loopExit_, LoopExit::None);
    execBlock(stmt.finalbody);
    if (!returnValue_ && loopExit_ == LoopExit::None) {
      returnValue_ = std::move(pending);
      loopExit_ = pendingExit;
    }
  };
  try {
    execBlock(stmt.body);
  } catch (const HostException &e) {
    auto handler = std::find_if(stmt.handlers.begin(), stmt.handlers.end(),
                                [&](const ast::ExceptHandler &h) { return handlerCatches(h, e); });
    if (handler == stmt.handlers.end()) {
      runFinally();
      throw;
    }
    if (!handler->name.empty())
      bind(handler->name, SemaValue::ofString(e.message));
    handledExceptions_.push_back(e); // for a bare `raise` in the handler
    try {
      execBlock(handler->body);
    } catch (...) {
      handledExceptions_.pop_back();
      runFinally();
      throw;
    }
    handledExceptions_.pop_back();
    runFinally();
    return;
  }
  if (!returnValue_ && loopExit_ == LoopExit::None)
    execBlock(stmt.orelse);
  runFinally();
}

std::optional<std::vector<std::string>> builtinExceptionClasses(const std::string &name) {
  static const std::map<std::string, std::vector<std::string>> bases = {
      {"BaseException", {}},
      {"Exception", {"BaseException"}},
      {"ArithmeticError", {"Exception", "BaseException"}},
      {"AssertionError", {"Exception", "BaseException"}},
      {"AttributeError", {"Exception", "BaseException"}},
      {"ImportError", {"Exception", "BaseException"}},
      {"ModuleNotFoundError", {"ImportError", "Exception", "BaseException"}},
      {"LookupError", {"Exception", "BaseException"}},
      {"IndexError", {"LookupError", "Exception", "BaseException"}},
      {"KeyError", {"LookupError", "Exception", "BaseException"}},
      {"NameError", {"Exception", "BaseException"}},
      {"NotImplementedError", {"RuntimeError", "Exception", "BaseException"}},
      {"OSError", {"Exception", "BaseException"}},
      // IOError and EnvironmentError are OSError's other names, which `except` clauses use.
      {"FileNotFoundError",
       {"OSError", "IOError", "EnvironmentError", "Exception", "BaseException"}},
      {"IsADirectoryError",
       {"OSError", "IOError", "EnvironmentError", "Exception", "BaseException"}},
      {"RecursionError", {"RuntimeError", "Exception", "BaseException"}},
      {"OverflowError", {"ArithmeticError", "Exception", "BaseException"}},
      {"RuntimeError", {"Exception", "BaseException"}},
      {"TypeError", {"Exception", "BaseException"}},
      {"ValueError", {"Exception", "BaseException"}},
      {"ZeroDivisionError", {"ArithmeticError", "Exception", "BaseException"}},
  };
  auto it = bases.find(name);
  if (it == bases.end())
    return std::nullopt;
  std::vector<std::string> classes = {name};
  classes.insert(classes.end(), it->second.begin(), it->second.end());
  return classes;
}

std::vector<std::string> libraryExceptionClasses(const std::string &name, const std::string &base) {
  std::vector<std::string> classes = {name};
  std::vector<std::string> bases = *builtinExceptionClasses(base);
  classes.insert(classes.end(), bases.begin(), bases.end());
  return classes;
}

void Specializer::execRaise(const ast::Stmt &stmt) {
  if (!stmt.value) { // a bare `raise` re-raises the exception being handled
    if (handledExceptions_.empty())
      throw HostException{*builtinExceptionClasses("RuntimeError"),
                          "No active exception to reraise", stmt.loc};
    throw handledExceptions_.back();
  }
  // `raise ValueError("...")` or `raise ValueError`, of Python's built-in classes.
  const ast::Expr &raised = *stmt.value;
  const ast::Expr &cls = raised.kind == ast::ExprKind::Call ? *raised.operands[0] : raised;
  std::optional<std::vector<std::string>> classes;
  if (cls.kind == ast::ExprKind::Name || cls.kind == ast::ExprKind::Attribute)
    classes = builtinExceptionClasses(cls.name);
  if (!classes ||
      (cls.kind == ast::ExprKind::Attribute &&
       !(cls.operands[0]->kind == ast::ExprKind::Name && cls.operands[0]->name == "builtins")))
    error(cls.loc,
          "raising " +
              std::string(cls.kind == ast::ExprKind::Name ? "'" + cls.name + "'" : "this") +
              " is not supported yet in Python code that tilec evaluates (it raises "
              "Python's built-in exceptions: ValueError, RuntimeError, ImportError, ...)");
  // str() of the exception: its one argument's str() (a KeyError's repr()), several arguments'
  // tuple, or "".
  std::string message;
  if (raised.kind == ast::ExprKind::Call) {
    if (!raised.keywords.empty())
      error(raised.keywords[0].loc, "keyword arguments of an exception are not supported yet");
    std::vector<SemaValue> args;
    for (size_t i = 1; i < raised.operands.size(); ++i)
      args.push_back(eval(*raised.operands[i]));
    if (args.size() == 1 && (*classes)[0] == "KeyError") {
      // KeyError's str() is its key's repr(): that of the 1-tuple without "(" and ",)".
      std::string tuple = pythonStr(SemaValue::ofTuple(args), raised.operands[1]->loc);
      message = tuple.substr(1, tuple.size() - 3);
    } else if (args.size() == 1) {
      message = pythonStr(args[0], raised.operands[1]->loc);
    } else if (args.size() > 1)
      message = pythonStr(SemaValue::ofTuple(args), raised.loc);
  }
  throw HostException{*classes, message, stmt.loc};
}

SemaValue Specializer::evalFString(const ast::Expr &expr) {
  // In a kernel, as Triton's code generator: every field is a compile-time value, formatted by
  // its conversion (str() by default), and its format spec is ignored. The Python code that
  // module-level evaluation runs formats as Python does: format(value, spec) of the field's
  // value, or of its conversion's string.
  const bool python = hostCallDepth_ > 0 || moduleLevelDepth_ > 0;
  std::string text = expr.fstringLiterals[0];
  for (size_t i = 0; i < expr.operands.size(); ++i) {
    const ast::Expr &field = *expr.operands[i];
    SemaValue value = eval(field);
    if (value.isTensor())
      error(field.loc, "Cannot evaluate f-string containing non-constexpr conversion values, "
                       "found conversion of type <class 'triton.language.core.tensor'>");
    char conversion = expr.fstringConversions[i];
    std::string converted;
    if (conversion == 'a') {
      converted = pythonRepr(value, field.loc);
      if (std::any_of(converted.begin(), converted.end(), [](char c) { return c & 0x80; }))
        error(field.loc, "'!a' of text outside ASCII is not supported yet");
    } else if (conversion == 'r') {
      converted = pythonRepr(value, field.loc);
    } else if (!python || conversion == 's' || expr.fstringSpecs[i].empty()) {
      converted = pythonStr(value, field.loc);
    }
    if (python && !expr.fstringSpecs[i].empty()) {
      std::string spec = expr.fstringSpecs[i];
      if (const ast::ExprPtr &fields = expr.fstringSpecFields[i])
        spec = evalFString(*fields).name;
      text += pythonFormat(conversion ? SemaValue::ofString(converted) : value, spec, field.loc);
    } else {
      text += converted;
    }
    text += expr.fstringLiterals[i + 1];
  }
  return SemaValue::ofString(text);
}

void Specializer::execHostImport(const ast::Stmt &stmt) {
  for (auto &[name, value] : hostImportBindings(stmt))
    bind(name, value);
}

SemaValue Specializer::importedValue(const ast::Stmt &import, const std::string &name) {
  try {
    for (auto &[bound, value] : hostImportBindings(import))
      if (bound == name)
        return value;
  } catch (const HostException &e) {
    error(e.loc, e.message + " (imported by the function that defines the kernel)");
  }
  error(import.loc, "this import does not bind '" + name + "'");
}

std::vector<std::pair<std::string, SemaValue>>
Specializer::hostImportBindings(const ast::Stmt &stmt) {
  auto notInstalled = [](const std::string &dotted, SourceLoc loc) {
    throw HostException{*builtinExceptionClasses("ModuleNotFoundError"),
                        "No module named '" + dotted.substr(0, dotted.find('.')) + "'", loc};
  };
  std::vector<std::pair<std::string, SemaValue>> bindings;
  if (stmt.kind == ast::StmtKind::Import) {
    for (const ast::ImportAlias &alias : stmt.names) {
      std::string root = alias.name.substr(0, alias.name.find('.'));
      std::string bound = alias.asName.empty() ? root : alias.asName;
      if (int m = graph_ ? graph_->resolved(alias.loc) : -1; m >= 0) {
        bindings.push_back({bound, SemaValue::ofUserModule(graph_->modules[m].name, m)});
        continue;
      }
      if (!isAlwaysInstalled(root))
        notInstalled(alias.name, alias.loc);
      bindings.push_back({bound, SemaValue::ofModule(alias.asName.empty() ? root : alias.name)});
    }
    return bindings;
  }
  size_t level = stmt.module.find_first_not_of('.');
  std::string dotted = level == std::string::npos ? "" : stmt.module.substr(level);
  int base = graph_ ? graph_->resolved(stmt.loc) : -1;
  if (base < 0 && (level != 0 || !isAlwaysInstalled(dotted.substr(0, dotted.find('.')))))
    notInstalled(level != 0 ? stmt.module : dotted, stmt.loc);
  for (const ast::ImportAlias &alias : stmt.names) {
    if (alias.name == "*")
      error(alias.loc, "'from ... import *' is only allowed at module level");
    std::string bound = alias.asName.empty() ? alias.name : alias.asName;
    if (base >= 0)
      bindings.push_back({bound, userModuleAttribute(base, alias.name, alias.loc)});
    else
      bindings.push_back({bound, moduleAttribute(stmt.module, alias.name, alias.loc)});
  }
  return bindings;
}

SemaValue Specializer::callHostFunction(const ast::Stmt &def, CallArgs &args) {
  ++hostCallDepth_;
  hostFunctions_.push_back(&def);
  SemaValue result;
  try {
    result = callJitFunction(def, args);
  } catch (const HostException &e) {
    --hostCallDepth_;
    hostFunctions_.pop_back();
    if (hostCallDepth_ > 0)
      throw;
    std::string message = "calling '" + def.name + "' raised " + e.classes[0] + ": " + e.message;
    // A module that is not installed may be one tilec does not see.
    if (std::find(e.classes.begin(), e.classes.end(), "ImportError") != e.classes.end())
      message += " (module-level code that tilec evaluates sees only Python's standard library, "
                 "torch, numpy, triton and the files it finds)";
    try {
      error(args.loc, message);
    } catch (const CompileError &err) {
      sources_.note(e.loc, "raised here");
      throw CompileError(std::string(err.what()) + sources_.format(e.loc, "note", "raised here"),
                         err.reported());
    }
  } catch (...) {
    --hostCallDepth_;
    hostFunctions_.pop_back();
    throw;
  }
  --hostCallDepth_;
  hostFunctions_.pop_back();
  return result;
}

SemaValue Specializer::callHostFunction(const SemaValue &function, CallArgs &args) {
  // A project's own triton.autotune or triton.heuristics (GaLore's custom_autotune builds
  // copies of Triton's classes): the decorator as Triton's would be, for the kernel it wraps.
  if (isAutotuneWrapper(*function.function) || isHeuristicsWrapper(*function.function)) {
    std::vector<std::string> params;
    for (const ast::Param &param : function.function->params)
      if (!param.isVarArgs && !param.isKwArgs)
        params.push_back(param.name);
    bool autotune = isAutotuneWrapper(*function.function);
    CallArgs known = args;
    // Its run-time options (prune_configs_by, warmup...) are the wrapper's own: only configs
    // and key (values) are read.
    known.keywords.erase(std::remove_if(known.keywords.begin(), known.keywords.end(),
                                        [&](const auto &k) {
                                          return std::find(params.begin(), params.end(), k.first) ==
                                                 params.end();
                                        }),
                         known.keywords.end());
    auto bound = bindCallArgs(*this, function.function->name, params, autotune ? 2 : 1, known);
    SemaValue decorator;
    decorator.kind = SemaValue::Kind::Object;
    decorator.name = autotune ? kTritonAutotuneClass : kTritonHeuristicsClass;
    if (autotune)
      decorator.elems = {*bound[0], *bound[1]};
    else
      decorator.elems = {*bound[0]};
    if (!autotune && (decorator.elems[0].kind != SemaValue::Kind::Object ||
                      decorator.elems[0].name != kDictClass))
      error(args.loc, function.function->name + ": values must be a dict, not " +
                          decorator.elems[0].describe());
    return decorator;
  }
  pendingClosure_ = function.closure.get();
  pendingDefaults_ = function.defaults.get();
  return callHostFunction(*function.function, args);
}

SemaValue Specializer::callConstexprFunction(const ast::Stmt &def, CallArgs &args) {
  std::function<bool(const SemaValue &)> compileTime = [&](const SemaValue &v) {
    if (v.kind == SemaValue::Kind::Tuple)
      return std::all_of(v.elems.begin(), v.elems.end(), compileTime);
    return v.kind != SemaValue::Kind::Tensor && v.kind != SemaValue::Kind::BlockPtr &&
           v.kind != SemaValue::Kind::TensorDesc;
  };
  for (const SemaValue &v : args.positional)
    if (!compileTime(v))
      error(args.loc, "'" + def.name + "' is a constexpr function: its arguments must be known " +
                          "at compile time, not " + v.describe());
  for (const auto &[name, v] : args.keywords)
    if (!compileTime(v))
      error(args.loc, "'" + def.name + "' is a constexpr function: its argument '" + name +
                          "' must be known at compile time, not " + v.describe());
  // Its body is Python, run as module-level code runs.
  ++moduleLevelDepth_;
  SemaValue result;
  try {
    result = callHostFunction(def, args);
  } catch (...) {
    --moduleLevelDepth_;
    throw;
  }
  --moduleLevelDepth_;
  if (!compileTime(result))
    error(args.loc, "constexpr function '" + def.name + "' returned " + result.describe());
  return result;
}

void Specializer::execAssign(const ast::Stmt &stmt) {
  if (stmt.kind == ast::StmtKind::AugAssign) {
    const ast::Expr &target = *stmt.targets[0];
    // `self.count += 1` on an object of a Python class, in Python code that tilec runs (an
    // attribute holding a list is changed in place in Python: refused as for names).
    // `d["k"] += 1`, `xs[i] += 1` and `self.items += [...]` in Python code: the element or
    // attribute, combined; `+=` on a list extends it in place.
    if ((target.kind == ast::ExprKind::Attribute || target.kind == ast::ExprKind::Subscript) &&
        !inKernelCode() && (moduleLevelDepth_ > 0 || hostCallDepth_ > 0)) {
      SemaValue current = eval(target);
      SemaValue rhs = eval(*stmt.value);
      bool list = current.kind == SemaValue::Kind::Tuple && current.isList;
      if (list && stmt.augOp == ast::BinaryOperator::Add && extendInPlace(current, rhs, stmt.loc))
        return;
      if (list)
        error(stmt.loc, "'" + std::string(ast::spelling(stmt.augOp)) +
                            "=' changes this list in place, which its other holders see in "
                            "Python: not supported yet on a list whose holders tilec cannot "
                            "follow");
      SemaValue result = binaryOp(stmt.augOp, current, rhs, stmt.loc);
      if (assignPythonObjectAttribute(target, result) || assignInPlace(target, result))
        return;
    }
    if (target.kind != ast::ExprKind::Name)
      error(target.loc, "augmented assignment is only supported to a name in a kernel");
    SemaValue current = lookup(target.name, target.loc);
    SemaValue rhs = eval(*stmt.value);
    builder_.setLoc(stmt.loc);
    // `xs += ys` changes a list in place, as xs.extend(ys): every holder of the list sees it.
    if (hostCallDepth_ > 0 && stmt.augOp == ast::BinaryOperator::Add &&
        extendInPlace(current, rhs, stmt.loc))
      return;
    bool ownList = !scopes_.empty() && scopes_.back().ownLists.count(target.name);
    if (hostCallDepth_ > 0 && current.kind == SemaValue::Kind::Tuple && current.isList && !ownList)
      error(stmt.loc, "'+=' changes the list '" + target.name +
                          "' in place, which its other holders (a caller, another name) see in "
                          "Python; tilec's lists are not shared: not supported yet on a list "
                          "this function did not make itself");
    SemaValue result = binaryOp(stmt.augOp, current, rhs, stmt.loc);
    if (assignDeclaredGlobal(target.name, result, target.loc))
      return;
    bind(target.name, inKernelCode() ? decayNumbers(result, stmt.loc) : result);
    if (ownList)
      scopes_.back().ownLists.insert(target.name);
    return;
  }
  if (stmt.kind == ast::StmtKind::AnnAssign) {
    if (!stmt.value)
      return; // a bare annotation declares nothing at run time
    SemaValue value = eval(*stmt.value);
    // `x: tl.constexpr = ...` keeps a compile-time value; any other annotation is an assignment.
    if (inKernelCode() && !isConstexprAnnotation(stmt.annotation.get()))
      value = decayNumbers(value, stmt.loc);
    assign(*stmt.targets[0], value);
    return;
  }
  SemaValue value = eval(*stmt.value);
  if (inKernelCode())
    value = decayNumbers(value, stmt.loc);
  for (const ast::ExprPtr &target : stmt.targets)
    assign(*target, value);
  if (hostCallDepth_ == 0 || scopes_.empty())
    return;
  // `b = a` makes two holders of one list; `xs = []` one.
  if (stmt.value->kind == ast::ExprKind::Name)
    scopes_.back().ownLists.erase(stmt.value->name);
  if (stmt.targets.size() == 1 && stmt.targets[0]->kind == ast::ExprKind::Name &&
      value.kind == SemaValue::Kind::Tuple && value.isList && makesNewList(*stmt.value))
    scopes_.back().ownLists.insert(stmt.targets[0]->name);
}

std::optional<bool> Specializer::constexprTruth(const SemaValue &v) const {
  switch (v.kind) {
  case SemaValue::Kind::None:
    return false;
  case SemaValue::Kind::Int:
    return v.numberAsWideInt() != 0;
  case SemaValue::Kind::Float:
    return v.floatValue != 0.0;
  case SemaValue::Kind::Bool:
    return v.boolValue;
  case SemaValue::Kind::String:
    return !v.name.empty();
  case SemaValue::Kind::Tuple:
    return !v.elems.empty();
  case SemaValue::Kind::Tensor:
    return std::nullopt;
  case SemaValue::Kind::Object:
    // An unknown value's truth is refused where it is asked (the statement being evaluated).
    if (isUnknown(v))
      refuseUnknown(v, builder_.loc(), "this value's truth");
    // An empty dict or set is false.
    if (v.name == kDictClass || isSetObject(v))
      return !v.elems[0].elems.empty();
    return true;
  default:
    return true;
  }
}

// Names assigned anywhere in `body` (not inside nested function definitions), in first-seen order.
static void collectAssigned(const ast::Expr &target, std::vector<std::string> &out) {
  if (target.kind == ast::ExprKind::Name) {
    if (std::find(out.begin(), out.end(), target.name) == out.end())
      out.push_back(target.name);
    return;
  }
  if (target.kind == ast::ExprKind::Tuple || target.kind == ast::ExprKind::List)
    for (const ast::ExprPtr &e : target.operands)
      collectAssigned(*e, out);
}

static void collectAssigned(const ast::StmtList &body, std::vector<std::string> &out) {
  for (const ast::StmtPtr &stmt : body) {
    switch (stmt->kind) {
    case ast::StmtKind::Assign:
    case ast::StmtKind::AugAssign:
    case ast::StmtKind::AnnAssign:
      for (const ast::ExprPtr &t : stmt->targets)
        collectAssigned(*t, out);
      break;
    case ast::StmtKind::For:
      collectAssigned(*stmt->targets[0], out);
      collectAssigned(stmt->body, out);
      collectAssigned(stmt->orelse, out);
      break;
    case ast::StmtKind::If:
    case ast::StmtKind::While:
      collectAssigned(stmt->body, out);
      collectAssigned(stmt->orelse, out);
      break;
    default:
      break;
    }
  }
}

std::vector<std::string> Specializer::carriedNames(const ast::StmtList &body) const {
  std::vector<std::string> assigned;
  collectAssigned(body, assigned);
  std::vector<std::string> carried;
  for (const std::string &name : assigned)
    if (scopes_.back().names.count(name))
      carried.push_back(name);
  return carried;
}

std::vector<std::pair<std::string, SemaValue>>
Specializer::liveBindings(const std::vector<std::string> &names) {
  std::vector<std::pair<std::string, SemaValue>> out;
  for (const std::string &n : names)
    out.emplace_back(n, scopes_.back().names.at(n));
  return out;
}

// The value a loop-carried or if-merged name has, as an IR value of `type` (constexpr numbers
// are materialised; tensors must already have the type).
static bool sameType(const tir::Value *v, const Type &t) {
  return v->type().sameShapeAndElem(t);
}

std::pair<tir::Value *, tir::Value *>
Specializer::branchValues(const SemaValue &tv, const SemaValue &ev, tir::Block &thenBlock,
                          tir::Block &elseBlock, SourceLoc loc) {
  // A tensor side wins (the other side is materialised and broadcast to it in its own block);
  // two constants take their promoted type.
  tir::Value *tval = tv.isTensor() ? tv.value : nullptr;
  tir::Value *evalue = ev.isTensor() ? ev.value : nullptr;
  if (!tval && !evalue) {
    builder_.setInsertionPointToEnd(thenBlock);
    tval = materialize(tv, loc);
    builder_.setInsertionPointToEnd(elseBlock);
    evalue = materialize(ev, loc);
    std::string why;
    auto common = computationType(tval->type().elem, true, evalue->type().elem, true, false, why);
    if (!common)
      error(loc, "the two paths of this 'if' give values of incompatible types");
    builder_.setInsertionPointToEnd(thenBlock);
    tval = castTo(tval, *common);
    builder_.setInsertionPointToEnd(elseBlock);
    evalue = castTo(evalue, *common);
  } else if (!tval) {
    builder_.setInsertionPointToEnd(thenBlock);
    tval = broadcastTo(materialize(tv, loc, evalue->type().elem), evalue->type().shape, loc);
  } else if (!evalue) {
    builder_.setInsertionPointToEnd(elseBlock);
    evalue = broadcastTo(materialize(ev, loc, tval->type().elem), tval->type().shape, loc);
  }
  return {tval, evalue};
}

tir::Value *Specializer::scalarCondition(const SemaValue &cond, SourceLoc loc) {
  tir::Value *condValue = toValue(cond, loc, "if condition");
  // A block of one element is that element, as Triton unsplats it (with a warning):
  // `if tl.arange(0, 1) < n:`. A larger one is ambiguous, as in Python.
  if (!condValue->type().isScalar() && condValue->type().numElements() == 1 &&
      !condValue->type().elem.isPointer())
    condValue = unsplat(condValue, loc);
  if (!condValue->type().isScalar())
    return nullptr;
  return castTo(condValue, DType::scalar(ScalarKind::I1));
}

SemaValue Specializer::evalIfExp(const ast::Expr &expr) {
  const ast::Expr &body = *expr.operands[0], &test = *expr.operands[1], &orelse = *expr.operands[2];
  SemaValue cond = eval(test);
  refuseUnknown(cond, test.loc, "this condition");
  if (auto truth = constexprTruth(cond))
    return eval(*truth ? body : orelse);
  tir::Value *condValue = cond.isTensor() ? scalarCondition(cond, test.loc) : nullptr;
  if (!condValue) {
    // A block condition selects element by element (Triton has no such conditional
    // expression: its scf.if wants a scalar); both sides are evaluated, as tl.where's operands.
    SemaValue a = eval(body);
    SemaValue b = eval(orelse);
    builder_.setLoc(expr.loc);
    CallArgs args{{cond, a, b}, {}, expr.loc};
    return callBuiltin(SemaValue::ofBuiltin("tl.where"), args);
  }
  // As Triton's visit_IfExp: an scf.if that evaluates only the side the condition picks, so
  // `tl.load(p) if i < n else 0.0` never loads past n and `tl.store(..) if c else
  // tl.store(..)` stores once. Two sides giving None (stores, prints) make an if without results.
  builder_.setLoc(expr.loc);
  tir::Operation *ifOp = builder_.create(OpCode::If, {condValue}, {});
  tir::Block &thenBlock = ifOp->addRegion().block();
  tir::Block &elseBlock = ifOp->addRegion().block();
  ++runtimeControlFlowDepth_;
  builder_.setInsertionPointToEnd(thenBlock);
  SemaValue tv = eval(body);
  builder_.setInsertionPointToEnd(elseBlock);
  SemaValue ev = eval(orelse);
  --runtimeControlFlowDepth_;
  std::vector<tir::Value *> thenValues, elseValues;
  if (!tv.isNone() || !ev.isNone()) {
    for (const auto &[side, value] : {std::pair{&body, &tv}, std::pair{&orelse, &ev}})
      if (!value->isTensor() && !value->isConstexprNumber())
        error(side->loc, "a conditional expression on a run-time condition needs a number or a "
                         "tensor on both sides (or None on both), got " +
                             value->describe());
    auto [tval, evalue] = branchValues(tv, ev, thenBlock, elseBlock, expr.loc);
    if (!tval->type().sameShapeAndElem(evalue->type())) {
      // Two tensors of different types: promote and broadcast them, each in its own block.
      std::string why;
      auto common =
          computationType(tval->type().elem, false, evalue->type().elem, false, false, why);
      if (!common)
        error(expr.loc, "the two sides of this conditional expression have incompatible types " +
                            tval->type().str() + " and " + evalue->type().str() + ": " + why);
      std::vector<int64_t> shape = broadcastShape(tval->type(), evalue->type(), expr.loc);
      builder_.setInsertionPointToEnd(thenBlock);
      tval = broadcastTo(castTo(tval, *common), shape, expr.loc);
      builder_.setInsertionPointToEnd(elseBlock);
      evalue = broadcastTo(castTo(evalue, *common), shape, expr.loc);
    }
    thenValues.push_back(tval);
    elseValues.push_back(evalue);
  }
  std::vector<tir::Value *> results = closeBranches(*ifOp, thenValues, elseValues);
  if (results.empty())
    return SemaValue::none();
  return SemaValue::ofTensor(results[0]);
}

std::vector<tir::Value *> Specializer::closeBranches(tir::Operation &ifOp,
                                                     const std::vector<tir::Value *> &thenValues,
                                                     const std::vector<tir::Value *> &elseValues) {
  builder_.setInsertionPointToEnd(ifOp.region(0).block());
  builder_.create(OpCode::Yield, thenValues, {});
  builder_.setInsertionPointToEnd(ifOp.region(1).block());
  builder_.create(OpCode::Yield, elseValues, {});
  builder_.setInsertionPointToEnd(*ifOp.parentBlock());
  std::vector<tir::Value *> results;
  for (tir::Value *v : thenValues)
    results.push_back(ifOp.addResult(v->type()));
  return results;
}

void Specializer::execIf(const ast::Stmt &stmt) {
  SemaValue cond = eval(*stmt.test);
  refuseUnknown(cond, stmt.test->loc, "this condition");
  if (auto truth = constexprTruth(cond)) {
    execBlock(*truth ? stmt.body : stmt.orelse);
    return;
  }
  tir::Value *condValue = scalarCondition(cond, stmt.test->loc);
  if (!condValue)
    error(stmt.test->loc, "an 'if' condition must be a scalar, not " + cond.describe() +
                              " (Triton: the boolean value of a tensor with more than one value "
                              "is ambiguous)");
  if (containsReturn(stmt.body) || containsReturn(stmt.orelse)) {
    execReturningIf(stmt, condValue);
    return;
  }

  std::vector<std::string> assigned;
  collectAssigned(stmt.body, assigned);
  collectAssigned(stmt.orelse, assigned);

  tir::Operation *ifOp = builder_.create(OpCode::If, {condValue}, {});
  tir::Block &thenBlock = ifOp->addRegion().block();
  tir::Block &elseBlock = ifOp->addRegion().block();
  std::map<std::string, SemaValue> before = scopes_.back().names;
  // The if's results in Triton's order (code_generator's visit_then_else_blocks): first the
  // names bound before the if, then the names both paths define anew, sorted by name. The order
  // reaches LLVM as the order of the join block's phis, and LLVM's Reassociate ranks values by
  // it: it decides the operand order of later commutative float operations, and so which
  // product the backend fuses into an FMA.
  auto firstNew =
      std::stable_partition(assigned.begin(), assigned.end(),
                            [&](const std::string &name) { return before.count(name) != 0; });
  std::sort(firstNew, assigned.end());

  ++runtimeControlFlowDepth_;
  builder_.setInsertionPointToEnd(thenBlock);
  execBlock(stmt.body);
  std::map<std::string, SemaValue> afterThen = scopes_.back().names;
  scopes_.back().names = before;
  builder_.setInsertionPointToEnd(elseBlock);
  execBlock(stmt.orelse);
  std::map<std::string, SemaValue> afterElse = scopes_.back().names;
  --runtimeControlFlowDepth_;

  // Every assigned name that has a value on both paths flows out of the `if`; a tuple by its
  // leaves.
  std::vector<FlowingTuple> tuples;
  splitMergedTuples(assigned, afterThen, afterElse, tuples, stmt.loc);
  scopes_.back().names = before;
  std::vector<std::string> merged;
  std::vector<tir::Value *> thenValues, elseValues;
  struct BlockPointerMerge {
    std::string name;
    SemaValue thenValue;
    std::vector<MergedBlockPointer> parts;
  };
  std::vector<BlockPointerMerge> blockPointers;
  for (const std::string &name : assigned) {
    auto t = afterThen.find(name), e = afterElse.find(name);
    if (t == afterThen.end() || e == afterElse.end()) {
      continue; // defined on one path only: not visible after the if (as in Triton)
    }
    const SemaValue &tv = t->second, &ev = e->second;
    if (sameTensorDescriptor(tv, ev)) {
      bind(name, tv);
      continue;
    }
    if (tv.kind == SemaValue::Kind::BlockPtr || ev.kind == SemaValue::Kind::BlockPtr ||
        tv.kind == SemaValue::Kind::TensorDesc || ev.kind == SemaValue::Kind::TensorDesc) {
      // The parts that differ flow out of the `if` after the other merged values.
      blockPointers.push_back({name, tv, mergeBlockPointers(name, tv, ev, stmt.loc)});
      continue;
    }
    bool tConst = tv.isConstexprNumber(), eConst = ev.isConstexprNumber();
    if (!tv.isTensor() && !ev.isTensor()) {
      if (tv.repr() == ev.repr() && tv.kind == ev.kind) {
        bind(name, tv);
        continue;
      }
      if (!tConst || !eConst)
        error(stmt.loc, "'" + name + "' is " + tv.describe() + " on one path of the if and " +
                            ev.describe() + " on the other");
    }
    // Decide the merged type: a tensor side wins; two constants take their promoted type.
    if (tv.isTensor() && ev.isTensor()) {
      if (!tv.value->type().sameShapeAndElem(ev.value->type()))
        error(stmt.loc, "'" + name + "' has type " + tv.value->type().str() +
                            " on one path of the if and " + ev.value->type().str() +
                            " on the other");
    }
    auto [tval, evalue] = branchValues(tv, ev, thenBlock, elseBlock, stmt.loc);
    merged.push_back(name);
    thenValues.push_back(tval);
    elseValues.push_back(evalue);
  }
  for (const BlockPointerMerge &b : blockPointers)
    for (const MergedBlockPointer &part : b.parts) {
      thenValues.push_back(part.thenValue);
      elseValues.push_back(part.elseValue);
    }
  std::vector<tir::Value *> results = closeBranches(*ifOp, thenValues, elseValues);
  for (size_t i = 0; i < merged.size(); ++i)
    bind(merged[i], SemaValue::ofTensor(results[i]));
  size_t next = merged.size();
  for (const BlockPointerMerge &b : blockPointers) {
    std::vector<tir::Value *> parts(results.begin() + static_cast<long>(next),
                                    results.begin() + static_cast<long>(next + b.parts.size()));
    bind(b.name, mergedBlockPointer(b.thenValue, b.parts, parts));
    next += b.parts.size();
  }
  rebuildFlowingTuples(tuples);
}

void Specializer::countExpansion(SourceLoc loc, const char *what) {
  if (++expansions_ > kMaxExpansions)
    error(loc, std::string(what) + " expands the kernel past " + std::to_string(kMaxExpansions) +
                   " unrolled loop bodies and inlined calls, tilec's limit");
  if (builder_.numCreated() > kMaxOperations)
    error(loc, std::string(what) + " expands the kernel past " + std::to_string(kMaxOperations) +
                   " operations, tilec's limit");
}

/// Walks the values two paths return, in one fixed order: `collect` gathers the run-time values
/// each path must yield, `rebuild` puts the if's results back in their place.
static void collectReturned(const SemaValue &t, const SemaValue &e,
                            std::vector<std::pair<SemaValue, SemaValue>> &out) {
  if (t.kind == SemaValue::Kind::Tuple && e.kind == SemaValue::Kind::Tuple &&
      t.elems.size() == e.elems.size()) {
    for (size_t i = 0; i < t.elems.size(); ++i)
      collectReturned(t.elems[i], e.elems[i], out);
    return;
  }
  if (Specializer::sameBlockPointer(t, e) || Specializer::sameTensorDescriptor(t, e))
    return;
  if (!t.isTensor() && !e.isTensor() && t.kind == e.kind && t.kind != SemaValue::Kind::BlockPtr &&
      t.kind != SemaValue::Kind::TensorDesc && t.repr() == e.repr())
    return; // the same constant on both paths
  out.push_back({t, e});
}

static SemaValue rebuildReturned(const SemaValue &t, const SemaValue &e,
                                 const std::vector<tir::Value *> &results, size_t &next) {
  if (t.kind == SemaValue::Kind::Tuple && e.kind == SemaValue::Kind::Tuple &&
      t.elems.size() == e.elems.size()) {
    std::vector<SemaValue> elems;
    for (size_t i = 0; i < t.elems.size(); ++i)
      elems.push_back(rebuildReturned(t.elems[i], e.elems[i], results, next));
    return SemaValue::ofTuple(std::move(elems));
  }
  if (Specializer::sameBlockPointer(t, e) || Specializer::sameTensorDescriptor(t, e))
    return t;
  if (!t.isTensor() && !e.isTensor() && t.kind == e.kind && t.kind != SemaValue::Kind::BlockPtr &&
      t.kind != SemaValue::Kind::TensorDesc && t.repr() == e.repr())
    return t;
  return SemaValue::ofTensor(results.at(next++));
}

void Specializer::execReturningIf(const ast::Stmt &stmt, tir::Value *cond) {
  // Triton allows `return` under a run-time `if`, but not in a loop.
  if (runtimeControlFlowDepth_ > 0 || staticLoopDepth_ > 0)
    error(stmt.loc, "an 'if' on a run-time condition that returns is not supported inside a "
                    "loop (Triton does not support it either)");
  // The statements after the `if`, up to the end of the function, run on each path that does
  // not return: they become part of both branches (they are duplicated when neither returns).
  const std::vector<Continuation> rest = continuations_;
  auto runPath = [&](const ast::StmtList &body, bool &fellOff) -> SemaValue {
    // A returning `if` inside the branch runs what follows this one, too.
    continuations_ = rest;
    execBlock(body);
    for (size_t k = rest.size(); k-- > 0 && !returnValue_;) {
      continuations_.assign(rest.begin(), rest.begin() + static_cast<long>(k));
      execBlock(*rest[k].stmts, rest[k].next);
    }
    fellOff = !returnValue_;
    SemaValue result = returnValue_ ? *returnValue_ : SemaValue::none();
    returnValue_.reset();
    return result;
  };

  tir::Operation *ifOp = builder_.create(OpCode::If, {cond}, {});
  tir::Block &thenBlock = ifOp->addRegion().block();
  tir::Block &elseBlock = ifOp->addRegion().block();
  std::map<std::string, SemaValue> before = scopes_.back().names;
  bool thenFellOff = false, elseFellOff = false;
  builder_.setInsertionPointToEnd(thenBlock);
  SemaValue thenResult = runPath(stmt.body, thenFellOff);
  scopes_.back().names = before;
  builder_.setInsertionPointToEnd(elseBlock);
  SemaValue elseResult = runPath(stmt.orelse, elseFellOff);
  scopes_.back().names = before;
  continuations_ = rest;
  // A path that runs off the function's end, where the other returns a tensor, returns
  // Triton's poison (handle_returns: ub.poison of the return type): its value is undefined,
  // and a zero of that type is one such value.
  auto undefinedLike = [&](const SemaValue &value, tir::Block &block) {
    builder_.setInsertionPointToEnd(block);
    const Type &type = value.value->type();
    tir::Value *zero = type.elem.isPointer()
                           ? builder_.cast(materialize(SemaValue::ofInt(0), stmt.loc,
                                                       DType::scalar(ScalarKind::I64)),
                                           type.elem)
                           : materialize(SemaValue::ofInt(0), stmt.loc, type.elem);
    return SemaValue::ofTensor(broadcastTo(zero, type.shape, stmt.loc));
  };
  if (thenFellOff && elseResult.isTensor())
    thenResult = undefinedLike(elseResult, thenBlock);
  else if (elseFellOff && thenResult.isTensor())
    elseResult = undefinedLike(thenResult, elseBlock);

  std::vector<std::pair<SemaValue, SemaValue>> pairs;
  collectReturned(thenResult, elseResult, pairs);
  std::vector<tir::Value *> thenValues, elseValues;
  for (const auto &[tv, ev] : pairs) {
    if (tv.kind == SemaValue::Kind::BlockPtr || ev.kind == SemaValue::Kind::BlockPtr)
      error(stmt.loc, "returning a different block pointer on each path of an 'if' is not "
                      "supported yet");
    if (tv.kind == SemaValue::Kind::TensorDesc || ev.kind == SemaValue::Kind::TensorDesc)
      error(stmt.loc, "returning a different tensor descriptor on each path of an 'if' is not "
                      "supported yet");
    if (tv.isNone() || ev.isNone())
      error(stmt.loc, "this 'if' returns " + tv.describe() + " on one path and " + ev.describe() +
                          " on the other");
    if (!tv.isTensor() && !tv.isConstexprNumber())
      error(stmt.loc, "this 'if' returns " + tv.describe() + " on one path and " + ev.describe() +
                          " on the other");
    if (!ev.isTensor() && !ev.isConstexprNumber())
      error(stmt.loc, "this 'if' returns " + tv.describe() + " on one path and " + ev.describe() +
                          " on the other");
    // The type both paths return: a tensor side wins, two constants take their promoted type.
    auto [tval, evalue] = branchValues(tv, ev, thenBlock, elseBlock, stmt.loc);
    if (!tval->type().sameShapeAndElem(evalue->type()))
      error(stmt.loc, "this 'if' returns " + tval->type().str() + " on one path and " +
                          evalue->type().str() + " on the other");
    thenValues.push_back(tval);
    elseValues.push_back(evalue);
  }
  std::vector<tir::Value *> results = closeBranches(*ifOp, thenValues, elseValues);
  size_t next = 0;
  // The function has returned on every path: what follows ran inside the branches.
  returnValue_ = rebuildReturned(thenResult, elseResult, results, next);
}

std::vector<std::string>
Specializer::splitUncarried(std::vector<std::string> &carried,
                            const std::map<std::string, SemaValue> &before) const {
  std::vector<std::string> uncarried;
  auto isUncarried = [&](const std::string &name) {
    const SemaValue &v = before.at(name);
    return !v.isTensor() && !v.isConstexprNumber();
  };
  for (const std::string &name : carried)
    if (isUncarried(name))
      uncarried.push_back(name);
  carried.erase(std::remove_if(carried.begin(), carried.end(), isUncarried), carried.end());
  return uncarried;
}

void Specializer::checkUncarriedUnchanged(const std::vector<std::string> &uncarried,
                                          const std::map<std::string, SemaValue> &before,
                                          const ast::Stmt &loop) const {
  for (const std::string &name : uncarried) {
    const SemaValue &was = before.at(name);
    const SemaValue &now = scopes_.back().names.at(name);
    if (!now.sameAs(was))
      error(loop.loc, "'" + name + "' is " + was.describe() + " before the loop and becomes " +
                          now.describe() +
                          " in it; only numbers and tensors can change in a run-time loop");
  }
}

void Specializer::execStaticFor(const ast::Stmt &stmt, const std::vector<int64_t> &values) {
  ++staticLoopDepth_;
  for (int64_t v : values) {
    countExpansion(stmt.iter->loc, "this tl.static_range");
    assign(*stmt.targets[0], SemaValue::ofInt(v));
    execBlock(stmt.body);
    if (returnValue_)
      break;
  }
  --staticLoopDepth_;
  if (!returnValue_)
    execBlock(stmt.orelse);
}

/// How many values Python's range(start, stop, step) has (step != 0), in 128 bits: bounds and
/// step are any int64.
static __int128 rangeLength(int64_t start, int64_t stop, int64_t step) {
  __int128 span = static_cast<__int128>(stop) - start;
  if (step > 0)
    return span > 0 ? (span + step - 1) / step : 0;
  return span < 0 ? (span + step + 1) / step : 0;
}

std::vector<SemaValue> Specializer::hostRangeItems(const std::vector<SemaValue> &arguments,
                                                   bool keywords, SourceLoc loc) {
  std::vector<int64_t> bounds;
  for (const SemaValue &b : arguments) {
    if (b.kind != SemaValue::Kind::Int && b.kind != SemaValue::Kind::Bool)
      raisePython(*builtinExceptionClasses("TypeError"),
                  "'" + b.describe() + "' object cannot be interpreted as an integer", loc);
    bounds.push_back(constantInt(b, loc, "a range() bound"));
  }
  if (bounds.empty() || bounds.size() > 3 || keywords)
    error(loc, "range() takes 1 to 3 positional arguments");
  int64_t start = bounds.size() >= 2 ? bounds[0] : 0;
  int64_t stop = bounds.size() >= 2 ? bounds[1] : bounds[0];
  int64_t step = bounds.size() == 3 ? bounds[2] : 1;
  if (step == 0)
    raisePython(*builtinExceptionClasses("ValueError"), "range() arg 3 must not be zero", loc);
  __int128 trips = rangeLength(start, stop, step);
  if (trips > kMaxStaticRangeIterations)
    error(loc, "this range() has more than " + std::to_string(kMaxStaticRangeIterations) +
                   " values, more than tilec evaluates in module-level code");
  std::vector<SemaValue> items;
  for (__int128 i = 0; i < trips; ++i)
    items.push_back(SemaValue::ofInt(static_cast<int64_t>(start + i * step)));
  return items;
}

std::vector<SemaValue> Specializer::hostIterationItems(const ast::Expr &iter) {
  std::vector<SemaValue> items;
  SemaValue callee = iter.kind == ast::ExprKind::Call ? eval(*iter.operands[0]) : SemaValue();
  if (callee.kind == SemaValue::Kind::Builtin && callee.name == "py.range") {
    std::vector<SemaValue> arguments;
    for (size_t i = 1; i < iter.operands.size(); ++i)
      arguments.push_back(eval(*iter.operands[i]));
    return hostRangeItems(arguments, !iter.keywords.empty(), iter.loc);
  }
  SemaValue iterable = eval(iter);
  if (iterable.kind == SemaValue::Kind::Tuple)
    return iterable.elems;
  if (iterable.kind == SemaValue::Kind::String) {
    for (char c : iterable.name)
      items.push_back(SemaValue::ofString(std::string(1, c)));
    return items;
  }
  error(iter.loc, "a loop over " + iterable.describe() +
                      " is not supported yet in module-level code that tilec evaluates");
}

/// After a host loop's body ran once: whether the loop ends, consuming a `break` (which also
/// skips the loop's `else`) or a `continue`.
bool Specializer::hostLoopEnds() {
  if (returnValue_)
    return true;
  LoopExit exit = std::exchange(loopExit_, LoopExit::None);
  return exit == LoopExit::Break;
}

void Specializer::execHostFor(const ast::Stmt &stmt) {
  for (const SemaValue &item : hostIterationItems(*stmt.iter)) {
    assign(*stmt.targets[0], item);
    execBlock(stmt.body);
    if (hostLoopEnds())
      return;
  }
  execBlock(stmt.orelse);
}

SemaValue Specializer::evalKernelListComprehension(const ast::Expr &expr) {
  // Triton's code generator (visit_ListComp): one `for` over a tuple (or list) whose target is
  // a name, evaluated element by element into a tl.tuple; the name stays bound afterwards, as
  // its set_value leaves it. Triton ignores an `if` clause, which would silently change what
  // the kernel computes: tilec refuses it instead.
  size_t clauses = (expr.operands.size() - 1) / 3;
  if (clauses != 1)
    error(expr.loc, "a list comprehension in a kernel takes one 'for' (Triton: nested "
                    "comprehensions are not supported)");
  const ast::Expr &target = *expr.operands[1];
  if (target.kind != ast::ExprKind::Name)
    error(target.loc, "a list comprehension in a kernel binds one name (Triton takes "
                      "comp.target.id), not a tuple of names");
  if (const ast::Expr *condition = expr.operands[3].get())
    error(condition->loc, "an 'if' in a list comprehension in a kernel is not supported (Triton "
                          "ignores it)");
  const ast::Expr &iter = *expr.operands[2];
  if (iter.kind == ast::ExprKind::Call) {
    std::string callee = dottedName(*iter.operands[0]);
    if (callee == "range" || callee == "tl.range" || callee == "tl.static_range")
      error(iter.loc, "a list comprehension in a kernel runs over a tuple, not " + callee +
                          "() (Triton: only tuple comprehensions are supported)");
  }
  SemaValue iterable = eval(iter);
  if (iterable.kind != SemaValue::Kind::Tuple)
    error(expr.operands[2]->loc, "a list comprehension in a kernel runs over a tuple, not " +
                                     iterable.describe() +
                                     " (Triton: only tuple comprehensions are supported)");
  std::vector<SemaValue> items;
  for (const SemaValue &item : iterable.elems) {
    bind(target.name, item); // set_value: a constant stays one, unlike in an assignment
    items.push_back(eval(*expr.operands[0]));
  }
  return SemaValue::ofTuple(std::move(items));
}

SemaValue Specializer::evalComprehension(const ast::Expr &expr) {
  const bool dict = expr.name == "dict"; // {k: v for ...}: the element is the (k, v) pair
  if (moduleLevelDepth_ == 0 && expr.boolValue)
    return evalKernelListComprehension(expr);
  if (moduleLevelDepth_ == 0)
    error(expr.loc, std::string(dict             ? "a dict comprehension"
                                : expr.boolValue ? "a list comprehension"
                                                 : "a generator expression") +
                        " is not supported in a kernel; tilec evaluates comprehensions in "
                        "module-level Python");
  // Its names are its own (Python 3): the enclosing scope is as it was afterwards.
  std::map<std::string, SemaValue> enclosing = scopes_.back().names;
  size_t clauses = (expr.operands.size() - 1) / 3;
  std::vector<SemaValue> items;
  std::function<void(size_t)> run = [&](size_t clause) {
    if (clause == clauses) {
      if (items.size() >= kMaxStaticRangeIterations)
        error(expr.loc, "this comprehension makes more than " +
                            std::to_string(kMaxStaticRangeIterations) +
                            " elements, more than tilec evaluates in module-level code");
      items.push_back(eval(*expr.operands[0]));
      return;
    }
    const ast::Expr &target = *expr.operands[1 + 3 * clause];
    const ast::Expr *condition = expr.operands[3 + 3 * clause].get();
    for (const SemaValue &item : hostIterationItems(*expr.operands[2 + 3 * clause])) {
      assign(target, item);
      if (condition) {
        std::optional<bool> keep = constexprTruth(eval(*condition));
        if (!keep)
          error(condition->loc, "a comprehension's condition must be a Python value here");
        if (!*keep)
          continue;
      }
      run(clause + 1);
    }
  };
  try {
    run(0);
  } catch (...) {
    scopes_.back().names = enclosing;
    throw;
  }
  scopes_.back().names = enclosing;
  if (dict) {
    SemaValue result = makeDict();
    for (const SemaValue &pair : items)
      dictInsert(result, pair.elems[0], pair.elems[1]);
    return result;
  }
  // A generator is consumed where it is made (str.join, sum, tuple...): a list serves.
  return SemaValue::ofList(std::move(items));
}

std::optional<SemaValue> Specializer::loopVariableAfterLoop(const SemaValue &start,
                                                            const SemaValue &stop,
                                                            const SemaValue &step) {
  // Triton 3.6 binds the loop variable to a poison placeholder before the loop and leaves it
  // there after the loop, so a kernel that reads it after the loop (TritonBench's
  // chunk_retention: `for i_t in range(NT - 1, -1, -1): ...` then `i_t * BT`) computes with
  // poison, which any value refines. Where the bounds are constexpr, tilec takes Python's
  // value: the last one the loop gave it, or the name's value before a loop that does not run.
  if (start.kind != SemaValue::Kind::Int || stop.kind != SemaValue::Kind::Int ||
      step.kind != SemaValue::Kind::Int || step.intValue == 0)
    return std::nullopt;
  __int128 trips = rangeLength(start.intValue, stop.intValue, step.intValue);
  if (trips <= 0)
    return std::nullopt;
  return SemaValue::ofInt(static_cast<int64_t>(start.intValue + (trips - 1) * step.intValue));
}

void Specializer::execFor(const ast::Stmt &stmt) {
  // A Python function that module-level code calls loops as Python does.
  if (moduleLevelDepth_ > 0) {
    execHostFor(stmt);
    return;
  }
  const ast::Expr &iter = *stmt.iter;
  if (iter.kind != ast::ExprKind::Call)
    error(iter.loc, "a kernel can only loop over range(), tl.range() or tl.static_range()");
  SemaValue callee = eval(*iter.operands[0]);
  if (callee.kind != SemaValue::Kind::Builtin ||
      (callee.name != "py.range" && callee.name != "tl.range" && callee.name != "tl.static_range"))
    error(iter.loc, "a kernel can only loop over range(), tl.range() or tl.static_range()");
  if (!stmt.orelse.empty())
    error(stmt.loc, "'for ... else' is not supported in kernels");
  std::vector<SemaValue> bounds;
  for (size_t i = 1; i < iter.operands.size(); ++i)
    bounds.push_back(eval(*iter.operands[i]));
  std::optional<int64_t> loopStages;
  std::optional<SemaValue> stepKeyword;
  for (const ast::Keyword &kw : iter.keywords) {
    // range(0, n, step=BLOCK): Triton runs a kernel's range() as tl.range, whose step is a
    // keyword too.
    if (kw.name == "step") {
      stepKeyword = eval(*kw.value);
      continue;
    }
    // tl.range's tuning hints (num_stages, loop_unroll_factor, ...) do not change semantics;
    // num_stages is kept for the software pipeliner (the kernel's num_stages otherwise).
    if (kw.name != "num_stages" && kw.name != "loop_unroll_factor" && kw.name != "flatten" &&
        kw.name != "disallow_acc_multi_buffer" && kw.name != "warp_specialize")
      error(kw.loc, "unexpected argument '" + kw.name + "' to " + callee.name.substr(3) + "()");
    if (kw.name != "num_stages")
      continue;
    // Any positive depth, as Triton's tl.range takes (FBGEMM's simplicial attention asks 16).
    SemaValue stages = eval(*kw.value);
    // None is tl.range's default: the kernel's num_stages (`num_stages=None if PIPELINE else 1`).
    if (stages.isNone())
      continue;
    if (stages.kind != SemaValue::Kind::Int || stages.intValue < 1)
      error(kw.loc, "num_stages must be a positive constexpr integer");
    loopStages = stages.intValue;
  }
  if (stepKeyword) {
    if (bounds.size() != 2)
      error(iter.loc, "range(start, end, step=...) needs the start and the end");
    bounds.push_back(*stepKeyword);
  }
  if (bounds.empty() || bounds.size() > 3)
    error(iter.loc, "range() takes 1 to 3 arguments");
  SemaValue lb = bounds.size() >= 2 ? bounds[0] : SemaValue::ofInt(0);
  SemaValue ub = bounds.size() >= 2 ? bounds[1] : bounds[0];
  SemaValue step = bounds.size() == 3 ? bounds[2] : SemaValue::ofInt(1);

  if (callee.name == "tl.static_range") {
    for (const SemaValue *bound : {&lb, &ub, &step})
      if (bound->kind != SemaValue::Kind::Int)
        error(iter.loc, "tl.static_range needs constexpr integer bounds, not " + bound->describe() +
                            assignedNumberHint(*bound));
    for (const SemaValue *bound : {&lb, &ub, &step})
      constantInt(*bound, iter.loc, "a tl.static_range bound");
    if (step.intValue == 0)
      error(iter.loc, "range() step must not be zero");
    __int128 trips = rangeLength(lb.intValue, ub.intValue, step.intValue);
    if (trips > kMaxStaticRangeIterations)
      error(iter.loc,
            "tl.static_range unrolls " + std::to_string(static_cast<unsigned long long>(trips)) +
                " iterations, more than the " + std::to_string(kMaxStaticRangeIterations) +
                " tilec allows; use range or tl.range for a run-time loop");
    std::vector<int64_t> values;
    for (__int128 i = 0; i < trips; ++i)
      values.push_back(static_cast<int64_t>(lb.intValue + i * step.intValue));
    execStaticFor(stmt, values);
    return;
  }
  if (stmt.targets[0]->kind != ast::ExprKind::Name)
    error(stmt.targets[0]->loc, "the loop variable must be a single name");
  if (step.kind == SemaValue::Kind::Int && step.intValue == 0)
    error(iter.loc, "range() step must not be zero");
  // A constexpr negative step (`range(n - 1, -1, -1)`) runs as Triton's: the loop counts up from
  // the stop to the start by -step, and the body sees start + stop - counter, which takes the
  // same values as Python's range in the same order. A negative step known only at run time
  // would run no iteration (the loop counts up), as in Triton.
  bool negativeStep = step.kind == SemaValue::Kind::Int && step.intValue < 0;
  std::optional<SemaValue> ivAfterLoop = loopVariableAfterLoop(lb, ub, step);
  if (negativeStep) {
    if (step.intValue == std::numeric_limits<int64_t>::min())
      error(iter.loc, "range() step " + std::to_string(step.intValue) + " is out of range");
    std::swap(lb, ub);
    step = SemaValue::ofInt(-step.intValue);
  }

  // The induction variable's type: the promoted type of the bounds (int32 unless one is wider).
  tir::Value *lbV = toValue(lb, iter.loc, "range bound");
  tir::Value *ubV = toValue(ub, iter.loc, "range bound");
  tir::Value *stepV = toValue(step, iter.loc, "range step");
  for (tir::Value *v : {lbV, ubV, stepV})
    if (!v->type().isScalar() || !v->type().elem.isInteger() || v->type().elem.isBool())
      error(iter.loc, "range() bounds must be integer scalars, not " + v->type().str());
  DType ivType =
      integerPromote(integerPromote(lbV->type().elem, ubV->type().elem), stepV->type().elem);
  lbV = castTo(lbV, ivType);
  ubV = castTo(ubV, ivType);
  stepV = castTo(stepV, ivType);

  const std::string &ivName = stmt.targets[0]->name;
  std::vector<std::string> carried;
  for (const std::string &name : carriedNames(stmt.body))
    if (name != ivName)
      carried.push_back(name);
  std::vector<FlowingTuple> tuples = splitFlowingTuples(carried);
  std::vector<CarriedBlockPointer> blockPointers = splitCarriedBlockPointers(carried, stmt);
  std::map<std::string, SemaValue> before = scopes_.back().names;
  std::vector<std::string> uncarried = splitUncarried(carried, before);

  // The initial type of each carried value. A constexpr number's type may need to change to what
  // the body makes of it (`acc = 0` then `acc += x` with x a float tensor): then the loop is
  // built again with that type.
  std::vector<std::optional<Type>> initTypes(carried.size());
  for (int attempt = 0; attempt < 3; ++attempt) {
    scopes_.back().names = before;
    std::vector<tir::Value *> inits;
    for (size_t i = 0; i < carried.size(); ++i) {
      const SemaValue &v = before.at(carried[i]);
      tir::Value *init =
          v.isTensor()
              ? v.value
              : materialize(v, stmt.loc,
                            initTypes[i] ? std::optional<DType>(initTypes[i]->elem) : std::nullopt);
      if (initTypes[i] && !sameType(init, *initTypes[i]))
        init = broadcastTo(castTo(init, initTypes[i]->elem), initTypes[i]->shape, stmt.loc);
      inits.push_back(init);
    }
    std::vector<tir::Value *> operands = {lbV, ubV, stepV};
    operands.insert(operands.end(), inits.begin(), inits.end());
    tir::Operation *forOp = builder_.create(OpCode::For, operands, {});
    if (loopStages)
      forOp->setAttr("num_stages", *loopStages);
    tir::Block &body = forOp->addRegion().block();
    tir::Value *iv = body.addArgument(Type(ivType));
    bind(ivName, SemaValue::ofTensor(iv));
    for (size_t i = 0; i < carried.size(); ++i)
      bind(carried[i], SemaValue::ofTensor(body.addArgument(inits[i]->type())));
    rebuildCarriedBlockPointers(blockPointers);
    rebuildFlowingTuples(tuples);

    tir::Block *outer = forOp->parentBlock();
    builder_.setInsertionPointToEnd(body);
    if (negativeStep) // lbV and ubV are the swapped bounds: stop and start
      bind(ivName, SemaValue::ofTensor(
                       builder_.binary(OpCode::Add, builder_.binary(OpCode::Sub, ubV, iv), lbV)));
    ++runtimeControlFlowDepth_;
    execBlock(stmt.body);
    --runtimeControlFlowDepth_;
    exposeFlowingTuples(tuples, stmt);
    if (!exposeCarriedBlockPointers(blockPointers, stmt)) {
      // A block pointer changed more than its offsets: build the loop again, carrying all of it.
      outer->remove(forOp);
      builder_.setInsertionPointToEnd(*outer);
      scopes_.back().names = before;
      return execFor(stmt);
    }

    checkUncarriedUnchanged(uncarried, before, stmt);
    // Yield the new values; find carried values whose type changed.
    bool retry = false;
    std::vector<tir::Value *> yields;
    for (size_t i = 0; i < carried.size(); ++i) {
      SemaValue now = scopes_.back().names.at(carried[i]);
      const Type &want = inits[i]->type();
      if (!now.isTensor() && !now.isConstexprNumber())
        error(stmt.loc, "'" + carried[i] + "' becomes " + now.describe() + " in the loop");
      tir::Value *v = now.isTensor() ? now.value : materialize(now, stmt.loc, want.elem);
      if (!now.isTensor())
        v = broadcastTo(v, want.shape, stmt.loc);
      if (!sameType(v, want)) {
        if (before.at(carried[i]).isConstexprNumber() && !initTypes[i]) {
          initTypes[i] = v->type().withLayout(nullptr);
          retry = true;
          continue;
        }
        error(stmt.loc, "loop-carried variable '" + carried[i] + "' has type " + want.str() +
                            " before the loop but " + v->type().str() + " after an iteration");
      }
      yields.push_back(v);
    }
    if (retry) {
      outer->remove(forOp);
      builder_.setInsertionPointToEnd(*outer);
      continue;
    }
    builder_.create(OpCode::Yield, yields, {});
    builder_.setInsertionPointToEnd(*outer);
    scopes_.back().names = before;
    for (size_t i = 0; i < carried.size(); ++i)
      bind(carried[i], SemaValue::ofTensor(forOp->addResult(yields[i]->type())));
    rebuildCarriedBlockPointers(blockPointers);
    rebuildFlowingTuples(tuples);
    if (ivAfterLoop)
      bind(ivName, SemaValue::ofTensor(materialize(*ivAfterLoop, stmt.loc, ivType)));
    else if (!scopes_.back().names.count(ivName))
      scopes_.back().endedLoopVariables[ivName] = &stmt;
    return;
  }
  error(stmt.loc, "could not settle the types of the loop-carried variables");
}

void Specializer::execHostWhile(const ast::Stmt &stmt) {
  for (size_t trips = 0;; ++trips) {
    std::optional<bool> again = constexprTruth(eval(*stmt.test));
    if (!again)
      error(stmt.test->loc, "a while loop's condition must be a Python value here");
    if (!*again)
      break;
    if (trips >= kMaxStaticRangeIterations)
      error(stmt.loc, "this loop runs more than " + std::to_string(kMaxStaticRangeIterations) +
                          " iterations, more than tilec evaluates in module-level code");
    execBlock(stmt.body);
    if (hostLoopEnds())
      return;
  }
  execBlock(stmt.orelse);
}

void Specializer::execWhile(const ast::Stmt &stmt) {
  // A Python function that module-level code calls loops as Python does (cute-kernels'
  // get_powers_of_2, which builds its autotune configs).
  if (moduleLevelDepth_ > 0) {
    execHostWhile(stmt);
    return;
  }
  if (!stmt.orelse.empty())
    error(stmt.loc, "'while ... else' is not supported in kernels");
  std::vector<std::string> carried = carriedNames(stmt.body);
  std::vector<FlowingTuple> tuples = splitFlowingTuples(carried);
  std::vector<CarriedBlockPointer> blockPointers = splitCarriedBlockPointers(carried, stmt);
  std::map<std::string, SemaValue> before = scopes_.back().names;
  std::vector<std::string> uncarried = splitUncarried(carried, before);
  std::vector<tir::Value *> inits;
  for (const std::string &name : carried) {
    const SemaValue &v = before.at(name);
    inits.push_back(v.isTensor() ? v.value : materialize(v, stmt.loc));
  }
  tir::Operation *whileOp = builder_.create(OpCode::While, inits, {});
  tir::Block *outer = whileOp->parentBlock();
  tir::Block &beforeBlock = whileOp->addRegion().block();
  tir::Block &afterBlock = whileOp->addRegion().block();

  // The condition, evaluated on the current values.
  std::vector<tir::Value *> beforeArgs;
  for (size_t i = 0; i < carried.size(); ++i) {
    beforeArgs.push_back(beforeBlock.addArgument(inits[i]->type()));
    bind(carried[i], SemaValue::ofTensor(beforeArgs.back()));
  }
  rebuildCarriedBlockPointers(blockPointers);
  rebuildFlowingTuples(tuples);
  builder_.setInsertionPointToEnd(beforeBlock);
  ++runtimeControlFlowDepth_;
  SemaValue cond = eval(*stmt.test);
  if (constexprTruth(cond))
    error(stmt.test->loc, "a while loop's condition must depend on run-time values");
  tir::Value *condValue = toValue(cond, stmt.test->loc, "while condition");
  if (!condValue->type().isScalar())
    error(stmt.test->loc, "a while condition must be a scalar, not " + cond.describe());
  condValue = castTo(condValue, DType::scalar(ScalarKind::I1));
  std::vector<tir::Value *> condOperands = {condValue};
  condOperands.insert(condOperands.end(), beforeArgs.begin(), beforeArgs.end());
  builder_.create(OpCode::Condition, condOperands, {});

  // The body.
  for (size_t i = 0; i < carried.size(); ++i)
    bind(carried[i], SemaValue::ofTensor(afterBlock.addArgument(inits[i]->type())));
  rebuildCarriedBlockPointers(blockPointers);
  rebuildFlowingTuples(tuples);
  builder_.setInsertionPointToEnd(afterBlock);
  execBlock(stmt.body);
  --runtimeControlFlowDepth_;
  exposeFlowingTuples(tuples, stmt);
  if (!exposeCarriedBlockPointers(blockPointers, stmt)) {
    // A block pointer changed more than its offsets: build the loop again, carrying all of it.
    outer->remove(whileOp);
    builder_.setInsertionPointToEnd(*outer);
    scopes_.back().names = before;
    return execWhile(stmt);
  }
  checkUncarriedUnchanged(uncarried, before, stmt);
  std::vector<tir::Value *> yields;
  for (size_t i = 0; i < carried.size(); ++i) {
    SemaValue now = scopes_.back().names.at(carried[i]);
    const Type &want = inits[i]->type();
    tir::Value *v = now.isTensor() ? now.value : materialize(now, stmt.loc, want.elem);
    if (!sameType(v, want))
      error(stmt.loc, "loop-carried variable '" + carried[i] + "' has type " + want.str() +
                          " before the loop but " + v->type().str() + " after an iteration");
    yields.push_back(v);
  }
  builder_.create(OpCode::Yield, yields, {});
  builder_.setInsertionPointToEnd(*outer);
  scopes_.back().names = before;
  for (size_t i = 0; i < carried.size(); ++i)
    bind(carried[i], SemaValue::ofTensor(whileOp->addResult(inits[i]->type())));
  rebuildCarriedBlockPointers(blockPointers);
  rebuildFlowingTuples(tuples);
}

//===----------------------------------------------------------------------===//
// Expressions
//===----------------------------------------------------------------------===//

SemaValue Specializer::eval(const ast::Expr &expr) {
  NestingGuard guard(*this, expr.loc);
  switch (expr.kind) {
  case ast::ExprKind::Name: {
    SemaValue value = lookup(expr.name, expr.loc);
    // A name bound by an import that found no file. compare_version stays usable: tilec
    // knows it by name, wherever the project keeps it.
    if (value.kind == SemaValue::Kind::Module && value.missingImport >= 0 &&
        expr.name != "compare_version")
      missingModuleError(value.missingImport, expr.loc);
    return value;
  }
  case ast::ExprKind::IntLit: {
    if (expr.intIsUint64)
      return SemaValue::ofWideInt(static_cast<uint64_t>(expr.intValue));
    return SemaValue::ofInt(expr.intValue);
  }
  case ast::ExprKind::FloatLit:
    return SemaValue::ofFloat(expr.floatValue);
  case ast::ExprKind::BoolLit:
    return SemaValue::ofBool(expr.boolValue);
  case ast::ExprKind::NoneLit:
    return SemaValue::none();
  case ast::ExprKind::StringLit:
    if (expr.isFString)
      return evalFString(expr);
    return SemaValue::ofString(expr.stringValue);
  case ast::ExprKind::Attribute: {
    const ast::Expr &base = *expr.operands[0];
    // `Cls.ATTR` in module-level Python, where no binding but a class statement makes `Cls`:
    // a constant that the class body assigns is read (classConstant).
    if (base.kind == ast::ExprKind::Name && moduleLevelDepth_ > 0 && mod().ast)
      if (const ast::Stmt *cls = classStatement(mod().ast->body, base.name)) {
        SemaValue value;
        classNameUse_ = true;
        try {
          value = eval(base);
        } catch (const PlainClassName &) {
          if (std::optional<SemaValue> constant = classConstant(base.name, expr.name))
            return *constant;
          refuseClass(*cls, base.name, base.loc);
        } catch (...) {
          classNameUse_ = false;
          throw;
        }
        classNameUse_ = false;
        return attribute(value, expr.name, expr.loc);
      }
    return attribute(eval(base), expr.name, expr.loc);
  }
  case ast::ExprKind::Subscript:
    return evalSubscript(expr);
  case ast::ExprKind::Slice: {
    // Its start, stop and step (None where omitted): Triton indexes a tensor with a slice whose
    // parts are all None (`:`, `None:`, `::None`), which changes nothing.
    SemaValue s;
    s.kind = SemaValue::Kind::Slice;
    for (const ast::ExprPtr &part : expr.operands)
      s.elems.push_back(part ? eval(*part) : SemaValue::none());
    return s;
  }
  case ast::ExprKind::Call:
    return evalCall(expr);
  case ast::ExprKind::BinOp: {
    SemaValue lhs = eval(*expr.operands[0]);
    SemaValue rhs = eval(*expr.operands[1]);
    builder_.setLoc(expr.loc);
    return binaryOp(expr.binOp, lhs, rhs, expr.loc);
  }
  case ast::ExprKind::UnaryOp: {
    SemaValue operand = eval(*expr.operands[0]);
    builder_.setLoc(expr.loc);
    return unaryOp(expr.unaryOp, operand, expr.loc);
  }
  case ast::ExprKind::Compare: {
    // Triton's code generator refuses a chain in a kernel, even of constants; module-level
    // Python and constexpr functions have Python's.
    if (expr.compareOps.size() > 1 && inKernelCode())
      error(expr.loc, "simultaneous multiple comparison is not supported (Triton refuses "
                      "`a < b < c` in a kernel: write (a < b) & (b < c))");
    // a < b < c is (a < b) and (b < c), b evaluated once.
    SemaValue lhs = eval(*expr.operands[0]);
    SemaValue result;
    for (size_t i = 0; i < expr.compareOps.size(); ++i) {
      SemaValue rhs = eval(*expr.operands[i + 1]);
      builder_.setLoc(expr.loc);
      SemaValue r = compareOp(expr.compareOps[i], lhs, rhs, expr.loc);
      result = i == 0 ? r : binaryOp(ast::BinaryOperator::BitAnd, result, r, expr.loc);
      lhs = rhs;
    }
    return result;
  }
  case ast::ExprKind::BoolOp: {
    // As Triton's visit_BoolOp: the operands are evaluated in order, and the first constant
    // that decides (a false one for `and`, a true one for `or`) is the result, wherever it
    // stands: `n > 0 and USE_WINDOW` with USE_WINDOW false is the constant False, so an `if`
    // on it compiles only its else branch. Constants that do not decide drop out; the run-time
    // operands left are combined as booleans, one left alone is the result as it is.
    bool isAnd = expr.boolOp == ast::BoolOperator::And;
    std::vector<SemaValue> runTime;
    SemaValue value;
    for (size_t i = 0; i < expr.operands.size(); ++i) {
      value = eval(*expr.operands[i]);
      // Module-level Python's unknown values (the GPU's name): the other side may decide.
      if (isUnknown(value) && runTime.empty()) {
        for (size_t j = i + 1; j < expr.operands.size(); ++j)
          value = boolOpWithUnknown(isAnd, value, eval(*expr.operands[j]), expr.loc);
        return value;
      }
      if (auto truth = constexprTruth(value)) {
        if (isAnd != *truth)
          return value;
        continue;
      }
      runTime.push_back(value);
    }
    if (runTime.empty()) // all constants, none decided: Python's result is the last one
      return value;
    builder_.setLoc(expr.loc);
    SemaValue result = runTime.back();
    for (size_t i = runTime.size() - 1; i-- > 0;) {
      // On run-time values `and`/`or` are logical: both sides as booleans.
      tir::Value *l =
          castTo(toValue(runTime[i], expr.loc, "'and'/'or'"), DType::scalar(ScalarKind::I1));
      tir::Value *r =
          castTo(toValue(result, expr.loc, "'and'/'or'"), DType::scalar(ScalarKind::I1));
      result = binaryOp(isAnd ? ast::BinaryOperator::BitAnd : ast::BinaryOperator::BitOr,
                        SemaValue::ofTensor(l), SemaValue::ofTensor(r), expr.loc);
    }
    return result;
  }
  case ast::ExprKind::IfExp:
    return evalIfExp(expr);
  case ast::ExprKind::Tuple:
  case ast::ExprKind::List: {
    std::vector<SemaValue> elems;
    for (const ast::ExprPtr &e : expr.operands)
      elems.push_back(eval(*e));
    if (expr.kind == ast::ExprKind::List && expr.name == "set") {
      if (inKernelCode())
        error(expr.loc, "a set is not supported in a kernel");
      return makeSet(kSetClass, elems, expr.loc);
    }
    if (expr.kind == ast::ExprKind::List)
      return SemaValue::ofList(std::move(elems));
    return SemaValue::ofTuple(std::move(elems));
  }
  case ast::ExprKind::Comprehension:
    return evalComprehension(expr);
  case ast::ExprKind::Dict: {
    // Module-level Python's dicts (a triton.Config's values): an object holding its keys and
    // its values, in order. Kernels have none, as in Triton.
    if (inKernelCode())
      error(expr.loc, "a dict is not supported in a kernel");
    // A key given twice keeps its first place and its last value; `**mapping` (a null key)
    // adds the entries of another dict so.
    SemaValue dict = makeDict();
    for (size_t i = 0; i + 1 < expr.operands.size(); i += 2) {
      if (!expr.operands[i]) {
        SemaValue unpacked = eval(*expr.operands[i + 1]);
        if (unpacked.kind != SemaValue::Kind::Object || unpacked.name != kDictClass)
          raisePython(*builtinExceptionClasses("TypeError"),
                      unpacked.describe() + " is not a mapping", expr.operands[i + 1]->loc);
        for (size_t k = 0; k < unpacked.elems[0].elems.size(); ++k)
          dictInsert(dict, unpacked.elems[0].elems[k], unpacked.elems[1].elems[k]);
        continue;
      }
      SemaValue key = eval(*expr.operands[i]);
      dictInsert(dict, key, eval(*expr.operands[i + 1]));
    }
    return dict;
  }
  case ast::ExprKind::NamedExpr: {
    // `if spec := importlib.util.find_spec(name):` in the Python functions module-level code
    // calls binds a local as Python does; Triton's kernels have no walrus.
    if (hostCallDepth_ == 0)
      error(expr.loc, std::string("an assignment expression (:=) is not supported ") +
                          (moduleLevelDepth_ > 0 ? "yet at module level"
                                                 : "in a kernel (Triton does not support it "
                                                   "either)"));
    SemaValue value = eval(*expr.operands[0]);
    bind(expr.name, value);
    return value;
  }
  case ast::ExprKind::Lambda: {
    // Triton's code generator has no lambda (unsupported AST node type: Lambda); module-level
    // code makes them for autotune's pre_hook, filter() and the like.
    if (inKernelCode())
      error(expr.loc, "lambda is not supported in a kernel (Triton does not support it either)");
    SemaValue function = SemaValue::ofBuiltin("pyfunc:<lambda>");
    function.function = expr.lambda.get();
    if (hostCallDepth_ > 0 && !scopes_.empty()) {
      function.defaults = evalDefaults(*expr.lambda);
      function.closure = liveClosure();
    }
    return function;
  }
  case ast::ExprKind::Unsupported:
    if (!inKernelCode())
      error(expr.loc, expr.name + " is not supported yet in Python code that tilec evaluates at "
                                  "module level");
    // Triton 3.6's tensor.__getitem__ takes only ':' and None (x[..., None] is "unsupported
    // tensor index: Ellipsis"), and nothing else in the language takes Ellipsis.
    if (expr.name == ast::kEllipsis)
      error(expr.loc, "'...' (Ellipsis) is not supported in a kernel: Triton 3.6 refuses it too "
                      "(a tensor index may only be ':' or None, as in x[:, None])");
    error(expr.loc, expr.name + " is not supported yet in a kernel");
  }
  error(expr.loc, "unexpected expression");
}

SemaValue Specializer::attribute(const SemaValue &base, const std::string &attr, SourceLoc loc) {
  if (base.kind == SemaValue::Kind::Module && base.userModule >= 0)
    return userModuleAttribute(base.userModule, attr, loc);
  // triton.__version__ is the version tilec implements; torch's is --torch-version; another
  // package's is the host's.
  if (base.kind == SemaValue::Kind::Module && attr == "__version__" &&
      (base.name == "torch" || base.name == "torch.version"))
    return torchVersion();
  if (base.kind == SemaValue::Kind::Module && attr == "__version__" &&
      base.name.substr(0, base.name.find('.')) != "triton")
    error(loc, "tilec cannot know the version of '" + base.name + "'; it only knows triton's (" +
                   kTritonVersion + ")");
  if (base.kind == SemaValue::Kind::Module)
    return moduleAttribute(base.name, attr, loc);
  return valueAttribute(base, attr, loc);
}

SemaValue Specializer::evalSubscript(const ast::Expr &expr) {
  SemaValue base = eval(*expr.operands[0]);
  const ast::Expr &indexExpr = *expr.operands[1];
  // t[1:], version.split(".")[:2], s[::-1]: a slice of a tuple, a list or a string, as Python
  // takes it (Triton's tuples slice the same way in kernels).
  if (indexExpr.kind == ast::ExprKind::Slice &&
      (base.kind == SemaValue::Kind::Tuple || base.kind == SemaValue::Kind::String))
    return sliceSequence(base, indexExpr);
  std::vector<SemaValue> indices;
  if (indexExpr.kind == ast::ExprKind::Tuple) {
    for (const ast::ExprPtr &e : indexExpr.operands)
      indices.push_back(eval(*e));
  } else {
    indices.push_back(eval(indexExpr));
  }
  if (base.kind == SemaValue::Kind::Tuple) {
    if (indices.size() != 1 || indices[0].kind != SemaValue::Kind::Int)
      error(indexExpr.loc, "a tuple can only be indexed by a constant integer");
    int64_t i = constantInt(indices[0], indexExpr.loc, "a tuple index");
    int64_t n = static_cast<int64_t>(base.elems.size());
    if (i < 0)
      i += n;
    if (i < 0 || i >= n)
      error(indexExpr.loc, "tuple index " + std::to_string(indices[0].intValue) +
                               " out of range for a tuple of " + std::to_string(n));
    return base.elems[static_cast<size_t>(i)];
  }
  if (base.kind == SemaValue::Kind::Object && indices.size() == 1)
    return devicePropertiesItem(base, indices[0], indexExpr.loc);
  // `os.environ["NAME"]` in module-level Python (vLLM's envs, after `"NAME" in os.environ`):
  // tilec's own environment, as for os.environ.get; KeyError where it is unset.
  if (base.kind == SemaValue::Kind::Module && base.userModule < 0 && base.name == "os.environ" &&
      !inKernelCode() && indices.size() == 1) {
    if (indices[0].kind != SemaValue::Kind::String)
      raisePython(*builtinExceptionClasses("TypeError"),
                  "str expected, not " + indices[0].describe(), indexExpr.loc);
    if (const char *value = std::getenv(indices[0].name.c_str()))
      return SemaValue::ofString(value);
    raisePython(*builtinExceptionClasses("KeyError"), "'" + indices[0].name + "'", indexExpr.loc);
  }
  // `env[0] == "1"` in module-level Python: a string's character (Triton's kernels have no
  // strings to index).
  if (base.kind == SemaValue::Kind::String && !inKernelCode() && indices.size() == 1) {
    if (indices[0].kind != SemaValue::Kind::Int && indices[0].kind != SemaValue::Kind::Bool)
      raisePython(*builtinExceptionClasses("TypeError"),
                  "string indices must be integers, not " + indices[0].describe(), indexExpr.loc);
    if (std::any_of(base.name.begin(), base.name.end(),
                    [](char c) { return static_cast<unsigned char>(c) >= 0x80; }))
      error(indexExpr.loc, "indexing a string with characters outside ASCII is not supported yet");
    int64_t n = static_cast<int64_t>(base.name.size());
    int64_t i = indices[0].numberAsInt();
    if (i < 0)
      i += n;
    if (indices[0].intIsWide || i < 0 || i >= n)
      raisePython(*builtinExceptionClasses("IndexError"), "string index out of range",
                  indexExpr.loc);
    return SemaValue::ofString(std::string(1, base.name[static_cast<size_t>(i)]));
  }
  if (!base.isTensor())
    error(expr.loc, "cannot index " + base.describe());
  // x[:, None] as Triton's tensor.__getitem__: ':' changes nothing, None at position i of the
  // index inserts a dimension of size 1 at i. A scalar becomes a one-element tensor
  // (pid[:, None] and pid[None, :] are both [1], as torchao's kernels use them); a None past the
  // end of a tensor's shape is an error, as Triton's expand_dims makes it.
  for (const SemaValue &index : indices) {
    if (index.kind != SemaValue::Kind::Slice && !index.isNone())
      error(indexExpr.loc, "indexing a tensor with " + index.describe() +
                               " is not supported: Triton 3.6 refuses it too (a tensor index may "
                               "only be ':' or None, as in x[:, None])");
    bool full = std::all_of(index.elems.begin(), index.elems.end(),
                            [](const SemaValue &part) { return part.isNone(); });
    if (index.kind == SemaValue::Kind::Slice && !full)
      error(indexExpr.loc, "unsupported tensor index: slice(" + index.elems[0].repr() + ", " +
                               index.elems[1].repr() + ", " + index.elems[2].repr() +
                               ") (Triton indexes tensors with ':' and None only)");
  }
  tir::Value *v = base.value;
  unsigned dim = 0;
  builder_.setLoc(expr.loc);
  for (const SemaValue &index : indices) {
    if (index.isNone()) {
      if (v->type().isScalar())
        v = builder_.splat(v, {1});
      else if (dim > v->type().rank())
        error(indexExpr.loc, "None at position " + std::to_string(dim) +
                                 " of the index inserts a dimension past the end of a tensor of "
                                 "rank " +
                                 std::to_string(v->type().rank()));
      else
        v = builder_.expandDims(v, dim);
    }
    ++dim;
  }
  return SemaValue::ofTensor(v);
}

SemaValue Specializer::sliceSequence(const SemaValue &base, const ast::Expr &slice) {
  auto part = [&](size_t i) -> std::optional<int64_t> {
    const ast::ExprPtr &e = slice.operands[i];
    if (!e)
      return std::nullopt;
    SemaValue v = eval(*e);
    if (v.isNone())
      return std::nullopt;
    if (v.kind != SemaValue::Kind::Int && v.kind != SemaValue::Kind::Bool)
      error(e->loc, "slice indices must be constant integers or None, not " + v.describe());
    return v.numberAsInt();
  };
  std::optional<int64_t> lower = part(0), upper = part(1), stride = part(2);
  int64_t step = stride.value_or(1);
  if (step == 0)
    raisePython(*builtinExceptionClasses("ValueError"), "slice step cannot be zero", slice.loc);
  // Python's slice.indices(): bounds clamped to the sequence, from the end when negative.
  int64_t n = base.kind == SemaValue::Kind::Tuple ? static_cast<int64_t>(base.elems.size())
                                                  : static_cast<int64_t>(base.name.size());
  auto clamp = [&](std::optional<int64_t> bound, int64_t fallback) {
    if (!bound)
      return fallback;
    int64_t b = *bound < 0 ? *bound + n : *bound;
    return step > 0 ? std::clamp<int64_t>(b, 0, n) : std::clamp<int64_t>(b, -1, n - 1);
  };
  int64_t start = clamp(lower, step > 0 ? 0 : n - 1);
  int64_t stop = clamp(upper, step > 0 ? n : -1);
  std::vector<SemaValue> elems;
  std::string text;
  for (int64_t i = start; step > 0 ? i < stop : i > stop; i += step) {
    if (base.kind == SemaValue::Kind::Tuple)
      elems.push_back(base.elems[static_cast<size_t>(i)]);
    else
      text += base.name[static_cast<size_t>(i)];
  }
  if (base.kind == SemaValue::Kind::String) {
    bool ascii = std::all_of(base.name.begin(), base.name.end(),
                             [](char c) { return (static_cast<unsigned char>(c) & 0x80) == 0; });
    if (!ascii)
      error(slice.loc, "slicing a string outside ASCII is not supported yet");
    return SemaValue::ofString(std::move(text));
  }
  SemaValue result = SemaValue::ofTuple(std::move(elems));
  result.isList = base.isList;
  result.objectId = result.isList ? SemaValue::newObjectId() : 0; // a slice is a new list
  return result;
}

void Specializer::checkResultUsed(const ast::Expr &call) {
  // Triton's must_use_result: a call whose result is dropped (a statement of its own) of
  // tl.advance, which has no side effect, or of a function decorated @triton.must_use_result is
  // a compile error. Only a callee that is a name or a dotted name is looked at: evaluating it
  // twice changes nothing.
  std::string callee = dottedName(*call.operands[0]);
  if (callee.empty() || moduleLevelDepth_ > 0)
    return;
  SemaValue fn = eval(*call.operands[0]);
  std::string note;
  if (fn.kind == SemaValue::Kind::Builtin && fn.name == "tl.advance") {
    note = "Note that tl.advance does not have any side effects. To move the block pointer, you "
           "need to assign the result of tl.advance to a variable.";
  } else if (fn.kind == SemaValue::Kind::JitFunction && fn.function) {
    const ast::Expr *marker = nullptr;
    for (const ast::ExprPtr &d : fn.function->decorators) {
      const ast::Expr *name = d->kind == ast::ExprKind::Call ? d->operands[0].get() : d.get();
      std::string dotted = dottedName(*name);
      if (dotted.substr(dotted.rfind('.') + 1) == "must_use_result")
        marker = d.get();
    }
    if (!marker)
      return;
    // @must_use_result("why") adds its text to the message.
    if (marker->kind == ast::ExprKind::Call && marker->operands.size() > 1) {
      SemaValue why = evalModuleLevel(*marker->operands[1]);
      if (why.kind == SemaValue::Kind::String)
        note = why.name;
    }
  } else {
    return;
  }
  error(call.loc,
        "The result of " + callee + " is not being used." + (note.empty() ? "" : " " + note));
}

SemaValue Specializer::evalCall(const ast::Expr &expr) {
  if (std::optional<SemaValue> changed = evalListMethod(expr))
    return *changed;
  SemaValue callee = eval(*expr.operands[0]);
  CallArgs args;
  args.loc = expr.loc;
  for (size_t i = 1; i < expr.operands.size(); ++i) {
    const ast::Expr &arg = *expr.operands[i];
    bool starred = arg.kind == ast::ExprKind::Unsupported && arg.name == "starred expression" &&
                   !arg.operands.empty();
    if (!starred) {
      args.positional.push_back(eval(arg));
      continue;
    }
    // `f(x, *t)`: the tuple's elements are positional arguments, as in Triton's visit_Call.
    SemaValue unpacked = eval(*arg.operands[0]);
    if (unpacked.kind != SemaValue::Kind::Tuple)
      error(arg.loc, "'*' in a call unpacks a tuple or a list here, not " + unpacked.describe());
    args.positional.insert(args.positional.end(), unpacked.elems.begin(), unpacked.elems.end());
  }
  for (const ast::Keyword &kw : expr.keywords) {
    if (!kw.name.empty()) {
      args.keywords.emplace_back(kw.name, eval(*kw.value));
      continue;
    }
    if (inKernelCode())
      error(kw.loc, "'**' arguments are not supported in kernels");
    // `f(**kwargs)` in the Python tilec evaluates: the dict's entries, as keywords.
    SemaValue unpacked = eval(*kw.value);
    if (unpacked.kind != SemaValue::Kind::Object || unpacked.name != kDictClass)
      raisePython(*builtinExceptionClasses("TypeError"),
                  "argument after ** must be a mapping, not " + unpacked.describe(), kw.loc);
    for (size_t k = 0; k < unpacked.elems[0].elems.size(); ++k) {
      const SemaValue &key = unpacked.elems[0].elems[k];
      if (key.kind != SemaValue::Kind::String)
        raisePython(*builtinExceptionClasses("TypeError"), "keywords must be strings", kw.loc);
      bool repeated = std::any_of(args.keywords.begin(), args.keywords.end(),
                                  [&](const auto &given) { return given.first == key.name; });
      if (repeated)
        raisePython(*builtinExceptionClasses("TypeError"),
                    "got multiple values for keyword argument '" + key.name + "'", kw.loc);
      args.keywords.emplace_back(key.name, unpacked.elems[1].elems[k]);
    }
  }
  return callValue(callee, args, expr.operands[0]->loc);
}

std::optional<SemaValue> Specializer::evalListMethod(const ast::Expr &call) {
  // `results.append(config)` in a Python function that module-level code calls (a helper that
  // builds autotune configs in loops): the list changed in place, for every name that holds it
  // (replaceObject).
  const ast::Expr &callee = *call.operands[0];
  if (hostCallDepth_ == 0 || inKernelCode() || callee.kind != ast::ExprKind::Attribute)
    return std::nullopt;
  const std::string &method = callee.name;
  if (method != "append" && method != "extend" && method != "insert")
    return std::nullopt;
  const ast::Expr &receiver = *callee.operands[0];
  if (receiver.kind == ast::ExprKind::Name && !scopes_.back().names.count(receiver.name)) {
    SemaValue object = lookup(receiver.name, callee.loc);
    if (object.kind == SemaValue::Kind::Tuple && object.isList)
      error(callee.loc, "changing the module-level list '" + receiver.name + "' in place (." +
                            method + ") is not supported yet in the Python that tilec evaluates");
    return std::nullopt;
  }
  SemaValue list = eval(receiver);
  if (list.kind != SemaValue::Kind::Tuple || !list.isList)
    return std::nullopt;
  const bool named = receiver.kind == ast::ExprKind::Name;
  if (list.objectId == 0 && !(named && scopes_.back().ownLists.count(receiver.name)))
    error(callee.loc, "." + method +
                          "() changes this list in place, which its other holders (a caller, "
                          "another name) see in Python: not supported yet on a list whose "
                          "holders tilec cannot follow");
  if (!call.keywords.empty())
    error(call.loc, "list." + method + "() takes no keyword arguments");
  std::vector<SemaValue> args;
  for (size_t i = 1; i < call.operands.size(); ++i)
    args.push_back(eval(*call.operands[i]));
  size_t wanted = method == "insert" ? 2 : 1;
  if (args.size() != wanted)
    raisePython(*builtinExceptionClasses("TypeError"),
                "list." + method + "() takes exactly " + std::to_string(wanted) +
                    (wanted == 1 ? " argument (" : " arguments (") + std::to_string(args.size()) +
                    " given)",
                call.loc);
  // The arguments may have changed the list: change what it holds now.
  SemaValue updated = eval(receiver);
  std::vector<SemaValue> &elems = updated.elems;
  if (method == "append") {
    elems.push_back(args[0]);
  } else if (method == "extend") {
    if (args[0].kind != SemaValue::Kind::Tuple)
      error(call.operands[1]->loc, "list.extend() of " + args[0].describe() +
                                       " is not supported yet (a tuple or a list is)");
    elems.insert(elems.end(), args[0].elems.begin(), args[0].elems.end());
  } else {
    // insert(i, x): i clamped to the list as Python does, negative from the end.
    int64_t size = static_cast<int64_t>(elems.size());
    int64_t at = constantInt(args[0], call.operands[1]->loc, "index");
    if (at < 0)
      at = std::max<int64_t>(0, at + size);
    at = std::min(at, size);
    elems.insert(elems.begin() + at, args[1]);
  }
  if (updated.objectId != 0)
    replaceObject(updated, callee.loc);
  else
    bind(receiver.name, updated);
  return SemaValue::none();
}

SemaValue Specializer::callValue(const SemaValue &callee, CallArgs &args, SourceLoc calleeLoc) {
  builder_.setLoc(args.loc);
  if (std::optional<SemaValue> unknown = callUnknown(callee, args))
    return *unknown;
  if (callee.kind == SemaValue::Kind::Builtin && callee.function &&
      callee.name.rfind(kNamedTupleClass, 0) == 0)
    return constructNamedTuple(*callee.function, args);
  if (callee.kind == SemaValue::Kind::Builtin && callee.function &&
      callee.name.rfind(kPythonClass, 0) == 0) {
    if (moduleLevelDepth_ == 0)
      error(args.loc, "calling the Python class '" + callee.function->targets[0]->name +
                          "' in a kernel: Triton's code generator makes no Python objects");
    return constructPythonObject(*callee.function, args);
  }
  if (callee.kind == SemaValue::Kind::String) {
    SemaValue function = jitFunctionNamed(callee, calleeLoc);
    if (function.kind == SemaValue::Kind::JitFunction)
      return callJitFunction(*function.function, args);
  }
  // What functools' wrappers return in module-level code (HostPython.cpp): a caching decorator
  // returns the function it wraps, and a partial calls its function with its bound arguments
  // before the call's own, its keywords overridden by the call's.
  if (callee.kind == SemaValue::Kind::Builtin && callee.name == kCacheDecorator) {
    if (args.positional.size() != 1 || !args.keywords.empty())
      raisePython(*builtinExceptionClasses("TypeError"),
                  "the decorator lru_cache returns takes one function", args.loc);
    return args.positional[0];
  }
  if (callee.kind == SemaValue::Kind::Builtin && callee.name == kPartialObject) {
    CallArgs bound;
    bound.loc = args.loc;
    bound.positional = callee.elems[1].elems;
    bound.positional.insert(bound.positional.end(), args.positional.begin(), args.positional.end());
    for (const SemaValue &keyword : callee.elems[2].elems) {
      const std::string &name = keyword.elems[0].name;
      bool overridden = std::any_of(args.keywords.begin(), args.keywords.end(),
                                    [&](const auto &kw) { return kw.first == name; });
      if (!overridden)
        bound.keywords.emplace_back(name, keyword.elems[1]);
    }
    bound.keywords.insert(bound.keywords.end(), args.keywords.begin(), args.keywords.end());
    return callValue(callee.elems[0], bound, calleeLoc);
  }
  if (callee.kind == SemaValue::Kind::JitFunction) {
    // A stdlib function used as a method (x.sigmoid()): the receiver is the first argument.
    if (!callee.elems.empty())
      args.positional.insert(args.positional.begin(), callee.elems[0]);
    return callJitFunction(*callee.function, args);
  }
  // The project's own compare_version, imported from its utils or defined in the file.
  auto endsWith = [](const std::string &s, const std::string &tail) {
    return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
  };
  if ((callee.kind == SemaValue::Kind::Builtin && callee.name == "pyfunc:compare_version") ||
      (callee.kind == SemaValue::Kind::Module && endsWith(callee.name, ".compare_version")))
    return compareVersion(args);
  if (callee.kind == SemaValue::Kind::Builtin && callee.function && moduleLevelDepth_ > 0)
    return callHostFunction(callee, args);
  if (callee.kind == SemaValue::Kind::Builtin && callee.function &&
      callee.name.rfind("constexprfn:", 0) == 0)
    return callConstexprFunction(*callee.function, args);
  // tl.target_info.is_cuda() and the like: constexpr functions, in a kernel and outside.
  if (callee.kind == SemaValue::Kind::Module && callee.userModule < 0 &&
      callee.name.rfind("triton.language.target_info.", 0) == 0)
    return callTargetInfo(callee.name.substr(std::string("triton.language.target_info.").size()),
                          args);
  // math.log2(BLOCK) and the like on constexprs, in a kernel too.
  if (callee.kind == SemaValue::Kind::Module && callee.userModule < 0 &&
      callee.name.rfind("math.", 0) == 0)
    return callMath(callee.name.substr(5), args);
  // torch.finfo(torch.float32).max in a kernel: Triton calls such Python functions at compile
  // time and makes their result a constexpr.
  if (callee.kind == SemaValue::Kind::Module && callee.userModule < 0 &&
      (callee.name == "torch.finfo" || callee.name == "torch.iinfo"))
    return callHostLibrary(callee.name, args);
  // A library function (re.match, packaging.version.Version...) called by module-level code.
  if (callee.kind == SemaValue::Kind::Module && callee.userModule < 0 && moduleLevelDepth_ > 0)
    return callHostLibrary(callee.name, args);
  if (callee.kind == SemaValue::Kind::Builtin)
    return callBuiltin(callee, args);
  error(calleeLoc, callee.describe() + " is not callable in a kernel");
}

SemaValue Specializer::callJitFunction(const ast::Stmt &def, CallArgs &args) {
  bool stdlib = isStdlibFunction(def);
  if (!stdlib) {
    // A user function runs in the namespace of the file that defines it (a helper imported
    // from another file sees that file's names), also when the stdlib calls it back (a
    // combine function of tl.reduce).
    int module = graph_ ? graph_->moduleOfFile(def.loc.file) : -1;
    if (module < 0)
      module = 0;
    if (static_cast<size_t>(module) == current_ && !inStdlib_)
      return inlineJitFunction(def, args);
    ModuleSwitch in(*this, static_cast<size_t>(module), /*newScope=*/false);
    return inlineJitFunction(def, args);
  }
  bool entersStdlib = !inStdlib_;
  if (!entersStdlib)
    return inlineJitFunction(def, args);
  // An error inside the stdlib is reported where it happens, with a note at the user's call.
  inStdlib_ = true;
  try {
    SemaValue result = inlineJitFunction(def, args);
    inStdlib_ = false;
    return result;
  } catch (const CompileError &e) {
    inStdlib_ = false;
    // The name the user wrote: tl.X, or torch's triton_helpers.X for stdlib/inductor.tl's.
    const std::string inductor = "inductor_";
    std::string message =
        def.name.rfind(inductor, 0) == 0
            ? "in triton_helpers." + def.name.substr(inductor.size()) + ", called from here"
            : "in tl." + def.name + ", called from here";
    rethrowWithNote(e, args.loc, message);
  }
}

SemaValue Specializer::inlineJitFunction(const ast::Stmt &def, CallArgs &args) {
  const std::map<std::string, SemaValue> *closure = pendingClosure_;
  const std::map<std::string, SemaValue> *madeDefaults = pendingDefaults_;
  pendingClosure_ = nullptr;
  pendingDefaults_ = nullptr;
  if (callDepth_ >= 64)
    error(args.loc, "calls nested too deeply (recursion is not supported in kernels)");
  countExpansion(args.loc, "this call");
  // Bind arguments to parameters the way Python does, over a lambda's closure.
  Scope scope;
  if (closure)
    scope.names = *closure;
  std::vector<bool> bound(def.params.size(), false);
  // A Python function that module-level code calls may collect the rest of its arguments with
  // *args (a tuple) and **kwargs (a dict); a @triton.jit function may not.
  const bool python = hostCallDepth_ > 0;
  std::vector<size_t> positionalSlots;
  std::optional<size_t> varArgs, kwArgs;
  for (size_t i = 0; i < def.params.size(); ++i) {
    const ast::Param &param = def.params[i];
    if ((param.isVarArgs || param.isKwArgs) && !python)
      error(param.loc, "*args and **kwargs are not supported in @triton.jit functions");
    if (param.isVarArgs)
      varArgs = i;
    else if (param.isKwArgs)
      kwArgs = i;
    else if (!param.isKeywordOnly)
      positionalSlots.push_back(i);
  }
  if (args.positional.size() > positionalSlots.size() && !varArgs)
    error(args.loc, "'" + def.name + "' takes " + std::to_string(positionalSlots.size()) +
                        " arguments but " + std::to_string(args.positional.size()) + " were given");
  std::vector<SemaValue> extra;
  for (size_t i = 0; i < args.positional.size(); ++i) {
    if (i >= positionalSlots.size()) {
      extra.push_back(args.positional[i]);
      continue;
    }
    scope.names[def.params[positionalSlots[i]].name] = args.positional[i];
    bound[positionalSlots[i]] = true;
  }
  if (varArgs) {
    scope.names[def.params[*varArgs].name] = SemaValue::ofTuple(std::move(extra));
    bound[*varArgs] = true;
  }
  SemaValue keywordDict = makeDict();
  for (auto &[name, value] : args.keywords) {
    auto it = std::find_if(def.params.begin(), def.params.end(), [&](const ast::Param &p) {
      return p.name == name && !p.isVarArgs && !p.isKwArgs;
    });
    if (it == def.params.end() && kwArgs) {
      dictInsert(keywordDict, SemaValue::ofString(name), value);
      continue;
    }
    if (it == def.params.end())
      error(args.loc, "'" + def.name + "' has no parameter named '" + name + "'");
    size_t index = static_cast<size_t>(it - def.params.begin());
    if (bound[index])
      error(args.loc, "'" + def.name + "' got two values for parameter '" + name + "'");
    scope.names[name] = value;
    bound[index] = true;
  }
  if (kwArgs) {
    scope.names[def.params[*kwArgs].name] = keywordDict;
    bound[*kwArgs] = true;
  }
  for (size_t i = 0; i < def.params.size(); ++i) {
    if (bound[i])
      continue;
    if (!def.params[i].defaultValue)
      error(args.loc, "'" + def.name + "' is missing the argument '" + def.params[i].name + "'");
    if (madeDefaults && madeDefaults->count(def.params[i].name)) {
      scope.names[def.params[i].name] = madeDefaults->at(def.params[i].name);
      continue;
    }
    // Python evaluates a default where the function is made: a lambda's in the scope it closes
    // over (`lambda args, _v=v: _v` in a comprehension), else the module's.
    Scope defaults;
    if (closure)
      defaults.names = *closure;
    scopes_.push_back(std::move(defaults));
    scope.names[def.params[i].name] = eval(*def.params[i].defaultValue);
    scopes_.pop_back();
  }

  // Inline the body in a fresh scope.
  scopes_.push_back(std::move(scope));
  ++callDepth_;
  unsigned savedDepth = runtimeControlFlowDepth_, savedStaticDepth = staticLoopDepth_;
  runtimeControlFlowDepth_ = 0;
  staticLoopDepth_ = 0;
  // A helper's `return` ends the helper: what follows its call is not its continuation.
  std::vector<Continuation> savedContinuations = std::move(continuations_);
  continuations_.clear();
  std::optional<SemaValue> savedReturn = std::move(returnValue_);
  returnValue_.reset();
  SourceLoc savedLoc = builder_.loc();
  auto restore = [&] {
    returnValue_ = std::move(savedReturn);
    loopExit_ = LoopExit::None;
    runtimeControlFlowDepth_ = savedDepth;
    staticLoopDepth_ = savedStaticDepth;
    continuations_ = std::move(savedContinuations);
    --callDepth_;
    scopes_.pop_back();
    builder_.setLoc(savedLoc);
  };
  try {
    execBlock(def.body);
  } catch (const HostException &) {
    // A Python exception leaves the function: the caller's `try` may catch it and go on.
    restore();
    throw;
  }
  SemaValue result = returnValue_ ? *returnValue_ : SemaValue::none();
  restore();
  return result;
}

//===----------------------------------------------------------------------===//
// Entry point
//===----------------------------------------------------------------------===//

static bool isIdentifier(const std::string &text) {
  if (text.empty() || !(std::isalpha(static_cast<unsigned char>(text[0])) || text[0] == '_'))
    return false;
  return std::all_of(text.begin(), text.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
  });
}

/// A constexpr value written in a signature or a -D: True/False/None, a number, a dtype, a
/// quoted string ("mean" or 'mean'), or a bare word, which is a string (reduction=mean).
static std::optional<SemaValue> parseConstexprLiteral(const std::string &text) {
  if (text.size() >= 2 && (text.front() == '"' || text.front() == '\'') &&
      text.back() == text.front())
    return SemaValue::ofString(text.substr(1, text.size() - 2));
  if (text == "True" || text == "False")
    return SemaValue::ofBool(text == "True");
  if (text == "None")
    return SemaValue::none();
  try {
    size_t used = 0;
    long long i = std::stoll(text, &used, 0);
    if (used == text.size())
      return SemaValue::ofInt(i);
  } catch (...) {
  }
  try {
    size_t used = 0;
    double d = std::stod(text, &used);
    if (used == text.size())
      return SemaValue::ofFloat(d);
  } catch (...) {
  }
  std::string name = text;
  for (const char *prefix : {"tl.", "triton.language."})
    if (name.rfind(prefix, 0) == 0)
      name = name.substr(std::string(prefix).size());
  ScalarKind kind;
  if (tir::parseDType(name, kind) || (name == "fp8e4nv" && (kind = ScalarKind::F8E4M3, true)) ||
      (name == "fp8e5" && (kind = ScalarKind::F8E5M2, true)))
    return SemaValue::ofDType(DType::scalar(kind));
  // `tl.X` must be a dtype; any other bare word is a string.
  if (name != text || !isIdentifier(text))
    return std::nullopt;
  return SemaValue::ofString(text);
}

SemaValue launchArguments(const ast::Stmt &kernel, const std::string &signature,
                          const std::vector<std::pair<std::string, std::string>> &defines,
                          const std::string &why, SourceLoc origin) {
  std::string error;
  std::vector<SignatureEntry> entries;
  if (auto parsed = parseSignature(signature, error))
    entries = std::move(*parsed);
  SemaValue args = makeDict();
  for (size_t i = 0; i < kernel.params.size(); ++i) {
    const ast::Param &param = kernel.params[i];
    const SemaValue name = SemaValue::ofString(param.name);
    auto define = std::find_if(defines.begin(), defines.end(),
                               [&](const auto &d) { return d.first == param.name; });
    if (i >= entries.size()) {
      if (define == defines.end())
        continue;
      if (std::optional<SemaValue> value = parseConstexprLiteral(define->second))
        dictInsert(args, name, *value);
      continue;
    }
    const SignatureEntry &entry = entries[i];
    std::optional<SemaValue> value;
    if (entry.kind == SignatureEntry::Kind::Constant)
      value = parseConstexprLiteral(entry.constant);
    else if (entry.kind == SignatureEntry::Kind::Scalar && entry.hint == 0 &&
             isConstexprAnnotation(param.annotation.get()))
      value = SemaValue::ofDType(entry.type); // `fp16` for a constexpr: the dtype
    if (!value)
      value = Specializer::unknownValue("the run-time argument '" + param.name + "'", why, origin);
    dictInsert(args, name, *value);
  }
  return args;
}

/// Whether a parameter's default is a dtype (`DTYPE: tl.constexpr = tl.float32`), in which case
/// a string for it is a misspelt dtype rather than a string.
static bool defaultIsDType(const ast::Param &param) {
  if (!param.defaultValue)
    return false;
  std::string name = dottedName(*param.defaultValue);
  for (const char *prefix : {"tl.", "triton.language."})
    if (name.rfind(prefix, 0) == 0) {
      ScalarKind kind;
      return tir::parseDType(name.substr(std::string(prefix).size()), kind);
    }
  return false;
}

/// The value of constexpr `param` written as `text` (a signature entry or a -D); reports an
/// error naming the accepted spellings when it cannot be read.
static SemaValue constexprArgument(const SourceManager &sources, const ast::Param &param,
                                   const std::string &text, const std::string &what) {
  auto value = parseConstexprLiteral(text);
  // A function, named by a dotted name (FunctionReferences.cpp): resolved where the kernel's
  // module is in scope.
  if (!value && isFunctionReferenceText(text))
    return functionReference(text);
  if (!value)
    sources.error(param.loc, what + " for parameter '" + param.name +
                                 "' is not a number, True/False/None, a string, a dtype (" +
                                 kDTypeSpellings + ") or a function (MODULE.NAME)");
  if (value->kind == SemaValue::Kind::String && defaultIsDType(param) && text.front() != '"' &&
      text.front() != '\'')
    sources.error(param.loc, what + " for parameter '" + param.name +
                                 "' is not a dtype: " + "dtypes are spelled " + kDTypeSpellings);
  return *value;
}

/// The parameters of a `tensordesc<T[...]>` argument, in the order docs/metadata.md gives: the
/// base, the shape, the strides, the padding flag. The promises are those Triton's host-side
/// TensorDescriptor asserts (a 16-byte aligned base, leading strides of a multiple of 16 bytes);
/// the runtime checks them, and that the last stride is 1.
static void addTensorDescriptorParams(tir::Function &function, const std::string &name,
                                      const SignatureEntry &entry) {
  tir::TensorDescParam desc{name, entry.type, entry.blockShape,
                            static_cast<unsigned>(function.params.size())};
  function.tensorDescriptors.push_back(desc);
  auto add = [&](const std::string &part, DType type, unsigned alignment, unsigned divisibility) {
    tir::ParamInfo info;
    info.name = name + "." + part;
    info.type = type;
    info.alignment = alignment;
    info.divisibility = divisibility;
    function.params.push_back(info);
    function.body().addArgument(Type(type))->setNameHint(name + "_" + part);
  };
  size_t rank = entry.blockShape.size();
  unsigned elemBytes = std::max(1u, entry.type.bits() / 8);
  unsigned strideDivisibility = elemBytes < 16 ? 16 / elemBytes : 0;
  const DType i64 = DType::scalar(tir::ScalarKind::I64);
  add("base", DType::pointer(entry.type.kind), 16, 0);
  for (size_t d = 0; d < rank; ++d)
    add("shape." + std::to_string(d), i64, 0, 0);
  for (size_t d = 0; d < rank; ++d)
    add("strides." + std::to_string(d), i64, 0, d + 1 < rank ? strideDivisibility : 0);
  add("padding_nan", DType::scalar(tir::ScalarKind::I1), 0, 0);
}

/// The `.entry` parameter of a pointer or scalar entry, with the entry's promise.
static void addScalarParam(tir::Function &function, const std::string &name,
                           const SignatureEntry &entry) {
  tir::ParamInfo info;
  info.name = name;
  info.type = entry.type;
  if (entry.kind == SignatureEntry::Kind::Pointer)
    info.alignment = entry.hint;
  else
    info.divisibility = entry.hint;
  function.params.push_back(info);
  std::string hint = name; // a tuple element's `strides.0` is the IR's `strides_0`
  std::replace(hint.begin(), hint.end(), '.', '_');
  function.body().addArgument(Type(entry.type))->setNameHint(hint);
}

/// @triton.jit(do_not_specialize=[...]) naming a tl.constexpr parameter (by name or position):
/// Triton's JIT refuses it, as there is nothing to not specialise.
static void checkDoNotSpecialize(const SourceManager &sources, const ast::Stmt &kernel) {
  for (const ast::ExprPtr &decorator : kernel.decorators) {
    if (decorator->kind != ast::ExprKind::Call || !isJitDecorator(*decorator))
      continue;
    for (const ast::Keyword &keyword : decorator->keywords) {
      if (keyword.name != "do_not_specialize" && keyword.name != "do_not_specialize_on_alignment")
        continue;
      const ast::Expr &list = *keyword.value;
      if (list.kind != ast::ExprKind::List && list.kind != ast::ExprKind::Tuple)
        continue;
      for (const ast::ExprPtr &item : list.operands) {
        const ast::Param *param = nullptr;
        if (item->kind == ast::ExprKind::StringLit)
          for (const ast::Param &p : kernel.params)
            if (p.name == item->stringValue)
              param = &p;
        if (item->kind == ast::ExprKind::IntLit && item->intValue >= 0 &&
            static_cast<size_t>(item->intValue) < kernel.params.size())
          param = &kernel.params[static_cast<size_t>(item->intValue)];
        if (param && isConstexprAnnotation(param->annotation.get()))
          sources.error(item->loc,
                        param->name + " marked as constexpr and listed in " + keyword.name);
      }
    }
  }
}

/// Reports the first literal of tuple argument \p entry that does not read as a constexpr.
static void checkTupleLiterals(const SourceManager &sources, const ast::Param &param,
                               const SignatureEntry &entry) {
  for (const SignatureEntry &element : entry.elements) {
    if (element.kind == SignatureEntry::Kind::Tuple)
      checkTupleLiterals(sources, param, element);
    else if (element.kind == SignatureEntry::Kind::Constant &&
             !parseConstexprLiteral(element.constant) && !isFunctionReferenceText(element.constant))
      sources.error(param.loc, "element '" + element.text + "' of the signature entry '" +
                                   entry.text + "' for parameter '" + param.name +
                                   "' is not a number, True/False/None, a string or a dtype (" +
                                   kDTypeSpellings + ")");
  }
}

/// The value of a tuple entry of literals only (checked by checkTupleLiterals).
static SemaValue constantTuple(const SignatureEntry &entry) {
  std::vector<SemaValue> elements;
  for (const SignatureEntry &element : entry.elements) {
    if (element.kind == SignatureEntry::Kind::Tuple) {
      elements.push_back(constantTuple(element));
      continue;
    }
    std::optional<SemaValue> literal = parseConstexprLiteral(element.constant);
    elements.push_back(literal ? *literal : functionReference(element.constant));
  }
  SemaValue tuple = SemaValue::ofTuple(std::move(elements));
  tuple.name = entry.className; // a NamedTuple's class, bound by specialize
  return tuple;
}

/// The parameters of a tuple argument: its run-time elements, flattened in order as Triton's
/// launcher passes them, each named after its position (`arg.0`, `arg.1.0`); its literals are
/// bound at compile time and take none.
static void addTupleParams(tir::Function &function, const std::string &name,
                           const SignatureEntry &entry) {
  for (size_t i = 0; i < entry.elements.size(); ++i) {
    const SignatureEntry &element = entry.elements[i];
    std::string elementName = name + "." + std::to_string(i);
    switch (element.kind) {
    case SignatureEntry::Kind::Constant:
      break;
    case SignatureEntry::Kind::Tuple:
      addTupleParams(function, elementName, element);
      break;
    case SignatureEntry::Kind::TensorDesc:
      addTensorDescriptorParams(function, elementName, element);
      break;
    case SignatureEntry::Kind::Pointer:
    case SignatureEntry::Kind::Scalar:
      addScalarParam(function, elementName, element);
      break;
    }
  }
}

namespace {

/// Calls `f` on every expression of `stmts` (and of the blocks inside them), nested functions'
/// bodies included when `intoFunctions`.
void forEachExpr(const ast::StmtList &stmts, bool intoFunctions,
                 const std::function<void(const ast::Expr &)> &f) {
  std::function<void(const ast::Expr *)> expr = [&](const ast::Expr *e) {
    if (!e)
      return;
    f(*e);
    for (const ast::ExprPtr &o : e->operands)
      expr(o.get());
    for (const ast::Keyword &k : e->keywords)
      expr(k.value.get());
    for (const ast::ExprPtr &o : e->fstringSpecFields)
      expr(o.get());
    // A lambda's defaults and body (a function's body, but an expression of its statement).
    if (e->lambda) {
      for (const ast::Param &p : e->lambda->params)
        expr(p.defaultValue.get());
      expr(e->lambda->body[0]->value.get());
    }
  };
  std::function<void(const ast::StmtList &)> block = [&](const ast::StmtList &list) {
    for (const ast::StmtPtr &st : list) {
      if (st->kind == ast::StmtKind::FunctionDef) {
        for (const ast::ExprPtr &d : st->decorators)
          expr(d.get());
        for (const ast::Param &p : st->params)
          expr(p.defaultValue.get());
        if (!intoFunctions)
          continue;
      }
      for (const ast::ExprPtr &t : st->targets)
        expr(t.get());
      if (st->kind == ast::StmtKind::Unsupported && st->name == "class definition" && st->value) {
        // A class's bases, which the parser keeps as a call without a callee: the bases are
        // expressions, the call is not one (`class Registry(metaclass=type)` has no operand).
        for (const ast::ExprPtr &base : st->value->operands)
          expr(base.get());
        for (const ast::Keyword &k : st->value->keywords)
          expr(k.value.get());
      } else {
        expr(st->value.get());
      }
      expr(st->test.get());
      expr(st->iter.get());
      block(st->body);
      block(st->orelse);
      for (const ast::ExceptHandler &h : st->handlers) {
        expr(h.type.get());
        block(h.body);
      }
      block(st->finalbody);
      for (const ast::MatchCase &c : st->cases) {
        expr(c.guard.get());
        block(c.body);
      }
    }
  };
  block(stmts);
}

/// Whether \p stmt is in \p stmts or in a block nested in them.
static bool holds(const ast::StmtList &stmts, const ast::Stmt *stmt) {
  for (const ast::StmtPtr &st : stmts) {
    if (st.get() == stmt || holds(st->body, stmt) || holds(st->orelse, stmt) ||
        holds(st->finalbody, stmt))
      return true;
    for (const ast::ExceptHandler &h : st->handlers)
      if (holds(h.body, stmt))
        return true;
  }
  return false;
}

/// The names a function binds: its parameters and every name its body assigns, imports or
/// defines (over-approximated: nested blocks included). With \p imports, the import statements
/// that run whenever the function does go there instead, with the statement that binds each
/// name: those directly in its body, and in the body of a `try` or `with` statement that is
/// (AngelSlim's `try: import triton.language as tl` then `@triton.jit def kernel` in the same
/// block). Such an import that raises skips what follows it, the kernel's definition too. So do
/// the blocks of an `if` that holds \p inner, the kernel's definition: they ran to define it
/// (axolotl's `if _KERNEL is None: import triton.language as tl` then `@triton.jit def _kernel`).
std::set<std::string> boundNames(const ast::Stmt &def,
                                 std::map<std::string, const ast::Stmt *> *imports = nullptr,
                                 const ast::Stmt *inner = nullptr) {
  std::set<std::string> names;
  for (const ast::Param &p : def.params)
    names.insert(p.name);
  std::function<void(const ast::Expr *)> target = [&](const ast::Expr *e) {
    if (!e)
      return;
    if (e->kind == ast::ExprKind::Name)
      names.insert(e->name);
    else if (e->kind == ast::ExprKind::Tuple || e->kind == ast::ExprKind::List)
      for (const ast::ExprPtr &o : e->operands)
        target(o.get());
  };
  // The blocks that run from their first statement whenever the function runs.
  std::set<const ast::StmtList *> straight = {&def.body};
  // Names a `global` statement of the function declares: its assignments bind the module's
  // names, not variables of its own (PyTorch's test sets `global CONSTANT_C` around the kernel
  // it defines, which reads the module's CONSTANT_C).
  std::set<std::string> declaredGlobal;
  std::function<void(const ast::StmtList &)> block = [&](const ast::StmtList &list) {
    for (const ast::StmtPtr &st : list) {
      if (st->kind == ast::StmtKind::FunctionDef) {
        names.insert(st->name);
        continue;
      }
      if (st->kind == ast::StmtKind::Unsupported && st->name == "global statement")
        for (const ast::ImportAlias &alias : st->names)
          declaredGlobal.insert(alias.name);
      if (st->kind == ast::StmtKind::Assign || st->kind == ast::StmtKind::AugAssign ||
          st->kind == ast::StmtKind::AnnAssign || st->kind == ast::StmtKind::For)
        for (const ast::ExprPtr &t : st->targets)
          target(t.get());
      bool direct = straight.count(&list) != 0;
      if (direct && st->kind == ast::StmtKind::Unsupported &&
          (st->name == "try statement" || st->name == "with statement"))
        straight.insert(&st->body);
      if (direct && inner && st->kind == ast::StmtKind::If) {
        if (holds(st->body, inner))
          straight.insert(&st->body);
        else if (holds(st->orelse, inner))
          straight.insert(&st->orelse);
      }
      bool import = st->kind == ast::StmtKind::Import || st->kind == ast::StmtKind::ImportFrom;
      for (const ast::ImportAlias &alias : st->names) {
        std::string name = st->kind == ast::StmtKind::ImportFrom || !alias.asName.empty()
                               ? (alias.asName.empty() ? alias.name : alias.asName)
                               : alias.name.substr(0, alias.name.find('.'));
        if (imports && import && direct)
          (*imports)[name] = st.get();
        else
          names.insert(name);
      }
      for (const ast::ExceptHandler &h : st->handlers) {
        if (!h.name.empty())
          names.insert(h.name);
        block(h.body);
      }
      block(st->body);
      block(st->orelse);
      block(st->finalbody);
    }
  };
  block(def.body);
  for (const std::string &name : declaredGlobal)
    names.erase(name);
  return names;
}

} // namespace

/// A @triton.jit function defined in a class body (`class Operator: @triton.jit def
/// softmax_kernel(...)`, launched as Operator.softmax_kernel[grid]), found by its name when no
/// module-level function has it, or by its Python `__qualname__` (`Operator.softmax_kernel`,
/// `Outer.Inner.kernel`), the name its host code launches it by: its names are the module's, as
/// for any function of a class body in Python. Classes nest in classes, not in functions here.
static const ast::Stmt *classKernel(const ast::Module &module, const SourceManager &sources,
                                    const std::string &name) {
  auto isClass = [](const ast::Stmt &stmt) {
    return stmt.kind == ast::StmtKind::Unsupported && stmt.name == "class definition" &&
           !stmt.targets.empty();
  };
  // `Outer.Inner.kernel`: the enclosing classes' names, then the kernel's; a bare name matches
  // the kernel in any class.
  std::vector<std::string> classPath;
  for (size_t start = 0, dot; (dot = name.find('.', start)) != std::string::npos; start = dot + 1)
    classPath.push_back(name.substr(start, dot - start));
  const std::string kernelName = name.substr(name.rfind('.') + 1);
  const bool qualified = !classPath.empty();
  std::vector<const ast::Stmt *> found;
  std::vector<std::string> enclosing;
  std::function<void(const ast::StmtList &)> search = [&](const ast::StmtList &body) {
    for (const ast::StmtPtr &stmt : body) {
      if (isClass(*stmt)) {
        enclosing.push_back(stmt->targets[0]->name);
        search(stmt->body);
        enclosing.pop_back();
      } else if (stmt->name == kernelName && isJitDefinition(*stmt) &&
                 (!qualified || enclosing == classPath)) {
        found.push_back(stmt.get());
      }
    }
  };
  for (const ast::StmtPtr &stmt : module.body)
    if (isClass(*stmt)) {
      enclosing = {stmt->targets[0]->name};
      search(stmt->body);
    }
  if (found.size() > 1)
    sources.error(found[1]->loc, "several classes define a @triton.jit function named '" + name +
                                     "': name the one to compile by its qualified name, such as "
                                     "-k Class." +
                                     kernelName);
  return found.empty() ? nullptr : found[0];
}

/// A @triton.jit function defined inside a function (Triton's own tests define their kernels in
/// the test functions). \p name is the function's name, or its Python `__qualname__`
/// (`test_eq.<locals>.fn`, or `test_eq.fn`) where several functions define one of that name. Its
/// names resolve in the module as for a module-level kernel; a name bound by an enclosing function
/// (a closure) is accepted when it is a @triton.jit function defined directly in that function,
/// which is returned in \p closureFunctions, when only an import statement directly in that
/// function binds it (returned in \p closureImports), or when -D gives its value (\p defines);
/// any other is refused.
static const ast::Stmt *nestedKernel(const ast::Module &module, const SourceManager &sources,
                                     const std::string &name,
                                     const std::map<std::string, std::string> &defines,
                                     std::map<std::string, const ast::Stmt *> &closureFunctions,
                                     std::map<std::string, const ast::Stmt *> &closureImports,
                                     bool findOnly) {
  // `outer.inner.<locals>.kernel`: the enclosing functions' names, then the kernel's.
  std::vector<std::string> path;
  for (size_t start = 0;;) {
    size_t dot = name.find('.', start);
    std::string part =
        name.substr(start, dot == std::string::npos ? std::string::npos : dot - start);
    if (part != "<locals>")
      path.push_back(part);
    if (dot == std::string::npos)
      break;
    start = dot + 1;
  }
  const std::string kernelName = path.back();
  path.pop_back();
  const bool qualified = !path.empty();

  std::vector<std::pair<const ast::Stmt *, std::vector<const ast::Stmt *>>> found;
  // The enclosing functions (whose names a closure may read), and the names of every enclosing
  // scope, classes too: a test method's kernel is `TestCase.test_add.<locals>.kernel`.
  std::vector<const ast::Stmt *> enclosing;
  std::vector<std::string> scopes;
  // The enclosing functions' names alone, as tilec took them before classes were in the path.
  auto functionNames = [](const std::vector<const ast::Stmt *> &functions) {
    std::vector<std::string> names;
    for (const ast::Stmt *f : functions)
      names.push_back(f->name);
    return names;
  };
  std::function<void(const ast::StmtList &)> search = [&](const ast::StmtList &body) {
    // A function's body may apply triton.jit by call (`kernel = triton.jit(add_kernel)`, then
    // maybe `kernel = triton.autotune(...)(kernel)`): the function is a kernel, by either name.
    std::map<std::string, std::string> byCall;
    if (!enclosing.empty())
      byCall = jittedByCallIn(body);
    for (const ast::StmtPtr &st : body) {
      if (st->kind == ast::StmtKind::FunctionDef) {
        auto wrapped = byCall.find(kernelName);
        bool jittedByCall = std::any_of(byCall.begin(), byCall.end(),
                                        [&](const auto &b) { return b.second == st->name; });
        bool jit = isJitDefinition(*st) || jittedByCall;
        bool named =
            st->name == kernelName || (wrapped != byCall.end() && wrapped->second == st->name);
        if (jit && named && !enclosing.empty() &&
            (!qualified || scopes == path || functionNames(enclosing) == path))
          found.push_back({st.get(), enclosing});
        if (jit)
          continue;
        enclosing.push_back(st.get());
        scopes.push_back(st->name);
        search(st->body);
        scopes.pop_back();
        enclosing.pop_back();
        continue;
      }
      if (st->kind == ast::StmtKind::Unsupported && st->name == "class definition" &&
          !st->targets.empty()) {
        scopes.push_back(st->targets[0]->name);
        search(st->body);
        scopes.pop_back();
        continue;
      }
      search(st->body);
      search(st->orelse);
      for (const ast::ExceptHandler &h : st->handlers)
        search(h.body);
      search(st->finalbody);
    }
  };
  search(module.body);
  if (found.empty())
    return nullptr;
  if (found.size() > 1) {
    std::string where;
    for (const auto &[def, outer] : found)
      where += (where.empty() ? "" : ", ") + outer.back()->name + " (line " +
               std::to_string(def->loc.line) + ")";
    sources.error(found[1].first->loc,
                  "several functions define a @triton.jit function named '" + name + "' (in " +
                      where + "): name the one to compile by its qualified name, such as -k " +
                      found[0].second.back()->name + ".<locals>." + kernelName);
  }
  const auto &[kernel, outer] = found[0];
  if (findOnly)
    return kernel;
  // The @triton.jit functions each enclosing function defines in its own body, innermost last.
  std::map<std::string, const ast::Stmt *> localJitFunctions;
  for (const ast::Stmt *function : outer)
    for (const ast::StmtPtr &st : function->body)
      if (st->kind == ast::StmtKind::FunctionDef && isJitDefinition(*st))
        localJitFunctions[st->name] = st.get();
  // What each enclosing function binds, innermost last (computed once: every name the kernel
  // reads is looked up in them).
  std::vector<std::set<std::string>> outerBound;
  std::vector<std::map<std::string, const ast::Stmt *>> outerImports(outer.size());
  for (size_t i = 0; i < outer.size(); ++i)
    outerBound.push_back(boundNames(*outer[i], &outerImports[i], kernel));
  std::optional<std::pair<std::string, const ast::Expr *>> closure;
  std::function<void(const ast::Stmt &)> visitFunction = [&](const ast::Stmt &function) {
    std::set<std::string> bound = boundNames(function);
    forEachExpr(function.body, true, [&](const ast::Expr &e) {
      if (closure || e.kind != ast::ExprKind::Name || bound.count(e.name) ||
          closureFunctions.count(e.name) || closureImports.count(e.name) || defines.count(e.name))
        return;
      for (size_t i = outer.size(); i-- > 0;) {
        auto import = outerImports[i].find(e.name);
        if (import != outerImports[i].end() && !outerBound[i].count(e.name)) {
          closureImports[e.name] = import->second;
          return;
        }
        if (!outerBound[i].count(e.name))
          continue;
        auto local = localJitFunctions.find(e.name);
        if (local != localJitFunctions.end() && local->second != &function) {
          closureFunctions[e.name] = local->second;
          visitFunction(*local->second); // its own closures, too
          return;
        }
        closure = {outer[i]->name, &e};
        return;
      }
    });
  };
  visitFunction(*kernel);
  if (closure)
    sources.error(closure->second->loc,
                  "'" + closure->second->name + "' is a variable of '" + closure->first +
                      "', the function that defines the kernel '" + kernelName +
                      "': tilec cannot know its value; give it with -D " + closure->second->name +
                      "=VALUE, or pass it as an argument");
  return kernel;
}

/// `-D iters=i32` for a run-time parameter: -D binds values, so the type would bind the dtype
/// int32 as the parameter's value, which Triton never passes to a run-time parameter. Its type
/// belongs in the signature (a run-time parameter after the constexprs needs them there too).
static void refuseTypeForRunTimeParam(const SourceManager &sources, const ast::Param &param,
                                      const std::string &text) {
  std::string error;
  std::optional<std::vector<SignatureEntry>> parsed = parseSignature(text, error);
  if (!parsed || parsed->size() != 1)
    return;
  const SignatureEntry &entry = parsed->front();
  // `int32`, `tl.float16` and the like spell dtypes; `i32`, `fp16:16`, `*bf16` spell the
  // signature's types.
  bool dtypeSpelling = text.rfind("int", 0) == 0 || text.rfind("uint", 0) == 0 ||
                       text.rfind("float", 0) == 0 || text.rfind("bfloat", 0) == 0 ||
                       text.rfind("tl.", 0) == 0;
  bool typeEntry = entry.kind == SignatureEntry::Kind::Pointer ||
                   (entry.kind == SignatureEntry::Kind::Scalar && !dtypeSpelling);
  if (!typeEntry)
    return;
  sources.error(param.loc, "-D " + param.name + "=" + text + ": '" + param.name +
                               "' is a run-time parameter, and -D binds a value, not a type; "
                               "give its type '" +
                               text +
                               "' as its signature entry (with "
                               "entries for the parameters before it)");
}

/// The scalar type that a run-time parameter's annotation names (`stride: tl.int64`, or Python's
/// `n: int`, which jit.py's _normalize_ty reads as i32), which Triton's JIT launcher puts in the
/// kernel's signature whatever the value passed (jit.py's annotation_type); nullopt for none.
static std::optional<DType> annotatedScalarType(const ast::Expr *annotation) {
  if (!annotation)
    return std::nullopt;
  static const std::map<std::string, ScalarKind> names = {
      {"int8", ScalarKind::I8},       {"int16", ScalarKind::I16},   {"int32", ScalarKind::I32},
      {"int64", ScalarKind::I64},     {"uint8", ScalarKind::U8},    {"uint16", ScalarKind::U16},
      {"uint32", ScalarKind::U32},    {"uint64", ScalarKind::U64},  {"float16", ScalarKind::F16},
      {"bfloat16", ScalarKind::BF16}, {"float32", ScalarKind::F32}, {"float64", ScalarKind::F64}};
  std::string dotted = dottedName(*annotation);
  size_t dot = dotted.rfind('.');
  if (dot == std::string::npos) {
    // Python's types: jit.py canonicalises the type's name (`int` is i32, `float` fp32).
    if (dotted == "int")
      return DType::scalar(ScalarKind::I32);
    if (dotted == "float")
      return DType::scalar(ScalarKind::F32);
    return std::nullopt;
  }
  std::string module = dotted.substr(0, dot);
  if (module != "tl" && module != "triton.language" && module != "language")
    return std::nullopt;
  auto found = names.find(dotted.substr(dot + 1));
  if (found == names.end())
    return std::nullopt;
  return DType::scalar(found->second);
}

/// A kernel parameter named after a launch option (aiter's GEMMs declare `num_warps:
/// tl.constexpr` and `num_stages: tl.constexpr`, and launch with `**config` holding both) takes
/// the launch's keyword argument, and Triton's launcher hands the same keyword arguments to the
/// backend's parse_options (JITFunction.run), so the value is also the compile option. Where the
/// signature, a -D or a heuristic binds such a parameter, the kernel compiles with that many
/// warps or stages, as Triton's JIT does, unless the command line (or an autotune config, which
/// binds the parameter itself) gives the option: then a value that differs gets a warning, as
/// does a value that is no such option (passed by position, it binds only the parameter).
static void bindLaunchOptionParams(const SourceManager &sources, const KernelRequest &request,
                                   const ast::Stmt &kernel,
                                   const std::map<std::string, SemaValue> &bound,
                                   tir::Function &function) {
  for (const ast::Param &param : kernel.params) {
    const bool warps = param.name == "num_warps";
    if (!warps && param.name != "num_stages")
      continue;
    auto value = bound.find(param.name);
    if (value == bound.end() || value->second.kind != SemaValue::Kind::Int)
      continue;
    const int64_t count = value->second.intValue;
    unsigned &option = warps ? function.numWarps : function.numStages;
    const std::string flag = warps ? "--num-warps" : "--num-stages";
    if (warps ? request.numWarpsGiven : request.numStagesGiven) {
      if (count != static_cast<int64_t>(option))
        sources.warning(param.loc, "parameter '" + param.name + "' is " + std::to_string(count) +
                                       ", which Triton's launcher, given it as a keyword, also "
                                       "compiles with; " +
                                       flag + " " + std::to_string(option) + " is used here");
      continue;
    }
    // num_stages=0 is Triton's too, and compiles as 1 (no pipelining).
    const bool valid =
        warps ? count >= 1 && count <= kMaxBlockWarps && (count & (count - 1)) == 0 : count >= 0;
    if (!valid) {
      // Passed by position it is only the parameter, as here.
      sources.warning(param.loc, "parameter '" + param.name + "' is " + std::to_string(count) +
                                     ", which is no " + param.name +
                                     " option (Triton's launcher refuses it as a keyword "
                                     "argument): compiled with " +
                                     flag + " " + std::to_string(option));
      continue;
    }
    option = std::max<unsigned>(1, static_cast<unsigned>(count));
  }
}

/// Binds the constexprs `params` (left out of the signature and -D) that @triton.heuristics
/// computes from the launch's arguments: as Triton's launcher does, each function is called with
/// the arguments (and the heuristics before it) in a dict, ahead of time here. The constexprs
/// bound by then have their values; a run-time argument is an unknown value (UnknownValues.cpp)
/// that is not None, so `args["bias"] is not None` is decided, and whatever depends on its value
/// is an error that names the heuristic to bind with -D. A function may use the dict as a whole
/// (`lambda args: pick_block(args)`, `len(args)`).
///
/// A heuristic named after a launch option (`"num_warps": lambda args: 8`) is no constexpr:
/// Triton's launcher passes its value to the compiler with the launch's keyword arguments, so it
/// sets the option, over --num-warps/--num-stages and the autotune config's (`entryFunction`).
///
/// A decorator that module-level code computes and applies by call (`f = make_heuristics()(f)`,
/// cut-cross-entropy's heuristics from its best triton.Config) is evaluated here: where it is a
/// triton.heuristics, its functions run first (it wraps the others); anything else is reported
/// with a warning, and what it would bind must be given with -D.
static void bindHeuristics(Specializer &specializer, const SourceManager &sources,
                           const ast::Module &module, const KernelRequest &request,
                           const ast::Stmt &kernel, const std::vector<std::string> &params,
                           size_t signatureEntries, std::map<std::string, SemaValue> &bound,
                           tir::Function &entryFunction) {
  struct Heuristic {
    std::string name;
    const ast::Expr *expr = nullptr; // a dict entry's value, evaluated when needed
    SemaValue function;              // else the function an evaluated dict holds
    SourceLoc loc;
    bool belowAutotune = false; // it runs after the autotune config's values are bound
  };
  std::vector<Heuristic> heuristics;
  DecoratedByCall byCall = decoratedByCall(module, request.name);
  // The decorators to evaluate: those of statements `f = make()(f)` (the later statement wraps
  // the earlier ones: its heuristics run first), then those that a module-level name holds as
  // a computed value in a chain of calls (`k = _autotuner(_heuristics(kernel))`, outermost
  // first).
  std::vector<std::pair<const ast::Expr *, const ast::Stmt *>> evaluated;
  for (auto it = byCall.unread.rbegin(); it != byCall.unread.rend(); ++it)
    evaluated.emplace_back((*it)->value->operands[0].get(), *it);
  std::vector<const ast::Expr *> chain = byCall.decorators;
  std::vector<const ast::Expr *> own = resolvedDecorators(kernel, &module);
  chain.insert(chain.end(), own.begin(), own.end());
  for (const ast::Expr *decorator : chain)
    if (isDecoratorMakerCall(*decorator, module))
      evaluated.emplace_back(decorator, nullptr);
  bool sawAutotune = false;
  for (const auto &[decoratorExpr, rebindingStmt] : evaluated) {
    const ast::Expr &decorator = *decoratorExpr;
    SourceLoc rebindingLoc = rebindingStmt ? rebindingStmt->loc : decorator.loc;
    // Evaluated quietly: what fails to evaluate is the warning below, not an error.
    std::ostream *diagnostics = sources.diagnosticStream();
    std::ostringstream held;
    const_cast<SourceManager &>(sources).setDiagnosticStream(&held);
    std::optional<SemaValue> value;
    std::string why;
    try {
      value = specializer.evalModuleLevel(decorator);
    } catch (const CompileError &e) {
      std::string message = e.what();
      message = message.substr(0, message.find('\n'));
      size_t error = message.find("error: ");
      why = ": " + (error == std::string::npos ? message : message.substr(error + 7));
    } catch (const HostException &e) {
      why = ": it raises " + (e.classes.empty() ? std::string("an exception") : e.classes[0]) +
            (e.message.empty() ? "" : ": " + e.message);
    }
    const_cast<SourceManager &>(sources).setDiagnosticStream(diagnostics);
    if (value && value->kind == SemaValue::Kind::Object && value->name == kTritonHeuristicsClass) {
      const SemaValue &dict = value->elems[0];
      for (size_t i = 0; i < dict.elems[0].elems.size(); ++i) {
        const SemaValue &key = dict.elems[0].elems[i];
        if (key.kind != SemaValue::Kind::String)
          sources.error(rebindingLoc,
                        "triton.heuristics: its keys must be strings, not " + key.describe());
        heuristics.push_back(
            {key.name, nullptr, dict.elems[1].elems[i], rebindingLoc, sawAutotune});
      }
      continue;
    }
    // A computed triton.autotune in a chain of calls: readAutotune read its configs.
    if (!rebindingStmt && value && value->kind == SemaValue::Kind::Object &&
        value->name == kTritonAutotuneClass) {
      sawAutotune = true;
      continue;
    }
    if (value && why.empty())
      why = ": it gives " + value->describe() + ", not a triton.heuristics";
    sources.warning(rebindingLoc,
                    "'" + request.name + "' is rebound here by a call tilec does not evaluate" +
                        why +
                        "; what it adds at a launch (@triton.heuristics or @triton.autotune "
                        "values, num_warps, num_stages) is not applied: give them with -D "
                        "NAME=VALUE, --num-warps and --num-stages");
  }
  for (const HeuristicEntry &entry : heuristicEntries(kernel, &module, byCall.decorators))
    heuristics.push_back(
        {entry.name, entry.value, SemaValue(), entry.value->loc, entry.belowAutotune});
  auto isParam = [&](const std::string &name) {
    return std::any_of(kernel.params.begin(), kernel.params.end(),
                       [&](const ast::Param &p) { return p.name == name; });
  };
  std::set<std::string> pending(params.begin(), params.end());
  for (const Heuristic &heuristic : heuristics)
    if ((heuristic.name == "num_warps" || heuristic.name == "num_stages") &&
        !isParam(heuristic.name))
      pending.insert(heuristic.name);
  // Triton's launcher runs every heuristic in turn on the launch's keyword arguments, each
  // replacing its key's value: a later heuristic of a key computed here sees and replaces the
  // value (PyTorch's stacked EVEN_N heuristics), and one that an @triton.autotune wraps
  // replaces the value the config (or a -D) binds (`nargs["BLOCK_SIZE"] * 2`). Where such a
  // recomputation needs a run-time argument, the bound value stands for the launch's (a -D gives
  // the key's final value), and the key's later heuristics do not run.
  std::set<std::string> computed, settled;
  // A heuristic that may read a run-time argument, run with its diagnostics held: its value, or
  // none where it fails or its value is known only at a launch.
  auto valueIfKnown = [&](const SemaValue &function, const SemaValue &args,
                          SourceLoc loc) -> std::optional<SemaValue> {
    std::ostream *diagnostics = sources.diagnosticStream();
    std::ostringstream held;
    const_cast<SourceManager &>(sources).setDiagnosticStream(&held);
    std::optional<SemaValue> value;
    try {
      value = specializer.callPython(function, {args}, loc);
    } catch (const CompileError &) {
    } catch (const HostException &) {
    }
    const_cast<SourceManager &>(sources).setDiagnosticStream(diagnostics);
    if (value && Specializer::isUnknown(*value))
      return std::nullopt;
    return value;
  };
  for (const Heuristic &heuristic : heuristics) {
    const std::string &name = heuristic.name;
    const bool recompute = !pending.count(name) && isParam(name) && !settled.count(name) &&
                           (computed.count(name) || (heuristic.belowAutotune && bound.count(name)));
    if (!pending.count(name) && !recompute)
      continue;
    SemaValue function =
        heuristic.expr ? specializer.evalModuleLevel(*heuristic.expr) : heuristic.function;
    SemaValue args = makeDict();
    for (const ast::Param &p : kernel.params) {
      if (bound.count(p.name)) {
        dictInsert(args, SemaValue::ofString(p.name), bound.at(p.name));
        continue;
      }
      // The heuristics' own constexprs not computed yet are not among the launch's arguments.
      if (pending.count(p.name))
        continue;
      SemaValue argument = Specializer::unknownValue(
          "the run-time argument '" + p.name + "'",
          "Triton's launcher passes its value at each launch, and @triton.heuristics computes '" +
              heuristic.name + "' from it then",
          heuristic.loc);
      Specializer::noteUnknownSource(argument, heuristic.name);
      dictInsert(args, SemaValue::ofString(p.name), argument);
    }
    pending.erase(heuristic.name);
    if (recompute && !computed.count(name)) {
      std::optional<SemaValue> value = valueIfKnown(function, args, heuristic.loc);
      if (!value) {
        settled.insert(name);
        continue;
      }
      bound[name] = *value;
      computed.insert(name);
      continue;
    }
    if (isParam(heuristic.name)) {
      computed.insert(name);
      SemaValue value = specializer.callPython(function, {args}, heuristic.loc);
      specializer.refuseUnknown(value, heuristic.loc,
                                "the value that @triton.heuristics computes for '" +
                                    heuristic.name + "'");
      bound[heuristic.name] = value;
      continue;
    }
    // A launch option computed from run-time arguments (`num_warps(nargs["N"])`) has a value
    // per launch: the kernel compiles with --num-warps / --num-stages, and a warning says so.
    bool warps = heuristic.name == "num_warps";
    std::optional<SemaValue> launchValue = valueIfKnown(function, args, heuristic.loc);
    if (!launchValue) {
      sources.warning(heuristic.loc,
                      "@triton.heuristics computes '" + heuristic.name +
                          "' from the launch's run-time arguments, at each launch: compiled with " +
                          std::to_string(warps ? entryFunction.numWarps : entryFunction.numStages) +
                          " (give the launch's value with " +
                          (warps ? "--num-warps" : "--num-stages") + ")");
      continue;
    }
    const SemaValue &value = *launchValue;
    if (value.kind != SemaValue::Kind::Int || value.intValue < (warps ? 1 : 0) ||
        (warps && (value.intValue > 32 || (value.intValue & (value.intValue - 1)))))
      sources.error(heuristic.loc, "@triton.heuristics computes " + value.describe() + " for '" +
                                       heuristic.name + "'; it must be " +
                                       (warps ? "a power of two from 1 to 32" : "at least 0"));
    // num_stages=0, which Triton takes, compiles as 1 (no pipelining).
    (warps ? entryFunction.numWarps : entryFunction.numStages) =
        std::max<unsigned>(1, static_cast<unsigned>(value.intValue));
  }
  for (const std::string &name : params) {
    if (!pending.count(name))
      continue;
    sources.error(kernel.loc, "the signature has " + std::to_string(signatureEntries) +
                                  " entries but '" + kernel.name + "' has " +
                                  std::to_string(kernel.params.size()) + " parameters; '" + name +
                                  "' has no value (tilec could not read the @triton.heuristics "
                                  "that computes it): give it in the signature or with -D " +
                                  name + "=VALUE");
  }
}

/// The MissingImport index of the module-level `from m import name` (or `import m as name`) of
/// `module` that binds `name` from a module that names no file, or -1.
static int missingImportOf(const ast::Module &module, const std::string &name,
                           const ModuleGraph &graph) {
  for (const ast::StmtPtr &stmt : module.body) {
    if (stmt->kind == ast::StmtKind::ImportFrom) {
      int missing = graph.missingAt(stmt->loc);
      for (const ast::ImportAlias &alias : stmt->names)
        if (missing >= 0 && (alias.asName.empty() ? alias.name : alias.asName) == name)
          return missing;
    }
    if (stmt->kind == ast::StmtKind::Import)
      for (const ast::ImportAlias &alias : stmt->names)
        if (alias.asName == name)
          return graph.missingAt(alias.loc);
  }
  return -1;
}

/// The decorator (its callee, a name) of the module-level function `name` of `module` that an
/// import of a module tilec did not find binds: a project's own decorator, which may make the
/// function a Triton kernel as triton.jit does (PaddleMIX's `from paddlemix.triton_ops import
/// paddle_use_triton`, a factory whose class compiles the function's source with Triton).
static const ast::Expr *decoratorFromMissingModule(const ast::Module &module,
                                                   const std::string &name,
                                                   const ModuleGraph &graph) {
  for (const ast::StmtPtr &stmt : module.body) {
    if (stmt->kind != ast::StmtKind::FunctionDef || stmt->name != name)
      continue;
    for (const ast::ExprPtr &d : stmt->decorators) {
      const ast::Expr &callee = d->kind == ast::ExprKind::Call ? *d->operands[0] : *d;
      if (callee.kind == ast::ExprKind::Name && missingImportOf(module, callee.name, graph) >= 0)
        return &callee;
    }
  }
  return nullptr;
}

tir::Function &specializeKernel(const ast::Module &module, const SourceManager &sources,
                                const KernelRequest &request, tir::Module &out) {
  SourceLoc fileLoc{module.file, 0, 0};
  const ast::Stmt *kernel = findKernel(module, sources, request);
  if (!kernel)
    kernel = classKernel(module, sources, request.name);
  std::map<std::string, const ast::Stmt *> closureFunctions, closureImports;
  const bool nested = !kernel;
  if (!kernel)
    kernel = nestedKernel(module, sources, request.name,
                          {request.defines.begin(), request.defines.end()}, closureFunctions,
                          closureImports, /*findOnly=*/false);
  if (!kernel) {
    std::vector<std::string> available;
    for (const ast::Stmt *f : jitFunctions(module))
      available.push_back(f->name);
    for (const ast::Stmt *f : conditionalJitFunctions(module))
      available.push_back(f->name);
    // Those of class bodies, by their qualified names (`Softmax.forward`).
    std::function<void(const ast::StmtList &, const std::string &)> classes =
        [&](const ast::StmtList &body, const std::string &prefix) {
          for (const ast::StmtPtr &st : body) {
            if (st->kind == ast::StmtKind::Unsupported && st->name == "class definition" &&
                !st->targets.empty())
              classes(st->body, prefix + st->targets[0]->name + ".");
            else if (!prefix.empty() && isJitDefinition(*st))
              available.push_back(prefix + st->name);
          }
        };
    classes(module.body, "");
    // A @gluon.jit function (Triton's Gluon dialect, `from triton.experimental import gluon`):
    // another language than the one tilec compiles.
    const std::string wanted = request.name.substr(request.name.rfind('.') + 1);
    const ast::Stmt *gluonKernel = nullptr;
    std::function<void(const ast::StmtList &)> findGluon = [&](const ast::StmtList &body) {
      for (const ast::StmtPtr &st : body) {
        if (gluonKernel)
          return;
        if (st->kind == ast::StmtKind::FunctionDef && st->name == wanted)
          for (const ast::ExprPtr &d : st->decorators) {
            const ast::Expr &callee = d->kind == ast::ExprKind::Call ? *d->operands[0] : *d;
            if (dottedName(callee).rfind("gluon.", 0) == 0)
              gluonKernel = st.get();
          }
        findGluon(st->body);
        findGluon(st->orelse);
      }
    };
    findGluon(module.body);
    if (gluonKernel)
      sources.error(gluonKernel->loc, "'" + gluonKernel->name +
                                          "' is a @gluon.jit function, in Triton's Gluon "
                                          "language: tilec compiles @triton.jit kernels only");
    if (request.imports)
      if (const ast::Expr *decorator =
              decoratorFromMissingModule(module, wanted, *request.imports)) {
        const MissingImport &missing = request.imports->missing[static_cast<size_t>(
            missingImportOf(module, decorator->name, *request.imports))];
        sources.error(decorator->loc,
                      "'" + wanted + "' is decorated with @" + decorator->name +
                          ", imported from module '" + missing.name +
                          "', which tilec cannot find (searched " + missing.searched +
                          "): add its folder with -I DIR, so that tilec can read whether @" +
                          decorator->name + " makes a Triton kernel");
      }
    std::string list;
    for (const std::string &n : available)
      list += (list.empty() ? "" : ", ") + n;
    sources.error(fileLoc, "no @triton.jit function named '" + request.name + "'" +
                               (list.empty() ? " (the file has none)" : " (found: " + list + ")"));
  }
  std::string sigError;
  auto entries = parseSignature(request.signature, sigError);
  if (!entries)
    sources.error(kernel->loc, "bad signature for '" + kernel->name + "': " + sigError);

  for (const ast::Param &p : kernel->params)
    if (p.isVarArgs || p.isKwArgs)
      sources.error(p.loc,
                    "kernels cannot take *args or **kwargs" +
                        std::string(p.isKwArgs ? " (Triton 1.0's `**meta`, read as "
                                                 "meta['BLOCK'], is gone: declare each value "
                                                 "as a parameter `BLOCK: tl.constexpr`)"
                                               : ""));
  checkDoNotSpecialize(sources, *kernel);
  if (entries->size() > kernel->params.size())
    sources.error(kernel->loc, "the signature has " + std::to_string(entries->size()) +
                                   " entries but '" + kernel->name + "' has " +
                                   std::to_string(kernel->params.size()) + " parameters");

  std::map<std::string, std::string> defines(request.defines.begin(), request.defines.end());
  // A kernel found under another name (`tuned = rmsnorm_autotune(kernel)`) is entered by it.
  std::string entryName = request.entryName.empty() ? kernel->name : request.entryName;
  if (request.entryName.empty() && kernel->name != request.name &&
      !decoratedByCall(module, request.name).function.empty())
    entryName = request.name.substr(request.name.rfind('.') + 1); // a nested one's own name
  tir::Function *function = out.addFunction(entryName, kernel->loc);
  function->numWarps = request.numWarps;
  function->maxRegisters = request.maxRegisters;
  function->numStages = request.numStages;
  std::map<std::string, SemaValue> constexprArgs;
  std::map<std::string, SignatureEntry> tupleArgs;
  std::vector<std::string> heuristicParams; // computed by @triton.heuristics, in order
  for (size_t i = 0; i < kernel->params.size(); ++i) {
    const ast::Param &param = kernel->params[i];
    bool isConstexpr = isConstexprAnnotation(param.annotation.get());
    auto define = defines.find(param.name);
    if (i >= entries->size()) {
      if (define != defines.end()) {
        if (!isConstexpr)
          refuseTypeForRunTimeParam(sources, param, define->second);
        constexprArgs[param.name] = constexprArgument(sources, param, define->second,
                                                      "-D " + param.name + "=" + define->second);
        if (request.usedDefines)
          request.usedDefines->push_back(param.name);
        defines.erase(define);
        continue;
      }
      if (param.defaultValue)
        continue; // evaluated by the specializer
      // `"EVEN_K": heur_even_k`: Triton computes it at each launch from the arguments; tilec
      // does where they are constexprs bound here (below, once the module is in scope).
      // Also where a decorator that module-level code computes may compute it
      // (bindHeuristics evaluates it).
      const DecoratedByCall byCall = decoratedByCall(module, request.name);
      std::vector<const ast::Expr *> wrappers = resolvedDecorators(*kernel, &module);
      wrappers.insert(wrappers.end(), byCall.decorators.begin(), byCall.decorators.end());
      if (isRuntimeHeuristic(*kernel, sources, param.name, byCall.decorators, &module) ||
          !byCall.unread.empty() ||
          std::any_of(wrappers.begin(), wrappers.end(), [&](const ast::Expr *wrapper) {
            return isDecoratorMakerCall(*wrapper, module);
          })) {
        heuristicParams.push_back(param.name);
        continue;
      }
      // A decorator tilec does not read (PaddleNLP's `@triton.paddle_autotune(configs=...)`,
      // which its package patches onto the triton module) may be what binds it at launch.
      std::string unread;
      for (const ast::ExprPtr &d : kernel->decorators)
        if (!isJitDecorator(*d) && !isTuningDecoratorCall(*d) && unread.empty())
          unread = dottedName(d->kind == ast::ExprKind::Call ? *d->operands[0] : *d);
      sources.error(kernel->loc,
                    "the signature has " + std::to_string(entries->size()) + " entries but '" +
                        kernel->name + "' has " + std::to_string(kernel->params.size()) +
                        " parameters; '" + param.name + "' has no value" +
                        (unread.empty() ? std::string()
                                        : " (tilec does not read the decorator @" + unread +
                                              ", which may bind it at launch: give it with -D " +
                                              param.name + "=VALUE)"));
    }
    const SignatureEntry &entry = (*entries)[i];
    if (define != defines.end() && request.tuned.count(param.name)) {
      // The signature is positional: an entry for each parameter up to its last one. -D gives
      // the constexprs after the tuned ones, but not a run-time parameter's type.
      auto runtimeAfter = std::find_if(
          kernel->params.begin() + i + 1, kernel->params.end(), [&](const ast::Param &p) {
            return !isConstexprAnnotation(p.annotation.get()) && !request.tuned.count(p.name);
          });
      std::string how =
          runtimeAfter == kernel->params.end()
              ? "give the parameters after them with -D NAME=VALUE"
              : "the run-time parameter '" + runtimeAfter->name +
                    "' after them needs its signature entry, so bind every constexpr in the "
                    "signature to compile one specialisation, as Triton's AOT compiler does";
      sources.error(param.loc, "parameter '" + param.name +
                                   "' is bound by the @triton.autotune configs but the signature "
                                   "gives it a value too (entry " +
                                   std::to_string(i + 1) +
                                   "): the signature lists the parameters in order, so it may "
                                   "leave out the tuned ones only at its end; " +
                                   how);
    }
    if (define != defines.end())
      sources.error(param.loc,
                    "parameter '" + param.name + "' is given both in the signature and with -D");
    if (entry.kind == SignatureEntry::Kind::Constant) {
      // Triton's JIT binds an argument equal to 1 as a constant only where the parameter has no
      // type annotation: jit.py keeps the annotated type (`stride: tl.int64`) and passes the 1
      // at run time, so the kernel it compiles keeps the parameter.
      std::optional<DType> annotated = annotatedScalarType(param.annotation.get());
      if (annotated && !isConstexpr && entry.constant == "1")
        sources.warning(
            param.loc,
            "parameter '" + param.name + "' is annotated " + dottedName(*param.annotation) +
                ": Triton's JIT passes it as a run-time " + signatureTypeName(*annotated) +
                " even when it is 1, not as the constant 1 (write " +
                signatureTypeName(*annotated) + " for the kernel Triton compiles)");
      constexprArgs[param.name] =
          constexprArgument(sources, param, entry.constant, "signature entry '" + entry.text + "'");
      continue;
    }
    if (entry.kind == SignatureEntry::Kind::Tuple) {
      checkTupleLiterals(sources, param, entry);
      if (entry.isConstant()) {
        constexprArgs[param.name] = constantTuple(entry);
        continue;
      }
      if (isConstexpr)
        sources.error(param.loc, "parameter '" + param.name +
                                     "' is tl.constexpr: its tuple must be literals, not '" +
                                     entry.text + "'");
      addTupleParams(*function, param.name, entry);
      tupleArgs[param.name] = entry;
      continue;
    }
    // `fp16` for a constexpr is the dtype, as `tl.float16` is. An integer type is taken for a
    // dtype where the default is one, or where it is spelled as the dtype (`int32`, as
    // `tl.int32`; SGLang's scaled_mm passes ACCUMULATOR_DTYPE=tl.int32): Triton's `i32` for
    // BLOCK is more likely a forgotten value.
    bool dtypeSpelling = entry.text.rfind("int", 0) == 0 || entry.text.rfind("uint", 0) == 0;
    if (isConstexpr && entry.kind == SignatureEntry::Kind::Scalar && entry.hint == 0 &&
        (entry.type.isFloat() || defaultIsDType(param) || dtypeSpelling)) {
      constexprArgs[param.name] = SemaValue::ofDType(entry.type);
      continue;
    }
    if (isConstexpr) {
      std::string dtypeHint;
      if (entry.kind == SignatureEntry::Kind::Scalar && entry.hint == 0)
        dtypeHint = " (for the dtype, write " + entry.type.tritonName() + " or tl." +
                    entry.type.tritonName() + ")";
      sources.error(param.loc, "parameter '" + param.name +
                                   "' is tl.constexpr: the signature must give its value (such as "
                                   "1024), not the type '" +
                                   entry.text + "'" + dtypeHint);
    }
    if (entry.kind == SignatureEntry::Kind::TensorDesc) {
      addTensorDescriptorParams(*function, param.name, entry);
      continue;
    }
    if (std::optional<DType> annotated = annotatedScalarType(param.annotation.get());
        annotated && entry.kind == SignatureEntry::Kind::Scalar && *annotated != entry.type)
      sources.warning(param.loc, "parameter '" + param.name + "' is annotated " +
                                     dottedName(*param.annotation) +
                                     ": Triton's JIT passes it as " +
                                     signatureTypeName(*annotated) + ", not the signature's " +
                                     signatureTypeName(entry.type) + " (write " +
                                     signatureTypeName(*annotated) + (entry.hint ? ":16" : "") +
                                     " for the kernel Triton compiles)");
    addScalarParam(*function, param.name, entry);
  }

  Specializer specializer(module, sources, *function, request.stdlib, request.imports);
  specializer.setTargetArch(request.arch);
  specializer.setTorchBuild(request.torch);
  specializer.setDefaultDotPrecision(request.dotPrecision);
  specializer.setDebug(request.debug || jitDebugFlag(*kernel));
  // The @triton.jit functions a nested kernel calls from its enclosing functions are seen as
  // module-level names (they resolve in the module too, as the kernel's own names do).
  for (const auto &[name, function] : closureFunctions)
    specializer.bindGlobal(name, SemaValue::ofJitFunction(function));
  // What its enclosing functions import, as those imports bind it.
  for (const auto &[name, import] : closureImports)
    specializer.bindGlobal(name, specializer.importedValue(*import, name));
  // -D names that are not parameters of this kernel override module-level constants, or give
  // the value of a nested kernel's closure variable.
  for (const auto &[name, text] : defines) {
    bool isParam = std::any_of(kernel->params.begin(), kernel->params.end(),
                               [&](const ast::Param &p) { return p.name == name; });
    if (isParam)
      continue;
    auto value = parseConstexprLiteral(text);
    if (!value && isFunctionReferenceText(text))
      value = specializer.resolveFunctionReference(text, fileLoc);
    if (!value)
      sources.error(fileLoc, "cannot read -D " + name + "=" + text +
                                 " as a number, True/False/None, a string, a dtype (" +
                                 kDTypeSpellings + ") or a function (MODULE.NAME)");
    // In a nested kernel the name may be its enclosing function's, which Python reads before
    // the module's.
    bool bound = nested ? (specializer.bindGlobal(name, *value), true)
                        : specializer.overrideGlobal(name, *value);
    if (bound && request.usedDefines)
      request.usedDefines->push_back(name);
  }
  bindHeuristics(specializer, sources, module, request, *kernel, heuristicParams, entries->size(),
                 constexprArgs, *function);
  bindLaunchOptionParams(sources, request, *kernel, constexprArgs, *function);
  specializer.specialize(*kernel, constexprArgs, tupleArgs);
  return *function;
}

std::optional<std::string> signatureFromSource(const SourceManager &sources,
                                               const ast::Stmt &kernel) {
  // Look at the comment lines directly above the first decorator (or the def).
  uint32_t line = kernel.loc.line;
  for (const ast::ExprPtr &d : kernel.decorators)
    line = std::min(line, d->loc.line);
  while (line > 1) {
    --line;
    std::string text = sources.lineText(kernel.loc.file, line);
    size_t hash = text.find_first_not_of(" \t");
    if (hash == std::string::npos || text[hash] != '#')
      break;
    if (hash > 0 && text[hash - 1] == '@') // decorators were handled above
      break;
    std::string comment = text.substr(hash + 1);
    size_t start = comment.find_first_not_of(" \t");
    const std::string marker = "tilec:";
    if (start == std::string::npos || comment.compare(start, marker.size(), marker) != 0)
      continue;
    std::string rest = comment.substr(start + marker.size());
    size_t s = rest.find("-s");
    if (s == std::string::npos)
      continue;
    rest = rest.substr(s + 2);
    size_t q1 = rest.find('"');
    size_t q2 = q1 == std::string::npos ? std::string::npos : rest.find('"', q1 + 1);
    if (q2 == std::string::npos)
      continue;
    return rest.substr(q1 + 1, q2 - q1 - 1);
  }
  return std::nullopt;
}

} // namespace tilec::sema
