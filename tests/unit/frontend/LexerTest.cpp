// IndentingLexer: the NEWLINE / INDENT / DEDENT tokens it adds, and what it drops.
#include "frontend/IndentingLexer.h"

#include <catch2/catch.hpp>

using tilec::IndentingLexer;

namespace {

/// The tokens of `source`, space-separated: NEWLINE, INDENT, DEDENT and EOF by name, every
/// other token by its text. Ends with the lexical error, if any, as "error L:C message".
std::string lex(const std::string &source) {
  antlr4::ANTLRInputStream input(source);
  IndentingLexer lexer(&input, 0);
  std::string out;
  for (;;) {
    std::unique_ptr<antlr4::Token> token = lexer.nextToken();
    size_t type = token->getType();
    if (!out.empty())
      out += ' ';
    if (type == IndentingLexer::NEWLINE || type == IndentingLexer::INDENT ||
        type == IndentingLexer::DEDENT || type == antlr4::Token::EOF)
      out += lexer.getVocabulary().getSymbolicName(type);
    else
      out += token->getText();
    if (type == antlr4::Token::EOF)
      break;
  }
  if (const auto &error = lexer.error())
    out += " error " + std::to_string(error->loc.line) + ":" + std::to_string(error->loc.col) +
           " " + error->message;
  return out;
}

/// Positions "line:col" (1-based) of every token of the given type.
std::vector<std::string> positionsOf(const std::string &source, size_t type) {
  antlr4::ANTLRInputStream input(source);
  IndentingLexer lexer(&input, 0);
  std::vector<std::string> positions;
  for (;;) {
    std::unique_ptr<antlr4::Token> token = lexer.nextToken();
    if (token->getType() == type)
      positions.push_back(std::to_string(token->getLine()) + ":" +
                          std::to_string(token->getCharPositionInLine() + 1));
    if (token->getType() == antlr4::Token::EOF)
      return positions;
  }
}

} // namespace

TEST_CASE("simple statements end with NEWLINE, and the input with one", "[frontend][lexer]") {
  CHECK(lex("x = 1\ny = 2\n") == "x = 1 NEWLINE y = 2 NEWLINE EOF");
  // No line break at the end of the input: the NEWLINE is made up.
  CHECK(lex("x = 1") == "x = 1 NEWLINE EOF");
  CHECK(lex("") == "EOF");
  CHECK(lex("\n\n   \n") == "EOF");
  CHECK(lex("x = 1\r\ny = 2\r\n") == "x = 1 NEWLINE y = 2 NEWLINE EOF");
}

TEST_CASE("blocks open with INDENT and close with one DEDENT per level", "[frontend][lexer]") {
  CHECK(lex("if a:\n    b\nc\n") == "if a : NEWLINE INDENT b NEWLINE DEDENT c NEWLINE EOF");
  CHECK(lex("def f():\n  for i in r:\n    if i:\n      x\n  y\nz\n") ==
        "def f ( ) : NEWLINE INDENT for i in r : NEWLINE INDENT if i : NEWLINE INDENT x NEWLINE "
        "DEDENT DEDENT y NEWLINE DEDENT z NEWLINE EOF");
  // At the end of the input every open block is closed.
  CHECK(lex("def f():\n  if a:\n    b") ==
        "def f ( ) : NEWLINE INDENT if a : NEWLINE INDENT b NEWLINE DEDENT DEDENT EOF");
}

TEST_CASE("blank and comment-only lines do not count", "[frontend][lexer]") {
  CHECK(lex("# header\n\nif a:\n\n      # deeper comment\n    b  # trailing\n\n# x\nc\n") ==
        "if a : NEWLINE INDENT b NEWLINE DEDENT c NEWLINE EOF");
  // A comment at a shallower indentation inside a block closes nothing.
  CHECK(lex("if a:\n    b\n# back at column 1\n    c\n") ==
        "if a : NEWLINE INDENT b NEWLINE c NEWLINE DEDENT EOF");
}

TEST_CASE("no NEWLINE or INDENT inside brackets", "[frontend][lexer]") {
  CHECK(lex("f(a,\n        b,\n  c)\nd\n") == "f ( a , b , c ) NEWLINE d NEWLINE EOF");
  CHECK(lex("x = [\n  1,\n  {2: (3,\n\n 4)}]\n") == "x = [ 1 , { 2 : ( 3 , 4 ) } ] NEWLINE EOF");
  CHECK(lex("if a:\n    x = (1 +\n2)\n    y\n") ==
        "if a : NEWLINE INDENT x = ( 1 + 2 ) NEWLINE y NEWLINE DEDENT EOF");
}

TEST_CASE("a backslash joins lines", "[frontend][lexer]") {
  CHECK(lex("x = 1 + \\\n      2\ny\n") == "x = 1 + 2 NEWLINE y NEWLINE EOF");
  CHECK(lex("if a and \\\n   b:\n  c\n") == "if a and b : NEWLINE INDENT c NEWLINE DEDENT EOF");
}

TEST_CASE("tabs advance to the next multiple of 8", "[frontend][lexer]") {
  // A tab and eight spaces are the same indentation; so are "  \t" and "\t".
  CHECK(lex("if a:\n\tb\n        c\n") == "if a : NEWLINE INDENT b NEWLINE c NEWLINE DEDENT EOF");
  CHECK(lex("if a:\n  \tb\n\tc\n") == "if a : NEWLINE INDENT b NEWLINE c NEWLINE DEDENT EOF");
  // Four spaces are not a tab.
  CHECK(lex("if a:\n\tb\n    c\n") ==
        "if a : NEWLINE INDENT b NEWLINE EOF error 3:5 unindent does not match any outer "
        "indentation level");
}

TEST_CASE("strings, numbers and operators are single tokens", "[frontend][lexer]") {
  CHECK(lex("x = '''a\n  b''' + rb'\\'' + F\"{x!r}\"\n") ==
        "x = '''a\n  b''' + rb'\\'' + F\"{x!r}\" NEWLINE EOF");
  CHECK(lex("1_000 0x_FF 0o17 0b1010 1.5e-3 .5 5. 1e10 3j 2.5J\n") ==
        "1_000 0x_FF 0o17 0b1010 1.5e-3 .5 5. 1e10 3j 2.5J NEWLINE EOF");
  CHECK(lex("a //= b ** c @ d -> e := f != g <<= h ...\n") ==
        "a //= b ** c @ d -> e := f != g <<= h ... NEWLINE EOF");
  // Chinese in comments, strings and names.
  CHECK(lex("变量 = '中文'  # 注释\n") == "变量 = '中文' NEWLINE EOF");
}

TEST_CASE("NEWLINE sits right after the last token of its line", "[frontend][lexer]") {
  CHECK(positionsOf("def f(x)   # comment\n  pass\n", IndentingLexer::NEWLINE) ==
        std::vector<std::string>{"1:9", "2:7"});
  CHECK(positionsOf("if a:\n    b\n", IndentingLexer::INDENT) == std::vector<std::string>{"2:5"});
}

TEST_CASE("lexical errors end the token stream and are located", "[frontend][lexer]") {
  CHECK(lex("if a:\n    b\n  c\n") ==
        "if a : NEWLINE INDENT b NEWLINE EOF error 3:3 unindent does not match any outer "
        "indentation level");
  CHECK(lex("if a:\nb\n") == "if a : NEWLINE EOF error 2:1 expected an indented block");
  CHECK(lex("while x:  # nothing follows\n") ==
        "while x : NEWLINE EOF error 1:9 expected an indented block");
  CHECK(lex("s = 'abc\n") == "s = EOF error 1:5 unterminated string literal");
  CHECK(lex("s = f\"\"\"abc\n\n") == "s = EOF error 1:5 unterminated triple-quoted string literal");
  CHECK(lex("f(a, [b)\n") == "f ( a , [ b EOF error 1:8 closing parenthesis ')' does not match "
                             "opening parenthesis '['");
  CHECK(lex("x = 1)\n") == "x = 1 EOF error 1:6 unmatched ')'");
  CHECK(lex("f(a,\n  b\n") == "f ( a , b EOF error 1:2 '(' was never closed");
  CHECK(lex("x = 3 $ 4\n") == "x = 3 EOF error 1:7 invalid character '$'");
  CHECK(lex("x = \\ 1\n") ==
        "x = EOF error 1:5 unexpected character after line continuation character");
}
