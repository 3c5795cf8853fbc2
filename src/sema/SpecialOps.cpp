// tl.histogram, tl.gather, tl.inline_asm_elementwise and tl.map_elementwise: operations of their
// own in the IR, because neither backend can build them from other ops at a reasonable cost (a
// histogram or a gather written as a one-hot reduction grows with the product of two dimensions).
#include "sema/Specializer.h"

#include <algorithm>
#include <cctype>

namespace tilec::sema {

using tir::DType;
using tir::OpCode;
using tir::ScalarKind;
using tir::Type;
using Kind = SemaValue::Kind;

namespace {

/// The first constraint code of an inline asm constraint string that NVPTX has no register or
/// operand class for (AMD's `v` in a kernel written for ROCm), or empty. LLVM would stop on it
/// without a source location ("couldn't allocate output register for constraint 'v'"), as
/// Triton's NVIDIA backend does.
std::string foreignConstraint(const std::string &constraints) {
  size_t start = 0;
  while (start <= constraints.size()) {
    size_t end = constraints.find(',', start);
    if (end == std::string::npos)
      end = constraints.size();
    std::string code = constraints.substr(start, end - start);
    start = end + 1;
    code.erase(std::remove_if(code.begin(), code.end(), ::isspace), code.end());
    size_t first = code.find_first_not_of("=+&*%");
    if (first == std::string::npos || code[first] == '~' || code[first] == '{')
      continue; // a clobber or an explicit register
    code = code.substr(first);
    // NVPTX's register classes (b c h r l N q f d), immediates, memory and matching operands.
    if (code.size() != 1 ||
        std::string("bchrlNqfdinmX0123456789").find(code[0]) == std::string::npos)
      return code;
  }
  return "";
}

} // namespace

SemaValue Specializer::callSpecialOp(const std::string &fn, CallArgs &args) {
  SourceLoc loc = args.loc;
  std::string display = "tl." + fn;

  if (fn == "histogram") {
    auto a = bindCallArgs(*this, display, {"input", "num_bins", "mask"}, 2, args);
    if (!a[0]->isTensor() || a[0]->value->type().isScalar())
      error(loc, display + " needs a 1-D tensor, not " + a[0]->describe());
    tir::Value *input = a[0]->value;
    if (input->type().rank() != 1)
      error(loc, display + " only supports 1-D input, got a tensor of rank " +
                     std::to_string(input->type().rank()));
    if (!input->type().elem.isInteger() || input->type().elem.isBool())
      error(loc, display + " only supports integer input, not " + input->type().elem.str());
    int64_t bins = constantInt(*a[1], loc, "num_bins");
    if (bins <= 0 || (bins & (bins - 1)) != 0)
      error(loc, display + "'s num_bins must be a power of two, got " + std::to_string(bins));
    checkTensorSize({bins}, loc);
    std::vector<tir::Value *> operands = {input};
    if (isGiven(a[2])) {
      tir::Value *mask = toValue(*a[2], loc, "the mask");
      if (!mask->type().elem.isBool())
        error(loc, display + "'s mask must be a boolean tensor, not " + mask->type().elem.str());
      operands.push_back(broadcastTo(mask, input->type().shape, loc));
    }
    tir::Operation *op = builder_.create(OpCode::Histogram, operands,
                                         {Type(DType::scalar(ScalarKind::I32), {bins})});
    op->setAttr("num_bins", bins);
    return SemaValue::ofTensor(op->result());
  }

  if (fn == "gather") {
    auto a = bindCallArgs(*this, display, {"src", "index", "axis"}, 3, args);
    if (!a[0]->isTensor() || a[0]->value->type().isScalar())
      error(loc, display + "'s src must be a tensor, not " + a[0]->describe());
    if (!a[1]->isTensor() || a[1]->value->type().isScalar())
      error(loc, display + "'s index must be a tensor, not " + a[1]->describe());
    tir::Value *src = a[0]->value, *index = a[1]->value;
    if (!index->type().elem.isInteger() || index->type().elem.isBool())
      error(loc, display + "'s index must be an integer tensor, not " + index->type().elem.str());
    if (src->type().elem.isPointer())
      error(loc, display + " of pointers is not supported yet");
    int64_t rank = src->type().rank();
    if (static_cast<int64_t>(index->type().rank()) != rank)
      error(loc, display + ": source and index tensors must have the same rank (" +
                     std::to_string(rank) + " and " + std::to_string(index->type().rank()) + ")");
    int64_t axis = constantInt(*a[2], loc, "axis");
    if (axis < -rank || axis >= rank)
      error(loc, display + "'s axis " + std::to_string(axis) + " is out of range for rank " +
                     std::to_string(rank));
    if (axis < 0)
      axis += rank;
    for (int64_t d = 0; d < rank; ++d)
      if (d != axis && index->type().shape[d] != src->type().shape[d])
        error(loc, display + ": index dimension " + std::to_string(d) + " (" +
                       std::to_string(index->type().shape[d]) + ") must match the source's (" +
                       std::to_string(src->type().shape[d]) + ")");
    tir::Operation *op = builder_.create(OpCode::Gather, {src, index},
                                         {Type(src->type().elem, index->type().shape)});
    op->setAttr("axis", axis);
    return SemaValue::ofTensor(op->result());
  }

  if (fn == "inline_asm_elementwise") {
    auto a = bindCallArgs(*this, display,
                          {"asm", "constraints", "args", "dtype", "is_pure", "pack"}, 6, args);
    if (a[0]->kind != Kind::String)
      error(loc, display + "'s asm must be a constant string, not " + a[0]->describe());
    if (a[1]->kind != Kind::String)
      error(loc, display + "'s constraints must be a constant string, not " + a[1]->describe());
    std::optional<bool> pure = constexprTruth(*a[4]);
    if (!pure)
      error(loc, display + "'s is_pure must be a constant");
    int64_t pack = constantInt(*a[5], loc, "pack");
    if (pack < 1)
      error(loc, display + "'s pack must be at least 1, got " + std::to_string(pack));
    std::string foreign = foreignConstraint(a[1]->name);
    if (!foreign.empty())
      error(loc, display + ": constraint '" + foreign +
                     "' is not one of NVPTX's (r, l, h, f, d, b, c, q, n, i, m, a digit): this asm "
                     "is for another target, and Triton's NVIDIA backend fails on it too");
    // dtype: one dtype (one result) or a tuple of them (a tuple of results).
    std::vector<DType> resultTypes;
    bool multiple = a[3]->kind == Kind::Tuple;
    if (multiple) {
      for (const SemaValue &e : a[3]->elems) {
        if (e.kind != Kind::DType)
          error(loc, display + "'s dtype must be a dtype or a tuple of dtypes");
        resultTypes.push_back(e.dtype);
      }
      if (resultTypes.empty())
        error(loc, display + " needs at least one result dtype");
    } else {
      if (a[3]->kind != Kind::DType)
        error(loc,
              display + "'s dtype must be a dtype or a tuple of dtypes, not " + a[3]->describe());
      resultTypes.push_back(a[3]->dtype);
    }
    // args: converted to tensors as they are (no arithmetic promotion) and broadcast together.
    std::vector<tir::Value *> operands;
    if (a[2]->kind == Kind::Tuple) {
      for (const SemaValue &e : a[2]->elems)
        operands.push_back(toValue(e, loc, "an argument of tl.inline_asm_elementwise"));
    } else if (!a[2]->isNone()) {
      operands.push_back(toValue(*a[2], loc, "an argument of tl.inline_asm_elementwise"));
    }
    std::vector<int64_t> shape;
    for (tir::Value *v : operands)
      shape = broadcastShape(Type(v->type().elem, shape), v->type(), loc);
    for (tir::Value *&v : operands) {
      if (v->type().elem.isBool())
        error(loc, display + " of boolean arguments is not supported yet");
      v = broadcastTo(v, shape, loc);
    }
    std::vector<Type> types;
    for (const DType &t : resultTypes) {
      if (t.isBool())
        error(loc, display + " with a boolean result is not supported yet");
      types.push_back(Type(t, shape));
    }
    tir::Operation *op = builder_.create(OpCode::InlineAsm, operands, types);
    op->setAttr("asm", a[0]->name);
    op->setAttr("constraints", a[1]->name);
    op->setAttr("pure", *pure);
    op->setAttr("pack", pack);
    if (!multiple)
      return SemaValue::ofTensor(op->result());
    std::vector<SemaValue> results;
    for (unsigned r = 0; r < op->numResults(); ++r)
      results.push_back(SemaValue::ofTensor(op->result(r)));
    return SemaValue::ofTuple(std::move(results));
  }

  if (fn == "map_elementwise")
    return mapElementwise(args);

  error(loc, display + " is not supported yet");
}

// tl.map_elementwise(scalar_fn, *args, pack=1): the arguments (tensors or scalars, not constants)
// broadcast to one shape without promotion; scalar_fn, specialised on scalars of their element
// types (pack of each, argument by argument: a0, a1, b0, b1 for pack 2), becomes the region of a
// map_elementwise op, which runs it on every group of `pack` elements. Its results (a scalar, or
// a tuple of pack * M scalars: result r's element j at r * pack + j) give the op's M results and
// their element types, as in Triton 3.6's core.map_elementwise.
SemaValue Specializer::mapElementwise(CallArgs &args) {
  SourceLoc loc = args.loc;
  const std::string display = "tl.map_elementwise";
  std::optional<SemaValue> fnArg, packArg;
  std::vector<SemaValue> inputs;
  if (!args.positional.empty()) {
    fnArg = args.positional[0];
    inputs.assign(args.positional.begin() + 1, args.positional.end());
  }
  for (auto &[name, value] : args.keywords) {
    if (name == "pack" && !packArg)
      packArg = value;
    else if (name == "scalar_fn" && !fnArg)
      fnArg = value;
    else if (name == "pack" || name == "scalar_fn")
      error(loc, display + " got multiple values for argument '" + name + "'");
    else
      error(loc, display + " got an unexpected keyword argument '" + name + "'");
  }
  if (!fnArg)
    error(loc, display + " is missing its scalar_fn");
  if (fnArg->kind != Kind::JitFunction) {
    // A module-level Python function without @triton.jit is a Builtin named "pyfunc:NAME".
    const std::string python = "pyfunc:";
    std::string what = fnArg->kind == Kind::Builtin && fnArg->name.rfind(python, 0) == 0
                           ? "the Python function '" + fnArg->name.substr(python.size()) + "'"
                           : fnArg->describe();
    error(loc, display + "'s scalar_fn must be a @triton.jit function, not " + what);
  }
  const ast::Stmt &def = *fnArg->function;
  int64_t pack = packArg ? constantInt(*packArg, loc, display + "'s pack") : 1;
  if (pack < 1)
    error(loc, display + "'s pack must be at least 1, got " + std::to_string(pack));
  if (inputs.empty())
    error(loc, display + " needs at least one tensor argument");

  // The arguments: run-time values as they are (no promotion), broadcast together.
  std::vector<tir::Value *> operands;
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (!inputs[i].isTensor())
      error(loc, display + "'s argument " + std::to_string(i + 1) +
                     " must be a tensor or a run-time scalar, not " + inputs[i].describe() +
                     " (tl.full or tl.to_tensor makes a tensor of it)");
    operands.push_back(inputs[i].value);
  }
  std::vector<int64_t> shape;
  for (tir::Value *v : operands)
    shape = broadcastShape(Type(v->type().elem, shape), v->type(), loc);
  for (tir::Value *&v : operands)
    v = broadcastTo(v, shape, loc);

  // scalar_fn must take pack scalars of each argument.
  size_t given = static_cast<size_t>(pack) * operands.size();
  size_t required = 0, accepted = 0;
  for (const ast::Param &p : def.params) {
    if (p.isVarArgs || p.isKwArgs || p.isKeywordOnly)
      continue;
    ++accepted;
    if (!p.defaultValue)
      ++required;
  }
  if (given < required || given > accepted) {
    std::string takes = required == accepted
                            ? std::to_string(required)
                            : std::to_string(required) + " to " + std::to_string(accepted);
    error(loc, display + " calls '" + def.name + "' with " + std::to_string(given) + " scalar" +
                   (given == 1 ? "" : "s") + " (" + std::to_string(operands.size()) + " argument" +
                   (operands.size() == 1 ? "" : "s") +
                   (pack > 1 ? " times pack " + std::to_string(pack) : std::string()) +
                   "), but it takes " + takes + " parameter" + (accepted == 1 ? "" : "s"));
  }

  tir::Operation *op = builder_.create(OpCode::MapElementwise, operands, {});
  op->setAttr("pack", pack);
  tir::Block &body = op->addRegion().block();
  std::vector<SemaValue> params;
  for (tir::Value *v : operands)
    for (int64_t j = 0; j < pack; ++j)
      params.push_back(SemaValue::ofTensor(body.addArgument(Type(v->type().elem))));
  tir::Builder::InsertPoint saved = builder_.insertionPoint();
  builder_.setInsertionPointToEnd(body);
  CallArgs call{params, {}, loc};
  SemaValue result = callJitFunction(def, call);
  std::vector<SemaValue> results =
      result.kind == Kind::Tuple ? result.elems : std::vector<SemaValue>{result};
  if (result.isNone() || results.empty())
    error(loc, display + ": '" + def.name + "' returns no value");
  if (results.size() % static_cast<size_t>(pack) != 0)
    error(loc, display + ": '" + def.name + "' returns " + std::to_string(results.size()) +
                   " values, not a multiple of pack " + std::to_string(pack));
  std::vector<tir::Value *> yielded;
  for (size_t i = 0; i < results.size(); ++i) {
    SemaValue r = decayNumbers(results[i], loc);
    if (!r.isTensor() || !r.value->type().isScalar())
      error(loc, display + ": '" + def.name + "' must return scalars, but its result " +
                     std::to_string(i) + " is " + r.describe());
    yielded.push_back(r.value);
  }
  builder_.create(OpCode::Yield, yielded, {});
  builder_.restoreInsertionPoint(saved);

  // Result r's elements are results r * pack ... r * pack + pack - 1, all of one type.
  size_t numResults = results.size() / static_cast<size_t>(pack);
  for (size_t r = 0; r < numResults; ++r) {
    DType t = yielded[r * pack]->type().elem;
    for (int64_t j = 1; j < pack; ++j)
      if (yielded[r * pack + j]->type().elem != t)
        error(loc, display + ": '" + def.name + "' returns " + t.tritonName() + " and " +
                       yielded[r * pack + j]->type().elem.tritonName() +
                       " for elements of one result (results " + std::to_string(r * pack) +
                       " and " + std::to_string(r * pack + j) + ")");
    op->addResult(Type(t, shape));
  }
  // The region computes on scalars: a tensor made inside it has no element to belong to.
  tir::walk(body, [&](tir::Operation &inner) {
    for (unsigned i = 0; i < inner.numResults(); ++i) {
      if (!inner.result(i)->type().isTensor())
        continue;
      try {
        error(inner.loc(), display + ": '" + def.name +
                               "' must compute on scalars, but this makes a tensor of type " +
                               inner.result(i)->type().str());
      } catch (const CompileError &e) {
        const std::string note = "in the scalar function of tl.map_elementwise, called from here";
        rethrowWithNote(e, loc, note);
      }
    }
  });
  if (numResults == 1 && result.kind != Kind::Tuple)
    return SemaValue::ofTensor(op->result());
  std::vector<SemaValue> out;
  for (unsigned r = 0; r < op->numResults(); ++r)
    out.push_back(SemaValue::ofTensor(op->result(r)));
  return SemaValue::ofTuple(std::move(out));
}

} // namespace tilec::sema
