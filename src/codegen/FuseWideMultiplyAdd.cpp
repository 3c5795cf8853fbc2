// FuseWideMultiplyAdd: mul.wide + add.s64 -> mad.wide, on the PTX text.
//
// The address of nearly every tensor access is base + sext(offset) * elementSize. LLVM 19's NVPTX
// backend has no mad.wide: it emits `mul.wide.s32 %rd10, %r32, 2; add.s64 %rd9, %rd1, %rd10;`,
// where Triton's newer LLVM emits `mad.wide.s32 %rd9, %r32, 2, %rd1;`. The values are the same,
// but ptxas schedules the two forms differently. Measured on an H200 (session 8): in group norm's
// statistics loop, which ptxas unrolls four times, the mul/add form issues each iteration's
// 16-byte load only after the previous one's data arrived; with mad.wide, three loads are in
// flight before the first is used, as in Triton's code (group_norm_fp16: 0.91 -> 1.05-1.08 times
// Triton). The SASS was otherwise unchanged by the PTX ISA version, .reqntid or the parameters'
// .ptr annotations, and Triton's ptxas (CUDA 12.8) and CUDA 13's gave the same speed.
//
// The rewrite is local and conservative: the product must have exactly one use in the function,
// an add.s64 in the same basic block (no label or branch in between), and no instruction in
// between may write the multiplication's operands; the mad.wide then takes the add's place, where
// its operands hold the values the mul.wide read.
#include "codegen/FuseWideMultiplyAdd.h"

#include "codegen/PTXText.h"

#include <unordered_map>

namespace tilec::codegen {

std::string fuseWideMultiplyAdds(const std::string &ptx) {
  ptx::Lines module(ptx);
  std::vector<std::string> &lines = module.text;
  std::vector<size_t> blockEndsUpTo(lines.size() + 1, 0); // block ends among lines [0, i)
  for (size_t i = 0; i < lines.size(); ++i)
    blockEndsUpTo[i + 1] = blockEndsUpTo[i] + (ptx::endsBlock(lines[i]) ? 1 : 0);

  std::vector<bool> erased(lines.size(), false);
  for (size_t i = 0; i < lines.size(); ++i) {
    std::optional<ptx::Instruction> mul = ptx::parseWideMultiply(lines[i]);
    if (!mul)
      continue;
    const std::string &product = mul->operands[0];
    std::unordered_map<std::string, std::vector<size_t>> &where =
        module.mentions[module.function[i]];
    if (ptx::registersIn(product).size() != 1)
      continue;
    // The product's one use: the only other line that mentions it, later in the same block.
    const std::vector<size_t> &productLines = where[product];
    if (productLines.size() != 2 || productLines[0] != i)
      continue;
    const size_t j = productLines[1];
    if (blockEndsUpTo[j + 1] != blockEndsUpTo[i + 1])
      continue;
    // The factors unchanged up to it.
    bool clobbered = false;
    for (const std::string &factor : ptx::registersIn(mul->operands[1] + "," + mul->operands[2]))
      for (size_t k : where[factor])
        if (k > i && k < j)
          for (const std::string &written : ptx::writtenRegisters(lines[k]))
            clobbered |= written == factor;
    if (clobbered)
      continue;
    std::optional<ptx::Instruction> add = ptx::parseInstruction(lines[j]);
    if (!add || add->opcode != "add.s64" || add->operands.size() != 3 ||
        add->operands[0] == product)
      continue;
    const std::string &other = add->operands[1] == product ? add->operands[2] : add->operands[1];
    if (other == product)
      continue;
    std::string kind = mul->opcode.substr(std::string("mul.wide.").size());
    lines[j] = "\tmad.wide." + kind + " \t" + add->operands[0] + ", " + mul->operands[1] + ", " +
               mul->operands[2] + ", " + other + ";";
    erased[i] = true;
  }

  return module.join(erased);
}

} // namespace tilec::codegen
