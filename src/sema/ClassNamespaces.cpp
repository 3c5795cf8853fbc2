// Classes that hold @triton.jit functions, as namespaces: trident (kakaobrain) writes its
// kernels and helpers as static methods (`class GELU: @staticmethod @triton.jit def
// forward(x)`) and a kernel calls them through the module (`language.math.GELU.forward(x)`).
// Triton's code generator reads such an attribute chain with getattr on the class object and
// calls the JITFunction it finds; a star import (`from .gelu import *`) exports the class.
//
// A class is bound at module level when its body (or a nested class's) defines a @triton.jit
// function: a Builtin whose name is kJitNamespaceClass and the class's name, and whose
// `function` is the class statement. Its attributes are its @triton.jit functions and nested
// classes; anything else of a class body (methods run by the host, class variables) is not
// modelled and is refused where a kernel reads it.
#include "sema/Specializer.h"

namespace tilec::sema {

namespace {

bool isClassDefinition(const ast::Stmt &stmt) {
  return stmt.kind == ast::StmtKind::Unsupported && stmt.name == "class definition" &&
         !stmt.targets.empty();
}

} // namespace

bool isJitNamespaceClass(const ast::Stmt &stmt) {
  if (!isClassDefinition(stmt) || isNamedTupleClass(stmt))
    return false;
  for (const ast::StmtPtr &member : stmt.body)
    if ((member->kind == ast::StmtKind::FunctionDef && isJitDefinition(*member)) ||
        isJitNamespaceClass(*member))
      return true;
  return false;
}

SemaValue Specializer::jitNamespaceClass(const ast::Stmt &cls) {
  SemaValue value = SemaValue::ofBuiltin(std::string(kJitNamespaceClass) + cls.targets[0]->name);
  value.function = &cls;
  return value;
}

std::optional<SemaValue>
Specializer::jitNamespaceAttribute(const SemaValue &cls, const std::string &attr, SourceLoc loc) {
  if (cls.kind != SemaValue::Kind::Builtin || !cls.function ||
      cls.name.rfind(kJitNamespaceClass, 0) != 0)
    return std::nullopt;
  const std::string className = cls.name.substr(std::string(kJitNamespaceClass).size());
  // The last binding of the name in the class body wins, as Python runs the body in order.
  const ast::Stmt *found = nullptr;
  bool other = false;
  for (const ast::StmtPtr &member : cls.function->body) {
    if (member->kind == ast::StmtKind::FunctionDef && member->name == attr) {
      found = member.get();
      other = !isJitDefinition(*member);
    } else if (isClassDefinition(*member) && member->targets[0]->name == attr) {
      found = member.get();
      other = !isJitNamespaceClass(*member);
    }
  }
  if (!found)
    error(loc, "class '" + className + "' has no @triton.jit function or class named '" + attr +
                   "' (tilec reads only those of a class body)");
  if (other)
    error(loc, "'" + className + "." + attr +
                   "' is not a @triton.jit function: a kernel can only call the @triton.jit "
                   "functions of a class");
  if (found->kind == ast::StmtKind::FunctionDef)
    return SemaValue::ofJitFunction(found);
  return jitNamespaceClass(*found);
}

} // namespace tilec::sema
