// Values of module-level Python that tilec cannot know ahead of time: what the host that runs
// the kernels would answer but a compiler for an architecture cannot (the GPU's name,
// torch.cuda.get_device_name(), differs between GPUs of one architecture).
//
// Such a value is not an error where it is made: projects combine it with what is known
// (`IS_HOPPER = "NVIDIA H" in torch.cuda.get_device_name(0) or capability[0] >= 9`), and Python's
// `or`/`and` whose known side decides the result make the result known. The value propagates
// through comparisons, `in`, `not` and a string's methods (as the unknown result of one), and
// is refused where something depends on it: a condition, arithmetic, a kernel's use. The error
// points at that use, names what is unknown and why, notes where it was asked, and names the
// module-level name that holds it, which -D can give.
#include "sema/Specializer.h"

namespace tilec::sema {

using Kind = SemaValue::Kind;

namespace {

// An Object of this class: elems are what is unknown ("torch.cuda.get_device_name(0)"), why
// tilec cannot know it, whether it is a bool (a comparison's result: True or False, not known
// which), the module-level name that holds this value ("" until one does), the one that held a
// value it was computed from (for the error where none holds this one), and where it was asked
// (file, line, column). A method of it (unknownAttribute) adds the method's name.
constexpr const char *kUnknownClass = "unknown host value";
enum UnknownField : size_t { kWhat, kWhy, kIsBool, kHeldBy, kSourceHeldBy, kOrigin, kMethod };

// The string methods whose result is a bool.
bool returnsBool(const std::string &method) {
  return method == "startswith" || method == "endswith" || method.rfind("is", 0) == 0 ||
         method == "__contains__";
}

} // namespace

SemaValue Specializer::unknownValue(const std::string &what, const std::string &why,
                                    SourceLoc origin) {
  SemaValue v;
  v.kind = Kind::Object;
  v.name = kUnknownClass;
  v.elems = {SemaValue::ofString(what),
             SemaValue::ofString(why),
             SemaValue::ofBool(false),
             SemaValue::ofString(""),
             SemaValue::ofString(""),
             SemaValue::ofTuple({SemaValue::ofInt(origin.file), SemaValue::ofInt(origin.line),
                                 SemaValue::ofInt(origin.col)})};
  return v;
}

bool Specializer::isUnknown(const SemaValue &v) {
  return v.kind == Kind::Object && v.name == kUnknownClass;
}

const SemaValue *Specializer::findUnknown(const SemaValue &v) {
  if (isUnknown(v))
    return &v;
  if (v.kind == Kind::Tuple)
    for (const SemaValue &e : v.elems)
      if (const SemaValue *inner = findUnknown(e))
        return inner;
  return nullptr;
}

/// A value computed from `from` (which stays what the errors name): a bool, or another value.
static SemaValue derivedUnknown(const SemaValue &from, bool isBool) {
  SemaValue v = from;
  v.elems.resize(kOrigin + 1); // no method name (unknownAttribute)
  v.elems[kIsBool] = SemaValue::ofBool(isBool);
  // A new value, which the name that held `from` does not hold.
  if (!from.elems[kHeldBy].name.empty())
    v.elems[kSourceHeldBy] = from.elems[kHeldBy];
  v.elems[kHeldBy] = SemaValue::ofString("");
  return v;
}

SemaValue Specializer::unknownBool(const SemaValue &unknown) {
  return derivedUnknown(unknown, true);
}

void Specializer::noteUnknownHolder(SemaValue &v, const std::string &global) {
  if (isUnknown(v) && v.elems[kHeldBy].name.empty())
    v.elems[kHeldBy] = SemaValue::ofString(global);
}

void Specializer::noteUnknownSource(SemaValue &v, const std::string &name) {
  if (isUnknown(v))
    v.elems[kSourceHeldBy] = SemaValue::ofString(name);
}

void Specializer::refuseUnknown(const SemaValue &v, SourceLoc use, const std::string &needs) const {
  const SemaValue *unknown = findUnknown(v);
  if (!unknown)
    return;
  const std::vector<SemaValue> &f = unknown->elems;
  // The name whose value -D can give: the module-level name that holds the value, else the one
  // that held a value it was computed from (or the constexpr a heuristic computes from it).
  const std::string &heldBy = f[kHeldBy].name;
  const std::string &bindable = heldBy.empty() ? f[kSourceHeldBy].name : heldBy;
  std::string message =
      needs + " depends on " + f[kWhat].name +
      (heldBy.empty() ? "" : " (through '" + heldBy + "')") +
      ", which tilec cannot know at compile time: " + f[kWhy].name +
      (bindable.empty() ? "; give the module-level names that depend on it with -D NAME=VALUE"
                        : "; give the value of '" + bindable + "' with -D " + bindable + "=VALUE");
  SourceLoc origin{static_cast<uint32_t>(f[kOrigin].elems[0].intValue),
                   static_cast<uint32_t>(f[kOrigin].elems[1].intValue),
                   static_cast<uint32_t>(f[kOrigin].elems[2].intValue)};
  std::string note = f[kWhat].name + " asked here";
  try {
    error(use, message);
  } catch (const CompileError &e) {
    rethrowWithNote(e, origin, note);
  }
}

std::optional<SemaValue> Specializer::compareUnknown(ast::CompareOperator op, const SemaValue &lhs,
                                                     const SemaValue &rhs) {
  using CO = ast::CompareOperator;
  // Every unknown value is something (a name, a number, a launch's argument), never None.
  if ((op == CO::Is || op == CO::IsNot) && (isUnknown(lhs) || isUnknown(rhs)) &&
      (lhs.isNone() || rhs.isNone()))
    return SemaValue::ofBool(op == CO::IsNot);
  // Otherwise the result is True or False, not known which.
  if (isUnknown(lhs))
    return derivedUnknown(lhs, true);
  if (isUnknown(rhs))
    return derivedUnknown(rhs, true);
  return std::nullopt;
}

SemaValue Specializer::boolOpWithUnknown(bool isAnd, const SemaValue &unknown, const SemaValue &rhs,
                                         SourceLoc loc) {
  // `u or b` is u when u is true, else b; `u and b` is b when u is true, else u. With u a bool
  // and b a known bool, b decides `u or True` (True either way) and `u and False` (False);
  // `u or False` and `u and True` are u.
  const bool uBool = unknown.elems[kIsBool].boolValue;
  if (isUnknown(rhs)) {
    if (uBool && rhs.elems[kIsBool].boolValue)
      return unknown;
    refuseUnknown(unknown, loc, std::string("this '") + (isAnd ? "and" : "or") + "'");
  }
  if (uBool && rhs.kind == Kind::Bool)
    return rhs.boolValue == isAnd ? unknown : rhs;
  refuseUnknown(unknown, loc, std::string("the value of this '") + (isAnd ? "and" : "or") + "'");
  return unknown; // not reached
}

SemaValue Specializer::unknownAttribute(const SemaValue &base, const std::string &attr) {
  // A method of the unknown string (`name.startswith("NVIDIA H")`, `name.lower()`): calling it
  // gives an unknown result (callUnknown).
  SemaValue method = derivedUnknown(base, false);
  method.elems.push_back(SemaValue::ofString(attr));
  return method;
}

std::optional<SemaValue> Specializer::callUnknown(const SemaValue &callee, const CallArgs &args) {
  if (!isUnknown(callee))
    return std::nullopt;
  if (callee.elems.size() <= kMethod)
    refuseUnknown(callee, args.loc, "this call");
  const std::string &method = callee.elems[kMethod].name;
  return derivedUnknown(callee, returnsBool(method));
}

} // namespace tilec::sema
