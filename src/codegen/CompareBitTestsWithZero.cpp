// CompareBitTestsWithZero: `and %r, x, 1; setp.eq %p, %r, 1` -> `setp.ne %p, %r, 0`, on the PTX.
//
// LLVM 19's NVPTX backend lowers `trunc iN to i1` (which its DAG combiner also makes of `(x & 1)
// == 0` feeding a select, as in `tl.where(v & 1 == 1, ...)`) to `and.b32 %r, %x, 1; setp.eq.b32
// %p, %r, 1;`, where Triton's newer LLVM compares with 0. ptxas folds `and` + compare-with-zero
// into one LOP3 that writes the predicate, but not the compare with 1: one more ALU instruction
// per bit test. Measured on an H100 (session 11): the Collatz loop of bench/kernels/elementwise.tl,
// whose eight bit tests per iteration run on the ALU pipe that bounds it, went from 0.96 to 1.10
// times Triton.
//
// %r holds 0 or 1 when its only definition in the function is an `and` with 1 (any operand
// order), so `%r == 1` is `%r != 0` and `%r != 1` is `%r == 0` wherever %r is read.
#include "codegen/CompareBitTestsWithZero.h"

#include "codegen/PTXText.h"

#include <algorithm>

namespace tilec::codegen {
namespace {

/// Whether `opcode` is `and.bN` and `x` (the type suffix of a `setp`, like `b32` or `s32`) has
/// the same width N.
bool sameWidthAnd(const std::string &opcode, const std::string &setpType) {
  const std::string prefix = "and.b";
  if (opcode.rfind(prefix, 0) != 0 || setpType.size() < 2)
    return false;
  return opcode.substr(prefix.size()) == setpType.substr(1);
}

} // namespace

std::string compareBitTestsWithZero(const std::string &ptx) {
  ptx::Lines module(ptx);
  std::vector<std::string> &lines = module.text;
  for (size_t i = 0; i < lines.size(); ++i) {
    if (lines[i].find("setp.") == std::string::npos)
      continue;
    std::optional<ptx::Instruction> setp = ptx::parseInstruction(lines[i]);
    if (!setp || setp->operands.size() != 3 || setp->operands[2] != "1")
      continue;
    // setp.eq.b32 / setp.ne.s16 ...: no guard, no combining form (setp.eq.and.b32).
    const std::string &opcode = setp->opcode;
    bool isEq = opcode.rfind("setp.eq.", 0) == 0;
    if (!isEq && opcode.rfind("setp.ne.", 0) != 0)
      continue;
    std::string type = opcode.substr(std::string("setp.eq.").size());
    if (type != "b16" && type != "b32" && type != "b64" && type != "s16" && type != "s32" &&
        type != "s64" && type != "u16" && type != "u32" && type != "u64")
      continue;
    const std::string &tested = setp->operands[1];
    if (ptx::registersIn(tested) != std::vector<std::string>{tested})
      continue;
    // The tested register's one definition: an `and` with 1 of the same width.
    size_t definitions = 0;
    bool andWithOne = false;
    for (size_t k : module.mentionsOf(i, tested)) {
      std::vector<std::string> written = ptx::writtenRegisters(lines[k]);
      if (std::find(written.begin(), written.end(), tested) == written.end())
        continue;
      ++definitions;
      std::optional<ptx::Instruction> def = ptx::parseInstruction(lines[k]);
      andWithOne = def && def->operands.size() == 3 && def->operands[0] == tested &&
                   sameWidthAnd(def->opcode, type) &&
                   (def->operands[1] == "1" || def->operands[2] == "1");
    }
    if (definitions != 1 || !andWithOne)
      continue;
    lines[i] = std::string("\tsetp.") + (isEq ? "ne." : "eq.") + type + " \t" + setp->operands[0] +
               ", " + tested + ", 0;";
  }
  return module.join(std::vector<bool>(lines.size(), false));
}

} // namespace tilec::codegen
