// Tuples through run-time control flow: a tuple (or a namedtuple) that a run-time loop or `if`
// reassigns, as Triton 3.6 carries it (its code generator flattens a tuple into its leaves and
// builds it again after the loop or the `if`).
//
// Each leaf of the tuple (an element that is not itself a tuple) travels under a hidden name,
// `acc#t.0.1` (not an identifier: no kernel can name it), which the loops and ifs then carry or
// merge as any other name: tensors and numbers as IR values, block pointers by their parts, other
// values (None, strings, dtypes) unchanged. The tuple's structure must stay the same, as Triton
// requires of a loop-carried value's type.
#include "sema/Specializer.h"

#include <functional>

namespace tilec::sema {

using Kind = SemaValue::Kind;

namespace {

/// The leaves of `value` with their paths (".0", ".1.2"), in order.
void collectLeaves(const SemaValue &value, const std::string &path,
                   std::vector<std::pair<std::string, const SemaValue *>> &out) {
  if (value.kind != Kind::Tuple) {
    out.push_back({path, &value});
    return;
  }
  for (size_t i = 0; i < value.elems.size(); ++i)
    collectLeaves(value.elems[i], path + "." + std::to_string(i), out);
}

std::vector<std::pair<std::string, const SemaValue *>> leavesOf(const SemaValue &value) {
  std::vector<std::pair<std::string, const SemaValue *>> out;
  collectLeaves(value, "", out);
  return out;
}

/// Whether two tuples have the same nesting (the same leaf paths).
bool sameStructure(const SemaValue &a, const SemaValue &b) {
  if (a.kind != Kind::Tuple || b.kind != Kind::Tuple)
    return a.kind != Kind::Tuple && b.kind != Kind::Tuple;
  if (a.elems.size() != b.elems.size())
    return false;
  for (size_t i = 0; i < a.elems.size(); ++i)
    if (!sameStructure(a.elems[i], b.elems[i]))
      return false;
  return true;
}

/// `shape` with the leaf at each path replaced by `leaf(path)`.
SemaValue withLeaves(const SemaValue &shape, const std::string &path,
                     const std::function<SemaValue(const std::string &)> &leaf) {
  if (shape.kind != Kind::Tuple)
    return leaf(path);
  SemaValue out = shape;
  for (size_t i = 0; i < shape.elems.size(); ++i)
    out.elems[i] = withLeaves(shape.elems[i], path + "." + std::to_string(i), leaf);
  return out;
}

std::string hiddenName(const std::string &name, const std::string &path) {
  return name + "#t" + path;
}

} // namespace

std::vector<Specializer::FlowingTuple>
Specializer::splitFlowingTuples(std::vector<std::string> &names) {
  std::vector<FlowingTuple> out;
  std::vector<std::string> kept;
  for (const std::string &name : names) {
    auto it = scopes_.back().names.find(name);
    if (it == scopes_.back().names.end() || it->second.kind != Kind::Tuple) {
      kept.push_back(name);
      continue;
    }
    FlowingTuple t{name, it->second, {}};
    for (const auto &[path, leaf] : leavesOf(t.before)) {
      t.hidden.push_back(hiddenName(name, path));
      kept.push_back(t.hidden.back());
      SemaValue value = *leaf;
      bind(t.hidden.back(), value);
    }
    out.push_back(std::move(t));
  }
  names = std::move(kept);
  return out;
}

void Specializer::exposeFlowingTuples(const std::vector<FlowingTuple> &tuples,
                                      const ast::Stmt &loop) {
  for (const FlowingTuple &t : tuples) {
    SemaValue now = scopes_.back().names.at(t.name);
    if (!sameStructure(now, t.before))
      error(loop.loc, "'" + t.name + "' is " + t.before.describe() + " of " +
                          std::to_string(t.before.elems.size()) + " elements before the loop and " +
                          now.describe() +
                          (now.kind == Kind::Tuple ? " of another structure (" + now.repr() + ")"
                                                   : std::string()) +
                          " after an iteration: a loop-carried tuple keeps its structure");
    auto leaves = leavesOf(now);
    for (size_t i = 0; i < leaves.size(); ++i) {
      SemaValue value = *leaves[i].second;
      bind(t.hidden[i], value);
    }
  }
}

void Specializer::rebuildFlowingTuples(const std::vector<FlowingTuple> &tuples) {
  for (const FlowingTuple &t : tuples) {
    SemaValue value = withLeaves(t.before, "", [&](const std::string &path) {
      return scopes_.back().names.at(hiddenName(t.name, path));
    });
    bind(t.name, value);
  }
}

void Specializer::splitMergedTuples(std::vector<std::string> &assigned,
                                    std::map<std::string, SemaValue> &afterThen,
                                    std::map<std::string, SemaValue> &afterElse,
                                    std::vector<FlowingTuple> &tuples, SourceLoc loc) {
  std::vector<std::string> kept;
  for (const std::string &name : assigned) {
    auto t = afterThen.find(name), e = afterElse.find(name);
    if (t == afterThen.end() || e == afterElse.end() || t->second.kind != Kind::Tuple ||
        e->second.kind != Kind::Tuple) {
      kept.push_back(name);
      continue;
    }
    if (!sameStructure(t->second, e->second))
      error(loc, "'" + name + "' is " + t->second.repr() + " on one path of the if and " +
                     e->second.repr() + " on the other: tuples of different structures");
    FlowingTuple flow{name, t->second, {}};
    auto thenLeaves = leavesOf(t->second), elseLeaves = leavesOf(e->second);
    for (size_t i = 0; i < thenLeaves.size(); ++i) {
      std::string hidden = hiddenName(name, thenLeaves[i].first);
      SemaValue thenLeaf = *thenLeaves[i].second, elseLeaf = *elseLeaves[i].second;
      afterThen[hidden] = thenLeaf;
      afterElse[hidden] = elseLeaf;
      flow.hidden.push_back(hidden);
      kept.push_back(hidden);
    }
    tuples.push_back(std::move(flow));
  }
  assigned = std::move(kept);
}

} // namespace tilec::sema
