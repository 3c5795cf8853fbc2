// Kernels split over several files: the modules a kernel file imports, found on disk and parsed.
//
//   import helpers            import helpers as h        from helpers import f
//   from .ops import f        from pkg.mod import f      from . import helpers
//
// Before sema runs, loadImports follows every module-level import of the kernel file (and of the
// files it imports, through `if` and `try` blocks) and finds those that name a file: NAME.tl,
// NAME.py, NAME/__init__.tl or NAME/__init__.py (a folder alone is a namespace package), searched
// in the kernel file's folder, then in each -I folder, then (for a kernel file inside a package)
// in the folder above its outermost package, as Python searches sys.path; relative imports are
// resolved against the importing file's package. triton itself is never looked up.
// Sema then resolves names through the graph: `h.f(x)` inlines helpers' @triton.jit function f in
// helpers' own namespace, `h.BLOCK` evaluates helpers' module-level constant.
//
// Modules are parsed lazily: a module that an import names is registered (name, file, package)
// at once, and parsed, with its own imports followed, only when something reads its namespace:
// a `from m import x` of a module that is parsed (Python reads m's names there), sema asking
// for one of m's names (ModuleGraph::ensureLoaded), or any import while an import inside a
// `try` runs (whether Python's import raises decides which branch runs). So the __init__ of
// each package on the way to a module (a library's __init__ that imports its whole host-side
// code) stays unread unless a kernel reads the package's names. What a module that nobody reads
// would do as Python runs it (raise, import in a cycle, call a function at module level) is not
// seen: tilec is more lenient there than Python, never different for the names it reads.
//
// An import that names no file is not an error by itself (`import torch` in a Triton .py file is
// host code): it is when a kernel uses a name it binds, reported at the import. Import cycles
// are Python's: a module imported again while it runs is the partially initialised module, so
// `import m` is fine and `from m import x` is Python's ImportError, at the import that closes the
// cycle, when m has not bound x yet (a cycle through a package's __init__, or one an import inside
// a function or a `try` block closes, is not checked). The imports under `if TYPE_CHECKING:` are
// not followed: Python never runs them.
#pragma once

#include "frontend/AST.h"
#include "frontend/SourceManager.h"

#include <algorithm>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <string>
#include <tuple>
#include <vector>

namespace tilec::sema {

/// One loaded module. modules[0] of a graph is the kernel file itself.
struct SourceModule {
  std::string name; // dotted, as imported ("helpers", "pkg.mod")
  std::string path; // the file read; empty for a namespace package
  std::string dir;  // a package's folder (where its submodules are)
  bool isPackage = false;
  const ast::Module *ast = nullptr;      // null for a namespace package, or until loaded
  std::map<std::string, int> submodules; // found submodules by their last name
  bool loaded = false;                   // parsed and its imports followed (see ensureLoaded)
};

/// Parses a registered module and follows its imports (loadImports' loader).
class ModuleLoader {
public:
  virtual ~ModuleLoader() = default;
  virtual void load(int module) = 0;
  /// The submodule `name` of package `parent` found on disk (registered unread), or -1.
  virtual int findSubmodule(int parent, const std::string &name) = 0;
};

/// An import that named no file, for the error a kernel gets when it uses what it binds.
struct MissingImport {
  SourceLoc loc;
  std::string name;     // as written, leading dots included
  std::string searched; // where tilec looked, for the message
  // A triton module that Triton 3.6 does not have: Python's error message, in place of the
  // search of the folders.
  std::string message;
};

class ModuleGraph {
public:
  // A deque: loading a module registers more, and references to the others stay valid.
  std::deque<SourceModule> modules;
  std::vector<MissingImport> missing;

  /// Parses module `index` and follows its imports, once; returns its syntax (null for a
  /// namespace package). Reports its parse errors and import cycles (throws CompileError).
  /// Const: what the graph says about modules already loaded does not change.
  const ast::Module *ensureLoaded(int index) const;
  /// The submodule `name` of package `index`, found on disk and registered unread if no import
  /// that tilec read named it, or -1. Python has it as an attribute only when some import of
  /// the program imported it, perhaps one in a module tilec did not read.
  int findSubmodule(int index, const std::string &name) const;

  /// The module loaded from SourceManager file `file`, or -1.
  int moduleOfFile(uint32_t file) const;
  /// What the import (alias or `from` statement) at `loc` resolved to: a module index, or
  /// -1 (not a file; see missingAt).
  int resolved(SourceLoc loc) const;
  /// The MissingImport index for the import at `loc`, or -1.
  int missingAt(SourceLoc loc) const;
  /// Python's ImportError message when the import at `loc`, inside a `try`, raises one as the
  /// module runs: an import cycle it starts reaches a module that has not bound the name asked
  /// for yet. Null when it does not.
  const std::string *failureAt(SourceLoc loc) const;

  /// Every file parsed, the kernel file first, in the order they were found, then the data files
  /// that module-level code opened (recordDataFile).
  std::vector<std::string> files() const;
  /// A file that module-level code read (`with open(path) as f: json.load(f)`): a dependency of
  /// the output as an imported module is.
  void recordDataFile(const std::string &path) const {
    if (std::find(dataFiles_.begin(), dataFiles_.end(), path) == dataFiles_.end())
      dataFiles_.push_back(path);
  }
  /// Whether `import dotted` would find a file or a folder along the search path (for
  /// importlib.util.find_spec), loaded or not.
  bool findsModule(const std::string &dotted) const;

  /// The folders imports are searched in, in order.
  std::vector<std::string> searchPath;

  // Filled by loadImports.
  using LocKey = std::tuple<uint32_t, uint32_t, uint32_t>;
  std::map<uint32_t, int> byFile;
  std::map<LocKey, int> resolutions;
  std::map<LocKey, int> missingByLoc;
  std::map<LocKey, std::string> failuresByLoc;
  std::vector<std::unique_ptr<ast::Module>> storage;
  std::unique_ptr<ModuleLoader> loader;

private:
  mutable std::vector<std::string> dataFiles_;
};

/// Whether module-level Python that tilec evaluates may take the top-level module `root` as
/// installed although no file of it is on the search path (the standard library, torch, numpy,
/// triton). Any other module without a file raises ModuleNotFoundError when a Python function
/// called at module level imports it, as on a host where it is not installed.
bool isAlwaysInstalled(const std::string &root);

/// Finds the modules that `main` (parsed from `mainPath`) imports, transitively, and parses
/// those that its imports read (see above; the graph parses the others when asked, so `sources`
/// must outlive it). `includeDirs` are the -I folders, searched after the kernel file's folder.
/// `references` are the dotted names that signatures and -D give (MODULE.QUALNAME of a
/// function): the modules they name along the search path are found too, as the host that
/// passes such a function imported them. Reports parse errors of parsed files and import cycles
/// through `sources` (throws CompileError).
std::unique_ptr<ModuleGraph> loadImports(SourceManager &sources, const ast::Module &main,
                                         const std::string &mainPath,
                                         const std::vector<std::string> &includeDirs,
                                         const std::vector<std::string> &references = {});

} // namespace tilec::sema
