// Helpers for the PTX text peepholes: see PTXText.h.
#include "codegen/PTXText.h"

#include <cctype>
#include <sstream>

namespace tilec::codegen::ptx {

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

std::optional<Instruction> parseWideMultiply(const std::string &line) {
  if (line.find("mul.wide.") == std::string::npos) // most lines: no parse needed
    return std::nullopt;
  std::optional<Instruction> mul = parseInstruction(line);
  if (!mul || (mul->opcode != "mul.wide.s32" && mul->opcode != "mul.wide.u32") ||
      mul->operands.size() != 3)
    return std::nullopt;
  return mul;
}

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

std::vector<std::string> writtenRegisters(const std::string &line) {
  std::optional<Instruction> instruction = parseInstruction(line);
  if (!instruction || instruction->operands.empty())
    return {};
  return registersIn(instruction->operands[0]);
}

Lines::Lines(const std::string &ptx) {
  std::istringstream stream(ptx);
  std::string line;
  while (std::getline(stream, line))
    text.push_back(line);
  endsWithNewline = ptx.empty() || ptx.back() == '\n';
  function.assign(text.size(), 0);
  mentions.emplace_back();
  for (size_t i = 0; i < text.size(); ++i) {
    const std::string &line = text[i];
    if (!line.empty() && line[0] == '.' &&
        (line.rfind(".entry", 0) == 0 || line.rfind(".func", 0) == 0 ||
         line.rfind(".visible", 0) == 0 || line.rfind(".weak", 0) == 0))
      mentions.emplace_back();
    function[i] = mentions.size() - 1;
    for (const std::string &name : registersIn(line))
      mentions.back()[name].push_back(i);
  }
}

const std::vector<size_t> &Lines::mentionsOf(size_t i, const std::string &name) {
  return mentions[function[i]][name];
}

std::string Lines::join(const std::vector<bool> &erased) const {
  std::string result;
  for (size_t i = 0; i < text.size(); ++i) {
    if (erased[i])
      continue;
    result += text[i];
    result += '\n';
  }
  if (!endsWithNewline && !result.empty())
    result.pop_back();
  return result;
}

} // namespace tilec::codegen::ptx
