#include "sema/Imports.h"

#include "frontend/Parser.h"
#include "sema/DecoratorAliases.h"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <set>
#include <system_error>

namespace fs = std::filesystem;

namespace tilec::sema {

namespace {

ModuleGraph::LocKey keyOf(SourceLoc loc) {
  return {loc.file, loc.line, loc.col};
}

/// Modules of Python and of the libraries Triton files use in their host code. An import of one
/// of them that names no file is no sign of a helper file the user forgot: it stays what it is
/// today, a name kernels may not use (or compare_version's `operator.ge`).
bool isWellKnownModule(const std::string &root) {
  static const std::set<std::string> known = {
      "__future__",  "abc",        "argparse",  "builtins",
      "collections", "contextlib", "copy",      "dataclasses",
      "enum",        "functools",  "importlib", "inspect",
      "itertools",   "json",       "logging",   "math",
      "numbers",     "operator",   "os",        "pathlib",
      "random",      "re",         "struct",    "sys",
      "time",        "types",      "typing",    "typing_extensions",
      "warnings",    "numpy",      "torch",     "packaging",
      "pytest",      "triton",     "jax",       "cupy",
      "transformers"};
  // What tilec takes as installed is well known too (`import platform`).
  return known.count(root) != 0 || isAlwaysInstalled(root);
}

/// Whether a folder's name can be a package in an import statement: a Python identifier. A
/// repository checked out as `flash-attention` or `meta-pytorch+tritonparse` with an
/// `__init__.py` at its top is no importable package, whatever that file says.
bool isPackageName(const std::string &folder) {
  std::string name = fs::path(folder).filename().string();
  if (name.empty() || std::isdigit(static_cast<unsigned char>(name[0])))
    return false;
  return std::all_of(name.begin(), name.end(),
                     [](unsigned char c) { return std::isalnum(c) || c == '_' || c >= 0x80; });
}

} // namespace

bool isAlwaysInstalled(const std::string &root) {
  // Python's standard library as Triton host code uses it, torch and numpy (every host that
  // launches Triton kernels from Python has them), triton itself, and packaging, whose
  // packaging.version tilec models for the version checks of module-level code.
  static const std::set<std::string> installed = {
      "__future__", "abc",       "argparse",    "builtins", "collections", "contextlib",
      "copy",       "ctypes",    "dataclasses", "enum",     "functools",   "importlib",
      "inspect",    "itertools", "json",        "logging",  "math",        "numbers",
      "operator",   "os",        "pathlib",     "platform", "random",      "re",
      "struct",     "sys",       "time",        "types",    "typing",      "warnings",
      "numpy",      "torch",     "triton",      "packaging"};
  return installed.count(root) != 0;
}

namespace {

/// The modules of Triton 3.6's triton.language package (the NVIDIA and AMD backends install
/// their `cuda` and `hip` ones under extra/). Older Triton's triton.language.libdevice is gone.
bool isTritonLanguageModule(const std::string &dotted) {
  static const std::set<std::string> modules = {"triton.language",
                                                "triton.language.core",
                                                "triton.language.math",
                                                "triton.language.random",
                                                "triton.language.semantic",
                                                "triton.language.standard",
                                                "triton.language.target_info",
                                                "triton.language.extra",
                                                "triton.language.extra.libdevice",
                                                "triton.language.extra.cuda",
                                                "triton.language.extra.cuda.gdc",
                                                "triton.language.extra.cuda.libdevice",
                                                "triton.language.extra.cuda.utils",
                                                "triton.language.extra.hip",
                                                "triton.language.extra.hip.libdevice",
                                                "triton.language.extra.hip.utils"};
  return modules.count(dotted) != 0;
}

std::string parentDir(const std::string &path) {
  fs::path parent = fs::path(path).parent_path();
  return parent.empty() ? "." : parent.string();
}

std::string joinPath(const std::string &dir, const std::string &name) {
  if (dir.empty() || dir == ".")
    return name;
  return dir.back() == '/' ? dir + name : dir + "/" + name;
}

bool isFile(const std::string &path) {
  std::error_code ec;
  return fs::is_regular_file(path, ec);
}

bool isDir(const std::string &path) {
  std::error_code ec;
  return fs::is_directory(path, ec);
}

/// The identity of a file, so that two spellings of one path load it once.
std::string identity(const std::string &path) {
  std::error_code ec;
  fs::path canonical = fs::weakly_canonical(path, ec);
  return ec ? path : canonical.string();
}

/// `if TYPE_CHECKING:` / `if typing.TYPE_CHECKING:`: false when Python runs the module, so its
/// imports (often of modules that import this one back, for annotations) never run.
bool isTypeCheckingTest(const ast::Expr *test) {
  return test && (test->kind == ast::ExprKind::Name || test->kind == ast::ExprKind::Attribute) &&
         test->name == "TYPE_CHECKING";
}

/// Adds the names an assignment target binds (`x`, `a, (b, c)`, `*rest`).
void targetNames(const ast::Expr &target, std::set<std::string> &out) {
  if (target.kind == ast::ExprKind::Name) {
    out.insert(target.name);
    return;
  }
  if (target.kind == ast::ExprKind::Tuple || target.kind == ast::ExprKind::List)
    for (const ast::ExprPtr &element : target.operands)
      targetNames(*element, out);
}

/// Adds the names `stmt` may bind at module level, in any of its branches. Returns false when it
/// may bind names that cannot be listed (`from m import *`).
bool boundNames(const ast::Stmt &stmt, std::set<std::string> &out) {
  bool listed = true;
  auto block = [&](const ast::StmtList &stmts) {
    for (const ast::StmtPtr &inner : stmts)
      listed = boundNames(*inner, out) && listed;
  };
  switch (stmt.kind) {
  case ast::StmtKind::FunctionDef:
    out.insert(stmt.name);
    return true;
  case ast::StmtKind::Assign:
  case ast::StmtKind::AugAssign:
  case ast::StmtKind::AnnAssign:
  case ast::StmtKind::For:
    for (const ast::ExprPtr &target : stmt.targets)
      targetNames(*target, out);
    block(stmt.body);
    block(stmt.orelse);
    return listed;
  case ast::StmtKind::Import:
    for (const ast::ImportAlias &alias : stmt.names)
      out.insert(alias.asName.empty() ? alias.name.substr(0, alias.name.find('.')) : alias.asName);
    return true;
  case ast::StmtKind::ImportFrom:
    for (const ast::ImportAlias &alias : stmt.names) {
      if (alias.name == "*")
        listed = false;
      out.insert(alias.asName.empty() ? alias.name : alias.asName);
    }
    return listed;
  case ast::StmtKind::If:
  case ast::StmtKind::While:
    block(stmt.body);
    block(stmt.orelse);
    return listed;
  case ast::StmtKind::Match:
    for (const ast::MatchCase &matchCase : stmt.cases) {
      std::vector<std::string> captured;
      ast::patternNames(*matchCase.pattern, captured);
      out.insert(captured.begin(), captured.end());
      block(matchCase.body);
    }
    return listed;
  case ast::StmtKind::Unsupported:
    // A class (its name is targets[0]), try, with: what their blocks bind.
    for (const ast::ExprPtr &target : stmt.targets)
      targetNames(*target, out);
    block(stmt.body);
    for (const ast::ExceptHandler &handler : stmt.handlers)
      block(handler.body);
    block(stmt.orelse);
    block(stmt.finalbody);
    return listed;
  default:
    return true;
  }
}

class Loader : public ModuleLoader {
public:
  Loader(SourceManager &sources, ModuleGraph &graph, std::vector<std::string> searchPath,
         std::string scriptDir)
      : sources_(sources), graph_(graph), searchPath_(std::move(searchPath)),
        scriptDir_(std::move(scriptDir)) {}

  void loadMain(const ast::Module &main, const std::string &path) {
    SourceModule m;
    m.name = "__main__";
    m.path = path;
    m.dir = parentDir(path);
    m.ast = &main;
    m.loaded = true;
    graph_.modules.push_back(m);
    importedAt_.push_back(SourceLoc{main.file, 0, 0});
    graph_.byFile[main.file] = 0;
    byIdentity_[identity(path)] = 0;
    scan(0, false);
  }

  /// The module that `reference`, a function named as MODULE.QUALNAME by a signature entry or a
  /// -D (a host's `ACTIVATION=_silu` of a module the kernel file does not import), lives in:
  /// the longest dotted prefix that names a module along the search path is loaded, with its
  /// packages, as the host that passes the function has imported it. Nothing where none does.
  void loadReferencedModule(const std::string &reference, SourceLoc at) {
    std::vector<std::string> parts;
    size_t start = 0;
    while (true) {
      size_t dot = reference.find('.', start);
      parts.push_back(reference.substr(start, dot == std::string::npos ? dot : dot - start));
      if (dot == std::string::npos)
        break;
      start = dot + 1;
    }
    for (size_t k = parts.size() - 1; k >= 1; --k) {
      std::string prefix = parts[0];
      for (size_t i = 1; i < k; ++i)
        prefix += "." + parts[i];
      if (graph_.findsModule(prefix)) {
        resolveAbsolute(prefix, at, 0);
        return;
      }
    }
  }

private:
  SourceManager &sources_;
  ModuleGraph &graph_;
  std::vector<std::string> searchPath_;
  // The folder of a kernel file inside a package, searched last by its own folder's modules only
  // (see loadImports); empty otherwise.
  std::string scriptDir_;
  std::map<std::string, int> byIdentity_; // canonical file or folder -> module
  std::vector<int> active_;               // modules whose imports are being followed
  std::vector<SourceLoc> activeImports_;  // the import that led into each active module
  std::vector<SourceLoc> importedAt_;     // for each module, the import that first named it
  // Whether the imports being followed are inside a function body, and, for each active module,
  // whether such an import led into it: Python runs those when the function is called, after
  // every module involved finished importing, so a cycle through one is no cycle.
  bool inFunction_ = false;
  std::vector<bool> enteredFromFunction_;
  // For each active module, the top-level statement whose imports are being followed: a module
  // that is imported again while it runs has bound only the names of the statements before it.
  std::vector<size_t> currentStatement_;
  // Whether the imports being followed are inside a `try` block, whose handler may catch an
  // ImportError.
  int tryDepth_ = 0;
  // For each active module, whether the import that led into it is inside a `try` block of its
  // importer: an ImportError raised while it runs reaches that handler.
  std::vector<bool> enteredFromTry_;

  /// Whether the imports being followed run inside a `try` (here, or in an importer on the
  /// stack): an import that raises there runs the handler instead, which the modules it runs
  /// decide, so they are all read, as Python runs them.
  bool readsEverything() const {
    return tryDepth_ > 0 ||
           std::any_of(enteredFromTry_.begin(), enteredFromTry_.end(), [](bool b) { return b; });
  }

  /// The module `name` (one component) in `dir`, registering it; -1 when there is none.
  /// `dotted` is its full name, `at` the import that asks for it.
  int findIn(const std::string &dir, const std::string &name, const std::string &dotted,
             SourceLoc at, bool allowNamespace) {
    std::string package = joinPath(dir, name);
    for (const char *init : {"__init__.tl", "__init__.py"}) {
      std::string file = joinPath(package, init);
      if (isFile(file))
        return load(file, dotted, package, true, at);
    }
    for (const char *ext : {".tl", ".py"}) {
      std::string file = package + ext;
      if (isFile(file))
        return load(file, dotted, "", false, at);
    }
    if (allowNamespace && isDir(package))
      return load("", dotted, package, true, at);
    return -1;
  }

  /// A top-level module, searched along the path as Python does: a regular module or package
  /// in any folder wins over a namespace package (a folder without __init__) in an earlier one.
  int findTop(const std::string &name, SourceLoc at, int importer) {
    std::vector<std::string> path = searchPath_;
    const SourceModule &from = graph_.modules[importer];
    // Not for the importer's own name: a package module that imports a library of its name
    // (SGLang's quantization/gguf.py: `import gguf`) means the library, not itself.
    if (!scriptDir_.empty() && !from.path.empty() &&
        identity(parentDir(from.path)) == identity(scriptDir_) &&
        fs::path(from.path).stem().string() != name)
      path.push_back(scriptDir_);
    for (const std::string &dir : path)
      if (int m = findIn(dir, name, name, at, false); m >= 0)
        return m;
    for (const std::string &dir : path)
      if (int m = findIn(dir, name, name, at, true); m >= 0)
        return m;
    return -1;
  }

  /// The submodule `name` of package `parent`, or -1.
  int findSub(int parent, const std::string &name, SourceLoc at) {
    // Copies: loading a module may grow graph_.modules.
    const SourceModule p = graph_.modules[parent];
    if (!p.isPackage)
      return -1;
    auto it = p.submodules.find(name);
    if (it != p.submodules.end())
      return it->second;
    int m = findIn(p.dir, name, p.name + "." + name, at, true);
    if (m >= 0)
      graph_.modules[parent].submodules[name] = m;
    return m;
  }

  /// Registers (once) a module file, or a namespace package (`file` empty). It is parsed and
  /// scanned here only while an import inside a `try` runs; otherwise when its names are read.
  int load(const std::string &file, const std::string &dotted, const std::string &dir,
           bool isPackage, SourceLoc at) {
    std::string id = identity(file.empty() ? dir : file);
    auto known = byIdentity_.find(id);
    // A module imported again while it runs (an import cycle) is the partially initialised
    // module Python registered before running it: `import m` binds it, and `from m import x`
    // finds what it bound so far (checked by scanImportFrom).
    if (known != byIdentity_.end()) {
      if (readsEverything())
        load(known->second);
      return known->second;
    }
    SourceModule m;
    m.name = dotted;
    m.path = file;
    m.dir = dir;
    m.isPackage = isPackage;
    m.loaded = file.empty();
    int index = static_cast<int>(graph_.modules.size());
    byIdentity_[id] = index;
    graph_.modules.push_back(std::move(m));
    importedAt_.push_back(at);
    if (readsEverything())
      load(index);
    return index;
  }

  int findSubmodule(int parent, const std::string &name) override {
    return findSub(parent, name, importedAt_[static_cast<size_t>(parent)]);
  }

  /// Parses module `index` and follows its imports, once. Python runs a module when it is first
  /// imported; tilec reads one when it is first read, so for the modules it reads, cycles are
  /// checked in the order in which they are read.
  void load(int index) override {
    SourceModule &m = graph_.modules[static_cast<size_t>(index)];
    if (m.loaded)
      return;
    m.loaded = true;
    uint32_t fileIndex = sources_.loadFile(m.path);
    graph_.storage.push_back(parseModule(sources_, fileIndex));
    m.ast = graph_.storage.back().get();
    graph_.byFile[fileIndex] = index;
    activeImports_.push_back(importedAt_[static_cast<size_t>(index)]);
    scan(index, inFunction_);
    activeImports_.pop_back();
  }

  /// The position of `m` on the stack of running modules when the import being followed runs
  /// while `m` is only partially initialised, or -1. An import inside a function runs when the
  /// function is called, after every module involved finished importing; so does one that led
  /// through such an import. Python registers a package before it runs its __init__, and its
  /// submodules are found whatever the __init__ bound so far, so a cycle through a package's
  /// __init__ is ordinary Python (Liger-Kernel's ops/__init__.py) and not checked here.
  long partiallyInitialised(int m) const {
    auto onStack = std::find(active_.begin(), active_.end(), m);
    if (onStack == active_.end() || inFunction_)
      return -1;
    size_t from = static_cast<size_t>(onStack - active_.begin());
    if (std::any_of(onStack, active_.end(), [&](int a) { return graph_.modules[a].isPackage; }) ||
        std::any_of(enteredFromFunction_.begin() + static_cast<long>(from) + 1,
                    enteredFromFunction_.end(), [](bool b) { return b; }))
      return -1;
    return static_cast<long>(from);
  }

  /// `from m import names` while `m` runs (an import cycle): Python's ImportError for a name `m`
  /// has not bound yet, at the import that closes the cycle. Names the statement `m` is running
  /// binds count as bound, and an import inside `try` is not checked (its handler may catch
  /// the error).
  void checkPartialImport(int base, const ast::Stmt &stmt) {
    long from = partiallyInitialised(base);
    if (from < 0)
      return;
    // The ImportError propagates out of every module of the chain, up to the innermost `try`
    // around an import: this one, or the one that led into a module of the chain (aphrodite's
    // fa_utils tries `from flash_attn import ...`, and a flash_attn.py next to the kernel
    // imports fa_utils back). That import fails and its handler runs.
    std::optional<SourceLoc> caughtAt;
    if (tryDepth_ > 0)
      caughtAt = stmt.loc;
    for (size_t i = active_.size() - 1; !caughtAt && i > static_cast<size_t>(from); --i)
      if (enteredFromTry_[i])
        caughtAt = activeImports_[i - 1];
    const SourceModule &module = graph_.modules[base];
    std::set<std::string> bound;
    size_t running = currentStatement_[static_cast<size_t>(from)];
    for (size_t i = 0; i <= running && i < module.ast->body.size(); ++i)
      if (!boundNames(*module.ast->body[i], bound))
        return; // a star import may have bound anything
    for (const ast::ImportAlias &alias : stmt.names) {
      if (alias.name == "*" || bound.count(alias.name))
        continue;
      // active_[from] ... active_.back() import each other in turn, and the last imports the
      // first.
      std::string chain = "'" + displayName(active_[static_cast<size_t>(from)]) + "' imports ";
      for (size_t i = static_cast<size_t>(from) + 1; i < active_.size(); ++i)
        chain += "'" + displayName(active_[i]) + "', which imports ";
      chain += "'" + displayName(active_[static_cast<size_t>(from)]) + "'";
      // The kernel file is imported under its own name by the host code that launches it.
      std::string name =
          module.name == "__main__" ? fs::path(module.path).stem().string() : module.name;
      std::string message = "cannot import name '" + alias.name +
                            "' from partially initialized module '" + name +
                            "' (most likely due to a circular import): " + chain +
                            " before binding '" + alias.name + "'";
      if (caughtAt) {
        graph_.failuresByLoc.emplace(keyOf(*caughtAt), message);
        return;
      }
      sources_.error(alias.loc, message);
    }
  }

  std::string displayName(int m) const {
    const SourceModule &module = graph_.modules[m];
    return module.path.empty() ? module.name : module.path;
  }

  void recordMissing(SourceLoc loc, const std::string &name, const std::string &searched,
                     const std::string &message = "") {
    graph_.missingByLoc[keyOf(loc)] = static_cast<int>(graph_.missing.size());
    graph_.missing.push_back({loc, name, searched, message});
  }

  std::string searchedText(const std::vector<std::string> &dirs) const {
    std::string text;
    for (size_t i = 0; i < dirs.size(); ++i)
      text += (i ? ", " : "") + std::string("'") + dirs[i] + "'";
    return text;
  }

  /// `a.b.c` from the search path: each package on the way is loaded (Python runs their
  /// __init__ too). Returns the modules of each component, as far as they were found.
  std::vector<int> resolveAbsolute(const std::string &dotted, SourceLoc at, int importer) {
    std::vector<int> chain;
    size_t start = 0;
    while (start <= dotted.size()) {
      size_t dot = dotted.find('.', start);
      std::string part = dotted.substr(start, dot == std::string::npos ? dot : dot - start);
      int m = chain.empty() ? findTop(part, at, importer) : findSub(chain.back(), part, at);
      if (m < 0)
        break;
      chain.push_back(m);
      if (dot == std::string::npos)
        break;
      start = dot + 1;
    }
    return chain;
  }

  static size_t componentCount(const std::string &dotted) {
    return static_cast<size_t>(std::count(dotted.begin(), dotted.end(), '.')) + 1;
  }

  /// `triton.language.X` that Triton 3.6 does not have: recorded as missing, with Python's
  /// error. Other triton modules (runtime, compiler, tools...) are taken to exist.
  bool checkTritonModule(const std::string &dotted, SourceLoc loc) {
    if (dotted.rfind("triton.language.", 0) != 0 || isTritonLanguageModule(dotted))
      return true;
    std::string message = "No module named '" + dotted + "' in Triton 3.6";
    if (dotted == "triton.language.libdevice" ||
        dotted == "triton.language.extra.cuda.libdevice.libdevice")
      message += " (libdevice is triton.language.extra.libdevice)";
    recordMissing(loc, dotted, "", message);
    return false;
  }

  void scanImport(int module, const ast::Stmt &stmt) {
    for (const ast::ImportAlias &alias : stmt.names) {
      std::string root = alias.name.substr(0, alias.name.find('.'));
      if (root == "triton") {
        checkTritonModule(alias.name, alias.loc);
        continue;
      }
      std::vector<int> chain = resolveAbsolute(alias.name, alias.loc, module);
      if (chain.size() == componentCount(alias.name)) {
        // `import a.b` binds `a`; `import a.b as c` binds a.b.
        graph_.resolutions[keyOf(alias.loc)] = alias.asName.empty() ? chain.front() : chain.back();
      } else if (!isWellKnownModule(root)) {
        recordMissing(alias.loc, alias.name, searchedText(searchPath_));
      }
    }
  }

  void scanImportFrom(int module, const ast::Stmt &stmt) {
    size_t level = stmt.module.find_first_not_of('.');
    if (level == std::string::npos)
      level = stmt.module.size();
    std::string dotted = stmt.module.substr(level);
    std::string root = dotted.substr(0, dotted.find('.'));
    if (level == 0 && root == "triton") {
      checkTritonModule(dotted, stmt.loc);
      return;
    }
    int base = -1;
    std::string searched;
    if (level == 0) {
      std::vector<int> chain = resolveAbsolute(dotted, stmt.loc, module);
      if (chain.size() == componentCount(dotted))
        base = chain.back();
      searched = searchedText(searchPath_);
    } else {
      // `from .x import f` in pkg/mod.tl (or pkg/__init__.tl) looks in pkg; each further dot
      // goes one folder up.
      const SourceModule self = graph_.modules[module];
      std::string dir = self.isPackage ? self.dir : parentDir(self.path);
      for (size_t i = 1; i < level; ++i)
        dir = (fs::path(dir) / "..").lexically_normal().string();
      searched = searchedText({dir});
      std::string name = dotted.empty() ? "" : dotted.substr(0, dotted.find('.'));
      if (dotted.empty()) {
        // `from . import x`: the package itself (its __init__, or the folder).
        std::string pkgName = fs::path(identity(dir)).filename().string();
        base = -1;
        for (const char *init : {"__init__.tl", "__init__.py"})
          if (base < 0 && isFile(joinPath(dir, init)))
            base = load(joinPath(dir, init), pkgName, dir, true, stmt.loc);
        if (base < 0)
          base = load("", pkgName, dir, true, stmt.loc);
      } else {
        int m = findIn(dir, name, name, stmt.loc, true);
        size_t start = name.size() + 1;
        while (m >= 0 && start <= dotted.size()) {
          size_t dot = dotted.find('.', start);
          m = findSub(m, dotted.substr(start, dot == std::string::npos ? dot : dot - start),
                      stmt.loc);
          start = dot == std::string::npos ? dotted.size() + 1 : dot + 1;
        }
        base = m;
      }
    }
    if (base < 0) {
      if (level > 0 || !isWellKnownModule(root))
        recordMissing(stmt.loc, stmt.module, searched);
      return;
    }
    graph_.resolutions[keyOf(stmt.loc)] = base;
    // Python reads the names asked for from `base` here: it runs (or is running).
    load(base);
    checkPartialImport(base, stmt);
    // `from pkg import mod` imports the submodule when the package has no such name of its own.
    for (const ast::ImportAlias &alias : stmt.names) {
      if (alias.name == "*")
        continue;
      int sub = findSub(base, alias.name, alias.loc);
      if (sub >= 0)
        graph_.resolutions[keyOf(alias.loc)] = sub;
    }
  }

  /// Follows the imports of a module's top level, through `if` and `try` blocks as sema does.
  void scanStatements(int module, const ast::StmtList &stmts) {
    for (const ast::StmtPtr &stmt : stmts)
      scanStatement(module, *stmt);
  }

  void scanStatement(int module, const ast::Stmt &stmt) {
    switch (stmt.kind) {
    case ast::StmtKind::Import:
      scanImport(module, stmt);
      break;
    case ast::StmtKind::ImportFrom:
      scanImportFrom(module, stmt);
      break;
    case ast::StmtKind::If:
      if (!isTypeCheckingTest(stmt.test.get()))
        scanStatements(module, stmt.body);
      scanStatements(module, stmt.orelse);
      break;
    case ast::StmtKind::For:
    case ast::StmtKind::While:
      scanStatements(module, stmt.body);
      scanStatements(module, stmt.orelse);
      break;
    case ast::StmtKind::Match:
      for (const ast::MatchCase &matchCase : stmt.cases)
        scanStatements(module, matchCase.body);
      break;
    case ast::StmtKind::FunctionDef: {
      // A Python function that module-level code calls may import inside its body
      // (`try: from transformers.utils import f except Exception: ...`).
      bool saved = inFunction_;
      inFunction_ = true;
      scanStatements(module, stmt.body);
      inFunction_ = saved;
      break;
    }
    case ast::StmtKind::Unsupported:
      if (stmt.name == "try statement") {
        ++tryDepth_;
        scanStatements(module, stmt.body);
        --tryDepth_;
        for (const ast::ExceptHandler &handler : stmt.handlers)
          scanStatements(module, handler.body);
        scanStatements(module, stmt.orelse);
        scanStatements(module, stmt.finalbody);
      }
      break;
    default:
      break;
    }
  }

  void scan(int module, bool fromFunction) {
    active_.push_back(module);
    enteredFromFunction_.push_back(fromFunction);
    enteredFromTry_.push_back(tryDepth_ > 0);
    currentStatement_.push_back(0);
    // The module's own top level runs when it is imported, whatever imported it, outside any
    // `try` of the importer's.
    bool saved = inFunction_;
    int savedTry = tryDepth_;
    inFunction_ = false;
    tryDepth_ = 0;
    // A pointer, not a reference into graph_.modules, which loading more modules may grow.
    const ast::Module *syntax = graph_.modules[module].ast;
    if (syntax) {
      for (size_t i = 0; i < syntax->body.size(); ++i) {
        currentStatement_.back() = i;
        scanStatement(module, *syntax->body[i]);
      }
    }
    inFunction_ = saved;
    tryDepth_ = savedTry;
    currentStatement_.pop_back();
    enteredFromTry_.pop_back();
    enteredFromFunction_.pop_back();
    active_.pop_back();
  }
};

} // namespace

int ModuleGraph::moduleOfFile(uint32_t file) const {
  auto it = byFile.find(file);
  return it == byFile.end() ? -1 : it->second;
}

int ModuleGraph::resolved(SourceLoc loc) const {
  auto it = resolutions.find(keyOf(loc));
  return it == resolutions.end() ? -1 : it->second;
}

int ModuleGraph::missingAt(SourceLoc loc) const {
  auto it = missingByLoc.find(keyOf(loc));
  return it == missingByLoc.end() ? -1 : it->second;
}

const std::string *ModuleGraph::failureAt(SourceLoc loc) const {
  auto it = failuresByLoc.find(keyOf(loc));
  return it == failuresByLoc.end() ? nullptr : &it->second;
}

std::vector<std::string> ModuleGraph::files() const {
  std::vector<std::string> result;
  // A module found but never read is no dependency: what it says cannot change the output.
  for (const SourceModule &m : modules)
    if (!m.path.empty() && m.ast)
      result.push_back(m.path);
  result.insert(result.end(), dataFiles_.begin(), dataFiles_.end());
  return result;
}

std::unique_ptr<ModuleGraph> loadImports(SourceManager &sources, const ast::Module &main,
                                         const std::string &mainPath,
                                         const std::vector<std::string> &includeDirs,
                                         const std::vector<std::string> &references) {
  auto graph = std::make_unique<ModuleGraph>();
  std::vector<std::string> searchPath = {parentDir(mainPath)};
  searchPath.insert(searchPath.end(), includeDirs.begin(), includeDirs.end());
  // A folder searched last, unless the path has it already.
  auto searchLast = [&](const std::string &dir) {
    if (std::none_of(searchPath.begin(), searchPath.end(),
                     [&](const std::string &d) { return identity(d) == identity(dir); }))
      searchPath.push_back(dir);
  };
  // A kernel file inside a package (src/pkg/ops/k.py, each folder with an __init__) imports its
  // package's other modules absolutely (`from pkg.utils import f`), as Python finds them when the
  // package is importable: the folder above the outermost package is searched last.
  std::string root = parentDir(mainPath);
  bool inPackage = false;
  // The climb stops at a folder whose name Python cannot import, which is then the sys.path
  // entry (the checkout's top, as an editable install puts it on the path).
  while ((isFile(joinPath(root, "__init__.py")) || isFile(joinPath(root, "__init__.tl"))) &&
         isPackageName(identity(root))) {
    inPackage = true;
    std::string up = (fs::path(identity(root)) / "..").lexically_normal().string();
    if (up == identity(root))
      break;
    root = up;
  }
  if (inPackage)
    searchLast(root);
  // A folder without an __init__ inside a package is a namespace package (PEP 420): rtp-llm's
  // rtp_llm/models_py has none, yet its modules import `rtp_llm.models_py.modules...`, which
  // Python finds from the folder above rtp_llm. So the climb goes on through such folders, and
  // the folder above the outermost one that has an __init__ is searched after the rest.
  std::string outerRoot;
  for (fs::path dir = identity(parentDir(mainPath)); isPackageName(dir.string());
       dir = dir.parent_path()) {
    if (isFile(joinPath(dir.string(), "__init__.py")) ||
        isFile(joinPath(dir.string(), "__init__.tl")))
      outerRoot = dir.parent_path().string();
    if (dir.parent_path() == dir)
      break;
  }
  if (!outerRoot.empty())
    searchLast(outerRoot);
  // Such a file is a module of its package (pkg.ops.k): its folder is not on Python's sys.path,
  // unless the file is run as a script, which a file importing its neighbours by bare name
  // (`from fused_kernel_fp8 import f16_to_f8`) was written for. So only the modules of that
  // folder search it, last; the package's other modules do not (FastVideo's
  // attention/utils/flash_attn_default.py imports the installed flash_attn, not the
  // attention/backends/flash_attn.py next to the kernel file). -I may still name the folder.
  std::string scriptDir;
  if (inPackage && std::none_of(includeDirs.begin(), includeDirs.end(), [&](const std::string &d) {
        return identity(d) == identity(parentDir(mainPath));
      })) {
    scriptDir = searchPath.front();
    searchPath.erase(searchPath.begin());
  }
  graph->searchPath = searchPath;
  auto loader =
      std::make_unique<Loader>(sources, *graph, std::move(searchPath), std::move(scriptDir));
  Loader &loading = *loader;
  graph->loader = std::move(loader);
  loading.loadMain(main, mainPath);
  for (const std::string &reference : references)
    loading.loadReferencedModule(reference, SourceLoc{main.file, 0, 0});
  computeDecoratorAliases(*graph);
  return graph;
}

const ast::Module *ModuleGraph::ensureLoaded(int index) const {
  const SourceModule &module = modules[static_cast<size_t>(index)];
  if (!module.loaded && loader) {
    loader->load(index);
    // The aliases of the newly read modules' decorators (and of those that import them).
    computeDecoratorAliases(*this);
  }
  return module.ast;
}

int ModuleGraph::findSubmodule(int index, const std::string &name) const {
  return loader ? loader->findSubmodule(index, name) : -1;
}

bool ModuleGraph::findsModule(const std::string &dotted) const {
  // The file or folder that `import dotted` would load, as Loader::findIn looks for it.
  std::string relative = dotted;
  std::replace(relative.begin(), relative.end(), '.', '/');
  for (const std::string &dir : searchPath) {
    std::string base = joinPath(dir, relative);
    if (isFile(base + ".tl") || isFile(base + ".py") || isDir(base))
      return true;
  }
  return false;
}

} // namespace tilec::sema
