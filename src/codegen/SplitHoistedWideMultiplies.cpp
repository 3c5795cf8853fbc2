// SplitHoistedWideMultiplies: a hoisted `mul.wide` by 2^k -> `cvt` + `shl.b64`, on the PTX text.
//
// Loop strength reduction leaves a pipelined GEMM's B-tile addresses as one loop-carried base
// pointer, the same for every thread, plus one loop-invariant offset per copy, computed before
// the loop as sext(offset) * elementSize. LLVM 19's NVPTX backend emits that product as
// `mul.wide.s32`; Triton's newer LLVM emits `cvt.s64.s32` + `shl.b64` there. With `mul.wide`,
// ptxas folds the product into each address add of the loop (IMAD.WIDE), whose 64-bit addend must
// then be in vector registers: the base leaves the uniform datapath and every copy's address
// costs a wide multiply-add in the loop. Given the 64-bit offsets, ptxas adds them with IADD3 as
// it does for Triton's PTX. Measured on an H100 (session 16), the tutorial GEMM's 128x128x32
// config on 4 warps, fp16 and bf16: 0.933 -> 0.956 of Triton at 1024^3 and 0.933-0.948 ->
// 0.967-0.970 at 2048^3, 0.99-1.02 -> 0.99-1.00 at 4096^3 and 8192^3.
//
// Only products read in other basic blocks are split: a product used in its own block is either
// fused with its add (FuseWideMultiplyAdd.cpp) or cheapest as it is.
#include "codegen/SplitHoistedWideMultiplies.h"

#include "codegen/PTXText.h"

#include <algorithm>
#include <llvm/Support/MathExtras.h>

namespace tilec::codegen {
namespace {

/// Whether `line` is a label, which starts a basic block.
bool isLabel(const std::string &line) {
  std::string text = ptx::trim(line);
  return !text.empty() && text.back() == ':' && text.rfind("//", 0) != 0;
}

/// Whether `line` is a branch, return or exit, which ends a basic block.
bool isTerminator(const std::string &line) {
  std::optional<ptx::Instruction> instruction = ptx::parseInstruction(line);
  if (!instruction)
    return false;
  std::string opcode = instruction->opcode;
  if (!opcode.empty() && opcode[0] == '@') // the guard, then the opcode
    opcode = ptx::trim(opcode.substr(opcode.find_first_of(" \t")));
  return opcode.rfind("bra", 0) == 0 || opcode == "ret" || opcode == "exit";
}

/// log2 of `text` if it is a decimal power of two of at least 2, else -1.
int shiftOf(const std::string &text) {
  if (text.empty() || text.size() > 10 ||
      !std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; }))
    return -1;
  uint64_t value = std::stoull(text);
  return value >= 2 && llvm::isPowerOf2_64(value) ? static_cast<int>(llvm::Log2_64(value)) : -1;
}

} // namespace

std::string splitHoistedWideMultiplies(const std::string &ptx) {
  ptx::Lines module(ptx);
  std::vector<std::string> &lines = module.text;
  std::vector<size_t> block(lines.size(), 0); // basic block number of each line
  size_t current = 0;
  for (size_t i = 0; i < lines.size(); ++i) {
    if (isLabel(lines[i]))
      ++current;
    block[i] = current;
    if (isTerminator(lines[i]))
      ++current;
  }

  for (size_t i = 0; i < lines.size(); ++i) {
    std::optional<ptx::Instruction> mul = ptx::parseWideMultiply(lines[i]);
    if (!mul)
      continue;
    const std::string &product = mul->operands[0];
    const std::string &factor = mul->operands[1];
    int shift = shiftOf(mul->operands[2]);
    if (shift < 0 || ptx::registersIn(product) != std::vector<std::string>{product} ||
        ptx::registersIn(factor) != std::vector<std::string>{factor})
      continue;
    // Read only in other blocks, and defined only here.
    bool hoisted = true;
    for (size_t k : module.mentionsOf(i, product)) {
      if (k == i)
        continue;
      std::vector<std::string> written = ptx::writtenRegisters(lines[k]);
      if (block[k] == block[i] ||
          std::find(written.begin(), written.end(), product) != written.end())
        hoisted = false;
    }
    if (!hoisted || module.mentionsOf(i, product).size() < 2)
      continue;
    std::string widen = mul->opcode == "mul.wide.s32" ? "cvt.s64.s32" : "cvt.u64.u32";
    lines[i] = "\t" + widen + " \t" + product + ", " + factor + ";\n\tshl.b64 \t" + product +
               ", " + product + ", " + std::to_string(shift) + ";";
  }
  return module.join(std::vector<bool>(lines.size(), false));
}

} // namespace tilec::codegen
