#include "tir/Verifier.h"

#include "gpu/Layout.h"
#include "tir/Libdevice.h"
#include "tir/Printer.h"

#include <set>
#include <sstream>

namespace tilec::tir {
namespace {

class Verifier {
public:
  std::string run(const Function &f) {
    std::set<const Value *> visible;
    for (unsigned i = 0; i < f.body().numArguments(); ++i)
      visible.insert(f.body().argument(i));
    if (f.params.size() != f.body().numArguments())
      return "function has " + std::to_string(f.body().numArguments()) + " arguments but " +
             std::to_string(f.params.size()) + " parameter descriptions";
    verifyBlock(f.body(), visible, OpCode::Return);
    return error_;
  }

private:
  std::string error_;

  void fail(const Operation &op, const std::string &message) {
    if (!error_.empty())
      return;
    std::ostringstream os;
    os << "'" << op.name() << "' at line " << op.loc().line << ": " << message;
    error_ = os.str();
  }

  bool checkLayout(const Operation &op, const Type &t) {
    if (!t.layout)
      return true;
    if (t.isScalar()) {
      fail(op, "scalar of type " + t.str() + " has a layout");
      return false;
    }
    if (t.layout->rank() != t.rank()) {
      fail(op, "layout rank does not match " + t.str());
      return false;
    }
    return true;
  }

  void verifyBlock(const Block &block, std::set<const Value *> visible, OpCode terminator) {
    for (unsigned i = 0; i < block.numArguments(); ++i)
      visible.insert(block.argument(i));
    for (const auto &opPtr : block.ops()) {
      const Operation &op = *opPtr;
      if (!error_.empty())
        return;
      for (Value *v : op.operands())
        if (!v || !visible.count(v))
          return fail(op, "uses a value that is not defined before it in scope");
      if (isTerminator(op.code()) && opPtr != block.ops().back())
        return fail(op, "terminator is not the last operation of its block");
      for (unsigned r = 0; r < op.numResults(); ++r)
        checkLayout(op, op.result(r)->type());
      verifyOp(op);
      checkOneLayout(op);
      OpCode inner = op.code() == OpCode::While ? OpCode::Condition : OpCode::Yield;
      for (unsigned r = 0; r < op.numRegions(); ++r) {
        OpCode expected = (op.code() == OpCode::While && r == 1) ? OpCode::Yield : inner;
        verifyBlock(op.region(r).block(), visible, expected);
      }
      for (unsigned r = 0; r < op.numResults(); ++r)
        visible.insert(op.result(r));
    }
    if (!error_.empty())
      return;
    const Operation *term = block.terminator();
    if (!term || term->code() != terminator) {
      std::ostringstream os;
      os << "block does not end in '" << opName(terminator) << "'";
      error_ = os.str();
    }
  }

  /// Ops that share one layout must agree on it after every pass, not only after the last: a
  /// pass that lays out some of their values (coalescing gives memory accesses theirs) converts
  /// back for the others, so that a disagreement the lowering would miscompile cannot hide.
  void checkOneLayout(const Operation &op) {
    if (!sharesOneLayout(op.code()))
      return;
    const Type *first = nullptr;
    auto check = [&](const Value *v) {
      const Type &t = v->type();
      if (!t.isTensor())
        return;
      if (!first) {
        first = &t;
        return;
      }
      bool same =
          first->layout && t.layout ? *first->layout == *t.layout : first->layout == t.layout;
      if (!same)
        fail(op, "operands and results differ in layout: " + first->str() + " and " + t.str());
    };
    for (const Value *v : op.operands())
      check(v);
    for (unsigned r = 0; r < op.numResults(); ++r)
      check(op.result(r));
  }

  void expectOperands(const Operation &op, unsigned min, unsigned max) {
    if (op.numOperands() < min || op.numOperands() > max)
      fail(op, "has " + std::to_string(op.numOperands()) + " operands");
  }

  /// scan and reduce: N operands of one shape, N results of their types (without the axis for
  /// a reduction); a builtin kind takes one operand, `combine` a region of 2N scalar arguments
  /// (the left values, then the right ones) that yields N scalars of the operands' types.
  void verifyScanOrReduce(const Operation &op) {
    bool scan = op.code() == OpCode::Scan;
    if (!op.hasAttr("kind") || !op.hasAttr("axis") || (scan && !op.hasAttr("reverse")))
      return fail(op, scan ? "needs attributes kind, axis and reverse"
                           : "needs attributes kind and axis");
    if (op.numOperands() == 0 || op.numResults() != op.numOperands())
      return fail(op, "needs as many results as operands");
    const std::string &kind = op.strAttr("kind");
    bool combine = kind == "combine";
    bool builtin = scan ? kind == "sum" || kind == "prod"
                        : kind == "sum" || kind == "max" || kind == "min" || kind == "xor";
    if (!combine && !builtin)
      return fail(op, "unknown kind '" + kind + "'");
    if (!combine && (op.numOperands() != 1 || op.numRegions() != 0))
      return fail(op, "kind '" + kind + "' takes one operand and no region");
    const Type &first = op.operand(0)->type();
    int64_t axis = op.intAttr("axis");
    if (axis < 0 || axis >= static_cast<int64_t>(first.rank()))
      return fail(op, "axis out of range");
    bool withinThread = !scan && op.hasAttr("within_thread");
    if (withinThread && !verifyWithinThread(op))
      return;
    for (unsigned i = 0; i < op.numOperands(); ++i) {
      const Type &t = op.operand(i)->type();
      if (t.shape != first.shape)
        return fail(op, "operands differ in shape");
      std::vector<int64_t> shape = t.shape;
      if (withinThread)
        shape[axis] = op.result(i)->type().shape[axis];
      else if (!scan)
        shape.erase(shape.begin() + axis);
      const Type &r = op.result(i)->type();
      if (r.shape != shape || (r.elem != t.elem && (scan || kind != "sum")))
        return fail(op, "result " + std::to_string(i) + " does not match its operand");
    }
    if (!combine)
      return;
    if (op.numRegions() != 1)
      return fail(op, "kind 'combine' needs one region");
    const Block &body = op.region(0).block();
    unsigned n = op.numOperands();
    if (body.numArguments() != 2 * n)
      return fail(op, "the combine region needs " + std::to_string(2 * n) + " arguments");
    for (unsigned i = 0; i < 2 * n; ++i)
      if (!body.argument(i)->type().isScalar() ||
          body.argument(i)->type().elem != op.operand(i % n)->type().elem)
        return fail(op, "combine argument " + std::to_string(i) +
                            " is not a scalar of its operand's type");
    const Operation *yield = body.terminator();
    if (!yield || yield->code() != OpCode::Yield || yield->numOperands() != n)
      return fail(op, "the combine region must yield " + std::to_string(n) + " values");
    for (unsigned i = 0; i < n; ++i)
      if (!yield->operand(i)->type().isScalar() ||
          yield->operand(i)->type().elem != op.operand(i)->type().elem)
        return fail(op, "combine result " + std::to_string(i) +
                            " is not a scalar of its operand's type");
  }

  /// A reduce with `within_thread` (gpu/OptimizeThreadLocality.cpp) combines only the elements
  /// each thread holds along the (last) axis: its result keeps the axis, one partial per thread
  /// along it (shape[axis] / elements per thread), in gpu::threadPartialsLayout of the operand's.
  bool verifyWithinThread(const Operation &op) {
    const Type &in = op.operand(0)->type();
    const Type &out = op.result(0)->type();
    int64_t axis = op.intAttr("axis");
    gpu::LayoutPtr partials = gpu::threadPartialsLayout(in.layout);
    if (op.numOperands() != 1 || axis + 1 != in.rank() || !partials || !out.layout ||
        *out.layout != *partials) {
      fail(op, "within_thread needs one blocked operand reduced along its last axis and a "
               "result in the layout of its threads' partials (gpu::threadPartialsLayout)");
      return false;
    }
    if (out.rank() != in.rank() || out.shape[axis] < 1 || in.shape[axis] % out.shape[axis] != 0) {
      fail(op, "within_thread: the result must keep the axis, shortened to one element per "
               "thread");
      return false;
    }
    return true;
  }

  /// map_elementwise: N >= 1 operands and M >= 1 results of one shape; a region of pack * N
  /// scalar arguments (operand i's at i * pack + j) that yields pack * M scalars (result r's at
  /// r * pack + j).
  void verifyMapElementwise(const Operation &op) {
    if (!op.hasAttr("pack") || !std::holds_alternative<int64_t>(op.attr("pack")) ||
        op.intAttr("pack") < 1)
      return fail(op, "needs an attribute pack of at least 1");
    if (op.numOperands() == 0 || op.numResults() == 0 || op.numRegions() != 1)
      return fail(op, "needs operands, results and one region");
    unsigned pack = static_cast<unsigned>(op.intAttr("pack"));
    const std::vector<int64_t> &shape = op.operand(0)->type().shape;
    for (const Value *v : op.operands())
      if (v->type().shape != shape)
        return fail(op, "operands differ in shape");
    for (unsigned r = 0; r < op.numResults(); ++r)
      if (op.result(r)->type().shape != shape)
        return fail(op, "result " + std::to_string(r) + " differs from the operands in shape");
    const Block &body = op.region(0).block();
    if (body.numArguments() != pack * op.numOperands())
      return fail(op, "the region needs " + std::to_string(pack * op.numOperands()) + " arguments");
    for (unsigned a = 0; a < body.numArguments(); ++a)
      if (!body.argument(a)->type().isScalar() ||
          body.argument(a)->type().elem != op.operand(a / pack)->type().elem)
        return fail(op, "region argument " + std::to_string(a) +
                            " is not a scalar of its operand's type");
    const Operation *yield = body.terminator();
    if (!yield || yield->code() != OpCode::Yield || yield->numOperands() != pack * op.numResults())
      return fail(op,
                  "the region must yield " + std::to_string(pack * op.numResults()) + " values");
    for (unsigned y = 0; y < yield->numOperands(); ++y)
      if (!yield->operand(y)->type().isScalar() ||
          yield->operand(y)->type().elem != op.result(y / pack)->type().elem)
        return fail(op,
                    "yielded value " + std::to_string(y) + " is not a scalar of its result's type");
  }

  void verifyOp(const Operation &op) {
    switch (op.code()) {
    case OpCode::Constant:
      expectOperands(op, 0, 0);
      if (!op.hasAttr("value"))
        fail(op, "has no value");
      return;
    case OpCode::ProgramId:
    case OpCode::NumPrograms:
      if (!op.hasAttr("axis") || op.intAttr("axis") < 0 || op.intAttr("axis") > 2)
        fail(op, "axis must be 0, 1 or 2");
      return;
    case OpCode::MakeRange: {
      int64_t n = op.result()->type().numElements();
      if (n != op.intAttr("end") - op.intAttr("start") || (n & (n - 1)) != 0)
        fail(op, "range length must be a power of two equal to end - start");
      return;
    }
    case OpCode::Splat:
      expectOperands(op, 1, 1);
      if (!op.operand(0)->type().isScalar() || op.result()->type().isScalar())
        fail(op, "splats a scalar into a tensor");
      return;
    case OpCode::Broadcast: {
      const Type &in = op.operand(0)->type(), &out = op.result()->type();
      if (in.rank() != out.rank())
        return fail(op, "changes rank");
      for (unsigned d = 0; d < in.rank(); ++d)
        if (in.shape[d] != out.shape[d] && in.shape[d] != 1)
          return fail(op, "broadcasts a dimension that is not 1");
      return;
    }
    case OpCode::Trans: {
      const Type &in = op.operand(0)->type(), &out = op.result()->type();
      if (!op.hasAttr("order"))
        return fail(op, "has no order");
      const auto &order = std::get<std::vector<int64_t>>(op.attr("order"));
      if (order.size() != in.rank() || in.rank() != out.rank())
        return fail(op, "order does not match the rank");
      std::vector<bool> seen(in.rank(), false);
      for (unsigned d = 0; d < in.rank(); ++d) {
        if (order[d] < 0 || order[d] >= static_cast<int64_t>(in.rank()) || seen[order[d]])
          return fail(op, "order is not a permutation");
        seen[order[d]] = true;
        if (out.shape[d] != in.shape[order[d]])
          return fail(op, "result shape is not the permuted operand shape");
      }
      if (in.elem != out.elem)
        fail(op, "changes the element type");
      return;
    }
    case OpCode::Reshape:
      expectOperands(op, 1, 1);
      if (op.operand(0)->type().numElements() != op.result()->type().numElements() ||
          op.operand(0)->type().elem != op.result()->type().elem)
        fail(op, "must keep the number and type of elements");
      return;
    case OpCode::Dot: {
      expectOperands(op, 3, 3);
      const Type &a = op.operand(0)->type(), &b = op.operand(1)->type(),
                 &acc = op.operand(2)->type();
      // 2-D, or 3-D with a leading batch dimension.
      unsigned rank = a.rank();
      if ((rank != 2 && rank != 3) || b.rank() != rank || acc.rank() != rank)
        return fail(op, "operands must be all 2-D or all 3-D");
      if (rank == 3 && (b.shape[0] != a.shape[0] || acc.shape[0] != a.shape[0]))
        return fail(op, "batch dimensions differ");
      if (a.shape[rank - 1] != b.shape[rank - 2] || acc.shape[rank - 2] != a.shape[rank - 2] ||
          acc.shape[rank - 1] != b.shape[rank - 1])
        return fail(op, "shapes do not chain: [(B,)M,K] x [(B,)K,N] + [(B,)M,N]");
      if (a.elem != b.elem)
        fail(op, "a and b differ in element type");
      if (!op.result()->type().sameShapeAndElem(acc))
        fail(op, "result type differs from the accumulator's");
      return;
    }
    case OpCode::ConvertLayout:
      if (!op.operand(0)->type().sameShapeAndElem(op.result()->type()))
        fail(op, "changes more than the layout");
      return;
    case OpCode::Cmp:
      expectOperands(op, 2, 2);
      if (!op.result()->type().elem.isBool())
        fail(op, "result must be i1");
      if (op.operand(0)->type().elem != op.operand(1)->type().elem)
        fail(op, "operands differ in type");
      return;
    case OpCode::Select:
      expectOperands(op, 3, 3);
      if (!op.operand(0)->type().elem.isBool())
        fail(op, "condition must be i1");
      if (!op.operand(1)->type().sameShapeAndElem(op.result()->type()) ||
          !op.operand(2)->type().sameShapeAndElem(op.result()->type()))
        fail(op, "values must have the result's type");
      return;
    case OpCode::AddPtr:
      expectOperands(op, 2, 2);
      if (!op.operand(0)->type().elem.isPointer() || !op.operand(1)->type().elem.isInteger())
        fail(op, "adds an integer offset to a pointer");
      if (op.operand(0)->type().shape != op.operand(1)->type().shape)
        fail(op, "pointer and offset differ in shape");
      return;
    case OpCode::Cast:
    case OpCode::Bitcast:
      expectOperands(op, 1, 1);
      if (op.operand(0)->type().shape != op.result()->type().shape)
        fail(op, "changes shape");
      return;
    case OpCode::Scan:
    case OpCode::Reduce:
      return verifyScanOrReduce(op);
    case OpCode::Histogram:
      expectOperands(op, 1, 2);
      if (op.operand(0)->type().rank() != 1 || !op.operand(0)->type().elem.isInteger() ||
          op.operand(0)->type().elem.isBool())
        return fail(op, "input must be a 1-D integer tensor");
      if (op.numOperands() == 2 && (!op.operand(1)->type().elem.isBool() ||
                                    op.operand(1)->type().shape != op.operand(0)->type().shape))
        return fail(op, "mask must be i1 of the input's shape");
      if (!op.hasAttr("num_bins") || op.result()->type().elem.kind != ScalarKind::I32 ||
          op.result()->type().shape != std::vector<int64_t>{op.intAttr("num_bins")})
        fail(op, "result must be i32 [num_bins]");
      return;
    case OpCode::Gather: {
      expectOperands(op, 2, 2);
      const Type &src = op.operand(0)->type(), &index = op.operand(1)->type();
      int64_t axis = op.hasAttr("axis") ? op.intAttr("axis") : -1;
      if (src.rank() == 0 || index.rank() != src.rank() || axis < 0 ||
          axis >= static_cast<int64_t>(src.rank()) || !index.elem.isInteger())
        return fail(op, "src and integer index of one rank, and an axis in range");
      for (unsigned d = 0; d < src.rank(); ++d)
        if (static_cast<int64_t>(d) != axis && src.shape[d] != index.shape[d])
          return fail(op, "index differs from src in a dimension other than the axis");
      if (op.result()->type().shape != index.shape || op.result()->type().elem != src.elem)
        fail(op, "result must have index's shape and src's element type");
      return;
    }
    case OpCode::Barrier:
      expectOperands(op, 0, 0);
      return;
    case OpCode::InlineAsm:
      if (!op.hasAttr("asm") || !op.hasAttr("constraints") || !op.hasAttr("pack"))
        return fail(op, "needs attributes asm, constraints and pack");
      for (Value *v : op.operands())
        if (v->type().shape != op.result(0)->type().shape)
          return fail(op, "operand shape differs from the results'");
      for (unsigned r = 0; r < op.numResults(); ++r)
        if (op.result(r)->type().shape != op.result(0)->type().shape)
          return fail(op, "results differ in shape");
      return;
    case OpCode::MapElementwise:
      return verifyMapElementwise(op);
    case OpCode::Libdevice: {
      if (op.hasAttr("symbol")) {
        // A row of an extern_elementwise table: the operands' and result's dtypes are the row's.
        const LibdeviceOverload *o =
            op.hasAttr("fn") ? findLibdeviceSymbol(op.strAttr("fn"), op.strAttr("symbol"))
                             : nullptr;
        if (!o)
          return fail(op, "names no libdevice function");
        if (op.numOperands() != o->arity)
          return expectOperands(op, o->arity, o->arity);
        for (unsigned i = 0; i < o->arity; ++i) {
          if (op.operand(i)->type().elem != DType::scalar(o->args[i]))
            return fail(op, "operand type does not match " + std::string(o->symbol) + "'s");
          if (op.operand(i)->type().shape != op.result()->type().shape)
            return fail(op, "operand shape differs from the result's");
        }
        if (op.result()->type().elem != DType::scalar(o->result))
          fail(op, "result type does not match the function's");
        return;
      }
      const LibdeviceFunction *fn =
          op.hasAttr("fn") ? findLibdeviceFunction(op.strAttr("fn")) : nullptr;
      if (!fn)
        return fail(op, "names no libdevice function");
      if (op.numOperands() != fn->arity)
        return expectOperands(op, fn->arity, fn->arity);
      for (Value *v : op.operands()) {
        if (v->type().elem != op.operand(0)->type().elem)
          return fail(op, "operands differ in type");
        if (v->type().shape != op.result()->type().shape)
          return fail(op, "operand shape differs from the result's");
      }
      ScalarKind k = op.operand(0)->type().elem.kind;
      if (k != ScalarKind::F32 && !(k == ScalarKind::F64 && fn->fp64))
        return fail(op, "operands must be fp32 (or fp64 where libdevice has it)");
      if (fn->returnsInt ? op.result()->type().elem.kind != ScalarKind::I32
                         : op.result()->type().elem != op.operand(0)->type().elem)
        fail(op, "result type does not match the function's");
      return;
    }
    case OpCode::Load:
      // A load through a tensor descriptor argument also carries its offsets, one per dimension,
      // for the pipeliner's TMA copies (SoftwarePipeliner.cpp); no one else reads them. One
      // through a descriptor made in the kernel also carries what its tensor map is made of.
      if (op.hasAttr("descriptor"))
        expectOperands(op, 3 + op.operand(0)->type().rank(), 3 + op.operand(0)->type().rank());
      else if (op.hasAttr("kernel_descriptor"))
        expectOperands(op, kernelDescriptorLoadOperands(op.operand(0)->type().rank()),
                       kernelDescriptorLoadOperands(op.operand(0)->type().rank()));
      else
        expectOperands(op, 1, 3);
      if (!op.operand(0)->type().elem.isPointer())
        return fail(op, "loads through a non-pointer");
      if (op.operand(0)->type().elem.pointeeType() != op.result()->type().elem)
        fail(op, "result type does not match the pointee type");
      if (op.numOperands() >= 2 && !op.operand(1)->type().elem.isBool())
        fail(op, "mask must be i1");
      return;
    case OpCode::AsyncCopy:
      expectOperands(op, 3, 4);
      if (!op.operand(0)->type().elem.isPointer())
        return fail(op, "copies through a non-pointer");
      if (!op.operand(1)->type().isScalar() || !op.operand(2)->type().elem.isBool())
        fail(op, "slot must be a scalar and pred an i1");
      return;
    case OpCode::LocalLoad:
      expectOperands(op, 1, 1);
      return;
    case OpCode::TmaCopy:
      if (op.numOperands() < 3)
        return fail(op, "expects slot, pred and the offsets");
      if (!op.operand(1)->type().elem.isBool())
        fail(op, "pred must be an i1");
      return;
    case OpCode::TmaWait:
      expectOperands(op, 2, 2);
      return;
    case OpCode::TmaStore:
      expectOperands(op, 1 + op.operand(0)->type().rank(), 1 + op.operand(0)->type().rank());
      if (!op.hasAttr("tensor_map"))
        fail(op, "expects the attribute tensor_map");
      return;
    case OpCode::TensormapCreate:
      expectOperands(op, 4, 4);
      if (!op.hasAttr("kernel_map"))
        fail(op, "expects the attribute kernel_map");
      return;
    case OpCode::TmaInit:
    case OpCode::TmaInval:
      expectOperands(op, 0, 0);
      return;
    case OpCode::AsyncCommit:
    case OpCode::AsyncWait:
      expectOperands(op, 0, 0);
      return;
    case OpCode::Store:
      // A store through a tensor descriptor argument also carries its offsets, one per
      // dimension, after its mask, for a TMA store (gpu/TmaStores.cpp), which drops them.
      if (op.hasAttr("descriptor"))
        expectOperands(op, 3 + op.operand(0)->type().rank(), 3 + op.operand(0)->type().rank());
      else
        expectOperands(op, 2, 3);
      if (!op.operand(0)->type().elem.isPointer())
        return fail(op, "stores through a non-pointer");
      if (op.operand(0)->type().elem.pointeeType() != op.operand(1)->type().elem)
        fail(op, "value type does not match the pointee type");
      if (op.operand(0)->type().shape != op.operand(1)->type().shape)
        fail(op, "pointer and value differ in shape");
      return;
    default:
      break;
    }
    if (isElementwise(op.code())) {
      for (Value *v : op.operands())
        if (v->type().shape != op.result()->type().shape)
          return fail(op, "operand shape differs from the result's");
      if (op.code() != OpCode::Cast && op.code() != OpCode::Bitcast && op.numOperands() >= 1 &&
          op.operand(0)->type().elem != op.result()->type().elem)
        fail(op, "operand type differs from the result's");
    }
  }
};

} // namespace

std::string verify(const Function &function) {
  return Verifier().run(function);
}

} // namespace tilec::tir
