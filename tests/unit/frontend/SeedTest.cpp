// Parses the Python code of the seed documents: the kernels tilec exists to compile, with the
// host code, helpers and notebook fragments around them.
//
// The seeds are markdown-ish notes. Two of them fence their code (```python, sometimes indented
// or quoted with "> "); the third is plain text where code and prose alternate, so its code is
// cut at prose lines. A few blocks are not valid Python (a signature without a body, a typo in
// the notes, a kernel with two parameters named K); CPython 3.11 rejects exactly those, and the
// table below says what it reports. Every other block must parse.
#include "TestUtil.h"

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>

namespace {

struct CodeBlock {
  std::string seed; // file name
  int line;         // line of the seed where the block starts
  std::string code;
};

std::vector<std::string> splitLines(const std::string &text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);)
    lines.push_back(line);
  return lines;
}

bool startsWith(const std::string &text, const std::string &prefix) {
  return text.compare(0, prefix.size(), prefix) == 0;
}

/// A line of the unfenced seed that is prose, not code: at column 1, not a comment, and either
/// Chinese text (outside a string or comment) or a title made of plain words.
bool isProse(const std::string &line) {
  if (line.empty() || std::isspace(static_cast<unsigned char>(line[0])) || line[0] == '#')
    return false;
  bool hasNonAscii = false;
  for (unsigned char c : line)
    hasNonAscii |= c >= 0x80;
  if (hasNonAscii && line.find_first_of("#\"'=") == std::string::npos)
    return true;
  static const std::regex title("[A-Za-z][A-Za-z0-9 ()/+-]*");
  static const std::regex keyword("(import|from|def|class|pass|return|raise|global|nonlocal|del|"
                                  "assert|if|elif|else|for|while|try|except|finally|with|async|"
                                  "await|lambda|yield|break|continue) .*");
  return std::regex_match(line, title) && line.find(' ') != std::string::npos &&
         !std::regex_match(line, keyword);
}

std::vector<CodeBlock> extractBlocks(const std::string &seed, const std::string &text) {
  std::vector<std::string> lines = splitLines(text);
  std::vector<CodeBlock> blocks;
  static const std::regex fence(R"(^(\s*(?:>\s?)?)```(\w*)\s*$)");
  bool fenced = false;
  for (const std::string &line : lines)
    fenced |= std::regex_match(line, fence);

  if (fenced) {
    for (size_t i = 0; i < lines.size(); ++i) {
      std::smatch match;
      if (!std::regex_match(lines[i], match, fence) || (match[2] != "python" && match[2] != "py"))
        continue;
      std::string prefix = match[1];
      CodeBlock block{seed, static_cast<int>(i + 2), ""};
      for (++i; i < lines.size() && !std::regex_match(lines[i], fence); ++i) {
        const std::string &code = lines[i];
        // Strip the fence's indentation or "> " quote from each line of the block.
        block.code += (startsWith(code, prefix) ? code.substr(prefix.size()) : code) + "\n";
      }
      blocks.push_back(block);
    }
    return blocks;
  }

  // Unfenced: code starts at an import, decorator, def or class and runs to the next prose line.
  static const std::regex codeStart("(import |from |@|def |class ).*");
  std::optional<CodeBlock> current;
  auto flush = [&] {
    if (current)
      blocks.push_back(*current);
    current.reset();
  };
  for (size_t i = 0; i < lines.size(); ++i) {
    if (isProse(lines[i])) {
      flush();
      continue;
    }
    if (!current && std::regex_match(lines[i], codeStart))
      current = CodeBlock{seed, static_cast<int>(i + 1), ""};
    if (current)
      current->code += lines[i] + "\n";
  }
  flush();
  return blocks;
}

/// The blocks CPython 3.11 rejects, with the error tilec gives (same message as CPython; the
/// line is relative to the block).
struct KnownInvalid {
  const char *seed;
  int line;
  const char *error;
};
const KnownInvalid knownInvalid[] = {
    // A signature shown on its own, without a body.
    {"000_130d151a9698a582.txt", 168, ":8:3: error: expected an indented block"},
    // An @triton.autotune(...) decorator shown without the function it decorates.
    {"000_130d151a9698a582.txt", 181, ":15:2: error: invalid syntax"},
    // A stray "ara" line typed into the kernel, which dedents the loop body.
    {"000_130d151a9698a582.txt", 502, ":32:9: error: unexpected indent"},
    // flash_attention_kernel takes both the tensor K and the head size K.
    {"004_4e6e651a6b604137.txt", 770,
     ":11:17: error: duplicate argument 'K' in function definition"},
};

const KnownInvalid *findKnownInvalid(const CodeBlock &block) {
  for (const KnownInvalid &known : knownInvalid)
    if (block.seed == known.seed && block.line == known.line)
      return &known;
  return nullptr;
}

/// Number of functions decorated with something that mentions `jit` (@triton.jit, @jit).
int countJitFunctions(const tilec::ast::Module &module) {
  int count = 0;
  for (const tilec::ast::StmtPtr &stmt : module.body) {
    if (stmt->kind != tilec::ast::StmtKind::FunctionDef)
      continue;
    for (const tilec::ast::ExprPtr &decorator : stmt->decorators)
      if ((decorator->kind == tilec::ast::ExprKind::Attribute ||
           decorator->kind == tilec::ast::ExprKind::Name) &&
          decorator->name == "jit")
        ++count;
  }
  return count;
}

} // namespace

TEST_CASE("the Python code of the seed documents parses", "[frontend][seeds]") {
  std::vector<CodeBlock> blocks;
  for (const auto &entry : std::filesystem::directory_iterator(TILEC_SEEDS_DIR)) {
    if (entry.path().extension() != ".txt")
      continue;
    std::ifstream in(entry.path());
    std::stringstream text;
    text << in.rdbuf();
    std::vector<CodeBlock> found = extractBlocks(entry.path().filename().string(), text.str());
    blocks.insert(blocks.end(), found.begin(), found.end());
  }
  // The extraction itself is checked: these are the blocks CPython was run on.
  REQUIRE(blocks.size() == 38);

  int jitFunctions = 0;
  for (const CodeBlock &block : blocks) {
    INFO(block.seed << " line " << block.line << ":\n" << block.code);
    tilec::SourceManager sources;
    sources.setDiagnosticStream(nullptr);
    uint32_t file = sources.addFile("block", block.code);
    if (const KnownInvalid *known = findKnownInvalid(block)) {
      std::string error = tilec::test::parseError(block.code, "block");
      CHECK(error.substr(0, error.find('\n')) == std::string("block") + known->error);
      continue;
    }
    std::unique_ptr<tilec::ast::Module> module;
    CHECK_NOTHROW(module = tilec::parseModule(sources, file));
    if (module)
      jitFunctions += countJitFunctions(*module);
  }
  // The seeds' kernels, found as decorated FunctionDefs (the invalid blocks not counted).
  CHECK(jitFunctions == 22);
}
