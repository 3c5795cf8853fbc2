// The lowering of one laid-out TIR function to an LLVM kernel: the state it keeps and the
// helpers the lowering of each op shares. Internal to the codegen library; its methods are
// defined in LowerToLLVM.cpp and in the Lower*.cpp files next to it, one group of ops each.
#pragma once

#include "analysis/AxisInfo.h"
#include "codegen/Distribution.h"
#include "codegen/LLVMCompat.h"
#include "codegen/LowerToLLVM.h"
#include "codegen/SharedMemory.h"
#include "codegen/SharedTile.h"
#include "codegen/TargetOptions.h"
#include "codegen/WarpShuffleConversion.h"
#include "frontend/SourceManager.h"

#include <functional>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Intrinsics.h>
#include <llvm/IR/IntrinsicsNVPTX.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <unordered_map>
#include <vector>

namespace tilec::codegen::detail {

using tir::DType;
using tir::OpCode;
using tir::Operation;
using tir::ScalarKind;
using Values = std::vector<llvm::Value *>;

constexpr double kLog2E = 1.4426950408889634;

class KernelLowering {
public:
  KernelLowering(const tir::Function &function, llvm::Module &module, const TargetOptions &options)
      : function_(function), module_(module), context_(module.getContext()), options_(options),
        builder_(context_), prologue_(context_), axisInfo_(function) {}

  llvm::Function *run();
  void setSharedMemory(llvm::GlobalVariable *buffer) { sharedMemory_ = buffer; }

private:
  const tir::Function &function_;
  llvm::Module &module_;
  llvm::LLVMContext &context_;
  const TargetOptions &options_;
  llvm::IRBuilder<> builder_;
  /// Inserts at the end of the entry block, whose values dominate the whole kernel: thread
  /// indices are computed there once.
  llvm::IRBuilder<> prologue_;
  analysis::AxisInfoAnalysis axisInfo_;
  llvm::Function *kernel_ = nullptr;
  std::unordered_map<const tir::Value *, Values> values_;
  llvm::Value *laneId_ = nullptr, *warpId_ = nullptr, *threadId_ = nullptr;
  /// The warpgroup index (warp / 4) as lane 0 of the warp has it (uniformWarpGroup).
  llvm::Value *uniformWarpGroup_ = nullptr;
  /// The generic addresses of the CUtensorMap parameters (Function::tensorMaps).
  std::vector<llvm::Value *> tensorMaps_;
  /// The global scratch parameter (Function::globalScratchBytes per program), or null.
  llvm::Value *globalScratch_ = nullptr;
  /// The generic addresses of the tensor maps the kernel wrote (Function::kernelTensorMaps),
  /// set by lowerTensormapCreate.
  std::map<unsigned, llvm::Value *> kernelTensorMaps_;
  /// Per root layout and root dimension: the thread's lane and warp index along it.
  std::map<std::string, std::pair<Values, Values>> threadIndices_;
  llvm::GlobalVariable *sharedMemory_ = nullptr;
  std::optional<PipelineBufferPlan> bufferPlan_;
  std::optional<unsigned> tmaBarrierOffset_;
  /// Whether shared memory may hold data some thread still reads: the next writer must wait at
  /// a barrier first. Barriers are emitted only then (and between a write and its reads).
  bool sharedInUse_ = false;

  //===--------------------------------------------------------------------===//
  // Errors, types, values
  //===--------------------------------------------------------------------===//

  [[noreturn]] void unsupported(const Operation &op, const std::string &what) const {
    std::string message = what + " is not supported yet by the GPU backend";
    if (options_.sources)
      options_.sources->error(op.loc(), message);
    std::ostringstream os;
    os << op.loc().line << ":" << op.loc().col << ": error: " << message;
    throw CompileError(os.str());
  }

  llvm::Type *scalarType(const DType &type) {
    switch (type.kind) {
    case ScalarKind::I1:
      return builder_.getInt1Ty();
    case ScalarKind::I8:
    case ScalarKind::U8:
    case ScalarKind::F8E4M3:
    case ScalarKind::F8E5M2:
    case ScalarKind::F8E4B15:
      return builder_.getInt8Ty();
    case ScalarKind::I16:
    case ScalarKind::U16:
      return builder_.getInt16Ty();
    case ScalarKind::I32:
    case ScalarKind::U32:
      return builder_.getInt32Ty();
    case ScalarKind::I64:
    case ScalarKind::U64:
      return builder_.getInt64Ty();
    case ScalarKind::F16:
      return builder_.getHalfTy();
    case ScalarKind::BF16:
      return builder_.getBFloatTy();
    case ScalarKind::F32:
      return builder_.getFloatTy();
    case ScalarKind::F64:
      return builder_.getDoubleTy();
    case ScalarKind::Ptr:
      return llvm::PointerType::get(context_, 1);
    }
    return nullptr;
  }

  /// The type an element has in memory (booleans are bytes).
  llvm::Type *memoryType(const DType &type) {
    if (type.isBool())
      return builder_.getInt8Ty();
    return scalarType(type);
  }

  Values &get(const tir::Value *v) {
    auto it = values_.find(v);
    if (it == values_.end())
      throw std::logic_error("TIR value lowered before its definition");
    return it->second;
  }

  unsigned numElementsOf(const tir::Type &type) {
    if (type.isScalar())
      return 1;
    return distributionOf(type).numElements();
  }

  llvm::Value *intrinsic(llvm::Intrinsic::ID id, llvm::ArrayRef<llvm::Type *> types,
                         llvm::ArrayRef<llvm::Value *> args) {
    llvm::Function *callee = intrinsicDeclaration(&module_, id, types);
    return builder_.CreateCall(callee, args);
  }

  llvm::Value *libdevice(const std::string &name, llvm::Type *type,
                         llvm::ArrayRef<llvm::Value *> args) {
    std::vector<llvm::Type *> params(args.size(), type);
    llvm::FunctionCallee callee =
        module_.getOrInsertFunction(name, llvm::FunctionType::get(type, params, false));
    return builder_.CreateCall(callee, args);
  }

  //===--------------------------------------------------------------------===//
  // Thread indices and coordinates
  //===--------------------------------------------------------------------===//

  const std::pair<Values, Values> &threadIndicesFor(const gpu::LayoutPtr &root) {
    std::string key = root->str();
    auto it = threadIndices_.find(key);
    if (it != threadIndices_.end())
      return it->second;
    unsigned rank = root->rank();
    Values lanes(rank), warps(rank);
    llvm::Value *lane = laneId_, *warp = warpId_;
    auto splitWarp = [&](unsigned r) {
      unsigned wpc = root->warpsPerCTA[r];
      warps[r] = prologue_.CreateAnd(warp, wpc - 1);
      warp = prologue_.CreateLShr(warp, llvm::Log2_32(wpc));
    };
    // (Lanes and warps split in one pass where they share the order, in the order of the
    // instructions before layouts had a warp order of their own.)
    const bool ownWarpOrder = !root->warpOrder.empty();
    for (unsigned r : root->order) {
      unsigned tpw = root->threadsPerWarp[r];
      lanes[r] = prologue_.CreateAnd(lane, tpw - 1);
      lane = prologue_.CreateLShr(lane, llvm::Log2_32(tpw));
      if (!ownWarpOrder)
        splitWarp(r);
    }
    if (ownWarpOrder)
      for (unsigned r : root->warpOrder)
        splitWarp(r);
    return threadIndices_[key] = {lanes, warps};
  }

  /// The thread's first coordinate along dimension d of `dist`, computed once in the prologue.
  llvm::Value *threadBase(const Distribution &dist, unsigned d) {
    const auto &[lanes, warps] = threadIndicesFor(dist.root);
    unsigned r = dist.rootDim[d];
    std::string key = dist.root->str() + "/base" + std::to_string(r);
    auto it = threadIndices_.find(key);
    if (it != threadIndices_.end())
      return it->second.first[0];
    llvm::Value *base = prologue_.CreateAdd(
        prologue_.CreateMul(lanes[r], prologue_.getInt32(dist.spt(d))),
        prologue_.CreateMul(warps[r], prologue_.getInt32(static_cast<uint32_t>(dist.perWarp(d)))),
        "", true, true);
    threadIndices_[key] = {Values{base}, Values{}};
    return base;
  }

  /// The coordinate along d of the thread's element with per-dimension index k.
  llvm::Value *coordinate(const Distribution &dist, unsigned d, unsigned k) {
    llvm::Value *c = builder_.CreateAdd(threadBase(dist, d),
                                        builder_.getInt32(static_cast<uint32_t>(dist.offset(d, k))),
                                        "", true, true);
    if (dist.wraps(d))
      c = builder_.CreateAnd(c, builder_.getInt32(static_cast<uint32_t>(dist.shape[d] - 1)));
    return c;
  }

  /// The row-major linear index of the thread's element `element` in the whole tensor.
  llvm::Value *linearCoordinate(const Distribution &dist, unsigned element) {
    std::vector<unsigned> index = dist.multiIndex(element);
    llvm::Value *linear = builder_.getInt32(0);
    for (unsigned d = 0; d < dist.rank(); ++d)
      linear = builder_.CreateAdd(
          builder_.CreateMul(linear, builder_.getInt32(static_cast<uint32_t>(dist.shape[d]))),
          coordinate(dist, d, index[d]));
    return linear;
  }

  llvm::Value *sharedElementPointer(llvm::Type *type, llvm::Value *index) {
    return builder_.CreateGEP(type, sharedMemory_, index);
  }

  void barrier() {
#if LLVM_VERSION_MAJOR >= 21
    intrinsic(kBarrierIntrinsic, {}, {builder_.getInt32(0)});
#else
    intrinsic(kBarrierIntrinsic, {}, {});
#endif
  }

  /// Called before writing shared memory: waits for the readers of its previous contents.
  void beginSharedWrite() {
    if (sharedInUse_)
      barrier();
  }

  /// Whether `block` (nested regions included) uses shared memory.
  static bool usesSharedMemory(const tir::Block &block) {
    bool uses = false;
    tir::walk(const_cast<tir::Block &>(block),
              [&](Operation &op) { uses |= sharedMemoryBytes(op) > 0; });
    return uses;
  }

  /// The shared-memory byte `byteOffset` (the scratch area conversions, reductions and dots
  /// share starts at 0; pipeline buffers lie where planPipelineBuffers puts them).
  llvm::Value *sharedAt(unsigned byteOffset);
  /// Stores `value` (8 to 64 bits, or a vector of such elements of at most 16 bytes) at the
  /// shared-memory pointer `ptr` where `pred` holds: one predicated `st.shared`, as Triton writes
  /// it, not a branch. A branch would split the basic block, and LLVM contracts a multiply and
  /// an add into an fma only within one, so that the arithmetic around would round differently
  /// from Triton's.
  void storeSharedIf(llvm::Value *ptr, llvm::Value *value, llvm::Value *pred);
  /// Piece `index` of a conversion done in `pieces` (ConversionPieces, SharedTile.h), and the
  /// distribution of one piece of the tensor being written or read (its threads' coordinates
  /// within the piece).
  struct TilePiece {
    ConversionPieces pieces;
    unsigned index = 0;
    const Distribution *within = nullptr;
  };
  /// Calls `fn` for each of the thread's vectors of `vec` consecutive elements along `fastDim`:
  /// its first element's number and per-dimension index, and that element's coordinates. With
  /// `piece`, only for the elements of that piece, at their coordinates within it.
  void forEachVector(const Distribution &dist, unsigned fastDim, unsigned vec,
                     const std::function<void(unsigned element, const std::vector<unsigned> &index,
                                              const Values &coords)> &fn,
                     const TilePiece *piece = nullptr) {
    for (unsigned e = 0; e < dist.numElements(); ++e) {
      std::vector<unsigned> index = dist.multiIndex(e);
      if (index[fastDim] % vec != 0)
        continue;
      // The compile-time part of the coordinate says the piece; the thread's part has none of
      // the piece's bits, and the piece's distribution gives it without them.
      const unsigned pieceDim = piece ? piece->pieces.dim : dist.rank();
      const int64_t offset = piece ? dist.offset(pieceDim, index[pieceDim]) : 0;
      if (piece && piece->pieces.pieceOf(offset) != piece->index)
        continue;
      Values coords;
      for (unsigned d = 0; d < dist.rank(); ++d)
        coords.push_back(d != pieceDim ? coordinate(dist, d, index[d])
                                       : builder_.CreateAdd(threadBase(*piece->within, d),
                                                            builder_.getInt32(static_cast<uint32_t>(
                                                                piece->pieces.withinPiece(offset))),
                                                            "", true, true));
      fn(e, index, coords);
    }
  }
  llvm::Value *sharedTileAddress(const SharedTilePlan &plan, llvm::Value *base, llvm::Type *memType,
                                 const Values &coords);
  /// The element index (i32) in a tile laid out by `plan` of the element at `coords`.
  llvm::Value *sharedTileIndex(const SharedTilePlan &plan, const Values &coords);
  /// A shared-memory pointer as the 32-bit address PTX's shared window uses: address arithmetic
  /// in 32 bits (the NVPTX data layout has 64-bit shared pointers).
  llvm::Value *sharedAddress32(llvm::Value *pointer);
  /// Writes the thread's elements (those of `piece` only, with one); with `onlyIf`, only in the
  /// threads where it holds (a predicated st.shared).
  void writeSharedTile(const SharedTilePlan &plan, llvm::Value *base, const Distribution &dist,
                       const Values &values, const DType &elem, const TilePiece *piece = nullptr,
                       llvm::Value *onlyIf = nullptr);
  Values readSharedVector(const SharedTilePlan &plan, llvm::Value *base, const Values &coords,
                          unsigned vec, const DType &elem);
  Values readSharedTile(const SharedTilePlan &plan, llvm::Value *base, const Distribution &dist,
                        const DType &elem);
  /// Reads the thread's elements of `piece` (all of them without one) into their places in
  /// `results`.
  void readSharedTile(const SharedTilePlan &plan, llvm::Value *base, const Distribution &dist,
                      const DType &elem, Values &results, const TilePiece *piece);
  llvm::Value *toSharedElement(llvm::Value *v, const DType &elem);
  llvm::Value *fromSharedElement(llvm::Value *v, const DType &elem);

  //===--------------------------------------------------------------------===//
  // Lowering
  //===--------------------------------------------------------------------===//

  void lowerBlock(const tir::Block &block);
  void lowerOp(const Operation &op);
  void lowerElementwise(const Operation &op);
  llvm::Value *lowerElement(const Operation &op, const Values &operands);
  llvm::Value *lowerCast(const Operation &op, llvm::Value *v, const DType &from, const DType &to);
  llvm::Value *lowerFp8Cast(const Operation &op, llvm::Value *v, const DType &from,
                            const DType &to);
  llvm::Value *lowerMath(const Operation &op, llvm::Value *x, const DType &type);
  void lowerBroadcast(const Operation &op);
  void lowerExpandDims(const Operation &op);
  void lowerConvertLayout(const Operation &op);
  Values convertByShuffles(const WarpShufflePlan &plan, const Values &input, const DType &elem);
  void lowerTrans(const Operation &op);
  void lowerReshape(const Operation &op);
  void lowerDot(const Operation &op);
  /// The redux.sync instruction that reduces one 32-bit-or-narrower integer over a whole warp
  /// for a reduction of `kind` (sum, max, min, xor), sm_80 and up; none otherwise. As Triton's
  /// reduce lowering: one instruction instead of five shuffles and combines, used only where a
  /// reduction spans all 32 lanes of the warp.
  std::optional<llvm::Intrinsic::ID> warpReduxIntrinsic(const std::string &kind,
                                                        const DType &elem) const;
  /// `v` reduced over the warp by redux.sync `id` (narrower integers widened by their sign).
  llvm::Value *warpRedux(llvm::Intrinsic::ID id, llvm::Value *v, const DType &elem);
  /// An fp32 value rounded to tf32 (cvt.rna.tf32.f32: what the tensor cores see), as fp32.
  llvm::Value *roundToTf32(llvm::Value *value);
  /// LowerDotMma.cpp. With onlyA, stages a and keeps its A fragments in hoistedA_ (called before
  /// the loop of a dot whose a is loop-invariant); the dot then uses them.
  void lowerDotMma(const Operation &op, bool onlyA = false);
  std::map<const Operation *, std::vector<Values>> hoistedA_;
  /// The A fragment (four 32-bit registers) of instruction row tile mi at K step s (of kI) of a
  /// tensor-core dot whose a is in registers in its accumulator's layout (mmaDotPlans:
  /// aInRegisters): rows g and g + 8, k from s*kI + q*perRegister (+ kI/2).
  Values mmaAFragmentFromRegisters(const Operation &op, unsigned mi, unsigned s, unsigned kI);
  /// `elements` (32 bits together) packed into one i32 register.
  llvm::Value *packRegister(const Values &elements);
  /// The mma.sync instruction for operands of type `in` into `out`: an NVVM intrinsic, or inline
  /// asm for the fp8 forms LLVM 19 lacks.
  llvm::FunctionCallee mmaCallee(const DType &in, const DType &out);
  /// Asks for PTX ISA `version` (84: 8.4) or newer for this module (see emitPTX).
  void requirePtxVersion(unsigned version);
  /// LowerDotWgmma.cpp.
  void lowerDotWgmma(const Operation &op);
  /// Whether a wgmma dot is left in flight across its loop's iterations (see LowerDotWgmma.cpp);
  /// sets the index of the loop-carried value its result is.
  bool wgmmaStaysInFlight(const Operation &dot, unsigned *carriedIndex = nullptr);
  /// Whether the kernel has a GEMM main loop: a wgmma dot whose group stays in flight from one
  /// iteration to the next. Such a loop keeps the tensor cores busy with its own asynchronous
  /// groups while the next tiles are copied, so a further resident CTA per SM buys it nothing;
  /// but ptxas, unless told that one CTA per SM is enough (.minnctapersm 1), squeezes registers to
  /// reach the next occupancy tier, and the few it leaves serialise the loop's copies (H100,
  /// fp16 128x128x32 on 4 warps: 196 -> 168 registers, 0.93 -> 0.82 of Triton at 1024^3).
  /// Attention's loops keep ptxas's choice: their softmax needs the resident CTAs (D64 128x64 on 8
  /// warps: one CTA per SM instead of two, 1.03 -> 0.89 of Triton).
  bool hasGemmMainLoop();
  /// The registers per thread (.maxnreg) of a kernel of 8 warps or more with a GEMM main loop.
  /// With .minnctapersm 1 ptxas may take all 255, and for the tutorial's 128x256x64 GEMM on 8
  /// warps it takes 228 and keeps the loop's pointers and offsets in vector registers (IMAD.X,
  /// IMAD.WIDE in the loop) where, under a bound, it moves them to the uniform datapath, as it
  /// does for Triton's PTX of the same loop (207 registers). Measured on an H100 and an H200,
  /// fp16 and bf16, 1024^3 to 8192^3: 0.95-0.97 of Triton unbounded, 0.99-1.00 under any bound
  /// from 192 to 224; fp8, int8 and tf32 128x256 on 8 warps within noise. The bound's mere
  /// presence changes ptxas's choices below it too, and on 4 warps it cost 2-4 % (128x128x32 at
  /// 200 registers instead of 196, 64x256x32 at 218 instead of 226), so those keep ptxas's own.
  static constexpr unsigned kGemmLoopMaxRegisters = 224;
  /// The registers per thread (.maxnreg) that let a second CTA of an attention kernel (a wgmma
  /// dot that takes a, P, from registers) share an SM when its shared memory leaves room for two,
  /// or 0 to keep ptxas's choice. ptxas does not know the dynamic shared memory and sizes the
  /// registers for the kernel alone: flash attention D128 64x64 on 8 warps took 158 registers,
  /// one CTA per SM where Triton's 128 give two (H100: 0.88-0.90 of Triton; under .maxnreg 128,
  /// 40 bytes of spills, 1.00-1.01). Only where the wgmma accumulators take at most 64 registers
  /// of the bound, so that the rest of the loop keeps its own.
  unsigned attentionRegisterBound();
  /// The warp's warpgroup (warp / 4; 0 with 4 warps), broadcast from lane 0 by a shuffle, as
  /// Triton computes its
  /// warp id: ptxas then knows it is the same in every lane of the warp, and keeps the wgmma
  /// descriptors that depend on it in uniform registers. (From tid.x it computes them in vector
  /// registers and moves each into uniform ones (R2UR) just before its instruction.)
  llvm::Value *uniformWarpGroup();
  /// The earlier wgmma dot of the loop body whose wait completes `dot`'s group in the next
  /// iteration, when `dot` is left in flight that way (see LowerDotWgmma.cpp); null otherwise.
  const Operation *wgmmaDeferredTo(const Operation &dot, unsigned *carriedIndex = nullptr);
  /// wgmma.wait_group `pending`, the accumulators tied through it: the values to use after it.
  Values waitForWgmma(const Values &accumulators, unsigned pending);
  /// fence.proxy.async.shared::cta: makes this thread's generic-proxy writes to shared memory
  /// visible to wgmma's (async proxy) reads after the next barrier.
  void fenceProxyAsync();
  /// The bits of fp32 `v` rounded toward zero to fp16 or bf16 (cvt.rz), as an i16.
  llvm::Value *towardZero16(llvm::Value *v, bool bf16);
  /// Inline assembly without results, with side effects, reading `args` through `constraints`.
  void voidAsm(const std::string &text, const std::string &constraints = "~{memory}",
               llvm::ArrayRef<llvm::Value *> args = {});

  /// The software pipeline's ops (LowerPipeline.cpp).
  llvm::Value *pipelineSlot(const Operation &op);
  /// Where the pipeline buffers lie and the mbarriers start (SharedMemory.h), planned once per
  /// function: each copy, read and barrier asks, and planning walks the function.
  const PipelineBufferPlan &bufferPlan();
  unsigned tmaBarrierOffset();
  void lowerAsyncCopy(const Operation &op);
  /// offset(element `to`) - offset(element `from`) in `plan`, in elements, when it is the same in
  /// every thread of the program (a compile-time constant); nullopt otherwise.
  std::optional<int64_t> uniformOffsetDelta(const SharedTilePlan &plan, const Distribution &dist,
                                            unsigned from, unsigned to) const;
  void lowerAsyncWait(const Operation &op);
  void lowerLocalLoad(const Operation &op);
  /// TMA copies and their mbarriers (LowerPipeline.cpp).
  llvm::Value *tmaBarrierAddress(unsigned barrier, llvm::Value *slot);
  void lowerTmaInit(const Operation &op);
  void lowerTmaCopy(const Operation &op);
  void lowerTmaStore(const Operation &op);
  void lowerTensormapCreate(const Operation &op);
  /// The generic address of the tensor map a tma_copy or tma_store reads (`tensor_map`: a
  /// parameter; `kernel_map`: one the kernel wrote).
  llvm::Value *tensorMapAddress(const Operation &op);
  /// For each TMA box of `plan`'s tile (at 32-bit shared address `base`) at tensor coordinates
  /// (row0, column0): the box's shared address and its coordinates, innermost (the column)
  /// first. A box `plan` does not keep as TMA copies it is a located error at `op`.
  void forEachTmaBox(const Operation &op, const SharedTilePlan &plan, int64_t boxRows,
                     llvm::Value *base, llvm::Value *row0, llvm::Value *column0,
                     const std::function<void(llvm::Value *, llvm::Value *, llvm::Value *)> &copy);
  void lowerTmaWait(const Operation &op);
  void lowerTmaInval(const Operation &op);
  void lowerLoad(const Operation &op);
  void lowerStore(const Operation &op);
  void lowerReduce(const Operation &op);
  void lowerArgReduce(const Operation &op);
  void lowerAtomicRMW(const Operation &op);
  void lowerAtomicCAS(const Operation &op);
  void lowerPrint(const Operation &op);
  void lowerAssert(const Operation &op);
  /// tl.histogram, tl.gather, tl.inline_asm_elementwise, tl.map_elementwise (LowerSpecial.cpp).
  void lowerHistogram(const Operation &op);
  void lowerGather(const Operation &op);
  void lowerInlineAsm(const Operation &op);
  /// tl.map_elementwise: its region inlined once per group of `pack` elements a thread holds.
  void lowerMapElementwise(const Operation &op);
  llvm::Value *ownsElement(const Distribution &dist, unsigned element);
  bool hasUses(const tir::Value *value);

  /// Atomics (LowerAtomics.cpp).
  std::optional<Distribution> distributionIfTensor(const tir::Type &type);
  static bool isReplicated(const std::optional<Distribution> &dist);
  llvm::Value *ownsResultOf(const std::optional<Distribution> &dist, unsigned element);
  llvm::Value *atom(const std::string &suffix, unsigned bits, llvm::Value *ptr,
                    llvm::ArrayRef<llvm::Value *> operands, llvm::Value *pred);
  Values atomVector(const std::string &op, const std::string &type, unsigned bits, llvm::Value *ptr,
                    llvm::ArrayRef<llvm::Value *> operands, llvm::Value *pred);
  unsigned atomicVectorWidth(const Operation &op, const std::optional<Distribution> &dist);
  /// The scope and memory order of the atomic being lowered (`gpu.acq_rel`, Triton's default;
  /// `sys.release` for tl.atomic_xchg(..., sem="release", scope="sys")).
  std::string atomOrder_ = "gpu.acq_rel";
  void setAtomOrder(const Operation &op);
  llvm::Value *floatMinMaxLoop(bool max, llvm::Value *ptr, llvm::Value *val, llvm::Value *pred);
  llvm::Value *halfAddLoop(llvm::Value *ptr, llvm::Value *val, llvm::Value *pred);
  Values broadcastFromOwners(const std::optional<Distribution> &dist, const Values &results,
                             const DType &elem);

  /// Argmax/argmin (LowerArgReduce.cpp), step 1 for floats: each result's (value, index) pairs,
  /// in order, folded into one NaN-free pair.
  using ArgRuns = std::vector<std::vector<std::pair<llvm::Value *, llvm::Value *>>>;
  void foldFloatRuns(bool max, ArgRuns &runs, Values &values, Values &indices);

  /// Print and assert (LowerDebug.cpp).
  llvm::Value *globalString(const std::string &text, const std::string &name);
  void ifThen(llvm::Value *cond, const std::function<void()> &body);
  /// Whether this is the block's thread 0, which does the block's one-thread work (printing the
  /// pid, a scalar atomic, mbarrier set-up and TMA copies).
  llvm::Value *isThreadZero() { return builder_.CreateICmpEQ(threadId_, builder_.getInt32(0)); }
  void lowerFor(const Operation &op);
  std::vector<std::vector<llvm::PHINode *>> createCarriedPhis(const Operation &op,
                                                              llvm::BasicBlock *preheader);
  llvm::Value *lowerLoopIteration(const Operation &op, llvm::PHINode *iv, llvm::Value *step,
                                  const std::vector<std::vector<llvm::PHINode *>> &phis);
  /// lowerFor for a loop whose last iteration leaves wgmma groups in flight (`drained`: the
  /// indices of the carried values they compute), in do-while form behind a guard.
  void lowerForDrained(const Operation &op, const std::vector<unsigned> &drained);
  /// Whether a `for` with induction variable `iv` runs another iteration (step's sign decides).
  llvm::Value *forContinues(const Operation &op, llvm::Value *iv);
  void lowerIf(const Operation &op);
  void lowerWhile(const Operation &op);

  unsigned accessVectorWidth(const Operation &op, const Distribution *dist);
  Values loadGroup(const Operation &op, llvm::Value *ptr, unsigned vec, const DType &elem,
                   llvm::Value *pred, const Values &others);
  void storeGroup(const Operation &op, llvm::Value *ptr, const Values &vals, const DType &elem,
                  llvm::Value *pred);
  llvm::Value *combine(const std::string &kind, const DType &type, llvm::Value *a, llvm::Value *b);
  llvm::Value *shuffleXor(llvm::Value *v, unsigned laneMask);
  llvm::Value *shuffleUpDown(llvm::Value *v, unsigned delta, bool up);
  llvm::Value *shuffleIndex(llvm::Value *v, llvm::Value *lane);
  llvm::Value *shuffle(llvm::Value *v, llvm::Intrinsic::ID id, llvm::Value *laneArg,
                       unsigned clamp);

  /// Scans (LowerScan.cpp) and the combine step of scans and reductions: the op's builtin kind
  /// on one operand, or its combine region inlined on N scalars a side.
  void lowerScan(const Operation &op);
  Values combineValues(const Operation &op, const Values &lhs, const Values &rhs);
  Values selectValues(llvm::Value *cond, const Values &ifTrue, const Values &ifFalse);
};

} // namespace tilec::codegen::detail
