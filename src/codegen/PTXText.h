// Small helpers for the peepholes that rewrite the PTX text LLVM's NVPTX backend emits
// (FuseWideMultiplyAdd.cpp, CompareBitTestsWithZero.cpp): lines, instructions and their operands,
// register names, and where the basic blocks of a function end.
#pragma once

#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

namespace tilec::codegen::ptx {

/// The register names (`%rd12`, `%r3`, `%p1`; not `%tid.x`) in `text`, in order.
std::vector<std::string> registersIn(const std::string &text);

/// `text` without leading and trailing blanks.
std::string trim(const std::string &text);

/// An instruction line split into its opcode (with predicate guard, if any) and its operands
/// (the text between the opcode and the ';', split at top-level commas).
struct Instruction {
  std::string opcode;
  std::vector<std::string> operands;
};

/// The instruction on `line`, or nothing for labels, directives, braces and comments.
std::optional<Instruction> parseInstruction(const std::string &line);

/// The unguarded 32-to-64-bit multiplication `mul.wide.{s,u}32 d, a, b;` on `line`, or nothing.
std::optional<Instruction> parseWideMultiply(const std::string &line);

/// Whether `line` ends a basic block for a local rewrite: a label, a branch, a return, a call, a
/// barrier or the function's end. Calls and barriers are not block ends in PTX, but nothing is
/// gained by moving an instruction across them.
bool endsBlock(const std::string &line);

/// The registers `line` may write: those of its first operand (a destination, or a brace group
/// of them; `setp`'s `%p1|%p2` pair included). Stores and other instructions whose first operand
/// is an address list registers that are only read, which only makes the tests more careful.
std::vector<std::string> writtenRegisters(const std::string &line);

/// A PTX module as lines, with, for each line, its function (registers are local to one: a
/// module with several kernels repeats their names) and the lines of that function that mention
/// each register.
struct Lines {
  explicit Lines(const std::string &ptx);
  /// The text again, without the lines marked erased; a final newline as in the input.
  std::string join(const std::vector<bool> &erased) const;

  std::vector<std::string> text;
  std::vector<size_t> function;
  std::vector<std::unordered_map<std::string, std::vector<size_t>>> mentions;
  bool endsWithNewline = true;

  /// The lines of line i's function that mention `name`.
  const std::vector<size_t> &mentionsOf(size_t i, const std::string &name);
};

} // namespace tilec::codegen::ptx
