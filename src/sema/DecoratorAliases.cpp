#include "sema/DecoratorAliases.h"

#include "sema/Imports.h"
#include "sema/Sema.h"
#include "sema/Specializer.h"

#include <functional>
#include <map>
#include <set>

namespace tilec::sema {
namespace {

/// file -> alias name -> what it stands for.
std::map<uint32_t, std::map<std::string, std::string>> &aliasTable() {
  static std::map<uint32_t, std::map<std::string, std::string>> table;
  return table;
}

/// The Triton name that a dotted reference names, or empty. Triton's constexpr class is named
/// as isConstexprAnnotation names it, by its last name, however the module reached it
/// (`tl.constexpr`, `triton.language.constexpr`, `core.constexpr`).
std::string tritonMember(const std::string &dotted) {
  for (const char *member : {"jit", "autotune", "heuristics", "Config"})
    if (dotted == std::string("triton.") + member)
      return member;
  static const std::string kConstexpr = ".constexpr";
  if (dotted.size() > kConstexpr.size() &&
      dotted.compare(dotted.size() - kConstexpr.size(), kConstexpr.size(), kConstexpr) == 0)
    return "constexpr";
  return "";
}

/// Collects the Triton decorators `expr` refers to without calling them on arguments.
void collectReferences(const ast::Expr &expr, std::set<std::string> &out) {
  if (expr.kind == ast::ExprKind::Attribute) {
    std::string member = tritonMember(dottedName(expr));
    if (!member.empty()) {
      out.insert(member);
      return;
    }
  }
  if (expr.kind == ast::ExprKind::Call && !expr.operands.empty()) {
    // `triton.jit(f)` or `triton.autotune(configs=...)`: the decorator applied, whose result is
    // something else (read by decoratedByCall and decoratorVariables). But `tl.constexpr(4)` in
    // an annotation is constexpr too: Triton's JIT reads the name of what the annotation is, and
    // that of a constexpr object (`constexpr[4]`) holds the word as the class's does.
    std::string member = tritonMember(dottedName(*expr.operands[0]));
    if (member == "constexpr")
      out.insert(member);
    if (!member.empty())
      return;
  }
  for (const ast::ExprPtr &operand : expr.operands)
    if (operand)
      collectReferences(*operand, out);
  for (const ast::Keyword &keyword : expr.keywords)
    if (keyword.value)
      collectReferences(*keyword.value, out);
  if (expr.lambda)
    for (const ast::StmtPtr &stmt : expr.lambda->body)
      if (stmt->value)
        collectReferences(*stmt->value, out);
}

/// Whether `call` builds Triton's autotuner on the `configs` and `key` names: `Autotuner(fn,
/// arg_names, configs, key, ...)` (triton.runtime.autotuner's class, positional or by keyword) or
/// `triton.autotune(configs, key, ...)`.
bool buildsAutotunerFrom(const ast::Expr &call) {
  if (call.kind != ast::ExprKind::Call || call.operands.empty())
    return false;
  std::string callee = dottedName(*call.operands[0]);
  std::string last = callee.substr(callee.rfind('.') + 1);
  size_t configsAt = 0;
  if (last == "Autotuner")
    configsAt = 3; // operands[0] is the callee, then fn and arg_names
  else if (tritonMember(callee) == "autotune" || decoratorAlias(*call.operands[0]) == "autotune")
    configsAt = 1;
  else
    return false;
  auto forwards = [&](size_t at, const std::string &name) {
    const ast::Expr *value = at < call.operands.size() ? call.operands[at].get() : nullptr;
    for (const ast::Keyword &keyword : call.keywords)
      if (keyword.name == name)
        value = keyword.value.get();
    return value && value->kind == ast::ExprKind::Name && value->name == name;
  };
  return forwards(configsAt, "configs") && forwards(configsAt + 1, "key");
}

/// Whether a call anywhere in `expr` builds the autotuner (`triton.autotune(configs, key)(fn)`).
bool callsAutotuner(const ast::Expr &expr) {
  if (buildsAutotunerFrom(expr))
    return true;
  for (const ast::ExprPtr &operand : expr.operands)
    if (operand && callsAutotuner(*operand))
      return true;
  // `lambda fn: triton.autotune(configs=configs, key=key)(fn)`
  if (expr.lambda)
    for (const ast::StmtPtr &stmt : expr.lambda->body)
      if (stmt->value && callsAutotuner(*stmt->value))
        return true;
  return false;
}

/// Whether `stmts` (a function's body, and the bodies of the functions it defines) return the
/// autotuner built from `configs` and `key`.
bool returnsAutotuner(const ast::StmtList &stmts) {
  for (const ast::StmtPtr &stmt : stmts) {
    if (stmt->kind == ast::StmtKind::Return && stmt->value && callsAutotuner(*stmt->value))
      return true;
    if ((stmt->kind == ast::StmtKind::FunctionDef || stmt->kind == ast::StmtKind::If) &&
        (returnsAutotuner(stmt->body) || returnsAutotuner(stmt->orelse)))
      return true;
  }
  return false;
}

/// Whether `call` builds Triton's heuristics on the `values` name: `Heuristics(fn, arg_names,
/// values)` (triton.runtime.autotuner's class, or a project's copy of it) or
/// `triton.heuristics(values)`.
bool buildsHeuristicsFrom(const ast::Expr &call) {
  if (call.kind != ast::ExprKind::Call || call.operands.empty())
    return false;
  std::string callee = dottedName(*call.operands[0]);
  std::string last = callee.substr(callee.rfind('.') + 1);
  size_t valuesAt = 0;
  if (last == "Heuristics")
    valuesAt = 3;
  else if (tritonMember(callee) == "heuristics")
    valuesAt = 1;
  else
    return false;
  const ast::Expr *value =
      valuesAt < call.operands.size() ? call.operands[valuesAt].get() : nullptr;
  for (const ast::Keyword &keyword : call.keywords)
    if (keyword.name == "values")
      value = keyword.value.get();
  return value && value->kind == ast::ExprKind::Name && value->name == "values";
}

/// Whether `stmts` (a function's body, and the bodies of the functions it defines) return a
/// value that `builds` accepts, directly or through a lambda (`lambda fn: Heuristics(...)`).
bool returnsBuilt(const ast::StmtList &stmts, bool (*builds)(const ast::Expr &)) {
  std::function<bool(const ast::Expr &)> within = [&](const ast::Expr &expr) {
    if (builds(expr))
      return true;
    for (const ast::ExprPtr &operand : expr.operands)
      if (operand && within(*operand))
        return true;
    if (expr.lambda)
      for (const ast::StmtPtr &stmt : expr.lambda->body)
        if (stmt->value && within(*stmt->value))
          return true;
    return false;
  };
  for (const ast::StmtPtr &stmt : stmts) {
    if (stmt->kind == ast::StmtKind::Return && stmt->value && within(*stmt->value))
      return true;
    if ((stmt->kind == ast::StmtKind::FunctionDef || stmt->kind == ast::StmtKind::If) &&
        (returnsBuilt(stmt->body, builds) || returnsBuilt(stmt->orelse, builds)))
      return true;
  }
  return false;
}

/// Whether `expr` is `triton.jit(param)` (or through `jit`/an alias of it, keywords allowed).
bool appliesJitTo(const ast::Expr &expr, const std::string &param) {
  if (expr.kind != ast::ExprKind::Call || expr.operands.size() != 2)
    return false;
  const ast::Expr &callee = *expr.operands[0];
  std::string name = dottedName(callee);
  bool jit = name == "jit" || tritonMember(name) == "jit" || decoratorAlias(callee) == "jit";
  return jit && expr.operands[1]->kind == ast::ExprKind::Name && expr.operands[1]->name == param;
}

/// Whether `expr` calls triton.autotune or triton.heuristics (a wrapper that tunes is no plain
/// jit wrapper: its kernels need their configs read).
bool callsTuning(const ast::Expr &expr) {
  return ast::anySubexpression(expr, [](const ast::Expr &e) {
    if (e.kind != ast::ExprKind::Call || e.operands.empty())
      return false;
    std::string member = tritonMember(dottedName(*e.operands[0]));
    std::string alias = decoratorAlias(*e.operands[0]);
    return member == "autotune" || member == "heuristics" || alias == "autotune" ||
           alias == "heuristics";
  });
}

/// Whether `def` is a project's own decorator that makes a kernel with triton.jit and returns
/// it, whatever host-side wrapping it adds (triton-viz's examples: `def wrap(fn): fn =
/// triton.jit(fn); if trace_decorator: fn = trace_decorator(fn); return fn`, a tracer for its
/// interpreter): `return triton.jit(fn)`, or `fn = triton.jit(fn)` before `return fn`.
bool isJitWrapper(const ast::Stmt &def) {
  if (def.kind != ast::StmtKind::FunctionDef || !def.decorators.empty() || def.params.empty())
    return false;
  const std::string &param = def.params[0].name;
  bool jitted = false;
  bool returns = false;
  bool tunes = false;
  std::function<void(const ast::StmtList &)> visit = [&](const ast::StmtList &stmts) {
    for (const ast::StmtPtr &stmt : stmts) {
      if (stmt->value && callsTuning(*stmt->value))
        tunes = true;
      if (stmt->kind == ast::StmtKind::Assign && stmt->targets.size() == 1 &&
          stmt->targets[0]->kind == ast::ExprKind::Name && stmt->targets[0]->name == param &&
          stmt->value && appliesJitTo(*stmt->value, param))
        jitted = true;
      if (stmt->kind == ast::StmtKind::Return && stmt->value &&
          (appliesJitTo(*stmt->value, param) ||
           (jitted && stmt->value->kind == ast::ExprKind::Name && stmt->value->name == param)))
        returns = true;
      if (stmt->kind == ast::StmtKind::If) {
        visit(stmt->body);
        visit(stmt->orelse);
      }
    }
  };
  visit(def.body);
  return returns && !tunes;
}

/// Adds the jit wrappers that `stmts` and the functions they define (at any depth) define, as
/// a kernel defined inside a function may be decorated by a wrapper defined next to it.
bool addJitWrappers(const ast::StmtList &stmts, std::map<std::string, std::string> &aliases) {
  bool added = false;
  for (const ast::StmtPtr &stmt : stmts) {
    if (stmt->kind == ast::StmtKind::FunctionDef && isJitWrapper(*stmt) &&
        !aliases.count(stmt->name)) {
      aliases[stmt->name] = "jit";
      added = true;
    }
    added |= addJitWrappers(stmt->body, aliases);
    added |= addJitWrappers(stmt->orelse, aliases);
  }
  return added;
}

/// Whether a string literal anywhere in `expr` holds Triton's decorator as source text.
bool holdsJitSource(const ast::Expr &expr) {
  return ast::anySubexpression(expr, [](const ast::Expr &e) {
    return e.kind == ast::ExprKind::StringLit &&
           e.stringValue.find("@triton.jit") != std::string::npos;
  });
}

/// Calls `visit` on every expression of `stmts` and of the statements nested in them, but for
/// docstrings and other bare string statements: text about Triton's decorator (a docstring's usage
/// example) is no source that the code writes out.
void forEachExpression(const ast::StmtList &stmts,
                       const std::function<void(const ast::Expr &)> &visit) {
  for (const ast::StmtPtr &stmt : stmts) {
    bool bareString = stmt->kind == ast::StmtKind::ExprStmt && stmt->value &&
                      stmt->value->kind == ast::ExprKind::StringLit;
    if (stmt->value && !bareString)
      visit(*stmt->value);
    for (const ast::ExprPtr &target : stmt->targets)
      if (target)
        visit(*target);
    forEachExpression(stmt->body, visit);
    forEachExpression(stmt->orelse, visit);
  }
}

/// The names that calls anywhere in `expr` call (`f(x)` names f).
void collectCalledNames(const ast::Expr &expr, std::set<std::string> &out) {
  ast::forEachSubexpression(expr, [&](const ast::Expr &e) {
    if (e.kind == ast::ExprKind::Call && !e.operands.empty() &&
        e.operands[0]->kind == ast::ExprKind::Name)
      out.insert(e.operands[0]->name);
  });
}

/// The module-level function that `name` names in `module`: the module's own `def`, or the one
/// that a `from M import name` brings in from a module tilec found (following re-exports a few
/// modules deep). Null when there is none.
const ast::Stmt *moduleFunction(const std::string &name, const ast::StmtList &module,
                                const ModuleGraph &graph, int depth = 0) {
  for (const ast::StmtPtr &stmt : module)
    if (stmt->kind == ast::StmtKind::FunctionDef && stmt->name == name)
      return stmt.get();
  if (depth >= 4)
    return nullptr;
  for (const ast::StmtPtr &stmt : module) {
    if (stmt->kind != ast::StmtKind::ImportFrom)
      continue;
    for (const ast::ImportAlias &alias : stmt->names) {
      const std::string &bound = alias.asName.empty() ? alias.name : alias.asName;
      if (bound != name)
        continue;
      int from = graph.resolved(stmt->loc);
      if (from < 0 || !graph.modules[from].ast)
        continue;
      if (const ast::Stmt *found =
              moduleFunction(alias.name, graph.modules[from].ast->body, graph, depth + 1))
        return found;
    }
  }
  return nullptr;
}

/// Whether the class `cls` of `module` writes a function's source out behind "@triton.jit" (in
/// its own methods, or in a module-level function that they call by name, defined in the module
/// or imported from another) for Triton to compile: PaddleNLP's KernelInterface has its
/// extract_triton_kernel prepend the decorator to inspect.getsource(func) and runs Triton's
/// ahead-of-time compiler on that file; PaddleMIX's imports extract_triton_kernel from the
/// package's triton_utils.
bool compilesSourceAsKernel(const ast::Stmt &cls, const ast::StmtList &module,
                            const ModuleGraph &graph) {
  bool holds = false;
  std::set<std::string> called;
  forEachExpression(cls.body, [&](const ast::Expr &expr) {
    holds |= holdsJitSource(expr);
    collectCalledNames(expr, called);
  });
  for (const std::string &name : called) {
    if (holds)
      break;
    if (const ast::Stmt *fn = moduleFunction(name, module, graph))
      forEachExpression(fn->body, [&](const ast::Expr &expr) { holds |= holdsJitSource(expr); });
  }
  return holds;
}

/// Whether `def` is a decorator factory of `module` whose decorator hands the function to a class
/// that compiles its source as a Triton kernel (compilesSourceAsKernel): PaddleNLP's
/// `paddle_use_triton(other_config={}, key=[])` returns `decorator(func)`, which returns
/// `KernelInterface(func, other_config, key)`. `@paddle_use_triton(key=["M"])` on a function
/// makes it a Triton kernel as `@triton.jit` does; the factory's arguments are host-side (the
/// autotuning keys, the custom operator's template).
bool isSourceJitFactory(const ast::Stmt &def, const ast::StmtList &module,
                        const ModuleGraph &graph) {
  if (def.kind != ast::StmtKind::FunctionDef || !def.decorators.empty())
    return false;
  for (const ast::StmtPtr &inner : def.body) {
    if (inner->kind != ast::StmtKind::FunctionDef || inner->params.empty())
      continue;
    const std::string &param = inner->params[0].name;
    for (const ast::StmtPtr &stmt : inner->body) {
      const ast::Expr *built = stmt->kind == ast::StmtKind::Return ? stmt->value.get() : nullptr;
      if (!built || built->kind != ast::ExprKind::Call || built->operands.size() < 2 ||
          built->operands[0]->kind != ast::ExprKind::Name ||
          built->operands[1]->kind != ast::ExprKind::Name || built->operands[1]->name != param)
        continue;
      const std::string &className = built->operands[0]->name;
      for (const ast::StmtPtr &cls : module)
        if (cls->kind == ast::StmtKind::Unsupported && cls->name == "class definition" &&
            !cls->targets.empty() && cls->targets[0]->name == className &&
            compilesSourceAsKernel(*cls, module, graph))
          return true;
    }
  }
  return false;
}

} // namespace

bool isAutotuneWrapper(const ast::Stmt &def) {
  return def.kind == ast::StmtKind::FunctionDef && def.decorators.empty() &&
         def.params.size() >= 2 && def.params[0].name == "configs" && def.params[1].name == "key" &&
         returnsAutotuner(def.body);
}

bool isHeuristicsWrapper(const ast::Stmt &def) {
  return def.kind == ast::StmtKind::FunctionDef && def.decorators.empty() &&
         def.params.size() == 1 && def.params[0].name == "values" &&
         returnsBuilt(def.body, buildsHeuristicsFrom);
}

void computeDecoratorAliases(const ModuleGraph &graph) {
  auto &table = aliasTable();
  table.clear();
  // Imports may chain through several modules: repeat until nothing is added.
  for (bool changed = true; changed;) {
    changed = false;
    for (const SourceModule &module : graph.modules) {
      if (!module.ast)
        continue;
      std::map<std::string, std::string> &aliases = table[module.ast->file];
      std::map<std::string, std::set<std::string>> assigned;
      forEachModuleLevelStatement(module.ast->body, [&](const ast::Stmt &stmt, bool) {
        if ((stmt.kind == ast::StmtKind::Assign || stmt.kind == ast::StmtKind::AnnAssign) &&
            stmt.targets.size() == 1 && stmt.targets[0]->kind == ast::ExprKind::Name &&
            stmt.value) {
          collectReferences(*stmt.value, assigned[stmt.targets[0]->name]);
          return;
        }
        if (isAutotuneWrapper(stmt)) {
          if (!aliases.count(stmt.name)) {
            aliases[stmt.name] = "autotune";
            changed = true;
          }
          return;
        }
        if (isSourceJitFactory(stmt, module.ast->body, graph)) {
          if (!aliases.count(stmt.name)) {
            aliases[stmt.name] = "jit";
            changed = true;
          }
          return;
        }
        if (stmt.kind != ast::StmtKind::ImportFrom)
          return;
        for (const ast::ImportAlias &alias : stmt.names) {
          const std::string &bound = alias.asName.empty() ? alias.name : alias.asName;
          std::string member;
          if (stmt.module == "triton" || stmt.module == "triton.language" ||
              stmt.module == "triton.language.core") {
            member = tritonMember(stmt.module + "." + alias.name);
            // `from triton import jit` keeps its own name, which the decorators know already.
            if (member == bound)
              member.clear();
          } else if (int from = graph.resolved(stmt.loc); from >= 0 && graph.modules[from].ast) {
            auto other = table.find(graph.modules[from].ast->file);
            if (other != table.end()) {
              auto found = other->second.find(alias.name);
              if (found != other->second.end())
                member = found->second;
            }
          }
          if (!member.empty() && !aliases.count(bound)) {
            aliases[bound] = member;
            changed = true;
          }
        }
      });
      if (addJitWrappers(module.ast->body, aliases))
        changed = true;
      for (const auto &[name, members] : assigned)
        if (members.size() == 1 && !aliases.count(name)) {
          aliases[name] = *members.begin();
          changed = true;
        }
    }
  }
}

std::string decoratorAlias(const ast::Expr &callee) {
  if (callee.kind != ast::ExprKind::Name)
    return "";
  const auto &table = aliasTable();
  auto module = table.find(callee.loc.file);
  if (module == table.end())
    return "";
  auto found = module->second.find(callee.name);
  return found == module->second.end() ? "" : found->second;
}

} // namespace tilec::sema
