// Software pipelining of the loads that feed tensor-core dots (Triton's pipeliner, num_stages).
//
// In a `for` loop, a load whose tile goes straight (or through tl.trans) into a tensor-core dot
// becomes an async_copy (cp.async) into a ring of R shared-memory slots, issued S - 1 iterations
// ahead of the dot that reads it (S = num_stages):
//
//   prologue   for s in 0 .. S-2: async_copy(tile of iteration s) -> slot s; async_commit
//   loop i     async_wait(pending = S-2)            the copies of iteration i have landed
//              a = local_load(slot i % R)           the dot reads it from shared memory
//              ... the loop body ...
//              [barrier]                            where R = S - 1 (below)
//              async_copy(tile of iteration i+S-1) -> slot (i+S-1) % R; async_commit
//   after      async_wait(pending = 0)
//
// How many slots: a wgmma dot reads its slot while it runs (the group of iteration i is waited for
// in iteration i + 1, after the next group is issued), so the copies of iteration i + S - 1 take
// the slot iteration i - 1 read: R = S. mma.sync's fragments are all read from the slot (ldmatrix)
// before its instructions, so once every thread is past iteration i's dot its slot is free: after
// a barrier the copies of iteration i + S - 1 can take it, and R = S - 1 (Triton's pipeliner
// always does this for mma.sync). The barrier costs each iteration a wait for the slowest warp;
// one slot less per tile is worth it where it lets more programs share an SM, so R = S - 1 is
// taken only then (programsPerSM). Measured on an H100 (session 16): the tutorial GEMM's 32x64x32
// config on 2 warps and 5 stages (24 KB, 9 programs per SM instead of 30 KB and 7) went from 0.94
// to 1.01 times Triton at 2048^3 and from 1.05 to 0.99 at 1024^3, where all programs fit at once
// either way; tf32 GEMMs with b stored K x N (one more program per SM) 3.3-3.9 -> 4.0-5.2 times
// Triton at 64x256x32; int8 ones, whose registers allow no more programs, lost 2-20 % with the
// barrier and keep S slots. Only for sm_90: sm_80 code run on the H100 lost up to 29 % with
// S - 1 slots at 64x128x32 and 128x64x32 on 4 warps, where the SM's larger shared memory gains
// it no program, and there is no A100 here to measure what its smaller one would gain.
//
// The copies of a future iteration need its pointers and masks: the ops that compute them from
// the induction variable and loop-carried values (the load slice) are cloned with the induction
// variable advanced, and the loop-carried values they need are carried a second time, S-1
// iterations ahead, as extra iteration arguments. Copies of iterations past the end are predicated
// off (cp.async with a source size of 0 zero-fills); masked-off elements zero-fill likewise, so a
// load qualifies only when its `other` is absent or zero. async_wait also synchronises the
// program's threads (bar.sync), so that every thread's copies are visible and the slot the next
// copies overwrite (read by the previous iteration) is no longer being read.
//
// A load through a tensor descriptor argument that feeds a wgmma dot is copied by TMA instead
// (cp.async.bulk.tensor, from the CUtensorMap the runtime builds at launch): one thread issues the
// boxes of the tile and an mbarrier per slot counts their bytes; the loop's threads wait on the
// slot's barrier (phase = iteration / S, mod 2) besides async_wait. Out-of-bounds elements are
// filled by TMA as the descriptor's padding says, so the load's `other` need not be zero:
//
//   before     tma_init                             one barrier per slot
//   prologue   ... tma_copy(offsets of iteration s) -> slot s
//   loop i     async_wait; tma_wait(slot i % S, phase (i / S) % 2)
//   after      async_wait(pending = 0); tma_inval
//
// A descriptor made in the kernel (tl.make_tensor_descriptor) has no map from the runtime: as
// Triton 3.6 does, the kernel writes one into its part of the global scratch the launcher gives
// it (tensormap_create, docs/metadata.md `global_scratch`), once, before the outermost loop
// around the pipelined one that the descriptor's base, shape and strides do not depend on.
//
// A loop is left alone (and the loads stay synchronous, which is always correct) when the step is
// not a positive constant, the slice has loads, stores or nested loops, or a load's accesses are
// narrower than 4 bytes (cp.async's smallest copy; the vector is also limited to the run of equal
// mask values, since a copy is all or nothing). num_stages = 1 means no pipelining; a loop's
// tl.range(..., num_stages=N) overrides the kernel's num_stages.
#include "analysis/AxisInfo.h"
#include "gpu/Arch.h"
#include "gpu/LoopSlice.h"
#include "gpu/Mma.h"
#include "gpu/PassUtils.h"
#include "gpu/Passes.h"
#include "tir/Builder.h"
#include "tir/Passes.h"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <map>
#include <optional>
#include <set>

namespace tilec::gpu {
namespace {

using tir::Block;
using tir::Builder;
using tir::OpCode;
using tir::Operation;
using tir::Type;
using tir::Value;

/// What bounds the programs an SM of sm_90 holds (the CUDA programming guide's table of compute
/// capabilities; 1 KB of each program's shared memory is the system's).
constexpr unsigned kSm90SharedBytes = 233472;
constexpr unsigned kSm90Threads = 2048;
constexpr unsigned kSm90Programs = 32;

/// Whether `value` is a constant zero (int or float), the fill cp.async gives masked elements.
bool isZeroConstant(const Value *value) {
  const Operation *def = value->definingOp();
  if (!def || def->code() != OpCode::Constant)
    return false;
  const tir::Attribute &a = def->attr("value");
  if (auto *i = std::get_if<int64_t>(&a))
    return *i == 0;
  if (auto *d = std::get_if<double>(&a))
    return *d == 0.0 && !std::signbit(*d);
  if (auto *b = std::get_if<bool>(&a))
    return !*b;
  return false;
}

/// Whether `value` is defined in a region of `op` (at any depth): a result of an op there or an
/// argument of one of its blocks.
bool isDefinedInside(const Value *value, const Operation &op) {
  const Block *block =
      value->isBlockArgument() ? value->ownerBlock() : value->definingOp()->parentBlock();
  for (const Operation *owner = block ? block->parentOp() : nullptr; owner;
       owner = owner->parentBlock()->parentOp())
    if (owner == &op)
      return true;
  return false;
}

class LoopPipeliner {
public:
  LoopPipeliner(tir::Function &function, Operation &loop, unsigned stages,
                const analysis::AxisInfoAnalysis &axis, const std::string &arch)
      : function_(function), loop_(loop), body_(loop.region(0).block()), stages_(stages),
        axis_(axis), arch_(arch) {}

  void run() {
    findCandidates();
    if (candidates_.empty())
      return;
    std::vector<Value *> roots;
    for (const Candidate &c : candidates_) {
      if (c.tensorMap) {
        for (unsigned i = 0; i < c.load->result()->type().rank(); ++i)
          roots.push_back(c.load->operand(3 + i)); // the offsets
        continue;
      }
      for (unsigned i = 0; i < 2 && i < c.load->numOperands(); ++i)
        roots.push_back(c.load->operand(i));
    }
    slice_ = LoopSlice::build(body_, roots);
    if (!slice_)
      return;
    findInvariantOperands();
    if (!tir::hasPositiveConstantStep(loop_))
      return;
    rewrite();
  }

private:
  tir::Function &function_;
  Operation &loop_;
  Block &body_;
  unsigned stages_;
  /// Shared-memory slots per tile: stages_, or stages_ - 1 where only mma.sync dots read them.
  unsigned slots_ = 0;
  const analysis::AxisInfoAnalysis &axis_;
  const std::string &arch_;
  struct Candidate {
    Operation *load;
    unsigned vec;
    /// The operand of a wgmma dot the tile is (0: a, 1: b), -1 for an mma.sync dot.
    int wgmmaOperand = -1;
    unsigned buffer = 0;
    /// Copied by TMA with this tensor map (added to Function::tensorMaps by rewrite, which sets
    /// tensorMapIndex).
    std::optional<tir::TensorMap> tensorMap;
    unsigned tensorMapIndex = 0;
    /// Whether the tensor map is one the kernel writes (a descriptor made in the kernel): then
    /// tensorMapIndex is into Function::kernelTensorMaps.
    bool kernelMap = false;
  };
  std::vector<Candidate> candidates_;
  /// Loads before the loop whose tile only a wgmma dot of the body reads, as its a (attention's
  /// q), in a program of one warpgroup: copied once into a one-slot buffer that the dot reads
  /// from shared memory in every iteration, as Triton keeps q, instead of holding the tile's A
  /// fragments in registers.
  std::vector<Candidate> invariantOperands_;
  std::vector<std::unique_ptr<Operation>> removed_;
  /// The first of this loop's mbarriers (one per slot) when it has TMA copies.
  unsigned firstBarrier_ = 0;
  /// What computes the candidates' pointers and masks, cloned for future iterations.
  std::optional<LoopSlice> slice_;

  /// Elements per cp.async for the tile `load` reads, 0 when cp.async cannot load it: the masked
  /// elements' `other` is not zero (cp.async zero-fills), or a copy would be under 4 bytes.
  unsigned copyVectorWidth(const Operation &load) const {
    if (load.numOperands() >= 3 && !isZeroConstant(load.operand(2)))
      return 0;
    const tir::Type &type = load.result()->type();
    if (!type.layout || type.layout->kind != LayoutKind::Blocked)
      return 0;
    unsigned fastest = type.layout->order[0];
    unsigned vec =
        std::min(type.layout->sizePerThread[fastest], axis_.vectorWidth(load.operand(0), fastest));
    // One cp.async copies a vector or zero-fills all of it: the mask must not change inside.
    if (load.numOperands() >= 2)
      vec = std::min(vec, axis_.maskConstancy(load.operand(1), fastest));
    unsigned bytes = std::max(1u, type.elem.bytes());
    while (vec > 1 && vec * bytes > 16)
      vec /= 2;
    return vec * bytes < 4 ? 0 : vec;
  }

  /// The tensor map a TMA copy of `load`'s tile into a wgmma operand slot would read (PassUtils.h,
  /// nvmmaTensorMap); none where the slot's rows are not along the descriptor's last dimension.
  /// For a descriptor made in the kernel (descriptor 0 in the map), also none where what the
  /// map is made of changes inside the loop.
  std::optional<tir::TensorMap> tensorMapFor(const Operation &load, int wgmmaOperand) const {
    bool kernelMade = load.hasAttr("kernel_descriptor");
    if (wgmmaOperand < 0 || (!load.hasAttr("descriptor") && !kernelMade))
      return std::nullopt;
    const Type &type = load.result()->type();
    if (!type.layout || type.layout->order[0] != 1)
      return std::nullopt;
    if (kernelMade && !kernelMapQualifies(load))
      return std::nullopt;
    unsigned descriptor = kernelMade ? 0 : static_cast<unsigned>(load.intAttr("descriptor"));
    const Value *column = load.operand(3 + type.rank() - 1);
    return nvmmaTensorMap(type, descriptor, axis_.info(column));
  }

  /// Whether TMA may copy `load`'s tile through a map the kernel writes of its descriptor made
  /// in the kernel: what the map is made of does not change in the loop, and, as TMA requires
  /// (and Triton's users promise, unchecked), the base is 16-byte aligned and the row stride a
  /// multiple of 16 bytes, which the axis analysis must prove (a `*fp16:16` pointer, an
  /// `i32:16` stride); otherwise the tile is copied by cp.async.
  bool kernelMapQualifies(const Operation &load) const {
    unsigned rank = load.result()->type().rank();
    for (unsigned i = 3 + rank; i < load.numOperands(); ++i)
      if (!isInvariantIn(load.operand(i), loop_))
        return false;
    auto divisibility = [&](const Value *v) {
      const std::vector<int64_t> &d = axis_.info(v).divisibility;
      return d.empty() ? int64_t(1) : d[0];
    };
    if (divisibility(load.operand(3 + rank)) % 16 != 0)
      return false;
    int64_t elemBytes = std::max(1u, load.result()->type().elem.bytes());
    for (unsigned i = 4 + 2 * rank; i < load.numOperands(); ++i)
      if (divisibility(load.operand(i)) * elemBytes % 16 != 0)
        return false;
    return true;
  }

  /// Whether `value` does not change in `loop`: defined outside it, or a cast of such a value (a
  /// block pointer's 64-bit shape, cast to 32 bits at each load), which createKernelTensorMap
  /// makes again outside.
  static bool isInvariantIn(const Value *value, const Operation &loop) {
    if (!isDefinedInside(value, loop))
      return true;
    const Operation *def = value->definingOp();
    return def && def->code() == OpCode::Cast && def->numOperands() == 1 &&
           !isDefinedInside(def->operand(0), loop);
  }

  /// Whether a copy of the load behind `operand`, wgmma's a (index 0) or b (1), can fill the slot
  /// wgmma reads: 16-bit tiles in either order; 8-bit and tf32 tiles, which wgmma reads along K
  /// only, when the load is contiguous along K. Others stay in registers, and the dot stages them
  /// along K itself (SharedTile.h, tensorCoreOperandPlan).
  static bool copyFillsWgmmaSlot(const Value *operand, int index) {
    const Type &type = operand->type();
    if (type.elem.bytes() == 2)
      return true;
    return type.layout && type.layout->order[0] == (index == 0 ? 1u : 0u);
  }

  /// Loads in the loop body whose only user is a tensor-core dot of the same body, as its a or b.
  void findCandidates() {
    std::map<const Value *, std::vector<Operation *>> users = usersOf(function_);
    for (auto &opPtr : body_.ops()) {
      Operation &load = *opPtr;
      if (load.code() != OpCode::Load || !load.result()->type().isTensor() ||
          load.result()->type().rank() != 2)
        continue;
      // The dot may take the tile transposed (attention's tl.trans(k)): the slot is read along
      // the other dimension.
      std::vector<Operation *> uses = users[load.result()];
      const Value *operand = load.result();
      if (uses.size() == 1 && uses[0]->code() == OpCode::Trans &&
          uses[0]->parentBlock() == &body_) {
        operand = uses[0]->result();
        uses = users[operand];
      }
      if (uses.size() != 1 || !isTensorCoreDot(*uses[0]) || uses[0]->parentBlock() != &body_ ||
          uses[0]->operand(2) == operand)
        continue;
      int wgmmaOperand = -1;
      if (isWgmmaDot(*uses[0]))
        wgmmaOperand = uses[0]->operand(0) == operand ? 0 : 1;
      if (wgmmaOperand >= 0 && !copyFillsWgmmaSlot(operand, wgmmaOperand))
        continue;
      if (load.hasAttr("descriptor") && wgmmaOperand >= 0) {
        if (std::optional<tir::TensorMap> map = tensorMapFor(load, wgmmaOperand))
          candidates_.push_back({&load, 0, wgmmaOperand, 0, map, 0});
        continue;
      }
      if (load.hasAttr("kernel_descriptor")) {
        if (std::optional<tir::TensorMap> map = tensorMapFor(load, wgmmaOperand)) {
          candidates_.push_back({&load, 0, wgmmaOperand, 0, map, 0, true});
          continue;
        }
      }
      unsigned vec = copyVectorWidth(load);
      if (!vec)
        continue;
      candidates_.push_back({&load, vec, wgmmaOperand, 0, std::nullopt, 0});
    }
  }

  void findInvariantOperands() {
    // Only for one warpgroup: there a's fragments take as many registers as attention's output
    // accumulator, and shared memory measured faster (H200, flash attention D64/D128: +2-4%);
    // with two warpgroups (8 warps) registers measured faster (-1% D64, -9% D128 from shared).
    if (function_.numWarps != 4)
      return;
    std::map<const Value *, std::vector<Operation *>> users = usersOf(function_);
    for (auto &opPtr : body_.ops()) {
      Operation &dot = *opPtr;
      if (!isWgmmaDot(dot))
        continue;
      Operation *load = dot.operand(0)->definingOp();
      if (!load || load->code() != OpCode::Load || load->parentBlock() != loop_.parentBlock() ||
          users[load->result()].size() != 1 || !copyFillsWgmmaSlot(dot.operand(0), 0))
        continue;
      if (unsigned vec = copyVectorWidth(*load))
        invariantOperands_.push_back({load, vec, 0, 0, std::nullopt, 0});
    }
  }

  /// Programs of this kernel an SM of sm_90 can hold with the candidates' tiles in `slots` slots
  /// each: by threads, by shared memory (the tiles only: the scratch area of the loop's other ops
  /// is not known before codegen) and by registers, estimated as the loop's dot accumulators (32
  /// bits an element, per thread) plus 32.
  unsigned programsPerSM(unsigned slots) const {
    unsigned threads = 32 * function_.numWarps;
    unsigned sharedBytes = 1024;
    for (const Candidate &c : candidates_) {
      const Type &tile = c.load->result()->type();
      sharedBytes += slots * static_cast<unsigned>(tile.numElements()) * tile.elem.bytes();
    }
    unsigned registers = 32;
    for (auto &op : body_.ops())
      if (isTensorCoreDot(*op)) {
        const Type &acc = op->result()->type();
        registers +=
            static_cast<unsigned>(acc.numElements() / threads) * std::max(1u, acc.elem.bytes() / 4);
      }
    unsigned programs = std::min(kSm90Programs, kSm90Threads / threads);
    programs = std::min(programs, 65536 / (registers * threads));
    return std::min(programs, kSm90SharedBytes / sharedBytes);
  }

  /// The copies of one future iteration (induction variable `iv`) into `slot`, and their commit.
  void issueCopies(Builder &builder, const std::map<const Value *, Value *> &map, Value *iv,
                   Value *slot) {
    Value *inRange = builder.cmp("lt", iv, loop_.operand(1));
    for (const Candidate &c : candidates_) {
      if (c.tensorMap) {
        std::vector<Value *> operands{slot, inRange};
        for (unsigned i = 0; i < c.load->result()->type().rank(); ++i)
          operands.push_back(LoopSlice::mapped(map, c.load->operand(3 + i)));
        builder.setLoc(c.load->loc());
        Operation *copy = builder.create(OpCode::TmaCopy, operands, {});
        copy->setAttr("buffer", int64_t(c.buffer));
        copy->setAttr(c.kernelMap ? "kernel_map" : "tensor_map", int64_t(c.tensorMapIndex));
        copy->setAttr("barrier", int64_t(firstBarrier_));
        continue;
      }
      std::vector<Value *> operands{LoopSlice::mapped(map, c.load->operand(0)), slot, inRange};
      if (c.load->numOperands() >= 2)
        operands.push_back(LoopSlice::mapped(map, c.load->operand(1)));
      builder.setLoc(c.load->loc());
      Operation *copy = builder.create(OpCode::AsyncCopy, operands, {});
      copy->setAttr("buffer", int64_t(c.buffer));
      copy->setAttr("vec", int64_t(c.vec));
    }
    builder.create(OpCode::AsyncCommit, {}, {});
  }

  /// Writes the tensor map of candidate `c`'s descriptor made in the kernel (tensormap_create)
  /// before the outermost loop around this one that its operands do not depend on (a persistent
  /// kernel's loop over tiles: one map per program, not one per tile); one map per descriptor
  /// and box for the loop's copies. Returns its index in Function::kernelTensorMaps.
  unsigned createKernelTensorMap(const Candidate &c) {
    const Operation &load = *c.load;
    unsigned rank = load.result()->type().rank();
    const std::vector<Value *> made(load.operands().begin() + 3 + rank, load.operands().end());
    tir::KernelTensorMap map{load.result()->type().elem, c.tensorMap->box,
                             c.tensorMap->swizzleBytes, load.boolAttr("fill_nan")};
    for (const auto &[parts, index] : kernelMaps_) {
      const tir::KernelTensorMap &other = function_.kernelTensorMaps[index];
      if (parts == made && other.box == map.box && other.swizzleBytes == map.swizzleBytes &&
          other.fillNan == map.fillNan)
        return index;
    }
    Operation *before = &loop_;
    auto invariantIn = [&](const Operation &outer) {
      return std::all_of(made.begin(), made.end(),
                         [&](const Value *v) { return isInvariantIn(v, outer); });
    };
    for (Operation *outer = before->parentBlock()->parentOp();
         outer && outer->code() == OpCode::For && invariantIn(*outer);
         outer = outer->parentBlock()->parentOp())
      before = outer;
    unsigned index = static_cast<unsigned>(function_.kernelTensorMaps.size());
    function_.kernelTensorMaps.push_back(map);
    Builder b;
    b.setInsertionPoint(before);
    b.setLoc(load.loc());
    // Casts made in the loop of values from outside it are made again before the map.
    std::vector<Value *> parts = made;
    for (Value *&part : parts)
      if (isDefinedInside(part, *before))
        part = b.cast(part->definingOp()->operand(0), part->type().elem);
    Operation *create = b.create(OpCode::TensormapCreate, parts, {});
    create->setAttr("kernel_map", int64_t(index));
    kernelMaps_.push_back({made, index}); // keyed by the load's operands, as looked up above
    return index;
  }

  /// The kernel tensor maps this loop's copies read: the load operands each is made of, its
  /// index.
  std::vector<std::pair<std::vector<Value *>, unsigned>> kernelMaps_;

  void rewrite() {
    bool readBeforeDot =
        std::all_of(candidates_.begin(), candidates_.end(),
                    [](const Candidate &c) { return c.wgmmaOperand < 0 && !c.tensorMap; });
    bool hopper = smVersion(arch_) >= 90;
    slots_ = hopper && readBeforeDot && programsPerSM(stages_ - 1) > programsPerSM(stages_)
                 ? stages_ - 1
                 : stages_;
    for (Candidate &c : candidates_) {
      if (c.tensorMap)
        c.tensorMapIndex =
            c.kernelMap ? createKernelTensorMap(c) : addTensorMap(function_, *c.tensorMap);
      c.buffer = static_cast<unsigned>(function_.pipelineBuffers.size());
      function_.pipelineBuffers.push_back({c.load->result()->type(), slots_, c.wgmmaOperand});
    }
    Value *lb = loop_.operand(0), *step = loop_.operand(2);
    const Type &ivType = lb->type();
    auto constant = [&](Builder &b, int64_t v) { return b.intConstant(v, ivType); };

    Builder before;
    before.setInsertionPoint(&loop_);
    before.setLoc(loop_.loc());

    unsigned tmaCopies = static_cast<unsigned>(
        std::count_if(candidates_.begin(), candidates_.end(),
                      [](const Candidate &c) { return c.tensorMap.has_value(); }));
    if (tmaCopies) {
      firstBarrier_ = function_.numTmaBarriers;
      function_.numTmaBarriers += slots_;
      Operation *init = before.create(OpCode::TmaInit, {}, {});
      init->setAttr("barrier", int64_t(firstBarrier_));
      init->setAttr("count", int64_t(slots_));
      init->setAttr("arrivals", int64_t(tmaCopies));
    }

    // The loop-invariant tiles first, one group: the first wait in the loop, which leaves only
    // later groups pending, covers it.
    Type i32(tir::DType::scalar(tir::ScalarKind::I32));
    if (!invariantOperands_.empty()) {
      Value *zero = before.intConstant(0, i32);
      Operation *always =
          before.create(OpCode::Constant, {}, {Type(tir::DType::scalar(tir::ScalarKind::I1))});
      always->setAttr("value", true);
      for (Candidate &c : invariantOperands_) {
        c.buffer = static_cast<unsigned>(function_.pipelineBuffers.size());
        function_.pipelineBuffers.push_back({c.load->result()->type(), 1, c.wgmmaOperand});
        std::vector<Value *> operands{c.load->operand(0), zero, always->result()};
        if (c.load->numOperands() >= 2)
          operands.push_back(c.load->operand(1));
        before.setLoc(c.load->loc());
        Operation *copy = before.create(OpCode::AsyncCopy, operands, {});
        copy->setAttr("buffer", int64_t(c.buffer));
        copy->setAttr("vec", int64_t(c.vec));
      }
      before.setLoc(loop_.loc());
      before.create(OpCode::AsyncCommit, {}, {});
    }

    // Prologue: iterations 0 .. S-2 into slots 0 .. S-2.
    const std::vector<unsigned> &carried = slice_->carried();
    std::vector<Value *> state;
    for (unsigned index : carried)
      state.push_back(loop_.operand(3 + index - 1));
    for (unsigned s = 0; s + 1 < stages_; ++s) {
      Value *iv =
          before.binary(OpCode::Add, lb, before.binary(OpCode::Mul, constant(before, s), step));
      auto map = slice_->clone(before, iv, state);
      issueCopies(before, map, iv, before.intConstant(s, i32));
      for (size_t i = 0; i < carried.size(); ++i) {
        state[i] = LoopSlice::mapped(map, body_.terminator()->operand(carried[i] - 1));
      }
    }

    // The ahead-of-time state travels as extra iteration arguments.
    std::vector<Value *> ahead;
    for (size_t i = 0; i < carried.size(); ++i) {
      loop_.addOperand(state[i]);
      ahead.push_back(body_.addArgument(state[i]->type()));
      loop_.addResult(state[i]->type());
    }
    // In a loop of wgmma dots so do the slot this iteration reads, the slot it fills and (with
    // TMA) the phase of the slot's barrier, each stepped with a wrap at the bottom, as Triton's
    // pipeliner carries its indices: `i % R` costs a multiply-high and more per slot in every
    // iteration (the 64x128x64 8-warp GEMM: 92 -> 88 registers). mma.sync loops hold their
    // fragments in registers and compute the slots from the induction variable instead: three
    // more registers across the loop made the int8 128x128x64 GEMM spill 164 bytes.
    // TMA copies fill wgmma operands only (tensorMapFor), so their loops carry their slots.
    bool carriesSlots = std::any_of(candidates_.begin(), candidates_.end(),
                                    [](const Candidate &c) { return c.wgmmaOperand >= 0; });
    assert(carriesSlots || !tmaCopies);
    auto carry = [&](int64_t initial) {
      loop_.addOperand(before.intConstant(initial, i32));
      loop_.addResult(i32);
      return body_.addArgument(i32);
    };
    Value *slot = nullptr, *nextSlot = nullptr, *phase = nullptr;
    if (carriesSlots) {
      slot = carry(0);
      nextSlot = carry((stages_ - 1) % slots_);
      if (tmaCopies)
        phase = carry(0);
    }

    // Top of the body: wait for this iteration's tiles; its slot.
    Builder top;
    top.setInsertionPoint(body_.ops().front().get());
    top.setLoc(loop_.loc());
    Operation *wait = top.create(OpCode::AsyncWait, {}, {});
    wait->setAttr("pending", int64_t(stages_ - 2));
    Value *iteration32 = nullptr;
    if (!carriesSlots) {
      Value *iteration =
          top.binary(OpCode::Div, top.binary(OpCode::Sub, body_.argument(0), lb), step);
      iteration32 = ivType == i32 ? iteration : top.cast(iteration, i32.elem);
      slot = top.binary(OpCode::Rem, iteration32, top.intConstant(slots_, i32));
    }
    if (tmaCopies) {
      // The slot's barrier completes its phase (i / R) % 2 (carried: flipped at each wrap) when
      // this iteration's boxes landed.
      Operation *tmaWait = top.create(OpCode::TmaWait, {slot, phase}, {});
      tmaWait->setAttr("barrier", int64_t(firstBarrier_));
    }
    // Before the loads in the loop are removed: `top` inserts before the body's first operation,
    // which may be one of them (a flash-attention loop that starts with `k = tl.load(k_ptrs)`).
    for (Candidate &c : invariantOperands_) {
      Operation *read =
          top.create(OpCode::LocalLoad, {top.intConstant(0, i32)}, {c.load->result()->type()});
      read->setAttr("buffer", int64_t(c.buffer));
      replaceAllUses(function_, c.load->result(), read->result());
      removed_.push_back(loop_.parentBlock()->remove(c.load));
    }
    for (Candidate &c : candidates_) {
      Builder at;
      at.setInsertionPoint(c.load);
      at.setLoc(c.load->loc());
      Operation *read = at.create(OpCode::LocalLoad, {slot}, {c.load->result()->type()});
      read->setAttr("buffer", int64_t(c.buffer));
      replaceAllUses(function_, c.load->result(), read->result());
      removed_.push_back(body_.remove(c.load)); // kept: the copies below read its operands
    }

    // Bottom of the body: the copies of iteration i + S - 1, into this iteration's slot once every
    // thread has read it where there are S - 1 slots.
    Operation *yield = body_.terminator();
    Builder bottom;
    bottom.setInsertionPoint(yield);
    bottom.setLoc(loop_.loc());
    if (slots_ < stages_)
      bottom.create(OpCode::Barrier, {}, {});
    Value *iv = bottom.binary(OpCode::Add, body_.argument(0),
                              bottom.binary(OpCode::Mul, constant(bottom, stages_ - 1), step));
    auto map = slice_->clone(bottom, iv, ahead);
    if (!carriesSlots)
      nextSlot = bottom.binary(
          OpCode::Rem,
          bottom.binary(OpCode::Add, iteration32, bottom.intConstant(stages_ - 1, i32)),
          bottom.intConstant(slots_, i32));
    issueCopies(bottom, map, iv, nextSlot);
    for (size_t i = 0; i < carried.size(); ++i) {
      yield->addOperand(LoopSlice::mapped(map, yield->operand(carried[i] - 1)));
    }
    if (carriesSlots) {
      // slot + 1, or 0 past the last slot.
      auto advance = [&](Value *index) {
        Value *next = bottom.binary(OpCode::Add, index, bottom.intConstant(1, i32));
        Value *wraps = bottom.cmp("ge", next, bottom.intConstant(slots_, i32));
        return std::pair{bottom.select(wraps, bottom.intConstant(0, i32), next), wraps};
      };
      auto [followingSlot, wraps] = advance(slot);
      yield->addOperand(followingSlot);
      yield->addOperand(advance(nextSlot).first);
      if (phase) // the barrier's phase flips each time the slots wrap
        yield->addOperand(bottom.binary(OpCode::Xor, phase, bottom.cast(wraps, i32.elem)));
    }

    // After the loop: no copy may still be writing shared memory.
    Block *outer = loop_.parentBlock();
    Builder after;
    after.setInsertionPoint(std::next(outer->find(&loop_))->get());
    Operation *drain = after.create(OpCode::AsyncWait, {}, {});
    drain->setAttr("pending", int64_t(0));
    if (tmaCopies) {
      // Every copy issued was waited for in the loop (those past its end were not issued).
      Operation *inval = after.create(OpCode::TmaInval, {}, {});
      inval->setAttr("barrier", int64_t(firstBarrier_));
      inval->setAttr("count", int64_t(slots_));
    }
  }
};

} // namespace

/// The loads through tensor descriptors that no TMA copy replaced become plain loads: their
/// offsets were only for the copies.
static void dropDescriptorOffsets(tir::Function &function) {
  tir::walk(function, [](Operation &op) {
    if (op.code() != OpCode::Load ||
        (!op.hasAttr("descriptor") && !op.hasAttr("kernel_descriptor")))
      return;
    std::vector<Value *> operands{op.operand(0), op.operand(1), op.operand(2)};
    if (op.hasAttr("implicit_other")) // a block pointer's load without padding_option
      operands.pop_back();
    op.setOperands(std::move(operands));
    op.removeAttr("descriptor");
    op.removeAttr("kernel_descriptor");
    op.removeAttr("fill_nan");
    op.removeAttr("implicit_other");
  });
}

void runSoftwarePipelining(tir::Function &function, const std::string &arch) {
  std::vector<std::pair<Operation *, unsigned>> loops = pipelinedLoops(function);
  if (!loops.empty()) {
    analysis::AxisInfoAnalysis axis(function);
    for (auto [loop, stages] : loops)
      LoopPipeliner(function, *loop, stages, axis, arch).run();
  }
  dropDescriptorOffsets(function);
}

} // namespace tilec::gpu
