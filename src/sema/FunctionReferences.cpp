// Constexpr arguments whose value is a function.
//
// Triton's JIT takes any Python object for a tl.constexpr parameter; tests and libraries pass
// functions: `kernel[grid](out, func=tl.extra.cuda.globaltimer)` (Triton's test_globaltimer), an
// activation @triton.jit function (`ACTIVATION=relu`), which the kernel calls as `func(x)`. A
// signature entry or a -D value names such a function by a dotted name:
//
//   tl.extra.cuda.globaltimer            an expression of the kernel's module: a name the module
//   helpers.relu, relu_alias.fn          binds (an import, a function), then attributes
//   triton.language.extra.cuda.globaltimer
//   triton.language.extra.cuda.utils.globaltimer
//                                        a module path of triton, then the function's name
//   activations.relu                     a module the kernel file imports, then the name
//   test_core.relu, __main__.relu        MODULE.QUALNAME (the function's __module__ and
//   test_x.<locals>.act                  __qualname__, what a host program can print): any
//   pkg.test_core.test_x.<locals>.act    module path naming no other module is the kernel's own
//                                        file, whatever the host imported it as
//
// A bare word (`relu`) stays a string, as it always was (`ACTIVATION: tl.constexpr` compared
// with "relu"): a function needs its module, `__main__.relu` for the kernel's own file.
#include "sema/Specializer.h"

#include <functional>

namespace tilec::sema {

namespace {

std::vector<std::string> splitDots(const std::string &text) {
  std::vector<std::string> parts;
  size_t start = 0;
  for (;;) {
    size_t dot = text.find('.', start);
    parts.push_back(text.substr(start, dot == std::string::npos ? std::string::npos : dot - start));
    if (dot == std::string::npos)
      return parts;
    start = dot + 1;
  }
}

bool isIdentifierPart(const std::string &part) {
  if (part.empty() || !(std::isalpha(static_cast<unsigned char>(part[0])) || part[0] == '_'))
    return false;
  for (char c : part)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_')
      return false;
  return true;
}

std::string joinDots(const std::vector<std::string> &parts, size_t from, size_t to) {
  std::string text;
  for (size_t i = from; i < to; ++i)
    text += (i == from ? "" : ".") + parts[i];
  return text;
}

/// The @triton.jit function (or any function) of `module` whose qualified name, without its
/// `<locals>` parts, is `path`: module-level, in a class, or defined inside functions.
const ast::Stmt *findQualifiedFunction(const ast::Module &module,
                                       const std::vector<std::string> &path) {
  const ast::Stmt *found = nullptr;
  std::function<void(const ast::StmtList &, size_t)> search = [&](const ast::StmtList &body,
                                                                  size_t depth) {
    for (const ast::StmtPtr &st : body) {
      if (found)
        return;
      // The AST keeps no class names: a class matches any enclosing name of the path.
      bool isClass = st->kind == ast::StmtKind::Unsupported && st->name == "class definition";
      if (isClass && depth + 1 < path.size()) {
        search(st->body, depth + 1);
        continue;
      }
      if (st->kind == ast::StmtKind::FunctionDef) {
        if (st->name != path[depth])
          continue;
        if (depth + 1 == path.size()) {
          if (isJitDefinition(*st))
            found = st.get();
          return;
        }
        search(st->body, depth + 1);
        continue;
      }
      // Definitions under module-level `if`s and `try`s.
      search(st->body, depth);
      search(st->orelse, depth);
      for (const ast::ExceptHandler &h : st->handlers)
        search(h.body, depth);
      search(st->finalbody, depth);
    }
  };
  search(module.body, 0);
  return found;
}

} // namespace

bool isFunctionReferenceText(const std::string &text) {
  std::vector<std::string> parts = splitDots(text);
  if (parts.size() < 2)
    return false;
  for (size_t i = 0; i < parts.size(); ++i)
    if (!isIdentifierPart(parts[i]) && !(parts[i] == "<locals>" && i > 0 && i + 1 < parts.size()))
      return false;
  return true;
}

SemaValue functionReference(const std::string &text) {
  SemaValue reference;
  reference.kind = SemaValue::Kind::Object;
  reference.name = kFunctionReferenceClass;
  reference.elems = {SemaValue::ofString(text)};
  return reference;
}

SemaValue Specializer::resolveFunctionReference(const std::string &text, SourceLoc loc) {
  const std::vector<std::string> parts = splitDots(text);
  auto walk = [&](SemaValue value, size_t from) {
    for (size_t i = from; i < parts.size(); ++i)
      value = attribute(value, parts[i], loc);
    return value;
  };
  bool hasLocals = text.find("<locals>") != std::string::npos;
  // 1. An expression of the kernel's module: `tl.extra.cuda.globaltimer`, `helpers.relu`.
  const std::string &root = parts[0];
  if (!hasLocals && (mod().globals.count(root) || mod().pending.count(root) ||
                     mod().imported.count(root) || mod().conditional.count(root)))
    return walk(lookup(root, loc), 1);
  // 2. A module path of triton's (`triton.language.extra.cuda.utils.globaltimer`).
  if (!hasLocals && root == "triton")
    return walk(SemaValue::ofModule("triton"), 1);
  // 3. A module the kernel file imports, or one that loadImports loaded for the reference, by
  //    its dotted name, then the function's name.
  if (!hasLocals && graph_)
    for (size_t k = parts.size() - 1; k >= 1; --k) {
      std::string modulePath = joinDots(parts, 0, k);
      for (size_t index = 1; index < graph_->modules.size(); ++index)
        if (graph_->modules[index].name == modulePath)
          return walk(userModuleAttribute(static_cast<int>(index), parts[k], loc), k + 1);
    }
  // 4. MODULE.QUALNAME of the kernel's own file, under whatever name its host imported it.
  for (size_t k = 1; k < parts.size(); ++k) {
    std::vector<std::string> path;
    for (size_t i = k; i < parts.size(); ++i)
      if (parts[i] != "<locals>")
        path.push_back(parts[i]);
    if (path.size() == 1 && (mod().globals.count(path[0]) || mod().pending.count(path[0]) ||
                             mod().imported.count(path[0]) || mod().conditional.count(path[0])))
      return lookup(path[0], loc);
    if (const ast::Stmt *def = findQualifiedFunction(*mod().ast, path))
      return SemaValue::ofJitFunction(def);
  }
  // A member of a module-level class that tilec does not evaluate (an Enum's member, as apex's
  // `MODEL_COMPUTE_DTYPE=_DTypeEnum.BF16`): the class is what is missing, not a function.
  if (!hasLocals && parts.size() >= 2) {
    const ast::Stmt *classStmt = nullptr;
    forEachModuleLevelStatement(mod().ast->body, [&](const ast::Stmt &stmt, bool) {
      if (!classStmt && stmt.kind == ast::StmtKind::Unsupported &&
          stmt.name == "class definition" && !stmt.targets.empty() && stmt.targets[0]->name == root)
        classStmt = &stmt;
    });
    if (classStmt)
      refuseClass(*classStmt, root, loc);
  }
  error(loc, "cannot find the function '" + text +
                 "': name it as an expression of the kernel's module (tl.extra.cuda.globaltimer, "
                 "helpers.relu), by triton's module path, or as MODULE.QUALNAME of the kernel's "
                 "file or of a module it imports or that the search path (-I) finds "
                 "(__main__.relu, test_x.<locals>.act)");
}

} // namespace tilec::sema
