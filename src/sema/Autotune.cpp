// A list literal of configs is read here from the source text of each config's dict:
// `{ 'NAME': literal, ... }`, the form most triton.Configs use. Values are literals (numbers,
// True/False/None, strings naming dtypes), kept as text for the specializer's -D parser. Configs
// that module-level code computes (a function's list, a comprehension) are evaluated as Python
// evaluates them, by a specializer of a scratch function (evaluateConfigs).
#include "sema/Autotune.h"

#include "sema/DecoratorAliases.h"
#include "sema/Sema.h"
#include "sema/Signature.h"
#include "sema/Specializer.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <functional>
#include <map>
#include <set>
#include <sstream>

namespace tilec::sema {
namespace {

/// The last name of a callee: `triton.autotune` -> "autotune", `Config` -> "Config".
std::string calleeName(const ast::Expr &call) {
  if (call.kind != ast::ExprKind::Call || call.operands.empty())
    return "";
  const ast::Expr &callee = *call.operands[0];
  // A project's own name for one (`triton_autotune = try_decorate(lambda: triton.autotune)`).
  if (std::string alias = decoratorAlias(callee); !alias.empty())
    return alias;
  if (callee.kind == ast::ExprKind::Name || callee.kind == ast::ExprKind::Attribute)
    return callee.name;
  return "";
}

const ast::Expr *keyword(const ast::Expr &call, const std::string &name) {
  for (const ast::Keyword &k : call.keywords)
    if (k.name == name)
      return k.value.get();
  return nullptr;
}

/// Reads `{ 'NAME': literal, ... }`, or the same dict written `dict(NAME=literal, ...)`, from the
/// source text at `loc`.
class DictReader {
public:
  DictReader(const SourceManager &sources, SourceLoc loc) : sources_(sources), loc_(loc) {
    const SourceFile &file = sources.file(loc.file);
    text_ = &file.text;
    pos_ = file.lineStarts.at(loc.line - 1) + loc.col - 1;
  }

  /// A dict display, `{'NAME': value, ...}`, or a call of dict with keyword arguments,
  /// `dict(NAME=value, ...)` (which isDictCall checked on the AST).
  std::vector<std::pair<std::string, std::string>> read(const char *what) {
    std::vector<std::pair<std::string, std::string>> entries;
    skipSpace();
    bool call = text_->compare(pos_, 4, "dict") == 0;
    if (call) {
      pos_ += 4;
      closer_ = ')';
    }
    expect(call ? '(' : '{', what);
    skipSpace();
    while (peek() != closer_) {
      std::string name = call ? readIdentifier(what) : readString(what);
      expect(call ? '=' : ':', what);
      std::string value = readValue(what);
      entries.emplace_back(name, value);
      skipSpace();
      if (peek() == ',')
        ++pos_;
      else if (peek() != closer_)
        fail(what);
      skipSpace();
    }
    return entries;
  }

  char peek() const { return pos_ < text_->size() ? (*text_)[pos_] : '\0'; }
  void skipSpace() {
    while (pos_ < text_->size()) {
      char c = (*text_)[pos_];
      if (c == '#') {
        while (pos_ < text_->size() && (*text_)[pos_] != '\n')
          ++pos_;
      } else if (std::isspace(static_cast<unsigned char>(c)) || c == '\\') {
        ++pos_;
      } else {
        break;
      }
    }
  }
  void expect(char c, const char *what) {
    skipSpace();
    if (peek() != c)
      fail(what);
    ++pos_;
  }
  [[noreturn]] void fail(const char *what) const {
    sources_.error(loc_, std::string(what) +
                             ": tilec reads only literal dicts here: {'NAME': value, ...} or "
                             "dict(NAME=value, ...) with numbers, True/False/None or dtype "
                             "names as values");
  }
  std::string readString(const char *what) {
    skipSpace();
    char quote = peek();
    if (quote != '\'' && quote != '"')
      fail(what);
    size_t end = text_->find(quote, pos_ + 1);
    if (end == std::string::npos)
      fail(what);
    std::string s = text_->substr(pos_ + 1, end - pos_ - 1);
    pos_ = end + 1;
    return s;
  }
  std::string readIdentifier(const char *what) {
    skipSpace();
    size_t start = pos_;
    while (pos_ < text_->size() &&
           (std::isalnum(static_cast<unsigned char>(peek())) || peek() == '_'))
      ++pos_;
    if (pos_ == start)
      fail(what);
    return text_->substr(start, pos_ - start);
  }
  std::string readValue(const char *what) {
    skipSpace();
    if (peek() == '\'' || peek() == '"')
      return readString(what);
    size_t start = pos_;
    if (peek() == '-' || peek() == '+')
      ++pos_;
    while (pos_ < text_->size() && (std::isalnum(static_cast<unsigned char>(peek())) ||
                                    peek() == '.' || peek() == '_'))
      ++pos_;
    std::string value = text_->substr(start, pos_ - start);
    // A name a comprehension's `for` binds (`{"BLOCK_M": block_m} for block_m in [16, 32]`).
    if (bindings_) {
      auto bound = bindings_->find(value);
      if (bound != bindings_->end())
        return bound->second;
    }
    if (value == "lambda" && allowLambdas_) {
      skipExpression();
      return kRuntimeHeuristic;
    }
    // A heuristic's value is a function of the arguments; one named instead of written as a
    // lambda (`"BLOCK_K": block_k_heuristic`) is as much a run-time one.
    bool identifier =
        !value.empty() && (std::isalpha(static_cast<unsigned char>(value[0])) || value[0] == '_');
    if (allowLambdas_ && identifier && value != "True" && value != "False" && value != "None") {
      skipExpression();
      return kRuntimeHeuristic;
    }
    if (value.empty() || value == "lambda")
      sources_.error(loc_, std::string(what) +
                               ": values must be constants; a lambda of the kernel's arguments "
                               "cannot be evaluated ahead of time (bind the name with -D instead)");
    // tl.float16 -> float16: the specializer reads dtype names without the module.
    size_t dot = value.rfind('.');
    if (dot != std::string::npos && !std::isdigit(static_cast<unsigned char>(value[0])) &&
        value[0] != '-' && value[0] != '+')
      value = value.substr(dot + 1);
    return value;
  }

  /// Skips the rest of an expression (a lambda's parameters and body): up to a ',' or the dict's
  /// closing bracket outside brackets and strings.
  void skipExpression() {
    int depth = 0;
    while (pos_ < text_->size()) {
      char c = (*text_)[pos_];
      if (c == '\'' || c == '"') {
        size_t end = text_->find(c, pos_ + 1);
        pos_ = end == std::string::npos ? text_->size() : end + 1;
        continue;
      }
      if (depth == 0 && (c == ',' || c == closer_))
        return;
      if (c == '(' || c == '[' || c == '{')
        ++depth;
      else if (c == ')' || c == ']' || c == '}')
        --depth;
      ++pos_;
    }
  }

public:
  /// The value read for a lambda where lambdas are allowed (@triton.heuristics).
  static constexpr const char *kRuntimeHeuristic = "<lambda>";
  bool allowLambdas_ = false;
  /// The values of the names a config comprehension binds, as literal texts.
  const std::map<std::string, std::string> *bindings_ = nullptr;

private:
  const SourceManager &sources_;
  SourceLoc loc_;
  const std::string *text_ = nullptr;
  size_t pos_ = 0;
  char closer_ = '}';
};

/// A config value as the -D parser reads it: a number, True/False/None, a string, a dtype's name.
std::string defineText(const SemaValue &value, SourceLoc loc, const std::string &name,
                       const SourceManager &sources) {
  switch (value.kind) {
  case SemaValue::Kind::Int:
  case SemaValue::Kind::Float:
  case SemaValue::Kind::Bool:
  case SemaValue::Kind::None:
    return value.repr();
  case SemaValue::Kind::String:
    return value.name;
  case SemaValue::Kind::DType:
    if (!value.isBlockType() && !value.isBlockPointerType())
      return value.repr();
    break;
  default:
    break;
  }
  sources.error(loc, "triton.Config: the value of '" + name + "' is " + value.describe() +
                         "; tilec binds numbers, True/False/None, strings and dtypes");
}

/// num_warps / num_stages of an evaluated triton.Config: None takes `fallback`.
unsigned configCount(const SemaValue &value, const char *name, unsigned fallback, SourceLoc loc,
                     const SourceManager &sources) {
  if (value.isNone())
    return fallback;
  const bool stages = std::string(name) == "num_stages";
  const int64_t most = stages ? 32 : kMaxConfigWarps;
  if (value.kind != SemaValue::Kind::Int || value.intValue < (stages ? 0 : 1) ||
      value.intValue > most)
    sources.error(loc, std::string("triton.Config: ") + name + " must be an integer from " +
                           (stages ? "0" : "1") + " to " + std::to_string(most) + ", not " +
                           value.describe());
  // Triton pipelines a loop from 2 stages on (AssignLatencies): num_stages=0 (cute-kernels tunes
  // range(4)) compiles as 1 does.
  return std::max<unsigned>(1, static_cast<unsigned>(value.intValue));
}

/// A triton.Config's maxnreg (None: 0, none given): registers per thread, which ptxas takes
/// from 1 up; Triton passes any int on.
unsigned configRegisters(const SemaValue &value, SourceLoc loc, const SourceManager &sources) {
  if (value.isNone())
    return 0;
  if (value.kind != SemaValue::Kind::Int || value.intValue < 1 || value.intValue > 65535)
    sources.error(loc, "triton.Config: maxnreg must be a positive integer (registers per "
                       "thread), not " +
                           value.describe());
  return static_cast<unsigned>(value.intValue);
}

/// A `maxnreg` entry of a config's dict: Triton's launcher takes the dict's entries that name
/// compile options as options (JITFunction.run), so it bounds the registers as the keyword does.
void takeRegistersEntry(AutotuneConfig &config, SourceLoc loc, const SourceManager &sources) {
  auto entry = std::find_if(config.constexprs.begin(), config.constexprs.end(),
                            [](const auto &e) { return e.first == "maxnreg"; });
  if (entry == config.constexprs.end())
    return;
  // The entry's -D text: an int reads back as one.
  const std::string &text = entry->second;
  int64_t registers = 0;
  auto [end, failure] = std::from_chars(text.data(), text.data() + text.size(), registers);
  bool isInt = failure == std::errc() && end == text.data() + text.size();
  config.maxRegisters = configRegisters(
      isInt ? SemaValue::ofInt(registers) : SemaValue::ofString(text), loc, sources);
  config.constexprs.erase(entry);
}

/// A triton.Config's dict entries are launch arguments: a kernel parameter, or an option of the
/// backend (num_warps, maxnreg, ...). Other backends' options in configs written for AMD GPUs
/// (waves_per_eu, matrix_instr_nonkdim, kpack) are neither on NVIDIA, where Triton 3.6's launcher
/// raises KeyError when the autotuner launches such a config. They cannot change the code, so
/// tilec drops them with a warning that says so, rather than reading them as -D of a module-level
/// name.
void dropBackendOptionsOfOtherTargets(const ast::Stmt &kernel, std::vector<AutotuneConfig> &configs,
                                      SourceLoc loc, const SourceManager &sources) {
  // CUDAOptions' fields (third_party/nvidia/backend/compiler.py): the launcher takes these.
  static const std::set<std::string> cudaOptions = {"num_warps",
                                                    "num_ctas",
                                                    "num_stages",
                                                    "warp_size",
                                                    "maxnreg",
                                                    "cluster_dims",
                                                    "ptx_version",
                                                    "ptx_options",
                                                    "ir_override",
                                                    "enable_fp_fusion",
                                                    "launch_cooperative_grid",
                                                    "launch_pdl",
                                                    "supported_fp8_dtypes",
                                                    "deprecated_fp8_dot_operand_dtypes",
                                                    "default_dot_input_precision",
                                                    "allowed_dot_input_precisions",
                                                    "max_num_imprecise_acc_default",
                                                    "extern_libs",
                                                    "debug",
                                                    "backend_name",
                                                    "sanitize_overflow",
                                                    "arch",
                                                    "instrumentation_mode"};
  auto unknown = [&](const std::pair<std::string, std::string> &entry) {
    bool isParam = std::any_of(kernel.params.begin(), kernel.params.end(),
                               [&](const ast::Param &p) { return p.name == entry.first; });
    return !isParam && !cudaOptions.count(entry.first);
  };
  std::set<std::string> dropped;
  for (AutotuneConfig &config : configs) {
    for (const auto &entry : config.constexprs)
      if (unknown(entry))
        dropped.insert(entry.first);
    config.constexprs.erase(
        std::remove_if(config.constexprs.begin(), config.constexprs.end(), unknown),
        config.constexprs.end());
  }
  for (const std::string &name : dropped)
    sources.warning(loc,
                    "triton.Config key '" + name + "' is neither a parameter of '" + kernel.name +
                        "' nor an option of Triton's NVIDIA backend (waves_per_eu, "
                        "matrix_instr_nonkdim and kpack are AMD's): tilec ignores it, where "
                        "Triton 3.6 on an NVIDIA GPU raises KeyError('Keyword argument " +
                        name + " was specified but unrecognised') when it launches the config");
}

/// Triton's autotuner launches a config with `**config.all_kwargs()`, which holds its num_warps,
/// num_stages (and maxnreg, where set) besides its dict: a kernel parameter of such a name is
/// bound to the config's value, as it is also the option (bindLaunchOptionParams).
static void bindOptionParams(const ast::Stmt &kernel, AutotuneConfig &config) {
  const std::pair<std::string, unsigned> options[] = {{"num_warps", config.numWarps},
                                                      {"num_stages", config.numStages},
                                                      {"maxnreg", config.maxRegisters}};
  for (const auto &[name, value] : options) {
    bool isParam = std::any_of(kernel.params.begin(), kernel.params.end(),
                               [&](const ast::Param &p) { return p.name == name; });
    bool inDict = std::any_of(config.constexprs.begin(), config.constexprs.end(),
                              [&](const auto &entry) { return entry.first == name; });
    if (isParam && !inDict && value != 0)
      config.constexprs.emplace_back(name, std::to_string(value));
  }
}

std::vector<AutotuneConfig> evaluatedConfigs(Specializer &specializer, const ast::Expr &configs,
                                             const SourceManager &sources, unsigned defaultWarps,
                                             unsigned defaultStages);

/// Adds the names `expr` reads (the bodies of its lambdas too) to \p out.
static void collectReadNames(const ast::Expr &expr, std::set<std::string> &out) {
  ast::forEachSubexpression(expr, [&](const ast::Expr &e) {
    if (e.kind == ast::ExprKind::Name)
      out.insert(e.name);
    if (e.lambda)
      for (const ast::StmtPtr &stmt : e.lambda->body)
        if (stmt->value)
          collectReadNames(*stmt->value, out);
  });
}

/// The autotuner keeps the list its decorator was given, so a module-level statement after the
/// decorator that changes that list in place (`CONFIGS.append(...)`, `CONFIGS += [...]`) changes
/// the configs Python tunes over. tilec's values are not shared: such a change is an error at
/// the statement rather than configs that differ from Python's, until a statement binds the
/// name to another value (the benchmarks' `configs = []`, then `configs.append(...)`).
void refuseLaterChanges(const ast::Expr &configs, const ast::Stmt &at, const ast::Module &module,
                        const SourceManager &sources) {
  std::set<std::string> read;
  collectReadNames(configs, read);
  // The statements after it, loop bodies included (a loop that appends changes in place too).
  std::set<std::string> rebound;
  std::function<void(const ast::Stmt &)> check = [&](const ast::Stmt &stmt) {
    if ((stmt.kind == ast::StmtKind::Assign || stmt.kind == ast::StmtKind::AnnAssign) && stmt.value)
      for (const ast::ExprPtr &target : stmt.targets)
        if (target->kind == ast::ExprKind::Name)
          rebound.insert(target->name);
    std::vector<std::string> changed;
    if (stmt.kind == ast::StmtKind::For || stmt.kind == ast::StmtKind::While) {
      std::function<void(const ast::StmtList &)> block = [&](const ast::StmtList &stmts) {
        for (const ast::StmtPtr &inner : stmts) {
          check(*inner);
          block(inner->body);
          block(inner->orelse);
        }
      };
      block(stmt.body);
      block(stmt.orelse);
      return;
    }
    namesChangedInPlace(stmt, changed);
    // `+=` changes a list or a dict in place (and rebinds a number or a tuple, which tilec
    // cannot tell apart here without evaluating more than the decorator does).
    if (stmt.kind == ast::StmtKind::AugAssign && stmt.targets[0]->kind == ast::ExprKind::Name)
      changed.push_back(stmt.targets[0]->name);
    for (const std::string &name : changed)
      if (read.count(name) && !rebound.count(name))
        sources.error(stmt.loc, "'" + name + "' is changed after @triton.autotune took it for " +
                                    "its configs; where it changes a list in place, Python's " +
                                    "autotuner sees the change: not supported yet");
  };
  bool after = false;
  forEachModuleLevelStatement(module.body, [&](const ast::Stmt &stmt, bool) {
    if (&stmt == &at) {
      after = true;
      return;
    }
    if (after)
      check(stmt);
  });
}

/// The functions whose bodies hold \p kernel, outermost first (empty for a module-level kernel).
static std::vector<const ast::Stmt *> enclosingFunctions(const ast::Module &module,
                                                         const ast::Stmt &kernel) {
  std::vector<const ast::Stmt *> enclosing, found;
  std::function<bool(const ast::StmtList &)> search = [&](const ast::StmtList &body) {
    for (const ast::StmtPtr &st : body) {
      if (st.get() == &kernel) {
        found = enclosing;
        return true;
      }
      bool function = st->kind == ast::StmtKind::FunctionDef;
      if (function)
        enclosing.push_back(st.get());
      bool done = search(st->body) || search(st->orelse) || search(st->finalbody);
      for (const ast::ExceptHandler &h : st->handlers)
        done = done || search(h.body);
      if (function)
        enclosing.pop_back();
      if (done)
        return true;
    }
    return false;
  };
  search(module.body);
  return found;
}

/// The plain Python functions that the functions enclosing \p kernel (a @triton.jit function
/// defined in a function, as PyTorch's tests define theirs) define directly in their bodies,
/// the nearest scope's last: Python runs the kernel's decorators in the innermost one, where
/// they are bound (`configs=get_op_configs()`, `pre_hook=init_to_zero("output_ptr")`).
std::map<std::string, const ast::Stmt *> enclosingHostFunctions(const ast::Module &module,
                                                                const ast::Stmt &kernel) {
  std::vector<const ast::Stmt *> found = enclosingFunctions(module, kernel);
  std::map<std::string, const ast::Stmt *> functions;
  for (const ast::Stmt *function : found)
    for (const ast::StmtPtr &st : function->body)
      if (st->kind == ast::StmtKind::FunctionDef && !isJitDefinition(*st))
        functions[st->name] = st.get();
  return functions;
}

/// Counts, in \p counts, the bindings that `stmts` (a function's body, without the functions and
/// classes it defines) make of each name: assignment and loop targets, `with ... as`, imports,
/// definitions.
static void countBindings(const ast::StmtList &stmts, std::map<std::string, int> &counts) {
  std::function<void(const ast::Expr *)> target = [&](const ast::Expr *e) {
    if (!e)
      return;
    if (e->kind == ast::ExprKind::Name)
      ++counts[e->name];
    if (e->kind == ast::ExprKind::Tuple || e->kind == ast::ExprKind::List)
      for (const ast::ExprPtr &element : e->operands)
        target(element.get());
  };
  for (const ast::StmtPtr &stmt : stmts) {
    for (const ast::ExprPtr &t : stmt->targets)
      target(t.get());
    for (const ast::ExprPtr &t : stmt->withTargets)
      target(t.get());
    for (const ast::ImportAlias &alias : stmt->names)
      ++counts[alias.asName.empty() ? alias.name : alias.asName];
    if (stmt->kind == ast::StmtKind::FunctionDef) {
      ++counts[stmt->name];
      continue;
    }
    countBindings(stmt->body, counts);
    countBindings(stmt->orelse, counts);
    for (const ast::ExceptHandler &handler : stmt->handlers)
      countBindings(handler.body, counts);
    countBindings(stmt->finalbody, counts);
  }
}

/// The variables that the functions enclosing \p kernel have bound when Python defines it, which
/// its decorators read (`configs = [triton.Config(...)]` in a test, then
/// `@triton.autotune(configs=configs, key=["N"])` on the kernel it defines): each function's
/// top-level `name = value` statements before the one that holds the kernel, outermost function
/// first. A name the function binds anywhere else too (in a branch, a loop, twice) is left out:
/// its value when the kernel is defined is not known.
static std::vector<std::pair<std::string, const ast::Expr *>>
enclosingLocals(const ast::Module &module, const ast::Stmt &kernel) {
  // Whether `st` is `target` or holds it, at any depth.
  std::function<bool(const ast::Stmt &, const ast::Stmt &)> holds = [&](const ast::Stmt &st,
                                                                        const ast::Stmt &target) {
    if (&st == &target)
      return true;
    for (const ast::StmtList *list : {&st.body, &st.orelse, &st.finalbody})
      for (const ast::StmtPtr &inner : *list)
        if (holds(*inner, target))
          return true;
    for (const ast::ExceptHandler &handler : st.handlers)
      for (const ast::StmtPtr &inner : handler.body)
        if (holds(*inner, target))
          return true;
    return false;
  };
  std::vector<const ast::Stmt *> found = enclosingFunctions(module, kernel);
  std::vector<std::pair<std::string, const ast::Expr *>> locals;
  for (size_t level = 0; level < found.size(); ++level) {
    const ast::Stmt &function = *found[level];
    // The statement holding the kernel: the next enclosing function, or the kernel itself.
    const ast::Stmt &holder = level + 1 < found.size() ? *found[level + 1] : kernel;
    std::map<std::string, int> counts;
    countBindings(function.body, counts);
    for (const ast::Param &param : function.params)
      ++counts[param.name];
    for (const ast::StmtPtr &st : function.body) {
      if (holds(*st, holder))
        break;
      if (st->kind == ast::StmtKind::Assign && st->targets.size() == 1 && st->value &&
          st->targets[0]->kind == ast::ExprKind::Name && counts[st->targets[0]->name] == 1)
        locals.push_back({st->targets[0]->name, st->value.get()});
    }
  }
  return locals;
}

/// The configs that `configs` (any expression of the kernel's module) evaluates to, as Python
/// evaluates it when the module is imported: a list (or tuple) of triton.Config.
/// What `expr`, an argument of the kernel's decorator, evaluates to, with the module bound as
/// Python binds it when the decorator runs: `evaluate` is called with a specializer of a scratch
/// function so bound.
template <typename Evaluate>
auto evaluateAtDecorator(const ast::Expr &expr, const ast::Stmt &kernel, const ast::Module &module,
                         const SourceManager &sources, const KernelRequest &context,
                         Evaluate evaluate) {
  tir::Module scratch;
  tir::Function *probe = scratch.addFunction(kernel.name, expr.loc);
  Specializer specializer(module, sources, *probe, context.stdlib, context.imports);
  specializer.setTargetArch(context.arch);
  specializer.setTorchBuild(context.torch);
  // The decorator runs when Python defines the kernel (or when the statement that holds the
  // configs, `tune = triton.autotune(configs=...)` or `k = triton.autotune(...)(k)`, runs): the
  // names as the statements before that one bound them, through the blocks that hold it (an
  // `if HAS_X:` with the configs and the kernel inside sees the configs bound before the def,
  // not those bound after it).
  std::function<bool(const ast::Expr *)> contains = [&](const ast::Expr *e) {
    if (!e)
      return false;
    if (e == &expr)
      return true;
    return std::any_of(e->operands.begin(), e->operands.end(),
                       [&](const ast::ExprPtr &o) { return contains(o.get()); }) ||
           std::any_of(e->keywords.begin(), e->keywords.end(),
                       [&](const ast::Keyword &k) { return contains(k.value.get()); });
  };
  const ast::Stmt *evaluatedAt = nullptr;
  forEachModuleLevelStatement(module.body, [&](const ast::Stmt &stmt, bool) {
    if (evaluatedAt)
      return;
    bool here = contains(stmt.value.get()) ||
                std::any_of(stmt.decorators.begin(), stmt.decorators.end(),
                            [&](const ast::ExprPtr &d) { return contains(d.get()); });
    if (here)
      evaluatedAt = &stmt;
  });
  if (evaluatedAt) {
    specializer.bindMainModuleBefore(*evaluatedAt);
    specializer.overrideModuleConstants(kernel, context.defines);
    return evaluate(specializer, evaluatedAt);
  }
  // Elsewhere (a decorator of another module): the top-level statement holding the definition.
  auto holds = [&](const ast::Stmt &stmt) {
    bool found = &stmt == &kernel;
    forEachModuleLevelStatement(stmt.body,
                                [&](const ast::Stmt &s, bool) { found |= &s == &kernel; });
    forEachModuleLevelStatement(stmt.orelse,
                                [&](const ast::Stmt &s, bool) { found |= &s == &kernel; });
    for (const ast::ExceptHandler &handler : stmt.handlers)
      forEachModuleLevelStatement(handler.body,
                                  [&](const ast::Stmt &s, bool) { found |= &s == &kernel; });
    return found;
  };
  for (size_t i = 0; i < module.body.size(); ++i)
    if (holds(*module.body[i])) {
      specializer.bindMainModuleAsOf(i + 1);
      break;
    }
  for (const auto &[name, function] : enclosingHostFunctions(module, kernel)) {
    SemaValue value = SemaValue::ofBuiltin("pyfunc:" + name);
    value.function = function;
    specializer.bindGlobal(name, value);
  }
  // The enclosing functions' variables that `expr` reads, and those their values read.
  std::vector<std::pair<std::string, const ast::Expr *>> locals = enclosingLocals(module, kernel);
  std::set<std::string> needed;
  collectReadNames(expr, needed);
  std::vector<bool> used(locals.size(), false);
  for (size_t i = locals.size(); i-- > 0;)
    if (needed.count(locals[i].first)) {
      used[i] = true;
      collectReadNames(*locals[i].second, needed);
    }
  for (size_t i = 0; i < locals.size(); ++i)
    if (used[i])
      specializer.bindGlobal(locals[i].first, specializer.evalModuleLevel(*locals[i].second));
  specializer.overrideModuleConstants(kernel, context.defines);
  return evaluate(specializer, static_cast<const ast::Stmt *>(nullptr));
}

/// The parameter names of an autotune `key=` that module-level code computes
/// (`key=KEYS` with `KEYS = ["M", "N"] if os.environ.get(...) == "1" else []`).
std::vector<std::string> evaluateKey(const ast::Expr &key, const ast::Stmt &kernel,
                                     const ast::Module &module, const SourceManager &sources,
                                     const KernelRequest &context) {
  SemaValue names = evaluateAtDecorator(key, kernel, module, sources, context,
                                        [&](Specializer &specializer, const ast::Stmt *) {
                                          return specializer.evalModuleLevel(key);
                                        });
  std::vector<std::string> result;
  if (names.kind == SemaValue::Kind::Tuple)
    for (const SemaValue &name : names.elems)
      if (name.kind == SemaValue::Kind::String)
        result.push_back(name.name);
  if (names.kind != SemaValue::Kind::Tuple || result.size() != names.elems.size())
    sources.error(key.loc, "@triton.autotune: key must be a list of parameter names, not " +
                               names.describe());
  return result;
}

/// The triton.Config objects that `configs` evaluates to, with the module bound as the caller
/// arranged.
/// A config of an autotune list as a triton.Config object. A project's own Config class (GaLore
/// copies Triton's, whose __init__ stores kwargs, num_warps and num_stages on self) is read by
/// those attributes, as the project's autotuner reads them.
static SemaValue asTritonConfig(const SemaValue &config, SourceLoc loc,
                                const SourceManager &sources) {
  if (config.kind == SemaValue::Kind::Object && config.name == kTritonConfigClass)
    return config;
  if (!isPythonObject(config) || !config.attributes->count("kwargs") ||
      config.attributes->at("kwargs").kind != SemaValue::Kind::Object ||
      config.attributes->at("kwargs").name != kDictClass)
    sources.error(loc, "@triton.autotune: configs must be triton.Config objects (or objects "
                       "with a dict `kwargs` attribute, as a copy of its class has), not " +
                           config.describe());
  auto option = [&](const char *name) {
    auto found = config.attributes->find(name);
    return found == config.attributes->end() ? SemaValue::none() : found->second;
  };
  SemaValue result;
  result.kind = SemaValue::Kind::Object;
  result.name = kTritonConfigClass;
  result.elems = {option("kwargs"), option("num_warps"), option("num_stages"), option("maxnreg"),
                  option("pre_hook")};
  return result;
}

/// Where `stmts` (a Python function's body) assign an attribute named block_shape
/// (`nargs["a_desc"].block_shape = [...]`); invalid where they do not.
static SourceLoc blockShapeAssignment(const ast::StmtList &stmts) {
  for (const ast::StmtPtr &stmt : stmts) {
    if (stmt->kind == ast::StmtKind::FunctionDef)
      continue;
    if (stmt->kind == ast::StmtKind::Assign)
      for (const ast::ExprPtr &target : stmt->targets)
        if (target->kind == ast::ExprKind::Attribute && target->name == "block_shape")
          return target->loc;
    for (const ast::StmtList *block : {&stmt->body, &stmt->orelse, &stmt->finalbody})
      if (SourceLoc loc = blockShapeAssignment(*block); loc.isValid())
        return loc;
    for (const ast::ExceptHandler &handler : stmt->handlers)
      if (SourceLoc loc = blockShapeAssignment(handler.body); loc.isValid())
        return loc;
  }
  return {};
}

/// The configs of `list`, a list of triton.Config objects that host code made; `at` locates
/// the errors.
static std::vector<AutotuneConfig> configsOfValue(const SemaValue &list, SourceLoc at,
                                                  const SourceManager &sources,
                                                  unsigned defaultWarps, unsigned defaultStages) {
  if (list.kind != SemaValue::Kind::Tuple || list.elems.empty())
    sources.error(at, "@triton.autotune: configs must be a non-empty list of "
                      "triton.Config, not " +
                          list.describe());
  std::vector<AutotuneConfig> result;
  for (const SemaValue &element : list.elems) {
    const SemaValue config = asTritonConfig(element, at, sources);
    AutotuneConfig tuned;
    const SemaValue &dict = config.elems[0];
    const std::vector<SemaValue> &keys = dict.elems[0].elems;
    const std::vector<SemaValue> &values = dict.elems[1].elems;
    for (size_t i = 0; i < keys.size(); ++i) {
      if (keys[i].kind != SemaValue::Kind::String)
        sources.error(at, "triton.Config: the keys of its dict must be strings, not " +
                              keys[i].describe());
      tuned.constexprs.emplace_back(keys[i].name, defineText(values[i], at, keys[i].name, sources));
    }
    tuned.numWarps = configCount(config.elems[1], "num_warps", defaultWarps, at, sources);
    tuned.numStages = configCount(config.elems[2], "num_stages", defaultStages, at, sources);
    tuned.maxRegisters = configRegisters(config.elems[3], at, sources);
    const SemaValue &preHook = config.elems[4];
    if (preHook.kind == SemaValue::Kind::Builtin && preHook.function &&
        preHook.name.rfind("pyfunc:", 0) == 0 &&
        preHook.function->kind == ast::StmtKind::FunctionDef)
      tuned.preHookSetsBlockShape = blockShapeAssignment(preHook.function->body);
    if (tuned.maxRegisters == 0)
      takeRegistersEntry(tuned, at, sources);
    if (tuned.numWarps & (tuned.numWarps - 1))
      sources.error(at, "triton.Config: num_warps must be a power of two");
    result.push_back(std::move(tuned));
  }
  return result;
}

std::vector<AutotuneConfig> evaluatedConfigs(Specializer &specializer, const ast::Expr &configs,
                                             const SourceManager &sources, unsigned defaultWarps,
                                             unsigned defaultStages) {
  return configsOfValue(specializer.evalModuleLevel(configs), configs.loc, sources, defaultWarps,
                        defaultStages);
}

/// The value that dict `dict` holds for string key `key`; null where it holds none.
static const SemaValue *dictEntry(const SemaValue &dict, const std::string &key) {
  if (dict.kind != SemaValue::Kind::Object || dict.name != kDictClass)
    return nullptr;
  const std::vector<SemaValue> &keys = dict.elems[0].elems;
  for (size_t i = 0; i < keys.size(); ++i)
    if (keys[i].kind == SemaValue::Kind::String && keys[i].name == key)
      return &dict.elems[1].elems[i];
  return nullptr;
}

/// Where the entry `key` of `prune` (prune_configs_by's dict, when it is a dict display) is
/// written; else `prune` itself.
static SourceLoc pruneEntryLoc(const ast::Expr &prune, const std::string &key) {
  if (prune.kind == ast::ExprKind::Dict)
    for (size_t i = 0; i + 1 < prune.operands.size(); i += 2)
      if (const ast::Expr *k = prune.operands[i].get();
          k && k->kind == ast::ExprKind::StringLit && k->stringValue == key)
        return k->loc;
  return prune.loc;
}

/// Calls a function of prune_configs_by as module-level code, its diagnostics held: its value,
/// or in `why` what made it fail (the error's first line, or the exception it raised).
static std::optional<SemaValue> callHeld(Specializer &specializer, const SourceManager &sources,
                                         const SemaValue &function,
                                         std::vector<SemaValue> positional,
                                         std::vector<std::pair<std::string, SemaValue>> keywords,
                                         SourceLoc loc, std::string &why) {
  std::ostream *diagnostics = sources.diagnosticStream();
  std::ostringstream held;
  const_cast<SourceManager &>(sources).setDiagnosticStream(&held);
  std::optional<SemaValue> value;
  try {
    value = specializer.callPython(function, std::move(positional), std::move(keywords), loc);
  } catch (const CompileError &e) {
    std::string message = e.what();
    message = message.substr(0, message.find('\n'));
    // `file:line:col: error: what`: what, then where.
    size_t error = message.find(": error: ");
    why = error == std::string::npos
              ? message
              : message.substr(error + 9) + " (" + message.substr(0, error) + ")";
    // What an unknown value's error suggests (a -D of a module-level name) is no way out here.
    if (size_t hint = why.find("; give the module-level names"); hint != std::string::npos)
      why =
          why.substr(0, hint) +
          why.substr(why.find(" (", hint) == std::string::npos ? why.size() : why.find(" (", hint));
  } catch (const HostException &e) {
    why = "it raises " + (e.classes.empty() ? std::string("an exception") : e.classes[0]) +
          (e.message.empty() ? "" : ": " + e.message);
  }
  const_cast<SourceManager &>(sources).setDiagnosticStream(diagnostics);
  return value;
}

/// Triton's Autotuner.prune_configs, ahead of time: `prune_configs_by={"early_config_prune": f,
/// "perf_model": m, "top_k": k}` picks, at the launch that tunes a key, the configs it times: f
/// (configs, nargs, **kwargs) keeps those that suit the arguments (or builds others), then where
/// more than k remain, m(**nargs, **kwargs, **config.all_kwargs()) estimates each one's time and
/// the k fastest are kept. Where these are Python over the configs and the arguments that the
/// signature and -D bind (constexprs), tilec runs them as Triton would, and compiles the configs
/// Triton would time. Where they read a run-time argument (an integer's value, a tensor) or
/// what tilec cannot evaluate, the configs are known only at a launch: every config is kept,
/// with a warning that says why. Triton prunes only a list of more than one config.
static SemaValue pruneConfigs(Specializer &specializer, const ast::Expr &decorator,
                              const ast::Stmt &kernel, const KernelRequest &context,
                              const SourceManager &sources, SemaValue configs) {
  const ast::Expr *prune = keyword(decorator, "prune_configs_by");
  if (!prune || configs.kind != SemaValue::Kind::Tuple || configs.elems.size() < 2)
    return configs;
  SemaValue pruneBy = specializer.evalModuleLevel(*prune);
  if (pruneBy.kind == SemaValue::Kind::None)
    return configs;
  if (pruneBy.kind != SemaValue::Kind::Object || pruneBy.name != kDictClass)
    sources.error(prune->loc,
                  "@triton.autotune: prune_configs_by must be a dict, not " + pruneBy.describe());
  const std::string launchOnly = "Triton's autotuner passes it to the pruner at a launch";
  SemaValue nargs =
      launchArguments(kernel, context.signature, context.defines, launchOnly, prune->loc);
  // What Triton's launcher passes as keywords at every launch (`kernel[grid](...)`).
  std::vector<std::pair<std::string, SemaValue>> kwargs = {
      {"grid", Specializer::unknownValue("the launch's grid", launchOnly, prune->loc)},
      {"warmup", SemaValue::ofBool(false)}};
  const size_t given = configs.elems.size();
  auto keepAll = [&](SourceLoc at, const std::string &what, const std::string &why) {
    sources.warning(at, "tilec runs " + what +
                            " ahead of time, as Triton's autotuner runs it at a launch, but here " +
                            why + "; so all " + std::to_string(given) +
                            " configs are compiled and tilec's runtime times them all, where "
                            "Triton times those that " +
                            what +
                            " keeps at each launch. To compile one config, give the constexprs "
                            "it tunes in the signature or with -D, and --num-warps/--num-stages");
  };
  auto isConfigList = [](const SemaValue &v) {
    return v.kind == SemaValue::Kind::Tuple && !Specializer::findUnknown(v) &&
           std::all_of(v.elems.begin(), v.elems.end(),
                       [](const SemaValue &e) { return e.kind == SemaValue::Kind::Object; });
  };
  if (const SemaValue *early = dictEntry(pruneBy, "early_config_prune");
      early && early->kind != SemaValue::Kind::None) {
    SourceLoc at = pruneEntryLoc(*prune, "early_config_prune");
    std::string why;
    std::optional<SemaValue> kept =
        callHeld(specializer, sources, *early, {configs, nargs}, kwargs, at, why);
    if (!kept) {
      keepAll(at, "early_config_prune", why);
      return configs;
    }
    if (!isConfigList(*kept)) {
      keepAll(at, "early_config_prune",
              "it returns " + kept->describe() + ", not a list of triton.Config");
      return configs;
    }
    if (kept->elems.empty())
      sources.error(at, "early_config_prune returns no config for this signature (Triton's "
                        "autotuner raises AutotunerError: No valid autotuner configs after "
                        "pruning)");
    configs = *kept;
  }
  const SemaValue *model = dictEntry(pruneBy, "perf_model");
  if (!model || model->kind == SemaValue::Kind::None)
    return configs;
  const SemaValue *topK = dictEntry(pruneBy, "top_k");
  SourceLoc at = pruneEntryLoc(*prune, "perf_model");
  int64_t count = 0;
  if (!topK || topK->kind == SemaValue::Kind::None || topK->kind == SemaValue::Kind::Float) {
    // A fraction of the configs, at least one (the default is 1.0: all of them).
    double fraction = topK && topK->kind == SemaValue::Kind::Float ? topK->floatValue : 1.0;
    if (topK && topK->kind == SemaValue::Kind::None)
      sources.error(pruneEntryLoc(*prune, "top_k"),
                    "prune_configs_by's top_k must be a float <= 1.0 or an int, not None "
                    "(Triton's autotuner raises TypeError)");
    if (fraction > 1.0)
      sources.error(pruneEntryLoc(*prune, "top_k"),
                    "prune_configs_by's top_k must be a float <= 1.0 or an int, not " +
                        topK->describe() + " (Triton's autotuner raises TypeError)");
    count = std::max<int64_t>(1, static_cast<int64_t>(configs.elems.size() * fraction));
  } else if (topK->kind == SemaValue::Kind::Int || topK->kind == SemaValue::Kind::Bool) {
    count = topK->intValue;
  } else {
    sources.error(pruneEntryLoc(*prune, "top_k"),
                  "prune_configs_by's top_k must be a float <= 1.0 or an int, not " +
                      topK->describe() + " (Triton's autotuner raises TypeError)");
  }
  if (static_cast<int64_t>(configs.elems.size()) <= count)
    return configs;
  // perf_model(**nargs, **kwargs, **config.all_kwargs()) for each config.
  std::vector<std::pair<std::string, SemaValue>> arguments;
  for (size_t i = 0; i < nargs.elems[0].elems.size(); ++i)
    arguments.emplace_back(nargs.elems[0].elems[i].name, nargs.elems[1].elems[i]);
  arguments.insert(arguments.end(), kwargs.begin(), kwargs.end());
  std::vector<std::pair<double, size_t>> estimates;
  for (size_t i = 0; i < configs.elems.size(); ++i) {
    std::vector<std::pair<std::string, SemaValue>> call = arguments;
    std::string why;
    // Config.all_kwargs(): its kwargs, then the launch options that are not None.
    const SemaValue config = asTritonConfig(configs.elems[i], at, sources);
    const SemaValue &dict = config.elems[0];
    for (size_t k = 0; k < dict.elems[0].elems.size(); ++k)
      call.emplace_back(dict.elems[0].elems[k].name, dict.elems[1].elems[k]);
    call.emplace_back("num_warps",
                      config.elems[1].isNone() ? SemaValue::ofInt(4) : config.elems[1]);
    call.emplace_back("num_ctas", SemaValue::ofInt(1));
    call.emplace_back("num_stages",
                      config.elems[2].isNone() ? SemaValue::ofInt(3) : config.elems[2]);
    if (!config.elems[3].isNone())
      call.emplace_back("maxnreg", config.elems[3]);
    std::optional<SemaValue> time = callHeld(specializer, sources, *model, {}, call, at, why);
    if (time && time->kind != SemaValue::Kind::Int && time->kind != SemaValue::Kind::Float) {
      why = "it returns " + time->describe() + ", not a number";
      time.reset();
    }
    if (!time) {
      keepAll(at, "perf_model", why);
      return configs;
    }
    estimates.emplace_back(
        time->kind == SemaValue::Kind::Int ? double(time->intValue) : time->floatValue, i);
  }
  // sorted(..., key=estimate)[:top_k]: Python's sort is stable.
  std::stable_sort(estimates.begin(), estimates.end(),
                   [](const auto &a, const auto &b) { return a.first < b.first; });
  std::vector<SemaValue> fastest;
  for (int64_t i = 0; i < count; ++i)
    fastest.push_back(configs.elems[estimates[i].second]);
  return SemaValue::ofList(std::move(fastest));
}

std::vector<AutotuneConfig> evaluateConfigs(const ast::Expr &configs, const ast::Stmt &kernel,
                                            const ast::Module &module, const SourceManager &sources,
                                            const KernelRequest &context, unsigned defaultWarps,
                                            unsigned defaultStages,
                                            const ast::Expr *decorator = nullptr) {
  return evaluateAtDecorator(
      configs, kernel, module, sources, context,
      [&](Specializer &specializer, const ast::Stmt *evaluatedAt) {
        if (evaluatedAt)
          refuseLaterChanges(configs, *evaluatedAt, module, sources);
        SemaValue list = specializer.evalModuleLevel(configs);
        if (decorator)
          list = pruneConfigs(specializer, *decorator, kernel, context, sources, std::move(list));
        return configsOfValue(list, configs.loc, sources, defaultWarps, defaultStages);
      });
}

/// What a decorator that module-level code computes (`_autotuner = get_autotuner()`, applied
/// by call) evaluates to, its diagnostics held: none where it fails (bindHeuristics reports
/// that, as such a decorator may be a heuristics one).
static std::optional<SemaValue>
computedDecorator(const ast::Expr &decorator, const ast::Stmt &kernel, const ast::Module &module,
                  const SourceManager &sources, const KernelRequest &context) {
  std::ostream *diagnostics = sources.diagnosticStream();
  std::ostringstream held;
  const_cast<SourceManager &>(sources).setDiagnosticStream(&held);
  std::optional<SemaValue> value;
  try {
    value = evaluateAtDecorator(decorator, kernel, module, sources, context,
                                [&](Specializer &specializer, const ast::Stmt *) {
                                  return specializer.evalModuleLevel(decorator);
                                });
  } catch (const CompileError &) {
  } catch (const HostException &) {
  }
  const_cast<SourceManager &>(sources).setDiagnosticStream(diagnostics);
  return value;
}

unsigned unsignedKeyword(const ast::Expr &call, const char *name, unsigned fallback,
                         const SourceManager &sources,
                         const std::map<std::string, const ast::Expr *> &bindings = {}) {
  const ast::Expr *value = keyword(call, name);
  if (!value)
    return fallback;
  if (value->kind == ast::ExprKind::Name && bindings.count(value->name))
    value = bindings.at(value->name);
  const bool stages = std::string(name) == "num_stages";
  const int64_t most = stages ? 32 : kMaxConfigWarps;
  if (value->kind != ast::ExprKind::IntLit || value->intValue < (stages ? 0 : 1) ||
      value->intValue > most)
    sources.error(value->loc, std::string("triton.Config: ") + name +
                                  " must be an integer literal from " + (stages ? "0" : "1") +
                                  " to " + std::to_string(most));
  // num_stages=0 compiles as 1 does (configCount).
  return std::max<unsigned>(1, static_cast<unsigned>(value->intValue));
}

/// The literal text of a comprehension's loop value, as a config's dict would spell it.
std::string literalText(const ast::Expr &value, const SourceManager &sources) {
  switch (value.kind) {
  case ast::ExprKind::IntLit:
    return std::to_string(value.intValue);
  case ast::ExprKind::BoolLit:
    return value.boolValue ? "True" : "False";
  case ast::ExprKind::NoneLit:
    return "None";
  case ast::ExprKind::StringLit:
    if (!value.isFString)
      return value.stringValue;
    break;
  case ast::ExprKind::UnaryOp:
    if (value.unaryOp == ast::UnaryOperator::Neg &&
        value.operands[0]->kind == ast::ExprKind::IntLit)
      return "-" + std::to_string(value.operands[0]->intValue);
    break;
  default:
    break;
  }
  sources.error(value.loc, "@triton.autotune: a config comprehension's loops must run over lists "
                           "or tuples of integer, bool or string literals for tilec to read them");
}

/// Every binding of the `for` targets of `[triton.Config(...) for a in [...] for b in (...)]`, in
/// Python's order (the last clause varies fastest). Each target is one name over a list or tuple
/// literal; a clause with an `if` is not read.
std::vector<std::map<std::string, const ast::Expr *>>
comprehensionBindings(const ast::Expr &comprehension, const SourceManager &sources) {
  std::vector<std::map<std::string, const ast::Expr *>> bindings(1);
  for (size_t i = 1; i + 2 < comprehension.operands.size(); i += 3) {
    const ast::Expr &target = *comprehension.operands[i];
    const ast::Expr &iterable = *comprehension.operands[i + 1];
    if (comprehension.operands[i + 2] || target.kind != ast::ExprKind::Name ||
        (iterable.kind != ast::ExprKind::List && iterable.kind != ast::ExprKind::Tuple))
      sources.error(iterable.loc, "@triton.autotune: tilec reads config comprehensions whose "
                                  "`for` clauses bind one name each over a list or tuple literal, "
                                  "without `if`");
    std::vector<std::map<std::string, const ast::Expr *>> next;
    for (const auto &outer : bindings)
      for (const ast::ExprPtr &value : iterable.operands) {
        next.push_back(outer);
        next.back()[target.name] = value.get();
      }
    bindings = std::move(next);
  }
  return bindings;
}

} // namespace

/// The values of the module-level assignments `name = ...` in `stmts`, those inside `if`/`else`
/// and `try` blocks included.
static void moduleAssignments(const ast::StmtList &stmts, const std::string &name,
                              std::vector<const ast::Expr *> &out) {
  forEachModuleLevelStatement(stmts, [&](const ast::Stmt &stmt, bool) {
    if ((stmt.kind == ast::StmtKind::Assign || stmt.kind == ast::StmtKind::AnnAssign) &&
        stmt.targets.size() == 1 && stmt.targets[0]->kind == ast::ExprKind::Name &&
        stmt.targets[0]->name == name && stmt.value)
      out.push_back(stmt.value.get());
  });
}

/// Whether `e` is `dict(NAME=value, ...)`: a call of the built-in dict with keyword arguments
/// only, a dict as much as a display is (lucidrains' native sparse attention writes its
/// heuristics so).
static bool isDictCall(const ast::Expr &e) {
  if (e.kind != ast::ExprKind::Call || e.operands.size() != 1 || e.keywords.empty())
    return false;
  const ast::Expr &callee = *e.operands[0];
  if (callee.kind != ast::ExprKind::Name || callee.name != "dict")
    return false;
  return std::none_of(e.keywords.begin(), e.keywords.end(),
                      [](const ast::Keyword &k) { return k.name.empty(); });
}

/// The dict that `f()` returns, where `f` is a function defined once at the top level of the
/// kernel's module and its body (after a docstring) is `return {...}`: ROCm's perf kernels write
/// `@triton.heuristics(get_triton_heuristics())`. The dict's lambdas read only their `args`, so
/// the call needs no evaluation. Null for any other call.
static const ast::Expr *returnedDict(const ast::Expr &call, const ast::Module &module) {
  if (call.kind != ast::ExprKind::Call || call.operands.size() != 1 || !call.keywords.empty() ||
      call.operands[0]->kind != ast::ExprKind::Name)
    return nullptr;
  const ast::Stmt *function = nullptr;
  for (const ast::StmtPtr &stmt : module.body) {
    if (stmt->kind != ast::StmtKind::FunctionDef || stmt->name != call.operands[0]->name)
      continue;
    if (function) // defined twice: which one runs depends on the module's flow
      return nullptr;
    function = stmt.get();
  }
  if (!function || !function->decorators.empty() || !function->params.empty())
    return nullptr;
  const ast::StmtList &body = function->body;
  size_t first = !body.empty() && body[0]->kind == ast::StmtKind::ExprStmt && body[0]->value &&
                         body[0]->value->kind == ast::ExprKind::StringLit
                     ? 1
                     : 0;
  if (body.size() != first + 1 || body[first]->kind != ast::StmtKind::Return ||
      !body[first]->value || body[first]->value->kind != ast::ExprKind::Dict)
    return nullptr;
  return body[first]->value.get();
}

/// The dict of a triton.heuristics(...) call: its argument (or `values=`), a dict display (or a
/// `dict(NAME=value, ...)` call), the name of one that one module-level assignment binds
/// (`triton.heuristics(HEURISTICS)`) or a call of a module-level function that only returns one
/// (returnedDict); null when it is neither.
static const ast::Expr *heuristicsDict(const ast::Expr &decorator, const ast::Module *module) {
  if (decorator.operands.size() + decorator.keywords.size() != 2)
    return nullptr;
  const ast::Expr *values =
      decorator.operands.size() == 2 ? decorator.operands[1].get() : keyword(decorator, "values");
  if (values && values->kind == ast::ExprKind::Name && module) {
    std::vector<const ast::Expr *> bound;
    moduleAssignments(module->body, values->name, bound);
    values = bound.size() == 1 ? bound[0] : nullptr;
  }
  if (values && values->kind == ast::ExprKind::Call && module)
    if (const ast::Expr *returned = returnedDict(*values, *module))
      values = returned;
  return values && (values->kind == ast::ExprKind::Dict || isDictCall(*values)) ? values : nullptr;
}

std::vector<HeuristicEntry> heuristicEntries(const ast::Stmt &kernel, const ast::Module *module,
                                             const std::vector<const ast::Expr *> &byCall) {
  // Decorators applied by call wrap the decorated definition: they run first at a launch.
  std::vector<const ast::Expr *> decorators = byCall;
  std::vector<const ast::Expr *> own = resolvedDecorators(kernel, module);
  decorators.insert(decorators.end(), own.begin(), own.end());
  std::vector<HeuristicEntry> entries;
  bool belowAutotune = false;
  for (const ast::Expr *decorator : decorators) {
    if (calleeName(*decorator) == "autotune")
      belowAutotune = true;
    if (calleeName(*decorator) != "heuristics")
      continue;
    const ast::Expr *dict = heuristicsDict(*decorator, module);
    if (!dict)
      continue;
    if (dict->kind == ast::ExprKind::Call) {
      for (const ast::Keyword &k : dict->keywords)
        entries.push_back({k.name, k.value.get(), belowAutotune});
      continue;
    }
    for (size_t i = 0; i + 1 < dict->operands.size(); i += 2) {
      const ast::Expr *key = dict->operands[i].get();
      if (key && key->kind == ast::ExprKind::StringLit && !key->isFString)
        entries.push_back({key->stringValue, dict->operands[i + 1].get(), belowAutotune});
    }
  }
  return entries;
}

/// The constexpr parameters that one specialisation still needs: those without a default that
/// neither the signature (when `context` has one) nor a -D binds, as "A, B".
static std::string unboundConstexprs(const ast::Stmt &kernel, const KernelRequest *context) {
  size_t positional = 0;
  if (context && !context->signature.empty()) {
    std::string error;
    if (auto entries = parseSignature(context->signature, error))
      positional = entries->size();
  }
  std::string names;
  for (size_t i = 0; i < kernel.params.size(); ++i) {
    const ast::Param &p = kernel.params[i];
    if (!isConstexprAnnotation(p.annotation.get()) || p.defaultValue || i < positional)
      continue;
    if (context && std::any_of(context->defines.begin(), context->defines.end(),
                               [&](const auto &d) { return d.first == p.name; }))
      continue;
    names += (names.empty() ? "" : ", ") + p.name;
  }
  return names;
}

/// Triton runs `prune_configs_by={"early_config_prune": f}` at each launch: `f` drops the configs
/// that do not suit the arguments (a block larger than K) or builds others from them. tilec
/// compiles every config of `configs=` and its runtime tunes among all of them, so a config the
/// pruner would have dropped for some arguments may be launched with them: said once, with the
/// way to compile one chosen config.
static void warnAboutEarlyConfigPrune(const ast::Expr &decorator, const ast::Module *module,
                                      const SourceManager &sources) {
  const ast::Expr *prune = keyword(decorator, "prune_configs_by");
  if (prune && prune->kind == ast::ExprKind::Name && module) {
    std::vector<const ast::Expr *> bound;
    moduleAssignments(module->body, prune->name, bound);
    if (bound.size() == 1)
      prune = bound[0];
  }
  if (!prune || prune->kind != ast::ExprKind::Dict)
    return;
  for (size_t i = 0; i + 1 < prune->operands.size(); i += 2) {
    const ast::Expr *key = prune->operands[i].get();
    if (!key || key->kind != ast::ExprKind::StringLit || key->stringValue != "early_config_prune")
      continue;
    sources.warning(key->loc,
                    "Triton runs early_config_prune at each launch, to drop the configs that do "
                    "not suit the arguments or to build others from them; tilec compiles every "
                    "config of configs= and its runtime tunes among all of them, so a config "
                    "the pruner would drop may run. To compile one config, give the constexprs "
                    "it tunes in the signature or with -D, and --num-warps/--num-stages");
    return;
  }
}

AutotuneSpec readAutotune(const ast::Stmt &kernel, const SourceManager &sources,
                          unsigned defaultWarps, unsigned defaultStages, const ast::Module *module,
                          const KernelRequest *context,
                          const std::vector<const ast::Expr *> &byCall) {
  AutotuneSpec spec;
  std::vector<std::pair<std::string, std::string>> heuristics;
  std::vector<const ast::Expr *> decorators = resolvedDecorators(kernel, module);
  decorators.insert(decorators.end(), byCall.begin(), byCall.end());
  for (const ast::Expr *decorator : decorators) {
    std::string name = calleeName(*decorator);
    if (name == "heuristics") {
      // @triton.heuristics({...}), @triton.heuristics(values={...}), or a module-level dict.
      const ast::Expr *values = heuristicsDict(*decorator, module);
      if (!values) {
        // A dict that host code computes (`triton.heuristics(get_heuristic_config("op"))`)
        // holds functions of launch arguments that tilec does not read: -D gives their values.
        std::string unbound = unboundConstexprs(kernel, context);
        sources.error(
            decorator->loc,
            "@triton.heuristics takes one dict: {'NAME': value, ...} (or the name of a "
            "module-level one); tilec does not evaluate another argument: give the "
            "values it computes with -D NAME=VALUE" +
                (unbound.empty() ? std::string() : " (constexprs left unbound: " + unbound + ")"));
      }
      DictReader reader(sources, values->loc);
      reader.allowLambdas_ = true;
      // A function of the kernel's arguments is left out here: sema computes it where every
      // argument it reads is a bound constexpr (specializeKernel), else its name must be bound
      // like any constexpr, in the signature or with -D (Triton's AOT compiler asks the same).
      for (auto &entry : reader.read("@triton.heuristics"))
        if (entry.second != DictReader::kRuntimeHeuristic)
          heuristics.push_back(entry);
      continue;
    }
    if (name != "autotune" && module && context && isDecoratorMakerCall(*decorator, *module)) {
      // A decorator that host code computes (GaLore's `matmul = _autotuner(...)(kernel)` with
      // `_autotuner = get_autotuner()`): a triton.autotune's configs and key.
      std::optional<SemaValue> value =
          computedDecorator(*decorator, kernel, *module, sources, *context);
      if (!value || value->kind != SemaValue::Kind::Object || value->name != kTritonAutotuneClass)
        continue;
      spec.autotuned = true;
      spec.configs =
          configsOfValue(value->elems[0], decorator->loc, sources, defaultWarps, defaultStages);
      dropBackendOptionsOfOtherTargets(kernel, spec.configs, decorator->loc, sources);
      const SemaValue &keys = value->elems[1];
      if (keys.kind != SemaValue::Kind::Tuple)
        sources.error(decorator->loc, "@triton.autotune: key must be a list of parameter names, "
                                      "not " +
                                          keys.describe());
      for (const SemaValue &key : keys.elems) {
        if (key.kind != SemaValue::Kind::String)
          sources.error(decorator->loc, "@triton.autotune: key must be a list of parameter "
                                        "names, not " +
                                            keys.describe());
        if (std::any_of(kernel.params.begin(), kernel.params.end(),
                        [&](const ast::Param &p) { return p.name == key.name; }))
          spec.key.push_back(key.name);
      }
      continue;
    }
    if (name != "autotune")
      continue;
    spec.autotuned = true;
    const ast::Expr *configs = keyword(*decorator, "configs");
    if (!configs && decorator->operands.size() > 1)
      configs = decorator->operands[1].get();
    if (configs && configs->kind == ast::ExprKind::Name && module && !context) {
      // `configs=kernel_configs` with `kernel_configs = [triton.Config(...), ...]` once at
      // module level (under `if has_triton():` too), read without evaluating (which, with the
      // kernel's context, evaluates the name where the decorator reads it).
      std::vector<const ast::Expr *> bound;
      moduleAssignments(module->body, configs->name, bound);
      if (bound.size() == 1 && bound[0]->kind == ast::ExprKind::List)
        configs = bound[0];
    }
    // With the kernel's context, evaluated as Python evaluates them: a list literal, or configs
    // that module-level code computes (a name, a function's list, a comprehension; values that
    // are names). Without it, list literals and comprehensions over list literals:
    // [triton.Config({"BLOCK_M": m}, num_warps=w) for m in [16, 32] for w in [2, 4]] gives one
    // config per binding of the loop names.
    const bool evaluated = configs && module && context;
    if (evaluated) {
      try {
        spec.configs = evaluateConfigs(*configs, kernel, *module, sources, *context, defaultWarps,
                                       defaultStages, decorator);
      } catch (const CompileError &e) {
        // Configs that host code computes from what only the machine knows (a tuning file
        // chosen by probing the vendor): one config compiles without them.
        std::string unbound = unboundConstexprs(kernel, context);
        std::string message =
            "while evaluating the configs of this @triton.autotune: to compile one config "
            "without them, give each constexpr it tunes a value in the signature or with -D "
            "NAME=VALUE" +
            (unbound.empty() ? std::string() : " (left unbound: " + unbound + ")") +
            ", and --num-warps/--num-stages";
        sources.note(decorator->loc, message);
        throw CompileError(std::string(e.what()) + sources.format(decorator->loc, "note", message),
                           e.reported(), e.kind());
      }
      // Triton's autotuner runs a config's pre_hook on the launch's arguments before it
      // specializes the kernel, so a hook that sets a host descriptor's block_shape makes each
      // config's descriptors a type of their own (tensordesc<bf16[TILE_M, TILE_K]>). tilec does
      // not run pre_hooks: every config would get the signature's block shapes.
      std::string unbound = unboundConstexprs(kernel, context);
      for (const AutotuneConfig &config : spec.configs) {
        if (!config.preHookSetsBlockShape.isValid() || unbound.empty())
          continue;
        std::string message =
            "this pre_hook of the autotune configs sets a tensor descriptor's block_shape, "
            "which Triton's autotuner does before it specializes the kernel to each config; "
            "tilec does not run pre_hooks yet: to compile one config, give its descriptors' "
            "block shapes in the signature (tensordesc<bf16[128, 64]>), each constexpr it "
            "tunes a value in the signature or with -D (left unbound: " +
            unbound + "), and --num-warps/--num-stages";
        sources.error(config.preHookSetsBlockShape, message);
      }
    }
    if (!evaluated)
      warnAboutEarlyConfigPrune(*decorator, module, sources);
    std::vector<std::map<std::string, const ast::Expr *>> bindings(1);
    std::vector<const ast::Expr *> elements;
    if (!evaluated && configs && configs->kind == ast::ExprKind::Comprehension &&
        configs->boolValue) {
      bindings = comprehensionBindings(*configs, sources);
      elements.assign(bindings.size(), configs->operands[0].get());
    } else if (!evaluated && configs && configs->kind == ast::ExprKind::List) {
      for (const ast::ExprPtr &config : configs->operands)
        elements.push_back(config.get());
      bindings.assign(elements.size(), {});
    }
    if (!evaluated && elements.empty()) {
      // One specialisation needs none of them.
      std::string constexprs;
      for (const ast::Param &p : kernel.params)
        if (isConstexprAnnotation(p.annotation.get()) && !p.defaultValue)
          constexprs += (constexprs.empty() ? "" : ", ") + p.name;
      // Another project's autotuner (triton-dejavu's `config_space=ConfigSpace(...)`) has no
      // configs= at all: say which decorator it is and what a launch of one config needs.
      std::string shown = dottedName(*decorator->operands[0]);
      if (!configs && !shown.empty() && shown != "triton.autotune" && shown != "autotune") {
        std::string unbound = unboundConstexprs(kernel, context);
        std::set<std::string> computed;
        for (const HeuristicEntry &entry : heuristicEntries(kernel, module, byCall))
          if (!entry.belowAutotune)
            computed.insert(entry.name);
        std::string left;
        std::istringstream names(unbound);
        for (std::string name; std::getline(names >> std::ws, name, ',');)
          if (!computed.count(name))
            left += (left.empty() ? "" : ", ") + name;
        sources.error(decorator->loc,
                      "@" + shown +
                          " is not Triton's autotune and has no configs= list: tilec does not "
                          "read its configs; to compile one, give each constexpr it tunes a "
                          "value in the signature or with -D, and --num-warps/--num-stages" +
                          (left.empty() ? std::string() : " (left unbound: " + left + ")"));
      }
      sources.error(decorator->loc,
                    "@triton.autotune: configs must be a non-empty list literal of "
                    "triton.Config(...), or a list comprehension of one over list literals, for "
                    "tilec to compile every config; to compile one, give "
                    "each constexpr (" +
                        constexprs + ") a value in the signature or with -D");
    }
    for (size_t c = 0; c < elements.size(); ++c) {
      const ast::Expr *config = elements[c];
      if (calleeName(*config) != "Config")
        sources.error(config->loc, "@triton.autotune: each config must be triton.Config(...)");
      std::map<std::string, std::string> texts;
      for (const auto &[name, value] : bindings[c])
        texts[name] = literalText(*value, sources);
      AutotuneConfig tuned;
      const ast::Expr *values = config->operands.size() > 1 ? config->operands[1].get()
                                                            : keyword(*config, "kwargs");
      if (values) {
        if (values->kind != ast::ExprKind::Dict)
          sources.error(values->loc, "triton.Config: the first argument must be a dict");
        DictReader reader(sources, values->loc);
        reader.bindings_ = &texts;
        tuned.constexprs = reader.read("triton.Config");
      }
      tuned.numWarps = unsignedKeyword(*config, "num_warps", defaultWarps, sources, bindings[c]);
      tuned.numStages = unsignedKeyword(*config, "num_stages", defaultStages, sources, bindings[c]);
      if (const ast::Expr *registers = keyword(*config, "maxnreg")) {
        if (registers->kind != ast::ExprKind::IntLit && registers->kind != ast::ExprKind::NoneLit)
          sources.error(registers->loc, "triton.Config: maxnreg must be an integer literal");
        tuned.maxRegisters = configRegisters(registers->kind == ast::ExprKind::IntLit
                                                 ? SemaValue::ofInt(registers->intValue)
                                                 : SemaValue::none(),
                                             registers->loc, sources);
      }
      if (tuned.maxRegisters == 0)
        takeRegistersEntry(tuned, config->loc, sources);
      if (tuned.numWarps & (tuned.numWarps - 1))
        sources.error(config->loc, "triton.Config: num_warps must be a power of two");
      spec.configs.push_back(std::move(tuned));
    }
    dropBackendOptionsOfOtherTargets(kernel, spec.configs, decorator->loc, sources);
    const ast::Expr *key = keyword(*decorator, "key");
    if (!key && decorator->operands.size() > 2)
      key = decorator->operands[2].get();
    std::vector<std::string> keyNames;
    const bool literalKey =
        key && (key->kind == ast::ExprKind::List || key->kind == ast::ExprKind::Tuple);
    if (literalKey) {
      for (const ast::ExprPtr &entry : key->operands) {
        if (entry->kind != ast::ExprKind::StringLit)
          sources.error(entry->loc, "@triton.autotune: key entries must be string literals");
        keyNames.push_back(entry->stringValue);
      }
    } else if (key && module && context) {
      // A key that module-level code computes, evaluated as the configs are.
      keyNames = evaluateKey(*key, kernel, *module, sources, *context);
    } else {
      sources.error(decorator->loc, "@triton.autotune: key must be a list of parameter names");
    }
    // Triton's autotuner keys on the arguments among its key's names and ignores the others
    // (the grouped GEMM tutorial's misspelt 'gropup_c_ptrs').
    for (const std::string &name : keyNames)
      if (std::any_of(kernel.params.begin(), kernel.params.end(),
                      [&](const ast::Param &p) { return p.name == name; }))
        spec.key.push_back(name);
  }
  if (!spec.autotuned) {
    AutotuneConfig single;
    single.numWarps = defaultWarps;
    single.numStages = defaultStages;
    spec.configs.push_back(single);
  }
  if (spec.autotuned)
    for (AutotuneConfig &config : spec.configs)
      bindOptionParams(kernel, config);
  for (AutotuneConfig &config : spec.configs)
    config.constexprs.insert(config.constexprs.end(), heuristics.begin(), heuristics.end());
  return spec;
}

/// Every (name, value) of the kernel's @triton.heuristics dicts that tilec can read (its own
/// decorators, then those applied by call), a run-time one as DictReader::kRuntimeHeuristic. A
/// dict that host code computes binds nothing here: -D gives what it would compute.
static std::vector<std::pair<std::string, std::string>>
heuristicsEntries(const ast::Stmt &kernel, const SourceManager &sources, const ast::Module *module,
                  const std::vector<const ast::Expr *> &byCall) {
  std::vector<const ast::Expr *> decorators = resolvedDecorators(kernel, module);
  decorators.insert(decorators.end(), byCall.begin(), byCall.end());
  std::vector<std::pair<std::string, std::string>> entries;
  for (const ast::Expr *decorator : decorators) {
    if (calleeName(*decorator) != "heuristics")
      continue;
    const ast::Expr *values = heuristicsDict(*decorator, module);
    if (!values)
      continue;
    DictReader reader(sources, values->loc);
    reader.allowLambdas_ = true;
    for (auto &entry : reader.read("@triton.heuristics"))
      entries.push_back(std::move(entry));
  }
  return entries;
}

std::vector<std::pair<std::string, std::string>>
constantHeuristics(const ast::Stmt &kernel, const SourceManager &sources, const ast::Module *module,
                   const std::vector<const ast::Expr *> &byCall) {
  std::vector<std::pair<std::string, std::string>> constants;
  for (auto &entry : heuristicsEntries(kernel, sources, module, byCall))
    if (entry.second != DictReader::kRuntimeHeuristic)
      constants.push_back(std::move(entry));
  return constants;
}

bool isRuntimeHeuristic(const ast::Stmt &kernel, const SourceManager &sources,
                        const std::string &name, const std::vector<const ast::Expr *> &byCall,
                        const ast::Module *module) {
  for (const auto &[key, value] : heuristicsEntries(kernel, sources, module, byCall))
    if (key == name && value == DictReader::kRuntimeHeuristic)
      return true;
  return false;
}

bool bindsEveryConstexpr(const ast::Stmt &kernel, const std::string &signature,
                         const std::vector<std::pair<std::string, std::string>> &defines,
                         const ast::Module *module, const std::vector<const ast::Expr *> &byCall) {
  std::string error;
  std::optional<std::vector<SignatureEntry>> entries = parseSignature(signature, error);
  if (!entries)
    return false; // specializeKernel reports the signature
  // Triton's launcher computes these at each launch before the autotuner picks a config:
  // specializeKernel computes them too (or says which to bind where one needs a run-time value).
  // One that an @triton.autotune wraps may read or replace what the config sets (BLOCK * 2), so
  // its key is not taken as bound.
  std::set<std::string> computed;
  for (const HeuristicEntry &entry : heuristicEntries(kernel, module, byCall))
    if (!entry.belowAutotune)
      computed.insert(entry.name);
  bool any = false;
  for (size_t i = 0; i < kernel.params.size(); ++i) {
    const ast::Param &param = kernel.params[i];
    if (!isConstexprAnnotation(param.annotation.get()))
      continue;
    any = true;
    bool defined = computed.count(param.name) ||
                   std::any_of(defines.begin(), defines.end(),
                               [&](const auto &d) { return d.first == param.name; });
    // A constexpr left out takes its default, as Triton's JIT gives it when a launch passes none.
    if (i >= entries->size() && !defined && !param.defaultValue)
      return false;
  }
  return any;
}

} // namespace tilec::sema
