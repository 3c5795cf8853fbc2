// AccelerateMatmul: moves each `dot` the tensor cores can compute onto wgmma (sm_90a) or mma.sync.
//
// As Triton's pass of that name, it asks one question per dot (does a wgmma, else an mma.sync,
// instruction take these operand types, and does the [M, N] tile split over the program's warps
// in whole instruction tiles?) and answers by giving the dot's result the accumulator layout of
// its instructions (Layout.h: mmaV3AccumulatorLayout for wgmma, the hardware's, Triton's version
// 3; mmaV2AccumulatorLayout for mma.sync) and the attribute engine = "wgmma" or "mma_v2". Both
// are blocked layouts (the v3 one with two repeats of each warp's rows), so every other pass
// handles them as any other. Layout assignment then
// spreads that layout to the accumulator's loop-carried values and converts where needed; the
// operands keep the layouts their producers give them and the lowering stages them through
// swizzled shared memory (or, for a chained dot's A, takes them straight from registers).
//
// wgmma's warps tile [M, N] as Triton's warpsPerTileV3: a warpgroup's four warps split an
// instruction's 64 rows; more warpgroups go along M while the tile has rows for them, then along
// N (64xN on 8 warps: two warpgroups side by side, n = N/2 columns each); a dot whose result
// another dot uses puts every warp along M, as attention's first product, even where the warps
// have more rows than the tile (their copies then compute the same rows). The pass keeps
// mma.sync where wgmma does not fit. mma.sync's warps tile [M, N] as Triton's
// warpsPerTileV2: a dot that feeds or is fed by
// another dot (attention's two products) puts every warp along its longer side, M on ties, and
// a dot chained to one that already has its grid takes that grid. Triton rewrites the dots
// bottom-up (MLIR's greedy driver pops the last op first), so the last dot of a chain decides:
// attention's P V, [32, 128] on 4 warps, puts them along N, and S = Q K^T follows. Other dots
// split the dimension with more instruction tiles per warp, N first on ties. Where the tile has
// fewer instruction tiles than the warps, the extra warps compute copies (the layout wraps).
//
// fp8 dots run on wgmma where it reads their tiles, else on mma.sync from sm_89 on; otherwise
// (older SMs, tiles the fp8 instruction does not fit, batched dots) their operands are cast to
// fp16 here, exactly, and the dot goes on as an fp16 one, as Triton does below sm_89.
#include "gpu/Arch.h"
#include "gpu/Layout.h"
#include "gpu/Mma.h"
#include "gpu/PassUtils.h"
#include "gpu/Passes.h"
#include "tir/Builder.h"

#include <algorithm>
#include <map>
#include <set>
#include <tuple>

namespace tilec::gpu {

using tir::OpCode;
using tir::Operation;
using tir::ScalarKind;
using tir::Value;

static std::optional<MmaV2Instruction> mmaV2InstructionForTypes(const Operation &dot) {
  const tir::DType &in = dot.operand(0)->type().elem, &out = dot.operand(2)->type().elem;
  if (dot.operand(1)->type().elem != in)
    return std::nullopt;
  std::string precision =
      dot.hasAttr("input_precision") ? dot.strAttr("input_precision") : std::string("ieee");
  switch (in.kind) {
  case ScalarKind::F16:
    if (out.kind == ScalarKind::F32 || out.kind == ScalarKind::F16)
      return MmaV2Instruction{16, 16};
    return std::nullopt;
  case ScalarKind::BF16:
    if (out.kind == ScalarKind::F32)
      return MmaV2Instruction{16, 16};
    return std::nullopt;
  case ScalarKind::F32:
    if (out.kind == ScalarKind::F32 && precision == "tf32")
      return MmaV2Instruction{8, 32};
    return std::nullopt;
  case ScalarKind::I8:
    if (out.kind == ScalarKind::I32)
      return MmaV2Instruction{32, 8};
    return std::nullopt;
  case ScalarKind::F8E4M3:
  case ScalarKind::F8E5M2: // m16n8k32 .e4m3/.e5m2: used on sm_89 only, as Triton (AccelerateMatmul)
    if (out.kind == ScalarKind::F32)
      return MmaV2Instruction{32, 8};
    return std::nullopt;
  default:
    return std::nullopt;
  }
}

std::optional<MmaV2Instruction> mmaV2InstructionFor(const Operation &dot) {
  std::optional<MmaV2Instruction> instruction = mmaV2InstructionForTypes(dot);
  if (instruction && dot.hasAttr("k_width"))
    instruction->kWidth = static_cast<unsigned>(dot.intAttr("k_width"));
  return instruction;
}

int64_t MmaV2Instruction::kIndex(unsigned step, unsigned half, unsigned e, int64_t kSize) const {
  const int64_t perReg = elemsPerRegister();
  if (!interleavesK())
    return step * k + half * (k / 2) + e;
  // Triton's dot operand layout gives lane q kWidth consecutive K values at kWidth * q in each
  // half of a block of 8 * kWidth; instruction j of the block takes the registers' j-th share of
  // them (MMAv2.cpp's register permutation for "large K").
  const int64_t instructionsPerBlock = kWidth / perReg;
  if (kSize >= 8 * kWidth) {
    const int64_t block = step / instructionsPerBlock, j = step % instructionsPerBlock;
    return block * 8 * kWidth + half * 4 * kWidth + j * perReg + e;
  }
  // K of 4 * kWidth: one half-block, its two register halves side by side.
  return step * 2 * perReg + half * perReg + e;
}

/// Whether MmaV2Instruction::kIndex orders a K of `kSize` for operands of `kWidth`: Triton's
/// layouts for a K of at least 8 * kWidth (whole blocks) or of 4 * kWidth.
static bool mmaV2TakesKWidth(unsigned kWidth, int64_t kSize) {
  return kSize % (8 * kWidth) == 0 || kSize == 4 * kWidth;
}

bool isMmaV2Dot(const Operation &dot) {
  return dot.code() == OpCode::Dot && dot.hasAttr("engine") && dot.strAttr("engine") == "mma_v2";
}

bool hasWgmma(const std::string &arch) {
  return arch == "sm_90a";
}

/// The dimension along which the load that produces `operand` (through layout conversions) is
/// contiguous, its layout's fastest dimension; -1 when it is not such a load.
static int contiguousDim(const Value *operand) {
  while (operand->definingOp() && operand->definingOp()->code() == OpCode::ConvertLayout)
    operand = operand->definingOp()->operand(0);
  const Operation *load = operand->definingOp();
  if (!load || load->code() != OpCode::Load || !layoutOf(load->result()))
    return -1;
  return static_cast<int>(layoutOf(load->result())->order[0]);
}

/// Whether wgmma multiplies `dot`'s operand type into its accumulator type: fp16 into fp32 or
/// fp16, bf16, fp8 and tf32 (fp32 operands of input_precision "tf32") into fp32, int8 into int32.
static bool wgmmaTakesTypes(const Operation &dot) {
  const tir::DType &in = dot.operand(0)->type().elem, &out = dot.operand(2)->type().elem;
  if (dot.operand(1)->type().elem != in)
    return false;
  switch (in.kind) {
  case ScalarKind::F16:
    return out.kind == ScalarKind::F32 || out.kind == ScalarKind::F16;
  case ScalarKind::BF16:
  case ScalarKind::F8E4M3:
  case ScalarKind::F8E5M2:
    return out.kind == ScalarKind::F32;
  case ScalarKind::F32:
    return out.kind == ScalarKind::F32 && dot.hasAttr("input_precision") &&
           dot.strAttr("input_precision") == "tf32";
  case ScalarKind::I8:
    return out.kind == ScalarKind::I32;
  default:
    return false;
  }
}

/// Triton 3.6's warpsPerTileV3: a dot whose result another dot uses puts every warp along M (so
/// that attention's softmax reduces rows within warps), even where the tile has fewer rows than
/// the warps (the warpgroups past M compute copies); others start from one warpgroup and double
/// the warps along M while the tile has more rows than they cover, else along N.
static std::pair<unsigned, unsigned> wgmmaWarpGrid(int64_t m, unsigned numWarps, bool feedsDot) {
  if (feedsDot)
    return {numWarps, 1};
  unsigned warpsM = 4, warpsN = 1;
  while (warpsM * warpsN < numWarps) {
    if (m > 16 * int64_t(warpsM))
      warpsM *= 2;
    else
      warpsN *= 2;
  }
  return {warpsM, warpsN};
}

std::optional<WgmmaInstruction> wgmmaInstructionFor(const Operation &dot, unsigned numWarps,
                                                    bool feedsDot) {
  if (!wgmmaTakesTypes(dot))
    return std::nullopt;
  // As Triton 3.6's supportMMA: an fp8 dot into fp32 whose max_num_imprecise_acc is below 32
  // (fp32 adds after every product of K) stays on mma.sync, which accumulates in fp32 itself.
  if (dot.operand(0)->type().elem.isFp8() && dot.hasAttr("max_num_imprecise_acc") &&
      dot.intAttr("max_num_imprecise_acc") < 32)
    return std::nullopt;
  const std::vector<int64_t> &shape = dot.result()->type().shape;
  if (shape.size() != 2 || numWarps % 4 != 0 || (numWarps & (numWarps - 1)) != 0)
    return std::nullopt;
  WgmmaInstruction instruction = wgmmaInstructionOf(dot, numWarps);
  const unsigned elemBytes = instruction.elemBits / 8;
  int64_t m = shape[0], n = shape[1], k = dot.operand(0)->type().shape[1];
  // As Triton's supportMMA for version 3: M in whole instructions, N a multiple of 16.
  if (m % 64 != 0 || n % 16 != 0 || k % instruction.k != 0)
    return std::nullopt;
  std::tie(instruction.warpsM, instruction.warpsN) = wgmmaWarpGrid(m, numWarps, feedsDot);
  // The warps' tile, warpsM * 16 rows by warpsN instructions' columns, repeats over the dot's or
  // wraps around it (copies: attention's first product of 64 rows on 8 warps).
  auto tiles = [](int64_t size, int64_t tile) { return size % tile == 0 || tile % size == 0; };
  if (!tiles(m, 16 * int64_t(instruction.warpsM)) ||
      !tiles(n, int64_t(instruction.n) * instruction.warpsN))
    return std::nullopt;
  // The NVMMA shared layouts swizzle rows of 32, 64 or 128 bytes; the operands' contiguous
  // dimension is not known until layouts are assigned, so both of b's dimensions and a's K must
  // fit (a's M always does: a multiple of 64 elements).
  auto swizzles = [&](int64_t elements) {
    int64_t bytes = elements * elemBytes;
    return bytes == 32 || bytes == 64 || bytes % 128 == 0;
  };
  if (!swizzles(k) || !swizzles(n))
    return std::nullopt;
  return instruction;
}

/// Whether tilec keeps a dot Triton puts on wgmma on mma.sync instead. wgmma reads 8-bit and
/// tf32 operands along K only (no transposed form). Triton 3.6 takes wgmma for the other orders
/// too and transposes the tiles through registers on their way to shared memory. For int8 and
/// tf32 tiles loaded along M or N tilec keeps such dots on mma.sync, which reads either order
/// from shared memory (their cp.async copies cannot transpose): the results are the same (the
/// GPU checks compare them bit for bit, mma_tf32_nn), and on an H200 Triton's int8 and tf32
/// GEMMs with b contiguous along N run 1.2 to 4.2 times slower than tilec's that way. Operands
/// computed in registers are staged along K either way and go on wgmma, as Triton's. fp8
/// follows Triton onto wgmma (its tiles staged along K, SharedTile.h): a chain of fp8 wgmmas
/// accumulates in less than fp32, mma.sync rounds every k32 step into fp32, and the results
/// differ (test_dot_max_num_imprecise_acc: up to 1e-2 over a K of 256).
static bool keptOffWgmma(const Operation &dot, const WgmmaInstruction &instruction) {
  if (instruction.elemBits == 16 || dot.operand(0)->type().elem.isFp8())
    return false;
  const int aDim = contiguousDim(dot.operand(0)), bDim = contiguousDim(dot.operand(1));
  return (aDim >= 0 && aDim != 1) || (bDim >= 0 && bDim != 0);
}

WgmmaInstruction wgmmaInstructionOf(const Operation &dot, unsigned numWarps) {
  const std::vector<int64_t> &shape = dot.result()->type().shape;
  int64_t m = shape[0], n = shape[1];
  WgmmaInstruction instruction;
  // An instruction covers 32 bytes of K: k16 for 16-bit operands, k32 for 8-bit, k8 for tf32.
  instruction.elemBits = dot.operand(0)->type().elem.bits();
  instruction.k = 256 / instruction.elemBits;
  // As Triton's mmaVersionToInstrShape: the widest n (a multiple of 8, at most 256) that divides
  // N and leaves a share of N to each group of warps the M rows do not occupy, 16 rows a warp.
  int64_t warpsForM = std::max<int64_t>(m / 16, 1);
  int64_t warpsForN = std::max<int64_t>(int64_t(numWarps) / warpsForM, 1);
  int64_t widest = std::max<int64_t>(n / warpsForN, 8);
  instruction.n = static_cast<unsigned>(std::min<int64_t>({n, 256, widest}) / 8 * 8);
  while (instruction.n > 8 && n % instruction.n != 0)
    instruction.n -= 8;
  if (const LayoutPtr &layout = dot.result()->type().layout)
    isMmaV3AccumulatorLayout(*layout, &instruction.warpsM, &instruction.warpsN);
  return instruction;
}

bool isWgmmaDot(const Operation &dot) {
  return dot.code() == OpCode::Dot && dot.hasAttr("engine") && dot.strAttr("engine") == "wgmma";
}

bool isTensorCoreDot(const Operation &dot) {
  return isMmaV2Dot(dot) || isWgmmaDot(dot);
}

namespace {

/// The other 2-D dots in `dot`'s slice as Triton's warpsPerTileV2 takes it (MLIR's getSlice: the
/// backward and forward slices of the dot, then of every op they reach, until nothing is added),
/// among the ops of dot's block, not through trans ops (a transposed operand): two dots that read
/// one loaded tile, or whose results one loop or if yields, are chained (fla's kda backward:
/// dot(b_dv, trans(b_v)) and dot(b_A, b_dv) in one if).
std::vector<Operation *>
chainedDots(Operation &dot, const std::map<const Value *, std::vector<Operation *>> &users) {
  std::vector<Operation *> found;
  std::set<const Operation *> seen{&dot};
  std::vector<Operation *> work{&dot};
  auto visit = [&](Operation *op) {
    if (op && op->parentBlock() == dot.parentBlock() && op->code() != OpCode::Trans &&
        seen.insert(op).second)
      work.push_back(op);
  };
  while (!work.empty()) {
    Operation *op = work.back();
    work.pop_back();
    // The batches of one 3-D dot (DecomposeBatchedDot) are one dot in Triton.
    const bool sameBatchedDot = dot.hasAttr("batch_slice") && op->hasAttr("batch_slice");
    if (op != &dot && op->code() == OpCode::Dot && op->result()->type().rank() == 2 &&
        !sameBatchedDot)
      found.push_back(op);
    for (Value *operand : op->operands())
      visit(operand->definingOp());
    for (unsigned r = 0; r < op->numResults(); ++r)
      if (auto it = users.find(op->result(r)); it != users.end())
        for (Operation *user : it->second)
          visit(user);
  }
  return found;
}

/// The warp grid over an [M, N] tile of 16x8 instruction tiles, or {0, 0} when the tile is not
/// made of whole instruction tiles. Where the tile has fewer instruction tiles than the program
/// has warps, the remaining warps go along N and compute copies of their neighbours' columns (the
/// layout wraps), as Triton's warpsPerTileV2 does: a 16x16 tile on 4 warps still runs on the
/// tensor cores, so its results are those of Triton's mma.sync and not of an FMA loop.
/// A chained dot puts every warp along its longer side, M on a tie, as Triton's does, even where
/// the tile is shorter than the warps: FlagAttention's 32x32 blocks on 4 warps run on warps 4x1,
/// warps 2 and 3 computing copies of the rows of warps 0 and 1. The rows a thread holds decide how
/// the softmax's row sums split between threads, so the grid decides the sums' bits.
std::pair<unsigned, unsigned> warpsPerTile(int64_t m, int64_t n, unsigned numWarps, bool chained) {
  if (m % 16 != 0 || n % 8 != 0)
    return {0, 0};
  auto fitsM = [&](unsigned warpsM) { return m % (16 * int64_t(warpsM)) == 0; };
  auto fitsN = [&](unsigned warpsN) { return n % (8 * int64_t(warpsN)) == 0; };
  if (chained)
    return m >= n ? std::pair{numWarps, 1u} : std::pair{1u, numWarps};
  unsigned warpsM = 1, warpsN = 1;
  while (warpsM * warpsN < numWarps) {
    int64_t tilesM = m / (16 * warpsM), tilesN = n / (8 * warpsN);
    if (tilesM >= tilesN && tilesM >= 2 && fitsM(warpsM * 2))
      warpsM *= 2;
    else if (fitsN(warpsN * 2))
      warpsN *= 2;
    else if (fitsM(warpsM * 2))
      warpsM *= 2;
    else // copies along N: only whole 8-column blocks wrap onto the tile's columns
      warpsN *= 2;
  }
  return {warpsM, warpsN};
}

/// Whether another dot uses what `dot` computes, as Triton's warpsPerTileV3 asks (MLIR's forward
/// slice of the result): the users, their results' users and so on, and every op nested in a
/// user's regions (a loop the result enters as an initial value).
bool feedsAnotherDot(const Operation &dot,
                     const std::map<const Value *, std::vector<Operation *>> &users) {
  std::set<const Operation *> seen{&dot};
  std::vector<const Operation *> work;
  auto pushUsers = [&](const Operation &op) {
    for (unsigned r = 0; r < op.numResults(); ++r)
      if (auto it = users.find(op.result(r)); it != users.end())
        work.insert(work.end(), it->second.begin(), it->second.end());
  };
  pushUsers(dot);
  while (!work.empty()) {
    const Operation *op = work.back();
    work.pop_back();
    if (!seen.insert(op).second)
      continue;
    if (op->code() == OpCode::Dot)
      return true;
    bool nestedDot = false;
    for (unsigned i = 0; i < op->numRegions(); ++i)
      tir::walk(const_cast<Operation *>(op)->region(i).block(),
                [&](Operation &inner) { nestedDot = nestedDot || inner.code() == OpCode::Dot; });
    if (nestedDot)
      return true;
    pushUsers(*op);
  }
  return false;
}

/// Replaces `dot`'s operands by their fp16 casts (exact: fp16 holds every e4m3 and e5m2 value).
void upcastOperandsToFp16(Operation &dot) {
  for (unsigned i = 0; i < 2; ++i) {
    Value *operand = dot.operand(i);
    tir::Builder b;
    b.setInsertionPoint(&dot);
    b.setLoc(dot.loc());
    Value *cast = b.createValue(OpCode::Cast, {operand},
                                operand->type().withElem(tir::DType::scalar(ScalarKind::F16)));
    cast->setNameHint(operand->nameHint());
    dot.setOperand(i, cast);
  }
}

/// The narrowest element width, in bits, of the tensors `operand` is computed from through
/// elementwise ops, views, broadcasts, layout conversions and loads (and their operands), not
/// through loop-carried values: Triton's computeOrigBitWidth, from which its mma.sync operand
/// layouts take their kWidth. A select built by tl.join counts half, as Triton's JoinOp does.
unsigned loadedBitWidth(const Value *operand) {
  unsigned bits = operand->type().elem.bits();
  bool joined = false;
  std::set<const Operation *> seen;
  std::vector<const Value *> work{operand};
  while (!work.empty()) {
    const Operation *op = work.back()->definingOp();
    work.pop_back();
    if (!op || !seen.insert(op).second)
      continue;
    const OpCode code = op->code();
    const bool followed = tir::isElementwise(code) || code == OpCode::MapElementwise ||
                          code == OpCode::ExpandDims || code == OpCode::Reshape ||
                          code == OpCode::Trans || code == OpCode::Broadcast ||
                          code == OpCode::ConvertLayout || code == OpCode::Load;
    if (!followed)
      continue;
    if (code == OpCode::Load && op->result()->type().isTensor())
      bits = std::min(bits, op->result()->type().elem.bits());
    joined = joined || op->hasAttr("join");
    for (const Value *input : op->operands())
      work.push_back(input);
  }
  return joined ? bits / 2 : bits;
}

/// The mma.sync warp grid for `dot`, or {0, 0} when mma.sync does not take it.
std::pair<unsigned, unsigned> mmaV2WarpGrid(Operation &dot, unsigned numWarps, bool chained) {
  std::optional<MmaV2Instruction> instruction = mmaV2InstructionFor(dot);
  if (!instruction)
    return {0, 0};
  const std::vector<int64_t> &shape = dot.result()->type().shape;
  if (dot.operand(0)->type().shape[1] % instruction->k != 0)
    return {0, 0};
  return warpsPerTile(shape[0], shape[1], numWarps, chained);
}

} // namespace

void runAccelerateMatmul(tir::Function &function, const std::string &arch) {
  auto users = usersOf(function);
  std::vector<Operation *> dots;
  tir::walk(function, [&](Operation &op) {
    if (op.code() == OpCode::Dot && !layoutOf(op.result()))
      dots.push_back(&op);
  });
  // Last dot first, as Triton's greedy rewrite takes them: the first of a chain to get its grid
  // gives it to the others.
  std::reverse(dots.begin(), dots.end());
  for (Operation *dot : dots) {
    const bool fp8 = dot->operand(0)->type().elem.isFp8() && dot->operand(1)->type().elem.isFp8();
    // Batched (3-D) dots stay on the FMA path: the instruction tiles here are 2-D.
    if (dot->result()->type().rank() != 2) {
      if (fp8)
        upcastOperandsToFp16(*dot);
      continue;
    }
    // A batch's slice of a 3-D dot (DecomposeBatchedDot) stays on mma.sync, as Triton's 3-D dots.
    const bool batchSlice = dot->hasAttr("batch_slice");
    bool tritonTakesWgmma = false;
    if (hasWgmma(arch) && !batchSlice) {
      std::optional<WgmmaInstruction> instruction =
          wgmmaInstructionFor(*dot, function.numWarps, feedsAnotherDot(*dot, users));
      tritonTakesWgmma = instruction.has_value();
      if (instruction && !keptOffWgmma(*dot, *instruction)) {
        dot->setAttr("engine", std::string("wgmma"));
        retypeResult(
            function, *dot, 0,
            mmaV3AccumulatorLayout(instruction->warpsM, instruction->warpsN, instruction->n));
        continue;
      }
    }
    // A chained dot that has its mma.sync layout already gives its warp grid (Triton's
    // warpsPerTileV2).
    const std::vector<Operation *> chainedTo = chainedDots(*dot, users);
    const bool chained = !chainedTo.empty();
    unsigned chainedWarpsM = 0, chainedWarpsN = 0;
    for (Operation *other : chainedTo)
      if (LayoutPtr l = layoutOf(other->result());
          l && isMmaV2AccumulatorLayout(*l, &chainedWarpsM, &chainedWarpsN))
        break;
    // fp8 operands: mma.sync multiplies them natively where Triton does, on sm_89 only (its
    // decomposeMixedModeDotOp promotes them to fp16 on every other SM, sm_90 included when the
    // dot is not on wgmma: torchao's 16-row blockwise fp8 GEMM). Elsewhere, and for tiles the fp8
    // instruction does not fit, they are cast to fp16 first and the dot goes on as an fp16 one
    // (on mma.sync or the FMA path). Mixed e4m3 x e5m2 operands take the cast too.
    auto [warpsM, warpsN] = std::pair<unsigned, unsigned>{0, 0};
    if (!fp8 || smVersion(arch) == 89)
      std::tie(warpsM, warpsN) = mmaV2WarpGrid(*dot, function.numWarps, chained);
    if (warpsM == 0 && fp8) {
      upcastOperandsToFp16(*dot);
      std::tie(warpsM, warpsN) = mmaV2WarpGrid(*dot, function.numWarps, chained);
    }
    if (warpsM == 0)
      continue;
    if (chainedWarpsM != 0)
      std::tie(warpsM, warpsN) = std::make_pair(chainedWarpsM, chainedWarpsN);
    dot->setAttr("engine", std::string("mma_v2"));
    // Operands loaded narrower than they are multiplied: Triton's wider kWidth, which orders
    // the K sums differently (fla's fp32 products of fp16 loads on two warps). Not where Triton
    // computes the dot on wgmma, whose operands keep K in order.
    const MmaV2Instruction instruction = *mmaV2InstructionFor(*dot);
    const unsigned bits =
        std::max(1u, std::min(loadedBitWidth(dot->operand(0)), loadedBitWidth(dot->operand(1))));
    const unsigned kWidth = std::max(32 / bits, 1u);
    if (!tritonTakesWgmma && kWidth != instruction.elemsPerRegister() &&
        mmaV2TakesKWidth(kWidth, dot->operand(0)->type().shape[1]))
      dot->setAttr("k_width", static_cast<int64_t>(kWidth));
    // As Coalesce does for memory accesses: the result takes the layout and is converted back to
    // the layout it had (none yet) for its users; AssignLayouts carries the layout on through the
    // conversion, RemoveRedundantConversions drops it.
    retypeResult(function, *dot, 0, mmaV2AccumulatorLayout(warpsM, warpsN));
  }
}

} // namespace tilec::gpu
