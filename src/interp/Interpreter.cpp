// The interpreter proper: compiles a tir::Function into a tree of operations with numbered value
// slots once per launch, then runs every program of the grid over that tree.
//
// Values live in a vector of Tensors indexed by slot number; a slot keeps its storage from one
// program to the next, so a launch allocates only while its first program runs. Constants and
// ranges are materialised once per launch: SSA slots are written only by their defining op.
#include "interp/Interpreter.h"

#include "interp/Numerics.h"
#include "interp/Tensor.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstring>
#include <limits>
#include <sstream>
#include <unordered_map>

namespace tilec::interp {

using tir::OpCode;
using tir::ScalarKind;

namespace {

enum class AtomicKind : uint8_t { Add, Max, Min, Xchg, And, Or, Xor };

bool parseAtomicKind(const std::string &text, AtomicKind &out) {
  static const std::pair<const char *, AtomicKind> table[] = {
      {"add", AtomicKind::Add},   {"max", AtomicKind::Max}, {"min", AtomicKind::Min},
      {"xchg", AtomicKind::Xchg}, {"and", AtomicKind::And}, {"or", AtomicKind::Or},
      {"xor", AtomicKind::Xor}};
  for (const auto &[name, kind] : table) {
    if (text == name) {
      out = kind;
      return true;
    }
  }
  return false;
}

struct CompiledBlock;

/// One operation with its operands and results resolved to slot numbers and its attributes
/// decoded, so that running it needs no map lookups.
struct CompiledOp {
  const tir::Operation *op = nullptr;
  OpCode code = OpCode::Return;
  std::vector<unsigned> operands;
  std::vector<unsigned> results;
  std::vector<CompiledBlock> regions;

  int64_t axis = 0;
  CmpPredicate predicate = CmpPredicate::Eq;
  ReduceKind reduceKind = ReduceKind::Sum;
  AtomicKind atomicKind = AtomicKind::Add;
  DotPrecision dotPrecision = DotPrecision::IEEE;
  const tir::LibdeviceFunction *libdevice = nullptr;
  /// A libdevice op with a "symbol" (tir::LibdeviceOverload): its compiled implementation.
  std::function<void(const std::vector<const Tensor *> &, Tensor &)> libdeviceExtern;
  const tir::LibdeviceOverload *libdeviceOverload = nullptr;
  bool scanProduct = false;
  bool scanReverse = false;
  /// maximum/minimum with propagate_nan=ALL (a NaN operand gives NaN).
  bool propagateNan = false;
  /// minimum with `clip`: tl.clamp(x, -limit, limit) on (x, limit), see evalClip.
  bool clip = false;
  /// A cast with fp_downcast_rounding='rtz'.
  bool roundTowardZero = false;
  /// The value of a `constant` (a scalar of the result's element type).
  Tensor constant;
  /// Set once a constant or make_range has filled its slot in this launch.
  bool materialised = false;
  /// Temporaries reused across programs: broadcast operands, yielded values in flight.
  std::vector<Tensor> scratch;
};

struct CompiledBlock {
  std::vector<unsigned> args;
  std::vector<CompiledOp> ops;
};

/// The element codecs: how one element of a dtype is read from and written to memory, as a lane.
template <typename Memory> struct IntCodec {
  using Lane = int64_t;
  static int64_t load(const unsigned char *p) {
    Memory v;
    std::memcpy(&v, p, sizeof(v));
    return static_cast<int64_t>(v);
  }
  static void store(unsigned char *p, int64_t lane) {
    Memory v = static_cast<Memory>(lane);
    std::memcpy(p, &v, sizeof(v));
  }
};
struct BoolCodec {
  using Lane = int64_t;
  static int64_t load(const unsigned char *p) { return *p != 0; }
  static void store(unsigned char *p, int64_t lane) { *p = lane != 0; }
};
struct F32Codec {
  using Lane = float;
  static float load(const unsigned char *p) {
    float v;
    std::memcpy(&v, p, sizeof(v));
    return v;
  }
  static void store(unsigned char *p, float lane) { std::memcpy(p, &lane, sizeof(lane)); }
};
struct F64Codec {
  using Lane = double;
  static double load(const unsigned char *p) {
    double v;
    std::memcpy(&v, p, sizeof(v));
    return v;
  }
  static void store(unsigned char *p, double lane) { std::memcpy(p, &lane, sizeof(lane)); }
};
template <ScalarKind Kind> struct NarrowFloatCodec {
  using Lane = float;
  static constexpr unsigned kBytes = (Kind == ScalarKind::F16 || Kind == ScalarKind::BF16) ? 2 : 1;
  static float load(const unsigned char *p) {
    uint64_t bits = 0;
    std::memcpy(&bits, p, kBytes);
    return bitsToFloatLane(bits, Kind);
  }
  static void store(unsigned char *p, float lane) {
    uint64_t bits = floatLaneToBits(lane, Kind);
    std::memcpy(p, &bits, kBytes);
  }
};

template <typename Fn> void withElementCodec(ScalarKind kind, Fn &&fn) {
  switch (kind) {
  case ScalarKind::I1:
    return fn(BoolCodec{});
  case ScalarKind::I8:
    return fn(IntCodec<int8_t>{});
  case ScalarKind::I16:
    return fn(IntCodec<int16_t>{});
  case ScalarKind::I32:
    return fn(IntCodec<int32_t>{});
  case ScalarKind::I64:
    return fn(IntCodec<int64_t>{});
  case ScalarKind::U8:
  case ScalarKind::F8E4B15: // a byte, kept in an integer lane as its code 0..255
    return fn(IntCodec<uint8_t>{});
  case ScalarKind::U16:
    return fn(IntCodec<uint16_t>{});
  case ScalarKind::U32:
    return fn(IntCodec<uint32_t>{});
  case ScalarKind::U64:
    return fn(IntCodec<uint64_t>{});
  case ScalarKind::F8E4M3:
    return fn(NarrowFloatCodec<ScalarKind::F8E4M3>{});
  case ScalarKind::F8E5M2:
    return fn(NarrowFloatCodec<ScalarKind::F8E5M2>{});
  case ScalarKind::F16:
    return fn(NarrowFloatCodec<ScalarKind::F16>{});
  case ScalarKind::BF16:
    return fn(NarrowFloatCodec<ScalarKind::BF16>{});
  case ScalarKind::F32:
    return fn(F32Codec{});
  case ScalarKind::F64:
  case ScalarKind::Ptr:
    return fn(F64Codec{});
  }
}

/// The bits of a lane, for compare-and-swap (floats compare bitwise, as atom.cas does).
uint64_t laneBits(int64_t lane, ScalarKind) {
  return static_cast<uint64_t>(lane);
}
uint64_t laneBits(float lane, ScalarKind kind) {
  return floatLaneToBits(lane, kind);
}
uint64_t laneBits(double lane, ScalarKind) {
  uint64_t bits;
  std::memcpy(&bits, &lane, sizeof(bits));
  return bits;
}

std::string formatFloat(double v, bool isDouble) {
  char text[64];
  std::to_chars_result result =
      isDouble ? std::to_chars(text, text + sizeof(text), v)
               : std::to_chars(text, text + sizeof(text), static_cast<float>(v));
  return std::string(text, result.ptr);
}

/// Triton's frontend turns device_print's prefix into " prefix: " (a leading space when longer
/// than two characters, ": " at the end when there are values); do the same here so that output
/// matches whether or not sema already did it.
std::string normalisePrintPrefix(std::string prefix, bool hasValues) {
  if (hasValues && (prefix.empty() || prefix.back() != ' '))
    prefix += " ";
  if (hasValues && (prefix.size() < 2 || prefix.compare(prefix.size() - 2, 2, ": ") != 0))
    prefix = prefix.substr(0, prefix.size() - 1) + ": ";
  if (prefix.size() > 2 && prefix.front() != ' ')
    prefix = " " + prefix;
  return prefix;
}

//===----------------------------------------------------------------------===//
// The machine
//===----------------------------------------------------------------------===//

class Machine : public ErrorReporter {
public:
  Machine(const tir::Function &kernel, const LaunchOptions &options)
      : ErrorReporter(kernel.loc()), kernel_(kernel), options_(options) {
    body_ = compileBlock(kernel.body());
    slots_.resize(slotCount_);
  }

  void bindArguments(const std::vector<KernelArg> &args);
  void runGrid();

private:
  struct BufferEntry {
    HostBuffer *buffer;
    unsigned char *data;
    int64_t bytes;
    std::string name; // the parameter it was passed as
  };

  // Compilation.
  CompiledBlock compileBlock(const tir::Block &block);
  CompiledOp compileOp(const tir::Operation &op);
  unsigned newSlot(const tir::Value *value) {
    slotOfValue_[value] = slotCount_;
    return slotCount_++;
  }
  unsigned slotOf(const tir::Value *value, const tir::Operation &user) const {
    auto it = slotOfValue_.find(value);
    if (it == slotOfValue_.end())
      throw InterpError(user.loc(), std::string("'") + user.name() +
                                        "' uses a value that is not defined before it");
    return it->second;
  }
  [[noreturn]] static void compileError(const tir::Operation &op, const std::string &message) {
    throw InterpError(op.loc(), std::string("cannot interpret '") + op.name() + "': " + message);
  }

  // Execution.
  CompiledOp *execBlock(CompiledBlock &block);
  void execOp(CompiledOp &op);
  void execElementwise(CompiledOp &op, Tensor &out);
  void execFor(CompiledOp &op);
  void execIf(CompiledOp &op);
  void execWhile(CompiledOp &op);
  void execAddPtr(CompiledOp &op, Tensor &out);
  void execPointerCast(CompiledOp &op, Tensor &out);
  void execLoad(CompiledOp &op, Tensor &out);
  void execStore(CompiledOp &op);
  void execAtomicRMW(CompiledOp &op, Tensor &out);
  void execAtomicCAS(CompiledOp &op, Tensor &out);
  void execReduce(CompiledOp &op, Tensor &out);
  /// Scans and reductions whose combine function is a region (Combine.cpp's kind `combine`).
  void execCombining(CompiledOp &op);
  /// Runs `op`'s combine region on lanes of the operand tensors: lhs lane `l` of `lhs[i]` and
  /// rhs lane `r` of `rhs[i]`; the results go to lane `o` of `out[i]`.
  void combineLanes(CompiledOp &op, const std::vector<const Tensor *> &lhs, int64_t l,
                    const std::vector<const Tensor *> &rhs, int64_t r,
                    const std::vector<Tensor *> &out, int64_t o);
  static void checkCombineRegion(const tir::Operation &op, CompiledOp &compiled);
  /// tl.map_elementwise: the region run on each group of `pack` elements, in row-major order.
  void execMapElementwise(CompiledOp &op);
  void execPrint(CompiledOp &op);
  void execAssert(CompiledOp &op);
  void execHistogram(CompiledOp &op, Tensor &out);
  void execGather(CompiledOp &op, Tensor &out);

  Tensor &slot(unsigned index) { return slots_[index]; }
  /// Operand `i` of `op` with `count` lanes: the slot itself, or a scalar broadcast into scratch.
  const Tensor &operandWithLanes(CompiledOp &op, unsigned i, const std::vector<int64_t> &shape,
                                 int64_t count);
  /// Copies the operands of `terminator` into the slots `targets[first...]` (through scratch, as
  /// a yield may pass the block's own arguments in another order).
  void assignYielded(CompiledOp &owner, const CompiledOp &terminator, unsigned firstOperand,
                     const std::vector<unsigned> &targets, unsigned firstTarget);
  int64_t scalarInt(unsigned slotIndex) { return slot(slotIndex).lanes<int64_t>()[0]; }
  /// Fails unless `value` (operand `what` of the running op) has element type `expected`.
  void expectElementType(const Tensor &value, tir::DType expected, const char *what) const {
    if (value.dtype() != expected)
      fail(std::string(what) + " is " + value.dtype().str() + " where " + expected.str() +
           " is expected");
  }

  /// Checks that lane `lane` of `pointers` may access `bytes` bytes and returns the address.
  unsigned char *access(const Tensor &pointers, int64_t lane, unsigned bytes, const char *what) {
    const PtrLane &p = pointers.lanes<PtrLane>()[lane];
    if (p.buffer >= 0 && p.byteOffset >= 0 && p.byteOffset <= buffers_[p.buffer].bytes - bytes &&
        p.byteOffset % bytes == 0)
      return buffers_[p.buffer].data + p.byteOffset;
    invalidAccess(pointers, lane, bytes, what);
  }
  [[noreturn]] void invalidAccess(const Tensor &pointers, int64_t lane, unsigned bytes,
                                  const char *what) const;
  std::string describePointer(const PtrLane &p, unsigned elementBytes) const;

  const tir::Function &kernel_;
  const LaunchOptions &options_;
  std::unordered_map<const tir::Value *, unsigned> slotOfValue_;
  unsigned slotCount_ = 0;
  CompiledBlock body_;
  std::vector<Tensor> slots_;
  std::vector<BufferEntry> buffers_;
  /// How many times a store or an atomic changed memory: a while loop whose iteration changed
  /// neither memory nor its carried values can never end (execWhile).
  uint64_t memoryWrites_ = 0;
};

/// Whether two tensors hold the same lanes, bit for bit.
bool sameLanes(const Tensor &a, const Tensor &b) {
  return a.dtype() == b.dtype() && a.shape() == b.shape() &&
         std::memcmp(a.lanes<unsigned char>(), b.lanes<unsigned char>(),
                     static_cast<size_t>(a.numElements()) * laneBytes(a.laneKind())) == 0;
}

//===----------------------------------------------------------------------===//
// Compilation
//===----------------------------------------------------------------------===//

CompiledBlock Machine::compileBlock(const tir::Block &block) {
  CompiledBlock compiled;
  for (unsigned i = 0; i < block.numArguments(); ++i)
    compiled.args.push_back(newSlot(block.argument(i)));
  for (const auto &op : block.ops())
    compiled.ops.push_back(compileOp(*op));
  return compiled;
}

/// Decodes the `value` attribute of a constant into a scalar lane of `dtype`.
void decodeConstant(const tir::Operation &op, tir::DType dtype, Tensor &out) {
  out.reset(dtype, {});
  const tir::Attribute &attr = op.attr("value");
  bool isInt = std::holds_alternative<int64_t>(attr) || std::holds_alternative<bool>(attr);
  int64_t intValue = 0;
  double floatValue = 0;
  if (std::holds_alternative<int64_t>(attr))
    intValue = std::get<int64_t>(attr);
  else if (std::holds_alternative<bool>(attr))
    intValue = std::get<bool>(attr);
  else if (std::holds_alternative<double>(attr))
    floatValue = std::get<double>(attr);
  else
    throw InterpError(op.loc(), "cannot interpret 'constant': its value is not a number");

  switch (out.laneKind()) {
  case LaneKind::Int:
    if (!isInt)
      out.lanes<int64_t>()[0] = floatToInteger(floatValue, dtype.kind);
    else
      out.lanes<int64_t>()[0] =
          dtype.isBool() ? intValue != 0 : wrapInteger(static_cast<uint64_t>(intValue), dtype.kind);
    return;
  case LaneKind::Float:
  case LaneKind::Double: {
    double v = isInt ? integerToFloat(intValue, false, dtype.kind)
                     : roundToFloatType(floatValue, dtype.kind);
    if (out.laneKind() == LaneKind::Float)
      out.lanes<float>()[0] = static_cast<float>(v);
    else
      out.lanes<double>()[0] = v;
    return;
  }
  case LaneKind::Ptr:
    // Only a null pointer can be written as a constant.
    out.lanes<PtrLane>()[0] = PtrLane{isInt ? intValue : 0, kNoBuffer};
    return;
  }
}

CompiledOp Machine::compileOp(const tir::Operation &op) {
  CompiledOp compiled;
  compiled.op = &op;
  compiled.code = op.code();
  for (tir::Value *operand : op.operands())
    compiled.operands.push_back(slotOf(operand, op));
  for (unsigned r = 0; r < op.numRegions(); ++r)
    compiled.regions.push_back(compileBlock(op.region(r).block()));
  for (unsigned r = 0; r < op.numResults(); ++r)
    compiled.results.push_back(newSlot(op.result(r)));

  auto stringAttr = [&](const char *key) -> const std::string & {
    if (!op.hasAttr(key) || !std::holds_alternative<std::string>(op.attr(key)))
      compileError(op, std::string("missing string attribute '") + key + "'");
    return op.strAttr(key);
  };
  auto intAttr = [&](const char *key) {
    if (!op.hasAttr(key) || !std::holds_alternative<int64_t>(op.attr(key)))
      compileError(op, std::string("missing integer attribute '") + key + "'");
    return op.intAttr(key);
  };
  auto expectOperands = [&](unsigned min, unsigned max) {
    if (op.numOperands() < min || op.numOperands() > max)
      compileError(op, "has " + std::to_string(op.numOperands()) + " operands");
  };

  // The lanes of a value are read by its dtype: an operand of an unexpected type would be read as
  // garbage, so check here what the verifier may not have been asked to check.
  auto elementOf = [&](unsigned i) { return op.operand(i)->type().elem; };
  auto expectInteger = [&](unsigned i, const char *what) {
    if (!elementOf(i).isInteger())
      compileError(op, std::string(what) + " must be an integer, not " + elementOf(i).str());
  };
  // A libdevice op with a "symbol" is one overload of tir::LibdeviceOverload: its operand types
  // are the overload's.
  if (op.code() == OpCode::Libdevice && op.hasAttr("symbol")) {
    compiled.libdeviceOverload = tir::findLibdeviceSymbol(stringAttr("fn"), op.strAttr("symbol"));
    if (!compiled.libdeviceOverload)
      compileError(op, "unknown libdevice function '" + op.strAttr("fn") + "' (" +
                           op.strAttr("symbol") + ")");
    expectOperands(compiled.libdeviceOverload->arity, compiled.libdeviceOverload->arity);
  }
  if (tir::isElementwise(op.code()) && op.code() != OpCode::Cast && op.code() != OpCode::Bitcast &&
      op.code() != OpCode::AddPtr) {
    if (op.numResults() != 1)
      compileError(op, "must have one result");
    tir::DType resultElement = op.result()->type().elem;
    for (unsigned i = 0; i < op.numOperands(); ++i) {
      tir::DType expected = resultElement;
      // Comparisons and libdevice's isnan/isinf/signbit give another type than their operands'.
      if (compiled.libdeviceOverload)
        expected = tir::DType::scalar(compiled.libdeviceOverload->args[i]);
      else if (op.code() == OpCode::Cmp || op.code() == OpCode::Libdevice)
        expected = elementOf(0);
      else if (op.code() == OpCode::Select && i == 0)
        expected = tir::DType::scalar(ScalarKind::I1);
      if (elementOf(i) != expected)
        compileError(op, "operand " + std::to_string(i) + " is " + elementOf(i).str() + " where " +
                             expected.str() + " is expected");
    }
  }

  switch (op.code()) {
  case OpCode::Constant:
    if (!op.hasAttr("value"))
      compileError(op, "missing attribute 'value'");
    decodeConstant(op, op.result()->type().elem, compiled.constant);
    break;
  case OpCode::ProgramId:
  case OpCode::NumPrograms:
    compiled.axis = intAttr("axis");
    if (compiled.axis < 0 || compiled.axis > 2)
      compileError(op, "axis must be 0, 1 or 2");
    break;
  case OpCode::MakeRange:
    if (op.result()->type().numElements() != intAttr("end") - intAttr("start"))
      compileError(op, "the result does not have end - start elements");
    break;
  case OpCode::Scan:
    compiled.axis = intAttr("axis");
    if (op.numOperands() == 0 || compiled.axis < 0 ||
        compiled.axis >= static_cast<int64_t>(op.operand(0)->type().rank()))
      compileError(op, "axis out of range");
    if (stringAttr("kind") == "combine") {
      compiled.reduceKind = ReduceKind::Combine;
      checkCombineRegion(op, compiled);
    } else if (stringAttr("kind") != "sum" && stringAttr("kind") != "prod") {
      compileError(op, "unknown kind '" + op.strAttr("kind") + "'");
    } else {
      expectOperands(1, 1);
    }
    compiled.scanProduct = op.strAttr("kind") == "prod";
    compiled.scanReverse = op.hasAttr("reverse") && op.boolAttr("reverse");
    break;
  case OpCode::Libdevice:
    if (compiled.libdeviceOverload) {
      if (op.result()->type().elem != tir::DType::scalar(compiled.libdeviceOverload->result))
        compileError(op, "result type does not match " +
                             std::string(compiled.libdeviceOverload->symbol) + "'s");
      try {
        compiled.libdeviceExtern = compileLibdeviceExtern(*compiled.libdeviceOverload);
      } catch (const std::logic_error &e) {
        compileError(op, e.what());
      }
      break;
    }
    compiled.libdevice = tir::findLibdeviceFunction(stringAttr("fn"));
    if (!compiled.libdevice)
      compileError(op, "unknown libdevice function '" + op.strAttr("fn") + "'");
    expectOperands(compiled.libdevice->arity, compiled.libdevice->arity);
    break;
  case OpCode::Cmp:
    if (!parseCmpPredicate(stringAttr("predicate"), compiled.predicate))
      compileError(op, "unknown predicate '" + op.strAttr("predicate") + "'");
    break;
  case OpCode::Maximum:
  case OpCode::Minimum:
    if (op.hasAttr("propagate_nan")) {
      if (op.strAttr("propagate_nan") != "all")
        compileError(op, "unknown propagate_nan '" + op.strAttr("propagate_nan") + "'");
      compiled.propagateNan = true;
    }
    compiled.clip = op.hasAttr("clip") && op.boolAttr("clip");
    if (compiled.clip && (op.code() != OpCode::Minimum || !op.result()->type().elem.isFloat() ||
                          op.result()->type().elem.bits() > 32))
      compileError(op, "clip is a minimum of fp32 or fp16");
    break;
  case OpCode::Cast:
    if (op.hasAttr("rounding")) {
      const tir::DType from = op.operand(0)->type().elem, to = op.result()->type().elem;
      bool toE5 = to.kind == tir::ScalarKind::F8E5M2 &&
                  (from.kind == tir::ScalarKind::F32 || from.kind == tir::ScalarKind::F16);
      if (op.strAttr("rounding") != "rtz" ||
          (!toE5 && (from.kind != tir::ScalarKind::F32 ||
                     (to.kind != tir::ScalarKind::F16 && to.kind != tir::ScalarKind::BF16))))
        compileError(op, "unknown rounding '" + op.strAttr("rounding") + "' from " + from.str() +
                             " to " + to.str());
      compiled.roundTowardZero = true;
    }
    break;
  case OpCode::Reduce:
  case OpCode::ArgReduce: {
    if (!parseReduceKind(stringAttr("kind"), compiled.reduceKind))
      compileError(op, "unknown kind '" + op.strAttr("kind") + "'");
    if (compiled.reduceKind == ReduceKind::Combine && op.code() == OpCode::Reduce) {
      compiled.axis = intAttr("axis");
      if (op.numOperands() == 0 || compiled.axis < 0 ||
          compiled.axis >= static_cast<int64_t>(op.operand(0)->type().rank()))
        compileError(op, "axis out of range");
      checkCombineRegion(op, compiled);
      break;
    }
    expectOperands(1, 1);
    bool isArg =
        compiled.reduceKind == ReduceKind::ArgMax || compiled.reduceKind == ReduceKind::ArgMin;
    if (isArg != (op.code() == OpCode::ArgReduce))
      compileError(op, "kind '" + op.strAttr("kind") + "' does not belong to this op");
    compiled.axis = intAttr("axis");
    if (isArg && !op.result()->type().elem.isInteger())
      compileError(op, "the result must be an integer index");
    break;
  }
  case OpCode::AtomicRMW:
    expectOperands(2, 3);
    if (!parseAtomicKind(stringAttr("kind"), compiled.atomicKind))
      compileError(op, "unknown kind '" + op.strAttr("kind") + "'");
    break;
  case OpCode::AtomicCAS:
    expectOperands(3, 3);
    break;
  case OpCode::Load:
    // (A descriptor load's trailing operands are for the GPU's TMA copies: ignored here.)
    expectOperands(1, op.hasAttr("descriptor") ? 3 + op.operand(0)->type().rank()
                      : op.hasAttr("kernel_descriptor")
                          ? tir::kernelDescriptorLoadOperands(op.operand(0)->type().rank())
                          : 3);
    break;
  case OpCode::Store:
    // (As a descriptor load's, a descriptor store's trailing offsets are for the GPU's TMA.)
    expectOperands(2, op.hasAttr("descriptor") ? 3 + op.operand(0)->type().rank() : 3);
    break;
  case OpCode::For:
    if (op.numOperands() < 3 || op.numRegions() != 1 ||
        compiled.regions[0].args.size() != op.numOperands() - 2)
      compileError(op, "expects lb, ub, step, inits and one region taking (iv, iters...)");
    for (unsigned i = 0; i < 3; ++i)
      expectInteger(i, "a loop bound or step");
    if (!op.region(0).block().argument(0)->type().elem.isInteger())
      compileError(op, "the induction variable must be an integer");
    break;
  case OpCode::If:
    if (op.numOperands() != 1 || op.numRegions() < 1 || op.numRegions() > 2)
      compileError(op, "expects a condition and a then (and else) region");
    expectInteger(0, "the condition");
    break;
  case OpCode::Condition:
    if (op.numOperands() < 1)
      compileError(op, "expects a condition");
    expectInteger(0, "the condition");
    break;
  case OpCode::While:
    if (op.numRegions() != 2 || compiled.regions[0].args.size() != op.numOperands())
      compileError(op, "expects a before region taking the inits and an after region");
    break;
  case OpCode::Assert:
    expectOperands(1, 1);
    expectInteger(0, "the condition");
    break;
  case OpCode::Trans: {
    expectOperands(1, 1);
    if (!op.hasAttr("order") || !std::holds_alternative<std::vector<int64_t>>(op.attr("order")))
      compileError(op, "missing attribute 'order'");
    const auto &order = std::get<std::vector<int64_t>>(op.attr("order"));
    const tir::Type &in = op.operand(0)->type(), &out = op.result()->type();
    if (order.size() != in.rank() || out.rank() != in.rank() || out.elem != in.elem)
      compileError(op, "the order or the result type does not match the operand");
    for (unsigned d = 0; d < in.rank(); ++d)
      if (order[d] < 0 || order[d] >= static_cast<int64_t>(in.rank()) ||
          out.shape[d] != in.shape[order[d]])
        compileError(op, "the result shape is not the permuted operand shape");
    break;
  }
  case OpCode::Reshape:
    expectOperands(1, 1);
    if (op.operand(0)->type().numElements() != op.result()->type().numElements() ||
        op.operand(0)->type().elem != op.result()->type().elem)
      compileError(op, "must keep the number and type of elements");
    break;
  case OpCode::MapElementwise: {
    if (!op.hasAttr("pack") || !std::holds_alternative<int64_t>(op.attr("pack")) ||
        op.intAttr("pack") < 1)
      compileError(op, "needs an attribute pack of at least 1");
    unsigned pack = static_cast<unsigned>(op.intAttr("pack"));
    if (op.numOperands() == 0 || op.numResults() == 0 || op.numRegions() != 1 ||
        compiled.regions[0].args.size() != pack * op.numOperands())
      compileError(op, "needs operands, results and a region of pack arguments per operand");
    const tir::Block &body = op.region(0).block();
    const tir::Operation *yield = body.terminator();
    if (!yield || yield->code() != OpCode::Yield || yield->numOperands() != pack * op.numResults())
      compileError(op, "the region must yield pack values per result");
    for (unsigned a = 0; a < body.numArguments(); ++a)
      if (body.argument(a)->type().elem != op.operand(a / pack)->type().elem ||
          op.operand(a / pack)->type().shape != op.result(0)->type().shape)
        compileError(op, "operand " + std::to_string(a / pack) +
                             " does not match its region arguments or the results' shape");
    for (unsigned y = 0; y < yield->numOperands(); ++y)
      if (yield->operand(y)->type().elem != op.result(y / pack)->type().elem ||
          op.result(y / pack)->type().shape != op.result(0)->type().shape)
        compileError(op, "result " + std::to_string(y / pack) + " does not match what is yielded");
    break;
  }
  case OpCode::Dot: {
    expectOperands(3, 3);
    if (!parseDotPrecision(stringAttr("input_precision"), compiled.dotPrecision))
      compileError(op, "unknown input_precision '" + op.strAttr("input_precision") + "'");
    const tir::Type &a = op.operand(0)->type(), &b = op.operand(1)->type();
    if ((a.rank() != 2 && a.rank() != 3) || b.rank() != a.rank() ||
        op.operand(2)->type().rank() != a.rank())
      compileError(op, "operands must be all 2-D or all 3-D");
    if (a.elem != b.elem || op.operand(2)->type().elem != op.result()->type().elem)
      compileError(op, "operand types do not match");
    break;
  }
  default:
    break;
  }
  return compiled;
}

//===----------------------------------------------------------------------===//
// Arguments and the grid
//===----------------------------------------------------------------------===//

void Machine::bindArguments(const std::vector<KernelArg> &args) {
  const tir::Block &body = kernel_.body();
  auto argError = [&](const std::string &message) {
    throw InterpError(kernel_.loc(), "kernel '" + kernel_.name() + "': " + message);
  };
  if (args.size() != body.numArguments())
    argError("takes " + std::to_string(body.numArguments()) + " arguments but " +
             std::to_string(args.size()) + " were given");
  const bool haveParams = kernel_.params.size() == body.numArguments();

  for (unsigned i = 0; i < body.numArguments(); ++i) {
    const KernelArg &arg = args[i];
    const tir::Type &type = body.argument(i)->type();
    const std::string name = haveParams ? kernel_.params[i].name : "#" + std::to_string(i);
    const std::string what = "argument '" + name + "' (" + type.str() + ")";
    if (type.isTensor())
      argError(what + " is a tensor; kernel parameters are scalars or pointers");
    Tensor &value = slot(body_.args[i]);
    value.reset(type);
    tir::DType dtype = type.elem;

    if (dtype.isPointer()) {
      if (arg.kind != KernelArg::Kind::Pointer || !arg.buffer)
        argError(what + " needs a buffer");
      HostBuffer &buffer = *arg.buffer;
      if (buffer.elementType() != dtype.pointeeType())
        argError(what + " needs a buffer of " + dtype.pointeeType().str() + ", not of " +
                 buffer.elementType().str());
      if (arg.elementOffset < 0 || static_cast<uint64_t>(arg.elementOffset) > buffer.size())
        argError(what + " points " + std::to_string(arg.elementOffset) +
                 " elements into a buffer of " + std::to_string(buffer.size()));
      int64_t byteOffset = arg.elementOffset * buffer.elementType().bytes();
      unsigned alignment = haveParams ? kernel_.params[i].alignment : 0;
      if (alignment != 0 && byteOffset % alignment != 0)
        argError(what + " is declared " + std::to_string(alignment) + "-byte aligned but starts " +
                 std::to_string(byteOffset) + " bytes into its buffer");
      int32_t id = -1;
      for (size_t b = 0; b < buffers_.size(); ++b)
        if (buffers_[b].buffer == &buffer)
          id = static_cast<int32_t>(b);
      if (id < 0) {
        id = static_cast<int32_t>(buffers_.size());
        buffers_.push_back(
            {&buffer, buffer.data(), static_cast<int64_t>(buffer.sizeInBytes()), name});
      }
      value.lanes<PtrLane>()[0] = PtrLane{byteOffset, id};
      continue;
    }
    if (arg.kind == KernelArg::Kind::Pointer)
      argError(what + " is a scalar but was given a buffer");

    if (dtype.isInteger()) {
      int64_t v = arg.intValue;
      if (arg.kind == KernelArg::Kind::Float) {
        double d = arg.floatValue;
        if (!(std::trunc(d) == d && d >= -0x1p63 && d < 0x1p63))
          argError(what + " needs an integer, not " + formatFloat(d, true));
        v = static_cast<int64_t>(d);
      }
      bool fits;
      if (dtype.isBool())
        fits = v == 0 || v == 1;
      else if (dtype.isUnsigned())
        fits = v >= 0 &&
               (dtype.bits() == 64 || v <= static_cast<int64_t>((uint64_t(1) << dtype.bits()) - 1));
      else
        fits = dtype.bits() == 64 ||
               (v >= -(int64_t(1) << (dtype.bits() - 1)) && v < (int64_t(1) << (dtype.bits() - 1)));
      if (!fits)
        argError(what + ": " + std::to_string(v) + " does not fit the type");
      value.lanes<int64_t>()[0] = v;
      continue;
    }
    double d = arg.kind == KernelArg::Kind::Float ? roundToFloatType(arg.floatValue, dtype.kind)
                                                  : integerToFloat(arg.intValue, false, dtype.kind);
    if (value.laneKind() == LaneKind::Float)
      value.lanes<float>()[0] = static_cast<float>(d);
    else
      value.lanes<double>()[0] = d;
  }
}

void Machine::runGrid() {
  const unsigned *grid = options_.grid;
  for (unsigned z = 0; z < grid[2]; ++z) {
    for (unsigned y = 0; y < grid[1]; ++y) {
      for (unsigned x = 0; x < grid[0]; ++x) {
        programId_[0] = x;
        programId_[1] = y;
        programId_[2] = z;
        CompiledOp *terminator = execBlock(body_);
        if (!terminator || terminator->code != OpCode::Return)
          throw InterpError(kernel_.loc(),
                            "kernel '" + kernel_.name() + "' does not end in 'return'");
      }
    }
  }
}

//===----------------------------------------------------------------------===//
// Execution
//===----------------------------------------------------------------------===//

CompiledOp *Machine::execBlock(CompiledBlock &block) {
  for (CompiledOp &op : block.ops) {
    if (tir::isTerminator(op.code))
      return &op;
    execOp(op);
  }
  return nullptr;
}

const Tensor &Machine::operandWithLanes(CompiledOp &op, unsigned i,
                                        const std::vector<int64_t> &shape, int64_t count) {
  const Tensor &operand = slot(op.operands[i]);
  if (operand.numElements() == count)
    return operand;
  if (operand.numElements() != 1)
    fail("operand " + std::to_string(i) + " has " + std::to_string(operand.numElements()) +
         " elements where " + std::to_string(count) + " are expected");
  if (op.scratch.size() <= i)
    op.scratch.resize(i + 1);
  broadcastInto(operand, shape, operand.dtype(), op.scratch[i]);
  return op.scratch[i];
}

void Machine::execOp(CompiledOp &op) {
  currentOp_ = op.op;
  Tensor *out = nullptr;
  if (!op.results.empty() && op.code != OpCode::For && op.code != OpCode::If &&
      op.code != OpCode::While) {
    out = &slot(op.results[0]);
    if (!op.materialised)
      out->reset(op.op->result()->type());
  }

  switch (op.code) {
  case OpCode::Constant:
    if (!op.materialised) {
      broadcastInto(op.constant, out->shape(), out->dtype(), *out);
      op.materialised = true;
    }
    return;
  case OpCode::MakeRange:
    if (!op.materialised) {
      int64_t start = op.op->intAttr("start");
      int64_t *lanes = out->lanes<int64_t>();
      for (int64_t i = 0; i < out->numElements(); ++i)
        lanes[i] = wrapInteger(static_cast<uint64_t>(start + i), out->dtype().kind);
      op.materialised = true;
    }
    return;
  case OpCode::ProgramId:
    out->lanes<int64_t>()[0] = programId_[op.axis];
    return;
  case OpCode::NumPrograms:
    out->lanes<int64_t>()[0] = options_.grid[op.axis];
    return;
  case OpCode::Splat:
  case OpCode::Broadcast:
    broadcastInto(slot(op.operands[0]), out->shape(), out->dtype(), *out);
    return;
  case OpCode::ExpandDims:
  case OpCode::Reshape:
  case OpCode::ConvertLayout: {
    // Layouts do not exist here; expand_dims and reshape keep the row-major order: copy the lanes.
    const Tensor &in = slot(op.operands[0]);
    if (in.numElements() != out->numElements())
      fail("changes the number of elements");
    std::vector<int64_t> shape = out->shape();
    out->copyFrom(in);
    out->setShape(shape);
    return;
  }
  case OpCode::Trans:
    return evalTrans(slot(op.operands[0]), std::get<std::vector<int64_t>>(op.op->attr("order")),
                     *out);
  case OpCode::Dot:
    return evalDot(slot(op.operands[0]), slot(op.operands[1]), slot(op.operands[2]),
                   op.dotPrecision, *out, *this);
  case OpCode::AddPtr:
    return execAddPtr(op, *out);
  case OpCode::Load:
    return execLoad(op, *out);
  case OpCode::Store:
    return execStore(op);
  case OpCode::AtomicRMW:
    return execAtomicRMW(op, *out);
  case OpCode::AtomicCAS:
    return execAtomicCAS(op, *out);
  case OpCode::Reduce:
  case OpCode::ArgReduce:
    if (op.reduceKind == ReduceKind::Combine)
      return execCombining(op);
    return execReduce(op, *out);
  case OpCode::Scan:
    if (op.reduceKind == ReduceKind::Combine)
      return execCombining(op);
    return evalScan(op.scanProduct, op.scanReverse, op.axis, slot(op.operands[0]), *out, *this);
  case OpCode::For:
    return execFor(op);
  case OpCode::If:
    return execIf(op);
  case OpCode::While:
    return execWhile(op);
  case OpCode::MapElementwise:
    return execMapElementwise(op);
  case OpCode::Print:
    return execPrint(op);
  case OpCode::Assert:
    return execAssert(op);
  case OpCode::Histogram:
    return execHistogram(op, *out);
  case OpCode::Gather:
    return execGather(op, *out);
  case OpCode::Barrier:
    return; // programs run one at a time: there is nothing to wait for
  case OpCode::InlineAsm: {
    // Programmatic dependent launch (tl.extra.cuda.gdc_wait, gdc_launch_dependents): grids run
    // one after the other here, so there is nothing to wait for and nothing to start early.
    const std::string &assembly = op.op->strAttr("asm");
    if (assembly.rfind("griddepcontrol.wait;", 0) == 0 ||
        assembly.rfind("griddepcontrol.launch_dependents;", 0) == 0) {
      if (out)
        for (int64_t i = 0, n = out->numElements(); i < n; ++i)
          out->lanes<int64_t>()[i] = 0;
      return;
    }
    fail("tl.inline_asm_elementwise is not supported on the interpreter: it cannot run the "
         "PTX inline assembly");
  }
  case OpCode::Condition:
  case OpCode::Yield:
  case OpCode::Return:
    fail("terminator in the middle of a block");
  default:
    break;
  }
  if (!tir::isElementwise(op.code) || !out)
    fail("this operation is not supported by the interpreter yet");
  execElementwise(op, *out);
}

void Machine::execElementwise(CompiledOp &op, Tensor &out) {
  const std::vector<int64_t> &shape = out.shape();
  const int64_t count = out.numElements();
  auto operand = [&](unsigned i) -> const Tensor & {
    return operandWithLanes(op, i, shape, count);
  };
  switch (op.code) {
  case OpCode::Cmp:
    return evalCmp(op.predicate, operand(0), operand(1), out, *this);
  case OpCode::Select: {
    const Tensor &cond = slot(op.operands[0]);
    return evalSelect(cond.numElements() == 1 ? cond : operand(0), operand(1), operand(2), out);
  }
  case OpCode::Cast:
  case OpCode::Bitcast: {
    const Tensor &in = operand(0);
    if (in.laneKind() == LaneKind::Ptr || out.laneKind() == LaneKind::Ptr)
      return execPointerCast(op, out);
    if (op.code == OpCode::Cast)
      return op.roundTowardZero ? evalCastTowardZero(in, out) : evalCast(in, out);
    return evalBitcast(in, out, *this);
  }
  case OpCode::Fma:
    return evalFma(operand(0), operand(1), operand(2), out, *this);
  case OpCode::Libdevice: {
    // Sized first: operandWithLanes resizing scratch would move the tensors already taken.
    if (op.scratch.size() < op.operands.size())
      op.scratch.resize(op.operands.size());
    std::vector<const Tensor *> args;
    for (unsigned i = 0; i < op.operands.size(); ++i)
      args.push_back(&operand(i));
    if (op.libdeviceExtern)
      return op.libdeviceExtern(args, out);
    return evalLibdevice(*op.libdevice, args, out, *this);
  }
  default:
    break;
  }
  if (op.clip)
    return evalClip(operand(0), operand(1), out, op.propagateNan);
  if (op.propagateNan)
    return evalMaxMinPropagatingNan(op.code, operand(0), operand(1), out, *this);
  if (op.operands.size() == 2)
    return evalBinary(op.code, operand(0), operand(1), out, *this);
  if (op.operands.size() == 1)
    return evalUnary(op.code, operand(0), out, *this,
                     op.code == OpCode::Sqrt && !op.op->hasAttr("ieee"));
  fail("has " + std::to_string(op.operands.size()) + " operands");
}

//===----------------------------------------------------------------------===//
// Control flow
//===----------------------------------------------------------------------===//

void Machine::assignYielded(CompiledOp &owner, const CompiledOp &terminator, unsigned firstOperand,
                            const std::vector<unsigned> &targets, unsigned firstTarget) {
  const size_t count = terminator.operands.size() - firstOperand;
  if (count != targets.size() - firstTarget) {
    currentOp_ = terminator.op;
    fail("passes " + std::to_string(count) + " values where " +
         std::to_string(targets.size() - firstTarget) + " are expected");
  }
  if (owner.scratch.size() < count)
    owner.scratch.resize(count);
  for (size_t k = 0; k < count; ++k)
    owner.scratch[k].copyFrom(slot(terminator.operands[firstOperand + k]));
  // Swapping hands the old argument storage to scratch for the next iteration: no allocation.
  for (size_t k = 0; k < count; ++k)
    std::swap(slot(targets[firstTarget + k]), owner.scratch[k]);
}

void Machine::execFor(CompiledOp &op) {
  const tir::Type &ivType = op.op->region(0).block().argument(0)->type();
  const bool isUnsigned = ivType.elem.isUnsigned();
  const int64_t lowerBound = scalarInt(op.operands[0]);
  const int64_t upperBound = scalarInt(op.operands[1]);
  const int64_t step = scalarInt(op.operands[2]);
  CompiledBlock &body = op.regions[0];

  for (size_t k = 3; k < op.operands.size(); ++k)
    slot(body.args[k - 2]).copyFrom(slot(op.operands[k]));

  auto inRange = [&](int64_t iv) {
    if (isUnsigned)
      return static_cast<uint64_t>(iv) < static_cast<uint64_t>(upperBound);
    return step > 0 ? iv < upperBound : iv > upperBound;
  };
  if (step == 0 && inRange(lowerBound))
    fail("loop step is zero: the loop would never end");

  for (int64_t iv = lowerBound; inRange(iv);) {
    Tensor &ivSlot = slot(body.args[0]);
    ivSlot.reset(ivType);
    ivSlot.lanes<int64_t>()[0] = iv;
    CompiledOp *yield = execBlock(body);
    if (!yield || yield->code != OpCode::Yield) {
      currentOp_ = op.op;
      fail("loop body does not end in 'yield'");
    }
    assignYielded(op, *yield, 0, body.args, 1);
    int64_t next;
    if (__builtin_add_overflow(iv, step, &next) ||
        next != wrapInteger(static_cast<uint64_t>(next), ivType.elem.kind))
      break; // the induction variable would leave its type: the range is exhausted
    iv = next;
  }
  for (size_t r = 0; r < op.results.size(); ++r)
    slot(op.results[r]).copyFrom(slot(body.args[r + 1]));
}

void Machine::execIf(CompiledOp &op) {
  bool condition = scalarInt(op.operands[0]) != 0;
  unsigned region = condition ? 0 : 1;
  if (region >= op.regions.size()) {
    if (!op.results.empty())
      fail("has results but no else region");
    return;
  }
  CompiledOp *yield = execBlock(op.regions[region]);
  currentOp_ = op.op;
  if (!yield || yield->code != OpCode::Yield)
    fail("region does not end in 'yield'");
  if (yield->operands.size() != op.results.size())
    fail("region yields " + std::to_string(yield->operands.size()) + " values for " +
         std::to_string(op.results.size()) + " results");
  for (size_t r = 0; r < op.results.size(); ++r)
    slot(op.results[r]).copyFrom(slot(yield->operands[r]));
}

void Machine::execWhile(CompiledOp &op) {
  CompiledBlock &before = op.regions[0];
  CompiledBlock &after = op.regions[1];
  for (size_t k = 0; k < op.operands.size(); ++k)
    slot(before.args[k]).copyFrom(slot(op.operands[k]));
  // The programs run one after another, each to its end, and nothing else runs meanwhile: an
  // iteration that wrote no memory and left the carried values as they were repeats forever.
  // That is a loop waiting for another program (a grid-wide barrier, a spin lock, a look-back
  // on a later program): fail instead of hanging. The carried values are kept for comparison
  // only after a few iterations in a row without writes.
  const int kQuietBeforeWatching = 8;
  int quietIterations = 0;
  std::vector<Tensor> carried;
  while (true) {
    const uint64_t writes = memoryWrites_;
    const bool watching = quietIterations >= kQuietBeforeWatching;
    if (watching) {
      carried.resize(before.args.size());
      for (size_t k = 0; k < before.args.size(); ++k)
        carried[k].copyFrom(slot(before.args[k]));
    }
    CompiledOp *condition = execBlock(before);
    currentOp_ = op.op;
    if (!condition || condition->code != OpCode::Condition || condition->operands.empty())
      fail("before region does not end in 'condition'");
    const size_t count = condition->operands.size() - 1;
    if (scalarInt(condition->operands[0]) == 0) {
      if (count != op.results.size())
        fail("condition passes " + std::to_string(count) + " values for " +
             std::to_string(op.results.size()) + " results");
      for (size_t r = 0; r < count; ++r)
        slot(op.results[r]).copyFrom(slot(condition->operands[r + 1]));
      return;
    }
    if (count != after.args.size())
      fail("condition passes " + std::to_string(count) + " values to an after region taking " +
           std::to_string(after.args.size()));
    for (size_t k = 0; k < count; ++k)
      slot(after.args[k]).copyFrom(slot(condition->operands[k + 1]));
    CompiledOp *yield = execBlock(after);
    currentOp_ = op.op;
    if (!yield || yield->code != OpCode::Yield)
      fail("after region does not end in 'yield'");
    assignYielded(op, *yield, 0, before.args, 0);
    if (memoryWrites_ != writes) {
      quietIterations = 0;
      continue;
    }
    bool unchanged = watching;
    for (size_t k = 0; unchanged && k < before.args.size(); ++k)
      unchanged = sameLanes(carried[k], slot(before.args[k]));
    if (unchanged)
      fail("this while loop never ends: an iteration changed neither memory nor the values the "
           "loop carries. The interpreter runs the programs one after another, so a loop that "
           "waits for another program to write (a grid-wide barrier such as "
           "triton_helpers.x_grid_barrier with more than one program along axis 0, a spin "
           "lock, a look-back on a later program) would wait forever; it needs the GPU");
    ++quietIterations;
  }
}

//===----------------------------------------------------------------------===//
// Pointers and memory
//===----------------------------------------------------------------------===//

std::string Machine::describePointer(const PtrLane &p, unsigned elementBytes) const {
  if (p.buffer < 0)
    return "an address in no buffer";
  const BufferEntry &entry = buffers_[p.buffer];
  // Floor division, so that one element before the start reads as index -1.
  int64_t index = p.byteOffset / elementBytes;
  if (p.byteOffset % elementBytes != 0 && p.byteOffset < 0)
    --index;
  std::string text = "element " + std::to_string(index) + " of '" + entry.name + "'";
  if (p.byteOffset % elementBytes != 0)
    text += " + " + std::to_string(p.byteOffset - index * elementBytes) + " bytes";
  return text;
}

void Machine::invalidAccess(const Tensor &pointers, int64_t lane, unsigned bytes,
                            const char *what) const {
  const PtrLane &p = pointers.lanes<PtrLane>()[lane];
  tir::DType element = pointers.dtype().pointeeType();
  std::string where = pointers.isScalar() ? "" : " at index " + formatIndex(pointers.shape(), lane);
  if (p.buffer < 0)
    fail(std::string("invalid ") + what + where +
         ": the pointer points into no buffer passed to "
         "the kernel");
  const BufferEntry &entry = buffers_[p.buffer];
  std::string size = std::to_string(entry.bytes / bytes) + " " + element.str() + " elements";
  if (p.byteOffset >= 0 && p.byteOffset <= entry.bytes - bytes)
    fail(std::string("misaligned ") + what + where + ": " + describePointer(p, bytes) +
         " is not aligned to " + std::to_string(bytes) + " bytes");
  fail(std::string("out-of-bounds ") + what + where + ": " + describePointer(p, bytes) +
       ", which has " + size);
}

void Machine::execAddPtr(CompiledOp &op, Tensor &out) {
  const Tensor &pointers = operandWithLanes(op, 0, out.shape(), out.numElements());
  const Tensor &offsets = operandWithLanes(op, 1, out.shape(), out.numElements());
  expectElementType(pointers, out.dtype(), "the pointer");
  if (offsets.laneKind() != LaneKind::Int)
    fail("the offset is " + offsets.dtype().str() + ", not an integer");
  const uint64_t elementBytes = out.dtype().pointeeType().bytes();
  const PtrLane *p = pointers.lanes<PtrLane>();
  const int64_t *o = offsets.lanes<int64_t>();
  PtrLane *r = out.lanes<PtrLane>();
  for (int64_t i = 0, n = out.numElements(); i < n; ++i)
    r[i] = PtrLane{static_cast<int64_t>(static_cast<uint64_t>(p[i].byteOffset) +
                                        static_cast<uint64_t>(o[i]) * elementBytes),
                   p[i].buffer};
}

void Machine::execPointerCast(CompiledOp &op, Tensor &out) {
  const Tensor &in = operandWithLanes(op, 0, out.shape(), out.numElements());
  const int64_t n = out.numElements();
  if (in.laneKind() == LaneKind::Ptr && out.laneKind() == LaneKind::Ptr) {
    std::memcpy(out.lanes<PtrLane>(), in.lanes<PtrLane>(), n * sizeof(PtrLane));
    return;
  }
  if (in.laneKind() == LaneKind::Ptr && out.laneKind() == LaneKind::Int) {
    // A pointer converts to the host address it stands for.
    for (int64_t i = 0; i < n; ++i) {
      PtrLane p = in.lanes<PtrLane>()[i];
      uint64_t base = p.buffer < 0 ? 0 : reinterpret_cast<uintptr_t>(buffers_[p.buffer].data);
      out.lanes<int64_t>()[i] =
          wrapInteger(base + static_cast<uint64_t>(p.byteOffset), out.dtype().kind);
    }
    return;
  }
  if (in.laneKind() == LaneKind::Int && out.laneKind() == LaneKind::Ptr) {
    // An address converts back to a pointer into the buffer that holds it, if any.
    for (int64_t i = 0; i < n; ++i) {
      uint64_t address = static_cast<uint64_t>(in.lanes<int64_t>()[i]);
      PtrLane p{static_cast<int64_t>(address), kNoBuffer};
      for (size_t b = 0; b < buffers_.size(); ++b) {
        uint64_t base = reinterpret_cast<uintptr_t>(buffers_[b].data);
        if (address >= base && address <= base + static_cast<uint64_t>(buffers_[b].bytes)) {
          p = PtrLane{static_cast<int64_t>(address - base), static_cast<int32_t>(b)};
          break;
        }
      }
      out.lanes<PtrLane>()[i] = p;
    }
    return;
  }
  fail("cannot convert " + in.dtype().str() + " to " + out.dtype().str());
}

void Machine::execLoad(CompiledOp &op, Tensor &out) {
  const int64_t n = out.numElements();
  const Tensor &pointers = operandWithLanes(op, 0, out.shape(), n);
  const Tensor *mask = op.operands.size() >= 2 ? &operandWithLanes(op, 1, out.shape(), n) : nullptr;
  const Tensor *other =
      op.operands.size() >= 3 ? &operandWithLanes(op, 2, out.shape(), n) : nullptr;
  expectElementType(pointers, tir::DType::pointer(out.dtype().kind), "the pointer");
  if (mask)
    expectElementType(*mask, tir::DType::scalar(ScalarKind::I1), "the mask");
  if (other)
    expectElementType(*other, out.dtype(), "'other'");
  const ScalarKind kind = out.dtype().kind;
  const unsigned bytes = out.dtype().bytes();
  withElementCodec(kind, [&](auto codec) {
    using Codec = decltype(codec);
    using Lane = typename Codec::Lane;
    Lane *r = out.lanes<Lane>();
    if (!mask) {
      for (int64_t i = 0; i < n; ++i)
        r[i] = Codec::load(access(pointers, i, bytes, "load"));
      return;
    }
    const int64_t *m = mask->lanes<int64_t>();
    const Lane *fallback = other ? other->lanes<Lane>() : nullptr;
    for (int64_t i = 0; i < n; ++i) {
      if (m[i])
        r[i] = Codec::load(access(pointers, i, bytes, "load"));
      else
        r[i] = fallback ? fallback[i] : Lane(0); // masked-off lanes never touch memory
    }
  });
}

void Machine::execStore(CompiledOp &op) {
  const Tensor &pointers = slot(op.operands[0]);
  const int64_t n = pointers.numElements();
  const Tensor &values = operandWithLanes(op, 1, pointers.shape(), n);
  const Tensor *mask =
      op.operands.size() >= 3 ? &operandWithLanes(op, 2, pointers.shape(), n) : nullptr;
  if (!pointers.dtype().isPointer())
    fail("stores through " + pointers.dtype().str() + ", which is not a pointer");
  tir::DType element = pointers.dtype().pointeeType();
  expectElementType(values, element, "the value");
  if (mask)
    expectElementType(*mask, tir::DType::scalar(ScalarKind::I1), "the mask");
  const unsigned bytes = element.bytes();
  withElementCodec(element.kind, [&](auto codec) {
    using Codec = decltype(codec);
    using Lane = typename Codec::Lane;
    const Lane *v = values.lanes<Lane>();
    const int64_t *m = mask ? mask->lanes<int64_t>() : nullptr;
    for (int64_t i = 0; i < n; ++i)
      if (!m || m[i]) {
        Codec::store(access(pointers, i, bytes, "store"), v[i]);
        ++memoryWrites_;
      }
  });
}

void Machine::execAtomicRMW(CompiledOp &op, Tensor &out) {
  const int64_t n = out.numElements();
  const Tensor &pointers = operandWithLanes(op, 0, out.shape(), n);
  const Tensor &values = operandWithLanes(op, 1, out.shape(), n);
  const Tensor *mask = op.operands.size() >= 3 ? &operandWithLanes(op, 2, out.shape(), n) : nullptr;
  const tir::DType dtype = out.dtype();
  expectElementType(pointers, tir::DType::pointer(dtype.kind), "the pointer");
  expectElementType(values, dtype, "the value");
  if (mask)
    expectElementType(*mask, tir::DType::scalar(ScalarKind::I1), "the mask");
  const unsigned bytes = dtype.bytes();
  const AtomicKind kind = op.atomicKind;
  if (!dtype.isInteger() &&
      (kind == AtomicKind::And || kind == AtomicKind::Or || kind == AtomicKind::Xor))
    fail("bitwise atomics need an integer type, not " + dtype.str());

  withElementCodec(dtype.kind, [&](auto codec) {
    using Codec = decltype(codec);
    using Lane = typename Codec::Lane;
    const Lane *v = values.lanes<Lane>();
    const int64_t *m = mask ? mask->lanes<int64_t>() : nullptr;
    Lane *r = out.lanes<Lane>();
    auto combine = [&](Lane old, Lane value) -> Lane {
      if constexpr (std::is_same_v<Lane, int64_t>) {
        auto u = [](int64_t x) { return static_cast<uint64_t>(x); };
        bool isSigned = dtype.isSigned();
        switch (kind) {
        case AtomicKind::Add:
          return wrapInteger(u(old) + u(value), dtype.kind);
        case AtomicKind::Max:
          return (isSigned ? old > value : u(old) > u(value)) ? old : value;
        case AtomicKind::Min:
          return (isSigned ? old < value : u(old) < u(value)) ? old : value;
        case AtomicKind::And:
          return old & value;
        case AtomicKind::Or:
          return old | value;
        case AtomicKind::Xor:
          return old ^ value;
        case AtomicKind::Xchg:
          break;
        }
        return value;
      } else {
        switch (kind) {
        case AtomicKind::Add:
          if constexpr (std::is_same_v<Lane, float>)
            return roundFloatLane(old + value, dtype.kind);
          else
            return old + value;
        case AtomicKind::Max:
          return maxNum(old, value);
        case AtomicKind::Min:
          return minNum(old, value);
        default:
          return value;
        }
      }
    };
    // Lanes apply one after another, as the hardware serialises atomics to one address.
    for (int64_t i = 0; i < n; ++i) {
      if (m && !m[i]) {
        r[i] = Lane(0);
        continue;
      }
      unsigned char *address = access(pointers, i, bytes, "atomic access");
      Lane old = Codec::load(address);
      Lane updated = combine(old, v[i]);
      Codec::store(address, updated);
      // An atomic that leaves the word as it was (an atomic read: add 0, or 0) writes nothing.
      if (laneBits(updated, dtype.kind) != laneBits(old, dtype.kind))
        ++memoryWrites_;
      r[i] = old;
    }
  });
}

void Machine::execAtomicCAS(CompiledOp &op, Tensor &out) {
  const int64_t n = out.numElements();
  const Tensor &pointers = operandWithLanes(op, 0, out.shape(), n);
  const Tensor &expected = operandWithLanes(op, 1, out.shape(), n);
  const Tensor &values = operandWithLanes(op, 2, out.shape(), n);
  const tir::DType dtype = out.dtype();
  expectElementType(pointers, tir::DType::pointer(dtype.kind), "the pointer");
  expectElementType(expected, dtype, "the compared value");
  expectElementType(values, dtype, "the value");
  const unsigned bytes = dtype.bytes();
  withElementCodec(dtype.kind, [&](auto codec) {
    using Codec = decltype(codec);
    using Lane = typename Codec::Lane;
    const Lane *e = expected.lanes<Lane>();
    const Lane *v = values.lanes<Lane>();
    Lane *r = out.lanes<Lane>();
    for (int64_t i = 0; i < n; ++i) {
      unsigned char *address = access(pointers, i, bytes, "atomic access");
      Lane old = Codec::load(address);
      if (laneBits(old, dtype.kind) == laneBits(e[i], dtype.kind)) {
        Codec::store(address, v[i]);
        if (laneBits(v[i], dtype.kind) != laneBits(old, dtype.kind))
          ++memoryWrites_;
      }
      r[i] = old;
    }
  });
}

//===----------------------------------------------------------------------===//
// Reductions, printing, assertions
//===----------------------------------------------------------------------===//

void Machine::execReduce(CompiledOp &op, Tensor &out) {
  const Tensor &in = slot(op.operands[0]);
  if (op.code == OpCode::ArgReduce || in.dtype() == out.dtype())
    return evalReduce(op.reduceKind, op.axis, in, out, *this);
  // A reduction into another type (fp16 summed as fp32, say) converts its operand first.
  if (op.scratch.empty())
    op.scratch.resize(1);
  Tensor &converted = op.scratch[0];
  converted.reset(out.dtype(), in.shape());
  evalCast(in, converted);
  evalReduce(op.reduceKind, op.axis, converted, out, *this);
}

void Machine::checkCombineRegion(const tir::Operation &op, CompiledOp &compiled) {
  unsigned n = op.numOperands();
  if (op.numResults() != n || op.numRegions() != 1 || compiled.regions[0].args.size() != 2 * n)
    compileError(op, "a combine needs N operands, N results and a region of 2N arguments");
  const tir::Operation *yield = op.region(0).block().terminator();
  if (!yield || yield->code() != OpCode::Yield || yield->numOperands() != n)
    compileError(op, "the combine region must yield one value per operand");
  for (unsigned i = 0; i < n; ++i) {
    tir::DType t = op.operand(i)->type().elem;
    if (op.operand(i)->type().shape != op.operand(0)->type().shape ||
        op.result(i)->type().elem != t || yield->operand(i)->type().elem != t ||
        op.region(0).block().argument(i)->type().elem != t ||
        op.region(0).block().argument(i + n)->type().elem != t)
      compileError(op, "operand " + std::to_string(i) +
                           " does not match its result or combine arguments");
  }
}

void Machine::combineLanes(CompiledOp &op, const std::vector<const Tensor *> &lhs, int64_t l,
                           const std::vector<const Tensor *> &rhs, int64_t r,
                           const std::vector<Tensor *> &out, int64_t o) {
  CompiledBlock &region = op.regions[0];
  size_t n = lhs.size();
  auto copyLane = [](const Tensor &from, int64_t i, Tensor &to, int64_t j) {
    size_t bytes = laneBytes(from.laneKind());
    std::memcpy(to.lanes<unsigned char>() + j * bytes, from.lanes<unsigned char>() + i * bytes,
                bytes);
  };
  for (size_t i = 0; i < n; ++i) {
    copyLane(*lhs[i], l, slot(region.args[i]), 0);
    copyLane(*rhs[i], r, slot(region.args[i + n]), 0);
  }
  CompiledOp *yield = execBlock(region);
  for (size_t i = 0; i < n; ++i)
    copyLane(slot(yield->operands[i]), 0, *out[i], o);
  currentOp_ = op.op;
}

void Machine::execCombining(CompiledOp &op) {
  const tir::Operation &ir = *op.op;
  const size_t n = op.operands.size();
  CompiledBlock &region = op.regions[0];
  for (size_t i = 0; i < n; ++i) {
    slot(region.args[i]).reset(ir.region(0).block().argument(static_cast<unsigned>(i))->type());
    slot(region.args[i + n])
        .reset(ir.region(0).block().argument(static_cast<unsigned>(i + n))->type());
  }
  const std::vector<int64_t> &dims = slot(op.operands[0]).shape();
  int64_t outer = 1, length = dims[op.axis], inner = 1;
  for (int64_t d = 0; d < static_cast<int64_t>(dims.size()); ++d) {
    if (d < op.axis)
      outer *= dims[d];
    else if (d > op.axis)
      inner *= dims[d];
  }
  std::vector<const Tensor *> in;
  std::vector<Tensor *> out;
  for (size_t i = 0; i < n; ++i) {
    in.push_back(&slot(op.operands[i]));
    out.push_back(&slot(op.results[i]));
    out.back()->reset(ir.result(static_cast<unsigned>(i))->type());
  }
  std::vector<const Tensor *> outView(out.begin(), out.end());

  if (op.code == OpCode::Scan) {
    // Inclusive, in order along the axis (from its end when reversed): r[k] = f(r[k-1], x[k]).
    bool reverse = ir.hasAttr("reverse") && ir.boolAttr("reverse");
    for (int64_t o = 0; o < outer; ++o)
      for (int64_t j = 0; j < inner; ++j) {
        int64_t previous = -1;
        for (int64_t k = 0; k < length; ++k) {
          int64_t along = reverse ? length - 1 - k : k;
          int64_t index = (o * length + along) * inner + j;
          if (previous < 0) {
            for (size_t i = 0; i < n; ++i)
              std::memcpy(out[i]->lanes<unsigned char>() + index * laneBytes(in[i]->laneKind()),
                          in[i]->lanes<unsigned char>() + index * laneBytes(in[i]->laneKind()),
                          laneBytes(in[i]->laneKind()));
          } else {
            combineLanes(op, outView, previous, in, index, out, index);
          }
          previous = index;
        }
      }
    return;
  }

  // A reduction combines element r with element r + half, halving, as the built-in reductions
  // and the GPU's butterfly shuffles do.
  if (op.scratch.size() < n)
    op.scratch.resize(n);
  std::vector<Tensor *> work;
  for (size_t i = 0; i < n; ++i) {
    op.scratch[i].copyFrom(*in[i]);
    work.push_back(&op.scratch[i]);
  }
  std::vector<const Tensor *> workView(work.begin(), work.end());
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t m = length; m > 1;) {
      int64_t half = (m + 1) / 2;
      for (int64_t r = 0; r < m - half; ++r)
        for (int64_t j = 0; j < inner; ++j) {
          int64_t into = (o * length + r) * inner + j;
          int64_t from = (o * length + r + half) * inner + j;
          combineLanes(op, workView, into, workView, from, work, into);
        }
      m = half;
    }
    for (int64_t j = 0; j < inner; ++j)
      for (size_t i = 0; i < n; ++i) {
        size_t bytes = laneBytes(in[i]->laneKind());
        std::memcpy(out[i]->lanes<unsigned char>() + (o * inner + j) * bytes,
                    work[i]->lanes<unsigned char>() + (o * length * inner + j) * bytes, bytes);
      }
  }
}

void Machine::execMapElementwise(CompiledOp &op) {
  const tir::Operation &ir = *op.op;
  const tir::Block &body = ir.region(0).block();
  CompiledBlock &region = op.regions[0];
  const int64_t pack = ir.intAttr("pack");
  for (unsigned a = 0; a < region.args.size(); ++a)
    slot(region.args[a]).reset(body.argument(a)->type());
  std::vector<const Tensor *> in;
  for (unsigned operand : op.operands)
    in.push_back(&slot(operand));
  std::vector<Tensor *> out;
  for (unsigned r = 0; r < ir.numResults(); ++r) {
    out.push_back(&slot(op.results[r]));
    out.back()->reset(ir.result(r)->type());
  }
  auto copyLane = [](const Tensor &from, int64_t i, Tensor &to, int64_t j) {
    size_t bytes = laneBytes(from.laneKind());
    std::memcpy(to.lanes<unsigned char>() + j * bytes, from.lanes<unsigned char>() + i * bytes,
                bytes);
  };
  // Groups of `pack` consecutive elements; a last group that is short repeats its last element
  // and drops the extra results (as the GPU lowering does for a thread's last group).
  const int64_t n = out[0]->numElements();
  for (int64_t first = 0; first < n; first += pack) {
    for (size_t i = 0; i < in.size(); ++i)
      for (int64_t j = 0; j < pack; ++j)
        copyLane(*in[i], std::min(first + j, n - 1), slot(region.args[i * pack + j]), 0);
    CompiledOp *yield = execBlock(region);
    currentOp_ = op.op;
    for (size_t r = 0; r < out.size(); ++r)
      for (int64_t j = 0; j < pack && first + j < n; ++j)
        copyLane(slot(yield->operands[r * pack + j]), 0, *out[r], first + j);
  }
}

void Machine::execPrint(CompiledOp &op) {
  std::ostream &os = *options_.printStream;
  std::string prefix =
      op.op->hasAttr("prefix") && std::holds_alternative<std::string>(op.op->attr("prefix"))
          ? op.op->strAttr("prefix")
          : "";
  prefix = normalisePrintPrefix(prefix, !op.operands.empty());
  std::string pid = "pid (" + std::to_string(programId_[0]) + ", " + std::to_string(programId_[1]) +
                    ", " + std::to_string(programId_[2]) + ")";
  if (op.operands.empty()) {
    os << pid << prefix << "\n";
    return;
  }
  for (size_t k = 0; k < op.operands.size(); ++k) {
    const Tensor &value = slot(op.operands[k]);
    std::string operandTag =
        op.operands.size() > 1 ? "(operand " + std::to_string(k) + ") " : std::string();
    for (int64_t i = 0; i < value.numElements(); ++i) {
      os << pid << " idx " << formatIndex(value.shape(), i) << prefix << operandTag;
      tir::DType dtype = value.dtype();
      switch (value.laneKind()) {
      case LaneKind::Int:
        if (dtype.isUnsigned())
          os << static_cast<uint64_t>(value.lanes<int64_t>()[i]);
        else
          os << value.lanes<int64_t>()[i];
        break;
      case LaneKind::Float:
        os << formatFloat(value.lanes<float>()[i], false);
        break;
      case LaneKind::Double:
        os << formatFloat(value.lanes<double>()[i], true);
        break;
      case LaneKind::Ptr: {
        PtrLane p = value.lanes<PtrLane>()[i];
        unsigned bytes = dtype.pointeeType().bytes();
        if (p.buffer < 0 || p.byteOffset % bytes != 0)
          os << "ptr(" << describePointer(p, bytes) << ")";
        else
          os << "&" << buffers_[p.buffer].name << "[" << p.byteOffset / bytes << "]";
        break;
      }
      }
      os << "\n";
    }
  }
}

void Machine::execAssert(CompiledOp &op) {
  const Tensor &condition = slot(op.operands[0]);
  if (condition.laneKind() != LaneKind::Int)
    fail("the condition must be an integer or bool, not " + condition.dtype().str());
  const int64_t *lanes = condition.lanes<int64_t>();
  for (int64_t i = 0; i < condition.numElements(); ++i) {
    if (lanes[i] != 0)
      continue;
    std::string message =
        op.op->hasAttr("message") && std::holds_alternative<std::string>(op.op->attr("message"))
            ? op.op->strAttr("message")
            : "";
    std::string where =
        condition.isScalar() ? "" : " at index " + formatIndex(condition.shape(), i);
    fail("device_assert failed" + where + (message.empty() ? "" : ": " + message));
  }
}

void Machine::execHistogram(CompiledOp &op, Tensor &out) {
  const Tensor &input = slot(op.operands[0]);
  const Tensor *mask = op.operands.size() > 1 ? &slot(op.operands[1]) : nullptr;
  const int64_t bins = out.numElements();
  int64_t *counts = out.lanes<int64_t>();
  std::fill(counts, counts + bins, 0);
  const int64_t *values = input.lanes<int64_t>();
  for (int64_t i = 0; i < input.numElements(); ++i) {
    if (mask && mask->lanes<int64_t>()[i] == 0)
      continue;
    // As Triton 3.6 on the GPU: a value counts in the bin of its low log2(max(num_bins, 32)) bits
    // (num_bins is a power of two; Triton pads the bins to one per lane of a warp), so values
    // outside [0, num_bins) wrap around, and are dropped where they land in a padding bin.
    const uint64_t bin = static_cast<uint64_t>(static_cast<uint32_t>(values[i])) &
                         static_cast<uint64_t>(std::max<int64_t>(bins, 32) - 1);
    if (bin < static_cast<uint64_t>(bins))
      ++counts[bin];
  }
}

void Machine::execGather(CompiledOp &op, Tensor &out) {
  const Tensor &src = slot(op.operands[0]);
  const Tensor &index = slot(op.operands[1]);
  const int64_t axis = op.op->intAttr("axis");
  const std::vector<int64_t> &outShape = out.shape();
  // Row-major strides: inner is the product of the dimensions after the axis.
  int64_t inner = 1;
  for (size_t d = static_cast<size_t>(axis) + 1; d < outShape.size(); ++d)
    inner *= outShape[d];
  const int64_t outLength = outShape[static_cast<size_t>(axis)];
  const int64_t srcLength = src.shape()[static_cast<size_t>(axis)];
  const int64_t *indices = index.lanes<int64_t>();
  const bool isUnsigned = index.dtype().isUnsigned();
  const size_t bytes = laneBytes(src.laneKind());
  const unsigned char *from = src.lanes<unsigned char>();
  unsigned char *to = out.lanes<unsigned char>();
  for (int64_t i = 0; i < out.numElements(); ++i) {
    int64_t k = indices[i];
    if (isUnsigned ? static_cast<uint64_t>(k) >= static_cast<uint64_t>(srcLength)
                   : k < 0 || k >= srcLength)
      fail("tl.gather index " + std::to_string(k) + " at " + formatIndex(outShape, i) +
           " is out of range for the source's dimension " + std::to_string(axis) + " of size " +
           std::to_string(srcLength));
    int64_t outer = i / (outLength * inner), within = i % inner;
    int64_t source = (outer * srcLength + k) * inner + within;
    std::memcpy(to + static_cast<size_t>(i) * bytes, from + static_cast<size_t>(source) * bytes,
                bytes);
  }
}

} // namespace

void ErrorReporter::fail(const std::string &message) const {
  std::ostringstream text;
  text << message << " (in '" << (currentOp_ ? currentOp_->name() : "?") << "', program ("
       << programId_[0] << ", " << programId_[1] << ", " << programId_[2] << "))";
  throw InterpError(currentOp_ ? currentOp_->loc() : fallbackLoc_, text.str());
}

void run(const tir::Function &kernel, const std::vector<KernelArg> &args,
         const LaunchOptions &options) {
  Machine machine(kernel, options);
  machine.bindArguments(args);
  machine.runGrid();
}

} // namespace tilec::interp
