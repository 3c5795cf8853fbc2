// Plain Python classes of module-level code: a class with an __init__ that stores attributes on
// self (GaLore's own copy of triton.Config, used as `Config({...}, num_warps=4)` in an autotune
// list), or a @dataclass (ROCm aiter's `GpuArch(name=..., is_cdna=...)` picking configs).
// tilec evaluates them as Python does where their bodies are plain: calling the class makes an
// object and runs __init__ (or the dataclass's generated one, then __post_init__) on it; an
// attribute of the object is what __init__ stored, else the class body's method (bound to the
// object), property or class variable; methods are Python functions that tilec runs.
//
// A class may also define __new__ (called before __init__, which runs where __new__ returns an
// object of the class) and __getattr__ (asked for what the object and its class lack), calling
// `object.__new__(cls)`, `object.__getattribute__` and `object.__setattr__` to reach the object
// itself: physicsnemo's OptionalImport, a lazy module proxy (`triton = OptionalImport("triton")`,
// then `tl = triton.language`), is such a class.
//
// A class with bases (other than `object`), a metaclass or decorators other than dataclass is
// not such a class: it stays refused where it is used. Objects are shared, as Python's are: a
// SemaValue copy of one refers to the same attributes, so `self.x = v` in a method is seen by
// every holder.
#include "sema/Specializer.h"

#include <algorithm>

namespace tilec::sema {

using Kind = SemaValue::Kind;

namespace {

bool isDataclassDecorator(const ast::Expr &decorator) {
  const ast::Expr &callee =
      decorator.kind == ast::ExprKind::Call ? *decorator.operands[0] : decorator;
  std::string name = dottedName(callee);
  return name == "dataclass" || name == "dataclasses.dataclass";
}

/// `@dataclass(frozen=True)`.
bool isFrozenDataclass(const ast::Stmt &cls) {
  for (const ast::ExprPtr &decorator : cls.decorators) {
    if (decorator->kind != ast::ExprKind::Call)
      continue;
    for (const ast::Keyword &keyword : decorator->keywords)
      if (keyword.name == "frozen" && keyword.value->kind == ast::ExprKind::BoolLit)
        return keyword.value->boolValue;
  }
  return false;
}

bool isDataclass(const ast::Stmt &cls) {
  return !cls.decorators.empty() &&
         std::all_of(cls.decorators.begin(), cls.decorators.end(),
                     [](const ast::ExprPtr &d) { return isDataclassDecorator(*d); });
}

/// The last definition of method `name` in a class body, if any.
const ast::Stmt *classMethod(const ast::Stmt &cls, const std::string &name) {
  const ast::Stmt *found = nullptr;
  for (const ast::StmtPtr &member : cls.body)
    if (member->kind == ast::StmtKind::FunctionDef && member->name == name)
      found = member.get();
  return found;
}

bool hasDecorator(const ast::Stmt &def, const char *name) {
  return std::any_of(def.decorators.begin(), def.decorators.end(),
                     [&](const ast::ExprPtr &d) { return dottedName(*d) == name; });
}

std::string className(const ast::Stmt &cls) { return cls.targets[0]->name; }

} // namespace

bool isPythonClass(const ast::Stmt &stmt) {
  if (stmt.kind != ast::StmtKind::Unsupported || stmt.name != "class definition" ||
      stmt.targets.empty() || isNamedTupleClass(stmt) || isJitNamespaceClass(stmt))
    return false;
  // No base but `object`, and no metaclass (a keyword of the bases' call).
  if (stmt.value) {
    if (!stmt.value->keywords.empty())
      return false;
    for (const ast::ExprPtr &base : stmt.value->operands)
      if (dottedName(*base) != "object")
        return false;
  }
  bool decorated = !stmt.decorators.empty();
  if (decorated && !isDataclass(stmt))
    return false;
  return decorated || classMethod(stmt, "__init__") || classMethod(stmt, "__new__");
}

SemaValue Specializer::pythonClass(const ast::Stmt &cls) {
  SemaValue value = SemaValue::ofBuiltin(std::string(kPythonClass) + className(cls));
  value.function = &cls;
  return value;
}

bool isPythonObject(const SemaValue &value) {
  return value.kind == Kind::Object && value.attributes && value.function;
}

namespace {

/// A new object of `cls` with no attributes: what `object.__new__(cls)` makes.
SemaValue newPythonObject(const ast::Stmt &cls) {
  SemaValue object;
  object.kind = Kind::Object;
  object.name = std::string(kPythonObjectClass) + className(cls);
  object.function = &cls;
  object.attributes = std::make_shared<std::map<std::string, SemaValue>>();
  return object;
}

} // namespace

SemaValue Specializer::constructPythonObject(const ast::Stmt &cls, CallArgs &args) {
  const ast::Stmt *init = classMethod(cls, "__init__");
  // __init__(self, *args) on the new object, which must return None.
  auto initialise = [&](const SemaValue &object) {
    CallArgs withSelf = args;
    withSelf.positional.insert(withSelf.positional.begin(), object);
    SemaValue result = callHostFunction(*init, withSelf);
    if (!result.isNone())
      raisePython(*builtinExceptionClasses("TypeError"),
                  "__init__() should return None, not " + result.describe(), args.loc);
    return object;
  };
  if (const ast::Stmt *newMethod = classMethod(cls, "__new__")) {
    // Python calls cls.__new__(cls, *args), then __init__ on what it returns when that is an
    // object of the class (a cached instance too, which __init__ then sees again).
    CallArgs withClass = args;
    withClass.positional.insert(withClass.positional.begin(), pythonClass(cls));
    SemaValue object = callHostFunction(*newMethod, withClass);
    if (!init || !isPythonObject(object) || object.function != &cls)
      return object;
    return initialise(object);
  }
  SemaValue object = newPythonObject(cls);
  if (!init && isDataclass(cls)) {
    // The generated __init__(self, field0, field1=default, ...): the annotated names of the body,
    // bound as a NamedTuple's are; then __post_init__, where the class has one.
    SemaValue fields = constructNamedTuple(cls, args);
    std::vector<NamedTupleField> names = namedTupleFields(cls);
    for (size_t i = 0; i < names.size(); ++i)
      (*object.attributes)[names[i].name] = fields.elems[i];
    if (const ast::Stmt *post = classMethod(cls, "__post_init__")) {
      CallArgs self{{object}, {}, args.loc};
      callHostFunction(*post, self);
    }
    return object;
  }
  if (!init) {
    if (!args.positional.empty() || !args.keywords.empty())
      raisePython(*builtinExceptionClasses("TypeError"), className(cls) + "() takes no arguments",
                  args.loc);
    return object;
  }
  return initialise(object);
}

std::optional<SemaValue> Specializer::pythonClassAttribute(const SemaValue &value,
                                                           const std::string &attr, SourceLoc loc,
                                                           bool withGetattr) {
  if (value.kind == Kind::Builtin && value.name == "py.object") {
    if (attr != "__new__" && attr != "__getattribute__" && attr != "__setattr__")
      error(loc, "'object." + attr +
                     "': tilec has object.__new__, object.__getattribute__ and "
                     "object.__setattr__ of Python's object; not supported yet");
    return SemaValue::ofBuiltin("py.object." + attr);
  }
  const bool instance = isPythonObject(value);
  const bool isClass = value.kind == Kind::Builtin && value.function &&
                       value.name.rfind(kPythonClass, 0) == 0;
  if (!instance && !isClass)
    return std::nullopt;
  if (instance) {
    auto stored = value.attributes->find(attr);
    if (stored != value.attributes->end())
      return stored->second;
  }
  const ast::Stmt &cls = *value.function;
  if (attr == "__name__")
    return SemaValue::ofString(className(cls));
  // The class body's last binding of the name, as Python runs the body in order.
  const ast::Stmt *found = nullptr;
  for (const ast::StmtPtr &member : cls.body) {
    if (member->kind == ast::StmtKind::FunctionDef && member->name == attr)
      found = member.get();
    if (member->kind == ast::StmtKind::Assign || member->kind == ast::StmtKind::AnnAssign)
      for (const ast::ExprPtr &target : member->targets)
        if (target->kind == ast::ExprKind::Name && target->name == attr && member->value)
          found = member.get();
  }
  if (!found && instance && withGetattr)
    if (const ast::Stmt *getattr = classMethod(cls, "__getattr__")) {
      // Python asks __getattr__ for what the object and its class lack.
      CallArgs selfAndName{{value, SemaValue::ofString(attr)}, {}, loc};
      return callClassMethod(*getattr, selfAndName);
    }
  if (!found)
    raisePython(*builtinExceptionClasses("AttributeError"),
                (instance ? "'" + className(cls) + "' object" : "type object '" + className(cls) +
                                                                    "'") +
                    " has no attribute '" + attr + "'",
                loc);
  if (found->kind != ast::StmtKind::FunctionDef) {
    // A class variable: its value, evaluated in the module that defines the class (a class
    // body's own earlier names are not in scope here: an error, not another value).
    // Python evaluates it once, when the class body runs: every reader shares the object (a
    // dict that `C.cache[key] = value` changes), so it is kept once evaluated.
    auto kept = classVariables_.find(found);
    if (kept != classVariables_.end())
      return kept->second.value;
    int module = graph_ ? graph_->moduleOfFile(cls.loc.file) : -1;
    SemaValue variable;
    if (module < 0 || static_cast<size_t>(module) == current_) {
      variable = atImport([&] { return evalModuleLevel(*found->value); });
    } else {
      ModuleSwitch in(*this, static_cast<size_t>(module), /*newScope=*/true);
      variable = atImport([&] { return evalModuleLevel(*found->value); });
    }
    classVariables_.emplace(found, ClassVariable{className(cls) + "." + attr, variable});
    return variable;
  }
  SemaValue function = SemaValue::ofBuiltin("pyfunc:" + attr);
  function.function = found;
  if (hasDecorator(*found, "staticmethod") || !instance)
    return function;
  if (hasDecorator(*found, "property")) {
    CallArgs self{{value}, {}, loc};
    return callClassMethod(*found, self);
  }
  if (!found->decorators.empty())
    error(loc, "'" + className(cls) + "." + attr +
                   "' is decorated: tilec calls plain methods, @staticmethod and @property ones "
                   "of a class; not supported yet");
  // A bound method: the function with the object as its first argument.
  SemaValue bound = SemaValue::ofBuiltin(kPartialObject);
  bound.elems = {function, SemaValue::ofTuple({value}), SemaValue::ofTuple({})};
  return bound;
}

SemaValue Specializer::callClassMethod(const ast::Stmt &method, CallArgs &args) {
  if (!inKernelCode())
    return callHostFunction(method, args);
  // A kernel reads `obj.attr` of a module-level object (`tl = Lazy("triton.language")`, then
  // `tl.arange(...)` in the kernel): Triton's code generator asks Python for it, which runs the
  // class's __getattr__ or property as any Python code, calling other Python functions too.
  ++moduleLevelDepth_;
  try {
    SemaValue result = callHostFunction(method, args);
    --moduleLevelDepth_;
    return result;
  } catch (...) {
    --moduleLevelDepth_;
    throw;
  }
}

SemaValue Specializer::callObjectMethod(const std::string &method, CallArgs &args) {
  const std::vector<SemaValue> &a = args.positional;
  size_t arity = method == "__new__" ? 1 : method == "__getattribute__" ? 2 : 3;
  if (!args.keywords.empty() || a.size() != arity)
    raisePython(*builtinExceptionClasses("TypeError"),
                "object." + method + "() takes " + std::to_string(arity) + " positional argument" +
                    (arity == 1 ? "" : "s"),
                args.loc);
  if (method == "__new__") {
    const bool isClass =
        a[0].kind == Kind::Builtin && a[0].function && a[0].name.rfind(kPythonClass, 0) == 0;
    if (!isClass)
      error(args.loc, "object.__new__ of " + a[0].describe() +
                          ": tilec makes objects of the module's plain Python classes only");
    return newPythonObject(*a[0].function);
  }
  if (!isPythonObject(a[0]))
    error(args.loc, "object." + method + " of " + a[0].describe() +
                        ": tilec reaches the attributes of its plain Python classes' objects only");
  if (a[1].kind != Kind::String)
    raisePython(*builtinExceptionClasses("TypeError"),
                "attribute name must be string, not " + a[1].describe(), args.loc);
  if (method == "__getattribute__")
    return *pythonClassAttribute(a[0], a[1].name, args.loc, /*withGetattr=*/false);
  (*a[0].attributes)[a[1].name] = a[2];
  return SemaValue::none();
}

bool Specializer::assignPythonObjectAttribute(const ast::Expr &target, const SemaValue &value) {
  if (target.kind != ast::ExprKind::Attribute || (moduleLevelDepth_ == 0 && hostCallDepth_ == 0))
    return false;
  SemaValue object = eval(*target.operands[0]);
  if (!isPythonObject(object))
    return false;
  if (isFrozenDataclass(*object.function))
    raisePython(libraryExceptionClasses("FrozenInstanceError", "AttributeError"),
                "cannot assign to field '" + target.name + "'", target.loc);
  (*object.attributes)[target.name] = value;
  return true;
}

} // namespace tilec::sema
