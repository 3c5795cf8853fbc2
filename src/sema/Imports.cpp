#include "sema/Imports.h"

#include "frontend/Parser.h"

#include <algorithm>
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

class Loader {
public:
  Loader(SourceManager &sources, ModuleGraph &graph, std::vector<std::string> searchPath)
      : sources_(sources), graph_(graph), searchPath_(std::move(searchPath)) {}

  void loadMain(const ast::Module &main, const std::string &path) {
    SourceModule m;
    m.name = "__main__";
    m.path = path;
    m.dir = parentDir(path);
    m.ast = &main;
    graph_.modules.push_back(m);
    graph_.byFile[main.file] = 0;
    byIdentity_[identity(path)] = 0;
    scan(0, false);
  }

private:
  SourceManager &sources_;
  ModuleGraph &graph_;
  std::vector<std::string> searchPath_;
  std::map<std::string, int> byIdentity_; // canonical file or folder -> module
  std::vector<int> active_;               // modules whose imports are being followed
  std::vector<SourceLoc> activeImports_;  // the import that led into each active module
  // Whether the imports being followed are inside a function body, and, for each active module,
  // whether such an import led into it: Python runs those when the function is called, after
  // every module involved finished importing, so a cycle through one is no cycle.
  bool inFunction_ = false;
  std::vector<bool> enteredFromFunction_;

  /// The module `name` (one component) in `dir`, loading it; -1 when there is none.
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
  int findTop(const std::string &name, SourceLoc at) {
    for (const std::string &dir : searchPath_)
      if (int m = findIn(dir, name, name, at, false); m >= 0)
        return m;
    for (const std::string &dir : searchPath_)
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

  /// Loads (once) and scans a module file, or registers a namespace package (`file` empty).
  int load(const std::string &file, const std::string &dotted, const std::string &dir,
           bool isPackage, SourceLoc at) {
    std::string id = identity(file.empty() ? dir : file);
    auto known = byIdentity_.find(id);
    if (known != byIdentity_.end()) {
      int m = known->second;
      auto onStack = std::find(active_.begin(), active_.end(), m);
      // Python registers a package before it runs its __init__, so a package's __init__ that
      // imports its own submodules, which import each other through the package, is ordinary
      // Python (Liger-Kernel's ops/__init__.py); only a cycle of plain modules is an error.
      size_t from = static_cast<size_t>(onStack - active_.begin());
      if (onStack != active_.end() && !inFunction_ &&
          std::none_of(onStack, active_.end(),
                       [&](int a) { return graph_.modules[a].isPackage; }) &&
          std::none_of(enteredFromFunction_.begin() + static_cast<long>(from) + 1,
                       enteredFromFunction_.end(), [](bool b) { return b; }))
        reportCycle(from, at);
      return m;
    }
    SourceModule m;
    m.name = dotted;
    m.path = file;
    m.dir = dir;
    m.isPackage = isPackage;
    int index = static_cast<int>(graph_.modules.size());
    byIdentity_[id] = index;
    if (!file.empty()) {
      uint32_t fileIndex = sources_.loadFile(file);
      graph_.storage.push_back(parseModule(sources_, fileIndex));
      m.ast = graph_.storage.back().get();
      graph_.byFile[fileIndex] = index;
    }
    graph_.modules.push_back(std::move(m));
    if (!file.empty()) {
      activeImports_.push_back(at);
      scan(index, inFunction_);
      activeImports_.pop_back();
    }
    return index;
  }

  [[noreturn]] void reportCycle(size_t from, SourceLoc at) {
    // active_[from] ... active_.back() import each other in turn, and the last imports the first.
    std::string chain = "'" + displayName(active_[from]) + "' imports ";
    for (size_t i = from + 1; i < active_.size(); ++i)
      chain += "'" + displayName(active_[i]) + "', which imports ";
    chain += "'" + displayName(active_[from]) + "'";
    sources_.error(at, "circular import: " + chain);
  }

  std::string displayName(int m) const {
    const SourceModule &module = graph_.modules[m];
    return module.path.empty() ? module.name : module.path;
  }

  void recordMissing(SourceLoc loc, const std::string &name, const std::string &searched) {
    graph_.missingByLoc[keyOf(loc)] = static_cast<int>(graph_.missing.size());
    graph_.missing.push_back({loc, name, searched});
  }

  std::string searchedText(const std::vector<std::string> &dirs) const {
    std::string text;
    for (size_t i = 0; i < dirs.size(); ++i)
      text += (i ? ", " : "") + std::string("'") + dirs[i] + "'";
    return text;
  }

  /// `a.b.c` from the search path: each package on the way is loaded (Python runs their
  /// __init__ too). Returns the modules of each component, as far as they were found.
  std::vector<int> resolveAbsolute(const std::string &dotted, SourceLoc at) {
    std::vector<int> chain;
    size_t start = 0;
    while (start <= dotted.size()) {
      size_t dot = dotted.find('.', start);
      std::string part = dotted.substr(start, dot == std::string::npos ? dot : dot - start);
      int m = chain.empty() ? findTop(part, at) : findSub(chain.back(), part, at);
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

  void scanImport(int module, const ast::Stmt &stmt) {
    for (const ast::ImportAlias &alias : stmt.names) {
      std::string root = alias.name.substr(0, alias.name.find('.'));
      if (root == "triton")
        continue;
      std::vector<int> chain = resolveAbsolute(alias.name, alias.loc);
      if (chain.size() == componentCount(alias.name)) {
        // `import a.b` binds `a`; `import a.b as c` binds a.b.
        graph_.resolutions[keyOf(alias.loc)] = alias.asName.empty() ? chain.front() : chain.back();
      } else if (!isWellKnownModule(root)) {
        recordMissing(alias.loc, alias.name, searchedText(searchPath_));
      }
    }
    (void)module;
  }

  void scanImportFrom(int module, const ast::Stmt &stmt) {
    size_t level = stmt.module.find_first_not_of('.');
    if (level == std::string::npos)
      level = stmt.module.size();
    std::string dotted = stmt.module.substr(level);
    std::string root = dotted.substr(0, dotted.find('.'));
    if (level == 0 && root == "triton")
      return;
    int base = -1;
    std::string searched;
    if (level == 0) {
      std::vector<int> chain = resolveAbsolute(dotted, stmt.loc);
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
    for (const ast::StmtPtr &stmt : stmts) {
      switch (stmt->kind) {
      case ast::StmtKind::Import:
        scanImport(module, *stmt);
        break;
      case ast::StmtKind::ImportFrom:
        scanImportFrom(module, *stmt);
        break;
      case ast::StmtKind::If:
      case ast::StmtKind::For:
      case ast::StmtKind::While:
        scanStatements(module, stmt->body);
        scanStatements(module, stmt->orelse);
        break;
      case ast::StmtKind::FunctionDef: {
        // A Python function that module-level code calls may import inside its body
        // (`try: from transformers.utils import f except Exception: ...`).
        bool saved = inFunction_;
        inFunction_ = true;
        scanStatements(module, stmt->body);
        inFunction_ = saved;
        break;
      }
      case ast::StmtKind::Unsupported:
        if (stmt->name == "try statement") {
          scanStatements(module, stmt->body);
          for (const ast::ExceptHandler &handler : stmt->handlers)
            scanStatements(module, handler.body);
          scanStatements(module, stmt->orelse);
          scanStatements(module, stmt->finalbody);
        }
        break;
      default:
        break;
      }
    }
  }

  void scan(int module, bool fromFunction) {
    active_.push_back(module);
    enteredFromFunction_.push_back(fromFunction);
    // The module's own top level runs when it is imported, whatever imported it.
    bool saved = inFunction_;
    inFunction_ = false;
    // A pointer, not a reference into graph_.modules, which loading more modules may grow.
    const ast::Module *syntax = graph_.modules[module].ast;
    if (syntax)
      scanStatements(module, syntax->body);
    inFunction_ = saved;
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

std::vector<std::string> ModuleGraph::files() const {
  std::vector<std::string> result;
  for (const SourceModule &m : modules)
    if (!m.path.empty())
      result.push_back(m.path);
  return result;
}

std::unique_ptr<ModuleGraph> loadImports(SourceManager &sources, const ast::Module &main,
                                         const std::string &mainPath,
                                         const std::vector<std::string> &includeDirs) {
  auto graph = std::make_unique<ModuleGraph>();
  std::vector<std::string> searchPath = {parentDir(mainPath)};
  searchPath.insert(searchPath.end(), includeDirs.begin(), includeDirs.end());
  // A kernel file inside a package (src/pkg/ops/k.py, each folder with an __init__) imports its
  // package's other modules absolutely (`from pkg.utils import f`), as Python finds them when the
  // package is importable: the folder above the outermost package is searched last.
  std::string root = parentDir(mainPath);
  bool inPackage = false;
  while (isFile(joinPath(root, "__init__.py")) || isFile(joinPath(root, "__init__.tl"))) {
    inPackage = true;
    std::string up = (fs::path(identity(root)) / "..").lexically_normal().string();
    if (up == identity(root))
      break;
    root = up;
  }
  if (inPackage && std::none_of(searchPath.begin(), searchPath.end(), [&](const std::string &d) {
        return identity(d) == identity(root);
      }))
    searchPath.push_back(root);
  graph->searchPath = searchPath;
  Loader loader(sources, *graph, std::move(searchPath));
  loader.loadMain(main, mainPath);
  return graph;
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
