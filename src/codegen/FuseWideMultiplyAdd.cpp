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

#include <cctype>
#include <optional>
#include <sstream>
#include <unordered_map>
#include <vector>

namespace tilec::codegen {
namespace {

/// The register names (`%rd12`, `%r3`, `%p1`; not `%tid.x`) in `text`, in order.
std::vector<std::string> registersIn(const std::string &text) {
  std::vector<std::string> names;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '%')
      continue;
    size_t end = i + 1;
    while (end < text.size() && std::isalpha(static_cast<unsigned char>(text[end])))
      ++end;
    size_t digits = end;
    while (end < text.size() && std::isdigit(static_cast<unsigned char>(text[end])))
      ++end;
    if (digits == i + 1 || end == digits)
      continue;
    if (end < text.size() && (std::isalnum(static_cast<unsigned char>(text[end])) ||
                              text[end] == '_' || text[end] == '.'))
      continue;
    names.push_back(text.substr(i, end - i));
    i = end - 1;
  }
  return names;
}

std::string trim(const std::string &text) {
  size_t begin = text.find_first_not_of(" \t");
  if (begin == std::string::npos)
    return "";
  size_t end = text.find_last_not_of(" \t\r");
  return text.substr(begin, end - begin + 1);
}

/// An instruction line split into its opcode (with predicate guard, if any) and its operands
/// (the text between the opcode and the ';', split at top-level commas).
struct Instruction {
  std::string opcode;
  std::vector<std::string> operands;
};

std::optional<Instruction> parseInstruction(const std::string &line) {
  std::string text = trim(line);
  if (text.empty() || text.back() != ';' || text.rfind("//", 0) == 0)
    return std::nullopt;
  text.pop_back();
  Instruction instruction;
  size_t space = text.find_first_of(" \t");
  if (text[0] == '@') { // a guarded instruction: the guard is part of the opcode here
    space = text.find_first_of(" \t", text.find_first_not_of(" \t", space));
  }
  instruction.opcode = text.substr(0, space);
  std::string rest = space == std::string::npos ? "" : text.substr(space);
  int depth = 0;
  std::string current;
  for (char c : rest) {
    if (c == '{' || c == '[' || c == '(')
      ++depth;
    if (c == '}' || c == ']' || c == ')')
      --depth;
    if (c == ',' && depth == 0) {
      instruction.operands.push_back(trim(current));
      current.clear();
      continue;
    }
    current += c;
  }
  if (!trim(current).empty())
    instruction.operands.push_back(trim(current));
  return instruction;
}

/// Whether `line` ends a basic block for this rewrite: a label, a branch, a return, a call, a
/// barrier or the function's end. Calls and barriers are not block ends in PTX, but nothing is
/// gained by moving a multiplication across them.
bool endsBlock(const std::string &line) {
  static const char *const kOpcodeWords[] = {"bra", "ret", "exit", "call", "bar.", "barrier"};
  auto mentionsOne = [](const std::string &text) {
    for (const char *word : kOpcodeWords)
      if (text.find(word) != std::string::npos)
        return true;
    return false;
  };
  std::string text = trim(line);
  if (text.empty() || text.rfind("//", 0) == 0)
    return false;
  if (text.back() == ':' || text == "}" || text == "{")
    return true;
  if (!mentionsOne(text)) // most lines: no parse needed
    return false;
  std::optional<Instruction> instruction = parseInstruction(line);
  return instruction && mentionsOne(instruction->opcode);
}

/// The registers `line` may write: those of its first operand (a destination, or a brace group
/// of them; `setp`'s `%p1|%p2` pair included). Stores and other instructions whose first operand
/// is an address list registers that are only read, which only makes the test more careful.
std::vector<std::string> writtenRegisters(const std::string &line) {
  std::optional<Instruction> instruction = parseInstruction(line);
  if (!instruction || instruction->operands.empty())
    return {};
  return registersIn(instruction->operands[0]);
}

} // namespace

std::string fuseWideMultiplyAdds(const std::string &ptx) {
  std::vector<std::string> lines;
  {
    std::istringstream stream(ptx);
    std::string line;
    while (std::getline(stream, line))
      lines.push_back(line);
  }
  // Where each register is mentioned, per function (registers are local to one: a module with
  // several kernels repeats their names), and where the basic blocks end: each line is read once.
  std::vector<size_t> function(lines.size(), 0);
  std::vector<std::unordered_map<std::string, std::vector<size_t>>> mentions(1);
  std::vector<size_t> blockEndsUpTo(lines.size() + 1, 0); // block ends among lines [0, i)
  for (size_t i = 0; i < lines.size(); ++i) {
    if (!lines[i].empty() && lines[i][0] == '.' &&
        (lines[i].rfind(".entry", 0) == 0 || lines[i].rfind(".func", 0) == 0 ||
         lines[i].rfind(".visible", 0) == 0 || lines[i].rfind(".weak", 0) == 0))
      mentions.emplace_back();
    function[i] = mentions.size() - 1;
    for (const std::string &name : registersIn(lines[i]))
      mentions.back()[name].push_back(i);
    blockEndsUpTo[i + 1] = blockEndsUpTo[i] + (endsBlock(lines[i]) ? 1 : 0);
  }

  std::vector<bool> erased(lines.size(), false);
  for (size_t i = 0; i < lines.size(); ++i) {
    if (lines[i].find("mul.wide.") == std::string::npos)
      continue;
    std::optional<Instruction> mul = parseInstruction(lines[i]);
    if (!mul || (mul->opcode != "mul.wide.s32" && mul->opcode != "mul.wide.u32") ||
        mul->operands.size() != 3)
      continue;
    const std::string &product = mul->operands[0];
    std::unordered_map<std::string, std::vector<size_t>> &where = mentions[function[i]];
    if (registersIn(product).size() != 1)
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
    for (const std::string &factor : registersIn(mul->operands[1] + "," + mul->operands[2]))
      for (size_t k : where[factor])
        if (k > i && k < j)
          for (const std::string &written : writtenRegisters(lines[k]))
            clobbered |= written == factor;
    if (clobbered)
      continue;
    std::optional<Instruction> add = parseInstruction(lines[j]);
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

  std::string result;
  result.reserve(ptx.size());
  for (size_t i = 0; i < lines.size(); ++i) {
    if (erased[i])
      continue;
    result += lines[i];
    result += '\n';
  }
  if (!ptx.empty() && ptx.back() != '\n' && !result.empty())
    result.pop_back();
  return result;
}

} // namespace tilec::codegen
