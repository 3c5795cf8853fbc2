// Python 3.10's match statement, in the Python code tilec evaluates: functions that module-level
// code calls, and the module level itself (Specializer::resolveModuleIf). A kernel has none:
// Triton's code generator rejects the node (Specializer::exec says so).
//
// Patterns match as PEP 634 says: literals by ==, None/True/False by `is`, captures and `_`
// always, dotted names by == of their value, `|` tries its alternatives in order, sequences
// match tuples and lists (never strings) of the right length with one `*rest` at most, mappings
// match dicts that hold every key, and class patterns of the built-in types that match
// themselves (int, float, str, bool, tuple, list, dict) test isinstance and match their one
// positional pattern against the subject. The captures of the case taken are bound; a guard
// sees the captures of its own pattern.
#include "sema/Specializer.h"

#include <algorithm>

namespace tilec::sema {

using Kind = SemaValue::Kind;

namespace {

bool isDict(const SemaValue &v) { return v.kind == Kind::Object && v.name == kDictClass; }

/// Whether tilec can tell that `v` is no sequence and no mapping: values of kinds whose Python
/// classes it knows.
bool isKnownScalar(const SemaValue &v) {
  switch (v.kind) {
  case Kind::None:
  case Kind::Bool:
  case Kind::Int:
  case Kind::Float:
  case Kind::String:
  case Kind::DType:
  case Kind::JitFunction:
  case Kind::Object:
    return true;
  default:
    return false;
  }
}

} // namespace

void Specializer::execMatch(const ast::Stmt &stmt) {
  PatternBindings bindings;
  const ast::MatchCase *taken = selectMatchCase(stmt, bindings);
  if (!taken)
    return;
  execBlock(taken->body);
}

const ast::MatchCase *Specializer::selectMatchCase(const ast::Stmt &stmt,
                                                   PatternBindings &bindings) {
  SemaValue subject = eval(*stmt.value);
  for (const ast::MatchCase &matchCase : stmt.cases) {
    bindings.clear();
    if (!matchPattern(*matchCase.pattern, subject, bindings))
      continue;
    // Python binds the captures before it evaluates the guard, whatever the guard says.
    for (const auto &[name, value] : bindings)
      bind(name, value);
    if (matchCase.guard) {
      SemaValue guard = eval(*matchCase.guard);
      std::optional<bool> truth = constexprTruth(guard);
      if (!truth)
        error(matchCase.guard->loc, "this guard is not a compile-time constant");
      if (!*truth)
        continue;
    }
    return &matchCase;
  }
  bindings.clear();
  return nullptr;
}

bool Specializer::matchPattern(const ast::Pattern &pattern, const SemaValue &subject,
                               PatternBindings &bindings) {
  switch (pattern.kind) {
  case ast::PatternKind::Capture:
    if (!pattern.name.empty())
      bindings.emplace_back(pattern.name, subject);
    return true;
  case ast::PatternKind::As:
    if (!matchPattern(*pattern.patterns[0], subject, bindings))
      return false;
    bindings.emplace_back(pattern.name, subject);
    return true;
  case ast::PatternKind::Or:
    for (const ast::PatternPtr &alternative : pattern.patterns) {
      PatternBindings tried = bindings;
      if (matchPattern(*alternative, subject, tried)) {
        bindings = std::move(tried);
        return true;
      }
    }
    return false;
  case ast::PatternKind::Singleton: {
    const ast::Expr &literal = *pattern.value;
    if (literal.kind == ast::ExprKind::NoneLit)
      return subject.isNone();
    return subject.kind == Kind::Bool && subject.boolValue == literal.boolValue;
  }
  case ast::PatternKind::Value: {
    SemaValue value = eval(*pattern.value);
    SemaValue equal = compareOp(ast::CompareOperator::Eq, subject, value, pattern.loc);
    std::optional<bool> truth = constexprTruth(equal);
    if (!truth)
      error(pattern.loc, "cannot compare " + subject.describe() + " with this pattern's value");
    return *truth;
  }
  case ast::PatternKind::Sequence: {
    // str, bytes and bytearray are no sequences to a pattern.
    if (subject.kind != Kind::Tuple) {
      if (isKnownScalar(subject))
        return false;
      error(pattern.loc, "a sequence pattern against " + subject.describe() +
                             " is not supported yet");
    }
    const std::vector<SemaValue> &elems = subject.elems;
    auto star = std::find_if(pattern.patterns.begin(), pattern.patterns.end(),
                             [](const ast::PatternPtr &p) {
                               return p->kind == ast::PatternKind::Star;
                             });
    size_t fixed = pattern.patterns.size() - (star != pattern.patterns.end() ? 1 : 0);
    if (star == pattern.patterns.end() ? elems.size() != fixed : elems.size() < fixed)
      return false;
    size_t before = static_cast<size_t>(star - pattern.patterns.begin());
    size_t starred = elems.size() - fixed;
    for (size_t i = 0; i < pattern.patterns.size(); ++i) {
      const ast::Pattern &element = *pattern.patterns[i];
      if (element.kind == ast::PatternKind::Star) {
        // The rest, as a list.
        if (!element.name.empty())
          bindings.emplace_back(element.name,
                                SemaValue::ofList(std::vector<SemaValue>(
                                    elems.begin() + static_cast<std::ptrdiff_t>(before),
                                    elems.begin() + static_cast<std::ptrdiff_t>(before + starred))));
        continue;
      }
      size_t at = i < before ? i : i - 1 + starred;
      if (!matchPattern(element, elems[at], bindings))
        return false;
    }
    return true;
  }
  case ast::PatternKind::Mapping: {
    if (!isDict(subject)) {
      if (isKnownScalar(subject) || subject.kind == Kind::Tuple)
        return false;
      error(pattern.loc, "a mapping pattern against " + subject.describe() +
                             " is not supported yet");
    }
    const std::vector<SemaValue> &keys = subject.elems[0].elems;
    const std::vector<SemaValue> &values = subject.elems[1].elems;
    std::vector<bool> used(keys.size(), false);
    for (size_t i = 0; i < pattern.keys.size(); ++i) {
      SemaValue key = eval(*pattern.keys[i]);
      std::optional<size_t> found;
      for (size_t k = 0; k < keys.size(); ++k) {
        SemaValue same = compareOp(ast::CompareOperator::Eq, keys[k], key, pattern.keys[i]->loc);
        if (constexprTruth(same).value_or(false))
          found = k;
      }
      if (!found)
        return false;
      used[*found] = true;
      if (!matchPattern(*pattern.patterns[i], values[*found], bindings))
        return false;
    }
    if (!pattern.name.empty()) {
      // `**rest`: a dict of the other entries, in their order.
      SemaValue rest = subject;
      rest.elems[0].elems.clear();
      rest.elems[1].elems.clear();
      for (size_t k = 0; k < keys.size(); ++k)
        if (!used[k]) {
          rest.elems[0].elems.push_back(keys[k]);
          rest.elems[1].elems.push_back(values[k]);
        }
      bindings.emplace_back(pattern.name, rest);
    }
    return true;
  }
  case ast::PatternKind::Class: {
    SemaValue cls = eval(*pattern.value);
    static const std::vector<std::string> selfMatching = {"py.int",   "py.float", "py.str",
                                                          "py.bool",  "py.tuple", "py.list",
                                                          "py.dict"};
    bool builtin = cls.kind == Kind::Builtin &&
                   std::find(selfMatching.begin(), selfMatching.end(), cls.name) !=
                       selfMatching.end();
    if (!builtin)
      error(pattern.value->loc, "a class pattern of " + cls.describe() +
                                    " is not supported yet (tilec matches the built-in int, "
                                    "float, str, bool, tuple, list and dict)");
    if (!pattern.keywordNames.empty())
      error(pattern.keywordPatterns[0]->loc,
            "keyword patterns of a class pattern are not supported yet");
    if (pattern.patterns.size() > 1)
      error(pattern.patterns[1]->loc, cls.name.substr(3) +
                                          "() accepts 1 positional sub-pattern (" +
                                          std::to_string(pattern.patterns.size()) + " given)");
    bool instance;
    if (cls.name == "py.dict") {
      instance = isDict(subject);
    } else {
      CallArgs args{{subject, cls}, {}, pattern.loc};
      instance = isInstance(args).boolValue;
    }
    if (!instance)
      return false;
    return pattern.patterns.empty() || matchPattern(*pattern.patterns[0], subject, bindings);
  }
  case ast::PatternKind::Star:
    break; // only inside a sequence, which handles it
  }
  error(pattern.loc, "this pattern is not supported here");
}

} // namespace tilec::sema
