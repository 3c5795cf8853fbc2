// typing.NamedTuple classes in kernels, as Triton 3.6 has them: a module-level
// `class Tensor(NamedTuple)` with annotated fields is called in a kernel to make a tuple whose
// elements its fields name (Tensor(ptr=p, shape=s, stride=t).shape), and a kernel argument may
// be one (the signature entry `Tensor(*fp32:16,(32,32),(32,1))`; Triton's JIT keeps the class
// of a namedtuple argument in its signature, and tl.tuple_type its fields).
//
// A namedtuple is a SemaValue Tuple whose `function` is the class statement and whose `name`
// is the class's name: everything that works on tuples (indexing, unpacking, len, passing to
// functions) works on it unchanged, and its fields are read by name from the class.
#include "sema/Specializer.h"

namespace tilec::sema {

using Kind = SemaValue::Kind;

namespace {

/// Whether one of a class statement's bases is typing.NamedTuple (`NamedTuple`,
/// `typing.NamedTuple`): the parser keeps the bases as the operands of a call in `value`.
bool hasNamedTupleBase(const ast::Stmt &cls) {
  if (!cls.value)
    return false;
  for (size_t i = 0; i < cls.value->operands.size(); ++i) {
    const ast::Expr &base = *cls.value->operands[i];
    bool named = (base.kind == ast::ExprKind::Name || base.kind == ast::ExprKind::Attribute) &&
                 base.name == "NamedTuple";
    if (named)
      return true;
  }
  return false;
}

} // namespace

bool isNamedTupleClass(const ast::Stmt &stmt) {
  return stmt.kind == ast::StmtKind::Unsupported && stmt.name == "class definition" &&
         !stmt.targets.empty() && hasNamedTupleBase(stmt);
}

std::vector<NamedTupleField> namedTupleFields(const ast::Stmt &cls) {
  // The annotated names of the class body, in order (`ptr: any`, `n: int = 0`); methods and
  // other statements are not fields.
  std::vector<NamedTupleField> fields;
  for (const ast::StmtPtr &stmt : cls.body)
    if (stmt->kind == ast::StmtKind::AnnAssign && stmt->targets.size() == 1 &&
        stmt->targets[0]->kind == ast::ExprKind::Name)
      fields.push_back({stmt->targets[0]->name, stmt->value.get()});
  return fields;
}

SemaValue Specializer::namedTupleClass(const ast::Stmt &cls) {
  SemaValue value = SemaValue::ofBuiltin(std::string(kNamedTupleClass) + cls.targets[0]->name);
  value.function = &cls;
  return value;
}

SemaValue Specializer::constructNamedTuple(const ast::Stmt &cls, CallArgs &args) {
  // Python's generated __new__(cls, field0, field1=default, ...): positional, then by keyword,
  // then the defaults the class gives.
  const std::string &className = cls.targets[0]->name;
  std::vector<NamedTupleField> fields = namedTupleFields(cls);
  if (args.positional.size() > fields.size())
    error(args.loc, className + "() takes " + std::to_string(fields.size()) + " arguments but " +
                        std::to_string(args.positional.size()) + " were given");
  std::vector<std::optional<SemaValue>> bound(fields.size());
  for (size_t i = 0; i < args.positional.size(); ++i)
    bound[i] = args.positional[i];
  for (const auto &[keyword, value] : args.keywords) {
    auto field = std::find_if(fields.begin(), fields.end(),
                              [&](const NamedTupleField &f) { return f.name == keyword; });
    if (field == fields.end())
      error(args.loc, className + "() got an unexpected keyword argument '" + keyword + "'");
    size_t index = static_cast<size_t>(field - fields.begin());
    if (bound[index])
      error(args.loc, className + "() got multiple values for argument '" + keyword + "'");
    bound[index] = value;
  }
  std::vector<SemaValue> elems;
  for (size_t i = 0; i < fields.size(); ++i) {
    if (bound[i]) {
      elems.push_back(*bound[i]);
      continue;
    }
    if (!fields[i].defaultValue)
      error(args.loc, className + "() missing required argument '" + fields[i].name + "'");
    elems.push_back(evalModuleLevel(*fields[i].defaultValue));
  }
  SemaValue tuple = SemaValue::ofTuple(std::move(elems));
  tuple.name = className;
  tuple.function = &cls;
  return tuple;
}

std::optional<SemaValue> Specializer::namedTupleField(const SemaValue &tuple,
                                                      const std::string &attr) {
  if (tuple.kind != Kind::Tuple || !tuple.function)
    return std::nullopt;
  std::vector<NamedTupleField> fields = namedTupleFields(*tuple.function);
  for (size_t i = 0; i < fields.size() && i < tuple.elems.size(); ++i)
    if (fields[i].name == attr)
      return tuple.elems[i];
  if (attr == "_fields") {
    std::vector<SemaValue> names;
    for (const NamedTupleField &field : fields)
      names.push_back(SemaValue::ofString(field.name));
    return SemaValue::ofTuple(std::move(names));
  }
  return std::nullopt;
}

void Specializer::bindNamedTupleClasses(SemaValue &value, SourceLoc loc) {
  if (value.kind != Kind::Tuple)
    return;
  for (SemaValue &element : value.elems) {
    // A function named by a dotted name in a tuple (a namedtuple of a function and its
    // arguments) resolves as a whole entry's does.
    if (element.kind == Kind::Object && element.name == kFunctionReferenceClass) {
      element = resolveFunctionReference(element.elems.at(0).name, loc);
      continue;
    }
    bindNamedTupleClasses(element, loc);
  }
  if (value.name.empty() || value.function)
    return;
  SemaValue cls = lookup(value.name, loc);
  if (cls.kind != Kind::Builtin || cls.name.rfind(kNamedTupleClass, 0) != 0 || !cls.function)
    error(loc, "the signature's '" + value.name + "(...)' names " + cls.describe() +
                   ", not a typing.NamedTuple class of the kernel's module");
  size_t fields = namedTupleFields(*cls.function).size();
  if (fields != value.elems.size())
    error(loc, "the signature gives " + std::to_string(value.elems.size()) + " elements for '" +
                   value.name + "', which has " + std::to_string(fields) + " fields");
  value.function = cls.function;
}

} // namespace tilec::sema
