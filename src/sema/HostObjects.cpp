// In-place changes of the objects that Python functions of module-level code share, as Python
// makes them:
//
//   def get_configs():
//       configs = get_mm_configs()
//       for c in configs:
//           c.kwargs["SUBTILE"] = 1          # each Config of `configs` changes
//       return configs
//
// tilec's values are copied where Python's names share one object. Lists, dicts and
// triton.Config objects carry an identity (SemaValue::objectId) that every copy keeps; a change
// in place makes the changed value and stores it wherever the identity is held: in the names
// of every running function (callers included), inside other lists, dicts and configs, in the
// attributes of Python-class objects and in the variables closures read. An object that a
// module-level name holds is refused instead: tilec evaluates module-level names when first
// used, not in the order Python runs the statements, so other readers of the name would see the
// object before or after the change depending on that order. One exception, a memo cache: a
// function that returns `cache[key]` when `key in cache` and stores `cache[key] = value`
// otherwise (physicsnemo's OptionalImport keeps one instance per module name so) gives what
// it would compute whether or not an earlier call stored the key, so the order tilec runs the
// calls in does not change what they give; its store is kept in the module-level dict.
#include "sema/Specializer.h"

#include <algorithm>
#include <functional>
#include <set>

namespace tilec::sema {

using Kind = SemaValue::Kind;

namespace {

/// Whether `v` holds the object `id`, anywhere inside.
bool holdsObject(const SemaValue &v, uint64_t id, std::set<const void *> &visited) {
  if (v.objectId == id)
    return true;
  for (const SemaValue &element : v.elems)
    if (holdsObject(element, id, visited))
      return true;
  if (v.attributes && visited.insert(v.attributes.get()).second)
    for (const auto &[name, attribute] : *v.attributes)
      if (holdsObject(attribute, id, visited))
        return true;
  for (const auto *variables : {v.closure.get(), v.defaults.get()})
    if (variables && visited.insert(variables).second)
      for (const auto &[name, variable] : *variables)
        if (holdsObject(variable, id, visited))
          return true;
  return false;
}

/// Replaces every copy of `updated`'s object inside `v` with `updated`.
void replaceIn(SemaValue &v, const SemaValue &updated, std::set<const void *> &visited) {
  if (v.objectId == updated.objectId) {
    v = updated;
    return;
  }
  for (SemaValue &element : v.elems)
    replaceIn(element, updated, visited);
  if (v.attributes && visited.insert(v.attributes.get()).second)
    for (auto &[name, attribute] : *v.attributes)
      replaceIn(attribute, updated, visited);
  // A closure's variables are its maker's, which Python's closure reads when it runs; a
  // default is the object it was made with.
  for (const auto *variables : {v.closure.get(), v.defaults.get()})
    if (variables && visited.insert(variables).second)
      for (auto &[name, variable] : const_cast<std::map<std::string, SemaValue> &>(*variables))
        replaceIn(variable, updated, visited);
}

bool isList(const SemaValue &v) { return v.kind == Kind::Tuple && v.isList; }

bool isNameExpr(const ast::Expr &e, const std::string &name) {
  return e.kind == ast::ExprKind::Name && e.name == name;
}

/// Whether `e` is a name or a chain of attributes of one (`cache`, `Registry.cache`).
bool isReference(const ast::Expr &e) {
  if (e.kind == ast::ExprKind::Name)
    return true;
  return e.kind == ast::ExprKind::Attribute && isReference(*e.operands[0]);
}

/// Whether `a` and `b` are the same name or chain of attributes.
bool sameReference(const ast::Expr &a, const ast::Expr &b) {
  if (a.kind != b.kind || !isReference(a))
    return false;
  if (a.kind == ast::ExprKind::Name)
    return a.name == b.name;
  return a.name == b.name && sameReference(*a.operands[0], *b.operands[0]);
}

} // namespace

bool assignsName(const ast::StmtList &body, const std::string &name) {
  for (const ast::StmtPtr &stmt : body) {
    // The name itself or an element of a tuple target (`key, x = ...`); `d[key] = v` does not
    // rebind it.
    std::function<bool(const ast::Expr &)> binds = [&](const ast::Expr &target) {
      if (target.kind == ast::ExprKind::Tuple || target.kind == ast::ExprKind::List)
        return std::any_of(target.operands.begin(), target.operands.end(),
                           [&](const ast::ExprPtr &e) { return binds(*e); });
      return isNameExpr(target, name);
    };
    for (const ast::ExprPtr &target : stmt->targets)
      if (binds(*target) &&
          (stmt->kind == ast::StmtKind::Assign || stmt->kind == ast::StmtKind::AugAssign ||
           stmt->kind == ast::StmtKind::AnnAssign || stmt->kind == ast::StmtKind::For))
        return true;
    if (assignsName(stmt->body, name) || assignsName(stmt->orelse, name) ||
        assignsName(stmt->finalbody, name))
      return true;
    for (const ast::ExceptHandler &handler : stmt->handlers)
      if (assignsName(handler.body, name))
        return true;
  }
  return false;
}

bool isMemoCacheStore(const ast::Stmt &function, const ast::Expr &target) {
  if (target.kind != ast::ExprKind::Subscript || !isReference(*target.operands[0]) ||
      target.operands[1]->kind != ast::ExprKind::Name)
    return false;
  const ast::Expr &cache = *target.operands[0];
  const std::string &key = target.operands[1]->name;
  bool isParam = std::any_of(function.params.begin(), function.params.end(),
                             [&](const ast::Param &p) { return p.name == key; });
  if (!isParam || assignsName(function.body, key))
    return false;
  return std::any_of(function.body.begin(), function.body.end(), [&](const ast::StmtPtr &stmt) {
    if (stmt->kind != ast::StmtKind::If || !stmt->test)
      return false;
    const ast::Expr &test = *stmt->test;
    bool keyInCache = test.kind == ast::ExprKind::Compare && test.compareOps.size() == 1 &&
                      test.compareOps[0] == ast::CompareOperator::In &&
                      isNameExpr(*test.operands[0], key) && sameReference(*test.operands[1], cache);
    return keyInCache && !stmt->body.empty() && stmt->body.back()->kind == ast::StmtKind::Return;
  });
}

void Specializer::replaceObject(const SemaValue &updated, SourceLoc loc, bool memoCache) {
  std::set<const void *> visited;
  if (memoCache)
    for (ModuleState &state : modules_)
      for (auto &[name, value] : state.globals)
        replaceIn(value, updated, visited);
  if (memoCache)
    for (auto &[stmt, variable] : classVariables_)
      replaceIn(variable.value, updated, visited);
  visited.clear();
  auto refuse = [&](const std::string &holder) {
    error(loc, "this changes in place " + updated.describe() + " that " + holder +
                   " holds: tilec evaluates module-level names when first used, not in "
                   "the order Python runs the module, so its other readers could see it "
                   "before or after the change; not supported yet");
  };
  for (const ModuleState &state : modules_)
    for (const auto &[name, value] : state.globals)
      if (!memoCache && holdsObject(value, updated.objectId, visited))
        refuse("module-level '" + name + "'");
  for (const auto &[stmt, variable] : classVariables_)
    if (!memoCache && holdsObject(variable.value, updated.objectId, visited))
      refuse("class variable '" + variable.name + "'");
  visited.clear();
  for (Scope &scope : scopes_)
    for (auto &[name, value] : scope.names)
      replaceIn(value, updated, visited);
}

bool Specializer::assignInPlace(const ast::Expr &target, const SemaValue &value) {
  if (inKernelCode() || (moduleLevelDepth_ == 0 && hostCallDepth_ == 0))
    return false;
  if (target.kind == ast::ExprKind::Subscript) {
    const ast::Expr &indexExpr = *target.operands[1];
    SemaValue container = eval(*target.operands[0]);
    if (container.kind == Kind::Tuple && !container.isList)
      raisePython(*builtinExceptionClasses("TypeError"),
                  "'tuple' object does not support item assignment", target.loc);
    bool dict = container.kind == Kind::Object && container.name == kDictClass;
    if ((!dict && !isList(container)) || container.objectId == 0)
      return false;
    if (indexExpr.kind == ast::ExprKind::Slice)
      error(indexExpr.loc, "assigning to a slice of a list is not supported yet");
    SemaValue key = eval(indexExpr);
    SemaValue updated = container;
    if (dict) {
      if (key.kind == Kind::Tuple && key.isList)
        raisePython(*builtinExceptionClasses("TypeError"), "unhashable type: 'list'",
                    indexExpr.loc);
      if (key.kind == Kind::Object && key.name == kDictClass)
        raisePython(*builtinExceptionClasses("TypeError"), "unhashable type: 'dict'",
                    indexExpr.loc);
      dictInsert(updated, key, value);
    } else {
      if (key.kind != Kind::Int && key.kind != Kind::Bool)
        raisePython(*builtinExceptionClasses("TypeError"),
                    "list indices must be integers or slices, not " + key.describe(),
                    indexExpr.loc);
      int64_t size = static_cast<int64_t>(updated.elems.size());
      int64_t at = key.numberAsInt();
      if (at < 0)
        at += size;
      if (key.intIsWide || at < 0 || at >= size)
        raisePython(*builtinExceptionClasses("IndexError"), "list assignment index out of range",
                    indexExpr.loc);
      updated.elems[static_cast<size_t>(at)] = value;
    }
    replaceObject(updated, target.loc,
                  dict && !hostFunctions_.empty() &&
                      isMemoCacheStore(*hostFunctions_.back(), target));
    return true;
  }
  if (target.kind != ast::ExprKind::Attribute)
    return false;
  SemaValue object = eval(*target.operands[0]);
  if (object.kind != Kind::Object || object.name != kTritonConfigClass || object.objectId == 0)
    return false;
  // A triton.Config's fields, as the autotuner reads them; the options tilec does not read
  // (num_ctas, pre_hook) change nothing it compiles.
  SemaValue updated = object;
  if (target.name == "kwargs")
    updated.elems[0] = value;
  else if (target.name == "num_warps")
    updated.elems[1] = value;
  else if (target.name == "num_stages")
    updated.elems[2] = value;
  else if (target.name == "maxnreg")
    updated.elems[3] = value;
  else if (target.name != "num_ctas" && target.name != "pre_hook")
    error(target.loc, "setting triton.Config's attribute '" + target.name +
                          "' is not supported yet (kwargs, num_warps, num_stages, maxnreg, "
                          "num_ctas and pre_hook are)");
  replaceObject(updated, target.loc);
  return true;
}

bool Specializer::extendInPlace(const SemaValue &list, const SemaValue &items, SourceLoc loc) {
  if (!isList(list) || list.objectId == 0)
    return false;
  if (items.kind != Kind::Tuple)
    error(loc, "extending a list with " + items.describe() +
                   " is not supported yet (a tuple or a list is)");
  SemaValue updated = list;
  updated.elems.insert(updated.elems.end(), items.elems.begin(), items.elems.end());
  replaceObject(updated, loc);
  return true;
}

} // namespace tilec::sema
